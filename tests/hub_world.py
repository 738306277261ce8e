"""A real JupyterHub on this machine, for tests: the hub, its proxy, users' servers, and typing into their terminals.

The hub is ``jupyterhub`` (pip) with its proxy ``configurable-http-proxy`` (npm), started as root on 127.0.0.1
(ports picked by binding port 0) in a private temporary folder (its SQLite database, cookie secret and proxy token).
Its ``jupyterhub_config.py`` is this module's settings followed by the caller's own lines, so a test can hand it a
README's ``c.Spawner.environment = {...}`` block and JupyterHub itself loads it.  Each user's single-user server is
started by the ``LocalProcessSpawner`` as that Unix user (the user must exist: ``useradd -m -s /bin/bash NAME``),
from ``jupyterhub-singleuser`` in a shared environment's ``bin/``.  Users, servers and tokens go through the hub's
REST API with an admin service token (the ``null`` authenticator: nobody logs in with a password).

``type_lines`` types lines into a new JupyterLab terminal of a user's server, the way a person does: ``POST
/user/NAME/api/terminals`` through the proxy, then the terminal's websocket (terminado's protocol), so each line
runs in the login shell (``$SHELL -l``) that jupyter_server starts, which reads ``/etc/profile``.  Each line's end
and exit status come from the shell's prompt, made a marker that carries ``$?``; before the first line the shell is
told to stop echoing (``stty -echo``, no line editing), so a line's output is only what its command wrote.  Works
for bash and for sh (dash), whichever is the user's login shell.

Usage (as root)::

    from hub_world import HubWorld, make_shared_environment

    make_shared_environment(Path("/tmp/w/env"))            # a Python other users can run (or share_packages(env))
    config = 'c.Spawner.environment = {"PATH": "/tmp/w/env/bin:/usr/local/bin:/usr/bin:/bin"}'
    with HubWorld(Path("/tmp/w/env/bin"), config) as hub:  # the hub answers /hub/api when this returns
        hub.add_user("tlh-ada")                            # a Unix user of that name must exist
        hub.spawn("tlh-ada")                               # their server, through the REST API, ready
        for line, output, status in hub.type_lines("tlh-ada", ["echo $0", "which nbgrader"]):
            print(line, status, output)                    # echo $0 0 /bin/bash (`bash -l`: no "-bash")
        print(hub.timings)                                 # seconds: hub start, spawns, terminals, lines
    # closed: servers, hub and proxy stopped, leftover processes of the users it added killed, its folder removed

A line that reads standard input (``cat`` alone) takes the following lines as its input, as in a real terminal;
a line the shell needs more of (inside an ``if`` or a here-document) gets status ``None`` and an empty output,
and the line that completes it gets the whole command's output and status.  A line is at most 4094 bytes (the
terminal's line discipline keeps no more without line editing); ``exit`` ends the terminal (``HubError``).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import site
import socket
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import requests
import websocket  # websocket-client, a dependency of jupyter_server

PROXY = shutil.which("configurable-http-proxy") or "/usr/bin/configurable-http-proxy"
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick for port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_terminal_text(text: str) -> str:
    """What a terminal's output says, without its escape sequences and carriage returns."""
    return ESCAPES.sub("", text).replace("\r\n", "\n").replace("\r", "")


class HubError(RuntimeError):
    """The hub, a server or a terminal did not do what was asked; the message carries the hub's log tail."""


