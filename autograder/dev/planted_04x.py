"""A planted cohort of module 04, its second, written apart from the normaliser and the detector.

The module's graded answers are ``train_step`` (one update on ``(x, y)``: clean ``.grad``, forward, loss, backward,
step; the loss before the update as a Python float), ``train_epoch`` (training mode, every batch moved to ``device``
and stepped once, the mean per-example loss of batches of unequal size, no batch's graph kept alive),
``accumulate_step`` (one forward and one backward per micro-batch, each loss scaled to its share of the mean, one
step; the mean loss), ``overfit_one_batch`` (``steps`` updates on one batch, one float per step, each the loss
before its update) and ``repair_train_epoch`` (the colleague's epoch the release hands out, which clears the
gradients once per epoch, never switches to training mode and averages over batches: repaired to
``train_epoch``'s contract).

Seventeen honest students answer in their own styles:

- ``honest-01``: a beginner: a numbered comment on every step, long names, ``batch_x.shape[0]`` and ``total =
  total + ...``, the micro-batches' losses in a list averaged at the end, a plain loop that appends, ``# FIX``
  comments in the repair.
- ``honest-02``: terse: ``tot, n``, the batch moved inside the call to ``train_step``, ``l`` for the loss, the
  one-line comprehension for ``overfit_one_batch`` (the course's own answer, word for word).
- ``honest-03``: defensive: ``TypeError``/``ValueError`` on the optimizer, the batch sizes, a loss that is not a
  scalar, an empty loader, batches that are not pairs, micro-batches of unequal size and ``steps``; a
  ``FloatingPointError`` on a loss that is not finite; asserts on the results; ``set_to_none=True`` spelt out.
- ``honest-04``: functional: a generator expression of moved batches into a list of ``(loss, size)`` pairs, a nested
  ``contribute`` summed with ``map``, ``list(map(lambda ...))``, ``zip(*...)`` of the repair's per-batch pairs;
  ``loss.detach().item()``.
- ``honest-05``: small classes and closures: an ``_Update`` object called per batch, a ``_RunningMean`` class with a
  ``value`` property, a ``backward_share`` closure in a comprehension, a ``step`` closure, a dict updated by a
  ``record`` closure.
- ``honest-06``: small module-level helpers composed by each answer (``_clear_grads``, ``_batch_loss``,
  ``_to_device``, ``_weighted_mean``, ``_scaled_backward``, ``_repeat``, ``_move``).
- ``honest-07``: ``while`` loops everywhere: ``next`` until ``StopIteration`` over the loader, an index over the
  micro-batches, ``while len(losses) < steps``.
- ``honest-08``: type hints and docstrings with ``Args``/``Returns`` on everything, the imports they need
  (``DataLoader``, ``Sequence``) in each cell, annotated locals, the scaled share's ``item()`` summed.
- ``honest-09``: NumPy-minded: ``np.average`` with ``weights``, ``np.zeros`` filled by index, ``np.empty`` and
  ``tolist()``, ``np.dot`` over ``np.sum``, ``float(loss.detach().cpu().numpy())``, an ``if``/``else`` for the
  empty cases.
- ``honest-10``: generators: the batches moved by a module-level generator, the weighted losses, the scaled
  micro-batch losses, the curve and the repaired batches each yielded by a nested generator; ``total = count = 0``.
- ``honest-11``: ``zero_grad(set_to_none=False)`` everywhere, the step written out again in every answer, the
  totals kept as detached CPU tensors (``+=`` under ``torch.no_grad()``) and read with ``.item()`` at the end.
- ``honest-12``: the official quickstart's loop: ``# Compute prediction error`` / ``# Backpropagation``,
  ``zero_grad()`` after ``step()`` (so ``accumulate_step`` relies on the last call's), ``enumerate`` with an unused
  ``batch``, ``X``, ``size = len(loader.dataset)``.
- ``honest-13``: the older tutorial's order: forward and loss, then ``model.zero_grad()``, backward, step;
  ``enumerate(loader, 0)`` with ``data``; the micro-batches cleared at ``i == 0`` after the first forward;
  ``size(0)``.
- ``honest-14``: ``.grad`` set to ``None`` by hand in a loop over the parameters; plain lists of losses and sizes
  multiplied out in a second loop.
- ``honest-15``: detached losses in lists and ``torch.stack(...)`` to average or sum them, a float32 tensor filled
  by index for the curve, ``len(loader.dataset)`` as the divisor.
- ``honest-16``: descriptive names (``batch_loss``, ``example_count``, ``recorded_losses``), ``shape[0]``,
  ``set_to_none=True``, each micro-batch weighted by its share of the examples rather than divided by their number.
- ``honest-17``: conditions: ``model.train()`` only when ``not model.training``, batches moved only when on another
  device, the output reshaped when only its shape differs, a loss divided only when ``k > 1``, ``math.fsum``, a
  conditional expression for an empty epoch.

Where the answer is short they converge as students do (the five lines of ``train_step``, a loop that appends
``train_step``'s value, the comprehension of ``overfit_one_batch``, the repair's loop kept from the colleague).  Two
write the course's answer: ``canonical-1`` hands in the reference word for word, ``canonical-2`` in their own names.

Thirty copy, and disguise what they take (all five cells unless said otherwise; a cell not named as disguised is
handed in as taken):

- ``copier-rename`` (honest-03): every local renamed, comments written in; the error messages kept.
- ``copier-reorder`` (honest-06, three disguised): independent statements reordered (the forward before
  ``_clear_grads``, a size appended before the batch is moved, ``zero_grad`` before the move, the totals' updates
  and initialisations swapped, ``model.train()`` after them) and the helpers defined in another order, ``_move``
  after the answer that calls it; ``accumulate_step`` and ``overfit_one_batch`` as taken.
- ``copier-helpers`` (honest-01): code moved into helper functions (``forward_and_loss``, ``backward_and_update``,
  ``move_batch``, ``add_batch``, ``micro_batch_backward``, ``mean_of``, ``one_more_step``, ``repaired_batch``).
- ``copier-inline`` (honest-06): the reverse: every helper inlined into the answer that called it (``train_step``
  and ``overfit_one_batch`` come out as the common answers).
- ``copier-class`` (honest-02, four disguised): a ``Stepper`` class, a ``nonlocal`` accumulating closure, a
  ``_micro_step`` closure factory, an ``_Epoch`` object that owns the repaired loop; ``overfit_one_batch`` as taken.
- ``copier-functional`` (honest-14): loops folded: ``map``/``filter`` with ``setattr`` to clear ``.grad``, one
  comprehension of ``(loss, size)`` pairs split by two more, ``map`` over a nested ``backward_one``, the repaired
  batches in a comprehension summed by generator expressions.
- ``copier-loops`` (honest-04, four disguised): the reverse: generator expressions, ``map``, ``sum`` and ``zip(*...)``
  unrolled into loops that append and add (an empty repair still raises ``ValueError``); ``train_step`` as taken.
- ``copier-while`` (honest-07, three disguised): every ``while`` loop as a ``for`` loop (over the loader, over
  ``range(k)``); ``train_step`` and ``overfit_one_batch`` as taken.
- ``copier-negated`` (honest-17, three disguised): conditions negated with their branches swapped (``not (... or
  ...)``, ``model.training is False``, conditional expressions for the moves and the empty epoch, ``k != 0`` with
  the raise in the ``else``, ``k <= 1``); ``overfit_one_batch`` and ``repair_train_epoch`` as taken.
- ``copier-early`` (honest-09, two disguised): the ``if``/``else`` of ``train_epoch`` and ``overfit_one_batch``
  turned into early returns.
- ``copier-spelling`` (honest-13): equivalent spellings: ``zero_grad(set_to_none=True)``,
  ``torch.autograd.backward(loss)``, ``float(loss)``, ``train(mode=True)``/``train(True)``, ``enumerate(...,
  start=0)``, ``to(device=device)``, ``shape[0]``, ``torch.div``, ``not i``, ``list()``, ``range(0, steps)``, ``+=
  [...]``.
- ``copier-deadcode`` (honest-05): dead code: ``DEBUG`` flags with prints, an ``if False:`` print, counters nobody
  reads, asserts that always hold, a commented-out line of the colleague's.
- ``copier-annotated`` (honest-02): the reverse of stripping: type hints, docstrings of their own and comments added.
- ``copier-stripped`` (honest-08): every type hint, docstring (the release's too), comment and the imports they
  needed removed.
- ``copier-args`` (honest-10): the positional arguments renamed (``net``, ``inputs``, ``targets``, ``opt``,
  ``criterion``, ``batches``, ``dev``, ``chunks``, ``n_steps``, ``data``) and the docstrings with them; the checks
  pass every argument by position.
- ``copier-constants`` (honest-11): the literals hoisted into module-level constants (``SET_TO_NONE``, ``SCALAR``,
  ``BATCH_DIM``, ``NO_EXAMPLES``, ``START``), each cell defining those it uses.
- ``copier-try`` (honest-15, four disguised): ``try``/``except`` wrappers that raise the same exception type with a
  message of their own (the forward, backward, the moves, the division, ``torch.stack`` of nothing);
  ``overfit_one_batch`` as taken.
- ``copier-modern`` (honest-16): newer syntax: assignment expressions (the loss backed through ``(... :=
  ...).backward()``, the batch size named inside the sum), ``match`` on the batch with a capture pattern and a
  fallback, a list rebuilt by star unpacking.
- ``copier-generator`` (honest-14, three disguised): the loops of ``train_epoch``, ``accumulate_step`` and the
  repair turned into generator functions (module-level ``_steps`` and ``_updates``, a nested ``micro_losses``).
- ``copier-imports`` (honest-09, four disguised): NumPy's names imported under other spellings (``from numpy import
  array, average as weighted_average``, ``import numpy``, ``empty as empty_array``, ``dot``, ``sum as total_of``);
  ``train_step`` as taken.
- ``copier-enumerate`` (honest-16, three disguised): loops over ``enumerate(loader, start=1)`` and ``enumerate``
  with an unused index, the micro-batches' sizes listed first and zipped with them; ``train_step`` and
  ``overfit_one_batch`` as taken.
- ``copier-iter`` (honest-01, three disguised): ``for`` loops as ``iter()`` and ``next(it, None)`` (a ``while``
  on the sentinel, a ``break`` on it, ``next`` inside ``range(len(...))``); ``train_step`` and ``overfit_one_batch``
  as taken.
- ``copier-listsum`` (honest-03, three disguised): the running totals kept as lists and added up with ``sum()``
  after the loop; ``train_step`` and ``overfit_one_batch`` as taken.
- ``copier-tensorsum`` (honest-07, three disguised): the float totals collected and summed by
  ``torch.tensor(..., dtype=torch.float64).sum().item()``; ``train_step`` and ``overfit_one_batch`` as taken.
- ``copier-forelse`` (honest-12, four disguised): each loop given an ``else`` clause holding what followed it (the
  return, the step and ``zero_grad``); ``train_step`` as taken.
- ``copier-callable`` (honest-04): calls made through ``model.__call__`` and ``loss_fn.__call__``, the optimizer's
  ``zero_grad`` and ``step`` bound to names first, ``functools.partial`` of ``train_step`` (by keyword for the
  optimizer and the loss, and with every argument bound for the curve).
- ``chain-b`` (honest-12) renames everything and adds comments; ``chain-c`` (chain-b) introduces and removes
  temporaries (the prediction, the value returned, the size, the mean, the criterion's value, the moved batch)
  and respells ``zero_grad(set_to_none=True)``.
- ``copier-merge`` takes ``train_step``, ``train_epoch`` and the repair from honest-10 (the batches moved inside
  the nested generator instead of a module-level one, and inside the calls to the model and the loss) and
  ``accumulate_step`` and ``overfit_one_batch`` from honest-04, as taken.
- ``copier-half`` takes ``accumulate_step`` and ``repair_train_epoch`` from honest-13 (the first micro-batch found
  by a flag instead of ``enumerate``, the batch size as a temporary) and writes the other three alone.

Every answer passes the module's checks, visible and hidden, and every copied answer does what its source does
on :mod:`.planted_run`'s inputs (results, the model's parameters, buffers, mode and ``.grad``, the optimizer's
state) and raises what its source raises.  The truth follows from where each answer came from
(:func:`.planted.assemble`); ``python -m autograder.dev.planted_04x`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "04-five-line-step"

# the stubs' lines, as the release hands them out
TS_DEF = "def train_step(model, x, y, optimizer, loss_fn):\n"
TS = TS_DEF + '    """One optimizer update on (x, y); returns the batch loss as a Python float."""\n'
TE_DEF = "def train_epoch(model, loader, optimizer, loss_fn, device):\n"
TE = TE_DEF + '    """One epoch of updates; returns the mean per-example loss as a Python float."""\n'
AS_DEF = "def accumulate_step(model, micro_batches, optimizer, loss_fn):\n"
AS = AS_DEF + '    """One update from several micro-batches; returns their mean loss."""\n'
OF_DEF = "def overfit_one_batch(model, x, y, optimizer, loss_fn, steps):\n"
OF = OF_DEF + '    """`steps` updates on one batch; returns the loss of each step."""\n'
RE_DEF = "def repair_train_epoch(model, loader, optimizer, loss_fn, device):\n"
RE = RE_DEF + '    """One epoch of updates; returns the mean per-example loss (from a colleague\'s notebook)."""\n'

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # a beginner: a comment on every step, long names, a list of losses
        "train_step": TS + """\
    # 1. clear the old gradients from the last batch
    optimizer.zero_grad()
    # 2. forward pass: get the predictions
    predictions = model(x)
    # 3. compute the loss
    loss = loss_fn(predictions, y)
    # 4. backward pass: compute the gradients
    loss.backward()
    # 5. update the weights
    optimizer.step()
    # return the loss as a normal python number
    loss_value = loss.item()
    return loss_value
""",
        "train_epoch": TE + """\
    # put the model in training mode (dropout etc. on)
    model.train()
    total_loss = 0.0
    total_examples = 0
    for batch_x, batch_y in loader:
        # move the batch to the same device as the model
        batch_x = batch_x.to(device)
        batch_y = batch_y.to(device)
        # one training step on this batch
        batch_loss = train_step(model, batch_x, batch_y, optimizer, loss_fn)
        # the loss is a mean over the batch, so multiply by the batch size
        batch_size = batch_x.shape[0]
        total_loss = total_loss + batch_loss * batch_size
        total_examples = total_examples + batch_size
    # average loss per example
    average_loss = total_loss / total_examples
    return average_loss
""",
        "accumulate_step": AS + """\
    # clear the gradients once, before all the micro-batches
    optimizer.zero_grad()
    number_of_batches = len(micro_batches)
    all_losses = []
    for batch_x, batch_y in micro_batches:
        predictions = model(batch_x)
        loss = loss_fn(predictions, batch_y)
        # divide by the number of micro-batches so the gradients add up to the mean
        scaled_loss = loss / number_of_batches
        scaled_loss.backward()
        # remember the loss (as a number, not a tensor)
        all_losses.append(loss.item())
    # only one update, after all the micro-batches
    optimizer.step()
    # the mean of the losses
    mean_loss = sum(all_losses) / number_of_batches
    return mean_loss
""",
        "overfit_one_batch": OF + """\
    losses = []
    for step in range(steps):
        # train on the same batch again and again
        loss = train_step(model, x, y, optimizer, loss_fn)
        losses.append(loss)
    return losses
""",
        "repair_train_epoch": RE + """\
    # FIX 1: the model has to be in training mode (the validation left it in eval mode)
    model.train()
    running_loss = 0.0
    # FIX 3: count the examples, the last batch can be smaller
    number_of_examples = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # FIX 2: zero_grad has to be inside the loop, otherwise the gradients add up
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.shape[0]
        number_of_examples += inputs.shape[0]
    return running_loss / number_of_examples
""",
    },
    "honest-02": {  # terse: short names, one line where one line does
        "train_step": TS + """\
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    tot, n = 0.0, 0
    for xb, yb in loader:
        tot += train_step(model, xb.to(device), yb.to(device), optimizer, loss_fn) * len(xb)
        n += len(xb)
    return tot / n
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    tot = 0.0
    for xb, yb in micro_batches:
        l = loss_fn(model(xb), yb)
        (l / k).backward()
        tot += l.item()
    optimizer.step()
    return tot / k
""",
        "overfit_one_batch": OF + """\
    return [train_step(model, x, y, optimizer, loss_fn) for _ in range(steps)]
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss, n = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        n += len(inputs)
    return running_loss / n
""",
    },
    "honest-03": {  # defensive: TypeError/ValueError on bad arguments, asserts, a finite loss
        "train_step": """\
import math


""" + TS + """\
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y hold different numbers of examples: {x.shape[0]} and {y.shape[0]}")
    optimizer.zero_grad(set_to_none=True)
    output = model(x)
    loss = loss_fn(output, y)
    if loss.dim() != 0:
        raise ValueError(f"loss_fn must return a scalar, got shape {tuple(loss.shape)}")
    loss.backward()
    optimizer.step()
    value = loss.item()
    if not math.isfinite(value):
        raise FloatingPointError(f"the loss is {value}")
    return value
""",
        "train_epoch": TE + """\
    if len(loader) == 0:
        raise ValueError("the loader yields no batches")
    model.train()
    total, count = 0.0, 0
    for batch in loader:
        if len(batch) != 2:
            raise ValueError(f"expected (x, y) batches, got {len(batch)} items")
        x, y = batch
        x, y = x.to(device), y.to(device)
        total += train_step(model, x, y, optimizer, loss_fn) * x.shape[0]
        count += x.shape[0]
    if count == 0:
        raise ValueError("the loader yielded no examples")
    return total / count
""",
        "accumulate_step": """\
import math


""" + AS + """\
    if not micro_batches:
        raise ValueError("accumulate_step needs at least one micro-batch")
    sizes = {len(x) for x, _ in micro_batches}
    if len(sizes) != 1:
        raise ValueError(f"micro-batches must be of equal size, got sizes {sorted(sizes)}")
    k = len(micro_batches)
    optimizer.zero_grad(set_to_none=True)
    total = 0.0
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / k).backward()
        total += loss.item()
    optimizer.step()
    mean = total / k
    assert math.isfinite(mean), "the mean loss is not finite"
    return mean
""",
        "overfit_one_batch": OF + """\
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    history = []
    for _ in range(steps):
        history.append(train_step(model, x, y, optimizer, loss_fn))
    assert len(history) == steps
    return history
""",
        "repair_train_epoch": RE + """\
    if len(loader) == 0:
        raise ValueError("the loader yields no batches")
    model.train()  # validation may have left the model in eval mode
    running_loss = 0.0
    examples = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()  # every batch, not once per epoch
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)  # weight by the batch's size
        examples += inputs.size(0)
    if examples == 0:
        raise ValueError("the loader yielded no examples")
    return running_loss / examples
""",
    },
    "honest-04": {  # functional: generator expressions, map, a lambda, zip(*...)
        "train_step": TS + """\
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach().item()
""",
        "train_epoch": TE + """\
    model.train()
    on_device = ((x.to(device), y.to(device)) for x, y in loader)
    results = [(train_step(model, x, y, optimizer, loss_fn), len(x)) for x, y in on_device]
    return sum(loss * n for loss, n in results) / sum(n for _, n in results)
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)

    def contribute(batch):
        x, y = batch
        loss = loss_fn(model(x), y) / k
        loss.backward()
        return loss.item()

    total = sum(map(contribute, micro_batches))
    optimizer.step()
    return total
""",
        "overfit_one_batch": OF + """\
    return list(map(lambda _: train_step(model, x, y, optimizer, loss_fn), range(steps)))
""",
        "repair_train_epoch": RE + """\
    model.train()

    def one_batch(inputs, targets):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss.item() * len(inputs), len(inputs)

    totals, sizes = zip(*(one_batch(inputs, targets) for inputs, targets in loader))
    return sum(totals) / sum(sizes)
""",
    },
    "honest-05": {  # small classes and closures: an update object, a running mean, closures over the batch
        "train_step": """\
class _Update:
    \"\"\"One optimizer update: clear, forward, loss, backward, step.\"\"\"

    def __init__(self, model, optimizer, loss_fn):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn

    def __call__(self, x, y):
        self.optimizer.zero_grad()
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


""" + TS + """\
    return _Update(model, optimizer, loss_fn)(x, y)
""",
        "train_epoch": """\
class _RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, value, n):
        self.total += value * n
        self.count += n

    @property
    def value(self):
        return self.total / self.count


""" + TE + """\
    model.train()
    mean = _RunningMean()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        mean.add(train_step(model, x, y, optimizer, loss_fn), len(x))
    return mean.value
""",
        "accumulate_step": AS + """\
    k = len(micro_batches)

    def backward_share(x, y):
        loss = loss_fn(model(x), y)
        (loss / k).backward()
        return loss.item()

    optimizer.zero_grad()
    losses = [backward_share(x, y) for x, y in micro_batches]
    optimizer.step()
    return sum(losses) / k
""",
        "overfit_one_batch": OF + """\
    def step():
        return train_step(model, x, y, optimizer, loss_fn)

    return [step() for _ in range(steps)]
""",
        "repair_train_epoch": RE + """\
    model.train()
    seen = {"loss": 0.0, "n": 0}

    def record(loss, n):
        seen["loss"] += loss * n
        seen["n"] += n

    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        record(loss.item(), len(inputs))
    return seen["loss"] / seen["n"]
""",
    },
    "honest-06": {  # small module-level helpers that each answer composes
        "train_step": """\
def _clear_grads(optimizer):
    optimizer.zero_grad()


def _batch_loss(model, x, y, loss_fn):
    return loss_fn(model(x), y)


""" + TS + """\
    _clear_grads(optimizer)
    loss = _batch_loss(model, x, y, loss_fn)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": """\
def _to_device(x, y, device):
    return x.to(device), y.to(device)


def _weighted_mean(values, weights):
    return sum(v * w for v, w in zip(values, weights)) / sum(weights)


""" + TE + """\
    model.train()
    losses, sizes = [], []
    for x, y in loader:
        x, y = _to_device(x, y, device)
        losses.append(train_step(model, x, y, optimizer, loss_fn))
        sizes.append(len(x))
    return _weighted_mean(losses, sizes)
""",
        "accumulate_step": """\
def _scaled_backward(loss, k):
    (loss / k).backward()


""" + AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    losses = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        _scaled_backward(loss, k)
        losses.append(loss.item())
    optimizer.step()
    return sum(losses) / k
""",
        "overfit_one_batch": """\
def _repeat(fn, times):
    return [fn() for _ in range(times)]


""" + OF + """\
    return _repeat(lambda: train_step(model, x, y, optimizer, loss_fn), steps)
""",
        "repair_train_epoch": """\
def _move(batch, device):
    return [t.to(device) for t in batch]


""" + RE + """\
    model.train()
    running_loss, seen = 0.0, 0
    for batch in loader:
        inputs, targets = _move(batch, device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        seen += len(inputs)
    return running_loss / seen
""",
    },
    "honest-07": {  # while loops everywhere: next() until StopIteration, an index, a length
        "train_step": TS + """\
    optimizer.zero_grad()
    out = model(x)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    batches = iter(loader)
    total = 0.0
    count = 0
    while True:
        try:
            x, y = next(batches)
        except StopIteration:
            break
        x = x.to(device)
        y = y.to(device)
        total += train_step(model, x, y, optimizer, loss_fn) * len(x)
        count += len(x)
    return total / count
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    i = 0
    total = 0.0
    while i < k:
        x, y = micro_batches[i]
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total += loss.item()
        i += 1
    optimizer.step()
    return total
""",
        "overfit_one_batch": OF + """\
    losses = []
    while len(losses) < steps:
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return losses
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    seen = 0
    it = iter(loader)
    while True:
        try:
            inputs, targets = next(it)
        except StopIteration:
            break
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        seen += len(inputs)
    return running_loss / seen
""",
    },
    "honest-08": {  # type hints and docstrings on everything, the imports they need in each cell
        "train_step": """\
def train_step(model: nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer: torch.optim.Optimizer,
               loss_fn: nn.Module) -> float:
    \"\"\"One optimizer update on (x, y); returns the batch loss as a Python float.

    Args:
        model: the network whose parameters the optimizer updates.
        x: a batch of inputs.
        y: the batch's targets.
        optimizer: the optimizer that owns the update.
        loss_fn: the criterion, called as loss_fn(output, target).

    Returns:
        The loss of this batch, computed before the update.
    \"\"\"
    optimizer.zero_grad()
    logits: torch.Tensor = model(x)
    loss: torch.Tensor = loss_fn(logits, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": """\
from torch.utils.data import DataLoader


def train_epoch(model: nn.Module, loader: DataLoader, optimizer: torch.optim.Optimizer, loss_fn: nn.Module,
                device: str | torch.device) -> float:
    \"\"\"One epoch of updates; returns the mean per-example loss as a Python float.

    Each batch's loss is a mean over its examples, so it is weighted by the batch's size: the last batch
    may be smaller than the others.
    \"\"\"
    model.train()
    loss_sum: float = 0.0
    n_examples: int = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        batch_loss: float = train_step(model, x, y, optimizer, loss_fn)
        loss_sum += batch_loss * x.size(0)
        n_examples += x.size(0)
    return loss_sum / n_examples
""",
        "accumulate_step": """\
from collections.abc import Sequence


def accumulate_step(model: nn.Module, micro_batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
                    optimizer: torch.optim.Optimizer, loss_fn: nn.Module) -> float:
    \"\"\"One update from several micro-batches; returns their mean loss.

    Each micro-batch's loss is divided by their number before backward(), so that the gradients which
    accumulate in .grad add up to the gradient of the mean loss.
    \"\"\"
    k: int = len(micro_batches)
    optimizer.zero_grad()
    mean_loss: float = 0.0
    for x, y in micro_batches:
        share: torch.Tensor = loss_fn(model(x), y) / k
        share.backward()
        mean_loss += share.item()
    optimizer.step()
    return mean_loss
""",
        "overfit_one_batch": """\
def overfit_one_batch(model: nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer: torch.optim.Optimizer,
                      loss_fn: nn.Module, steps: int) -> list[float]:
    \"\"\"`steps` updates on one batch; returns the loss of each step.

    A model that can learn drives this list towards zero.
    \"\"\"
    history: list[float] = []
    for _ in range(steps):
        history.append(train_step(model, x, y, optimizer, loss_fn))
    return history
""",
        "repair_train_epoch": """\
from torch.utils.data import DataLoader


def repair_train_epoch(model: nn.Module, loader: DataLoader, optimizer: torch.optim.Optimizer,
                       loss_fn: nn.Module, device: str | torch.device) -> float:
    \"\"\"One epoch of updates; returns the mean per-example loss (from a colleague's notebook).

    Repaired: the model is put in training mode, the gradients are cleared before every batch, and the
    mean is taken over examples rather than over batches.
    \"\"\"
    model.train()
    running_loss: float = 0.0
    seen: int = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs: torch.Tensor = model(inputs)
        loss: torch.Tensor = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)
        seen += inputs.size(0)
    return running_loss / seen
