"""``bench-grade``: the same synthetic cohort graded by plain nbgrader and by ``grade``, and the floor.

Three measurements on one cohort (``--students`` honest submissions of one module, built
from its solution, release and bug catalogue), in one run:

* **plain**: ``nbgrader autograde ASSIGNMENT --create --force``, serial, no sandbox — what
  an instructor gets out of the box;
* **ours**: ``grade ASSIGNMENT --workers N --sandbox bwrap`` on a local Dask cluster (its start-up and the
  calibration run of the solution included), once with ``--kernels cold`` (a new interpreter per
  notebook, as before warm kernels) and once with ``--kernels warm`` (forked from a template);
* **floor**: each notebook's code (as autograded, hidden tests included) run as a plain
  Python script, one after the other: the cost of the work itself, without a kernel.

It prints notebooks per minute for plain and ours and their ratio, and our time per
notebook against the floor's, both as wall-clock per notebook (what a cohort costs) and
as the latency of one notebook inside a worker.  The grades of both runs must agree.

The runs are placed symmetrically in time (warm, cold, floor for half the notebooks, plain,
floor for the other half, cold, warm) so that load from other work on a shared machine weighs on
all three alike; CPU seconds per notebook (which such load does not change) are printed too.
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

from ..cells import nbgrader_meta
from ..cohort.course import Course
from ..cohort.run.grade import GradeOptions, grade
from . import fixture_courses, nbtools
from .synthetic import REPO, honest_cohort, load_catalogue


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
    """CPU seconds of this process, of its reaped children and of its fork servers so far."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime + _fork_servers_cpu()


def _fork_servers_cpu() -> float:
    """CPU seconds of this process's fork servers and of the processes they reaped: a local cluster's workers
    are forked from one (see ``autograder.cohort.run.engine``), so they are not this process's children, and the
    server lives as long as this process does."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) == os.getpid() and b"forkserver" in (entry / "cmdline").read_bytes():
                total += sum(int(v) for v in stat[11:15]) / tick  # utime, stime, cutime, cstime
        except (OSError, ValueError, IndexError):
            continue
    return total


def _as_graded(nb, solution):
    """The code nbgrader runs for a submission: locked cells as in the source (hidden tests included)."""
    locked = {nbtools.grade_id(c): c.source for c in solution.cells
              if nbgrader_meta(c).get("locked")}
    for cell in nb.cells:
        if nbtools.grade_id(cell) in locked:
            cell.source = locked[nbtools.grade_id(cell)]
    return nb


def floor_seconds(notebooks: list[Path], workdir: Path, solution) -> list[float]:
    """Wall-clock seconds of each notebook's code run as a plain Python script (serially)."""
    times = []
    env = dict(os.environ, MPLBACKEND="Agg")
    for path in notebooks:
        script = workdir / f"floor-{path.parent.parent.name}.py"
        script.write_text(_script(_as_graded(nbformat.read(str(path), as_version=4), solution)))
        started = time.monotonic()
        subprocess.run([sys.executable, str(script)], cwd=path.parent, env=env, capture_output=True)
        times.append(time.monotonic() - started)
    return times


def _courses(root: Path, module: str, students: int) -> tuple[dict[str, Path], list[str]]:
    """Three course directories, ``plain``, ``cold`` and ``warm``, holding the same synthetic cohort."""
    solution = nbtools.read(REPO / "solutions" / module / f"{module}.ipynb")
    release = nbtools.read(REPO / "exercises" / module / f"{module}.ipynb")
    cohort = honest_cohort(solution, release, load_catalogue(module), size=students)
    built = {}
    for kind in ("plain", "cold", "warm"):
        course = root / kind
        if course.exists():
            shutil.rmtree(course)
        fixture_courses.make_course(course, [module])
        fixture_courses.release(course, module)
        for student, nb in cohort.notebooks.items():
            fixture_courses.submit(course, module, student, nb)
        built[kind] = course
    return built, list(cohort.notebooks)


