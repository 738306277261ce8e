"""Bug catalogues: known-wrong submissions (mutants) and known-right ones (variants).

Each module's catalogue defines

* ``MODULE``   – the module id (``"01-tensors"``);
* ``MUTANTS``  – ``{name: Mutant(answers, breaks, code)}``: ``answers`` replaces answer
  cells by grade_id, ``breaks`` names the test cells that must lose points, and
  ``code`` (optional) is the diagnosis code the learner must be shown;
* ``VARIANTS`` – ``{name: answers}``: correct solutions in other styles that must keep
  full marks.

A mutant that is one mistake in the solution is written as that mistake: ``patched(MODULE, "train_step",
(old, new), ...)``, the solution's own answer cell with a few replacements.
"""

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[3]  # the repository (solutions/ holds the solutions)


@dataclass
class Mutant:
    answers: dict
    breaks: list
    codes: list = field(default_factory=list)
    needs_cuda: bool = False  # only a CUDA device can expose it (e.g. a batch left on the CPU)


# Every catalogue module in this folder (m01_tensors.py, m02_..., ...).
MODULES = sorted(p.stem for p in Path(__file__).parent.glob("m[0-9][0-9]_*.py"))


def edited(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` replacement made once; ``old`` must occur in it."""
    for old, new in edits:
        if old not in source:
            raise ValueError(f"{old!r} is not in the source being edited")
        source = source.replace(old, new, 1)
    return source


_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


@cache
def _solution_cells(module_id: str) -> dict:
    """``{grade_id: source}`` of the solution notebook's answer cells, without nbgrader's solution markers."""
    nb = nbformat.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb", as_version=4)
    cells = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution") and not meta.get("grade"):
            lines = [line for line in cell.source.splitlines() if line.strip() not in _MARKERS]
            cells[meta["grade_id"]] = "\n".join(lines) + "\n"
    return cells


def solution_of(module_id: str, function: str) -> str:
    """The whole answer cell ``function`` of the module's solution notebook, as a learner's correct cell holds
    it (without nbgrader's solution markers); a class's cell, or one of several definitions, comes whole."""
    cells = _solution_cells(module_id)
    if function not in cells:
        raise KeyError(f"{module_id} has no answer cell {function!r}; it has {sorted(cells)}")
    return cells[function]


def patched(module_id: str, function: str, *edits: tuple[str, str]) -> dict:
    """``{function: source}``: the solution's answer cell ``function`` with each ``(old, new)`` made once."""
    return {function: edited(solution_of(module_id, function), *edits)}


def repair_catalogue(task: str, starter: str, fixes: dict, left: dict):
    """A repair task's catalogue: ``fixes`` maps each planted bug to the edits that repair it, ``left`` maps it
    to ``(test cells, diagnosis code)``. Returns ``repaired(*keep_broken, extra=())``, which builds the
    starter with every bug but ``keep_broken`` repaired (plus ``extra`` edits), and the mutants
    ``repair_left_<bug>``: each planted bug left in alone."""

    def repaired(*keep_broken, extra=()):
        edits = [e for name, fix in fixes.items() if name not in keep_broken for e in fix]
        return {task: edited(starter, *edits, *extra)}

    mutants = {f"repair_left_{bug}": Mutant(repaired(bug), [cells] if isinstance(cells, str) else list(cells), [code])
               for bug, (cells, code) in left.items()}
    return repaired, mutants
