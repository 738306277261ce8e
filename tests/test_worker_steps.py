"""The grading worker's steps, each on its own, on notebooks built from cell factories.

``autograde`` (nbgrader with a sandboxed kernel) is the one step left to the cohort tests,
which run every step together on real submissions.
"""

from __future__ import annotations

import copy
import shutil

import nbformat
import pytest
from traitlets.config import Config

from autograder import core
from autograder.cohort.jobs import Job, RunSpec, pack_folder
from autograder.cohort.kernels.confinement import BASE_UID, Limits
from autograder.cohort.records import (
    GRADER,
    STUDENT,
    Forced,
    RunLimits,
    RunRecord,
    Sandbox,
    StudentEntry,
    SubmissionResult,
)
from autograder.cohort.worker import canary
from autograder.cohort.worker.failures import KernelRun, explain_failure
from autograder.cohort.worker.grader import Grader, Grading, _CellTracker
from autograder.cohort.worker.submission import LogCapture
from autograder.dev import nbtools

NB = "demo"
LOCKED = "import torch\nfrom autograder.checks import m01_tensors as check"
TEST = "check.standardize_values(standardize)"


def _notebook(answer="def standardize(x):\n    return (x - x.mean(0)) / x.std(0)", locked=LOCKED):
    return nbtools.new_notebook([nbtools.code(locked, "setup"), nbtools.answer("standardize", answer),
                                 nbtools.test("test_standardize_values", TEST, 2)])


def _texts(notes) -> list[str]:
    return [n.text for n in notes]


@pytest.fixture
def worker(tmp_path):
    spec = RunSpec(config=Config(), template_db=b"", assignment=NB, notebook=NB, sandboxed=False,
                   limits=Limits(notebook_seconds=60), cell_timeout=10, tests=[("test_standardize_values", TEST)],
                   functions=["standardize"], locked={"setup": LOCKED}, data_files={"data.csv": b"1,2\n"})
    return Grader(spec, BASE_UID + 16 * 4095, tmp_path / "scratch")


def _grading(tmp_path, files: dict, reference=False) -> Grading:
    folder = tmp_path / "submission"
    folder.mkdir(parents=True)
    for name, content in files.items():
        (folder / name).write_text(content) if isinstance(content, str) else nbformat.write(content, str(folder / name))
    student = "__reference__" if reference else "ada"
    return Grading(Job(1, student, pack_folder(folder), reference=reference), folder, SubmissionResult(student))


def test_the_steps_are_declared_in_order(worker):
    assert Grader.STEPS == ("read", "scan", "stage", "add_canary", "autograde", "observe_canary", "read_scores",
                            "read_outcomes", "trim_outputs", "collect_notes")
    assert all(callable(getattr(worker, f"step_{name}")) for name in Grader.STEPS)


def test_read_stops_the_run_on_a_notebook_that_is_not_json(worker, tmp_path):
    g = worker.run(_grading(tmp_path, {f"{NB}.ipynb": "{not json"}), steps=["read", "scan", "stage"])
    assert g.result.status == "failed" and "not valid JSON" in g.result.reason
    assert g.course is None, "no step after read ran"


def test_scan_reports_reaches_into_the_grader_and_edited_locked_cells(worker, tmp_path):
    nb = _notebook(answer="import sys\nsys.modules['autograder'] = None\ndef standardize(x):\n    return x",
                   locked=LOCKED + "\ncheck.standardize_values = print")
    g = worker.run(_grading(tmp_path, {f"{NB}.ipynb": nb}), steps=["read", "scan"])
    assert {f.rule for f in g.result.findings} >= {"sys-modules"}
    assert "edited locked cell setup — nbgrader restored it" in _texts(g.result.notes)
    honest = worker.run(_grading(tmp_path / "honest", {f"{NB}.ipynb": _notebook()}), steps=["read", "scan"])
    assert honest.result.findings == [] and honest.result.notes == []


def test_stage_keeps_notebooks_and_nbgrader_files_out_of_the_sandbox(worker, tmp_path):
    g = worker.run(_grading(tmp_path, {f"{NB}.ipynb": _notebook(), "other.ipynb": _notebook(),
                                       "notes.txt": "mine", "timestamp.txt": "2026-12-01 10:00:00"}),
                   steps=["read", "stage"])
    home = {p.name for p in (g.box / "home").iterdir()}
    assert home == {"notes.txt", "data.csv"}, home
    submitted = g.course / "submitted" / "ada" / NB
    assert {p.name for p in submitted.iterdir()} == {"notes.txt", "timestamp.txt"}
    assert (g.course / "gradebook.db").exists() and (g.course / "source" / NB / "data.csv").exists()


