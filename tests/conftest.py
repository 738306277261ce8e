import json
import os
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"  # screenshots, timings: kept after a run, ignored by git
sys.path.insert(0, str(ROOT))

from autograder.cohort.course import ensure_tools_on_path  # noqa: E402 - the repository's package, put first just above

# nbgrader runs `alembic` as a command when it creates a gradebook: `make test` puts the environment's bin/ first on
# PATH, and so does this for `python -m pytest` run by the environment's interpreter without it.  The package's own
# entry points do the same (Course.open, the nbgrader wrapper, the LMS export); tests that call nbgrader's API
# directly would otherwise depend on one of those having run first in the same process.
ensure_tools_on_path()
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["TORCH_LEDGER_PROGRESS"] = "off"  # tests never write into the learner's progress file

# Every module with an nbgrader source notebook.
MODULE_IDS = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / f"{p.name}.ipynb").exists())


# How long each long scope (module, or class where a module has classes) took, as recorded by a full run with
# `--record-scope-seconds` (tests/scope_seconds.json says which run).  `make test` hands scopes to its workers in
# collection order (`--no-loadscope-reorder`); sorting the longest first lets the short ones fill the gaps at the
# end instead of a long one starting last while the others have nothing left.  Only the order depends on these.
SCOPE_FILE = Path(__file__).with_name("scope_seconds.json")
SCOPE_SECONDS = json.loads(SCOPE_FILE.read_text())["seconds"] if SCOPE_FILE.exists() else {}
#: A scope shorter than this is not recorded: where it runs makes no difference to the end of the run.
SCOPE_RECORD_MIN = 5.0

# `make check` (pytest -m check): the inner loop a contributor runs after every edit, under a minute on two cores,
# with one pytest-xdist worker per core (each imports torch and the package once; its tests never wait).
# Nothing in it starts nbgrader or a grading kernel; `make test` proves the rest.
CHECK_FILES = frozenset({
    # the learner layer: outcomes and the message shape, the ledger, hints, progress, the diagnosis codes,
    # the messages of the checks, what a result carries, the lessons' instruments
    "tests/test_core.py", "tests/test_ledger.py", "tests/test_hints.py", "tests/test_progress.py",
    "tests/test_diagnoses.py", "tests/test_messages.py", "tests/test_outcomes.py", "tests/test_lessons_05_08.py",
    "tests/test_lessons_06.py",
    # one module's checks: its bug catalogue judged in process (--check-module), every catalogue's source
    "tests/test_catalogue.py", "tests/test_catalogue_source.py",
    # the coordinator's judgement and the grading worker's steps, without kernels; the records' round trips
    "tests/test_coordinator.py", "tests/test_worker_steps.py", "tests/test_records.py",
    # the naming and repository rules
    "tests/test_repo.py", "tests/test_recall.py",
})
#: Tests of those files that `make check` leaves to `make test`, and why.
CHECK_LEAVES_OUT = {
    "tests/test_repo.py::test_make_lab_starts_jupyterlab_for_whoever_runs_it": "starts JupyterLab",
    "tests/test_core.py::test_a_warm_template_trains_module_09s_reference_cnns_once_and_leaves_the_rng":
        "trains module 09's four reference CNNs: seconds, for module 09's checks",
}
CHECK_MODULE_DEFAULT = "04"


def pytest_addoption(parser):
    parser.addoption("--check-module", default=CHECK_MODULE_DEFAULT, metavar="ID",
                     help="with -m check: the module whose bug catalogue is judged (default %(default)s; "
                          "'04' or '04-five-line-step')")
    parser.addoption("--record-scope-seconds", action="store_true",
                     help=f"write each scope's seconds into {SCOPE_FILE.name} after the run (merged with the "
                          "scopes this run did not measure): `make test` orders its scopes by them")


