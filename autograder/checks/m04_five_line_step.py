"""Checks for module 04-five-line-step: the order is not arbitrary.

The learner's loop runs under a :class:`~autograder.ledger.Ledger`; the checks
judge it by what happened, in order (clean ``.grad`` before each backward, one
step after it), and then compare the parameters with the check's own correct
update.
"""

from __future__ import annotations

import copy
import math
import os
from collections import OrderedDict
from pathlib import Path

import torch
from torch import nn
from torch.nn.utils import skip_init
from torch.utils._python_dispatch import TorchDispatchMode

from .. import course_code, owners
from ..core import call, describe, fail, graded, job_not_done
from ..devices import each_device, generator, manual_seed
from ..hints import hint_for, solution_for
from ..ledger import Ledger
from ..starters import REPAIR_TRAIN_EPOCH
from ._training import (
    WatchedLoss,
    blobs,
    call_with_batches,
    clone_setup,
    correct_helper,
    diagnose_kept_graphs,
    diagnose_modes,
    diagnose_update,
    differing,
    expect_close,
    expect_float,
    loader,
    make_loss,
    make_model,
    make_optimizer,
    ref_step,
    restarted_loader,
    snapshot,
)

WRONG_UPDATE_OWNER = "the optimizer's update: the parameters did not move the way one step on this batch moves them."


def _setup(seed, device, model="mlp", optimizer="momentum", loss="bce"):
    net = make_model(model, seed, device)
    opt = make_optimizer(optimizer, net.parameters())
    return net, opt, make_loss(loss)


# --------------------------------------------------------------------------
# train_step


@graded("train_step")
def train_step_update(train_step, seed: int = 0, n: int = 32, optimizer: str = "momentum", loss: str = "bce",
                      *, notes):
    """Three calls in a row: each updates with exactly its own batch's gradients"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, optimizer=optimizer, loss=loss)
        ref_model, ref_opt = clone_setup(model, opt)
        for i in range(3):
            x, y = blobs(n, seed * 7 + i, device)
            before = snapshot(model)
            swap_model, swap_opt = clone_setup(model, opt)
            with Ledger(model, opt, loss_fn=loss_fn) as ledger:
                call(train_step, model, x, y, opt, loss_fn)
            diagnose_update(ledger, "train_step", before=before)
            ref_step(ref_model, x, y, ref_opt, loss_fn)
            wrong = differing(snapshot(model), snapshot(ref_model))
            if wrong:
                _swapped_loss_arguments(ledger, swap_model, x, y, swap_opt, loss_fn, model)
                fail(f"after call {i + 1} of train_step on {device}, {', '.join(wrong[:3])} differ from one correct "
                     "update with that batch.", WRONG_UPDATE_OWNER,
                     "use the optimizer you were given, on the loss of exactly (x, y), once per call.",
                     code="wrong_update")


def _swapped_loss_arguments(ledger, swap_model, x, y, swap_opt, loss_fn, model) -> None:
    """The loss function was called as loss_fn(y, logits): the ledger shows the targets as its first argument,
    and one update with the arguments swapped reproduces the learner's parameters."""
    calls = ledger.of("loss")
    first = calls[0].data["inputs"][0] if calls and calls[0].data.get("inputs") else {}
    if first.get("has_graph", True) or first.get("requires_grad", True):
        return  # the first argument came out of the model: not the targets
    try:
        swap_opt.zero_grad(set_to_none=True)
        loss_fn(y, swap_model(x)).backward()
        swap_opt.step()
    except Exception:  # noqa: BLE001 - a loss that refuses swapped arguments cannot have been called with them
        return
    if not differing(snapshot(model), snapshot(swap_model)):
        fail("train_step called the loss function with the targets first and the model's output second "
             "(loss_fn(y, logits)): its first argument held no graph, and one update from that loss gives exactly "
             "the parameters train_step left.",
             "the loss function's arguments: PyTorch's losses take (input, target), the model's output first; "
             "swapped, the loss (and its gradient) is another function's.",
             "call loss_fn(model(x), y).", code="loss_arguments_swapped")


@graded("train_step")
def train_step_returns_loss(train_step, seed: int = 1, n: int = 24, loss: str = "bce", *, notes):
    """Returns this batch's loss, before the update, as a Python float"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, loss=loss)
        for i in range(2):
            x, y = blobs(n, seed * 5 + i, device)
            with torch.no_grad():
                before = loss_fn(model(x), y).item()
                try:
                    swapped = loss_fn(y, model(x)).item()
                except Exception:  # noqa: BLE001 - a loss that refuses swapped arguments
                    swapped = math.nan
            out = call(train_step, model, x, y, opt, loss_fn)
            got = expect_float(out, "the value train_step returned", "train_step")
            with torch.no_grad():
                after = loss_fn(model(x), y).item()
            if abs(got - before) > 1e-4 * max(1.0, abs(before)) and abs(got - after) <= 1e-5 * max(1.0, abs(after)):
                fail("train_step returned the loss measured after the update.",
                     "the loss you returned came from a second forward pass with the new parameters.",
                     "return the loss of the forward pass that produced this update's gradients.",
                     code="loss_after_update")
            if abs(got - before) > 1e-4 * max(1.0, abs(before)) and abs(got - swapped) <= 1e-5 * max(1.0, abs(swapped)):
                fail(f"train_step returned {got:.6g}, which is loss_fn(y, logits), the targets passed first; this "
                     f"batch's loss, loss_fn(logits, y), is {before:.6g}.",
                     "the loss function's arguments: PyTorch's losses take (input, target), the model's output first.",
                     "call loss_fn(model(x), y), and return that loss as `loss.item()`.",
                     code="loss_arguments_swapped")
            expect_close(got, before, "the value train_step returned", "the loss value train_step reported.",
                         "return this batch's loss (the one you called backward() on), as `loss.item()`.",
                         code="wrong_loss")


# --------------------------------------------------------------------------
# train_epoch


def _course_train_step(fn):
    """While ``fn`` (train_epoch, overfit_one_batch) runs, the name ``train_step`` in its notebook means a correct
    one, so that a wrong ``train_step`` costs points in train_step's own cells only."""
    return correct_helper(fn, "train_step", ref_step)


