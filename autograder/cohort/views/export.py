"""``export``: the gradebook as ``grades.csv``, written by nbgrader's own ``export`` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ..course import Course


def export(course: Course, dest: Path | None = None) -> Path:
    """Run ``nbgrader export`` (its CSV plugin) on the course's gradebook; returns the CSV's path."""
    dest = Path(dest) if dest else course.root / "grades.csv"
    if not dest.is_absolute():
        dest = Path.cwd() / dest
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", f"--to={dest}",
         f"--CourseDirectory.db_url={course.db_url}", "--log-level=WARN"],
        cwd=course.root, env=dict(os.environ), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader export failed:\n{proc.stderr[-3000:]}")
    return dest
