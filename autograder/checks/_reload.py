"""The helper that reloads module 07's exported programs, each reload in a process of its own.

A check must see whether a *fresh* Python process can load a ``.pt2``: not the learner's
kernel, which already holds the model's classes and torch's caches.  A new interpreter per
reload costs seconds (importing torch), so one helper process imports torch once, warms
``torch.export`` up, holds nothing of the learner's session, and forks a process of its own for
each reload.  It is started in one of two ways:

* :meth:`Reloader.start`: a new interpreter (``python -c``), in a learner's kernel or a cold
  grading kernel.  It runs in a session of its own: when a kernel shuts down, ipykernel terminates
  the processes in its process group and waits until none is left, and a helper the kernel never
  reaps would stay listed (as a zombie) until the kernel manager gave up and killed the kernel,
  seconds later.
* :meth:`Reloader.fork`: a kernel forked from a grading template (``autograder/cohort/kernels/template.py``)
  forks the helper before ipykernel starts, while it is still single-threaded and holds only what
  the template imported (:func:`warm_up` ran there).  It is inside the kernel's sandbox, with
  its limits, like a helper the kernel starts itself, without a new interpreter's imports.

Either way it ends when its owner does: the pipe it reads its requests from closes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

#: Run in a process forked from the helper: load the program, run it on the saved inputs.
RELOAD = r"""
import sys, torch
program = torch.export.load(sys.argv[1])
module = program.module()
outputs = []
for x in torch.load(sys.argv[2]):
    try:
        outputs.append(module(x).detach())
    except Exception as error:
        outputs.append(f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
torch.save(outputs, sys.argv[3])
"""

#: Pay torch.export's own imports and first-use costs once, on a program of its own.
WARM = r"""
import os, tempfile, torch
try:
    with tempfile.TemporaryDirectory() as tmp:
        dim = torch.export.Dim("batch")
        program = torch.export.export(torch.nn.Linear(2, 2), (torch.ones(3, 2),), dynamic_shapes=({0: dim},))
        torch.export.save(program, os.path.join(tmp, "warm.pt2"))
        torch.export.load(os.path.join(tmp, "warm.pt2")).module()(torch.ones(5, 2))
except Exception:
    pass
"""

#: The helper's loop: one request per line on stdin (program, inputs, outputs), one exit code per line on stdout.
SERVE = r"""
import os, sys, traceback
print("ready", flush=True)
for line in sys.stdin:
    args = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:  # a process of its own for each reload: nothing of one reaches the next
        code = 0
        try:
            with open(args[2] + ".err", "w") as err:
                sys.stderr = err
                sys.argv = ["reload", *args]
                try:
                    exec(compile(RELOAD, "reload", "exec"), {"__name__": "__main__"})
                except BaseException:
                    traceback.print_exc()
                    code = 1
                err.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


def warm_up() -> None:
    """Run :data:`WARM` in this process (a grading template, so that every helper forked from it is warm)."""
    exec(compile(WARM, "warm", "exec"), {"__name__": "__warm__"})


class _Forked:
    """The part of :class:`subprocess.Popen` that :class:`Reloader` uses, for a helper it forked."""

    def __init__(self, pid: int, stdin, stdout) -> None:
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status = self.pid, 0
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass
        for stream in (self.stdin, self.stdout):
            try:
                stream.close()
            except OSError:
                pass


class Reloader:
    """This process's reload helper (see the module's docstring)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | _Forked | None = None
        self.lock = threading.Lock()
        self.ready = False

    def start(self) -> None:
        """Start a helper interpreter in the background, unless one is running."""
        with self.lock:
            if self.process is not None and self.process.poll() is None:
                return
            self.ready = False
            try:
                self.process = subprocess.Popen(
                    [sys.executable, "-c", WARM + "\nimport sys\nRELOAD = sys.argv[1]\n" + SERVE, RELOAD],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                    cwd=tempfile.gettempdir(), start_new_session=True)
            except OSError:
                self.process = None

    def fork(self) -> None:
        """Fork the helper from this process.  Only while it is single-threaded (a warm kernel before
        ipykernel starts): a fork of a process with other threads may inherit a lock one of them held."""
        requests_r, requests_w = os.pipe()
        replies_r, replies_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.setsid()  # see the module's docstring: not in the kernel's process group
                os.dup2(requests_r, 0)
                os.dup2(replies_w, 1)
                for fd in (requests_r, requests_w, replies_r, replies_w):
                    os.close(fd)
                sys.stdin = open(0, closefd=False)
                sys.stdout = open(1, "w", closefd=False)
                exec(compile(SERVE, "serve", "exec"), {"__name__": "__main__", "RELOAD": RELOAD})
            except BaseException:  # noqa: BLE001 - the kernel falls back to a new interpreter
                code = 1
            finally:
                os._exit(code)
        os.close(requests_r)
        os.close(replies_w)
        with self.lock:
            self.process = _Forked(pid, open(requests_w, "w"), open(replies_r))
            self.ready = False

    def reload(self, path: Path, src: Path, dst: Path) -> tuple[int, str]:
        """``(exit code, stderr)`` of one reload: in a process forked from the helper, or in a new
        interpreter where no helper is available."""
        done = self._through_helper(path, src, dst)
        if done is None:
            proc = subprocess.run([sys.executable, "-c", RELOAD, str(path), str(src), str(dst)],
                                  capture_output=True, text=True, timeout=300)
            done = proc.returncode, proc.stderr
        return done

    def _through_helper(self, path: Path, src: Path, dst: Path) -> tuple[int, str] | None:
        self.start()
        with self.lock:
            process = self.process
            if process is None:
                return None
            try:
                if not self.ready:
                    self.ready = process.stdout.readline().strip() == "ready"
                    if not self.ready:
                        return None
                process.stdin.write(f"{path}\t{src}\t{dst}\n")
                process.stdin.flush()
                code = int(process.stdout.readline().strip())
            except (OSError, ValueError):
                process.kill()
                self.process = None
                return None
        err = Path(str(dst) + ".err")
        return code, err.read_text(errors="replace") if err.exists() else ""


RELOADER = Reloader()
