"""Grading on a shared machine, each command typed by the Unix user who would type it.

Real users (an instructor and two students, made with ``useradd``), nbgrader's exchange in a folder
every user can write, a hub-wide nbgrader config (the course id and the exchange, as
``/etc/jupyter/nbgrader_config.py`` would hold them; here through ``JUPYTER_CONFIG_PATH``), and one
Python environment for everyone that only root can write.  The instructor works in a course directory
of mode 700 in their home, following the README's "Grading on a JupyterHub" procedure: ``make release``,
``nbgrader db assignment add`` (a due date), ``release_assignment``; the students ``fetch_assignment``
and ``submit`` (one of them twice, the second time late); ``collect --update``, ``make grade`` with the
sandbox required, ``make feedback``, ``release_feedback``; the students ``fetch_feedback``.

The shared environment is made from the system's Python (root's may live under /root, which other users
cannot run) with a ``.pth`` that adds the site-packages of the environment running this suite, instead
of the README's ``pip install`` of torch and the package (minutes of the suite for the same files).

Needs root (``useradd``, ``runuser``) and bubblewrap; CI runs as root.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import shlex
import shutil
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from autograder.dev import fixture_courses, nbtools

ROOT = Path(__file__).resolve().parents[1]
MODULE = "01-tensors"
SYSTEM_PYTHON = "/usr/bin/python3"
USERS = {"instructor": "tlg-instructor", "ada": "tlg-ada", "bob": "tlg-bob"}
RUNUSER = shutil.which("runuser") or "runuser"


def _why_not() -> str:
    if os.geteuid() != 0:
        return "needs root to create Unix users (useradd); CI runs as root"
    for tool in ("useradd", "userdel", "runuser", "make", "bwrap"):
        if shutil.which(tool) is None:
            return f"needs {tool} on PATH"
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return f"needs the system's Python ({SYSTEM_PYTHON}) to build an environment other users can run"
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                           capture_output=True, text=True)
    if probe.stdout.strip() != str(sys.version_info[:2]):
        return f"the system's Python is {probe.stdout.strip()}, this suite's {sys.version_info[:2]}: they cannot share packages"
    return ""


pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(_why_not()), reason=_why_not() or "-")]


class Hub:
    """The machine as a hub's administrator left it, and a way to type commands as each of its users."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.env = top / "opt" / "torch-ledger"
        self.exchange = top / "srv" / "exchange"
        self.config = top / "etc" / "jupyter"
        self.course = Path(pwd.getpwnam(USERS["instructor"]).pw_dir) / "course"

    def home(self, who: str) -> Path:
        return Path(pwd.getpwnam(USERS[who]).pw_dir)

    def environment(self, who: str) -> dict:
        """What the hub's spawner gives a user's server: the shared environment first on PATH, the hub's config."""
        return {"HOME": str(self.home(who)), "USER": USERS[who], "LOGNAME": USERS[who], "LANG": "C.UTF-8",
                "PATH": f"{self.env / 'bin'}:/usr/local/bin:/usr/bin:/bin", "JUPYTER_CONFIG_PATH": str(self.config),
                "TORCH_LEDGER_ENV": str(self.env), "TORCH_LEDGER_PROGRESS": "off", "MPLBACKEND": "Agg"}

    def run(self, who: str, command: str, *, cwd: Path | None = None, check: bool = True,
            timeout: float = 300) -> subprocess.CompletedProcess:
        """``command`` (a shell line) typed by ``who`` in ``cwd`` (default: their home)."""
        proc = subprocess.run([RUNUSER, "-u", USERS[who], "--", "bash", "-c", command],
                              cwd=str(cwd or self.home(who)), env=self.environment(who),
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{who} $ {command}\nexit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
        return proc

    def can_read(self, who: str, path: Path) -> bool:
        quoted = shlex.quote(str(path))
        return self.run(who, f"cat {quoted} > /dev/null 2>&1 || ls {quoted} > /dev/null 2>&1", check=False).returncode == 0


def _make_shared_environment(env: Path) -> None:
    """A virtual environment of the system's Python, read-only for users, that sees this suite's packages."""
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(env)], check=True)
    inner = Path(subprocess.run([str(env / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                check=True, capture_output=True, text=True).stdout.strip())
    ours = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()})
    (inner / "torch-ledger-suite.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n")
    ours_python = str(Path(sys.prefix) / "bin" / "python")
    for source in sorted((Path(sys.prefix) / "bin").iterdir()):  # console scripts, as pip writes them for an interpreter
        target = env / "bin" / source.name
        if target.exists() or not source.is_file():
            continue
        head, _, rest = source.read_bytes().partition(b"\n")
        if head.startswith(b"#!") and head[2:].decode(errors="replace").startswith(ours_python):
            target.write_bytes(f"#!{env / 'bin' / 'python'}\n".encode() + rest)
            target.chmod(0o755)
    subprocess.run(["chmod", "-R", "a+rX,go-w", str(env.parent)], check=True)