@graded("train_epoch")
def train_epoch_mode(train_epoch, seed: int = 0, n: int = 40, batch_size: int = 8, *, notes):
    """Trains in training mode even when an evaluation left the model in eval mode"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, model="dropout")
        model.eval()  # as an evaluation before this epoch left it
        x, y = blobs(n, seed + 3, device)
        data = loader(x, y, batch_size)
        with Ledger(model, opt, loss_fn=loss_fn, submodules=True) as ledger:  # sees model.forward(x) too
            with _course_train_step(train_epoch):
                call_with_batches(train_epoch, "train_epoch", device, model, data, opt, loss_fn, device)
        diagnose_modes(ledger, "train_epoch", training=True, grad=True,
                       owner_hint="the evaluation that ran before this epoch", batches=len(data))
        diagnose_update(ledger, "train_epoch", steps_expected=len(data))


@graded("train_epoch")
def train_epoch_frees_graphs(train_epoch, seed: int = 4, n: int = 48, batch_size: int = 8, *, notes):
    """Keeps no batch's graph alive once the next batch runs (a float total, not `total += loss`)"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device)
        watched = WatchedLoss(loss_fn)
        x, y = blobs(n, seed + 5, device)
        hook = watched.watch(model)
        data = loader(x, y, batch_size)
        try:
            with _course_train_step(train_epoch):
                call_with_batches(train_epoch, "train_epoch", device, model, data, opt, watched, device)
        finally:
            hook.remove()
        diagnose_kept_graphs(watched, "train_epoch", training=True, data=data)


@graded("train_epoch")
def train_epoch_result(train_epoch, seed: int = 1, n: int = 50, batch_size: int = 16, *, notes):
    """Updates like a correct epoch and returns the mean per-example loss (unequal batches)"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, model="dropout", optimizer="adam")
        model.train()
        ref_model, ref_opt = clone_setup(model, opt)
        x, y = blobs(n, seed + 11, device)
        data = loader(x, y, batch_size)
        manual_seed(seed + 100)  # the same dropout masks for the learner's epoch and the reference
        with _course_train_step(train_epoch):
            out = call_with_batches(train_epoch, "train_epoch", device, model, data, opt, loss_fn, device)
        made = data.iterators  # before the reference epoch below makes its own
        manual_seed(seed + 100)
        ref_model.train()
        losses, sizes = [], []
        for xb, yb in data:
            xb, yb = xb.to(device), yb.to(device)
            losses.append(ref_step(ref_model, xb, yb, ref_opt, loss_fn))
            sizes.append(len(xb))
        got = expect_float(out, "the value train_epoch returned", "train_epoch")
        restarted_loader(data, "train_epoch", made)
        _expect_same_epoch(model, ref_model, device)
        _expect_epoch_mean(got, losses, sizes, "train_epoch")


def _expect_same_epoch(model, ref_model, device) -> None:
    wrong = differing(snapshot(model), snapshot(ref_model))
    if wrong:
        fail(f"after one epoch on {device}, {', '.join(wrong[:3])} differ from a correct epoch over the same "
             "batches.", WRONG_UPDATE_OWNER,
             "for every batch: clear gradients, forward, loss, backward, step — with the objects passed in.",
             code="wrong_update")


def _expect_epoch_mean(got: float, losses: list[float], sizes: list[int], function: str) -> None:
    """``got`` must be the mean per-example loss of batches with these mean losses and sizes."""
    want = sum(v * s for v, s in zip(losses, sizes)) / sum(sizes)
    tol = 1e-4 * max(1.0, abs(want))
    if abs(got - want) <= tol:
        return
    unweighted = sum(losses) / len(losses)
    if abs(got - unweighted) <= tol:
        seen = (f"{function} returned {got:.6g}, the plain mean of the batch losses; the batches have "
                f"sizes {sizes}.")
        todo = "weight each batch's mean loss by its number of examples, then divide by the total."
        code = "unweighted_mean"
    elif abs(got - sum(losses)) <= tol or abs(got - sum(v * s for v, s in zip(losses, sizes))) <= tol:
        seen, todo, code = (f"{function} returned {got:.6g}, a sum rather than a mean.",
                            "divide the total by the number of examples.", "sum_not_mean")
    elif abs(got - losses[-1]) <= tol:
        seen, todo, code = (f"{function} returned the last batch's loss.",
                            "accumulate every batch's loss over the epoch.", "last_batch_only")
    else:
        seen, todo, code = (f"{function} returned {got:.6g}; a correct epoch's mean per-example loss "
                            "is different.", "accumulate `loss.item() * len(x)` per batch and divide by "
                            "the number of examples.", "wrong_mean")
    fail(seen, "the epoch's running loss total.", todo, code=code)


# --------------------------------------------------------------------------
# accumulate_step


def _parallel(a: list, b: list, tolerance: float = 1e-4) -> bool:
    """Whether two lists of gradient tensors point the same way (cosine of the concatenations near 1)."""
    u = torch.cat([g.detach().double().flatten().cpu() for g in a])
    v = torch.cat([g.detach().double().flatten().cpu() for g in b])
    if u.shape != v.shape or float(u.norm()) == 0 or float(v.norm()) == 0:
        return False
    return float(torch.dot(u, v) / (u.norm() * v.norm())) > 1 - tolerance


def _one_forward_per_micro_batch(ledger, micro) -> None:
    """accumulate_step exists for memory: each micro-batch goes through the model on its own."""
    sizes = [len(x) for x, _ in micro]
    batches = [e.data["inputs"][0]["shape"][0] for e in ledger.of("forward")
               if e.data.get("inputs") and e.data["inputs"][0].get("shape")]
    if batches and max(batches) > max(sizes):
        fail(f"accumulate_step ran {len(batches)} forward pass(es) of {max(batches)} rows for {len(sizes)} "
             f"micro-batches of {max(sizes)} rows: the micro-batches were concatenated into one forward pass.",
             "the forward pass: accumulation exists so that only one micro-batch's activations (and graph) are in "
             "memory at a time; one forward of the whole batch needs the memory accumulation was meant to avoid.",
             "run one forward and one backward per micro-batch, each loss scaled to its share of the mean, and step "
             "once after the last.", code="one_forward_for_all")


@graded("accumulate_step")
def accumulate_step_update(accumulate_step, seed: int = 0, k: int = 4, m: int = 8, optimizer: str = "momentum",
                           *, notes):
    """One update from k micro-batches equals one step on their concatenation (no clipping, none was asked)"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, optimizer=optimizer)
        ref_model, ref_opt = clone_setup(model, opt)
        for i in range(2):
            # The second update's inputs are scaled up so that its gradient norm is well above 1:
            # a gradient clipped that nobody asked for changes the update.
            micro = [(x * (1.0 if i == 0 else 10.0), y)
                     for x, y in (blobs(m, seed * 13 + i * k + j, device) for j in range(k))]
            before = snapshot(model)
            with Ledger(model, opt, loss_fn=loss_fn) as ledger:
                call(accumulate_step, model, list(micro), opt, loss_fn)
            _one_forward_per_micro_batch(ledger, micro)
            diagnose_update(ledger, "accumulate_step", micro_batches=k, before=before)
            X, Y = torch.cat([a for a, _ in micro]), torch.cat([b for _, b in micro])  # (k*m, 2), (k*m, 1)
            ref_step(ref_model, X, Y, ref_opt, loss_fn)
            wrong = differing(snapshot(model), snapshot(ref_model))
            if wrong:
                step = ledger.of("step")[0]
                used = [g for g in step.data["grad_values"].values() if g is not None]
                want = [p.grad for p in ref_model.parameters() if p.grad is not None]
                ratio = None
                if used and len(used) == len(want):
                    num = torch.sqrt(sum((g.double() ** 2).sum() for g in used))
                    den = torch.sqrt(sum((g.double() ** 2).sum() for g in want))
                    ratio = float(num / den) if float(den) > 0 else None
                if ratio is not None and abs(ratio - k) < 0.05 * k:
                    fail(f"the accumulated gradient was {ratio:.2f} times the gradient of the mean loss over the "
                         f"{k} micro-batches.",
                         "each micro-batch's backward() added its full gradient to .grad.",
                         f"scale each micro-batch's loss so the {k} contributions add up to the mean.",
                         code="unscaled")
                if ratio is not None and ratio < 0.98 and abs(ratio - 1 / k) > 0.05 / k and _parallel(used, want):
                    norm = float(torch.sqrt(sum((g.double() ** 2).sum() for g in used)))
                    fail(f"the gradient the optimizer stepped with had the right direction but norm {norm:.3g}, "
                         f"{ratio:.2f} times the norm of the gradient of the mean loss: it was rescaled (clipped?) "
                         "between backward() and step().",
                         "the accumulated .grad was changed before the optimizer read it, although the task asks "
                         "for no clipping.",
                         "step with the accumulated gradient as backward() left it.", code="clipped")
                fail(f"after accumulate_step over {k} micro-batches on {device}, {', '.join(wrong[:3])} differ from "
                     "one step on their concatenation.", WRONG_UPDATE_OWNER,
                     "accumulate every micro-batch's gradient of the mean loss, then step once.",
                     code="wrong_update")


