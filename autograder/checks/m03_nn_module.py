"""Checks for module 03-nn-module: who owns the parameters.

Each public function here is one test cell's call, for example
``check.MLP_forward(MLP)``.  Hidden tests call the same checks with
other sizes and seeds.  The models the checks build for ``count_parameters``,
``freeze`` and ``untrained_parameters`` are defined here, so that the expected
answers are known by construction, not computed with the learner's method.
"""

from __future__ import annotations

import copy
import numbers
from contextlib import contextmanager
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

from ..core import _LAZY_DO, _LAZY_OWNER, LearnerRaised, call, describe, fail, graded, job_not_done
from ..devices import close, each_device, expect_tensor, generator, manual_seed, max_abs_diff, plain
from ..hints import hint_for, solution_for
from ..ledger import Ledger
from . import _training  # noqa: F401 - its import pays for the first optimizer's (see there)

# --------------------------------------------------------------------------
# Shared helpers


def _names(names, limit: int = 6) -> str:
    names = list(names)
    shown = ", ".join(f"`{n}`" for n in names[:limit])
    more = len(names) - limit
    return shown + (f" and {more} more" if more > 0 else "") if names else "nothing"


def _randn(*shape, seed: int, device: str, scale: float = 1.0) -> torch.Tensor:
    return (torch.randn(*shape, generator=generator(seed)) * scale).to(device)


@contextmanager
def _rng(seed: int, device: str = "cpu"):
    """Seed the global RNGs for the learner's code, and give the caller's RNG state back afterwards."""
    cuda = [torch.cuda.current_device()] if device.startswith("cuda") else []
    with torch.random.fork_rng(devices=cuda):
        manual_seed(seed)
        yield


def _forward(model, x, what: str):
    """``model(x)`` through :func:`call`, so that errors read as the learner's."""
    def run(inp):
        return model(inp)
    run.__name__ = what
    return call(run, x)


def _expect_module(obj, what: str, owner: str) -> None:
    if not isinstance(obj, nn.Module):
        fail(f"{what} gave {describe(obj)}, not an nn.Module.",
             owner,
             "define it as `class ...(nn.Module):` and build it by calling the class.",
             code="not_a_module")


_MODULE_INTERNALS = frozenset(vars(nn.Module()))


def _plain_containers(model: nn.Module) -> list[str]:
    """Attributes that hold modules in a container nn.Module does not look into."""
    found = []
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if attr in _MODULE_INTERNALS:
                continue
            if isinstance(value, dict):
                items = list(value.values())
            elif isinstance(value, (list, tuple, set)):
                items = list(value)
            else:
                continue
            k = sum(isinstance(v, nn.Module) for v in items)
            if k:
                where = f"{prefix}.{attr}" if prefix else attr
                found.append(f"`{where}` (a plain Python {type(value).__name__} of {k} module{'s' if k > 1 else ''})")
    return found


def _not_registered(model: nn.Module, what: str, partly: bool = False) -> None:
    containers = _plain_containers(model)
    where = f": the layers live in {', '.join(containers)}" if containers else ""
    if partly:
        seen = f"{what} registers only some of its layers{where}, which nn.Module does not register."
    else:
        seen = f"{what}.parameters() is empty{where}{', which nn.Module does not register' if containers else ''}."
    fail(seen,
         "the module owns only what is assigned to it as an nn.Module (a layer, nn.Sequential, nn.ModuleList) "
         "or an nn.Parameter; a plain Python list or dict is an ordinary attribute it never looks into, so "
         "parameters(), state_dict(), .to() and every optimizer miss those layers.",
         "keep the layers in nn.ModuleList, nn.ModuleDict or nn.Sequential (or register each one with add_module).",
         code="not_registered")


def _ref_close(got: torch.Tensor, ref: torch.Tensor) -> bool:
    scale = max(1.0, float(ref.abs().max())) if ref.numel() else 1.0
    return close(got, ref, atol=2e-3 * scale, rtol=2e-3)


def _linear(h: torch.Tensor, layer: nn.Linear) -> torch.Tensor:
    """One Linear layer in float64 on the CPU, from the layer's own weight and bias."""
    out = h @ plain(layer.weight).double().T
    return out if layer.bias is None else out + plain(layer.bias).double()


# --------------------------------------------------------------------------
# MLP


def _mlp_text(sizes, dropout) -> str:
    return f"MLP({list(sizes)})" if dropout is None else f"MLP({list(sizes)}, dropout={dropout})"


def _mlp(MLP, sizes, dropout, seed: int):
    """Build the learner's MLP; ``dropout=None`` leaves the argument at its default."""
    what = _mlp_text(sizes, dropout)
    with _rng(seed):
        model = call(MLP, list(sizes)) if dropout is None else call(MLP, list(sizes), dropout=dropout)
    _expect_module(model, what, "the class MLP.")
    return model, what


def _arrows(pairs) -> str:
    return ", ".join(f"{a}→{b}" for a, b in pairs) if pairs else "none"


