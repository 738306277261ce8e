"""Answers that look copied, measured on the planted cohorts of modules 02 to 09 (``autograder.dev.planted``,
``planted_02``, ``planted_03``, ``planted_05``, ``planted_05b``, ``planted_05c``, ``planted_06``, ``planted_06b``,
``planted_08``, ``planted_09``), and false alarms on a cohort of honest students only (``honest_06``).

Module 04: twelve honest students in their own styles, two who wrote the course's canonical answer
independently, six who copied a classmate and disguised two or three answers each a different way (renamed,
re-commented, wrapped in a class, split into helpers, loops turned into comprehensions, statements reordered).
The similarity report must find every disguised cell but two (the released starter code with one repair line,
see below), flag no pair of independent students, and show the canonical pair as the course's answer.

Modules 05 and 06 have two tuning cohorts each (``planted_05``, ``planted_05b``, ``planted_06``,
``planted_06b``), and two cohorts are kept out of tuning: module 05's third (``planted_05c``) and module 08's
(``planted_08``: seeding and checkpoints in each student's own layout, twelve copiers, a chain, a merge and a half
copy, written apart from the normaliser).  Their figures are floors the normaliser must keep, and every
normalised answer of every cohort must do, on the exercise's inputs, what the submitted one does.
"""

import ast
import functools
import html
import json
import math
import subprocess
import sys

import nbformat
import pytest

from autograder.cohort.views import normalise
from autograder.cohort.views import similarity as sim
from autograder.dev import nbtools, planted
from conftest import ROOT

MODULE = planted.MODULE


@pytest.fixture(scope="module")
def cohort():
    return planted.planted_cohort()


@pytest.fixture(scope="module")
def code():
    return planted.course_code_of_module()


@pytest.fixture(scope="module")
def report(cohort, code):
    return sim.compare(cohort.answers, cohort.stubs, MODULE, code=code)


def test_every_disguised_cell_is_found_and_no_independent_pair_is_flagged(cohort, report):
    measures = planted.measure(cohort, report)
    missed = [(sorted(pair), cell) for pair, cell in cohort.disguised if (pair, cell) not in report.matching_cells()]
    assert missed == [], missed
    # Two copies of repair_train_epoch are the released starter code with the same repair lines: once every
    # variable is written v, what the two share beyond the starter weighs less than a match needs, as it does
    # for two honest students making the one repair the lesson asks for.  They match as support only: the two
    # answers are identical once normalised, rare in the cohort, and the pair matches in other cells.
    cell = sim.Cohort([report.answers[s, "repair_train_epoch"] for s in report.cells["repair_train_epoch"].compared])
    pairs = {frozenset((p.a, p.b)): p for p in report.pairs}
    for a, b in (("copier-rename", "honest-03"), ("copier-recomment", "honest-05")):
        m = sim.match(report.answers[a, "repair_train_epoch"], report.answers[b, "repair_train_epoch"], cell, sim.THRESHOLD)
        assert m.counted < sim.MIN_EVIDENCE and "weigh" in m.why_not() and m.identical, m
        shown = next(c for c in pairs[frozenset((a, b))].cells if c.cell == "repair_train_epoch")
        assert shown.matches and shown.supports and any("as support only" in r for r in shown.reasons())
        assert len([c for c in pairs[frozenset((a, b))].matching if not c.supports]) >= 2
    assert (measures.disguised_found, measures.disguised) == (15, 15)
    assert report.flagged() == set(cohort.copied), report.flagged() ^ set(cohort.copied)
    assert measures.false_pairs == 0 and measures.independent_pairs == 184
    # one entry per pair, every cell the two answered in it; a cluster is a copied pair (two cells or more)
    assert len(report.pairs) == len({frozenset((p.a, p.b)) for p in report.pairs})
    for p in report.pairs:
        both = {c for c, s in report.cells.items() if {p.a, p.b} <= set(s.compared)}
        assert {c.cell for c in p.cells} == both
        assert len(p.matching) >= 2
    assert sorted(frozenset(g) for g, _ in report.clusters()) == sorted(cohort.copied, key=sorted)


def test_the_canonical_answer_is_the_courses_never_a_pair(cohort, report):
    assert cohort.canonical not in report.flagged()
    for cell in ("train_step", "train_epoch", "accumulate_step"):
        summary = report.cells[cell]
        assert cohort.canonical <= set(summary.course), (cell, summary.course)
        # handed in word for word (after check.solution) or the same code in one's own names: both listed
        assert summary.reference["canonical-1"] == "word for word"
        assert summary.reference["canonical-2"] == "same code"
    # the one-line overfit_one_batch is too short to tell, whoever wrote it
    assert {"canonical-1", "canonical-2", "honest-01"} <= set(report.cells["overfit_one_batch"].too_short)
    # a convergent short variant (the tutorial's order of train_step) matches in that one cell only, on less
    # than one cell alone must carry: not a pair, and the page says why
    assert frozenset(("honest-04", "honest-08")) not in report.flagged()
    weak = {frozenset((p.a, p.b)): p for p in report.weak}
    assert [m.cell for m in weak[frozenset(("honest-04", "honest-08"))].matching] == ["train_step"]


def test_the_reference_handed_in_is_listed_whatever_the_cohort_size(cohort, code):
    """Three of eight students hand in the reference: too common to weigh anything, and still listed."""
    answers = {cell: {s: by[s] for s in sorted(by)[:8]} for cell, by in cohort.answers.items()}
    for student in sorted(answers["train_epoch"])[:3]:
        answers["train_epoch"][student] = code.reference["train_epoch"]
    report = sim.compare(answers, cohort.stubs, MODULE, code=code)
    listed = {s for s, how in report.cells["train_epoch"].reference.items() if how == "word for word"}
    assert listed == set(sorted(answers["train_epoch"])[:3])
    assert not any(c.cell == "train_epoch" and c.matches for p in report.pairs for c in p.cells)


def test_the_page_shows_pairs_side_by_side_with_what_was_discounted(cohort, report, tmp_path):
    page = html.unescape(sim.write_report(report, tmp_path).read_text())
    assert page.count("<div class='pair'>") == len(report.pairs) == 6
    assert "copier-class and honest-07: 3 matching cells" in page
    assert "weakest link" in page and "<mark>" in page and "as submitted" in page
    assert "lie on the course's own lines" in page and "common in the cohort" in page
    assert "the course's answer (written by" in page and "canonical-1, canonical-2" in page
    saved = json.loads((tmp_path / "similarity.json").read_text())
    assert {frozenset((p["a"], p["b"])) for p in saved["pairs"]} == report.flagged()
    assert saved["cells"]["train_epoch"]["reference"]["canonical-1"] == "word for word"


@pytest.mark.parametrize("disguise", [d for _, _, d, _ in planted.COPIES])
def test_normalising_undoes_each_disguise(disguise, cohort):
    copier, classmate, _, cells = next(c for c in planted.COPIES if c[2] == disguise)
    students, stubs = planted.HONEST, cohort.stubs
    for cell, copy in cells.items():
        keep = normalise.defined(stubs[cell])
        assert _text(copy, keep) == _text(students[classmate][cell], keep), cell
    # a real change of what the code does is kept apart: the first arithmetic operator swapped
    source = students[classmate][next(iter(cells))]
    tree = ast.parse(source)
    op = next(n for n in ast.walk(tree) if isinstance(n, ast.BinOp))
    op.op = ast.Sub() if isinstance(op.op, ast.Add) else ast.Add()
    assert _text(ast.unparse(tree)) != _text(source)


def _text(source, keep=()):
    """What is fingerprinted of ``source``."""
    return normalise.folded(normalise.normalise_tree(source, keep), keep=frozenset(keep))


