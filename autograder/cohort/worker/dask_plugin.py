"""The grading worker's side of Dask: the plugin that gives each Dask worker one long-lived grader, and the task
that grades one job with it.

It runs in the worker process (:mod:`autograder.cohort.run.dask_cluster` is the coordinator's side): the plugin
arrives with the run's :class:`~autograder.cohort.jobs.RunSpec`, sets up the worker's own scratch course and
sandbox uid, and grades; the task takes a job as a dict and returns the result as a dict, the one place a
result is turned into data for Dask (:meth:`~autograder.cohort.records.SubmissionResult.as_dict`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

from distributed.diagnostics.plugin import WorkerPlugin

from ..jobs import Job, RunSpec

PLUGIN = "torch-ledger-grader"
#: The variables a local cluster's worker removes from its environment as it starts (a JSON list; see
#: ``dask_cluster._worker_environment``).
UNSET_ENV = "TORCH_LEDGER_UNSET_ENV"


def grader_uid(pid: int, slot: int = 0) -> int:
    """The sandbox uid of the grader in process ``pid`` (unique on its machine while ``pid`` lives)."""
    from ..kernels.confinement import BASE_UID

    return BASE_UID + 16 * pid + slot


#: The longest worker folder the grader's scratch is made in: a kernel's socket paths under it
#: (``grader-RUN-XXXXXXXX/sandbox/box/ipc/k-N``, 45 bytes) must stay within a Unix socket's 107.
MAX_BASE = 60


class GraderPlugin(WorkerPlugin):
    """A Dask worker plugin: one grader per worker, set up when the worker joins the run."""

    def __init__(self, spec: RunSpec, run: str) -> None:
        self.spec, self.run = spec, run
        self.name = f"{PLUGIN}-{run}"
        self.grader = None
        self.scratch: Path | None = None
        self.lock = threading.Lock()

    def __getstate__(self):
        return {"spec": self.spec, "run": self.run, "name": self.name}

    def __setstate__(self, state):
        self.__init__(state["spec"], state["run"])

    async def setup(self, worker=None) -> None:
        import asyncio

        await asyncio.to_thread(self._setup, worker)  # nbgrader's imports must not stall the worker's heartbeat

    def _setup(self, worker) -> None:
        import warnings

        from .grader import Grader

        os.environ.pop("JPY_PARENT_PID", None)
        # The coordinator writes owner-only (umask 077); a worker's scratch is private already (mkdtemp, 0700),
        # and inside it the sandbox's folders must be traversable by the kernel's own uid (root runs).
        os.umask(0o022)
        warnings.filterwarnings("ignore", message=".*not in session.*")  # SQLAlchemy notes from nbgrader's API
        warnings.filterwarnings("ignore", message=".*missing an id field.*")  # cells nbgrader puts back
        base = getattr(worker, "local_directory", None) or tempfile.gettempdir()
        if len(base) > MAX_BASE:  # the kernels' sockets live under it, and a socket's path has at most 107 bytes
            base = tempfile.gettempdir()
        self.scratch = Path(tempfile.mkdtemp(prefix=f"grader-{self.run}-", dir=base))
        self.grader = Grader(self.spec, grader_uid(os.getpid()), self.scratch)
        self.grader.warm_up()

    def teardown(self, worker=None) -> None:
        from ..kernels.box import drain

        if self.grader is not None:
            self.grader.close()
            drain(self.grader.uid, patience=5.0)
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def grade_on_worker(plugin_name: str, job: dict) -> dict:
    """The Dask task: grade one job with this worker's grader."""
    from distributed import get_worker

    plugin = get_worker().plugins[plugin_name]
    with plugin.lock:  # a grader grades one notebook at a time
        return plugin.grader.grade(Job.from_dict(job)).as_dict()


def uid_of_worker(plugin_name: str, dask_worker=None) -> int:
    return dask_worker.plugins[plugin_name].grader.uid


def dask_setup(worker) -> None:
    """Run by every local-cluster worker as it starts (this module is in :data:`PRELOAD`), before any plugin."""
    gone = os.environ.pop(UNSET_ENV, None)
    for name in json.loads(gone) if gone else ():
        os.environ.pop(name, None)
