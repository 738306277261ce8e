"""Grades into a learning-management system: Canvas's and Moodle's grade import files, from the gradebook.

An instructor downloads the LMS's own roster (Canvas: *Grades → Export*; Moodle: *Grades → Export → Plain
text file*, or the participants list) and runs ``python -m autograder export --format canvas --roster
roster.csv``.  Each hub student id is matched to a roster row through one column of the roster (``--match``:
by default Canvas's ``SIS Login ID`` and Moodle's ``Username``; a column of e-mail addresses matches the part
before the ``@`` too), case-insensitively.  The scores are the gradebook's final ones: nbgrader's score minus
its late penalty, never below zero, as ``nbgrader export`` computes them.

* **Canvas** (its gradebook import CSV): ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per
  assignment, then a ``Points Possible`` row under the header.  An assignment the roster export already holds
  keeps its exported header, ``name (12345)``, so that Canvas updates that assignment; a new one is named as in
  the gradebook, and Canvas creates it on import.
* **Moodle** (grade import from a CSV file): the roster's identifying column under its own name, then one column
  per assignment, mapped to grade items on Moodle's import page.
* **csv**: the hub id, the matched LMS id and one column per assignment.

A roster student with no submission gets an empty cell (the LMS leaves the grade alone) or 0 (``--missing
zero``).  A gradebook student whom the roster does not hold is never dropped silently: :class:`LmsExport`
lists them, and the command prints them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

FORMATS = ("canvas", "moodle", "csv")
#: The roster column a hub id is matched against, per format, when ``--match`` is not given.
DEFAULT_MATCH = {"canvas": "SIS Login ID", "moodle": "Username", "csv": "SIS Login ID"}
CANVAS_FIXED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "    Points Possible"  # how Canvas writes (and reads back) the points row under the header


class RosterError(ValueError):
    """The roster cannot be used as given (no such column, unreadable, empty); the message says what to do."""


@dataclass
class Scores:
    """The gradebook's final scores: ``{student: {assignment: score}}`` (an absent assignment: no submission)
    and each assignment's points possible."""

    points: dict[str, float]
    by_student: dict[str, dict[str, float]]


@dataclass
class LmsExport:
    """What was written: the file, the students matched, and those left out with the reason."""

    path: Path
    matched: dict[str, str] = field(default_factory=dict)  # hub id -> the roster's value in the match column
    not_in_roster: list[str] = field(default_factory=list)  # graded students the roster does not hold
    without_submission: dict[str, list[str]] = field(default_factory=dict)  # assignment -> roster rows with none

    def summary(self) -> str:
        lines = [f"wrote {self.path}: {len(self.matched)} students matched to the roster"]
        for assignment, missing in sorted(self.without_submission.items()):
            if missing:
                lines.append(f"{assignment}: {len(missing)} roster students have no submission")
        if self.not_in_roster:
            lines.append(f"NOT IN THE ROSTER ({len(self.not_in_roster)}), their grades are not in the file: "
                         + ", ".join(self.not_in_roster))
        return "\n".join(lines)


def final_scores(db_url: str, assignments=None) -> Scores:
    """Every assignment's (or those named) final score per student, read from the gradebook at ``db_url``."""
    from nbgrader.api import Gradebook, MissingEntry

    from ..course import ensure_tools_on_path

    ensure_tools_on_path()  # nbgrader runs alembic on a gradebook it opens
    points: dict[str, float] = {}
    by_student: dict[str, dict[str, float]] = {}
    with Gradebook(db_url) as gb:
        names = [a.name for a in gb.assignments]
        wanted = list(assignments) if assignments else names
        unknown = [a for a in wanted if a not in names]
        if unknown:
            raise RosterError(f"the gradebook has no assignment {', '.join(unknown)}; it has {', '.join(names) or 'none'}")
        for name in wanted:
            points[name] = float(gb.find_assignment(name).max_score)
            for student in gb.students:
                try:
                    sub = gb.find_submission(name, student.id)
                except MissingEntry:
                    continue
                score = max(0.0, float(sub.score) - float(sub.late_submission_penalty or 0.0))
                by_student.setdefault(student.id, {})[name] = score
            for student in gb.students:
                by_student.setdefault(student.id, {})
    return Scores(points, by_student)


