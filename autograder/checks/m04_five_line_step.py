"""Checks for module 04-five-line-step: the order is not arbitrary.

The learner's loop runs under a :class:`~autograder.ledger.Ledger`; the checks
judge it by what happened, in order (clean ``.grad`` before each backward, one
step after it), and then compare the parameters with the check's own correct
update.
"""

from __future__ import annotations

import copy
import functools

import torch

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
            with Ledger(model, opt, loss_fn=loss_fn) as ledger:
                call(train_step, model, x, y, opt, loss_fn)
            diagnose_update(ledger, "train_step")
            ref_step(ref_model, x, y, ref_opt, loss_fn)
            wrong = differing(snapshot(model), snapshot(ref_model))
            if wrong:
                fail(f"after call {i + 1} of train_step on {device}, {', '.join(wrong[:3])} differ from one correct "
                     "update with that batch.", WRONG_UPDATE_OWNER,
                     "use the optimizer you were given, on the loss of exactly (x, y), once per call.",
                     code="wrong_update")


@graded("train_step")
def train_step_returns_loss(train_step, seed: int = 1, n: int = 24, loss: str = "bce", *, notes):
    """Returns this batch's loss, before the update, as a Python float"""
    for device in each_device(notes):
        model, opt, loss_fn = _setup(seed, device, loss=loss)
        for i in range(2):
            x, y = blobs(n, seed * 5 + i, device)
            with torch.no_grad():
                before = loss_fn(model(x), y).item()
            out = call(train_step, model, x, y, opt, loss_fn)
            got = expect_float(out, "the value train_step returned", "train_step")
            with torch.no_grad():
                after = loss_fn(model(x), y).item()
            if abs(got - before) > 1e-4 * max(1.0, abs(before)) and abs(got - after) <= 1e-5 * max(1.0, abs(after)):
                fail("train_step returned the loss measured after the update.",
                     "the loss you returned came from a second forward pass with the new parameters.",
                     "return the loss of the forward pass that produced this update's gradients.",
                     code="loss_after_update")
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
        manual_seed(seed + 100)
        ref_model.train()
        losses, sizes = [], []
        for xb, yb in data:
            xb, yb = xb.to(device), yb.to(device)
            losses.append(ref_step(ref_model, xb, yb, ref_opt, loss_fn))
            sizes.append(len(xb))
        got = expect_float(out, "the value train_epoch returned", "train_epoch")
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
            with Ledger(model, opt, loss_fn=loss_fn) as ledger:
                call(accumulate_step, model, list(micro), opt, loss_fn)
            diagnose_update(ledger, "accumulate_step", micro_batches=k)
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
# trace_loop: the learner predicts, line by line, what each owner holds

ZERO_GRAD = "optimizer.zero_grad()"
ZERO_FILL = "optimizer.zero_grad(set_to_none=False)"
FORWARD = "loss = loss_fn(model(x), y)"
BACKWARD = "loss.backward()"
STEP = "optimizer.step()"
ODD = "if i % 2 == 1: "
STATEMENTS = (ZERO_GRAD, ZERO_FILL, FORWARD, BACKWARD, STEP)
GRAD_STATES = ("none", "zero", "this_batch", "earlier_batch", "accumulated")

#: The loops the visible check traces; hidden tests trace others (and more iterations).
VISIBLE_BODIES = (
    (ZERO_GRAD, FORWARD, BACKWARD, STEP),
    (FORWARD, BACKWARD, STEP),
    (FORWARD, BACKWARD, ZERO_GRAD, STEP),
    (ZERO_GRAD, FORWARD, STEP, BACKWARD),
    (ZERO_FILL, FORWARD, BACKWARD, STEP),
    (FORWARD, BACKWARD, ZERO_FILL, STEP),
    (FORWARD, ZERO_GRAD, BACKWARD, STEP),
    (FORWARD, BACKWARD, ODD + STEP, ODD + ZERO_GRAD),
)
HIDDEN_BODIES = (
    (FORWARD, FORWARD, BACKWARD, STEP, ZERO_GRAD),
    (ZERO_GRAD, FORWARD, ODD + BACKWARD, STEP),
    (FORWARD, BACKWARD, FORWARD, STEP),
    (ZERO_FILL, FORWARD, BACKWARD, ODD + STEP),
    (FORWARD, BACKWARD, ODD + ZERO_FILL, ODD + STEP),
    (FORWARD, BACKWARD, STEP, ODD + ZERO_GRAD, FORWARD),
)


def _grad_state(held, i: int) -> str:
    """What ``.grad`` holds, named from the batches whose gradients are in it (None: no tensor at all)."""
    if held is None:
        return "none"
    if not held:
        return "zero"
    if len(held) > 1:
        return "accumulated"
    return "this_batch" if held[0] == i else "earlier_batch"


