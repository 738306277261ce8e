"""The real nbgrader path: release, submit, autograde, read the gradebook."""

import importlib

import pytest
import torch
from test_catalogue import FINDINGS, planted_bug_costs_its_own_cells
from test_notebooks_run import PEAK_CELL, PEAK_LIMIT_MB, peak_mb

from autograder.dev import fixture_courses, nbtools, own_code
from autograder.dev.catalogue import (
    MODULES,
    THROUGH_NBGRADER,
    mutant_problems,
    variant_problems,
    variants_through_nbgrader,
    variants_together,
)
from autograder.outcome import RESULT_MIME
from conftest import MODULE_IDS

pytestmark = pytest.mark.slow

_BY_NAME = {n: importlib.import_module(f"autograder.dev.catalogue.{n}") for n in MODULES}
CATALOGUES = {cat.MODULE: cat for cat in _BY_NAME.values()}
NAMES = {cat.MODULE: n for n, cat in _BY_NAME.items()}


def through_nbgrader(cat) -> list[str]:
    """The mutants a full run grades through real nbgrader (tests/test_catalogue.py judges every mutant in
    process, with the same assertions): the do-nothing stand-ins returning None or an always-equal tensor (every
    graded function's cells, failing), each planted bug of a repair task, the mutants whose findings are
    asserted beyond the catalogue, and, where none of those is a real mistake, the module's first mutant."""
    findings = {m for n, m in FINDINGS if CATALOGUES.get(cat.MODULE) is cat and NAMES[cat.MODULE] == n}
    sampled = {f"does_nothing_{kind}" for kind in THROUGH_NBGRADER}
    chosen = [m for m, e in cat.MUTANTS.items() if m in sampled or m.startswith("repair_left_") or m in findings]
    if all(m in sampled for m in chosen):
        chosen += [next(m for m, e in cat.MUTANTS.items() if m not in sampled and not e.zero)]
    return chosen


def _judged(graded_course, mutant: str):
    """One catalogue mutant's scores as real nbgrader graded it (the shape the in-process run gives)."""
    module_id, course, _, scores, _ = graded_course
    nb = nbtools.read(fixture_courses.autograded_notebook(course, module_id, f"mutant-{mutant}"))
    return nbtools.scores_from_autograded(nb, scores[f"mutant-{mutant}"])


@pytest.fixture(scope="class")
def graded_course(request, tmp_path_factory, root):
    """One course per module: solution, blank release, the samples of variants and mutants
    (:func:`autograder.dev.catalogue.variants_through_nbgrader`, :func:`through_nbgrader`), autograded once."""
    module_id = request.cls.MODULE_ID
    course = fixture_courses.make_course(tmp_path_factory.mktemp(module_id), [module_id], root)
    released = fixture_courses.release(course, module_id)
    solution = nbtools.read(root / "solutions" / module_id / f"{module_id}.ipynb")
    measured = nbtools.read(root / "solutions" / module_id / f"{module_id}.ipynb")
    measured.cells.append(nbtools.code(PEAK_CELL))  # a cell of the student's own after the last: the kernel's peak
    fixture_courses.submit(course, module_id, "solution", measured)
    fixture_courses.submit(course, module_id, "blank", released)
    cat = CATALOGUES.get(module_id)
    students = {}
    if cat is not None:
        for name in through_nbgrader(cat):
            mutant = cat.MUTANTS[name]
            student = f"mutant-{name}"
            fixture_courses.submit(course, module_id, student, nbtools.substitute(solution, mutant.answers))
            students[student] = ("mutant", mutant)
        together = variants_together(cat.VARIANTS, variants_through_nbgrader(cat.VARIANTS))
        for i, (names, answers) in enumerate(together):
            student = f"variants-{i}"  # the first variant of each function, as few notebooks as keep them apart
            fixture_courses.submit(course, module_id, student, nbtools.substitute(solution, answers))
            students[student] = ("variant", names)
    own_answers, _ = own_code.cohort_answers(module_id)
    if own_answers:  # the course's own code handed in (autograder/dev/own_code.py), one way per function
        fixture_courses.submit(course, module_id, "own-code", nbtools.substitute(solution, own_answers))
    fixture_courses.autograde(course, module_id)
    return module_id, course, released, fixture_courses.scores(course, module_id), students