def test_add_canary_writes_the_working_copy_with_its_cells(worker, tmp_path):
    answer = "def standardize(x):\n    # centr\u00e9, \u00e9chelle \u2014 \U0001f600\n    return (x - x.mean(0)) / x.std(0)"
    g = worker.run(_grading(tmp_path, {f"{NB}.ipynb": _notebook(answer)}), steps=["read", "stage", "add_canary"])
    path = g.course / "submitted" / "ada" / NB / f"{NB}.ipynb"
    written = nbtools.read(path)
    assert g.nonce and any(canary.is_canary(c) for c in written.cells)
    assert [c.source for c in written.cells if not canary.is_canary(c)] == [c.source for c in _notebook(answer).cells]
    # nbgrader reads the plain JSON as the notebook nbformat's own writer would have given it
    assert nbformat.read(path, as_version=4) == nbformat.v4.reads(nbformat.v4.writes(g.nb))


def _graded(result: core.Result | None, error: dict | None = None, nonce="n0nce"):
    nb = _notebook()
    outputs = [nbformat.v4.new_output("display_data", data=result.mimebundle())] if result else []
    if error:
        outputs.append(nbformat.v4.new_output("error", traceback=[], **error))
    nb.cells[2].outputs = outputs
    canary.append(nb, [("test_standardize_values", TEST)], ["standardize"], nonce)
    return nb


def test_observe_canary_then_read_outcomes_from_the_checks_data(worker, tmp_path):
    g = _grading(tmp_path, {})
    wrong = core.Result("standardize", "values", core.INCORRECT, "the rows have mean 0", "the dim", "use dim 0",
                        code="wrong_dim")
    g.graded = _graded(wrong, {"ename": "CheckFailed", "evalue": wrong.text()})
    g.scores = {"test_standardize_values": (0.0, 2.0)}
    worker.run(g, steps=["observe_canary", "read_outcomes"])
    assert set(g.result.canary) >= {"setup", "test_standardize_values"}
    assert not any(canary.is_canary(c) for c in g.graded.cells), "canary cells are stripped"
    (test,) = g.result.tests
    assert (test.function, test.outcome, test.code, test.seen) == \
        ("standardize", "incorrect", "wrong_dim", "the rows have mean 0")
    assert g.result.first_error.as_dict() == {"cell": "test_standardize_values", "ename": "CheckFailed",
                                              "evalue": wrong.text()}


def test_collect_notes_and_pack_the_autograded_notebook(worker, tmp_path):
    g = worker.run(_grading(tmp_path, {f"{NB}.ipynb": _notebook()}), steps=["read", "stage"])
    g.graded = _notebook()
    g.graded.cells[1].outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                                                        traceback=[])]
    g.kernels.append(KernelRun(wall_killed=True))
    (g.course / "autograded" / "ada" / NB).mkdir(parents=True)
    worker.run(g, steps=["collect_notes"])
    assert "standardize raised ZeroDivisionError: division by zero" in _texts(g.result.notes)
    assert "the notebook's wall-clock limit stopped its kernel" in _texts(g.result.notes)
    packed = nbformat.reads(g.result.autograded[f"{NB}.ipynb"].decode(), as_version=4)
    assert packed.cells[1].outputs[0]["ename"] == "ZeroDivisionError"


def test_a_failure_is_explained_by_this_notebooks_kernel_and_cell():
    log = LogCapture()
    assert explain_failure(log, Limits(notebook_seconds=30), "cell 'test_f'", [KernelRun(wall_killed=True)]).reason == \
        "the notebook ran past its wall-clock limit (30 s) while running cell 'test_f'; its kernel was stopped"
    assert "wall-clock" not in explain_failure(log, Limits(notebook_seconds=30), "", []).reason


def _failed_with(*lines: str):
    import logging

    log = LogCapture()
    for line in lines:
        log.emit(logging.LogRecord("nbgrader", logging.ERROR, __file__, 0, line, None, None))
    return explain_failure(log, Limits(notebook_seconds=30), "the canary cells", [])


