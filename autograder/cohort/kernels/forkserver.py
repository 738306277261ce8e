"""The warm template's own process: it imports torch and the checks once, then forks one kernel per request.

Run as ``python -m autograder.cohort.kernels.forkserver`` by :class:`autograder.cohort.kernels.template.Template`,
it talks to its owner over its stdin and stdout, one JSON object per line.  Each child becomes one
notebook's kernel (:func:`child`): a new session, and, sandboxed, the confinement its request carries
(:meth:`autograder.cohort.kernels.confinement.Confinement.request`) applied to itself by :func:`isolate`
before any student code runs:

* a mount namespace of its own with a fresh, size-limited tmpfs for each writable place (its home and
  ``/tmp``), the staged files bound read-only into the home, the rest of the box hidden;
* without root (the template is then root only in bubblewrap's user namespace, the grading user mapped
  to 0, which is what lets a child mount), the kernel is also the first process of a pid namespace of
  its own, with a stand-in outside it (:func:`_own_pid_namespace`), and uid 65534 in a user namespace
  of its own (:func:`_enter_own_user_namespace`): its uid is the grading user's there, as the
  template's is, so only namespaces keep it from signalling or tracing the template;
* the rlimits and the uid of the confinement; then Python's and NumPy's global RNGs reseeded from the
  OS, as a new interpreter seeds them (torch's default generator is untouched by the template, so it
  starts from torch's default seed, as in a new interpreter).

This module imports nothing of the package but the confinement's names, so that the template's own
imports are the ones it is asked to preload.
"""

from __future__ import annotations

import json
import os
import select
import signal
import stat
import sys
import time
from pathlib import Path

from .confinement import RLIMITS

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE = 1, 4
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18


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


def ready(ready_r: int, patience: float, owner: int = 0) -> bool | None:
    """Whether a forked kernel wrote its ``1`` on ``ready_r`` within ``patience`` seconds; ``None`` as soon as the
    owner's end of ``owner`` (the template's stdin) closes instead.  A request that arrives meanwhile is left
    for the main loop: only an end of file is read as the owner gone (it was killed: its template must not sit out
    the kernel's patience first, and its sandbox with it)."""
    import fcntl
    import struct
    import termios

    deadline = time.monotonic() + patience
    watch = [ready_r, owner]
    while (left := deadline - time.monotonic()) > 0:
        readable = select.select(watch, [], [], left)[0]
        if ready_r in readable:
            return os.read(ready_r, 1) == b"1"
        if owner in readable:
            waiting = struct.unpack("i", fcntl.ioctl(owner, termios.FIONREAD, b"\0\0\0\0"))[0]
            if waiting == 0:
                return None  # readable with nothing to read: the end of the file
            watch = [ready_r]  # a request: the main loop reads it after this spawn
    return False


def _send(fd: int, message: dict) -> None:
    os.write(fd, (json.dumps(message) + "\n").encode())


def open_libc():
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


def isolate(request: dict) -> None:
    """In a sandboxed child: apply the confinement of ``request`` (:meth:`Confinement.request`) to this
    process.  Its own mounts (a fresh tmpfs for each writable place, the staged files read-only, the
    shared socket directory, the rest of the box hidden), then the rlimits and the uid."""
    import resource

    libc = open_libc()
    root = request["root"]
    if libc.unshare(CLONE_NEWNS) != 0:
        raise OSError("unshare(CLONE_NEWNS) failed")
    _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)
    shared = os.open(request["shared"], os.O_PATH | os.O_DIRECTORY)
    staged = [(inside, os.open(source, os.O_PATH)) for source, inside in request["staged"]]
    # What the sandbox binds under /tmp (a checkout or a virtual environment there) must stay visible on
    # top of the fresh /tmp, as in a cold sandbox, where /tmp is mounted first.
    under_tmp = [(point, read_only, os.open(point, os.O_PATH)) for point, read_only in _mounts_under("/tmp")
                 if not (point == root or point.startswith(root.rstrip("/") + "/"))]
    for place, size in request["writable"].items():
        _mount(libc, "tmpfs", place, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size},mode=1777")
    for point, read_only, fd in under_tmp:
        _bind_fd(libc, fd, point, read_only)
    if os.path.isdir(root):  # hide the rest of the box (when the root is not under the fresh /tmp already)
        _mount(libc, "tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=0755")
    os.makedirs(request["shared"], mode=0o755)
    _mount(libc, f"/proc/self/fd/{shared}", request["shared"], None, _MS_BIND)
    os.close(shared)
    for inside, fd in staged:
        _bind_fd(libc, fd, inside, True)
    if request.get("userns"):
        _own_pid_namespace(libc, request["shared"])  # returns in the kernel only
    # RLIMIT_NPROC counts every process of the kernel's uid on the machine; without root that uid is the grading
    # user's, whose processes only the owner (outside this pid namespace) can count: the request holds the limit.
    for name in RLIMITS:
        value = int(request["rlimits"][name])
        resource.setrlimit(getattr(resource, f"RLIMIT_{name}"), (value, value))
    uid = int(request["uid"])
    if request.get("userns"):
        _enter_own_user_namespace(libc, uid)
    else:
        os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # every capability is gone from here on
    libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)  # as after exec, so the kernel can read its own /proc entries


