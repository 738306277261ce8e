"""Starter code of the repair tasks: plausible functions "from a colleague's notebook", each with silent bugs.

A repair task's answer cell is released holding this code instead of nbgrader's stub (see
:class:`autograder.cohort.starter.InsertStarterCode`), and its checks report an answer that is still
this code as *not attempted* (:func:`autograder.core.same_code`).  The code runs, raises nothing and
trains or measures to a plausible number; what is wrong with it is for the learner to find.

Keep this module free of heavy imports: nbgrader loads it while it generates the release.
"""

from __future__ import annotations

# Module 04: the contract of train_epoch.
REPAIR_TRAIN_EPOCH = '''\
def repair_train_epoch(model, loader, optimizer, loss_fn, device):
    """One epoch of updates; returns the mean per-example loss (from a colleague's notebook)."""
    optimizer.zero_grad()
    running_loss = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    return running_loss / len(loader)
'''

# Module 05: the contract of evaluate; the seeds' validation loop that runs without raising but gives
# different numbers on two calls.
REPAIR_EVALUATE = '''\
def repair_evaluate(model, loader, loss_fn, device):
    """Mean validation loss per example (from a colleague's notebook)."""
    batch_losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        batch_losses.append(loss_fn(model(inputs), targets))
    return torch.stack(batch_losses).mean().item()
'''

# Module 06: the contract of make_loaders.
REPAIR_MAKE_LOADERS = '''\
def repair_make_loaders(dataset, batch_size, val_fraction, generator):
    """A random train/validation split and its two loaders (from a colleague's notebook)."""
    order = torch.randperm(len(dataset))
    n_val = int(val_fraction * len(dataset))
    val_set = Subset(dataset, order[:n_val].tolist())
    train_set = Subset(dataset, order[n_val:].tolist())
    train = DataLoader(train_set, batch_size=batch_size)
    val = DataLoader(val_set, batch_size=batch_size, drop_last=True)
    return train, val
'''

# Module 08: the contract of load_checkpoint, for checkpoints in the team's format.
REPAIR_LOAD_CHECKPOINT = '''\
def repair_load_checkpoint(path, model, optimizer, generator=None):
    """Restore a checkpoint in the team's format; return the epoch to run next (from a colleague's notebook)."""
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer = type(optimizer)(model.parameters(), **optimizer.defaults)
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    return state["epoch"]
'''

#: ``{graded function: its starter code}``: the release puts each in its answer cell.
STARTERS: dict[str, str] = {
    "repair_train_epoch": REPAIR_TRAIN_EPOCH,
    "repair_evaluate": REPAIR_EVALUATE,
    "repair_make_loaders": REPAIR_MAKE_LOADERS,
    "repair_load_checkpoint": REPAIR_LOAD_CHECKPOINT,
}
