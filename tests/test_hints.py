"""Hints: `check.hint("name")` and `check.hint("name", 2)` in every exercise; progressive, never the answer,
recorded in the learner's progress, silent and inert under grading."""

import ast
import copy
import importlib
import json
import re
import sys

import nbformat
import pytest
from traitlets.config import Config

from autograder import core, hints, progress
from autograder.cohort import commands
from autograder.dev import fixture_courses, nbtools, recall
from autograder.syllabus import MODULES
from conftest import ROOT

#: Every exercise's text cells carry the hint line (`nbtools.ensure_hint_lines`).
HINTED = tuple(m.id for m in MODULES)


@pytest.fixture(scope="module")
def solutions():
    return {m.id: nbtools.read(ROOT / "solutions" / m.id / f"{m.id}.ipynb") for m in MODULES}


@pytest.fixture(scope="module")
def checks_modules(solutions):
    """``{module id: the checks module its exercise imports as `check`}``, read from the setup cell."""
    found = {}
    for module_id, nb in solutions.items():
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        name = re.search(r"from autograder\.checks import (\w+) as check", text).group(1)
        found[module_id] = importlib.import_module(f"autograder.checks.{name}")
    return found


@pytest.fixture
def learner(tmp_path, monkeypatch):
    """A learner's session: a progress file of their own, no grader around."""
    path = tmp_path / "home" / "progress.json"
    monkeypatch.setenv("TORCH_LEDGER_PROGRESS", str(path))
    monkeypatch.delenv(progress.GRADING_ENV, raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    return path


@pytest.fixture
def check(checks_modules):
    return checks_modules["01-tensors"]


def _answer_lines(source: str) -> list[str]:
    """The lines of an answer cell between BEGIN and END SOLUTION (the whole cell when it has no markers)."""
    lines = source.splitlines()
    if "### BEGIN SOLUTION" in source:
        inside, kept = False, []
        for line in lines:
            if "### BEGIN SOLUTION" in line:
                inside = True
            elif "### END SOLUTION" in line:
                inside = False
            elif inside:
                kept.append(line)
        lines = kept
    return lines


#: Verbs that open a step of a recipe ("subtract the mean", "return the total"). The last hint may name the decisive
#: step, never walk through the answer. Verbs of looking (compare, check, test, print, read, look, ask, try) are not
#: steps: pointing at an experiment is what the last hint is for.
STEP_VERBS = frozenset("""
    add append apply average backpropagate build call carry clamp clear clip clone collect combine compile compute
    concatenate convert copy count create deduplicate detach divide draw evaluate export extend fetch filter flatten
    give hand handle index insert iterate keep load loop make move multiply nudge pick put raise record reduce register
    remember replace reshape restore return save scale seed select set skip sort split square stack step stop store
    subtract sum switch synchronise synchronize take turn undo unsqueeze update wait walk wrap zero""".split())
#: Words a step's verb may follow at the start of a clause ("then subtract", "first build").
_LEADING = frozenset("first then and so next finally also only just now afterwards last".split())
MAX_STEPS = 2  # clauses that open with a step verb, in a whole last hint
MAX_THEN = 1  # "then": a sequence of more than two steps needs it twice, even when its steps are nouns

#: The last hint pairwise_sq_dists had: the algorithm in words, naming shapes and no call. The rules must refuse it.
OLD_PAIRWISE_3 = ("Give `a` the shape `[n, 1, d]` and `b` the shape `[1, m, d]`, take the difference, square it and "
                  "reduce over the feature axis. A result of `[n, m, d]` means the reduction is missing; wrong values "
                  "with the right shape usually mean the sum ran over the wrong axis.")
#: The last hint DigitCNN had: a recipe whose steps are nouns, held together by "then".
OLD_DIGITCNN_3 = ("In `forward`: the normaliser first, then at least one `Conv2d` (with `padding` the 8×8 keeps its "
                  "size), then flatten and a `Linear` to `num_classes` logits.")


def _named_calls(text: str) -> list[str]:
    """The calls a hint names, in order: each `backticked` span without its `(...)`, by its last dotted name
    (`torch.nn.functional.softplus(x)` is `softplus`); a span that is no name (a shape, an operator) names none."""
    names = []
    for span in re.findall(r"`([^`]+)`", text):
        while re.search(r"\([^()]*\)", span):
            span = re.sub(r"\([^()]*\)", "", span)
        name = span.strip().rsplit(".", 1)[-1]
        if name.isidentifier():
            names.append(name)
    return names


def _steps(text: str) -> list[str]:
    """The clauses of ``text`` that open with a step verb. Clauses end at punctuation, "and", "or", "but" and
    "then"; `code` counts as one word, so a shape's commas split nothing."""
    plain = re.sub(r"`[^`]*`", "CODE", text)
    found = []
    for clause in re.split(r"[,;:()!?—]|\.(?:\s|$)|\b(?:and|or|but|then)\b", plain, flags=re.IGNORECASE):
        words = [w.lower() for w in re.findall(r"[A-Za-z']+", clause)]
        while words and words[0] in _LEADING:
            words.pop(0)
        if words and words[0] in STEP_VERBS:
            found.append(clause.strip())
    return found


def _thens(text: str) -> int:
    return len(re.findall(r"\bthen\b", text, flags=re.IGNORECASE))


def _code_lines(text: str) -> list[str]:
    """The `backticked` spans of ``text`` that are code doing work: an assignment, arithmetic, a comparison or a
    call with arguments (a name, an attribute, a shape or an empty call is a name, not a line)."""
    working = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.BinOp, ast.Compare, ast.BoolOp, ast.Lambda,
               ast.comprehension, ast.NamedExpr)
    found = []
    for span in re.findall(r"`([^`]+)`", text):
        try:
            tree = ast.parse(span)
        except SyntaxError:
            continue
        if any(isinstance(node, working) or isinstance(node, ast.Call) and (node.args or node.keywords)
               for node in ast.walk(tree)):
            found.append(span)
    return found