def _let_users_traverse(*paths: Path) -> list[tuple[Path, int]]:
    """Give other users the right to pass through (not to list) every folder down to ``paths`` (this suite's
    checkout and environment, which the shared environment points into); returns what to put back."""
    changed = []
    for path in paths:
        for folder in [*reversed(Path(path).resolve().parents), Path(path).resolve()]:
            mode = stat.S_IMODE(folder.stat().st_mode)
            if not mode & stat.S_IXOTH and all(folder != f for f, _ in changed):
                changed.append((folder, mode))
                folder.chmod(mode | stat.S_IXOTH)
    return changed


def _add_users(homes: Path) -> None:
    """The users, with homes in ``homes`` (so that a run killed half-way leaves no home another run would reuse)."""
    homes.mkdir(mode=0o755)
    for name in USERS.values():
        subprocess.run(["userdel", "-r", name], capture_output=True)
        # Private home folders (HOME_MODE 0700 in /etc/login.defs on the hub); Debian's default is 0755.
        subprocess.run(["useradd", "-m", "-d", str(homes / name), "-K", "HOME_MODE=0700", "-s", "/bin/bash", name],
                       check=True)


def _remove_users() -> None:
    for name in USERS.values():
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        subprocess.run(["userdel", "-r", name], capture_output=True)


def _answers(solution, *, leave_out: str | None = None) -> dict:
    answers = {f: nbtools.strip_solution_markers(cell.source) for f, cell in nbtools.answer_cells(solution).items()}
    if leave_out is not None:
        answers.pop(leave_out)
    return answers


def _work(hub: Hub, who: str, answers: dict) -> None:
    """``who`` fills in the fetched notebook's answer cells (as the student, in their own copy)."""
    path = hub.home(who) / MODULE / f"{MODULE}.ipynb"
    done = nbtools.substitute(nbtools.read(path), answers)
    text = json.dumps(done, indent=1)
    subprocess.run([RUNUSER, "-u", USERS[who], "--", "tee", str(path)], input=text, text=True,
                   capture_output=True, check=True)


