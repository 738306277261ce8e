"""An answer's code normalised for what copying changes and meaning does not (used by :mod:`.similarity`).

Every step keeps what the program does: the normalised answer, run on the exercise's inputs, returns what the
submitted one returns (``tests/test_similarity.py`` runs both on every planted answer).  What goes, in order:

1. comments, docstrings, type hints, layout and notebook magics (the code is parsed and written back; line
   numbers kept); newer syntax as the older it stands for: an assignment expression its statement evaluates
   first is a statement just before it, a ``match`` of literals (guarded or not, or a capture read only in its own
   case) the ``if``/``elif`` it is, ``[*xs]`` ``list(xs)`` (``bool(e)`` against
   ``True`` and ``False``: an ``if`` on ``e``), ``functools.reduce`` of a lambda with an initial value its loop; a
   name the cell binds once, at its top level, to a constant or a module's attribute is read as its value
   wherever the cell reads it (the binding stays);
2. classes the answer made up: each method becomes the function it wraps, its ``self.`` attributes locals,
   its constructor's arguments its first arguments and its constructor's own statements its first lines
   (``C(a)(b)`` calls ``__call__``'s); a class used otherwise (an object handed back, a method calling
   another through ``self``, an object its methods change used twice) stays;
3. single-use helpers and lambdas: a function the cell defines and calls once (a lambda: called only) is
   written out where it is called, its locals renamed apart from the caller's; one that reads a name the
   caller binds otherwise, or makes a function of its own (a closure), is left alone; a helper whose body is one ``return e`` is written out at every
   call, as a lambda is, and one called from two to four statements that are each the call itself (``x = h(...)``,
   ``h(...)``, ``return h(...)``) at each of them, its locals named apart at each place;
4. comprehensions: ``map(f, xs)`` is ``(f(x) for x in xs)`` and ``list(...)`` of a generator a list
   comprehension; ``[f(a) for a in xs]`` is the loop that appends ``f(a)`` to a list (``sum(...)`` of one
   the loop that adds), its loop variable renamed apart (a comprehension has its own scope);
5. other spellings of one PyTorch call: :data:`SPELLINGS`, a table the course keeps and tests call by call;
   then other forms of one expression (:func:`rewrite_forms`): ``range(0, n)``, ``dict(a=x)``, ``str.format``
   as an f-string, keyword arguments by position where the parameters are known (the cell's functions, the
   assignment's stubs, ``torch.autograd.grad`` and ``backward``) and the arguments only read (or all but one of
   them names and literals), ``dim=``/``device=``/``mode=`` by position, De Morgan
   (``not a or not b`` is ``not (a and b)``), a conditional expression on ``not c`` swapped, a test read for
   its truth only (``c or False`` is ``c``);
6. dead code: a local bound once to a constant is that constant, a branch on a constant goes, stores no one
   reads go (their calls stay, as calls); ``r = c`` then a loop that stores ``r = e`` only to ``break``,
   then ``return r``, returns ``e`` where it stored it and ``c`` after the loop;
7. loops: ``while True: if c: break ...`` is ``while not c: ...``; ``i = k; while i < n: ...; i += 1``
   (``<=``, either way round, negated) is ``for i in range(k, n)`` (``n + 1``) when nothing else moves ``i``,
   no ``continue`` skips the step and ``i`` is not read after; ``for i in range(len(xs)): x = xs[i]`` is
   ``for x in xs`` when ``i`` serves nothing else, ``for i, x in enumerate(xs)`` when it does;
   ``for b in xs: x, y = b`` is ``for x, y in xs``, an unread ``enumerate`` index, ``named_parameters()``
   name or ``items()`` key goes;
8. branches: ``for x in xs: if c: return True`` then ``return False`` is ``return any(c for x in xs)`` (and
   ``all``), ``f = False`` then ``for x in xs: if c: f = True; break`` is ``f = any(c for x in xs)`` when ``x``
   is not read after the loop; a ``continue`` that ends a loop's body goes; a guard (``if c: return``) takes what follows as its
   ``else``; ``if not c: A else: B`` is ``if c: B else: A`` (``!=``, ``is not`` and ``not in`` likewise,
   ``a != b or not c`` by De Morgan); an empty branch goes; ``if c: m.train() else: m.eval()`` is
   ``m.train(bool(c))``; ``if c: x = a else: x = b`` (a name, or an item or attribute of names) is
   ``x = a if c else b``, ``if c: return a else: return b`` is ``return a if c else b``;
9. temporaries: a local read once, by the next statement, before anything there is called, is written in
   its place;
10. the order of independent statements: within a run of statements that neither jump (``return``,
    ``break``, ``continue``, ``raise``, ``assert``) nor call a function the cell defines, statements that
    neither read what another writes (through any alias) nor both act on something keep one canonical order;
11. the names of locals: every scope's own names but its parameters (a call may pass those by keyword) become
    ``v0, v1, …``, each scope's apart from its enclosing one's (one counter for the cell), the names a ``case``
    pattern binds with them.

:func:`fingerprint_lines` writes the normalised tree as the text :mod:`.similarity` fingerprints: every local
written ``v`` (so the numbering, which follows first use, never enters a fingerprint), no indentation,
``x += e`` written ``x = x + e``, a whole float written as an int (``0.0`` is ``0``), ``m.train(bool(c))`` as
``m.train(c)``, each line with the line of the submitted cell it came from; asserts, prints, logging and
argument checks (``if c: raise``) after the code they interrupt, a ``try`` whose handlers only raise again as
its body and its ``finally``, a temporary read once by a later ``return`` or once by the next statement (not
in a loop's body or a branch) where it is read, a file opened by hand (``with open(p) as f``) read as ``p``,
loops and comprehensions over a tuple written out unrolled, a dictionary filled key by key right after it is
made (or by ``update(k=x)``) as one literal, ``d.update({k: v, ...})`` as ``d[k] = v, ...``, an f-string inside
an f-string as its parts, ``a + -b`` as ``a - b`` (``x += -d`` as ``x -= d``), one augmented assignment on both
branches of an ``if`` as one of a conditional value, ``if not not c`` as ``if c``, a counter's ``while`` whose
bound the body may change as the ``for`` loop it reads as, ``*rest, last = xs`` as ``xs[:-1]`` and ``xs[-1]``, an object of a class made up to hold values (a tally) as the locals
it holds (:func:`_holders_inlined`), the cell's constants no one reads any more left out, comparisons
one way round, containers filled one way, a product written out or by ``reduce`` as ``math.prod``, an option
after the stub's parameters as its default, a sum's terms in one order (:class:`_Ordered`), and the spellings of
:data:`NEAR` folded (:class:`_Near`).
"""

from __future__ import annotations

import ast
import builtins
import copy
import math
import re
from collections import deque
from functools import partial

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_ALL_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
               ast.GeneratorExp, ast.ClassDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_BODIES = ("body", "orelse", "finalbody")
_JUMPS = (ast.Return, ast.Break, ast.Continue, ast.Raise)


# ---- scopes

def _outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a nested scope that its enclosing scope evaluates (defaults, decorators, first iterable)."""
    if isinstance(node, _SCOPES):
        return [*node.decorator_list, *node.args.defaults, *[d for d in node.args.kw_defaults if d]]
    if isinstance(node, ast.Lambda):
        return [*node.args.defaults, *[d for d in node.args.kw_defaults if d]]
    if isinstance(node, _COMPS):
        return [node.generators[0].iter]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]
    return []


def _inner_parts(scope: ast.AST) -> list[ast.AST]:
    """The parts of ``scope`` that run in it, in source order."""
    if isinstance(scope, _SCOPES):
        a = scope.args
        return [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
                *([a.kwarg] if a.kwarg else []), *scope.body]
    if isinstance(scope, ast.Lambda):
        a = scope.args
        return [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
                *([a.kwarg] if a.kwarg else []), scope.body]
    if isinstance(scope, _COMPS):
        first, *rest = scope.generators
        elts = [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
        return [first.target, *first.ifs, *rest, *elts]
    if isinstance(scope, (ast.Module, ast.ClassDef)):
        return list(scope.body)
    return []


def own_nodes(scope: ast.AST):
    """Every node that runs in ``scope`` itself, in source order: nested scopes appear (their node, and the
    parts the scope evaluates for them) but their insides do not."""
    def visit(node):
        yield node
        if isinstance(node, _ALL_SCOPES):
            for part in _outer_parts(node):
                yield from visit(part)
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    for part in _inner_parts(scope):
        yield from visit(part)


def nested_scopes(scope: ast.AST) -> list[ast.AST]:
    return [n for n in own_nodes(scope) if isinstance(n, _ALL_SCOPES)]


def import_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The names an ``import`` statement binds (``import a.b`` binds ``a``; ``import a as b`` binds ``b``)."""
    return {(alias.asname or alias.name).split(".")[0] for alias in node.names}


def scope_locals(scope: ast.AST) -> list[str]:
    """The names ``scope`` binds, in order of first appearance (``global`` and ``nonlocal`` ones, and the names an
    ``import`` binds, left out)."""
    found: dict[str, None] = {}
    declared = set()
    for node in own_nodes(scope):
        if isinstance(node, ast.arg):
            found.setdefault(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.setdefault(node.id)
        elif isinstance(node, (*_SCOPES, ast.ClassDef)) and node is not scope:
            found.setdefault(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.setdefault(node.name)
        elif isinstance(node, _CAPTURES) and _captured(node):
            found.setdefault(_captured(node))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):  # a module's name, kept as written (not renamed)
            declared |= import_names(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared |= set(node.names)
    return [n for n in found if n not in declared]


def _functions(tree: ast.AST) -> list[ast.AST]:
    return [n for n in _walk(tree) if isinstance(n, _SCOPES)]


def _walk(tree: ast.AST):
    """``ast.walk``: every node of ``tree``, breadth first, in the same order, without its nested generators
    (the normaliser walks trees often enough for that to count)."""
    todo = deque([tree])
    pop, push, add = todo.popleft, todo.append, todo.extend
    while todo:
        node = pop()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                push(value)
            elif isinstance(value, list):
                add([v for v in value if isinstance(v, ast.AST)])
        yield node


def _every_node(tree: ast.AST):
    """Every node of ``tree`` in no particular order (faster than ``ast.walk``, for counting)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)


_CAPTURE_FIELD = {ast.MatchAs: "name", ast.MatchStar: "name", ast.MatchMapping: "rest"}
_CAPTURES = tuple(_CAPTURE_FIELD)


def _captured(node: ast.AST) -> str | None:
    """The name a ``case`` pattern binds (``case [x, *rest]``, ``case {**rest}``, ``case int() as n``); ``None``
    for any other node."""
    field = _CAPTURE_FIELD.get(type(node))
    return getattr(node, field) if field else None


def _loads(tree: ast.AST) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in _every_node(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _stores(tree: ast.AST) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in _every_node(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            counts[n.id] = counts.get(n.id, 0) + 1
        elif isinstance(n, _CAPTURES) and _captured(n):
            counts[_captured(n)] = counts.get(_captured(n), 0) + 2  # bound by a pattern: never a temporary to fold
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                counts[name] = counts.get(name, 0) + 2  # bound from elsewhere: never a constant, never dead
    return counts


_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def _bodies(tree: ast.AST):
    """``(node, field, body)`` for every statement list in ``tree``, in :func:`_walk`'s order (an expression
    holds no statement: only statements, handlers and cases are walked)."""
    todo = deque([tree])
    pop, add = todo.popleft, todo.extend
    while todo:
        node = pop()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                add([v for v in value if isinstance(v, _HOLDS_STATEMENTS)])
        for name in _BODIES:
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield node, name, body
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for handler in node.handlers:
                yield handler, "body", handler.body


def _escapes(stmt: ast.stmt) -> bool:
    """``stmt`` may leave its place other than by finishing: a return, raise or assert, or a break or continue
    that is not inside a loop of its own (what a nested function does is its own)."""
    def visit(node, in_loop):
        if isinstance(node, (ast.Return, ast.Raise, ast.Assert, ast.Yield, ast.YieldFrom, ast.Await,
                             ast.Global, ast.Nonlocal)):
            return True
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return True
        if isinstance(node, _ALL_SCOPES):
            return False
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):  # its body's jumps are its own, its else's not
            return (any(visit(c, True) for c in node.body)
                    or any(visit(c, in_loop) for c in [*node.orelse, getattr(node, "iter", None) or node.test]))
        return any(visit(c, in_loop) for c in ast.iter_child_nodes(node))
    return visit(stmt, False)


def _fresh(tree: ast.AST, stem: str) -> str:
    taken = {n.id for n in _walk(tree) if isinstance(n, ast.Name)} | {
        n.arg for n in _walk(tree) if isinstance(n, ast.arg)}
    i = 0
    while f"{stem}{i}" in taken:
        i += 1
    return f"{stem}{i}"


class _Sub(ast.NodeTransformer):
    """Names renamed by ``mapping`` (loads and stores alike)."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.copy_location(ast.Name(self.mapping.get(node.id, node.id), node.ctx), node)

    def visit_MatchAs(self, node: ast.AST) -> ast.AST:
        name = _captured(node)
        if name in self.mapping:
            setattr(node, _CAPTURE_FIELD[type(node)], self.mapping[name])
        return self.generic_visit(node)

    visit_MatchStar = visit_MatchMapping = visit_MatchAs


# ---- what a statement reads and writes

class _Names(ast.NodeVisitor):
    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.calls = False

    def visit_Name(self, node: ast.Name) -> None:
        (self.writes if isinstance(node.ctx, (ast.Store, ast.Del)) else self.reads).add(node.id)

    def visit_MatchAs(self, node: ast.AST) -> None:
        if _captured(node):
            self.writes.add(_captured(node))  # bound by a case pattern
        self.generic_visit(node)

    visit_MatchStar = visit_MatchMapping = visit_MatchAs

    def visit_Attribute(self, node: ast.Attribute) -> None:
        root = _root(node)
        if isinstance(node.ctx, (ast.Store, ast.Del)) and root:
            self.writes.add(root)  # x.attr = ... changes what x holds
        self.generic_visit(node)

    visit_Subscript = visit_Attribute  # type: ignore[assignment]

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        root = _root(node.target)
        if root:
            self.reads.add(root)  # x += e reads x
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.calls = True
        root = _root(node.func) if isinstance(node.func, ast.Attribute) else None
        if root:
            self.writes.add(root)  # x.method(...) may change what x holds
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            root = _root(arg)
            if root:
                self.writes.add(root)  # f(x) may change what x holds
        self.generic_visit(node)


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    visitor = _Names()
    visitor.visit(stmt)
    return visitor.reads, visitor.writes


#: Builtins that neither change their arguments nor act on anything else.
_PURE_FUNCS = {"len", "isinstance", "id", "float", "int", "bool", "str", "range", "zip", "enumerate", "sum",
               "min", "max", "abs", "list", "tuple", "set", "dict", "sorted", "round", "type", "iter", "repr"}
#: Methods that read what they are called on and change nothing.
_PURE_METHODS = {"numel", "size", "dim", "parameters", "named_parameters", "item", "tolist", "detach",
                 "clone", "keys", "values", "items", "get", "mean", "sum", "abs", "float", "double", "long",
                 "bool", "cpu", "isfinite", "isnan", "isinf", "sigmoid", "relu", "max", "min", "any", "all",
                 "eq", "ne", "gt", "lt", "ge", "le", "norm", "view_as", "reshape", "flatten",
                 "count", "index", "copy", "startswith", "endswith", "format"}
#: Methods that change only the container they are called on (a list, set or dict being built).
_BUILDS = {"append", "extend", "add", "update", "insert", "setdefault"}


#: Functions of ``torch`` that make a new value from their arguments and touch nothing else (no random state).
_PURE_TORCH = {"device", "zeros", "ones", "full", "tensor", "as_tensor", "zeros_like", "ones_like", "arange",
               "cat", "stack", "isfinite", "isnan", "isinf", "sigmoid", "relu", "tanh", "exp", "log", "sqrt",
               "abs", "mean", "sum", "max", "min", "count_nonzero", "numel", "equal", "allclose", "where"}
#: Methods that return a tensor's copy on a device or in a dtype: pure when their result is assigned (a tensor's
#: idiom); a bare ``model.to(device)`` changes a module in place and acts.
_CONVERTS = {"to", "cpu", "cuda", "float", "double", "long", "int", "bool", "half", "contiguous", "view",
             "reshape", "squeeze", "unsqueeze", "flatten", "view_as", "type_as", "detach", "clone", "item"}


def _pure(node: ast.AST, assigned: bool = False) -> bool:
    """Evaluating ``node`` changes nothing and calls nothing but a builtin, ``torch`` function or method known
    to change nothing (with ``assigned``, its value is stored: a conversion's result, not its effect, is meant)."""
    for n in _walk(node):
        if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.Lambda)):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            if any(k.arg == "out" for k in n.keywords):
                return False  # torch.f(t, out=u) writes u
            if isinstance(f, ast.Name) and f.id in _PURE_FUNCS:
                continue
            if isinstance(f, ast.Attribute) and (f.attr in _PURE_METHODS or (assigned and f.attr in _CONVERTS)):
                continue
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "torch" and (
                    f.attr in _PURE_TORCH):
                continue
            return False
    return True


def _acts(stmt: ast.stmt) -> bool:
    """The statement calls something for its effect (a bare call, or a block that calls): two of these keep
    their order, because what they act on (a model's ``.grad``, an optimizer's state, the random state) need
    not show in names."""
    if any(isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, (ast.Store, ast.Del))
           for n in _walk(stmt)):
        return True  # p.grad /= n, x[i] = e: the object changed may be held elsewhere (an optimizer's parameters)
    if isinstance(stmt, ast.Expr):
        call = stmt.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _BUILDS:
            return False  # xs.append(x) changes xs, and names say so
        return not _pure(call)
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return stmt.value is not None and not _pure(stmt.value, assigned=True)  # (a bare ``x: T`` does nothing)
    return not _pure(stmt)


# ---- 10. independent statements in one order

def _shape(stmt: ast.stmt) -> str:
    """A statement's structure with every name folded (``x += e`` as ``x = x + e``, as it is fingerprinted):
    the order key that renaming does not change."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        stmt = ast.Assign([stmt.target], ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value))
    text = ast.dump(stmt, annotate_fields=False, include_attributes=False)
    return re.sub(r"Name\('[^']*'", "Name('_'", text)


_MOVABLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.For, ast.While, ast.If, ast.With, ast.Try)


#: Attributes that hold a value no one changes in place (a shape, a dtype, a flag): reading one aliases nothing.
_VALUES = {"shape", "dtype", "device", "training", "requires_grad", "ndim", "is_leaf", "grad_fn", "__name__",
           "__class__"}


class _Aliases:
    """Names that may hold one object: ``a = b``, ``a = b.c``, ``a = b[i]`` and ``for a in b...`` join ``a``
    and ``b``, so a change made through one is a change to the other."""

    def __init__(self, scope: ast.AST) -> None:
        self.parent: dict[str, str] = {}
        for node in _walk(scope):
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)) and not any(
                    isinstance(n, ast.Attribute) and n.attr in _VALUES for n in _walk(node.value)):
                src = _root(node.value)
                for target in node.targets:
                    for n in _walk(target):
                        if isinstance(n, ast.Name) and src:
                            self.join(n.id, src)
            elif isinstance(node, (ast.For, ast.comprehension, ast.withitem)):
                src = _root(node.iter if not isinstance(node, ast.withitem) else node.context_expr)
                target = node.target if not isinstance(node, ast.withitem) else node.optional_vars
                for n in _walk(target) if target is not None and src else ():
                    if isinstance(n, ast.Name):
                        self.join(n.id, src)

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            x = self.parent[x]
        return x

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def of(self, names: set[str]) -> set[str]:
        return {self.find(n) for n in names}


def _order(run: list[ast.stmt], alias: _Aliases) -> list[ast.stmt]:
    """``run`` in one canonical order that keeps every dependency: the smallest ready statement first (by its
    shape: its structure with every name folded, as it is fingerprinted)."""
    if len(run) < 2:
        return run
    named = [_names(s) for s in run]
    facts = [(alias.of(r), alias.of(w), _acts(s), _reads_state(s)) for s, (r, w) in zip(run, named)]

    def after(i: int, j: int) -> bool:  # must run[j] stay after run[i] (i < j)?
        (ri, wi, ai, si), (rj, wj, aj, sj) = facts[i], facts[j]
        return bool(wi & (rj | wj) or wj & ri or (ai and (aj or sj)) or (aj and si))

    keys: dict[int, tuple] = {}

    def key(j: int) -> tuple:  # statements of one shape differ only by names, which are not fingerprinted
        if j not in keys:
            keys[j] = (_shape(run[j]), j)
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


def _movable(stmt: ast.stmt, callables: set[str]) -> bool:
    """Neither a jump (nor holding one that leaves it) nor a call of a function the cell defines (whose reads
    and writes do not show in names)."""
    if not isinstance(stmt, _MOVABLE) or _escapes(stmt):
        return False
    return not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in callables
                   for n in _walk(stmt))


def _reorder(body: list[ast.stmt], alias: _Aliases, callables: set[str]) -> list[ast.stmt]:
    """``body`` with each run of movable statements put in canonical order, and every nested body likewise."""
    out: list[ast.stmt] = []
    run: list[ast.stmt] = []
    for stmt in body:
        for name in _BODIES:
            if isinstance(stmt, ast.ClassDef):
                break  # a class body's order is its attributes' order (a dataclass's fields, its __init__'s)
            if isinstance(getattr(stmt, name, None), list) and getattr(stmt, name):
                setattr(stmt, name, _reorder(getattr(stmt, name), alias, callables))
        for handler in getattr(stmt, "handlers", ()):
            handler.body = _reorder(handler.body, alias, callables)
        if _movable(stmt, callables):
            run.append(stmt)
        else:
            out.extend(_order(run, alias))
            run = []
            out.append(stmt)
    out.extend(_order(run, alias))
    return out


def _callables(tree: ast.AST) -> set[str]:
    """Names the cell binds to a function or a lambda."""
    names = {n.name for n in _walk(tree) if isinstance(n, _SCOPES)}
    for n in _walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda):
            names |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return names


# ---- 11. local names numbered, scope by scope

def parameters(scope: ast.AST) -> set[str]:
    """The names of a function's (a lambda's) parameters: part of how it is called (``f(x, eps=1.0)``)."""
    a = getattr(scope, "args", None)
    if not isinstance(a, ast.arguments):
        return set()
    return {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p is not None}


def _rename_scopes(tree: ast.Module) -> None:
    """Every function's (lambda's, comprehension's) own names but its parameters become ``v0, v1, …``; a nested
    scope's names are numbered apart from its enclosing scope's, and a name it reads from there keeps that
    scope's number.  Parameters keep their names: a call may pass them by keyword, from this cell or another,
    and the fingerprinted text writes them ``v`` as it does every local."""
    counter = [0]

    def rename(scope: ast.AST, env: dict[str, str]) -> None:
        mapping = dict(env)
        if isinstance(scope, ast.ClassDef):
            for name in scope_locals(scope):
                mapping.pop(name, None)  # what a class body binds is an attribute (``Best.lr``): kept as written
        elif not isinstance(scope, ast.Module):
            own = parameters(scope)
            for name in own:
                mapping.pop(name, None)  # a parameter hides the enclosing scope's name
            for name in scope_locals(scope):
                if name in own:
                    continue
                mapping[name] = f"v{counter[0]}"
                counter[0] += 1
        for node in list(own_nodes(scope)):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id = mapping[node.id]
            elif isinstance(node, ast.arg) and node.arg in mapping:
                node.arg = mapping[node.arg]
                node.annotation = None
            elif isinstance(node, (*_SCOPES, ast.ClassDef)) and node.name in mapping:
                node.name = mapping[node.name]
            elif isinstance(node, ast.ExceptHandler) and node.name in mapping:
                node.name = mapping[node.name]
            elif isinstance(node, _CAPTURES) and _captured(node) in mapping:
                setattr(node, _CAPTURE_FIELD[type(node)], mapping[_captured(node)])
            elif isinstance(node, ast.Nonlocal):
                node.names = [mapping.get(n, n) for n in node.names]
        for inner in nested_scopes(scope):
            # a class body's names are not visible in its methods: they see the enclosing scope's
            rename(inner, env if isinstance(scope, ast.ClassDef) else mapping)

    rename(tree, {})


def strip_docstrings(tree: ast.AST) -> None:
    """Drop every module's, class's and function's docstring from ``tree`` (in place)."""
    for node in _walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (*_SCOPES, ast.ClassDef, ast.Module)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]


