"""Shared pieces for the checks that run a learner's training code (modules 04–08).

Problems (data, models, optimizers) are built here so every module grades on the
same small, fast setups; reference loops are the check's own implementation of
the correct step; ``diagnose_*`` read a :class:`~autograder.ledger.Ledger` and say
which owner held the wrong state when.
"""

from __future__ import annotations

import contextlib
import copy
import weakref

import torch

# The first optimizer a process builds imports torch._dynamo (Optimizer.__init__ is wrapped to keep
# dynamo out of it): about a second, once.  It is paid here, with the set-up cell's imports, not
# inside whichever check cell happens to build the first optimizer.
import torch._dynamo  # noqa: E402, F401, I001
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ..core import LearnerRaised, call, describe, fail, job_not_done
from ..course_code import lend
from ..devices import manual_seed
from ..ledger import NONZERO, Ledger

# --------------------------------------------------------------------------
# Problems


def blobs(n: int, seed: int, device="cpu", d: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    """Two Gaussian blobs: x float32 (n, d), y float32 (n, 1) of 0/1."""
    g = torch.Generator().manual_seed(seed)
    y = (torch.arange(n) % 2).float()[torch.randperm(n, generator=g)]  # (n,)
    centres = torch.stack([y * 2.0 - 1.0] * d, dim=1) * 1.5  # (n, d)
    x = centres + torch.randn(n, d, generator=g)  # (n, d)
    return x.to(device), y.unsqueeze(1).to(device)


MODEL_KINDS = ("mlp", "dropout", "batchnorm")


def make_model(kind: str, seed: int, device="cpu", d: int = 2) -> nn.Module:
    """Small binary classifiers: a plain MLP, one with Dropout, one with BatchNorm and Dropout."""
    manual_seed(seed)
    if kind == "mlp":
        model = nn.Sequential(nn.Linear(d, 8), nn.ReLU(), nn.Linear(8, 1))
    elif kind == "dropout":
        model = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 1))
    elif kind == "batchnorm":
        model = nn.Sequential(nn.Linear(d, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 1))
    else:  # pragma: no cover - a grader bug
        raise ValueError(kind)
    return model.to(device)


def make_optimizer(kind: str, params) -> torch.optim.Optimizer:
    if kind == "sgd":
        return torch.optim.SGD(params, lr=0.1)
    if kind == "momentum":
        return torch.optim.SGD(params, lr=0.05, momentum=0.9)
    if kind == "adam":
        return torch.optim.Adam(params, lr=0.01)
    raise ValueError(kind)  # pragma: no cover


def make_loss(kind: str) -> nn.Module:
    return {"bce": nn.BCEWithLogitsLoss, "mse": nn.MSELoss}[kind]()


def loader(x, y, batch_size: int, shuffle: bool = False, seed: int = 0) -> DataLoader:
    """A DataLoader over CPU copies of (x, y) with its own seeded generator.

    Even an unshuffled DataLoader draws a seed for its iterator from the global RNG
    unless it has a generator; with one, iterating it never shifts the dropout masks."""
    g = torch.Generator().manual_seed(seed)
    return CountedLoader(CountedTensors(x.cpu(), y.cpu()), batch_size=batch_size, shuffle=shuffle, generator=g)


class CountedLoader(DataLoader):
    """A DataLoader that counts the iterators made from it (``iterators``): one per pass over the data."""

    iterators = 0

    def __iter__(self):
        self.iterators += 1
        return super().__iter__()


def restarted_loader(data, function: str, made: int) -> None:
    """``function`` made more than one iterator from an unshuffled loader in one epoch (``next(iter(loader))`` per
    batch): every new iterator starts again at the first batch."""
    if made > 1 and not isinstance(data.sampler, torch.utils.data.RandomSampler):
        fail(f"{function} made {made} iterators from the loader in one epoch (iter(loader), or next(iter(loader)), "
             f"inside the loop); this loader is not shuffled, so each new iterator began again at its first batch "
             f"and the epoch's {len(data)} batches were not the ones trained on.",
             "the loader's iterator: a new one starts the epoch over.",
             "loop over the loader once (`for x, y in loader:`), or make one iterator before the loop and call "
             "next() on it.", code="loader_restarted")