def test_a_grader_fault_names_the_machines_refusal_not_the_step_it_happened_in():
    """A full disk, a socket path too long, an unwritable folder: the cause and its advice are the machine's; the
    step (here the canary's cells) only says where.  Never the student's."""
    full = _failed_with("Traceback (most recent call last):", "OSError: [Errno 28] No space left on device: "
                        "'/tmp/grader-1/autograded/ada/01.ipynb'", "There was an error processing assignment",
                        "autograde stopped: NbGraderException: Please see the the above traceback")
    assert full.owner == GRADER and full.cause == "system", full
    assert full.reason == ("the disk is full (No space left on device: /tmp/grader-1/autograded/ada/01.ipynb) "
                           "while running the canary cells"), full.reason
    assert "free space" in full.advice and "NbGraderException" not in full.reason
    long = _failed_with("zmq.error.ZMQError: File name too long (addr='ipc:///tmp/x/ipc/k-4')")
    assert long.reason.startswith("a path the grader made is too long") and "ipc:///tmp/x/ipc/k-4" in long.reason
    assert "DASK_TEMPORARY_DIRECTORY" in long.advice
    denied = _failed_with("PermissionError: [Errno 13] Permission denied: '/srv/scratch/x'")
    assert "may not write or read" in denied.reason and denied.owner == GRADER
    other = _failed_with("ValueError: something nbgrader did not like")
    assert other.cause == "nbgrader" and "something nbgrader did not like" in other.reason


def test_the_cell_tracker_survives_the_configurations_copy():
    tracker = _CellTracker()
    assert copy.deepcopy(Config({"Execute": {"on_cell_start": tracker}}))["Execute"]["on_cell_start"] is tracker
    tracker(cell=nbtools.test("test_f", "pass", 1), cell_index=3)
    assert tracker.cell == "cell 'test_f'" and tracker.first and tracker.last >= tracker.first


def _run_record(timings: dict) -> RunRecord:
    """A run record whose students carry these timings (and nothing else of note)."""
    students = {s: StudentEntry(status="graded", reason="", score=1.0, max_score=1.0, timings=t)
                for s, t in timings.items()}
    return RunRecord(assignment="a", notebook="a", graded_at="now", seconds=1.0, workers=1, sandbox=Sandbox(),
                     limits=RunLimits(), gradebook="sqlite://", functions=[], tests=[], calibration=None, forced=Forced(),
                     package=None,
                     kernel_cpu_seconds=0.0, students=students)


def test_each_step_is_timed_and_the_bench_reads_the_phases_back(worker, tmp_path):
    from autograder.dev import bench

    g = worker.run(_grading(tmp_path, {f"{NB}.ipynb": "{not json"}), steps=["read", "scan", "stage"])
    assert set(g.result.timings) == {"step_read", "cpu_read"}  # the step that stopped the grading, none after it
    tracker = _CellTracker()
    assert tracker.phases(0.0, 5.0) == {}  # no cell ran: no phase to tell
    tracker.first, tracker.canary, tracker.done = 1.0, 3.5, 4.0
    assert tracker.phases(0.5, 4.5) == {"kernel_start": 0.5, "cells": 2.5, "canary": 0.5, "nbgrader_after": 0.5}
    timings = {"prepare": 0.2, "kernel_start": 0.5, "cells": 2.5, "canary": 0.5, "nbgrader_after": 0.5,
               "step_read_scores": 0.1, "step_collect_notes": 0.05, "gradebook_write": 0.07, "engine": 0.03}
    record = _run_record({"a": timings, "b": {**timings, "engine": 0.05}})
    phases = bench.breakdown(record)
    assert list(phases) == [name for name, _ in bench.PHASES]
    assert phases["read"] == 0.15 and phases["engine"] == 0.04 and phases["cells"] == 2.5
    assert bench._schedule(("stock", "serial", "ours")) == ["ours", "serial", "stock", "serial", "ours"]
    cpu = bench.cpu_breakdown(_run_record({"a": {"cpu_autograde": 0.2, "kernel_cpu": 0.3},
                                           "b": {"cpu_autograde": 0.4, "kernel_cpu": 0.3}}), 0.75)
    assert list(cpu) == [name for name, _ in bench.CPU_PARTS] + ["rest"]
    assert cpu["cpu_autograde"] == 0.3 and cpu["kernel_cpu"] == 0.3 and cpu["rest"] == 0.15
    assert bench._arms(("stock", "serial", "ours"), (1, 2)) == ["ours-w1", "ours-w2", "serial", "stock", "serial",
                                                               "ours-w2", "ours-w1"]
    # 2 cores always busy at the serial run's 2.4 CPU s a notebook, against stock's 8.6 s a notebook
    assert bench.ceiling(8.6, 2.4, 2) == 7.17 and bench.ceiling(8.6, 0.0, 2) == 0.0


