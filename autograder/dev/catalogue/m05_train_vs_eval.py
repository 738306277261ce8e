"""Module 05-train-vs-eval: mutants and correct variants."""

from ...starters import REPAIR_EVALUATE
from . import Mutant, do_nothing, edited, hold_to_words, patched, repair_catalogue
from .found import mutants as found_mutants

MODULE = "05-train-vs-eval"

EV = "def evaluate(model, loader, loss_fn, device):\n"
AC = "def accuracy(model, loader, device):\n"
PP = "def predict_proba(model, x):\n"
FIT = "def fit(model, train_loader, val_loader, optimizer, loss_fn, epochs, device):\n"


def _indent(text: str) -> str:
    return "".join("    " + line for line in text.splitlines(keepends=True))


def _dedent(text: str) -> str:
    return "".join(line.removeprefix("    ") for line in text.splitlines(keepends=True))


# Lines of the solution that the mutants below edit; `*_WAS` names its recorded mode `was`.
_WAS = (("was_training = model.training", "was = model.training"), ("model.train(was_training)", "model.train(was)"))
_RECORD_MODE = "    was_training = model.training\n"
_EVAL = "    model.eval()                                  # mode: Dropout off, BatchNorm on running stats\n"
_RESTORE = "    model.train(was_training)                     # hand the mode back\n"
_NO_GRAD = "    with torch.no_grad():                         # autograd: record nothing\n"
_LOOP = ("        for x, y in loader:\n"
         "            x, y = x.to(device), y.to(device)\n"
         "            total += loss_fn(model(x), y).item() * len(x)\n"
         "            count += len(x)\n")
_OUTSIDE_NO_GRAD = (_NO_GRAD + _LOOP, _dedent(_LOOP))
_PREDICT = ("            predictions = (model(x) > 0).float()      # (N, 1): logit > 0 <=> probability > 0.5\n"
            "            correct += (predictions == y).sum().item()\n")
_CORRECT = (_PREDICT, "            correct += ((model(x) > 0).float() == y).sum().item()\n")
_LEN = ("y.numel()", "len(y)")
_PROBA_KEPT = ("    with torch.no_grad():\n        probabilities = torch.sigmoid(model(x))   # (N, 1)\n"
               "    model.train(was_training)\n    return probabilities\n")
_VAL = '        history["val_loss"].append(evaluate(model, val_loader, loss_fn, device))\n'
_VAL_LOOP = ("        total, count = 0.0, 0\n"
             "        for x, y in val_loader:\n"
             "            x, y = x.to(device), y.to(device)\n"
             "            total += loss_fn(model(x), y).item() * len(x)\n"
             "            count += len(x)\n")
_VAL_MEAN = '        history["val_loss"].append(total / count)\n'

