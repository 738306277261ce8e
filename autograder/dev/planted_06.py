"""A planted cohort of module 06 kept out of all tuning: ``similarity`` is measured on it, never adjusted to it.

Nine honest students answer in their own styles; two write the course's answer (one hands in the reference
word for word, one in their own names); eight copy, disguising the way students do: dead code and debugging
prints added, ``for`` loops rewritten as ``while`` loops, guard clauses turned into nested ``if``/``else`` with
the conditions negated, equivalent PyTorch spellings, code moved into a nested function or a lambda, temporary
variables added or folded away, a chain (one copies a copier) and a merge (one copier takes from two
classmates), and half the cells copied, the rest written alone.  The truth follows from where each answer came
from (:func:`.planted.assemble`).
"""

from __future__ import annotations

from .planted import Copy, Planted, assemble

MODULE = "06-failure-modes"

ML = "def make_loaders(dataset, batch_size, val_fraction, generator):\n"
LS = "def lr_sweep(make_model, x, y, lrs, steps):\n"
PL = "def pick_lr(sweep):\n"
OD = "def overfit_diagnosis(model, x, y, optimizer, loss_fn, steps=100):\n"
HC = "def health_check(model, loader, optimizer, loss_fn):\n"

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {
        "make_loaders": ML + """\
    n = len(dataset)
    n_val = int(round(n * val_fraction))
    perm = torch.randperm(n, generator=generator).tolist()
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    train_loader = DataLoader(Subset(dataset, train_idx), batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(Subset(dataset, val_idx), batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
""",
        "lr_sweep": LS + """\
    criterion = nn.BCEWithLogitsLoss()
    final = {}
    for lr in lrs:
        net = make_model()
        opt = torch.optim.SGD(net.parameters(), lr=lr)
        last = float("inf")
        for step in range(steps):
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
            last = loss.item()
        if not math.isfinite(last):
            last = float("inf")
        final[lr] = last
    return final
""",
        "pick_lr": PL + """\
    best_lr, best_loss = None, math.inf
    for lr, loss in sweep.items():
        if math.isfinite(loss) and loss < best_loss:
            best_lr, best_loss = lr, loss
    return best_lr
""",
        "overfit_diagnosis": OD + """\
    model.train()
    history = []
    shapes_ok = None
    grads_ok = None
    for i in range(steps):
        optimizer.zero_grad()
        pred = model(x)
        loss = loss_fn(pred, y)
        history.append(loss.item())
        if shapes_ok is None:
            shapes_ok = pred.shape == y.shape
        if not loss.requires_grad:
            grads_ok = False
            break
        loss.backward()
        if grads_ok is None:
            grads_ok = any(p.grad is not None and p.grad.abs().sum().item() > 0 for p in model.parameters())
        optimizer.step()
    if math.isfinite(history[-1]) and history[-1] < 0.1 * history[0]:
        return "learns"
    if not shapes_ok:
        return "loss_fn"
    if not grads_ok:
        return "module"
    return "optimizer"
""",
        "health_check": HC + """\
    found = set()
    if not model.training:
        found.add("eval_mode")
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        found.add("not_shuffled")
    in_optimizer = set()
    for group in optimizer.param_groups:
        for p in group["params"]:
            in_optimizer.add(id(p))
    for p in model.parameters():
        if p.requires_grad and id(p) not in in_optimizer:
            found.add("untrained_parameters")
            break
    xb, yb = next(iter(loader))
    dev = next(model.parameters()).device
    if xb.device != dev or yb.device != dev:
        found.add("device_mismatch")
        return found
    trial = copy.deepcopy(model)
    out = trial(xb)
    if out.shape != yb.shape:
        found.add("shape_mismatch")
        return found
    loss = loss_fn(out, yb)
    if not torch.isfinite(loss).all():
        found.add("nonfinite_loss")
        return found
    loss.backward()
    for p in trial.parameters():
        if p.requires_grad and p.grad is None:
            found.add("missing_grad")
            break
    return found
""",
    },
    "honest-02": {
        "make_loaders": ML + """\
    total = len(dataset)
    val_size = int(total * val_fraction + 0.5)
    train_size = total - val_size
    train_part, val_part = random_split(dataset, [train_size, val_size], generator=generator)
    return (DataLoader(train_part, batch_size, shuffle=True, generator=generator),
            DataLoader(val_part, batch_size))
""",
        "lr_sweep": LS + """\
    out = {}
    for rate in lrs:
        m = make_model()
        sgd = torch.optim.SGD(m.parameters(), lr=rate)
        bce = nn.BCEWithLogitsLoss()
        value = None
        for _ in range(steps):
            sgd.zero_grad()
            l = bce(m(x), y)
            l.backward()
            sgd.step()
            value = float(l)
        out[rate] = value if value is not None and math.isfinite(value) else math.inf
    return out
""",
        "overfit_diagnosis": OD + """\
    model.train()
    optimizer.zero_grad()
    first_out = model(x)
    first_loss = loss_fn(first_out, y)
    same_shape = first_out.shape == y.shape
    if first_loss.requires_grad:
        first_loss.backward()
        has_grad = any(p.grad is not None and bool(p.grad.ne(0).any()) for p in model.parameters())
        optimizer.step()
    else:
        has_grad = False
    start = first_loss.item()
    end = start
    if has_grad:
        for _ in range(steps - 1):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            end = loss.item()
    if math.isfinite(end) and end < start / 10:
        return "learns"
    if not same_shape:
        return "loss_fn"
    if not has_grad:
        return "module"
    return "optimizer"
""",
        "health_check": HC + """\
    problems = set()
    if model.training is False:
        problems.add("eval_mode")
    if type(loader.sampler).__name__ != "RandomSampler":
        problems.add("not_shuffled")
    optimised = [id(p) for g in optimizer.param_groups for p in g["params"]]
    trainable = [id(p) for p in model.parameters() if p.requires_grad]
    if not set(trainable) <= set(optimised):
        problems.add("untrained_parameters")
    inputs, targets = next(iter(loader))
    param = next(model.parameters())
    if inputs.device != param.device or targets.device != param.device:
        return problems | {"device_mismatch"}
    clone = copy.deepcopy(model)
    logits = clone(inputs)
    if logits.shape != targets.shape:
        return problems | {"shape_mismatch"}
    loss = loss_fn(logits, targets)
    if torch.isnan(loss) or torch.isinf(loss):
        return problems | {"nonfinite_loss"}
    loss.backward()
    if any(p.grad is None for p in clone.parameters() if p.requires_grad):
        problems.add("missing_grad")
    return problems
""",
    },
    "honest-03": {
        "make_loaders": ML + """\
    idx = torch.randperm(len(dataset), generator=generator)
    cut = round(val_fraction * len(dataset))
    val_ds = Subset(dataset, idx[:cut].tolist())
    train_ds = Subset(dataset, idx[cut:].tolist())
    loaders = (
        DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=generator),
        DataLoader(val_ds, batch_size=batch_size),
    )
    return loaders
""",
        "lr_sweep": LS + """\
    results = dict()
    for lr in lrs:
        model = make_model()
        optim = torch.optim.SGD(model.parameters(), lr)
        loss_function = nn.BCEWithLogitsLoss()
        losses = []
        for _ in range(steps):
            optim.zero_grad()
            loss = loss_function(model(x), y)
            loss.backward()
            optim.step()
            losses.append(loss.item())
        final = losses[-1] if losses else math.inf
        results[lr] = final if math.isfinite(final) else math.inf
    return results
""",
        "pick_lr": PL + """\
    candidates = [(loss, lr) for lr, loss in sweep.items() if loss == loss and loss != math.inf]
    return min(candidates)[1]
""",
        "overfit_diagnosis": OD + """\
    model.train()
    losses = []
    evidence = {}
    for step in range(steps):
        optimizer.zero_grad()
        output = model(x)
        loss = loss_fn(output, y)
        losses.append(float(loss.detach()))
        if step == 0:
            evidence["shapes"] = tuple(output.shape) == tuple(y.shape)
        if loss.grad_fn is None:
            evidence.setdefault("grads", False)
            break
        loss.backward()
        if step == 0:
            total = 0.0
            for p in model.parameters():
                if p.grad is not None:
                    total += p.grad.abs().sum().item()
            evidence["grads"] = total > 0
        optimizer.step()
    learned = math.isfinite(losses[-1]) and losses[-1] < losses[0] * 0.1
    if learned:
        return "learns"
    elif not evidence["shapes"]:
        return "loss_fn"
    elif not evidence["grads"]:
        return "module"
    else:
        return "optimizer"
""",
        "health_check": HC + """\
    result = set()
    if not model.training:
        result.add("eval_mode")
    if not isinstance(loader.sampler, RandomSampler):
        result.add("not_shuffled")
    owned = set()
    for g in optimizer.param_groups:
        owned.update(id(p) for p in g["params"])
    if any(id(p) not in owned for p in model.parameters() if p.requires_grad):
        result.add("untrained_parameters")
    batch_x, batch_y = next(iter(loader))
    where = next(iter(model.parameters())).device
    if batch_x.device == where and batch_y.device == where:
        copy_of_model = copy.deepcopy(model)
        y_hat = copy_of_model(batch_x)
        if y_hat.shape == batch_y.shape:
            loss = loss_fn(y_hat, batch_y)
            if torch.isfinite(loss):
                loss.backward()
                if any(p.grad is None for p in copy_of_model.parameters() if p.requires_grad):
                    result.add("missing_grad")
            else:
                result.add("nonfinite_loss")
        else:
            result.add("shape_mismatch")
    else:
        result.add("device_mismatch")
    return result
""",
    },
    "honest-04": {
        "make_loaders": ML + """\
    n_total = len(dataset)
    n_val = math.floor(n_total * val_fraction + 0.5)
    split = random_split(dataset, [n_total - n_val, n_val], generator=generator)
    train_loader = DataLoader(split[0], batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(split[1], batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
""",
        "lr_sweep": LS + """\
    loss_fn = nn.BCEWithLogitsLoss()

    def final_loss(lr):
        model = make_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        loss = torch.tensor(math.inf)
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
        return loss.item()

    sweep = {lr: final_loss(lr) for lr in lrs}
    return {lr: (v if math.isfinite(v) else math.inf) for lr, v in sweep.items()}
""",
        "pick_lr": PL + """\
    usable = {k: v for k, v in sweep.items() if not (math.isnan(v) or math.isinf(v))}
    if not usable:
        raise ValueError("no finite loss in the sweep")
    return min(usable, key=lambda k: usable[k])
""",
        "overfit_diagnosis": OD + """\
    model.train()
    record = {"losses": [], "shape_ok": True, "grad_ok": False}
    for i in range(steps):
        optimizer.zero_grad()
        prediction = model(x)
        loss = loss_fn(prediction, y)
        record["losses"].append(loss.item())
        if i == 0:
            record["shape_ok"] = prediction.shape == y.shape
        if not loss.requires_grad:
            break
        loss.backward()
        if i == 0:
            record["grad_ok"] = any(
                param.grad is not None and torch.count_nonzero(param.grad) > 0 for param in model.parameters()
            )
        optimizer.step()
    first, last = record["losses"][0], record["losses"][-1]
    if math.isfinite(last) and last < 0.1 * first:
        return "learns"
    if not record["shape_ok"]:
        return "loss_fn"
    return "optimizer" if record["grad_ok"] else "module"
""",
    },
    "honest-05": {
        "lr_sweep": LS + """\
    bce = nn.BCEWithLogitsLoss()
    losses_by_lr = {}
    for learning_rate in lrs:
        torch_model = make_model()
        sgd = torch.optim.SGD(torch_model.parameters(), lr=learning_rate)
        for step in range(steps):
            logits = torch_model(x)
            current = bce(logits, y)
            sgd.zero_grad()
            current.backward()
            sgd.step()
        final_value = current.item() if steps > 0 else math.inf
        losses_by_lr[learning_rate] = final_value if math.isfinite(final_value) else math.inf
    return losses_by_lr
""",
        "pick_lr": PL + """\
    ranked = sorted(sweep.items(), key=lambda kv: kv[1])
    for lr, loss in ranked:
        if math.isfinite(loss):
            return lr
    return None
""",
        "health_check": HC + """\
    codes = []
    if not model.training:
        codes.append("eval_mode")
    sampler = getattr(loader, "sampler", None)
    if not isinstance(sampler, torch.utils.data.RandomSampler):
        codes.append("not_shuffled")
    param_ids = {id(q) for grp in optimizer.param_groups for q in grp["params"]}
    needs = [p for p in model.parameters() if p.requires_grad]
    if any(id(p) not in param_ids for p in needs):
        codes.append("untrained_parameters")
    features, labels = next(iter(loader))
    model_device = next(model.parameters()).device
    if features.device != model_device or labels.device != model_device:
        codes.append("device_mismatch")
        return set(codes)
    twin = copy.deepcopy(model)
    scores = twin(features)
    if scores.shape != labels.shape:
        codes.append("shape_mismatch")
        return set(codes)
    value = loss_fn(scores, labels)
    if not math.isfinite(value.item()):
        codes.append("nonfinite_loss")
        return set(codes)
    value.backward()
    for p in twin.parameters():
        if p.requires_grad and p.grad is None:
            codes.append("missing_grad")
            break
    return set(codes)
""",
    },
    "honest-06": {
        "make_loaders": ML + """\
    length = len(dataset)
    val_count = round(length * val_fraction)
    shuffled = torch.randperm(length, generator=generator)
    train_indices = shuffled[val_count:]
    val_indices = shuffled[:val_count]
    train_loader = DataLoader(Subset(dataset, train_indices.tolist()), batch_size=batch_size,
                              sampler=None, shuffle=True, generator=generator)
    val_loader = DataLoader(Subset(dataset, val_indices.tolist()), batch_size=batch_size)
    return train_loader, val_loader
""",
        "lr_sweep": LS + """\
    loss_fn = nn.BCEWithLogitsLoss()
    table = {}
    for lr in lrs:
        model = make_model()
        opt = torch.optim.SGD(params=model.parameters(), lr=lr)
        i = 0
        loss_value = math.inf
        while i < steps:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            loss_value = loss.item()
            i += 1
        table[lr] = loss_value if not (math.isnan(loss_value) or math.isinf(loss_value)) else math.inf
    return table
""",
        "overfit_diagnosis": OD + """\
    model.train()
    start_loss = None
    end_loss = None
    shapes_match = True
    gradient_seen = False
    for step in range(steps):
        optimizer.zero_grad()
        y_pred = model(x)
        loss = loss_fn(y_pred, y)
        if start_loss is None:
            start_loss = loss.item()
            shapes_match = y_pred.shape == y.shape
        end_loss = loss.item()
        if not loss.requires_grad:
            break
        loss.backward()
        if step == 0:
            for name, p in model.named_parameters():
                if p.grad is not None and p.grad.abs().max() > 0:
                    gradient_seen = True
        optimizer.step()
    if math.isfinite(end_loss) and end_loss < start_loss * 0.1:
        return "learns"
    if not shapes_match:
        return "loss_fn"
    if not gradient_seen:
        return "module"
    return "optimizer"
""",
        "health_check": HC + """\
    issues = set()
    issues |= set() if model.training else {"eval_mode"}
    issues |= set() if isinstance(loader.sampler, RandomSampler) else {"not_shuffled"}
    optimizer_params = set()
    for group in optimizer.param_groups:
        optimizer_params |= {id(t) for t in group["params"]}
    for name, param in model.named_parameters():
        if param.requires_grad and id(param) not in optimizer_params:
            issues.add("untrained_parameters")
    xs, ys = next(iter(loader))
    target_device = next(model.parameters()).device
    if (xs.device, ys.device) != (target_device, target_device):
        issues.add("device_mismatch")
        return issues
    scratch = copy.deepcopy(model)
    preds = scratch(xs)
    if preds.shape != ys.shape:
        issues.add("shape_mismatch")
        return issues
    loss = loss_fn(preds, ys)
    if not bool(torch.isfinite(loss)):
        issues.add("nonfinite_loss")
        return issues
    loss.backward()
    missing = [n for n, p in scratch.named_parameters() if p.requires_grad and p.grad is None]
    if missing:
        issues.add("missing_grad")
    return issues
""",
    },
    "honest-07": {
        "make_loaders": ML + """\
    generator = generator if generator is not None else torch.Generator()
    n_val = int(len(dataset) * val_fraction + 0.5)
    order = torch.randperm(len(dataset), generator=generator)
    train_set = Subset(dataset, [int(i) for i in order[n_val:]])
    val_set = Subset(dataset, [int(i) for i in order[:n_val]])
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)
    val = DataLoader(val_set, batch_size=batch_size, shuffle=False, drop_last=False)
    return train, val
""",
        "lr_sweep": LS + """\
    results = {}
    for lr in sorted(lrs):
        model = make_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.0)
        criterion = nn.BCEWithLogitsLoss(reduction="mean")
        loss = None
        for _ in range(steps):
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        number = math.inf if loss is None else loss.item()
        results[lr] = number if math.isfinite(number) else math.inf
    return results
""",
        "pick_lr": PL + """\
    best = None
    for lr in sweep:
        loss = sweep[lr]
        if not math.isfinite(loss):
            continue
        if best is None or loss < sweep[best]:
            best = lr
    return best
""",
        "overfit_diagnosis": OD + """\
    model.train()
    losses = []
    shape_ok, grad_ok = True, True
    for step in range(steps):
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        losses.append(loss.item())
        if step == 0:
            shape_ok = out.shape == y.shape
            if loss.requires_grad:
                loss.backward()
                norms = [p.grad.norm().item() for p in model.parameters() if p.grad is not None]
                grad_ok = len(norms) > 0 and max(norms) > 0
                optimizer.step()
                continue
            grad_ok = False
            break
        loss.backward()
        optimizer.step()
    if losses[-1] < 0.1 * losses[0] and math.isfinite(losses[-1]):
        return "learns"
    if not shape_ok:
        return "loss_fn"
    if not grad_ok:
        return "module"
    return "optimizer"
""",
        "health_check": HC + """\
    flags = set()
    if not model.training:
        flags.add("eval_mode")
    if loader.sampler.__class__ is not RandomSampler:
        flags.add("not_shuffled")
    listed = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if [p for p in model.parameters() if p.requires_grad and id(p) not in listed]:
        flags.add("untrained_parameters")
    x, y = next(iter(loader))
    d = next(model.parameters()).device
    if not (x.device == d and y.device == d):
        flags.add("device_mismatch")
        return flags
    m = copy.deepcopy(model)
    out = m(x)
    if tuple(out.shape) != tuple(y.shape):
        flags.add("shape_mismatch")
        return flags
    l = loss_fn(out, y)
    if torch.isfinite(l).item() is False:
        flags.add("nonfinite_loss")
        return flags
    l.backward()
    if not all(p.grad is not None for p in m.parameters() if p.requires_grad):
        flags.add("missing_grad")
    return flags
""",
    },
    "honest-08": {
        "make_loaders": ML + """\
    num_val = round(val_fraction * len(dataset))
    train_subset, val_subset = torch.utils.data.random_split(
        dataset, [len(dataset) - num_val, num_val], generator=generator)
    shuffled_loader = DataLoader(train_subset, batch_size=batch_size, shuffle=True, generator=generator)
    fixed_loader = DataLoader(val_subset, batch_size=batch_size)
    return shuffled_loader, fixed_loader
""",
        "lr_sweep": LS + """\
    answer = {}
    objective = nn.BCEWithLogitsLoss()
    for lr in lrs:
        candidate = make_model()
        step_rule = torch.optim.SGD(candidate.parameters(), lr=lr)
        for _ in range(steps):
            step_rule.zero_grad()
            objective(candidate(x), y).backward()
            step_rule.step()
        with torch.no_grad():
            after = objective(candidate(x), y).item()
        answer[lr] = after if math.isfinite(after) else math.inf
    return answer
""",
        "overfit_diagnosis": OD + """\
    model.train()
    optimizer.zero_grad()
    out = model(x)
    initial = loss_fn(out, y)
    if out.shape != y.shape:
        return "loss_fn" if not _learns(model, x, y, optimizer, loss_fn, initial, steps) else "learns"
    if not initial.requires_grad:
        return "module"
    initial.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    optimizer.step()
    if _learns(model, x, y, optimizer, loss_fn, initial, steps - 1):
        return "learns"
    if not grads or all(float(g.abs().sum()) == 0.0 for g in grads):
        return "module"
    return "optimizer"


def _learns(model, x, y, optimizer, loss_fn, initial, steps):
    current = initial.item()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        if not loss.requires_grad:
            break
        loss.backward()
        optimizer.step()
        current = loss.item()
    return math.isfinite(current) and current < 0.1 * initial.item()
""",
    },
    "honest-09": {
        "lr_sweep": LS + """\
    def run(lr):
        model = make_model()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        fn = nn.BCEWithLogitsLoss()
        result = math.inf
        for _ in range(steps):
            opt.zero_grad()
            value = fn(model(x), y)
            value.backward()
            opt.step()
            result = value.item()
        return result if math.isfinite(result) else math.inf

    return dict(zip(lrs, map(run, lrs)))
""",
        "pick_lr": PL + """\
    return min((lr for lr in sweep if math.isfinite(sweep[lr])), key=sweep.get)
""",
        "health_check": HC + """\
    report = set()
    checks = [
        (not model.training, "eval_mode"),
        (not isinstance(loader.sampler, torch.utils.data.RandomSampler), "not_shuffled"),
    ]
    for bad, code in checks:
        if bad:
            report.add(code)
    known = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if not all(id(p) in known for p in model.parameters() if p.requires_grad):
        report.add("untrained_parameters")
    batch = next(iter(loader))
    inputs, targets = batch[0], batch[1]
    model_dev = next(model.parameters()).device
    if inputs.device != model_dev or targets.device != model_dev:
        report.add("device_mismatch")
    else:
        replica = copy.deepcopy(model)
        logits = replica(inputs)
        if logits.shape != targets.shape:
            report.add("shape_mismatch")
        else:
            loss = loss_fn(logits, targets)
            if not torch.isfinite(loss):
                report.add("nonfinite_loss")
            else:
                loss.backward()
                if any(p.requires_grad and p.grad is None for p in replica.parameters()):
                    report.add("missing_grad")
    return report
""",
    },
}

