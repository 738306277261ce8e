"""A planted cohort of module 02, written apart from the normaliser: kept out of tuning until it was measured
(18 of 56 cells, 9 of 14 pairs, before and after the changes it did not see), tuned on since.

Written without reading how ``similarity`` normalises or scores code, as an instructor who suspects copying
would plant it: what students do to hide a copy.  Fourteen honest students answer in their own styles
(``torch.autograd.grad``, a clone and ``backward``, ``torch.func.grad`` or ``torch.autograd.functional.jacobian``
for the gradient; central differences over flat indices, ``itertools.product``, ``np.unravel_index``, hand-made
``divmod`` indices or one-hot perturbation rows; reports as comprehensions, loops, helpers or sets; leaves found
by recursion, a generator, an explicit stack, a ``deque`` or level-by-level frontiers, with sets of ids, lists
or dicts keyed by ``id``; defensive checks, terse one-liners with walruses, a beginner's temporaries); they
converge, as students do, on the usual shapes of these answers; honest-14 leaves ``stable_softmax`` as the
release's stub; two write the course's answer (one hands in the reference word for word, one in their own
names).  Twelve copy, most cells disguised, one or more ways each:

- ``copier-stack`` (honest-01, all five): the recursive walk rewritten with an explicit stack, a ``for`` loop
  as a ``while`` loop, the report's comprehension as a loop with nested ``if`` statements, locals renamed; the softmax
  left as taken.
- ``copier-functional`` (honest-02, all five): loops replaced by ``map``, generator expressions and
  ``functools.reduce`` (the walk's de-duplication a fold over a generator, ``numel`` a product of the shape),
  a loop body made a nested function; the beginner's temporaries inlined, comments dropped.
- ``copier-guards`` (honest-04, all five): early ``continue`` guards turned into nested ``if``/``else``, walrus
  assignments (in a call's argument, in a subscript, in conditions), ``hasattr`` as ``getattr(..., None)``, a
  ``for`` over pairs indexed instead of unpacked; the softmax left as taken.
- ``copier-indexing`` (honest-05, all five): loops over items and tuple unpacking turned into index loops over
  ``range(len(...))`` with ``[i][0]``/``[i][1]``, a comprehension as an appending loop; the softmax re-spelled
  with ``torch.max(...)[0]``; ``grad_of`` left as taken.
- ``copier-signature`` (honest-06, all five): default and keyword-only arguments added (never passed by the
  course), constants hoisted to module level (``"none"``/``"zero"``/``"nonzero"`` as a string table, an
  f-string message), the defensive messages reworded.
- ``copier-spellings`` (honest-08, all five): tensor methods and ``torch`` functions swapped
  (``x.exp()``/``torch.exp(x)``, ``torch.div`` and ``/``, ``-`` and ``torch.sub``, ``.view_as`` and
  ``torch.reshape``, ``torch.zeros`` and ``.new_zeros``, ``.numel()`` and ``torch.numel``, ``torch.equal`` and
  ``.equal``, ``.backward()`` and ``torch.autograd.backward``, ``x.detach().clone()`` and
  ``torch.clone(torch.Tensor.detach(x))``), ``hasattr`` as ``getattr(..., None) is not None``, ``not any`` as
  ``all(... is not ...)``, ``[0]`` as ``.values``.
- ``copier-class`` (honest-09, all five): each answer moved into a small class (static methods, a ``__call__``, a
  walker object with state) that the graded function delegates to; ``grad_of`` left as taken.
- ``copier-debug`` (honest-10, all five): ``try``/``except`` wrappers that re-raise, debugging prints, an
  unused counter and flag, a branch that never runs, blank lines moved.
- ``chain-b`` (honest-11, all five) renames the locals and reorders independent statements; ``chain-c``
  (chain-b, four cells) reworks what it got: temporaries inlined, the walk's lists made sets and its nested
  ``if`` statements one condition, the report built as a comprehension, a list of floats turned into ``torch.stack``
  of tensors from a nested function, ``backward`` moved into the grad-mode block; writes its softmax alone.
- ``copier-merge`` takes ``grad_of`` and ``numerical_grad`` from honest-12 and ``grad_report``, ``leaves_of``
  and ``stable_softmax`` from honest-13: type hints added, docstrings rewritten, ``divmod`` indices from
  ``torch.unravel_index`` instead, the stack walk made recursive.
- ``copier-half`` takes only ``grad_of`` and ``leaves_of`` from honest-03 (``torch.func.grad`` with its
  ``argnums`` spelled out; the stack walk turned into a breadth-first ``deque``) and writes the other three
  alone.

Every answer handed in does what the contract asks (:mod:`.planted_run` runs each beside the course's and each copy
beside its source; the module's checks pass on them).  The truth follows from where each answer came from
(:func:`.planted.assemble`); ``python -m autograder.dev.planted_02`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "02-autograd-ledger"

GO = "def grad_of(f, x):\n"
NG = "def numerical_grad(f, x, eps=1e-3):\n"
GR = "def grad_report(model):\n"
LO = "def leaves_of(t):\n"
SS = "def stable_softmax(z, dim=-1):\n"
GO_DOC = GO + '    """Gradient of the scalar f(x) at x, without touching the caller\'s x."""\n'
NG_DOC = NG + '    """Central differences of the scalar f at x, in float64, shaped like x."""\n'
GR_DOC = GR + '    """{parameter name: "none" | "zero" | "nonzero"} from each parameter\'s current .grad."""\n'
LO_DOC = LO + '    """The leaves requiring grad that t depends on, each once, found by walking t.grad_fn."""\n'
SS_DOC = SS + '    """Softmax of z along dim, stable for large z; differentiable; z is never modified."""\n'

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # terse: a clone and backward, flat indices, a comprehension, a recursive walk
        "grad_of": GO_DOC + """\
    with torch.enable_grad():
        x = x.detach().clone().requires_grad_(True)
        f(x).backward()
    return x.grad
""",
        "numerical_grad": NG_DOC + """\
    x = x.detach().double()
    g = torch.empty_like(x)
    for i in range(x.numel()):
        d = torch.zeros_like(x)
        d.view(-1)[i] = eps
        g.view(-1)[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g
""",
        "grad_report": GR_DOC + """\
    return {n: "none" if p.grad is None else "zero" if not p.grad.any() else "nonzero"
            for n, p in model.named_parameters()}
""",
        "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    out, seen = [], set()

    def walk(node):
        if node is None or node in seen:
            return
        seen.add(node)
        if hasattr(node, "variable"):
            out.append(node.variable)
        for nxt, _ in node.next_functions:
            walk(nxt)

    walk(t.grad_fn)
    return out
""",
        "stable_softmax": SS_DOC + """\
    e = (z - z.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)
""",
    },
    "honest-02": {  # a beginner's temporaries and comments; copies per element; a queue
        "grad_of": GO_DOC + """\
    # make my own copy so the caller's tensor is not changed
    x_copy = x.detach().clone()
    x_copy.requires_grad = True
    # turn recording on in case we are called inside no_grad
    with torch.enable_grad():
        y = f(x_copy)
        grads = torch.autograd.grad(y, x_copy)
    result = grads[0]
    return result
