"""Held-out cases for exercise 04's ``predict_trace``, written before its checks: wrong predictions a learner
would make (each a misconception about one owner) and right answers written other ways.

``HELD_OUT`` names the wrong predictions kept out of the checks' tuning: :func:`measure` reports them apart.
Run ``python -m autograder.dev.predict_redteam`` to see which wrong predictions lose points in which cells and
whether every right answer keeps full marks.
"""

from __future__ import annotations

SOLUTION = '''def predict_trace(start, body):
    held = set(start["held"])
    grad = dict(start["grad"])
    buf = {n: "nonzero" if n in start["momentum"] else None for n in grad}
    graph, rows = "none", []
    for statement in body:
        momentum = {n: "absent" if buf[n] is None else "kept" for n in grad}
        changed = {n: False for n in grad}
        if statement == "optimizer.zero_grad()":
            for n in held:
                grad[n] = "none"
        elif statement == "optimizer.zero_grad(set_to_none=False)":
            for n in held:
                if grad[n] != "none":
                    grad[n] = "zero"
        elif statement == "model.zero_grad()":
            grad = {n: "none" for n in grad}
        elif statement == "loss = loss_fn(model(x), y)":
            graph = "alive"
        elif statement == "loss.backward()":
            grad = {n: "nonzero" for n in grad}
            graph = "freed"
        elif statement == "optimizer.step()":
            stepped = [n for n in grad if n in held and grad[n] != "none"]
            for n in stepped:
                new = "zero" if grad[n] == "zero" and buf[n] in (None, "zero") else "nonzero"
                momentum[n] = "created" if buf[n] is None else "kept" if new == buf[n] == "zero" else "updated"
                buf[n] = new
                changed[n] = new == "nonzero"
            if stepped and graph == "alive":
                graph = "unusable"
        rows.append({"graph": graph, "grad": dict(grad), "momentum": momentum, "changed": changed})
    return rows
'''


def _edit(*edits):
    source = SOLUTION
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new, 1)
    return source


