"""Why a submission was not graded, and whose failure that is: a notebook that produced no graded copy
(:func:`explain_failure`, from the course's metadata check's verdict, what happened to its kernels and nbgrader's
own log), the machine's refusals behind a failure (:func:`system_cause`), and the grader's own errors
(:func:`grader_error`).  Each comes out as a :class:`~autograder.cohort.records.Failure`: its owner and cause as
data, the words for people apart."""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..kernels.managers import KernelEvent, describe_exit
from ..records import GRADER, STUDENT, Failure

if TYPE_CHECKING:
    from ..kernels.confinement import Limits
    from .submission import LogCapture


@dataclass(frozen=True)
class KernelRun:
    """What happened to one kernel of a notebook: whether it was forked warm, whether the wall clock stopped it,
    how it ended (``exit``: None when it was shut down normally), its CPU time and when it was asked to shut down.

    The kernel manager records each kernel it launches as it goes; the grader reads them into these once
    nbgrader has returned (:meth:`of`)."""

    warm: bool = False
    wall_killed: bool = False
    exit: str | None = None
    cpu_seconds: float = 0.0
    shutdown_at: float = 0.0

    @classmethod
    def of(cls, event: KernelEvent) -> KernelRun:
        """A kernel manager's record of its kernel (:class:`~autograder.cohort.kernels.managers.SandboxedKernelManager`)."""
        return cls(event.warm, event.wall_killed, describe_exit(event), float(event.cpu_seconds),
                   float(event.shutdown_at or 0.0))


_KERNEL_START_ADVICE = ("run the solution alone with --sandbox off to tell the sandbox from the environment, and "
                        "read the kernel log")


def explain_failure(capture: LogCapture, limits: Limits, cell: str, kernels: list[KernelRun],
                    invalid_metadata: str = "") -> Failure:
    """Why nbgrader produced no autograded notebook, and whose failure that is: the course's metadata check's
    verdict (``invalid_metadata``, read from the preprocessor itself), what happened to the kernel, and
    nbgrader's own log."""
    if invalid_metadata:
        return Failure(STUDENT, "metadata", "nbgrader could not validate the notebook's cell metadata")
    log = "\n".join(capture.text(logging.ERROR))
    where = f" while running {cell}" if cell else ""
    for kernel in kernels:
        if kernel.wall_killed:
            seconds = limits.notebook_seconds
            return Failure(STUDENT, "wall-clock",
                           f"the notebook ran past its wall-clock limit ({seconds} s){where}; its kernel was stopped",
                           "the notebook needs more time than --notebook-timeout allows here; raise it")
    if "before replying to kernel_info" in log or "Kernel didn't respond" in log:
        return Failure(GRADER, "kernel-start", "the kernel did not start (see the kernel log in the grading notes)",
                       _KERNEL_START_ADVICE, detail=log[-1500:])
    dead = "DeadKernelError" in log or "Kernel died" in log or "UnresponsiveKernelError" in log
    if dead and not cell:  # no cell of the notebook had started: the kernel died on its way up
        exits = [k.exit for k in kernels]
        cause = next((e for e in exits if e), "the kernel died")
        return Failure(GRADER, "kernel-start", f"the kernel did not start: {cause} before the notebook's first cell",
                       _KERNEL_START_ADVICE, detail=log[-1500:])
    if dead:
        exits = [k.exit for k in kernels]
        cause = next((e for e in exits if e), "the kernel died")
        return Failure(STUDENT, "kernel-died", f"{cause}{where}",
                       "the notebook needs more memory or CPU time than the limits allow here, or it ends its "
                       "own kernel; raise --memory-mb or --cpu-seconds if the solution needs them")
    if "ValidationError" in log:  # nbformat's own schema check of the whole notebook (nbconvert runs it)
        return Failure(STUDENT, "metadata", "nbgrader could not validate the notebook's cell metadata")
    if "CellTimeoutError" in log or "Timeout waiting for IOPub" in log:
        return Failure(STUDENT, "cell-timeout",
                       f"a cell ran past the per-cell time limit and did not stop when interrupted{where}",
                       "a cell needs more time than --cell-timeout allows here; raise it")
    found = system_cause(log)
    if found is not None:
        cause, advice = found
        return Failure(GRADER, "system", f"{cause}{where}", advice, detail=log[-1500:])
    lines = [line for line in log.splitlines() if line.strip()]
    tail = next((line for line in reversed(lines) if "Error" in line or "Exception" in line), lines[-1] if lines else "")
    return Failure(GRADER, "nbgrader", f"nbgrader could not grade the notebook{where}: {tail.strip()[:300]}",
                   "read nbgrader's log in the detail; grade the student again once it is fixed "
                   "(`grade ... --student ID`)", detail=log[-1500:])


