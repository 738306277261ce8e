import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"  # screenshots, timings: kept after a run, ignored by git
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["TORCH_LEDGER_PROGRESS"] = "off"  # tests never write into the learner's progress file

# Every module with an nbgrader source notebook.
MODULE_IDS = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / f"{p.name}.ipynb").exists())


# Seconds each long scope (module, or class where a module has classes) took in a full three-worker run on a 2-core
# machine.  `make test` hands scopes to its workers in collection order (`--no-loadscope-reorder`);
# sorting the longest first lets the short ones fill the gaps at the end instead of a long one
# starting last while the others have nothing left.  Only the order depends on these figures.
SCOPE_SECONDS = {
    "tests/test_nbgrader.py::TestNbgrader07": 151, "tests/test_cohort.py": 135, "tests/test_grade_interrupts.py": 126,
    "tests/test_browser.py": 124, "tests/test_nbgrader.py::TestNbgrader09": 103,
    "tests/test_notebooks_run.py::TestLessons": 100, "tests/test_widgets_colab.py": 100,
    "tests/test_grading_environment.py": 89, "tests/test_nbgrader.py::TestNbgrader03": 78,
    "tests/test_nbgrader.py::TestNbgrader02": 68, "tests/test_nbgrader.py::TestNbgrader04": 60,
    "tests/test_nbgrader.py::TestNbgrader05": 54, "tests/test_nbgrader.py::TestNbgrader06": 51,
    "tests/test_notebooks_run.py::TestSolutions": 48, "tests/test_postgres.py": 43,
    "tests/test_nbgrader.py::TestNbgrader01": 41, "tests/test_nbgrader.py::TestNbgrader01b": 60, "tests/test_warm.py": 35, "tests/test_nbgrader.py::TestNbgrader08": 24,
    "tests/test_catalogue.py": 18, "tests/test_hints.py": 12, "tests/test_engine.py": 7, "tests/test_multiuser.py": 110,
}


def _scope(nodeid: str) -> str:
    """The unit `--dist loadscope` hands out: the class where there is one, else the module."""
    return nodeid.rsplit("::", 1)[0] if nodeid.count("::") > 1 else nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config, items):
    import torch

    items.sort(key=lambda item: -SCOPE_SECONDS.get(_scope(item.nodeid), 0))  # stable: a scope stays in order

    skip_gpu = pytest.mark.skip(reason="needs a CUDA device; none on this machine")
    no_browser = None
    if not shutil.which("chromium"):
        no_browser = pytest.mark.skip(reason="needs /usr/bin/chromium (apt-get install chromium)")
    for item in items:
        if "gpu" in item.keywords and not torch.cuda.is_available():
            item.add_marker(skip_gpu)
        if "browser" in item.keywords and no_browser is not None:
            item.add_marker(no_browser)


@pytest.fixture(scope="session")
def root():
    return ROOT


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the controller, not an xdist worker
        (ARTIFACTS / "notebook-times.jsonl").unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter):
    import json

    times = ARTIFACTS / "notebook-times.jsonl"
    if times.exists():
        terminalreporter.section("Run-All times and peak kernel memory (CPU)")
        for line in sorted(times.read_text().splitlines()):
            row = json.loads(line)
            terminalreporter.write_line(f"{row['seconds']:7.1f} s  {row.get('peak_mb', 0):6d} MB  {row['notebook']}")