def strip_annotations(tree: ast.AST) -> None:
    """Type hints go (in place): a function's argument and return annotations, and ``x: T = e`` is ``x = e``;
    a bare ``x: T`` stays (it makes ``x`` a local), and so does every annotation of a class body (a dataclass's
    fields are its annotations)."""
    for node in _walk(tree):
        if isinstance(node, (*_SCOPES, ast.Lambda)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None:
                    arg.annotation = None
            if not isinstance(node, ast.Lambda):
                node.returns = None
    for node, field, body in list(_bodies(tree)):
        if isinstance(node, ast.ClassDef):
            continue
        setattr(node, field, [ast.copy_location(ast.Assign([s.target], s.value), s)
                              if isinstance(s, ast.AnnAssign) and s.value is not None and s.simple else s
                              for s in body])


def _first_evaluated(expr: ast.AST):
    """``expr``, then the part of it Python evaluates first, and so on down: a comparison's left operand, the first
    operand of ``and``/``or`` (always evaluated), a binary operation's left operand, the operand of ``not``."""
    while expr is not None:
        yield expr
        expr = (expr.left if isinstance(expr, (ast.Compare, ast.BinOp)) else expr.values[0]
                if isinstance(expr, ast.BoolOp) else expr.operand if isinstance(expr, ast.UnaryOp) else None)


def walrus_hoisted(tree: ast.AST) -> None:
    """An assignment expression that its statement evaluates first (``if (p := self.p) > 0:``, the left operand of
    a comparison, the first of an ``and``/``or``, in an ``if``'s test, an assignment's or a ``return``'s value)
    is a statement of its own just before it (``p = self.p``, then ``if p > 0:``): the same value, bound at the
    same moment, before anything else the statement evaluates (in place).  A ``while``'s test, evaluated again
    on every turn, keeps its own."""
    for _, _, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            attr = "test" if isinstance(stmt, ast.If) else "value" if isinstance(
                stmt, (ast.Assign, ast.Return, ast.Expr)) else ""
            while attr and getattr(stmt, attr, None) is not None:
                first = next((e for e in _first_evaluated(getattr(stmt, attr)) if isinstance(e, ast.NamedExpr)
                              and isinstance(e.target, ast.Name)), None)
                if first is None:
                    break
                out.append(ast.copy_location(ast.Assign([ast.Name(first.target.id, ast.Store())], first.value), stmt))
                read = ast.copy_location(ast.Name(first.target.id, ast.Load()), first)
                if getattr(stmt, attr) is first:
                    setattr(stmt, attr, read)
                else:
                    _replace(getattr(stmt, attr), first, read)
            out.append(stmt)
        if len(out) != len(body):
            body[:] = out
    ast.fix_missing_locations(tree)


def _literal_alternatives(pattern: ast.AST) -> list | None:
    """``[(operator, value)]`` a ``case`` pattern of literals matches by (``==`` a value, ``is`` ``None``/``True``/
    ``False``), ``[]`` for the wildcard ``_``, ``None`` for any other pattern (a capture, a sequence, a class)."""
    if isinstance(pattern, ast.MatchValue):
        return [(ast.Eq(), pattern.value)]
    if isinstance(pattern, ast.MatchSingleton):
        return [(ast.Is(), ast.Constant(pattern.value))]
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is None and pattern.name is None:
        return []
    if isinstance(pattern, ast.MatchOr):
        parts = [_literal_alternatives(p) for p in pattern.patterns]
        return None if any(not p for p in parts) else [alt for p in parts for alt in p]
    return None


def _reduce_parts(call: ast.AST, from_functools: bool) -> tuple[ast.Lambda, ast.AST, ast.AST] | None:
    """``(lambda, iterable, initial)`` of ``functools.reduce(lambda acc, x: e, xs, initial)`` (``reduce`` where the
    cell imported it from ``functools``), or ``None``."""
    if not (isinstance(call, ast.Call) and len(call.args) == 3 and not call.keywords and (
            (isinstance(call.func, ast.Attribute) and call.func.attr == "reduce" and isinstance(call.func.value, ast.Name)
             and call.func.value.id == "functools") or (
                from_functools and isinstance(call.func, ast.Name) and call.func.id == "reduce"))):
        return None
    fn, items, initial = call.args
    a = fn.args if isinstance(fn, ast.Lambda) else None
    if a is None or len(a.args) != 2 or a.posonlyargs or a.vararg or a.kwarg or a.kwonlyargs or a.defaults or any(
            isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)) for n in _walk(fn.body)):
        return None
    params = {x.arg for x in a.args}
    if any(params & assigned(n) for n in _walk(fn.body) if isinstance(n, _ALL_SCOPES)):
        return None  # a scope inside that binds a parameter's name again: its own, not the lambda's
    if not (isinstance(initial, ast.Constant) or (_pure_read(initial) and _pure_read(items))):
        return None  # evaluated in another order below: only where the order cannot matter
    return fn, items, initial


def reduce_as_loop(tree: ast.Module) -> None:
    """``r = functools.reduce(lambda acc, x: e, xs, initial)`` (or ``return ...``) is the loop it runs: ``r =
    initial``, then ``for x in xs: r = e`` (the lambda's parameters the loop's names), then ``return r`` (in
    place).  Only with an initial value that is a constant, or read from names as ``xs`` is."""
    from_functools = any(isinstance(n, ast.ImportFrom) and n.module == "functools" and any(
        alias.name == "reduce" and alias.asname is None for alias in n.names) for n in _walk(tree))
    made = 0
    for _, _, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            target = _single_target(stmt) if isinstance(stmt, ast.Assign) else None
            parts = _reduce_parts(stmt.value, from_functools) if (target or isinstance(stmt, ast.Return)) else None
            read = set() if parts is None else {n.id for part in parts for n in _walk(part) if isinstance(n, ast.Name)}
            if parts is None or (target and target in read):
                out.append(stmt)
                continue
            fn, items, initial = parts
            made += 1
            acc, item = target or f"reduce_acc_{made}", f"reduce_item_{made}"
            step = copy.deepcopy(fn.body)
            for param, name in zip((x.arg for x in fn.args.args), (acc, item)):
                for n in _walk(step):
                    if isinstance(n, ast.Name) and n.id == param:
                        n.id = name
            loop = ast.For(ast.Name(item, ast.Store()), items, [ast.Assign([ast.Name(acc, ast.Store())], step)], [])
            out += [ast.copy_location(node, stmt) for node in (
                ast.Assign([ast.Name(acc, ast.Store())], initial), loop)]
            if not target:
                out.append(ast.copy_location(ast.Return(ast.Name(acc, ast.Load())), stmt))
        if len(out) != len(body):
            body[:] = out
    ast.fix_missing_locations(tree)


def _truth_cases(subject: ast.AST, cases: list) -> ast.AST | None:
    """``e`` when ``subject`` is ``bool(e)`` (which is ``True`` or ``False`` and nothing else) and each case is
    ``True`` or ``False`` alone, each once: the ``if`` on ``e``'s truth that such a ``match`` is."""
    singles = [alts[0][1].value for alts, _ in cases if alts and len(alts) == 1 and isinstance(alts[0][0], ast.Is)]
    if (isinstance(subject, ast.Call) and isinstance(subject.func, ast.Name) and subject.func.id == "bool"
            and len(subject.args) == 1 and not subject.keywords and not isinstance(subject.args[0], ast.Starred)
            and len(singles) == len(cases) and len(set(singles)) == len(singles)
            and all(v is True or v is False for v in singles)):
        return subject.args[0]
    return None


def match_as_if(tree: ast.AST) -> None:
    """A ``match`` whose cases are literals (values, ``None``/``True``/``False``, ``|`` of those, a last ``_``),
    each with or without a guard, or a capture (``case g if c:``) whose name is read only in its own case and
    bound nowhere else, is the ``if``/``elif``/``else`` it is: ``subject == value`` (``is`` for the three
    singletons) case by case, ``and`` its guard, the captured name read as the subject; the subject read once,
    first, into a local of its own when it is more than a name or a case captures it (in place)."""
    made = 0
    stores, loads = _stores(tree), _loads(tree)
    for _, _, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            cases = [(_case_alternatives(c, stores, loads), c) for c in stmt.cases] if isinstance(stmt, ast.Match) else []
            if not cases or any(alts is None for alts, _ in cases) or any(
                    alts == [] and c.guard is None for alts, c in cases[:-1]):
                out.append(stmt)
                continue
            subject = stmt.subject
            truth = _truth_cases(subject, cases) if not any(c.guard or _captured(c.pattern) for _, c in cases) else None
            if truth is not None:  # bool(e) matched against True and False: if e: ... else: ...
                out.append(ast.copy_location(ast.If(truth, *(next((c.body for alts, c in cases if alts and (
                    alts[0][1].value is value)), []) or [ast.Pass()] for value in (True, False))), stmt))
                continue
            if not isinstance(subject, ast.Name) or any(_captured(c.pattern) for _, c in cases):
                made += 1
                local = f"match_subject_{made}"
                out.append(ast.copy_location(ast.Assign([ast.Name(local, ast.Store())], subject), stmt))
                subject = ast.Name(local, ast.Load())
            orelse: list[ast.stmt] = []
            for alts, case in reversed(cases):
                body_of, guard = case.body, case.guard
                if _captured(case.pattern):  # the captured name is the subject, in its guard and its body
                    names = {_captured(case.pattern): subject.id}
                    body_of = [_Sub(names).visit(s) for s in body_of]
                    guard = _Sub(names).visit(guard) if guard is not None else None
                if not alts and guard is None:
                    orelse = body_of
                    continue
                tests = [ast.Compare(copy.deepcopy(subject), [op], [copy.deepcopy(value)]) for op, value in alts]
                tests += [guard] if guard is not None else []
                test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests[:len(alts)]) if guard is None \
                    else ast.BoolOp(ast.And(), [tests[0] if len(alts) == 1 else ast.BoolOp(ast.Or(), tests[:-1]),
                                                guard]) if alts else guard
                orelse = [ast.copy_location(ast.If(test, body_of, orelse), case.pattern)]
            out.extend(orelse)
        if len(out) != len(body) or any(a is not b for a, b in zip(out, body)):
            body[:] = out
    ast.fix_missing_locations(tree)


def _case_alternatives(case: ast.match_case, stores: dict[str, int], loads: dict[str, int]) -> list | None:
    """:func:`_literal_alternatives` of ``case``'s pattern, ``[]`` for a capture (``case g:``) whose name is
    bound nowhere else and read only in ``case`` itself (its guard and its body), ``None`` otherwise."""
    pattern = case.pattern
    name = _captured(pattern)
    if not (isinstance(pattern, ast.MatchAs) and name):
        return _literal_alternatives(pattern)
    if pattern.pattern is not None or stores.get(name) != 2:  # stores count a capture twice
        return None
    inside = sum(n.id == name for part in [case.guard, *case.body] if part is not None for n in _walk(part)
                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    if inside != loads.get(name, 0) or any(isinstance(n, (*_ALL_SCOPES, ast.ClassDef)) for part in case.body
                                           for n in _walk(part)):
        return None  # read elsewhere, or by a function made in the case (which would read it later)
    return []


def _dotted(node: ast.AST, modules: set[str]) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in modules


def module_constant(stmt: ast.stmt, modules: set[str]) -> str | None:
    """The name a cell's top-level ``NAME = constant`` (or ``NAME = math.inf``, ``nn.MSELoss``: an attribute of
    a module) binds; ``None`` for any other statement."""
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and (isinstance(stmt.value, ast.Constant) or _dotted(stmt.value, modules))):
        return stmt.targets[0].id
    return None


def _imported(tree: ast.Module) -> set[str]:
    return {name for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for name in import_names(n)} | _MODULES


def inline_module_constants(tree: ast.Module) -> None:
    """A name the cell binds once, at its top level, to a constant or a module's attribute, and binds nowhere
    else (no argument, local, ``global`` or definition of that name): every read of it after that statement
    is the value itself.  The statement stays (other cells may read the name)."""
    if not any(isinstance(s, ast.Assign) for s in tree.body):
        return
    modules = _imported(tree)
    stores = _stores(tree)
    bound = {a.arg for a in _walk(tree) if isinstance(a, ast.arg)} | {
        n.name for n in _walk(tree) if isinstance(n, (*_SCOPES, ast.ClassDef))}
    for at, stmt in enumerate(tree.body):
        name = module_constant(stmt, modules)
        if name is None or stores.get(name) != 1 or name in bound or name in modules:
            continue
        if isinstance(stmt.value, ast.Attribute) and _root(stmt.value) in stores:
            continue  # the module's name is rebound somewhere
        for later in tree.body[at + 1:]:
            for node in _walk(later):
                for field, child in ast.iter_fields(node):
                    items = child if isinstance(child, list) else [child]
                    for i, item in enumerate(items):
                        if isinstance(item, ast.Name) and item.id == name and isinstance(item.ctx, ast.Load):
                            value = ast.copy_location(copy.deepcopy(stmt.value), item)
                            if isinstance(child, list):
                                child[i] = value
                            else:
                                setattr(node, field, value)


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
    if any(m.args.vararg or m.args.kwarg for m in methods):
        return None  # *args or **options: the constructor's arguments and the method's could no longer be told apart
    for m in methods:
        me = m.args.args[0].arg
        through = {id(n.value) for n in _walk(m) if isinstance(n, ast.Attribute)}
        if any(isinstance(n, ast.Name) and n.id == me and id(n) not in through for n in _walk(m)):
            return None  # the object itself read (getattr(self, name), handed on): not only its attributes
    attributes = {n.attr for m in methods for n in _walk(m) if isinstance(n, ast.Attribute)
                  and isinstance(n.value, ast.Name) and n.value.id == m.args.args[0].arg}
    if any(attributes & (set(scope_locals(m)) - {a.arg for a in m.args.args}) for m in methods
           if m.name != "__init__"):
        return None  # self.x and a local x of a method: one name would stand for two things
    if attributes & {m.name for m in methods}:
        return None  # a method that calls another through self: each function would start from the constructor
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
        if "__call__" in self.methods and not isinstance(func, ast.Attribute):
            func = ast.Attribute(func, "__call__", ast.Load())  # C(a)(b) is C(a).__call__(b)
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
    """Every plain class the cell makes up, unwrapped (:func:`_unwrap_class`) where each of its uses becomes a
    call of one of its functions; a class used any other way (passed along, subclassed, an object bound twice)
    stays as it is."""
    for at, cls in [(i, s) for i, s in enumerate(tree.body) if isinstance(s, ast.ClassDef) and s.name not in keep]:
        methods = _unwrap_class(cls)
        if methods is None:
            continue
        trial = copy.deepcopy(tree)
        stores = _stores(trial)
        bound = {_makes(n, cls.name): n.value for n in _walk(trial) if isinstance(n, ast.stmt) and _makes(n, cls.name)}
        if any(stores.get(name, 0) != 1 for name in bound):
            continue
        loads = _loads(trial)
        if (_keeps_state(cls) or not _plain_constructor(cls)) and any(loads.get(name, 0) > 1 for name in bound):
            # an object whose methods change it, used twice: the second call sees what the first did; one whose
            # constructor calls anything (a random draw, a print), used twice: each function would call it again
            continue
        _CallsOfClass(cls.name, methods, bound).visit(trial)
        used = {n.id for n in _walk(trial) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        _drop(trial, partial(_unused_object, cls=cls.name, used=used))
        trial.body[at:at + 1] = list(methods.values())
        if cls.name in _loads(trial) or any(name in _loads(trial) for name in bound):
            continue  # some use of the class or of an object it made is not a call of its methods
        tree.body[:] = trial.body


def _plain_constructor(cls: ast.ClassDef) -> bool:
    """Whether the constructor calls nothing but functions that only read (``len``, ``round``, ...): running it
    once per method call then does what running it once did."""
    init = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
    return init is None or all(isinstance(n.func, ast.Name) and n.func.id in _IMMUTABLE_CALLS
                               for n in _walk(init) if isinstance(n, ast.Call))


def _keeps_state(cls: ast.ClassDef) -> bool:
    """Whether a method other than the constructor changes the object: stores into ``self.x`` (or an item of
    it) or calls a method that fills a container on it."""
    for m in cls.body:
        if not isinstance(m, ast.FunctionDef) or m.name == "__init__" or not m.args.args:
            continue
        me = m.args.args[0].arg
        for n in _walk(m):
            target = n.value if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) else n
            if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(getattr(n, "ctx", None), ast.Store) and (
                    isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me):
                return True
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _BUILDS
                    and isinstance(n.func.value, ast.Attribute) and isinstance(n.func.value.value, ast.Name)
                    and n.func.value.value.id == me):
                return True
    return False


def _unused_object(stmt: ast.stmt, cls: str, used: set[str]) -> bool:
    name = _makes(stmt, cls)
    return name is not None and name not in used


def _drop(tree: ast.AST, doomed) -> None:
    for node in _walk(tree):
        for name in _BODIES:
            body = getattr(node, name, None)
            if isinstance(body, list) and any(isinstance(s, ast.stmt) and doomed(s) for s in body):
                setattr(node, name, [s for s in body if not doomed(s)] or [ast.Pass()])


# ---- 3. single-use helpers written out where they are called

def _defs(tree: ast.AST) -> list[tuple[list, ast.FunctionDef]]:
    """Every ``def`` of the cell with the body list that holds it."""
    found = []
    for node in _walk(tree):
        for name in _BODIES:
            body = getattr(node, name, None)
            if isinstance(body, list):
                found += [(body, s) for s in body if isinstance(s, ast.FunctionDef)]
    return found


def _inlinable(fn: ast.FunctionDef) -> bool:
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or fn.decorator_list:
        return False
    returns = [n for n in _walk(fn) if isinstance(n, ast.Return)]
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Lambda, *_SCOPES)) and n is not fn or
           (isinstance(n, ast.Name) and n.id == fn.name) for n in _walk(fn)):
        return False  # a function made inside (a closure) binds the helper's own locals: written out, the caller's
    # one return, and it is the last statement: the body can run in the caller's place
    return len(returns) <= 1 and (not returns or fn.body[-1] is returns[0])


def _bind(fn: ast.FunctionDef, call: ast.Call, tag: str = "") -> tuple[list[ast.stmt], list[ast.stmt]] | None:
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
    assigned = {n.id for n in _walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    rename, bindings = {}, []
    for p in params:
        value = given.get(p, defaults.get(p))
        if isinstance(value, ast.Name) and p not in assigned:
            rename[p] = value.id
        else:
            rename[p] = f"_{fn.name}{tag}_{p}"  # its own name, apart from every name of the caller's
            bindings.append(ast.copy_location(ast.Assign([ast.Name(rename[p], ast.Store())], copy.deepcopy(value)), call))
    for name in scope_locals(fn):
        rename.setdefault(name, f"_{fn.name}{tag}_{name}")
    return bindings, [_Sub(rename).visit(copy.deepcopy(s)) for s in fn.body]


def _inline_at(stmt: ast.stmt, fn: ast.FunctionDef, call: ast.Call, tag: str = "") -> list[ast.stmt] | None:
    """The statements that replace ``stmt`` (which holds ``call`` of ``fn``), or ``None`` if it cannot be; ``tag``
    sets the names of ``fn``'s locals apart from those of its other places."""
    bound = _bind(fn, call, tag)
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
    value = getattr(stmt, "value", None)
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)) and value is not None and (
            _hoistable(value, call)):  # the call is the first thing the statement does: its result, then the rest
        result = f"_{fn.name}_result"
        _replace(stmt, call, ast.copy_location(ast.Name(result, ast.Load()), call))
        kept = ast.copy_location(ast.Assign([ast.Name(result, ast.Store())], last.value), last)
        return bindings + body[:-1] + [kept, stmt]
    return None


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for node in _walk(tree):
        for name, value in ast.iter_fields(node):
            if value is old:
                setattr(node, name, new)
            elif isinstance(value, list) and any(v is old for v in value):
                value[:] = [new if v is old else v for v in value]  # in place: callers hold these lists


def _inline_helpers(tree: ast.Module, keep: set[str], expressions_first: bool = False) -> None:
    steps = (_inline_expression, _inline_one) if expressions_first else (_inline_one, _inline_expression)
    steps += (_inline_each,)  # a helper written out at several places only when nothing else can be
    for _ in range(8):  # helpers of helpers, a few deep
        if not any(step(tree, keep) for step in steps):
            return


def _inline_expression(tree: ast.Module, keep: set[str]) -> bool:
    """A helper the cell defines whose body is one ``return e`` and that is only ever called (once or more):
    each call is ``e`` with its arguments in place of the parameters, as a lambda's (:func:`_inline_lambdas`)."""
    loads = _loads(tree)
    for holder, fn in _defs(tree):
        a = fn.args
        if (fn.name in keep or not _inlinable(fn) or a.defaults or len(fn.body) != 1
                or not isinstance(fn.body[0], ast.Return) or fn.body[0].value is None
                or any(isinstance(n, ast.NamedExpr) for n in _walk(fn.body[0]))):
            continue
        params = [p.arg for p in a.args]
        if not _substitutable(fn.body[0].value, params):
            continue
        calls = [n for n in _walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == fn.name]
        lam = ast.Lambda(a, fn.body[0].value)
        once = len(params) == 1 and _first_use(ast.Expr(lam.body), params[0]) is not None and sum(
            isinstance(n, ast.Name) and n.id == params[0] for n in _walk(lam.body)) == 1
        bound = {t.id for n in _walk(lam.body) if isinstance(n, _COMPS) for g in n.generators
                 for t in _walk(g.target) if isinstance(t, ast.Name)}
        if len(calls) != loads.get(fn.name, 0) or not calls or any(
                len(c.args) != len(params) or c.keywords or any(isinstance(x, ast.Starred) for x in c.args)
                or not (once or all(_pure(x) for x in c.args)) or not _same_meaning(tree, fn, c)
                or bound & {n.id for x in c.args for n in _walk(x) if isinstance(n, ast.Name)} for c in calls):
            continue  # (a comprehension's own variable would take an argument's name in)
        if not _room(tree, len(calls) * _size(fn.body[0])):
            continue
        for c in calls:
            _replace(tree, c, _Sub({}).visit(_bound_body(lam, params, c.args)))
        holder.remove(fn)
        if not holder:
            holder.append(ast.Pass())
        return True
    return False


def _substitutable(value: ast.AST, params: list[str]) -> bool:
    """``value`` with its parameters' arguments put in its place means what the function meant: a comprehension
    run at once (a list, set or dict) binds none of the parameters' names; a lambda or a generator inside, which
    would read a name at its own run and not at the call (a loop's variable may have moved on), only when there
    is no parameter."""
    for n in _walk(value):
        if isinstance(n, (ast.Lambda, ast.GeneratorExp)) and params:
            return False
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp)) and set(params) & {
                t.id for g in n.generators for t in _walk(g.target) if isinstance(t, ast.Name)}:
            return False
    return True


def _inline_one(tree: ast.Module, keep: set[str]) -> bool:
    for holder, fn in _defs(tree):
        if fn.name in keep or not _inlinable(fn):
            continue
        uses = [n for n in _walk(tree) if isinstance(n, ast.Name) and n.id == fn.name]
        calls = [n for n in _walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == fn.name]
        if len(uses) != 1 or len(calls) != 1:
            continue
        call = calls[0]
        if not _same_meaning(tree, fn, call):
            continue
        for node in _walk(tree):
            for name in _BODIES:
                body = getattr(node, name, None)
                if not isinstance(body, list):
                    continue
                for at, stmt in enumerate(body):
                    if isinstance(stmt, (*_SCOPES, ast.ClassDef)) or not any(n is call for n in _walk(stmt)):
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


#: The most places a helper called from several statements is written out at (:func:`_inline_each`).
MOST_CALL_SITES = 4
#: How far writing helpers and lambdas out at several places may grow a cell: to GROWTH times its nodes as
#: written, plus GROWTH_SLACK.  Beyond it they stay helpers: a helper calling another four times, eight deep, would
#: otherwise be written out 4 ** 8 times (a page's worth of code, then minutes of the report's time).
GROWTH, GROWTH_SLACK = 4, 400


def _size(node: ast.AST) -> int:
    """How many nodes ``node`` holds."""
    return sum(1 for _ in _walk(node))


def _room(tree: ast.AST, added: int) -> bool:
    """Whether the cell may grow by ``added`` nodes and stay within its budget (:data:`GROWTH`)."""
    budget = getattr(tree, "_budget", None)
    return budget is None or _size(tree) + added <= budget


