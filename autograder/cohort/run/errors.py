"""The errors that stop a grading run before it writes anything, and the exit code each gives the command."""

from __future__ import annotations


class GradingError(RuntimeError):
    """The run cannot start (no such assignment, no sandbox when one was required, ...)."""

    exit_code = 2


class CalibrationFailed(GradingError):
    """The assignment's own solution did not score full marks under the run's set-up: nothing was written."""

    exit_code = 3
