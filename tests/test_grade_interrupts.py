"""Nothing lost to a crash: ``grade`` stopped by Ctrl-C (SIGINT) or killed (SIGKILL) mid-run, then run again.

One cohort of eight submissions is graded three times from copies of the same course: once
without interruption (the baseline), once stopped by SIGINT and resumed, once killed with
SIGKILL and resumed. Each resumed run ends with the baseline's gradebook scores and
``grading.json`` entries; students finished before the stop are kept, not graded again; and
no worker, sandbox or kernel process outlives the stopped coordinator.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import grading, nbtools
from autograder.cohort.cohort import honest_cohort, load_catalogue
from autograder.cohort.grade import JOURNAL, RECORD
from autograder.cohort.sandbox import probe
from conftest import ARTIFACTS

MODULE = "01-tensors"
STUDENTS = 8
SANDBOX = "bwrap" if probe() is None else "off"
VOLATILE = ("seconds", "timings")  # what differs between two runs of the same grading


def _cli(course: Path, **kw) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "COURSE_DB_URL"}
    return subprocess.Popen([sys.executable, "-m", "autograder", "grade", MODULE, "--course", str(course),
                             "--workers", "2", "--no-progress", "--sandbox", SANDBOX, "--notebook-timeout", "120",
                             "--memory-mb", "3072"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def _run(course: Path) -> tuple[int, str]:
    proc = _cli(course)
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out + err


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, stack = set(), [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    left = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            left.add(pid)
    return left


def _journaled(course: Path) -> list[str]:
    path = course / "reports" / MODULE / JOURNAL
    if not path.exists():
        return []
    return [json.loads(line)["student"] for line in path.read_text().splitlines()
            if line.strip() and '"student"' in line]


def _stable(record: dict) -> dict:
    return {s: {k: v for k, v in e.items() if k not in VOLATILE} for s, e in record["students"].items()}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, root):
    base = tmp_path_factory.mktemp("interrupts")
    course = grading.make_course(base / "prepared", [MODULE], root)
    release = grading.release(course, MODULE)
    solution = nbtools.read(root / "solutions" / MODULE / f"{MODULE}.ipynb")
    cohort = honest_cohort(solution, nbtools.read(release), load_catalogue(MODULE), size=STUDENTS)
    for student, nb in cohort.notebooks.items():
        grading.submit(course, MODULE, student, nb)
    whole = base / "whole"
    shutil.copytree(course, whole)
    code, output = _run(whole)
    assert code == 0, output[-3000:]
    baseline = {"scores": grading.scores(whole, MODULE),
                "record": json.loads((whole / "reports" / MODULE / RECORD).read_text())}
    return base, course, baseline


def _stopped_then_resumed(prepared, name: str, sig: int) -> dict:
    base, course, baseline = prepared
    work = base / name
    shutil.copytree(course, work)
    proc = _cli(work)
    deadline = time.monotonic() + 300
    while len(_journaled(work)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    running = _descendants(proc.pid)
    while len(running) < 3 and proc.poll() is None and time.monotonic() < deadline:  # a kernel is running too
        time.sleep(0.05)
        running = _descendants(proc.pid)
    assert proc.poll() is None, "the run ended before it could be stopped: " + proc.communicate()[1][-2000:]
    stopped_at = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    stop_seconds = time.monotonic() - stopped_at
    time.sleep(3)  # a killed parent's children get their death signal at once; allow them to exit
    left = _alive(running)
    kept = _journaled(work)
    autograded = {s: (work / "autograded" / s / MODULE / f"{MODULE}.ipynb").stat().st_mtime_ns for s in kept}
    resume_started = time.monotonic()
    code, resumed = _run(work)
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / "grade-interrupts.jsonl").open("a") as fh:  # figures for the record, not assertions
        fh.write(json.dumps({"signal": signal.Signals(sig).name, "stop_seconds": round(stop_seconds, 2),
                             "processes_running": len(running), "left": len(left), "kept": len(kept),
                             "resume_seconds": round(time.monotonic() - resume_started, 1)}) + "\n")
    return {"work": work, "code": proc.returncode, "output": out + err, "stop_seconds": stop_seconds,
            "running": running, "left": left, "kept": kept, "autograded": autograded, "resume_code": code,
            "resumed": resumed, "baseline": baseline,
            "scores": grading.scores(work, MODULE),
            "record": json.loads((work / "reports" / MODULE / RECORD).read_text())}


@pytest.fixture(scope="module")
def interrupted(prepared):
    return _stopped_then_resumed(prepared, "sigint", signal.SIGINT)


@pytest.fixture(scope="module")
def killed(prepared):
    return _stopped_then_resumed(prepared, "sigkill", signal.SIGKILL)


@pytest.mark.slow
def test_ctrl_c_stops_promptly_and_leaves_no_process(interrupted):
    assert interrupted["code"] == 130, interrupted["output"][-2000:]
    assert interrupted["stop_seconds"] < 30, interrupted["stop_seconds"]
    assert len(interrupted["running"]) >= 3, "workers and a kernel should have been running"
    assert not interrupted["left"], f"left behind: {interrupted['left']}"
    assert "interrupted:" in interrupted["output"] and "Run the same `grade` again to resume" in interrupted["output"]


@pytest.mark.parametrize("run", ["interrupted", "killed"])
@pytest.mark.slow
def test_the_next_run_resumes_and_equals_an_uninterrupted_run(run, request):
    found = request.getfixturevalue(run)
    assert found["resume_code"] == 0, found["resumed"][-3000:]
    assert 1 <= len(found["kept"]) < STUDENTS
    assert f"resuming an interrupted run of {MODULE}: {len(found['kept'])} of {STUDENTS}" in found["resumed"]
    for student, mtime in found["autograded"].items():  # kept, not graded a second time
        path = found["work"] / "autograded" / student / MODULE / f"{MODULE}.ipynb"
        assert path.stat().st_mtime_ns == mtime, student
    assert found["scores"] == found["baseline"]["scores"]
    assert _stable(found["record"]) == _stable(found["baseline"]["record"])
    assert not (found["work"] / "reports" / MODULE / JOURNAL).exists()


@pytest.mark.slow
def test_sigkill_takes_the_workers_and_sandboxes_with_it(killed):
    assert killed["code"] == -signal.SIGKILL
    assert len(killed["running"]) >= 3
    assert not killed["left"], f"left behind: {killed['left']}"


def test_journal_resumes_only_the_same_selection_and_ignores_a_torn_line(tmp_path):
    from autograder.cohort.grade import Journal

    path = tmp_path / JOURNAL
    first = Journal(path, MODULE, ["b", "a", "c"])
    assert not first.resumes and first.carried() == {}
    first.add("a", {"score": 1.0})
    first.add("b", {"score": 2.0})
    first.close()
    with path.open("a") as fh:
        fh.write('{"student": "c", "entry": {"sco')  # a crash in the middle of a line
    again = Journal(path, MODULE, ["a", "b", "c"])
    assert again.resumes and again.carried() == {"a": {"score": 1.0}, "b": {"score": 2.0}}
    other = Journal(path, MODULE, ["a"])  # a regrade of a: graded again; b is kept for the record
    assert not other.resumes and other.carried() == {"b": {"score": 2.0}}
    other.add("a", {"score": 3.0})
    other.close()
    assert Journal(path, MODULE, ["a"]).carried() == {"a": {"score": 3.0}, "b": {"score": 2.0}}
    assert Journal(path, "02-autograd-ledger", ["a", "b", "c"]).carried() == {}
    other.remove()
    assert not path.exists()
