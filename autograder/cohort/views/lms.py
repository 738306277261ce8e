"""Grades into a learning-management system: Canvas's and Moodle's grade import files, from the gradebook.

An instructor downloads the LMS's own gradebook (Canvas: *Grades → Export Entire Gradebook*; Moodle: *Grades →
Export → Plain text file*) and runs ``python -m autograder export --format canvas --roster roster.csv``.  Each hub
student id is matched to a roster row through one column of the roster (``--match``: by default Canvas's ``SIS
Login ID`` and the ``Email address`` of Moodle's default export), case-insensitively: the whole value first; in a
column of e-mail addresses, the part before the ``@`` when exactly one row has it.  A hub id that two rows match
(``ada@uni.example`` and ``ada@other.example``) is matched to neither: it is named, and its grade left out.  The scores are the gradebook's final ones: nbgrader's score minus its
late penalty, never below zero (:func:`~autograder.cohort.score.gradebook_scores`, which the report and the
feedback pages read too), as ``nbgrader export`` computes them.

* **Canvas** (its gradebook import CSV): ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per
  assignment, then a ``Points Possible`` row under the header.  An assignment the roster export already holds
  keeps its exported header, ``name (12345)``, so that Canvas updates that assignment; a new one is named as in
  the gradebook, and Canvas creates it on import.
* **Moodle** (grade import from a CSV file): the roster's identifying column under its own name, one column per
  assignment (under the roster's own header, ``Assignment: name (Real)``, where it has one), mapped to grade
  items on Moodle's import page, and the roster's ``Last downloaded from this course``, unchanged: with it
  Moodle refuses to overwrite a grade changed after the roster was downloaded.
* **csv**: the hub id, the matched LMS id and one column per assignment.

Both LMSs clear a grade whose cell is empty (or ``-``) on import, so a roster student with no submission keeps
the value the roster holds for that assignment; only where the roster holds none is the cell left without a
grade (``--missing zero``: 0).  Rows that are not students (Canvas's ``Points Possible`` and ``Manual Posting``
rows, its Test Student, rows without the cells that identify a student) are left out and named.  A gradebook
student whom the roster does not hold is never dropped silently: :class:`LmsExport` lists them, and the command
prints them.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..score import gradebook_scores

FORMATS = ("canvas", "moodle", "csv")
#: The roster column a hub id is matched against, per format, when ``--match`` is not given.
DEFAULT_MATCH = {"canvas": "SIS Login ID", "moodle": "Email address", "csv": "SIS Login ID"}
CANVAS_FIXED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "    Points Possible"  # how Canvas writes (and reads back) the points row under the header
#: The column of Moodle's grade export its import checks against each grade's last change.
MOODLE_EXPORTED = "Last downloaded from this course"
#: What the LMSs export for "no grade"; both read either back as "clear this grade".
NO_GRADE = ("", "-")
#: Canvas's row of posting policies: every cell blank, "Muted" or "Manual Posting …" (its importer's own test).
_POSTING_ROW = re.compile(r"\s*(Muted|Manual Posting.*)?\s*", re.IGNORECASE)
#: Canvas's Test Student (student view), as its export names it: sortable, or last and first name apart.
_TEST_STUDENT = {"Student, Test", "Test Student"}


class RosterError(ValueError):
    """The roster cannot be used as given (no such column, unreadable, empty); the message says what to do."""


@dataclass
class Scores:
    """The gradebook's final scores: ``{student: {assignment: score}}`` (an absent assignment: no submission)
    and each assignment's points possible."""

    points: dict[str, float]
    by_student: dict[str, dict[str, float]]


@dataclass
class Roster:
    """The LMS's export: its header, the rows that are students, and the other rows, each named by its line."""

    header: list[str]
    rows: list[dict]
    skipped: list[str] = field(default_factory=list)


@dataclass
class LmsExport:
    """What was written: the file, the students matched, and those left out with the reason."""

    path: Path
    matched: dict[str, str] = field(default_factory=dict)  # hub id -> the roster's value in the match column
    not_in_roster: list[str] = field(default_factory=list)  # graded students the roster does not hold
    without_submission: dict[str, list[str]] = field(default_factory=dict)  # assignment -> roster rows with none
    kept: dict[str, list[str]] = field(default_factory=dict)  # assignment -> rows keeping the LMS's own grade
    skipped: list[str] = field(default_factory=list)  # roster rows that are not students, by line
    notes: list[str] = field(default_factory=list)  # what the instructor should know before importing
    ambiguous: dict[str, list[str]] = field(default_factory=dict)  # hub id -> the roster values that all match it

    def summary(self) -> str:
        lines = [f"wrote {self.path}: {len(self.matched)} students matched to the roster"]
        for assignment, missing in sorted(self.without_submission.items()):
            if missing:
                kept = len(self.kept.get(assignment, []))
                lines.append(f"{assignment}: {len(missing)} roster students have no submission"
                             + (f" ({kept} keep what the LMS holds)" if kept else ""))
        if self.skipped:
            lines.append(f"left out {len(self.skipped)} roster rows that are not students: " + "; ".join(self.skipped))
        lines.extend(self.notes)
        for hub_id, values in sorted(self.ambiguous.items()):
            lines.append(f"AMBIGUOUS: {hub_id} matches {len(values)} roster rows ({', '.join(values)}); their grade is "
                         "not in the file. Give --match a column that names each student once (or the full address)")
        if self.not_in_roster:
            lines.append(f"NOT IN THE ROSTER ({len(self.not_in_roster)}), their grades are not in the file: "
                         + ", ".join(self.not_in_roster))
        return "\n".join(lines)