def reference_trace(body, iterations: int, seed: int = 0, device: str = "cpu") -> list[dict]:
    """Run ``for i, (x, y) in enumerate(loader): <body>`` for real on a small model with plain SGD, and read the
    owners after every statement: each parameter's ``.grad`` (named by the batches whose gradients it sums,
    which are checked against the real tensors), whether the weights changed, whether ``loss`` holds a graph.

    The rows depend on the arguments alone, and the trace checks ask for each body once per column: a body
    runs once per process and its rows are copied out to every caller.  Each call leaves torch's global RNG
    as the run does: seeded with ``seed``, then advanced past the model's initialisation."""
    rows, rng_after = _run_trace(tuple(body), iterations, seed, device)
    manual_seed(seed)
    torch.set_rng_state(rng_after)
    return copy.deepcopy(rows)


@functools.lru_cache(maxsize=64)
def _run_trace(body: tuple, iterations: int, seed: int, device: str) -> tuple[list[dict], torch.Tensor]:
    """:func:`reference_trace`'s rows, and torch's CPU RNG state once they were made."""
    manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = torch.nn.MSELoss()
    g = generator(seed + 1)
    batches = [(torch.randn(5, 3, generator=g).to(device), torch.randn(5, 1, generator=g).to(device))
               for _ in range(iterations)]
    params = list(model.parameters())
    held, graph, loss, expected = None, None, None, []
    for i, (x, y) in enumerate(batches):
        for line in body:
            statement, runs = (line[len(ODD):], i % 2 == 1) if line.startswith(ODD) else (line, True)
            before = [p.detach().clone() for p in params]
            if runs:
                if statement == ZERO_GRAD:
                    optimizer.zero_grad()
                    held = None
                elif statement == ZERO_FILL:
                    optimizer.zero_grad(set_to_none=False)
                    held = None if held is None else []
                elif statement == FORWARD:
                    loss, graph = loss_fn(model(x), y), i
                elif statement == BACKWARD:
                    loss.backward()
                    held, graph = (held or []) + [graph], None
                elif statement == STEP:
                    optimizer.step()
                else:  # pragma: no cover - the course's own bodies
                    raise ValueError(f"not a statement of the trace: {line!r}")
            state = _grad_state(held, i)
            real = params[0].grad
            assert (real is None) == (state == "none"), (body, i, line)
            assert state != "zero" or not real.any(), (body, i, line)
            expected.append({"grad": state, "held": None if held is None else list(held),
                             "weights_changed": any(not torch.equal(b, p) for b, p in zip(before, params)),
                             "graph_alive": graph is not None})
    return expected, torch.get_rng_state()


def _holds(state: str, held, i: int) -> str:
    if state == "none":
        return "no tensor at all (None)"
    if state == "zero":
        return "a tensor of zeros"
    batches = " and ".join(f"batch {k + 1}" for k in held)
    if state == "accumulated":
        return f"the sum of the gradients of {batches} ('accumulated')"
    return f"the gradient of {batches} alone" + (" ('this_batch')" if state == "this_batch" else
                                                  f", not of this iteration's batch {i + 1} ('earlier_batch')")


def _why_grad(statement: str, runs: bool, want: dict, before) -> str:
    """The owners' reason for the state .grad is in after ``statement``."""
    if not runs:
        return "the condition was false in this iteration, so the statement did nothing and .grad kept its state."
    if statement == ZERO_GRAD:
        return "zero_grad() sets every parameter's .grad to None (set_to_none is its default)."
    if statement == ZERO_FILL:
        return ("zero_grad(set_to_none=False) fills an existing .grad with zeros, and leaves a .grad that is None "
                "as None.")
    if statement == BACKWARD:
        return ("backward() adds the gradient of the loss it was called on into each parameter's .grad; "
                "only zero_grad() empties .grad, so whatever was there stays in the sum, and the loss "
                "belongs to the batch its forward pass ran on.")
    if statement == FORWARD:
        return "a forward pass records a graph; it does not touch .grad."
    return "step() reads .grad to update the weights; it does not change .grad."


def _why_weights(statement: str, runs: bool, want: dict, before_state: str) -> str:
    if not runs:
        return "the condition was false, so nothing ran."
    if statement != STEP:
        return "only the optimizer's step() writes into the weights."
    if before_state == "none":
        return "step() skips a parameter whose .grad is None: there was nothing to apply."
    if before_state == "zero":
        return "plain SGD moves each weight by the learning rate times its .grad, and .grad was all zeros."
    return "step() moved each weight by the learning rate times the .grad it held."


def _why_graph(statement: str, runs: bool, want: dict) -> str:
    if not runs:
        return "the condition was false, so nothing ran."
    if statement == FORWARD:
        return "the forward pass recorded a new graph for this batch, and `loss` holds it."
    if statement == BACKWARD:
        return "backward() walks the graph once and frees it (there is no retain_graph here)."
    return "this statement neither records nor frees a graph: `loss` keeps what it held."


