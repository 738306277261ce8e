"""A kernel client that never sits out a cell's whole timeout on a message that has already arrived.

pyzmq's asyncio sockets learn that a message is waiting from an edge-triggered file descriptor.
A send or receive on the same socket can consume that edge, and then an ``await socket.poll(t)``
does not wake when the reply lands: it waits out all of ``t``, makes one last non-blocking poll,
finds the reply and returns it as if nothing had happened.  nbclient (and so nbgrader) polls the
shell channel with the cell's whole timeout, so a cell that ran in one second could return after
``c.Execute.timeout`` (180 s in this course), with a correct result: a stall, not an error.  The
test suite saw it as a lesson that "took" a whole multiple of its 300 s timeout, a different one each run.

:class:`PromptKernelClient` polls in short slices up to the same deadline instead, so a missed
wake-up costs at most :data:`SLICE` seconds.  Every kernel manager of the course hands it out:
:class:`PromptKernelManager` for plain kernels, and the warm and sandboxed managers, which derive from it.
"""

from __future__ import annotations

import time
from queue import Empty

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

#: The longest a message that has arrived can wait unread (seconds).
SLICE = 0.2

CLIENT_CLASS = "autograder.cohort.client.PromptKernelClient"


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


class PromptKernelManager(AsyncKernelManager):
    """A plain ``AsyncKernelManager`` whose clients are :class:`PromptKernelClient`
    (``NotebookClient(nb, kernel_manager_class=PromptKernelManager)``)."""

    client_class = DottedObjectName(CLIENT_CLASS)
    client_factory = Type(PromptKernelClient, klass=AsyncKernelClient)
