"""nbgrader's exchange attacked from real student accounts: what ``collect`` and ``release_feedback`` take from it.

Each attack is made by a real Unix user (``runuser``) in an exchange laid out as ``nbgrader submit`` leaves it
(``COURSE/inbound/STUDENT+ASSIGNMENT+TIME+RANDOM/``: the folder 0777, its files 0644, ``timestamp.txt`` and
``submission_secret.txt`` beside the notebook), and collected by the instructor with the course's own command
(``python -m autograder collect``, which is ``nbgrader collect --update`` with the course's exchange classes) and
with plain ``nbgrader collect`` typed in the course folder.  The rows of SECURITY.md name these tests.

Needs root (``useradd``, ``runuser``); CI runs as root.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from autograder.dev import fixture_courses, nbtools

ROOT = Path(__file__).resolve().parents[1]
MODULE = "01-tensors"
COURSE_ID = "tle-course"
STUDENTS = ("tle-ann", "tle-bob", "tle-cat", "tle-dan", "tle-eve", "tle-fay", "tle-gus", "tle-hal", "tle-ivy",
            "tle-kim", "tle-lee", "tle-mo")
#: The course's cap on one collected file (nbgrader's CourseDirectory.max_file_size, in kB), small for the test.
FILE_CAP_KB = 1000
RUNUSER = shutil.which("runuser") or "runuser"
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"


def _why_not() -> str:
    if os.geteuid() != 0:
        return "needs root to create Unix users (useradd); CI runs as root"
    for tool in ("useradd", "userdel", "runuser"):
        if shutil.which(tool) is None:
            return f"needs {tool} on PATH"
    return ""


pytestmark = [pytest.mark.skipif(bool(_why_not()), reason=_why_not() or "-")]


def _as(who: str, script: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([RUNUSER, "-u", who, "--", "bash", "-ec", script], capture_output=True, text=True,
                          cwd="/", timeout=60)
    if check and proc.returncode != 0:
        raise AssertionError(f"{who} $ {script}\n{proc.stdout}\n{proc.stderr}")
    return proc


class Exchange:
    """A course directory (the instructor's: root here, mode 700), an exchange of mode 1777 with the course's
    ``inbound/`` (0733, as nbgrader makes it), and the students' way of submitting into it."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.root = top / "exchange"
        self.inbound = self.root / COURSE_ID / "inbound"
        self.inbound.mkdir(parents=True)
        self.root.chmod(0o1777)
        (self.root / COURSE_ID).chmod(0o755)
        self.inbound.chmod(0o733)
        self.course = fixture_courses.make_course(top / "course", [MODULE], ROOT)
        (self.course / "nbgrader_config.py").write_text(
            (self.course / "nbgrader_config.py").read_text()
            + f"\nc.CourseDirectory.course_id = {COURSE_ID!r}\nc.Exchange.root = {str(self.root)!r}\n"
            f"c.CourseDirectory.max_file_size = {FILE_CAP_KB}\n")
        self.course.chmod(0o700)
        fixture_courses.release(self.course, MODULE)
        self.solution = nbtools.read(ROOT / "solutions" / MODULE / f"{MODULE}.ipynb")
        self.blank = (self.course / "exercises" / MODULE / f"{MODULE}.ipynb").read_text()

    def submit(self, who: str, *, when: datetime | None = None, notebook: str | None = None,
               extra: str = "", tail: str = "") -> Path:
        """What ``nbgrader submit`` leaves, made by ``who``: their folder, notebook, timestamp and secret; then
        ``extra`` (a shell script run by ``who`` in the folder)."""
        when = when or datetime.now(timezone.utc)
        folder = self.inbound / f"{who}+{MODULE}+{when:%Y-%m-%d %H:%M:%S.%f} UTC+{tail or os.urandom(4).hex()}"
        text = notebook if notebook is not None else self.blank
        staged = self.top / f"staged-{who}.ipynb"
        staged.write_text(text)
        staged.chmod(0o644)
        _as(who, f"mkdir {_q(folder)} && cp {_q(staged)} {_q(folder / (MODULE + '.ipynb'))} && "
                 f"printf %s {_q(when.strftime(STAMP))} > {_q(folder / 'timestamp.txt')} && "
                 f"printf %s {os.urandom(8).hex()} > {_q(folder / 'submission_secret.txt')} && "
                 f"chmod 644 {_q(folder)}/* && chmod 777 {_q(folder)}")
        if extra:
            _as(who, f"cd {_q(folder)} && {extra}")
        return folder

    def collect(self, *, plain: bool = False) -> subprocess.CompletedProcess:
        command = ([sys.executable, "-m", "nbgrader", "collect", "--update", MODULE] if plain else
                   [sys.executable, "-m", "autograder", "collect", MODULE])
        env = {k: v for k, v in os.environ.items() if k != "COURSE_DB_URL"}
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        return subprocess.run(command, cwd=self.course, capture_output=True, text=True, env=env, timeout=300)

    def submitted(self, who: str) -> Path:
        return self.course / "submitted" / who / MODULE

    def seen(self) -> dict:
        return json.loads((self.course / "reports" / MODULE / "exchange.json").read_text())


def _q(path) -> str:
    import shlex

    return shlex.quote(str(path))


@pytest.fixture(scope="module")
def exchange():
    for name in STUDENTS:
        subprocess.run(["userdel", "-r", name], capture_output=True)
        subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], check=True, capture_output=True)
    # not under pytest's own temporary folder, which pytest keeps at mode 0700 (and sets so again as it starts)
    top = Path(tempfile.mkdtemp(prefix="tle-exchange-"))
    top.chmod(0o755)
    try:
        yield Exchange(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)
        for name in STUDENTS:
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
            subprocess.run(["userdel", "-r", name], capture_output=True)


