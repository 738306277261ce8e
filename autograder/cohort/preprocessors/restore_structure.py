"""An nbgrader preprocessor that puts a submission's cells back into the shape of its release.

A student can delete a test cell, duplicate one, move cells about, or lose the cells' nbgrader metadata
(a notebook pasted into a fresh one).  nbgrader's ``OverwriteCells`` puts a deleted test cell back only
after the grade or answer cell that precedes it in the release, and stops the whole notebook with a
``KeyError`` when that neighbour is a locked cell of another kind (module 04's test cells follow a locked
demonstration cell), which reads as the grader's fault.  It is the student's doing, and the release says
what the notebook must hold, so this runs first and restores it:

* a cell whose grade id appears again keeps its first copy; the later copies become ordinary cells;
* a cell with no nbgrader metadata whose source is a locked cell's is that cell again, and the one unknown
  code cell between two known neighbours, where the release has an answer cell, is that answer;
* every cell of the release that is still missing is put back (an answer cell as its released stub);
* the known cells are put back in the release's order, each of the student's own cells kept after the
  known cell it followed.

Each change is kept as a :class:`~.restored.Restored` value (and logged); the grading worker turns those
into the student's notes, and the report flags the submission.  The gradebook's cell order is the release's (nbgrader's own
``OverwriteCells`` relies on the same).
"""

from __future__ import annotations

import nbformat
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from .restored import Restoring


class RestoreStructure(Restoring, NbGraderPreprocessor):
    """Duplicates, lost metadata, missing cells and order, restored from the gradebook's copy of the release."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            notebook = gb.find_notebook(info["notebook"], info["assignment"])
            release = [(c.name, c.cell_type, c.source, bool(c.locked)) for c in notebook.source_cells]
            grade = {c.name: float(c.max_score) for c in notebook.grade_cells}
            solution = {c.name for c in notebook.solution_cells}
        cells, changes = restore(list(nb.cells), release, grade, solution)
        nb.cells = cells
        for change in changes:
            self.restoring("structure", change, "Restored the notebook's structure:")
        return nb, resources


def _grade_id(cell) -> str | None:
    meta = cell.get("metadata", {}).get("nbgrader")
    return meta.get("grade_id") if isinstance(meta, dict) else None


def restore(cells: list, release: list[tuple], grade: dict, solution: set) -> tuple[list, list[str]]:
    """``(cells, changes)``: ``cells`` in the release's shape and what was changed, in words.

    ``release``: ``(grade id, cell type, source, locked)`` of each known cell, in release order; ``grade``:
    the test cells' points; ``solution``: the answer cells' ids."""
    # The cells the grader itself appended (the canary's, marked in their metadata) stay last, as appended, and
    # are never taken for the student's: a canary copy has exactly its test cell's source.
    tail = [c for c in cells if _appended(c)]
    cells = [c for c in cells if not _appended(c)]
    order = [name for name, *_ in release]
    changes: list[str] = []
    known: dict[str, int] = {}  # grade id -> index in cells of its first copy
    for index, cell in enumerate(cells):
        name = _grade_id(cell)
        if name in order and name in known:
            del cell.metadata["nbgrader"]
            changes.append(f"duplicated cell {name}; the later copy is graded as an ordinary cell")
        elif name in order:
            known[name] = index
    _recognise(cells, release, known, changes)
    missing = [name for name in order if name not in known]
    for name in missing:
        what = "test cell" if name in grade else "answer cell" if name in solution else "locked cell"
        changes.append(f"deleted {what} {name}; put back as released")
    if sorted(known, key=known.get) != [name for name in order if name in known]:
        changes.append("moved cells; put back in the order they were released in")
    if not changes:
        return cells + tail, []
    lead, after, last = [], {}, None
    at = {index: name for name, index in known.items()}
    for index, cell in enumerate(cells):
        name = at.get(index)
        if name is not None:
            last = name
        elif last is None:
            lead.append(cell)
        else:
            after.setdefault(last, []).append(cell)
    rebuilt = list(lead)
    for name, cell_type, source, locked in release:
        if name in known:
            rebuilt.append(cells[known[name]])
        else:
            rebuilt.append(_released(name, cell_type, source, locked, grade, solution))
        rebuilt += after.get(name, [])
    return rebuilt + tail, changes


def _appended(cell) -> bool:
    """A cell the grader appended (``autograder.cohort.worker.canary.MARK`` in its metadata)."""
    return "autograder" in cell.get("metadata", {})


def _recognise(cells: list, release: list[tuple], known: dict, changes: list[str]) -> None:
    """Give back their grade ids to cells that lost their nbgrader metadata: a locked cell by its exact source, then
    an answer cell as the one unknown code cell between the known cells around it in the release."""
    order = [name for name, *_ in release]
    unknown = {i for i, c in enumerate(cells) if _grade_id(c) not in order}
    by_source = {}
    for name, cell_type, source, locked in release:
        if locked and name not in known:
            by_source.setdefault((cell_type, source.strip()), name)
    for index in sorted(unknown):
        cell = cells[index]
        name = by_source.pop((cell.get("cell_type"), str(cell.get("source", "")).strip()), None)
        if name is not None and name not in known:
            _mark(cell, name)
            known[name] = index
            unknown.discard(index)
            changes.append(f"lost the nbgrader metadata of cell {name}; recognised by its source")
    for position, (name, cell_type, _source, locked) in enumerate(release):
        if locked or name in known or cell_type != "code":
            continue
        before = next((known[n] for n in reversed(order[:position]) if n in known), -1)
        following = next((known[n] for n in order[position + 1:] if n in known), len(cells))
        between = [i for i in sorted(unknown) if before < i < following and cells[i].get("cell_type") == "code"]
        if len(between) == 1:
            _mark(cells[between[0]], name)
            known[name] = between[0]
            unknown.discard(between[0])
            changes.append(f"lost the nbgrader metadata of answer cell {name}; recognised by its place")


def _mark(cell, name: str) -> None:
    """Give ``cell`` the grade id ``name``; RestoreCellMetadata, which runs next, sets the rest from the gradebook."""
    cell.setdefault("metadata", {})["nbgrader"] = {"grade_id": name, "schema_version": 3}


def _released(name: str, cell_type: str, source: str, locked: bool, grade: dict, solution: set):
    meta = {"grade": name in grade, "solution": name in solution, "task": False, "locked": locked, "grade_id": name,
            "schema_version": 3}
    if name in grade:
        meta["points"] = grade[name]
    if cell_type == "markdown":
        return nbformat.v4.new_markdown_cell(source, metadata={"nbgrader": meta})
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})
