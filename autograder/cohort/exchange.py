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

What is copied is only what the student made (:func:`copy_owned`): every entry is examined with ``lstat`` and
opened without following links; only folders and regular files owned by the student's account, under nbgrader's
size caps, are copied.  A symbolic link (to ``solutions/``, the gradebook, a classmate's notebook, ``/dev/zero``),
a special file, or a file another account made in the student's folder refuses the whole submission: it is kept
aside as evidence (owner-only, links recorded, never followed) with the reason, and the student's earlier collected
submission stays.  A submission is copied into a temporary folder beside its place and renamed into it only when
whole, so a copy that fails (a full disk) never replaces or deletes the one collected before.

Lateness is judged from a clock the student cannot set (:func:`arrival`): the latest status change (``ctime``) of
the submission's files, which ``touch`` cannot move back.  The ``timestamp.txt`` a student's ``nbgrader submit``
wrote is kept only when it agrees with that (within :data:`CLOCK_SLACK`); otherwise the collected copy carries the
machine's time, and the disagreement is listed on screen and in ``reports/ASSIGNMENT/exchange.json``.
"""

from __future__ import annotations

import errno
import glob
import json
import os
import pwd
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect, groupby
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.utils import parse_utc

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


def _name_of(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def owner_of(path: Path) -> str:
    """The account that made ``path`` itself (``lstat``: a link is its maker's, not its target's)."""
    return _name_of(os.lstat(path).st_uid)


def inbound(inbound_dir: Path, assignment: str) -> list[Inbound]:
    """Every submission of ``assignment`` in ``inbound_dir``, oldest first."""
    found = []
    for path in glob.glob(os.path.join(glob.escape(str(inbound_dir)), f"*+{glob.escape(assignment)}+*")):
        parts = os.path.basename(path).rsplit("+", 3)
        if len(parts) < 3 or parts[1] != assignment:
            continue
        try:
            owner = owner_of(Path(path))
        except OSError:  # gone meanwhile
            continue
        found.append(Inbound(Path(path), parts[0], owner, parts[2]))
    return sorted(found, key=lambda item: (item.timestamp, item.claimed))


def forged(inbound_dir: Path, assignment: str) -> list[Inbound]:
    """The submissions of ``assignment`` whose folder is not owned by the account they name."""
    return [item for item in inbound(inbound_dir, assignment) if not item.genuine]


#: Where the submissions refused by :class:`OwnedCollect` are kept, under the course directory, and the list of them.
REFUSED = "refused"
REFUSED_LIST = "refused.json"
#: What collect saw of each student's submission (the folder, the student's and the machine's times), per assignment.
EXCHANGE_RECORD = "exchange.json"
#: How far a student's ``timestamp.txt`` may lie before the machine's record of the files' arrival and still agree:
#: ``nbgrader submit`` writes it, then copies and closes the files.
CLOCK_SLACK = timedelta(minutes=2)
#: nbgrader's format for the time in ``timestamp.txt``.
STAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"


class Unsafe(Exception):
    """A submission holds something that is not the student's own folder or regular file."""

    def __init__(self, entries: list[dict]) -> None:
        super().__init__("; ".join(f"{e['path']}: {e['reason']}" for e in entries[:5]))
        self.entries = entries


def _kind(st: os.stat_result) -> str:
    for test, word in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(st.st_mode):
            return word
    return "not a regular file"


#: The most folders deep and the most entries a submission may hold (``nbgrader submit`` copies an assignment's
#: folder: a notebook and its data files).
MAX_DEPTH = 16
MAX_ENTRIES = 1000
#: The most bytes of ``timestamp.txt`` read (nbgrader writes about 30).
STAMP_BYTES = 100


def copy_owned(src: Path, dest: Path, uid: int | None, *, file_cap: int, total_cap: int,
               seen: dict | None = None) -> list[dict]:
    """Copy the folder ``src`` into the new folder ``dest`` without following any link, taking only folders and
    regular files, each owned by ``uid`` (``None``: anyone's, for evidence) and at most ``file_cap`` bytes, all
    together at most ``total_cap``.  Returns what was left out, each ``{"path", "reason"}``; with ``uid`` given,
    the first entry left out raises :class:`Unsafe` instead (the caller throws the partial copy away).

    Every entry is opened relative to its folder's descriptor with ``O_NOFOLLOW`` and checked again on the open
    descriptor (a file swapped for a link, a pipe or another file between the listing and the opening is seen).
    At most :data:`MAX_DEPTH` folders deep and :data:`MAX_ENTRIES` entries.  ``seen`` (a dict) gets ``"ctime"``: the
    latest status change of the regular files copied, read from their open descriptors."""
    left: list[dict] = []
    budget = [total_cap]
    count = [0]
    seen = {} if seen is None else seen

    def refuse(rel: str, reason: str) -> None:
        left.append({"path": rel, "reason": reason})
        if uid is not None:
            raise Unsafe(left)

    def walk(dir_fd: int, out: Path, rel: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            refuse(rel, f"folders nested more than {MAX_DEPTH} deep")
            return
        for name in sorted(os.listdir(dir_fd)):
            path = f"{rel}/{name}" if rel else name
            count[0] += 1
            if count[0] > MAX_ENTRIES:
                refuse(rel or ".", f"more than {MAX_ENTRIES} files and folders")
                return
            try:
                st = os.lstat(name, dir_fd=dir_fd)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(name, dir_fd=dir_fd)
                except OSError:
                    target = "?"
                refuse(path, f"a symbolic link (to {target}), made by {_name_of(st.st_uid)}: links are never followed")
                continue
            if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                refuse(path, f"{_kind(st)}, made by {_name_of(st.st_uid)}")
                continue
            if uid is not None and st.st_uid != uid:
                refuse(path, f"made by the account {_name_of(st.st_uid)}, not the student's")
                continue
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
            try:
                fd = os.open(name, flags | (os.O_DIRECTORY if stat.S_ISDIR(st.st_mode) else 0), dir_fd=dir_fd)
            except OSError as error:
                refuse(path, f"could not be opened without following a link ({error.strerror})")
                continue
            try:
                now = os.fstat(fd)
                if (now.st_ino, now.st_dev, stat.S_IFMT(now.st_mode), now.st_uid) != \
                        (st.st_ino, st.st_dev, stat.S_IFMT(st.st_mode), st.st_uid):
                    refuse(path, "changed while it was being collected")
                    continue
                if stat.S_ISDIR(now.st_mode):
                    (out / name).mkdir(mode=0o700)
                    walk(fd, out / name, path, depth + 1)
                    continue
                if now.st_size > file_cap:
                    refuse(path, f"{now.st_size} bytes, over the {file_cap}-byte limit for one file")
                    continue
                data = b""
                while len(data) <= file_cap:
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        break
                    data += chunk
                if len(data) > file_cap:
                    refuse(path, f"grew past the {file_cap}-byte limit for one file while it was read")
                    continue
                if len(data) > budget[0]:
                    refuse(path, f"the submission is over its {total_cap}-byte limit")
                    continue
                budget[0] -= len(data)
                seen["ctime"] = max(seen.get("ctime", 0.0), now.st_ctime)
                target = os.open(out / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(target, view):]
                finally:
                    os.close(target)
            finally:
                os.close(fd)

    top = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY)
    try:
        st = os.fstat(top)
        if uid is not None and st.st_uid != uid:
            refuse(".", f"the folder was made by the account {_name_of(st.st_uid)}, not the student's")
        dest.mkdir(mode=0o700)
        walk(top, dest, "", 1)
    finally:
        os.close(top)
    return left


def arrival(folder: Path) -> datetime | None:
    """When the submission in ``folder`` reached the exchange, by the machine's clock: the latest status change
    (``ctime``) of its regular files, which nobody can move back (``touch`` sets the modification time, not this;
    renaming the folder changes no file's).  A file rewritten later only makes it later.  Read with ``lstat`` alone,
    at most :data:`MAX_DEPTH` deep and :data:`MAX_ENTRIES` entries."""
    latest, count, stack = None, 0, [(str(folder), 1)]
    while stack and count <= MAX_ENTRIES:
        path, depth = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            count += 1
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                latest = st.st_ctime if latest is None else max(latest, st.st_ctime)
            elif stat.S_ISDIR(st.st_mode) and depth < MAX_DEPTH:
                stack.append((entry.path, depth + 1))
    return None if latest is None else datetime.fromtimestamp(latest, tz=timezone.utc)


def aside_name(*parts: str) -> str:
    """A folder name for what is kept aside, made of ``parts`` joined with ``+``, short enough for any file system
    (a student chooses the names it is made of): cut, with a digest of the whole, when over 160 bytes."""
    import hashlib

    whole = "+".join(parts).replace("/", "_")
    if len(whole.encode()) <= 160:
        return whole
    digest = hashlib.sha256(whole.encode()).hexdigest()[:16]
    return "+".join(part.replace("/", "_").encode()[:40].decode(errors="ignore") for part in parts) + f"+{digest}"


def _claimed(copy: Path) -> datetime | None:
    """The time in ``timestamp.txt`` of the collected copy (never the exchange's file, which its student can swap
    after it was copied), or ``None`` when it is missing, longer than :data:`STAMP_BYTES` or says no time."""
    try:
        with open(copy / "timestamp.txt", "rb") as stamp:
            raw = stamp.read(STAMP_BYTES + 1)
        if len(raw) > STAMP_BYTES:
            return None
        found = parse_utc(raw.decode().strip())
    except (OSError, ValueError, OverflowError, TypeError, UnicodeDecodeError):
        return None
    except Exception:  # noqa: BLE001 - dateutil's ParserError and the like: a stamp that says nothing
        return None
    return found if found.tzinfo else found.replace(tzinfo=timezone.utc)


def judge_time(claimed: datetime | None, arrived: datetime | None) -> tuple[datetime | None, str]:
    """The time a submission counts as handed in, and why when the student's own stamp is not it."""
    if arrived is None:
        return claimed, ""
    if claimed is None:
        return arrived, "timestamp.txt is missing or unreadable: the machine's time is used"
    if arrived - CLOCK_SLACK <= claimed <= arrived + CLOCK_SLACK:
        return claimed, ""
    return arrived, (f"timestamp.txt says {claimed:%Y-%m-%d %H:%M:%S} UTC but the files reached the exchange at "
                     f"{arrived:%Y-%m-%d %H:%M:%S} UTC: lateness is judged from the exchange's time")


class OwnedCollect(ExchangeCollect):
    """nbgrader's collect, choosing each student's submission among the folders that student's account made, and
    copying only what that account made.

    nbgrader (0.9.6) groups every inbound folder by the name it claims and takes the newest, then only warns
    when its owner differs, and copies it following every link; a folder whose name it cannot parse stops the
    whole collect.  Here a folder owned by another account never enters the choice (a forgery newer than the
    student's own submission cannot replace it) and is copied aside into ``refused/ASSIGNMENT/``; a folder named
    in no parsable way is named and skipped; the copy is :func:`copy_owned`'s, made whole before it replaces the
    submission collected before, with lateness from :func:`arrival`.  ``--update``, due dates and
    ``--before-duedate`` are nbgrader's."""

    def init_src(self):
        from nbgrader.api import Gradebook, MissingEntry

        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        assignment = self.coursedir.assignment_id
        self.refusals: list[dict] = []
        items = [i for i in inbound(Path(self.inbound_path), assignment)
                 if self.coursedir.student_id in ("", "*", i.claimed)]
        self._keep_aside([i for i in items if not i.genuine], assignment)
        records = []
        for item in items:
            if not item.genuine:
                continue
            try:
                named = parse_utc(item.timestamp)
            except Exception:  # noqa: BLE001 - a name nbgrader cannot read (made so, or renamed by a classmate)
                named = None
            arrived = arrival(item.path)
            if named is None:
                self.log.warning(f"{item.path.name}: its name holds no readable time; ordered by when its files "
                                 "reached the exchange")
            when = arrived or (named.replace(tzinfo=timezone.utc) if named and not named.tzinfo else named)
            if when is None:
                continue  # an empty folder with no readable time: nothing to collect
            records.append({"username": item.claimed, "filename": item.path.name, "timestamp": when,
                            "named": named})
        # each student's newest by the machine's clock (a folder's name is the student's to write, or a classmate's to
        # rename), and with --before-duedate the newest that arrived by the due date
        self.src_records = []
        for group in groupby(records, lambda item: item["username"]).values():
            newest = sorted(group, key=lambda r: r["timestamp"], reverse=True)
            if self.duedate is not None and self.before_duedate:
                due = self.duedate if self.duedate.tzinfo else self.duedate.replace(tzinfo=timezone.utc)
                on_time = [r for r in newest if r["timestamp"] <= due]
                newest = on_time or newest
            self.src_records.append(newest[0])

    def copy_files(self):
        assignment = self.coursedir.assignment_id
        reports = Path(self.coursedir.root) / "reports" / assignment
        record_path = reports / EXCHANGE_RECORD
        try:
            seen = json.loads(record_path.read_text())
        except (OSError, ValueError):
            seen = {}
        for rec in self.src_records:
            student, folder = rec["username"], Path(self.inbound_path) / rec["filename"]
            dest = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment))
            before = seen.get(student, {})
            if dest.is_dir() and before.get("folder") == rec["filename"]:
                continue  # collected already
            if dest.is_dir() and not before and rec["named"] is not None and \
                    self.coursedir.get_existing_timestamp(str(dest)) == rec["named"]:
                continue  # collected by an earlier version: the same submission
            if dest.is_dir() and not self.update:
                self.log.info(f"Submission already exists, use --update: {student} {assignment}")
                continue
            try:
                entry = self._collect_one(student, folder, dest, rec)
            except Unsafe as unsafe:
                try:
                    kept = self._evidence(folder, student, assignment, unsafe.entries)
                except OSError as error:
                    kept = Path(f"(not kept: {error.strerror or error})")
                self.log.error(f"refused: {folder.name} holds what {student}'s account did not make as a plain file "
                               f"({unsafe}); not collected, kept aside in {kept}")
                self.refusals.append({"claimed": student, "owner": student, "folder": folder.name, "kept": str(kept),
                                      "reason": str(unsafe), "entries": unsafe.entries, "kind": "unsafe"})
                continue
            except OSError as error:
                self.log.error(f"could not collect {folder.name}: {error}; {student}'s submission collected before, "
                               "if any, is unchanged")
                self.refusals.append({"claimed": student, "owner": student, "folder": folder.name, "kept": "",
                                      "reason": f"the copy failed ({error.strerror or error}); nothing was replaced",
                                      "fault": "grader", "kind": "copy-failed"})
                continue
            seen[student] = entry
            self.log.info(f"Collected submission: {student} {assignment}")
        _private_folder(reports)
        _write_private(record_path, json.dumps(dict(sorted(seen.items())), indent=1))
        refused_dir = Path(self.coursedir.root) / REFUSED / assignment
        listing = refused_dir / REFUSED_LIST
        listed = json.loads(listing.read_text()) if listing.is_file() else []
        listed += [r for r in self.refusals if r not in listed]
        if listed:
            _private_folder(refused_dir)
            _write_private(listing, json.dumps(listed, indent=1))

    def _collect_one(self, student: str, folder: Path, dest: Path, rec: dict) -> dict:
        """Copy ``folder`` whole into a temporary folder beside ``dest``, then put it in ``dest``'s place."""
        try:
            uid = pwd.getpwnam(student).pw_uid
        except KeyError:
            raise Unsafe([{"path": ".", "reason": f"no account is named {student}"}]) from None
        _private_folder(dest.parent)
        incoming = Path(tempfile.mkdtemp(prefix=f".{dest.name}.incoming-", dir=dest.parent))
        try:
            seen: dict = {}
            copy_owned(folder, incoming / "copy", uid, file_cap=self.coursedir.max_file_size * 1000,
                       total_cap=self.coursedir.max_dir_size * 1000, seen=seen)
            claimed = _claimed(incoming / "copy")
            arrived = datetime.fromtimestamp(seen["ctime"], tz=timezone.utc) if "ctime" in seen else None
            used, why = judge_time(claimed, arrived)
            if used is not None and why:
                _write_private(incoming / "copy" / "timestamp.txt", used.strftime(STAMP_FORMAT).replace("UTC", "UTC"))
            if dest.exists():
                old = incoming / "old"
                os.rename(dest, old)
                try:
                    os.rename(incoming / "copy", dest)
                except OSError:
                    os.rename(old, dest)
                    raise
            else:
                os.rename(incoming / "copy", dest)
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        if why:
            self.log.warning(f"{student}: {why}")
        return {"folder": folder.name, "claimed": _iso(claimed), "arrived": _iso(arrived), "used": _iso(used),
                "disagrees": why}

    def _evidence(self, folder: Path, student: str, assignment: str, entries: list[dict]) -> Path:
        """A copy of a refused submission, links recorded and never followed, for the instructor alone."""
        kept = Path(self.coursedir.root) / REFUSED / assignment / aside_name(folder.name, "unsafe")
        if kept.exists():
            return kept
        _private_folder(kept.parent)
        try:
            left = copy_owned(folder, kept, None, file_cap=self.coursedir.max_file_size * 1000,
                              total_cap=self.coursedir.max_dir_size * 1000)
        except OSError:
            left = []
        _write_private(kept.parent / f"{kept.name}.json", json.dumps({"student": student, "refused": entries,
                                                                      "not copied": left}, indent=1))
        return kept

    def _keep_aside(self, refused: list[Inbound], assignment: str) -> None:
        folder = Path(self.coursedir.root) / REFUSED / assignment
        for item in refused:
            kept = folder / aside_name(item.claimed, "by", item.owner, item.timestamp)
            if not kept.exists():
                try:
                    _private_folder(kept.parent)
                    copy_owned(item.path, kept, None, file_cap=self.coursedir.max_file_size * 1000,
                               total_cap=self.coursedir.max_dir_size * 1000)
                except OSError as error:
                    self.log.error(f"could not keep {item.path.name} aside: {error}")
            self.log.error(f"refused: {item.path.name} claims to be {item.claimed}'s submission but was made by "
                           f"{item.owner}; not collected, kept aside in {kept}")
            self.refusals.append({"claimed": item.claimed, "owner": item.owner, "folder": item.path.name,
                                  "kept": str(kept)})


