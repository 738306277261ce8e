"""An answer's code normalised for what copying changes and meaning does not (used by :mod:`.similarity`).

What goes, in this order:

1. comments, docstrings, layout and notebook magics (the code is parsed and written back);
2. classes the answer made up: each method becomes the function it wraps, its ``self.`` attributes locals,
   its constructor's arguments its first arguments and its constructor's own statements its first lines;
3. single-use helpers: a function the cell defines and calls once is written out where it is called;
4. comprehensions: ``[f(a) for a in xs]`` is the loop that appends ``f(a)`` to a list (``sum(...)`` of one
   the loop that adds), so the loop and the comprehension it replaced compare alike;
5. the order of independent statements: across each body, statements that neither read what another
   writes nor both act on something (two calls made for their effect keep their order) are put in one
   canonical order;
6. the names of locals: each function's arguments and assigned names become ``v0, v1, …`` by first use.

:func:`folded` then writes every variable as ``v``, so that a line of an answer can be compared with a line
of a lesson whatever either called its variables.
"""

from __future__ import annotations

import ast
import builtins
import copy
import re
from functools import partial

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_BODIES = ("body", "orelse", "finalbody")


# ---- what a statement reads and writes

class _Names(ast.NodeVisitor):
    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.calls = False

    def visit_Name(self, node: ast.Name) -> None:
        (self.writes if isinstance(node.ctx, (ast.Store, ast.Del)) else self.reads).add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        root = _root(node)
        if isinstance(node.ctx, ast.Store) and root:
            self.writes.add(root)  # x.attr = ... changes what x holds
        self.generic_visit(node)

    visit_Subscript = visit_Attribute  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> None:
        self.calls = True
        root = _root(node.func) if isinstance(node.func, ast.Attribute) else None
        if root:
            self.writes.add(root)  # x.method(...) may change what x holds
        self.generic_visit(node)


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    visitor = _Names()
    visitor.visit(stmt)
    return visitor.reads, visitor.writes


#: Methods that change only the container they are called on (a list, set or dict being built).
_BUILDS = {"append", "extend", "add", "update", "insert", "setdefault"}


def _acts(stmt: ast.stmt) -> bool:
    """The statement calls something for its effect (a bare call, or a block that calls): two of these keep
    their order, because what they act on (a model's ``.grad``, an optimizer's state) need not show in names."""
    if isinstance(stmt, ast.Expr):
        call = stmt.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _BUILDS:
            return False  # xs.append(x) changes xs, and names say so
        return isinstance(call, (ast.Call, ast.Await))
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return False
    return any(isinstance(n, ast.Call) for n in ast.walk(stmt))


# ---- 5. independent statements in one order

def _shape(stmt: ast.stmt) -> str:
    """A statement's structure with every name folded: the order key that renaming does not change."""
    text = ast.dump(stmt, annotate_fields=False, include_attributes=False)
    return re.sub(r"Name\('[^']*'", "Name('_'", text)


_MOVABLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.For, ast.While, ast.If, ast.With, ast.Try)


class _Roles:
    """What each name of ``scope`` is used for: the shape of every simple statement that mentions it, the name
    itself marked.  Two statements of one shape (``a = 0``, ``b = 0``) are ordered by what their names become."""

    def __init__(self, scope: ast.AST) -> None:
        self.scope = scope
        self.found: dict[str, tuple[str, ...]] | None = None

    def __call__(self, name: str) -> tuple[str, ...]:
        if self.found is None:
            found: dict[str, list[str]] = {}
            for stmt in ast.walk(self.scope):
                if isinstance(stmt, ast.stmt) and not hasattr(stmt, "body"):
                    text = ast.dump(stmt, annotate_fields=False, include_attributes=False)
                    for used in {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}:
                        marked = text.replace(f"Name('{used}'", "Name('@'")
                        found.setdefault(used, []).append(re.sub(r"Name\('[^'@]*'", "Name('_'", marked))
            self.found = {name: tuple(sorted(shapes)) for name, shapes in found.items()}
        return self.found.get(name, ())


