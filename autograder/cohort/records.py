"""The record of a grading run, typed from the worker to every view: each check's result, the scan's findings,
the notes, a failure, the flags, the lateness and the score, in a student's result and their entry.

A worker hands back a :class:`SubmissionResult`; the coordinator judges it into the student's
:class:`StudentEntry` (:mod:`autograder.cohort.run.coordinator`), which the journal keeps as soon as their grades
are in the gradebook and the :class:`RunRecord`, ``reports/ASSIGNMENT/grading.json``, keeps for ``feedback``,
``report`` and ``export``.  Inside the program these are dataclasses; a dict appears only where the record
crosses a boundary (the Dask return, the journal, ``grading.json``), through each type's one pair
``as_dict`` / ``from_dict``.  The file is written whole and renamed, so it is never left half-written.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path

from .score import Score, checks_points, possible_points

RECORD = "grading.json"
#: Each student's entry, appended once their grades are in the gradebook; read back by the next run
#: after a crash or an interrupt (a resume), removed once ``grading.json`` is written.
JOURNAL = "grading.journal.jsonl"
#: The student id of the calibration run (the assignment's own solution).
REFERENCE = "__reference__"


class RecordError(RuntimeError):
    """A run record that cannot be read."""


def _known(cls, data: dict) -> dict:
    """The items of ``data`` that are fields of ``cls`` (a record written by a later version may hold more)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


# --------------------------------------------------------------------------------------------
# What a worker reads from a graded notebook


@dataclass(frozen=True)
class Grade:
    """One test cell's score as nbgrader's gradebook holds it (``auto_score`` is None where it needs a person)."""

    auto_score: float | None
    max_score: float
    needs_manual_grade: bool = False

    def as_dict(self) -> dict:
        return {"auto_score": self.auto_score, "max_score": self.max_score,
                "needs_manual_grade": self.needs_manual_grade}

    @classmethod
    def from_dict(cls, data: dict) -> Grade:
        return cls(data.get("auto_score"), float(data["max_score"]), bool(data.get("needs_manual_grade")))


@dataclass(frozen=True)
class TestOutcome:
    """One test cell's result for one student (read by :mod:`autograder.cohort.worker.check_results`)."""

    test: str
    function: str
    outcome: str  # an Outcome value
    text: str  # the one-line message the learner saw (empty when correct)
    code: str = ""  # the check's diagnosis code (autograder.diagnoses), when a check failed the cell
    score: float = 0.0
    max_score: float = 0.0
    seen: str = ""  # the three parts of the check's message
    owner: str = ""
    do: str = ""
    error: str = ""  # the name of the exception the cell raised, when it raised

    @property
    def key(self) -> str:
        """What groups the same failure across students: the diagnosis code, else the outcome and the
        name of what the cell raised."""
        if self.code:
            return self.code
        return f"{self.outcome}: {self.error}" if self.error else str(self.outcome)

    def as_dict(self) -> dict:
        """The record's entry (``grading.json``), with the outcome as its plain string."""
        return {"test": self.test, "function": self.function, "outcome": str(self.outcome), "text": self.text,
                "code": self.code, "score": self.score, "max_score": self.max_score, "seen": self.seen,
                "owner": self.owner, "do": self.do, "error": self.error}

    @classmethod
    def from_dict(cls, data: dict) -> TestOutcome:
        return cls(**_known(cls, data))


#: What each rule of the static scan (:mod:`autograder.cohort.worker.scan`) means, as the report shows it.
RULES: dict[str, str] = {
    "sys-modules": "reads or edits sys.modules (the interpreter's table of loaded modules)",
    "builtins": "touches the builtins (builtins / __builtins__)",
    "ipython-shell": "uses the IPython shell (get_ipython, input transformers, magics)",
    "import-machinery": "uses the import machinery (importlib, __import__)",
    "ctypes": "uses ctypes (raw memory access)",
    "hard-exit": "ends or signals the process (os._exit, os.kill, sys.exit, signal)",
    "processes": "starts processes (subprocess, os.fork, os.system, multiprocessing)",
    "autograder": "imports or changes the autograder package or its checks",
    "gradebook": "mentions the gradebook, the nbgrader database or the course's solutions",
    "frames": "inspects interpreter frames or tracing (sys._getframe, settrace, inspect.stack, gc)",
    "network": "opens network connections (socket, urllib, requests, http)",
    "comparison-override": "defines __eq__/__ne__/__bool__ (an object that compares equal to anything?)",
    "shell-escape": "runs a shell command (! line)",
    "unreadable": "nests deeper than the scan reads, or holds bytes Python rejects (scanned line by line instead)",
}


