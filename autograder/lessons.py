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


__all__ = ["RunProbe", "confusion", "draw_confusion"]
