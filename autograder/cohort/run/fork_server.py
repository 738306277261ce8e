"""The server process a local cluster's Dask workers are forked from, and how it starts early.

It imports Dask, nbgrader and the grader once (:data:`PRELOAD`), then forks a worker per request
(multiprocessing's ``forkserver`` start method: :data:`START_METHOD`).  ``python -m autograder grade`` starts it
first thing (:func:`start_early`), so that its imports (about a second of a core) run beside the coordinator's own
imports instead of after them; the cluster then forks its workers from it.  This module imports nothing heavy for
that reason.
"""

from __future__ import annotations

import os

#: What a local cluster's workers import as they start (nbgrader and the grader), while the
#: coordinator checks the kernel, rather than when the run's plugin arrives.
PRELOAD = ["autograder.cohort.worker.dask_plugin", "autograder.cohort.worker.grader", "nbgrader.api",
           "nbgrader.converters", "nbgrader.preprocessors"]
#: How a local cluster starts its worker processes: forked from a server process that has imported
#: Dask and :data:`PRELOAD` once for this coordinator (Dask's default starts a new interpreter per
#: worker, each importing them again: ~1.3 s of CPU per worker, and per restart).
START_METHOD = "forkserver"
_server_env: dict | None = None  # the environment this process's fork server started with


def available() -> bool:
    """Whether this platform forks workers from a server (not on Windows)."""
    import multiprocessing

    return START_METHOD in multiprocessing.get_all_start_methods()


def prepare() -> dict:
    """Name the grader's modules for the fork server to import, and remember the environment it starts with (until
    it starts: it stays up while this process lives, and every later cluster forks from it); returns that
    environment."""
    import multiprocessing

    global _server_env
    multiprocessing.get_context(START_METHOD).set_forkserver_preload(["distributed", *PRELOAD])
    if _server_env is None:
        _server_env = dict(os.environ)
    return _server_env


def start_early() -> None:
    """Start the fork server now, without waiting for it: its imports run while this process goes on.  A server
    that cannot start here is started (or its failure reported) by the cluster, as without this call."""
    if not available():
        return
    from multiprocessing import forkserver

    prepare()
    try:
        forkserver.ensure_running()
    except OSError:
        pass