def _inline_each(tree: ast.Module, keep: set[str]) -> bool:
    """A helper called from two to :data:`MOST_CALL_SITES` statements, each of them the call itself (``x =
    helper(...)``, ``helper(...)``, ``return helper(...)``), and used nowhere else: its body is written out at each
    (as :func:`_inline_one` writes out a helper called once).  The same statements run in the same order on the same
    values; the helper's locals take names of their own at each place."""
    loads = _loads(tree)
    for holder, fn in _defs(tree):
        if fn.name in keep or not 2 <= loads.get(fn.name, 0) <= MOST_CALL_SITES or not _inlinable(fn):
            continue
        uses = [n for n in _walk(tree) if isinstance(n, ast.Name) and n.id == fn.name]
        calls = [n for n in _walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == fn.name]
        if len(uses) != len(calls):
            continue
        if any(n in calls for c in calls for x in [*c.args, *(k.value for k in c.keywords)] for n in _walk(x)):
            continue  # a call in another's arguments
        returns = isinstance(fn.body[-1], ast.Return) and fn.body[-1].value is not None
        sites = [(body, stmt) for node in _walk(tree) for name in _BODIES
                 if isinstance(body := getattr(node, name, None), list) for stmt in body
                 if isinstance(stmt, (ast.Assign, ast.Expr, ast.Return)) and any(stmt.value is c for c in calls)]
        if len(sites) != len(calls) or any(
                _bind(fn, stmt.value) is None or not _same_meaning(tree, fn, stmt.value)
                or (isinstance(stmt, ast.Assign) and not returns) for _, stmt in sites) or not _room(
                tree, len(sites) * sum(_size(s) for s in fn.body)):
            continue
        for place, (body, stmt) in enumerate(sites, 1):
            at = next(i for i, s in enumerate(body) if s is stmt)
            body[at:at + 1] = _inline_at(stmt, fn, stmt.value, f"_{place}")
        holder.remove(fn)
        if not holder:
            holder.append(ast.Pass())
        return True
    return False


def _enclosing(tree: ast.AST, target: ast.AST) -> ast.AST:
    """The innermost function (or the module) whose own code holds ``target``."""
    for scope in [tree, *[n for n in _walk(tree) if isinstance(n, _ALL_SCOPES)]][::-1]:
        if any(n is target for n in own_nodes(scope)):
            return scope
    return tree


def _same_meaning(tree: ast.AST, fn: ast.AST, call: ast.AST) -> bool:
    """Every name ``fn`` reads from outside means at ``call`` what it means in ``fn``: ``fn`` is defined in
    the scope that calls it, or the caller binds none of those names."""
    where, caller = _enclosing(tree, fn), _enclosing(tree, call)
    if where is caller:
        return True
    own = set(scope_locals(fn))
    free = {n.id for n in _walk(fn) if isinstance(n, ast.Name) and n.id not in own}
    return not free & set(scope_locals(caller))


class _Maps(ast.NodeTransformer):
    """``map(f, xs)`` (one iterable; ``f`` a name, an attribute of names or a lambda of one parameter) is the
    generator ``(f(x) for x in xs)``, a lambda's body written out; ``list(g)`` and ``set(g)`` of a generator
    are the comprehensions."""

    def __init__(self, tree: ast.AST) -> None:
        self.tree = tree

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id == "map" and len(node.args) == 2 and not node.keywords and not any(
                isinstance(a, ast.Starred) for a in node.args):
            fn, items = node.args
            if isinstance(fn, ast.Lambda):
                a = fn.args
                if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or len(a.args) != 1:
                    return node
                target, elt = a.args[0].arg, fn.body
            elif isinstance(fn, (ast.Name, ast.Attribute)) and all(
                    isinstance(n, (ast.Name, ast.Attribute, ast.Load)) for n in _walk(fn)):
                target = _fresh(self.tree, "item")
                elt = ast.Call(fn, [ast.Name(target, ast.Load())], [])
            else:
                return node
            comp = ast.comprehension(ast.Name(target, ast.Store()), items, [], 0)
            return ast.copy_location(ast.GeneratorExp(elt, [comp]), node)
        if isinstance(f, ast.Name) and f.id in ("list", "set") and len(node.args) == 1 and not node.keywords and (
                isinstance(node.args[0], ast.GeneratorExp)):
            g = node.args[0]
            made = ast.ListComp if f.id == "list" else ast.SetComp
            return ast.copy_location(made(g.elt, g.generators), node)
        return node


def _maps_as_generators(tree: ast.Module) -> None:
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("map", "list", "set")
               and n.args for n in _every_node(tree)):
        return
    shadowed = {"map", "list", "set"} & (_stores(tree).keys() | {a.arg for a in _walk(tree) if isinstance(a, ast.arg)})
    if not shadowed:
        _Maps(tree).visit(tree)
        ast.fix_missing_locations(tree)


def _inline_lambdas(tree: ast.Module) -> None:
    """``f = lambda a: e`` bound once and only ever called: each call is ``e`` with its arguments (names,
    constants or expressions that call nothing) in place of the parameters."""
    stores, loads = _stores(tree), _loads(tree)
    for _node, _field, body in list(_bodies(tree)):
        for stmt in list(body):
            name = _single_target(stmt)
            if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda) and stores.get(name) == 1):
                continue
            fn = stmt.value
            a = fn.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
                continue
            params = [p.arg for p in a.args]
            calls = [n for n in _walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                     and n.func.id == name]
            once = len(params) == 1 and _first_use(ast.Expr(fn.body), params[0]) is not None and sum(
                isinstance(n, ast.Name) and n.id == params[0] for n in _walk(fn.body)) == 1
            if len(calls) != loads.get(name, 0) or not calls or any(
                    len(c.args) != len(params) or c.keywords or not (once or all(_pure(x) for x in c.args))
                    or not _same_meaning(tree, fn, c) for c in calls) or not _room(tree, len(calls) * _size(fn.body)):
                continue
            for c in calls:
                _replace(tree, c, _Sub({}).visit(_bound_body(fn, params, c.args)))
            _drop(tree, lambda s, made=stmt: s is made)  # the lists were rebuilt: find it again


def _bound_body(fn: ast.Lambda, params: list[str], args: list[ast.AST]) -> ast.AST:
    given = dict(zip(params, args))

    class Put(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in given and isinstance(node.ctx, ast.Load):
                return ast.copy_location(copy.deepcopy(given[node.id]), node)
            return node

    return Put().visit(copy.deepcopy(fn.body))


# ---- 4. comprehensions as the loops they replace

_APPEND = {ast.ListComp: "append", ast.SetComp: "add"}


def _loop_of(comp: ast.AST, target: str) -> list[ast.stmt] | None:
    """The statements that build ``target`` as the loop ``comp`` stands for does, its loop variables renamed
    apart (a comprehension has a scope of its own); ``None`` for another node."""
    comp = _apart(comp)
    is_sum = (isinstance(comp, ast.Call) and isinstance(comp.func, ast.Name) and comp.func.id == "sum"
              and len(comp.args) == 1 and not comp.keywords and isinstance(comp.args[0], (ast.GeneratorExp, ast.ListComp)))
    if is_sum:
        gen = comp.args[0]
        start = ast.Constant(0)
        inner: ast.stmt = ast.Assign([ast.Name(target, ast.Store())],
                                     ast.BinOp(ast.Name(target, ast.Load()), ast.Add(), gen.elt))
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
        if any(isinstance(n, (ast.NamedExpr, ast.Await)) for n in _walk(g)):
            return None
        for cond in reversed(g.ifs):
            inner = ast.If(cond, [inner], [])
        inner = ast.For(g.target, g.iter, [inner], [])
    return [ast.Assign([ast.Name(target, ast.Store())], start), inner]


_APART = [0]


def _apart(comp: ast.AST) -> ast.AST:
    gen = comp.args[0] if isinstance(comp, ast.Call) and comp.args else comp
    if not isinstance(gen, _COMPS):
        return comp
    names = {n.id for g in gen.generators for n in _walk(g.target) if isinstance(n, ast.Name)}
    _APART[0] += 1
    mapping = {n: f"_c{_APART[0]}_{n}" for n in names}
    gen = copy.deepcopy(gen)
    first_iter = gen.generators[0].iter
    sub = _Sub(mapping)
    for g in gen.generators:
        g.target = sub.visit(g.target)
        g.ifs = [sub.visit(c) for c in g.ifs]
        if g.iter is not first_iter:
            g.iter = sub.visit(g.iter)
    for field in ("elt", "key", "value"):
        if hasattr(gen, field):
            setattr(gen, field, sub.visit(getattr(gen, field)))
    if isinstance(comp, ast.Call):
        return ast.Call(comp.func, [gen], comp.keywords)
    return gen


def _expand_comprehensions(tree: ast.AST) -> None:
    counter = [0]
    for node in list(_walk(tree)):
        if not isinstance(node, _SCOPES):
            continue
        for inner in list(_walk(node)):
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
                and not any(isinstance(n, ast.Name) and n.id == stmt.targets[0].id for n in _walk(value))
                and (loop := _loop_of(value, stmt.targets[0].id))):
            out += loop  # x = [... for ...]: the loop that builds x (one that reads x builds a new name, below)
            continue
        for comp in [n for n in _walk(value) if _loop_of(n, "_") is not None][:1]:
            if not _hoistable(stmt.value, comp):
                break
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




def _hoistable(value: ast.AST, comp: ast.AST) -> bool:
    """``comp`` may run before the rest of ``value``: nothing evaluated before it calls, and it runs whatever
    happens (not in a later operand of ``and``/``or``, a branch of ``if``/``else`` or a lambda)."""
    ancestors = []

    def path(node, trail):
        if node is comp:
            ancestors.extend(trail)
            return True
        return any(path(c, trail + [node]) for c in ast.iter_child_nodes(node))

    path(value, [])
    if any(isinstance(a, (ast.BoolOp, ast.IfExp, ast.Lambda, *_COMPS)) for a in ancestors):
        return False
    where = (comp.lineno, comp.col_offset)
    inside = {id(n) for n in _walk(comp)} | {id(a) for a in ancestors}
    return not any(isinstance(n, ast.Call) and id(n) not in inside and (n.lineno, n.col_offset) < where
                   for n in _walk(value))


# ---- 5. other spellings of one PyTorch call

#: Functions of ``torch`` (and of ``torch.nn.functional``, imported as ``F``) that are the same call as the
#: method of their first argument: ``torch.sigmoid(t)`` is ``t.sigmoid()``.
_AS_METHOD = {"sigmoid", "relu", "tanh", "exp", "log", "sqrt", "abs", "mean", "sum", "max", "min", "argmax",
              "argmin", "isfinite", "isnan", "isinf", "numel", "flatten", "softmax", "log_softmax",
              "count_nonzero", "clamp", "square", "pow", "neg", "round", "floor", "ceil", "squeeze", "unsqueeze",
              "all", "any", "norm", "std", "var", "prod", "cumsum", "t", "transpose", "reshape", "matmul",
              "eq", "ne", "gt", "lt", "ge", "le", "add", "sub", "mul", "div"}
_FUNCTIONAL = {"relu", "sigmoid", "tanh", "softmax", "log_softmax"}
#: Methods of one argument that are an operator: ``a.matmul(b)`` is ``a @ b``.  Never ``add``: a set's
#: ``add`` is no sum.
_AS_OPERATOR = {"matmul": ast.MatMult, "sub": ast.Sub, "mul": ast.Mult, "div": ast.Div, "pow": ast.Pow}
_AS_COMPARE = {"eq": ast.Eq, "ne": ast.NotEq, "gt": ast.Gt, "lt": ast.Lt, "ge": ast.GtE, "le": ast.LtE}
_AS_DTYPE = {"float32": "float", "float": "float", "float64": "double", "double": "double", "int64": "long",
             "long": "long", "bool": "bool", "int32": "int"}

#: The table: each spelling, an example of it and the one form it becomes (``tests/test_similarity.py``
#: evaluates both on tensors, entry by entry, and normalises the one into the other).
SPELLINGS: list[tuple[str, str, str]] = [
    ("torch.f(t, ...) is t.f(...)", "torch.sigmoid(a)", "a.sigmoid()"),
    ("torch.f(t, ...) is t.f(...)", "torch.sum(a == b)", "(a == b).sum()"),
    ("torch.f(t, ...) is t.f(...)", "torch.max(torch.abs(a))", "a.abs().max()"),
    ("torch.f(t, ...) is t.f(...)", "torch.numel(a)", "a.numel()"),
    ("torch.f(t, ...) is t.f(...)", "torch.mean(a, dim=0)", "a.mean(dim=0)"),
    ("F.f(t) is t.f()", "F.relu(a)", "a.relu()"),
    ("F.f(t) is t.f()", "torch.nn.functional.softmax(a, dim=0)", "a.softmax(dim=0)"),
    ("t.matmul(u) and torch.matmul(t, u) are t @ u", "torch.matmul(m, m)", "m @ m"),
    ("t.sub/mul/div(u) are t - u, t * u, t / u (add is a set's too: kept)", "a.div(2)", "a / 2"),
    ("t.sub/mul/div(u) are t - u, t * u, t / u (add is a set's too: kept)", "a.mul(b).sub(1)", "a * b - 1"),
    ("t.eq/ne/gt/lt/ge/le(u) are the comparisons", "a.gt(0)", "a > 0"),
    ("t.eq/ne/gt/lt/ge/le(u) are the comparisons", "torch.ne(a, b)", "a != b"),
    ("t.size() is t.shape, t.size(i) is t.shape[i]", "a.size(0)", "a.shape[0]"),
    ("t.size() is t.shape, t.size(i) is t.shape[i]", "a.size()", "a.shape"),
    ("t.to(torch.float32) is t.float() (and the other dtypes)", "a.to(torch.float32)", "a.float()"),
    ("t.to(torch.float32) is t.float() (and the other dtypes)", "a.to(dtype=torch.float64)", "a.double()"),
    ("t.detach().item() is t.item()", "a.sum().detach().item()", "a.sum().item()"),
    ("t.to('cpu') is t.cpu()", "a.to('cpu')", "a.cpu()"),
    ("t.pow(u) and torch.pow(t, u) are t ** u", "torch.pow(a, 2)", "a ** 2"),
    ("t.cpu().item() is t.item()", "a.sum().cpu().item()", "a.sum().item()"),
    ("model.train(False) is model.eval(); model.train(True) is model.train()", "m.train(False)", "m.eval()"),
    ("model.train(False) is model.eval(); model.train(True) is model.train()", "m.train(mode=True)", "m.train()"),
]


def _is_torch(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "torch"


def _is_functional(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "F"
    return (isinstance(node, ast.Attribute) and node.attr == "functional" and isinstance(node.value, ast.Attribute)
            and node.value.attr == "nn" and _is_torch(node.value.value))


class _Spellings(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if not isinstance(f, ast.Attribute):
            return node
        plain = node.args and not any(isinstance(a, ast.Starred) for a in node.args) and not any(
            k.arg == "out" for k in node.keywords)  # torch.f(t, out=u) writes u: no method takes out=
        # torch.f(t, ...) / F.f(t, ...) -> t.f(...)
        if plain and ((_is_torch(f.value) and f.attr in _AS_METHOD) or (_is_functional(f.value) and f.attr in _FUNCTIONAL)):
            method = ast.Call(ast.Attribute(node.args[0], f.attr, ast.Load()), node.args[1:], node.keywords)
            return self.visit_Call(ast.copy_location(method, node))
        one = len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred)
        if one and f.attr in _AS_OPERATOR:
            return ast.copy_location(ast.BinOp(f.value, _AS_OPERATOR[f.attr](), node.args[0]), node)
        if one and f.attr in _AS_COMPARE:
            return ast.copy_location(ast.Compare(f.value, [_AS_COMPARE[f.attr]()], [node.args[0]]), node)
        if f.attr == "size" and not node.keywords and len(node.args) <= 1:
            shape = ast.Attribute(f.value, "shape", ast.Load())
            return ast.copy_location(ast.Subscript(shape, node.args[0], ast.Load()) if node.args else shape, node)
        if f.attr == "to" and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant) and (
                node.args[0].value == "cpu"):
            return ast.copy_location(ast.Call(ast.Attribute(f.value, "cpu", ast.Load()), [], []), node)
        if f.attr == "to" and len(node.args) + len(node.keywords) == 1:
            dtype = node.args[0] if node.args else (node.keywords[0].value if node.keywords[0].arg == "dtype" else None)
            if isinstance(dtype, ast.Attribute) and _is_torch(dtype.value) and dtype.attr in _AS_DTYPE:
                return ast.copy_location(ast.Call(ast.Attribute(f.value, _AS_DTYPE[dtype.attr], ast.Load()), [], []), node)
        if f.attr == "item" and not node.args and not node.keywords and isinstance(f.value, ast.Call) and (
                isinstance(f.value.func, ast.Attribute) and f.value.func.attr in ("detach", "cpu")
                and not f.value.args and not f.value.keywords):
            return ast.copy_location(ast.Call(ast.Attribute(f.value.func.value, "item", ast.Load()), [], []), node)
        if f.attr == "train" and len(node.args) + len(node.keywords) == 1:
            mode = node.args[0] if node.args else (node.keywords[0].value if node.keywords[0].arg == "mode" else None)
            if isinstance(mode, ast.Constant) and mode.value in (True, False) and isinstance(mode.value, bool):
                name = "train" if mode.value else "eval"
                return ast.copy_location(ast.Call(ast.Attribute(f.value, name, ast.Load()), [], []), node)
        return node


def respell(tree: ast.AST) -> ast.AST:
    """``tree`` with every spelling of :data:`SPELLINGS` written in its one form."""
    return ast.fix_missing_locations(_Spellings().visit(tree))


# ---- 5b. other forms of one expression or statement

def _simple(node: ast.AST) -> bool:
    """A value whose evaluation does nothing but read: a name, a constant, an attribute or item of one."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    if isinstance(node, ast.Subscript):
        return _simple(node.value) and _simple(node.slice)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _simple(node.operand)
    return False


#: Methods whose first positional parameter is ``dim``: ``t.sum(dim=1)`` is ``t.sum(1)``.
_DIM_FIRST = {"sum", "mean", "argmax", "argmin", "softmax", "log_softmax", "max", "min", "cumsum", "unsqueeze",
              "squeeze", "prod", "all", "any", "std", "var", "logsumexp"}


#: PyTorch functions' leading parameters, in order: a call of one takes these keyword arguments by position.
_TORCH_SIGNATURES = {
    "torch.autograd.grad": ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph"],
    "torch.autograd.backward": ["tensors", "grad_tensors", "retain_graph", "create_graph"],
}


def _dotted_name(node: ast.AST) -> str:
    """``a.b.c`` for an attribute of names; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted_name(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _pure_value(node: ast.AST) -> bool:
    """A value no other argument's evaluation can change: a name, a constant, or a tuple or list of them (what
    they hold is read later, by the call)."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_pure_value(e) for e in node.elts)
    return isinstance(node, (ast.Name, ast.Constant))


def _format_as_fstring(node: ast.Call) -> ast.AST | None:
    """``"a {} b {:.2f}".format(x, y)`` as ``f"a {x} b {y:.2f}"`` when each argument is used once, in order
    (or every argument only reads), with no field name but an index and no nested field."""
    import string

    f = node.func
    if not (isinstance(f, ast.Attribute) and f.attr == "format" and isinstance(f.value, ast.Constant)
            and isinstance(f.value.value, str) and not node.keywords
            and not any(isinstance(a, ast.Starred) for a in node.args)):
        return None
    try:
        parts = list(string.Formatter().parse(f.value.value))
    except ValueError:
        return None
    values, auto, used = [], 0, []
    for literal, field, spec, conversion in parts:
        if literal:
            values.append(ast.Constant(literal))
        if field is None:
            continue
        if field == "":
            index, auto = auto, auto + 1
        elif field.isdigit():
            index = int(field)
        else:
            return None
        if index >= len(node.args) or (spec and "{" in spec) or conversion not in (None, "r", "s", "a"):
            return None
        used.append(index)
        spec_node = ast.JoinedStr([ast.Constant(spec)]) if spec else None
        values.append(ast.FormattedValue(copy.deepcopy(node.args[index]), ord(conversion) if conversion else -1,
                                         spec_node))
    if used != list(range(len(node.args))) and not all(_simple(a) for a in node.args):
        return None
    return ast.copy_location(ast.JoinedStr(values), node)


class _Forms(ast.NodeTransformer):
    """Forms that are one program: ``range(0, n)`` is ``range(n)``; ``dict(a=x)`` is ``{'a': x}``;
    ``str.format`` is an f-string; a call of a function whose parameters are known (the cell's own, or the
    assignment's stubs) takes its keyword arguments by position when they only read; ``t.to(device=d)`` is
    ``t.to(d)``, ``m.train(mode=c)`` is ``m.train(c)``, ``t.sum(dim=1)`` is ``t.sum(1)``; ``not a or not b``
    is ``not (a and b)`` (De Morgan; likewise ``and``); a conditional expression on ``not c`` (or ``!=``,
    ``is not``, ``not in``) is the one on ``c`` with its two values swapped."""

    def __init__(self, signatures: dict[str, list[str]], shadowed: set[str]) -> None:
        self.signatures = signatures
        self.shadowed = shadowed

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        fstring = _format_as_fstring(node)
        if fstring is not None:
            return fstring
        plain = not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords)
        if not plain:
            return node
        if isinstance(f, ast.Name) and f.id not in self.shadowed:
            if f.id == "range" and len(node.args) == 2 and not node.keywords and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value == 0 and type(node.args[0].value) is int:
                node.args = node.args[1:]
            elif f.id == "dict" and not node.args and node.keywords:
                return ast.copy_location(ast.Dict([ast.Constant(k.arg) for k in node.keywords],
                                                  [k.value for k in node.keywords]), node)
            elif f.id in self.signatures and node.keywords:
                self._by_position(node, self.signatures[f.id])
        elif isinstance(f, ast.Attribute) and _dotted_name(f) in _TORCH_SIGNATURES and node.keywords:
            self._by_position(node, _TORCH_SIGNATURES[_dotted_name(f)], _pure_value)
        elif isinstance(f, ast.Attribute) and len(node.keywords) == 1 and not node.args:
            kw = node.keywords[0]
            if (f.attr, kw.arg) in (("to", "device"), ("train", "mode")) or (f.attr in _DIM_FIRST and kw.arg == "dim"):
                if f.attr in ("sum", "mean") and isinstance(kw.value, ast.Constant) and kw.value.value is None:
                    node.keywords = []  # t.sum(dim=None) is t.sum()
                else:
                    node.args, node.keywords = [kw.value], []
        return node

    def visit_List(self, node: ast.AST) -> ast.AST:
        self.generic_visit(node)
        kind = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(node)]
        if not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)) and len(node.elts) == 1 and (
                isinstance(node.elts[0], ast.Starred)) and kind not in self.shadowed:
            return ast.copy_location(ast.Call(ast.Name(kind, ast.Load()), [node.elts[0].value], []), node)  # [*xs]
        return node

    visit_Tuple = visit_Set = visit_List

    @staticmethod
    def _by_position(node: ast.Call, params: list[str], pure=None) -> None:
        rest = params[len(node.args):]
        given = {k.arg: k.value for k in node.keywords}
        if len(given) != len(node.keywords) or set(given) != set(rest[:len(given)]):
            return  # a keyword the function does not take, or a gap: left as written
        if not all(_simple(v) for v in given.values()) and not (
                pure and sum(not pure(v) for v in [*node.args, *given.values()]) <= 1):
            return  # the order they are evaluated in could matter
        node.args = [*node.args, *(given[p] for p in rest[:len(given)])]
        node.keywords = []

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if all(isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not) for v in node.values):
            dual = ast.And() if isinstance(node.op, ast.Or) else ast.Or()
            inner = ast.BoolOp(dual, [v.operand for v in node.values])
            return ast.copy_location(ast.UnaryOp(ast.Not(), ast.copy_location(inner, node)), node)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.UnaryOp) and isinstance(
                node.operand.op, ast.Not) and isinstance(node.operand.operand, ast.UnaryOp) and isinstance(
                node.operand.operand.op, ast.Not):
            return node.operand.operand  # not not not c is not c
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            node.test = test.operand
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
            node.test = ast.copy_location(ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators), test)
        else:
            return node
        node.body, node.orelse = node.orelse, node.body
        return node


def _tests_of(tree: ast.AST):
    for node in _walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            yield node, "test"
        elif isinstance(node, ast.Assert):
            yield node, "test"
        elif isinstance(node, ast.comprehension):
            for i in range(len(node.ifs)):
                yield node.ifs, i


def _truth(test: ast.AST) -> ast.AST:
    """``test`` where only its truth counts: ``x or False`` is ``x``, ``x and True`` is ``x``, ``not not x`` is
    ``x``."""
    if isinstance(test, ast.BoolOp):
        drop = False if isinstance(test.op, ast.Or) else True
        values = [_truth(v) for v in test.values]
        kept = [v for v in values if not (isinstance(v, ast.Constant) and v.value is drop)]
        if kept and len(kept) < len(values):
            return kept[0] if len(kept) == 1 else ast.copy_location(ast.BoolOp(test.op, kept), test)
        test.values = values
        return test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(test.operand)
        if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not):
            return inner.operand
        test.operand = inner
    return test


def rewrite_forms(tree: ast.Module, signatures: dict[str, list[str]] | None = None) -> None:
    """Step 5b in place: :class:`_Forms`, and every test (``if``, ``while``, a conditional expression) read
    for its truth only."""
    known = dict(signatures or {})
    for fn in _functions(tree):
        a = fn.args
        if not (a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs):
            known[fn.name] = [p.arg for p in a.args]
    stored = {n.id for n in _walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    stored |= {n.arg for n in _walk(tree) if isinstance(n, ast.arg)}
    stored |= {name for n in _walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for name in import_names(n)}
    stored |= {n.name for n in _walk(tree) if isinstance(n, ast.ExceptHandler) and n.name}
    redefined = [n.name for n in _walk(tree) if isinstance(n, (*_SCOPES, ast.ClassDef))]
    shadowed = stored | {name for name in redefined if redefined.count(name) > 1}
    for holder, at in list(_tests_of(tree)):
        if isinstance(at, int):
            holder[at] = _truth(holder[at])
        else:
            setattr(holder, at, _truth(getattr(holder, at)))
    _Forms({k: v for k, v in known.items() if k not in shadowed}, shadowed).visit(tree)
    ast.fix_missing_locations(tree)


class _IfAsExpression(ast.NodeTransformer):
    """``if c: x = a else: x = b`` (one name, or one item ``d[k]`` or attribute ``o.x`` of names, bound in both
    branches) is ``x = a if c else b``: the test, then the value, then the target, as before."""

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        if len(node.body) != 1 or len(node.orelse) != 1:
            return node
        first, second = node.body[0], node.orelse[0]
        if not (isinstance(first, ast.Assign) and isinstance(second, ast.Assign) and len(first.targets) == 1
                and len(second.targets) == 1 and _plain_target(first.targets[0])
                and ast.dump(first.targets[0]) == ast.dump(second.targets[0])):
            return node
        value = ast.IfExp(node.test, first.value, second.value)
        return ast.copy_location(ast.Assign([first.targets[0]], ast.copy_location(value, node)), node)


def _plain_target(target: ast.AST) -> bool:
    """A name, or an item or attribute whose parts are names and constants (evaluating it calls nothing)."""
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, ast.Subscript):
        return all(isinstance(n, (ast.Name, ast.Constant, ast.Load, ast.Store, ast.Subscript)) for n in _walk(target))
    if isinstance(target, ast.Attribute):
        return isinstance(target.value, ast.Name)
    return False


# ---- 6. dead code

def _constant_test(test: ast.AST):
    """``True``/``False`` when ``test`` is a constant's truth (through ``not``); ``None`` otherwise."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _constant_test(test.operand)
        return None if inner is None else not inner
    return None


def _propagate_constants(fn: ast.AST) -> bool:
    """A local bound once, at the function's top level, to a constant, and never rebound: its reads after that
    statement are the constant, and branches on it are decided."""
    stores = _stores(fn)
    args = {a.arg for a in _walk(fn) if isinstance(a, ast.arg)}
    changed = False
    for at, stmt in enumerate(fn.body):
        if not (stmt.targets[0].id not in args if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) else False):
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Constant) and stores.get(stmt.targets[0].id) == 1):
            continue
        name, value = stmt.targets[0].id, stmt.value.value
        for later in fn.body[at + 1:]:  # a nested scope defined later reads it later too: never rebound
            for node in _walk(later):
                for field, child in ast.iter_fields(node):
                    if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load):
                        setattr(node, field, ast.copy_location(ast.Constant(value), child))
                        changed = True
                    elif isinstance(child, list):
                        for i, item in enumerate(child):
                            if isinstance(item, ast.Name) and item.id == name and isinstance(item.ctx, ast.Load):
                                child[i] = ast.copy_location(ast.Constant(value), item)
                                changed = True
    return changed


