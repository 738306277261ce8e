"""A planted cohort of module 01, written apart from the normaliser and the detector.

The module's graded answers are ``make_blobs`` (two Gaussian blobs, ``x`` float32 ``[n, 2]`` and ``y`` float32
``[n, 1]`` of 0/1, balanced, on ``device``, every draw from ``generator``), ``standardize`` (per-feature zero
mean and unit standard deviation over dim 0, a new tensor of the input's shape, dtype and device),
``pairwise_sq_dists`` (``[n, d]`` and ``[m, d]`` to ``[n, m]`` squared Euclidean distances by broadcasting) and
``align_targets`` (``y`` reshaped to the logits' shape, a ``ValueError`` naming both shapes when the element
counts differ).

Fourteen honest students answer in their own styles:

- ``honest-01``: a beginner's temporaries, one name a step: two blobs drawn one after the other around
  ``(-2, 0)`` and ``(2, 0)``, labels and points concatenated, each moved on its own line; ``mean``, ``std``,
  ``centred``, ``result``; ``unsqueeze`` then difference, square and sum in four lines; the element counts
  named and the message built by string concatenation.
- ``honest-02``: terse one-liners: labels alternating (``arange(n) % 2``), the points ``randn + 3 y - 1.5``;
  ``(x - x.mean(0)) / x.std(0)``; ``((a[:, None] - b[None]) ** 2).sum(-1)``; ``y.view(logits.shape)`` after a
  one-line check.
- ``honest-03``: heavily commented: each row's centre picked by indexing a ``[2, 2]`` table with the labels;
  ``keepdim=True`` statistics; ``diffs * diffs`` summed over ``dim=-1``; shapes written as lists in the message.
- ``honest-04``: defensive: ``n``'s type checked (``TypeError``) and its range (two ``ValueError`` checks),
  ``.to`` with ``device`` and ``dtype``, the shapes asserted; standardize refusing a tensor that is not 2-D, a single
  row and a constant feature; pairwise checking both tensors' rank and their feature sizes; align checking its
  arguments are tensors, the message with both shapes and both counts.
- ``honest-05``: ``torch.einsum`` for the blobs' offsets (an outer product of signs and a direction), the
  column sums and the sums of squares (standardize by hand, sample variance), the pairwise sum over features;
  ``torch.numel`` and ``torch.reshape``.
- ``honest-06``: NumPy habits: ``centers`` indexed by the labels, ``0.75 * randn``, ``reshape(-1, 1)``;
  ``axis=0`` and ``correction=0`` (the population std); ``reshape`` to ``[n, 1, d]`` and ``[1, m, d]``,
  ``sum(axis=2)``; ``nelement()``, a ``%``-formatted message and ``reshape(*shape)``.
- ``honest-07``: type hints on every signature and local; the offset ``(2y - 1) * (2, -2)``; ``unsqueeze(-2)``
  against ``unsqueeze(-3)`` and ``square()``; a message naming shapes and counts.
- ``honest-08``: method chains: ``randn(...).mul(0.8).add(y.mul(2.5)).sub(1.25)``, ``x.sub(mean).div(std)``,
  ``a.unsqueeze(1).sub(b.unsqueeze(0)).pow(2).sum(dim=-1)``; the happy path first and a ``str.format`` message.
- ``honest-09``: loops where vectorised code would do: one point a step (``torch.stack`` of rows, labels
  alternating), one column a step in standardize, one row of ``a`` a step against all of ``b``, the element
  counts as products in ``for`` loops.
- ``honest-10``: the lesson's dataset: centres ``(20, 1)`` and ``(30, 2)`` with a spread per feature, drawn by
  ``torch.normal`` with the generator, one cloud per class in a comprehension; the lesson's ``keepdim`` rule;
  the shapes commented as the lesson draws them; ``y.view(-1, 1)`` for one-column logits, ``reshape`` otherwise.
- ``honest-11``: library calls: the labels shuffled with ``randperm`` and the offset by ``torch.outer``;
  ``torch.std_mean``; ``torch.cdist(a, b).pow(2)``; a self-documenting f-string (``{tuple(y.shape)=}``) and
  ``reshape_as``.
- ``honest-12``: labels from a Python list, the centre ``base + y * step``; the population std
  (``unbiased=False``); the distances expanded as ``|a|^2 + |b|^2 - 2 a b^T`` clamped at 0; the happy path
  first.
- ``honest-13``: ``torch.*`` functions only (``torch.add``, ``torch.unsqueeze``, ``torch.div``, ``torch.sub``,
  ``torch.pow``, ``torch.sum``, ``torch.numel``); the offset stacked from the labels.
- ``honest-14``: a named constant for the separation, one ``(points, labels)`` part a class built in a loop
  over ``enumerate``; ``expand`` before the difference; the aligned targets returned as they are when the
  shapes already agree.

Where the answer is short they converge as students do: ``(x - x.mean(0)) / x.std(0)`` (honest-02, honest-14,
copier-half), ``a[:, None, :] - b[None, :, :]`` or ``unsqueeze`` then square and sum, ``if y.numel() !=
logits.numel(): raise ValueError(...)`` then ``reshape``.  Two write the course's answer: ``canonical-1`` hands
in the reference word for word, ``canonical-2`` in their own names.

Fourteen copy, and disguise what they take:

- ``copier-rename`` (honest-03, all four): every local renamed, comments rewritten or dropped.
- ``copier-reorder`` (honest-01, all four): independent statements reordered (the centres, the labels before
  the points, the two moves, the std before the mean, ``b`` expanded before ``a``, the counts), the draws kept
  in their order; the concatenated message written as an f-string.
- ``copier-split`` (honest-04, all four): every function split in two, its checks moved into a module-level
  helper (``_check_n``, ``_column_stats``, ``_check_pair``, ``_check_tensors``) and a blob drawn by another;
  two independent range checks swapped, the two ``isinstance`` tests of an ``or`` swapped.
- ``copier-lambda`` (honest-11, all four): lambdas (the shuffle, the statistics, the square) and nested
  functions (the points, the message).
- ``copier-class`` (honest-12): the blobs drawn by a class holding the generator and the centres, standardize
  as a scaler whose ``fit`` keeps the statistics for ``transform``; the distances with keyword arguments and
  ``torch.*`` spellings (``torch.sum``, ``torch.matmul(2 * a, b.T)``, ``torch.clamp``); align left as taken.
- ``copier-comprehension`` (honest-09, all four): the loops as comprehensions (the points, the labels, the
  columns, the rows of ``a``), the centre chosen by indexing a list instead of a conditional expression; the
  counts' loops as ``functools.reduce(operator.mul, shape, 1)``.
- ``copier-while`` (honest-14): the ``for`` over ``enumerate`` as a ``while`` loop over indices, the named
  constant inlined, ``n - n // 2`` and ``n // 2`` from ``divmod``; the sizes inlined into ``expand``; align's
  guard clause negated with the branches nested; standardize left as taken.
- ``copier-spellings`` (honest-10, all four): equivalent torch spellings: ``expand`` as ``repeat``,
  ``unsqueeze(1)`` as ``[:, None]`` and ``[None]``, ``** 2`` as ``square()``, methods as ``torch.*`` functions
  with positional and keyword arguments swapped (``torch.mean(x, 0, True)``), ``dim()`` as ``ndim``,
  ``shape[1]`` as ``size(1)``, a conditional expression as ``if``/``else``.
- ``copier-deadcode`` (honest-07, all four): the type hints dropped; dead code and unused variables (a debug
  flag with a print under it, an unused scale, a row count, an ``if False`` branch, an unused copy of a shape),
  a commented-out print.
- ``chain-b`` (honest-05, all four) renames everything, the einsum subscripts too, and adds comments;
  ``chain-c`` (chain-b, all four) reworks what it got: the einsums as ``torch.outer``, ``sum(0)`` and ``(d *
  d).sum(-1)``, ``[:, None]`` as ``unsqueeze(1)``, ``.sqrt()`` as ``torch.sqrt``, align's check turned round
  with the happy path first, comments dropped.
- ``copier-merge`` takes ``make_blobs`` and ``standardize`` from honest-06 (the noise named, its factor moved
  behind it, the centres' table inlined, ``reshape(-1, 1)`` as ``unsqueeze(1)``, ``axis=`` as ``dim=``,
  ``correction=0`` as ``unbiased=False``) and ``pairwise_sq_dists`` and ``align_targets`` from honest-13 (the
  ``torch.*`` functions as methods, the concatenated message as an f-string).
- ``copier-half`` takes only ``pairwise_sq_dists`` from honest-08 (the method chain broken into a named
  difference and operators) and writes the other three alone.
- ``copier-wrapped`` (honest-02, all four): a computation moved into a default argument (``shift=1.5`` for the
  blobs' offset, ``power=2`` for the square), a ``try``/``except`` that re-raises around standardize, the
  f-string message as ``str.format``, the element count taken by a walrus in the condition.

Every answer passes the module's checks, visible and hidden (each student's answers substituted into the
solution notebook and its test cells run by :func:`.nbtools.run_in_process` in a fresh process, beside a control
whose ``standardize`` reduces over dim 1 and whose ``align_targets`` reshapes whatever it gets, which loses
points), and every copied answer does what its source does on :mod:`.planted_run`'s inputs.  The truth follows
from where each answer came from (:func:`.planted.assemble`); ``python -m autograder.dev.planted_01`` prints the
measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "01-tensors"

MB_DEF = 'def make_blobs(n, device="cpu", generator=None):\n'
MB_DOC = '    """Two Gaussian blobs: x float32 (n, 2), y float32 (n, 1) of 0/1, both on `device`."""\n'
ST_DEF = "def standardize(x):\n"
ST_DOC = '    """Per-feature zero mean, unit std over dim 0; returns a new tensor."""\n'
PW_DEF = "def pairwise_sq_dists(a, b):\n"
PW_DOC = '    """(n, d) and (m, d) -> (n, m) squared Euclidean distances."""\n'
AT_DEF = "def align_targets(logits, y):\n"
AT_DOC = '    """y reshaped to logits.shape; ValueError naming both shapes if the counts differ."""\n'
MB = MB_DEF + MB_DOC
ST = ST_DEF + ST_DOC
PW = PW_DEF + PW_DOC
AT = AT_DEF + AT_DOC

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # a beginner's temporaries, one name a step
        "make_blobs": MB + """\
    half = n // 2
    other_half = n - half
    centre_0 = torch.tensor([-2.0, 0.0])
    centre_1 = torch.tensor([2.0, 0.0])
    points_0 = torch.randn(other_half, 2, generator=generator) + centre_0
    points_1 = torch.randn(half, 2, generator=generator) + centre_1
    labels_0 = torch.zeros(other_half, 1)
    labels_1 = torch.ones(half, 1)
    x = torch.cat([points_0, points_1], dim=0)
    y = torch.cat([labels_0, labels_1], dim=0)
    x = x.to(device)
    y = y.to(device)
    return x, y
