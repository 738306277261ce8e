"""Instruments the lessons call in one line, so that a lesson shows the idea and not the plumbing.

Public PyTorch API only: module forward pre-hooks, tensor gradient hooks, post-accumulate gradient hooks and
the optimizer's step hooks.  Every hook is removed when its ``with`` block ends, even when the block raised.
"""

from __future__ import annotations

import math
from functools import partial

import torch
from torch import nn

from . import owners


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


# -- lesson 04: one step, owner by owner, in the words of exercise 04's graded trace (autograder.owners)

#: The entry whose change the tables report, as exercise 04's trace does.
WATCH = ("out.weight", (0, 0))


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


def _count(states: dict) -> str:
    """``{"a": "none", "b": "none"}`` as ``none ×2``."""
    values = list(states.values())
    return ", ".join(f"{s} ×{values.count(s)}" for s in dict.fromkeys(values))


def _summary(row: dict) -> dict:
    moved = [n for n, c in row["changed"].items() if c]
    return {"loss": "None" if row["loss"] is None else f"{row['loss']:.4f}", "graph": row["graph"],
            ".grad": _count(row["grad"]), "momentum": _count(row["momentum"]),
            "changed": f"{len(moved)} of {len(row['changed'])}" if moved else "none",
            f"Δ {WATCH[0]}[0, 0]": f"{row['delta']:+.5f}" if row["delta"] else "0"}


def event_table(ledger, snaps: list[dict], lines: list[str]) -> str:
    """One row per line of a traced step: the line, the ledger's event and every owner after it, in the graded
    trace's words (``snaps``: :func:`autograder.owners.snapshot` before the first line and after each), with what
    the line changed highlighted (HTML)."""
    rows, marked = [], set()
    for i, (line, event, row) in enumerate(zip(lines, ledger.events, owners.rows(snaps, WATCH))):
        rows.append({"#": i, "line": line, "event": event.kind, **_summary(row)})
        before = rows[i - 1] if i else {"momentum": "", "graph": "none", ".grad": "", "loss": "None"}
        marked |= {(i, k) for k in ("loss", "graph", ".grad") if rows[i][k] != before[k]}
        marked |= {(i, k) for k in ("momentum", "changed", f"Δ {WATCH[0]}[0, 0]")
                   if any(s in rows[i][k] for s in ("created", "updated", "of"))
                   or (k.startswith("Δ") and rows[i][k] != "0")}
    return html_table(rows, marked)


def event_readout(trace: tuple, lines: list[str], i: int) -> str:
    """One moment of a traced step ``(ledger, snaps)`` as HTML: the listing with line ``i`` marked, the ledger's
    event, and every owner's state per parameter after it, with what that line changed highlighted."""
    import html

    ledger, snaps = trace
    row = owners.row(snaps[i], snaps[i + 1], WATCH)
    listing = "".join(f"<div style='font-family:monospace; {'font-weight:bold' if j == i else 'color:#888'}'>"
                      f"{'▶' if j == i else '&nbsp;'} {html.escape(line)}</div>" for j, line in enumerate(lines))
    event = ledger.events[i]
    header = (f"<p><b>ledger event {i}: {event.kind}</b> (owner: {html.escape(event.owner)}) — "
              f"{html.escape(event.summary())}</p>")
    loss = "None" if row["loss"] is None else f"{row['loss']:.4f}"
    owners_now = [{"owner": "loss", "state": loss}, {"owner": "autograd", "state": f"graph {row['graph']}"}]
    changed = {(k, "state") for k, key in enumerate(("loss", "graph")) if snaps[i][key] != snaps[i + 1][key]}
    per_param, marked = [], set()
    for r, name in enumerate(row["grad"]):
        before = snaps[i]["grad"][name]
        per_param.append({"parameter": name, ".grad": row["grad"][name], "momentum buffer": row["momentum"][name],
                          "values": "changed" if row["changed"][name] else "as before"})
        marked |= {(r, k) for k, hit in ((".grad", row["grad"][name] != before),
                                         ("momentum buffer", row["momentum"][name] in ("created", "updated")),
                                         ("values", row["changed"][name])) if hit}
    return listing + header + html_table(owners_now, changed) + "<br>" + html_table(per_param, marked)


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