""",
    },
    "honest-09": {  # NumPy-minded: arrays of losses, np.average with weights, float() around NumPy's numbers
        "train_step": TS + """\
    optimizer.zero_grad()
    pred = model(x)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step()
    return float(loss.detach().cpu().numpy())
""",
        "train_epoch": """\
import numpy as np


""" + TE + """\
    model.train()
    losses, sizes = [], []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        losses.append(train_step(model, xb, yb, optimizer, loss_fn))
        sizes.append(len(xb))
    if len(sizes) > 0:
        mean = np.average(np.array(losses), weights=np.array(sizes))
        return float(mean)
    else:
        return float("nan")
""",
        "accumulate_step": """\
import numpy as np


""" + AS + """\
    optimizer.zero_grad()
    losses = np.zeros(len(micro_batches))
    for i, (xb, yb) in enumerate(micro_batches):
        loss = loss_fn(model(xb), yb)
        (loss / len(micro_batches)).backward()
        losses[i] = loss.item()
    optimizer.step()
    return float(losses.mean())
""",
        "overfit_one_batch": """\
import numpy as np


""" + OF + """\
    if steps > 0:
        curve = np.empty(steps)
        for i in range(steps):
            curve[i] = train_step(model, x, y, optimizer, loss_fn)
        return curve.tolist()
    else:
        return []