def test_the_similarity_command_reads_a_course_and_writes_the_page(cohort, tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.release_directory = 'exercises'\n"
        "c.CourseDirectory.source_directory = 'solutions'\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{tmp_path}/gradebook.db'\n")
    released = nbtools.read(ROOT / "exercises" / MODULE / f"{MODULE}.ipynb")
    for folder in ("exercises", "solutions"):
        (tmp_path / folder / MODULE).mkdir(parents=True)
        nbformat.write(nbtools.read(ROOT / folder / MODULE / f"{MODULE}.ipynb"),
                       tmp_path / folder / MODULE / f"{MODULE}.ipynb")
    for student in ("copier-class", "honest-07", "canonical-1", "canonical-2", "honest-01", "honest-02"):
        folder = tmp_path / "submitted" / student / MODULE
        folder.mkdir(parents=True)
        answers = {cell: by[student] for cell, by in cohort.answers.items()}
        nbformat.write(nbtools.substitute(released, answers), folder / f"{MODULE}.ipynb")
    proc = subprocess.run([sys.executable, "-m", "autograder", "similarity", MODULE, "--course", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "1 pair" in proc.stdout and "copier-class, honest-07" in proc.stdout, proc.stdout
    page = html.unescape((tmp_path / "reports" / MODULE / "similarity.html").read_text())
    assert "copier-class and honest-07" in page and "the reference solution" in page
    assert "canonical-1 and canonical-2" not in page


def test_clusters_join_only_pairs_matching_in_two_cells_and_name_their_weakest_link():
    def pair(a, b, *scores):
        cells = [sim.CellMatch(f"cell{i}", s, 10.0, 20, 0, 0, 10, 20, 3, False, 12, True) for i, s in enumerate(scores)]
        return sim.Pair(a, b, cells)

    report = sim.Report("m", sim.THRESHOLD, 6, pairs=[pair("ann", "bob", 1.0, 0.9, 0.8), pair("bob", "cy", 0.7, 0.6),
                                                        pair("cy", "dan", 1.0), pair("eve", "fay", 0.9, 0.9)])
    clusters = report.clusters()
    assert [g for g, _ in clusters] == [["ann", "bob", "cy"], ["eve", "fay"]]  # cy and dan share one cell only
    assert (clusters[0][1].a, clusters[0][1].b) == ("bob", "cy")


# ---- the normaliser keeps what programs do

def test_importing_similarity_does_not_import_torch():
    code = "import sys, autograder.cohort.views.similarity; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


@pytest.fixture(scope="module")
def torch_one_thread():
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


@pytest.mark.parametrize("name", ["planted", "planted_02", "planted_03", "planted_05", "planted_05b", "planted_05c",
                                  "planted_06", "planted_06b", "planted_08", "planted_09", "honest_06", "planted_01b",
                                  "planted_01c", "planted_01", "planted_01x", "planted_03x", "planted_02x", "planted_04x"])
def test_every_normalised_planted_answer_does_what_the_submitted_one_does(name, torch_one_thread):
    from autograder.dev import planted_run

    assert name in planted_run.COHORTS
    assert planted_run.check(name) == []  # an answer handed in twice is run once


def test_a_cell_that_matches_below_the_threshold_says_it_matched_on_its_evidence():
    """Module 03's chain: chain-c reworked the long MLP it took from chain-b, so their share of it is below the
    threshold, but what they share that no third student wrote weighs more than STRONG on many lines: the cell
    matches, and says so with its figures; a cell short of both rules says what each lacks."""
    from autograder.dev import planted_03

    cohort, report = _compared(planted_03)
    pair = next(p for p in report.pairs if {p.a, p.b} == {"chain-b", "chain-c"})
    cell = next(c for c in pair.cells if c.cell == "MLP")
    assert cell.matches and cell.score < sim.THRESHOLD and cell.counted >= sim.STRONG, cell
    assert any(r.startswith("it matches on its evidence") and f"{cell.counted:g}" in r for r in cell.reasons())
    # the lower score is a share of the threshold asked for: a stricter --threshold moves it too
    strict = sim.compare(cohort.answers, cohort.stubs, planted_03.MODULE, threshold=0.8,
                         code=_course_code(planted_03.MODULE))
    pair = next((p for p in strict.pairs if {p.a, p.b} == {"chain-b", "chain-c"}), None)
    assert pair is None or not any(c.cell == "MLP" and c.matches and not c.together for c in pair.cells)
    short = sim.CellMatch("MLP", 0.3, 10.0, 30, 5, 2, 8, 40, 5, False, 27, False)
    assert "nor is what they share enough to match from a lower score (16 on 4 lines of their own from 0.35" in (
        short.why_not())


def test_cells_that_fall_short_alone_match_together_and_say_so(monkeypatch):
    """copier-sequential took all of honest-02's answers and reworked each: no cell matches alone, but the cells
    that share MIN_EVIDENCE on MIN_LINES lines share more than TOGETHER between them, so the pair is reported and
    each of those cells says it matched together; the same cells short of TOGETHER stay apart.  (No independent
    pair of any planted cohort has two such cells.)"""
    from autograder.dev import planted_03

    cohort, report = _compared(planted_03)
    pair = next(p for p in report.pairs if {p.a, p.b} == {"copier-sequential", "honest-02"})
    together = [c for c in pair.matching if c.together]
    assert len(together) >= 2 and sum(c.counted for c in pair.matching) >= sim.TOGETHER, pair
    assert all(c.counted >= sim.MIN_EVIDENCE and c.lines >= sim.MIN_LINES for c in together)
    assert all(any(r.startswith("it matches together") for r in c.reasons()) for c in together)
    monkeypatch.setattr(sim, "TOGETHER", sum(c.counted for c in pair.matching) + 1)
    monkeypatch.setattr(sim, "CLOSEST_CELLS", 99)  # the pair's answers are each other's closest too (tested below)
    again = sim.compare(cohort.answers, cohort.stubs, planted_03.MODULE, code=_course_code(planted_03.MODULE))
    assert frozenset(("copier-sequential", "honest-02")) not in again.flagged()


def test_a_tally_object_is_fingerprinted_as_the_running_total_it_keeps():
    """A class made up to hold a count, used only through its methods and attributes, reads like the local it
    stands for (module 03's copier-helpers); a class whose instance is handed on, or has a base, stays."""
    tally = ("class _Tally:\n    def __init__(self):\n        self.n = 0\n\n    def add(self, p):\n"
             "        self.n += p.numel()\n\n\ndef count_parameters(model):\n    tally = _Tally()\n"
             "    for p in model.parameters():\n        tally.add(p)\n    return tally.n\n")
    plain = ("def count_parameters(model):\n    total = 0\n    for p in model.parameters():\n"
             "        total += p.numel()\n    return total\n")
    fingerprinted = [normalise.folded(normalise.normalise_tree(src)) for src in (tally, plain)]
    assert fingerprinted[0] == fingerprinted[1], fingerprinted
    handed_on = tally.replace("    return tally.n\n", "    print(tally)\n    return tally.n\n")
    assert any("class" in line for line in normalise.folded(normalise.normalise_tree(handed_on)))
    with_base = tally.replace("class _Tally:", "class _Tally(object):")
    assert any("class" in line for line in normalise.folded(normalise.normalise_tree(with_base)))


def test_honest_students_of_one_lesson_are_not_taken_for_copiers():
    """Module 06's honest cohort (``honest_06``: sixteen students, no copy, four of them following the lesson's
    idioms closely) measures false alarms.  Long ``health_check`` answers written after one lesson share 16 to 20
    rare fingerprints at scores of 0.17 to 0.33: matching on STRONG weight whatever the score flagged five of
    them, so that rule starts at STRONG_SHARE of the threshold (0.35).  The one pair left (two lesson followers whose hooks code agrees
    on 28 lines at 0.6) was flagged before these rules too."""
    from autograder.dev import honest_06

    cohort = honest_06.planted_cohort()
    report = sim.compare(cohort.answers, cohort.stubs, honest_06.MODULE, code=_course_code(honest_06.MODULE))
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies) == (120, 0), m
    assert {tuple(sorted(p)) for p in report.flagged()} == {("honest-01", "honest-04")}


def test_a_class_body_keeps_its_names_and_an_object_with_a_drawing_constructor_stays():
    """What a class body binds is an attribute (``Best.lr``), not a local to number; a class whose constructor
    draws from a generator, or whose method reads the object itself (``getattr(self, part)``), is not unwrapped
    into functions that would draw again or lose the object (module 06's honest cohort showed both)."""
    best = ("def pick_lr(sweep):\n    class Best:\n        lr, loss = None, math.inf\n\n"
            "    for lr, loss in sweep.items():\n        if math.isfinite(loss) and loss < Best.loss:\n"
            "            Best.lr, Best.loss = lr, loss\n    return Best.lr\n")
    split = ("class Split:\n    def __init__(self, n, generator):\n"
             "        order = torch.randperm(n, generator=generator).tolist()\n        self.val, self.train = order[:2], "
             "order[2:]\n\n    def part(self, name):\n        return getattr(self, name)\n\n\n"
             "def halves(n, generator):\n    split = Split(n, generator)\n"
             "    return split.part('train'), split.part('val')\n")
    import math as _math

    import torch

    for source, call in ((best, lambda ns: ns["pick_lr"]({0.1: 0.5, 1.0: _math.inf, 0.01: 0.2})),
                         (split, lambda ns: ns["halves"](6, torch.Generator().manual_seed(3)))):
        results = []
        for text in (source, normalise.normalise(source)):
            namespace = {"math": _math, "torch": torch}
            exec(text, namespace)  # noqa: S102
            results.append(call(namespace))
        assert results[0] == results[1], (source, normalise.normalise(source))


def test_a_comprehension_that_reads_its_own_name_is_built_apart():
    """``params = {k: v for k, v in params.items() if ...}`` reads ``params`` while it builds it: written as a loop
    into ``params`` itself, the loop read the empty dict it had just made (module 03's cohort showed it)."""
    source = ("def count_parameters(model, trainable_only=False):\n    params = dict(model.named_parameters())\n"
              "    if trainable_only:\n        params = {k: v for k, v in params.items() if v.requires_grad}\n"
              "    return sum(v.numel() for v in params.values())\n")
    from torch import nn

    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
    model[0].weight.requires_grad_(False)
    for text in (source, normalise.normalise(source)):
        namespace: dict = {}
        exec(text, namespace)  # noqa: S102
        assert namespace["count_parameters"](model, True) == 4 + 5, text


def test_a_module_imported_inside_a_function_keeps_its_name_when_normalised():
    """A name an ``import`` binds is the module's, in a function as at the top: it is not renamed (renaming its
    uses but not the import made ``v1.environ`` of ``os.environ``, a NameError)."""
    source = ("def seed_everything(seed):\n    import os\n    import random as py_random\n"
              "    from numpy import random as npr\n    os.environ['PYTHONHASHSEED'] = str(seed)\n"
              "    py_random.seed(seed)\n    npr.seed(seed)\n")
    text = normalise.normalise(source)
    tree = ast.parse(text)
    bound = {(a.asname or a.name) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    used = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    assert {"os", "py_random", "npr"} <= bound and {"os", "py_random", "npr"} <= used, text


@pytest.mark.parametrize("source,call", [
    # a parameter passed by keyword, to a constructor and to a function the course calls with keywords
    ("class Scale:\n    def __init__(self, x, eps=1e-5):\n        self.k = x + eps\n\n"
     "def f(xs):\n    return Scale(xs[0], eps=1.0).k\n", "f([3, 1, 2])"),
    ("def f(xs, scheduler=None, max_norm=None):\n    return [x * (max_norm or 1) for x in xs]\n",
     "f([3, 1, 2], max_norm=2)"),
    # a helper that makes a closure, called in a loop: written out, every closure would see the last pass
    ("def f(xs):\n    def make(k):\n        def get():\n            return k * 10\n        return get\n"
     "    out = []\n    for x in xs:\n        out.append(make(x))\n    return [g() for g in out]\n", "f([3, 1, 2])"),
])
def test_what_a_caller_sees_is_the_same_once_normalised(source, call):
    def result(code):
        namespace = {}
        exec(code, namespace)  # noqa: S102 - the test's own code
        return eval(call, namespace)  # noqa: S307

    assert result(normalise.normalise(source, {"f"})) == result(source)


@pytest.mark.parametrize("source", [
    # a method that calls another through self: unwrapped, each would start again from the constructor
    "class Walk:\n    def __init__(self, xs):\n        self.todo = list(xs)\n        self.seen = []\n"
    "    def step(self):\n        self.seen.append(self.todo.pop())\n"
    "    def run(self):\n        while self.todo:\n            self.step()\n        return self.seen\n\n"
    "def f(xs):\n    return Walk(xs).run()\n",
    # an object whose method changes it, called twice: the second call sees what the first did
    "class Count:\n    def __init__(self, start):\n        self.n = start\n"
    "    def bump(self, k):\n        self.n = self.n + k\n        return self.n\n\n"
    "def f(xs):\n    c = Count(xs[0])\n    c.bump(1)\n    return c.bump(2)\n",
])
def test_a_class_whose_methods_share_state_does_what_it_did_once_normalised(source):
    def result(code):
        namespace = {}
        exec(code, namespace)  # noqa: S102 - the test's own code
        return namespace["f"]([3, 1, 2])

    assert result(normalise.normalise(source, {"f"})) == result(source)


def test_the_comparison_of_runs_tells_a_changed_program_apart(torch_one_thread):
    from autograder.dev import planted_run

    source = planted.HONEST["honest-02"]["train_epoch"]
    reference = {"train_step": planted._TUTORIAL_STEP}
    changed = source.replace("total_examples = total_examples + batch_size", "total_examples = batch_size")
    assert planted_run.same(planted_run.run(MODULE, "train_epoch", source, reference),
                            planted_run.run(MODULE, "train_epoch", source, reference))
    assert not planted_run.same(planted_run.run(MODULE, "train_epoch", source, reference),
                                planted_run.run(MODULE, "train_epoch", changed, reference))


@pytest.mark.parametrize("rule,before,after", normalise.SPELLINGS, ids=[b for _, b, _ in normalise.SPELLINGS])
def test_each_spelling_in_the_table_is_the_same_call(rule, before, after, torch_one_thread):
    torch = torch_one_thread
    F = torch.nn.functional
    torch.manual_seed(0)
    names = {"torch": torch, "F": F, "a": torch.randn(4, 3), "b": torch.randn(4, 3), "m": torch.randn(3, 3)}
    assert ast.unparse(normalise.respell(ast.parse(before, mode="eval"))) == after, rule
    if "m.train" in before:
        for text in (before, after):
            module = torch.nn.Dropout()
            module.train() if "False" in before else module.eval()
            eval(text, {**names, "m": module})  # noqa: S307 - the table's own examples
            assert module.training == ("False" not in before)
        return
    got, want = eval(before, names), eval(after, names)  # noqa: S307 - the table's own examples
    if isinstance(got, torch.Tensor):
        assert got.dtype == want.dtype and torch.equal(got, want), rule
    else:
        assert got == want and type(got) is type(want), rule


@pytest.mark.parametrize("rule,before,after", normalise.NEAR, ids=[b for _, b, _ in normalise.NEAR])
def test_each_near_spelling_gives_the_same_and_fingerprints_alike(rule, before, after, torch_one_thread):
    torch = torch_one_thread
    torch.manual_seed(0)
    names = {"torch": torch, "math": math, "a": torch.randn(4, 3), "m": torch.nn.Linear(3, 2), "d": {"p": 1, "q": 3}}
    for x in (1.5, math.inf, math.nan, False, True):
        got, want = eval(before, {**names, "x": x}), eval(after, {**names, "x": x})  # noqa: S307 - the table's own
        if hasattr(got, "__enter__"):  # a grad mode: what a computation inside it gives
            w = torch.ones(3, requires_grad=True)
            with got:
                got = w * 2
            with want:
                want = w * 2
            assert torch.equal(got, want) and got.requires_grad == want.requires_grad is False, rule
        elif isinstance(got, torch.Tensor) and got.dtype.is_floating_point:
            assert torch.allclose(got, want), rule
        elif isinstance(got, torch.Tensor) and got.dtype != torch.bool:
            assert torch.equal(got, want), rule
        elif isinstance(got, torch.nn.Parameter) or isinstance(want, torch.nn.Parameter):
            assert got is want, rule
        else:
            assert bool(got) == bool(want) if isinstance(got, (bool, torch.Tensor)) else got == want, rule
    assert _text(f"r = {before}\n") == _text(f"r = {after}\n"), rule


def test_a_set_add_is_never_a_sum():
    text = normalise.normalise("def f():\n    found = set()\n    found.add('x')\n    return found\n")
    assert ".add('x')" in text and "+ 'x'" not in text


# Each semantics-changing bug the normaliser had, and what a copier does that it must see through.
_NESTED = """\
def f(model, x):
    twin = copy.deepcopy(model)
    def probe(a):
        out = twin(a)
        return out.sum()
    total = probe(x) + probe(x * 2)
    return twin, total, probe
"""

_GUARDED = """\
def f(model, loader, device):
    losses = []
    for x, y in loader:
        if x.device != device:
            continue
        out = model(x)
        losses.append(out)
    if not losses:
        return None
    first = losses[0]
    return first
"""


def test_a_nested_function_keeps_its_own_names_and_reads_the_outer_ones():
    tree = normalise.normalise_tree(_NESTED)
    fn = tree.body[0]
    outer = {a.arg for a in fn.args.args}
    inner = next(n for n in ast.walk(fn) if isinstance(n, ast.FunctionDef) and n is not fn)
    twin = fn.body[0].targets[0].id
    assert {a.arg for a in inner.args.args}.isdisjoint(outer | {twin})
    assert twin in {n.id for n in ast.walk(inner) if isinstance(n, ast.Name)}  # the outer twin, read inside
    assert ast.unparse(fn.body[0]) == f"{twin} = copy.deepcopy({fn.args.args[0].arg})"


def test_no_statement_moves_across_a_return_or_a_continue():
    tree = normalise.normalise_tree(_GUARDED)
    check = next(n for n in ast.walk(tree) if isinstance(n, ast.If) and "device" in ast.unparse(n.test))
    branch = check.body if "==" in ast.unparse(check.test) else check.orelse  # the branch that does not continue
    assert not any(isinstance(n, ast.Continue) for s in branch for n in ast.walk(s))
    assert any(".append(" in ast.unparse(s) for s in branch)  # the forward pass runs only past the device check
    assert not any(".append(" in ast.unparse(s) for s in tree.body[0].body if s is not check and not isinstance(s, ast.For))
    # the empty check and the two returns are one return: None when nothing was collected
    last = tree.body[0].body[-1]
    assert isinstance(last, ast.Return) and isinstance(last.value, ast.IfExp)
    assert ast.unparse(last.value.orelse if "not" not in ast.unparse(last.value.test) else last.value.body) == "None"


def test_fingerprints_do_not_depend_on_the_order_names_first_appear_or_on_dead_code():
    base = planted.HONEST["honest-02"]["train_epoch"]
    keep = {"train_epoch"}
    dead = base.replace("    model.train()\n", "    verbose = False\n    model.train()\n    seen_batches = 0\n").replace(
        "        batch_size = batch_inputs.size(0)\n",
        "        batch_size = batch_inputs.size(0)\n        seen_batches += 1\n        if verbose:\n"
        "            print(batch_size)\n")
    assert dead != base and _text(dead, keep) == _text(base, keep)


@pytest.mark.parametrize("a,b", [
    ("def f(xs):\n    t = 0\n    for i in range(len(xs)):\n        t += xs[i]\n    return t\n",
     "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"),
    ("def f(n, g):\n    i = 0\n    while i < n:\n        g(i)\n        i += 1\n",
     "def f(n, g):\n    for j in range(n):\n        g(j)\n"),
    ("def f(x):\n    if x is None:\n        return 0\n    y = x + 1\n    return y * 2\n",
     "def f(x):\n    if x is not None:\n        return (x + 1) * 2\n    else:\n        return 0\n"),
    ("def f(a, b):\n    return torch.mean(torch.matmul(a, b))\n", "def f(a, b):\n    return (a @ b).mean()\n"),
    ("def f(m, x, y, l):\n    out = m(x)\n    loss = l(out, y)\n    return loss.item()\n",
     "def f(m, x, y, l):\n    return l(m(x), y).item()\n"),
    ("def f(m, x):\n    g = lambda t: torch.sigmoid(t)\n    return g(m(x))\n", "def f(m, x):\n    return m(x).sigmoid()\n"),
    ("def f(m, was):\n    m.eval()\n    if was:\n        m.train()\n    else:\n        m.eval()\n",
     "def f(m, was):\n    m.eval()\n    m.train(was)\n"),
    ("def f(m, was):\n    m.eval()\n    if not was:\n        m.eval()\n    else:\n        m.train()\n",
     "def f(m, was):\n    m.eval()\n    m.train(was)\n"),
    ("def f(xs):\n    t = 0.0\n    for x in xs:\n        t += x\n    return t\n", "def f(xs):\n    return sum(x for x in xs)\n"),
    ("def f(a, b):\n    if not a or not b:\n        return 1\n    return 2\n",
     "def f(a, b):\n    if a and b:\n        return 2\n    else:\n        return 1\n"),
    ("def f(m):\n    if not m.training:\n        r = m.eval\n    else:\n        r = m.train\n    return r\n",
     "def f(m):\n    r = m.train if m.training else m.eval\n    return r\n"),
    ("def f(e, a):\n    print('epoch {}: {:.3f}'.format(e, a))\n", "def f(e, a):\n    print(f'epoch {e}: {a:.3f}')\n"),
    ("def g(m, x, d):\n    return m(x.to(d))\n\ndef f(m, x, d):\n    return g(m, d=d, x=x)\n",
     "def g(m, x, d):\n    return m(x.to(d))\n\ndef f(m, x, d):\n    return g(m, x, d)\n"),
    ("def f(m, loader):\n    for i, batch in enumerate(loader):\n        x, y = batch\n        m(x, y)\n",
     "def f(m, loader):\n    for x, y in loader:\n        m(x, y)\n"),
    ("def f(m, a, b, d):\n    def move(t):\n        return t.to(device=d)\n    return m(move(a), move(b))\n",
     "def f(m, a, b, d):\n    return m(a.to(d), b.to(d))\n"),
    ("def f(t):\n    return torch.argmax(t, dim=1), dict(b=1, a=2)\n", "def f(t):\n    return t.argmax(1), {'a': 2, 'b': 1}\n"),
    # type hints and docstrings
    ("def f(xs: list, k: int = 2) -> float:\n    '''Scaled.'''\n    t: float = 0.0\n    for x in xs:\n        t += x * k\n    return t\n",
     "def f(xs, k=2):\n    t = 0.0\n    for x in xs:\n        t += x * k\n    return t\n"),
    # constants named at the top of the cell; a result stored and broken out of, then returned
    ("LABEL = 'bad'\nLIMIT = math.inf\n\ndef f(s, v):\n    if v == LIMIT:\n        s.add(LABEL)\n    return s\n",
     "def f(s, v):\n    if v == math.inf:\n        s.add('bad')\n    return s\n"),
    ("def f(d):\n    found = None\n    for k, v in sorted(d.items()):\n        if v > 0:\n            found = k\n            break\n    return found\n",
     "def f(d):\n    for k, v in sorted(d.items()):\n        if v > 0:\n            return k\n    return None\n"),
    # operands and comparisons one way; containers filled one way
    ("def f(a, b, s):\n    if None is not a and 0 < b and 0.1 * a > b:\n        s |= {'x'}\n    return s\n",
     "def f(a, b, s):\n    if a is not None and b > 0 and b < a * 0.1:\n        s.add('x')\n    return s\n"),
    ("def f(xs):\n    d = dict()\n    for x in xs:\n        d.update({x: 1})\n    return d\n",
     "def f(xs):\n    d = {}\n    for x in xs:\n        d[x] = 1\n    return d\n"),
    ("def f(xs):\n    out = list()\n    for x in xs:\n        out += [x]\n    return out\n",
     "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n"),
    # a branch on a negated test turned round by De Morgan; an item bound on both branches
    ("def f(a, b, m, s):\n    if a != b or not m.training:\n        return s | {'x'}\n    s.add('y')\n    return s\n",
     "def f(a, b, m, s):\n    if a == b and m.training:\n        s.add('y')\n        return s\n    else:\n        return s | {'x'}\n"),
    ("def f(d, k, v):\n    if math.isfinite(v):\n        d[k] = v\n    else:\n        d[k] = math.inf\n    return d\n",
     "def f(d, k, v):\n    d[k] = v if math.isfinite(v) else math.inf\n    return d\n"),
    # a callable class; a result returned through a temporary
    ("class Run:\n    def __init__(self, k):\n        self.k = k\n\n    def __call__(self, xs):\n        return [x * self.k for x in xs]\n\n"
     "def f(xs, k):\n    return Run(k)(xs)\n", "def f(xs, k):\n    return [x * k for x in xs]\n"),
    ("def f(d, n):\n    a = DataLoader(d, n)\n    b = DataLoader(d, 1)\n    return a, b\n",
     "def f(d, n):\n    return DataLoader(d, n), DataLoader(d, 1)\n"),
    # map and list(...) of a generator; any/all and the loops that return early; one exit or several
    ("def f(g, xs):\n    return list(map(g, xs)), set(map(lambda t: t * 2, xs))\n",
     "def f(g, xs):\n    return [g(x) for x in xs], {x * 2 for x in xs}\n"),
    ("def f(xs):\n    for x in xs:\n        if x > 0:\n            return True\n    return False\n",
     "def f(xs):\n    return any(x > 0 for x in xs)\n"),
    ("def f(xs):\n    return not any(x > 0 for x in xs)\n", "def f(xs):\n    return all(x <= 0 for x in xs)\n"),
    ("def f(a, b):\n    if a:\n        r = 'x'\n    elif b:\n        r = 'y'\n    else:\n        r = 'z'\n    return r\n",
     "def f(a, b):\n    if a:\n        return 'x'\n    if b:\n        return 'y'\n    return 'z'\n"),
    ("def f(xs, g):\n    for x in xs:\n        if x is None:\n            continue\n        g(x)\n",
     "def f(xs, g):\n    for x in xs:\n        if x is not None:\n            g(x)\n"),
    ("def f(xs):\n    out = []\n    for x in xs:\n        out = out + [x]\n    return out\n",
     "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n"),
    # while True with a counter and a break; counters from 1 to n inclusive
    ("def f(n, g):\n    i = 1\n    while True:\n        if i > n:\n            break\n        g(i)\n        i += 1\n",
     "def f(n, g):\n    for i in range(1, n + 1):\n        g(i)\n"),
    ("def f(xs):\n    t = 0\n    for i in range(len(xs)):\n        t += i * xs[i]\n    return t\n",
     "def f(xs):\n    t = 0\n    for i, x in enumerate(xs):\n        t += i * x\n    return t\n"),
    ("def f(d):\n    best = None\n    for k in d:\n        if best is None or d[k] < d[best]:\n            best = k\n    return best\n",
     "def f(d):\n    best = None\n    for k, v in d.items():\n        if best is None or v < d[best]:\n            best = k\n    return best\n"),
    ("def f(d):\n    t = 0\n    for k in d:\n        t += d[k]\n    return t\n",
     "def f(d):\n    t = 0\n    for v in d.values():\n        t += v\n    return t\n"),
    ("def f(n, g):\n    i = 0\n    while n > i:\n        g(i)\n        i += 1\n", "def f(n, g):\n    for j in range(n):\n        g(j)\n"),
    # a file opened by hand, loops and comprehensions over a tuple written out, a dict filled at once
    ("def f(x, p):\n    with open(p, 'wb') as fh:\n        torch.save(x, fh)\n", "def f(x, p):\n    torch.save(x, p)\n"),
    ("def f(m, o, c):\n    for t, k in zip((m, o), ('m', 'o')):\n        t.load_state_dict(c[k])\n",
     "def f(m, o, c):\n    m.load_state_dict(c['m'])\n    o.load_state_dict(c['o'])\n"),
    ("def f(s):\n    for g in (random.seed, torch.manual_seed):\n        g(s)\n",
     "def f(s):\n    random.seed(s)\n    torch.manual_seed(s)\n"),
    ("def f(n):\n    return tuple(n[k].abs() if k == 'a' else n[k] for k in ('a', 'b'))\n",
     "def f(n):\n    return (n['a'].abs(), n['b'])\n"),
    ("def f(m, e):\n    d = {}\n    d['model'] = m.state_dict()\n    d['epoch'] = e\n    return d\n",
     "def f(m, e):\n    return {'epoch': e, 'model': m.state_dict()}\n"),
    ("def f(m, e, d):\n    d.update(epoch=e, model=m)\n", "def f(m, e, d):\n    d['epoch'] = e\n    d['model'] = m\n"),
    ("def f(m, e):\n    s = m.state_dict()\n    c = {'model': s, 'epoch': e}\n    torch.save(c, 'p')\n",
     "def f(m, e):\n    torch.save({'epoch': e, 'model': m.state_dict()}, 'p')\n"),
    # an option the exercise never passes, what an error says, branches that were a temporary and a store
    ("def f(x, *, check=True):\n    if check and x.numel() != 1:\n        raise ValueError(f'got {x.shape}')\n"
     "    return x.item()\n",
     "def f(x):\n    if x.numel() != 1:\n        raise ValueError('x must be a scalar')\n    return x.item()\n"),
    ("def f(x):\n    assert x.dim() == 2, 'x is a batch'\n    return x.sum()\n", "def f(x):\n    assert x.dim() == 2\n    return x.sum()\n"),
    # a result made in a with block and returned after it; tests of a container's length; not (a or b); extend
    ("def f(g, x):\n    with torch.enable_grad():\n        gs = torch.autograd.grad(g(x), x)\n    r = gs[0]\n    return r\n",
     "def f(g, x):\n    with torch.enable_grad():\n        return torch.autograd.grad(g(x), x)[0]\n"),
    ("def f(q, g):\n    while len(q) > 0:\n        g(q.pop())\n", "def f(q, g):\n    while q:\n        g(q.pop())\n"),
    ("def f(q, s):\n    x = q.pop()\n    if not (x is None or x in s):\n        s.add(x)\n",
     "def f(q, s):\n    x = q.pop()\n    if x is not None and x not in s:\n        s.add(x)\n"),
    ("def f(q, n):\n    q.extend(p[0] for p in n.next_functions)\n",
     "def f(q, n):\n    for p in n.next_functions:\n        q.append(p[0])\n"),
    ("def f(ps, out):\n    for k, p in ps.items():\n        if p.grad is None:\n            out[k] = 'none'\n        else:\n"
     "            n = (p.grad != 0).sum().item()\n            if n > 0:\n                out[k] = 'nonzero'\n            else:\n"
     "                out[k] = 'zero'\n    return out\n",
     "def f(ps, out):\n    for k, p in ps.items():\n        out[k] = 'none' if p.grad is None else ('nonzero' if (p.grad != 0)"
     ".sum().item() > 0 else 'zero')\n    return out\n"),
    # a function of one statement handed on once (a hook) is the lambda it could have been
    ("def f(m, log):\n    def on_forward(mod, args):\n        log.append(mod.training)\n"
     "    return m.register_forward_pre_hook(on_forward)\n",
     "def f(m, log):\n    return m.register_forward_pre_hook(lambda mod, args: log.append(mod.training))\n"),
    ("def f(ps, rec):\n    def hook_for(n):\n        def hook(g):\n            rec[n].append(g is None)\n        return hook\n"
     "    return [p.register_hook(hook_for(n)) for n, p in ps]\n",
     "def f(ps, rec):\n    def hook_for(n):\n        return lambda g: rec[n].append(g is None)\n"
     "    return [p.register_hook(hook_for(n)) for n, p in ps]\n"),
    # a list filled at once, by +=, by extend or by a comprehension is the appends that fill it
    ("def f(self, m, ps):\n    self.hooks = [m.register(1)]\n    self.hooks += [p.register(2) for p in ps]\n"
     "    self.hooks.extend([m.a(3), m.b(4)])\n",
     "def f(self, m, ps):\n    self.hooks = []\n    self.hooks.append(m.register(1))\n    for p in ps:\n"
     "        self.hooks.append(p.register(2))\n    self.hooks.append(m.a(3))\n    self.hooks.append(m.b(4))\n"),
    # attributes set by one tuple are set one by one; helpers with a comprehension, or whose branches are one
    # return, are written out where they are called, as lambdas are
    ("def f(self, m, o):\n    self.model, self.opt, self.steps = m, o, []\n",
     "def f(self, m, o):\n    self.model = m\n    self.opt = o\n    self.steps = []\n"),
    ("def f(keep, g):\n    def new():\n        return {'grads': {n: [] for n in keep}}\n\n    def state(t):\n"
     "        if t is None:\n            return 'none'\n        return 'nonzero' if t.any() else 'zero'\n"
     "    r = new()\n    return r, state(g.grad), new()\n",
     "def f(keep, g):\n    new = lambda: {'grads': {n: [] for n in keep}}\n"
     "    state = lambda t: 'none' if t is None else ('nonzero' if t.any() else 'zero')\n"
     "    r = new()\n    return r, state(g.grad), new()\n"),
    # 0 - x is -x
    ("def f(z, y):\n    return (0 - z) * y\n", "def f(z, y):\n    return -z * y\n"),
    # an object that keeps state between its methods' calls, the calls nested in one expression, is its locals
    ("class Net:\n    def __init__(self, w):\n        self.w = w\n\n    def forward(self, x):\n        self.x = x\n"
     "        return x @ self.w\n\n    def backward(self, err):\n        n = len(err)\n        return self.x.T @ err / n\n\n\n"
     "def f(w, x, y):\n    net = Net(w)\n    return net.backward(net.forward(x) - y)\n",
     "def f(w, x, y):\n    err = x @ w - y\n    n = len(err)\n    return x.T @ err / n\n"),
    # a sum's terms in any order, a difference as a negated term, a constant term last
    ("def f(x, w, b, y):\n    return (b + x @ w.T).sigmoid() - y\n", "def f(x, w, b, y):\n    return -y + (x @ w.T + b).sigmoid()\n"),
    ("def f(s, i):\n    return s[1 + i] - (2 - s[i])\n", "def f(s, i):\n    return s[i + 1] + s[i] - 2\n"),
    ("def f(t, a, b):\n    t += b + a\n    return t\n", "def f(t, a, b):\n    t = a + t + b\n    return t\n"),
    # a product written out, by reduce or by math.prod; a message built in a temporary is prose as one written inline
    ("def f(t):\n    n = 1\n    k = 0\n    for s in t.shape:\n        n *= s\n    return n + k\n",
     "def f(t):\n    k = 0\n    return functools.reduce(operator.mul, t.shape, 1) + k\n"),
    ("def f(t):\n    return functools.reduce(lambda a, b: a * b, t.shape)\n", "def f(t):\n    return math.prod(t.shape)\n"),
    ("def f(t):\n    if t.dim() != 2:\n        message = 'got ' + str(t.shape)\n        raise ValueError(message)\n"
     "    return t\n", "def f(t):\n    if t.dim() != 2:\n        raise ValueError(f'expected a matrix, not {t.shape}')\n"
     "    return t\n"),
    # an attribute named once and read where nothing between can change it
    ("def f(ps, m, lr):\n    out = []\n    for p in ps:\n        g = p.grad\n        if g is None:\n            continue\n"
     "        b = g.sign() * g + m\n        p.add_(-lr * b)\n        out.append(b)\n    return out\n",
     "def f(ps, m, lr):\n    out = []\n    for p in ps:\n        if p.grad is None:\n            continue\n"
     "        b = p.grad.sign() * p.grad + m\n        p.add_(-lr * b)\n        out.append(b)\n    return out\n"),
    # a choice between two tensors or two branches on its test's strict side
    ("def f(z):\n    return torch.where(z < 0, torch.zeros_like(z), z)\n",
     "def f(z):\n    return torch.where(z >= 0, z, torch.zeros_like(z))\n"),
    ("def f(z, m):\n    return torch.where(~m, z, -z) + torch.where(z != 1, z, 0 * z)\n",
     "def f(z, m):\n    return torch.where(m, -z, z) + torch.where(z == 1, 0 * z, z)\n"),
    ("def f(x, g):\n    if x <= 0:\n        g(0)\n    else:\n        g(x)\n",
     "def f(x, g):\n    if 0 < x:\n        g(x)\n    else:\n        g(0)\n"),
    # adding a negation is subtracting; the keyword arguments of torch.autograd.grad are its positional ones
    ("def f(p, i, eps, a, b):\n    p.view(-1)[i] += -eps\n    return a + -b\n",
     "def f(p, i, eps, a, b):\n    p.view(-1)[i] -= eps\n    return a - b\n"),
    ("def f(g, x):\n    return torch.autograd.grad(inputs=(x,), outputs=g(x))[0]\n",
     "def f(g, x):\n    return torch.autograd.grad(g(x), (x,))[0]\n"),
    # a dict updated from a literal is its items set one by one; an f-string inside an f-string is its parts; one
    # augmented assignment on both branches is one, of a conditional value
    ("def f(sizes):\n    plan, at = {}, 0\n    for i in range(len(sizes) - 1):\n"
     "        plan.update({f\"{f'body.{at}'}.weight\": (sizes[i + 1], sizes[i]), f'body.{at}.bias': (sizes[i + 1],)})\n"
     "        at += 1 if i == len(sizes) - 2 else 2\n    return plan\n",
     "def f(sizes):\n    plan, at = {}, 0\n    for i in range(len(sizes) - 1):\n"
     "        plan[f'body.{at}.weight'] = (sizes[i + 1], sizes[i])\n        plan[f'body.{at}.bias'] = (sizes[i + 1],)\n"
     "        if i == len(sizes) - 2:\n            at += 1\n        else:\n            at += 2\n    return plan\n"),
    # a counter's while loop whose bound the body may change reads as the for loop a student means by it
    ("def f(flat, g):\n    i = 0\n    while i < flat.numel():\n        flat[i] = g(flat)\n        i += 1\n    return flat\n",
     "def f(flat, g):\n    for i in range(flat.numel()):\n        flat[i] = g(flat)\n    return flat\n"),
    # a flag loop is the any() it stands for; a test negated twice is the test
    ("def f(ps, opt):\n    out = []\n    for p in ps:\n        if not not p.requires_grad:\n"
     "            if not any(any(p is q for q in g['params']) for g in opt.param_groups):\n                out.append(p)\n"
     "    return out\n",
     "def f(ps, opt):\n    out = []\n    for p in ps:\n        if p.requires_grad:\n            held = False\n"
     "            for g in opt.param_groups:\n                if any(p is q for q in g['params']):\n"
     "                    held = True\n                    break\n            if not held:\n                out.append(p)\n"
     "    return out\n"),
    # a holder object's method whose branches store into it is one conditional store, as when written in place
    ("class R:\n    def __init__(self):\n        self.d = {}\n\n    def note(self, k, g):\n        if g is None:\n"
     "            self.d[k] = 'none'\n        else:\n            self.d[k] = 'some'\n\n\n"
     "def f(ps):\n    r = R()\n    for k, p in ps:\n        r.note(k, p.grad)\n    return r.d\n",
     "def f(ps):\n    d = {}\n    for k, p in ps:\n        if p.grad is None:\n            d[k] = 'none'\n        else:\n"
     "            d[k] = 'some'\n    return d\n"),
])
def test_equivalent_forms_fingerprint_alike(a, b):
    assert _text(a) == _text(b)


_OUT = '''\
def f(a, b):
    out = torch.empty(a.shape[0], b.shape[0], dtype=a.dtype)
    torch.sum((a[:, None, :] - b[None, :, :]) ** 2, dim=2, out=out)
    return out


def g(a):
    z = torch.empty(a.shape)
    unused = torch.exp(a, out=z)
    return z
'''


def test_a_call_that_writes_its_out_argument_is_kept_as_it_acts(torch_one_thread):
    """``torch.sum(t, out=u)`` writes ``u``: it stays a function call (no method takes ``out=``; written as one it
    raised TypeError) and is never dropped as a value nobody reads (the result was an uninitialised tensor).
    Found by module 01's second cohort, in an answer that preallocates."""
    torch = torch_one_thread
    normal = normalise.normalise(_OUT, {"f", "g"})
    written, normalised = {"torch": torch}, {"torch": torch}
    exec(_OUT, written)  # noqa: S102 - the test's own code
    exec(normal, normalised)  # noqa: S102
    a, b = torch.randn(4, 2), torch.randn(3, 2)
    assert torch.equal(written["f"](a, b), normalised["f"](a, b)), normal
    assert torch.equal(written["g"](a), normalised["g"](a)), normal


def test_a_choice_turned_to_its_strict_side_gives_the_same(torch_one_thread):
    """``torch.where`` on the negated test with its values swapped gives the same tensor (NaN aside, where a
    comparison and its negation are both false); a conditional expression is not turned (see :class:`_Near`)."""
    import torch

    z, m = torch.tensor([-2.0, -0.0, 0.0, 1.0, 3.0]), torch.tensor([True, False, True, False, False])
    assert torch.equal(torch.where(z <= 0, m.double(), z.double()), torch.where(0 < z, z.double(), m.double()))
    assert torch.equal(torch.where(~m, z, -z), torch.where(m, -z, z))
    assert _text("def f(x):\n    return 0 if x <= 0 else x\n") != _text("def f(x):\n    return x if 0 < x else 0\n")


def test_an_option_after_the_stubs_parameters_is_its_default_and_numbers_multiply_out():
    """A parameter with a constant default after those the exercise's stub declares is never passed by the
    exercise's callers: it is its default where it is read (``shift=1.5``), and a product's numbers are one number;
    a parameter the stub declares, or one the function stores, keeps its name."""
    def text(source):
        tree = normalise.normalise_tree(source, {"f"}, {"f": ["x", "device"]})
        return normalise.folded(tree, keep=frozenset({"f"}))

    plain = text("def f(x, device='cpu'):\n    return (x * 3 - 1.5).to(device)\n")
    assert text("def f(x, device='cpu', shift=1.5):\n    return (2 * shift * x - shift).to(device)\n") == plain
    stored = text("def f(x, device='cpu', shift=1.5):\n    shift = shift + 1\n    return (x * 3 - shift).to(device)\n")
    assert stored[0] == "def f(v, v='cpu', v=1.5):", stored
    assert text("def f(x, device='cpu'):\n    return (x * 3 - 1.5).to('cpu')\n") != plain


def test_lines_of_their_own_are_submitted_lines(cohort_01c):
    """A temporary folded into the line that reads it keeps its own submitted line: the fingerprinted line holds
    both, and a match counts both."""
    spans = []
    lines = normalise.fingerprint_lines(normalise.normalise_tree(
        "def f(x, w):\n    h = x @ w\n    z = h.tanh()\n    return z.sum()\n", {"f"}), keep=frozenset({"f"}), spans=spans)
    assert [text for text, _ in lines][-1] == "return (v @ v).tanh().sum()" and spans[-1] == {2, 3, 4}
    _, report = cohort_01c
    answer = report.answers["honest-01", "manual_gradients"]
    assert len(answer.own_spans_of(answer.own)) > len(answer.own_lines_of(answer.own))


def test_a_sums_order_is_the_fingerprints_only():
    """Terms are put in one order in the fingerprinted text; the normalised program adds in the order written
    (``"a" + s`` is not ``s + "a"``), and a product keeps its factors' order even in the fingerprinted text."""
    source = "def f(s, t):\n    return 'a' + s - t\n"
    assert "'a' + " in normalise.normalise(source)
    assert _text(source) == _text("def f(s, t):\n    return -t + s + 'a'\n")
    assert _text("def f(h, g):\n    return (1 - h) * g\n") != _text("def f(h, g):\n    return g * (1 - h)\n")


def test_a_helpers_name_is_its_writers_but_the_asked_for_function_keeps_its_own():
    helper = "def {h}(t):\n    return t.detach().double()\n\ndef {f}(x):\n    return {h}(x) + {h}(x * 2)\n"
    assert _text(helper.format(h="prep", f="f"), {"f"}) == _text(helper.format(h="_Probe__call", f="f"), {"f"})
    assert _text(helper.format(h="prep", f="f"), {"f"}) != _text(helper.format(h="prep", f="g"), {"g"})


@pytest.mark.parametrize("a,b", [
    # a temporary read inside a loop is made once, not at every pass: kept apart from the one made in the loop
    ("def f(m, xs):\n    l = nn.MSELoss()\n    for x in xs:\n        l(m(x), x).backward()\n",
     "def f(m, xs):\n    for x in xs:\n        nn.MSELoss()(m(x), x).backward()\n"),
    # an attribute named before a call on its object may change it is not read after the call
    ("def f(m, x):\n    was = m.training\n    m.eval()\n    y = m(x) + 1\n    m.train(was)\n    return y, was\n",
     "def f(m, x):\n    m.eval()\n    y = m(x) + 1\n    m.train(m.training)\n    return y, m.training\n"),
    # a loop whose name is read after it, or that breaks, is not unrolled
    ("def f(a, b):\n    for g in (a, b):\n        g()\n    return g\n", "def f(a, b):\n    a()\n    b()\n    return b\n"),
    ("def f(a, b):\n    for g in (a, b):\n        if g():\n            break\n", "def f(a, b):\n    if a():\n        pass\n    b()\n"),
])
def test_forms_that_differ_are_not_folded_together(a, b):
    assert _text(a) != _text(b)


@pytest.mark.parametrize("noisy,plain", [
    ("def f(m, x, y, l):\n    assert x.dim() == 2\n    out = m(x)\n    print('forward done', x.shape)\n    loss = l(out, y)\n"
     "    logging.info('loss for %d examples', len(y))\n    return loss.item()\n", "def f(m, x, y, l):\n    return l(m(x), y).item()\n"),
    ("def f(m, x, n):\n    if n < 1:\n        raise ValueError(n)\n    try:\n        out = m(x) * n\n        out.sum().backward()\n"
     "    except RuntimeError as e:\n        raise ValueError('bad') from e\n    return out.detach()\n",
     "def f(m, x, n):\n    out = m(x) * n\n    out.sum().backward()\n    return out.detach()\n"),
    ("def f(m, x):\n    was = m.training\n    m.eval()\n    try:\n        y = m(x) * 2\n        return y\n    finally:\n        m.train(was)\n",
     "def f(m, x):\n    was = m.training\n    m.eval()\n    y = m(x) * 2\n    return y\n    m.train(was)\n"),
])
def test_asserts_prints_checks_and_rethrowing_trys_stand_after_the_code_they_interrupt(noisy, plain):
    """Asserts, prints, logging and argument checks go after the code, so that the code's lines run on as
    they would without them; a try whose handlers only raise again is its body, then its finally."""
    code = _text(plain)
    assert _text(noisy)[:len(code)] == code and len(_text(noisy)) >= len(code)
    assert not any(line.startswith(("try", "except", "finally")) for line in _text(noisy))


# ---- the cohorts nobody planted the normaliser for

@functools.cache
def _compared(cohort_module):
    """A planted cohort module's cohort and its report."""
    cohort = cohort_module.planted_cohort()
    return cohort, sim.compare(cohort.answers, cohort.stubs, cohort_module.MODULE,
                               code=_course_code(cohort_module.MODULE))


def _reference_answers(module_id):
    """``{cell: the reference's answer}`` of a module's solution notebook."""
    solution = nbtools.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb")
    return {cell: nbtools.strip_solution_markers(c.source) for cell, c in nbtools.answer_cells(solution).items()}


def _course_code(module_id):
    """The course's code of a module, read once for every cohort of that module."""
    return planted.course_code_of(module_id)


@pytest.fixture(scope="module")
def held_out():
    from autograder.dev import planted_06

    cohort = planted_06.planted_cohort()
    return cohort, sim.compare(cohort.answers, cohort.stubs, planted_06.MODULE,
                               code=_course_code(planted_06.MODULE))


def test_the_module_06_cohort_keeps_its_floor_and_never_flags_the_courses_answer(held_out):
    cohort, report = held_out
    m = planted.measure(cohort, report)
    assert m.false_pairs == 0 and m.independent_pairs == 197
    assert cohort.canonical not in report.flagged()
    assert m.disguised_found >= 18 and m.copies_found >= 12, m  # the figures when it was last measured


def test_the_second_module_06_cohort_finds_every_disguise_it_was_written_for():
    """Type hints, logging, try/except and asserts, one exit, explicit loops for any/all, swapped operands,
    other spellings, constants at the top of the cell, containers, ranges and tuple assignments."""
    from autograder.dev import planted_06b

    cohort = planted_06b.planted_cohort()
    report = sim.compare(cohort.answers, cohort.stubs, planted_06b.MODULE,
                         code=_course_code(planted_06b.MODULE))
    m = planted.measure(cohort, report)
    assert m.false_pairs == 0 and m.independent_pairs == 220 and cohort.canonical not in report.flagged()
    assert (m.disguised, m.copies) == (27, 11) and (m.disguised_found, m.copies_found) >= (27, 11), m


def test_the_cohort_kept_out_of_tuning_keeps_its_floor():
    """Module 05's third cohort was written before the normaliser changed for it and never tuned on: its
    figures are a floor, and its one false pair (two honest students who wrote one algorithm, alike once
    normalised) stays within 1 %."""
    from autograder.dev import planted_05c

    cohort = planted_05c.planted_cohort()
    report = sim.compare(cohort.answers, cohort.stubs, planted_05c.MODULE,
                         code=_course_code(planted_05c.MODULE))
    m = planted.measure(cohort, report)
    assert m.independent_pairs == 180 and m.false_pairs <= 0.01 * m.independent_pairs
    assert cohort.canonical not in report.flagged()
    assert (m.disguised, m.copies) == (16, 10) and m.disguised_found >= 12 and m.copies_found >= 7, m  # 11 until
    # a cell where one answer is the other's closest matched as support


@pytest.fixture(scope="module")
def held_out_08():
    from autograder.dev import planted_08

    cohort = planted_08.planted_cohort()
    return cohort, sim.compare(cohort.answers, cohort.stubs, planted_08.MODULE,
                               code=_course_code(planted_08.MODULE))


def test_the_module_08_cohort_keeps_its_floor_and_never_flags_the_courses_answer(held_out_08):
    cohort, report = held_out_08
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised) == (364, 14, 47), m
    assert m.false_pairs <= 0.01 * m.independent_pairs
    assert cohort.canonical not in report.flagged()
    # first measured at 31 cells and 11 pairs; 32 and 11 after the tuning on the other cohorts and the fix of
    # imports inside a function (which this cohort's normalised answers showed); then tuned on: 37 and 13
    # then 39 and 13, since a cell matches on STRONG weight over four lines from 0.35; 40 since cells
    # match together on TOGETHER; 41 since a cell where one answer is the other's closest matches as support
    assert m.disguised_found >= 41 and m.copies_found >= 13, m


def test_the_module_02_cohort_keeps_its_floor_and_never_flags_the_courses_answer(torch_one_thread):
    """Module 02's cohort was written apart from the normaliser and measured once before and once after the
    changes it did not see (18 of 56 cells and 9 of 14 pairs both times: its answers are short, and many of
    their lines are the course's), then tuned on; its truth is that every copy does what its source does."""
    from autograder.dev import planted_02, planted_run

    cohort, report = _compared(planted_02)
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised) == (364, 14, 56), m
    assert m.false_pairs <= 0.01 * m.independent_pairs and cohort.canonical not in report.flagged()
    # 18 and 9 held out; 28 and 13 tuned on, then 31 and 14 (STRONG from 0.35), 37 (cells together), 39 (support
    # on a score, one-statement answers read as support), 40 (submitted lines), 43 (support from SUPPORT_EVIDENCE),
    # 44 (support where one answer is the other's closest), 46 (answers tied for the closest that are one answer)
    assert m.disguised_found >= 46 and m.copies_found >= 14 and m.false_cells == 0, m
    debug = _cell_of(report, "copier-debug", "honest-10", "grad_report")
    assert debug.supports and sim.SUPPORT_EVIDENCE <= debug.counted < sim.MIN_EVIDENCE, debug
    assert any("less than 6, so alone it would not match" in r for r in debug.reasons()), debug.reasons()
    reference = _reference_answers(planted_02.MODULE)
    assert planted_run.unlike_their_source(planted_02.MODULE, cohort.answers, cohort.stubs, reference,
                                           planted_02.COPIES) == []


