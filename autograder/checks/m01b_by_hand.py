"""Checks for module 01b-by-hand: the network you traced by hand, three ways.

Each public function here is one test cell's call, for example
``check.manual_gradients_output_layer(manual_gradients)``.  Hidden tests call the same
checks with other sizes, seeds and hyper-parameters.

The references are PyTorch's own, computed here in float64 on the CPU from copies of the
check's tensors: autograd for the network's gradients, ``binary_cross_entropy_with_logits``
for the loss and its gradient, and ``torch.optim.SGD`` with momentum for the optimizer's step.
The learner's ``manual_gradients`` is called with inference tensors inside
``torch.inference_mode()``, where autograd records nothing, and a torch function mode watches the call:
a tensor asked to require grad, a backward pass or a recorded result (after leaving inference mode) fails
it, so its gradients must come from the chain rule written out.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
import torch.nn.functional as F

from .. import course_code
from ..core import LearnerRaised, call, describe, fail, graded, job_not_done
from ..devices import close, each_device, expect_tensor, generator, max_abs_diff, plain
from ..hints import hint_for, solution_for

NAMES = ("hidden.weight", "hidden.bias", "out.weight", "out.bias")
OUTPUT_LAYER = ("out.weight", "out.bias")
HIDDEN_LAYER = ("hidden.weight", "hidden.bias")


# --------------------------------------------------------------------------
# The network: x -> tanh(x W1^T + b1) -> z = h W2^T + b2, loss = mean BCE(z, y)


def _network(features: int, width: int, n: int, seed: int, device: str, dtype=torch.float32):
    """(params, x, y): the network's tensors and a batch, drawn on the CPU (the same numbers on every device)."""
    g = generator(seed)
    params = {
        "hidden.weight": torch.randn(width, features, generator=g) * 0.8,
        "hidden.bias": torch.randn(width, generator=g) * 0.5,
        "out.weight": torch.randn(1, width, generator=g),
        "out.bias": torch.randn(1, generator=g) * 0.5,
    }
    x = torch.randn(n, features, generator=g) * 1.5
    y = (torch.rand(n, 1, generator=g) < 0.5).float()
    y[0], y[-1] = 0.0, 1.0  # both classes in every batch
    return ({k: v.to(device=device, dtype=dtype) for k, v in params.items()}, x.to(device=device, dtype=dtype),
            y.to(device=device, dtype=dtype))


def _reference_gradients(params, x, y, *, tanh_derivative: bool = True):
    """Autograd's gradients of the mean loss, in float64 on the CPU (``tanh_derivative=False``: the gradients a
    chain rule that skipped tanh's derivative would give, to name that mistake)."""
    leaves = {k: plain(v).double().requires_grad_() for k, v in params.items()}
    x64, y64 = plain(x).double(), plain(y).double()
    with torch.enable_grad():
        pre = x64 @ leaves["hidden.weight"].T + leaves["hidden.bias"]
        h = torch.tanh(pre)
        if not tanh_derivative:  # h's value, with a local derivative of 1
            h = pre + (h - pre).detach()
        z = h @ leaves["out.weight"].T + leaves["out.bias"]
        loss = F.binary_cross_entropy_with_logits(z, y64)
        grads = torch.autograd.grad(loss, list(leaves.values()))
    return dict(zip(leaves, grads))


def _chain_rule(params, x, y, *, logits_as_probabilities: bool = False, tanh_factors: int = 1):
    """The chain rule written out in float64 on the CPU, with one known slip: ``logits_as_probabilities`` forms
    dL/dz from the logits z where sigmoid(z) belongs; ``tanh_factors=2`` multiplies by tanh's local derivative twice.
    Used only to name a learner's mistake: the same gradients as the learner's are evidence of that slip."""
    w1, b1 = plain(params["hidden.weight"]).double(), plain(params["hidden.bias"]).double()
    w2, b2 = plain(params["out.weight"]).double(), plain(params["out.bias"]).double()
    x64, y64 = plain(x).double(), plain(y).double()
    h = torch.tanh(x64 @ w1.T + b1)
    z = h @ w2.T + b2
    dz = ((z if logits_as_probabilities else torch.sigmoid(z)) - y64) / x64.shape[0]
    da = dz @ w2
    for _ in range(tanh_factors):
        da = da * (1 - h * h)
    return {"hidden.weight": da.T @ x64, "hidden.bias": da.sum(dim=0), "out.weight": dz.T @ h, "out.bias": dz.sum(dim=0)}


def _shape_text(params, x) -> str:
    return (f"x {list(x.shape)}, hidden.weight {list(params['hidden.weight'].shape)}, "
            f"{str(x.dtype).replace('torch.', '')} on {x.device}")