# The course's answer in a student's own names (canonical-2); canonical-1 hands in the reference word for word.
CANONICAL_OWN_NAMES = {
    "lr_sweep": LS + """\
    out = {}
    criterion = nn.BCEWithLogitsLoss()
    for rate in lrs:
        net = make_model()
        opt = torch.optim.SGD(net.parameters(), lr=rate)
        last = math.inf
        for _ in range(steps):
            opt.zero_grad()
            l = criterion(net(x), y)
            l.backward()
            opt.step()
            last = l.item()
        out[rate] = last if math.isfinite(last) else math.inf
    return out
""",
    "health_check": HC + """\
    found = set()
    if not model.training:
        found.add("eval_mode")
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        found.add("not_shuffled")
    ids = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if any(p.requires_grad and id(p) not in ids for p in model.parameters()):
        found.add("untrained_parameters")
    xb, yb = next(iter(loader))
    dev = next(model.parameters()).device
    if xb.device != dev or yb.device != dev:
        found.add("device_mismatch")
        return found
    twin = copy.deepcopy(model)
    out = twin(xb)
    if out.shape != yb.shape:
        found.add("shape_mismatch")
        return found
    loss = loss_fn(out, yb)
    if not torch.isfinite(loss):
        found.add("nonfinite_loss")
        return found
    loss.backward()
    if any(p.requires_grad and p.grad is None for p in twin.parameters()):
        found.add("missing_grad")
    return found
""",
}

