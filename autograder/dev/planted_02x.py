"""A planted cohort of module 02, its second, written apart from the normaliser and the detector.

The module's graded answers are ``grad_of`` (the gradient of a scalar ``f`` at ``x`` from a tracked copy of
``x``'s values, recording switched on whatever the caller's mode, the caller's ``x`` untouched, the result without
history), ``numerical_grad`` (central differences in float64 with the given ``eps``, shaped like ``x``, the
caller's ``x`` never written), ``grad_report`` (``"none"``/``"zero"``/``"nonzero"`` for every named parameter from
its current ``.grad``, reading only), ``leaves_of`` (the tracked leaves behind ``t``, each once by identity, found by
walking ``t.grad_fn``) and ``stable_softmax`` (the softmax along ``dim`` shifted by each slice's maximum, out of
place and differentiable).

Seventeen honest students answer in their own styles:

- ``honest-01``: ``torch.autograd.grad`` on ``x.detach().clone().requires_grad_(True)``; a clone nudged per probe
  through ``view(-1)``; ``(p.grad == 0).all()`` in an ``if``/``elif``; a nested recursive ``visit`` with a set of
  nodes and ``hasattr(fn, "variable")``; ``max(...).values``.
- ``honest-02``: ``backward()`` on a clone flagged with ``requires_grad = True`` under ``torch.set_grad_enabled``;
  the rows of ``torch.eye`` as basis vectors; a dict comprehension over a nested ``state`` helper with ``g.any()``;
  breadth first with a ``deque``, ``AccumulateGrad`` by type name; a detached ``amax``.
- ``honest-03``: a verbose beginner: comments on every step, ``x.clone().detach()``, ``.item()`` values in a list
  made into a tensor, ``(grad != 0).sum().item()``, a queue walked by position with linear searches by ``is``,
  ``torch.max(...)[0]``.
- ``honest-04``: terse one-liners: ``x.detach().requires_grad_()`` returned from inside ``enable_grad``, a stacked
  comprehension over ``torch.eye(n) * eps``, one conditional dict comprehension with ``count_nonzero``,
  ``[t] * t.requires_grad``, a dict of ids, a two-line softmax.
- ``honest-05``: type hints and docstrings on everything: ``Callable`` imported in each cell that uses it,
  ``to(dtype=torch.float64, copy=True)`` nudged and restored from a saved ``.item()``, a typed ``_state`` helper
  with ``count_nonzero(...).item()``, ``node.name()`` for ``AccumulateGrad``.
- ``honest-06``: defensive: ``TypeError``/``ValueError``/``IndexError`` checks on every argument, keyword
  ``retain_graph``/``create_graph``, ``torch.no_grad()`` around the probes, ``abs().sum().item() == 0.0``, a
  ``RuntimeError`` when an accumulator holds something other than a tracked leaf, asserts on the results.
- ``honest-07``: functional: ``torch.func.grad(f)(x.detach())``, probes built out of place with ``index_add``
  and ``map``, ``dict(map(...))``, a ``functools.reduce`` walk, ``torch.logsumexp`` for the softmax.
- ``honest-08``: NumPy-minded: ``@torch.enable_grad()`` as a decorator, the nudges made in a float64 NumPy copy
  and evaluated through ``torch.from_numpy``, ``np.any(values != 0)``, a list used as a FIFO queue, the sum's
  ``reciprocal``.
- ``honest-09``: ``while`` loops everywhere; ``torch.tensor(x, requires_grad=True)``; ``abs().max() == 0``; an
  index walked over ``next_functions``; a detached ``max(...)[0]``.
- ``honest-10``: small classes and closures: a nested ``tracked`` helper and ``torch.autograd.backward(...,
  inputs=[leaf])``, a ``central`` closure, a ``_GradColumn`` class with ``torch.equal`` against ``zeros_like``, a
  recursive ``_LeafFinder`` class, ``torch.amax``/``torch.sum`` with positional ``dim``.
- ``honest-11``: recursion: ``out.backward(torch.ones_like(out))``, a ``zeros_like`` step vector per element, an
  early ``continue`` and ``count_nonzero() > 0``, leaves gathered recursively (no memory of visited nodes) and
  deduplicated afterwards, the softmax through its logarithm.
- ``honest-12``: ``torch.autograd.functional.jacobian``, ``torch.unravel_index`` positions into ``zeros(x.shape)``,
  ``allclose`` with no tolerance in a nested ``if``/``else``, ``filter(None, ...)`` over the inputs of non-leaf
  nodes only, ``sub``/``exp``/``div`` chained as methods.
- ``honest-13``: multi-indices from ``itertools.product`` into ``empty_like``, tuple-unpacked
  ``torch.autograd.grad``, ``.ne(0).any().item()``, a breadth-first walk level by level with ``setdefault`` on a dict
  of ids, ``values, _ = z.max(...)``.
- ``honest-14``: generators: the differences yielded from a nested generator, the states yielded as pairs into
  ``dict``, the leaves yielded by a recursive module-level generator with ``yield from``; ``x.detach()`` made a leaf
  directly.
- ``honest-15``: small module-level helpers composed by each answer (a tracked copy, a float64 copy, a nudged
  point, a central difference, an all-zero test, a state, an accumulator test, a node's inputs, an add-once, a
  slice maximum).
- ``honest-16``: vectorised: ``torch.vmap(f)`` over every nudged point at once; ``allow_unused=True`` with zeros
  when ``f`` ignores ``x``; index loops over the named parameters and ``next_functions``; ``nonzero().size(0)``;
  the exponentials computed twice.
- ``honest-17``: the ``AccumulateGrad`` class read off a probe graph and tested with ``isinstance``, basis vectors
  from ``new_zeros`` and ``view_as``, ``not g.bool().any()``, ``max``/``sum`` without ``keepdim`` and ``unsqueeze``.

Where the answer is short they converge as students do (a stack walk with a set of nodes and a set of ids, ``e /
e.sum(dim=dim, keepdim=True)``).  Two write the course's answer: ``canonical-1`` hands in the reference word for
word, ``canonical-2`` in their own names.

Twenty-seven copy, and disguise what they take (all five cells unless said otherwise; a cell not named as
disguised is handed in as taken):

- ``copier-rename`` (honest-06): every local renamed, comments written in; the error messages kept.
- ``copier-reorder`` (honest-10, three disguised): independent statements reordered (the ``central`` closure
  defined before what it reads, the two clones and their nudges), the classes' methods, attributes and a tuple
  assignment in another order, the finder made before the early return; ``grad_of`` and ``stable_softmax`` as taken.
- ``copier-helpers`` (honest-03): code moved into helper functions (the copy, the backward pass, a shifted copy, a
  slope, a count, a state, an identity search, a node's inputs, the slice maximum).
- ``copier-inline`` (honest-15): the reverse: every helper inlined into the answer that called it.
- ``copier-class`` (honest-01, four disguised): wrapped in small classes and closures (a differentiator object,
  ``nudged``/``difference`` closures, a report object, a walker class); ``stable_softmax`` as taken.
- ``copier-functional`` (honest-16, four disguised): loops folded: one generator expression for both vmapped
  evaluations, a dict comprehension over indices, ``filter``/``map`` for the children, a generator for the two
  exponentials; ``grad_of`` as taken.
- ``copier-loops`` (honest-07): the functional style unrolled: ``torch.func.grad`` in named steps, ``map`` as a
  ``for`` loop, ``dict(map(...))`` as an ``if``/``elif`` loop, ``functools.reduce`` as a recursive ``walk`` with a
  flag and ``break``, the ``logsumexp`` named.
- ``copier-while`` (honest-09, three disguised): every ``while`` loop over an index as a ``for`` loop over
  ``range``; ``grad_of`` and ``stable_softmax`` as taken.
- ``copier-stack`` (honest-11, two disguised): the recursion as an explicit stack that pushes the children
  reversed (the same leaves in the same order, repeats and all), the index ``for`` loop as a ``while`` loop.
- ``copier-recursive`` (honest-06, one disguised): the reverse: the explicit stack as a recursive ``visit`` over
  the children reversed (the same order).
- ``copier-negated`` (honest-02, two disguised): conditions negated with their branches swapped (``is not None``
  first, ``not g.any()``, ``!=`` on the type name with ``continue``\\ s, the whole walk under ``grad_fn is not
  None``).
- ``copier-early`` (honest-12, two disguised): nested ``if``/``else`` turned into early returns and ``continue``\\ s.
- ``copier-spelling`` (honest-13): equivalent PyTorch and Python spellings (``torch.clone``, keyword
  ``outputs``/``inputs``, ``[0]`` for the unpacking, ``double()``, ``map(range, x.size())``, ``a = a + eps``,
  ``torch.div``, ``torch.ne``, ``set([...])``, ``[*d.values()]``, positional ``keepdim``, ``torch.sub``).
- ``copier-deadcode`` (honest-04): dead code: ``DEBUG``/``VERBOSE`` flags with prints, an ``if False:`` print,
  asserts that always hold, unused shapes, names and counters.
- ``copier-annotated`` (honest-08): the reverse of stripping: type hints, docstrings of their own and comments added.
- ``copier-stripped`` (honest-05): every type hint, docstring, comment and the ``Callable`` imports removed.
- ``copier-args`` (honest-14): the positional arguments renamed (``func``, ``point``, ``net``, ``root``,
  ``logits``) and the docstrings with them; ``eps`` and ``dim`` kept, since the checks pass them by keyword.
- ``copier-constants`` (honest-01): the literals hoisted into module-level constants (the index 0, ``True``,
  ``torch.float64``, ``-1``, ``2``, the three states, ``"variable"``, an empty tuple, ``keepdim``).
- ``copier-try`` (honest-10, four disguised): ``try``/``except`` wrappers that raise the same exception type with
  a message of their own; ``leaves_of`` as taken.
- ``copier-table`` (honest-03, two disguised): ``if``/``else`` chains as a lookup table of words, a dict indexed by
  ``requires_grad`` and conditional expressions; loops with flags as ``any``.
- ``copier-modern`` (honest-09, four disguised): newer syntax: ``match`` with a guard, assignment expressions,
  star unpacking; ``grad_of`` as taken.
- ``copier-generator`` (honest-13, three disguised): the loops that fill the gradient, the report and the leaves
  turned into generator functions (``(index, value)`` pairs, ``(name, state)`` pairs, the levels of the walk).
- ``copier-imports`` (honest-02, four disguised): names imported under other spellings (``from torch import
  set_grad_enabled``, ``eye``, ``float64``, ``stack``, ``exp``; ``collections.deque``); ``grad_report`` as taken.
- ``chain-b`` (honest-17) renames everything and adds comments; ``chain-c`` (chain-b) introduces and removes
  temporaries (``two_eps``, the gradient read straight off, the ids' set folded into a dict) and respells calls
  (``requires_grad_``, ``to(torch.float64)``, ``flatten``, ``zeros_like``, ``[0]`` for ``.values``).
- ``copier-merge`` takes ``grad_of``, ``numerical_grad`` and ``grad_report`` from honest-08 (the decorator as a
  ``with`` block, ``np.zeros_like``, the array's own ``any``) and the other two from honest-13 (``setdefault`` as a
  test and an assignment, ``.values`` for the unpacking).
- ``copier-half`` takes ``numerical_grad`` and ``leaves_of`` from honest-16 (the evaluations named, ``eye * eps``,
  the index loop over ``next_functions`` as a ``for`` over pairs) and writes the other three alone.

Every answer passes the module's checks, visible and hidden, and every copied answer does what its source does
on :mod:`.planted_run`'s inputs (a recursion and an explicit stack part only past Python's recursion limit).  The
truth follows from where each answer came from (:func:`.planted.assemble`); ``python -m
autograder.dev.planted_02x`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "02-autograd-ledger"

# the stubs' lines, as the release hands them out
GO_DEF = "def grad_of(f, x):\n"
GO = GO_DEF + '    """Gradient of the scalar f(x) at x, without touching the caller\'s x."""\n'
NG_DEF = "def numerical_grad(f, x, eps=1e-3):\n"
NG = NG_DEF + '    """Central differences of the scalar f at x, in float64, shaped like x."""\n'
GR_DEF = "def grad_report(model):\n"
GR = GR_DEF + '    """{parameter name: "none" | "zero" | "nonzero"} from each parameter\'s current .grad."""\n'
LO_DEF = "def leaves_of(t):\n"
LO = LO_DEF + '    """The leaves requiring grad that t depends on, each once, found by walking t.grad_fn."""\n'
SS_DEF = "def stable_softmax(z, dim=-1):\n"
SS = SS_DEF + '    """Softmax of z along dim, stable for large z; differentiable; z is never modified."""\n'

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # torch.autograd.grad, a clone per probe, (== 0).all(), a nested recursive visit
        "grad_of": GO + """\
    with torch.enable_grad():
        x_ = x.detach().clone().requires_grad_(True)
        y = f(x_)
        g = torch.autograd.grad(y, x_)[0]
    return g
""",
        "numerical_grad": NG + """\
    base = x.detach().clone().double()
    grad = torch.zeros(base.numel(), dtype=torch.float64, device=x.device)
    for i in range(base.numel()):
        plus = base.clone()
        minus = base.clone()
        plus.view(-1)[i] += eps
        minus.view(-1)[i] -= eps
        grad[i] = (f(plus) - f(minus)) / (2 * eps)
    return grad.view(x.shape)
""",
        "grad_report": GR + """\
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
        elif (p.grad == 0).all():
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
""",
        "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    seen = set()

    def visit(fn):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        if hasattr(fn, "variable"):
            leaves.append(fn.variable)
        for child, _ in fn.next_functions:
            visit(child)

    visit(t.grad_fn)
    return leaves
