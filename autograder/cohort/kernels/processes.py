"""The processes of a uid, of a process tree, as ``/proc`` shows them (no other module of the package needed)."""

from __future__ import annotations

import os
from pathlib import Path


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


def processes_of(uid: int) -> list[int]:
    """Pids of the processes running as ``uid`` (the real uid, read from /proc/PID/status: a process cannot hide
    it, as a non-dumpable one hides the owner of its /proc files, which turns to root)."""
    pids, wanted = [], str(uid).encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/status", os.O_RDONLY)
        except OSError:
            continue
        try:
            text = os.read(fd, 4096)
        except OSError:
            continue
        finally:
            os.close(fd)
        start = text.find(b"\nUid:")
        if start >= 0 and text[start + 5:].split(None, 1)[0] == wanted:
            pids.append(int(name))
    return pids


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


def status(pid: int) -> dict:
    """``/proc/PID/status`` as a dict of its fields ({} when the process is gone)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def descends_from(pid: int, ancestor: int, depth: int = 6) -> bool:
    """Whether ``ancestor`` is among ``pid``'s first ``depth`` ancestors."""
    for _ in range(depth):
        try:
            pid = int(status(pid).get("PPid", "0"))
        except ValueError:
            return False
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


def tagged(name: str, value: str) -> list[int]:
    """Pids of this user's processes started with ``name=value`` in their environment (``/proc/PID/environ``):
    what an unconfined kernel left running, however it detached (a new session, a double fork)."""
    marker = f"{name}={value}".encode()
    me, pids = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids
