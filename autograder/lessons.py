"""Instruments the lessons call in one line, so that a lesson shows the idea and not the plumbing.

Public PyTorch API only: module forward pre-hooks, tensor gradient hooks, post-accumulate gradient hooks and
the optimizer's step hooks.  Every hook is removed when its ``with`` block ends, even when the block raised.
"""

from __future__ import annotations

import math
from functools import partial

import torch
from torch import nn


class RunProbe:
    """What each owner did while a ``with`` block ran, with the figures a diagnosis reads.

    One event per forward of ``model`` (its mode, autograd's switch, the input's shape, mean and standard
    deviation), per backward pass (the parameters it reached, how many of them already held a non-zero
    ``.grad``, the norm of the gradient as ``step()`` will find it) and per ``optimizer.step()`` (the learning
    rate, the norm ``step()`` read, whether something in between scaled it down, and the size of the update
    relative to the weights).  ``table()`` prints them; ``events`` holds them as dictionaries.
    """

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer):
        self.model, self.optimizer = model, optimizer
        self.trainable = {name: p for name, p in model.named_parameters() if p.requires_grad}
        self.events: list[dict] = []
        self._handles: list = []

    def __enter__(self) -> RunProbe:
        self._handles.append(self.model.register_forward_pre_hook(self._forward))
        for name, p in self.trainable.items():
            self._handles.append(p.register_hook(partial(self._grad_arrives, name, p)))  # before .grad is written
            self._handles.append(p.register_post_accumulate_grad_hook(self._grad_written))  # after
        self._handles.append(self.optimizer.register_step_pre_hook(self._step_starts))
        self._handles.append(self.optimizer.register_step_post_hook(self._step_ends))
        return self

    def __exit__(self, *exc_info) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    # -- hooks -----------------------------------------------------------------
    def _forward(self, module, args):
        x = args[0]
        stats = {"mean": x.float().mean().item(), "std": x.float().std().item()} if x.numel() > 1 else {}
        self.events.append({"event": "forward", "mode": "train" if module.training else "eval",
                            "grad": torch.is_grad_enabled(), "shape": list(x.shape), **stats})

    def _grad_arrives(self, name, p, grad):
        if not self.events or self.events[-1]["event"] != "backward":
            self.events.append({"event": "backward", "reached": [], "stale": 0, "sq_norm": 0.0})
        self.events[-1]["reached"].append(name)
        self.events[-1]["stale"] += int(p.grad is not None and bool(p.grad.any()))

    def _grad_written(self, p):
        self.events[-1]["sq_norm"] += p.grad.pow(2).sum().item()

    def _step_starts(self, optimizer, args, kwargs):
        self._held = [p for group in optimizer.param_groups for p in group["params"]]
        self._before = [p.detach().clone() for p in self._held]
        self._read = math.sqrt(sum(p.grad.pow(2).sum().item() for p in self._held if p.grad is not None))

    def _step_ends(self, optimizer, args, kwargs):
        backward = next((e for e in reversed(self.events) if e["event"] == "backward"), None)
        written = math.sqrt(backward["sq_norm"]) if backward else self._read
        moved = math.sqrt(sum((p.detach() - b).pow(2).sum().item() for p, b in zip(self._held, self._before)))
        size = math.sqrt(sum(b.pow(2).sum().item() for b in self._before)) or 1.0
        self.events.append({"event": "step", "lr": optimizer.param_groups[0]["lr"], "read": self._read,
                            "clipped": self._read < written * (1 - 1e-4), "update": moved / size})

    # -- display ---------------------------------------------------------------
    def lines(self) -> list[str]:
        out, steps = [], 0
        for i, e in enumerate(self.events):
            if e["event"] == "forward":
                text = (f"mode={e['mode']:5s} grad={'on' if e['grad'] else 'off':3s} input {e['shape']}"
                        + (f"  mean {e['mean']:+.2f}  std {e['std']:.2f}" if "mean" in e else ""))
            elif e["event"] == "backward":
                missing = [n for n in self.trainable if n not in e["reached"]]
                text = (f"reached {len(e['reached'])}/{len(self.trainable)} parameters"
                        f"{' (not ' + ', '.join(missing) + ')' if missing else ''}"
                        f" | .grad already held in {e['stale']} | |grad| {math.sqrt(e['sq_norm']):.3g}")
            else:
                steps += 1
                text = (f"#{steps:<3d} lr {e['lr']:.2g} | read |grad| {e['read']:.3g}"
                        f"{' (clipped)' if e['clipped'] else ''} | update/weight {e['update']:.1e}")
            out.append(f"{i:3d}  {e['event']:8s}  {text}")
        return out

    def table(self) -> None:
        print("\n".join(self.lines()) if self.events else "(nothing recorded)")


def show_moved(moved: dict, title: str) -> None:
    """Bars of how far each parameter moved in one step (grey and labelled when it did not move), then a table
    of which parameters held a ``.grad``. ``moved``: ``{name: (mean |Δw|, got a gradient)}``."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    names = list(moved)
    sizes = [moved[n][0] for n in names]
    fig, ax = plt.subplots(figsize=(6.5, 2.8))
    ax.barh(names, sizes, color=["tab:blue" if m > 0 else "lightgray" for m in sizes])
    ax.invert_yaxis()  # the first layer on top
    top = max(max(sizes), 1e-3)
    for i, m in enumerate(sizes):
        if m == 0:  # a zero-width bar is invisible: label it
            ax.text(top * 0.02, i, "did not move", va="center", fontsize=8)
    ax.set_xlim(0, top * 1.15)
    ax.set_xlabel("mean |Δw| after one optimizer step")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    display(fig)
    plt.close(fig)  # shown once, inside the output area
    for n in names:
        print(f"{n:14s} .grad = {'tensor' if moved[n][1] else 'None':6s} |Δw| = {moved[n][0]:.5f}")


# -- lesson 04: one step, owner by owner ------------------------------------------


def graph_state(t) -> str:
    """Autograd's side of a tensor: nothing yet, no graph, a graph ready for ``backward()``, or one it freed.

    PyTorch has no public way to ask whether ``backward()`` has freed a graph; this reads the node's saved
    tensors (the ``_saved_*`` attributes, which raise once freed) and is meant for looking, not for code to
    rely on."""
    if t is None:
        return "nothing recorded for this step yet"
    if t.grad_fn is None:
        return "no graph: the tensor has no grad_fn"
    node = type(t.grad_fn).__name__
    for attr in dir(t.grad_fn):
        if attr.startswith("_saved_"):
            try:
                getattr(t.grad_fn, attr)
            except RuntimeError:
                return f"{node}: freed by backward()"
    return f"{node}: recorded, ready for backward()"


def step_snapshot(model: nn.Module, optimizer, start: dict, newest) -> dict:
    """What each owner holds right now: the module's mode, autograd's graph behind ``newest`` (the newest
    tensor of the step, or None), the optimizer's state, and per parameter its value (moved since ``start``?),
    its ``.grad`` and what Adam keeps for it."""
    from .ledger import grad_state

    params = {}
    for name, p in model.named_parameters():
        moved = (p.detach() - start[name]).norm().item()
        state = grad_state(p)
        if p.grad is not None:
            state += f" ‖g‖={p.grad.norm().item():.4f}"
        kept = optimizer.state.get(p, {})
        adam = f"step {int(kept['step'])}, ‖m‖={kept['exp_avg'].norm().item():.4f}" if "exp_avg" in kept \
            else "no state yet"
        params[name] = {"value (module)": f"moved ‖Δ‖={moved:.4f}" if moved > 0 else "as at the start of the step",
                        ".grad (parameter)": state, "Adam state (optimizer)": adam}
    return {"mode": "train" if model.training else "eval", "graph": graph_state(newest),
            "optimizer": f"state for {len(optimizer.state)} of {len(params)} parameters"
                         + "".join(f", step {int(st['step'])}" for st in list(optimizer.state.values())[:1]),
            "params": params}


def html_table(rows: list[dict], marked=()) -> str:
    """Rows of dicts with the same keys as an HTML table; each ``(row, key)`` in ``marked`` is highlighted."""
    import html

    keys = list(rows[0])
    head = "".join(f"<th style='text-align:left'>{html.escape(k)}</th>" for k in keys)
    body = ""
    for i, row in enumerate(rows):
        cells = "".join(f"<td style='text-align:left; background:{'#fff8c5' if (i, k) in marked else 'transparent'}'>"
                        f"{html.escape(str(row[k]))}</td>" for k in keys)
        body += f"<tr>{cells}</tr>"
    return f"<table><tr>{head}</tr>{body}</table>"


def _compact(snap: dict) -> dict:
    rows = snap["params"].values()
    grads = [r[".grad (parameter)"].split()[0] for r in rows]
    moved = sum(r["value (module)"].startswith("moved") for r in rows)
    return {"mode": snap["mode"], "graph (autograd)": snap["graph"],
            ".grad (parameters)": ", ".join(f"{s} ×{grads.count(s)}" for s in dict.fromkeys(grads)),
            "optimizer state": snap["optimizer"],
            "values (module)": f"{moved} of {len(grads)} moved" if moved else "as at the start"}


def event_table(ledger, snaps: list[dict], lines: list[str]) -> str:
    """One row per line of a traced step: the line, the ledger's event, every owner's state after it, with what
    the line changed highlighted (HTML)."""
    rows, marked = [], set()
    for i, (line, event, snap) in enumerate(zip(lines, ledger.events, snaps)):
        rows.append({"#": i, "line": line, "event": event.kind, **_compact(snap)})
        if i > 0:
            marked |= {(i, k) for k, v in rows[i].items()
                       if k not in ("#", "line", "event") and v != rows[i - 1][k]}
    return html_table(rows, marked)


_OWNER_COLUMNS = ["value (module)", ".grad (parameter)", "Adam state (optimizer)"]


def event_readout(trace: tuple, lines: list[str], i: int) -> str:
    """One moment of a traced step ``(ledger, snaps)`` as HTML: the listing with line ``i`` marked, the ledger's
    event, and every owner's state per parameter with what that line changed highlighted."""
    import html

    ledger, snaps = trace
    now, before = snaps[i], snaps[max(i - 1, 0)]
    listing = "".join(f"<div style='font-family:monospace; {'font-weight:bold' if j == i else 'color:#888'}'>"
                      f"{'▶' if j == i else '&nbsp;'} {html.escape(line)}</div>" for j, line in enumerate(lines))
    event = ledger.events[i]
    header = (f"<p><b>ledger event {i}: {event.kind}</b> (owner: {html.escape(event.owner)}) — "
              f"{html.escape(event.summary())}</p>")
    owners = [{"owner": "module", "state": f"mode = {now['mode']}"}, {"owner": "autograd", "state": now["graph"]},
              {"owner": "optimizer", "state": now["optimizer"]}]
    changed = {(r, "state") for r, k in enumerate(["mode", "graph", "optimizer"]) if now[k] != before[k]}
    rows, marked = [], set()
    for r, (name, cols) in enumerate(now["params"].items()):
        rows.append({"parameter": name, **cols})
        marked |= {(r, k) for k in _OWNER_COLUMNS if cols[k] != before["params"][name][k]}
    return listing + header + html_table(owners, changed) + "<br>" + html_table(rows, marked)