""",
        "numerical_grad": NG_DOC + """\
    x64 = x.detach().to(torch.float64)
    result = torch.zeros(x64.shape, dtype=torch.float64, device=x64.device)
    n = x64.numel()
    for k in range(n):
        # one copy nudged up and one nudged down, at element k only
        x_plus = x64.clone()
        x_minus = x64.clone()
        x_plus.view(-1)[k] = x_plus.view(-1)[k] + eps
        x_minus.view(-1)[k] = x_minus.view(-1)[k] - eps
        f_plus = f(x_plus)
        f_minus = f(x_minus)
        # central difference
        result.view(-1)[k] = (f_plus - f_minus) / (2 * eps)
    return result
""",
        "grad_report": GR_DOC + """\
    report = {}
    for name, p in model.named_parameters():
        g = p.grad
        if g is None:
            # backward never reached this parameter
            report[name] = "none"
        elif torch.all(g == 0):
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
""",
        "leaves_of": "from collections import deque\n\n\n" + LO_DOC + """\
    # a tensor nobody computed is its own leaf (if it is tracked)
    if t.grad_fn is None:
        if t.requires_grad:
            return [t]
        return []
    leaves = []
    seen_ids = []
    visited = set()
    queue = deque([t.grad_fn])
    while len(queue) > 0:
        node = queue.popleft()
        if node is None:
            continue
        if node in visited:
            continue
        visited.add(node)
        # AccumulateGrad nodes are where the leaves are
        if type(node).__name__ == "AccumulateGrad":
            leaf = node.variable
            if id(leaf) not in seen_ids:
                seen_ids.append(id(leaf))
                leaves.append(leaf)
        for pair in node.next_functions:
            queue.append(pair[0])
    return leaves
""",
        "stable_softmax": SS_DOC + """\
    # subtract the biggest value in each row so exp never overflows
    biggest = torch.max(z, dim=dim, keepdim=True).values
    shifted = z - biggest
    exps = torch.exp(shifted)
    total = torch.sum(exps, dim=dim, keepdim=True)
    probs = exps / total
    return probs
""",
    },
    "honest-03": {  # torch.func, itertools.product, a helper, a stack with a dict keyed by id, logsumexp
        "grad_of": GO_DOC + """\
    return torch.func.grad(f)(x.detach())
""",
        "numerical_grad": "import itertools\n\n\n" + NG_DOC + """\
    base = x.detach().to(dtype=torch.float64, copy=True)
    out = torch.zeros_like(base)
    for idx in itertools.product(*(range(s) for s in base.shape)):
        step = torch.zeros_like(base)
        step[idx] = eps
        out[idx] = (f(base + step) - f(base - step)) / (2 * eps)
    return out
""",
        "grad_report": GR_DOC + """\
    def state(g):
        if g is None:
            return "none"
        return "nonzero" if torch.count_nonzero(g).item() else "zero"

    return {name: state(p.grad) for name, p in model.named_parameters()}
""",
        "leaves_of": LO_DOC + """\
    found = {}
    if t.grad_fn is None and t.requires_grad:
        found[id(t)] = t
    todo = [t.grad_fn] if t.grad_fn is not None else []
    done = set()
    while todo:
        fn = todo.pop()
        if fn in done:
            continue
        done.add(fn)
        v = getattr(fn, "variable", None)
        if v is not None:
            found.setdefault(id(v), v)
        todo += [n for n, _ in fn.next_functions if n is not None]
    return list(found.values())
""",
        "stable_softmax": SS_DOC + """\
    return torch.exp(z - torch.logsumexp(z, dim=dim, keepdim=True))
""",
    },
    "honest-04": {  # np.unravel_index, continue guards, a stack
        "grad_of": GO_DOC + """\
    with torch.enable_grad():
        point = x.detach().clone().requires_grad_()
        value = f(point)
        grad = torch.autograd.grad(value, point, retain_graph=False)[0]
    return grad
""",
        "numerical_grad": NG_DOC + """\
    import numpy as np

    base = x.detach().to(torch.float64)
    grad = torch.zeros_like(base)
    for k in range(base.numel()):
        idx = np.unravel_index(k, tuple(base.shape))
        plus = base.clone()
        plus[idx] += eps
        minus = base.clone()
        minus[idx] -= eps
        grad[idx] = (f(plus) - f(minus)) / (2 * eps)
    return grad
""",
        "grad_report": GR_DOC + """\
    report = {}
    for name, param in model.named_parameters():
        if param.grad is None:
            report[name] = "none"
            continue
        report[name] = "nonzero" if (param.grad != 0).any() else "zero"
    return report