# ---- the copies, disguised as students disguise them

_DEAD_CODE = {  # honest-01's answers with unused flags, counters, and a debugging print that prints nothing
    "lr_sweep": LS + """\
    verbose = False
    criterion = nn.BCEWithLogitsLoss()
    final = {}
    tried = 0
    for lr in lrs:
        tried += 1
        net = make_model()
        n_params = sum(p.numel() for p in net.parameters())
        opt = torch.optim.SGD(net.parameters(), lr=lr)
        last = float("inf")
        history = []
        for step in range(steps):
            opt.zero_grad()
            loss = criterion(net(x), y)
            loss.backward()
            opt.step()
            last = loss.item()
        if verbose:
            print(lr, last, n_params)
        if not math.isfinite(last):
            last = float("inf")
        final[lr] = last
    return final
""",
    "overfit_diagnosis": OD + """\
    debug = False
    model.train()
    history = []
    shapes_ok = None
    grads_ok = None
    n_steps_done = 0
    for i in range(steps):
        optimizer.zero_grad()
        pred = model(x)
        loss = loss_fn(pred, y)
        history.append(loss.item())
        if shapes_ok is None:
            shapes_ok = pred.shape == y.shape
        if not loss.requires_grad:
            grads_ok = False
            break
        loss.backward()
        if grads_ok is None:
            grads_ok = any(p.grad is not None and p.grad.abs().sum().item() > 0 for p in model.parameters())
        optimizer.step()
        n_steps_done = n_steps_done + 1
    if debug:
        print(history)
    if math.isfinite(history[-1]) and history[-1] < 0.1 * history[0]:
        return "learns"
    if not shapes_ok:
        return "loss_fn"
    if not grads_ok:
        return "module"
    return "optimizer"
""",
}