@graded("accumulate_step")
def accumulate_step_returns_loss(accumulate_step, seed: int = 2, k: int = 3, m: int = 6, *, notes):
    """Returns the mean loss over the micro-batches as a Python float"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device)
        micro = [blobs(m, seed * 17 + j, device) for j in range(k)]
        with torch.no_grad():
            want = loss_fn(model(torch.cat([a for a, _ in micro])), torch.cat([b for _, b in micro])).item()
            last = loss_fn(model(micro[-1][0]), micro[-1][1]).item()
        out = call(accumulate_step, model, micro, opt, loss_fn)
        got = expect_float(out, "the value accumulate_step returned", "accumulate_step")
        if abs(got - want * k) <= 1e-4 * max(1.0, abs(want * k)):
            fail(f"accumulate_step returned {got:.6g}, the sum of the {k} micro-batch losses.",
                 "the loss total accumulate_step reported.", "report the mean over the micro-batches.",
                 code="sum_not_mean")
        for candidate in (last, last / k):
            if abs(got - candidate) <= 1e-5 * max(1.0, abs(candidate)) and abs(candidate - want) > 1e-4:
                fail(f"accumulate_step returned {got:.6g}, the loss of the last micro-batch alone"
                     + (" (divided by their number)" if candidate != last else "") + ".",
                     "the variable holding the loss was overwritten by each micro-batch; only the last one "
                     "was reported.", "add up every micro-batch's loss (as a float) and report their mean.",
                     code="last_micro_batch_only")
        expect_close(got, want, "the value accumulate_step returned", "the loss total accumulate_step reported.",
                     "return the mean of the micro-batch losses (each taken before the update).", code="wrong_loss")


# --------------------------------------------------------------------------
# overfit_one_batch


@graded("overfit_one_batch")
def overfit_one_batch_curve(overfit_one_batch, seed: int = 0, n: int = 16, steps: int = 40,
                            optimizer: str = "adam", *, notes):
    """One float per step, each the loss before that step's update, as a correct loop gives"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, optimizer=optimizer)
        ref_model, ref_opt = clone_setup(model, opt)
        x, y = blobs(n, seed + 21, device)
        with Ledger(model, opt, loss_fn=loss_fn) as ledger:
            with _course_train_step(overfit_one_batch):
                out = call(overfit_one_batch, model, x, y, opt, loss_fn, steps)
        if not isinstance(out, list):
            fail(f"overfit_one_batch returned {describe(out)}.", "the loss history overfit_one_batch built.",
                 "return a list with one Python float per step.", code="not_a_list")
        if len(out) != steps:
            fail(f"overfit_one_batch(..., steps={steps}) returned {len(out)} losses.",
                 "the loop over steps (or what it appends).", "run exactly `steps` updates and record one loss each.",
                 code="wrong_length")
        for value in out:
            expect_float(value, "an entry of the returned list", "overfit_one_batch")
        updates = len(ledger.of("step"))
        if 0 < updates < steps and len(set(out)) < len(out) and len(set(out)) <= updates:
            fail(f"overfit_one_batch(..., steps={steps}) returned {len(out)} losses but only {len(set(out))} "
                 f"distinct value(s), and optimizer.step() ran {updates} time(s): one update's loss was repeated "
                 "to fill the list.",
                 "the loop over steps: each entry must come from its own step on the batch (forward, loss, backward, "
                 "update), so the curve shows whether the model can fit it.",
                 "run one training step per entry of the list, on the same (x, y), and record each step's loss.",
                 code="repeated_loss")
        diagnose_update(ledger, "overfit_one_batch", steps_expected=steps)
        want = [ref_step(ref_model, x, y, ref_opt, loss_fn) for _ in range(steps)]
        with torch.no_grad():
            final = loss_fn(ref_model(x), y).item()
        if all(abs(a - b) <= 1e-4 * max(1.0, abs(b)) for a, b in zip(out, want[1:] + [final])):
            fail("each recorded loss is the one after its step's update: the list is shifted by one.",
                 "the loss history: entry i should be the loss that step i computed its gradients from.",
                 "append the loss of each step's forward pass, before the update.", code="off_by_one")
        bad = [i for i, (a, b) in enumerate(zip(out, want)) if abs(a - b) > 1e-3 * max(1.0, abs(b))]
        if bad:
            fail(f"from step {bad[0]} on, the recorded losses depart from a correct loop's "
                 f"(step {bad[0]}: {out[bad[0]]:.4g} instead of {want[bad[0]]:.4g}).",
                 "the updates themselves (the ledger found nothing out of order).",
                 "repeat the five lines on the same (x, y) with the objects passed in.", code="wrong_curve")


# --------------------------------------------------------------------------
# repair_train_epoch: a colleague's epoch, released with silent bugs; one check part per owner


