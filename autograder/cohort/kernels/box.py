"""A notebook's box: the host directory that holds what its kernel sees (``home/``, staged read-only) and
its sockets (``ipc/``); taking the sockets back once they exist; clearing a uid's last sandbox away."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import time
from pathlib import Path

from . import forkserver
from .confinement import BASE_UID, is_root, package_dir
from .processes import processes_of


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
    if is_root():
        os.chown(box / "ipc", uid, uid)
        os.chmod(box / "ipc", 0o700)
    return box


def lock_ipc(box: Path) -> None:
    """Take the socket directory back from the kernel's uid once its sockets exist."""
    ipc = Path(box) / "ipc"
    if is_root() and ipc.is_dir():
        for path in ipc.iterdir():
            if not path.is_socket():  # the connection file: the kernel may still be reading it
                os.chmod(path, 0o444)
                os.chown(path, 0, 0)
        # Open the directory to everyone before taking it: owned by root while still 0700, it would refuse the
        # kernel's uid for an instant, and a kernel that had not yet looked at its connection file fails to start.
        os.chmod(ipc, 0o755)
        os.chown(ipc, 0, 0)


_NS_GET_USERNS = 0xB701


def _in_the_sandbox(pid: int) -> int | None:
    """A process under ``pid`` (bubblewrap) in a mount namespace other than this process's: the sandbox's."""
    mine = os.readlink("/proc/self/ns/mnt")
    level = [pid]
    for _ in range(8):
        later = []
        for parent in level:
            try:
                children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
            except OSError:
                children = []
            for child in map(int, children):
                try:
                    if os.readlink(f"/proc/{child}/ns/mnt") != mine:
                        return child
                except OSError:
                    continue
                later.append(child)
        level = later
    return None


def lock_ipc_from_outside(box: Path, pid: int) -> None:
    """Without root, a cold kernel's sockets and connection file are the grading user's on the host: no chown can
    take them back.  The grading user owns the user namespace that owns the sandbox's mounts, though (bubblewrap runs
    the kernel in another one nested in it), so a child of this process enters that one and the sandbox's mount
    namespace, and remounts the socket directory read-only there: the kernel's view only (the host still writes
    it).  Raises OSError when that cannot be done."""
    shared = str(Path(box) / "ipc")
    target = _in_the_sandbox(pid)
    if target is None:
        raise OSError(f"no process of the sandbox under {pid} to lock its socket folder in")
    mount = os.open(f"/proc/{target}/ns/mnt", os.O_RDONLY)
    try:  # the user namespace that owns the sandbox's mounts (bubblewrap runs the kernel in one nested in it)
        user = fcntl.ioctl(mount, _NS_GET_USERNS)
    except OSError:
        os.close(mount)
        raise
    try:
        child = os.fork()
        if child == 0:  # a single thread of its own: setns into a user namespace needs one
            code = 1
            try:
                libc = forkserver.open_libc()
                if libc.setns(user, forkserver.CLONE_NEWUSER) == 0 and libc.setns(mount, forkserver.CLONE_NEWNS) == 0:
                    forkserver.remount_read_only(libc, shared)
                    code = 0
            finally:
                os._exit(code)
    finally:
        os.close(user)
        os.close(mount)
    _, status = os.waitpid(child, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        raise OSError(f"the sandbox's socket folder could not be made read-only (status {status})")


def drain(uid: int, patience: float = 10.0) -> int:
    """Wait for the last sandbox of ``uid`` to be torn down (its processes count against the next
    kernel's process limit); kill what is left after ``patience`` seconds.  Returns how many were killed."""
    if not is_root() or uid < BASE_UID:
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
