"""Warm kernels: every grading kernel is forked from a template that has already imported torch.

A fresh kernel spends most of a short notebook's time before its first cell: an interpreter
starts, imports torch, NumPy, IPython and the checks, then opens its sockets.  A
:class:`Template` pays that once per grading worker.  It is a long-lived process (inside the
same bubblewrap sandbox as a cold kernel when grading is sandboxed) that imports
:data:`PRELOAD` and what its assignment's notebook needs (:func:`preload_for`), starts no
thread, and then only forks.  Each notebook's kernel is a fresh
child of it:

* a new process (its own session), so nothing one kernel does to its interpreter (globals,
  monkeypatched torch or checks, ``set_num_threads``, the default dtype, deterministic flags,
  the RNGs) exists in the template or in the next child;
* in the sandbox, a mount namespace of its own with a fresh, size-limited tmpfs for its home
  and for ``/tmp`` (the staged files bound read-only into the home, the box's other files
  hidden), then the same rlimits and the same dropped uid as a cold kernel, set before any
  student code runs; processes it leaves behind are killed before the next notebook (by uid,
  :func:`autograder.cohort.sandbox.drain`, and by :meth:`Template.sweep`);
* without root (the template is then root only in bubblewrap's user namespace, the grading user
  mapped to 0, which is what lets a child mount), the kernel is also the first process of a pid
  namespace of its own, with a stand-in outside it (:func:`_own_pid_namespace`), and uid 65534 in
  a user namespace of its own (:func:`_enter_own_user_namespace`): its uid is the grading user's
  there, as the template's is, so only namespaces keep it from signalling or tracing the template;
* Python's and NumPy's global RNGs reseeded from the OS, as a new interpreter seeds them
  (torch's default generator is untouched by the template, so it starts from torch's
  default seed, as in a new interpreter).

The template talks to its owner over its stdin and stdout, one JSON object per line.  It is
used by :class:`autograder.cohort.sandbox.SandboxedKernelManager` (cohort grading) and by
:class:`WarmKernelManager`, a drop-in kernel manager for plain ``nbgrader autograde``
(the course's ``nbgrader_config.py`` selects it).  Where a template cannot run (a sandbox on a
machine that refuses unprivileged user namespaces to a user who is not root), kernels start cold,
and the run says why.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from .client import PromptKernelManager

#: What every template imports before it forks (each one only if it is installed).
PRELOAD = (
    "numpy", "torch", "torch.nn", "torch.optim", "torch.utils.data",
    "IPython", "ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "autograder", "autograder.checks",
    # what a kernel imports while it starts: its debugger, history, completer and event loop's helpers
    "ipykernel.debugger", "IPython.core.debugger", "IPython.core.completerlib", "IPython.extensions.storemagic",
    "sqlite3", "psutil", "tornado.locks", "tornado.queues", "tornado.platform.asyncio",
)
#: Imported too when the notebook's code names one of the words (each costs over a second at import).
ON_MENTION = {
    "torch._dynamo": ("torch.compile", "torch._dynamo", "torch.export"),
    "sklearn.datasets": ("sklearn",),
    "matplotlib.pyplot": ("matplotlib", "plt."),
}

_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE = 1, 4
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18

_CHECKS_IMPORT = re.compile(r"\bautograder\.checks(?:\.(\w+)|\s+import\s+\(?([\w\s,]+))")


def checks_imported(sources) -> list[str]:
    """The ``autograder.checks`` modules that the code in ``sources`` imports (``from autograder.checks
    import m01_tensors as check``, ``import autograder.checks.m07_eager_compile_export``), in order."""
    here = Path(__file__).resolve().parents[1] / "checks"
    found: list[str] = []
    for source in sources:
        for dotted, imported in _CHECKS_IMPORT.findall(source):
            for name in [dotted] if dotted else [part.split()[0] for part in imported.split(",") if part.split()]:
                if name not in found and (here / f"{name}.py").is_file():
                    found.append(name)
    return found


def preload_for(sources) -> tuple[str, ...]:
    """What a template for the notebook code in ``sources`` imports: :data:`PRELOAD`, the libraries of
    :data:`ON_MENTION` the code names, and the checks modules it imports (its own assignment's checks,
    not every module's: module 07's alone compiles for seconds at import)."""
    sources = list(sources)
    checks = checks_imported(sources)
    text = "\n".join(sources)
    mentioned = tuple(name for name, words in ON_MENTION.items() if any(w in text for w in words))
    return PRELOAD + mentioned + tuple(f"autograder.checks.{name}" for name in checks)


# ==== the template process ===================================================================

def _preload(names) -> list[str]:
    """Import ``names``; the ones that failed (a kernel that imports one sees the error itself)."""
    import importlib

    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional library that is not installed
            failed.append(name)
    return failed


class _Lines:
    """JSON lines from a file descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.closed = fd, b"", False

    def read(self) -> list[dict]:
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.closed = True
            return []
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]