_WHILE_LOOPS = {  # honest-03's answers with their for loops written as while loops over counters
    "lr_sweep": LS + """\
    results = dict()
    k = 0
    while k < len(lrs):
        lr = lrs[k]
        model = make_model()
        optim = torch.optim.SGD(model.parameters(), lr)
        loss_function = nn.BCEWithLogitsLoss()
        losses = []
        s = 0
        while s < steps:
            optim.zero_grad()
            loss = loss_function(model(x), y)
            loss.backward()
            optim.step()
            losses.append(loss.item())
            s += 1
        final = losses[-1] if losses else math.inf
        results[lr] = final if math.isfinite(final) else math.inf
        k += 1
    return results
""",
    "overfit_diagnosis": OD + """\
    model.train()
    losses = []
    evidence = {}
    step = 0
    while step < steps:
        optimizer.zero_grad()
        output = model(x)
        loss = loss_fn(output, y)
        losses.append(float(loss.detach()))
        if step == 0:
            evidence["shapes"] = tuple(output.shape) == tuple(y.shape)
        if loss.grad_fn is None:
            evidence.setdefault("grads", False)
            break
        loss.backward()
        if step == 0:
            total = 0.0
            for p in model.parameters():
                if p.grad is not None:
                    total += p.grad.abs().sum().item()
            evidence["grads"] = total > 0
        optimizer.step()
        step += 1
    learned = math.isfinite(losses[-1]) and losses[-1] < losses[0] * 0.1
    if learned:
        return "learns"
    elif not evidence["shapes"]:
        return "loss_fn"
    elif not evidence["grads"]:
        return "module"
    else:
        return "optimizer"
""",
}

