"""A planted cohort of module 01, its second, written apart from the normaliser and the detector.

The module's graded answers are ``make_blobs`` (two Gaussian blobs, ``x`` float32 ``[n, 2]`` and ``y`` float32
``[n, 1]`` of 0/1, balanced, on ``device``, every draw from ``generator``), ``standardize`` (per-feature zero mean
and unit std over dim 0, the caller's tensor left alone), ``pairwise_sq_dists`` (``[n, d]`` and ``[m, d]`` to the
``[n, m]`` squared distances) and ``align_targets`` (``y`` reshaped to the logits' shape, or a ``ValueError``
naming both shapes when the element counts differ).

Seventeen honest students answer in their own styles:

- ``honest-01``: a physics student's explicit broadcasting: each class's centre ``expand``-ed to its rows and
  concatenated, ``expand_as`` for the statistics, both point sets ``expand``-ed to ``[n, m, d]``.
- ``honest-02``: ``torch.Tensor`` methods only: labels from ``arange(n).ge(...)``, the blobs as
  ``randn(...).mul(0.5).add(y.mul(2.0))``, ``x.sub(...).div(...)``, ``unsqueeze(...).sub(...).pow(2).sum(-1)``,
  a ``str.format`` message and ``reshape_as``.
- ``honest-03``: pre-allocates with ``torch.empty`` and fills: each half of ``x`` with ``normal_`` and a
  generator, the result column by column in a loop over features, the distances through ``sum(..., out=)``,
  the targets ``copy_``-ed into ``empty_like``.
- ``honest-04``: linear algebra: labels alternating then shuffled by ``randperm``, the standard deviation as
  the square root of the covariance matrix's diagonal, the distances as ``|a|^2 + |b|^2 - 2ab`` clamped at 0,
  ``view`` for the targets.
- ``honest-05``: small pure module-level helpers (a class split, one cloud, centring, scaling, rows and columns
  as views, a squared norm, a message) composed by each answer.
- ``honest-06``: ``math`` and Python loops: each point built in a loop from ``cos``/``sin`` of its class's angle
  and the generator's noise as a list, mean and variance from sums over ``n`` and ``n - 1``, ``reshape(len(a),
  1, -1)``, ``math.prod`` of the shapes and a ``%`` message.
- ``honest-07``: sloppy: redundant ``.clone()`` and ``.float()`` everywhere, a centred clone updated with
  ``-=``/``/=``, a message built by concatenating ``str(shape)``.
- ``honest-08``: ``torch.`` functions rather than methods or operators: ``torch.where`` for the labels and the
  centres, ``torch.div(torch.sub(...))``, ``torch.sum(torch.square(...))``, ``torch.numel``/``torch.reshape``.
- ``honest-09``: ``torch.normal`` around a tensor of means, ``torch.std_mean``, ``torch.cdist`` squared, a
  self-documenting f-string (``{y.shape=}``) and ``view_as``.
- ``honest-10``: defensive: type, rank, size and zero-std checks that raise, asserts on every result shape.
- ``honest-11``: the lesson's two clouds concatenated, the std of the centred data, ``unsqueeze``; the targets
  by cases (already aligned, ``unsqueeze(1)``, ``squeeze(1)``, else ``reshape``).
- ``honest-12``: ``torch.einsum`` for every product and sum (an outer product of signs and a direction, column
  sums, the squared norms of the differences).
- ``honest-13``: dtype-careful: ``dtype=torch.float32`` spelled out, the population variance
  (``correction=0``) and ``rsqrt``, negative dims (``unsqueeze(-2)``/``unsqueeze(-3)``).
- ``honest-14``: numpy-minded: a seed drawn from the generator for a NumPy ``default_rng``, ``axis=`` and
  ``keepdims=``, ``np.newaxis``, ``np.prod`` of the shapes.
- ``honest-15``: type hints on every signature and temporary, the population std (``unbiased=False``),
  ``square()``.
- ``honest-16``: terse one-liners: alternating labels, ``(x - x.mean(0)) / x.std(0)``,
  ``((a[:, None] - b[None]) ** 2).sum(-1)``, ``view``.
- ``honest-17``: ``torch.stack`` and ``repeat_interleave``: class counts repeated, the statistics stacked, the
  pairs tiled with ``repeat_interleave``/``repeat`` and reshaped to ``[n, m]``.

Where the answer is short they converge as students do (``x.mean(0)``, ``x.std(0)``, ``a[:, None] - b[None]``,
``numel`` and ``reshape``).  Two write the course's answer: ``canonical-1`` hands in the reference word for
word, ``canonical-2`` in their own names.

Nineteen copy, and disguise what they take:

- ``copier-rename`` (honest-03, all four): every local name changed, comments rewritten.
- ``copier-reorder`` (honest-10, all four): independent statements reordered (the class sizes, the centres,
  ``y`` before ``x``; the std before the mean), the operands of an ``or`` swapped, comments dropped; the checks
  that raise keep their order; the distances left as taken.
- ``copier-helpers`` (honest-17, all four): code moved into nested functions and lambdas (a repeat, the stacked
  statistics, the tiling of either side, the exception built by a helper).
- ``copier-inline`` (honest-05, all four): the reverse: every helper inlined into the answer that called it.
- ``copier-class`` (honest-13, all four): state held in objects: a dataclass for the blobs with a ``sample``
  method, a fitted ``Standardizer``, a ``Targets`` object holding the logits' shape and count; the distances
  left as taken.
- ``copier-loops`` (honest-06, all four): the point loop as comprehensions and ``map``, ``math.prod`` as a
  ``while`` loop; the statistics and the distances left as taken.
- ``copier-negated`` (honest-11, all four): the targets' cases turned inside out (conditions negated, branches
  swapped, the aligned case last), a repeated literal named once.
- ``copier-spelling`` (honest-01, all four): equivalent PyTorch spellings: ``torch.zeros``/``torch.full`` for
  the centres, ``[None, :]``, ``expand(..., -1)`` and ``expand(x.shape)``, ``torch.std``, ``.div``, ``.pow(2)``,
  ``sum(-1)``, ``size(0)``, ``reshape_as``, a size as a tuple.
- ``copier-arith`` (honest-15, all four): arithmetic rewritten where the result is the same (operands of ``+``
  and ``*`` swapped, ``x - mean`` as ``-mean + x``, ``a - b`` as ``a + (-b)``, ``square()`` as ``d * d``),
  ``unbiased=False`` as ``correction=0``, the type hints dropped.
- ``copier-deadcode`` (honest-07, all four): dead code: a debug flag and prints under it, asserts that always
  hold, unused shapes and a step counter.
- ``copier-args`` (honest-08, all four): the arguments renamed (``count``, ``t``, ``p``/``q``,
  ``pred``/``target``), messages reworded (still naming both shapes).
- ``chain-b`` (honest-14, all four) renames everything and adds comments, its message reworded; ``chain-c``
  (chain-b, all four) introduces and removes temporaries (the generator's seed inlined, the labels' count
  named), the NumPy spellings as torch's (``dim=``, ``keepdim=``, ``None``), ``np.prod`` as ``numel``.
- ``copier-merge`` takes ``standardize`` and ``pairwise_sq_dists`` from honest-04 (``.T`` as ``.t()``,
  ``clamp_min`` as ``clamp(min=)``, ``keepdim=True`` as ``[:, None]``, comments rewritten) and ``make_blobs``
  and ``align_targets`` from honest-09 (``view_as`` as ``view``, ``{y.shape=}`` written out, a docstring
  rewritten).
- ``copier-half`` takes ``standardize`` and ``align_targets`` from honest-02 (methods as ``torch.`` functions,
  the message as an f-string) and writes the other two alone.
- ``copier-constants`` (honest-12, all four): the literals hoisted into module-level constants (the centres'
  spread and direction, every einsum subscript).
- ``copier-modern`` (honest-06, all four): newer syntax: ``enumerate`` with unpacking, assignment expressions
  (``:=``), an f-string for a ``%`` message; the distances left as taken.
- ``copier-numpy`` (honest-16, all four): NumPy-compatible spellings: ``axis=``, ``np.newaxis``, ``np.prod``
  of the shapes; the blobs left as taken.
- ``copier-annotated`` (honest-02, all four): type annotations on every signature and NumPy-style docstrings
  added, the code left as taken.

Every answer passes the module's checks, visible and hidden, and every copied answer does what its source does
on :mod:`.planted_run`'s inputs.  The truth follows from where each answer came from
(:func:`.planted.assemble`); ``python -m autograder.dev.planted_01x`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures
from .planted_01 import AT, AT_DOC, MB, MB_DEF, MB_DOC, MODULE, PW, PW_DOC, ST, ST_DOC  # the stubs' lines

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # explicit broadcasting with expand
        "make_blobs": MB + """\
    n1 = n // 2                       # class 1
    n0 = n - n1                       # class 0 takes the odd one
    centre0 = torch.tensor([0.0, 0.0])
    centre1 = torch.tensor([3.0, 3.0])
    centres = torch.cat([centre0.expand(n0, 2), centre1.expand(n1, 2)], dim=0)   # (n, 2)
    noise = torch.randn(n, 2, generator=generator)                                # (n, 2)
    x = centres + noise
    y = torch.cat([torch.zeros(n0, 1), torch.ones(n1, 1)], dim=0)                 # (n, 1)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    mu = x.mean(dim=0, keepdim=True).expand_as(x)        # (1, d) stretched to (n, d), no copy
    sigma = x.std(dim=0, keepdim=True).expand_as(x)
    return (x - mu) / sigma
