"""Checks for module 05-train-vs-eval: two switches, two jobs.

``eval()`` changes what layers do (Dropout stops dropping, BatchNorm uses its
running statistics); ``no_grad()`` stops autograd recording a graph.  The checks
watch every forward pass through the ledger (mode and grad mode), and the
model's parameters and buffers before and after.
"""

from __future__ import annotations

import copy

import torch

from ..core import call, describe, fail, graded, job_not_done
from ..devices import each_device, expect_tensor, manual_seed, plain
from ..hints import hint_for, solution_for
from ..ledger import Ledger
from ..starters import REPAIR_EVALUATE
from ._training import (
    WatchedLoss,
    blobs,
    call_with_batches,
    correct_helper,
    diagnose_kept_graphs,
    diagnose_modes,
    diagnose_update,
    differing,
    expect_float,
    expect_losses,
    loader,
    make_loss,
    make_model,
    make_optimizer,
    mode_changed,
    ref_epoch_losses,
    ref_evaluate,
    ref_step,
    snapshot,
)


def _trained(seed, device, kind="batchnorm", steps=15):
    """A model with some training behind it, so its BatchNorm statistics and outputs are not trivial."""
    model = make_model(kind, seed, device)
    opt = make_optimizer("adam", model.parameters())
    loss_fn = make_loss("bce")
    x, y = blobs(64, seed + 40, device)
    model.train()
    for _ in range(steps):
        ref_step(model, x, y, opt, loss_fn)
    for p in model.parameters():
        p.grad = None
    return model


# --------------------------------------------------------------------------
# evaluate


@graded("evaluate")
def evaluate_modes(evaluate, seed: int = 0, n: int = 40, batch_size: int = 16, *, notes):
    """Every forward in eval mode with no graph, and the model's previous mode restored"""
    for device in each_device(notes):
        for start_training in (True, False):
            model = _trained(seed, device)
            model.train(start_training)
            x, y = blobs(n, seed + 1, device)
            data = loader(x, y, batch_size)
            with Ledger(model, loss_fn=make_loss("bce"), submodules=True) as ledger:
                call_with_batches(evaluate, "evaluate", device, model, data, make_loss("bce"), device)
            diagnose_modes(ledger, "evaluate", training=False, grad=None,
                           owner_hint="training (evaluate was handed a model in train mode)", batches=len(data))
            diagnose_modes(ledger, "evaluate", training=None, grad=False, owner_hint="", batches=len(data))
            if model.training != start_training:
                was, now = ("train" if start_training else "eval"), ("train" if model.training else "eval")
                mode_changed("evaluate", was, now, " (the next training epoch would run in the wrong mode)")


@graded("evaluate")
def evaluate_frees_graphs(evaluate, seed: int = 5, n: int = 48, batch_size: int = 8, *, notes):
    """Keeps no batch's graph alive once the next batch runs (a float total, not `total += loss`)"""
    for device in each_device(notes):
        model = _trained(seed, device, kind="dropout", steps=3)
        watched = WatchedLoss(make_loss("bce"))
        x, y = blobs(n, seed + 6, device)
        hook = watched.watch(model)
        data = loader(x, y, batch_size)
        try:
            call_with_batches(evaluate, "evaluate", device, model, data, watched, device)
        finally:
            hook.remove()
        diagnose_kept_graphs(watched, "evaluate", training=False, data=data)