def _call_share(cell, text: str) -> float:
    """The share of the reference answer's calls, in order, that ``text`` names (as `recall` measures a lesson)."""
    wanted = recall.calls(nbtools.strip_solution_markers(cell.source))
    return recall.common_in_order(wanted, _named_calls(text)) / len(wanted) if wanted else 0.0


# --------------------------------------------------------------------------
# The registry


def test_every_graded_function_has_two_or_three_hints(solutions):
    assert set(hints.HINTS) == {m.id for m in MODULES}
    for m in MODULES:
        graded = set(m.functions) | set(nbtools.answer_cells(solutions[m.id]))  # repair tasks as they land
        for function in graded:
            texts = hints.hints_of(m.id, function)
            assert 2 <= len(texts) <= 3, f"{m.id} {function}: {len(texts)} hints"
            assert all(isinstance(t, str) and len(t) > 40 for t in texts), (m.id, function)
            assert len(set(texts)) == len(texts), f"{m.id} {function}: a hint repeated"
        unknown = set(hints.HINTS[m.id]) - set(m.functions)
        assert not unknown, f"{m.id}: hints for functions the module does not grade: {unknown}"


def test_no_hint_contains_the_answer(solutions):
    problems = []
    for m in MODULES:
        texts = [t for f in hints.HINTS[m.id].values() for t in f]
        for function, cell in nbtools.answer_cells(solutions[m.id]).items():
            for line in _answer_lines(cell.source):
                for candidate in {line.strip(), line.split("#", 1)[0].strip()}:
                    if len(candidate) >= 20 and any(candidate in t for t in texts):
                        problems.append(f"{m.id} {function}: {candidate!r}")
    assert not problems, problems


# --------------------------------------------------------------------------
# The last hint: the decisive idea, the trap or the result to aim for, never a recipe