""",
        "pairwise_sq_dists": PW + """\
    n, d = a.shape
    m = b.shape[0]
    A = a.unsqueeze(1).expand(n, m, d)      # A[i, j] = a[i]
    B = b.unsqueeze(0).expand(n, m, d)      # B[i, j] = b[j]
    return ((A - B) ** 2).sum(dim=2)
""",
        "align_targets": AT + """\
    if logits.numel() != y.numel():
        raise ValueError(f"cannot align y of shape {tuple(y.shape)} with logits of shape {tuple(logits.shape)}")
    return y.reshape(logits.shape)
""",
    },
    "honest-02": {  # Tensor methods only
        "make_blobs": MB + """\
    half = n // 2
    y = torch.arange(n).ge(n - half).float().unsqueeze(1)
    x = torch.randn(n, 2, generator=generator).mul(0.5).add(y.mul(2.0))
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    return x.sub(x.mean(0)).div(x.std(0))
""",
        "pairwise_sq_dists": PW + """\
    return a.unsqueeze(1).sub(b.unsqueeze(0)).pow(2).sum(-1)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError("shape mismatch: logits {} vs y {}".format(list(logits.shape), list(y.shape)))
    return y.reshape_as(logits)
""",
    },
    "honest-03": {  # pre-allocate with torch.empty and fill
        "make_blobs": MB + """\
    x = torch.empty(n, 2)
    y = torch.empty(n, 1)
    n0 = (n + 1) // 2                       # class 0 gets the extra point when n is odd
    x[:n0].normal_(mean=-1.5, std=1.0, generator=generator)
    x[n0:].normal_(mean=1.5, std=1.0, generator=generator)
    y[:n0] = 0.0
    y[n0:] = 1.0
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    out = torch.empty_like(x)
    for j in range(x.shape[1]):
        col = x[:, j]
        out[:, j] = (col - col.mean()) / col.std()
    return out
""",
        "pairwise_sq_dists": PW + """\
    out = torch.empty(a.shape[0], b.shape[0], dtype=a.dtype, device=a.device)
    torch.sum((a[:, None, :] - b[None, :, :]) ** 2, dim=2, out=out)
    return out
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"y {tuple(y.shape)} has {y.numel()} values, logits {tuple(logits.shape)} has {logits.numel()}")
    out = torch.empty_like(logits, dtype=y.dtype)
    out.copy_(y.reshape(logits.shape))
    return out
""",
    },
    "honest-04": {  # linear algebra: covariance diagonal, |a|^2 + |b|^2 - 2ab
        "make_blobs": MB + """\
    labels = torch.arange(n) % 2                                   # 0, 1, 0, 1, ...: balanced
    labels = labels[torch.randperm(n, generator=generator)]        # shuffled
    centres = 2 * torch.tensor([[-1.0, 0.0], [1.0, 0.0]])
    x = centres[labels] + 0.7 * torch.randn(n, 2, generator=generator)
    y = labels.float().unsqueeze(-1)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    centred = x - x.mean(dim=0)
    cov = centred.T @ centred / (x.shape[0] - 1)      # (d, d) sample covariance
    return centred / cov.diagonal().sqrt()
""",
        "pairwise_sq_dists": PW + """\
    a_sq = (a * a).sum(dim=1, keepdim=True)      # (n, 1)
    b_sq = (b * b).sum(dim=1)                    # (m,)
    d2 = a_sq + b_sq - 2 * a @ b.T               # |a|^2 + |b|^2 - 2 a.b
    return d2.clamp_min(0.0)                     # rounding can leave tiny negatives
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"logits {list(logits.shape)} and targets {list(y.shape)} hold different numbers of elements")
    return y.view(logits.shape)
""",
    },
    "honest-05": {  # small pure helpers
        "make_blobs": """\
def class_sizes(n):
    return n - n // 2, n // 2


def cloud(centre, count, generator):
    return torch.tensor(centre) + torch.randn(count, 2, generator=generator)


""" + MB + """\
    n0, n1 = class_sizes(n)
    x = torch.cat([cloud([0.0, -2.0], n0, generator), cloud([0.0, 2.0], n1, generator)])
    y = torch.cat([torch.zeros(n0), torch.ones(n1)]).unsqueeze(1)
    return x.to(device), y.to(device)
""",
        "standardize": """\
def centre_columns(x):
    return x - x.mean(dim=0, keepdim=True)


def column_spread(x):
    return x.std(dim=0, keepdim=True)


""" + ST + """\
    return centre_columns(x) / column_spread(x)
