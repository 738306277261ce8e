"""Automatic mutants of a graded function: is every line of the solution needed by some check?

Three kinds of small change are made to the solution's answer cell, one at a time:

* **delete** a statement (``pass`` where it was the only one);
* **swap** a statement with the next one in the same block;
* **flip** a switch: ``True``/``False``, a comparison (``==``/``!=``, ``<``/``>=``, ``is``/``is not``, ``in``/
  ``not in``) or ``and``/``or``.

Each mutant is graded in process by the test cells that call the function. One that keeps full marks either
changes nothing a learner could get wrong (it is *equivalent*: the catalogue's ``EQUIVALENT`` says why) or
shows a gap in the checks. ``python -m autograder.dev.mutate MODULE [FUNCTION ...]`` lists the survivors.
"""

from __future__ import annotations

import argparse
import ast
import copy
import re
import sys
from dataclasses import dataclass

from ..cells import nbgrader_meta
from . import nbtools
from .catalogue import ROOT, solution_of

_FLIPPED_COMPARE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
                    ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


@dataclass(frozen=True)
class AutoMutant:
    function: str
    kind: str  # delete | swap | flip
    what: str  # the changed code, as it reads in the solution
    source: str  # the whole answer cell, mutated

    @property
    def key(self) -> str:
        """A name that stays the same while the solution's line does: ``function: kind: code``."""
        return f"{self.function}: {self.kind}: {self.what}"


def _blocks(tree: ast.AST):
    """Every statement list inside the definitions of ``tree`` (a function's body, a loop's, a branch's...)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt) and not isinstance(node, ast.Module):
                yield node, field
        for handler in getattr(node, "handlers", []) or []:
            yield handler, "body"


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _line(stmt: ast.AST) -> str:
    return ast.unparse(stmt).splitlines()[0].strip()


def mutants(function: str, source: str) -> list[AutoMutant]:
    """Every delete, swap and flip mutant of one answer cell (each compiles and differs from the original)."""
    original = ast.parse(source)
    plain = ast.unparse(original)
    found: dict[str, AutoMutant] = {}

    def add(kind: str, what: str, tree: ast.AST) -> None:
        text = ast.unparse(ast.fix_missing_locations(tree))
        if text == plain:
            return
        try:
            compile(text, function, "exec")
        except SyntaxError:
            return
        mutant = AutoMutant(function, kind, what, text + "\n")
        found.setdefault(mutant.key, mutant)

    for index, (owner, field) in enumerate(_blocks(original)):
        size = len(getattr(owner, field))
        for i in range(size):
            stmt = getattr(owner, field)[i]
            if _is_docstring(stmt) or isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and owner is original:
                continue
            tree = copy.deepcopy(original)
            block = getattr(list(_blocks(tree))[index][0], field)
            del block[i]
            if not block:
                block.append(ast.Pass())
            add("delete", _line(stmt), tree)
            if i + 1 < size and not _is_docstring(stmt):
                following = getattr(owner, field)[i + 1]
                tree = copy.deepcopy(original)
                block = getattr(list(_blocks(tree))[index][0], field)
                block[i], block[i + 1] = block[i + 1], block[i]
                add("swap", f"{_line(stmt)} <-> {_line(following)}", tree)

    for position, node in enumerate(ast.walk(original)):
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            what = f"{node.value} -> {not node.value} in {_enclosing_line(original, node)}"
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in _FLIPPED_COMPARE:
            what = f"{ast.unparse(node)}"
        elif isinstance(node, ast.BoolOp):
            what = f"{ast.unparse(node)}"
        else:
            continue
        tree = copy.deepcopy(original)
        target = list(ast.walk(tree))[position]
        if isinstance(target, ast.Constant):
            target.value = not target.value
        elif isinstance(target, ast.Compare):
            target.ops[0] = _FLIPPED_COMPARE[type(target.ops[0])]()
        else:
            target.op = ast.Or() if isinstance(target.op, ast.And) else ast.And()
        add("flip", what, tree)
    return list(found.values())


def _enclosing_line(tree: ast.AST, node: ast.AST) -> str:
    best = None
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.stmt) and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            if any(child is node for child in ast.walk(stmt)):
                best = stmt  # the innermost statement holding the node comes last
    return _line(best) if best is not None else "?"


def own_cells(nb, function: str):
    """``nb`` with only the test cells that call ``function`` left among the test cells (every other cell
    kept): its own, and another function's that hands it over (``load_checkpoint`` is judged with
    ``save_checkpoint`` too)."""
    called = re.compile(rf"\b{re.escape(function)}\b")
    kept = copy.deepcopy(nb)
    kept.cells = [c for c in kept.cells
                  if not nbgrader_meta(c).get("grade") or called.search(c.source)]
    return kept


def survivors(module_id: str, functions=None, progress=None) -> list[AutoMutant]:
    """The automatic mutants of ``functions`` (default: every answer cell) that keep full marks in their own
    test cells, graded in process."""
    solution = nbtools.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb")
    functions = functions or list(nbtools.answer_cells(solution))
    alive = []
    for function in functions:
        notebook = own_cells(solution, function)
        for mutant in mutants(function, solution_of(module_id, function)):
            scores = nbtools.run_in_process(notebook, {function: mutant.source})
            kept = bool(scores) and all(s[0] >= s[1] for s in scores.values())
            if progress:
                progress(mutant, kept)
            if kept:
                alive.append(mutant)
    return alive


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.dev.mutate", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="a module id, such as 01-tensors")
    parser.add_argument("functions", nargs="*", help="graded functions (default: all of the module's)")
    args = parser.parse_args(argv)
    from .synthetic import load_catalogue

    equivalent = getattr(load_catalogue(args.module), "EQUIVALENT", {})
    counts = {"killed": 0, "equivalent": 0, "survived": 0}

    def show(mutant, kept):
        state = "killed" if not kept else "equivalent" if mutant.key in equivalent else "survived"
        counts[state] += 1
        if state != "killed":
            print(f"{state:>10}  {mutant.key}", file=sys.__stdout__, flush=True)

    survivors(args.module, args.functions or None, progress=show)
    print(f"{args.module}: {counts['killed']} killed, {counts['equivalent']} equivalent, "
          f"{counts['survived']} survived", file=sys.__stdout__)
    return 1 if counts["survived"] else 0


if __name__ == "__main__":
    sys.exit(main())