def test_the_held_out_cohort_of_module_09_keeps_its_floor_and_never_flags_the_courses_answer():
    """Module 09's cohort was written apart from the normaliser, after the changes for module 02's were begun and
    before they were done: measured on the code before them (38 of 74 cells, 13 of 15 pairs) and after (40 and
    13), kept out of tuning; 56 and 13 since a cell matches from 0.35 on STRONG weight over four lines and
    cells that share MIN_EVIDENCE each match together on TOGETHER (tuned on module 03's cohort, and the score's
    floor on module 06's honest one).  Its normalised answers showed two changes of behaviour, both fixed: a helper
    that makes a closure was written out in a loop, and a constructor's parameter renamed under a keyword call.
    Since then its misses were read to write helpers and lambdas alike (58 and 15): it is tuned on now, and
    module 01b's cohort is the one kept out.  59 since a cell scoring from the threshold on fewer than two lines of
    their own matches as support in a pair that matches elsewhere."""
    from autograder.dev import planted_09

    cohort, report = _compared(planted_09)
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised) == (391, 15, 74), m
    assert m.false_pairs <= 0.01 * m.independent_pairs and cohort.canonical not in report.flagged()
    # one cell of copier-half's (StepLedger, its own) matches honest-03's together with the copied cells
    # 62 since a cell where one answer is the other's closest matches as support
    assert m.disguised_found >= 62 and m.copies_found >= 15 and m.false_cells <= 1, m