_BRANCHES_SWAPPED = {  # honest-05's guard clauses nested, conditions negated and branches swapped
    "health_check": HC + """\
    codes = []
    if model.training:
        pass
    else:
        codes.append("eval_mode")
    sampler = getattr(loader, "sampler", None)
    if not isinstance(sampler, torch.utils.data.RandomSampler):
        codes.append("not_shuffled")
    param_ids = {id(q) for grp in optimizer.param_groups for q in grp["params"]}
    needs = [p for p in model.parameters() if p.requires_grad]
    if any(id(p) not in param_ids for p in needs):
        codes.append("untrained_parameters")
    features, labels = next(iter(loader))
    model_device = next(model.parameters()).device
    if not (features.device != model_device or labels.device != model_device):
        twin = copy.deepcopy(model)
        scores = twin(features)
        if not scores.shape != labels.shape:
            value = loss_fn(scores, labels)
            if not not math.isfinite(value.item()):
                value.backward()
                for p in twin.parameters():
                    if p.requires_grad and p.grad is None:
                        codes.append("missing_grad")
                        break
                return set(codes)
            else:
                codes.append("nonfinite_loss")
                return set(codes)
        else:
            codes.append("shape_mismatch")
            return set(codes)
    else:
        codes.append("device_mismatch")
        return set(codes)
""",
    "pick_lr": PL + """\
    ranked = sorted(sweep.items(), key=lambda kv: kv[1])
    for lr, loss in ranked:
        if not math.isfinite(loss):
            continue
        return lr
    return None
""",
}