#: The machine's refusals a grading step can meet, by errno: what happened, and what fixes it.  The step they
#: happened in (the canary's cells, a kernel's start, nbgrader's writing) is not their cause.
SYSTEM_CAUSES = {
    28: ("the disk is full", "free space on the disk that holds the grader's scratch space (TMPDIR, "
                             "DASK_TEMPORARY_DIRECTORY) and the course, then grade this student again"),
    122: ("the disk quota of the grading user is used up", "free space within the quota, or raise it, then grade "
                                                           "this student again"),
    13: ("the grading user may not write or read a file it needs", "make the grader's scratch space (TMPDIR, "
                                                                    "DASK_TEMPORARY_DIRECTORY) and the course "
                                                                    "writable by the grading user"),
    30: ("a folder the grader writes is on a read-only file system", "point TMPDIR or DASK_TEMPORARY_DIRECTORY at a "
                                                                      "writable folder"),
    36: ("a path the grader made is too long for the system (a socket's path has at most 107 bytes)",
         "set DASK_TEMPORARY_DIRECTORY (or TMPDIR) to a folder with a shorter path"),
    24: ("the grading process ran out of open files", "raise the grading user's open-file limit (ulimit -n)"),
    12: ("the machine ran out of memory", "grade with fewer workers (--workers) or on a machine with more memory"),
}
_ERRNO = re.compile(r"\[Errno (\d+)\] ([^\n:]+)(?:: '([^'\n]*)')?")
_NAMED = {"No space left on device": 28, "Disk quota exceeded": 122, "Permission denied": 13,
          "Read-only file system": 30, "File name too long": 36, "Too many open files": 24,
          "Cannot allocate memory": 12}


def system_cause(log: str) -> tuple[str, str] | None:
    """The machine's refusal behind a grading failure, when its log names one (``[Errno 28] No space left on
    device: '...'``, or zmq's ``File name too long``): ``(what happened, what to do)``; ``None`` otherwise."""
    for line in reversed(log.splitlines()):
        number, path = None, ""
        found = _ERRNO.search(line)
        if found and int(found.group(1)) in SYSTEM_CAUSES:
            number, path = int(found.group(1)), found.group(3) or ""
        else:
            named = next((words for words in _NAMED if words in line), None)
            if named is not None:
                number = _NAMED[named]
                quoted = re.search(r"addr='([^']*)'|: '([^']*)'", line)
                path = (quoted.group(1) or quoted.group(2)) if quoted else ""
        if number is not None:
            cause, advice = SYSTEM_CAUSES[number]
            return f"{cause} ({os.strerror(number)}{': ' + path if path else ''})", advice
    return None


def grader_error(error: BaseException, scratch: Path, trace: str = "") -> Failure:
    """The grader's own failure: what it could not do, and what fixes it."""
    reason = f"internal grading error: {type(error).__name__}: {error}"
    if isinstance(error, PermissionError):
        advice = (f"the grading user ({_user()}) cannot write or read a file of the grader's own scratch space "
                  f"({scratch}); make that folder (or TMPDIR) writable by this user, or report a bug if it is")
    elif isinstance(error, OSError) and error.errno in SYSTEM_CAUSES:
        cause, advice = SYSTEM_CAUSES[error.errno]
        reason = f"{cause} ({error.strerror}{': ' + str(error.filename) if error.filename else ''})"
        advice = f"{advice} (the grader's scratch space: {scratch})"
    elif isinstance(error, OSError):
        advice = f"the grader could not use its scratch space ({scratch}): {error.strerror or error}"
    else:
        advice = "this is a fault of the grader, not of the notebook; the detail holds the traceback"
    return Failure(GRADER, "grader-error", reason, advice, detail=trace)


def _user() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())
