"""A second planted cohort of module 06, to tune on: the same honest students and course answers as
:mod:`.planted_06`, copied by eleven other copiers with disguises that cohort does not hold.

Each copier takes some or all of one classmate's answers and disguises two or three of them one way: type hints
and docstrings; progress prints and logging; ``try``/``except`` wrappers, asserts and argument checks; early
returns turned into one exit; ``any``/``all`` and comprehensions written as explicit loops with flags;
operands of commutative operators and comparisons swapped; other spellings of the same calls (``len(t)`` as
``t.shape[0]``, ``torch.isfinite(t)`` as ``t.isfinite()``, ``next(iter(loader))`` as a loop that breaks);
constants hoisted to the top of the cell; containers filled another way (``d.update({k: v})``, ``xs += [x]``,
``s |= {x}``); loops over other ranges and iterables (``range(1, n + 1)``, ``itertools.chain``); tuple
assignments split and joined, results returned through a temporary.  The truth follows from where each answer
came from (:func:`.planted.assemble`).
"""

from __future__ import annotations

from .planted import Copy, Planted, assemble
from .planted_06 import CANONICAL_OWN_NAMES, HC, HONEST, LS, ML, MODULE, OD, PL

__all__ = ["MODULE", "HONEST", "COPIES", "planted_cohort"]

_TYPED = {  # honest-01's answers with type hints on arguments and locals, and docstrings
    "make_loaders": """\
def make_loaders(dataset: torch.utils.data.Dataset, batch_size: int, val_fraction: float,
                 generator: torch.Generator) -> tuple:
    \"\"\"Split ``dataset`` into a shuffled training loader and a fixed validation loader.\"\"\"
    n: int = len(dataset)
    n_val: int = int(round(n * val_fraction))
    perm: list = torch.randperm(n, generator=generator).tolist()
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    train_loader: DataLoader = DataLoader(Subset(dataset, train_idx), batch_size=batch_size, shuffle=True,
                                          generator=generator)
    val_loader: DataLoader = DataLoader(Subset(dataset, val_idx), batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
""",
    "lr_sweep": """\
def lr_sweep(make_model: callable, x: torch.Tensor, y: torch.Tensor, lrs: list, steps: int) -> dict:
    \"\"\"Train a fresh model at each learning rate and return its last loss (inf when it diverged).\"\"\"
    criterion: nn.Module = nn.BCEWithLogitsLoss()
    final: dict = {}
    for lr in lrs:
        net: nn.Module = make_model()
        opt: torch.optim.Optimizer = torch.optim.SGD(net.parameters(), lr=lr)
        last: float = float("inf")
        for step in range(steps):
            opt.zero_grad()
            loss: torch.Tensor = criterion(net(x), y)
            loss.backward()
            opt.step()
            last = loss.item()
        if not math.isfinite(last):
            last = float("inf")
        final[lr] = last
    return final
""",
    "pick_lr": """\
def pick_lr(sweep: dict) -> float:
    \"\"\"The learning rate with the lowest finite loss.\"\"\"
    best_lr: float = None
    best_loss: float = math.inf
    for lr, loss in sweep.items():
        if math.isfinite(loss) and loss < best_loss:
            best_lr, best_loss = lr, loss
    return best_lr
""",
}

