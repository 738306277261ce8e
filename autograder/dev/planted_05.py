"""A planted cohort of module 05 to tune ``similarity`` on (module 06's cohort is kept out of all tuning).

Eight honest students in their own styles; two write the course's answer (one word for word, one in their own
names); eight copy with the disguises students use: unused names and dead branches, ``while`` loops for ``for``
loops, ``if``/``else`` swapped behind a ``not``, other spellings of the same PyTorch calls, a helper function
nested inside the answer, temporaries added, a chain and a merge.  The truth follows from where each answer
came from (:func:`.planted.assemble`).
"""

from __future__ import annotations

from .planted import Copy, Planted, assemble

MODULE = "05-train-vs-eval"

EV = "def evaluate(model, loader, loss_fn, device):\n"
AC = "def accuracy(model, loader, device):\n"
PP = "def predict_proba(model, x):\n"
FI = "def fit(model, train_loader, val_loader, optimizer, loss_fn, epochs, device):\n"
RE = "def repair_evaluate(model, loader, loss_fn, device):\n"

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {
        "evaluate": EV + """\
    mode = model.training
    model.eval()
    loss_sum = 0.0
    n = 0
    with torch.no_grad():
        for xb, yb in loader:
            xb = xb.to(device)
            yb = yb.to(device)
            batch_loss = loss_fn(model(xb), yb)
            loss_sum += batch_loss.item() * xb.shape[0]
            n += xb.shape[0]
    model.train(mode)
    return loss_sum / n
""",
        "accuracy": AC + """\
    mode = model.training
    model.eval()
    hits = 0
    total = 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            guess = (model(xb) > 0).to(yb.dtype)
            hits += int((guess == yb).sum())
            total += yb.numel()
    model.train(mode)
    return hits / total
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
        val_losses.append(evaluate(model, val_loader, loss_fn, device))
    return {"train_loss": train_losses, "val_loss": val_losses}
""",
    },
    "honest-02": {
        "evaluate": EV + """\
    previous = model.training
    model.eval()
    losses, sizes = [], []
    with torch.no_grad():
        for inputs, targets in loader:
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
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            logits = model(inputs)
            correct += ((logits > 0) == (targets > 0.5)).sum().cpu()
            seen += targets.numel()
    model.train(previous)
    return correct.item() / seen
""",
        "predict_proba": PP + """\
    previous = model.training
    model.eval()
    with torch.no_grad():
        logits = model(x)
        probs = torch.sigmoid(logits)
    model.train(previous)
    return probs
""",
        "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        model.train()
        epoch_total = 0.0
        epoch_count = 0
        for inputs, targets in train_loader:
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
    },
    "honest-03": {
        "evaluate": EV + """\
    state = model.training
    try:
        model.eval()
        with torch.inference_mode():
            total = torch.zeros((), dtype=torch.float64)
            count = 0
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                total += loss_fn(model(x), y).double() * x.size(0)
                count += x.size(0)
        return (total / count).item()
    finally:
        model.train(state)
""",
        "accuracy": AC + """\
    state = model.training
    model.eval()
    right = wrong = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            pred = model(x).gt(0).float()
            agree = pred.eq(y).sum().item()
            right += agree
            wrong += y.numel() - agree
    model.train(state)
    return right / (right + wrong)
""",
        "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    for epoch in range(epochs):
        model.train()
        total = torch.zeros((), dtype=torch.float64)
        count = 0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.detach().double() * x.size(0)
            count += x.size(0)
        history["train_loss"].append((total / count).item())
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
            total += loss_fn(model(inputs), targets).item() * inputs.size(0)
            count += inputs.size(0)
    model.train(state)
    return total / count
""",
    },
    "honest-04": {
        "evaluate": EV + """\
    was_in_training = model.training
    model.eval()
    running = 0.0
    examples = 0
    for batch in loader:
        features, labels = (t.to(device) for t in batch)
        with torch.no_grad():
            out = model(features)
            running += float(loss_fn(out, labels)) * labels.shape[0]
        examples += labels.shape[0]
    if was_in_training:
        model.train()
    return running / examples
""",
        "accuracy": AC + """\
    was_in_training = model.training
    model.eval()
    n_right, n_all = 0, 0
    for batch in loader:
        features, labels = (t.to(device) for t in batch)
        with torch.no_grad():
            predicted = torch.sigmoid(model(features)) >= 0.5
        n_right += (predicted.float() == labels).sum().item()
        n_all += labels.shape[0] * (labels.shape[1] if labels.dim() > 1 else 1)
    if was_in_training:
        model.train()
    return n_right / n_all
""",
        "predict_proba": PP + """\
    was_in_training = model.training
    model.eval()
    with torch.no_grad():
        p = model(x).sigmoid()
    if was_in_training:
        model.train()
    return p
""",
        "fit": FI + """\
    train_curve = []
    val_curve = []
    for epoch in range(1, epochs + 1):
        model.train()
        running = 0.0
        examples = 0
        for batch in train_loader:
            features, labels = (t.to(device) for t in batch)
            out = model(features)
            loss = loss_fn(out, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += float(loss) * labels.shape[0]
            examples += labels.shape[0]
        train_curve.append(running / examples)
        val_curve.append(evaluate(model, val_loader, loss_fn, device))
    return dict(train_loss=train_curve, val_loss=val_curve)
""",
    },
    "honest-05": {
        "evaluate": EV + """\
    training_before = model.training
    model.eval()
    all_losses = []
    all_counts = []
    with torch.no_grad():
        for batch_x, batch_y in loader:
            batch_x = batch_x.to(device)
            batch_y = batch_y.to(device)
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
    training_before = model.training
    model.eval()
    matches = []
    with torch.no_grad():
        for batch_x, batch_y in loader:
            batch_x = batch_x.to(device)
            batch_y = batch_y.to(device)
            labels = (model(batch_x) > 0).long()
            matches.append((labels == batch_y.long()).flatten())
    model.train(training_before)
    return torch.cat(matches).float().mean().item()
""",
        "fit": FI + """\
    result = {"train_loss": [], "val_loss": []}
    epoch = 0
    while epoch < epochs:
        model.train()
        weighted_sum, examples = 0.0, 0
        for batch_x, batch_y in train_loader:
            batch_x, batch_y = batch_x.to(device), batch_y.to(device)
            prediction = model(batch_x)
            loss = loss_fn(prediction, batch_y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            weighted_sum += loss.item() * batch_x.shape[0]
            examples += batch_x.shape[0]
        result["train_loss"].append(weighted_sum / examples)
        result["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
        epoch += 1
    return result
""",
    },
    "honest-06": {
        "evaluate": EV + """\
    keep = model.training
    model.train(False)
    numerator = 0.0
    denominator = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            if output.shape != target.shape:
                output = output.view_as(target)
            numerator += loss_fn(output, target).item() * target.size(0)
            denominator += target.size(0)
    model.train(keep)
    return numerator / max(denominator, 1)
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
    return good / max(count, 1)
""",
        "predict_proba": PP + """\
    keep = model.training
    model.train(False)
    with torch.no_grad():
        out = torch.sigmoid(model(x))
    model.train(keep)
    return out
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
    model.train(keep)
    return numerator / denominator
""",
    },
    "honest-07": {
        "evaluate": EV + """\
    def batch_losses():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            yield loss_fn(model(x), y).item() * len(y), len(y)

    old_mode = model.training
    model.eval()
    with torch.no_grad():
        pairs = list(batch_losses())
    model.train(old_mode)
    return sum(p[0] for p in pairs) / sum(p[1] for p in pairs)
""",
        "accuracy": AC + """\
    old_mode = model.training
    model.eval()
    scores = []
    targets = []
    with torch.no_grad():
        for x, y in loader:
            scores.append(model(x.to(device)).cpu())
            targets.append(y.cpu())
    model.train(old_mode)
    scores, targets = torch.cat(scores), torch.cat(targets)
    return ((scores > 0).float() == targets).float().mean().item()
""",
        "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        model.train()
        batch_losses, batch_sizes = [], []
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
            batch_sizes.append(len(y))
        epoch_loss = sum(l * n for l, n in zip(batch_losses, batch_sizes)) / sum(batch_sizes)
        history["train_loss"].append(epoch_loss)
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
""",
    },
    "honest-08": {
        "evaluate": EV + """\
    restore = model.train if model.training else model.eval
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
    restore = model.train if model.training else model.eval
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
        print(f"epoch {epoch}: train {out['train_loss'][-1]:.4f} val {out['val_loss'][-1]:.4f}")
    return out
""",
    },
}

CANONICAL_OWN_NAMES = {
    "evaluate": EV + """\
    mode = model.training
    model.eval()
    s, n = 0.0, 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            s += loss_fn(model(xb), yb).item() * len(xb)
            n += len(xb)
    model.train(mode)
    return s / n
""",
    "accuracy": AC + """\
    mode = model.training
    model.eval()
    hits, n = 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            preds = (model(xb) > 0).float()
            hits += (preds == yb).sum().item()
            n += yb.numel()
    model.train(mode)
    return hits / n
""",
}

_DEAD = {
    "evaluate": EV + """\
    mode = model.training
    debug = False
    model.eval()
    loss_sum = 0.0
    n = 0
    n_batches = 0
    with torch.no_grad():
        for xb, yb in loader:
            n_batches += 1
            xb = xb.to(device)
            yb = yb.to(device)
            batch_loss = loss_fn(model(xb), yb)
            if debug:
                print(batch_loss)
            loss_sum += batch_loss.item() * xb.shape[0]
            n += xb.shape[0]
    model.train(mode)
    return loss_sum / n
""",
    "fit": FI + """\
    train_losses, val_losses = [], []
    best = None
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
        v = evaluate(model, val_loader, loss_fn, device)
        val_losses.append(v)
        unused = len(val_losses)
    return {"train_loss": train_losses, "val_loss": val_losses}
""",
}

_WHILE = {
    "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    e = 0
    while e < epochs:
        model.train()
        epoch_total = 0.0
        epoch_count = 0
        for inputs, targets in train_loader:
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
        e += 1
    return history
""",
    "accuracy": AC + """\
    previous = model.training
    model.eval()
    correct = torch.tensor(0)
    seen = 0
    batches = list(loader)
    i = 0
    with torch.no_grad():
        while i < len(batches):
            inputs, targets = batches[i]
            inputs, targets = inputs.to(device), targets.to(device)
            logits = model(inputs)
            correct += ((logits > 0) == (targets > 0.5)).sum().cpu()
            seen += targets.numel()
            i += 1
    model.train(previous)
    return correct.item() / seen
""",
}

_SWAPPED = {
    "evaluate": EV + """\
    was_in_training = model.training
    model.eval()
    running = 0.0
    examples = 0
    for batch in loader:
        features, labels = (t.to(device) for t in batch)
        with torch.no_grad():
            out = model(features)
            running += float(loss_fn(out, labels)) * labels.shape[0]
        examples += labels.shape[0]
    if not was_in_training:
        pass
    else:
        model.train()
    return running / examples
""",
    "accuracy": AC + """\
    was_in_training = model.training
    model.eval()
    n_right, n_all = 0, 0
    for batch in loader:
        features, labels = (t.to(device) for t in batch)
        with torch.no_grad():
            predicted = torch.sigmoid(model(features)) >= 0.5
        n_right += (predicted.float() == labels).sum().item()
        if not labels.dim() > 1:
            n_all += labels.shape[0] * 1
        else:
            n_all += labels.shape[0] * labels.shape[1]
    if was_in_training:
        model.train()
    return n_right / n_all
""",
}

_SPELLED = {
    "evaluate": EV + """\
    keep = model.training
    model.eval()
    numerator = 0.0
    denominator = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model.forward(data)
            if output.size() != target.size():
                output = output.reshape(target.shape)
            numerator += loss_fn(output, target).item() * target.shape[0]
            denominator += target.shape[0]
    model.train(keep)
    return numerator / max(denominator, 1)
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
            good += ((output > 0.0).float() == target).sum().item()
            count += torch.numel(target)
    model.train(keep)
    return good / max(count, 1)
""",
}

_NESTED = {
    "fit": FI + """\
    def one_epoch():
        model.train()
        batch_losses, batch_sizes = [], []
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
            batch_sizes.append(len(y))
        return sum(l * n for l, n in zip(batch_losses, batch_sizes)) / sum(batch_sizes)

    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        history["train_loss"].append(one_epoch())
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
""",
    "accuracy": AC + """\
    old_mode = model.training
    model.eval()
    scores = []
    targets = []
    to_cpu = lambda t: t.cpu()
    with torch.no_grad():
        for x, y in loader:
            scores.append(to_cpu(model(x.to(device))))
            targets.append(to_cpu(y))
    model.train(old_mode)
    scores, targets = torch.cat(scores), torch.cat(targets)
    return ((scores > 0).float() == targets).float().mean().item()
""",
}

_TEMPS = {
    "evaluate": EV + """\
    restore = model.train if model.training else model.eval
    model.eval()
    sum_loss, n_items = 0.0, 0
    with torch.no_grad():
        for x_batch, y_batch in loader:
            x_batch, y_batch = x_batch.to(device), y_batch.to(device)
            logits = model(x_batch)
            per_item = loss_fn(logits, y_batch).item()
            size = len(x_batch)
            sum_loss += per_item * size
            n_items += size
    restore()
    return sum_loss / n_items
""",
    "fit": FI + """\
    out = {"train_loss": [], "val_loss": []}
    for epoch in range(epochs):
        model.train()
        sum_loss, n_items = 0.0, 0
        for x_batch, y_batch in train_loader:
            x_batch, y_batch = x_batch.to(device), y_batch.to(device)
            optimizer.zero_grad()
            pred = model(x_batch)
            batch_loss = loss_fn(pred, y_batch)
            batch_loss.backward()
            optimizer.step()
            sum_loss += batch_loss.item() * len(x_batch)
            n_items += len(x_batch)
        train_value = sum_loss / n_items
        out["train_loss"].append(train_value)
        val_value = evaluate(model, val_loader, loss_fn, device)
        out["val_loss"].append(val_value)
        print(f"epoch {epoch}: train {out['train_loss'][-1]:.4f} val {out['val_loss'][-1]:.4f}")
    return out
""",
}

_CHAIN_2 = {  # copies chain-1 (who copied honest-03) and turns the try/finally into plain code
    "evaluate": EV + """\
    state = model.training
    model.eval()
    with torch.inference_mode():
        total = torch.zeros((), dtype=torch.float64)
        count = 0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y).double() * x.size(0)
            count += x.size(0)
    model.train(state)
    return (total / count).item()
""",
}

_CHAIN_1 = {
    "fit": FI + """\
    history = {"train_loss": [], "val_loss": []}
    for epoch in range(epochs):
        model.train()
        total = torch.zeros((), dtype=torch.float64)
        count = 0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            count += x.size(0)
            total += loss.detach().double() * x.size(0)
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
        history["train_loss"].append((total / count).item())
    return history
""",
}

_MERGED = {
    "evaluate": EV + """\
    training_before = model.training
    model.eval()
    all_losses = []
    all_counts = []
    with torch.no_grad():
        for batch_x, batch_y in loader:
            batch_x, batch_y = batch_x.to(device), batch_y.to(device)
            all_losses.append(loss_fn(model(batch_x), batch_y).item())
            all_counts.append(batch_x.shape[0])
    model.train(training_before)
    total = sum(value * count for value, count in zip(all_losses, all_counts))
    return total / sum(all_counts)
""",
}

_ALL = ("evaluate", "accuracy", "predict_proba", "fit", "repair_evaluate")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells if cell in HONEST[classmate]}


COPIES = [
    Copy("copier-dead", "dead code and unused names", _taken("honest-01"), _DEAD),
    Copy("copier-while", "while loops for for loops", _taken("honest-02"), _WHILE),
    Copy("copier-swapped", "branches swapped behind a not", _taken("honest-04"), _SWAPPED),
    Copy("copier-spelled", "other spellings of the same calls", _taken("honest-06"), _SPELLED),
    Copy("copier-nested", "a nested helper and a lambda", _taken("honest-07"), _NESTED),
    Copy("copier-temps", "temporaries added", _taken("honest-08"), _TEMPS),
    Copy("chain-1", "statements reordered (first link of a chain)", _taken("honest-03"), _CHAIN_1),
    Copy("chain-2", "try/finally unwrapped (second link of a chain)",
         {cell: "chain-1" for cell in _ALL if cell in HONEST["honest-03"]}, _CHAIN_2),
    Copy("copier-merge", "two classmates merged", {"evaluate": "honest-05", "fit": "honest-02"}, _MERGED,
         {"accuracy": AC + """\
    m = model.training
    model.eval()
    c = t = 0
    with torch.no_grad():
        for a, b in loader:
            out = model(a.to(device))
            c += ((out > 0) == b.to(device).bool()).sum().item()
            t += b.numel()
    model.train(m)
    return c / t
"""}),
]


def planted_cohort() -> Planted:
    """The tuning cohort of module 05 (twenty students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, ("evaluate", "accuracy"))