class _RecordingLoss(torch.nn.Module):
    """A loss function that remembers each batch's loss value and size as the learner's loop computed them."""

    def __init__(self, inner):
        super().__init__()
        self.inner, self.losses, self.sizes = inner, [], []

    def forward(self, logits, target):
        out = self.inner(logits, target)
        if isinstance(out, torch.Tensor) and out.numel() == 1:
            self.losses.append(out.item())
            self.sizes.append(len(target))
        return out


@graded("repair_train_epoch", starter=REPAIR_TRAIN_EPOCH)
def repair_train_epoch_mode(repair_train_epoch, seed: int = 0, n: int = 40, batch_size: int = 8, *, notes):
    """Trains in training mode even when an evaluation left the model in eval mode"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, model="dropout")
        model.eval()  # as the validation before this epoch left it
        x, y = blobs(n, seed + 3, device)
        data = loader(x, y, batch_size)
        with Ledger(model, opt, loss_fn=loss_fn, submodules=True) as ledger:
            call_with_batches(repair_train_epoch, "repair_train_epoch", device, model, data, opt, loss_fn, device)
        diagnose_modes(ledger, "repair_train_epoch", training=True, grad=True,
                       owner_hint="the evaluation that ran before this epoch", batches=len(data))


@graded("repair_train_epoch", starter=REPAIR_TRAIN_EPOCH)
def repair_train_epoch_updates(repair_train_epoch, seed: int = 1, n: int = 48, batch_size: int = 8, *, notes):
    """Each batch updates the model with that batch's gradients only, once"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device)  # no Dropout: the mode does not change the numbers
        ref_model, ref_opt = clone_setup(model, opt)
        x, y = blobs(n, seed + 13, device)
        data = loader(x, y, batch_size)
        with Ledger(model, opt, loss_fn=loss_fn) as ledger:
            call_with_batches(repair_train_epoch, "repair_train_epoch", device, model, data, opt, loss_fn, device)
        diagnose_update(ledger, "repair_train_epoch", steps_expected=len(data))
        for xb, yb in data:
            ref_step(ref_model, xb.to(device), yb.to(device), ref_opt, loss_fn)
        _expect_same_epoch(model, ref_model, device)


@graded("repair_train_epoch", starter=REPAIR_TRAIN_EPOCH)
def repair_train_epoch_mean(repair_train_epoch, seed: int = 2, n: int = 50, batch_size: int = 16, *, notes):
    """Returns the mean per-example loss of the batches it trained on (unequal batches), as a Python float"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device)
        recorded = _RecordingLoss(loss_fn)
        x, y = blobs(n, seed + 17, device)
        out = call_with_batches(repair_train_epoch, "repair_train_epoch", device, model, loader(x, y, batch_size),
                                opt, recorded, device)
        got = expect_float(out, "the value repair_train_epoch returned", "repair_train_epoch")
        if not recorded.losses:
            fail("repair_train_epoch never called the loss function it was given.", "the loop over the loader.",
                 "compute each batch's loss with `loss_fn`.", code="no_loss")
        _expect_epoch_mean(got, recorded.losses, recorded.sizes, "repair_train_epoch")


# --------------------------------------------------------------------------
# Not graded: see your own loop in the ledger


def show_train_step(train_step, seed: int = 0):
    """Run your train_step twice on a small problem and show the ledger of the second call."""
    model, opt, loss_fn = _setup(seed, "cpu")
    x, y = blobs(16, seed, "cpu")
    try:
        train_step(model, x, y, opt, loss_fn)
        with Ledger(model, opt, loss_fn=loss_fn) as ledger:
            train_step(model, x, y, opt, loss_fn)
    except NotImplementedError:
        print("train_step is not written yet.")
        return None
    return ledger
# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)




# --------------------------------------------------------------------------
# trace_batch: one batch traced through every owner, statement by statement, in lesson 04's words

ZERO_GRAD, ZERO_FILL, MODEL_ZERO_GRAD, FORWARD, BACKWARD, STEP = owners.STATEMENTS
LR, MOMENTUM = 0.1, 0.9
#: The entry whose change the delta column reports.
WATCH = ("out.weight", (0, 0))

#: How the objects handed to trace_batch start: whether the optimizer holds only the head (``model.out``), and
#: whether one correct step on an earlier batch came first (every .grad then holds that batch's gradient, and
#: every tensor the optimizer holds has a momentum buffer).
STARTS = {
    "fresh": (False, False, "a new model, the optimizer over all its parameters"),
    "after_one_step": (False, True, "one step on an earlier batch done, the optimizer over all parameters"),
    "head_only": (True, False, "a new model, the optimizer over `model.out` only"),
    "head_only_after_one_step": (True, True, "one step on an earlier batch done, the optimizer over `model.out` "
                                             "only"),
}

#: The cases the visible checks trace; the hidden tests trace others, from other weights.
VISIBLE_CASES = (
    ("fresh", (ZERO_GRAD, FORWARD, BACKWARD, STEP)),
    ("after_one_step", (ZERO_GRAD, FORWARD, BACKWARD, STEP)),
    ("after_one_step", (FORWARD, BACKWARD, STEP)),
    ("after_one_step", (FORWARD, BACKWARD, ZERO_FILL, STEP)),
    ("fresh", (ZERO_GRAD, FORWARD, STEP, BACKWARD)),
    ("after_one_step", (FORWARD, STEP, ZERO_GRAD)),
    ("head_only_after_one_step", (ZERO_GRAD, FORWARD, BACKWARD, STEP)),
    ("head_only", (MODEL_ZERO_GRAD, FORWARD, BACKWARD, STEP)),
    # a step() of zeros on a live graph (it writes, so the graph is unusable), and a buffer a step of zeros keeps
    ("fresh", (FORWARD, BACKWARD, ZERO_FILL, FORWARD, STEP)),
    ("fresh", (FORWARD, BACKWARD, ZERO_FILL, STEP, STEP)),
    # statements repeated and out of order: each rule a hidden case judges is judged here first (trace_rules)
    ("head_only_after_one_step", (MODEL_ZERO_GRAD, STEP)),
    ("head_only_after_one_step", (ZERO_FILL, FORWARD, STEP, FORWARD, BACKWARD, STEP)),
    ("fresh", (ZERO_FILL, FORWARD, STEP, FORWARD, BACKWARD, STEP)),
    ("head_only", (FORWARD, BACKWARD, FORWARD, STEP)),
    ("after_one_step", (FORWARD, BACKWARD, MODEL_ZERO_GRAD, STEP)),
    ("after_one_step", (FORWARD, BACKWARD, STEP, ZERO_GRAD)),
    ("after_one_step", (FORWARD, ZERO_GRAD, STEP, BACKWARD, STEP)),
)
HIDDEN_CASES = (
    ("fresh", (FORWARD, BACKWARD, FORWARD, STEP)),
    ("fresh", (ZERO_FILL, FORWARD, BACKWARD, STEP, STEP)),
    ("fresh", (FORWARD, BACKWARD, ZERO_FILL, STEP, FORWARD)),
    ("after_one_step", (ZERO_FILL, FORWARD, STEP, FORWARD, BACKWARD, STEP)),
    ("after_one_step", (FORWARD, FORWARD, BACKWARD, STEP, ZERO_GRAD)),
    ("after_one_step", (MODEL_ZERO_GRAD, FORWARD, BACKWARD, ZERO_FILL, STEP)),
    ("head_only", (FORWARD, BACKWARD, STEP, ZERO_GRAD, STEP)),
    ("head_only_after_one_step", (FORWARD, BACKWARD, MODEL_ZERO_GRAD, STEP)),
    ("head_only_after_one_step", (FORWARD, ZERO_GRAD, STEP, BACKWARD, STEP)),
    ("head_only", (FORWARD, BACKWARD, ZERO_FILL, FORWARD, STEP)),
    ("after_one_step", (ZERO_FILL, FORWARD, BACKWARD, ZERO_FILL, STEP, STEP)),
)


def trace_setup(start: str, seed: int):
    """``(model, optimizer, loss_fn, x, y)`` for one traced case: the same for the same ``(start, seed)``, drawn
    from a generator of their own (torch's global RNG is left alone)."""
    head_only, stepped, _ = STARTS[start]
    g = generator(seed)
    model = nn.Sequential(OrderedDict(hidden=skip_init(nn.Linear, 3, 4), act=nn.Tanh(),
                                      out=skip_init(nn.Linear, 4, 1)))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.7)
    optimizer = torch.optim.SGD(model.out.parameters() if head_only else model.parameters(), lr=LR,
                                momentum=MOMENTUM)
    loss_fn = nn.BCEWithLogitsLoss()
    (x0, y0), (x, y) = [(torch.randn(6, 3, generator=g), torch.randint(0, 2, (6, 1), generator=g).float())
                        for _ in range(2)]  # (6, 3), (6, 1): an earlier batch and the traced one
    if stepped:
        optimizer.zero_grad()
        loss_fn(model(x0), y0).backward()
        optimizer.step()
    return model, optimizer, loss_fn, x, y