@graded("evaluate")
def evaluate_leaves_state(evaluate, seed: int = 1, n: int = 40, batch_size: int = 8, *, notes):
    """No parameter, BatchNorm buffer or .grad changes"""
    for device in each_device(notes):
        model = _trained(seed, device)
        model.train()
        before = snapshot(model)
        x, y = blobs(n, seed + 2, device)
        data, watched = loader(x, y, batch_size), WatchedLoss(make_loss("bce"))
        out = call_with_batches(evaluate, "evaluate", device, model, data, watched, device)
        changed = differing(before, snapshot(model), atol=0, rtol=0)
        buffers = [c for c in changed if "running" in c or "num_batches" in c]
        if buffers:
            fail(f"evaluate changed the BatchNorm buffers {', '.join(buffers[:3])}.",
                 "BatchNorm was still in train mode, so it kept updating its running statistics from "
                 "validation batches.",
                 "switch the model to eval mode for the evaluation.", code="buffers_changed")
        if changed:
            fail(f"evaluate changed {', '.join(changed[:3])}.", "the model's parameters belong to training.",
                 "evaluation only reads the model: no optimizer step, no in-place writes.", code="params_changed")
        frozen = [n for n, p in model.named_parameters() if not p.requires_grad]  # every one required grad before
        if frozen:
            fail(f"after evaluate, {', '.join(frozen[:3])}{' and others' if len(frozen) > 3 else ''} no longer "
                 "require grad: evaluate turned requires_grad off and left it off.",
                 "the parameters' requires_grad flags belong to training: frozen, the next epoch cannot update them.",
                 "leave the parameters alone; switch recording off for the loop with torch.no_grad() instead.",
                 code="changed_state")
        with_grad = [n for n, p in model.named_parameters() if p.grad is not None]
        if with_grad:
            fail(f"after evaluate, {', '.join(with_grad[:3])} hold a .grad.",
                 "a backward() ran inside the evaluation.", "evaluation computes losses, never gradients.",
                 code="left_grad")
        expect_losses(watched, data, "evaluate", "leaving the model's state as it was")
        if type(out) is not float:
            job_not_done(f"evaluate returned {describe(out)}, not the mean loss as a Python float.",
                         "leaving the model's state as it was", "the value evaluate returns.",
                         "return the mean loss (check.evaluate_value judges it); this check then judges what the "
                         "evaluation left behind.")


@graded("evaluate")
def evaluate_value(evaluate, seed: int = 2, n: int = 50, batch_size: int = 16, *, notes):
    """Returns the mean per-example loss over unequal batches, as a Python float"""
    for device in each_device(notes):
        model = _trained(seed, device)
        model.train()
        twin = copy.deepcopy(model)
        x, y = blobs(n, seed + 3, device)
        data, loss_fn = loader(x, y, batch_size), make_loss("bce")
        out = call_with_batches(evaluate, "evaluate", device, model, data, loss_fn, device)
        got = expect_float(out, "the value evaluate returned", "evaluate")
        _expect_mean_loss(got, twin, data, loss_fn, device, "evaluate",
                          "the model's mode during the forward passes (Dropout and BatchNorm behave differently in "
                          "train mode) or the running total.")


def _expect_mean_loss(got: float, twin, data, loss_fn, device, function: str, owner: str) -> None:
    """``got`` must be the eval-mode mean per-example loss of ``twin`` (an untouched copy) over ``data``."""
    want = ref_evaluate(twin, data, loss_fn, device)
    tol = 1e-4 * max(1.0, abs(want))
    if abs(got - want) <= tol:
        return
    twin.eval()
    with torch.no_grad():
        batch_losses = [loss_fn(twin(a.to(device)), b.to(device)).item() for a, b in data]
    if abs(got - sum(batch_losses) / len(batch_losses)) <= tol:
        fail(f"{function} returned {got:.6g}, the plain mean of the batch losses; the batches have sizes "
             f"{[len(a) for a, _ in data]}.", "the running total of the validation loss.",
             "weight each batch's mean loss by its number of examples, then divide by the total.",
             code="unweighted_mean")
    if len(batch_losses) > 1 and abs(got - batch_losses[-1]) <= tol and abs(batch_losses[-1] - want) > tol:
        fail(f"{function} returned {got:.6g}, the mean loss of the last batch alone (its {len(list(data)[-1][0])} "
             f"examples); the mean per-example loss over all {len(batch_losses)} batches is {want:.6g}.",
             "the value returned: the loss of the loop's last batch, not the running total over every batch.",
             "return the running total divided by the number of examples, once the loop has seen every batch.",
             code="last_batch_only")
    fail(f"{function} returned {got:.6g}; the mean per-example loss of the model in eval mode is {want:.6g}.", owner,
         "evaluate in eval mode and average `loss.item() * len(x)` over all examples.", code="wrong_value")


