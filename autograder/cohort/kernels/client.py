"""A kernel client that never sits out a cell's whole timeout on a message that has already arrived.

pyzmq's asyncio sockets learn that a message is waiting from an edge-triggered file descriptor.
A send or receive on the same socket can consume that edge, and then an ``await socket.poll(t)``
does not wake when the reply lands: it waits out all of ``t``, makes one last non-blocking poll,
finds the reply and returns it as if nothing had happened.  nbclient (and so nbgrader) polls the
shell channel with the cell's whole timeout, so a cell that ran in one second could return after
``c.Execute.timeout`` (180 s in this course), with a correct result: a stall, not an error.  The
test suite saw it as a lesson that "took" a whole multiple of its 300 s timeout, a different one each run.

:class:`PromptKernelClient` polls in short slices up to the same deadline instead, so a missed
wake-up costs at most :data:`SLICE` seconds.  It also waits for a new kernel as long as the kernel
takes, not longer: jupyter_client's client asks again only 0.2 s after a first reply that came
before IOPub was connected (the usual case for a kernel that has just started), then drains IOPub
until 0.2 s pass without a message, and its manager looks every 0.1 s whether a kernel asked to
shut down has exited; in a grading run of short notebooks those fixed waits were a fifth of each
notebook's time.  And it connects as soon as the kernel's sockets exist: a client connects before a new kernel
has bound them, and ZeroMQ's default is to try again only every 0.1 s (:data:`RECONNECT_MS`).  Every kernel
manager of the course hands it out:
:class:`PromptKernelManager` for plain kernels, and the warm and sandboxed managers, which derive from it.
"""

from __future__ import annotations

import time
from queue import Empty

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

#: The longest a message that has arrived can wait unread (seconds).
SLICE = 0.2
#: How long a new kernel's IOPub channel is given to show that it is connected before kernel_info is
#: asked again (seconds; a message that comes later is read after the next reply).
ASK_AGAIN = 0.01
#: How long IOPub must stay silent to count as drained, where the kernel's idle status for the last
#: request does not come first (seconds).
QUIET = 0.05
#: How often a kernel asked to shut down is looked at until it has exited (seconds).
EXIT_POLL = 0.01
#: How soon a client socket tries again to connect to a kernel that has not bound its sockets yet (milliseconds;
#: ZeroMQ's default is 100).  A client connects right after the kernel is launched, before the kernel has bound
#: anything, so a new kernel used to answer its first ``kernel_info`` about 0.16 s late, idle: 0.2 s against 0.04 s
#: for a forked kernel of module 01.
RECONNECT_MS = 5
#: How many times a kernel on TCP that dies before its first reply is started again on new ports.  Its ports are
#: chosen by this process and bound by the kernel later; on a busy machine another process can take one in
#: between, and ipykernel then exits (jupyter_client's own restarter starts such a kernel again on new ports
#: too; nbclient does not run the restarter).  No notebook code has run in a kernel that has not replied.
START_RETRIES = 2

CLIENT_CLASS = "autograder.cohort.kernels.client.PromptKernelClient"


class PromptChannel(AsyncZMQSocketChannel):
    """A channel whose ``get_msg(timeout)`` re-polls every :data:`SLICE` seconds until ``timeout``."""

    async def get_msg(self, timeout: float | None = None) -> dict:  # type: ignore[override]
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = SLICE if deadline is None else max(0.0, min(SLICE, deadline - time.monotonic()))
            try:
                return await super().get_msg(timeout=left)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise


class PromptKernelClient(AsyncKernelClient):
    """``AsyncKernelClient`` with :class:`PromptChannel` for the shell, IOPub, stdin and control channels."""

    shell_channel_class = Type(PromptChannel)  # type: ignore[arg-type]
    iopub_channel_class = Type(PromptChannel)  # type: ignore[arg-type]
    stdin_channel_class = Type(PromptChannel)  # type: ignore[arg-type]
    control_channel_class = Type(PromptChannel)  # type: ignore[arg-type]

    def _create_connected_socket(self, channel: str, identity: bytes | None = None):
        # A default of this client's context, set before jupyter_client makes and connects the channel's socket.
        self.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        return super()._create_connected_socket(channel, identity)

    async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
        """Ask for ``kernel_info`` until the kernel replies and IOPub is connected (as jupyter_client does),
        then drain IOPub up to the kernel's idle status for the last request (or :data:`QUIET` of silence;
        jupyter_client waits for 0.2 s of silence)."""
        from jupyter_client.manager import KernelManager

        if not isinstance(self.parent, KernelManager):  # no manager to ask whether the kernel lives
            await super()._async_wait_for_ready(timeout)
            return
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        retries = START_RETRIES
        while True:
            asked = self.kernel_info()
            try:
                msg = await self.shell_channel.get_msg(timeout=1)
            except Empty:
                pass
            else:
                if msg["msg_type"] == "kernel_info_reply":
                    try:  # IOPub is connected (else ask again: the next reply comes with IOPub messages)
                        await self.iopub_channel.get_msg(timeout=ASK_AGAIN)
                    except Empty:
                        pass
                    else:
                        self._handle_kernel_info_reply(msg)
                        break
            if not await self._async_is_alive():
                if retries > 0 and self.transport == "tcp" and time.monotonic() < deadline:
                    retries -= 1
                    await self._start_again_on_new_ports()
                    continue
                raise RuntimeError(f"Kernel died before replying to kernel_info (started {START_RETRIES + 1} "
                                   "times, on new ports each time)")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")
        while True:  # until the kernel is idle after the last request (the last message it sends for it)
            try:
                msg = await self.iopub_channel.get_msg(timeout=QUIET)
            except Empty:
                return
            if msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle" \
                    and msg.get("parent_header", {}).get("msg_id") == asked:
                return

    wait_for_ready = _async_wait_for_ready  # AsyncKernelClient binds the name to jupyter_client's own

    async def _start_again_on_new_ports(self) -> None:
        """Start this client's (dead) kernel again on new TCP ports, and connect to them."""
        for name in ("_shell_channel", "_iopub_channel", "_stdin_channel", "_hb_channel", "_control_channel"):
            channel = getattr(self, name, None)
            if channel is not None:
                channel.stop() if channel.is_alive() else channel.close()
                setattr(self, name, None)
        manager = self.parent
        await manager._async_shutdown_kernel(now=True, restart=True)
        # jupyter_client's restart(newports=True) keeps ports that its port cache handed out; forget them all
        # (load_connection_info, too, fills in only the ports that are 0).
        for port in ("shell_port", "iopub_port", "stdin_port", "hb_port", "control_port"):
            setattr(manager, port, 0)
            setattr(self, port, 0)
        if getattr(manager.provisioner, "ports_cached", False):
            manager.provisioner.ports_cached = False
        manager.cleanup_connection_file()
        await manager._async_start_kernel(**manager._launch_args)
        self.load_connection_info(manager.get_connection_info(session=False))
        self.start_channels()


class PromptKernelManager(AsyncKernelManager):
    """A plain ``AsyncKernelManager`` whose clients are :class:`PromptKernelClient`
    (``NotebookClient(nb, kernel_manager_class=PromptKernelManager)``)."""

    client_class = DottedObjectName(CLIENT_CLASS)
    client_factory = Type(PromptKernelClient, klass=AsyncKernelClient)

    async def _async_finish_shutdown(self, waittime: float | None = None, pollinterval: float = EXIT_POLL,
                                     restart: bool = False) -> None:
        await super()._async_finish_shutdown(waittime, pollinterval=min(pollinterval, EXIT_POLL), restart=restart)

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        # jupyter_client waits for a killed kernel (``shutdown_kernel(now=True)``, which grading asks for) by
        # looking every 0.1 s: 0.11 s of each notebook of module 01 went by here, idle, after its kernel had died.
        await super()._async_wait(pollinterval=min(pollinterval, EXIT_POLL))