@pytest.fixture(scope="module")
def hub():
    """Release -> fetch -> submit (bob twice, the second time late) -> collect --update -> grade -> feedback,
    each typed by its user; yields the hub, the grade run's output and the timings."""
    top = Path(tempfile.mkdtemp(prefix="tl-hub-"))
    top.chmod(0o755)
    # What root sets up here is the users' to reach (an in-process cohort command may have left umask 077).
    umask = os.umask(0o022)
    opened = _let_users_traverse(ROOT, Path(sys.prefix))
    _add_users(top / "home")
    try:
        hub = Hub(top)
        _make_shared_environment(hub.env)
        hub.exchange.mkdir(parents=True)
        hub.exchange.chmod(0o777)
        hub.config.mkdir(parents=True)
        (hub.config / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            "c.CourseDirectory.course_id = 'tl-hub-course'\n"
            f"c.Exchange.root = {str(hub.exchange)!r}\n")
        subprocess.run(["chmod", "-R", "a+rX", str(top / "etc"), str(top / "opt")], check=True)
        # The instructor's clone: the repository's tracked files, owned by the instructor, in a mode-700 folder.
        tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        hub.course.mkdir()
        for name in filter(None, tracked.decode().split("\0")):
            if (ROOT / name).is_file():
                (hub.course / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, hub.course / name)
        subprocess.run(["chown", "-R", f"{USERS['instructor']}:", str(hub.course)], check=True)
        timings = {}
        hub.run("instructor", "chmod 700 ~/course")
        with open(hub.course / "nbgrader_config.py", "a") as config:  # the instructor's own edit (late penalties)
            config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
        hub.run("instructor", f"make release MODULE={MODULE}", cwd=hub.course)
        hub.run("instructor", f"nbgrader release_assignment {MODULE}", cwd=hub.course)
        for who in ("ada", "bob"):
            hub.run(who, f"nbgrader fetch_assignment {MODULE}")
        solution = nbtools.read(ROOT / "solutions" / MODULE / f"{MODULE}.ipynb")
        _work(hub, "ada", _answers(solution))
        hub.run("ada", f"nbgrader submit {MODULE}")
        hub.run("bob", f"nbgrader submit {MODULE}")  # as fetched: nothing attempted
        time.sleep(1.1)
        due = datetime.now(timezone.utc)
        hub.run("instructor", f"nbgrader db assignment add {MODULE} --duedate='{due:%Y-%m-%d %H:%M:%S} UTC'",
                cwd=hub.course)
        time.sleep(1.1)
        _work(hub, "bob", _answers(solution, leave_out="pairwise_sq_dists"))
        hub.run("bob", f"nbgrader submit {MODULE}")  # late, and better
        hub.listed = hub.run("bob", f"nbgrader list --cached {MODULE} 2>&1").stdout  # what bob submitted, as he sees it
        hub.run("instructor", f"nbgrader collect --update {MODULE}", cwd=hub.course)
        start = time.monotonic()
        graded = hub.run("instructor", f"make grade ASSIGNMENT={MODULE} SANDBOX=bwrap", cwd=hub.course, timeout=600)
        timings["grade"] = time.monotonic() - start
        hub.run("instructor", f"make feedback ASSIGNMENT={MODULE} && nbgrader release_feedback {MODULE}",
                cwd=hub.course)
        for who in ("ada", "bob"):
            hub.run(who, f"nbgrader fetch_feedback {MODULE}")
        hub.run("instructor", "make export", cwd=hub.course)
        roster = hub.course / "canvas-roster.csv"  # as Canvas exports it; carol is enrolled and never submitted
        roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n"
                          + "".join(f'"Example, {who.title()}",{i},S{i},{USERS.get(who, who)},Lab\n'
                                    for i, who in enumerate(("ada", "bob", "carol"))))
        os.chown(roster, pwd.getpwnam(USERS["instructor"]).pw_uid, -1)
        hub.lms = hub.run("instructor", "make export FORMAT=canvas ROSTER=canvas-roster.csv", cwd=hub.course).stdout
        hub.similar = hub.run("instructor", f"make similarity ASSIGNMENT={MODULE}", cwd=hub.course).stdout
        hub.graded, hub.timings, hub.solution, hub.due = graded, timings, solution, due
        yield hub
    finally:
        os.umask(umask)
        for folder, mode in opened:
            folder.chmod(mode)
        _remove_users()
        shutil.rmtree(top, ignore_errors=True)


def _scores(hub: Hub) -> dict:
    return fixture_courses.scores(hub.course, MODULE)


def _record(hub: Hub) -> dict:
    return json.loads((hub.course / "reports" / MODULE / "grading.json").read_text())


