"""The grading engine on a real local Dask cluster (the records that travel through it: test_records.py)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from autograder.cohort.run.dask_cluster import ALLOWED_FAILURES, DaskCluster, wait_any


def test_a_local_cluster_leaves_the_dask_settings_as_it_found_them():
    """A coordinator that grades, then uses Dask for something else (a notebook), gets its own settings back.
    Before this module's `engine` starts: no other local cluster of this process is open now."""
    import dask

    keys = ("distributed.worker.multiprocessing-method", "distributed.admin.tick.interval")
    before = [dask.config.get(k) for k in keys]
    run = DaskCluster(workers=1)
    try:
        run.connect()
        during = [dask.config.get(k) for k in keys]
    finally:
        run.close()
    assert during == ["forkserver", "500ms"] != before
    assert [dask.config.get(k) for k in keys] == before


@pytest.fixture(scope="module")
def engine():
    found = DaskCluster(workers=2)
    found.connect()
    yield found
    found.close()


def test_a_task_that_kills_its_workers_is_recorded_once_as_failed(engine):
    future = engine.client.submit(os._exit, 1, key="kills-its-worker", pure=False)
    outcome = engine.outcome(future, "mallory")
    assert outcome.status == "failed" and "died" in outcome.reason and outcome.student == "mallory"
    assert engine.retried == {"mallory": ALLOWED_FAILURES + 1}
    engine.client.wait_for_workers(2, timeout=180)  # the nannies started fresh workers


def test_a_task_past_its_hard_limit_is_stopped_and_its_worker_replaced(engine, monkeypatch):
    """Also when the cancellation reaches the scheduler late (as on a loaded machine, where the restart's own
    call overtook it and the scheduler gave the stopped task to the other worker): held back here for 1 s."""
    client = engine.client
    send = client._send_to_scheduler

    def late_cancel(msg):
        if msg.get("op") == "cancel-keys":
            client.loop.call_later(1.0, send, msg)
        else:
            send(msg)

    monkeypatch.setattr(client, "_send_to_scheduler", late_cancel)
    before = set(engine.client.run(os.getpid).values())
    future = engine.client.submit(time.sleep, 600, key="hangs", pure=False)
    while not any(engine.client.processing().values()):
        time.sleep(0.05)
    engine.stop_task(future)
    assert future.cancelled()
    engine.client.wait_for_workers(2, timeout=180)
    after = set(engine.client.run(os.getpid).values())
    assert len(before - after) == 1  # the worker that ran it is a new process; the other one is untouched
    running = engine.client.run(lambda dask_worker: [t.key for t in dask_worker.state.tasks.values()
                                                     if t.state in ("executing", "cancelled", "long-running")])
    assert not any(running.values()), running  # no worker runs the stopped task again
    # The cluster goes on grading (a task sent to the replaced worker's old address may wait for the
    # connection to it to time out, 30 s by default, before it runs elsewhere).
    probe = engine.client.submit(sum, [1, 2], pure=False)
    assert wait_any([probe], timeout=120), _where(engine, probe.key)  # rarely (under load) stays pending: see _where


def _where(engine, key: str) -> str:
    """The scheduler's view of a task that did not run: its state, the workers and what they process."""
    def view(dask_scheduler, key=key):
        task = dask_scheduler.tasks.get(key)
        return {"state": getattr(task, "state", "unknown to the scheduler"),
                "workers": {w.address: {"status": str(w.status), "processing": [t.key for t in w.processing]}
                            for w in dask_scheduler.workers.values()}}

    try:
        return f"task {key} still pending: {engine.client.run_on_scheduler(view)}"
    except Exception as error:  # noqa: BLE001 - the message is only a diagnosis
        return f"task {key} still pending (scheduler not reachable: {error})"


def _worker_view(names=("TORCH_LEDGER_PROGRESS", "TORCH_LEDGER_ENGINE_PROBE")):
    return os.getppid(), {n: os.environ.get(n) for n in names}, "autograder.cohort.worker.grader" in sys.modules


def _views_of(cluster: DaskCluster) -> list:
    """Each worker's :func:`_worker_view` of ``cluster``, started for it and closed after."""
    try:
        cluster.connect()
        return list(cluster.client.run(_worker_view).values())
    finally:
        cluster.close()


def test_a_later_clusters_workers_are_forked_with_the_environment_as_it_is_now(engine, monkeypatch):
    """A local cluster's workers are forked from a server process this process started with the first cluster
    (``engine``'s), which kept the environment it had then.  A later cluster's workers still see this
    process's environment as it is when that cluster starts: a variable added, and one taken away."""
    first = engine.client.run(_worker_view)
    assert all(ppid != os.getpid() and preloaded for ppid, _, preloaded in first.values()), first
    servers = {ppid for ppid, _, _ in first.values()}
    assert len(servers) == 1
    monkeypatch.delenv("TORCH_LEDGER_PROGRESS")  # conftest sets it for every test: the server has it
    monkeypatch.setenv("TORCH_LEDGER_ENGINE_PROBE", "now")
    seen = _views_of(DaskCluster(workers=1))
    assert seen == [(servers.pop(), {"TORCH_LEDGER_PROGRESS": None, "TORCH_LEDGER_ENGINE_PROBE": "now"}, True)]


_EARLY = """
import sys
sys.path.insert(0, {tests!r})  # before the server starts: its workers unpickle this module's functions
from multiprocessing import forkserver
from autograder.cohort.run import fork_server
fork_server.start_early()
server = forkserver._forkserver._forkserver_pid
heavy = sorted(m for m in ("distributed", "nbgrader", "torch") if m in sys.modules)
from autograder.cohort.run.dask_cluster import DaskCluster
from test_engine import _views_of
workers = [(parent, preloaded) for parent, _, preloaded in _views_of(DaskCluster(workers=1))]
print(repr((server > 0, heavy, workers == [(server, True)], workers)))
"""


