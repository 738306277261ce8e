"""A submission and its graded notebook, read: the notebook file (or why it cannot be graded), what nbgrader
said, the first error and the outputs cut to their limits.  Why a notebook produced no graded copy, and whose
failure that is, is :mod:`autograder.cohort.worker.failures`'s."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import nbformat

from ...cells import nbgrader_meta
from ..records import CellError, Note

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
    except RecursionError:
        return None, "the notebook file nests its JSON deeper than a JSON reader goes: not a notebook Jupyter can open"
    except ValueError as error:  # a number too long to read (Python's limit on an int's digits)
        return None, f"the notebook file holds JSON Python cannot read ({str(error)[:120]})"
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
