"""An honest cohort of module 06: sixteen students who each answer every graded cell alone, and no copies.

It measures false alarms only: every pair of students is independent, so every pair ``similarity`` flags is a
false pair.  The students are written to be realistic, and that means they converge where real students do:

- four follow the lesson closely (``course/06-failure-modes.ipynb`` and its part 2): ``random_split`` or a
  ``randperm`` cut as section 4 and section 10 show them, the five lines with their ``# 1.`` ... ``# 5.``
  comments, the side-by-side sweep table of section 5, ``held = {id(p) ...}`` from section 9, the forward
  pre-hook and post-accumulate-grad hooks of section 13 with their ``seen`` dict and ``handles`` list;
- four write compactly (comprehensions, one-liners, ``min(..., key=...)``, walrus, ``torch.autograd.grad``);
- four are beginners (temporaries, prints left in or commented out, ``# YOUR CODE HERE`` left in, index
  loops, ``== False``, defensive asserts and ``try``/``except``);
- four structure things their own way (small classes, module-level helpers and early returns, ``while``
  loops and dict bookkeeping, a state machine, generators, a hook that halts the forward, a sampler in place
  of ``shuffle=True``).

The repair starts from the same colleague's code for everyone, so minimal repairs look alike (one of them is
the reference's three edits, comments aside).  Most students keep the docstring the release gave each
function; a few delete it.  :func:`planted_cohort` builds the cohort with :func:`.planted.assemble` and no
copies, and without the course's answer (no ``canonical-1``/``canonical-2``), so the only pairs are the
120 between these sixteen; ``python -m autograder.dev.honest_06`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Planted, assemble, print_measures
from .planted_06 import HC, LS, ML, MODULE, OD, PL

RM = "def repair_make_loaders(dataset, batch_size, val_fraction, generator):\n"

# The release's docstrings, which most students keep under the def line.
ML_DOC = ML + '    """A random disjoint split; a shuffled training loader and a fixed-order validation loader."""\n'
LS_DOC = LS + '    """Final loss per learning rate, each from a fresh model; non-finite losses as inf."""\n'
PL_DOC = PL + '    """The learning rate whose loss is the lowest finite one."""\n'
OD_DOC = OD + ('    """Overfit one batch; when its loss will not fall, name the owner from the first step\'s '
               'evidence."""\n')
HC_DOC = HC + '    """One instrumented step on a copy of the model; returns the codes of what is wrong."""\n'
RM_DOC = RM + '    """A random train/validation split and its two loaders (from a colleague\'s notebook)."""\n'

CELLS = ("make_loaders", "lr_sweep", "pick_lr", "overfit_diagnosis", "health_check", "repair_make_loaders")

HONEST: dict[str, dict[str, str]] = {
    # ---- four who follow the lesson closely
    "honest-01": {  # random_split as in section 4, the five lines numbered, section 13's hooks
        "make_loaders": ML_DOC + """\
    n_val = int(round(len(dataset) * val_fraction))
    n_train = len(dataset) - n_val
    train_part, val_part = torch.utils.data.random_split(dataset, [n_train, n_val], generator=generator)
    train_loader = DataLoader(train_part, batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(val_part, batch_size=batch_size)   # validation needs no shuffling
    return train_loader, val_loader
""",
        "lr_sweep": LS_DOC + """\
    loss_fn = nn.BCEWithLogitsLoss()
    final = {}
    for lr in lrs:
        net = make_model()                                   # a fresh copy for every rate
        sgd = torch.optim.SGD(net.parameters(), lr=lr)
        for step in range(steps):
            sgd.zero_grad()                                  # 1.
            loss = loss_fn(net(x), y)                        # 2-3.
            loss.backward()                                  # 4.
            sgd.step()                                       # 5.
        last = loss.item()
        final[lr] = last if math.isfinite(last) else float("inf")   # never keep a nan
    return final
""",
        "pick_lr": PL_DOC + """\
    ok = {lr: loss for lr, loss in sweep.items() if math.isfinite(loss)}   # nan and inf never win
    return min(ok, key=ok.get)
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()                          # training mode, explicitly
    losses = []
    shapes_agree, has_grad = None, None
    for step in range(steps):
        optimizer.zero_grad()              # 1.
        out = model(x)                     # 2.
        loss = loss_fn(out, y)             # 3.
        losses.append(loss.item())
        if step == 0:
            shapes_agree = out.shape == y.shape
        if not loss.requires_grad:         # nothing to go backward through
            has_grad = False
            break
        loss.backward()                    # 4.
        if step == 0:
            has_grad = False
            for p in model.parameters():
                if p.grad is not None and (p.grad != 0).any():
                    has_grad = True
        optimizer.step()                   # 5.
    if math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]:
        return "learns"
    if not shapes_agree:
        return "loss_fn"
    if not has_grad:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    codes = set()
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]:
        codes.add("untrained_parameters")
    if type(loader.sampler).__name__ != "RandomSampler":
        codes.add("not_shuffled")
    xb, yb = next(iter(loader))
    probe = copy.deepcopy(model)                     # the step runs on a copy
    seen = {"forward": [], "grad": []}

    def before_forward(module, args):                # a forward pre-hook
        seen["forward"].append((module.training, args[0].device, next(module.parameters()).device))

    def after_accumulate(param):                     # a post-accumulate-grad hook
        seen["grad"].append(id(param))

    handles = [probe.register_forward_pre_hook(before_forward)]
    handles += [p.register_post_accumulate_grad_hook(after_accumulate)
                for p in probe.parameters() if p.requires_grad]
    try:
        try:
            logits = probe(xb)
        except RuntimeError:
            logits = None                            # the forward raised: devices
        training, batch_on, params_on = seen["forward"][0]
        if not training:
            codes.add("eval_mode")
        if batch_on != params_on or yb.device != params_on:
            codes.add("device_mismatch")
        elif logits.shape != yb.shape:
            codes.add("shape_mismatch")
        else:
            loss = loss_fn(logits, yb)
            if not torch.isfinite(loss):
                codes.add("nonfinite_loss")
            else:
                loss.backward()
                reached = set(seen["grad"])
                if any(id(p) not in reached for p in probe.parameters() if p.requires_grad):
                    codes.add("missing_grad")
    finally:
        for handle in handles:
            handle.remove()                          # leave no hook behind
    return codes
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)   # split with the generator we were given
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)   # shuffled, seeded
    val = DataLoader(val_set, batch_size=batch_size)   # no drop_last: keep every validation example
    return train, val
""",
    },
    "honest-02": {  # a randperm cut as in section 10, section 5's side-by-side sweep table, plain reads
        "make_loaders": ML_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)   # a random split, as in the lesson
    n_val = round(val_fraction * len(dataset))
    val_idx, train_idx = order[:n_val], order[n_val:]
    train_loader = DataLoader(Subset(dataset, train_idx.tolist()), batch_size=batch_size, shuffle=True,
                              generator=generator)
    val_loader = DataLoader(Subset(dataset, val_idx.tolist()), batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
""",
        "lr_sweep": LS_DOC + """\
    loss_fn = nn.BCEWithLogitsLoss()
    nets = [make_model() for _ in lrs]                                   # a fresh model per rate
    sgds = [torch.optim.SGD(net.parameters(), lr=lr) for net, lr in zip(nets, lrs)]
    table = [[math.nan] * steps for _ in lrs]                            # row: a rate, column: a step
    for step in range(steps):                                            # all rates take step 1, then step 2, ...
        for row, (net, sgd) in enumerate(zip(nets, sgds)):
            sgd.zero_grad()                                              # 1.
            loss = loss_fn(net(x), y)                                    # 2-3.
            loss.backward()                                              # 4.
            sgd.step()                                                   # 5.
            table[row][step] = loss.item()                               # stored as it came
    final = {}
    for lr, row in zip(lrs, table):
        final[lr] = row[-1] if math.isfinite(row[-1]) else math.inf      # a nan is recorded as inf
    return final
""",
        "pick_lr": PL_DOC + """\
    best = None
    for lr, loss in sweep.items():
        if not math.isfinite(loss):      # nan compares False with everything: skip it
            continue
        if best is None or loss < sweep[best]:
            best = lr
    return best
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()                                  # training mode, explicitly
    losses = []
    evidence = None
    for _ in range(steps):
        optimizer.zero_grad()                      # 1. empty .grad
        pred = model(x)                            # 2. forward
        loss = loss_fn(pred, y)                    # 3. loss
        losses.append(loss.item())                 # a float: keeps no graph alive
        if loss.grad_fn is None:                   # no graph: backward would raise
            if evidence is None:
                evidence = (pred.shape == y.shape, False)
            break
        loss.backward()                            # 4. this batch's gradient into .grad
        if evidence is None:
            grads = [p.grad for p in model.parameters() if p.requires_grad and p.grad is not None]
            evidence = (pred.shape == y.shape, any(g.abs().max() > 0 for g in grads))
        optimizer.step()                           # 5. update
    same_shape, got_grad = evidence
    if math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]:
        return "learns"
    if not same_shape:
        return "loss_fn"
    if not got_grad:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    problems = set()
    if not model.training:
        problems.add("eval_mode")                      # left over from a validation pass
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        problems.add("not_shuffled")                   # shuffle defaults to False
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    not_held = [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]
    if not_held:
        problems.add("untrained_parameters")           # replaced after the optimizer was built
    xb, yb = next(iter(loader))
    params_on = next(model.parameters()).device
    if xb.device != params_on or yb.device != params_on:
        problems.add("device_mismatch")
        return problems
    twin = copy.deepcopy(model)
    twin.zero_grad(set_to_none=True)
    logits = twin(xb)
    if logits.shape != yb.shape:
        problems.add("shape_mismatch")
        return problems
    loss = loss_fn(logits, yb)
    if not math.isfinite(loss.item()):
        problems.add("nonfinite_loss")
        return problems
    loss.backward()
    no_grad = [name for name, p in twin.named_parameters() if p.requires_grad and p.grad is None]
    if no_grad:
        problems.add("missing_grad")                   # a layer off the path from the loss
    return problems
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)    # FIX: the split follows the generator
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)  # FIX: shuffle
    val = DataLoader(val_set, batch_size=batch_size, drop_last=False)  # FIX: keep the last batch
    return train, val
