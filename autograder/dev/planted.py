"""A cohort of module 04 with planted copies, to measure ``similarity`` against what is known to be true.

Twelve honest students answer in their own styles (some converge, as real students do, on a short variant
or on the course's own repair); two write the course's canonical answer independently, one word for word
from ``check.solution``, one in their own names; six copy a classmate's notebook, each disguising three or
two answers one way: renamed, re-commented, wrapped in a class, split into helpers, loops turned into
comprehensions, independent statements reordered.  Every other copied cell is left as the classmate wrote
it.  Answers a student did not write are the release's stub.

:func:`planted_cohort` returns the answers with the truth (which pairs copied, which cells were disguised);
:func:`scaled_cohort` grows it for a timing run; ``python -m autograder.dev.planted [N]`` prints the measures
on the planted cohort (and the time on ``N`` students).
"""

from __future__ import annotations

import ast
import math
import sys
import time
from dataclasses import dataclass, field

from ..cells import answer_sources, strip_solution_markers
from . import nbtools
from .synthetic import REPO

MODULE = "04-five-line-step"

TS = "def train_step(model, x, y, optimizer, loss_fn):\n"
TE = "def train_epoch(model, loader, optimizer, loss_fn, device):\n"
AS = "def accumulate_step(model, micro_batches, optimizer, loss_fn):\n"
OF = "def overfit_one_batch(model, x, y, optimizer, loss_fn, steps):\n"
RE = "def repair_train_epoch(model, loader, optimizer, loss_fn, device):\n"

