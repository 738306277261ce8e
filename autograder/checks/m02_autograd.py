"""Checks for module 02-autograd-ledger: what is recorded, and when to stop recording.

Each public function here is one test cell's call, for example
``check.grad_of_values(grad_of)``.  Hidden tests call the same checks with other
sizes and seeds (and ``grad_of_values`` once more from inside ``torch.no_grad()``).

Every reference is computed here, independently of the learner's code: analytic
derivatives for ``grad_of``, a float64 loop of central differences for
``numerical_grad``, the states of gradients the check placed itself for
``grad_report``, and the leaves the check built each graph from for ``leaves_of``.
"""

from __future__ import annotations

import torch
from torch import nn

from ..core import LearnerRaised, call, describe, fail, graded, job_not_done
from ..devices import close, each_device, expect_tensor, generator, is_tensor_of, manual_seed, max_abs_diff, plain
from ..hints import hint_for, solution_for

# --------------------------------------------------------------------------
# Test functions with known derivatives.  Each works for any dtype and device
# (constants follow the argument), and is vmap-friendly (no .item(), no loops).


def _cubes(t):
    return (t ** 3).sum()


def _cubes_grad(t64):
    return 3 * t64 ** 2


def _tanh_square(t):  # the lesson's function, summed
    return (torch.tanh(t) * t ** 2).sum()


def _tanh_square_grad(t64):
    th = torch.tanh(t64)
    return (1 - th ** 2) * t64 ** 2 + 2 * t64 * th


def _logsumexp(t):
    return torch.logsumexp(t.reshape(-1), dim=0)


def _logsumexp_grad(t64):
    return torch.softmax(t64.reshape(-1), dim=0).reshape(t64.shape)


def _weighted_sin(weight):
    def weighted_sin(t):
        return (torch.sin(t) * weight.to(t)).sum()

    def grad(t64):
        return torch.cos(t64) * weight.double()

    return weighted_sin, grad


def _draw(shape, seed, device, dtype=torch.float32, scale=1.0):
    """Values drawn on the CPU (the same numbers on every device), then moved."""
    return (torch.randn(tuple(shape), generator=generator(seed)) * scale).to(device=device, dtype=dtype)


def _cases(n, seed, device):
    """(x, f, derivative of f) for a few shapes and dtypes."""
    weight = torch.randn(2, n, generator=generator(seed + 100))
    wsin, wsin_grad = _weighted_sin(weight)
    return [
        (_draw((n,), seed, device), _cubes, _cubes_grad),
        (_draw((2, n), seed + 1, device), wsin, wsin_grad),
        (_draw((), seed + 2, device).add_(0.7), _tanh_square, _tanh_square_grad),
        (_draw((n,), seed + 3, device, torch.float64, scale=2.0), _logsumexp, _logsumexp_grad),
    ]


def _x_text(x) -> str:
    return f"x {str(x.dtype).replace('torch.', '')} {list(x.shape)} on {x.device}"


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0].rstrip(".:") if lines else "(no message)"


# --------------------------------------------------------------------------
# grad_of


def _call_grad_of(grad_of, f, x, *, under_no_grad: bool = False):
    """Call the learner's grad_of; explain the two autograd errors a learner meets most."""
    try:
        if under_no_grad:
            with torch.no_grad():
                return call(grad_of, f, x)
        return call(grad_of, f, x)
    except LearnerRaised as raised:
        error = raised.error
        said = f"{type(error).__name__}: {_first_line(error)}"
        if under_no_grad:
            fail(f"grad_of works when recording is on, but called inside `with torch.no_grad():` "
                 f"{raised.call_text} raised {said}.",
                 "the caller switched recording off, and grad_of ran f under the caller's grad mode: "
                 "autograd wrote no record of f(x), so there was nothing to differentiate.",
                 "make grad_of switch recording on for its own forward pass, whatever mode its caller is in "
                 "(`torch.enable_grad()` is the context manager for that).",
                 code="caller_no_grad")
        if "does not require grad" in str(error):
            fail(f"{raised.call_text} raised {said}.",
                 "autograd: it recorded nothing for f(x), because the tensor grad_of handed to f does not require "
                 "grad (a tensor made by `detach()` or `clone()` of an untracked x has requires_grad=False).",
                 "make the tensor you pass to f a leaf that requires grad before calling f, and differentiate "
                 "with respect to that same tensor.",
                 code="untracked_input")
        raise


def _expect_gradient(out, x, before, derivative, where: str) -> None:
    expect_tensor(out, where, "the gradient grad_of returned: it has x's shape, dtype and device.",
                  shape=x.shape, dtype=x.dtype, device=x.device.type)
    ref = derivative(before.double())
    got = plain(out).double()
    scale = max(1.0, float(ref.abs().max()))
    if close(got, ref, atol=1e-5 * scale, rtol=1e-4):
        return
    if close(got, 2 * ref, atol=1e-5 * scale, rtol=1e-4):
        seen = f"{where} is twice the derivative of f at x."
        owner = ("the .grad grad_of read: backward() adds into .grad, so two backward passes "
                 "(or a .grad that was not empty) add up.")
        todo = "run one backward pass per call, into a .grad that starts as None."
        code = "accumulated"
    elif close(got, -ref, atol=1e-5 * scale, rtol=1e-4):
        seen = f"{where} has the opposite sign of the derivative of f at x."
        owner = "the gradient grad_of returned: its sign was flipped on the way out."
        todo = "return the gradient itself, not the direction of descent."
        code = "negated"
    else:
        seen = f"{where} differs from the derivative of f at x by up to {max_abs_diff(got, ref):.3g}."
        owner = "the gradient grad_of returned: autograd differentiated something other than f at x."
        todo = ("call f once, on the tracked tensor you made from x, and return the gradient of that output "
                "with respect to that same tensor, unchanged.")
        code = "wrong_value"
    fail(seen, owner, todo, code=code)