""",
        "pairwise_sq_dists": """\
def as_rows(t):
    return t.unsqueeze(1)


def as_cols(t):
    return t.unsqueeze(0)


def squared_norm(v):
    return (v ** 2).sum(dim=-1)


""" + PW + """\
    return squared_norm(as_rows(a) - as_cols(b))
""",
        "align_targets": """\
def shapes_message(logits, y):
    return f"logits {tuple(logits.shape)} vs y {tuple(y.shape)}"


""" + AT + """\
    if logits.numel() != y.numel():
        raise ValueError("element counts differ: " + shapes_message(logits, y))
    return y.reshape(logits.shape)
""",
    },
    "honest-06": {  # math and Python loops
        "make_blobs": """\
import math


""" + MB + """\
    noise = torch.randn(n, 2, generator=generator).tolist()
    rows = []
    labels = []
    for i in range(n):
        label = i % 2
        angle = math.pi * label              # class 0 at angle 0, class 1 opposite it
        cx = 2 * math.cos(angle)
        cy = 2 * math.sin(angle)
        rows.append([cx + noise[i][0], cy + noise[i][1]])
        labels.append([float(label)])
    x = torch.tensor(rows, dtype=torch.float32, device=device)
    y = torch.tensor(labels, dtype=torch.float32, device=device)
    return x, y
""",
        "standardize": ST + """\
    n = x.shape[0]
    mean = x.sum(dim=0) / n
    var = ((x - mean) ** 2).sum(dim=0) / (n - 1)
    return (x - mean) / torch.sqrt(var)
""",
        "pairwise_sq_dists": PW + """\
    diff = a.reshape(len(a), 1, -1) - b.reshape(1, len(b), -1)
    return (diff * diff).sum(2)
""",
        "align_targets": """\
import math


""" + AT + """\
    count_logits = math.prod(logits.shape)
    count_y = math.prod(y.shape)
    if count_logits != count_y:
        raise ValueError("logits have shape %s but y has shape %s" % (tuple(logits.shape), tuple(y.shape)))
    return y.reshape(logits.shape)
""",
    },
    "honest-07": {  # sloppy: redundant clones and floats
        "make_blobs": MB + """\
    n_a = n // 2
    n_b = n - n_a
    xa = torch.randn(n_a, 2, generator=generator).float() + torch.tensor([2.0, 2.0])
    xb = torch.randn(n_b, 2, generator=generator).float() - torch.tensor([2.0, 2.0])
    x = torch.cat((xa, xb)).clone().float()
    y = torch.cat((torch.ones(n_a), torch.zeros(n_b))).float().clone()
    y = y.reshape(n, 1).float()
    return x.float().to(device), y.float().to(device)
""",
        "standardize": ST + """\
    x = x.clone()
    x -= x.mean(dim=0)
    x /= x.std(dim=0)
    return x.clone()
""",
        "pairwise_sq_dists": PW + """\
    a = a.clone()
    b = b.clone()
    d = (a.unsqueeze(1) - b.unsqueeze(0)).clone()
    return (d ** 2).sum(2).clone()
""",
        "align_targets": AT + """\
    y = y.clone()
    if y.numel() != logits.numel():
        raise ValueError("wrong shapes! logits: " + str(logits.shape) + " y: " + str(y.shape))
    return y.reshape(logits.shape).clone()
""",
    },
    "honest-08": {  # torch. functions rather than methods and operators
        "make_blobs": MB + """\
    idx = torch.arange(n)
    is_one = idx < n // 2
    y = torch.unsqueeze(torch.where(is_one, 1.0, 0.0), 1)
    noise = torch.randn(n, 2, generator=generator)
    shift = torch.where(torch.unsqueeze(is_one, 1), torch.tensor([1.5, -1.5]), torch.tensor([-1.5, 1.5]))
    x = torch.add(shift, noise)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    return torch.div(torch.sub(x, torch.mean(x, dim=0)), torch.std(x, dim=0))
""",
        "pairwise_sq_dists": PW + """\
    return torch.sum(torch.square(torch.sub(torch.unsqueeze(a, 1), torch.unsqueeze(b, 0))), dim=2)
""",
        "align_targets": AT + """\
    if torch.numel(y) != torch.numel(logits):
        raise ValueError(f"y with shape {tuple(y.shape)} cannot be reshaped to the logits' shape {tuple(logits.shape)}")
    return torch.reshape(y, logits.shape)
""",
    },
    "honest-09": {  # torch.normal, std_mean, cdist
        "make_blobs": MB + """\
    k = n // 2
    means = torch.zeros(n, 2)
    means[k:] = torch.tensor([2.5, 0.0])
    x = torch.normal(means, 0.8, generator=generator)
    y = (torch.arange(n) >= k).to(torch.float32).view(n, 1)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    std, mean = torch.std_mean(x, dim=0, keepdim=True)
    return (x - mean) / std
""",
        "pairwise_sq_dists": PW + """\
    return torch.cdist(a, b) ** 2
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"can't align: {y.shape=} {logits.shape=}")
    return y.view_as(logits)
""",
    },
    "honest-10": {  # defensive: checks that raise, asserted shapes
        "make_blobs": MB + """\
    if n < 2:
        raise ValueError(f"need at least 2 points (one per class), got n={n}")
    n_ones = n // 2
    n_zeros = n - n_ones
    centres = torch.tensor([[0.0, 0.0], [4.0, 0.0]])
    labels = torch.tensor([0] * n_zeros + [1] * n_ones)
    x = centres[labels] + torch.randn(n, 2, generator=generator)
    y = labels.to(torch.float32).reshape(n, 1)
    assert x.shape == (n, 2) and y.shape == (n, 1)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    if not torch.is_floating_point(x):
        raise TypeError(f"standardize needs a floating-point tensor, got {x.dtype}")
    if x.dim() != 2:
        raise ValueError(f"expected x of shape [n, d], got {tuple(x.shape)}")
    if x.shape[0] < 2:
        raise ValueError("need at least two samples to compute a standard deviation")
    mean = x.mean(dim=0, keepdim=True)
    std = x.std(dim=0, keepdim=True)
    if (std == 0).any():
        raise ValueError("a feature is constant: its standard deviation is 0")
    out = (x - mean) / std
    assert out.shape == x.shape
    return out
""",
        "pairwise_sq_dists": PW + """\
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"a and b must be 2-D, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"feature sizes differ: a {tuple(a.shape)}, b {tuple(b.shape)}")
    diff = a[:, None, :] - b[None, :, :]
    out = (diff ** 2).sum(dim=-1)
    assert out.shape == (a.shape[0], b.shape[0])
    return out
""",
        "align_targets": AT + """\
    if not isinstance(logits, torch.Tensor) or not isinstance(y, torch.Tensor):
        raise TypeError("logits and y must both be tensors")
    if y.numel() != logits.numel():
        raise ValueError(
            f"y has {y.numel()} elements (shape {tuple(y.shape)}) but logits have {logits.numel()} "
            f"(shape {tuple(logits.shape)})"
        )
    out = y.reshape(logits.shape)
    assert out.shape == logits.shape
    return out