def _order(run: list[ast.stmt], role: _Roles) -> list[ast.stmt]:
    """``run`` in one canonical order that keeps every dependency: the smallest ready statement first (by its
    shape, then by the roles of the names it writes)."""
    facts = [(*_names(s), _acts(s)) for s in run]

    def after(i: int, j: int) -> bool:  # must run[j] stay after run[i] (i < j)?
        (ri, wi, ai), (rj, wj, aj) = facts[i], facts[j]
        return bool(wi & (rj | wj) or wj & ri or (ai and aj))

    keys: dict[int, tuple] = {}

    def key(j: int) -> tuple:
        if j not in keys:
            keys[j] = (_shape(run[j]), tuple(role(n) for n in sorted(facts[j][1])), ast.dump(run[j]))
        return keys[j]

    waits = {j: {i for i in range(j) if after(i, j)} for j in range(len(run))}
    placed: list[int] = []
    while waits:
        ready = [j for j, on in waits.items() if not on]
        nxt = ready[0] if len(ready) == 1 else min(ready, key=key)
        placed.append(nxt)
        del waits[nxt]
        for on in waits.values():
            on.discard(nxt)
    return [run[j] for j in placed]


def _reorder(body: list[ast.stmt], role: _Roles) -> list[ast.stmt]:
    """``body`` with each run of movable statements (everything but ``return``, ``def``, imports and jumps)
    put in canonical order, and every nested body likewise."""
    out: list[ast.stmt] = []
    run: list[ast.stmt] = []
    for stmt in body:
        for name in _BODIES:
            if isinstance(getattr(stmt, name, None), list) and getattr(stmt, name):
                setattr(stmt, name, _reorder(getattr(stmt, name), role))
        if isinstance(stmt, _MOVABLE):
            run.append(stmt)
        else:
            out.extend(_order(run, role))
            run = []
            out.append(stmt)
    out.extend(_order(run, role))
    return out


# ---- 6. local names numbered

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
        if (isinstance(node, (*_SCOPES, ast.ClassDef, ast.Module)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]


def _rename_locals(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, _SCOPES):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            local = {a.arg for a in arguments} | {a.arg for a in (node.args.vararg, node.args.kwarg) if a}
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    local.add(inner.id)
            renamer = _Rename(local)
            for arg in arguments:
                renamer.visit_arg(arg)
            node.body = [renamer.visit(stmt) for stmt in node.body]


# ---- 2. made-up classes as the functions they wrap

class _SelfToLocal(ast.NodeTransformer):
    """``self.x`` becomes the name ``x``; ``self.m(...)`` a call of ``m``."""

    def __init__(self, me: str) -> None:
        self.me = me

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == self.me:
            return ast.copy_location(ast.Name(node.attr, node.ctx), node)
        return self.generic_visit(node)


def _method_params(fn: ast.FunctionDef) -> list[ast.arg]:
    return fn.args.args[1:]


def _unwrap_class(cls: ast.ClassDef) -> dict[str, ast.FunctionDef] | None:
    """``{method: function}`` for a plain class (no base but ``object``, methods only); ``None`` otherwise.

    Each function takes the constructor's arguments, then the method's; its body is the constructor's own
    statements (``self.x = x`` left out: the argument already is the local ``x``), then the method's."""
    if any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases) or cls.decorator_list:
        return None
    methods = [s for s in cls.body if isinstance(s, ast.FunctionDef) and s.args.args and not s.decorator_list]
    if len(methods) != len([s for s in cls.body if not isinstance(s, ast.Pass)]):
        return None
    init = next((m for m in methods if m.name == "__init__"), None)
    init_params, init_body = [], []
    if init is not None:
        init = _SelfToLocal(init.args.args[0].arg).visit(copy.deepcopy(init))
        init_params = _method_params(init)
        init_body = [s for s in init.body if not _no_op(s)]
    out = {}
    for method in methods:
        if method is init or method.name == "__init__":
            continue
        fn = _SelfToLocal(method.args.args[0].arg).visit(copy.deepcopy(method))
        fn.args.args = [copy.deepcopy(a) for a in init_params] + _method_params(fn)
        fn.name = f"{cls.name}__{method.name}"
        fn.body = copy.deepcopy(init_body) + fn.body
        out[method.name] = fn
    return out