@graded("grad_of")
def grad_of_values(grad_of, n: int = 5, seed: int = 0, caller_no_grad: bool = True, *, notes):
    """The gradient of f at x, with x's shape, dtype and device, also when called inside torch.no_grad()."""
    for device in each_device(notes):
        for x, f, derivative in _cases(n, seed, device):
            before = plain(x)
            out = _call_grad_of(grad_of, f, x)
            _expect_gradient(out, x, before, derivative, f"grad_of(f, {_x_text(x)})")
        if caller_no_grad:
            x, f, derivative = _cases(n, seed + 7, device)[1]
            before = plain(x)
            out = _call_grad_of(grad_of, f, x, under_no_grad=True)
            _expect_gradient(out, x, before, derivative, f"inside torch.no_grad(), grad_of(f, {_x_text(x)})")
    if caller_no_grad:
        notes.append("also called inside torch.no_grad()")


def _caller_tensors(n, seed, device):
    """Three kinds of x a caller may hold: (label, x, leaf behind x or None)."""
    plain_x = _draw((n,), seed, device)
    tracked = _draw((n,), seed + 1, device).requires_grad_()
    tracked.grad = _draw((n,), seed + 2, device)  # left by an earlier backward, like a parameter's
    behind = _draw((n,), seed + 3, device).requires_grad_()
    computed = behind * 1.5  # a non-leaf: x has a record leading back to `behind`
    return [
        ("an untracked x", plain_x, None),
        ("a leaf x with requires_grad=True that already holds a .grad", tracked, None),
        ("an x computed from a tracked leaf (x has a grad_fn)", computed, behind),
    ]


def _snapshot(x):
    return {
        "requires_grad": x.requires_grad,
        "retains_grad": x.retains_grad,
        "values": plain(x),
        "version": x._version,
        "grad": x.grad if x.is_leaf else None,
        "grad_values": plain(x.grad) if x.is_leaf and x.grad is not None else None,
        "grad_version": x.grad._version if x.is_leaf and x.grad is not None else None,
    }


@graded("grad_of")
def grad_of_leaves_caller(grad_of, n: int = 4, seed: int = 0, *, notes):
    """The caller's x keeps its flags, its .grad and its values; nothing behind x receives a gradient."""
    for device in each_device(notes):
        for label, x, behind in _caller_tensors(n, seed, device):
            before = _snapshot(x)
            out = _call_grad_of(grad_of, _cubes, x)
            where = f"after grad_of(f, x) with {label}"
            if x.requires_grad != before["requires_grad"]:
                fail(f"{where}, the caller's x has requires_grad={x.requires_grad}; it was "
                     f"{before['requires_grad']} before the call.",
                     "the caller owns x and its flags: grad_of switched tracking on (or off) for the caller's "
                     "own tensor.",
                     "leave x's flags alone: work on a detached copy of x, and make that copy require grad.",
                     code="flipped_requires_grad")
            if x.retains_grad != before["retains_grad"]:
                fail(f"{where}, the caller's x has retains_grad={x.retains_grad}; it was "
                     f"{before['retains_grad']} before the call.",
                     "the caller owns x and its flags: grad_of called retain_grad() on the caller's tensor.",
                     "leave x's flags alone: work on a detached copy of x, and make that copy require grad.",
                     code="flipped_requires_grad")
            if x.is_leaf and before["grad"] is None and x.grad is not None:
                fail(f"{where}, the caller's x holds a .grad ({describe(x.grad)}); it had none before.",
                     "x owns its .grad, and grad_of's backward pass added into it: f ran on the caller's x itself.",
                     "run f and the backward pass on a detached copy of x, and read the gradient from that copy.",
                     code="left_grad")
            if x.is_leaf and before["grad"] is not None:
                if x.grad is None:
                    how = "is None now"
                elif x.grad is not before["grad"]:
                    how = "was replaced by another tensor"
                elif x.grad._version != before["grad_version"] or not torch.equal(plain(x.grad),
                                                                                  before["grad_values"]):
                    how = f"changed by up to {max_abs_diff(x.grad, before['grad_values']):.3g}"
                else:
                    how = ""
                if how:
                    fail(f"{where}, the .grad it already held {how}.",
                         "x's .grad belongs to the caller (for a parameter, it is what the optimizer will read), "
                         "and grad_of's backward pass wrote into it.",
                         "differentiate a copy of x cut from x's history (detach), never x or anything still "
                         "connected to it.",
                         code="grads_changed")
            if behind is not None and behind.grad is not None:
                fail(f"{where}, the leaf that x was computed from received a .grad.",
                     "autograd followed x's grad_fn back to the caller's leaf: the tensor grad_of "
                     "differentiated was still connected to x's history.",
                     "cut the copy from x's history with detach() before making it require grad.",
                     code="reached_caller_graph")
            if x._version != before["version"] or not torch.equal(plain(x), before["values"]):
                changed = max_abs_diff(x, before["values"])
                what = (f"holds different values (changed by up to {changed:.3g})" if changed
                        else f"was written in place (its version counter went from {before['version']} "
                             f"to {x._version})")
                fail(f"{where}, the caller's x {what}.",
                     "the caller owns x's values: grad_of wrote into x's memory. A tensor made by detach() "
                     "shares memory with x, so an in-place operation on it changes x too.",
                     "never modify x, or a detached copy of it, in place; build new tensors instead.",
                     code="modified_input")
            if not is_tensor_of(out, x.shape):
                job_not_done(f"{where}, grad_of returned {describe(out)}, not a gradient with x's shape "
                             f"{list(x.shape)}.", "leaving the caller's x as it was",
                             "the value grad_of returns: the gradient of f at x, computed without touching x.",
                             "return that gradient (check.grad_of_values judges its values); this check then "
                             "judges what the call left behind.")


@graded("grad_of")
def grad_of_no_history(grad_of, n: int = 3, seed: int = 0, *, notes):
    """The returned gradient carries no record: no grad_fn, requires_grad=False."""
    for device in each_device(notes):
        for label, x, _ in _caller_tensors(n, seed, device):
            out = _call_grad_of(grad_of, _cubes, x)
            expect_tensor(out, f"grad_of(f, x) with {label}", "the gradient grad_of returned.",
                          shape=x.shape, dtype=x.dtype, device=device)
            if out.grad_fn is not None or out.requires_grad:
                node = type(out.grad_fn).__name__ if out.grad_fn is not None else None
                fail(f"grad_of(f, x) with {label} returned a tensor with grad_fn={node} and "
                     f"requires_grad={out.requires_grad}.",
                     "autograd recorded the gradient computation itself (create_graph=True, or a transform "
                     "applied to a tensor still connected to x's history), and the caller now holds that record.",
                     "return a gradient with no history: differentiate a detached copy of x, without "
                     "create_graph, and detach the result if anything still records it.",
                     code="has_history")