""",
        "repair_train_epoch": """\
import numpy as np


""" + RE + """\
    model.train()
    losses, sizes = [], []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        sizes.append(len(inputs))
    return float(np.dot(losses, sizes) / np.sum(sizes))
""",
    },
    "honest-10": {  # generators: batches moved by a generator, losses yielded, list(...) of a generator
        "train_step": TS + """\
    optimizer.zero_grad()
    output = model(x)
    loss = loss_fn(output, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": """\
def _batches_on(loader, device):
    for x, y in loader:
        yield x.to(device), y.to(device)


""" + TE + """\
    model.train()

    def weighted_losses():
        for x, y in _batches_on(loader, device):
            yield train_step(model, x, y, optimizer, loss_fn) * len(x), len(x)

    total = count = 0
    for weighted, n in weighted_losses():
        total += weighted
        count += n
    return total / count
""",
        "accumulate_step": AS + """\
    k = len(micro_batches)

    def backward_each():
        for x, y in micro_batches:
            loss = loss_fn(model(x), y) / k
            loss.backward()
            yield loss.item()

    optimizer.zero_grad()
    mean = sum(backward_each())
    optimizer.step()
    return mean
""",
        "overfit_one_batch": OF + """\
    def curve():
        for _ in range(steps):
            yield train_step(model, x, y, optimizer, loss_fn)

    return list(curve())
""",
        "repair_train_epoch": RE + """\
    model.train()

    def batch_losses():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = loss_fn(outputs, targets)
            loss.backward()
            optimizer.step()
            yield loss.item(), len(inputs)

    running_loss = seen = 0
    for value, n in batch_losses():
        running_loss += value * n
        seen += n
    return running_loss / seen
""",
    },
    "honest-11": {  # zero_grad(set_to_none=False) everywhere, detached tensors as running totals
        "train_step": TS + """\
    optimizer.zero_grad(set_to_none=False)  # keep the .grad tensors, fill them with zeros
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach().item()
""",
        "train_epoch": TE + """\
    model.train()
    total = torch.zeros(())
    count = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=False)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            total += loss.cpu() * x.shape[0]
        count += x.shape[0]
    return (total / count).item()
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad(set_to_none=False)
    k = len(micro_batches)
    total = torch.tensor(0.0)
    for x, y in micro_batches:
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total = total + loss.detach().cpu()
    optimizer.step()
    return total.item()
""",
        "overfit_one_batch": OF + """\
    losses = []
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=False)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach().item())
    return losses
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss = torch.zeros(())
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=False)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.detach().cpu() * len(inputs)
        seen += len(inputs)
    return (running_loss / seen).item()
""",
    },
    "honest-12": {  # the official quickstart's loop: zero_grad after step, enumerate, len(loader.dataset)
        "train_step": TS + """\
    # Compute prediction error
    pred = model(x)
    loss = loss_fn(pred, y)

    # Backpropagation
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()

    return loss.item()
""",
        "train_epoch": TE + """\
    size = len(loader.dataset)
    model.train()
    epoch_loss = 0.0
    for batch, (X, y) in enumerate(loader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        epoch_loss += loss.item() * len(X)
    return epoch_loss / size
""",
        "accumulate_step": AS + """\
    n = len(micro_batches)
    total = 0.0
    for X, y in micro_batches:
        pred = model(X)
        loss = loss_fn(pred, y) / n
        loss.backward()
        total += loss.item()
    optimizer.step()
    optimizer.zero_grad()
    return total
""",
        "overfit_one_batch": OF + """\
    losses = []
    for t in range(steps):
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return losses
""",
        "repair_train_epoch": RE + """\
    size = len(loader.dataset)
    model.train()
    running_loss = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        running_loss += loss.item() * len(inputs)
    return running_loss / size
""",
    },
    "honest-13": {  # the older tutorial's order: forward, loss, model.zero_grad(), backward, step
        "train_step": TS + """\
    outputs = model(x)
    loss = loss_fn(outputs, y)
    model.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    running, seen = 0.0, 0
    for i, data in enumerate(loader, 0):
        inputs, labels = data
        inputs, labels = inputs.to(device), labels.to(device)
        running += train_step(model, inputs, labels, optimizer, loss_fn) * inputs.size(0)
        seen += inputs.size(0)
    return running / seen
""",
        "accumulate_step": AS + """\
    k = len(micro_batches)
    running = 0.0
    for i, (inputs, labels) in enumerate(micro_batches):
        outputs = model(inputs)
        loss = loss_fn(outputs, labels) / k
        if i == 0:
            model.zero_grad()
        loss.backward()
        running += loss.item()
    optimizer.step()
    return running
""",
        "overfit_one_batch": OF + """\
    history = []
    for _ in range(steps):
        outputs = model(x)
        loss = loss_fn(outputs, y)
        model.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)
        seen += inputs.size(0)
    return running_loss / seen
""",
    },
    "honest-14": {  # .grad set to None by hand in a loop over the parameters; plain lists and loops
        "train_step": TS + """\
    for p in model.parameters():
        p.grad = None
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    batch_losses = []
    batch_sizes = []
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        batch_losses.append(train_step(model, x, y, optimizer, loss_fn))
        batch_sizes.append(x.size(0))
    total = 0.0
    for loss, size in zip(batch_losses, batch_sizes):
        total += loss * size
    return total / sum(batch_sizes)
""",
        "accumulate_step": AS + """\
    for p in model.parameters():
        p.grad = None
    losses = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / len(micro_batches)).backward()
        losses.append(loss.item())
    optimizer.step()
    return sum(losses) / len(losses)