class CountedTensors(TensorDataset):
    """A TensorDataset that counts the examples read from it (``reads``): how much of the data a loop saw."""

    def __init__(self, *tensors):
        super().__init__(*tensors)
        self.reads = 0

    def __getitem__(self, index):
        self.reads += 1
        return super().__getitem__(index)


def clone_setup(model: nn.Module, optimizer: torch.optim.Optimizer):
    """An independent copy of (model, optimizer) for the reference run."""
    twin = copy.deepcopy(model)
    twin_opt = type(optimizer)(twin.parameters(), **optimizer.defaults)
    twin_opt.load_state_dict(copy.deepcopy(optimizer.state_dict()))
    return twin, twin_opt


# --------------------------------------------------------------------------
# Reference loops (the check's own, correct implementation)


def ref_step(model, x, y, optimizer, loss_fn) -> float:
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


@contextlib.contextmanager
def correct_helper(fn, name: str, reference):
    """While ``fn`` runs, the name ``name`` in its notebook means ``reference``, a correct version (if ``fn``'s
    namespace defines one): a function judged on top of another graded function is charged only for its own
    mistakes, and a wrong helper costs points in its own cells only."""
    namespace = getattr(fn, "__globals__", None)
    mine = namespace.get(name) if isinstance(namespace, dict) else None
    if not callable(mine):
        yield
        return
    namespace[name] = reference
    try:
        with lend(reference):  # the check's own correct version, not the learner's use of the course's code
            yield
    finally:
        namespace[name] = mine


def ref_epoch_losses(model, data, optimizer, loss_fn, device) -> list[tuple[float, int]]:
    """One correct training epoch; each batch's loss (before its update) and size."""
    model.train()
    found = []
    for xb, yb in data:
        xb, yb = xb.to(device), yb.to(device)
        found.append((ref_step(model, xb, yb, optimizer, loss_fn), len(xb)))
    return found


def ref_epoch(model, data, optimizer, loss_fn, device) -> float:
    """One correct training epoch; its mean per-example loss."""
    losses = ref_epoch_losses(model, data, optimizer, loss_fn, device)
    return sum(loss * n for loss, n in losses) / sum(n for _, n in losses)


@torch.no_grad()
def ref_evaluate(model, data, loss_fn, device) -> float:
    was = model.training
    model.eval()
    total, count = 0.0, 0
    for xb, yb in data:
        xb, yb = xb.to(device), yb.to(device)
        total += loss_fn(model(xb), yb).item() * len(xb)
        count += len(xb)
    model.train(was)
    return total / count


# --------------------------------------------------------------------------
# State snapshots and comparisons


def snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    """Parameters and buffers, detached CPU copies."""
    state = {n: p.detach().cpu().clone() for n, p in model.named_parameters()}
    state.update({n: b.detach().cpu().clone() for n, b in model.named_buffers()})
    return state


def differing(a: dict, b: dict, atol: float = 1e-5, rtol: float = 1e-4) -> list[str]:
    names = []
    for name, t in a.items():
        u = b.get(name)
        if u is None or t.shape != u.shape:
            names.append(name)
        elif t.is_floating_point():
            if not torch.allclose(t.double(), u.double(), atol=atol, rtol=rtol, equal_nan=True):
                names.append(name)
        elif not torch.equal(t, u):
            names.append(name)
    return names