def _mlp_linears(model: nn.Module, what: str, sizes) -> list[nn.Linear]:
    """The learner's Linear layers in registration order, after checking them against the contract."""
    params = list(model.parameters())
    if not params:
        _not_registered(model, what)
    if any(isinstance(p, nn.parameter.UninitializedParameter) for p in params):
        fail(f"{what} holds parameters with no shape yet.", _LAZY_OWNER.format(function="MLP"), _LAZY_DO,
             code="lazy_parameters")
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    got = [(m.in_features, m.out_features) for m in linears]
    want = list(zip(sizes[:-1], sizes[1:]))
    if got != want:
        if _plain_containers(model):
            _not_registered(model, what, partly=True)
        fail(f"{what} registers {len(got)} Linear layer{'s' if len(got) != 1 else ''} ({_arrows(got)}) "
             f"for {len(sizes)} sizes.",
             "the layers __init__ creates and registers, in order.",
             "create one nn.Linear for each consecutive pair in sizes, in order, and register them all.",
             code="wrong_layers")
    no_bias = [i for i, m in enumerate(linears) if m.bias is None]
    if no_bias:
        fail(f"{what}'s Linear layer #{no_bias[0] + 1} has no bias.",
             "the Linear layers __init__ creates.", "keep nn.Linear's default bias=True.", code="no_bias")
    expected = sum(a * b + b for a, b in want)
    total = sum(p.numel() for p in params)
    if total != expected:
        others = [n for n, p in model.named_parameters() if not any(p is q for m in linears for q in m.parameters())]
        fail(f"{what} holds {total} parameter values; its Linear layers account for {expected}, "
             f"the rest is in {_names(others)}.",
             "the module's registry of parameters.",
             "register only Linear layers (ReLU and Dropout have no parameters).", code="extra_parameters")
    held = {id(v) for v in model.state_dict(keep_vars=True).values()}
    for i, m in enumerate(linears):
        if id(m.weight) not in held or id(m.bias) not in held:
            fail(f"{what}.state_dict() lacks the weight of Linear layer #{i + 1}.",
                 "the module's state_dict, which a checkpoint saves.",
                 "register every layer as a submodule.", code="not_registered")
    return linears


def _mlp_reference(linears, x, *, relu_between: bool = True, relu_last: bool = False) -> torch.Tensor:
    h = plain(x).double()
    for i, layer in enumerate(linears):
        h = _linear(h, layer)
        last = i == len(linears) - 1
        if (relu_between and not last) or (relu_last and last):
            h = torch.relu(h)
    return h


def _mlp_values(got, linears, x, what: str) -> None:
    got = plain(got).double()
    ref = _mlp_reference(linears, x)
    if _ref_close(got, ref):
        return
    negatives = int((ref < 0).sum())
    if negatives and _ref_close(got, _mlp_reference(linears, x, relu_last=True)):
        fail(f"{what}(x) in eval mode never returns a negative value, although its last Linear gives negative "
             f"values for {negatives} of the {ref.numel()} outputs: a ReLU runs after the last layer.",
             "the layer list __init__ builds: the last Linear's raw output (logits, or a regression target) "
             "can be any real number.",
             "put ReLU (and Dropout) only between Linear layers, never after the last one.",
             code="relu_after_last")
    if len(linears) > 1 and _ref_close(got, _mlp_reference(linears, x, relu_between=False)):
        fail(f"{what}(x) equals its Linear layers applied one after another with no ReLU between them.",
             "the layer list __init__ builds: without a nonlinearity the stack collapses into one linear map.",
             "put a ReLU after every Linear except the last.", code="no_relu")
    fail(f"{what}(x) in eval mode differs from Linear → ReLU → … → Linear, built from your own registered "
         f"layers in their registration order, by up to {max_abs_diff(got, ref):.3g}.",
         "forward(): the order in which it applies the layers, or an extra operation.",
         "apply the layers in the order you registered them: Linear, ReLU (and Dropout) between layers, "
         "and nothing after the last Linear.", code="wrong_value")


@graded("MLP")
def MLP_registers(MLP, sizes=(2, 8, 1), dropout: float | None = None, *, notes):
    """MLP(sizes) registers one Linear per consecutive pair of sizes: parameters() and state_dict() hold them all."""
    model, what = _mlp(MLP, sizes, dropout, seed=0)
    linears = _mlp_linears(model, what, sizes)
    for device in each_device(notes):
        model.to(device)
        for i, layer in enumerate(linears):
            if layer.weight.device.type != torch.device(device).type:
                fail(f"after {what}.to({device!r}), Linear layer #{i + 1} is still on {layer.weight.device}.",
                     "the module: .to() moves only what is registered.",
                     "register every layer (nn.Sequential or nn.ModuleList).", code="not_registered")
        x = _randn(3, sizes[0], seed=1, device=device)
        out = _forward(model, x, what)
        expect_tensor(out, f"{what}(x) for x of shape [3, {sizes[0]}] on {device}",
                      "the tensor forward() returned.", shape=(3, sizes[-1]), dtype=torch.float32, device=device)


@graded("MLP")
def MLP_forward(MLP, sizes=(2, 8, 1), dropout: float | None = None, n: int = 32, seed: int = 0, *, notes):
    """In eval mode MLP(sizes) computes Linear → ReLU → … → Linear, with nothing after the last Linear."""
    model, what = _mlp(MLP, sizes, dropout, seed)
    linears = _mlp_linears(model, what, sizes)
    for device in each_device(notes):
        model.to(device)
        model.eval()
        x = _randn(n, sizes[0], seed=seed + 1, device=device, scale=2.0)
        out = _forward(model, x, what)
        expect_tensor(out, f"{what}(x) for x of shape [{n}, {sizes[0]}] on {device}",
                      "the tensor forward() returned.", shape=(n, sizes[-1]), dtype=torch.float32, device=device)
        _mlp_values(out, linears, x, what)


_DROPOUTS = (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.FeatureAlphaDropout)


def _keep_input(store, i, module, args):
    if args and isinstance(args[0], torch.Tensor):
        store[i] = plain(args[0]).double()


def _keep_output(store, i, module, args, output):
    if isinstance(output, torch.Tensor):
        store[i] = plain(output).double()


