"""Module 05-train-vs-eval: mutants and correct variants."""

from autograder.starters import REPAIR_EVALUATE

from . import Mutant, edited, repair_catalogue

MODULE = "05-train-vs-eval"

EV = "def evaluate(model, loader, loss_fn, device):\n"
AC = "def accuracy(model, loader, device):\n"
PP = "def predict_proba(model, x):\n"
FIT = "def fit(model, train_loader, val_loader, optimizer, loss_fn, epochs, device):\n"

_TRAIN_EPOCH_BODY = """
        total, count = 0.0, 0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
            count += len(x)
        history["train_loss"].append(total / count)
"""

MUTANTS = {
    # --- evaluate --------------------------------------------------------------------------
    "evaluate_without_eval": Mutant({"evaluate": EV + """
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    return total / count
"""}, ["test_evaluate_modes", "test_evaluate_leaves_state", "test_evaluate_value"],
        ["wrong_mode", "buffers_changed"]),
    "evaluate_without_no_grad": Mutant({"evaluate": EV + """
    was = model.training
    model.eval()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        total += loss_fn(model(x), y).item() * len(x)
        count += len(x)
    model.train(was)
    return total / count
"""}, ["test_evaluate_modes"], ["graph_recorded"]),
    "evaluate_tensor_total_without_no_grad": Mutant({"evaluate": EV + """
    was = model.training
    model.eval()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        total += loss_fn(model(x), y) * len(x)
        count += len(x)
    model.train(was)
    return total.item() / count
"""}, ["test_evaluate_modes", "test_evaluate_frees_graphs"], ["graph_recorded", "graphs_kept_alive"]),
    "evaluate_list_of_losses": Mutant({"evaluate": EV + """
    was = model.training
    model.eval()
    losses, sizes = [], []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        losses.append(loss_fn(model(x), y))
        sizes.append(len(x))
    model.train(was)
    return sum(l.item() * n for l, n in zip(losses, sizes)) / sum(sizes)
"""}, ["test_evaluate_modes", "test_evaluate_frees_graphs"], ["graph_recorded", "graphs_kept_alive"]),
    "evaluate_not_restoring_mode": Mutant({"evaluate": EV + """
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    return total / count
"""}, ["test_evaluate_modes"], ["mode_changed"]),
    "evaluate_always_train_afterwards": Mutant({"evaluate": EV + """
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    model.train()
    return total / count
"""}, ["test_evaluate_modes"], ["mode_changed"]),
    "evaluate_returns_tensor": Mutant({"evaluate": EV + """
    was = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y) * len(x)
            count += len(x)
    model.train(was)
    return total / count
"""}, ["test_evaluate_value"], ["returns_tensor"]),
    "evaluate_unweighted_mean": Mutant({"evaluate": EV + """
    was = model.training
    model.eval()
    losses = []
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            losses.append(loss_fn(model(x), y).item())
    model.train(was)
    return sum(losses) / len(losses)
"""}, ["test_evaluate_value"], ["unweighted_mean"]),
    "evaluate_batch_not_moved": Mutant({"evaluate": EV + """
    was = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    model.train(was)
    return total / count
"""}, ["test_evaluate_modes", "test_evaluate_value"], ["batch_not_moved"], needs_cuda=True),
    # --- accuracy ---------------------------------------------------------------------------
    "accuracy_threshold_half_on_logits": Mutant({"accuracy": AC + """
    was = model.training
    model.eval()
    correct, count = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += ((model(x) > 0.5).float() == y).sum().item()
            count += len(y)
    model.train(was)
    return correct / count
"""}, ["test_accuracy_value"], ["threshold_on_logits"]),
    "accuracy_percentage": Mutant({"accuracy": AC + """
    was = model.training
    model.eval()
    correct, count = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += ((model(x) > 0).float() == y).sum().item()
            count += len(y)
    model.train(was)
    return 100.0 * correct / count
"""}, ["test_accuracy_value"], ["percentage_not_fraction"]),
    "accuracy_never_thresholded": Mutant({"accuracy": AC + """
    was = model.training
    model.eval()
    correct, count = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x) == y).sum().item()
            count += len(y)
    model.train(was)
    return correct / count
"""}, ["test_accuracy_value"], ["never_thresholded"]),
    "accuracy_leaves_eval_mode": Mutant({"accuracy": AC + """
    model.eval()
    correct, count = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += ((model(x) > 0).float() == y).sum().item()
            count += len(y)
    return correct / count
"""}, ["test_accuracy_value"], ["mode_changed"]),
    "accuracy_count": Mutant({"accuracy": AC + """
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += ((model(x) > 0).float() == y).sum().item()
    return float(correct)
"""}, ["test_accuracy_value"], ["count_not_fraction"]),
    "accuracy_in_train_mode": Mutant({"accuracy": AC + """
    correct, count = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += ((model(x) > 0).float() == y).sum().item()
            count += len(y)
    return correct / count
"""}, ["test_accuracy_value"], ["wrong_value"]),
    "accuracy_mean_of_batches": Mutant({"accuracy": AC + """
    model.eval()
    scores = []
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            scores.append(((model(x) > 0).float() == y).float().mean().item())
    return sum(scores) / len(scores)
"""}, ["test_accuracy_value"], ["wrong_value"]),
    # --- predict_proba ----------------------------------------------------------------------
    "predict_proba_leaves_eval_mode": Mutant({"predict_proba": PP + """
    model.eval()
    with torch.no_grad():
        return torch.sigmoid(model(x))
"""}, ["test_predict_proba_values"], ["mode_changed"]),
    "predict_proba_logits": Mutant({"predict_proba": PP + """
    model.eval()
    with torch.no_grad():
        return model(x)
"""}, ["test_predict_proba_values"], ["returns_logits"]),
    "predict_proba_softmax": Mutant({"predict_proba": PP + """
    model.eval()
    with torch.no_grad():
        return torch.softmax(model(x), dim=1)
"""}, ["test_predict_proba_values"], ["softmax_one_output"]),
    "predict_proba_train_mode": Mutant({"predict_proba": PP + """
    with torch.no_grad():
        return torch.sigmoid(model(x))
"""}, ["test_predict_proba_values"], ["dropout_active"]),
    "predict_proba_with_history": Mutant({"predict_proba": PP + """
    model.eval()
    return torch.sigmoid(model(x))
"""}, ["test_predict_proba_values"], ["has_history"]),
    # --- fit --------------------------------------------------------------------------------
    "fit_never_returns_to_train": Mutant({"fit": FIT + """
    history = {"train_loss": [], "val_loss": []}
    model.train()
    for _ in range(epochs):""" + _TRAIN_EPOCH_BODY + """
        model.eval()
        with torch.no_grad():
            total, count = 0.0, 0
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                total += loss_fn(model(x), y).item() * len(x)
                count += len(x)
        history["val_loss"].append(total / count)
    return history
"""}, ["test_fit_modes", "test_fit_history"], ["stuck_in_eval"]),
    "fit_validation_records_graph": Mutant({"fit": FIT + """
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        model.train()""" + _TRAIN_EPOCH_BODY + """
        model.eval()
        total, count = 0.0, 0
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
        history["val_loss"].append(total / count)
    return history
"""}, ["test_fit_modes"], ["graph_recorded"]),
    "fit_validation_in_train_mode": Mutant({"fit": FIT + """
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        model.train()""" + _TRAIN_EPOCH_BODY + """
        with torch.no_grad():
            total, count = 0.0, 0
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                total += loss_fn(model(x), y).item() * len(x)
                count += len(x)
        history["val_loss"].append(total / count)
    return history
"""}, ["test_fit_modes", "test_fit_history"], ["validation_in_train_mode"]),
    "fit_unweighted_train_loss": Mutant({"fit": FIT + """
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        model.train()
        losses = []
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        history["train_loss"].append(sum(losses) / len(losses))
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
"""}, ["test_fit_history"], ["unweighted_mean"]),
    "fit_validates_before_training": Mutant({"fit": FIT + """
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
        model.train()""" + _TRAIN_EPOCH_BODY + """
    return history
"""}, ["test_fit_history"], ["wrong_val_loss"]),
    "fit_tensor_history": Mutant({"fit": FIT + """
    history = {"train_loss": [], "val_loss": []}
    for _ in range(epochs):
        model.train()
        total, count = 0.0, 0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.detach() * len(x)
            count += len(x)
        history["train_loss"].append(total / count)
        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))
    return history
"""}, ["test_fit_history"], ["returns_tensor"]),
}

VARIANTS = {
    "evaluate_inference_mode": {"evaluate": EV + """
    previous = model.training
    model.eval()
    total = 0.0
    with torch.inference_mode():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            total += loss_fn(model(xb), yb).item() * xb.shape[0]
    model.train(mode=previous)
    return total / len(loader.dataset)
"""},
    "evaluate_concatenate_outputs": {"evaluate": EV + """
    mode = model.training
    model.eval()
    with torch.set_grad_enabled(False):
        outs, targets = [], []
        for x, y in loader:
            outs.append(model(x.to(device)))
            targets.append(y.to(device))
        value = loss_fn(torch.cat(outs), torch.cat(targets)).item()
    if mode:
        model.train()
    return value
"""},
    "accuracy_sigmoid_round": {"accuracy": AC + """
    mode = model.training
    model.eval()
    hits = total = 0
    with torch.no_grad():
        for x, y in loader:
            p = torch.sigmoid(model(x.to(device)))
            hits += (p.round() == y.to(device)).sum().item()
            total += y.shape[0]
    if mode:
        model.train()
    return hits / total
"""},
    "predict_proba_inference_mode": {"predict_proba": PP + """
    was = model.training
    try:
        model.eval()
        with torch.inference_mode():
            out = model(x).sigmoid()
    finally:
        model.train(was)
    return out
"""},
    "predict_proba_detach": {"predict_proba": PP + """
    training = model.training
    model.eval()
    p = torch.sigmoid(model(x)).detach()
    model.train(training)
    return p
"""},
    "fit_inline_validation": {"fit": FIT + """
    train_losses, val_losses = [], []
    for epoch in range(epochs):
        model.train()
        seen, running = 0, 0.0
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            loss = loss_fn(out, yb)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            running += loss.item() * xb.size(0)
            seen += xb.size(0)
        train_losses.append(running / seen)
        model.eval()
        with torch.no_grad():
            v, m = 0.0, 0
            for xb, yb in val_loader:
                xb, yb = xb.to(device), yb.to(device)
                v += loss_fn(model(xb), yb).item() * len(xb)
                m += len(xb)
        val_losses.append(v / m)
    return {"train_loss": train_losses, "val_loss": val_losses}
"""},
}

# --- repair_evaluate: the starter with all but one planted bug repaired, and repairs in other styles
_DOC = "(from a colleague's notebook).\"\"\"\n"
_FIXES = {
    "mode": [(_DOC, _DOC + "    was_training = model.training\n    model.eval()\n"),
             ("    return torch.stack", "    model.train(was_training)\n    return torch.stack")],
    "graph": [("    for inputs, targets in loader:\n", "    for inputs, targets in loader:\n      with torch.no_grad():\n")],
    "mean": [("batch_losses.append(loss_fn(model(inputs), targets))",
              "batch_losses.append(loss_fn(model(inputs), targets) * len(inputs))"),
             ("torch.stack(batch_losses).mean().item()", "(torch.stack(batch_losses).sum() / len(loader.dataset)).item()")],
}
_LEFT = {"mode": ("test_repair_evaluate_mode", "wrong_mode"),
         "graph": ("test_repair_evaluate_no_graph", "graphs_kept_alive"),
         "mean": ("test_repair_evaluate_value", "unweighted_mean")}

_repaired, _LEFT_ALONE = repair_catalogue("repair_evaluate", REPAIR_EVALUATE, _FIXES, _LEFT)
MUTANTS.update(_LEFT_ALONE)
MUTANTS["repair_eval_without_restoring_mode"] = Mutant(
    _repaired(extra=[("    model.train(was_training)\n", "")]), ["test_repair_evaluate_mode"], ["mode_changed"])
MUTANTS["repair_mode_forced_back_to_train"] = Mutant(
    _repaired(extra=[("    model.train(was_training)\n", "    model.train()\n")]), ["test_repair_evaluate_mode"],
    ["mode_changed"])

VARIANTS["repair_float_total_no_grad_block"] = {"repair_evaluate": """
def repair_evaluate(model, loader, loss_fn, device):
    \"\"\"Mean validation loss per example (from a colleague's notebook).\"\"\"
    mode = model.training
    model.eval()
    total = 0.0
    with torch.no_grad():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            total += loss_fn(model(inputs), targets).item() * inputs.shape[0]
    model.train(mode)
    return total / len(loader.dataset)
"""}
VARIANTS["repair_stacked_tensors_weighted"] = {"repair_evaluate": edited(
    REPAIR_EVALUATE, *_FIXES["mode"], *_FIXES["graph"], *_FIXES["mean"])}
