"""Where a score comes from: the checks' points, the late penalty, and the final score derived from them.

A student's final score is never computed anywhere else: the gradebook writer (the entry it journals), the run
record (``grading.json``), the feedback page, the report and the LMS export all take it from
:func:`final_score`, whether their points come from the run's record or from the gradebook (where an
instructor's manual grades may have changed them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


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


def gradebook_points(scores: Mapping[str, tuple[float, float]]) -> tuple[float, float]:
    """The points and the possible points of a student's test cells as the gradebook holds them
    (``{cell: (score, max_score)}``, an instructor's manual grades included)."""
    return sum(s for s, _ in scores.values()), sum(m for _, m in scores.values())


def cells_possible(max_scores: Mapping[str, float]) -> float:
    """The points an assignment's test cells are worth (``{cell: max_score}``)."""
    return sum(float(m) for m in max_scores.values())


def full_marks(grades: Iterable) -> bool:
    """Whether every test cell scored its full points (and there is at least one)."""
    grades = list(grades)
    return bool(grades) and all((g.auto_score or 0) >= g.max_score for g in grades)