class _AutogradWatch(torch.overrides.TorchFunctionMode):
    """Notes the first use of autograd while the learner's code runs: a tensor asked to require grad, a
    backward pass or autograd.grad called, or any result recorded in a graph (whatever mode it ran in)."""

    CALLS = ("requires_grad_", "backward", "grad", "vjp", "jacobian", "hessian")

    def __init__(self):
        super().__init__()
        self.used = ""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if not self.used and (name in self.CALLS or (name == "__set__" and "requires_grad" in repr(func))):
            self.used = f"called {name}"
        out = func(*args, **(kwargs or {}))
        if not self.used and isinstance(out, torch.Tensor) and out.requires_grad:
            self.used = f"{name or 'an operation'} returned a tensor that requires grad"
        return out


#: Autograd's entry points in every mode, by file under torch/ and function (None: every function of the file):
#: reverse mode, forward mode (dual numbers), torch.autograd.functional and torch.func's transforms.  They are
#: seen in the code that ran, so switching the torch function mode off (torch._C.DisableTorchFunction) or
#: holding a reference taken before the call hides none of them.
_AUTOGRAD_ENTRIES = {
    "autograd/__init__.py": {"backward", "grad"},
    "_tensor.py": {"backward"},
    "autograd/forward_ad.py": None,
    "autograd/functional.py": None,
    "autograd/function.py": {"apply"},
    "_functorch/apis.py": {"grad", "grad_and_value"},
    "_functorch/eager_transforms.py": {"grad_impl", "grad_and_value_impl", "vjp", "jvp", "jacrev", "jacfwd",
                                       "hessian", "linearize"},
}


def _autograd_entry(codes) -> str:
    """The outermost of autograd's entry points among ``codes`` (code objects that ran: torch.func's before the
    forward mode they use, ...), as "ran ..."; '' if none."""
    order = list(_AUTOGRAD_ENTRIES)[::-1]
    found = []
    for code in codes:
        path = code.co_filename.replace("\\", "/")
        at = path.rfind("/torch/")
        if at < 0:
            continue
        names = _AUTOGRAD_ENTRIES.get(path[at + 7:], False)
        top = code.co_qualname.split(".")[-1] if "." in code.co_qualname else code.co_qualname
        if names is None or (names and top in names):
            module = "torch." + path[at + 7:-3].replace("/", ".").removesuffix(".__init__")
            found.append((order.index(path[at + 7:]), f"ran {module}.{code.co_qualname}"))
    return min(found)[1] if found else ""


def _used_autograd(call_text: str, used: str) -> None:
    fail(f"{call_text} used autograd ({used}).",
         "autograd: this function is where you do autograd's job yourself, so no graph may be recorded and no "
         "backward pass run, whatever mode the call switches to.",
         "compute every gradient with tensor arithmetic only (matrix products, tanh, sigmoid, sums), "
         "following the chain rule from the loss back to each parameter: no requires_grad, "
         "backward() or torch.autograd.",
         code="used_autograd")


def _call_manual(manual_gradients, params, x, y):
    """The learner's manual_gradients on inference tensors, inside inference mode, with autograd watched."""
    with torch.inference_mode():
        params = {k: v.clone() for k, v in params.items()}
        x, y = x.clone(), y.clone()
        before = {k: v.clone() for k, v in params.items()}
        watch = _AutogradWatch()
        try:
            with course_code.calls() as ran, watch:
                out = call(manual_gradients, params, x, y)
        except LearnerRaised as raised:
            text = str(raised.error)
            used = watch.used or _autograd_entry(ran.codes)
            if used or any(s in text for s in ("nference", "does not require grad", "does not have a grad_fn")):
                _used_autograd(f"{raised.call_text} raised {type(raised.error).__name__}: "
                               f"{text.strip().splitlines()[0]}; it", used or "on inference tensors")
            raise
        used = watch.used or _autograd_entry(ran.codes)
        if used:
            _used_autograd(_call_text(params, x), used)
    for name, value in params.items():
        if not torch.equal(value, before[name]):
            fail(f"after {_call_text(params, x)}, params[{name!r}] holds different values "
                 f"(changed by up to {max_abs_diff(value, before[name]):.3g}).",
                 "the caller owns the network's parameters: manual_gradients wrote into one of them.",
                 "read the parameters and build new tensors for the gradients; never modify params in place.",
                 code="modified_input")
    return out


def _call_text(params, x) -> str:
    return f"manual_gradients(params, x, y) with {_shape_text(params, x)}"


