"""Checks for module 06-failure-modes: failures that do not raise.

``make_loaders`` is judged by what its loaders yield (every example carries its
own id), ``lr_sweep``/``pick_lr`` against the check's own sweep, and
``health_check`` by planting each failure in turn (and together) and requiring
exactly the right codes — and no change to the caller's objects — and
``overfit_diagnosis`` on healthy setups (whose batch it must really overfit) and on
setups where one owner (the loss function, the module, the optimizer) stops it.
"""

from __future__ import annotations

import copy
import math
import random
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ..core import call, describe, fail, graded, job_not_done
from ..devices import each_device, manual_seed
from ..hints import hint_for, solution_for
from ..starters import REPAIR_MAKE_LOADERS
from ._training import WatchedLoss, blobs, differing, make_model, snapshot

CODES = ("shape_mismatch", "not_shuffled", "nonfinite_loss", "missing_grad", "eval_mode",
         "untrained_parameters", "device_mismatch")

# --------------------------------------------------------------------------
# make_loaders


def _sorted_dataset(n: int, seed: int) -> TensorDataset:
    """n examples sorted by class; column 0 of x is each example's id."""
    g = torch.Generator().manual_seed(seed)
    y = torch.cat([torch.zeros(n - n // 2), torch.ones(n // 2)]).unsqueeze(1)  # (n, 1), class-sorted
    x = torch.stack([torch.arange(n, dtype=torch.float32), torch.randn(n, generator=g) + 2 * y[:, 0]], dim=1)
    return TensorDataset(x, y)


def _ids(data, name: str = "make_loaders") -> list[int]:
    ids = []
    for batch in data:
        if not isinstance(batch, (tuple, list)) or len(batch) != 2:
            fail(f"a batch from the returned loader is {describe(batch)}.", f"the loader {name} built.",
                 "build the loaders over (a split of) the dataset you were given, so batches are (x, y).",
                 code="bad_batch")
        ids.extend(int(i) for i in batch[0][:, 0].tolist())
    return ids


def _loaders(make_loaders, dataset, batch_size, val_fraction, seed, name: str = "make_loaders"):
    out = call(make_loaders, dataset, batch_size, val_fraction, torch.Generator().manual_seed(seed))
    if not isinstance(out, tuple) or len(out) != 2 or not all(isinstance(d, DataLoader) for d in out):
        fail(f"{name} returned {describe(out)}.", f"the pair {name} returns.",
             "return a tuple (train_loader, val_loader) of torch DataLoaders.", code="not_loaders")
    return out


def _judge_split(make_loaders, name, n, batch_size, val_fraction, seed):
    dataset = _sorted_dataset(n, seed)
    train, val = _loaders(make_loaders, dataset, batch_size, val_fraction, seed, name)
    train_ids, val_ids = _ids(train, name), _ids(val, name)
    overlap = set(train_ids) & set(val_ids)
    if overlap:
        fail(f"the training and the validation loader overlap: {len(overlap)} examples appear in both.",
             "the split: validation examples leaked into training, so validation measures memory, not learning.",
             "split the indices once into two disjoint parts.", code="overlapping_split")
    for label, data, ids, use in (("training", train, train_ids, "trained on"), ("validation", val, val_ids, "measured")):
        if getattr(data, "drop_last", False) and len(ids) < len(data.dataset):
            fail(f"the {label} loader yields {len(ids)} of the {len(data.dataset)} examples of its part of the split.",
                 f"the {label} DataLoader drops its last, incomplete batch (drop_last=True), so those examples are "
                 f"never {use}.", "keep every example in its loader (drop_last=False, the default).",
                 code="drops_examples")
    if len(set(train_ids) | set(val_ids)) != n or len(train_ids) + len(val_ids) != n:
        fail(f"the two loaders hold {len(train_ids)} + {len(val_ids)} examples ({len(set(train_ids) | set(val_ids))} "
             f"distinct) of a dataset of {n}.", "the split.", "put every example in exactly one of the two parts.",
             code="incomplete_split")
    want = n * val_fraction
    if abs(len(val_ids) - want) > 1:
        fail(f"the validation loader holds {len(val_ids)} examples; val_fraction={val_fraction} of {n} is "
             f"{want:g}.", "the split sizes.", "size the validation part from val_fraction.", code="wrong_size")
    labels = dataset.tensors[1][:, 0]
    share = float(labels[torch.tensor(val_ids)].mean()) if val_ids else 0.0
    if not 0.25 <= share <= 0.75:
        fail(f"the dataset is sorted by class and {share:.0%} of the validation examples are of class 1 "
             f"(the whole dataset has 50%).",
             "a split that takes a contiguous slice of a sorted dataset: validation sees mostly one class.",
             "split at random (with the generator), not by position.", code="unrepresentative_split")


def _judge_order(make_loaders, name, n, batch_size, val_fraction, seed):
    train, val = _loaders(make_loaders, _sorted_dataset(n, seed), batch_size, val_fraction, seed, name)
    first, second = _ids(train, name), _ids(train, name)
    if first == second or first == sorted(first):
        fail("two passes over the training loader gave the examples in the same order"
             + (" (sorted, as stored)." if first == sorted(first) else "."),
             "the training loader: without shuffling, a class-sorted dataset gives long runs of one label.",
             "shuffle the training loader.", code="not_shuffled")
    if _ids(val, name) != _ids(val, name):
        fail("two passes over the validation loader gave different orders.",
             "the validation loader is shuffled; validation needs no randomness.",
             "keep the validation loader in a fixed order.", code="val_shuffled")
    sizes = [len(b[0]) for b in train]
    if max(sizes) != batch_size:
        fail(f"the training batches have sizes {sorted(set(sizes))}; batch_size was {batch_size}.",
             "the DataLoader's batch_size.", "pass batch_size to the loaders.", code="wrong_batch_size")


def _judge_reproducible(make_loaders, name, n, seed):
    dataset = _sorted_dataset(n, seed)
    splits = [sorted(_ids(_loaders(make_loaders, dataset, 8, 0.3, s, name)[1], name)) for s in (seed, seed, seed + 1)]
    if splits[0] != splits[1]:
        fail("two calls with generators seeded alike gave different validation sets.",
             "the split drew its randomness from somewhere other than the generator argument.",
             "pass `generator` to the function that splits (random_split or randperm).",
             code="ignores_generator")
    if splits[0] == splits[2]:
        fail(f"generators seeded {seed} and {seed + 1} gave the same validation set.",
             "the split does not depend on the generator it was given.",
             "use the generator argument for the split instead of a fixed seed.", code="fixed_seed")


@graded("make_loaders")
def make_loaders_split(make_loaders, n: int = 200, batch_size: int = 12, val_fraction: float = 0.2,
                       seed: int = 0, *, notes):
    """A disjoint, complete, representative split of a class-sorted dataset"""
    _judge_split(make_loaders, "make_loaders", n, batch_size, val_fraction, seed)


@graded("make_loaders")
def make_loaders_order(make_loaders, n: int = 120, batch_size: int = 10, val_fraction: float = 0.25,
                       seed: int = 1, *, notes):
    """Training batches reshuffled every epoch; validation in one fixed order; batch size respected"""
    _judge_order(make_loaders, "make_loaders", n, batch_size, val_fraction, seed)


@graded("make_loaders")
def make_loaders_reproducible(make_loaders, n: int = 100, seed: int = 2, *, notes):
    """The same generator seed gives the same split; another seed gives another"""
    _judge_reproducible(make_loaders, "make_loaders", n, seed)


# The repair task: a colleague's make_loaders, released with silent bugs; the same three owners, one
# check part each (the split, the loaders' order, the generator).


@graded("repair_make_loaders", starter=REPAIR_MAKE_LOADERS)
def repair_make_loaders_split(repair_make_loaders, n: int = 200, batch_size: int = 12, val_fraction: float = 0.2,
                              seed: int = 0, *, notes):
    """A disjoint, complete, representative split: every example in exactly one loader"""
    _judge_split(repair_make_loaders, "repair_make_loaders", n, batch_size, val_fraction, seed)


@graded("repair_make_loaders", starter=REPAIR_MAKE_LOADERS)
def repair_make_loaders_order(repair_make_loaders, n: int = 120, batch_size: int = 10, val_fraction: float = 0.25,
                              seed: int = 1, *, notes):
    """Training batches reshuffled every epoch; validation in one fixed order; batch size respected"""
    _judge_order(repair_make_loaders, "repair_make_loaders", n, batch_size, val_fraction, seed)


@graded("repair_make_loaders", starter=REPAIR_MAKE_LOADERS)
def repair_make_loaders_reproducible(repair_make_loaders, n: int = 100, seed: int = 2, *, notes):
    """The same generator seed gives the same split; another seed gives another"""
    _judge_reproducible(repair_make_loaders, "repair_make_loaders", n, seed)


# --------------------------------------------------------------------------
# lr_sweep and pick_lr


def _sweep_problem(seed: int):
    x, y = blobs(64, seed + 30, "cpu")
    x = x * 3.0

    def make_model_fn():
        return make_model("mlp", seed, "cpu")

    return make_model_fn, x, y


def _ref_sweep(make_model_fn, x, y, lrs, steps, curves: dict | None = None):
    last, after = {}, {}
    loss_fn = nn.BCEWithLogitsLoss()
    for lr in lrs:
        model = make_model_fn()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        value = float("nan")
        seen = []
        for _ in range(steps):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            value = loss.item()
            seen.append(value)
        with torch.no_grad():
            final = loss_fn(model(x), y).item()
        last[lr] = value if math.isfinite(value) else math.inf
        after[lr] = final if math.isfinite(final) else math.inf
        if curves is not None:
            curves[lr] = seen
    return last, after


def _same(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-4 * max(1.0, abs(b))


@graded("lr_sweep")
def lr_sweep_values(lr_sweep, seed: int = 0, steps: int = 20, *, notes):
    """One fresh model and plain SGD per rate; the final loss per rate, non-finite as inf"""
    lrs = [1e-3, 0.1, 1.0, 100.0]
    make_model_fn, x, y = _sweep_problem(seed)
    built = []

    def counting_factory():
        model = make_model_fn()
        built.append(model)
        return model

    out = call(lr_sweep, counting_factory, x, y, list(lrs), steps)
    if not isinstance(out, dict):
        fail(f"lr_sweep returned {describe(out)}.", "the sweep's results.",
             "return a dict mapping each learning rate to its final loss.", code="not_a_dict")
    if set(out) != set(lrs):
        fail(f"lr_sweep returned keys {sorted(out)} for learning rates {lrs}.", "the sweep's results.",
             "use each learning rate you were given as a key.", code="wrong_keys")
    if len(built) < len(lrs):
        fail(f"lr_sweep called make_model {len(built)} times for {len(lrs)} learning rates.",
             "one model was shared between rates, so each rate started where the previous one stopped.",
             "call make_model() afresh for every learning rate.", code="model_reused")
    for lr, value in out.items():
        if isinstance(value, torch.Tensor) or type(value) is not float:
            fail(f"lr_sweep(...)[{lr}] is {describe(value)}, not a Python float.", "the sweep's results.",
                 "store `loss.item()` (a float), and `float('inf')` for non-finite losses.", code="not_a_float")
        if value != value:
            fail(f"lr_sweep(...)[{lr}] is NaN.",
                 "the loss at that rate diverged and the NaN was recorded as it was; NaN compares false with "
                 "everything, so picking the best rate goes wrong.",
                 "record non-finite losses as float('inf').", code="nan_recorded")
    curves: dict = {}
    last, after = _ref_sweep(make_model_fn, x, y, lrs, steps, curves)
    initial = snapshot(make_model_fn())
    untouched = [model for model in built if not differing(snapshot(model), initial)]
    wrong = [lr for lr in lrs if not (_same(out[lr], last[lr]) or _same(out[lr], after[lr]))]
    if wrong and len(built) >= len(lrs) and untouched:
        fail(f"lr_sweep called make_model {len(built)} times for {len(lrs)} rates, but {len(untouched)} of those models "
             f"ended with the parameters they were built with: no step reached them (lr_sweep(...)[{wrong[0]}] is "
             f"{out[wrong[0]]:.6g}; {steps} steps at that rate end at {last[wrong[0]]:.6g}).",
             "the optimizer: the one that stepped did not hold the parameters of the model being trained at that rate "
             "(an optimizer built once, before the loop, holds the first model's parameters only).",
             "inside the loop, right after model = make_model(), build torch.optim.SGD(model.parameters(), lr=lr).",
             code="optimizer_not_on_model")
    for lr in lrs:
        lowest = min((v for v in curves[lr] if math.isfinite(v)), default=math.nan)
        if lr in wrong and math.isfinite(lowest) and _same(out[lr], lowest) and not _same(lowest, last[lr]):
            fail(f"lr_sweep(...)[{lr}] is {out[lr]:.6g}, the lowest loss of the {steps} steps at that rate; the final "
                 f"one is {last[lr]:.6g}.",
                 "the value recorded per rate: the sweep compares where each rate ends, so a rate that dips and then "
                 "diverges must show its final (or non-finite) loss.",
                 "record the loss of the last step (float('inf') when it is not finite), not the best one seen.",
                 code="best_not_final")
        if lr in wrong:
            fail(f"lr_sweep(...)[{lr}] is {out[lr]:.6g}; {steps} full-batch steps of plain SGD at that rate "
                 f"end at {last[lr]:.6g}.",
                 "the training run for that rate (optimizer, loss function, number of steps or the model).",
                 "for each rate: a fresh model, torch.optim.SGD(params, lr=lr), nn.BCEWithLogitsLoss(), "
                 "`steps` updates on the full (x, y).", code="wrong_value")


def _sweeps(seed: int) -> list[dict]:
    """Sweeps with an infinity, a NaN listed first, and a -inf, built from the seed."""
    rng = random.Random(seed)
    cases = []
    for planted in (math.inf, math.nan, -math.inf):
        lrs = sorted({round(10 ** rng.uniform(-4, 1), 6) for _ in range(5)})
        losses = [round(rng.uniform(0.05, 1.0), 4) for _ in lrs]
        sweep = dict(zip(lrs, losses))
        bad_lr = round(10 ** rng.uniform(1.5, 3), 3)
        cases.append({bad_lr: planted, **sweep} if planted != math.inf else {**sweep, bad_lr: planted})
    return cases


@graded("pick_lr")
def pick_lr_choice(pick_lr, seed: int = 0, *, notes):
    """The learning rate with the lowest finite loss, ignoring NaN and infinities"""
    for sweep in _sweeps(seed):
        out = call(pick_lr, dict(sweep))
        finite = {k: v for k, v in sweep.items() if math.isfinite(v)}
        want = min(finite, key=finite.get)
        if type(out) is not float:
            fail(f"pick_lr returned {describe(out)}.", "the chosen learning rate.", "return the key itself (a float).",
                 code="not_a_float")
        if out != want and out not in sweep:
            losses = [k for k, v in sweep.items() if v == out]
            what = f" but the loss of the rate {losses[0]}" if losses else ""
            fail(f"for the sweep {dict(sweep)}, pick_lr returned {out}, which is not one of the swept rates{what}.",
                 "the chosen learning rate: the sweep measured only its own rates, so any other value (a fraction "
                 "of the best one, as some rate finders suggest, or an average) is a rate nobody tried.",
                 "return the swept rate (a key of the sweep) whose loss is the lowest finite one.",
                 code="not_a_swept_rate")
        if out != want:
            value = sweep.get(out)
            shown = {k: v for k, v in sweep.items()}
            if value is not None and not math.isfinite(value):
                fail(f"for the sweep {shown}, pick_lr chose {out} — a non-finite loss.",
                     "the comparison: NaN compares false with everything and -inf is smaller than any real loss.",
                     "consider only finite losses, then take the rate with the smallest one.", code="picked_nonfinite")
            if value == max(finite.values()):
                fail(f"for the sweep {shown}, pick_lr chose {out}, whose loss {value} is the highest finite one; the "
                     f"lowest is {finite[want]} at {want}.",
                     "the comparison: it kept the largest loss (max, or a comparison the wrong way round).",
                     "take the rate whose finite loss is the lowest (min over the finite entries).",
                     code="wrong_choice")
            fail(f"for the sweep {shown}, pick_lr chose {out}, whose loss is {value}; the lowest finite loss is "
                 f"{finite[want]} at {want}.",
                 "the comparison that picks the rate: it did not select by the lowest finite loss.",
                 "consider only finite losses, then take the rate with the smallest one.", code="wrong_choice")


# --------------------------------------------------------------------------
# health_check


class _Skipper(nn.Module):
    """A model whose forward forgets one of its layers."""

    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 8)
        self.extra = nn.Linear(8, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))  # self.extra never runs


def _setup(seed, device, *, shuffle=True, eval_mode=False, flat_targets=False, nan_inputs=False,
           skip_layer=False, partial_optimizer=False, wrong_device=False, frozen=False, huge_inputs=False):
    manual_seed(seed)
    model = (_Skipper() if skip_layer else make_model("dropout", seed, "cpu")).to(device)
    if frozen:
        for p in list(model.parameters())[:2]:
            p.requires_grad_(False)
    if eval_mode:
        model.eval()
    params = [p for p in model.parameters() if p.requires_grad]
    if partial_optimizer:
        params = params[-2:]
    optimizer = torch.optim.Adam(params, lr=0.01)
    x, y = blobs(48, seed + 50, "cpu")
    if nan_inputs:
        x[::2, 0] = float("nan")  # half the rows: every batch holds some
    if huge_inputs:
        x = x * 1e20  # finite inputs whose squared error overflows float32: an infinite loss, not a NaN
    if flat_targets:
        y = y[:, 0]  # (48,) against logits (48, 1)
    data_device = "meta" if wrong_device and device == "cpu" else ("cpu" if wrong_device else device)
    x, y = x.to(data_device), y.to(data_device)
    g = torch.Generator().manual_seed(seed)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=shuffle, generator=g)
    return model, loader, optimizer, (nn.MSELoss() if huge_inputs else nn.BCEWithLogitsLoss())


PLANTS = {
    "shape_mismatch": ({"flat_targets": True}, "the targets have shape [16] against logits of shape [16, 1]"),
    "not_shuffled": ({"shuffle": False}, "the training loader is not shuffled"),
    "nonfinite_loss": ({"nan_inputs": True}, "one input holds a NaN, so the loss is NaN"),
    "nonfinite_loss (inf)": ({"huge_inputs": True}, "the inputs are of order 1e20, so the squared-error loss is "
                             "inf (not NaN)"),
    "missing_grad": ({"skip_layer": True}, "forward() never uses one trainable layer"),
    "eval_mode": ({"eval_mode": True}, "the model was left in eval mode"),
    "untrained_parameters": ({"partial_optimizer": True}, "the optimizer holds only the last layer"),
    "device_mismatch": ({"wrong_device": True}, "the batches live on another device than the model"),
}


def _codes(health_check, setup, label):
    model, loader, optimizer, loss_fn = setup
    out = call(health_check, model, loader, optimizer, loss_fn)
    if not isinstance(out, (set, frozenset)) or not all(isinstance(c, str) for c in out):
        fail(f"health_check returned {describe(out)} for a setup where {label}.", "the report health_check builds.",
             "return a set of code strings (an empty set when nothing is wrong).", code="not_a_set")
    unknown = set(out) - set(CODES)
    if unknown:
        fail(f"health_check returned codes outside the vocabulary: {sorted(unknown)}.", "the report's codes.",
             f"use only these codes: {', '.join(CODES)}.", code="unknown_code")
    return set(out)


def _judge(got: set, want: set, label: str):
    missing, extra = want - got, got - want
    if missing:
        fail(f"on a setup where {label}, health_check returned {sorted(got) or 'an empty set'}: it missed "
             f"{', '.join(sorted(missing))}.",
             "the part of health_check that inspects that owner (loader, model mode, targets, gradients, "
             "optimizer or devices).",
             "look at that owner's state during the instrumented step and report the code when it is wrong.",
             code=f"missed_{sorted(missing)[0]}")
    if extra:
        fail(f"on a setup where {label}, health_check also reported {', '.join(sorted(extra))}, which is not wrong "
             "there.", "the test behind that code.", "report a code only when its owner really holds the wrong "
             "state (frozen parameters are not 'missing' gradients; they are not trainable).",
             code=f"false_{sorted(extra)[0]}")


@graded("health_check")
def health_check_healthy(health_check, seed: int = 0, *, notes):
    """An empty set on healthy setups (including one with a deliberately frozen layer)"""
    for device in each_device(notes):
        for frozen in (False, True):
            label = "nothing is wrong" + (" (the first layer is frozen on purpose)" if frozen else "")
            _judge(_codes(health_check, _setup(seed, device, frozen=frozen), label), set(), label)


@graded("health_check")
def health_check_each_code(health_check, seed: int = 1, *, notes):
    """Each failure planted alone gives exactly its code"""
    for device in each_device(notes):
        for code, (plant, label) in PLANTS.items():
            _judge(_codes(health_check, _setup(seed, device, **plant), label), {code.split()[0]}, label)


@graded("health_check")
def health_check_combined(health_check, seed: int = 2, *, notes):
    """Several failures planted together give all their codes"""
    combos = [("eval_mode", "not_shuffled", "untrained_parameters"),
              ("shape_mismatch", "eval_mode", "untrained_parameters"), ("missing_grad", "not_shuffled"),
              ("nonfinite_loss", "not_shuffled", "eval_mode"), ("device_mismatch", "eval_mode", "not_shuffled")]
    for device in each_device(notes):
        for combo in combos:
            plant = {k: v for code in combo for k, v in PLANTS[code][0].items()}
            label = "; ".join(PLANTS[code][1] for code in combo)
            _judge(_codes(health_check, _setup(seed, device, **plant), label), set(combo), label)


@graded("health_check")
def health_check_leaves_state(health_check, seed: int = 3, *, notes):
    """No change to the caller's parameters, gradients, mode, optimizer state or loader"""
    for device in each_device(notes):
        for plant in ({}, {"eval_mode": True}):
            model, loader, optimizer, loss_fn = _setup(seed, device, **plant)
            for p in model.parameters():  # the caller holds gradients of its own (mid-accumulation, say)
                p.grad = torch.full_like(p, 0.5)
            held = {n: p.grad.clone() for n, p in model.named_parameters()}
            before = snapshot(model)
            mode = model.training
            dataset, sampler, batch_size = loader.dataset, type(loader.sampler), loader.batch_size
            watched = WatchedLoss(loss_fn)
            cleared_by = []
            zero_grad = optimizer.zero_grad

            def recording_zero_grad(*args, cleared_by=cleared_by, zero_grad=zero_grad, **kwargs):
                cleared_by.append("optimizer.zero_grad()")
                return zero_grad(*args, **kwargs)

            optimizer.zero_grad = recording_zero_grad
            try:
                out = call(health_check, model, loader, optimizer, watched)
            finally:
                del optimizer.zero_grad
            changed = [n for n, t in snapshot(model).items() if not torch.equal(t, before[n])]
            if changed:
                fail(f"after health_check, {', '.join(changed[:3])} changed.",
                     "health_check stepped (or wrote into) the caller's model; a diagnosis must not train it.",
                     "run the instrumented step on a copy (copy.deepcopy) or restore what you touched.",
                     code="params_changed")
            touched = [n for n, p in model.named_parameters() if p.grad is None or not torch.equal(p.grad, held[n])]
            if touched and cleared_by:
                gone = [n for n in touched if dict(model.named_parameters())[n].grad is None]
                fail(f"health_check called zero_grad() on the caller's optimizer ({len(cleared_by)} time(s)), and the "
                     f".grad the caller held on {', '.join(touched[:3])} is "
                     + ("gone (None)." if len(gone) == len(touched) else "no longer what it was."),
                     "the caller's optimizer: it holds the caller's parameters, so its zero_grad() clears their .grad "
                     "whatever model the probe runs.",
                     "clear gradients on the probe itself (probe.zero_grad() on the copy), never through the caller's "
                     "optimizer.", code="cleared_grad")
            if touched:
                fail(f"after health_check, the .grad of {', '.join(touched[:3])} is not what the caller had (the "
                     "caller's optimizer's zero_grad() was not called).",
                     "something in health_check wrote into the caller's parameters' .grad: a backward() through the "
                     "caller's model adds to it.",
                     "probe a copy of the model, or put the caller's .grad back.", code="grads_changed")
            if model.training != mode:
                fail("health_check changed the model's mode.", "the model owns its mode; the caller set it.",
                     "report a wrong mode instead of fixing it; restore anything you switch.", code="mode_changed")
            if optimizer.state:  # a fresh Adam: any state means a step was taken
                fail("health_check changed the optimizer's state (it took a step).",
                     "the optimizer's moments belong to the caller's training run.",
                     "never call step() on the caller's optimizer in a diagnosis.", code="optimizer_changed")
            if (loader.dataset is not dataset or type(loader.sampler) is not sampler
                    or loader.batch_size != batch_size):
                fail("health_check replaced part of the caller's loader.", "the loader belongs to the caller.",
                     "read the loader; do not rebuild or reassign it.", code="loader_changed")
            if not watched.batches or not isinstance(out, (set, frozenset)):
                job_not_done(f"health_check computed {watched.batches} loss(es) with the loss function it was given "
                             f"and returned {describe(out)}: no instrumented step ran, or no report came back.",
                             "leaving the caller's objects as they were",
                             "health_check's job: one instrumented step, then a set of codes.",
                             "run the step with the loss function passed in and return the set (the other checks "
                             "judge its codes); this check then judges what the diagnosis left behind.")


# --------------------------------------------------------------------------
# overfit_diagnosis: one batch overfitted as the instrument, the owner named from the first step

OWNERS = ("learns", "loss_fn", "module", "optimizer")


class _OutputOwner(nn.Module):
    """A network whose forward hands back an output no gradient can flow through (or one scaled to zero)."""

    def __init__(self, net: nn.Module, how: str):
        super().__init__()
        self.net, self.how = net, how

    def forward(self, x):
        if self.how == "zero":
            return self.net(x) * 0.0
        if self.how == "no_grad":
            with torch.no_grad():
                return self.net(x)
        return self.net(x).detach()


#: kind: (the owner, what the setup is, in the learner's words)
OVERFIT_SETUPS = {
    "mse": ("learns", "a small regression MLP with MSELoss and Adam at 0.03"),
    "bce": ("learns", "a small binary classifier with BCEWithLogitsLoss and Adam at 0.05, handed over in eval mode"),
    "single": ("learns", "a single example whose target has shape [1] against an output of shape [1, 1]"),
    "stale_copy": ("optimizer", "the optimizer was built over a copy of the model's parameters"),
    "lr_low": ("optimizer", "Adam at a learning rate of 1e-6"),
    "lr_high": ("optimizer", "plain SGD at a learning rate of 1000"),
    "flat_targets": ("loss_fn", "targets of shape [N] against outputs of shape [N, 1], with MSELoss"),
    "zero": ("module", "forward() multiplies its output by zero"),
    "no_grad": ("module", "forward() runs under torch.no_grad()"),
    "flat_no_grad": ("loss_fn", "targets of shape [N] against outputs of shape [N, 1], from a forward() that runs "
                                "under torch.no_grad()"),
    # hidden
    "lr_zero": ("optimizer", "Adam at a learning rate of 0"),
    "squeezed": ("loss_fn", "outputs squeezed to [N] against targets of shape [N, 1], with MSELoss"),
    "detach": ("module", "forward() returns a detached output"),
    "frozen": ("module", "every parameter frozen (requires_grad=False)"),
}
VISIBLE_BROKEN = ("stale_copy", "lr_low", "lr_high", "flat_targets", "zero", "no_grad", "flat_no_grad")
HIDDEN_BROKEN = ("lr_zero", "squeezed", "detach", "frozen")

_WHY = {
    "learns": "the whole setup: the loss on the batch fell below a tenth of its first value, so the loop, the "
              "model, the loss and the optimizer can learn together.",
    "loss_fn": "the loss function: it compared an output and targets of different shapes, so it broadcast them "
               "and measures something no weights can drive to zero.",
    "module": "the module: after the first backward no trainable parameter holds a non-zero gradient (or the loss "
              "holds no graph at all), so no optimizer could move the loss.",
    "optimizer": "the optimizer: the first backward gave the parameters real gradients, and the updates still did "
                 "not drive the loss down: it holds other tensors, or its learning rate is far from right.",
}


class _Squeeze(nn.Module):
    def forward(self, x):
        return x.squeeze(-1)


def _overfit_setup(kind: str, seed: int, n: int, width: int, device):
    manual_seed(seed)
    g = torch.Generator().manual_seed(seed + 1)
    classify = kind == "bce"
    d = 4 if classify else 3
    layers = [nn.Linear(d, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1)]
    model = nn.Sequential(*layers, _Squeeze()) if kind == "squeezed" else nn.Sequential(*layers)
    x = torch.randn(n, d, generator=g)
    y = (torch.rand(n, 1, generator=g) > 0.5).float() if classify else torch.randn(n, 1, generator=g)
    loss_fn = nn.BCEWithLogitsLoss() if classify else nn.MSELoss()
    if kind in ("zero", "no_grad", "detach", "flat_no_grad"):
        model = _OutputOwner(model, kind.removeprefix("flat_"))
    if kind == "frozen":
        for p in model.parameters():
            p.requires_grad_(False)
    model = model.to(device)
    params = copy.deepcopy(model).parameters() if kind == "stale_copy" else model.parameters()
    if kind == "lr_high":
        optimizer = torch.optim.SGD(params, lr=1e3)
    else:
        lr = {"lr_low": 1e-6, "lr_zero": 0.0, "bce": 0.05}.get(kind, 0.03)
        optimizer = torch.optim.Adam(params, lr=lr)
    if kind in ("flat_targets", "flat_no_grad", "single"):
        y = y[:, 0]
    if kind == "bce":
        model.eval()  # the contract's training mode is the function's to set
    return model, x.to(device), y.to(device), optimizer, loss_fn


def _batch_loss(model, x, y, loss_fn) -> float:
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcasting setups warn; the learner has seen it
        return float(loss_fn(model(x), y))


def _diagnose(overfit_diagnosis, kind: str, seed: int, n: int, width: int, device, steps: int):
    owner, label = OVERFIT_SETUPS[kind]
    model, x, y, optimizer, loss_fn = _overfit_setup(kind, seed, n, width, device)
    start = _batch_loss(model, x, y, loss_fn)
    seen = _LoopWatch(model, optimizer)  # the caller's own model and optimizer (a deep copy carries the hooks)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # MSELoss's broadcasting warning is part of the setup
            got = call(overfit_diagnosis, model, x, y, optimizer, loss_fn, steps)
    finally:
        seen.remove()
    where = f"on {device}, a setup where {label}"
    if got is None:
        job_not_done(f"{where}: overfit_diagnosis returned None.", "nothing", "the verdict overfit_diagnosis "
                     "returns.", f"return one of {', '.join(map(repr, OWNERS))}.")
    if isinstance(got, str) and type(got) is not str:
        fail(f"{where}: overfit_diagnosis returned a {type(got).__name__}, a subclass of str, not a str.",
             "the verdict: a plain string, which the caller compares, prints and stores as it is.",
             f"return exactly one of the strings {', '.join(map(repr, OWNERS))}.", code="wrong_type")
    if not isinstance(got, str) or got not in OWNERS:
        fail(f"{where}: overfit_diagnosis returned {describe(got)}.", "the verdict: one owner's name, or that the "
             "setup learns.", f"return exactly one of the strings {', '.join(map(repr, OWNERS))}.",
             code="unknown_code")
    return got, owner, label, where, (model, x, y, loss_fn, start, seen)


class _LoopWatch:
    """Counts the forward passes of the caller's own model (and the modes they ran in) and the steps of the
    caller's own optimizer while overfit_diagnosis runs."""

    def __init__(self, model: nn.Module, optimizer):
        self.modes: set = set()
        self.forwards = self.steps = 0

        def forward(module, args):
            if module is model:
                self.modes.add(module.training)
                self.forwards += 1

        def step(opt, args, kwargs):
            self.steps += opt is optimizer

        self.handles = [model.register_forward_pre_hook(forward), optimizer.register_step_post_hook(step)]

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def short(self, steps: int, graph: bool) -> str:
        """What the call left out of the loop the contract asks for, or ''."""
        if not self.forwards:
            return "never ran the model it was given on the batch"
        if graph and self.steps < steps:
            return (f"took {self.steps} step(s) of the optimizer it was given, not the {steps} updates of the five "
                    "lines, before returning its verdict")
        return ""


#: The setups whose loss holds no graph: the loop stops at its first backward, as the contract allows.
GRAPHLESS = ("no_grad", "flat_no_grad", "detach", "frozen")


def _loop_not_run(where: str, got, short: str) -> None:
    fail(f"{where}: overfit_diagnosis returned {got!r} and {short}.",
         "the loop: the verdict rests on the losses of a batch overfitted with the caller's model and optimizer, "
         "so the updates run first, whatever the first step shows.",
         "run the `steps` updates of the five lines on the model and optimizer passed in, then apply the rules to "
         "what they recorded.", code="wrong_step_count")


@graded("overfit_diagnosis")
def overfit_diagnosis_learns(overfit_diagnosis, seed: int = 0, n: int = 8, width: int = 16, steps: int = 100, *,
                             notes):
    """'learns' on healthy setups, whose one batch the call really overfitted"""
    for device in each_device(notes):
        for kind in ("mse", "bce", "single"):
            got, owner, label, where, (model, x, y, loss_fn, start, modes) = _diagnose(
                overfit_diagnosis, kind, seed, 1 if kind == "single" else n, width, device, steps)
            if modes.short(steps, True):
                _loop_not_run(where, got, modes.short(steps, True))
            if False in modes.modes:
                fail(f"{where}: the model ran its forward passes in eval mode during overfit_diagnosis.",
                     "the module: its mode, which the caller left as it was and the five lines must set.",
                     "call model.train() before the loop: the exercise overfits the batch in training mode.",
                     code="wrong_mode")
            end = _batch_loss(model, x, y, loss_fn)
            if not end < 0.2 * start:
                job_not_done(f"{where}: after overfit_diagnosis, the model's loss on the batch is {end:.4g}, "
                             f"from {start:.4g} before the call: the batch was not overfitted.",
                             "a verdict on a healthy setup", "the model and optimizer it was given, which the "
                             f"{steps} updates of the five lines must train on the one batch.",
                             "run the five lines in their order (zero_grad, forward, loss, backward, step) on the "
                             "model and optimizer passed in, then decide.")
            if got != owner:
                fail(f"{where}: overfit_diagnosis returned {got!r}, and the loss on the batch fell from {start:.4g} "
                     f"to {end:.4g}.", _WHY["learns"], "decide 'learns' from the losses of the loop first: a setup "
                     "whose loss on one batch fell below a tenth of its first value needs no owner named.",
                     code="overfit_false_alarm")


@graded("overfit_diagnosis")
def overfit_diagnosis_owner(overfit_diagnosis, seed: int = 1, n: int = 8, width: int = 16, steps: int = 100,
                            hidden: bool = False, *, notes):
    """The owner that stops one batch from being overfitted: the loss function, the module or the optimizer"""
    for device in each_device(notes):
        for kind in HIDDEN_BROKEN if hidden else VISIBLE_BROKEN:
            got, owner, label, where, (*_, watch) = _diagnose(overfit_diagnosis, kind, seed, n, width, device,
                                                              steps)
            if watch.short(steps, kind not in GRAPHLESS):
                _loop_not_run(where, got, watch.short(steps, kind not in GRAPHLESS))
            if got != owner:
                fail(f"{where}: overfit_diagnosis returned {got!r}.", _WHY[owner],
                     "take the evidence at the first step, before any update, and apply the rules in their order: "
                     "did the loss fall below a tenth; do the output and the targets have one shape; does the first "
                     "backward leave a non-zero gradient on a trainable parameter.", code="overfit_wrong_owner")


# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)
