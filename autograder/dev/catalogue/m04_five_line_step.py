"""Module 04-five-line-step: mutants and correct variants."""

from ...starters import REPAIR_TRAIN_EPOCH
from .. import predict_redteam as _redteam
from . import Mutant, do_nothing, edited, hold_to_words, patched, repair_catalogue
from .found import mutants as found_mutants

MODULE = "04-five-line-step"

TS = "def train_step(model, x, y, optimizer, loss_fn):\n"
TE = "def train_epoch(model, loader, optimizer, loss_fn, device):\n"
AS = "def accumulate_step(model, micro_batches, optimizer, loss_fn):\n"
OF = "def overfit_one_batch(model, x, y, optimizer, loss_fn, steps):\n"

# Lines of the solution's train_step, and the edit that computes its loss from model(x) in one line.
_ZERO_GRAD = "    optimizer.zero_grad()          # .grad: clear what the previous batch left\n"
_FORWARD = ("    logits = model(x)              # (N, 1); autograd records the graph\n"
            "    loss = loss_fn(logits, y)      # scalar\n")
_LOSS = (_FORWARD, "    loss = loss_fn(model(x), y)\n")
_BACKWARD = "    loss.backward()                # .grad: this batch's gradients\n"
_STEP = "    optimizer.step()               # parameters: one update from those gradients\n"
# train_epoch's call of train_step, and that step written out inside the loop.
_TRAIN_STEP = "        total += train_step(model, x, y, optimizer, loss_fn) * len(x)\n"
_STEP_INLINE = ("        optimizer.zero_grad()\n        loss = loss_fn(model(x), y)\n        loss.backward()\n"
                "        optimizer.step()\n")
# accumulate_step's first lines, with the running total started before k.
_TOTAL_FIRST = ("    k = len(micro_batches)\n    total = 0.0\n", "    total = 0.0\n    k = len(micro_batches)\n")