def _expect_gradient_dict(out, params, x) -> None:
    where = _call_text(params, x)
    if not isinstance(out, Mapping):
        if out is None:
            job_not_done(f"{where} returned None.", "nothing", "the dictionary manual_gradients returns.",
                         "return {name: gradient} for every entry of params.")
        fail(f"{where} returned {describe(out)}, not a dictionary.",
             "the value manual_gradients returns: {name: gradient of the mean loss} for every parameter.",
             "return a dict with the same keys as params.",
             code="not_a_dict")
    if set(out) != set(params):
        missing, extra = sorted(set(params) - set(out)), sorted(map(str, set(out) - set(params)))
        fail(f"{where} returned a dictionary with keys {sorted(map(str, out))}"
             + (f"; missing {missing}" if missing else "") + (f"; not in params {extra}" if extra else "") + ".",
             "the value manual_gradients returns: one gradient per parameter, under the parameter's own name.",
             "use exactly the keys of params (the names nn.Module would give these tensors).",
             code="wrong_keys")
    for name, value in params.items():
        expect_tensor(out[name], f"{where}: the gradient for {name!r}",
                      f"the gradient of {name!r}: a gradient has the shape, dtype and device of its parameter.",
                      shape=value.shape, dtype=value.dtype, device=value.device.type)


def _judge_layer(out, params, x, y, names, layer: str) -> None:
    where = _call_text(params, x)
    ref = _reference_gradients(params, x, y)
    tol = dict(atol=1e-5, rtol=1e-4) if x.dtype == torch.float32 else dict(atol=1e-9, rtol=1e-7)
    n = x.shape[0]
    for name in names:
        got = plain(out[name]).double()
        want = ref[name]
        if close(got, want, **tol):
            continue
        seen = f"{where}: the gradient for {name!r} differs from autograd's by up to {max_abs_diff(got, want):.3g}."
        if close(got, n * want, **tol):
            fail(f"{where}: the gradient for {name!r} is {n} times autograd's, the batch size.",
                 "the loss you differentiated: the contract's loss is the MEAN over the batch, so every example's "
                 "share of each gradient carries a factor 1/N.",
                 "find where dL/dz is formed and divide it by the number of examples, once.",
                 code="sum_not_mean")
        if close(got, want / n, **tol):
            fail(f"{where}: the gradient for {name!r} is exactly 1/{n} of autograd's, 1 over the batch size.",
                 "the mean's factor 1/N, applied twice: once where dL/dz is formed, and again later (a .mean() over "
                 "the batch where the chain rule sums, or a second division by N).",
                 "divide by the number of examples once, where dL/dz is formed, and sum over the batch after "
                 "that.", code="mean_applied_twice")
        if close(got, -want, **tol):
            fail(f"{where}: the gradient for {name!r} has the opposite sign of autograd's.",
                 "the gradient you return: it points downhill; a gradient points the way the loss grows.",
                 "start from dL/dz = sigmoid(z) - y (not y - sigmoid(z)) and keep every later sign as the chain "
                 "rule gives it.",
                 code="negated")
        if name in HIDDEN_LAYER and close(got, _reference_gradients(params, x, y, tanh_derivative=False)[name],
                                          **tol):
            fail(seen,
                 "the step of the chain rule back through tanh: the hidden layer's gradients carry h's local "
                 "derivative, and yours equal gradients computed as if tanh were not there.",
                 "multiply dL/dh, element by element, by tanh's derivative at the pre-activation (written with h, "
                 "the hidden output you already have) before going on to the hidden layer's weight and bias.",
                 code="missed_tanh_derivative")
        if close(got, _chain_rule(params, x, y, logits_as_probabilities=True)[name], **tol):
            fail(f"{seen} Yours equal, to rounding, the gradients of a chain rule that starts from dL/dz = (z - y) / N: "
                 "the logits z compared with y as if they were probabilities.",
                 "dL/dz, where the chain rule starts: the loss compares probabilities with y, and the network "
                 "returns logits z (any real number), so a logit took the place of sigmoid(z).",
                 "turn the logits into probabilities with sigmoid before comparing them with y (the lesson's dL/dz "
                 "for binary cross-entropy on logits); every later factor builds on that one.",
                 code="logits_as_probabilities")
        if name in HIDDEN_LAYER and close(got, _chain_rule(params, x, y, tanh_factors=2)[name], **tol):
            fail(f"{seen} Yours equal, to rounding, the gradients of a chain rule that multiplies by tanh's local "
                 "derivative (1 - h * h) twice.",
                 "the step of the chain rule back through tanh: tanh sits once between the hidden layer and the "
                 "output, so its local derivative is a factor once, and yours applied it twice.",
                 "multiply dL/dh by tanh's derivative once on the way back to the hidden layer's weight and bias "
                 "(look for a second multiplication, or a da that is multiplied again).",
                 code="tanh_derivative_twice")
        fail(seen,
             f"the {layer}'s gradients: somewhere between the loss and {name!r} one factor of the chain rule is "
             "missing, transposed, or taken at the wrong tensor.",
             "write the chain rule down one example at a time first (as in the lesson), then check each matrix "
             "product's shapes against the parameter's: [N, ...] tensors summed over the batch give [...] "
             "gradients.",
             code="wrong_gradient")


