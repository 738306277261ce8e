"""What every owner holds after one statement of a training step, in one vocabulary.

Lesson 04's owner table shows a step in these words, and exercise 04's graded trace (``trace_batch``) is
judged in them: a row says, after one statement, what ``loss`` holds, whether its graph can still be walked,
each parameter's ``.grad``, each parameter's momentum buffer, which parameters changed and by how much one
watched entry moved.  :func:`snapshot` reads the owners at one moment; :func:`row` compares two moments.

Reading autograd's side needs a look inside: PyTorch has no public way to ask whether a graph was freed or
whether a tensor it saved was changed in place since.  :func:`graph_state` touches every value the graph
saved (the private ``_saved_*`` attributes), which raises in exactly those two cases.  It is for looking and
grading, not for code to rely on.
"""

from __future__ import annotations

import torch
from torch import nn

from .ledger import grad_state

#: Autograd's column: no graph behind ``loss`` (or no ``loss`` yet); a graph ``backward()`` can walk; one it
#: walked and freed; one it cannot walk because a tensor the graph saved was changed in place since.
GRAPH_STATES = ("none", "alive", "freed", "unusable")
#: Each parameter's ``.grad`` (module 02's words).
GRAD_STATES = ("none", "zero", "nonzero")
#: Each parameter's momentum buffer: none yet; made by this statement; rewritten by this statement; held and
#: left as it was.
MOMENTUM_STATES = ("absent", "created", "updated", "kept")
#: A row's keys, in the order the lesson's table shows them.
COLUMNS = ("loss", "graph", "grad", "momentum", "changed", "delta")

_FREED = "backward through the graph a second time"
_IN_PLACE = "modified by an inplace operation"