@dataclass(frozen=True)
class Finding:
    """One line the static scan flagged: where (cell, line), which rule, and the line itself."""

    cell: str
    line: int
    rule: str
    text: str

    @property
    def meaning(self) -> str:
        return RULES.get(self.rule, self.rule)

    def as_dict(self) -> dict:
        return {"cell": self.cell, "line": self.line, "rule": self.rule, "text": self.text, "meaning": self.meaning}

    @classmethod
    def from_dict(cls, data: dict) -> Finding:
        return cls(data["cell"], int(data["line"]), data["rule"], data["text"])

    def __str__(self) -> str:
        return f"{self.cell}, line {self.line}: {self.meaning} — `{self.text}`"


@dataclass(frozen=True)
class CellError:
    """The first code cell, in notebook order, whose output is an error: its name, the exception, its message."""

    cell: str
    ename: str
    evalue: str

    def as_dict(self) -> dict:
        return {"cell": self.cell, "ename": self.ename, "evalue": self.evalue}

    @classmethod
    def from_dict(cls, data: dict | None) -> CellError | None:
        return cls(data["cell"], data.get("ename", ""), data.get("evalue", "")) if data else None


@dataclass(frozen=True)
class CanaryVerdict:
    """What the canary cells showed: ``ok``, ``compromised`` or ``not run`` (the kernel ended first)."""

    status: str
    detail: str = ""
    cells: dict[str, str] = field(default_factory=dict)  # test id -> what its copy did (a worker's observation)

    @property
    def compromised(self) -> bool:
        return self.status == "compromised"

    def as_dict(self) -> dict:
        return {"status": self.status, "detail": self.detail, **({"cells": dict(self.cells)} if self.cells else {})}

    @classmethod
    def from_dict(cls, data: dict | None) -> CanaryVerdict:
        data = data or {}
        return cls(data.get("status", "not run"), data.get("detail", ""), dict(data.get("cells") or {}))


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
        return {"owner": self.owner, "cause": self.cause, "reason": self.reason, "advice": self.advice,
                "detail": self.detail}

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
    "system": GRADER,  # the machine refused the grader (a full disk, an unwritable folder, a path too long)
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
        return {"kind": self.kind, "text": self.text, "detail": self.detail}

    @classmethod
    def from_dict(cls, value) -> Note:
        """A note from a record: a dict, or the plain text older records hold (its first line, the rest as detail)."""
        if isinstance(value, dict):
            return cls(value.get("kind", "other"), value.get("text", ""), value.get("detail", ""))
        first, _, rest = str(value).strip().partition("\n")
        return cls("other", first, rest)

    read = from_dict  # a record's note, whichever form it has


#: Why a reviewer should look at a submission: a view may group or leave out flags by kind, never by their words.
FLAG_KINDS = {
    "compromised": "the canary caught a kernel that did not run the test cells as written (scored 0)",
    "not graded": "the notebook could not be graded (scored 0)",
    "scan": "lines of the student's code reach for the grader's internals",
    "output trimmed": "outputs over the byte limits were cut from the graded notebook",
    "structure changed": "the student changed the notebook's structure; it was put back as released",
}