# --------------------------------------------------------------------------
# accuracy


@graded("accuracy")
def accuracy_value(accuracy, seed: int = 3, n: int = 45, batch_size: int = 16, *, notes):
    """Fraction of correct 0/1 predictions from logits, in eval mode, over unequal batches"""
    for device in each_device(notes):
        model = _trained(seed, device, kind="dropout", steps=8)
        model.train()
        twin = copy.deepcopy(model).eval()
        x, y = blobs(n, seed + 4, device)
        data = loader(x, y, batch_size)
        with Ledger(model, submodules=False) as ledger:
            out = call_with_batches(accuracy, "accuracy", device, model, data, device)
        restored = model.training
        got = expect_float(out, "the value accuracy returned", "accuracy")
        with torch.no_grad():
            logits = twin(x)  # (n, 1)
        want = ((logits > 0).float() == y).float().mean().item()
        if abs(got - want) <= 1e-6:
            if not restored:
                mode_changed("accuracy", "train", "eval", " (a training loop that measures accuracy between "
                              "epochs would go on training in eval mode)")
            continue
        if abs(got - 100 * want) <= 1e-4 and got > 1:
            fail(f"accuracy returned {got:g}, a percentage.", "the value accuracy reported.",
                 "return the fraction of correct predictions, between 0 and 1 (do not multiply by 100).",
                 code="percentage_not_fraction")
        for raw in (logits, torch.sigmoid(logits)):
            never = (raw == y).float().mean().item()
            if abs(got - never) <= 1e-6 and abs(never - want) > 1e-6:
                fail(f"accuracy returned {got:.4g}: the model's raw outputs were compared with the 0/1 labels, "
                     "without turning them into 0/1 predictions first.",
                     "the model outputs logits (real numbers), which almost never equal a label exactly.",
                     "threshold first: a prediction is 1 where the logit is above 0, else 0; then compare with the "
                     "labels.", code="never_thresholded")
        at_half = ((logits > 0.5).float() == y).float().mean().item()
        if 1.5 <= got <= n + 0.5 and abs(got - want * n) < 0.5:
            fail(f"accuracy returned {got:g}, a count of correct predictions.", "the value accuracy reported.",
                 "divide by the number of examples to get a fraction between 0 and 1.", code="count_not_fraction")
        if abs(got - at_half) <= 1e-6 and abs(at_half - want) > 1e-6:
            fail(f"accuracy returned {got:.4g}: the logits were compared with 0.5 as if they were probabilities.",
                 "the model outputs logits; a logit of 0 is the probability 0.5.",
                 "threshold the logits at 0 (or the sigmoid of the logits at 0.5).", code="threshold_on_logits")
        correct = count = 0
        per_batch = []
        with torch.no_grad():
            for xb, yb in data:
                per_batch.append(((twin(xb.to(device)) > 0).float() == yb.to(device)).float().mean().item())
                flat = (twin(xb.to(device)) > 0).float().reshape(-1)  # [B] against labels [B, 1]: [B, B]
                correct += (flat == yb.to(device)).sum().item()
                count += yb.numel()
        if abs(got - correct / count) <= 1e-6 and abs(correct / count - want) > 1e-6:
            fail(f"accuracy returned {got:.4g}: predictions of shape [B] were compared with labels of shape [B, 1], "
                 "which broadcasts to a [B, B] table that compares every prediction with every label.",
                 "the shapes in the comparison: the predictions lost their column (a squeeze, a view(-1) or an "
                 "argmax), the labels kept theirs.",
                 "give both the same shape before comparing (keep predictions [B, 1], or reshape the labels to [B]).",
                 code="compared_broadcast")
        unweighted = sum(per_batch) / len(per_batch)
        if abs(got - unweighted) <= 1e-6 and abs(unweighted - want) > 1e-6:
            fail(f"accuracy returned {got:.4g}, the plain mean of the batch accuracies; the batches have sizes "
                 f"{[len(a) for a, _ in data]}, and the fraction correct over all examples is {want:.4g}.",
                 "the counting: a smaller last batch weighs as much as a full one in a mean of batch accuracies.",
                 "count correct predictions and examples over all batches, then divide once.",
                 code="unweighted_mean")
        all_one = (y == 1).float().mean().item()
        if abs(got - all_one) <= 1e-6 and abs(all_one - want) > 1e-6:
            fail(f"accuracy returned {got:.4g}, the fraction of labels that are 1: every prediction was 1; the model "
                 f"in eval mode gets {want:.4g} right.",
                 "the threshold: every output passed it (a probability from the sigmoid compared with 0 is always "
                 "above it).",
                 "predict 1 where the logit is above 0 (equivalently, where the sigmoid is above 0.5).",
                 code="wrong_threshold")
        all_zero = (y == 0).float().mean().item()
        if abs(got - all_zero) <= 1e-6 and abs(all_zero - want) > 1e-6:
            fail(f"accuracy returned {got:.4g}, the fraction of labels that are 0: every prediction was 0; the model "
                 f"in eval mode gets {want:.4g} right.",
                 "the step from logits to predictions: the model outputs one logit column (shape [N, 1]), and argmax "
                 "over a dimension of size 1 always picks index 0, whatever the logit says.",
                 "for one binary logit, predict 1 where the logit is above 0 and 0 elsewhere (argmax is for one "
                 "logit per class).", code="argmax_one_column")
        modes = [e.data["training"] for e in ledger.of("forward")]
        if modes and any(modes):
            fail(f"accuracy returned {got:.4g}; the model in eval mode gets {want:.4g} right on these batches, and "
                 f"{sum(modes)} of accuracy's {len(modes)} forward passes ran in train mode.",
                 "the model's mode during prediction: in train mode Dropout drops units, so the predictions are "
                 "not the model's.", "call model.eval() before predicting (and restore the mode afterwards).",
                 code="wrong_mode")
        fail(f"accuracy returned {got:.4g}; the model in eval mode gets {want:.4g} right on these batches"
             + (", and every forward pass of accuracy ran in eval mode." if modes else "."),
             "the step from logits to a fraction: the threshold, the comparison with the labels, or the counting.",
             "predict 1 where the logit is above 0, compare with labels of the same shape, count the matches over "
             "all examples and divide by their number.", code="wrong_value")


