"""Module 06-failure-modes: mutants and correct variants."""

from ...starters import REPAIR_MAKE_LOADERS
from . import Mutant, do_nothing, edited, hold_to_words, patched, repair_catalogue, solution_of
from .found import mutants as found_mutants

MODULE = "06-failure-modes"

ML = "def make_loaders(dataset, batch_size, val_fraction, generator):\n"
SW = "def lr_sweep(make_model, x, y, lrs, steps):\n"
PK = "def pick_lr(sweep):\n"

# make_loaders in the solution: its split, its two loaders, and an edit that builds the validation loader
# in the return statement.
_SPLIT = ("    train_set, val_set = torch.utils.data.random_split(\n"
          "        dataset, [len(dataset) - n_val, n_val], generator=generator\n"
          "    )\n")
_TRAIN = "    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)\n"
_VAL = "    val = DataLoader(val_set, batch_size=batch_size, shuffle=False)\n    return train, val\n"
_VAL_INLINE = (_VAL, "    return train, DataLoader(val_set, batch_size=batch_size)\n")

MUTANTS = {
    # --- make_loaders ----------------------------------------------------------------------
    "loaders_train_not_shuffled": Mutant(patched(
        MODULE, "make_loaders",
        (_TRAIN + _VAL,
         "    return DataLoader(train_set, batch_size=batch_size), DataLoader(val_set, batch_size=batch_size)\n")),
        ["test_make_loaders_order"], ["not_shuffled"]),
    "loaders_overlapping_split": Mutant(patched(
        MODULE, "make_loaders", ("train_set, val_set = torch", "_, val_set = torch"),
        ("DataLoader(train_set,", "DataLoader(dataset,"),
        _VAL_INLINE),
        ["test_make_loaders_split"], ["overlapping_split"]),
    "loaders_contiguous_split": Mutant(patched(
        MODULE, "make_loaders",
        (_SPLIT,
         "    n_train = len(dataset) - n_val\n"
         "    train_set = torch.utils.data.Subset(dataset, range(n_train))\n"
         "    val_set = torch.utils.data.Subset(dataset, range(n_train, len(dataset)))\n"),
        _VAL_INLINE),
        ["test_make_loaders_split", "test_make_loaders_reproducible"], ["unrepresentative_split"]),
    "loaders_val_shuffled": Mutant(patched(
        MODULE, "make_loaders", (_VAL, "    return train, DataLoader(val_set, batch_size=batch_size, shuffle=True)\n")),
        ["test_make_loaders_order"], ["val_shuffled"]),
    "loaders_global_rng_split": Mutant(patched(
        MODULE, "make_loaders", ("n_val], generator=generator", "n_val]"),
        (", shuffle=True, generator=generator)", ", shuffle=True)"),
        _VAL_INLINE),
        ["test_make_loaders_reproducible"], ["ignores_generator"]),
    "loaders_fixed_seed": Mutant(patched(
        MODULE, "make_loaders", ("    n_val = round", "    g = torch.Generator().manual_seed(0)\n    n_val = round"),
        ("n_val], generator=generator", "n_val], generator=g"),
        (", shuffle=True, generator=generator)", ", shuffle=True)"),
        _VAL_INLINE),
        ["test_make_loaders_reproducible"], ["fixed_seed"]),
    # --- lr_sweep ---------------------------------------------------------------------------
    "sweep_records_nan": Mutant(patched(
        MODULE, "lr_sweep", ("    loss_fn = nn.BCEWithLogitsLoss()\n", ""),
        ("lr=lr)\n        value = math.inf\n", "lr=lr)\n        loss_fn = nn.BCEWithLogitsLoss()\n"),
        ("            value = loss.item()\n"
         "        results[lr] = value if math.isfinite(value) else math.inf\n",
         "        results[lr] = loss.item()\n")),
        ["test_lr_sweep_values"], ["nan_recorded"]),
    "sweep_reuses_model": Mutant(patched(
        MODULE, "lr_sweep", ("    loss_fn = ", "    model = make_model()\n    loss_fn = "),
        ("        model = make_model()                                   # every rate starts from scratch\n", ""),
        ("        value = math.inf\n", ""),
        ("            value = loss.item()", "        value = loss.item()")),
        ["test_lr_sweep_values"], ["model_reused"]),
    "sweep_uses_adam": Mutant(patched(
        MODULE, "lr_sweep", ("optim.SGD", "optim.Adam"),
        ("        value = math.inf\n", ""),
        ("            value = loss.item()", "        value = loss.item()")),
        ["test_lr_sweep_values"], ["wrong_value"]),
    # One optimizer, built before the loop over the first model's parameters: the rates' fresh models never train.
    "sweep_one_optimizer": Mutant({"lr_sweep": """
def lr_sweep(make_model, x, y, lrs, steps):
    results = {}
    loss_fn = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(make_model().parameters(), lr=lrs[0])
    for lr in lrs:
        model = make_model()
        for group in optimizer.param_groups:
            group["lr"] = lr
        value = math.inf
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            value = loss.item()
        results[lr] = value if math.isfinite(value) else math.inf
    return results
"""}, ["test_lr_sweep_values"], ["optimizer_not_on_model"], words=("no step reached them", "model.parameters(), lr=lr")),
    "sweep_tensor_values": Mutant(patched(
        MODULE, "lr_sweep", ("        value = math.inf\n", ""),
        ("            value = loss.item()\n"
         "        results[lr] = value if math.isfinite(value) else math.inf\n",
         "        results[lr] = loss.detach()\n")),
        ["test_lr_sweep_values"], ["not_a_float"]),
    # --- pick_lr ----------------------------------------------------------------------------
    "pick_plain_min": Mutant(patched(
        MODULE, "pick_lr", ("    finite = {lr: loss for lr, loss in sweep.items() if math.isfinite(loss)}\n", ""),
        ("min(finite, key=finite.get)", "min(sweep, key=sweep.get)")),
        ["test_pick_lr_choice"], ["picked_nonfinite"]),
    "pick_skips_only_inf": Mutant({"pick_lr": PK + """
    usable = {lr: v for lr, v in sweep.items() if v != float("inf")}
    return min(usable, key=usable.get)
"""}, ["test_pick_lr_choice"], ["picked_nonfinite"]),
    "pick_returns_loss": Mutant({"pick_lr": PK + """
    finite = [v for v in sweep.values() if math.isfinite(v)]
    return min(finite)
"""}, ["test_pick_lr_choice"], ["not_a_swept_rate"]),
    # --- health_check: each code missed in turn ---------------------------------------------
    "health_misses_eval_mode": Mutant(patched(
        MODULE, "health_check", ('codes.add("eval_mode")', "pass")),
        ["test_health_check_each_code", "test_health_check_combined"], ["missed_eval_mode"]),
    "health_misses_not_shuffled": Mutant(patched(
        MODULE, "health_check", ('codes.add("not_shuffled")', "pass")),
        ["test_health_check_each_code", "test_health_check_combined"], ["missed_not_shuffled"]),
    "health_misses_untrained": Mutant(patched(
        MODULE, "health_check", ('codes.add("untrained_parameters")', "pass")),
        ["test_health_check_each_code", "test_health_check_combined"], ["missed_untrained_parameters"]),
    "health_misses_device": Mutant(patched(MODULE, "health_check", ('codes.add("device_mismatch")', "pass")),
                                   ["test_health_check_each_code", "test_health_check_combined"]),
    "health_misses_shape": Mutant(patched(MODULE, "health_check", ('codes.add("shape_mismatch")', "pass")),
                                  ["test_health_check_each_code", "test_health_check_combined"]),
    "health_misses_nonfinite": Mutant(patched(
        MODULE, "health_check", ('codes.add("nonfinite_loss")', "pass")),
        ["test_health_check_each_code", "test_health_check_combined"], ["missed_nonfinite_loss"]),
    "health_misses_missing_grad": Mutant(patched(
        MODULE, "health_check", ('codes.add("missing_grad")', "pass")),
        ["test_health_check_each_code", "test_health_check_combined"], ["missed_missing_grad"]),
    "health_counts_frozen_as_missing": Mutant(patched(
        MODULE, "health_check", ("any(p.requires_grad and p.grad is None", "any(p.grad is None")),
        ["test_health_check_healthy"], ["false_missing_grad"]),
    "health_probes_the_callers_model": Mutant(patched(
        MODULE, "health_check", ("probe = copy.deepcopy(model)", "probe = model")),
        ["test_health_check_leaves_state"], ["grads_changed"]),
    "health_steps_the_callers_model": Mutant(patched(
        MODULE, "health_check", ("probe = copy.deepcopy(model)", "probe = model"),
        ("    loss.backward()\n", "    loss.backward()\n    optimizer.step()\n")),
        ["test_health_check_leaves_state"], ["params_changed"]),
    "health_fixes_the_mode": Mutant(patched(
        MODULE, "health_check", ('codes.add("eval_mode")', 'codes.add("eval_mode"); model.train()')),
        ["test_health_check_leaves_state"], ["mode_changed"]),
    "health_raises_on_mismatch": Mutant(patched(
        MODULE, "health_check", ("if x.device != device or y.device != device:", "if False:")),
        ["test_health_check_each_code"], ["raised"]),
    # --- overfit_diagnosis
    # Every setup "learns": the loop runs, the verdict never changes.
    "diagnosis_always_learns": Mutant(patched(
        MODULE, "overfit_diagnosis", ("    if math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]:\n", "    if True:\n")),
        ["test_overfit_diagnosis_owner"], ["overfit_wrong_owner"]),
    # Any fall of the loss passes for learning: a learning rate a thousand times too small still lowers it a little.
    "diagnosis_any_decrease_learns": Mutant(patched(
        MODULE, "overfit_diagnosis", ("losses[-1] < 0.1 * losses[0]", "losses[-1] < losses[0]")),
        ["test_overfit_diagnosis_owner"], ["overfit_wrong_owner"]),
    # The instrument skipped: one step's evidence, no overfitting, so a healthy setup with a bad rate "learns".
    "diagnosis_without_overfitting": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("    if math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]:\n",
         "    if first[\"shapes\"] and first[\"grads\"]:\n")),
        ["test_overfit_diagnosis_owner"], ["overfit_wrong_owner"]),
    # A zero gradient counted as a gradient: a module that multiplies its output by zero passes for healthy.
    "diagnosis_grad_not_none": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("p.grad is not None and bool(p.grad.any())", "p.grad is not None")),
        ["test_overfit_diagnosis_owner"], ["overfit_wrong_owner"]),
    # The gradients asked before the shapes: a broadcasting loss still sends gradients, so it blames the optimizer.
    "diagnosis_gradients_before_shapes": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("    if not first[\"shapes\"]:\n        return \"loss_fn\"", "    if first[\"grads\"]:\n        return \"optimizer\""),
        ("    if not first[\"grads\"]:\n        return \"module\"", "    if not first[\"shapes\"]:\n        return \"loss_fn\""),
        ("    return \"optimizer\"                              # gradients exist", "    return \"module\"  # gradients exist")),
        ["test_overfit_diagnosis_owner"], ["overfit_wrong_owner"]),
    # No guard for a loss without a graph: backward raises on a module that runs under no_grad.
    "diagnosis_backward_unguarded": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("        if not loss.requires_grad:                  # no graph: nothing can reach a parameter\n"
         "            first = first or {\"shapes\": out.shape == y.shape, \"grads\": False}\n"
         "            break\n", "")),
        ["test_overfit_diagnosis_owner"]),
    # The evidence read after the loop: after a run that blew up, every gradient is NaN or the weights are.
    "diagnosis_evidence_after_the_loop": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("    if not first[\"grads\"]:\n",
         "    if not any(p.grad is not None and bool((p.grad.abs() > 0).any()) for p in model.parameters()):\n")),
        ["test_overfit_diagnosis_owner"], ["overfit_wrong_owner"]),
    # The caller's mode left as it was: a model handed over in eval mode is overfitted in eval mode.
    "diagnosis_keeps_eval_mode": Mutant(patched(MODULE, "overfit_diagnosis", ("    model.train()\n", "")),
                                        ["test_overfit_diagnosis_learns"], ["wrong_mode"]),
    # The shapes asked before the losses: a single example broadcasts harmlessly and still learns.
    "diagnosis_shapes_before_losses": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("    if math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]:\n        return \"learns\"",
         "    if not first[\"shapes\"]:\n        return \"loss_fn\"\n"
         "    if math.isfinite(losses[-1]) and losses[-1] < 0.1 * losses[0]:\n        return \"learns\"")),
        ["test_overfit_diagnosis_learns"], ["overfit_false_alarm"]),
    # The module asked before the loss function: a broadcasting loss on a graph-less output blames the module.
    "diagnosis_module_before_loss": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("    if not first[\"shapes\"]:\n        return \"loss_fn\"", "    if not first[\"grads\"]:\n        return \"module\"\n"
         "    if not first[\"shapes\"]:\n        return \"loss_fn\"")),
        ["test_overfit_diagnosis_owner"], ["overfit_wrong_owner"]),
    # Overfitting a copy: the caller's model is never trained (and the caller's optimizer moves nothing).
    "diagnosis_trains_a_copy": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("    model.train()\n", "    model = copy.deepcopy(model)\n    model.train()\n")),
        ["test_overfit_diagnosis_learns", "test_overfit_diagnosis_owner"], ["wrong_step_count"],
        words=("never ran the model it was given",)),
    # The shape rule applied before the loop: a single example whose target broadcasts harmlessly never trains.
    "diagnosis_shape_rule_before_the_loop": Mutant(patched(
        MODULE, "overfit_diagnosis",
        ("    model.train()\n", "    model.train()\n    if model(x).shape != y.shape:\n        return \"loss_fn\"\n")),
        ["test_overfit_diagnosis_learns", "test_overfit_diagnosis_owner"], ["wrong_step_count"],
        words=("took 0 step(s)", "updates run first")),
    # A verdict that claims to equal anything: every comparison with an owner's name says yes.
    "diagnosis_verdict_equals_anything": Mutant({"overfit_diagnosis": """
class Verdict(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


""" + edited(solution_of(MODULE, "overfit_diagnosis"), ('return "learns"', 'return Verdict("learns")'),
             ('return "loss_fn"', 'return Verdict("loss_fn")'), ('return "module"', 'return Verdict("module")'),
             ('return "optimizer"', 'return Verdict("optimizer")'))},
        ["test_overfit_diagnosis_learns", "test_overfit_diagnosis_owner"], ["wrong_type"],
        words=("a subclass of str",)),
}

