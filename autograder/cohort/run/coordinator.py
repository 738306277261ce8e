"""The coordinator's judgement of each result: the calibration gate, the canary verdict, the journal.

:class:`Coordinator` is what ``grade`` hands every :class:`~autograder.cohort.records.SubmissionResult` that comes
back from a worker, in the order they come back.  :meth:`Coordinator.accept`

1. holds the students back until the calibration run (the assignment's own solution) is in, and
   then either refuses the run (:attr:`Coordinator.refused`: nothing is written) or lets them
   through (a forced run marks itself);
2. leaves a student whose result is the *grader's* failure (``status == "internal"``) alone: nothing
   is written for them, their previous grade stands, and they are listed in :attr:`not_graded`;
3. otherwise judges it (:func:`judge`: the canary verdict, the flags, the score), which gives the
   student's :class:`~autograder.cohort.records.StudentEntry`, and writes the student through its
   :class:`~.gradebook_writer.Writer`:
   their gradebook rows in one transaction, their autograded folder, then their journal line.

The result stays the worker's record of what grading produced; the entry is the coordinator's
judgement of it, and is what ``grading.json`` keeps.

A write that fails (the database cannot be reached, the disk is full) is the grader's failure too:
nothing of that student is kept and they join :attr:`not_graded`.  The writer is the only part
that touches the course; the tests give the coordinator one of their own and made-up results.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..course import Course
from ..records import GRADER, Calibration, CanaryVerdict, Failure, Flag, StudentEntry, SubmissionResult
from ..score import earns_nothing
from ..score import full_marks as scored_full_marks
from . import canary_verdict
from .gradebook_writer import Writer

# --------------------------------------------------------------------------------------------
# Judging


def full_marks(result: SubmissionResult) -> bool:
    return result.status == "graded" and scored_full_marks(result.grades.values())


def judge(result: SubmissionResult, expected: dict | None, max_total: float, forced: bool) -> StudentEntry:
    """A student's entry in the run record, for a result the student owns (graded or failed): the canary
    verdict, the flags, and the checks' points (0 when not graded or compromised); the writer then charges any
    late penalty, from which the entry's score follows."""
    verdict = CanaryVerdict("not run")
    if result.status == "graded":
        seen = canary_verdict.verdict(result.canary, expected)
        verdict = CanaryVerdict(seen.status, seen.detail)
    points = 0.0 if earns_nothing(result.status, verdict.compromised) else result.points
    return StudentEntry(status=result.status, reason=result.reason, score=points, raw_score=points,
                        max_score=result.possible or max_total, tests=list(result.tests),
                        findings=list(result.findings), notes=list(result.notes),
                        flags=flags(result, verdict if verdict.compromised else None), compromised=verdict.compromised,
                        canary_verdict=verdict, seconds=result.seconds, timings=result.timings, forced=forced,
                        failure=result.failure, kernel=result.kernel)


def flags(result: SubmissionResult, compromised: CanaryVerdict | None = None) -> list[Flag]:
    """Why a reviewer should look at this submission; ``compromised``: the canary verdict that zeroed it."""
    found = []
    if compromised:
        found.append(Flag("compromised", compromised.detail))
    if result.status != "graded":
        found.append(Flag("not graded", result.reason))
    if result.findings:
        rules = sorted({f.rule for f in result.findings})
        found.append(Flag("scan", f"{len(result.findings)} line(s) reach for grader internals: " + ", ".join(rules)))
    if result.trimmed:
        found.append(Flag("output trimmed", result.trimmed))
    changed = [n.text for n in result.notes if n.kind == "structure"]
    if changed:  # the student's doing, restored from the release before grading: a reviewer may want to know why
        found.append(Flag("structure changed", "; ".join(changed)))
    return found


def write_failure(error: BaseException) -> Failure:
    """Why a student's grades could not be written, naming what refused: a file or folder of the course (an
    error that carries its path), or else the gradebook."""
    path = getattr(error, "filename", None) if isinstance(error, OSError) else None
    if path:
        return Failure(GRADER, "course-folder", f"could not write {path}: {type(error).__name__}: {error.strerror}",
                       f"make {path} (and the course's autograded/ and reports/ folders) writable by this user, then "
                       "grade this student again")
    return Failure(GRADER, "gradebook", f"could not write this student's grades: {type(error).__name__}: {error}",
                   "check that the gradebook (COURSE_DB_URL or gradebook.db) can be written by this user, then "
                   "grade this student again")


# --------------------------------------------------------------------------------------------
# The coordinator