class _CallsOfClass(ast.NodeTransformer):
    """``C(a).m(b)`` becomes ``C__m(a, b)``; ``obj = C(a)`` … ``obj.m(b)`` likewise (the binding dropped)."""

    def __init__(self, cls: str, methods: dict[str, ast.FunctionDef], bound: dict[str, ast.Call]) -> None:
        self.cls, self.methods, self.bound = cls, methods, bound

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in self.methods):
            return node
        made = func.value
        if isinstance(made, ast.Name) and made.id in self.bound:
            made = self.bound[made.id]
        if isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id == self.cls:
            return ast.copy_location(ast.Call(ast.Name(self.methods[func.attr].name, ast.Load()),
                                              made.args + node.args, made.keywords + node.keywords), node)
        return node


def _makes(stmt: ast.stmt, cls: str) -> str | None:
    """The name ``stmt`` binds to a new ``cls`` object (``obj = cls(...)``), or ``None``."""
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == cls):
        return stmt.targets[0].id
    return None


def _unwrap_classes(tree: ast.Module, keep: set[str]) -> None:
    for cls in [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name not in keep]:
        methods = _unwrap_class(cls)
        if methods is None:
            continue
        bound = {_makes(n, cls.name): n.value for n in ast.walk(tree) if isinstance(n, ast.stmt) and _makes(n, cls.name)}
        _CallsOfClass(cls.name, methods, bound).visit(tree)
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        _drop(tree, partial(_unused_object, cls=cls.name, used=used))
        at = tree.body.index(cls)
        tree.body[at:at + 1] = list(methods.values())


def _unused_object(stmt: ast.stmt, cls: str, used: set[str]) -> bool:
    name = _makes(stmt, cls)
    return name is not None and name not in used


def _drop(tree: ast.AST, doomed) -> None:
    for node in ast.walk(tree):
        for name in _BODIES:
            body = getattr(node, name, None)
            if isinstance(body, list) and any(isinstance(s, ast.stmt) and doomed(s) for s in body):
                setattr(node, name, [s for s in body if not doomed(s)] or [ast.Pass()])


# ---- 3. single-use helpers written out where they are called

def _defs(tree: ast.AST) -> list[tuple[list, ast.FunctionDef]]:
    """Every ``def`` of the cell with the body list that holds it."""
    found = []
    for node in ast.walk(tree):
        for name in _BODIES:
            body = getattr(node, name, None)
            if isinstance(body, list):
                found += [(body, s) for s in body if isinstance(s, ast.FunctionDef)]
    return found


def _inlinable(fn: ast.FunctionDef) -> bool:
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or fn.decorator_list:
        return False
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Lambda)) or
           (isinstance(n, ast.Name) and n.id == fn.name) for n in ast.walk(fn)):
        return False
    # one return, and it is the last statement: the body can run in the caller's place
    return len(returns) <= 1 and (not returns or fn.body[-1] is returns[0])


def _bind(fn: ast.FunctionDef, call: ast.Call) -> tuple[list[ast.stmt], list[ast.stmt]] | None:
    """``fn``'s body with its arguments bound to ``call``'s: ``(bindings, body)``; ``None`` when they do not
    fit.  An argument passed as a plain name is that name in the body; any other is assigned first."""
    params = [a.arg for a in fn.args.args]
    defaults = dict(zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults))
    given = dict(zip(params, call.args))
    if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in params or kw.arg in given:
            return None
        given[kw.arg] = kw.value
    if any(p not in given and p not in defaults for p in params):
        return None
    assigned = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    rename, bindings = {}, []
    for p in params:
        value = given.get(p, defaults.get(p))
        if isinstance(value, ast.Name) and p not in assigned:
            rename[p] = value.id
        elif p != getattr(value, "id", None):
            bindings.append(ast.Assign([ast.Name(p, ast.Store())], copy.deepcopy(value)))

    class Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.copy_location(ast.Name(rename.get(node.id, node.id), node.ctx), node)

    return bindings, [Sub().visit(copy.deepcopy(s)) for s in fn.body]


