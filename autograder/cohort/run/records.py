"""The records a cohort run passes around: the run's spec, a job, a submission's result, a student's entry,
the run record and the journal.

``grade`` sends a :class:`Job` (the submission's files travel with it, so a grader on
another machine needs no shared folder) and gets back a :class:`SubmissionResult` (the
autograded notebook's files travel back the same way).  Each student's
:class:`StudentEntry` goes to the :class:`Journal` as soon as their grades are in the
gradebook, and into the :class:`RunRecord`, ``reports/ASSIGNMENT/grading.json``, that
``feedback``, ``report`` and ``export`` read.  The file is written whole and renamed, so
it is never left half-written.
"""

from __future__ import annotations

import json
import os
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path

RECORD = "grading.json"
#: Each student's entry, appended once their grades are in the gradebook; read back by the next run
#: after a crash or an interrupt (a resume), removed once ``grading.json`` is written.
JOURNAL = "grading.journal.jsonl"
#: The student id of the calibration run (the assignment's own solution).
REFERENCE = "__reference__"

#: Files larger than this travel as their size only (the grader sees a sparse file of that size).
MAX_FILE_BYTES = 64 * 1024 * 1024


class RecordError(RuntimeError):
    """A run record that cannot be read."""


class GradingError(RuntimeError):
    """The run cannot start (no such assignment, no sandbox when one was required, ...)."""

    exit_code = 2


class CalibrationFailed(GradingError):
    """The assignment's own solution did not score full marks under the run's set-up: nothing was written."""

    exit_code = 3


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


# --------------------------------------------------------------------------------------------
# What travels between the coordinator and a grader


@dataclass
class RunSpec:
    """One grading run as every grader needs it: built once by ``grade``, sent once to each Dask worker."""

    assignment: str
    notebook: str
    sandboxed: bool
    limits: dict  # Limits.as_dict() of every kernel
    cell_timeout: int
    tests: list  # (test grade id, source with hidden tests), in notebook order
    functions: list  # graded functions: the answer cells' grade ids
    locked: dict  # locked cells' grade id -> source (for the static scan)
    config: object  # the course's traitlets Config
    template_db: bytes  # a gradebook holding only this assignment: each notebook is scored in a copy
    data_files: dict = field(default_factory=dict)  # pack_folder of the assignment's data files
    warm: bool = True  # kernels forked from a warm template (autograder.cohort.kernels.template)
    output_limits: dict = field(default_factory=dict)  # bytes a graded notebook keeps (submission.OUTPUT_LIMITS)


@dataclass
class Job:
    """One submission to grade; ``reference`` marks the calibration run of the solution."""

    seq: int
    student: str
    files: dict = field(default_factory=dict)  # pack_folder of the submission folder
    reference: bool = False


#: Who a failure belongs to.  A *student* failure is a grade (their notebook could not be graded: it
#: is unreadable, its code ran past a limit, crashed or killed its kernel; it scores zero).  A
#: *grader* failure is not: the grader could not write, read, start a kernel or reach the gradebook,
#: so nothing is written for that student and their previous grade stands.
STUDENT, GRADER = "student", "grader"


@dataclass(frozen=True)
class Failure:
    """Why a submission was not graded, as data: whose failure it is and its cause, then words for people.

    ``cause`` is one of :data:`CAUSES` (``_calibration_advice`` and the views switch on it, never on
    the words); ``reason`` is the one line an instructor reads; ``advice`` what to do about it;
    ``detail`` what a maintainer needs (a traceback, a log's tail).
    """

    owner: str  # STUDENT | GRADER
    cause: str  # a key of CAUSES
    reason: str
    advice: str = ""
    detail: str = ""

    def __post_init__(self) -> None:
        if self.owner not in (STUDENT, GRADER):
            raise ValueError(f"a failure's owner is {STUDENT!r} or {GRADER!r}, not {self.owner!r}")
        if CAUSES.get(self.cause) != self.owner:
            raise ValueError(f"unknown failure cause {self.cause!r} for owner {self.owner!r}")

    @property
    def internal(self) -> bool:
        return self.owner == GRADER

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> Failure | None:
        if not data:
            return None
        return cls(**{k: data.get(k, "") for k in ("owner", "cause", "reason", "advice", "detail")})