# --------------------------------------------------------------------------
# numerical_grad


def _central(f, base64, eps):
    """An independent reference: one element at a time, float64, on the CPU."""
    out = torch.zeros(base64.numel(), dtype=torch.float64)
    for i in range(base64.numel()):
        up, down = base64.clone(), base64.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out.reshape(base64.shape)


def _one_sided(f, base64, eps):
    out = torch.zeros(base64.numel(), dtype=torch.float64)
    here = f(base64)
    for i in range(base64.numel()):
        up = base64.clone()
        up.view(-1)[i] += eps
        out[i] = (f(up) - here) / eps
    return out.reshape(base64.shape)


def _fscale(f, base64):
    return max(1.0, abs(float(f(base64))))


def _numerical_cases(n, seed, device):
    cases = _cases(n, seed, device)
    # (x, f, derivative, eps or None for the default)
    return [
        cases[0] + (None,),
        cases[1] + (1e-2,),
        cases[2] + (None,),
        cases[3] + (1e-4,),
    ]


def _call_numerical(numerical_grad, f, x, eps):
    if eps is None:
        return call(numerical_grad, f, x)
    return call(numerical_grad, f, x, eps=eps)


@graded("numerical_grad")
def numerical_grad_values(numerical_grad, n: int = 4, seed: int = 0, *, notes):
    """Central differences computed in float64 with the given eps: float64, x's shape, on x's device."""
    for device in each_device(notes):
        for x, f, derivative, eps in _numerical_cases(n, seed, device):
            step = 1e-3 if eps is None else eps
            where = f"numerical_grad(f, {_x_text(x)}{'' if eps is None else f', eps={eps:g}'})"
            base = plain(x).double()
            points: list = []

            def recorded(t, f=f, points=points):
                if isinstance(t, torch.Tensor):
                    points.append((torch.Tensor.detach(t).to("cpu").double().clone(), bool(t.requires_grad)))
                return f(t)

            out = _call_numerical(numerical_grad, recorded, x, eps)
            if isinstance(out, torch.Tensor) and out.dtype != torch.float64:
                fail(f"{where} returned a {str(out.dtype).replace('torch.', '')} tensor.",
                     "the arithmetic of the differences: in float32, f(x + eps) and f(x - eps) agree in most of "
                     "their ~7 digits, so their difference keeps only a few correct ones.",
                     "nudge a float64 copy of x, so that f is evaluated in float64, and return the float64 result.",
                     code="not_float64")
            expect_tensor(out, where, "the tensor of finite differences numerical_grad returned.",
                          shape=x.shape, dtype=torch.float64, device=device)
            ref = _central(f, base, step)
            tol = 1e-8 + 1e-12 * _fscale(f, base) / step
            got = plain(out)
            if close(got, ref, atol=tol, rtol=1e-9):
                continue
            _explain_steps(points, base, step, eps, where)
            _explain_numerical(got, ref, f, base, x, step, eps, derivative, tol, where, points)


def _explain_steps(points: list, base, step: float, eps, where: str) -> None:
    """What the points f was evaluated at show: a step other than eps, or a nudge that was never put back."""
    moved = [(p - base).reshape(-1) for p, _ in points if p.shape == base.shape]
    moved = [d for d in moved if bool((d != 0).any())]
    if not moved:
        return
    counts = [int((d != 0).sum()) for d in moved]
    if max(counts) > 1:
        fail(f"{where} evaluated f at a point that differs from x at {max(counts)} elements at once: an element "
             "nudged for an earlier probe was not put back before the next one.",
             "the copy of x numerical_grad nudges: each probe must move exactly one element, from x itself.",
             "after evaluating f at x + eps and x - eps for element i, restore element i before moving on.",
             code="not_restored")
    sizes = sorted({float(f"{float(d.abs().max()):.3g}") for d in moved})
    if len(sizes) == 1 and abs(sizes[0] - step) > 1e-3 * step:
        fail(f"{where} evaluated f at x \u00b1 {sizes[0]:g} in each element; the step asked for is "
             f"{'the default ' if eps is None else ''}eps={step:g}.",
             "the step numerical_grad used: a size of its own instead of its `eps` argument.",
             "nudge by the `eps` argument, and divide by 2 * eps.", code="ignores_eps")


def _explain_numerical(got, ref, f, base, x, step, eps, derivative, tol, where, points=()):
    owner = "the finite differences numerical_grad computed."
    if any(close(got, _one_sided(f, base, s * step), atol=tol * 10, rtol=1e-9) for s in (1, -1)):
        fail(f"{where} matches a one-sided difference (f(x + eps) - f(x)) / eps, "
             f"which is off from the central difference by up to {max_abs_diff(got, ref):.3g}.",
             owner + " A one-sided difference has an error that shrinks only like eps.",
             "nudge each element both ways and divide by the distance between the two points: "
             "(f(x + eps) - f(x - eps)) / (2 * eps).",
             code="forward_difference")
    if eps is not None and close(got, _central(f, base, 1e-3), atol=tol * 10, rtol=1e-9):
        fail(f"{where} gives the central differences for eps=1e-3, not for eps={eps:g}.",
             owner + " The caller chose the step size; numerical_grad used a fixed one.",
             "use the `eps` argument for both the nudge and the division.",
             code="ignores_eps")
    if close(got, 2 * ref, atol=tol * 10, rtol=1e-9) or close(got, ref / 2, atol=tol * 10, rtol=1e-9):
        fail(f"{where} is {'twice' if close(got, 2 * ref, atol=tol * 10, rtol=1e-9) else 'half'} "
             "the central difference.",
             owner + " The two nudged points are 2 * eps apart.",
             "divide the change in f by the distance between the two points you evaluated.",
             code="wrong_scale")
    exact = derivative(base)
    tracked = [p for p, requires_grad in points if requires_grad]
    if close(got, exact, atol=1e-9, rtol=1e-9) and not close(exact, ref, atol=tol, rtol=1e-9) and tracked:
        fail(f"{where} is the exact derivative, not the central difference for eps={step:g}, and f was called "
             f"{len(tracked)} time(s) with a tensor that requires grad.",
             owner + " numerical_grad is the check on autograd, so it must not use autograd.",
             "evaluate f at x + eps and x - eps for each element, and compute the difference quotient.",
             code="used_autograd")
    low = _central(lambda t: f(t.float()).double(), base, step)
    err = max_abs_diff(got, ref)
    if max_abs_diff(got, low) < err / 2:
        fail(f"{where} is off from the float64 central difference by up to {err:.3g}, "
             "the size of float32 rounding.",
             owner + " f was evaluated in float32 (or x was nudged in float32): the two values of f agree in "
             "most of their ~7 digits, so their difference keeps only a few correct ones.",
             "convert a copy of x to float64 before nudging it, so that f runs in float64.",
             code="float32_arithmetic")
    fail(f"{where} differs from the central difference by up to {err:.3g}.",
         owner,
         "for each element i: nudge a float64 copy of x by +eps and by -eps at position i only, evaluate f "
         "at both, and store (f(x + eps) - f(x - eps)) / (2 * eps) at position i.",
         code="wrong_value")