@pytest.mark.parametrize("corrupt", [
    None,
    lambda meta: meta.pop("grade_id"),
    lambda meta: meta.update(points="two"),
    lambda meta: meta.update(grade="yes"),
    lambda meta: meta.update(schema_version=2),
    lambda meta: meta.update(schema_version=4),
    lambda meta: meta.update(grade_id=""),
    "duplicate",
])
def test_the_metadata_check_with_its_schema_compiled_once_judges_as_nbgraders(root, corrupt):
    from nbgrader.nbgraderformat import MetadataValidator as Nbgraders

    from autograder.cohort.preprocessors.check_metadata import CheckCellMetadata, MetadataValidator

    def verdict(validator, nb):
        try:
            validator.validate_nb(nb)
        except Exception as error:  # noqa: BLE001 - the verdicts are compared, whatever they are
            return type(error).__name__, str(error).splitlines()[0]
        return "valid", ""

    nb = nbformat.read(str(root / "solutions" / "04-five-line-step" / "04-five-line-step.ipynb"), 4)
    tests = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    if corrupt == "duplicate":
        tests[1].metadata.nbgrader.grade_id = tests[0].metadata.nbgrader.grade_id
    elif corrupt is not None:
        corrupt(tests[0].metadata.nbgrader)
    expected = verdict(Nbgraders(), copy.deepcopy(nb))
    assert verdict(MetadataValidator(), copy.deepcopy(nb)) == expected
    assert (expected[0] == "valid") == (corrupt is None)
    # The preprocessor keeps its verdict for the worker, which reads it there (not in the log) and owns the failure.
    checker = CheckCellMetadata()
    if corrupt is None:
        checker.preprocess(copy.deepcopy(nb), {})
        assert checker.failed == ""
        return
    with pytest.raises(Exception) as raised:
        checker.preprocess(copy.deepcopy(nb), {})
    if expected[0] != "ValidationError":  # a schema version nbgrader does not read: its own error, left to nbgrader
        assert checker.failed == "" and type(raised.value).__name__ == expected[0]
        return
    assert "failed to validate" in str(raised.value) and checker.failed, "the verdict is kept"
    quiet = LogCapture()  # nothing in the log: the verdict alone decides
    failure = explain_failure(quiet, Limits(), "", [], checker.failed)
    assert (failure.owner, failure.cause) == (STUDENT, "metadata"), failure
    assert explain_failure(quiet, Limits(), "", []).cause != "metadata"


def test_gradebook_openings_share_one_engine_and_see_the_database_replaced(tmp_path):
    """nbgrader's many openings of one gradebook share an engine (its compiled SQL), yet each connects anew:
    the grader replaces its scratch gradebook before every notebook."""
    from nbgrader.api import Gradebook

    from autograder.cohort.worker.sqlalchemy_engines import share_engines

    share_engines()
    db, fresh = tmp_path / "gradebook.db", tmp_path / "fresh.db"
    with Gradebook("sqlite:///" + str(fresh)):
        pass
    shutil.copy(fresh, db)  # one new gradebook serves both: nbgrader creates each with an `alembic` command (~1 s)
    with Gradebook("sqlite:///" + str(db)) as gb:
        gb.add_student("ada")
        engine = gb.engine
    with Gradebook("sqlite:///" + str(db)) as gb:
        assert gb.engine is engine and [s.id for s in gb.students] == ["ada"]
    db.unlink()
    shutil.copy(fresh, db)
    with Gradebook("sqlite:///" + str(db)) as gb:
        assert gb.engine is engine and gb.students == []
        gb.add_student("grace")
    with Gradebook("sqlite:///" + str(fresh)) as gb:
        assert gb.engine is not engine and gb.students == []


