"""Nothing lost to a crash: ``grade`` stopped by Ctrl-C (SIGINT) or killed (SIGKILL) mid-run, then run again;
and ``grade --scheduler`` on a real Dask cluster, with one of its workers killed mid-notebook.

One cohort of six submissions is graded three times from copies of the same course: once
without interruption (the baseline), once stopped by SIGINT and resumed, once killed with
SIGKILL and resumed. Each resumed run ends with the baseline's gradebook scores and
``grading.json`` entries; students finished before the stop are kept, not graded again; and
no worker, sandbox or kernel process outlives the stopped coordinator.  The same cohort
graded on a scheduler and two ``dask worker`` processes (over TLS on 127.0.0.1) gets the
baseline's grades, with one of the workers killed with SIGKILL in the middle of a notebook.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.cohort.kernels.bwrap import probe
from autograder.cohort.records import JOURNAL, RECORD
from autograder.dev import fixture_courses, nbtools
from autograder.dev.synthetic import honest_cohort, load_catalogue
from conftest import ARTIFACTS

MODULE = "01-tensors"
STUDENTS = 6
#: An honest student whose notebook ends with a slow cell of their own: the notebook a worker is killed in the middle
#: of (the others take under half a second each, too short to aim a kill at).
SLOW = "zz-slow"
SANDBOX = "bwrap" if probe() is None else "off"
VOLATILE = ("seconds", "timings")  # what differs between two runs of the same grading


#: Dask's TLS configuration for the external cluster below (the authority, and the client's certificate and key, as
#: files), as an instructor would set it in the environment of `grade --scheduler tls://...`.
TLS_ENV: dict[str, str] = {}


def _cli(course: Path, scheduler: str = "", **kw) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "COURSE_DB_URL"}
    if scheduler:
        env.update(TLS_ENV)
    engine = ["--scheduler", scheduler] if scheduler else ["--workers", "2"]
    return subprocess.Popen([sys.executable, "-m", "autograder", "grade", MODULE, "--course", str(course),
                             *engine, "--no-progress", "--sandbox", SANDBOX, "--notebook-timeout", "120",
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


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200]
    except OSError:
        return "(gone)"


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
    course = fixture_courses.make_course(base / "prepared", [MODULE], root)
    release = fixture_courses.release(course, MODULE)
    solution = nbtools.read(root / "solutions" / MODULE / f"{MODULE}.ipynb")
    cohort = honest_cohort(solution, nbtools.read(release), load_catalogue(MODULE), size=STUDENTS - 1)
    slow = copy.deepcopy(solution)
    slow.cells.append(nbtools.code("import time\ntime.sleep(3)  # my last cell takes its time"))
    for student, nb in {**cohort.notebooks, SLOW: slow}.items():
        fixture_courses.submit(course, MODULE, student, nb)
    whole = base / "whole"
    shutil.copytree(course, whole)
    code, output = _run(whole)
    assert code == 0, output[-3000:]
    baseline = {"scores": fixture_courses.scores(whole, MODULE),
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
    # a killed parent's children get their death signal at once; they exit in well under a second on a quiet
    # machine, and may take seconds when both cores are busy (a worker closing down): allow them 30
    gone_by = time.monotonic() + 30
    while _alive(running) and time.monotonic() < gone_by:
        time.sleep(0.2)
    exit_seconds = time.monotonic() - stopped_at
    left = {pid: _command(pid) for pid in _alive(running)}
    kept = _journaled(work)
    autograded = {s: (work / "autograded" / s / MODULE / f"{MODULE}.ipynb").stat().st_mtime_ns for s in kept}
    resume_started = time.monotonic()
    code, resumed = _run(work)
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / "grade-interrupts.jsonl").open("a") as fh:  # figures for the record, not assertions
        fh.write(json.dumps({"signal": signal.Signals(sig).name, "stop_seconds": round(stop_seconds, 2),
                             "processes_running": len(running), "left": len(left),
                             "all_gone_seconds": round(exit_seconds, 2), "kept": len(kept),
                             "resume_seconds": round(time.monotonic() - resume_started, 1)}) + "\n")
    return {"work": work, "code": proc.returncode, "output": out + err, "stop_seconds": stop_seconds,
            "running": running, "left": left, "kept": kept, "autograded": autograded, "resume_code": code,
            "resumed": resumed, "baseline": baseline,
            "scores": fixture_courses.scores(work, MODULE),
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


def test_a_template_whose_owner_is_gone_stops_waiting_for_its_kernel():
    """The template waits up to 30 s for a kernel it forked to get ready.  Its owner killed meanwhile (the
    template's stdin at its end), it stops waiting at once and goes, sandbox and kernels with it: it sat the 30 s
    out before, and a SIGKILLed run's sandbox outlived it that long (the test above saw one left after 30 s, on a
    busy machine).  A request waiting on stdin is not the end of it."""
    import threading

    from autograder.cohort.kernels.forkserver import ready

    kernel_r, kernel_w = os.pipe()
    owner_r, owner_w = os.pipe()
    try:
        os.close(owner_w)
        started = time.monotonic()
        assert ready(kernel_r, 30, owner_r) is None and time.monotonic() - started < 5
    finally:
        os.close(owner_r)
    owner_r, owner_w = os.pipe()
    try:
        os.write(owner_w, b'{"op": "spawn"}\n')
        threading.Timer(0.2, os.write, (kernel_w, b"1")).start()
        assert ready(kernel_r, 30, owner_r) is True
        assert os.read(owner_r, 100) == b'{"op": "spawn"}\n'  # left for the main loop
        os.close(kernel_w)
        assert ready(kernel_r, 30, owner_r) is False  # the kernel died before it was ready
    finally:
        for fd in (kernel_r, owner_r, owner_w):
            os.close(fd)


def test_journal_resumes_only_the_same_selection_and_ignores_a_torn_line(tmp_path):
    from autograder.cohort.records import StudentEntry
    from autograder.cohort.run.journal import Journal

    def entry(score):
        return StudentEntry(status="graded", reason="", score=score, max_score=3.0)

    path = tmp_path / JOURNAL
    first = Journal(path, MODULE, ["b", "a", "c"])
    assert not first.resumes and first.carried() == {}
    first.add("a", entry(1.0))
    first.add("b", entry(2.0))
    first.close()
    with path.open("a") as fh:
        fh.write('{"student": "c", "entry": {"sco')  # a crash in the middle of a line
    again = Journal(path, MODULE, ["a", "b", "c"])
    assert again.resumes and again.carried() == {"a": entry(1.0), "b": entry(2.0)}
    other = Journal(path, MODULE, ["a"])  # a regrade of a: graded again; b is kept for the record
    assert not other.resumes and other.carried() == {"b": entry(2.0)}
    other.add("a", entry(3.0))
    other.close()
    assert Journal(path, MODULE, ["a"]).carried() == {"a": entry(3.0), "b": entry(2.0)}
    assert Journal(path, "02-autograd-ledger", ["a", "b", "c"]).carried() == {}
    other.remove()
    assert not path.exists()


# --------------------------------------------------------------------------------------------
# A real Dask cluster of separate processes: a scheduler and two `dask worker`s over TLS on 127.0.0.1, started
# with certificate files as their administrator would (a tcp:// one is refused where other people work).


def _security():
    from distributed.security import Security

    return Security(tls_ca_file=TLS_ENV["DASK_DISTRIBUTED__COMM__TLS__CA_FILE"],
                    tls_client_cert=TLS_ENV["DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT"],
                    tls_client_key=TLS_ENV["DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY"], require_encryption=True)


def _tls_files(folder: Path) -> list[str]:
    """A certificate authority and one certificate for the cluster, as files (owner-only); the command-line
    arguments of `dask scheduler` and `dask worker`; and TLS_ENV for the grading run."""
    from distributed.security import Security

    made = Security.temporary()
    files = {"ca.pem": made.tls_ca_file, "cert.pem": made.tls_scheduler_cert, "key.pem": made.tls_scheduler_key}
    for name, text in files.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o600)
    TLS_ENV.update({"DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(folder / "ca.pem"),
                    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(folder / "cert.pem"),
                    "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": str(folder / "key.pem"),
                    "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True"})
    return ["--tls-ca-file", str(folder / "ca.pem"), "--tls-cert", str(folder / "cert.pem"),
            "--tls-key", str(folder / "key.pem")]


def _dask(*args: str, log: Path) -> subprocess.Popen:
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"}
    return subprocess.Popen([str(Path(sys.executable).with_name("dask")), *args], env=env, stdout=log.open("w"),
                            stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask")
    address_file = folder / "scheduler.json"
    tls = _tls_files(folder)
    procs = [_dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--protocol", "tls", *tls,
                   "--scheduler-file", str(address_file), log=folder / "scheduler.log")]
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(address_file.read_text())["address"]
        procs += [_dask("worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard", *tls,
                        "--memory-limit", "0", log=folder / f"worker{i}.log") for i in range(2)]
        with Client(address, timeout="30s", security=_security()) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def _on_cluster(prepared, name: str, address: str, kill_a_worker: bool) -> dict:
    from distributed import Client

    base, course, baseline = prepared
    work = base / name
    shutil.copytree(course, work)
    proc = _cli(work, scheduler=address)
    killed = None
    if kill_a_worker:
        with Client(address, timeout="30s", security=_security()) as client:
            deadline = time.monotonic() + 300
            since: dict = {}  # (worker, job) -> when it was first seen on that worker
            while killed is None and proc.poll() is None and time.monotonic() < deadline:
                now = time.monotonic()
                # a job on one worker for a second is the slow student's, well inside its kernel's last cell
                busy = [w for w, keys in client.processing().items() for key in keys
                        if now - since.setdefault((w, key), now) >= 1.0] if _journaled(work) else []
                if busy:
                    killed = client.run(os.getpid, workers=busy[:1])[busy[0]]
                    os.kill(killed, signal.SIGKILL)
                time.sleep(0.1)
            client.wait_for_workers(2, timeout=120)  # the nanny starts a fresh worker
    out, err = proc.communicate(timeout=600)
    return {"work": work, "code": proc.returncode, "output": out + err, "killed": killed, "baseline": baseline,
            "scores": fixture_courses.scores(work, MODULE),
            "record": json.loads((work / "reports" / MODULE / RECORD).read_text())}


def address_is_tls(address: str) -> bool:
    return address.startswith("tls://127.0.0.1:")


@pytest.fixture(scope="module")
def on_cluster(prepared, dask_cluster):
    """The cohort graded on the cluster, one of its two workers killed in the middle of a notebook."""
    return _on_cluster(prepared, "dask-killed", dask_cluster, kill_a_worker=True)


@pytest.mark.slow
def test_grades_on_a_dask_cluster_equal_the_local_run(on_cluster, dask_cluster):
    """The external TLS cluster grades the cohort as the local run does (a killed worker changes nothing)."""
    found = on_cluster
    assert found["code"] == 0, found["output"][-3000:]
    assert f"Dask scheduler {dask_cluster}" in found["output"]
    assert address_is_tls(dask_cluster)
    engine = found["record"]["engine"]
    assert {k: engine[k] for k in ("kind", "scheduler", "authenticated")} == {
        "kind": "scheduler", "scheduler": dask_cluster, "authenticated": True}
    assert found["scores"] == found["baseline"]["scores"]
    assert _stable(found["record"]) == _stable(found["baseline"]["record"])


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_student_and_grades_none_twice(on_cluster):
    found = on_cluster
    assert found["killed"], "no worker was busy to be killed"
    assert found["code"] == 0, found["output"][-3000:]
    retried = found["record"]["engine"]["retried"]
    assert retried == {SLOW: 1}, retried  # the one it was grading, given to the other
    assert f"graded {STUDENTS} of {STUDENTS} submissions" in found["output"]
    assert found["scores"] == found["baseline"]["scores"]
    assert _stable(found["record"]) == _stable(found["baseline"]["record"])
