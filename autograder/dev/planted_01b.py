"""A planted cohort of module 01b, written apart from the normaliser and the detector.

The module's graded answers are ``manual_gradients`` (every gradient of the mean binary cross-entropy of the
lesson's tanh network over a batch, by the chain rule, no autograd), ``bce_with_logits`` (the mean loss from
logits, finite up to |z| = 1e4, with PyTorch's slope at a logit of exactly 0) and ``sgd_momentum_step`` (one
in-place step of SGD with momentum, the buffers in the student's hands).

Fourteen honest students answer in their own styles:

- ``honest-01``: a beginner's temporaries, one name per symbol of the lesson (``dL_dz``, ``dL_dW2``, ...), the
  gradients' dict filled key by key; the loss as ``y`` times the label-1 loss plus ``1 - y`` times the label-0
  loss, each ``max(., 0)`` written ``(|z| -+ z) / 2``; the step as index loops with one temporary a line.
- ``honest-02``: terse one-liners: the logit used once inside ``sigmoid``, ``len(x)`` for N, ``.pow(2)``, one
  dict literal; the loss as ``softplus(z) - z * y``; the step with ``buffers or [...]``, a conditional
  expression and ``sub_``, writing the new buffers into the list it was given.
- ``honest-03``: heavily commented, ``torch.matmul`` and ``.t()``, the sigmoid written ``1 / (1 + exp(-z))``;
  the loss from ``torch.maximum(z, zeros)`` (its slope at a tie is 1/2); the step with ``torch.clone`` and
  ``add_(buf, alpha=-lr)``.
- ``honest-04``: defensive: key, shape and value checks that raise, ``torch.addmm`` for the layers, the
  gradients' shapes asserted; the loss as ``log1p(exp(-|z|)) + (|z| - z) / 2 + (1 - y) z`` after checking
  shapes; the step checking its arguments and each buffer's shape.
- ``honest-05``: ``torch.einsum`` for every product and sum; the loss with ``torch.logaddexp(0, z)``; the step
  with ``b.mul(momentum).add(grad)`` and ``add_(-lr * b)`` over ``enumerate``.
- ``honest-06``: the lesson's one-example chain rule in a loop over the batch (``torch.outer``, each share
  divided by N and added with ``+=``); the loss as ``y * softplus(-z) + (1 - y) * softplus(z)``; buffers that
  start at zeros (``momentum * 0 + g`` is ``g``), the update ``p -= lr * b`` under ``no_grad``.
- ``honest-07``: ``torch.mm`` and ``.t()``, the error kept per example and ``1/N`` applied at the end
  (``.mean(dim=0)`` for the biases); the loss with ``logsigmoid(z)`` and ``logsigmoid(-z)``; the step keeping
  the buffers in place as SGD does (``mul_(momentum).add_(grad)``, ``sub_(buf, alpha=lr)``).
- ``honest-08``: a nested ``sigmoid``, ``transpose(0, 1)``, ``torch.sum(., dim=0)``, tanh's derivative from
  the pre-activation again, the dict zipped from a list of names; the loss as the softplus of the logit with its
  sign flipped by the label (``torch.where``); the step as a nested ``@torch.no_grad()`` function mapped by a
  comprehension, the update ``p.copy_(p - lr * buf)``.
- ``honest-09``: the weight gradients as broadcast outer products summed over the batch (``[:, :, None]``),
  ``dz * W2`` for the single output; the loss as ``|z| / 2 + (1/2 - y) z + log1p(exp(-|z|))`` with
  ``sum() / numel()``; the step as a ``while`` loop over indices, updating ``p.data``.
- ``honest-10``: type hints and method chains (``torch.nn.functional.linear``,
  ``.sigmoid().sub(y).div(n)``); the loss chained
  (``a.neg().exp().log1p()``); the step with ``torch.add(grad, b, alpha=momentum)``.
- ``honest-11``: a nested ``forward`` as in the lesson, ``.mT``, in-place ``sub_``/``div_`` on a fresh tensor,
  the dict from a list of pairs; the loss as ``(1 - y) z - logsigmoid(z)``; the step's state as a dict keyed by
  position.
- ``honest-12``: a nested ``linear_backward`` returning a layer's three gradients, used for both layers; the
  loss with ``logaddexp`` against a 0-d zero for both labels; the step's buffers built by one comprehension,
  then a second loop for the update.
- ``honest-13``: the lesson's column convention (one example a column, ``W1 @ X``, ``b[:, None]``,
  ``sum(axis=1)``); the loss as ``-logsigmoid((2y - 1) z)``; the step with ``torch.mul(...).add(...)``.
- ``honest-14``: ``permute(1, 0)``, ``torch.matmul``, the sigmoid written out, the dict filled from the output
  layer back; the loss with ``torch.max(z, zeros)`` and ``log(1 + exp(-|z|))``; the step over
  ``enumerate(zip(params, grads))`` with ``add_(-lr * b)``.

Where the formula is short they converge as students do (the lesson's ``(z + |z|) / 2``, ``softplus``,
``logsigmoid``; ``sum(dim=0)`` for the biases).  Two write the course's answer: ``canonical-1`` hands in the
reference word for word, ``canonical-2`` in their own names.

Eleven copy, and disguise what they take:

- ``copier-lambda`` (honest-01, all three): the temporaries folded into lambdas (a parameter getter, a linear
  layer, a softplus, the label mix) and nested functions (one layer's backward, one parameter's step), the
  step's loop a comprehension over indices.
- ``copier-inline`` (honest-08, all three): the reverse: the nested ``sigmoid`` and the nested update inlined,
  the names list and ``zip`` written as a dict literal, the pre-activation written twice instead of named; the
  loss's ``torch.where`` as ``(1 - 2y) z``; the comprehension an appending loop.
- ``copier-augmented`` (honest-06, all three): augmented assignments written out (``g = g + share``, operands
  swapped), the one-example temporaries inlined, ``p -= lr * b`` as ``p.sub_(b * lr)``, ``momentum * b + g``
  as ``g + b * momentum``; the loss's two terms swapped.
- ``copier-loops`` (honest-09, all three): the ``while`` loop over indices as ``for i, p in enumerate``, an
  ``if``/``else`` as a conditional expression; ``[:, :, None]`` as ``unsqueeze``, ``keepdim=True`` as
  ``unsqueeze(0)``, ``h * h`` as ``h.square()``, ``sum() / numel()`` as ``mean()``.
- ``copier-dataclass`` (honest-11, all three): the forward's result held in a dataclass returned by a
  module-level function; the step's state in a dataclass with a method for one parameter; the loss left as
  taken.
- ``copier-deadcode`` (honest-04, all three): dead code and unused variables (a debug flag and a loss printed
  under it, an ``eps``, a feature count, a copy of each parameter before its update, a step counter), an
  assert dropped, ``|z|`` named once.
- ``copier-negated`` (honest-14, all three): ``if``/``else`` branches swapped with their conditions negated,
  ``continue`` as a nested block, a conditional expression as a statement; operands swapped (``-z`` as
  ``0 - z``, ``1 + e`` as ``e + 1``, sums reversed), two statements merged into one tuple assignment, the dict
  filled in another order.
- ``chain-b`` (honest-05, all three) renames everything, the einsum subscripts too, and adds comments;
  ``chain-c`` (chain-b, all three) reworks what it got: the einsums as ``@`` with ``.T`` and ``.sum(0)``,
  ``torch.mean(.)`` as ``.mean()``, ``logaddexp``'s operands swapped, the conditional expression an
  ``if``/``else``, ``mul``/``add`` and ``add_(-lr * v)`` as operators and ``-=``, comments rewritten.
- ``copier-merge`` takes ``manual_gradients`` from honest-13 (its four-way tuple assignment split into four
  statements, ``b[:, None]`` as ``unsqueeze(1)``, ``axis=`` as ``dim=``) and ``bce_with_logits`` and
  ``sgd_momentum_step`` from honest-10 (method chains as operators and functions, a conditional expression as
  ``if``/``else``, a type hint dropped), docstrings rewritten.
- ``copier-half`` takes only ``manual_gradients`` from honest-12 (the nested helper moved to module level with
  a docstring of its own, its tuple results indexed instead of unpacked, temporaries inlined) and writes the
  other two alone.

Every answer passes the module's checks, visible and hidden, and every copied answer does what its source does
on :mod:`.planted_run`'s inputs.  The truth follows from where each answer came from
(:func:`.planted.assemble`); ``python -m autograder.dev.planted_01b`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "01b-by-hand"

MG_DEF = "def manual_gradients(params, x, y):\n"
MG_DOC = ('    """{name: gradient of the mean binary cross-entropy} for every tensor of params, by the chain '
          'rule."""\n')
BC_DEF = "def bce_with_logits(z, y):\n"
BC_DOC = '    """Mean binary cross-entropy from logits, finite for any logit."""\n'
SG_DEF = "def sgd_momentum_step(params, buffers, lr, momentum):\n"
SG_DOC = ('    """One in-place SGD step with momentum; returns the momentum buffers (the optimizer\'s state)."""\n')
MG = MG_DEF + MG_DOC
BC = BC_DEF + BC_DOC
SG = SG_DEF + SG_DOC

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # a beginner's temporaries, one name per symbol of the lesson
        "manual_gradients": MG + """\
    W1 = params["hidden.weight"]
    b1 = params["hidden.bias"]
    W2 = params["out.weight"]
    b2 = params["out.bias"]
    N = x.shape[0]
    a = x @ W1.T + b1
    h = torch.tanh(a)
    z = h @ W2.T + b2
    p = torch.sigmoid(z)
    dL_dz = (p - y) / N
    dL_dW2 = dL_dz.T @ h
    dL_db2 = dL_dz.sum(dim=0)
    dL_dh = dL_dz @ W2
    dL_da = dL_dh * (1 - h ** 2)
    dL_dW1 = dL_da.T @ x
    dL_db1 = dL_da.sum(dim=0)
    grads = {}
    grads["hidden.weight"] = dL_dW1
    grads["hidden.bias"] = dL_db1
    grads["out.weight"] = dL_dW2
    grads["out.bias"] = dL_db2
    return grads
""",
        "bce_with_logits": BC + """\
    abs_z = torch.abs(z)
    log_term = torch.log1p(torch.exp(-abs_z))
    max_z_0 = (z + abs_z) / 2
    max_minus_z_0 = (abs_z - z) / 2
    loss_if_1 = max_minus_z_0 + log_term
    loss_if_0 = max_z_0 + log_term
    losses = y * loss_if_1 + (1 - y) * loss_if_0
    mean_loss = losses.mean()
    return mean_loss
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = []
        for i in range(len(params)):
            buffers.append(None)
    new_buffers = []
    with torch.no_grad():
        for i in range(len(params)):
            param = params[i]
            old_buffer = buffers[i]
            if param.grad is None:
                new_buffers.append(old_buffer)
            else:
                grad = param.grad
                if old_buffer is None:
                    new_buffer = grad.clone()
                else:
                    new_buffer = momentum * old_buffer + grad
                param -= lr * new_buffer
                new_buffers.append(new_buffer)
    return new_buffers
""",
    },
    "honest-02": {  # terse one-liners
        "manual_gradients": MG + """\
    h = torch.tanh(x @ params["hidden.weight"].T + params["hidden.bias"])
    dz = (torch.sigmoid(h @ params["out.weight"].T + params["out.bias"]) - y) / len(x)
    da = (dz @ params["out.weight"]) * (1 - h.pow(2))
    return {"hidden.weight": da.T @ x, "hidden.bias": da.sum(0), "out.weight": dz.T @ h, "out.bias": dz.sum(0)}
""",
        "bce_with_logits": BC + """\
    return (torch.nn.functional.softplus(z) - z * y).mean()
""",
        "sgd_momentum_step": SG + """\
    buffers = buffers or [None] * len(params)
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is not None:
                buffers[i] = p.grad.clone() if buffers[i] is None else momentum * buffers[i] + p.grad
                p.sub_(lr * buffers[i])
    return buffers
""",
    },
    "honest-03": {  # heavily commented, torch.matmul and .t(), the sigmoid written out
        "manual_gradients": MG + """\
    # unpack the four parameters (named as nn.Module names them)
    W1 = params["hidden.weight"]   # [H, D]
    b1 = params["hidden.bias"]     # [H]
    W2 = params["out.weight"]      # [1, H]
    b2 = params["out.bias"]        # [1]
    n = x.shape[0]                 # batch size

    # ---- forward pass ----
    pre = torch.matmul(x, W1.t()) + b1          # [N, H] pre-activations
    h = torch.tanh(pre)                         # [N, H] hidden activations
    logits = torch.matmul(h, W2.t()) + b2       # [N, 1]
    probs = 1.0 / (1.0 + torch.exp(-logits))    # sigmoid, written out

    # ---- backward pass ----
    # step 1: dL/dz = p - y, divided by N because the loss is a mean over the batch
    d_logits = (probs - y) / n                  # [N, 1]
    # step 2: the output layer; the matmul sums over the batch for us
    d_W2 = torch.matmul(d_logits.t(), h)        # [1, H]
    d_b2 = d_logits.sum(dim=0)                  # [1]
    # dL/dh = dL/dz W2
    d_h = torch.matmul(d_logits, W2)            # [N, H]
    # step 3: tanh'(a) = 1 - tanh(a)^2 = 1 - h^2
    d_pre = d_h * (1.0 - h ** 2)                # [N, H]
    # step 4: the hidden layer
    d_W1 = torch.matmul(d_pre.t(), x)           # [H, D]
    d_b1 = d_pre.sum(dim=0)                     # [H]

    # same keys as params, every gradient shaped like its parameter
    return {"hidden.weight": d_W1, "hidden.bias": d_b1, "out.weight": d_W2, "out.bias": d_b2}
""",
        "bce_with_logits": BC + """\
    # Never form sigmoid(z): for a large |z| it rounds to exactly 0 or 1 in float32.
    # Per element, both labels at once: loss = log(1 + e^z) - y * z,
    # and log(1 + e^z) = max(z, 0) + log(1 + e^-|z|), so e is only raised to powers <= 0.
    zero = torch.zeros_like(z)
    # torch.maximum splits the slope at a tie: 1/2 at z = 0, like the smooth loss
    softplus_z = torch.maximum(z, zero) + torch.log1p(torch.exp(-torch.abs(z)))
    per_element = softplus_z - y * z
    # average over every element: a tensor with no dimensions
    return per_element.mean()
""",
        "sgd_momentum_step": SG + """\
    # the optimizer's state: one buffer per parameter, None until its first step
    if buffers is None:
        buffers = [None for _ in params]
    updated = []
    # the parameters are leaves that require grad: autograd must not record the update
    with torch.no_grad():
        for param, buf in zip(params, buffers):
            grad = param.grad
            if grad is None:
                # no gradient: SGD leaves the parameter and its buffer alone
                updated.append(buf)
                continue
            if buf is None:
                # first step: the buffer is a copy of the gradient (never the .grad tensor itself)
                buf = torch.clone(grad)
            else:
                # b <- mu * b + g   (the learning rate is not part of the buffer)
                buf = buf * momentum + grad
            # p <- p - lr * b, in place, so that the parameter stays the same leaf
            param.add_(buf, alpha=-lr)
            updated.append(buf)
    return updated
""",
    },
    "honest-04": {  # defensive: checks that raise, addmm, shapes asserted
        "manual_gradients": MG + """\
    expected = {"hidden.weight", "hidden.bias", "out.weight", "out.bias"}
    if set(params) != expected:
        raise KeyError(f"params must have the keys {sorted(expected)}, got {sorted(params)}")
    if x.dim() != 2 or y.dim() != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(f"expected x [N, D] and y [N, 1], got {tuple(x.shape)} and {tuple(y.shape)}")
    w_hidden, b_hidden = params["hidden.weight"], params["hidden.bias"]
    w_out, b_out = params["out.weight"], params["out.bias"]
    assert w_hidden.shape[1] == x.shape[1], "hidden.weight does not match x"
    n = x.shape[0]
    if n == 0:
        raise ValueError("empty batch")
    hidden = torch.tanh(torch.addmm(b_hidden, x, w_hidden.T))
    logits = torch.addmm(b_out, hidden, w_out.T)
    delta_out = (torch.sigmoid(logits) - y) / n
    delta_hidden = (delta_out @ w_out) * (1 - hidden.square())
    grads = {
        "out.weight": delta_out.T @ hidden,
        "out.bias": delta_out.sum(dim=0),
        "hidden.weight": delta_hidden.T @ x,
        "hidden.bias": delta_hidden.sum(dim=0),
    }
    for name, g in grads.items():
        assert g.shape == params[name].shape, f"{name}: gradient {tuple(g.shape)} != {tuple(params[name].shape)}"
    return grads
""",
        "bce_with_logits": BC + """\
    if z.shape != y.shape:
        raise ValueError(f"z and y must have the same shape, got {tuple(z.shape)} and {tuple(y.shape)}")
    if z.numel() == 0:
        raise ValueError("no logits")
    y = y.to(z.dtype)
    # log(1 + e^-|z|) never overflows; the rest is linear in z
    loss = torch.log1p(torch.exp(-z.abs())) + 0.5 * (z.abs() - z) + (1 - y) * z
    return loss.mean()
""",
        "sgd_momentum_step": SG + """\
    if lr < 0 or momentum < 0:
        raise ValueError(f"lr and momentum must be non-negative, got lr={lr}, momentum={momentum}")
    if buffers is None:
        buffers = [None] * len(params)
    if len(buffers) != len(params):
        raise ValueError(f"{len(buffers)} buffers for {len(params)} parameters")
    result = list(buffers)
    with torch.no_grad():
        for i, p in enumerate(params):
            g = p.grad
            if g is None:
                continue
            if result[i] is None:
                result[i] = g.detach().clone()
            else:
                if result[i].shape != p.shape:
                    raise ValueError(f"buffer {i} has shape {tuple(result[i].shape)}, parameter {tuple(p.shape)}")
                result[i] = momentum * result[i] + g
            p.sub_(lr * result[i])
    return result
""",
    },
    "honest-05": {  # einsum for every product and sum
        "manual_gradients": MG + """\
    W1, b1, W2, b2 = (params[k] for k in ("hidden.weight", "hidden.bias", "out.weight", "out.bias"))
    h = torch.tanh(torch.einsum("nd,hd->nh", x, W1) + b1)
    z = torch.einsum("nh,oh->no", h, W2) + b2
    delta = (torch.sigmoid(z) - y) / x.shape[0]
    back = torch.einsum("no,oh->nh", delta, W2) * (1 - h * h)
    return {
        "out.weight": torch.einsum("no,nh->oh", delta, h),
        "out.bias": torch.einsum("no->o", delta),
        "hidden.weight": torch.einsum("nh,nd->hd", back, x),
        "hidden.bias": torch.einsum("nh->h", back),
    }
""",
        "bce_with_logits": BC + """\
    zeros = torch.zeros_like(z)
    return torch.mean(torch.logaddexp(zeros, z) - y * z)
""",
        "sgd_momentum_step": SG + """\
    state = list(buffers) if buffers is not None else [None] * len(params)
    with torch.no_grad():
        for k, p in enumerate(params):
            if p.grad is None:
                continue
            b = state[k]
            b = p.grad.detach().clone() if b is None else b.mul(momentum).add(p.grad)
            p.add_(-lr * b)
            state[k] = b
    return state
""",
    },
    "honest-06": {  # the lesson's one-example chain rule, looped over the batch
        "manual_gradients": MG + """\
    grads = {name: torch.zeros_like(t) for name, t in params.items()}
    n = x.shape[0]
    for i in range(n):
        xi, yi = x[i], y[i]                       # [D], [1]: one example, as in the lesson
        a = params["hidden.weight"] @ xi + params["hidden.bias"]
        h = torch.tanh(a)
        z = params["out.weight"] @ h + params["out.bias"]
        dz = torch.sigmoid(z) - yi
        dh = params["out.weight"].T @ dz
        da = dh * (1 - h ** 2)
        grads["out.weight"] += torch.outer(dz, h) / n
        grads["out.bias"] += dz / n
        grads["hidden.weight"] += torch.outer(da, xi) / n
        grads["hidden.bias"] += da / n
    return grads
""",
        "bce_with_logits": BC + """\
    softplus = torch.nn.functional.softplus
    return (y * softplus(-z) + (1 - y) * softplus(z)).mean()
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    out = []
    for p, b in zip(params, buffers):
        if p.grad is not None:
            if b is None:
                b = torch.zeros_like(p.grad)
            b = momentum * b + p.grad
            with torch.no_grad():
                p -= lr * b
        out.append(b)
    return out
""",
    },
    "honest-07": {  # torch.mm, the error per example, 1/N at the end; buffers kept in place
        "manual_gradients": MG + """\
    hidden_w, hidden_b = params["hidden.weight"], params["hidden.bias"]
    out_w, out_b = params["out.weight"], params["out.bias"]
    n = len(y)
    act = torch.tanh(torch.mm(x, hidden_w.t()) + hidden_b)
    err = torch.sigmoid(torch.mm(act, out_w.t()) + out_b) - y     # per example, [N, 1]
    err_hidden = torch.mm(err, out_w) * (1 - act.pow(2))          # [N, H]
    return {
        "hidden.weight": torch.mm(err_hidden.t(), x) / n,
        "hidden.bias": err_hidden.mean(dim=0),
        "out.weight": torch.mm(err.t(), act) / n,
        "out.bias": err.mean(dim=0),
    }
""",
        "bce_with_logits": BC + """\
    logsig = torch.nn.functional.logsigmoid
    return -(y * logsig(z) + (1 - y) * logsig(-z)).mean()
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    with torch.no_grad():
        for i in range(len(params)):
            p = params[i]
            if p.grad is None:
                continue
            if buffers[i] is None:
                buffers[i] = p.grad.detach().clone()
            else:
                buffers[i].mul_(momentum).add_(p.grad)
            p.sub_(buffers[i], alpha=lr)
    return buffers
""",
    },
    "honest-08": {  # a nested sigmoid, transpose(0, 1), the dict zipped from names
        "manual_gradients": MG + """\
    def sigmoid(t):
        return 1 / (1 + torch.exp(-t))

    names = ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    W1, b1, W2, b2 = [params[name] for name in names]
    N = x.size(0)
    A = x @ W1.transpose(0, 1) + b1
    H = torch.tanh(A)
    Z = H @ W2.transpose(0, 1) + b2
    dZ = (sigmoid(Z) - y) / N
    dA = (dZ @ W2) * (1 - torch.tanh(A) ** 2)
    grads = [dA.transpose(0, 1) @ x, torch.sum(dA, dim=0), dZ.transpose(0, 1) @ H, torch.sum(dZ, dim=0)]
    return dict(zip(names, grads))
""",
        "bce_with_logits": BC + """\
    s = torch.where(y == 1, -z, z)      # the loss is softplus(s): s = -z for label 1, z for label 0
    return ((s + s.abs()) / 2 + torch.log1p(torch.exp(-s.abs()))).mean()
""",
        "sgd_momentum_step": SG + """\
    @torch.no_grad()
    def update(p, buf):
        g = p.grad
        buf = g.clone() if buf is None else g + momentum * buf
        p.copy_(p - lr * buf)
        return buf

    if buffers is None:
        buffers = [None] * len(params)
    return [buf if p.grad is None else update(p, buf) for p, buf in zip(params, buffers)]
""",
    },
    "honest-09": {  # outer products broadcast and summed; a while loop over indices
        "manual_gradients": MG + """\
    W1 = params["hidden.weight"]
    W2 = params["out.weight"]
    n = x.shape[0]
    h = torch.tanh(x @ W1.T + params["hidden.bias"])
    z = h @ W2.T + params["out.bias"]
    g_z = (torch.sigmoid(z) - y) / n                          # [N, 1]
    g_a = g_z * W2 * (1 - h * h)                              # [N, 1] * [1, H]: one output, so no matmul
    g_W1 = (g_a[:, :, None] * x[:, None, :]).sum(dim=0)      # the sum over examples of outer products
    g_W2 = (g_z * h).sum(dim=0, keepdim=True)                # [1, H]
    return {"hidden.weight": g_W1, "hidden.bias": g_a.sum(dim=0),
            "out.weight": g_W2, "out.bias": g_z.sum(dim=0)}
""",
        "bce_with_logits": BC + """\
    per_logit = 0.5 * z.abs() + (0.5 - y) * z + torch.log1p(torch.exp(-z.abs()))
    return per_logit.sum() / z.numel()
""",
        "sgd_momentum_step": SG + """\
    n = len(params)
    if buffers is None:
        buffers = [None] * n
    next_buffers = list(buffers)
    i = 0
    while i < n:
        p = params[i]
        if p.grad is not None:
            with torch.no_grad():
                if buffers[i] is None:
                    next_buffers[i] = p.grad.clone()
                else:
                    next_buffers[i] = momentum * buffers[i] + p.grad
                p.data.sub_(lr * next_buffers[i])
        i += 1
    return next_buffers
""",
    },
    "honest-10": {  # type hints and method chains
        "manual_gradients": MG + """\
    n: int = x.shape[0]
    w_hid: torch.Tensor = params["hidden.weight"]
    w_out: torch.Tensor = params["out.weight"]
    hid = torch.nn.functional.linear(x, w_hid, params["hidden.bias"]).tanh()
    logit = torch.nn.functional.linear(hid, w_out, params["out.bias"])
    d_logit = logit.sigmoid().sub(y).div(n)
    d_pre = d_logit.matmul(w_out).mul(1 - hid.pow(2))
    return {
        "hidden.weight": d_pre.t().matmul(x),
        "hidden.bias": d_pre.sum(0),
        "out.weight": d_logit.t().matmul(hid),
        "out.bias": d_logit.sum(0),
    }
""",
        "bce_with_logits": BC + """\
    a = z.abs()
    return (a.neg().exp().log1p() + (z + a).div(2) - z.mul(y)).mean()
""",
        "sgd_momentum_step": SG + """\
    previous = buffers if buffers is not None else [None] * len(params)
    new: list = []
    with torch.no_grad():
        for p, b in zip(params, previous):
            if p.grad is None:
                new.append(b)
                continue
            b = p.grad.clone() if b is None else torch.add(p.grad, b, alpha=momentum)
            p.add_(b, alpha=-lr)
            new.append(b)
    return new
""",
    },
    "honest-11": {  # a nested forward as in the lesson, .mT, the step's state keyed by position
        "manual_gradients": MG + """\
    def forward(p, inputs):
        h = torch.tanh(inputs @ p["hidden.weight"].mT + p["hidden.bias"])
        return h, h @ p["out.weight"].mT + p["out.bias"]

    h, z = forward(params, x)
    dz = torch.sigmoid(z).sub_(y).div_(x.shape[0])
    da = dz @ params["out.weight"] * (1 - h.square())
    pairs = [("out.bias", dz.sum(0)), ("out.weight", dz.mT @ h),
             ("hidden.bias", da.sum(0)), ("hidden.weight", da.mT @ x)]
    return {name: grad for name, grad in pairs}
""",
        "bce_with_logits": BC + """\
    return ((1 - y) * z - torch.nn.functional.logsigmoid(z)).mean()
""",
        "sgd_momentum_step": SG + """\
    state = {} if buffers is None else dict(enumerate(buffers))
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is None:
                continue
            if state.get(i) is None:
                state[i] = p.grad.detach().clone()
            else:
                state[i] = state[i] * momentum + p.grad
            p -= lr * state[i]
    return [state.get(i) for i in range(len(params))]
""",
    },
    "honest-12": {  # a nested linear_backward used for both layers
        "manual_gradients": MG + """\
    def linear_backward(grad_out, inputs, weight):
        return grad_out.T @ inputs, grad_out.sum(dim=0), grad_out @ weight

    w1, b1 = params["hidden.weight"], params["hidden.bias"]
    w2, b2 = params["out.weight"], params["out.bias"]
    hidden = torch.tanh(x @ w1.T + b1)
    logits = hidden @ w2.T + b2
    grad_logits = (torch.sigmoid(logits) - y) / len(x)
    gw2, gb2, grad_hidden = linear_backward(grad_logits, hidden, w2)
    gw1, gb1, _ = linear_backward(grad_hidden * (1 - hidden ** 2), x, w1)
    return {"hidden.weight": gw1, "hidden.bias": gb1, "out.weight": gw2, "out.bias": gb2}
""",
        "bce_with_logits": BC + """\
    zero = z.new_zeros(())
    pos = torch.logaddexp(zero, -z)       # -log(sigmoid(z))
    neg = torch.logaddexp(zero, z)        # -log(1 - sigmoid(z))
    return torch.mean(y * pos + (1 - y) * neg)
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    with torch.no_grad():
        new = [b if p.grad is None else (p.grad.clone() if b is None else momentum * b + p.grad)
               for p, b in zip(params, buffers)]
        for p, b in zip(params, new):
            if p.grad is not None:
                p.sub_(b * lr)
    return new
""",
    },
    "honest-13": {  # the lesson's column convention: one example a column
        "manual_gradients": MG + """\
    W1, b1, W2, b2 = params["hidden.weight"], params["hidden.bias"], params["out.weight"], params["out.bias"]
    X = x.T                                  # [D, N], one example per column as in the lesson
    A = W1 @ X + b1[:, None]                 # [H, N]
    H = torch.tanh(A)
    Z = W2 @ H + b2[:, None]                 # [1, N]
    dZ = (torch.sigmoid(Z) - y.T) / X.shape[1]
    dA = (W2.T @ dZ) * (1 - H ** 2)          # [H, N]
    return {"hidden.weight": dA @ X.T, "hidden.bias": dA.sum(axis=1),
            "out.weight": dZ @ H.T, "out.bias": dZ.sum(axis=1)}
""",
        "bce_with_logits": BC + """\
    sign = 2 * y - 1                        # +1 for label 1, -1 for label 0
    return -torch.nn.functional.logsigmoid(sign * z).mean()
""",
        "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None for p in params]
    new_state = []
    for param, velocity in zip(params, buffers):
        grad = param.grad
        if grad is not None:
            velocity = grad.detach().clone() if velocity is None else torch.mul(velocity, momentum).add(grad)
            with torch.no_grad():
                param.sub_(torch.mul(velocity, lr))
        new_state.append(velocity)
    return new_state
""",
    },
    "honest-14": {  # permute, torch.matmul, the sigmoid written out, the dict from the output back
        "manual_gradients": MG + """\
    n_examples = x.shape[0]
    hidden_pre = torch.matmul(x, params["hidden.weight"].permute(1, 0)) + params["hidden.bias"]
    hidden_out = torch.tanh(hidden_pre)
    z = torch.matmul(hidden_out, params["out.weight"].permute(1, 0)) + params["out.bias"]
    p = 1 / (1 + torch.exp(-z))
    dz = (p - y) / n_examples
    dhidden = torch.matmul(dz, params["out.weight"]) * (1 - hidden_out * hidden_out)
    result = dict()
    result["out.bias"] = torch.sum(dz, dim=0)
    result["out.weight"] = torch.matmul(dz.permute(1, 0), hidden_out)
    result["hidden.bias"] = torch.sum(dhidden, dim=0)
    result["hidden.weight"] = torch.matmul(dhidden.permute(1, 0), x)
    return result
""",
        "bce_with_logits": BC + """\
    abs_z = z.abs()
    m = torch.max(z, torch.zeros_like(z))
    loss = m - z * y + torch.log(1 + torch.exp(-abs_z))
    return loss.mean()
""",
        "sgd_momentum_step": SG + """\
    new = [None] * len(params) if buffers is None else [b for b in buffers]
    for idx, (p, g) in enumerate(zip(params, [q.grad for q in params])):
        if g is None:
            continue
        with torch.no_grad():
            if new[idx] is None:
                new[idx] = g.clone().detach()
            else:
                new[idx] = new[idx] * momentum + g
            p.add_(-lr * new[idx])
    return new
""",
    },
}

CANONICAL_OWN_NAMES = {  # the course's answers, in canonical-2's own names
    "manual_gradients": MG + """\
    w_in, b_in = params["hidden.weight"], params["hidden.bias"]
    w_o, b_o = params["out.weight"], params["out.bias"]
    hid = torch.tanh(x @ w_in.T + b_in)                 # [N, H]
    logit = hid @ w_o.T + b_o                           # [N, 1] logits
    d_logit = (torch.sigmoid(logit) - y) / x.shape[0]   # dL/dz for the mean loss
    d_hid = d_logit @ w_o                               # [N, H]
    d_pre = d_hid * (1 - hid * hid)                     # back through tanh
    return {
        "hidden.weight": d_pre.T @ x,                   # [H, D]
        "hidden.bias": d_pre.sum(dim=0),                # [H]
        "out.weight": d_logit.T @ hid,                  # [1, H]
        "out.bias": d_logit.sum(dim=0),                 # [1]
    }
""",
    "bce_with_logits": BC + """\
    # -log(sigmoid(z)) = log(1 + e^-z) and -log(1 - sigmoid(z)) = z + log(1 + e^-z);
    # log(1 + e^-z) = max(-z, 0) + log(1 + e^-|z|), where e is never raised to a positive power.
    # max(z, 0) is written (z + |z|) / 2: at z = 0 its gradient is then 1/2, the loss's own slope there
    # (clamp and relu have none at 0, and autograd gives them 1 or 0).
    elementwise = (z + z.abs()) / 2 - z * y + torch.log1p(torch.exp(-z.abs()))
    return elementwise.mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    state = []
    with torch.no_grad():
        for param, b in zip(params, buffers):
            if param.grad is None:                 # took no part in the loss: SGD skips it
                state.append(b)
                continue
            if b is None:
                b = param.grad.clone()             # the first step: the gradient itself, a copy
            else:
                b = momentum * b + param.grad
            param.sub_(lr * b)                     # in place: the same leaf tensor
            state.append(b)
    return state
""",
}

_LAMBDA = {  # honest-01's temporaries folded into lambdas and nested functions
    "manual_gradients": MG + """\
    get = lambda name: params[name]
    linear = lambda inputs, w, b: inputs @ w.T + b
    n = x.shape[0]
    h = torch.tanh(linear(x, get("hidden.weight"), get("hidden.bias")))
    dz = (torch.sigmoid(linear(h, get("out.weight"), get("out.bias"))) - y) / n

    def backward_through(delta, inputs):
        return delta.T @ inputs, delta.sum(dim=0)

    da = dz @ get("out.weight") * (1 - h ** 2)
    g_w1, g_b1 = backward_through(da, x)
    g_w2, g_b2 = backward_through(dz, h)
    grads = {}
    grads["hidden.weight"] = g_w1
    grads["hidden.bias"] = g_b1
    grads["out.weight"] = g_w2
    grads["out.bias"] = g_b2
    return grads
""",
    "bce_with_logits": BC + """\
    softplus_of = lambda t: (t.abs() + t) / 2 + torch.log1p(torch.exp(-t.abs()))
    per_label = lambda if_one, if_zero: y * if_one + (1 - y) * if_zero
    return per_label(softplus_of(-z), softplus_of(z)).mean()
""",
    "sgd_momentum_step": SG + """\
    def step_one(param, old_buffer):
        if param.grad is None:
            return old_buffer
        new_buffer = param.grad.clone() if old_buffer is None else momentum * old_buffer + param.grad
        param -= lr * new_buffer
        return new_buffer

    if buffers is None:
        buffers = [None] * len(params)
    with torch.no_grad():
        new_buffers = [step_one(params[i], buffers[i]) for i in range(len(params))]
    return new_buffers
""",
}

_INLINE = {  # honest-08's nested functions inlined, the names list written as a dict literal
    "manual_gradients": MG + """\
    W1 = params["hidden.weight"]
    W2 = params["out.weight"]
    H = torch.tanh(x @ W1.transpose(0, 1) + params["hidden.bias"])
    dZ = (1 / (1 + torch.exp(-(H @ W2.transpose(0, 1) + params["out.bias"]))) - y) / x.size(0)
    dA = (dZ @ W2) * (1 - torch.tanh(x @ W1.transpose(0, 1) + params["hidden.bias"]) ** 2)
    return {"hidden.weight": dA.transpose(0, 1) @ x, "hidden.bias": torch.sum(dA, dim=0),
            "out.weight": dZ.transpose(0, 1) @ H, "out.bias": torch.sum(dZ, dim=0)}
""",
    "bce_with_logits": BC + """\
    flipped = (1 - 2 * y) * z
    return ((flipped + flipped.abs()) / 2 + torch.log1p(torch.exp(-flipped.abs()))).mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    result = []
    for p, buf in zip(params, buffers):
        if p.grad is not None:
            with torch.no_grad():
                buf = p.grad.clone() if buf is None else p.grad + momentum * buf
                p.copy_(p - lr * buf)
        result.append(buf)
    return result
""",
}

_AUGMENTED = {  # honest-06's augmented assignments written out, operands swapped, temporaries inlined
    "manual_gradients": MG + """\
    grads = {name: torch.zeros_like(t) for name, t in params.items()}
    n = x.shape[0]
    for i in range(n):
        xi = x[i]
        yi = y[i]
        h = torch.tanh(params["hidden.weight"] @ xi + params["hidden.bias"])
        dz = torch.sigmoid(params["out.weight"] @ h + params["out.bias"]) - yi
        da = (params["out.weight"].T @ dz) * (1 - h ** 2)
        grads["out.weight"] = torch.outer(dz, h) / n + grads["out.weight"]
        grads["out.bias"] = grads["out.bias"] + dz / n
        grads["hidden.weight"] = torch.outer(da, xi) / n + grads["hidden.weight"]
        grads["hidden.bias"] = grads["hidden.bias"] + da / n
    return grads
""",
    "bce_with_logits": BC + """\
    return ((1 - y) * torch.nn.functional.softplus(z) + torch.nn.functional.softplus(-z) * y).mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None for _ in params]
    out = []
    for p, b in zip(params, buffers):
        if p.grad is not None:
            if b is None:
                b = torch.zeros_like(p.grad)
            b = p.grad + b * momentum
            with torch.no_grad():
                p.sub_(b * lr)
        out.append(b)
    return out
""",
}

_LOOPS = {  # honest-09's while loop as enumerate, and other spellings
    "manual_gradients": MG + """\
    W1 = params["hidden.weight"]
    W2 = params["out.weight"]
    n = x.shape[0]
    h = torch.tanh(x @ W1.T + params["hidden.bias"])
    z = h @ W2.T + params["out.bias"]
    g_z = (torch.sigmoid(z) - y) / n
    g_a = g_z * W2 * (1 - h.square())
    g_W1 = (g_a.unsqueeze(2) * x.unsqueeze(1)).sum(dim=0)
    g_W2 = (g_z * h).sum(dim=0).unsqueeze(0)
    return {"hidden.weight": g_W1, "hidden.bias": g_a.sum(dim=0),
            "out.weight": g_W2, "out.bias": g_z.sum(dim=0)}
""",
    "bce_with_logits": BC + """\
    per_logit = 0.5 * z.abs() + (0.5 - y) * z + torch.log1p(torch.exp(-z.abs()))
    return per_logit.mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is None:
        buffers = [None] * len(params)
    next_buffers = list(buffers)
    for i, p in enumerate(params):
        if p.grad is None:
            continue
        with torch.no_grad():
            next_buffers[i] = p.grad.clone() if buffers[i] is None else momentum * buffers[i] + p.grad
            p.data.sub_(lr * next_buffers[i])
    return next_buffers
""",
}

_DATACLASS = {  # honest-11's forward and step state held in dataclasses; the loss left as taken
    "manual_gradients": """\
from dataclasses import dataclass


@dataclass
class ForwardPass:
    h: torch.Tensor
    z: torch.Tensor


def run_forward(p, inputs):
    h = torch.tanh(inputs @ p["hidden.weight"].mT + p["hidden.bias"])
    return ForwardPass(h=h, z=h @ p["out.weight"].mT + p["out.bias"])


""" + MG + """\
    fp = run_forward(params, x)
    dz = torch.sigmoid(fp.z).sub_(y).div_(x.shape[0])
    da = dz @ params["out.weight"] * (1 - fp.h.square())
    pairs = [("out.bias", dz.sum(0)), ("out.weight", dz.mT @ fp.h),
             ("hidden.bias", da.sum(0)), ("hidden.weight", da.mT @ x)]
    return {name: grad for name, grad in pairs}
""",
    "sgd_momentum_step": """\
from dataclasses import dataclass, field


@dataclass
class MomentumState:
    lr: float
    momentum: float
    buffers: dict = field(default_factory=dict)

    def apply(self, i, p):
        if p.grad is None:
            return
        if self.buffers.get(i) is None:
            self.buffers[i] = p.grad.detach().clone()
        else:
            self.buffers[i] = self.buffers[i] * self.momentum + p.grad
        p -= self.lr * self.buffers[i]


""" + SG + """\
    state = MomentumState(lr, momentum, {} if buffers is None else dict(enumerate(buffers)))
    with torch.no_grad():
        for i, p in enumerate(params):
            state.apply(i, p)
    return [state.buffers.get(i) for i in range(len(params))]
""",
}

_DEADCODE = {  # honest-04's with dead code and unused variables, an assert dropped
    "manual_gradients": MG + """\
    expected = {"hidden.weight", "hidden.bias", "out.weight", "out.bias"}
    if set(params) != expected:
        raise KeyError(f"params must have the keys {sorted(expected)}, got {sorted(params)}")
    debug = False
    eps = 1e-12
    if x.dim() != 2 or y.dim() != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(f"expected x [N, D] and y [N, 1], got {tuple(x.shape)} and {tuple(y.shape)}")
    w_hidden, b_hidden = params["hidden.weight"], params["hidden.bias"]
    w_out, b_out = params["out.weight"], params["out.bias"]
    n = x.shape[0]
    n_features = x.shape[1]
    if n == 0:
        raise ValueError("empty batch")
    hidden = torch.tanh(torch.addmm(b_hidden, x, w_hidden.T))
    logits = torch.addmm(b_out, hidden, w_out.T)
    probs = torch.sigmoid(logits)
    if debug:
        print("loss:", -(y * torch.log(probs + eps) + (1 - y) * torch.log(1 - probs + eps)).mean())
    delta_out = (probs - y) / n
    delta_hidden = (delta_out @ w_out) * (1 - hidden.square())
    grads = {
        "out.weight": delta_out.T @ hidden,
        "out.bias": delta_out.sum(dim=0),
        "hidden.weight": delta_hidden.T @ x,
        "hidden.bias": delta_hidden.sum(dim=0),
    }
    for name, g in grads.items():
        assert g.shape == params[name].shape, f"{name}: gradient {tuple(g.shape)} != {tuple(params[name].shape)}"
    return grads
""",
    "bce_with_logits": BC + """\
    if z.shape != y.shape:
        raise ValueError(f"z and y must have the same shape, got {tuple(z.shape)} and {tuple(y.shape)}")
    if z.numel() == 0:
        raise ValueError("no logits")
    y = y.to(z.dtype)
    naive = None  # sigmoid then log gives inf for big logits, not used
    a = z.abs()
    loss = torch.log1p(torch.exp(-a)) + 0.5 * (a - z) + (1 - y) * z
    count = loss.numel()
    return loss.mean()
""",
    "sgd_momentum_step": SG + """\
    if lr < 0 or momentum < 0:
        raise ValueError(f"lr and momentum must be non-negative, got lr={lr}, momentum={momentum}")
    if buffers is None:
        buffers = [None] * len(params)
    if len(buffers) != len(params):
        raise ValueError(f"{len(buffers)} buffers for {len(params)} parameters")
    result = list(buffers)
    steps_taken = 0
    with torch.no_grad():
        for i, p in enumerate(params):
            g = p.grad
            if g is None:
                continue
            if result[i] is None:
                result[i] = g.detach().clone()
            else:
                if result[i].shape != p.shape:
                    raise ValueError(f"buffer {i} has shape {tuple(result[i].shape)}, parameter {tuple(p.shape)}")
                result[i] = momentum * result[i] + g
            before = p.clone()
            p.sub_(lr * result[i])
            steps_taken += 1
    return result
""",
}

_NEGATED = {  # honest-14's conditions negated with their branches swapped, operands swapped
    "manual_gradients": MG + """\
    n_examples, hidden_pre = x.shape[0], params["hidden.bias"] + torch.matmul(x, params["hidden.weight"].permute(1, 0))
    hidden_out = torch.tanh(hidden_pre)
    z = params["out.bias"] + torch.matmul(hidden_out, params["out.weight"].permute(1, 0))
    p = 1 / (torch.exp(0 - z) + 1)
    dz = (p - y) / n_examples
    dhidden = (1 - hidden_out * hidden_out) * torch.matmul(dz, params["out.weight"])
    result = dict()
    result["hidden.weight"] = torch.matmul(dhidden.permute(1, 0), x)
    result["hidden.bias"] = torch.sum(dhidden, dim=0)
    result["out.weight"] = torch.matmul(dz.permute(1, 0), hidden_out)
    result["out.bias"] = torch.sum(dz, dim=0)
    return result
""",
    "bce_with_logits": BC + """\
    abs_z = z.abs()
    m = torch.max(z, torch.zeros_like(z))
    loss = torch.log(torch.exp(0 - abs_z) + 1) + (m - y * z)
    return loss.mean()
""",
    "sgd_momentum_step": SG + """\
    if buffers is not None:
        new = [b for b in buffers]
    else:
        new = [None] * len(params)
    for idx, (p, g) in enumerate(zip(params, [q.grad for q in params])):
        if g is not None:
            with torch.no_grad():
                if new[idx] is not None:
                    new[idx] = momentum * new[idx] + g
                else:
                    new[idx] = g.clone().detach()
                p.add_(-lr * new[idx])
    return new
""",
}

_CHAIN_B = {  # honest-05's renamed throughout (the einsum subscripts too), comments added
    "manual_gradients": MG + """\
    # weights and biases of both layers
    wa, ba, wb, bb = (params[key] for key in ("hidden.weight", "hidden.bias", "out.weight", "out.bias"))
    # forward: hidden activations, then the logits
    act = torch.tanh(torch.einsum("bi,ji->bj", x, wa) + ba)
    score = torch.einsum("bj,kj->bk", act, wb) + bb
    # backward: error at the logits (mean loss, so / N), then at the hidden pre-activations
    err = (torch.sigmoid(score) - y) / x.shape[0]
    err_h = torch.einsum("bk,kj->bj", err, wb) * (1 - act * act)
    return {
        "out.weight": torch.einsum("bk,bj->kj", err, act),
        "out.bias": torch.einsum("bk->k", err),
        "hidden.weight": torch.einsum("bj,bi->ji", err_h, x),
        "hidden.bias": torch.einsum("bj->j", err_h),
    }
""",
    "bce_with_logits": BC + """\
    base = torch.zeros_like(z)  # log(e^0 + e^z) = log(1 + e^z), computed without overflow
    return torch.mean(torch.logaddexp(base, z) - y * z)
""",
    "sgd_momentum_step": SG + """\
    velocities = list(buffers) if buffers is not None else [None] * len(params)
    with torch.no_grad():  # the update is not part of any graph
        for j, w in enumerate(params):
            if w.grad is None:  # no gradient, nothing to do
                continue
            v = velocities[j]
            v = w.grad.detach().clone() if v is None else v.mul(momentum).add(w.grad)
            w.add_(-lr * v)
            velocities[j] = v
    return velocities