def _inline_at(stmt: ast.stmt, fn: ast.FunctionDef, call: ast.Call) -> list[ast.stmt] | None:
    """The statements that replace ``stmt`` (which holds ``call`` of ``fn``), or ``None`` if it cannot be."""
    bound = _bind(fn, call)
    if bound is None:
        return None
    bindings, body = bound
    last = body[-1] if body and isinstance(body[-1], ast.Return) else None
    if isinstance(stmt, ast.Return) and stmt.value is call:
        return bindings + body
    if isinstance(stmt, ast.Expr) and stmt.value is call:
        return bindings + (body[:-1] if last else body)
    if last is None or last.value is None:
        return None
    if len(body) == 1 and not bindings:  # one expression: it takes the call's place, wherever that is
        _replace(stmt, call, last.value)
        return [stmt]
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is call:
        stmt.value = last.value
        same = isinstance(stmt, ast.Assign) and ast.dump(stmt.targets[0]) == ast.dump(
            ast.Name(getattr(last.value, "id", None), ast.Store()))
        return bindings + body[:-1] + ([] if same else [stmt])  # x = helper() whose last line is return x
    return None


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            if value is old:
                setattr(node, name, new)
            elif isinstance(value, list):
                setattr(node, name, [new if v is old else v for v in value])


def _inline_helpers(tree: ast.Module, keep: set[str]) -> None:
    for _ in range(8):  # helpers of helpers, a few deep
        if not _inline_one(tree, keep):
            return


def _inline_one(tree: ast.Module, keep: set[str]) -> bool:
    for holder, fn in _defs(tree):
        if fn.name in keep or not _inlinable(fn):
            continue
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == fn.name]
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == fn.name]
        if len(uses) != 1 or len(calls) != 1:
            continue
        call = calls[0]
        for node in ast.walk(tree):
            for name in _BODIES:
                body = getattr(node, name, None)
                if not isinstance(body, list):
                    continue
                for at, stmt in enumerate(body):
                    if isinstance(stmt, (*_SCOPES, ast.ClassDef)) or not any(n is call for n in ast.walk(stmt)):
                        continue
                    if any(isinstance(s, (ast.For, ast.While, ast.If, ast.With, ast.Try)) for s in [stmt]):
                        continue  # the call sits in a header (a loop's iterable, a test): nested bodies are visited
                    new = _inline_at(stmt, fn, call)
                    if new is None:
                        break
                    body[at:at + 1] = new
                    holder.remove(fn)
                    if not holder:
                        holder.append(ast.Pass())
                    return True
    return False


# ---- 4. comprehensions as the loops they replace

_APPEND = {ast.ListComp: "append", ast.SetComp: "add"}


def _loop_of(comp: ast.AST, target: str) -> tuple[list[ast.stmt], bool] | None:
    """``(statements, ok)``: ``target`` built by the loop ``comp`` stands for; ``None`` for another node."""
    is_sum = (isinstance(comp, ast.Call) and isinstance(comp.func, ast.Name) and comp.func.id == "sum"
              and len(comp.args) == 1 and not comp.keywords and isinstance(comp.args[0], (ast.GeneratorExp, ast.ListComp)))
    if is_sum:
        gen = comp.args[0]
        start = ast.Constant(0)
        inner: ast.stmt = ast.AugAssign(ast.Name(target, ast.Store()), ast.Add(), gen.elt)
    elif type(comp) in _APPEND or isinstance(comp, ast.DictComp):
        gen = comp
        if isinstance(comp, ast.DictComp):
            start = ast.Dict([], [])
            inner = ast.Assign([ast.Subscript(ast.Name(target, ast.Load()), comp.key, ast.Store())], comp.value)
        else:
            start = ast.List([], ast.Load()) if isinstance(comp, ast.ListComp) else ast.Call(
                ast.Name("set", ast.Load()), [], [])
            inner = ast.Expr(ast.Call(ast.Attribute(ast.Name(target, ast.Load()), _APPEND[type(comp)], ast.Load()),
                                      [comp.elt], []))
    else:
        return None
    for g in reversed(gen.generators):
        for cond in reversed(g.ifs):
            inner = ast.If(cond, [inner], [])
        inner = ast.For(g.target, g.iter, [inner], [])
    return [ast.Assign([ast.Name(target, ast.Store())], start), inner]


def _expand_comprehensions(tree: ast.AST) -> None:
    counter = [0]
    for node in list(ast.walk(tree)):
        if not isinstance(node, _SCOPES):
            continue
        for inner in list(ast.walk(node)):
            for name in _BODIES:
                body = getattr(inner, name, None)
                if isinstance(body, list):
                    setattr(inner, name, _expand_body(body, counter))