#: Every failure cause and whose it is.
CAUSES = {
    # the student's notebook or code
    "unreadable": STUDENT,  # no notebook of that name, empty, not JSON, not a notebook
    "wall-clock": STUDENT,  # the notebook ran past --notebook-timeout
    "cell-timeout": STUDENT,  # a cell ran past the per-cell limit and ignored the interrupt
    "kernel-died": STUDENT,  # the kernel died (a signal, a limit, os._exit) while running the notebook
    "worker-died": STUDENT,  # the grading process died with this notebook on two workers
    "hard-limit": STUDENT,  # grading the notebook ran past the notebook limit plus the grace
    "metadata": STUDENT,  # nbgrader could not validate the notebook's cell metadata
    # the grader's own
    "grader-error": GRADER,  # the grader raised (it could not write or read its scratch, ...)
    "kernel-start": GRADER,  # a kernel did not start (before any of the notebook's code ran)
    "nbgrader": GRADER,  # nbgrader stopped for a reason that is not the notebook's
    "engine": GRADER,  # the grading engine (Dask) lost the task
    "gradebook": GRADER,  # the coordinator could not write the gradebook
    "course-folder": GRADER,  # the coordinator could not write a file or folder of the course (autograded/, reports/)
}


#: What a grading note is about: a view may group or leave out notes by kind, never by their words.
NOTE_KINDS = {
    "restored": "nbgrader put back what the student edited or deleted (metadata, a locked or a test cell)",
    "duplicate-id": "a grade id appears more than once; the extra copies were ignored",
    "structure": "the student changed the notebook's structure (cells deleted, duplicated, moved, metadata lost); "
                 "it was put back as released before grading",
    "cell-error": "a cell of the student's raised an error",
    "cell-timeout": "a cell ran past the per-cell limit and was interrupted",
    "wall-clock": "the notebook's wall-clock limit stopped its kernel",
    "other": "a note kept from a record written before notes had kinds",
}


@dataclass(frozen=True)
class Note:
    """One thing the instructor should know about how a notebook was graded: its kind (a key of
    :data:`NOTE_KINDS`), one line of text, and any detail (a log excerpt), which only the report shows."""

    kind: str
    text: str
    detail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in NOTE_KINDS:
            raise ValueError(f"unknown note kind {self.kind!r}")
        if "\n" in self.text:
            raise ValueError("a note's text is one line; what follows belongs in its detail")

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def read(cls, value) -> Note:
        """A note from a record: a dict, or the plain text older records hold (its first line, the rest as detail)."""
        if isinstance(value, dict):
            return cls(value.get("kind", "other"), value.get("text", ""), value.get("detail", ""))
        first, _, rest = str(value).strip().partition("\n")
        return cls("other", first, rest)


def notes_of(entry) -> list[Note]:
    """The notes of a result or an entry (a dict or a :class:`StudentEntry`), as :class:`Note`."""
    values = entry.get("notes") if isinstance(entry, dict) else entry.notes
    return [Note.read(v) for v in values or []]


@dataclass
class SubmissionResult:
    """What grading one submission produced."""

    student: str
    status: str = "graded"  # graded | failed (the student's failure: a zero) | internal (the grader's: no grade)
    reason: str = ""
    failure: dict = field(default_factory=dict)  # Failure.as_dict() when status is not graded
    grades: dict = field(default_factory=dict)  # test id -> {auto_score, max_score, needs_manual_grade}
    comments: dict = field(default_factory=dict)  # solution cell id -> auto comment
    late_penalty: float | None = None
    tests: list = field(default_factory=list)  # TestOutcome dicts
    canary: dict = field(default_factory=dict)  # canary cell -> observation
    findings: list = field(default_factory=list)  # static scan Finding dicts
    notes: list = field(default_factory=list)  # Note.as_dict(): what nbgrader restored, cells that errored, ...
    autograded: dict = field(default_factory=dict)  # pack_folder of the autograded notebook's folder
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)  # seconds per phase: prepare, kernel_start, cells, finish
    first_error: dict = field(default_factory=dict)  # the first cell whose output is an error: cell, ename, evalue
    reference: bool = False
    kernel: str = ""  # how its kernel started: warm | cold ("" when none started)
    kernel_note: str = ""  # why it started cold where a warm one was asked for
    trimmed: str = ""  # what was cut from the notebook's outputs, when they were over the byte limits

    @classmethod
    def failed(cls, student: str, failure: Failure) -> SubmissionResult:
        outcome = cls(student, reference=student == REFERENCE)
        outcome.fail(failure)
        return outcome

    def fail(self, failure: Failure) -> None:
        """Mark this outcome as not graded, for ``failure``'s owner: ``failed`` (a zero) or ``internal``."""
        self.status = "internal" if failure.internal else "failed"
        self.reason, self.failure = failure.reason, failure.as_dict()

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SubmissionResult:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


