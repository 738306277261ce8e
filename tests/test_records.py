"""The records that travel through the grading engine: a folder packed as data, the run record on disk, and every
record type through its one dict pair (in process; `make check` runs them)."""

from __future__ import annotations

import os

import pytest

from autograder.cohort import jobs
from autograder.cohort import records as record


def test_a_folder_travels_as_data_without_following_links(tmp_path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.ipynb").write_text("{}")
    (src / "sub" / "data.csv").write_bytes(b"1,2\n")
    (src / "secret").symlink_to("/etc/passwd")
    (src / "big.bin").write_bytes(b"")
    os.truncate(src / "big.bin", jobs.MAX_FILE_BYTES + 1)
    (src / ".ipynb_checkpoints").mkdir()
    (src / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text("{}")
    files = jobs.pack_folder(src)
    assert files == {"a.ipynb": b"{}", "sub/data.csv": b"1,2\n", "secret": None, "big.bin": jobs.MAX_FILE_BYTES + 1}
    dest = jobs.unpack_folder(files, tmp_path / "dest")
    assert (dest / "secret").is_symlink() and not (dest / "secret").exists()  # dangling: never the original target
    assert (dest / "big.bin").stat().st_size == jobs.MAX_FILE_BYTES + 1
    assert (dest / "sub" / "data.csv").read_bytes() == b"1,2\n"
    with pytest.raises(record.RecordError, match="outside"):
        jobs.unpack_folder({"../escape.txt": b"x"}, tmp_path / "other")
    assert not (tmp_path / "escape.txt").exists()


def test_a_run_record_round_trips_and_a_broken_one_is_named(tmp_path):
    entry = record.StudentEntry(status="graded", reason="", score=3.0, max_score=4.0,
                                tests=[record.TestOutcome("t", "f", "correct", "")])
    run = record.RunRecord(assignment="a", notebook="a", graded_at="now", seconds=1.0, workers=2,
                           sandbox=record.Sandbox(), limits=record.RunLimits(), gradebook="sqlite://", functions=[],
                           tests=[], calibration=None, forced=record.Forced(), package=None,
                           kernel_cpu_seconds=0.0, students={"s": entry})
    path = tmp_path / record.RECORD
    run.save(path)
    assert record.load(path) == run and not path.with_suffix(".tmp").exists()
    path.write_text('{"assignment": "a"}')
    with pytest.raises(record.RecordError, match="not a run record"):
        record.load(path)
    with pytest.raises(record.RecordError, match="run `grade` first"):
        record.load(tmp_path / "none.json")


def _full_result() -> record.SubmissionResult:
    """A result with every part of the record filled in, as a worker hands it back."""
    failure = record.Failure(record.STUDENT, "kernel-died", "the kernel died of SIGKILL", "raise --memory-mb", "log")
    result = record.SubmissionResult("ada", grades={"test_f": record.Grade(1.0, 2.0), "test_g": record.Grade(None, 1.0,
                                                                                                           True)},
                                     comments={"f": None}, late_penalty=0.5, canary={"setup": "ok", "test_f": "nonce"},
                                     tests=[record.TestOutcome("test_f", "f", "incorrect", "[incorrect] f", "wrong_dim",
                                                               1.0, 2.0, "seen", "owner", "do", "CheckFailed")],
                                     findings=[record.Finding("f", 2, "sys-modules", "sys.modules['x'] = None")],
                                     notes=[record.Note("structure", "deleted test cell t; put back", "more")],
                                     autograded={"a.ipynb": b"{}"}, seconds=1.5, timings={"cells": 1.0},
                                     first_error=record.CellError("test_f", "CheckFailed", "wrong"), kernel="warm",
                                     trimmed="1 KB cut")
    result.fail(failure)
    return result


def test_every_record_type_round_trips_through_its_one_dict_pair():
    """The record is typed inside the program; a dict only where it crosses a boundary (the Dask return, the
    journal, grading.json), through each type's as_dict / from_dict, which give back the same value."""
    import json

    result = _full_result()
    entry = record.StudentEntry(status="failed", reason=result.reason, score=0.0, raw_score=3.0, max_score=3.0,
                                tests=result.tests, findings=result.findings, notes=result.notes,
                                flags=[record.Flag("not graded", result.reason), record.Flag("scan", "1 line")],
                                canary_verdict=record.CanaryVerdict("ok", "every test cell ran as written"),
                                failure=result.failure, late=record.Late(7300.0, 2.0, "2026-12-01", "2026-12-02"),
                                kernel="cold")
    values = [result, entry, *result.grades.values(), *result.tests, *result.findings, *result.notes, result.failure,
              result.first_error, *entry.flags, entry.late, entry.canary_verdict, jobs.Job(3, "ada", {"a": b"x"}),
              record.Calibration("graded", "", True, result.first_error, None, {"setup": "ok"})]
    for value in values:
        data = value.as_dict()
        assert type(value).from_dict(data) == value, type(value).__name__
        if not isinstance(value, (record.SubmissionResult, jobs.Job)):  # those two travel through Dask, not JSON
            assert type(value).from_dict(json.loads(json.dumps(data))) == value, type(value).__name__
    assert entry.score == 1.0 and entry.as_dict()["late"]["penalty"] == 2.0  # final_score(3 - 2), never stored apart
    assert record.StudentEntry.from_dict({**entry.as_dict(), "raw_score": None}).score == 1.0  # an older record


def _full_run(entry) -> record.RunRecord:
    """A run record with every run-level part filled in, as a run writes it."""
    return record.RunRecord(
        assignment="a", notebook="a", graded_at="now", seconds=1.0, workers=2,
        sandbox=record.Sandbox("bwrap", "auto", True, "", 1, "warm", "warm", ""),
        limits=record.RunLimits(memory_mb=2048, notebook_seconds=45, cell_seconds=15), gradebook="sqlite://",
        functions=["f"], tests=[record.TestPoints("test_f", 2.0)],
        calibration=record.Calibration("graded", "", True, canary={"setup": "ok"}),
        forced=record.Forced(True, "Calibration failed", 1, 0), package=record.Package("/a/autograder", "/a/k.py"),
        kernel_cpu_seconds=0.5, students={"s": entry},
        engine=record.Engine("scheduler", "tls://h:8786", True, {"s": 1}),
        not_graded={"t": record.Failure(record.GRADER, "gradebook", "locked")},
        output_limits=record.OutputLimits(10, 20), worker_count=record.WorkerCount(2, "--workers"))


def test_the_run_level_fields_are_typed_and_round_trip():
    """Every field of RunRecord is a value or a record type, never a plain dict read by key; a dict appears only
    in as_dict, and from_dict gives back the same record (an older record's missing parts read as their defaults)."""
    import json
    import typing
    from dataclasses import fields

    from autograder.cohort.kernels.confinement import Limits

    hints = typing.get_type_hints(record.RunRecord)
    loose = [f.name for f in fields(record.RunRecord) if hints[f.name] in (dict, list) or
             typing.get_origin(hints[f.name]) is dict and typing.get_args(hints[f.name])[1] is not record.StudentEntry
             and typing.get_args(hints[f.name])[1] is not record.Failure]
    assert loose == [], f"run-level fields kept as plain dicts or lists: {loose}"
    assert [f.name for f in fields(record.RunLimits)] == [f.name for f in fields(Limits)] + ["cell_seconds"]
    run = _full_run(record.StudentEntry(status="graded", reason="", score=2.0, max_score=2.0))
    data = run.as_dict()
    assert record.RunRecord.from_dict(json.loads(json.dumps(data))) == run
    assert data["sandbox"]["mode"] == "bwrap" and data["limits"]["cell_seconds"] == 15
    assert data["tests"] == [{"test": "test_f", "max_score": 2.0}] and data["engine"]["retried"] == {"s": 1}
    # A record without the parts later versions added (as before output_limits or worker_count were kept).
    bare = {k: v for k, v in data.items() if k not in {"engine", "output_limits", "worker_count", "not_graded"}}
    old = record.RunRecord.from_dict({**bare, "package": {}, "sandbox": {"mode": "off", "warning": "no bwrap"}})
    assert old.package is None and old.output_limits is None and old.worker_count is None
    assert old.sandbox == record.Sandbox(mode="off", warning="no bwrap") and old.engine == record.Engine()
    assert old.as_dict()["package"] == {} and old.as_dict()["output_limits"] == {}


def test_the_record_is_typed_and_a_dict_only_at_a_boundary():
    """The README's sentence: the record is typed from the worker to every view, "a dict only at a boundary (the Dask
    return, the journal, `grading.json`), through each type's one `as_dict` / `from_dict` pair".  No field of a
    record type is a bare dict or list, and outside records.py only the boundaries call a record's pair."""
    import ast
    import dataclasses
    import typing
    from pathlib import Path

    loose = []
    for name, value in vars(record).items():
        if not (dataclasses.is_dataclass(value) and isinstance(value, type)) or value.__module__ != record.__name__:
            continue
        hints = typing.get_type_hints(value)
        for f in dataclasses.fields(value):
            hint = hints[f.name]
            if hint in (dict, list, object, typing.Any) or (typing.get_origin(hint) in (dict, list) and any(
                    a in (dict, list, object, typing.Any) for a in typing.get_args(hint))):
                loose.append(f"{name}.{f.name}: {hint}")
    assert not loose, f"record fields kept as plain dicts or lists: {loose}"

    package = Path(record.__file__).resolve().parents[1]
    boundaries = {"cohort/records.py": "grading.json (save, load)", "cohort/run/journal.py": "the journal",
                  "cohort/worker/dask_plugin.py": "the Dask task's argument and return",
                  "cohort/run/dask_cluster.py": "the Dask task's argument and return",
                  "core.py": "a check result's output in the notebook (outcome.ResultData)"}
    callers = set()
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("as_dict", "from_dict")
               for n in ast.walk(tree)):
            callers.add(str(path.relative_to(package)))
    assert callers <= set(boundaries), f"a record turned into a dict (or read from one) away from a boundary: " \
                                       f"{sorted(callers - set(boundaries))}"
    assert {"cohort/run/journal.py", "cohort/worker/dask_plugin.py", "cohort/run/dask_cluster.py"} <= callers
    readme = (package.parent / "README.md").read_text(encoding="utf-8")
    assert ("a dict only at a boundary (the Dask return, the journal, `grading.json`), through each type's one "
            "`as_dict` / `from_dict` pair") in readme