""",
        "standardize": ST + """\
    mean = x.mean(dim=0)
    std = x.std(dim=0)
    centred = x - mean
    result = centred / std
    return result
""",
        "pairwise_sq_dists": PW + """\
    a_expanded = a.unsqueeze(1)
    b_expanded = b.unsqueeze(0)
    difference = a_expanded - b_expanded
    squared = difference ** 2
    distances = squared.sum(dim=2)
    return distances
""",
        "align_targets": AT + """\
    number_of_logits = logits.numel()
    number_of_targets = y.numel()
    if number_of_logits != number_of_targets:
        message = "logits have shape " + str(tuple(logits.shape)) + " but y has shape " + str(tuple(y.shape))
        raise ValueError(message)
    new_y = y.reshape(logits.shape)
    return new_y
""",
    },
    "honest-02": {  # terse one-liners
        "make_blobs": MB + """\
    y = (torch.arange(n) % 2).float().unsqueeze(1)
    return (torch.randn(n, 2, generator=generator) + 3 * y - 1.5).to(device), y.to(device)
""",
        "standardize": ST + """\
    return (x - x.mean(0)) / x.std(0)
""",
        "pairwise_sq_dists": PW + """\
    return ((a[:, None] - b[None]) ** 2).sum(-1)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"shape mismatch: logits {tuple(logits.shape)}, y {tuple(y.shape)}")
    return y.view(logits.shape)