#: Wrong predictions, each one misconception: {name: source}.
WRONG = {
    # optimizer.zero_grad() clears every parameter, held or not
    "zero_grad_clears_every_parameter": _edit(('            for n in held:\n                grad[n] = "none"',
                                               '            for n in grad:\n                grad[n] = "none"')),
    # set_to_none=False makes zeros even where .grad was None
    "zero_fill_makes_zeros_from_none": _edit(('                if grad[n] != "none":\n                    grad[n] = "zero"',
                                              '                grad[n] = "zero"')),
    # zero_grad() leaves zeros (PyTorch before 2.0)
    "zero_grad_leaves_zeros": _edit(('            for n in held:\n                grad[n] = "none"',
                                     '            for n in held:\n                grad[n] = "zero"')),
    # backward() reaches only the tensors the optimizer holds
    "backward_fills_held_only": _edit(('grad = {n: "nonzero" for n in grad}',
                                       'grad = {n: "nonzero" if n in held else grad[n] for n in grad}')),
    # momentum keeps rolling at step() for a held tensor whose .grad is None
    "momentum_rolls_without_a_grad": _edit(('stepped = [n for n in grad if n in held and grad[n] != "none"]',
                                            'stepped = [n for n in grad if n in held]')),
    # a step() of zeros writes nothing, so the graph stays alive
    "step_of_zeros_keeps_the_graph": _edit(('if stepped and graph == "alive":',
                                            'if any(changed.values()) and graph == "alive":')),
    # step() makes a buffer for every parameter with a .grad, held or not
    "buffers_for_tensors_not_held": _edit(('stepped = [n for n in grad if n in held and grad[n] != "none"]',
                                           'stepped = [n for n in grad if grad[n] != "none"]')),
    # the first step() "updates" a buffer it creates
    "first_step_updates_the_buffer": _edit(('momentum[n] = "created" if buf[n] is None else',
                                            'momentum[n] = "updated" if buf[n] is None else')),
    # zero_grad() also drops the momentum buffers
    "zero_grad_drops_the_buffers": _edit(('            for n in held:\n                grad[n] = "none"',
                                          '            for n in held:\n                grad[n] = "none"\n'
                                          '                buf[n] = None')),
    # any step() spoils a graph, freed or not
    "step_spoils_a_freed_graph": _edit(('if stepped and graph == "alive":', 'if stepped and graph != "none":')),
    # a forward pass cannot revive a freed or unusable graph
    "forward_does_not_replace_the_graph": _edit(('            graph = "alive"',
                                                 '            graph = "alive" if graph == "none" else graph')),
    # every parameter step() touches moves, zeros or not
    "step_always_moves": _edit(('changed[n] = new == "nonzero"', 'changed[n] = True')),
    # a buffer step() rewrote is "updated" even when the rewrite left its zeros as they were
    "buffer_updated_when_written": _edit(('else "kept" if new == buf[n] == "zero" else "updated"',
                                          'else "updated"')),
    # backward() leaves no graph at all
    "backward_leaves_no_graph": _edit(('            graph = "freed"', '            graph = "none"')),
    # model.zero_grad() clears only what the optimizer holds
    "model_zero_grad_clears_held_only": _edit(('grad = {n: "none" for n in grad}',
                                               'grad = {n: "none" if n in held else grad[n] for n in grad}')),
    # step() consumes the gradients
    "step_clears_the_grads": _edit(('                changed[n] = new == "nonzero"\n',
                                    '                changed[n] = new == "nonzero"\n                grad[n] = "none"\n')),
    # build the model and run it: a trace, not a prediction
    "runs_a_model_to_predict": '''import torch
from collections import OrderedDict
from torch import nn


def predict_trace(start, body):
    # build the section's network, put it in the described start, run the body and read every owner
    model = nn.Sequential(OrderedDict(hidden=nn.Linear(3, 4), act=nn.Tanh(), out=nn.Linear(4, 1)))
    params = dict(model.named_parameters())
    optimizer = torch.optim.SGD([params[n] for n in start["held"]], lr=0.1, momentum=0.9)
    x, y, loss_fn = torch.randn(6, 3), torch.ones(6, 1), nn.BCEWithLogitsLoss()
    if start["momentum"]:
        loss_fn(model(x), y).backward()
        optimizer.step()
    for n, p in params.items():
        p.grad = None if start["grad"][n] == "none" else p.grad
    scope, graph, rows = {"model": model, "optimizer": optimizer, "loss_fn": loss_fn, "x": x, "y": y}, "none", []
    for statement in body:
        values = {n: p.detach().clone() for n, p in params.items()}
        bufs = {n: optimizer.state.get(p, {}).get("momentum_buffer") for n, p in params.items()}
        bufs = {n: None if b is None else b.clone() for n, b in bufs.items()}
        wrote = statement == "optimizer.step()" and any(params[n].grad is not None for n in start["held"])
        exec(statement, {}, scope)
        graph = {"loss = loss_fn(model(x), y)": "alive", "loss.backward()": "freed"}.get(statement, graph)
        graph = "unusable" if wrote and graph == "alive" else graph
        after = {n: optimizer.state.get(p, {}).get("momentum_buffer") for n, p in params.items()}
        rows.append({"graph": graph,
                     "grad": {n: "none" if p.grad is None else "nonzero" if p.grad.any() else "zero"
                              for n, p in params.items()},
                     "momentum": {n: "absent" if after[n] is None else "created" if bufs[n] is None
                                  else "kept" if torch.equal(bufs[n], after[n]) else "updated" for n in params},
                     "changed": {n: not torch.equal(values[n], p) for n, p in params.items()}})
    return rows
''',
}

#: Wrong predictions kept out of the checks' tuning (measured apart).
HELD_OUT = ("momentum_rolls_without_a_grad", "first_step_updates_the_buffer", "forward_does_not_replace_the_graph",
            "buffer_updated_when_written", "model_zero_grad_clears_held_only")

