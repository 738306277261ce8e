"""A second tuning cohort of module 05: the honest students of :mod:`.planted_05` and copiers with disguises that
cohort does not hold (module 06's cohort is kept out of all tuning).

Each copier takes every answer of one classmate and disguises some of them, one kind of disguise each:
conditions negated and turned inside out (De Morgan, ``not a == b``, conditional expressions flipped);
``if``/``else`` statements for conditional expressions and ``str.format`` for f-strings; arguments passed by
keyword in another order; loop headers rewritten (the batch unpacked in the body, ``enumerate`` with an unused
index, ``range(0, n)``); a helper extracted and called more than once; augmented assignments written out;
other spellings of the same call (``zero_grad(set_to_none=True)``, ``torch.no_grad()`` called on a lambda for
the ``with`` block, ``.to(device=device)``, ``dim=`` by keyword); one cell taken from each of two classmates.  The truth follows from where each answer came from
(:func:`.planted.assemble`).
"""

from __future__ import annotations

from .planted import Copy, Planted, assemble
from .planted_05 import AC, CANONICAL_OWN_NAMES, EV, FI, HONEST, MODULE, PP, RE

_NEGATED = {  # honest-06's conditions negated and turned inside out
    "evaluate": EV + """\
    keep = model.training
    model.train(False)
    numerator = 0.0
    denominator = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            if not (output.shape == target.shape):
                output = output.view_as(target)
            numerator += loss_fn(output, target).item() * target.size(0)
            denominator += target.size(0)
    model.train(keep)
    return numerator / (denominator if not denominator < 1 else 1)
""",
    "accuracy": AC + """\
    keep = model.training
    model.train(False)
    good = 0
    count = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            good += torch.sum((output > 0.0).float() == target).item()
            count += target.numel()
    model.train(keep)
    return good / (1 if not count > 1 else count)
""",
    "repair_evaluate": RE + """\
    keep = model.training
    model.train(False)
    numerator, denominator = 0.0, 0
    with torch.no_grad():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            numerator += loss_fn(model(inputs), targets).item() * targets.size(0)
            denominator += targets.size(0)
    if not (not keep or False):
        model.train()
    else:
        model.eval()
    return numerator / denominator
""",
}

_STATEMENTS = {  # honest-08's conditional expressions as if/else statements, its f-string as str.format
    "evaluate": EV + """\
    if model.training:
        restore = model.train
    else:
        restore = model.eval
    model.eval()
    sum_loss, n_items = 0.0, 0
    with torch.no_grad():
        for x_batch, y_batch in loader:
            x_batch, y_batch = x_batch.to(device), y_batch.to(device)
            per_item = loss_fn(model(x_batch), y_batch).item()
            sum_loss += per_item * len(x_batch)
            n_items += len(x_batch)
    restore()
    return sum_loss / n_items
""",
    "accuracy": AC + """\
    if not model.training:
        restore = model.eval
    else:
        restore = model.train
    model.eval()
    ok, n_items = 0, 0
    with torch.no_grad():
        for x_batch, y_batch in loader:
            x_batch, y_batch = x_batch.to(device), y_batch.to(device)
            ok += (model(x_batch).sign().clamp(min=0) == y_batch).sum().item()
            n_items += y_batch.numel()
    restore()
    return ok / n_items
""",
    "fit": FI + """\
    out = {"train_loss": [], "val_loss": []}
    for epoch in range(epochs):
        model.train()
        sum_loss, n_items = 0.0, 0
        for x_batch, y_batch in train_loader:
            x_batch, y_batch = x_batch.to(device), y_batch.to(device)
            optimizer.zero_grad()
            batch_loss = loss_fn(model(x_batch), y_batch)
            batch_loss.backward()
            optimizer.step()
            sum_loss += batch_loss.item() * len(x_batch)
            n_items += len(x_batch)
        out["train_loss"].append(sum_loss / n_items)
        out["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
        print("epoch {}: train {:.4f} val {:.4f}".format(epoch, out['train_loss'][-1], out['val_loss'][-1]))
    return out
""",
}

