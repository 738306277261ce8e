"""Run a grading kernel under bubblewrap.

:class:`SandboxedKernelManager` is a jupyter_client kernel manager that nbgrader's
``Execute`` preprocessor uses through ``c.Execute.kernel_manager_class``.  Its kernel
runs inside ``bwrap`` with

* no network (a fresh network namespace; the kernel talks to its client over IPC
  sockets in a directory bound into the sandbox);
* a read-only system: only ``/usr``, ``/lib*``, ``/bin``, ``/etc``, the Python
  installation, the virtual environment (and any site-packages folder its ``.pth`` files
  add) are visible, plus the coordinator's own ``autograder`` package, bound at
  :data:`PACKAGE_ROOT` and first on the kernel's ``PYTHONPATH``: the kernel imports exactly
  the package that grades it, however the package is installed;
* a private, writable home (its working directory) holding nothing but the
  assignment's data files: the course root, ``solutions/``, the gradebook, the
  notebook being graded and other students' work are not in the sandbox at all;
* a dropped, unprivileged uid (one per grading worker) and rlimits on address space,
  processes, CPU time, file size and open files;
* a wall-clock limit for the whole notebook, enforced from outside (the sandbox's
  process group is killed), on top of nbgrader's per-cell timeout.

:func:`probe` tells whether bubblewrap can run on this machine, so that
``--sandbox auto`` can fall back loudly where it cannot.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from traitlets import Bool, Dict, Int, Unicode

from .client import PromptKernelManager

#: Environment variable naming the bubblewrap binary (tests point it elsewhere).
BWRAP_ENV = "AUTOGRADER_BWRAP"
#: Where the sandboxed kernel sees its private, writable home (also its cwd).
HOME = "/home/student"
#: The lowest uid a grader's kernels run as: each grader takes ``BASE_UID + 16 * pid + slot`` (``engine.grader_uid``),
#: unique on its machine while the grader's process lives.
BASE_UID = 61000
#: The uid a kernel has in its sandbox without root: the grading user's, mapped to "nobody" in a user namespace.
NOBODY = 65534
#: Where a sandboxed kernel sees the coordinator's ``autograder`` package (first on its PYTHONPATH).
PACKAGE_ROOT = "/opt/torch-ledger"


class SandboxUnavailable(RuntimeError):
    """Bubblewrap cannot run here (not installed, or user namespaces are refused)."""


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


def bwrap_path() -> str | None:
    """The bubblewrap binary to use, or ``None`` when there is none."""
    configured = os.environ.get(BWRAP_ENV)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("bwrap")


def _is_root() -> bool:
    return os.geteuid() == 0


def probe(timeout: float = 20.0) -> str | None:
    """``None`` when a sandbox like the grading one starts here; otherwise why it cannot."""
    bwrap = bwrap_path()
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed; on Debian/Ubuntu: apt-get install bubblewrap"
    argv = [bwrap, *_namespace_args(), *_system_binds(), "--proc", "/proc", "--dev", "/dev",
            "--", *_drop_privileges(BASE_UID), sys.executable, "-c", "import os; print(os.getuid())"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap did not start: {error}"
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        hint = detail[-1] if detail else f"exit status {proc.returncode}"
        return (f"bubblewrap cannot create its namespaces here ({hint}); on Ubuntu 23.10+ AppArmor "
                "restricts unprivileged user namespaces (see `sysctl kernel.apparmor_restrict_unprivileged_userns`)")
    return None


def _namespace_args() -> list[str]:
    args = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--hostname", "grader"]
    if not _is_root():
        # Without root there is no uid to drop to: a user namespace maps us to "nobody".
        args[:0] = ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    return args


def _system_binds() -> list[str]:
    """Read-only binds of the system, of this Python and its environment, and of the course package."""
    args: list[str] = []
    made: set[str] = set()
    for path in ("/usr", "/etc", "/opt/conda"):
        if os.path.isdir(path):
            args += [*_parents(path, made), "--ro-bind", path, path]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    seen = {"/usr", "/etc"}
    for path in _python_dirs():
        if path in seen or any(path.startswith(s + "/") for s in seen):
            continue
        seen.add(path)
        args += [*_parents(path, made), "--ro-bind", path, path]
    inside = f"{PACKAGE_ROOT}/autograder"
    return [*args, *_parents(inside, made), "--ro-bind", package_dir(), inside]


def package_dir() -> str:
    """The ``autograder`` package this process runs (the one every kernel it starts must import)."""
    import autograder

    return str(Path(autograder.__file__).resolve().parent)


def _parents(path: str, made: set[str] | None = None) -> list[str]:
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


def _python_dirs() -> list[str]:
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
    holds the course's solutions; the course package itself is bound at :data:`PACKAGE_ROOT`.
    """
    code = "import json, sys; print(json.dumps(sys.path))"
    try:
        proc = subprocess.run([executable, "-c", code], env={**kernel_env(), "PYTHONPATH": ""}, cwd="/",
                              capture_output=True, text=True, timeout=60)
        paths = json.loads(proc.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return ()
    return tuple(sorted({os.path.realpath(p) for p in paths
                         if isinstance(p, str) and os.path.basename(p) in ("site-packages", "dist-packages")
                         and os.path.isdir(p)}))


def _drop_privileges(uid: int) -> list[str]:
    """Inside the sandbox, become an unprivileged uid so that RLIMIT_NPROC binds."""
    if not _is_root():
        return []
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def process_limit(processes: int) -> int:
    """RLIMIT_NPROC for a kernel that may start ``processes`` processes and threads.  It counts every process of
    the kernel's uid: as root that uid is the kernel's alone; otherwise it is this user's, whose processes
    already count against the limit, so the limit is what the kernel may add to them."""
    return processes if _is_root() else tasks_of(os.getuid()) + processes


def tasks_of(uid: int) -> int:
    """Processes and threads running as ``uid`` (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line)
            if int(status["Uid"].split()[0]) == uid:
                count += int(status["Threads"])
        except (OSError, ValueError, KeyError):
            continue
    return count


def _limit_args(limits: Limits) -> list[str]:
    prlimit = shutil.which("prlimit") or "/usr/bin/prlimit"
    mb = 1024 * 1024
    return [
        prlimit,
        f"--as={limits.memory_mb * mb}",
        f"--nproc={process_limit(limits.processes)}",
        f"--cpu={limits.cpu_seconds}",
        f"--fsize={limits.file_mb * mb}",
        f"--nofile={limits.open_files}",
        "--core=0",
    ]


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
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "TORCHINDUCTOR_CACHE_DIR": "/tmp/torchinductor",
        "NBGRADER_EXECUTION": "autograde",
        "TORCH_LEDGER_GRADING": "1",  # hints show nothing, progress records nothing (autograder.progress)
    }


def bwrap_argv(box: Path, uid: int, limits: Limits) -> list[str]:
    """The command prefix that runs a kernel for ``box`` (see :func:`prepare_box`).

    The kernel's home (its cwd) and ``/tmp`` are size-limited tmpfs mounts, so nothing it
    writes reaches the host's disk; the staged files (data files, the student's other files)
    are bound into the home read-only; the IPC socket directory is the one host path it shares.
    """
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    box = Path(box)
    ipc = box / "ipc"
    size = str(limits.disk_mb * 1024 * 1024)
    # /tmp first: the system binds that follow may live under /tmp (a checkout or a venv there)
    # and must be mounted on top of the private tmpfs, not hidden by it.
    argv = [bwrap, *_namespace_args(),
            "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
            *_system_binds(),
            *_parents(HOME), "--perms", "1777", "--size", size, "--tmpfs", HOME]
    for item in sorted((box / "home").iterdir()):
        argv += ["--ro-bind", str(item), f"{HOME}/{item.name}"]
    argv += [*_parents(str(ipc), {"/tmp"}), "--bind", str(ipc), str(ipc), "--chdir", HOME, "--clearenv"]
    for key, value in kernel_env().items():
        argv += ["--setenv", key, value]
    return [*argv, "--", *_drop_privileges(uid), *_limit_args(limits)]


def prepare_box(box: Path, uid: int) -> Path:
    """A fresh sandbox directory for one notebook: ``home/`` (files staged for the kernel's home,
    bound read-only) and ``ipc/`` (the kernel's sockets and connection file, its uid's until the
    sockets exist)."""
    box = Path(box)
    if box.exists():
        shutil.rmtree(box)
    (box / "home").mkdir(parents=True)
    (box / "ipc").mkdir()
    (box / "lib").mkdir()  # without the sandbox, the kernel's PYTHONPATH: the coordinator's package
    (box / "lib" / "autograder").symlink_to(package_dir(), target_is_directory=True)
    if _is_root():
        os.chown(box / "ipc", uid, uid)
        os.chmod(box / "ipc", 0o700)
    return box


def lock_ipc(box: Path) -> None:
    """Take the socket directory back from the kernel's uid once its sockets exist."""
    ipc = Path(box) / "ipc"
    if _is_root() and ipc.is_dir():
        for path in ipc.iterdir():
            if not path.is_socket():  # the connection file: the kernel may still be reading it
                os.chmod(path, 0o444)
                os.chown(path, 0, 0)
        # Open the directory to everyone before taking it: owned by root while still 0700, it would refuse the
        # kernel's uid for an instant, and a kernel that had not yet looked at its connection file fails to start.
        os.chmod(ipc, 0o755)
        os.chown(ipc, 0, 0)


