"""A third planted cohort of module 05, written before the normaliser was changed for it and kept out of its
tuning: it measures how far the normaliser's rules reach past the disguises they were written for.

The honest students and the course's answers are :mod:`.planted_05`'s; ten copiers disguise what they took
one way each: assignment expressions (``:=``) and inline conditionals; running sums kept as lists summed at the
end; ``torch.no_grad()`` widened to the whole body; other spellings of sizes, comparisons and dtypes
(``x.size(0)``, ``len(x)``, ``x.shape[0]``; ``t.gt(0)``, ``t > 0``; ``.double()``, ``.to(torch.float64)``); a
``for`` loop as ``while True`` with a counter and a ``break``; result dictionaries built key by key; the
answer moved into a callable class; batches indexed or star-unpacked; the mode restored in a ``finally``;
other literals and dtype conversions (``0.0``, ``float(0)``, ``.to(torch.float32)``).
"""

from __future__ import annotations

from .planted import Copy, Planted, assemble
from .planted_05 import AC, CANONICAL_OWN_NAMES, EV, FI, HONEST, MODULE, PP

__all__ = ["MODULE", "HONEST", "COPIES", "planted_cohort"]

_WALRUS = {  # honest-01's evaluate and accuracy with assignment expressions
    "evaluate": EV + """\
    mode = model.training
    model.eval()
    loss_sum = 0.0
    n = 0
    with torch.no_grad():
        for xb, yb in loader:
            xb = xb.to(device)
            yb = yb.to(device)
            loss_sum += (batch_loss := loss_fn(model(xb), yb)).item() * (size := xb.shape[0])
            n += size
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
            hits += int(((guess := (model(xb) > 0).to(yb.dtype)) == yb).sum())
            total += yb.numel()
    model.train(mode)
    return hits / total
""",
}

_LISTS = {  # honest-01's fit with its running sums kept as lists and summed at the end
    "fit": FI + """\
    train_losses, val_losses = [], []
    for epoch in range(epochs):
        model.train()
        weighted, sizes = [], []
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            weighted.append(loss.item() * xb.shape[0])
            sizes.append(xb.shape[0])
        train_losses.append(sum(weighted) / sum(sizes))
        val_losses.append(evaluate(model, val_loader, loss_fn, device))
    return {"train_loss": train_losses, "val_loss": val_losses}
""",
}

_NO_GRAD = {  # honest-04's no_grad blocks widened to the whole body
    "evaluate": EV + """\
    was_in_training = model.training
    model.eval()
    with torch.no_grad():
        running = 0.0
        examples = 0
        for batch in loader:
            features, labels = (t.to(device) for t in batch)
            out = model(features)
            running += float(loss_fn(out, labels)) * labels.shape[0]
            examples += labels.shape[0]
    if was_in_training:
        model.train()
    return running / examples
""",
    "accuracy": AC + """\
    with torch.no_grad():
        was_in_training = model.training
        model.eval()
        n_right, n_all = 0, 0
        for batch in loader:
            features, labels = (t.to(device) for t in batch)
            predicted = torch.sigmoid(model(features)) >= 0.5
            n_right += (predicted.float() == labels).sum().item()
            n_all += labels.shape[0] * (labels.shape[1] if labels.dim() > 1 else 1)
        if was_in_training:
            model.train()
    return n_right / n_all
""",
    "predict_proba": PP + """\
    with torch.no_grad():
        was_in_training = model.training
        model.eval()
        p = model(x).sigmoid()
        if was_in_training:
            model.train()
        return p
""",
}

_SIZES = {  # honest-03's sizes, comparisons and dtypes spelled another way
    "evaluate": EV + """\
    state = model.training
    try:
        model.eval()
        with torch.inference_mode():
            total = torch.zeros((), dtype=torch.float64)
            count = 0
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                total += loss_fn(model(x), y).to(torch.float64) * len(x)
                count += x.shape[0]
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
            pred = (model(x) > 0).float()
            agree = torch.sum(pred == y).item()
            right += agree
            wrong += y.numel() - agree
    model.train(state)
    return right / (right + wrong)
""",
}

_WHILE_TRUE = {  # honest-04's epoch loop as while True with a counter and a break
    "fit": FI + """\
    train_curve = []
    val_curve = []
    epoch = 1
    while True:
        if epoch > epochs:
            break
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
        epoch += 1
    return dict(train_loss=train_curve, val_loss=val_curve)
""",
}

_KEY_BY_KEY = {  # honest-03's history built key by key
    "fit": FI + """\
    history = {}
    history["train_loss"] = []
    history["val_loss"] = []
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
        train_loss = (total / count).item()
        history["train_loss"] += [train_loss]
        val_loss = evaluate(model, val_loader, loss_fn, device)
        history["val_loss"] += [val_loss]
    return history
""",
}