@graded("numerical_grad")
def numerical_grad_leaves_input(numerical_grad, n: int = 3, seed: int = 0, *, notes):
    """The caller's x is never written to, even when it is already float64."""
    for device in each_device(notes):
        for x, f in [(_draw((n,), seed, device), _cubes),
                     (_draw((2, n), seed + 1, device, torch.float64), _tanh_square)]:
            before, version = plain(x), x._version
            out = call(numerical_grad, f, x)
            if x._version != version or not torch.equal(plain(x), before) or x.requires_grad or x.grad is not None:
                changed = max_abs_diff(x, before)
                what = (f"holds different values (changed by up to {changed:.3g})" if changed
                        else "had its flags or .grad changed" if x.requires_grad or x.grad is not None
                        else f"was written in place (its version counter went from {version} to {x._version})")
                fail(f"after numerical_grad(f, {_x_text(x)}), the caller's x {what}.",
                     "the caller owns x: numerical_grad nudged the caller's memory. For a float64 x, "
                     "`x.double()` and `x.to(torch.float64)` return x itself, and `detach()` shares its memory.",
                     "nudge a copy made with clone() (or build each nudged point as a new tensor).",
                     code="modified_input")
            if not is_tensor_of(out, x.shape):
                job_not_done(f"numerical_grad(f, {_x_text(x)}) returned {describe(out)}, not an estimate with "
                             f"x's shape {list(x.shape)}.", "leaving the caller's x as it was",
                             "the value numerical_grad returns: one central difference per entry of x.",
                             "return the estimate (check.numerical_grad_values judges its values); this check "
                             "then judges what the call left behind.")


# --------------------------------------------------------------------------
# grad_report


