"""A submission and its graded notebook, read: the notebook file (or why it cannot be graded), what nbgrader
said, the first error, the outputs cut to their limits, and why a notebook produced no graded copy, with whose
failure that is."""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ...cells import nbgrader_meta
from ..kernels.managers import describe_exit
from ..records import GRADER, STUDENT, CellError, Failure, Note

MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024


#: What a graded notebook keeps of its outputs, in bytes: each output (a stream, an image, a traceback) and
#: all of them together.  nbgrader's own limit counts lines, not bytes: one cell printing 400 MB, or showing
#: a 200 MB image, would otherwise land whole in the instructor's autograded/ folder.
OUTPUT_LIMITS = {"output_bytes": 1024 * 1024, "notebook_bytes": 5 * 1024 * 1024}


class LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def text(self, level: int = logging.WARNING) -> list[str]:
        lines = []
        for r in self.records:
            if r.levelno >= level:
                try:
                    lines.append(r.getMessage())
                except Exception:  # noqa: BLE001 - a malformed log record must not stop grading
                    lines.append(str(r.msg))
        return lines


def read_submission(folder: Path, notebook: str):
    """``(notebook, None)`` or ``(None, reason)`` for the submission's notebook file."""
    path = folder / f"{notebook}.ipynb"
    if not path.is_file() or path.is_symlink():
        others = sorted(p.name for p in folder.glob("*.ipynb")) if folder.is_dir() else []
        if others:
            return None, (f"no {notebook}.ipynb in the submission (found {', '.join(others)}): "
                          "the notebook must keep the name it was released with")
        return None, f"no {notebook}.ipynb in the submission"
    size = path.stat().st_size
    if size == 0:
        return None, "the notebook file is empty (0 bytes)"
    if size > MAX_NOTEBOOK_BYTES:
        return None, f"the notebook file is {size // 2**20} MiB, over the {MAX_NOTEBOOK_BYTES // 2**20} MiB limit"
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"the notebook file is not UTF-8 text ({error.reason} at byte {error.start})"
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"the notebook file is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as error:  # noqa: BLE001 - any unreadable notebook is a reason, not a crash
        return None, f"the file is JSON but not a Jupyter notebook ({type(error).__name__}: {str(error)[:200]})"
    if not isinstance(nb.get("cells"), list) or not all(isinstance(c, dict) for c in nb.cells):
        return None, "the file is JSON but has no list of cells"
    return nb, None


def notes_from_log(lines: list[str]) -> list[Note]:
    """Notes of what nbgrader's own preprocessors say, in its log, they restored or ignored in the notebook (its
    log is the only way nbgrader tells; the course's own preprocessors hand theirs over as values)."""
    notes = []
    for line in lines:
        if "Attribute '" in line and "has changed" in line and "Attribute 'checksum'" not in line:
            attr = line.split("Attribute '")[1].split("'")[0]
            cell = line.split("for cell ")[1].split(" ")[0] if "for cell " in line else "?"
            notes.append(Note("restored", f"edited {attr} of cell {cell} — nbgrader restored it"))
        elif line.startswith("Missing grade cell"):
            cell = line.split("Missing grade cell ")[1].split(" ")[0]
            notes.append(Note("restored", f"deleted test cell {cell} — nbgrader put it back"))
        elif "exists multiple times" in line:
            text = line.replace("Cell with id", "grade id").replace("!", "").strip().splitlines()[0]
            notes.append(Note("duplicate-id", text + " — extra copies ignored"))
    return notes


def notes_from_cells(nb) -> list[Note]:
    """Notes of the student's cells that raised an error or ran past the cell limit."""
    notes = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or nbgrader_meta(cell).get("grade"):
            continue
        errors = [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]
        if not errors:
            continue
        name = nbgrader_meta(cell).get("grade_id") or f"cell {index + 1}"
        if any(out.get("ename") == "CellTimeoutError" for out in errors):
            notes.append(Note("cell-timeout", f"{name} ran past the per-cell time limit and was interrupted"))
            continue
        evalue = str(errors[0].get("evalue", "")).strip().splitlines()
        first = evalue[0][:200] if evalue else ""
        notes.append(Note("cell-error", f"{name} raised {errors[0].get('ename')}: {first}".rstrip(": ")))
    return notes


