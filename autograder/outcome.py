"""The outcomes a check can come to, and the data its result carries in a notebook's outputs.

Outcomes are stored as their string values (progress files, run records), and an
:class:`Outcome` compares equal to its value, so either may be read back.
"""

from __future__ import annotations

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


#: The MIME type of a check result's data, displayed in the same output as its coloured line.
RESULT_MIME = "application/vnd.torch-ledger.result+json"
#: The version of that data's fields.
RESULT_VERSION = 1