_KEYWORDS = {  # honest-01's calls with their arguments by keyword, in another order
    "evaluate": EV + """\
    mode = model.training
    model.eval()
    loss_sum = 0.0
    n = 0
    with torch.no_grad():
        for xb, yb in loader:
            xb = xb.to(device=device)
            yb = yb.to(device=device)
            batch_loss = loss_fn(model(xb), yb)
            loss_sum += batch_loss.item() * xb.shape[0]
            n += xb.shape[0]
    model.train(mode=mode)
    return loss_sum / n
""",
    "fit": FI + """\
    train_losses, val_losses = [], []
    for epoch in range(epochs):
        model.train()
        loss_sum, n = 0.0, 0
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * xb.shape[0]
            n += xb.shape[0]
        train_losses.append(loss_sum / n)
        val_losses.append(evaluate(model, device=device, loss_fn=loss_fn, loader=val_loader))
    return dict(val_loss=val_losses, train_loss=train_losses)
""",
}

_HEADERS = {  # honest-02's loop headers rewritten
    "evaluate": EV + """\
    previous = model.training
    model.eval()
    losses, sizes = [], []
    with torch.no_grad():
        for batch in loader:
            inputs, targets = batch
            inputs, targets = inputs.to(device), targets.to(device)
            losses.append(loss_fn(model(inputs), targets).item())
            sizes.append(len(inputs))
    model.train(previous)
    weighted = sum(l * s for l, s in zip(losses, sizes))
    return weighted / sum(sizes)
""",
    "accuracy": AC + """\
    previous = model.training
    model.eval()
    correct = torch.tensor(0)
    seen = 0
    with torch.no_grad():
        for i, (inputs, targets) in enumerate(loader):
            inputs, targets = inputs.to(device), targets.to(device)
            logits = model(inputs)
            correct += ((logits > 0) == (targets > 0.5)).sum().cpu()
            seen += targets.numel()
    model.train(previous)
    return correct.item() / seen
""",
    "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    for _ in range(0, epochs):
        model.train()
        epoch_total = 0.0
        epoch_count = 0
        for batch in train_loader:
            inputs, targets = batch
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = loss_fn(outputs, targets)
            loss.backward()
            optimizer.step()
            epoch_total += loss.item() * len(inputs)
            epoch_count += len(inputs)
        history["train_loss"].append(epoch_total / epoch_count)
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
""",
}

_EXTRACTED = {  # honest-05's repeated expressions moved into helpers, each called more than once
    "evaluate": EV + """\
    def move(t):
        return t.to(device)

    training_before = model.training
    model.eval()
    all_losses = []
    all_counts = []
    with torch.no_grad():
        for batch_x, batch_y in loader:
            batch_x = move(batch_x)
            batch_y = move(batch_y)
            prediction = model(batch_x)
            all_losses.append(loss_fn(prediction, batch_y).item())
            all_counts.append(batch_x.shape[0])
    if training_before:
        model.train()
    else:
        model.eval()
    total = 0.0
    for value, count in zip(all_losses, all_counts):
        total += value * count
    return total / sum(all_counts)
""",
    "accuracy": AC + """\
    def move(t):
        return t.to(device)

    def hard(t):
        return t.long()

    training_before = model.training
    model.eval()
    matches = []
    with torch.no_grad():
        for batch_x, batch_y in loader:
            batch_x = move(batch_x)
            batch_y = move(batch_y)
            labels = hard(model(batch_x) > 0)
            matches.append((labels == hard(batch_y)).flatten())
    model.train(training_before)
    return torch.cat(matches).float().mean().item()
""",
}

_WRITTEN_OUT = {  # honest-07's augmented assignments written out, tuples unpacked by index
    "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        model.train()
        batch_losses, batch_sizes = [], []
        for batch in train_loader:
            x = batch[0].to(device)
            y = batch[1].to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
            batch_sizes.append(len(y))
        total = 0
        for l, n in zip(batch_losses, batch_sizes):
            total = total + l * n
        epoch_loss = total / sum(batch_sizes)
        history["train_loss"].append(epoch_loss)
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
""",
}