def kernel_interpreter(kernel_name: str = "python3") -> list[str]:
    """The interpreter a kernel named ``kernel_name`` runs and its options (what precedes ``-m``),
    as jupyter_client will start it; ``[]`` when there is no such kernel."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        argv = list(KernelSpecManager().get_kernel_spec(kernel_name).argv)
    except NoSuchKernel:
        return []
    if not argv:
        return []
    major, minor = sys.version_info[:2]
    if argv[0] in ("python", f"python{major}", f"python{major}.{minor}"):  # jupyter_client's own substitution
        argv[0] = sys.executable
    return argv[: argv.index("-m")] if "-m" in argv else argv[:1]


_WHERE = """import importlib.util, json, sys
spec = importlib.util.find_spec("autograder")
print(json.dumps({"origin": spec.origin if spec else None, "executable": sys.executable}))
"""


@dataclass(frozen=True)
class KernelPackage:
    """Where a grading kernel imports ``autograder`` from, against the coordinator's package."""

    coordinator: str  # the package directory the coordinator runs (a real path on this machine)
    kernel: str  # ``autograder/__init__.py`` as the kernel sees it ("" when it finds none)
    expected: str  # what the kernel must see: the coordinator's package, as bound for it
    problem: str  # "" when the two are the same package


def kernel_package(box: Path, uid: int, limits: Limits, sandboxed: bool, kernel_name: str = "python3") -> KernelPackage:
    """Start the grading kernel's interpreter exactly as a kernel is started (sandbox, environment,
    working directory) and ask where it imports ``autograder`` from.

    The coordinator's package must be what it finds; ``problem`` says why not otherwise.
    """
    coordinator = package_dir()
    interpreter = kernel_interpreter(kernel_name)
    executable = interpreter[0] if interpreter else ""
    if not executable:
        return KernelPackage(coordinator, "", "", f"no Jupyter kernel named {kernel_name!r} is installed for "
                                                  f"{sys.executable} (the notebook's kernelspec)")
    if os.path.realpath(executable) != os.path.realpath(sys.executable):
        return KernelPackage(coordinator, "", "", (
            f"the notebook's kernel {kernel_name!r} runs {executable}, not the interpreter that grades "
            f"({sys.executable}); the sandbox is built for the grading interpreter. Run `{executable} -m autograder "
            "grade ...`, or install that kernel for the grading interpreter (`python -m ipykernel install "
            "--sys-prefix`)"))
    box = prepare_box(box, uid)
    if sandboxed:
        argv = [*bwrap_argv(box, uid, limits), *interpreter, "-c", _WHERE]
        env, cwd = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, str(box)
        expected = f"{PACKAGE_ROOT}/autograder/__init__.py"
    else:
        argv = [*interpreter, "-c", _WHERE]
        env = {**kernel_env(), "HOME": str(box / "home"), "PYTHONPATH": str(box / "lib")}
        cwd = str(box / "home")
        expected = str(box / "lib" / "autograder" / "__init__.py")
    try:
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        shutil.rmtree(box, ignore_errors=True)
        return KernelPackage(coordinator, "", expected, f"the grading kernel's interpreter did not start: {error}")
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1]).get("origin") or ""
    except (ValueError, IndexError):
        detail = proc.stderr.strip() or f"it exited with status {proc.returncode} and printed nothing"
        if "Permission denied" in detail and sandboxed:
            detail += (f" (the sandbox runs kernels as uid {uid}, which must be able to read and run the grading "
                       f"environment {sys.prefix}: `chmod -R o+rX` it, or build it with umask 022)")
        return KernelPackage(coordinator, "", expected, f"the grading kernel's interpreter did not start: {detail[-500:]}")
    finally:
        shutil.rmtree(box, ignore_errors=True)
    if not found:
        problem = (f"the grading kernel cannot import autograder (it looked on its path for the coordinator's "
                   f"package {coordinator}, bound at {PACKAGE_ROOT})")
    elif found != expected:
        problem = (f"the grading kernel would import autograder from {found}, not the package that grades "
                   f"({coordinator}); grades would come from other checks than the ones you run")
    else:
        problem = ""
    return KernelPackage(coordinator, found, expected, problem)