def _in_loop_body(loop: ast.AST):
    """Every statement list of ``loop``'s own body, not those of a loop or function nested in it."""
    lists = [loop.body]
    for body in lists:
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.With)):
                lists += [b for b in (stmt.body, getattr(stmt, "orelse", [])) if b]
    return lists


def _returns_from_loops(fn: ast.AST) -> bool:
    """``r = c`` (a constant), a loop whose every store to ``r`` is ``r = e`` followed by ``break``, then
    ``return r``: the loop returns ``e`` where it stored it, and ``return c`` follows it (``r`` read nowhere
    else)."""
    changed = False
    if not any(isinstance(n, ast.Break) for n in _every_node(fn)):
        return False
    loads, stores = _loads(fn), _stores(fn)
    for _node, _field, body in list(_bodies(fn)):
        for at in range(len(body) - 1):
            loop, ret = body[at], body[at + 1]
            if not (isinstance(loop, (ast.For, ast.While)) and not loop.orelse and isinstance(ret, ast.Return)
                    and isinstance(ret.value, ast.Name)):
                continue
            r = ret.value.id
            first = [i for i, s in enumerate(body[:at]) if _single_target(s) == r and isinstance(s, ast.Assign)]
            if loads.get(r) != 1 or len(first) != 1 or not isinstance(body[first[0]].value, ast.Constant):
                continue
            sites = [(lst, i) for lst in _in_loop_body(loop) for i, s in enumerate(lst)
                     if _single_target(s) == r and isinstance(s, ast.Assign)]
            if not sites or stores.get(r) != 1 + len(sites) or not all(
                    i + 1 < len(lst) and isinstance(lst[i + 1], ast.Break) for lst, i in sites):
                continue
            for lst, i in sorted(sites, key=lambda site: -site[1]):
                lst[i:i + 2] = [ast.copy_location(ast.Return(lst[i].value), lst[i])]
            ret.value = ast.copy_location(copy.deepcopy(body[first[0]].value), ret.value)
            del body[first[0]]
            return True  # the lists changed under the loop: one at a time
    return changed


def _decide_branches(tree: ast.AST) -> bool:
    changed = False
    for node, field, body in list(_bodies(tree)):
        out = []
        for stmt in body:
            truth = _constant_test(stmt.test) if isinstance(stmt, ast.If) else None
            if truth is None:
                out.append(stmt)
                continue
            out += stmt.body if truth else stmt.orelse
            changed = True
        if changed:
            setattr(node, field, out or [ast.Pass()])
    return changed


def _drop_dead_stores(fn: ast.AST) -> bool:
    """Stores to a local that nothing reads: dropped when what they store calls nothing, written as the bare
    call otherwise.  A local read only to store itself again (``n = n + 1``) counts as unread."""
    loads = _loads(fn)
    declared = {n for node in _walk(fn) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
    args = {a.arg for a in _walk(fn) if isinstance(a, ast.arg)}
    self_reads: dict[str, int] = {}
    for node in _walk(fn):
        target = _single_target(node)
        if target and _pure(node.value):
            self_reads[target] = self_reads.get(target, 0) + sum(
                isinstance(n, ast.Name) and n.id == target and isinstance(n.ctx, ast.Load) for n in _walk(node.value))
    dead = {name for name in _stores(fn) if name not in declared and name not in args
            and loads.get(name, 0) == self_reads.get(name, 0)}
    if not dead:
        return False
    changed = False
    for node, field, body in list(_bodies(fn)):
        out = []
        for stmt in body:
            if (isinstance(stmt, ast.For) and not stmt.orelse and all(isinstance(b, ast.Pass) for b in stmt.body)
                    and _pure(stmt.iter) and {n.id for n in _walk(stmt.target) if isinstance(n, ast.Name)} <= dead):
                changed = True
                continue  # a loop that does nothing over what changes nothing (a sum no one reads)
            target = _single_target(stmt)
            if target in dead:
                changed = True
                if not _pure(stmt.value):
                    out.append(ast.copy_location(ast.Expr(stmt.value), stmt))
                continue
            out.append(stmt)
        setattr(node, field, out or [ast.Pass()])
    return changed


def _single_target(stmt: ast.AST) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id
    return None


def drop_dead_code(tree: ast.Module) -> None:
    for fn in _functions(tree):
        while _returns_from_loops(fn):
            pass
        for _ in range(6):
            if not (_propagate_constants(fn) | _decide_branches(fn) | _drop_dead_stores(fn)):
                break
    _decide_branches(tree)


# ---- 7. loops in one form

def _is_increment(stmt: ast.stmt, name: str) -> bool:
    if isinstance(stmt, ast.AugAssign):
        return (isinstance(stmt.target, ast.Name) and stmt.target.id == name and isinstance(stmt.op, ast.Add)
                and isinstance(stmt.value, ast.Constant) and stmt.value.value == 1)
    if _single_target(stmt) == name and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.BinOp):
        v = stmt.value
        return (isinstance(v.op, ast.Add) and isinstance(v.left, ast.Name) and v.left.id == name
                and isinstance(v.right, ast.Constant) and v.right.value == 1)
    return False


def _loop_jumps(body: list[ast.stmt], kind) -> bool:
    """A ``kind`` (break or continue) in ``body`` that belongs to the loop whose body it is."""
    def visit(node):
        if isinstance(node, kind):
            return True
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor, *_ALL_SCOPES)):
            return any(visit(s) for s in node.orelse) if isinstance(node, (ast.For, ast.While)) else False
        return any(visit(c) for c in ast.iter_child_nodes(node))
    return any(visit(s) for s in body)


def _counter_test(test: ast.AST) -> tuple[str, ast.AST, bool] | None:
    """``(i, n, inclusive)`` for ``i < n`` (``n > i``, ``not i >= n``) and ``i <= n`` (``n >= i``,
    ``not i > n``: the same for an int counter); ``None`` otherwise."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    if negated:
        test = test.operand
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = type(test.ops[0]), test.left, test.comparators[0]
    if negated:
        op = {ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.Lt: ast.GtE, ast.LtE: ast.Gt}.get(op)
    if op in (ast.Gt, ast.GtE):
        op, left, right = (ast.Lt if op is ast.Gt else ast.LtE), right, left
    if op not in (ast.Lt, ast.LtE) or not isinstance(left, ast.Name):
        return None
    return left.id, right, op is ast.LtE


def _breaks_at_top(fn: ast.AST) -> None:
    """``while True: if c: break`` then the rest is ``while not c:`` the rest (no ``else``; in place)."""
    for loop in [n for n in _walk(fn) if isinstance(n, ast.While)]:
        first = loop.body[0]
        if (isinstance(loop.test, ast.Constant) and loop.test.value is True and not loop.orelse and len(loop.body) > 1
                and isinstance(first, ast.If) and not first.orelse and [type(s) for s in first.body] == [ast.Break]):
            loop.test = ast.copy_location(ast.UnaryOp(ast.Not(), first.test), first.test)
            loop.body = loop.body[1:]


def _whiles_as_fors(fn: ast.AST, loose: bool = False) -> bool:
    """``i = 0; while i < n: ...; i += 1`` as ``for i in range(n): ...`` (``i = 1`` and ``i <= n``:
    ``range(1, n + 1)``, :func:`_counter_test`): when the body changes neither ``i``
    (but by its last statement) nor what ``n`` reads, no ``continue`` skips the step, there is no ``else``, and
    nothing reads ``i`` outside the loop.  ``loose`` (for the fingerprinted text only) lets ``n`` be anything the
    body may change (``while i < flat.numel()`` over a loop that writes ``flat[i]``)."""
    for _node, _field, body in list(_bodies(fn)):
        for at, loop in enumerate(body):
            counted = _counter_test(loop.test) if isinstance(loop, ast.While) and not loop.orelse and at > 0 else None
            if counted is None:
                continue
            name, bound, inclusive = counted
            init = body[at - 1]
            if not (_single_target(init) == name and isinstance(init, ast.Assign) and isinstance(init.value, ast.Constant)
                    and type(init.value.value) is int):
                continue
            if not loop.body or not _is_increment(loop.body[-1], name) or _loop_jumps(loop.body, ast.Continue):
                continue
            inner = loop.body[:-1]
            written = set().union(*(_names(s)[1] for s in inner)) if inner else set()
            rebound = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
                          for s in inner for n in _walk(s))  # an int counter changes only by rebinding
            if rebound or not loose and (
                    not _pure(bound) or written & {n.id for n in _walk(bound) if isinstance(n, ast.Name)}):
                continue
            inside = sum(isinstance(n, ast.Name) and n.id == name for s in loop.body for n in _walk(s))
            inside += sum(isinstance(n, ast.Name) and n.id == name for n in _walk(loop.test))
            everywhere = sum(isinstance(n, ast.Name) and n.id == name for n in _walk(fn))
            if everywhere != inside + 1:  # the name is used outside the loop (its value after it differs)
                continue
            if inclusive:
                bound = ast.BinOp(bound, ast.Add(), ast.Constant(1))
            start = [ast.Constant(init.value.value)] if init.value.value != 0 else []
            new = ast.For(ast.Name(name, ast.Store()), ast.Call(ast.Name("range", ast.Load()), [*start, bound], []),
                          inner or [ast.Pass()], [])
            body[at - 1:at + 1] = [ast.copy_location(new, loop)]
            ast.fix_missing_locations(new)
            return True  # the lists changed under the walk: start again
    return False


def _indices_as_elements(fn: ast.AST) -> bool:
    """``for i in range(len(xs)): x = xs[i]; ...`` as ``for x in xs: ...`` when ``i`` serves nothing else and
    the body changes neither ``xs`` nor what it holds."""
    for node in _walk(fn):
        if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and not node.orelse
                and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                and node.iter.func.id == "range" and len(node.iter.args) == 1 and not node.iter.keywords):
            continue
        size = node.iter.args[0]
        if not (isinstance(size, ast.Call) and isinstance(size.func, ast.Name) and size.func.id == "len"
                and len(size.args) == 1 and isinstance(size.args[0], ast.Name)):
            continue
        seq, i = size.args[0].id, node.target.id
        if _index_reads_only(node, fn, seq, i):
            return True
        first = node.body[0]
        if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.value, ast.Subscript)
                and isinstance(first.value.value, ast.Name) and first.value.value.id == seq
                and isinstance(first.value.slice, ast.Name) and first.value.slice.id == i):
            continue
        uses = sum(isinstance(n, ast.Name) and n.id == i for n in _walk(fn))
        written = set().union(*(_names(s)[1] for s in node.body[1:])) if node.body[1:] else set()
        if uses != 2 or seq in written or (_names(first)[1] - {n.id for n in _walk(first.targets[0])
                                                               if isinstance(n, ast.Name)}):
            continue
        node.target = first.targets[0]
        node.iter = ast.Name(seq, ast.Load())
        node.body = node.body[1:] or [ast.Pass()]
        ast.fix_missing_locations(node)
        return True
    return False


def _index_reads_only(loop: ast.For, fn: ast.AST, seq: str, i: str) -> bool:
    """``for i in range(len(xs))`` whose body reads ``xs[i]`` (and changes neither ``xs`` nor ``i``): rewritten in
    place as ``for x in xs`` with ``x`` for each ``xs[i]``, or ``for i, x in enumerate(xs)`` where ``i`` serves
    more; ``True`` when it was."""
    reads = [n for s in loop.body for n in _walk(s) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)
             and isinstance(n.value, ast.Name) and n.value.id == seq and isinstance(n.slice, ast.Name) and n.slice.id == i]
    uses = sum(isinstance(n, ast.Name) and n.id == i for n in _walk(fn))
    written = set().union(*(_names(s)[1] for s in loop.body))
    if not reads or seq in written or (uses != len(reads) + 1 and i in written):
        return False
    element = _fresh(fn, f"_{seq}_item")
    for r in reads:
        _replace(loop, r, ast.copy_location(ast.Name(element, ast.Load()), r))
    if uses == len(reads) + 1:
        loop.target = ast.copy_location(ast.Name(element, ast.Store()), loop.target)
        loop.iter = ast.copy_location(ast.Name(seq, ast.Load()), loop.iter)
    else:  # i serves more than xs[i]: for i, x in enumerate(xs), i the same index as before
        loop.target = ast.copy_location(ast.Tuple([ast.Name(i, ast.Store()), ast.Name(element, ast.Store())],
                                                  ast.Store()), loop.target)
        loop.iter = ast.copy_location(ast.Call(ast.Name("enumerate", ast.Load()), [ast.Name(seq, ast.Load())], []),
                                      loop.iter)
    ast.fix_missing_locations(loop)
    return True


def _name_uses(fn: ast.AST, name: str) -> int:
    return sum(isinstance(n, ast.Name) and n.id == name for n in _walk(fn))


def _headers_unpacked(fn: ast.AST) -> bool:
    """``for b in xs: x, y = b; ...`` as ``for x, y in xs: ...``, and ``for i, x in enumerate(xs)`` as
    ``for x in xs``, when ``b`` (``i``) serves nothing else."""
    for node in _walk(fn):
        if not isinstance(node, ast.For) or node.orelse:
            continue
        target, it = node.target, node.iter
        if isinstance(target, ast.Name) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Assign) and len(first.targets) == 1
                    and isinstance(first.targets[0], (ast.Tuple, ast.List))
                    and all(isinstance(e, ast.Name) for e in first.targets[0].elts)
                    and isinstance(first.value, ast.Name) and first.value.id == target.id
                    and _name_uses(fn, target.id) == 2):
                node.target = ast.copy_location(ast.Tuple(first.targets[0].elts, ast.Store()), target)
                node.body = node.body[1:] or [ast.Pass()]
                ast.fix_missing_locations(node)
                return True
        if (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args
                and not it.keywords and it.func.attr in ("named_parameters", "items")
                and _name_uses(fn, target.elts[0].id) == 1):
            # for name, p in m.named_parameters() with name unused is for p in m.parameters(); items() values()
            it.func.attr = "parameters" if it.func.attr == "named_parameters" else "values"
            node.target = target.elts[1]
            return True
        if (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate"
                and len(it.args) == 1 and not it.keywords and not isinstance(it.args[0], ast.Starred)
                and _name_uses(fn, "enumerate") == 1 and _name_uses(fn, target.elts[0].id) == 1):
            node.target = target.elts[1]
            node.iter = it.args[0]
            return True
    return False


def unify_loops(tree: ast.Module) -> None:
    for fn in _functions(tree):
        _breaks_at_top(fn)
        for _ in range(12):
            if not (_whiles_as_fors(fn) or _indices_as_elements(fn) or _headers_unpacked(fn)):
                break


# ---- 8. branches in one orientation

_NEGATED = {ast.NotEq: ast.Eq, ast.IsNot: ast.Is, ast.NotIn: ast.In}


def _ends_in_jump(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _JUMPS)


def _orient(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for at, stmt in enumerate(body):
        if isinstance(stmt, ast.If):
            if not stmt.orelse and _ends_in_jump(stmt.body) and body[at + 1:]:
                stmt.orelse = body[at + 1:]  # a guard: what follows runs only when it does not jump
                out.append(_orient_if(stmt))
                return out
            out.append(_orient_if(stmt))
        else:
            for name in _BODIES:
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(stmt, name, _orient(inner))
            for handler in getattr(stmt, "handlers", ()):
                handler.body = _orient(handler.body)
            out.append(stmt)
    return out


def _orient_if(stmt: ast.If) -> ast.If:
    stmt.body = _orient(stmt.body)
    stmt.orelse = _orient(stmt.orelse) if stmt.orelse else []
    while isinstance(stmt.test, ast.UnaryOp) and isinstance(stmt.test.op, ast.Not) and isinstance(
            stmt.test.operand, ast.UnaryOp) and isinstance(stmt.test.operand.op, ast.Not):
        stmt.test = stmt.test.operand.operand  # if not not c: is if c:
    if all(isinstance(s, ast.Pass) for s in stmt.orelse):
        stmt.orelse = []
    if all(isinstance(s, ast.Pass) for s in stmt.body) and stmt.orelse:
        stmt.test = ast.copy_location(ast.UnaryOp(ast.Not(), stmt.test), stmt.test)
        stmt.body, stmt.orelse = stmt.orelse, []
        return _orient_if(stmt)
    if not stmt.orelse:
        return stmt
    test = stmt.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        stmt.test = test.operand
    elif _negative(test):
        stmt.test = _positive(test)
    elif isinstance(test, ast.BoolOp) and all(map(_negative, test.values)):
        # if a != b or not c: A else: B  is  if a == b and c: B else: A
        dual = ast.And() if isinstance(test.op, ast.Or) else ast.Or()
        stmt.test = ast.copy_location(ast.BoolOp(dual, [_positive(v) for v in test.values]), test)
    else:
        return stmt
    stmt.body, stmt.orelse = stmt.orelse, stmt.body
    return stmt


def _negative(test: ast.AST) -> bool:
    """``not c``, ``a != b``, ``a is not b`` or ``a not in b``."""
    return (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)) or (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED)


def _positive(test: ast.AST) -> ast.AST:
    """The test a :func:`_negative` one negates."""
    if isinstance(test, ast.UnaryOp):
        return test.operand
    return ast.copy_location(ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators), test)


def _mode_call(body: list[ast.stmt]) -> tuple[str, ast.AST] | None:
    """``("train" | "eval", model)`` when ``body`` is the one call ``model.train()`` or ``model.eval()``."""
    if len(body) != 1 or not isinstance(body[0], ast.Expr) or not isinstance(body[0].value, ast.Call):
        return None
    call = body[0].value
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr in ("train", "eval") and not call.args and not call.keywords:
        return f.attr, f.value
    return None


class _ModeBranches(ast.NodeTransformer):
    """``if c: m.train() else: m.eval()`` is ``m.train(bool(c))`` (``m.eval()`` is ``m.train(False)``); the
    other way round, ``m.train(not c)``."""

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        first, second = _mode_call(node.body), _mode_call(node.orelse)
        if not first or not second or first[0] == second[0] or ast.dump(first[1]) != ast.dump(second[1]):
            return node
        if first[0] == "train":
            mode = ast.Call(ast.Name("bool", ast.Load()), [node.test], [])
        else:
            mode = ast.UnaryOp(ast.Not(), node.test)
        call = ast.Call(ast.Attribute(first[1], "train", ast.Load()), [mode], [])
        return ast.copy_location(ast.Expr(call), node)


def _last_continue_dropped(tree: ast.AST) -> bool:
    """A branch that is only ``continue``, last in a loop's body, does what an empty one does (in place)."""
    changed = False
    for loop in [n for n in _walk(tree) if isinstance(n, (ast.For, ast.While))]:
        last = loop.body[-1]
        while isinstance(last, ast.If):
            for name in ("body", "orelse"):
                if [type(s) for s in getattr(last, name)] == [ast.Continue]:
                    setattr(last, name, [ast.Pass()] if name == "body" else [])
                    changed = True
            if not last.orelse:
                break
            last = last.orelse[-1] if len(last.orelse) == 1 else None
    return changed


def _loops_as_any(fn: ast.AST) -> None:
    """``for x in xs: if c: return True`` then ``return False`` is ``return any(c for x in xs)``; with
    ``False``/``True`` the other way round, ``return all(not c for x in xs)`` (in place)."""
    for _node, _field, body in list(_bodies(fn)):
        for at in range(len(body) - 1):
            loop, after = body[at], body[at + 1]
            if not (isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1 and isinstance(
                    loop.body[0], ast.If) and not loop.body[0].orelse and len(loop.body[0].body) == 1):
                continue
            inner = loop.body[0].body[0]
            early, late = (s.value.value if isinstance(s, ast.Return) and isinstance(s.value, ast.Constant) else None
                           for s in (inner, after))
            if {early, late} != {True, False} or type(early) is not bool or type(late) is not bool:
                continue
            test = loop.body[0].test
            elt = test if early else ast.UnaryOp(ast.Not(), test)
            call = ast.Call(ast.Name("any" if early else "all", ast.Load()),
                            [ast.GeneratorExp(elt, [ast.comprehension(loop.target, loop.iter, [], 0)])], [])
            body[at:at + 2] = [ast.copy_location(ast.Return(call), loop)]
            ast.fix_missing_locations(fn)
            return _loops_as_any(fn)