def _cases(features: int, width: int, n: int, seed: int, device: str):
    """The exercise's network, then another size in float64 (a learner's hard-coded 2 or 4 shows there)."""
    return [_network(features, width, n, seed, device),
            _network(features + 1, width + 2, n + 5, seed + 1, device, torch.float64)]


def _judge_manual(manual_gradients, features, width, n, seed, notes, names, layer: str) -> None:
    for device in each_device(notes):
        for params, x, y in _cases(features, width, n, seed, device):
            out = _call_manual(manual_gradients, params, x, y)
            _expect_gradient_dict(out, params, x)
            _judge_layer(out, params, x, y, names, layer)


@graded("manual_gradients")
def manual_gradients_output_layer(manual_gradients, features: int = 2, width: int = 4, n: int = 8, seed: int = 0,
                                  *, notes):
    """Every key of params, each gradient shaped like its parameter; the output layer's gradients equal autograd's."""
    _judge_manual(manual_gradients, features, width, n, seed, notes, OUTPUT_LAYER, "output layer")


@graded("manual_gradients")
def manual_gradients_hidden_layer(manual_gradients, features: int = 2, width: int = 4, n: int = 8, seed: int = 0,
                                  *, notes):
    """The hidden layer's gradients (back through tanh) equal autograd's."""
    _judge_manual(manual_gradients, features, width, n, seed, notes, HIDDEN_LAYER, "hidden layer")


# --------------------------------------------------------------------------
# bce_with_logits


def _bce_cases(n: int, seed: int, device: str):
    """(label, z, y): ordinary logits in three shapes, logits of exactly 0, then logits up to 1e4 in size with
    both labels."""
    g = generator(seed)
    ordinary = [(f"ordinary logits {shape}", torch.randn(shape, generator=g) * 3,
                 (torch.rand(shape, generator=g) < 0.5).float()) for shape in ((n, 1), (n,), (2, n))]
    # A zero-initialised output layer's first logits are exactly 0, where a loss built from max(z, 0) with
    # clamp or relu has the wrong slope (autograd gives those 1 or 0 at 0; the loss's slope is sigmoid(0) - y).
    zero = [("logits of exactly 0 (a zero-initialised output layer)", torch.zeros(n),
             torch.arange(n).remainder(2).float())]
    big = torch.tensor([100.0, -100.0, 1e4, -1e4, 30.0, -30.0, 88.0, -88.0])
    extreme = [("logits of ±100 and ±1e4, the right labels", big, (big > 0).float()),
               ("logits of ±100 and ±1e4, the wrong labels", big, (big < 0).float()),
               ("logits of ±100 and ±1e4, mixed labels", big, torch.tensor([0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0]))]
    return [(label, z.to(device), y.to(device)) for label, z, y in ordinary + zero + extreme]


class _BuiltinLoss(torch.overrides.TorchFunctionMode):
    """Notes whether PyTorch's own binary cross-entropy ran (under any name the learner imported it by)."""

    def __init__(self):
        super().__init__()
        self.used = ""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if "binary_cross_entropy" in name:
            self.used = self.used or name
        return func(*args, **(kwargs or {}))


def _call_bce(bce_with_logits, z, y):
    with _BuiltinLoss() as watch:
        out = call(bce_with_logits, z, y)
    if watch.used:
        fail(f"bce_with_logits(z, y) called PyTorch's {watch.used}.",
             "the loss: this function is the loss PyTorch computes, so handing the work to PyTorch's own "
             "(BCEWithLogitsLoss, binary_cross_entropy_with_logits) leaves the exercise undone.",
             "write the loss from its formula with elementary tensor operations (exp, log, log1p, abs, clamp, "
             "mean, ...); the checks compare it with PyTorch's for you.", code="used_builtin_loss")
    where = f"bce_with_logits(z, y) with {describe(z)}"
    if out is None:
        job_not_done(f"{where} returned None.", "nothing", "the value bce_with_logits returns: the mean loss.",
                     "return the mean binary cross-entropy as a tensor with no dimensions (shape []).")
    if isinstance(out, torch.Tensor) and out.dim() > 0 and out.numel() == 1 and z.dim() > 1:
        fail(f"{where} returned shape {list(out.shape)}, not a scalar (shape []): a mean over some of the "
             f"dimensions of the [{', '.join(map(str, z.shape))}] losses leaves dimensions of size 1 behind.",
             "the reduction at the end of bce_with_logits: it averaged over one dimension, not over every element.",
             "take the mean over every element, .mean() with no dim, which returns a scalar.", code="wrong_shape")
    expect_tensor(out, where, "the loss bce_with_logits returns: one number, the mean over every element, as a "
                  "tensor with no dimensions, in z's dtype and on z's device.", shape=(), dtype=z.dtype,
                  device=z.device.type)
    return out


