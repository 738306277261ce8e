"""Grading on a shared machine: the README's "Grading on a JupyterHub" section, typed as written.

The section's blocks are read from the README and run in order, each by the Unix user it is written for: the
administrator's block as root (the environment at ``/opt/torch-ledger``, the exchange at
``/srv/nbgrader/exchange``, ``/etc/jupyter/nbgrader_config.py``, private homes), the spawner's environment
taken from the section's ``c.Spawner.environment`` for every user, the instructor's blocks as an ordinary user in
``~/course``, the students' as real students (one of them submits twice, the second time late), typed into the
terminals of their servers on a real JupyterHub (``tests/hub_world.py``: pip's ``jupyterhub`` and npm's
``configurable-http-proxy``) that loads the section's spawner configuration itself; a JupyterLab terminal is a
login shell, which reads ``/etc/profile``.  What the test changes in the text, and why:

* the two ``pip install`` lines: the environment is made to see this suite's packages through a ``.pth`` file
  (minutes of the suite for the same files; ``make venv`` installs them for real in every CI run);
* the clone's URL: a local repository of this checkout's tracked files (no network);
* the due date: one between the students' two submissions.

Then four attacks, each from a student account: a submission that reaches for the solutions and the gradebook
(the environment at the README's path, where the sandbox once failed open), an IPython startup file planted in
/tmp for an unconfined run, a submission forged in a classmate's name, and renaming the course's exchange folder.

Needs root (``useradd``, ``runuser``), bubblewrap, and a machine whose ``/opt/torch-ledger`` and
``/etc/jupyter/nbgrader_config.py`` are free (the test removes what it made); CI runs as root on a fresh machine.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hub_world import HubWorld, let_users_traverse, restore_modes, share_packages

from autograder.dev import fixture_courses, nbtools

ROOT = Path(__file__).resolve().parents[1]
MODULE = "01-tensors"
SYSTEM_PYTHON = "/usr/bin/python3"
USERS = {"instructor": "tlg-instructor", "ada": "tlg-ada", "bob": "tlg-bob", "eve": "tlg-eve"}
RUNUSER = shutil.which("runuser") or "runuser"
ENV = Path("/opt/torch-ledger")
EXCHANGE = Path("/srv/nbgrader/exchange")
HUB_CONFIG = Path("/etc/jupyter/nbgrader_config.py")
PROFILE = Path("/etc/profile.d/torch-ledger.sh")  # the README's: the environment first in a login shell
LOGIN_DEFS = Path("/etc/login.defs")
COURSE_ID = "torch-ledger"  # what the README's hub config sets
URL = "https://github.com/torch-ledger/torch-ledger-course"
SECTION = "### Grading on a JupyterHub, as an ordinary user"


def _why_not() -> str:
    if os.geteuid() != 0:
        return "needs root to create Unix users (useradd); CI runs as root"
    for tool in ("useradd", "userdel", "runuser", "make", "bwrap", "git", "configurable-http-proxy"):
        if shutil.which(tool) is None:
            return f"needs {tool} on PATH"
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return f"needs the system's Python ({SYSTEM_PYTHON}) to build an environment other users can run"
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                           capture_output=True, text=True)
    if probe.stdout.strip() != str(sys.version_info[:2]):
        return f"the system's Python is {probe.stdout.strip()}, this suite's {sys.version_info[:2]}: they cannot share packages"
    for taken in (ENV, HUB_CONFIG, EXCHANGE / COURSE_ID, PROFILE):
        if taken.exists():
            return f"{taken} exists on this machine: the README's procedure would overwrite it"
    return ""


pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(_why_not()), reason=_why_not() or "-")]


def section_blocks(readme: Path = ROOT / "README.md") -> list[tuple[str, str, str]]:
    """``(who, language, code)`` of each fenced block of the README's hub section, ``who`` from the bold label
    before it (administrator, spawner, instructor, student)."""
    text = readme.read_text()
    body = text[text.index(SECTION):]
    body = body[:body.index("\n### ", len(SECTION))]
    blocks, who = [], ""
    for match in re.finditer(r"\*\*([^*]+)\*\*|```(\w+)\n(.*?)```|jupyterhub_config", body, re.S):
        label = match.group(1)
        if label:
            who = next((w for w in ("administrator", "instructor", "student") if w in label.lower()), who)
        elif match.group(0) == "jupyterhub_config":
            who = "spawner"
        else:
            blocks.append((who, match.group(2), match.group(3)))
    return blocks


class Hub:
    """The machine as the README leaves it, and a way to type commands as each of its users."""

    def __init__(self, top: Path, spawner: dict) -> None:
        self.top, self.spawner = top, spawner
        self.env, self.exchange = ENV, EXCHANGE
        self.course = Path(pwd.getpwnam(USERS["instructor"]).pw_dir) / "course"
        self.outputs: dict[str, str] = {}
        self.jupyterhub: HubWorld | None = None  # the real JupyterHub the students work on

    def home(self, who: str) -> Path:
        return Path(pwd.getpwnam(USERS[who]).pw_dir)

    def environment(self, who: str) -> dict:
        """What the hub's spawner gives a user's server (the README's ``c.Spawner.environment``), and a login's."""
        return {"HOME": str(self.home(who)), "USER": USERS[who], "LOGNAME": USERS[who], "LANG": "C.UTF-8",
                "TORCH_LEDGER_PROGRESS": "off", "MPLBACKEND": "Agg", "JUPYTERHUB_USER": USERS[who], **self.spawner}

    def run(self, who: str, command: str, *, cwd: Path | None = None, check: bool = True,
            timeout: float = 300) -> subprocess.CompletedProcess:
        """``command`` (a shell script) typed by ``who`` in ``cwd`` (default: their home)."""
        proc = subprocess.run([RUNUSER, "-u", USERS[who], "--", "bash", "-ec", command],
                              cwd=str(cwd or self.home(who)), env=self.environment(who),
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{who} $ {command}\nexit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
        return proc

    def can_read(self, who: str, path: Path) -> bool:
        quoted = shlex.quote(str(path))
        return self.run(who, f"cat {quoted} > /dev/null 2>&1 || ls {quoted} > /dev/null 2>&1", check=False).returncode == 0


def _administrator(code: str) -> None:
    """The administrator's block, as root, as written but for the two installs (see the module's docstring: the
    environment sees this suite's packages, and its Jupyter server extensions, as ``pip install`` would give it)."""
    env = {**os.environ, "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    parts, script = [], []
    for line in code.replace("\\\n", "").splitlines():
        if re.match(r"\S+/bin/pip install ", line):
            parts.append(script)
            script = []
        else:
            script.append(line)
    parts.append(script)
    for i, lines in enumerate(part for part in parts if part):
        if i:
            share_packages(ENV)
        proc = subprocess.run(["bash", "-ec", "\n".join(lines)], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, f"administrator $ {lines}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"


def _add_users() -> None:
    """The hub's users, made after the administrator's block (their homes get its HOME_MODE)."""
    for name in USERS.values():
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        subprocess.run(["userdel", "-r", name], capture_output=True)
        subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], check=True)


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


def _student(hub: Hub, who: str, code: str, work=None) -> str:
    """The students' block, line by line, typed by ``who`` into a terminal of their server on the real JupyterHub
    (a login shell); ``work`` (their editing) runs before they submit."""
    out = []
    for line in code.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("nbgrader submit") and work is not None:
            work()
        [(_, output, status)] = hub.jupyterhub.type_lines(USERS[who], [line], timeout=300)
        assert status == 0, f"{who} typed into a JupyterHub terminal: {line}\nexit {status}\n{output[-3000:]}"
        out.append(output)
    return "".join(out)


def _local_clone_source(top: Path) -> Path:
    """A repository of this checkout's tracked files (as committed or edited now), for the README's clone URL."""
    repo = top / "torch-ledger-course"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    git = ["git", "-c", "user.name=course", "-c", "user.email=course@example.org"]
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "course"], cwd=repo, check=True)
    subprocess.run(["chmod", "-R", "a+rX", str(repo)], check=True)
    return repo