def test_the_module_03_cohort_keeps_its_floor_and_its_copies_do_what_their_sources_do(torch_one_thread, tmp_path):
    """Module 03's cohort, written apart from the normaliser to tune on (layers in a loop or written out,
    ``nn.Sequential`` for a written-out ``forward``, functional calls for layers, helpers and a counter class,
    unused indices, device helpers, guard clauses, ``try``/``finally``, ``functools.partial``, spellings, a chain,
    a merge and a half copy): first measured at 12 of 48 cells and 6 of 14 pairs, then tuned on: 14 and 8 (STRONG
    from a lower score), 21 and 9 (cells together), 22 (a tally object read as its total).  Its answers are short
    and honest students converge on them (``freeze``, the id-set ``untrained_parameters``).  23 with a short
    answer's support in a pair that matches elsewhere, 25 and 10 with one-statement answers identical once
    normalised counted together with a pair's other cells, 26 with support from SUPPORT_EVIDENCE.  34 and 12 with
    the closest answers (CLOSEST_CELLS): copier-unrolled wrote honest-05's answers out so far that no cell shares
    enough to report the pair, yet in three cells each is the other's closest.  Two cells of copier-merge's match
    honest-09's that it took from honest-01: its ``count_parameters``, rewritten into the two branches honest-09 wrote, is
    closest to honest-09's, and its ``untrained_parameters`` scores 1.00 with honest-09's as with honest-01's."""
    from autograder.dev import planted_03, planted_run

    cohort, report = _compared(planted_03)
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised) == (337, 14, 48), m
    assert m.false_pairs == 0 and cohort.canonical not in report.flagged()
    assert m.disguised_found >= 34 and m.copies_found >= 12 and m.false_cells <= 2, m
    unrolled = next(p for p in report.pairs if {p.a, p.b} == {"copier-unrolled", "honest-05"})
    nearest = [c for c in unrolled.matching if c.nearest]
    assert len(nearest) >= 3 and all(c.closest == "each" for c in nearest), unrolled.matching
    assert not any(c.score >= sim.THRESHOLD and c.counted >= sim.MIN_EVIDENCE and c.lines >= sim.MIN_LINES
                   for c in nearest), nearest
    alone = [c for c in unrolled.matching if not c.nearest]  # one cell matches alone, on too little to report it
    assert len(alone) <= 1 and all(c.counted < sim.STRONG for c in alone), alone
    assert any("each of the two answers is the other's closest" in r for r in nearest[0].reasons())
    page = sim.write_report(report, tmp_path).read_text()
    assert f"<code>{nearest[0].cell}</code>: matches as one of {sim.CLOSEST_CELLS} or more cells where each" in page
    reference = _reference_answers(planted_03.MODULE)
    # the one copy that must differ: copier-unrolled's MLP names its layers as attributes, so the plan it took
    # from honest-05 lists those names (a plan is the keys of its own author's MLP)
    assert planted_run.unlike_their_source(planted_03.MODULE, cohort.answers, cohort.stubs, reference,
                                           planted_03.COPIES) == [("plan_mlp", "copier-unrolled", "honest-05")]


