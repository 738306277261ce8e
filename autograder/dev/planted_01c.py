"""A planted cohort of module 01b, written apart from the normaliser and the detector, to tune on.

The module's graded answers are ``manual_gradients`` (the gradients of the lesson's two-layer tanh network's
mean binary cross-entropy, by the chain rule, for a batch), ``bce_with_logits`` (the mean loss from logits,
finite for any logit and with PyTorch's slope at a logit of exactly 0) and ``sgd_momentum_step`` (one in-place
step of SGD with momentum, the buffers kept by the caller).

Fourteen honest students answer in their own styles:

- honest-01: terse and vectorised, the four tensors unpacked from a generator, ``1 - h**2``, a one-line dict;
  the loss as ``F.softplus(z) - y * z``; the step with a conditional expression and ``add_(b, alpha=-lr)``.
- honest-02: a beginner's loop over the examples by index, as the lesson's one-example ``hand_gradients``
  (``torch.outer``, running sums, divided by N at the end), the stub's ``# YOUR CODE HERE`` left in; the
  lesson's ``torch.maximum(z, zeros)`` form of the loss; the step as an index loop with nested ``if``/``else``.
- honest-03: ``torch.einsum`` for every product, a dict filled key by key; ``torch.logaddexp(0, z) - y * z``;
  the buffers updated in place (``mul_(momentum).add_(g)``, as SGD does) in a copy of the list, by
  ``enumerate``.
- honest-04: ``torch.matmul`` and ``.t()``, tanh's derivative as ``(1 - h) * (1 + h)``, comments in the
  lesson's notation; ``0.5 * (z + |z|)`` with ``log(1 + exp(-|z|))`` and ``torch.mean``; the step through
  ``.data`` with no ``no_grad``.
- honest-05: type hints on every signature, asserts on the shapes, tanh's derivative recomputed as
  ``1 - torch.tanh(a) ** 2``; the loss as ``torch.where`` over two branches whose exponents ``clamp`` keeps
  at most 0; the step decorated with ``@torch.no_grad()``.
- honest-06: broadcasting and sums in place of matrix products, outer products as ``[:, :, None] * [:, None,
  :]``; ``y * softplus(-z) + (1 - y) * softplus(z)``; the buffers in a dict keyed by position.
- honest-07: ``torch.mm`` and ``.mT``, the per-example errors left unscaled and the 1/N put in at the end
  (``/ n`` and ``.mean(dim=0)``); the loss from ``F.logsigmoid`` of ``z`` and ``-z``; the step as a nested
  helper mapped over ``zip`` in a comprehension.
- honest-08: a beginner's index loop with column vectors (``unsqueeze(1)``), a dict of zeros filled with
  ``+=``, a commented-out debug print, no docstring; ``torch.max(z, zero)`` and ``sum() / numel()``; a
  ``while`` loop over the parameters.
- honest-09: a nested ``linear`` helper, ``torch.square``, ``dict(zip(names, grads))``;
  ``logaddexp(0, -z) + (1 - y) * z``; ``torch.add(torch.mul(b, momentum), g)`` and ``p.copy_(p - lr * b)``.
- honest-10: column-vector convention (``[H, N]`` activations, ``x.T`` as the input, ``sum(axis=1)``); the
  loss as ``max(-z, 0) + log1p(exp(-|z|)) + (1 - y) * z``; the step like honest-01's with ``p -= lr * b``.
- honest-11: sigmoid written by hand (``1 / (1 + exp(-z))``), comments marking forward and backward; the loss
  as ``F.softplus((1 - 2y) * z)``; ``buffers or [...]`` and ``sub_(buf, alpha=lr)``.
- honest-12: defensive ``.clone()`` of the parameters, ``torch.t``, method chains (``.sub(y).div(batch)``),
  ``sum(keepdim=True).view(-1)``; ``-|z|`` and ``max(z, 0)`` written with ``torch.where`` so that 0 keeps a
  slope; the step on a copy of the list, by ``enumerate`` with nested conditions.
- honest-13: one example at a time in a nested function, the per-example gradients stacked and averaged with
  ``zip(*...)``; ``(1 - y) * z + F.softplus(-z)``; the first buffer as ``zeros_like(g).add_(g)``.
- honest-14: ``F.linear`` for both layers, ``dz * W2`` for the ``[N, 1] @ [1, H]`` product,
  ``h.pow(2)``; the lesson's ``(z + |z|) / 2`` form almost as the course writes it; ``zip(..., strict=True)``,
  ``torch.add(g, buf, alpha=momentum)`` and ``p.data -= lr * buf``.

Several converge where any two students would: the lesson's stable form of the loss (``maximum`` or ``(z +
|z|) / 2`` with ``log1p(exp(-|z|))``: honest-02, honest-04, honest-08, honest-14), softplus in one form or
another (honest-01, -06, -11, -13), a ``zip`` loop with a conditional expression for the step (honest-01,
honest-10).  Two write the course's answer: canonical-1 hands in the reference word for word, canonical-2 in
their own names.

Eleven copy, and disguise what they take:

- ``copier-rename`` (honest-03, all three): every local renamed, the einsum subscripts too, comments rewritten,
  the loss given a name before its mean.
- ``copier-reorder`` (honest-05, all three): independent statements reordered (the parameters read in another
  order, an assert moved, the gradient dict's entries, the branches of the loss, the append before the
  update), temporaries inlined (the logits, ``dL/dh``, the gradient) and introduced (tanh's slope, the two
  branches).
- ``copier-algebra`` (honest-01, all three): commutative operands swapped, the biases put first in the sums,
  ``sigmoid(z) - y`` as ``-y + sigmoid(z)``, ``h**2`` as ``h * h``, ``softplus(z) - y * z`` as ``-(z * y) +
  softplus(z)``, ``momentum * b + g`` as ``g + b * momentum``, ``add_(b, alpha=-lr)`` as ``sub_(b * lr)``.
- ``copier-spellings`` (honest-04, all three): ``.t()`` as ``.T``, ``.transpose(0, 1)`` and ``.mT``,
  ``torch.matmul`` as ``@``, ``torch.mm`` and ``einsum``, ``torch.sum(g, dim=0)`` as ``.sum(0)`` and
  ``.sum(dim=0, keepdim=False)``, ``torch.mean`` as ``sum() / numel()``, function calls as methods,
  ``v.mul(m).add(g)`` as operators, ``p.grad.data`` as ``p.grad.detach()``.
- ``copier-loops`` (honest-02, all three): the loop over example indices as a ``zip`` over the rows, the
  step's index loop as ``enumerate``; the loss left as taken.
- ``copier-helpers`` (honest-09, all three): the nested ``linear`` and the layers' gradients moved into
  module-level helpers, tanh's slope and softplus as lambdas, the step's buffer rule and update as helpers.
- ``copier-class`` (honest-07, all three): the network as a small class with ``forward`` and ``backward``
  keeping its activations, the step as an optimizer-like class holding lr, momentum and the buffers; the loss
  left as taken.
- ``chain-b`` (honest-12, all three) renames lightly and drops the comments, negates the ``torch.where``
  conditions with their branches swapped, and turns the step's nested ``if`` into a guard clause with the
  inner ``if``/``else`` negated and swapped; ``chain-c`` (chain-b, all three) reworks what it got: the
  method chains as operators, the named count and logits inlined, the gradients built as ``dict(zip(...))``,
  the negated condition named once instead of written twice, the loss returned without its name, the buffer
  list as a dict by position, ``p.grad`` read where its name was, and ``add_(-lr * b)`` as ``-=``.
- ``copier-merge`` takes ``manual_gradients`` and ``bce_with_logits`` from honest-06 and ``sgd_momentum_step``
  from honest-10, and adds dead code, debug prints (one live, one commented out, one behind a ``DEBUG``
  flag), unused variables and a ``nesterov`` branch that never runs; the probabilities named, the loss's two
  terms named, the gradient dict built key by key instead of literally.
- ``copier-half`` takes only ``manual_gradients`` and ``bce_with_logits`` from honest-08 (``+=`` written out
  or as ``add_``; ``torch.max(z, zero)`` as ``torch.maximum(zero, z)``, ``sum() / numel()`` as ``mean()``) and
  writes ``sgd_momentum_step`` alone.

Every answer passes the module's checks, visible and hidden, and every copied answer does what its source does
on the exercise's inputs.  The truth follows from where each answer came from (:func:`.planted.assemble`);
``python -m autograder.dev.planted_01c`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "01b-by-hand"

MG_DEF = "def manual_gradients(params, x, y):\n"
MG_DOC = '    """{name: gradient of the mean binary cross-entropy} for every tensor of params, by the chain rule."""\n'
BC_DEF = "def bce_with_logits(z, y):\n"
BC_DOC = '    """Mean binary cross-entropy from logits, finite for any logit."""\n'
SG_DEF = "def sgd_momentum_step(params, buffers, lr, momentum):\n"
SG_DOC = '    """One in-place SGD step with momentum; returns the momentum buffers (the optimizer\'s state)."""\n'
MG = MG_DEF + MG_DOC
BC = BC_DEF + BC_DOC
SG = SG_DEF + SG_DOC

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # terse, vectorised; softplus; a conditional expression and add_ with alpha
        "manual_gradients": MG + """\
    W1, b1, W2, b2 = (params[k] for k in ("hidden.weight", "hidden.bias", "out.weight", "out.bias"))
    N = x.shape[0]
    h = torch.tanh(x @ W1.T + b1)
    z = h @ W2.T + b2
    dz = (torch.sigmoid(z) - y) / N
    da = (dz @ W2) * (1 - h**2)
    return {"hidden.weight": da.T @ x, "hidden.bias": da.sum(0),
            "out.weight": dz.T @ h, "out.bias": dz.sum(0)}
""",
        "bce_with_logits": """\
import torch.nn.functional as F


""" + BC + """\
    return (F.softplus(z) - y * z).mean()
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    out = []
    with torch.no_grad():
        for p, b in zip(params, buffers):
            if p.grad is not None:
                b = p.grad.clone() if b is None else momentum * b + p.grad
                p.add_(b, alpha=-lr)
            out.append(b)
    return out
""",
    },
    "honest-02": {  # a beginner: one example at a time by index, as the lesson's hand_gradients
        "manual_gradients": MG + """\
    # YOUR CODE HERE
    W1 = params["hidden.weight"]
    b1 = params["hidden.bias"]
    W2 = params["out.weight"]
    b2 = params["out.bias"]
    N = x.shape[0]

    grad_W1 = torch.zeros_like(W1)
    grad_b1 = torch.zeros_like(b1)
    grad_W2 = torch.zeros_like(W2)
    grad_b2 = torch.zeros_like(b2)

    for i in range(N):
        xi = x[i]             # (D,)
        yi = y[i]             # (1,)
        a = W1 @ xi + b1      # (H,)
        h = torch.tanh(a)     # (H,)
        z = W2 @ h + b2       # (1,)
        dz = torch.sigmoid(z) - yi
        grad_W2 = grad_W2 + torch.outer(dz, h)
        grad_b2 = grad_b2 + dz
        dh = W2.T @ dz
        da = dh * (1 - h ** 2)
        grad_W1 = grad_W1 + torch.outer(da, xi)
        grad_b1 = grad_b1 + da

    # mean over the batch, not the sum
    grad_W1 = grad_W1 / N
    grad_b1 = grad_b1 / N
    grad_W2 = grad_W2 / N
    grad_b2 = grad_b2 / N
    return {"hidden.weight": grad_W1, "hidden.bias": grad_b1, "out.weight": grad_W2, "out.bias": grad_b2}
""",
        "bce_with_logits": BC + """\
    # YOUR CODE HERE
    zeros = torch.zeros_like(z)
    loss = torch.maximum(z, zeros) - z * y + torch.log1p(torch.exp(-torch.abs(z)))
    return loss.mean()
""",
        "sgd_momentum_step": SG + """\
    # YOUR CODE HERE
    if buffers is None:
        buffers = [None for _ in range(len(params))]
    new_buffers = []
    for i in range(len(params)):
        p = params[i]
        buf = buffers[i]
        if p.grad is None:
            new_buffers.append(buf)
        else:
            if buf is None:
                buf = p.grad.clone()
            else:
                buf = momentum * buf + p.grad
            with torch.no_grad():
                p -= lr * buf
            new_buffers.append(buf)
    return new_buffers
""",
    },
    "honest-03": {  # einsum for every product; logaddexp; buffers updated in place as SGD does
        "manual_gradients": MG + """\
    w1, b1 = params["hidden.weight"], params["hidden.bias"]
    w2, b2 = params["out.weight"], params["out.bias"]
    n = len(x)
    a = torch.einsum("nd,hd->nh", x, w1) + b1
    h = torch.tanh(a)
    z = torch.einsum("nh,oh->no", h, w2) + b2
    delta_out = (torch.sigmoid(z) - y) / n                    # [N, 1]
    delta_hid = torch.einsum("no,oh->nh", delta_out, w2) * (1 - h * h)
    grads = {}
    grads["out.weight"] = torch.einsum("no,nh->oh", delta_out, h)
    grads["out.bias"] = delta_out.sum(dim=0)
    grads["hidden.weight"] = torch.einsum("nh,nd->hd", delta_hid, x)
    grads["hidden.bias"] = delta_hid.sum(dim=0)
    return grads
""",
        "bce_with_logits": BC + """\
    # log(1 + e^z) = logaddexp(0, z), stable in torch
    return (torch.logaddexp(torch.zeros_like(z), z) - y * z).mean()
""",
        "sgd_momentum_step": SG + """\
    buffers = list(buffers) if buffers is not None else [None] * len(params)
    with torch.no_grad():
        for i, p in enumerate(params):
            g = p.grad
            if g is None:
                continue
            if buffers[i] is None:
                buffers[i] = g.detach().clone()
            else:
                buffers[i].mul_(momentum).add_(g)
            p.sub_(lr * buffers[i])
    return buffers
""",
    },
    "honest-04": {  # torch.matmul and .t(), (1 - h)(1 + h); (z + |z|) / 2; the step through .data
        "manual_gradients": MG + """\
    W1 = params["hidden.weight"]
    b1 = params["hidden.bias"]
    W2 = params["out.weight"]
    b2 = params["out.bias"]
    n_examples = x.size(0)
    pre = torch.matmul(x, W1.t()) + b1
    h = torch.tanh(pre)
    logits = torch.matmul(h, W2.t()) + b2
    # dL/dz of the mean BCE: (sigma(z) - y) / N
    g_logits = (torch.sigmoid(logits) - y) / n_examples
    # back through the output layer and tanh: tanh'(a) = (1 - h)(1 + h)
    g_pre = torch.matmul(g_logits, W2) * (1 - h) * (1 + h)
    return {
        "hidden.weight": torch.matmul(g_pre.t(), x),
        "hidden.bias": torch.sum(g_pre, dim=0),
        "out.weight": torch.matmul(g_logits.t(), h),
        "out.bias": torch.sum(g_logits, dim=0),
    }
""",
        "bce_with_logits": BC + """\
    # max(z, 0) as (z + |z|) / 2 so the slope at 0 is 1/2
    relu_smooth = 0.5 * (z + torch.abs(z))
    loss = relu_smooth - z * y + torch.log(1 + torch.exp(-torch.abs(z)))
    return torch.mean(loss)
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    result = []
    for p, v in zip(params, buffers):
        if p.grad is None:
            result.append(v)
            continue
        g = p.grad.data
        v = g.clone() if v is None else v.mul(momentum).add(g)
        p.data.add_(v, alpha=-lr)
        result.append(v)
    return result
""",
    },
    "honest-05": {  # type hints, asserts; where over clamped branches; @torch.no_grad()
        "manual_gradients": """\
def manual_gradients(params: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
""" + MG_DOC + """\
    w_hidden: torch.Tensor = params["hidden.weight"]
    b_hidden: torch.Tensor = params["hidden.bias"]
    w_out: torch.Tensor = params["out.weight"]
    b_out: torch.Tensor = params["out.bias"]
    n, d = x.shape
    assert w_hidden.shape[1] == d, "x and hidden.weight disagree on D"
    assert y.shape == (n, 1)

    a = x @ w_hidden.T + b_hidden          # [N, H] pre-activations
    h = torch.tanh(a)                      # [N, H]
    z = h @ w_out.T + b_out                # [N, 1] logits

    dL_dz = (torch.sigmoid(z) - y) / n     # [N, 1]
    dL_dh = dL_dz @ w_out                  # [N, H]
    dL_da = dL_dh * (1 - torch.tanh(a) ** 2)

    grads: dict[str, torch.Tensor] = {
        "hidden.weight": dL_da.T @ x,
        "hidden.bias": dL_da.sum(dim=0),
        "out.weight": dL_dz.T @ h,
        "out.bias": dL_dz.sum(dim=0),
    }
    for name, g in grads.items():
        assert g.shape == params[name].shape, name
    return grads
""",
        "bce_with_logits": """\
def bce_with_logits(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
""" + BC_DOC + """\
    assert z.shape == y.shape, "z and y must have the same shape"
    # softplus(z) = z + log(1 + e^-z) for z >= 0 and log(1 + e^z) for z < 0;
    # the clamps keep the exponent <= 0 in the branch torch.where does not use too
    softplus = torch.where(z >= 0,
                           z + torch.log1p(torch.exp(-z.clamp(min=0))),
                           torch.log1p(torch.exp(z.clamp(max=0))))
    return (softplus - y * z).mean()
""",
        "sgd_momentum_step": """\
@torch.no_grad()
def sgd_momentum_step(params: list[torch.Tensor], buffers: list[torch.Tensor | None] | None, lr: float,
                      momentum: float) -> list[torch.Tensor | None]:
""" + SG_DOC + """\
    if buffers is None:
        buffers = [None] * len(params)
    assert len(buffers) == len(params), "one buffer per parameter"
    new_buffers: list[torch.Tensor | None] = []
    for param, buffer in zip(params, buffers):
        grad = param.grad
        if grad is None:
            new_buffers.append(buffer)  # SGD skips it, its state unchanged
            continue
        buffer = torch.clone(grad) if buffer is None else momentum * buffer + grad
        param.add_(-lr * buffer)
        new_buffers.append(buffer)
    return new_buffers
""",
    },
    "honest-06": {  # broadcasting and sums instead of matrix products; softplus both ways; a dict of state
        "manual_gradients": MG + """\
    W1, b1 = params["hidden.weight"], params["hidden.bias"]
    W2, b2 = params["out.weight"], params["out.bias"]
    # forward with broadcasting: [N, 1, D] * [H, D] -> [N, H, D], summed over D
    a = (x[:, None, :] * W1).sum(-1) + b1
    h = torch.tanh(a)
    z = (h * W2).sum(-1, keepdim=True) + b2          # W2 is [1, H]: broadcasts over the batch
    e = (torch.sigmoid(z) - y) / len(y)              # [N, 1]
    d_a = e * W2 * (1 - h.pow(2))                    # [N, H]
    return {
        "out.weight": (e * h).sum(0, keepdim=True),                     # [1, H]
        "out.bias": e.sum(0),                                           # [1]
        "hidden.weight": (d_a[:, :, None] * x[:, None, :]).sum(0),      # [H, D]
        "hidden.bias": d_a.sum(0),                                      # [H]
    }
""",
        "bce_with_logits": BC + """\
    from torch.nn.functional import softplus
    # -log sigmoid(z) = softplus(-z), -log(1 - sigmoid(z)) = softplus(z)
    return (y * softplus(-z) + (1 - y) * softplus(z)).mean()
""",
        "sgd_momentum_step": SG + """\
    state = dict(enumerate(buffers)) if buffers is not None else {}
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is None:
                continue
            if state.get(i) is None:
                state[i] = p.grad.clone()
            else:
                state[i] = momentum * state[i] + p.grad
            p -= lr * state[i]
    return [state.get(i) for i in range(len(params))]
""",
    },
    "honest-07": {  # torch.mm and .mT, the 1/N at the end; logsigmoid; a nested helper in a comprehension
        "manual_gradients": MG + """\
    w1, b1, w2, b2 = params["hidden.weight"], params["hidden.bias"], params["out.weight"], params["out.bias"]
    hid = torch.tanh(torch.mm(x, w1.mT) + b1)
    out = torch.mm(hid, w2.mT) + b2
    err = torch.sigmoid(out) - y                    # per example: dL_i/dz_i
    back = torch.mm(err, w2) * (1.0 - hid * hid)    # per example: dL_i/da_i
    n = x.shape[0]
    return {
        "hidden.weight": torch.mm(back.mT, x) / n,
        "hidden.bias": back.mean(dim=0),
        "out.weight": torch.mm(err.mT, hid) / n,
        "out.bias": err.mean(dim=0),
    }
""",
        "bce_with_logits": """\
import torch.nn.functional as F


""" + BC + """\
    # log p = logsigmoid(z) and log(1 - p) = logsigmoid(-z), both stable
    log_p = F.logsigmoid(z)
    log_not_p = F.logsigmoid(-z)
    return -(y * log_p + (1 - y) * log_not_p).mean()
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)

    def update(p, buf):
        if p.grad is None:
            return buf
        buf = p.grad.detach().clone() if buf is None else buf * momentum + p.grad
        with torch.no_grad():
            p.sub_(buf * lr)
        return buf

    return [update(p, buf) for p, buf in zip(params, buffers)]
""",
    },
    "honest-08": {  # a beginner: index loop with column vectors; torch.max; a while loop
        "manual_gradients": MG_DEF + """\
    # YOUR CODE HERE
    n = x.shape[0]
    hidden_weight = params["hidden.weight"]
    hidden_bias = params["hidden.bias"]
    out_weight = params["out.weight"]
    out_bias = params["out.bias"]

    grads = {}
    grads["hidden.weight"] = torch.zeros_like(hidden_weight)
    grads["hidden.bias"] = torch.zeros_like(hidden_bias)
    grads["out.weight"] = torch.zeros_like(out_weight)
    grads["out.bias"] = torch.zeros_like(out_bias)

    for i in range(n):
        xi = x[i].unsqueeze(1)                                              # (D, 1) column
        hi = torch.tanh(hidden_weight @ xi + hidden_bias.unsqueeze(1))      # (H, 1)
        zi = out_weight @ hi + out_bias.unsqueeze(1)                        # (1, 1)
        dzi = (torch.sigmoid(zi) - y[i]) / n                                # (1, 1)
        # print(i, zi.item(), dzi.item())
        grads["out.weight"] += dzi @ hi.T
        grads["out.bias"] += dzi[0]
        dai = (out_weight.T @ dzi) * (1 - hi ** 2)                          # (H, 1)
        grads["hidden.weight"] += dai @ xi.T
        grads["hidden.bias"] += dai[:, 0]
    return grads
""",
        "bce_with_logits": BC_DEF + """\
    # YOUR CODE HERE
    zero = torch.zeros_like(z)
    per_elem = torch.max(z, zero) - z * y + torch.log1p(torch.exp(-torch.abs(z)))
    return per_elem.sum() / z.numel()
""",
        "sgd_momentum_step": SG_DEF + """\
    # YOUR CODE HERE
    if buffers is None:
        buffers = [None] * len(params)
    new_buffers = [None] * len(params)
    i = 0
    while i < len(params):
        p = params[i]
        if p.grad is None:
            new_buffers[i] = buffers[i]
        else:
            if buffers[i] is None:
                new_buffers[i] = p.grad.clone()
            else:
                new_buffers[i] = momentum * buffers[i] + p.grad
            with torch.no_grad():
                p -= lr * new_buffers[i]
        i += 1
    return new_buffers
""",
    },
    "honest-09": {  # a nested linear helper, dict(zip(...)); logaddexp of -z; torch.add/torch.mul and copy_
        "manual_gradients": MG + """\
    names = ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    W1, b1, W2, b2 = [params[name] for name in names]

    def linear(inp, W, b):
        return inp @ W.T + b

    h = torch.tanh(linear(x, W1, b1))
    z = linear(h, W2, b2)
    delta2 = (torch.sigmoid(z) - y) / x.shape[0]
    delta1 = (delta2 @ W2) * (1 - torch.square(h))
    grads = [delta1.T @ x, delta1.sum(0), delta2.T @ h, delta2.sum(0)]
    return dict(zip(names, grads))
""",
        "bce_with_logits": BC + """\
    # -log sigmoid(z) = log(1 + e^{-z}) = logaddexp(0, -z); the y = 0 case adds z
    return (torch.logaddexp(torch.zeros_like(z), -z) + (1 - y) * z).mean()
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    new = []
    for p, b in zip(params, buffers):
        g = p.grad
        if g is not None:
            if b is None:
                b = torch.clone(g).detach()
            else:
                b = torch.add(torch.mul(b, momentum), g)
            with torch.no_grad():
                p.copy_(p - lr * b)
        new.append(b)
    return new
""",
    },
    "honest-10": {  # column vectors: [H, N] activations; max(-z, 0); the zip loop with -=
        "manual_gradients": MG + """\
    X = x.T                                                              # [D, N]: one column per example
    Y = y.T                                                              # [1, N]
    N = X.shape[1]
    A = params["hidden.weight"] @ X + params["hidden.bias"][:, None]     # [H, N]
    Hd = torch.tanh(A)
    Z = params["out.weight"] @ Hd + params["out.bias"][:, None]          # [1, N]
    dZ = (torch.sigmoid(Z) - Y) / N
    dA = (params["out.weight"].T @ dZ) * (1 - Hd ** 2)                   # [H, N]
    return {
        "hidden.weight": dA @ X.T,
        "hidden.bias": dA.sum(axis=1),
        "out.weight": dZ @ Hd.T,
        "out.bias": dZ.sum(axis=1),
    }
""",
        "bce_with_logits": BC + """\
    # -log sigmoid(z) = max(-z, 0) + log(1 + e^-|z|), and -log(1 - sigmoid(z)) = z - log sigmoid(z)
    nls = torch.maximum(-z, torch.zeros_like(z)) + torch.log1p(torch.exp(-z.abs()))
    return (nls + (1 - y) * z).mean()
""",
        "sgd_momentum_step": SG + """\
    buffers = buffers if buffers is not None else [None] * len(params)
    updated = []
    with torch.no_grad():
        for p, b in zip(params, buffers):
            if p.grad is not None:
                b = p.grad.clone() if b is None else momentum * b + p.grad
                p -= lr * b
            updated.append(b)
    return updated
""",
    },
    "honest-11": {  # sigmoid by hand; softplus of a sign-flipped logit; buffers or [...], sub_ with alpha
        "manual_gradients": MG + """\
    N = x.shape[0]
    # forward
    a1 = x @ params["hidden.weight"].T + params["hidden.bias"]
    h1 = torch.tanh(a1)
    logit = h1 @ params["out.weight"].T + params["out.bias"]
    prob = 1.0 / (1.0 + torch.exp(-logit))     # sigmoid, by hand
    # backward
    g_logit = (prob - y) / N
    g_h1 = g_logit @ params["out.weight"]
    g_a1 = g_h1 * (1.0 - h1 * h1)
    return {
        "out.weight": g_logit.T @ h1,
        "out.bias": g_logit.sum(dim=0),
        "hidden.weight": g_a1.T @ x,
        "hidden.bias": g_a1.sum(dim=0),
    }
""",
        "bce_with_logits": BC + """\
    import torch.nn.functional as F
    # y = 1: -log sigmoid(z) = softplus(-z); y = 0: -log(1 - sigmoid(z)) = softplus(z).
    # Both at once with s = 1 - 2y.
    s = 1 - 2 * y
    return F.softplus(s * z).mean()
""",
        "sgd_momentum_step": SG + """\
    buffers = buffers or [None] * len(params)
    out = []
    for p, buf in zip(params, buffers):
        if p.grad is None:
            out.append(buf)
            continue
        with torch.no_grad():
            if buf is None:
                buf = p.grad.clone()
            else:
                buf = buf * momentum + p.grad
            p.sub_(buf, alpha=lr)
        out.append(buf)
    return out
""",
    },
    "honest-12": {  # defensive clones, torch.t, method chains; where for -|z|; a copy of the list
        "manual_gradients": MG + """\
    # work on copies so that nothing of the caller's changes
    W1 = params["hidden.weight"].clone()
    b1 = params["hidden.bias"].clone()
    W2 = params["out.weight"].clone()
    b2 = params["out.bias"].clone()
    batch = x.shape[0]
    hidden = torch.tanh(x @ torch.t(W1) + b1)            # N x H
    logits = hidden @ torch.t(W2) + b2                   # N x 1
    dlogits = torch.sigmoid(logits).sub(y).div(batch)    # N x 1
    dpre = (dlogits @ W2).mul(1 - hidden.square())       # N x H
    gW1 = torch.t(dpre) @ x
    gb1 = dpre.sum(dim=0, keepdim=True).view(-1)
    gW2 = torch.t(dlogits) @ hidden
    gb2 = dlogits.sum(dim=0, keepdim=True).view(-1)
    return {"hidden.weight": gW1, "hidden.bias": gb1, "out.weight": gW2, "out.bias": gb2}
""",
        "bce_with_logits": BC + """\
    # t = -|z|, written with where so that z = 0 keeps a slope (abs has none there)
    t = torch.where(z >= 0, -z, z)
    max_z0 = torch.where(z >= 0, z, torch.zeros_like(z))
    per = max_z0 + torch.log1p(torch.exp(t)) - y * z
    return per.mean()
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    next_buffers = list(buffers)
    for k, p in enumerate(params):
        if p.grad is not None:
            g = p.grad
            if next_buffers[k] is not None:
                next_buffers[k] = next_buffers[k] * momentum + g
            else:
                next_buffers[k] = g.clone()
            with torch.no_grad():
                p.add_(-lr * next_buffers[k])
    return next_buffers
""",
    },
    "honest-13": {  # one example at a time in a nested function, stacked and averaged; softplus(-z)
        "manual_gradients": MG + """\
    W1, b1 = params["hidden.weight"], params["hidden.bias"]
    W2, b2 = params["out.weight"], params["out.bias"]

    def one(xi, yi):
        # the lesson's one-example chain rule
        h = torch.tanh(W1 @ xi + b1)
        dz = torch.sigmoid(W2 @ h + b2) - yi          # (1,)
        da = (W2.T @ dz) * (1 - h ** 2)               # (H,)
        return torch.outer(da, xi), da, torch.outer(dz, h), dz

    per_example = [one(xi, yi) for xi, yi in zip(x, y)]
    gW1, gb1, gW2, gb2 = (torch.stack(parts).mean(dim=0) for parts in zip(*per_example))
    return {"hidden.weight": gW1, "hidden.bias": gb1, "out.weight": gW2, "out.bias": gb2}
""",
        "bce_with_logits": """\
from torch.nn import functional as F


""" + BC + """\
    return ((1 - y) * z + F.softplus(-z)).mean()
""",
        "sgd_momentum_step": SG + """\
    new_state = []
    for i, p in enumerate(params):
        prev = None if buffers is None else buffers[i]
        if p.grad is None:
            new_state.append(prev)
            continue
        if prev is None:
            buf = torch.zeros_like(p.grad).add_(p.grad)
        else:
            buf = prev.mul(momentum).add_(p.grad)
        with torch.no_grad():
            p.add_(buf, alpha=-lr)
        new_state.append(buf)
    return new_state
""",
    },
    "honest-14": {  # F.linear; the lesson's (z + |z|) / 2; zip(strict=True), torch.add with alpha, p.data -=
        "manual_gradients": """\
import torch.nn.functional as F


""" + MG + """\
    h = torch.tanh(F.linear(x, params["hidden.weight"], params["hidden.bias"]))   # [N, H]
    z = F.linear(h, params["out.weight"], params["out.bias"])                     # [N, 1]
    n = len(x)
    dz = (z.sigmoid() - y) / n
    dh = dz * params["out.weight"]          # [N, 1] * [1, H]: the same as dz @ W2
    da = dh * (1 - h.pow(2))
    return {
        "hidden.weight": da.T @ x,
        "hidden.bias": da.sum(0),
        "out.weight": dz.T @ h,
        "out.bias": dz.sum(0),
    }
""",
        "bce_with_logits": BC + """\
    # max(z, 0) = (z + |z|) / 2, slope 1/2 at 0; log1p(exp(-|z|)) never overflows
    loss = (z + z.abs()) / 2 - z * y + torch.log1p(torch.exp(-z.abs()))
    return loss.mean()
""",
        "sgd_momentum_step": SG + """\
    new_buffers = []
    for p, buf in zip(params, buffers or [None] * len(params), strict=True):
        grad = p.grad
        if grad is None:
            new_buffers.append(buf)
            continue
        buf = grad.detach().clone() if buf is None else torch.add(grad, buf, alpha=momentum)
        p.data -= lr * buf
        new_buffers.append(buf)
    return new_buffers
""",
    },
}

# The course's answer in a student's own names (canonical-2); canonical-1 hands in the reference word for word.
CANONICAL_OWN_NAMES = {
    "manual_gradients": MG + """\
    W_h, b_h = params["hidden.weight"], params["hidden.bias"]
    W_o, b_o = params["out.weight"], params["out.bias"]
    hid = torch.tanh(x @ W_h.T + b_h)                      # [N, H]
    logits = hid @ W_o.T + b_o                             # [N, 1]
    g_logits = (torch.sigmoid(logits) - y) / x.shape[0]    # the mean loss: a factor 1/N
    g_hid = g_logits @ W_o                                 # [N, H]
    g_pre = g_hid * (1 - hid * hid)                        # tanh' = 1 - tanh^2
    return {
        "hidden.weight": g_pre.T @ x,                      # [H, D]
        "hidden.bias": g_pre.sum(dim=0),                   # [H]
        "out.weight": g_logits.T @ hid,                    # [1, H]
        "out.bias": g_logits.sum(dim=0),                   # [1]
    }
""",
    "bce_with_logits": BC + """\
    # -log p = log(1 + e^-z) and -log(1 - p) = z + log(1 + e^-z), with p = sigmoid(z);
    # log(1 + e^-z) = max(-z, 0) + log(1 + e^-|z|), so e only ever meets a power <= 0.
    # (z + |z|) / 2 is max(z, 0) with the slope 1/2 at 0 that the loss itself has there.
    losses = (z + z.abs()) / 2 - z * y + torch.log1p(torch.exp(-z.abs()))
    return losses.mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    state = []
    with torch.no_grad():
        for param, velocity in zip(params, buffers):
            if param.grad is None:                   # no gradient: skipped, its state kept
                state.append(velocity)
                continue
            if velocity is None:
                velocity = param.grad.clone()        # first step: a copy of the gradient
            else:
                velocity = momentum * velocity + param.grad
            param.sub_(lr * velocity)                # in place, the same leaf
            state.append(velocity)
    return state
""",
}