@graded("MLP")
def MLP_dropout(MLP, sizes=(4, 32, 32, 1), p: float = 0.5, n: int = 64, seed: int = 0, *, notes):
    """Dropout acts between hidden layers in training mode only, at rate p; the default dropout=0.0 adds none."""
    devices = each_device(notes)
    # 1. The default: no dropout at all.
    model, what = _mlp(MLP, sizes, None, seed)
    _mlp_linears(model, what, sizes)
    active = [(name, m.p) for name, m in model.named_modules() if isinstance(m, _DROPOUTS) and m.p > 0]
    if active:
        fail(f"{what}, with dropout left at its default 0.0, holds `{active[0][0]}`, a dropout layer with "
             f"p={active[0][1]}.",
             "the `dropout` argument owns the rate; your MLP adds dropout whatever it is given.",
             "add dropout layers only when dropout > 0, and pass them p=dropout.", code="dropout_when_zero")
    for device in devices:
        model.to(device)
        x = _randn(n, sizes[0], seed=seed + 1, device=device, scale=2.0)
        with _rng(seed, device):
            model.train()
            first = _forward(model, x, what)
            second = _forward(model, x, what)
            model.eval()
            evaluated = _forward(model, x, what)
        for t in (first, second, evaluated):
            expect_tensor(t, f"{what}(x) for x of shape [{n}, {sizes[0]}] on {device}",
                          "the tensor forward() returned.", shape=(n, sizes[-1]), dtype=torch.float32,
                          device=device)
        if not torch.equal(plain(first), plain(second)) or not _ref_close(plain(first), plain(evaluated)):
            fail(f"{what} (dropout=0.0) gives different outputs for the same input across passes or modes.",
                 "the `dropout` argument owns the rate; at 0.0 nothing in the model should be random.",
                 "add dropout only when dropout > 0, with p=dropout.", code="dropout_when_zero")
    # 2. dropout=p: random in training mode, deterministic in eval mode, between hidden layers only.
    model, what = _mlp(MLP, sizes, p, seed)
    linears = _mlp_linears(model, what, sizes)
    for device in devices:
        model.to(device)
        x = _randn(n, sizes[0], seed=seed + 2, device=device, scale=2.0)
        inputs, outputs = {}, {}
        hooks = []
        for i, layer in enumerate(linears):
            hooks.append(layer.register_forward_pre_hook(partial(_keep_input, inputs, i)))
            hooks.append(layer.register_forward_hook(partial(_keep_output, outputs, i)))
        try:
            with _rng(seed, device):
                model.train()
                first = _forward(model, x, what)
                ins, outs = dict(inputs), dict(outputs)
                second = _forward(model, x, what)
                model.eval()
                eval1 = _forward(model, x, what)
                eval2 = _forward(model, x, what)
        finally:
            for hook in hooks:
                hook.remove()
        for t in (first, second, eval1, eval2):
            expect_tensor(t, f"{what}(x) for x of shape [{n}, {sizes[0]}] on {device}",
                          "the tensor forward() returned.", shape=(n, sizes[-1]), dtype=torch.float32,
                          device=device)
        if torch.equal(plain(first), plain(second)):
            fail(f"in training mode, two passes of {what} over the same batch gave identical outputs.",
                 "the module is in training mode, where dropout zeroes a fresh random subset of hidden "
                 "activations on every pass; your MLP never drew such a mask.",
                 "when dropout > 0, put nn.Dropout(dropout) after each hidden ReLU.", code="dropout_ignored")
        if not torch.equal(plain(eval1), plain(eval2)):
            fail(f"after {what}.eval(), two passes over the same batch gave different outputs.",
                 "the module's mode: eval() switches nn.Dropout off, but a dropout call that ignores the mode "
                 "(F.dropout without training=self.training, or a hand-made mask) keeps dropping.",
                 "use nn.Dropout layers, which follow the module's mode (or pass training=self.training).",
                 code="dropout_in_eval")
        _mlp_values(eval1, linears, x, what)
        if len(ins) != len(linears) or len(outs) != len(linears):
            notes.append("your forward() does not call every Linear layer as a module, so where dropout acts "
                         "was not inspected")
            continue
        if not torch.equal(ins[0], plain(x).double()):
            fail(f"in training mode, the input reaching {what}'s first Linear differs from the batch it was given.",
                 "the layer list: dropout runs before the first Linear, on the input features.",
                 "put dropout only between Linear layers (after each hidden ReLU).", code="dropout_on_input")
        out_zeros, eval_zeros = int((plain(first) == 0).sum()), int((plain(eval1) == 0).sum())
        if eval_zeros == 0 and out_zeros >= max(2, int(0.25 * p * first.numel())):
            fail(f"in training mode {out_zeros} of the {first.numel()} outputs of {what} are exactly 0.",
                 "the layer list: dropout runs after the last Linear and drops the outputs themselves.",
                 "put dropout only between Linear layers, never after the last one.", code="dropout_after_last")
        for i in range(1, len(linears)):
            live = torch.relu(outs[i - 1]) > 0  # what ReLU let through in this same pass
            reached = ins[i]
            if int(live.sum()) < 20:
                continue
            dropped = float(((reached == 0) & live).sum() / live.sum())
            where = f"Linear layer #{i + 1} (from the ReLU after layer #{i})"
            if dropped < 0.01:
                fail(f"in training mode, none of the hidden activations reaching {where} of {what} were dropped.",
                     "the layer list: the block between those two Linear layers has no dropout.",
                     "put dropout after every hidden ReLU, not only some of them.", code="dropout_missing")
            if abs(dropped - p) > 0.1:
                fail(f"in training mode, {dropped:.0%} of the positive hidden activations reaching {where} of "
                     f"{what} were zeroed.",
                     "the rate given to the dropout layers: it should be the `dropout` argument.",
                     "pass the `dropout` argument as p to every dropout layer.", code="wrong_rate")
            kept = (reached != 0) & live
            if int(kept.sum()) >= 5:
                scale = float((reached[kept] / torch.relu(outs[i - 1])[kept]).median())
                if abs(scale * (1 - p) - 1) > 0.02:
                    fail(f"in training mode the activations that dropout keeps reach {where} of {what} multiplied "
                         f"by {scale:.3g}, not by 1/(1-p).",
                         "the dropout step: inverted dropout scales the kept values by 1/(1-p) so that their "
                         "expected value matches eval mode, where nothing is dropped.",
                         "use nn.Dropout(dropout) (or F.dropout), which rescales for you.", code="not_rescaled")


# --------------------------------------------------------------------------
# plan_mlp: the learner's own MLP's state_dict, predicted before it is built


class _Allocations(torch.overrides.TorchFunctionMode):
    """Notes the first torch function that runs (building a layer allocates its tensors)."""

    def __init__(self):
        super().__init__()
        self.first = ""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.first = self.first or getattr(func, "__name__", repr(func))
        return func(*args, **(kwargs or {}))