@graded("bce_with_logits")
def bce_with_logits_values(bce_with_logits, n: int = 6, seed: int = 0, *, notes):
    """The mean loss equals PyTorch's for ordinary logits and stays finite and exact for |z| up to 1e4."""
    for device in each_device(notes):
        for label, z, y in _bce_cases(n, seed, device):
            before = plain(z)
            out = _call_bce(bce_with_logits, z, y)
            if not torch.equal(plain(z), before):
                fail(f"after bce_with_logits(z, y) with {label}, the caller's z holds different values.",
                     "the caller owns z: bce_with_logits wrote into it.",
                     "build new tensors from z (out of place); never modify z.", code="modified_input")
            want = F.binary_cross_entropy_with_logits(plain(z).double(), plain(y).double())
            got = plain(out).double()
            if close(got, want, atol=1e-5, rtol=1e-5):
                continue
            where = f"bce_with_logits(z, y) with {label} on {device}"
            if not torch.isfinite(got):
                fail(f"{where} returned {got.item()}; PyTorch's loss is {want.item():.6g}.",
                     "the formula: it computes a probability (or e to a large positive power) first, and in float32 "
                     "sigmoid(100) rounds to exactly 1.0, so log(1 - p) is log(0).",
                     "write -log(sigmoid(z)) and -log(1 - sigmoid(z)) in terms of z alone, so that no probability is "
                     "ever formed, and rearrange the log(1 + e^t) they become so that e is never raised to a large "
                     "positive power (section 6 of the lesson shows why; check.hint('bce_with_logits', 3) gives "
                     "a bound that leads to the rearrangement).",
                     code="not_stable")
            n_elements = z.numel()
            if close(got, n_elements * want, atol=1e-4, rtol=1e-5):
                fail(f"{where} returned {got.item():.6g}, {n_elements} times PyTorch's mean loss {want.item():.6g}.",
                     "the reduction: the contract's loss is the mean over every element, not the sum.",
                     "average over all elements of z.", code="sum_not_mean")
            if not label.startswith("logits of ±"):
                fail(f"{where} returned {got.item():.6g}; PyTorch's loss is {want.item():.6g}.",
                     "the formula: for ordinary logits the value already differs, so a sign, a label or a term is "
                     "wrong (the loss is -[y log p + (1 - y) log(1 - p)] with p = sigmoid(z)).",
                     "check your formula on one element by hand, with y = 0 and with y = 1.", code="wrong_value")
            fail(f"{where} returned {got.item():.6g}; PyTorch's loss is {want.item():.6g} (right for ordinary "
                 "logits, wrong for large ones).",
                 "the formula at large |z|: a probability clamped away from 0 and 1 (or a log of a rounded "
                 "probability) caps each element's loss, but the loss of a logit of -100 with label 1 is 100.",
                 "work from the logit itself, never from a rounded or clamped probability.",
                 code="clamped_probability")


def _fractions(got, y, n: int) -> str:
    """The gradient at zero logits in units of 1/N, by label (the slope autograd gave max(z, 0) shows there)."""
    per = (plain(got).double() * n).flatten()
    labels = plain(y).flatten()
    parts = [f"{per[labels == v][0].item():.3g}/{n} where y = {v:g}" for v in (0.0, 1.0) if (labels == v).any()]
    return ", ".join(parts)