""",
        "stable_softmax": SS + """\
    m = z.max(dim=dim, keepdim=True).values
    e = torch.exp(z - m)
    return e / e.sum(dim=dim, keepdim=True)
""",
    },
    "honest-02": {  # backward() on a clone, eye basis vectors, a dict comprehension, BFS with a deque
        "grad_of": GO + """\
    x_copy = x.detach().clone()
    x_copy.requires_grad = True
    with torch.set_grad_enabled(True):
        f(x_copy).backward()
    return x_copy.grad
""",
        "numerical_grad": NG + """\
    x64 = x.detach().to(torch.float64)
    n = x64.numel()
    basis = torch.eye(n, dtype=torch.float64, device=x.device)
    flat = x64.reshape(-1)
    grads = []
    for e in basis:
        step = eps * e
        up = f((flat + step).reshape(x.shape))
        down = f((flat - step).reshape(x.shape))
        grads.append((up - down) / (2 * eps))
    return torch.stack(grads).reshape(x.shape)
""",
        "grad_report": GR + """\
    def state(g):
        if g is None:
            return "none"
        return "nonzero" if g.any() else "zero"

    return {name: state(p.grad) for name, p in model.named_parameters()}
""",
        "leaves_of": """\
from collections import deque


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found = []
    found_ids = set()
    seen_nodes = set()
    queue = deque([t.grad_fn])
    while queue:
        node = queue.popleft()
        if type(node).__name__ == "AccumulateGrad":
            if id(node.variable) not in found_ids:
                found_ids.add(id(node.variable))
                found.append(node.variable)
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen_nodes:
                seen_nodes.add(nxt)
                queue.append(nxt)
    return found
""",
        "stable_softmax": SS + """\
    shift = z.amax(dim=dim, keepdim=True).detach()
    exps = (z - shift).exp()
    return exps / exps.sum(dim=dim, keepdim=True)
""",
    },
    "honest-03": {  # a verbose beginner: comments on every step, .item() into a list, linear searches with `is`
        "grad_of": GO + """\
    # make my own copy of x, so the caller's x stays the same
    my_x = x.clone().detach()
    my_x.requires_grad = True
    # turn gradients on (the caller might have turned them off)
    with torch.enable_grad():
        output = f(my_x)
        output.backward()
    # the gradient is now stored in my_x.grad
    answer = my_x.grad
    return answer
""",
        "numerical_grad": NG + """\
    # work in float64 for precision
    x64 = x.clone().detach().double()
    results = []
    number_of_elements = x64.numel()
    for i in range(number_of_elements):
        # x plus eps at position i
        x_plus = x64.clone()
        x_plus.view(-1)[i] = x_plus.view(-1)[i] + eps
        # x minus eps at position i
        x_minus = x64.clone()
        x_minus.view(-1)[i] = x_minus.view(-1)[i] - eps
        # central difference
        f_plus = f(x_plus).item()
        f_minus = f(x_minus).item()
        slope = (f_plus - f_minus) / (2 * eps)
        results.append(slope)
    # put the results back into x's shape
    answer = torch.tensor(results, dtype=torch.float64, device=x.device)
    answer = answer.reshape(x.shape)
    return answer
""",
        "grad_report": GR + """\
    report = {}
    for name, param in model.named_parameters():
        # no backward pass has reached this parameter yet
        if param.grad is None:
            report[name] = "none"
        else:
            # count how many entries are not zero
            number_of_nonzero = (param.grad != 0).sum().item()
            if number_of_nonzero == 0:
                report[name] = "zero"
            else:
                report[name] = "nonzero"
    return report
""",
        "leaves_of": LO + """\
    # a tensor that nothing was computed from has no grad_fn
    if t.grad_fn is None:
        if t.requires_grad:
            return [t]
        else:
            return []
    leaves = []
    visited = []
    to_visit = [t.grad_fn]
    position = 0
    while position < len(to_visit):
        node = to_visit[position]
        position = position + 1
        # skip nodes I have already looked at
        already_seen = False
        for other in visited:
            if other is node:
                already_seen = True
        if already_seen:
            continue
        visited.append(node)
        # AccumulateGrad nodes hold a leaf
        if node.__class__.__name__ == "AccumulateGrad":
            leaf = node.variable
            already_found = False
            for other in leaves:
                if other is leaf:
                    already_found = True
            if not already_found:
                leaves.append(leaf)
        # look at the inputs of this node
        for pair in node.next_functions:
            next_node = pair[0]
            if next_node is not None:
                to_visit.append(next_node)
    return leaves
""",
        "stable_softmax": SS + """\
    # biggest value in each slice, kept as a dimension so it broadcasts
    biggest = torch.max(z, dim=dim, keepdim=True)[0]
    shifted = z - biggest
    top = torch.exp(shifted)
    bottom = torch.sum(top, dim=dim, keepdim=True)
    result = top / bottom
    return result
""",
    },
    "honest-04": {  # terse one-liners
        "grad_of": GO + """\
    with torch.enable_grad():
        leaf = x.detach().requires_grad_()
        return torch.autograd.grad(f(leaf), leaf)[0]
""",
        "numerical_grad": NG + """\
    p = x.detach().double().flatten()
    steps = torch.eye(p.numel(), dtype=p.dtype, device=p.device) * eps
    return torch.stack([(f((p + d).view(x.shape)) - f((p - d).view(x.shape))) / (2 * eps) for d in steps]).view(x.shape)
""",
        "grad_report": GR + """\
    return {n: "none" if p.grad is None else "nonzero" if p.grad.count_nonzero() else "zero"
            for n, p in model.named_parameters()}
