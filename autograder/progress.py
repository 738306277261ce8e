"""The learner's progress: every self-check outcome, kept in a small JSON file of their own.

The file lives in the learner's home directory (``~/.torch-ledger/progress.json``)
or wherever ``TORCH_LEDGER_PROGRESS`` points — never inside the package.  Nothing
is recorded while a grader runs the notebook (``TORCH_LEDGER_PROGRESS=off``), and
a file that cannot be written never disturbs a check.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import time
from pathlib import Path

from . import core
from .course import MODULES, module_of_checks

PASSED, FAILED, NOT_ATTEMPTED = "passed", "failed", "not attempted"


def progress_file() -> Path | None:
    where = os.environ.get("TORCH_LEDGER_PROGRESS", "")
    if where.lower() in {"off", "0", "false", "none"}:
        return None
    return Path(where).expanduser() if where else Path.home() / ".torch-ledger" / "progress.json"


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def record(result: core.Result, checks_module: str | None = None) -> None:
    """Store one check's outcome (the latest outcome of each part wins)."""
    path = progress_file()
    module = module_of_checks(checks_module or "")
    if path is None or module is None or result.outcome == core.SKIPPED:
        return
    data = _load(path)
    parts = data.setdefault(module.id, {}).setdefault(result.function, {})
    parts[result.part] = {"outcome": result.outcome, "at": round(time.time())}
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write atomically: a learner may run two notebooks at once.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".progress-")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)


def status(data: dict | None = None) -> dict[str, dict[str, str]]:
    """``{module id: {function: passed | failed | not attempted}}`` for the whole course."""
    if data is None:
        path = progress_file()
        data = _load(path) if path else {}
    table = {}
    for module in MODULES:
        recorded = data.get(module.id, {})
        row = {}
        for function in module.functions:
            parts = [p.get("outcome") for p in recorded.get(function, {}).values() if isinstance(p, dict)]
            if parts and all(o == core.CORRECT for o in parts):
                row[function] = PASSED
            elif any(o == core.INCORRECT for o in parts):
                row[function] = FAILED
            else:
                row[function] = NOT_ATTEMPTED
        table[module.id] = row
    return table


_COLOURS = {PASSED: "#1a7f37", FAILED: "#cf222e", NOT_ATTEMPTED: "#d0d7de"}


class Progress:
    """What ``progress()`` returns: a table and a chart in a notebook, text elsewhere."""

    def __init__(self, table: dict[str, dict[str, str]]):
        self.table = table

    def counts(self) -> dict[str, dict[str, int]]:
        return {m: {s: list(row.values()).count(s) for s in (PASSED, FAILED, NOT_ATTEMPTED)}
                for m, row in self.table.items()}

    def __str__(self) -> str:
        lines = []
        for module_id, row in self.table.items():
            marks = ", ".join(f"{f}: {s}" for f, s in row.items())
            lines.append(f"{module_id}: {marks}")
        return "\n".join(lines)

    __repr__ = __str__

    def figure(self):
        import matplotlib.pyplot as plt

        counts = self.counts()
        names = list(counts)
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(names) + 1))
        left = [0] * len(names)
        for state in (PASSED, FAILED, NOT_ATTEMPTED):
            values = [counts[n][state] for n in names]
            ax.barh(names, values, left=left, color=_COLOURS[state], label=state)
            left = [a + b for a, b in zip(left, values)]
        ax.invert_yaxis()
        ax.set_xlabel("graded functions")
        ax.set_title("Your progress")
        ax.legend(loc="lower right", frameon=False, fontsize=8)
        fig.tight_layout()
        return fig

    def _repr_html_(self) -> str:
        rows = []
        for module_id, row in self.table.items():
            cells = "".join(
                f"<span style='display:inline-block;margin:1px 3px;padding:1px 6px;border-radius:3px;"
                f"background:{_COLOURS[s]};color:{'white' if s != NOT_ATTEMPTED else '#24292f'};"
                f"font-family:monospace' title='{html.escape(s)}'>{html.escape(f)}</span>"
                for f, s in row.items())
            rows.append(f"<tr><td style='text-align:left'><b>{html.escape(module_id)}</b></td>"
                        f"<td style='text-align:left'>{cells}</td></tr>")
        legend = " ".join(f"<span style='color:{_COLOURS[s]}'>■</span> {s}" for s in (PASSED, FAILED, NOT_ATTEMPTED))
        return f"<table class='torch-ledger-progress'>{''.join(rows)}</table><p>{legend}</p>"


def progress(show_chart: bool = True) -> Progress:
    """Your progress through the course, per module and graded function."""
    result = Progress(status())
    if show_chart and core._in_notebook():
        import matplotlib.pyplot as plt
        from IPython.display import display

        fig = result.figure()
        display(fig)
        plt.close(fig)
    return result
