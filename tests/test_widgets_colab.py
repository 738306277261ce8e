"""Every lesson runs with Google Colab's ipywidgets (7.7.1), not only with the installed 8.x.

Colab ships ipywidgets 7.7.1 (with widgetsnbextension 3.6.1), and the lessons' widgets must
work there too.  The test builds a small overlay once (those packages in a folder of their
own, cached under artifacts/) and runs each lesson in a kernel whose PYTHONPATH puts the
overlay first, so everything else comes from .venv.  After the lesson's own cells, a last
cell checks the version and moves every widget the lesson made, so that its callbacks run
under ipywidgets 7 as well.  The same lessons with ipywidgets 8 are run by
test_notebooks_run.py.

Only the lessons that show widgets run here: a lesson that never imports ipywidgets runs the
same whatever its version, and test_notebooks_run.py runs each of those with the inline backend
(as Colab does) and fails if its kernel imported ipywidgets after all.  A lesson whose only widget is
tqdm's progress bar runs here only when no other lesson here shows that bar (the bar is tqdm's code).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

import nbclient
import nbformat
import pytest

from autograder.cohort.kernels.client import PromptKernelManager
from autograder.dev import nbtools
from conftest import ARTIFACTS, ROOT

pytestmark = pytest.mark.slow

COLAB_IPYWIDGETS = "7.7.1"
OVERLAY_PACKAGES = [f"ipywidgets=={COLAB_IPYWIDGETS}", "widgetsnbextension==3.6.1", "ipython_genutils"]
OVERLAY = ARTIFACTS / f"colab-ipywidgets-{COLAB_IPYWIDGETS}"

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

ALL_LESSONS = sorted(ROOT.glob("course/*.ipynb"))


@functools.cache
def widget_helpers() -> frozenset[str]:
    """The course's functions that build widgets: every function of the package's learner modules that imports
    ipywidgets (``lessons.lr_explorer``, ``prereqs.prerequisites``, ...)."""
    import ast

    found = set()
    for source in (ROOT / "autograder").glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(n, (ast.Import, ast.ImportFrom)) and "ipywidgets" in ast.dump(n) for n in ast.walk(node)):
                found.add(node.name)
    return frozenset(found)


#: Imports that display widgets in a notebook: tqdm's notebook progress bar is an ipywidgets box.
WIDGET_IMPORTS = ("ipywidgets", "tqdm.auto", "tqdm.notebook", "tqdm.autonotebook")


def uses_widgets(nb) -> bool:
    """The lesson's kernel imports ipywidgets: a code cell imports it (or tqdm's notebook bar, made of widgets) or
    calls one of the course's widget helpers.  test_notebooks_run.py fails a lesson this misses."""
    helpers = widget_helpers()
    return any(c.cell_type == "code" and (any(name in c.source for name in WIDGET_IMPORTS)
                                          or any(f"{h}(" in c.source for h in helpers)) for c in nb.cells)


def _moves_widgets(nb) -> bool:
    """The lesson builds widgets of its own, which the last cell moves (a progress bar is not moved)."""
    return any(c.cell_type == "code" and "ipywidgets" in c.source for c in nb.cells)


def _builds_widgets(nb) -> bool:
    """The lesson's own code builds widgets: it imports ipywidgets or calls one of the course's widget helpers (a
    progress bar from ``tqdm.auto`` is tqdm's widget, not the lesson's)."""
    helpers = widget_helpers()
    return any(c.cell_type == "code" and ("ipywidgets" in c.source or any(f"{h}(" in c.source for h in helpers))
               for c in nb.cells)


def _shows_a_bar(nb) -> bool:
    return any(c.cell_type == "code" and any(name in c.source for name in WIDGET_IMPORTS[1:]) for c in nb.cells)


def _lessons() -> list:
    """Every lesson whose own code builds widgets, and a lesson whose only widget is tqdm's progress bar when no
    lesson run here shows that bar already (the bar's code is tqdm's: one run under ipywidgets 7 covers it)."""
    notebooks = {p: nbtools.read(p) for p in ALL_LESSONS}
    chosen = [p for p, nb in notebooks.items() if _builds_widgets(nb)]
    bars = [p for p, nb in notebooks.items() if p not in chosen and _shows_a_bar(nb)]
    if bars and not any(_shows_a_bar(notebooks[p]) for p in chosen):
        chosen.append(bars[0])
    return sorted(chosen)