@pytest.fixture(scope="module")
def hub():
    """The README's section, block by block, each by its user; yields the hub, what each step printed and the
    timings."""
    blocks = section_blocks()
    assert [who for who, *_ in blocks] == ["administrator", "spawner", "instructor", "student", "instructor",
                                           "student"], [who for who, *_ in blocks]
    top = Path(tempfile.mkdtemp(prefix="tl-hub-"))
    top.chmod(0o755)
    umask = os.umask(0o022)
    defs = LOGIN_DEFS.read_bytes() if LOGIN_DEFS.exists() else None
    made = [p for p in (Path("/etc/jupyter"), Path("/srv/nbgrader")) if not p.exists()]
    opened = let_users_traverse(ROOT, Path(sys.prefix))  # this suite's checkout and environment
    try:
        start = time.monotonic()
        _administrator(blocks[0][2])
        namespace = {"c": type("Config", (), {})()}
        namespace["c"].Spawner = type("Spawner", (), {})()
        exec(blocks[1][2], namespace)  # the README's spawner environment  # noqa: S102
        _add_users()
        repo = _local_clone_source(top)  # the instructor's to clone from (git refuses another user's repository)
        subprocess.run(["chown", "-R", f"{USERS['instructor']}:", str(repo)], check=True)
        hub = Hub(top, dict(namespace["c"].Spawner.environment))
        timings = {"administrator": time.monotonic() - start}
        start = time.monotonic()
        hub.jupyterhub = HubWorld(ENV / "bin", blocks[1][2]).start()  # JupyterHub loads the README's spawner block
        for who in ("ada", "bob"):
            hub.jupyterhub.add_user(USERS[who])
        hub.jupyterhub.spawn(USERS["ada"], USERS["bob"])
        timings["JupyterHub and two servers"] = time.monotonic() - start
        due = {}

        def release_block(code: str) -> str:
            code = code.replace(URL, str(repo))
            return re.sub(r'--duedate="[^"]*"', lambda m: f'--duedate="{due["at"]:%Y-%m-%d %H:%M:%S} UTC"', code)

        solution = nbtools.read(ROOT / "solutions" / MODULE / f"{MODULE}.ipynb")
        # The instructor releases with a due date still to come; each student fetches, works and submits; bob
        # submits again, late.
        due["at"] = datetime.now(timezone.utc).replace(microsecond=0)
        due["at"] = due["at"].replace(year=due["at"].year + 1)
        hub.outputs["release"] = hub.run("instructor", release_block(blocks[2][2]), timeout=600).stdout
        students = blocks[3][2]
        hub.outputs["ada"] = _student(hub, "ada", students, lambda: _work(hub, "ada", _answers(solution)))
        hub.outputs["bob"] = _student(hub, "bob", students)  # as fetched: nothing attempted
        time.sleep(1.1)
        due["at"] = datetime.now(timezone.utc)
        hub.run("instructor", f"nbgrader db assignment add {MODULE} --duedate='{due['at']:%Y-%m-%d %H:%M:%S} UTC'",
                cwd=hub.course)  # the instructor moves the due date: bob's next submission is late
        time.sleep(1.1)
        _work(hub, "bob", _answers(solution, leave_out="pairwise_sq_dists"))
        hub.run("bob", f"nbgrader submit {MODULE}")  # late, and better
        hub.listed = hub.run("bob", "nbgrader list --cached 2>&1").stdout  # what bob submitted, as he sees it
        # eve forges a submission in ada's name, after ada's own: an empty notebook in a folder eve made.
        forged = f"{USERS['ada']}+{MODULE}+{datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S.%f} UTC+forged"
        inbound = hub.exchange / COURSE_ID / "inbound"
        hub.run("eve", f"nbgrader fetch_assignment {MODULE} && mkdir {shlex.quote(str(inbound / forged))} && "
                       f"cp {MODULE}/{MODULE}.ipynb {shlex.quote(str(inbound / forged))}/ && "
                       f"date -u '+%Y-%m-%d %H:%M:%S.%6N UTC' > {shlex.quote(str(inbound / forged / 'timestamp.txt'))}")
        # ... and plants an IPython startup file where an unconfined kernel with fixed paths would find it.
        hub.run("eve", "mkdir -p /tmp/ipython/profile_default/startup && echo \"open('/tmp/eve-was-here', 'w')\" "
                       "> /tmp/ipython/profile_default/startup/00-eve.py && chmod -R a+rwX /tmp/ipython")
        for name, rows in (("canvas-roster.csv", CANVAS_ROSTER), ("moodle-grades.csv", MOODLE_ROSTER)):
            roster = hub.course / name  # as the instructor downloaded them
            roster.write_text(rows.format(**USERS, downloaded=DOWNLOADED))
            os.chown(roster, pwd.getpwnam(USERS["instructor"]).pw_uid, -1)
        # ... and, while the instructor grades, watches for the instructor's listening ports and tries each one
        attacker = subprocess.Popen([RUNUSER, "-u", USERS["eve"], "--", str(ENV / "bin" / "python"), "-c",
                                     PORT_ATTACK.replace("UID", str(pwd.getpwnam(USERS["instructor"]).pw_uid))],
                                    cwd=hub.home("eve"), env=hub.environment("eve"), stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
        ready = attacker.stdout.readline()  # watching (its imports done) before the instructor starts
        assert ready.startswith("WATCHING"), ready + attacker.stdout.read()[-2000:]
        start = time.monotonic()
        graded = hub.run("instructor", blocks[4][2], cwd=hub.course, timeout=900)
        attacker.terminate()
        hub.attack = attacker.communicate(timeout=60)[0]
        timings["collect, grade, feedback, export"] = time.monotonic() - start
        hub.outputs["grading"] = graded.stdout + graded.stderr
        for who in ("ada", "bob"):
            hub.outputs[f"{who} feedback"] = _student(hub, who, blocks[5][2])
        hub.similar = hub.run("instructor", f"make similarity ASSIGNMENT={MODULE}", cwd=hub.course).stdout
        hub.timings, hub.solution, hub.due = timings, solution, due["at"]
        yield hub
    finally:
        if "hub" in locals() and hub.jupyterhub is not None:
            hub.jupyterhub.close()
        os.umask(umask)
        restore_modes(opened)
        _remove_users()
        if defs is not None:
            LOGIN_DEFS.write_bytes(defs)
        for path in (ENV, HUB_CONFIG, PROFILE, EXCHANGE / COURSE_ID, Path("/tmp/eve-was-here"), Path("/tmp/ipython"),
                     Path("/tmp/eve-ran-as-the-instructor"), *made):
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
        shutil.rmtree(top, ignore_errors=True)


#: The rosters as the LMSs export them: Canvas's gradebook export (its "Points Possible" and "Manual Posting"
#: rows and the Test Student), and Moodle's default grade export (e-mail addresses, "Last downloaded" column).
#: carol is enrolled, never submitted, and already has a grade in the LMS.
CANVAS_ROSTER = ("Student,ID,SIS User ID,SIS Login ID,Section,01-tensors (1234)\n"
                 "    Manual Posting,,,,,\n    Points Possible,,,,,12.00\n"
                 '"Example, Ada",1,S1,{ada},Lab,\n"Example, Bob",2,S2,{bob},Lab,\n'
                 '"Example, Carol",3,S3,carol,Lab,7.00\n"Student, Test",4,,,Lab,\n')
MOODLE_ROSTER = ("First name,Last name,ID number,Institution,Department,Email address,"
                 "Assignment: 01-tensors (Real),Last downloaded from this course\n"
                 "Ada,Example,1,,,{ada}@example.org,,{downloaded}\n"
                 "Bob,Example,2,,,{bob}@example.org,,{downloaded}\n"
                 "Carol,Example,3,,,carol@example.org,7.00,{downloaded}\n")
#: When the roster was downloaded from Moodle (its import refuses a file downloaded long ago): an hour ago.
DOWNLOADED = int(time.time()) - 3600


#: A student's process that finds the listening TCP ports of the instructor's uid in /proc/net/tcp while they grade,
#: and tries each as a Dask scheduler or worker (a plain client, as any user could start one) and as a web page.
PORT_ATTACK = r'''
import json, signal, sys, threading, time, urllib.request
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
from distributed import Client
from distributed.security import Security
mine = Security.temporary()  # a certificate authority and certificate of the student's own
def listening(uid):
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            f = row.split()
            if f[3] == "0A" and int(f[7]) == uid:
                found.add(int(f[1].rsplit(":", 1)[1], 16))
    return found
def attempt(port):
    result = {}
    for scheme, security in (("tcp", None), ("tls", mine)):
        try:
            with Client(f"{scheme}://127.0.0.1:{port}", timeout="5s", security=security) as client:
                client.run_on_scheduler(lambda: open("/tmp/eve-ran-as-the-instructor", "w").write("x"))
            result[scheme] = "connected"
        except BaseException as error:
            result[scheme] = f"{type(error).__name__}: {str(error)[:160]}"
    try:
        result["http"] = urllib.request.urlopen(f"http://127.0.0.1:{port}/info/main/workers.html", timeout=3).status
    except BaseException as error:
        result["http"] = getattr(error, "code", type(error).__name__)
    print("TRIED " + json.dumps({port: result}), flush=True)
seen = set()
print("WATCHING", flush=True)
deadline = time.monotonic() + 900
while time.monotonic() < deadline:  # every port as it appears, each tried at once in a thread of its own
    for port in listening(UID) - seen:
        seen.add(port)
        threading.Thread(target=attempt, args=(port,), daemon=True).start()
    time.sleep(0.05)
'''


def _scores(hub: Hub) -> dict:
    return fixture_courses.scores(hub.course, MODULE)


def _record(hub: Hub) -> dict:
    return json.loads((hub.course / "reports" / MODULE / "grading.json").read_text())


def test_the_students_lines_ran_in_a_login_shell_of_a_real_jupyterhub_with_the_environment_first(hub):
    """The students' lines above were typed into their servers' terminals; a terminal is a login shell, whose PATH
    /etc/profile sets anew: the README's /etc/profile.d file puts the environment first there again."""
    lines = ["shopt -q login_shell && echo login", "echo $PATH", "command -v nbgrader", "echo $TORCH_LEDGER_ENV"]
    typed = hub.jupyterhub.type_lines(USERS["ada"], lines)
    assert [status for _, _, status in typed] == [0, 0, 0, 0], typed
    shell, path, nbgrader, env = (output.strip() for _, output, _ in typed)
    assert shell == "login" and path.split(":")[0] == str(ENV / "bin"), typed
    assert nbgrader == str(ENV / "bin" / "nbgrader") and env == str(ENV), typed
    print("JupyterHub:", {k: v for k, v in hub.jupyterhub.timings.items() if not isinstance(v, list)})


def test_the_readme_procedure_grades_in_the_sandbox(hub):
    """The environment at the README's /opt/torch-ledger (where the package was once mounted too, and the sandbox
    fell open): every kernel confined, asked for by nobody, and the run's time shown."""
    record = _record(hub)
    sandbox = record["sandbox"]
    assert sandbox["mode"] == "bwrap" and sandbox["confined"] is True and sandbox["asked"] == "auto", sandbox
    assert record["package"]["kernel"] and not record["package"]["kernel"].startswith(str(ENV) + "/autograder")
    assert "PACKAGES DIFFER" not in hub.outputs["grading"], hub.outputs["grading"][-3000:]
    print("README hub section:", {k: round(v, 1) for k, v in hub.timings.items()}, "sandbox:", sandbox["mode"])


def test_a_submission_forged_in_a_classmates_name_is_refused_and_named(hub):
    """eve made a folder in ada's name, newer than ada's own: ada's is graded (full marks), eve's is kept aside and
    listed with both names, and nobody's grade comes from it."""
    shown = hub.outputs["grading"]
    assert f"REFUSED: a submission in {USERS['ada']}'s name was made by the account {USERS['eve']}" in shown, shown[-3000:]
    kept = list((hub.course / "refused" / MODULE).glob(f"{USERS['ada']}+by+{USERS['eve']}+*"))
    assert kept and (kept[0] / f"{MODULE}.ipynb").is_file()
    assert USERS["eve"] not in _scores(hub)
    assert all(score == maximum for score, maximum in _scores(hub)[USERS["ada"]].values())


def test_a_student_who_finds_the_grading_clusters_ports_cannot_use_them(hub):
    """While the instructor graded, eve read the ports the instructor's processes listened on (/proc/net/tcp) and
    tried each as a Dask scheduler and worker, with a plain client and over TLS without the run's certificate, and
    as a web page: nothing connected, nothing ran as the instructor, no page was served."""
    tried = {}
    for line in hub.attack.splitlines():
        if line.startswith("TRIED "):
            tried.update(json.loads(line[len("TRIED "):]))
    assert tried, hub.attack[-3000:]
    assert not any("connected" in (r["tcp"], r["tls"]) for r in tried.values()), tried
    # the scheduler's port was alive when tried: TLS itself refused the student's certificate
    assert any("certificate" in r["tls"] for r in tried.values()), tried
    assert not any(r["http"] == 200 for r in tried.values()), tried
    assert not Path("/tmp/eve-ran-as-the-instructor").exists()
    assert _record(hub)["engine"]["authenticated"] is True


def test_a_student_cannot_rename_the_courses_exchange_folder(hub):
    assert stat.S_IMODE(hub.exchange.stat().st_mode) == 0o1777
    moved = hub.run("eve", f"mv {hub.exchange / COURSE_ID} {hub.exchange / 'mine'}", check=False)
    assert moved.returncode != 0 and (hub.exchange / COURSE_ID / "inbound").is_dir(), moved.stderr


def test_an_unconfined_run_is_asked_for_by_name_and_runs_nothing_planted_in_tmp(hub):
    """On this machine of several accounts only ``--sandbox off`` grades unconfined; it says so (banner,
    grading.json, exit status 5), and eve's IPython startup file in /tmp/ipython never runs: each kernel has its
    own IPython folder."""
    course = hub.course.parent / "course-unconfined"
    hub.run("instructor", f"cp -a {hub.course} {course}")
    grade = f"python -m autograder grade {MODULE} --student {USERS['ada']} --no-progress"
    off = hub.run("instructor", grade + " --sandbox off", cwd=course, check=False, timeout=600)
    assert off.returncode == 5, off.stdout[-2000:] + off.stderr[-3000:]
    assert "SANDBOX OFF (--sandbox off, asked for)" in off.stderr and "the users of this JupyterHub" in off.stderr
    record = json.loads((course / "reports" / MODULE / "grading.json").read_text())
    assert record["sandbox"]["asked"] == "off" and record["sandbox"]["confined"] is False, record["sandbox"]
    assert not Path("/tmp/eve-was-here").exists(), "a startup file planted in /tmp/ipython ran in a grading kernel"
    assert fixture_courses.scores(course, MODULE)[USERS["ada"]] == _scores(hub)[USERS["ada"]]


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
    """Canvas's and Moodle's import files from the real gradebook, for rosters as the LMSs export them: ada's full
    marks, bob's late submission at 0 (the course's late-penalty rule is "zero"), carol enrolled without a submission
    keeps the 7.00 the LMS already holds; Canvas's Manual Posting row and Test Student left out and named; Moodle's
    "Last downloaded" column carried through.  Both files and the similarity page are the instructor's alone."""
    shown = hub.outputs["grading"]
    rows = list(csv.reader((hub.course / "grades-canvas.csv").read_text().splitlines()))
    assert rows[0][:6] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01-tensors (1234)"], rows[0]
    assert rows[1][0].strip() == "Points Possible" and not any("Manual Posting" in row[0] for row in rows), rows
    by_login = {row[3]: row[5] for row in rows[2:]}
    assert float(by_login[USERS["ada"]]) == float(rows[1][5]) > 0, rows  # full marks
    assert by_login[USERS["bob"]] == "0" and by_login["carol"] == "7.00", rows
    assert not any(row[0] == "Student, Test" for row in rows), rows
    assert "Manual Posting" in shown and "Test Student" in shown and "NOT IN THE ROSTER" not in shown, shown[-3000:]
    moodle = list(csv.DictReader((hub.course / "grades-moodle.csv").read_text().splitlines()))
    grade = {row["Email address"].split("@")[0]: row["Assignment: 01-tensors (Real)"] for row in moodle}
    assert float(grade[USERS["ada"]]) > 0 and grade[USERS["bob"]] == "0" and grade["carol"] == "7.00", moodle
    assert all(row["Last downloaded from this course"] == str(DOWNLOADED) for row in moodle), moodle
    print("grades-canvas.csv:\n" + (hub.course / "grades-canvas.csv").read_text())
    print("grades-moodle.csv:\n" + (hub.course / "grades-moodle.csv").read_text())
    page = hub.course / "reports" / MODULE / "similarity.html"
    assert "wrote" in hub.similar and page.is_file()
    for path in (hub.course / "grades-canvas.csv", hub.course / "grades-moodle.csv", page):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, f"{path} is readable by others"
        assert path.stat().st_uid == pwd.getpwnam(USERS["instructor"]).pw_uid


def test_the_newest_submission_is_graded_and_its_lateness_shown(hub):
    assert hub.listed.count(f"{COURSE_ID} {USERS['bob']} {MODULE}") == 2, hub.listed  # both of bob's submissions, listed to him
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
    hub.run("instructor", f"make collect ASSIGNMENT={MODULE}", cwd=hub.course)
    gradebook = hub.course / "gradebook.db"
    hub.run("instructor", f"chmod 400 {gradebook}")
    try:
        proc = hub.run("instructor", f"{grade} --student {USERS['bob']}", cwd=hub.course, check=False)
    finally:
        hub.run("instructor", f"chmod 600 {gradebook}")
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-3000:]
    shown = proc.stdout + proc.stderr
    assert "Traceback" not in shown, shown[-3000:]
    assert "not graded: internal error" in shown and "readonly database" in shown, shown[-3000:]
    assert _scores(hub) == before  # bob's previous grade stands
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
def _socket_folder():
    # the folder of the kernel's sockets and connection file, bound in from the host: one more file there?
    import sys
    folder = os.path.dirname(sys.argv[sys.argv.index("-f") + 1])
    try:
        with open(os.path.join(folder, "more"), "w") as file:
            file.write("x" * 4096)
        return "written"
    except OSError as error:
        return f"{type(error).__name__}: {error.strerror}"
