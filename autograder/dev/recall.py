"""Which graded answers are API recall: a lesson cell's calls, in order.

A graded answer asks for a decision only if the lessons did not already make it. This measures it the
plain way: the calls of each reference answer (the solution's answer cell), in the order Python makes
them and with only the called name kept (``optimizer.zero_grad()`` is ``zero_grad``, ``torch.tanh(a)`` is
``tanh``), against the calls of every lesson code cell of its module and the modules before it. The
answer's *recall* is the largest share of its calls that one lesson cell makes in the same order (the
longest common subsequence over the answer's length). At 80 % or more the answer is a lesson cell's calls
in order.

Repair tasks (``repair_*``) are left out: their answer is the released code with its planted bugs
removed, so it is meant to read like a lesson's loop; the decision they ask for is finding the bugs.

``python -m autograder.dev.recall`` prints every graded answer's recall and the cell it comes from.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

from ..syllabus import MODULES
from . import nbtools

ROOT = Path(__file__).resolve().parents[2]
THRESHOLD = 0.8


class _Calls(ast.NodeVisitor):
    """Called names in evaluation order: a call is recorded after its function and arguments."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute):
            self.names.append(func.attr)
        elif isinstance(func, ast.Name):
            self.names.append(func.id)


def calls(source: str) -> list[str]:
    """The called names of ``source`` in order (a cell that is not Python, a magic say, has none)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    visitor = _Calls()
    visitor.visit(tree)
    return visitor.names


def common_in_order(a: list[str], b: list[str]) -> int:
    """The length of the longest common subsequence of ``a`` and ``b``."""
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b):
            row.append(previous[j] + 1 if x == y else max(previous[j + 1], row[j]))
        previous = row
    return previous[-1]


@dataclass(frozen=True)
class Recall:
    module: str
    function: str
    calls: int
    share: float
    lesson: str
    cell: int

    @property
    def is_recall(self) -> bool:
        return self.share >= THRESHOLD


def _lesson_cells(root: Path, module_ids) -> list[tuple[str, int, list[str]]]:
    cells = []
    for module_id in module_ids:
        for path in sorted((root / "course").glob(f"{module_id.split('-', 1)[0]}-*.ipynb")):
            for index, cell in enumerate(nbtools.read(path).cells):
                if cell.cell_type == "code":
                    cells.append((path.name, index, calls(cell.source)))
    return cells


def measure(root: Path = ROOT) -> list[Recall]:
    """Every graded answer's recall against the lessons of its module and the modules before it."""
    found = []
    for position, module in enumerate(MODULES):
        cells = _lesson_cells(root, [m.id for m in MODULES[:position + 1]])
        solution = nbtools.read(root / "solutions" / module.id / f"{module.id}.ipynb")
        for function, cell in nbtools.answer_cells(solution).items():
            if function.startswith("repair_"):
                continue
            wanted = calls(nbtools.strip_solution_markers(cell.source))
            best = (0.0, "", -1)
            for lesson, index, made in cells:
                share = common_in_order(wanted, made) / len(wanted) if wanted else 0.0
                best = max(best, (share, lesson, index))
            found.append(Recall(module.id, function, len(wanted), round(best[0], 3), best[1], best[2]))
    return found


def main(argv: list[str] | None = None) -> int:
    rows = measure()
    for r in rows:
        flag = "RECALL" if r.is_recall else ""
        print(f"{r.module:26} {r.function:24} {r.calls:3d} calls  {r.share:6.0%}  {r.lesson} cell {r.cell}  {flag}")
    by_module: dict[str, int] = {}
    for r in rows:
        by_module[r.module] = by_module.get(r.module, 0) + r.is_recall
    print("answers that are a lesson cell's calls in order, per module:", by_module)
    print(f"at most one per module: {'yes' if max(by_module.values()) <= 1 else 'no'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
