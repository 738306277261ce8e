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

import functools
import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import asdict, dataclass
from pathlib import Path

from .processes import tasks_of

#: Where the sandboxed kernel sees its private, writable home (also its cwd).
HOME = "/home/student"
#: The lowest uid a grader's kernels run as: each grader takes ``BASE_UID + 16 * pid + slot``
#: (:func:`autograder.cohort.worker.dask_plugin.grader_uid`), unique on its machine while the grader's process lives.
BASE_UID = 61000
#: The uid a kernel has in its sandbox without root: the grading user's, mapped to "nobody" in a user namespace.
NOBODY = 65534
#: Where a sandboxed kernel may see the coordinator's ``autograder`` package (first on its PYTHONPATH): the
#: first of these that no bound path of the sandbox collides with (:func:`package_root`).  The README's shared
#: environment lives at ``/opt/torch-ledger``: bound read-only, it cannot take a folder mounted inside it.
PACKAGE_ROOTS = ("/opt/torch-ledger", "/run/torch-ledger-package", "/torch-ledger-package")
#: One thread for every BLAS library: a thread pool started on import would leave threads in a warm
#: template, which then could not fork safely; every grading kernel runs with the same settings.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
#: The fresh writable places of a kernel (each a tmpfs of ``Limits.disk_mb``, mode 1777), in mount order.
WRITABLE = ("/tmp", HOME, "/dev/shm")  # /dev/shm: POSIX shared memory (a DataLoader's workers), RAM outside /tmp
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


def collides(place: str, paths) -> str:
    """The first of ``paths`` that ``place`` equals, lies inside or holds ("" when none): a mount at ``place``
    would then hide that path, or need a folder made inside a read-only one."""
    for path in paths:
        path = os.path.realpath(path)
        if place == path or place.startswith(path.rstrip("/") + "/") or path.startswith(place + "/"):
            return path
    return ""


SYSTEM = ("/usr", "/etc", "/opt/conda")
TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


def bound_paths() -> list[str]:
    """Every path the sandbox binds from the host, but the course package (its mount point must avoid them)."""
    paths = [p for p in SYSTEM if os.path.isdir(p)]
    paths += ["/" + n for n in TOP_LEVEL if os.path.islink("/" + n) or os.path.isdir("/" + n)]
    return paths + python_dirs()


def python_dirs() -> list[str]:
    """Directories this interpreter and its virtual environment live in, with the site-packages
    folders its ``.pth`` files add (never the course package's checkout: that is bound on its own)."""
    dirs = {
        os.path.realpath(sys.base_prefix),
        os.path.realpath(sys.prefix),
        os.path.realpath(sysconfig.get_paths()["purelib"]),
        os.path.dirname(os.path.realpath(sys.executable)),
        *site_dirs(sys.executable),
    }
    # A system Python under /usr is covered by the /usr bind; keep the outermost of nested paths.
    ordered = sorted(d for d in dirs if os.path.isdir(d))
    kept: list[str] = []
    for d in ordered:
        if not any(d == k or d.startswith(k + "/") for k in kept):
            kept.append(d)
    return kept


@functools.cache
def site_dirs(executable: str) -> tuple[str, ...]:
    """The site-packages folders on ``executable``'s ``sys.path`` as a kernel would start it.

    Only folders named ``site-packages`` or ``dist-packages``: a ``.pth`` line that puts a
    checkout on the path (an editable install in compat mode) is not bound, since a checkout
    holds the course's solutions; the course package itself is bound at :func:`package_root`.
    """
    code = "import json, sys; print(json.dumps(sys.path))"
    try:
        proc = subprocess.run([executable, "-c", code], env={**kernel_env(unconfined=True), "PYTHONPATH": ""}, cwd="/",
                              capture_output=True, text=True, timeout=60)
        paths = json.loads(proc.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return ()
    return tuple(sorted({os.path.realpath(p) for p in paths
                         if isinstance(p, str) and os.path.basename(p) in ("site-packages", "dist-packages")
                         and os.path.isdir(p)}))


@functools.cache
def package_root() -> str:
    """Where this process's sandboxes mount the ``autograder`` package: the first of :data:`PACKAGE_ROOTS`
    that collides with no path the sandbox binds (the system, this Python, its environment and site-packages,
    the kernel's writable places).  The same in every sandbox of the process: the warm template and its
    children agree on it."""
    taken = [*bound_paths(), sys.prefix, sys.base_prefix, *WRITABLE]
    for place in PACKAGE_ROOTS:
        if not collides(place, taken):
            return place
    raise RuntimeError(f"every mount point for the course package collides with a path the sandbox binds "
                       f"({', '.join(PACKAGE_ROOTS)}; bound: {', '.join(sorted(set(taken)))})")


def unconfined_env(home: Path, lib: Path) -> dict[str, str]:
    """A kernel's environment without the sandbox: its home, and the coordinator's package first on its path.

    Every cache a kernel writes (IPython's profile and startup folder, matplotlib's, inductor's, temporary
    files) is in a folder of its own next to ``home``, made here with mode 0700: a fixed path under ``/tmp``
    is one that any other user of the machine can create first, and what they put there (an IPython startup
    file) would run in the grading kernel with the grader's rights."""
    private = Path(home).parent / "private"
    private.mkdir(mode=0o700, exist_ok=True)
    os.chmod(private, 0o700)
    places = {"IPYTHONDIR": "ipython", "MPLCONFIGDIR": "matplotlib", "TORCHINDUCTOR_CACHE_DIR": "torchinductor",
              "TMPDIR": "tmp", "XDG_CACHE_HOME": "cache", "TRITON_CACHE_DIR": "triton"}
    env = {**kernel_env(unconfined=True), "HOME": str(home), "PYTHONPATH": str(lib)}
    for key, name in places.items():
        (private / name).mkdir(mode=0o700, exist_ok=True)
        env[key] = str(private / name)
    return env


def kernel_env(unconfined: bool = False) -> dict[str, str]:
    """The whole environment of a sandboxed kernel: nothing is inherited from the grader.  (``unconfined``: the
    part an unconfined kernel shares, before :func:`unconfined_env` gives it its own places.)"""
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
        "PYTHONPATH": "" if unconfined else package_root(),  # the coordinator's autograder before any installed one
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