print("PROBE " + json.dumps({"uid": os.getuid(), "pid": os.getpid(), "templates": _templates(),
                             "sockets": _socket_folder(),
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
    own, sees a fresh home and /tmp and none of the course, cannot write into its socket folder, and the
    template outlives the attempt."""
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
        assert state["sockets"] == "OSError: Read-only file system", (student, state)  # the kernel's view, locked
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


def test_a_cold_kernel_without_root_cannot_write_into_its_socket_folder(hub):
    """As the instructor, --kernels cold: the kernel is bubblewrap's own child, with no stand-in; the grader, which
    owns the user namespace that owns the sandbox's mounts, makes its socket folder read-only in the kernel's view
    once the sockets exist."""
    from test_warm import _probe_of, _with_cell

    from autograder.cohort.course import Course

    course = hub.course.parent / "course-cold"
    hub.run("instructor", f"cp -a {hub.course} {course} && rm -rf {course}/submitted {course}/autograded "
                          f"{course}/reports {course}/feedback")
    folder = course / "submitted" / "a-probe" / MODULE
    folder.mkdir(parents=True)
    (folder / f"{MODULE}.ipynb").write_text(json.dumps(_with_cell(hub.solution, f"COURSE = {str(hub.course)!r}\n"
                                                                   + WARM_PROBE)))
    subprocess.run(["chown", "-R", f"{USERS['instructor']}:", str(course / "submitted")], check=True)
    proc = hub.run("instructor", f"python -m autograder grade {MODULE} --workers 1 --sandbox bwrap --kernels cold "
                                 "--no-progress", cwd=course)
    record = json.loads((course / "reports" / MODULE / "grading.json").read_text())
    assert record["students"]["a-probe"]["kernel"] == "cold", (record["students"], proc.stdout[-2000:])
    state = _probe_of(Course.open(course), "a-probe")
    assert state["sockets"] == "OSError: Read-only file system", state
    assert all(score == maximum for score, maximum in fixture_courses.scores(course, MODULE)["a-probe"].values())
