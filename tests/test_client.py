"""The kernel client reads a reply as soon as it has arrived, even when its socket missed the wake-up.

pyzmq's asyncio ``poll(t)`` can fail to wake for a message that has arrived (its edge-triggered file
descriptor was consumed by another operation on the socket); it then returns the message only after
all of ``t``.  The socket below behaves that way every time, so the test is deterministic: the stock
channel sits out its whole timeout, the course's channel does not.
"""

import asyncio
import os
import time

import zmq
import zmq.asyncio
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.session import Session

from autograder.cohort.kernels import client
from autograder.cohort.kernels.client import PromptChannel, PromptKernelClient, PromptKernelManager


class _EdgeBlindSocket(zmq.asyncio.Socket):
    """A socket whose poll wakes only when its timeout ends (a missed wake-up, every time)."""

    async def _blind_poll(self, timeout=None, flags=zmq.POLLIN):
        if timeout:
            await asyncio.sleep(timeout / 1000)
        return await zmq.asyncio.Socket.poll(self, 0, flags)

    poll = _blind_poll


async def _seconds_to_reply(channel_class, timeout: float) -> tuple[float, str]:
    context = zmq.asyncio.Context()
    address = f"inproc://reply-{channel_class.__name__}"
    ours = context.socket(zmq.PAIR, socket_class=_EdgeBlindSocket)
    ours.bind(address)
    kernel = context.socket(zmq.PAIR)
    kernel.connect(address)
    session = Session()
    channel = channel_class(ours, session)

    async def reply_soon():
        await asyncio.sleep(0.05)
        session.send(kernel, "execute_reply", {"status": "ok"})

    start = time.monotonic()
    sender = asyncio.ensure_future(reply_soon())
    msg = await channel.get_msg(timeout=timeout)
    seconds = time.monotonic() - start
    await sender
    ours.close(linger=0)
    kernel.close(linger=0)
    context.term()
    return seconds, msg["msg_type"]


def test_a_missed_wake_up_costs_a_slice_not_the_timeout():
    stock, kind = asyncio.run(_seconds_to_reply(AsyncZMQSocketChannel, timeout=1.5))
    assert kind == "execute_reply" and stock >= 1.5  # the failure the course's channel exists for
    prompt, kind = asyncio.run(_seconds_to_reply(PromptChannel, timeout=30))
    assert kind == "execute_reply" and prompt < 0.05 + 3 * client.SLICE, prompt


def test_an_absent_reply_still_times_out_at_the_deadline():
    async def wait():
        context = zmq.asyncio.Context()
        sock = context.socket(zmq.PAIR, socket_class=_EdgeBlindSocket)
        sock.bind("inproc://nothing")
        start = time.monotonic()
        try:
            await PromptChannel(sock, Session()).get_msg(timeout=0.5)
        except Exception as error:  # noqa: BLE001 - the type is what is checked
            return type(error).__name__, time.monotonic() - start
        finally:
            sock.close(linger=0)
            context.term()
        return "no error", 0.0

    kind, seconds = asyncio.run(wait())
    assert kind == "Empty" and 0.5 <= seconds < 0.5 + 2 * client.SLICE


def test_every_course_kernel_manager_hands_out_the_prompt_client():
    from autograder.cohort.kernels.managers import SandboxedKernelManager, WarmKernelManager

    for manager in (PromptKernelManager(kernel_name="python3"), WarmKernelManager(kernel_name="python3")):
        kc = manager.client()
        assert isinstance(kc, PromptKernelClient)
        assert isinstance(kc.shell_channel, PromptChannel) and isinstance(kc.iopub_channel, PromptChannel)
    assert issubclass(SandboxedKernelManager, PromptKernelManager)


def test_the_client_connects_again_soon_and_the_manager_looks_soon_for_a_killed_kernel():
    """Two waits jupyter_client leaves at 0.1 s, idle, on every grading kernel: its sockets, connected before the
    kernel has bound its own, try again every RECONNECT_MS instead; a kernel killed at shutdown is looked for
    every EXIT_POLL instead."""
    manager = PromptKernelManager(kernel_name="python3")
    kc = manager.client()
    try:
        for channel in (kc.shell_channel, kc.iopub_channel, kc.stdin_channel, kc.control_channel):
            assert channel.socket.getsockopt(zmq.RECONNECT_IVL) == client.RECONNECT_MS < 100
    finally:
        kc.stop_channels()

    slept: list[float] = []
    answers = iter([True, True, False])

    async def alive():
        return next(answers)

    async def sleep(seconds):
        slept.append(seconds)

    async def wait():
        manager._async_is_alive = alive
        original, asyncio.sleep = asyncio.sleep, sleep
        try:
            await manager._async_wait()  # what shutdown_kernel(now=True) awaits after the kill
        finally:
            asyncio.sleep = original

    asyncio.run(wait())
    assert slept == [client.EXIT_POLL, client.EXIT_POLL] and client.EXIT_POLL < 0.1