class _ReportNet(nn.Module):
    """A small model with nested names, a BatchNorm (buffers) and a frozen layer."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        self.norm = nn.BatchNorm1d(2)
        self.head = nn.Linear(2, 2)
        self.frozen = nn.Linear(2, 2)
        self.frozen.requires_grad_(False)
        self.scale = nn.Parameter(torch.tensor(1.5))  # a parameter of rank 0

    def forward(self, x):
        return self.scale * self.head(self.norm(self.body(x)))


_KINDS = ("none", "zero", "random", "cancel", "negative", "sparse", "sparse_first")


def _grad_of_kind(kind, p, g):
    m = p.numel()
    if kind == "zero":
        flat = torch.zeros(m)
        flat[::2] = -0.0  # a zero is a zero, whatever its sign
    elif kind == "random":
        flat = torch.randn(m, generator=g)
        flat[flat == 0] = 0.5
    elif kind == "cancel":  # pairs +v, -v: exact in any summation order (multiples of 1/8)
        half = m // 2
        v = (torch.randint(1, 9, (half,), generator=g) / 8.0)
        flat = torch.cat([v, -v, torch.zeros(m - 2 * half)])[torch.randperm(m, generator=g)]
    elif kind == "negative":
        flat = -(torch.randint(1, 9, (m,), generator=g) / 8.0)
    else:  # sparse: one small entry, every other entry zero (the first one, or one drawn after it)
        flat = torch.zeros(m)
        flat[0 if kind == "sparse_first" else int(torch.randint(1, m, (1,), generator=g))] = 2.0 ** -10
    return flat.reshape(p.shape).to(device=p.device, dtype=p.dtype)


def _report_model(seed, device):
    """The model, and the kind of gradient the check placed on each parameter."""
    with torch.random.fork_rng(devices=[]):  # leave the learner's global RNG as it was
        manual_seed(seed)
        model = _ReportNet().to(device)
    g = generator(seed)
    trainable = [name for name, p in model.named_parameters() if p.requires_grad and p.numel() > 1]
    extra = [("random", "cancel", "negative")[int(i)] for i in torch.randint(0, 3, (len(trainable) - len(_KINDS),),
                                                                              generator=g)]
    pool = list(_KINDS) + extra
    kinds = {name: pool[int(i)] for name, i in zip(trainable, torch.randperm(len(pool), generator=g))}
    kinds["scale"] = "negative"  # a nonzero rank-0 gradient: its only index is 0
    params = dict(model.named_parameters())
    for name, p in params.items():
        kind = kinds.setdefault(name, "none")
        p.grad = None if kind == "none" else _grad_of_kind(kind, p, g)
    return model, kinds


def _true_state(p) -> str:
    if p.grad is None:
        return "none"
    return "nonzero" if bool((plain(p.grad) != 0).any()) else "zero"


def _report_mismatch(name, said, kind, want, grad_text):
    where = f"grad_report(model) said {said!r} for {name!r}, whose .grad {grad_text}"
    if want == "none":
        return (f"{where}.",
                f"{name} owns its .grad, and it is None: backward() never reached it. That is a missing path, "
                "not a path that carried nothing.",
                "test for None first: a missing gradient and a zero gradient are different states.",
                "none_as_zero" if said == "zero" else "wrong_state")
    if kind == "cancel" and said == "zero":
        return (f"{where} (nonzero entries that add up to exactly 0).",
                f"the test grad_report applied to {name}'s .grad: a sum or a mean can cancel to 0 "
                "while entries are not 0.",
                "call a gradient 'zero' only when every one of its entries is 0.",
                "sum_cancels")
    if kind == "negative" and said == "zero":
        return (f"{where} (every entry negative).",
                f"the test grad_report applied to {name}'s .grad: it looked at the sign of the entries, and "
                "a negative gradient is as real as a positive one.",
                "look at whether entries differ from 0, not at whether they are positive.",
                "negative_as_zero")
    if want == "nonzero" and said == "zero":
        return (f"{where}.",
                f"the test grad_report applied to {name}'s .grad: it missed entries that are not 0.",
                "call a gradient 'zero' only when every one of its entries is exactly 0.",
                "nonzero_as_zero")
    if want == "zero" and said == "nonzero":
        return (f"{where} (every entry is 0 or -0.0).",
                f"the test grad_report applied to {name}'s .grad.",
                "call a gradient 'nonzero' when at least one entry differs from 0 (-0.0 equals 0).",
                "zero_as_nonzero")
    return (f"{where}.",
            f"the test grad_report applied to {name}'s .grad.",
            "return 'none' when .grad is None, 'zero' when every entry is 0, 'nonzero' otherwise.",
            "wrong_state")


@graded("grad_report")
def grad_report_states(grad_report, seed: int = 0, *, notes):
    """One entry per named parameter: 'none', 'zero' or 'nonzero' from its current .grad."""
    for device in each_device(notes):
        model, kinds = _report_model(seed, device)
        names = [name for name, _ in model.named_parameters()]
        # what each .grad is before the call: the report describes the column as it was handed over
        truth = {name: (_true_state(p), "is None" if p.grad is None else f"is {describe(p.grad)}")
                 for name, p in model.named_parameters()}
        out = call(grad_report, model)
        if not isinstance(out, dict):
            fail(f"grad_report(model) returned {describe(out)}.",
                 "grad_report's return value is the gradient column: a dict from parameter name to state.",
                 "return a dict such as {'body.0.weight': 'nonzero', ...}.", code="not_a_dict")
        keys = list(dict.keys(out))
        odd = [k for k in keys if not isinstance(k, str)]
        if odd:
            fail(f"grad_report(model) has keys that are not names: {describe(odd[0])}.",
                 "the dict's keys name the parameters, as model.named_parameters() gives them.",
                 "use the names from model.named_parameters() as keys.", code="keys_not_names")
        missing = [n for n in names if n not in keys]
        extra = [k for k in keys if k not in names]
        if missing:
            fail(f"grad_report(model) has no entry for {', '.join(missing[:3])}"
                 f"{' and more' if len(missing) > 3 else ''}.",
                 "every named parameter owns a .grad slot, frozen ones included (their state is 'none').",
                 "loop over model.named_parameters() and report every parameter it gives.",
                 code="missing_names")
        if extra:
            fail(f"grad_report(model) has entries for {', '.join(map(repr, extra[:3]))}, which are not "
                 "parameter names.",
                 "buffers (BatchNorm's running statistics) and other state belong to the module, not to "
                 "autograd: they have no .grad.",
                 "report exactly the names model.named_parameters() gives.", code="extra_names")
        wrong = []
        for name in names:
            said = dict.__getitem__(out, name)
            if not isinstance(said, str) or str.__str__(said) not in ("none", "zero", "nonzero"):
                fail(f"grad_report(model)[{name!r}] is {describe(said)}.",
                     "the state of each parameter's .grad is one of three words.",
                     "use exactly 'none', 'zero' or 'nonzero'.", code="not_a_state")
            said = str.__str__(said)
            if said != truth[name][0]:
                wrong.append((name, said))
        at_first = {name for name, p in model.named_parameters() if p.dim() == 0 or kinds[name] == "sparse_first"}
        if wrong and all(name in at_first and said == "zero" for name, said in wrong):
            fail(f"grad_report(model) said 'zero' for {', '.join(repr(n) for n, _ in wrong)}, whose .grad holds a "
                 "nonzero entry at index 0 (a parameter of rank 0 has only that entry); every other state was right.",
                 "the test grad_report applied to those gradients: it depends on where the nonzero entries sit, "
                 "and misses one at the first position.",
                 "decide from the entries' values alone: 'zero' only when every entry is exactly 0.",
                 code="nonzero_as_zero")
        if wrong:
            name, said = wrong[0]
            want, grad_text = truth[name]
            seen, owner, todo, code = _report_mismatch(name, said, kinds[name], want, grad_text)
            fail(seen, owner, todo, code=code)


@graded("grad_report")
def grad_report_leaves_grads(grad_report, seed: int = 1, *, notes):
    """Reading the gradient column changes no .grad and no parameter."""
    for device in each_device(notes):
        model, _ = _report_model(seed, device)
        before = {}
        for name, p in model.named_parameters():
            g = p.grad
            before[name] = (g, None if g is None else plain(g), None if g is None else g._version, plain(p),
                            p.requires_grad)
        out = call(grad_report, model)
        for name, p in model.named_parameters():
            g, values, version, weights, flag = before[name]
            if g is None and p.grad is not None:
                fail(f"after grad_report(model), {name}.grad is {describe(p.grad)}; it was None.",
                     f"{name} owns its .grad: None meant 'no path reached me', and grad_report filled it in.",
                     "only read .grad: handle None in your own code instead of writing into the parameter.",
                     code="left_grad")
            if g is not None and p.grad is None:
                fail(f"after grad_report(model), {name}.grad is None; it held a tensor.",
                     f"{name} owns its .grad, and the optimizer reads it next: grad_report cleared it "
                     "(zero_grad() sets gradients to None).",
                     "only read .grad: a report must not call zero_grad() or assign to .grad.",
                     code="cleared_grad")
            if g is not None and (p.grad is not g or p.grad._version != version
                                  or not torch.equal(plain(p.grad), values)):
                fail(f"after grad_report(model), {name}.grad {'is another tensor' if p.grad is not g else 'was written in place'}"
                     f" (changed by up to {max_abs_diff(p.grad, values):.3g}).",
                     f"{name} owns its .grad, and the optimizer reads it next: grad_report modified it.",
                     "only read .grad: compute on it out of place (no zero_(), abs_(), or assignment).",
                     code="grads_changed")
            if p.requires_grad != flag or not torch.equal(plain(p), weights):
                fail(f"after grad_report(model), the parameter {name} changed.",
                     "the module owns its parameters and their flags: a report only reads.",
                     "do not write into parameters or change requires_grad in grad_report.",
                     code="params_changed")
        if not isinstance(out, dict) or any(name not in dict.keys(out) for name in before):
            job_not_done(f"grad_report(model) returned {describe(out)}, not a dict with an entry for every named "
                         "parameter.", "leaving the gradients as they were",
                         "grad_report's return value: the gradient column, one state per parameter name.",
                         "return the report (check.grad_report_states judges its entries); this check then judges "
                         "what reading the gradients left behind.")


# --------------------------------------------------------------------------
# leaves_of


def _leaf(shape, seed, device, dtype=torch.float32):
    return _draw(shape, seed, device, dtype).requires_grad_()


def _expect_list(out, what: str) -> list:
    if not isinstance(out, list):
        fail(f"{what} returned {describe(out)}.",
             "leaves_of's return value: the contract asks for a list (not a tuple, set, generator or dict).",
             "collect the leaves in a Python list and return that list.", code="not_a_list")
    for item in out:
        if type(item) not in (torch.Tensor, nn.Parameter):
            fail(f"{what} returned a list holding {type(item).__name__} objects.",
                 "the list should hold the leaf tensors themselves; the graph's nodes are not tensors "
                 "(an AccumulateGrad node keeps its leaf in `.variable`).",
                 "put the leaf tensors in the list.", code="not_tensors")
    return out


def _missing(out, expected, what: str, graph: str) -> None:
    ids = {id(item) for item in out}
    lost = [leaf for leaf in expected if id(leaf) not in ids]
    if not lost:
        return
    leaf = lost[0]
    twins = [item for item in out if item.shape == leaf.shape and item.device == leaf.device
             and item.dtype == leaf.dtype and torch.equal(plain(item), plain(leaf))]
    if twins and any(id(t) in {id(e) for e in expected} for t in twins):
        fail(f"{what} for {graph} misses a leaf ({describe(leaf)}) whose values equal another leaf's.",
             "leaves_of compared tensors by value (`in` and `==` compare values): two different leaves with "
             "the same numbers looked like one.",
             "compare by identity: keep a set of id(...) of what you have already collected.",
             code="dedup_by_value")
    if twins:
        fail(f"{what} for {graph} returned a copy of a leaf ({describe(leaf)}), not the leaf itself.",
             "the leaf tensor is owned by the caller (a parameter, an input); a copy or a detached tensor is a "
             "different object that backward() never writes into.",
             "return the tensor objects that the graph's AccumulateGrad nodes point to.",
             code="copies")
    fail(f"{what} for {graph} found {len(expected) - len(lost)} of the {len(expected)} leaves it depends on "
         f"(missing: {describe(leaf)}).",
         "autograd's record: every leaf sits at the bottom of some chain of grad_fn nodes, possibly many "
         "levels down.",
         "follow next_functions from t.grad_fn all the way down, not just one level, and collect the leaf of "
         "every AccumulateGrad node you reach.",
         code="missing_leaves")


def _deep_graph(n, depth, seed, device):
    a, b, c = _leaf((n,), seed, device), _leaf((n,), seed + 1, device), _leaf((n,), seed + 2, device)
    d = _leaf((n, n), seed + 3, device)
    k = _draw((n,), seed + 4, device)  # a constant: not tracked
    h = a * b
    for _ in range(depth):
        h = torch.tanh(h) + 0.1 * h
    h = torch.cat([h * c, k])[:n]
    t = (d @ h.exp()).sum()
    return t, [a, b, c, d]


def _model_graph(n, seed, device, input_tracked):
    with torch.random.fork_rng(devices=[]):
        manual_seed(seed)
        model = nn.Sequential(nn.Linear(3, n), nn.Tanh(), nn.Linear(n, 1)).to(device)
    x = _draw((5, 3), seed, device)
    if input_tracked:
        x.requires_grad_()
    t = nn.functional.binary_cross_entropy_with_logits(model(x), torch.ones(5, 1, device=device))
    return t, list(model.parameters()) + ([x] if input_tracked else [])


@graded("leaves_of")
def leaves_of_finds_all(leaves_of, n: int = 3, depth: int = 6, seed: int = 0, *, notes):
    """Every leaf requiring grad that t depends on, however deep; a tracked leaf is its own leaf. Any order."""
    for device in each_device(notes):
        cases = [
            (f"a graph {depth + 4} operations deep", *_deep_graph(n, depth, seed, device)),
            ("a small model's loss", *_model_graph(n, seed, device, input_tracked=seed % 2 == 1)),
        ]
        for graph, t, expected in cases:
            out = _expect_list(call(leaves_of, t), "leaves_of(t)")
            _missing(out, expected, "leaves_of(t)", graph)
        a = _leaf((n,), seed + 9, device)
        out = _expect_list(call(leaves_of, a), "leaves_of(a)")
        if not any(item is a for item in out):
            fail(f"leaves_of(a), for a leaf a that requires grad, returned {describe(out)}.",
                 "a itself: it has no grad_fn because nothing made it, and it is the one leaf it depends on.",
                 "when t has no grad_fn, return [t] if t requires grad.", code="leaf_itself")


@graded("leaves_of")
def leaves_of_each_once(leaves_of, n: int = 3, depth: int = 5, seed: int = 0, *, notes):
    """Each leaf once, by identity: shared leaves and leaves with equal values."""
    for device in each_device(notes):
        a, b = _leaf((n,), seed, device), _leaf((n,), seed + 1, device)
        h = a
        for _ in range(depth):  # every level reads h twice: many paths lead back to a
            h = h * 0.5 + torch.sin(h)
        shared = ((h * b).sum() + (a * a).sum(), [a, b], f"a graph that reads one leaf along {2 ** depth}+ paths")
        s1 = torch.tensor(0.5, device=device, requires_grad=True)
        s2 = torch.tensor(0.5, device=device, requires_grad=True)  # a different leaf with the same value
        w = _leaf((), seed + 2, device)
        twins = (w * s1 + w * s2, [w, s1, s2], "a graph with two distinct leaves of equal value")
        for t, expected, graph in (twins, shared):
            out = _expect_list(call(leaves_of, t), "leaves_of(t)")
            counts: dict[int, int] = {}
            for item in out:
                counts[id(item)] = counts.get(id(item), 0) + 1
            twice = [item for item in out if counts[id(item)] > 1]
            if twice:
                fail(f"leaves_of(t) for {graph} lists the same leaf ({describe(twice[0])}) "
                     f"{counts[id(twice[0])]} times.",
                     "autograd's record: a leaf used several times has one AccumulateGrad node, reached along "
                     "several paths.",
                     "remember what you have already visited (a set of id(...)) and add each leaf once.",
                     code="repeated_leaf")
            _missing(out, expected, "leaves_of(t)", graph)


@graded("leaves_of")
def leaves_of_only_leaves(leaves_of, n: int = 3, seed: int = 0, *, notes):
    """Only leaves that require grad: no computed tensors, no constants; [] without history."""
    for device in each_device(notes):
        a, b = _leaf((n,), seed, device), _leaf((n,), seed + 1, device)
        k = _draw((n,), seed + 2, device)  # a constant
        h = torch.tanh(a * b)
        h.retain_grad()  # tracked and retained, but computed: not a leaf
        t = (h * a + k * b.exp()).sum()
        with torch.no_grad():
            quiet = (a * b).sum()  # computed with recording off: no history
        cases = [
            ("t = (tanh(a * b) * a + k * exp(b)).sum()", t, [a, b]),
            ("a tensor without grad history", k, []),
            ("a tensor computed under torch.no_grad()", quiet, []),
        ]
        for graph, root, expected in cases:
            out = _expect_list(call(leaves_of, root), "leaves_of(t)")
            ids = {id(e) for e in expected}
            for item in out:
                if id(item) in ids:
                    continue
                if item.grad_fn is not None or not item.is_leaf:
                    which = "t itself, a computed tensor" if item is root else "a computed tensor"
                    fail(f"leaves_of(t) for {graph} returned {which} ({describe(item)}, "
                         f"grad_fn={type(item.grad_fn).__name__}).",
                         "autograd's record: a tensor with a grad_fn is an intermediate result, not a leaf; "
                         "backward() does not store .grad in it.",
                         "collect only the tensors held by AccumulateGrad nodes (and t itself only when it is a "
                         "leaf that requires grad).",
                         code="non_leaf")
                if not item.requires_grad:
                    fail(f"leaves_of(t) for {graph} returned a tensor that does not require grad "
                         f"({describe(item)}).",
                         "autograd records nothing for tensors that do not require grad: constants and "
                         "tensors made under no_grad are not part of t's record.",
                         "return t itself only when it is a leaf that requires grad; otherwise a tensor "
                         "without grad_fn has no leaves.",
                         code="not_requiring_grad")
                fail(f"leaves_of(t) for {graph} returned a leaf t does not depend on ({describe(item)}).",
                     "autograd's record of t: only the leaves reachable from t.grad_fn are t's leaves.",
                     "collect leaves only by walking t.grad_fn.", code="not_in_graph")
            if expected:
                _missing(out, expected, "leaves_of(t)", graph)


__all__ = [
    "grad_of_values", "grad_of_leaves_caller", "grad_of_no_history",
    "numerical_grad_values", "numerical_grad_leaves_input",
    "grad_report_states", "grad_report_leaves_grads",
    "leaves_of_finds_all", "leaves_of_each_once", "leaves_of_only_leaves",
]


# --------------------------------------------------------------------------
# stable_softmax: the in-place claim


def _softmax_input(shape, seed: int, device: str, scale: float = 3.0) -> torch.Tensor:
    return torch.randn(*shape, generator=generator(seed), dtype=torch.float32).mul(scale).to(device)


def _call_softmax(stable_softmax, z, **kwargs):
    """Call the learner's stable_softmax; a broadcast error from a reduction without keepdim is named as such."""
    import re

    try:
        return call(stable_softmax, z, **kwargs)
    except LearnerRaised as raised:
        sizes = re.search(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)", str(raised.error))
        dim = kwargs.get("dim", -1)
        if sizes and z.dim() > 1:
            a, b = int(sizes.group(1)), int(sizes.group(2))
            kept = [n for i, n in enumerate(z.shape) if i != dim % z.dim()]
            if z.shape[dim] in (a, b) and ({a, b} - {z.shape[dim]}) <= set(kept):
                fail(f"{raised.call_text} raised RuntimeError: {str(raised.error).splitlines()[0]}. The sizes it "
                     f"pairs are {a} and {b}: {z.shape[dim]} is z's size along dim, and a max or sum over dim "
                     f"without keepdim=True is a tensor of shape {kept}, whose last size then lines up against dim.",
                     "the reductions in stable_softmax: without keepdim=True they drop dim, so the result no longer "
                     "broadcasts against z.",
                     "pass keepdim=True to the max and to the sum, so each keeps dim as a size-1 dimension.",
                     code="no_keepdim")
        raise