@dataclass(frozen=True)
class Flag:
    """Why a reviewer should look at this submission: its kind (a key of :data:`FLAG_KINDS`) and the detail."""

    kind: str
    detail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in FLAG_KINDS:
            raise ValueError(f"unknown flag kind {self.kind!r}")

    def as_dict(self) -> dict:
        return {"kind": self.kind, "detail": self.detail}

    @classmethod
    def from_dict(cls, data: dict) -> Flag:
        return cls(data["kind"], data.get("detail", ""))


@dataclass(frozen=True)
class Late:
    """How late a submission was, as the gradebook has it: seconds after the due date, the penalty nbgrader's
    late-submission plugin gave, the due date (with any extension) and the submission's time (ISO 8601)."""

    seconds_late: float
    penalty: float = 0.0
    due: str = ""
    submitted: str = ""

    def as_dict(self) -> dict:
        return {"seconds_late": self.seconds_late, "penalty": self.penalty, "due": self.due,
                "submitted": self.submitted}

    @classmethod
    def from_dict(cls, data: dict | None) -> Late | None:
        """``None`` for a submission on time (``{}`` in the record)."""
        if not data:
            return None
        return cls(float(data["seconds_late"]), float(data.get("penalty") or 0.0), data.get("due", ""),
                   data.get("submitted", ""))


def _as_dict(value) -> dict:
    """An optional part's dict: ``{}`` where there is none, as the record has always written it."""
    return value.as_dict() if value is not None else {}


# --------------------------------------------------------------------------------------------
# What a worker hands back


@dataclass
class SubmissionResult:
    """What grading one submission produced."""

    student: str
    status: str = "graded"  # graded | failed (the student's failure: a zero) | internal (the grader's: no grade)
    reason: str = ""
    failure: Failure | None = None  # when status is not graded
    grades: dict[str, Grade] = field(default_factory=dict)  # test id -> its score in the worker's gradebook
    comments: dict[str, str | None] = field(default_factory=dict)  # solution cell id -> auto comment
    late_penalty: float | None = None
    tests: list[TestOutcome] = field(default_factory=list)
    canary: dict[str, str] = field(default_factory=dict)  # canary cell -> observation
    findings: list[Finding] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # what nbgrader restored, cells that errored, ...
    autograded: dict[str, bytes | int | None] = field(default_factory=dict)  # pack_folder of the autograded folder
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase: prepare, kernel_start, cells, ...
    first_error: CellError | None = None
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
        self.reason, self.failure = failure.reason, failure

    @property
    def points(self) -> float:
        """What the checks gave, as nbgrader scored them."""
        return checks_points(self.grades.values())

    @property
    def possible(self) -> float:
        return possible_points(self.grades.values())

    def as_dict(self) -> dict:
        """The Dask task's return value."""
        return {"student": self.student, "status": self.status, "reason": self.reason,
                "failure": _as_dict(self.failure), "grades": {k: g.as_dict() for k, g in self.grades.items()},
                "comments": dict(self.comments), "late_penalty": self.late_penalty,
                "tests": [t.as_dict() for t in self.tests], "canary": dict(self.canary),
                "findings": [f.as_dict() for f in self.findings], "notes": [n.as_dict() for n in self.notes],
                "autograded": self.autograded, "seconds": self.seconds, "timings": dict(self.timings),
                "first_error": _as_dict(self.first_error), "reference": self.reference, "kernel": self.kernel,
                "kernel_note": self.kernel_note, "trimmed": self.trimmed}

    @classmethod
    def from_dict(cls, data: dict) -> SubmissionResult:
        kept = _known(cls, data)
        kept["failure"] = Failure.from_dict(data.get("failure"))
        kept["grades"] = {k: Grade.from_dict(g) for k, g in (data.get("grades") or {}).items()}
        kept["tests"] = [TestOutcome.from_dict(t) for t in data.get("tests") or []]
        kept["findings"] = [Finding.from_dict(f) for f in data.get("findings") or []]
        kept["notes"] = [Note.from_dict(n) for n in data.get("notes") or []]
        kept["first_error"] = CellError.from_dict(data.get("first_error"))
        return cls(**kept)


# --------------------------------------------------------------------------------------------
# What is kept


