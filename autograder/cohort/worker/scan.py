"""A static scan of the student's code for reaches into the grader's machinery.

Answer cells of this course need tensors and plain Python.  Code that touches the
interpreter's module table, the builtins, the IPython shell, the import machinery,
``ctypes``, hard exits, the ``autograder`` package or the gradebook is either an attempt
on the grading or something an instructor wants to look at.  The scan flags it for
review; it never changes a score (the sandbox and the canary do the enforcing).
"""

from __future__ import annotations

import ast
import re

from ...cells import nbgrader_meta
from ..records import Finding

_MODULE_RULES = {
    "builtins": "builtins", "importlib": "import-machinery", "ctypes": "ctypes", "autograder": "autograder",
    "nbgrader": "gradebook", "sqlite3": "gradebook", "sqlalchemy": "gradebook", "subprocess": "processes",
    "multiprocessing": "processes", "signal": "hard-exit", "socket": "network", "urllib": "network",
    "requests": "network", "http": "network", "inspect": "frames", "gc": "frames", "IPython": "ipython-shell",
    "_thread": "processes", "pty": "processes", "threading": "processes", "concurrent": "processes",
}
_ATTR_RULES = {
    ("sys", "modules"): "sys-modules", ("sys", "_getframe"): "frames", ("sys", "settrace"): "frames",
    ("sys", "setprofile"): "frames", ("sys", "exit"): "hard-exit", ("os", "_exit"): "hard-exit",
    ("os", "kill"): "hard-exit", ("os", "killpg"): "hard-exit", ("os", "abort"): "hard-exit",
    ("os", "fork"): "processes", ("os", "forkpty"): "processes", ("os", "system"): "processes",
    ("os", "popen"): "processes", ("os", "execv"): "processes", ("os", "execvp"): "processes",
    ("os", "spawnv"): "processes", ("os", "posix_spawn"): "processes",
}
_NAME_RULES = {
    "__builtins__": "builtins", "get_ipython": "ipython-shell", "__import__": "import-machinery",
    "input_transformers_post": "ipython-shell", "input_transformers_cleanup": "ipython-shell",
    "ast_transformers": "ipython-shell",
    # a frame's or a function's namespace: the check that called an answer is two frames up from it
    "tb_frame": "frames", "f_back": "frames", "f_globals": "frames", "f_locals": "frames", "f_builtins": "frames",
    "gi_frame": "frames", "cr_frame": "frames", "ag_frame": "frames", "__globals__": "frames",
    "__closure__": "frames", "__code__": "frames",
}
_TEXT_RULES = [
    (re.compile(r"gradebook|\.db\b|nbgrader", re.I), "gradebook"),
    (re.compile(r"(^|[/'\"])solutions?/|(^|[/'\"])autograded/|(^|[/'\"])submitted/"), "gradebook"),
    (re.compile(r"\bautograder\b"), "autograder"),
]
_CHECK_NAMES = {"check", "checks"}


