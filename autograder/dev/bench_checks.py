"""``bench-checks``: how long each visible check cell takes, as a learner runs the exercises.

Every module's released exercise, its answer cells filled with the solution, runs top to
bottom in a fresh kernel of this environment (as "Restart and Run All" would), on CPU; each
test cell's time is read from the kernel's own timestamps (``execute_input`` to
``execute_reply``).  With ``repeat`` above 1 the notebook runs that many times and each cell
counts its fastest run, the figure for a quiet machine.  It prints p50, p95 and max per module
and every cell over its goal: 0.5 s, or 1.5 s for the cells that must compile or reload an
artefact (:data:`ARTEFACT_CELLS`).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from datetime import datetime
from pathlib import Path

from ..cells import nbgrader_meta
from ..syllabus import MODULES
from . import nbtools
from .synthetic import REPO

GOAL_SECONDS = 0.5
ARTEFACT_GOAL_SECONDS = 1.5
#: Test cells that compile a model or write and reload an exported artefact.
ARTEFACT_CELLS = ("test_compile_", "test_export_")


def goal_of(test_id: str) -> float:
    return ARTEFACT_GOAL_SECONDS if test_id.startswith(ARTEFACT_CELLS) else GOAL_SECONDS


def exercise_with_solution(module_id: str, repo: Path = REPO):
    """The released exercise with every answer cell holding the solution's code."""
    release = nbtools.read(repo / "exercises" / module_id / f"{module_id}.ipynb")
    solution = nbtools.read(repo / "solutions" / module_id / f"{module_id}.ipynb")
    answers = {name: nbtools.strip_solution_markers(cell.source)
               for name, cell in nbtools.answer_cells(solution).items()}
    return nbtools.substitute(release, answers)


def _seconds(cell) -> float | None:
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not start or not end:
        return None
    parse = datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def time_cells(module_id: str, repeat: int = 1, timeout: int = 600) -> dict[str, float]:
    """``{test cell id: seconds}`` for one module (the fastest of ``repeat`` runs)."""
    from nbclient import NotebookClient

    from ..cohort.kernels.client import PromptKernelManager

    best: dict[str, float] = {}
    for _ in range(repeat):
        nb = exercise_with_solution(module_id)
        NotebookClient(nb, timeout=timeout, kernel_name="python3", kernel_manager_class=PromptKernelManager, record_timing=True,
                       resources={"metadata": {"path": str(REPO / "exercises" / module_id)}}).execute()
        for cell in nb.cells:
            test_id = nbtools.grade_id(cell)
            meta = nbgrader_meta(cell)
            if cell.cell_type != "code" or not meta.get("grade"):
                continue
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            if errors:
                raise RuntimeError(f"{module_id}: {test_id} failed with the solution: {errors[0].get('evalue')}")
            seconds = _seconds(cell)
            if seconds is not None:
                best[test_id] = min(seconds, best.get(test_id, seconds))
    return best


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(modules: list[str] | None = None, repeat: int = 1, out: Path | None = None) -> dict:
    """Time every module's visible check cells; prints the table and returns the figures."""
    os.environ["TORCH_LEDGER_PROGRESS"] = "off"  # the kernels record no learner progress
    os.environ.setdefault("MPLBACKEND", "Agg")
    chosen = [m for m in MODULES if not modules or m.id in modules]
    result: dict = {"repeat": repeat, "load_average": [], "modules": {}}
    started = time.monotonic()
    for module in chosen:
        cells = time_cells(module.id, repeat)
        values = list(cells.values())
        result["modules"][module.id] = {
            "cells": {k: round(v, 3) for k, v in cells.items()},
            "p50": round(statistics.median(values), 3), "p95": round(_quantile(values, 0.95), 3),
            "max": round(max(values), 3),
            "over_goal": sorted((k for k, v in cells.items() if v > goal_of(k)), key=lambda k: -cells[k]),
        }
        result["load_average"].append(round(os.getloadavg()[0], 1))
    result["seconds"] = round(time.monotonic() - started, 1)
    lines = [f"bench-checks: visible check cells of every exercise, solution filled in, fastest of {repeat} "
             f"run(s) on CPU (goal {GOAL_SECONDS} s; {ARTEFACT_GOAL_SECONDS} s for compile/export cells)",
             f"  {'module':28} {'cells':>5} {'p50':>7} {'p95':>7} {'max':>7}  over goal"]
    for module_id, m in result["modules"].items():
        over = ", ".join(f"{k} {m['cells'][k]:.2f} s" for k in m["over_goal"]) or "-"
        lines.append(f"  {module_id:28} {len(m['cells']):5} {m['p50']:7.3f} {m['p95']:7.3f} {m['max']:7.3f}  {over}")
    lines.append(f"load average (1 min) after each module: {result['load_average']}")
    print("\n".join(lines), flush=True)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(result, indent=1))
    return result