def _send(fd: int, message: dict) -> None:
    os.write(fd, (json.dumps(message) + "\n").encode())


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _mount(libc, source, target, fstype, flags: int, data: str | None = None) -> None:
    import ctypes

    def encode(value):
        return value.encode() if isinstance(value, str) else value

    if libc.mount(encode(source), encode(str(target)), encode(fstype), ctypes.c_ulong(flags), encode(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {source} on {target}: {os.strerror(errno)}")


def _mounts_under(top: str) -> list[tuple[str, bool]]:
    """Mount points strictly below ``top`` in this mount namespace (outermost first), and whether each is read-only."""
    found = []
    with open("/proc/self/mountinfo") as info:
        for line in info:
            fields = line.split()
            point = fields[4].replace("\\040", " ")
            if point.startswith(top.rstrip("/") + "/"):
                found.append((point, "ro" in fields[5].split(",")))
    found.sort(key=lambda item: item[0].count("/"))
    return [(p, ro) for p, ro in found if not any(p != q and p.startswith(q + "/") for q, _ in found)]


def _isolate(request: dict) -> None:
    """In a sandboxed child: its own mounts (fresh home and /tmp, staged files read-only, the rest of
    the box hidden), then the kernel's limits and uid.  Mirrors :func:`sandbox.bwrap_argv`."""
    import resource

    libc = _libc()
    box, home, root = Path(request["box"]), request["home"], request["root"]
    limits = request["limits"]
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise OSError("unshare(CLONE_NEWNS) failed")
    _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)
    size = limits["disk_mb"] * 1024 * 1024
    ipc = os.open(box / "ipc", os.O_PATH | os.O_DIRECTORY)
    staged = sorted((box / "home").iterdir())
    staged_fds = [(item.name, item.is_dir(), os.open(item, os.O_PATH)) for item in staged]
    # What the sandbox binds under /tmp (a checkout or a virtual environment there) must stay visible on
    # top of the fresh /tmp, as in a cold sandbox, where /tmp is mounted first.
    under_tmp = [(point, read_only, os.open(point, os.O_PATH)) for point, read_only in _mounts_under("/tmp")
                 if not (point == root or point.startswith(root.rstrip("/") + "/"))]
    for place in ("/tmp", home):
        _mount(libc, "tmpfs", place, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size},mode=1777")
    for point, read_only, fd in under_tmp:
        target = Path(point)
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
        _mount(libc, f"/proc/self/fd/{fd}", target, None, _MS_BIND | _MS_REC)
        if read_only:
            _mount(libc, None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
        os.close(fd)
    if os.path.isdir(root):  # hide the rest of the box (when the root is not under the fresh /tmp already)
        _mount(libc, "tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=0755")
    os.makedirs(box / "ipc", mode=0o755)
    _mount(libc, f"/proc/self/fd/{ipc}", box / "ipc", None, _MS_BIND)
    os.close(ipc)
    for name, is_dir, fd in staged_fds:
        target = Path(home) / name
        target.mkdir() if is_dir else target.touch()
        _mount(libc, f"/proc/self/fd/{fd}", target, None, _MS_BIND | _MS_REC)
        _mount(libc, None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
        os.close(fd)
    if request.get("userns"):
        _own_pid_namespace(libc)  # returns in the kernel only
    mb = 1024 * 1024
    # RLIMIT_NPROC counts every process of the kernel's uid on the machine; without root that uid is the grading
    # user's, whose processes only the owner (outside this pid namespace) can count: it sends the limit.
    nproc = int(request.get("nproc") or limits["processes"])
    for which, value in ((resource.RLIMIT_AS, limits["memory_mb"] * mb), (resource.RLIMIT_NPROC, nproc),
                         (resource.RLIMIT_CPU, limits["cpu_seconds"]), (resource.RLIMIT_FSIZE, limits["file_mb"] * mb),
                         (resource.RLIMIT_NOFILE, limits["open_files"]), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(which, (value, value))
    uid = int(request["uid"])
    if request.get("userns"):
        _enter_own_user_namespace(libc, uid)
    else:
        os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # every capability is gone from here on
    libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)  # as after exec, so the kernel can read its own /proc entries


def _own_pid_namespace(libc) -> None:
    """Without root, a kernel and its uid are the grading user's, as its template's are: it could signal the
    template by pid.  So the kernel runs as the first process of a pid namespace of its own, where no process
    outside it has a pid to be named by (nor can a pidfd reach one); what it leaves running ends with it.  The
    child the template forked stays outside as its stand-in (:func:`_stand_in`); this returns in the kernel."""
    import ctypes

    if libc.unshare(_CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWPID) failed")
    kernel = os.fork()
    if kernel:
        _stand_in(kernel)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the stand-in killed: the kernel goes too


def _stand_in(kernel: int) -> None:
    """The template's child, for a kernel in its own pid namespace: passes signals on and ends as the kernel
    ends (by the same signal, or with the same status), so that its owner sees the kernel's own fate."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 65536)  # the template's pipes, the kernel's log and its ready pipe are the kernel's alone

    def forward(sig, _frame):
        try:  # a kernel is its namespace's init, which ignores a signal it has no handler for: end it instead
            os.kill(kernel, signal.SIGKILL if sig in (signal.SIGTERM, signal.SIGHUP) else sig)
        except OSError:
            pass

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sig, forward)
    try:
        _, status = os.waitpid(kernel, 0)
    except ChildProcessError:
        os._exit(1)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _enter_own_user_namespace(libc, uid: int) -> None:
    """Without root the template is "root" only in the user namespace bubblewrap made for it (the grading
    user's uid mapped to 0); a child enters a user namespace of its own in which ``uid`` stands for that
    same 0, as a cold sandbox maps the grading user to ``uid``.  Its mounts were made before, in a mount
    namespace this new user namespace does not own, so it cannot undo them."""
    if libc.unshare(_CLONE_NEWUSER) != 0:
        import ctypes

        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER) failed")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} 0 1"), ("gid_map", f"{uid} 0 1")):
        try:
            with open(f"/proc/self/{name}", "w") as file:
                file.write(text)
        except PermissionError:
            if name != "setgroups":  # already denied by the parent namespace: nothing to write
                raise


def _child(request: dict, control: list[int], ready: int) -> None:
    """Become the kernel described by ``request``; never returns."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a new interpreter
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if request.get("box"):
            _isolate(request)
        os.environ.clear()
        os.environ.update(request["env"])
        if "JPY_PARENT_PID" in os.environ:
            os.environ["JPY_PARENT_PID"] = str(os.getppid())
        os.chdir(request["cwd"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        for fd in (null, log, *control):
            os.close(fd)
        os.write(ready, b"1")
        os.close(ready)
        import random

        random.seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        sys.argv = [request["launcher"], *request["arguments"]]
        if "JPY_PARENT_PID" in request["env"]:  # as a kernel jupyter_client starts: it exits when its parent goes
            sys.argv.append(f"--IPKernelApp.parent_handle={os.getppid()}")
        reloader = sys.modules.get("autograder.checks._reload")  # module 07's checks: see its docstring
        if reloader is not None:
            reloader.RELOADER.fork()
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - the reason goes to the kernel log; the kernel did not start
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve() -> None:
    """The template's main loop: read the configuration, import, then fork a kernel per request."""
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # as ipykernel_launcher does; IPython puts '' back in each kernel
    out, lines = 1, _Lines(0)
    config: list[dict] = []
    while not config and not lines.closed:
        config = lines.read()
    if not config:
        return
    started = time.monotonic()
    os.environ["TORCH_LEDGER_TEMPLATE"] = "1"  # modules that start helpers on import leave them to each kernel
    failed = _preload(config[0].get("preload", PRELOAD))
    import gc

    # Everything imported so far is left out of the cyclic collector's walks: a kernel's first full
    # collection would otherwise visit (and so copy, page by page) the whole preloaded heap.
    gc.collect()
    gc.freeze()
    threads = len(os.listdir("/proc/self/task"))
    with open("/proc/self/maps") as maps:  # a CUDA driver initialised here would not survive a fork
        cuda_loaded = any("libcuda.so" in line for line in maps)
    import ipykernel_launcher  # noqa: F401 - only its path: what sys.argv[0] is in a kernel

    launcher = ipykernel_launcher.__file__
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    autograder = sys.modules.get("autograder")
    _send(out, {"op": "ready", "seconds": round(time.monotonic() - started, 3), "failed": failed,
                "threads": threads, "pid": os.getpid(), "autograder": getattr(autograder, "__file__", ""),
                "cuda_loaded": cuda_loaded})
    children: dict[int, int] = {}  # pid -> request id
    # Only a template alone in a pid namespace of its own (in its sandbox, under that namespace's init) sweeps.
    sweep = bool(config[0].get("sweep")) and os.getppid() == 1
    if config[0].get("undumpable"):  # no kernel of the grading user's may trace it or read its memory
        _libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    pending = list(config[1:])
    while True:
        for request in pending:
            if request.get("op") == "spawn":
                if threads != 1 or cuda_loaded:
                    _send(out, {"op": "refused", "id": request["id"], "why": "the template cannot fork safely"})
                    continue
                ready_r, ready_w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(ready_r)
                    _child({**request, "launcher": launcher}, [wake_r, wake_w], ready_w)
                os.close(ready_w)
                children[pid] = request["id"]
                ok = bool(select.select([ready_r], [], [], 30)[0]) and os.read(ready_r, 1) == b"1"
                os.close(ready_r)
                _send(out, {"op": "spawned", "id": request["id"], "pid": pid, "ok": ok})
            elif request.get("op") == "sweep" and sweep:  # what the last kernel left running (Template.sweep)
                try:
                    os.kill(-1, signal.SIGKILL)  # every process of this pid namespace but its init and this one
                except OSError:
                    pass
            elif request.get("op") == "signal":
                pid = next((p for p, i in children.items() if i == request["id"]), None)
                if pid is not None:
                    try:
                        os.killpg(pid, request["signal"])
                    except OSError:
                        try:
                            os.kill(pid, request["signal"])
                        except OSError:
                            pass
        pending = []
        readable = select.select([0, wake_r], [], [])[0]
        if wake_r in readable:
            os.read(wake_r, 4096)
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            ident = children.pop(pid, None)
            if ident is not None:
                code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
                _send(out, {"op": "exited", "id": ident, "status": code})
        if 0 in readable:
            pending = lines.read()
            if lines.closed:
                for pid in children:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
                return


# ==== the owner's side =======================================================================

def _tail(path: Path, size: int = 600) -> str:
    try:
        return Path(path).read_text(errors="replace")[-size:].strip() or "(no message)"
    except OSError:
        return "(no log)"


def _status(pid: int) -> dict:
    """``/proc/PID/status`` as a dict of its fields ({} when the process is gone)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def _descends_from(pid: int, ancestor: int, depth: int = 6) -> bool:
    """Whether ``ancestor`` is among ``pid``'s first ``depth`` ancestors."""
    for _ in range(depth):
        try:
            pid = int(_status(pid).get("PPid", "0"))
        except ValueError:
            return False
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


class TemplateError(RuntimeError):
    """The template did not start, or a kernel could not be forked from it."""


class ForkedKernel:
    """A kernel forked from a :class:`Template`, shaped like the ``Popen`` a provisioner holds."""

    stdin = stdout = stderr = None

    def __init__(self, template: Template, ident: int, pid: int | None) -> None:
        self.template, self.ident, self.pid = template, ident, pid
        self.returncode: int | None = None
        self.ended = threading.Event()

    def _exited(self, status: int) -> None:
        self.returncode = status
        self.ended.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self.ended.wait(timeout):
            raise subprocess.TimeoutExpired(f"forked kernel {self.pid}", timeout)
        return self.returncode  # type: ignore[return-value]

    def send_signal(self, sig: int) -> None:
        if self.returncode is not None:
            return
        if self.pid is not None:
            try:
                os.kill(self.pid, sig)
                return
            except ProcessLookupError:
                return
            except PermissionError:
                pass
        self.template.signal(self.ident, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class Template:
    """A warm template process and the kernels forked from it.

    ``sandboxed``: the template runs in bubblewrap and each child isolates itself
    as described in the module docstring, under ``uid`` and ``limits``; ``root`` is the host
    folder holding the boxes of the notebooks it runs (bound into the sandbox).  Without the
    sandbox, children run as this user with ``env`` (default: this process's environment).
    """

    def __init__(self, root: Path, *, sandboxed: bool = False, uid: int = 0, limits: dict | None = None,
                 env: dict | None = None, preload=PRELOAD) -> None:
        self.root, self.sandboxed, self.uid = Path(root), sandboxed, uid
        self.limits, self.env, self.preload = dict(limits or {}), env, tuple(preload)
        self.process: subprocess.Popen | None = None
        self.kernels: dict[int, ForkedKernel] = {}
        self.info: dict = {}
        self._replies: dict[int, dict] = {}
        self._early_exits: dict[int, int] = {}
        self._cond = threading.Condition()
        self._next = 0
        self._write = threading.Lock()

    @staticmethod
    def supported(sandboxed: bool) -> bool:
        """Whether a template can run here.  A sandboxed one mounts each child's home and /tmp: as root, or,
        without root, inside a user namespace of its own (bubblewrap's, where the machine allows unprivileged
        user namespaces; where it does not, the template fails to start and the run says why)."""
        if not sandboxed or os.geteuid() == 0:
            return True
        from . import sandbox

        return sandbox.bwrap_path() is not None

    @staticmethod
    def unsupported_reason() -> str:
        return ("a sandboxed template needs bubblewrap (each forked kernel mounts its own home and /tmp); "
                "every kernel starts as a new interpreter in its own sandbox")

    @property
    def unprivileged(self) -> bool:
        """A sandboxed template without root: it is root only in its own user namespace (see :func:`_isolate`)."""
        return self.sandboxed and os.geteuid() != 0

    def argv(self) -> list[str]:
        command = [sys.executable, "-m", "autograder.cohort.warm"]
        if not self.sandboxed:
            return command
        from . import sandbox

        bwrap = sandbox.bwrap_path()
        if bwrap is None:
            raise TemplateError("bubblewrap (bwrap) is not installed")
        root = str(self.root)
        # Not --die-with-parent: that signal follows the thread that started bwrap, and a template outlives
        # it.  The template exits when its stdin closes instead, which happens however its owner ends, and
        # its pid namespace (every kernel in it) ends with it.
        namespaces = [a for a in sandbox._namespace_args() if a != "--die-with-parent"]
        if self.unprivileged:  # root in a user namespace of its own, to mount each child's home and /tmp
            at = namespaces.index("--unshare-user")
            namespaces[at:at + 5] = ["--unshare-user", "--uid", "0", "--gid", "0", "--cap-add", "ALL"]
        argv = [bwrap, *namespaces, "--proc", "/proc", "--dev", "/dev",
                "--perms", "1777", "--size", str(64 * 1024 * 1024), "--tmpfs", "/tmp",
                *sandbox._system_binds(), *sandbox._parents(sandbox.HOME), "--perms", "0755", "--dir", sandbox.HOME,
                *sandbox._parents(root, {"/tmp"}), "--bind", root, root, "--chdir", "/", "--clearenv"]
        for key, value in self.kernel_env().items():
            argv += ["--setenv", key, value]
        return [*argv, "--", *command]

    def kernel_env(self) -> dict:
        from . import sandbox

        if self.sandboxed:
            return sandbox.kernel_env()
        return dict(os.environ if self.env is None else self.env)

    def start(self, timeout: float = 240.0) -> Template:
        self.root.mkdir(parents=True, exist_ok=True)
        env = self.kernel_env()
        if self.sandboxed:
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        self._log = open(self.root / "template.log", "ab")  # noqa: SIM115 - kept for the template's life
        self.process = subprocess.Popen(self.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._log, env=env, cwd=str(self.root), start_new_session=True)
        threading.Thread(target=self._read, name="warm-template", daemon=True).start()
        self._request({"op": "configure", "preload": list(self.preload), "sweep": self.sandboxed,
                       "undumpable": self.unprivileged})
        with self._cond:
            if not self._cond.wait_for(lambda: "ready" in self.info or self.process.poll() is not None, timeout):
                self.close()
                raise TemplateError(f"the template did not get ready within {timeout:.0f} s")
        if "ready" not in self.info:
            raise TemplateError(f"the template exited ({self.process.returncode}): {self.log_tail()}")
        problem = ""
        if self.info.get("threads") != 1:
            problem = f"{self.info.get('threads')} threads were running in it after its imports"
        elif self.info.get("cuda_loaded"):
            problem = "its imports loaded the CUDA driver, which a forked process cannot use"
        if problem:
            self.close()
            raise TemplateError(f"the template cannot fork kernels safely: {problem}")
        return self

    def log_tail(self) -> str:
        try:
            return (self.root / "template.log").read_text(errors="replace")[-1500:]
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None and "ready" in self.info

    def _request(self, message: dict) -> None:
        with self._write:
            assert self.process is not None and self.process.stdin is not None
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            with self._cond:
                if message.get("op") == "ready":
                    self.info = {**message, "ready": True}
                elif message.get("op") == "exited":
                    kernel = self.kernels.pop(message["id"], None)
                    if kernel is None:  # it ended before spawn() registered it
                        self._early_exits[message["id"]] = message["status"]
                    else:
                        kernel._exited(message["status"])
                elif "id" in message:
                    self._replies[message["id"]] = message
                self._cond.notify_all()
        with self._cond:  # the template is gone, and with it every kernel it forked
            for kernel in self.kernels.values():
                kernel._exited(-signal.SIGKILL)
            self.kernels.clear()
            self._cond.notify_all()

    def spawn(self, arguments: list[str], *, cwd: str, box: Path | None = None, env: dict | None = None,
              log: Path, timeout: float = 60.0) -> ForkedKernel:
        """Fork a kernel with ``arguments`` (what follows ``-m ipykernel_launcher`` in its command, the
        connection file's ``-f`` among them); ``box`` (sandboxed) is its sandbox directory."""
        from . import sandbox

        if not self.alive():
            raise TemplateError("the template is not running")
        with self._cond:
            self._next += 1
            ident = self._next
        request = {"op": "spawn", "id": ident, "arguments": list(arguments), "cwd": cwd, "log": str(log),
                   "env": env if env is not None else self.kernel_env()}
        if self.sandboxed:
            if box is None:
                raise TemplateError("a sandboxed kernel needs its box")
            limits = {**sandbox.Limits().as_dict(), **self.limits}
            request.update(box=str(box), home=sandbox.HOME, root=str(self.root), uid=self.uid, limits=limits,
                           cwd=sandbox.HOME)
            if self.unprivileged:  # the grading user's uid, mapped to "nobody" as in a cold sandbox
                request.update(uid=sandbox.NOBODY, userns=True, nproc=sandbox.process_limit(int(limits["processes"])))
        self._request(request)
        with self._cond:
            if not self._cond.wait_for(lambda: ident in self._replies or not self.alive(), timeout):
                raise TemplateError(f"no kernel forked within {timeout:.0f} s")
            reply = self._replies.pop(ident, None)
        if reply is None or reply.get("op") != "spawned":
            raise TemplateError((reply or {}).get("why", "the template stopped while forking a kernel"))
        pid = self._host_pid(reply["pid"])
        kernel = ForkedKernel(self, ident, pid)
        with self._cond:
            if ident in self._early_exits:
                kernel._exited(self._early_exits.pop(ident))
            else:
                self.kernels[ident] = kernel
        if not reply.get("ok"):  # it failed before any of the notebook's code ran: ours to report, not the student's
            kernel.kill()
            raise TemplateError(f"a forked kernel could not set itself up: {_tail(log)} {self.log_tail()[-600:]}".strip())
        return kernel

    def _host_pid(self, inner: int) -> int | None:
        """The kernel's pid as this machine sees it (inside the sandbox it has another).

        Every sandboxed template numbers its own pid namespace from 1, and without root the kernels of all of
        them run as the grading user: a pid counts only if it is ``inner`` there and descends from this
        template's bubblewrap (another worker's kernel may have the same inner pid)."""
        if not self.sandboxed:
            return inner
        if self.process is None:
            return None
        from .sandbox import processes_of

        for pid in processes_of(os.getuid() if self.unprivileged else self.uid):
            status = _status(pid)
            if status.get("NSpid", "").split()[-1:] == [str(inner)] and _descends_from(pid, self.process.pid):
                return pid
        return None

    def signal(self, ident: int, sig: int) -> None:
        if self.alive():
            self._request({"op": "signal", "id": ident, "signal": int(sig)})

    def sweep(self) -> None:
        """Kill what the last kernel left running (a sandboxed template is alone in its pid namespace with its
        kernels, one at a time): as a cold sandbox's processes end with it.  Root's runs kill by uid instead
        (:func:`autograder.cohort.sandbox.drain`); without root the kernels' uid is the grading user's."""
        if self.sandboxed and self.alive():
            self._request({"op": "sweep"})

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            try:
                process.stdin.close()  # the template kills its kernels and exits
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except OSError:
                    pass
                process.wait()
        log = getattr(self, "_log", None)
        if log is not None:
            log.close()


# ==== a kernel manager for plain nbgrader ====================================================

_SHARED: dict[str, Template] = {}
_SHARED_LOCK = threading.Lock()
#: Set (unless already set) for a plain template and its kernels: a BLAS library's thread pool, started
#: on import, would leave threads in the template, which then could not fork safely.  The sandboxed
#: grading kernels run with the same settings (:func:`autograder.cohort.sandbox.kernel_env`).
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def _one_thread(env) -> dict:
    return {**ONE_THREAD, **env}


def shared_template(folder: str | None = None) -> Template | None:
    """This process's unsandboxed template (started on first use, preloading the checks that the
    notebooks in ``folder`` import); ``None`` when it cannot start."""
    import atexit
    import tempfile

    with _SHARED_LOCK:
        template = _SHARED.get("plain")
        if template is not None and template.alive():
            return template
        if _SHARED.get("failed"):
            return None
        try:
            template = Template(Path(tempfile.mkdtemp(prefix="torch-ledger-warm-")), env=_one_thread(os.environ),
                                preload=preload_for(_notebook_sources(folder))).start()
        except (OSError, TemplateError) as error:
            print(f"warm kernels unavailable, starting kernels cold: {error}", file=sys.stderr)
            _SHARED["failed"] = True  # type: ignore[assignment]
            return None
        _SHARED["plain"] = template
        atexit.register(template.close)
        return template


def _notebook_sources(folder: str | None) -> list[str]:
    """The text of the notebooks in ``folder`` (where nbgrader runs a kernel: the notebook's own folder)."""
    texts = []
    for path in sorted(Path(folder).glob("*.ipynb"))[:8] if folder else []:
        try:
            texts.append(path.read_text(errors="replace")[:4_000_000])
        except OSError:
            pass
    return texts


def kernel_arguments(kernel_cmd: list[str]) -> list[str] | None:
    """What follows ``PYTHON -m ipykernel_launcher`` in ``kernel_cmd`` when ``PYTHON`` is this interpreter
    (after any sandbox prefix): the arguments a forked kernel is given.  ``None``: no template can stand in."""
    for at in range(len(kernel_cmd) - 2):
        if kernel_cmd[at + 1:at + 3] == ["-m", "ipykernel_launcher"]:
            if os.path.realpath(kernel_cmd[at]) == os.path.realpath(sys.executable):
                return kernel_cmd[at + 3:]
            return None
    return None


class WarmKernelManager(PromptKernelManager):
    """An ``AsyncKernelManager`` whose kernels are forked from this process's warm template.

    For plain ``nbgrader autograde``: ``c.Execute.kernel_manager_class =
    "autograder.cohort.warm.WarmKernelManager"``.  A kernelspec that does not run ipykernel
    with this interpreter starts cold.
    """

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        arguments = kernel_arguments(kernel_cmd)
        cwd = os.path.abspath(kw.get("cwd") or os.getcwd())
        template = shared_template(cwd) if arguments is not None else None
        if template is None:
            await super()._async_launch_kernel(kernel_cmd, **kw)
            return
        try:
            process = template.spawn(arguments, cwd=cwd, env=_one_thread(kw.get("env") or os.environ),
                                     log=template.root / "kernel.log")
        except TemplateError as error:
            print(f"warm kernel not forked, starting it cold: {error}", file=sys.stderr)
            await super()._async_launch_kernel(kernel_cmd, **kw)
            return
        adopt(self, process)


def adopt(manager, process: ForkedKernel) -> None:
    """Hand a forked kernel to ``manager``'s provisioner, as if it had launched it."""
    manager.provisioner.process, manager.provisioner.pid, manager.provisioner.pgid = process, process.pid, None
    manager._reconcile_connection_info(manager.provisioner.connection_info)


if __name__ == "__main__":
    serve()
