"""Bug catalogues: known-wrong submissions (mutants) and known-right ones (variants).

Each module's catalogue defines

* ``MODULE``   – the module id (``"01-tensors"``);
* ``MUTANTS``  – ``{name: Mutant(answers, breaks, codes, words=...)}``: ``answers`` replaces answer
  cells by grade_id, ``breaks`` names the test cells that must lose points, ``codes`` (optional)
  are the diagnosis codes the learner must be shown, and ``words`` (optional) what the message of
  that diagnosis must say, so that a message cannot drift away from the mistake it names;
* ``VARIANTS`` – ``{name: answers}``: correct solutions in other styles that must keep
  full marks;
* ``EQUIVALENT`` (optional) – ``{automatic mutant: reason}``: the delete/swap/flip mutants of
  :mod:`autograder.dev.mutate` that keep full marks because they change nothing the contract fixes.

Every catalogue ends with ``MUTANTS.update(do_nothing(MODULE))``: stand-ins generated for every graded
function (one returns ``None``, the others an always-equal tensor, str, list, dict, int or float) that must
score 0 on every test cell.

A mutant that is one mistake in the solution is written as that mistake: ``patched(MODULE, "train_step",
(old, new), ...)``, the solution's own answer cell with a few replacements.
"""

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import nbformat

from ...cells import answer_cells, nbgrader_meta, test_cells
from ...hints import strip_solution_markers

ROOT = Path(__file__).resolve().parents[3]  # the repository (solutions/ holds the solutions)


@dataclass
class Mutant:
    answers: dict
    breaks: list
    codes: list = field(default_factory=list)
    needs_cuda: bool = False  # only a CUDA device can expose it (e.g. a batch left on the CPU)
    cpu_only: bool = False  # only a machine without CUDA can expose it (a CUDA step left unguarded)
    zero: bool = False  # a do-nothing stand-in: every cell it breaks must score 0
    words: tuple = ()  # what the message of this mistake must say (in each cell showing the first of ``codes``)


# Every catalogue module in this folder (m01_tensors.py, m02_..., ...).
MODULES = sorted(p.stem for p in Path(__file__).parent.glob("m[0-9][0-9]*_*.py"))