def test_the_recipe_rules_measure_what_they_say(solutions):
    assert _named_calls("`torch.nn.functional.softplus(x)`, `Tensor.max(dim=..., keepdim=True)`, `[n, 1]`, `-=`, "
                        "`x.to(device=torch.device(\"cpu\"))`") == ["softplus", "max", "to"]
    assert _steps("Clear the gradients, compute the loss and then step. Compare `.grad` with yours.") == [
        "Clear the gradients", "compute the loss", "step"]
    assert _code_lines("`x.shape`, `[N, 1]`, `model.eval()`, `-=`, `y.reshape(logits.shape)`, `a = b`, "
                       "`grad is None`") == ["y.reshape(logits.shape)", "a = b", "grad is None"]
    # The old pairwise hint names no call of the answer: a call share alone lets it through ...
    cell = nbtools.answer_cells(solutions["01-tensors"])["pairwise_sq_dists"]
    assert _call_share(cell, OLD_PAIRWISE_3) == 0.0
    # ... the steps do not: four of them in one sentence, in the answer's order.
    assert _steps(OLD_PAIRWISE_3) == ["Give CODE the shape CODE", "take the difference", "square it",
                                      "reduce over the feature axis"]
    assert len(_steps(OLD_PAIRWISE_3)) > MAX_STEPS
    # A recipe of nouns has few verbs to count; its "then"s give it away.
    assert len(_steps(OLD_DIGITCNN_3)) <= MAX_STEPS and _thens(OLD_DIGITCNN_3) > MAX_THEN


def test_last_hints_name_less_than_half_of_the_answers_calls(solutions):
    """The calls a last hint names (in backticks) cover less than half of the reference answer's calls in order;
    repair tasks are left out, as in `recall`: their answer is the released code with its bugs removed."""
    problems = []
    for m in MODULES:
        for function, cell in nbtools.answer_cells(solutions[m.id]).items():
            if function.startswith("repair_"):
                continue
            share = _call_share(cell, hints.hints_of(m.id, function)[-1])
            if share >= 0.5:
                problems.append(f"{m.id} {function}: {share:.0%} of the answer's calls")
    assert not problems, problems


def test_last_hints_are_not_recipes():
    """No last hint walks through its answer: at most two steps, one "then", and no line of code."""
    problems = []
    for module_id, functions in hints.HINTS.items():
        for function, texts in functions.items():
            text = texts[-1]
            if len(_steps(text)) > MAX_STEPS:
                problems.append(f"{module_id} {function}: steps {_steps(text)}")
            if _thens(text) > MAX_THEN:
                problems.append(f"{module_id} {function}: 'then' {_thens(text)} times")
            if _code_lines(text):
                problems.append(f"{module_id} {function}: code {_code_lines(text)}")
    assert not problems, problems


def test_every_checks_module_exposes_hint_bound_to_its_module(checks_modules, learner, capsys):
    for m in MODULES:
        bound = checks_modules[m.id].hint
        assert callable(bound) and m.id in bound.__doc__
        bound(m.functions[0])
        out = capsys.readouterr().out
        assert f"hint 1 of {len(hints.hints_of(m.id, m.functions[0]))}] {m.functions[0]}" in out, out
    assert set(progress.hints_used()) == {m.id for m in MODULES}


# --------------------------------------------------------------------------
# Levels, messages, errors


def test_levels_are_progressive_and_say_how_to_get_the_next(check, learner, capsys):
    texts = hints.hints_of("01-tensors", "make_blobs")
    n = len(texts)
    assert check.hint("make_blobs") is None
    out = capsys.readouterr().out
    assert f"[hint 1 of {n}] make_blobs — {texts[0]}" in out
    assert 'check.hint("make_blobs", 2)' in out
    check.hint("make_blobs", n)
    out = capsys.readouterr().out
    assert texts[n - 1] in out and "last hint" in out and f'check.hint("make_blobs", {n + 1})' not in out
    check.hint("make_blobs", n + 1)
    out = capsys.readouterr().out
    assert f"no hint {n + 1}" in out and f"has {n} hints" in out and texts[0] not in out


def test_unknown_name_lists_the_modules_functions(check, learner, capsys):
    check.hint("make_blob")
    out = capsys.readouterr().out
    assert "no hints for 'make_blob'" in out
    assert all(f'"{f}"' in out for f in MODULES[0].functions)
    assert 'Did you mean `check.hint("make_blobs")`' in out
    assert not learner.exists(), "an unknown name records nothing"

    def make_blobs(n, device="cpu", generator=None):
        raise NotImplementedError()

    check.hint(make_blobs)  # the function itself works as well as its name
    assert "[hint 1 of" in capsys.readouterr().out