def test_a_copy_of_a_gradebook_opens_without_its_tables_checked_and_any_other_still_gets_them(tmp_path):
    """The scratch gradebook is a byte copy of one nbgrader made: its openings skip asking for the tables (about a
    millisecond each, ten a notebook); a database not named so still gets nbgrader's tables on first opening."""
    import sqlite3

    from nbgrader.api import Gradebook

    from autograder.cohort.worker.sqlalchemy_engines import schema_known, share_engines

    share_engines()
    share_engines()  # a second call changes nothing
    made, copy, empty = tmp_path / "made.db", tmp_path / "copy.db", tmp_path / "empty.db"
    with Gradebook("sqlite:///" + str(made)):
        pass
    shutil.copy(made, copy)
    schema_known("sqlite:///" + str(copy))
    with Gradebook("sqlite:///" + str(copy)) as gb:
        gb.add_student("ada")
    with Gradebook("sqlite:///" + str(copy)) as gb:
        assert [s.id for s in gb.students] == ["ada"]

    def tables(path):
        with sqlite3.connect(path) as db:
            return {name for (name,) in db.execute("select name from sqlite_master where type = 'table'")}

    assert "student" in tables(made) and tables(copy) == tables(made)
    sqlite3.connect(empty).close()
    schema_known("sqlite:///" + str(empty))  # named a copy but is not one: its tables are not made for it
    with pytest.raises(Exception, match="no such table"):
        with Gradebook("sqlite:///" + str(empty)) as gb:
            gb.add_student("grace")
    other = tmp_path / "other.db"
    with Gradebook("sqlite:///" + str(other)) as gb:  # not named: nbgrader makes its tables as ever
        gb.add_student("grace")
    assert tables(other) == tables(made)


def test_a_disposable_gradebook_commits_without_syncing_and_keeps_what_it_wrote(tmp_path):
    """The scratch gradebook is thrown away after its notebook: its connections neither sync nor write a journal
    file, yet what nbgrader commits is there for the next opening (the worker reads the scores back that way); a
    gradebook not named so keeps SQLite's durable defaults."""
    import sqlite3

    from nbgrader.api import Gradebook

    from autograder.cohort.worker.sqlalchemy_engines import disposable, schema_known, share_engines

    share_engines()
    made, scratch, kept = tmp_path / "made.db", tmp_path / "scratch.db", tmp_path / "kept.db"
    with Gradebook("sqlite:///" + str(made)):
        pass
    shutil.copy(made, scratch)
    shutil.copy(made, kept)
    schema_known("sqlite:///" + str(scratch))
    disposable("sqlite:///" + str(scratch))

    def pragmas(gb):
        with gb.engine.connect() as connection:
            return [connection.exec_driver_sql(f"PRAGMA {name}").scalar() for name in ("synchronous", "journal_mode")]

    with Gradebook("sqlite:///" + str(scratch)) as gb:
        gb.add_student("ada")
        assert pragmas(gb) == [0, "memory"]
    with Gradebook("sqlite:///" + str(kept)) as gb:
        gb.add_student("grace")
        assert pragmas(gb) == [2, "delete"]
    assert not list(tmp_path.glob("*-journal"))
    with sqlite3.connect(scratch) as db:  # another connection, as after the worker's process ended
        assert [name for (name,) in db.execute("select id from student")] == ["ada"]
    with Gradebook("sqlite:///" + str(scratch)) as gb:
        assert [s.id for s in gb.students] == ["ada"]


def test_the_bench_counts_what_an_arms_processes_used():
    """Each arm's CPU: its own cpuacct cgroup where this process may make one (as root), else this process's own
    accounting; either way a child's work is counted in the arm that ran it, and not in another."""
    import subprocess
    import sys

    from autograder.dev import bench

    meter = bench.CpuMeter()
    try:
        with meter.arm("burn"):
            subprocess.run([sys.executable, "-c", "sum(range(4_000_000))"], check=True)
        with meter.arm("idle"):
            pass
    finally:
        meter.close()
    assert meter.source in ("cgroup", "rusage")
    assert meter.seconds["burn"] >= 0.05 and meter.seconds["idle"] < meter.seconds["burn"] / 2, meter.seconds
    assert not any(group.exists() for group in meter.groups.values()), "an arm's cgroup was left behind"