""",
    },
    "honest-11": {  # the lesson's clouds; the targets by cases
        "make_blobs": MB + """\
    n1 = n // 2
    n0 = n - n1
    cloud0 = torch.randn(n0, 2, generator=generator) * torch.tensor([1.0, 0.5]) + torch.tensor([-2.0, 0.0])
    cloud1 = torch.randn(n1, 2, generator=generator) * torch.tensor([1.0, 0.5]) + torch.tensor([2.0, 0.0])
    x = torch.cat([cloud0, cloud1]).to(device)
    y = torch.cat([torch.zeros(n0), torch.ones(n1)]).to(device)
    return x, y.unsqueeze(1)
""",
        "standardize": ST + """\
    centred = x - x.mean(dim=0, keepdim=True)
    return centred / centred.std(dim=0, keepdim=True)
""",
        "pairwise_sq_dists": PW + """\
    return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(dim=2)
""",
        "align_targets": AT + """\
    if y.shape == logits.shape:
        return y
    if y.numel() != logits.numel():
        raise ValueError(f"Cannot match targets {list(y.shape)} to logits {list(logits.shape)}")
    if logits.dim() == 2 and y.dim() == 1:
        return y.unsqueeze(1)
    if logits.dim() == 1 and y.dim() == 2:
        return y.squeeze(1)
    return y.reshape(logits.shape)
""",
    },
    "honest-12": {  # einsum for every product and sum
        "make_blobs": MB + """\
    m = n // 2
    sign = torch.cat([-torch.ones(n - m), torch.ones(m)])        # -1 for class 0, +1 for class 1
    direction = torch.tensor([1.0, 1.0])
    x = 1.5 * torch.einsum("n,d->nd", sign, direction) + torch.randn(n, 2, generator=generator)
    y = ((sign + 1) / 2).unsqueeze(1)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    n = x.shape[0]
    mu = torch.einsum("nd->d", x) / n
    c = x - mu
    var = torch.einsum("nd,nd->d", c, c) / (n - 1)
    return c / var.sqrt()
""",
        "pairwise_sq_dists": PW + """\
    diff = a[:, None, :] - b[None, :, :]
    return torch.einsum("nmd,nmd->nm", diff, diff)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"targets{tuple(y.shape)} do not fit logits{tuple(logits.shape)}")
    return y.reshape(*logits.shape)
""",
    },
    "honest-13": {  # dtype-careful, population variance, rsqrt
        "make_blobs": MB + """\
    half = n // 2
    y = torch.zeros(n, 1, dtype=torch.float32)
    y[half:] = 1.0                                   # n - half ones: the extra one goes to class 1
    centre = torch.tensor([[1.0, -1.0]])
    x = torch.randn(n, 2, generator=generator, dtype=torch.float32) + (2 * y - 1) * centre * 2
    return x.to(device=device), y.to(device=device)
""",
        "standardize": ST + """\
    var = x.var(dim=0, keepdim=True, correction=0)     # population variance
    return (x - x.mean(dim=0, keepdim=True)) * torch.rsqrt(var)
""",
        "pairwise_sq_dists": PW + """\
    return (a.unsqueeze(-2) - b.unsqueeze(-3)).pow(2).sum(-1)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError("targets %s do not fit logits %s" % (list(y.shape), list(logits.shape)))
    return y.reshape(logits.shape)
""",
    },
    "honest-14": {  # numpy-minded
        "make_blobs": """\
import numpy as np


