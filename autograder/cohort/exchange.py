"""``collect`` from nbgrader's exchange: only submissions that are who they say they are.

On a shared machine students submit with ``nbgrader submit``, which leaves a folder
``STUDENT+ASSIGNMENT+TIMESTAMP+RANDOM`` in the course's ``inbound/``.  Anyone can make a folder under
another student's name there; the folder's owner (its uid) is the only evidence of who made it.
nbgrader's own ``collect`` notices a mismatch ("cheating attempt?"), warns, and collects it anyway as
the student it names.

:func:`collect_exchange` runs nbgrader's ``collect --update`` with :class:`OwnedCollect`, which leaves out
every inbound folder not owned by the account it names (:func:`forged`), so each student's newest genuine
submission is collected.  Each one left out is copied aside into the course's ``refused/ASSIGNMENT/``,
under the name it claimed and the account that made it, and listed for the instructor with both names.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect, groupby

from .commands import nbgrader
from .course import Course


@dataclass(frozen=True)
class Inbound:
    """One submission folder in the exchange's ``inbound/``: the student it claims, the account that owns it."""

    path: Path
    claimed: str
    owner: str
    timestamp: str

    @property
    def genuine(self) -> bool:
        return self.claimed == self.owner


def owner_of(path: Path) -> str:
    try:
        return pwd.getpwuid(os.stat(path).st_uid).pw_name
    except KeyError:
        return f"uid {os.stat(path).st_uid}"


def inbound(inbound_dir: Path, assignment: str) -> list[Inbound]:
    """Every submission of ``assignment`` in ``inbound_dir``, oldest first."""
    found = []
    for path in glob.glob(os.path.join(glob.escape(str(inbound_dir)), f"*+{glob.escape(assignment)}+*")):
        parts = os.path.basename(path).rsplit("+", 3)
        if len(parts) < 3 or parts[1] != assignment:
            continue
        found.append(Inbound(Path(path), parts[0], owner_of(Path(path)), parts[2]))
    return sorted(found, key=lambda item: (item.timestamp, item.claimed))


def forged(inbound_dir: Path, assignment: str) -> list[Inbound]:
    """The submissions of ``assignment`` whose folder is not owned by the account they name."""
    return [item for item in inbound(inbound_dir, assignment) if not item.genuine]


#: Where the submissions refused by :class:`OwnedCollect` are kept, under the course directory, and the list of them.
REFUSED = "refused"
REFUSED_LIST = "refused.json"


class OwnedCollect(ExchangeCollect):
    """nbgrader's collect, choosing each student's submission among the folders that student's account made.

    nbgrader (0.9.6) groups every inbound folder by the name it claims and takes the newest, then only warns
    when its owner differs; here a folder owned by another account never enters the choice, so a forgery
    newer than the student's own submission cannot replace it.  Each forgery is copied aside into
    ``refused/ASSIGNMENT/`` of the course and listed in its ``refused.json``.  Everything else (``--update``,
    due dates, ``--before-duedate``) is nbgrader's."""

    def init_src(self):
        super().init_src()  # nbgrader's checks of the course and inbound folders, and the due date
        assignment = self.coursedir.assignment_id
        items = [i for i in inbound(Path(self.inbound_path), assignment)
                 if self.coursedir.student_id in ("", "*", i.claimed)]
        self._keep_aside([i for i in items if not i.genuine], assignment)
        records = [self._path_to_record(str(i.path)) for i in items if i.genuine]
        self.src_records = []
        for group in groupby(records, lambda item: item["username"]).values():
            newest = self._sort_by_timestamp(group)
            if self.duedate is not None and self.before_duedate:
                on_time = [r for r in newest if r["timestamp"] <= self.duedate]
                newest = on_time or newest
            self.src_records.append(newest[0])

    def _keep_aside(self, refused: list[Inbound], assignment: str) -> None:
        folder = Path(self.coursedir.root) / REFUSED / assignment
        listed = []
        for item in refused:
            kept = folder / f"{item.claimed}+by+{item.owner}+{item.timestamp}"
            if not kept.exists():
                kept.parent.mkdir(parents=True, exist_ok=True)
                shutil.copytree(item.path, kept, symlinks=True)
            self.log.error(f"refused: {item.path.name} claims to be {item.claimed}'s submission but was made by "
                           f"{item.owner}; not collected, kept aside in {kept}")
            listed.append({"claimed": item.claimed, "owner": item.owner, "folder": item.path.name, "kept": str(kept)})
        if listed or (folder / REFUSED_LIST).exists():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / REFUSED_LIST).write_text(json.dumps(listed, indent=1))


@dataclass
class ExchangeReport:
    """What :func:`collect_exchange` did: the students collected and the submissions refused."""

    collected: list[str] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)  # {"claimed", "owner", "folder", "kept"}

    def summary(self) -> str:
        lines = [f"collected {len(self.collected)} submission{'s' if len(self.collected) != 1 else ''} "
                 f"from the exchange" + (f": {', '.join(self.collected)}" if self.collected else "")]
        for item in self.refused:
            lines.append(f"REFUSED: a submission in {item['claimed']}'s name was made by the account {item['owner']} "
                         f"({item['folder']}); not collected, kept aside in {item['kept']}")
        if self.refused:
            lines.append("A refused submission is only evidence: no grade is written for it, and the student it "
                         "names keeps their own submission, if they made one.")
        return "\n".join(lines)


def collect_exchange(course: Course, assignment: str) -> ExchangeReport:
    """``nbgrader collect --update ASSIGNMENT`` through :class:`OwnedCollect` (the exchange and the course id
    are nbgrader's configuration, as for ``nbgrader collect``); the collected submissions made the instructor's
    alone."""
    listing = course.root / REFUSED / assignment / REFUSED_LIST
    before = {s: _stamp(course, s, assignment) for s in course.students(assignment)}
    nbgrader(course.root, "collect", "--update", assignment,
             "--ExchangeFactory.collect=autograder.cohort.exchange.OwnedCollect")
    report = ExchangeReport()
    report.collected = sorted(s for s in course.students(assignment) if _stamp(course, s, assignment) != before.get(s))
    report.refused = json.loads(listing.read_text()) if listing.is_file() else []
    for student in course.students(assignment):
        _owner_only(course.submitted(student, assignment))
    return report


def _stamp(course: Course, student: str, assignment: str) -> str:
    stamp = course.submitted(student, assignment) / "timestamp.txt"
    try:
        return stamp.read_text().strip()
    except OSError:
        return ""


def _owner_only(folder: Path) -> None:
    """nbgrader copies a submission with the exchange's modes (folders 0777): make it the instructor's alone."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o700 if path.is_dir() else 0o600)
