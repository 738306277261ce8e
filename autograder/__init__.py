"""Checks, the ledger and the cohort tools of the PyTorch training-loop course."""

from .core import CORRECT, INCORRECT, NOT_ATTEMPTED, SKIPPED, CheckFailed, Result, graded
from .devices import devices
from .ledger import Ledger, grad_state

__all__ = [
    "CORRECT", "INCORRECT", "NOT_ATTEMPTED", "SKIPPED", "CheckFailed", "Result", "graded",
    "devices", "Ledger", "grad_state",
]