def edited(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` replacement made once; ``old`` must occur in it."""
    for old, new in edits:
        if old not in source:
            raise ValueError(f"{old!r} is not in the source being edited")
        source = source.replace(old, new, 1)
    return source




@cache
def _solution_cells(module_id: str) -> dict:
    """``{grade_id: source}`` of the solution notebook's answer cells, without nbgrader's solution markers."""
    nb = nbformat.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb", as_version=4)
    return {name: strip_solution_markers(cell.source) for name, cell in answer_cells(nb).items()}


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


# ---- judging a run's scores against the catalogue (in process, or read back from nbgrader's outputs)

def mutant_problems(name: str, entry: Mutant, scores) -> list[str]:
    """What is wrong with how ``scores`` (:class:`autograder.dev.nbtools.Scores`) judged the mutant ``name``:
    each cell it breaks must lose points with a three-part ``[incorrect]`` message, show every diagnosis
    code it names, and fail visibly (before the hidden tests) in a cell of a function it changed."""
    problems = []
    for test_id in entry.breaks:
        if test_id not in scores:
            problems.append(f"{name}: no test cell {test_id}")
            continue
        got, full, text, _ = scores[test_id]
        if entry.zero and got > 0:
            problems.append(f"{name} (does nothing) earned {got:g} of {full:g} in {test_id}")
        elif got >= full:
            problems.append(f"{name} kept its points in {test_id}")
        elif "[incorrect]" not in text or not all(part in text for part in ("Seen:", "Owner:", "Do:")):
            problems.append(f"{name}: {test_id} did not say what was seen, who owns it and what to do: {text}")
    codes = {scores[t][3] for t in entry.breaks if t in scores}
    for code in entry.codes:
        if code not in codes:
            problems.append(f"{name}: expected diagnosis {code!r}, got {codes}: "
                            + " | ".join(scores[t][2] for t in entry.breaks if t in scores))
    problems += _missing_words(name, entry, scores)
    if sum(s[0] for s in scores.values()) >= sum(s[1] for s in scores.values()):
        problems.append(f"{name} kept full marks")
    # Visible coverage: a learner running the released notebook's own check cells sees it fail, in a cell
    # of a function the mutant changed (not only in the hidden tests).
    own = {t for t in scores if any(t.startswith(f"test_{function}_") for function in entry.answers)}
    if not own & scores.visible_failures:
        problems.append(f"{name} is caught only by hidden tests; visible cells of {sorted(entry.answers)} all passed")
    return problems


def hold_to_words(mutants: dict, words: dict) -> None:
    """Give each mutant named in ``words`` what its message must say, besides the words it was built with."""
    unknown = sorted(set(words) - set(mutants))
    if unknown:
        raise KeyError(f"words for mutants the catalogue does not hold: {unknown}")
    for name, said in words.items():
        entry = mutants[name]
        entry.words = tuple(entry.words) + tuple(w for w in said if w not in entry.words)


def _missing_words(name: str, entry: Mutant, scores) -> list[str]:
    """Each of ``entry.words`` must be in every message (of the cells it breaks) that shows its first code, the
    diagnosis of the mistake itself, or in every message it lost points with when it names no code."""
    texts = [scores[t][2] for t in entry.breaks if t in scores and scores[t][0] < scores[t][1]
             and (not entry.codes or scores[t][3] == entry.codes[0])]
    missing = [w for w in entry.words if not texts or any(w.lower() not in text.lower() for text in texts)]
    return [f"{name}: its message does not say {missing}: " + " | ".join(texts)] if missing else []


def judged_cells(entry: Mutant, test_ids) -> set[str]:
    """The test cells (of ``test_ids``, a notebook's) that :func:`mutant_problems` reads for ``entry``: the cells
    it breaks and every test cell of a function it changes.  Judging a mutant needs no other cell."""
    return set(entry.breaks) | {t for t in test_ids if any(t.startswith(f"test_{f}_") for f in entry.answers)}


def calling_cells(answers: dict, nb) -> set[str]:
    """The test cells of ``nb`` whose code names a function that ``answers`` replaces: its own cells, and another
    function's that hands it over.  What a correct variant's own functions are judged on."""
    names = [re.compile(rf"\b{re.escape(function)}\b") for function in answers]
    return {test for test, cell in test_cells(nb).items() if any(name.search(cell["source"]) for name in names)}


def variants_together(variants: dict, names: list[str]) -> list[tuple[list[str], dict[str, str]]]:
    """``names`` (variants of ``variants``) put together into as few notebooks as keep each variant's cells its
    own: ``[(names, answers)]``, a variant joining the first notebook whose cells none of its own overlap.  A
    notebook of 09 runs for seconds; one notebook holding the first variant of every function grades what a
    notebook each would."""
    groups: list[tuple[list[str], dict[str, str]]] = []
    for name in names:
        answers = variants[name]
        group = next((g for g in groups if not set(g[1]) & set(answers)), None)
        if group is None:
            groups.append(([name], dict(answers)))
        else:
            group[0].append(name)
            group[1].update(answers)
    return groups


def variant_problems(name: str, scores) -> list[str]:
    """A correct variant (or the solution) must keep every point of every test cell."""
    if not scores:
        return [f"{name}: no test cell was scored"]
    return [f"{name} lost points in {t}: {s[2]}" for t, s in scores.items() if s[0] < s[1]]


# ---- do-nothing stand-ins: generated for every graded function and class of a module

#: The kinds of stand-in: each runs without error and does nothing.  Besides None, each hands back an object
#: of one of the types a contract names (a tensor, a str, a list, a dict, an int, a float) that claims to
#: equal anything and to be true, so that no check may credit a value by comparing it.
DO_NOTHING = {
    "returns_none": "None",
    "returns_always_equal": "_AlwaysEqual()",
    "returns_always_equal_str": "_AlwaysEqualStr('learns')",
    "returns_always_equal_list": "_AlwaysEqualList()",
    "returns_always_equal_dict": "_AlwaysEqualDict()",
    "returns_always_equal_int": "_AlwaysEqualInt(1)",
    "returns_always_equal_float": "_AlwaysEqualFloat(0.5)",
}
#: The stand-ins a full run also grades through real nbgrader (tests/test_nbgrader.py); every run judges all
#: of them in process.
THROUGH_NBGRADER = ("returns_none", "returns_always_equal")


def variants_through_nbgrader(variants: dict) -> list[str]:
    """The correct variants a full run grades through real nbgrader (tests/test_nbgrader.py): the first of each
    graded function's variants, so that every function keeps its marks through nbgrader at least once.  A full
    run judges the others in process (tests/test_catalogue.py), with the same assertions."""
    chosen, covered = [], set()
    for name, answers in variants.items():
        if not set(answers) <= covered:
            chosen.append(name)
            covered |= set(answers)
    return chosen

# What an always-equal stand-in hands back (as the hostile corpus's "always equal" notebook does): an object
# that claims to equal anything and to be true.
_ALWAYS_EQUAL = '''
import torch as _torch


class _EqualsAnything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __bool__(self):
        return True


class _AlwaysEqualTensor(_EqualsAnything, _torch.Tensor):
    pass


class _AlwaysEqualStr(_EqualsAnything, str):
    __hash__ = str.__hash__


class _AlwaysEqualList(_EqualsAnything, list):
    pass


class _AlwaysEqualDict(_EqualsAnything, dict):
    pass


class _AlwaysEqualInt(_EqualsAnything, int):
    __hash__ = int.__hash__


class _AlwaysEqualFloat(_EqualsAnything, float):
    __hash__ = float.__hash__


def _AlwaysEqual():
    return _torch.zeros(3, 3).as_subclass(_AlwaysEqualTensor)


'''


def _stand_in_source(source: str, value: str) -> str:
    """``source`` (one answer cell) with every function's and method's body replaced by ``return VALUE``;
    a class keeps its name and bases, and its ``__init__`` only initialises its base class."""
    import ast

    tree = ast.parse(source)

    def body(node, init: bool):
        if init:
            return ast.parse("super().__init__()").body
        return ast.parse(f"return {value}").body

    class StandIn(ast.NodeTransformer):
        def visit_FunctionDef(self, node):
            node.body = body(node, node.name == "__init__")
            node.decorator_list = [d for d in node.decorator_list if ast.unparse(d) in ("staticmethod", "property")]
            return node

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_ClassDef(self, node):
            node.body = [self.visit(n) for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            if not node.body:
                node.body = [ast.Pass()]
            return node

    tree.body = [StandIn().visit(n) for n in tree.body
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))]
    prelude = _ALWAYS_EQUAL if "_AlwaysEqual" in value else ""
    return prelude + ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def do_nothing(module_id: str) -> dict:
    """Stand-ins that run and do nothing (see :data:`DO_NOTHING`), each of which must score 0 on every test cell
    it is judged on (``Mutant.zero``): ``does_nothing_<kind>`` replaces every answer cell of the module's
    solution at once, and ``does_nothing_<kind>__<function>`` one answer cell alone, the others left correct,
    on that function's own cells (so that a check which builds on another correct function cannot credit a
    stand-in). A new graded function gets its stand-ins without a line written for it."""
    cells = _solution_cells(module_id)
    tests = list(_test_cell_ids(module_id))
    whole = {f"does_nothing_{kind}": Mutant({gid: _stand_in_source(src, value) for gid, src in cells.items()},
                                            tests, zero=True)
             for kind, value in DO_NOTHING.items()}
    alone = {f"does_nothing_{kind}__{gid}": Mutant({gid: _stand_in_source(src, value)},
                                                   [t for t in tests if t.startswith(f"test_{gid}_")], zero=True)
             for gid, src in cells.items() for kind, value in DO_NOTHING.items()}
    return whole | {name: entry for name, entry in alone.items() if entry.breaks}


@cache
def _test_cell_ids(module_id: str) -> tuple:
    nb = nbformat.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb", as_version=4)
    return tuple(cell.metadata.nbgrader["grade_id"] for cell in nb.cells
                 if cell.cell_type == "code" and nbgrader_meta(cell).get("grade"))