_CALLABLE = {  # honest-07's evaluate moved into a callable class
    "evaluate": """\
class _Evaluator:
    def __init__(self, loss_fn, device):
        self.loss_fn = loss_fn
        self.device = device

    def __call__(self, model, loader):
        old_mode = model.training
        model.eval()
        with torch.no_grad():
            pairs = []
            for x, y in loader:
                x, y = x.to(self.device), y.to(self.device)
                pairs.append((self.loss_fn(model(x), y).item() * len(y), len(y)))
        model.train(old_mode)
        return sum(p[0] for p in pairs) / sum(p[1] for p in pairs)


""" + EV + """\
    return _Evaluator(loss_fn, device)(model, loader)
""",
}

_BATCHES = {  # honest-08's batches indexed and star-unpacked
    "fit": FI + """\
    out = {"train_loss": [], "val_loss": []}
    for epoch in range(epochs):
        model.train()
        sum_loss, n_items = 0.0, 0
        for batch in train_loader:
            x_batch, y_batch, *_ = batch
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
    "accuracy": AC + """\
    restore = model.train if model.training else model.eval
    model.eval()
    ok, n_items = 0, 0
    with torch.no_grad():
        for batch in loader:
            x_batch, y_batch = batch[0].to(device), batch[1].to(device)
            ok += (model(x_batch).sign().clamp(min=0) == y_batch).sum().item()
            n_items += y_batch.numel()
    restore()
    return ok / n_items
""",
}

_FINALLY = {  # honest-08's evaluate restoring the mode in a finally
    "evaluate": EV + """\
    restore = model.train if model.training else model.eval
    model.eval()
    try:
        sum_loss, n_items = 0.0, 0
        with torch.no_grad():
            for x_batch, y_batch in loader:
                x_batch, y_batch = x_batch.to(device), y_batch.to(device)
                per_item = loss_fn(model(x_batch), y_batch).item()
                sum_loss += per_item * len(x_batch)
                n_items += len(x_batch)
        return sum_loss / n_items
    finally:
        restore()
""",
}

_LITERALS = {  # honest-07's accuracy and fit with other literals and conversions
    "accuracy": AC + """\
    old_mode = model.training
    model.eval()
    scores = list()
    targets = list()
    with torch.no_grad():
        for x, y in loader:
            scores.append(model(x.to(device)).to("cpu"))
            targets.append(y.to("cpu"))
    model.train(old_mode)
    scores, targets = torch.cat(scores), torch.cat(targets)
    return ((scores > 0.0).to(torch.float32) == targets).to(torch.float32).mean().item()
""",
    "fit": FI + """\
    history = dict(train_loss=list(), val_loss=list())
    for _ in range(0, epochs):
        model.train()
        batch_losses, batch_sizes = list(), list()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            batch_losses.append(float(loss))
            batch_sizes.append(int(len(y)))
        epoch_loss = sum(l * n for l, n in zip(batch_losses, batch_sizes)) / sum(batch_sizes)
        history["train_loss"].append(epoch_loss)
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
""",
}

_ALL = ("evaluate", "accuracy", "predict_proba", "fit", "repair_evaluate")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells if cell in HONEST[classmate]}


COPIES = [
    Copy("copier-walrus", "assignment expressions", _taken("honest-01", ("evaluate", "accuracy")), _WALRUS),
    Copy("copier-lists", "running sums kept as lists", _taken("honest-01", ("fit",)), _LISTS),
    Copy("copier-no-grad", "no_grad widened to the whole body", _taken("honest-04", ("evaluate", "accuracy",
                                                                                     "predict_proba")), _NO_GRAD),
    Copy("copier-sizes", "sizes, comparisons and dtypes spelled another way",
         _taken("honest-03", ("evaluate", "accuracy")), _SIZES),
    Copy("copier-while-true", "while True with a counter and a break", _taken("honest-04", ("fit",)), _WHILE_TRUE),
    Copy("copier-key-by-key", "result dictionaries built key by key", _taken("honest-03", ("fit",)), _KEY_BY_KEY),
    Copy("copier-callable", "the answer in a callable class", _taken("honest-07", ("evaluate",)), _CALLABLE),
    Copy("copier-batches", "batches indexed and star-unpacked", _taken("honest-08", ("fit", "accuracy")), _BATCHES),
    Copy("copier-finally", "the mode restored in a finally", _taken("honest-08", ("evaluate",)), _FINALLY),
    Copy("copier-literals", "other literals and conversions", _taken("honest-07", ("accuracy", "fit")), _LITERALS),
]


def planted_cohort() -> Planted:
    """The held-out cohort of module 05 (twenty students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, ("evaluate", "accuracy"))