def final_scores(db_url: str, assignments=None) -> Scores:
    """Every assignment's (or those named) final score per student, read from the gradebook at ``db_url``."""
    from nbgrader.api import Gradebook

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
            for student, score in gradebook_scores(gb, name).items():
                by_student.setdefault(student, {})[name] = score.final
            for student in gb.students:
                by_student.setdefault(student.id, {})
    return Scores(points, by_student)


def read_roster(path: Path, fmt: str = "csv", column: str | None = None) -> Roster:
    """The roster as the LMS exported it (a byte-order mark and blank lines are skipped); rows that are not
    students are set aside with the reason, by line (see :func:`not_a_student`)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise RosterError(f"cannot read the roster {path}: {error}") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [h for h in (reader.fieldnames or []) if h is not None]
    if not header:
        raise RosterError(f"the roster {path} is empty: export it from the LMS with its header row")
    roster = Roster(header, [])
    for row in reader:
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue
        reason = not_a_student(row, header, fmt, column or DEFAULT_MATCH.get(fmt, ""))
        if reason:
            roster.skipped.append(f"line {reader.line_num} ({reason})")
        else:
            roster.rows.append(row)
    return roster


def not_a_student(row: dict, header: list[str], fmt: str, column: str) -> str | None:
    """Why this roster row is not a student's, or None.  An import would read such a row as one: Canvas as a
    new user (the Test Student's grades even count), Moodle as more grades for the student on the line above."""
    cells = [(row.get(h) or "").strip() for h in header]
    if "Points Possible" in cells[0]:
        return "Canvas's Points Possible row"
    if all(_POSTING_ROW.fullmatch(c) for c in cells):
        return f"Canvas's posting-policy row: {', '.join(sorted({c for c in cells if c}))}"
    name = cells[0] if header[0] != "LastName" else " ".join(reversed(cells[:2]))
    if name in _TEST_STUDENT:
        return f"Canvas's Test Student, {name!r}"
    leading = [h for h in (("Student", "ID") if fmt == "canvas" else (column,)) if h in header]
    if leading and not any((row.get(h) or "").strip() for h in leading):
        return f"no {' or '.join(leading)}"
    return None


def match(rows: list[dict], column: str, hub_ids) -> tuple[dict[str, int], list[str], dict[str, list[str]]]:
    """``{hub id: roster row index}`` through ``column``, the hub ids the roster does not hold, and the hub ids more
    than one row matches (``{hub id: those rows' values}``), which are matched to none.  A whole value is matched
    before the part of an e-mail address before its ``@``, and that part only when exactly one row has it."""
    whole: dict[str, list[int]] = {}
    local: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        value = (row.get(column, "") or "").strip().lower()
        if not value:
            continue
        whole.setdefault(value, []).append(i)
        if "@" in value:
            local.setdefault(value.split("@", 1)[0], []).append(i)
    matched, missing, ambiguous = {}, [], {}
    for hub_id in sorted(hub_ids):
        key = hub_id.strip().lower()
        found = whole.get(key) or local.get(key) or []
        if len(found) == 1:
            matched[hub_id] = found[0]
        elif found:
            ambiguous[hub_id] = [rows[i].get(column, "") for i in found]
        else:
            missing.append(hub_id)
    return matched, missing, ambiguous


def roster_column(assignment: str, header: list[str]) -> str | None:
    """The roster's column for ``assignment``: its name, Canvas's ``name (12345)`` or Moodle's ``Module: name
    (Real)`` (points, not a percentage or letter), or None where the roster has none."""
    name = re.escape(assignment)
    pattern = re.compile(rf"{name}|{name} \(\d+\)|(?:[^:]+: )?{name} \(Real\)")
    return next((title for title in header if pattern.fullmatch(title.strip())), None)


def _cell(fmt: str, score: float | None, held: str, missing: str) -> str:
    """A score where there is one; else the grade the LMS holds, unchanged (an empty cell would clear it); else no
    grade (Moodle's ``-``, which its import reads as none for a new grade item too) or 0 (``--missing zero``)."""
    if score is not None:
        return f"{score:g}"
    if held.strip() not in NO_GRADE:
        return held
    if missing == "zero":
        return "0"
    return "-" if fmt == "moodle" else ""


def _check(fmt: str, missing: str, roster: Roster, path: Path, column: str) -> None:
    if fmt not in FORMATS:
        raise RosterError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if missing not in ("empty", "zero"):
        raise RosterError(f"--missing must be 'empty' or 'zero', not {missing!r}")
    if column not in roster.header:
        raise RosterError(f"the roster {path} has no column {column!r} to match hub ids against; its columns: "
                          f"{', '.join(roster.header)}. Name the one holding the hub's user names with --match")
    absent = [c for c in CANVAS_FIXED if c not in roster.header]
    if fmt == "canvas" and absent:
        raise RosterError(f"{path} is not a Canvas gradebook export: it lacks {', '.join(absent)}. Export the "
                          "roster from Canvas (Grades, Export, Export Entire Gradebook)")


def _moodle_notes(header: list[str], columns: dict[str, str | None]) -> list[str]:
    notes = []
    if MOODLE_EXPORTED not in header:
        notes.append(f"the roster has no {MOODLE_EXPORTED!r} column: Moodle will not refuse to overwrite a grade "
                     "changed after it was downloaded. Export the roster from Moodle's grade export instead")
    unheld = [a for a, title in columns.items() if title is None]
    if unheld:
        notes.append(f"the roster has no grades for {', '.join(unheld)}: if Moodle holds some, a student "
                     "without a submission here loses it on import. Export those grade items with the roster")
    return notes


def write(fmt: str, scores: Scores, roster_path: Path, dest: Path, column: str | None = None,
          missing: str = "empty") -> LmsExport:
    """Write the ``fmt`` import file for the roster at ``roster_path`` to ``dest``."""
    column = column or DEFAULT_MATCH.get(fmt, "")
    roster = read_roster(roster_path, fmt, column)
    _check(fmt, missing, roster, roster_path, column)
    rows, assignments = roster.rows, list(scores.points)
    matched, not_in_roster, ambiguous = match(rows, column, scores.by_student)
    columns = {a: roster_column(a, roster.header) for a in assignments}
    result = LmsExport(Path(dest), {hub: rows[i].get(column, "") for hub, i in matched.items()}, not_in_roster,
                       skipped=roster.skipped, notes=_moodle_notes(roster.header, columns) if fmt == "moodle" else [],
                       ambiguous=ambiguous)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_header(fmt, column, columns, roster.header))
    if fmt == "canvas":
        writer.writerow([POINTS_POSSIBLE, "", "", "", ""] + [f"{scores.points[a]:g}" for a in assignments])
    student_of_row = {i: hub for hub, i in matched.items()}
    for i, row in enumerate(rows):
        hub = student_of_row.get(i)
        if fmt == "csv" and hub is None:
            continue
        got = scores.by_student.get(hub, {}) if hub else {}
        cells = []
        for a in assignments:
            held = row.get(columns[a] or "", "") or ""
            if a not in got:
                result.without_submission.setdefault(a, []).append(row.get(column, ""))
                if held.strip() not in NO_GRADE:
                    result.kept.setdefault(a, []).append(row.get(column, ""))
            cells.append(_cell(fmt, got.get(a), held, missing))
        writer.writerow(_lead(fmt, row, hub, column) + cells + _trail(fmt, row, roster.header))
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    Path(dest).write_text(out.getvalue(), encoding="utf-8")
    return result


def _header(fmt: str, column: str, columns: dict[str, str | None], header: list[str]) -> list[str]:
    fixed = list(CANVAS_FIXED) if fmt == "canvas" else ([column] if fmt == "moodle" else ["hub id", column])
    titles = [(columns[a] or a) if fmt != "csv" else a for a in columns]
    return fixed + titles + ([MOODLE_EXPORTED] if _carries_download_time(fmt, header) else [])


def _lead(fmt: str, row: dict, hub: str | None, column: str) -> list[str]:
    if fmt == "canvas":
        return [row.get(c, "") for c in CANVAS_FIXED]
    return [row.get(column, "")] if fmt == "moodle" else [hub, row.get(column, "")]


def _carries_download_time(fmt: str, header: list[str]) -> bool:
    """Moodle's last-downloaded time goes back unchanged: its import's guard against overwriting a grade changed
    after the download."""
    return fmt == "moodle" and MOODLE_EXPORTED in header


def _trail(fmt: str, row: dict, header: list[str]) -> list[str]:
    return [row.get(MOODLE_EXPORTED, "")] if _carries_download_time(fmt, header) else []