_LOGGED = {  # honest-03's answers with progress printed and logged
    "lr_sweep": "import logging\n\n" + LS + """\
    results = dict()
    for lr in lrs:
        print(f"--- lr = {lr} ---")
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
            logging.debug("step %d loss %.4f", len(losses), losses[-1])
        final = losses[-1] if losses else math.inf
        results[lr] = final if math.isfinite(final) else math.inf
        print(f"lr={lr}: final loss {results[lr]:.4f}")
    print("sweep done:", results)
    return results
""",
    "overfit_diagnosis": "import logging\n\n" + OD + """\
    logging.info("overfitting one batch of %d examples for %d steps", len(x), steps)
    model.train()
    losses = []
    evidence = {}
    for step in range(steps):
        optimizer.zero_grad()
        output = model(x)
        loss = loss_fn(output, y)
        losses.append(float(loss.detach()))
        if step % 20 == 0:
            print(f"step {step}: loss {losses[-1]:.5f}")
        if step == 0:
            evidence["shapes"] = tuple(output.shape) == tuple(y.shape)
        if loss.grad_fn is None:
            evidence.setdefault("grads", False)
            logging.warning("the loss has no grad_fn")
            break
        loss.backward()
        if step == 0:
            total = 0.0
            for p in model.parameters():
                if p.grad is not None:
                    total += p.grad.abs().sum().item()
            print("total gradient at the first step:", total)
            evidence["grads"] = total > 0
        optimizer.step()
    learned = math.isfinite(losses[-1]) and losses[-1] < losses[0] * 0.1
    print("first", losses[0], "last", losses[-1], "learned", learned, "evidence", evidence)
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

_GUARDED = {  # honest-04's answers wrapped in try/except, with asserts and argument checks added
    "make_loaders": ML + """\
    if not 0.0 <= val_fraction <= 1.0:
        raise ValueError(f"val_fraction must lie in [0, 1], not {val_fraction}")
    if batch_size <= 0:
        raise ValueError("batch_size must be positive")
    n_total = len(dataset)
    n_val = math.floor(n_total * val_fraction + 0.5)
    assert 0 <= n_val <= n_total
    try:
        split = random_split(dataset, [n_total - n_val, n_val], generator=generator)
    except ValueError as err:
        raise ValueError("could not split the dataset") from err
    train_loader = DataLoader(split[0], batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(split[1], batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
""",
    "lr_sweep": LS + """\
    assert steps >= 0, "steps must not be negative"
    assert len(lrs) > 0, "nothing to sweep"
    loss_fn = nn.BCEWithLogitsLoss()

    def final_loss(lr):
        assert lr > 0
        model = make_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        loss = torch.tensor(math.inf)
        try:
            for _ in range(steps):
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
        except RuntimeError:
            raise
        return loss.item()

    try:
        sweep = {lr: final_loss(lr) for lr in lrs}
    except Exception as error:
        raise RuntimeError(f"the sweep failed: {error}") from error
    return {lr: (v if math.isfinite(v) else math.inf) for lr, v in sweep.items()}
""",
    "overfit_diagnosis": OD + """\
    assert callable(loss_fn), "loss_fn must be callable"
    if steps < 1:
        raise ValueError("steps must be at least 1")
    try:
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
    except KeyboardInterrupt:
        raise
    first, last = record["losses"][0], record["losses"][-1]
    assert len(record["losses"]) > 0
    if math.isfinite(last) and last < 0.1 * first:
        return "learns"
    if not record["shape_ok"]:
        return "loss_fn"
    return "optimizer" if record["grad_ok"] else "module"
""",
}

_ONE_EXIT = {  # honest-05's early returns turned into one exit through a result variable
    "pick_lr": PL + """\
    ranked = sorted(sweep.items(), key=lambda kv: kv[1])
    chosen = None
    for lr, loss in ranked:
        if math.isfinite(loss):
            chosen = lr
            break
    return chosen
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
    else:
        twin = copy.deepcopy(model)
        scores = twin(features)
        if scores.shape != labels.shape:
            codes.append("shape_mismatch")
        else:
            value = loss_fn(scores, labels)
            if not math.isfinite(value.item()):
                codes.append("nonfinite_loss")
            else:
                value.backward()
                for p in twin.parameters():
                    if p.requires_grad and p.grad is None:
                        codes.append("missing_grad")
                        break
    result = set(codes)
    return result
""",
}

_EXPLICIT = {  # honest-02's any(), all() and comprehensions written as loops with flags
    "health_check": HC + """\
    problems = set()
    if model.training is False:
        problems.add("eval_mode")
    if type(loader.sampler).__name__ != "RandomSampler":
        problems.add("not_shuffled")
    optimised = []
    for g in optimizer.param_groups:
        for p in g["params"]:
            optimised.append(id(p))
    trainable = []
    for p in model.parameters():
        if p.requires_grad:
            trainable.append(id(p))
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
    missing = False
    for p in clone.parameters():
        if p.requires_grad and p.grad is None:
            missing = True
            break
    if missing:
        problems.add("missing_grad")
    return problems
""",
    "overfit_diagnosis": OD + """\
    model.train()
    optimizer.zero_grad()
    first_out = model(x)
    first_loss = loss_fn(first_out, y)
    same_shape = first_out.shape == y.shape
    if first_loss.requires_grad:
        first_loss.backward()
        has_grad = False
        for p in model.parameters():
            if p.grad is not None and bool(p.grad.ne(0).any()):
                has_grad = True
                break
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
}

_OPERANDS = {  # honest-06's operands of commutative operators and comparisons swapped
    "make_loaders": ML + """\
    length = len(dataset)
    val_count = round(val_fraction * length)
    shuffled = torch.randperm(length, generator=generator)
    train_indices = shuffled[val_count:]
    val_indices = shuffled[:val_count]
    train_loader = DataLoader(Subset(dataset, train_indices.tolist()), batch_size=batch_size,
                              sampler=None, shuffle=True, generator=generator)
    val_loader = DataLoader(Subset(dataset, val_indices.tolist()), batch_size=batch_size)
    return train_loader, val_loader
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
        if None is start_loss:
            start_loss = loss.item()
            shapes_match = y.shape == y_pred.shape
        end_loss = loss.item()
        if not loss.requires_grad:
            break
        loss.backward()
        if 0 == step:
            for name, p in model.named_parameters():
                if None is not p.grad and 0 < p.grad.abs().max():
                    gradient_seen = True
        optimizer.step()
    if math.isfinite(end_loss) and 0.1 * start_loss > end_loss:
        return "learns"
    if not shapes_match:
        return "loss_fn"
    if not gradient_seen:
        return "module"
    return "optimizer"
""",
    "lr_sweep": LS + """\
    loss_fn = nn.BCEWithLogitsLoss()
    table = {}
    for lr in lrs:
        model = make_model()
        opt = torch.optim.SGD(params=model.parameters(), lr=lr)
        i = 0
        loss_value = math.inf
        while steps > i:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            loss_value = loss.item()
            i += 1
        table[lr] = loss_value if not (math.isinf(loss_value) or math.isnan(loss_value)) else math.inf
    return table
""",
}

_API = {  # honest-07's calls in other spellings
    "make_loaders": ML + """\
    generator = generator if generator is not None else torch.Generator()
    n_val = int(dataset.__len__() * val_fraction + 0.5)
    order = torch.randperm(len(dataset), generator=generator)
    train_set = Subset(dataset, [i.item() for i in order[n_val:]])
    val_set = Subset(dataset, [i.item() for i in order[:n_val]])
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)
    val = DataLoader(val_set, batch_size=batch_size, shuffle=False, drop_last=False)
    return train, val
""",
    "overfit_diagnosis": OD + """\
    model.train()
    losses = []
    shape_ok, grad_ok = True, True
    for step in range(steps):
        optimizer.zero_grad()
        out = model.forward(x)
        loss = loss_fn(out, y)
        losses.append(float(loss))
        if step == 0:
            shape_ok = out.size() == y.size()
            if loss.requires_grad:
                loss.backward()
                norms = [torch.linalg.norm(p.grad).item() for p in model.parameters() if p.grad is not None]
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
    for x, y in loader:
        break
    d = list(model.parameters())[0].device
    if not (x.device == d and y.device == d):
        flags.add("device_mismatch")
        return flags
    m = copy.deepcopy(model)
    out = m.forward(x)
    if tuple(out.size()) != tuple(y.size()):
        flags.add("shape_mismatch")
        return flags
    l = loss_fn(out, y)
    if l.isfinite().item() is False:
        flags.add("nonfinite_loss")
        return flags
    l.backward()
    if not all(p.grad is not None for p in m.parameters() if p.requires_grad):
        flags.add("missing_grad")
    return flags
""",
}

_CONSTANTS = {  # honest-09's constants and labels hoisted to the top of the cell
    "health_check": """\
EVAL_MODE = "eval_mode"
NOT_SHUFFLED = "not_shuffled"
UNTRAINED = "untrained_parameters"
DEVICE_MISMATCH = "device_mismatch"
SHAPE_MISMATCH = "shape_mismatch"
NONFINITE = "nonfinite_loss"
MISSING_GRAD = "missing_grad"


""" + HC + """\
    report = set()
    checks = [
        (not model.training, EVAL_MODE),
        (not isinstance(loader.sampler, torch.utils.data.RandomSampler), NOT_SHUFFLED),
    ]
    for bad, code in checks:
        if bad:
            report.add(code)
    known = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if not all(id(p) in known for p in model.parameters() if p.requires_grad):
        report.add(UNTRAINED)
    batch = next(iter(loader))
    inputs, targets = batch[0], batch[1]
    model_dev = next(model.parameters()).device
    if inputs.device != model_dev or targets.device != model_dev:
        report.add(DEVICE_MISMATCH)
    else:
        replica = copy.deepcopy(model)
        logits = replica(inputs)
        if logits.shape != targets.shape:
            report.add(SHAPE_MISMATCH)
        else:
            loss = loss_fn(logits, targets)
            if not torch.isfinite(loss):
                report.add(NONFINITE)
            else:
                loss.backward()
                if any(p.requires_grad and p.grad is None for p in replica.parameters()):
                    report.add(MISSING_GRAD)
    return report
""",
    "lr_sweep": """\
INFINITE = math.inf
LOSS = nn.BCEWithLogitsLoss


""" + LS + """\
    def run(lr):
        model = make_model()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        fn = LOSS()
        result = INFINITE
        for _ in range(steps):
            opt.zero_grad()
            value = fn(model(x), y)
            value.backward()
            opt.step()
            result = value.item()
        return result if math.isfinite(result) else INFINITE

    return dict(zip(lrs, map(run, lrs)))
""",
}

_CONTAINERS = {  # honest-08's containers filled another way
    "lr_sweep": LS + """\
    answer = dict()
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
        answer.update({lr: after if math.isfinite(after) else math.inf})
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
    grads = []
    for p in model.parameters():
        if p.grad is not None:
            grads += [p.grad]
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
}

_RANGES = {  # honest-01's loops over other ranges and iterables
    "overfit_diagnosis": OD + """\
    model.train()
    history = []
    shapes_ok = None
    grads_ok = None
    for i in range(1, steps + 1):
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
            grads_ok = any(p.grad is not None and p.grad.abs().sum().item() > 0 for p in list(model.parameters()))
        optimizer.step()
    if math.isfinite(history[-1]) and history[-1] < 0.1 * history[0]:
        return "learns"
    if not shapes_ok:
        return "loss_fn"
    if not grads_ok:
        return "module"
    return "optimizer"
""",
    "health_check": "import itertools\n\n" + HC + """\
    found = set()
    if not model.training:
        found.add("eval_mode")
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        found.add("not_shuffled")
    in_optimizer = set()
    for p in itertools.chain.from_iterable(group["params"] for group in optimizer.param_groups):
        in_optimizer.add(id(p))
    for p in list(model.parameters()):
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
    for p in list(trial.parameters()):
        if p.requires_grad and p.grad is None:
            found.add("missing_grad")
            break
    return found
""",
}

_UNPACKED = {  # honest-03's tuple assignments split and joined, results returned through temporaries
    "make_loaders": ML + """\
    idx, cut = torch.randperm(len(dataset), generator=generator), round(val_fraction * len(dataset))
    val_ds, train_ds = Subset(dataset, idx[:cut].tolist()), Subset(dataset, idx[cut:].tolist())
    train_loader = DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(val_ds, batch_size=batch_size)
    return train_loader, val_loader
""",
    "pick_lr": PL + """\
    candidates = [(loss, lr) for lr, loss in sweep.items() if loss == loss and loss != math.inf]
    best = min(candidates)
    _, lr = best
    return lr
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
    batch = next(iter(loader))
    batch_x = batch[0]
    batch_y = batch[1]
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
}

_ALL = ("make_loaders", "lr_sweep", "pick_lr", "overfit_diagnosis", "health_check")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells if cell in HONEST[classmate]}


COPIES = [
    Copy("copier-typed", "type hints and docstrings", _taken("honest-01", ("make_loaders", "lr_sweep", "pick_lr")),
         _TYPED),
    Copy("copier-logged", "progress printed and logged", _taken("honest-03", ("lr_sweep", "overfit_diagnosis")),
         _LOGGED),
    Copy("copier-guarded", "try/except wrappers, asserts and argument checks", _taken("honest-04"), _GUARDED),
    Copy("copier-one-exit", "early returns turned into one exit", _taken("honest-05"), _ONE_EXIT),
    Copy("copier-explicit", "any/all and comprehensions as loops with flags", _taken("honest-02"), _EXPLICIT),
    Copy("copier-operands", "operands and comparisons swapped", _taken("honest-06"), _OPERANDS),
    Copy("copier-api", "other spellings of the same calls", _taken("honest-07"), _API),
    Copy("copier-constants", "constants hoisted to the top of the cell", _taken("honest-09"), _CONSTANTS),
    Copy("copier-containers", "containers filled another way", _taken("honest-08"), _CONTAINERS),
    Copy("copier-ranges", "loops over other ranges and iterables",
         _taken("honest-01", ("overfit_diagnosis", "health_check")), _RANGES),
    Copy("copier-unpacked", "tuple assignments split and joined, temporaries returned",
         _taken("honest-03", ("make_loaders", "pick_lr", "health_check")), _UNPACKED),
]


def planted_cohort() -> Planted:
    """The second tuning cohort of module 06 (twenty-two students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, ("lr_sweep", "health_check"))