""",
    },
    "honest-03": {  # the lesson's memorise and train_at as helpers inside the cells, a pre-hook
        "make_loaders": ML_DOC + """\
    n = len(dataset)
    n_val = round(n * val_fraction)
    train_set, val_set = torch.utils.data.random_split(dataset, [n - n_val, n_val], generator=generator)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(val_set, batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
""",
        "lr_sweep": LS_DOC + """\
    loss_fn = nn.BCEWithLogitsLoss()

    def memorise(model, optimizer, steps):
        # the lesson's one-batch loop: the loss of every update
        model.train()
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()          # 1.
            loss = loss_fn(model(x), y)    # 2-3.
            loss.backward()                # 4.
            optimizer.step()               # 5.
            losses.append(loss.item())
        return losses

    def train_at(lr):
        net = make_model()
        return memorise(net, torch.optim.SGD(net.parameters(), lr=lr), steps)

    sweep = {}
    for lr in lrs:
        curve = train_at(lr)
        sweep[lr] = curve[-1] if math.isfinite(curve[-1]) else math.inf
    return sweep
""",
        "pick_lr": PL_DOC + """\
    last = {lr: loss for lr, loss in sweep.items() if not (math.isnan(loss) or math.isinf(loss))}
    return min(last, key=last.get)
""",
        "overfit_diagnosis": OD_DOC + """\
    def first_step_evidence(out, loss):
        # what the first update shows, before the optimizer has changed anything
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        return {"shapes": out.shape == y.shape,
                "grads": loss.requires_grad and any(bool((g != 0).any()) for g in grads)}

    model.train()                          # training mode, explicitly
    losses, first = [], None
    for _ in range(steps):
        optimizer.zero_grad()              # 1.
        out = model(x)                     # 2.
        loss = loss_fn(out, y)             # 3.
        losses.append(loss.item())
        if loss.requires_grad:
            loss.backward()                # 4.
        if first is None:
            first = first_step_evidence(out, loss)
        if not loss.requires_grad:
            break
        optimizer.step()                   # 5.
    if math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]:
        return "learns"
    if not first["shapes"]:
        return "loss_fn"
    if not first["grads"]:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    codes = set()
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if any(id(p) not in held for p in model.parameters() if p.requires_grad):
        codes.add("untrained_parameters")
    if type(loader.sampler).__name__ == "SequentialSampler":
        codes.add("not_shuffled")
    xb, yb = next(iter(loader))
    probe = copy.deepcopy(model)
    seen = {}

    def before_forward(module, args):            # a forward pre-hook, as in section 13
        seen["training"] = module.training
        seen["same_device"] = args[0].device == yb.device == next(module.parameters()).device

    handle = probe.register_forward_pre_hook(before_forward)
    try:
        logits = probe(xb)
    except RuntimeError:
        logits = None                            # the forward raised: the devices disagree
    finally:
        handle.remove()
    if not seen["training"]:
        codes.add("eval_mode")
    if not seen["same_device"]:
        codes.add("device_mismatch")
        return codes
    if logits.shape != yb.shape:
        codes.add("shape_mismatch")
        return codes
    loss = loss_fn(logits, yb)
    if not torch.isfinite(loss):
        codes.add("nonfinite_loss")
        return codes
    loss.backward()
    if any(p.grad is None for p in probe.parameters() if p.requires_grad):
        codes.add("missing_grad")
    return codes
""",
        "repair_make_loaders": RM_DOC + """\
    n_val = int(val_fraction * len(dataset))
    val_set, train_set = torch.utils.data.random_split(dataset, [n_val, len(dataset) - n_val],
                                                       generator=generator)
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)
    val = DataLoader(val_set, batch_size=batch_size)
    return train, val
""",
    },
    "honest-04": {  # xb/yb and the lesson's comments, section 13's hook cell with its names dict
        "make_loaders": ML_DOC + """\
    n_val = int(len(dataset) * val_fraction)
    n_train = len(dataset) - n_val
    parts = torch.utils.data.random_split(dataset, [n_train, n_val], generator=generator)
    train_loader = DataLoader(parts[0], batch_size=batch_size, shuffle=True, generator=generator)  # new order every epoch
    val_loader = DataLoader(parts[1], batch_size=batch_size)                                        # one fixed order
    return train_loader, val_loader
""",
        "lr_sweep": LS_DOC + """\
    loss_fn = nn.BCEWithLogitsLoss()             # binary classification from one logit
    last = {}
    for lr in lrs:
        model = make_model()                     # the same starting network at every rate
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()                # 1.
            loss = loss_fn(model(x), y)          # 2-3.
            loss.backward()                      # 4.
            optimizer.step()                     # 5.
            losses.append(loss.item())           # a float: keeps no graph alive
        last[lr] = losses[-1]
    for lr in last:
        if not math.isfinite(last[lr]):
            last[lr] = float("inf")              # a nan must not reach min()
    return last
