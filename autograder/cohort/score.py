"""Where a score comes from: the checks' points, the late penalty, and the final score derived from them.

A student's final score is never computed anywhere else: the gradebook writer (the entry it journals), the run
record (``grading.json``), the feedback page, the report and the LMS export all take it from
:func:`final_score`.  What a student scores *now* is the gradebook's :class:`Score` (:func:`gradebook_scores`),
where an instructor's manual grades count: the feedback page, the report and the LMS export all read it there,
so that after a manual grade they show one score for one student; ``grading.json`` keeps what the run gave
(:attr:`~autograder.cohort.records.StudentEntry.marks`), which is also what a view shows for a student the
gradebook has no submission of.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Score:
    """A student's points, the points possible and the late penalty; :attr:`final` is their score."""

    points: float
    possible: float
    penalty: float = 0.0

    @property
    def final(self) -> float:
        return final_score(self.points, self.penalty)


def submission_score(submission) -> Score:
    """A submission's :class:`Score` as nbgrader's gradebook holds it (``submission``: a submitted assignment or
    notebook): nbgrader's own sum of its cells' scores (an instructor's manual grade in place of the automatic
    one, extra credit added), its points possible and its late penalty."""
    return Score(float(submission.score), float(submission.max_score),
                 float(submission.late_submission_penalty or 0.0))


def gradebook_scores(gb, assignment: str) -> dict[str, Score]:
    """Every student's :class:`Score` on ``assignment`` in the open nbgrader gradebook ``gb`` (students without a
    submission left out)."""
    found = {}
    for student in gb.students:
        score = student_score(gb, assignment, student.id)
        if score is not None:
            found[student.id] = score
    return found


def student_score(gb, assignment: str, student: str) -> Score | None:
    """One student's :class:`Score` on ``assignment`` in the open gradebook ``gb``; ``None`` without a submission."""
    from nbgrader.api import MissingEntry

    try:
        return submission_score(gb.find_submission(assignment, student))
    except MissingEntry:
        return None


def final_score(points: float, penalty: float | None = 0.0) -> float:
    """The score a student gets: the checks' points less the late penalty, never below zero (as ``nbgrader
    export`` computes it from the gradebook)."""
    return max(0.0, float(points) - float(penalty or 0.0))


def checks_points(grades: Iterable) -> float:
    """What the checks gave: the sum of the test cells' automatic scores (a cell waiting for a person counts 0).
    ``grades``: :class:`~autograder.cohort.records.Grade` records."""
    return sum(float(g.auto_score or 0) for g in grades)


def possible_points(grades: Iterable) -> float:
    """The points the test cells are worth."""
    return sum(float(g.max_score) for g in grades)


def earns_nothing(status: str, compromised: bool) -> bool:
    """The zero rule: a submission that was not graded (its grading failed) or whose kernel was compromised (the
    canary saw the checks changed) earns no point, whatever its test cells showed."""
    return status != "graded" or compromised


def cells_possible(max_scores: Mapping[str, float]) -> float:
    """The points an assignment's test cells are worth (``{cell: max_score}``)."""
    return sum(float(m) for m in max_scores.values())


def full_marks(grades: Iterable) -> bool:
    """Whether every test cell scored its full points (and there is at least one)."""
    grades = list(grades)
    return bool(grades) and all((g.auto_score or 0) >= g.max_score for g in grades)