VARIANTS = {
    # Evidence gathered with hooks on the first step; the losses kept as tensors; set_to_none=False.
    "diagnosis_with_hooks": {"overfit_diagnosis": """
def overfit_diagnosis(model, x, y, optimizer, loss_fn, steps=100):
    model.train()
    reached = []
    handles = [p.register_hook(lambda g: reached.append(bool(g.abs().sum() > 0)))
               for p in model.parameters() if p.requires_grad]
    out = model(x)
    same_shape = tuple(out.shape) == tuple(y.shape)
    first = loss_fn(out, y)
    if first.grad_fn is None:
        for h in handles:
            h.remove()
        return "loss_fn" if not same_shape else "module"
    optimizer.zero_grad(set_to_none=False)
    first.backward()
    for h in handles:
        h.remove()
    optimizer.step()
    last = first.detach()
    for _ in range(steps - 1):
        optimizer.zero_grad(set_to_none=False)
        last = loss_fn(model(x), y)
        last.backward()
        optimizer.step()
        last = last.detach()
    if torch.isfinite(last) and last < first.detach() / 10:
        return "learns"
    if not same_shape:
        return "loss_fn"
    return "optimizer" if any(reached) else "module"
"""},
    "loaders_randperm_subsets": {"make_loaders": ML + """
    order = torch.randperm(len(dataset), generator=generator)
    n_val = int(len(dataset) * val_fraction)
    val_set = torch.utils.data.Subset(dataset, order[:n_val].tolist())
    train_set = torch.utils.data.Subset(dataset, order[n_val:].tolist())
    return (DataLoader(train_set, batch_size=batch_size, shuffle=True),
            DataLoader(val_set, batch_size=batch_size, shuffle=False))
"""},
    "loaders_new_tensor_datasets": {"make_loaders": ML + """
    xs, ys = dataset.tensors
    perm = torch.randperm(len(xs), generator=generator)
    k = len(xs) - int(round(val_fraction * len(xs)))
    tr, va = perm[:k], perm[k:]
    ds = torch.utils.data.TensorDataset
    train = DataLoader(ds(xs[tr], ys[tr]), batch_size, shuffle=True,
                       generator=torch.Generator().manual_seed(int(torch.randint(0, 10**6, (1,), generator=generator))))
    return train, DataLoader(ds(xs[va], ys[va]), batch_size)
"""},
    "sweep_after_training_loss": {"lr_sweep": SW + """
    out = {}
    for lr in lrs:
        net = make_model()
        opt = torch.optim.SGD(net.parameters(), lr)
        crit = nn.BCEWithLogitsLoss()
        for _ in range(steps):
            opt.zero_grad()
            crit(net(x), y).backward()
            opt.step()
        with torch.no_grad():
            final = crit(net(x), y).item()
        out[lr] = final if math.isfinite(final) else float("inf")
    return out
"""},
    "pick_sorted": {"pick_lr": PK + """
    ranked = sorted((loss, lr) for lr, loss in sweep.items() if not (math.isnan(loss) or math.isinf(loss)))
    return ranked[0][1]
"""},
    "health_try_except_style": {"health_check": """
def health_check(model, loader, optimizer, loss_fn):
    found = set()
    if not model.training:
        found.add("eval_mode")
    if type(loader.sampler).__name__ == "SequentialSampler":
        found.add("not_shuffled")
    ids = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in ids]:
        found.add("untrained_parameters")
    xb, yb = next(iter(loader))
    twin = copy.deepcopy(model)
    try:
        out = twin(xb)
    except RuntimeError:
        found.add("device_mismatch")
        return found
    if tuple(out.shape) != tuple(yb.shape):
        found.add("shape_mismatch")
        return found
    loss = loss_fn(out, yb)
    if torch.isnan(loss) or torch.isinf(loss):
        found.add("nonfinite_loss")
        return found
    loss.backward()
    for p in twin.parameters():
        if p.requires_grad and p.grad is None:
            found.add("missing_grad")
    return found
"""},
}