MUTANTS = {
    # --- evaluate --------------------------------------------------------------------------
    "evaluate_without_eval": Mutant(patched(
        MODULE, "evaluate", (_RECORD_MODE + _EVAL, ""),
        (_RESTORE, "")),
        ["test_evaluate_modes", "test_evaluate_leaves_state", "test_evaluate_value"], ["wrong_mode", "buffers_changed"]),
    "evaluate_without_no_grad": Mutant(patched(MODULE, "evaluate", *_WAS, _OUTSIDE_NO_GRAD),
                                       ["test_evaluate_modes"], ["graph_recorded"]),
    "evaluate_tensor_total_without_no_grad": Mutant(patched(
        MODULE, "evaluate", *_WAS,
        _OUTSIDE_NO_GRAD,
        (".item() * len(x)", " * len(x)"),
        ("return total / count", "return total.item() / count")),
        ["test_evaluate_modes", "test_evaluate_frees_graphs"], ["graph_recorded", "graphs_kept_alive"]),
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
    "evaluate_not_restoring_mode": Mutant(patched(MODULE, "evaluate", (_RECORD_MODE, ""), (_RESTORE, "")),
                                          ["test_evaluate_modes"], ["mode_changed"]),
    "evaluate_always_train_afterwards": Mutant(patched(
        MODULE, "evaluate", (_RECORD_MODE, ""),
        ("model.train(was_training)", "model.train()")),
        ["test_evaluate_modes"], ["mode_changed"]),
    # Recording switched off by freezing every parameter instead of torch.no_grad(): left frozen afterwards.
    "evaluate_freezes_parameters": Mutant(patched(
        MODULE, "evaluate", (_NO_GRAD + _LOOP, "    for p in model.parameters():\n        p.requires_grad_(False)\n"
                             + _dedent(_LOOP))),
        ["test_evaluate_leaves_state"], ["changed_state"],
        words=("no longer require grad", "torch.no_grad() instead")),
    "evaluate_returns_tensor": Mutant(patched(MODULE, "evaluate", *_WAS, (".item() * len(x)", " * len(x)")),
                                      ["test_evaluate_value"], ["returns_tensor"]),
    "evaluate_unweighted_mean": Mutant(patched(
        MODULE, "evaluate", *_WAS,
        ("total, count = 0.0, 0", "losses = []"),
        ("            total += loss_fn(model(x), y).item() * len(x)\n"
         "            count += len(x)\n",
         "            losses.append(loss_fn(model(x), y).item())\n"),
        ("return total / count", "return sum(losses) / len(losses)")),
        ["test_evaluate_value"], ["unweighted_mean"]),
    "evaluate_batch_not_moved": Mutant(patched(
        MODULE, "evaluate", *_WAS,
        ("            x, y = x.to(device), y.to(device)\n", "")),
        ["test_evaluate_modes", "test_evaluate_value"], ["batch_not_moved"], needs_cuda=True),
    # --- accuracy ---------------------------------------------------------------------------
    "accuracy_threshold_half_on_logits": Mutant(patched(
        MODULE, "accuracy", *_WAS,
        (_PREDICT, "            correct += ((model(x) > 0.5).float() == y).sum().item()\n"),
        _LEN),
        ["test_accuracy_value"], ["threshold_on_logits"]),
    # argmax over the one logit column: every prediction is class 0.
    "accuracy_argmax_one_column": Mutant(patched(
        MODULE, "accuracy", ("(model(x) > 0).float()", "model(x).argmax(dim=1, keepdim=True).float()")),
        ["test_accuracy_value"], ["argmax_one_column"], words=("every prediction was 0", "a dimension of size 1")),
    # Predictions squeezed to [B] against labels [B, 1]: the comparison broadcasts to [B, B].
    "accuracy_squeezed_predictions": Mutant(patched(MODULE, "accuracy", ("(model(x) > 0).float()",
                                                                         "(model(x) > 0).float().squeeze()")),
                                            ["test_accuracy_value"], ["compared_broadcast"],
                                            words=("broadcasts to a [B, B] table",)),
    "accuracy_percentage": Mutant(patched(
        MODULE, "accuracy", *_WAS,
        _CORRECT,
        _LEN,
        ("return correct / count", "return 100.0 * correct / count")),
        ["test_accuracy_value"], ["percentage_not_fraction"]),
    "accuracy_never_thresholded": Mutant(patched(
        MODULE, "accuracy", *_WAS,
        (_PREDICT, "            correct += (model(x) == y).sum().item()\n"),
        _LEN),
        ["test_accuracy_value"], ["never_thresholded"]),
    "accuracy_leaves_eval_mode": Mutant(patched(
        MODULE, "accuracy", (_RECORD_MODE, ""),
        _CORRECT,
        _LEN,
        ("    model.train(was_training)\n", "")),
        ["test_accuracy_value"], ["mode_changed"]),
    "accuracy_count": Mutant(patched(
        MODULE, "accuracy", (_RECORD_MODE, ""),
        ("correct, count = 0, 0", "correct = 0"),
        _CORRECT,
        ("            count += y.numel()\n", ""),
        ("    model.train(was_training)\n", ""),
        ("return correct / count", "return float(correct)")),
        ["test_accuracy_value"], ["count_not_fraction"]),
    "accuracy_in_train_mode": Mutant(patched(
        MODULE, "accuracy", (_RECORD_MODE + "    model.eval()\n", ""),
        _CORRECT,
        _LEN,
        ("    model.train(was_training)\n", "")),
        ["test_accuracy_value"], ["wrong_mode"]),
    "accuracy_mean_of_batches": Mutant(patched(
        MODULE, "accuracy", (_RECORD_MODE, ""),
        ("correct, count = 0, 0", "scores = []"),
        (_PREDICT + "            count += y.numel()\n",
         "            scores.append(((model(x) > 0).float() == y).float().mean().item())\n"),
        ("    model.train(was_training)\n", ""),
        ("return correct / count", "return sum(scores) / len(scores)")),
        ["test_accuracy_value"], ["unweighted_mean"]),
    # --- predict_proba ----------------------------------------------------------------------
    "predict_proba_leaves_eval_mode": Mutant(patched(
        MODULE, "predict_proba", (_RECORD_MODE, ""),
        (_PROBA_KEPT, "    with torch.no_grad():\n        return torch.sigmoid(model(x))\n")),
        ["test_predict_proba_values"], ["mode_changed"]),
    "predict_proba_logits": Mutant(patched(
        MODULE, "predict_proba", (_RECORD_MODE, ""),
        (_PROBA_KEPT, "    with torch.no_grad():\n        return model(x)\n")),
        ["test_predict_proba_values"], ["returns_logits"]),
    "predict_proba_softmax": Mutant(patched(
        MODULE, "predict_proba", (_RECORD_MODE, ""),
        (_PROBA_KEPT, "    with torch.no_grad():\n        return torch.softmax(model(x), dim=1)\n")),
        ["test_predict_proba_values"], ["softmax_one_output"]),
    "predict_proba_train_mode": Mutant(patched(
        MODULE, "predict_proba", (_RECORD_MODE + "    model.eval()\n", ""),
        (_PROBA_KEPT, "    with torch.no_grad():\n        return torch.sigmoid(model(x))\n")),
        ["test_predict_proba_values"], ["dropout_active"]),
    # The mode test inverted: a model in train mode is left in it.
    "predict_proba_mode_test_inverted": Mutant({"predict_proba": PP + """
    if not model.training:
        model.eval()
    with torch.no_grad():
        return torch.sigmoid(model(x))
"""}, ["test_predict_proba_values"], ["dropout_active"], words=("forward passes ran with the model in train mode",)),
    "predict_proba_with_history": Mutant(patched(
        MODULE, "predict_proba", (_RECORD_MODE, ""),
        (_PROBA_KEPT, "    return torch.sigmoid(model(x))\n")),
        ["test_predict_proba_values"], ["has_history"]),
    # --- fit --------------------------------------------------------------------------------
    "fit_never_returns_to_train": Mutant(patched(
        MODULE, "fit",
        ("    for _ in range(epochs):\n"
         "        model.train()                             # every epoch: validation may have left eval mode\n",
         "    model.train()\n    for _ in range(epochs):\n"),
        (_VAL, "        model.eval()\n        with torch.no_grad():\n" + _indent(_VAL_LOOP) + _VAL_MEAN)),
        ["test_fit_modes", "test_fit_history"], ["stuck_in_eval"]),
    # Found by the automatic mutator: fit trusts the mode it was handed (evaluate hands train mode back).
    "fit_trusts_the_callers_mode": Mutant(patched(
        MODULE, "fit", ("        model.train()                             # every epoch: validation may have left eval mode\n",
                        "")),
        ["test_fit_modes"], ["stuck_in_eval"]),
    "fit_validation_records_graph": Mutant(patched(
        MODULE, "fit", (_VAL, "        model.eval()\n" + _VAL_LOOP + _VAL_MEAN)),
        ["test_fit_modes"], ["graph_recorded"]),
    "fit_validation_in_train_mode": Mutant(patched(
        MODULE, "fit", (_VAL, "        with torch.no_grad():\n" + _indent(_VAL_LOOP) + _VAL_MEAN)),
        ["test_fit_modes", "test_fit_history"], ["validation_in_train_mode"]),
    "fit_unweighted_train_loss": Mutant(patched(
        MODULE, "fit", ("total, count = 0.0, 0", "losses = []"),
        ("            total += loss.item() * len(x)\n"
         "            count += len(x)\n",
         "            losses.append(loss.item())\n"),
        ("append(total / count)", "append(sum(losses) / len(losses))")),
        ["test_fit_history"], ["unweighted_mean"]),
    "fit_validates_before_training": Mutant(patched(
        MODULE, "fit", ("        model.train()", _VAL + "        model.train()"),
        (_VAL + "    return history", "    return history")),
        ["test_fit_history"], ["wrong_val_loss"]),
    "fit_tensor_history": Mutant(patched(MODULE, "fit", ("total += loss.item()", "total += loss.detach()")),
                                 ["test_fit_history"], ["returns_tensor"]),
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

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "evaluate_without_no_grad": (
        "autograd kept a graph that evaluation never uses",
        "a forward pass inside evaluate recorded an autograd graph",
    ),
    "evaluate_not_restoring_mode": (
        "the next training epoch would run in the wrong mode",
        "the model went into evaluate in train mode and came out in eval mode",
    ),
    "evaluate_always_train_afterwards": (
        "the next training epoch would run in the wrong mode",
        "the model went into evaluate in eval mode and came out in train mode",
    ),
    "evaluate_returns_tensor": ("the value evaluate returned keeps a tensor",),
    "evaluate_unweighted_mean": ("the running total of the validation loss", "the plain mean of the batch losses"),
    "accuracy_percentage": ("a percentage",),
    "accuracy_never_thresholded": ("which almost never equal a label exactly",),
    "accuracy_leaves_eval_mode": (
        "accuracy changed it for whoever called it",
        "the model went into accuracy in train mode and came out in eval mode",
    ),
    "accuracy_count": ("a count of correct predictions",),
    "accuracy_in_train_mode": ("forward passes ran in train mode", "Dropout drops units"),
    "accuracy_mean_of_batches": ("the plain mean of the batch accuracies",),
    "predict_proba_leaves_eval_mode": ("predict_proba changed it for whoever called it",),
    "predict_proba_logits": ("the model's output is a logit", "returned the raw logits"),
    "predict_proba_train_mode": (
        "in train mode Dropout draws new masks on every call",
        "on the same input gave different probabilities",
        "forward passes ran with the model in train mode",
    ),
    "predict_proba_with_history": (
        "autograd recorded the prediction's graph and the result still holds it",
        "returned a tensor that requires grad",
    ),
    "fit_never_returns_to_train": (
        "the validation switched it to eval and nothing switched it back",
        "the model never returned to training mode",
    ),
    "fit_trusts_the_callers_mode": (
        "the validation switched it to eval and nothing switched it back",
        "training forwards ran in eval mode",
    ),
    "fit_validation_records_graph": (
        "autograd kept graphs that validation never uses",
        "no forward pass in fit ran without gradient recording",
    ),
    "fit_validation_in_train_mode": (
        "Dropout and BatchNorm kept their training behaviour during validation",
        "validation forwards ran in train mode",
    ),
    "fit_unweighted_train_loss": (
        "smaller batch weighed as much as a full one",
        "is the plain mean of the batch losses",
    ),
    "fit_validates_before_training": ("the epoch's mean per-example loss on the validation set",),
    "fit_tensor_history": ("alive for as long as the caller holds it",),
    "repair_left_mode": (
        "the model owns its mode and was still in train mode from training",
        "a forward pass inside repair_evaluate ran in train mode",
    ),
    "repair_left_graph": (
        "is a tensor whose history reaches every batch's loss",
        "recorded because the loop ran with gradients on",
    ),
    "repair_left_mean": ("the running total of the validation loss", "the plain mean of the batch losses"),
    "repair_eval_without_restoring_mode": ("the next training epoch would run in the wrong mode",),
    "repair_mode_forced_back_to_train": ("the next training epoch would run in the wrong mode",),
    "evaluate_without_eval": ("ran in train mode",),
    "evaluate_tensor_total_without_no_grad": ("recorded an autograd graph",),
    "evaluate_list_of_losses": ("recorded an autograd graph",),
    "accuracy_threshold_half_on_logits": ("compared with 0.5 as if they were probabilities",),
    "predict_proba_softmax": ("softmax over a single output column always gives 1",),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))

