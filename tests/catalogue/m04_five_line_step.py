"""Module 04-five-line-step: mutants and correct variants."""

from autograder.starters import REPAIR_TRAIN_EPOCH

from . import Mutant, edited, repair_catalogue

MODULE = "04-five-line-step"

TS = "def train_step(model, x, y, optimizer, loss_fn):\n"
TE = "def train_epoch(model, loader, optimizer, loss_fn, device):\n"
AS = "def accumulate_step(model, micro_batches, optimizer, loss_fn):\n"
OF = "def overfit_one_batch(model, x, y, optimizer, loss_fn, steps):\n"

MUTANTS = {
    # --- train_step -----------------------------------------------------------------------
    "step_no_zero_grad": Mutant({"train_step": TS + """
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""}, ["test_train_step_update"], ["stale_grads"]),
    "step_zero_grad_between_backward_and_step": Mutant({"train_step": TS + """
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    return loss.item()
"""}, ["test_train_step_update"], ["cleared_before_step"]),
    "step_before_backward": Mutant({"train_step": TS + """
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    optimizer.step()
    loss.backward()
    return loss.item()
"""}, ["test_train_step_update"], ["step_before_backward"]),
    "step_returns_tensor": Mutant({"train_step": TS + """
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss
"""}, ["test_train_step_returns_loss"], ["returns_tensor"]),
    "step_returns_detached_tensor": Mutant({"train_step": TS + """
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
"""}, ["test_train_step_returns_loss"], ["returns_tensor"]),
    "step_loss_after_update": Mutant({"train_step": TS + """
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        return loss_fn(model(x), y).item()
"""}, ["test_train_step_returns_loss"], ["loss_after_update"]),
    "step_own_optimizer": Mutant({"train_step": TS + """
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()
"""}, ["test_train_step_update"], ["no_step"]),
    "step_twice": Mutant({"train_step": TS + """
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.step()
    return loss.item()
"""}, ["test_train_step_update"], ["extra_steps"]),
    "step_loss_arguments_swapped": Mutant({"train_step": TS + """
    optimizer.zero_grad()
    loss = loss_fn(y, model(x))
    loss.backward()
    optimizer.step()
    return loss.item()
"""}, ["test_train_step_update"]),
    # --- train_epoch ----------------------------------------------------------------------
    "epoch_no_train_mode": Mutant({"train_epoch": TE + """
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        total += train_step(model, x, y, optimizer, loss_fn) * len(x)
        count += len(x)
    return total / count
"""}, ["test_train_epoch_mode"], ["wrong_mode"]),
    "epoch_batch_not_moved": Mutant({"train_epoch": TE + """
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        total += train_step(model, x, y, optimizer, loss_fn) * len(x)
        count += len(x)
    return total / count
"""}, ["test_train_epoch_mode", "test_train_epoch_result"], ["batch_not_moved"], needs_cuda=True),
    "epoch_unweighted_mean": Mutant({"train_epoch": TE + """
    model.train()
    losses = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return sum(losses) / len(losses)
"""}, ["test_train_epoch_result"], ["unweighted_mean"]),
    "epoch_sum": Mutant({"train_epoch": TE + """
    model.train()
    total = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        total += train_step(model, x, y, optimizer, loss_fn)
    return total
"""}, ["test_train_epoch_result"], ["sum_not_mean"]),
    "epoch_last_batch": Mutant({"train_epoch": TE + """
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = train_step(model, x, y, optimizer, loss_fn)
    return loss
"""}, ["test_train_epoch_result"], ["last_batch_only"]),
    "epoch_tensor_total": Mutant({"train_epoch": TE + """
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total = total + loss * len(x)
        count += len(x)
    return total / count
"""}, ["test_train_epoch_result", "test_train_epoch_frees_graphs"], ["returns_tensor", "graphs_kept_alive"]),
    "epoch_tensor_total_item_at_the_end": Mutant({"train_epoch": TE + """
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss * len(x)
        count += len(x)
    return total.item() / count
"""}, ["test_train_epoch_frees_graphs"], ["graphs_kept_alive"]),
    "epoch_eval_mode": Mutant({"train_epoch": TE + """
    model.eval()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        total += train_step(model, x, y, optimizer, loss_fn) * len(x)
        count += len(x)
    return total / count
"""}, ["test_train_epoch_mode", "test_train_epoch_result"], ["wrong_mode"]),
    # --- accumulate_step -------------------------------------------------------------------
    "accumulate_unscaled": Mutant({"accumulate_step": AS + """
    optimizer.zero_grad()
    total = 0.0
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total / len(micro_batches)
"""}, ["test_accumulate_step_update"], ["unscaled"]),
    "accumulate_step_per_micro_batch": Mutant({"accumulate_step": AS + """
    total = 0.0
    for x, y in micro_batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(micro_batches)
"""}, ["test_accumulate_step_update"], ["step_per_micro_batch"]),
    "accumulate_zero_grad_inside_loop": Mutant({"accumulate_step": AS + """
    total = 0.0
    k = len(micro_batches)
    for x, y in micro_batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
"""}, ["test_accumulate_step_update"], ["cleared_before_step"]),
    "accumulate_no_zero_grad": Mutant({"accumulate_step": AS + """
    total = 0.0
    k = len(micro_batches)
    for x, y in micro_batches:
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
"""}, ["test_accumulate_step_update"], ["stale_grads"]),
    "accumulate_returns_sum": Mutant({"accumulate_step": AS + """
    optimizer.zero_grad()
    total = 0.0
    k = len(micro_batches)
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / k).backward()
        total += loss.item()
    optimizer.step()
    return total
"""}, ["test_accumulate_step_returns_loss"], ["sum_not_mean"]),
    "accumulate_clips_gradients": Mutant({"accumulate_step": AS + """
    optimizer.zero_grad()
    total = 0.0
    k = len(micro_batches)
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / k).backward()
        total += loss.item()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return total / k
"""}, ["test_accumulate_step_update"], ["clipped"]),
    "accumulate_returns_last_loss": Mutant({"accumulate_step": AS + """
    optimizer.zero_grad()
    k = len(micro_batches)
    for x, y in micro_batches:
        loss = loss_fn(model(x), y) / k
        loss.backward()
    optimizer.step()
    return loss.item()
"""}, ["test_accumulate_step_returns_loss"], ["last_micro_batch_only"]),
    # --- overfit_one_batch -----------------------------------------------------------------
    "overfit_loss_after_update": Mutant({"overfit_one_batch": OF + """
    losses = []
    for _ in range(steps):
        train_step(model, x, y, optimizer, loss_fn)
        with torch.no_grad():
            losses.append(loss_fn(model(x), y).item())
    return losses
"""}, ["test_overfit_one_batch_curve"], ["off_by_one"]),
    "overfit_tensor_list": Mutant({"overfit_one_batch": OF + """
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    return losses
"""}, ["test_overfit_one_batch_curve"], ["returns_tensor"]),
    "overfit_steps_plus_one": Mutant({"overfit_one_batch": OF + """
    return [train_step(model, x, y, optimizer, loss_fn) for _ in range(steps + 1)]
"""}, ["test_overfit_one_batch_curve"], ["wrong_length"]),
    "overfit_no_zero_grad": Mutant({"overfit_one_batch": OF + """
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
"""}, ["test_overfit_one_batch_curve"], ["stale_grads"]),
}

_TUTORIAL = TS + """
    pred = model(x)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
"""

VARIANTS = {
    "step_zero_grad_after_forward": {"train_step": TS + """
    pred = model(x)
    loss = loss_fn(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
"""},
    "step_zero_grad_at_end": {"train_step": _TUTORIAL},
    "step_keep_zeros": {"train_step": TS + """
    optimizer.zero_grad(set_to_none=False)
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return float(loss)
"""},
    "step_model_zero_grad": {"train_step": TS + """
    model.zero_grad()
    loss = loss_fn(model.forward(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach().cpu().item()
"""},
    "step_grads_to_none_by_hand": {"train_step": TS + """
    for p in model.parameters():
        p.grad = None
    model.train()
    out = model(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""},
    "epoch_dataset_length": {"train_epoch": TE + """
    model.train()
    running = 0.0
    for xb, yb in loader:
        xb = xb.to(device)
        yb = yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * xb.size(0)
    return running / len(loader.dataset)
"""},
    "accumulate_concatenated": {"accumulate_step": AS + """
    xs = torch.cat([x for x, _ in micro_batches])
    ys = torch.cat([y for _, y in micro_batches])
    optimizer.zero_grad()
    loss = loss_fn(model(xs), ys)
    loss.backward()
    optimizer.step()
    return loss.item()
"""},
    "accumulate_weighted_by_size": {"accumulate_step": AS + """
    n = sum(len(x) for x, _ in micro_batches)
    model.zero_grad(set_to_none=True)
    total = 0.0
    for x, y in micro_batches:
        loss = loss_fn(model(x), y) * len(x) / n
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
"""},
    "overfit_own_loop_zero_at_end": {"overfit_one_batch": OF + """
    history = []
    for step in range(steps):
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        history.append(loss.item())
    return history
""", "train_step": _TUTORIAL},
}

# --- repair_train_epoch: the starter with all but one planted bug repaired, and repairs in other styles
_DOC = "(from a colleague's notebook).\"\"\"\n"
_FIXES = {
    "mode": [(_DOC, _DOC + "    model.train()\n")],
    "grads": [("    optimizer.zero_grad()\n    running_loss", "    running_loss"),
              ("        outputs = model(inputs)\n", "        optimizer.zero_grad()\n        outputs = model(inputs)\n")],
    "mean": [("        running_loss += loss.item()\n", "        running_loss += loss.item() * len(inputs)\n"),
             ("running_loss / len(loader)", "running_loss / len(loader.dataset)")],
}
_LEFT = {"mode": ("test_repair_train_epoch_mode", "wrong_mode"),
         "grads": ("test_repair_train_epoch_updates", "stale_grads"),
         "mean": ("test_repair_train_epoch_mean", "unweighted_mean")}

_repaired, _LEFT_ALONE = repair_catalogue("repair_train_epoch", REPAIR_TRAIN_EPOCH, _FIXES, _LEFT)
MUTANTS.update(_LEFT_ALONE)
MUTANTS["repair_left_mode_and_mean"] = Mutant(_repaired("mode", "mean"), [_LEFT["mode"][0], _LEFT["mean"][0]])
MUTANTS["repair_total_as_sum"] = Mutant(_repaired(extra=[("running_loss / len(loader.dataset)", "running_loss")]),
                                        ["test_repair_train_epoch_mean"], ["sum_not_mean"])

VARIANTS["repair_as_written_by_the_quickstart"] = {"repair_train_epoch": edited(
    REPAIR_TRAIN_EPOCH, *_FIXES["mode"], *_FIXES["mean"],
    ("    optimizer.zero_grad()\n    running_loss", "    running_loss"),
    ("        optimizer.step()\n", "        optimizer.step()\n        optimizer.zero_grad()\n"))}
VARIANTS["repair_model_zero_grad_and_counter"] = {"repair_train_epoch": edited(
    REPAIR_TRAIN_EPOCH, *_FIXES["mode"],
    ("    optimizer.zero_grad()\n    running_loss = 0.0\n", "    running_loss, count = 0.0, 0\n"),
    ("        outputs = model(inputs)\n", "        model.zero_grad(set_to_none=False)\n        outputs = model(inputs)\n"),
    ("        running_loss += loss.item()\n", "        running_loss += loss.item() * inputs.size(0)\n"
                                            "        count += inputs.size(0)\n"),
    ("running_loss / len(loader)", "running_loss / count"))}