@dataclass
class StudentEntry:
    """One student's line in the run record: the coordinator's judgement of their result.

    ``raw_score`` is what the checks gave (0 when the notebook was not graded or the canary caught it);
    ``score`` is always derived from it and the late penalty: :attr:`marks` ``.final``
    (:func:`~autograder.cohort.score.final_score`).
    """

    status: str
    reason: str
    score: float  # derived (see above); given only by records that predate raw_score
    max_score: float
    tests: list[TestOutcome] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    compromised: bool = False
    canary_verdict: CanaryVerdict = field(default_factory=lambda: CanaryVerdict("not run"))
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    forced: bool = False  # graded by a run whose calibration failed or was skipped
    failure: Failure | None = None  # when status is failed
    raw_score: float | None = None  # None only while being built from a record that predates it
    late: Late | None = None  # when submitted late
    kernel: str = ""  # how its kernel started: warm (forked from a template) | cold

    def __post_init__(self) -> None:
        if self.raw_score is None:  # a record written before raw scores were kept: its score had the penalty taken
            self.raw_score = float(self.score) + (self.late.penalty if self.late else 0.0)
        self.score = self.marks.final

    @property
    def marks(self) -> Score:
        """The student's score as this run gave it: the checks' points, the points possible, the late penalty."""
        return Score(self.raw_score, self.max_score, self.late.penalty if self.late else 0.0)

    def charge_late(self, late: Late | None) -> None:
        """The submission's lateness as the gradebook has it; the score follows."""
        self.late = late
        self.score = self.marks.final

    def as_dict(self) -> dict:
        return {"status": self.status, "reason": self.reason, "score": self.score, "max_score": self.max_score,
                "tests": [t.as_dict() for t in self.tests], "findings": [f.as_dict() for f in self.findings],
                "notes": [n.as_dict() for n in self.notes], "flags": [f.as_dict() for f in self.flags],
                "compromised": self.compromised, "canary_verdict": self.canary_verdict.as_dict(),
                "seconds": self.seconds, "timings": dict(self.timings), "forced": self.forced,
                "failure": _as_dict(self.failure), "raw_score": self.raw_score, "late": _as_dict(self.late),
                "kernel": self.kernel}

    @classmethod
    def from_dict(cls, data: dict) -> StudentEntry:
        missing = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING} - set(data)
        if missing:
            raise RecordError(f"a student entry lacks {', '.join(sorted(missing))}")
        kept = _known(cls, data)
        kept.update(tests=[TestOutcome.from_dict(t) for t in data.get("tests") or []],
                    findings=[Finding.from_dict(f) for f in data.get("findings") or []],
                    notes=[Note.from_dict(n) for n in data.get("notes") or []],
                    flags=[Flag.from_dict(f) for f in data.get("flags") or []],
                    canary_verdict=CanaryVerdict.from_dict(data.get("canary_verdict")),
                    failure=Failure.from_dict(data.get("failure")), late=Late.from_dict(data.get("late")))
        try:
            return cls(**kept)
        except (TypeError, ValueError, KeyError) as error:
            raise RecordError(f"not a student entry: {error}") from None


@dataclass(frozen=True)
class Calibration:
    """How the assignment's own solution fared in the run's calibration."""

    status: str
    reason: str
    full_marks: bool
    first_error: CellError | None = None
    failure: Failure | None = None
    canary: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"status": self.status, "reason": self.reason, "full_marks": self.full_marks,
                "first_error": _as_dict(self.first_error), "failure": _as_dict(self.failure),
                "canary": dict(self.canary)}

    @classmethod
    def from_dict(cls, data: dict | None) -> Calibration | None:
        if not data:
            return None
        return cls(data.get("status", ""), data.get("reason", ""), bool(data.get("full_marks")),
                   CellError.from_dict(data.get("first_error")), Failure.from_dict(data.get("failure")),
                   dict(data.get("canary") or {}))