def _built_state(MLP, sizes, dropout) -> dict:
    """``{key: shape}`` of the learner's own MLP(sizes, dropout), which must hold one weight and one bias per
    Linear layer for the plan to be judged against it."""
    what = _mlp_text(sizes, dropout)
    try:
        model = call(MLP, list(sizes), dropout=dropout)
    except LearnerRaised as raised:
        fail(f"plan_mlp predicts your MLP's state_dict, and building {what} raised "
             f"{type(raised.error).__name__}: {str(raised.error).strip().splitlines()[0] if str(raised.error).strip() else ''}",
             "your MLP class: the plan is judged against the module it builds.",
             "make MLP pass its own checks first, then come back to plan_mlp.", code="mlp_not_ready")
    state = model.state_dict() if isinstance(model, nn.Module) else {}
    linears = 2 * (len(sizes) - 1)
    if len(state) != linears:
        fail(f"plan_mlp predicts your MLP's state_dict, and {what}.state_dict() holds {len(state)} entries; an MLP "
             f"with {len(sizes) - 1} Linear layer(s) holds {linears} (a weight and a bias each).",
             "your MLP class: the plan is judged against the module it builds, and this one does not register "
             "its layers yet.", "make MLP pass its own checks first, then come back to plan_mlp.",
             code="mlp_not_ready")
    return {key: tuple(value.shape) for key, value in state.items()}


def _judge_plan(plan_mlp, MLP, sizes, dropout) -> None:
    want = _built_state(MLP, sizes, dropout)
    where = f"plan_mlp({list(sizes)}, dropout={dropout})"
    with _Allocations() as watch:
        got = call(plan_mlp, list(sizes), dropout=dropout)
    if watch.first:
        fail(f"{where} ran torch's {watch.first}: it built tensors (or a module) to read the answer off.",
             "the plan: the point is to know the state_dict before anything exists, from the sizes and from how "
             "your MLP names its layers.",
             "compute every key and shape with plain Python (ints, tuples, f-strings); build nothing.",
             code="built_to_predict")
    if got is None:
        job_not_done(f"{where} returned None.", "nothing", "the plan plan_mlp returns.",
                     "return {state_dict key: shape} for every entry your MLP will hold.")
    if not isinstance(got, dict):
        fail(f"{where} returned {describe(got)}, not a dictionary.",
             "the plan: {state_dict key: shape tuple}.", "return a dict.", code="not_a_dict")
    if set(got) != set(want):
        missing, extra = sorted(set(want) - set(got)), sorted(map(str, set(got) - set(want)))
        fail(f"{where} has keys {sorted(map(str, got))}; {_mlp_text(sizes, dropout)}.state_dict() has "
             f"{sorted(want)}" + (f" (missing {missing}" if missing else " (") + (f", not there {extra}" if extra else "")
             + ").",
             "the module's registry: a state_dict key is the attribute path of the layer that owns the tensor, and "
             "a container numbers every module it holds (a ReLU or a Dropout takes a number too, though it owns "
             "no tensor).",
             "list what your MLP puts in its container, in order and with the positions it gets, then name each "
             "Linear's weight and bias from its position.", code="wrong_keys")
    for key, shape in want.items():
        value = got[key]
        try:
            given = tuple(int(v) for v in value)
        except TypeError:
            given = None
        if given != shape:
            fail(f"{where}[{key!r}] is {describe(value)}; the tensor has shape {shape}.",
                 "the layer that owns it: nn.Linear(in_features, out_features) keeps its weight as "
                 "[out_features, in_features] (one row per output) and its bias as [out_features].",
                 "give each entry the shape of the tensor as a tuple of ints.", code="wrong_shape")
        if type(value) not in (tuple, torch.Size) or any(type(v) is not int for v in value):
            kinds = sorted({type(v).__name__ for v in value})
            fail(f"{where}[{key!r}] is a {type(value).__name__} of {'/'.join(kinds)}, with the right numbers; "
                 "the contract asks for a tuple of ints.",
                 "the plan's type: a shape is compared, printed and used as a dictionary key the way "
                 "tuple(tensor.shape) is, a plain tuple of Python ints.",
                 "write each shape as a tuple of ints, for example (n_out, n_in) and (n_out,).", code="wrong_type")


@graded("plan_mlp")
def plan_mlp_matches(plan_mlp, MLP, sizes_list=((2, 8, 1), (3, 5, 4, 2), (6, 1)), *, notes):
    """Every key and shape of your MLP's state_dict, predicted without building a tensor"""
    for sizes in sizes_list:
        _judge_plan(plan_mlp, MLP, sizes, 0.0)


@graded("plan_mlp")
def plan_mlp_dropout(plan_mlp, MLP, sizes=(4, 16, 16, 1), p: float = 0.3, *, notes):
    """The plan of an MLP with dropout, whose containers may hold more modules"""
    _judge_plan(plan_mlp, MLP, sizes, p)
    _judge_plan(plan_mlp, MLP, sizes[:2] + sizes[-1:], p)


# --------------------------------------------------------------------------
# count_parameters: models whose counts are known by construction


class StackNet(nn.Module):
    def __init__(self, d: int, h: int):
        super().__init__()
        self.first = nn.Linear(d, h)
        self.act = nn.ReLU()
        self.last = nn.Linear(h, 1)

    def forward(self, x):
        return self.last(self.act(self.first(x)))

    @staticmethod
    def size(d: int, h: int) -> tuple[int, int]:
        """(elements in `first`, elements in `last`)"""
        return d * h + h, h + 1


class TiedNet(nn.Module):
    """An embedding and an output layer that share one weight matrix, plus a buffer."""

    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.unembed = nn.Linear(dim, vocab, bias=False)
        self.unembed.weight = self.embed.weight  # one tensor, two names
        self.register_buffer("token_counts", torch.zeros(vocab))  # saved state, not a parameter

    def forward(self, tokens):
        return self.unembed(torch.tanh(self.mix(self.embed(tokens))))


