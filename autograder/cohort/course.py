"""The course directory a cohort command works on: its nbgrader configuration, folders and gradebook.

A course directory holds ``nbgrader_config.py`` (which names the source and release
folders and the gradebook URL, ``COURSE_DB_URL`` or SQLite by default), the
assignment sources, nbgrader's ``submitted/``, ``autograded/`` and ``feedback/``
folders, and ``reports/`` for the cohort reports.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from .commands import NbgraderError, nbgrader

CONFIG_FILE = "nbgrader_config.py"


class CourseError(RuntimeError):
    """The course directory or the assignment is not usable as asked."""


def ensure_tools_on_path() -> None:
    """Put this interpreter's ``bin`` folder first on PATH: nbgrader runs ``alembic`` (and
    ``jupyter``) as commands when it creates a gradebook or a kernel."""
    bindir = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != bindir:
        os.environ["PATH"] = bindir + os.pathsep + path


def load_config(root: Path) -> Config:
    """The course's nbgrader configuration, as nbgrader itself would load it from ``root``."""
    path = Path(root) / CONFIG_FILE
    if not path.exists():
        raise CourseError(f"{root} is not an nbgrader course directory: no {CONFIG_FILE}")
    config = PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()
    config.CourseDirectory.root = str(Path(root).resolve())
    return config


@dataclass
class Course:
    """An nbgrader course directory and the few facts the cohort tools need from its config."""

    root: Path
    config: Config

    @classmethod
    def open(cls, root: Path | str = ".") -> Course:
        ensure_tools_on_path()
        root = Path(root).resolve()
        return cls(root, load_config(root))

    # -- configuration ----------------------------------------------------------------

    def _setting(self, section: str, key: str, default):
        block = self.config.get(section, {})
        return block[key] if key in block else default

    @property
    def db_url(self) -> str:
        return self._setting("CourseDirectory", "db_url", "sqlite:///" + str(self.root / "gradebook.db"))

    def db_file(self) -> Path:
        """The gradebook's file when it is SQLite (where ``grade`` checks who else can read it)."""
        url = self.db_url
        if url.startswith("sqlite:///"):
            return Path(url[len("sqlite:///"):])
        return self.root / "gradebook.db"

    @property
    def course_id(self) -> str:
        return self._setting("CourseDirectory", "course_id", "")

    @property
    def cell_timeout(self) -> int:
        return int(self._setting("Execute", "timeout", 30) or 30)

    def folder(self, kind: str) -> Path:
        """``source``, ``release``, ``submitted``, ``autograded`` or ``feedback`` folder of the course."""
        default = {"source": "source", "release": "release", "submitted": "submitted",
                   "autograded": "autograded", "feedback": "feedback"}[kind]
        return self.root / self._setting("CourseDirectory", f"{kind}_directory", default)

    # -- paths ---------------------------------------------------------------------------

    def source(self, assignment: str) -> Path:
        return self.folder("source") / assignment

    def submitted(self, student: str, assignment: str) -> Path:
        return self.folder("submitted") / student / assignment

    def autograded(self, student: str, assignment: str) -> Path:
        return self.folder("autograded") / student / assignment

    def feedback(self, student: str, assignment: str) -> Path:
        return self.folder("feedback") / student / assignment

    def reports(self, assignment: str) -> Path:
        return self.root / "reports" / assignment

    def students(self, assignment: str) -> list[str]:
        """Every student with a ``submitted/STUDENT/ASSIGNMENT`` folder, sorted."""
        base = self.folder("submitted")
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if (p / assignment).is_dir())

    # -- the gradebook ---------------------------------------------------------------------

    def gradebook(self):
        from nbgrader.api import Gradebook

        return Gradebook(self.db_url, self.course_id or "default_course")

    def has_assignment(self, assignment: str) -> bool:
        from nbgrader.api import MissingEntry

        with self.gradebook() as gb:
            try:
                return bool(gb.find_assignment(assignment).notebooks)
            except MissingEntry:
                return False

    def ensure_assignment(self, assignment: str) -> None:
        """Record the assignment's cells in the gradebook from its source, if they are not there yet.

        Runs ``nbgrader generate_assignment`` with a throw-away release folder, so the
        committed release is never rewritten.
        """
        if self.has_assignment(assignment):
            return
        if not (self.source(assignment) / f"{assignment}.ipynb").exists():
            raise CourseError(f"assignment {assignment!r} is neither in the gradebook nor in "
                              f"{self.source(assignment)}")
        with tempfile.TemporaryDirectory(prefix="ag-release-") as tmp:
            try:
                nbgrader(self.root, "generate_assignment", assignment, "--force",
                         f"--CourseDirectory.release_directory={tmp}", "--log-level=WARN", db=self.db_url)
            except NbgraderError as error:
                raise CourseError(str(error)) from None

    def notebook_name(self, assignment: str) -> str:
        """The assignment's one notebook (this course names it after the assignment)."""
        with self.gradebook() as gb:
            names = [nb.name for nb in gb.find_assignment(assignment).notebooks]
        if names != [assignment]:
            raise CourseError(f"assignment {assignment!r} has notebooks {names}; the cohort tools grade "
                              "assignments made of one notebook named after the assignment")
        return assignment

    def data_files(self, assignment: str) -> list[Path]:
        """The assignment's files other than notebooks (copied next to every graded notebook)."""
        src = self.source(assignment)
        if not src.is_dir():
            return []
        return sorted(p for p in src.iterdir()
                      if p.suffix != ".ipynb" and p.name not in {".ipynb_checkpoints", "__pycache__"})