def read_roster(path: Path) -> tuple[list[str], list[dict]]:
    """The roster's header and rows, as the LMS exported it (a byte-order mark, Canvas's ``Points Possible``
    row and blank rows are skipped)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise RosterError(f"cannot read the roster {path}: {error}") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [h for h in (reader.fieldnames or []) if h is not None]
    if not header:
        raise RosterError(f"the roster {path} is empty: export it from the LMS with its header row")
    rows = [row for row in reader
            if any((v or "").strip() for v in row.values() if isinstance(v, str))
            and (row.get(header[0]) or "").strip() != POINTS_POSSIBLE.strip()]
    return header, rows


def _keys(value: str) -> set[str]:
    value = (value or "").strip().lower()
    return {value, value.split("@", 1)[0]} if "@" in value else {value}


def match(rows: list[dict], column: str, hub_ids) -> tuple[dict[str, int], list[str]]:
    """``{hub id: roster row index}`` through ``column``, and the hub ids the roster does not hold."""
    index: dict[str, int] = {}
    for i, row in enumerate(rows):
        for key in _keys(row.get(column, "")):
            if key:
                index.setdefault(key, i)
    matched, missing = {}, []
    for hub_id in sorted(hub_ids):
        i = index.get(hub_id.strip().lower())
        if i is None:
            missing.append(hub_id)
        else:
            matched[hub_id] = i
    return matched, missing


def _cell(score: float | None, missing: str) -> str:
    if score is None:
        return "0" if missing == "zero" else ""
    return f"{score:g}"


def write(fmt: str, scores: Scores, roster: Path, dest: Path, column: str | None = None,
          missing: str = "empty") -> LmsExport:
    """Write the ``fmt`` import file for the roster at ``roster`` to ``dest``."""
    if fmt not in FORMATS:
        raise RosterError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if missing not in ("empty", "zero"):
        raise RosterError(f"--missing must be 'empty' or 'zero', not {missing!r}")
    header, rows = read_roster(roster)
    column = column or DEFAULT_MATCH[fmt]
    if column not in header:
        raise RosterError(f"the roster {roster} has no column {column!r} to match hub ids against; its columns: "
                          f"{', '.join(header)}. Name the one holding the hub's user names with --match")
    if fmt == "canvas":
        absent = [c for c in CANVAS_FIXED if c not in header]
        if absent:
            raise RosterError(f"{roster} is not a Canvas gradebook export: it lacks {', '.join(absent)}. Export the "
                              "roster from Canvas (Grades, Export, Export Entire Gradebook)")
    matched, not_in_roster = match(rows, column, scores.by_student)
    student_of_row = {i: hub for hub, i in matched.items()}
    assignments = list(scores.points)
    titles = {a: _canvas_title(a, header) if fmt == "canvas" else a for a in assignments}
    result = LmsExport(Path(dest), {hub: rows[i].get(column, "") for hub, i in matched.items()}, not_in_roster)

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    fixed = list(CANVAS_FIXED) if fmt == "canvas" else ([column] if fmt == "moodle" else ["hub id", column])
    writer.writerow(fixed + [titles[a] for a in assignments])
    if fmt == "canvas":
        writer.writerow([POINTS_POSSIBLE, "", "", "", ""] + [f"{scores.points[a]:g}" for a in assignments])
    for i, row in enumerate(rows):
        hub = student_of_row.get(i)
        if fmt == "csv" and hub is None:
            continue
        got = scores.by_student.get(hub, {}) if hub else {}
        for a in assignments:
            if a not in got:
                result.without_submission.setdefault(a, []).append(row.get(column, ""))
        if fmt == "canvas":
            lead = [row.get(c, "") for c in CANVAS_FIXED]
        elif fmt == "moodle":
            lead = [row.get(column, "")]
        else:
            lead = [hub, row.get(column, "")]
        writer.writerow(lead + [_cell(got.get(a), missing) for a in assignments])
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    Path(dest).write_text(out.getvalue(), encoding="utf-8")
    return result


def _canvas_title(assignment: str, header: list[str]) -> str:
    """The roster export's own header for ``assignment`` (``name (id)``) when it has one, else the name."""
    for title in header:
        if title.rsplit(" (", 1)[0] == assignment and title.endswith(")"):
            return title
    return assignment