# --------------------------------------------------------------------------
# predict_proba


@graded("predict_proba")
def predict_proba_values(predict_proba, seed: int = 4, n: int = 12, *, notes):
    """Sigmoid probabilities of the eval-mode model, identical across calls, with no history"""
    for device in each_device(notes):
        model = _trained(seed, device, kind="dropout", steps=5)
        model.train()
        twin = copy.deepcopy(model).eval()
        x, _ = blobs(n, seed + 5, device)
        with Ledger(model, submodules=False) as ledger:
            first = call(predict_proba, model, x)
            restored = model.training
            second = call(predict_proba, model, x)
        modes = [e.data["training"] for e in ledger.of("forward")]
        what = f"predict_proba(model, x of shape {list(x.shape)})"
        expect_tensor(first, what, "the probabilities predict_proba returned.", shape=(n, 1), dtype=torch.float32,
                      device=device)
        expect_tensor(second, what, "the probabilities predict_proba returned.", shape=(n, 1))
        if first.grad_fn is not None or first.requires_grad:
            fail(f"{what} returned a tensor that requires grad (it carries an autograd graph).",
                 "autograd recorded the prediction's graph and the result still holds it.",
                 "predict under torch.no_grad() (or return a detached tensor).", code="has_history")
        with torch.no_grad():
            logits = plain(twin(x))
        got = plain(first)
        if not torch.equal(got, plain(second)):
            if any(modes):
                fail(f"two calls of {what} on the same input gave different probabilities; {sum(modes)} of the "
                     f"{len(modes)} forward passes ran with the model in train mode.",
                     "the model's mode: in train mode Dropout draws new masks on every call.",
                     "call model.eval() before predicting (and restore the caller's mode afterwards).",
                     code="dropout_active")
            fail(f"two calls of {what} on the same input gave different probabilities, although every forward pass "
                 "ran with the model in eval mode.",
                 "something random besides the model's mode: a random draw in predict_proba itself, or dropout "
                 "applied outside the model (F.dropout with training=True).",
                 "compute the probabilities from the eval-mode model's output alone.", code="nondeterministic")
        if torch.allclose(got, logits, atol=1e-6):
            fail(f"{what} returned the raw logits (values outside [0, 1] are possible).",
                 "the model's output is a logit, not a probability.", "turn logits into probabilities.",
                 code="returns_logits")
        if torch.allclose(got, torch.ones_like(got)):
            fail(f"{what} returned 1.0 for every example.",
                 "softmax over a single output column always gives 1.",
                 "use the sigmoid for one binary logit.", code="softmax_one_output")
        if not torch.allclose(got, torch.sigmoid(logits), atol=1e-5):
            fail(f"{what} differs from the probabilities of the model in eval mode by up to "
                 f"{float((got - torch.sigmoid(logits)).abs().max()):.3g}.",
                 "the model's mode during prediction, or the function applied to the logits.",
                 "predict in eval mode and apply the sigmoid to the logits.", code="wrong_value")
        if not restored:
            mode_changed("predict_proba", "train", "eval")