@dataclass
class Coordinator:
    """Accepts results one at a time; see the module docstring."""

    writer: Writer | None
    max_total: float
    force: bool = False
    forced: str = ""  # why the run is forced ("" when it is not)
    explain: object = None  # result -> the calibration paragraph (explain_calibration bound to the run)
    waiting: bool = True  # the calibration result has not come back yet
    calibration: SubmissionResult | None = None
    expected: dict | None = None  # what an honest kernel's canary shows (from the calibration run)
    refused: str = ""  # the calibration failure that stops the run before anything is written
    pending: list = field(default_factory=list)
    results: dict = field(default_factory=dict)  # student -> StudentEntry, for the students written
    not_graded: dict[str, Failure] = field(default_factory=dict)  # student -> the grader's failure
    # why the calibration's or a written student's kernel started cold where a warm one was asked for
    kernel_notes: set = field(default_factory=set)
    listeners: list = field(default_factory=list)  # called with (student, entry) once a student is written

    def accept(self, result: SubmissionResult) -> None:
        if result.reference:
            self._calibrate(result)
            return
        if self.waiting:
            self.pending.append(result)
            return
        student = result.student
        if result.status == "internal":
            self.not_graded[student] = result.failure
            return
        entry = judge(result, self.expected, self.max_total, bool(self.forced))
        if self.writer is not None:
            try:
                self.writer.write(result, entry)
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as error:  # noqa: BLE001 - the grader's failure, never the student's grade
                self.not_graded[student] = write_failure(error)
                return
        self.results[student] = entry
        self._note_kernel(result)
        for listener in self.listeners:
            listener(student, entry)

    def _calibrate(self, result: SubmissionResult) -> None:
        self.calibration = result
        self._note_kernel(result)
        self.expected = canary_verdict.expectations(result.canary) if result.status == "graded" else None
        self.waiting = False
        if not full_marks(result):
            explanation = self.explain(result) if self.explain else "the solution did not score full marks"
            if not self.force:
                self.refused = explanation
                return
            self.forced = explanation
            warn("--force: grading although calibration failed. " + explanation)
        held, self.pending = self.pending, []
        for item in held:
            self.accept(item)

    def _note_kernel(self, result: SubmissionResult) -> None:
        if result.kernel_note:
            self.kernel_notes.add(result.kernel_note)

    def skip_calibration(self, reason: str) -> None:
        """No calibration run (there is no solution to run, and the run is forced)."""
        self.forced, self.waiting = reason, False

    @property
    def written(self) -> int:
        return len(self.results)


def warn(message: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n!! {message}\n{bar}\n", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# The calibration paragraph


def explain_calibration(result: SubmissionResult, course: Course, assignment: str, sandboxed: bool) -> str:
    """One paragraph for the instructor: what the solution scored, its first failing cell, what to do."""
    source = course.source(assignment) / f"{assignment}.ipynb"
    try:
        source = source.relative_to(course.root)
    except ValueError:
        pass
    failure = result.failure
    where = f"sandbox: {'bwrap' if sandboxed else 'off'}"
    if failure is not None and failure.internal:
        lines = [f"Calibration could not run: the grader itself failed while grading the assignment's own solution "
                 f"({source}) under this grading set-up ({where}); this is not the solution's fault, and no grade was "
                 f"written: the gradebook, grading.json and autograded/ are unchanged. Cause: {failure.reason}."]
        if failure.cause == "kernel-start" and failure.detail:
            lines.append("Kernel log (last line): " + (failure.detail.strip().splitlines() or [""])[-1][:300] + ".")
        lines.append(f"What to do: {failure.advice.rstrip('.')}. Then grade again; --force would not help, since a "
                     "fault of the grader is never written as a grade.")
        return " ".join(lines)
    first = result.first_error
    seen = f"could not be graded ({result.reason})" if result.status != "graded" else \
        f"scored {result.points:g} of {result.possible:g}"
    lines = [f"Calibration failed: the assignment's own solution ({source}) {seen} under this grading set-up "
             f"({where}), so no grade was written: the gradebook, grading.json and autograded/ are unchanged."]
    if first:
        lines.append(f"First failing cell: {first.cell!r} raised {first.ename}: {first.evalue}.")
    lines.append("What to do: " + calibration_advice(first.ename if first else "", failure, sandboxed) +
                 " Then grade again; --force grades anyway and marks the run as forced.")
    return " ".join(lines)


def calibration_advice(ename: str, failure: Failure | None, sandboxed: bool) -> str:
    """What fixes a calibration that failed: from the first error's name, or the failure's cause."""
    if ename in ("ModuleNotFoundError", "ImportError"):
        return (f"the grading kernel cannot import a module the solution needs; install it into the environment "
                f"that grades ({sys.prefix}), or check that the course package is installed there "
                "(`python -c 'import autograder'` with that interpreter).")
    if failure is not None and failure.advice:
        return failure.advice.rstrip(".") + "."
    if ename == "CellTimeoutError":
        return "a cell needs more time than --cell-timeout allows here; raise it."
    if ename == "MemoryError":
        return "the notebook needs more memory than --memory-mb allows here; raise it."
    if ename in ("CheckFailed", "AssertionError"):
        return ("the solution fails its own checks on this machine; run the solution notebook here (Restart and Run "
                "All) and fix the solution or the checks before grading students with them.")
    return ("run the solution notebook with this interpreter (Restart and Run All) and fix what it reports"
            + (", or try --sandbox off on the solution alone to see whether the sandbox is the cause." if sandboxed
               else "."))


def calibration_of(result: SubmissionResult | None) -> Calibration | None:
    """How the solution fared, for the run record."""
    if result is None:
        return None
    return Calibration(result.status, result.reason, full_marks(result), result.first_error, result.failure,
                       dict(result.canary))
