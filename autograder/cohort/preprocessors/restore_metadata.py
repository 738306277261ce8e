"""An nbgrader preprocessor that restores edited nbgrader cell metadata from the gradebook.

nbgrader's own sanitising (``OverwriteCells``) restores a locked cell's source, its
type, its ``locked`` flag and its points, and with ``add_missing_cells`` it puts
deleted test cells back.  It does not restore the ``grade`` and ``solution`` flags:
a submission whose test cell says ``"grade": false`` or ``"solution": true``, or whose
cell carries a grade id the gradebook does not know, fails nbgrader's metadata
validation and the whole notebook scores zero.  This preprocessor runs first and
resets every known cell's nbgrader metadata to what the gradebook recorded when the
assignment was generated; unknown grade ids are dropped (the cell becomes an ordinary
cell).  Everything else is left to nbgrader's pipeline.  Each reset is kept as a :class:`~.restored.Restored`
value (and logged), which the grading worker turns into the student's notes.
"""

from __future__ import annotations

from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from .restored import Restoring

_LEAD = "Restored nbgrader metadata of cell"


class RestoreCellMetadata(Restoring, NbGraderPreprocessor):
    """Reset each cell's nbgrader flags (grade, solution, task, locked, points) to the gradebook's."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            notebook = gb.find_notebook(info["notebook"], info["assignment"])
            grade = {c.name: float(c.max_score) for c in notebook.grade_cells}
            task = {c.name: float(c.max_score) for c in notebook.task_cells}
            solution = {c.name for c in notebook.solution_cells}
            locked = {c.name: bool(c.locked) for c in notebook.source_cells}
        for index, cell in enumerate(nb.cells):
            meta = cell.get("metadata", {}).get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            if grade_id not in locked:
                if grade_id is not None or meta:
                    self.restoring("metadata", f"#{index + 1}: grade id {grade_id!r} is not in the gradebook; made an "
                                   "ordinary cell", _LEAD)
                del cell.metadata["nbgrader"]
                continue
            want = {"grade": grade_id in grade, "solution": grade_id in solution, "task": grade_id in task,
                    "locked": locked[grade_id], "grade_id": grade_id, "schema_version": 3}
            if grade_id in grade or grade_id in task:
                want["points"] = grade.get(grade_id, task.get(grade_id))
            changed = sorted(k for k, v in want.items() if k != "schema_version" and not _same(meta.get(k), v))
            if changed:
                self.restoring("metadata", f"{grade_id} ({', '.join(changed)})", _LEAD)
            kept = {k: v for k, v in meta.items() if k in ("checksum", "cell_type")}
            cell.metadata["nbgrader"] = {**kept, **want}
        return nb, resources


def _same(a, b) -> bool:
    if isinstance(b, float):
        try:
            return float(a) == b
        except (TypeError, ValueError):
            return False
    return a == b