class NormedNet(nn.Module):
    """BatchNorm buffers and a 0-dim parameter."""

    def __init__(self, d: int, h: int):
        super().__init__()
        self.lin = nn.Linear(d, h)
        self.norm = nn.BatchNorm1d(h)
        self.ln = nn.LayerNorm(h)
        self.out = nn.Linear(h, 1)
        self.temperature = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return self.out(self.ln(torch.relu(self.norm(self.lin(x))))) / self.temperature


def _dims(seed: int, k: int = 2, low: int = 2, high: int = 9) -> list[int]:
    return [int(v) for v in torch.randint(low, high, (k,), generator=generator(seed))]


def _count_cases(seed: int):
    """(description, model, total elements, trainable elements), each known by construction."""
    d, h = _dims(seed)
    vocab, dim = _dims(seed + 1, low=3, high=12)
    a, b = StackNet.size(d, h)
    stack = StackNet(d, h)
    tied = TiedNet(vocab, dim)
    tied_total = vocab * dim + dim * dim + dim
    normed = NormedNet(d, h)
    normed_total = (d * h + h) + 2 * h + 2 * h + (h + 1) + 1
    frozen = StackNet(d, h)
    frozen.first.requires_grad_(False)
    tied_frozen = TiedNet(vocab, dim)
    tied_frozen.embed.requires_grad_(False)  # freezes the shared matrix under both names
    cold = StackNet(d, h).requires_grad_(False)
    return {
        "stack": (f"a Linear({d}, {h}) → ReLU → Linear({h}, 1) model", stack, a + b, a + b),
        "tied": (f"a model whose output layer shares its [{vocab}, {dim}] weight with its embedding (tied weights) "
                 "and which holds a buffer", tied, tied_total, tied_total),
        "normed": ("a model with BatchNorm (which has buffers), LayerNorm and a 0-dim temperature parameter",
                   normed, normed_total, normed_total),
        "frozen": (f"a Linear({d}, {h}) → ReLU → Linear({h}, 1) model whose first layer is frozen",
                   frozen, a + b, b),
        "tied_frozen": ("the tied-weight model with its shared matrix frozen", tied_frozen, tied_total,
                        tied_total - vocab * dim),
        "cold": ("a model with every parameter frozen", cold, a + b, 0),
    }


def _expect_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        fail(f"{what} returned {describe(value)}, not an int.",
             "the value count_parameters returns: a number of elements, a whole number.",
             "return a Python int, for example the sum of p.numel() (each one is an int), without wrapping "
             "anything in a tensor or a float.", code="not_an_int")
    return int(value)


def _count_diagnosis(got: int, want: int, model: nn.Module, what: str, trainable_only: bool) -> None:
    if got == want:
        return
    unique = {id(p): p for p in model.parameters()}.values()
    total = sum(p.numel() for p in unique)
    trainable = sum(p.numel() for p in unique if p.requires_grad)
    with_dupes = sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False)
                     if p.requires_grad or not trainable_only)
    buffers = sum(b.numel() for b in model.buffers())
    state = sum(v.numel() for v in model.state_dict().values())
    n_tensors = len(list(unique))
    flag = ", trainable_only=True" if trainable_only else ""
    seen = f"for {what}, count_parameters(model{flag}) returned {got}."
    if trainable_only and got == total and total != trainable:
        fail(seen + " That counts the frozen parameters too.",
             "each parameter's requires_grad flag says whether it will be trained; trainable_only asks you to "
             "read it.",
             "when trainable_only is True, count only parameters with p.requires_grad.",
             code="ignores_trainable_only")
    if trainable_only and got == total - trainable and total != trainable:
        fail(seen + " That counts exactly the frozen parameters.",
             "each parameter's requires_grad flag: True means trainable.",
             "when trainable_only is True, keep the parameters whose requires_grad is True.",
             code="counts_frozen_only")
    if not trainable_only and got == trainable and total != trainable:
        fail(seen + " That leaves out the frozen parameters.",
             "a frozen parameter (requires_grad=False) is still a parameter of the model; only "
             "trainable_only=True should leave it out.",
             "by default count every parameter, frozen or not.", code="skips_frozen")
    if got == state and state != want:
        fail(seen + " That is the size of state_dict().",
             "state_dict() holds buffers (such as BatchNorm's running statistics) and lists a tied tensor "
             "under each of its names; neither is a parameter to count.",
             "count over model.parameters(), not over state_dict().", code="counts_state_dict")
    if got == with_dupes and with_dupes != want:
        fail(seen + " That counts the shared (tied) matrix once for each name it is registered under.",
             "the shared Parameter is one tensor (the same object under two names); parameters() yields it "
             "once, named_parameters(remove_duplicate=False) and a sum over submodules yield it twice.",
             "count each tensor once: iterate model.parameters(), which removes duplicates by identity.",
             code="double_counts_tied")
    if buffers and got == want + buffers:
        fail(seen + " That includes the model's buffers.",
             "buffers (BatchNorm's running statistics) are saved state, not parameters.",
             "count over model.parameters() only.", code="counts_buffers")
    keep = (lambda p: p.requires_grad) if trainable_only else (lambda p: True)
    per_module = sum(p.numel() for m in model.modules() for p in m.parameters() if keep(p))
    if got == per_module and per_module != want:
        depth = max(len(n.split(".")) for n, _ in model.named_parameters())
        fail(seen + f" That is the sum, over every module of model.modules(), of that module's parameters(): a "
             f"parameter {depth - 1} level(s) down is counted once by each module that contains it.",
             "the walk over the model: model.modules() yields the model and every submodule, and each one's "
             "parameters() already includes its children's.",
             "iterate model.parameters() once (it walks the submodules itself and yields each tensor once).",
             code="double_counts_nested")
    weights = sum(p.numel() for n, p in model.named_parameters() if n.endswith("weight") and keep(p))
    if got == weights and weights != want:
        fail(seen + " That is the number of elements in the parameters whose names end in 'weight': the biases "
             "(and any other parameter) were left out.",
             "the parameters counted: every tensor model.parameters() yields, whatever its name.",
             "count every parameter, not only the weights.", code="wrong_count")
    if got == n_tensors and n_tensors != want:
        fail(seen + " That is the number of parameter tensors, not of their elements.",
             "each parameter tensor holds p.numel() values.",
             "add up p.numel() for the parameters you count.", code="counts_tensors")
    fail(seen + f" That is {'more' if got > want else 'fewer'} elements than the model's "
         f"{'trainable ' if trainable_only else ''}parameters hold.",
         "the parameters of the model, each counted once by its number of elements.",
         "add p.numel() over model.parameters() (only those with requires_grad when trainable_only).",
         code="wrong_count")