#: Right answers written other ways: each must keep full marks.
RIGHT = {
    "the_solution": SOLUTION,
    "a_class_per_owner": '''class Owners:
    def __init__(self, start):
        self.held = set(start["held"])
        self.grad = dict(start["grad"])
        self.buffer = {n: ("nonzero" if n in start["momentum"] else None) for n in self.grad}
        self.graph = "none"

    def step(self):
        report = {}
        wrote = False
        for n in self.grad:
            if n not in self.held or self.grad[n] == "none":
                continue
            wrote = True
            old = self.buffer[n]
            new = "nonzero" if self.grad[n] == "nonzero" or old == "nonzero" else "zero"
            self.buffer[n] = new
            report[n] = ("created" if old is None else "kept" if old == new == "zero" else "updated", new != "zero")
        if wrote and self.graph == "alive":
            self.graph = "unusable"
        return report


def predict_trace(start, body):
    o = Owners(start)
    out = []
    for s in body:
        report = {}
        if s.startswith("optimizer.zero_grad("):
            for n in o.held:
                if "False" not in s:
                    o.grad[n] = "none"
                elif o.grad[n] == "nonzero":
                    o.grad[n] = "zero"
        elif s == "model.zero_grad()":
            o.grad = dict.fromkeys(o.grad, "none")
        elif s.startswith("loss ="):
            o.graph = "alive"
        elif s == "loss.backward()":
            o.grad, o.graph = dict.fromkeys(o.grad, "nonzero"), "freed"
        else:
            report = o.step()
        out.append({
            "changed": {n: report.get(n, ("", False))[1] for n in o.grad},
            "momentum": {n: report[n][0] if n in report else ("absent" if o.buffer[n] is None else "kept")
                         for n in o.grad},
            "grad": {n: o.grad[n] for n in o.grad},
            "graph": o.graph,
        })
    return out
''',
    "numbers_for_the_buffers": '''def predict_trace(start, body):
    # a stand-in number per .grad and buffer: 0.0 for zeros, 1.0 for "some gradient", None for no tensor
    grad = {n: {"none": None, "zero": 0.0, "nonzero": 1.0}[s] for n, s in start["grad"].items()}
    buf = {n: (1.0 if n in start["momentum"] else None) for n in grad}
    held, graph, rows = start["held"], "none", []
    for s in body:
        mom = {n: "absent" if buf[n] is None else "kept" for n in grad}
        moved = {n: False for n in grad}
        if s == "optimizer.zero_grad()":
            grad.update({n: None for n in held})
        elif s == "optimizer.zero_grad(set_to_none=False)":
            grad.update({n: 0.0 for n in held if grad[n] is not None})
        elif s == "model.zero_grad()":
            grad = {n: None for n in grad}
        elif s == "loss = loss_fn(model(x), y)":
            graph = "alive"
        elif s == "loss.backward()":
            grad = {n: 1.0 + (g or 0.0) for n, g in grad.items()}
            graph = "freed"
        elif s == "optimizer.step()":
            todo = [n for n in held if grad[n] is not None]
            for n in todo:
                new = grad[n] if buf[n] is None else 0.9 * buf[n] + grad[n]
                mom[n] = "created" if buf[n] is None else ("kept" if new == buf[n] else "updated")
                buf[n] = new
                moved[n] = new != 0.0
            graph = "unusable" if todo and graph == "alive" else graph
        state = {n: "none" if g is None else "zero" if g == 0.0 else "nonzero" for n, g in grad.items()}
        rows.append(dict(graph=graph, grad=state, momentum=mom, changed=moved))
    return rows
''',
    "a_table_of_statements": '''def _zero_grad(s, held):
    s["grad"].update({n: "none" for n in held})

def _zero_fill(s, held):
    s["grad"].update({n: "zero" for n in held if s["grad"][n] != "none"})

def _model_zero_grad(s, held):
    s["grad"] = {n: "none" for n in s["grad"]}

def _forward(s, held):
    s["graph"] = "alive"

def _backward(s, held):
    s["grad"] = {n: "nonzero" for n in s["grad"]}
    s["graph"] = "freed"

def _step(s, held):
    live = [n for n in held if s["grad"][n] != "none"]
    for n in live:
        before = s["buf"].get(n)
        after = "zero" if s["grad"][n] == "zero" and before != "nonzero" else "nonzero"
        s["mom"][n] = "created" if before is None else "updated" if (before, after) != ("zero", "zero") else "kept"
        s["buf"][n] = after
        s["moved"][n] = after == "nonzero"
    if live and s["graph"] == "alive":
        s["graph"] = "unusable"

RULES = {"optimizer.zero_grad()": _zero_grad, "optimizer.zero_grad(set_to_none=False)": _zero_fill,
         "model.zero_grad()": _model_zero_grad, "loss = loss_fn(model(x), y)": _forward,
         "loss.backward()": _backward, "optimizer.step()": _step}

def predict_trace(start, body):
    s = {"graph": "none", "grad": dict(start["grad"]), "buf": {n: "nonzero" for n in start["momentum"]}}
    rows = []
    for statement in body:
        s["mom"] = {n: "kept" if n in s["buf"] else "absent" for n in s["grad"]}
        s["moved"] = dict.fromkeys(s["grad"], False)
        RULES[statement](s, list(start["held"]))
        rows.append({"graph": s["graph"], "grad": dict(s["grad"]), "momentum": s["mom"], "changed": s["moved"]})
    return rows
''',
    "match_statements": '''import copy

def predict_trace(start, body):
    names = list(start["grad"])
    held = [n for n in names if n in start["held"]]
    state = {"graph": "none", "grad": copy.deepcopy(start["grad"]),
             "zeros": {n: False for n in start["momentum"]}}   # a buffer: does it hold only zeros?
    rows = []
    for statement in body:
        momentum = {n: "kept" if n in state["zeros"] else "absent" for n in names}
        changed = {n: False for n in names}
        match statement:
            case "optimizer.zero_grad()":
                for n in held:
                    state["grad"][n] = "none"
            case "optimizer.zero_grad(set_to_none=False)":
                for n in held:
                    state["grad"][n] = "none" if state["grad"][n] == "none" else "zero"
            case "model.zero_grad()":
                for n in names:
                    state["grad"][n] = "none"
            case "loss = loss_fn(model(x), y)":
                state["graph"] = "alive"
            case "loss.backward()":
                for n in names:
                    state["grad"][n] = "nonzero"
                state["graph"] = "freed"
            case "optimizer.step()":
                wrote = False
                for n in held:
                    if state["grad"][n] == "none":
                        continue
                    wrote = True
                    zeros = state["grad"][n] == "zero" and state["zeros"].get(n, True)
                    if n not in state["zeros"]:
                        momentum[n] = "created"
                    elif zeros and state["zeros"][n]:
                        momentum[n] = "kept"
                    else:
                        momentum[n] = "updated"
                    state["zeros"][n] = zeros
                    changed[n] = not zeros
                if wrote and state["graph"] == "alive":
                    state["graph"] = "unusable"
        rows.append(copy.deepcopy({"graph": state["graph"], "grad": state["grad"], "momentum": momentum,
                                   "changed": changed}))
    return rows
''',
    "recursive": '''def predict_trace(start, body):
    names = list(start["grad"])
    bufs = {n: "nonzero" for n in start["momentum"]}
    return _rows(set(start["held"]), names, "none", dict(start["grad"]), bufs, list(body))


def _rows(held, names, graph, grad, bufs, body):
    if not body:
        return []
    statement, rest = body[0], body[1:]
    grad, bufs = dict(grad), dict(bufs)
    momentum = {n: "kept" if n in bufs else "absent" for n in names}
    changed = dict.fromkeys(names, False)
    if statement == "optimizer.step()":
        touched = [n for n in names if n in held and grad[n] != "none"]
        for n in touched:
            old = bufs.get(n)
            new = "nonzero" if "nonzero" in (old, grad[n]) else "zero"
            momentum[n] = "created" if old is None else "updated" if new == "nonzero" else "kept"
            bufs[n], changed[n] = new, new == "nonzero"
        graph = "unusable" if graph == "alive" and touched else graph
    elif statement == "loss.backward()":
        graph, grad = "freed", dict.fromkeys(names, "nonzero")
    elif statement.startswith("loss ="):
        graph = "alive"
    elif statement == "model.zero_grad()":
        grad = dict.fromkeys(names, "none")
    elif statement == "optimizer.zero_grad()":
        grad.update(dict.fromkeys(held, "none"))
    else:
        grad.update({n: "zero" for n in held if grad[n] != "none"})
    row = {"graph": graph, "grad": grad, "momentum": momentum, "changed": changed}
    return [row] + _rows(held, names, graph, grad, bufs, rest)
''',
}