def test_every_copied_answer_of_module_08_does_what_its_source_does(torch_one_thread):
    """The cohort's truth: each disguised copy does, on the exercise's inputs, what the answer it was taken from
    does (a load after its own author's save), and every seeding and load does what the course's does."""
    from autograder.dev import planted_08, planted_run

    cohort = planted_08.planted_cohort()
    reference = _reference_answers(planted_08.MODULE)
    module = planted_08.MODULE
    assert planted_run.unlike_their_source(module, cohort.answers, cohort.stubs, reference, planted_08.COPIES) == []
    cells = ("seed_everything", "load_checkpoint", "repair_load_checkpoint")
    assert planted_run.unlike_the_reference(module, cohort.answers, cohort.stubs, reference, cells) == []
    broken = {cell: {"broken": src.replace("+ 1", "+ 2")} for cell, src in reference.items() if cell in cells[1:]}
    assert planted_run.unlike_the_reference(module, broken, cohort.stubs, reference, cells[1:]) == [
        ("load_checkpoint", "broken"), ("repair_load_checkpoint", "broken")]


def test_the_second_tuning_cohort_finds_the_disguises_it_was_written_for():
    from autograder.dev import planted_05b

    cohort = planted_05b.planted_cohort()
    report = sim.compare(cohort.answers, cohort.stubs, planted_05b.MODULE,
                         code=_course_code(planted_05b.MODULE))
    m = planted.measure(cohort, report)
    assert m.false_pairs == 0 and cohort.canonical not in report.flagged()
    assert (m.copies, m.disguised) == (12, 23) and m.copies_found >= 10 and m.disguised_found >= 16, m
    # copier-headers' fit is honest-02's, which is the reference once normalised: the course's answer, never a pair
    assert report.cells["fit"].reference.get("honest-02") == "same code"
    # the merge is found through the long evaluate it took from honest-07; the fit it took from honest-08 is
    # mostly the course's lines and three students hand it in (with copier-statements): not a pair on its own
    assert frozenset(("copier-merged", "honest-07")) in report.flagged()
    assert frozenset(("copier-merged", "honest-08")) not in report.flagged()


