"""Answers that look copied: a synthetic cohort of module 04 with planted copies and independent answers.

The cohort: 30 students hand in the solution and 10 a popular other style of `train_step` (common answers,
never suspicious); one student each hands in every correct variant of the catalogue (independent answers);
five hand in the release untouched (stubs and starter code, never a match).  Planted: a variant of `train_epoch` copied with
its names changed, comments added and two independent lines swapped; the same odd bug (a mutant) in three
notebooks, one as written, one renamed, one commented; a repair copied with its names changed.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.cells import answer_sources
from autograder.cohort.views import normalise
from autograder.cohort.views import similarity as sim
from autograder.dev import nbtools
from autograder.dev.catalogue import m04_five_line_step as cat
from conftest import ROOT

MODULE = "04-five-line-step"


def renamed(source: str, suffix: str = "_mine") -> str:
    """``source`` with every function's arguments and assigned names renamed (what a copier does first)."""
    tree = ast.parse(source)
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        local = {a.arg for a in fn.args.args} | {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                                                 and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(fn):
            if isinstance(node, ast.arg) and node.arg in local:
                node.arg += suffix
            elif isinstance(node, ast.Name) and node.id in local:
                node.id += suffix
    return ast.unparse(tree)


def commented(source: str) -> str:
    """``source`` with a comment above every line and blank lines between them."""
    out = []
    for line in source.splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        out += [f"{indent}# my own step, see the lesson", line, ""]
    return "\n".join(out)


def reordered(source: str) -> str:
    """``source`` with the first two adjacent, independent assignments of a function swapped."""
    tree = ast.parse(source)
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        for body in [n.body for n in ast.walk(fn) if isinstance(getattr(n, "body", None), list)]:
            for i in range(len(body) - 1):
                a, b = body[i], body[i + 1]
                if isinstance(a, ast.Assign) and isinstance(b, ast.Assign):
                    (ra, wa), (rb, wb) = normalise._names(a), normalise._names(b)
                    if not (wa & (rb | wb) or wb & ra):
                        body[i], body[i + 1] = b, a
                        return ast.unparse(tree)
    raise AssertionError("no two independent assignments to swap")


@pytest.fixture(scope="module")
def cohort():
    solution = {k: nbtools.strip_solution_markers(c.source) for k, c in
                nbtools.answer_cells(nbtools.read(ROOT / "solutions" / MODULE / f"{MODULE}.ipynb")).items()}
    release = answer_sources(nbtools.read(ROOT / "exercises" / MODULE / f"{MODULE}.ipynb"))
    students: dict[str, dict[str, str]] = {}
    for i in range(30):
        students[f"common-{i:02d}"] = dict(solution)
    for i in range(10):
        students[f"popular-{i:02d}"] = {**solution, **cat.VARIANTS["step_zero_grad_at_end"]}
    for name, answers in cat.VARIANTS.items():
        students[f"variant-{name}"] = {**solution, **answers}
    for i in range(5):
        students[f"untouched-{i}"] = dict(release)
    copied = cat.VARIANTS["epoch_dataset_length"]["train_epoch"]
    students["copy-epoch"] = {**solution, "train_epoch": commented(reordered(renamed(copied)))}
    bug = cat.MUTANTS["epoch_tensor_total"].answers["train_epoch"]
    students["bug-a"] = {**solution, "train_epoch": bug}
    students["bug-b"] = {**solution, "train_epoch": renamed(bug, "_b")}
    students["bug-c"] = {**solution, "train_epoch": commented(bug)}
    repair = cat.VARIANTS["repair_model_zero_grad_and_counter"]["repair_train_epoch"]
    students["copy-repair"] = {**solution, "repair_train_epoch": renamed(repair, "_r")}
    planted = {frozenset(p) for p in [("variant-epoch_dataset_length", "copy-epoch"), ("bug-a", "bug-b"),
                                      ("bug-a", "bug-c"), ("bug-b", "bug-c"),
                                      ("variant-repair_model_zero_grad_and_counter", "copy-repair")]}
    by_cell = {cell: {s: answers[cell] for s, answers in students.items()} for cell in release}
    return by_cell, release, students, planted


def test_every_planted_copy_is_found_and_no_independent_pair_is(cohort, tmp_path):
    by_cell, release, students, planted = cohort
    copied = cat.VARIANTS["epoch_dataset_length"]["train_epoch"]
    assert reordered(copied) != ast.unparse(ast.parse(copied)), "the copy really is reordered"
    report, kept = sim.compare(by_cell, release, MODULE)
    flagged = report.flagged()
    assert planted <= flagged, planted - flagged
    # the catalogue writes one variant's train_step twice, word for word: the same code is not independent
    same_code = {frozenset(("variant-overfit_own_loop_zero_at_end", "variant-step_zero_grad_at_end"))}
    assert flagged - planted <= same_code, flagged - planted
    assert ["bug-a", "bug-b", "bug-c"] in report.clusters()
    assert not any(s.startswith("untouched-") for pair in flagged for s in pair), "a stub or starter code matched"
    assert all(n == len(students) - 5 for n in report.cells.values()), report.cells  # untouched cells are not answers
    bug = next(p for p in report.pairs if {p.a, p.b} == {"bug-a", "bug-b"})
    assert bug.cell == "train_epoch" and bug.identical and bug.score == 1.0 and "identical" in " ".join(bug.reasons())

    page = sim.write_report(report, kept, tmp_path)
    text = page.read_text()
    assert "bug-a, bug-b, bug-c" in text and "<mark>" in text and "as submitted" in text
    saved = json.loads((tmp_path / "similarity.json").read_text())
    assert {frozenset((p["a"], p["b"])) for p in saved["pairs"]} == flagged


def test_normalising_undoes_renaming_comments_and_reordering():
    source = cat.VARIANTS["epoch_dataset_length"]["train_epoch"]
    assert normalise.normalise(commented(reordered(renamed(source)))) == normalise.normalise(source)
    # a real change of what the code does is kept apart
    assert normalise.normalise(source.replace("+", "-", 1)) != normalise.normalise(source)


def test_the_similarity_command_reads_a_course_and_writes_the_page(cohort, tmp_path):
    by_cell, release, students, planted = cohort
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.release_directory = 'exercises'\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{tmp_path}/gradebook.db'\n")
    released = nbtools.read(ROOT / "exercises" / MODULE / f"{MODULE}.ipynb")
    (tmp_path / "exercises" / MODULE).mkdir(parents=True)
    nbformat.write(released, tmp_path / "exercises" / MODULE / f"{MODULE}.ipynb")
    for student in ("bug-a", "bug-b", "common-00", "common-01", "common-02", "common-03"):
        folder = tmp_path / "submitted" / student / MODULE
        folder.mkdir(parents=True)
        nbformat.write(nbtools.substitute(released, students[student]), folder / f"{MODULE}.ipynb")
    proc = subprocess.run([sys.executable, "-m", "autograder", "similarity", MODULE, "--course", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "1 pair" in proc.stdout and "bug-a, bug-b" in proc.stdout, proc.stdout
    page = Path(tmp_path / "reports" / MODULE / "similarity.html")
    assert page.is_file() and "bug-a and bug-b" in page.read_text()