@pytest.fixture(scope="module")
def first_round(exchange):
    """Every student submits once, some of them hostile, then the instructor collects."""
    ex = exchange
    solution_nb = ex.course / "solutions" / MODULE / f"{MODULE}.ipynb"
    ex.submit("tle-ann", notebook=json.dumps(ex.solution))
    ex.submit("tle-bob", extra=f"rm {MODULE}.ipynb && ln -s {_q(solution_nb)} {MODULE}.ipynb")  # the reference
    ex.submit("tle-cat", extra=f"rm {MODULE}.ipynb && ln -s /dev/zero {MODULE}.ipynb")  # a disk filler
    ex.submit("tle-dan", extra="mkfifo notes.txt")  # blocks a reader forever
    gradebook = ex.course / "gradebook.db"
    ex.submit("tle-gus", extra=f"ln -s {_q(gradebook)} grades.db")  # every student's scores
    ex.submit("tle-hal", extra="head -c 2000000 /dev/zero > weights.bin")  # over the course's cap on one file
    # ivy: a name of 255 bytes (the most a file system allows) holding a link: what is kept aside needs a shorter name
    ex.submit("tle-ivy", tail="x" * (255 - len(f"tle-ivy+{MODULE}+2026-12-06 00:00:00.000000 UTC+")),
              extra="ln -s /etc/passwd link")
    ex.submit("tle-kim", extra="python3 -c 'import os\nfor i in range(40): os.mkdir(\"d\"); os.chdir(\"d\")'")  # deep
    ex.submit("tle-lee", extra="mkdir many && cd many && seq 1 1500 | xargs touch")  # a grader's hour of files
    ex.submit("tle-mo", extra="head -c 1000000 /dev/zero | tr '\\0' 1 > timestamp.txt")  # a megabyte to parse
    # eve also forges a folder whose claimed name, with hers and the time, is longer than a file name can be
    _as("tle-eve", f"mkdir {_q(ex.inbound / ('a' * 200 + '+' + MODULE + '+2026-12-06 00:00:00.000000 UTC+x'))}")
    # fay submits a minute late by the machine's clock, then rewrites her stamp to an hour before
    late = ex.submit("tle-fay")
    time.sleep(1.1)
    _as("tle-fay", f"printf %s {_q((datetime.now(timezone.utc) - timedelta(hours=1)).strftime(STAMP))} > "
                   f"{_q(late / 'timestamp.txt')} && touch -d '2 hours ago' {_q(late)}/*")
    # eve makes a folder whose name nbgrader cannot read: nbgrader's own collect stops at it for everyone
    _as("tle-eve", f"mkdir {_q(ex.inbound / ('tle-eve+' + MODULE + '+not-a-time+x'))}")
    proc = ex.collect()
    return proc