def _strip_magics(source: str) -> tuple[str, list[tuple[int, str, str]]]:
    """Source with IPython ``%``/``!`` lines blanked, and findings for those lines."""
    lines, found = [], []
    for i, line in enumerate(source.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("!"):
            found.append((i, "shell-escape", stripped))
            lines.append("")
        elif stripped.startswith("%"):
            if not re.match(r"%+(matplotlib|time|timeit|config InlineBackend)\b", stripped):
                found.append((i, "ipython-shell", stripped))
            lines.append("")
        else:
            lines.append(line)
    return "\n".join(lines), found


class _Visitor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []

    def _add(self, node: ast.AST, rule: str) -> None:
        self.found.append((getattr(node, "lineno", 0), rule))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            rule = _MODULE_RULES.get(alias.name.split(".")[0])
            if rule:
                self._add(node, rule)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".")[0]
        rule = _MODULE_RULES.get(top)
        if rule:
            self._add(node, rule)
        for alias in node.names:
            key = (top, alias.name)
            if key in _ATTR_RULES:
                self._add(node, _ATTR_RULES[key])
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name):
            key = (node.value.id, node.attr)
            if key in _ATTR_RULES:
                self._add(node, _ATTR_RULES[key])
            if node.value.id in _CHECK_NAMES and isinstance(node.ctx, (ast.Store, ast.Del)):
                self._add(node, "autograder")
        if node.attr in _NAME_RULES:
            self._add(node, _NAME_RULES[node.attr])
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in _NAME_RULES:
            self._add(node, _NAME_RULES[node.id])
        if node.id in _CHECK_NAMES and isinstance(node.ctx, (ast.Store, ast.Del)):
            self._add(node, "autograder")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id in {"setattr", "delattr"} and node.args:
            target = node.args[0]
            if isinstance(target, ast.Name) and target.id in _CHECK_NAMES:
                self._add(node, "autograder")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name in {"__eq__", "__ne__", "__bool__"}:
            self._add(node, "comparison-override")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            for pattern, rule in _TEXT_RULES:
                if pattern.search(node.value):
                    self._add(node, rule)
                    break


def scan_source(source: str, cell: str = "cell") -> list[Finding]:
    """Findings in one cell's source (parsed; a cell that does not parse is matched line by line)."""
    text, magic = _strip_magics(source)
    lines = source.splitlines()
    hits: list[tuple[int, str]] = [(i, rule) for i, rule, _ in magic]
    try:
        visitor = _Visitor()
        visitor.visit(ast.parse(text))
        hits += visitor.found
    except SyntaxError:
        hits += _scan_lines(text)
    except (RecursionError, MemoryError, ValueError):  # nested past what a parser (or this walk) reads, NUL bytes
        hits += _scan_lines(text) + [(1, "unreadable")]
    findings, seen = [], set()
    for line, rule in sorted(hits):
        if (line, rule) in seen:
            continue
        seen.add((line, rule))
        shown = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        findings.append(Finding(cell, line, rule, shown[:160]))
    return findings


def _scan_lines(text: str) -> list[tuple[int, str]]:
    words = {**{m: r for m, r in _MODULE_RULES.items()}, **_NAME_RULES,
             **{f"{a}.{b}": r for (a, b), r in _ATTR_RULES.items()}}
    hits = []
    for i, line in enumerate(text.splitlines(), 1):
        for word, rule in words.items():
            if re.search(r"\b" + re.escape(word) + r"\b", line):
                hits.append((i, rule))
        for pattern, rule in _TEXT_RULES:
            if pattern.search(line):
                hits.append((i, rule))
    return hits


_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.M | re.S)


def _released(source: str) -> str:
    """A cell's source as students receive it: hidden-test blocks removed, outer blank space trimmed."""
    return _HIDDEN.sub("", source).strip()


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def edited_locked(nb, locked: dict[str, str]) -> list[str]:
    """Grade ids of locked code cells whose submitted source differs from the released one."""
    edited = []
    for cell in nb.get("cells", []):
        grade_id = nbgrader_meta(cell).get("grade_id")
        if grade_id in locked and _released(locked[grade_id]) != _released(_source(cell)):
            edited.append(grade_id)
    return edited


def scan_notebook(nb, locked: dict[str, str] | None = None) -> list[Finding]:
    """Findings in every code cell a student wrote or edited.

    ``locked`` maps the grade ids of locked cells to their released source: a locked
    cell left as released (the set-up cell imports ``autograder``, for one) is not
    scanned; an edited one is, since the edit shows intent even though nbgrader
    restores the cell before grading.
    """
    locked = locked or {}
    findings: list[Finding] = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        source = _source(cell)
        grade_id = nbgrader_meta(cell).get("grade_id")
        if grade_id in locked and _released(locked[grade_id]) == _released(source):
            continue
        name = grade_id or f"cell {index + 1}"
        if grade_id in locked:
            name += " (edited locked cell)"
        findings += scan_source(source, name)
    return findings
