"""Starter code of the repair tasks: plausible functions "from a colleague's notebook", each with silent bugs.

A repair task's answer cell is released holding this code instead of nbgrader's stub (see
:class:`autograder.cohort.preprocessors.insert_starters.InsertStarterCode`), and its checks report an answer that is still
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

# Module 09: a complete run on the digits that trains, validates and plateaus.
REPAIR_RUN = '''\
def repair_run(seed):
    """Train a small CNN on the digits; return its curves and validation accuracy (from a colleague's notebook)."""
    torch.manual_seed(seed)
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1)  # [1797, 1, 8, 8], values 0-16
    labels = torch.tensor(digits.target, dtype=torch.long)
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed))
    train_idx, val_idx = order[:1400], order[1400:]
    mean, std = images[train_idx].mean(), images[train_idx].std()
    train_x = (images[train_idx] - mean) / std
    val_x = images[val_idx] / 16.0
    train_loader = DataLoader(TensorDataset(train_x, labels[train_idx]), batch_size=64, shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Dropout(0.3), nn.Linear(16 * 4 * 4, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-6, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    history = {"train_loss": [], "val_loss": []}
    for epoch in range(6):
        model.train()
        total = 0.0
        for x, y in train_loader:
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
        history["train_loss"].append(total / len(train_x))
        model.eval
        with torch.no_grad():
            val_logits = model(val_x)
            history["val_loss"].append(loss_fn(val_logits, labels[val_idx]).item())
    history["val_accuracy"] = (val_logits.argmax(dim=1) == labels[val_idx]).float().mean().item()
    return history
'''

#: ``{graded function: its starter code}``: the release puts each in its answer cell.
STARTERS: dict[str, str] = {
    "repair_train_epoch": REPAIR_TRAIN_EPOCH,
    "repair_evaluate": REPAIR_EVALUATE,
    "repair_make_loaders": REPAIR_MAKE_LOADERS,
    "repair_load_checkpoint": REPAIR_LOAD_CHECKPOINT,
    "repair_run": REPAIR_RUN,
}