def _flag_loops_as_any(fn: ast.AST) -> None:
    """``f = False`` then ``for x in xs: if c: f = True; break`` is ``f = any(c for x in xs)``; with ``True`` and
    ``False`` the other way round, ``f = all(not c for x in xs)`` (in place) when the loop's names are read nowhere
    else in ``fn`` (the loop leaves them bound, a generator does not)."""
    loads = _loads(fn)
    for _node, _field, body in list(_bodies(fn)):
        for at in range(len(body) - 1):
            init, loop = body[at], body[at + 1]
            if not (isinstance(init, ast.Assign) and len(init.targets) == 1 and isinstance(init.targets[0], ast.Name)
                    and isinstance(init.value, ast.Constant) and type(init.value.value) is bool
                    and isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1
                    and isinstance(loop.body[0], ast.If) and not loop.body[0].orelse and len(loop.body[0].body) == 2):
                continue
            flag, start = init.targets[0].id, init.value.value
            store, jump = loop.body[0].body
            test = loop.body[0].test
            names = list(_walk(loop.target))
            if not (isinstance(store, ast.Assign) and len(store.targets) == 1 and isinstance(store.targets[0], ast.Name)
                    and store.targets[0].id == flag and isinstance(store.value, ast.Constant)
                    and store.value.value is (not start) and isinstance(jump, ast.Break)
                    and all(isinstance(n, (ast.Name, ast.Tuple, ast.Store)) for n in names)
                    and not any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)) or (
                        isinstance(n, ast.Name) and n.id == flag) for n in _walk(test))):
                continue
            inside = _loads(loop)
            if any(loads.get(n.id, 0) != inside.get(n.id, 0) for n in names if isinstance(n, ast.Name)):
                continue  # a loop name read after the loop: it holds what the loop left there
            elt = test if not start else ast.UnaryOp(ast.Not(), test)
            call = ast.Call(ast.Name("all" if start else "any", ast.Load()),
                            [ast.GeneratorExp(elt, [ast.comprehension(loop.target, loop.iter, [], 0)])], [])
            body[at:at + 2] = [ast.copy_location(ast.Assign([ast.Name(flag, ast.Store())], call), init)]
            ast.fix_missing_locations(fn)
            return _flag_loops_as_any(fn)


class _ReturnsAsExpression(ast.NodeTransformer):
    """``if c: return a else: return b`` is ``return a if c else b``."""

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        if len(node.body) == 1 and len(node.orelse) == 1 and all(
                isinstance(s, ast.Return) and s.value is not None for s in (node.body[0], node.orelse[0])):
            value = ast.copy_location(ast.IfExp(node.test, node.body[0].value, node.orelse[0].value), node)
            return ast.copy_location(ast.Return(value), node)
        return node


def orient_branches(tree: ast.Module) -> None:
    functions = _functions(tree)
    builtin_any = not {"any", "all"} & _stores(tree).keys()
    for fn in functions:
        if builtin_any:
            _loops_as_any(fn)
            _flag_loops_as_any(fn)
        fn.body = _orient(fn.body)
    if _last_continue_dropped(tree):  # a guard that continues took what follows as its else: it may end the loop now
        for fn in functions:
            fn.body = _orient(fn.body)
    _ModeBranches().visit(tree)
    _IfAsExpression().visit(tree)
    _ReturnsAsExpression().visit(tree)
    ast.fix_missing_locations(tree)


# ---- 9. temporaries written where they are read

def _first_use(stmt: ast.stmt, name: str):
    """The one read of ``name`` in ``stmt``'s own evaluation (a header's, for a block) when nothing evaluated
    before it calls, and it is not read conditionally or in a nested scope; ``None`` otherwise."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)):
        root = stmt.value
    elif isinstance(stmt, ast.If):
        root = stmt.test
    elif isinstance(stmt, ast.For):
        root = stmt.iter
    else:
        return None
    if root is None:
        return None
    found = []

    def visit(node, safe):  # evaluation order, as Python evaluates
        if found:
            return
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            found.append(node if safe[0] else None)
            return
        if isinstance(node, (*_ALL_SCOPES, ast.IfExp, ast.BoolOp)):
            if isinstance(node, ast.BoolOp):
                visit(node.values[0], safe)
                if not found and any(isinstance(n, ast.Name) and n.id == name for v in node.values[1:] for n in _walk(v)):
                    found.append(None)
            elif isinstance(node, ast.IfExp):
                visit(node.test, safe)
                if not found and any(isinstance(n, ast.Name) and n.id == name for n in _walk(node)):
                    found.append(None)
            elif any(isinstance(n, ast.Name) and n.id == name for n in _walk(node)):
                found.append(None)
            return
        if isinstance(node, ast.Call):
            visit(node.func, safe)
            for a in [*node.args, *(k.value for k in node.keywords)]:
                visit(a, safe)
            safe[0] = False
            return
        if isinstance(node, ast.Compare):
            visit(node.left, safe)
            visit(node.comparators[0], safe)
            if not found and any(isinstance(n, ast.Name) and n.id == name for c in node.comparators[1:] for n in _walk(c)):
                found.append(None)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, safe)

    if isinstance(stmt, ast.AugAssign):
        visit(stmt.target, [True])  # the target is read first
    visit(root, [True])
    return found[0] if found else None


def _fold_temporaries(fn: ast.AST) -> bool:
    loads, stores = _loads(fn), _stores(fn)
    args = {a.arg for a in _walk(fn) if isinstance(a, ast.arg)}
    alias = _Aliases(fn)
    for _node, _field, body in list(_bodies(fn)):
        for at in range(len(body) - 1):
            name = _single_target(body[at])
            if (name is None or not isinstance(body[at], ast.Assign) or name in args or stores.get(name) != 1
                    or loads.get(name) != 1):
                continue
            j = next((j for j in range(at + 1, len(body))
                      if any(isinstance(n, ast.Name) and n.id == name for n in _walk(body[j]))), None)
            if j is None or not all(_commute(body[at], body[k], alias) for k in range(at + 1, j)):
                continue  # read in another block, or something between must see the assignment done
            use = _first_use(body[j], name)
            if use is None:
                continue
            value = body[at].value
            if isinstance(value, ast.Lambda):
                continue  # a function kept as a name reads better than one called where it is made
            _replace(body[j], use, value)
            del body[at]
            return True
    return False


def _commute(a: ast.stmt, b: ast.stmt, alias: _Aliases) -> bool:
    """``a`` then ``b`` does what ``b`` then ``a`` does: neither writes what the other reads or writes (through
    any alias), they do not both act, and neither jumps."""
    if _escapes(a) or _escapes(b):
        return False
    (ra, wa), (rb, wb) = _names(a), _names(b)
    ra, wa, rb, wb = alias.of(ra), alias.of(wa), alias.of(rb), alias.of(wb)
    acts_a, acts_b = _acts(a), _acts(b)
    return not (wa & (rb | wb) or wb & ra or (acts_a and (acts_b or _reads_state(b))) or (acts_b and _reads_state(a)))


#: Modules whose attributes are functions and constants, not state a call may change.
_MODULES = {"torch", "nn", "F", "math", "copy", "np", "numpy", "random", "time", "functools", "itertools"}


def _reads_state(stmt: ast.stmt) -> bool:
    """``stmt`` reads what an object holds (an attribute, a method's result) beyond its shape, dtype or device:
    a call made for its effect may change it unseen (``optimizer.step()`` changes the model's parameters), so
    the two keep their order."""
    for n in _walk(stmt):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr not in _VALUES:
            root = _root(n)
            if root is not None and root not in _MODULES:
                return True
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
            return True
    return False


def _copy_pure_temporaries(fn: ast.AST) -> bool:
    """A local bound once to an expression that calls nothing but what changes nothing (``n = len(xb)``) and
    read only by the statements after it in its block, none of which changes what the expression reads: each
    read is the expression itself."""
    loads, stores = _loads(fn), _stores(fn)
    args = {a.arg for a in _walk(fn) if isinstance(a, ast.arg)}
    for _node, _field, body in list(_bodies(fn)):
        for at, stmt in enumerate(body):
            name = _single_target(stmt)
            if (name is None or not isinstance(stmt, ast.Assign) or name in args or stores.get(name) != 1
                    or not loads.get(name) or not _pure(stmt.value) or not _immutable(stmt.value)):
                continue
            reads = {n.id for n in _walk(stmt.value) if isinstance(n, ast.Name)}
            if name in reads:
                continue
            seen, last = 0, at
            for j in range(at + 1, len(body)):
                here = sum(isinstance(n, ast.Name) and n.id == name for n in _walk(body[j]))
                if here:
                    seen, last = seen + here, j
                if seen == loads[name]:
                    break
            if seen != loads[name]:
                continue  # read elsewhere (another block, or before it is bound)
            between = body[at + 1:last]
            if _reads_state(stmt) and any(_acts(s) for s in body[at + 1:last + 1]):
                continue  # what an object holds may change under a call made for its effect
            if any(_names(s)[1] & reads for s in between) or any(
                    isinstance(n, _ALL_SCOPES) for s in body[at + 1:last + 1] for n in _walk(s)):
                continue
            if _names(body[last])[1] & reads:
                continue  # the last reader may change what the expression reads before reading it
            put = _Put(name, stmt.value)
            for j in range(at + 1, last + 1):
                body[j] = put.visit(body[j])
            del body[at]
            return True
    return False


class _Put(ast.NodeTransformer):
    """Each read of ``name`` is a copy of ``value``."""

    def __init__(self, name: str, value: ast.AST) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(self.value), node)
        return node


#: Calls whose result is a number, a string or a bool: written twice, they make equal values, not two objects.
_IMMUTABLE_CALLS = {"len", "int", "float", "bool", "str", "round", "abs", "isinstance", "id", "type"}
_IMMUTABLE_METHODS = {"item", "numel", "dim"}


def _immutable(node: ast.AST) -> bool:
    """``node`` makes no new mutable object (no list, dict or set, no call but those of a number)."""
    for n in _walk(node):
        if isinstance(n, (ast.List, ast.Dict, ast.Set, *_COMPS, ast.Lambda)):
            return False
        if isinstance(n, ast.Call) and not (
                (isinstance(n.func, ast.Name) and n.func.id in _IMMUTABLE_CALLS)
                or (isinstance(n.func, ast.Attribute) and n.func.attr in _IMMUTABLE_METHODS)):
            return False
    return True


def _plain_value(node: ast.AST) -> bool:
    """``node`` is a name, a constant or a literal of them: storing an attribute cannot change what it is."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Load))
               for n in _walk(node))


def _split_tuples(tree: ast.AST) -> None:
    """``a, b = e1, e2`` as ``a = e1`` then ``b = e2`` when no later element reads an earlier target; an
    attribute among the targets (``self.a, self.b = a, []``) when every element is a name, a constant or a
    literal of them (a store to an attribute runs code of its own, which could change what a call returns)."""
    for node, field, body in list(_bodies(tree)):
        out = []
        for stmt in body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                    and isinstance(stmt.value, ast.Tuple) and len(stmt.targets[0].elts) == len(stmt.value.elts)
                    and all(isinstance(t, ast.Name) or (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name))
                            for t in stmt.targets[0].elts)
                    and not any(isinstance(v, ast.Starred) for v in stmt.value.elts)):
                elts = stmt.targets[0].elts
                names = [t.id if isinstance(t, ast.Name) else None for t in elts]
                targets = [n for n in names if n]
                attributes = [ast.unparse(t) for t in elts if isinstance(t, ast.Attribute)]
                ok = (len(set(targets)) == len(targets) and len(set(attributes)) == len(attributes)
                      and not {t.value.id for t in elts if isinstance(t, ast.Attribute)} & set(targets)
                      and (not attributes or all(_plain_value(v) for v in stmt.value.elts))
                      and not any(isinstance(n, ast.Name) and n.id in names[:i] for i, v in enumerate(stmt.value.elts)
                                  for n in _walk(v)))
                if ok:
                    out += [ast.copy_location(ast.Assign([copy.deepcopy(t)], v), stmt)
                            for t, v in zip(elts, stmt.value.elts)]
                    continue
            out.append(stmt)
        setattr(node, field, out)


def fold_temporaries(tree: ast.Module) -> None:
    _split_tuples(tree)
    for fn in _functions(tree):
        for _ in range(40):
            if not (_copy_pure_temporaries(fn) or _fold_temporaries(fn)):
                break


# ---- x = x: what a constructor's self.x = x becomes

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


# ---- the whole pass

def _tree(source: str) -> ast.Module | None:
    # a notebook magic becomes an empty line, so that every statement keeps its line number
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # code Python cannot read (too deep, NUL bytes)
        return None


def normalise_tree(source: str, keep=(), signatures=None) -> ast.Module | None:
    """The normalised tree of ``source`` (``None`` when it does not parse); ``keep`` names the definitions the
    cell is asked for (never unwrapped or inlined); ``signatures`` (``{function: [parameter]}``, the
    assignment's other answers) lets a call pass its keyword arguments by position.  Each statement keeps the
    line of ``source`` it came from."""
    tree = _tree(source)
    if tree is None:
        return None
    tree._budget = GROWTH * _size(tree) + GROWTH_SLACK
    keep = set(keep)
    for fn in tree.body:  # how many parameters the exercise's callers pass (its stub's), for the fingerprinted text
        if isinstance(fn, ast.FunctionDef) and fn.name in (signatures or {}):
            fn._asked = len(signatures[fn.name])
    strip_docstrings(tree)
    strip_annotations(tree)
    walrus_hoisted(tree)
    match_as_if(tree)
    reduce_as_loop(tree)
    inline_module_constants(tree)
    _unwrap_classes(tree, keep)
    _inline_helpers(tree, keep)
    _maps_as_generators(tree)
    _inline_lambdas(tree)
    _expand_comprehensions(tree)
    _drop(tree, _no_op)
    tree = respell(tree)
    rewrite_forms(tree, dict(signatures or {}))
    drop_dead_code(tree)
    unify_loops(tree)
    orient_branches(tree)
    callables = _callables(tree)
    _reorder_all(tree, callables)  # what a temporary is read by depends on the order: settle it first
    fold_temporaries(tree)
    drop_dead_code(tree)
    _IfAsExpression().visit(tree)  # branches that were a temporary and a store are one store now
    _ReturnsAsExpression().visit(tree)  # branches that were a temporary and a return are one return now
    ast.fix_missing_locations(tree)
    _inline_helpers(tree, keep, expressions_first=True)  # a helper whose branches are one return now is one
    _reorder_all(tree, callables)
    _rename_scopes(tree)
    return tree


def _reorder_all(tree: ast.Module, callables: set[str]) -> None:
    for node in _walk(tree):
        if isinstance(node, _SCOPES):
            node.body = _reorder(node.body, _Aliases(node), callables)
    tree.body = _reorder(tree.body, _Aliases(tree), callables)


def normalise(source: str, keep=(), signatures=None) -> str:
    """``source`` normalised (see the module's docstring); code that does not parse is returned as it is."""
    tree = normalise_tree(source, keep, signatures)
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
               for n in _walk(tree))


# ---- the text that is fingerprinted: every variable written v

_KEPT = set(dir(builtins))


def _pure_read(node: ast.AST) -> bool:
    """A name, or attributes of one (``self.layers``): read without calling anything of the program's."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _stars_sliced(tree: ast.Module) -> None:
    """``*rest, last = xs`` (``first, *rest = xs``, names around one starred name) is ``last = xs[-1]`` and
    ``rest = xs[:-1]`` (``first = xs[0]``, ``rest = xs[1:]``) when ``xs`` is a name or its attributes: the items
    each name gets (as a list where ``xs`` slices to another kind of sequence); in place, for the fingerprinted
    text only.  The single items first, so that each is a temporary the next statements may fold."""
    for _, _, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else []
            starred = [i for i, e in enumerate(elts) if isinstance(e, ast.Starred)]
            if len(starred) != 1 or not _pure_read(stmt.value) or not all(
                    isinstance(e.value if isinstance(e, ast.Starred) else e, ast.Name) for e in elts):
                out.append(stmt)
                continue
            at, after = starred[0], len(elts) - starred[0] - 1
            singles = [(e.id, ast.Constant(i)) for i, e in enumerate(elts[:at])] + [
                (e.id, ast.UnaryOp(ast.USub(), ast.Constant(after - k))) for k, e in enumerate(elts[at + 1:])]
            rest = ast.Slice(ast.Constant(at) if at else None,
                             ast.UnaryOp(ast.USub(), ast.Constant(after)) if after else None)
            for name, index in singles + [(elts[at].value.id, rest)]:
                item = ast.Subscript(copy.deepcopy(stmt.value), index, ast.Load())
                out.append(ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], item), stmt))
        if len(out) != len(body):
            body[:] = out
    ast.fix_missing_locations(tree)


def _single_use_folded(tree: ast.Module) -> None:
    """Every local (``v0``, ``v1`` …: each scope's apart) stored once by ``v = e`` and read once, by a later
    statement of the same block, is ``e`` where it is read (in place; for the fingerprinted text only, which
    needs no proof that nothing in between changes what ``e`` reads: a temporary kept or folded away reads alike)."""
    for _ in range(20):
        loads, stores = _loads(tree), _stores(tree)
        once = {n for n, k in stores.items() if k == 1 and loads.get(n) == 1 and re.fullmatch(r"v\d+", n)}
        if not once:
            return
        changed = _into_with(tree, once)
        for node, field, body in list(_bodies(tree)):
            at = 0
            while at < len(body):
                name = _single_target(body[at])
                if name not in once or not isinstance(body[at], ast.Assign):
                    at += 1
                    continue
                reader = next((later for later in body[at + 1:] for n in _walk(later)
                               if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)), None)
                if reader is None or not (isinstance(reader, ast.Return) or (
                        reader is body[at + 1] and _read_once_there(reader, name))):
                    at += 1
                    continue
                value = body[at].value
                _replace_name(reader, name, value)
                del body[at]
                once.discard(name)
                changed = True
            if not body:
                setattr(node, field, [ast.Pass()])
        if not changed:
            return


def _into_with(tree: ast.Module, once: set[str]) -> bool:
    """A ``with`` block whose last statement stores a temporary that the statement right after the block reads
    once takes that statement in: ``with m: v = e`` then ``return v[0]`` reads as ``with m: return v[0]``
    (for the fingerprinted text only; the temporary is then folded as any other)."""
    moved = False
    for _, _, body in list(_bodies(tree)):
        for at in range(len(body) - 1):
            block, reader = body[at], body[at + 1]
            name = _single_target(block.body[-1]) if isinstance(block, ast.With) else None
            if name in once and isinstance(block.body[-1], ast.Assign) and _read_once_there(reader, name):
                block.body.append(reader)
                del body[at + 1]
                moved = True
                break
    return moved


def _read_once_there(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` reads ``name`` where it runs once: not in a loop's body, a branch or a nested scope
    (a header's test or iterable is read once)."""
    parts = {ast.For: ("iter",), ast.AsyncFor: ("iter",), ast.While: ("test",), ast.If: ("test",)}.get(type(stmt))
    if parts is None and any(isinstance(getattr(stmt, b, None), list) for b in (*_BODIES, "handlers")):
        return False
    roots = [getattr(stmt, part) for part in parts] if parts else [stmt]
    todo = list(roots)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            return True
        if not isinstance(node, _ALL_SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _keys_as_items(tree: ast.Module) -> None:
    """``for k in d: ... d[k] ...`` is ``for k, v in d.items(): ... v ...`` (``for v in d.values()`` when
    ``k`` serves nothing else), in place: for the fingerprinted text only, since ``d`` may be no dict."""
    for loop in [n for n in _every_node(tree) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)
                 and isinstance(n.iter, ast.Name) and not n.orelse]:
        key, table = loop.target.id, loop.iter.id
        reads = [n for s in loop.body for n in _walk(s) if isinstance(n, ast.Subscript) and isinstance(
            n.value, ast.Name) and n.value.id == table and isinstance(n.slice, ast.Name) and n.slice.id == key]
        written = {n.id for s in loop.body for n in _walk(s) if isinstance(n, ast.Name)
                   and isinstance(n.ctx, (ast.Store, ast.Del))}
        if not reads or any(not isinstance(r.ctx, ast.Load) for r in reads) or {key, table} & written:
            continue
        value = _fresh(tree, "v")
        for r in reads:
            _replace(loop, r, ast.copy_location(ast.Name(value, ast.Load()), r))
        rest = any(isinstance(n, ast.Name) and n.id == key for s in loop.body for n in _walk(s))
        method = "items" if rest else "values"
        loop.target = (ast.Tuple([ast.Name(key, ast.Store()), ast.Name(value, ast.Store())], ast.Store()) if rest
                       else ast.Name(value, ast.Store()))
        loop.iter = ast.Call(ast.Attribute(ast.Name(table, ast.Load()), method, ast.Load()), [], [])


def _replace_name(tree: ast.AST, name: str, value: ast.AST) -> None:
    for node in _walk(tree):
        for field, child in ast.iter_fields(node):
            if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load):
                setattr(node, field, value)
                return
            if isinstance(child, list):
                for i, item in enumerate(child):
                    if isinstance(item, ast.Name) and item.id == name and isinstance(item.ctx, ast.Load):
                        child[i] = value
                        return


def _open_unwrapped(tree: ast.Module) -> None:
    """``with open(p, m) as f: body`` is ``body`` with ``p`` where it reads ``f`` (``torch.save(x, f)`` and
    ``torch.save(x, p)`` write the same file), in place: for the fingerprinted text only, since the file is
    opened otherwise and closed at another time."""
    for *_, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            item = stmt.items[0] if isinstance(stmt, ast.With) and len(stmt.items) == 1 else None
            call = item.context_expr if item is not None else None
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "open" and call.args
                    and isinstance(item.optional_vars, ast.Name)
                    and not _stores(ast.Module(stmt.body, [])).get(item.optional_vars.id)):
                handle = item.optional_vars.id
                for inner in stmt.body:
                    for n in _walk(inner):
                        for name, child in ast.iter_fields(n):
                            if isinstance(child, ast.Name) and child.id == handle:
                                setattr(n, name, copy.deepcopy(call.args[0]))
                            elif isinstance(child, list):
                                child[:] = [copy.deepcopy(call.args[0]) if isinstance(c, ast.Name) and c.id == handle
                                            else c for c in child]
                out.extend(stmt.body)
            else:
                out.append(stmt)
        body[:] = out


def _literal_loops_unrolled(tree: ast.Module, longest: int = 6) -> None:
    """``for x in (a, b): f(x)`` (a tuple or list written out, or ``zip`` of them) is ``f(a)`` then ``f(b)``,
    when the loop neither jumps nor rebinds its names and they are not read after it, in place: for the
    fingerprinted text only (an element written where the name was read is evaluated there)."""
    def rows(loop: ast.For) -> list[list[ast.AST]] | None:
        it = loop.iter
        if isinstance(it, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in it.elts):
            return [[e] for e in it.elts]
        if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip" and len(it.args) > 1
                and not it.keywords and all(isinstance(a, (ast.Tuple, ast.List)) for a in it.args)
                and len({len(a.elts) for a in it.args}) == 1
                and not any(isinstance(e, ast.Starred) for a in it.args for e in a.elts)):
            return [list(row) for row in zip(*(a.elts for a in it.args))]
        return None

    def targets(loop: ast.For, width: int) -> list[str] | None:
        t = loop.target
        names = [t] if width == 1 and isinstance(t, ast.Name) else (
            t.elts if isinstance(t, ast.Tuple) and len(t.elts) == width else [])
        return [n.id for n in names] if names and all(isinstance(n, ast.Name) for n in names) else None

    for *_, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            table = rows(stmt) if isinstance(stmt, ast.For) and not stmt.orelse else None
            names = targets(stmt, len(table[0])) if table and len(table) <= longest else None
            inner = ast.Module(stmt.body, []) if names else None
            if (names is None or any(isinstance(n, (ast.Break, ast.Continue, *_ALL_SCOPES)) for n in _walk(inner))
                    or set(names) & set(_stores(inner))
                    or sum(_loads(stmt).get(n, 0) for n in names) != sum(_loads(tree).get(n, 0) for n in names)):
                out.append(stmt)
                continue
            for row in table:
                bound = dict(zip(names, row))
                for part in copy.deepcopy(stmt.body):
                    out.append(_Bound(bound).visit(part))
        body[:] = out