def _count(count_parameters, model, what, **kwargs) -> int:
    flags = [p.requires_grad for p in model.parameters()]
    modes = [m.training for m in model.modules()]
    got = call(count_parameters, model, **kwargs)
    if flags != [p.requires_grad for p in model.parameters()] or modes != [m.training for m in model.modules()]:
        fail(f"for {what}, count_parameters(model) changed the model: its requires_grad flags or its mode "
             "are not what they were.",
             "the caller owns the model; counting only reads it.",
             "do not call requires_grad_(), train() or eval() in count_parameters.", code="changed_model")
    return _expect_int(got, f"for {what}, count_parameters(model)")


@graded("count_parameters")
def count_parameters_total(count_parameters, seed: int = 0, *, notes):
    """count_parameters(model) counts every parameter element once: tied weights once, buffers not at all, frozen ones too."""
    cases = _count_cases(seed)
    for key in ("stack", "tied", "normed", "frozen"):
        what, model, total, _ = cases[key]
        got = _count(count_parameters, model, what)
        _count_diagnosis(got, total, model, what, trainable_only=False)


@graded("count_parameters")
def count_parameters_trainable(count_parameters, seed: int = 0, *, notes):
    """count_parameters(model, trainable_only=True) leaves out exactly the frozen parameters."""
    cases = _count_cases(seed)
    for key in ("frozen", "tied_frozen", "cold", "tied"):
        what, model, total, trainable = cases[key]
        got = _count(count_parameters, model, what, trainable_only=True)
        _count_diagnosis(got, trainable, model, what, trainable_only=True)
    what, model, total, _ = cases["frozen"]
    got = _count(count_parameters, model, what, trainable_only=False)
    _count_diagnosis(got, total, model, what, trainable_only=False)


# --------------------------------------------------------------------------
# freeze