# --- repair_make_loaders: the starter with all but one planted bug repaired, and repairs in other styles
_FIXES = {
    "generator": [("torch.randperm(len(dataset))", "torch.randperm(len(dataset), generator=generator)")],
    "shuffle": [("DataLoader(train_set, batch_size=batch_size)",
                 "DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator)")],
    "drop_last": [(", drop_last=True)", ")")],
}
_LEFT = {"generator": ("test_repair_make_loaders_reproducible", "ignores_generator"),
         "shuffle": ("test_repair_make_loaders_order", "not_shuffled"),
         "drop_last": ("test_repair_make_loaders_split", "drops_examples")}

_repaired, _LEFT_ALONE = repair_catalogue("repair_make_loaders", REPAIR_MAKE_LOADERS, _FIXES, _LEFT)
MUTANTS.update(_LEFT_ALONE)
MUTANTS["repair_validation_shuffled"] = Mutant(
    _repaired(extra=[("DataLoader(val_set, batch_size=batch_size)",
                      "DataLoader(val_set, batch_size=batch_size, shuffle=True)")]),
    ["test_repair_make_loaders_order"], ["val_shuffled"])

VARIANTS["repair_with_random_split"] = {"repair_make_loaders": """
def repair_make_loaders(dataset, batch_size, val_fraction, generator):
    n_val = int(val_fraction * len(dataset))
    train_set, val_set = torch.utils.data.random_split(dataset, [len(dataset) - n_val, n_val], generator=generator)
    return (DataLoader(train_set, batch_size=batch_size, shuffle=True),
            DataLoader(val_set, batch_size=batch_size, shuffle=False, drop_last=False))
"""}
VARIANTS["repair_in_place_minimal"] = _repaired()

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "loaders_train_not_shuffled": ("a class-sorted dataset gives long runs of one label",),
    "loaders_overlapping_split": ("validation examples leaked into training",),
    "loaders_contiguous_split": ("a split that takes a contiguous slice of a sorted dataset",),
    "loaders_val_shuffled": (
        "the validation loader is shuffled",
        "two passes over the validation loader gave different orders",
    ),
    "loaders_global_rng_split": ("two calls with generators seeded alike gave different validation sets",),
    "loaders_fixed_seed": ("the split does not depend on the generator it was given",),
    "sweep_records_nan": ("the loss at that rate diverged and the NaN was recorded as it was",),
    "sweep_reuses_model": ("so each rate started where the previous one stopped",),
    "pick_plain_min": ("a non-finite loss",),
    "pick_skips_only_inf": ("a non-finite loss",),
    "pick_returns_loss": ("the sweep measured only its own rates",),
    "health_misses_eval_mode": ("it missed eval_mode",),
    "health_misses_not_shuffled": ("it missed not_shuffled",),
    "health_misses_untrained": ("it missed untrained_parameters",),
    "health_misses_device": ("on a setup where the batches live on another device than the model",),
    "health_misses_shape": ("on a setup where the targets have shape",),
    "health_misses_nonfinite": ("on a setup where one input holds a NaN",),
    "health_misses_missing_grad": ("never uses one trainable layer",),
    "health_counts_frozen_as_missing": ("health_check also reported missing_grad",),
    "health_probes_the_callers_model": (
        "a backward() through the caller's model adds to it",
        "weight is not what the caller had",
    ),
    "health_steps_the_callers_model": ("a diagnosis must not train it", "weight changed"),
    "health_fixes_the_mode": ("the caller set it", "health_check changed the model's mode"),
    "diagnosis_always_learns": (
        "the first backward gave the parameters real gradients",
        "overfit_diagnosis returned 'learns'",
    ),
    "diagnosis_any_decrease_learns": (
        "the first backward gave the parameters real gradients",
        "overfit_diagnosis returned 'learns'",
    ),
    "diagnosis_without_overfitting": (
        "the first backward gave the parameters real gradients",
        "overfit_diagnosis returned 'learns'",
    ),
    "diagnosis_grad_not_none": ("so no optimizer could move the loss", "overfit_diagnosis returned 'optimizer'"),
    "diagnosis_gradients_before_shapes": (
        "it compared an output and targets of different shapes",
        "overfit_diagnosis returned 'optimizer'",
    ),
    "diagnosis_backward_unguarded": ("This error usually means the loss holds no graph",),
    "diagnosis_evidence_after_the_loop": (
        "the first backward gave the parameters real gradients",
        "overfit_diagnosis returned 'module'",
    ),
    "diagnosis_keeps_eval_mode": (
        "which the caller left as it was and the five lines must set",
        "the model ran its forward passes in eval mode during overfit_diagnosis",
    ),
    "diagnosis_shapes_before_losses": (
        "the loss on the batch fell below a tenth of its first value",
        "overfit_diagnosis returned 'loss_fn'",
    ),
    "diagnosis_module_before_loss": (
        "it compared an output and targets of different shapes",
        "overfit_diagnosis returned 'module'",
    ),
    "repair_left_generator": ("two calls with generators seeded alike gave different validation sets",),
    "repair_left_shuffle": ("a class-sorted dataset gives long runs of one label",),
    "repair_left_drop_last": ("the validation DataLoader drops its last",),
    "repair_validation_shuffled": (
        "the validation loader is shuffled",
        "two passes over the validation loader gave different orders",
    ),
    "sweep_uses_adam": ("full-batch steps of plain SGD",),
    "sweep_tensor_values": ("not a Python float",),
    "health_raises_on_mismatch": ("in `health_check`", "raised RuntimeError"),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))