def test_a_merge_is_found_through_the_one_long_cell_taken_from_each_classmate():
    from autograder.dev import planted_05

    cohort = planted_05.planted_cohort()
    report = sim.compare(cohort.answers, cohort.stubs, planted_05.MODULE,
                         code=_course_code(planted_05.MODULE))
    m = planted.measure(cohort, report)
    assert m.false_pairs == 0 and cohort.canonical not in report.flagged()
    assert (m.disguised_found, m.copies_found) >= (16, 10), m
    merge = next(p for p in report.pairs if {p.a, p.b} == {"copier-merge", "honest-05"})
    assert [c.cell for c in merge.matching] == ["evaluate"] and merge.matching[0].identical
    assert merge.matching[0].counted < sim.STRONG <= sim.IDENTICAL_LONG <= merge.matching[0].smaller
    # what the merge took from honest-02 is the reference once normalised: the course's answer, never a pair
    assert report.cells["fit"].reference.get("honest-02") == "same code"


def test_the_page_by_student_tells_a_chain_as_one_story(held_out, tmp_path):
    _, report = held_out
    chain = next(g for g in report.stories() if "chain-b" in g)
    assert chain == ["chain-b", "chain-c", "honest-02"]
    links = report.links()
    assert {o for o, _ in links["chain-b"]} == {"chain-c", "honest-02"}  # the middle link sees both ends
    page = html.unescape(sim.write_report(report, tmp_path).read_text())
    assert "By student" in page and "Group 1: chain-b, chain-c, honest-02" in page
    assert "(as submitted)" in page and "<summary>normalised</summary>" in page
    assert page.index("(as submitted)") < page.index("<summary>normalised</summary>")
    assert "does not match: the score" in page  # every cell that does not match says why
    # chain-b hands in honest-02's overfit_diagnosis: identical once normalised, its fingerprints all common, so
    # it matches as support and has no score of its own: the page says so, not "0.00"
    support = next(m for p in report.pairs if {p.a, p.b} == {"chain-b", "honest-02"} for m in p.matching
                   if m.cell == "overfit_diagnosis")
    assert support.supports and support.score == 0.0
    assert "honest-02 <span class='quiet'>(identical, support)</span>" in page and "(0.00)" not in page
    assert "matches, score 0.00" not in page and "overfit_diagnosis</code>: matches as support" in page
    evidence = [p.evidence for p in report.pairs]
    assert evidence == sorted(evidence, reverse=True)


@pytest.mark.parametrize("source,calls", [
    ("def f(a, b):\n    if not a or not (b is None):\n        return 1\n    return 2\n", [(0, None), (1, None), (1, 2), (0, 0)]),
    ("def f(a):\n    if a > 1:\n        r = 'big'\n    else:\n        r = 'small'\n    return r + ('!' if not a else '?')\n", [(0,), (2,)]),
    ("def f(e, a):\n    return 'epoch {}: {:.3f} {!r}'.format(e, a, e)\n", [(1, 0.5), ("x", 2.0)]),
    ("def g(a, b, c=3):\n    return [a, b, c]\n\ndef f(x, y):\n    return g(x, c=y, b=x), g(b=y, a=x)\n", [(1, 2)]),
    ("def f(xs):\n    out = []\n    for i, p in enumerate(xs):\n        a, b = p\n        out.append(a - b)\n    for _ in range(0, 2):\n"
     "        out.append(dict(z=1, y=2))\n    return out\n", [([(1, 2), (5, 3)],)]),
    ("def f(m, d):\n    out = []\n    for name, p in m.named_parameters():\n        out.append(p)\n    for k, v in d.items():\n"
     "        out.append(v)\n    return out\n", [(__import__("torch").nn.Linear(2, 1), {"a": 1})]),
    ("def f(xs, k):\n    def scaled(t):\n        return t * k\n    return [scaled(x) for x in xs] + [scaled(k)]\n", [([1, 2], 3)]),
    ("def f(xs: list, k: int = 2) -> float:\n    t: float = 0.0\n    for x in xs:\n        t += x * k\n    return t\n", [([1, 2],)]),
    ("BAD = 'bad'\nTOP = math.inf\n\ndef f(v):\n    out = []\n    if v == TOP:\n        out.append(BAD)\n    return out, TOP\n",
     [(1.0,), (math.inf,)]),
    ("def f(d):\n    found = None\n    for k, v in sorted(d.items()):\n        if v > 0:\n            found = k\n            break\n    return found\n",
     [({"a": -1, "b": 2, "c": 3},), ({"a": -1},), ({},)]),
    ("def f(a, b, c):\n    if a != b or not c:\n        return 'x'\n    return 'y'\n", [(1, 1, True), (1, 2, True), (1, 1, 0)]),
    ("def f(d, k, v):\n    if v > 1:\n        d[k] = v\n    else:\n        d[k] = -v\n    return d\n", [({}, 'a', 2), ({'a': 1}, 'a', 0)]),
    ("class Run:\n    def __init__(self, k):\n        self.k = k\n\n    def __call__(self, xs):\n        return [x * self.k for x in xs]\n\n"
     "def f(xs, k):\n    return Run(k)(xs)\n", [([1, 2], 3)]),
    ("def f(g, xs):\n    return list(map(g, xs)), set(map(lambda t: t * 2, xs)), list(x for x in xs)\n", [(abs, [-1, 2, -1])]),
    ("def f(xs):\n    for x in xs:\n        if x > 0:\n            return True\n    return False\n\n"
     "def g(xs):\n    for x in xs:\n        if x > 0:\n            return False\n    return True\n", [([],), ([-1, 2],), ([-1],)]),
    ("def f(xs):\n    out = []\n    for x in xs:\n        if x is None:\n            continue\n        out.append(x)\n    return out\n",
     [([1, None, 2],)]),
    ("def f(n):\n    out = []\n    i = 1\n    while True:\n        if i > n:\n            break\n        out.append(i)\n        i += 1\n"
     "    return out\n", [(0,), (3,)]),
    ("def f(n):\n    out = []\n    i = 2\n    while not i >= n:\n        out.append(i)\n        i += 1\n    return out\n", [(0,), (5,)]),
    ("def f(xs):\n    t = 0\n    for i in range(len(xs)):\n        t += i * xs[i]\n    return t, i\n", [([3, 4, 5],)]),
    ("def f(a, b=0):\n    if a:\n        return 'x'\n    elif b:\n        return 'y'\n    return 'z'\n", [(1,), (0, 1), (0, 0)]),
    ("class Keep:\n    def __init__(self, k):\n        self.k = k\n\n    def get(self):\n        return self.k\n\n"
     "def f(k):\n    kept = Keep(k)\n    return kept.get(), type(kept).__name__\n", [(4,)]),
    # a helper's comprehension whose own variable an argument names, and a closure made in a loop, stay helpers
    ("def f(xs, n):\n    def g(k):\n        return [k * n for n in xs]\n    return g(n), g(2)\n", [([1, 2], 5)]),
    ("def f(xs):\n    def make(k):\n        return lambda: k\n    out = []\n    for k in xs:\n        out.append(make(k))\n"
     "    return [g() for g in out]\n", [([1, 2, 3],)]),
    ("def f(keep, t):\n    def new():\n        return {'g': {n: [] for n in keep}}\n\n    def state(u):\n        if u is None:\n"
     "            return 'none'\n        return 'big' if u > 1 else 'small'\n    a = new()\n    a['g'][keep[0]].append(1)\n"
     "    return a, new(), state(t)\n", [(['x', 'y'], None), (['x'], 3)]),
    ("class S:\n    pass\n\ndef f(a, b):\n    s = S()\n    s.a, s.b, s.c = b, a, []\n    s.c.append(s.a)\n"
     "    a, b = b, a\n    return s.a, s.b, s.c, a, b\n", [(1, 2)]),
    ("def f(xs, k):\n    out = []\n    for x in xs:\n        if (n := len(x)) > k:\n            out.append(n)\n"
     "        elif (m := n - k) == 0 and m < 1:\n            out.append(-m)\n    return out\n", [(["ab", "abc", ""], 2)]),
    ("def f(k):\n    match k:\n        case 1 | 2:\n            return 'a'\n        case 'x':\n            return 'b'\n"
     "        case None:\n            return 'n'\n        case _:\n            return 'c'\n", [(1,), (2,), ('x',), (None,), (3,)]),
    ("def f(xs, flag):\n    match bool(flag):\n        case True:\n            ys = [x for x in xs if x > 0]\n"
     "        case False:\n            ys = list(xs)\n    match len(ys):\n        case 0:\n            return None\n"
     "    return sum(ys)\n", [([1, -2, 3], 1), ([1, -2], 0), ([-1], []), ([], 5)]),
    ("import functools\nfrom functools import reduce\n\ndef f(xs, x):\n"
     "    total = reduce(lambda a, b: a + b * 2, xs, 0)\n"
     "    return total, functools.reduce(lambda out, g: g(out), [abs, str], x)\n", [([1, 2], -3), ([], 4)]),
    ("import functools\n\ndef f(xs):\n    a = functools.reduce(lambda t, b: t + sum(b for b in b), xs, 0)\n"
     "    return a + functools.reduce(lambda t, b: t + sum(p for p in b), xs, 0)\n", [([[1, 2], [3]],), ([],)]),
    # names a case pattern binds are the function's locals, renamed with the others
    ("def f(batches):\n    out = []\n    for batch in batches:\n        match batch:\n            case [x, y]:\n"
     "                pass\n            case {'x': x, **rest}:\n                y = len(rest)\n            case [x, *more]:\n"
     "                y = more\n            case _:\n                x, y = batch, None\n        out.append((x, y))\n"
     "    return out\n", [([[1, 2], {'x': 3, 'z': 4}, (5, 6, 7), 8],)]),
    # a match of literals with guards, and of a capture read only in its own case, is the if/elif it stands for;
    # [*xs] is list(xs)
    ("def f(x, y):\n    match x:\n        case None:\n            return 'none'\n        case 1 | 2 if y:\n"
     "            return 'small'\n        case g if g > 10:\n            return [*range(g - 9)], (*'ab',), {*'aa'}\n"
     "        case _:\n            return 'other'\n", [(None, 0), (1, 1), (1, 0), (2, 3), (11, 0), (5, 0)]),
    ("def f(xs):\n    out = []\n    for x in xs:\n        match x:\n            case 0:\n                out.append('zero')\n"
     "            case g:\n                out.append(g)\n        out.append(x)\n    return out\n", [([0, 3],)]),
    # a flag set and broken out of is any() (all() the other way round), unless the loop's name is read after it
    ("def f(groups, p):\n    held = False\n    for g in groups:\n        if p in g:\n            held = True\n"
     "            break\n    free = True\n    for g2 in groups:\n        if len(g2) > 2:\n            free = False\n"
     "            break\n    return held, free\n", [([[1], [2, 3]], 2), ([], 1), ([[1, 2, 3]], 4)]),
    ("def f(xs):\n    found = False\n    for x in xs:\n        if x > 1:\n            found = True\n            break\n"
     "    return found, x\n", [([0, 2, 5],), ([0, 1],)]),
    # a helper called from several statements is written out at each, its locals apart at each place
    ("def f(xs, eps):\n    def nudged(i, d):\n        p = list(xs)\n        p[i] += d\n        return p\n"
     "    plus = nudged(0, eps)\n    minus = nudged(1, -eps)\n    return plus, minus\n", [([1.0, 2.0], 0.5)]),
    ("def f(xs):\n    seen = []\n\n    def note(x):\n        k = x * 2\n        seen.append(k)\n\n    note(xs[0])\n"
     "    for x in xs:\n        note(x)\n    if not seen:\n        return None\n    return seen\n", [([3, 1],)]),
    ("def f(xs, flag):\n    def total(ys):\n        s = 0\n        for y in ys:\n            s += y\n        return s\n"
     "    if flag:\n        return total(xs)\n    half = total(xs[1:])\n    return half\n", [([1, 2, 3], True), ([1, 2], 0)]),
])
def test_each_new_form_does_what_it_did(source, calls):
    """The forms brought to one (De Morgan, conditional expressions, str.format, keywords by position, loop
    headers, helpers called more than once, dict(...), type hints, a cell's constants, a result stored and
    broken out of, branches on negated tests, items bound on both branches, callable classes, a class whose
    object is handed back, an assignment expression evaluated first, a ``match`` of literals, ``reduce`` with a
    lambda and an initial value) run as written and normalised give the same."""
    normal = normalise.normalise(source)
    assert normal != source
    written, normalised = {"math": math}, {"math": math}
    exec(source, written)  # noqa: S102 - the test's own code
    exec(normal, normalised)  # noqa: S102
    for args in calls:
        for name in {"f", "g"} & written.keys():
            assert written[name](*args) == normalised[name](*args), (normal, args)