MUTANTS = {
    # --- train_step -----------------------------------------------------------------------
    "step_no_zero_grad": Mutant(patched(MODULE, "train_step", (_ZERO_GRAD, ""), _LOSS),
                                ["test_train_step_update"], ["stale_grads"]),
    "step_zero_grad_between_backward_and_step": Mutant(patched(
        MODULE, "train_step", (_ZERO_GRAD, ""),
        _LOSS,
        (_BACKWARD, _BACKWARD + "    optimizer.zero_grad()\n")),
        ["test_train_step_update"], ["cleared_before_step"]),
    "step_before_backward": Mutant(patched(MODULE, "train_step", _LOSS, (_BACKWARD + _STEP, _STEP + _BACKWARD)),
                                   ["test_train_step_update"], ["step_before_backward"]),
    "step_returns_tensor": Mutant(patched(MODULE, "train_step", _LOSS, ("return loss.item()", "return loss")),
                                  ["test_train_step_returns_loss"], ["returns_tensor"]),
    "step_returns_detached_tensor": Mutant(patched(
        MODULE, "train_step", _LOSS,
        ("return loss.item()", "return loss.detach()")),
        ["test_train_step_returns_loss"], ["returns_tensor"]),
    "step_loss_after_update": Mutant(patched(
        MODULE, "train_step", _LOSS,
        ("    return loss.item()", "    with torch.no_grad():\n        return loss_fn(model(x), y).item()")),
        ["test_train_step_returns_loss"], ["loss_after_update"]),
    "step_own_optimizer": Mutant(patched(
        MODULE, "train_step",
        ("    optimizer.zero_grad()", "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    opt.zero_grad()"),
        _LOSS,
        ("    optimizer.step()", "    opt.step()")),
        ["test_train_step_update"], ["other_optimizer"]),
    "step_twice": Mutant(patched(MODULE, "train_step", _LOSS, (_STEP, _STEP + _STEP)),
                         ["test_train_step_update"], ["extra_steps"]),
    "step_loss_arguments_swapped": Mutant(patched(
        MODULE, "train_step", (_FORWARD, "    loss = loss_fn(y, model(x))\n")),
        ["test_train_step_update", "test_train_step_returns_loss"], ["loss_arguments_swapped"]),
    # --- train_epoch ----------------------------------------------------------------------
    # A fresh iterator for every batch: each update trains on the loader's first batch again.
    "epoch_restarts_the_loader": Mutant({"train_epoch": """
def train_epoch(model, loader, optimizer, loss_fn, device):
    model.train()
    total, count = 0.0, 0
    for _ in range(len(loader)):
        x, y = next(iter(loader))
        x, y = x.to(device), y.to(device)
        total += train_step(model, x, y, optimizer, loss_fn) * len(x)
        count += len(x)
    return total / count
"""}, ["test_train_epoch_result"], ["loader_restarted"], words=("began again at its first batch",)),
    "epoch_no_train_mode": Mutant(patched(
        MODULE, "train_epoch",
        ("    model.train()                                   # mode: Dropout/BatchNorm train behaviour\n", "")),
        ["test_train_epoch_mode"], ["wrong_mode"]),
    "epoch_batch_not_moved": Mutant(patched(
        MODULE, "train_epoch",
        ("        x, y = x.to(device), y.to(device)           # the batch follows the model's device\n", "")),
        ["test_train_epoch_mode", "test_train_epoch_result"], ["batch_not_moved"], needs_cuda=True),
    "epoch_unweighted_mean": Mutant(patched(
        MODULE, "train_epoch", ("total, count = 0.0, 0", "losses = []"),
        (_TRAIN_STEP + "        count += len(x)\n",
         "        losses.append(train_step(model, x, y, optimizer, loss_fn))\n"),
        ("return total / count", "return sum(losses) / len(losses)")),
        ["test_train_epoch_result"], ["unweighted_mean"]),
    "epoch_sum": Mutant(patched(
        MODULE, "train_epoch", ("total, count = 0.0, 0", "total = 0.0"),
        (" * len(x)\n        count += len(x)\n", "\n"),
        ("return total / count", "return total")),
        ["test_train_epoch_result"], ["sum_not_mean"]),
    "epoch_last_batch": Mutant(patched(
        MODULE, "train_epoch", ("    total, count = 0.0, 0\n", ""),
        (_TRAIN_STEP + "        count += len(x)\n", "        loss = train_step(model, x, y, optimizer, loss_fn)\n"),
        ("return total / count", "return loss")),
        ["test_train_epoch_result"], ["last_batch_only"]),
    "epoch_tensor_total": Mutant(patched(
        MODULE, "train_epoch", (_TRAIN_STEP, _STEP_INLINE + "        total = total + loss * len(x)\n")),
        ["test_train_epoch_result", "test_train_epoch_frees_graphs"], ["returns_tensor", "graphs_kept_alive"]),
    "epoch_tensor_total_item_at_the_end": Mutant(patched(
        MODULE, "train_epoch", (_TRAIN_STEP, _STEP_INLINE + "        total += loss * len(x)\n"),
        ("return total / count", "return total.item() / count")),
        ["test_train_epoch_frees_graphs"], ["graphs_kept_alive"]),
    "epoch_eval_mode": Mutant(patched(MODULE, "train_epoch", ("model.train()", "model.eval()")),
                              ["test_train_epoch_mode", "test_train_epoch_result"], ["wrong_mode"]),
    # --- accumulate_step -------------------------------------------------------------------
    "accumulate_unscaled": Mutant(patched(
        MODULE, "accumulate_step", ("    k = len(micro_batches)\n", ""),
        ("loss_fn(model(x), y) / k", "loss_fn(model(x), y)"),
        ("return total", "return total / len(micro_batches)")),
        ["test_accumulate_step_update"], ["unscaled"]),
    "accumulate_step_per_micro_batch": Mutant(patched(
        MODULE, "accumulate_step", ("    optimizer.zero_grad()\n    k = len(micro_batches)\n", ""),
        ("        loss = loss_fn(model(x), y) / k",
         "        optimizer.zero_grad()\n        loss = loss_fn(model(x), y)"),
        ("        total += loss.item()", "        optimizer.step()\n        total += loss.item()"),
        ("    optimizer.step()                      # one update from the accumulated gradient\n"
         "    return total\n",
         "    return total / len(micro_batches)\n")),
        ["test_accumulate_step_update"], ["step_per_micro_batch"]),
    "accumulate_zero_grad_inside_loop": Mutant(patched(
        MODULE, "accumulate_step", ("    optimizer.zero_grad()\n", ""),
        _TOTAL_FIRST,
        ("        loss = loss_fn", "        optimizer.zero_grad()\n        loss = loss_fn")),
        ["test_accumulate_step_update"], ["cleared_before_step"]),
    "accumulate_no_zero_grad": Mutant(patched(
        MODULE, "accumulate_step", ("    optimizer.zero_grad()\n", ""),
        _TOTAL_FIRST),
        ["test_accumulate_step_update"], ["stale_grads"]),
    "accumulate_returns_sum": Mutant(patched(
        MODULE, "accumulate_step", _TOTAL_FIRST,
        ("loss_fn(model(x), y) / k", "loss_fn(model(x), y)"),
        ("        loss.backward()", "        (loss / k).backward()")),
        ["test_accumulate_step_returns_loss"], ["sum_not_mean"]),
    "accumulate_clips_gradients": Mutant(patched(
        MODULE, "accumulate_step", _TOTAL_FIRST,
        ("loss_fn(model(x), y) / k", "loss_fn(model(x), y)"),
        ("        loss.backward()", "        (loss / k).backward()"),
        ("    optimizer.step()", "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    optimizer.step()"),
        ("return total", "return total / k")),
        ["test_accumulate_step_update"], ["clipped"]),
    "accumulate_returns_last_loss": Mutant(patched(
        MODULE, "accumulate_step", ("    total = 0.0\n", ""),
        ("        total += loss.item()\n", ""),
        ("return total", "return loss.item()")),
        ["test_accumulate_step_returns_loss"], ["last_micro_batch_only"]),
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
    "overfit_steps_plus_one": Mutant(patched(MODULE, "overfit_one_batch", ("range(steps)", "range(steps + 1)")),
                                     ["test_overfit_one_batch_curve"], ["wrong_length"]),
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
    # (One forward of the concatenated micro-batches is a mistake now: accumulation runs one forward per
    # micro-batch; found.py's accumulate_one_forward_of_the_whole_batch.)
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

# --- trace_batch: the misconceptions a trace of one batch can hold, and stand-ins that fake the rows ---------
_TRACE = "trace_batch"
_UNUSABLE = ("            if graph == \"alive\" and writes:                      # in place, into weights the graph saved\n"
             "                graph = \"unusable\"\n")
MUTANTS.update({
    # The graph is still alive after an in-place step (the defect the first version of this trace had).
    "trace_graph_alive_after_in_place_step": Mutant(patched(MODULE, _TRACE, (_UNUSABLE, "")),
                                                    ["test_trace_batch_graph"], ["trace_wrong_graph"]),
    "trace_any_step_spoils_the_graph": Mutant(patched(MODULE, _TRACE, ('graph == "alive" and writes', 'graph == "alive"')),
                                              ["test_trace_batch_graph"], ["trace_wrong_graph"]),
    "trace_backward_keeps_the_graph": Mutant(patched(MODULE, _TRACE, ('graph = "freed"', 'graph = "alive"')),
                                             ["test_trace_batch_graph"], ["trace_wrong_graph"]),
    "trace_zero_grad_frees_the_graph": Mutant(patched(MODULE, _TRACE, (
        "            optimizer.zero_grad()\n", "            optimizer.zero_grad()\n            graph = \"freed\" if loss is not None else graph\n")),
        ["test_trace_batch_graph"], ["trace_wrong_graph"]),
    "trace_loss_measured_after_each_statement": Mutant(patched(MODULE, _TRACE, (
        '"loss": None if loss is None else loss.item()',
        '"loss": None if loss is None else loss_fn(model(x), y).item()')),
        ["test_trace_batch_loss_and_grads"], ["trace_wrong_loss"]),
    "trace_none_read_as_zero": Mutant(patched(MODULE, _TRACE, ('"none" if p.grad is None', '"zero" if p.grad is None')),
                                      ["test_trace_batch_loss_and_grads"], ["trace_wrong_grad"]),
    "trace_grads_of_the_optimizers_tensors_only": Mutant(patched(MODULE, _TRACE, (
        "\"zero\"\n                     for n, p in params.items()}",
        "\"zero\"\n                     for n, p in params.items() if p in held}")),
        ["test_trace_batch_loss_and_grads"], ["wrong_keys"]),
    "trace_every_step_creates_the_buffer": Mutant(patched(MODULE, _TRACE, ('"created" if before[n] is None', '"created" if True')),
                                                  ["test_trace_batch_optimizer_and_parameters"], ["trace_wrong_momentum"]),
    "trace_buffer_forgotten_between_steps": Mutant(patched(MODULE, _TRACE, ('else "kept" if', 'else "absent" if')),
                                                   ["test_trace_batch_optimizer_and_parameters"], ["trace_wrong_momentum"]),
    "trace_changed_when_a_step_ran": Mutant(patched(MODULE, _TRACE, (
        '"changed": {n: not torch.equal(values[n], p) for n, p in params.items()}',
        '"changed": {n: statement == "optimizer.step()" for n in params}')),
        ["test_trace_batch_optimizer_and_parameters"], ["trace_wrong_weights"]),
    "trace_delta_before_minus_after": Mutant(patched(MODULE, _TRACE, (
        '(model.out.weight[0, 0] - values["out.weight"][0, 0])', '(values["out.weight"][0, 0] - model.out.weight[0, 0])')),
        ["test_trace_batch_optimizer_and_parameters"], ["trace_wrong_weights"]),
    "trace_delta_a_tensor": Mutant(patched(MODULE, _TRACE, (
        '(model.out.weight[0, 0] - values["out.weight"][0, 0]).item()',
        '(model.out.weight[0, 0] - values["out.weight"][0, 0]).detach()')),
        ["test_trace_batch_loss_and_grads", "test_trace_batch_optimizer_and_parameters", "test_trace_batch_graph"],
        ["trace_wrong_type"]),
    "trace_rows_only_for_the_steps": Mutant(patched(MODULE, _TRACE, ("        after = buffers()\n        rows.append(",
                                                                     "        after = buffers()\n        if statement == \"optimizer.step()\": rows.append(")),
                                            ["test_trace_batch_loss_and_grads", "test_trace_batch_optimizer_and_parameters",
                                             "test_trace_batch_graph"], ["wrong_length"]),
    # hint 2's trap: optimizer.state is a defaultdict, so reading state[p] adds entries a head-only optimizer lacks
    "trace_reads_state_by_index": Mutant(patched(MODULE, _TRACE, (
        'optimizer.state.get(p, {}).get("momentum_buffer")', 'optimizer.state[p].get("momentum_buffer")')),
        ["test_trace_batch_optimizer_and_parameters"], ["trace_added_state"], words=("defaultdict", "state.get(p")),
})

# Stand-ins whose rows compare equal to anything: a str, dict or list subclass (bool cannot be subclassed; an
# int subclass stands in for it).  Each must score 0 on every cell of trace_batch.
_EQUAL_TO_ANYTHING = """
class _Anything{base}({base}):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = {base}.__hash__

"""
_SIG = "def trace_batch(model, optimizer, loss_fn, x, y, body):\n"
_STAND_INS = {
    "str": ("str", "    return [{c: _Anythingstr('alive') for c in ('loss', 'graph', 'grad', 'momentum', 'changed', "
                   "'delta')} for _ in body]\n"),
    "dict": ("dict", "    names = [n for n, _ in model.named_parameters()]\n"
                     "    cells = _Anythingdict({n: 'nonzero' for n in names})\n"
                     "    return [_Anythingdict(loss=0.0, graph='alive', grad=cells, momentum=cells, changed=cells, "
                     "delta=0.0) for _ in body]\n"),
    "list": ("list", "    return _Anythinglist([])\n"),
    "int_for_bool": ("int", "    names = [n for n, _ in model.named_parameters()]\n"
                            "    return [dict(loss=None, graph='none', grad={n: 'none' for n in names}, momentum={n: "
                            "'absent' for n in names}, changed={n: _Anythingint(0) for n in names}, delta=0.0) "
                            "for _ in body]\n"),
}
_ALL_TRACE_CELLS = ["test_trace_batch_loss_and_grads", "test_trace_batch_optimizer_and_parameters",
                    "test_trace_batch_graph"]
MUTANTS.update({f"trace_equal_to_anything_{kind}": Mutant({_TRACE: _EQUAL_TO_ANYTHING.format(base=base) + _SIG + body},
                                                          _ALL_TRACE_CELLS, zero=True)
                for kind, (base, body) in _STAND_INS.items()})

VARIANTS["trace_by_reading_every_owner"] = {_TRACE: """def trace_batch(model, optimizer, loss_fn, x, y, body):
    names = [n for n, _ in model.named_parameters()]
    scope = {"model": model, "optimizer": optimizer, "loss_fn": loss_fn, "x": x, "y": y}
    rows, graph = [], "none"
    for statement in body:
        weights = [p.detach().clone() for p in model.parameters()]
        bufs = [optimizer.state[p]["momentum_buffer"].clone() if "momentum_buffer" in optimizer.state.get(p, {})
                else None for p in model.parameters()]
        will_write = statement == "optimizer.step()" and any(
            p.grad is not None for g in optimizer.param_groups for p in g["params"])
        exec(statement, scope)
        if statement.startswith("loss ="):
            graph = "alive"
        elif statement == "loss.backward()":
            graph = "freed"
        elif will_write and graph == "alive":
            graph = "unusable"
        momentum, grad, changed = {}, {}, {}
        for name, p, w, b in zip(names, model.parameters(), weights, bufs):
            now = optimizer.state.get(p, {}).get("momentum_buffer")
            momentum[name] = ("absent" if now is None else "created" if b is None
                              else "updated" if (now != b).any() else "kept")
            grad[name] = "none" if p.grad is None else ("zero" if torch.count_nonzero(p.grad) == 0 else "nonzero")
            changed[name] = bool((p.detach() != w).any())
        loss = scope.get("loss")
        rows.append(dict(loss=float(loss) if loss is not None else None, graph=graph, grad=grad, momentum=momentum,
                         changed=changed, delta=float(model.out.weight[0, 0].item() - weights[2][0, 0].item())))
    return rows
"""}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "step_no_zero_grad": ("nobody cleared the parameters'", "weight already held gradients from an earlier batch"),
    "step_zero_grad_between_backward_and_step": ("the optimizer stepped with cleared gradients",),
    "step_before_backward": (
        "grad still held what an earlier backward",
        "this update used the previous batch's gradients",
    ),
    "step_returns_tensor": ("on cpu that still holds its autograd graph",),
    "step_returns_detached_tensor": ("the value train_step returned keeps a tensor",),
    "step_loss_after_update": ("train_step returned the loss measured after the update",),
    "step_own_optimizer": ("the optimizer you were given owns the update", "changed: something else updated them"),
    "step_twice": ("the optimizer made more updates than there were batches",),
    "step_loss_arguments_swapped": ("loss_fn(y, logits)", "call loss_fn(model(x), y)"),
    "epoch_no_train_mode": ("a forward pass inside train_epoch ran in eval mode",),
    "epoch_unweighted_mean": ("the plain mean of the batch losses",),
    "epoch_sum": ("a sum rather than a mean",),
    "epoch_last_batch": ("train_epoch returned the last batch's loss",),
    "epoch_tensor_total_item_at_the_end": (
        "is a tensor whose history reaches every batch's loss",
        "something kept every batch's loss",
    ),
    "epoch_eval_mode": ("a forward pass inside train_epoch ran in eval mode",),
    "accumulate_unscaled": ("each micro-batch's backward",),
    "accumulate_zero_grad_inside_loop": ("the accumulated gradients were thrown away before step",),
    "accumulate_no_zero_grad": (
        "nobody cleared the parameters'",
        "weight already held gradients from an earlier batch",
    ),
    "accumulate_returns_sum": ("the loss total accumulate_step reported",),
    "accumulate_clips_gradients": ("grad was changed before the optimizer read it", "between backward"),
    "accumulate_returns_last_loss": (
        "the variable holding the loss was overwritten by each micro-batch",
        "the loss of the last micro-batch alone",
    ),
    "overfit_loss_after_update": ("each recorded loss is the one after its step's update",),
    "overfit_tensor_list": ("on cpu that still holds its autograd graph",),
    "overfit_steps_plus_one": ("the loop over steps", "overfit_one_batch"),
    "overfit_no_zero_grad": ("nobody cleared the parameters'", "weight already held gradients from an earlier batch"),
    "repair_left_mode": ("a forward pass inside repair_train_epoch ran in eval mode",),
    "repair_left_grads": ("nobody cleared the parameters'", "weight already held gradients from an earlier batch"),
    "repair_left_mean": ("the plain mean of the batch losses",),
    "repair_total_as_sum": ("a sum rather than a mean",),
    "epoch_tensor_total": ("still holds its autograd graph", "not a Python float"),
    "accumulate_step_per_micro_batch": ("after every micro-batch instead of once",),
    "repair_left_mode_and_mean": ("repair_train_epoch",),
    # trace_batch: each misconception named by the owner it gets wrong, and why that owner holds what it holds
    "trace_graph_alive_after_in_place_step": ("your graph is 'alive'", "wrote into the parameters in place",
                                              "version counter"),
    "trace_any_step_spoils_the_graph": ("your graph is 'unusable'", "updated no parameter"),
    "trace_backward_keeps_the_graph": ("your graph is 'alive'", "walks it once and frees it"),
    "trace_zero_grad_frees_the_graph": ("your graph is 'freed'", "stays as it was"),
    "trace_loss_measured_after_each_statement": ("only the forward statement sets",),
    "trace_none_read_as_zero": ("is 'zero'", "sets .grad to None"),
    "trace_grads_of_the_optimizers_tensors_only": ("grad keyed by", "the model's parameters are"),
    "trace_every_step_creates_the_buffer": ("is 'created'", "only step() writes"),
    "trace_buffer_forgotten_between_steps": ("is 'absent'", "never a buffer"),
    "trace_changed_when_a_step_ran": ("changed['hidden.weight'] is True", "with no .grad"),
    "trace_delta_before_minus_after": ("after the statement minus before it",),
    "trace_delta_a_tensor": ("not a Python float",),
    "trace_rows_only_for_the_steps": ("returned 1 rows for 4 statements", "one row after every statement"),
}
hold_to_words(MUTANTS, WORDS)