# ---- helpers of lesson 06 (its two parts)


def _finite(values) -> list[float]:
    """Plain floats, each non-finite one (``nan``, ``inf``) turned into ``nan``, which matplotlib leaves out."""
    return [float(v) if math.isfinite(float(v)) else math.nan for v in values]


def _show(fig) -> None:
    """Show a figure once, where the cell's output goes (inside a widget's output area too), then close it."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    fig.tight_layout()
    display(fig)
    plt.close(fig)


def plot_curves(curves: dict, *, title: str, xlabel: str, ylabel: str = "loss", log: bool = False,
                hline: tuple | None = None, colours=None, marker: str | None = None, ylim: tuple | None = None,
                outside: bool = False, ax=None) -> None:
    """One line per curve of ``curves`` (``{label: values}``, plotted against 1, 2, 3, ...); a non-finite value
    leaves a gap, so a run that ended in ``nan`` visibly stops.  ``hline``: ``(value, label)`` drawn dashed
    across; ``colours``: one per curve, in order; ``ylim``: the visible range of values; ``outside``: the legend
    beside the axes.  Draws on ``ax``; without one, on a figure of its own that is shown at once."""
    import matplotlib.pyplot as plt

    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(10, 4) if outside else (7, 3.2))
    colours = list(colours) if colours is not None else [None] * len(curves)
    for (label, values), colour in zip(curves.items(), colours):
        ax.plot(range(1, len(values) + 1), _finite(values), marker=marker, ms=3, lw=1.8, color=colour, label=label)
    if hline is not None:
        ax.axhline(hline[0], color="black", ls="--", lw=1, label=hline[1])
    if log:
        ax.set_yscale("log")
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    if outside:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    else:
        ax.legend(fontsize=8)
    if fig is not None:
        _show(fig)


def plot_bars(values: dict, *, title: str, ylabel: str, hline: tuple | None = None, colours=None) -> None:
    """One labelled bar per entry of ``values`` (``{label: number}``), each bar's value written on it, and an
    optional dashed reference line ``(value, label)``; shown at once."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2))
    bars = ax.bar(list(values), list(values.values()), color=colours)
    ax.bar_label(bars, fmt="%.3f")
    if hline is not None:
        ax.axhline(hline[0], color="black", ls="--", lw=1, label=hline[1])
        ax.legend(fontsize=8, loc="upper right")
    ax.set_ylim(0, max(list(values.values()) + [hline[0] if hline else 0]) * 1.15)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    _show(fig)


