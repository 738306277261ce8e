"""Small helpers for the course's notebooks: nbgrader cells, answer substitution, cleaning.

Used by the test suite (to build submissions from the solutions and the bug
catalogues) and by the development tools.
"""

from __future__ import annotations

import copy
import linecache

import nbformat

from ..cells import answer_cells, grade_id, nbgrader_meta, test_cells  # noqa: F401  (re-exported)
from ..hints import strip_solution_markers  # noqa: F401  (re-exported: catalogues and recall read answers with it)

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def _meta(grade_id: str, *, solution: bool, grade: bool, locked: bool, points: float | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def markdown(text: str, grade_id: str | None = None):
    cell = nbformat.v4.new_markdown_cell(text.strip("\n"))
    if grade_id:
        cell.metadata.update(_meta(grade_id, solution=False, grade=False, locked=True))
    return cell


def code(source: str, grade_id: str | None = None):
    cell = nbformat.v4.new_code_cell(source.strip("\n"))
    if grade_id:
        cell.metadata.update(_meta(grade_id, solution=False, grade=False, locked=True))
    return cell


def answer(grade_id: str, source: str):
    """An autograded-answer cell; its grade_id is the graded function's name."""
    cell = nbformat.v4.new_code_cell(source.strip("\n"))
    cell.metadata.update(_meta(grade_id, solution=True, grade=False, locked=False))
    return cell


def test(grade_id: str, source: str, points: float):
    """An autograder test cell (grade_id ``test_<name>...``)."""
    cell = nbformat.v4.new_code_cell(source.strip("\n"))
    cell.metadata.update(_meta(grade_id, solution=False, grade=True, locked=True, points=points))
    return cell


def new_notebook(cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def read(path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


def substitute(nb, answers: dict) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose answer cells named in ``answers`` hold the given source."""
    nb = copy.deepcopy(nb)
    cells = answer_cells(nb)
    unknown = set(answers) - set(cells)
    if unknown:
        raise KeyError(f"no answer cell with grade_id {sorted(unknown)}; the notebook has {sorted(cells)}")
    for name, source in answers.items():
        cells[name].source = source.strip("\n")
    return nb


def is_clean(nb) -> bool:
    return all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code")


HIDDEN_TESTS_MARK = "### BEGIN HIDDEN TESTS"


class Scores(dict):
    """``{test grade_id: (score, max_points, outcome text, diagnosis code)}`` of one run, and
    ``visible_failures``: the test cells whose visible calls (before the hidden tests) failed."""

    def __init__(self):
        super().__init__()
        self.visible_failures: set[str] = set()


def run_in_process(nb, answers: dict | None = None, only=None) -> Scores:
    """Execute a solution-style notebook's code in this process (no kernel, no nbgrader).

    Returns ``{test grade_id: (score, max_points, outcome text, diagnosis code)}``.  ``answers``
    replaces answer cells first (see :func:`substitute`).  Used by the test suite
    to judge the bug catalogues quickly; the real nbgrader path is tested too.

    A test cell's visible calls (before ``### BEGIN HIDDEN TESTS``) run first, as a learner runs
    them; the hidden ones only when those passed, as in a graded run.  The cells whose visible calls
    failed are listed in the result's ``visible_failures``.

    ``only`` (grade ids) runs those test cells and no other (the setup and answer cells all run): what a
    mutant is judged on (:func:`autograder.dev.catalogue.judged_cells`) costs a fraction of the notebook.
    """
    from ..core import CheckFailed

    only = None if only is None else set(only)

    if answers:
        nb = substitute(nb, answers)
    namespace: dict = {"__name__": "__main__"}
    scores = Scores()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        meta = nbgrader_meta(cell)
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        if meta.get("grade"):
            if only is not None and meta["grade_id"] not in only:
                continue
            points = float(meta.get("points", 0))
            visible, _, hidden = source.partition(HIDDEN_TESTS_MARK)
            grade_id = meta["grade_id"]
            for part, is_visible in ((visible, True), (HIDDEN_TESTS_MARK + hidden if hidden else "", False)):
                try:
                    exec(compile(part, grade_id, "exec"), namespace)
                except CheckFailed as failed:
                    scores[grade_id] = (0.0, points, failed.result.text(), failed.result.code)
                except Exception as error:  # noqa: BLE001 - scored as nbgrader would
                    scores[grade_id] = (0.0, points, f"{type(error).__name__}: {error}", "error")
                else:
                    scores[grade_id] = (points, points, "passed", "")
                    continue
                if is_visible:
                    scores.visible_failures.add(grade_id)
                break
        else:
            filename = f"<cell {meta.get('grade_id', len(linecache.cache))}>"
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # as IPython does
            try:
                exec(compile(source, filename, "exec"), namespace)
            except Exception:  # noqa: BLE001 - a broken answer cell scores through its tests
                pass
    return scores


def check_calls(source: str) -> int:
    """How many results ``source`` (a test cell's code, or a part of it) shows when every check passes: one
    per top-level call statement (a test cell is one-line ``check.<part>(...)`` calls)."""
    import ast

    return sum(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) for s in ast.parse(source).body)


def scores_from_autograded(nb, points: dict) -> Scores:
    """The :class:`Scores` :func:`run_in_process` would give, read back from a notebook nbgrader autograded.

    ``points`` is the gradebook's ``{test grade_id: (score, max_points)}`` for the notebook.  A cell that lost
    points takes its text and code from its first result that did not pass (or, where the cell raised before any
    check spoke, from the error); it is a visible failure when that result came from a call before
    ``### BEGIN HIDDEN TESTS`` (each call shows one result, so its position says which call it was).
    """
    from ..outcome import RESULT_MIME, Outcome, ResultData

    failing = {str(Outcome.INCORRECT), str(Outcome.NOT_ATTEMPTED)}
    scores = Scores()
    for test_id, cell in test_cells(nb).items():
        score, full = points[test_id]
        outputs = cell.get("outputs", [])
        error = next((o for o in outputs if o.get("output_type") == "error"), None)
        if score >= full and error is None:
            scores[test_id] = (score, full, "passed", "")
            continue
        results = [ResultData.read(o["data"][RESULT_MIME]) for o in outputs if RESULT_MIME in o.get("data", {})]
        at, result = next(((i, r) for i, r in enumerate(results) if r and r.outcome in failing), (len(results), None))
        if result is not None:
            text, code = result.message, result.code
        elif error is not None:
            text, code = f"{error.get('ename')}: {error.get('evalue')}", "error"
        else:
            text, code = "lost its points without a failing result or an error", "error"
        scores[test_id] = (score, full, text, code)
        if at < check_calls(cell.source.partition(HIDDEN_TESTS_MARK)[0]):
            scores.visible_failures.add(test_id)
    return scores


def ensure_colab_cell(nb, packages: tuple = (), locked: bool = False) -> nbformat.NotebookNode:
    """Make the notebook's first code cell the Colab set-up cell (replacing an older one)."""
    from ..syllabus import COLAB_MARKER, colab_setup_source

    nb = copy.deepcopy(nb)
    source = colab_setup_source(tuple(packages)).rstrip("\n")
    cell = code(source, "colab_setup" if locked else None)
    for i, existing in enumerate(nb.cells):
        if existing.cell_type == "code" and existing.source.startswith(COLAB_MARKER):
            cell.metadata = existing.metadata
            cell.id = existing.get("id", cell.get("id"))
            nb.cells[i] = cell
            break
    else:
        first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))
        nb.cells.insert(first_code, cell)
    return nb


def ensure_whats_next(nb, module_id: str) -> nbformat.NotebookNode:
    """Make the notebook's last cell the exercise's locked "What's next" cell (replacing an older one)."""
    from ..syllabus import WHATS_NEXT_MARKER, whats_next_source

    nb = copy.deepcopy(nb)
    cell = markdown(whats_next_source(module_id), "whats_next")
    for i, existing in enumerate(nb.cells):
        if existing.cell_type == "markdown" and existing.source.startswith(WHATS_NEXT_MARKER):
            cell.id = existing.get("id", cell.get("id"))
            del nb.cells[i]
            break
    nb.cells.append(cell)
    return nb


HINT_LINE_MARKER = "*Stuck?*"


def hint_line(functions) -> str:
    """The exercise's line under a graded function's text saying that hints exist (one or more functions)."""
    from ..hints import next_call

    functions = list(functions)
    first = " and ".join(f"`{next_call(f, 1)}`" for f in functions)
    second = " and ".join(f"`{next_call(f, 2)}`" for f in functions)
    after = " and ".join(f'`check.solution("{f}")`' for f in functions)
    if len(functions) == 1:
        return (f"{HINT_LINE_MARKER} {first} gives a first hint; {second} the next. The hints point the way "
                f"without writing your code; after the last one, {after} shows the reference answer.")
    return (f"{HINT_LINE_MARKER} {first} give a first hint for each; {second} the next. "
            f"The hints point the way without writing your code; after the last one, {after} show the reference "
            "answers.")


def ensure_hint_lines(nb, module_id: str) -> nbformat.NotebookNode:
    """Make every graded function's text cell end with the line that says hints exist (replacing an older one).

    The text cell is the markdown cell whose grade_id is ``<function>_text``, else the nearest markdown cell
    above the function's answer cell (a text cell shared by two functions gets one line naming both).  Every
    graded function of the notebook must have hints in :data:`autograder.hints.HINTS`.  Idempotent.
    """
    from ..hints import hints_of

    nb = copy.deepcopy(nb)
    answers = answer_cells(nb)
    missing = [f for f in answers if not hints_of(module_id, f)]
    if missing:
        raise ValueError(f"no hints for {missing} of module {module_id!r}: add them to autograder/hints.py first")
    by_id = {grade_id(c): i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and grade_id(c)}
    hosts: dict[int, list[str]] = {}
    for function, cell in answers.items():
        host = by_id.get(f"{function}_text")
        if host is None:
            at = next(i for i, c in enumerate(nb.cells) if c is cell)
            host = next((i for i in range(at - 1, -1, -1) if nb.cells[i].cell_type == "markdown"), None)
        if host is None:
            raise ValueError(f"no markdown cell above the answer cell of {function!r} to hold its hint line")
        hosts.setdefault(host, []).append(function)
    for i, functions in hosts.items():
        kept = [line for line in nb.cells[i].source.splitlines() if not line.startswith(HINT_LINE_MARKER)]
        nb.cells[i].source = "\n".join(kept).rstrip() + "\n\n" + hint_line(functions)
    return nb


# ---- lessons of one sitting

#: The size rule of a lesson notebook: words of prose, lines of code, lines of the longest code cell.
MAX_WORDS, MAX_CODE_LINES, MAX_CELL_LINES = 3500, 350, 40


def lesson_size(nb) -> dict:
    """Words of prose (markdown tokens holding a letter or digit), non-blank lines of code, and the longest code
    cell's non-blank lines (with its index)."""
    import re

    words = sum(sum(1 for t in c.source.split() if re.search(r"[A-Za-z0-9]", t))
                for c in nb.cells if c.cell_type == "markdown")
    lines = [(len([line for line in c.source.splitlines() if line.strip()]), i)
             for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    longest, cell = max(lines) if lines else (0, None)
    return {"words": words, "code_lines": sum(n for n, _ in lines), "longest_cell": longest, "longest_at": cell}


def size_problems(nb) -> list[str]:
    size = lesson_size(nb)
    problems = []
    if size["words"] > MAX_WORDS:
        problems.append(f"{size['words']} words of prose (at most {MAX_WORDS})")
    if size["code_lines"] > MAX_CODE_LINES:
        problems.append(f"{size['code_lines']} lines of code (at most {MAX_CODE_LINES})")
    if size["longest_cell"] > MAX_CELL_LINES:
        problems.append(f"cell {size['longest_at']} holds {size['longest_cell']} lines of code (at most {MAX_CELL_LINES})")
    return problems


def estimated_minutes(nb) -> float:
    """A sitting's length: prose read at 150 words a minute, and six seconds per line of code read and run
    (the estimate :func:`autograder.syllabus.lesson_minutes` falls back on)."""
    size = lesson_size(nb)
    return size["words"] / 150 + size["code_lines"] / 10


def stated_minutes(nb) -> int | None:
    """The time a lesson states in its first cell (``*About 50 minutes*``), or None."""
    import re

    found = re.search(r"About (\d+) minutes", nb.cells[0].source) if nb.cells else None
    return int(found.group(1)) if found else None