def graph_state(loss) -> str:
    """One of :data:`GRAPH_STATES` for the graph behind ``loss`` (a tensor, or None before any forward pass)."""
    if not isinstance(loss, torch.Tensor) or loss.grad_fn is None:
        return "none"
    changed, seen, todo = False, set(), [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            try:
                getattr(node, attr)
            except RuntimeError as error:
                if _FREED in str(error):
                    return "freed"
                changed = changed or _IN_PLACE in str(error)
        todo.extend(fn for fn, _ in node.next_functions)
    return "unusable" if changed else "alive"


def _buffer(optimizer, p):
    return optimizer.state.get(p, {}).get("momentum_buffer") if optimizer is not None else None


def snapshot(model: nn.Module, optimizer, loss, graph_of=None) -> dict:
    """Every owner at this moment: ``loss``'s value and graph (or the graph behind ``graph_of``, the newest tensor
    of a step whose loss is not computed yet), and per parameter its ``.grad``, its momentum buffer (a copy, with
    the buffer's version counter) and its values (a copy)."""
    params = dict(model.named_parameters())
    buffers = {}
    for name, p in params.items():
        b = _buffer(optimizer, p)
        buffers[name] = None if b is None else (b.detach().clone(), b._version, id(b))
    return {"loss": loss.item() if isinstance(loss, torch.Tensor) else None,
            "graph": graph_state(loss if graph_of is None else graph_of),
            "grad": {name: grad_state(p) for name, p in params.items()},
            "buffers": buffers,
            "values": {name: p.detach().clone() for name, p in params.items()}}


def _momentum(before, after) -> str:
    """The exercise's words for a buffer: "updated" when this statement changed its values (a step() that adds
    momentum × zeros + zeros writes, yet changes nothing: "kept")."""
    if after is None:
        return "absent"
    if before is None:
        return "created"
    return "kept" if torch.equal(before[0], after[0]) else "updated"


def row(before: dict, after: dict, watch: tuple[str, tuple[int, ...]]) -> dict:
    """The graded row of one statement, from the snapshots taken before and after it; ``watch`` names the
    entry whose change ``delta`` reports: ``("out.weight", (0, 0))``."""
    name, index = watch
    return {"loss": after["loss"],
            "graph": after["graph"],
            "grad": dict(after["grad"]),
            "momentum": {n: _momentum(before["buffers"][n], b) for n, b in after["buffers"].items()},
            "changed": {n: not torch.equal(before["values"][n], v) for n, v in after["values"].items()},
            "delta": float(after["values"][name][index] - before["values"][name][index])}


def rows(snaps: list[dict], watch: tuple[str, tuple[int, ...]]) -> list[dict]:
    """One row per statement, from a snapshot before the first and one after each."""
    return [row(a, b, watch) for a, b in zip(snaps, snaps[1:])]


#: The statements a traced body may hold, as Python source, run with ``model``, ``optimizer``, ``loss_fn``,
#: ``x``, ``y`` and ``loss`` in scope.
STATEMENTS = (
    "optimizer.zero_grad()",
    "optimizer.zero_grad(set_to_none=False)",
    "model.zero_grad()",
    "loss = loss_fn(model(x), y)",
    "loss.backward()",
    "optimizer.step()",
)


def run(model: nn.Module, optimizer, loss_fn, x, y, body, watch=("out.weight", (0, 0))) -> list[dict]:
    """Run the statements of ``body`` (each one of :data:`STATEMENTS`) once, in order, for real, and return
    what every owner holds after each one (:func:`row`)."""
    unknown = [s for s in body if s not in STATEMENTS]
    if unknown:
        raise ValueError(f"not a statement of a traced step: {unknown[0]!r}; the statements are {STATEMENTS}")
    scope = {"model": model, "optimizer": optimizer, "loss_fn": loss_fn, "x": x, "y": y, "loss": None}
    snaps = [snapshot(model, optimizer, None)]
    for statement in body:
        exec(statement, {}, scope)  # noqa: S102 - one of the course's own statements above
        snaps.append(snapshot(model, optimizer, scope["loss"]))
    return rows(snaps, watch)


# --------------------------------------------------------------------------
# The same columns predicted from the rules alone (exercise 04's predict_trace), with no model to run


def predict(start: dict, body) -> list[dict]:
    """The symbolic columns (graph, grad, momentum, changed) after each statement of ``body``, from the rules of
    lesson 04 alone.  ``start`` describes the objects before the first statement: ``{"held": [names the optimizer
    holds], "grad": {name: one of GRAD_STATES} for every parameter, "momentum": [names with a momentum buffer]}``
    (a buffer at the start holds an earlier step's gradients, not zeros).  No tensor is made."""
    held = set(start["held"])
    grad = dict(start["grad"])
    buffer = {n: ("nonzero" if n in start["momentum"] else None) for n in grad}  # None, "zero" or "nonzero"
    graph, out = "none", []
    for statement in body:
        momentum = {n: "absent" if buffer[n] is None else "kept" for n in grad}
        changed = dict.fromkeys(grad, False)
        if statement == STATEMENTS[0]:  # optimizer.zero_grad(): None for the tensors it holds
            grad.update({n: "none" for n in held})
        elif statement == STATEMENTS[1]:  # set_to_none=False: zeros into an existing .grad it holds
            grad.update({n: "zero" for n in held if grad[n] != "none"})
        elif statement == STATEMENTS[2]:  # model.zero_grad(): None for every parameter
            grad = dict.fromkeys(grad, "none")
        elif statement == STATEMENTS[3]:  # a forward pass records a new graph
            graph = "alive"
        elif statement == STATEMENTS[4]:  # backward() adds a gradient to every parameter, walks and frees the graph
            grad, graph = dict.fromkeys(grad, "nonzero"), "freed"
        elif statement == STATEMENTS[5]:  # step(): every tensor it holds whose .grad is not None
            stepped = [n for n in grad if n in held and grad[n] != "none"]
            for n in stepped:
                new = "nonzero" if "nonzero" in (grad[n], buffer[n]) else "zero"  # momentum × buffer + grad
                momentum[n] = "created" if buffer[n] is None else "kept" if new == buffer[n] == "zero" else "updated"
                buffer[n], changed[n] = new, new == "nonzero"  # the parameter moves by lr × buffer
            if stepped and graph == "alive":  # an in-place write (of zeros too) into weights the graph saved
                graph = "unusable"
        else:
            raise ValueError(f"not a statement of a traced step: {statement!r}; the statements are {STATEMENTS}")
        out.append({"graph": graph, "grad": dict(grad), "momentum": momentum, "changed": changed})
    return out