def _private_folder(path: Path) -> None:
    """Make ``path`` and any folder above it that is missing, each for its owner alone (0700), whatever the umask of
    the nbgrader command that runs this."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700)
        folder.chmod(0o700)


def _iso(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, readable by its owner only, through a new file renamed into place."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class OwnedReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's ``release_feedback``, one student at a time: a feedback folder whose ``submission_secret.txt`` or
    ``timestamp.txt`` is missing or unreadable (a student can delete them from their own submission) is named and
    left out, and every other student's feedback is still released.  nbgrader (0.9.6) stops at the first such folder
    with a traceback, and every student after it in directory order gets no feedback."""

    def copy_files(self):
        from nbgrader.utils import notebook_hash

        exclude = set(filter(None, (self.coursedir.student_id_exclude or "").split(",")))
        pattern = re.escape(os.path.sep).join([
            self.coursedir.format_path(self.coursedir.feedback_directory, "(?P<student_id>.*)",
                                       self.coursedir.assignment_id, escape=True), "(?P<notebook_id>.*).html"])
        left_out = []
        for html_file in sorted(glob.glob(os.path.join(self.src_path, "*.html"))):
            found = re.match(pattern, html_file)
            if found is None:
                self.log.error(f"Could not match {html_file!r} with {pattern!r}")
                continue
            student, notebook = found.group("student_id"), found.group("notebook_id")
            if student in exclude:
                continue
            folder = os.path.dirname(html_file)
            try:
                secret = _small_text(os.path.join(folder, "submission_secret.txt"))
                _small_text(os.path.join(folder, "timestamp.txt"))
            except OSError as error:
                left_out.append(student)
                self.log.error(f"NOT RELEASED: {student}'s feedback: {error.strerror or error} "
                               f"({error.filename}); the submission it was graded from had no readable copy. "
                               "Every other student's feedback is released")
                continue
            checksum = notebook_hash(secret=secret, notebook_id=notebook)
            temporary = os.path.join(self.dest_path, f"{checksum}-tmp.html")
            shutil.copy(html_file, temporary)
            shutil.move(temporary, os.path.join(self.dest_path, f"{checksum}.html"))
            self.log.info(f"Feedback released for student {student!r} on {self.coursedir.assignment_id}/{notebook}")
        if left_out:
            self.log.error(f"feedback not released for {len(left_out)} student{'s' if len(left_out) != 1 else ''}: "
                           f"{', '.join(left_out)}")


