"""Checks, the ledger and the cohort tools of the PyTorch training-loop course.

The top-level names are imported on first use, so that light parts of the package (the release
step nbgrader loads from ``nbgrader_config.py``, the course's table of contents) do not import torch.
"""

import importlib

_NAMES = {
    "CORRECT": "core", "INCORRECT": "core", "NOT_ATTEMPTED": "core", "SKIPPED": "core",
    "CheckFailed": "core", "Result": "core", "graded": "core",
    "Ledger": "ledger", "grad_state": "ledger",
}

__all__ = list(_NAMES)


def __getattr__(name):
    if name in _NAMES:
        value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