""" + MB + """\
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=generator))
    rng = np.random.default_rng(seed)
    n0 = n - n // 2
    labels = np.array([0] * n0 + [1] * (n // 2), dtype=np.float32)
    centres = np.array([[-1.0, 2.0], [1.0, -2.0]])
    points = centres[labels.astype(int)] + rng.normal(size=(n, 2))
    x = torch.from_numpy(points).float().to(device)
    y = torch.from_numpy(labels).reshape(n, 1).to(device)
    return x, y
""",
        "standardize": ST + """\
    mean = x.mean(axis=0, keepdims=True)
    std = x.std(axis=0, keepdims=True)
    return (x - mean) / std
""",
        "pairwise_sq_dists": """\
import numpy as np


""" + PW + """\
    diff = a[:, np.newaxis, :] - b[np.newaxis, :, :]
    return (diff ** 2).sum(axis=-1)
""",
        "align_targets": """\
import numpy as np


""" + AT + """\
    if np.prod(y.shape) != np.prod(logits.shape):
        raise ValueError(f"shapes {tuple(logits.shape)} and {tuple(y.shape)} have different sizes")
    return y.reshape(logits.shape)
""",
    },
    "honest-15": {  # type hints everywhere
        "make_blobs": """\
def make_blobs(n: int, device: str = "cpu", generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
""" + MB_DOC + """\
    n_class1: int = n // 2
    n_class0: int = n - n_class1
    y: torch.Tensor = torch.cat([torch.zeros(n_class0, 1), torch.ones(n_class1, 1)])
    centres: torch.Tensor = torch.tensor([[1.0, 1.0], [-1.0, -1.0]])
    x: torch.Tensor = centres[y.squeeze(1).long()] + 0.5 * torch.randn(n, 2, generator=generator)
    return x.to(device), y.to(device)
""",
        "standardize": """\
def standardize(x: torch.Tensor) -> torch.Tensor:
""" + ST_DOC + """\
    mean: torch.Tensor = x.mean(dim=0)
    std: torch.Tensor = x.std(dim=0, unbiased=False)
    return (x - mean) / std
""",
        "pairwise_sq_dists": """\
def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
""" + PW_DOC + """\
    diff: torch.Tensor = a.unsqueeze(1) - b.unsqueeze(0)
    return diff.square().sum(dim=2)
""",
        "align_targets": """\
def align_targets(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
""" + AT_DOC + """\
    if logits.numel() != y.numel():
        raise ValueError(
            f"expected {logits.numel()} targets for logits of shape {tuple(logits.shape)}, got y of shape {tuple(y.shape)}"
        )
    return y.reshape(logits.shape)
""",
    },
    "honest-16": {  # terse one-liners
        "make_blobs": MB + """\
    y = (torch.arange(n) % 2).float().unsqueeze(1)
    x = torch.randn(n, 2, generator=generator) + 3 * y
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    return (x - x.mean(0)) / x.std(0)
""",
        "pairwise_sq_dists": PW + """\
    return ((a[:, None] - b[None]) ** 2).sum(-1)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"{tuple(y.shape)} vs {tuple(logits.shape)}")
    return y.view(logits.shape)
""",
    },
    "honest-17": {  # stack and repeat_interleave
        "make_blobs": MB + """\
    counts = torch.tensor([n - n // 2, n // 2])
    labels = torch.repeat_interleave(torch.tensor([0.0, 1.0]), counts)                  # (n,)
    centres = torch.stack([torch.tensor([-1.0, -1.0]), torch.tensor([1.5, 1.5])])       # (2, 2)
    x = centres.repeat_interleave(counts, dim=0) + torch.randn(n, 2, generator=generator)
    y = labels.unsqueeze(1)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    stats = torch.stack([x.mean(0), x.std(0)])      # (2, d): the means, then the stds
    return (x - stats[0]) / stats[1]
""",
        "pairwise_sq_dists": PW + """\
    n, m = len(a), len(b)
    left = a.repeat_interleave(m, dim=0)      # a[0] m times, then a[1] m times, ...
    right = b.repeat(n, 1)                    # all of b, n times
    return ((left - right) ** 2).sum(1).reshape(n, m)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"size mismatch between logits {list(logits.shape)} and y {list(y.shape)}")
    return y.reshape(logits.size())
""",
    },
}

CANONICAL_OWN_NAMES = {  # the course's answers, in canonical-2's own names
    "make_blobs": MB + """\
    ones = n // 2
    zeros = n - ones
    cls = torch.cat([torch.zeros(zeros), torch.ones(ones)])         # (n,)
    means = torch.tensor([[-2.0, -1.0], [2.0, 1.0]])                # one row per class
    eps = torch.randn(n, 2, generator=generator)                    # (n, 2)
    pts = means[cls.long()] + eps                                   # (n, 2)
    target = cls.unsqueeze(1)                                       # (n, 1)
    return pts.to(device), target.to(device)
""",
    "standardize": ST + """\
    mu = x.mean(dim=0, keepdim=True)     # (1, d)
    sd = x.std(dim=0, keepdim=True)      # (1, d)
    return (x - mu) / sd
""",
    "pairwise_sq_dists": PW + """\
    delta = a[:, None, :] - b[None, :, :]   # (n, m, d)
    return (delta ** 2).sum(dim=-1)         # (n, m)
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(
            f"targets of shape {tuple(y.shape)} do not hold one value per row "
            f"of logits of shape {tuple(logits.shape)}"
        )
    return y.reshape(logits.shape)
""",
}

_RENAME = {  # honest-03's with every local renamed and the comments rewritten
    "make_blobs": MB + """\
    pts = torch.empty(n, 2)
    lab = torch.empty(n, 1)
    first = (n + 1) // 2                    # the first group is the bigger one for an odd n
    pts[:first].normal_(mean=-1.5, std=1.0, generator=generator)
    pts[first:].normal_(mean=1.5, std=1.0, generator=generator)
    lab[:first] = 0.0
    lab[first:] = 1.0
    return pts.to(device), lab.to(device)
""",
    "standardize": ST + """\
    res = torch.empty_like(x)
    for k in range(x.shape[1]):
        feature = x[:, k]
        res[:, k] = (feature - feature.mean()) / feature.std()
    return res
""",
    "pairwise_sq_dists": PW + """\
    dist = torch.empty(a.shape[0], b.shape[0], dtype=a.dtype, device=a.device)
    torch.sum((a[:, None, :] - b[None, :, :]) ** 2, dim=2, out=dist)
    return dist
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"y {tuple(y.shape)} has {y.numel()} values, logits {tuple(logits.shape)} has {logits.numel()}")
    buf = torch.empty_like(logits, dtype=y.dtype)
    buf.copy_(y.reshape(logits.shape))
    return buf
""",
}

_REORDER = {  # honest-10's with independent statements reordered, an or's operands swapped
    "make_blobs": MB + """\
    if n < 2:
        raise ValueError(f"need at least 2 points (one per class), got n={n}")
    centres = torch.tensor([[0.0, 0.0], [4.0, 0.0]])
    n_ones = n // 2
    n_zeros = n - n_ones
    labels = torch.tensor([0] * n_zeros + [1] * n_ones)
    y = labels.to(torch.float32).reshape(n, 1)
    x = centres[labels] + torch.randn(n, 2, generator=generator)
    assert y.shape == (n, 1) and x.shape == (n, 2)
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    if not torch.is_floating_point(x):
        raise TypeError(f"standardize needs a floating-point tensor, got {x.dtype}")
    if x.dim() != 2:
        raise ValueError(f"expected x of shape [n, d], got {tuple(x.shape)}")
    if x.shape[0] < 2:
        raise ValueError("need at least two samples to compute a standard deviation")
    std = x.std(dim=0, keepdim=True)
    if (std == 0).any():
        raise ValueError("a feature is constant: its standard deviation is 0")
    mean = x.mean(dim=0, keepdim=True)
    out = (x - mean) / std
    assert out.shape == x.shape
    return out
""",
    "align_targets": AT + """\
    if not isinstance(y, torch.Tensor) or not isinstance(logits, torch.Tensor):
        raise TypeError("logits and y must both be tensors")
    if y.numel() != logits.numel():
        raise ValueError(
            f"y has {y.numel()} elements (shape {tuple(y.shape)}) but logits have {logits.numel()} "
            f"(shape {tuple(logits.shape)})"
        )
    out = y.reshape(logits.shape)
    assert out.shape == logits.shape
    return out
""",
}

_HELPERS = {  # honest-17's moved into nested functions and lambdas
    "make_blobs": MB + """\
    def repeated(values, counts):
        return values.repeat_interleave(counts, dim=0)

    counts = torch.tensor([n - n // 2, n // 2])
    labels = repeated(torch.tensor([0.0, 1.0]), counts)
    centres = torch.stack([torch.tensor([-1.0, -1.0]), torch.tensor([1.5, 1.5])])
    x = repeated(centres, counts) + torch.randn(n, 2, generator=generator)
    y = labels.unsqueeze(1)
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    moments = lambda t: torch.stack([t.mean(0), t.std(0)])
    stats = moments(x)
    return (x - stats[0]) / stats[1]
""",
    "pairwise_sq_dists": PW + """\
    def tile_each(t, k):
        return t.repeat_interleave(k, dim=0)

    def tile_all(t, k):
        return t.repeat(k, 1)

    n, m = len(a), len(b)
    sq = lambda t: (t ** 2).sum(1)
    return sq(tile_each(a, m) - tile_all(b, n)).reshape(n, m)
""",
    "align_targets": """\
def mismatch(logits, y):
    return ValueError(f"size mismatch between logits {list(logits.shape)} and y {list(y.shape)}")


""" + AT + """\
    if y.numel() != logits.numel():
        raise mismatch(logits, y)
    return y.reshape(logits.size())
""",
}

_INLINE = {  # honest-05's with every helper inlined
    "make_blobs": MB + """\
    n0, n1 = n - n // 2, n // 2
    x = torch.cat([torch.tensor([0.0, -2.0]) + torch.randn(n0, 2, generator=generator),
                   torch.tensor([0.0, 2.0]) + torch.randn(n1, 2, generator=generator)])
    y = torch.cat([torch.zeros(n0), torch.ones(n1)]).unsqueeze(1)
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    return (x - x.mean(dim=0, keepdim=True)) / x.std(dim=0, keepdim=True)
""",
    "pairwise_sq_dists": PW + """\
    return ((a.unsqueeze(1) - b.unsqueeze(0)) ** 2).sum(dim=-1)
""",
    "align_targets": AT + """\
    if logits.numel() != y.numel():
        raise ValueError("element counts differ: " + f"logits {tuple(logits.shape)} vs y {tuple(y.shape)}")
    return y.reshape(logits.shape)
""",
}

_CLASS = {  # honest-13's state held in a dataclass and a fitted object
    "make_blobs": """\
from dataclasses import dataclass


@dataclass
class BlobSpec:
    centre: torch.Tensor
    scale: float = 2.0

    def sample(self, n, generator):
        half = n // 2
        y = torch.zeros(n, 1, dtype=torch.float32)
        y[half:] = 1.0
        x = torch.randn(n, 2, generator=generator, dtype=torch.float32) + (2 * y - 1) * self.centre * self.scale
        return x, y


""" + MB + """\
    x, y = BlobSpec(torch.tensor([[1.0, -1.0]])).sample(n, generator)
    return x.to(device=device), y.to(device=device)
""",
    "standardize": """\
class Standardizer:
    def __init__(self, x):
        self.inv_std = torch.rsqrt(x.var(dim=0, keepdim=True, correction=0))
        self.mean = x.mean(dim=0, keepdim=True)

    def __call__(self, x):
        return (x - self.mean) * self.inv_std


""" + ST + """\
    return Standardizer(x)(x)
""",
    "align_targets": """\
class Targets:
    def __init__(self, logits):
        self.shape = logits.shape
        self.count = logits.numel()

    def fit(self, y):
        if y.numel() != self.count:
            raise ValueError("targets %s do not fit logits %s" % (list(y.shape), list(self.shape)))
        return y.reshape(self.shape)


""" + AT + """\
    return Targets(logits).fit(y)
""",
}

_LOOPS = {  # honest-06's loops as comprehensions and map, math.prod as a while loop
    "make_blobs": """\
import math


""" + MB + """\
    noise = torch.randn(n, 2, generator=generator).tolist()
    labels = [i % 2 for i in range(n)]
    rows = [[2 * math.cos(math.pi * k) + e[0], 2 * math.sin(math.pi * k) + e[1]] for k, e in zip(labels, noise)]
    x = torch.tensor(rows, dtype=torch.float32, device=device)
    y = torch.tensor(list(map(lambda k: [float(k)], labels)), dtype=torch.float32, device=device)
    return x, y
""",
    "align_targets": """\
def count(shape):
    total = 1
    k = 0
    while k < len(shape):
        total *= shape[k]
        k += 1
    return total


""" + AT + """\
    if count(logits.shape) != count(y.shape):
        raise ValueError("logits have shape %s but y has shape %s" % (tuple(logits.shape), tuple(y.shape)))
    return y.reshape(logits.shape)
""",
}

_NEGATED = {  # honest-11's cases turned inside out, a repeated literal named
    "make_blobs": MB + """\
    n1 = n // 2
    n0 = n - n1
    scale = torch.tensor([1.0, 0.5])
    cloud0 = torch.randn(n0, 2, generator=generator) * scale + torch.tensor([-2.0, 0.0])
    cloud1 = torch.randn(n1, 2, generator=generator) * scale + torch.tensor([2.0, 0.0])
    x = torch.cat([cloud0, cloud1]).to(device)
    y = torch.cat([torch.zeros(n0), torch.ones(n1)]).to(device)
    return x, y.unsqueeze(1)
""",
    "align_targets": AT + """\
    if y.shape != logits.shape:
        if y.numel() == logits.numel():
            if logits.dim() == 2 and y.dim() == 1:
                return y.unsqueeze(1)
            if not (logits.dim() == 1 and y.dim() == 2):
                return y.reshape(logits.shape)
            return y.squeeze(1)
        raise ValueError(f"Cannot match targets {list(y.shape)} to logits {list(logits.shape)}")
    return y
""",
}

_SPELLING = {  # honest-01's in other PyTorch spellings
    "make_blobs": MB + """\
    n1 = n // 2
    n0 = n - n1
    centre0 = torch.zeros(2)
    centre1 = torch.full((2,), 3.0)
    centres = torch.cat((centre0[None, :].expand(n0, -1), centre1[None, :].expand(n1, -1)))
    noise = torch.randn((n, 2), generator=generator)
    x = centres + noise
    y = torch.cat((torch.zeros(n0, 1), torch.ones(n1, 1)))
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    mu = x.mean(0, keepdim=True).expand(x.shape)
    sigma = torch.std(x, 0, keepdim=True).expand(x.shape)
    return (x - mu).div(sigma)
""",
    "pairwise_sq_dists": PW + """\
    n, d = a.shape
    m = b.size(0)
    A = a[:, None, :].expand(n, m, d)
    B = b[None].expand(n, m, d)
    return (A - B).pow(2).sum(-1)
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"cannot align y of shape {tuple(y.shape)} with logits of shape {tuple(logits.shape)}")
    return y.reshape_as(logits)
""",
}

_ARITH = {  # honest-15's arithmetic rewritten where the result is the same, type hints dropped
    "make_blobs": MB + """\
    n_class1 = n // 2
    n_class0 = -n_class1 + n
    y = torch.cat([torch.zeros(n_class0, 1), torch.ones(n_class1, 1)])
    centres = torch.tensor([[1.0, 1.0], [-1.0, -1.0]])
    x = torch.randn(n, 2, generator=generator) * 0.5 + centres[y.squeeze(1).long()]
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    mean = x.mean(dim=0)
    std = x.std(dim=0, correction=0)
    return (-mean + x) / std
""",
    "pairwise_sq_dists": PW + """\
    d = a.unsqueeze(1) + (-b.unsqueeze(0))
    return (d * d).sum(dim=2)
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(
            f"expected {logits.numel()} targets for logits of shape {tuple(logits.shape)}, got y of shape {tuple(y.shape)}"
        )
    return y.reshape(logits.shape)
""",
}

_DEADCODE = {  # honest-07's with a debug flag, prints, asserts and unused names
    "make_blobs": MB + """\
    debug = False
    n_a = n // 2
    n_b = n - n_a
    assert n_a + n_b == n
    xa = torch.randn(n_a, 2, generator=generator).float() + torch.tensor([2.0, 2.0])
    xb = torch.randn(n_b, 2, generator=generator).float() - torch.tensor([2.0, 2.0])
    if debug:
        print("blob a", xa.mean(0), "blob b", xb.mean(0))
    x = torch.cat((xa, xb)).clone().float()
    y = torch.cat((torch.ones(n_a), torch.zeros(n_b))).float().clone()
    y = y.reshape(n, 1).float()
    if debug:
        print(x.shape, y.shape, x.dtype, y.dtype)
    return x.float().to(device), y.float().to(device)
""",
    "standardize": ST + """\
    debug = False
    shape_before = x.shape
    x = x.clone()
    x -= x.mean(dim=0)
    if debug:
        print("mean after centring", x.mean(dim=0))
    x /= x.std(dim=0)
    assert x.shape == shape_before
    return x.clone()
""",
    "pairwise_sq_dists": PW + """\
    steps = 0
    a = a.clone()
    b = b.clone()
    d = (a.unsqueeze(1) - b.unsqueeze(0)).clone()
    steps += 1
    out = (d ** 2).sum(2).clone()
    assert out.dim() == 2
    return out
""",
    "align_targets": AT + """\
    y = y.clone()
    old_shape = y.shape
    if y.numel() != logits.numel():
        print("mismatch")
        raise ValueError("wrong shapes! logits: " + str(logits.shape) + " y: " + str(y.shape))
    return y.reshape(logits.shape).clone()
""",
}

_ARGS = {  # honest-08's with the arguments renamed and the messages reworded
    "make_blobs": """\
def make_blobs(count, device="cpu", generator=None):
""" + MB_DOC + """\
    idx = torch.arange(count)
    is_one = idx < count // 2
    y = torch.unsqueeze(torch.where(is_one, 1.0, 0.0), 1)
    noise = torch.randn(count, 2, generator=generator)
    shift = torch.where(torch.unsqueeze(is_one, 1), torch.tensor([1.5, -1.5]), torch.tensor([-1.5, 1.5]))
    x = torch.add(shift, noise)
    return x.to(device), y.to(device)
""",
    "standardize": """\
def standardize(t):
""" + ST_DOC + """\
    return torch.div(torch.sub(t, torch.mean(t, dim=0)), torch.std(t, dim=0))
""",
    "pairwise_sq_dists": """\
def pairwise_sq_dists(p, q):
""" + PW_DOC + """\
    return torch.sum(torch.square(torch.sub(torch.unsqueeze(p, 1), torch.unsqueeze(q, 0))), dim=2)
""",
    "align_targets": """\
def align_targets(pred, target):
""" + AT_DOC + """\
    if torch.numel(target) != torch.numel(pred):
        raise ValueError(f"target {tuple(target.shape)} does not have as many values as predictions {tuple(pred.shape)}")
    return torch.reshape(target, pred.shape)
""",
}

_CHAIN_B = {  # honest-14's renamed throughout, comments added, a message reworded
    "make_blobs": """\
import numpy as np


""" + MB + """\
    # numpy does the sampling, seeded from the torch generator so it stays reproducible
    s = int(torch.randint(0, 2**31 - 1, (1,), generator=generator))
    gen = np.random.default_rng(s)
    first = n - n // 2
    cls = np.array([0] * first + [1] * (n // 2), dtype=np.float32)
    mu = np.array([[-1.0, 2.0], [1.0, -2.0]])      # one centre per class
    data = mu[cls.astype(int)] + gen.normal(size=(n, 2))
    feats = torch.from_numpy(data).float().to(device)
    target = torch.from_numpy(cls).reshape(n, 1).to(device)
    return feats, target
""",
    "standardize": ST + """\
    # per column: subtract the average, divide by the spread
    avg = x.mean(axis=0, keepdims=True)
    spread = x.std(axis=0, keepdims=True)
    return (x - avg) / spread
""",
    "pairwise_sq_dists": """\
import numpy as np


""" + PW + """\
    # (n, 1, d) minus (1, m, d) gives every pair
    delta = a[:, np.newaxis, :] - b[np.newaxis, :, :]
    return (delta ** 2).sum(axis=-1)
""",
    "align_targets": """\
import numpy as np


""" + AT + """\
    # the element counts must agree before a reshape
    if np.prod(y.shape) != np.prod(logits.shape):
        raise ValueError(f"sizes differ between logits {tuple(logits.shape)} and targets {tuple(y.shape)}")
    return y.reshape(logits.shape)
""",
}

_CHAIN_C = {  # chain-b's with temporaries inlined and introduced, numpy spellings as torch's
    "make_blobs": """\
import numpy as np


""" + MB + """\
    # numpy draws the points; its seed comes from the torch generator
    gen = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=generator)))
    second = n // 2
    first = n - second
    cls = np.array([0] * first + [1] * second, dtype=np.float32)
    data = np.array([[-1.0, 2.0], [1.0, -2.0]])[cls.astype(int)] + gen.normal(size=(n, 2))
    return torch.from_numpy(data).float().to(device), torch.from_numpy(cls).reshape(n, 1).to(device)
""",
    "standardize": ST + """\
    avg = x.mean(dim=0, keepdim=True)
    return (x - avg) / x.std(dim=0, keepdim=True)
""",
    "pairwise_sq_dists": PW + """\
    # all pairs by broadcasting
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(dim=-1)
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"sizes differ between logits {tuple(logits.shape)} and targets {tuple(y.shape)}")
    return y.reshape(logits.shape)
""",
}

_MERGE = {  # honest-04's statistics and distances, honest-09's blobs and targets
    "make_blobs": MB_DEF + """\
    \"\"\"Class 0 around the origin, class 1 around (2.5, 0); returns (x, y) on device.\"\"\"
    k = n // 2
    means = torch.zeros((n, 2))
    means[k:] = torch.tensor([2.5, 0.0])
    x = torch.normal(means, 0.8, generator=generator)
    y = (torch.arange(n) >= k).float().unsqueeze(1)
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    centred = x - x.mean(dim=0)
    cov = centred.t() @ centred / (x.size(0) - 1)      # covariance matrix, variances on its diagonal
    return centred / cov.diagonal().sqrt()
""",
    "pairwise_sq_dists": PW + """\
    a_sq = (a * a).sum(dim=1)[:, None]
    b_sq = (b * b).sum(dim=1)
    d2 = a_sq + b_sq - 2 * a @ b.t()              # expand |a - b|^2
    return d2.clamp(min=0.0)                      # rounding may leave values just below 0
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"can't align: y.shape={y.shape!r} logits.shape={logits.shape!r}")
    return y.view(logits.shape)
""",
}

_HALF = {  # honest-02's statistics and targets, methods as torch functions
    "standardize": ST + """\
    return torch.div(torch.sub(x, torch.mean(x, 0)), torch.std(x, 0))
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"shape mismatch: logits {list(logits.shape)} vs y {list(y.shape)}")
    return torch.reshape(y, logits.shape)