def test_the_instructor_grades_in_a_private_course_with_a_read_only_environment(hub):
    assert stat.S_IMODE(hub.course.stat().st_mode) == 0o700
    assert hub.run("instructor", f"touch {hub.env}/bin/x", check=False).returncode != 0  # not theirs to write
    assert not (hub.course / ".venv").exists()
    record = _record(hub)
    assert record["sandbox"]["mode"] == "bwrap"
    assert record["sandbox"]["kernels"] in {"warm", "cold"}
    if record["sandbox"]["kernels"] == "cold":
        assert record["sandbox"].get("kernels_note"), "a cold run must say why its kernels were not warm"
    assert not record.get("not_graded") and not (record.get("forced") or {}).get("forced"), record
    scores = _scores(hub)
    ada = scores[USERS["ada"]]
    assert all(score == maximum for score, maximum in ada.values()), ada  # the solution's answers: full marks
    written = [hub.course / "reports" / MODULE / "grading.json",  # by grade: the owner's alone
               hub.course / "autograded" / USERS["ada"] / MODULE / f"{MODULE}.ipynb"]
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, f"{path} is readable by others"
        assert path.stat().st_uid == pwd.getpwnam(USERS["instructor"]).pw_uid


def test_grades_go_to_the_lms_and_the_similarity_page_is_written_as_the_instructor(hub):
    """Canvas's import file from the real gradebook: ada's full marks, bob's late submission at 0 (the course's
    late-penalty rule is "zero"), carol enrolled without a submission; and the similarity page. Both are
    written by the instructor, readable by no one else."""
    rows = list(csv.reader((hub.course / "grades-canvas.csv").read_text().splitlines()))
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] and rows[0][5] == MODULE
    by_login = {row[3]: row[5] for row in rows[2:]}
    assert float(by_login[USERS["ada"]]) == float(rows[1][5]) > 0, rows  # full marks
    assert by_login[USERS["bob"]] == "0" and by_login["carol"] == "", rows
    assert "2 students matched" in hub.lms and "NOT IN THE ROSTER" not in hub.lms, hub.lms
    page = hub.course / "reports" / MODULE / "similarity.html"
    assert "wrote" in hub.similar and page.is_file()
    for path in (hub.course / "grades-canvas.csv", page):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, f"{path} is readable by others"
        assert path.stat().st_uid == pwd.getpwnam(USERS["instructor"]).pw_uid


def test_the_newest_submission_is_graded_and_its_lateness_shown(hub):
    assert hub.listed.count(f"tl-hub-course {USERS['bob']} {MODULE}") == 2, hub.listed  # both of bob's submissions, listed to him
    rows = {row["student_id"]: row for row in csv.DictReader((hub.course / "grades.csv").open())}
    assert float(rows[USERS["bob"]]["score"]) == 0.0 and float(rows[USERS["bob"]]["raw_score"]) > 0, rows
    bob = _scores(hub)[USERS["bob"]]
    lost = {name for name, (score, maximum) in bob.items() if score < maximum}
    assert lost and all("pairwise_sq_dists" in name for name in lost), bob  # the second (late) submission's answers
    entry = _record(hub)["students"][USERS["bob"]]
    assert entry["late"] and entry["score"] == 0.0, entry  # penalty_method "zero"
    assert "late" not in _record(hub)["students"][USERS["ada"]] or not _record(hub)["students"][USERS["ada"]]["late"]
    pages = list((hub.home("bob") / MODULE / "feedback").rglob("*.html"))
    assert pages, "bob fetched no feedback"
    page = pages[0].read_text()
    raw = sum(score for score, _ in bob.values())
    assert "Submitted late:" in page and f"The checks gave {raw:g} points" in page and "so the score is 0" in page


def test_a_student_reaches_no_other_students_work_and_no_solutions(hub):
    bob_submitted = hub.course / "submitted" / USERS["bob"] / MODULE / f"{MODULE}.ipynb"
    assert bob_submitted.exists()
    bob_feedback = next((hub.home("bob") / MODULE / "feedback").rglob("*.html"))
    private = [bob_submitted, hub.course / "solutions" / MODULE / f"{MODULE}.ipynb", hub.course / "gradebook.db",
               hub.course / "feedback" / USERS["bob"], bob_feedback, hub.home("bob") / MODULE / f"{MODULE}.ipynb",
               hub.exchange / "tl-hub-course" / "inbound", hub.exchange / "tl-hub-course" / "feedback"]
    reached = [str(p) for p in private if hub.can_read("ada", p)]
    assert not reached, f"ada could read: {reached}"
    assert hub.can_read("ada", next((hub.home("ada") / MODULE / "feedback").rglob("*.html")))  # her own, yes