class _NbgraderModule:
    """Every module's tests, one class per module so that `--dist loadscope` runs modules in parallel."""

    MODULE_ID = ""


    def test_released_copy_is_committed(self, graded_course, root):
        module_id, _, released, _, _ = graded_course
        committed = root / "exercises" / module_id / f"{module_id}.ipynb"
        assert committed.exists(), f"{committed} missing: run `make release`"
        assert committed.read_text() == released.read_text(), (
            f"{committed} is stale: solutions/ changed after the last `make release`")

    def test_solution_scores_full_marks(self, graded_course):
        _, _, _, scores, _ = graded_course
        grades = scores["solution"]
        assert grades and all(s == m for s, m in grades.values()), grades

    def test_solution_runs_top_to_bottom_within_binders_memory(self, graded_course):
        """The solution notebook, every cell run by nbgrader: none failed, its checks showed correct lines, and its
        kernel stayed under the memory a Binder gives (2 GB)."""
        module_id, course, _, _, _ = graded_course
        nb = nbtools.read(fixture_courses.autograded_notebook(course, module_id, "solution"))
        ran = [c for c in nb.cells[:-1] if c.cell_type == "code" and c.source.strip()]
        assert ran and all(c.execution_count for c in ran), "some cells did not run"
        errors = [nbtools.grade_id(c) or c.source[:60] for c in ran if any(o.output_type == "error" for o in c.outputs)]
        assert not errors, f"cells of the solution failed: {errors}"
        shown = " ".join(str(o.get("data", {}).get("text/html", "")) for c in ran for o in c.outputs)
        assert "autograder-correct" in shown, "the solution's checks did not show a correct line"
        peak = peak_mb("".join(o.get("text", "") for o in nb.cells[-1].outputs))
        assert peak < PEAK_LIMIT_MB, f"the kernel peaked at {peak:.0f} MB; Binder gives 2 GB"

    def test_blank_release_scores_zero_not_attempted(self, graded_course, root):
        module_id, course, _, scores, _ = graded_course
        grades = scores["blank"]
        assert grades and all(s == 0 for s, _ in grades.values()), grades
        nb = nbtools.read(fixture_courses.autograded_notebook(course, module_id, "blank"))
        for test_id, cell in nbtools.test_cells(nb).items():
            text = " ".join(str(o.get("evalue", "")) + " ".join(o.get("traceback", [])) for o in cell.outputs)
            assert "[not attempted]" in text, f"{test_id}: {text[:300]}"

    def test_one_result_per_check_call(self, graded_course):
        """What the catalogue test reads rests on this: every call in a test cell shows one result."""
        module_id, course, _, _, _ = graded_course
        nb = nbtools.read(fixture_courses.autograded_notebook(course, module_id, "solution"))
        shown = {t: sum(RESULT_MIME in o.get("data", {}) for o in c.outputs) for t, c in nbtools.test_cells(nb).items()}
        calls = {t: nbtools.check_calls(c.source) for t, c in nbtools.test_cells(nb).items()}
        assert shown == calls

    def test_catalogue_through_nbgrader(self, graded_course):
        """Every variant and each sampled mutant judged as the in-process run judges it (the same assertions,
        `autograder.dev.catalogue`), from what real nbgrader wrote: the gradebook's points, the outputs' results."""
        module_id, course, _, scores, students = graded_course
        problems = []
        for student, (kind, entry) in students.items():
            if kind == "mutant" and entry.needs_cuda and not torch.cuda.is_available():
                continue
            nb = nbtools.read(fixture_courses.autograded_notebook(course, module_id, student))
            judged = nbtools.scores_from_autograded(nb, scores[student])
            if kind == "mutant":
                problems += mutant_problems(student.split("-", 1)[1], entry, judged)
            else:
                problems += variant_problems(" + ".join(entry), judged)
        assert not problems, problems

    def test_single_mutants_findings(self, graded_course):
        """What tests/test_catalogue.py asserts of single mutants beyond the catalogue (partial credit for
        repairs, owners named in one message), read from this run."""
        module_id = graded_course[0]
        name, cat = NAMES.get(module_id), CATALOGUES.get(module_id)
        repairs = [m for m in getattr(cat, "MUTANTS", {}) if m.startswith("repair_left_")]
        findings = [m for n, m in FINDINGS if n == name]
        if not repairs and not findings:
            pytest.skip("no single-mutant findings for this module")
        for mutant in repairs:
            planted_bug_costs_its_own_cells(cat, mutant, _judged(graded_course, mutant))
        for mutant in findings:
            FINDINGS[name, mutant](_judged(graded_course, mutant))

    def test_the_courses_own_code_scores_zero_in_a_cohort(self, graded_course):
        """Each way of autograder/dev/own_code.py that a cohort run grades: every cell of its function scores 0,
        the output naming what ran; the other functions keep their marks."""
        module_id, course, _, scores, _ = graded_course
        _, functions = own_code.cohort_answers(module_id)
        if not functions:
            pytest.skip("no way of handing in the course's code is graded through nbgrader for this module")
        nb = nbtools.read(fixture_courses.autograded_notebook(course, module_id, "own-code"))
        judged = nbtools.scores_from_autograded(nb, scores["own-code"])
        for cell, (got, full, text, code) in judged.items():
            function = next((f for f in functions if cell.startswith(f"test_{f}_")), None)
            if function is None:
                assert got == full, (cell, text)
            else:
                assert got == 0 and code == "course_code" and functions[function] in text, (cell, text)

    def test_autograded_output_is_a_diagnosis(self, graded_course):
        module_id, course, _, _, _ = graded_course
        mutant = next((s for s in graded_course[4] if s.startswith("mutant-")), None)
        if mutant is None:
            pytest.skip("this module has no catalogue yet")
        nb = nbtools.read(fixture_courses.autograded_notebook(course, module_id, mutant))
        text = "".join(str(o) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
        assert "Seen:" in text and "Owner:" in text
        assert "File " not in text or "site-packages/autograder" not in text, "grader traceback leaked"


for _module_id in MODULE_IDS:
    _name = f"TestNbgrader{_module_id.split('-')[0]}"
    globals()[_name] = type(_name, (_NbgraderModule,), {"MODULE_ID": _module_id})