""",
    },
    "honest-03": {  # heavily commented
        "make_blobs": MB + """\
    # how many points go in each class: class 1 gets the extra one when n is odd
    n0 = n // 2
    n1 = n - n0
    # class labels as a column vector [n, 1], float32 like the logits will be
    y = torch.cat([torch.zeros(n0, 1), torch.ones(n1, 1)])
    # centres of the two blobs, one per row
    centres = torch.tensor([[0.0, 0.0], [3.0, 3.0]])
    # pick each row's centre by its label (long index), then add unit Gaussian noise
    # (every draw takes the generator so the data is reproducible)
    x = centres[y.squeeze(1).long()] + torch.randn(n, 2, generator=generator)
    # build on the CPU, move to the requested device once at the end
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    # mean and std of every column (feature), computed over the rows (dim 0)
    # keepdim=True keeps shape (1, d) so it broadcasts against (n, d)
    mu = x.mean(dim=0, keepdim=True)
    sigma = x.std(dim=0, keepdim=True)   # sample std (unbiased)
    # out of place: x itself is not touched
    return (x - mu) / sigma
""",
        "pairwise_sq_dists": PW + """\
    # a: (n, d) -> (n, 1, d);  b: (m, d) -> (1, m, d)
    # broadcasting gives every pair's difference: (n, m, d)
    diffs = a[:, None, :] - b[None, :, :]
    # square and sum over the features (last dim) -> (n, m)
    return (diffs * diffs).sum(dim=-1)
""",
        "align_targets": AT + """\
    # one target per row: the element counts must agree
    if logits.numel() != y.numel():
        # never let broadcasting guess: stop with both shapes in the message
        raise ValueError(f"logits shape {list(logits.shape)} and targets shape {list(y.shape)} "
                         f"have different numbers of elements")
    # same number of values: give y exactly the logits' shape
    return y.reshape(logits.shape)
""",
    },
    "honest-04": {  # defensive: checks that raise, shapes asserted
        "make_blobs": MB + """\
    if not isinstance(n, int):
        raise TypeError(f"n must be an int, got {type(n).__name__}")
    if n < 2:
        raise ValueError(f"n must be at least 2 (one point per class), got {n}")
    if n > 10_000_000:
        raise ValueError(f"n={n} is too many points for this exercise")
    n_a = (n + 1) // 2
    n_b = n // 2
    mean_a = torch.tensor([-1.5, -1.5])
    mean_b = torch.tensor([1.5, 1.5])
    xa = mean_a + torch.randn(n_a, 2, generator=generator)
    xb = mean_b + torch.randn(n_b, 2, generator=generator)
    x = torch.cat((xa, xb)).to(device=device, dtype=torch.float32)
    y = torch.cat((torch.zeros(n_a), torch.ones(n_b))).reshape(n, 1).to(device=device, dtype=torch.float32)
    assert x.shape == (n, 2) and y.shape == (n, 1)
    return x, y
""",
        "standardize": ST + """\
    if x.dim() != 2:
        raise ValueError(f"expected a 2-D tensor [n, d], got shape {tuple(x.shape)}")
    if x.shape[0] < 2:
        raise ValueError(f"need at least two rows to compute a standard deviation, got {x.shape[0]}")
    mean = x.mean(dim=0, keepdim=True)
    std = x.std(dim=0, keepdim=True)
    if (std == 0).any():
        raise ValueError("a feature is constant over the rows: its standard deviation is 0")
    out = (x - mean) / std
    assert out.shape == x.shape
    return out
""",
        "pairwise_sq_dists": PW + """\
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"a and b must be 2-D, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"feature sizes differ: a has {a.shape[1]}, b has {b.shape[1]}")
    diff = a.unsqueeze(1) - b.unsqueeze(0)
    d2 = diff.pow(2).sum(dim=2)
    assert d2.shape == (a.shape[0], b.shape[0])
    return d2
""",
        "align_targets": AT + """\
    if not isinstance(logits, torch.Tensor) or not isinstance(y, torch.Tensor):
        raise TypeError("logits and y must be tensors")
    if y.numel() != logits.numel():
        raise ValueError(f"cannot align targets {tuple(y.shape)} with logits {tuple(logits.shape)}: "
                         f"{y.numel()} values for {logits.numel()} logits")
    out = y.reshape(logits.shape)
    assert out.shape == logits.shape
    return out
