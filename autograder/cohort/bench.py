"""``bench-grade``: the same synthetic cohort graded by plain nbgrader and by ``grade``, and the floor.

Three measurements on one cohort (``--students`` honest submissions of one module, built
from its solution, release and bug catalogue), in one run:

* **plain**: ``nbgrader autograde ASSIGNMENT --create --force``, serial, no sandbox — what
  an instructor gets out of the box;
* **ours**: ``grade ASSIGNMENT --workers N --sandbox bwrap`` (worker start-up and the
  calibration run of the solution included);
* **floor**: each notebook's code (as autograded, hidden tests included) run as a plain
  Python script, one after the other: the cost of the work itself, without a kernel.

It prints notebooks per minute for plain and ours and their ratio, and our time per
notebook against the floor's, both as wall-clock per notebook (what a cohort costs) and
as the latency of one notebook inside a worker.  The grades of both runs must agree.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from .. import grading, nbtools
from .cohort import REPO, honest_cohort, load_catalogue
from .course import Course
from .grade import GradeOptions, grade


def _script(nb) -> str:
    """A notebook's code cells as a script that, like nbgrader, goes on after a failing cell."""
    lines = ["import sys", "_ns = {'__name__': '__main__'}"]
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        code = "\n".join(ln for ln in cell.source.splitlines() if not ln.lstrip().startswith(("%", "!")))
        lines.append(f"try:\n    exec(compile({code!r}, 'cell', 'exec'), _ns)\nexcept BaseException:\n    pass")
    return "\n".join(lines) + "\n"


def floor_seconds(notebooks: list[Path], workdir: Path) -> list[float]:
    """Wall-clock seconds of each notebook's code run as a plain Python script (serially)."""
    times = []
    env = dict(os.environ, MPLBACKEND="Agg")
    for i, path in enumerate(notebooks):
        script = workdir / f"floor-{i}.py"
        script.write_text(_script(nbformat.read(str(path), as_version=4)))
        started = time.monotonic()
        subprocess.run([sys.executable, str(script)], cwd=path.parent, env=env, capture_output=True)
        times.append(time.monotonic() - started)
    return times


def _courses(root: Path, module: str, students: int) -> tuple[Path, Path, list[str]]:
    plain, ours = root / "plain", root / "ours"
    for course in (plain, ours):
        if course.exists():
            shutil.rmtree(course)
        grading.make_course(course, [module])
        grading.release(course, module)
    solution = nbtools.read(REPO / "solutions" / module / f"{module}.ipynb")
    release = nbtools.read(plain / "exercises" / module / f"{module}.ipynb")
    cohort = honest_cohort(solution, release, load_catalogue(module), size=students)
    for student, nb in cohort.notebooks.items():
        for course in (plain, ours):
            grading.submit(course, module, student, nb)
    return plain, ours, list(cohort.notebooks)


def run(students: int = 24, workers: int = 2, module: str = "01-tensors", sandbox: str = "bwrap",
        dest: Path | None = None) -> dict:
    root = Path(dest) if dest else Path(tempfile.mkdtemp(prefix="ag-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"[bench] building two copies of a {students}-student cohort of {module} in {root}", flush=True)
    plain, ours, names = _courses(root, module, students)
    n = len(names)

    print(f"[bench] plain: nbgrader autograde {module} (serial, no sandbox) ...", flush=True)
    started = time.monotonic()
    grading.autograde(plain, module)
    plain_s = time.monotonic() - started

    print(f"[bench] ours: grade {module} --workers {workers} --sandbox {sandbox} ...", flush=True)
    started = time.monotonic()
    record = grade(Course.open(ours), module, GradeOptions(workers=workers, sandbox=sandbox, progress=False))
    ours_s = time.monotonic() - started

    plain_scores, ours_scores = grading.scores(plain, module), grading.scores(ours, module)
    disagree = sorted(s for s in names if plain_scores.get(s) != ours_scores.get(s))

    print("[bench] floor: each notebook's code as a plain Python script (serial) ...", flush=True)
    notebooks = [grading.autograded_notebook(plain, module, s) for s in names]
    floors = floor_seconds([p for p in notebooks if p.exists()], root)
    floor = statistics.mean(floors)
    latency = statistics.mean(e["seconds"] for e in record["students"].values())

    result = {
        "module": module, "notebooks": n, "workers": workers, "sandbox": record["sandbox"]["mode"],
        "cores": os.cpu_count(),
        "plain_seconds": round(plain_s, 1), "ours_seconds": round(ours_s, 1),
        "plain_per_minute": round(60 * n / plain_s, 1), "ours_per_minute": round(60 * n / ours_s, 1),
        "speedup": round(plain_s / ours_s, 2),
        "floor_seconds_per_notebook": round(floor, 2),
        "ours_wall_seconds_per_notebook": round(ours_s / n, 2),
        "ours_wall_vs_floor": round(ours_s / n / floor, 2),
        "ours_latency_seconds_per_notebook": round(latency, 2),
        "ours_latency_vs_floor": round(latency / floor, 2),
        "grades_disagree": disagree,
    }
    print(f"""
bench-grade: {n} notebooks of {module}, {result['cores']} cores
  plain nbgrader autograde (serial)      {plain_s:7.1f} s  {result['plain_per_minute']:6.1f} notebooks/min
  grade --workers {workers} (sandbox {result['sandbox']:5})  {ours_s:7.1f} s  {result['ours_per_minute']:6.1f} notebooks/min
  ratio ours / plain                      {result['speedup']:.2f}x   (target >= 1.7x on 2 cores)
  floor: notebook code as a Python script {floor:7.2f} s per notebook
  ours, wall-clock per notebook           {ours_s / n:7.2f} s = {result['ours_wall_vs_floor']:.2f}x the floor (target <= 1.3x)
  ours, one notebook inside a worker      {latency:7.2f} s = {result['ours_latency_vs_floor']:.2f}x the floor
  grades identical to plain nbgrader: {'yes' if not disagree else 'NO: ' + ', '.join(disagree)}""")
    artifacts = REPO / "artifacts"
    if artifacts.is_dir():
        (artifacts / "bench-grade.json").write_text(json.dumps(result, indent=1))
    return result
