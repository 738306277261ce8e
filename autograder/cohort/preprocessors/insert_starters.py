"""An nbgrader release step: a repair task's answer cell gets its starter code in place of the stub.

``nbgrader generate_assignment`` replaces every solution region with ``ClearSolutions.code_stub``.
A repair task is released holding broken code to repair instead, so this preprocessor runs right
after ``ClearSolutions`` (``nbgrader_config.py`` puts it there with :func:`with_starter_code`) and,
in each autograded-answer cell whose grade id names a repair task, replaces the stub by that task's
starter code from :data:`autograder.starters.STARTERS`.  Because it runs before ``ComputeChecksums``
and ``SaveCells``, the gradebook records the released cell as it is, starter code included.
"""

from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import ClearSolutions, NbGraderPreprocessor

from ...starters import STARTERS


class InsertStarterCode(NbGraderPreprocessor):
    """Put each repair task's starter code in its answer cell (after ClearSolutions)."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and utils.is_solution(cell) and not utils.is_grade(cell):
            grade_id = cell.metadata["nbgrader"].get("grade_id")
            if grade_id in STARTERS:
                if "NotImplementedError" not in cell.source:
                    raise ValueError(f"repair task {grade_id!r}: its answer cell holds no solution region; "
                                     "put the repaired code between ### BEGIN SOLUTION and ### END SOLUTION")
                cell.source = STARTERS[grade_id].rstrip("\n")
        return cell, resources


def with_starter_code(preprocessors: list) -> list:
    """nbgrader's ``GenerateAssignment.preprocessors`` with :class:`InsertStarterCode` right after ClearSolutions."""
    steps = [p for p in preprocessors if p is not InsertStarterCode]
    at = steps.index(ClearSolutions) + 1
    return steps[:at] + [InsertStarterCode] + steps[at:]