def test_grade_starts_the_fork_server_before_its_own_imports_and_the_cluster_forks_from_it(tmp_path):
    """``python -m autograder grade`` starts the server its workers are forked from first thing, so that the
    server's imports run beside the coordinator's: nothing heavy is imported to start it, and the cluster started
    later forks its worker from that same server, with the grader preloaded."""
    import subprocess

    code = _EARLY.format(tests=str(Path(__file__).parent))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    started, heavy, forked_from_it, workers = eval(proc.stdout.strip().splitlines()[-1])  # noqa: S307 - our repr
    assert (started, heavy, forked_from_it) == (True, [], True), workers


# --------------------------------------------------------------------------------------------
# Who may connect to the grading cluster, and where it keeps its scratch space


def _http_status(url: str) -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def _connects(address: str, security=None) -> str:
    """What a client that is not the run's gets from ``address``: "connected" or the error's name.

    A client refused in its constructor is left half made, and the collector closing it while the next one starts
    (inside that one's loop runner, under its lock) hung the suite: the garbage goes first, and none is collected
    while a client starts."""
    import gc

    from distributed import Client

    gc.collect()
    gc.disable()
    try:
        with Client(address, timeout="5s", security=security) as intruder:
            intruder.run_on_scheduler(os.getpid)
        return "connected"
    except Exception as error:  # noqa: BLE001 - what the intruder sees is the result
        return type(error).__name__
    finally:
        gc.enable()
        gc.collect()


def test_a_local_cluster_speaks_tls_and_refuses_a_client_without_the_runs_certificate(engine):
    """The run's own client reaches it; a client with no certificate, one with a certificate of another authority,
    and one that speaks plain TCP to its port are each refused before they can run anything.  It serves no
    dashboard, and its workers listen on TLS too."""
    from distributed.security import Security

    address = engine.client.scheduler.address
    assert address.startswith("tls://127.0.0.1:"), address
    assert engine.authenticated
    assert engine.client.run_on_scheduler(os.getpid) > 0  # the run's client: yes
    assert _connects(address) != "connected"
    assert _connects(address, Security.temporary()) != "connected"  # a certificate, but not of the run's authority
    assert _connects(address.replace("tls://", "tcp://")) != "connected"
    info = engine.client.scheduler_info(n_workers=-1)
    ports = [info["services"]["dashboard"], *(w.get("services", {}).get("dashboard") for w in info["workers"].values())]
    for port in filter(None, ports):  # Dask's HTTP servers, which know no TLS: nothing served there
        for page in ("info/main/workers.html", "json/counts.json", "metrics", "health", "status"):
            assert _http_status(f"http://127.0.0.1:{port}/{page}") == 404, (port, page)
    assert all(w.startswith("tls://") for w in info["workers"]), list(info["workers"])
    for worker in info["workers"]:
        assert _connects(worker) != "connected"


def test_the_scratch_space_is_a_private_folder_made_for_the_run(engine, tmp_path, monkeypatch):
    """Dask's fixed ``dask-scratch-space`` in the temporary folder, made first by someone else with a module in it,
    is never used (nor put on a worker's sys.path); the run's folder is new and the user's alone, and is gone after
    the run.  A folder for it owned by another account, or writable by all without the sticky bit, is refused."""
    import dask

    from autograder.cohort.run import dask_cluster

    scratch = engine.scratch
    st = os.lstat(scratch)
    assert st.st_uid == os.geteuid() and st.st_mode & 0o777 == 0o700, oct(st.st_mode)
    dirs = engine.client.run(lambda dask_worker: (dask_worker.local_directory, list(sys.path)))
    for local, path in dirs.values():
        assert local.startswith(scratch + os.sep), (local, scratch)
        assert not any("dask-scratch-space" in p and not p.startswith(scratch) for p in path), path

    planted = tmp_path / "shared"
    (planted / "dask-scratch-space").mkdir(parents=True)
    (planted / "dask-scratch-space" / "planted.py").write_text("raise SystemExit('planted module ran')\n")
    planted.chmod(0o1777)
    monkeypatch.setitem(dask.config.config, "temporary-directory", str(planted))
    mine = dask_cluster.private_scratch()
    try:
        assert Path(mine).parent == planted and Path(mine).name.startswith(dask_cluster.SCRATCH_PREFIX)
    finally:
        os.rmdir(mine)
    planted.chmod(0o777)  # writable by all, no sticky bit: another user could swap our folder
    with pytest.raises(PermissionError, match="sticky"):
        dask_cluster.private_scratch()
    if os.geteuid() == 0:
        owned = tmp_path / "someone-elses"
        owned.mkdir()
        os.chown(owned, 65534, 65534)
        monkeypatch.setitem(dask.config.config, "temporary-directory", str(owned))
        with pytest.raises(PermissionError, match="another user"):
            dask_cluster.private_scratch()


def test_an_unauthenticated_scheduler_where_others_work_stops_the_run_unless_asked_for():
    from autograder.cohort.run.dask_cluster import ClusterError, InsecureScheduler, scheduler_security

    with pytest.raises(InsecureScheduler, match="--insecure-scheduler"):
        scheduler_security("tcp://127.0.0.1:8786", ["ada", "bob"], insecure=False)
    assert scheduler_security("tcp://127.0.0.1:8786", ["ada"], insecure=True) is None  # asked for by name
    assert scheduler_security("tcp://127.0.0.1:8786", [], insecure=False) is None  # nobody else on the machine
    with pytest.raises(ClusterError, match="certificate authority"):
        scheduler_security("tls://127.0.0.1:8786", [], insecure=False)  # no TLS configuration