@dataclass(frozen=True)
class Sandbox:
    """How the run confined its kernels: the mode it ran in (``bwrap`` or ``off``), what was asked, whether the
    kernels were confined, the warning an unconfined run gives, how many other people work on the machine, and how
    its kernels started (``warm``, ``cold`` or ``mixed``; what was asked; why they started cold)."""

    mode: str = "off"
    asked: str = ""
    confined: bool = False
    warning: str = ""
    other_people: int = 0
    kernels: str = ""
    kernels_asked: str = ""
    kernels_note: str = ""

    def as_dict(self) -> dict:
        return {"mode": self.mode, "asked": self.asked, "confined": self.confined, "warning": self.warning,
                "other_people": self.other_people, "kernels": self.kernels, "kernels_asked": self.kernels_asked,
                "kernels_note": self.kernels_note}

    @classmethod
    def from_dict(cls, data: dict | None) -> Sandbox:
        data = data or {}
        mode = data.get("mode", "off")
        return cls(mode, data.get("asked", ""), bool(data.get("confined", mode == "bwrap")), data.get("warning") or "",
                   int(data.get("other_people") or 0), data.get("kernels", ""), data.get("kernels_asked", ""),
                   data.get("kernels_note") or "")


@dataclass(frozen=True)
class RunLimits:
    """The limits every notebook of the run was graded under: a kernel's
    (:class:`~autograder.cohort.kernels.confinement.Limits`, the same fields) and the per-cell time limit."""

    memory_mb: int = 4096
    processes: int = 128
    cpu_seconds: int = 1200
    file_mb: int = 256
    disk_mb: int = 512
    open_files: int = 1024
    notebook_seconds: int = 600
    cell_seconds: int | None = None

    @classmethod
    def of(cls, limits, cell_seconds: int | None) -> RunLimits:
        """A run's limits: a kernel's (a :class:`~autograder.cohort.kernels.confinement.Limits`) and the per-cell
        time limit."""
        return cls(**{f.name: getattr(limits, f.name) for f in fields(limits)}, cell_seconds=cell_seconds)

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict | None) -> RunLimits:
        return cls(**_known(cls, data or {}))


@dataclass(frozen=True)
class TestPoints:
    """One test cell of the assignment and the points it is worth."""

    test: str
    max_score: float

    def as_dict(self) -> dict:
        return {"test": self.test, "max_score": self.max_score}

    @classmethod
    def from_dict(cls, data: dict) -> TestPoints:
        return cls(data["test"], data["max_score"])


@dataclass(frozen=True)
class Forced:
    """Whether the run was forced (graded although its calibration failed or could not run), why, and how many
    students' grades it wrote and left unwritten (the grader's own failures)."""

    forced: bool = False
    reason: str = ""
    written: int = 0
    not_graded: int = 0

    def as_dict(self) -> dict:
        return {"forced": self.forced, "reason": self.reason, "written": self.written, "not_graded": self.not_graded}

    @classmethod
    def from_dict(cls, data: dict | None) -> Forced:
        data = data or {}
        return cls(bool(data.get("forced")), data.get("reason") or "", int(data.get("written") or 0),
                   int(data.get("not_graded") or 0))


@dataclass(frozen=True)
class Package:
    """Where the ``autograder`` package the coordinator and the kernels imported lives."""

    coordinator: str
    kernel: str

    def as_dict(self) -> dict:
        return {"coordinator": self.coordinator, "kernel": self.kernel}

    @classmethod
    def from_dict(cls, data: dict | None) -> Package | None:
        """``None`` where the run checked no kernel's package (``{}`` in the record)."""
        return cls(data.get("coordinator", ""), data.get("kernel", "")) if data else None


@dataclass(frozen=True)
class Engine:
    """The grading engine: a local cluster or a scheduler (its address), whether its connection was
    authenticated, and the students whose notebooks a worker died on (how many times)."""

    kind: str = ""
    scheduler: str = ""
    authenticated: bool = False
    retried: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "scheduler": self.scheduler, "authenticated": self.authenticated,
                "retried": dict(self.retried)}

    @classmethod
    def from_dict(cls, data: dict | None) -> Engine:
        data = data or {}
        return cls(data.get("kind", ""), data.get("scheduler") or "", bool(data.get("authenticated")),
                   dict(data.get("retried") or {}))


