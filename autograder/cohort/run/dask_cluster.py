"""The grading engine, the coordinator's side: a Dask cluster whose workers each keep one long-lived grader.

(Not to be confused with SQLAlchemy's engines, which :mod:`autograder.cohort.worker.sqlalchemy_engines` shares
among nbgrader's openings of a gradebook.)  ``grade`` hands the cluster :class:`~autograder.cohort.jobs.Job`
records and gets :class:`~autograder.cohort.records.SubmissionResult` records back; the coordinator stays the only
writer of the gradebook and of ``autograded/``.

* The default is a ``distributed.LocalCluster`` of N worker processes on this machine,
  started for the run and closed after it (no set-up).  Its workers are forked from one server
  process that imported Dask and the grader once (:mod:`~autograder.cohort.run.fork_server`, started as
  ``grade`` begins), with this process's environment as it is when the cluster starts.
* The local cluster authenticates: it speaks TLS with certificates made for the run and held in
  memory (:meth:`distributed.security.Security.temporary`, both ends show a certificate of the run's
  own authority), so another user of the machine who finds its ports (``/proc/net/tcp`` lists them)
  cannot connect a client and run code as the instructor.  It serves no dashboard.  Its scratch space is a
  folder made for the run with mode 0700 (:func:`private_scratch`), never a fixed shared path such as
  ``/tmp/dask-scratch-space-UID`` that another user could make first.
* ``--scheduler tcp://HOST:8786`` grades on an existing cluster: workers started with
  ``dask worker`` on other machines, by dask-jobqueue or by dask-kubernetes.  Each needs the
  course package installed (the same version) and bubblewrap; start them with
  ``--nthreads 1`` (a grader grades one notebook at a time).  A ``tls://`` address is reached
  with Dask's TLS configuration (``distributed.comm.tls.*``: the authority, the client's certificate
  and key); a ``tcp://`` scheduler accepts any client, so on a machine where other people work
  (:func:`~autograder.cohort.privacy.other_people`) the run stops before it connects, unless
  ``--insecure-scheduler`` asks for it by name.

Every Dask worker gets a :class:`~autograder.cohort.worker.dask_plugin.GraderPlugin` for the run: its own scratch course, the
assignment's template gradebook and data files (sent with the plugin, so no folder is
shared) and its own unprivileged uid for the sandbox.  A worker that dies mid-notebook is
Dask's to handle: the scheduler gives the submission to another worker; a submission that a
worker dies with again ends as ``KilledWorker``, recorded once as failed with the reason.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import stat
import tempfile
import threading
import time
import uuid

from ..jobs import Job, RunSpec
from ..records import GRADER, STUDENT, Failure, SubmissionResult
from ..worker.dask_plugin import UNSET_ENV, GraderPlugin, grade_on_worker, uid_of_worker
from . import fork_server
from .fork_server import PRELOAD, START_METHOD

#: How many times a submission may take its worker down before it is recorded as failed
#: (set on the scheduler of a local cluster; an external scheduler keeps its own setting).
ALLOWED_FAILURES = 1
#: Dask settings for a local cluster: no statistical profiler sampling the grading thread every
#: 10 ms, and the event loop's housekeeping at a pace a grader that takes seconds a task needs.
LOCAL_CONFIG = {
    "distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
    # A worker restarted by its nanny (after it died, or ran a task past its hard limit) must import the
    # grader again before it re-registers; on a busy machine that can take longer than Dask's default 15 s,
    # after which a LocalCluster closes the nanny for good and the run goes on one worker short.
    "distributed.deploy.lost-worker-timeout": "180s",
    # The scheduler and every worker always start an HTTP server (for the dashboard, metrics, health and the
    # "info" pages, which list workers, tasks and their call stacks).  It speaks neither TLS nor any
    # authentication: serve nothing on it.
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}

class ClusterError(RuntimeError):
    """The cluster cannot be reached or has no worker."""


class InsecureScheduler(ClusterError):
    """An unauthenticated scheduler on a machine where other people work, not asked for by name."""


#: The prefix of the private folder each local cluster keeps its scratch space in.
SCRATCH_PREFIX = "tl-dask-"


def private_scratch() -> str:
    """A folder for this run's Dask scratch space, made here with mode 0700 (``mkdtemp``) inside Dask's
    ``temporary-directory`` (``DASK_TEMPORARY_DIRECTORY``) or the system's temporary folder.

    Dask's own default is a fixed name (``dask-scratch-space``, per uid) that it reuses when it exists and puts on
    the workers' ``sys.path``; in a shared ``/tmp`` another user can make it first.  Here the folder is new, and
    the folder it is made in must not be another ordinary user's (its owner could rename ours away and put their
    own in its place): a folder owned by anyone but this user or root, or writable by others without the sticky
    bit, is refused with :class:`PermissionError`."""
    import dask

    base = dask.config.get("temporary-directory", None) or tempfile.gettempdir()
    st = os.stat(base)
    me = os.geteuid()
    if st.st_uid not in (me, 0):
        raise PermissionError(errno.EPERM, "the folder for the grading cluster's scratch space belongs to another "
                                           f"user (uid {st.st_uid}), who could replace what is made in it", base)
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        raise PermissionError(errno.EPERM, "the folder for the grading cluster's scratch space is writable by other "
                                           "users and has no sticky bit: they could replace what is made in it", base)
    folder = tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=base)
    made = os.lstat(folder)
    if made.st_uid != me or stat.S_IMODE(made.st_mode) != 0o700 or not stat.S_ISDIR(made.st_mode):
        raise PermissionError(errno.EPERM, "the grading cluster's scratch folder is not this user's alone", folder)
    return folder


def scheduler_security(address: str, others: list[str], insecure: bool):
    """How to reach the scheduler at ``address``: Dask's TLS configuration for a ``tls://`` one; ``None`` for an
    unauthenticated one, allowed only where nobody else works on this machine or by ``--insecure-scheduler``."""
    from distributed.security import Security

    if address.startswith("tls://"):
        security = Security()  # distributed.comm.tls.* from Dask's configuration
        if not (security.tls_ca_file and security.tls_client_cert):
            raise ClusterError(f"the scheduler at {address} speaks TLS, but Dask's configuration names no "
                               "certificate authority and client certificate (distributed.comm.tls.ca-file, "
                               "distributed.comm.tls.client.cert and .key, or DASK_DISTRIBUTED__COMM__TLS__CA_FILE "
                               "...). Nothing was graded")
        return security
    if others and not insecure:
        raise InsecureScheduler(
            f"the scheduler at {address} accepts any client: anyone who can reach its port ({', '.join(others[:5])}"
            f"{' and others' if len(others) > 5 else ''} work on this machine) could run code as you in the grading "
            "run and read the solutions and the gradebook. Start the cluster with TLS (`dask scheduler "
            "--tls-ca-file ... --tls-cert ... --tls-key ...`, workers likewise), give its tls:// address and Dask's "
            "TLS configuration (distributed.comm.tls.*), or pass --insecure-scheduler to grade on it anyway. "
            "Nothing was graded")
    return None


def _local_cluster_failure(error: BaseException) -> str:
    """What stopped the local cluster, and what to do: the grader's own fault, never a student's."""
    import dask

    cause: BaseException | None = error
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, OSError):
        folder = dask.config.get("temporary-directory", None) or tempfile.gettempdir()
        return (f"the local grading cluster could not start: {cause.strerror or cause}"
                f"{': ' + str(cause.filename) if cause.filename else ''}. Its workers keep their scratch space in "
                f"{folder} (Dask's temporary-directory); make that folder writable by this user, or point "
                "DASK_TEMPORARY_DIRECTORY at one that is. Nothing was graded")
    return f"the local grading cluster could not start: {error}. Nothing was graded"


def _deaths(key: str, dask_scheduler=None) -> int:
    """How many workers died while running task ``key`` (the scheduler's own count)."""
    task = dask_scheduler.tasks.get(key)
    return int(getattr(task, "suspicious", 0) or 0)


def _wanted(key: str, dask_scheduler=None) -> bool:
    """Whether a client still wants task ``key`` (the scheduler has not yet processed its cancellation)."""
    task = dask_scheduler.tasks.get(key)
    return task is not None and bool(task.who_wants)


class DaskCluster:
    """A Dask client for one run (and the local cluster it started, if any)."""

    def __init__(self, workers: int, scheduler: str | None = None, others: list[str] | None = None,
                 insecure_scheduler: bool = False) -> None:
        self.scheduler, self.requested = scheduler, workers
        self.others, self.insecure_scheduler = list(others or []), insecure_scheduler
        self.authenticated = False  # whether the cluster shows who may connect (TLS with a certificate)
        self.scratch: str | None = None  # a local cluster's private scratch folder (private_scratch)
        self.cluster = self.client = None
        self.plugin_name = ""
        self._launched: threading.Thread | None = None  # connecting in the background (launch)
        self._error: BaseException | None = None  # what connecting raised, raised again by connect
        self.uids: set[int] = set()
        self.seen_workers = 0  # the most workers the run had at once
        self.retried: dict[str, int] = {}  # student -> how many workers died grading them
        self._settings = None  # a local cluster's Dask settings (dask.config.set), undone by close

    @property
    def kind(self) -> str:
        return "scheduler" if self.scheduler else "local"

    def launch(self) -> None:
        """Start connecting (or starting the local cluster) in the background; :meth:`start` waits for it."""
        self._launched = threading.Thread(target=self._connect, name="grading-engine", daemon=True)
        self._launched.start()

    def _connect(self) -> None:
        import dask
        from distributed import Client, LocalCluster

        try:
            if self.scheduler:
                security = scheduler_security(self.scheduler, self.others, self.insecure_scheduler)
                self.authenticated = security is not None
                try:
                    self.client = Client(self.scheduler, timeout="20s", security=security)
                except OSError as error:
                    raise ClusterError(f"cannot reach the Dask scheduler at {self.scheduler}: {error}") from None
            else:
                from distributed.security import Security

                forked = fork_server.available()
                self.scratch = private_scratch()
                # This run's Dask settings, in force until close() puts the previous ones back.
                self._settings = dask.config.set(
                    {**LOCAL_CONFIG, "temporary-directory": self.scratch,
                     **({"distributed.worker.multiprocessing-method": START_METHOD} if forked else {})})
                env = None
                if forked:
                    env = _worker_environment(_prepare_fork_server())
                security = Security.temporary()  # the run's own authority and certificates, in memory only
                self.cluster = LocalCluster(n_workers=self.requested, threads_per_worker=1, processes=True,
                                            host="127.0.0.1", protocol="tls://", security=security,
                                            dashboard_address=None, worker_dashboard_address=None,
                                            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                            memory_limit=0, silence_logs=logging.ERROR, preload=PRELOAD,
                                            env=env)
                self.client = Client(self.cluster, security=security)
                self.authenticated = True
        except BaseException as error:  # noqa: BLE001 - handed to start(), in the calling thread
            self._error = error

    def connect(self) -> None:
        """Wait for the cluster (started by :meth:`launch`, or now)."""
        if self._launched is None:
            self.launch()
        self._launched.join()
        if self._error is not None:
            if self.scheduler is None and not isinstance(self._error, ClusterError):
                raise ClusterError(_local_cluster_failure(self._error)) from self._error
            raise self._error

    def start(self, spec: RunSpec) -> None:
        """Wait for the cluster, then give every worker (present and future) a grader for ``spec``."""
        self.connect()
        if not self.count_workers():
            raise ClusterError(f"the Dask scheduler at {self.scheduler} has no worker: start some with "
                              f"`dask worker {self.scheduler} --nthreads 1`")
        plugin = GraderPlugin(spec, uuid.uuid4().hex[:8])
        self.plugin_name = plugin.name
        self.client.register_plugin(plugin, name=plugin.name)
        self._learn_uids()

    def _learn_uids(self) -> None:
        try:
            self.uids |= set(self.client.run(uid_of_worker, self.plugin_name).values())
        except Exception:  # noqa: BLE001 - a worker that left meanwhile has nothing to drain
            pass

    def count_workers(self) -> int:
        """How many workers the cluster has now (asks the scheduler; keeps the most it has seen)."""
        count = len(self.client.scheduler_info(n_workers=-1).get("workers", {})) if self.client else 0
        self.seen_workers = max(self.seen_workers, count)
        return count

    def submit(self, job: Job):
        return self.client.submit(grade_on_worker, self.plugin_name, job.as_dict(),
                                  key=f"grade-{job.seq}-{uuid.uuid4().hex[:6]}", pure=False)

    def outcome(self, future, student: str) -> SubmissionResult:
        """The future's outcome; a failed one (with the reason) when its workers died with it."""
        try:
            return SubmissionResult.from_dict(future.result())
        except Exception as error:  # noqa: BLE001 - KilledWorker, a lost scheduler: one student's problem
            name = type(error).__name__
            if name == "KilledWorker":
                return SubmissionResult.failed(student, Failure(
                    STUDENT, "worker-died", f"the grading process died while grading this notebook, "
                                            f"{ALLOWED_FAILURES + 1} times on different workers"))
            return SubmissionResult.failed(student, Failure(
                GRADER, "engine", f"the grading engine lost this notebook ({name}: {error})",
                "check the Dask cluster (its scheduler and workers), then grade this student again"))
        finally:
            self._count_deaths(future.key, student)

    def _count_deaths(self, key: str, student: str) -> None:
        try:
            deaths = self.client.run_on_scheduler(_deaths, key)
        except Exception:  # noqa: BLE001 - the count is for the record only
            deaths = 0
        if deaths:
            self.retried[student] = deaths

    def stop_task(self, future) -> None:
        """Stop a task that ran past its hard limit: cancel it and restart the worker running it."""
        key = future.key
        try:
            busy = [w for w, keys in self.client.processing().items() if key in keys]
            future.cancel()
            if busy and self.cluster is not None:
                # The cancellation travels on the client's batched stream, which the restart's own call can
                # overtake: the scheduler would then hand the still-wanted task to another worker as the
                # restarted one leaves, and that worker's only thread would run the stopped notebook again.
                deadline = time.monotonic() + 30
                while self.client.run_on_scheduler(_wanted, key) and time.monotonic() < deadline:
                    time.sleep(0.02)
                self.client.restart_workers(busy, timeout=60)
                self._learn_uids()
        except Exception:  # noqa: BLE001 - best effort: the task is recorded as failed either way
            pass

    def close(self) -> None:
        """Close the client and the local cluster, whose workers take their sandboxes with them; on an
        existing cluster, take the run's plugin off every worker first (its teardown stops the sandbox of
        a notebook still running there, so a stopped run leaves no student code behind)."""
        from ..kernels.box import drain

        if self._launched is not None:
            self._launched.join()
        if self.client is not None:
            if self.plugin_name and self.cluster is None:
                try:
                    self.client.unregister_worker_plugin(self.plugin_name)
                except Exception:  # noqa: BLE001 - the plugin is gone with its workers
                    pass
            try:
                self.client.close(timeout=10)
            except Exception:  # noqa: BLE001
                pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=20)
            except Exception:  # noqa: BLE001
                pass
            for uid in self.uids:
                drain(uid, patience=5.0)
        if self._settings is not None:
            self._settings.__exit__(None, None, None)
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
        self.client = self.cluster = self._settings = self.scratch = None


def _prepare_fork_server() -> dict:
    """Name the grader's modules for the fork server (:mod:`~autograder.cohort.run.fork_server`), which may have
    started already; returns the environment it started with."""
    from distributed.utils import get_mp_context

    get_mp_context()  # with the start method set, Dask names its own modules for the server, once per process
    return fork_server.prepare()


def _worker_environment(server_env: dict) -> dict:
    """The environment a worker forked from the fork server should have: this process's as it is now.  The
    server keeps ``server_env``, which an earlier run's may have been (a coordinator that grades more than
    once); its Nanny sets what was added or changed since, and the worker removes what was taken away."""
    env = dict(os.environ)
    gone = sorted(set(server_env) - set(env))
    if gone:
        env[UNSET_ENV] = json.dumps(gone)
    return env


def wait_any(futures: list, timeout: float):
    """The futures of ``futures`` that are done, waiting at most ``timeout`` seconds for one."""
    from distributed import wait

    if not futures:
        time.sleep(timeout)
        return set()
    try:
        done, _ = wait(futures, timeout=timeout, return_when="FIRST_COMPLETED")
    except TimeoutError:
        return set()
    return done