# Automatic mutants (autograder.dev.mutate) that keep full marks because they change nothing the contract fixes.
EQUIVALENT = {
    "overfit_diagnosis: swap: model.train() <-> losses, first = ([], None)": "independent statements",
    "overfit_diagnosis: swap: optimizer.zero_grad() <-> out = model(x)":
        "the gradients are cleared before the backward pass either way",
    "overfit_diagnosis: swap: if first is None: <-> optimizer.step()":
        "step() leaves .grad as it is, so the first step's evidence reads the same gradients after it",
    "make_loaders: swap: train = DataLoader(train_set, batch_size=batch_size, shuffle=True, generator=generator) "
    "<-> val = DataLoader(val_set, batch_size=batch_size, shuffle=False)": "building a DataLoader draws nothing",
    "lr_sweep: swap: results = {} <-> loss_fn = nn.BCEWithLogitsLoss()": "independent statements",
    "lr_sweep: swap: optimizer = torch.optim.SGD(model.parameters(), lr=lr) <-> value = math.inf":
        "independent statements",
    "lr_sweep: delete: value = math.inf": "value is set by every step, and steps is at least 1 in every sweep",
    "lr_sweep: swap: optimizer.zero_grad() <-> loss = loss_fn(model(x), y)":
        "gradients are still cleared before backward",
    "lr_sweep: swap: optimizer.step() <-> value = loss.item()": "the loss was computed before the step either way",
    "health_check: swap: if not model.training: <-> if not isinstance(loader.sampler, "
    "torch.utils.data.RandomSampler):": "two independent tests adding to one set",
    "health_check: swap: if not isinstance(loader.sampler, torch.utils.data.RandomSampler): <-> held = {id(p) for "
    "group in optimizer.param_groups for p in group['params']}": "independent statements",
    "health_check: swap: if any((p.requires_grad and id(p) not in held for p in model.parameters())): <-> "
    "x, y = next(iter(loader))": "independent statements",
    "health_check: swap: x, y = next(iter(loader)) <-> device = next(model.parameters()).device":
        "independent statements",
    "health_check: swap: if x.device != device or y.device != device: <-> probe = copy.deepcopy(model)":
        "copying the model does not depend on the test",
    "health_check: swap: if not torch.isfinite(loss): <-> loss.backward()":
        "backward through a non-finite loss runs; the test reads the same loss",
    "health_check: flip: x.device != device or y.device != device":
        "a loader yields inputs and targets from one place, so both or neither are on the model's device",
    "repair_make_loaders: swap: order = torch.randperm(len(dataset), generator=generator) <-> "
    "n_val = int(val_fraction * len(dataset))": "independent statements",
    "repair_make_loaders: swap: val_set = Subset(dataset, order[:n_val].tolist()) <-> "
    "train_set = Subset(dataset, order[n_val:].tolist())": "independent statements",
    "repair_make_loaders: swap: train = DataLoader(train_set, batch_size=batch_size, shuffle=True, "
    "generator=generator) <-> val = DataLoader(val_set, batch_size=batch_size)": "building a DataLoader draws nothing",
}