class _Bound(ast.NodeTransformer):
    """Names read replaced by the expressions ``bound`` gives them (copies)."""

    def __init__(self, bound: dict[str, ast.AST]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.bound:
            return ast.copy_location(copy.deepcopy(self.bound[node.id]), node)
        return node


class _LiteralComprehensions(ast.NodeTransformer):
    """``tuple(f(k) for k in (a, b))`` and ``[f(k) for k in (a, b)]`` are ``(f(a), f(b))`` and ``[f(a), f(b)]``;
    a conditional expression on a comparison of two constants is the branch it takes: for the fingerprinted
    text only (each element is evaluated when the container is built, as it was)."""

    def __init__(self, longest: int = 6) -> None:
        self.longest = longest

    def _elements(self, comp: ast.AST) -> list[ast.AST] | None:
        if not isinstance(comp, (ast.GeneratorExp, ast.ListComp)) or len(comp.generators) != 1:
            return None
        g = comp.generators[0]
        if (g.ifs or g.is_async or not isinstance(g.target, ast.Name) or not isinstance(g.iter, (ast.Tuple, ast.List))
                or len(g.iter.elts) > self.longest or not all(isinstance(e, (ast.Constant, ast.Name, ast.Attribute))
                                                              for e in g.iter.elts)):
            return None
        return [self.visit(_Bound({g.target.id: e}).visit(copy.deepcopy(comp.elt))) for e in g.iter.elts]

    def visit_Call(self, node: ast.Call) -> ast.AST:
        f = node.func
        if isinstance(f, ast.Name) and f.id in ("tuple", "list") and len(node.args) == 1 and not node.keywords:
            elts = self._elements(node.args[0])
            if elts is not None:
                built = ast.Tuple(elts, ast.Load()) if f.id == "tuple" else ast.List(elts, ast.Load())
                return ast.copy_location(built, node)
        return self.generic_visit(node)

    def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
        elts = self._elements(node)
        return ast.copy_location(ast.List(elts, ast.Load()), node) if elts is not None else self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        t = node.test
        if (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.Eq, ast.NotEq))
                and isinstance(t.left, ast.Constant) and isinstance(t.comparators[0], ast.Constant)):
            equal = t.left.value == t.comparators[0].value
            return node.body if equal == isinstance(t.ops[0], ast.Eq) else node.orelse
        return node


def _options_as_defaults(tree: ast.Module) -> None:
    """A keyword-only parameter with a constant default, or a parameter with one after those the exercise's stub
    declares (an option the exercise's callers never pass), is its default where it is read, and ``c and True``
    is ``c``, in place: for the fingerprinted text only."""
    for fn in [n for n in _walk(tree) if isinstance(n, _SCOPES)]:
        a = fn.args
        options = {arg.arg: d for arg, d in zip(a.kwonlyargs, a.kw_defaults) if isinstance(d, ast.Constant)}
        asked = getattr(fn, "_asked", None)
        extra = {} if asked is None or a.vararg or a.posonlyargs else {
            arg.arg: d for at, (arg, d) in enumerate(zip(a.args[len(a.args) - len(a.defaults):], a.defaults),
                                                   len(a.args) - len(a.defaults))
            if at >= asked and isinstance(d, ast.Constant)}
        if extra and len(extra) < len(a.args) - max(asked or 0, len(a.args) - len(a.defaults)):
            extra = {}  # one after the stub's without a constant default: kept
        if not options and not extra:
            continue
        stored = set(_stores(ast.Module(fn.body, [])))
        options, extra = ({} if set(options) & stored else options), ({} if set(extra) & stored else extra)
        if not options and not extra:
            continue  # a parameter it stores: kept
        for stmt in fn.body:
            _Bound({**options, **extra}).visit(stmt)
        kept = [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if arg.arg not in options]
        a.kwonlyargs, a.kw_defaults = [k for k, _ in kept], [d for _, d in kept]
        if extra:
            a.args, a.defaults = a.args[:len(a.args) - len(extra)], a.defaults[:len(a.defaults) - len(extra)]
    for node in _walk(tree):
        for name, child in ast.iter_fields(node):
            if isinstance(child, ast.BoolOp):
                kept = [v for v in child.values if not (isinstance(v, ast.Constant) and v.value is (
                    isinstance(child.op, ast.And)))]
                if len(kept) == 1:
                    setattr(node, name, kept[0])
                elif kept and len(kept) < len(child.values):
                    child.values = kept


def _attributes_read_where_named(tree: ast.Module) -> None:
    """A local (``v0``, ``v1`` ...) stored once, by ``v = x.a`` of a name nothing stores after it, is ``x.a``
    wherever it is read (``grad = p.grad`` then three reads of ``grad`` read ``p.grad``), in place: for the
    fingerprinted text only (it needs no proof that nothing changes ``x.a`` in between)."""
    for fn in [n for n in _walk(tree) if isinstance(n, _SCOPES)]:
        if not any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Attribute) for n in _every_node(fn)):
            continue
        stores = _stores(fn)
        for *_, body in list(_bodies(fn)):
            for stmt in list(body):
                name = _single_target(stmt) if isinstance(stmt, ast.Assign) else None
                value = stmt.value if name else None
                if not (name and re.fullmatch(r"v\d+", name) and stores.get(name) == 1
                        and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                        and stores.get(value.value.id, 0) <= 1 and value.value.id != name):
                    continue
                if stores.get(value.value.id) == 1 and not any(
                        isinstance(n, ast.arg) and n.arg == value.value.id for n in _walk(fn)) and not _loops_over(
                        fn, value.value.id):
                    continue  # a local bound once elsewhere: only a loop's variable is read here as it is
                if _touched_between(fn, stmt, name, value.value.id):
                    continue  # m.eval() between was = m.training and m.train(was): the attribute may have changed
                body.remove(stmt)
                for node in _walk(fn):
                    for field, child in ast.iter_fields(node):
                        if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load):
                            setattr(node, field, copy.deepcopy(value))
                        elif isinstance(child, list):
                            child[:] = [copy.deepcopy(value) if isinstance(c, ast.Name) and c.id == name and isinstance(
                                c.ctx, ast.Load) else c for c in child]


def _touched_between(fn: ast.AST, stmt: ast.stmt, name: str, base: str) -> bool:
    """Whether, in ``fn``'s order, anything between ``stmt`` and the last read of ``name`` calls a method of
    ``base``, hands ``base`` to a call or stores into its attributes."""
    order: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
        order.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(fn)
    start = order.index(stmt)
    reads = [i for i, n in enumerate(order) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if not reads:
        return False
    for node in order[start + 1:max(reads)]:
        if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                 and node.func.value.id == base)
                or any(isinstance(a, ast.Name) and a.id == base for a in [*node.args, *(k.value for k in node.keywords)])):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and isinstance(
                node.value, ast.Name) and node.value.id == base:
            return True
    return False


def _loops_over(fn: ast.AST, name: str) -> bool:
    """Whether ``name`` is bound by a ``for`` loop's target in ``fn``."""
    return any(isinstance(n, ast.For) and any(isinstance(t, ast.Name) and t.id == name for t in _walk(n.target))
               for n in _walk(fn))


def _products_as_prod(tree: ast.Module) -> None:
    """A product written out is ``math.prod``, in place, for the fingerprinted text only: ``p = 1`` then ``for x
    in xs: p *= x`` is ``p = math.prod(xs)``, and ``functools.reduce(operator.mul, xs, 1)`` (or a lambda that
    multiplies its two parameters, the start left out) is ``math.prod(xs)``."""
    loops = reduces = False
    for n in _every_node(tree):
        loops = loops or (isinstance(n, ast.For) and len(n.body) == 1 and isinstance(n.body[0], (ast.AugAssign,
                                                                                                ast.Assign)))
        reduces = reduces or (isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) == "reduce")
    if not loops and not reduces:
        return
    for *_, body in list(_bodies(tree)) if loops else ():
        for loop in [s for s in body if isinstance(s, ast.For)]:
            if not (isinstance(loop.target, ast.Name) and not loop.orelse and len(loop.body) == 1):
                continue
            at = body.index(loop)
            name = _single_target(loop.body[0])
            start = next((i for i in range(at - 1, -1, -1) if any(
                isinstance(n, ast.Name) and n.id == name for n in _walk(body[i]))), None)
            first = body[start] if start is not None else None
            if (name and _multiplies(loop.body[0], name, loop.target.id) and isinstance(first, ast.Assign)
                    and _single_target(first) == name and isinstance(first.value, ast.Constant)
                    and first.value.value == 1 and not any(isinstance(n, ast.Name) and n.id == name
                                                           for n in _walk(loop.iter))):
                body[at] = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], _prod(loop.iter)), loop)
                del body[start]
    for node in _walk(tree) if reduces else ():
        for field, child in ast.iter_fields(node):
            if isinstance(child, ast.Call) and _reduces_by_product(child):
                setattr(node, field, ast.copy_location(_prod(child.args[1]), child))
            elif isinstance(child, list):
                child[:] = [ast.copy_location(_prod(c.args[1]), c) if isinstance(c, ast.Call) and _reduces_by_product(c)
                            else c for c in child]


def _prod(xs: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name("math", ast.Load()), "prod", ast.Load()), [xs], [])


def _multiplies(stmt: ast.stmt, name: str, by: str) -> bool:
    """``name *= by`` or ``name = name * by`` (either order)."""
    if isinstance(stmt, ast.AugAssign):
        return (isinstance(stmt.op, ast.Mult) and isinstance(stmt.target, ast.Name) and stmt.target.id == name
                and isinstance(stmt.value, ast.Name) and stmt.value.id == by)
    if _single_target(stmt) != name or not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.BinOp):
        return False
    v = stmt.value
    return isinstance(v.op, ast.Mult) and all(isinstance(o, ast.Name) for o in (v.left, v.right)) and {
        v.left.id, v.right.id} == {name, by}


def _reduces_by_product(call: ast.Call) -> bool:
    """``functools.reduce(operator.mul, xs[, 1])`` or ``reduce(lambda a, b: a * b, xs[, 1])``."""
    f = call.func
    named = (isinstance(f, ast.Name) and f.id == "reduce") or (isinstance(f, ast.Attribute) and f.attr == "reduce"
                                                             and isinstance(f.value, ast.Name) and f.value.id == "functools")
    if not named or call.keywords or len(call.args) not in (2, 3) or (
            len(call.args) == 3 and not (isinstance(call.args[2], ast.Constant) and call.args[2].value == 1)):
        return False
    g = call.args[0]
    if isinstance(g, ast.Attribute) and g.attr == "mul" and isinstance(g.value, ast.Name) and g.value.id == "operator":
        return True
    return (isinstance(g, ast.Lambda) and len(g.args.args) == 2 and not g.args.defaults and isinstance(g.body, ast.BinOp)
            and isinstance(g.body.op, ast.Mult) and all(isinstance(o, ast.Name) for o in (g.body.left, g.body.right))
            and {g.body.left.id, g.body.right.id} == {a.arg for a in g.args.args} and g.body.left.id != g.body.right.id)


def _messages_dropped(tree: ast.Module) -> None:
    """What an exception or an assertion says is prose, as a comment is: ``raise E("...")`` is ``raise E()``,
    ``assert c, "..."`` is ``assert c``, in place: for the fingerprinted text only."""
    for node in _walk(tree):
        if isinstance(node, ast.Assert):
            node.msg = None
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and all(
                isinstance(arg, (ast.Constant, ast.JoinedStr, ast.BinOp)) for arg in node.exc.args):
            node.exc.args, node.exc.keywords = [], []


class _Tests(ast.NodeTransformer):
    """Tests in one form, for the fingerprinted text (the same program on lists, dicts and queues):
    ``len(xs) > 0`` is ``xs`` and ``len(xs) == 0`` is ``not xs``; ``not (a or b)`` is ``not a and not b`` (each
    comparison turned round); and ``xs.extend(f(x) for x in ys)`` is the loop that appends."""

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) != 1:
            return node
        left, op, right = node.left, node.ops[0], node.comparators[0]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
            left, right = right, left
            op = {ast.Lt: ast.Gt(), ast.Gt: ast.Lt(), ast.LtE: ast.GtE(), ast.GtE: ast.LtE()}.get(type(op), op)
        if (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
                and len(left.args) == 1 and isinstance(right, ast.Constant) and right.value == 0):
            if isinstance(op, (ast.Gt, ast.NotEq)):
                return left.args[0]
            if isinstance(op, ast.Eq):
                return ast.copy_location(ast.UnaryOp(ast.Not(), left.args[0]), node)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        v = node.operand
        if isinstance(node.op, ast.Not) and isinstance(v, ast.BoolOp) and isinstance(v.op, ast.Or) and all(
                isinstance(c, ast.Compare) and len(c.ops) == 1 and type(c.ops[0]) in _OPPOSITE for c in v.values):
            turned = [ast.Compare(c.left, [_OPPOSITE[type(c.ops[0])]()], c.comparators) for c in v.values]
            return ast.copy_location(ast.BoolOp(ast.And(), turned), node)
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        self.generic_visit(node)
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "extend"
                and len(call.args) == 1 and not call.keywords
                and isinstance(call.args[0], (ast.GeneratorExp, ast.ListComp)) and len(call.args[0].generators) == 1):
            return node
        comp, g = call.args[0], call.args[0].generators[0]
        step: ast.stmt = _method_call(node, call.func.value, "append", comp.elt)
        for test in reversed(g.ifs):
            step = ast.If(test, [step], [])
        return ast.copy_location(ast.For(g.target, g.iter, [step], []), node)


def _filled_at_once(tree: ast.Module) -> None:
    """``d.update(k=x)`` is ``d['k'] = x``; ``d = {...}`` then, at once, ``d[c] = x`` for constant keys ``c``
    (values that do not read ``d``) is one literal ``d = {..., c: x}``, in place: for the fingerprinted text
    only (a key filled later is evaluated later)."""
    for *_, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "update"
                    and not call.args and call.keywords and all(k.arg for k in call.keywords)):
                for k in call.keywords:
                    target = ast.Subscript(copy.deepcopy(call.func.value), ast.Constant(k.arg), ast.Store())
                    out.append(ast.copy_location(ast.Assign([target], k.value), stmt))
                continue
            out.append(stmt)
        merged: list[ast.stmt] = []
        for stmt in out:
            last = merged[-1] if merged else None
            name = _single_target(last) if isinstance(last, ast.Assign) and isinstance(last.value, ast.Dict) else None
            t = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            if (name and isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                    and isinstance(t.slice, ast.Constant) and None not in last.value.keys
                    and not any(isinstance(n, ast.Name) and n.id == name for n in _walk(stmt.value))):
                at = next((i for i, k in enumerate(last.value.keys) if isinstance(k, ast.Constant)
                           and k.value == t.slice.value), None)
                if at is None:
                    last.value.keys.append(t.slice)
                    last.value.values.append(stmt.value)
                else:
                    last.value.values[at] = stmt.value
                continue
            merged.append(stmt)
        body[:] = merged


def _holder_class(cls: ast.ClassDef) -> dict[str, ast.FunctionDef] | None:
    """A class the answer made up to hold a few values (a tally, an accumulator): no base, only methods, each
    reading its instance only through its attributes, none returning anything but an attribute; its methods by
    name, or ``None``."""
    if cls.bases or cls.keywords or cls.decorator_list:
        return None
    methods = {}
    for m in cls.body:
        if not isinstance(m, ast.FunctionDef) or m.decorator_list or not m.args.args or m.args.vararg or (
                m.args.kwarg or m.args.kwonlyargs or m.args.posonlyargs):
            return None  # (a default is never read: every call written out passes every parameter)
        me = m.args.args[0].arg
        attributes = {id(n.value) for n in _walk(m) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        if any(isinstance(n, ast.Name) and n.id == me and id(n) not in attributes for n in _walk(m)):
            return None  # the instance handed on, not only its attributes read
        if any(isinstance(n, _ALL_SCOPES) for n in _walk(m) if n is not m) or any(
                isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) for n in _walk(m)):
            return None
        returns = [n for n in _walk(m) if isinstance(n, ast.Return)]
        if returns and not (len(returns) == 1 and m.body[-1] is returns[0] and returns[0].value is not None):
            return None
        methods[m.name] = m
    return methods if "__init__" in methods else None


class _HolderInlined(ast.NodeTransformer):
    """An instance's method calls written out, its attributes locals (:func:`_holders_inlined`)."""

    def __init__(self, name: str, methods: dict[str, ast.FunctionDef], locals_of: dict[str, str]) -> None:
        self.name, self.methods, self.locals_of = name, methods, locals_of
        self.made = 0

    def body_of(self, method: ast.FunctionDef, args: list[ast.AST], bind: bool = False) -> list[ast.stmt]:
        """``method``'s statements written for its call with ``args``: each parameter the argument (or, with
        ``bind``, an argument that is more than a name or a constant stored first in a local of its own)."""
        me = method.args.args[0].arg
        given = dict(zip([a.arg for a in method.args.args[1:]], args))
        first: list[ast.stmt] = []
        if bind:
            for param, arg in list(given.items()):
                if not isinstance(arg, (ast.Name, ast.Constant)):
                    self.made += 1
                    local = f"v{1900 + self.made}"
                    first.append(ast.Assign([ast.Name(local, ast.Store())], arg))
                    given[param] = ast.Name(local, ast.Load())

        class Put(ast.NodeTransformer):
            def visit_Attribute(inner, node):  # noqa: N805 - the instance's attribute is a local
                if isinstance(node.value, ast.Name) and node.value.id == me:
                    return ast.copy_location(ast.Name(self.locals_of[node.attr], node.ctx), node)
                inner.generic_visit(node)
                return node

            def visit_Name(inner, node):  # noqa: N805
                if node.id in given and isinstance(node.ctx, ast.Load):
                    return ast.copy_location(copy.deepcopy(given[node.id]), node)
                return node

        body = [Put().visit(copy.deepcopy(stmt)) for stmt in method.body]
        return first + [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]

    def _called(self, value: ast.AST) -> ast.FunctionDef | None:
        """The method ``value`` calls on the instance, when it ends in a return (written out as statements, its
        arguments bound to locals)."""
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and isinstance(value.func.value, ast.Name) and value.func.value.id == self.name):
            method = self.methods[value.func.attr]
            if isinstance(method.body[-1], ast.Return):
                return method
        return None

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        value = node.value
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == self.name
                and isinstance(value, ast.Call)):
            return self.body_of(self.methods["__init__"], value.args) or ast.Pass()
        return self._written(node, lambda result: ast.Assign(node.targets, result))

    def visit_Return(self, node: ast.Return) -> ast.AST:
        return self._written(node, ast.Return)

    def _written(self, node: ast.Assign | ast.Return, keep_result) -> ast.AST:
        """``x = obj.step(a)`` or ``return obj.step(a)``: the step's statements, then what it returns kept as the
        statement did (``keep_result``); any other statement visited as it is."""
        method = self._called(node.value)
        if method is None:
            self.generic_visit(node)
            return node
        *body, last = self.body_of(method, [self.visit(a) for a in node.value.args], bind=True)
        return [*body, ast.copy_location(keep_result(last.value), node)]

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id == self.name):
            body = self.body_of(self.methods[call.func.attr], call.args)
            body = [s for s in body if not isinstance(s, ast.Return)]
            return body or ast.Pass()
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        f = node.func  # the method's own name is not an attribute to read: looked at before the arguments
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == self.name:
            method = self.methods[f.attr]
            if isinstance(method.body[-1], ast.Return) and len(method.body) == 1:
                args = [self.visit(a) for a in node.args]
                return ast.copy_location(self.body_of(method, args)[-1].value, node)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name(self.locals_of[node.attr], ast.Load()), node)
        self.generic_visit(node)
        return node


def _hoisted(fn: ast.AST, name: str, methods: dict[str, ast.FunctionDef], counter: int) -> int:
    """Each call of one of ``name``'s methods of several statements, inside a simple statement's expression
    (``return obj.backward(obj.forward(x) - y)``), first stored in a local of its own just before that statement
    (``v = obj.forward(x)``), so that it can be written out (:class:`_HolderInlined`); the next free number."""
    for *_, body in list(_bodies(fn)):
        out: list[ast.stmt] = []
        for stmt in body:
            top = stmt.value if isinstance(stmt, (ast.Assign, ast.Return, ast.Expr)) else None
            if top is not None and not any(isinstance(m, _ALL_SCOPES) for m in _walk(top)):
                inner = [n for n in _walk(top) if n is not top and isinstance(n, ast.Call)
                         and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                         and n.func.value.id == name and n.func.attr in methods and len(methods[n.func.attr].body) > 1
                         and isinstance(methods[n.func.attr].body[-1], ast.Return)]
                for call in reversed(inner):  # innermost first: it runs first
                    local = f"v{counter}"
                    counter += 1
                    out.append(ast.copy_location(ast.Assign([ast.Name(local, ast.Store())], copy.deepcopy(call)), stmt))
                    _replace(stmt, call, ast.Name(local, ast.Load()))
            out.append(stmt)
        body[:] = out
    return counter


def _copies_folded(tree: ast.Module) -> None:
    """A local (``v0`` …) stored once as a copy of a name that is stored at most once (``v1 = x``, what an
    instance's ``self.x = x`` becomes once written out) is that name where it is read; in place, for the
    fingerprinted text only."""
    stores = _stores(tree)
    for *_, body in list(_bodies(tree)):
        for stmt in list(body):
            name = _single_target(stmt)
            if (isinstance(stmt, ast.Assign) and name and re.fullmatch(r"v\d+", name) and stores.get(name) == 1
                    and isinstance(stmt.value, ast.Name) and stores.get(stmt.value.id, 0) <= 1):
                for later in body[body.index(stmt) + 1:]:
                    _Put(name, stmt.value).visit(later)
                body.remove(stmt)


def _holders_inlined(tree: ast.Module) -> bool:
    """An instance of a class the answer made up to hold values (:func:`_holder_class`), made once in a function
    with positional arguments and used there only through its methods' calls and its attributes' reads, is
    written out: its attributes are locals, ``__init__`` and each method called as a statement, or whose value
    is stored or returned, are written where they are called (a call inside an expression is stored first,
    :func:`_hoisted`; a method of one ``return e`` is ``e``), and a class every use of which was written out
    goes; in place, for the fingerprinted text only (so a tally object reads as the running total it keeps, and a
    network whose ``forward`` keeps what ``backward`` reads as the function it wraps).  Whether any was."""
    classes = {n.name: (n, _holder_class(n)) for n in tree.body if isinstance(n, ast.ClassDef)}
    classes = {name: pair for name, pair in classes.items() if pair[1] is not None}
    if not classes:
        return False
    used_up = set()
    counter = 900
    own_methods = {id(m) for _, methods in classes.values() for m in methods.values()}
    for fn in [n for n in _walk(tree) if isinstance(n, _SCOPES) and id(n) not in own_methods]:
        for stmt in list(_walk(fn)):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
                    and stmt.value.func.id in classes and not stmt.value.keywords
                    and not any(isinstance(a, ast.Starred) for a in stmt.value.args)):
                continue
            name, (cls, methods) = stmt.targets[0].id, classes[stmt.value.func.id]
            counter = _hoisted(fn, name, methods, counter)
            uses = [n for n in _walk(fn) if isinstance(n, ast.Name) and n.id == name]
            parents = {id(c): p for p in _walk(fn) for c in ast.iter_child_nodes(p)}
            ok = _stores(fn).get(name, 0) == 1 and len(stmt.value.args) == len(methods["__init__"].args.args) - 1
            attributes = set()
            for use in uses:
                if isinstance(use.ctx, ast.Store):
                    continue
                parent = parents.get(id(use))
                if not isinstance(parent, ast.Attribute) or not isinstance(parent.ctx, ast.Load):
                    ok = False
                    break
                grand = parents.get(id(parent))
                if parent.attr in methods:
                    method = methods[parent.attr]
                    called = isinstance(grand, ast.Call) and grand.func is parent and not grand.keywords and len(
                        grand.args) == len(method.args.args) - 1
                    holder = parents.get(id(grand))
                    statement = isinstance(holder, ast.Expr)
                    one_return = len(method.body) == 1 and isinstance(method.body[0], ast.Return)
                    placed = isinstance(method.body[-1], ast.Return) and (
                        isinstance(holder, ast.Return) or (isinstance(holder, ast.Assign) and len(holder.targets) == 1
                                                           and isinstance(holder.targets[0], ast.Name)))
                    if not called or not (statement or one_return or placed):
                        ok = False
                        break
                else:
                    attributes.add(parent.attr)
            if not ok:
                continue
            stored = {n.attr for m in methods.values() for n in _walk(m) if isinstance(n, ast.Attribute)
                      and isinstance(n.value, ast.Name) and n.value.id == m.args.args[0].arg}
            if not attributes <= stored:
                continue
            locals_of = {attr: f"v{counter + k}" for k, attr in enumerate(sorted(stored))}
            counter += len(stored)
            _HolderInlined(name, methods, locals_of).visit(fn)  # a statement replaced by a list is spliced in
            used_up.add(cls.name)
    still = {n.id for n in _walk(tree) if isinstance(n, ast.Name)}
    tree.body[:] = [n for n in tree.body if not (isinstance(n, ast.ClassDef) and n.name in used_up and n.name not in still)]
    return bool(used_up)