""",
        "pick_lr": PL_DOC + """\
    finite = {}
    for lr, loss in sweep.items():
        if math.isfinite(loss):
            finite[lr] = loss
    return min(finite, key=finite.get)
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()                                    # training mode, explicitly
    losses = []
    shapes_agree = True
    some_grad = False
    for i in range(steps):
        optimizer.zero_grad()                        # 1. empty .grad
        pred = model(x)                              # 2. forward
        loss = loss_fn(pred, y)                      # 3. loss
        losses.append(loss.item())
        if i == 0:
            shapes_agree = pred.shape == y.shape     # the habit: pred.shape == y.shape
        if not loss.requires_grad:
            break                                    # the loss holds no graph
        loss.backward()                              # 4. this batch's gradient into .grad
        if i == 0:
            for p in model.parameters():
                if p.requires_grad and p.grad is not None and p.grad.abs().max().item() > 0:
                    some_grad = True
        optimizer.step()                             # 5. update
    if math.isfinite(losses[-1]) and losses[-1] < losses[0] / 10:
        return "learns"
    if not shapes_agree:
        return "loss_fn"
    if not some_grad:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    codes = set()
    probe = copy.deepcopy(model)                      # the step runs on a copy
    names = {id(p): name for name, p in probe.named_parameters()}
    seen = {"forward": [], "grad": []}

    def before_forward(module, args):                 # a forward pre-hook
        x = args[0]
        seen["forward"].append((module.training, x.device, next(module.parameters()).device))

    def after_accumulate(param):                      # a post-accumulate-grad hook
        seen["grad"].append(names[id(param)])

    handles = [probe.register_forward_pre_hook(before_forward)]
    handles += [p.register_post_accumulate_grad_hook(after_accumulate)
                for p in probe.parameters() if p.requires_grad]
    xb, yb = next(iter(loader))
    try:
        try:
            logits = probe(xb)
        except RuntimeError as err:
            logits = None
        training, batch_on, params_on = seen["forward"][0]
        if not training:
            codes.add("eval_mode")                    # forward row: mode=eval
        if batch_on != params_on or yb.device != params_on:
            codes.add("device_mismatch")
        elif logits.shape != yb.shape:
            codes.add("shape_mismatch")               # loss row: [N, 1] vs [N]
        else:
            loss = loss_fn(logits, yb)
            if not math.isfinite(loss.item()):
                codes.add("nonfinite_loss")
            else:
                loss.backward()                       # backward row: which parameters were reached
                trainable = [name for name, p in probe.named_parameters() if p.requires_grad]
                if any(name not in seen["grad"] for name in trainable):
                    codes.add("missing_grad")
    finally:
        for handle in handles:
            handle.remove()                           # leave no hook behind
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]:
        codes.add("untrained_parameters")             # step row: parameters the optimizer does not hold
    if type(loader.sampler).__name__ != "RandomSampler":
        codes.add("not_shuffled")
    return codes
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True,
                       generator=generator)
    val = DataLoader(val_set, batch_size=batch_size, shuffle=False)
    return train, val
""",
    },
    # ---- four who write compactly
    "honest-05": {  # random_split in one line, walrus, a generator into min, a set comprehension of codes
        "make_loaders": ML_DOC + """\
    n_val = round(val_fraction * len(dataset))
    train_ds, val_ds = torch.utils.data.random_split(dataset, [len(dataset) - n_val, n_val], generator=generator)
    return (DataLoader(train_ds, batch_size, shuffle=True, generator=generator),
            DataLoader(val_ds, batch_size))
""",
        "lr_sweep": LS_DOC + """\
    def final_loss(lr):
        model = make_model()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        crit = nn.BCEWithLogitsLoss()
        for _ in range(steps):
            opt.zero_grad()
            (loss := crit(model(x), y)).backward()
            opt.step()
        return loss.item()

    return {lr: v if math.isfinite(v := final_loss(lr)) else math.inf for lr in lrs}
""",
        "pick_lr": PL_DOC + """\
    return min((lr for lr, v in sweep.items() if math.isfinite(v)), key=sweep.__getitem__)
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()
    losses, evidence = [], None
    for _ in range(steps):
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        losses.append(loss.item())
        if loss.requires_grad:
            loss.backward()
        evidence = evidence or (out.shape == y.shape,
                                any(p.grad is not None and p.grad.count_nonzero().item() > 0
                                    for p in model.parameters()))
        if not loss.requires_grad:
            break
        optimizer.step()
    same_shape, has_grad = evidence
    if math.isfinite(losses[-1]) and losses[-1] < losses[0] / 10:
        return "learns"
    return "loss_fn" if not same_shape else "optimizer" if has_grad else "module"
""",
        "health_check": HC_DOC + """\
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    codes = {code for code, bad in [
        ("eval_mode", not model.training),
        ("not_shuffled", not isinstance(loader.sampler, torch.utils.data.RandomSampler)),
        ("untrained_parameters", any(p.requires_grad and id(p) not in held for p in model.parameters())),
    ] if bad}
    x, y = next(iter(loader))
    if {x.device, y.device} != {next(model.parameters()).device}:
        return codes | {"device_mismatch"}
    probe = copy.deepcopy(model)
    if (out := probe(x)).shape != y.shape:
        return codes | {"shape_mismatch"}
    if not torch.isfinite(loss := loss_fn(out, y)):
        return codes | {"nonfinite_loss"}
    loss.backward()
    return codes | ({"missing_grad"} if any(p.requires_grad and p.grad is None for p in probe.parameters()) else set())
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)
    val = DataLoader(val_set, batch_size=batch_size)
    return train, val
""",
    },
    "honest-06": {  # no docstrings, a lambda loader factory, semicolons, filter, torch.autograd.grad
        "make_loaders": ML + """\
    perm = torch.randperm(len(dataset), generator=generator).tolist()
    k = round(len(dataset) * val_fraction)
    mk = lambda idx, **kw: DataLoader(Subset(dataset, idx), batch_size=batch_size, **kw)
    return mk(perm[k:], shuffle=True, generator=generator), mk(perm[:k])
""",
        "lr_sweep": LS + """\
    bce, out = nn.BCEWithLogitsLoss(), {}
    for lr in lrs:
        m = make_model()
        opt = torch.optim.SGD(m.parameters(), lr=lr)
        for _ in range(steps):
            opt.zero_grad(); l = bce(m(x), y); l.backward(); opt.step()
        out[lr] = l.item() if torch.isfinite(l) else float("inf")
    return out
""",
        "pick_lr": PL + """\
    return min(filter(lambda lr: math.isfinite(sweep[lr]), sweep), key=sweep.get)
""",
        "overfit_diagnosis": OD + """\
    model.train()
    hist = []
    for step in range(steps):
        optimizer.zero_grad()
        out = model(x); loss = loss_fn(out, y); hist.append(loss.item())
        if step == 0:
            shapes = out.shape == y.shape
        if not loss.requires_grad:
            grads = False
            break
        loss.backward()
        if step == 0:
            grads = any(p.grad is not None and p.grad.any().item() for p in model.parameters())
        optimizer.step()
    if math.isfinite(hist[-1]) and hist[-1] < 0.1 * hist[0]:
        return "learns"
    return next(v for bad, v in [(not shapes, "loss_fn"), (not grads, "module"), (True, "optimizer")] if bad)
""",
        "health_check": HC + """\
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    found = set()
    if not model.training: found.add("eval_mode")
    if isinstance(loader.sampler, torch.utils.data.SequentialSampler): found.add("not_shuffled")
    if any(p.requires_grad and id(p) not in held for p in model.parameters()): found.add("untrained_parameters")
    x, y = next(iter(loader))
    dev = next(model.parameters()).device
    if x.device != dev or y.device != dev:
        return found | {"device_mismatch"}
    probe = copy.deepcopy(model)
    logits = probe(x)
    if logits.shape != y.shape:
        return found | {"shape_mismatch"}
    loss = loss_fn(logits, y)
    if loss.isnan().any() or loss.isinf().any():
        return found | {"nonfinite_loss"}
    trainable = [p for p in probe.parameters() if p.requires_grad]
    grads = torch.autograd.grad(loss, trainable, allow_unused=True)
    return found | ({"missing_grad"} if any(g is None for g in grads) else set())
""",
        "repair_make_loaders": RM + """\
    perm = torch.randperm(len(dataset), generator=generator).tolist()
    k = int(val_fraction * len(dataset))
    return (DataLoader(Subset(dataset, perm[k:]), batch_size=batch_size, shuffle=True, generator=generator),
            DataLoader(Subset(dataset, perm[:k]), batch_size=batch_size))
""",
    },
    "honest-07": {  # fractional random_split, a step closure, a key that maps non-finite to inf, lambda hooks
        "make_loaders": ML_DOC + """\
    train_part, val_part = torch.utils.data.random_split(dataset, [1 - val_fraction, val_fraction],
                                                         generator=generator)
    return (DataLoader(train_part, batch_size=batch_size, shuffle=True, generator=generator),
            DataLoader(val_part, batch_size=batch_size))
""",
        "lr_sweep": LS_DOC + """\
    criterion = nn.BCEWithLogitsLoss()

    def step(model, opt):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    out = {}
    for lr in lrs:
        model = make_model()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        final = [step(model, opt) for _ in range(steps)][-1]
        out[lr] = final if math.isfinite(final) else math.inf
    return out