""",
    },
    "honest-05": {  # einsum for products and sums
        "make_blobs": MB + """\
    y = (torch.arange(n) >= n // 2).float()
    signs = 2 * y - 1
    direction = torch.tensor([1.0, 2.0])
    x = torch.einsum("n,d->nd", signs, direction) + torch.randn(n, 2, generator=generator)
    return x.to(device), y[:, None].to(device)
""",
        "standardize": ST + """\
    n = x.shape[0]
    mean = torch.einsum("nd->d", x) / n
    centred = x - mean
    var = torch.einsum("nd,nd->d", centred, centred) / (n - 1)
    return centred / var.sqrt()
""",
        "pairwise_sq_dists": PW + """\
    diff = a[:, None, :] - b[None, :, :]
    return torch.einsum("nmd,nmd->nm", diff, diff)
""",
        "align_targets": AT + """\
    if torch.numel(y) != torch.numel(logits):
        raise ValueError(f"y {tuple(y.shape)} does not match logits {tuple(logits.shape)}")
    return torch.reshape(y, logits.shape)
""",
    },
    "honest-06": {  # NumPy habits
        "make_blobs": MB + """\
    half = n // 2
    labels = torch.cat([torch.zeros(half), torch.ones(n - half)])
    centers = torch.tensor([[1.0, 1.0], [-1.0, -1.0]])
    X = centers[labels.long()] + 0.75 * torch.randn(n, 2, generator=generator)
    Y = labels.reshape(-1, 1)
    return X.to(device), Y.to(device)
""",
        "standardize": ST + """\
    mu = x.mean(axis=0)
    sd = x.std(axis=0, correction=0)
    return (x - mu) / sd
""",
        "pairwise_sq_dists": PW + """\
    A = a.reshape(a.shape[0], 1, a.shape[1])
    B = b.reshape(1, b.shape[0], b.shape[1])
    return ((A - B) ** 2).sum(axis=2)
""",
        "align_targets": AT + """\
    if y.nelement() != logits.nelement():
        raise ValueError("y has shape %s but logits have shape %s" % (tuple(y.shape), tuple(logits.shape)))
    return y.reshape(*logits.shape)
""",
    },
    "honest-07": {  # type hints everywhere
        "make_blobs": """\
def make_blobs(n: int, device: str = "cpu",
               generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
""" + MB_DOC + """\
    n_pos: int = n // 2
    n_neg: int = n - n_pos
    y: torch.Tensor = torch.cat([torch.zeros(n_neg, 1), torch.ones(n_pos, 1)])
    offset: torch.Tensor = torch.tensor([2.0, -2.0])
    x: torch.Tensor = torch.randn(n, 2, generator=generator) + (2 * y - 1) * offset
    return x.to(device), y.to(device)
""",
        "standardize": "def standardize(x: torch.Tensor) -> torch.Tensor:\n" + ST_DOC + """\
    mean: torch.Tensor = x.mean(dim=0)
    std: torch.Tensor = x.std(dim=0)
    return (x - mean) / std
""",
        "pairwise_sq_dists": "def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n" + PW_DOC + """\
    diff: torch.Tensor = a.unsqueeze(-2) - b.unsqueeze(-3)
    return diff.square().sum(-1)
""",
        "align_targets": "def align_targets(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n" + AT_DOC + """\
    expected: int = logits.numel()
    got: int = y.numel()
    if got != expected:
        raise ValueError(f"y of shape {tuple(y.shape)} has {got} elements, "
                         f"logits of shape {tuple(logits.shape)} have {expected}")
    return y.reshape(logits.shape)
""",
    },
    "honest-08": {  # method chains
        "make_blobs": MB + """\
    y = (torch.arange(n) < n - n // 2).float().unsqueeze(1)
    x = torch.randn(n, 2, generator=generator).mul(0.8).add(y.mul(2.5)).sub(1.25)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    return x.sub(x.mean(dim=0)).div(x.std(dim=0))
""",
        "pairwise_sq_dists": PW + """\
    return a.unsqueeze(1).sub(b.unsqueeze(0)).pow(2).sum(dim=-1)
""",
        "align_targets": AT + """\
    if y.numel() == logits.numel():
        return y.reshape(logits.shape)
    raise ValueError("cannot reshape targets {} to logits {}".format(tuple(y.shape), tuple(logits.shape)))
""",
    },
    "honest-09": {  # loops where vectorised code would do
        "make_blobs": MB + """\
    xs = []
    ys = []
    for i in range(n):
        label = i % 2
        centre = torch.tensor([3.0, 0.0]) if label == 1 else torch.tensor([0.0, 0.0])
        xs.append(centre + torch.randn(2, generator=generator))
        ys.append([float(label)])
    x = torch.stack(xs)
    y = torch.tensor(ys)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    columns = []
    for j in range(x.shape[1]):
        col = x[:, j]
        columns.append((col - col.mean()) / col.std())
    return torch.stack(columns, dim=1)
""",
        "pairwise_sq_dists": PW + """\
    rows = []
    for i in range(a.shape[0]):
        rows.append(((a[i] - b) ** 2).sum(dim=1))
    return torch.stack(rows)
""",
        "align_targets": AT + """\
    count_logits = 1
    for s in logits.shape:
        count_logits *= s
    count_y = 1
    for s in y.shape:
        count_y *= s
    if count_logits != count_y:
        raise ValueError(f"logits {tuple(logits.shape)} vs y {tuple(y.shape)}: different element counts")
    return y.reshape(logits.shape)
""",
    },
    "honest-10": {  # the lesson's dataset and its keepdim rule
        "make_blobs": MB + """\
    n_per_class = [n - n // 2, n // 2]
    centres = torch.tensor([[20.0, 1.0],    # class 0: (feature 0, feature 1)
                            [30.0, 2.0]])   # class 1
    spread = torch.tensor([4.0, 0.4])       # standard deviation per feature
    clouds = [torch.normal(c.expand(k, 2), spread.expand(k, 2), generator=generator)
              for c, k in zip(centres, n_per_class)]
    X = torch.cat(clouds)                   # (n, 2) rows are examples
    labels = torch.cat([torch.zeros(n_per_class[0]), torch.ones(n_per_class[1])])   # (n,)
    return X.to(device), labels.unsqueeze(1).to(device)   # labels (n,) -> (n, 1)
""",
        "standardize": ST + """\
    centred = x - x.mean(dim=0, keepdim=True)      # (n, d) - (1, d)
    return centred / x.std(dim=0, keepdim=True)
""",
        "pairwise_sq_dists": PW + """\
    diff = a.unsqueeze(1) - b.unsqueeze(0)   # (n, 1, d) - (1, m, d) -> (n, m, d)
    return (diff ** 2).sum(dim=2)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"logits {tuple(logits.shape)} vs targets {tuple(y.shape)}")
    return y.view(-1, 1) if logits.dim() == 2 and logits.shape[1] == 1 else y.reshape(logits.shape)
""",
    },
    "honest-11": {  # library calls: randperm, outer, std_mean, cdist
        "make_blobs": MB + """\
    y = torch.zeros(n)
    y[: n // 2] = 1.0
    y = y[torch.randperm(n, generator=generator)]
    x = torch.randn(n, 2, generator=generator) + torch.outer(y, torch.tensor([4.0, 0.0]))
    return x.to(device), y.unsqueeze(1).to(device)
""",
        "standardize": ST + """\
    std, mean = torch.std_mean(x, dim=0, keepdim=True)
    return (x - mean) / std
""",
        "pairwise_sq_dists": PW + """\
    return torch.cdist(a, b).pow(2)
""",
        "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"{tuple(y.shape)=} cannot be aligned with {tuple(logits.shape)=}")
    return y.reshape_as(logits)
""",
    },
    "honest-12": {  # population std, the distances expanded
        "make_blobs": MB + """\
    k = n // 2
    y = torch.tensor([0.0] * (n - k) + [1.0] * k).reshape(n, 1)
    mu = torch.tensor([[-1.0, 1.0]]) + y * torch.tensor([[2.0, -2.0]])
    x = mu + torch.randn(n, 2, generator=generator)
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    return (x - x.mean(dim=0)) / x.std(dim=0, unbiased=False)
""",
        "pairwise_sq_dists": PW + """\
    aa = (a * a).sum(1, keepdim=True)
    bb = (b * b).sum(1)
    d = aa + bb - 2 * a @ b.T
    return d.clamp(min=0)
""",
        "align_targets": AT + """\
    if logits.numel() == y.numel():
        return y.reshape(logits.shape)
    raise ValueError(f"expected {logits.numel()} targets for logits {list(logits.shape)}, got y {list(y.shape)}")
""",
    },
    "honest-13": {  # torch.* functions only
        "make_blobs": MB + """\
    n1 = n // 2
    n0 = n - n1
    labels = torch.cat((torch.zeros(n0, dtype=torch.float32), torch.ones(n1, dtype=torch.float32)))
    noise = torch.randn((n, 2), generator=generator, dtype=torch.float32)
    shift = torch.stack((labels * 3.0, labels * -1.0), dim=1)
    x = torch.add(noise, shift)
    return x.to(device), torch.unsqueeze(labels, 1).to(device)
""",
        "standardize": ST + """\
    return torch.div(torch.sub(x, torch.mean(x, 0)), torch.std(x, 0))
""",
        "pairwise_sq_dists": PW + """\
    return torch.sum(torch.pow(torch.sub(torch.unsqueeze(a, 1), torch.unsqueeze(b, 0)), 2), 2)
""",
        "align_targets": AT + """\
    if torch.numel(logits) != torch.numel(y):
        raise ValueError("logits shape " + str(list(logits.shape)) + " and y shape " + str(list(y.shape))
                         + " differ in size")
    return torch.reshape(y, tuple(logits.shape))
""",
    },
    "honest-14": {  # a named constant, parts built in a loop, expand
        "make_blobs": MB + """\
    SEPARATION = 4.0
    sizes = (n - n // 2, n // 2)
    parts = []
    for label, size in enumerate(sizes):
        centre = torch.full((1, 2), label * SEPARATION)
        parts.append((centre + torch.randn(size, 2, generator=generator), torch.full((size, 1), float(label))))
    x = torch.cat([p[0] for p in parts])
    y = torch.cat([p[1] for p in parts])
    return x.to(device), y.to(device)
""",
        "standardize": ST + """\
    return (x - x.mean(0)) / x.std(0)
""",
        "pairwise_sq_dists": PW + """\
    n, m = a.shape[0], b.shape[0]
    left = a.unsqueeze(1).expand(n, m, a.shape[1])
    right = b.unsqueeze(0).expand(n, m, b.shape[1])
    return ((left - right) ** 2).sum(-1)
""",
        "align_targets": AT + """\
    if y.shape == logits.shape:
        return y
    if y.numel() != logits.numel():
        raise ValueError(f"targets {tuple(y.shape)} and logits {tuple(logits.shape)} hold different numbers of values")
    return y.reshape(logits.shape)
""",
    },
}

CANONICAL_OWN_NAMES = {  # the course's answers, in canonical-2's own names
    "make_blobs": MB + """\
    k1 = n // 2
    k0 = n - k1
    cls = torch.cat([torch.zeros(k0), torch.ones(k1)])                # (n,)
    means = torch.tensor([[-2.0, -1.0], [2.0, 1.0]])                  # (2, 2): a row per class
    eps = torch.randn(n, 2, generator=generator)                      # (n, 2)
    feats = means[cls.long()] + eps                                   # (n, 2)
    targets = cls.unsqueeze(1)                                        # (n, 1), shaped like the logits
    return feats.to(device), targets.to(device)
""",
    "standardize": ST + """\
    mu = x.mean(dim=0, keepdim=True)     # (1, d), broadcasts over the rows
    sigma = x.std(dim=0, keepdim=True)   # (1, d)
    return (x - mu) / sigma              # (n, d), new memory
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

_RENAMED = {  # honest-03's locals renamed, comments rewritten
    "make_blobs": MB + """\
    # split n into the two classes (the second one is bigger for odd n)
    count_a = n // 2
    count_b = n - count_a
    # targets: a column of 0s then 1s
    targets = torch.cat([torch.zeros(count_a, 1), torch.ones(count_b, 1)])
    means = torch.tensor([[0.0, 0.0], [3.0, 3.0]])
    # noise around the mean of each point's class, drawn from the given generator
    points = means[targets.squeeze(1).long()] + torch.randn(n, 2, generator=generator)
    return points.to(device), targets.to(device)
""",
    "standardize": ST + """\
    avg = x.mean(dim=0, keepdim=True)     # per-feature average, shape (1, d)
    spread = x.std(dim=0, keepdim=True)   # per-feature standard deviation
    # a new tensor, the input stays as it was
    return (x - avg) / spread
""",
    "pairwise_sq_dists": PW + """\
    # every row of a against every row of b, via broadcasting
    delta = a[:, None, :] - b[None, :, :]
    # squared entries added up along d
    return (delta * delta).sum(dim=-1)
""",
    "align_targets": AT + """\
    if logits.numel() != y.numel():
        # the sizes do not match, so refuse instead of broadcasting
        raise ValueError(f"logits shape {list(logits.shape)} and targets shape {list(y.shape)} "
                         f"have different numbers of elements")
    return y.reshape(logits.shape)  # the labels take the model output's shape
""",
}

_REORDERED = {  # honest-01's independent statements reordered, the message as an f-string
    "make_blobs": MB + """\
    half = n // 2
    centre_1 = torch.tensor([2.0, 0.0])
    centre_0 = torch.tensor([-2.0, 0.0])
    other_half = n - half
    labels_1 = torch.ones(half, 1)
    labels_0 = torch.zeros(other_half, 1)
    y = torch.cat([labels_0, labels_1], dim=0)
    points_0 = torch.randn(other_half, 2, generator=generator) + centre_0
    points_1 = torch.randn(half, 2, generator=generator) + centre_1
    y = y.to(device)
    x = torch.cat([points_0, points_1], dim=0)
    x = x.to(device)
    return x, y
""",
    "standardize": ST + """\
    std = x.std(dim=0)
    mean = x.mean(dim=0)
    centred = x - mean
    result = centred / std
    return result
""",
    "pairwise_sq_dists": PW + """\
    b_expanded = b.unsqueeze(0)
    a_expanded = a.unsqueeze(1)
    difference = a_expanded - b_expanded
    squared = difference ** 2
    distances = squared.sum(dim=2)
    return distances
""",
    "align_targets": AT + """\
    number_of_targets = y.numel()
    number_of_logits = logits.numel()
    if number_of_logits != number_of_targets:
        message = f"logits have shape {tuple(logits.shape)} but y has shape {tuple(y.shape)}"
        raise ValueError(message)
    new_y = y.reshape(logits.shape)
    return new_y
""",
}

_SPLIT = {  # honest-04's functions split in two, independent checks swapped
    "make_blobs": """\
def _check_n(n):
    if not isinstance(n, int):
        raise TypeError(f"n must be an int, got {type(n).__name__}")
    if n > 10_000_000:
        raise ValueError(f"n={n} is too many points for this exercise")
    if n < 2:
        raise ValueError(f"n must be at least 2 (one point per class), got {n}")


def _blob(centre, count, generator):
    return centre + torch.randn(count, 2, generator=generator)


""" + MB + """\
    _check_n(n)
    n_a = (n + 1) // 2
    n_b = n // 2
    xa = _blob(torch.tensor([-1.5, -1.5]), n_a, generator)
    xb = _blob(torch.tensor([1.5, 1.5]), n_b, generator)
    x = torch.cat((xa, xb)).to(device=device, dtype=torch.float32)
    y = torch.cat((torch.zeros(n_a), torch.ones(n_b))).reshape(n, 1).to(device=device, dtype=torch.float32)
    assert x.shape == (n, 2) and y.shape == (n, 1)
    return x, y
""",
    "standardize": """\
def _column_stats(x):
    if x.dim() != 2:
        raise ValueError(f"expected a 2-D tensor [n, d], got shape {tuple(x.shape)}")
    if x.shape[0] < 2:
        raise ValueError(f"need at least two rows to compute a standard deviation, got {x.shape[0]}")
    mean = x.mean(dim=0, keepdim=True)
    std = x.std(dim=0, keepdim=True)
    if (std == 0).any():
        raise ValueError("a feature is constant over the rows: its standard deviation is 0")
    return mean, std


""" + ST + """\
    mean, std = _column_stats(x)
    out = (x - mean) / std
    assert out.shape == x.shape
    return out
""",
    "pairwise_sq_dists": """\
def _check_pair(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"a and b must be 2-D, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"feature sizes differ: a has {a.shape[1]}, b has {b.shape[1]}")


""" + PW + """\
    _check_pair(a, b)
    diff = a.unsqueeze(1) - b.unsqueeze(0)
    d2 = diff.pow(2).sum(dim=2)
    assert d2.shape == (a.shape[0], b.shape[0])
    return d2
""",
    "align_targets": """\
def _check_tensors(logits, y):
    if not isinstance(y, torch.Tensor) or not isinstance(logits, torch.Tensor):
        raise TypeError("logits and y must be tensors")
    if y.numel() != logits.numel():
        raise ValueError(f"cannot align targets {tuple(y.shape)} with logits {tuple(logits.shape)}: "
                         f"{y.numel()} values for {logits.numel()} logits")


""" + AT + """\
    _check_tensors(logits, y)
    out = y.reshape(logits.shape)
    assert out.shape == logits.shape
    return out
""",
}

_LAMBDA = {  # honest-11's steps as lambdas and nested functions
    "make_blobs": MB + """\
    shuffle = lambda t: t[torch.randperm(n, generator=generator)]
    labels = torch.zeros(n)
    labels[: n // 2] = 1.0
    labels = shuffle(labels)

    def place(t):
        return torch.randn(n, 2, generator=generator) + torch.outer(t, torch.tensor([4.0, 0.0]))

    return place(labels).to(device), labels.unsqueeze(1).to(device)
""",
    "standardize": ST + """\
    stats = lambda t: torch.std_mean(t, dim=0, keepdim=True)
    std, mean = stats(x)
    return (x - mean) / std
""",
    "pairwise_sq_dists": PW + """\
    squared = lambda t: t.pow(2)
    return squared(torch.cdist(a, b))
""",
    "align_targets": AT + """\
    def complaint():
        return f"{tuple(y.shape)=} cannot be aligned with {tuple(logits.shape)=}"

    if y.numel() != logits.numel():
        raise ValueError(complaint())
    return y.reshape_as(logits)
""",
}

_CLASS = {  # honest-12's blobs and scaler held in classes, the distances with keywords
    "make_blobs": """\
class Blobs:
    def __init__(self, generator=None):
        self.generator = generator
        self.base = torch.tensor([[-1.0, 1.0]])
        self.step = torch.tensor([[2.0, -2.0]])

    def labels(self, n):
        k = n // 2
        return torch.tensor([0.0] * (n - k) + [1.0] * k).reshape(n, 1)

    def points(self, y):
        return self.base + y * self.step + torch.randn(len(y), 2, generator=self.generator)


""" + MB + """\
    blobs = Blobs(generator)
    y = blobs.labels(n)
    x = blobs.points(y)
    return x.to(device), y.to(device)
""",
    "standardize": """\
class Scaler:
    def fit(self, x):
        self.mean = x.mean(dim=0)
        self.std = x.std(dim=0, unbiased=False)
        return self

    def transform(self, x):
        return (x - self.mean) / self.std


""" + ST + """\
    return Scaler().fit(x).transform(x)
""",
    "pairwise_sq_dists": PW + """\
    aa = torch.sum(a * a, dim=1, keepdim=True)
    bb = torch.sum(b * b, dim=1)
    d = aa + bb - torch.matmul(2 * a, b.T)
    return torch.clamp(d, min=0)
""",
}

_COMPREHENSIONS = {  # honest-09's loops as comprehensions, the counts by functools.reduce
    "make_blobs": MB + """\
    centres = [torch.tensor([0.0, 0.0]), torch.tensor([3.0, 0.0])]
    x = torch.stack([centres[i % 2] + torch.randn(2, generator=generator) for i in range(n)])
    y = torch.tensor([[float(i % 2)] for i in range(n)])
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    return torch.stack([(x[:, j] - x[:, j].mean()) / x[:, j].std() for j in range(x.shape[1])], dim=1)
""",
    "pairwise_sq_dists": PW + """\
    return torch.stack([((row - b) ** 2).sum(dim=1) for row in a])
""",
    "align_targets": """\
import functools
import operator


""" + AT + """\
    count_logits = functools.reduce(operator.mul, logits.shape, 1)
    count_y = functools.reduce(operator.mul, y.shape, 1)
    if count_logits != count_y:
        raise ValueError(f"logits {tuple(logits.shape)} vs y {tuple(y.shape)}: different element counts")
    return y.reshape(logits.shape)
""",
}

_WHILE = {  # honest-14's for loop as a while loop, the constant inlined, a guard clause negated
    "make_blobs": MB + """\
    q, r = divmod(n, 2)
    sizes = (q + r, q)
    parts = []
    label = 0
    while label < len(sizes):
        size = sizes[label]
        noise = torch.randn(size, 2, generator=generator)
        parts.append((torch.full((1, 2), label * 4.0) + noise, torch.full((size, 1), float(label))))
        label += 1
    x = torch.cat([p[0] for p in parts])
    y = torch.cat([p[1] for p in parts])
    return x.to(device), y.to(device)
""",
    "pairwise_sq_dists": PW + """\
    left = a.unsqueeze(1).expand(a.shape[0], b.shape[0], a.shape[1])
    right = b.unsqueeze(0).expand(a.shape[0], b.shape[0], b.shape[1])
    return ((left - right) ** 2).sum(-1)
""",
    "align_targets": AT + """\
    if y.shape != logits.shape:
        if y.numel() == logits.numel():
            return y.reshape(logits.shape)
        raise ValueError(f"targets {tuple(y.shape)} and logits {tuple(logits.shape)} hold different numbers of values")
    return y
""",
}

_SPELLINGS = {  # honest-10's in other torch spellings
    "make_blobs": MB + """\
    n_per_class = [n - n // 2, n // 2]
    centres = torch.tensor([[20.0, 1.0], [30.0, 2.0]])
    spread = torch.tensor([4.0, 0.4])
    clouds = [torch.normal(c.repeat(k, 1), spread.repeat(k, 1), generator=generator)
              for c, k in zip(centres, n_per_class)]
    X = torch.cat(clouds, dim=0)
    labels = torch.cat([torch.zeros(n_per_class[0]), torch.ones(n_per_class[1])])
    return X.to(device), labels[:, None].to(device)
""",
    "standardize": ST + """\
    centred = x - torch.mean(x, 0, True)
    return torch.div(centred, torch.std(x, dim=0, keepdim=True))
""",
    "pairwise_sq_dists": PW + """\
    diff = a[:, None] - b[None]
    return diff.square().sum(2)
""",
    "align_targets": AT + """\
    if torch.numel(y) != torch.numel(logits):
        raise ValueError(f"logits {tuple(logits.shape)} vs targets {tuple(y.shape)}")
    if logits.ndim == 2 and logits.size(1) == 1:
        return y.view(-1, 1)
    else:
        return torch.reshape(y, logits.shape)
""",
}

_DEADCODE = {  # honest-07's without type hints, dead code and unused variables added
    "make_blobs": MB + """\
    DEBUG = False
    n_pos = n // 2
    n_neg = n - n_pos
    y = torch.cat([torch.zeros(n_neg, 1), torch.ones(n_pos, 1)])
    offset = torch.tensor([2.0, -2.0])
    unused_scale = 1.0
    x = torch.randn(n, 2, generator=generator) + (2 * y - 1) * offset
    if DEBUG:
        print("blobs:", x.shape, y.shape, y.mean().item())
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    mean = x.mean(dim=0)
    std = x.std(dim=0)
    n_rows = x.shape[0]
    # print("mean", mean, "std", std)
    return (x - mean) / std
""",
    "pairwise_sq_dists": PW + """\
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)
    if False:
        diff = diff.abs()
    sq = diff.square()
    return sq.sum(-1)
""",
    "align_targets": AT + """\
    expected = logits.numel()
    got = y.numel()
    old_shape = tuple(y.shape)
    if got != expected:
        raise ValueError(f"y of shape {tuple(y.shape)} has {got} elements, "
                         f"logits of shape {tuple(logits.shape)} have {expected}")
    return y.reshape(logits.shape)
""",
}

_CHAIN_B = {  # honest-05's renamed throughout (the einsum subscripts too), comments added
    "make_blobs": MB + """\
    # labels: first half 0, second half 1
    target = (torch.arange(n) >= n // 2).float()
    sign = 2 * target - 1   # -1 or +1
    axis = torch.tensor([1.0, 2.0])
    # each point = sign * axis + noise
    pts = torch.einsum("i,j->ij", sign, axis) + torch.randn(n, 2, generator=generator)
    return pts.to(device), target[:, None].to(device)
""",
    "standardize": ST + """\
    rows = x.shape[0]
    # column means
    mu = torch.einsum("ij->j", x) / rows
    dev = x - mu
    # sample variance per column
    variance = torch.einsum("ij,ij->j", dev, dev) / (rows - 1)
    return dev / variance.sqrt()
""",
    "pairwise_sq_dists": PW + """\
    # all pairwise differences, then a sum of squares over the last axis
    d = a[:, None, :] - b[None, :, :]
    return torch.einsum("ijk,ijk->ij", d, d)
""",
    "align_targets": AT + """\
    # the number of targets has to equal the number of logits
    if torch.numel(y) != torch.numel(logits):
        raise ValueError(f"y {tuple(y.shape)} does not match logits {tuple(logits.shape)}")
    return torch.reshape(y, logits.shape)
""",
}

_CHAIN_C = {  # chain-b's reworked: the einsums as outer products and sums, a check turned round
    "make_blobs": MB + """\
    target = (torch.arange(n) >= n // 2).float()
    sign = 2 * target - 1
    axis = torch.tensor([1.0, 2.0])
    pts = torch.outer(sign, axis) + torch.randn(n, 2, generator=generator)
    return pts.to(device), target.unsqueeze(1).to(device)
""",
    "standardize": ST + """\
    rows = x.shape[0]
    mu = x.sum(0) / rows
    dev = x - mu
    variance = (dev * dev).sum(0) / (rows - 1)
    return dev / torch.sqrt(variance)
""",
    "pairwise_sq_dists": PW + """\
    d = a[:, None, :] - b[None, :, :]
    return (d * d).sum(-1)
""",
    "align_targets": AT + """\
    if torch.numel(y) == torch.numel(logits):
        return torch.reshape(y, logits.shape)
    raise ValueError(f"y {tuple(y.shape)} does not match logits {tuple(logits.shape)}")
""",
}

_MERGE = {  # honest-06's blobs and standardize, honest-13's distances and alignment
    "make_blobs": MB + """\
    half = n // 2
    labels = torch.cat([torch.zeros(half), torch.ones(n - half)])
    noise = torch.randn(n, 2, generator=generator) * 0.75
    X = torch.tensor([[1.0, 1.0], [-1.0, -1.0]])[labels.long()] + noise
    return X.to(device), labels.unsqueeze(1).to(device)
""",
    "standardize": ST + """\
    return (x - x.mean(dim=0)) / x.std(dim=0, unbiased=False)
""",
    "pairwise_sq_dists": PW + """\
    return (a.unsqueeze(1) - b.unsqueeze(0)).pow(2).sum(2)
""",
    "align_targets": AT + """\
    if logits.numel() != y.numel():
        raise ValueError(f"logits shape {list(logits.shape)} and y shape {list(y.shape)} differ in size")
    return y.reshape(tuple(logits.shape))
""",
}

_HALF = {  # honest-08's chain broken into a named difference and operators
    "pairwise_sq_dists": PW + """\
    diff = a.unsqueeze(1) - b.unsqueeze(0)
    return (diff ** 2).sum(dim=-1)
""",
}

_HALF_OWN = {  # ... and the other three of the copier's own
    "make_blobs": MB + """\
    labels = torch.tensor([i % 2 for i in range(n)], dtype=torch.float32)
    centres = torch.tensor([[-1.0, -1.0], [1.0, 1.0]])
    x = centres[labels.long()] + 0.5 * torch.randn(n, 2, generator=generator)
    return x.to(device), labels.view(n, 1).to(device)
""",
    "standardize": ST + """\
    return (x - x.mean(0)) / x.std(0)
""",
    "align_targets": AT + """\
    if y.numel() != logits.numel():
        raise ValueError(f"can't align y {tuple(y.shape)} to logits {tuple(logits.shape)}")
    return y.reshape(logits.shape)
""",
}

_WRAPPED = {  # honest-02's with default arguments, a try/except, str.format and a walrus
    "make_blobs": 'def make_blobs(n, device="cpu", generator=None, shift=1.5):\n' + MB_DOC + """\
    y = (torch.arange(n) % 2).float().unsqueeze(1)
    x = torch.randn(n, 2, generator=generator) + 2 * shift * y - shift
    return x.to(device), y.to(device)
""",
    "standardize": ST + """\
    try:
        return (x - x.mean(0)) / x.std(0)
    except RuntimeError:
        raise
""",
    "pairwise_sq_dists": "def pairwise_sq_dists(a, b, power=2):\n" + PW_DOC + """\
    return ((a[:, None] - b[None]) ** power).sum(-1)
""",
    "align_targets": AT + """\
    if (count := y.numel()) != logits.numel():
        raise ValueError("shape mismatch: logits {}, y {}".format(tuple(logits.shape), tuple(y.shape)))
    return y.view(logits.shape)
""",
}

_ALL = ("make_blobs", "standardize", "pairwise_sq_dists", "align_targets")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-rename", "locals renamed, comments rewritten", _taken("honest-03"), _RENAMED),
    Copy("copier-reorder", "independent statements reordered, a concatenated message as an f-string",
         _taken("honest-01"), _REORDERED),
    Copy("copier-split", "each function split in two (checks into module-level helpers), independent checks "
         "swapped", _taken("honest-04"), _SPLIT),
    Copy("copier-lambda", "steps folded into lambdas and nested functions", _taken("honest-11"), _LAMBDA),
    Copy("copier-class", "state held in classes (a blob maker, a fitted scaler), keyword arguments and torch.* "
         "spellings", _taken("honest-12"), _CLASS),
    Copy("copier-comprehension", "loops as comprehensions, products as functools.reduce", _taken("honest-09"),
         _COMPREHENSIONS),
    Copy("copier-while", "a for loop as a while loop, a named constant inlined, divmod, a guard clause negated",
         _taken("honest-14"), _WHILE),
    Copy("copier-spellings", "equivalent torch spellings (repeat for expand, [:, None] for unsqueeze, square, "
         "torch.* functions, positional for keyword arguments)", _taken("honest-10"), _SPELLINGS),
    Copy("copier-deadcode", "type hints dropped, dead code, unused variables and a commented-out print added",
         _taken("honest-07"), _DEADCODE),
    Copy("chain-b", "renamed throughout, einsum subscripts too, comments added (first link of a chain)",
         _taken("honest-05"), _CHAIN_B),
    Copy("chain-c", "einsum as outer products and sums, a check turned round (second link of a chain)",
         _taken("chain-b"), _CHAIN_C),
    Copy("copier-merge", "two classmates merged, NumPy spellings as torch's, torch.* functions as methods, a "
         "concatenated message as an f-string",
         {"make_blobs": "honest-06", "standardize": "honest-06", "pairwise_sq_dists": "honest-13",
          "align_targets": "honest-13"}, _MERGE),
    Copy("copier-half", "one cell copied, a method chain broken into operators", _taken("honest-08",
         ("pairwise_sq_dists",)), _HALF, _HALF_OWN),
    Copy("copier-wrapped", "computations moved into default arguments, a try/except that re-raises, an f-string "
         "as str.format, a walrus", _taken("honest-02"), _WRAPPED),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 01 (thirty students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
