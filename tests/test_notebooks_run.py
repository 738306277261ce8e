"""Every lesson and every solution notebook runs top to bottom in a real kernel on this machine, through the
function ``python -m autograder execute-lessons`` runs (autograder.cohort.execute)."""

import json

import pytest

from autograder.cohort.execute import run_notebook
from autograder.dev import nbtools
from conftest import ARTIFACTS, ROOT

pytestmark = pytest.mark.slow

# A notebook that cannot run here is listed with its reason; nothing is skipped silently.
NOT_RUN: dict[str, str] = {}

LESSONS = sorted(ROOT.glob("course/*.ipynb"))
SOLUTIONS = sorted(ROOT.glob("solutions/*/*.ipynb"))


# Binder gives 2 GB; a notebook's kernel must stay well under it.
PEAK_LIMIT_MB = 1536

# VmHWM is the kernel's own high-water mark (getrusage's ru_maxrss would include the parent's memory at fork).
PEAK_CELL = """
with open("/proc/self/status") as _status:
    print("PEAK_RSS_KB", next(line.split()[1] for line in _status if line.startswith("VmHWM")))
"""


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
    nb.cells.append(nbtools.code(PEAK_CELL))
    seconds = run_notebook(nb, tmp_path, timeout=300)  # raises CellExecutionError naming the failing cell
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    peak_mb = int(printed.split("PEAK_RSS_KB")[1].split()[0]) / 1024
    _record(path, seconds, peak_mb)
    assert peak_mb < PEAK_LIMIT_MB, f"the kernel peaked at {peak_mb:.0f} MB; Binder gives 2 GB"
    ran = [c for c in nb.cells[:-1] if c.cell_type == "code" and c.source.strip()]
    assert ran and all(c.execution_count for c in ran), "some cells did not run"
    if path.parent.parent.name == "solutions":
        shown = " ".join(str(o.get("data", {}).get("text/html", "")) for c in ran for o in c.outputs)
        assert "autograder-correct" in shown, "the solution's checks did not show a correct line"


class TestLessons:  # one class per kind: `--dist loadscope` runs the two kinds side by side
    @pytest.mark.parametrize("path", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
    def test_lesson_runs_top_to_bottom(self, path, tmp_path):
        _run(path, tmp_path)


class TestSolutions:
    @pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: str(p.relative_to(ROOT)))
    def test_solution_runs_top_to_bottom(self, path, tmp_path):
        _run(path, tmp_path)