# ---- the copies: every cell a copier takes is the classmate's as is, unless it is disguised here

_RENAME = {  # honest-03's: every local renamed, einsum subscripts too, comments rewritten
    "manual_gradients": MG + """\
    weight_in, bias_in = params["hidden.weight"], params["hidden.bias"]
    weight_out, bias_out = params["out.weight"], params["out.bias"]
    batch = len(x)
    pre = torch.einsum("bi,ji->bj", x, weight_in) + bias_in
    act = torch.tanh(pre)
    logit = torch.einsum("bj,kj->bk", act, weight_out) + bias_out
    err_logit = (torch.sigmoid(logit) - y) / batch                # one row per example
    err_act = torch.einsum("bk,kj->bj", err_logit, weight_out) * (1 - act * act)
    result = {}
    result["out.weight"] = torch.einsum("bk,bj->kj", err_logit, act)
    result["out.bias"] = err_logit.sum(dim=0)
    result["hidden.weight"] = torch.einsum("bj,bi->ji", err_act, x)
    result["hidden.bias"] = err_act.sum(dim=0)
    return result
""",
    "bce_with_logits": BC + """\
    # softplus(z) written as logaddexp(z, 0): never overflows
    per_item = torch.logaddexp(torch.zeros_like(z), z) - y * z
    return per_item.mean()
""",
    "sgd_momentum_step": SG + """\
    state = list(buffers) if buffers is not None else [None] * len(params)
    with torch.no_grad():
        for j, weight in enumerate(params):
            grad = weight.grad
            if grad is None:
                continue
            if state[j] is None:
                state[j] = grad.detach().clone()
            else:
                state[j].mul_(momentum).add_(grad)
            weight.sub_(lr * state[j])
    return state
""",
}