def cell_names(notebook) -> dict[str, str]:
    """A gradebook notebook's cell names by cell id (its grade, solution and task cells): what a student's grades
    and comments are named.  A grade's or a comment's own ``name`` is an association proxy through its cell, which
    loads that cell's row by itself: about two dozen queries a student where this is one."""
    return {cell.id: cell.name for cell in (*notebook.grade_cells, *notebook.solution_cells, *notebook.task_cells)}


def copy_assignment(src_url: str, dst_url: str, assignment: str, course_id: str = "default_course") -> None:
    """Copy an assignment's notebooks and cells (no students, no grades) from one gradebook into another.

    The grading workers' private gradebooks are made this way from the course's, whatever
    database the course uses.
    """
    from nbgrader.api import Gradebook

    _create_like(src_url, dst_url)
    with Gradebook(src_url, course_id) as src, Gradebook(dst_url, course_id) as dst:
        a = src.find_assignment(assignment)
        dst.update_or_create_assignment(assignment, duedate=a.duedate)
        for nb in a.notebooks:
            dst.update_or_create_notebook(nb.name, assignment, kernelspec=nb.kernelspec)
            for c in nb.grade_cells:
                dst.update_or_create_grade_cell(c.name, nb.name, assignment, max_score=c.max_score,
                                                cell_type=c.cell_type)
            for c in nb.solution_cells:
                dst.update_or_create_solution_cell(c.name, nb.name, assignment)
            for c in nb.task_cells:
                dst.update_or_create_task_cell(c.name, nb.name, assignment, max_score=c.max_score,
                                               cell_type=c.cell_type)
            for c in nb.source_cells:
                dst.update_or_create_source_cell(c.name, nb.name, assignment, cell_type=c.cell_type,
                                                 locked=c.locked, source=c.source, checksum=c.checksum)


def _create_like(src_url: str, dst_url: str) -> None:
    """Create an empty gradebook at ``dst_url`` stamped with ``src_url``'s schema version.

    nbgrader asks the ``alembic`` command for the version when it creates a gradebook (a
    second or two); a copy of the course's version does the same job.  Does nothing when
    the source has no version table (nbgrader then creates the gradebook itself).
    """
    from nbgrader.api import Base
    from sqlalchemy import create_engine, text

    source = create_engine(src_url)
    try:
        with source.connect() as conn:
            version = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except Exception:  # noqa: BLE001 - any database without the table: leave it to nbgrader
        return
    finally:
        source.dispose()
    target = create_engine(dst_url)
    try:
        Base.metadata.create_all(bind=target)
        with target.begin() as conn:
            conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
            conn.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": version})
    finally:
        target.dispose()


def reset_dir(path: Path) -> Path:
    """An empty directory at ``path``."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path