""",
}

_HALF_OWN = {  # ... and the other two of the copier's own
    "make_blobs": MB + """\
    k = n // 2
    x = torch.randn(n, 2, generator=generator)
    x[k:] += torch.tensor([3.0, -1.0])
    y = torch.zeros(n, 1)
    y[k:] = 1
    return x.to(device), y.to(device)
""",
    "pairwise_sq_dists": PW + """\
    return torch.stack([((a - row) ** 2).sum(dim=1) for row in b], dim=1)
""",
}

_CONSTANTS = {  # honest-12's literals hoisted into module-level constants
    "make_blobs": """\
CENTRE_DISTANCE = 1.5
DIAGONAL = torch.tensor([1.0, 1.0])
OUTER = "n,d->nd"


""" + MB + """\
    m = n // 2
    sign = torch.cat([-torch.ones(n - m), torch.ones(m)])
    x = CENTRE_DISTANCE * torch.einsum(OUTER, sign, DIAGONAL) + torch.randn(n, 2, generator=generator)
    y = ((sign + 1) / 2).unsqueeze(1)
    return x.to(device), y.to(device)
""",
    "standardize": """\
COLUMN_SUMS = "nd->d"
COLUMN_SQUARES = "nd,nd->d"


""" + ST + """\
    n = x.shape[0]
    mu = torch.einsum(COLUMN_SUMS, x) / n
    c = x - mu
    var = torch.einsum(COLUMN_SQUARES, c, c) / (n - 1)
    return c / var.sqrt()