def test_scores_equal_a_root_run_of_the_same_submissions(hub, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(hub.course, course, ignore=shutil.ignore_patterns("autograded", "feedback", "reports"))
    env = {k: v for k, v in os.environ.items() if k not in {"COURSE_DB_URL"}}
    env["JUPYTER_CONFIG_PATH"] = str(hub.config)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", MODULE, "--sandbox", "bwrap",
                           "--no-progress"], cwd=course, env=env, capture_output=True, text=True, timeout=600)
    hub.timings["grade as root"] = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert fixture_courses.scores(course, MODULE) == _scores(hub)
    print("grading seconds:", {k: round(v, 1) for k, v in hub.timings.items()})


def test_a_fault_of_the_grader_changes_no_grade_even_when_forced(hub):
    """Two real faults of the grader under a graded cohort, each typed by the instructor with --force: a Dask
    scratch folder they cannot write (the run cannot start), and a gradebook they cannot write (a student whose
    grade changes cannot be written).  Neither changes a grade; each says what happened and exits with its own
    status."""
    before = _scores(hub)
    record_before = (hub.course / "reports" / MODULE / "grading.json").read_text()
    locked = hub.top / "not-the-instructors"
    locked.mkdir()
    locked.chmod(0o755)  # root's: the instructor cannot write it
    grade = f"python -m autograder grade {MODULE} --sandbox bwrap --force --no-progress"
    proc = hub.run("instructor", f"DASK_TEMPORARY_DIRECTORY={locked} {grade}", cwd=hub.course, check=False)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "could not start" in proc.stderr and str(locked) in proc.stderr and "DASK_TEMPORARY_DIRECTORY" in proc.stderr
    assert _scores(hub) == before

    # bob submits a third time (every answer now): his regrade must write; the gradebook refuses the write.
    _work(hub, "bob", _answers(hub.solution))
    hub.run("bob", f"nbgrader submit {MODULE}")
    hub.run("instructor", f"nbgrader collect --update {MODULE}", cwd=hub.course)
    gradebook = hub.course / "gradebook.db"
    hub.run("instructor", f"chmod 400 {gradebook}")
    try:
        proc = hub.run("instructor", grade, cwd=hub.course, check=False)
    finally:
        hub.run("instructor", f"chmod 600 {gradebook}")
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-3000:]
    shown = proc.stdout + proc.stderr
    assert "Traceback" not in shown, shown[-3000:]
    assert "not graded: internal error" in shown and "readonly database" in shown, shown[-3000:]
    assert _scores(hub) == before  # bob's previous grade stands; ada's regrade wrote the same
    record = json.loads((hub.course / "reports" / MODULE / "grading.json").read_text())
    assert set(record.get("not_graded") or {}) == {USERS["bob"]}, record.get("not_graded")
    assert USERS["bob"] not in record["students"] or record["students"][USERS["bob"]] == \
        json.loads(record_before)["students"][USERS["bob"]]


WARM_PROBE = r'''
import json, os
def _templates():
    # /proc is the template's pid namespace's: the kernel's own entry there, its stand-in's, and the rest
    me = int(os.readlink("/proc/self"))
    parent = int(open(f"/proc/{me}/stat").read().rsplit(")", 1)[1].split()[1])
    found = {}
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and int(pid) not in (me, parent) and \
                    b"autograder.cohort.kernels.forkserver" in open(f"/proc/{pid}/cmdline", "rb").read():
                found[pid] = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19]  # its start time
        except OSError:
            pass
    return found
print("PROBE " + json.dumps({"uid": os.getuid(), "pid": os.getpid(), "templates": _templates(),
                             "home": sorted(os.listdir(os.path.expanduser("~"))), "tmp": sorted(os.listdir("/tmp")),
                             "course": os.path.exists(COURSE), "env": os.environ.get("LEAKED")}))
'''

