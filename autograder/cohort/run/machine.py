"""What this machine offers a run: the CPUs this process may use, and whether the sandbox can start."""

from __future__ import annotations

import os
from pathlib import Path

from ..kernels.bwrap import diagnose
from .errors import GradingError


def available_cpus() -> tuple[int, str]:
    """``(cpus, why)``: the CPUs this process may use, the smaller of its CPU affinity and its cgroup's CPU
    quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``; a container's limit), and which one decided."""
    try:
        affinity = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        affinity = max(1, os.cpu_count() or 1)
    quota = cgroup_cpu_quota()
    if quota is not None and quota < affinity:
        return max(1, int(quota)), f"the cgroup's CPU quota of {quota:g} CPUs"
    return affinity, f"{affinity} CPUs this process may use"


def cgroup_cpu_quota(root: Path = Path("/sys/fs/cgroup"), proc_self: Path = Path("/proc/self/cgroup")) -> float | None:
    """The CPU quota of this process's cgroup in CPUs (``None`` when it has none), v2 or v1."""
    try:
        lines = proc_self.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        path = path.lstrip("/")
        if controllers == "":  # cgroup v2: the unified hierarchy
            quota = _quota_v2([root / path / "cpu.max", root / "cpu.max"])
        elif "cpu" in controllers.split(","):
            base = next((root / name for name in ("cpu,cpuacct", "cpu", "cpuacct,cpu") if (root / name).is_dir()),
                        root / "cpu")
            quota = _quota_v1([base / path, base])
        else:
            continue
        if quota is not None:
            return quota
    return None


def _quota_v2(candidates: list[Path]) -> float | None:
    for path in candidates:
        try:
            limit, period = path.read_text().split()[:2]
        except (OSError, ValueError):
            continue
        return None if limit == "max" else int(limit) / int(period)
    return None


def _quota_v1(candidates: list[Path]) -> float | None:
    for folder in candidates:
        try:
            quota = int((folder / "cpu.cfs_quota_us").read_text())
            period = int((folder / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        return None if quota <= 0 or period <= 0 else quota / period
    return None


def resolve_sandbox(mode: str, others: list[str] | None = None) -> tuple[bool, str]:
    """``(sandboxed, warning)`` for ``auto``/``bwrap``/``off``; raises when the run must not start.

    ``others``: who else works on this machine (:func:`autograder.cohort.privacy.other_people`).  The run stops
    when bubblewrap runs here but the course's own mounts fail (the grader's fault, whatever the mode asks);
    ``auto`` grades unconfined only where the machine cannot give the sandbox at all and nobody else works on
    it.  Anywhere else, unconfined grading is asked for by name: ``--sandbox off``.
    """
    if mode not in ("auto", "bwrap", "off"):
        raise GradingError(f"--sandbox must be auto, bwrap or off, not {mode!r}")
    others = list(others or [])
    if mode == "off":
        who = f" Other people use this machine ({_names(others)}): their files are reachable too." if others else ""
        return False, ("SANDBOX OFF (--sandbox off, asked for): student code runs unconfined, with this user's rights; "
                       f"it can read the course, the solutions and the gradebook.{who} Use only for trusted notebooks.")
    check = diagnose()
    if check.ok:
        return True, ""
    if check.kind == "layout":
        raise GradingError(f"the sandbox failed to start, and no kernel was started: {check.reason}. This is the "
                           "grader's fault, not the machine's: nothing was graded. Report it with this message; "
                           "`--sandbox off` grades unconfined only if you ask for it by name.")
    if mode == "bwrap":
        raise GradingError(f"--sandbox bwrap: cannot start the sandbox: {check.reason}")
    if others:
        raise GradingError(f"the sandbox cannot start on this machine ({check.reason}), and other people use it "
                           f"({_names(others)}): grading without the sandbox would let a submission read and change "
                           "what this user can. Nothing was graded. Make the sandbox available, or grade unconfined "
                           "by name with --sandbox off (make grade SANDBOX=off).")
    return False, (f"SANDBOX UNAVAILABLE, GRADING WITHOUT IT: {check.reason}. Student code runs unconfined and can "
                   "read the course, the solutions and the gradebook. Install bubblewrap (or allow user "
                   "namespaces) and grade again, or pass --sandbox bwrap to refuse to grade without it.")


def _names(others: list[str], shown: int = 4) -> str:
    more = f" and {len(others) - shown} more" if len(others) > shown else ""
    return ", ".join(others[:shown]) + more