_TUTORIAL_STEP = TS + """\
    pred = model(x)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
"""
_ONE_LINE_OVERFIT = OF + "    return [train_step(model, x, y, optimizer, loss_fn) for _ in range(steps)]\n"
_QUICKSTART_REPAIR = RE + """\
    model.train()
    running_loss = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        running_loss += loss.item() * len(inputs)
    return running_loss / len(loader.dataset)
"""

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {
        "train_step": TS + """\
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return float(loss)
""",
        "train_epoch": TE + """\
    model.train()
    seen, summed = 0, 0.0
    for xb, yb in loader:
        n = xb.shape[0]
        summed += n * train_step(model, xb.to(device), yb.to(device), optimizer, loss_fn)
        seen += n
    return summed / seen
""",
        "accumulate_step": AS + """\
    xs = torch.cat([mx for mx, _ in micro_batches])
    ys = torch.cat([my for _, my in micro_batches])
    return train_step(model, xs, ys, optimizer, loss_fn)
""",
        "overfit_one_batch": _ONE_LINE_OVERFIT,
    },
    "honest-02": {
        "train_step": TS + """\
    optimizer.zero_grad()
    predictions = model(x)
    batch_loss = loss_fn(predictions, y)
    batch_loss.backward()
    optimizer.step()
    return batch_loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    total_loss = 0.0
    total_examples = 0
    for batch_inputs, batch_targets in loader:
        batch_inputs = batch_inputs.to(device)
        batch_targets = batch_targets.to(device)
        batch_size = batch_inputs.size(0)
        batch_loss = train_step(model, batch_inputs, batch_targets, optimizer, loss_fn)
        total_loss = total_loss + batch_loss * batch_size
        total_examples = total_examples + batch_size
    mean_loss = total_loss / total_examples
    return mean_loss
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    number_of_chunks = len(micro_batches)
    loss_values = []
    for chunk_inputs, chunk_targets in micro_batches:
        chunk_loss = loss_fn(model(chunk_inputs), chunk_targets)
        (chunk_loss / number_of_chunks).backward()
        loss_values.append(chunk_loss.item())
    optimizer.step()
    return sum(loss_values) / number_of_chunks
""",
        "overfit_one_batch": OF + """\
    history = []
    for step in range(steps):
        history.append(train_step(model, x, y, optimizer, loss_fn))
    return history
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    n_seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss = running_loss + loss.item() * len(targets)
        n_seen = n_seen + len(targets)
    return running_loss / n_seen
""",
    },
    "honest-03": {
        "train_step": TS + """\
    optimizer.zero_grad(set_to_none=True)
    out = model(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    return loss.detach().item()
""",
        "train_epoch": TE + """\
    model.train()
    weighted = torch.zeros(())
    count = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device, non_blocking=True), targets.to(device, non_blocking=True)
        step_loss = train_step(model, inputs, targets, optimizer, loss_fn)
        weighted += step_loss * inputs.shape[0]
        count += inputs.shape[0]
    return (weighted / max(count, 1)).item()
""",
        "accumulate_step": AS + """\
    model.zero_grad(set_to_none=True)
    parts = len(micro_batches)
    running = torch.zeros(())
    for inputs, targets in micro_batches:
        scaled = loss_fn(model(inputs), targets).div(parts)
        scaled.backward()
        running += scaled.detach()
    optimizer.step()
    return running.item()
""",
        "overfit_one_batch": OF + """\
    losses = []
    for _ in range(steps):
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return losses
""",
        "repair_train_epoch": RE + """\
    model.train(True)
    running_loss = 0.0
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.shape[0]
        seen += inputs.shape[0]
    return running_loss / max(seen, 1)
""",
    },
    "honest-04": {
        "train_step": _TUTORIAL_STEP,
        "train_epoch": TE + """\
    model.train()
    total, n = 0.0, 0
    for i, (xb, yb) in enumerate(loader):
        xb = xb.to(device)
        yb = yb.to(device)
        loss = train_step(model, xb, yb, optimizer, loss_fn)
        total += loss * len(yb)
        n += len(yb)
    return total / n
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    total = 0.0
    for i in range(k):
        xb, yb = micro_batches[i]
        loss = loss_fn(model(xb), yb) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
""",
        "overfit_one_batch": OF + """\
    out = []
    for i in range(steps):
        loss = train_step(model, x, y, optimizer, loss_fn)
        out.append(loss)
    return out
""",
        "repair_train_epoch": _QUICKSTART_REPAIR,
    },
    "honest-05": {
        "train_step": TS + """\
    # 1. clear old gradients
    optimizer.zero_grad()
    # 2. forward and loss
    loss = loss_fn(model(x), y)
    # 3. backward
    loss.backward()
    # 4. update
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()  # dropout etc. on
    it = iter(loader)
    loss_sum = 0.0
    n_items = 0
    while True:
        try:
            xb, yb = next(it)
        except StopIteration:
            break
        xb, yb = xb.to(device), yb.to(device)  # same device as the model
        loss_sum += train_step(model, xb, yb, optimizer, loss_fn) * yb.numel()
        n_items += yb.numel()
    return loss_sum / n_items
""",
        "accumulate_step": AS + """\
    # gradients start empty, once for the whole group
    optimizer.zero_grad()
    sizes = [len(xb) for xb, _ in micro_batches]
    assert len(set(sizes)) == 1, "micro-batches must have equal size"
    mean_loss = 0.0
    for xb, yb in micro_batches:
        part = loss_fn(model(xb), yb) / len(sizes)  # each is 1/k of the mean
        part.backward()  # accumulates into .grad
        mean_loss += part.item()
    optimizer.step()  # one update
    return mean_loss
""",
        "overfit_one_batch": OF + "    return [train_step(model, x, y, optimizer, loss_fn) for step in range(steps)]\n",
        "repair_train_epoch": RE + """\
    model.train()  # FIX: the validation left it in eval mode
    running_loss = 0.0
    total = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()  # FIX: clear every batch
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * targets.size(0)  # FIX: weight by batch size
        total += targets.size(0)
    return running_loss / total
""",
    },
    "honest-06": {
        "train_step": TS + """\
    model.zero_grad()
    loss = loss_fn(model.forward(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach().cpu().item()
""",
        "train_epoch": TE + """\
    model.train()
    losses, sizes = [], []
    for batch in loader:
        xb, yb = (t.to(device) for t in batch)
        losses.append(train_step(model, xb, yb, optimizer, loss_fn))
        sizes.append(len(xb))
    return sum(l * s for l, s in zip(losses, sizes)) / sum(sizes)
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    losses = [loss_fn(model(xb), yb) for xb, yb in micro_batches]
    mean = torch.stack(losses).mean()
    mean.backward()
    optimizer.step()
    return mean.item()
""",
        "overfit_one_batch": OF + "    return list(map(lambda _: train_step(model, x, y, optimizer, loss_fn), range(steps)))\n",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
    return running_loss / len(loader.dataset)
""",
    },
    "honest-07": {
        "train_step": TS + """\
    optimizer.zero_grad()
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    sum_loss = torch.tensor(0.0, dtype=torch.float64)
    n_examples = 0
    for features, labels in loader:
        features = features.to(device)
        labels = labels.to(device)
        batch_mean = train_step(model, features, labels, optimizer, loss_fn)
        with torch.no_grad():
            sum_loss += batch_mean * features.shape[0]
        n_examples += features.shape[0]
    return float(sum_loss / n_examples)
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad(set_to_none=True)
    n_micro = len(micro_batches)
    reported = []
    for features, labels in micro_batches:
        loss = loss_fn(model(features), labels)
        loss.div(n_micro).backward()
        reported.append(float(loss))
    optimizer.step()
    return float(torch.tensor(reported).mean())
""",
        "overfit_one_batch": OF + """\
    curve = []
    for _ in range(steps):
        curve.append(train_step(model, x, y, optimizer, loss_fn))
    return curve
""",
        "repair_train_epoch": RE + """\
    model.train(mode=True)
    running_loss, n_examples = 0.0, 0
    for inputs, targets in loader:
        inputs = inputs.to(device)
        targets = targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            running_loss += loss.item() * inputs.shape[0]
        n_examples += inputs.shape[0]
    return running_loss / n_examples
""",
    },
    "honest-08": {
        "train_step": _TUTORIAL_STEP,
        "train_epoch": TE + """\
    assert len(loader) > 0, "empty loader"
    model.train()
    epoch_loss = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        pred = model(xb)
        loss = loss_fn(pred, yb)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item() * xb.size(0)
    return epoch_loss / len(loader.dataset)
""",
        "accumulate_step": AS + """\
    assert micro_batches, "need at least one micro-batch"
    optimizer.zero_grad()
    scale = 1.0 / len(micro_batches)
    acc = 0.0
    for xb, yb in micro_batches:
        loss = loss_fn(model(xb), yb) * scale
        loss.backward()
        acc += loss.item()
    optimizer.step()
    return acc
""",
        "overfit_one_batch": OF + """\
    results = []
    for _ in range(steps):
        results.append(train_step(model, x, y, optimizer, loss_fn))
    return results
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss, seen = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        seen += len(inputs)
    return running_loss / seen
""",
    },
    "honest-09": {
        "train_step": TS + """\
    optimizer.zero_grad()
    y_hat = model(x)
    l = loss_fn(y_hat, y)
    l.backward()
    optimizer.step()
    return l.item()
""",
        "train_epoch": TE + """\
    model.train()
    avg, seen = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        b = len(x)
        l = train_step(model, x, y, optimizer, loss_fn)
        seen += b
        avg += (l - avg) * b / seen
    return avg
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    m = len(micro_batches)
    avg = 0.0
    for x, y in micro_batches:
        l = loss_fn(model(x), y)
        (l / m).backward()
        avg += l.item() / m
    optimizer.step()
    return avg
""",
        "overfit_one_batch": OF + """\
    losses = [train_step(model, x, y, optimizer, loss_fn) for _ in range(steps)]
    return losses
""",
        "repair_train_epoch": RE + """\
    model.train()
    avg, seen = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        seen += len(inputs)
        avg += (loss.item() - avg) * len(inputs) / seen
    return avg
""",
    },
    "honest-10": {
        "train_step": TS + """\
    for p in model.parameters():
        p.grad = None
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    per_batch = []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        per_batch.append((train_step(model, xb, yb, optimizer, loss_fn), xb.size(0)))
    n = sum(size for _, size in per_batch)
    return sum(loss * size for loss, size in per_batch) / n
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    total = 0.0
    for xb, yb in micro_batches:
        loss = loss_fn(model(xb), yb)
        loss.backward()
        total += loss.item()
    for p in model.parameters():
        if p.grad is not None:
            p.grad /= len(micro_batches)
    optimizer.step()
    return total / len(micro_batches)
""",
        "overfit_one_batch": OF + """\
    vals = []
    for i in range(steps):
        vals.append(train_step(model, x, y, optimizer, loss_fn))
    return vals
""",
        "repair_train_epoch": _QUICKSTART_REPAIR,
    },
    "honest-11": {
        "train_step": TS + """\
    optimizer.zero_grad()
    outputs = model(x)
    loss = loss_fn(outputs, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    batch_losses = []
    batch_sizes = []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        batch_losses.append(train_step(model, xb, yb, optimizer, loss_fn))
        batch_sizes.append(len(xb))
    weighted = []
    for loss, size in zip(batch_losses, batch_sizes):
        weighted.append(loss * size)
    return sum(weighted) / sum(batch_sizes)
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    scaled = []
    for xb, yb in micro_batches:
        scaled.append(loss_fn(model(xb), yb) / k)
    for part in scaled:
        part.backward()
    optimizer.step()
    values = []
    for part in scaled:
        values.append(part.item())
    return sum(values)
""",
        "overfit_one_batch": _ONE_LINE_OVERFIT,
        "repair_train_epoch": RE + """\
    model.train()
    running_loss, seen = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        seen += len(inputs)
    return running_loss / seen
""",
    },
    "honest-12": {
        "train_step": TS + """\
    model.train()
    optimizer.zero_grad()
    prediction = model(x)
    loss = loss_fn(prediction, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    device = torch.device(device)
    model.train()
    examples = 0
    loss_total = 0.0
    batches = 0
    for data, target in loader:
        data = data.to(device)
        target = target.to(device)
        batch = data.shape[0]
        loss_total += batch * train_step(model, data, target, optimizer, loss_fn)
        examples += batch
        batches += 1
    assert batches == len(loader)
    return loss_total / examples
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    total_loss = 0.0
    n_batches = len(micro_batches)
    for data, target in micro_batches:
        output = model(data)
        loss = loss_fn(output, target) / n_batches
        loss.backward()
        total_loss += loss.item()
    optimizer.step()
    return total_loss
""",
        "overfit_one_batch": OF + """\
    losses = []
    for step in range(steps):
        loss = train_step(model, x, y, optimizer, loss_fn)
        losses.append(loss)
    return losses
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    n_seen = 0
    n_batches = 0
    for inputs, targets in loader:
        inputs = inputs.to(device)
        targets = targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.shape[0]
        n_seen += inputs.shape[0]
        n_batches += 1
    print(f"{n_batches} batches, {n_seen} examples")
    return running_loss / n_seen
""",
    },
}

# The canonical answer twice: one student hands in the reference as check.solution shows it (word for word),
# the other writes the same code in their own names.
CANONICAL_OWN_NAMES = {
    "train_step": TS + """\
    optimizer.zero_grad()
    out = model(x)
    batch_loss = loss_fn(out, y)
    batch_loss.backward()
    optimizer.step()
    return batch_loss.item()
""",
    "train_epoch": TE + """\
    model.train()
    running, n = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        running += train_step(model, xb, yb, optimizer, loss_fn) * len(xb)
        n += len(xb)
    return running / n
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    n = len(micro_batches)
    running = 0.0
    for xb, yb in micro_batches:
        loss = loss_fn(model(xb), yb) / n
        loss.backward()
        running += loss.item()
    optimizer.step()
    return running
""",
    "overfit_one_batch": _ONE_LINE_OVERFIT,
}

# ---- the copies: (copier, classmate, {cell: disguised answer}); every other answer is the classmate's as is

_RENAMED = {
    "train_epoch": TE + """\
    model.train()
    acc_loss = torch.zeros(())
    num = 0
    for feats, labs in loader:
        feats, labs = feats.to(device, non_blocking=True), labs.to(device, non_blocking=True)
        l = train_step(model, feats, labs, optimizer, loss_fn)
        acc_loss += l * feats.shape[0]
        num += feats.shape[0]
    return (acc_loss / max(num, 1)).item()
""",
    "accumulate_step": AS + """\
    model.zero_grad(set_to_none=True)
    k = len(micro_batches)
    tot = torch.zeros(())
    for feats, labs in micro_batches:
        part_loss = loss_fn(model(feats), labs).div(k)
        part_loss.backward()
        tot += part_loss.detach()
    optimizer.step()
    return tot.item()
""",
    "repair_train_epoch": RE + """\
    model.train(True)
    loss_acc = 0.0
    num = 0
    for feats, labs in loader:
        feats, labs = feats.to(device), labs.to(device)
        optimizer.zero_grad(set_to_none=True)
        preds = model(feats)
        l = loss_fn(preds, labs)
        l.backward()
        optimizer.step()
        loss_acc += l.item() * feats.shape[0]
        num += feats.shape[0]
    return loss_acc / max(num, 1)
""",
}

_RECOMMENTED = {
    "train_epoch": TE + """\
    \"\"\"Trains the model for one pass over the loader.\"\"\"

    # training mode on
    model.train()

    it = iter(loader)    # we go through the batches by hand
    loss_sum = 0.0
    n_items = 0

    while True:
        # next batch, or stop at the end
        try:
            xb, yb = next(it)
        except StopIteration:
            break
        # move to the device
        xb, yb = xb.to(device), yb.to(device)
        loss_sum += train_step(model, xb, yb, optimizer, loss_fn) * yb.numel()   # weighted
        n_items += yb.numel()

    return loss_sum / n_items
""",
    "accumulate_step": AS + """\
    \"\"\"Accumulate gradients over the micro-batches, then step once.\"\"\"
    optimizer.zero_grad()

    sizes = [len(xb) for xb, _ in micro_batches]   # all the same?
    assert len(set(sizes)) == 1, "micro-batches must have equal size"

    mean_loss = 0.0
    for xb, yb in micro_batches:
        part = loss_fn(model(xb), yb) / len(sizes)
        part.backward()
        mean_loss += part.item()

    optimizer.step()
    return mean_loss
""",
    "repair_train_epoch": RE + """\
    \"\"\"Fixed version.\"\"\"
    model.train()
    running_loss = 0.0
    total = 0

    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()      # was missing here
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * targets.size(0)
        total += targets.size(0)

    return running_loss / total
""",
}

_CLASS_WRAPPED = {
    "train_epoch": """\
class EpochRunner:
    def __init__(self, model, optimizer, loss_fn, device):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.device = device

    def run(self, loader):
        self.model.train()
        sum_loss = torch.tensor(0.0, dtype=torch.float64)
        n_examples = 0
        for features, labels in loader:
            features = features.to(self.device)
            labels = labels.to(self.device)
            batch_mean = train_step(self.model, features, labels, self.optimizer, self.loss_fn)
            with torch.no_grad():
                sum_loss += batch_mean * features.shape[0]
            n_examples += features.shape[0]
        return float(sum_loss / n_examples)


""" + TE + """\
    \"\"\"One epoch of updates; returns the mean per-example loss as a Python float.\"\"\"
    return EpochRunner(model, optimizer, loss_fn, device).run(loader)
""",
    "accumulate_step": """\
class Accumulator:
    def __init__(self, model, optimizer, loss_fn):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.reported = []

    def step(self, micro_batches):
        self.optimizer.zero_grad(set_to_none=True)
        n_micro = len(micro_batches)
        for features, labels in micro_batches:
            loss = self.loss_fn(self.model(features), labels)
            loss.div(n_micro).backward()
            self.reported.append(float(loss))
        self.optimizer.step()
        return float(torch.tensor(self.reported).mean())


""" + AS + """\
    \"\"\"One update from several micro-batches; returns their mean loss.\"\"\"
    acc = Accumulator(model, optimizer, loss_fn)
    return acc.step(micro_batches)
""",
    "repair_train_epoch": """\
class Repaired:
    def __init__(self, model, loader, optimizer, loss_fn, device):
        self.model, self.loader = model, loader
        self.optimizer, self.loss_fn, self.device = optimizer, loss_fn, device

    def epoch(self):
        self.model.train(mode=True)
        running_loss, n_examples = 0.0, 0
        for inputs, targets in self.loader:
            inputs = inputs.to(self.device)
            targets = targets.to(self.device)
            self.optimizer.zero_grad(set_to_none=True)
            outputs = self.model(inputs)
            loss = self.loss_fn(outputs, targets)
            loss.backward()
            self.optimizer.step()
            with torch.no_grad():
                running_loss += loss.item() * inputs.shape[0]
            n_examples += inputs.shape[0]
        return running_loss / n_examples


""" + RE + """\
    \"\"\"One epoch of updates; returns the mean per-example loss (from a colleague's notebook).\"\"\"
    return Repaired(model, loader, optimizer, loss_fn, device).epoch()
""",
}

_HELPER_SPLIT = {
    "train_epoch": """\
def to_device(a, b, dev):
    return a.to(dev), b.to(dev)


def running_mean(avg, value, n, seen):
    return avg + (value - avg) * n / seen


""" + TE + """\
    model.train()
    avg, seen = 0.0, 0
    for x, y in loader:
        x, y = to_device(x, y, device)
        b = len(x)
        l = train_step(model, x, y, optimizer, loss_fn)
        seen += b
        avg = running_mean(avg, l, b, seen)
    return avg
""",
    "accumulate_step": """\
def micro_step(net, crit, inputs, targets, m):
    l = crit(net(inputs), targets)
    (l / m).backward()
    return l.item() / m


""" + AS + """\
    optimizer.zero_grad()
    m = len(micro_batches)
    avg = 0.0
    for x, y in micro_batches:
        avg += micro_step(model, loss_fn, x, y, m)
    optimizer.step()
    return avg
""",
}

_COMPREHENSIONS = {
    "train_epoch": TE + """\
    model.train()
    batch_losses = []
    batch_sizes = []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        batch_losses.append(train_step(model, xb, yb, optimizer, loss_fn))
        batch_sizes.append(len(xb))
    weighted = [loss * size for loss, size in zip(batch_losses, batch_sizes)]
    return sum(weighted) / sum(batch_sizes)
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    scaled = [loss_fn(model(xb), yb) / k for xb, yb in micro_batches]
    for part in scaled:
        part.backward()
    optimizer.step()
    values = [part.item() for part in scaled]
    return sum(values)
""",
}

_REORDERED = {
    "train_epoch": TE + """\
    model.train()
    batches = 0
    loss_total = 0.0
    device = torch.device(device)
    examples = 0
    for data, target in loader:
        target = target.to(device)
        data = data.to(device)
        batch = data.shape[0]
        batches += 1
        examples += batch
        loss_total += batch * train_step(model, data, target, optimizer, loss_fn)
    assert batches == len(loader)
    return loss_total / examples
""",
    "repair_train_epoch": RE + """\
    n_batches = 0
    n_seen = 0
    model.train()
    running_loss = 0.0
    for inputs, targets in loader:
        targets = targets.to(device)
        inputs = inputs.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        n_batches += 1
        n_seen += inputs.shape[0]
        running_loss += loss.item() * inputs.shape[0]
    print(f"{n_batches} batches, {n_seen} examples")
    return running_loss / n_seen
""",
}

COPIES: list[tuple[str, str, str, dict[str, str]]] = [  # (copier, classmate, disguise, disguised answers)
    ("copier-rename", "honest-03", "renamed", _RENAMED),
    ("copier-recomment", "honest-05", "re-commented", _RECOMMENTED),
    ("copier-class", "honest-07", "wrapped in a class", _CLASS_WRAPPED),
    ("copier-helpers", "honest-09", "split into helpers", _HELPER_SPLIT),
    ("copier-comprehension", "honest-11", "loops turned into comprehensions", _COMPREHENSIONS),
    ("copier-reorder", "honest-12", "statements reordered", _REORDERED),
]


@dataclass
class Planted:
    """A planted cohort: ``answers`` ``{cell: {student: source}}``, the release's ``stubs`` and the truth."""

    answers: dict[str, dict[str, str]]
    stubs: dict[str, str]
    copied: dict[frozenset, str] = field(default_factory=dict)  # {copier, classmate} -> disguise
    disguised: list[tuple[frozenset, str]] = field(default_factory=list)  # (pair, cell) disguised by the copier
    canonical: frozenset = frozenset()  # the two students who wrote the course's answer independently
    copied_cells: set[tuple[frozenset, str]] = field(default_factory=set)  # (pair, cell) going back to one author

    @property
    def students(self) -> list[str]:
        return sorted({s for by_student in self.answers.values() for s in by_student})

    def independent_pairs(self) -> set[frozenset]:
        return {frozenset((a, b)) for i, a in enumerate(self.students) for b in self.students[i + 1:]} - set(self.copied)


@dataclass
class Copy:
    """A copier: the cells ``taken`` from classmates (``{cell: classmate}``, in the order of the list, so a copy
    of a copy is a chain and cells taken from two classmates a merge), ``disguised`` answers that replace what
    was taken, and ``own`` answers the copier wrote alone."""

    copier: str
    disguise: str
    taken: dict[str, str]
    disguised: dict[str, str] = field(default_factory=dict)
    own: dict[str, str] = field(default_factory=dict)


def assemble(module: str, honest: dict[str, dict[str, str]], copies: list[Copy],
             canonical: dict[str, str] | None = None, canonical_cells=()) -> Planted:
    """A planted cohort of ``module`` whose truth follows from where each answer came from: two students are a
    copied pair when some cell of theirs goes back to one author, and that cell is disguised when their two
    texts differ.  ``canonical`` (answers in one's own names of the course's code) and ``canonical_cells``
    (cells handed in as the reference, word for word) make the two students who wrote the course's answer."""
    solution = nbtools.read(REPO / "solutions" / module / f"{module}.ipynb")
    release = nbtools.read(REPO / "exercises" / module / f"{module}.ipynb")
    stubs = answer_sources(release)
    reference = {cell: strip_solution_markers(src) for cell, src in answer_sources(solution).items()}
    students = {name: dict(answers) for name, answers in honest.items()}
    origin = {(s, cell): s for s, answers in honest.items() for cell in answers}
    planted = Planted({}, stubs)
    if canonical is not None:
        students["canonical-1"] = {cell: reference[cell] for cell in canonical_cells}
        students["canonical-2"] = dict(canonical)
        origin.update({(s, c): s for s in ("canonical-1", "canonical-2") for c in students[s]})
        planted.canonical = frozenset(("canonical-1", "canonical-2"))
    disguise_of: dict[frozenset, list[str]] = {}
    for c in copies:
        answers = {cell: students[who][cell] for cell, who in c.taken.items()}
        answers.update(c.disguised)
        answers.update(c.own)
        students[c.copier] = answers
        origin.update({(c.copier, cell): origin[who, cell] for cell, who in c.taken.items()})
        origin.update({(c.copier, cell): c.copier for cell in c.own})
        for who in set(c.taken.values()):
            disguise_of.setdefault(frozenset((c.copier, who)), []).append(c.disguise)
    names = sorted(students)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            pair = frozenset((a, b))
            shared = [cell for cell in stubs if cell in students[a] and cell in students[b]
                      and origin[a, cell] == origin[b, cell]]
            if not shared:
                continue
            planted.copied[pair] = " + ".join(disguise_of.get(pair, ["through a classmate"]))
            planted.disguised += [(pair, cell) for cell in shared if students[a][cell] != students[b][cell]]
            planted.copied_cells |= {(pair, cell) for cell in shared}
    for answers in students.values():
        for source in answers.values():
            ast.parse(source)  # every planted answer is Python
    planted.answers = {cell: {s: answers.get(cell, stubs[cell]) for s, answers in students.items()} for cell in stubs}
    return planted


def course_code_of(module_id: str):
    """The course's own code for ``module_id`` as ``similarity`` reads it from this repository."""
    from ..cohort.views import similarity

    solution = nbtools.read(REPO / "solutions" / module_id / f"{module_id}.ipynb")
    release = nbtools.read(REPO / "exercises" / module_id / f"{module_id}.ipynb")
    lessons = [(path, nbtools.read(REPO / path)) for path in similarity.lesson_paths(module_id)]
    return similarity.course_code(solution, release, lessons)


def _notebooks():
    solution = nbtools.read(REPO / "solutions" / MODULE / f"{MODULE}.ipynb")
    release = nbtools.read(REPO / "exercises" / MODULE / f"{MODULE}.ipynb")
    return solution, release


def planted_cohort() -> Planted:
    """The planted cohort of module 04 (twenty students)."""
    solution, release = _notebooks()
    stubs = answer_sources(release)
    reference = {cell: strip_solution_markers(src) for cell, src in answer_sources(solution).items()}
    students = {name: dict(answers) for name, answers in HONEST.items()}
    students["canonical-1"] = {cell: reference[cell] for cell in CANONICAL_OWN_NAMES}
    students["canonical-2"] = dict(CANONICAL_OWN_NAMES)
    planted = Planted({}, stubs, canonical=frozenset(("canonical-1", "canonical-2")))
    for copier, classmate, disguise, disguised in COPIES:
        students[copier] = {**students[classmate], **disguised}
        pair = frozenset((copier, classmate))
        planted.copied[pair] = disguise
        planted.disguised += [(pair, cell) for cell in disguised]
        planted.copied_cells |= {(pair, cell) for cell in stubs}
    for cell in stubs:
        for answers in students.values():
            ast.parse(answers.get(cell, stubs[cell]))  # every planted answer is Python
    planted.answers = {cell: {s: answers.get(cell, stubs[cell]) for s, answers in students.items()} for cell in stubs}
    return planted


def scaled_cohort(size: int) -> Planted:
    """The planted cohort grown to ``size`` students for a timing run: each further student is an honest one's
    answers renamed (a copy, so that the run has pairs to report as a real one would)."""
    planted = planted_cohort()
    base = planted.students
    for i in range(len(base), size):
        source = base[i % len(base)]
        for by_student in planted.answers.values():
            by_student[f"student-{i:03d}"] = _renamed(by_student[source], f"_{i}")
    return planted


def _renamed(source: str, suffix: str) -> str:
    tree = ast.parse(source)
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        local = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id in local:
                node.id += suffix
    return ast.unparse(tree)


@dataclass
class Measures:
    disguised_found: int
    disguised: int
    false_pairs: int
    independent_pairs: int
    copies_found: int
    copies: int
    seconds: float
    false_cells: int = 0  # cells matching in a copied pair that do not go back to one author
    told_apart: int = 0  # disguised cells where neither answer is the course's nor common (:func:`tellable`)
    told_apart_found: int = 0


def measure(planted: Planted, report, seconds: float = 0.0) -> Measures:
    """How the ``report`` of ``similarity.compare`` on ``planted`` fares against the truth."""
    cells = report.matching_cells()
    flagged = report.flagged()
    independent = planted.independent_pairs()
    false_cells = {(pair, cell) for pair, cell in cells if pair in planted.copied} - planted.copied_cells
    tellable_cells = [d for d in planted.disguised if tellable(report, *d)]
    return Measures(sum(d in cells for d in planted.disguised), len(planted.disguised),
                    len(flagged & independent), len(independent), len(flagged & set(planted.copied)),
                    len(planted.copied), seconds, len(false_cells), len(tellable_cells),
                    sum(d in cells for d in tellable_cells))


def tellable(report, pair: frozenset, cell: str) -> bool:
    """Whether a copied cell could be told from the two answers at all: neither is the course's answer (the
    reference, or the course's lines all but a few fingerprints) nor an answer more students wrote than hold a rare
    fingerprint.  A copy of a classmate whose answer is the course's, or what a fifth of the cohort wrote, is the
    same as what honest students hand in."""
    from ..cohort.views import similarity

    answers = [report.answers.get((student, cell)) for student in sorted(pair)]
    if any(a is None or a.reference or a.is_course for a in answers):
        return False
    texts = [a.text for (_, c), a in report.answers.items() if c == cell]
    limit = max(2, math.floor(similarity.COMMON * len(texts)))
    return all(texts.count(a.text) <= limit for a in answers)


def print_measures(module_id: str, planted: Planted, code=None) -> int:
    """``python -m autograder.dev.planted_NN``: how ``similarity`` fares on a cohort of ``module_id``, printed
    (against ``code``, the course's own code, read from this repository when not given)."""
    from ..cohort.views import similarity

    code = course_code_of(module_id) if code is None else code
    start = time.perf_counter()
    report = similarity.compare(planted.answers, planted.stubs, module_id, code=code)
    m = measure(planted, report, time.perf_counter() - start)
    print(f"{len(planted.students)} students: disguised cells found {m.disguised_found}/{m.disguised} "
          f"({m.told_apart_found}/{m.told_apart} of those neither the course's answer nor common), "
          f"false pairs {m.false_pairs}/{m.independent_pairs}, copies found {m.copies_found}/{m.copies}, "
          f"{m.seconds:.2f} s; the course's answer flagged: {planted.canonical in report.flagged()}")
    return 0


def course_code_of_module():
    """The course's own code for module 04 as ``similarity`` reads it from this repository."""
    from ..cohort.views import similarity
    from ..syllabus import module

    solution, release = _notebooks()
    lessons = [(path, nbtools.read(REPO / path)) for path in similarity.lesson_paths(module(MODULE).id)]
    return similarity.course_code(solution, release, lessons)


def main(argv: list[str]) -> int:
    from ..cohort.views import similarity

    start = time.perf_counter()
    code = course_code_of_module()
    print(f"the course's code (reference, exercise, lessons 01-04): {time.perf_counter() - start:.2f} s")
    print_measures(MODULE, planted_cohort(), code)
    for size in [int(a) for a in argv]:  # for time only: the students beyond the planted ones are clones
        cohort = scaled_cohort(size)
        start, cpu = time.perf_counter(), time.process_time()
        report = similarity.compare(cohort.answers, cohort.stubs, MODULE, code=code)
        print(f"{size} students: {time.perf_counter() - start:.2f} s wall, {time.process_time() - cpu:.2f} s of "
              f"CPU ({len(report.pairs)} pairs reported)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