@graded("bce_with_logits")
def bce_with_logits_gradient(bce_with_logits, n: int = 6, seed: int = 0, *, notes):
    """The loss is differentiable: its gradient with respect to z is finite and equals PyTorch's, up to |z| = 1e4."""
    for device in each_device(notes):
        for label, z, y in _bce_cases(n, seed + 1, device):
            leaf = z.clone().requires_grad_()
            with torch.enable_grad():
                out = _call_bce(bce_with_logits, leaf, y)
                where = f"the gradient of bce_with_logits(z, y) with {label} on {device}"
                if not out.requires_grad:
                    fail(f"bce_with_logits(z, y) with {label} returned a tensor that does not require grad, for a z "
                         "that does.",
                         "autograd: the loss was cut from z's graph (detach, .item(), numpy or torch.no_grad), so "
                         "backward() cannot reach the model's parameters.",
                         "compute the loss with torch operations on z itself, with recording left as the caller "
                         "set it.", code="cut_from_graph")
                (got,) = torch.autograd.grad(out, leaf)
            zd = plain(z).double().requires_grad_()
            with torch.enable_grad():
                (want,) = torch.autograd.grad(F.binary_cross_entropy_with_logits(zd, plain(y).double()), zd)
            if not torch.isfinite(got).all():
                fail(f"{where} holds {int((~torch.isfinite(got)).sum())} entries that are inf or NaN; PyTorch's is "
                     "finite everywhere.",
                     "the backward pass of your formula: a branch you did not use (torch.where) or an exp that "
                     "overflowed still sends its inf back through the chain rule, and inf times 0 is NaN.",
                     "use only operations whose own values stay finite for every z (no exp of a large positive "
                     "number anywhere, even in a branch torch.where discards).", code="nonfinite_gradient")
            if not close(got, want, atol=1e-6, rtol=1e-4) and label.startswith("logits of exactly 0"):
                n_el = z.numel()
                fail(f"{where} is {_fractions(got, y, n_el)}; PyTorch's is (0.5 - y)/{n_el} for every element "
                     "(sigmoid(0) = 0.5).",
                     "the backward pass of your formula at exactly z = 0: the loss is smooth there with slope "
                     "sigmoid(0) - y, but a max(z, 0) written with clamp, relu or torch.where is not differentiable "
                     "at 0, and autograd gives it a slope of 1 or 0 there, not the 1/2 the smooth loss has.",
                     "write the max(z, 0) term so that its gradient at 0 is 1/2, or build the loss from a function "
                     "that is smooth at 0; then compare your gradient at torch.zeros(3) with "
                     "nn.BCEWithLogitsLoss's (the lesson's \"One more trap: a logit of exactly 0\" shows each slope).",
                     code="zero_logit_gradient")
            if not close(got, want, atol=1e-6, rtol=1e-4):
                fail(f"{where} differs from PyTorch's by up to {max_abs_diff(got, want):.3g}.",
                     "the backward pass of your formula: its value may look right, but a piece of it does not depend "
                     "on z the way the loss does (a detached term, a constant in place of a function of z).",
                     "build the loss from z with differentiable torch operations only; the gradient of the mean loss "
                     "is (sigmoid(z) - y) / N, which yours should match.", code="wrong_gradient")


# --------------------------------------------------------------------------
# sgd_momentum_step


def _reference_sgd_step(params, buffers, lr: float, momentum: float) -> list:
    """``torch.optim.SGD(params, lr=lr, momentum=momentum).step()`` (no dampening, Nesterov or weight decay) as
    its documentation writes it, with the same operations, on the buffers the previous call returned (``None``
    before the first).  Equal to torch.optim.SGD's step, held by tests/test_core.py.  Not built on torch.optim:
    making a first optimizer in a kernel imports torch._dynamo, over a second before the check could start."""
    buffers = [None] * len(params) if buffers is None else list(buffers)
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is None:
                continue
            buffers[i] = torch.clone(p.grad).detach() if buffers[i] is None else buffers[i].mul_(momentum).add_(p.grad)
            p.add_(buffers[i], alpha=-lr)
    return buffers


def _step_setup(seed: int, device: str, *, frozen: bool):
    """Two identical parameter lists (the learner's and the reference SGD's) and a loss over a drawn batch."""
    params, x, y = _network(2, 4, 8, seed, device)
    names = list(NAMES) + (["unused"] if frozen else [])
    if frozen:
        params["unused"] = torch.randn(3, generator=generator(seed + 5)).to(device)
    ours = [params[k].clone().requires_grad_() for k in names]
    theirs = [params[k].clone().requires_grad_() for k in names]
    return names, ours, theirs


def _backward(tensors, step: int, seed: int) -> None:
    """Set each tensor's .grad from one batch's loss (the 'unused' tensor, if any, gets none)."""
    g = generator(seed + 100 + step)
    x = torch.randn(8, 2, generator=g).to(tensors[0].device)
    y = (torch.rand(8, 1, generator=g) < 0.5).float().to(tensors[0].device)
    w1, b1, w2, b2 = tensors[:4]
    with torch.enable_grad():
        z = torch.tanh(x @ w1.T + b1) @ w2.T + b2
        F.binary_cross_entropy_with_logits(z, y).backward()