def _kept_traces():
    """:func:`reference_trace`, which keeps the rows of every case it has traced in this process where only a call of
    it reaches them (each check of a notebook judges the same cases, and a grading template traces them all before it
    forks: :func:`_prepare`).  Rows kept in a plain global would be the course's answers, readable by an answer
    without running any of the course's code; a call is what the checks' watch sees, and scores 0."""
    kept: dict[tuple, list[dict]] = {}

    def reference_trace(start: str, body, seed: int = 0) -> list[dict]:
        """The rows a real run of ``body`` gives from ``trace_setup(start, seed)`` (:func:`autograder.owners.run`):
        a copy of this process's first run of the case, which depends on nothing but ``(start, body, seed)``."""
        key = (start, tuple(body), seed)
        if key not in kept:
            kept[key] = owners.run(*trace_setup(start, seed), list(body), WATCH)
        return copy.deepcopy(kept[key])

    return reference_trace


reference_trace = _kept_traces()


def _expect_row_form(row, names: list[str], where: str) -> None:
    """Fail unless ``row`` is a plain dict of the stated keys and types (a subclass that equals anything is not)."""
    def bad(problem: str, *, code: str) -> None:
        fail(f"{where} {problem}.", f"the trace's rows: each a dict with the keys {', '.join(owners.COLUMNS)}, of "
             "the types the exercise states.", "build every row from plain Python values: float, str, bool and "
             "dicts keyed by the parameters' names.", code=code)

    if type(row) is not dict:
        bad(f"is {describe(row)}, not a dict", code="trace_wrong_type")
    missing = [c for c in owners.COLUMNS if c not in row]
    if missing:
        bad(f"has no key {missing[0]!r}", code="wrong_keys")
    if not (row["loss"] is None or type(row["loss"]) is float):
        bad(f"has loss={describe(row['loss'])}, not a Python float (or None)", code="trace_wrong_type")
    if type(row["graph"]) is not str or row["graph"] not in owners.GRAPH_STATES:
        bad(f"has graph={describe(row['graph'])}, not one of {owners.GRAPH_STATES}", code="trace_wrong_type")
    for column, states in (("grad", owners.GRAD_STATES), ("momentum", owners.MOMENTUM_STATES),
                           ("changed", (True, False))):
        value = row[column]
        if type(value) is not dict:
            bad(f"has {column}={describe(value)}, not a dict keyed by the parameters' names", code="trace_wrong_type")
        if sorted(k for k in value if type(k) is str) != sorted(names) or len(value) != len(names):
            bad(f"has {column} keyed by {sorted(map(str, value))}; the model's parameters are {names}",
                code="wrong_keys")
        kind = bool if column == "changed" else str
        for name, state in value.items():
            if type(state) is not kind or state not in states:
                bad(f"has {column}[{name!r}]={describe(state)}, not one of {states}", code="trace_wrong_type")
    if type(row["delta"]) not in (float, int):
        bad(f"has delta={describe(row['delta'])}, not a Python float", code="trace_wrong_type")


def _expect_rows(out, body, where: str, what: str, returns: str) -> None:
    """``out`` is a plain list of one row per statement of ``body`` (``what``: the trace or the prediction)."""
    if out is None:
        job_not_done(f"{where} returned None.", "nothing", f"{what} {returns}.",
                     f"return a list of {len(body)} dictionaries, one per statement, in order.")
    if type(out) is not list:
        fail(f"{where} returned {describe(out)}, not a list.", f"{what}: one row per statement, in order.",
             f"return a plain list of {len(body)} dictionaries.", code="not_a_list")
    if len(out) != len(body):
        fail(f"{where} returned {len(out)} rows for {len(body)} statements.",
             f"{what}: one row after every statement of the body.", f"return exactly {len(body)} rows, in order.",
             code="wrong_length")


def _call_trace(trace_batch, start: str, body, seed: int) -> list:
    """The learner's trace of one case, its form checked: a list of one well-formed row per statement."""
    model, optimizer, loss_fn, x, y = trace_setup(start, seed)
    names = [n for n, _ in model.named_parameters()]
    out = call(trace_batch, model, optimizer, loss_fn, x, y, list(body))
    where = f"trace_batch(model, optimizer, loss_fn, x, y, {list(body)}) ({STARTS[start][2]})"
    _expect_rows(out, body, where, "the trace", "trace_batch returns")
    for n, row in enumerate(out):
        _expect_row_form(row, names, f"{where}: row {n} (after `{body[n]}`)")
    out = list(out)
    # which parameters hold an entry in optimizer.state once the trace ran (`p in` reads without adding one)
    _STATE_AFTER[id(out)] = (out, sorted(n for n, p in model.named_parameters() if p in optimizer.state),
                             _state_dict_error(optimizer))
    return out


