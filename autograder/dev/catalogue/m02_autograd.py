"""Module 02-autograd-ledger: mutants and correct variants."""

from . import Mutant, do_nothing, hold_to_words, patched
from .found import mutants as found_mutants

MODULE = "02-autograd-ledger"

GRAD_OF = "def grad_of(f, x):\n"
NUMERICAL = "def numerical_grad(f, x, eps=1e-3):\n"
REPORT = "def grad_report(model):\n"
LEAVES = "def leaves_of(t):\n"
SOFTMAX = "def stable_softmax(z, dim=-1):\n"

# Lines of the solution that the mutants below edit, and edits that several of them share.
_SHIFT = "    shifted = z - z.max(dim=dim, keepdim=True).values   # a new tensor: the caller's z is untouched\n"
_EXP = "    e = shifted.exp()                                   # exp saves e for the backward pass\n"
_EXP_OF_SHIFT = (_SHIFT + _EXP, "    e = (z - z.max(dim=dim, keepdim=True).values).exp()\n")
_OUT_AND_GRAD = ("        out = f(leaf)                          # () a scalar with a grad_fn\n"
                 "        (grad,) = torch.autograd.grad(out, leaf)  # no create_graph: grad carries no record\n")
_RETURN_G = ("return grad", "return g")

MUTANTS = {
    # --- stable_softmax -----------------------------------------------------------------
    "softmax_subtracts_in_place": Mutant(patched(
        MODULE, "stable_softmax", ("shifted = z - z.max", "z -= z.max"),
        ("shifted.exp()", "z.exp()")),
        ["test_stable_softmax_values"], ["modified_input"]),
    "softmax_divides_saved_exp_in_place": Mutant(patched(
        MODULE, "stable_softmax", _EXP_OF_SHIFT,
        ("    return e / e.sum(dim=dim, keepdim=True)", "    e /= e.sum(dim=dim, keepdim=True)\n    return e")),
        ["test_stable_softmax_gradient"], ["inplace_saved"]),
    "softmax_without_max": Mutant(patched(MODULE, "stable_softmax", (_SHIFT, ""), ("shifted.exp()", "z.exp()")),
                                  ["test_stable_softmax_values"], ["not_stable"]),
    # The max taken along dim without keepdim: [N, C] minus [N] does not broadcast.
    "softmax_max_without_keepdim": Mutant(patched(MODULE, "stable_softmax", ("z.max(dim=dim, keepdim=True)",
                                                                             "z.max(dim=dim)")),
                                          ["test_stable_softmax_values", "test_stable_softmax_gradient"],
                                          ["no_keepdim"], words=("pass keepdim=True", "without keepdim=True")),
    "softmax_whole_tensor_max": Mutant(patched(MODULE, "stable_softmax", ("z.max(dim=dim, keepdim=True).values", "z.max()")),
                                       ["test_stable_softmax_values", "test_stable_softmax_gradient"], ["global_max"],
                                       words=("one number for the whole tensor", "nan", "along dim")),
    "softmax_wrong_dim": Mutant(patched(
        MODULE, "stable_softmax", _EXP_OF_SHIFT,
        ("z.max(dim=dim", "z.max(dim=0"),
        ("e.sum(dim=dim", "e.sum(dim=0")),
        ["test_stable_softmax_values"], ["wrong_dim"]),
    "softmax_ignores_dim": Mutant(patched(
        MODULE, "stable_softmax", _EXP_OF_SHIFT,
        ("z.max(dim=dim", "z.max(dim=-1"),
        ("e.sum(dim=dim", "e.sum(dim=-1")),
        ["test_stable_softmax_values"], ["ignores_dim"]),
    "softmax_detached_sum": Mutant(patched(
        MODULE, "stable_softmax", _EXP_OF_SHIFT,
        ("e.sum(dim=dim, keepdim=True)", "e.sum(dim=dim, keepdim=True).detach()")),
        ["test_stable_softmax_gradient"], ["wrong_gradient"]),
    # --- grad_of ------------------------------------------------------------------------
    "grad_of_flips_requires_grad": Mutant({"grad_of": GRAD_OF + """
    x.requires_grad_()
    (g,) = torch.autograd.grad(f(x), x)
    return g
"""}, ["test_grad_of_leaves_caller"], ["flipped_requires_grad"]),
    "grad_of_leaves_grad_on_x": Mutant({"grad_of": GRAD_OF + """
    x.requires_grad_(True)
    f(x).backward()
    g = x.grad.clone()
    x.requires_grad_(False)
    return g
"""}, ["test_grad_of_leaves_caller"], ["left_grad"]),
    "grad_of_create_graph": Mutant(patched(
        MODULE, "grad_of", (_OUT_AND_GRAD, "        (g,) = torch.autograd.grad(f(leaf), leaf, create_graph=True)\n"),
        _RETURN_G),
        ["test_grad_of_no_history"], ["has_history"]),
    "grad_of_func_grad_on_tracked_x": Mutant({"grad_of": GRAD_OF + """
    return torch.func.grad(f)(x)
"""}, ["test_grad_of_no_history"], ["has_history"]),
    "grad_of_clone_keeps_history": Mutant({"grad_of": GRAD_OF + """
    with torch.enable_grad():
        copy = x.clone().requires_grad_()
        copy.retain_grad()
        f(copy).backward()
    return copy.grad
"""}, ["test_grad_of_leaves_caller"], ["grads_changed"]),
    "grad_of_ignores_callers_no_grad": Mutant({"grad_of": GRAD_OF + """
    leaf = x.detach().requires_grad_()
    (g,) = torch.autograd.grad(f(leaf), leaf)
    return g
"""}, ["test_grad_of_values"], ["caller_no_grad"]),
    "grad_of_detach_without_requires_grad": Mutant({"grad_of": GRAD_OF + """
    leaf = x.detach()
    f(leaf).backward()
    return leaf.grad
"""}, ["test_grad_of_values", "test_grad_of_leaves_caller", "test_grad_of_no_history"], ["untracked_input"]),
    "grad_of_autograd_on_x_itself": Mutant({"grad_of": GRAD_OF + """
    return torch.autograd.grad(f(x), x)[0]
"""}, ["test_grad_of_values", "test_grad_of_leaves_caller"], ["untracked_input"]),
    "grad_of_zeroes_detached_copy": Mutant(patched(
        MODULE, "grad_of",
        (_OUT_AND_GRAD,
         "        f(leaf).backward()\n"
         "    g = leaf.grad\n"
         "    with torch.no_grad():\n"
         "        leaf.zero_()  # tidy up the working copy (it shares memory with x)\n"),
        _RETURN_G),
        ["test_grad_of_leaves_caller"], ["modified_input"]),
    "grad_of_float64_result": Mutant(patched(
        MODULE, "grad_of", ("x.detach().requires_grad_()", "x.detach().double().requires_grad_()"),
        (_OUT_AND_GRAD, "        (g,) = torch.autograd.grad(f(leaf), leaf)\n"),
        _RETURN_G),
        ["test_grad_of_values"], ["wrong_dtype"]),
    "grad_of_backward_twice": Mutant(patched(
        MODULE, "grad_of",
        ("        (grad,) = torch.autograd.grad(out, leaf)  # no create_graph: grad carries no record\n",
         "        out.backward(retain_graph=True)  # a first look ...\n"
         "        out.backward()                   # ... and the real one\n"),
        ("return grad", "return leaf.grad")),
        ["test_grad_of_values"], ["accumulated"]),
    # --- numerical_grad -----------------------------------------------------------------
    "numerical_grad_forward_difference": Mutant({"numerical_grad": NUMERICAL + """
    base = x.detach().double().clone()
    out = torch.zeros_like(base).view(-1)
    here = f(base)
    for i in range(base.numel()):
        up = base.clone()
        up.view(-1)[i] += eps
        out[i] = (f(up) - here) / eps
    return out.view(x.shape)
"""}, ["test_numerical_grad_values"], ["forward_difference"]),
    "numerical_grad_float32_result": Mutant({"numerical_grad": NUMERICAL + """
    base = x.detach().clone()
    out = torch.zeros_like(base).view(-1)
    for i in range(base.numel()):
        up, down = base.clone(), base.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out.view(x.shape)
"""}, ["test_numerical_grad_values"], ["not_float64"]),
    "numerical_grad_float32_then_cast": Mutant({"numerical_grad": NUMERICAL + """
    base = x.detach().float().clone()
    out = torch.zeros_like(base).view(-1)
    for i in range(base.numel()):
        up, down = base.clone(), base.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out.view(x.shape).double()
"""}, ["test_numerical_grad_values"], ["float32_arithmetic"]),
    "numerical_grad_ignores_eps": Mutant({"numerical_grad": NUMERICAL + """
    h = 1e-3
    base = x.detach().double().clone()
    out = torch.zeros_like(base).view(-1)
    for i in range(base.numel()):
        up, down = base.clone(), base.clone()
        up.view(-1)[i] += h
        down.view(-1)[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out.view(x.shape)
"""}, ["test_numerical_grad_values"], ["ignores_eps"]),
    # A step of its own, small enough that the quotient is (nearly) the exact derivative: no autograd ran.
    "numerical_grad_hard_coded_tiny_step": Mutant({"numerical_grad": NUMERICAL + """
    h = 1e-6
    base = x.detach().double().clone()
    out = torch.zeros_like(base).view(-1)
    for i in range(base.numel()):
        up, down = base.clone(), base.clone()
        up.view(-1)[i] += h
        down.view(-1)[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out.view(x.shape)
"""}, ["test_numerical_grad_values"], ["ignores_eps"], words=("evaluated f at x \u00b1 1e-06", "nudge by the `eps` argument")),
    "numerical_grad_divides_by_eps": Mutant({"numerical_grad": NUMERICAL + """
    base = x.detach().double().clone()
    out = torch.zeros_like(base).view(-1)
    for i in range(base.numel()):
        up, down = base.clone(), base.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        out[i] = (f(up) - f(down)) / eps
    return out.view(x.shape)
"""}, ["test_numerical_grad_values"], ["wrong_scale"]),
    "numerical_grad_uses_autograd": Mutant({"numerical_grad": NUMERICAL + """
    with torch.enable_grad():
        leaf = x.detach().double().requires_grad_()
        (g,) = torch.autograd.grad(f(leaf), leaf)
    return g
"""}, ["test_numerical_grad_values"], ["used_autograd"]),
    "numerical_grad_nudges_callers_float64": Mutant({"numerical_grad": NUMERICAL + """
    point = x.detach().double()  # a copy for float32 x; x itself when x is float64
    flat = point.view(-1)
    out = torch.zeros_like(flat)
    for i in range(flat.numel()):
        flat[i] += eps
        up = f(point)
        flat[i] -= 2 * eps
        down = f(point)
        flat[i] += eps
        out[i] = (up - down) / (2 * eps)
    return out.view(x.shape)
"""}, ["test_numerical_grad_leaves_input"], ["modified_input"]),
    # --- grad_report --------------------------------------------------------------------
    "grad_report_none_as_zero": Mutant({"grad_report": REPORT + """
    report = {}
    for name, p in model.named_parameters():
        g = p.grad if p.grad is not None else torch.zeros_like(p)
        report[name] = "zero" if torch.count_nonzero(g) == 0 else "nonzero"
    return report
"""}, ["test_grad_report_states"], ["none_as_zero"]),
    "grad_report_sum_is_zero": Mutant({"grad_report": REPORT + """
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
        else:
            report[name] = "zero" if p.grad.sum() == 0 else "nonzero"
    return report
"""}, ["test_grad_report_states"], ["sum_cancels"]),
    # A real report's test (it adds up the *indices* of the nonzero entries): wrong for a gradient whose only
    # nonzero entry is its first, and for every parameter of rank 0.
    "grad_report_nonzero_index_sum": Mutant(patched(
        MODULE, "grad_report", ("torch.count_nonzero(param.grad) == 0", "torch.nonzero(param.grad).sum() == 0")),
        ["test_grad_report_states"], ["nonzero_as_zero"]),
    "grad_report_max_without_abs": Mutant({"grad_report": REPORT + """
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
        else:
            report[name] = "nonzero" if p.grad.max() > 0 else "zero"
    return report
"""}, ["test_grad_report_states"], ["negative_as_zero"]),
    "grad_report_fills_missing_grads": Mutant({"grad_report": REPORT + """
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            p.grad = torch.zeros_like(p)
        report[name] = "zero" if torch.count_nonzero(p.grad) == 0 else "nonzero"
    return report
"""}, ["test_grad_report_states", "test_grad_report_leaves_grads"], ["none_as_zero", "left_grad"]),
    "grad_report_zero_grad_after": Mutant({"grad_report": REPORT + """
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
        else:
            report[name] = "zero" if torch.count_nonzero(p.grad) == 0 else "nonzero"
    model.zero_grad()  # leave the model clean after looking
    return report
"""}, ["test_grad_report_leaves_grads"], ["cleared_grad"]),
    "grad_report_zeroes_in_place": Mutant({"grad_report": REPORT + """
    report = {}
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
        else:
            report[name] = "zero" if torch.count_nonzero(p.grad) == 0 else "nonzero"
            p.grad.zero_()
    return report
"""}, ["test_grad_report_leaves_grads"], ["grads_changed"]),
    "grad_report_trainable_only": Mutant({"grad_report": REPORT + """
    report = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.grad is None:
            report[name] = "none"
        else:
            report[name] = "zero" if torch.count_nonzero(p.grad) == 0 else "nonzero"
    return report
"""}, ["test_grad_report_states"], ["missing_names"]),
    "grad_report_state_dict": Mutant({"grad_report": REPORT + """
    report = {}
    for name, t in model.state_dict(keep_vars=True).items():
        if t.grad is None:
            report[name] = "none"
        else:
            report[name] = "zero" if torch.count_nonzero(t.grad) == 0 else "nonzero"
    return report
"""}, ["test_grad_report_states"], ["extra_names"]),
    "grad_report_booleans": Mutant({"grad_report": REPORT + """
    return {name: p.grad is not None and bool(p.grad.any()) for name, p in model.named_parameters()}
"""}, ["test_grad_report_states"], ["not_a_state"]),
    # --- leaves_of ----------------------------------------------------------------------
    "leaves_of_first_level_only": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    return [node.variable for node, _ in t.grad_fn.next_functions
            if node is not None and hasattr(node, "variable")]
"""}, ["test_leaves_of_finds_all"], ["missing_leaves"]),
    "leaves_of_repeats": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found = []

    def walk(node):
        if node is None:
            return
        if hasattr(node, "variable"):
            found.append(node.variable)
            return
        for child, _ in node.next_functions:
            walk(child)

    walk(t.grad_fn)
    return found
"""}, ["test_leaves_of_each_once"], ["repeated_leaf"]),
    "leaves_of_dedup_by_value": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found, stack = [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if hasattr(node, "variable"):
            if node.variable not in found:
                found.append(node.variable)
            continue
        stack.extend(child for child, _ in node.next_functions)
    return found
"""}, ["test_leaves_of_each_once"], ["dedup_by_value"]),
    "leaves_of_includes_t": Mutant({"leaves_of": LEAVES + """
    found = [t] if t.requires_grad else []
    if t.grad_fn is None:
        return found
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(child for child, _ in node.next_functions)
    return found
"""}, ["test_leaves_of_only_leaves"], ["non_leaf"]),
    "leaves_of_saved_tensors": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found, ids, seen, stack = [], set(), set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        tensors = [getattr(node, "variable", None)]
        tensors += [getattr(node, a) for a in dir(node) if a.startswith("_saved_")]
        for v in tensors:
            if isinstance(v, torch.Tensor) and v.requires_grad and id(v) not in ids:
                ids.add(id(v))
                found.append(v)
        stack.extend(child for child, _ in node.next_functions)
    return found
"""}, ["test_leaves_of_only_leaves"], ["non_leaf"]),
    "leaves_of_untracked_t_is_a_leaf": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t]
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(child for child, _ in node.next_functions)
    return found
