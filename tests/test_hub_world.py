"""A JupyterLab terminal on a real JupyterHub is a login shell: what it has on PATH, before and after a profile.d file.

Two ordinary Unix users (one whose login shell is bash, one with ``/bin/sh``, ``useradd``'s default on Debian) get
servers from a real JupyterHub (``hub_world``), whose spawner puts a shared environment's ``bin/`` first on PATH, as
the README's ``c.Spawner.environment`` does.  Lines are typed into each server's terminal as a person would.  The
terminal's shell reads ``/etc/profile``, which on Debian sets PATH afresh: the environment is gone, ``nbgrader`` is
"command not found" and ``python3`` is the system's.  An administrator's ``/etc/profile.d`` file puts it back for
every login shell.  A non-login ``bash -ec`` (how a test types lines with ``runuser``) keeps the spawner's PATH,
which is why such a test cannot see any of this.

Needs root (``useradd``, the hub's spawner), ``configurable-http-proxy`` and the system's Python (``/usr/bin/python3``,
which other users can run) of this suite's version; everything it makes is removed, on failure too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_PYTHON = "/usr/bin/python3"
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"
USERS = {"tlh-ada": "/bin/bash", "tlh-bob": "/bin/sh"}  # name: login shell
PROFILE_D = "torch-ledger-hub-world.sh"
# what the administrator writes (the README's file, once it has one, replaces this text): the environment first on
# PATH in every login shell, after /etc/profile has set PATH afresh
PROFILE_D_TEXT = """\
# the course's environment first on PATH in login shells (a JupyterLab terminal is one)
PATH="{bin}:$PATH"
export PATH
"""
LINES = ["echo $0", "echo $PATH", "which jupyterhub-singleuser nbgrader python3", "id -un",
         "python3 -c 'import sys; print(sys.prefix)'", "echo $TORCH_LEDGER_ENV"]
NBGRADER = "nbgrader --version"  # after the fix typed by one user only: importing nbgrader takes seconds


def _why_not() -> str:
    if os.geteuid() != 0:
        return "needs root: Unix users (useradd) and a hub that spawns servers as them"
    for tool in ("useradd", "userdel", "runuser", "configurable-http-proxy"):
        if shutil.which(tool) is None:
            return f"needs {tool} on PATH"
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        return "needs jupyterhub (pip install jupyterhub)"
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return f"needs the system's Python ({SYSTEM_PYTHON}) to build an environment other users can run"
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                           capture_output=True, text=True)
    if probe.stdout.strip() != str(sys.version_info[:2]):
        return f"the system's Python is {probe.stdout.strip()}, this suite's {sys.version_info[:2]}: they cannot share packages"
    if Path("/etc/profile.d", PROFILE_D).exists():
        return f"/etc/profile.d/{PROFILE_D} exists on this machine"
    return ""


pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(_why_not()), reason=_why_not() or "-")]


def _remove_users() -> None:
    from hub_world import kill_processes_of

    kill_processes_of([name for name in USERS if _exists(name)])
    for name in USERS:
        subprocess.run(["userdel", "-r", name], capture_output=True)


def _exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


@pytest.fixture(scope="module")
def world():
    """A running hub with one server for each of ``USERS``; yields ``(hub, env_bin, spawner's PATH)``."""
    from hub_world import HubWorld, let_users_traverse, make_shared_environment, restore_modes

    top = Path(tempfile.mkdtemp(prefix="tlh-world-"))
    top.chmod(0o755)
    opened = let_users_traverse(ROOT, Path(sys.prefix))
    hub = None
    try:
        _remove_users()  # a run stopped before its cleanup
        for name, shell in USERS.items():
            subprocess.run(["useradd", "-m", "-s", shell, name], check=True)
        env_bin = make_shared_environment(top / "env")
        path = f"{env_bin}:/usr/local/bin:/usr/bin:/bin"
        config = f"c.Spawner.environment = {{'PATH': {path!r}, 'TORCH_LEDGER_ENV': {str(env_bin.parent)!r}}}"
        hub = HubWorld(env_bin, config).start()
        for name in USERS:
            hub.add_user(name)
        hub.spawn(*USERS)
        yield hub, env_bin, path
    finally:
        if hub is not None:
            began = time.monotonic()
            hub.close()
            print(f"\nhub_world timings (s): {hub.timings}, close {time.monotonic() - began:.1f}")
        _remove_users()
        restore_modes(opened)
        shutil.rmtree(top, ignore_errors=True)


def _typed(hub, name: str, lines=LINES) -> dict[str, tuple[str, int | None]]:
    return {line: (output, status) for line, output, status in hub.type_lines(name, lines)}


@pytest.mark.parametrize("name", USERS)
def test_a_hub_terminal_is_a_login_shell_that_loses_the_spawners_path(world, name):
    hub, env_bin, path = world
    server = hub.server_environment(name)
    assert server["PATH"] == path, server  # the spawner gave the server the environment first on PATH
    assert hub.server("GET", name, "lab").status_code == 200  # the page a student lands on
    typed = _typed(hub, name, [*LINES, NBGRADER])
    assert typed["id -un"] == (f"{name}\n", 0)
    assert typed["echo $0"] == (f"{USERS[name]}\n", 0)  # $SHELL -l, as jupyter_server starts it
    seen_path = typed["echo $PATH"][0].strip()
    assert str(env_bin) not in seen_path.split(":"), seen_path
    assert seen_path != path
    # what /etc/profile sets for an ordinary user (and ~/.profile adds nothing: no ~/bin, no ~/.local/bin)
    login = subprocess.run([RUNUSER, "-u", name, "--", "env", "-i", "sh", "-c", ". /etc/profile >/dev/null 2>&1; echo $PATH"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert seen_path == login
    assert typed["which jupyterhub-singleuser nbgrader python3"] == (f"{SYSTEM_PYTHON}\n", 1)
    output, status = typed[NBGRADER]
    assert status == 127 and "not found" in output, typed[NBGRADER]
    assert typed["python3 -c 'import sys; print(sys.prefix)'"] == ("/usr\n", 0)  # the system's, not the environment's
    assert typed["echo $TORCH_LEDGER_ENV"] == (f"{env_bin.parent}\n", 0)  # the spawner's other variables stay


def test_a_non_login_shell_keeps_the_spawners_path_and_a_login_shell_does_not(world):
    """What a test typing lines with ``runuser ... bash -ec`` sees, against ``bash -l`` outside the hub."""
    hub, env_bin, path = world
    name = "tlh-ada"
    env = {**hub.server_environment(name)}
    script = "echo $PATH; command -v nbgrader || echo none"
    plain = subprocess.run([RUNUSER, "-u", name, "--", "bash", "-ec", script], env=env, cwd="/",
                           capture_output=True, text=True, check=True).stdout.split()
    login = subprocess.run([RUNUSER, "-u", name, "--", "bash", "-lc", script], env=env, cwd="/",
                           capture_output=True, text=True, check=True).stdout.split()
    assert plain == [path, f"{env_bin}/nbgrader"]
    assert login[0] != path and str(env_bin) not in login[0].split(":") and login[1] == "none", login


@pytest.mark.parametrize("name", USERS)
def test_a_profile_d_file_puts_the_environment_first_in_every_login_shell(world, name):
    from hub_world import profile_d

    hub, env_bin, path = world
    with profile_d(PROFILE_D, PROFILE_D_TEXT.format(bin=env_bin)):
        typed = _typed(hub, name, [*LINES, NBGRADER] if name == "tlh-ada" else LINES)  # a new terminal, no restart
    seen_path = typed["echo $PATH"][0].strip().split(":")
    assert seen_path[0] == str(env_bin), seen_path
    assert typed["which jupyterhub-singleuser nbgrader python3"] == (
        "".join(f"{env_bin}/{program}\n" for program in ("jupyterhub-singleuser", "nbgrader", "python3")), 0)
    if NBGRADER in typed:  # the environment's interpreter (the system's Python), this suite's nbgrader
        output, status = typed[NBGRADER]
        assert status == 0 and f"Python version {sys.version_info.major}.{sys.version_info.minor}." in output, output
        assert f"nbgrader version {version('nbgrader')}" in output, output
    assert typed["python3 -c 'import sys; print(sys.prefix)'"] == (f"{env_bin.parent}\n", 0)
    assert typed["id -un"] == (f"{name}\n", 0) and typed["echo $0"] == (f"{USERS[name]}\n", 0)
    assert typed["echo $TORCH_LEDGER_ENV"] == (f"{env_bin.parent}\n", 0)
    assert not Path("/etc/profile.d", PROFILE_D).exists()


def test_each_typed_line_gets_its_own_output_and_exit_status(world):
    """What the lead's README lines will meet: output without a final newline, standard error, a command the shell
    needs more lines of (a here-document), state kept from one line to the next, long output, a failing line."""
    hub, env_bin, path = world
    lines = ["printf abc", "echo oops >&2", "cd / && pwd", "pwd", "cat > ~/note.txt <<'END'", "one line", "END",
             "cat ~/note.txt", "seq 1 5000 | wc -l; seq 1 5000 | tail -1", "(exit 3)", "echo $? $((1 + 2))"]
    typed = hub.type_lines("tlh-ada", lines)
    assert [(line, output, status) for line, output, status in typed] == [
        ("printf abc", "abc", 0), ("echo oops >&2", "oops\n", 0), ("cd / && pwd", "/\n", 0), ("pwd", "/\n", 0),
        ("cat > ~/note.txt <<'END'", "", None), ("one line", "", None), ("END", "", 0),
        ("cat ~/note.txt", "one line\n", 0), ("seq 1 5000 | wc -l; seq 1 5000 | tail -1", "5000\n5000\n", 0),
        ("(exit 3)", "", 3), ("echo $? $((1 + 2))", "3 3\n", 0)]
    with pytest.raises(ValueError, match="4094"):
        hub.type_lines("tlh-ada", ["echo " + "x" * 5000])


def test_a_users_token_opens_no_terminal_on_another_users_server(world):
    import websocket
    from hub_world import HubError

    hub, env_bin, path = world
    ada = hub.token("tlh-ada")
    assert hub.server("POST", "tlh-bob", "api/terminals", token=ada, expect=None).status_code == 403
    assert hub.server("GET", "tlh-bob", "api/terminals", token="not-a-token", expect=None).status_code == 403
    name = hub.server("POST", "tlh-bob", "api/terminals").json()["name"]  # bob's own
    try:
        with pytest.raises(websocket.WebSocketBadStatusException, match="403"):
            websocket.create_connection(f"ws://127.0.0.1:{hub.port}/user/tlh-bob/terminals/websocket/{name}",
                                        header=[f"Authorization: token {ada}"], timeout=30)
    finally:
        hub.server("DELETE", "tlh-bob", f"api/terminals/{name}")
    with pytest.raises(HubError, match="404"):
        hub.server("GET", "tlh-bob", f"api/terminals/{name}")
