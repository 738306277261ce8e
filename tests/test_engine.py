"""The grading engine on a real local Dask cluster (the records that travel through it: test_records.py)."""

from __future__ import annotations

import os
import sys
import time

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
    later = DaskCluster(workers=1)
    try:
        later.connect()
        seen = list(later.client.run(_worker_view).values())
    finally:
        later.close()
    assert seen == [(servers.pop(), {"TORCH_LEDGER_PROGRESS": None, "TORCH_LEDGER_ENGINE_PROBE": "now"}, True)]
