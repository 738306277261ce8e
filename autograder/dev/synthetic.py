"""Synthetic cohorts built from an assignment's solution, its release and its bug catalogue.

``demo-cohort`` and ``bench-grade`` use them; the bug catalogues live with the test suite
(``autograder/dev/catalogue/mNN_*.py``: ``MUTANTS`` of known-wrong answers, ``VARIANTS`` of
correct ones in other styles).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import nbtools

REPO = Path(__file__).resolve().parents[2]


def load_catalogue(module_id: str):
    """The bug catalogue of ``module_id`` (``None`` when the module has none)."""
    from . import catalogue

    for name in catalogue.MODULES:
        module = importlib.import_module(f"{catalogue.__name__}.{name}")
        if getattr(module, "MODULE", None) == module_id:
            return module
    return None


@dataclass
class Cohort:
    """Honest submissions: ``{student: notebook}`` and what each one is."""

    notebooks: dict[str, nbformat.NotebookNode] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # student -> solution | variant | mutant | blank


def honest_cohort(solution, release, catalogue, size: int | None = None) -> Cohort:
    """The solution, the blank release, every variant and every mutant (cycled to ``size`` if given)."""
    base: list[tuple[str, str, nbformat.NotebookNode]] = [("solution", "solution", solution),
                                                          ("blank", "blank", release)]
    if catalogue is not None:
        base += [(f"variant-{_dashed(n)}", "variant", nbtools.substitute(solution, a))
                 for n, a in catalogue.VARIANTS.items()]
        base += [(f"mutant-{_dashed(n)}", "mutant", nbtools.substitute(solution, m.answers))
                 for n, m in catalogue.MUTANTS.items()]
    if size is None:
        size = len(base)
    cohort = Cohort()
    for i in range(size):
        name, kind, nb = base[i % len(base)]
        student = name if i < len(base) else f"{name}-{i // len(base) + 1}"
        cohort.notebooks[student] = nb
        cohort.kinds[student] = kind
    return cohort


def _dashed(name: str) -> str:
    """Catalogue names as student ids (LMS file names split student ids at underscores)."""
    return name.replace("_", "-")


def pick_mutant(catalogue) -> tuple[dict, str]:
    """A catalogue mutant's answers and one test it fails (for the hostile cases built on it)."""
    name = "standardize_dim1" if "standardize_dim1" in catalogue.MUTANTS else next(iter(catalogue.MUTANTS))
    mutant = catalogue.MUTANTS[name]
    return mutant.answers, mutant.breaks[0]