def processes_of(uid: int) -> list[int]:
    """Pids of the processes running as ``uid`` (from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("Uid:"):
                    if int(line.split()[1]) == uid:
                        pids.append(int(entry.name))
                    break
        except (OSError, ValueError):
            continue
    return pids


def drain(uid: int, patience: float = 10.0) -> int:
    """Wait for the last sandbox of ``uid`` to be torn down (its processes count against the next
    kernel's process limit); kill what is left after ``patience`` seconds.  Returns how many were killed."""
    if not _is_root() or uid < BASE_UID:
        return 0
    deadline = time.monotonic() + patience
    while processes_of(uid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = processes_of(uid)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return len(left)


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and its live descendants (from /proc; 0 where unreadable).

    A sandboxed kernel's CPU time does not reach the grader's ``getrusage`` (bubblewrap's
    reaper does not pass it on), so it is sampled here just before the kernel is shut down.
    """
    ticks = os.sysconf("SC_CLK_TCK")
    total, stack, seen = 0, [pid], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        proc = Path(f"/proc/{current}")
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])
            for task in (proc / "task").iterdir():
                stack += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total / ticks


class SandboxedKernelManager(PromptKernelManager):
    """An ``AsyncKernelManager`` whose kernel runs in a bubblewrap sandbox over IPC sockets."""

    box = Unicode("", help="Per-notebook sandbox directory (with home/ and ipc/ inside).").tag(config=True)
    uid = Int(BASE_UID, help="Unprivileged uid the kernel runs as (one per worker).").tag(config=True)
    limits = Dict({}, help="Limits as a dict (see autograder.cohort.sandbox.Limits).").tag(config=True)
    sandboxed = Bool(True, help="False runs the kernel without bubblewrap (no isolation).").tag(config=True)
    #: Where each launched kernel's record goes (its process, whether the wall clock stopped it, its CPU
    #: time): a grader gives every notebook a subclass with a list of its own.
    events: list | None = None
    #: The warm template the kernel is forked from (:mod:`autograder.cohort.warm`); ``None`` starts it cold.
    template = None

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        if not self.box:
            raise ValueError("SandboxedKernelManager.box must name the notebook's sandbox directory")
        ipc = Path(self.box) / "ipc"
        self.transport = "ipc"
        self.ip = str(ipc / "k")  # sockets ipc/k-1 ... ipc/k-5, created by the kernel
        self.connection_file = str(ipc / "kernel.json")
        self._wall_timer: asyncio.TimerHandle | None = None
        self._lock_task: asyncio.Task | None = None
        self._event: dict = {}

    @property
    def _limits(self) -> Limits:
        return Limits(**self.limits) if self.limits else Limits()

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        cmd = super().format_kernel_cmd(extra_arguments)
        if not self.sandboxed:
            return cmd
        if _is_root():
            os.chown(self.connection_file, self.uid, self.uid)
        return [*bwrap_argv(Path(self.box), self.uid, self._limits), *cmd]

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        from . import warm

        template = self.template
        arguments = warm.kernel_arguments(kernel_cmd) if template is not None else None
        forked = arguments is not None and template.alive()
        if forked:
            try:
                await self._fork_kernel(template, arguments)
            except warm.TemplateError:
                forked = False  # the template went away: this kernel starts cold
        if not forked:
            await self._start_cold(kernel_cmd, **kw)
        self._event = {"started": time.monotonic(), "wall_killed": False, "process": self.provisioner.process,
                       "warm": forked}
        if self.events is not None:
            self.events.append(self._event)
        seconds = self._limits.notebook_seconds
        loop = asyncio.get_running_loop()
        if seconds and seconds > 0:
            self._wall_timer = loop.call_later(seconds, self._kill_on_wall_clock)
        if self.sandboxed:
            self._lock_task = loop.create_task(self._lock_when_bound())

    async def _fork_kernel(self, template, arguments: list[str]) -> None:
        from . import warm

        box = Path(self.box)
        if self.sandboxed:
            process = template.spawn(arguments, cwd=HOME, box=box, log=box / "kernel.log")
        else:  # the child sets JPY_PARENT_PID to its own parent, the template
            process = template.spawn(arguments, cwd=str(box / "home"), env=self._unsandboxed_env(),
                                     log=box / "kernel.log")
        warm.adopt(self, process)

    def _unsandboxed_env(self) -> dict[str, str]:
        """A kernel's environment without the sandbox: its home in the box, the coordinator's package first.
        JPY_PARENT_PID: ipykernel exits when its parent (the grading worker) is gone."""
        return {**kernel_env(), "HOME": str(Path(self.box) / "home"), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "PYTHONPATH": str(Path(self.box) / "lib"), "JPY_PARENT_PID": str(os.getpid())}

    async def _start_cold(self, kernel_cmd: list[str], **kw) -> None:
        if self.sandboxed:
            kw["cwd"] = str(self.box)  # bwrap's own cwd; the kernel's is --chdir
            kw["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        else:
            kw["cwd"] = str(Path(self.box) / "home")
            kw["env"] = self._unsandboxed_env()
        # The kernel's own stdout/stderr (not the notebook's outputs) go to a log file in the box;
        # RLIMIT_FSIZE caps what the kernel can write there.
        log = open(Path(self.box) / "kernel.log", "ab")  # noqa: SIM115 - closed right after the launch
        kw["stdout"] = kw["stderr"] = log
        kw["stdin"] = subprocess.DEVNULL
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            log.close()

    async def _lock_when_bound(self, patience: float = 120.0) -> None:
        """Once the kernel has created its five sockets, it may write nothing more on the host."""
        ipc = Path(self.box) / "ipc"
        waited = 0.0
        while waited < patience:
            if sum(1 for p in ipc.glob("k-*") if p.is_socket()) >= 5:
                lock_ipc(Path(self.box))
                return
            await asyncio.sleep(0.05)
            waited += 0.05

    async def _async_interrupt_kernel(self) -> None:
        # A signal to the process group would reach bwrap itself and end the sandbox; an
        # interrupt_request message makes the kernel signal itself instead.
        if self.sandboxed and self.kernel_spec is not None:
            self.kernel_spec.interrupt_mode = "message"
        await super()._async_interrupt_kernel()

    interrupt_kernel = _async_interrupt_kernel

    def _kill_on_wall_clock(self) -> None:
        process = self.provisioner.process if self.provisioner else None
        if process is None or process.poll() is not None:
            return
        self._event["wall_killed"] = True
        try:
            os.killpg(os.getpgid(process.pid), signal.SIGKILL)
        except (OSError, TypeError):  # TypeError: a forked kernel whose pid here is unknown
            process.kill()

    async def _async_shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        process = self.provisioner.process if self.provisioner else None
        if process is not None and process.poll() is None and process.pid is not None:
            self._event["cpu_seconds"] = tree_cpu_seconds(process.pid)
        await super()._async_shutdown_kernel(now=now, restart=restart)

    shutdown_kernel = _async_shutdown_kernel

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        if self._wall_timer is not None:
            self._wall_timer.cancel()
            self._wall_timer = None
        if self._lock_task is not None and not self._lock_task.done():
            self._lock_task.cancel()
        await super()._async_cleanup_resources(restart=restart)


def describe_exit(event: dict) -> str | None:
    """A readable cause for a kernel that ended on its own (``None`` when it was shut down normally)."""
    if event.get("wall_killed"):
        return "the notebook ran past its wall-clock limit and its kernel was stopped"
    process = event.get("process")
    code = process.poll() if process is not None else None
    if code is None:
        return None
    if code < 0:
        code = 128 - code
    if code > 128:
        sig = code - 128
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        meaning = {"SIGSEGV": "a segmentation fault", "SIGKILL": "killed (memory or CPU-time limit)",
                   "SIGXCPU": "CPU-time limit", "SIGXFSZ": "file-size limit", "SIGBUS": "a bus error",
                   "SIGABRT": "an abort"}.get(name, name)
        return f"the kernel died of {name} ({meaning})"
    return f"the kernel exited with status {code} (os._exit or sys.exit in the kernel)"