#: What the optimizer's state held after each learner trace (``{id(rows): (rows, names with an entry, error)}``).
_STATE_AFTER: dict = {}


def _state_dict_error(optimizer) -> str:
    try:
        optimizer.state_dict()
    except Exception as error:  # noqa: BLE001 - what the learner's trace left behind
        return f"{type(error).__name__}: {error}"
    return ""


def _expect_state_kept(got: list, want: list, start: str, body) -> None:
    """Fail when the trace left the optimizer's state other than a real run leaves it: reading
    ``optimizer.state[p]`` (a defaultdict) adds an empty entry for a tensor that has none."""
    _, held, error = _STATE_AFTER.pop(id(got), (None, None, ""))
    if held is None:
        return
    expected = sorted(n for n, state in want[-1]["momentum"].items() if state != "absent")
    extra = [n for n in held if n not in expected]
    if extra:
        fail(f"tracing {list(body)} ({STARTS[start][2]}): afterwards `optimizer.state` holds an entry for "
             f"{', '.join(map(repr, extra))}, which a real run of these statements leaves without one"
             + (f", and optimizer.state_dict() raises {error}" if error else "") + ".",
             "the optimizer's state: `optimizer.state` is a defaultdict, so reading `optimizer.state[p]` for a "
             "tensor that has no state yet adds an empty entry for it, even for a tensor the optimizer does not hold.",
             "read a buffer with `optimizer.state.get(p, {}).get(\"momentum_buffer\")`, which adds nothing: a trace "
             "leaves every owner as the statements leave it.", code="trace_added_state")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 + 1e-4 * abs(b)


def _differs(column: str, got, want):
    """None when the cells agree; otherwise the parameter whose entry differs (or True for a single value)."""
    if column == "loss":
        same = (got is None) == (want is None) and (got is None or _close(got, want))
    elif column == "delta":
        same = _close(float(got), want)
    elif column in ("grad", "momentum", "changed"):
        return next((name for name in want if got[name] != want[name]), None)
    else:
        same = got == want
    return None if same else True


def _first_wrong(trace_batch, cases, seed: int, columns):
    for start, body in cases:
        got, want = _call_trace(trace_batch, start, body, seed), reference_trace(start, body, seed)
        if "momentum" in columns:
            _expect_state_kept(got, want, start, body)
        _STATE_AFTER.pop(id(got), None)
        for n, (g, w) in enumerate(zip(got, want)):
            for column in columns:
                name = _differs(column, g[column], w[column])
                if name is not None:
                    return start, body, n, column, name, g, w, want[n - 1] if n else None
    return None


def _why(column: str, statement: str, want: dict, previous) -> str:
    """The owner's reason for the state a real run shows in ``column`` after ``statement``."""
    if column == "loss":
        if statement == FORWARD:
            return "`loss`, which the forward statement sets from the parameters as they are at that moment."
        return ("`loss`, which only the forward statement sets: this statement leaves the value it holds"
                + (" (no forward pass has run yet: None)." if want["loss"] is None else "."))
    if column == "grad":
        return "each parameter's .grad: " + {
            ZERO_GRAD: "optimizer.zero_grad() sets .grad to None for the tensors the optimizer holds, and only those.",
            MODEL_ZERO_GRAD: "model.zero_grad() sets every parameter's .grad to None.",
            ZERO_FILL: "zero_grad(set_to_none=False) fills with zeros an existing .grad of the tensors the optimizer "
                       "holds; a .grad that is None stays None.",
            BACKWARD: "backward() adds this batch's gradient into the .grad of every parameter on the path to the "
                      "loss, whatever it held before.",
        }.get(statement, "a forward pass and step() read or record; neither changes .grad.")
    if column == "momentum":
        if statement != STEP:
            return "the optimizer's state, which only step() writes: zero_grad() clears .grad, never a buffer."
        return ("the optimizer's state: step() creates a buffer the first time it updates a parameter and changes "
                "it (momentum × buffer + .grad) each later time, for the tensors it holds whose .grad is not None "
                "(zeros included); a None .grad is skipped, and a tensor it does not hold gets no buffer.")
    if column in ("changed", "delta"):
        if statement != STEP:
            return "the parameters' values, which only step() writes."
        return ("the parameters' values: step() moves each tensor it updates by lr × its buffer, so a .grad of "
                "zeros still moves a parameter whose buffer holds earlier gradients, a .grad summed over two "
                "batches moves it further, and a tensor with no .grad, or one the optimizer does not hold, stays.")
    graph = want["graph"]
    if statement == FORWARD:
        return "autograd's graph: a forward pass records a new graph, and `loss` holds it."
    if statement == BACKWARD:
        return "autograd's graph: backward() walks it once and frees it."
    if statement == STEP and graph == "unusable" and previous is not None and previous["graph"] == "alive":
        return ("autograd's graph: step() wrote into the parameters in place while the graph was alive (an update "
                "of zeros is a write too), and the graph saved `out.weight` for its backward pass: the version "
                "counter (module 02) makes backward() refuse it.")
    if statement == STEP and previous is not None and previous["graph"] == graph == "alive":
        return ("autograd's graph: this step() updated no parameter (none it holds had a .grad), so nothing the "
                "graph saved was written.")
    if graph == "freed":
        wrote = " (a step() writes into the parameters, but a freed graph has nothing left to spoil)" if (
            statement == STEP) else ""
        return ("autograd's graph: a backward() walked and freed it earlier, and this statement records nothing"
                f"{wrote}: it stays freed until a forward pass records a new one.")
    if graph == "none":
        return ("autograd's graph: no forward pass has run yet, so `loss` holds no graph; only the forward statement "
                "records one.")
    if graph == "unusable":
        return ("autograd's graph: a step() wrote into the parameters while it was alive, and nothing repairs that: "
                "it stays as it was, unusable, until a forward pass records a new one.")
    return ("autograd's graph: this statement clears or fills .grad, which the graph did not save, so it stays as it "
            "was: alive until a backward() walks it or a step() writes into the parameters.")