class _Squares(ast.NodeTransformer):
    """``e * e`` is ``e ** 2``, before names are folded (after, ``a * b`` would read as a square too); for the
    fingerprinted text only."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Mult) and ast.dump(node.left) == ast.dump(node.right) and _pure(node.left):
            return ast.copy_location(ast.BinOp(node.left, ast.Pow(), ast.Constant(2)), node)
        return node


def _defs_as_lambdas(tree: ast.Module, keep) -> None:
    """A function defined in a function, of one statement (``return e`` or ``e``), not called there but handed
    on once by the same block (a hook, a callback, what a factory returns), is ``lambda ...: e`` where it is
    handed on; in place, for the fingerprinted text only (a lambda of ``e`` returns ``e``, a ``def`` of ``e``
    ``None``)."""
    keep = set(keep or ())
    for fn in [n for n in _walk(tree) if isinstance(n, _SCOPES)]:
        for _node, _field, body in list(_bodies(fn)):
            for inner in list(body):
                if not (isinstance(inner, ast.FunctionDef) and inner.name not in keep and not inner.decorator_list
                        and len(inner.body) == 1 and isinstance(inner.body[0], (ast.Return, ast.Expr))
                        and inner.body[0].value is not None and not inner.args.defaults
                        and not inner.args.kw_defaults):
                    continue
                later = body[body.index(inner) + 1:]
                uses = [n for n in _walk(fn) if isinstance(n, ast.Name) and n.id == inner.name]
                calls = {id(n.func) for n in _walk(fn) if isinstance(n, ast.Call)}
                if (len(uses) != 1 or id(uses[0]) in calls or not isinstance(uses[0].ctx, ast.Load)
                        or not any(u is uses[0] for s in later for u in _walk(s))
                        or _stores(fn).get(inner.name, 0)):  # (a def binds its name without a Name node)
                    continue
                lam = ast.Lambda(inner.args, inner.body[0].value)
                _replace(fn, uses[0], ast.copy_location(lam, uses[0]))
                body.remove(inner)


def _lists_appended(tree: ast.Module) -> None:
    """``xs += [a, b]`` and ``xs.extend([a, b])`` are ``xs.append(a)`` then ``xs.append(b)``; a list built by a
    loop of appends (a comprehension written out) only to be added to another, ``ys = []``, the loop, then
    ``xs += ys`` or ``xs.extend(ys)``, appends to ``xs`` itself; in place, for the fingerprinted text only (for a
    list, the same; ``+=`` of a tensor adds)."""
    def appends(target: ast.AST, items: list[ast.AST], where: ast.stmt) -> list[ast.stmt]:
        return [ast.copy_location(ast.Expr(ast.Call(ast.Attribute(copy.deepcopy(target), "append", ast.Load()),
                                                    [item], [])), where) for item in items]

    def added(stmt: ast.stmt) -> tuple[ast.AST, ast.AST] | None:  # (xs, what is added)
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
            return stmt.target, stmt.value
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "extend"
                and len(call.args) == 1 and not call.keywords):
            return call.func.value, call.args[0]
        return None

    loads = _loads(tree)
    for *_, body in list(_bodies(tree)):
        out: list[ast.stmt] = []
        for stmt in body:
            pair = added(stmt)
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute)
                    and isinstance(stmt.value, ast.List) and stmt.value.elts
                    and not any(isinstance(e, ast.Starred) for e in stmt.value.elts)):
                out.append(ast.copy_location(ast.Assign([stmt.targets[0]], ast.List([], ast.Load())), stmt))
                out += appends(stmt.targets[0], stmt.value.elts, stmt)
                continue
            if pair and isinstance(pair[1], ast.List) and not any(isinstance(e, ast.Starred) for e in pair[1].elts):
                out += appends(pair[0], pair[1].elts, stmt)
                continue
            if (pair and isinstance(pair[1], ast.Name) and len(out) >= 2
                    and isinstance(out[-1], ast.For) and _single_target(out[-2]) == pair[1].id
                    and isinstance(out[-2].value, ast.List) and not out[-2].value.elts):
                name = pair[1].id
                filled = [n for n in _walk(out[-1]) if isinstance(n, ast.Name) and n.id == name]
                pushes = [n for n in _walk(out[-1]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                          and n.func.attr == "append" and isinstance(n.func.value, ast.Name) and n.func.value.id == name]
                if filled and len(filled) == len(pushes) and loads.get(name) == len(pushes) + 1:
                    for call in pushes:
                        call.func.value = copy.deepcopy(pair[0])
                    del out[-2]
                    continue
            out.append(stmt)
        body[:] = out


def _folded_tree(tree: ast.Module, variables: set[str] | None, keep=None) -> ast.Module:
    variables = set(variables or ())
    params = {name for n in _walk(tree) for name in parameters(n)}
    if keep is not None:  # a helper's name is its writer's choice; the functions asked for keep theirs
        variables |= {n.name for n in _walk(tree) if isinstance(n, _SCOPES) and n.name not in keep}
    imported = {name for n in _walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for name in import_names(n)}
    tree = copy.deepcopy(tree)
    for fn in _functions(tree):  # a counter's loop whose bound the body may change, as the for loop it reads as
        while _whiles_as_fors(fn, loose=True):
            pass
    if _holders_inlined(tree):  # what the written-out methods left, folded as the program's own temporaries were
        _copies_folded(tree)
        fold_temporaries(tree)
        _IfAsExpression().visit(tree)  # a method's branches that were stores into the holder are one store now
        ast.fix_missing_locations(tree)
    _Squares().visit(tree)
    _defs_as_lambdas(tree, keep)
    _lists_appended(tree)
    _open_unwrapped(tree)
    _options_as_defaults(tree)
    _messages_dropped(tree)
    _literal_loops_unrolled(tree)
    tree = _Tests().visit(_LiteralComprehensions().visit(tree))
    _filled_at_once(tree)
    _products_as_prod(tree)
    _attributes_read_where_named(tree)
    _stars_sliced(tree)
    _single_use_folded(tree)
    _messages_dropped(tree)  # a message built in a temporary is read where it is raised now
    _keys_as_items(tree)
    for node in _walk(tree):
        if isinstance(node, ast.Name) and node.id not in imported and (node.id in params or node.id not in _KEPT and (
                re.fullmatch(r"v\d+", node.id) or node.id in variables)):
            node.id = "v"
        elif isinstance(node, ast.arg):
            node.arg = "v"
        elif isinstance(node, _SCOPES) and (node.name in variables or re.fullmatch(r"v\d+", node.name)):
            node.name = "v"
        elif isinstance(node, ast.ExceptHandler) and node.name:
            node.name = "v"
        elif isinstance(node, _CAPTURES) and _captured(node) and (
                re.fullmatch(r"v\d+", _captured(node)) or _captured(node) in variables):
            setattr(node, _CAPTURE_FIELD[type(node)], "v")
    return ast.fix_missing_locations(_Ordered().visit(_Near().visit(tree)))


def _is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _plain_number(value: float) -> float:
    """A product of constants as it is written: ``3`` for ``2 * 1.5``."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53 else value


class _Ordered(ast.NodeTransformer):
    """A sum's terms in one order (by their text once every variable is ``v``, constants last), a difference as a
    sum with a negated term: ``b + x @ w`` is ``x @ w + b``, ``-y + s`` is ``s - y``, ``1 + i`` is ``i + 1``.  In
    the fingerprinted text only: Python adds strings and lists in the order written, and evaluates operands left
    to right.  A product's numbers are one number, last (``2 * 1.5 * y`` is ``y * 3``); its other factors keep
    their order: ordering them too found one more copied cell in module 09's cohort, and one more false pair in
    each of module 05's third cohort and module 01b's second."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Mult):
            factors = self._factors(node)
            numbers = [f for f in factors if _is_number(f)]
            if not numbers or (len(numbers) == 1 and factors[-1] is numbers[0]):
                return node
            product = math.prod(f.value for f in numbers)
            out = [f for f in factors if not _is_number(f)] + [ast.Constant(_plain_number(product))]
            tree = out[0]
            for factor in out[1:]:
                tree = ast.BinOp(tree, ast.Mult(), factor)
            return ast.copy_location(tree, node)
        if not isinstance(node.op, (ast.Add, ast.Sub)):
            return node
        terms = sorted(self._terms(node, False), key=lambda t: (isinstance(t[1], ast.Constant), t[0], ast.unparse(t[1])))
        negated, first = terms[0]
        out = ast.UnaryOp(ast.USub(), first) if negated else first
        for negated, term in terms[1:]:
            out = ast.BinOp(out, ast.Sub() if negated else ast.Add(), term)
        return ast.copy_location(out, node)

    def _factors(self, node: ast.expr) -> list[ast.expr]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            return self._factors(node.left) + self._factors(node.right)
        return [node]

    def _terms(self, node: ast.expr, negated: bool) -> list[tuple[bool, ast.expr]]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self._terms(node.left, negated) + self._terms(node.right, negated ^ isinstance(node.op, ast.Sub))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self._terms(node.operand, not negated)
        return [(negated, node)]


#: Spellings that give the same on the tensors, modules and numbers of a training loop but not in every program
#: (``len(t)`` of a 0-d tensor raises where ``t.shape[0]`` raises another error), so folded in the fingerprinted
#: text only (:class:`_Near`); ``tests/test_similarity.py`` evaluates both of each entry and fingerprints the one
#: as the other.  ``t.shape[0]`` is left apart from ``len(t)``: the course's answers write ``len``, and folding
#: the one into the other turns a copier's own lines into the course's (measured: fewer disguised cells found in
#: every cohort of modules 04 and 05, none more anywhere).
NEAR: list[tuple[str, str, str]] = [
    ("t.__len__() is len(t)", "a.__len__()", "len(a)"),
    ("t.ndim is t.dim()", "a.ndim", "a.dim()"),
    ("float(t) is t.item()", "float(a.sum())", "a.sum().item()"),
    ("t.sum() / t.numel() is t.mean()", "a.sum() / a.numel()", "a.mean()"),
    ("isnan(x) or isinf(x) is not isfinite(x)", "math.isnan(x) or math.isinf(x)", "not math.isfinite(x)"),
    ("isnan(x) or isinf(x) is not isfinite(x)", "torch.isinf(a.sum()) or torch.isnan(a.sum())",
     "not a.sum().isfinite()"),
    ("next(iter(xs)) and list(xs)[0] are next(xs)", "next(iter(m.parameters()))", "next(m.parameters())"),
    ("next(iter(xs)) and list(xs)[0] are next(xs)", "list(m.parameters())[0]", "next(m.parameters())"),
    ("torch.linalg.norm(t) is t.norm()", "torch.linalg.norm(a)", "a.norm()"),
    ("c is False is not c, c is True is c", "x is False", "not x"),
    ("torch.inference_mode() and torch.set_grad_enabled(False) are torch.no_grad()", "torch.inference_mode()",
     "torch.no_grad()"),
    ("torch.inference_mode() and torch.set_grad_enabled(False) are torch.no_grad()", "torch.set_grad_enabled(False)",
     "torch.no_grad()"),
    ("t.flatten() is t.reshape(-1)", "a.flatten()", "a.reshape(-1)"),
    ("t.square() is t ** 2", "a.square()", "a ** 2"),
    ("abs(t) is t.abs()", "abs(a)", "a.abs()"),
    ("t.clone().detach() is t.detach().clone()", "a.clone().detach()", "a.detach().clone()"),
    ("t.new_zeros(n) is torch.zeros(n) (t's dtype and device)", "a.new_zeros(3)", "torch.zeros(3)"),
    ("a factory's dtype and device are where it is made, not what", "torch.zeros(3, dtype=a.dtype, device=a.device)",
     "torch.zeros(3)"),
    ("lambda k: d[k] is d.get (as a key)", "max(d, key=lambda k: d[k])", "max(d, key=d.get)"),
    ("t.t(), t.transpose(0, 1), t.mT and torch.t(t) are t.T (a matrix's)", "a.t()", "a.T"),
    ("t.t(), t.transpose(0, 1), t.mT and torch.t(t) are t.T (a matrix's)", "a.transpose(0, 1)", "a.T"),
    ("t.t(), t.transpose(0, 1), t.mT and torch.t(t) are t.T (a matrix's)", "a.mT", "a.T"),
    ("t.t(), t.transpose(0, 1), t.mT and torch.t(t) are t.T (a matrix's)", "torch.t(a)", "a.T"),
    ("torch.mm(t, u) and t.mm(u) are t @ u (matrices)", "torch.mm(a, a.T)", "a @ a.T"),
    ("torch.mm(t, u) and t.mm(u) are t @ u (matrices)", "a.mm(a.T)", "a @ a.T"),
    ("torch.einsum of two matrices into one is their product (or their transposes')",
     "torch.einsum('nh,nd->hd', a, a)", "a.T @ a"),
    ("torch.einsum of two matrices into one is their product (or their transposes')",
     "torch.einsum('ij,kj->ik', a, a)", "a @ a.T"),
    ("torch.einsum of two matrices into one is their product (or their transposes')",
     "torch.einsum('ij,jk->ik', a, a.T)", "a @ a.T"),
    ("keepdim=False is a reduction's default", "a.sum(0, keepdim=False)", "a.sum(0)"),
    ("t.data is t.detach() (read)", "a.data", "a.detach()"),
    ("torch.clone(t) is t.clone()", "torch.clone(a)", "a.clone()"),
    ("t.add(u) whose value is used is t + u", "a.add(a.exp())", "a + a.exp()"),
    ("other= is the first argument of t.add/sub/mul/div", "a.add(other=a, alpha=2)", "a.add(a, alpha=2)"),
    ("t * t is t ** 2", "a * a", "a ** 2"),
    ("dict(zip(keys, values)) of two literals is the dict literal", "dict(zip(('p', 'q'), (a.sum(), x)))",
     "{'p': a.sum(), 'q': x}"),
    ("t[None] and t[None, :] are t.unsqueeze(0), t[:, None] t.unsqueeze(1)", "a[None]", "a.unsqueeze(0)"),
    ("t[None] and t[None, :] are t.unsqueeze(0), t[:, None] t.unsqueeze(1)", "a[None, :]", "a.unsqueeze(0)"),
    ("t[None] and t[None, :] are t.unsqueeze(0), t[:, None] t.unsqueeze(1)", "a[:, None]", "a.unsqueeze(1)"),
    ("axis= is dim=, correction=0 unbiased=False", "a.std(axis=0, correction=0)", "a.std(dim=0, unbiased=False)"),
    ("axis= is dim=, correction=0 unbiased=False", "a.var(0, correction=1)", "a.var(0)"),
    ("a reduction's keepdim by position is keepdim=", "a.mean(0, True)", "a.mean(0, keepdim=True)"),
    ("an einsum that sums a matrix is its sum", "torch.einsum('nd->d', a)", "a.sum(0)"),
    ("an einsum that sums a matrix is its sum", "torch.einsum('nd->n', a)", "a.sum(1)"),
    ("an einsum that sums a matrix is its sum", "torch.einsum('nd->', a)", "a.sum()"),
    ("an einsum of two vectors into a matrix is their outer product", "torch.einsum('i,j->ij', a[0], a[1])",
     "torch.outer(a[0], a[1])"),
    ("an einsum of two matrices summed over one dimension is their product's sum",
     "torch.einsum('nd,nd->d', a, a.exp())", "(a * a.exp()).sum(0)"),
    ("an einsum of two matrices summed over one dimension is their product's sum", "torch.einsum('ij,ij->i', a, a)",
     "(a ** 2).sum(1)"),
    ("an einsum's letters are its writer's", "torch.einsum('ij,jk,kl->il', a, a.T, a)",
     "torch.einsum('pq,qr,rs->ps', a, a.T, a)"),
]

_REDUCTIONS = {"sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "norm", "any", "all", "logsumexp"}
_ARITHMETIC = {"add", "sub", "mul", "div", "add_", "sub_", "mul_", "div_"}


#: Reductions whose second positional parameter is ``keepdim``.
_KEEPDIM_SECOND = {"sum", "mean", "amax", "amin", "logsumexp", "nansum", "nanmean"}


def _reduction_keywords(node: ast.Call) -> None:
    """A reduction's arguments in one form, in place: ``axis=`` is ``dim=``; ``keepdim`` by position is
    ``keepdim=``, and ``keepdim=False`` goes (the default); ``correction=0`` is ``unbiased=False``, and
    ``correction=1`` and ``unbiased=True`` go (the defaults).  ``dim=`` stays a keyword where it is written so:
    passing it by position as well made the course's ``mean(dim=0, keepdim=True)`` a student's and lost module
    09's cohort a copied cell (and found one more in module 01's)."""
    f = node.func
    for k in node.keywords:
        if k.arg == "axis":
            k.arg = "dim"
    if f.attr in _KEEPDIM_SECOND and len(node.args) == 2 and not _is_torch(f.value):
        node.keywords.append(ast.keyword("keepdim", node.args.pop()))
    for k in node.keywords:
        if k.arg == "correction" and isinstance(k.value, ast.Constant) and k.value.value in (0, 1):
            k.arg, k.value = "unbiased", ast.Constant(bool(k.value.value))
    node.keywords = [k for k in node.keywords if not (isinstance(k.value, ast.Constant) and (
        (k.arg == "keepdim" and k.value.value is False) or (k.arg == "unbiased" and k.value.value is True)))]


def _einsum_product(node: ast.Call) -> ast.AST | None:
    """``torch.einsum('ij,jk->ik', a, b)`` (two matrices contracted over one index into a matrix) as ``a @ b``,
    each operand transposed where its indices say so; ``None`` for any other einsum."""
    if len(node.args) != 3 or node.keywords or not isinstance(node.args[0], ast.Constant) or not isinstance(
            node.args[0].value, str):
        return None
    spec = node.args[0].value.replace(" ", "")
    if spec.count("->") != 1:
        return None
    ins, out = spec.split("->")
    parts = ins.split(",")
    if len(parts) != 2 or any(len(p) != 2 or len(set(p)) != 2 for p in parts) or len(out) != 2:
        return None
    (a, b), shared = parts, set(parts[0]) & set(parts[1])
    if len(shared) != 1:
        return None
    (c,) = shared
    free_a, free_b = a.replace(c, ""), b.replace(c, "")
    if out != free_a + free_b:
        return None
    left, right = node.args[1], node.args[2]
    if a[0] == c:
        left = ast.Attribute(left, "T", ast.Load())
    if b[1] == c:
        right = ast.Attribute(right, "T", ast.Load())
    return ast.copy_location(ast.BinOp(left, ast.MatMult(), right), node)

def _new_axis(index: ast.AST) -> int | None:
    """Where ``t[index]`` puts a new axis when that is all it does: ``t[None]`` and ``t[None, :]`` 0,
    ``t[:, None]`` 1; else None."""
    def full(e: ast.AST) -> bool:
        return isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None

    def none(e: ast.AST) -> bool:
        return isinstance(e, ast.Constant) and e.value is None

    items = index.elts if isinstance(index, ast.Tuple) else [index]
    if none(items[0]) and all(map(full, items[1:])):
        return 0
    if len(items) == 2 and full(items[0]) and none(items[1]):
        return 1
    return None


def _einsum_spec(node: ast.Call) -> tuple[list[str], str] | None:
    """``(operands' subscripts, output's)`` of an einsum written with a literal spec and ``->``, else None."""
    if node.keywords or len(node.args) < 2 or not isinstance(node.args[0], ast.Constant) or not isinstance(
            node.args[0].value, str) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    spec = node.args[0].value.replace(" ", "")
    if spec.count("->") != 1 or "." in spec:
        return None
    ins, out = spec.split("->")
    parts = ins.split(",")
    if len(parts) != len(node.args) - 1 or any(len(set(p)) != len(p) for p in parts):
        return None
    return parts, out


def _einsum_lettered(node: ast.Call) -> None:
    """An einsum's subscripts renamed in the order they first appear (``'nd,nd->d'`` is ``'ab,ab->b'``): the
    letters are its writer's choice.  In place."""
    found = _einsum_spec(node)
    if found is None:
        return
    parts, out = found
    letters: dict[str, str] = {}
    for ch in "".join(parts) + out:
        letters.setdefault(ch, "abcdefghijklmnopqrstuvwxyz"[len(letters) % 26])
    node.args[0] = ast.copy_location(ast.Constant(
        ",".join("".join(letters[c] for c in p) for p in parts) + "->" + "".join(letters[c] for c in out)), node.args[0])


def _einsum_reduced(node: ast.Call) -> ast.AST | None:
    """An einsum that is a sum, an outer product or a sum of a product over one dimension of two matrices, as
    that: ``'ij->j'`` is ``t.sum(0)``, ``'ij->i'`` ``t.sum(1)``, ``'ij->'`` ``t.sum()``, ``'i,j->ij'``
    ``torch.outer(u, w)``, ``'ij,ij->j'`` ``(t * u).sum(0)`` (``t ** 2`` when both are one tensor); None for
    any other."""
    found = _einsum_spec(node)
    if found is None:
        return None
    parts, out = found
    operands = node.args[1:]

    def summed(t: ast.expr, dim: int | None) -> ast.expr:
        return ast.Call(ast.Attribute(t, "sum", ast.Load()), [] if dim is None else [ast.Constant(dim)], [])

    if len(parts) == 1 and len(parts[0]) == 2 and out in ("", parts[0][1], parts[0][0]):
        return ast.copy_location(summed(operands[0], None if not out else (0 if out == parts[0][1] else 1)), node)
    if len(parts) == 2 and list(map(len, parts)) == [1, 1] and parts[0] != parts[1] and out == parts[0] + parts[1]:
        return ast.copy_location(ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), "outer", ast.Load()),
                                          list(operands), []), node)
    if len(parts) == 2 and len(parts[0]) == 2 and parts[0] == parts[1] and out in ("", parts[0][1], parts[0][0]):
        first, second = operands
        product = (ast.BinOp(first, ast.Pow(), ast.Constant(2)) if ast.dump(first) == ast.dump(second)
                   else ast.BinOp(first, ast.Mult(), second))
        return ast.copy_location(summed(product, None if not out else (0 if out == parts[0][1] else 1)), node)
    return None


_FACTORIES = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange", "eye"}
_NEW_FACTORIES = {"new_zeros", "new_ones", "new_empty", "new_full"}

_OPPOSITE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
             ast.NotIn: ast.In, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}


_OTHER_SIGN = {ast.Add: ast.Sub, ast.Sub: ast.Add}


def _negated_twice(node: ast.AST) -> bool:
    """``not not e``."""
    return all(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)
               for n in (node, getattr(node, "operand", None)))


def _negated(node: ast.AST) -> bool:
    """``-e``: a negation written out (``a + -b`` adds what ``a - b`` subtracts)."""
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)