def run(students: int = 24, workers: int = 2, module: str = "01-tensors", sandbox: str = "bwrap",
        dest: Path | None = None, out: Path | None = None) -> dict:
    """Measure plain, ours (cold kernels, then warm) and the floor on the same cohort; prints the
    figures, writes them to ``out`` (JSON) when given, and returns them.

    On a machine shared with other work the load drifts, so the runs are placed symmetrically
    in time: warm, cold, floor (first half of the notebooks), plain, floor (second half), cold,
    warm; each of ours counts as the mean of its two runs.
    """
    root = Path(dest) if dest else Path(tempfile.mkdtemp(prefix="ag-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"[bench] building three copies of a {students}-student cohort of {module} in {root}", flush=True)
    built, names = _courses(root, module, students)
    solution = nbtools.read(REPO / "solutions" / module / f"{module}.ipynb")
    n = len(names)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    kinds = ("plain", "cold", "warm", "floor")
    wall = dict.fromkeys(kinds, 0.0)
    cpu_used = dict.fromkeys(kinds, 0.0)
    load: dict[str, list[float]] = {k: [] for k in kinds}
    latencies: dict[str, list[float]] = {"cold": [], "warm": []}
    floors: list[float] = []
    halves = [names[0::2], names[1::2]]
    schedule = ["warm", "cold", "floor", "plain", "floor", "cold", "warm"]
    sandbox_mode = sandbox
    for step, kind in enumerate(schedule):
        print(f"[bench] step {step + 1}/{len(schedule)}: {kind} ...", flush=True)
        started, cpu = time.monotonic(), _cpu()
        if kind == "plain":
            fixture_courses.autograde(built["plain"], module, kernels="cold")
        elif kind in ("cold", "warm"):
            record = grade(Course.open(built[kind]), module,
                           GradeOptions(workers=workers, sandbox=sandbox, kernels=kind, progress=False))
            latencies[kind] += [e["seconds"] for e in record["students"].values()]
            # sandboxed kernels' CPU is sampled by the kernel manager (bwrap does not pass it on to getrusage)
            cpu -= record["kernel_cpu_seconds"] if record["sandbox"]["mode"] == "bwrap" else 0.0
            sandbox_mode = record["sandbox"]["mode"]
        else:
            half = halves[0] if step < len(schedule) // 2 else halves[1]
            submitted = built["plain"] / "submitted"
            floors += floor_seconds([submitted / s / module / f"{module}.ipynb" for s in half], root, solution)
        wall[kind] += time.monotonic() - started
        cpu_used[kind] += _cpu() - cpu
        load[kind].append(os.getloadavg()[0])
    for kind in ("cold", "warm"):
        wall[kind] /= 2
        cpu_used[kind] /= 2

    scores = {kind: fixture_courses.scores(built[kind], module) for kind in ("plain", "cold", "warm")}
    disagree = sorted(s for s in names if not scores["plain"].get(s) == scores["cold"].get(s) == scores["warm"].get(s))
    floor = statistics.mean(floors)
    result = {
        "module": module, "notebooks": n, "workers": workers, "sandbox": sandbox_mode, "cores": cores,
        "floor_seconds_per_notebook": round(floor, 2),
        "grades_disagree": disagree,
        "cpu_seconds_per_notebook": {k: round(v / n, 2) for k, v in cpu_used.items()},
        "load_average": {k: [round(x, 1) for x in v] for k, v in load.items()},
    }
    for kind in ("plain", "cold", "warm"):
        result[f"{kind}_seconds"] = round(wall[kind], 1)
        result[f"{kind}_per_minute"] = round(60 * n / wall[kind], 1)
        result[f"{kind}_wall_vs_floor"] = round(wall[kind] / n / floor, 2)
    for kind in ("cold", "warm"):
        latency = statistics.mean(latencies[kind])
        result[f"{kind}_speedup"] = round(wall["plain"] / wall[kind], 2)
        result[f"{kind}_latency_seconds_per_notebook"] = round(latency, 2)
        result[f"{kind}_latency_vs_floor"] = round(latency / floor, 2)
        result[f"{kind}_idle_estimate_speedup"] = round(min(workers, cores) * cpu_used["plain"] / cpu_used[kind], 2)
    cpu = result["cpu_seconds_per_notebook"]
    rows = []
    for kind, label in (("plain", "plain nbgrader autograde (serial)"),
                        ("cold", f"grade --workers {workers} --kernels cold"),
                        ("warm", f"grade --workers {workers} --kernels warm")):
        line = (f"  {label:38} {wall[kind]:7.1f} s {result[f'{kind}_per_minute']:6.1f} nb/min "
                f"{wall[kind] / n:6.2f} s/nb = {result[f'{kind}_wall_vs_floor']:.2f}x floor")
        if kind != "plain":
            line += (f" | {result[f'{kind}_speedup']:.2f}x plain | one notebook in a worker "
                     f"{result[f'{kind}_latency_seconds_per_notebook']:.2f} s = {result[f'{kind}_latency_vs_floor']:.2f}x floor")
        rows.append(line)
    table = "\n".join(rows)
    print(f"""
bench-grade: {n} notebooks of {module}, {cores} cores, sandbox {sandbox_mode} (ours: the mean of two runs each)
{table}
  floor: notebook code as a Python script {floor:6.2f} s per notebook
  targets: warm per notebook <= 0.5x the floor, warm >= 3x plain with 2 workers on 2 cores
  grades identical in all three: {'yes' if not disagree else 'NO: ' + ', '.join(disagree)}
CPU seconds per notebook (everything: nbgrader, kernels, workers; not affected by other load):
  plain {cpu['plain']:.2f}   cold {cpu['cold']:.2f}   warm {cpu['warm']:.2f} (canary and calibration included)   floor {cpu['floor']:.2f}
  -> CPU-bound estimate on an idle machine with {min(workers, cores)} cores: warm/plain = {result['warm_idle_estimate_speedup']}x, \
cold/plain = {result['cold_idle_estimate_speedup']}x
load average (1 min) after each step: {result['load_average']} on {cores} cores \
(above {cores}, other work shared the machine)""")
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(result, indent=1))
    return result