# --- predict_trace: the wrong predictions written before its checks (autograder/dev/predict_redteam.py), each
# with the cells it must lose, its diagnosis and the words its message must say; the right ones keep full marks.
_PT = ["test_predict_trace_grads", "test_predict_trace_optimizer_and_parameters", "test_predict_trace_graph"]
_PREDICTED = {  # red-team name: (cells it loses, diagnosis, words)
    "zero_grad_clears_every_parameter": ([_PT[0]], "trace_wrong_grad", ("your grad['hidden.weight'] is 'none'",
                                                                       "the tensors the optimizer holds, and only those")),
    "zero_fill_makes_zeros_from_none": ([_PT[0]], "trace_wrong_grad", ("is 'zero'", "a .grad that is None stays None")),
    "zero_grad_leaves_zeros": ([_PT[0]], "trace_wrong_grad", ("is 'zero'", "sets .grad to None")),
    "backward_fills_held_only": ([_PT[0]], "trace_wrong_grad", ("every parameter on the path",)),
    "momentum_rolls_without_a_grad": ([_PT[1]], "trace_wrong_momentum", ("a None .grad is skipped",)),
    "step_of_zeros_keeps_the_graph": ([_PT[2]], "trace_wrong_graph", ("your graph is 'alive'",
                                                                      "an update of zeros is a write too")),
    "buffers_for_tensors_not_held": ([_PT[1]], "trace_wrong_momentum", ("is 'created'", "does not hold gets no buffer")),
    "first_step_updates_the_buffer": ([_PT[1]], "trace_wrong_momentum", ("is 'updated'", "creates a buffer the first time")),
    "zero_grad_drops_the_buffers": ([_PT[1]], "trace_wrong_momentum", ("is 'absent'", "never a buffer")),
    "step_spoils_a_freed_graph": ([_PT[2]], "trace_wrong_graph", ("your graph is 'unusable'", "walked and freed it")),
    "forward_does_not_replace_the_graph": ([_PT[2]], "trace_wrong_graph", ("records a new graph",)),
    "step_always_moves": ([_PT[1]], "trace_wrong_weights", ("is True", "lr × its buffer")),
    "buffer_updated_when_written": ([_PT[1]], "trace_wrong_momentum", ("is 'updated'", "gives 'kept'")),
    "backward_leaves_no_graph": ([_PT[2]], "trace_wrong_graph", ("your graph is 'none'", "walks it once and frees it")),
    "model_zero_grad_clears_held_only": ([_PT[0]], "trace_wrong_grad", ("model.zero_grad() sets every parameter's",)),
    "step_clears_the_grads": ([_PT[0]], "trace_wrong_grad", ("is 'none'", "neither changes .grad")),
    "runs_a_model_to_predict": (_PT, "built_to_predict", ("built tensors (or a model)", "build nothing")),
}
MUTANTS.update({f"predict_{name}": Mutant({"predict_trace": _redteam.WRONG[name]}, cells, [code], words=words)
                for name, (cells, code, words) in _PREDICTED.items()})
