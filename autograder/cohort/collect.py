"""``collect``: turn an LMS download (a zip, or a folder) into nbgrader's ``submitted/`` layout.

Accepted names (the student id is taken from the name; the first rule that matches wins):

1. ``STUDENT/…/NAME.ipynb`` – a folder per student (any depth below it).  A Moodle folder
   ``Full Name_12345_assignsubmission_file_`` gives the student ``full-name``.
2. ``STUDENT_…NAME.ipynb`` – a flat file whose name starts with the student id and an
   underscore, as Canvas (``doejane_12345_67890_01-tensors.ipynb``, ``doejane_LATE_…``)
   and Blackboard (``01-tensors_doejane_attempt_…``, see 3) name downloads.
3. ``ASSIGNMENT_STUDENT_attempt_….ipynb`` – Blackboard's flat names.
4. ``--pattern REGEX`` replaces these rules: a regular expression matched against the path
   inside the download, with a named group ``student``.

Student ids keep letters, digits, ``.``, ``_`` and ``-``; anything else becomes ``-`` and
upper case becomes lower case.  When a student has several notebooks, the one whose name
ends with ``ASSIGNMENT.ipynb`` wins, then a readable one, then the newest; the others are
reported.  A notebook under another name is stored as ``ASSIGNMENT.ipynb`` (reported).
Unreadable files (not JSON, empty) are reported and still stored, so that ``grade``
records them with a reason and a zero.  Entries outside any student, ``__MACOSX/`` and
hidden files are skipped.  Nothing is extracted by its own name: paths in the zip cannot
escape the course directory.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .course import Course

MAX_ENTRY_BYTES = 64 * 1024 * 1024

_MOODLE = re.compile(r"^(?P<name>.+?)_\d+_assign(submission|feedback)_\w*_?$")
_BLACKBOARD = re.compile(r"^(?P<assignment>.+?)_(?P<student>[^_]+)_attempt_[\d-]+")


@dataclass
class Candidate:
    """One notebook file found in the download."""

    path: str  # its path inside the download
    data: bytes
    modified: float = 0.0

    @property
    def problem(self) -> str:
        if not self.data.strip():
            return "empty file"
        try:
            json.loads(self.data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:  # RecursionError: JSON nested too deep
            return f"not a readable notebook ({type(error).__name__}: {str(error)[:80]})"
        return ""


@dataclass
class CollectReport:
    placed: list[tuple[str, str, str]] = field(default_factory=list)  # (student, from, new|updated|unchanged)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path in the download, what is wrong)
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    def summary(self) -> str:
        counts = {k: sum(1 for p in self.placed if p[2] == k) for k in ("new", "updated", "unchanged")}
        lines = [f"collected {len(self.placed)} submissions: {counts['new']} new, {counts['updated']} updated, "
                 f"{counts['unchanged']} unchanged"]
        if self.problems:
            lines.append("problems (stored anyway; `grade` scores them 0 with the reason):")
            lines += [f"  {path}: {why}" for path, why in self.problems]
        if self.ignored:
            lines.append("ignored:")
            lines += [f"  {path}: {why}" for path, why in self.ignored]
        return "\n".join(lines)


def student_id(raw: str) -> str:
    """A safe, lower-case student id (letters, digits, ``.``, ``_``, ``-``)."""
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", raw.strip().lower()).strip("-.")
    return cleaned or "unknown"


def student_of(path: str, assignment: str, pattern: re.Pattern | None = None) -> str | None:
    """The student a path inside a download belongs to (``None`` when no rule matches)."""
    if pattern is not None:
        match = pattern.search(path)
        return student_id(match.group("student")) if match else None
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2:
        folder = parts[0]
        moodle = _MOODLE.match(folder)
        return student_id(moodle.group("name") if moodle else folder)
    name = parts[-1]
    blackboard = _BLACKBOARD.match(name)
    if blackboard and blackboard.group("assignment").lower() == assignment.lower():
        return student_id(blackboard.group("student"))
    if "_" in name:
        return student_id(name.split("_", 1)[0])
    return None


def _skip(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    if not parts:
        return "empty name"
    if parts[0] == "__MACOSX" or any(p.startswith(".") for p in parts):
        return "hidden or system file"
    if any(p == ".." for p in parts) or path.startswith("/"):
        return "path escapes the download"
    return ""


def _read_zip(source: Path, report: CollectReport) -> list[Candidate]:
    found = []
    try:
        archive = zipfile.ZipFile(source)
    except zipfile.BadZipFile as error:
        raise ValueError(f"{source} is not a zip file ({error})") from None
    with archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            name = info.filename.replace("\\", "/")
            why = _skip(name)
            if why:
                continue
            if not name.lower().endswith(".ipynb"):
                report.ignored.append((name, "not a notebook"))
                continue
            if info.file_size > MAX_ENTRY_BYTES:
                report.problems.append((name, f"{info.file_size // 2**20} MiB, over the size limit; skipped"))
                continue
            try:
                data = archive.read(info)
            except (zipfile.BadZipFile, OSError, RuntimeError) as error:
                report.problems.append((name, f"cannot be extracted ({error}); skipped"))
                continue
            found.append(Candidate(name, data, datetime(*info.date_time).timestamp()))
    return found


def _read_folder(source: Path, report: CollectReport) -> list[Candidate]:
    found = []
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        name = path.relative_to(source).as_posix()
        if _skip(name):
            continue
        if path.suffix.lower() != ".ipynb":
            report.ignored.append((name, "not a notebook"))
            continue
        if path.stat().st_size > MAX_ENTRY_BYTES:
            report.problems.append((name, "over the size limit; skipped"))
            continue
        try:
            found.append(Candidate(name, path.read_bytes(), path.stat().st_mtime))
        except OSError as error:
            report.problems.append((name, f"cannot be read ({error}); skipped"))
    return found


def _choose(candidates: list[Candidate], assignment: str) -> Candidate:
    def rank(c: Candidate):
        return (c.path.lower().endswith(f"{assignment}.ipynb".lower()), not c.problem, c.modified)

    return max(candidates, key=rank)


def collect(course: Course, assignment: str, source: Path, pattern: str | None = None) -> CollectReport:
    """Place every student's notebook from ``source`` (zip or folder) into ``submitted/``."""
    source = Path(source)
    report = CollectReport()
    if not source.exists():
        raise FileNotFoundError(f"{source} does not exist")
    regex = re.compile(pattern) if pattern else None
    if regex is not None and "student" not in regex.groupindex:
        raise ValueError("--pattern needs a named group (?P<student>...)")
    candidates = _read_zip(source, report) if source.is_file() else _read_folder(source, report)
    by_student: dict[str, list[Candidate]] = {}
    for c in candidates:
        student = student_of(c.path, assignment, regex)
        if student is None:
            report.ignored.append((c.path, "no student id in the name (see `collect --help` for the accepted names)"))
            continue
        by_student.setdefault(student, []).append(c)
    for student, found in sorted(by_student.items()):
        chosen = _choose(found, assignment)
        for other in found:
            if other is not chosen:
                report.ignored.append((other.path, f"{student} has another notebook ({chosen.path})"))
        if chosen.problem:
            report.problems.append((chosen.path, chosen.problem))
        if not chosen.path.lower().endswith(f"{assignment}.ipynb".lower()):
            report.problems.append((chosen.path, f"not named {assignment}.ipynb; stored as {assignment}.ipynb"))
        dest = course.submitted(student, assignment) / f"{assignment}.ipynb"
        dest.parent.mkdir(parents=True, exist_ok=True)
        status = "new"
        if dest.exists():
            status = "unchanged" if dest.read_bytes() == chosen.data else "updated"
        if status != "unchanged":
            dest.write_bytes(chosen.data)
        report.placed.append((student, chosen.path, status))
    return report