""",
        "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] * t.requires_grad
    stack, seen, out = [t.grad_fn], set(), {}
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        if hasattr(n, "variable"):
            out[id(n.variable)] = n.variable
        stack += [c for c, _ in n.next_functions]
    return list(out.values())
""",
        "stable_softmax": SS + """\
    e = (z - z.max(dim, keepdim=True).values).exp()
    return e / e.sum(dim, keepdim=True)
""",
    },
    "honest-05": {  # type hints and docstrings on everything
        "grad_of": """\
from collections.abc import Callable


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    \"\"\"Return df/dx at x as a new tensor with no history; x itself is left alone.\"\"\"
    with torch.enable_grad():
        probe: torch.Tensor = x.detach().clone().requires_grad_(True)
        value: torch.Tensor = f(probe)
        (gradient,) = torch.autograd.grad(outputs=value, inputs=probe)
    return gradient
""",
        "numerical_grad": """\
from collections.abc import Callable


def numerical_grad(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, eps: float = 1e-3) -> torch.Tensor:
    \"\"\"Estimate df/dx by central differences, one element at a time, in float64.\"\"\"
    work: torch.Tensor = x.detach().to(dtype=torch.float64, copy=True)
    flat: torch.Tensor = work.view(-1)
    result: torch.Tensor = torch.zeros_like(work)
    out: torch.Tensor = result.view(-1)
    for index in range(flat.numel()):
        original: float = flat[index].item()
        flat[index] = original + eps
        f_plus: torch.Tensor = f(work)
        flat[index] = original - eps
        f_minus: torch.Tensor = f(work)
        flat[index] = original
        out[index] = (f_plus - f_minus) / (2.0 * eps)
    return result
""",
        "grad_report": """\
def _state(grad: torch.Tensor | None) -> str:
    \"\"\"'none', 'zero' or 'nonzero' for one .grad.\"\"\"
    if grad is None:
        return "none"
    if torch.count_nonzero(grad).item() == 0:
        return "zero"
    return "nonzero"


def grad_report(model: nn.Module) -> dict[str, str]:
    \"\"\"Map every named parameter of model to the state of its .grad, reading only.\"\"\"
    return {name: _state(param.grad) for name, param in model.named_parameters()}
""",
        "leaves_of": """\
def leaves_of(t: torch.Tensor) -> list[torch.Tensor]:
    \"\"\"Walk t.grad_fn depth first and collect each AccumulateGrad's tensor once, by identity.\"\"\"
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves: list[torch.Tensor] = []
    found: set[int] = set()
    visited: set[object] = set()
    stack: list[object] = [t.grad_fn]
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        if "AccumulateGrad" in node.name():
            leaf: torch.Tensor = node.variable
            if id(leaf) not in found:
                found.add(id(leaf))
                leaves.append(leaf)
        for child, _ in node.next_functions:
            if child is not None:
                stack.append(child)
    return leaves
""",
        "stable_softmax": """\
def stable_softmax(z: torch.Tensor, dim: int = -1) -> torch.Tensor:
    \"\"\"exp(z - max) / sum(exp(z - max)) along dim, built out of place.\"\"\"
    peak: torch.Tensor = z.max(dim=dim, keepdim=True).values
    numerator: torch.Tensor = torch.exp(z - peak)
    denominator: torch.Tensor = numerator.sum(dim=dim, keepdim=True)
    return numerator / denominator
""",
    },
    "honest-06": {  # defensive: type and value checks, asserts, named keyword arguments
        "grad_of": GO + """\
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"x must be floating point to be differentiated, got {x.dtype}")
    with torch.enable_grad():
        inp = x.detach().clone()
        inp.requires_grad_(True)
        out = f(inp)
        if not isinstance(out, torch.Tensor) or out.dim() != 0:
            raise ValueError("f must return a 0-dimensional tensor")
        grads = torch.autograd.grad(out, inp, retain_graph=False, create_graph=False)
    result = grads[0]
    assert result.shape == x.shape
    return result
""",
        "numerical_grad": NG + """\
    if eps <= 0:
        raise ValueError(f"eps must be positive, got {eps}")
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a tensor, got {type(x).__name__}")
    base = x.detach().to(torch.float64).clone()
    base_flat = base.reshape(-1)
    out = torch.empty(base.numel(), dtype=torch.float64, device=base.device)
    with torch.no_grad():
        for i in range(base.numel()):
            point = base.clone()
            point.view(-1)[i] = base_flat[i] + eps
            f_up = f(point)
            point.view(-1)[i] = base_flat[i] - eps
            f_down = f(point)
            out[i] = (f_up - f_down) / (2 * eps)
    return out.reshape(x.shape)
""",
        "grad_report": GR + """\
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    report = {}
    for name, param in model.named_parameters():
        grad = param.grad
        if grad is None:
            state = "none"
        elif grad.abs().sum().item() == 0.0:
            state = "zero"
        else:
            state = "nonzero"
        report[name] = state
    assert len(report) == len(list(model.named_parameters()))
    return report
""",
        "leaves_of": LO + """\
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a tensor, got {type(t).__name__}")
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    leaf_ids = set()
    visited = set()
    stack = [t.grad_fn]
    while len(stack) > 0:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        leaf = getattr(node, "variable", None)
        if leaf is not None:
            if not (leaf.is_leaf and leaf.requires_grad):
                raise RuntimeError("an AccumulateGrad node held a tensor that is not a tracked leaf")
            if id(leaf) not in leaf_ids:
                leaf_ids.add(id(leaf))
                leaves.append(leaf)
        for child, _index in node.next_functions:
            if child is not None:
                stack.append(child)
    return leaves
""",
        "stable_softmax": SS + """\
    if not isinstance(z, torch.Tensor):
        raise TypeError(f"z must be a tensor, got {type(z).__name__}")
    if not z.is_floating_point():
        raise TypeError(f"softmax needs a floating point tensor, got {z.dtype}")
    n = max(z.dim(), 1)
    if not -n <= dim < n:
        raise IndexError(f"dim {dim} is out of range for a tensor of {z.dim()} dimensions")
    top = z.amax(dim=dim, keepdim=True)
    e = torch.exp(z - top)
    return torch.div(e, e.sum(dim=dim, keepdim=True))
""",
    },
    "honest-07": {  # functional: torch.func.grad, map, functools.reduce, logsumexp
        "grad_of": GO + """\
    return torch.func.grad(f)(x.detach())
""",
        "numerical_grad": NG + """\
    base = x.detach().double().reshape(-1)

    def probe(i, sign):
        index = torch.tensor([i], device=base.device)
        nudge = torch.tensor([sign * eps], dtype=torch.float64, device=base.device)
        return f(base.index_add(0, index, nudge).reshape(x.shape))

    diffs = map(lambda i: (probe(i, 1) - probe(i, -1)) / (2 * eps), range(base.numel()))
    return torch.stack(list(diffs)).reshape(x.shape)
""",
        "grad_report": GR + """\
    def state(grad):
        return "none" if grad is None else ("nonzero" if torch.any(grad) else "zero")

    return dict(map(lambda item: (item[0], state(item[1].grad)), model.named_parameters()))
""",
        "leaves_of": """\
import functools


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []

    def walk(acc, node):
        seen, leaves = acc
        if node is None or node in seen:
            return acc
        seen.add(node)
        leaf = getattr(node, "variable", None)
        if leaf is not None and all(other is not leaf for other in leaves):
            leaves.append(leaf)
        return functools.reduce(walk, (child for child, _ in node.next_functions), acc)

    return functools.reduce(walk, [t.grad_fn], (set(), []))[1]
""",
        "stable_softmax": SS + """\
    return torch.exp(z - torch.logsumexp(z, dim=dim, keepdim=True))
""",
    },
    "honest-08": {  # NumPy-minded: the nudges in a NumPy copy; @torch.enable_grad() as a decorator
        "grad_of": """\
@torch.enable_grad()
""" + GO + """\
    leaf = x.detach().clone()
    leaf.requires_grad_()
    (g,) = torch.autograd.grad(f(leaf), (leaf,))
    return g
""",
        "numerical_grad": """\
import numpy as np


""" + NG + """\
    xs = x.detach().cpu().numpy().astype(np.float64)
    flat = xs.reshape(-1)
    g = np.zeros(flat.shape, dtype=np.float64)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = float(f(torch.from_numpy(xs).to(x.device)))
        flat[i] = old - eps
        down = float(f(torch.from_numpy(xs).to(x.device)))
        flat[i] = old
        g[i] = (up - down) / (2 * eps)
    return torch.from_numpy(g.reshape(x.shape)).to(x.device)
""",
        "grad_report": """\
import numpy as np


""" + GR + """\
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
            continue
        values = p.grad.detach().cpu().numpy()
        report[name] = "nonzero" if np.any(values != 0) else "zero"
    return report
""",
        "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    queue = [t.grad_fn]
    seen = {t.grad_fn}
    leaves, ids = [], []
    while queue:
        node = queue.pop(0)
        if hasattr(node, "variable") and id(node.variable) not in ids:
            ids.append(id(node.variable))
            leaves.append(node.variable)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return leaves
""",
        "stable_softmax": SS + """\
    zmax = torch.max(z, dim, keepdim=True)[0]
    e = torch.exp(z - zmax)
    return e * e.sum(dim, keepdim=True).reciprocal()
""",
    },
    "honest-09": {  # while loops everywhere; torch.tensor(x, requires_grad=True)
        "grad_of": GO + """\
    with torch.enable_grad():
        own = torch.tensor(x, requires_grad=True)
        f(own).backward()
    return own.grad
""",
        "numerical_grad": NG + """\
    point = x.detach().clone().to(torch.float64)
    flat = point.view(-1)
    out = torch.zeros_like(flat)
    i = 0
    while i < flat.numel():
        keep = flat[i].item()
        flat[i] = keep + eps
        hi = f(point)
        flat[i] = keep - eps
        lo = f(point)
        flat[i] = keep
        out[i] = (hi - lo) / (2 * eps)
        i += 1
    return out.view(x.shape)
""",
        "grad_report": GR + """\
    params = list(model.named_parameters())
    report = {}
    i = 0
    while i < len(params):
        name, p = params[i]
        if p.grad is None:
            report[name] = "none"
        elif p.grad.abs().max() == 0:
            report[name] = "zero"
        else:
            report[name] = "nonzero"
        i += 1
    return report
""",
        "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    done = set()
    todo = [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in done:
            continue
        done.add(node)
        if type(node).__name__ == "AccumulateGrad":
            if not any(leaf is node.variable for leaf in leaves):
                leaves.append(node.variable)
        k = 0
        while k < len(node.next_functions):
            todo.append(node.next_functions[k][0])
            k += 1
    return leaves
""",
        "stable_softmax": SS + """\
    shifted = z - z.max(dim, keepdim=True)[0].detach()
    e = shifted.exp()
    return e / e.sum(dim, keepdim=True)
""",
    },
    "honest-10": {  # small classes and closures: a tracked-copy helper, a central-difference closure, two classes
        "grad_of": GO + """\
    def tracked(values):
        return values.detach().clone().requires_grad_()

    with torch.enable_grad():
        leaf = tracked(x)
        torch.autograd.backward(f(leaf), inputs=[leaf])
    return leaf.grad
""",
        "numerical_grad": NG + """\
    base = x.detach().double().clone()

    def central(i):
        up, down = base.clone(), base.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        return (f(up) - f(down)) / (2 * eps)

    grads = torch.zeros(base.numel(), dtype=torch.float64, device=base.device)
    for i in range(base.numel()):
        grads[i] = central(i)
    return grads.reshape(base.shape)
""",
        "grad_report": """\
class _GradColumn:
    NONE, ZERO, NONZERO = "none", "zero", "nonzero"

    def __init__(self, model):
        self.model = model

    def state(self, param):
        if param.grad is None:
            return self.NONE
        if torch.equal(param.grad, torch.zeros_like(param.grad)):
            return self.ZERO
        return self.NONZERO

    def read(self):
        return {name: self.state(param) for name, param in self.model.named_parameters()}


""" + GR + """\
    return _GradColumn(model).read()
""",
        "leaves_of": """\
class _LeafFinder:
    def __init__(self):
        self.visited = set()
        self.leaves = []
        self.leaf_ids = set()

    def visit(self, node):
        if node is None or node in self.visited:
            return
        self.visited.add(node)
        if hasattr(node, "variable"):
            self.add(node.variable)
        for child, _ in node.next_functions:
            self.visit(child)

    def add(self, leaf):
        if id(leaf) not in self.leaf_ids:
            self.leaf_ids.add(id(leaf))
            self.leaves.append(leaf)


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    finder = _LeafFinder()
    finder.visit(t.grad_fn)
    return finder.leaves
""",
        "stable_softmax": SS + """\
    exp_z = torch.exp(z - torch.amax(z, dim, keepdim=True))
    return exp_z / torch.sum(exp_z, dim, keepdim=True)
""",
    },
    "honest-11": {  # recursion: leaves gathered recursively then deduplicated; backward with an explicit gradient
        "grad_of": GO + """\
    with torch.enable_grad():
        leaf = x.detach().clone().requires_grad_(True)
        out = f(leaf)
        out.backward(torch.ones_like(out))
    return leaf.grad
""",
        "numerical_grad": NG + """\
    flat = x.detach().reshape(-1).to(torch.float64)
    estimates = []
    for i in range(flat.numel()):
        d = torch.zeros_like(flat)
        d[i] = eps
        forward = f((flat + d).reshape(x.shape))
        backward = f((flat - d).reshape(x.shape))
        estimates.append((forward - backward) / (2 * eps))
    return torch.stack(estimates).reshape(x.shape)
""",
        "grad_report": GR + """\
    out = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            out[name] = "none"
            continue
        out[name] = "nonzero" if p.grad.count_nonzero() > 0 else "zero"
    return out
""",
        "leaves_of": """\
def _collect(node):
    if node is None:
        return []
    if hasattr(node, "variable"):
        return [node.variable]
    found = []
    for child, _ in node.next_functions:
        found = found + _collect(child)
    return found


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    unique = []
    for leaf in _collect(t.grad_fn):
        if all(leaf is not u for u in unique):
            unique.append(leaf)
    return unique
""",
        "stable_softmax": SS + """\
    shifted = z - z.max(dim=dim, keepdim=True).values
    log_probs = shifted - shifted.exp().sum(dim=dim, keepdim=True).log()
    return log_probs.exp()
""",
    },
    "honest-12": {  # torch.autograd.functional, unravel_index, allclose with no tolerance, filter(None, ...)
        "grad_of": GO + """\
    return torch.autograd.functional.jacobian(f, x.detach())
""",
        "numerical_grad": NG + """\
    base = x.detach().to(torch.float64)
    grad = torch.zeros(x.shape, dtype=torch.float64, device=x.device)
    for k in range(x.numel()):
        idx = torch.unravel_index(torch.tensor(k), x.shape)
        up = base.clone()
        down = base.clone()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (f(up) - f(down)) / (2 * eps)
    return grad
""",
        "grad_report": GR + """\
    report = {}
    for name, param in model.named_parameters():
        g = param.grad
        if g is not None:
            if torch.allclose(g, torch.zeros_like(g), rtol=0.0, atol=0.0):
                report[name] = "zero"
            else:
                report[name] = "nonzero"
        else:
            report[name] = "none"
    return report
""",
        "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    seen = set()
    pending = [t.grad_fn]
    while pending:
        node = pending.pop()
        if node in seen:
            continue
        seen.add(node)
        leaf = getattr(node, "variable", None)
        if leaf is not None:
            if not any(leaf is other for other in leaves):
                leaves.append(leaf)
        else:
            pending.extend(filter(None, (fn for fn, _ in node.next_functions)))
    return leaves
""",
        "stable_softmax": SS + """\
    e = z.sub(z.amax(dim=dim, keepdim=True)).exp()
    return e.div(e.sum(dim=dim, keepdim=True))
""",
    },
    "honest-13": {  # multi-indices from itertools.product, .ne(0).any(), a breadth-first walk level by level
        "grad_of": GO + """\
    leaf = x.detach().clone()
    leaf.requires_grad_(True)
    with torch.enable_grad():
        (gradient,) = torch.autograd.grad(f(leaf), [leaf])
    return gradient
""",
        "numerical_grad": """\
import itertools


""" + NG + """\
    base = x.detach().to(dtype=torch.float64)
    grad = torch.empty_like(base)
    for index in itertools.product(*(range(n) for n in x.shape)):
        plus = base.clone()
        plus[index] += eps
        minus = base.clone()
        minus[index] -= eps
        grad[index] = (f(plus) - f(minus)) / (2 * eps)
    return grad
""",
        "grad_report": GR + """\
    states = {}
    for name, param in model.named_parameters():
        if param.grad is None:
            states[name] = "none"
        elif param.grad.ne(0).any().item():
            states[name] = "nonzero"
        else:
            states[name] = "zero"
    return states
""",
        "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    frontier = [t.grad_fn]
    visited = {t.grad_fn}
    leaves = {}
    while frontier:
        next_frontier = []
        for node in frontier:
            if hasattr(node, "variable"):
                leaves.setdefault(id(node.variable), node.variable)
            for child, _ in node.next_functions:
                if child is not None and child not in visited:
                    visited.add(child)
                    next_frontier.append(child)
        frontier = next_frontier
    return list(leaves.values())
""",
        "stable_softmax": SS + """\
    values, _ = z.max(dim=dim, keepdim=True)
    e = (z - values).exp()
    return e / e.sum(dim=dim, keepdim=True)
""",
    },
    "honest-14": {  # generators: yield the differences, the states and the leaves
        "grad_of": GO + """\
    with torch.enable_grad():
        leaf = x.detach().requires_grad_()
        f(leaf).backward()
        return leaf.grad
""",
        "numerical_grad": NG + """\
    def differences(base):
        flat = base.view(-1)
        for i in range(flat.numel()):
            saved = flat[i].item()
            flat[i] = saved + eps
            f_plus = f(base)
            flat[i] = saved - eps
            f_minus = f(base)
            flat[i] = saved
            yield (f_plus - f_minus) / (2 * eps)

    base = x.detach().to(torch.float64, copy=True)
    return torch.stack(list(differences(base))).view(x.shape)
""",
        "grad_report": GR + """\
    def states():
        for name, p in model.named_parameters():
            if p.grad is None:
                yield name, "none"
            else:
                yield name, "zero" if (p.grad == 0).all().item() else "nonzero"

    return dict(states())
""",
        "leaves_of": """\
def _walk(node, seen):
    if node is None or node in seen:
        return
    seen.add(node)
    if hasattr(node, "variable"):
        yield node.variable
    for child, _ in node.next_functions:
        yield from _walk(child, seen)


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    for leaf in _walk(t.grad_fn, set()):
        if all(leaf is not other for other in leaves):
            leaves.append(leaf)
    return leaves
""",
        "stable_softmax": SS + """\
    m, _ = torch.max(z, dim=dim, keepdim=True)
    numer = torch.exp(z - m)
    return numer / numer.sum(dim=dim, keepdim=True)
""",
    },
    "honest-15": {  # small module-level helpers composed by each answer
        "grad_of": """\
def _tracked_copy(x):
    return x.detach().clone().requires_grad_(True)


""" + GO + """\
    with torch.enable_grad():
        leaf = _tracked_copy(x)
        return torch.autograd.grad(f(leaf), leaf)[0]
""",
        "numerical_grad": """\
def _as_float64_copy(x):
    return x.detach().to(torch.float64).clone()


def _nudged(base, i, delta):
    point = base.clone()
    point.view(-1)[i] += delta
    return point


def _central_difference(f, base, i, eps):
    return (f(_nudged(base, i, eps)) - f(_nudged(base, i, -eps))) / (2 * eps)


""" + NG + """\
    base = _as_float64_copy(x)
    flat = torch.zeros(base.numel(), dtype=torch.float64, device=base.device)
    for i in range(base.numel()):
        flat[i] = _central_difference(f, base, i, eps)
    return flat.view(base.shape)
""",
        "grad_report": """\
def _all_zero(grad):
    return bool((grad == 0).all())


def _grad_state(grad):
    if grad is None:
        return "none"
    if _all_zero(grad):
        return "zero"
    return "nonzero"


""" + GR + """\
    report = {}
    for name, param in model.named_parameters():
        report[name] = _grad_state(param.grad)
    return report
""",
        "leaves_of": """\
def _is_accumulator(node):
    return hasattr(node, "variable")


def _inputs_of(node):
    return [child for child, _ in node.next_functions if child is not None]


def _add_once(leaves, leaf):
    if all(leaf is not other for other in leaves):
        leaves.append(leaf)


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if _is_accumulator(node):
            _add_once(leaves, node.variable)
        stack.extend(_inputs_of(node))
    return leaves
""",
        "stable_softmax": """\
def _slice_max(z, dim):
    return z.max(dim=dim, keepdim=True).values


""" + SS + """\
    e = torch.exp(z - _slice_max(z, dim))
    return e / e.sum(dim=dim, keepdim=True)
""",
    },
    "honest-16": {  # vectorised: torch.vmap over every nudge at once; index loops elsewhere; allow_unused
        "grad_of": GO + """\
    with torch.enable_grad():
        xx = x.detach().clone()
        xx.requires_grad = True
        yy = f(xx)
        gg = torch.autograd.grad(yy, xx, allow_unused=True)[0]
    if gg is None:  # f does not depend on x
        gg = torch.zeros_like(x)
    return gg
""",
        "numerical_grad": NG + """\
    n = x.numel()
    base = x.detach().to(torch.float64).reshape(1, n)
    steps = eps * torch.eye(n, dtype=torch.float64, device=x.device)
    ups = (base + steps).reshape(n, *x.shape)
    downs = (base - steps).reshape(n, *x.shape)
    fv = torch.vmap(f)
    return ((fv(ups) - fv(downs)) / (2 * eps)).reshape(x.shape)
""",
        "grad_report": GR + """\
    params = list(model.named_parameters())
    report = {}
    for k in range(len(params)):
        name = params[k][0]
        grad = params[k][1].grad
        if grad is None:
            report[name] = "none"
        elif grad.nonzero().size(0) == 0:
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
""",
        "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    result = []
    ids = set()
    seen = set()
    stack = [t.grad_fn]
    while len(stack) > 0:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            if id(node.variable) not in ids:
                ids.add(id(node.variable))
                result.append(node.variable)
        for k in range(len(node.next_functions)):
            child = node.next_functions[k][0]
            if child is not None:
                stack.append(child)
    return result
""",
        "stable_softmax": SS + """\
    m = z.max(dim=dim, keepdim=True).values
    return torch.exp(z - m) / torch.exp(z - m).sum(dim=dim, keepdim=True)
""",
    },
    "honest-17": {  # the AccumulateGrad class taken from a probe, new_zeros basis vectors, keepdim=False and unsqueeze
        "grad_of": GO + """\
    with torch.enable_grad():
        leaf = x.detach().clone()
        leaf.requires_grad = True
        y = f(leaf)
        y.backward()
        g = leaf.grad
    return g.detach()
""",
        "numerical_grad": NG + """\
    base = x.detach().double().clone().reshape(-1)
    grad = base.new_zeros(base.shape)
    for i in range(len(base)):
        e = base.new_zeros(base.shape)
        e[i] = eps
        f_right = f((base + e).view_as(x))
        f_left = f((base - e).view_as(x))
        grad[i] = (f_right - f_left) / (2 * eps)
    return grad.view_as(x)
""",
        "grad_report": GR + """\
    report = {}
    for name, p in model.named_parameters():
        g = p.grad
        report[name] = "none" if g is None else ("zero" if not g.bool().any() else "nonzero")
    return report
""",
        "leaves_of": """\
_ACCUMULATE_GRAD = type((torch.zeros(1, requires_grad=True) * 1).grad_fn.next_functions[0][0])


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    leaf_ids = set()
    seen = set()
    stack = [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if isinstance(node, _ACCUMULATE_GRAD):
            if id(node.variable) not in leaf_ids:
                leaf_ids.add(id(node.variable))
                leaves.append(node.variable)
        else:
            for child, _ in node.next_functions:
                stack.append(child)
    return leaves
""",
        "stable_softmax": SS + """\
    m = z.max(dim=dim).values.unsqueeze(dim)
    e = torch.exp(z - m)
    return e / e.sum(dim=dim).unsqueeze(dim)
""",
    },
}

CANONICAL_OWN_NAMES = {  # the course's answers, in canonical-2's own names
    "grad_of": GO + """\
    with torch.enable_grad():                    # record even when the caller switched recording off
        tracked = x.detach().requires_grad_()    # a leaf of our own: x's values, no history
        value = f(tracked)                       # a scalar with a grad_fn
        (g,) = torch.autograd.grad(value, tracked)  # no create_graph: g carries no record
    return g                                     # x's shape, dtype and device
""",
    "numerical_grad": NG + """\
    probe = x.detach().to(torch.float64).clone()  # a float64 copy of our own; x is never written
    entries = probe.view(-1)                      # a view: nudging entries nudges probe
    result = torch.zeros_like(entries)            # float64, on x's device
    with torch.no_grad():                         # the probes are not computations to record
        for k in range(entries.numel()):
            saved = entries[k].item()
            entries[k] = saved + eps
            f_plus = f(probe)
            entries[k] = saved - eps
            f_minus = f(probe)
            entries[k] = saved                    # restore the entry
            result[k] = (f_plus - f_minus) / (2 * eps)
    return result.view(x.shape)
""",
    "grad_report": GR + """\
    column = {}
    for pname, p in model.named_parameters():
        if p.grad is None:
            column[pname] = "none"                # nothing reached it
        elif torch.count_nonzero(p.grad) == 0:
            column[pname] = "zero"                # reached, but carried nothing
        else:
            column[pname] = "nonzero"
    return column
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:                         # no record: t is a leaf, tracked or not
        return [t] if t.requires_grad else []
    result, leaf_ids, done = [], set(), set()
    todo = [t.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in done:              # None: an untracked input
            continue
        done.add(fn)
        var = getattr(fn, "variable", None)       # only AccumulateGrad nodes hold one
        if var is not None and id(var) not in leaf_ids:
            leaf_ids.add(id(var))
            result.append(var)
        todo.extend(nxt for nxt, _ in fn.next_functions)
    return result
""",
    "stable_softmax": SS + """\
    moved = z - z.max(dim=dim, keepdim=True).values  # a new tensor: z stays as the caller left it
    ex = moved.exp()                                  # exp keeps ex for the backward pass
    return ex / ex.sum(dim=dim, keepdim=True)         # out of place: the saved ex is untouched
""",
}

_ALL = ("grad_of", "numerical_grad", "grad_report", "leaves_of", "stable_softmax")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


_RENAME = {  # honest-06's with every local renamed and comments written in; the messages kept
    "grad_of": GO + """\
    # refuse what cannot be differentiated
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"x must be floating point to be differentiated, got {x.dtype}")
    with torch.enable_grad():  # record, whatever the caller's mode is
        work = x.detach().clone()  # a copy of our own, cut from x's history
        work.requires_grad_(True)
        value = f(work)
        if not isinstance(value, torch.Tensor) or value.dim() != 0:
            raise ValueError("f must return a 0-dimensional tensor")
        derivatives = torch.autograd.grad(value, work, retain_graph=False, create_graph=False)
    gradient = derivatives[0]
    assert gradient.shape == x.shape  # one entry per entry of x
    return gradient
""",
    "numerical_grad": NG + """\
    # a step has to be positive
    if eps <= 0:
        raise ValueError(f"eps must be positive, got {eps}")
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a tensor, got {type(x).__name__}")
    origin = x.detach().to(torch.float64).clone()  # float64, never the caller's memory
    origin_entries = origin.reshape(-1)
    slopes = torch.empty(origin.numel(), dtype=torch.float64, device=origin.device)
    with torch.no_grad():
        for j in range(origin.numel()):
            probe = origin.clone()
            probe.view(-1)[j] = origin_entries[j] + eps  # one step up
            value_up = f(probe)
            probe.view(-1)[j] = origin_entries[j] - eps  # one step down
            value_down = f(probe)
            slopes[j] = (value_up - value_down) / (2 * eps)
    return slopes.reshape(x.shape)
""",
    "grad_report": GR + """\
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    column = {}
    for key, weight in model.named_parameters():
        g = weight.grad
        if g is None:  # no backward pass reached it
            verdict = "none"
        elif g.abs().sum().item() == 0.0:  # every entry is 0
            verdict = "zero"
        else:
            verdict = "nonzero"
        column[key] = verdict
    assert len(column) == len(list(model.named_parameters()))
    return column
""",
    "leaves_of": LO + """\
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a tensor, got {type(t).__name__}")
    # nothing recorded: t is its own leaf, or has none
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    collected = []
    collected_ids = set()
    done = set()
    pending = [t.grad_fn]
    while len(pending) > 0:
        fn = pending.pop()
        if fn in done:  # reached along another path already
            continue
        done.add(fn)
        var = getattr(fn, "variable", None)  # only AccumulateGrad nodes hold a tensor
        if var is not None:
            if not (var.is_leaf and var.requires_grad):
                raise RuntimeError("an AccumulateGrad node held a tensor that is not a tracked leaf")
            if id(var) not in collected_ids:
                collected_ids.add(id(var))
                collected.append(var)
        for parent, _slot in fn.next_functions:
            if parent is not None:
                pending.append(parent)
    return collected
""",
    "stable_softmax": SS + """\
    if not isinstance(z, torch.Tensor):
        raise TypeError(f"z must be a tensor, got {type(z).__name__}")
    if not z.is_floating_point():
        raise TypeError(f"softmax needs a floating point tensor, got {z.dtype}")
    ndim = max(z.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"dim {dim} is out of range for a tensor of {z.dim()} dimensions")
    ceiling = z.amax(dim=dim, keepdim=True)  # the largest logit of each slice
    powers = torch.exp(z - ceiling)  # at most 1: no overflow
    return torch.div(powers, powers.sum(dim=dim, keepdim=True))
""",
}

_REORDER = {  # honest-10's with independent statements reordered; grad_of left as taken
    "numerical_grad": NG + """\
    def central(i):
        down, up = base.clone(), base.clone()
        down.view(-1)[i] -= eps
        up.view(-1)[i] += eps
        return (f(up) - f(down)) / (2 * eps)

    base = x.detach().double().clone()
    grads = torch.zeros(base.numel(), dtype=torch.float64, device=base.device)
    for i in range(base.numel()):
        grads[i] = central(i)
    return grads.reshape(base.shape)
""",
    "grad_report": """\
class _GradColumn:
    ZERO, NONZERO, NONE = "zero", "nonzero", "none"

    def read(self):
        return {name: self.state(param) for name, param in self.model.named_parameters()}

    def state(self, param):
        if param.grad is None:
            return self.NONE
        if torch.equal(param.grad, torch.zeros_like(param.grad)):
            return self.ZERO
        return self.NONZERO

    def __init__(self, model):
        self.model = model


""" + GR + """\
    return _GradColumn(model).read()
""",
    "leaves_of": """\
class _LeafFinder:
    def add(self, leaf):
        if id(leaf) not in self.leaf_ids:
            self.leaves.append(leaf)
            self.leaf_ids.add(id(leaf))

    def visit(self, node):
        if node is None or node in self.visited:
            return
        self.visited.add(node)
        if hasattr(node, "variable"):
            self.add(node.variable)
        for child, _ in node.next_functions:
            self.visit(child)

    def __init__(self):
        self.leaf_ids = set()
        self.leaves = []
        self.visited = set()


""" + LO + """\
    finder = _LeafFinder()
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    finder.visit(t.grad_fn)
    return finder.leaves
""",
}

_HELPERS = {  # honest-03's moved into helper functions
    "grad_of": """\
def make_copy(x):
    # make my own copy of x, so the caller's x stays the same
    my_x = x.clone().detach()
    my_x.requires_grad = True
    return my_x


def run_backward(f, my_x):
    # turn gradients on (the caller might have turned them off)
    with torch.enable_grad():
        output = f(my_x)
        output.backward()


""" + GO + """\
    my_x = make_copy(x)
    run_backward(f, my_x)
    # the gradient is now stored in my_x.grad
    answer = my_x.grad
    return answer
""",
    "numerical_grad": """\
def shifted_copy(x64, i, amount):
    # a copy of x64 with position i moved by amount
    moved = x64.clone()
    moved.view(-1)[i] = moved.view(-1)[i] + amount
    return moved


def slope_at(f, x64, i, eps):
    # central difference at position i
    x_plus = shifted_copy(x64, i, eps)
    x_minus = shifted_copy(x64, i, -eps)
    f_plus = f(x_plus).item()
    f_minus = f(x_minus).item()
    return (f_plus - f_minus) / (2 * eps)


""" + NG + """\
    # work in float64 for precision
    x64 = x.clone().detach().double()
    results = []
    for i in range(x64.numel()):
        results.append(slope_at(f, x64, i, eps))
    # put the results back into x's shape
    answer = torch.tensor(results, dtype=torch.float64, device=x.device)
    return answer.reshape(x.shape)
""",
    "grad_report": """\
def count_nonzero_entries(grad):
    # count how many entries are not zero
    return (grad != 0).sum().item()


def state_of(param):
    # no backward pass has reached this parameter yet
    if param.grad is None:
        return "none"
    if count_nonzero_entries(param.grad) == 0:
        return "zero"
    return "nonzero"


""" + GR + """\
    report = {}
    for name, param in model.named_parameters():
        report[name] = state_of(param)
    return report
""",
    "leaves_of": """\
def seen_before(items, thing):
    # True if thing is already in items (compared with `is`)
    for other in items:
        if other is thing:
            return True
    return False


def inputs_of(node):
    # the nodes this node was computed from
    inputs = []
    for pair in node.next_functions:
        if pair[0] is not None:
            inputs.append(pair[0])
    return inputs


""" + LO + """\
    # a tensor that nothing was computed from has no grad_fn
    if t.grad_fn is None:
        if t.requires_grad:
            return [t]
        else:
            return []
    leaves = []
    visited = []
    to_visit = [t.grad_fn]
    position = 0
    while position < len(to_visit):
        node = to_visit[position]
        position = position + 1
        if seen_before(visited, node):
            continue
        visited.append(node)
        # AccumulateGrad nodes hold a leaf
        if node.__class__.__name__ == "AccumulateGrad" and not seen_before(leaves, node.variable):
            leaves.append(node.variable)
        to_visit.extend(inputs_of(node))
    return leaves
""",
    "stable_softmax": """\
def biggest_in_slice(z, dim):
    # biggest value in each slice, kept as a dimension so it broadcasts
    return torch.max(z, dim=dim, keepdim=True)[0]


""" + SS + """\
    top = torch.exp(z - biggest_in_slice(z, dim))
    bottom = torch.sum(top, dim=dim, keepdim=True)
    return top / bottom
""",
}

_INLINE = {  # honest-15's with every helper inlined into the answer that called it
    "grad_of": GO + """\
    with torch.enable_grad():
        leaf = x.detach().clone().requires_grad_(True)
        return torch.autograd.grad(f(leaf), leaf)[0]
""",
    "numerical_grad": NG + """\
    base = x.detach().to(torch.float64).clone()
    flat = torch.zeros(base.numel(), dtype=torch.float64, device=base.device)
    for i in range(base.numel()):
        up = base.clone()
        up.view(-1)[i] += eps
        down = base.clone()
        down.view(-1)[i] += -eps
        flat[i] = (f(up) - f(down)) / (2 * eps)
    return flat.view(base.shape)
""",
    "grad_report": GR + """\
    report = {}
    for name, param in model.named_parameters():
        if param.grad is None:
            report[name] = "none"
        elif bool((param.grad == 0).all()):
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable") and all(node.variable is not other for other in leaves):
            leaves.append(node.variable)
        stack.extend([child for child, _ in node.next_functions if child is not None])
    return leaves
""",
    "stable_softmax": SS + """\
    e = torch.exp(z - z.max(dim=dim, keepdim=True).values)
    return e / e.sum(dim=dim, keepdim=True)
""",
}

_CLASS = {  # honest-01's wrapped in small classes and closures; stable_softmax not taken
    "grad_of": """\
class _Differentiator:
    def __init__(self, f):
        self.f = f

    def at(self, x):
        with torch.enable_grad():
            x_ = x.detach().clone().requires_grad_(True)
            y = self.f(x_)
            g = torch.autograd.grad(y, x_)[0]
        return g


""" + GO + """\
    return _Differentiator(f).at(x)
""",
    "numerical_grad": NG + """\
    base = x.detach().clone().double()

    def nudged(i, delta):
        point = base.clone()
        point.view(-1)[i] += delta
        return point

    def difference(i):
        plus = nudged(i, eps)
        minus = nudged(i, -eps)
        return (f(plus) - f(minus)) / (2 * eps)

    grad = torch.zeros(base.numel(), dtype=torch.float64, device=x.device)
    for i in range(base.numel()):
        grad[i] = difference(i)
    return grad.view(x.shape)
""",
    "grad_report": """\
class _Report:
    def __init__(self):
        self.entries = {}

    def note(self, name, grad):
        if grad is None:
            self.entries[name] = "none"
        elif (grad == 0).all():
            self.entries[name] = "zero"
        else:
            self.entries[name] = "nonzero"


""" + GR + """\
    report = _Report()
    for name, p in model.named_parameters():
        report.note(name, p.grad)
    return report.entries
""",
    "leaves_of": """\
class _Walk:
    def __init__(self):
        self.leaves = []
        self.seen = set()

    def visit(self, fn):
        if fn is None or fn in self.seen:
            return
        self.seen.add(fn)
        if hasattr(fn, "variable"):
            self.leaves.append(fn.variable)
        for child, _ in fn.next_functions:
            self.visit(child)


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    walk = _Walk()
    walk.visit(t.grad_fn)
    return walk.leaves
""",
}

_FUNCTIONAL = {  # honest-16's loops folded into comprehensions, map, filter and a generator; grad_of not taken
    "numerical_grad": NG + """\
    n = x.numel()
    base = x.detach().to(torch.float64).reshape(1, n)
    steps = eps * torch.eye(n, dtype=torch.float64, device=x.device)
    ups, downs = (torch.vmap(f)((base + s).reshape(n, *x.shape)) for s in (steps, -steps))
    return ((ups - downs) / (2 * eps)).reshape(x.shape)
""",
    "grad_report": GR + """\
    params = list(model.named_parameters())
    return {
        params[k][0]: (
            "none" if params[k][1].grad is None
            else "zero" if params[k][1].grad.nonzero().size(0) == 0
            else "nonzero"
        )
        for k in range(len(params))
    }
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    result = []
    ids = set()
    seen = set()
    stack = [t.grad_fn]
    while len(stack) > 0:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable") and id(node.variable) not in ids:
            ids.add(id(node.variable))
            result.append(node.variable)
        stack.extend(filter(lambda child: child is not None, map(lambda pair: pair[0], node.next_functions)))
    return result
""",
    "stable_softmax": SS + """\
    m = z.max(dim=dim, keepdim=True).values
    numerator, denominator = (torch.exp(z - m) for _ in range(2))
    return numerator / denominator.sum(dim=dim, keepdim=True)
""",
}

_LOOPS = {  # honest-07's functional style unrolled into loops and named steps
    "grad_of": GO + """\
    gradient_fn = torch.func.grad(f)
    detached = x.detach()
    return gradient_fn(detached)
""",
    "numerical_grad": NG + """\
    base = x.detach().double().reshape(-1)

    def probe(i, sign):
        index = torch.tensor([i], device=base.device)
        nudge = torch.tensor([sign * eps], dtype=torch.float64, device=base.device)
        return f(base.index_add(0, index, nudge).reshape(x.shape))

    diffs = []
    for i in range(base.numel()):
        diffs.append((probe(i, 1) - probe(i, -1)) / (2 * eps))
    return torch.stack(diffs).reshape(x.shape)
""",
    "grad_report": GR + """\
    report = {}
    for name, param in model.named_parameters():
        grad = param.grad
        if grad is None:
            report[name] = "none"
        elif torch.any(grad):
            report[name] = "nonzero"
        else:
            report[name] = "zero"
    return report
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    seen, leaves = set(), []

    def walk(node):
        if node is None or node in seen:
            return
        seen.add(node)
        leaf = getattr(node, "variable", None)
        if leaf is not None:
            duplicate = False
            for other in leaves:
                if other is leaf:
                    duplicate = True
                    break
            if not duplicate:
                leaves.append(leaf)
        for child, _ in node.next_functions:
            walk(child)

    walk(t.grad_fn)
    return leaves
""",
    "stable_softmax": SS + """\
    lse = torch.logsumexp(z, dim=dim, keepdim=True)
    return torch.exp(z - lse)
""",
}

_WHILE = {  # honest-09's while loops over indices as for loops; grad_of and stable_softmax left as taken
    "numerical_grad": NG + """\
    point = x.detach().clone().to(torch.float64)
    flat = point.view(-1)
    out = torch.zeros_like(flat)
    for i in range(flat.numel()):
        keep = flat[i].item()
        flat[i] = keep + eps
        hi = f(point)
        flat[i] = keep - eps
        lo = f(point)
        flat[i] = keep
        out[i] = (hi - lo) / (2 * eps)
    return out.view(x.shape)
""",
    "grad_report": GR + """\
    params = list(model.named_parameters())
    report = {}
    for i in range(len(params)):
        name, p = params[i]
        if p.grad is None:
            report[name] = "none"
        elif p.grad.abs().max() == 0:
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    done = set()
    todo = [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in done:
            continue
        done.add(node)
        if type(node).__name__ == "AccumulateGrad":
            if not any(leaf is node.variable for leaf in leaves):
                leaves.append(node.variable)
        for k in range(len(node.next_functions)):
            todo.append(node.next_functions[k][0])
    return leaves
""",
}

_STACK = {  # honest-11's recursion as an explicit stack (the same order, the same repeats); the rest as taken
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    unique = []
    stack = [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if hasattr(node, "variable"):
            if all(node.variable is not u for u in unique):
                unique.append(node.variable)
            continue
        stack.extend(reversed([child for child, _ in node.next_functions]))
    return unique
""",
    "numerical_grad": NG + """\
    flat = x.detach().reshape(-1).to(torch.float64)
    estimates = []
    i = 0
    while i < flat.numel():
        d = torch.zeros_like(flat)
        d[i] = eps
        forward = f((flat + d).reshape(x.shape))
        backward = f((flat - d).reshape(x.shape))
        estimates.append((forward - backward) / (2 * eps))
        i += 1
    return torch.stack(estimates).reshape(x.shape)
""",
}

_RECURSIVE = {  # honest-06's explicit stack as recursion (the children in reverse: the same order); the rest as taken
    "leaves_of": LO + """\
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a tensor, got {type(t).__name__}")
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    leaf_ids = set()
    visited = set()

    def visit(node):
        if node in visited:
            return
        visited.add(node)
        leaf = getattr(node, "variable", None)
        if leaf is not None:
            if not (leaf.is_leaf and leaf.requires_grad):
                raise RuntimeError("an AccumulateGrad node held a tensor that is not a tracked leaf")
            if id(leaf) not in leaf_ids:
                leaf_ids.add(id(leaf))
                leaves.append(leaf)
        children = [child for child, _index in node.next_functions if child is not None]
        for child in reversed(children):
            visit(child)

    visit(t.grad_fn)
    return leaves
""",
}

_NEGATED = {  # honest-02's conditions negated with their branches swapped; numerical_grad and stable_softmax as taken
    "grad_report": GR + """\
    def state(g):
        if g is not None:
            return "zero" if not g.any() else "nonzero"
        return "none"

    return {name: state(p.grad) for name, p in model.named_parameters()}
""",
    "leaves_of": """\
from collections import deque


""" + LO + """\
    if t.grad_fn is not None:
        found = []
        found_ids = set()
        seen_nodes = set()
        queue = deque([t.grad_fn])
        while queue:
            node = queue.popleft()
            if type(node).__name__ != "AccumulateGrad":
                for nxt, _ in node.next_functions:
                    if nxt is None or nxt in seen_nodes:
                        continue
                    seen_nodes.add(nxt)
                    queue.append(nxt)
                continue
            if id(node.variable) in found_ids:
                continue
            found_ids.add(id(node.variable))
            found.append(node.variable)
        return found
    return [] if not t.requires_grad else [t]
""",
}

_EARLY = {  # honest-12's nested if/else as early returns and continues; the rest as taken
    "grad_report": GR + """\
    report = {}
    for name, param in model.named_parameters():
        g = param.grad
        if g is None:
            report[name] = "none"
            continue
        if torch.allclose(g, torch.zeros_like(g), rtol=0.0, atol=0.0):
            report[name] = "zero"
            continue
        report[name] = "nonzero"
    return report
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        if not t.requires_grad:
            return []
        return [t]
    leaves = []
    seen = set()
    pending = [t.grad_fn]
    while pending:
        node = pending.pop()
        if node in seen:
            continue
        seen.add(node)
        leaf = getattr(node, "variable", None)
        if leaf is None:
            pending.extend(filter(None, (fn for fn, _ in node.next_functions)))
            continue
        if any(leaf is other for other in leaves):
            continue
        leaves.append(leaf)
    return leaves
""",
}

_SPELLING = {  # honest-13's in equivalent PyTorch and Python spellings
    "grad_of": GO + """\
    leaf = torch.clone(x.detach())
    leaf.requires_grad = True
    with torch.enable_grad():
        gradient = torch.autograd.grad(outputs=f(leaf), inputs=(leaf,))[0]
    return gradient
""",
    "numerical_grad": """\
import itertools


""" + NG + """\
    base = x.detach().double()
    grad = torch.empty_like(base)
    for index in itertools.product(*map(range, x.size())):
        plus = torch.clone(base)
        plus[index] = plus[index] + eps
        minus = torch.clone(base)
        minus[index] = minus[index] - eps
        grad[index] = torch.div(f(plus) - f(minus), 2 * eps)
    return grad
""",
    "grad_report": GR + """\
    states = {}
    for name, param in model.named_parameters():
        if param.grad is None:
            states[name] = "none"
        elif torch.any(torch.ne(param.grad, 0)):
            states[name] = "nonzero"
        else:
            states[name] = "zero"
    return states
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    frontier = [t.grad_fn]
    visited = set([t.grad_fn])
    leaves = {}
    while len(frontier):
        next_frontier = []
        for node in frontier:
            if hasattr(node, "variable") and id(node.variable) not in leaves:
                leaves[id(node.variable)] = node.variable
            for child, _ in node.next_functions:
                if child is not None and child not in visited:
                    visited.add(child)
                    next_frontier.append(child)
        frontier = next_frontier
    return [*leaves.values()]
""",
    "stable_softmax": SS + """\
    values = z.max(dim, True).values
    e = torch.exp(torch.sub(z, values))
    return torch.div(e, torch.sum(e, dim=dim, keepdim=True))
""",
}

_DEADCODE = {  # honest-04's with dead code: debug flags and prints, asserts that always hold, unused values
    "grad_of": """\
DEBUG = False


""" + GO + """\
    if DEBUG:
        print("grad_of:", tuple(x.shape), x.dtype, x.requires_grad)
    with torch.enable_grad():
        leaf = x.detach().requires_grad_()
        assert leaf.requires_grad
        shape = tuple(leaf.shape)  # for the debug print
        if DEBUG:
            print("leaf", shape)
        return torch.autograd.grad(f(leaf), leaf)[0]
""",
    "numerical_grad": """\
VERBOSE = False


""" + NG + """\
    p = x.detach().double().flatten()
    count = p.numel()
    steps = torch.eye(count, dtype=p.dtype, device=p.device) * eps
    assert steps.shape == (count, count)
    if VERBOSE:
        print("numerical_grad: %d probes of size %g" % (count, eps))
    return torch.stack([(f((p + d).view(x.shape)) - f((p - d).view(x.shape))) / (2 * eps) for d in steps]).view(x.shape)
""",
    "grad_report": GR + """\
    names = []  # kept for debugging
    report = {n: "none" if p.grad is None else "nonzero" if p.grad.count_nonzero() else "zero"
              for n, p in model.named_parameters()}
    for n in report:
        names.append(n)
    assert len(names) == len(report)
    return report
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] * t.requires_grad
    stack, seen, out = [t.grad_fn], set(), {}
    steps = 0
    while stack:
        n = stack.pop()
        steps += 1
        if n is None or n in seen:
            continue
        seen.add(n)
        if hasattr(n, "variable"):
            out[id(n.variable)] = n.variable
        stack += [c for c, _ in n.next_functions]
    if False:
        print("visited", len(seen), "nodes in", steps, "steps")
    return list(out.values())
""",
    "stable_softmax": SS + """\
    shape = z.shape  # unused
    e = (z - z.max(dim, keepdim=True).values).exp()
    assert e.shape == shape
    return e / e.sum(dim, keepdim=True)
""",
}

_ANNOTATED = {  # honest-08's with type hints, docstrings and comments added
    "grad_of": """\
from collections.abc import Callable


@torch.enable_grad()
def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    \"\"\"The gradient of f at x; recording is switched on by the decorator, whatever the caller's mode.\"\"\"
    leaf: torch.Tensor = x.detach().clone()  # detached copy: the caller's x is never touched
    leaf.requires_grad_()
    (g,) = torch.autograd.grad(f(leaf), (leaf,))  # no create_graph, so g has no history
    return g
""",
    "numerical_grad": """\
from collections.abc import Callable

import numpy as np


def numerical_grad(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, eps: float = 1e-3) -> torch.Tensor:
    \"\"\"Central differences computed on a float64 NumPy copy of x, returned as a float64 tensor on x's device.\"\"\"
    xs: np.ndarray = x.detach().cpu().numpy().astype(np.float64)  # astype copies
    flat: np.ndarray = xs.reshape(-1)  # a view of xs
    g: np.ndarray = np.zeros(flat.shape, dtype=np.float64)
    for i in range(flat.size):
        old: float = flat[i]
        flat[i] = old + eps  # step up
        up: float = float(f(torch.from_numpy(xs).to(x.device)))
        flat[i] = old - eps  # step down
        down: float = float(f(torch.from_numpy(xs).to(x.device)))
        flat[i] = old  # restore
        g[i] = (up - down) / (2 * eps)
    return torch.from_numpy(g.reshape(x.shape)).to(x.device)
""",
    "grad_report": """\
import numpy as np


def grad_report(model: nn.Module) -> dict[str, str]:
    \"\"\"'none', 'zero' or 'nonzero' for every named parameter, read from a NumPy copy of its .grad.\"\"\"
    report: dict[str, str] = {}
    for name, p in model.named_parameters():
        if p.grad is None:  # no backward pass reached it
            report[name] = "none"
            continue
        values: np.ndarray = p.grad.detach().cpu().numpy()
        report[name] = "nonzero" if np.any(values != 0) else "zero"  # -0.0 != 0 is False
    return report
""",
    "leaves_of": """\
def leaves_of(t: torch.Tensor) -> list[torch.Tensor]:
    \"\"\"Breadth-first over t.grad_fn; each AccumulateGrad's tensor once, compared by id.\"\"\"
    if t.grad_fn is None:  # no record to walk
        return [t] if t.requires_grad else []
    queue: list = [t.grad_fn]
    seen: set = {t.grad_fn}
    leaves: list[torch.Tensor] = []
    ids: list[int] = []
    while queue:
        node = queue.pop(0)  # first in, first out
        if hasattr(node, "variable") and id(node.variable) not in ids:
            ids.append(id(node.variable))
            leaves.append(node.variable)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:  # None: an untracked input
                seen.add(nxt)
                queue.append(nxt)
    return leaves
""",
    "stable_softmax": """\
def stable_softmax(z: torch.Tensor, dim: int = -1) -> torch.Tensor:
    \"\"\"Softmax along dim, shifted by each slice's maximum so that exp never overflows.\"\"\"
    zmax: torch.Tensor = torch.max(z, dim, keepdim=True)[0]
    e: torch.Tensor = torch.exp(z - zmax)  # every entry in (0, 1]
    return e * e.sum(dim, keepdim=True).reciprocal()
""",
}

_STRIPPED = {  # honest-05's with every type hint, docstring and comment removed
    "grad_of": GO_DEF + """\
    with torch.enable_grad():
        probe = x.detach().clone().requires_grad_(True)
        value = f(probe)
        (gradient,) = torch.autograd.grad(outputs=value, inputs=probe)
    return gradient
""",
    "numerical_grad": NG_DEF + """\
    work = x.detach().to(dtype=torch.float64, copy=True)
    flat = work.view(-1)
    result = torch.zeros_like(work)
    out = result.view(-1)
    for index in range(flat.numel()):
        original = flat[index].item()
        flat[index] = original + eps
        f_plus = f(work)
        flat[index] = original - eps
        f_minus = f(work)
        flat[index] = original
        out[index] = (f_plus - f_minus) / (2.0 * eps)
    return result
""",
    "grad_report": """\
def _state(grad):
    if grad is None:
        return "none"
    if torch.count_nonzero(grad).item() == 0:
        return "zero"
    return "nonzero"


""" + GR_DEF + """\
    return {name: _state(param.grad) for name, param in model.named_parameters()}
""",
    "leaves_of": LO_DEF + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    found = set()
    visited = set()
    stack = [t.grad_fn]
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        if "AccumulateGrad" in node.name():
            leaf = node.variable
            if id(leaf) not in found:
                found.add(id(leaf))
                leaves.append(leaf)
        for child, _ in node.next_functions:
            if child is not None:
                stack.append(child)
    return leaves
""",
    "stable_softmax": SS_DEF + """\
    peak = z.max(dim=dim, keepdim=True).values
    numerator = torch.exp(z - peak)
    denominator = numerator.sum(dim=dim, keepdim=True)
    return numerator / denominator
""",
}

_ARGS = {  # honest-14's with the positional arguments renamed (eps and dim kept: the checks pass them by keyword)
    "grad_of": """\
def grad_of(func, point):
    \"\"\"Gradient of the scalar func(point) at point, without touching the caller's point.\"\"\"
    with torch.enable_grad():
        leaf = point.detach().requires_grad_()
        func(leaf).backward()
        return leaf.grad
""",
    "numerical_grad": """\
def numerical_grad(func, point, eps=1e-3):
    \"\"\"Central differences of the scalar func at point, in float64, shaped like point.\"\"\"
    def differences(base):
        flat = base.view(-1)
        for i in range(flat.numel()):
            saved = flat[i].item()
            flat[i] = saved + eps
            f_plus = func(base)
            flat[i] = saved - eps
            f_minus = func(base)
            flat[i] = saved
            yield (f_plus - f_minus) / (2 * eps)

    base = point.detach().to(torch.float64, copy=True)
    return torch.stack(list(differences(base))).view(point.shape)
""",
    "grad_report": """\
def grad_report(net):
    \"\"\"{parameter name: "none" | "zero" | "nonzero"} from each parameter's current .grad.\"\"\"
    def states():
        for name, p in net.named_parameters():
            if p.grad is None:
                yield name, "none"
            else:
                yield name, "zero" if (p.grad == 0).all().item() else "nonzero"

    return dict(states())
""",
    "leaves_of": """\
def _walk(node, seen):
    if node is None or node in seen:
        return
    seen.add(node)
    if hasattr(node, "variable"):
        yield node.variable
    for child, _ in node.next_functions:
        yield from _walk(child, seen)


def leaves_of(root):
    \"\"\"The leaves requiring grad that root depends on, each once, found by walking root.grad_fn.\"\"\"
    if root.grad_fn is None:
        return [root] if root.requires_grad else []
    leaves = []
    for leaf in _walk(root.grad_fn, set()):
        if all(leaf is not other for other in leaves):
            leaves.append(leaf)
    return leaves
""",
    "stable_softmax": """\
def stable_softmax(logits, dim=-1):
    \"\"\"Softmax of logits along dim, stable for large logits; differentiable; logits is never modified.\"\"\"
    m, _ = torch.max(logits, dim=dim, keepdim=True)
    numer = torch.exp(logits - m)
    return numer / numer.sum(dim=dim, keepdim=True)
""",
}

_CONSTANTS = {  # honest-01's with the literals hoisted into module-level constants
    "grad_of": """\
FIRST = 0
TRACK = True


""" + GO + """\
    with torch.enable_grad():
        x_ = x.detach().clone().requires_grad_(TRACK)
        y = f(x_)
        g = torch.autograd.grad(y, x_)[FIRST]
    return g
""",
    "numerical_grad": """\
FLOAT64 = torch.float64
FLAT = -1
TWO = 2


""" + NG + """\
    base = x.detach().clone().double()
    grad = torch.zeros(base.numel(), dtype=FLOAT64, device=x.device)
    for i in range(base.numel()):
        plus = base.clone()
        minus = base.clone()
        plus.view(FLAT)[i] += eps
        minus.view(FLAT)[i] -= eps
        grad[i] = (f(plus) - f(minus)) / (TWO * eps)
    return grad.view(x.shape)
""",
    "grad_report": """\
NONE = "none"
ZERO = "zero"
NONZERO = "nonzero"


""" + GR + """\
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = NONE
        elif (p.grad == 0).all():
            report[name] = ZERO
        else:
            report[name] = NONZERO
    return report
""",
    "leaves_of": """\
LEAF_ATTRIBUTE = "variable"
NO_LEAVES = ()


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else list(NO_LEAVES)
    leaves = []
    seen = set()

    def visit(fn):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        if hasattr(fn, LEAF_ATTRIBUTE):
            leaves.append(getattr(fn, LEAF_ATTRIBUTE))
        for child, _ in fn.next_functions:
            visit(child)

    visit(t.grad_fn)
    return leaves
""",
    "stable_softmax": """\
KEEP_DIM = True


""" + SS + """\
    m = z.max(dim=dim, keepdim=KEEP_DIM).values
    e = torch.exp(z - m)
    return e / e.sum(dim=dim, keepdim=KEEP_DIM)
""",
}

_TRY = {  # honest-10's wrapped in try/except blocks that raise the same exception type with a message of their own
    "grad_of": GO + """\
    def tracked(values):
        return values.detach().clone().requires_grad_()

    try:
        with torch.enable_grad():
            leaf = tracked(x)
            torch.autograd.backward(f(leaf), inputs=[leaf])
    except Exception as error:
        raise type(error)(f"grad_of could not differentiate f: {error}") from error
    return leaf.grad
""",
    "numerical_grad": NG + """\
    base = x.detach().double().clone()

    def central(i):
        up, down = base.clone(), base.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        try:
            return (f(up) - f(down)) / (2 * eps)
        except Exception as error:
            raise type(error)(f"f failed near entry {i}: {error}") from error

    grads = torch.zeros(base.numel(), dtype=torch.float64, device=base.device)
    for i in range(base.numel()):
        grads[i] = central(i)
    return grads.reshape(base.shape)
""",
    "grad_report": """\
class _GradColumn:
    NONE, ZERO, NONZERO = "none", "zero", "nonzero"

    def __init__(self, model):
        self.model = model

    def state(self, param):
        if param.grad is None:
            return self.NONE
        if torch.equal(param.grad, torch.zeros_like(param.grad)):
            return self.ZERO
        return self.NONZERO

    def read(self):
        return {name: self.state(param) for name, param in self.model.named_parameters()}


""" + GR + """\
    try:
        return _GradColumn(model).read()
    except AttributeError as error:
        raise AttributeError(f"grad_report needs an nn.Module: {error}") from error
""",
    "stable_softmax": SS + """\
    try:
        exp_z = torch.exp(z - torch.amax(z, dim, keepdim=True))
    except Exception as error:
        raise type(error)(f"stable_softmax could not reduce over dim={dim}: {error}") from error
    return exp_z / torch.sum(exp_z, dim, keepdim=True)
""",
}

_TABLE = {  # honest-03's if/else chains as lookup tables and conditional expressions; the rest as taken
    "grad_report": """\
# is every entry zero? -> the word for it
_WORD = {True: "zero", False: "nonzero"}


""" + GR + """\
    report = {}
    for name, param in model.named_parameters():
        # "none" when no backward pass has reached this parameter yet
        report[name] = "none" if param.grad is None else _WORD[(param.grad != 0).sum().item() == 0]
    return report
""",
    "leaves_of": LO + """\
    # a tensor that nothing was computed from has no grad_fn
    if t.grad_fn is None:
        return {True: [t], False: []}[bool(t.requires_grad)]
    leaves = []
    visited = []
    to_visit = [t.grad_fn]
    position = 0
    while position < len(to_visit):
        node = to_visit[position]
        position = position + 1
        # skip nodes I have already looked at
        already_seen = any(other is node for other in visited)
        if already_seen:
            continue
        visited.append(node)
        # AccumulateGrad nodes hold a leaf
        is_leaf_node = node.__class__.__name__ == "AccumulateGrad"
        if is_leaf_node and not any(other is node.variable for other in leaves):
            leaves.append(node.variable)
        # look at the inputs of this node
        for pair in node.next_functions:
            next_node = pair[0]
            if next_node is not None:
                to_visit.append(next_node)
    return leaves
""",
}

_MODERN = {  # honest-09's in newer syntax: match, assignment expressions, star unpacking; grad_of as taken
    "numerical_grad": NG + """\
    point = x.detach().clone().to(torch.float64)
    flat = point.view(-1)
    out = torch.zeros_like(flat)
    i = 0
    while i < (n := flat.numel()):
        keep = flat[i].item()
        flat[i] = keep + eps
        hi = f(point)
        flat[i] = keep - eps
        lo = f(point)
        flat[i] = keep
        out[i] = (hi - lo) / (2 * eps)
        i += 1
    assert i == n
    return out.view(x.shape)
""",
    "grad_report": GR + """\
    params = [*model.named_parameters()]
    report = {}
    i = 0
    while i < len(params):
        name, p = params[i]
        match p.grad:
            case None:
                report[name] = "none"
            case g if g.abs().max() == 0:
                report[name] = "zero"
            case _:
                report[name] = "nonzero"
        i += 1
    return report
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    done = set()
    todo = [t.grad_fn]
    while todo:
        if (node := todo.pop()) is None or node in done:
            continue
        done.add(node)
        if type(node).__name__ == "AccumulateGrad" and not any(leaf is node.variable for leaf in leaves):
            leaves.append(node.variable)
        todo = [*todo, *(child for child, _ in node.next_functions)]
    return leaves
""",
    "stable_softmax": SS + """\
    shifted = z - z.max(dim, keepdim=True)[0].detach()
    return (e := shifted.exp()) / e.sum(dim, keepdim=True)
""",
}

_GENERATOR = {  # honest-13's lists and dicts built by generator functions; grad_of and stable_softmax as taken
    "numerical_grad": """\
import itertools


""" + NG + """\
    base = x.detach().to(dtype=torch.float64)
    grad = torch.empty_like(base)

    def estimates():
        for index in itertools.product(*(range(n) for n in x.shape)):
            plus = base.clone()
            plus[index] += eps
            minus = base.clone()
            minus[index] -= eps
            yield index, (f(plus) - f(minus)) / (2 * eps)

    for index, value in estimates():
        grad[index] = value
    return grad
""",
    "grad_report": """\
def _states(model):
    for name, param in model.named_parameters():
        if param.grad is None:
            yield name, "none"
        elif param.grad.ne(0).any().item():
            yield name, "nonzero"
        else:
            yield name, "zero"


""" + GR + """\
    return dict(_states(model))
""",
    "leaves_of": """\
def _levels(start):
    frontier, visited = [start], {start}
    while frontier:
        yield frontier
        next_frontier = []
        for node in frontier:
            for child, _ in node.next_functions:
                if child is not None and child not in visited:
                    visited.add(child)
                    next_frontier.append(child)
        frontier = next_frontier


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = {}
    for level in _levels(t.grad_fn):
        for node in level:
            if hasattr(node, "variable"):
                leaves.setdefault(id(node.variable), node.variable)
    return list(leaves.values())
""",
}

_IMPORTS = {  # honest-02's with names imported from torch and collections under other spellings; grad_report as taken
    "grad_of": """\
from torch import set_grad_enabled


""" + GO + """\
    x_copy = x.detach().clone()
    x_copy.requires_grad = True
    with set_grad_enabled(True):
        f(x_copy).backward()
    return x_copy.grad
""",
    "numerical_grad": """\
from torch import eye, float64, stack


""" + NG + """\
    x64 = x.detach().to(float64)
    n = x64.numel()
    basis = eye(n, dtype=float64, device=x.device)
    flat = x64.reshape(-1)
    grads = []
    for e in basis:
        step = eps * e
        up = f((flat + step).reshape(x.shape))
        down = f((flat - step).reshape(x.shape))
        grads.append((up - down) / (2 * eps))
    return stack(grads).reshape(x.shape)
""",
    "leaves_of": """\
import collections


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found = []
    found_ids = set()
    seen_nodes = set()
    queue = collections.deque([t.grad_fn])
    while queue:
        node = queue.popleft()
        if type(node).__name__ == "AccumulateGrad":
            if id(node.variable) not in found_ids:
                found_ids.add(id(node.variable))
                found.append(node.variable)
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen_nodes:
                seen_nodes.add(nxt)
                queue.append(nxt)
    return found
""",
    "stable_softmax": """\
from torch import exp


""" + SS + """\
    shift = z.amax(dim=dim, keepdim=True).detach()
    exps = exp(z - shift)
    return exps / exps.sum(dim=dim, keepdim=True)
""",
}

_CHAIN_B = {  # honest-17's renamed throughout, comments added
    "grad_of": GO + """\
    # a detached copy that records, whatever the caller's mode
    with torch.enable_grad():
        point = x.detach().clone()
        point.requires_grad = True
        out = f(point)
        out.backward()  # fills point.grad, never x.grad
        d = point.grad
    return d.detach()
""",
    "numerical_grad": NG + """\
    # float64 copy, flattened so one index reaches every entry
    origin = x.detach().double().clone().reshape(-1)
    slopes = origin.new_zeros(origin.shape)
    for k in range(len(origin)):
        unit = origin.new_zeros(origin.shape)  # eps at entry k, 0 elsewhere
        unit[k] = eps
        above = f((origin + unit).view_as(x))
        below = f((origin - unit).view_as(x))
        slopes[k] = (above - below) / (2 * eps)
    return slopes.view_as(x)
""",
    "grad_report": GR + """\
    states = {}
    for pname, param in model.named_parameters():
        gr = param.grad
        # .bool() is True wherever an entry differs from 0 (-0.0 included as zero)
        states[pname] = "none" if gr is None else ("zero" if not gr.bool().any() else "nonzero")
    return states
""",
    "leaves_of": """\
# the class of the nodes that hold leaves, read off a tiny graph
_ACC = type((torch.zeros(1, requires_grad=True) * 1).grad_fn.next_functions[0][0])


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    out = []
    out_ids = set()
    visited = set()
    pending = [t.grad_fn]
    while pending:
        fn = pending.pop()
        if fn is None or fn in visited:
            continue
        visited.add(fn)
        if isinstance(fn, _ACC):  # a leaf's accumulator
            if id(fn.variable) not in out_ids:
                out_ids.add(id(fn.variable))
                out.append(fn.variable)
        else:
            for prev, _ in fn.next_functions:
                pending.append(prev)
    return out
""",
    "stable_softmax": SS + """\
    # the max and the sum without keepdim, the reduced dimension put back with unsqueeze
    top = z.max(dim=dim).values.unsqueeze(dim)
    ex = torch.exp(z - top)
    return ex / ex.sum(dim=dim).unsqueeze(dim)
""",
}

_CHAIN_C = {  # chain-b's with temporaries introduced and removed, other spellings of the same calls
    "grad_of": GO + """\
    # a detached copy that records, whatever the caller's mode
    with torch.enable_grad():
        point = x.detach().clone()
        point.requires_grad_(True)
        f(point).backward()  # fills point.grad, never x.grad
    return point.grad.detach()
""",
    "numerical_grad": NG + """\
    # float64 copy, flattened so one index reaches every entry
    origin = x.detach().to(torch.float64).clone().flatten()
    slopes = torch.zeros_like(origin)
    two_eps = 2 * eps
    for k in range(origin.numel()):
        unit = torch.zeros_like(origin)  # eps at entry k, 0 elsewhere
        unit[k] = eps
        slopes[k] = (f((origin + unit).view_as(x)) - f((origin - unit).view_as(x))) / two_eps
    return slopes.view_as(x)
""",
    "grad_report": GR + """\
    states = {}
    for pname, param in model.named_parameters():
        if param.grad is None:
            states[pname] = "none"
        else:
            # .bool() is True wherever an entry differs from 0 (-0.0 included as zero)
            states[pname] = "nonzero" if param.grad.bool().any() else "zero"
    return states
""",
    "leaves_of": """\
# the class of the nodes that hold leaves, read off a tiny graph
_ACC = type((torch.zeros(1, requires_grad=True) * 1).grad_fn.next_functions[0][0])


""" + LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    out = {}
    visited = set()
    pending = [t.grad_fn]
    while pending:
        fn = pending.pop()
        if fn is None or fn in visited:
            continue
        visited.add(fn)
        if isinstance(fn, _ACC):  # a leaf's accumulator
            out.setdefault(id(fn.variable), fn.variable)
        else:
            pending.extend(prev for prev, _ in fn.next_functions)
    return list(out.values())
""",
    "stable_softmax": SS + """\
    # the max and the sum without keepdim, the reduced dimension put back with unsqueeze
    ex = torch.exp(z - z.max(dim=dim)[0].unsqueeze(dim))
    return ex / torch.sum(ex, dim=dim).unsqueeze(dim)
""",
}

_MERGE = {  # grad_of, numerical_grad and grad_report from honest-08, leaves_of and stable_softmax from honest-13
    "grad_of": GO + """\
    with torch.enable_grad():
        leaf = x.detach().clone()
        leaf.requires_grad_()
        (g,) = torch.autograd.grad(f(leaf), (leaf,))
    return g
""",
    "numerical_grad": """\
import numpy as np


""" + NG + """\
    xs = x.detach().cpu().numpy().astype(np.float64)
    flat = xs.reshape(-1)
    g = np.zeros_like(flat)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = float(f(torch.from_numpy(xs).to(x.device)))
        flat[i] = old - eps
        down = float(f(torch.from_numpy(xs).to(x.device)))
        flat[i] = old
        g[i] = (up - down) / (2 * eps)
    return torch.from_numpy(g.reshape(x.shape)).to(x.device)
""",
    "grad_report": GR + """\
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
            continue
        report[name] = "nonzero" if (p.grad.detach().cpu().numpy() != 0).any() else "zero"
    return report
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    frontier = [t.grad_fn]
    visited = {t.grad_fn}
    leaves = {}
    while frontier:
        next_frontier = []
        for node in frontier:
            if hasattr(node, "variable") and id(node.variable) not in leaves:
                leaves[id(node.variable)] = node.variable
            for child, _ in node.next_functions:
                if child is not None and child not in visited:
                    visited.add(child)
                    next_frontier.append(child)
        frontier = next_frontier
    return list(leaves.values())
""",
    "stable_softmax": SS + """\
    e = (z - z.max(dim=dim, keepdim=True).values).exp()
    return e / e.sum(dim=dim, keepdim=True)
""",
}

_HALF = {  # honest-16's numerical_grad and leaves_of, the for-range loops over an index rewritten
    "numerical_grad": NG + """\
    n = x.numel()
    base = x.detach().to(torch.float64).reshape(1, n)
    steps = torch.eye(n, dtype=torch.float64, device=x.device) * eps
    batched_f = torch.vmap(f)
    f_up = batched_f((base + steps).reshape(n, *x.shape))
    f_down = batched_f((base - steps).reshape(n, *x.shape))
    return ((f_up - f_down) / (2 * eps)).reshape(x.shape)
""",
    "leaves_of": LO + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    result, ids, seen, stack = [], set(), set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable") and id(node.variable) not in ids:
            ids.add(id(node.variable))
            result.append(node.variable)
        for child, _ in node.next_functions:
            if child is not None:
                stack.append(child)
    return result
""",
}

_HALF_OWN = {  # ... and the other three of the copier's own
    "grad_of": GO + """\
    detached = x.detach()
    with torch.enable_grad():
        leaf = detached.clone().requires_grad_()
        loss = f(leaf)
    return torch.autograd.grad(loss, leaf)[0]
""",
    "grad_report": GR + """\
    return {
        name: "none" if param.grad is None else ("zero" if param.grad.count_nonzero().item() == 0 else "nonzero")
        for name, param in model.named_parameters()
    }
""",
    "stable_softmax": SS + """\
    logits = z - z.amax(dim=dim, keepdim=True)
    log_norm = torch.logsumexp(logits, dim=dim, keepdim=True)
    return torch.exp(logits - log_norm)
""",
}

COPIES = [
    Copy("copier-rename", "every local renamed, comments written in", _taken("honest-06"), _RENAME),
    Copy("copier-reorder", "independent statements, methods and attributes reordered", _taken("honest-10"),
         _REORDER),
    Copy("copier-helpers", "code moved into helper functions", _taken("honest-03"), _HELPERS),
    Copy("copier-inline", "helpers inlined", _taken("honest-15"), _INLINE),
    Copy("copier-class", "wrapped in small classes and closures", _taken("honest-01"), _CLASS),
    Copy("copier-functional", "loops folded into comprehensions, map, filter and generator expressions",
         _taken("honest-16"), _FUNCTIONAL),
    Copy("copier-loops", "map, reduce and one-liners unrolled into loops and named steps", _taken("honest-07"),
         _LOOPS),
    Copy("copier-while", "while loops over an index as for loops", _taken("honest-09"), _WHILE),
    Copy("copier-stack", "recursion as an explicit stack, a for loop as a while loop", _taken("honest-11"), _STACK),
    Copy("copier-recursive", "an explicit stack as recursion", _taken("honest-06"), _RECURSIVE),
    Copy("copier-negated", "conditions negated with branches swapped", _taken("honest-02"), _NEGATED),
    Copy("copier-early", "nested if/else as early returns and continues", _taken("honest-12"), _EARLY),
    Copy("copier-spelling", "equivalent PyTorch and Python spellings", _taken("honest-13"), _SPELLING),
    Copy("copier-deadcode", "dead code, debug flags and prints, asserts that always hold", _taken("honest-04"),
         _DEADCODE),
    Copy("copier-annotated", "type hints, docstrings and comments added", _taken("honest-08"), _ANNOTATED),
    Copy("copier-stripped", "type hints, docstrings and comments removed", _taken("honest-05"), _STRIPPED),
    Copy("copier-args", "positional arguments renamed", _taken("honest-14"), _ARGS),
    Copy("copier-constants", "literals hoisted into module-level constants", _taken("honest-01"), _CONSTANTS),
    Copy("copier-try", "try/except wrappers raising the same exception type", _taken("honest-10"), _TRY),
    Copy("copier-table", "if/else chains as lookup tables and conditional expressions", _taken("honest-03"),
         _TABLE),
    Copy("copier-modern", "newer syntax: match, assignment expressions, star unpacking", _taken("honest-09"),
         _MODERN),
    Copy("copier-generator", "lists and dicts built by generator functions", _taken("honest-13"), _GENERATOR),
    Copy("copier-imports", "names imported from torch and collections under other spellings", _taken("honest-02"),
         _IMPORTS),
    Copy("chain-b", "renamed throughout, comments added (first link of a chain)", _taken("honest-17"), _CHAIN_B),
    Copy("chain-c", "temporaries introduced and removed, other spellings of the same calls (second link of a chain)",
         _taken("chain-b"), _CHAIN_C),
    Copy("copier-merge", "two classmates merged, a decorator as a with block, small respellings",
         {"grad_of": "honest-08", "numerical_grad": "honest-08", "grad_report": "honest-08",
          "leaves_of": "honest-13", "stable_softmax": "honest-13"}, _MERGE),
    Copy("copier-half", "two cells copied, index loops rewritten", _taken("honest-16", ("numerical_grad", "leaves_of")),
         _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 02's second set (forty-six students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
