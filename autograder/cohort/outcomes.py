"""Read what each test cell of an autograded notebook reported.

A check prints one coloured line and, unless it passed, raises ``CheckFailed`` whose
text is ``[incorrect] fn — Seen: … Owner: … Do: …`` or ``[not attempted] fn — …``.
Anything else a test cell raised (a ``NameError`` because the function was renamed,
a timeout) is an *errored* outcome.  Feedback and reports are built from these
records, never from the test cells' source.
"""

from __future__ import annotations

import html
import re
from dataclasses import asdict, dataclass

CORRECT, INCORRECT, NOT_ATTEMPTED, ERRORED = "correct", "incorrect", "not attempted", "errored"
OUTCOMES = (CORRECT, INCORRECT, NOT_ATTEMPTED, ERRORED)

_PREFIX = re.compile(r"^\[(incorrect|not attempted)\]\s+(\S+)\s+—\s+(.*)$", re.S)
_CODE_ATTR = re.compile(r'data-code="([^"]*)"')
_TAGS = re.compile(r"<[^>]+>")


@dataclass
class TestOutcome:
    """One test cell's result for one student."""

    test: str
    function: str
    outcome: str
    text: str  # the one-line message the learner saw (empty when correct)
    code: str = ""  # the check's diagnosis code, when the output carries one
    score: float = 0.0
    max_score: float = 0.0

    @property
    def seen(self) -> str:
        """The ``Seen:`` part of an incorrect outcome's message."""
        match = re.search(r"Seen:\s*(.*?)(?:\s+Owner:|$)", self.text, re.S)
        return match.group(1).strip() if match else self.text

    @property
    def key(self) -> str:
        """What groups the same failure across students: the diagnosis code, or the ``Seen:`` text
        with its numbers masked."""
        if self.code:
            return self.code
        return re.sub(r"\d+(\.\d+)?(e-?\d+)?", "#", self.seen)[:200]

    def as_dict(self) -> dict:
        return asdict(self)


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


def read_cell(cell, function: str) -> tuple[str, str, str]:
    """``(outcome, message, code)`` from one executed test cell's outputs."""
    code = ""
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if "text/html" in data:
            found = _CODE_ATTR.search(str(data["text/html"]))
            if found:
                code = html.unescape(found.group(1))
    for out in cell.get("outputs", []):
        if out.get("output_type") != "error":
            continue
        ename, evalue = out.get("ename", ""), str(out.get("evalue", ""))
        if ename == "CheckFailed":
            match = _PREFIX.match(evalue.strip())
            if match:
                return match.group(1), _first_line(evalue, 1000), code
            return INCORRECT, _first_line(evalue, 1000), code
        if ename == "CellTimeoutError":
            return ERRORED, "the cell ran past the per-cell time limit and was interrupted", "timeout"
        return ERRORED, f"{ename}: {_first_line(_TAGS.sub('', evalue))}".rstrip(": "), code
    return CORRECT, "", code


def read_notebook(nb, functions: list[str], scores: dict[str, tuple[float, float]]) -> list[TestOutcome]:
    """Every graded test cell's outcome, in notebook order; ``scores`` comes from the gradebook."""
    found = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or not meta.get("grade"):
            continue
        test_id = meta["grade_id"]
        function = function_of(test_id, functions)
        outcome, text, code = read_cell(cell, function)
        score, max_score = scores.get(test_id, (0.0, float(meta.get("points", 0))))
        if outcome == CORRECT and score < max_score:
            outcome, text = INCORRECT, "the cell ran without an error but nbgrader did not give it full marks"
        found.append(TestOutcome(test_id, function, outcome, text, code, score, max_score))
    return found
