"""What confines a grading kernel, stated once as data.

A :class:`Confinement` says what one notebook's kernel may see, write and use: its fresh, size-limited
writable places (its home and ``/tmp``), the files staged read-only into its home, the one host
directory it shares (its sockets), its resource limits, its uid and its whole environment.  Two
renderings carry it out and nothing else decides: :func:`autograder.cohort.kernels.bwrap.kernel_argv`
(a cold kernel: bubblewrap's command line) and :meth:`Confinement.request` (a warm kernel: what the
fork server's child applies to itself, :func:`autograder.cohort.kernels.forkserver.isolate`).
``tests/test_kernels.py`` holds the two renderings against each other.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from .processes import tasks_of

#: Where the sandboxed kernel sees its private, writable home (also its cwd).
HOME = "/home/student"
#: The lowest uid a grader's kernels run as: each grader takes ``BASE_UID + 16 * pid + slot``
#: (:func:`autograder.cohort.run.engine.grader_uid`), unique on its machine while the grader's process lives.
BASE_UID = 61000
#: The uid a kernel has in its sandbox without root: the grading user's, mapped to "nobody" in a user namespace.
NOBODY = 65534
#: Where a sandboxed kernel sees the coordinator's ``autograder`` package (first on its PYTHONPATH).
PACKAGE_ROOT = "/opt/torch-ledger"
#: One thread for every BLAS library: a thread pool started on import would leave threads in a warm
#: template, which then could not fork safely; every grading kernel runs with the same settings.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
#: The fresh writable places of a kernel (each a tmpfs of ``Limits.disk_mb``, mode 1777), in mount order.
WRITABLE = ("/tmp", HOME)
#: The resource limits of a kernel, by their ``RLIMIT_`` name: how each follows from :class:`Limits`.
RLIMITS = ("AS", "NPROC", "CPU", "FSIZE", "NOFILE", "CORE")


@dataclass(frozen=True)
class Limits:
    """Resource limits for one notebook's kernel."""

    memory_mb: int = 4096  # RLIMIT_AS of every process in the sandbox
    processes: int = 128  # RLIMIT_NPROC of the kernel's uid (threads count too)
    cpu_seconds: int = 1200  # RLIMIT_CPU of every process in the sandbox
    file_mb: int = 256  # RLIMIT_FSIZE: the largest file the kernel may write
    disk_mb: int = 512  # size of each of the kernel's two writable places (home and /tmp, both RAM-backed)
    open_files: int = 1024  # RLIMIT_NOFILE
    notebook_seconds: int = 600  # wall clock for the whole notebook, kernel start included

    def as_dict(self) -> dict:
        return asdict(self)


def is_root() -> bool:
    return os.geteuid() == 0


def package_dir() -> str:
    """The ``autograder`` package this process runs (the one every kernel it starts must import)."""
    import autograder

    return str(Path(autograder.__file__).resolve().parent)


def process_limit(processes: int) -> int:
    """RLIMIT_NPROC for a kernel that may start ``processes`` processes and threads.  It counts every process of
    the kernel's uid: as root that uid is the kernel's alone; otherwise it is this user's, whose processes
    already count against the limit, so the limit is what the kernel may add to them."""
    return processes if is_root() else tasks_of(os.getuid()) + processes


def kernel_env() -> dict[str, str]:
    """The whole environment of a sandboxed kernel: nothing is inherited from the grader."""
    venv_bin = os.path.dirname(os.path.abspath(sys.executable))
    return {
        "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": HOME,
        "USER": "student",
        "LOGNAME": "student",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp/matplotlib",
        "IPYTHONDIR": "/tmp/ipython",
        "PYTHONPATH": PACKAGE_ROOT,  # the coordinator's autograder before any installed one
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        **ONE_THREAD,
        "TORCHINDUCTOR_CACHE_DIR": "/tmp/torchinductor",
        "NBGRADER_EXECUTION": "autograde",
        "TORCH_LEDGER_GRADING": "1",  # hints show nothing, progress records nothing (autograder.progress)
    }


@dataclass(frozen=True)
class Confinement:
    """One kernel's confinement, for its box (see :func:`autograder.cohort.kernels.box.prepare_box`)."""

    box: Path
    uid: int  # the uid the kernel runs as when the grader is root
    limits: Limits = Limits()

    @property
    def user(self) -> int:
        """The uid the kernel has inside its sandbox: its own as root, "nobody" (the grading user's) otherwise."""
        return self.uid if is_root() else NOBODY

    @property
    def own_user_namespace(self) -> bool:
        """Without root there is no uid to drop to: a user namespace maps the grading user to :attr:`user`."""
        return not is_root()

    def writable(self) -> dict[str, int]:
        """Each fresh writable place and its size in bytes."""
        return {place: self.limits.disk_mb * 1024 * 1024 for place in WRITABLE}

    def staged(self) -> list[tuple[str, str]]:
        """``(host path, path inside)`` of each file or folder staged into the home, bound read-only."""
        return [(str(item), f"{HOME}/{item.name}") for item in sorted((Path(self.box) / "home").iterdir())]

    @property
    def shared(self) -> str:
        """The one host directory the kernel shares, read-write until its sockets exist: ``ipc/``."""
        return str(Path(self.box) / "ipc")

    def rlimits(self) -> dict[str, int]:
        """Each of :data:`RLIMITS` and its value (soft and hard alike)."""
        mb = 1024 * 1024
        limits = self.limits
        return {"AS": limits.memory_mb * mb, "NPROC": process_limit(limits.processes), "CPU": limits.cpu_seconds,
                "FSIZE": limits.file_mb * mb, "NOFILE": limits.open_files, "CORE": 0}

    def env(self) -> dict[str, str]:
        return kernel_env()

    def request(self, root: Path) -> dict:
        """The confinement as the fork server's child applies it to itself (``root``: the template's
        folder of boxes, hidden from the kernel)."""
        return {"box": str(self.box), "root": str(root), "writable": self.writable(), "staged": self.staged(),
                "shared": self.shared, "rlimits": self.rlimits(), "uid": self.user,
                "userns": self.own_user_namespace, "env": self.env(), "cwd": HOME}
