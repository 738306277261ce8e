"""The outcomes a check can come to, and the data its result carries in a notebook's outputs.

Outcomes are stored as their string values (progress files, run records), and an
:class:`Outcome` compares equal to its value, so either may be read back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Outcome(str, Enum):
    """What a check came to (``ERRORED`` only for a graded test cell, in the cohort tools)."""

    CORRECT = "correct"  # the check ran to the end
    INCORRECT = "incorrect"  # the check saw something wrong, or the learner's code raised
    NOT_ATTEMPTED = "not attempted"  # the learner's function is still the stub or the starter code
    SKIPPED = "skipped"  # the check cannot run here (it needs a device this machine lacks)
    ERRORED = "errored"  # a test cell raised something other than a check's verdict

    def __str__(self) -> str:
        return self.value


#: The one colour of each outcome, wherever it is drawn: a check's line, the feedback pages, the cohort report.
COLOURS = {
    Outcome.CORRECT: "#1a7f37",
    Outcome.INCORRECT: "#cf222e",
    Outcome.NOT_ATTEMPTED: "#9a6700",
    Outcome.SKIPPED: "#57606a",
    Outcome.ERRORED: "#57606a",
}


def css_class(outcome) -> str:
    """The CSS class of ``outcome`` in an HTML page (``"not attempted"`` -> ``not-attempted``)."""
    return str(outcome).replace(" ", "-")


def css_rules() -> str:
    """``.correct{background:…}`` and so on: every outcome's badge colour for a page's style sheet."""
    return " ".join(f".{css_class(o)}{{background:{c}}}" for o, c in COLOURS.items())


#: The MIME type of a check result's data, displayed in the same output as its coloured line.
RESULT_MIME = "application/vnd.torch-ledger.result+json"
#: The version of that data's fields.
RESULT_VERSION = 1


@dataclass(frozen=True)
class ResultData:
    """A check result's fields as data: what :meth:`autograder.core.Result.data` shows in a notebook's output
    (under :data:`RESULT_MIME`) and what the cohort tools read back
    (:func:`autograder.cohort.worker.check_results.results`).  A dict only in the output, through :meth:`as_dict`
    and :meth:`read`."""

    function: str
    part: str
    outcome: str  # an Outcome value
    code: str = ""
    seen: str = ""
    owner: str = ""
    do: str = ""
    message: str = ""  # the result's one line of text, as the learner saw it

    def as_dict(self) -> dict:
        return {"version": RESULT_VERSION, "function": self.function, "part": self.part, "outcome": str(self.outcome),
                "code": self.code, "seen": self.seen, "owner": self.owner, "do": self.do, "message": self.message}

    @classmethod
    def read(cls, data) -> ResultData | None:
        """The result an output's data holds; ``None`` for anything else (another version, not a dict)."""
        if not isinstance(data, dict) or data.get("version") != RESULT_VERSION:
            return None
        return cls(*(str(data.get(name, "")) for name in ("function", "part", "outcome", "code", "seen", "owner",
                                                          "do", "message")))
