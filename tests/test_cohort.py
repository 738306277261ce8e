"""The cohort tools: collect, grade (sandboxed, parallel, hostile input), feedback, export, report.

The slow tests share ONE cohort run of module 01: honest students and the whole hostile
corpus graded together with ``--workers 2`` in the sandbox; the honest students are also
graded by plain nbgrader in a separate course as the baseline they must match exactly.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.cohort import collect, privacy
from autograder.cohort.course import Course
from autograder.cohort.kernels import confinement
from autograder.cohort.kernels.box import prepare_box
from autograder.cohort.kernels.bwrap import BWRAP_ENV, bwrap_argv, probe
from autograder.cohort.kernels.confinement import Limits
from autograder.cohort.records import StudentEntry
from autograder.cohort.run import canary_verdict
from autograder.cohort.run.errors import GradingError
from autograder.cohort.run.grade import GradeOptions, grade
from autograder.cohort.run.machine import resolve_sandbox
from autograder.cohort.views import feedback, report
from autograder.cohort.worker import canary, scan
from autograder.cohort.worker import check_results as outcomes
from autograder.cohort.worker.submission import OUTPUT_LIMITS
from autograder.dev import fixture_courses, hostile, nbtools
from autograder.dev.synthetic import load_catalogue, pick_mutant

MODULE = "01-tensors"
LIMITS = Limits(notebook_seconds=18, memory_mb=2048, file_mb=64, disk_mb=128)  # the slow notebook sleeps 4 x 5 s
CELL_TIMEOUT = 6  # the endless loops burn a core until it: as short as an honest cell allows under load
HONEST_MUTANTS = ["standardize_dim1", "pairwise_keeps_feature_dim"]
HONEST_VARIANTS = ["pairwise_cdist"]


@pytest.fixture(scope="module")
def solution(root):
    return nbtools.read(root / "solutions" / MODULE / f"{MODULE}.ipynb")


@pytest.fixture(scope="module")
def release(root):
    return nbtools.read(root / "exercises" / MODULE / f"{MODULE}.ipynb")


def _empty_course(path: Path, root: Path) -> Course:
    fixture_courses.make_course(path, [MODULE], root)
    return Course.open(path)


# ------------------------------------------------------------------------------------------
# collect


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


def test_student_ids_from_lms_names():
    of = collect.student_of
    assert of("alice/01-tensors.ipynb", MODULE) == "alice"
    assert of("Bob Smith/work/notebook.ipynb", MODULE) == "bob-smith"
    assert of("doejane_12345_67890_01-tensors.ipynb", MODULE) == "doejane"
    assert of("doejane_LATE_12345_01-tensors.ipynb", MODULE) == "doejane"
    assert of("Jane Doe_4242_assignsubmission_file_/01-tensors.ipynb", MODULE) == "jane-doe"
    assert of("01-tensors_jdoe_attempt_2024-05-01-10-11-12_01-tensors.ipynb", MODULE) == "jdoe"
    assert of("01-tensors.ipynb", MODULE) is None
    assert of("x/ab.ipynb", MODULE, re.compile(r"^(?P<student>\w+)/")) == "x"


def test_collect_from_zip(tmp_path, root, solution):
    course = _empty_course(tmp_path / "course", root)
    good = nbformat.writes(solution).encode()
    download = tmp_path / "download.zip"
    download.write_bytes(_zip({
        "alice/01-tensors.ipynb": good,
        "bob_111_222_01-tensors.ipynb": good,
        "Carol King_77_assignsubmission_file_/01-tensors.ipynb": good,
        "dave/my work.ipynb": good,  # wrong name: stored under the assignment's
        "erin/01-tensors.ipynb": good[: len(good) // 2],  # corrupt
        "frank/01-tensors.ipynb": b"",  # empty
        "hal/01-tensors.ipynb": b'{"cells": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",  # nested past a JSON reader
        "gina/old.ipynb": b"{}",
        "gina/01-tensors.ipynb": good,  # two notebooks: the right name wins
        "__MACOSX/alice/._01-tensors.ipynb": b"junk",
        "notes.txt": b"not a notebook",
        "orphan.ipynb": good,  # no student in the name
    }))
    result = collect.collect(course, MODULE, download)
    placed = {s for s, _, _ in result.placed}
    assert placed == {"alice", "bob", "carol-king", "dave", "erin", "frank", "gina", "hal"}
    for student in placed:
        assert (course.submitted(student, MODULE) / f"{MODULE}.ipynb").exists()
    assert (course.submitted("gina", MODULE) / f"{MODULE}.ipynb").read_bytes() == good
    problems = dict(result.problems)
    assert "not a readable notebook" in problems["erin/01-tensors.ipynb"]
    assert problems["frank/01-tensors.ipynb"] == "empty file"
    assert "not a readable notebook (RecursionError" in problems["hal/01-tensors.ipynb"]
    assert "stored as 01-tensors.ipynb" in problems["dave/my work.ipynb"]
    ignored = dict(result.ignored)
    assert "orphan.ipynb" in ignored and "gina/old.ipynb" in ignored and "notes.txt" in ignored
    again = collect.collect(course, MODULE, download)
    assert {status for _, _, status in again.placed} == {"unchanged"}


def test_collect_from_folder(tmp_path, root, solution):
    course = _empty_course(tmp_path / "course", root)
    folder = tmp_path / "downloads"
    for student in ("amy", "ben"):
        (folder / student).mkdir(parents=True)
        nbformat.write(solution, str(folder / student / f"{MODULE}.ipynb"))
    result = collect.collect(course, MODULE, folder)
    assert sorted(s for s, _, _ in result.placed) == ["amy", "ben"]
    assert not result.problems


# ------------------------------------------------------------------------------------------
# static scan


def test_scan_flags_reaches_into_the_grader():
    source = """