def _call_step(sgd_momentum_step, params, buffers, lr, momentum, step):
    try:
        return call(sgd_momentum_step, params, buffers, lr, momentum)
    except LearnerRaised as raised:
        text = str(raised.error)
        if "leaf Variable that requires grad" in text or "a leaf Variable" in text:
            fail(f"step {step}: {raised.call_text} raised {type(raised.error).__name__}: {text.splitlines()[0]}",
                 "autograd: recording was on while your step wrote into a parameter, and autograd refuses an "
                 "in-place change to a leaf it may need for a backward pass.",
                 "make the update itself unrecorded (the context manager the lesson's by-hand update uses), then "
                 "change each parameter in place.", code="inplace_on_leaf")
        if "NoneType" in text:
            fail(f"step {step}: {raised.call_text} raised {type(raised.error).__name__}: {text.splitlines()[0]}",
                 "a parameter whose .grad is None (it took no part in the loss): torch.optim.SGD skips such a "
                 "parameter, and your step tried to use its missing gradient.",
                 "leave a parameter with no .grad unchanged, and its buffer as it was.", code="none_grad_stepped")
        raise


def _expect_buffers(buffers, params, step: int):
    where = f"after step {step}, sgd_momentum_step returned"
    if buffers is None:
        job_not_done(f"{where} None.", "nothing", "the momentum buffers sgd_momentum_step returns: the optimizer's "
                     "state, which the next call receives.", "return a list with one buffer per tensor of params.")
    if not isinstance(buffers, (list, tuple)) or len(buffers) != len(params):
        fail(f"{where} {describe(buffers)}, not a list of {len(params)} buffers.",
             "the momentum buffers: the optimizer's state, one entry per tensor of params, in params' order.",
             "return a list as long as params (None for a tensor that has no buffer yet).", code="not_a_list")


@graded("sgd_momentum_step")
def sgd_momentum_step_matches(sgd_momentum_step, lr: float = 0.1, momentum: float = 0.9, steps: int = 4,
                              seed: int = 0, *, notes):
    """Over several steps, the first included, parameters and buffers equal torch.optim.SGD(momentum=...)'s."""
    for device in each_device(notes):
        names, ours, theirs = _step_setup(seed, device, frozen=False)
        buffers = reference = None
        for step in range(1, steps + 1):
            for tensors in (ours, theirs):
                for t in tensors:
                    t.grad = None
                _backward(tensors, step, seed)
            start = [plain(p) for p in ours]
            buffers = _call_step(sgd_momentum_step, ours, buffers, lr, momentum, step)
            reference = _reference_sgd_step(theirs, reference, lr, momentum)
            _expect_buffers(buffers, ours, step)
            if all(torch.equal(plain(p), s) for p, s in zip(ours, start)):
                job_not_done(f"step {step} (lr={lr}, momentum={momentum}) left every parameter as it was.",
                             "nothing", "the parameters: the step updates each of them in place.",
                             "subtract lr times the tensor's momentum buffer from each tensor of params, in place.")
            for name, p, q, buf, want_buf in zip(names, ours, theirs, buffers, reference):
                where = f"after step {step} (lr={lr}, momentum={momentum}, on {device}), {name}"
                if not close(p, q, atol=1e-6, rtol=1e-5):
                    first = step == 1
                    fail(f"{where} differs from torch.optim.SGD's by up to {max_abs_diff(p, q):.3g}"
                         + (" (already after the first step)." if first else "; after the steps before it, it "
                            "matched."),
                         "the optimizer's state you hold: " + (
                             "on its first step SGD's buffer is the gradient itself (nothing is averaged in yet), and "
                             "the update is the learning rate times that buffer." if first else
                             "from the second step on, SGD's buffer is momentum times the previous buffer plus the new "
                             "gradient, with nothing else scaled."),
                         "compare your rule with the lesson's formula, line by line, for the first step and the "
                         "next one.", code="first_step_buffer" if first else "momentum_rule")
                if not isinstance(buf, torch.Tensor) or not close(buf, want_buf, atol=1e-6, rtol=1e-5):
                    fail(f"{where}: its buffer is {describe(buf)}"
                         + (f", differing from SGD's momentum_buffer by up to {max_abs_diff(buf, want_buf):.3g}"
                            if isinstance(buf, torch.Tensor) and buf.shape == want_buf.shape else "")
                         + "; the parameter itself matches SGD's.",
                         "the buffers you return: they are the optimizer's state, and the contract asks for exactly "
                         "what SGD keeps in optimizer.state[p]['momentum_buffer'] (the learning rate is not in it).",
                         "keep the buffer as momentum times the previous buffer plus the gradient, and apply the "
                         "learning rate only in the parameter's update.", code="wrong_buffers")