""",
        "pick_lr": PL_DOC + """\
    return min(sweep, key=lambda lr: sweep[lr] if math.isfinite(sweep[lr]) else math.inf)
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()
    first_loss = last_loss = None
    shapes_ok = grads_ok = None
    for step in range(steps):
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        last_loss = loss.item()
        if step == 0:
            first_loss, shapes_ok, grads_ok = last_loss, out.shape == y.shape, False
        if loss.grad_fn is None:
            break
        loss.backward()
        if step == 0:
            grads_ok = any(p.grad.abs().sum() > 0 for p in model.parameters() if p.grad is not None)
        optimizer.step()
    if math.isfinite(last_loss) and last_loss < first_loss / 10:
        return "learns"
    return "loss_fn" if not shapes_ok else ("module" if not grads_ok else "optimizer")
""",
        "health_check": HC_DOC + """\
    codes = set()
    if not model.training:
        codes.add("eval_mode")
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        codes.add("not_shuffled")
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if not all(id(p) in held for p in model.parameters() if p.requires_grad):
        codes.add("untrained_parameters")
    x, y = next(iter(loader))
    if not x.device == y.device == next(model.parameters()).device:
        return codes | {"device_mismatch"}
    probe = copy.deepcopy(model)
    reached = set()
    hooks = [p.register_post_accumulate_grad_hook(lambda t: reached.add(id(t)))
             for p in probe.parameters() if p.requires_grad]
    try:
        out = probe(x)
        if out.shape != y.shape:
            return codes | {"shape_mismatch"}
        loss = loss_fn(out, y)
        if not loss.isfinite():
            return codes | {"nonfinite_loss"}
        loss.backward()
        if len(reached) < len(hooks):
            codes.add("missing_grad")
        return codes
    finally:
        for h in hooks:
            h.remove()
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)
    n_val = int(val_fraction * len(dataset))
    val_set, train_set = Subset(dataset, order[:n_val].tolist()), Subset(dataset, order[n_val:].tolist())
    return (DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator),
            DataLoader(val_set, batch_size=batch_size))
""",
    },
    "honest-08": {  # no docstrings, positional batch_size, torch.where over stacked finals, sorted tuples
        "make_loaders": ML + """\
    idx = torch.randperm(len(dataset), generator=generator).tolist()
    cut = int(len(dataset) * val_fraction + 0.5)
    train, val = Subset(dataset, idx[cut:]), Subset(dataset, idx[:cut])
    return DataLoader(train, batch_size, shuffle=True, generator=generator), DataLoader(val, batch_size)
""",
        "lr_sweep": LS + """\
    crit = nn.BCEWithLogitsLoss()

    def final(lr):
        net = make_model()
        opt = torch.optim.SGD(net.parameters(), lr=lr)
        for _ in range(steps):
            opt.zero_grad()
            loss = crit(net(x), y)
            loss.backward()
            opt.step()
        return loss.detach()

    finals = torch.stack([final(lr) for lr in lrs])
    finals = torch.where(finals.isfinite(), finals, torch.full_like(finals, math.inf))
    return dict(zip(lrs, finals.tolist()))
""",
        "pick_lr": PL + """\
    return sorted((v, lr) for lr, v in sweep.items() if math.isfinite(v))[0][1]
""",
        "overfit_diagnosis": OD + """\
    model.train()
    losses, shapes_ok, grads_ok = [], None, None
    for _ in range(steps):
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        losses.append(loss.item())
        if shapes_ok is None:
            shapes_ok = out.shape == y.shape
        if loss.grad_fn is None:
            grads_ok = bool(grads_ok)
            break
        loss.backward()
        if grads_ok is None:
            grads_ok = any(float(p.grad.norm()) > 0 for p in model.parameters() if p.grad is not None)
        optimizer.step()
    learned = math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]
    return "learns" if learned else "loss_fn" if not shapes_ok else "module" if not grads_ok else "optimizer"
""",
        "health_check": HC + """\
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    found = {"eval_mode"} if not model.training else set()
    if type(loader.sampler).__name__ != "RandomSampler":
        found.add("not_shuffled")
    if {id(p) for p in model.parameters() if p.requires_grad} - held:
        found.add("untrained_parameters")
    xb, yb = next(iter(loader))
    dev = next(model.parameters()).device
    if (xb.device, yb.device) != (dev, dev):
        return found | {"device_mismatch"}
    twin = copy.deepcopy(model)
    logits = twin(xb)
    if logits.shape != yb.shape:
        return found | {"shape_mismatch"}
    loss = loss_fn(logits, yb)
    if not loss.isfinite().all():
        return found | {"nonfinite_loss"}
    loss.backward()
    return found | {"missing_grad" for p in twin.parameters() if p.requires_grad and p.grad is None}
""",
        "repair_make_loaders": RM + """\
    order = torch.randperm(len(dataset), generator=generator)
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    val = DataLoader(val_set, batch_size=batch_size)
    return train, val
""",
    },
    # ---- four beginners
    "honest-09": {  # prints left in, temporaries, "# YOUR CODE HERE" kept, loops with if/else
        "make_loaders": ML_DOC + """\
    # YOUR CODE HERE
    total = len(dataset)
    num_val = int(total * val_fraction)
    num_train = total - num_val
    print("train size:", num_train, "val size:", num_val)
    indices = torch.randperm(total, generator=generator)
    indices = indices.tolist()
    val_indices = []
    train_indices = []
    for i in range(total):
        if i < num_val:
            val_indices.append(indices[i])
        else:
            train_indices.append(indices[i])
    train_dataset = Subset(dataset, train_indices)
    val_dataset = Subset(dataset, val_indices)
    train_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(val_dataset, batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
""",
        "lr_sweep": LS_DOC + """\
    # YOUR CODE HERE
    results = {}
    for lr in lrs:
        print("trying lr", lr)
        model = make_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        loss_function = nn.BCEWithLogitsLoss()
        final_loss = None
        for i in range(steps):
            optimizer.zero_grad()
            output = model(x)
            loss = loss_function(output, y)
            loss.backward()
            optimizer.step()
            final_loss = loss.item()
        if final_loss is None:
            final_loss = float("inf")
        if math.isnan(final_loss) or math.isinf(final_loss):
            final_loss = float("inf")
        print("final loss", final_loss)
        results[lr] = final_loss
    return results
""",
        "pick_lr": PL_DOC + """\
    # YOUR CODE HERE
    best_lr = None
    best_loss = float("inf")
    for lr in sweep:
        loss = sweep[lr]
        if math.isnan(loss):
            continue
        if math.isinf(loss):
            continue
        if loss < best_loss:
            best_loss = loss
            best_lr = lr
    print("best lr:", best_lr, "loss:", best_loss)
    return best_lr
""",
        "overfit_diagnosis": OD_DOC + """\
    # YOUR CODE HERE
    model.train()
    loss_list = []
    first_shapes_ok = True
    first_grad_ok = False
    for i in range(steps):
        optimizer.zero_grad()
        output = model(x)
        loss = loss_fn(output, y)
        loss_value = loss.item()
        loss_list.append(loss_value)
        if i == 0:
            print("output shape", output.shape, "target shape", y.shape)
            if output.shape == y.shape:
                first_shapes_ok = True
            else:
                first_shapes_ok = False
        if loss.requires_grad == False:
            print("loss has no graph!")
            break
        loss.backward()
        if i == 0:
            for param in model.parameters():
                if param.grad is not None:
                    grad_sum = param.grad.abs().sum().item()
                    if grad_sum > 0:
                        first_grad_ok = True
        optimizer.step()
    first_loss = loss_list[0]
    last_loss = loss_list[-1]
    print("first loss:", first_loss, "last loss:", last_loss)
    if math.isfinite(last_loss) and last_loss < first_loss * 0.1:
        return "learns"
    if first_shapes_ok == False:
        return "loss_fn"
    if first_grad_ok == False:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    # YOUR CODE HERE
    result = set()
    # 1. is the model in training mode?
    if model.training == False:
        result.add("eval_mode")
    # 2. is the loader shuffled?
    sampler_name = type(loader.sampler).__name__
    print("sampler:", sampler_name)
    if sampler_name != "RandomSampler":
        result.add("not_shuffled")
    # 3. does the optimizer hold every trainable parameter?
    optimizer_ids = []
    for group in optimizer.param_groups:
        for p in group["params"]:
            optimizer_ids.append(id(p))
    for p in model.parameters():
        if p.requires_grad == True and id(p) not in optimizer_ids:
            result.add("untrained_parameters")
    # 4. one step on a copy of the model
    batch = next(iter(loader))
    inputs = batch[0]
    targets = batch[1]
    model_device = next(model.parameters()).device
    print("model on", model_device, "inputs on", inputs.device)
    if inputs.device != model_device or targets.device != model_device:
        result.add("device_mismatch")
        return result
    model_copy = copy.deepcopy(model)
    outputs = model_copy(inputs)
    print("outputs", outputs.shape, "targets", targets.shape)
    if outputs.shape != targets.shape:
        result.add("shape_mismatch")
        return result
    loss = loss_fn(outputs, targets)
    print("loss", loss.item())
    if math.isnan(loss.item()) or math.isinf(loss.item()):
        result.add("nonfinite_loss")
        return result
    loss.backward()
    for name, p in model_copy.named_parameters():
        if p.requires_grad == True and p.grad is None:
            print("no grad for", name)
            result.add("missing_grad")
    return result
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)  # added generator
    n_val = int(val_fraction * len(dataset))
    print("n_val =", n_val)
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)  # added shuffle
    val = DataLoader(val_set, batch_size=batch_size)  # removed drop_last=True
    return train, val