LESSONS = _lessons()

# The last cell: the version, then one change to every widget a learner can move, so the
# lesson's observers run under ipywidgets 7 (an exception in one fails the cell).
COLAB_CHECK = f"""\
import ipywidgets
assert ipywidgets.__version__ == "{COLAB_IPYWIDGETS}", ipywidgets.__version__
from ipywidgets.widgets.widget_selection import _Selection

moved = 0
for _w in list(ipywidgets.Widget.widgets.values()):
    if isinstance(_w, _Selection) and len(_w.options) > 1:
        _w.index = ((_w.index or 0) + 1) % len(_w.options)
    elif isinstance(_w, ipywidgets.FloatLogSlider):
        _w.value = _w.base ** (_w.max if _w.value != _w.base ** _w.max else _w.min)
    elif isinstance(_w, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        _w.value = _w.max if _w.value != _w.max else _w.min
    elif isinstance(_w, (ipywidgets.Checkbox, ipywidgets.ToggleButton)):
        _w.value = not _w.value
    else:
        continue
    moved += 1
print("ipywidgets", ipywidgets.__version__, "| widgets moved:", moved)
"""


@pytest.fixture(scope="session")
def colab_overlay():
    """A folder holding only Colab's ipywidgets and its two companions, built once and kept."""
    wanted = " ".join(OVERLAY_PACKAGES)
    stamp = OVERLAY / ".complete"
    if stamp.exists() and stamp.read_text() == wanted:
        return OVERLAY
    OVERLAY.parent.mkdir(parents=True, exist_ok=True)
    building = OVERLAY.with_name(f"{OVERLAY.name}.building-{os.getpid()}")  # two test processes may race
    shutil.rmtree(building, ignore_errors=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-deps", "--target", str(building), *OVERLAY_PACKAGES]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        pytest.fail(
            f"could not install Colab's widget packages ({wanted}) with pip; this test needs "
            f"access to PyPI (or a pip index holding them).\n$ {' '.join(cmd)}\n"
            f"{proc.stdout[-2000:]}{proc.stderr[-3000:]}",
            pytrace=False,
        )
    (building / ".complete").write_text(wanted)
    if OVERLAY.exists() and not (stamp.exists() and stamp.read_text() == wanted):
        shutil.rmtree(OVERLAY, ignore_errors=True)  # an unfinished or outdated overlay
    try:
        building.rename(OVERLAY)
    except OSError:  # another process finished first; use its overlay
        shutil.rmtree(building, ignore_errors=True)
    assert stamp.exists() and stamp.read_text() == wanted
    return OVERLAY


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_lesson_runs_with_colab_ipywidgets(path, colab_overlay, tmp_path):
    nb = nbtools.read(path)
    has_widgets = _moves_widgets(nb)
    nb.cells.append(nbformat.v4.new_code_cell(COLAB_CHECK))

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(colab_overlay), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("MPLBACKEND", None)  # the inline backend, as on Colab
    env["TORCH_LEDGER_PROGRESS"] = "off"

    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", kernel_manager_class=PromptKernelManager,
                                     shutdown_kernel="immediate",  # a kernel that imported torch takes ~1 s to exit
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=env)  # raises CellExecutionError naming the failing cell

    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert all(c.execution_count for c in code), "some cells did not run"
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    stderr = "".join(o.get("text", "") for o in outputs if o.get("name") == "stderr")
    assert "Traceback" not in stderr and "Error" not in stderr, stderr[-3000:]

    last = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert f"ipywidgets {COLAB_IPYWIDGETS}" in last, last

    views = [o["data"][WIDGET_VIEW]["model_id"] for o in outputs if WIDGET_VIEW in o.get("data", {})]
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if has_widgets:
        assert views, f"{path.name} imports ipywidgets but displayed no widget"
        moved = int(last.rsplit(":", 1)[1])
        assert moved > 0, f"{path.name}: no widget to move ({last.strip()})"
    missing = [v for v in views if v not in state]
    assert not missing, f"widgets displayed but never constructed in the kernel: {missing}"
    # ipywidgets 7 speaks version 1.x of the controls' model, ipywidgets 8 version 2.x.
    versions = {m["model_module_version"] for m in state.values() if m["model_module"] == "@jupyter-widgets/controls"}
    assert all(v.startswith("1.") for v in versions), versions