@graded("sgd_momentum_step")
def sgd_momentum_step_owners(sgd_momentum_step, lr: float = 0.05, momentum: float = 0.5, seed: int = 0, *, notes):
    """Parameters updated in place and still leaves, .grad only read, buffers of their own, a tensor without .grad
    skipped."""
    for device in each_device(notes):
        names, ours, theirs = _step_setup(seed, device, frozen=True)
        buffers = None
        for step in (1, 2):
            for t in ours:
                t.grad = None
            _backward(ours, step, seed)
            objects = list(ours)
            grads = [p.grad for p in ours]
            grad_values = [None if g is None else plain(g) for g in grads]
            start = [plain(p) for p in ours]
            memory = [p.untyped_storage().data_ptr() for p in ours]  # where each parameter's values live
            with torch.enable_grad():
                buffers = _call_step(sgd_momentum_step, ours, buffers, lr, momentum, step)
            _expect_buffers(buffers, ours, step)
            if all(torch.equal(plain(p), s) for p, s in zip(ours[:4], start)):
                job_not_done(f"step {step} left every parameter as it was.",
                             "updating in place, keeping the parameters leaves and leaving .grad alone", "the "
                             "parameters: the step updates each of them in place.",
                             "subtract lr times the tensor's momentum buffer from each tensor of params, in place.")
            for name, p, obj, g, gv, s, buf, at in zip(names, ours, objects, grads, grad_values, start, buffers, memory):
                where = f"after step {step}, {name}"
                if p is not obj:
                    fail(f"{where} is another tensor object than the one passed in.",
                         "the caller's parameters: the model and the optimizer hold these very tensors.",
                         "update each tensor in place.", code="not_same_object")
                if p.untyped_storage().data_ptr() != at:
                    fail(f"{where} is the same tensor object, but its values now live in new memory (`p.data = ...` "
                         "swaps in a new tensor's storage).",
                         "the parameter's memory: whatever holds the old one (a view of the parameter, a weight tied "
                         "to it, a captured CUDA graph) keeps the old values, and autograd's version counter never "
                         "sees the change.", "write into the parameter's own memory: an in-place operation on `p`, "
                         "with recording off.", code="storage_replaced")
                if not p.is_leaf or p.grad_fn is not None or not p.requires_grad:
                    fail(f"{where} has grad_fn={type(p.grad_fn).__name__ if p.grad_fn else None}, "
                         f"requires_grad={p.requires_grad}, is_leaf={p.is_leaf}.",
                         "autograd: the update was recorded, so the parameter is no longer a leaf that a later "
                         "backward() fills.", "make the update an unrecorded, in-place change.",
                         code="graph_recorded")
                if g is None:
                    if not torch.equal(plain(p), s):
                        fail(f"{name}, whose .grad is None, was changed by step {step}.",
                             "a parameter that took no part in the loss: torch.optim.SGD leaves it alone.",
                             "skip a tensor whose .grad is None.", code="none_grad_stepped")
                    if buf is not None:
                        fail(f"{name}, whose .grad is None, has a buffer {describe(buf)} after step {step}.",
                             "the optimizer's state: SGD creates no buffer for a parameter it skipped.",
                             "keep None as the buffer of a tensor whose .grad is None.", code="none_grad_stepped")
                    continue
                if p.grad is not g or not torch.equal(plain(p.grad), gv):
                    fail(f"{where}: its .grad was changed or replaced by the step.",
                         "the parameter's .grad: it belongs to the parameter until zero_grad(); the optimizer only "
                         "reads it.", "read p.grad; never write into it or rebind it.", code="grads_changed")
                if not isinstance(buf, torch.Tensor):
                    fail(f"{where}: its buffer is {describe(buf)}.", "the momentum buffer of a parameter with a "
                         "gradient.", "return a tensor shaped like the parameter.", code="wrong_buffers")
                if buf.requires_grad or buf.grad_fn is not None:
                    fail(f"{where}: its buffer has requires_grad={buf.requires_grad} and grad_fn="
                         f"{type(buf.grad_fn).__name__ if buf.grad_fn else None}.",
                         "autograd: the buffer's arithmetic was recorded, and the optimizer's state now holds a "
                         "graph.", "compute the buffers while recording is off.", code="graph_recorded")
                if buf.untyped_storage().data_ptr() == g.untyped_storage().data_ptr():
                    fail(f"{where}: its buffer shares memory with the parameter's .grad.",
                         "the optimizer's state and the parameter's .grad are two owners: a buffer that is the "
                         ".grad tensor itself is changed by the next zero_grad() (or changes the .grad when you "
                         "update it).", "make the first buffer a copy of the gradient.", code="buffer_aliases_grad")


# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)
