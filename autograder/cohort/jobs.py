"""What travels between the coordinator and a grader: the run's spec, a job, and a folder as data.

``grade`` sends each grader the :class:`RunSpec` once and a :class:`Job` per submission; the submission's files
travel with it (:func:`pack_folder`), so a grader on another machine needs no shared folder, and the autograded
notebook's files travel back the same way inside the result (:mod:`autograder.cohort.records`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .records import RecordError

if TYPE_CHECKING:
    from .kernels.confinement import Limits

#: Files larger than this travel as their size only (the grader sees a sparse file of that size).
MAX_FILE_BYTES = 64 * 1024 * 1024



# --------------------------------------------------------------------------------------------
# A folder as data


def pack_folder(folder: Path, skip=lambda rel: False) -> dict[str, bytes | int | None]:
    """``{relative path: contents}`` of the regular files under ``folder``.

    Symlinks are never followed: each travels as ``None``.  A file over :data:`MAX_FILE_BYTES`
    travels as its size (an ``int``).  Checkpoint folders are left out.
    """
    folder = Path(folder)
    files: dict[str, bytes | int | None] = {}
    if not folder.is_dir():
        return files
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        here = Path(dirpath)
        rel_dir = here.relative_to(folder)
        for d in list(dirnames):
            if (here / d).is_symlink():
                files[str(rel_dir / d)] = None
        dirnames[:] = [d for d in dirnames if not (here / d).is_symlink() and d != ".ipynb_checkpoints"]
        for name in filenames:
            path, rel = here / name, rel_dir / name
            if skip(rel):
                continue
            if path.is_symlink():
                files[str(rel)] = None
            elif path.is_file():
                size = path.stat().st_size
                files[str(rel)] = size if size > MAX_FILE_BYTES else path.read_bytes()
    return files


def unpack_folder(files: dict[str, bytes | int | None], dest: Path) -> Path:
    """Write :func:`pack_folder`'s files under ``dest`` (a symlink becomes a dangling one, a size a
    sparse file); refuses a path that would leave ``dest``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    for rel, content in files.items():
        path = (dest / rel).resolve() if content is not None else (dest / rel).parent.resolve() / Path(rel).name
        if root not in path.parents:
            raise RecordError(f"a packed file would be written outside {dest}: {rel!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.symlink_to("symlink-not-followed")
        elif isinstance(content, int):
            with open(path, "wb") as fh:
                fh.truncate(content)
        else:
            path.write_bytes(content)
    return dest


@dataclass
class RunSpec:
    """One grading run as every grader needs it: built once by ``grade``, sent once to each Dask worker."""

    assignment: str
    notebook: str
    sandboxed: bool
    limits: Limits  # every kernel's
    cell_timeout: int
    tests: list  # (test grade id, source with hidden tests), in notebook order
    functions: list  # graded functions: the answer cells' grade ids
    locked: dict  # locked cells' grade id -> source (for the static scan)
    config: object  # the course's traitlets Config
    template_db: bytes  # a gradebook holding only this assignment: each notebook is scored in a copy
    data_files: dict = field(default_factory=dict)  # pack_folder of the assignment's data files
    warm: bool = True  # kernels forked from a warm template (autograder.cohort.kernels.template)
    output_limits: dict = field(default_factory=dict)  # bytes a graded notebook keeps (worker.submission.OUTPUT_LIMITS)


@dataclass
class Job:
    """One submission to grade; ``reference`` marks the calibration run of the solution."""

    seq: int
    student: str
    files: dict = field(default_factory=dict)  # pack_folder of the submission folder
    reference: bool = False

    def as_dict(self) -> dict:
        """The Dask task's argument."""
        return {"seq": self.seq, "student": self.student, "files": self.files, "reference": self.reference}

    @classmethod
    def from_dict(cls, data: dict) -> Job:
        return cls(int(data["seq"]), data["student"], data.get("files") or {}, bool(data.get("reference")))