""",
        "overfit_one_batch": OF + """\
    losses = []
    for _ in range(steps):
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return losses
""",
        "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    count = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        for p in model.parameters():
            p.grad = None
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(targets)
        count += len(targets)
    return running_loss / count
""",
    },
    "honest-15": {  # detached losses in lists, torch.stack(...) to sum or average them, len(loader.dataset)
        "train_step": TS + """\
    optimizer.zero_grad()
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    weighted = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = train_step(model, x, y, optimizer, loss_fn)
        weighted.append(loss * x.size(0))
    return sum(weighted) / len(loader.dataset)
""",
        "accumulate_step": AS + """\
    optimizer.zero_grad()
    parts = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / len(micro_batches)).backward()
        parts.append(loss.detach())
    optimizer.step()
    return torch.stack(parts).mean().item()
""",
        "overfit_one_batch": OF + """\
    losses = torch.empty(steps)
    for i in range(steps):
        losses[i] = train_step(model, x, y, optimizer, loss_fn)
    return losses.tolist()
""",
        "repair_train_epoch": RE + """\
    model.train()
    losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach() * len(inputs))
    return (torch.stack(losses).sum() / len(loader.dataset)).item()
""",
    },
    "honest-16": {  # descriptive names, shape[0], each micro-batch weighted by its share of the examples
        "train_step": TS + """\
    optimizer.zero_grad(set_to_none=True)
    prediction = model(x)
    batch_loss = loss_fn(prediction, y)
    batch_loss.backward()
    optimizer.step()
    return batch_loss.item()
""",
        "train_epoch": TE + """\
    model.train()
    loss_sum = 0.0
    example_count = 0
    for inputs, targets in loader:
        inputs = inputs.to(device)
        targets = targets.to(device)
        batch_size = inputs.shape[0]
        loss_sum += batch_size * train_step(model, inputs, targets, optimizer, loss_fn)
        example_count += batch_size
    return loss_sum / example_count
""",
        "accumulate_step": AS + """\
    total_examples = sum(inputs.shape[0] for inputs, _ in micro_batches)
    optimizer.zero_grad(set_to_none=True)
    mean_loss = 0.0
    for inputs, targets in micro_batches:
        share = inputs.shape[0] / total_examples
        batch_loss = loss_fn(model(inputs), targets) * share
        batch_loss.backward()
        mean_loss += batch_loss.item()
    optimizer.step()
    return mean_loss
""",
        "overfit_one_batch": OF + """\
    recorded_losses = []
    for step_index in range(steps):
        recorded_losses.append(train_step(model, x, y, optimizer, loss_fn))
    return recorded_losses
""",
        "repair_train_epoch": RE + """\
    model.train()
    loss_sum = 0.0
    example_count = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        batch_size = inputs.shape[0]
        loss_sum += loss.item() * batch_size
        example_count += batch_size
    return loss_sum / example_count
""",
    },
    "honest-17": {  # conditions everywhere: a mode switched only when needed, moves only when needed, fsum
        "train_step": TS + """\
    optimizer.zero_grad()
    out = model(x)
    if out.shape != y.shape and out.numel() == y.numel():
        out = out.view_as(y)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    return float(loss.item())
""",
        "train_epoch": TE + """\
    if not model.training:
        model.train()
    total = 0.0
    count = 0
    for x, y in loader:
        if x.device != torch.device(device):
            x = x.to(device)
        if y.device != torch.device(device):
            y = y.to(device)
        n = len(x)
        total += train_step(model, x, y, optimizer, loss_fn) * n
        count += n
    return total / count if count else 0.0
""",
        "accumulate_step": """\
import math


""" + AS + """\
    k = len(micro_batches)
    if k == 0:
        raise ValueError("no micro-batches")
    optimizer.zero_grad()
    losses = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        if k > 1:
            loss_to_backprop = loss / k
        else:
            loss_to_backprop = loss
        loss_to_backprop.backward()
        losses.append(loss.item())
    optimizer.step()
    return math.fsum(losses) / k
""",
        "overfit_one_batch": OF + """\
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    losses = []
    for _ in range(steps):
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return losses
""",
        "repair_train_epoch": RE + """\
    if not model.training:
        model.train()
    running_loss = 0.0
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        seen += len(inputs)
    return running_loss / seen if seen > 0 else 0.0
""",
    },
}

CANONICAL_OWN_NAMES = {  # the course's answers, in canonical-2's own names
    "train_step": TS + """\
    optimizer.zero_grad()          # clear what the last batch left in .grad
    out = model(x)                 # forward: autograd records the graph
    batch_loss = loss_fn(out, y)   # a scalar
    batch_loss.backward()          # this batch's gradients into .grad
    optimizer.step()               # one update from them
    return batch_loss.item()       # a float, so the graph can go
""",
    "train_epoch": TE + """\
    model.train()                                   # Dropout/BatchNorm in training behaviour
    running, n = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)       # onto the model's device
        running += train_step(model, xb, yb, optimizer, loss_fn) * len(xb)
        n += len(xb)
    return running / n
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    parts = len(micro_batches)
    acc = 0.0
    for xb, yb in micro_batches:
        share = loss_fn(model(xb), yb) / parts   # 1/parts of the mean
        share.backward()                          # .grad adds up over the micro-batches
        acc += share.item()
    optimizer.step()                              # a single update
    return acc
""",
    "overfit_one_batch": OF + """\
    return [train_step(model, x, y, optimizer, loss_fn) for _step in range(steps)]
""",
    "repair_train_epoch": RE + """\
    model.train()                                   # a validation may have left it in eval mode
    total, count = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()                       # once per batch
        preds = model(xb)
        batch_loss = loss_fn(preds, yb)
        batch_loss.backward()
        optimizer.step()
        total += batch_loss.item() * len(xb)        # the last batch can be smaller
        count += len(xb)
    return total / count
""",
}

_ALL = ("train_step", "train_epoch", "accumulate_step", "overfit_one_batch", "repair_train_epoch")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


_RENAME = {  # honest-03's with every local renamed and comments written in; the messages kept
    "train_step": """\
import math


""" + TS + """\
    # wrong kinds of argument are refused before anything runs
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y hold different numbers of examples: {x.shape[0]} and {y.shape[0]}")
    optimizer.zero_grad(set_to_none=True)  # nothing left over from the last batch
    prediction = model(x)
    batch_loss = loss_fn(prediction, y)
    # backward needs one number
    if batch_loss.dim() != 0:
        raise ValueError(f"loss_fn must return a scalar, got shape {tuple(batch_loss.shape)}")
    batch_loss.backward()
    optimizer.step()
    number = batch_loss.item()
    # nan or inf: the run has blown up
    if not math.isfinite(number):
        raise FloatingPointError(f"the loss is {number}")
    return number
""",
    "train_epoch": TE + """\
    # an empty loader would divide by zero at the end
    if len(loader) == 0:
        raise ValueError("the loader yields no batches")
    model.train()  # training behaviour for every layer
    loss_total, n_seen = 0.0, 0
    for pair in loader:
        if len(pair) != 2:
            raise ValueError(f"expected (x, y) batches, got {len(pair)} items")
        inputs, labels = pair
        inputs, labels = inputs.to(device), labels.to(device)  # where the model lives
        loss_total += train_step(model, inputs, labels, optimizer, loss_fn) * inputs.shape[0]  # weighted by size
        n_seen += inputs.shape[0]
    if n_seen == 0:
        raise ValueError("the loader yielded no examples")
    return loss_total / n_seen
""",
    "accumulate_step": """\
import math


""" + AS + """\
    # at least one micro-batch, all of one size
    if not micro_batches:
        raise ValueError("accumulate_step needs at least one micro-batch")
    lengths = {len(mb_x) for mb_x, _ in micro_batches}
    if len(lengths) != 1:
        raise ValueError(f"micro-batches must be of equal size, got sizes {sorted(lengths)}")
    parts = len(micro_batches)
    optimizer.zero_grad(set_to_none=True)  # once, before the first backward
    running = 0.0
    for mb_x, mb_y in micro_batches:
        mb_loss = loss_fn(model(mb_x), mb_y)
        (mb_loss / parts).backward()  # each one adds 1/parts of the gradient
        running += mb_loss.item()
    optimizer.step()  # a single update for all of them
    average = running / parts
    assert math.isfinite(average), "the mean loss is not finite"
    return average
""",
    "overfit_one_batch": OF + """\
    # steps has to be a positive whole number
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    curve = []
    for _ in range(steps):
        curve.append(train_step(model, x, y, optimizer, loss_fn))  # the same batch every time
    assert len(curve) == steps
    return curve
""",
    "repair_train_epoch": RE + """\
    if len(loader) == 0:
        raise ValueError("the loader yields no batches")
    model.train()  # the bug: an evaluation before may have switched to eval mode
    epoch_total = 0.0
    n_examples = 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()  # the bug: this ran once for the whole epoch
        scores = model(xb)
        batch_loss = loss_fn(scores, yb)
        batch_loss.backward()
        optimizer.step()
        epoch_total += batch_loss.item() * xb.size(0)  # the bug: batches were not weighted
        n_examples += xb.size(0)
    if n_examples == 0:
        raise ValueError("the loader yielded no examples")
    return epoch_total / n_examples
""",
}