_SPELLINGS = {  # honest-06's answers in other spellings of the same calls
    "health_check": HC + """\
    issues = set()
    issues |= set() if model.training else {"eval_mode"}
    issues |= set() if isinstance(loader.sampler, RandomSampler) else {"not_shuffled"}
    optimizer_params = set()
    for group in optimizer.param_groups:
        optimizer_params |= {id(t) for t in group["params"]}
    for name, param in model.named_parameters():
        if param.requires_grad and id(param) not in optimizer_params:
            issues.add("untrained_parameters")
    xs, ys = next(iter(loader))
    target_device = list(model.parameters())[0].device
    if (xs.device, ys.device) != (target_device, target_device):
        issues.add("device_mismatch")
        return issues
    scratch = copy.deepcopy(model)
    preds = scratch.forward(xs)
    if preds.size() != ys.size():
        issues.add("shape_mismatch")
        return issues
    loss = loss_fn(preds, ys)
    if not bool(loss.isfinite()):
        issues.add("nonfinite_loss")
        return issues
    loss.backward()
    missing = [n for n, p in scratch.named_parameters() if p.requires_grad and p.grad is None]
    if len(missing) > 0:
        issues.add("missing_grad")
    return issues
""",
    "overfit_diagnosis": OD + """\
    model.train(True)
    start_loss = None
    end_loss = None
    shapes_match = True
    gradient_seen = False
    for step in range(steps):
        optimizer.zero_grad()
        y_pred = model.forward(x)
        loss = loss_fn(y_pred, y)
        if start_loss is None:
            start_loss = float(loss.item())
            shapes_match = y_pred.size() == y.size()
        end_loss = float(loss.item())
        if loss.requires_grad == False:
            break
        loss.backward()
        if step == 0:
            for name, p in model.named_parameters():
                if p.grad is not None and torch.max(torch.abs(p.grad)) > 0:
                    gradient_seen = True
        optimizer.step()
    if math.isfinite(end_loss) and end_loss < 0.1 * start_loss:
        return "learns"
    if not shapes_match:
        return "loss_fn"
    if not gradient_seen:
        return "module"
    return "optimizer"
""",
}

_NESTED = {  # honest-07's answers with the body moved into a nested function and lambdas
    "lr_sweep": LS + """\
    def train_one(lr):
        model = make_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.0)
        criterion = nn.BCEWithLogitsLoss(reduction="mean")
        loss = None
        for _ in range(steps):
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        return math.inf if loss is None else loss.item()

    finite_or_inf = lambda number: number if math.isfinite(number) else math.inf
    results = {}
    for lr in sorted(lrs):
        results[lr] = finite_or_inf(train_one(lr))
    return results
""",
    "health_check": HC + """\
    flags = set()
    flag = lambda code: flags.add(code)
    if not model.training:
        flag("eval_mode")
    if loader.sampler.__class__ is not RandomSampler:
        flag("not_shuffled")
    listed = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if [p for p in model.parameters() if p.requires_grad and id(p) not in listed]:
        flag("untrained_parameters")

    def probe(x, y):
        d = next(model.parameters()).device
        if not (x.device == d and y.device == d):
            flag("device_mismatch")
            return
        m = copy.deepcopy(model)
        out = m(x)
        if tuple(out.shape) != tuple(y.shape):
            flag("shape_mismatch")
            return
        l = loss_fn(out, y)
        if torch.isfinite(l).item() is False:
            flag("nonfinite_loss")
            return
        l.backward()
        if not all(p.grad is not None for p in m.parameters() if p.requires_grad):
            flag("missing_grad")

    probe(*next(iter(loader)))
    return flags
""",
}