def _expand_body(body: list[ast.stmt], counter: list[int]) -> list[ast.stmt]:
    out = []
    for stmt in body:
        if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Return, ast.Expr)) or stmt.value is None:
            out.append(stmt)
            continue
        value = stmt.value
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and (loop := _loop_of(value, stmt.targets[0].id))):
            out += loop  # x = [... for ...]: the loop that builds x
            continue
        for comp in [n for n in ast.walk(value) if _loop_of(n, "_") is not None]:
            temp = f"_built{counter[0]}"
            counter[0] += 1
            out += _loop_of(comp, temp)
            if comp is value:
                stmt.value = ast.Name(temp, ast.Load())
            else:
                _replace(stmt, comp, ast.Name(temp, ast.Load()))
            break  # the outermost one; what it holds stays inside its loop
        out.append(stmt)
    return out


# ---- x = x + e is x += e

def _no_op(stmt: ast.stmt) -> bool:
    """``x = x`` or ``a, b = a, b``: what a constructor's ``self.x = x`` becomes once ``self.`` goes."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        pairs = list(zip(target.elts, value.elts))
    else:
        pairs = [(target, value)]
    return all(isinstance(t, ast.Name) and isinstance(v, ast.Name) and t.id == v.id for t, v in pairs)


class _Augmented(ast.NodeTransformer):
    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        value = node.value
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(value, ast.BinOp)
                and isinstance(value.left, ast.Name) and value.left.id == node.targets[0].id):
            return ast.copy_location(ast.AugAssign(node.targets[0], value.op, value.right), node)
        return node


# ---- the whole pass

def _tree(source: str) -> ast.Module | None:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def normalise_tree(source: str, keep=()) -> ast.Module | None:
    """The normalised tree of ``source`` (``None`` when it does not parse); ``keep`` names the definitions the
    cell is asked for (never unwrapped or inlined)."""
    tree = _tree(source)
    if tree is None:
        return None
    keep = set(keep)
    strip_docstrings(tree)
    _unwrap_classes(tree, keep)
    _inline_helpers(tree, keep)
    _expand_comprehensions(tree)
    _drop(tree, _no_op)
    tree = ast.fix_missing_locations(_Augmented().visit(tree))
    for _ in range(3):  # numbering depends on order and order on numbering: settle both
        before = ast.dump(tree)
        _rename_locals(tree)
        for node in ast.walk(tree):
            if isinstance(node, _SCOPES):
                node.body = _reorder(node.body, _Roles(node))
        tree.body = _reorder(tree.body, _Roles(tree))
        _rename_locals(tree)
        if ast.dump(tree) == before:
            break
    return tree


def normalise(source: str, keep=()) -> str:
    """``source`` normalised (see the module's docstring); code that does not parse is returned as it is."""
    tree = normalise_tree(source, keep)
    return source if tree is None else ast.unparse(tree)


def defined(source: str) -> set[str]:
    """The names ``source`` defines at its top level (a stub's: the functions and classes asked for)."""
    tree = _tree(source)
    return set() if tree is None else {s.name for s in tree.body if isinstance(s, (*_SCOPES, ast.ClassDef))}


def statements(source: str) -> int:
    """How many statements ``source`` holds, its ``def`` and ``class`` lines and docstrings not counted."""
    tree = _tree(source)
    if tree is None:
        return len([line for line in source.splitlines() if line.strip()])
    strip_docstrings(tree)
    return sum(isinstance(n, ast.stmt) and not isinstance(n, (*_SCOPES, ast.ClassDef, ast.Pass))
               for n in ast.walk(tree))


# ---- lines compared whatever the variables are called

_KEPT = set(dir(builtins))


def folded(tree: ast.Module, variables: set[str] | None = None) -> list[str]:
    """The lines of ``ast.unparse(tree)`` with every variable written ``v``: the numbered locals, and the
    names in ``variables`` (a lesson's globals).  Imported names, builtins and attributes stay."""
    variables = set(variables or ())
    imported = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    tree = copy.deepcopy(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in imported and node.id not in _KEPT and (
                re.fullmatch(r"v\d+", node.id) or node.id in variables):
            node.id = "v"
        elif isinstance(node, ast.arg):
            node.arg = "v"
        elif isinstance(node, _SCOPES) and node.name in variables:
            node.name = "v"
    return ast.unparse(tree).splitlines()


def assigned(tree: ast.AST) -> set[str]:
    """Every name ``tree`` binds: assignments, loop targets, arguments, functions and classes."""
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    return names | {n.name for n in ast.walk(tree) if isinstance(n, (*_SCOPES, ast.ClassDef))}