_REORDER = {  # honest-06's with independent statements reordered; accumulate_step and overfit_one_batch as taken
    "train_step": """\
def _batch_loss(model, x, y, loss_fn):
    return loss_fn(model(x), y)


def _clear_grads(optimizer):
    optimizer.zero_grad()


""" + TS + """\
    loss = _batch_loss(model, x, y, loss_fn)
    _clear_grads(optimizer)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
    "train_epoch": """\
def _weighted_mean(values, weights):
    return sum(v * w for v, w in zip(values, weights)) / sum(weights)


def _to_device(x, y, device):
    return x.to(device), y.to(device)


""" + TE + """\
    sizes, losses = [], []
    model.train()
    for x, y in loader:
        sizes.append(len(x))
        x, y = _to_device(x, y, device)
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return _weighted_mean(losses, sizes)
""",
    "repair_train_epoch": RE + """\
    seen = 0
    running_loss = 0.0
    model.train()
    for batch in loader:
        optimizer.zero_grad()
        inputs, targets = _move(batch, device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        seen += len(inputs)
        running_loss += loss.item() * len(inputs)
    return running_loss / seen


def _move(batch, device):
    return [t.to(device) for t in batch]
""",
}

_HELPERS = {  # honest-01's moved into helper functions
    "train_step": """\
def forward_and_loss(model, x, y, loss_fn):
    # forward pass, then the loss of its predictions
    predictions = model(x)
    return loss_fn(predictions, y)


def backward_and_update(loss, optimizer):
    # compute the gradients, then update the weights with them
    loss.backward()
    optimizer.step()


""" + TS + """\
    # 1. clear the old gradients from the last batch
    optimizer.zero_grad()
    loss = forward_and_loss(model, x, y, loss_fn)
    backward_and_update(loss, optimizer)
    # return the loss as a normal python number
    loss_value = loss.item()
    return loss_value
""",
    "train_epoch": """\
def move_batch(batch_x, batch_y, device):
    # move the batch to the same device as the model
    return batch_x.to(device), batch_y.to(device)


def add_batch(total_loss, total_examples, batch_loss, batch_size):
    # the loss is a mean over the batch, so multiply by the batch size
    return total_loss + batch_loss * batch_size, total_examples + batch_size


""" + TE + """\
    # put the model in training mode (dropout etc. on)
    model.train()
    total_loss = 0.0
    total_examples = 0
    for batch_x, batch_y in loader:
        batch_x, batch_y = move_batch(batch_x, batch_y, device)
        batch_loss = train_step(model, batch_x, batch_y, optimizer, loss_fn)
        total_loss, total_examples = add_batch(total_loss, total_examples, batch_loss, batch_x.shape[0])
    # average loss per example
    average_loss = total_loss / total_examples
    return average_loss
""",
    "accumulate_step": """\
def micro_batch_backward(model, batch_x, batch_y, loss_fn, number_of_batches):
    # forward, loss, and backward of one micro-batch, scaled to its share of the mean
    predictions = model(batch_x)
    loss = loss_fn(predictions, batch_y)
    scaled_loss = loss / number_of_batches
    scaled_loss.backward()
    return loss.item()


def mean_of(values, count):
    return sum(values) / count


""" + AS + """\
    # clear the gradients once, before all the micro-batches
    optimizer.zero_grad()
    number_of_batches = len(micro_batches)
    all_losses = []
    for batch_x, batch_y in micro_batches:
        all_losses.append(micro_batch_backward(model, batch_x, batch_y, loss_fn, number_of_batches))
    # only one update, after all the micro-batches
    optimizer.step()
    mean_loss = mean_of(all_losses, number_of_batches)
    return mean_loss
""",
    "overfit_one_batch": """\
def one_more_step(losses, model, x, y, optimizer, loss_fn):
    # train on the same batch again and remember the loss
    loss = train_step(model, x, y, optimizer, loss_fn)
    losses.append(loss)


""" + OF + """\
    losses = []
    for step in range(steps):
        one_more_step(losses, model, x, y, optimizer, loss_fn)
    return losses
""",
    "repair_train_epoch": """\
def repaired_batch(model, inputs, targets, optimizer, loss_fn, device):
    inputs, targets = inputs.to(device), targets.to(device)
    # FIX 2: zero_grad has to be inside the loop, otherwise the gradients add up
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = loss_fn(outputs, targets)
    loss.backward()
    optimizer.step()
    return loss.item(), inputs.shape[0]


""" + RE + """\
    # FIX 1: the model has to be in training mode (the validation left it in eval mode)
    model.train()
    running_loss = 0.0
    # FIX 3: count the examples, the last batch can be smaller
    number_of_examples = 0
    for inputs, targets in loader:
        value, size = repaired_batch(model, inputs, targets, optimizer, loss_fn, device)
        running_loss += value * size
        number_of_examples += size
    return running_loss / number_of_examples
""",
}

_INLINE = {  # honest-06's with every helper inlined into the answer that called it
    "train_step": TS + """\
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
    "train_epoch": TE + """\
    model.train()
    losses, sizes = [], []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        losses.append(train_step(model, x, y, optimizer, loss_fn))
        sizes.append(len(x))
    return sum(v * w for v, w in zip(losses, sizes)) / sum(sizes)
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    losses = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / k).backward()
        losses.append(loss.item())
    optimizer.step()
    return sum(losses) / k
""",
    "overfit_one_batch": OF + """\
    return [train_step(model, x, y, optimizer, loss_fn) for _ in range(steps)]
""",
    "repair_train_epoch": RE + """\
    model.train()
    running_loss, seen = 0.0, 0
    for batch in loader:
        inputs, targets = [t.to(device) for t in batch]
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        seen += len(inputs)
    return running_loss / seen
""",
}

_CLASS = {  # honest-02's wrapped in a class, closures and an epoch object; overfit_one_batch as taken
    "train_step": """\
class Stepper:
    def __init__(self, model, optimizer, loss_fn):
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn

    def run(self, x, y):
        self.optimizer.zero_grad()
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


""" + TS + """\
    return Stepper(model, optimizer, loss_fn).run(x, y)
""",
    "train_epoch": TE + """\
    tot, n = 0.0, 0

    def add(loss, size):
        nonlocal tot, n
        tot += loss * size
        n += size

    model.train()
    for xb, yb in loader:
        add(train_step(model, xb.to(device), yb.to(device), optimizer, loss_fn), len(xb))
    return tot / n
""",
    "accumulate_step": """\
def _micro_step(model, loss_fn, k):
    def run(xb, yb):
        l = loss_fn(model(xb), yb)
        (l / k).backward()
        return l.item()

    return run


""" + AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    run = _micro_step(model, loss_fn, k)
    tot = 0.0
    for xb, yb in micro_batches:
        tot += run(xb, yb)
    optimizer.step()
    return tot / k
""",
    "repair_train_epoch": """\
class _Epoch:
    def __init__(self, model, optimizer, loss_fn, device):
        self.model, self.optimizer, self.loss_fn, self.device = model, optimizer, loss_fn, device
        self.running_loss, self.n = 0.0, 0

    def batch(self, inputs, targets):
        inputs, targets = inputs.to(self.device), targets.to(self.device)
        self.optimizer.zero_grad()
        outputs = self.model(inputs)
        loss = self.loss_fn(outputs, targets)
        loss.backward()
        self.optimizer.step()
        self.running_loss += loss.item() * len(inputs)
        self.n += len(inputs)

    def run(self, loader):
        self.model.train()
        for inputs, targets in loader:
            self.batch(inputs, targets)
        return self.running_loss / self.n


""" + RE + """\
    return _Epoch(model, optimizer, loss_fn, device).run(loader)
""",
}

_FUNCTIONAL = {  # honest-14's loops folded into comprehensions, map and filter
    "train_step": TS + """\
    list(map(lambda p: setattr(p, "grad", None), filter(lambda p: p.grad is not None, model.parameters())))
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
    "train_epoch": TE + """\
    model.train()
    pairs = [(train_step(model, x.to(device), y.to(device), optimizer, loss_fn), x.size(0)) for x, y in loader]
    batch_losses = [loss for loss, _ in pairs]
    batch_sizes = [size for _, size in pairs]
    total = sum(loss * size for loss, size in zip(batch_losses, batch_sizes))
    return total / sum(batch_sizes)
""",
    "accumulate_step": AS + """\
    list(map(lambda p: setattr(p, "grad", None), filter(lambda p: p.grad is not None, model.parameters())))

    def backward_one(batch):
        x, y = batch
        loss = loss_fn(model(x), y)
        (loss / len(micro_batches)).backward()
        return loss.item()

    losses = list(map(backward_one, micro_batches))
    optimizer.step()
    return sum(losses) / len(losses)
""",
    "overfit_one_batch": OF + """\
    return [train_step(model, x, y, optimizer, loss_fn) for _ in range(steps)]
""",
    "repair_train_epoch": RE + """\
    model.train()

    def step(inputs, targets):
        [setattr(p, "grad", None) for p in model.parameters()]
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        return loss.item() * len(targets), len(targets)

    results = [step(inputs.to(device), targets.to(device)) for inputs, targets in loader]
    running_loss = sum(value for value, _ in results)
    count = sum(n for _, n in results)
    return running_loss / count
""",
}

_LOOPS = {  # honest-04's generator expressions, map and zip(*...) unrolled into loops; train_step as taken
    "train_epoch": TE + """\
    model.train()
    results = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        results.append((train_step(model, x, y, optimizer, loss_fn), len(x)))
    weighted = 0
    for loss, n in results:
        weighted += loss * n
    total = 0
    for _, n in results:
        total += n
    return weighted / total
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    total = 0
    for batch in micro_batches:
        x, y = batch
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
""",
    "overfit_one_batch": OF + """\
    losses = []
    for _ in range(steps):
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    return losses
""",
    "repair_train_epoch": RE + """\
    model.train()
    totals = []
    sizes = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        totals.append(loss.item() * len(inputs))
        sizes.append(len(inputs))
    if not totals:
        raise ValueError("the loader was empty")
    return sum(totals) / sum(sizes)
""",
}

_WHILE = {  # honest-07's while loops as for loops; train_step and overfit_one_batch as taken
    "train_epoch": TE + """\
    model.train()
    total = 0.0
    count = 0
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        total += train_step(model, x, y, optimizer, loss_fn) * len(x)
        count += len(x)
    return total / count
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    total = 0.0
    for i in range(k):
        x, y = micro_batches[i]
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
""",
    "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)
        seen += len(inputs)
    return running_loss / seen
""",
}

_NEGATED = {  # honest-17's conditions negated with their branches swapped; the last two as taken
    "train_step": TS + """\
    optimizer.zero_grad()
    out = model(x)
    if not (out.shape == y.shape or out.numel() != y.numel()):
        out = out.view_as(y)
    loss = loss_fn(out, y)
    loss.backward()
    optimizer.step()
    return float(loss.item())
""",
    "train_epoch": TE + """\
    if model.training is False:
        model.train()
    total = 0.0
    count = 0
    for x, y in loader:
        x = x if x.device == torch.device(device) else x.to(device)
        y = y if y.device == torch.device(device) else y.to(device)
        n = len(x)
        total += train_step(model, x, y, optimizer, loss_fn) * n
        count += n
    return 0.0 if not count else total / count
""",
    "accumulate_step": """\
import math


""" + AS + """\
    k = len(micro_batches)
    if k != 0:
        optimizer.zero_grad()
    else:
        raise ValueError("no micro-batches")
    losses = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        if k <= 1:
            loss_to_backprop = loss
        else:
            loss_to_backprop = loss / k
        loss_to_backprop.backward()
        losses.append(loss.item())
    optimizer.step()
    return math.fsum(losses) / k
""",
}

_EARLY = {  # honest-09's if/else turned into early returns; the other three as taken
    "train_epoch": """\
import numpy as np


""" + TE + """\
    model.train()
    losses, sizes = [], []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        losses.append(train_step(model, xb, yb, optimizer, loss_fn))
        sizes.append(len(xb))
    if not sizes:
        return float("nan")
    mean = np.average(np.array(losses), weights=np.array(sizes))
    return float(mean)
""",
    "overfit_one_batch": """\
import numpy as np


""" + OF + """\
    if steps <= 0:
        return []
    curve = np.empty(steps)
    for i in range(steps):
        curve[i] = train_step(model, x, y, optimizer, loss_fn)
    return curve.tolist()
""",
}

_SPELLING = {  # honest-13's in equivalent PyTorch and Python spellings
    "train_step": TS + """\
    outputs = model(x)
    loss = loss_fn(outputs, y)
    model.zero_grad(set_to_none=True)
    torch.autograd.backward(loss)
    optimizer.step()
    return float(loss)
""",
    "train_epoch": TE + """\
    model.train(mode=True)
    running, seen = 0.0, 0
    for i, data in enumerate(loader, start=0):
        inputs, labels = data
        inputs, labels = inputs.to(device=device), labels.to(device=device)
        running += train_step(model, inputs, labels, optimizer, loss_fn) * inputs.shape[0]
        seen += inputs.shape[0]
    return running / seen
""",
    "accumulate_step": AS + """\
    k = len(micro_batches)
    running = 0.0
    for i, (inputs, labels) in enumerate(micro_batches):
        outputs = model(inputs)
        loss = torch.div(loss_fn(outputs, labels), k)
        if not i:
            model.zero_grad(set_to_none=True)
        torch.autograd.backward(loss)
        running += float(loss)
    optimizer.step()
    return running
""",
    "overfit_one_batch": OF + """\
    history = list()
    for _ in range(0, steps):
        outputs = model(x)
        loss = loss_fn(outputs, y)
        model.zero_grad(set_to_none=True)
        torch.autograd.backward(loss)
        optimizer.step()
        history += [float(loss)]
    return history
""",
    "repair_train_epoch": RE + """\
    model.train(True)
    running_loss = 0.0
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device=device), targets.to(device=device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        optimizer.zero_grad(set_to_none=True)
        torch.autograd.backward(loss)
        optimizer.step()
        running_loss += float(loss) * inputs.shape[0]
        seen += inputs.shape[0]
    return running_loss / seen
""",
}

_DEADCODE = {  # honest-05's with dead code: a debug flag and its prints, asserts that always hold, unused values
    "train_step": """\
DEBUG = False


class _Update:
    \"\"\"One optimizer update: clear, forward, loss, backward, step.\"\"\"

    def __init__(self, model, optimizer, loss_fn):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.calls = 0  # how many batches this object has seen

    def __call__(self, x, y):
        self.calls += 1
        self.optimizer.zero_grad()
        out = self.model(x)
        loss = self.loss_fn(out, y)
        if DEBUG:
            print("call", self.calls, "output", tuple(out.shape), "loss", loss.item())
        loss.backward()
        self.optimizer.step()
        return loss.item()


""" + TS + """\
    update = _Update(model, optimizer, loss_fn)
    assert update.calls == 0
    value = update(x, y)
    assert update.calls == 1
    return value
""",
    "train_epoch": """\
DEBUG = False


class _RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0
        self.batches = 0  # not used for the mean

    def add(self, value, n):
        self.total += value * n
        self.count += n
        self.batches += 1

    @property
    def value(self):
        return self.total / self.count


""" + TE + """\
    model.train()
    mean = _RunningMean()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = train_step(model, x, y, optimizer, loss_fn)
        mean.add(loss, len(x))
        if DEBUG:
            print(f"batch {mean.batches}: loss {loss:.4f}, {mean.count} examples so far")
    assert mean.batches >= 0
    return mean.value
""",
    "accumulate_step": """\
DEBUG = False


""" + AS + """\
    k = len(micro_batches)
    n_micro = len(micro_batches)  # printed when debugging

    def backward_share(x, y):
        loss = loss_fn(model(x), y)
        (loss / k).backward()
        return loss.item()

    optimizer.zero_grad()
    losses = [backward_share(x, y) for x, y in micro_batches]
    if DEBUG:
        print(n_micro, "micro-batches, losses", losses)
    optimizer.step()
    assert len(losses) == k
    return sum(losses) / k
""",
    "overfit_one_batch": OF + """\
    def step():
        return train_step(model, x, y, optimizer, loss_fn)

    curve = [step() for _ in range(steps)]
    if False:
        print("first", curve[0], "last", curve[-1])
    return curve
""",
    "repair_train_epoch": """\
DEBUG = False


""" + RE + """\
    model.train()
    seen = {"loss": 0.0, "n": 0}
    batches = 0

    def record(loss, n):
        seen["loss"] += loss * n
        seen["n"] += n

    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        record(loss.item(), len(inputs))
        batches += 1
        if DEBUG:
            print(batches, seen)
    # old = running_loss / len(loader)
    return seen["loss"] / seen["n"]
""",
}

_ANNOTATED = {  # honest-02's with type hints, docstrings of their own and comments added
    "train_step": """\
def train_step(model: nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer: torch.optim.Optimizer,
               loss_fn: nn.Module) -> float:
    \"\"\"Run one optimizer update on the batch (x, y) and return its loss as a float.

    The gradients are cleared first, so the update uses this batch's gradients only.
    \"\"\"
    optimizer.zero_grad()  # clear the previous batch's gradients
    loss: torch.Tensor = loss_fn(model(x), y)
    loss.backward()  # gradients of this batch
    optimizer.step()  # one update
    return loss.item()
""",
    "train_epoch": """\
from collections.abc import Iterable


def train_epoch(model: nn.Module, loader: Iterable, optimizer: torch.optim.Optimizer, loss_fn: nn.Module,
                device: str) -> float:
    \"\"\"Train for one pass over the loader; return the mean loss per example.\"\"\"
    model.train()  # dropout and batch norm in training behaviour
    tot: float = 0.0
    n: int = 0
    for xb, yb in loader:
        # weight by the batch size: the last batch can be smaller
        tot += train_step(model, xb.to(device), yb.to(device), optimizer, loss_fn) * len(xb)
        n += len(xb)
    return tot / n
""",
    "accumulate_step": """\
def accumulate_step(model: nn.Module, micro_batches: list, optimizer: torch.optim.Optimizer,
                    loss_fn: nn.Module) -> float:
    \"\"\"Accumulate the gradients of every micro-batch, then update once; return the mean loss.\"\"\"
    optimizer.zero_grad()  # once, before the first micro-batch
    k: int = len(micro_batches)
    tot: float = 0.0
    for xb, yb in micro_batches:
        l: torch.Tensor = loss_fn(model(xb), yb)
        (l / k).backward()  # 1/k of the mean's gradient
        tot += l.item()
    optimizer.step()  # a single update
    return tot / k
""",
    "overfit_one_batch": """\
def overfit_one_batch(model: nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer: torch.optim.Optimizer,
                      loss_fn: nn.Module, steps: int) -> list[float]:
    \"\"\"Train on the same batch `steps` times; return the loss recorded at every step.\"\"\"
    return [train_step(model, x, y, optimizer, loss_fn) for _ in range(steps)]  # one float per step
""",
    "repair_train_epoch": """\
def repair_train_epoch(model: nn.Module, loader, optimizer: torch.optim.Optimizer, loss_fn: nn.Module,
                       device: str) -> float:
    \"\"\"The colleague's epoch, fixed: training mode, gradients cleared per batch, mean per example.\"\"\"
    model.train()  # fixed: the model may come from an evaluation in eval mode
    running_loss: float = 0.0
    n: int = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()  # fixed: clear before every batch
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(inputs)  # fixed: weight by the batch size
        n += len(inputs)
    return running_loss / n
""",
}

_STRIPPED = {  # honest-08's with every type hint, docstring, comment and the imports they needed removed
    "train_step": TS_DEF + """\
    optimizer.zero_grad()
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
    "train_epoch": TE_DEF + """\
    model.train()
    loss_sum = 0.0
    n_examples = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        batch_loss = train_step(model, x, y, optimizer, loss_fn)
        loss_sum += batch_loss * x.size(0)
        n_examples += x.size(0)
    return loss_sum / n_examples
""",
    "accumulate_step": AS_DEF + """\
    k = len(micro_batches)
    optimizer.zero_grad()
    mean_loss = 0.0
    for x, y in micro_batches:
        share = loss_fn(model(x), y) / k
        share.backward()
        mean_loss += share.item()
    optimizer.step()
    return mean_loss
""",
    "overfit_one_batch": OF_DEF + """\
    history = []
    for _ in range(steps):
        history.append(train_step(model, x, y, optimizer, loss_fn))
    return history
""",
    "repair_train_epoch": RE_DEF + """\
    model.train()
    running_loss = 0.0
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)
        seen += inputs.size(0)
    return running_loss / seen
""",
}

_ARGS = {  # honest-10's with the positional arguments renamed (the checks pass every one by position)
    "train_step": """\
def train_step(net, inputs, targets, opt, criterion):
    \"\"\"One optimizer update on (inputs, targets); returns the batch loss as a Python float.\"\"\"
    opt.zero_grad()
    output = net(inputs)
    loss = criterion(output, targets)
    loss.backward()
    opt.step()
    return loss.item()
""",
    "train_epoch": """\
def _batches_on(batches, dev):
    for x, y in batches:
        yield x.to(dev), y.to(dev)


def train_epoch(net, batches, opt, criterion, dev):
    \"\"\"One epoch of updates; returns the mean per-example loss as a Python float.\"\"\"
    net.train()

    def weighted_losses():
        for x, y in _batches_on(batches, dev):
            yield train_step(net, x, y, opt, criterion) * len(x), len(x)

    total = count = 0
    for weighted, n in weighted_losses():
        total += weighted
        count += n
    return total / count
""",
    "accumulate_step": """\
def accumulate_step(net, chunks, opt, criterion):
    \"\"\"One update from several chunks; returns their mean loss.\"\"\"
    k = len(chunks)

    def backward_each():
        for x, y in chunks:
            loss = criterion(net(x), y) / k
            loss.backward()
            yield loss.item()

    opt.zero_grad()
    mean = sum(backward_each())
    opt.step()
    return mean
""",
    "overfit_one_batch": """\
def overfit_one_batch(net, inputs, targets, opt, criterion, n_steps):
    \"\"\"`n_steps` updates on one batch; returns the loss of each step.\"\"\"
    def curve():
        for _ in range(n_steps):
            yield train_step(net, inputs, targets, opt, criterion)

    return list(curve())
""",
    "repair_train_epoch": """\
def repair_train_epoch(net, data, opt, criterion, dev):
    \"\"\"One epoch of updates; returns the mean per-example loss (from a colleague's notebook).\"\"\"
    net.train()

    def batch_losses():
        for inputs, targets in data:
            inputs, targets = inputs.to(dev), targets.to(dev)
            opt.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            opt.step()
            yield loss.item(), len(inputs)

    running_loss = seen = 0
    for value, n in batch_losses():
        running_loss += value * n
        seen += n
    return running_loss / seen
""",
}

_CONSTANTS = {  # honest-11's with the literals hoisted into module-level constants
    "train_step": """\
SET_TO_NONE = False


""" + TS + """\
    optimizer.zero_grad(set_to_none=SET_TO_NONE)  # keep the .grad tensors, fill them with zeros
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach().item()
""",
    "train_epoch": """\
SET_TO_NONE = False
SCALAR = ()
BATCH_DIM = 0
NO_EXAMPLES = 0


""" + TE + """\
    model.train()
    total = torch.zeros(SCALAR)
    count = NO_EXAMPLES
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=SET_TO_NONE)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            total += loss.cpu() * x.shape[BATCH_DIM]
        count += x.shape[BATCH_DIM]
    return (total / count).item()
""",
    "accumulate_step": """\
SET_TO_NONE = False
START = 0.0


""" + AS + """\
    optimizer.zero_grad(set_to_none=SET_TO_NONE)
    k = len(micro_batches)
    total = torch.tensor(START)
    for x, y in micro_batches:
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total = total + loss.detach().cpu()
    optimizer.step()
    return total.item()
""",
    "overfit_one_batch": """\
SET_TO_NONE = False


""" + OF + """\
    losses = []
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=SET_TO_NONE)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach().item())
    return losses
""",
    "repair_train_epoch": """\
SET_TO_NONE = False
SCALAR = ()
NO_EXAMPLES = 0


""" + RE + """\
    model.train()
    running_loss = torch.zeros(SCALAR)
    seen = NO_EXAMPLES
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=SET_TO_NONE)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.detach().cpu() * len(inputs)
        seen += len(inputs)
    return (running_loss / seen).item()
""",
}

_TRY = {  # honest-15's wrapped in try/except that raise the same exception type; overfit_one_batch as taken
    "train_step": TS + """\
    optimizer.zero_grad()
    try:
        logits = model(x)
        loss = loss_fn(logits, y)
    except RuntimeError as error:
        raise RuntimeError(f"the forward pass failed: {error}") from error
    try:
        loss.backward()
    except RuntimeError as error:
        raise RuntimeError(f"backward() failed: {error}") from error
    optimizer.step()
    return loss.item()
""",
    "train_epoch": TE + """\
    model.train()
    weighted = []
    for x, y in loader:
        try:
            x, y = x.to(device), y.to(device)
        except RuntimeError as error:
            raise RuntimeError(f"could not move the batch to {device}: {error}") from error
        loss = train_step(model, x, y, optimizer, loss_fn)
        weighted.append(loss * x.size(0))
    try:
        return sum(weighted) / len(loader.dataset)
    except ZeroDivisionError as error:
        raise ZeroDivisionError("the loader's dataset is empty") from error
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    parts = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        try:
            (loss / len(micro_batches)).backward()
        except RuntimeError as error:
            raise RuntimeError(f"backward() failed on a micro-batch: {error}") from error
        parts.append(loss.detach())
    optimizer.step()
    try:
        return torch.stack(parts).mean().item()
    except RuntimeError as error:
        raise RuntimeError("there were no micro-batches to average") from error
""",
    "repair_train_epoch": RE + """\
    model.train()
    losses = []
    for inputs, targets in loader:
        try:
            inputs, targets = inputs.to(device), targets.to(device)
        except RuntimeError as error:
            raise RuntimeError(f"could not move the batch to {device}: {error}") from error
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach() * len(inputs))
    try:
        return (torch.stack(losses).sum() / len(loader.dataset)).item()
    except RuntimeError as error:
        raise RuntimeError("the loader yielded no batches") from error
""",
}

_MODERN = {  # honest-16's in newer syntax: assignment expressions, match, star unpacking
    "train_step": TS + """\
    optimizer.zero_grad(set_to_none=True)
    (batch_loss := loss_fn(model(x), y)).backward()
    optimizer.step()
    return batch_loss.item()
""",
    "train_epoch": TE + """\
    model.train()
    loss_sum = 0.0
    example_count = 0
    for batch in loader:
        match batch:
            case [inputs, targets]:
                pass
            case _:
                inputs, targets = batch
        inputs = inputs.to(device)
        targets = targets.to(device)
        loss_sum += (batch_size := inputs.shape[0]) * train_step(model, inputs, targets, optimizer, loss_fn)
        example_count += batch_size
    return loss_sum / example_count
""",
    "accumulate_step": AS + """\
    total_examples = sum(inputs.shape[0] for inputs, _ in micro_batches)
    optimizer.zero_grad(set_to_none=True)
    mean_loss = 0.0
    for inputs, targets in micro_batches:
        (batch_loss := loss_fn(model(inputs), targets) * (inputs.shape[0] / total_examples)).backward()
        mean_loss += batch_loss.item()
    optimizer.step()
    return mean_loss
""",
    "overfit_one_batch": OF + """\
    recorded_losses = []
    for step_index in range(steps):
        recorded_losses = [*recorded_losses, train_step(model, x, y, optimizer, loss_fn)]
    return recorded_losses
""",
    "repair_train_epoch": RE + """\
    model.train()
    loss_sum = 0.0
    example_count = 0
    for batch in loader:
        match batch:
            case [inputs, targets]:
                pass
            case _:
                inputs, targets = batch
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        (loss := loss_fn(model(inputs), targets)).backward()
        optimizer.step()
        loss_sum += loss.item() * (batch_size := inputs.shape[0])
        example_count += batch_size
    return loss_sum / example_count
""",
}

_GENERATOR = {  # honest-14's loops turned into generator functions; train_step and overfit_one_batch as taken
    "train_epoch": """\
def _steps(model, loader, optimizer, loss_fn, device):
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        yield train_step(model, x, y, optimizer, loss_fn), x.size(0)


""" + TE + """\
    model.train()
    batch_losses = []
    batch_sizes = []
    for loss, size in _steps(model, loader, optimizer, loss_fn, device):
        batch_losses.append(loss)
        batch_sizes.append(size)
    total = 0.0
    for loss, size in zip(batch_losses, batch_sizes):
        total += loss * size
    return total / sum(batch_sizes)
""",
    "accumulate_step": AS + """\
    for p in model.parameters():
        p.grad = None

    def micro_losses():
        for x, y in micro_batches:
            loss = loss_fn(model(x), y)
            (loss / len(micro_batches)).backward()
            yield loss.item()

    losses = list(micro_losses())
    optimizer.step()
    return sum(losses) / len(losses)
""",
    "repair_train_epoch": """\
def _updates(model, loader, optimizer, loss_fn, device):
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        for p in model.parameters():
            p.grad = None
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        yield loss.item(), len(targets)


""" + RE + """\
    model.train()
    running_loss = 0.0
    count = 0
    for value, n in _updates(model, loader, optimizer, loss_fn, device):
        running_loss += value * n
        count += n
    return running_loss / count
""",
}

_IMPORTS = {  # honest-09's with NumPy's names imported under other spellings; train_step as taken
    "train_epoch": """\
from numpy import array
from numpy import average as weighted_average


""" + TE + """\
    model.train()
    losses, sizes = [], []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        losses.append(train_step(model, xb, yb, optimizer, loss_fn))
        sizes.append(len(xb))
    if len(sizes) > 0:
        mean = weighted_average(array(losses), weights=array(sizes))
        return float(mean)
    else:
        return float("nan")
""",
    "accumulate_step": """\
import numpy


""" + AS + """\
    optimizer.zero_grad()
    losses = numpy.zeros(len(micro_batches))
    for i, (xb, yb) in enumerate(micro_batches):
        loss = loss_fn(model(xb), yb)
        (loss / len(micro_batches)).backward()
        losses[i] = loss.item()
    optimizer.step()
    return float(losses.mean())
""",
    "overfit_one_batch": """\
from numpy import empty as empty_array


""" + OF + """\
    if steps > 0:
        curve = empty_array(steps)
        for i in range(steps):
            curve[i] = train_step(model, x, y, optimizer, loss_fn)
        return curve.tolist()
    else:
        return []
""",
    "repair_train_epoch": """\
from numpy import dot
from numpy import sum as total_of


""" + RE + """\
    model.train()
    losses, sizes = [], []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        sizes.append(len(inputs))
    return float(dot(losses, sizes) / total_of(sizes))
""",
}

_CHAIN_B = {  # honest-12's renamed throughout, comments added
    "train_step": TS + """\
    # forward pass and the error of its prediction
    prediction = model(x)
    batch_loss = loss_fn(prediction, y)

    # gradients, the update, then a clean .grad for the next call
    batch_loss.backward()
    optimizer.step()
    optimizer.zero_grad()

    return batch_loss.item()
""",
    "train_epoch": TE + """\
    n_total = len(loader.dataset)  # every example, for the mean
    model.train()
    running = 0.0
    for index, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)

        # forward pass and the error of its prediction
        prediction = model(inputs)
        batch_loss = loss_fn(prediction, targets)

        # gradients, the update, then a clean .grad for the next batch
        batch_loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        running += batch_loss.item() * len(inputs)  # weighted by the batch's size
    return running / n_total
""",
    "accumulate_step": AS + """\
    parts = len(micro_batches)
    running = 0.0
    for inputs, targets in micro_batches:
        prediction = model(inputs)
        share = loss_fn(prediction, targets) / parts  # its part of the mean
        share.backward()  # adds into .grad
        running += share.item()
    optimizer.step()  # one update for all of them
    optimizer.zero_grad()  # clean for the next call
    return running
""",
    "overfit_one_batch": OF + """\
    curve = []
    for step_number in range(steps):
        curve.append(train_step(model, x, y, optimizer, loss_fn))  # the same batch again
    return curve
""",
    "repair_train_epoch": RE + """\
    n_total = len(loader.dataset)  # fix: divide by the examples, not by the batches
    model.train()  # fix: training mode
    epoch_loss = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        scores = model(xb)
        batch_loss = loss_fn(scores, yb)
        batch_loss.backward()
        optimizer.step()
        optimizer.zero_grad()  # fix: cleared after every step, not once
        epoch_loss += batch_loss.item() * len(xb)
    return epoch_loss / n_total
""",
}

_CHAIN_C = {  # chain-b's with temporaries introduced and removed, and other spellings of the same calls
    "train_step": TS + """\
    batch_loss = loss_fn(model(x), y)

    # gradients, the update, then a clean .grad for the next call
    batch_loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    value = batch_loss.item()
    return value
""",
    "train_epoch": TE + """\
    n_total = len(loader.dataset)
    model.train()
    running = 0.0
    for index, batch in enumerate(loader):
        inputs, targets = batch
        inputs = inputs.to(device)
        targets = targets.to(device)
        batch_loss = loss_fn(model(inputs), targets)
        # gradients, the update, then a clean .grad for the next batch
        batch_loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        size = len(inputs)
        running += batch_loss.item() * size
    mean = running / n_total
    return mean
""",
    "accumulate_step": AS + """\
    parts = len(micro_batches)
    running = 0.0
    for inputs, targets in micro_batches:
        criterion_value = loss_fn(model(inputs), targets)
        share = criterion_value / parts
        share.backward()
        running += share.item()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return running
""",
    "overfit_one_batch": OF + """\
    curve = []
    for step_number in range(steps):
        value = train_step(model, x, y, optimizer, loss_fn)
        curve.append(value)
    return curve
""",
    "repair_train_epoch": RE + """\
    n_total = len(loader.dataset)
    model.train()
    epoch_loss = 0.0
    for xb, yb in loader:
        batch_loss = loss_fn(model(xb.to(device)), yb.to(device))
        batch_loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        epoch_loss += batch_loss.item() * len(xb)
    return epoch_loss / n_total
""",
}

_MERGE = {  # honest-10's train_epoch and repair_train_epoch with the batches moved to the device elsewhere
    "train_epoch": TE + """\
    model.train()

    def weighted_losses():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            yield train_step(model, x, y, optimizer, loss_fn) * len(x), len(x)

    total = count = 0
    for weighted, n in weighted_losses():
        total += weighted
        count += n
    return total / count
""",
    "repair_train_epoch": RE + """\
    model.train()

    def batch_losses():
        for inputs, targets in loader:
            optimizer.zero_grad()
            outputs = model(inputs.to(device))
            loss = loss_fn(outputs, targets.to(device))
            loss.backward()
            optimizer.step()
            yield loss.item(), len(inputs)

    running_loss = seen = 0
    for value, n in batch_losses():
        running_loss += value * n
        seen += n
    return running_loss / seen
""",
}

_HALF = {  # honest-13's accumulate_step and repair_train_epoch: the first micro-batch by a flag, a temporary
    "accumulate_step": AS + """\
    k = len(micro_batches)
    running = 0.0
    first = True
    for inputs, labels in micro_batches:
        outputs = model(inputs)
        loss = loss_fn(outputs, labels) / k
        if first:
            model.zero_grad()
            first = False
        loss.backward()
        running += loss.item()
    optimizer.step()
    return running
""",
    "repair_train_epoch": RE + """\
    model.train()
    running_loss = 0.0
    seen = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_size = inputs.size(0)
        running_loss += loss.item() * batch_size
        seen += batch_size
    return running_loss / seen
""",
}

_HALF_OWN = {  # ... and the other three of the copier's own
    "train_step": TS + """\
    model.zero_grad()
    predictions = model(x)
    loss_value = loss_fn(predictions, y)
    loss_value.backward()
    optimizer.step()
    return loss_value.item()
""",
    "train_epoch": TE + """\
    model.train()
    sum_loss = 0.0
    num = 0
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        batch = data.size(0)
        sum_loss += train_step(model, data, target, optimizer, loss_fn) * batch
        num += batch
    return sum_loss / num
""",
    "overfit_one_batch": OF + """\
    out = []
    for i in range(steps):
        out.append(train_step(model, x, y, optimizer, loss_fn))
    return out
""",
}

_ENUMERATE = {  # honest-16's loops over enumerate(...) and zip(...); train_step and overfit_one_batch as taken
    "train_epoch": TE + """\
    model.train()
    loss_sum = 0.0
    example_count = 0
    for batch_number, (inputs, targets) in enumerate(loader, start=1):
        inputs = inputs.to(device)
        targets = targets.to(device)
        batch_size = inputs.shape[0]
        loss_sum += batch_size * train_step(model, inputs, targets, optimizer, loss_fn)
        example_count += batch_size
    return loss_sum / example_count
""",
    "accumulate_step": AS + """\
    sizes = [inputs.shape[0] for inputs, _ in micro_batches]
    total_examples = sum(sizes)
    optimizer.zero_grad(set_to_none=True)
    mean_loss = 0.0
    for size, (inputs, targets) in zip(sizes, micro_batches):
        share = size / total_examples
        batch_loss = loss_fn(model(inputs), targets) * share
        batch_loss.backward()
        mean_loss += batch_loss.item()
    optimizer.step()
    return mean_loss
""",
    "repair_train_epoch": RE + """\
    model.train()
    loss_sum = 0.0
    example_count = 0
    for batch_index, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        batch_size = inputs.shape[0]
        loss_sum += loss.item() * batch_size
        example_count += batch_size
    return loss_sum / example_count
""",
}

_ITER = {  # honest-01's for loops as iter() and next(); train_step and overfit_one_batch as taken
    "train_epoch": TE + """\
    # put the model in training mode (dropout etc. on)
    model.train()
    total_loss = 0.0
    total_examples = 0
    batches = iter(loader)
    batch = next(batches, None)
    while batch is not None:
        batch_x, batch_y = batch
        # move the batch to the same device as the model
        batch_x = batch_x.to(device)
        batch_y = batch_y.to(device)
        # one training step on this batch
        batch_loss = train_step(model, batch_x, batch_y, optimizer, loss_fn)
        # the loss is a mean over the batch, so multiply by the batch size
        batch_size = batch_x.shape[0]
        total_loss = total_loss + batch_loss * batch_size
        total_examples = total_examples + batch_size
        batch = next(batches, None)
    # average loss per example
    average_loss = total_loss / total_examples
    return average_loss
""",
    "accumulate_step": AS + """\
    # clear the gradients once, before all the micro-batches
    optimizer.zero_grad()
    number_of_batches = len(micro_batches)
    all_losses = []
    remaining = iter(micro_batches)
    for _ in range(number_of_batches):
        batch_x, batch_y = next(remaining)
        predictions = model(batch_x)
        loss = loss_fn(predictions, batch_y)
        # divide by the number of micro-batches so the gradients add up to the mean
        scaled_loss = loss / number_of_batches
        scaled_loss.backward()
        # remember the loss (as a number, not a tensor)
        all_losses.append(loss.item())
    # only one update, after all the micro-batches
    optimizer.step()
    # the mean of the losses
    mean_loss = sum(all_losses) / number_of_batches
    return mean_loss
""",
    "repair_train_epoch": RE + """\
    # FIX 1: the model has to be in training mode (the validation left it in eval mode)
    model.train()
    running_loss = 0.0
    # FIX 3: count the examples, the last batch can be smaller
    number_of_examples = 0
    it = iter(loader)
    while True:
        batch = next(it, None)
        if batch is None:
            break
        inputs, targets = batch
        inputs, targets = inputs.to(device), targets.to(device)
        # FIX 2: zero_grad has to be inside the loop, otherwise the gradients add up
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.shape[0]
        number_of_examples += inputs.shape[0]
    return running_loss / number_of_examples
""",
}

_LISTSUM = {  # honest-03's running totals as lists added up with sum(); train_step and overfit_one_batch as taken
    "train_epoch": TE + """\
    if len(loader) == 0:
        raise ValueError("the loader yields no batches")
    model.train()
    weighted, counts = [], []
    for batch in loader:
        if len(batch) != 2:
            raise ValueError(f"expected (x, y) batches, got {len(batch)} items")
        x, y = batch
        x, y = x.to(device), y.to(device)
        weighted.append(train_step(model, x, y, optimizer, loss_fn) * x.shape[0])
        counts.append(x.shape[0])
    count = sum(counts)
    if count == 0:
        raise ValueError("the loader yielded no examples")
    return sum(weighted) / count
""",
    "accumulate_step": """\
import math


""" + AS + """\
    if not micro_batches:
        raise ValueError("accumulate_step needs at least one micro-batch")
    sizes = {len(x) for x, _ in micro_batches}
    if len(sizes) != 1:
        raise ValueError(f"micro-batches must be of equal size, got sizes {sorted(sizes)}")
    k = len(micro_batches)
    optimizer.zero_grad(set_to_none=True)
    losses = []
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / k).backward()
        losses.append(loss.item())
    optimizer.step()
    mean = sum(losses) / k
    assert math.isfinite(mean), "the mean loss is not finite"
    return mean
""",
    "repair_train_epoch": RE + """\
    if len(loader) == 0:
        raise ValueError("the loader yields no batches")
    model.train()  # validation may have left the model in eval mode
    batch_totals = []
    batch_sizes = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()  # every batch, not once per epoch
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        batch_totals.append(loss.item() * inputs.size(0))  # weight by the batch's size
        batch_sizes.append(inputs.size(0))
    examples = sum(batch_sizes)
    if examples == 0:
        raise ValueError("the loader yielded no examples")
    return sum(batch_totals) / examples
""",
}

_TENSORSUM = {  # honest-07's float totals as float64 tensors summed by torch; train_step and overfit as taken
    "train_epoch": TE + """\
    model.train()
    batches = iter(loader)
    weighted = []
    count = 0
    while True:
        try:
            x, y = next(batches)
        except StopIteration:
            break
        x = x.to(device)
        y = y.to(device)
        weighted.append(train_step(model, x, y, optimizer, loss_fn) * len(x))
        count += len(x)
    return torch.tensor(weighted, dtype=torch.float64).sum().item() / count
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    i = 0
    values = []
    while i < k:
        x, y = micro_batches[i]
        loss = loss_fn(model(x), y) / k
        loss.backward()
        values.append(loss.item())
        i += 1
    optimizer.step()
    return torch.tensor(values, dtype=torch.float64).sum().item()
""",
    "repair_train_epoch": RE + """\
    model.train()
    weighted = []
    seen = 0
    it = iter(loader)
    while True:
        try:
            inputs, targets = next(it)
        except StopIteration:
            break
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        weighted.append(loss.item() * len(inputs))
        seen += len(inputs)
    return torch.tensor(weighted, dtype=torch.float64).sum().item() / seen
""",
}

_FORELSE = {  # honest-12's loops with an else clause holding what followed them; train_step as taken
    "train_epoch": TE + """\
    size = len(loader.dataset)
    model.train()
    epoch_loss = 0.0
    for batch, (X, y) in enumerate(loader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        epoch_loss += loss.item() * len(X)
    else:
        return epoch_loss / size
""",
    "accumulate_step": AS + """\
    n = len(micro_batches)
    total = 0.0
    for X, y in micro_batches:
        pred = model(X)
        loss = loss_fn(pred, y) / n
        loss.backward()
        total += loss.item()
    else:
        optimizer.step()
        optimizer.zero_grad()
    return total
""",
    "overfit_one_batch": OF + """\
    losses = []
    for t in range(steps):
        losses.append(train_step(model, x, y, optimizer, loss_fn))
    else:
        return losses
""",
    "repair_train_epoch": RE + """\
    size = len(loader.dataset)
    model.train()
    running_loss = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        running_loss += loss.item() * len(inputs)
    else:
        return running_loss / size
""",
}

_CALLABLE = {  # honest-04's calls made through __call__, bound methods and functools.partial
    "train_step": TS + """\
    clear, update = optimizer.zero_grad, optimizer.step
    clear()
    loss = loss_fn.__call__(model.__call__(x), y)
    loss.backward()
    update()
    return loss.detach().item()
""",
    "train_epoch": """\
import functools


""" + TE + """\
    model.train()
    step = functools.partial(train_step, model, optimizer=optimizer, loss_fn=loss_fn)
    on_device = ((x.to(device), y.to(device)) for x, y in loader)
    results = [(step(x, y), len(x)) for x, y in on_device]
    return sum(loss * n for loss, n in results) / sum(n for _, n in results)
""",
    "accumulate_step": AS + """\
    optimizer.zero_grad()
    k = len(micro_batches)
    forward, criterion = model.__call__, loss_fn.__call__

    def contribute(batch):
        x, y = batch
        loss = criterion(forward(x), y) / k
        loss.backward()
        return loss.item()

    total = sum(map(contribute, micro_batches))
    optimizer.step()
    return total
""",
    "overfit_one_batch": """\
import functools


""" + OF + """\
    once = functools.partial(train_step, model, x, y, optimizer, loss_fn)
    return list(map(lambda _: once(), range(steps)))
""",
    "repair_train_epoch": RE + """\
    model.train()
    clear, update = optimizer.zero_grad, optimizer.step

    def one_batch(inputs, targets):
        inputs, targets = inputs.to(device), targets.to(device)
        clear()
        loss = loss_fn.__call__(model.__call__(inputs), targets)
        loss.backward()
        update()
        return loss.item() * len(inputs), len(inputs)

    totals, sizes = zip(*(one_batch(inputs, targets) for inputs, targets in loader))
    return sum(totals) / sum(sizes)
""",
}

COPIES = [
    Copy("copier-rename", "every local renamed, comments written in", _taken("honest-03"), _RENAME),
    Copy("copier-reorder", "independent statements and helper definitions reordered", _taken("honest-06"), _REORDER),
    Copy("copier-helpers", "code moved into helper functions", _taken("honest-01"), _HELPERS),
    Copy("copier-inline", "helpers inlined", _taken("honest-06"), _INLINE),
    Copy("copier-class", "wrapped in a class, closures and an epoch object", _taken("honest-02"), _CLASS),
    Copy("copier-functional", "loops folded into comprehensions, map and filter", _taken("honest-14"), _FUNCTIONAL),
    Copy("copier-loops", "generator expressions, map and zip(*...) unrolled into loops", _taken("honest-04"),
         _LOOPS),
    Copy("copier-while", "while loops as for loops", _taken("honest-07"), _WHILE),
    Copy("copier-negated", "conditions negated with branches swapped", _taken("honest-17"), _NEGATED),
    Copy("copier-early", "if/else turned into early returns", _taken("honest-09"), _EARLY),
    Copy("copier-spelling", "equivalent PyTorch and Python spellings", _taken("honest-13"), _SPELLING),
    Copy("copier-deadcode", "dead code, a debug flag and prints, asserts that always hold", _taken("honest-05"),
         _DEADCODE),
    Copy("copier-annotated", "type hints, docstrings and comments added", _taken("honest-02"), _ANNOTATED),
    Copy("copier-stripped", "type hints, docstrings, comments and imports removed", _taken("honest-08"), _STRIPPED),
    Copy("copier-args", "positional arguments renamed", _taken("honest-10"), _ARGS),
    Copy("copier-constants", "literals hoisted into module-level constants", _taken("honest-11"), _CONSTANTS),
    Copy("copier-try", "try/except wrappers raising the same exception type", _taken("honest-15"), _TRY),
    Copy("copier-modern", "newer syntax: assignment expressions, match, star unpacking", _taken("honest-16"),
         _MODERN),
    Copy("copier-generator", "loops turned into generator functions", _taken("honest-14"), _GENERATOR),
    Copy("copier-imports", "NumPy's names imported under other spellings", _taken("honest-09"), _IMPORTS),
    Copy("copier-enumerate", "loops over enumerate(...) and zip(...)", _taken("honest-16"), _ENUMERATE),
    Copy("copier-iter", "for loops as iter() and next()", _taken("honest-01"), _ITER),
    Copy("copier-listsum", "running totals as lists added up with sum()", _taken("honest-03"), _LISTSUM),
    Copy("copier-tensorsum", "float totals as float64 tensors summed by torch", _taken("honest-07"), _TENSORSUM),
    Copy("copier-forelse", "loops given an else clause holding what followed them", _taken("honest-12"), _FORELSE),
    Copy("copier-callable", "calls through __call__, bound methods and functools.partial", _taken("honest-04"),
         _CALLABLE),
    Copy("chain-b", "renamed throughout, comments added (first link of a chain)", _taken("honest-12"), _CHAIN_B),
    Copy("chain-c", "temporaries introduced and removed, other spellings of the same calls (second link of a chain)",
         _taken("chain-b"), _CHAIN_C),
    Copy("copier-merge", "two classmates merged, the batches moved to the device elsewhere",
         {"train_step": "honest-10", "train_epoch": "honest-10", "accumulate_step": "honest-04",
          "overfit_one_batch": "honest-04", "repair_train_epoch": "honest-10"}, _MERGE),
    Copy("copier-half", "two cells copied, a flag and a temporary",
         _taken("honest-13", ("accumulate_step", "repair_train_epoch")), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 04's second set (forty-nine students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