def test_collect_takes_only_regular_files_the_student_made(first_round, exchange):
    """ann's honest submission is collected; bob's notebook linked to solutions/, cat's to /dev/zero, dan's named
    pipe, gus's link to the gradebook and hal's file over the course's cap are each refused whole, named with the
    reason, and kept aside as owner-only evidence with the link recorded and never followed."""
    shown = first_round.stdout + first_round.stderr
    assert first_round.returncode == 0, shown[-3000:]
    assert exchange.submitted("tle-ann").joinpath(f"{MODULE}.ipynb").is_file()
    for who, words in (("tle-bob", "a symbolic link (to " + str(exchange.course)), ("tle-cat", "/dev/zero"),
                       ("tle-dan", "a named pipe"), ("tle-gus", "gradebook.db"),
                       ("tle-hal", f"2000000 bytes, over the {FILE_CAP_KB * 1000}-byte limit"),
                       ("tle-ivy", "a symbolic link (to /etc/passwd)"), ("tle-kim", "nested more than 16 deep"),
                       ("tle-lee", "more than 1000 files and folders")):
        assert not exchange.submitted(who).exists(), who
        line = next((x for x in shown.splitlines() if x.startswith(f"REFUSED: {who}'s submission")), "")
        assert words in line, (who, shown[-3000:])
    listed = json.loads((exchange.course / "refused" / MODULE / "refused.json").read_text())
    assert {r["claimed"] for r in listed} >= {"tle-bob", "tle-cat", "tle-dan", "tle-gus", "tle-hal", "tle-ivy",
                                              "tle-kim", "tle-lee", "a" * 200}, listed
    refused = exchange.course / "refused"
    for path in [refused, *refused.rglob("*")]:
        st = os.lstat(path)
        assert not stat.S_ISLNK(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077 == 0, path  # no link, owner-only
    kept = next((refused / MODULE).glob("tle-bob+*+unsafe"))
    assert not (kept / f"{MODULE}.ipynb").exists()  # the link's target was never copied
    disk = shutil.disk_usage(exchange.top)
    assert disk.free > 1 << 30  # /dev/zero was not copied


def test_names_a_student_chooses_stop_nobody_elses_collect(first_round, exchange):
    """A folder whose name nbgrader cannot parse (nbgrader's own collect stops at it for everyone), names of 255
    bytes, a claimed name too long to keep aside under: the collect goes on for everyone, and what is kept aside gets
    a name of bounded length."""
    shown = first_round.stdout + first_round.stderr
    assert first_round.returncode == 0 and "Traceback" not in shown, shown[-3000:]
    assert exchange.submitted("tle-ann").is_dir() and exchange.submitted("tle-fay").is_dir()
    assert f"REFUSED: a submission in {'a' * 200}'s name was made by the account tle-eve" in shown, shown[-3000:]
    assert all(len(p.name.encode()) <= 200 for p in (exchange.course / "refused" / MODULE).iterdir())


def test_a_megabyte_timestamp_is_no_time_and_costs_nothing(first_round, exchange):
    """mo's timestamp.txt is a megabyte of digits: it is not parsed (nbgrader's parser takes seconds a megabyte);
    the machine's time is used, and said."""
    seen = exchange.seen()
    assert "timestamp.txt is missing or unreadable" in seen["tle-mo"]["disagrees"], seen["tle-mo"]
    assert seen["tle-mo"]["used"] == seen["tle-mo"]["arrived"]


def test_a_classmates_renamed_folder_is_still_the_newest_by_the_machines_clock(first_round, exchange):
    """eve learns the name of ann's newest folder and renames it to a name with no readable time (inbound has no
    sticky bit): ann's newest is still the one collected, ordered by when its files arrived, not an older draft."""
    older = exchange.submit("tle-ann", notebook=json.dumps(exchange.solution))
    time.sleep(1.1)
    newest = exchange.submit("tle-ann", notebook=json.dumps(exchange.solution).replace("make_blobs", "make_blobs "))
    _as("tle-eve", f"mv {_q(newest)} {_q(exchange.inbound / ('tle-ann+' + MODULE + '+not a time+zz'))}")
    proc = exchange.collect()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert exchange.seen()["tle-ann"]["folder"] == f"tle-ann+{MODULE}+not a time+zz", exchange.seen()["tle-ann"]
    assert older.name != exchange.seen()["tle-ann"]["folder"]


def test_lateness_comes_from_the_machines_clock_not_the_students_stamp(first_round, exchange):
    """fay rewrote timestamp.txt to an hour earlier and set every file's mtime back: the collected copy carries the
    time the exchange recorded (ctime), the disagreement is on screen and in reports/ASSIGNMENT/exchange.json;
    ann's stamp agrees and is kept as she wrote it."""
    shown = first_round.stdout + first_round.stderr
    assert "TIMESTAMP DISAGREES: tle-fay" in shown, shown[-3000:]
    seen = exchange.seen()
    assert seen["tle-fay"]["disagrees"] and seen["tle-fay"]["used"] == seen["tle-fay"]["arrived"]
    used = datetime.strptime(seen["tle-fay"]["used"], STAMP).replace(tzinfo=timezone.utc)
    assert abs(used - datetime.now(timezone.utc)) < timedelta(minutes=10)
    stamp = (exchange.submitted("tle-fay") / "timestamp.txt").read_text().strip()
    assert stamp.startswith(used.strftime("%Y-%m-%d %H:%M:%S")), stamp
    assert not seen["tle-ann"]["disagrees"] and seen["tle-ann"]["used"] == seen["tle-ann"]["claimed"]


def test_a_classmates_file_in_a_students_folder_refuses_it_and_keeps_the_earlier_copy(first_round, exchange):
    """eve learns ann's next folder and swaps the notebook for her own (the folder is 0777, as nbgrader makes it):
    the file is eve's, so that submission is refused, named with eve's account, and ann's earlier collected copy
    stands untouched."""
    before = (exchange.submitted("tle-ann") / f"{MODULE}.ipynb").read_bytes()
    folder = exchange.submit("tle-ann", notebook=json.dumps(exchange.solution))
    _as("tle-eve", f"rm -f {_q(folder / (MODULE + '.ipynb'))} && echo '{{}}' > {_q(folder / (MODULE + '.ipynb'))}")
    proc = exchange.collect()
    shown = proc.stdout + proc.stderr
    assert "REFUSED: tle-ann's submission" in shown and "made by the account tle-eve" in shown, shown[-3000:]
    assert (exchange.submitted("tle-ann") / f"{MODULE}.ipynb").read_bytes() == before


def test_plain_nbgrader_collect_in_the_course_folder_is_the_courses(first_round, exchange):
    """The course's nbgrader_config.py names its exchange classes: `nbgrader collect` typed in the course folder
    refuses bob's link too, and is not stopped by eve's unparsable folder."""
    exchange.submit("tle-bob", extra=f"rm {MODULE}.ipynb && ln -s /etc/shadow {MODULE}.ipynb")
    proc = exchange.collect(plain=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "/etc/shadow" in proc.stderr and not exchange.submitted("tle-bob").exists(), proc.stderr[-3000:]
    for path in [*(exchange.course / "refused").rglob("*"), *(exchange.course / "submitted").rglob("*")]:
        assert stat.S_IMODE(os.lstat(path).st_mode) & 0o077 == 0, path  # owner-only under nbgrader's own umask too


def test_a_copy_that_fails_replaces_nothing(first_round, exchange):
    """A submission that cannot be copied whole (here: the course's submitted/ folder of that student is not
    writable, as a full disk or a quota would refuse it) leaves the copy collected before as it was."""
    before = (exchange.submitted("tle-fay") / "timestamp.txt").read_bytes()
    exchange.submit("tle-fay")
    parent = exchange.submitted("tle-fay").parent
    try:
        env = {k: v for k, v in os.environ.items() if k != "COURSE_DB_URL"}
        # the instructor here is root, whom modes do not stop: make the folder immutable, where the filesystem can
        immutable = subprocess.run(["chattr", "+i", str(parent)], capture_output=True).returncode == 0
        if not immutable:
            pytest.skip("this filesystem cannot make a folder unwritable for root (chattr +i)")
        proc = subprocess.run([sys.executable, "-m", "autograder", "collect", MODULE], cwd=exchange.course,
                              capture_output=True, text=True, env=env, timeout=300)
    finally:
        subprocess.run(["chattr", "-i", str(parent)], capture_output=True)
    shown = proc.stdout + proc.stderr
    assert "NOT COLLECTED: tle-fay's submission" in shown, shown[-3000:]
    assert (exchange.submitted("tle-fay") / "timestamp.txt").read_bytes() == before
    assert not list(parent.glob(f".{MODULE}.incoming-*"))


def test_feedback_is_released_around_a_folder_without_its_secret(first_round, exchange):
    """ann deleted nothing; fay's feedback folder lacks submission_secret.txt (she removed it from her submission):
    `nbgrader release_feedback` names fay and still releases ann's page."""
    for who in ("tle-ann", "tle-fay"):
        folder = exchange.course / "feedback" / who / MODULE
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{MODULE}.html").write_text(f"<p>{who}</p>")
        shutil.copy(exchange.submitted(who) / "timestamp.txt", folder / "timestamp.txt")
        if who == "tle-ann":
            shutil.copy(exchange.submitted(who) / "submission_secret.txt", folder / "submission_secret.txt")
    # fay's name sorts after ann's; a name before ann's without a secret stops nbgrader's own release at once
    early = exchange.course / "feedback" / "tle-aaa" / MODULE
    early.mkdir(parents=True)
    (early / f"{MODULE}.html").write_text("<p>aaa</p>")
    env = {k: v for k, v in os.environ.items() if k != "COURSE_DB_URL"}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "release_feedback", MODULE], cwd=exchange.course,
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "NOT RELEASED: tle-aaa's feedback" in proc.stderr and "NOT RELEASED: tle-fay's feedback" in proc.stderr
    released = [p.read_text() for p in (exchange.root / COURSE_ID / "feedback").glob("*.html")]
    assert released == ["<p>tle-ann</p>"], released


def test_what_collect_wrote_is_the_instructors_alone(first_round, exchange):
    for path in [exchange.course / "submitted", *(exchange.course / "submitted").rglob("*"),
                 exchange.course / "reports" / MODULE / "exchange.json"]:
        st = os.lstat(path)
        assert stat.S_IMODE(st.st_mode) & 0o077 == 0 and st.st_uid == pwd.getpwnam("root").pw_uid, path
