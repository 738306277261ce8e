"""Before a run: start the grading kernel's interpreter exactly as a kernel starts, and ask it where it
imports ``autograder`` from (it must be the coordinator's own package, or grades would come from other
checks than the ones the instructor runs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .box import prepare_box
from .bwrap import bwrap_argv
from .confinement import Limits, package_dir, package_root, unconfined_env


def kernel_interpreter(kernel_name: str = "python3") -> list[str]:
    """The interpreter a kernel named ``kernel_name`` runs and its options (what precedes ``-m``),
    as jupyter_client will start it; ``[]`` when there is no such kernel."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        argv = list(KernelSpecManager().get_kernel_spec(kernel_name).argv)
    except NoSuchKernel:
        return []
    if not argv:
        return []
    major, minor = sys.version_info[:2]
    if argv[0] in ("python", f"python{major}", f"python{major}.{minor}"):  # jupyter_client's own substitution
        argv[0] = sys.executable
    return argv[: argv.index("-m")] if "-m" in argv else argv[:1]


_WHERE = """import importlib.util, json, sys
spec = importlib.util.find_spec("autograder")
print(json.dumps({"origin": spec.origin if spec else None, "executable": sys.executable}))
"""


@dataclass(frozen=True)
class KernelPackage:
    """Where a grading kernel imports ``autograder`` from, against the coordinator's package."""

    coordinator: str  # the package directory the coordinator runs (a real path on this machine)
    kernel: str  # ``autograder/__init__.py`` as the kernel sees it ("" when it finds none)
    expected: str  # what the kernel must see: the coordinator's package, as bound for it
    problem: str  # "" when the two are the same package


def kernel_package(box: Path, uid: int, limits: Limits, sandboxed: bool, kernel_name: str = "python3") -> KernelPackage:
    """Start the grading kernel's interpreter exactly as a kernel is started (sandbox, environment,
    working directory) and ask where it imports ``autograder`` from.

    The coordinator's package must be what it finds; ``problem`` says why not otherwise.
    """
    coordinator = package_dir()
    interpreter = kernel_interpreter(kernel_name)
    executable = interpreter[0] if interpreter else ""
    if not executable:
        return KernelPackage(coordinator, "", "", f"no Jupyter kernel named {kernel_name!r} is installed for "
                                                  f"{sys.executable} (the notebook's kernelspec)")
    if os.path.realpath(executable) != os.path.realpath(sys.executable):
        return KernelPackage(coordinator, "", "", (
            f"the notebook's kernel {kernel_name!r} runs {executable}, not the interpreter that grades "
            f"({sys.executable}); the sandbox is built for the grading interpreter. Run `{executable} -m autograder "
            "grade ...`, or install that kernel for the grading interpreter (`python -m ipykernel install "
            "--sys-prefix`)"))
    box = prepare_box(box, uid)
    if sandboxed:
        argv = [*bwrap_argv(box, uid, limits), *interpreter, "-c", _WHERE]
        env, cwd = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, str(box)
        expected = f"{package_root()}/autograder/__init__.py"
    else:
        argv = [*interpreter, "-c", _WHERE]
        env = unconfined_env(box / "home", box / "lib")
        cwd = str(box / "home")
        expected = str(box / "lib" / "autograder" / "__init__.py")
    try:
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        shutil.rmtree(box, ignore_errors=True)
        return KernelPackage(coordinator, "", expected, f"the grading kernel's interpreter did not start: {error}")
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1]).get("origin") or ""
    except (ValueError, IndexError):
        detail = proc.stderr.strip() or f"it exited with status {proc.returncode} and printed nothing"
        if "Permission denied" in detail and sandboxed:
            detail += (f" (the sandbox runs kernels as uid {uid}, which must be able to read and run the grading "
                       f"environment {sys.prefix}: `chmod -R o+rX` it, or build it with umask 022)")
        return KernelPackage(coordinator, "", expected, f"the grading kernel's interpreter did not start: {detail[-500:]}")
    finally:
        shutil.rmtree(box, ignore_errors=True)
    if not found:
        problem = (f"the grading kernel cannot import autograder (it looked on its path for the coordinator's "
                   f"package {coordinator}, bound at {package_root()})")
    elif found != expected:
        problem = (f"the grading kernel would import autograder from {found}, not the package that grades "
                   f"({coordinator}); grades would come from other checks than the ones you run")
    else:
        problem = ""
    return KernelPackage(coordinator, found, expected, problem)


def nbgrader_package() -> str:
    """The ``autograder`` package an ``nbgrader`` command typed in a shell imports (a console script: the
    environment's installed package, not the current folder's), as a real path; "" when it finds none."""
    code = "import importlib.util as u; s = u.find_spec('autograder'); print(s.origin if s else '')"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        proc = subprocess.run([sys.executable, "-I", "-c", code], cwd="/", env=env, capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    origin = proc.stdout.strip()
    return os.path.dirname(os.path.realpath(origin)) if origin else ""


def _digest(package: str) -> str:
    """One digest of a package's Python files (their paths inside it and their bytes)."""
    import hashlib

    digest = hashlib.sha256()
    root = Path(package)
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def package_mismatch(running: str, installed: str, course: str | None = None) -> str:
    """The warning ``grade`` prints when the package it runs is not what ``nbgrader`` commands import, or not the
    course directory's own ``autograder/`` ("" when all hold the same files: a copy is the same package)."""
    others = {"`nbgrader` commands in this environment import": installed or "",
              "the course directory holds": course or ""}
    mine = _digest(running)
    differ = [f"{what} {where}" for what, where in others.items()
              if where and os.path.realpath(where) != os.path.realpath(running) and _digest(where) != mine]
    if installed == "":
        differ.append("`nbgrader` commands in this environment cannot import the course package")
    if not differ:
        return ""
    return (f"this run grades with the checks of {running}, but {'; and '.join(differ)}: grades would come from "
            "other checks than the ones this run uses. Install the course's package into the environment "
            "(`pip install .` from the course, by its administrator on a hub), so that all are the same.")
