"""nbgrader's cell metadata, read in one place: what a cell is to nbgrader, and a notebook's answer and test cells.

A notebook is an ``nbformat`` node or the plain dict of its JSON; a cell without nbgrader metadata is
neither an answer nor a test.
"""

from __future__ import annotations


def nbgrader_meta(cell) -> dict:
    """The cell's ``metadata.nbgrader`` (empty when nbgrader never marked it)."""
    return (cell.get("metadata") or {}).get("nbgrader") or {}


def grade_id(cell) -> str | None:
    return nbgrader_meta(cell).get("grade_id")


def is_answer(cell) -> bool:
    """An autograded answer cell: code nbgrader clears to a stub (solution), not itself graded."""
    meta = nbgrader_meta(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("solution")) and not meta.get("grade")


def is_test(cell) -> bool:
    """A graded test cell (code with points)."""
    return cell.get("cell_type") == "code" and bool(nbgrader_meta(cell).get("grade"))


def answer_cells(nb) -> dict:
    """``{grade_id: cell}`` of the notebook's answer cells, in order."""
    return {grade_id(c): c for c in nb["cells"] if is_answer(c) and grade_id(c)}


def test_cells(nb) -> dict:
    """``{grade_id: cell}`` of the notebook's graded test cells, in order."""
    return {grade_id(c): c for c in nb["cells"] if is_test(c) and grade_id(c)}


def answer_sources(nb) -> dict[str, str]:
    """``{grade_id: source}`` of the notebook's answer cells, in order."""
    return {name: cell["source"] for name, cell in answer_cells(nb).items()}


def strip_solution_markers(source: str) -> str:
    """An answer cell's source without nbgrader's ``### BEGIN/END SOLUTION`` lines: the solution as a learner
    would write it (catalogues edit it into mutants)."""
    return "\n".join(line for line in source.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")) + "\n"