""",
    },
    "honest-10": {  # defensive: asserts, ValueErrors, try/except around backward and the forward
        "make_loaders": ML_DOC + """\
    assert 0 < val_fraction < 1, "val_fraction must be between 0 and 1"
    assert batch_size > 0
    n_total = len(dataset)
    n_val = int(round(n_total * val_fraction))
    if n_val == 0:
        n_val = 1   # keep at least one validation example
    n_train = n_total - n_val
    assert n_train + n_val == n_total
    train_data, val_data = torch.utils.data.random_split(dataset, [n_train, n_val], generator=generator)
    assert len(train_data) == n_train and len(val_data) == n_val
    train_loader = DataLoader(train_data, batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(val_data, batch_size=batch_size, shuffle=False, drop_last=False)
    return train_loader, val_loader
""",
        "lr_sweep": LS_DOC + """\
    if steps < 1:
        raise ValueError("need at least one step")
    results = {}
    for lr in lrs:
        model = make_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        loss_fn = nn.BCEWithLogitsLoss()
        last_loss = float("inf")
        for step in range(steps):
            optimizer.zero_grad()
            try:
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                last_loss = loss.item()
            except RuntimeError as e:
                print("step failed at lr", lr, ":", e)
                last_loss = float("inf")
                break
        if not math.isfinite(last_loss):
            last_loss = float("inf")
        results[lr] = float(last_loss)
    return results
""",
        "pick_lr": PL_DOC + """\
    if len(sweep) == 0:
        raise ValueError("empty sweep")
    finite_lrs = [lr for lr in sweep if math.isfinite(sweep[lr])]
    if len(finite_lrs) == 0:
        raise ValueError("every run in the sweep diverged")
    best = finite_lrs[0]
    for lr in finite_lrs[1:]:
        if sweep[lr] < sweep[best]:
            best = lr
    return best
""",
        "overfit_diagnosis": OD_DOC + """\
    assert steps > 0
    model.train()
    losses = []
    shapes_match = None
    grad_found = None
    for step in range(steps):
        optimizer.zero_grad()
        output = model(x)
        loss = loss_fn(output, y)
        losses.append(loss.item())
        if shapes_match is None:
            shapes_match = tuple(output.shape) == tuple(y.shape)
        try:
            loss.backward()
        except RuntimeError:
            # the loss has no graph: nothing can reach a parameter
            if grad_found is None:
                grad_found = False
            break
        if grad_found is None:
            grad_found = False
            for p in model.parameters():
                if not p.requires_grad or p.grad is None:
                    continue
                if torch.any(p.grad != 0):
                    grad_found = True
                    break
        optimizer.step()
    last = losses[-1]
    first = losses[0]
    if math.isfinite(last) and last < 0.1 * first:
        return "learns"
    elif not shapes_match:
        return "loss_fn"
    elif not grad_found:
        return "module"
    else:
        return "optimizer"
""",
        "health_check": HC_DOC + """\
    codes = set()
    if model.training is False:
        codes.add("eval_mode")
    sampler = getattr(loader, "sampler", None)
    if sampler is None or not isinstance(sampler, torch.utils.data.RandomSampler):
        codes.add("not_shuffled")
    params_in_optimizer = set()
    for group in optimizer.param_groups:
        for param in group["params"]:
            params_in_optimizer.add(id(param))
    for name, param in model.named_parameters():
        if param.requires_grad and id(param) not in params_in_optimizer:
            codes.add("untrained_parameters")
            break
    try:
        inputs, targets = next(iter(loader))
    except StopIteration:
        return codes   # an empty loader: nothing more to check
    params = list(model.parameters())
    if len(params) > 0:
        model_device = params[0].device
        if inputs.device != model_device or targets.device != model_device:
            codes.add("device_mismatch")
            return codes
    probe = copy.deepcopy(model)
    try:
        logits = probe(inputs)
    except RuntimeError as error:
        print("forward failed:", error)
        codes.add("device_mismatch")
        return codes
    if logits.shape != targets.shape:
        codes.add("shape_mismatch")
        return codes
    loss = loss_fn(logits, targets)
    if torch.isnan(loss).any() or torch.isinf(loss).any():
        codes.add("nonfinite_loss")
        return codes
    probe.zero_grad(set_to_none=True)
    loss.backward()
    for name, param in probe.named_parameters():
        if param.requires_grad and param.grad is None:
            codes.add("missing_grad")
            break
    return codes
""",
        "repair_make_loaders": RM_DOC + """\
    assert 0 < val_fraction < 1
    order = torch.randperm(len(dataset), generator=generator)   # use the generator so the split repeats
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    assert len(val_set) + len(train_set) == len(dataset)
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)
    val = DataLoader(val_set, batch_size=batch_size, drop_last=False)
    return train, val
""",
    },
    "honest-11": {  # index loops, range(len(...)), == True / == False, no comprehensions
        "make_loaders": ML_DOC + """\
    size = len(dataset)
    val_size = math.floor(size * val_fraction + 0.5)
    permutation = torch.randperm(size, generator=generator)
    val_list = []
    for i in range(val_size):
        val_list.append(int(permutation[i]))
    train_list = []
    for i in range(val_size, size):
        train_list.append(int(permutation[i]))
    train_subset = Subset(dataset, train_list)
    val_subset = Subset(dataset, val_list)
    train_loader = DataLoader(train_subset, batch_size=batch_size, shuffle=True, generator=generator)
    val_loader = DataLoader(val_subset, batch_size=batch_size)
    return train_loader, val_loader
""",
        "lr_sweep": LS_DOC + """\
    answer = {}
    for i in range(len(lrs)):
        learning_rate = lrs[i]
        my_model = make_model()
        my_optimizer = torch.optim.SGD(my_model.parameters(), lr=learning_rate)
        criterion = nn.BCEWithLogitsLoss()
        losses = []
        for j in range(steps):
            my_optimizer.zero_grad()
            prediction = my_model(x)
            loss = criterion(prediction, y)
            loss.backward()
            my_optimizer.step()
            losses.append(loss.item())
        final_loss = losses[len(losses) - 1]
        if math.isfinite(final_loss) == False:
            final_loss = float("inf")
        answer[learning_rate] = final_loss
    return answer