# Automatic mutants (autograder.dev.mutate) that keep full marks because they change nothing the contract fixes.
_CPU_ONLY = "the batch stays on the CPU: only a CUDA device exposes it (the catalogue's CUDA mutants, `-m gpu`)"
EQUIVALENT = {
    "evaluate: swap: model.eval() <-> total, count = (0.0, 0)": "independent statements",
    "evaluate: delete: x, y = (x.to(device), y.to(device))": _CPU_ONLY,
    "evaluate: swap: x, y = (x.to(device), y.to(device)) <-> total += loss_fn(model(x), y).item() * len(x)": _CPU_ONLY,
    "evaluate: swap: total += loss_fn(model(x), y).item() * len(x) <-> count += len(x)": "independent statements",
    "accuracy: swap: model.eval() <-> correct, count = (0, 0)": "independent statements",
    "accuracy: delete: x, y = (x.to(device), y.to(device))": _CPU_ONLY,
    "accuracy: swap: x, y = (x.to(device), y.to(device)) <-> predictions = (model(x) > 0).float()": _CPU_ONLY,
    "accuracy: swap: correct += (predictions == y).sum().item() <-> count += y.numel()": "independent statements",
    "fit: swap: model.train() <-> total, count = (0.0, 0)": "independent statements",
    "fit: swap: history['train_loss'].append(total / count) <-> history['val_loss'].append(evaluate(model, "
    "val_loader, loss_fn, device))": "two lists filled in either order hold the same values",
    "fit: delete: x, y = (x.to(device), y.to(device))": _CPU_ONLY,
    "fit: swap: x, y = (x.to(device), y.to(device)) <-> optimizer.zero_grad()": "independent statements",
    "fit: swap: optimizer.zero_grad() <-> loss = loss_fn(model(x), y)": "gradients are still cleared before backward",
    "fit: swap: optimizer.step() <-> total += loss.item() * len(x)": "the loss was computed before the step either way",
    "fit: swap: total += loss.item() * len(x) <-> count += len(x)": "independent statements",
    "repair_evaluate: swap: model.eval() <-> total, count = (0.0, 0)": "independent statements",
    "repair_evaluate: delete: inputs, targets = (inputs.to(device), targets.to(device))": _CPU_ONLY,
    "repair_evaluate: swap: inputs, targets = (inputs.to(device), targets.to(device)) <-> total += "
    "loss_fn(model(inputs), targets).item() * len(inputs)": _CPU_ONLY,
    "repair_evaluate: swap: total += loss_fn(model(inputs), targets).item() * len(inputs) <-> "
    "count += len(inputs)": "independent statements",
}