def expect_float(value, what: str, function: str) -> float:
    """A plain Python float (``loss.item()``), not a tensor or a number type of another library."""
    if isinstance(value, torch.Tensor):
        graph = " that still holds its autograd graph" if value.grad_fn is not None else ""
        keeps = "a tensor and its whole graph" if graph else "a tensor (with its device memory)"
        fail(f"{what} is {describe(value)}{graph}, not a Python float.",
             f"the value {function} returned keeps {keeps} alive for as long as the caller holds it.",
             "return the number itself with `.item()`.", code="returns_tensor")
    if type(value) is not float:
        fail(f"{what} is {describe(value)}, not a Python float.",
             f"the value {function} returned.", "return a Python float (`.item()` gives one).",
             code="not_a_float")
    if value != value:
        fail(f"{what} is NaN.", f"the loss {function} computed.", "check that the loss is computed from this batch.",
             code="nonfinite")
    return value


def expect_close(got: float, want: float, what: str, owner: str, todo: str, *, code: str, rtol: float = 1e-4):
    if abs(got - want) > rtol * max(1.0, abs(want)):
        fail(f"{what} is {got:.6g}, which is not {want:.6g}.", owner, todo, code=code)


# --------------------------------------------------------------------------
# Reading the ledger


def diagnose_update(ledger: Ledger, function: str, *, micro_batches: int = 1, steps_expected: int = 1,
                    before: dict | None = None):
    """Find the first wrong hand-off of ``.grad`` in one call that should make
    ``steps_expected`` updates, each from (up to) ``micro_batches`` backward passes.  ``before``: a
    :func:`snapshot` of the model taken before the call, so that a message may say whether the parameters moved."""
    backs, steps = ledger.of("backward"), ledger.of("step")
    if not backs:
        fail(f"no backward() ran while {function} worked.",
             "autograd never wrote gradients into the parameters' .grad.",
             "call backward() on the loss before stepping.", code="no_backward")
    if not steps:
        moved = differing(before, snapshot(ledger.model)) if before is not None and ledger.model is not None else None
        if moved:
            fail(f"step() of the optimizer passed to {function} never ran, yet {', '.join(moved[:3])} changed: "
                 "something else updated them (an optimizer built inside the function, or a hand-written update).",
                 "the optimizer you were given owns the update and its state (momentum buffers, Adam's moments, "
                 "step counts); one built anew starts from nothing at every call.",
                 "call step() on the optimizer passed in, after backward(); build no optimizer of your own.",
                 code="other_optimizer")
        fail(f"optimizer.step() never ran while {function} worked"
             + (" (the parameters did not change)." if moved == [] else "."),
             "the optimizer you were given owns the update.",
             "call step() on the optimizer passed in, after backward().", code="no_step")
    if len(steps) > steps_expected:
        if micro_batches > 1:
            fail(f"optimizer.step() ran {len(steps)} times for {micro_batches} micro-batches.",
                 "the optimizer updated the parameters after every micro-batch instead of once.",
                 "accumulate the micro-batches' gradients first, then step once.", code="step_per_micro_batch")
        fail(f"optimizer.step() ran {len(steps)} times where {steps_expected} update(s) were due.",
             "the optimizer made more updates than there were batches.", "step exactly once per batch.",
             code="extra_steps")
    zero_grads = ledger.of("zero_grad")
    for i, step in enumerate(steps):
        previous = steps[i - 1].index if i else -1
        window = [b for b in backs if previous < b.index < step.index]
        if not window:
            fail("optimizer.step() ran before backward(): this update used the previous batch's gradients "
                 "(or none at all).",
                 ".grad still held what an earlier backward() left when the optimizer read it.",
                 "compute this batch's gradients (backward) before the optimizer reads them (step).",
                 code="step_before_backward")
        opening = window[0]
        cleared = [z for z in zero_grads if opening.index < z.index < step.index]
        if not cleared and all(s != NONZERO for s in step.data["grads"].values()):
            fail(f"backward() ran {len(window)} time(s) before this optimizer.step(), yet when step() ran no "
                 "parameter the optimizer holds had a gradient (each .grad was None or zero), and no zero_grad ran "
                 "in between: the loss backward() walked was not computed from these parameters.",
                 "the graph the loss came from: it reached other tensors than the parameters of the model passed in "
                 "(a copy of the model, or outputs detached from it).",
                 "compute the loss from the model you were given, with its outputs as they come.",
                 code="grads_elsewhere")
        if cleared:
            if micro_batches > 1 and len(window) > 1:
                seen = ("zero_grad ran after the first micro-batch's backward(): the accumulated gradients "
                        "were thrown away before step().")
            else:
                seen = ("zero_grad ran between backward() and step(): the optimizer stepped with cleared "
                        "gradients, so this batch changed nothing.")
            fail(seen, ".grad was emptied after autograd filled it and before the optimizer read it.",
                 "clear gradients before this update's first backward(), not between backward() and step().",
                 code="cleared_before_step")
        stale = [n for n, s in opening.data["before"].items() if s == NONZERO]
        if stale:
            fail(f"when backward() ran, .grad of {', '.join(stale[:3])} already held gradients from an earlier "
                 "batch: the update used their sum.",
                 "nobody cleared the parameters' .grad since the previous update.",
                 "clear the gradients once per update (zero_grad) before backward().", code="stale_grads")
    if len(steps) < steps_expected:
        fail(f"optimizer.step() ran {len(steps)} times where {steps_expected} updates were due.",
             "the optimizer skipped some batches.", "step once per batch.", code="missing_steps")


