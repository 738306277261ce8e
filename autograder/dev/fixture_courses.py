"""Course directories for the tests, the demo and the benchmark, driven by real nbgrader.

A course directory holds ``nbgrader_config.py``, ``solutions/`` (the source),
``exercises/`` (the release), ``submitted/`` and the gradebook.  These helpers run
nbgrader's own commands in it, so what the tests and the cohort tools measure is
what an instructor gets.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..cohort.commands import NbgraderError, nbgrader  # noqa: F401 - NbgraderError is part of this API

ROOT = Path(__file__).resolve().parents[2]


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


def autograde(course: Path, module_id: str, *extra: str, timeout: float | None = None,
              kernels: str | None = None) -> subprocess.CompletedProcess:
    """``nbgrader autograde`` every submission (``kernels="cold"``: a new interpreter per notebook)."""
    return nbgrader(course, "autograde", module_id, "--create", "--force", *extra, timeout=timeout, kernels=kernels)


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