@graded("stable_softmax")
def stable_softmax_values(stable_softmax, seed: int = 0, *, notes):
    """Softmax along dim (default -1), finite for large inputs, with the caller's tensor left untouched"""
    for device in each_device(notes):
        z = _softmax_input((4, 5), seed, device)
        before, version = z.clone(), z._version
        out = _call_softmax(stable_softmax, z)
        what = f"stable_softmax(z of shape {list(z.shape)})"
        if z._version != version or not torch.equal(z, before):
            fail(f"after {what}, the caller's z held other values than before the call.",
                 "an in-place operation (`z -= ...`, `z.sub_(...)`, `z.exp_()`) wrote into the caller's tensor, "
                 "which still belongs to the caller.",
                 "compute new tensors (`z - m`), never write into z.", code="modified_input")
        expect_tensor(out, what, "the probabilities stable_softmax returned.", shape=tuple(z.shape),
                      dtype=torch.float32, device=device)
        want = torch.softmax(before, dim=-1)
        if not close(out, want, atol=1e-6):
            if close(out, torch.softmax(before, dim=0), atol=1e-6):
                fail(f"{what} sums to 1 down each column (dim 0), not along the last dimension.",
                     "the dimension the maximum and the sum were taken over.",
                     "take the max and the sum over `dim` (the last one by default), with keepdim=True.",
                     code="wrong_dim")
            fail(f"{what} differs from the softmax along the last dimension by up to "
                 f"{max_abs_diff(out, want):.3g}.", "the values stable_softmax computed.",
                 "exponentiate z minus its maximum along dim and divide by their sum along dim.", code="wrong_value")
        z3 = _softmax_input((2, 3, 4), seed + 1, device)
        out3 = _call_softmax(stable_softmax, z3, dim=1)
        expect_tensor(out3, "stable_softmax(z of shape [2, 3, 4], dim=1)", "the probabilities stable_softmax "
                      "returned.", shape=(2, 3, 4))
        if not close(out3, torch.softmax(z3, dim=1), atol=1e-6):
            fail("stable_softmax(z of shape [2, 3, 4], dim=1) does not sum to 1 along dimension 1.",
                 "the `dim` argument: the function did not use it for both the max and the sum.",
                 "take the max and the sum over `dim`.", code="ignores_dim")
        big = torch.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]], device=device)
        out_big = _call_softmax(stable_softmax, big.clone())
        expect_tensor(out_big, "stable_softmax of logits near 1000", "the probabilities stable_softmax returned.",
                      shape=(2, 3))
        if not torch.isfinite(plain(out_big)).all():
            fail("stable_softmax of logits near 1000 returned nan or inf: exp(1000) overflows float32.",
                 "the exponentials: they were taken of z itself, not of z minus its maximum.",
                 "subtract the maximum along dim before exponentiating (softmax does not change under a shift).",
                 code="not_stable")
        if not close(out_big, torch.softmax(big, dim=-1), atol=1e-6):
            fail(f"stable_softmax of logits near 1000 differs from the softmax by up to "
                 f"{max_abs_diff(out_big, torch.softmax(big, dim=-1)):.3g}.", "the values stable_softmax computed.",
                 "exponentiate z minus its maximum along dim and divide by their sum along dim.", code="wrong_value")
        apart = _rows_apart(device)
        out_apart = _call_softmax(stable_softmax, apart.clone())
        expect_tensor(out_apart, f"stable_softmax of {_APART}", "the probabilities stable_softmax returned.",
                      shape=(2, 3))
        if not close(out_apart, torch.softmax(apart, dim=-1), atol=1e-6):
            if torch.isfinite(plain(out_apart)).all():
                fail(f"stable_softmax of {_APART} returned {_rows_text(out_apart)}; each row's softmax is "
                     "[0.09, 0.245, 0.665].", "the values stable_softmax computed.",
                     "exponentiate z minus its maximum along dim and divide by their sum along dim.",
                     code="wrong_value")
            _global_max(f"stable_softmax of {_APART} returned {_rows_text(out_apart)}")