@pytest.mark.parametrize("level", [0, -1, 1.5, "2", None, True])
def test_invalid_level_is_a_clear_value_error(check, learner, level):
    with pytest.raises(ValueError, match="hint level") as info:
        check.hint("make_blobs", level)
    assert repr(level) in str(info.value) or str(level) in str(info.value)


def test_html_in_a_notebook(check, learner, monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(core, "_in_notebook", lambda: True)
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    check.hint("standardize", 2)
    html = shown[0].data
    assert "autograder-hint" in html and "hint 2 of" in html and "<code>standardize</code>" in html
    assert "<code>check.hint(&quot;standardize&quot;, 3)</code>" in html or 'check.hint("standardize", 3)' in html


# --------------------------------------------------------------------------
# Progress


def test_progress_records_the_highest_level_shown(check, learner):
    check.hint("standardize", 2)
    check.hint("standardize")  # looking at hint 1 again does not lower the count
    check.hint("align_targets")
    check.hint("align_targets", 9)  # beyond the last: nothing shown, nothing recorded
    data = json.loads(learner.read_text())
    assert data["01-tensors"]["hints"] == {"standardize": 2, "align_targets": 1}
    assert progress.hints_used() == {"01-tensors": {"standardize": 2, "align_targets": 1}}


def test_status_and_start_page_read_a_file_with_hints(check, checks_modules, learner):
    check.hint("pairwise_sq_dists", 2)
    check.pairwise_sq_dists_shape(lambda a, b: ((a[:, None] - b[None]) ** 2).sum(-1))
    checks_modules["02-autograd-ledger"].hint("grad_report")
    data = json.loads(learner.read_text())
    assert data["01-tensors"]["pairwise_sq_dists"]["pairwise_sq_dists_shape"]["outcome"] == "correct"
    table = progress.status()
    assert table["01-tensors"] == {"make_blobs": "not attempted", "standardize": "not attempted",
                                   "pairwise_sq_dists": "passed", "align_targets": "not attempted"}
    assert set(table["01-tensors"]) == set(MODULES[0].functions), "the hints key is not a function"
    shown = progress.progress(show_chart=False)
    assert "pairwise_sq_dists: passed" in str(shown)
    page = shown._repr_html_()
    assert page.count("<tr>") == len(MODULES) and "passed; 2 hints used" in page and "1 hint used" in page
    assert len(shown.figure().axes[0].patches) == 3 * len(MODULES)


def test_a_damaged_or_unwritable_file_never_breaks_a_hint(check, learner, tmp_path, monkeypatch, capsys):
    learner.parent.mkdir(parents=True)
    learner.write_text(json.dumps({"01-tensors": {"hints": "oops", "standardize": []}}))
    check.hint("standardize")
    assert json.loads(learner.read_text())["01-tensors"]["hints"] == {"standardize": 1}
    assert progress.status()["01-tensors"]["standardize"] == "not attempted"
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("TORCH_LEDGER_PROGRESS", str(blocker / "progress.json"))  # a path under a file
    check.hint("standardize", 2)
    assert "hint 2 of" in capsys.readouterr().out
    monkeypatch.setenv("TORCH_LEDGER_PROGRESS", "off")  # off: shown, not recorded
    check.hint("standardize", 3)
    assert "hint 3 of" in capsys.readouterr().out


# --------------------------------------------------------------------------
# Grading


@pytest.mark.parametrize("variable, value", [("TORCH_LEDGER_GRADING", "1"), ("TORCH_LEDGER_GRADING", "true"),
                                             ("NBGRADER_EXECUTION", "autograde")])
def test_under_grading_a_hint_shows_and_records_nothing(check, learner, monkeypatch, capsys, variable, value):
    monkeypatch.setenv(variable, value)
    assert progress.is_grading()
    assert check.hint("make_blobs") is None
    assert check.hint("make_blobs", 2) is None
    assert check.hint("no_such_function") is None
    assert check.hint("make_blobs", 0) is None  # not even an error: the run must not change
    check.pairwise_sq_dists_shape(lambda a, b: ((a[:, None] - b[None]) ** 2).sum(-1))
    captured = capsys.readouterr()
    assert "hint" not in captured.out and captured.err == ""
    assert not learner.exists(), "a graded run records nothing"


def test_grading_flag_off_is_not_grading(learner, monkeypatch):
    for value in ("", "0", "false", "off"):
        monkeypatch.setenv(progress.GRADING_ENV, value)
        assert not progress.is_grading()
    assert progress.progress_file() == learner


def test_the_sandboxed_kernel_is_marked_as_grading():
    from autograder.cohort.kernels.confinement import kernel_env

    assert kernel_env()[progress.GRADING_ENV] == "1"


@pytest.mark.parametrize("argv, grading", [
    (["/venv/bin/nbgrader", "autograde", "01-tensors", "--force"], True),
    (["/venv/lib/python3.11/site-packages/nbgrader/__main__.py", "autograde", "01-tensors"], True),
    (["/venv/bin/jupyter-nbgrader", "--debug", "autograde", "01-tensors"], True),
    (["/venv/bin/nbgrader", "generate_assignment", "01-tensors"], False),
    (["/venv/bin/jupyter-lab", "--no-browser"], False),
    (["/venv/lib/python3.11/site-packages/autograder/__main__.py", "grade", "01-tensors"], False),
    ([], False),
])
def test_nbgrader_config_marks_only_nbgrader_autograde(monkeypatch, argv, grading):
    monkeypatch.setenv(progress.GRADING_ENV, "0")  # so that monkeypatch removes what the config sets
    monkeypatch.delenv(progress.GRADING_ENV)
    monkeypatch.setattr(sys, "argv", argv)
    config = Config()
    path = ROOT / "nbgrader_config.py"  # exec, not runpy: runpy replaces argv[0]
    exec(compile(path.read_text(), str(path), "exec"), {"get_config": lambda: config, "__file__": str(path)})
    assert config.CourseDirectory.source_directory == "solutions"
    import os

    assert (os.environ.get(progress.GRADING_ENV) == "1") is grading


# --------------------------------------------------------------------------
# The line in every exercise


def test_hint_lines_are_idempotent_and_name_every_function(solutions):
    for module_id, nb in solutions.items():
        once = nbtools.ensure_hint_lines(nb, module_id)
        assert nbtools.ensure_hint_lines(once, module_id) == once, module_id
        text = "\n".join(c.source for c in once.cells if c.cell_type == "markdown")
        for function in nbtools.answer_cells(nb):
            assert text.count(f'`check.hint("{function}")`') == 1, (module_id, function)
            assert f'`check.hint("{function}", 2)`' in text, (module_id, function)
        assert len(once.cells) == len(nb.cells) and nbtools.answer_cells(once).keys() == nbtools.answer_cells(nb).keys()


@pytest.mark.parametrize("module_id", HINTED)
def test_hinted_exercises_carry_the_line(solutions, module_id):
    nb = solutions[module_id]
    assert nbtools.ensure_hint_lines(nb, module_id) == nb, f"run nbtools.ensure_hint_lines on {module_id}"
    released = nbtools.read(ROOT / "exercises" / module_id / f"{module_id}.ipynb")
    text = "\n".join(c.source for c in released.cells if c.cell_type == "markdown")
    for function in nbtools.answer_cells(nb):
        assert f'`check.hint("{function}")`' in text, f"{module_id}: run `make release` ({function})"


def test_hint_lines_refuse_a_function_without_hints():
    nb = nbtools.new_notebook([nbtools.markdown("## f", "f_text"), nbtools.answer("f", "def f():\n    pass")])
    with pytest.raises(ValueError, match="no hints for"):
        nbtools.ensure_hint_lines(nb, "01-tensors")


# --------------------------------------------------------------------------
# Real nbgrader: a learner's hint cell changes nothing in a graded run


@pytest.mark.slow
def test_a_hint_cell_changes_nothing_under_real_nbgrader(tmp_path, monkeypatch, solutions):
    module_id = "01-tensors"
    course = fixture_courses.make_course(tmp_path / "course", [module_id], ROOT)
    released = nbtools.read(fixture_courses.release(course, module_id))
    answers = {f: "\n".join(line for line in cell.source.splitlines() if "### " not in line)
               for f, cell in nbtools.answer_cells(solutions[module_id]).items()}
    plain = nbtools.substitute(released, answers)
    hinted = copy.deepcopy(plain)
    at = next(i for i, c in enumerate(hinted.cells) if nbtools.grade_id(c) == "make_blobs")
    hinted.cells[at + 1:at + 1] = [nbformat.v4.new_code_cell('check.hint("make_blobs")'),
                                   nbformat.v4.new_code_cell('import os\nprint("grading:", os.environ.get('
                                                             '"TORCH_LEDGER_GRADING"))')]
    fixture_courses.submit(course, module_id, "plain", plain)
    fixture_courses.submit(course, module_id, "hinted", hinted)
    # The kernels get a real progress file: a graded run must leave it unwritten.
    learner_file = tmp_path / "home" / "progress.json"
    env = commands.environment
    monkeypatch.setattr(commands, "environment",
                        lambda db=None, kernels=None: {**env(db, kernels), "TORCH_LEDGER_PROGRESS": str(learner_file)})
    monkeypatch.delenv(progress.GRADING_ENV, raising=False)
    fixture_courses.autograde(course, module_id)

    scores = fixture_courses.scores(course, module_id)
    assert scores["hinted"] == scores["plain"] and all(s == m for s, m in scores["plain"].values()), scores
    graded = nbtools.read(fixture_courses.autograded_notebook(course, module_id, "hinted"))
    cells = {c.source: c for c in graded.cells if c.cell_type == "code"}
    assert cells['check.hint("make_blobs")'].outputs == []
    probe = "".join(o.get("text", "") for o in cells[hinted.cells[at + 2].source].outputs)
    assert "grading: 1" in probe, f"nbgrader_config.py did not mark the autograde run: {probe!r}"
    assert not learner_file.exists(), "a graded run wrote the learner's progress"


def test_module_02s_checks_and_hints_land_under_its_id(checks_modules, learner):
    """Its checks module is m02_autograd, not m02_autograd_ledger: progress finds it by its number."""
    import torch

    def grad_report(model):
        return {name: "none" if p.grad is None else "zero" if torch.count_nonzero(p.grad) == 0 else "nonzero"
                for name, p in model.named_parameters()}

    checks_modules["02-autograd-ledger"].grad_report_states(grad_report)
    checks_modules["02-autograd-ledger"].hint("leaves_of", 2)
    assert progress.status()["02-autograd-ledger"]["grad_report"] == "passed"
    assert progress.hints_used()["02-autograd-ledger"] == {"leaves_of": 2}


def test_the_answer_comes_after_the_last_hint(check, learner, capsys, monkeypatch, tmp_path):
    """`check.solution("name")`: refused (saying how many hints remain) until every hint was shown, then the
    reference answer from solutions/, recorded in progress and shown on the progress table; inert under grading;
    and where the course has no solutions/ and the published answers are switched off, it says that the
    instructor has the answer."""
    monkeypatch.setattr(hints, "_SHOWN", {})
    total = len(hints.hints_of("01-tensors", "standardize"))
    check.solution("standardize")
    out = capsys.readouterr().out
    assert f"{total} of its {total} hints are still unread" in out and 'check.hint("standardize")' in out
    for level in range(1, total + 1):
        check.hint("standardize", level)
    assert "check.solution(\"standardize\")" in capsys.readouterr().out  # the last hint names the way on
    monkeypatch.setenv(hints.SOLUTIONS_ENV, str(ROOT / "solutions"))
    check.solution("standardize")
    out = capsys.readouterr().out
    reference = hints.reference_answer("01-tensors", "standardize")
    assert "[answer] standardize" in out and reference.splitlines()[-1] in out and "### BEGIN" not in out
    assert progress.revealed() == {"01-tensors": ["standardize"]}
    assert "standardize: " in str(progress.progress(show_chart=False)) and "(answer revealed)" in str(
        progress.progress(show_chart=False))
    # The unlock comes from the progress file too: a new session (nothing shown in this process) may see it.
    monkeypatch.setattr(hints, "_SHOWN", {})
    check.solution("standardize")
    assert "[answer] standardize" in capsys.readouterr().out
    # A course handed out without solutions/, whose instructor switched the published answers off.
    monkeypatch.setenv(hints.SOLUTIONS_ENV, str(tmp_path / "nowhere"))
    monkeypatch.setenv(hints.SOLUTIONS_URL_ENV, "")
    check.solution("standardize")
    assert "your instructor has it" in capsys.readouterr().out
    # Under grading: nothing shown, nothing recorded.
    monkeypatch.setenv(progress.GRADING_ENV, "1")
    before = learner.read_text()
    assert check.solution("standardize") is None and capsys.readouterr().out == "" and learner.read_text() == before


@pytest.fixture
def served(tmp_path):
    """The course's solutions/ served over HTTP on 127.0.0.1, as the published repository serves them."""
    import functools
    import http.server
    import shutil
    import threading

    root = tmp_path / "published"
    shutil.copytree(ROOT / "solutions" / "01-tensors", root / "solutions" / "01-tensors")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_without_solutions_the_answer_comes_from_the_published_repository(check, learner, capsys, monkeypatch,
                                                                          tmp_path, served):
    """As on Colab: a folder with no solutions/ above it. After the last hint the answer is read from the
    published repository (here a local server standing in for it), says where it came from and is recorded;
    offline, it says it could not be read and why, within the timeout, and records nothing."""
    import socket
    import time

    colab = tmp_path / "content"
    colab.mkdir()
    monkeypatch.chdir(colab)
    monkeypatch.delenv(hints.SOLUTIONS_ENV, raising=False)
    monkeypatch.setattr(hints, "_SHOWN", {})
    monkeypatch.setattr(hints, "_FETCHED", {})
    assert hints.local_reference("01-tensors", "standardize") is None
    monkeypatch.delenv(hints.SOLUTIONS_URL_ENV, raising=False)
    assert hints.solutions_url("01-tensors") == ("https://raw.githubusercontent.com/torch-ledger/torch-ledger-course/"
                                                "main/solutions/01-tensors/01-tensors.ipynb")  # the badges' repository
    for level in range(1, len(hints.hints_of("01-tensors", "standardize")) + 1):
        check.hint("standardize", level)
    capsys.readouterr()
    # Offline: a port where nothing listens.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv(hints.SOLUTIONS_URL_ENV, f"http://127.0.0.1:{port}/")
    started = time.perf_counter()
    check.solution("standardize")
    out = capsys.readouterr().out
    assert time.perf_counter() - started < hints.FETCH_TIMEOUT + 1
    assert "no solutions/ folder" in out and f"127.0.0.1:{port}/solutions/01-tensors/01-tensors.ipynb could not be " \
        "reached" in out and "Connect to the internet" in out
    assert f"the place {hints.SOLUTIONS_URL_ENV} names" in out and "published repository" not in out  # not the course's
    assert progress.revealed() == {}
    # A repository without that notebook.
    monkeypatch.setenv(hints.SOLUTIONS_URL_ENV, served + "elsewhere/")
    check.solution("standardize")
    assert "answered 404" in capsys.readouterr().out and progress.revealed() == {}
    # Online.
    monkeypatch.setenv(hints.SOLUTIONS_URL_ENV, served)
    check.solution("standardize")
    out = capsys.readouterr().out
    want = nbtools.strip_solution_markers(nbtools.answer_cells(nbtools.read(
        ROOT / "solutions" / "01-tensors" / "01-tensors.ipynb"))["standardize"].source).rstrip("\n")
    assert f"[answer] standardize — the reference answer (from {served}solutions/01-tensors/01-tensors.ipynb)" in out
    assert want in out and "### BEGIN" not in out
    assert progress.revealed() == {"01-tensors": ["standardize"]}