""",
        "pick_lr": PL_DOC + """\
    keys = list(sweep.keys())
    best_index = -1
    for i in range(len(keys)):
        value = sweep[keys[i]]
        if math.isfinite(value) == False:
            continue
        if best_index == -1:
            best_index = i
        elif value < sweep[keys[best_index]]:
            best_index = i
    return keys[best_index]
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()
    all_losses = []
    shape_problem = False
    gradient_exists = False
    no_graph = False
    step = 0
    for step in range(steps):
        optimizer.zero_grad()
        prediction = model(x)
        loss = loss_fn(prediction, y)
        all_losses.append(loss.item())
        if step == 0:
            if prediction.shape != y.shape:
                shape_problem = True
        if loss.requires_grad == False:
            no_graph = True
            break
        loss.backward()
        if step == 0:
            params = list(model.parameters())
            for k in range(len(params)):
                g = params[k].grad
                if g is not None:
                    if g.abs().max().item() != 0:
                        gradient_exists = True
        optimizer.step()
    start = all_losses[0]
    end = all_losses[len(all_losses) - 1]
    if math.isfinite(end) == True and end < start / 10:
        return "learns"
    if shape_problem == True:
        return "loss_fn"
    if gradient_exists == False or no_graph == True:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    problems = set()
    if model.training == False:
        problems.add("eval_mode")
    if isinstance(loader.sampler, torch.utils.data.RandomSampler) == False:
        problems.add("not_shuffled")
    opt_params = []
    for group in optimizer.param_groups:
        for p in group["params"]:
            opt_params.append(p)
    model_params = list(model.parameters())
    for i in range(len(model_params)):
        p = model_params[i]
        if p.requires_grad:
            found = False
            for q in opt_params:
                if q is p:
                    found = True
            if found == False:
                problems.add("untrained_parameters")
    for batch_x, batch_y in loader:
        break
    model_device = model_params[0].device
    if batch_x.device != model_device:
        problems.add("device_mismatch")
        return problems
    if batch_y.device != model_device:
        problems.add("device_mismatch")
        return problems
    new_model = copy.deepcopy(model)
    output = new_model(batch_x)
    if output.shape != batch_y.shape:
        problems.add("shape_mismatch")
        return problems
    loss = loss_fn(output, batch_y)
    if math.isfinite(loss.item()) == False:
        problems.add("nonfinite_loss")
        return problems
    loss.backward()
    new_params = list(new_model.parameters())
    for i in range(len(new_params)):
        if new_params[i].requires_grad == True:
            if new_params[i].grad is None:
                problems.add("missing_grad")
    return problems
""",
        "repair_make_loaders": RM_DOC + """\
    n = len(dataset)
    order = torch.randperm(n, generator=generator)
    n_val = int(val_fraction * n)
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    val = DataLoader(val_set, batch_size=batch_size)
    return train, val
""",
    },
    "honest-12": {  # long names, "step 1 ... step 5" comments, commented-out prints, "# YOUR CODE HERE" kept
        "make_loaders": ML_DOC + """\
    # YOUR CODE HERE
    # how many examples go to validation
    number_of_examples = len(dataset)
    number_of_val_examples = int(number_of_examples * val_fraction)
    number_of_train_examples = number_of_examples - number_of_val_examples
    # split at random with the generator (random_split from the lesson)
    training_part, validation_part = torch.utils.data.random_split(
        dataset, [number_of_train_examples, number_of_val_examples], generator=generator)
    # print(len(training_part), len(validation_part))
    # the training loader is shuffled, the validation loader is not
    training_loader = DataLoader(training_part, batch_size=batch_size, shuffle=True, generator=generator)
    validation_loader = DataLoader(validation_part, batch_size=batch_size, shuffle=False)
    return training_loader, validation_loader
""",
        "lr_sweep": LS_DOC + """\
    # YOUR CODE HERE
    final_losses = {}
    for learning_rate in lrs:
        # a new model for every learning rate
        model = make_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
        loss_function = nn.BCEWithLogitsLoss()
        # train for `steps` full-batch steps
        for step_number in range(steps):
            optimizer.zero_grad()                   # step 1: clear the gradients
            predictions = model(x)                  # step 2: forward
            loss = loss_function(predictions, y)    # step 3: loss
            loss.backward()                         # step 4: backward
            optimizer.step()                        # step 5: update
            # print(step_number, loss.item())
        final_loss = loss.item()
        # a nan or inf loss is stored as inf
        if math.isnan(final_loss):
            final_loss = float("inf")
        elif math.isinf(final_loss):
            final_loss = float("inf")
        final_losses[learning_rate] = final_loss
    return final_losses
""",
        "pick_lr": PL_DOC + """\
    # YOUR CODE HERE
    # keep only the learning rates whose loss is a real number
    good_rates = []
    for learning_rate, loss in sweep.items():
        if math.isfinite(loss):
            good_rates.append(learning_rate)
    # find the one with the smallest loss
    best_rate = good_rates[0]
    for learning_rate in good_rates:
        if sweep[learning_rate] < sweep[best_rate]:
            best_rate = learning_rate
    return best_rate
""",
        "overfit_diagnosis": OD_DOC + """\
    # YOUR CODE HERE
    model.train()   # training mode
    loss_history = []
    first_step = True
    output_shape_ok = True
    any_nonzero_gradient = False
    for step_number in range(steps):
        optimizer.zero_grad()              # step 1
        output = model(x)                  # step 2
        loss = loss_fn(output, y)          # step 3
        loss_history.append(loss.item())
        if first_step:
            output_shape_ok = (output.shape == y.shape)
        if loss.requires_grad:
            loss.backward()                # step 4
            if first_step:
                for parameter in model.parameters():
                    if parameter.grad is not None and parameter.grad.abs().sum().item() > 0:
                        any_nonzero_gradient = True
            optimizer.step()               # step 5
        else:
            # no graph, so backward would fail
            break
        first_step = False
    # print(loss_history[0], loss_history[-1])
    first_loss = loss_history[0]
    last_loss = loss_history[-1]
    loss_went_down = math.isfinite(last_loss) and last_loss < 0.1 * first_loss
    if loss_went_down:
        return "learns"
    if not output_shape_ok:
        return "loss_fn"
    if not any_nonzero_gradient:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    # YOUR CODE HERE
    codes = set()
    # mode
    if not model.training:
        codes.add("eval_mode")
    # loader
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        codes.add("not_shuffled")
    # optimizer
    ids_in_optimizer = []
    for param_group in optimizer.param_groups:
        for parameter in param_group["params"]:
            ids_in_optimizer.append(id(parameter))
    for parameter in model.parameters():
        if parameter.requires_grad and not (id(parameter) in ids_in_optimizer):
            codes.add("untrained_parameters")
    # one step on a copy, so the real model does not change
    inputs, targets = next(iter(loader))
    model_device = list(model.parameters())[0].device
    if inputs.device == model_device and targets.device == model_device:
        model_copy = copy.deepcopy(model)
        outputs = model_copy(inputs)
        if outputs.shape == targets.shape:
            loss = loss_fn(outputs, targets)
            if torch.isfinite(loss).item():
                loss.backward()
                for parameter in model_copy.parameters():
                    if parameter.requires_grad and parameter.grad is None:
                        codes.add("missing_grad")
            else:
                codes.add("nonfinite_loss")
        else:
            codes.add("shape_mismatch")
    else:
        codes.add("device_mismatch")
    # print(codes)
    return codes
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)     # step 1: use the generator
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)     # step 2: shuffle
    val = DataLoader(val_set, batch_size=batch_size)     # step 3: no drop_last
    return train, val
""",
    },
    # ---- four who structure things their own way
    "honest-13": {  # small classes: a Split, a run per rate, a one-batch run, a probe; the repair reuses Split
        "make_loaders": """\
class Split:
    \"\"\"Indices drawn once from a generator, cut into a validation part and a training part.\"\"\"

    def __init__(self, n, val_fraction, generator):
        order = torch.randperm(n, generator=generator).tolist()
        self.cut = round(n * val_fraction)
        self.val, self.train = order[:self.cut], order[self.cut:]

    def loader(self, dataset, part, batch_size, **options):
        return DataLoader(Subset(dataset, getattr(self, part)), batch_size=batch_size, **options)


""" + ML_DOC + """\
    split = Split(len(dataset), val_fraction, generator)
    return (split.loader(dataset, "train", batch_size, shuffle=True, generator=generator),
            split.loader(dataset, "val", batch_size))
""",
        "lr_sweep": """\
class SweepRun:
    \"\"\"One learning rate: a fresh model, plain SGD and BCEWithLogitsLoss on the full batch.\"\"\"

    criterion = nn.BCEWithLogitsLoss()

    def __init__(self, make_model, lr):
        self.model = make_model()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.last = math.inf

    def update(self, x, y):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.last = loss.item()

    def result(self):
        return self.last if math.isfinite(self.last) else math.inf


