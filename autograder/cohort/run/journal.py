"""The journal: each student a run has finished, appended as soon as their grades are in the gradebook, so that
a run stopped by a crash or an interrupt resumes where it stopped (``reports/ASSIGNMENT/grading.journal.jsonl``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..records import RecordError, StudentEntry


class Journal:
    """Append-only record of the students a run has finished (grades in the gradebook), one JSON line each.

    A run that finds a journal left by a run of the same students (the coordinator was killed or
    interrupted) resumes it: those students are kept, not graded again.  A run of other students
    keeps the journal's entries for everyone it does not grade itself, so ``grading.json`` matches
    the gradebook.  A torn last line (a crash mid-write) is ignored.
    """

    def __init__(self, path: Path, assignment: str, students: list[str]) -> None:
        self.path, self.assignment, self.students = path, assignment, sorted(students)
        self.found: dict[str, StudentEntry] = {}
        self.selection: list[str] | None = None
        self.entries: dict[str, StudentEntry] = {}
        self._fh = None
        if path.exists():
            for line in path.read_text(errors="replace").splitlines():
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if item.get("assignment") == assignment and "selection" in item:
                    self.selection = item["selection"]
                elif "student" in item and "entry" in item:
                    try:
                        self.found[item["student"]] = StudentEntry.from_dict(item["entry"])
                    except (RecordError, TypeError):
                        continue

    @property
    def resumes(self) -> bool:
        return self.selection == self.students and bool(self.found)

    def carried(self) -> dict[str, StudentEntry]:
        """Entries this run keeps rather than grades."""
        if self.resumes:
            return dict(self.found)
        return {s: e for s, e in self.found.items() if s not in self.students}

    def add(self, student: str, entry: StudentEntry) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fresh = not self.resumes
            self._fh = open(self.path, "w" if fresh else "a")  # noqa: SIM115 - kept open for the run
            if fresh:
                self._write({"assignment": self.assignment, "selection": self.students})
                for s, e in self.carried().items():
                    self._write({"student": s, "entry": e.as_dict()})
        self._write({"student": student, "entry": entry.as_dict()})
        self.entries[student] = entry

    def _write(self, item: dict) -> None:
        self._fh.write(json.dumps(item) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
