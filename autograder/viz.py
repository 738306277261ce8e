"""Pictures of autograd's bookkeeping, drawn with matplotlib alone.

:func:`draw_graph` walks the graph behind a tensor, ``t.grad_fn`` and its
``next_functions``, and draws one box per node in layers: the tensor's own
``grad_fn`` at the top, the leaves (``AccumulateGrad``, where ``backward()``
writes ``.grad``) as rounded green boxes.  Arrows follow ``next_functions``,
the direction in which ``backward()`` travels::

    ax = draw_graph(loss, params=dict(model.named_parameters()))
"""

from __future__ import annotations

from collections import deque

import matplotlib.pyplot as plt
import torch
from matplotlib.axes import Axes

_OP_STYLE = {"boxstyle": "square,pad=0.35", "fc": "#ddf4ff", "ec": "#0969da"}
_LEAF_STYLE = {"boxstyle": "round,pad=0.45", "fc": "#dafbe1", "ec": "#1a7f37", "lw": 1.5}


def _leaf_label(tensor: torch.Tensor, names: dict[int, str]) -> str:
    shape = list(tensor.shape)
    name = names.get(id(tensor))
    return f"{name}\n{shape}" if name else f"leaf\n{shape}"


def _node_label(node, names: dict[int, str]) -> str:
    variable = getattr(node, "variable", None)
    if variable is not None:  # an AccumulateGrad node: the leaf it writes to
        return _leaf_label(variable, names)
    name = type(node).__name__
    return name.replace("Backward", "\nBackward", 1) if len(name) > 16 else name


def _walk(root) -> tuple[list, list[tuple[int, int]]]:
    """Breadth-first: every node once, and the edges (parent index, child index)."""
    nodes, index, edges = [root], {root: 0}, []
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for child, _ in getattr(node, "next_functions", ()):
            if child is None:  # an input that does not require grad
                continue
            if child not in index:
                index[child] = len(nodes)
                nodes.append(child)
                queue.append(child)
            edges.append((index[node], index[child]))
    return nodes, edges


def _layers(count: int, edges: list[tuple[int, int]]) -> list[int]:
    """Depth of each node: its longest path from the root, so every arrow points down."""
    depth = [0] * count
    for _ in range(count):  # the graph is acyclic: this settles after at most `count` passes
        changed = False
        for parent, child in edges:
            if depth[child] < depth[parent] + 1:
                depth[child], changed = depth[parent] + 1, True
        if not changed:
            break
    return depth


def draw_graph(tensor: torch.Tensor, ax: Axes | None = None, params: dict | None = None) -> Axes:
    """Draw the autograd graph of ``tensor``; leaves are named from ``params`` when given.

    ``params`` maps names to tensors, for example ``dict(model.named_parameters())``;
    a leaf not in it is labelled with its shape.  Returns the matplotlib Axes.
    """
    names = {id(t): n for n, t in (params or {}).items()}
    root = tensor.grad_fn
    if root is None:
        ax = ax if ax is not None else plt.subplots(figsize=(4, 1.6))[1]
        ax.axis("off")
        if tensor.requires_grad:  # a leaf itself: the graph is this one node
            ax.text(0.5, 0.5, _leaf_label(tensor, names), ha="center", va="center",
                    fontsize=8, fontfamily="monospace", bbox=_LEAF_STYLE)
        else:
            ax.text(0.5, 0.5, "no graph: grad_fn is None\nand requires_grad is False",
                    ha="center", va="center", color="#57606a")
        return ax

    nodes, edges = _walk(root)
    depth = _layers(len(nodes), edges)
    rows: dict[int, list[int]] = {}
    for i, d in enumerate(depth):
        rows.setdefault(d, []).append(i)
    x: dict[int, float] = {}
    for d in sorted(rows):  # order each row under its parents to keep arrows short
        parents = {c: [x[p] for p, cc in edges if cc == c and p in x] for c in rows[d]}
        rows[d].sort(key=lambda c: sum(parents[c]) / len(parents[c]) if parents[c] else 0.0)
        for k, c in enumerate(rows[d]):
            x[c] = k - (len(rows[d]) - 1) / 2
    width = max(len(r) for r in rows.values())
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 2.3 * width), 0.2 + 1.05 * len(rows)))

    boxes = []
    for i, node in enumerate(nodes):
        leaf = getattr(node, "variable", None) is not None
        style = dict(_LEAF_STYLE if leaf else _OP_STYLE)
        if i == 0:
            style["lw"] = 2.0
        boxes.append(ax.text(x[i], -depth[i], _node_label(node, names), ha="center", va="center",
                             fontsize=8, fontfamily="monospace", bbox=style, zorder=3))
    for parent, child in edges:
        ax.annotate("", xy=(x[child], -depth[child]), xytext=(x[parent], -depth[parent]),
                    arrowprops={"arrowstyle": "-|>", "color": "#57606a", "lw": 1.0,
                                "patchA": boxes[parent].get_bbox_patch(),
                                "patchB": boxes[child].get_bbox_patch()},
                    zorder=4)
    ax.set_xlim(-width / 2, width / 2)
    ax.set_ylim(-max(depth) - 0.6, 0.6)
    ax.axis("off")
    return ax


__all__ = ["draw_graph"]
