"""A notebook's box: the host directory that holds what its kernel sees (``home/``, staged read-only) and
its sockets (``ipc/``); taking the sockets back once they exist; clearing a uid's last sandbox away."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

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