""",
    "pairwise_sq_dists": """\
PAIR_NORMS = "nmd,nmd->nm"


""" + PW + """\
    diff = a[:, None, :] - b[None, :, :]
    return torch.einsum(PAIR_NORMS, diff, diff)
""",
}

_MODERN = {  # honest-06's in newer syntax: enumerate with unpacking, :=, f-strings
    "make_blobs": """\
import math


""" + MB + """\
    rows = []
    labels = []
    for i, (dx, dy) in enumerate(torch.randn(n, 2, generator=generator).tolist()):
        angle = math.pi * (label := i % 2)
        rows.append([2 * math.cos(angle) + dx, 2 * math.sin(angle) + dy])
        labels.append([float(label)])
    x = torch.tensor(rows, dtype=torch.float32, device=device)
    y = torch.tensor(labels, dtype=torch.float32, device=device)
    return x, y
""",
    "standardize": ST + """\
    mean = x.sum(dim=0) / (n := x.shape[0])
    var = ((x - mean) ** 2).sum(dim=0) / (n - 1)
    return (x - mean) / torch.sqrt(var)
""",
    "align_targets": """\
import math


""" + AT + """\
    if math.prod(logits.shape) != math.prod(y.shape):
        raise ValueError(f"logits have shape {tuple(logits.shape)} but y has shape {tuple(y.shape)}")
    return y.reshape(logits.shape)