""" + LS_DOC + """\
    runs = {lr: SweepRun(make_model, lr) for lr in lrs}
    for run in runs.values():
        for _ in range(steps):
            run.update(x, y)
    return {lr: run.result() for lr, run in runs.items()}
""",
        "pick_lr": PL_DOC + """\
    class Best:
        lr, loss = None, math.inf

    for lr, loss in sweep.items():
        if math.isfinite(loss) and loss < Best.loss:
            Best.lr, Best.loss = lr, loss
    return Best.lr
""",
        "overfit_diagnosis": """\
class OneBatchRun:
    \"\"\"The five lines on one fixed batch, keeping the first update's evidence.\"\"\"

    def __init__(self, model, x, y, optimizer, loss_fn):
        self.model, self.x, self.y = model, x, y
        self.optimizer, self.loss_fn = optimizer, loss_fn
        self.losses = []
        self.shapes_agree = None
        self.gradient_reached = False

    def update(self):
        \"\"\"One update; False when the loss holds no graph to go backward through.\"\"\"
        self.optimizer.zero_grad()
        out = self.model(self.x)
        loss = self.loss_fn(out, self.y)
        first = not self.losses
        self.losses.append(loss.item())
        if first:
            self.shapes_agree = out.shape == self.y.shape
        if not loss.requires_grad:
            return False
        loss.backward()
        if first:
            self.gradient_reached = any(p.grad is not None and bool(p.grad.any())
                                        for p in self.model.parameters() if p.requires_grad)
        self.optimizer.step()
        return True

    def verdict(self):
        if math.isfinite(self.losses[-1]) and self.losses[-1] < 0.1 * self.losses[0]:
            return "learns"
        if not self.shapes_agree:
            return "loss_fn"
        return "optimizer" if self.gradient_reached else "module"


""" + OD_DOC + """\
    model.train()
    run = OneBatchRun(model, x, y, optimizer, loss_fn)
    for _ in range(steps):
        if not run.update():
            break
    return run.verdict()
""",
        "health_check": """\
class Probe:
    \"\"\"Reads the caller's objects and steps a deep copy of the model once; collects the codes.\"\"\"

    def __init__(self, model, loader, optimizer, loss_fn):
        self.model, self.loader, self.optimizer, self.loss_fn = model, loader, optimizer, loss_fn
        self.codes = set()

    def flag(self, code, bad=True):
        if bad:
            self.codes.add(code)
        return bad

    def static(self):
        self.flag("eval_mode", not self.model.training)
        self.flag("not_shuffled", not isinstance(self.loader.sampler, torch.utils.data.RandomSampler))
        held = {id(p) for group in self.optimizer.param_groups for p in group["params"]}
        self.flag("untrained_parameters",
                  any(id(p) not in held for p in self.model.parameters() if p.requires_grad))

    def step(self):
        xb, yb = next(iter(self.loader))
        device = next(self.model.parameters()).device
        if self.flag("device_mismatch", xb.device != device or yb.device != device):
            return
        twin = copy.deepcopy(self.model)
        out = twin(xb)
        if self.flag("shape_mismatch", out.shape != yb.shape):
            return
        loss = self.loss_fn(out, yb)
        if self.flag("nonfinite_loss", not torch.isfinite(loss).item()):
            return
        loss.backward()
        self.flag("missing_grad", any(p.grad is None for p in twin.parameters() if p.requires_grad))


""" + HC_DOC + """\
    probe = Probe(model, loader, optimizer, loss_fn)
    probe.static()
    probe.step()
    return probe.codes
""",
        "repair_make_loaders": RM_DOC + """\
    split = Split(len(dataset), val_fraction, generator)        # the split now follows the generator
    train = split.loader(dataset, "train", batch_size, shuffle=True, generator=generator)
    val = split.loader(dataset, "val", batch_size)              # no drop_last: every example counts
    return train, val
""",
    },
    "honest-14": {  # module-level helpers and early returns; the repair calls their own make_loaders
        "make_loaders": """\
def _split_indices(n, val_fraction, generator):
    perm = torch.randperm(n, generator=generator)
    n_val = int(n * val_fraction + 0.5)
    return perm[n_val:].tolist(), perm[:n_val].tolist()


def _loader(dataset, indices, batch_size, generator=None):
    if generator is None:
        return DataLoader(Subset(dataset, indices), batch_size=batch_size)
    return DataLoader(Subset(dataset, indices), batch_size=batch_size, shuffle=True, generator=generator)


""" + ML_DOC + """\
    train_idx, val_idx = _split_indices(len(dataset), val_fraction, generator)
    return _loader(dataset, train_idx, batch_size, generator), _loader(dataset, val_idx, batch_size)
""",
        "lr_sweep": """\
