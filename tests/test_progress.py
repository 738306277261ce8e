"""Learner progress: recorded per check, summarised per module and function, never inside the package."""

import json

import pytest

import autograder
from autograder import progress
from autograder.checks import m01_tensors as check
from autograder.core import CheckFailed


@pytest.fixture
def progress_file(tmp_path, monkeypatch):
    path = tmp_path / "home" / "progress.json"
    monkeypatch.setenv("TORCH_LEDGER_PROGRESS", str(path))
    return path


def test_checks_record_outcomes(progress_file):
    import torch

    check.pairwise_sq_dists_shape(lambda a, b: ((a[:, None] - b[None]) ** 2).sum(-1))
    with pytest.raises(CheckFailed):
        check.standardize_values(lambda x: x)
    with pytest.raises(CheckFailed):
        check.align_targets_reshapes(lambda logits, y: (_ for _ in ()).throw(NotImplementedError()))
    data = json.loads(progress_file.read_text())
    assert data["01-tensors"]["pairwise_sq_dists"]["pairwise_sq_dists_shape"]["outcome"] == "correct"
    assert data["01-tensors"]["standardize"]["standardize_values"]["outcome"] == "incorrect"
    table = progress.status()
    assert table["01-tensors"] == {"make_blobs": "not attempted", "standardize": "failed",
                                   "pairwise_sq_dists": "passed", "align_targets": "not attempted"}
    assert set(table) == {m.id for m in autograder.syllabus.MODULES}
    assert torch  # the checks ran on real tensors


def test_latest_outcome_wins_and_file_is_outside_the_package(progress_file):
    with pytest.raises(CheckFailed):
        check.standardize_values(lambda x: x)
    check.standardize_values(lambda x: (x - x.mean(0)) / x.std(0))
    assert progress.status()["01-tensors"]["standardize"] == "passed"
    assert autograder.__path__[0] not in str(progress_file)


def test_off_and_unwritable_never_break_a_check(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_LEDGER_PROGRESS", "off")
    check.pairwise_sq_dists_shape(lambda a, b: ((a[:, None] - b[None]) ** 2).sum(-1))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("TORCH_LEDGER_PROGRESS", str(blocker / "progress.json"))  # a path under a file
    check.pairwise_sq_dists_shape(lambda a, b: ((a[:, None] - b[None]) ** 2).sum(-1))


def test_rendering(progress_file):
    check.pairwise_sq_dists_shape(lambda a, b: ((a[:, None] - b[None]) ** 2).sum(-1))
    shown = progress.progress(show_chart=False)
    assert "pairwise_sq_dists: passed" in str(shown)
    assert shown._repr_html_().count("<tr>") == len(autograder.syllabus.MODULES)
    fig = shown.figure()
    assert len(fig.axes[0].patches) == 3 * len(autograder.syllabus.MODULES)


def test_prerequisites_check_gives_instant_feedback_and_points_to_reading():
    """Five questions (broadcasting, matrix shapes, the chain rule, a class, a comprehension): exactly one right
    answer each, verified here by running it; a wrong one says what to read first; the widgets answer at once."""
    import numpy as np

    from autograder import prereqs

    assert [q.topic for q in prereqs.QUESTIONS] == ["NumPy broadcasting", "matrix shapes", "the chain rule",
                                                     "a Python class", "a list comprehension"]
    truths = [str((np.ones((3, 1)) + np.ones(4)).shape), str((np.ones((32, 10)) @ np.ones((10, 5))).shape),
              str(2 * (3 * 1) * 3), "7", str([x * x for x in range(5) if x % 2 == 0])]
    for q, truth in zip(prereqs.QUESTIONS, truths):
        assert q.choices[q.correct] == truth, (q.topic, q.choices[q.correct], truth)
    for number, q in enumerate(prereqs.QUESTIONS, start=1):
        for choice in range(len(q.choices)):
            text = prereqs.answer(number, choice)
            assert text.startswith("Right") == (choice == q.correct)
            assert (choice == q.correct) or "Read first:" in text
    with pytest.raises(ValueError, match="numbered 1 to 5"):
        prereqs.answer(6, 0)
    box = prereqs.prerequisites()
    title, options, feedback = box.children[2].children
    options.value = 2
    assert "Right" in feedback.value
    options.value = 0
    assert "Not quite" in feedback.value and "Read first" in feedback.value


def test_progress_is_subscribed_explicitly_once_by_the_checks_package():
    """No import for its side effects: importing progress adds no listener; the checks' package subscribes it,
    and subscribing again (or reloading) keeps one."""
    import importlib
    import subprocess
    import sys

    code = ("import autograder.core as core, autograder.progress as p; before = len(core.RESULT_LISTENERS); "
            "import autograder.checks.m01_tensors; p.subscribe(); importlib.reload(p); p.subscribe(); "
            "print(before, [f.__module__ for f in core.RESULT_LISTENERS])")
    out = subprocess.run([sys.executable, "-c", "import importlib; " + code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "0 ['autograder.progress']", out
    assert importlib.import_module("autograder.checks").__doc__