#: Per column: what to do, and the diagnosis code.
_COLUMNS = {
    "loss": ("read `loss` after each statement as a Python float (`.item()`), None while no forward pass has run.",
             "trace_wrong_loss"),
    "grad": ("follow each parameter's .grad from the state the objects start in: is it None, all zeros, or not?",
             "trace_wrong_grad"),
    "momentum": ("read each buffer with `optimizer.state.get(p, {}).get(\"momentum_buffer\")` and keep a clone of it "
                 "before the statement: step() updates a buffer in place, so a reference kept from before already "
                 "holds the new values. Is there a buffer, and did this statement change its values?",
                 "trace_wrong_momentum"),
    "changed": ("compare each parameter with a copy taken before the statement (`p.detach().clone()`).",
                "trace_wrong_weights"),
    "delta": ("report `model.out.weight[0, 0]` after the statement minus before it, as a Python float.",
              "trace_wrong_weights"),
    "graph": ("mark where each graph is recorded, walked and freed, and whether a step() wrote into the parameters "
              "while it was alive; lesson 04, sections 3 and 4, shows each case.", "trace_wrong_graph"),
}


#: The cases a check traces, and the seed of their weights: the visible checks', and the hidden tests'.
TRACED = {False: (VISIBLE_CASES, 0), True: (HIDDEN_CASES, 3)}


def _judge(trace_batch, hidden: bool, columns) -> None:
    found = _first_wrong(trace_batch, *TRACED[hidden], columns)
    if found is None:
        return
    start, body, n, column, name, got, want, previous = found
    cell = column if name is True else f"{column}[{name!r}]"
    value = (lambda row: row[column]) if name is True else (lambda row: row[column][name])
    fail(f"tracing {list(body)} ({STARTS[start][2]}): after statement {n + 1}, `{body[n]}`, your {cell} is "
         f"{value(got)!r}; running it gives {value(want)!r}.",
         _why(column, body[n], want, previous), _COLUMNS[column][0], code=_COLUMNS[column][1])


@graded("trace_batch")
def trace_batch_loss_and_grads(trace_batch, hidden: bool = False, *, notes):
    """The loss and grad columns: what `loss` and each parameter's .grad hold after every statement"""
    _judge(trace_batch, hidden, ("loss", "grad"))


@graded("trace_batch")
def trace_batch_optimizer_and_parameters(trace_batch, hidden: bool = False, *, notes):
    """The momentum, changed and delta columns: what step() wrote into the optimizer's state and the parameters"""
    _judge(trace_batch, hidden, ("momentum", "changed", "delta"))


@graded("trace_batch")
def trace_batch_graph(trace_batch, hidden: bool = False, *, notes):
    """The graph column: after every statement, whether loss.backward() could walk the graph"""
    _judge(trace_batch, hidden, ("graph",))


# --------------------------------------------------------------------------
# The rules a trace judges, so that every rule a hidden case judges is seen first in a visible one


def trace_rules(cases, seed: int) -> set[tuple]:
    """Every rule the real runs of ``cases`` exercise: per statement, what each owner held before it and what
    it holds after, in the words of the columns (a parameter's rule also says whether the optimizer holds it and
    what its .grad held before the statement, which decide what step() and zero_grad() do to it)."""
    rules = set()
    for start, body in cases:
        model, optimizer, _, _, _ = trace_setup(start, seed)
        held = {n for n, p in model.named_parameters() if any(p is q for g in optimizer.param_groups
                                                             for q in g["params"])}
        first = owners.snapshot(model, optimizer, None)
        before = {"graph": "none", "grad": first["grad"],
                  "momentum": {n: "absent" if b is None else "kept" for n, b in first["buffers"].items()}}
        for statement, row in zip(body, reference_trace(start, body, seed)):
            wrote = any(row["changed"].values()) or any(s in ("created", "updated") for s in row["momentum"].values())
            rules.add(("graph", statement, before["graph"], row["graph"], wrote))
            for n in row["grad"]:
                had = "absent" if before["momentum"][n] == "absent" else "held"
                rules.add(("grad", statement, n in held, before["grad"][n], row["grad"][n]))
                rules.add(("momentum", statement, n in held, before["grad"][n], had, row["momentum"][n]))
                rules.add(("changed", statement, n in held, before["grad"][n], had, row["changed"][n]))
            before = row
    return rules


# --------------------------------------------------------------------------
# predict_trace: the same symbolic columns, predicted from the rules alone, with no model or optimizer to run

#: The columns a prediction holds (loss and delta are numbers a run measures; the rules cannot give them).
PREDICTED = ("graph", "grad", "momentum", "changed")
#: The cases the visible checks ask to predict (those trace_batch traces), and the hidden ones: other bodies, whose
#: every rule a visible case judges first (tests/test_trace_batch.py holds it).
PREDICT_VISIBLE = VISIBLE_CASES + (
    ("after_one_step", (STEP, ZERO_GRAD, STEP)),  # a step() before any forward pass: it writes, and there is no graph
)
PREDICT_HIDDEN = HIDDEN_CASES + (
    ("head_only_after_one_step", (ZERO_FILL, STEP, FORWARD, BACKWARD, ZERO_GRAD, STEP)),
    ("fresh", (MODEL_ZERO_GRAD, FORWARD, STEP, BACKWARD, ZERO_FILL, STEP, STEP)),
    ("after_one_step", (STEP, ZERO_FILL, STEP, FORWARD, BACKWARD, STEP)),
)


def start_of(start: str) -> dict:
    """What ``predict_trace`` is told about the objects of ``trace_setup(start, ...)`` before the first statement:
    read off the real objects (which parameters the optimizer holds, each .grad, which have a momentum buffer),
    once per process; each call returns a copy of its own."""
    description = _STARTS_READ.get(start)
    if description is None:
        model, optimizer, _, _, _ = trace_setup(start, 0)
        held = {id(p) for group in optimizer.param_groups for p in group["params"]}
        params = list(model.named_parameters())
        description = _STARTS_READ[start] = {
            "held": [n for n, p in params if id(p) in held], "grad": {n: owners.grad_state(p) for n, p in params},
            "momentum": [n for n, p in params if owners._buffer(optimizer, p) is not None]}
    return copy.deepcopy(description)


_STARTS_READ: dict[str, dict] = {}


