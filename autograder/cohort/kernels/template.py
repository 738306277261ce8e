"""Warm kernels: every grading kernel is forked from a template that has already imported torch.

A fresh kernel spends most of a short notebook's time before its first cell: an interpreter starts,
imports torch, NumPy, IPython and the checks, then opens its sockets.  A :class:`Template` pays that
once per grading worker.  It is a long-lived process, :mod:`autograder.cohort.kernels.forkserver`
(inside the same bubblewrap sandbox as a cold kernel when grading is sandboxed,
:func:`autograder.cohort.kernels.bwrap.template_argv`), that imports :data:`PRELOAD` and what its
assignment's notebook needs (:func:`preload_for`), starts no thread, and then only forks.  Each
notebook's kernel is a fresh child of it, which confines itself as a cold kernel is confined
(:class:`autograder.cohort.kernels.confinement.Confinement`); processes it leaves behind are killed
before the next notebook (by uid, :func:`autograder.cohort.kernels.box.drain`, and by :meth:`Template.sweep`).

This module is the owner's side: it starts the template, asks it for kernels, and hands each one to a
kernel manager as a ``Popen``-shaped :class:`ForkedKernel`.  Where a template cannot run (a sandbox on a
machine that refuses unprivileged user namespaces to a user who is not root), kernels start cold, and
the run says why.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from .bwrap import bwrap_path, template_argv
from .confinement import ONE_THREAD, Confinement, Limits, kernel_env
from .processes import descends_from, processes_of, status

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


_CHECKS_IMPORT = re.compile(r"\bautograder\.checks(?:\.(\w+)|\s+import\s+\(?([\w\s,]+))")


def checks_imported(sources) -> list[str]:
    """The ``autograder.checks`` modules that the code in ``sources`` imports (``from autograder.checks
    import m01_tensors as check``, ``import autograder.checks.m07_eager_compile_export``), in order."""
    here = Path(__file__).resolve().parents[2] / "checks"  # autograder/checks
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


def _tail(path: Path, size: int = 600) -> str:
    try:
        return Path(path).read_text(errors="replace")[-size:].strip() or "(no message)"
    except OSError:
        return "(no log)"


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

    def __init__(self, root: Path, *, sandboxed: bool = False, uid: int = 0, limits: Limits | None = None,
                 env: dict | None = None, preload=PRELOAD) -> None:
        self.root, self.sandboxed, self.uid = Path(root), sandboxed, uid
        self.limits, self.env, self.preload = limits or Limits(), env, tuple(preload)
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
        return not sandboxed or os.geteuid() == 0 or bwrap_path() is not None

    @staticmethod
    def unsupported_reason() -> str:
        return ("a sandboxed template needs bubblewrap (each forked kernel mounts its own home and /tmp); "
                "every kernel starts as a new interpreter in its own sandbox")

    @property
    def unprivileged(self) -> bool:
        """A sandboxed template without root: it is root only in its own user namespace (see :func:`autograder.cohort.kernels.forkserver.isolate`)."""
        return self.sandboxed and os.geteuid() != 0

    def argv(self) -> list[str]:
        command = [sys.executable, "-m", "autograder.cohort.kernels.forkserver"]
        if not self.sandboxed:
            return command
        if bwrap_path() is None:
            raise TemplateError("bubblewrap (bwrap) is not installed")
        return template_argv(self.root, command, self.unprivileged)

    def kernel_env(self) -> dict:
        if self.sandboxed:
            return kernel_env()
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
        connection file's ``-f`` among them); ``box`` (sandboxed) is its sandbox directory, confined as a
        cold kernel's would be (:class:`Confinement`)."""

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
            request.update(Confinement(Path(box), self.uid, self.limits).request(self.root))
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
        for pid in processes_of(os.getuid() if self.unprivileged else self.uid):
            fields = status(pid)
            if fields.get("NSpid", "").split()[-1:] == [str(inner)] and descends_from(pid, self.process.pid):
                return pid
        return None

    def signal(self, ident: int, sig: int) -> None:
        if self.alive():
            self._request({"op": "signal", "id": ident, "signal": int(sig)})

    def sweep(self) -> None:
        """Kill what the last kernel left running (a sandboxed template is alone in its pid namespace with its
        kernels, one at a time): as a cold sandbox's processes end with it.  Root's runs kill by uid instead
        (:func:`autograder.cohort.kernels.box.drain`); without root the kernels' uid is the grading user's."""
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


_SHARED: dict[str, Template] = {}
_SHARED_LOCK = threading.Lock()


def one_thread(env) -> dict:
    """``env`` with BLAS single-threaded unless it says otherwise (see :data:`ONE_THREAD`)."""
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
            template = Template(Path(tempfile.mkdtemp(prefix="torch-ledger-warm-")), env=one_thread(os.environ),
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