# The model run with PyTorch's watches switched off (written after the checks): the dispatcher, or PyTorch's own
# Python code among the calls, still shows it.
_INNER = ("def predict_trace(start, body):\n", "def predict_trace(start, body):\n    with {off}:\n"
          "        return _inner(start, body)\n\n\ndef _inner(start, body):\n")
for _name, _off in (("torch_function_off", "torch._C.DisableTorchFunction()"),
                    ("both_modes_off", "torch._C.DisableTorchFunction(), torch._C._DisableTorchDispatch()")):
    MUTANTS[f"predict_runs_a_model_with_{_name}"] = Mutant(
        {"predict_trace": edited(_redteam.WRONG["runs_a_model_to_predict"], (_INNER[0], _INNER[1].format(off=_off)))},
        _PT, ["built_to_predict"], words=("built tensors (or a model)",))

# The model run in a thread of the prediction's own, where neither torch mode of the main thread reaches: the watch's
# profiler of that thread still shows PyTorch's own Python code.
MUTANTS["predict_runs_a_model_in_a_thread"] = Mutant(
    {"predict_trace": edited(_redteam.WRONG["runs_a_model_to_predict"], (
        "def predict_trace(start, body):\n",
        "def predict_trace(start, body):\n    import threading\n\n    out = []\n"
        "    worker = threading.Thread(target=lambda: out.append(_inner(start, body)))\n    worker.start()\n"
        "    worker.join()\n    return out[0]\n\n\ndef _inner(start, body):\n"))},
    _PT, ["built_to_predict"], words=("built tensors (or a model)",))