def _final_loss(model, x, y, lr, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.BCEWithLogitsLoss()
    value = math.inf
    for _ in range(steps):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        value = loss.item()
    return value


def _finite_or_inf(value):
    if math.isnan(value) or math.isinf(value):
        return math.inf
    return value


""" + LS_DOC + """\
    return {lr: _finite_or_inf(_final_loss(make_model(), x, y, lr, steps)) for lr in lrs}
""",
        "pick_lr": """\
def _usable(loss):
    return not math.isnan(loss) and not math.isinf(loss)


""" + PL_DOC + """\
    usable = [lr for lr in sweep if _usable(sweep[lr])]
    if not usable:
        return None
    if len(usable) == 1:
        return usable[0]
    return min(usable, key=lambda lr: sweep[lr])
""",
        "overfit_diagnosis": """\
def _has_gradient(model):
    for p in model.parameters():
        if p.requires_grad and p.grad is not None and torch.count_nonzero(p.grad) > 0:
            return True
    return False


def _learned(losses):
    if not losses or not math.isfinite(losses[-1]):
        return False
    return losses[-1] < 0.1 * losses[0]


""" + OD_DOC + """\
    model.train()
    losses, shapes_ok, grads_ok = [], True, False
    for i in range(steps):
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        losses.append(loss.item())
        if i == 0:
            shapes_ok = out.shape == y.shape
        if not loss.requires_grad:
            break
        loss.backward()
        if i == 0:
            grads_ok = _has_gradient(model)
        optimizer.step()
    if _learned(losses):
        return "learns"
    if not shapes_ok:
        return "loss_fn"
    if not grads_ok:
        return "module"
    return "optimizer"
""",
        "health_check": """\
def _trainable_not_held(model, optimizer):
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    return [p for p in model.parameters() if p.requires_grad and id(p) not in held]


def _step_problem(model, xb, yb, loss_fn):
    \"\"\"The first thing the step itself shows wrong, or None.\"\"\"
    device = next(model.parameters()).device
    if xb.device != device or yb.device != device:
        return "device_mismatch"
    twin = copy.deepcopy(model)
    logits = twin(xb)
    if logits.shape != yb.shape:
        return "shape_mismatch"
    loss = loss_fn(logits, yb)
    if not torch.isfinite(loss):
        return "nonfinite_loss"
    loss.backward()
    if any(p.requires_grad and p.grad is None for p in twin.parameters()):
        return "missing_grad"
    return None


""" + HC_DOC + """\
    codes = set()
    if not model.training:
        codes.add("eval_mode")
    if not isinstance(loader.sampler, torch.utils.data.RandomSampler):
        codes.add("not_shuffled")
    if _trainable_not_held(model, optimizer):
        codes.add("untrained_parameters")
    problem = _step_problem(model, *next(iter(loader)), loss_fn)
    if problem is not None:
        codes.add(problem)
    return codes
""",
        "repair_make_loaders": RM_DOC + """\
    # the colleague's version ignored the generator, never shuffled and dropped the last validation batch;
    # make_loaders above already does all three right
    return make_loaders(dataset, batch_size, val_fraction, generator)
""",
    },
    "honest-15": {  # while loops and dict bookkeeping; health_check as a small state machine
        "make_loaders": ML_DOC + """\
    perm = torch.randperm(len(dataset), generator=generator).tolist()
    want_val = round(val_fraction * len(dataset))
    parts = {"val": [], "train": []}
    i = 0
    while i < len(perm):
        parts["val" if len(parts["val"]) < want_val else "train"].append(perm[i])
        i += 1
    loaders = {
        "train": DataLoader(Subset(dataset, parts["train"]), batch_size=batch_size, shuffle=True,
                            generator=generator),
        "val": DataLoader(Subset(dataset, parts["val"]), batch_size=batch_size),
    }
    return loaders["train"], loaders["val"]
""",
        "lr_sweep": LS + """\
    book = {}
    remaining = list(lrs)
    while remaining:
        lr = remaining.pop(0)
        state = {"model": make_model(), "step": 0, "loss": math.inf}
        state["opt"] = torch.optim.SGD(state["model"].parameters(), lr=lr)
        criterion = nn.BCEWithLogitsLoss()
        while state["step"] < steps:
            state["opt"].zero_grad()
            loss = criterion(state["model"](x), y)
            loss.backward()
            state["opt"].step()
            state["loss"] = loss.item()
            state["step"] += 1
        book[lr] = state["loss"] if math.isfinite(state["loss"]) else math.inf
    return book
""",
        "pick_lr": PL + """\
    items = list(sweep.items())
    best = {"lr": None, "loss": math.inf}
    i = 0
    while i < len(items):
        lr, loss = items[i]
        if loss == loss and abs(loss) != math.inf and loss < best["loss"]:
            best["lr"], best["loss"] = lr, loss
        i += 1
    return best["lr"]
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()
    log = {"losses": [], "shapes": None, "grads": None}
    step = 0
    while step < steps:
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        log["losses"].append(loss.item())
        if log["shapes"] is None:
            log["shapes"] = out.shape == y.shape
        if not loss.requires_grad:
            log["grads"] = log["grads"] or False
            break
        loss.backward()
        if log["grads"] is None:
            log["grads"] = any(p.grad is not None and p.grad.abs().sum().item() > 0 for p in model.parameters())
        optimizer.step()
        step += 1
    first, last = log["losses"][0], log["losses"][-1]
    if math.isfinite(last) and last < first / 10:
        return "learns"
    if not log["shapes"]:
        return "loss_fn"
    if not log["grads"]:
        return "module"
    return "optimizer"
""",
        "health_check": HC_DOC + """\
    status = {code: False for code in ("eval_mode", "not_shuffled", "untrained_parameters", "device_mismatch",
                                       "shape_mismatch", "nonfinite_loss", "missing_grad")}
    status["eval_mode"] = not model.training
    status["not_shuffled"] = type(loader.sampler) is not torch.utils.data.RandomSampler
    held = set()
    for group in optimizer.param_groups:
        held.update(map(id, group["params"]))
    status["untrained_parameters"] = any(p.requires_grad and id(p) not in held for p in model.parameters())
    xb, yb = next(iter(loader))
    where = {t.device for t in (xb, yb)} | {p.device for p in model.parameters()}
    status["device_mismatch"] = len(where) > 1
    stage = "done" if status["device_mismatch"] else "forward"
    while stage != "done":
        if stage == "forward":
            twin = copy.deepcopy(model)
            out = twin(xb)
            status["shape_mismatch"] = out.shape != yb.shape
            stage = "done" if status["shape_mismatch"] else "loss"
        elif stage == "loss":
            loss = loss_fn(out, yb)
            status["nonfinite_loss"] = not torch.isfinite(loss).item()
            stage = "done" if status["nonfinite_loss"] else "backward"
        elif stage == "backward":
            loss.backward()
            status["missing_grad"] = any(p.requires_grad and p.grad is None for p in twin.parameters())
            stage = "done"
    return {code for code, bad in status.items() if bad}
""",
        "repair_make_loaders": RM + """\
    order = torch.randperm(len(dataset), generator=generator)
    n_val = int(val_fraction * len(dataset))
    sets = {"val": Subset(dataset, order[:n_val].tolist()), "train": Subset(dataset, order[n_val:].tolist())}
    options = {"train": {"shuffle": True, "generator": generator}, "val": {}}
    train, val = (DataLoader(sets[k], batch_size=batch_size, **options[k]) for k in ("train", "val"))
    return train, val
""",
    },
    "honest-16": {  # samplers in place of shuffle=True, a generator of losses, reduce, hooks that halt a forward
        "make_loaders": ML_DOC + """\
    perm = torch.randperm(len(dataset), generator=generator)
    n_val = int(round(val_fraction * len(dataset)))
    train_sampler = torch.utils.data.SubsetRandomSampler(perm[n_val:].tolist(), generator=generator)
    train = DataLoader(dataset, batch_size=batch_size, sampler=train_sampler)
    val = DataLoader(Subset(dataset, perm[:n_val].tolist()), batch_size=batch_size)
    return train, val
""",
        "lr_sweep": LS_DOC + """\
    def losses(lr):
        model = make_model()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        bce = nn.BCEWithLogitsLoss()
        for _ in range(steps):
            opt.zero_grad()
            loss = bce(model(x), y)
            loss.backward()
            opt.step()
            yield loss.item()

    sweep = {}
    for lr in lrs:
        last = math.inf
        for last in losses(lr):
            pass
        sweep[lr] = last if math.isfinite(last) else math.inf
    return sweep
""",
        "pick_lr": """\
from functools import reduce


""" + PL_DOC + """\
    def better(a, b):
        return b if a is None or sweep[b] < sweep[a] else a

    return reduce(better, (lr for lr, v in sweep.items() if math.isfinite(v)), None)
""",
        "overfit_diagnosis": OD_DOC + """\
    model.train()
    out_shapes, grad_seen, trace, evidence = [], [], [], {}
    handles = [model.register_forward_hook(lambda module, args, out: out_shapes.append(out.shape))]
    handles += [p.register_hook(lambda g: grad_seen.append(bool(g.ne(0).any())))
                for p in model.parameters() if p.requires_grad]
    try:
        for step in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            trace.append(loss.item())
            if step == 0:
                evidence["shapes"] = out_shapes[0] == y.shape
            if not loss.requires_grad:
                break
            loss.backward()
            if step == 0:
                evidence["grads"] = any(grad_seen)
            optimizer.step()
    finally:
        for h in handles:
            h.remove()
    rules = (
        ("learns", lambda: math.isfinite(trace[-1]) and trace[-1] < 0.1 * trace[0]),
        ("loss_fn", lambda: not evidence["shapes"]),
        ("module", lambda: not evidence.get("grads", False)),
        ("optimizer", lambda: True),
    )
    return next(name for name, holds in rules if holds())
""",
        "health_check": """\
class _Halt(Exception):
    \"\"\"Raised by the pre-hook to stop a forward that could only fail.\"\"\"


""" + HC_DOC + """\
    codes = set()
    shuffled = (torch.utils.data.RandomSampler, torch.utils.data.SubsetRandomSampler)
    if not isinstance(loader.sampler, shuffled):
        codes.add("not_shuffled")
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if any(p.requires_grad and id(p) not in held for p in model.parameters()):
        codes.add("untrained_parameters")
    xb, yb = next(iter(loader))
    probe = copy.deepcopy(model)
    reached = set()

    def pre_forward(module, args):
        if not module.training:
            codes.add("eval_mode")
        if {args[0].device, yb.device} != {p.device for p in module.parameters()}:
            codes.add("device_mismatch")
            raise _Halt

    handles = [probe.register_forward_pre_hook(pre_forward)]
    for name, p in probe.named_parameters():
        if p.requires_grad:
            handles.append(p.register_hook(lambda g, name=name: reached.add(name)))
    try:
        logits = probe(xb)
        if logits.shape != yb.shape:
            codes.add("shape_mismatch")
        else:
            loss = loss_fn(logits, yb)
            if not bool(torch.isfinite(loss)):
                codes.add("nonfinite_loss")
            else:
                loss.backward()
                if reached != {n for n, p in probe.named_parameters() if p.requires_grad}:
                    codes.add("missing_grad")
    except _Halt:
        pass
    finally:
        for h in handles:
            h.remove()
    return codes
""",
        "repair_make_loaders": RM_DOC + """\
    order = torch.randperm(len(dataset), generator=generator)
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size,
                       sampler=torch.utils.data.RandomSampler(train_set, generator=generator))
    val = DataLoader(val_set, batch_size=batch_size)
    return train, val
""",
    },
}


def planted_cohort() -> Planted:
    """The honest cohort of module 06: sixteen students, every cell answered alone, no copies (120 independent
    pairs)."""
    return assemble(MODULE, HONEST, [])


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