_REORDER = {  # honest-05's: independent statements reordered, temporaries inlined and introduced
    "manual_gradients": """\
def manual_gradients(params: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
""" + MG_DOC + """\
    n, d = x.shape
    assert y.shape == (n, 1)
    w_out: torch.Tensor = params["out.weight"]
    b_out: torch.Tensor = params["out.bias"]
    w_hidden: torch.Tensor = params["hidden.weight"]
    b_hidden: torch.Tensor = params["hidden.bias"]
    assert w_hidden.shape[1] == d, "x and hidden.weight disagree on D"

    a = x @ w_hidden.T + b_hidden          # [N, H] pre-activations
    tanh_slope = 1 - torch.tanh(a) ** 2
    h = torch.tanh(a)                      # [N, H]

    dL_dz = (torch.sigmoid(h @ w_out.T + b_out) - y) / n     # [N, 1]
    dL_da = (dL_dz @ w_out) * tanh_slope

    grads: dict[str, torch.Tensor] = {
        "out.weight": dL_dz.T @ h,
        "out.bias": dL_dz.sum(dim=0),
        "hidden.weight": dL_da.T @ x,
        "hidden.bias": dL_da.sum(dim=0),
    }
    for name, g in grads.items():
        assert g.shape == params[name].shape, name
    return grads
""",
    "bce_with_logits": """\
def bce_with_logits(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
""" + BC_DOC + """\
    # softplus(z) = z + log(1 + e^-z) for z >= 0 and log(1 + e^z) for z < 0;
    # the clamps keep the exponent <= 0 in the branch torch.where does not use too
    negative_branch = torch.log1p(torch.exp(z.clamp(max=0)))
    positive_branch = z + torch.log1p(torch.exp(-z.clamp(min=0)))
    assert z.shape == y.shape, "z and y must have the same shape"
    softplus = torch.where(z >= 0, positive_branch, negative_branch)
    return (softplus - y * z).mean()
""",
    "sgd_momentum_step": """\
@torch.no_grad()
def sgd_momentum_step(params: list[torch.Tensor], buffers: list[torch.Tensor | None] | None, lr: float,
                      momentum: float) -> list[torch.Tensor | None]:
""" + SG_DOC + """\
    new_buffers: list[torch.Tensor | None] = []
    if buffers is None:
        buffers = [None] * len(params)
    assert len(buffers) == len(params), "one buffer per parameter"
    for param, buffer in zip(params, buffers):
        if param.grad is None:
            new_buffers.append(buffer)  # SGD skips it, its state unchanged
            continue
        buffer = torch.clone(param.grad) if buffer is None else momentum * buffer + param.grad
        new_buffers.append(buffer)
        param.add_(-lr * buffer)
    return new_buffers
""",
}