_TEMPORARIES = {  # honest-09's answers with temporaries added and expressions folded
    "health_check": HC + """\
    report = set()
    in_eval = not model.training
    unshuffled = not isinstance(loader.sampler, torch.utils.data.RandomSampler)
    checks = [
        (in_eval, "eval_mode"),
        (unshuffled, "not_shuffled"),
    ]
    for bad, code in checks:
        if bad:
            report.add(code)
    known = {id(p) for group in optimizer.param_groups for p in group["params"]}
    all_known = all(id(p) in known for p in model.parameters() if p.requires_grad)
    if not all_known:
        report.add("untrained_parameters")
    inputs, targets = next(iter(loader))
    model_dev = next(model.parameters()).device
    if inputs.device != model_dev or targets.device != model_dev:
        report.add("device_mismatch")
    else:
        replica = copy.deepcopy(model)
        logits = replica(inputs)
        same = logits.shape == targets.shape
        if not same:
            report.add("shape_mismatch")
        else:
            loss = loss_fn(logits, targets)
            finite = torch.isfinite(loss)
            if not finite:
                report.add("nonfinite_loss")
            else:
                loss.backward()
                if any(p.requires_grad and p.grad is None for p in replica.parameters()):
                    report.add("missing_grad")
    return report
""",
    "lr_sweep": LS + """\
    def run(lr):
        model = make_model()
        params = model.parameters()
        opt = torch.optim.SGD(params, lr=lr)
        fn = nn.BCEWithLogitsLoss()
        result = math.inf
        for _ in range(steps):
            opt.zero_grad()
            pred = model(x)
            value = fn(pred, y)
            value.backward()
            opt.step()
            result = value.item()
        ok = math.isfinite(result)
        return result if ok else math.inf

    values = map(run, lrs)
    return dict(zip(lrs, values))
""",
}

_CHAIN_B = {  # honest-02's make_loaders and health_check lightly renamed by the first copier of a chain
    "health_check": HC + """\
    bad = set()
    if model.training is False:
        bad.add("eval_mode")
    if type(loader.sampler).__name__ != "RandomSampler":
        bad.add("not_shuffled")
    in_opt = [id(p) for g in optimizer.param_groups for p in g["params"]]
    to_train = [id(p) for p in model.parameters() if p.requires_grad]
    if not set(to_train) <= set(in_opt):
        bad.add("untrained_parameters")
    xb, yb = next(iter(loader))
    w = next(model.parameters())
    if xb.device != w.device or yb.device != w.device:
        return bad | {"device_mismatch"}
    dup = copy.deepcopy(model)
    logits = dup(xb)
    if logits.shape != yb.shape:
        return bad | {"shape_mismatch"}
    loss = loss_fn(logits, yb)
    if torch.isnan(loss) or torch.isinf(loss):
        return bad | {"nonfinite_loss"}
    loss.backward()
    if any(p.grad is None for p in dup.parameters() if p.requires_grad):
        bad.add("missing_grad")
    return bad
""",
}

_CHAIN_C = {  # the second copier of the chain reworks what the first handed on
    "health_check": HC + """\
    bad = set()
    if not model.training:
        bad.add("eval_mode")
    if type(loader.sampler).__name__ != "RandomSampler":
        bad.add("not_shuffled")
    in_opt = [id(p) for g in optimizer.param_groups for p in g["params"]]
    to_train = [id(p) for p in model.parameters() if p.requires_grad]
    if not set(to_train) <= set(in_opt):
        bad.add("untrained_parameters")
    xb, yb = next(iter(loader))
    w = next(model.parameters())
    if xb.device == w.device and yb.device == w.device:
        dup = copy.deepcopy(model)
        logits = dup(xb)
        if logits.shape == yb.shape:
            loss = loss_fn(logits, yb)
            if torch.isnan(loss) or torch.isinf(loss):
                return bad | {"nonfinite_loss"}
            loss.backward()
            if any(p.grad is None for p in dup.parameters() if p.requires_grad):
                bad.add("missing_grad")
            return bad
        return bad | {"shape_mismatch"}
    return bad | {"device_mismatch"}
""",
    "overfit_diagnosis": OD + """\
    print("diagnosing", steps, "steps")
    model.train()
    optimizer.zero_grad()
    first_out = model(x)
    first_loss = loss_fn(first_out, y)
    same_shape = first_out.shape == y.shape
    if first_loss.requires_grad:
        first_loss.backward()
        has_grad = any(p.grad is not None and bool(p.grad.ne(0).any()) for p in model.parameters())
        optimizer.step()
    else:
        has_grad = False
    start = first_loss.item()
    print("first loss", start)
    end = start
    if has_grad:
        for _ in range(steps - 1):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            end = loss.item()
    print("last loss", end)
    if math.isfinite(end) and end < start / 10:
        return "learns"
    if not same_shape:
        return "loss_fn"
    if not has_grad:
        return "module"
    return "optimizer"
""",
}

