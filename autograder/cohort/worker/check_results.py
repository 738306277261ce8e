"""Read what each test cell of an autograded notebook reported.

A check shows each result as one output that carries, next to its coloured line, the
result's fields as data (:data:`autograder.outcome.RESULT_MIME`: outcome, diagnosis code,
seen, owner, do, message); unless it passed, it then raises ``CheckFailed``.  A test cell
calls its checks one after another and stops at the first that does not pass, so that
result decides the cell.  Anything else a test cell raised (a ``NameError`` because the
function was renamed, a timeout) is an *errored* outcome, read from the error's name and
value.  Feedback and reports are built from these records, never from the test cells' source.
"""

from __future__ import annotations

from typing import NamedTuple

from ...cells import nbgrader_meta
from ...outcome import RESULT_MIME, Outcome, ResultData
from ..records import TestOutcome

#: A graded test cell's outcomes, in the order reports show them.
OUTCOMES = (Outcome.CORRECT, Outcome.INCORRECT, Outcome.NOT_ATTEMPTED, Outcome.ERRORED)
#: The outcomes of a result that fails its test cell (a skipped check does not).
_FAILING = {Outcome.INCORRECT.value, Outcome.NOT_ATTEMPTED.value}


class Reading(NamedTuple):
    """What one test cell's outputs say."""

    outcome: Outcome
    text: str
    code: str = ""
    seen: str = ""
    owner: str = ""
    do: str = ""
    error: str = ""


def function_of(test_id: str, functions: list[str]) -> str:
    """The graded function a test cell belongs to: the longest ``test_<function>`` prefix."""
    best = ""
    for fn in functions:
        if (test_id == f"test_{fn}" or test_id.startswith(f"test_{fn}_")) and len(fn) > len(best):
            best = fn
    return best or test_id.removeprefix("test_")


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def results(cell) -> list[ResultData]:
    """Every check result among a cell's outputs, in order (the type the check showed: :class:`ResultData`)."""
    found = []
    for out in cell.get("outputs", []):
        result = ResultData.read(out.get("data", {}).get(RESULT_MIME))
        if result is not None:
            found.append(result)
    return found


def read_cell(cell) -> Reading:
    """What one executed test cell reported: its first result that failed it, else the error it raised."""
    failed = next((r for r in results(cell) if r.outcome in _FAILING), None)
    if failed is not None:
        return Reading(Outcome(failed.outcome), _first_line(failed.message, 1000), failed.code, failed.seen,
                       failed.owner, failed.do)
    for out in cell.get("outputs", []):
        if out.get("output_type") != "error":
            continue
        ename, evalue = out.get("ename", ""), str(out.get("evalue", ""))
        if ename == "CheckFailed":  # a check's verdict whose result data is missing
            return Reading(Outcome.INCORRECT, _first_line(evalue, 1000), error=ename)
        if ename == "CellTimeoutError":
            return Reading(Outcome.ERRORED, "the cell ran past the per-cell time limit and was interrupted",
                           error=ename)
        return Reading(Outcome.ERRORED, f"{ename}: {_first_line(evalue)}".rstrip(": "), error=ename)
    return Reading(Outcome.CORRECT, "")


def read_notebook(nb, functions: list[str], scores: dict[str, tuple[float, float]]) -> list[TestOutcome]:
    """Every graded test cell's outcome, in notebook order; ``scores`` comes from the gradebook."""
    found = []
    for cell in nb.cells:
        meta = nbgrader_meta(cell)
        if cell.get("cell_type") != "code" or not meta.get("grade"):
            continue
        test_id = meta["grade_id"]
        function = function_of(test_id, functions)
        reading = read_cell(cell)
        outcome, text = reading.outcome, reading.text
        score, max_score = scores.get(test_id, (0.0, float(meta.get("points", 0))))
        if outcome == Outcome.CORRECT and score < max_score:
            outcome, text = Outcome.INCORRECT, "the cell ran without an error but nbgrader did not give it full marks"
        found.append(TestOutcome(test_id, function, outcome, text, reading.code, score, max_score,
                                 reading.seen, reading.owner, reading.do, reading.error))
    return found