#: Two rows 2000 apart: subtracting the whole tensor's maximum leaves the lower row's exponentials all 0.
_APART = "a row of logits near 1000 above a row near -1000"


def _rows_apart(device, requires_grad: bool = False) -> torch.Tensor:
    return torch.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, -999.0, -998.0]], device=device,
                        requires_grad=requires_grad)


def _rows_text(t: torch.Tensor) -> str:
    return "; ".join(f"row {i}: [{', '.join(f'{v:.3g}' for v in row)}]" for i, row in enumerate(plain(t).tolist()))


def _global_max(seen: str) -> None:
    fail(f"{seen}; each row's softmax is [0.09, 0.245, 0.665].",
         "the maximum you subtracted: one number for the whole tensor, not one per row along dim, so a row far "
         "below the top row has every exponential underflow to 0, and 0 / 0 is nan.",
         "take the maximum along dim, one per row (kept as a dimension of size 1 so that it broadcasts), so that "
         "every row is shifted by its own maximum.", code="global_max")


@graded("stable_softmax")
def stable_softmax_gradient(stable_softmax, seed: int = 2, *, notes):
    """Backward through stable_softmax runs and gives the true gradient (no in-place op on saved tensors)"""
    for device in each_device(notes):
        leaf = _softmax_input((3, 4), seed, device).requires_grad_()
        z = leaf * 1.0  # a non-leaf, as inside a model: an in-place op on it would not raise at once
        out = _call_softmax(stable_softmax, z)
        expect_tensor(out, "stable_softmax(z)", "the probabilities stable_softmax returned.", shape=(3, 4))
        if out.grad_fn is None:
            fail("stable_softmax(z) of a z that requires grad returned a tensor with no autograd history.",
                 "autograd: the result was detached (or computed under no_grad, or rebuilt from numbers).",
                 "compute it with torch operations on z, so backward can flow through it.", code="no_graph")
        weights = torch.randn(3, 4, generator=generator(seed + 7)).to(device)
        try:
            (out * weights).sum().backward()
        except RuntimeError as error:
            if "inplace" in str(error).replace("-", "").replace(" ", "") or "in-place" in str(error):
                fail("backward through stable_softmax raised: a tensor autograd saved for the backward pass was "
                     "modified in place afterwards (its version counter changed).",
                     "autograd: exp saves its output, and an in-place division (`e /= ...`) overwrote it.",
                     "divide out of place (`e / e.sum(dim, keepdim=True)`).", code="inplace_saved")
            fail(f"backward through stable_softmax raised {type(error).__name__}: {str(error).splitlines()[0]}.",
                 "the graph stable_softmax built.", "use ordinary, out-of-place torch operations.", code="backward_raised")
        reference = leaf.detach().clone().requires_grad_()
        (torch.softmax(reference * 1.0, dim=-1) * weights).sum().backward()
        if leaf.grad is None or not close(leaf.grad, reference.grad, atol=1e-6):
            fail("the gradient that flowed back through stable_softmax differs from the softmax's true gradient.",
                 "the graph stable_softmax built: part of the computation was cut from it (a `.detach()`, a "
                 "value taken as a number) or computed something else.",
                 "build the result from z with differentiable operations only (detaching the max is fine; "
                 "detaching the sum is not).", code="wrong_gradient")
        apart = _rows_apart(device, requires_grad=True)
        out = _call_softmax(stable_softmax, apart * 1.0)
        if isinstance(out, torch.Tensor) and out.grad_fn is not None:
            (out * weights[:2, :3]).sum().backward()
            if not torch.isfinite(apart.grad).all():
                _global_max(f"the gradient through stable_softmax of {_APART} holds nan or inf "
                            f"({_rows_text(apart.grad)})")
# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)