# --------------------------------------------------------------------------
# fit


def _fit_problem(seed, device, n_train=44, n_val=30, batch_size=16):  # unequal last batches
    model = make_model("batchnorm", seed, device)
    opt = make_optimizer("adam", model.parameters())
    x, y = blobs(n_train, seed + 6, device)
    xv, yv = blobs(n_val, seed + 7, device)
    return model, opt, (x, y, batch_size), (xv, yv, batch_size)


def _with_course_evaluate(fit):
    """While ``fit`` runs, the name ``evaluate`` in its notebook means the exercise's correct one (no_grad, eval,
    mode restored), so that a wrong ``evaluate`` costs points in its own cells only."""
    return correct_helper(fit, "evaluate", ref_evaluate)


@graded("fit")
def fit_modes(fit, seed: int = 5, epochs: int = 3, *, notes):
    """Trains in train mode every epoch (after each validation) and validates in eval mode with no graph"""
    for device in each_device(notes):
        model, opt, (x, y, bs), (xv, yv, vbs) = _fit_problem(seed, device)
        model.eval()  # handed over in eval mode, as a model loaded for inference comes: fit sets the mode it trains in
        loss_fn = make_loss("bce")
        train_data = loader(x, y, bs, shuffle=True, seed=seed)
        with Ledger(model, opt, loss_fn=loss_fn, submodules=True) as ledger, _with_course_evaluate(fit):
            call_with_batches(fit, "fit", device, model, train_data, loader(xv, yv, vbs), opt, loss_fn, epochs, device)
        forwards = ledger.of("forward")
        training = [e for e in forwards if e.data["grad_enabled"]]
        validating = [e for e in forwards if not e.data["grad_enabled"]]
        if len(ledger.of("step")) != epochs * len(train_data):
            fail(f"fit made {len(ledger.of('step'))} optimizer steps for {epochs} epochs of {len(train_data)} "
                 "batches.", "the training loop inside fit.", "step once per training batch, every epoch.",
                 code="wrong_step_count")
        if not validating:
            fail("no forward pass in fit ran without gradient recording: validation recorded a graph "
                 "(or did not run).", "autograd kept graphs that validation never uses.",
                 "run the validation loop under torch.no_grad().", code="graph_recorded")
        late = [e for e in training if not e.data["training"]]
        if late:
            after_eval = any(v.index < late[0].index for v in validating)
            seen = ("after the first validation, training forwards ran in eval mode: the model never returned to "
                    "training mode." if after_eval else "training forwards ran in eval mode.")
            fail(seen, "the model owns its mode; the validation switched it to eval and nothing switched it back.",
                 "call model.train() at the start of every epoch (or restore the mode after evaluating).",
                 code="stuck_in_eval")
        bad_val = [e for e in validating if e.data["training"]]
        if bad_val:
            fail("validation forwards ran in train mode.",
                 "Dropout and BatchNorm kept their training behaviour during validation.",
                 "switch the model to eval mode for validation.", code="validation_in_train_mode")