class _Near(ast.NodeTransformer):
    """Spellings that do the same in a training loop but not in every program, folded in the fingerprinted text
    only (the normalised program keeps them): ``m.forward(x)`` is ``m(x)`` (hooks aside), ``t.view_as(u)``,
    ``t.view(u.shape)`` and ``t.reshape(u.shape)`` are one reshape (contiguity aside), ``float(t)`` is
    ``t.item()`` (a one-element tensor's), ``zero_grad(set_to_none=True)`` is ``zero_grad()`` (torch 2's default),
    ``not a == b`` is ``a != b`` (and each comparison its opposite), ``not (a or b)`` is ``not a and not b`` (a
    negation pushed in to the tests it is made of), keyword arguments and a dict's string keys
    in one order (their evaluation order aside), ``float("inf")`` is ``math.inf``; a choice between two tensors or
    two branches (``torch.where``, ``if``/``else``) on its test's strict side: ``where(z <= 0, a, b)`` is
    ``where(0 < z, b, a)``, ``where(~m, a, b)`` is ``where(m, b, a)`` (NaN aside).  A conditional expression keeps
    its side: turning it made students' own lines the lessons' (module 06's cohort: two copied pairs lost)."""

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        while _negated_twice(node.test):
            node.test = node.test.operand.operand  # if not not c: is if c: (a test reads its truth only)
        turned = _turned(node.test)
        if node.orelse and turned is not None:
            node.test, node.body, node.orelse = turned, node.orelse, node.body
        one, other = (node.body[0], node.orelse[0]) if len(node.body) == len(node.orelse) == 1 else (None, None)
        if isinstance(one, ast.AugAssign) and isinstance(other, ast.AugAssign) and type(one.op) is type(other.op) and (
                ast.dump(one.target) == ast.dump(other.target)) and _plain_target(one.target):
            value = ast.copy_location(ast.IfExp(node.test, one.value, other.value), node)
            return ast.copy_location(ast.AugAssign(one.target, one.op, value), node)  # x += a if c else b
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        self.generic_visit(node)
        parts = []
        for part in node.values:  # f"{f'a{x}'}b" is f"a{x}b"
            if isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.JoinedStr) and part.conversion == -1 \
                    and part.format_spec is None:
                parts += part.value.values
            else:
                parts.append(part)
        merged: list = []
        for part in parts:  # neighbouring literal parts are one
            if merged and isinstance(part, ast.Constant) and isinstance(merged[-1], ast.Constant):
                merged[-1] = ast.Constant(merged[-1].value + part.value)
            else:
                merged.append(part)
        node.values = merged
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        statement = getattr(node, "_statement", False)
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and _is_torch(f.value) and f.attr == "where" and len(node.args) == 3 and not (
                node.keywords):
            turned = _turned(node.args[0], tensor=True)
            if turned is not None:
                node.args = [turned, node.args[2], node.args[1]]
        if (isinstance(f, ast.Name) and f.id == "dict" and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Call) and isinstance(node.args[0].func, ast.Name)
                and node.args[0].func.id == "zip" and len(node.args[0].args) == 2 and not node.args[0].keywords
                and all(isinstance(a, (ast.Tuple, ast.List)) for a in node.args[0].args)
                and len(node.args[0].args[0].elts) == len(node.args[0].args[1].elts)
                and not any(isinstance(e, ast.Starred) for a in node.args[0].args for e in a.elts)):
            keys, values = node.args[0].args
            return self.visit(ast.copy_location(ast.Dict(list(keys.elts), list(values.elts)), node))
        if isinstance(f, ast.Attribute) and _is_torch(f.value) and f.attr == "einsum":
            product = _einsum_product(node)
            if product is None:
                product = _einsum_reduced(node)
            if product is not None:
                return self.visit(product)
            _einsum_lettered(node)
        if isinstance(f, ast.Attribute) and f.attr == "t" and not node.keywords and (
                (not node.args and not _is_torch(f.value)) or (_is_torch(f.value) and len(node.args) == 1)):
            return ast.copy_location(ast.Attribute(node.args[0] if node.args else f.value, "T", ast.Load()), node)
        if isinstance(f, ast.Attribute) and f.attr == "transpose" and not node.keywords and [
                a.value if isinstance(a, ast.Constant) else None for a in node.args] == [0, 1]:
            return ast.copy_location(ast.Attribute(f.value, "T", ast.Load()), node)
        if isinstance(f, ast.Attribute) and f.attr == "mm" and not node.keywords and (
                (_is_torch(f.value) and len(node.args) == 2) or (not _is_torch(f.value) and len(node.args) == 1)):
            left, right = node.args if _is_torch(f.value) else (f.value, node.args[0])
            return ast.copy_location(ast.BinOp(left, ast.MatMult(), right), node)
        if isinstance(f, ast.Attribute) and _is_torch(f.value) and f.attr == "clone" and len(node.args) == 1 and (
                not node.keywords):
            return ast.copy_location(ast.Call(ast.Attribute(node.args[0], "clone", ast.Load()), [], []), node)
        if isinstance(f, ast.Attribute) and f.attr in _REDUCTIONS:
            _reduction_keywords(node)
        if isinstance(f, ast.Attribute) and f.attr in _ARITHMETIC and not node.args:
            other = next((k for k in node.keywords if k.arg == "other"), None)
            if other is not None:
                node.args, node.keywords = [other.value], [k for k in node.keywords if k is not other]
        if (isinstance(f, ast.Attribute) and f.attr == "add" and not statement and len(node.args) == 1
                and not node.keywords and not isinstance(node.args[0], ast.Starred) and not _is_torch(f.value)):
            return self.visit(ast.copy_location(ast.BinOp(f.value, ast.Add(), node.args[0]), node))  # not a set's
        if isinstance(f, ast.Attribute) and f.attr == "train" and len(node.args) == 1 and not node.keywords:
            mode = node.args[0]
            if isinstance(mode, ast.Call) and isinstance(mode.func, ast.Name) and mode.func.id == "bool" and len(
                    mode.args) == 1 and not mode.keywords:
                node.args = [mode.args[0]]  # a mode that is already a flag, made one
        if isinstance(f, ast.Attribute) and f.attr == "zero_grad" and not node.args and len(node.keywords) == 1 and (
                node.keywords[0].arg == "set_to_none" and isinstance(node.keywords[0].value, ast.Constant)
                and node.keywords[0].value.value is True):
            node.keywords = []  # the default since torch 2.0
        if isinstance(f, ast.Name) and f.id == "float" and len(node.args) == 1 and not node.keywords and isinstance(
                node.args[0], ast.Constant) and str(node.args[0].value).strip().lower() in ("inf", "-inf", "nan"):
            word = str(node.args[0].value).strip().lower()
            value = ast.Attribute(ast.Name("math", ast.Load()), word.lstrip("-"), ast.Load())
            return ast.copy_location(ast.UnaryOp(ast.USub(), value) if word.startswith("-") else value, node)
        if isinstance(f, ast.Name) and f.id == "float" and len(node.args) == 1 and not node.keywords and not isinstance(
                node.args[0], ast.Constant):
            return ast.copy_location(ast.Call(ast.Attribute(node.args[0], "item", ast.Load()), [], []), node)
        if isinstance(f, ast.Attribute) and _is_torch(f.value) and (
                (f.attr == "inference_mode" and not node.args and not node.keywords) or (
                f.attr == "set_grad_enabled" and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Constant) and node.args[0].value is False)):
            return ast.copy_location(ast.Call(ast.Attribute(f.value, "no_grad", ast.Load()), [], []), node)
        if isinstance(f, ast.Attribute) and not node.args and not node.keywords and f.attr in ("flatten", "square"):
            if f.attr == "flatten":
                return ast.copy_location(ast.Call(ast.Attribute(f.value, "reshape", ast.Load()), [
                    ast.UnaryOp(ast.USub(), ast.Constant(1))], []), node)
            return ast.copy_location(ast.BinOp(f.value, ast.Pow(), ast.Constant(2)), node)
        if isinstance(f, ast.Name) and f.id == "abs" and len(node.args) == 1 and not node.keywords:
            return ast.copy_location(ast.Call(ast.Attribute(node.args[0], "abs", ast.Load()), [], []), node)
        if (isinstance(f, ast.Attribute) and f.attr == "detach" and not node.args and isinstance(f.value, ast.Call)
                and isinstance(f.value.func, ast.Attribute) and f.value.func.attr == "clone" and not f.value.args):
            inner = ast.Call(ast.Attribute(f.value.func.value, "detach", ast.Load()), [], [])
            return ast.copy_location(ast.Call(ast.Attribute(inner, "clone", ast.Load()), [], []), node)
        if isinstance(f, ast.Attribute) and f.attr == "__len__" and not node.args and not node.keywords:
            return ast.copy_location(ast.Call(ast.Name("len", ast.Load()), [f.value], []), node)
        if isinstance(f, ast.Name) and f.id == "next" and len(node.args) == 1 and isinstance(node.args[0], ast.Call) and (
                isinstance(node.args[0].func, ast.Name) and node.args[0].func.id == "iter" and len(node.args[0].args) == 1):
            node.args = node.args[0].args  # next(iter(xs)) is next(xs) (xs an iterator: parameters())
        if (isinstance(f, ast.Attribute) and f.attr == "norm" and isinstance(f.value, ast.Attribute)
                and f.value.attr == "linalg" and _is_torch(f.value.value) and len(node.args) == 1 and not node.keywords):
            return ast.copy_location(ast.Call(ast.Attribute(node.args[0], "norm", ast.Load()), [], []), node)
        if isinstance(f, ast.Attribute) and f.attr in _NEW_FACTORIES and not _is_torch(f.value):
            f = ast.Attribute(ast.Name("torch", ast.Load()), f.attr[len("new_"):], ast.Load())
            node = ast.copy_location(ast.Call(f, node.args, node.keywords), node)  # x.new_zeros(n) is torch.zeros(n)
        if isinstance(f, ast.Attribute) and f.attr in _FACTORIES and _is_torch(f.value) and node.keywords:
            node.keywords = [k for k in node.keywords if k.arg not in ("dtype", "device")]  # where, not what
        if isinstance(f, ast.Name) and f.id in ("dict", "list") and not node.args and not node.keywords:
            return ast.copy_location(ast.Dict([], []) if f.id == "dict" else ast.List([], ast.Load()), node)
        if len(node.keywords) > 1 and all(k.arg for k in node.keywords):
            node.keywords = sorted(node.keywords, key=lambda k: k.arg)
        if isinstance(f, ast.Attribute) and f.attr == "forward":
            return ast.copy_location(ast.Call(f.value, node.args, node.keywords), node)
        if isinstance(f, ast.Attribute) and len(node.args) == 1 and not node.keywords:
            if f.attr == "view_as":
                shape = ast.Attribute(node.args[0], "shape", ast.Load())
                return ast.copy_location(ast.Call(ast.Attribute(f.value, "reshape", ast.Load()), [shape], []), node)
            if f.attr == "view":
                return ast.copy_location(ast.Call(ast.Attribute(f.value, "reshape", ast.Load()), node.args, []), node)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        test = node.operand
        if isinstance(node.op, ast.Not) and isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and (
                test.func.id in ("any", "all") and len(test.args) == 1 and isinstance(test.args[0], ast.GeneratorExp)):
            g = test.args[0]  # not any(c for x in xs) is all(not c for x in xs)
            flipped = ast.GeneratorExp(ast.UnaryOp(ast.Not(), g.elt), g.generators)
            call = ast.Call(ast.Name("all" if test.func.id == "any" else "any", ast.Load()), [flipped], [])
            return self.visit(ast.copy_location(call, node))
        if isinstance(node.op, ast.Not) and isinstance(test, ast.BoolOp):  # not (a or b) is not a and not b
            return self.visit(ast.copy_location(ast.BoolOp(ast.Or() if isinstance(test.op, ast.And) else ast.And(), [
                ast.copy_location(ast.UnaryOp(ast.Not(), v), v) for v in test.values]), node))
        self.generic_visit(node)
        test = node.operand
        if isinstance(node.op, ast.Not) and isinstance(test, ast.Compare) and len(test.ops) == 1 and type(
                test.ops[0]) in _OPPOSITE:
            return _one_way(ast.copy_location(
                ast.Compare(test.left, [_OPPOSITE[type(test.ops[0])]()], test.comparators), node))
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.Eq, ast.IsNot, ast.NotEq)) and isinstance(
                node.comparators[0], ast.Constant) and type(node.comparators[0].value) is bool:
            truth = node.comparators[0].value == isinstance(node.ops[0], (ast.Is, ast.Eq))
            return node.left if truth else ast.copy_location(ast.UnaryOp(ast.Not(), node.left), node)  # c is False
        return _one_way(node)

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        a, body = node.args, node.body
        if (len(a.args) == 1 and not (a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults)
                and isinstance(body, ast.Subscript) and isinstance(body.slice, ast.Name)
                and body.slice.id == a.args[0].arg and isinstance(body.value, ast.Name)):
            return ast.copy_location(ast.Attribute(body.value, "get", ast.Load()), node)  # key=lambda k: d[k]
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        v, i = node.value, node.slice
        if isinstance(node.ctx, ast.Load) and _new_axis(i) is not None:
            return ast.copy_location(ast.Call(ast.Attribute(v, "unsqueeze", ast.Load()), [ast.Constant(_new_axis(i))],
                                              []), node)
        if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "list" and len(v.args) == 1
                and isinstance(i, ast.Constant) and i.value == 0):
            return ast.copy_location(ast.Call(ast.Name("next", ast.Load()), v.args, []), node)  # list(xs)[0]
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if node.attr == "ndim" and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Call(ast.Attribute(node.value, "dim", ast.Load()), [], []), node)
        if node.attr == "mT" and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Attribute(node.value, "T", ast.Load()), node)
        if node.attr == "data" and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Call(ast.Attribute(node.value, "detach", ast.Load()), [], []), node)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        checks = [_check_of(v) for v in node.values]
        if isinstance(node.op, ast.Or) and len(checks) == 2 and None not in checks and {c[0] for c in checks} == {
                "isnan", "isinf"} and [(c[1], ast.dump(c[2])) for c in checks].count(
                (checks[0][1], ast.dump(checks[0][2]))) == 2:
            _, owner, operand = checks[0]
            if owner is None:
                finite = ast.Call(ast.Attribute(operand, "isfinite", ast.Load()), [], [])
            else:
                finite = ast.Call(ast.Attribute(ast.Name(owner, ast.Load()), "isfinite", ast.Load()), [operand], [])
            return ast.copy_location(ast.UnaryOp(ast.Not(), finite), node)  # isnan(x) or isinf(x)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Div) and all(
                isinstance(s, ast.Call) and isinstance(s.func, ast.Attribute) and not s.args and not s.keywords
                for s in (node.left, node.right)) and (node.left.func.attr, node.right.func.attr) == (
                "sum", "numel") and ast.dump(node.left.func.value) == ast.dump(node.right.func.value):
            return ast.copy_location(ast.Call(ast.Attribute(node.left.func.value, "mean", ast.Load()), [], []), node)
        if isinstance(node.op, ast.Sub) and _number(node.left) and node.left.value == 0:
            return ast.copy_location(ast.UnaryOp(ast.USub(), node.right), node)  # 0 - x is -x
        if isinstance(node.op, (ast.Add, ast.Sub)) and _negated(node.right):
            node.op, node.right = _OTHER_SIGN[type(node.op)](), node.right.operand  # a + -b is a - b
        if isinstance(node.op, (ast.Mult, ast.Add)) and _number(node.left) and not _number(node.right):
            node.left, node.right = node.right, node.left  # 0.1 * x is x * 0.1
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Sub)) and _negated(node.value):
            node.op, node.value = _OTHER_SIGN[type(node.op)](), node.value.operand  # x += -d is x -= d
        v = node.value
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add) and isinstance(v, ast.List) and len(
                v.elts) == 1 and not isinstance(v.elts[0], ast.Starred):
            return _method_call(node, node.target, "append", v.elts[0])  # xs += [x] is xs.append(x)
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.BitOr) and isinstance(v, ast.Set) and len(
                v.elts) == 1 and not isinstance(v.elts[0], ast.Starred):
            return _method_call(node, node.target, "add", v.elts[0])  # s |= {x} is s.add(x)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        v = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(v, ast.BinOp) and isinstance(
                v.op, ast.Add) and isinstance(v.left, ast.Name) and v.left.id == node.targets[0].id and isinstance(
                v.right, ast.List) and len(v.right.elts) == 1 and not isinstance(v.right.elts[0], ast.Starred):
            return _method_call(node, node.targets[0], "append", v.right.elts[0])  # xs = xs + [x]
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        node.value._statement = True  # a call whose value no one reads: s.add(x) may be a set's
        self.generic_visit(node)
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and len(call.args) == 1
                and not call.keywords):
            return node
        owner, arg = call.func.value, call.args[0]
        if call.func.attr == "update" and isinstance(arg, ast.Dict) and arg.keys and None not in arg.keys:
            return [ast.copy_location(ast.Assign([ast.Subscript(copy.deepcopy(owner), k, ast.Store())], v), node)
                    for k, v in zip(arg.keys, arg.values)]  # d.update({k: v, ...}) is d[k] = v, ...
        if call.func.attr in ("extend", "update") and isinstance(arg, (ast.List, ast.Set, ast.Tuple)) and len(
                arg.elts) == 1 and not isinstance(arg.elts[0], ast.Starred):
            verb = "append" if call.func.attr == "extend" else "add"  # xs.extend([x]), s.update({x})
            return _method_call(node, owner, verb, arg.elts[0])
        return node

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        self.generic_visit(node)
        if node.keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
            pairs = sorted(zip(node.keys, node.values), key=lambda kv: kv[0].value)
            node.keys, node.values = [k for k, _ in pairs], [v for _, v in pairs]
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if type(node.value) is float and node.value.is_integer() and abs(node.value) < 2 ** 53:
            return ast.copy_location(ast.Constant(int(node.value)), node)  # 0.0 and 0 start a sum alike
        return node


_MIRROR = {ast.Eq: ast.Eq, ast.NotEq: ast.NotEq, ast.Is: ast.Is, ast.IsNot: ast.IsNot, ast.Lt: ast.Gt,
           ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


def _check_of(node: ast.AST) -> tuple[str, str | None, ast.AST] | None:
    """``("isnan", "math", x)`` for ``math.isnan(x)``, ``("isinf", None, t)`` for ``t.isinf()``; else ``None``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
            "isnan", "isinf") and not node.keywords):
        return None
    f = node.func
    if len(node.args) == 1 and isinstance(f.value, ast.Name) and f.value.id in ("math", "np", "numpy"):
        return f.attr, f.value.id, node.args[0]
    if not node.args:
        return f.attr, None, f.value
    return None


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _turned(test: ast.AST, tensor: bool = False) -> ast.AST | None:
    """The negation of a choice's ``test`` when the negation is the side choices are written on (a strict
    comparison, ``==``, ``is``, ``in``, a test without ``not``), else None: ``a <= b`` is turned to ``b < a``,
    ``a != b`` to ``a == b``, ``not c`` (and, on a tensor, ``~c``) to ``c``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in (
            ast.LtE, ast.GtE, ast.NotEq, ast.IsNot, ast.NotIn):
        return _one_way(ast.copy_location(ast.Compare(test.left, [_OPPOSITE[type(test.ops[0])]()], test.comparators),
                                          test))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, (ast.Not, ast.Invert) if tensor else ast.Not):
        return test.operand
    return None


def _one_way(node: ast.Compare) -> ast.Compare:
    """One comparison written one way: ``a > b`` is ``b < a``, and ``None is x`` or ``0 == x`` has its
    constant on the right."""
    if len(node.ops) != 1 or type(node.ops[0]) not in _MIRROR:
        return node
    op, left, right = type(node.ops[0]), node.left, node.comparators[0]
    if op in (ast.Gt, ast.GtE) or (isinstance(left, ast.Constant) and not isinstance(right, ast.Constant)
                                   and op not in (ast.Lt, ast.LtE)):
        node.left, node.ops, node.comparators = right, [_MIRROR[op]()], [left]
    return node


def _method_call(node: ast.AST, owner: ast.AST, verb: str, arg: ast.AST) -> ast.Expr:
    call = ast.Call(ast.Attribute(ast.Name(owner.id, ast.Load()) if isinstance(owner, ast.Name) else owner, verb,
                                  ast.Load()), [arg], [])
    return ast.copy_location(ast.Expr(call), node)


_LOGGING = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}


def _noise(stmt: ast.stmt) -> bool:
    """A statement that reports and does nothing the answer returns: an ``assert``, a call of ``print``,
    ``pprint``, ``logging``/a logger (``log.info(...)``) or ``warnings.warn``."""
    if isinstance(stmt, ast.Assert):
        return True
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    f = stmt.value.func
    if isinstance(f, ast.Name):
        return f.id in ("print", "pprint")
    return isinstance(f, ast.Attribute) and f.attr in _LOGGING | {"pprint"} and isinstance(f.value, ast.Name)


def _reraises(handler: ast.ExceptHandler) -> bool:
    return len(handler.body) == 1 and isinstance(handler.body[0], ast.Raise)


def _header(stmt: ast.stmt) -> str:
    bare = copy.copy(stmt)
    for name in ("body", "orelse", "finalbody", "handlers"):
        if hasattr(bare, name):
            setattr(bare, name, [ast.Pass()] if name == "body" else [])
    if hasattr(bare, "decorator_list"):
        bare.decorator_list = []
    return ast.unparse(bare).splitlines()[0]


def _span(stmt: ast.AST, line: int, header: bool = False) -> frozenset[int]:
    """The submitted lines a fingerprinted line holds: its statement's, and those of every temporary folded into
    it (a folded expression keeps its own line); of a block's header, the header's parts only."""
    parts = [getattr(stmt, f) for f in stmt._fields if not header or f not in (
        "body", "orelse", "finalbody", "handlers", "decorator_list")]
    nodes = [n for p in parts for v in (p if isinstance(p, list) else [p]) if isinstance(v, ast.AST) for n in ast.walk(v)]
    return frozenset({line} | {n.lineno for n in nodes if isinstance(getattr(n, "lineno", None), int) and n.lineno > 0})


def fingerprint_lines(tree: ast.Module, variables: set[str] | None = None, keep=None,
                      spans: list | None = None) -> list[tuple[str, int]]:
    """The lines of the normalised ``tree`` as they are fingerprinted, each with the line of the submitted
    cell it came from: every variable ``v`` (the numbered locals, and the names in ``variables``, a lesson's
    globals; imported names, builtins and attributes stay), no indentation, ``x += e`` written ``x = x + e``.
    ``spans``, when given, receives each line's submitted lines (:func:`_span`), in the same order."""
    out: list[tuple[str, int, frozenset]] = []

    def emit(body: list[ast.stmt]) -> None:
        for stmt in body:
            line = getattr(stmt, "lineno", 0)
            if _noise(stmt):
                aside.append((ast.unparse(stmt), line, frozenset({line})))
                continue
            if isinstance(stmt, ast.Try) and all(map(_reraises, stmt.handlers)) and not stmt.orelse:
                emit(stmt.body)  # a try whose every handler raises again wraps nothing but its body: the body,
                emit(stmt.finalbody)  # then what its finally does (as it does after the body)
                continue
            for check, rest in (("body", "orelse"), ("orelse", "body")):
                if isinstance(stmt, ast.If) and [type(s) for s in getattr(stmt, check)] == [ast.Raise]:
                    raised = getattr(stmt, check)[0]
                    test = stmt.test if check == "body" else _Near().visit(ast.UnaryOp(ast.Not(), copy.deepcopy(stmt.test)))
                    at = getattr(raised, "lineno", line)
                    aside.extend([(f"if {ast.unparse(test)}:", line, frozenset({line})),
                                  (ast.unparse(raised), at, frozenset({at}))])
                    emit(getattr(stmt, rest))  # an argument check: what runs is what follows it
                    break
            else:
                emit_one(stmt, line)

    def emit_one(stmt: ast.stmt, line: int) -> None:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            written = ast.fix_missing_locations(ast.copy_location(ast.Assign(
                [stmt.target], ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value)), stmt))
            out.append((ast.unparse(_Ordered().visit(written)), line, _span(stmt, line)))
        elif any(isinstance(getattr(stmt, n, None), list) for n in ("body", "handlers")) and not isinstance(
                stmt, ast.Lambda):
            out.append((_header(stmt), line, _span(stmt, line, header=True)))
            emit(stmt.body)
            for handler in getattr(stmt, "handlers", ()):
                at = getattr(handler, "lineno", line)
                out.append((_header(handler), at, _span(handler, at, header=True)))
                emit(handler.body)
            if getattr(stmt, "orelse", None):
                at = getattr(stmt.orelse[0], "lineno", line)
                out.append(("else:", at, frozenset({at})))
                emit(stmt.orelse)
            if getattr(stmt, "finalbody", None):
                at = getattr(stmt.finalbody[0], "lineno", line)
                out.append(("finally:", at, frozenset({at})))
                emit(stmt.finalbody)
        else:
            out.append((ast.unparse(stmt), line, _span(stmt, line)))

    aside: list[tuple[str, int, frozenset]] = []  # asserts, prints, logging and argument checks: after the code
    body = _folded_tree(tree, variables, keep).body  # they interrupt
    if any(isinstance(s, ast.Assign) for s in tree.body):  # a constant the cell names once, read where it is used
        loads, modules = _loads(tree), _imported(tree)
        body = [s for s in body if not (module_constant(s, modules) and not loads.get(module_constant(s, modules)))]
    emit(body)
    if spans is not None:
        spans.extend(span for *_, span in out + aside)
    return [(text, line) for text, line, _ in out + aside]


def folded(tree: ast.Module, variables: set[str] | None = None, keep=None) -> list[str]:
    """The fingerprinted lines of ``tree`` (:func:`fingerprint_lines`) without their line numbers."""
    return [text for text, _ in fingerprint_lines(tree, variables, keep)]


def assigned(tree: ast.AST) -> set[str]:
    """Every name ``tree`` binds: assignments, loop targets, arguments, functions and classes."""
    names = {n.id for n in _walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names |= {n.arg for n in _walk(tree) if isinstance(n, ast.arg)}
    return names | {n.name for n in _walk(tree) if isinstance(n, (*_SCOPES, ast.ClassDef))}
