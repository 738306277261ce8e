"""The coordinator's judgement of each result: the calibration gate, the canary verdict, the journal.

:class:`Coordinator` is what ``grade`` hands every :class:`~.records.SubmissionResult` that comes
back from a worker, in the order they come back.  :meth:`Coordinator.accept`

1. holds the students back until the calibration run (the assignment's own solution) is in, and
   then either refuses the run (:attr:`Coordinator.refused`: nothing is written) or lets them
   through (a forced run marks itself);
2. leaves a student whose result is the *grader's* failure (``status == "internal"``) alone: nothing
   is written for them, their previous grade stands, and they are listed in :attr:`not_graded`;
3. otherwise judges it (:func:`judge`: the canary verdict, the flags, the score), which gives the
   student's :class:`~.records.StudentEntry`, and writes the student through its :class:`Writer`:
   their gradebook rows in one transaction, their autograded folder, then their journal line.

The result stays the worker's record of what grading produced; the entry is the coordinator's
judgement of it, and is what ``grading.json`` keeps.

A write that fails (the database cannot be reached, the disk is full) is the grader's failure too:
nothing of that student is kept and they join :attr:`not_graded`.  The writer is the only part
that touches the course; the tests give the coordinator one of their own and made-up results.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..course import Course
from . import canary
from .journal import Journal
from .records import GRADER, Failure, StudentEntry, SubmissionResult, unpack_folder

LATE_NOTE = "submitted late"


# --------------------------------------------------------------------------------------------
# Writing one student into the course (the gradebook, autograded/, the journal)


def timestamp_of(folder: Path):
    """The submission's ``timestamp.txt`` as a datetime, or ``None``."""
    from nbgrader.utils import parse_utc

    path = folder / "timestamp.txt"
    if not path.is_file():
        return None
    try:
        return parse_utc(path.read_text().strip())
    except Exception:  # noqa: BLE001 - a malformed timestamp is ignored, as nbgrader does
        return None


@contextlib.contextmanager
def _quiet_gradebook():
    """nbgrader's gradebook logs a failed write with its traceback (on tornado's application logger) before
    raising; the run reports that failure itself, as this student's internal error, in one line."""
    log = logging.getLogger("tornado.application")
    disabled, log.disabled = log.disabled, True
    try:
        yield
    finally:
        log.disabled = disabled


class Writer:
    """Writes a judged student into the course: gradebook rows, the autograded folder, the journal line."""

    def __init__(self, course: Course, assignment: str, notebook: str, journal: Journal) -> None:
        self.course, self.assignment, self.notebook, self.journal = course, assignment, notebook, journal
        self.gb = None  # opened at the first write, once calibration has passed (or was forced)

    def write(self, result: SubmissionResult, entry: StudentEntry) -> None:
        """Everything of one student, or (raising) nothing: the autograded folder is staged first and only
        put in place once the gradebook has committed."""
        started = time.monotonic()
        student = result.student
        dest = self.course.autograded(student, self.assignment)
        staged = dest.with_name(dest.name + ".incoming")
        if staged.exists():
            shutil.rmtree(staged)
        try:
            if result.autograded:
                unpack_folder(result.autograded, staged)
            with _quiet_gradebook():
                if self.gb is None:
                    self.gb = self.course.gradebook()
                late = self._write_gradebook(result, entry)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            if self.gb is not None:
                try:
                    self.gb.db.rollback()
                except Exception:  # noqa: BLE001 - the session may be gone with the database
                    pass
            raise
        entry.late = late
        if late.get("penalty"):
            entry.score = max(0.0, entry.raw_score - late["penalty"])
        if dest.exists():
            shutil.rmtree(dest)
        if staged.exists():
            staged.rename(dest)
        entry.timings = {**entry.timings, "gradebook_write": round(time.monotonic() - started, 3)}
        self.journal.add(student, entry)

    def _write_gradebook(self, result: SubmissionResult, entry: StudentEntry) -> dict:
        """The student's rows in one transaction; returns their lateness as the gradebook has it."""
        gb, student = self.gb, result.student
        timestamp = timestamp_of(self.course.submitted(student, self.assignment))
        gb.update_or_create_student(student)
        if timestamp is not None:
            gb.update_or_create_submission(self.assignment, student, timestamp=timestamp)
        else:
            gb.update_or_create_submission(self.assignment, student)
        sub = gb.find_submission_notebook(self.notebook, self.assignment, student)
        zero = entry.status != "graded" or entry.compromised
        for grade in sub.grades:
            info = result.grades.get(grade.name)
            auto = 0.0 if zero or info is None else info["auto_score"]
            grade.auto_score = auto
            grade.needs_manual_grade = grade.manual_score is not None or auto is None
        for comment in sub.comments:
            comment.auto_comment = None if zero else result.comments.get(comment.name)
        sub.flagged = bool(entry.flags)
        sub.late_submission_penalty = None if zero else result.late_penalty
        gb.db.commit()
        return lateness(sub)

    def close(self) -> None:
        if self.gb is not None:
            self.gb.close()
            self.gb = None


