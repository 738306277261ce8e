"""A submission's structure put back as released (``RestoreStructure``), with cell factories: module 04's shape,
where a test cell follows a locked demonstration cell (nbgrader's own ``OverwriteCells`` stops with a
``KeyError`` when such a test cell was deleted, which read as the grader's fault)."""

from __future__ import annotations

import nbformat
import pytest

from autograder.cohort.preprocessors.restore_structure import restore

# (grade id, cell type, released source, locked), in release order
RELEASE = [("intro", "markdown", "# Module", True), ("setup", "code", "import check", True),
           ("step", "code", "# YOUR CODE HERE\nraise NotImplementedError()", False),
           ("demo", "code", "check.demo(step)", True),
           ("test_step", "code", "check.step(step)", True), ("test_loss", "code", "check.loss(step)", True),
           ("end", "markdown", "Done.", True)]
GRADE = {"test_step": 1.0, "test_loss": 1.0}
SOLUTION = {"step"}


def _cell(name, source=None, kind=None, meta=True):
    release = {n: (t, s) for n, t, s, _ in RELEASE}
    kind, default = release.get(name, (kind or "code", ""))
    make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
    cell = make(default if source is None else source)
    if meta:
        cell.metadata["nbgrader"] = {"grade_id": name, "grade": name in GRADE, "solution": name in SOLUTION,
                                     "locked": name not in SOLUTION, "schema_version": 3}
    return cell


def _student():
    return [_cell(n, "def step(): return 1" if n == "step" else None) for n, *_ in RELEASE]


def _ids(cells):
    return [(c.metadata.get("nbgrader") or {}).get("grade_id") for c in cells]


def _run(cells):
    return restore(cells, RELEASE, GRADE, SOLUTION)


def test_an_untouched_notebook_is_left_as_it_is():
    cells = _student()
    out, changes = _run(cells)
    assert out == cells and changes == []


def test_a_deleted_test_cell_after_a_locked_cell_is_put_back_in_its_place():
    cells = [c for c in _student() if _ids([c]) != ["test_step"]]
    out, changes = _run(cells)
    assert _ids(out) == [n for n, *_ in RELEASE]
    assert out[4].source == "check.step(step)" and out[4].metadata.nbgrader["points"] == 1.0
    assert changes == ["deleted test cell test_step; put back as released"]


def test_a_deleted_answer_cell_comes_back_as_its_stub():
    cells = [c for c in _student() if _ids([c]) != ["step"]]
    out, changes = _run(cells)
    assert out[2].source.endswith("raise NotImplementedError()") and "deleted answer cell step" in changes[0]


@pytest.mark.parametrize("where", ["top", "end"])
def test_moved_cells_go_back_in_release_order_with_the_students_own_cells_after_theirs(where):
    cells = _student()
    helper = nbformat.v4.new_code_cell("def helper(): pass")
    cells.insert(3, helper)  # the student's own cell, after their answer
    test = cells.pop(5)  # test_step
    cells.insert(0 if where == "top" else len(cells), test)
    out, changes = _run(cells)
    assert _ids(out) == ["intro", "setup", "step", None, "demo", "test_step", "test_loss", "end"]
    assert out[3] is helper and changes == ["moved cells; put back in the order they were released in"]


def test_a_duplicated_cell_keeps_its_first_copy_graded():
    cells = _student()
    cells.insert(5, _cell("test_step"))
    out, changes = _run(cells)
    assert _ids(out).count("test_step") == 1 and len(out) == len(RELEASE) + 1
    assert changes == ["duplicated cell test_step; the later copy is graded as an ordinary cell"]


def test_cells_that_lost_their_metadata_are_recognised_by_source_and_by_place():
    cells = [_cell(n, "def step(): return 1" if n == "step" else None, meta=False) for n, *_ in RELEASE]
    out, changes = _run(cells)
    assert _ids(out) == [n for n, *_ in RELEASE] and out[2].source == "def step(): return 1"
    assert "lost the nbgrader metadata of answer cell step; recognised by its place" in changes


def test_the_graders_appended_cells_stay_last_and_are_never_taken_for_the_students():
    cells = [c for c in _student() if _ids([c]) != ["test_step"]]
    canary = nbformat.v4.new_code_cell("check.step(step)")  # a canary copy: exactly the test cell's source
    canary.metadata["autograder"] = {"canary": "test_step"}
    cells.insert(0, cells.pop())  # and the last cell moved first
    out, _ = _run([*cells, canary])
    assert out[-1] is canary and _ids(out)[:-1] == [n for n, *_ in RELEASE]
