"""Who else can reach a course: the check ``grade`` makes before it reads a submission.

A course directory holds the hidden tests (``solutions/``), every student's submission and the
gradebook.  On a shared machine (a JupyterHub, a department server) another user reaches a file
when every folder above it lets them through (``x``) and the file itself lets them read or write
it.  Debian makes home folders readable by everyone, and nbgrader's ``collect`` keeps the
exchange's mode-777 submission folders, so a course left as it comes is open to every student.

:func:`exposed` lists what another user can read or write; :func:`refusal` says it, with the one
``chmod`` that closes it.  The cohort commands write every file they make for the owner only
(:func:`owner_only`, a umask of 077).
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
from pathlib import Path

#: The umask the cohort commands run with: what they write is the owner's alone.
UMASK = 0o077
#: How many exposed paths a refusal names (it says how many more there are).
SHOWN = 5


def owner_only() -> int:
    """Set the umask to :data:`UMASK`; returns the previous one."""
    return os.umask(UMASK)


def _others_in_group(gid: int, owner: int) -> bool:
    """Whether a user other than ``owner`` belongs to group ``gid`` (as a member or by their primary group)."""
    try:
        group = grp.getgrgid(gid)
    except KeyError:
        return True  # an unnamed group: assume the worst
    try:
        owner_name = pwd.getpwuid(owner).pw_name
    except KeyError:
        owner_name = None
    if any(member != owner_name for member in group.gr_mem):
        return True
    return any(user.pw_gid == gid and user.pw_uid != owner for user in pwd.getpwall())


def _bits_for_others(st: os.stat_result, owner: int) -> int:
    """The permission bits (as ``rwx`` for "other") that some other user has on a file with ``st``."""
    bits = st.st_mode & 0o007
    if st.st_mode & 0o070 and _others_in_group(st.st_gid, owner):
        bits |= (st.st_mode >> 3) & 0o007
    if st.st_uid not in (owner, 0):  # another ordinary user's file: its owner reaches it (root reaches all anyway)
        bits |= (st.st_mode >> 6) & 0o007
    return bits


def _passable(path: Path, owner: int) -> bool:
    """Whether another user can walk through every folder from ``/`` down to ``path``'s parent and into it."""
    current = Path(path.anchor)
    for part in path.parts[1:]:
        try:
            st = current.stat()
        except OSError:
            return False
        if not _bits_for_others(st, owner) & 0o001:
            return False
        current = current / part
    return True


def exposed(root: Path, places: list[Path], owner: int | None = None) -> list[tuple[Path, str]]:
    """``[(path, "read" | "write" | "read and write")]``: what of ``root`` and of ``places`` (files or folders,
    walked) another user than ``owner`` (default: this user) can reach.  Empty when the course is private."""
    owner = os.getuid() if owner is None else owner
    root = Path(root).resolve()
    if not _passable(root, owner):
        return []  # nothing under it can be reached
    found: list[tuple[Path, str]] = []
    first = _access(root, owner)
    if first:
        found.append((root, first))
    for place in places:
        place = Path(place)
        if not place.exists():
            continue
        if not _passable(place, owner):
            continue
        for path in _walk(place, owner):
            access = _access(path, owner)
            if access:
                found.append((path, access))
    return found


def _walk(top: Path, owner: int):
    yield top
    if not top.is_dir() or top.is_symlink():
        return
    try:
        st = top.stat()
    except OSError:
        return
    if not _bits_for_others(st, owner) & 0o001:
        return  # others cannot enter it: nothing below is reachable
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        keep = []
        for d in dirnames:
            path = here / d
            yield path
            try:
                if not path.is_symlink() and _bits_for_others(path.stat(), owner) & 0o001:
                    keep.append(d)
            except OSError:
                continue
        dirnames[:] = keep
        for name in filenames:
            yield here / name


def _access(path: Path, owner: int) -> str:
    try:
        st = path.lstat()
    except OSError:
        return ""
    if stat.S_ISLNK(st.st_mode):
        return ""
    bits = _bits_for_others(st, owner)
    if stat.S_ISDIR(st.st_mode) and not bits & 0o001:
        bits &= ~0o002  # a folder one cannot enter takes no new entries, whatever its w bit says
    kinds = [word for bit, word in ((0o004, "read"), (0o002, "write")) if bits & bit]
    return " and ".join(kinds)


#: The uids of people's accounts when /etc/login.defs says nothing (Debian's UID_MIN and UID_MAX).
PEOPLE_UIDS = (1000, 60000)


def _login_defs(path: Path = Path("/etc/login.defs")) -> tuple[int, int]:
    low, high = PEOPLE_UIDS
    try:
        for line in path.read_text().splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("UID_MIN", "UID_MAX") and words[1].isdigit():
                low, high = (int(words[1]), high) if words[0] == "UID_MIN" else (low, int(words[1]))
    except OSError:
        pass
    return low, high


def other_people(me: int | None = None) -> list[str]:
    """Who else works on this machine: under JupyterHub (``JUPYTERHUB_USER`` or its API set), the hub's users;
    otherwise the accounts of people (uids from ``UID_MIN`` to ``UID_MAX``, a login shell) other than ``me``.
    On such a machine a submission run unconfined could reach their files, and they could prepare what it finds."""
    me = os.getuid() if me is None else me
    found: list[str] = []
    if os.environ.get("JUPYTERHUB_USER") or os.environ.get("JUPYTERHUB_API_URL"):
        found.append("the users of this JupyterHub")
    low, high = _login_defs()
    for user in pwd.getpwall():
        if low <= user.pw_uid <= high and user.pw_uid != me and not user.pw_shell.endswith(("nologin", "false")):
            found.append(user.pw_name)
    return found


def refusal(root: Path, found: list[tuple[Path, str]]) -> str:
    """The refusal ``grade`` prints: what other users can reach, and the command that closes it."""
    root = Path(root).resolve()
    shown = ", ".join(f"{_relative(p, root)} ({a})" for p, a in found[:SHOWN])
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return (f"the course directory {root} is open to other users of this machine: they can {_verbs(found)} "
            f"{shown}{more}. Students could read the hidden tests in solutions/ or change a classmate's submission "
            f"before it is graded. Make it private and grade again: `chmod 700 {root}` (or, to keep the folder "
            f"itself open, `chmod -R go-rwx {root}`). If it must stay shared (a course group that grades together), "
            "pass --allow-shared-course.")


def _verbs(found: list[tuple[Path, str]]) -> str:
    kinds = {word for _, access in found for word in access.split(" and ")}
    return " and ".join(k for k in ("read", "write") if k in kinds) or "reach"


def _relative(path: Path, root: Path) -> str:
    try:
        rel = path.relative_to(root)
    except ValueError:
        return str(path)
    return str(rel) + ("/" if path.is_dir() else "") if str(rel) != "." else "the course directory itself"