# Two of the right ones go through real nbgrader with the catalogue; tests/test_trace_batch.py judges the others.
VARIANTS.update({f"predict_{name}": {"predict_trace": _redteam.RIGHT[name]}
                 for name in ("a_class_per_owner", "numbers_for_the_buffers")})

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))

# Automatic mutants (autograder.dev.mutate) that keep full marks because they change nothing the contract fixes.
_CPU_ONLY = "the batch stays on the CPU: only a CUDA device exposes it (the catalogue's CUDA mutants, `-m gpu`)"
EQUIVALENT = {
    "train_step: swap: optimizer.zero_grad() <-> logits = model(x)": "gradients are still cleared before backward",
    "train_epoch: swap: model.train() <-> total, count = (0.0, 0)": "independent statements",
    "train_epoch: delete: x, y = (x.to(device), y.to(device))": _CPU_ONLY,
    "train_epoch: swap: x, y = (x.to(device), y.to(device)) <-> total += train_step(model, x, y, optimizer, "
    "loss_fn) * len(x)": _CPU_ONLY,
    "train_epoch: swap: total += train_step(model, x, y, optimizer, loss_fn) * len(x) <-> count += len(x)":
        "independent statements",
    "accumulate_step: swap: optimizer.zero_grad() <-> k = len(micro_batches)": "independent statements",
    "accumulate_step: swap: k = len(micro_batches) <-> total = 0.0": "independent statements",
    "accumulate_step: swap: loss.backward() <-> total += loss.item()": "reading the loss does not depend on backward",
    "repair_train_epoch: swap: model.train() <-> running_loss, seen = (0.0, 0)": "independent statements",
    "repair_train_epoch: delete: inputs, targets = (inputs.to(device), targets.to(device))": _CPU_ONLY,
    "repair_train_epoch: swap: inputs, targets = (inputs.to(device), targets.to(device)) <-> "
    "optimizer.zero_grad()": "independent statements",
    "repair_train_epoch: swap: optimizer.zero_grad() <-> outputs = model(inputs)":
        "gradients are still cleared before backward",
    "repair_train_epoch: swap: optimizer.step() <-> running_loss += loss.item() * len(inputs)":
        "the loss was computed before the step either way",
    "repair_train_epoch: swap: running_loss += loss.item() * len(inputs) <-> seen += len(inputs)":
        "independent statements",
}