_ALGEBRA = {  # honest-01's: operands swapped, terms reordered, a - b as -b + a, h**2 as h * h
    "manual_gradients": MG + """\
    W1, b1, W2, b2 = (params[k] for k in ("hidden.weight", "hidden.bias", "out.weight", "out.bias"))
    N = x.shape[0]
    h = torch.tanh(b1 + x @ W1.T)
    z = b2 + h @ W2.T
    dz = (-y + torch.sigmoid(z)) / N
    da = (1 - h * h) * (dz @ W2)
    return {"hidden.weight": da.T @ x, "hidden.bias": da.sum(0),
            "out.weight": dz.T @ h, "out.bias": dz.sum(0)}
""",
    "bce_with_logits": """\
import torch.nn.functional as F


""" + BC + """\
    return (-(z * y) + F.softplus(z)).mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    out = []
    with torch.no_grad():
        for p, b in zip(params, buffers):
            if p.grad is not None:
                b = p.grad.clone() if b is None else p.grad + b * momentum
                p.sub_(b * lr)
            out.append(b)
    return out
""",
}

_SPELLINGS = {  # honest-04's: other spellings of transposes, products, sums, the mean and the buffer arithmetic
    "manual_gradients": MG + """\
    W1 = params["hidden.weight"]
    b1 = params["hidden.bias"]
    W2 = params["out.weight"]
    b2 = params["out.bias"]
    n_examples = len(x)
    pre = x @ W1.T + b1
    h = pre.tanh()
    logits = torch.mm(h, W2.transpose(0, 1)) + b2
    # dL/dz of the mean BCE: (sigma(z) - y) / N
    g_logits = (logits.sigmoid() - y) / n_examples
    # back through the output layer and tanh: tanh'(a) = (1 - h)(1 + h)
    g_pre = g_logits @ W2 * (1 - h) * (1 + h)
    return {
        "hidden.weight": torch.einsum("nh,nd->hd", g_pre, x),
        "hidden.bias": g_pre.sum(0),
        "out.weight": g_logits.mT @ h,
        "out.bias": g_logits.sum(dim=0, keepdim=False),
    }
""",
    "bce_with_logits": BC + """\
    relu_smooth = 0.5 * (z + z.abs())
    loss = relu_smooth - z * y + (1 + (-z.abs()).exp()).log()
    return loss.sum() / loss.numel()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    result = []
    for p, v in zip(params, buffers):
        if p.grad is None:
            result.append(v)
            continue
        g = p.grad.detach()
        v = torch.clone(g) if v is None else momentum * v + g
        p.data.add_(other=v, alpha=-lr)
        result.append(v)
    return result
""",
}

_LOOPS = {  # honest-02's: the loop over example indices as a zip over rows, the step's index loop as enumerate
    "manual_gradients": MG + """\
    # YOUR CODE HERE
    W1 = params["hidden.weight"]
    b1 = params["hidden.bias"]
    W2 = params["out.weight"]
    b2 = params["out.bias"]
    N = x.shape[0]

    grad_W1 = torch.zeros_like(W1)
    grad_b1 = torch.zeros_like(b1)
    grad_W2 = torch.zeros_like(W2)
    grad_b2 = torch.zeros_like(b2)

    for xi, yi in zip(x, y):  # xi (D,), yi (1,)
        a = W1 @ xi + b1      # (H,)
        h = torch.tanh(a)     # (H,)
        z = W2 @ h + b2       # (1,)
        dz = torch.sigmoid(z) - yi
        grad_W2 = grad_W2 + torch.outer(dz, h)
        grad_b2 = grad_b2 + dz
        dh = W2.T @ dz
        da = dh * (1 - h ** 2)
        grad_W1 = grad_W1 + torch.outer(da, xi)
        grad_b1 = grad_b1 + da

    # mean over the batch, not the sum
    grad_W1 = grad_W1 / N
    grad_b1 = grad_b1 / N
    grad_W2 = grad_W2 / N
    grad_b2 = grad_b2 / N
    return {"hidden.weight": grad_W1, "hidden.bias": grad_b1, "out.weight": grad_W2, "out.bias": grad_b2}
""",
    "sgd_momentum_step": SG + """\
    # YOUR CODE HERE
    if buffers is None:
        buffers = [None for _ in range(len(params))]
    new_buffers = []
    for i, p in enumerate(params):
        buf = buffers[i]
        if p.grad is None:
            new_buffers.append(buf)
        else:
            if buf is None:
                buf = p.grad.clone()
            else:
                buf = momentum * buf + p.grad
            with torch.no_grad():
                p -= lr * buf
            new_buffers.append(buf)
    return new_buffers
""",
}

