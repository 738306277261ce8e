"""The kernel managers nbgrader's ``Execute`` runs the course's kernels with.

:class:`SandboxedKernelManager` (cohort grading) runs a notebook's kernel confined, forked from the
worker's warm template or started cold under bubblewrap, with a wall-clock limit for the whole notebook
enforced from outside (the sandbox's process group is killed), on top of nbgrader's per-cell timeout.
:class:`WarmKernelManager` forks kernels from this process's own unsandboxed template, for plain
``nbgrader autograde`` (the course's ``nbgrader_config.py`` selects it).  Both hand out the prompt
client (:mod:`autograder.cohort.kernels.client`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from traitlets import Any, Bool, Instance, Int, Unicode

from .box import lock_ipc, lock_ipc_from_outside
from .bwrap import bwrap_argv
from .client import PromptKernelManager
from .confinement import BASE_UID, HOME, Limits, is_root, unconfined_env
from .forkserver import NOT_LOCKED
from .processes import tagged, tree_cpu_seconds
from .template import ForkedKernel, TemplateError, kernel_arguments, one_thread, shared_template

#: The environment variable that marks the processes of one unconfined kernel, whatever they became.
KERNEL_TAG = "TORCH_LEDGER_KERNEL"


@dataclass
class KernelEvent:
    """What happened to one kernel a manager launched, recorded as it goes: when it started and its process,
    whether it was forked warm, whether the wall clock stopped it, when it was asked to shut down and the CPU time
    its processes had used by then."""

    started: float
    process: object  # the kernel's process (a Popen or a forked kernel): how it ended
    warm: bool = False
    wall_killed: bool = False
    not_locked: str = ""  # why its socket folder could not be made read-only (the kernel was then ended)
    shutdown_at: float | None = None
    cpu_seconds: float = 0.0


@dataclass
class KernelLog:
    """Where the kernels of one notebook are recorded (:class:`KernelEvent`, in launch order), and the warm template
    they are forked from (``None``: they start cold).  A grader gives each notebook one, through its configuration
    (``SandboxedKernelManager.kernels``), which traitlets copies: a copy is this same log."""

    template: object = None
    events: list[KernelEvent] = field(default_factory=list)

    def __deepcopy__(self, memo):
        return self


class SandboxedKernelManager(PromptKernelManager):
    """An ``AsyncKernelManager`` whose kernel runs in a bubblewrap sandbox over IPC sockets."""

    box = Unicode("", help="Per-notebook sandbox directory (with home/ and ipc/ inside).").tag(config=True)
    uid = Int(BASE_UID, help="Unprivileged uid the kernel runs as (one per worker).").tag(config=True)
    limits = Instance(Limits, args=(), help="The kernel's limits (autograder.cohort.kernels.confinement.Limits).",
                      ).tag(config=True)
    sandboxed = Bool(True, help="False runs the kernel without bubblewrap (no isolation).").tag(config=True)
    kernels = Any(None, allow_none=True, help="A KernelLog: where each launched kernel's KernelEvent goes, and the "
                                             "warm template it is forked from (None: cold, unrecorded)."
                  ).tag(config=True)

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
        self._event: KernelEvent | None = None
        self._tag = uuid.uuid4().hex  # marks every process of an unconfined kernel (processes.tagged)

    @property
    def template(self):
        """The warm template this notebook's kernels are forked from (:mod:`autograder.cohort.kernels.template`)."""
        return self.kernels.template if self.kernels is not None else None

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        cmd = super().format_kernel_cmd(extra_arguments)
        if not self.sandboxed:
            return cmd
        if is_root():
            os.chown(self.connection_file, self.uid, self.uid)
        return [*bwrap_argv(Path(self.box), self.uid, self.limits), *cmd]

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        template = self.template
        arguments = kernel_arguments(kernel_cmd) if template is not None else None
        forked = arguments is not None and template.alive()
        if forked:
            try:
                await self._fork_kernel(template, arguments)
            except TemplateError:
                forked = False  # the template went away: this kernel starts cold
        if not forked:
            await self._start_cold(kernel_cmd, **kw)
        self._event = KernelEvent(time.monotonic(), self.provisioner.process, warm=forked)
        if self.kernels is not None:
            self.kernels.events.append(self._event)
        seconds = self.limits.notebook_seconds
        loop = asyncio.get_running_loop()
        if seconds and seconds > 0:
            self._wall_timer = loop.call_later(seconds, self._kill_on_wall_clock)
        if self.sandboxed:
            self._lock_task = loop.create_task(self._lock_when_bound())

    async def _fork_kernel(self, template, arguments: list[str]) -> None:
        box = Path(self.box)
        if self.sandboxed:
            process = template.spawn(arguments, cwd=HOME, box=box, log=box / "kernel.log")
        else:  # the child sets JPY_PARENT_PID to its own parent, the template
            process = template.spawn(arguments, cwd=str(box / "home"), env=self._unsandboxed_env(),
                                     log=box / "kernel.log")
        adopt(self, process)

    def _unsandboxed_env(self) -> dict[str, str]:
        """A kernel's environment without the sandbox: its home in the box, the coordinator's package first.
        JPY_PARENT_PID: ipykernel exits when its parent (the grading worker) is gone."""
        return {**unconfined_env(Path(self.box) / "home", Path(self.box) / "lib"),
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "JPY_PARENT_PID": str(os.getpid()),
                KERNEL_TAG: self._tag}

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
                if is_root():
                    lock_ipc(Path(self.box))
                elif not self._event.warm:  # a warm kernel's stand-in locks it (forkserver._lock_when_bound)
                    try:
                        lock_ipc_from_outside(Path(self.box), self.provisioner.process.pid)
                    except OSError as error:  # the folder stays the kernel's to write: end it rather than grade it so
                        self._event.not_locked = str(error)
                        process = self.provisioner.process
                        try:
                            os.killpg(os.getpgid(process.pid), signal.SIGKILL)
                        except OSError:
                            pass
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
        self._event.wall_killed = True
        try:
            os.killpg(os.getpgid(process.pid), signal.SIGKILL)
        except (OSError, TypeError):  # TypeError: a forked kernel whose pid here is unknown
            process.kill()

    async def _async_shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        event = self._event
        if event is not None and event.shutdown_at is None:
            event.shutdown_at = time.monotonic()  # the notebook's last cell has ended
        process = self.provisioner.process if self.provisioner else None
        if event is not None and process is not None and process.poll() is None and process.pid is not None:
            event.cpu_seconds = tree_cpu_seconds(process.pid)
        await super()._async_shutdown_kernel(now=now, restart=restart)

    shutdown_kernel = _async_shutdown_kernel

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        if self._wall_timer is not None:
            self._wall_timer.cancel()
            self._wall_timer = None
        if self._lock_task is not None and not self._lock_task.done():
            self._lock_task.cancel()
        await super()._async_cleanup_resources(restart=restart)
        if not self.sandboxed:  # no pid namespace ends what the notebook started: end each process it left
            for pid in tagged(KERNEL_TAG, self._tag):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def describe_exit(event: KernelEvent) -> str | None:
    """A readable cause for a kernel that ended on its own (``None`` when it was shut down normally)."""
    if event.wall_killed:
        return "the notebook ran past its wall-clock limit and its kernel was stopped"
    if event.not_locked:
        return f"the kernel was ended before it was graded: {event.not_locked}"
    process = event.process
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
    if code == NOT_LOCKED:
        return (f"the kernel ended with status {code}: the status its sandbox gives when it cannot make the kernel's "
                f"socket folder read-only, and ends the kernel before it is graded (or the notebook's own os._exit({code}))")
    return f"the kernel exited with status {code} (os._exit or sys.exit in the kernel)"


class WarmKernelManager(PromptKernelManager):
    """An ``AsyncKernelManager`` whose kernels are forked from this process's warm template.

    For plain ``nbgrader autograde``: ``c.Execute.kernel_manager_class =
    "autograder.cohort.kernels.managers.WarmKernelManager"``.  A kernelspec that does not run ipykernel
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
            process = template.spawn(arguments, cwd=cwd, env=one_thread(kw.get("env") or os.environ),
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