def _small_text(path: str, limit: int = 4096) -> str:
    """A regular file's text, at most ``limit`` bytes, never through a link."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return os.read(fd, limit).decode(errors="replace")
    finally:
        os.close(fd)


@dataclass
class ExchangeReport:
    """What :func:`collect_exchange` did: the students collected and the submissions refused."""

    collected: list[str] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)  # {"claimed", "owner", "folder", "kept", ["reason", "entries"]}
    clocks: dict[str, str] = field(default_factory=dict)  # student -> why their timestamp.txt was not used

    def summary(self) -> str:
        lines = [f"collected {len(self.collected)} submission{'s' if len(self.collected) != 1 else ''} "
                 f"from the exchange" + (f": {', '.join(self.collected)}" if self.collected else "")]
        for item in self.refused:
            if item.get("kind") == "unnamed":
                lines.append(f"REFUSED: {item['folder']}: {item['reason']}; not collected (nobody else's "
                             "collect is held up by it)")
            elif item.get("fault") == "grader":
                lines.append(f"NOT COLLECTED: {item['claimed']}'s submission ({item['folder']}): {item['reason']}; "
                             "collect again once that is fixed")
            elif item.get("reason"):
                lines.append(f"REFUSED: {item['claimed']}'s submission ({item['folder']}) holds what their account did "
                             f"not make as a plain file: {item['reason']}; not collected"
                             + (f", kept aside in {item['kept']}" if item.get("kept") else "")
                             + ". Their submission collected before, if any, stands")
            else:
                lines.append(f"REFUSED: a submission in {item['claimed']}'s name was made by the account "
                             f"{item['owner']} ({item['folder']}); not collected, kept aside in {item['kept']}")
        for student, why in sorted(self.clocks.items()):
            lines.append(f"TIMESTAMP DISAGREES: {student}: {why}")
        if self.refused:
            lines.append("A refused submission is only evidence: no grade is written for it, and the student it "
                         "names keeps their own submission, if they made one.")
        return "\n".join(lines)


def collect_exchange(course: Course, assignment: str) -> ExchangeReport:
    """``nbgrader collect --update ASSIGNMENT`` through :class:`OwnedCollect` (the exchange and the course id
    are nbgrader's configuration, as for ``nbgrader collect``); the collected submissions made the instructor's
    alone."""
    listing = course.root / REFUSED / assignment / REFUSED_LIST
    record = course.root / "reports" / assignment / EXCHANGE_RECORD
    before = _read_json(record, {})
    listed_before = _read_json(listing, [])
    nbgrader(course.root, "collect", "--update", assignment,
             "--ExchangeFactory.collect=autograder.cohort.exchange.OwnedCollect")
    seen = _read_json(record, {})
    report = ExchangeReport()
    report.collected = sorted(s for s, entry in seen.items() if before.get(s) != entry)
    report.refused = [r for r in _read_json(listing, []) if r not in listed_before]
    report.clocks = {s: seen[s]["disagrees"] for s in report.collected if seen[s].get("disagrees")}
    for student in course.students(assignment):
        _owner_only(course.submitted(student, assignment))
    _owner_only(course.root / REFUSED)
    return report


def _read_json(path: Path, default):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return default


def _owner_only(folder: Path) -> None:
    """Make a folder the instructor's alone (what an older collect copied kept the exchange's modes, 0777)."""
    if not folder.is_dir() or folder.is_symlink():
        return
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o700 if path.is_dir() else 0o600)
