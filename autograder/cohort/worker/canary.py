"""Canary cells: detect a kernel whose student code tampers with the grading.

Student code runs in the same kernel as the tests, before them, so it can install an
IPython input transformer that rewrites later cells, monkeypatch a check, or replace
``check`` altogether, and then every test "passes".  Such a kernel is caught by what
it does to cells it cannot tell from tests.

At grading time, after the student's notebook, we append

1. a set-up cell that rebinds every graded function's name to a stand-in that raises an
   error carrying a fresh random nonce, and
2. one cell per test cell, with **exactly** that test cell's source.

In an honest kernel each of those copies fails with ``CheckFailed`` and the nonce in
its message (the check called the stand-in, which raised).  A copy that passes, or
fails in any other way, means the kernel does not run test cells as written: the
notebook scores zero and is flagged for review.

This raises the bar; it is not a proof.  Code that reads the cells it is given can,
in principle, recognise the canary, which is why the static scan (``scan.py``) also
flags answer cells that reach for the kernel's machinery.

This module builds the cells and reads what they did in the worker; the coordinator judges those observations
against the calibration run's (:mod:`autograder.cohort.run.canary_verdict`).
"""

from __future__ import annotations

import secrets

import nbformat

MARK = "autograder"  # cell metadata key of the cells appended here


def new_nonce() -> str:
    return secrets.token_hex(12)


def _stand_in_source(functions: list[str], nonce: str) -> str:
    maker = "_f" + secrets.token_hex(4)
    lines = [
        # Plain tracebacks: IPython's verbose ones (source context, every frame highlighted) cost a canary cell
        # about 50 ms each, most of the canary's time; what the canary reads is the error's name and message.
        "try:",
        "    get_ipython().run_line_magic('xmode', 'Minimal')",
        "except Exception:",
        "    pass",
        f"def {maker}(name):",
        "    def stand_in(*args, **kwargs):",
        f"        raise ValueError('shapes do not line up ({nonce})')",
        "    stand_in.__name__ = stand_in.__qualname__ = name",
        "    return stand_in",
    ]
    lines += [f"{name} = {maker}({name!r})" for name in functions]
    lines.append(f"del {maker}")
    return "\n".join(lines)


def canary_cells(tests: list[tuple[str, str]], functions: list[str], nonce: str) -> list:
    """The cells to append: a set-up cell, then one copy of each ``(test id, source)``."""
    setup = nbformat.v4.new_code_cell(_stand_in_source(functions, nonce))
    setup.metadata[MARK] = {"canary": "setup"}
    cells = [setup]
    for test_id, source in tests:
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata[MARK] = {"canary": test_id}
        cells.append(cell)
    return cells


def append(nb, tests: list[tuple[str, str]], functions: list[str], nonce: str):
    """``nb`` with the canary cells appended (modified in place and returned)."""
    if nb.get("nbformat_minor", 0) < 5:
        nb.nbformat_minor = 5
        for cell in nb.cells:
            cell.setdefault("id", secrets.token_hex(4))
    nb.cells.extend(canary_cells(tests, functions, nonce))
    return nb


def is_canary(cell) -> bool:
    return MARK in cell.get("metadata", {}) and "canary" in cell.metadata[MARK]


def strip(nb):
    """``nb`` without the canary cells (modified in place and returned)."""
    nb.cells = [c for c in nb.cells if not is_canary(c)]
    return nb


def _error(cell) -> tuple[str, str] | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return out.get("ename", ""), str(out.get("evalue", "")) + " ".join(out.get("traceback", []))
    return None


def observe(nb, nonce: str) -> dict[str, str]:
    """What each canary cell of an executed notebook did.

    ``{"setup": "ok" | "error:NAME" | "not run", TEST_ID: OBSERVATION}`` where an observation is
    ``nonce`` (``CheckFailed`` carrying the nonce), ``checkfailed`` (``CheckFailed`` without it),
    ``passed``, ``error:NAME`` (another exception) or ``not run``.
    """
    seen: dict[str, str] = {}
    for cell in nb.cells:
        if not is_canary(cell):
            continue
        name = cell.metadata[MARK]["canary"]
        error = _error(cell)
        if cell.get("execution_count") is None and not cell.get("outputs"):
            seen[name] = "not run"
        elif name == "setup":
            seen[name] = "ok" if error is None else f"error:{error[0]}"
        elif error is None:
            seen[name] = "passed"
        elif error[0] == "CheckFailed":
            seen[name] = "nonce" if nonce in error[1] else "checkfailed"
        else:
            seen[name] = f"error:{error[0]}"
    return seen
