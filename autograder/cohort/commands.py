"""The one wrapper around nbgrader's commands: ``nbgrader ARGS`` run in a course directory.

Every nbgrader command the cohort tools (and the development tools) run goes through
:func:`nbgrader`, with this interpreter's environment: its ``bin`` folder first on PATH
(nbgrader runs ``alembic`` and ``jupyter`` as commands), no learner progress recorded, and
the gradebook the course's own unless a URL is passed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


class NbgraderError(RuntimeError):
    """An nbgrader command exited with an error; the message holds the end of its stderr."""


def environment(db: str | None = None, kernels: str | None = None) -> dict:
    """The environment nbgrader commands run with (``kernels``: ``warm``, ``cold`` or ``stock``, see ``nbgrader_config.py``)."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    env["TORCH_LEDGER_PROGRESS"] = "off"  # grading records no learner progress
    env.pop("COURSE_DB_URL", None)  # the course's own gradebook unless a URL is passed
    if db:
        env["COURSE_DB_URL"] = db
    if kernels:
        env["TORCH_LEDGER_KERNELS"] = kernels
    return env


def nbgrader(course: Path, *args: str, check: bool = True, timeout: float | None = None,
             db: str | None = None, kernels: str | None = None) -> subprocess.CompletedProcess:
    """Run ``nbgrader ARGS`` in ``course``; raises :class:`NbgraderError` when it fails (unless ``check=False``)."""
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=environment(db, kernels),
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise NbgraderError(f"nbgrader {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc
