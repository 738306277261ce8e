"""The confinement rendered as bubblewrap's command line: a cold kernel's, and the warm template's own sandbox.

:func:`kernel_argv` runs one notebook's kernel: no network (a fresh network namespace; the kernel talks
to its client over IPC sockets in a directory bound into the sandbox); a read-only system (only
``/usr``, ``/lib*``, ``/bin``, ``/etc``, the Python installation, the virtual environment and the
site-packages folders its ``.pth`` files add, plus the coordinator's own ``autograder`` package, bound
at :func:`~autograder.cohort.kernels.confinement.package_root` and first on the kernel's
``PYTHONPATH``); a private, writable home holding nothing but the staged files; a dropped uid and the
rlimits of its :class:`~autograder.cohort.kernels.confinement.Confinement`.  :func:`template_argv` is
the same sandbox for a warm template, whose children then confine themselves.  :func:`probe` tells
whether bubblewrap can run here, so that ``--sandbox auto`` can fall back loudly where it cannot.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from .confinement import (
    BASE_UID,
    HOME,
    NOBODY,
    SYSTEM,
    TOP_LEVEL,
    Confinement,
    Limits,
    is_root,
    kernel_env,
    package_dir,
    package_root,
    python_dirs,
)

#: Environment variable naming the bubblewrap binary (tests point it elsewhere).
BWRAP_ENV = "AUTOGRADER_BWRAP"
#: How each rlimit is spelt on prlimit's command line.
PRLIMIT = {"AS": "as", "NPROC": "nproc", "CPU": "cpu", "FSIZE": "fsize", "NOFILE": "nofile", "CORE": "core"}


class SandboxUnavailable(RuntimeError):
    """Bubblewrap cannot run here (not installed, or user namespaces are refused)."""


def bwrap_path() -> str | None:
    """The bubblewrap binary to use, or ``None`` when there is none."""
    configured = os.environ.get(BWRAP_ENV)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("bwrap")


def probe(timeout: float = 20.0) -> str | None:
    """``None`` when a sandbox like the grading one starts here; otherwise why it cannot."""
    check = diagnose(timeout)
    return None if check.ok else check.reason


class SandboxCheck(NamedTuple):
    """What :func:`diagnose` found: ``kind`` is ``ok``; ``unavailable`` (no bubblewrap, or the machine refuses
    it the namespaces: nothing the course can change); or ``layout`` (bubblewrap runs here, and the course's own
    mounts fail: the grader's fault, never a reason to grade unconfined)."""

    kind: str
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


def diagnose(timeout: float = 20.0) -> SandboxCheck:
    """Whether the grading sandbox starts here, and if not, whose fault it is (:class:`SandboxCheck`).

    Two starts: the bare namespaces over the host's own root (only the machine can refuse those), then the
    grading sandbox's mounts as a kernel gets them."""
    bwrap = bwrap_path()
    if bwrap is None:
        return SandboxCheck("unavailable", "bubblewrap (bwrap) is not installed; on Debian/Ubuntu: apt-get install bubblewrap")
    bare = [bwrap, *namespace_args(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "/bin/true"]
    failed = _start(bare, timeout)
    if failed:
        return SandboxCheck("unavailable", (
            f"bubblewrap cannot create its namespaces here ({failed}); on Ubuntu 23.10+ AppArmor restricts "
            "unprivileged user namespaces (see `sysctl kernel.apparmor_restrict_unprivileged_userns`)"))
    try:
        mounts = system_binds()
    except RuntimeError as error:  # no mount point for the package
        return SandboxCheck("layout", str(error))
    argv = [bwrap, *namespace_args(), *mounts, "--proc", "/proc", "--dev", "/dev",
            "--", *drop_privileges(BASE_UID), sys.executable, "-c", "import os; print(os.getuid())"]
    failed = _start(argv, timeout)
    if failed:
        return SandboxCheck("layout", (
            f"bubblewrap runs here, but the grading sandbox's own mounts fail: {failed} (the course package is "
            f"mounted at {package_root()}, the environment {sys.prefix} is bound read-only)"))
    return SandboxCheck("ok")


def _start(argv: list[str], timeout: float) -> str:
    """"" when ``argv`` ran and exited 0; otherwise what went wrong (bubblewrap's last line)."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap did not start: {error}"
    if proc.returncode == 0:
        return ""
    detail = (proc.stderr or proc.stdout).strip().splitlines()
    return detail[-1] if detail else f"exit status {proc.returncode}"


def namespace_args() -> list[str]:
    args = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--hostname", "grader"]
    if not is_root():
        # Without root there is no uid to drop to: a user namespace maps us to "nobody".
        args[:0] = ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    return args


def system_binds() -> list[str]:
    """Read-only binds of the system, of this Python and its environment, and of the course package."""
    args: list[str] = []
    made: set[str] = set()
    for path in SYSTEM:
        if os.path.isdir(path):
            args += [*parents(path, made), "--ro-bind", path, path]
    for name in TOP_LEVEL:
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    seen = {"/usr", "/etc"}
    for path in python_dirs():
        if path in seen or any(path.startswith(s + "/") for s in seen):
            continue
        seen.add(path)
        args += [*parents(path, made), "--ro-bind", path, path]
    inside = f"{package_root()}/autograder"
    return [*args, *parents(inside, made), "--ro-bind", package_dir(), inside]


def parents(path: str, made: set[str] | None = None) -> list[str]:
    """``--dir`` arguments creating ``path``'s missing ancestors as 0755 (bwrap's default is 0700).

    ``made`` holds the directories earlier arguments already created or mounted; it is updated.
    """
    made = set() if made is None else made
    args: list[str] = []
    parts = Path(path).parts[1:-1]
    for i in range(1, len(parts) + 1):
        ancestor = "/" + "/".join(parts[:i])
        if ancestor not in made:
            args += ["--perms", "0755", "--dir", ancestor]
            made.add(ancestor)
    made.add(path)
    return args


def drop_privileges(uid: int) -> list[str]:
    """Inside the sandbox, become an unprivileged uid so that RLIMIT_NPROC binds."""
    if not is_root():
        return []
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def limit_args(rlimits: dict[str, int]) -> list[str]:
    """prlimit's command line setting ``rlimits`` (:meth:`Confinement.rlimits`) for what it runs."""
    prlimit = shutil.which("prlimit") or "/usr/bin/prlimit"
    return [prlimit, *(f"--{PRLIMIT[name]}={value}" for name, value in rlimits.items())]


def kernel_argv(confinement: Confinement) -> list[str]:
    """The command prefix that runs a kernel under ``confinement``.

    The kernel's writable places (its home, its cwd, ``/tmp`` and ``/dev/shm``) are size-limited tmpfs
    mounts, so nothing it writes reaches the host's disk or grows in memory past its size; ``/dev`` itself is
    read-only; the staged files are bound into the home read-only; the shared socket directory is the one host
    path it can write.
    """
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    places = confinement.writable()
    tmp, home = ("/tmp", places["/tmp"]), (HOME, places[HOME])
    others = [(place, size) for place, size in places.items() if place not in ("/tmp", HOME)]
    # /tmp first: the system binds that follow may live under /tmp (a checkout or a venv there)
    # and must be mounted on top of the private tmpfs, not hidden by it.  /dev/shm after --dev, which
    # would otherwise leave it a folder of /dev's own tmpfs, in memory and without a size.
    argv = [bwrap, *namespace_args(), "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", str(tmp[1]), "--tmpfs", tmp[0], *system_binds(),
            *parents(home[0]), "--perms", "1777", "--size", str(home[1]), "--tmpfs", home[0]]
    for place, size in others:
        argv += ["--perms", "1777", "--size", str(size), "--tmpfs", place]
    argv += ["--remount-ro", "/dev"]  # without root, /dev's own tmpfs belongs to the kernel's uid: no size, in memory
    for source, inside in confinement.staged():
        argv += ["--ro-bind", source, inside]
    shared = confinement.shared
    argv += [*parents(shared, {"/tmp"}), "--bind", shared, shared, "--chdir", HOME, "--clearenv"]
    for key, value in confinement.env().items():
        argv += ["--setenv", key, value]
    return [*argv, "--", *drop_privileges(confinement.uid), *limit_args(confinement.rlimits())]


def bwrap_argv(box: Path, uid: int, limits: Limits) -> list[str]:
    """:func:`kernel_argv` for the kernel of ``box``, running as ``uid``, under ``limits``."""
    return kernel_argv(Confinement(Path(box), uid, limits))


def template_argv(root: Path, command: list[str], unprivileged: bool) -> list[str]:
    """The sandbox of a warm template running ``command``: the kernels' namespaces and system, the boxes'
    folder ``root`` bound in, and (``unprivileged``) root in a user namespace of its own, to mount each
    child's home and /tmp.

    Not --die-with-parent: that signal follows the thread that started bwrap, and a template outlives
    it.  The template exits when its stdin closes instead, which happens however its owner ends, and
    its pid namespace (every kernel in it) ends with it.
    """
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    namespaces = [a for a in namespace_args() if a != "--die-with-parent"]
    if unprivileged:
        at = namespaces.index("--unshare-user")
        namespaces[at:at + 5] = ["--unshare-user", "--uid", "0", "--gid", "0", "--cap-add", "ALL"]
    root = str(root)
    argv = [bwrap, *namespaces, "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", str(1024 * 1024), "--tmpfs", "/dev/shm",  # each child mounts its own
            "--remount-ro", "/dev",
            "--perms", "1777", "--size", str(64 * 1024 * 1024), "--tmpfs", "/tmp",
            *system_binds(), *parents(HOME), "--perms", "0755", "--dir", HOME,
            *parents(root, {"/tmp"}), "--bind", root, root, "--chdir", "/", "--clearenv"]
    for key, value in kernel_env().items():
        argv += ["--setenv", key, value]
    return [*argv, "--", *command]