def diagnose_modes(ledger: Ledger, function: str, *, training: bool | None, grad: bool | None, owner_hint: str,
                   batches: int):
    """Every forward of the model must run with this mode and this grad mode, and there must be a forward for
    each of ``batches`` batches (a function that never calls the model has every mode property)."""
    forwards = ledger.of("forward")
    if len(forwards) < batches:
        fail(f"{function} called the model {len(forwards)} time(s) where {batches} batch(es) were due; the mode "
             "of a forward pass can only be judged when there is one.",
             "the loop over the data: every batch goes through the model.",
             "run a forward pass for every batch (this check then judges the mode each ran in).", code="no_forward")
    for event in forwards:
        d = event.data
        if training is not None and d["training"] != training:
            mode, want = ("train" if d["training"] else "eval"), ("train" if training else "eval")
            fail(f"a forward pass inside {function} ran in {mode} mode.",
                 f"the model owns its mode and was still in {mode} mode from {owner_hint}.",
                 f"switch the model to {want} mode yourself with model.{want}() before its forward passes.",
                 code="wrong_mode")
        if grad is False and d["grad_enabled"] and not d["output"].get("has_graph", True):
            continue  # recording was on, but nothing in this forward required grad: no graph was recorded
        if grad is not None and d["grad_enabled"] != grad:
            if grad:
                fail(f"a forward pass inside {function} ran with gradient recording off.",
                     "autograd recorded no graph, so backward() had nothing to walk.",
                     "run training forwards outside torch.no_grad().", code="no_graph")
            fail(f"a forward pass inside {function} recorded an autograd graph (its output has a grad_fn).",
                 "autograd kept a graph that evaluation never uses (memory grows with every batch).",
                 "wrap the evaluation loop in torch.no_grad() (or torch.inference_mode()).", code="graph_recorded")


def mode_changed(function: str, was: str, now: str, consequence: str = "") -> None:
    """The model came back from ``function`` in another mode than it went in."""
    fail(f"the model went into {function} in {was} mode and came out in {now} mode.",
         f"the model owns its mode; {function} changed it for whoever called it{consequence}.",
         "remember `model.training` on entry and restore it with `model.train(was_training)` before returning.",
         code="mode_changed")


def device_mismatch(error: BaseException) -> bool:
    text = str(error)
    return "same device" in text or "Expected all tensors" in text or "device type" in text