@graded("fit")
def fit_history(fit, seed: int = 6, epochs: int = 3, *, notes):
    """Returns {"train_loss": [...], "val_loss": [...]}: one float per epoch, as a correct loop gives"""
    for device in each_device(notes):
        model, opt, (x, y, bs), (xv, yv, vbs) = _fit_problem(seed, device)
        twin = copy.deepcopy(model)
        twin_opt = type(opt)(twin.parameters(), **opt.defaults)
        loss_fn = make_loss("bce")
        manual_seed(seed + 200)
        with _with_course_evaluate(fit), Ledger(model, opt, loss_fn=loss_fn) as ledger:
            out = call_with_batches(fit, "fit", device, model, loader(x, y, bs, shuffle=True, seed=seed),
                                    loader(xv, yv, vbs), opt, loss_fn, epochs, device)
        if not isinstance(out, dict) or not {"train_loss", "val_loss"} <= set(out):
            fail(f"fit returned {describe(out)}.", "the history fit builds.",
                 'return a dict with the keys "train_loss" and "val_loss".', code="not_a_history")
        if ledger.of("step"):  # the hand-off of .grad between updates, read from the run itself
            diagnose_update(ledger, "fit", steps_expected=len(ledger.of("step")))
        for key in ("train_loss", "val_loss"):
            values = out[key]
            if not isinstance(values, list) or len(values) != epochs:
                fail(f'fit(..., epochs={epochs})["{key}"] is {describe(values)}.', "the history fit builds.",
                     f"append one float per epoch to {key}.", code="wrong_length")
            for v in values:
                expect_float(v, f'an entry of fit(...)["{key}"]', "fit")
        manual_seed(seed + 200)
        train_data, val_data = loader(x, y, bs, shuffle=True, seed=seed), loader(xv, yv, vbs)
        want_train, want_val, unweighted = [], [], []
        for _ in range(epochs):
            batches = ref_epoch_losses(twin, train_data, twin_opt, loss_fn, device)
            want_train.append(sum(v * n for v, n in batches) / sum(n for _, n in batches))
            unweighted.append(sum(v for v, _ in batches) / len(batches))
            want_val.append(ref_evaluate(twin, val_data, loss_fn, device))
        for key, want in (("train_loss", want_train), ("val_loss", want_val)):
            got = out[key]
            bad = [i for i, (a, b) in enumerate(zip(got, want)) if abs(a - b) > 1e-4 * max(1.0, abs(b))]
            if bad and key == "train_loss" and all(abs(a - b) <= 1e-5 * max(1.0, abs(b))
                                                   for a, b in zip(got, unweighted)):
                fail(f'fit(...)["train_loss"] is the plain mean of the batch losses ({got[bad[0]]:.6g} for epoch '
                     f"{bad[0]}); the batches have different sizes, so the per-example mean is "
                     f"{want[bad[0]]:.6g}.",
                     "the epoch total: every batch counted the same, so the last, smaller batch weighed as much as "
                     "a full one.", "add `loss.item() * len(x)` per batch and divide by the number of examples.",
                     code="unweighted_mean")
            if bad:
                i = bad[0]
                fail(f'fit(...)["{key}"][{i}] is {got[i]:.6g}; a correct loop gives {want[i]:.6g} for epoch {i}.',
                     "the epoch's mean per-example loss" + (" on the training batches (taken before each update)."
                                                            if key == "train_loss" else
                                                            " on the validation set, in eval mode."),
                     "average `loss.item() * len(x)` over every example of the epoch; validate after training "
                     "each epoch.", code=f"wrong_{key}")