"""}, ["test_leaves_of_only_leaves"], ["not_requiring_grad"]),
    "leaves_of_forgets_leaf_itself": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return []
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(child for child, _ in node.next_functions)
    return found
"""}, ["test_leaves_of_finds_all"], ["leaf_itself"]),
    "leaves_of_returns_tuple": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return (t,) if t.requires_grad else ()
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(child for child, _ in node.next_functions)
    return tuple(found)
"""}, ["test_leaves_of_finds_all", "test_leaves_of_each_once", "test_leaves_of_only_leaves"], ["not_a_list"]),
    "leaves_of_detached_copies": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t.detach()] if t.requires_grad else []
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable.detach())
        stack.extend(child for child, _ in node.next_functions)
    return found
"""}, ["test_leaves_of_finds_all", "test_leaves_of_each_once"], ["copies"]),
    "leaves_of_returns_nodes": Mutant({"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if type(node).__name__ == "AccumulateGrad":
            found.append(node)
        stack.extend(child for child, _ in node.next_functions)
    return found
"""}, ["test_leaves_of_finds_all", "test_leaves_of_each_once"], ["not_tensors"]),
}

VARIANTS = {
    "softmax_logsumexp": {"stable_softmax": SOFTMAX + """
    return torch.exp(z - torch.logsumexp(z, dim=dim, keepdim=True))
"""},
    "softmax_detached_max_amax": {"stable_softmax": SOFTMAX + """
    m = z.amax(dim=dim, keepdim=True).detach()   # the shift needs no gradient
    numerator = torch.exp(z - m)
    return numerator / numerator.sum(dim, keepdim=True)
"""},
    "softmax_builtin": {"stable_softmax": SOFTMAX + """
    return torch.softmax(z, dim=dim)
"""},
    # --- grad_of ------------------------------------------------------------------------
    "grad_of_backward_on_detached_clone": {"grad_of": GRAD_OF + """
    with torch.enable_grad():
        leaf = x.detach().clone().requires_grad_(True)
        f(leaf).backward()
    return leaf.grad
"""},
    "grad_of_func_grad_on_detached": {"grad_of": GRAD_OF + """
    return torch.func.grad(f)(x.detach())
"""},
    "grad_of_decorated_set_flag": {"grad_of": """
@torch.enable_grad()
def grad_of(f, x):
    leaf = x.detach()
    leaf.requires_grad = True
    return torch.autograd.grad([f(leaf)], [leaf])[0]
"""},
    "grad_of_set_grad_enabled": {"grad_of": GRAD_OF + """
    leaf = torch.tensor(x.detach().cpu().numpy(), device=x.device, requires_grad=True)
    with torch.set_grad_enabled(True):
        y = f(leaf)
    y.backward()
    return leaf.grad.detach()
"""},
    # --- numerical_grad -----------------------------------------------------------------
    "numerical_grad_vmap": {"numerical_grad": NUMERICAL + """
    point = x.detach().to(torch.float64)
    n = point.numel()
    steps = (eps * torch.eye(n, dtype=torch.float64, device=x.device)).reshape(n, *x.shape)
    up = torch.vmap(f)(point + steps)
    down = torch.vmap(f)(point - steps)
    return ((up - down) / (2 * eps)).reshape(x.shape)
"""},
    "numerical_grad_flatten_loop_new_tensors": {"numerical_grad": NUMERICAL + """
    base = x.detach().double().flatten()
    parts = []
    for i in range(base.numel()):
        e = torch.zeros_like(base)
        e[i] = eps
        up = f((base + e).reshape(x.shape))
        down = f((base - e).reshape(x.shape))
        parts.append((up - down) / (2 * eps))
    return torch.stack(parts).reshape(x.shape)
"""},
    "numerical_grad_python_floats": {"numerical_grad": NUMERICAL + """
    x64 = x.detach().clone().double()
    values = []
    for i in range(x64.numel()):
        old = x64.view(-1)[i].item()
        x64.view(-1)[i] = old + eps
        f_plus = float(f(x64))
        x64.view(-1)[i] = old - eps
        f_minus = float(f(x64))
        x64.view(-1)[i] = old
        values.append((f_plus - f_minus) / (2 * eps))
    return torch.tensor(values, dtype=torch.float64, device=x.device).reshape(x.shape)
"""},
    # --- grad_report --------------------------------------------------------------------
    "grad_report_any_sorted_keys": {"grad_report": REPORT + """
    out = {}
    for name, p in sorted(model.named_parameters(), key=lambda item: item[0], reverse=True):
        out[name] = "none" if p.grad is None else ("nonzero" if torch.any(p.grad != 0) else "zero")
    return out
"""},
    "grad_report_abs_max": {"grad_report": REPORT + """
    def state(g):
        if g is None:
            return "none"
        return "nonzero" if g.abs().max().item() > 0 else "zero"
    return {name: state(p.grad) for name, p in model.named_parameters()}
"""},
    "grad_report_all_equal_zero_ordereddict": {"grad_report": """
from collections import OrderedDict

def grad_report(model):
    report = OrderedDict()
    for name, p in model.named_parameters():
        if p.grad is None:
            report[name] = "none"
        elif bool((p.grad == 0).all()):
            report[name] = "zero"
        else:
            report[name] = "nonzero"
    return report
"""},
    # --- leaves_of ----------------------------------------------------------------------
    "leaves_of_recursive_seen_ids": {"leaves_of": LEAVES + """
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    leaves, seen = [], set()

    def visit(node):
        if node is None or id(node) in seen:
            return
        seen.add(id(node))
        if type(node).__name__ == "AccumulateGrad":
            leaves.append(node.variable)
        for child, _ in node.next_functions:
            visit(child)

    visit(t.grad_fn)
    return leaves
"""},
    "leaves_of_bfs_leaf_ids_only": {"leaves_of": """
from collections import deque

def leaves_of(t):
    if t.grad_fn is None:
        return [t] if t.requires_grad else []
    out, ids = [], set()
    queue = deque([t.grad_fn])
    while queue:
        node = queue.popleft()
        if node is None:
            continue
        var = getattr(node, "variable", None)
        if var is not None:
            if id(var) not in ids:
                ids.add(id(var))
                out.append(var)
            continue
        queue.extend(child for child, _ in node.next_functions)
    return out
"""},
    "leaves_of_dict_by_id": {"leaves_of": LEAVES + """
    if not t.requires_grad:
        return []
    if t.is_leaf:
        return [t]
    found, todo, seen = {}, [t.grad_fn], set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found[id(node.variable)] = node.variable
        todo.extend(child for child, _ in node.next_functions if child is not None)
    return list(found.values())
"""},
}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "softmax_subtracts_in_place": (
        "which still belongs to the caller",
        "the caller's z held other values than before the call",
    ),
    "softmax_divides_saved_exp_in_place": ("and an in-place division", "backward through stable_softmax raised"),
    "softmax_without_max": ("they were taken of z itself",),
    "softmax_wrong_dim": ("the dimension the maximum and the sum were taken over", "not along the last dimension"),
    "softmax_ignores_dim": ("the function did not use it for both the max and the sum",),
    "softmax_detached_sum": ("part of the computation was cut from it",),
    "grad_of_flips_requires_grad": ("the caller owns x and its flags", "the caller's x has requires_grad=True"),
    "grad_of_leaves_grad_on_x": ("and grad_of's backward pass added into it", "the caller's x holds a"),
    "grad_of_create_graph": ("or a transform applied to a tensor still connected to x's history",),
    "grad_of_func_grad_on_tracked_x": ("or a transform applied to a tensor still connected to x's history",),
    "grad_of_clone_keeps_history": ("and grad_of's backward pass wrote into it",),
    "grad_of_ignores_callers_no_grad": (
        "and grad_of ran f under the caller's grad mode",
        "grad_of works when recording is on",
    ),
    "grad_of_detach_without_requires_grad": ("because the tensor grad_of handed to f does not require grad",),
    "grad_of_autograd_on_x_itself": ("because the tensor grad_of handed to f does not require grad",),
    "grad_of_zeroes_detached_copy": (
        "so an in-place operation on it changes x too",
        "the caller's x holds different values",
    ),
    "grad_of_backward_twice": ("grad that was not empty", "is twice the derivative of f at x"),
    "numerical_grad_forward_difference": ("A one-sided difference has an error that shrinks only like eps",),
    "numerical_grad_float32_result": ("the arithmetic of the differences",),
    "numerical_grad_ignores_eps": ("evaluated f at x \u00b1 0.001", "a size of its own instead of its `eps` argument"),
    "numerical_grad_divides_by_eps": ("is twice the central difference",),
    "numerical_grad_uses_autograd": ("numerical_grad is the check on autograd", "is the exact derivative"),
    "numerical_grad_nudges_callers_float64": (
        "numerical_grad nudged the caller's memory",
        "the caller's x was written in place",
    ),
    "grad_report_none_as_zero": ("not a path that carried nothing",),
    "grad_report_max_without_abs": ("and a negative gradient is as real as a positive one",),
    "grad_report_zero_grad_after": ("grad_report cleared it", "it held a tensor"),
    "grad_report_zeroes_in_place": ("grad_report modified it", "grad was written in place"),
    "grad_report_trainable_only": ("every named parameter owns a", "has no entry for frozen"),
    "grad_report_state_dict": ("and other state belong to the module", "which are not parameter names"),
    "leaves_of_first_level_only": ("every leaf sits at the bottom of some chain of grad_fn nodes",),
    "leaves_of_repeats": ("a leaf used several times has one AccumulateGrad node",),
    "leaves_of_dedup_by_value": (
        "two different leaves with the same numbers looked like one",
        "for a graph with two distinct leaves of equal value misses a leaf",
    ),
    "leaves_of_includes_t": ("a tensor with a grad_fn is an intermediate result", "returned t itself"),
    "leaves_of_saved_tensors": ("a tensor with a grad_fn is an intermediate result",),
    "leaves_of_untracked_t_is_a_leaf": ("constants and tensors made under no_grad are not part of t's record",),
    "leaves_of_forgets_leaf_itself": ("it has no grad_fn because nothing made it", "for a leaf a that requires grad"),
    "leaves_of_detached_copies": (
        "a copy or a detached tensor is a different object that backward",
        "not the leaf itself",
    ),
    "leaves_of_returns_nodes": (
        "the list should hold the leaf tensors themselves",
        "returned a list holding AccumulateGrad objects",
    ),
    "grad_of_float64_result": ("has dtype float64", "x's shape, dtype and device"),
    "numerical_grad_float32_then_cast": ("the size of float32 rounding", "evaluated in float32"),
    "grad_report_sum_is_zero": ("add up to exactly 0", "a sum or a mean can cancel to 0"),
    "grad_report_nonzero_index_sum": ("nonzero entry at index 0", "misses one at the first position"),
    "grad_report_fills_missing_grads": ("whose .grad is None", "a missing path"),
    "grad_report_booleans": ("one of three words",),
    "leaves_of_returns_tuple": ("the contract asks for a list (not a tuple",),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))

# Automatic mutants (autograder.dev.mutate) that keep full marks because they change nothing the contract fixes.
EQUIVALENT = {
    "numerical_grad: swap: flat[i] = old <-> grad[i] = (up - down) / (2 * eps)":
        "the entry is put back after the difference is stored instead of before; both read the saved values",
    "leaves_of: swap: if t.grad_fn is None: <-> leaves, found, visited = ([], set(), set())":
        "an early return does not read the sets made before it",
    "leaves_of: swap: leaves, found, visited = ([], set(), set()) <-> stack = [t.grad_fn]": "independent set-up",
    "leaves_of: delete: visited.add(node)":
        "the leaves found are the same (found removes repeats); only a graph with shared branches is walked more "
        "than once, a cost no check can time fairly",
    "leaves_of: swap: visited.add(node) <-> leaf = getattr(node, 'variable', None)": "independent statements",
    "leaves_of: swap: if leaf is not None and id(leaf) not in found: <-> "
    "stack.extend((child for child, _ in node.next_functions))": "the leaves come out in another order; any order is "
                                                                  "the contract",
    "leaves_of: delete: found.add(id(leaf))":
        "with visited, each AccumulateGrad node (one per leaf) is reached once, so found never holds back a leaf",
    "leaves_of: swap: found.add(id(leaf)) <-> leaves.append(leaf)": "independent statements",
}