""",
}

_CHAIN_C = {  # chain-b's reworked: einsum as @ and .sum, operands swapped, a conditional as if/else
    "manual_gradients": MG + """\
    wa, ba, wb, bb = (params[key] for key in ("hidden.weight", "hidden.bias", "out.weight", "out.bias"))
    # hidden layer, then output logits
    act = torch.tanh(x @ wa.T + ba)
    score = act @ wb.T + bb
    # error signal at the output (divided by N: the loss is a mean) and at the hidden layer
    err = (torch.sigmoid(score) - y) / x.shape[0]
    err_h = (err @ wb) * (1 - act * act)
    return {
        "out.weight": err.T @ act,
        "out.bias": err.sum(0),
        "hidden.weight": err_h.T @ x,
        "hidden.bias": err_h.sum(0),
    }
""",
    "bce_with_logits": BC + """\
    # log(1 + e^z) computed as logaddexp(z, 0), which never overflows
    return (torch.logaddexp(z, torch.zeros_like(z)) - z * y).mean()
""",
    "sgd_momentum_step": SG + """\
    velocities = list(buffers) if buffers is not None else [None] * len(params)
    with torch.no_grad():
        for j, w in enumerate(params):
            if w.grad is None:
                continue
            v = velocities[j]
            if v is None:
                v = w.grad.detach().clone()
            else:
                v = momentum * v + w.grad
            w -= lr * v
            velocities[j] = v
    return velocities
""",
}

_MERGE = {  # honest-13's gradients and honest-10's loss and step, docstrings rewritten
    "manual_gradients": MG_DEF + """\
    \"\"\"Backprop by hand for the tanh net; columns are examples.\"\"\"
    W1 = params["hidden.weight"]
    b1 = params["hidden.bias"]
    W2 = params["out.weight"]
    b2 = params["out.bias"]
    X = x.T
    A = W1 @ X + b1.unsqueeze(1)
    H = torch.tanh(A)
    Z = W2 @ H + b2.unsqueeze(1)
    dZ = (torch.sigmoid(Z) - y.T) / X.shape[1]
    dA = (W2.T @ dZ) * (1 - H ** 2)
    return {"hidden.weight": dA @ X.T, "hidden.bias": dA.sum(dim=1),
            "out.weight": dZ @ H.T, "out.bias": dZ.sum(dim=1)}
""",
    "bce_with_logits": BC_DEF + """\
    \"\"\"BCE on logits, averaged; stable because exp only ever sees -|z|.\"\"\"
    a = z.abs()
    return (torch.log1p(torch.exp(-a)) + (z + a) / 2 - z * y).mean()
""",
    "sgd_momentum_step": SG_DEF + """\
    \"\"\"SGD + momentum, one step, params changed in place; gives back the new buffers.\"\"\"
    if buffers is not None:
        previous = buffers
    else:
        previous = [None] * len(params)
    new = []
    with torch.no_grad():
        for p, b in zip(params, previous):
            if p.grad is None:
                new.append(b)
                continue
            b = p.grad.clone() if b is None else torch.add(p.grad, b, alpha=momentum)
            p.add_(b, alpha=-lr)
            new.append(b)
    return new
""",
}

_HALF = {  # honest-12's nested helper moved to module level, its results indexed
    "manual_gradients": """\
def layer_grads(grad_out, inputs, weight):
    \"\"\"(dL/dW, dL/db, dL/dinputs) of a linear layer inputs @ weight.T + b, from dL/doutputs.\"\"\"
    return grad_out.T @ inputs, grad_out.sum(dim=0), grad_out @ weight


""" + MG + """\
    hidden = torch.tanh(x @ params["hidden.weight"].T + params["hidden.bias"])
    grad_logits = (torch.sigmoid(hidden @ params["out.weight"].T + params["out.bias"]) - y) / len(x)
    out_grads = layer_grads(grad_logits, hidden, params["out.weight"])
    hidden_grads = layer_grads(out_grads[2] * (1 - hidden ** 2), x, params["hidden.weight"])
    return {"hidden.weight": hidden_grads[0], "hidden.bias": hidden_grads[1],
            "out.weight": out_grads[0], "out.bias": out_grads[1]}
""",
}

_HALF_OWN = {  # ... and the other two of the copier's own
    "bce_with_logits": BC + """\
    # loss = log(1 + e^-z) + (1 - y) z, and log(1 + e^-z) = max(-z, 0) + log(1 + e^-|z|)
    loss = torch.log1p(torch.exp(-z.abs())) + torch.maximum(-z, torch.zeros_like(z)) + z - z * y
    return loss.mean()
""",
    "sgd_momentum_step": SG + """\
    momentum_buffers = [None] * len(params) if buffers is None else list(buffers)
    for i in range(len(params)):
        grad = params[i].grad
        if grad is None:
            continue
        with torch.no_grad():
            if momentum_buffers[i] is None:
                momentum_buffers[i] = torch.clone(grad)
            else:
                momentum_buffers[i] = momentum_buffers[i] * momentum + grad
            params[i].sub_(lr * momentum_buffers[i])
    return momentum_buffers
""",
}

_ALL = ("manual_gradients", "bce_with_logits", "sgd_momentum_step")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-lambda", "temporaries folded into lambdas and nested functions", _taken("honest-01"), _LAMBDA),
    Copy("copier-inline", "nested functions and named temporaries inlined, a comprehension as a loop",
         _taken("honest-08"), _INLINE),
    Copy("copier-augmented", "augmented assignments written out, operands swapped, temporaries inlined",
         _taken("honest-06"), _AUGMENTED),
    Copy("copier-loops", "a while loop as enumerate, other torch spellings", _taken("honest-09"), _LOOPS),
    Copy("copier-dataclass", "state held in dataclasses", _taken("honest-11"), _DATACLASS),
    Copy("copier-deadcode", "dead code and unused variables added", _taken("honest-04"), _DEADCODE),
    Copy("copier-negated", "conditions negated with branches swapped, operands swapped, a tuple merged",
         _taken("honest-14"), _NEGATED),
    Copy("chain-b", "renamed throughout, einsum subscripts too, comments added (first link of a chain)",
         _taken("honest-05"), _CHAIN_B),
    Copy("chain-c", "einsum as matmul, operands swapped, a conditional as if/else (second link of a chain)",
         _taken("chain-b"), _CHAIN_C),
    Copy("copier-merge", "two classmates merged, a tuple assignment split, method chains as operators, "
         "docstrings rewritten",
         {"manual_gradients": "honest-13", "bce_with_logits": "honest-10", "sgd_momentum_step": "honest-10"},
         _MERGE),
    Copy("copier-half", "one cell copied, a nested helper moved to module level", _taken("honest-12",
         ("manual_gradients",)), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 01b (twenty-seven students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