KILL_TEMPLATE = r'''
import os, signal
me, tried = int(os.readlink("/proc/self")), []
for pid in os.listdir("/proc"):  # every process of the template's sandbox but this one, by its /proc entry
    try:
        if not pid.isdigit() or int(pid) == me or b"autograder.cohort.kernels.forkserver" not in open(f"/proc/{pid}/cmdline", "rb").read():
            continue
        fd = os.open(f"/proc/{pid}", os.O_RDONLY)
    except OSError:
        continue
    try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
        tried.append("killed")
    except OSError as error:
        tried.append(type(error).__name__)
print("TEMPLATE " + ",".join(tried))
'''


def test_warm_kernels_without_root_are_each_in_their_own_namespace(hub):
    """As the instructor, one worker: probes between students that leave state, files and processes behind and
    that try to kill the template.  Every kernel is forked (warm), runs as "nobody" in a pid namespace of its
    own, sees a fresh home and /tmp and none of the course, and the template outlives the attempt."""
    from test_warm import LEAK_STATE, _probe_of, _with_cell

    from autograder.cohort.course import Course

    course = hub.course.parent / "course-warm"
    hub.run("instructor", f"cp -a {hub.course} {course} && rm -rf {course}/submitted {course}/autograded "
                          f"{course}/reports {course}/feedback")
    probe = _with_cell(hub.solution, f"COURSE = {str(hub.course)!r}\n" + WARM_PROBE)
    students = {"a-probe": probe, "b-leak": _with_cell(probe, LEAK_STATE, 1),
                "c-probe": probe, "d-kill": _with_cell(probe, KILL_TEMPLATE), "e-probe": probe}
    for student, nb in students.items():
        folder = course / "submitted" / student / MODULE
        folder.mkdir(parents=True)
        (folder / f"{MODULE}.ipynb").write_text(json.dumps(nb))
    subprocess.run(["chown", "-R", f"{USERS['instructor']}:", str(course / "submitted")], check=True)
    proc = hub.run("instructor", f"python -m autograder grade {MODULE} --workers 1 --sandbox bwrap --kernels warm "
                                 "--no-progress", cwd=course)
    record = json.loads((course / "reports" / MODULE / "grading.json").read_text())
    assert record["sandbox"]["kernels"] == "warm", (record["sandbox"], proc.stdout[-2000:])
    assert all(entry["kernel"] == "warm" for entry in record["students"].values()), record["students"]
    seen = {student: _probe_of(Course.open(course), student) for student in students}
    for student, state in seen.items():
        assert state["uid"] == 65534 and state["pid"] == 1, (student, state)  # "nobody", first of its namespace
        assert state["course"] is False, (student, state)
        assert state["templates"] == seen["a-probe"]["templates"] != {}, (student, state)  # the same template
        if student == "b-leak":  # what it left: its own probe sees it, no later kernel does
            assert state["env"] == "1" and "leaked.txt" in state["home"], state
            continue
        assert state["env"] is None, (student, state)
        assert state["home"] == [] and state["tmp"] == seen["a-probe"]["tmp"], (student, state)  # nothing left over
        assert "leaked.txt" not in state["tmp"] and "late.txt" not in state["tmp"], (student, state)
    # d-kill sent SIGKILL, through its /proc entry, to every process of the sandbox it could see (the template,
    # the sandbox's init, its own stand-in): none is in its pid namespace, so none could be signalled, and
    # e-probe was forked from the same template (above).
    tried = fixture_courses.autograded_notebook(course, MODULE, "d-kill").read_text().split('"TEMPLATE ', 1)[1].split("\\n")[0]
    assert tried and "killed" not in tried, tried
    scores = fixture_courses.scores(course, MODULE)
    assert scores["a-probe"] == scores["c-probe"] == scores["e-probe"]
    assert all(score == maximum for score, maximum in scores["e-probe"].values())
