"""An answer's code normalised for what copying changes and meaning does not: comments, docstrings, spacing,
the names of local variables and the order of independent statements (used by :mod:`.similarity`)."""

from __future__ import annotations

import ast
import re


class _Names(ast.NodeVisitor):
    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        (self.writes if isinstance(node.ctx, (ast.Store, ast.Del)) else self.reads).add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        root = node
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(node.ctx, ast.Store) and isinstance(root, ast.Name):
            self.writes.add(root.id)  # x.attr = ... changes what x holds
        self.generic_visit(node)

    visit_Subscript = visit_Attribute  # type: ignore[assignment]


def _names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    visitor = _Names()
    visitor.visit(stmt)
    return visitor.reads, visitor.writes


def _shape(stmt: ast.stmt) -> str:
    """A statement's structure with every name folded: the order key that renaming does not change."""
    text = ast.dump(stmt, annotate_fields=False, include_attributes=False)
    return re.sub(r"Name\('[^']*'", "Name('_'", text)


def _reorder(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each run of assignments put in one canonical order that keeps every dependency."""
    out: list[ast.stmt] = []
    run: list[ast.stmt] = []

    def flush() -> None:
        facts = [_names(s) for s in run]
        placed: list[int] = []
        left = list(range(len(run)))
        while left:
            ready = [j for j in left if not any(
                i in left and i < j and (facts[i][1] & (facts[j][0] | facts[j][1]) or facts[j][1] & facts[i][0])
                for i in range(len(run)))]
            nxt = min(ready, key=lambda j: (_shape(run[j]), ast.dump(run[j])))
            placed.append(nxt)
            left.remove(nxt)
        out.extend(run[j] for j in placed)
        run.clear()

    for stmt in body:
        for name in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, name, None), list) and getattr(stmt, name):
                setattr(stmt, name, _reorder(getattr(stmt, name)))
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            run.append(stmt)
        else:
            flush()
            out.append(stmt)
    flush()
    return out


class _Rename(ast.NodeTransformer):
    """Each function's arguments and assigned names become v0, v1, … in order of first appearance."""

    def __init__(self, local: set[str]) -> None:
        self.local = local
        self.new: dict[str, str] = {}

    def _name(self, old: str) -> str:
        if old not in self.local:
            return old
        return self.new.setdefault(old, f"v{len(self.new)}")

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self._name(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._name(node.id)
        return node


def strip_docstrings(tree: ast.AST) -> None:
    """Drop every module's, class's and function's docstring from ``tree`` (in place)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]


def _rename_locals(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            local = {a.arg for a in arguments} | {a.arg for a in (node.args.vararg, node.args.kwarg) if a}
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    local.add(inner.id)
            renamer = _Rename(local)
            for arg in arguments:
                renamer.visit_arg(arg)
            node.body = [renamer.visit(stmt) for stmt in node.body]


def normalise(source: str) -> str:
    """``source`` without comments, docstrings and layout, locals renamed, independent assignments in one
    order.  Code that does not parse is returned as it is.

    Locals are numbered by first use, then independent assignments are ordered by their structure (and, where
    two have the same structure, by their numbered names), then the locals are numbered again in the new order.
    """
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return source
    strip_docstrings(tree)
    _rename_locals(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = _reorder(node.body)
    tree.body = _reorder(tree.body)
    _rename_locals(tree)
    return ast.unparse(tree)