_RESPELLED = {  # honest-03's calls in other spellings
    "accuracy": AC + """\
    state = model.training
    model.eval()
    right = wrong = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device=device), y.to(device=device)
            pred = torch.gt(model(x), 0).to(torch.float32)
            agree = torch.eq(pred, y).sum(dim=None).item()
            right += agree
            wrong += torch.numel(y) - agree
    model.train(mode=state)
    return right / (right + wrong)
""",
    "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    for epoch in range(epochs):
        model.train(True)
        total = torch.zeros((), dtype=torch.float64)
        count = 0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model.forward(x), y)
            loss.backward()
            optimizer.step()
            total += loss.detach().to(torch.float64) * x.shape[0]
            count += x.shape[0]
        history["train_loss"].append(torch.div(total, count).item())
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
""",
    "repair_evaluate": RE + """\
    state = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            total += loss_fn(model(inputs), targets).item() * inputs.shape[0]
            count += inputs.shape[0]
    model.train(state)
    return total / count
""",
}

_DECORATED = {  # honest-04's no_grad blocks and loops respelled
    "predict_proba": PP + """\
    was_in_training = model.training
    model.eval()
    p = torch.no_grad()(lambda: torch.sigmoid(model(x)))()
    if was_in_training:
        model.train()
    return p
""",
    "fit": FI + """\
    train_curve = []
    val_curve = []
    epoch = 1
    while epoch <= epochs:
        model.train()
        running = 0.0
        examples = 0
        for batch in train_loader:
            features, labels = (t.to(device) for t in batch)
            out = model(features)
            loss = loss_fn(out, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            running = running + float(loss) * labels.shape[0]
            examples = examples + labels.shape[0]
        train_curve.append(running / examples)
        val_curve.append(evaluate(model, val_loader, loss_fn, device))
        epoch += 1
    return dict(train_loss=train_curve, val_loss=val_curve)
""",
}

_MERGED = {  # honest-07's evaluate and honest-08's fit, renamed, in one notebook
    "evaluate": EV + """\
    def per_batch():
        for inp, tgt in loader:
            inp, tgt = inp.to(device), tgt.to(device)
            yield loss_fn(model(inp), tgt).item() * len(tgt), len(tgt)

    was = model.training
    model.eval()
    with torch.no_grad():
        rows = list(per_batch())
    model.train(was)
    return sum(r[0] for r in rows) / sum(r[1] for r in rows)
""",
    "fit": FI + """\
    curves = {"train_loss": [], "val_loss": []}
    for ep in range(epochs):
        model.train()
        acc, cnt = 0.0, 0
        for xs, ys in train_loader:
            xs, ys = xs.to(device), ys.to(device)
            optimizer.zero_grad()
            l = loss_fn(model(xs), ys)
            l.backward()
            optimizer.step()
            acc += l.item() * len(xs)
            cnt += len(xs)
        curves["train_loss"].append(acc / cnt)
        curves["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
        print(f"epoch {ep}: train {curves['train_loss'][-1]:.4f} val {curves['val_loss'][-1]:.4f}")
    return curves
""",
}

_ALL = ("evaluate", "accuracy", "predict_proba", "fit", "repair_evaluate")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells if cell in HONEST[classmate]}


COPIES = [
    Copy("copier-negated", "conditions negated and turned inside out", _taken("honest-06"), _NEGATED),
    Copy("copier-statements", "if/else statements for conditional expressions, str.format for f-strings",
         _taken("honest-08"), _STATEMENTS),
    Copy("copier-keywords", "arguments by keyword, in another order", _taken("honest-01"), _KEYWORDS),
    Copy("copier-headers", "loop headers rewritten", _taken("honest-02"), _HEADERS),
    Copy("copier-extracted", "helpers extracted and called more than once", _taken("honest-05"), _EXTRACTED),
    Copy("copier-written-out", "augmented assignments written out, tuples indexed", _taken("honest-07"), _WRITTEN_OUT),
    Copy("copier-respelled", "other spellings of the same calls", _taken("honest-03"), _RESPELLED),
    Copy("copier-decorated", "no_grad called, while for range, sums written out", _taken("honest-04"), _DECORATED),
    Copy("copier-merged", "two classmates merged, renamed", {"evaluate": "honest-07", "fit": "honest-08"}, _MERGED,
         {"accuracy": AC + """\
    before = model.training
    model.eval()
    yes = 0
    alls = 0
    with torch.no_grad():
        for a, b in loader:
            z = model(a.to(device)).squeeze(-1)
            yes += int(((z >= 0).long() == b.to(device).view(-1).long()).sum())
            alls += b.numel()
    model.train(before)
    return yes / alls
"""}),
]


def planted_cohort() -> Planted:
    """The second tuning cohort of module 05 (nineteen students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, ("evaluate", "accuracy"))
