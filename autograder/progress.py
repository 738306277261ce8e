"""The learner's progress: every self-check outcome, kept in a small JSON file of their own.

The file lives in the learner's home directory (``~/.torch-ledger/progress.json``)
or wherever ``TORCH_LEDGER_PROGRESS`` points — never inside the package.  Nothing
is recorded while a grader runs the notebook (:func:`is_grading`; or with
``TORCH_LEDGER_PROGRESS=off``), and a file that cannot be written never disturbs a check.

Each module's entry holds one entry per graded function (``{part: {"outcome", "at"}}``)
and, once a hint was shown, ``"hints": {function: highest level shown}``.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import time
from pathlib import Path

from . import core
from .outcome import Outcome
from .syllabus import MODULES, module_of_checks

#: A graded function's state in the progress table, from its checks' outcomes.
PASSED, FAILED, NOT_ATTEMPTED = "passed", "failed", "not attempted"

#: Set to 1 in every kernel a grader runs (the cohort sandbox, ``nbgrader autograde`` through
#: ``nbgrader_config.py``): hints show nothing and nothing is recorded.
GRADING_ENV = "TORCH_LEDGER_GRADING"
HINTS_KEY = "hints"
REVEALED_KEY = "revealed"  # {function: when its reference answer was shown} (check.solution)


def is_grading() -> bool:
    """True while a grader runs the notebook: ``TORCH_LEDGER_GRADING`` is set (to anything but 0/false/off),
    or nbgrader itself is executing it (``NBGRADER_EXECUTION``, which nbgrader sets for autograde and validate)."""
    flag = os.environ.get(GRADING_ENV, "").strip().lower()
    if flag and flag not in {"0", "false", "off", "no"}:
        return True
    return os.environ.get("NBGRADER_EXECUTION", "") in {"autograde", "validate"}


def progress_file() -> Path | None:
    if is_grading():
        return None
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


def _module_of(checks_module: str):
    """The course module of a checks module, by name or else by its number (``m02_autograd`` is 02's)."""
    found = module_of_checks(checks_module)
    if found is None:
        short = checks_module.rsplit(".", 1)[-1]
        numbered = [m for m in MODULES if short[:1] == "m" and m.number == short[1:].split("_", 1)[0]]
        found = numbered[0] if len(numbered) == 1 else None
    return found


def _entry(data: dict, key: str) -> dict:
    """``data[key]`` as a dict (a damaged entry is replaced)."""
    if not isinstance(data.get(key), dict):
        data[key] = {}
    return data[key]


def _save(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write atomically: a learner may run two notebooks at once.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".progress-")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)


def record(result: core.Result, checks_module: str | None = None) -> None:
    """Store one check's outcome (the latest outcome of each part wins)."""
    path = progress_file()
    module = _module_of(checks_module or "")
    if path is None or module is None or result.outcome == Outcome.SKIPPED:
        return
    data = _load(path)
    parts = _entry(_entry(data, module.id), result.function)
    parts[result.part] = {"outcome": result.outcome, "at": round(time.time())}
    _save(path, data)


def record_hint(module_id: str, function: str, level: int) -> None:
    """Note that hint ``level`` of ``function`` was shown (the highest level shown is kept).  Never raises."""
    try:
        path = progress_file()
        if path is None:
            return
        data = _load(path)
        used = _entry(_entry(data, module_id), HINTS_KEY)
        before = used.get(function)
        if isinstance(before, int) and before >= level:
            return
        used[function] = int(level)
        _save(path, data)
    except Exception:  # noqa: BLE001 - a file that cannot be written never disturbs the learner
        pass


def record_revealed(module_id: str, function: str) -> None:
    """Note that the reference answer of ``function`` was shown (``check.solution``).  Never raises."""
    try:
        path = progress_file()
        if path is None:
            return
        data = _load(path)
        _entry(_entry(data, module_id), REVEALED_KEY).setdefault(function, round(time.time()))
        _save(path, data)
    except Exception:  # noqa: BLE001 - a file that cannot be written never disturbs the learner
        pass


def revealed(data: dict | None = None) -> dict[str, list[str]]:
    """``{module id: [functions whose reference answer was shown]}``."""
    data = _recorded(data)
    found = {}
    for module in MODULES:
        entry = data.get(module.id)
        shown = entry.get(REVEALED_KEY) if isinstance(entry, dict) else None
        if isinstance(shown, dict) and shown:
            found[module.id] = [f for f in module.functions if f in shown]
    return {m: fs for m, fs in found.items() if fs}