@dataclass(frozen=True)
class OutputLimits:
    """The bytes a graded notebook keeps of its outputs: each output's and the whole notebook's (see
    ``submission.trim_outputs``)."""

    output_bytes: int = 1024 * 1024
    notebook_bytes: int = 5 * 1024 * 1024

    def as_dict(self) -> dict:
        return {"output_bytes": self.output_bytes, "notebook_bytes": self.notebook_bytes}

    @classmethod
    def from_dict(cls, data: dict | None) -> OutputLimits | None:
        """``None`` for a record written before the limits were kept (``{}``)."""
        return cls(**_known(cls, data)) if data else None


@dataclass(frozen=True)
class WorkerCount:
    """How many workers a local run started, and why (``"2 CPUs this process may use"``, ``"--workers"``)."""

    workers: int
    reason: str = ""

    def as_dict(self) -> dict:
        return {"workers": self.workers, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict | None) -> WorkerCount | None:
        """``None`` for a record written before the count was kept (``{}``)."""
        return cls(int(data["workers"]), data.get("reason", "")) if data else None


@dataclass
class RunRecord:
    """``grading.json``: how a run graded an assignment, and every student's entry."""

    assignment: str
    notebook: str
    graded_at: str
    seconds: float
    workers: int
    sandbox: Sandbox
    limits: RunLimits
    gradebook: str  # the database URL, without its password
    functions: list[str]
    tests: list[TestPoints]
    calibration: Calibration | None
    forced: Forced
    package: Package | None
    kernel_cpu_seconds: float
    students: dict[str, StudentEntry]
    engine: Engine = field(default_factory=Engine)
    #: Students this run could not grade because of a fault of the grader; their entries in ``students`` (if any)
    #: are the previous run's, as their grades in the gradebook are.
    not_graded: dict[str, Failure] = field(default_factory=dict)
    #: Bytes cut from graded notebooks' outputs.
    output_limits: OutputLimits | None = None
    #: How many workers a local run started and why.
    worker_count: WorkerCount | None = None

    def as_dict(self) -> dict:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(sandbox=self.sandbox.as_dict(), limits=self.limits.as_dict(), functions=list(self.functions),
                    tests=[t.as_dict() for t in self.tests],
                    calibration=self.calibration.as_dict() if self.calibration else None,
                    forced=self.forced.as_dict(), package=_as_dict(self.package),
                    students={s: e.as_dict() for s, e in sorted(self.students.items())},
                    engine=self.engine.as_dict(), not_graded={s: f.as_dict() for s, f in self.not_graded.items()},
                    output_limits=_as_dict(self.output_limits), worker_count=_as_dict(self.worker_count))
        return json.loads(json.dumps(data))  # a copy: nothing of the record is shared with the dict

    @classmethod
    def from_dict(cls, data: dict) -> RunRecord:
        kept = _known(cls, data)
        try:
            kept.update(sandbox=Sandbox.from_dict(data.get("sandbox")), limits=RunLimits.from_dict(data.get("limits")),
                        functions=list(data.get("functions") or []),
                        tests=[TestPoints.from_dict(t) for t in data.get("tests") or []],
                        calibration=Calibration.from_dict(data.get("calibration")),
                        forced=Forced.from_dict(data.get("forced")), package=Package.from_dict(data.get("package")),
                        students={s: StudentEntry.from_dict(e) for s, e in (data.get("students") or {}).items()},
                        engine=Engine.from_dict(data.get("engine")),
                        not_graded={s: Failure.from_dict(f) for s, f in (data.get("not_graded") or {}).items()},
                        output_limits=OutputLimits.from_dict(data.get("output_limits")),
                        worker_count=WorkerCount.from_dict(data.get("worker_count")))
            return cls(**kept)
        except (TypeError, ValueError, KeyError, AttributeError) as error:
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
