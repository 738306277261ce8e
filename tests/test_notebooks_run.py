"""Every lesson runs top to bottom in a real kernel on this machine, through the function ``python -m autograder
execute-lessons`` runs (autograder.cohort.execute).  Every solution notebook runs top to bottom through real nbgrader
in tests/test_nbgrader.py (its ``solution`` student), with the same memory limit and the same checks of its cells."""

import json
import os

import pytest
from test_widgets_colab import uses_widgets

from autograder.cohort.execute import run_notebook
from autograder.dev import nbtools
from conftest import ARTIFACTS, ROOT

pytestmark = pytest.mark.slow

# A notebook that cannot run here is listed with its reason; nothing is skipped silently.
NOT_RUN: dict[str, str] = {}

LESSONS = sorted(ROOT.glob("course/*.ipynb"))


# Binder gives 2 GB; a notebook's kernel must stay well under it.
PEAK_LIMIT_MB = 1536

# VmHWM is the kernel's own high-water mark (getrusage's ru_maxrss would include the parent's memory at fork).
PEAK_CELL = """
import sys as _sys
with open("/proc/self/status") as _status:
    print("PEAK_RSS_KB", next(line.split()[1] for line in _status if line.startswith("VmHWM")))
print("IPYWIDGETS_IMPORTED", "ipywidgets" in _sys.modules)
"""


def peak_mb(printed: str) -> float:
    """The kernel's peak memory in MB, from what PEAK_CELL printed."""
    return int(printed.split("PEAK_RSS_KB")[1].split()[0]) / 1024


def _record(path, seconds, peak_mb):
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / "notebook-times.jsonl", "a") as fh:
        fh.write(json.dumps({"notebook": str(path.relative_to(ROOT)), "seconds": round(seconds, 1),
                             "peak_mb": round(peak_mb)}) + "\n")


def _run(path, tmp_path):
    rel = str(path.relative_to(ROOT))
    if rel in NOT_RUN:
        pytest.skip(NOT_RUN[rel])
    nb = nbtools.read(path)
    # A lesson without widgets is left out of test_widgets_colab.py (its ipywidgets version cannot matter): here it
    # runs with the inline backend, as on Colab and in JupyterLab, and must not import ipywidgets after all.
    colab_stand_in = not uses_widgets(nb)
    env = None
    if colab_stand_in:
        env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    nb.cells.append(nbtools.code(PEAK_CELL))
    seconds = run_notebook(nb, tmp_path, timeout=300, env=env)  # raises CellExecutionError naming the failing cell
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    if colab_stand_in:
        assert "IPYWIDGETS_IMPORTED False" in printed, (
            f"{path.name} imports ipywidgets, but test_widgets_colab.py does not run it: its uses_widgets() must "
            "recognise what this lesson calls")
        stderr = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stderr")
        assert "Traceback" not in stderr and "Error" not in stderr, stderr[-3000:]
    peak = peak_mb(printed)
    _record(path, seconds, peak)
    assert peak < PEAK_LIMIT_MB, f"the kernel peaked at {peak:.0f} MB; Binder gives 2 GB"
    ran = [c for c in nb.cells[:-1] if c.cell_type == "code" and c.source.strip()]
    assert ran and all(c.execution_count for c in ran), "some cells did not run"


class TestLessons:
    @pytest.mark.parametrize("path", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
    def test_lesson_runs_top_to_bottom(self, path, tmp_path):
        _run(path, tmp_path)