def pytest_ignore_collect(collection_path, config):
    """With ``-m check`` only CHECK_FILES are imported: importing the others to deselect them takes seconds."""
    if config.getoption("markexpr") == "check" and collection_path.name.startswith("test_"):
        if collection_path.suffix == ".py" and collection_path.parent == ROOT / "tests":
            return f"tests/{collection_path.name}" not in CHECK_FILES
    return None


def pytest_configure(config):
    # One thread, as in a grading kernel (kernels/confinement.py, ONE_THREAD) and as every check runs
    # (autograder.core.one_intra_op_thread): the course's tensors are small, and with the suite's processes on two
    # cores torch's threads mostly wait for each other (half the loop's CPU time).  The kernels the suite starts
    # (lessons, nbgrader) inherit it; a test that needs more threads sets them itself.
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    if "torch" in sys.modules:  # started already (a plugin): tell it directly
        sys.modules["torch"].set_num_threads(1)


def _catalogue_module(item) -> str | None:
    """The module whose bug catalogue a test of test_catalogue.py judges: "04" for ``m04_five_line_step``."""
    name = getattr(item.cls, "CATALOGUE", "") or getattr(getattr(item, "callspec", None), "params", {}).get("name", "")
    return name[1:].split("_", 1)[0] if name else None


def _check_module(config) -> str:
    wanted = config.getoption("check_module").split("-", 1)[0]
    known = [m.split("-", 1)[0] for m in MODULE_IDS]
    if wanted not in known:
        raise pytest.UsageError(f"--check-module {config.getoption('check_module')!r}: no such module; "
                                f"one of {', '.join(known)}")
    return wanted


def _mark_check(items, module: str) -> None:
    """Put the ``check`` marker on what `make check` runs (see CHECK_FILES)."""
    check = pytest.mark.check
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if path not in CHECK_FILES or item.nodeid in CHECK_LEAVES_OUT:
            continue
        if any(mark in item.keywords for mark in ("slow", "browser", "gpu")):
            continue
        if path == "tests/test_catalogue.py" and _catalogue_module(item) not in (None, module):
            continue
        item.add_marker(check)


def _scope(nodeid: str) -> str:
    """The unit `--dist loadscope` hands out: the class where there is one, else the module."""
    return nodeid.rsplit("::", 1)[0] if nodeid.count("::") > 1 else nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config, items):
    import torch

    items.sort(key=lambda item: -SCOPE_SECONDS.get(_scope(item.nodeid), 0))  # stable: a scope stays in order
    _mark_check(items, _check_module(config))

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


_SCOPE_TOTALS: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report):
    """Each test's setup, call and teardown, summed per scope (on the controller, xdist's workers report there)."""
    _SCOPE_TOTALS[_scope(report.nodeid)] += report.duration


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("record_scope_seconds") or not _SCOPE_TOTALS:
        return
    seconds = dict(SCOPE_SECONDS)
    for scope, total in _SCOPE_TOTALS.items():
        seconds.pop(scope, None)
        if total >= SCOPE_RECORD_MIN:
            seconds[scope] = round(total)
    workers = getattr(config.option, "numprocesses", None) or 1
    recorded = {"when": time.strftime("%Y-%m-%d"), "args": " ".join(config.invocation_params.args),
                "workers": workers, "cores": os.cpu_count(), "scopes measured": len(_SCOPE_TOTALS),
                "exit status": int(exitstatus)}
    ordered = dict(sorted(seconds.items(), key=lambda kv: (-kv[1], kv[0])))
    SCOPE_FILE.write_text(json.dumps({"recorded": recorded, "seconds": ordered}, indent=1) + "\n")


def pytest_terminal_summary(terminalreporter):
    times = ARTIFACTS / "notebook-times.jsonl"
    if times.exists():
        terminalreporter.section("Run-All times and peak kernel memory (CPU)")
        for line in sorted(times.read_text().splitlines()):
            row = json.loads(line)
            terminalreporter.write_line(f"{row['seconds']:7.1f} s  {row.get('peak_mb', 0):6d} MB  {row['notebook']}")