class HubWorld:
    """A JupyterHub (and its proxy) run as root for a test; see the module's docstring.

    ``env_bin``: the shared environment's ``bin/`` (its ``jupyterhub-singleuser`` is each user's server).
    ``config``: lines appended to the hub's ``jupyterhub_config.py`` (they may override this class's settings).
    ``start_timeout``: seconds for the hub to answer, and for each server to be ready.
    """

    def __init__(self, env_bin: Path, config: str = "", *, start_timeout: float = 120,
                 python: str = sys.executable, proxy: str = PROXY) -> None:
        self.env_bin, self.config, self.start_timeout = Path(env_bin), config, start_timeout
        self.python, self.proxy = python, proxy
        self.folder: Path | None = None
        self.proc: subprocess.Popen | None = None
        self.port = self.url = None
        self.users: list[str] = []
        self.tokens: dict[str, str] = {}
        self.timings: dict = {}  # seconds: 'hub start', 'spawn NAME', 'terminals' [...], 'lines' [(user, line, s)]
        self._admin = secrets.token_hex(32)
        self._session = requests.Session()

    # -- the hub ---------------------------------------------------------------------------------------------------

    def config_text(self) -> str:
        """The ``jupyterhub_config.py`` the hub loads."""
        folder = self.folder
        lines = [
            "c = get_config()  # noqa",
            f"c.JupyterHub.bind_url = 'http://127.0.0.1:{self.port}'",
            "c.JupyterHub.hub_ip = '127.0.0.1'",
            f"c.JupyterHub.hub_port = {free_port()}",
            f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{free_port()}'",
            f"c.ConfigurableHTTPProxy.command = [{self.proxy!r}]",
            f"c.ConfigurableHTTPProxy.pid_file = {str(folder / 'proxy.pid')!r}",
            f"c.JupyterHub.db_url = {'sqlite:///' + str(folder / 'jupyterhub.sqlite')!r}",
            f"c.JupyterHub.cookie_secret_file = {str(folder / 'jupyterhub_cookie_secret')!r}",
            f"c.JupyterHub.pid_file = {str(folder / 'jupyterhub.pid')!r}",
            "c.JupyterHub.authenticator_class = 'null'",
            "c.JupyterHub.spawner_class = 'localprocess'",
            f"c.JupyterHub.services = [{{'name': 'hub-world', 'api_token': {self._admin!r}}}]",
            "c.JupyterHub.load_roles = [{'name': 'admin', 'services': ['hub-world']}]",
            "c.JupyterHub.tornado_settings = {'slow_spawn_timeout': 0, 'slow_stop_timeout': 0}  # the API answers at once",
            "c.JupyterHub.cleanup_servers = False  # close() stops them, sooner than the hub's backoff",
            f"c.Spawner.cmd = [{str(self.env_bin / 'jupyterhub-singleuser')!r}]",
            "c.Spawner.default_url = '/lab'",
            "c.Spawner.notebook_dir = '~'",
            f"c.Spawner.start_timeout = {int(self.start_timeout)}",
            f"c.Spawner.http_timeout = {int(self.start_timeout)}",
            "# the caller's lines",
            self.config,
        ]
        return "\n".join(lines) + "\n"

    def start(self) -> HubWorld:
        """Start the hub and its proxy; returns when the hub answers ``/hub/api`` through the proxy."""
        if os.geteuid() != 0:
            raise HubError("a hub that spawns servers as other Unix users runs as root")
        if not os.access(self.env_bin / "jupyterhub-singleuser", os.X_OK):
            raise HubError(f"{self.env_bin / 'jupyterhub-singleuser'}: no such program (the servers' command)")
        began = time.monotonic()
        self.folder = Path(tempfile.mkdtemp(prefix="hub-world-"))  # mode 0700: the database and secrets
        for attempt in range(3):  # a port picked here may be taken by someone else before the hub binds it
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            (self.folder / "jupyterhub_config.py").write_text(self.config_text())
            env = {  # the hub's own: env_keep passes PATH, LANG, PYTHONPATH, VIRTUAL_ENV... on to every server
                "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
                "HOME": str(self.folder), "CONFIGPROXY_AUTH_TOKEN": secrets.token_hex(32)}
            self._log = open(self.folder / "jupyterhub.log", "wb")  # noqa: SIM115
            self.proc = subprocess.Popen([self.python, "-m", "jupyterhub", "-f",
                                          str(self.folder / "jupyterhub_config.py")],
                                         cwd=self.folder, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                self._wait(self._hub_answers, "the hub to answer /hub/api")
                break
            except HubError:
                if attempt == 2 or not self._port_taken():
                    raise
                self._end_session()
                self._log.close()
        self.timings["hub start"] = time.monotonic() - began
        return self

    def __enter__(self) -> HubWorld:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc) -> None:
        self.close()

    def log(self, tail: int = 6000) -> str:
        """The last ``tail`` characters of the hub's log (its proxy's and servers' output included)."""
        try:
            return (self.folder / "jupyterhub.log").read_text(errors="replace")[-tail:]
        except (OSError, TypeError):
            return ""

    def _port_taken(self) -> bool:
        return "address already in use" in self.log(10**6).lower()

    def _hub_answers(self) -> bool:
        if self._port_taken():  # the proxy, its public port taken, runs on (its API port works) and the hub too
            raise HubError(f"a port picked for the hub was taken before it could listen\n{self.log()}")
        return self._answers("/hub/api")

    def _answers(self, path: str) -> bool:
        try:
            return self._session.get(self.url + path, timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def _wait(self, ready, what: str, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.start_timeout)
        while True:
            if self.proc is not None and self.proc.poll() is not None:
                raise HubError(f"the hub exited ({self.proc.returncode}) while waiting for {what}\n{self.log()}")
            if ready():
                return
            if time.monotonic() > deadline:
                raise HubError(f"timed out after {timeout or self.start_timeout:.0f} s waiting for {what}\n{self.log()}")
            time.sleep(0.1)

    def api(self, method: str, path: str, *, token: str | None = None, expect=(200, 201, 202, 204), **kw):
        """A call to the hub's REST API (``path`` after ``/hub/api``) with the admin token (or ``token``)."""
        r = self._session.request(method, f"{self.url}/hub/api{path}", timeout=30,
                                  headers={"Authorization": f"token {token or self._admin}"}, **kw)
        if expect and r.status_code not in expect:
            raise HubError(f"{method} /hub/api{path}: {r.status_code} {r.text[:500]}\n{self.log(3000)}")
        return r

    # -- users and their servers -----------------------------------------------------------------------------------

    def add_user(self, name: str) -> None:
        """A hub user for the existing Unix user ``name`` (its leftover processes are killed by ``close``)."""
        import pwd

        if pwd.getpwnam(name).pw_uid == 0:
            raise HubError(f"{name} is root: a hub user here is an ordinary Unix user")
        self.users.append(name)
        self.api("POST", f"/users/{name}", expect=(201, 409))

    def token(self, name: str) -> str:
        """An API token of ``name`` (made once through the REST API), good for their server too."""
        if name not in self.tokens:
            r = self.api("POST", f"/users/{name}/tokens", json={"note": "hub-world", "expires_in": 3600})
            self.tokens[name] = r.json()["token"]
        return self.tokens[name]

    def spawn(self, *names: str, timeout: float | None = None) -> dict[str, float]:
        """Start the servers of ``names`` (all at once) through the REST API and wait until the hub calls each
        ready; returns the seconds each took."""
        began, took = time.monotonic(), {}
        for name in names:
            self.api("POST", f"/users/{name}/server", expect=(201, 202, 400))  # 400: it runs already

        def ready() -> bool:
            for name in set(names) - set(took):
                server = self.api("GET", f"/users/{name}").json().get("servers", {}).get("", {})
                if server.get("ready"):
                    took[name] = self.timings[f"spawn {name}"] = time.monotonic() - began
                elif not server.get("pending") and time.monotonic() - began > 1:
                    raise HubError(f"{name}'s server stopped while starting\n{self.log()}")
            return len(took) == len(set(names))

        self._wait(ready, f"the servers of {', '.join(names)}", timeout)
        return took

    def server_pid(self, name: str) -> int:
        """The process id of ``name``'s running server (the spawner's state, as the hub keeps it)."""
        server = self.api("GET", f"/users/{name}").json()["servers"][""]
        return int(server["state"]["pid"])

    def server_environment(self, name: str) -> dict[str, str]:
        """The environment ``name``'s server was started with (what the spawner gave it)."""
        raw = Path(f"/proc/{self.server_pid(name)}/environ").read_bytes()
        return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)

    def stop_server(self, name: str) -> None:
        """Stop ``name``'s server through the REST API and wait until it is gone (``close`` stops them all)."""
        self.api("DELETE", f"/users/{name}/server", expect=(202, 204, 400))
        self._wait(lambda: not self.api("GET", f"/users/{name}").json().get("servers"), f"{name}'s server to stop")

    def server(self, method: str, name: str, path: str, *, token: str | None = None, expect=(200, 201, 204), **kw):
        """A call to ``name``'s server through the proxy (``path`` after ``/user/NAME/``), with their token."""
        r = self._session.request(method, f"{self.url}/user/{name}/{path}", timeout=30, allow_redirects=False,
                                  headers={"Authorization": f"token {token or self.token(name)}"}, **kw)
        if expect and r.status_code not in expect:
            raise HubError(f"{method} /user/{name}/{path}: {r.status_code} {r.text[:500]}")
        return r

    # -- terminals -------------------------------------------------------------------------------------------------

    def open_terminal(self, name: str, *, timeout: float = 60) -> Terminal:
        """A new terminal of ``name``'s server (``$SHELL -l``), ready for lines."""
        began = time.monotonic()
        r = self.server("POST", name, "api/terminals", expect=None)
        if r.status_code == 404:
            raise HubError(f"{name}'s server has no terminals API (404): its environment does not enable the "
                           "jupyter_server_terminals extension (etc/jupyter/jupyter_server_config.d)")
        if r.status_code != 200:
            raise HubError(f"POST /user/{name}/api/terminals: {r.status_code} {r.text[:500]}")
        terminal = Terminal(self, name, r.json()["name"], timeout=timeout)
        self.timings.setdefault("terminals", []).append(round(time.monotonic() - began, 3))
        return terminal

    def type_lines(self, name: str, lines, timeout: float = 60) -> list[tuple[str, str, int | None]]:
        """Type ``lines`` in a new terminal of ``name``'s server, one by one; ``(line, output, exit status)`` each
        (status ``None``: the shell waits for more of the command). The terminal is closed afterwards."""
        terminal = self.open_terminal(name, timeout=timeout)
        try:
            typed = []
            for line in lines:
                began = time.monotonic()
                typed.append((line, *terminal.type(line, timeout=timeout)))
                self.timings.setdefault("lines", []).append((name, line, round(time.monotonic() - began, 3)))
            return typed
        finally:
            terminal.close()

    # -- the end ---------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the servers, the hub and its proxy; kill what the added users still run; remove the folder."""
        if self.proc is not None and self.proc.poll() is None:
            # each server stopped as the hub would stop it (SIGINT: a clean shutdown), at the same time as the hub
            # and its proxy (SIGTERM), and watched closely (the hub's own backoff adds seconds per server)
            pids = []
            for name in self.users:
                try:
                    pids.append(self.server_pid(name))
                except (requests.RequestException, HubError, KeyError, TypeError, ValueError):
                    pass
            for pid in pids:
                _signal(pid, signal.SIGINT)
            self.proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 30
            while (self.proc.poll() is None or any(_running(pid) for pid in pids)) and time.monotonic() < deadline:
                time.sleep(0.05)
        if self.proc is not None:
            self._end_session()
        for pid_file in ("proxy.pid", "jupyterhub.pid"):  # a proxy the hub could not stop
            pid = _read_pid(self.folder / pid_file) if self.folder else None
            if pid and _is_ours(pid, self.folder):
                _kill(pid)
        kill_processes_of(self.users)
        if getattr(self, "_log", None):
            self._log.close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        self._session.close()


    def _end_session(self) -> None:
        """Kill what is left of the hub's session (the hub, its proxy) and reap the hub."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


class Terminal:
    """One terminal of a user's server: its websocket, and lines typed into its login shell."""

    def __init__(self, hub: HubWorld, user: str, name: str, *, timeout: float = 60) -> None:
        self.hub, self.user, self.name = hub, user, name
        self.marker = secrets.token_hex(6)
        url = f"ws://127.0.0.1:{hub.port}/user/{user}/terminals/websocket/{name}"
        self.ws = websocket.create_connection(url, header=[f"Authorization: token {hub.token(user)}"],
                                              timeout=timeout, suppress_origin=True)
        self.ws.send(json.dumps(["set_size", 50, 400]))
        self.raw = ""  # everything the terminal wrote, as it came
        self._pending = ""
        self.exited = False
        # the shell's prompt becomes a marker with $? (PS2's: it needs more of the command), and the shell writes
        # nothing else of its own: no echo of what is typed, no line editing (bash, and sh: dash expands $? in PS1)
        setup = (f"PS1=\"$(printf '\\037{self.marker} ')\"'$?'\"$(printf '\\036')\"; "
                 f"PS2=\"$(printf '\\037{self.marker} more\\036')\"; unset PROMPT_COMMAND; "
                 "set +o emacs 2>/dev/null; set +o vi 2>/dev/null; stty -echo")
        self._send(setup)
        self._read_until_marker(timeout, "the login shell to start")

    def _send(self, text: str) -> None:
        self.ws.send(json.dumps(["stdin", text + "\r"]))

    def _read_until_marker(self, timeout: float, what: str) -> tuple[str, str]:
        pattern = re.compile(f"\x1f{self.marker} (\\d+|more)\x1e")
        deadline = time.monotonic() + timeout
        while True:
            found = pattern.search(self._pending)
            if found:
                before, self._pending = self._pending[:found.start()], self._pending[found.end():]
                return before, found.group(1)
            left = deadline - time.monotonic()
            if left <= 0 or self.exited:
                why = "the shell exited" if self.exited else f"timed out after {timeout:.0f} s"
                raise HubError(f"{self.user}'s terminal {self.name}: {why} waiting for {what}; it wrote:\n"
                               f"{clean_terminal_text(self._pending)[-3000:]}")
            self.ws.settimeout(left)
            try:
                message = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                continue
            except websocket.WebSocketConnectionClosedException:
                self.exited = True
                continue
            if message[0] == "stdout":
                self.raw += message[1]
                self._pending += message[1]
            elif message[0] == "disconnect":
                self.exited = True

    def type(self, line: str, *, timeout: float = 60) -> tuple[str, int | None]:
        """Type ``line`` and Enter; ``(output, exit status)`` once the shell is back at its prompt."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"one line at a time: {line!r}")
        if len(line.encode()) >= 4095:  # the terminal's line discipline keeps 4095 bytes of a line (no line editing)
            raise ValueError(f"a line of {len(line.encode())} bytes: at most 4094 can be typed here")
        self._send(line)
        output, status = self._read_until_marker(timeout, f"{line!r} to finish")
        return clean_terminal_text(output), (None if status == "more" else int(status))

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001 - closing what may already be gone
            pass
        try:
            self.hub.server("DELETE", self.user, f"api/terminals/{self.name}", expect=None)
        except requests.RequestException:
            pass


# -- the machine ---------------------------------------------------------------------------------------------------

class profile_d:  # noqa: N801 - used as a context manager, like open()
    """``with profile_d("torch-ledger.sh", text):`` a file in ``/etc/profile.d`` (read by every login shell after
    ``/etc/profile``), written as an administrator would (root's, mode 0644) and removed on leaving.  An existing
    file of that name is never overwritten."""

    def __init__(self, name: str, text: str, *, folder: Path = Path("/etc/profile.d")) -> None:
        self.path, self.text = folder / name, text

    def __enter__(self) -> Path:
        if self.path.exists():
            raise FileExistsError(f"{self.path} exists: it is this machine's, not the test's")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "w") as f:
            f.write(self.text)
        os.chmod(self.path, 0o644)
        return self.path

    def __exit__(self, *exc) -> None:
        self.path.unlink(missing_ok=True)


# -- processes -----------------------------------------------------------------------------------------------------

def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _is_ours(pid: int, folder: Path) -> bool:
    """Whether ``pid`` still runs something started in ``folder`` (its working directory), not a reused pid."""
    try:
        return os.readlink(f"/proc/{pid}/cwd") == str(folder)
    except OSError:
        return False


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _kill(pid: int) -> None:
    _signal(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, which its parent has yet to reap, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def processes_of(user: str) -> list[int]:
    """The ids of the processes the Unix user ``user`` runs now."""
    import pwd

    uid = pwd.getpwnam(user).pw_uid
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def kill_processes_of(users) -> None:
    """Kill, by id, every process that the (ordinary, existing) Unix users ``users`` still run."""
    import pwd

    for user in users:
        try:
            if pwd.getpwnam(user).pw_uid == 0:
                continue
        except KeyError:
            continue
        for _ in range(5):  # a process may start one more while the first are killed
            pids = processes_of(user)
            if not pids:
                break
            for pid in pids:
                _kill(pid)
            time.sleep(0.1)


# -- a shared environment ------------------------------------------------------------------------------------------

def make_shared_environment(env: Path, *, python: str = "/usr/bin/python3") -> Path:
    """A virtual environment at ``env`` that other Unix users can run, seeing this interpreter's packages: made
    from ``python`` (a Python under ``/root``, as pyenv installs it, cannot be run by other users) without pip,
    then ``share_packages``.  Returns ``env / "bin"``."""
    subprocess.run([python, "-m", "venv", "--without-pip", str(env)], check=True, capture_output=True)
    return share_packages(env)


def share_packages(env: Path) -> Path:
    """Make the existing virtual environment ``env`` see this interpreter's packages, as if they were installed in
    it: a ``.pth`` file adds this environment's site-packages; its console scripts are written for ``env``'s
    interpreter; ``etc/jupyter`` (it enables the Jupyter server's extensions: terminals, JupyterLab, nbgrader) and
    ``share/jupyter`` (JupyterLab's assets, kernelspecs) are links to this environment's, as ``pip install`` would
    have written them (without them a server starts and the hub calls it ready, but ``/lab`` and
    ``/api/terminals`` answer 404).  The folders down to this environment must be passable by others (see
    ``let_users_traverse``).  Everything in ``env`` is made readable by all.  Returns ``env / "bin"``."""
    inner = Path(subprocess.run([str(env / "bin" / "python"), "-c",
                                 "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                check=True, capture_output=True, text=True).stdout.strip())
    ours = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()})
    (inner / "hub-world.pth").write_text("import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n")
    ours_python = str(Path(sys.prefix) / "bin" / "python")
    for source in sorted((Path(sys.prefix) / "bin").iterdir()):
        target = env / "bin" / source.name
        if target.exists() or not source.is_file():
            continue
        head, _, rest = source.read_bytes().partition(b"\n")
        if head.startswith(b"#!") and head[2:].decode(errors="replace").startswith(ours_python):
            target.write_bytes(f"#!{env / 'bin' / 'python'}\n".encode() + rest)
            target.chmod(0o755)
    for data in ("etc/jupyter", "share/jupyter"):
        if (Path(sys.prefix) / data).is_dir() and not (env / data).exists():
            (env / data).parent.mkdir(parents=True, exist_ok=True)
            (env / data).symlink_to(Path(sys.prefix) / data)
    subprocess.run(["chmod", "-R", "a+rX", str(env)], check=True)
    return env / "bin"


def let_users_traverse(*paths: Path) -> list[tuple[Path, int]]:
    """Let other users pass through (not list) every folder down to ``paths``; returns what ``restore_modes``
    puts back."""
    changed: list[tuple[Path, int]] = []
    for path in paths:
        for folder in [*reversed(Path(path).resolve().parents), Path(path).resolve()]:
            mode = stat.S_IMODE(folder.stat().st_mode)
            if not mode & stat.S_IXOTH and all(folder != f for f, _ in changed):
                changed.append((folder, mode))
                folder.chmod(mode | stat.S_IXOTH)
    return changed


def restore_modes(changed: list[tuple[Path, int]]) -> None:
    for folder, mode in reversed(changed):
        folder.chmod(mode)