class NestedNet(nn.Module):
    """A parameter of its own plus children and grandchildren, with Dropout and BatchNorm (mode-dependent) and
    LayerNorm: every kind of layer the lessons teach that holds parameters."""

    def __init__(self, d: int, h: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self.body = nn.Sequential(nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(0.25), nn.Linear(h, h),
                                  nn.LayerNorm(h), nn.ReLU())
        self.head = nn.Linear(h, 1)

    def forward(self, x):
        return self.head(self.body(x)) * self.scale


def _nest(seed: int, device: str = "cpu") -> NestedNet:
    d, h = _dims(seed, low=2, high=7)
    with _rng(seed):
        return NestedNet(d, h).to(device)


def _freeze_returns(got, module, what: str) -> None:
    if got is module:
        return
    if got is None:
        fail(f"{what} returned None.",
             "the caller expects the same module back, so that `head = freeze(model.head)` or chaining works.",
             "end freeze with `return module`.", code="returns_none")
    trainable = [n for n, p in module.named_parameters() if p.requires_grad]
    left = f"; the caller's module still has {len(trainable)} parameters that require grad" if trainable else ""
    fail(f"{what} returned {describe(got)}, a different object from the module it was given{left}.",
         "the caller owns the module; freezing must change that very object in place (a frozen copy leaves "
         "the caller's model trainable).",
         "set the flags on the parameters of `module` itself and return `module`.", code="not_same_object")


def _expect_froze(module, what: str, credited: str) -> None:
    """The job a property of freeze is credited for: no parameter of ``module`` requires grad any more."""
    if any(p.requires_grad for p in module.parameters()):
        job_not_done(f"after {what}, parameters of the module still require grad.", credited,
                     "freeze's job: turning off requires_grad on every parameter of the module it is given.",
                     "freeze every parameter (check.freeze_parameters says which are left); this check then judges "
                     "what else the call changed.")


@graded("freeze")
def freeze_parameters(freeze, seed: int = 0, *, notes):
    """freeze(module) turns off requires_grad on every parameter, children included, and returns the same module."""
    model = _nest(seed)
    model.train()
    before = {n: plain(p) for n, p in model.named_parameters()}
    got = call(freeze, model)
    _freeze_returns(got, model, "freeze(model)")
    still = [n for n, p in model.named_parameters() if p.requires_grad]
    if still:
        own = [n for n, _ in model.named_parameters(recurse=False)]
        if len(still) == len(before) and not model.training:
            fail(f"after freeze(model), all {len(still)} parameters still require grad, and model.training "
                 "went from True to False.",
                 "eval() sets the module's mode (Dropout, BatchNorm); it does not touch requires_grad, so "
                 "backward() still fills .grad and step() still updates every parameter.",
                 "set requires_grad to False on every parameter, and leave the mode alone.",
                 code="eval_not_freeze")
        norms = {f"{prefix}.{n}" if prefix else n for prefix, m in model.named_modules()
                 if isinstance(m, (nn.modules.batchnorm._BatchNorm, nn.LayerNorm, nn.GroupNorm))
                 for n, _ in m.named_parameters(recurse=False)}
        if set(still) <= norms:
            fail(f"after freeze(model), the normalisation layers' parameters {_names(still)} still require grad; "
                 "every other parameter was frozen.",
                 "freeze's choice of parameters: it passed over BatchNorm/LayerNorm layers, so they keep training "
                 "while the caller believes the module is frozen.",
                 "freeze every parameter of the module, whatever layer holds it.", code="norm_left_trainable")
        if set(still) == set(before) - set(own):
            fail(f"after freeze(model), {_names(still)} still require grad; only the model's own parameters "
                 f"({_names(own)}) were frozen.",
                 "module.parameters(recurse=False) yields only the module's own parameters; its children's "
                 "(`body`, `head`) live one level down.",
                 "walk all of them: module.parameters() recurses into every child by default.",
                 code="children_missed")
        fail(f"after freeze(model), {_names(still)} still require grad.",
             "each parameter's own requires_grad flag (setting it on p.data, clearing p.grad or turning off "
             "grad mode leaves the flag as it was).",
             "call p.requires_grad_(False) on every parameter of the module (or module.requires_grad_(False)).",
             code="not_frozen")
    changed = [n for n, p in model.named_parameters() if not torch.equal(plain(p), before[n])]
    if changed:
        fail(f"freeze(model) changed the values of {_names(changed)}.",
             "the parameter values belong to the model; freezing changes a flag only.",
             "only set requires_grad; do not write into the parameters.", code="changed_values")
    # One step with part of a model frozen, on every device, recorded by the ledger.
    for device in each_device(notes):
        model = _nest(seed + 1, device)
        model.train()
        got = call(freeze, model.body)
        _freeze_returns(got, model.body, "freeze(model.body)")
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # holds frozen ones too
        x = _randn(16, model.body[0].in_features, seed=seed, device=device)
        y = _randn(16, 1, seed=seed + 1, device=device)
        with torch.enable_grad(), _rng(seed, device), Ledger(model, optimizer) as ledger:
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            if loss.requires_grad:
                loss.backward()
                optimizer.step()
        steps = ledger.of("step")
        changed = steps[0].data["changed"] if steps else []
        moved = [n for n in changed if n.startswith("body.")]
        if moved:
            fail(f"after freeze(model.body), one optimizer step on {device} changed {_names(moved)} "
                 f"(the ledger's step row: {steps[0].summary()}).",
                 "the optimizer updates every tensor it holds that has a gradient; a parameter that still "
                 "requires grad gets one.",
                 "turn off requires_grad on every parameter of the module you are given.", code="still_trained")
        idle = [n for n in ("head.weight", "head.bias", "scale") if n not in changed]
        if idle:
            fail(f"after freeze(model.body), one optimizer step on {device} left {_names(idle)} unchanged, "
                 "though they are outside model.body.",
                 "freeze reached beyond the module it was given (or switched gradients off globally).",
                 "change only the parameters of `module`.", code="froze_too_much")


@graded("freeze")
def freeze_mode(freeze, seed: int = 0, *, notes):
    """freeze(module) leaves the mode (module.training) of the module and its children as it was."""
    for start in ("train", "eval"):
        model = _nest(seed)
        model.train(start == "train")
        before = {name or "model": m.training for name, m in model.named_modules()}
        call(freeze, model)
        after = {name or "model": m.training for name, m in model.named_modules()}
        flipped = [name for name in before if before[name] != after[name]]
        if flipped:
            fail(f"freeze(model) on a model in {start} mode switched `training` from {before[flipped[0]]} to "
                 f"{after[flipped[0]]} on {_names(flipped)}.",
                 "the mode (`training`) belongs to the module and is set by train()/eval(); it changes how "
                 "Dropout and BatchNorm behave, and has nothing to do with which parameters are trained.",
                 "remove the eval()/train() call from freeze: a caller who also wants eval mode calls it "
                 "separately.", code="mode_changed")
        _expect_froze(model, "freeze(model)", "leaving the mode as it was")
    model = _nest(seed + 1)
    model.train()
    call(freeze, model.body)
    if not model.head.training or not model.training:
        fail("freeze(model.body) switched the rest of the model to eval mode.",
             "the mode belongs to each module; freeze is about requires_grad only.",
             "do not call eval() in freeze.", code="mode_changed")
    _expect_froze(model.body, "freeze(model.body)", "leaving the mode as it was")


# --------------------------------------------------------------------------
# untrained_parameters


class GrowingNet(nn.Module):
    def __init__(self, d: int, h: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, h), nn.ReLU())
        self.head = nn.Linear(h, 1)

    def forward(self, x):
        h = self.body(x)
        if hasattr(self, "adapter"):
            h = torch.relu(self.adapter(h))
        return self.head(h)


_BODY = ["body.0.weight", "body.0.bias"]
_HEAD = ["head.weight", "head.bias"]
_ADAPTER = ["adapter.weight", "adapter.bias"]


def _untrained_cases(seed: int, device: str):
    """(description, model, optimizer, expected names), the names known by construction."""
    d, h = _dims(seed, low=2, high=7)

    def grow():
        return GrowingNet(d, h).to(device)

    cases = []
    m = grow()
    cases.append(("an optimizer built over model.named_parameters()", m,
                  torch.optim.SGD(m.named_parameters(), lr=0.1), []))
    m = grow()
    opt = torch.optim.SGD(m.named_parameters(), lr=0.1)
    m.adapter = nn.Linear(h, h).to(device)
    cases.append(("`model.adapter = nn.Linear(...)` registered after the optimizer was built", m, opt, _ADAPTER))
    m = grow()
    opt = torch.optim.Adam(m.named_parameters(), lr=0.01)
    m.head = nn.Linear(h, 1).to(device)
    cases.append(("`model.head` replaced by a new nn.Linear of the same shape after the optimizer was built",
                  m, opt, _HEAD))
    m = grow()
    opt = torch.optim.SGD(copy.deepcopy(m).named_parameters(), lr=0.1)
    cases.append(("an optimizer built over copy.deepcopy(model) (same names, shapes and values, other tensors)",
                  m, opt, _BODY + _HEAD))
    m = GrowingNet(d, h)
    opt = torch.optim.SGD([{"params": m.body.parameters()}, {"params": m.head.parameters(), "lr": 0.01}], lr=0.1)
    m.to(device)
    cases.append(("an optimizer of two parameter groups (body, then head at another learning rate) built before "
                  "model.to(device)",
                  m, opt, []))
    m = grow()
    cases.append(("an optimizer over model.body.parameters() only", m,
                  torch.optim.SGD(m.body.parameters(), lr=0.1), _HEAD))
    return cases