def _bind_fd(libc, fd: int, target: str, read_only: bool) -> None:
    """Bind what ``fd`` (an ``O_PATH`` descriptor) names onto ``target``, made first; closes ``fd``."""
    path = Path(target)
    if os.path.isdir(f"/proc/self/fd/{fd}"):
        path.mkdir(parents=True, exist_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    _mount(libc, f"/proc/self/fd/{fd}", path, None, _MS_BIND | _MS_REC)
    if read_only:
        _mount(libc, None, path, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    os.close(fd)


def _own_pid_namespace(libc, shared: str) -> None:
    """Without root, a kernel and its uid are the grading user's, as its template's are: it could signal the
    template by pid.  So the kernel runs as the first process of a pid namespace of its own, where no process
    outside it has a pid to be named by (nor can a pidfd reach one); what it leaves running ends with it.  The
    child the template forked stays outside as its stand-in (:func:`_stand_in`); this returns in the kernel."""
    import ctypes

    if libc.unshare(CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWPID) failed")
    kernel = os.fork()
    if kernel:
        _stand_in(kernel, libc, shared)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the stand-in killed: the kernel goes too


#: The sockets a kernel binds in the shared directory: shell, iopub, stdin, control and heartbeat.
CHANNELS = 5
#: A statvfs flag of a mount that a remount in a user namespace must keep, and the mount flag that keeps it.
_KEPT_FLAGS = {2: _MS_NOSUID, 4: _MS_NODEV, 8: 8, 1024: 1024, 2048: 2048, 4096: 1 << 21}
#: The stand-in's exit status when it could not make the socket directory read-only (the kernel is ended).
NOT_LOCKED = 86


def remount_read_only(libc, path: str) -> None:
    """Make the bind mount at ``path`` read-only in this mount namespace, keeping the flags it was given (a remount
    in a user namespace that drops one of them is refused)."""
    kept = os.statvfs(path).f_flag
    flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY
    for flag, mount_flag in _KEPT_FLAGS.items():
        flags |= mount_flag if kept & flag else 0
    _mount(libc, None, path, None, flags)


def _lock_when_bound(libc, shared: str, kernel: int, patience: float = 120.0):
    """Without root the kernel's uid owns the shared socket directory on the host, so no chown can take it back:
    once the kernel's sockets exist, the stand-in (still root in the template's user namespace, and in the
    kernel's mount namespace) makes the kernel's view of it read-only.  The connection file is already written
    (ipykernel rewrites it only when it changed).  Returns the kernel's wait status if it ended first."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        pid, status = os.waitpid(kernel, os.WNOHANG)
        if pid:
            return status
        try:
            names = os.listdir(shared)
        except OSError:
            names = []
        if sum(1 for name in names if stat.S_ISSOCK(os.lstat(os.path.join(shared, name)).st_mode)) >= CHANNELS:
            remount_read_only(libc, shared)
            return None
        time.sleep(0.02)
    raise TimeoutError(f"the kernel's {CHANNELS} sockets did not appear in {patience:g} s")


def _stand_in(kernel: int, libc=None, shared: str | None = None) -> None:
    """The template's child, for a kernel in its own pid namespace: makes the kernel's socket directory
    read-only once its sockets exist (:func:`_lock_when_bound`; a kernel whose directory cannot be locked is
    ended, and the stand-in exits with :data:`NOT_LOCKED`), passes signals on and ends as the kernel ends (by
    the same signal, or with the same status), so that its owner sees the kernel's own fate."""
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
        status = _lock_when_bound(libc, shared, kernel) if shared else None
    except ChildProcessError:
        os._exit(1)
    except Exception:  # noqa: BLE001 - the directory stays the kernel's to write: end it rather than grade it so
        try:
            os.kill(kernel, signal.SIGKILL)
            os.waitpid(kernel, 0)
        finally:
            os._exit(NOT_LOCKED)
    try:
        if status is None:
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
    if libc.unshare(CLONE_NEWUSER) != 0:
        import ctypes

        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER) failed")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} 0 1"), ("gid_map", f"{uid} 0 1")):
        try:
            with open(f"/proc/self/{name}", "w") as file:
                file.write(text)
        except PermissionError:
            if name != "setgroups":  # already denied by the parent namespace: nothing to write
                raise


