"""A broken grading environment never overwrites a cohort's grades.

Two guarantees, both through the real sandbox and real nbgrader:

* the kernel imports exactly the ``autograder`` package the coordinator runs, however the
  package is installed (non-editable, editable from the course directory, editable from
  another checkout), when a copied course directory is graded;
* calibration is a gate: when the assignment's own solution does not score full marks,
  ``grade`` writes nothing (gradebook, ``grading.json`` and ``autograded/`` byte-for-byte
  unchanged), also for a regrade of some students; ``--force`` grades and marks the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest

from autograder.cohort.course import Course
from autograder.cohort.kernels.bwrap import probe
from autograder.cohort.kernels.confinement import Limits, package_root
from autograder.cohort.kernels.preflight import kernel_package
from autograder.dev import fixture_courses, nbtools

MODULE = "01-tensors"
LIMITS = ["--notebook-timeout", "120", "--memory-mb", "3072", "--cell-timeout", "30"]
MISSING = "torch_ledger_missing_module"

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"the sandbox cannot run here: {probe()}")


def _digest(*paths: Path) -> dict:
    found = {}
    for path in paths:
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []
        for p in files:
            found[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return found


def _cli(python: str, course: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m autograder grade`` run as an instructor runs it: from the course directory."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COURSE_DB_URL")}
    env["PATH"] = str(Path(python).parent) + os.pathsep + env.get("PATH", "")
    return subprocess.run([python, "-m", "autograder", "grade", MODULE, "--workers", "1", "--no-progress",
                           "--sandbox", "bwrap", *LIMITS, *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, root):
    """A released course directory (a full copy, package and project files included) with two students."""
    base = tmp_path_factory.mktemp("environment")
    course = fixture_courses.make_course(base / "prepared", [MODULE], root)
    fixture_courses.release(course, MODULE)
    solution = nbtools.read(root / "solutions" / MODULE / f"{MODULE}.ipynb")
    fixture_courses.submit(course, MODULE, "alice", solution)
    fixture_courses.submit(course, MODULE, "blank", course / "exercises" / MODULE / f"{MODULE}.ipynb")
    _copy_project(root, course)
    return base, course


def _copy_project(root: Path, dest: Path) -> None:
    shutil.copytree(root / "autograder", dest / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, dest / name)


def _venv(path: Path) -> Path:
    """A fresh virtual environment with this one's packages on its path but no course package of its own."""
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(path)], check=True)
    purelib = subprocess.run([str(path / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "_course_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return path / "bin" / "python"


def _install(python: Path, *target: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-compile",
                    "--ignore-installed", "--no-build-isolation", *target], check=True, capture_output=True)


def _graded_in(prepared, mode: str) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of the prepared course graded by ``python -m autograder grade`` from a fresh environment where the
    package is installed the way ``mode`` says."""
    base, prepared_course = prepared
    work = base / mode
    course = work / "course"
    shutil.copytree(prepared_course, course)
    python = _venv(work / "venv")
    if mode == "installed":
        _install(python, str(course))
    elif mode == "editable-here":
        _install(python, "-e", str(course))
    else:  # the trap: the interpreter resolves another checkout than the course's own copy
        elsewhere = work / "checkout"
        elsewhere.mkdir()
        _copy_project(prepared_course, elsewhere)
        _install(python, "-e", str(elsewhere))
        resolved = subprocess.run([str(python), "-c", "import autograder; print(autograder.__file__)"], cwd="/",
                                  capture_output=True, text=True, check=True).stdout.strip()
        assert resolved == str(elsewhere / "autograder" / "__init__.py")
    return course, _cli(str(python), course)


@pytest.fixture(scope="module")
def editable_here(prepared):
    """The course graded with the package installed in editable mode from the course itself (also the good
    run that the calibration gate below starts from)."""
    return _graded_in(prepared, "editable-here")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["installed", "editable-here", "editable-elsewhere"])
def test_kernel_imports_the_coordinators_package(prepared, mode, request):
    course, proc = request.getfixturevalue("editable_here") if mode == "editable-here" else _graded_in(prepared, mode)
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads((course / "reports" / MODULE / "grading.json").read_text())
    assert record["package"] == {"coordinator": str((course / "autograder").resolve()),
                                 "kernel": f"{package_root()}/autograder/__init__.py"}
    assert record["calibration"]["full_marks"] and not record["forced"]["forced"]
    scores = fixture_courses.scores(course, MODULE)
    assert all(s == m for s, m in scores["alice"].values()) and scores["alice"]
    assert all(s == 0 for s, _ in scores["blank"].values())


def test_a_kernel_that_is_another_interpreter_stops_the_run(tmp_path, monkeypatch):
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    other = shutil.which("python3", path="/usr/bin:/bin") or "/usr/bin/python3"
    spec.joinpath("kernel.json").write_text(json.dumps(
        {"argv": [other, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "language": "python",
         "display_name": "another Python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    found = kernel_package(tmp_path / "box", 61998, Limits(), True)
    assert found.problem.startswith(f"the notebook's kernel 'python3' runs {other}, not the interpreter that grades")
    assert kernel_package(tmp_path / "box", 61998, Limits(), True, "no-such-kernel").problem.startswith(
        "no Jupyter kernel named 'no-such-kernel'")


def test_a_kernel_in_isolated_mode_would_import_another_package(tmp_path, monkeypatch):
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps(
        {"argv": [sys.executable, "-I", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
         "language": "python", "display_name": "isolated"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    found = kernel_package(tmp_path / "box", 61998, Limits(), True)
    assert found.problem and found.kernel != found.expected, found
    monkeypatch.delenv("JUPYTER_PATH")
    assert kernel_package(tmp_path / "box", 61998, Limits(), True).problem == ""


# ------------------------------------------------------------------------------------------
# calibration as a gate


@pytest.fixture(scope="module")
def broken(prepared, editable_here):
    """From a copy of a course graded once in a good environment, break the solution (its first answer cell
    imports a module that is not installed) and try a full run and a one-student regrade; then force one."""
    base, _ = prepared
    graded, first = editable_here
    assert first.returncode == 0, first.stderr[-3000:]
    course = base / "gate"
    shutil.copytree(graded, course)
    python = sys.executable
    guarded = [course / "gradebook.db", course / "reports", course / "autograded"]
    before = _digest(*guarded)
    source = course / "solutions" / MODULE / f"{MODULE}.ipynb"
    nb = nbformat.read(str(source), 4)
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = f"import {MISSING}\n" + answer.source
    nbformat.write(nb, str(source))
    full = _cli(python, course)
    after_full = _digest(*guarded)
    one = _cli(python, course, "--student", "alice")
    after_one = _digest(*guarded)
    forced = _cli(python, course, "--student", "alice", "--force")
    return {"course": course, "before": before, "full": full, "after_full": after_full, "one": one,
            "after_one": after_one, "forced": forced, "answer": nbtools.grade_id(answer)}


@pytest.mark.slow
def test_failed_calibration_writes_nothing(broken):
    assert broken["full"].returncode == 3, broken["full"].stderr[-2000:]
    assert broken["after_full"] == broken["before"]


@pytest.mark.slow
def test_failed_calibration_keeps_existing_grades_on_a_regrade(broken):
    assert broken["one"].returncode == 3, broken["one"].stderr[-2000:]
    assert broken["after_one"] == broken["before"]


@pytest.mark.slow
def test_failed_calibration_says_why_in_one_paragraph(broken):
    message = broken["full"].stderr.split("error: ", 1)[1].strip()
    assert "\n" not in message
    assert message.startswith(f"Calibration failed: the assignment's own solution (solutions/{MODULE}/{MODULE}.ipynb)")
    assert "no grade was written" in message
    assert f"First failing cell: {broken['answer']!r} raised ModuleNotFoundError: No module named '{MISSING}'" in message
    assert "What to do:" in message and "--force" in message


@pytest.mark.slow
def test_forced_run_grades_and_is_marked(broken):
    from autograder.cohort.views import report

    proc = broken["forced"]
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "FORCED RUN" in proc.stdout + proc.stderr
    course = Course.open(broken["course"])
    record = json.loads((course.reports(MODULE) / "grading.json").read_text())
    assert record["forced"]["forced"] and "Calibration failed" in record["forced"]["reason"]
    assert record["students"]["alice"]["forced"] and not record["students"]["blank"]["forced"]
    assert "FORCED RUN" in report.write(course, MODULE).read_text()