""",
}

_NUMPY = {  # honest-16's in NumPy-compatible spellings
    "standardize": ST + """\
    return (x - x.mean(axis=0)) / x.std(axis=0)
""",
    "pairwise_sq_dists": """\
import numpy as np


""" + PW + """\
    return ((a[:, np.newaxis] - b[np.newaxis]) ** 2).sum(axis=-1)
""",
    "align_targets": """\
import numpy as np


""" + AT + """\
    if np.prod(y.shape) != np.prod(logits.shape):
        raise ValueError(f"{tuple(y.shape)} vs {tuple(logits.shape)}")
    return y.view(logits.shape)
""",
}

_ANNOTATED = {  # honest-02's with annotations and NumPy-style docstrings added
    "make_blobs": """\
def make_blobs(n: int, device: str = "cpu", generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    \"\"\"Two Gaussian blobs.

    Parameters
    ----------
    n : int
        Number of points.
    device : str
        Where the returned tensors live.
    generator : torch.Generator, optional
        Source of every random draw.

    Returns
    -------
    x : torch.Tensor
        float32, shape (n, 2).
    y : torch.Tensor
        float32, shape (n, 1), 0 or 1.
    \"\"\"
    half: int = n // 2
    y: torch.Tensor = torch.arange(n).ge(n - half).float().unsqueeze(1)
    x: torch.Tensor = torch.randn(n, 2, generator=generator).mul(0.5).add(y.mul(2.0))
    return x.to(device), y.to(device)
""",
    "standardize": """\
def standardize(x: torch.Tensor) -> torch.Tensor:
    \"\"\"Standardise every column.

    Parameters
    ----------
    x : torch.Tensor
        Shape (n, d).

    Returns
    -------
    torch.Tensor
        Shape (n, d), zero mean and unit std per column.
    \"\"\"
    return x.sub(x.mean(0)).div(x.std(0))
""",
    "pairwise_sq_dists": """\
def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    \"\"\"Squared distances between every row of a and every row of b.

    Parameters
    ----------
    a : torch.Tensor
        Shape (n, d).
    b : torch.Tensor
        Shape (m, d).

    Returns
    -------
    torch.Tensor
        Shape (n, m).
    \"\"\"
    return a.unsqueeze(1).sub(b.unsqueeze(0)).pow(2).sum(-1)
""",
    "align_targets": """\
def align_targets(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    \"\"\"Reshape the targets to the logits' shape.

    Raises
    ------
    ValueError
        If the two hold different numbers of elements.
    \"\"\"
    if y.numel() != logits.numel():
        raise ValueError("shape mismatch: logits {} vs y {}".format(list(logits.shape), list(y.shape)))
    return y.reshape_as(logits)
""",
}

_ALL = ("make_blobs", "standardize", "pairwise_sq_dists", "align_targets")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-rename", "every local renamed, comments rewritten", _taken("honest-03"), _RENAME),
    Copy("copier-reorder", "independent statements reordered, an or's operands swapped", _taken("honest-10"),
         _REORDER),
    Copy("copier-helpers", "code moved into nested functions and lambdas", _taken("honest-17"), _HELPERS),
    Copy("copier-inline", "helpers inlined", _taken("honest-05"), _INLINE),
    Copy("copier-class", "state held in a dataclass and fitted objects", _taken("honest-13"), _CLASS),
    Copy("copier-loops", "loops as comprehensions and map, a product as a while loop", _taken("honest-06"), _LOOPS),
    Copy("copier-negated", "conditions negated with branches swapped, a literal named", _taken("honest-11"),
         _NEGATED),
    Copy("copier-spelling", "equivalent PyTorch spellings", _taken("honest-01"), _SPELLING),
    Copy("copier-arith", "arithmetic rewritten with the same results, type hints dropped", _taken("honest-15"),
         _ARITH),
    Copy("copier-deadcode", "dead code, debug prints and asserts added", _taken("honest-07"), _DEADCODE),
    Copy("copier-args", "arguments renamed, messages reworded", _taken("honest-08"), _ARGS),
    Copy("chain-b", "renamed throughout, comments added (first link of a chain)", _taken("honest-14"), _CHAIN_B),
    Copy("chain-c", "temporaries inlined and introduced, numpy spellings as torch's (second link of a chain)",
         _taken("chain-b"), _CHAIN_C),
    Copy("copier-merge", "two classmates merged, other spellings, comments and a docstring rewritten",
         {"make_blobs": "honest-09", "standardize": "honest-04", "pairwise_sq_dists": "honest-04",
          "align_targets": "honest-09"}, _MERGE),
    Copy("copier-half", "two cells copied, methods as torch functions",
         _taken("honest-02", ("standardize", "align_targets")), _HALF, _HALF_OWN),
    Copy("copier-constants", "literals hoisted into module-level constants", _taken("honest-12"), _CONSTANTS),
    Copy("copier-modern", "newer syntax: enumerate with unpacking, assignment expressions, f-strings",
         _taken("honest-06"), _MODERN),
    Copy("copier-numpy", "numpy-compatible spellings", _taken("honest-16"), _NUMPY),
    Copy("copier-annotated", "type annotations and docstrings added", _taken("honest-02"), _ANNOTATED),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 01's second set (thirty-eight students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