# --------------------------------------------------------------------------------------------
# What is kept


@dataclass
class StudentEntry:
    """One student's line in the run record."""

    status: str
    reason: str
    score: float
    max_score: float
    tests: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    compromised: bool = False
    canary_verdict: dict = field(default_factory=dict)
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)
    forced: bool = False  # graded by a run whose calibration failed or was skipped
    failure: dict = field(default_factory=dict)  # Failure.as_dict() when status is failed
    raw_score: float | None = None  # the score before a late penalty (None in records written before it was kept)
    late: dict = field(default_factory=dict)  # {seconds_late, penalty, due, submitted} when submitted late
    kernel: str = ""  # how its kernel started: warm (forked from a template) | cold

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> StudentEntry:
        names = {f.name for f in fields(cls)}
        missing = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING} - set(data)
        if missing:
            raise RecordError(f"a student entry lacks {', '.join(sorted(missing))}")
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class RunRecord:
    """``grading.json``: how a run graded an assignment, and every student's entry."""

    assignment: str
    notebook: str
    graded_at: str
    seconds: float
    workers: int
    sandbox: dict  # {"mode": "bwrap" | "off", "warning": str}
    limits: dict
    gradebook: str  # the database URL, without its password
    functions: list
    tests: list  # [{"test", "max_score"}]
    calibration: dict | None
    forced: dict  # {"forced": bool, "reason": str}
    package: dict
    kernel_cpu_seconds: float
    students: dict[str, StudentEntry]
    engine: dict = field(default_factory=dict)  # {"kind": local | scheduler, "scheduler", "retried": {student: deaths}}
    #: Students this run could not grade because of a fault of the grader (student -> Failure dict); their
    #: entries in ``students`` (if any) are the previous run's, as their grades in the gradebook are.
    not_graded: dict = field(default_factory=dict)
    #: Bytes cut from graded notebooks' outputs (see ``worker.trim_outputs``): {"output_bytes", "notebook_bytes"}.
    output_limits: dict = field(default_factory=dict)
    #: How many workers a local run started and why: {"workers": n, "reason": "2 CPUs this process may use"}.
    worker_count: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["students"] = {s: e.as_dict() for s, e in sorted(self.students.items())}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> RunRecord:
        names = {f.name for f in fields(cls)}
        kept = {k: v for k, v in data.items() if k in names}
        kept["students"] = {s: StudentEntry.from_dict(e) for s, e in (data.get("students") or {}).items()}
        try:
            return cls(**kept)
        except TypeError as error:
            raise RecordError(f"not a run record: {error}") from None

    def save(self, path: Path) -> None:
        """Write the record whole, then rename it into place."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.as_dict(), indent=1))
        tmp.replace(path)


def load(path: Path) -> RunRecord:
    """The run record at ``path``; a clear error when there is none or it is not one."""
    path = Path(path)
    if not path.is_file():
        raise RecordError(f"no run record at {path}: run `grade` first")
    try:
        data = json.loads(path.read_text())
    except ValueError as error:
        raise RecordError(f"{path} is not JSON ({error})") from None
    return RunRecord.from_dict(data)


def load_students(path: Path) -> dict[str, StudentEntry]:
    """The students of the run record at ``path``; none when there is no readable one."""
    try:
        return load(path).students
    except RecordError:
        return {}


def safe_url(url: str) -> str:
    """A database URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':')[0]}@{host}"
    return url