def trim_outputs(nb, output_bytes: int = OUTPUT_LIMITS["output_bytes"],
                 notebook_bytes: int = OUTPUT_LIMITS["notebook_bytes"]) -> str:
    """Cut ``nb``'s outputs in place to ``output_bytes`` each and ``notebook_bytes`` in all, keeping the head
    of each and a note in its place of what was cut; returns what was cut, in words ("" when nothing was).

    The checks' result data (:data:`autograder.outcome.RESULT_MIME`) is never cut: the cohort tools read it.
    """
    from ...outcome import RESULT_MIME

    cut, budget = 0, notebook_bytes
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            allowed = max(0, min(output_bytes, budget))
            before = _output_size(out)
            _trim_output(out, allowed, RESULT_MIME)
            after = _output_size(out)
            cut += before - after
            budget = max(0, budget - after)
    if not cut:
        return ""
    return (f"{_mb(cut)} of output cut from the graded notebook (limits: {_mb(output_bytes)} per output, "
            f"{_mb(notebook_bytes)} per notebook)")


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


def _text_size(value) -> int:
    if isinstance(value, list):
        return sum(len(str(v).encode()) for v in value)
    return len(str(value).encode()) if value is not None else 0


def _output_size(out) -> int:
    kind = out.get("output_type")
    if kind == "stream":
        return _text_size(out.get("text", ""))
    if kind == "error":
        return _text_size(out.get("traceback", [])) + _text_size(out.get("evalue", ""))
    return sum(_text_size(v) for v in (out.get("data") or {}).values())


def _head(text: str, allowed: int) -> str:
    data = text.encode()
    if len(data) <= allowed:
        return text
    note = f"\n[... {_mb(len(data) - allowed)} of this output cut by the grader ...]\n"
    return data[:allowed].decode(errors="ignore") + note


def _trim_output(out, allowed: int, keep: str) -> None:
    kind = out.get("output_type")
    if _output_size(out) <= allowed:
        return
    if kind == "stream":
        text = out.get("text", "")
        out["text"] = _head("".join(text) if isinstance(text, list) else str(text), allowed)
    elif kind == "error":
        lines, kept, size = out.get("traceback", []), [], 0
        for line in lines:
            size += len(str(line).encode())
            if size > allowed:
                kept.append(f"[... {len(lines) - len(kept)} traceback lines cut by the grader ...]")
                break
            kept.append(line)
        out["traceback"] = kept
        out["evalue"] = _head(str(out.get("evalue", "")), min(allowed, 4096))
    else:
        data = out.get("data") or {}
        size = sum(_text_size(v) for v in data.values())
        for mime in list(data):
            if mime == keep:
                continue
            if mime.startswith("text/") and mime != "text/html":
                value = data[mime]
                data[mime] = _head("".join(value) if isinstance(value, list) else str(value), allowed)
            else:
                del data[mime]
        if "text/plain" not in data:
            data["text/plain"] = f"[an output of {_mb(size)} removed by the grader: over its size limit]"


def first_error(nb) -> CellError | None:
    """The first code cell, in notebook order, whose output is an error (``None`` when none is); ``evalue`` keeps the error's last non-empty line when it has several."""
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        error = next((out for out in cell.get("outputs", []) if out.get("output_type") == "error"), None)
        if error is None:
            continue
        name = nbgrader_meta(cell).get("grade_id") or f"cell {index + 1}"
        lines = [line.strip() for line in str(error.get("evalue", "")).splitlines() if line.strip()]
        evalue = " … ".join(dict.fromkeys(lines[:1] + lines[-1:]))
        return CellError(name, str(error.get("ename", "")), evalue[:400])
    return None


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
    def of(cls, event: dict) -> KernelRun:
        """A kernel manager's record of its kernel (:class:`~autograder.cohort.kernels.managers.SandboxedKernelManager`)."""
        return cls(bool(event.get("warm")), bool(event.get("wall_killed")), describe_exit(event),
                   float(event.get("cpu_seconds", 0.0)), float(event.get("shutdown_at", 0.0)))


_KERNEL_START_ADVICE = ("run the solution alone with --sandbox off to tell the sandbox from the environment, and "
                        "read the kernel log")


def explain_failure(capture: LogCapture, limits: dict, cell: str, kernels: list[KernelRun],
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
            seconds = limits.get("notebook_seconds")
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
