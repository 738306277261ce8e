"""Answers that look copied, measured on the planted cohorts of modules 04, 05 and 06 (``autograder.dev.planted``,
``planted_05``, ``planted_06``).

Module 04: twelve honest students in their own styles, two who wrote the course's canonical answer
independently, six who copied a classmate and disguised two or three answers each a different way (renamed,
re-commented, wrapped in a class, split into helpers, loops turned into comprehensions, statements reordered).
The similarity report must find every disguised cell but two (the released starter code with one repair line,
see below), flag no pair of independent students, and show the canonical pair as the course's answer.

Module 05 is the cohort the normaliser was tuned on, module 06 the one kept out of tuning (dead code, while
loops, negated guards, other spellings, nested functions and lambdas, temporaries, a chain and a merge): their
figures are floors the normaliser must keep, and every normalised answer of the three cohorts must do, on the
exercise's inputs, what the submitted one does.
"""

import ast
import html
import json
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
    # Two copies of repair_train_epoch are the released starter code with the same repair lines: once every
    # variable is written v, what the two share beyond the starter weighs less than a match needs, as it does
    # for two honest students making the one repair the lesson asks for.
    assert missed == [(["copier-rename", "honest-03"], "repair_train_epoch"),
                      (["copier-recomment", "honest-05"], "repair_train_epoch")], missed
    cell = sim.Cohort([report.answers[s, "repair_train_epoch"] for s in report.cells["repair_train_epoch"].compared])
    for a, b in (("copier-rename", "honest-03"), ("copier-recomment", "honest-05")):
        m = sim.match(report.answers[a, "repair_train_epoch"], report.answers[b, "repair_train_epoch"], cell, sim.THRESHOLD)
        assert m.counted < sim.MIN_EVIDENCE and "weigh" in m.why_not(), m
    assert (measures.disguised_found, measures.disguised) == (13, 15)
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
    return normalise.folded(normalise.normalise_tree(source, keep))


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
