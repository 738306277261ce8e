"""Thin, tested wrappers around real nbgrader for a course directory.

A course directory holds ``nbgrader_config.py``, ``solutions/`` (the source),
``exercises/`` (the release), ``submitted/`` and the gradebook.  These helpers run
nbgrader's own commands in it, so what the tests and the cohort tools measure is
what an instructor gets.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class NbgraderError(RuntimeError):
    pass


def _env(db: str | None = None) -> dict:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    env["TORCH_LEDGER_PROGRESS"] = "off"  # grading records no learner progress
    # The gradebook is the course directory's own unless a URL is passed explicitly.
    env.pop("COURSE_DB_URL", None)
    if db:
        env["COURSE_DB_URL"] = db
    return env


def nbgrader(course: Path, *args: str, check: bool = True, timeout: float | None = None,
             db: str | None = None) -> subprocess.CompletedProcess:
    """Run ``nbgrader ARGS`` in ``course`` with this interpreter's environment."""
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course, env=_env(db), capture_output=True, text=True, timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise NbgraderError(f"nbgrader {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc


def make_course(dest: Path, module_ids, root: Path = ROOT) -> Path:
    """A fresh course directory with the repository's config and the given modules' sources."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(root / "nbgrader_config.py", dest / "nbgrader_config.py")
    for module_id in module_ids:
        shutil.copytree(root / "solutions" / module_id, dest / "solutions" / module_id, dirs_exist_ok=True)
    return dest


def release(course: Path, module_id: str) -> Path:
    """``nbgrader generate_assignment``: solutions/ → exercises/ (and the gradebook)."""
    nbgrader(course, "generate_assignment", module_id, "--force")
    return Path(course) / "exercises" / module_id / f"{module_id}.ipynb"


def submit(course: Path, module_id: str, student: str, notebook) -> Path:
    """Place a notebook where nbgrader expects student ``student``'s submission."""
    import nbformat

    dest = Path(course) / "submitted" / student / module_id / f"{module_id}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(notebook, (str, Path)):
        shutil.copy(notebook, dest)
    else:
        nbformat.write(notebook, str(dest))
    return dest


def autograde(course: Path, module_id: str, *extra: str, timeout: float | None = None) -> subprocess.CompletedProcess:
    return nbgrader(course, "autograde", module_id, "--create", "--force", *extra, timeout=timeout)


def db_url(course: Path) -> str:
    return "sqlite:///" + str(Path(course).resolve() / "gradebook.db")


def scores(course: Path, module_id: str, url: str | None = None) -> dict:
    """``{student: {test grade_id: (score, max_score)}}`` from the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    found: dict = {}
    with Gradebook(url or db_url(course)) as gb:
        for student in gb.students:
            try:
                sub = gb.find_submission_notebook(module_id, module_id, student.id)
            except MissingEntry:
                continue
            found[student.id] = {
                g.name: (float(g.score), float(g.max_score))
                for g in sub.grades if g.cell.name.startswith("test_")
            }
    return found


def autograded_notebook(course: Path, module_id: str, student: str) -> Path:
    return Path(course) / "autograded" / student / module_id / f"{module_id}.ipynb"