# --------------------------------------------------------------------------
# repair_evaluate: a colleague's validation loop, released with silent bugs; one check part per owner


@graded("repair_evaluate", starter=REPAIR_EVALUATE)
def repair_evaluate_mode(repair_evaluate, seed: int = 0, n: int = 40, batch_size: int = 16, *, notes):
    """Every forward in eval mode (Dropout off, BatchNorm on running statistics), the caller's mode handed back"""
    for device in each_device(notes):
        for start_training in (True, False):
            model = _trained(seed, device)
            model.train(start_training)
            before = snapshot(model)
            x, y = blobs(n, seed + 1, device)
            data = loader(x, y, batch_size)
            with Ledger(model, loss_fn=make_loss("bce"), submodules=True) as ledger:
                call_with_batches(repair_evaluate, "repair_evaluate", device, model, data, make_loss("bce"), device)
            diagnose_modes(ledger, "repair_evaluate", training=False, grad=None,
                           owner_hint="training (it was handed a model in train mode, so Dropout made two "
                           "calls give two different numbers)", batches=len(data))
            moved = [c for c in differing(before, snapshot(model), atol=0, rtol=0) if "running" in c]
            if moved:
                fail(f"repair_evaluate changed the BatchNorm buffers {', '.join(moved[:3])}.",
                     "BatchNorm updated its running statistics from validation batches.",
                     "evaluate with the model in eval mode.", code="buffers_changed")
            if model.training != start_training:
                was, now = ("train" if start_training else "eval"), ("train" if model.training else "eval")
                mode_changed("repair_evaluate", was, now, " (the next training epoch would run in the wrong mode)")


@graded("repair_evaluate", starter=REPAIR_EVALUATE)
def repair_evaluate_no_graph(repair_evaluate, seed: int = 5, n: int = 48, batch_size: int = 8, *, notes):
    """Records no autograd graph, so no batch's graph outlives it"""
    for device in each_device(notes):
        model = make_model("mlp", seed, device)  # no Dropout or BatchNorm: the mode does not matter here
        watched = WatchedLoss(make_loss("bce"))
        x, y = blobs(n, seed + 6, device)
        hook = watched.watch(model)
        data = loader(x, y, batch_size)
        try:
            with Ledger(model, loss_fn=make_loss("bce"), submodules=True) as ledger:
                call_with_batches(repair_evaluate, "repair_evaluate", device, model, data, watched, device)
        finally:
            hook.remove()
        diagnose_kept_graphs(watched, "repair_evaluate", training=False, data=data)
        diagnose_modes(ledger, "repair_evaluate", training=None, grad=False, owner_hint="", batches=len(data))


@graded("repair_evaluate", starter=REPAIR_EVALUATE)
def repair_evaluate_value(repair_evaluate, seed: int = 2, n: int = 50, batch_size: int = 16, *, notes):
    """Returns the mean per-example loss over unequal batches, as a Python float"""
    for device in each_device(notes):
        model = make_model("mlp", seed, device)  # no Dropout or BatchNorm: the mode does not change the value
        x, y = blobs(n, seed + 3, device)
        data, loss_fn = loader(x, y, batch_size), make_loss("bce")
        out = call_with_batches(repair_evaluate, "repair_evaluate", device, model, data, loss_fn, device)
        got = expect_float(out, "the value repair_evaluate returned", "repair_evaluate")
        _expect_mean_loss(got, model, data, loss_fn, device, "repair_evaluate",
                          "the running total of the validation loss.")


# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)