import sys, builtins, importlib, ctypes
from autograder.checks import m01_tensors
sys.modules["autograder"] = None
get_ipython().input_transformers_cleanup.append(str)
import os; os._exit(0)
check.standardize_values = print
open("../../gradebook.db")
!ls
"""
    rules = {f.rule for f in scan.scan_source(source, "standardize")}
    assert {"sys-modules", "builtins", "import-machinery", "ctypes", "autograder", "ipython-shell", "hard-exit",
            "gradebook", "shell-escape"} <= rules
    # the check that called an answer, reached through frames or a function's globals; work done in a thread
    for reach in ("error.__traceback__.tb_frame.f_back.f_globals['fail'] = print",
                  "g = check.standardize_values.__wrapped__.__globals__", "f = gen.gi_frame.f_locals",
                  "standardize.__code__ = other.__code__", "import threading", "from concurrent import futures"):
        assert {f.rule for f in scan.scan_source(reach, "standardize")} & {"frames", "processes"}, reach


def test_a_cell_too_deep_to_walk_is_scanned_line_by_line_and_flagged():
    """A sum of twenty thousand terms parses but is too deep for the scan's walk: it is scanned line by line (what
    it reaches for still shows) and flagged as unreadable, and it does not stop the worker."""
    deep = "import sys\nsys.modules\ny = " + "+".join(["x"] * 20000)
    assert {f.rule for f in scan.scan_source(deep, "standardize")} == {"sys-modules", "unreadable"}


def test_scan_leaves_honest_work_alone(solution, release):
    catalogue = load_catalogue(MODULE)
    locked = {nbtools.grade_id(c): c.source for c in solution.cells
              if c.get("metadata", {}).get("nbgrader", {}).get("locked")}
    notebooks = [solution, release] + [nbtools.substitute(solution, a) for a in catalogue.VARIANTS.values()] + [
        nbtools.substitute(solution, m.answers) for n, m in catalogue.MUTANTS.items()
        if not m.zero and n != "always_equal_object"]  # stand-ins that fake equality are not honest work
    for nb in notebooks:
        assert scan.scan_notebook(nb, locked) == []
        assert scan.edited_locked(nb, locked) == []


# ------------------------------------------------------------------------------------------
# canary


def _run_cells(cells, namespace):
    """Execute cells in-process, recording outputs the way a kernel would (error or nothing)."""
    from autograder.core import CheckFailed

    for cell in cells:
        cell.outputs, cell.execution_count = [], 1
        try:
            exec(compile(cell.source, "cell", "exec"), namespace)
        except CheckFailed as error:
            cell.outputs.append(nbformat.v4.new_output("error", ename="CheckFailed", evalue=str(error), traceback=[]))
        except Exception as error:  # noqa: BLE001 - recorded like a kernel would
            cell.outputs.append(nbformat.v4.new_output("error", ename=type(error).__name__, evalue=str(error),
                                                       traceback=[]))


def test_canary_fails_with_its_nonce_against_the_real_checks(solution):
    tests = [(t, c.source) for t, c in nbtools.test_cells(solution).items()]
    functions = list(nbtools.answer_cells(solution))
    nonce = canary.new_nonce()
    nb = canary.append(nbformat.v4.new_notebook(), tests, functions, nonce)
    namespace: dict = {}
    exec("from autograder.checks import m01_tensors as check", namespace)
    _run_cells(nb.cells, namespace)
    seen = canary.observe(nb, nonce)
    assert seen["setup"] == "ok" and all(v == "nonce" for k, v in seen.items() if k != "setup"), seen
    assert canary_verdict.verdict(seen).status == "ok"
    # the copies are the test cells, verbatim
    assert [c.source for c in nb.cells[1:]] == [s for _, s in tests]
    assert canary.strip(nb).cells == []


def test_canary_catches_a_patched_check(solution):
    tests = [(t, c.source) for t, c in nbtools.test_cells(solution).items()]
    nonce = canary.new_nonce()
    nb = canary.append(nbformat.v4.new_notebook(), tests, list(nbtools.answer_cells(solution)), nonce)
    namespace: dict = {}
    exec("from autograder.checks import m01_tensors as real\n"
         "import types\ncheck = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real)})\n"
         "check.standardize_values = lambda *a, **k: None", namespace)
    _run_cells(nb.cells, namespace)
    verdict = canary_verdict.verdict(canary.observe(nb, nonce))
    assert verdict.compromised and "test_standardize_values passed" in verdict.detail


def test_canary_verdict_rules():
    assert canary_verdict.verdict({}).status == "not run"
    assert canary_verdict.verdict({"setup": "ok", "t1": "nonce"}).status == "ok"
    assert canary_verdict.verdict({"setup": "ok", "t1": "passed"}).compromised
    assert canary_verdict.verdict({"setup": "ok", "t1": "error:NameError"}).compromised
    expected = canary_verdict.expectations({"setup": "ok", "t1": "checkfailed", "t2": "passed", "t3": "nonce"})
    assert expected == {"t1": "checkfailed", "t3": "nonce"}
    assert canary_verdict.verdict({"setup": "ok", "t1": "nonce", "t2": "passed", "t3": "nonce"}, expected).status == "ok"
    assert canary_verdict.verdict({"setup": "ok", "t1": "checkfailed", "t3": "checkfailed"}, expected).compromised


# ------------------------------------------------------------------------------------------
# reading outcomes, the report's analysis


def test_report_analysis_counts_each_student_once_per_function():
    def t(test, fn, outcome, text="", code=""):
        return outcomes.TestOutcome(test, fn, outcome, text, code)

    def entry(status, tests):
        return StudentEntry(status=status, reason="", score=0.0, max_score=3.0, tests=tests)

    wrong = "[incorrect] f — Seen: the wrong thing. Owner: o. Do: d."
    students = {
        "a": entry("graded", [t("test_f_1", "f", "correct"), t("test_g_1", "g", "correct")]),
        "b": entry("graded", [t("test_f_1", "f", "incorrect", wrong, "wrong_value"),
                              t("test_f_2", "f", "incorrect", wrong, "wrong_value"),
                              t("test_g_1", "g", "not attempted", "[not attempted] g — stub")]),
        "c": entry("failed", []),
    }
    stats = {s.function: s for s in report.outcomes_of(["f", "g"], students)}
    assert stats["f"].counts == {"correct": 1, "incorrect": 1, "not attempted": 0, "errored": 1}
    assert stats["g"].counts["not attempted"] == 1
    assert [(d.key, d.students) for d in stats["f"].diagnoses] == [("wrong_value", 1)]


# ------------------------------------------------------------------------------------------
# the sandbox's configuration


def test_sandbox_auto_falls_back_loudly_and_bwrap_refuses(monkeypatch):
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    sandboxed, warning = resolve_sandbox("auto", others=[])
    assert not sandboxed and "SANDBOX UNAVAILABLE" in warning and "bubblewrap" in warning
    with pytest.raises(GradingError, match="--sandbox bwrap: cannot start the sandbox"):
        resolve_sandbox("bwrap")


def test_sandbox_auto_never_falls_back_where_other_people_work(monkeypatch):
    """On a machine with other accounts (or under JupyterHub) only --sandbox off, by name, grades unconfined."""
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    with pytest.raises(GradingError, match="other people use it \\(ada, bob\\).*--sandbox off"):
        resolve_sandbox("auto", others=["ada", "bob"])
    sandboxed, warning = resolve_sandbox("off", others=["ada", "bob"])
    assert not sandboxed and "asked for" in warning and "ada, bob" in warning
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    assert "the users of this JupyterHub" in privacy.other_people()


def test_a_sandbox_whose_own_mounts_fail_stops_the_run_whatever_the_mode(monkeypatch, tmp_path):
    """bubblewrap runs, but the course's mount layout cannot be made (the package's mount point inside a read-only
    bind, as when the shared environment sat where the package is mounted): the grader's fault, so ``auto`` stops
    too, naming the failing mount, and no kernel starts."""
    if probe() is not None:
        pytest.skip("bubblewrap cannot run here")
    from autograder.cohort.kernels import bwrap as bw

    env = tmp_path / "env"
    (env / "lib").mkdir(parents=True)
    monkeypatch.setattr(bw, "package_root", lambda: str(env))  # a mount point inside a read-only bind
    monkeypatch.setattr(bw, "python_dirs", lambda: [str(env)])
    check = bw.diagnose()
    assert check.kind == "layout" and "Read-only file system" in check.reason and str(env) in check.reason, check
    for mode in ("auto", "bwrap"):
        with pytest.raises(GradingError, match="grader's fault.*no kernel was started|no kernel was started.*grader's fault"):
            resolve_sandbox(mode, others=[])


def test_the_package_is_mounted_where_no_bound_path_lies(monkeypatch):
    """The README's shared environment sits at /opt/torch-ledger: the package goes elsewhere, and nowhere that
    equals, holds or lies inside a bound path."""
    assert confinement.collides("/opt/torch-ledger", ["/opt/torch-ledger"]) == "/opt/torch-ledger"
    assert confinement.collides("/opt/torch-ledger", ["/opt"]) == "/opt"
    assert confinement.collides("/opt/torch-ledger", ["/opt/torch-ledger/lib/python3.11/site-packages"])
    assert not confinement.collides("/opt/torch-ledger", ["/opt/torch-ledger-2", "/usr", "/opt/conda"])
    confinement.package_root.cache_clear()
    monkeypatch.setattr(confinement, "python_dirs", lambda: ["/opt/torch-ledger", "/usr/lib/python3.11"])
    try:
        place = confinement.package_root()
        assert place != "/opt/torch-ledger" and place in confinement.PACKAGE_ROOTS
    finally:
        confinement.package_root.cache_clear()


def test_cli_grade_with_required_sandbox_fails_clearly(tmp_path, root, monkeypatch, capsys):
    from autograder.__main__ import main

    course = _empty_course(tmp_path / "course", root)
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    before = os.umask(0o022)
    try:
        assert main(["grade", MODULE, "--course", str(course.root), "--sandbox", "bwrap"]) == 2
        # the command wrote owner-only but gives its caller's umask back (a venv made later in the same
        # process with 077 could not be run by the sandbox's uid)
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(before)
    assert "cannot start the sandbox" in capsys.readouterr().err


def test_cli_lists_the_commands(capsys):
    from autograder.__main__ import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("collect", "grade", "feedback", "export", "report", "demo-cohort", "bench-grade", "bench-checks"):
        assert command in out


def test_the_commands_are_described_without_importing_them():
    """The parser shows each command's module docstring, read as text: no command pays for the others' imports
    (similarity's torch, exchange's nbgrader server side: about 3 s of CPU) before it starts."""
    import subprocess
    import sys

    from autograder.__main__ import parser
    from autograder.cohort.run import grade as grade_module
    from autograder.cohort.views import similarity

    commands = next(a for a in parser()._actions if a.dest == "command").choices
    assert commands["grade"].description == grade_module.__doc__
    assert commands["similarity"].description == similarity.__doc__
    code = ("import sys; from autograder.__main__ import parser; parser(); "
            "print(sorted(m for m in ('torch', 'nbgrader', 'distributed', 'autograder.hints') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_sandbox_binds_nothing_of_the_course(tmp_path, root):
    if probe() is not None:
        pytest.skip("bubblewrap cannot run here")
    box = prepare_box(tmp_path / "box", 61999)
    argv = bwrap_argv(box, 61999, Limits())
    binds = [argv[i + 1] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
    assert str(root / "autograder") in binds
    assert not any(b in (str(root), str(root / "solutions"), str(root / "gradebook.db")) for b in binds)
    assert "--unshare-net" in argv and "--clearenv" in argv


# ------------------------------------------------------------------------------------------
# one cohort run: honest students and the whole hostile corpus, --workers 2, sandbox on


def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def cohort(tmp_path_factory, root, solution, release):
    problem = probe()
    if problem is not None:
        pytest.skip(f"the sandbox cannot run here: {problem}")
    catalogue = load_catalogue(MODULE)
    honest = {"solution": solution, "blank": release}
    honest.update({f"mutant-{n}": nbtools.substitute(solution, catalogue.MUTANTS[n].answers) for n in HONEST_MUTANTS})
    honest.update({f"variant-{n}": nbtools.substitute(solution, catalogue.VARIANTS[n]) for n in HONEST_VARIANTS})

    base = tmp_path_factory.mktemp("cohort")
    alone = fixture_courses.make_course(base / "alone", [MODULE], root)  # baseline: plain nbgrader, honest students only
    fixture_courses.release(alone, MODULE)
    for student, nb in honest.items():
        fixture_courses.submit(alone, MODULE, student, nb)
    fixture_courses.autograde(alone, MODULE, kernels="cold")  # a new interpreter per notebook: independent of warm kernels
    baseline = fixture_courses.scores(alone, MODULE)

    course_dir = fixture_courses.make_course(base / "course", [MODULE], root)
    fixture_courses.release(course_dir, MODULE)
    for student, nb in honest.items():
        fixture_courses.submit(course_dir, MODULE, student, nb)
    answers, breaks = pick_mutant(catalogue)
    ctx = hostile.Context(solution, release, course_dir.resolve(), MODULE, answers, breaks, cell_timeout=CELL_TIMEOUT)
    mutant_student = f"mutant-{next(n for n in HONEST_MUTANTS if catalogue.MUTANTS[n].answers == answers)}"
    for case in hostile.CASES:
        hostile.place(hostile.build(case, ctx), course_dir / "submitted" / f"hostile-{case.name}" / MODULE, MODULE)
    before = _digest(course_dir / "submitted")
    course = Course.open(course_dir)
    record = grade(course, MODULE, GradeOptions(workers=2, sandbox="bwrap", limits=LIMITS, cell_timeout=CELL_TIMEOUT,
                                                progress=False))
    # What the run wrote into the gradebook, read once for the tests that only read it (a regrade test reads anew).
    with course.gradebook() as gb:
        flagged = {s: gb.find_submission_notebook(MODULE, MODULE, s).flagged for s in record.students}
    return {"course": course, "record": record, "baseline": baseline, "honest": list(honest), "before": before,
            "mutant": mutant_student, "scores": _scores(course), "flagged": flagged}


def _scores(course: Course) -> dict:
    return fixture_courses.scores(course.root, MODULE)


@pytest.mark.slow
def test_honest_grades_match_plain_nbgrader_alone(cohort):
    scores = cohort["scores"]
    for student in cohort["honest"]:
        assert scores[student] == cohort["baseline"][student], student
        entry = cohort["record"].students[student]
        assert not entry.flags, (student, entry.flags)
        assert entry.canary_verdict.status == "ok"


@pytest.mark.slow
def test_calibration_ran_with_full_marks(cohort):
    calibration = cohort["record"].calibration
    assert calibration.full_marks and calibration.canary["setup"] == "ok"
    assert cohort["record"].sandbox.mode == "bwrap"


def _autograded_text(course: Course, student: str) -> str:
    path = course.autograded(student, MODULE) / f"{MODULE}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    assert not any(canary.is_canary(c) for c in nb.cells), "canary cells left in the autograded notebook"
    return json.dumps([c.get("outputs", []) for c in nb.cells if c.cell_type == "code"])


@pytest.mark.slow
@pytest.mark.parametrize("case", hostile.CASES, ids=lambda c: c.name)
def test_hostile_case(cohort, case):
    course, record = cohort["course"], cohort["record"]
    student = f"hostile-{case.name}"
    entry = record.students[student]
    scores, flagged = cohort["scores"][student], cohort["flagged"][student]
    if case.expect == "failed":
        assert entry.status == "failed", entry
        assert case.reason in entry.reason, entry.reason
        assert all(s == 0 for s, _ in scores.values())
        assert not course.autograded(student, MODULE).exists()
    elif case.expect == "compromised":
        assert entry.status == "graded" and entry.compromised, entry
        assert entry.canary_verdict.status == "compromised"
        assert all(s == 0 for s, _ in scores.values()), scores
        assert flagged
    else:
        assert entry.status == "graded" and not entry.compromised, entry
        if case.same_as:
            honest = {"solution": "solution", "blank": "blank", "mutant": cohort["mutant"]}[case.same_as]
            assert scores == cohort["baseline"][honest], (scores, cohort["baseline"][honest])
        if case.reason:
            assert case.reason in _autograded_text(course, student) + " ".join(n.text for n in entry.notes), entry.notes
        graded = course.autograded(student, MODULE) / f"{MODULE}.ipynb"
        assert graded.stat().st_size < OUTPUT_LIMITS["notebook_bytes"] + 2**20, graded.stat().st_size
        if case.name in ("deleted-test-cell", "moved-test-cell", "duplicated-test-cell", "lost-metadata"):
            # the student's doing, restored from the release: graded, and flagged for the instructor with what changed
            assert any(f.kind == "structure changed" and case.reason in f.detail for f in entry.flags), entry
        if case.name == "output-flood":  # the head of the output kept, the submission flagged
            assert any(f.kind == "output trimmed" for f in entry.flags), entry.flags
            assert "x" * 1000 in _autograded_text(course, student)
    if case.flagged_by_scan:
        assert any(f.kind == "scan" for f in entry.flags), entry.flags
        assert flagged
    assert entry.reason or entry.status == "graded"


@pytest.mark.slow
def test_always_equal_object_loses_the_points(cohort):
    scores = cohort["scores"]["hostile-always-equal"]
    assert scores["test_pairwise_sq_dists_values"][0] == 0 and scores["test_pairwise_sq_dists_shape"][0] == 0


@pytest.mark.slow
def test_submissions_are_never_modified(cohort):
    assert _digest(cohort["course"].root / "submitted") == cohort["before"]


@pytest.mark.slow
def test_rerun_of_some_students_gives_the_same_grades(cohort):
    course = cohort["course"]
    students = [cohort["mutant"], "hostile-input-transformer"]
    before = {s: cohort["scores"][s] for s in students}
    grade(course, MODULE, GradeOptions(workers=1, students=students, sandbox="bwrap", limits=LIMITS,
                                       cell_timeout=CELL_TIMEOUT, progress=False))
    after = _scores(course)
    assert {s: after[s] for s in students} == before
    record = json.loads((course.reports(MODULE) / "grading.json").read_text())
    assert set(record["students"]) == set(cohort["record"].students), "a partial run must keep the others"
    assert _digest(course.root / "submitted") == cohort["before"]


@pytest.mark.slow
def test_feedback_shows_diagnoses_never_test_code(cohort, solution):
    course = cohort["course"]
    pages = feedback.generate(course, MODULE)
    assert len(pages) == len(cohort["record"].students)
    test_lines = {line.strip() for cell in nbtools.test_cells(solution).values()
                  for line in cell.source.splitlines() if line.strip()}
    for page in pages:
        text = page.read_text()
        leaked = [line for line in test_lines if line in text]
        assert not leaked, (page, leaked)
        assert "Traceback" not in text
    mutant = (course.feedback(cohort["mutant"], MODULE) / f"{MODULE}.html").read_text()
    assert "Seen:" in mutant and "Owner:" in mutant and "Do:" in mutant
    broken = (course.feedback("hostile-corrupt-json", MODULE) / f"{MODULE}.html").read_text()
    assert "could not be graded" in broken and "not valid JSON" in broken


@pytest.mark.slow
def test_export_writes_every_student(cohort):
    from autograder.cohort.views.export import export

    path = export(cohort["course"])
    rows = list(csv.DictReader(path.open()))
    assert {r["student_id"] for r in rows} == set(cohort["record"].students)
    solution = next(r for r in rows if r["student_id"] == "solution")
    assert float(solution["score"]) == float(solution["max_score"]) > 0


@pytest.mark.slow
def test_report_names_the_cohort_misconceptions_and_flags(cohort):
    course = cohort["course"]
    page = report.write(course, MODULE)
    text = page.read_text()
    folder = course.reports(MODULE)
    for png in ("outcomes.png", "scores.png", "diagnoses.png"):
        assert (folder / png).stat().st_size > 1000
    assert "standardize" in text and "hostile-input-transformer" in text and "compromised" in text
    stats = {s.function: s for s in report.analyse(cohort["record"])}
    assert stats["standardize"].diagnoses, "the standardize mutant's diagnosis is missing"
    assert "without the sandbox" not in text.lower()


@pytest.mark.slow
def test_grading_without_a_sandbox_warns_in_output_and_report(tmp_path, root, solution, monkeypatch, capsys):
    course_dir = fixture_courses.make_course(tmp_path / "course", [MODULE], root)
    fixture_courses.release(course_dir, MODULE)
    fixture_courses.submit(course_dir, MODULE, "solution", solution)
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    monkeypatch.setattr(privacy, "other_people", lambda: [])  # a machine of one's own: auto may fall back
    course = Course.open(course_dir)
    record = grade(course, MODULE, GradeOptions(workers=1, sandbox="auto", limits=LIMITS, progress=False))
    assert "SANDBOX UNAVAILABLE" in capsys.readouterr().err
    assert record.sandbox.mode == "off"
    assert record.students["solution"].score == record.students["solution"].max_score
    assert "without the sandbox" in report.write(course, MODULE).read_text().lower()


def test_an_unconfined_kernel_keeps_every_cache_in_a_private_folder_of_its_own(tmp_path):
    """Without the sandbox, IPython's profile (and its startup folder), matplotlib's, inductor's and temporary files
    are under the notebook's box, mode 0700: never a fixed /tmp path another user could create first."""
    box = prepare_box(tmp_path / "box", 61999)
    env = confinement.unconfined_env(box / "home", box / "lib")
    for key in ("IPYTHONDIR", "MPLCONFIGDIR", "TORCHINDUCTOR_CACHE_DIR", "TMPDIR", "XDG_CACHE_HOME"):
        place = Path(env[key])
        assert place.is_relative_to(box / "private"), (key, env[key])
        assert (place.parent.stat().st_mode & 0o777) == 0o700 and place.is_dir(), key
    assert env["HOME"] == str(box / "home") and env["PYTHONPATH"] == str(box / "lib")


def test_grade_warns_when_nbgrader_or_the_course_hold_another_package(tmp_path):
    """A copy of the running package is the same package; a changed check, or none for nbgrader, is named."""
    import shutil

    from autograder.cohort.kernels.preflight import package_mismatch

    running = confinement.package_dir()
    same = tmp_path / "same" / "autograder"
    shutil.copytree(running, same, ignore=shutil.ignore_patterns("__pycache__"))
    assert package_mismatch(running, running, str(same)) == ""
    (same / "checks" / "m01_tensors.py").write_text("# edited\n", encoding="utf-8")
    warning = package_mismatch(running, running, str(same))
    assert "the course directory holds " + str(same) in warning and "pip install ." in warning
    assert "cannot import the course package" in package_mismatch(running, "")
