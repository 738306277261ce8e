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
import resource
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


def _cpu() -> float:
    """CPU seconds of this process and of its reaped children so far."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


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
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

    load = {}
    print(f"[bench] plain: nbgrader autograde {module} (serial, no sandbox) ...", flush=True)
    started, cpu = time.monotonic(), _cpu()
    grading.autograde(plain, module)
    plain_s, plain_cpu = time.monotonic() - started, _cpu() - cpu
    load["plain"] = os.getloadavg()[0]

    print(f"[bench] ours: grade {module} --workers {workers} --sandbox {sandbox} ...", flush=True)
    started, cpu = time.monotonic(), _cpu()
    record = grade(Course.open(ours), module, GradeOptions(workers=workers, sandbox=sandbox, progress=False))
    ours_s = time.monotonic() - started
    # sandboxed kernels' CPU is sampled by the kernel manager (bubblewrap does not pass it on to getrusage)
    ours_cpu = _cpu() - cpu + (record["kernel_cpu_seconds"] if record["sandbox"]["mode"] == "bwrap" else 0.0)
    load["ours"] = os.getloadavg()[0]

    plain_scores, ours_scores = grading.scores(plain, module), grading.scores(ours, module)
    disagree = sorted(s for s in names if plain_scores.get(s) != ours_scores.get(s))

    print("[bench] floor: each notebook's code as a plain Python script (serial) ...", flush=True)
    notebooks = [grading.autograded_notebook(plain, module, s) for s in names]
    cpu = _cpu()
    floors = floor_seconds([p for p in notebooks if p.exists()], root)
    floor_cpu = (_cpu() - cpu) / max(1, len(floors))
    load["floor"] = os.getloadavg()[0]
    floor = statistics.mean(floors)
    latency = statistics.mean(e["seconds"] for e in record["students"].values())

    result = {
        "module": module, "notebooks": n, "workers": workers, "sandbox": record["sandbox"]["mode"],
        "cores": cores,
        "plain_seconds": round(plain_s, 1), "ours_seconds": round(ours_s, 1),
        "plain_per_minute": round(60 * n / plain_s, 1), "ours_per_minute": round(60 * n / ours_s, 1),
        "speedup": round(plain_s / ours_s, 2),
        "floor_seconds_per_notebook": round(floor, 2),
        "ours_wall_seconds_per_notebook": round(ours_s / n, 2),
        "ours_wall_vs_floor": round(ours_s / n / floor, 2),
        "ours_latency_seconds_per_notebook": round(latency, 2),
        "ours_latency_vs_floor": round(latency / floor, 2),
        "grades_disagree": disagree,
        "cpu_seconds_per_notebook": {"plain": round(plain_cpu / n, 2), "ours": round(ours_cpu / n, 2),
                                     "floor": round(floor_cpu, 2)},
        "idle_estimate_speedup": round(min(workers, cores) * plain_cpu / ours_cpu, 2) if ours_cpu else None,
        "load_average": {k: round(v, 1) for k, v in load.items()},
    }
    print(f"""
bench-grade: {n} notebooks of {module}, {result['cores']} cores
  plain nbgrader autograde (serial)      {plain_s:7.1f} s  {result['plain_per_minute']:6.1f} notebooks/min
  grade --workers {workers} (sandbox {result['sandbox']:5})  {ours_s:7.1f} s  {result['ours_per_minute']:6.1f} notebooks/min
  ratio ours / plain                      {result['speedup']:.2f}x   (target >= 1.7x on 2 cores)
  floor: notebook code as a Python script {floor:7.2f} s per notebook
  ours, wall-clock per notebook           {ours_s / n:7.2f} s = {result['ours_wall_vs_floor']:.2f}x the floor (target <= 1.3x)
  ours, one notebook inside a worker      {latency:7.2f} s = {result['ours_latency_vs_floor']:.2f}x the floor
  grades identical to plain nbgrader: {'yes' if not disagree else 'NO: ' + ', '.join(disagree)}
CPU seconds per notebook (everything: nbgrader, kernels, workers; independent of other load):
  plain {plain_cpu / n:.2f}   ours {ours_cpu / n:.2f} (canary and calibration included)   floor {floor_cpu:.2f}
  -> CPU-bound estimate on an idle machine with {min(workers, cores)} cores: ours/plain = \
{result['idle_estimate_speedup']}x
load average (1 min) after each phase: plain {load['plain']:.1f}, ours {load['ours']:.1f}, \
floor {load['floor']:.1f} on {cores} cores (above {cores}, other work shared the machine)""")
    artifacts = REPO / "artifacts"
    if artifacts.is_dir():
        (artifacts / "bench-grade.json").write_text(json.dumps(result, indent=1))
    return result
