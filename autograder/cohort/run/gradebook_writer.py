"""The gradebook writer: one judged student written into the course, all of it or nothing.

Their rows in the course's gradebook (nbgrader's ``Gradebook`` API, one transaction), their autograded folder
(``autograded/STUDENT/ASSIGNMENT/``, staged and put in place once the gradebook has committed) and their line
in the journal.  The student's lateness is read back from the gradebook as nbgrader computed it, and their
entry's score follows from it (:func:`~autograder.cohort.score.final_score`).  This is the only part of a run
that writes the course; the coordinator (:mod:`.coordinator`) decides who is written.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import time
from pathlib import Path

from ..course import Course, cell_names
from ..jobs import unpack_folder
from ..records import Late, StudentEntry, SubmissionResult
from ..score import earns_nothing
from .journal import Journal


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
        self._cell_names: dict[str, str] | None = None  # the notebook's cells by id: the same for every student

    def write(self, result: SubmissionResult, entry: StudentEntry) -> None:
        """Everything of one student, or (raising) nothing: the autograded folder is staged first and only
        put in place once the gradebook has committed."""
        started, cpu = time.monotonic(), time.thread_time()
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
        entry.charge_late(late)  # the score follows: final_score(the checks' points, the penalty)
        if dest.exists():
            shutil.rmtree(dest)
        if staged.exists():
            staged.rename(dest)
        entry.timings = {**entry.timings, "gradebook_write": round(time.monotonic() - started, 3),
                         "cpu_gradebook_write": round(time.thread_time() - cpu, 3)}
        self.journal.add(student, entry)

    def _write_gradebook(self, result: SubmissionResult, entry: StudentEntry) -> Late | None:
        """The student's rows in one transaction; returns their lateness as the gradebook has it."""
        gb, student = self.gb, result.student
        timestamp = timestamp_of(self.course.submitted(student, self.assignment))
        gb.update_or_create_student(student)
        if timestamp is not None:
            gb.update_or_create_submission(self.assignment, student, timestamp=timestamp)
        else:
            gb.update_or_create_submission(self.assignment, student)
        sub = gb.find_submission_notebook(self.notebook, self.assignment, student)
        names = self._names()
        zero = earns_nothing(entry.status, entry.compromised)
        for grade in sub.grades:
            info = result.grades.get(names.get(grade.cell_id) or grade.name)
            auto = 0.0 if zero or info is None else info.auto_score
            grade.auto_score = auto
            grade.needs_manual_grade = grade.manual_score is not None or auto is None
        for comment in sub.comments:
            comment.auto_comment = None if zero else result.comments.get(names.get(comment.cell_id) or comment.name)
        sub.flagged = bool(entry.flags)
        sub.late_submission_penalty = None if zero else result.late_penalty
        gb.db.commit()
        return lateness(sub)

    def _names(self) -> dict[str, str]:
        """The notebook's cell names by cell id (:func:`~autograder.cohort.course.cell_names`), read once."""
        if self._cell_names is None:
            self._cell_names = cell_names(self.gb.find_notebook(self.notebook, self.assignment))
        return self._cell_names

    def close(self) -> None:
        if self.gb is not None:
            self.gb.close()
            self.gb, self._cell_names = None, None


def lateness(sub) -> Late | None:
    """``None`` for a submission on time; otherwise how late it was, the due date and the penalty.

    ``sub``: the gradebook's submitted notebook (its penalty); the submitted assignment it belongs to holds the
    timestamp and the due date (with any extension)."""
    submission = sub.assignment
    seconds = float(submission.total_seconds_late or 0.0)
    if seconds <= 0:
        return None
    due, submitted = submission.duedate, submission.timestamp
    return Late(round(seconds, 1), float(sub.late_submission_penalty or 0.0), due.isoformat() if due else "",
                submitted.isoformat() if submitted else "")