def test_a_new_kernel_is_ready_runs_and_shuts_down_through_the_prompt_client(tmp_path):
    """The client's own readiness wait (kernel_info answered, IOPub connected and drained) on a real kernel,
    then a cell and a shutdown; a kernel whose shell port another process holds (so it exits as it
    starts) is started again on new ports; and a kernel that dies at every start is reported, not waited for."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "ipykernel_launcher.py").write_text("raise SystemExit(3)\n")  # shadows ipykernel's launcher

    async def run() -> tuple[str, bool, str]:
        manager = PromptKernelManager(kernel_name="python3")
        squatter = zmq.Context.instance().socket(zmq.ROUTER)
        original_launch = type(manager)._async_launch_kernel
        taken = []

        async def launch_after_a_squatter(self, kernel_cmd, **kw):  # another process takes a port first
            if not taken:
                taken.append(self.shell_port)
                squatter.bind(f"tcp://{self.ip}:{self.shell_port}")
            await original_launch(self, kernel_cmd, **kw)

        manager._async_launch_kernel = launch_after_a_squatter.__get__(manager)
        try:
            await manager.start_kernel()
            kc = manager.client()
            kc.start_channels()
            assert kc.wait_for_ready.__func__ is PromptKernelClient._async_wait_for_ready
            await kc.wait_for_ready(timeout=90)
            assert taken and manager.shell_port != taken[0]
            reply = await kc._async_execute_interactive("print(6 * 7)", output_hook=lambda msg: outputs.append(msg),
                                                        timeout=60)
        finally:
            squatter.close(linger=0)
            kc.stop_channels()
            await manager.shutdown_kernel()
        dead = PromptKernelManager(kernel_name="python3")
        await dead.start_kernel(env={**os.environ, "PYTHONPATH": str(broken)})
        dead_kc = dead.client()
        dead_kc.start_channels()
        try:
            await dead_kc.wait_for_ready(timeout=60)
            died = "no error"
        except RuntimeError as error:
            died = str(error)
        finally:
            dead_kc.stop_channels()
            await dead.cleanup_resources()
        return reply["content"]["status"], await manager.is_alive(), died

    outputs: list = []
    status, alive, died = asyncio.run(run())
    printed = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
    assert (status, printed, alive) == ("ok", "42\n", False)
    assert "died" in died and f"started {client.START_RETRIES + 1} times" in died, died


# ---- running lessons outside JupyterLab: the supported commands use this client

def _tiny_notebooks(folder):
    import nbformat

    from autograder.dev import nbtools

    good = folder / "good.ipynb"
    nbformat.write(nbtools.new_notebook([nbtools.code("import os\nprint('ran in', os.path.basename(os.getcwd())[:7])")]),
                   good)
    bad = folder / "bad.ipynb"
    nbformat.write(nbtools.new_notebook([nbtools.code("print('first')"), nbtools.code("raise ValueError('planted')"),
                                         nbtools.code("print('never')")]), bad)
    return good, bad


def test_execute_lessons_runs_each_notebook_and_names_the_one_that_failed(tmp_path):
    """``python -m autograder execute-lessons`` (``make lessons``): every notebook runs in a fresh kernel, in a
    scratch folder; a failing one is named with its error, the others still run, and the exit status says so."""
    import subprocess
    import sys

    from autograder.dev import nbtools

    good, bad = _tiny_notebooks(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "autograder", "execute-lessons", str(bad), str(good), "--out", str(out),
                           "--timeout", "60"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"FAILED {bad}" in proc.stdout and "ValueError: planted" in proc.stdout, proc.stdout
    assert f"ran    {good}" in proc.stdout and "1 of 2 notebooks failed" in proc.stderr
    ran = nbtools.read(out / "good.ipynb").cells[0]
    assert ran.execution_count == 1 and "ran in lesson-" in ran.outputs[0]["text"]
    stopped = nbtools.read(out / "bad.ipynb").cells
    assert stopped[0].outputs and stopped[1].outputs[0]["ename"] == "ValueError" and not stopped[2].outputs
    assert not list(tmp_path.glob("lesson-*")), "a lesson's scratch folder was left behind"


def test_nbconvert_with_the_documented_option_uses_the_prompt_client(tmp_path):
    """The README's ``jupyter nbconvert --execute`` line: the option resolves to this client, and the command runs."""
    import subprocess
    import sys
    from pathlib import Path

    from nbconvert.nbconvertapp import NbConvertApp
    from nbconvert.preprocessors import ExecutePreprocessor

    from autograder.cohort.execute import NBCONVERT_OPTION
    from autograder.dev import nbtools

    good, _ = _tiny_notebooks(tmp_path)
    app = NbConvertApp()
    app.initialize([NBCONVERT_OPTION, str(good)])
    preprocessor = ExecutePreprocessor(config=app.config)
    assert preprocessor.kernel_manager_class is PromptKernelManager
    assert PromptKernelManager(kernel_name="python3").client_class == client.CLIENT_CLASS

    jupyter = Path(sys.executable).with_name("jupyter")
    proc = subprocess.run([str(jupyter), "nbconvert", "--to", "notebook", "--execute", NBCONVERT_OPTION, str(good),
                           "--output", "executed"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert nbtools.read(tmp_path / "executed.ipynb").cells[0].outputs