def _frozen_cases(seed: int, device: str):
    d, h = _dims(seed, low=2, high=7)
    cases = []
    m = GrowingNet(d, h).to(device)
    m.body.requires_grad_(False)
    cases.append(("`model.body` frozen and an optimizer over the trainable parameters only", m,
                  torch.optim.SGD([p for p in m.parameters() if p.requires_grad], lr=0.1), []))
    m = GrowingNet(d, h).to(device)
    m.body.requires_grad_(False)
    opt = torch.optim.Adam((p for p in m.parameters() if p.requires_grad), lr=0.01)
    m.adapter = nn.Linear(h, h).to(device)
    cases.append(("`model.body` frozen, an optimizer over the trainable parameters, then `model.adapter` "
                  "registered", m, opt, _ADAPTER))
    m = GrowingNet(d, h).to(device)
    m.body.requires_grad_(False)
    cases.append(("`model.body` frozen and an optimizer over every parameter", m,
                  torch.optim.SGD(m.parameters(), lr=0.1), []))
    m = GrowingNet(d, h).to(device).requires_grad_(False)
    other = GrowingNet(d, h).to(device)
    cases.append(("a fully frozen model and an optimizer over another model", m,
                  torch.optim.SGD(other.parameters(), lr=0.1), []))
    return cases


def _show_list(names) -> str:
    text = repr(names)
    return text if len(text) <= 160 else text[:157] + "...]"


def _judge_untrained(got, label: str, model: nn.Module, optimizer, want) -> None:
    what = f"with {label}, untrained_parameters(model, optimizer)"
    if type(got) is not list:
        fail(f"{what} returned {describe(got)}, not a list.",
             "the value untrained_parameters returns.",
             "return a list of names (str), for example built with a list comprehension.", code="not_a_list")
    bad = [v for v in got if type(v) is not str]
    if bad:
        fail(f"{what} returned a list holding {describe(bad[0])}, not parameter names.",
             "the value untrained_parameters returns: the names from model.named_parameters().",
             "put each parameter's name (a str) in the list, not the tensor or a (name, tensor) pair.",
             code="not_names")
    if len(set(got)) != len(got):
        twice = sorted({n for n in got if got.count(n) > 1})
        fail(f"{what} lists {_names(twice)} more than once.",
             "model.named_parameters() yields each parameter once.",
             "list each name once.", code="duplicates")
    params = dict(model.named_parameters())
    extra = [n for n in got if n not in want]
    missing = [n for n in want if n not in got]
    unknown = [n for n in extra if n not in params]
    if unknown:
        fail(f"{what} returned {_show_list(got)}; {_names(unknown)} names no parameter of the model.",
             "names belong to the model (model.named_parameters()); the optimizer holds tensors without names.",
             "take the names from model.named_parameters().", code="unknown_names")
    frozen = [n for n in extra if not params[n].requires_grad]
    if frozen:
        fail(f"{what} returned {_show_list(got)}, which includes the frozen {_names(frozen)} "
             "(requires_grad=False).",
             "a frozen parameter is not meant to train: leaving it out of the optimizer is deliberate, not a bug.",
             "report only parameters with requires_grad=True that the optimizer does not hold.",
             code="lists_frozen")
    if extra:
        fail(f"{what} returned {_show_list(got)}, which includes {_names(extra)}: the optimizer holds those "
             "very tensor objects.",
             "optimizer.param_groups: every group's 'params' list counts, and holding means holding the same "
             "object (`p is q`).",
             "collect the tensors of every param group and test each named parameter against them by identity.",
             code="lists_held")
    if missing:
        held = [q for group in optimizer.param_groups for q in group["params"]]
        twins = all(any(q.shape == params[n].shape for q in held) for n in missing)
        if twins:
            fail(f"{what} returned {_show_list(got)}; it left out {_names(missing)}, which the optimizer does "
                 "not hold, although it holds other tensors of the same shapes.",
                 "the optimizer holds tensor objects, not names: a new, replaced or copied tensor can share a "
                 "name, a shape, even the values of one the optimizer holds, and still be a different tensor "
                 "that step() never updates.",
                 "compare by identity: collect id(q) for every tensor q in every param group, then test id(p) "
                 "for each named parameter p (or use `p is q`), never names, shapes or ==.",
                 code="not_by_identity")
        fail(f"{what} returned {_show_list(got)}; it left out {_names(missing)}, which the optimizer does not hold.",
             "those tensors are registered on the model (backward() gives them gradients), but step() never "
             "updates them.",
             "check every trainable named parameter of the model against the tensors of every param group.",
             code="missed_untrained")


def _untrained(untrained_parameters, model, optimizer):
    groups = [list(group["params"]) for group in optimizer.param_groups]
    flags = [p.requires_grad for p in model.parameters()]
    got = call(untrained_parameters, model, optimizer)
    if [list(group["params"]) for group in optimizer.param_groups] != groups or \
            flags != [p.requires_grad for p in model.parameters()]:
        fail("untrained_parameters(model, optimizer) changed the optimizer's param groups or the model's "
             "requires_grad flags.",
             "the caller owns the model and the optimizer; this function only reports.",
             "read optimizer.param_groups and model.named_parameters() without changing them.",
             code="changed_state")
    return got


@graded("untrained_parameters")
def untrained_parameters_finds(untrained_parameters, seed: int = 0, *, notes):
    """untrained_parameters lists, by identity, the model's trainable parameters that no param group holds."""
    for device in each_device(notes):
        for label, model, optimizer, want in _untrained_cases(seed, device):
            got = _untrained(untrained_parameters, model, optimizer)
            _judge_untrained(got, label, model, optimizer, want)


@graded("untrained_parameters")
def untrained_parameters_frozen(untrained_parameters, seed: int = 0, *, notes):
    """Frozen parameters (requires_grad=False) are not untrained: they are left out of the list."""
    for device in each_device(notes):
        for label, model, optimizer, want in _frozen_cases(seed, device):
            got = _untrained(untrained_parameters, model, optimizer)
            _judge_untrained(got, label, model, optimizer, want)
# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)