def test_a_negation_is_fingerprinted_pushed_in_to_the_tests_it_is_made_of():
    """``not (a or b)`` reads as ``not a and not b`` and ``not (a and b)`` as ``not a or not b``, down to each
    comparison's opposite: a guard turned round (``if p in held or p.is_meta: continue``) and its
    classmate's test (``if p not in held and not p.is_meta:``) are one test however the negation was written."""
    guard = ("def f(model, held):\n    names = []\n    for name, p in model.named_parameters():\n"
             "        if id(p) in held or p.is_meta:\n            continue\n        names.append(name)\n"
             "    return names\n")
    plain = ("def f(model, held):\n    names = []\n    for name, p in model.named_parameters():\n"
             "        if id(p) not in held and not p.is_meta:\n            names.append(name)\n    return names\n")
    assert normalise.folded(normalise.normalise_tree(guard)) == normalise.folded(normalise.normalise_tree(plain))
    assert "not (" in normalise.normalise(guard)  # the program keeps its own test: only the fingerprint turns it


def test_newer_syntax_reads_as_the_older_it_stands_for():
    """An assignment expression evaluated first is a statement before its own; a ``match`` of ``bool(e)`` against
    ``True`` and ``False`` is an ``if`` on ``e``; ``reduce`` with a lambda is its loop; ``*rest, last = xs`` reads
    ``xs[:-1]`` and ``xs[-1]`` where they are used (fingerprinted text only).  Each is fingerprinted as the form a
    classmate wrote without it; a ``while``'s own assignment expression and a capturing pattern stay."""
    newer = ("import functools\n\n\nclass MLP(nn.Module):\n    def forward(self, x):\n        *hidden, last = self.layers\n"
             "        for layer in hidden:\n            x = layer(x)\n            if (p := self.p) > 0:\n"
             "                x = F.dropout(x, p=p)\n        return last(x)\n\n\ndef count(model, only=False):\n"
             "    match bool(only):\n        case True:\n            ps = list(model.trainable())\n        case False:\n"
             "            ps = list(model.parameters())\n    return functools.reduce(lambda n, p: n + p.numel(), ps, 0)\n")
    older = ("import functools\n\n\nclass MLP(nn.Module):\n    def forward(self, x):\n        for layer in self.layers[:-1]:\n"
             "            x = layer(x)\n            if self.p > 0:\n                x = F.dropout(x, p=self.p)\n"
             "        return self.layers[-1](x)\n\n\ndef count(model, only=False):\n    if only:\n"
             "        ps = list(model.trainable())\n    else:\n        ps = list(model.parameters())\n    n = 0\n"
             "    for p in ps:\n        n += p.numel()\n    return n\n")
    assert normalise.folded(normalise.normalise_tree(newer)) == normalise.folded(normalise.normalise_tree(older))
    kept = ("def f(xs):\n    while (n := len(xs)) > 1:\n        xs = xs[1:]\n    match xs:\n        case [a]:\n"
            "            return a + n\n")
    assert "while" in normalise.normalise(kept) and "match" in normalise.normalise(kept)


_FIELDS = """\
from dataclasses import dataclass


@dataclass
class Step:
    lr: float
    momentum: float
    buffers: list
    count: int = 0


class Plain:
    seen: list

    def __init__(self):
        self.seen = []


def f(lr, momentum):
    total: float
    total = lr + momentum
    step = Step(lr, momentum, [])
    plain = Plain()
    plain.seen.append(total)
    return step, plain.seen, Step.__dataclass_fields__.keys()
"""


def test_a_classs_annotations_and_order_are_kept_and_a_bare_annotation_is_no_crash():
    """A dataclass's fields are its class body's annotations, in order: the normaliser neither turns them into
    plain names nor puts them in another order, and a bare ``x: T`` (in a class or a function) is a statement it
    reads without failing (it raised AttributeError before, and the whole report with it)."""
    normal = normalise.normalise(_FIELDS, keep={"f"})
    written, normalised = {}, {}
    exec(_FIELDS, written)  # noqa: S102 - the test's own code
    exec(normal, normalised)  # noqa: S102
    a, b = written["f"](0.1, 0.9), normalised["f"](0.1, 0.9)
    assert (repr(a[0]), a[1], list(a[2])) == (repr(b[0]), b[1], list(b[2])), normal


def test_an_answer_the_normaliser_fails_on_is_compared_as_written_and_named(tmp_path, monkeypatch):
    """The normaliser's own failure on one answer stops neither the report nor that answer's comparison: the
    answer is fingerprinted as written, and the page and similarity.json name it as the report's fault."""
    real = normalise.normalise_tree
    doomed = planted.HONEST["honest-02"]["train_epoch"]

    def failing(source, *args, **kwargs):
        if source == doomed:
            raise AttributeError("'NoneType' object has no attribute '_fields'")
        return real(source, *args, **kwargs)

    monkeypatch.setattr(normalise, "normalise_tree", failing)
    sim._normalised.cache_clear()
    try:
        cohort = planted.planted_cohort()
        report = sim.compare(cohort.answers, cohort.stubs, planted.MODULE, code=_course_code(planted.MODULE))
    finally:
        sim._normalised.cache_clear()
    failed = [a for a in report.answers.values() if a.not_normalised]
    assert [(a.student, a.cell) for a in failed] == [("honest-02", "train_epoch")]
    assert failed[0].normal == doomed and failed[0].hashes  # compared, as written
    page = sim.write_report(report, tmp_path).read_text()
    assert "1 answer could not be normalised" in page and "honest-02" in page
    assert json.loads((tmp_path / "similarity.json").read_text())["not_normalised"] == [
        {"student": "honest-02", "cell": "train_epoch", "error": "AttributeError: 'NoneType' object has no attribute "
         "'_fields'"}]


def test_the_module_01b_cohort_kept_out_of_tuning_keeps_its_floor_and_its_copies_do_what_their_sources_do(
        torch_one_thread):
    """Module 01b's cohort, written apart from the normaliser and kept out of all tuning (fourteen honest students
    of the by-hand lesson, eleven copiers: temporaries as lambdas and nested functions and back, augmented
    assignments written out, loop forms, a dataclass holding state, dead code, negated branches, renamed einsum
    subscripts, a chain, a merge and a half copy).  The report failed on it before (a dataclass's bare
    annotations); with that fixed, the code before and after this round's helper and lambda forms read 19 of 33
    cells and 10 of 13 pairs, one false pair of 338; 21 cells when a support on a score and one-statement answers
    as support came (tuned on the second 01b cohort, then measured here once); 22 with a sum's terms in one order
    (the same); 22 and a second false pair of 338 with lines counted as submitted lines, options read as defaults
    and one-statement answers together (tuned on module 01's cohort)."""
    from autograder.dev import planted_01b, planted_run

    cohort, report = _compared(planted_01b)
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised) == (338, 13, 33), m
    assert m.false_pairs <= 0.01 * m.independent_pairs and cohort.canonical not in report.flagged()
    assert m.disguised_found >= 22 and m.copies_found >= 10 and m.false_cells == 0, m
    reference = _reference_answers(planted_01b.MODULE)
    assert planted_run.unlike_their_source(planted_01b.MODULE, cohort.answers, cohort.stubs, reference,
                                           planted_01b.COPIES) == []


@pytest.fixture(scope="module")
def cohort_01c():
    from autograder.dev import planted_01c

    return _compared(planted_01c)


def test_the_second_module_01b_cohort_tuned_on_keeps_its_floor_and_its_copies_do_what_their_sources_do(
        cohort_01c, torch_one_thread):
    """Module 01b's second cohort, written apart from the normaliser and apart from the first, to tune on (renamed
    einsum subscripts, reordered statements, operands and terms swapped, transposes and products spelled every
    way, index loops as zips, helpers and lambdas, a class holding state, negated conditions, dead code, a chain,
    a merge and a half copy): 16 of 33 cells and 9 of 13 pairs when first measured; 19 and 12 with the spellings
    of a transpose, a matrix product, an einsum of two matrices, a ``dict(zip(...))`` of literals, ``.data``,
    ``keepdim=False``, a square and ``0 - x``; 20 with an object's methods written out where they return a
    value (copier-class's network with ``forward`` and ``backward``); 23 with a short answer's support in a pair
    that matches elsewhere (see the test below); 25 and 13 with a sum's terms in one order (copier-algebra); 26
    with torch.where on its test's strict side; 28 with an attribute named once read where it is named."""
    from autograder.dev import planted_01c, planted_run

    cohort, report = cohort_01c
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised) == (338, 13, 33), m
    assert m.false_pairs == 0 and cohort.canonical not in report.flagged()
    # 30 since a cell where one answer is the other's closest matches as support
    assert m.disguised_found >= 30 and m.copies_found >= 13 and m.false_cells == 0, m
    assert planted_run.unlike_their_source(planted_01c.MODULE, cohort.answers, cohort.stubs,
                                           _reference_answers(planted_01c.MODULE), planted_01c.COPIES) == []


def test_an_answer_is_its_classmates_closest_only_when_no_other_ties_it():
    """``closest`` ranks by score among the pairs sharing CLOSEST_EVIDENCE that counts: a tie for the first place
    names no one unless the tied answers are one answer (the same once normalised: a copy taken as it was and its
    source are closest together), a pair sharing less is not ranked, and each student has their own closest."""
    def scored(score, counted):
        return sim.CellMatch("c", score, counted, 0, 0, 0, 0, 0, 0, False, 5, False)

    scores = {("a", "b"): scored(0.4, 3.0), ("a", "c"): scored(0.2, 2.0), ("b", "c"): scored(0.4, 2.0),
              ("d", "e"): scored(0.9, 0.5), ("c", "d"): scored(0.1, 1.0)}
    found = sim.closest(scores, {s: s for s in "abcde"})
    assert found == {"a": {"b"}, "c": {"b"}, "d": {"c"}}  # b ties between a and c; d and e share too little
    assert sim.closest(scores, {"a": "same", "c": "same"})["b"] == {"a", "c"}  # a and c handed in one answer
    assert sim.closest({("a", "b"): scored(0.3, 1.0)}) == {"a": {"b"}, "b": {"a"}}


def _holds_its_floor(cohort_module, sizes: tuple, cells: int, pairs: int):
    """A planted cohort's measure: its sizes (independent pairs, copies, disguised cells, those that can be told
    apart) as written, no more than 1 % false pairs, the course's answer never a pair, at least ``cells`` disguised
    cells and ``pairs`` copied pairs found, no cell matching that its pair did not copy, and every copy doing what
    its source does; the cohort, its report and the measure."""
    from autograder.dev import planted_run

    cohort, report = _compared(cohort_module)
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised, m.told_apart) == sizes, m
    assert m.false_pairs <= 0.01 * m.independent_pairs and cohort.canonical not in report.flagged()
    assert m.disguised_found >= cells and m.copies_found >= pairs and m.false_cells == 0, m
    assert planted_run.unlike_their_source(cohort_module.MODULE, cohort.answers, cohort.stubs,
                                           _reference_answers(cohort_module.MODULE), cohort_module.COPIES) == []
    return cohort, report, m


def _cell_of(report, a, b, cell):
    pair = next(p for p in report.pairs if {p.a, p.b} == {a, b})
    return next(m for m in pair.cells if m.cell == cell)