""",
        "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    result, ids, seen = [], set(), set()
    stack = [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None:
            continue
        if fn in seen:
            continue
        seen.add(fn)
        if hasattr(fn, "variable"):
            if id(fn.variable) not in ids:
                ids.add(id(fn.variable))
                result.append(fn.variable)
            continue
        for child, _ in fn.next_functions:
            stack.append(child)
    return result
""",
        "stable_softmax": SS_DOC + """\
    m = z.max(dim, keepdim=True)[0]
    ez = (z - m).exp()
    return ez / ez.sum(dim, keepdim=True)
""",
    },
    "honest-05": {  # one-hot perturbation rows, abs().sum(), a recursion that returns lists, a detached max
        "grad_of": GO_DOC + """\
    x_ = x.detach().clone()
    x_.requires_grad_(True)
    with torch.enable_grad():
        loss = f(x_)
    loss.backward()
    return x_.grad.detach()
""",
        "numerical_grad": NG_DOC + """\
    base = x.detach().to(torch.float64).reshape(-1)
    steps = torch.eye(base.numel(), dtype=torch.float64, device=base.device) * eps
    diffs = [f((base + s).view(x.shape)) - f((base - s).view(x.shape)) for s in steps]
    return (torch.stack(diffs) / (2 * eps)).view(x.shape)
""",
        "grad_report": GR_DOC + """\
    out = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            out[name] = "none"
        else:
            out[name] = "zero" if p.grad.abs().sum().item() == 0 else "nonzero"
    return out
""",
        "leaves_of": LO_DOC + """\
    def collect(fn, seen):
        if fn is None or fn in seen:
            return []
        seen.add(fn)
        if type(fn).__name__ == "AccumulateGrad":
            return [fn.variable]
        found = []
        for child, _ in fn.next_functions:
            found += collect(child, seen)
        return found

    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    return collect(t.grad_fn, set())
""",
        "stable_softmax": SS_DOC + """\
    z_max = z.detach().max(dim=dim, keepdim=True).values  # a shift: softmax does not depend on it
    exp_z = torch.exp(z - z_max)
    return exp_z / exp_z.sum(dim=dim, keepdim=True)
""",
    },
    "honest-06": {  # defensive: type checks, clear errors, assertions
        "grad_of": GO_DOC + """\
    if not isinstance(x, torch.Tensor):
        raise TypeError("x must be a tensor")
    with torch.enable_grad():
        inp = x.detach().clone().requires_grad_(True)
        out = f(inp)
        if out.numel() != 1:
            raise ValueError(f"f(x) must be a scalar, got shape {tuple(out.shape)}")
        (g,) = torch.autograd.grad(out.reshape(()), inp)
    assert g.grad_fn is None
    return g
""",
        "numerical_grad": NG_DOC + """\
    if eps <= 0:
        raise ValueError("eps must be positive")
    x64 = x.detach().clone().double()
    flat = x64.view(-1)
    grad = torch.empty(flat.numel(), dtype=torch.float64, device=x64.device)
    with torch.no_grad():
        for i in range(flat.numel()):
            saved = flat[i].clone()
            flat[i] = saved + eps
            f_up = float(f(x64))
            flat[i] = saved - eps
            f_down = float(f(x64))
            flat[i] = saved
            grad[i] = (f_up - f_down) / (2 * eps)
    return grad.reshape(x.shape)
""",
        "grad_report": GR_DOC + """\
    if not isinstance(model, torch.nn.Module):
        raise TypeError("grad_report expects an nn.Module")
    report: dict[str, str] = {}
    for name, param in model.named_parameters():
        grad = param.grad
        if grad is None:
            state = "none"
        elif bool(torch.any(grad != 0)):
            state = "nonzero"
        else:
            state = "zero"
        report[name] = state
    return report
""",
        "leaves_of": LO_DOC + """\
    if not isinstance(t, torch.Tensor):
        raise TypeError("t must be a tensor")
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    queue = [t.grad_fn]
    seen = {t.grad_fn}
    leaves = []
    i = 0
    while i < len(queue):
        node = queue[i]
        i += 1
        if hasattr(node, "variable"):
            v = node.variable
            if v.requires_grad and all(v is not leaf for leaf in leaves):
                leaves.append(v)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return leaves
""",
        "stable_softmax": SS_DOC + """\
    if not torch.is_floating_point(z):
        raise TypeError("stable_softmax needs a floating-point tensor")
    shift = z.amax(dim=dim, keepdim=True)
    num = torch.exp(z - shift)
    den = num.sum(dim=dim, keepdim=True)
    return num / den
""",
    },
    "honest-07": {  # terse one-liners, walruses, a one-hot eye
        "grad_of": GO_DOC + """\
    with torch.enable_grad():
        return torch.autograd.grad(f(leaf := x.detach().requires_grad_()), leaf)[0]
""",
        "numerical_grad": NG_DOC + """\
    b = x.detach().double()
    e = torch.eye(b.numel(), dtype=torch.float64, device=b.device).view(-1, *b.shape) * eps
    return torch.stack([(f(b + d) - f(b - d)) / (2 * eps) for d in e]).view(b.shape)
""",
        "grad_report": GR_DOC + """\
    return {n: ("none" if p.grad is None else "nonzero" if p.grad.count_nonzero() else "zero")
            for n, p in model.named_parameters()}
""",
        "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    seen, stack, out = set(), [t.grad_fn], {}
    while stack:
        n = stack.pop()
        if n is not None and n not in seen:
            seen.add(n)
            if hasattr(n, "variable"): out[id(n.variable)] = n.variable
            stack += [c for c, _ in n.next_functions]
    return list(out.values())
""",
        "stable_softmax": SS_DOC + """\
    return (e := (z - z.max(dim, keepdim=True).values).exp()) / e.sum(dim, keepdim=True)
""",
    },
    "honest-08": {  # backward on a clone, a one-hot row per element, torch.equal, a generator walk
        "grad_of": GO_DOC + """\
    xc = x.detach().clone()
    xc.requires_grad_(True)
    with torch.enable_grad():
        y = f(xc)
        y.backward()
    g = xc.grad
    xc.grad = None
    return g
""",
        "numerical_grad": NG_DOC + """\
    x0 = x.detach().to(torch.float64)
    out = torch.zeros(x0.numel(), dtype=torch.float64, device=x0.device)
    for j in range(x0.numel()):
        e = torch.zeros(x0.numel(), dtype=torch.float64, device=x0.device)
        e[j] = eps
        e = e.view_as(x0)
        out[j] = f(x0 + e) - f(x0 - e)
    return (out / (2 * eps)).view_as(x0)
""",
        "grad_report": GR_DOC + """\
    names = {}
    for n, p in model.named_parameters():
        if p.grad is None:
            names[n] = "none"
        elif torch.equal(p.grad, torch.zeros_like(p.grad)):
            names[n] = "zero"
        else:
            names[n] = "nonzero"
    return names
""",
        "leaves_of": LO_DOC + """\
    def walk(fn, seen):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        if hasattr(fn, "variable"):
            yield fn.variable
        for child, _ in fn.next_functions:
            yield from walk(child, seen)

    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    unique = []
    for leaf in walk(t.grad_fn, set()):
        if not any(leaf is u for u in unique):
            unique.append(leaf)
    return unique
""",
        "stable_softmax": SS_DOC + """\
    shifted = z - z.max(dim=dim, keepdim=True)[0]
    return torch.div(shifted.exp(), shifted.exp().sum(dim=dim, keepdim=True))
""",
    },
    "honest-09": {  # autograd.functional.jacobian, a nested probe, a helper, level-by-level frontiers
        "grad_of": GO_DOC + """\
    g = torch.autograd.functional.jacobian(f, x.detach())
    return g.detach()
""",
        "numerical_grad": NG_DOC + """\
    def at(offset, i):
        p = x.detach().double().clone()
        p.view(-1)[i] += offset
        return f(p)

    n = x.numel()
    vals = torch.tensor([float(at(eps, i) - at(-eps, i)) / (2 * eps) for i in range(n)], dtype=torch.float64)
    return vals.reshape(x.shape).to(x.device)
""",
        "grad_report": GR_DOC + """\
    def kind(p):
        if p.grad is None:
            return "none"
        if p.grad.ne(0).sum() == 0:
            return "zero"
        return "nonzero"

    return dict((name, kind(p)) for name, p in model.named_parameters())
""",
        "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    frontier = {t.grad_fn}
    seen = set(frontier)
    leaves = {}
    while frontier:
        nxt = set()
        for node in frontier:
            if hasattr(node, "variable"):
                leaves[id(node.variable)] = node.variable
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    nxt.add(child)
        frontier = nxt
    return list(leaves.values())
""",
        "stable_softmax": SS_DOC + """\
    c = torch.amax(z, dim=dim, keepdim=True)
    w = torch.exp(z - c)
    return w / torch.sum(w, dim=dim, keepdim=True)
""",
    },
    "honest-10": {  # close to the lesson's own shapes, in the student's names
        "grad_of": GO_DOC + """\
    with torch.enable_grad():
        z = x.detach().requires_grad_(True)
        grad, = torch.autograd.grad(f(z), [z])
    return grad
""",
        "numerical_grad": NG_DOC + """\
    p = x.detach().clone().to(torch.float64)
    flat = p.reshape(-1)
    g = torch.zeros_like(flat)
    with torch.no_grad():
        for i in range(len(flat)):
            v = flat[i].item()
            flat[i] = v + eps
            hi = f(p)
            flat[i] = v - eps
            lo = f(p)
            flat[i] = v
            g[i] = (hi - lo) / (2 * eps)
    return g.reshape(x.shape)
""",
        "grad_report": GR_DOC + """\
    result = {}
    for name, w in model.named_parameters():
        if w.grad is None:
            result[name] = "none"
        elif w.grad.count_nonzero().item() == 0:
            result[name] = "zero"
        else:
            result[name] = "nonzero"
    return result
""",
        "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    visited = set()
    stack = [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn in visited:
            continue
        visited.add(fn)
        if type(fn).__name__ == "AccumulateGrad":
            leaves.append(fn.variable)
        stack.extend(nf for nf, _ in fn.next_functions if nf is not None)
    return leaves
""",
        "stable_softmax": SS_DOC + """\
    shifted = z - z.max(dim=dim, keepdim=True).values
    return shifted.exp() / shifted.exp().sum(dim=dim, keepdim=True)
""",
    },
    "honest-11": {  # a beginner: set_grad_enabled, a list of floats, a params dict, lists for visited
        "grad_of": GO_DOC + """\
    x2 = x.clone().detach()
    x2.requires_grad = True
    with torch.set_grad_enabled(True):
        out = f(x2)
    out.backward()
    answer = x2.grad.clone()
    return answer
""",
        "numerical_grad": NG_DOC + """\
    xd = x.detach().double()
    shape = xd.shape
    flat = xd.flatten()
    grads = []
    for i in range(flat.numel()):
        up = flat.clone()
        up[i] += eps
        down = flat.clone()
        down[i] -= eps
        grads.append((f(up.reshape(shape)) - f(down.reshape(shape))).item() / (2 * eps))
    return torch.tensor(grads, dtype=torch.float64, device=x.device).reshape(shape)
""",
        "grad_report": GR_DOC + """\
    report = dict()
    params = dict(model.named_parameters())
    for name in params:
        grad = params[name].grad
        if grad is None:
            report[name] = "none"
        else:
            nonzero = (grad != 0).sum().item()
            if nonzero > 0:
                report[name] = "nonzero"
            else:
                report[name] = "zero"
    return report
""",
        "leaves_of": LO_DOC + """\
    found = []
    found_ids = []
    visited = []

    def go(node):
        if node is None:
            return
        for v in visited:
            if v is node:
                return
        visited.append(node)
        if hasattr(node, "variable"):
            if id(node.variable) not in found_ids:
                found_ids.append(id(node.variable))
                found.append(node.variable)
        for pair in node.next_functions:
            go(pair[0])

    if t.grad_fn is None:
        if t.requires_grad:
            found.append(t)
        return found
    go(t.grad_fn)
    return found
""",
        "stable_softmax": SS_DOC + """\
    maxes = z.max(dim=dim, keepdim=True).values
    top = torch.exp(z - maxes)
    bottom = top.sum(dim=dim, keepdim=True)
    answer = top / bottom
    return answer
""",
    },
    "honest-12": {  # copy_ into an empty tensor, divmod indices, a comprehension over pairs, a memoised walk
        "grad_of": GO_DOC + """\
    leaf = torch.empty_like(x).copy_(x.detach())
    leaf.requires_grad_()
    with torch.enable_grad():
        value = f(leaf)
    return torch.autograd.grad(value, leaf)[0]
""",
        "numerical_grad": NG_DOC + """\
    base = x.detach().to(torch.float64)
    grad = torch.zeros_like(base)
    for k in range(base.numel()):
        idx = []
        rest = k
        for size in reversed(base.shape):
            rest, r = divmod(rest, size)
            idx.append(r)
        idx = tuple(reversed(idx))
        plus, minus = base.clone(), base.clone()
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (f(plus) - f(minus)) / (2 * eps)
    return grad
""",
        "grad_report": GR_DOC + """\
    names_and_grads = [(n, p.grad) for n, p in model.named_parameters()]
    return {n: "none" if g is None else ("zero" if torch.all(g.eq(0)) else "nonzero") for n, g in names_and_grads}
""",
        "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    memo = {}

    def leaves(fn):
        if fn is None:
            return {}
        if fn not in memo:
            memo[fn] = {}
            if hasattr(fn, "variable"):
                memo[fn][id(fn.variable)] = fn.variable
            for child, _ in fn.next_functions:
                memo[fn].update(leaves(child))
        return memo[fn]

    return list(leaves(t.grad_fn).values())
""",
        "stable_softmax": SS_DOC + """\
    z_stable = z - torch.max(z, dim, keepdim=True).values
    numer = z_stable.exp()
    return numer / numer.sum(dim, keepdim=True)
""",
    },
    "honest-13": {  # backward with ones_like, enumerate over floats, eq(0).all(), node.name()
        "grad_of": GO_DOC + """\
    x_leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        y = f(x_leaf)
        y.backward(torch.ones_like(y))
    return x_leaf.grad
""",
        "numerical_grad": NG_DOC + """\
    point = x.detach().double().contiguous().clone()
    out = torch.empty_like(point)
    for i, value in enumerate(point.view(-1).tolist()):
        point.view(-1)[i] = value + eps
        f_plus = f(point).item()
        point.view(-1)[i] = value - eps
        f_minus = f(point).item()
        point.view(-1)[i] = value
        out.view(-1)[i] = (f_plus - f_minus) / (2 * eps)
    return out
""",
        "grad_report": GR_DOC + """\
    report = {}
    for name, param in model.named_parameters():
        if param.grad is None:
            report[name] = "none"
        elif param.grad.eq(0).all():
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
""",
        "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves, leaf_ids, seen = [], set(), set()
    pending = [t.grad_fn]
    while pending:
        node = pending.pop()
        seen.add(node)
        if node.name() == "torch::autograd::AccumulateGrad":
            if id(node.variable) not in leaf_ids:
                leaf_ids.add(id(node.variable))
                leaves.append(node.variable)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                pending.append(child)
    return leaves
""",
        "stable_softmax": SS_DOC + """\
    z_max, _ = z.max(dim=dim, keepdim=True)
    e = torch.exp(z - z_max)
    return e / e.sum(dim=dim, keepdim=True)
""",
    },
    "honest-14": {  # grad mode saved and restored by hand, index_fill_, sets of names; no softmax handed in
        "grad_of": GO_DOC + """\
    was_enabled = torch.is_grad_enabled()
    try:
        torch.set_grad_enabled(True)
        mine = x.detach().clone().requires_grad_()
        grads = torch.autograd.grad(f(mine), mine)
    finally:
        torch.set_grad_enabled(was_enabled)
    return grads[0]
""",
        "numerical_grad": NG_DOC + """\
    x64 = x.detach().to(torch.float64)
    flat = x64.reshape(-1)
    grads = torch.zeros_like(flat)
    for i in range(flat.shape[0]):
        bump = torch.zeros_like(flat).index_fill_(0, torch.tensor([i], device=flat.device), eps)
        grads[i] = (f((flat + bump).reshape(x64.shape)) - f((flat - bump).reshape(x64.shape))) / (2 * eps)
    return grads.reshape(x64.shape)
""",
        "grad_report": GR_DOC + """\
    names = [n for n, _ in model.named_parameters()]
    none = {n for n, p in model.named_parameters() if p.grad is None}
    zero = {n for n, p in model.named_parameters() if p.grad is not None and not p.grad.any()}
    return {n: "none" if n in none else "zero" if n in zero else "nonzero" for n in names}
""",
        "leaves_of": LO_DOC + """\
    def walk(node, seen):
        if node is None or node in seen:
            return []
        seen.add(node)
        here = [node.variable] if hasattr(node, "variable") else []
        return here + [leaf for child, _ in node.next_functions for leaf in walk(child, seen)]

    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    unique = {}
    for leaf in walk(t.grad_fn, set()):
        unique.setdefault(id(leaf), leaf)
    return list(unique.values())
""",
    },
}

# The course's answer in a student's own names (canonical-2); canonical-1 hands in the reference word for word.
CANONICAL_OWN_NAMES = {
    "grad_of": GO_DOC + """\
    with torch.enable_grad():
        mine = x.detach().requires_grad_()
        value = f(mine)
        (g,) = torch.autograd.grad(value, mine)
    return g
""",
    "numerical_grad": NG_DOC + """\
    probe = x.detach().to(torch.float64).clone()
    entries = probe.view(-1)
    estimate = torch.zeros_like(entries)
    with torch.no_grad():
        for k in range(entries.numel()):
            keep = entries[k].item()
            entries[k] = keep + eps
            above = f(probe)
            entries[k] = keep - eps
            below = f(probe)
            entries[k] = keep
            estimate[k] = (above - below) / (2 * eps)
    return estimate.view(x.shape)
""",
    "grad_report": GR_DOC + """\
    states = {}
    for pname, p in model.named_parameters():
        if p.grad is None:
            states[pname] = "none"
        elif torch.count_nonzero(p.grad) == 0:
            states[pname] = "zero"
        else:
            states[pname] = "nonzero"
    return states
""",
    "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    out, got, done = [], set(), set()
    todo = [t.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in done:
            continue
        done.add(fn)
        v = getattr(fn, "variable", None)
        if v is not None and id(v) not in got:
            got.add(id(v))
            out.append(v)
        todo.extend(nxt for nxt, _ in fn.next_functions)
    return out
""",
    "stable_softmax": SS_DOC + """\
    moved = z - z.max(dim=dim, keepdim=True).values
    ex = moved.exp()
    return ex / ex.sum(dim=dim, keepdim=True)
""",
}

_STACK = {  # honest-01's answers: the recursion as an explicit stack, for as while, the comprehension as a loop
    "grad_of": GO_DOC + """\
    with torch.enable_grad():
        inp = x.detach().clone().requires_grad_(True)
        f(inp).backward()
    return inp.grad
""",
    "numerical_grad": NG_DOC + """\
    pt = x.detach().double()
    grad = torch.empty_like(pt)
    i = 0
    while i < pt.numel():
        bump = torch.zeros_like(pt)
        bump.view(-1)[i] = eps
        grad.view(-1)[i] = (f(pt + bump) - f(pt - bump)) / (2 * eps)
        i += 1
    return grad
""",
    "grad_report": GR_DOC + """\
    out = {}
    for n, p in model.named_parameters():
        if p.grad is not None:
            if p.grad.any():
                out[n] = "nonzero"
            else:
                out[n] = "zero"
        else:
            out[n] = "none"
    return out
""",
    "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found, visited = [], set()
    stack = [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in visited:
            continue
        visited.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(child for child, _ in reversed(node.next_functions))
    return found
""",
}

_FUNCTIONAL = {  # honest-02's answers with the loops as map, generator expressions and functools.reduce
    "grad_of": GO_DOC + """\
    x_copy = x.detach().clone()
    x_copy.requires_grad = True
    with torch.enable_grad():
        return torch.autograd.grad(f(x_copy), x_copy)[0]
""",
    "numerical_grad": "import functools\n\n\n" + NG_DOC + """\
    x64 = x.detach().to(torch.float64)
    size = functools.reduce(lambda a, b: a * b, x64.shape, 1)

    def nudged(k, step):
        moved = x64.clone()
        moved.view(-1)[k] = moved.view(-1)[k] + step
        return f(moved)

    diffs = map(lambda k: (nudged(k, eps) - nudged(k, -eps)) / (2 * eps), range(size))
    return torch.stack(list(diffs)).to(torch.float64).reshape(x64.shape)
""",
    "grad_report": GR_DOC + """\
    def label(item):
        name, p = item
        if p.grad is None:
            return name, "none"
        return name, "zero" if torch.all(p.grad == 0) else "nonzero"

    return dict(map(label, model.named_parameters()))
""",
    "leaves_of": "import functools\nfrom collections import deque\n\n\n" + LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    visited = set()
    queue = deque([t.grad_fn])
    order = []
    while queue:
        node = queue.popleft()
        if node is None or node in visited:
            continue
        visited.add(node)
        order.append(node)
        queue.extend(pair[0] for pair in node.next_functions)
    accumulate = (node.variable for node in order if type(node).__name__ == "AccumulateGrad")
    return functools.reduce(lambda acc, leaf: acc if any(leaf is a for a in acc) else acc + [leaf], accumulate, [])
""",
    "stable_softmax": SS_DOC + """\
    exps = torch.exp(z - torch.max(z, dim=dim, keepdim=True).values)
    return exps / torch.sum(exps, dim=dim, keepdim=True)
""",
}

_GUARDS = {  # honest-04's answers: continue guards as nested ifs (and the reverse), walruses
    "grad_of": GO_DOC + """\
    with torch.enable_grad():
        value = f(point := x.detach().clone().requires_grad_())
        grad = torch.autograd.grad(value, point, retain_graph=False)[0]
    return grad
""",
    "numerical_grad": NG_DOC + """\
    import numpy as np

    base = x.detach().to(torch.float64)
    grad = torch.zeros_like(base)
    for k in range(base.numel()):
        plus, minus = base.clone(), base.clone()
        plus[(idx := np.unravel_index(k, tuple(base.shape)))] += eps
        minus[idx] -= eps
        grad[idx] = (f(plus) - f(minus)) / (2 * eps)
    return grad
""",
    "grad_report": GR_DOC + """\
    report = {}
    for name, param in model.named_parameters():
        if param.grad is not None:
            report[name] = "nonzero" if (param.grad != 0).any() else "zero"
        else:
            report[name] = "none"
    return report
""",
    "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    result, ids, seen = [], set(), set()
    stack = [t.grad_fn]
    while stack:
        if (fn := stack.pop()) is not None and fn not in seen:
            seen.add(fn)
            if (v := getattr(fn, "variable", None)) is not None:
                if id(v) not in ids:
                    ids.add(id(v))
                    result.append(v)
            else:
                for pair in fn.next_functions:
                    stack.append(pair[0])
    return result
""",
}

_INDEXING = {  # honest-05's answers: loops over items as index loops, one index loop as zip
    "numerical_grad": NG_DOC + """\
    base = x.detach().to(torch.float64).reshape(-1)
    steps = torch.eye(base.numel(), dtype=torch.float64, device=base.device) * eps
    diffs = []
    for i in range(len(steps)):
        diffs.append(f((base + steps[i]).view(x.shape)) - f((base - steps[i]).view(x.shape)))
    return (torch.stack(diffs) / (2 * eps)).view(x.shape)
""",
    "grad_report": GR_DOC + """\
    params = list(model.named_parameters())
    out = {}
    for i in range(len(params)):
        if params[i][1].grad is None:
            out[params[i][0]] = "none"
        else:
            out[params[i][0]] = "zero" if params[i][1].grad.abs().sum().item() == 0 else "nonzero"
    return out
""",
    "leaves_of": LO_DOC + """\
    def collect(fn, seen):
        if fn is None or fn in seen:
            return []
        seen.add(fn)
        if type(fn).__name__ == "AccumulateGrad":
            return [fn.variable]
        found = []
        nexts = fn.next_functions
        for i in range(len(nexts)):
            found += collect(nexts[i][0], seen)
        return found

    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    return collect(t.grad_fn, set())
""",
    "stable_softmax": SS_DOC + """\
    z_max = torch.max(z.detach(), dim=dim, keepdim=True)[0]
    exp_z = torch.exp(z - z_max)
    return exp_z / exp_z.sum(dim=dim, keepdim=True)
""",
}

_SIGNATURE = {  # honest-06's answers with keyword-only and default arguments, constants hoisted, messages reworded
    "grad_of": """\
def grad_of(f, x, *, check_scalar=True):
    \"\"\"Gradient of the scalar f(x) at x, without touching the caller's x.\"\"\"
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"grad_of: x should be a torch.Tensor, not {type(x).__name__}")
    with torch.enable_grad():
        inp = x.detach().clone().requires_grad_(True)
        out = f(inp)
        if check_scalar and out.numel() != 1:
            raise ValueError(f"grad_of: f(x) has shape {tuple(out.shape)}, expected a scalar")
        (g,) = torch.autograd.grad(out.reshape(()), inp)
    assert g.grad_fn is None
    return g
""",
    "numerical_grad": """\
MIN_EPS = 0.0
PROBE_DTYPE = torch.float64


def numerical_grad(f, x, eps=1e-3, *, dtype=PROBE_DTYPE):
    \"\"\"Central differences of the scalar f at x, in float64, shaped like x.\"\"\"
    if eps <= MIN_EPS:
        raise ValueError(f"eps must be > {MIN_EPS}, got {eps}")
    x64 = x.detach().clone().to(dtype)
    flat = x64.view(-1)
    grad = torch.empty(flat.numel(), dtype=dtype, device=x64.device)
    with torch.no_grad():
        for i in range(flat.numel()):
            saved = flat[i].clone()
            flat[i] = saved + eps
            f_up = float(f(x64))
            flat[i] = saved - eps
            f_down = float(f(x64))
            flat[i] = saved
            grad[i] = (f_up - f_down) / (2 * eps)
    return grad.reshape(x.shape)
""",
    "grad_report": """\
STATES = {None: "none", False: "zero", True: "nonzero"}
NOT_A_MODULE = "grad_report wants an nn.Module, got {kind}"


def grad_report(model, *, strict=True):
    \"\"\"{parameter name: "none" | "zero" | "nonzero"} from each parameter's current .grad.\"\"\"
    if strict and not isinstance(model, torch.nn.Module):
        raise TypeError(NOT_A_MODULE.format(kind=type(model).__name__))
    report = {}
    for name, param in model.named_parameters():
        grad = param.grad
        report[name] = STATES[None if grad is None else bool(torch.any(grad != 0))]
    return report
""",
    "leaves_of": """\
NOT_A_TENSOR = "leaves_of wants a tensor, got {kind}"


def leaves_of(t, *, strict=True):
    \"\"\"The leaves requiring grad that t depends on, each once, found by walking t.grad_fn.\"\"\"
    if strict and not isinstance(t, torch.Tensor):
        raise TypeError(NOT_A_TENSOR.format(kind=type(t).__name__))
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    queue, seen, leaves, i = [t.grad_fn], {t.grad_fn}, [], 0
    while i < len(queue):
        node = queue[i]
        i += 1
        if hasattr(node, "variable"):
            v = node.variable
            if v.requires_grad and all(v is not leaf for leaf in leaves):
                leaves.append(v)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return leaves
""",
    "stable_softmax": """\
FLOAT_ONLY = "stable_softmax: z must be floating point, got {dtype}"


def stable_softmax(z, dim=-1, *, keepdim=True):
    \"\"\"Softmax of z along dim, stable for large z; differentiable; z is never modified.\"\"\"
    if not torch.is_floating_point(z):
        raise TypeError(FLOAT_ONLY.format(dtype=z.dtype))
    shift = z.amax(dim=dim, keepdim=keepdim)
    num = torch.exp(z - shift)
    return num / num.sum(dim=dim, keepdim=keepdim)
""",
}

_SPELLINGS = {  # honest-08's answers in other spellings: tensor methods and torch functions swapped
    "grad_of": GO_DOC + """\
    xc = torch.clone(torch.Tensor.detach(x))
    xc.requires_grad = True
    with torch.enable_grad():
        y = f(xc)
        torch.autograd.backward(y)
    g = xc.grad
    xc.grad = None
    return g
""",
    "numerical_grad": NG_DOC + """\
    x0 = x.detach().double()
    out = x0.new_zeros(torch.numel(x0))
    for j in range(torch.numel(x0)):
        e = x0.new_zeros(torch.numel(x0))
        e[j] = eps
        e = torch.reshape(e, x0.shape)
        out[j] = torch.sub(f(x0 + e), f(x0 - e))
    return torch.reshape(torch.div(out, 2 * eps), x0.shape)
""",
    "grad_report": GR_DOC + """\
    names = {}
    for n, p in model.named_parameters():
        if p.grad is None:
            names[n] = "none"
        elif p.grad.equal(p.grad.new_zeros(p.grad.shape)):
            names[n] = "zero"
        else:
            names[n] = "nonzero"
    return names
""",
    "leaves_of": LO_DOC + """\
    def walk(fn, seen):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        if getattr(fn, "variable", None) is not None:
            yield fn.variable
        for child, _ in fn.next_functions:
            yield from walk(child, seen)

    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    unique = []
    for leaf in walk(t.grad_fn, set()):
        if all(leaf is not u for u in unique):
            unique.append(leaf)
    return unique
""",
    "stable_softmax": SS_DOC + """\
    shifted = torch.sub(z, torch.max(z, dim=dim, keepdim=True).values)
    return torch.exp(shifted) / torch.exp(shifted).sum(dim=dim, keepdim=True)
""",
}

_CLASS = {  # honest-09's answers moved into small classes the graded functions delegate to
    "numerical_grad": """\
class _Probe:
    \"\"\"f at a float64 copy of x with one entry moved.\"\"\"

    def __init__(self, f, x):
        self.f, self.x = f, x

    def __call__(self, offset, i):
        p = self.x.detach().double().clone()
        p.view(-1)[i] += offset
        return self.f(p)


""" + NG_DOC + """\
    probe = _Probe(f, x)
    vals = torch.tensor([float(probe(eps, i) - probe(-eps, i)) / (2 * eps) for i in range(x.numel())],
                        dtype=torch.float64)
    return vals.reshape(x.shape).to(x.device)
""",
    "grad_report": """\
class GradKinds:
    @staticmethod
    def of(p):
        if p.grad is None:
            return "none"
        if p.grad.ne(0).sum() == 0:
            return "zero"
        return "nonzero"

    @classmethod
    def report(cls, model):
        return dict((name, cls.of(p)) for name, p in model.named_parameters())


""" + GR_DOC + """\
    return GradKinds.report(model)
""",
    "leaves_of": """\
class _Frontier:
    \"\"\"Breadth-first over grad_fn nodes, one level at a time.\"\"\"

    def __init__(self, root):
        self.frontier = {root}
        self.seen = {root}
        self.leaves = {}

    def step(self):
        nxt = set()
        for node in self.frontier:
            if hasattr(node, "variable"):
                self.leaves[id(node.variable)] = node.variable
            for child, _ in node.next_functions:
                if child is not None and child not in self.seen:
                    self.seen.add(child)
                    nxt.add(child)
        self.frontier = nxt

    def run(self):
        while self.frontier:
            self.step()
        return list(self.leaves.values())


""" + LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    return _Frontier(t.grad_fn).run()
""",
    "stable_softmax": """\
class _Softmax:
    def __init__(self, dim):
        self.dim = dim

    def __call__(self, z):
        c = torch.amax(z, dim=self.dim, keepdim=True)
        w = torch.exp(z - c)
        return w / torch.sum(w, dim=self.dim, keepdim=True)


""" + SS_DOC + """\
    return _Softmax(dim)(z)
""",
}

_DEBUG = {  # honest-10's answers with try/except that re-raises, prints, an unused counter, a branch never taken
    "grad_of": GO_DOC + """\
    DEBUG = False
    with torch.enable_grad():
        z = x.detach().requires_grad_(True)
        if DEBUG:
            print("z:", z)
        try:
            grad, = torch.autograd.grad(f(z), [z])
        except RuntimeError as err:
            print("autograd failed:", err)
            raise
    print("grad_of: shape", tuple(grad.shape))
    return grad
""",
    "numerical_grad": NG_DOC + """\
    calls = 0
    p = x.detach().clone().to(torch.float64)

    flat = p.reshape(-1)
    g = torch.zeros_like(flat)
    with torch.no_grad():
        for i in range(len(flat)):
            v = flat[i].item()
            flat[i] = v + eps
            hi = f(p)
            calls += 1
            flat[i] = v - eps
            lo = f(p)
            calls += 1
            flat[i] = v
            # print(i, hi, lo)
            g[i] = (hi - lo) / (2 * eps)
    print(f"numerical_grad: {calls} calls of f")
    return g.reshape(x.shape)
""",
    "grad_report": GR_DOC + """\
    result = {}
    for name, w in model.named_parameters():
        print(name, None if w.grad is None else tuple(w.grad.shape))
        if w.grad is None:
            result[name] = "none"
        elif w.grad.count_nonzero().item() == 0:
            result[name] = "zero"
        else:
            result[name] = "nonzero"
    if len(result) < 0:  # never
        return {}
    return result
""",
    "leaves_of": LO_DOC + """\
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves = []
    visited = set()
    stack = [t.grad_fn]
    steps = 0
    try:
        while stack:
            fn = stack.pop()
            steps += 1
            if fn in visited:
                continue
            visited.add(fn)
            if type(fn).__name__ == "AccumulateGrad":
                print("leaf", tuple(fn.variable.shape))
                leaves.append(fn.variable)
            stack.extend(nf for nf, _ in fn.next_functions if nf is not None)
    except AttributeError:
        print("odd node after", steps, "steps")
        raise
    return leaves
""",
    "stable_softmax": SS_DOC + """\
    try:
        shifted = z - z.max(dim=dim, keepdim=True).values
    except IndexError:
        print("bad dim", dim)
        raise

    out = shifted.exp() / shifted.exp().sum(dim=dim, keepdim=True)
    print("row sums", out.detach().sum(dim=dim))
    return out
""",
}

_CHAIN_B = {  # honest-11's answers renamed, independent statements reordered (the first link of a chain)
    "grad_of": GO_DOC + """\
    inp = x.clone().detach()
    inp.requires_grad = True
    with torch.set_grad_enabled(True):
        res = f(inp)
    res.backward()
    g = inp.grad.clone()
    return g
""",
    "numerical_grad": NG_DOC + """\
    xx = x.detach().double()
    grads = []
    flat = xx.flatten()
    shape = xx.shape
    for idx in range(flat.numel()):
        down = flat.clone()
        down[idx] -= eps
        up = flat.clone()
        up[idx] += eps
        grads.append((f(up.reshape(shape)) - f(down.reshape(shape))).item() / (2 * eps))
    return torch.tensor(grads, dtype=torch.float64, device=x.device).reshape(shape)
""",
    "grad_report": GR_DOC + """\
    params = dict(model.named_parameters())
    out = dict()
    for key in params:
        g = params[key].grad
        if g is None:
            out[key] = "none"
        else:
            count = (g != 0).sum().item()
            if count > 0:
                out[key] = "nonzero"
            else:
                out[key] = "zero"
    return out
""",
    "leaves_of": LO_DOC + """\
    visited = []
    result_ids = []
    result = []

    def visit(fn):
        if fn is None:
            return
        for seen in visited:
            if seen is fn:
                return
        visited.append(fn)
        if hasattr(fn, "variable"):
            if id(fn.variable) not in result_ids:
                result.append(fn.variable)
                result_ids.append(id(fn.variable))
        for pair in fn.next_functions:
            visit(pair[0])

    if t.grad_fn is None:
        if t.requires_grad:
            result.append(t)
        return result
    visit(t.grad_fn)
    return result
""",
    "stable_softmax": SS_DOC + """\
    m = z.max(dim=dim, keepdim=True).values
    numerator = torch.exp(z - m)
    denominator = numerator.sum(dim=dim, keepdim=True)
    s = numerator / denominator
    return s
""",
}

_CHAIN_C = {  # the second link reworks what chain-b handed on: temporaries inlined, sets, a comprehension, stack
    "grad_of": GO_DOC + """\
    inp = x.clone().detach()
    inp.requires_grad = True
    with torch.set_grad_enabled(True):
        f(inp).backward()
    return inp.grad.clone()
""",
    "numerical_grad": NG_DOC + """\
    xx = x.detach().double()
    flat, shape = xx.flatten(), xx.shape

    def diff(idx):
        up, down = flat.clone(), flat.clone()
        up[idx] += eps
        down[idx] -= eps
        return (f(up.reshape(shape)) - f(down.reshape(shape))) / (2 * eps)

    return torch.stack([diff(i) for i in range(flat.numel())]).to(torch.float64).reshape(shape)
""",
    "grad_report": GR_DOC + """\
    params = dict(model.named_parameters())
    return {key: "none" if params[key].grad is None
            else ("nonzero" if (params[key].grad != 0).sum().item() > 0 else "zero")
            for key in params}
""",
    "leaves_of": LO_DOC + """\
    visited, result_ids, result = set(), set(), []

    def visit(fn):
        if fn is None or fn in visited:
            return
        visited.add(fn)
        if hasattr(fn, "variable") and id(fn.variable) not in result_ids:
            result.append(fn.variable)
            result_ids.add(id(fn.variable))
        for pair in fn.next_functions:
            visit(pair[0])

    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    visit(t.grad_fn)
    return result
""",
}

_CHAIN_C_OWN = {
    "stable_softmax": SS_DOC + """\
    return torch.exp(torch.log_softmax(z, dim=dim))
""",
}

_MERGE = {  # grad_of and numerical_grad from honest-12, the rest from honest-13: type hints, docstrings rewritten
    "grad_of": """\
def grad_of(f, x: torch.Tensor) -> torch.Tensor:
    \"\"\"df/dx at x, computed on a private copy so that x itself is left alone.\"\"\"
    leaf: torch.Tensor = torch.empty_like(x).copy_(x.detach())
    leaf.requires_grad_()
    with torch.enable_grad():
        value: torch.Tensor = f(leaf)
    return torch.autograd.grad(value, leaf)[0]
""",
    "numerical_grad": """\
def numerical_grad(f, x: torch.Tensor, eps: float = 1e-3) -> torch.Tensor:
    \"\"\"Two-sided finite differences in float64, one entry of x at a time.\"\"\"
    base: torch.Tensor = x.detach().to(torch.float64)
    grad = torch.zeros_like(base)
    for k in range(base.numel()):
        idx = tuple(int(i) for i in torch.unravel_index(torch.tensor(k), base.shape))
        plus, minus = base.clone(), base.clone()
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (f(plus) - f(minus)) / (2 * eps)
    return grad
""",
    "grad_report": """\
def grad_report(model: torch.nn.Module) -> dict[str, str]:
    \"\"\"Each parameter's name mapped to the state of the .grad it holds now.\"\"\"
    report: dict[str, str] = {}
    for name, param in model.named_parameters():
        if param.grad is None:
            report[name] = "none"
        elif param.grad.eq(0).all():
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
""",
    "leaves_of": """\
def leaves_of(t: torch.Tensor) -> list[torch.Tensor]:
    \"\"\"Every tracked leaf reachable from t.grad_fn, without repeats.\"\"\"
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves: list[torch.Tensor] = []
    leaf_ids: set[int] = set()
    seen: set = set()

    def visit(node) -> None:
        seen.add(node)
        if node.name() == "torch::autograd::AccumulateGrad" and id(node.variable) not in leaf_ids:
            leaf_ids.add(id(node.variable))
            leaves.append(node.variable)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                visit(child)

    visit(t.grad_fn)
    return leaves
""",
    "stable_softmax": """\
def stable_softmax(z: torch.Tensor, dim: int = -1) -> torch.Tensor:
    \"\"\"Softmax along dim with the row maximum taken off first, so exp cannot overflow.\"\"\"
    z_max, _ = z.max(dim=dim, keepdim=True)
    e: torch.Tensor = torch.exp(z - z_max)
    return e / e.sum(dim=dim, keepdim=True)
""",
}

_HALF = {  # honest-03's grad_of with argnums spelled out, and its stack walk as a breadth-first deque
    "grad_of": GO_DOC + """\
    return torch.func.grad(f, argnums=0)(x.detach())
""",
    "leaves_of": "from collections import deque\n\n\n" + LO_DOC + """\
    found = {}
    if t.grad_fn is None and t.requires_grad:
        found[id(t)] = t
    todo = deque([t.grad_fn] if t.grad_fn is not None else [])
    done = set()
    while todo:
        fn = todo.popleft()
        if fn in done:
            continue
        done.add(fn)
        v = getattr(fn, "variable", None)
        if v is not None:
            found.setdefault(id(v), v)
        todo.extend(n for n, _ in fn.next_functions if n is not None)
    return list(found.values())
""",
}

_HALF_OWN = {  # ... and the other three of the copier's own
    "numerical_grad": NG_DOC + """\
    h = x.detach().to(torch.float64)
    grad = torch.zeros_like(h).flatten()
    for i in range(grad.numel()):
        step = torch.zeros_like(grad)
        step[i] = eps
        step = step.reshape(h.shape)
        grad[i] = (f(h + step) - f(h - step)) / (2.0 * eps)
    return grad.reshape(h.shape)
""",
    "grad_report": GR_DOC + """\
    report = {}
    for name, p in model.named_parameters():
        report[name] = "none" if p.grad is None else ("zero" if p.grad.abs().max() == 0 else "nonzero")
    return report
""",
    "stable_softmax": SS_DOC + """\
    a = z - z.amax(dim, keepdim=True)
    return a.exp().div(a.exp().sum(dim, keepdim=True))
""",
}

_ALL = ("grad_of", "numerical_grad", "grad_report", "leaves_of", "stable_softmax")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-stack", "recursion as an explicit stack, for as while, a comprehension as a loop",
         _taken("honest-01"), _STACK),
    Copy("copier-functional", "loops as map, generator expressions and functools.reduce, temporaries inlined",
         _taken("honest-02"), _FUNCTIONAL),
    Copy("copier-guards", "continue guards as nested ifs, walruses", _taken("honest-04"), _GUARDS),
    Copy("copier-indexing", "loops over items as index loops", _taken("honest-05"), _INDEXING),
    Copy("copier-signature", "keyword-only and default arguments added, constants and messages hoisted",
         _taken("honest-06"), _SIGNATURE),
    Copy("copier-spellings", "tensor methods and torch functions swapped", _taken("honest-08"), _SPELLINGS),
    Copy("copier-class", "answers moved into small classes", _taken("honest-09"), _CLASS),
    Copy("copier-debug", "try/except that re-raises, debugging prints, dead code", _taken("honest-10"), _DEBUG),
    Copy("chain-b", "renamed, statements reordered (first link of a chain)", _taken("honest-11"), _CHAIN_B),
    Copy("chain-c", "temporaries inlined, lists as sets, a comprehension, torch.stack (second link of a chain)",
         _taken("chain-b", _ALL[:4]), _CHAIN_C, _CHAIN_C_OWN),
    Copy("copier-merge", "two classmates merged, type hints added, docstrings rewritten, recursion for a stack",
         {"grad_of": "honest-12", "numerical_grad": "honest-12", "grad_report": "honest-13",
          "leaves_of": "honest-13", "stable_softmax": "honest-13"}, _MERGE),
    Copy("copier-half", "two cells copied: torch.func's argnums spelled out, a stack walk made breadth-first",
         _taken("honest-03", ("grad_of", "leaves_of")), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 02 (twenty-eight students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
