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


def pytest_collection_modifyitems(config, items):
    import torch

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
