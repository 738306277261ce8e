"""``bench-grade``: the same synthetic cohort graded by stock nbgrader, by nbgrader with the course's
configuration, and by ``grade``, side by side in one run, with where each notebook's time goes.

Measurements on one cohort (``--students`` honest submissions of one module, built from its
solution, release and bug catalogue):

* **stock**: ``nbgrader autograde ASSIGNMENT --create --force`` with nbgrader's own kernel manager
  (jupyter_client's), serial, no sandbox: what an instructor gets out of the box;
* **serial**: the same command with the course's ``nbgrader_config.py`` (warm kernels forked from a
  template, the prompt client), serial, no sandbox;
* **ours**: ``grade ASSIGNMENT --workers N --sandbox bwrap`` on a local Dask cluster (its start-up, the
  preflight and the calibration run of the solution included), warm kernels; one run per worker count asked
  for (``--workers 1 --workers 2``: the arms ``ours-w1`` and ``ours-w2``);
* optionally **cold** (``grade`` with ``--kernels cold``) and **floor** (each notebook's code, hidden tests
  included, run as a plain Python script: the cost of the work itself, without a kernel).

CPU is measured as the machine's kernel accounts it: each arm runs in a cpuacct cgroup of its own (cgroup v1's
``cpuacct`` hierarchy, or a cgroup v2 folder, where this process may create one, as root may), so that the
figure is the CPU that arm's processes used, sandboxed kernels and Dask's forked workers included, whatever
else the machine was doing; elsewhere it falls back on this process's own accounting (``getrusage`` of it
and its reaped children, plus its fork servers, and the sandboxed kernels' CPU the run record samples) and
says so (``cpu_source``).  Wall time is reported next to it; on a shared machine only the CPU is comparable.

It prints notebooks per minute and CPU seconds per notebook for each, the speed-ups over stock, the
ceiling (:func:`ceiling`: the speed-up of every core busy at the serial run's cost per notebook), and the
breakdown of one notebook in ``grade`` (from the timings every result carries): waiting for and setting up
its box, the kernel's start, the notebook's own cells, the canary, nbgrader's work after the last cell,
the scores and results read, the gradebook write in the coordinator, and the Dask round trip.  The grades
of every run must agree.

The runs are placed symmetrically in time (ours, serial, stock, serial, ours; cold and floor in the middle)
so that load from other work on a shared machine weighs on all alike.
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
from ..cohort.records import RunRecord
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
    are forked from one (see ``autograder.cohort.run.dask_cluster``), so they are not this process's children, and the
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


class CpuMeter:
    """CPU seconds per arm: a cpuacct cgroup per arm (see the module's docstring), or this process's accounting.

    ``with meter.arm(name):`` runs the block in that arm's cgroup: this process, and the fork servers it
    started (a local Dask cluster's workers are forked from one, and it outlives the cluster), move into it,
    so every process they start is counted there, and move back at the end."""

    V1 = Path("/sys/fs/cgroup/cpuacct")
    V2 = Path("/sys/fs/cgroup")

    def __init__(self, label: str = "ag-bench"):
        self.label = f"{label}-{os.getpid()}"
        self.groups: dict[str, Path] = {}
        self.seconds: dict[str, float] = {}
        self.home = self._own_group()
        self.source = "cgroup" if self.home is not None else "rusage"

    def _own_group(self) -> Path | None:
        """The cgroup this process is in now (where it goes back after an arm), if arms can be made."""
        try:
            lines = Path("/proc/self/cgroup").read_text().splitlines()
        except OSError:
            return None
        for line in lines:
            _, controllers, path = line.split(":", 2)
            if "cpuacct" in controllers.split(",") and (self.V1 / "cpuacct.usage").exists():
                root = self.V1
            elif controllers == "" and (self.V2 / "cgroup.controllers").exists():
                root = self.V2
            else:
                continue
            home = root / path.lstrip("/")
            self._root = root
            try:
                probe = root / f"{self.label}-probe"
                probe.mkdir()
                probe.rmdir()
            except OSError:
                return None
            return home
        return None

    def _usage(self, group: Path) -> float:
        if (group / "cpuacct.usage").exists():
            return int((group / "cpuacct.usage").read_text()) / 1e9
        stat = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    @staticmethod
    def _move(pids, group: Path) -> None:
        for pid in pids:
            try:
                (group / "cgroup.procs").write_text(str(pid))
            except OSError:  # a process that ended meanwhile
                pass

    def arm(self, name: str):
        import contextlib

        @contextlib.contextmanager
        def measured():
            if self.home is None:
                cpu = _cpu()
                try:
                    yield
                finally:
                    self.seconds[name] = self.seconds.get(name, 0.0) + _cpu() - cpu
                return
            group = self.groups.get(name)
            if group is None:
                group = self.groups[name] = self._root / f"{self.label}-{name}"
                group.mkdir(exist_ok=True)
            before = self._usage(group)
            self._move([os.getpid(), *_fork_servers()], group)
            try:
                yield
            finally:
                self._move([os.getpid(), *_fork_servers()], self.home)
                self.seconds[name] = self.seconds.get(name, 0.0) + self._usage(group) - before

        return measured()

    def close(self) -> None:
        """Remove the arms' cgroups; a process still in one (a worker on its way out) goes back home first."""
        for group in self.groups.values():
            try:
                self._move((group / "cgroup.procs").read_text().split(), self.home)
                group.rmdir()
            except OSError:
                pass


def _fork_servers() -> list[int]:
    """This process's fork servers (multiprocessing's, started by a local Dask cluster)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) == os.getpid() and b"forkserver" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


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


KINDS = ("stock", "serial", "ours", "cold", "floor")
#: The phases of one notebook in ``grade``, as its result's timings name them, in order, and their labels.
PHASES = (("prepare", "waiting for the template, box and scratch course"),
          ("kernel_start", "kernel start (nbgrader's set-up included)"),
          ("cells", "the notebook's own cells"),
          ("canary", "the canary cells, and the kernel's shutdown"),
          ("nbgrader_after", "nbgrader after the kernel (checked, written, scored)"),
          ("read", "canary observed, scores and results read, outputs cut, packed"),
          ("gradebook_write", "the coordinator's gradebook write"),
          ("engine", "the Dask round trip (files both ways, scheduling)"))
#: Where a notebook's CPU goes in ``grade``, as its result's timings name them (CPU seconds): the grading worker's
#: thread in each step, the kernel's process, and the coordinator's gradebook write.  What the arm's cgroup counted
#: beyond them is the run's own: start-up, Dask, the preflight and calibration, the sandbox's and the fork
#: server's processes, the journal.
CPU_PARTS = (("cpu_read", "worker: read the submission"),
             ("cpu_scan", "worker: static scan"),
             ("cpu_stage", "worker: scratch course and sandbox box"),
             ("cpu_add_canary", "worker: canary cells added"),
             ("cpu_autograde", "worker: nbgrader's preprocessors and its kernel client"),
             ("kernel_cpu", "kernel: the notebook's cells and the canary cells"),
             ("cpu_observe_canary", "worker: canary observed"),
             ("cpu_read_scores", "worker: scores read from the scratch gradebook"),
             ("cpu_read_outcomes", "worker: results read"),
             ("cpu_trim_outputs", "worker: outputs cut"),
             ("cpu_collect_notes", "worker: notes, autograded notebook packed"),
             ("cpu_gradebook_write", "coordinator: gradebook, autograded/ and journal written"))
_READ_STEPS = ("step_observe_canary", "step_read_scores", "step_read_outcomes", "step_trim_outputs",
               "step_collect_notes")


def _courses(root: Path, module: str, students: int, kinds) -> tuple[dict[str, Path], list[str]]:
    """A course directory per graded kind, each holding the same synthetic cohort."""
    solution = nbtools.read(REPO / "solutions" / module / f"{module}.ipynb")
    release = nbtools.read(REPO / "exercises" / module / f"{module}.ipynb")
    cohort = honest_cohort(solution, release, load_catalogue(module), size=students)
    built = {}
    for kind in [k for k in kinds if k != "floor"]:
        course = root / kind
        if course.exists():
            shutil.rmtree(course)
        fixture_courses.make_course(course, [module])
        fixture_courses.release(course, module)
        for student, nb in cohort.notebooks.items():
            fixture_courses.submit(course, module, student, nb)
        built[kind] = course
    return built, list(cohort.notebooks)


def breakdown(record: RunRecord) -> dict[str, float]:
    """Mean seconds per notebook of each of :data:`PHASES`, from a run record's students."""
    rows = [e.timings or {} for e in record.students.values()]
    if not rows:
        return {}
    means = {}
    for name, _ in PHASES:
        if name == "read":
            values = [sum(r.get(step, 0.0) for step in _READ_STEPS) for r in rows]
        else:
            values = [r.get(name, 0.0) for r in rows]
        means[name] = round(statistics.mean(values), 3)
    return means


def cpu_breakdown(record: RunRecord, cpu_per_notebook: float | None = None) -> dict[str, float]:
    """Mean CPU seconds per notebook of each of :data:`CPU_PARTS`, from a run record's students; with the arm's
    measured CPU per notebook, also what the run spent beyond them (``rest``)."""
    rows = [e.timings or {} for e in record.students.values()]
    if not rows:
        return {}
    means = {name: round(statistics.mean(r.get(name, 0.0) for r in rows), 4) for name, _ in CPU_PARTS}
    if cpu_per_notebook is not None:
        means["rest"] = round(cpu_per_notebook - sum(means.values()), 4)
    return means


def _schedule(kinds) -> list[str]:
    """The runs in time order, symmetric: the outer ones twice, stock, cold and floor once in the middle."""
    twice = [k for k in ("ours", "serial") if k in kinds]
    middle = [k for k in ("cold", "stock", "floor") if k in kinds]
    return [*twice, *middle, *reversed(twice)]


def _arms(kinds, counts) -> list[str]:
    """The arms in time order: :func:`_schedule`'s, each ``grade`` run once per worker count (``ours-w2``), in
    reverse order on the way back so that the schedule stays symmetric."""
    arms, seen = [], set()
    for kind in _schedule(kinds):
        if kind in ("ours", "cold"):
            named = [f"{kind}-w{n}" for n in counts]
            arms += list(reversed(named)) if kind in seen else named
            seen.add(kind)
        else:
            arms.append(kind)
    return arms


def _kind(arm: str) -> str:
    return arm.split("-w", 1)[0]


def run(students: int = 24, workers: int | tuple = 2, module: str = "04-five-line-step", sandbox: str = "bwrap",
        dest: Path | None = None, out: Path | None = None, kinds=("stock", "serial", "ours")) -> dict:
    """Measure ``kinds`` (of :data:`KINDS`; ``grade``'s once per worker count of ``workers``) on the same cohort;
    prints the figures, writes them to ``out`` (JSON) when given, and returns them."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown bench runs {sorted(unknown)}; choose from {', '.join(KINDS)}")
    counts = (workers,) if isinstance(workers, int) else tuple(dict.fromkeys(workers))
    root = Path(dest) if dest else Path(tempfile.mkdtemp(prefix="ag-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"[bench] building a {students}-student cohort of {module} for {', '.join(kinds)} in {root}", flush=True)
    built, names = _courses(root, module, students, kinds)
    solution = nbtools.read(REPO / "solutions" / module / f"{module}.ipynb")
    n, schedule = len(names), _arms(kinds, counts)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    arms = list(dict.fromkeys(schedule))
    wall = dict.fromkeys(arms, 0.0)
    records: dict[str, list[RunRecord]] = {arm: [] for arm in arms if _kind(arm) in ("ours", "cold")}
    sandbox_mode = sandbox
    meter = CpuMeter()
    print(f"[bench] CPU measured by {meter.source}", flush=True)
    try:
        for step, arm in enumerate(schedule):
            kind = _kind(arm)
            print(f"[bench] step {step + 1}/{len(schedule)}: {arm} ...", flush=True)
            started = time.monotonic()
            with meter.arm(arm):
                if kind in ("stock", "serial"):
                    fixture_courses.autograde(built[kind], module, kernels="stock" if kind == "stock" else "warm")
                elif kind in ("ours", "cold"):
                    record = grade(Course.open(built[kind]), module, GradeOptions(
                        workers=int(arm.rsplit("-w", 1)[1]), sandbox=sandbox, kernels="warm" if kind == "ours" else "cold",
                        progress=False))
                    records[arm].append(record)
                    sandbox_mode = record.sandbox.mode
                else:
                    submitted = built[next(k for k in kinds if k != "floor")] / "submitted"
                    floor_seconds([submitted / s / module / f"{module}.ipynb" for s in names], root, solution)
            wall[arm] += time.monotonic() - started
            if meter.source == "rusage" and kind in ("ours", "cold") and sandbox_mode == "bwrap":
                # sandboxed kernels' CPU is sampled by the kernel manager (bwrap does not pass it on to getrusage)
                meter.seconds[arm] -= record.kernel_cpu_seconds
    finally:
        meter.close()
    runs = {arm: schedule.count(arm) for arm in arms}
    result = _figures(module, n, counts, cores, sandbox_mode, wall, meter.seconds, runs, records, built)
    result["cpu_source"] = meter.source
    _print(result)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(result, indent=1))
    return result


def _figures(module, n, counts, cores, sandbox_mode, wall, cpu_used, runs, records, built) -> dict:
    graded = [k for k in built]
    scores = {kind: fixture_courses.scores(built[kind], module) for kind in graded}
    first = scores[graded[0]] if graded else {}
    disagree = sorted({s for kind in graded for s in set(first) | set(scores[kind])
                       if scores[kind].get(s) != first.get(s)})
    result = {"module": module, "notebooks": n, "workers": list(counts), "cores": cores, "sandbox": sandbox_mode,
              "grades_disagree": disagree, "per_minute": {}, "seconds": {}, "cpu_seconds_per_notebook": {},
              "speedup_over_stock": {}, "breakdown": {}}
    for arm in wall:
        seconds = wall[arm] / runs[arm]
        result["seconds"][arm] = round(seconds, 1)
        result["per_minute"][arm] = round(60 * n / seconds, 1)
        result["cpu_seconds_per_notebook"][arm] = round(cpu_used.get(arm, 0.0) / runs[arm] / n, 3)
    if "stock" in wall:
        result["speedup_over_stock"] = {k: round(result["per_minute"][k] / result["per_minute"]["stock"], 2)
                                        for k in wall if k != "stock"}
        if "serial" in wall:
            result["ceiling_over_stock"] = ceiling(result["seconds"]["stock"] / n,
                                                   result["cpu_seconds_per_notebook"]["serial"], min(max(counts), cores))
    if "serial" in wall:
        serial = result["cpu_seconds_per_notebook"]["serial"]
        result["cpu_over_serial"] = {k: round(v / serial, 2) for k, v in result["cpu_seconds_per_notebook"].items()
                                     if k != "serial" and serial > 0}
        result["wall_speedup_over_serial"] = {k: round(result["seconds"]["serial"] / v, 2)
                                              for k, v in result["seconds"].items() if k != "serial" and v > 0}
    for arm, recs in records.items():
        if recs:
            parts = [breakdown(r) for r in recs]
            result["breakdown"][arm] = {name: round(statistics.mean(p.get(name, 0.0) for p in parts), 3)
                                        for name, _ in PHASES}
            result["breakdown"][arm]["grading_seconds"] = round(statistics.mean(
                statistics.mean(e.seconds for e in r.students.values()) for r in recs), 3)
            cpu = [cpu_breakdown(r) for r in recs]
            result.setdefault("cpu_breakdown", {})[arm] = {
                name: round(statistics.mean(c.get(name, 0.0) for c in cpu), 4) for name, _ in CPU_PARTS}
            result["cpu_breakdown"][arm]["rest"] = round(
                result["cpu_seconds_per_notebook"][arm] - sum(result["cpu_breakdown"][arm].values()), 4)
    return result


def ceiling(stock_seconds_per_notebook: float, serial_cpu_per_notebook: float, cores: int) -> float:
    """The speed-up over stock that ``cores`` busy cores reach when each notebook costs what it costs the
    serial run (nbgrader with the course's configuration): what ``grade`` would reach with nothing of its
    own (no start-up, sandbox, canary, calibration or Dask) and no core ever idle.  Beyond it, only a
    notebook made cheaper than nbgrader's own way of grading it goes faster."""
    if serial_cpu_per_notebook <= 0:
        return 0.0
    return round(stock_seconds_per_notebook * cores / serial_cpu_per_notebook, 2)


def _label(arm: str) -> str:
    fixed = {"stock": "stock nbgrader autograde (serial)", "serial": "nbgrader autograde, course config (serial)",
             "floor": "floor: the code as a script (serial)"}
    if arm in fixed:
        return fixed[arm]
    kind, count = arm.split("-w", 1)
    return f"grade --workers {count}" + (" (warm)" if kind == "ours" else " --kernels cold")


def _print(result: dict) -> None:
    lines = [f"bench-grade: {result['notebooks']} notebooks of {result['module']}, {result['cores']} cores, "
             f"sandbox {result['sandbox']}, CPU by {result.get('cpu_source', 'rusage')}"]
    for arm, per_minute in result["per_minute"].items():
        speed = result["speedup_over_stock"].get(arm)
        over = result.get("cpu_over_serial", {}).get(arm)
        lines.append(f"  {_label(arm):44} {result['seconds'][arm]:7.1f} s {per_minute:6.1f} nb/min "
                     f"{result['cpu_seconds_per_notebook'][arm]:6.3f} CPU s/nb"
                     + (f" ({over:.2f}x serial's CPU)" if over else "") + (f"   {speed:.2f}x stock" if speed else ""))
    if result.get("ceiling_over_stock"):
        lines.append(f"  ceiling at the serial run's CPU per notebook, {min(max(result['workers']), result['cores'])} "
                     f"cores always busy: {result['ceiling_over_stock']:.2f}x stock")
    for arm, phases in result["breakdown"].items():
        lines.append(f"one notebook in `grade` ({_label(arm)}), mean seconds (grading on the worker: "
                     f"{phases['grading_seconds']:.2f} s):")
        lines += [f"  {phases[name]:6.3f}  {label}" for name, label in PHASES]
        cpu = result.get("cpu_breakdown", {}).get(arm)
        if cpu:
            lines.append(f"  CPU seconds per notebook ({result['cpu_seconds_per_notebook'][arm]:.3f} in all):")
            lines += [f"  {cpu[name]:7.4f}  {label}" for name, label in CPU_PARTS]
            lines.append(f"  {cpu['rest']:7.4f}  the rest: start-up, Dask, preflight, calibration, sandbox and fork "
                         "server processes, journal")
    lines.append("grades identical in every run: "
                 + ("yes" if not result["grades_disagree"] else "NO: " + ", ".join(result["grades_disagree"])))
    print("\n".join(lines), flush=True)