def _recorded(data: dict | None) -> dict:
    """``data`` if given, else what the progress file holds (empty when there is none)."""
    if data is not None:
        return data
    path = progress_file()
    return _load(path) if path else {}


def hints_used(data: dict | None = None) -> dict[str, dict[str, int]]:
    """``{module id: {function: highest hint level shown}}`` (modules and functions without hints left out)."""
    data = _recorded(data)
    found = {}
    for module in MODULES:
        entry = data.get(module.id)
        used = entry.get(HINTS_KEY) if isinstance(entry, dict) else None
        if isinstance(used, dict):
            row = {f: n for f, n in used.items() if isinstance(n, int) and not isinstance(n, bool) and n > 0}
            if row:
                found[module.id] = row
    return found


def status(data: dict | None = None) -> dict[str, dict[str, str]]:
    """``{module id: {function: passed | failed | not attempted}}`` for the whole course."""
    data = _recorded(data)
    table = {}
    for module in MODULES:
        recorded = data.get(module.id, {})
        recorded = recorded if isinstance(recorded, dict) else {}
        row = {}
        for function in module.functions:  # the "hints" key is no function: it is never read here
            parts = recorded.get(function, {})
            parts = [p.get("outcome") for p in parts.values() if isinstance(p, dict)] if isinstance(parts, dict) else []
            if parts and all(o == Outcome.CORRECT for o in parts):
                row[function] = PASSED
            elif any(o == Outcome.INCORRECT for o in parts):
                row[function] = FAILED
            else:
                row[function] = NOT_ATTEMPTED
        table[module.id] = row
    return table


_COLOURS = {PASSED: "#1a7f37", FAILED: "#cf222e", NOT_ATTEMPTED: "#d0d7de"}


class Progress:
    """What ``progress()`` returns: a table and a chart in a notebook, text elsewhere."""

    def __init__(self, table: dict[str, dict[str, str]], hints: dict[str, dict[str, int]] | None = None,
                 revealed: dict[str, list[str]] | None = None):
        self.table = table
        self.hints = hints or {}
        self.revealed = revealed or {}

    def _title(self, module_id: str, function: str, state: str) -> str:
        used = self.hints.get(module_id, {}).get(function)
        title = f"{state}; {used} hint{'s' if used != 1 else ''} used" if used else state
        return title + ("; answer revealed" if function in self.revealed.get(module_id, ()) else "")

    def counts(self) -> dict[str, dict[str, int]]:
        return {m: {s: list(row.values()).count(s) for s in (PASSED, FAILED, NOT_ATTEMPTED)}
                for m, row in self.table.items()}

    def __str__(self) -> str:
        lines = []
        for module_id, row in self.table.items():
            marks = ", ".join(f"{f}: {s}" + (" (answer revealed)" if f in self.revealed.get(module_id, ()) else "")
                              for f, s in row.items())
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
                f"font-family:monospace' title='{html.escape(self._title(module_id, f, s))}'>{html.escape(f)}"
                f"{' ◆' if f in self.revealed.get(module_id, ()) else ''}</span>"
                for f, s in row.items())
            rows.append(f"<tr><td style='text-align:left'><b>{html.escape(module_id)}</b></td>"
                        f"<td style='text-align:left'>{cells}</td></tr>")
        legend = " ".join(f"<span style='color:{_COLOURS[s]}'>■</span> {s}" for s in (PASSED, FAILED, NOT_ATTEMPTED))
        legend += " · ◆ answer revealed with check.solution" if any(self.revealed.values()) else ""
        return f"<table class='torch-ledger-progress'>{''.join(rows)}</table><p>{legend}</p>"


def progress(show_chart: bool = True) -> Progress:
    """Your progress through the course, per module and graded function."""
    result = Progress(status(), hints_used(), revealed())
    if show_chart and core._in_notebook():
        import matplotlib.pyplot as plt
        from IPython.display import display

        fig = result.figure()
        display(fig)
        plt.close(fig)
    return result


def subscribe() -> None:
    """Record every result a check shows in the learner's progress file: :func:`record` joins
    ``core.RESULT_LISTENERS`` once, however often this is called (also after this module is reloaded).
    The checks' package calls it when it is first imported (``autograder/checks/__init__.py``)."""
    core.RESULT_LISTENERS[:] = [f for f in core.RESULT_LISTENERS if getattr(f, "__module__", None) != __name__] + [record]