def measure(names=None) -> dict:
    """``{name: {cell: (score, full, code)}}`` for each wrong and right answer, judged in process by exercise 04's
    predict_trace cells (visible and hidden), with the solution's trace_batch in place."""
    from pathlib import Path

    from . import nbtools

    root = Path(__file__).resolve().parents[2]
    nb = nbtools.read(root / "solutions" / "04-five-line-step" / "04-five-line-step.ipynb")
    cells = [t for t in nbtools.test_cells(nb) if t.startswith("test_predict_trace")]
    out = {}
    for name, source in {**WRONG, **RIGHT}.items():
        if names is not None and name not in names:
            continue
        scores = nbtools.run_in_process(nb, {"predict_trace": source}, only=cells)
        out[name] = {c: (scores[c][0], scores[c][1], scores[c][3]) for c in cells}
    return out


def report(results: dict) -> str:
    lines = []
    for group, names in (("wrong (tuned)", [n for n in WRONG if n not in HELD_OUT]), ("wrong (held out)", HELD_OUT),
                         ("right", list(RIGHT))):
        judged = [n for n in names if n in results]
        if group.startswith("wrong"):
            caught = [n for n in judged if any(s < f for s, f, _ in results[n].values())]
        else:
            caught = [n for n in judged if all(s == f for s, f, _ in results[n].values())]
        lines.append(f"{group}: {len(caught)}/{len(judged)} " + ("lose points" if group.startswith("wrong")
                                                                 else "keep full marks"))
        for n in judged:
            lines.append(f"  {n}: " + ", ".join(f"{c[len('test_predict_trace_'):]}={s:g}/{f:g}"
                                                + (f" ({code})" if code else "")
                                                for c, (s, f, code) in results[n].items()))
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(measure()))