def test_a_short_answer_matches_as_support_only_in_a_pair_that_matches_elsewhere(cohort_01c, tmp_path):
    """A one-line ``bce_with_logits`` carries no pair alone, but in a pair matching in its other cells it is
    evidence.  copier-rename split honest-03's one-statement answer in two: identical once normalised, the
    one-statement answer counts together with the pair's other cells.  copier-helpers moved honest-09's softplus
    into a lambda: its one line of their own scores 0.91 (support on a score, a one-statement answer read for
    support).  Each says why on the page; students whose only shared code is one such line are no pair."""
    cohort, report = cohort_01c
    single = _cell_of(report, "copier-rename", "honest-03", "bce_with_logits")
    assert single.matches and single.together and single.single and single.identical
    assert "honest-03" in report.cells["bce_with_logits"].too_short
    scored = _cell_of(report, "copier-helpers", "honest-09", "bce_with_logits")
    assert scored.supports and scored.single and not scored.identical and scored.lines < sim.MIN_LINES
    assert scored.score >= sim.THRESHOLD and scored.counted >= sim.MIN_EVIDENCE
    assert any("fewer than 2" in r for r in scored.reasons()) and any("single statement" in r for r in single.reasons())
    page = sim.write_report(report, tmp_path).read_text()
    assert f"{scored.score:.2f}, support" in page and "matches as support: score" in page
    # the same answers, alone in a cohort of one cell: no pair
    alone = sim.compare({"bce_with_logits": {s: cohort.answers["bce_with_logits"][s] for s in (
        "copier-rename", "honest-03", "copier-helpers", "honest-09", "honest-01", "honest-02")}},
        {"bce_with_logits": cohort.stubs["bce_with_logits"]}, "01b-by-hand")
    assert alone.pairs == []


def test_the_module_01_cohort_keeps_its_floor_and_its_copies_do_what_their_sources_do(torch_one_thread):
    """Module 01's cohort, written apart from the normaliser and kept out of tuning until measured (fourteen
    honest students who converge on the short answers, fourteen copiers: renaming, statements reordered,
    functions split in two and checks moved into helpers, lambdas and nested functions, a class holding state,
    comprehensions and ``functools.reduce``, ``while`` loops and ``divmod``, spellings and keywords by position,
    dead code and dropped type hints, defaults and ``try``/``except``, a chain, a merge and a half copy).
    Measured once on the code before this round (17 of 55 cells, 7 of 16 pairs) and once after its first four
    changes (20 and 7), none of 419 false: its answers are a few lines each.  Tuned on since: 25 and 10 with lines
    of their own counted as submitted lines (a folded temporary keeps its line), 27 and 11 with an option after the
    stub's parameters read as its default and one-statement answers identical once normalised counted together,
    29 and 12 with a holder class's defaults, 32 and 13 with einsums as sums and outer products and ``t[:, None]``
    as ``unsqueeze``, 33 with a product written out as ``math.prod``.  Many of its copied cells are the course's
    answer (``align_targets`` as the reference, by
    fourteen students): no copy can be told there."""
    from autograder.dev import planted_01, planted_run

    cohort, report = _compared(planted_01)
    m = planted.measure(cohort, report)
    assert (m.independent_pairs, m.copies, m.disguised) == (419, 16, 55), m
    assert m.false_pairs == 0 and cohort.canonical not in report.flagged()
    assert m.disguised_found >= 33 and m.copies_found >= 13 and m.false_cells == 0, m
    # fifteen of its copied cells are the course's answer or what a fifth of the cohort wrote: no copy to tell there
    assert m.told_apart == 40 and m.told_apart_found >= 33, m
    assert not planted.tellable(report, frozenset(("copier-rename", "honest-03")), "align_targets")
    # a one-statement answer that would match but for being one statement says so
    single = _cell_of(report, "copier-comprehension", "honest-09", "pairwise_sq_dists")
    assert single.supports and single.single and single.counted >= sim.MIN_EVIDENCE, single
    assert any("one of the answers a single statement, so alone it would not match" in r for r in single.reasons())
    assert planted_run.unlike_their_source(planted_01.MODULE, cohort.answers, cohort.stubs,
                                           _reference_answers(planted_01.MODULE), planted_01.COPIES) == []


def test_module_01s_second_cohort_keeps_its_floor_and_its_copies_do_what_their_sources_do(torch_one_thread):
    """Module 01's second cohort, written apart from the normaliser and from the first, and kept out of all tuning
    until module 03's second was written (seventeen honest students, nineteen copiers: renaming, reordering, nested
    helpers and helpers inlined, a dataclass and fitted objects, comprehensions and ``map``, negated branches,
    spellings, arithmetic rewritten, dead code, arguments renamed, a chain, a merge, a half copy, constants
    hoisted, assignment expressions, NumPy aliases, annotations added).  Measured on the code before this round:
    28 of 74 cells and 11 of 23 pairs; after the changes tuned on module 01b's second cohort: 26 and 10; after
    those tuned on module 01's first: 46 and 19, then 45 and 20; none of 680 false throughout.  It found one change
    of behaviour: a call writing its ``out=`` argument (fixed, see above).  Tuned on since: 48 with the closest
    answers as support, 50 with classmates tied for the closest whose answers are one answer."""
    from autograder.dev import planted_01x

    _, report, _ = _holds_its_floor(planted_01x, (680, 23, 74, 52), cells=50, pairs=20)
    closest = [c for p in report.pairs for c in p.matching if c.supports and c.closest and c.score < sim.THRESHOLD]
    assert closest and all(any("the other's closest of the" in r for r in c.reasons()) for c in closest), closest


def test_module_02s_second_cohort_keeps_its_floor_and_its_copies_do_what_their_sources_do(torch_one_thread, tmp_path):
    """Module 02's second cohort, written apart from the normaliser, the detector and module 02's first, and kept
    out of all tuning until module 04's second was written (seventeen honest students, the two who hand in the course's answer,
    twenty-seven copiers: renaming, reordering, helpers split out and inlined, classes and closures, loops as
    comprehensions and back, ``while`` as ``for``, recursion as an explicit stack and back, negated branches, early
    returns, spellings, dead code, hints and docstrings added and stripped, arguments renamed, constants hoisted,
    ``try``/``except`` wrappers, branches as lookup tables, newer syntax, generator functions, imports and aliases,
    temporaries, a chain, a merge and a half copy).  Measured on the code before it was written: 88 of 153 cells
    (88 of the 146 that can be told apart), 31 of 40 pairs, none of 995 false; with the closest answers (tuned on
    module 03's first and module 01's second): 106 and 32; the same after the changes tuned on module 03's
    second.  Tuned on since: 107 with a negation added read as a subtraction; 114 and 34 with pairs reported
    through a classmate (THROUGH_CELLS): copier-imports and copier-negated each took honest-02's notebook and
    disguised it apart, yet each matches honest-02 in the same cells.  119 and 35 with a ``match`` whose cases are
    guarded or capture the subject read as the ``if``/``elif`` it stands for, 121 with a counter's ``while`` whose
    bound the body may change fingerprinted as the ``for`` loop it reads as."""
    from autograder.dev import planted_02x

    cohort, report, _ = _holds_its_floor(planted_02x, (995, 40, 153, 146), cells=121, pairs=35)
    siblings = next(p for p in report.pairs if {p.a, p.b} == {"copier-imports", "copier-negated"})
    through = [m for m in siblings.matching if m.through]
    assert len(through) >= sim.THROUGH_CELLS and all(m.through == "honest-02" for m in through), siblings.matching
    assert any("it matches through honest-02: each of the two answers matches honest-02's" in r
               for r in through[0].reasons())
    page = sim.write_report(report, tmp_path).read_text()
    assert f"<code>{through[0].cell}</code>: matches through honest-02: each answer matches honest-02&#x27;s" in page


def test_module_03s_second_cohort_keeps_its_floor_and_its_copies_do_what_their_sources_do(torch_one_thread):
    """Module 03's second cohort, written apart from the normaliser, the detector and module 03's first, and kept
    out of all tuning until module 02's second was written (seventeen honest students, the two who hand in the
    course's answer, twenty-three copiers: renaming, reordering, helpers split out and inlined, closures and a small class,
    constants hoisted, loops written out and as comprehensions, ``reduce``, ``filter`` and ``itertools.chain``,
    ``while`` as ``for``, negated branches, nested ``if``/``else`` as early returns, spellings, ``%`` as f-strings,
    hints and docstrings stripped, dead code, arguments renamed, ``try``/``except`` wrappers, layers built in
    another order, newer syntax, a chain, a merge and a half copy).  Measured on the code before it was used: 61 of
    132 cells (61 of the 109 that can be told apart), 21 of 32 pairs, none of 829 false; with the closest answers:
    65 and 21.  Tuned on since: 67 and 23 with newer syntax read as the older it stands for, 68 with negations
    pushed in.  (What both branches of an ``if`` end with read after it added one more here and cost module 01b's
    second two: the guards it made alike were many students', so their fingerprints weighed nothing.)  70 and 24 with
    a dict updated from a literal read as its items set one by one, an f-string inside an f-string as its parts and
    one augmented assignment on both branches as one (copier-inline wrote honest-15's helpers out), 72 with a flag
    set and broken out of read as the ``any`` it stands for and a test negated twice as the test."""
    from autograder.dev import planted_03x

    _holds_its_floor(planted_03x, (829, 32, 132, 109), cells=72, pairs=24)


def test_module_04s_second_cohort_kept_out_keeps_its_floor_and_its_copies_do_what_their_sources_do(torch_one_thread):
    """Module 04's second cohort, written apart from the normaliser, the detector and the course's own module 04
    cohort, and kept out of all tuning: its misses are not read (seventeen honest students, the two who hand in the
    course's answer, thirty copiers: renaming, reordering, helpers split out and inlined, classes and closures,
    comprehensions, loops written out, ``while`` as ``for``, negated branches, early returns, spellings, dead code,
    hints and docstrings added and stripped, arguments renamed, constants hoisted, ``try``/``except`` wrappers,
    newer syntax, generator functions, imports and aliases, temporaries, ``enumerate`` and ``zip`` loops, ``iter``
    and ``next``, totals kept in lists and summed, totals summed by torch, ``for``/``else``, calls through
    ``__call__`` and ``functools.partial``, batches moved elsewhere, a chain, a merge and a half copy).  Measured
    on the code before it was written: 75 of 186 cells (75 of the 135 that can be told apart), 22 of 47 pairs,
    none of 1,129 false; the same after the changes tuned on module 02's second and module 03's second (pairs
    through a classmate, helpers written out at several places).  Its ``match`` copier is what showed that names
    a case pattern binds were left out of the renaming (the normalised answer then raised)."""
    from autograder.dev import planted_04x

    _holds_its_floor(planted_04x, (1129, 47, 186, 135), cells=75, pairs=22)


@pytest.mark.parametrize("shape", ["expression", "statements", "lambda"])
def test_helpers_that_call_helpers_many_times_stay_helpers_past_the_growth_budget(shape):
    """A student who writes helpers calling the one below four times, eight deep, must not make the normaliser
    write the bottom one out 4 ** 8 times (a page of code, then minutes of the report's time): past GROWTH times
    the cell's own size the rest stay helpers, and the normalised answer still does what it did."""
    import ast as python_ast

    src = "def h0(x):\n    return x + 1\n"
    for k in range(1, 9):
        if shape == "expression":
            src += f"def h{k}(x):\n    return h{k - 1}(x) + h{k - 1}(x) + h{k - 1}(x) + h{k - 1}(x)\n"
        elif shape == "statements":
            src += f"def h{k}(x):\n" + "".join(f"    a{i} = h{k - 1}(x)\n" for i in range(4)) + "    return a0 + a1 + a2 + a3\n"
        else:
            src += f"h{k} = lambda x: h{k - 1}(x) - h{k - 1}(x) + h{k - 1}(x) * h{k - 1}(x)\n"
    src += "def f(x):\n    return h8(x)\n"
    normal = normalise.normalise(src, {"f"})
    size = sum(1 for _ in python_ast.walk(python_ast.parse(src)))
    assert sum(1 for _ in python_ast.walk(python_ast.parse(normal))) <= normalise.GROWTH * size + normalise.GROWTH_SLACK
    written, normalised = {}, {}
    exec(src, written)  # noqa: S102 - the test's own code
    exec(normal, normalised)  # noqa: S102
    assert written["f"](1) == normalised["f"](1)


def test_answers_python_cannot_read_never_stop_the_report():
    """Code nested deeper than Python's parser goes, a NUL byte, or a sum of twenty thousand terms is compared as
    text like code that does not parse; the report goes on and still pairs the classmates who copied."""
    ok = "def f(x):\n    y = x * 2 + 3\n    z = y ** 2 - x\n    return z / (y + 1)\n"
    copied = ok.replace("y", "w").replace("z", "q")
    answers = {
        "f": {"deep": "def f(x):\n    return " + "[" * 1000 + "x" + "]" * 1000 + "\n",
              "nul": "def f(x):\n    return x\0\n", "long": "def f(x):\n    return " + "+".join(["x"] * 20000) + "\n",
              "a": ok, "b": copied},
        "g": {"a": ok.replace("f(", "g("), "b": copied.replace("f(", "g("), "deep": "def g(x):\n    pass\n"},
    }
    report = sim.compare(answers, {"f": "def f(x):\n    pass\n", "g": "def g(x):\n    pass\n"}, "x")
    assert {frozenset((p.a, p.b)) for p in report.pairs} == {frozenset(("a", "b"))}