_MERGE = {  # one copier takes lr_sweep from honest-08 and overfit_diagnosis from honest-04, both reworked
    "lr_sweep": LS + """\
    answer = {}
    objective = nn.BCEWithLogitsLoss()
    for lr in lrs:
        candidate = make_model()
        step_rule = torch.optim.SGD(candidate.parameters(), lr=lr)
        n = 0
        while n < steps:
            step_rule.zero_grad()
            loss = objective(candidate(x), y)
            loss.backward()
            step_rule.step()
            n += 1
        with torch.no_grad():
            after = objective(candidate(x), y).item()
        if math.isfinite(after):
            answer[lr] = after
        else:
            answer[lr] = math.inf
    return answer
""",
    "overfit_diagnosis": OD + """\
    model.train()
    record = {"losses": [], "shape_ok": True, "grad_ok": False}
    for i in range(steps):
        optimizer.zero_grad()
        prediction = model(x)
        loss = loss_fn(prediction, y)
        record["losses"].append(loss.item())
        if i == 0:
            record["shape_ok"] = prediction.shape == y.shape
        if loss.requires_grad:
            loss.backward()
            if i == 0:
                record["grad_ok"] = any(
                    param.grad is not None and torch.count_nonzero(param.grad) > 0 for param in model.parameters()
                )
            optimizer.step()
        else:
            break
    first, last = record["losses"][0], record["losses"][-1]
    if math.isfinite(last) and last < 0.1 * first:
        return "learns"
    if not record["shape_ok"]:
        return "loss_fn"
    if record["grad_ok"]:
        return "optimizer"
    return "module"
""",
}

_MERGE_OWN = {
    "make_loaders": ML + """\
    k = int(len(dataset) * val_fraction)
    p = torch.randperm(len(dataset), generator=generator).tolist()
    tr = DataLoader(Subset(dataset, p[k:]), batch_size=batch_size, shuffle=True, generator=generator)
    va = DataLoader(Subset(dataset, p[:k]), batch_size=batch_size)
    return tr, va
""",
}

_HALF_OWN = {  # a copier who wrote health_check alone and copied the rest
    "health_check": HC + """\
    out = set()
    if not model.training:
        out.add("eval_mode")
    if isinstance(loader.sampler, torch.utils.data.SequentialSampler):
        out.add("not_shuffled")
    opt_ids = set(map(id, (p for g in optimizer.param_groups for p in g["params"])))
    if any(id(p) not in opt_ids for p in filter(lambda t: t.requires_grad, model.parameters())):
        out.add("untrained_parameters")
    a, b = next(iter(loader))
    here = next(model.parameters()).device
    if a.device != here or b.device != here:
        return out | {"device_mismatch"}
    shadow = copy.deepcopy(model)
    z = shadow(a)
    if z.shape != b.shape:
        return out | {"shape_mismatch"}
    crit = loss_fn(z, b)
    if crit.isnan().any() or crit.isinf().any():
        return out | {"nonfinite_loss"}
    crit.backward()
    if any(t.grad is None for t in shadow.parameters() if t.requires_grad):
        out.add("missing_grad")
    return out
""",
}

_HALF_DISGUISED = {  # ... and disguised one copied cell by reordering and folding temporaries
    "make_loaders": ML + """\
    n_val = round(len(dataset) * val_fraction)
    length = len(dataset)
    shuffled = torch.randperm(length, generator=generator)
    val_loader = DataLoader(Subset(dataset, shuffled[:n_val].tolist()), batch_size=batch_size)
    train_loader = DataLoader(Subset(dataset, shuffled[n_val:].tolist()), batch_size=batch_size,
                              sampler=None, shuffle=True, generator=generator)
    return train_loader, val_loader
""",
}

_ALL = ("make_loaders", "lr_sweep", "pick_lr", "overfit_diagnosis", "health_check")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells if cell in HONEST[classmate]}


COPIES = [
    Copy("copier-dead-code", "dead code and unused names added", _taken("honest-01"), _DEAD_CODE),
    Copy("copier-while", "for loops written as while loops", _taken("honest-03"), _WHILE_LOOPS),
    Copy("copier-branches", "guard clauses nested, conditions negated", _taken("honest-05"), _BRANCHES_SWAPPED),
    Copy("copier-spellings", "equivalent PyTorch spellings", _taken("honest-06"), _SPELLINGS),
    Copy("copier-nested", "bodies moved into nested functions and lambdas", _taken("honest-07"), _NESTED),
    Copy("copier-temporaries", "temporaries added and expressions folded", _taken("honest-09"), _TEMPORARIES),
    Copy("chain-b", "renamed (first link of a chain)", _taken("honest-02"), _CHAIN_B),
    Copy("chain-c", "guards nested and prints added (second link of a chain)",
         {cell: "chain-b" for cell in _ALL if cell in HONEST["honest-02"]}, _CHAIN_C),
    Copy("copier-merge", "two classmates merged, loops and branches reworked",
         {"lr_sweep": "honest-08", "overfit_diagnosis": "honest-04"}, _MERGE, _MERGE_OWN),
    Copy("copier-half", "half the cells copied, one reordered", _taken("honest-06", ("make_loaders", "lr_sweep")),
         _HALF_DISGUISED, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The held-out cohort of module 06 (twenty-one students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, ("lr_sweep", "health_check"))