def _expect_prediction_form(row, names: list[str], where: str) -> None:
    """Fail unless ``row`` is a plain dict with the four predicted columns, each of the stated words."""
    def bad(problem: str, *, code: str) -> None:
        fail(f"{where} {problem}.", f"the prediction's rows: each a dict with the keys {', '.join(PREDICTED)}, in the "
             "words trace_batch uses.", "build every row from plain Python values: str, bool and dicts keyed by the "
             "parameters' names (the keys of start[\"grad\"]).", code=code)

    if type(row) is not dict:
        bad(f"is {describe(row)}, not a dict", code="trace_wrong_type")
    missing = [c for c in PREDICTED if c not in row]
    if missing:
        bad(f"has no key {missing[0]!r}", code="wrong_keys")
    if type(row["graph"]) is not str or row["graph"] not in owners.GRAPH_STATES:
        bad(f"has graph={describe(row['graph'])}, not one of {owners.GRAPH_STATES}", code="trace_wrong_type")
    for column, states in (("grad", owners.GRAD_STATES), ("momentum", owners.MOMENTUM_STATES),
                           ("changed", (True, False))):
        value = row[column]
        if type(value) is not dict:
            bad(f"has {column}={describe(value)}, not a dict keyed by the parameters' names", code="trace_wrong_type")
        if sorted(k for k in value if type(k) is str) != sorted(names) or len(value) != len(names):
            bad(f"has {column} keyed by {sorted(map(str, value))}; the parameters are {names}", code="wrong_keys")
        kind = bool if column == "changed" else str
        for name, state in value.items():
            if type(state) is not kind or state not in states:
                bad(f"has {column}[{name!r}]={describe(state)}, not one of {states}", code="trace_wrong_type")


class _Dispatched(TorchDispatchMode):
    """Notes the first operation that reaches PyTorch's dispatcher (a tensor made, read or changed), which a torch
    function mode switched off (``torch._C.DisableTorchFunction``) does not hide."""

    def __init__(self):
        super().__init__()
        self.first = ""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.first = self.first or str(func)
        return func(*args, **(kwargs or {}))


_TORCH_DIR = f"{os.sep}torch{os.sep}"


def _ran_pytorch(torch_functions, dispatched, codes) -> str:
    """What of PyTorch a prediction ran, in words ('' for nothing): a torch function, an operation of the
    dispatcher, or PyTorch's own Python code (a module, an optimizer, a tensor method)."""
    if torch_functions.first:
        return f"torch's {torch_functions.first}"
    if dispatched.first:
        return f"the operation {dispatched.first}"
    torch_code = sorted(f"{Path(c.co_filename).name}:{c.co_qualname}" for c in codes if _TORCH_DIR in c.co_filename)
    return f"PyTorch's own code ({torch_code[0]})" if torch_code else ""


def _call_prediction(predict_trace, start: str, body) -> list:
    """The learner's prediction of one case, made with no tensor, its form checked.  PyTorch is watched three ways
    (torch functions, the dispatcher, and PyTorch's Python code among the calls), so that switching one watch off
    does not hide a model built and run; a prediction that switches off both modes and calls only PyTorch's C
    functions is not seen."""
    from .m03_nn_module import _Allocations

    given, statements = start_of(start), list(body)
    names = list(given["grad"])
    where = f"predict_trace(start, {list(body)}) (start: {STARTS[start][2]})"
    with _Allocations() as watch, _Dispatched() as dispatched, course_code.calls() as ran:
        out = call(predict_trace, given, statements)
    what = _ran_pytorch(watch, dispatched, ran.codes)
    if what:
        fail(f"{where} ran {what}: it built tensors (or a model) to read the answer off.",
             "the prediction: the point is to know what every owner will hold before anything runs, from the "
             "description of the start and the rules of each statement.",
             "follow the states with plain Python (strings, bools, dicts) and build nothing; trace_batch is the "
             "function that runs the statements, to check a prediction in a cell of your own.",
             code="built_to_predict")
    _expect_rows(out, body, where, "the prediction", "predict_trace returns")
    for n, row in enumerate(out):
        _expect_prediction_form(row, names, f"{where}: row {n} (after `{body[n]}`)")
    return list(out)


#: Per column: what to do when a prediction is wrong (the owner's reason is :func:`_why`'s, as for trace_batch).
_PREDICT_DO = {
    "grad": "follow each .grad from start[\"grad\"] with the rules of lesson 04 part 2 (section 7): which statement "
            "sets None, which fills zeros, which adds a gradient, and for which parameters (held or not).",
    "momentum": "follow each buffer from start[\"momentum\"]: step() reads only a held tensor whose .grad is not None, "
                "and whether the buffer changes depends on whether it and the .grad hold zeros.",
    "changed": "a parameter moves by lr × its buffer after step() updated that buffer: follow whether each buffer "
               "holds zeros.",
    "graph": "mark where each graph is recorded, walked and freed, and whether a step() wrote into the parameters "
             "while it was alive (lesson 04 part 2, section 7).",
}


def _judge_prediction(predict_trace, hidden: bool, columns) -> None:
    for start, body in PREDICT_HIDDEN if hidden else PREDICT_VISIBLE:
        got, want = _call_prediction(predict_trace, start, body), owners.predict(start_of(start), body)
        for n, (g, w) in enumerate(zip(got, want)):
            for column in columns:
                name = _differs(column, g[column], w[column])
                if name is None:
                    continue
                cell = column if name is True else f"{column}[{name!r}]"
                value = (lambda row: row[column]) if name is True else (lambda row: row[column][name])  # noqa: B023
                fail(f"predicting {list(body)} ({STARTS[start][2]}): after statement {n + 1}, `{body[n]}`, your "
                     f"{cell} is {value(g)!r}; running these statements gives {value(w)!r}.",
                     _why(column, body[n], w, want[n - 1] if n else None), _PREDICT_DO[column],
                     code=_COLUMNS[column][1])


@graded("predict_trace")
def predict_trace_grads(predict_trace, hidden: bool = False, *, notes):
    """The grad column predicted: what each parameter's .grad holds after every statement, with nothing run"""
    _judge_prediction(predict_trace, hidden, ("grad",))


@graded("predict_trace")
def predict_trace_optimizer_and_parameters(predict_trace, hidden: bool = False, *, notes):
    """The momentum and changed columns predicted: what step() will write into the optimizer's state and the
    parameters"""
    _judge_prediction(predict_trace, hidden, ("momentum", "changed"))


@graded("predict_trace")
def predict_trace_graph(predict_trace, hidden: bool = False, *, notes):
    """The graph column predicted: after every statement, whether loss.backward() could walk the graph"""
    _judge_prediction(predict_trace, hidden, ("graph",))


def _prepare() -> None:
    """In a warm grading template (``TORCH_LEDGER_TEMPLATE``, see ``autograder/cohort/kernels/template.py``), trace
    every case the checks judge and read every start now, once for every kernel forked from it, before any
    notebook's code has run (each is a function of its case alone, and torch's global RNG is not drawn from).  A
    learner's kernel traces each case when a check first needs it."""
    if not os.environ.get("TORCH_LEDGER_TEMPLATE"):
        return
    try:
        for cases, seed in TRACED.values():
            for start, body in cases:
                reference_trace(start, body, seed)
        for start in STARTS:
            start_of(start)
    except Exception:  # noqa: BLE001 - only a head start: each kernel traces what is missing, and reports a problem
        pass


_prepare()