def lateness(sub) -> dict:
    """``{}`` for a submission on time; otherwise how late it was, the due date and the penalty.

    ``sub``: the gradebook's submitted notebook (its penalty); the submitted assignment it belongs to holds the
    timestamp and the due date (with any extension)."""
    submission = sub.assignment
    seconds = float(submission.total_seconds_late or 0.0)
    if seconds <= 0:
        return {}
    due, submitted = submission.duedate, submission.timestamp
    return {"seconds_late": round(seconds, 1), "penalty": float(sub.late_submission_penalty or 0.0),
            "due": due.isoformat() if due else "", "submitted": submitted.isoformat() if submitted else ""}


# --------------------------------------------------------------------------------------------
# Judging


def full_marks(result: SubmissionResult) -> bool:
    return result.status == "graded" and bool(result.grades) and all(
        (g["auto_score"] or 0) >= g["max_score"] for g in result.grades.values())


def judge(result: SubmissionResult, expected: dict | None, max_total: float, forced: bool) -> StudentEntry:
    """A student's entry in the run record, for a result the student owns (graded or failed): the canary
    verdict, the flags, and the score before any late penalty (which the writer applies)."""
    verdict = {"status": "not run", "detail": ""}
    compromised = False
    if result.status == "graded":
        seen = canary.verdict(result.canary, expected)
        verdict, compromised = {"status": seen.status, "detail": seen.detail}, seen.compromised
    total = sum(float(g["max_score"]) for g in result.grades.values())
    score = 0.0 if result.status != "graded" or compromised else \
        sum(float(g["auto_score"] or 0) for g in result.grades.values())
    return StudentEntry(status=result.status, reason=result.reason, score=score, max_score=total or max_total,
                        tests=result.tests, findings=result.findings, notes=result.notes,
                        flags=flags(result, verdict if compromised else None), compromised=compromised,
                        canary_verdict=verdict, seconds=result.seconds, timings=result.timings, forced=forced,
                        failure=result.failure or {}, raw_score=score, kernel=result.kernel)


def flags(result: SubmissionResult, compromised: dict | None = None) -> list[dict]:
    """Why a reviewer should look at this submission; ``compromised``: the canary verdict that zeroed it."""
    found = []
    if compromised:
        found.append({"kind": "compromised", "detail": compromised["detail"]})
    if result.status != "graded":
        found.append({"kind": "not graded", "detail": result.reason})
    if result.findings:
        rules = sorted({f["rule"] for f in result.findings})
        found.append({"kind": "scan", "detail": f"{len(result.findings)} line(s) reach for grader internals: "
                                                + ", ".join(rules)})
    if result.trimmed:
        found.append({"kind": "output trimmed", "detail": result.trimmed})
    changed = [n["text"] for n in result.notes if n.get("kind") == "structure"]
    if changed:  # the student's doing, restored from the release before grading: a reviewer may want to know why
        found.append({"kind": "structure changed", "detail": "; ".join(changed)})
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
    not_graded: dict = field(default_factory=dict)  # student -> Failure dict: the grader's failures
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
                self.not_graded[student] = write_failure(error).as_dict()
                return
        self.results[student] = entry
        self._note_kernel(result)
        for listener in self.listeners:
            listener(student, entry)

    def _calibrate(self, result: SubmissionResult) -> None:
        self.calibration = result
        self._note_kernel(result)
        self.expected = canary.expectations(result.canary) if result.status == "graded" else None
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
    failure = Failure.from_dict(result.failure)
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
    score = sum(float(g["auto_score"] or 0) for g in result.grades.values())
    total = sum(float(g["max_score"]) for g in result.grades.values())
    first = result.first_error or {}
    seen = f"could not be graded ({result.reason})" if result.status != "graded" else \
        f"scored {score:g} of {total:g}"
    lines = [f"Calibration failed: the assignment's own solution ({source}) {seen} under this grading set-up "
             f"({where}), so no grade was written: the gradebook, grading.json and autograded/ are unchanged."]
    if first:
        lines.append(f"First failing cell: {first['cell']!r} raised {first['ename']}: {first['evalue']}.")
    lines.append("What to do: " + calibration_advice(first.get("ename", ""), failure, sandboxed) +
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