def _call_trace(trace_loop, body, iterations):
    out = call(trace_loop, list(body), iterations)
    where = f"trace_loop({list(body)}, {iterations})"
    rows = len(body) * iterations
    if out is None:
        job_not_done(f"{where} returned None.", "nothing", "the trace trace_loop returns.",
                     f"return a list of {rows} dictionaries, one per statement run, in order.")
    if not isinstance(out, (list, tuple)):
        fail(f"{where} returned {describe(out)}, not a list.", "the trace: one row per statement run, in order.",
             f"return a list of {rows} dictionaries.", code="not_a_list")
    if len(out) != rows:
        fail(f"{where} returned {len(out)} rows; {len(body)} statements run {iterations} times make {rows}.",
             "the trace: one row after every statement the loop runs (a statement whose condition is false "
             "still gets its row).", f"return exactly {rows} rows, in the order the statements run.",
             code="wrong_length")
    for n, row in enumerate(out):
        if not isinstance(row, dict) or not {"grad", "weights_changed", "graph_alive"} <= set(row):
            fail(f"{where}: row {n} is {describe(row)}.", "the trace's rows: each one a dictionary with the keys "
                 "'grad', 'weights_changed' and 'graph_alive'.", "give every row those three keys.",
                 code="wrong_keys")
        if row["grad"] not in GRAD_STATES:
            fail(f"{where}: row {n} has grad={row['grad']!r}.", "the trace's grad column: one of "
                 f"{', '.join(map(repr, GRAD_STATES))}.", "use exactly those names.", code="wrong_keys")
    return out


def _first_wrong(trace_loop, bodies, iterations, column: str):
    """The first row (of any body) whose ``column`` differs from the reference, with how many rows differ."""
    for body in bodies:
        out = _call_trace(trace_loop, body, iterations)
        want = reference_trace(body, iterations)
        wrong = [n for n, (got, exp) in enumerate(zip(out, want)) if got[column] != exp[column]]
        if wrong:
            return body, out, want, wrong
    return None


def _row_text(body, n: int) -> tuple[str, str, bool, int]:
    i, line = divmod(n, len(body))
    statement = body[line]
    runs = not statement.startswith(ODD) or i % 2 == 1
    return f"iteration {i + 1} (i = {i}), `{statement}`", statement.removeprefix(ODD), runs, i


@graded("trace_loop")
def trace_loop_grads(trace_loop, iterations: int = 3, hidden: bool = False, *, notes):
    """The grad column: what every parameter's .grad holds after each statement."""
    found = _first_wrong(trace_loop, HIDDEN_BODIES if hidden else VISIBLE_BODIES, iterations, "grad")
    if found:
        body, out, want, wrong = found
        n = wrong[0]
        where, statement, runs, i = _row_text(body, n)
        exp = want[n]
        previous = want[n - 1]["grad"] if n else "none"
        fail(f"tracing the loop body {list(body)} over {iterations} batches, {len(wrong)} row(s) of the grad "
             f"column differ; the first: after {where} you said {out[n]['grad']!r}, and .grad holds "
             f"{_holds(exp['grad'], exp['held'], i)}.",
             f"each parameter's .grad: before this statement it was {previous!r}; "
             + _why_grad(statement, runs, exp, previous),
             "follow .grad from the start of the loop, statement by statement: only zero_grad() empties it, only "
             "backward() adds to it, and a loss belongs to the batch of the forward pass that made it. Run the "
             "loop and look, if it helps.", code="trace_wrong_grad")


@graded("trace_loop")
def trace_loop_weights_and_graph(trace_loop, iterations: int = 3, hidden: bool = False, *, notes):
    """The weights_changed and graph_alive columns: which statement moved the weights, and when a graph is alive."""
    bodies = HIDDEN_BODIES if hidden else VISIBLE_BODIES
    found = _first_wrong(trace_loop, bodies, iterations, "weights_changed")
    if found:
        body, out, want, wrong = found
        n = wrong[0]
        where, statement, runs, _ = _row_text(body, n)
        before = want[n - 1]["grad"] if n else "none"
        fail(f"tracing {list(body)}, {len(wrong)} row(s) of weights_changed differ; the first: after {where} you "
             f"said {out[n]['weights_changed']}, and the weights {'changed' if want[n]['weights_changed'] else 'did not change'}.",
             "the parameters' values, which the optimizer owns the right to change: "
             + _why_weights(statement, runs, want[n], before),
             "ask of every statement whether it is the optimizer's step, and what .grad held when it ran.",
             code="trace_wrong_weights")
    found = _first_wrong(trace_loop, bodies, iterations, "graph_alive")
    if found:
        body, out, want, wrong = found
        n = wrong[0]
        where, statement, runs, _ = _row_text(body, n)
        fail(f"tracing {list(body)}, {len(wrong)} row(s) of graph_alive differ; the first: after {where} you said "
             f"{out[n]['graph_alive']}, and `loss` {'holds' if want[n]['graph_alive'] else 'holds no'} graph that "
             "backward() could still use.",
             "autograd's graph of the current forward pass: " + _why_graph(statement, runs, want[n]),
             "mark where each graph is recorded and where backward() frees it; the other statements leave it.",
             code="trace_wrong_graph")