_HELPERS = {  # honest-09's: module-level helpers and lambdas for the repeated steps
    "manual_gradients": """\
def _affine(inp, W, b):
    return inp @ W.T + b


def _layer_grads(delta, inp):
    # (weight gradient, bias gradient) of a layer, from its output's gradient and its input
    return delta.T @ inp, delta.sum(0)


tanh_slope = lambda h: 1 - torch.square(h)


""" + MG + """\
    names = ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    W1, b1, W2, b2 = [params[name] for name in names]
    h = torch.tanh(_affine(x, W1, b1))
    z = _affine(h, W2, b2)
    delta2 = (torch.sigmoid(z) - y) / x.shape[0]
    delta1 = (delta2 @ W2) * tanh_slope(h)
    grads = [*_layer_grads(delta1, x), *_layer_grads(delta2, h)]
    return dict(zip(names, grads))
""",
    "bce_with_logits": """\
softplus_of = lambda t: torch.logaddexp(torch.zeros_like(t), t)


""" + BC + """\
    # -log sigmoid(z) = softplus(-z); the y = 0 case adds z
    return (softplus_of(-z) + (1 - y) * z).mean()
""",
    "sgd_momentum_step": """\
def _next_buffer(b, g, momentum):
    if b is None:
        return torch.clone(g).detach()
    return torch.add(torch.mul(b, momentum), g)


def _apply(p, b, lr):
    with torch.no_grad():
        p.copy_(p - lr * b)


""" + SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    new = []
    for p, b in zip(params, buffers):
        if p.grad is not None:
            b = _next_buffer(b, p.grad, momentum)
            _apply(p, b, lr)
        new.append(b)
    return new
""",
}

_CLASSES = {  # honest-07's: the network as a class with forward/backward, the step as an optimizer-like class
    "manual_gradients": """\
class TwoLayerNet:
    def __init__(self, params):
        self.w1, self.b1 = params["hidden.weight"], params["hidden.bias"]
        self.w2, self.b2 = params["out.weight"], params["out.bias"]

    def forward(self, x):
        self.x = x
        self.hid = torch.tanh(torch.mm(x, self.w1.mT) + self.b1)
        return torch.mm(self.hid, self.w2.mT) + self.b2

    def backward(self, err):
        # err: per example dL_i/dz_i
        n = self.x.shape[0]
        back = torch.mm(err, self.w2) * (1.0 - self.hid * self.hid)
        return {
            "hidden.weight": torch.mm(back.mT, self.x) / n,
            "hidden.bias": back.mean(dim=0),
            "out.weight": torch.mm(err.mT, self.hid) / n,
            "out.bias": err.mean(dim=0),
        }


""" + MG + """\
    net = TwoLayerNet(params)
    out = net.forward(x)
    return net.backward(torch.sigmoid(out) - y)
""",
    "sgd_momentum_step": """\
class MomentumSGD:
    def __init__(self, lr, momentum, buffers):
        self.lr = lr
        self.momentum = momentum
        self.buffers = buffers

    def update(self, p, buf):
        if p.grad is None:
            return buf
        buf = p.grad.detach().clone() if buf is None else buf * self.momentum + p.grad
        with torch.no_grad():
            p.sub_(buf * self.lr)
        return buf

    def step(self, params):
        if self.buffers is None:
            self.buffers = [None] * len(params)
        self.buffers = [self.update(p, buf) for p, buf in zip(params, self.buffers)]
        return self.buffers


""" + SG + """\
    return MomentumSGD(lr, momentum, buffers).step(params)
""",
}

_CHAIN_B = {  # honest-12's lightly renamed, comments dropped, conditions negated with their branches swapped
    "manual_gradients": MG + """\
    W1 = params["hidden.weight"].clone()
    b1 = params["hidden.bias"].clone()
    W2 = params["out.weight"].clone()
    b2 = params["out.bias"].clone()
    m = x.shape[0]
    hid = torch.tanh(x @ torch.t(W1) + b1)
    out = hid @ torch.t(W2) + b2
    d_out = torch.sigmoid(out).sub(y).div(m)
    d_pre = (d_out @ W2).mul(1 - hid.square())
    gW1 = torch.t(d_pre) @ x
    gb1 = d_pre.sum(dim=0, keepdim=True).view(-1)
    gW2 = torch.t(d_out) @ hid
    gb2 = d_out.sum(dim=0, keepdim=True).view(-1)
    return {"hidden.weight": gW1, "hidden.bias": gb1, "out.weight": gW2, "out.bias": gb2}
""",
    "bce_with_logits": BC + """\
    t = torch.where(z < 0, z, -z)
    relu_part = torch.where(z < 0, torch.zeros_like(z), z)
    per = relu_part + torch.log1p(torch.exp(t)) - y * z
    return per.mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    new_bufs = list(buffers)
    for k, p in enumerate(params):
        if p.grad is None:
            continue
        g = p.grad
        if new_bufs[k] is None:
            new_bufs[k] = g.clone()
        else:
            new_bufs[k] = new_bufs[k] * momentum + g
        with torch.no_grad():
            p.add_(-lr * new_bufs[k])
    return new_bufs
""",
}

_CHAIN_C = {  # the second link reworks chain-b's: operators, an inlined count, dict(zip), a named condition
    "manual_gradients": MG + """\
    W1, b1 = params["hidden.weight"].clone(), params["hidden.bias"].clone()
    W2, b2 = params["out.weight"].clone(), params["out.bias"].clone()
    hid = torch.tanh(x @ torch.t(W1) + b1)
    d_out = (torch.sigmoid(hid @ torch.t(W2) + b2) - y) / x.shape[0]
    d_pre = (d_out @ W2) * (1 - hid.square())
    names = ("hidden.weight", "hidden.bias", "out.weight", "out.bias")
    grads = (torch.t(d_pre) @ x, d_pre.sum(dim=0, keepdim=True).view(-1),
             torch.t(d_out) @ hid, d_out.sum(dim=0, keepdim=True).view(-1))
    return dict(zip(names, grads))
""",
    "bce_with_logits": BC + """\
    neg = z < 0
    t = torch.where(neg, z, -z)
    return (torch.where(neg, torch.zeros_like(z), z) + torch.log1p(torch.exp(t)) - y * z).mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    new_bufs = {k: b for k, b in enumerate(buffers)}
    for k, p in enumerate(params):
        if p.grad is None:
            continue
        if new_bufs[k] is None:
            new_bufs[k] = p.grad.clone()
        else:
            new_bufs[k] = new_bufs[k] * momentum + p.grad
        with torch.no_grad():
            p -= lr * new_bufs[k]
    return [new_bufs[k] for k in range(len(params))]
""",
}

_MERGE = {  # honest-06's gradients and loss, honest-10's step: dead code, debug prints, unused variables
    "manual_gradients": MG + """\
    DEBUG = False
    W1, b1 = params["hidden.weight"], params["hidden.bias"]
    W2, b2 = params["out.weight"], params["out.bias"]
    N, D = x.shape
    H = W1.shape[0]
    a = (x[:, None, :] * W1).sum(-1) + b1
    h = torch.tanh(a)
    z = (h * W2).sum(-1, keepdim=True) + b2
    p = torch.sigmoid(z)
    if DEBUG:
        print("p", p.shape, "h", h.shape, "N, D, H =", N, D, H)
    e = (p - y) / len(y)
    d_a = e * W2 * (1 - h.pow(2))
    grads = {}
    grads["out.weight"] = (e * h).sum(0, keepdim=True)
    grads["out.bias"] = e.sum(0)
    grads["hidden.weight"] = (d_a[:, :, None] * x[:, None, :]).sum(0)
    grads["hidden.bias"] = d_a.sum(0)
    # print({k: v.shape for k, v in grads.items()})
    return grads
""",
    "bce_with_logits": BC + """\
    from torch.nn.functional import softplus
    n_items = z.numel()
    pos = softplus(-z)
    neg = softplus(z)
    print("bce_with_logits on", tuple(z.shape))
    loss = y * pos + (1 - y) * neg
    return loss.mean()
""",
    "sgd_momentum_step": SG + """\
    nesterov = False  # TODO: try it later
    buffers = buffers if buffers is not None else [None] * len(params)
    updated = []
    stepped = 0
    with torch.no_grad():
        for p, b in zip(params, buffers):
            if p.grad is not None:
                b = p.grad.clone() if b is None else momentum * b + p.grad
                if nesterov:
                    p -= lr * (p.grad + momentum * b)
                else:
                    p -= lr * b
                stepped += 1
            updated.append(b)
    # print("stepped", stepped, "of", len(params))
    return updated
""",
}

_HALF = {  # honest-08's gradients with += written out or as add_; its loss with maximum and mean()
    "manual_gradients": MG_DEF + """\
    # YOUR CODE HERE
    n = x.shape[0]
    hidden_weight = params["hidden.weight"]
    hidden_bias = params["hidden.bias"]
    out_weight = params["out.weight"]
    out_bias = params["out.bias"]

    grads = {}
    grads["hidden.weight"] = torch.zeros_like(hidden_weight)
    grads["hidden.bias"] = torch.zeros_like(hidden_bias)
    grads["out.weight"] = torch.zeros_like(out_weight)
    grads["out.bias"] = torch.zeros_like(out_bias)

    for i in range(n):
        xi = x[i].unsqueeze(1)                                              # (D, 1) column
        hi = torch.tanh(hidden_weight @ xi + hidden_bias.unsqueeze(1))      # (H, 1)
        zi = out_weight @ hi + out_bias.unsqueeze(1)                        # (1, 1)
        dzi = (torch.sigmoid(zi) - y[i]) / n                                # (1, 1)
        grads["out.weight"] = grads["out.weight"] + dzi @ hi.T
        grads["out.bias"].add_(dzi[0])
        dai = (out_weight.T @ dzi) * (1 - hi ** 2)                          # (H, 1)
        grads["hidden.weight"].add_(dai @ xi.T)
        grads["hidden.bias"] = grads["hidden.bias"] + dai[:, 0]
    return grads
""",
    "bce_with_logits": BC_DEF + """\
    # YOUR CODE HERE
    zero = torch.zeros_like(z)
    per_elem = torch.maximum(zero, z) - z * y + torch.log1p(torch.exp(-torch.abs(z)))
    return per_elem.mean()
""",
}

_HALF_OWN = {  # ... and the step of the copier's own
    "sgd_momentum_step": SG_DEF + """\
    # YOUR CODE HERE
    result = []
    for idx in range(len(params)):
        param = params[idx]
        old = buffers[idx] if buffers else None
        if param.grad is None:
            result.append(old)
            continue
        fresh = param.grad.clone() if old is None else param.grad + momentum * old
        with torch.no_grad():
            param.sub_(lr * fresh)
        result.append(fresh)
    return result
""",
}

_ALL = ("manual_gradients", "bce_with_logits", "sgd_momentum_step")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-rename", "renamed throughout (einsum subscripts too), re-commented", _taken("honest-03"), _RENAME),
    Copy("copier-reorder", "independent statements reordered, temporaries inlined and introduced",
         _taken("honest-05"), _REORDER),
    Copy("copier-algebra", "operands swapped, terms reordered, subtraction as adding a negation, h**2 as h*h",
         _taken("honest-01"), _ALGEBRA),
    Copy("copier-spellings", "other spellings of transposes, products, sums, the mean and the buffer arithmetic",
         _taken("honest-04"), _SPELLINGS),
    Copy("copier-loops", "an index loop as a zip over rows, another as enumerate", _taken("honest-02"), _LOOPS),
    Copy("copier-helpers", "repeated steps moved into module-level helpers and lambdas", _taken("honest-09"),
         _HELPERS),
    Copy("copier-class", "state held in small classes", _taken("honest-07"), _CLASSES),
    Copy("chain-b", "renamed lightly, comments dropped, conditions negated and swapped, a guard clause "
         "(first link of a chain)", _taken("honest-12"), _CHAIN_B),
    Copy("chain-c", "operators for method chains, a count inlined, dict(zip), a condition named once, a dict of "
         "buffers (second link of a chain)", _taken("chain-b"), _CHAIN_C),
    Copy("copier-merge", "two classmates merged, dead code, debug prints and unused variables, a dict built key by "
         "key", {"manual_gradients": "honest-06", "bce_with_logits": "honest-06", "sgd_momentum_step": "honest-10"},
         _MERGE),
    Copy("copier-half", "two cells of three copied, augmented assignments written out, operands swapped, sum/N "
         "as mean", _taken("honest-08", ("manual_gradients", "bce_with_logits")), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 01b (twenty-seven students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
