"""Run notebooks top to bottom outside JupyterLab, without the stock client's stall.

``jupyter nbconvert --execute`` and papermill drive a kernel through nbclient with jupyter_client's own
client, which can sit out a cell's whole timeout on a reply that has already arrived (the missed wake-up
described in :mod:`autograder.cohort.kernels.client`): on this course's lessons, one lesson in a full run took
about 300 s instead of 30, a different one each time.  :func:`run_notebook` is nbclient with the course's
:class:`~autograder.cohort.kernels.client.PromptKernelManager`; :func:`execute_lessons` is what
``python -m autograder execute-lessons`` (``make lessons``) runs for an instructor who builds a static site
from the lessons or checks them in a CI.  The test suite runs every lesson and solution through
:func:`run_notebook` too.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: nbconvert's option that gives it the same client (README, "Running the lessons outside JupyterLab").
NBCONVERT_OPTION = "--ExecutePreprocessor.kernel_manager_class=autograder.cohort.kernels.client.PromptKernelManager"


def run_notebook(nb, cwd: Path, timeout: float = 300, allow_errors: bool = False, env: dict | None = None) -> float:
    """Execute ``nb`` (an nbformat notebook, changed in place) in a new kernel whose working directory is
    ``cwd`` (and whose environment is ``env``, this process's by default); the seconds it took.  Raises nbclient's
    ``CellExecutionError`` (naming the cell) when a cell fails, unless ``allow_errors``."""
    import nbclient

    from .kernels.client import PromptKernelManager

    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     kernel_manager_class=PromptKernelManager, allow_errors=allow_errors,
                                     shutdown_kernel="immediate",  # a kernel that imported torch takes ~1 s to exit
                                     resources={"metadata": {"path": str(cwd)}})
    start = time.perf_counter()
    client.execute(**({} if env is None else {"env": env}))
    return time.perf_counter() - start


@dataclass
class LessonRun:
    """One notebook's run: where it came from and went, how long it took, and the error that stopped it."""

    notebook: Path
    output: Path | None
    seconds: float
    error: str = ""

    def line(self) -> str:
        if self.error:
            return f"FAILED {self.notebook} after {self.seconds:.1f} s: {self.error}"
        return f"ran    {self.notebook} in {self.seconds:.1f} s -> {self.output}"


def execute_lessons(paths, out_dir: Path, timeout: float = 300) -> list[LessonRun]:
    """Run each notebook of ``paths`` in a fresh kernel, in an empty temporary working directory (what a
    lesson writes, such as checkpoints and exported programs, is left out of the course), and write the
    executed copy, outputs included, to ``out_dir/<name>``.  A notebook that fails is reported with its
    first failing cell and written as far as it ran; the others still run."""
    import nbformat
    from nbclient.exceptions import CellExecutionError

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = []
    for path in map(Path, paths):
        if not path.is_file():
            runs.append(LessonRun(path, None, 0.0, "no such notebook"))
            continue
        nb = nbformat.read(path, as_version=4)
        error, start = "", time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="lesson-") as cwd:
            try:
                run_notebook(nb, Path(cwd), timeout=timeout)
            except CellExecutionError as failed:
                error = f"{failed.ename}: {failed.evalue}".strip()
            except Exception as failed:  # noqa: BLE001 - a kernel that died or timed out is this notebook's failure
                error = f"{type(failed).__name__}: {failed}".strip()
        output = out_dir / path.name
        nbformat.write(nb, output)
        runs.append(LessonRun(path, output, time.perf_counter() - start, error.splitlines()[0] if error else ""))
    return runs


def default_lessons(course: Path) -> list[Path]:
    """Every lesson notebook of the course, in the order of its file names (the start page first)."""
    return sorted(Path(course).glob("course/*.ipynb"))