def step_explorer(traces: dict, lines: list[str]):
    """Buttons to pick a traced step (``{label: (ledger, snaps)}``) and a slider to pick its event; the readout
    only looks up what was recorded. Returns the widget (display it)."""
    import ipywidgets as widgets

    picker = widgets.ToggleButtons(options=list(traces), value=next(iter(traces)))
    slider = widgets.IntSlider(value=0, min=0, max=len(lines) - 1, step=1, description="event")
    readout = widgets.HTML()

    def update(change=None):
        readout.value = event_readout(traces[picker.value], lines, slider.value)

    picker.observe(update, names="value")
    slider.observe(update, names="value")
    update()
    return widgets.VBox([picker, slider, readout])


def confusion(y_true: torch.Tensor, y_pred: torch.Tensor, num_classes: int = 10) -> torch.Tensor:
    """``counts[i, j]``: how many examples of class ``i`` were predicted as ``j`` (one ``bincount``)."""
    flat = y_true.cpu() * num_classes + y_pred.cpu()
    return torch.bincount(flat, minlength=num_classes ** 2).reshape(num_classes, num_classes)


def draw_confusion(ax, counts: torch.Tensor, title: str) -> None:
    """A confusion matrix on a matplotlib axis, each non-zero count written in its cell."""
    ax.imshow(counts, cmap="Blues")
    for i in range(counts.shape[0]):
        for j in range(counts.shape[1]):
            if counts[i, j]:
                dark = counts[i, j] > counts.max() / 2
                ax.text(j, i, int(counts[i, j]), ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
    ax.set_xticks(range(counts.shape[1]))
    ax.set_yticks(range(counts.shape[0]))
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title, fontsize=10)


__all__ = ["RunProbe", "confusion", "draw_confusion", "event_readout", "event_table", "graph_state", "html_table",
           "show_moved", "step_explorer", "step_snapshot"]