def _sweep_axis(ax, lrs, final, colour="tab:blue", size=70) -> None:
    """The last column of a sweep against the rate, log on both axes, non-finite runs as red crosses on top."""
    import numpy as np

    rates, final = np.asarray(lrs, dtype=float), np.asarray(final, dtype=float)
    ok = np.isfinite(final)
    top = final[ok].max() * 1.6 if ok.any() else 1.0  # the height at which non-finite runs are marked
    ax.plot(rates[ok], final[ok], "o-", color=colour, label="loss at the last step")
    ax.scatter(rates[~ok], np.full(int((~ok).sum()), top), marker="x", s=size, color="tab:red",
               label="non-finite (nan / inf)", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("learning rate (log)")
    ax.grid(True, which="both", alpha=0.3)


def plot_lr_sweep(lrs, table, rows: dict) -> None:
    """A learning-rate sweep as two pictures: the last column of ``table`` (one row per rate in ``lrs``, one
    column per step) against the rate, non-finite runs marked at the top; and whole rows of the table,
    ``rows``: ``{row index: label}``, coloured too low / good / too high in that order.  Shown at once."""
    import matplotlib.pyplot as plt
    import numpy as np

    table = np.asarray(table, dtype=float)
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    _sweep_axis(axes[0], lrs, table[:, -1])
    axes[0].set_ylabel(f"loss after {table.shape[1]} steps (log)")
    axes[0].set_title("A learning-rate sweep", fontsize=10)
    axes[0].legend(fontsize=8)
    curves = {f"lr = {lrs[row]:.3g}: {label}": table[row] for row, label in rows.items()}
    plot_curves(curves, ax=axes[1], log=True, xlabel="step", ylabel="loss (log)",
                colours=["tab:orange", "tab:blue", "tab:red"][:len(rows)],
                title="Whole rows of the table (a run that blows up leaves through the top)")
    axes[1].set_ylim(0.2, 1e3)  # a rate too high leaves through the top long before it turns nan
    _show(fig)


def draw_lr_run(curve, lr: float, lrs, final):
    """One run at ``lr`` (its loss at every step, ``nan`` included) beside the sweep it belongs to: the curve on a
    log axis, a red line at the first non-finite step, and the rate marked on the sweep.  Returns the figure."""
    import matplotlib.pyplot as plt

    curve = [float(v) for v in curve]
    dead = next((i + 1 for i, v in enumerate(curve) if not math.isfinite(v)), None)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    plot_curves({f"lr = {lr:.3g}": curve}, ax=axes[0], log=True, xlabel="step", ylabel="loss (log)",
                title=f"lr = {lr:.3g}: final loss {curve[-1]:.4g}",
                hline=(curve[0], "loss before training"))
    if dead:
        axes[0].axvline(dead, color="tab:red", lw=1.5, label=f"non-finite from step {dead}")
        axes[0].legend(fontsize=8)
    blew_up = dead or max(curve) > 1.0  # (without a non-finite step, every value is a number)
    axes[0].set_ylim(0.25, 1e3 if blew_up else 1.0)  # one scale for calm runs, one for blow-ups
    axes[0].set_xlim(0, len(curve) + 1)
    _sweep_axis(axes[1], lrs, final, colour="0.6", size=50)
    axes[1].axvline(lr, color="tab:blue", lw=2)
    axes[1].set_title("where this rate sits in the sweep", fontsize=10)
    fig.tight_layout()
    return fig


def lr_explorer(train, lrs, final, value: float = 0.1):
    """A log slider of learning rates from the smallest to the largest of ``lrs``; each move calls
    ``train(lr)`` (a fresh run: it returns the loss of every step) and redraws :func:`draw_lr_run`.  Returns the
    widget (display it)."""
    import ipywidgets as widgets
    from IPython.display import clear_output

    low, high = round(math.log10(min(lrs)), 6), round(math.log10(max(lrs)), 6)  # 1e-4 -> -4, not -3.9999...
    slider = widgets.FloatLogSlider(value=value, base=10, min=low, max=high, step=0.25, description="lr",
                                    continuous_update=False)
    out = widgets.Output()

    def draw(change=None):
        fig = draw_lr_run(train(slider.value), slider.value, lrs, final)
        with out:
            clear_output(wait=True)
            _show(fig)

    slider.observe(draw, names="value")
    draw()
    return widgets.VBox([slider, out])


def graph_nodes(value) -> int:
    """How many autograd nodes ``value`` keeps reachable through its ``grad_fn`` (following each node's
    ``next_functions``): 0 for a Python number or a tensor without a graph."""
    if not torch.is_tensor(value) or value.grad_fn is None:
        return 0
    seen, todo = set(), [value.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        todo.extend(child for child, _ in node.next_functions)
    return len(seen)


# ---- helpers of lessons 05 and 08


class _Receipt:
    """What a graph keeps in place of a tensor it saved: the tensor, and a call to its meter when it is freed."""

    def __init__(self, meter: GraphMeter, key: int, tensor: torch.Tensor):
        self.meter, self.key, self.tensor = meter, key, tensor

    def __del__(self):
        self.meter._release(self.key)


class GraphMeter:
    """Bytes of memory autograd has saved for a backward pass and not yet freed (lesson 05, section 6).

    Install it with ``torch.autograd.graph.saved_tensors_hooks(meter.pack, meter.unpack)``: autograd calls
    ``pack`` for every tensor a recorded operation saves and keeps whatever it returns instead, here a receipt
    that adds the tensor's storage to a tally and takes it off again when the graph holding it is freed.
    Parameters are left out (they stay alive whatever the graph does), and a storage saved twice (a ReLU's
    output is saved by the ReLU and by the next ``Linear``) is counted once.  Gradients are unchanged: ``unpack``
    hands the saved tensor back.
    """

    def __init__(self, model: nn.Module):
        self.param_keys = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.refs: dict[int, int] = {}                           # storage -> receipts holding it
        self.nbytes: dict[int, int] = {}                         # storage -> its size in bytes

    def pack(self, t: torch.Tensor):
        key = t.untyped_storage().data_ptr()
        if key in self.param_keys:
            return t  # a parameter: alive anyway
        self.refs[key] = self.refs.get(key, 0) + 1
        self.nbytes[key] = t.untyped_storage().nbytes()
        return _Receipt(self, key, t.detach())  # t itself would keep its own graph alive

    def unpack(self, packed):
        return packed.tensor if isinstance(packed, _Receipt) else packed

    def _release(self, key: int) -> None:
        self.refs[key] -= 1
        if self.refs[key] == 0:
            del self.refs[key], self.nbytes[key]

    def mib(self) -> float:
        """MiB held by graphs right now."""
        return sum(self.nbytes.values()) / 2**20


def draw_graph_memory(ax, retained: dict, cuda: dict | None = None) -> None:
    """Lesson 05's figure of section 6 on a matplotlib axis: ``{loop: [MiB after each batch]}`` as one line per
    loop (red, blue, green in order), each labelled with its last value; ``cuda`` (the same keys:
    ``torch.cuda.memory_allocated`` readings) adds a dotted line per loop."""
    for (how, values), colour, dy in zip(retained.items(), ("tab:red", "tab:blue", "tab:green"), (0, 6, -6)):
        seen = range(1, len(values) + 1)
        ax.plot(seen, values, color=colour, lw=2, label=how)
        ax.annotate(f"{values[-1]:.1f} MiB", (len(values), values[-1]), xytext=(6, dy),
                    textcoords="offset points", va="center", color=colour)
        if cuda is not None:
            ax.plot(seen, cuda[how], color=colour, lw=1, ls=":", label=f"{how} (cuda.memory_allocated)")
    ax.set_xlim(0, max(len(v) for v in retained.values()) + 7)  # room for the labels
    ax.set_xlabel("validation batches processed")
    ax.set_ylabel("memory held by graphs (MiB)")
    ax.set_title("A validation loop without no_grad(): loss tensors vs loss.item()", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def spread_report(net: nn.Module, spread, mode: str, grad: bool) -> dict:
    """One redraw of lesson 05's 'Try it': ``spread(net, mode, grad)`` (the logits of one input over repeated
    passes) next to the evaluation-mode value, whether the passes moved any buffer, and whether they recorded a
    graph.  It changes ``net`` exactly as the passes do: hand it a copy."""
    eval_value = spread(net, "eval", False)[0].item()  # the reference: one value in evaluation mode
    before = [b.clone() for b in net.buffers()]
    preds = spread(net, mode, grad)
    return {"eval_value": eval_value, "preds": preds.detach().cpu(), "recorded": preds.grad_fn is not None,
            "moved": any(not torch.equal(a, b) for a, b in zip(before, net.buffers()))}


def spread_explorer(bases: dict, spread, passes: int = 200):
    """Lesson 05's 'Try it': pick a network of ``bases`` (``{label: module}``, each redraw takes a fresh copy), a
    dropout rate (for a network whose dropout is on), the mode and ``torch.no_grad()``; the histogram shows
    ``spread(net, mode, grad)``'s ``passes`` logits, the dashed line the evaluation-mode value, and a line under it
    says whether the buffers moved and a graph was recorded.  Returns the widget (display it)."""
    import copy

    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    import numpy as np
    from IPython.display import clear_output, display

    layer_pick = widgets.Dropdown(options=list(bases), value=next(iter(bases)), description="layers:")
    mode_pick = widgets.ToggleButtons(options=["train", "eval"], value="train", description="mode:")
    p_slider = widgets.FloatSlider(value=0.5, min=0.0, max=0.9, step=0.1, description="dropout p:",
                                   continuous_update=False)
    no_grad_box = widgets.Checkbox(value=False, description="inside torch.no_grad()", indent=False)
    readout, figure = widgets.HTML(), widgets.Output()

    def redraw(change=None):
        net = copy.deepcopy(bases[layer_pick.value])  # the same start every time
        drops = [m for m in net.modules() if isinstance(m, nn.Dropout) and m.p > 0]
        p_slider.disabled = not drops
        for m in drops:
            m.p = p_slider.value
        found = spread_report(net, spread, mode_pick.value, not no_grad_box.value)
        preds, centre = found["preds"], found["eval_value"]
        readout.value = (f"running statistics moved: <b>{found['moved']}</b> | "
                         f"graph recorded (output has grad_fn): <b>{found['recorded']}</b>")
        with figure:
            clear_output(wait=True)
            fig, ax = plt.subplots(figsize=(7, 2.8))
            ax.hist(preds.numpy(), bins=np.linspace(centre - 1.5, centre + 1.5, 61),
                    color="tab:blue" if mode_pick.value == "train" else "tab:orange")
            ax.axvline(centre, color="black", lw=1, ls="--")
            ax.set_xlim(centre - 1.5, centre + 1.5)
            ax.set_ylim(0, passes * 1.03)
            ax.set_xlabel("logit for patient 0")
            ax.set_ylabel(f"count of {passes} passes")
            ax.set_title(f"{layer_pick.value}, net.{mode_pick.value}(): std = {preds.std().item():.4f}", fontsize=10)
            fig.tight_layout()
            display(fig)
            plt.close(fig)  # shown once, inside the output area

    for control in (layer_pick, mode_pick, p_slider, no_grad_box):
        control.observe(redraw, names="value")
    redraw()
    return widgets.VBox([widgets.HBox([layer_pick, p_slider]), mode_pick, no_grad_box, readout, figure])


def draw_history(axes, history: dict, train_label: str = "training (train mode, during the epoch)") -> None:
    """A run's curves on two matplotlib axes: ``history``'s ``train_loss`` and ``val_loss`` per epoch on the first,
    ``val_acc`` on the second (lessons 05 and 08)."""
    epochs = range(1, len(history["train_loss"]) + 1)
    axes[0].plot(epochs, history["train_loss"], "o-", ms=3, label=train_label)
    axes[0].plot(epochs, history["val_loss"], "o-", ms=3, label="validation (eval mode, end of epoch)")
    axes[0].set_ylabel("mean BCE loss per example")
    axes[0].legend(fontsize=8)
    axes[1].plot(epochs, history["val_acc"], "o-", ms=3, color="tab:green")
    axes[1].set_ylabel("validation accuracy")
    axes[1].set_title(f"final validation accuracy: {history['val_acc'][-1]:.3f}", fontsize=10)
    for ax in axes:
        ax.set_xlabel("epoch")
        ax.set_xticks(list(epochs)[1::2])
        ax.grid(alpha=0.3)


def _curve_gap(a: dict, b: dict, key: str) -> list[float]:
    return [abs(x - y) for x, y in zip(a[key], b[key])]


def draw_two_runs(axes, runs: list, title: str) -> float:
    """Lesson 08's 'Try it' on two matplotlib axes: two runs' validation curves drawn over each other, then how far
    apart the two runs are per epoch on a log axis (or a note where they never differ).  ``runs``: two histories
    (``train_loss``, ``val_loss`` per epoch).  Returns the largest gap over both curves."""
    first, second = runs
    epochs = range(1, len(first["val_loss"]) + 1)
    gaps = {key: _curve_gap(first, second, key) for key in ("train_loss", "val_loss")}
    worst = max(max(g) for g in gaps.values())
    axes[0].plot(epochs, first["val_loss"], color="tab:orange", lw=5, alpha=0.4, label="run 1")
    axes[0].plot(epochs, second["val_loss"], color="black", lw=1.2, ls="--", label="run 2")
    axes[0].set_ylim(0, 0.6)
    axes[0].set_ylabel("validation loss")
    axes[0].set_title(title, fontsize=10)
    axes[0].legend(fontsize=8)
    if worst == 0:
        axes[1].text(0.5, 0.5, "0.0 at every epoch:\nthe two runs are the same run",
                     ha="center", va="center", transform=axes[1].transAxes, fontsize=11)
        axes[1].set_yticks([])
        axes[1].set_xlim(0.5, len(epochs) + 0.5)
    else:
        for (key, gap), colour in zip(gaps.items(), ("tab:blue", "tab:orange")):
            shown = [g if g > 0 else float("nan") for g in gap]  # a log axis cannot show 0
            axes[1].semilogy(epochs, shown, "o-", ms=3, color=colour, label=f"|run 1 - run 2|, {key}")
        axes[1].set_ylim(1e-6, 1)
        axes[1].legend(fontsize=8, loc="lower right")
    axes[1].set_title("how far apart, per epoch", fontsize=10)
    for ax in axes:
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3, which="both")
    return worst


def describe_checkpoint(ckpt: dict) -> list[str]:
    """Lesson 08's checkpoint (``model``, ``optimizer``, ``epoch``, ``history`` and ``rng``: ``python``, ``numpy``,
    ``torch_cpu``, ``cuda``, ``loader``) read back owner by owner: one line each, saying what it holds."""
    adam, rng = ckpt["optimizer"], ckpt["rng"]
    first = adam["state"][0]  # Adam's state for the first parameter
    settings = {k: adam["param_groups"][0][k] for k in ("lr", "betas", "eps")}
    owners = [
        ("module", "model", f"{len(ckpt['model'])} tensors: parameters and BatchNorm's buffers"),
        ("optimizer", "optimizer", f"for '{next(iter(ckpt['model']))}': step {first['step'].item():.0f}, exp_avg "
                                   f"and exp_avg_sq {tuple(first['exp_avg'].shape)}; settings {settings}"),
        ("the loop", "epoch, history", f"epoch {ckpt['epoch']} (from 0) just finished; "
                                       f"{len(ckpt['history']['val_loss'])} points per curve"),
        ("Python random", "rng/python", f"version {rng['python'][0]} and {len(rng['python'][1])} integers"),
        ("NumPy", "rng/numpy", f"{rng['numpy']['bit_generator']} with {len(rng['numpy']['state']['key'])} "
                               f"integers, position {rng['numpy']['state']['pos']}"),
        ("torch, CPU", "rng/torch_cpu", f"{rng['torch_cpu'].dtype} {tuple(rng['torch_cpu'].shape)}"),
        ("torch, CUDA", "rng/cuda", ", ".join(f"{s.dtype} {tuple(s.shape)}" for s in rng["cuda"]) or "nothing: no GPU"),
        ("the loader's generator", "rng/loader", f"{rng['loader'].dtype} {tuple(rng['loader'].shape)}"),
    ]
    return [f"{'owner':23s} {'saved under':15s} what it holds"] + [f"{o:23s} {k:15s} {w}" for o, k, w in owners]


def draw_resumes(axes, reference: dict, resumed: dict, half: int) -> None:
    """Lesson 08's resume figure on two matplotlib axes.  Left: the uninterrupted run's validation curve (grey)
    and each of ``resumed`` (``{label: history}``; the first is the full restore, drawn dashed) from the epoch of
    the interruption on, zoomed in.  Right: how far each resume but the first is from the uninterrupted run
    (training loss, log axis).  ``half``: the last epoch before the interruption."""
    epochs = list(range(1, len(reference["val_loss"]) + 1))
    styles = [dict(color="black", lw=1.2, ls="--"), dict(color="tab:orange", lw=1.5), dict(color="tab:red", lw=1.5),
              dict(color="tab:purple", lw=1.5), dict(color="tab:brown", lw=1.5)]
    axes[0].plot(epochs, reference["val_loss"], color="grey", lw=6, alpha=0.4, label="uninterrupted")
    for (name, hist), style in zip(resumed.items(), styles):
        axes[0].plot(epochs[half - 1:], hist["val_loss"][half - 1:], label=f"resumed: {name}", **style)
    shown = reference["val_loss"][max(half - 4, 0):]  # what the zoomed window holds
    shown += [v for hist in resumed.values() for v in hist["val_loss"][half - 1:]]
    pad = 0.1 * (max(shown) - min(shown))
    axes[0].set_xlim(half - 3, len(epochs) + 0.5)
    axes[0].set_ylim(min(shown) - pad, max(shown) + pad)
    axes[0].set_ylabel("validation loss")
    axes[0].set_title("the second half of the run, zoomed in", fontsize=10)
    axes[0].legend(fontsize=8)
    for (name, hist), style in list(zip(resumed.items(), styles))[1:]:
        gap = [g if g > 0 else float("nan") for g in _curve_gap(hist, reference, "train_loss")[half:]]
        axes[1].semilogy(epochs[half:], gap, "o-", ms=3, color=style["color"], label=name)
    axes[1].text(0.05, 0.92, f"{next(iter(resumed))}: 0.0 at every epoch (nothing to draw on a log axis)",
                 transform=axes[1].transAxes, fontsize=8)
    axes[1].set_ylim(1e-6, 1)
    axes[1].set_ylabel("|resumed - uninterrupted|, training loss")
    axes[1].set_title("how far each broken resume is from the uninterrupted run", fontsize=10)
    axes[1].legend(fontsize=8, loc="lower right")
    for ax in axes:
        ax.axvline(half + 0.5, color="grey", ls=":", lw=1)
        ax.set_xlabel(f"epoch (interrupted after epoch {half})")
        ax.grid(alpha=0.3, which="both")


def draw_seed_spread(axes, per_seed: dict) -> None:
    """Lesson 08's section 10 on two matplotlib axes: the validation curve of every seed (``{seed: history}``),
    then the final validation losses, one dot per seed, beside their mean ± standard deviation."""
    import statistics

    finals = [hist["val_loss"][-1] for hist in per_seed.values()]
    for seed, hist in per_seed.items():
        axes[0].plot(range(1, len(hist["val_loss"]) + 1), hist["val_loss"], lw=1.3, label=f"seed {seed}")
    axes[0].set_xlabel("epoch")
    axes[0].set_xticks(range(1, max(len(hist["val_loss"]) for hist in per_seed.values()) + 1, 2))
    axes[0].set_ylabel("validation loss")
    axes[0].set_ylim(0, 0.45)
    axes[0].legend(fontsize=8, ncol=len(per_seed))
    axes[1].scatter([0] * len(finals), finals, color="tab:orange", zorder=3)
    axes[1].errorbar([1], [statistics.mean(finals)], yerr=[statistics.stdev(finals)], fmt="s", color="black",
                     capsize=5)
    axes[1].set_xlim(-0.7, 1.7)
    axes[1].set_xticks([0, 1], ["one dot per seed", "mean ± std"])
    axes[1].set_ylabel("final validation loss")
    for ax in axes:
        ax.grid(alpha=0.3)


__all__ = ["RunProbe", "confusion", "draw_confusion", "event_readout", "event_table", "html_table",
           "show_moved", "step_explorer",
           "draw_lr_run", "graph_nodes", "lr_explorer", "plot_bars", "plot_curves", "plot_lr_sweep",
           "GraphMeter", "describe_checkpoint", "draw_graph_memory", "draw_history", "draw_resumes",
           "draw_seed_spread", "draw_two_runs", "spread_explorer", "spread_report"]