def child(request: dict, control: list[int], ready: int) -> None:
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
            isolate(request)
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
    lines = _Lines(0)
    config: list[dict] = []
    while not config and not lines.closed:
        config = lines.read()
    if not config:
        return
    server = _Server(config[0])
    pending = list(config[1:])
    try:
        while True:
            for request in pending:
                server.handle(request)
            readable = select.select([0, server.wake_r], [], [])[0]
            if server.wake_r in readable:
                os.read(server.wake_r, 4096)
            server.reap()
            pending = lines.read() if 0 in readable else []
            if lines.closed:
                return
    finally:  # however the template ends (its owner gone, a message it could not send: BrokenPipeError), its
        server.kill_all()  # kernels end with it: a kernel outlived a SIGKILLed run, under bwrap, for good


class _Server:
    """The template's state once it has imported what it was asked to: its children and how to reach them."""

    def __init__(self, config: dict, out: int = 1) -> None:
        started = time.monotonic()
        self.out = out
        os.environ["TORCH_LEDGER_TEMPLATE"] = "1"  # modules that start helpers on import leave them to each kernel
        failed = _preload(config.get("preload", ()))
        import gc

        # Everything imported so far is left out of the cyclic collector's walks: a kernel's first full
        # collection would otherwise visit (and so copy, page by page) the whole preloaded heap.
        gc.collect()
        gc.freeze()
        self.threads = len(os.listdir("/proc/self/task"))
        with open("/proc/self/maps") as maps:  # a CUDA driver initialised here would not survive a fork
            self.cuda_loaded = any("libcuda.so" in line for line in maps)
        import ipykernel_launcher  # noqa: F401 - only its path: what sys.argv[0] is in a kernel

        self.launcher = ipykernel_launcher.__file__
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        autograder = sys.modules.get("autograder")
        _send(out, {"op": "ready", "seconds": round(time.monotonic() - started, 3), "failed": failed,
                    "threads": self.threads, "pid": os.getpid(), "autograder": getattr(autograder, "__file__", ""),
                    "cuda_loaded": self.cuda_loaded})
        self.children: dict[int, int] = {}  # pid -> request id
        # Only a template alone in a pid namespace of its own (in its sandbox, under that namespace's init) sweeps.
        self.sweeps = bool(config.get("sweep")) and os.getppid() == 1
        if config.get("undumpable"):  # no kernel of the grading user's may trace it or read its memory
            open_libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)

    def handle(self, request: dict) -> None:
        op = request.get("op")
        if op == "spawn":
            self.spawn(request)
        elif op == "sweep" and self.sweeps:  # what the last kernel left running (Template.sweep)
            try:
                os.kill(-1, signal.SIGKILL)  # every process of this pid namespace but its init and this one
            except OSError:
                pass
        elif op == "signal":
            pid = next((p for p, i in self.children.items() if i == request["id"]), None)
            if pid is not None:
                _signal_group(pid, request["signal"])

    def spawn(self, request: dict) -> None:
        if self.threads != 1 or self.cuda_loaded:
            _send(self.out, {"op": "refused", "id": request["id"], "why": "the template cannot fork safely"})
            return
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ready_r)
            child({**request, "launcher": self.launcher}, [self.wake_r, self.wake_w], ready_w)
        os.close(ready_w)
        self.children[pid] = request["id"]
        ok = ready(ready_r, 30)
        os.close(ready_r)
        if ok is None:  # the owner is gone while the kernel got ready: nobody will ask for anything again
            sys.exit(0)  # (serve kills the kernels on its way out)
        _send(self.out, {"op": "spawned", "id": request["id"], "pid": pid, "ok": ok})

    def reap(self) -> None:
        """Tell the owner of every child that has ended, and how."""
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            ident = self.children.pop(pid, None)
            if ident is not None:
                code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
                _send(self.out, {"op": "exited", "id": ident, "status": code})

    def kill_all(self) -> None:
        for pid in self.children:
            for kill in (os.killpg, os.kill):  # its session's processes, and itself if it has none yet
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except OSError:
        try:
            os.kill(pid, sig)
        except OSError:
            pass

if __name__ == "__main__":
    serve()