def call_with_batches(fn, name: str, device: str, *args):
    """Call learner code that iterates a CPU loader for a model on ``device``; name a batch left behind."""
    try:
        return call(fn, *args)
    except LearnerRaised as raised:
        if device_mismatch(raised.error):
            fail(f"calling {name} with device={device!r} raised {type(raised.error).__name__}: "
                 f"{str(raised.error).splitlines()[0]}.",
                 f"the batches stayed where the loader made them (cpu) while the model lives on {device}.",
                 "move each batch to `device` (x.to(device), y.to(device)) before the forward pass.",
                 code="batch_not_moved")
        raise


# --------------------------------------------------------------------------
# Graphs kept alive across batches (`total += loss`)


class _Sentinel:
    """A plain object whose lifetime is that of one batch's loss graph."""


class _Mark(torch.autograd.Function):
    """Identity on the loss; its graph node holds a sentinel, so the node's lifetime can be watched."""

    @staticmethod
    def forward(ctx, loss, sentinel):
        ctx.sentinel = sentinel
        return loss.view_as(loss)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class WatchedLoss(nn.Module):
    """A loss function that lets a check see how many batches' autograd graphs are still alive.

    Each loss it returns carries, through an identity node in its graph, a sentinel object that lives
    exactly as long as that batch's graph. ``peak`` is the most earlier batches' graphs still alive when
    a later batch's forward pass began.
    """

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self._alive: list[weakref.ref] = []
        self.peak = 0
        self.batches = 0  # losses computed

    def forward(self, *args, **kwargs):
        out = self.inner(*args, **kwargs)
        if not isinstance(out, torch.Tensor):
            return out
        self.batches += 1
        if out.requires_grad:  # without a graph (under no_grad) nothing of the batch can outlive it
            sentinel = _Sentinel()
            out = _Mark.apply(out, sentinel)
            self._alive.append(weakref.ref(sentinel))
        return out

    def alive(self) -> int:
        return sum(1 for ref in self._alive if ref() is not None)

    def watch(self, model: nn.Module):
        """Sample, before every forward pass of ``model``, how many earlier batches are still alive."""

        def before_forward(module, args):
            self.peak = max(self.peak, self.alive())

        return model.register_forward_pre_hook(before_forward)


def expect_losses(watched: WatchedLoss, data: DataLoader, function: str, credited: str) -> None:
    """The job that ``credited`` (a property of the loop) needs first: every example of ``data`` (a
    :func:`loader`) was read, and the loss function the caller passed in computed a loss."""
    reads, total = data.dataset.reads, len(data.dataset)
    if reads < total or not watched.batches:
        job_not_done(f"{function} read {reads} of the loader's {total} examples and computed {watched.batches} "
                     "loss(es) with the loss function it was given.", credited,
                     "the loop over the loader: every batch is read, and the loss comes from the loss function "
                     "passed in.",
                     "go through every batch and compute the loss with that loss function; this check then judges "
                     "the rest.")


def diagnose_kept_graphs(watched: WatchedLoss, function: str, *, training: bool, data: DataLoader) -> None:
    """Fail when the graphs of earlier batches' losses were still alive while later batches ran, or when
    the loop did not go through ``data`` computing losses (a loop that computes nothing keeps nothing alive).

    A correct loop holds at most the previous batch's loss when the next forward pass begins (its
    variable has not been rebound yet); ``total += loss`` or a list of loss tensors holds every one.
    """
    expect_losses(watched, data, function, "keeping no batch's graph alive")
    if watched.batches < 4 or watched.peak <= 2:
        return
    where = "" if training else " (recorded because the loop ran with gradients on)"
    fail(f"while {function} ran its batch {watched.peak + 1}, the autograd graphs of {watched.peak} earlier "
         f"batches{where} were still alive: something kept every batch's loss.",
         "your running total (or list) of losses: a tensor added up, `total += loss`, is a tensor whose history "
         "reaches every batch's loss, so memory grows through the epoch.",
         "add `loss.item()` (a Python float) to the total, not the loss tensor.", code="graphs_kept_alive")
