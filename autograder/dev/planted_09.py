"""A planted cohort of module 09 kept out of all tuning: ``similarity`` is measured on it, never adjusted to it.

Written without reading how ``similarity`` normalises or scores code, as an instructor who suspects copying
would plant it: what students do to hide a copy.  Fourteen honest students answer the six graded cells in their
own styles (a ``Dataset`` holding tensors, NumPy arrays, a list of pairs or an inner ``TensorDataset``, converting
once or per item, with ``reshape``, ``view`` or ``unsqueeze``; normalisers per pixel or global, sample or
population std, floors by ``clamp``, ``where``, masks or an epsilon, as a nested class, a module-level one, a
class fitting itself or an ``nn.Sequential`` around one; CNNs of their own widths and depths, pooled or strided,
``nn.Sequential``, attributes with ``F``, a ``ModuleList`` built in a loop, BatchNorm, Dropout, GELU, the
normaliser inside the ``Sequential``; epochs that weight ``loss.item()`` by the batch, sum a ``reduction="sum"``
loss, keep a running mean, a float64 tensor or a list of pairs; predictions under ``no_grad`` or
``inference_mode``, the mode handed back with ``train(was_training)``, ``try``/``finally`` or an early return;
ledgers of closures, methods, ``functools.partial``, an ``ExitStack`` or lambdas); they converge, as students do,
on the usual shapes; ``repair_run`` is every student's starter code (too slow to run for each answer, and a
repair starts from the same code anyway); two write the course's answer (one hands in the reference word for
word, one in their own names).  Thirteen copy, most cells disguised, one or more ways each:

- ``copier-renamed`` (honest-01, all six): locals, attributes (``self.normalizer`` as ``self.preprocess``) and
  the normaliser's class renamed, docstrings and comments rewritten.
- ``copier-sequential`` (honest-02, all six): the CNN's explicit forward with ``F.relu``/``F.max_pool2d`` and
  ``view`` written as one ``nn.Sequential`` of ``nn.ReLU``/``nn.MaxPool2d``/``nn.Flatten`` modules; the batch
  indexed (``batch[0]``) turned into tuple unpacking, running sums as ``+=``; the normaliser's nested class
  hoisted to module level and fed its statistics; ``inference_mode`` as ``no_grad``; the ledger's ``ledger =
  self`` alias dropped, locals renamed.
- ``copier-looped`` (honest-07, all six): the CNN's seven layers written out as attributes turned into a
  ``ModuleList`` built in a loop over a table of layer kinds; the ``while True``/``next``/``StopIteration`` loop
  as ``for batch_number, batch in enumerate(loader)`` with the index unused; a beginner's temporaries inlined
  everywhere; the mode restored in a ``try``/``finally`` with a return inside; the ledger's loops as
  comprehensions.
- ``copier-helpers`` (honest-05, all six): the epoch split into a step function, a device helper and a
  ``RunningMean`` accumulator class; the statistics in a module-level helper and the normaliser's class hoisted;
  the input conversion of the prediction a helper; the CNN's ``nn.Sequential`` as an explicit forward with ``F``;
  every comment stripped.
- ``copier-guards`` (honest-13, all six): branches rewritten: ``if``/``else`` swapped with negated conditions, a
  clipping flag inlined as ``if not (max_grad_norm is None)``, ``if scheduler is None: pass else:`` as one
  ``if``, an early return folded into a single exit that switches the mode only when it was training,
  ``continue`` guards as nested ``if`` statements, ``isinstance`` branches as conditional expressions.
- ``copier-hoisted`` (honest-10, five cells; the Dataset left as taken): constants hoisted to module level
  (channel widths, kernel, pooling, the std floor and its shape, the norm type, the accumulator's dtype, the raw
  shape, the class dimension, the ledger's words), docstrings rewritten.
- ``copier-debug`` (honest-11, five cells; the ledger left as taken): dead code (unused flags, counters and
  variables, a branch that never runs, a commented-out print) and debugging prints.
- ``copier-reorder`` (honest-12, all six): independent statements reordered (the layers' attributes with the
  parameterless ones moved, the statistics after the class, the sums and the scheduler step, the device moves),
  ``zero_grad`` moved after the forward pass, the methods of the Dataset and of the ledger reordered.
- ``copier-spellings`` (honest-04, all six): equivalent spellings (``np.array(...).astype`` and ``dtype=``,
  ``map`` and ``zip`` in place of a comprehension, ``torch.div``/``torch.sub``, ``super(Cls, self)``, keyword
  arguments spelled out, ``model.__call__(x)``, ``train(mode=True)``/``train(False)``, ``list()``/``dict()``,
  ``.equal``, ``torch.clone``, a list indexed by the mode), the unused ``enumerate`` index dropped.
- ``chain-b`` (honest-06, all six) renames lightly, expands a walrus and a one-line tuple update and a list
  comprehension used for its effects; ``chain-c`` (chain-b, four cells) reworks what it got: the convolutions
  built in a loop written out in a ``ModuleList`` with ``nn.ReLU``/``nn.MaxPool2d`` modules in place of
  functions, a device helper, ``F.cross_entropy`` as an ``nn.CrossEntropyLoss``, a one-line prediction
  expanded, the ledger's lambdas as named functions; writes its Dataset and normaliser alone.
- ``copier-merge`` takes the Dataset, the normaliser and the CNN from honest-08 and the epoch, the prediction
  and the ledger from honest-09: defensive checks dropped, a docstring removed, ``functools.partial`` as a
  closure, ``inference_mode`` as ``no_grad``, two lines joined.
- ``copier-half`` takes only the CNN and the epoch from honest-03 (the strided ``nn.Sequential`` as an explicit
  forward with ``torch.relu``, ``nn.Identity`` kept; clipping and scheduling moved into helpers with guard
  clauses) and writes the other four alone.

Every answer handed in does what the contract asks (:mod:`.planted_run` runs each beside the course's where the
contract fixes the result, each copy beside its source, and the module's checks give every student full marks
on the six cells).  The truth follows from where each answer came from (:func:`.planted.assemble`); ``python -m
autograder.dev.planted_09`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "09-debug-a-real-run"

DS = 'class DigitsDataset(Dataset):\n    """Raw digit images as float32 [1, 8, 8] with int64 class labels."""\n\n'
FN = "def fit_normalizer(train_images):\n"
FN_DOC = FN + '    """A module standardising raw images with the training images\' statistics, held as buffers."""\n'
CNN = ('class DigitCNN(nn.Module):\n    """Conv → ReLU → pool → conv → ReLU → global pool → linear, after an optional '
       'normaliser."""\n\n')
TE = "def train_epoch_ce(model, loader, optimizer, device, scheduler=None, max_grad_norm=None):\n"
TE_DOC = TE + '    """One epoch of multiclass training; returns the mean per-example loss."""\n'
PD = "def predict_digits(model, images):\n"
PD_DOC = PD + '    """Class labels for raw images, from the model in eval mode."""\n'
SL = ('class StepLedger:\n    """One record per optimizer step: the forwards\' modes, each parameter\'s .grad as backward '
      'reached it,\n    and which parameters step() changed. Public hooks only; every hook comes off when the block '
      'ends."""\n\n')

_ALL = ("DigitsDataset", "fit_normalizer", "DigitCNN", "train_epoch_ce", "predict_digits", "StepLedger")

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # tensors stored once, view; a Standardize module at module level; Sequential CNN
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.x = torch.as_tensor(images).float().view(-1, 1, 8, 8)
        self.y = torch.as_tensor(labels).long()

    def __len__(self):
        return self.y.shape[0]

    def __getitem__(self, i):
        return self.x[i], self.y[i]
""",
        "fit_normalizer": """\
class Standardize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)

    def forward(self, x):
        return (x - self.mean) / self.std


""" + FN_DOC + """\
    x = torch.as_tensor(train_images).float().view(-1, 1, 8, 8)
    mean = x.mean(dim=0, keepdim=True)
    std = x.std(dim=0, keepdim=True)
    std[std == 0] = 1.0
    return Standardize(mean, std)
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.layers = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(16 * 4 * 4, num_classes),
        )

    def forward(self, x):
        return self.layers(self.normalizer(x))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    criterion = nn.CrossEntropyLoss()
    running, seen = 0.0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        logits = model(images)
        loss = criterion(logits, labels)
        loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        running += loss.item() * images.size(0)
        seen += images.size(0)
    return running / seen
""",
        "predict_digits": PD_DOC + """\
    device = next(model.parameters()).device
    x = torch.as_tensor(images, dtype=torch.float32).to(device).view(-1, 1, 8, 8)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        preds = model(x).argmax(dim=1)
    model.train(was_training)
    return preds
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.handles = []

    def __enter__(self):
        self.params = dict(self.model.named_parameters())
        self.watched = [n for n, p in self.params.items() if p.requires_grad]
        self._new_record()
        self.handles.append(self.model.register_forward_pre_hook(self._on_forward))
        for name in self.watched:
            self.handles.append(self.params[name].register_hook(self._grad_hook(name)))
        self.handles.append(self.optimizer.register_step_pre_hook(self._before_step))
        self.handles.append(self.optimizer.register_step_post_hook(self._after_step))
        return self

    def __exit__(self, *exc_info):
        for h in self.handles:
            h.remove()
        self.handles = []

    def _new_record(self):
        self.current = {"modes": [], "grads": {n: [] for n in self.watched}}

    def _on_forward(self, module, inputs):
        self.current["modes"].append("train" if module.training else "eval")

    def _grad_hook(self, name):
        param = self.params[name]

        def hook(grad):
            if param.grad is None:
                self.current["grads"][name].append("none")
            elif torch.all(param.grad == 0):
                self.current["grads"][name].append("zero")
            else:
                self.current["grads"][name].append("nonzero")

        return hook

    def _before_step(self, optimizer, args, kwargs):
        self.snapshot = {n: p.detach().clone() for n, p in self.params.items()}

    def _after_step(self, optimizer, args, kwargs):
        changed = [n for n, p in self.params.items() if not torch.equal(p.detach(), self.snapshot[n])]
        self.current["changed"] = sorted(changed)
        self.steps.append(self.current)
        self._new_record()
""",
    },
    "honest-02": {  # numpy kept, tensors made per item; global statistics; explicit forward with F
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.images = np.asarray(images, dtype=np.float32).reshape(-1, 64)
        self.labels = np.asarray(labels).astype(np.int64)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        x = torch.from_numpy(self.images[i].reshape(1, 8, 8).copy())
        y = torch.tensor(self.labels[i], dtype=torch.long)
        return x, y
""",
        "fit_normalizer": FN_DOC + """\
    data = torch.as_tensor(np.asarray(train_images), dtype=torch.float32)
    mu = data.mean()
    sigma = data.std()

    class GlobalNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mu", mu.clone())
            self.register_buffer("sigma", sigma.clone())

        def forward(self, x):
            return (x - self.mu) / self.sigma

    return GlobalNorm()
""",
        "DigitCNN": "import torch.nn.functional as F\n\n\n" + CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 2 * 2, num_classes)

    def forward(self, x):
        if self.normalizer is not None:
            x = self.normalizer(x)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        return self.fc(x)
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    total_loss = 0.0
    total_examples = 0
    for batch in loader:
        inputs = batch[0].to(device)
        targets = batch[1].to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        batch_size = targets.shape[0]
        total_loss = total_loss + loss.item() * batch_size
        total_examples = total_examples + batch_size
    mean_loss = total_loss / total_examples
    return mean_loss
""",
        "predict_digits": PD_DOC + """\
    if isinstance(images, np.ndarray):
        images = torch.from_numpy(images)
    param = next(model.parameters())
    inputs = images.to(param.device, torch.float32).reshape(len(images), 1, 8, 8)
    mode = model.training
    model.eval()
    with torch.inference_mode():
        logits = model(inputs)
    model.train(mode)
    return logits.argmax(1)
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.steps = []
        self._hooks = []

    def __enter__(self):
        named = list(self.model.named_parameters())
        tracked = [(name, p) for name, p in named if p.requires_grad]
        ledger = self

        def fresh():
            return {"modes": [], "grads": {name: [] for name, _ in tracked}}

        ledger._pending = fresh()

        def on_forward(module, args):
            ledger._pending["modes"].append("train" if module.training else "eval")

        def make_grad_hook(name, p):
            def hook(grad):
                g = p.grad
                if g is None:
                    state = "none"
                elif g.count_nonzero().item() == 0:
                    state = "zero"
                else:
                    state = "nonzero"
                ledger._pending["grads"][name].append(state)
            return hook

        def pre_step(opt, args, kwargs):
            ledger._old = [p.detach().clone() for _, p in named]

        def post_step(opt, args, kwargs):
            moved = sorted(name for (name, p), old in zip(named, ledger._old) if not torch.equal(p.detach(), old))
            record = ledger._pending
            record["changed"] = moved
            ledger.steps.append(record)
            ledger._pending = fresh()

        self._hooks.append(self.model.register_forward_pre_hook(on_forward))
        for name, p in tracked:
            self._hooks.append(p.register_hook(make_grad_hook(name, p)))
        self._hooks.append(self.optimizer.register_step_pre_hook(pre_step))
        self._hooks.append(self.optimizer.register_step_post_hook(post_step))
        return self

    def __exit__(self, *exc_info):
        while self._hooks:
            self._hooks.pop().remove()
        return False
""",
    },
    "honest-03": {  # unsqueeze; per-pixel population std with an epsilon; strided convolutions
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        imgs = torch.as_tensor(images, dtype=torch.float32)
        self.images = imgs.reshape(-1, 8, 8).unsqueeze(1)
        self.labels = torch.as_tensor(labels, dtype=torch.int64)
        assert len(self.images) == len(self.labels), "one label per image"

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]
""",
        "fit_normalizer": FN_DOC + """\
    imgs = torch.as_tensor(train_images, dtype=torch.float32).reshape(-1, 8, 8).unsqueeze(1)
    mean = imgs.mean(0, keepdim=True)
    std = imgs.std(0, unbiased=False, keepdim=True) + 1e-6

    class PixelNorm(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.register_buffer("mean", mean)
            self.register_buffer("std", std)

        def forward(self, x):
            return (x - self.mean) / self.std

    return PixelNorm(mean, std)
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer or nn.Identity()
        self.body = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1),   # 8x8 -> 4x4
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),  # 4x4 -> 2x2
            nn.ReLU(),
        )
        self.head = nn.Linear(32 * 2 * 2, num_classes)

    def forward(self, x):
        x = self.normalizer(x)
        x = self.body(x)
        return self.head(x.flatten(1))
""",
        "train_epoch_ce": "import torch.nn.functional as F\n\n\n" + TE_DOC + """\
    model.train()
    ce = nn.CrossEntropyLoss()
    sum_loss = 0.0
    n = 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)
        loss = ce(logits, y)
        loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        with torch.no_grad():
            sum_loss += F.cross_entropy(logits, y, reduction="sum").item()
        n += y.numel()
    return sum_loss / n
""",
        "predict_digits": PD_DOC + """\
    x = torch.as_tensor(images, dtype=torch.float32)
    x = x.reshape(-1, 8, 8).unsqueeze(1).to(next(model.parameters()).device)
    was_training = model.training
    try:
        model.eval()
        with torch.no_grad():
            return model(x).argmax(dim=-1)
    finally:
        model.train(was_training)
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._stack = None

    def __enter__(self):
        from contextlib import ExitStack

        self._stack = ExitStack()
        params = dict(self.model.named_parameters())
        names = [n for n, p in params.items() if p.requires_grad]
        state = {"modes": [], "grads": {n: [] for n in names}}
        before = {}

        def forward_pre(module, args):
            state["modes"].append("train" if module.training else "eval")

        def grad_hook(grad, name):
            held = params[name].grad
            if held is None:
                state["grads"][name].append("none")
            else:
                state["grads"][name].append("nonzero" if held.abs().sum().item() > 0 else "zero")

        def step_pre(opt, args, kwargs):
            before.clear()
            before.update({n: p.detach().clone() for n, p in params.items()})

        def step_post(opt, args, kwargs):
            changed = sorted(n for n, p in params.items() if not torch.equal(before[n], p.detach()))
            self.steps.append({"modes": list(state["modes"]), "grads": {n: list(v) for n, v in state["grads"].items()},
                               "changed": changed})
            state["modes"].clear()
            for v in state["grads"].values():
                v.clear()

        self._stack.callback(self.model.register_forward_pre_hook(forward_pre).remove)
        for n in names:
            self._stack.callback(params[n].register_hook(lambda g, n=n: grad_hook(g, n)).remove)
        self._stack.callback(self.optimizer.register_step_pre_hook(step_pre).remove)
        self._stack.callback(self.optimizer.register_step_post_hook(step_post).remove)
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stack.close()
        return None
""",
    },
    "honest-04": {  # a list of pairs; global statistics as a Sequential around a custom module; BatchNorm CNN
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        images = np.asarray(images, dtype=np.float32).reshape(-1, 1, 8, 8)
        labels = np.asarray(labels, dtype=np.int64)
        self.samples = [(torch.tensor(img), torch.tensor(lab)) for img, lab in zip(images, labels)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]
""",
        "fit_normalizer": """\
class Scale(nn.Module):
    \"\"\"Subtract a mean and divide by a std that travel with the model.\"\"\"

    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.as_tensor(std, dtype=torch.float32))

    def forward(self, x):
        return (x - self.mean) / self.std


""" + FN_DOC + """\
    pixels = np.asarray(train_images, dtype=np.float32)
    mean = float(pixels.mean())
    std = max(float(pixels.std()), 1e-3)
    return nn.Sequential(Scale(mean, std))
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        if normalizer is None:
            normalizer = nn.Identity()
        self.normalizer = normalizer
        self.conv = nn.Sequential(
            nn.Conv2d(1, 12, 3, padding=1),
            nn.BatchNorm2d(12),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(12 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, num_classes))

    def forward(self, x):
        return self.classifier(self.conv(self.normalizer(x)))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    criterion = nn.CrossEntropyLoss()
    losses = []
    counts = []
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
        counts.append(len(y))
    return sum(l * c for l, c in zip(losses, counts)) / sum(counts)
""",
        "predict_digits": PD_DOC + """\
    x = torch.tensor(np.asarray(images), dtype=torch.float32).view(-1, 1, 8, 8)
    x = x.to(next(model.parameters()).device)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = model(x)
    if was_training:
        model.train()
    return torch.argmax(out, dim=1)
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.handles = []
        self.modes = []
        self.grads = {}
        self.before = None

    def __enter__(self):
        self.names = [n for n, p in self.model.named_parameters() if p.requires_grad]
        self.grads = {n: [] for n in self.names}
        self.handles.append(self.model.register_forward_pre_hook(self.forward_hook))
        for n, p in self.model.named_parameters():
            if n in self.names:
                self.handles.append(p.register_hook(self.make_hook(n, p)))
        self.handles.append(self.optimizer.register_step_pre_hook(self.pre))
        self.handles.append(self.optimizer.register_step_post_hook(self.post))
        return self

    def forward_hook(self, module, args):
        if module.training:
            self.modes.append("train")
        else:
            self.modes.append("eval")

    def make_hook(self, n, p):
        def hook(grad):
            if p.grad is None:
                self.grads[n].append("none")
            elif p.grad.any():
                self.grads[n].append("nonzero")
            else:
                self.grads[n].append("zero")
        return hook

    def pre(self, opt, args, kwargs):
        self.before = {n: p.clone().detach() for n, p in self.model.named_parameters()}

    def post(self, opt, args, kwargs):
        changed = []
        for n, p in self.model.named_parameters():
            if not torch.equal(self.before[n], p):
                changed.append(n)
        self.steps.append({"modes": self.modes, "grads": self.grads, "changed": sorted(changed)})
        self.modes = []
        self.grads = {n: [] for n in self.names}

    def __exit__(self, *args):
        for h in self.handles:
            h.remove()
        self.handles.clear()
""",
    },
    "honest-05": {  # commented throughout, the course's shape reached alone; a wider CNN with global pooling
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        # accept numpy or torch, [N, 64] or [N, 8, 8]
        self.images = torch.tensor(np.array(images), dtype=torch.float32).reshape(-1, 1, 8, 8)
        # class indices, as CrossEntropyLoss wants them
        self.labels = torch.tensor(np.array(labels), dtype=torch.long)

    def __len__(self):
        # one example per label
        return len(self.labels)

    def __getitem__(self, i):
        # raw pixels: the model normalises
        return self.images[i], self.labels[i]
""",
        "fit_normalizer": FN_DOC + """\
    # statistics from the training images only
    x = torch.tensor(np.array(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)
    mean = x.mean(dim=0, keepdim=True)  # one mean per pixel
    std = x.std(dim=0, keepdim=True)  # one std per pixel
    std = torch.where(std > 0, std, torch.ones_like(std))  # the border never varies

    class Normalise(nn.Module):
        def __init__(self):
            super().__init__()
            # buffers: saved in state_dict, moved by .to(), not trained
            self.register_buffer("mean", mean)
            self.register_buffer("std", std)

        def forward(self, x):
            return (x - self.mean) / self.std

    return Normalise()
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        # the preprocessing lives inside the model
        self.normalizer = nn.Identity() if normalizer is None else normalizer
        # two conv blocks
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        # logits, no softmax
        self.out = nn.Linear(64, num_classes)

    def forward(self, x):
        # normalise first
        x = self.normalizer(x)
        return self.out(self.features(x))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()  # an evaluation may have left it in eval mode
    loss_fn = nn.CrossEntropyLoss()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)  # same device as the model
        optimizer.zero_grad()  # forget the last batch
        loss = loss_fn(model(x), y)  # logits [B, C] vs labels [B]
        loss.backward()
        if max_grad_norm is not None:  # clip between backward and step
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:  # per optimizer step
            scheduler.step()
        total += loss.item() * len(x)  # weight by the batch size
        count += len(x)
    return total / count
""",
        "predict_digits": PD_DOC + """\
    # numpy or tensor -> float32 [N, 1, 8, 8] on the model's device
    x = images if torch.is_tensor(images) else torch.from_numpy(np.asarray(images))
    x = x.float().reshape(-1, 1, 8, 8).to(next(model.parameters()).device)
    was_training = model.training  # remember the caller's mode
    model.eval()  # dropout off
    with torch.no_grad():  # no graph
        labels = model(x).argmax(dim=1)
    model.train(was_training)  # hand it back
    return labels
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        # nothing attached yet: hooks go on in __enter__
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._handles = []

    def __enter__(self):
        params = dict(self.model.named_parameters())
        # only the parameters that can receive a gradient now
        watched = [name for name, p in params.items() if p.requires_grad]

        def start():
            self._rec = {"modes": [], "grads": {name: [] for name in watched}}

        def on_forward(module, args):
            # the mode as the forward starts
            self._rec["modes"].append("train" if module.training else "eval")

        def grad_state(name, p):
            def hook(grad):
                # p.grad is still the old value here
                if p.grad is None:
                    self._rec["grads"][name].append("none")
                elif torch.count_nonzero(p.grad) == 0:
                    self._rec["grads"][name].append("zero")
                else:
                    self._rec["grads"][name].append("nonzero")
            return hook

        def on_step_start(opt, args, kwargs):
            # copy the weights before the update
            self._copy = {name: p.detach().clone() for name, p in params.items()}

        def on_step_end(opt, args, kwargs):
            # which weights the update moved
            moved = sorted(n for n, p in params.items() if not torch.equal(p.detach(), self._copy[n]))
            self._rec["changed"] = moved
            self.steps.append(self._rec)
            start()

        start()
        self._handles.append(self.model.register_forward_pre_hook(on_forward))
        for name in watched:
            self._handles.append(params[name].register_hook(grad_state(name, params[name])))
        self._handles.append(self.optimizer.register_step_pre_hook(on_step_start))
        self._handles.append(self.optimizer.register_step_post_hook(on_step_end))
        return self

    def __exit__(self, *exc_info):
        # remove every hook, even after an error; None lets the error go on
        for handle in self._handles:
            handle.remove()
        self._handles = []
""",
    },
    "honest-06": {  # terse: one-liners, a lambda-free Sequential; ModuleList built in a loop
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.data = torch.as_tensor(images, dtype=torch.float32).reshape(len(labels), 1, 8, 8)
        self.targets = torch.as_tensor(labels).to(torch.int64)

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        return self.data[i], self.targets[i]
""",
        "fit_normalizer": FN_DOC + """\
    x = torch.as_tensor(train_images, dtype=torch.float32).reshape(-1, 1, 8, 8)

    class N(nn.Module):
        def __init__(s):
            super().__init__()
            s.register_buffer("mean", x.mean(0, keepdim=True))
            s.register_buffer("std", x.std(0, keepdim=True).clamp(min=1.0))

        def forward(s, t):
            return (t - s.mean) / s.std

    return N()
""",
        "DigitCNN": "import torch.nn.functional as F\n\n\n" + CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.convs = nn.ModuleList()
        channels = [1, 8, 16]
        for c_in, c_out in zip(channels, channels[1:]):
            self.convs.append(nn.Conv2d(c_in, c_out, 3, padding=1))
        self.fc = nn.Linear(16 * 2 * 2, num_classes)

    def forward(self, x):
        x = self.normalizer(x)
        for conv in self.convs:
            x = F.max_pool2d(torch.relu(conv(x)), 2)
        return self.fc(torch.flatten(x, 1))
""",
        "train_epoch_ce": "import torch.nn.functional as F\n\n\n" + TE_DOC + """\
    model.train()
    total = n = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        (loss := F.cross_entropy(model(x), y)).backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total, n = total + loss.item() * len(y), n + len(y)
    return total / n
""",
        "predict_digits": PD_DOC + """\
    mode = model.training
    model.eval()
    with torch.no_grad():
        out = model(torch.as_tensor(images, dtype=torch.float32, device=next(model.parameters()).device).reshape(-1, 1, 8, 8)).argmax(1)
    model.train(mode)
    return out
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model, self.optimizer, self.steps, self.hooks = model, optimizer, [], []

    def __enter__(self):
        ps = dict(self.model.named_parameters())
        keep = [n for n, p in ps.items() if p.requires_grad]
        new = lambda: {"modes": [], "grads": {n: [] for n in keep}}
        self.rec = new()
        state = lambda g: "none" if g is None else ("nonzero" if g.any() else "zero")

        def grad_hook(n):
            return lambda g: self.rec["grads"][n].append(state(ps[n].grad))

        def pre(o, a, k):
            self.old = {n: p.detach().clone() for n, p in ps.items()}

        def post(o, a, k):
            self.steps.append({**self.rec, "changed": sorted(n for n in ps if not torch.equal(ps[n].detach(), self.old[n]))})
            self.rec = new()

        self.hooks = [self.model.register_forward_pre_hook(
            lambda m, a: self.rec["modes"].append("train" if m.training else "eval"))]
        self.hooks += [ps[n].register_hook(grad_hook(n)) for n in keep]
        self.hooks += [self.optimizer.register_step_pre_hook(pre), self.optimizer.register_step_post_hook(post)]
        return self

    def __exit__(self, *exc):
        [h.remove() for h in self.hooks]
        self.hooks = []
""",
    },
    "honest-07": {  # a beginner's temporaries, indexing the batch, a while loop over the loader
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        images_array = np.array(images, dtype=np.float32)
        images_array = images_array.reshape(-1, 1, 8, 8)
        labels_array = np.array(labels, dtype=np.int64)
        self.images = images_array
        self.labels = labels_array

    def __len__(self):
        number_of_images = self.images.shape[0]
        return number_of_images

    def __getitem__(self, i):
        image = torch.tensor(self.images[i])
        label = torch.tensor(self.labels[i])
        return image, label
""",
        "fit_normalizer": FN_DOC + """\
    train_tensor = torch.tensor(np.array(train_images), dtype=torch.float32)
    train_tensor = train_tensor.reshape(-1, 1, 8, 8)
    pixel_mean = train_tensor.mean(dim=0, keepdim=True)
    pixel_std = train_tensor.std(dim=0, keepdim=True)
    pixel_std = pixel_std.clamp(min=1e-2)

    class MyNormalizer(nn.Module):
        def __init__(self, m, s):
            super().__init__()
            self.register_buffer("mean", m)
            self.register_buffer("std", s)

        def forward(self, x):
            centered = x - self.mean
            scaled = centered / self.std
            return scaled

    normalizer = MyNormalizer(pixel_mean, pixel_std)
    return normalizer
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        if normalizer is not None:
            self.normalizer = normalizer
        else:
            self.normalizer = nn.Identity()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(8 * 4 * 4, 32)
        self.relu2 = nn.ReLU()
        self.fc2 = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.normalizer(x)
        x = self.conv1(x)
        x = self.relu1(x)
        x = self.pool1(x)
        x = self.flatten(x)
        x = self.fc1(x)
        x = self.relu2(x)
        x = self.fc2(x)
        return x
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_function = nn.CrossEntropyLoss()
    epoch_loss = 0.0
    number_seen = 0
    iterator = iter(loader)
    while True:
        try:
            batch = next(iterator)
        except StopIteration:
            break
        images = batch[0]
        labels = batch[1]
        images = images.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        predictions = model(images)
        batch_loss = loss_function(predictions, labels)
        batch_loss.backward()
        if max_grad_norm is not None:
            parameters = model.parameters()
            torch.nn.utils.clip_grad_norm_(parameters, max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        batch_size = images.shape[0]
        epoch_loss = epoch_loss + batch_loss.item() * batch_size
        number_seen = number_seen + batch_size
    average_loss = epoch_loss / number_seen
    return average_loss
""",
        "predict_digits": PD_DOC + """\
    if isinstance(images, torch.Tensor):
        image_tensor = images.clone()
    else:
        image_tensor = torch.tensor(np.array(images))
    image_tensor = image_tensor.float()
    image_tensor = image_tensor.reshape(-1, 1, 8, 8)
    first_parameter = next(model.parameters())
    image_tensor = image_tensor.to(first_parameter.device)
    old_mode = model.training
    model.eval()
    with torch.no_grad():
        logits = model(image_tensor)
        predicted = logits.argmax(dim=1)
    model.train(old_mode)
    return predicted
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.handle_list = []
        self.current_modes = []
        self.current_grads = {}
        self.saved_values = {}

    def __enter__(self):
        self.names_to_watch = []
        for name, parameter in self.model.named_parameters():
            if parameter.requires_grad:
                self.names_to_watch.append(name)
        self.reset_record()
        forward_handle = self.model.register_forward_pre_hook(self.record_mode)
        self.handle_list.append(forward_handle)
        for name, parameter in self.model.named_parameters():
            if name in self.names_to_watch:
                grad_handle = parameter.register_hook(self.make_grad_recorder(name, parameter))
                self.handle_list.append(grad_handle)
        pre_handle = self.optimizer.register_step_pre_hook(self.save_values)
        self.handle_list.append(pre_handle)
        post_handle = self.optimizer.register_step_post_hook(self.finish_step)
        self.handle_list.append(post_handle)
        return self

    def reset_record(self):
        self.current_modes = []
        self.current_grads = {}
        for name in self.names_to_watch:
            self.current_grads[name] = []

    def record_mode(self, module, args):
        if module.training:
            mode = "train"
        else:
            mode = "eval"
        self.current_modes.append(mode)

    def make_grad_recorder(self, name, parameter):
        def recorder(grad):
            old_grad = parameter.grad
            if old_grad is None:
                state = "none"
            elif torch.all(old_grad == 0):
                state = "zero"
            else:
                state = "nonzero"
            self.current_grads[name].append(state)
        return recorder

    def save_values(self, optimizer, args, kwargs):
        self.saved_values = {}
        for name, parameter in self.model.named_parameters():
            self.saved_values[name] = parameter.detach().clone()

    def finish_step(self, optimizer, args, kwargs):
        changed_names = []
        for name, parameter in self.model.named_parameters():
            old_value = self.saved_values[name]
            if not torch.equal(old_value, parameter.detach()):
                changed_names.append(name)
        changed_names.sort()
        record = {"modes": self.current_modes, "grads": self.current_grads, "changed": changed_names}
        self.steps.append(record)
        self.reset_record()

    def __exit__(self, exc_type, exc_value, traceback):
        for handle in self.handle_list:
            handle.remove()
        self.handle_list = []
        return False
""",
    },
    "honest-08": {  # defensive: checks and messages; a Normalizer class taking the images; dropout CNN
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        images = torch.as_tensor(np.asarray(images), dtype=torch.float32)
        labels = torch.as_tensor(np.asarray(labels), dtype=torch.long)
        if images.numel() != 64 * len(labels):
            raise ValueError(f"expected {len(labels)} images of 64 pixels, got shape {tuple(images.shape)}")
        self.images = images.reshape(len(labels), 1, 8, 8).contiguous()
        self.labels = labels.reshape(-1)

    def __len__(self):
        return int(self.labels.shape[0])

    def __getitem__(self, i):
        if not 0 <= i < len(self) and not -len(self) <= i < 0:
            raise IndexError(i)
        return self.images[i], self.labels[i]
""",
        "fit_normalizer": """\
class FittedNormalizer(nn.Module):
    \"\"\"Standardises with statistics fitted once on training images.\"\"\"

    def __init__(self, train_images, eps=1e-5):
        super().__init__()
        x = torch.as_tensor(np.asarray(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)
        if x.shape[0] < 2:
            raise ValueError("need at least two training images for a standard deviation")
        self.register_buffer("mean", x.mean(dim=0, keepdim=True))
        self.register_buffer("std", x.std(dim=0, keepdim=True).clamp_min(eps) + 0.0)

    def forward(self, x):
        return (x - self.mean) / self.std


""" + FN_DOC + """\
    return FittedNormalizer(train_images, eps=1.0)
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        if num_classes < 1:
            raise ValueError("num_classes must be positive")
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Dropout(0.25),
            nn.Flatten(),
            nn.Linear(16 * 16, 64),
            nn.ReLU(inplace=True),
            nn.Dropout(0.25),
            nn.Linear(64, num_classes),
        )

    def forward(self, x):
        if x.dim() != 4 or tuple(x.shape[1:]) != (1, 8, 8):
            raise ValueError(f"expected raw images [N, 1, 8, 8], got {tuple(x.shape)}")
        return self.net(self.normalizer(x))
""",
        "train_epoch_ce": TE_DOC + """\
    if max_grad_norm is not None and max_grad_norm < 0:
        raise ValueError("max_grad_norm must be non-negative")
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    seen = 0
    total = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        assert y.dtype == torch.long and y.dim() == 1, "labels must be class indices [B]"
        optimizer.zero_grad()
        logits = model(x)
        loss = loss_fn(logits, y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total += float(loss) * x.shape[0]
        seen += x.shape[0]
    if seen == 0:
        raise ValueError("the loader is empty")
    return total / seen
""",
        "predict_digits": PD_DOC + """\
    x = torch.as_tensor(np.asarray(images) if not isinstance(images, torch.Tensor) else images)
    if x.numel() % 64:
        raise ValueError(f"images must be [N, 64] or [N, 8, 8], got {tuple(x.shape)}")
    device = next(model.parameters()).device
    x = x.to(device=device, dtype=torch.float32).reshape(-1, 1, 8, 8)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            labels = model(x).argmax(dim=1)
    finally:
        model.train(was_training)
    assert labels.dtype == torch.int64
    return labels
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        if not isinstance(model, nn.Module):
            raise TypeError("StepLedger needs an nn.Module")
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._handles = []

    def __enter__(self):
        if self._handles:
            raise RuntimeError("this ledger is already attached")
        named = dict(self.model.named_parameters())
        watch = [n for n, p in named.items() if p.requires_grad]
        self._record = {"modes": [], "grads": {n: [] for n in watch}}
        self._before = {}

        def forward_pre(module, args):
            self._record["modes"].append("train" if module.training else "eval")

        def on_grad(name):
            p = named[name]

            def hook(grad):
                if p.grad is None:
                    self._record["grads"][name].append("none")
                else:
                    self._record["grads"][name].append("zero" if not p.grad.any() else "nonzero")
                return None

            return hook

        def pre_step(opt, args, kwargs):
            self._before = {n: q.detach().clone() for n, q in named.items()}

        def post_step(opt, args, kwargs):
            changed = sorted(n for n, q in named.items() if not torch.equal(self._before[n], q.detach()))
            self._record["changed"] = changed
            self.steps.append(self._record)
            self._record = {"modes": [], "grads": {n: [] for n in watch}}

        self._handles = [self.model.register_forward_pre_hook(forward_pre)]
        self._handles += [named[n].register_hook(on_grad(n)) for n in watch]
        self._handles.append(self.optimizer.register_step_pre_hook(pre_step))
        self._handles.append(self.optimizer.register_step_post_hook(post_step))
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            for h in self._handles:
                h.remove()
        finally:
            self._handles = []
        return False
""",
    },
    "honest-09": {  # the data as a TensorDataset inside; running mean; inference_mode; Sequential built in one go
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        x = torch.as_tensor(images, dtype=torch.float32).view(-1, 64).view(-1, 1, 8, 8)
        y = torch.as_tensor(labels, dtype=torch.long)
        self.inner = TensorDataset(x, y)

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        return self.inner[i]
""",
        "fit_normalizer": FN_DOC + """\
    x = torch.as_tensor(train_images, dtype=torch.float32).view(-1, 64)
    mean = x.mean(0).view(1, 1, 8, 8)
    std = x.std(0).view(1, 1, 8, 8).clamp(min=1.0)

    class Norm(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("m", mean)
            self.register_buffer("s", std)

        def forward(self, t):
            return t.sub(self.m).div(self.s)

    return Norm()
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.model = nn.Sequential(
            nn.Conv2d(1, 10, 3), nn.ReLU(),          # 6x6
            nn.Conv2d(10, 20, 3), nn.ReLU(),         # 4x4
            nn.MaxPool2d(2), nn.Flatten(),           # 20*2*2
            nn.Linear(80, num_classes),
        )

    def forward(self, x):
        return self.model(self.normalizer(x))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    criterion = nn.CrossEntropyLoss()
    avg, seen = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        b = len(x)
        seen += b
        avg += (loss.item() - avg) * b / seen
    return avg
""",
        "predict_digits": PD_DOC + """\
    x = torch.as_tensor(images).to(torch.float32).view(-1, 1, 8, 8)
    x = x.to(next(model.parameters()).device)
    training = model.training
    model.eval()
    with torch.inference_mode():
        y = model(x).argmax(1)
    model.train(training)
    return y.clone()
""",
        "StepLedger": "import functools\n\n\n" + SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []

    @staticmethod
    def _state(g):
        if g is None:
            return "none"
        return "zero" if torch.count_nonzero(g).item() == 0 else "nonzero"

    def __enter__(self):
        self._params = list(self.model.named_parameters())
        self._names = [n for n, p in self._params if p.requires_grad]
        self._open()
        hooks = [self.model.register_forward_pre_hook(self._forward)]
        for n, p in self._params:
            if p.requires_grad:
                hooks.append(p.register_hook(functools.partial(self._grad, n, p)))
        hooks.append(self.optimizer.register_step_pre_hook(self._pre))
        hooks.append(self.optimizer.register_step_post_hook(self._post))
        self._hooks = hooks
        return self

    def __exit__(self, *exc):
        for h in self._hooks:
            h.remove()
        self._hooks = []

    def _open(self):
        self._modes, self._grads = [], {n: [] for n in self._names}

    def _forward(self, module, args):
        self._modes.append("train" if module.training else "eval")

    def _grad(self, name, param, grad):
        self._grads[name].append(self._state(param.grad))

    def _pre(self, opt, args, kwargs):
        self._old = [p.detach().clone() for _, p in self._params]

    def _post(self, opt, args, kwargs):
        changed = sorted(n for (n, p), old in zip(self._params, self._old) if not torch.equal(p.detach(), old))
        self.steps.append({"modes": self._modes, "grads": self._grads, "changed": changed})
        self._open()
""",
    },
    "honest-10": {  # torch.stack of items; global statistics with a floor; a deeper CNN with AvgPool
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        flat = np.asarray(images, dtype=np.float32).reshape(len(images), -1)
        self.x = torch.stack([torch.from_numpy(row.copy()).reshape(1, 8, 8) for row in flat])
        self.y = torch.tensor([int(v) for v in np.asarray(labels).ravel()], dtype=torch.int64)

    def __len__(self):
        return self.x.size(0)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
""",
        "fit_normalizer": FN_DOC + """\
    t = torch.as_tensor(np.asarray(train_images, dtype=np.float32))

    class Standardiser(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.register_buffer("mean", mean.reshape(1, 1, 1, 1))
            self.register_buffer("std", std.reshape(1, 1, 1, 1))

        def forward(self, x):
            return (x - self.mean) / self.std

    return Standardiser(t.mean(), torch.clamp(t.std(), min=1e-6))
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.block1 = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1),
                                    nn.ReLU(), nn.AvgPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 2 * 2, num_classes))

    def forward(self, x):
        return self.head(self.block2(self.block1(self.normalizer(x))))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    sums = torch.zeros((), dtype=torch.float64)
    count = 0
    for inputs, targets in loader:
        inputs = inputs.to(device)
        targets = targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm, norm_type=2.0)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        sums += loss.detach().double().cpu() * inputs.shape[0]
        count += inputs.shape[0]
    return float(sums / count)
""",
        "predict_digits": PD_DOC + """\
    device = next(model.parameters()).device
    batch = torch.as_tensor(np.asarray(images.cpu() if torch.is_tensor(images) else images), dtype=torch.float32)
    batch = batch.reshape(-1, 1, 8, 8).to(device)
    restore = model.training
    model.train(False)
    with torch.no_grad():
        scores = model(batch)
    model.train(restore)
    return scores.max(dim=1).indices
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._removers = []

    def __enter__(self):
        params = list(self.model.named_parameters())
        tracked = {name: p for name, p in params if p.requires_grad}
        buf = {"modes": [], "grads": {name: [] for name in tracked}}

        def mode_hook(module, args):
            buf["modes"].append("train" if module.training else "eval")

        def grad_hook_for(name):
            p = tracked[name]

            def hook(_):
                g = p.grad
                buf["grads"][name].append("none" if g is None else ("zero" if bool((g == 0).all()) else "nonzero"))

            return hook

        values = []

        def before(opt, args, kwargs):
            values[:] = [p.detach().clone() for _, p in params]

        def after(opt, args, kwargs):
            moved = [name for (name, p), v in zip(params, values) if not torch.equal(v, p.detach())]
            self.steps.append({"modes": buf["modes"], "grads": buf["grads"], "changed": sorted(moved)})
            buf["modes"] = []
            buf["grads"] = {name: [] for name in tracked}

        handles = [self.model.register_forward_pre_hook(mode_hook)]
        for name in tracked:
            handles.append(tracked[name].register_hook(grad_hook_for(name)))
        handles += [self.optimizer.register_step_pre_hook(before), self.optimizer.register_step_post_hook(after)]
        self._removers = [h.remove for h in handles]
        return self

    def __exit__(self, *exc_info):
        for remove in self._removers:
            remove()
        self._removers = []
""",
    },
    "honest-11": {  # comprehensions; per-pixel buffers named mu/sigma; conv without padding
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.items = [
            (torch.tensor(np.asarray(img, dtype=np.float32).reshape(1, 8, 8)), torch.tensor(int(lab)))
            for img, lab in zip(np.asarray(images), np.asarray(labels))
        ]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        x, y = self.items[i]
        return x, y
""",
        "fit_normalizer": FN_DOC + """\
    x = torch.as_tensor(np.asarray(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)

    class Norm(nn.Module):
        def __init__(self, mu, sigma):
            super().__init__()
            self.register_buffer("mu", mu)
            self.register_buffer("sigma", sigma)

        def forward(self, x):
            return (x - self.mu) / self.sigma

    sigma = x.std(dim=0, keepdim=True)
    return Norm(x.mean(dim=0, keepdim=True), torch.maximum(sigma, torch.ones_like(sigma)))
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.conv = nn.Conv2d(1, 24, kernel_size=3)          # 6x6
        self.pool = nn.MaxPool2d(2)                          # 3x3
        self.fc = nn.Linear(24 * 3 * 3, num_classes)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(self.normalizer(x))))
        return self.fc(x.reshape(x.shape[0], -1))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    results = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        results.append((loss.item(), len(y)))
    return sum(l * n for l, n in results) / sum(n for _, n in results)
""",
        "predict_digits": PD_DOC + """\
    x = torch.as_tensor(images, dtype=torch.float32, device=next(model.parameters()).device)
    x = x.reshape(x.shape[0], 1, 8, 8)
    mode = model.training
    model.eval()
    with torch.no_grad():
        labels = [int(v) for v in model(x).argmax(dim=1)]
    model.train(mode)
    return torch.tensor(labels, dtype=torch.long, device=x.device)
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.handles = []

    def __enter__(self):
        named = list(self.model.named_parameters())
        names = [n for n, p in named if p.requires_grad]
        self.modes, self.grads = [], {n: [] for n in names}

        def on_forward(module, args):
            self.modes.append("train" if module.training else "eval")

        def hook_for(name, p):
            return lambda grad: self.grads[name].append(
                "none" if p.grad is None else ("nonzero" if p.grad.abs().max() > 0 else "zero"))

        def on_pre(opt, args, kwargs):
            self.before = {n: p.detach().clone() for n, p in named}

        def on_post(opt, args, kwargs):
            self.steps.append({
                "modes": self.modes,
                "grads": self.grads,
                "changed": sorted([n for n, p in named if not torch.equal(self.before[n], p.detach())]),
            })
            self.modes, self.grads = [], {n: [] for n in names}

        self.handles = [self.model.register_forward_pre_hook(on_forward)]
        self.handles += [p.register_hook(hook_for(n, p)) for n, p in named if n in names]
        self.handles += [self.optimizer.register_step_pre_hook(on_pre),
                         self.optimizer.register_step_post_hook(on_post)]
        return self

    def __exit__(self, *exc_info):
        for h in self.handles:
            h.remove()
        self.handles = []
""",
    },
    "honest-12": {  # __getitem__ converting per item from the raw arrays; per-pixel population std; wide single block
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.images = images
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = torch.as_tensor(self.images[i], dtype=torch.float32).reshape(1, 8, 8)
        label = torch.as_tensor(self.labels[i], dtype=torch.int64).reshape(())
        return image, label
""",
        "fit_normalizer": FN_DOC + """\
    x = torch.as_tensor(train_images, dtype=torch.float32).reshape(-1, 1, 8, 8)
    mean = x.mean(0, keepdim=True)
    std = ((x - mean) ** 2).mean(0, keepdim=True).sqrt()
    std = torch.where(std < 1e-3, torch.ones_like(std), std)

    class Normalizer(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", mean)
            self.register_buffer("std", std)

        def forward(self, images):
            return (images - self.mean) / self.std

    return Normalizer()
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.conv = nn.Conv2d(1, 32, 5, padding=2)
        self.pool = nn.AdaptiveMaxPool2d(2)
        self.linear = nn.Linear(32 * 4, num_classes)

    def forward(self, x):
        x = self.normalizer(x)
        x = self.pool(nn.functional.relu(self.conv(x)))
        return self.linear(x.flatten(start_dim=1))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train(True)
    criterion = nn.CrossEntropyLoss()
    total_loss, total_n = 0.0, 0
    for step, (xb, yb) in enumerate(loader, start=1):
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total_loss += loss.item() * yb.size(0)
        total_n += yb.size(0)
    return total_loss / total_n
""",
        "predict_digits": PD_DOC + """\
    dev = next(model.parameters()).device
    if not torch.is_tensor(images):
        images = torch.as_tensor(np.asarray(images))
    x = images.to(dev).float().reshape(-1, 1, 8, 8)
    was = model.training
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(dim=1)
    model.train(was)
    return pred.long()
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.handles = []

    def __enter__(self):
        params = dict(self.model.named_parameters())
        watched = sorted(n for n, p in params.items() if p.requires_grad)
        record = {}

        def reset():
            record.clear()
            record.update(modes=[], grads={n: [] for n in watched})

        def forward_pre(module, inputs):
            record["modes"].append("train" if module.training else "eval")

        def watch(name):
            def hook(grad):
                held = params[name].grad
                if held is None:
                    record["grads"][name].append("none")
                elif bool(torch.any(held != 0)):
                    record["grads"][name].append("nonzero")
                else:
                    record["grads"][name].append("zero")
            return hook

        snapshot = {}

        def step_pre(opt, args, kwargs):
            snapshot.update({n: p.detach().clone() for n, p in params.items()})

        def step_post(opt, args, kwargs):
            changed = sorted(n for n in params if not torch.equal(params[n].detach(), snapshot[n]))
            self.steps.append({"modes": record["modes"], "grads": record["grads"], "changed": changed})
            reset()

        reset()
        self.handles.append(self.model.register_forward_pre_hook(forward_pre))
        self.handles.extend(params[n].register_hook(watch(n)) for n in watched)
        self.handles.append(self.optimizer.register_step_pre_hook(step_pre))
        self.handles.append(self.optimizer.register_step_post_hook(step_post))
        return self

    def __exit__(self, exc_type, exc, tb):
        for handle in self.handles:
            handle.remove()
        del self.handles[:]
""",
    },
    "honest-13": {  # branches and early exits; global statistics; Sequential with the normaliser inside
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        if isinstance(images, torch.Tensor):
            images = images.detach().cpu().numpy()
        if isinstance(labels, torch.Tensor):
            labels = labels.detach().cpu().numpy()
        self.images = torch.from_numpy(np.ascontiguousarray(images, dtype=np.float32)).reshape(-1, 1, 8, 8)
        self.labels = torch.from_numpy(np.ascontiguousarray(labels, dtype=np.int64))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return (self.images[i], self.labels[i])
""",
        "fit_normalizer": FN_DOC + """\
    if isinstance(train_images, torch.Tensor):
        x = train_images.detach().float()
    else:
        x = torch.from_numpy(np.asarray(train_images, dtype=np.float32))
    mean, std = x.mean(), x.std()
    if std < 1e-6:
        std = torch.ones(())

    class GlobalStandardize(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", mean.reshape(()))
            self.register_buffer("std", std.reshape(()))

        def forward(self, x):
            return (x - self.mean) / self.std

    return GlobalStandardize()
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        layers = []
        if normalizer is not None:
            self.normalizer = normalizer
            layers.append(normalizer)
        layers += [nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128, num_classes)]
        self.seq = nn.Sequential(*layers)

    def forward(self, x):
        return self.seq(x)
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    clip = max_grad_norm is not None
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if clip:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is None:
            pass
        else:
            scheduler.step()
        total += loss.item() * len(y)
        count += len(y)
    if count == 0:
        return 0.0
    return total / count
""",
        "predict_digits": PD_DOC + """\
    if isinstance(images, np.ndarray):
        x = torch.from_numpy(images.astype(np.float32))
    else:
        x = images.float()
    x = x.reshape(-1, 1, 8, 8).to(next(model.parameters()).device)
    if not model.training:
        with torch.no_grad():
            return model(x).argmax(dim=1)
    model.eval()
    with torch.no_grad():
        labels = model(x).argmax(dim=1)
    model.train()
    return labels
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._handles = []

    def __enter__(self):
        params = list(self.model.named_parameters())
        names = [n for n, p in params if p.requires_grad]
        self._modes, self._grads, self._before = [], {n: [] for n in names}, None

        def mode(module, args):
            self._modes.append("eval" if not module.training else "train")

        def grad_state(p):
            if p.grad is None:
                return "none"
            if torch.count_nonzero(p.grad):
                return "nonzero"
            return "zero"

        def hook_for(n, p):
            def hook(grad):
                self._grads[n].append(grad_state(p))
            return hook

        def pre(opt, args, kwargs):
            self._before = [p.detach().clone() for _, p in params]

        def post(opt, args, kwargs):
            changed = []
            for (n, p), old in zip(params, self._before):
                if torch.equal(p.detach(), old):
                    continue
                changed.append(n)
            self.steps.append({"modes": self._modes, "grads": self._grads, "changed": sorted(changed)})
            self._modes, self._grads = [], {n: [] for n in names}

        self._handles.append(self.model.register_forward_pre_hook(mode))
        for n, p in params:
            if not p.requires_grad:
                continue
            self._handles.append(p.register_hook(hook_for(n, p)))
        self._handles.append(self.optimizer.register_step_pre_hook(pre))
        self._handles.append(self.optimizer.register_step_post_hook(post))
        return self

    def __exit__(self, *exc_info):
        for h in self._handles:
            h.remove()
        self._handles.clear()
""",
    },
    "honest-14": {  # a generator-friendly Dataset with a transform-free tuple; per-pixel; GELU CNN
        "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        arr = np.asarray(images, dtype=np.float32)
        self.images = torch.tensor(arr.reshape(arr.shape[0], 1, 8, 8))
        self.labels = torch.tensor(np.asarray(labels, dtype=np.int64))

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, i):
        x = self.images[i]
        y = self.labels[i]
        return x, y
""",
        "fit_normalizer": FN_DOC + """\
    arr = np.asarray(train_images, dtype=np.float32).reshape(-1, 1, 8, 8)
    mean = torch.from_numpy(arr.mean(axis=0, keepdims=True))
    std = torch.from_numpy(arr.std(axis=0, ddof=1, keepdims=True)).clamp_min(1.0)
    module = nn.Module()

    class Standardise(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", mean)
            self.register_buffer("std", std)

        def forward(self, x):
            return (x - self.mean) / self.std

    module = Standardise()
    return module
""",
        "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = nn.Identity() if normalizer is None else normalizer
        self.stem = nn.Conv2d(1, 16, 3, padding=1)
        self.down = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.act = nn.GELU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classify = nn.Linear(32, num_classes)

    def forward(self, x):
        h = self.act(self.stem(self.normalizer(x)))
        h = self.act(self.down(h))
        return self.classify(self.pool(h).flatten(1))
""",
        "train_epoch_ce": TE_DOC + """\
    model.train()
    ce = nn.CrossEntropyLoss()
    loss_sum, n_examples = 0.0, 0
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        logits = model(x)
        loss = ce(logits, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        loss_sum += loss.item() * y.shape[0]
        n_examples += y.shape[0]
    return loss_sum / n_examples
""",
        "predict_digits": PD_DOC + """\
    device = next(model.parameters()).device
    x = torch.as_tensor(np.asarray(images.cpu()) if torch.is_tensor(images) else np.asarray(images))
    x = x.to(device, dtype=torch.float32).view(-1, 1, 8, 8)
    previous = model.training
    model.eval()
    with torch.inference_mode():
        out = model(x)
    model.train(previous)
    return out.argmax(dim=1)
""",
        "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._handles = []

    def __enter__(self):
        self._named = dict(self.model.named_parameters())
        self._watch = [n for n, p in self._named.items() if p.requires_grad]
        self._fresh()
        self._handles.append(self.model.register_forward_pre_hook(self._on_forward))
        for n in self._watch:
            self._handles.append(self._named[n].register_hook(self._make(n)))
        self._handles.append(self.optimizer.register_step_pre_hook(self._on_pre))
        self._handles.append(self.optimizer.register_step_post_hook(self._on_post))
        return self

    def __exit__(self, *exc_info):
        for h in reversed(self._handles):
            h.remove()
        self._handles = []

    def _fresh(self):
        self._entry = {"modes": [], "grads": {n: [] for n in self._watch}}

    def _on_forward(self, module, args):
        self._entry["modes"].append("train" if module.training else "eval")

    def _make(self, n):
        p = self._named[n]

        def hook(grad):
            g = p.grad
            self._entry["grads"][n].append("none" if g is None else "zero" if g.eq(0).all() else "nonzero")

        return hook

    def _on_pre(self, opt, args, kwargs):
        self._prev = {n: p.detach().clone() for n, p in self._named.items()}

    def _on_post(self, opt, args, kwargs):
        self._entry["changed"] = sorted(n for n, p in self._named.items() if not torch.equal(self._prev[n], p.detach()))
        self.steps.append(self._entry)
        self._fresh()
""",
    },
}

# The course's answer in a student's own names (canonical-2); canonical-1 hands in the reference word for word.
CANONICAL_OWN_NAMES = {
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        pixels = torch.as_tensor(np.asarray(images), dtype=torch.float32)
        self.pixels = pixels.reshape(-1, 1, 8, 8)
        self.targets = torch.as_tensor(np.asarray(labels), dtype=torch.long)

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        return self.pixels[index], self.targets[index]
""",
    "fit_normalizer": FN_DOC + """\
    imgs = torch.as_tensor(np.asarray(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)
    mu = imgs.mean(dim=0, keepdim=True)
    sigma = imgs.std(dim=0, keepdim=True).clamp_min(1.0)

    class Standardizer(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", mu)
            self.register_buffer("std", sigma)

        def forward(self, batch):
            return (batch - self.mean) / self.std

    return Standardizer()
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.Linear(32, num_classes)

    def forward(self, images):
        return self.head(self.features(self.normalizer(images)))
""",
    "train_epoch_ce": TE_DOC + """\
    model.train()
    criterion = nn.CrossEntropyLoss()
    loss_total, examples = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        loss_total += loss.item() * len(inputs)
        examples += len(inputs)
    return loss_total / examples
""",
    "predict_digits": PD_DOC + """\
    batch = images if isinstance(images, torch.Tensor) else torch.from_numpy(np.asarray(images))
    where = next(model.parameters()).device
    batch = batch.to(device=where, dtype=torch.float32).reshape(-1, 1, 8, 8)
    training = model.training
    model.eval()
    with torch.no_grad():
        predicted = model(batch).argmax(dim=1)
    model.train(training)
    return predicted
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.steps = []
        self._hooks = []

    def __enter__(self):
        named = dict(self.model.named_parameters())
        tracked = [n for n, p in named.items() if p.requires_grad]

        def new_entry():
            self._entry = {"modes": [], "grads": {n: [] for n in tracked}}

        def on_forward(module, args):
            self._entry["modes"].append("train" if module.training else "eval")

        def on_grad(n, p):
            def hook(grad):
                if p.grad is None:
                    held = "none"
                else:
                    held = "nonzero" if bool(p.grad.any()) else "zero"
                self._entry["grads"][n].append(held)
            return hook

        def before_step(optimizer, args, kwargs):
            self._saved = {n: p.detach().clone() for n, p in named.items()}

        def after_step(optimizer, args, kwargs):
            moved = sorted(n for n, p in named.items() if not torch.equal(p.detach(), self._saved[n]))
            self.steps.append({**self._entry, "changed": moved})
            new_entry()

        new_entry()
        self._hooks.append(self.model.register_forward_pre_hook(on_forward))
        for n in tracked:
            self._hooks.append(named[n].register_hook(on_grad(n, named[n])))
        self._hooks.append(self.optimizer.register_step_pre_hook(before_step))
        self._hooks.append(self.optimizer.register_step_post_hook(after_step))
        return self

    def __exit__(self, *exc_info):
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()
""",
}


_SEQUENTIAL = {  # honest-02's answers: the explicit forward as nn.Sequential with nn.ReLU modules, indexing as unpacking
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.pixels = np.asarray(images, dtype=np.float32).reshape(-1, 64)
        self.classes = np.asarray(labels).astype(np.int64)

    def __len__(self):
        return len(self.pixels)

    def __getitem__(self, idx):
        image = torch.from_numpy(self.pixels[idx].reshape(1, 8, 8).copy())
        target = torch.tensor(self.classes[idx], dtype=torch.long)
        return image, target
""",
    "fit_normalizer": """\
class GlobalNorm(nn.Module):
    def __init__(self, mu, sigma):
        super().__init__()
        self.register_buffer("mu", mu)
        self.register_buffer("sigma", sigma)

    def forward(self, x):
        return (x - self.mu) / self.sigma


""" + FN_DOC + """\
    pixels = torch.as_tensor(np.asarray(train_images), dtype=torch.float32)
    return GlobalNorm(pixels.mean().clone(), pixels.std().clone())
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(32 * 2 * 2, num_classes),
        )

    def forward(self, x):
        if self.normalizer is not None:
            x = self.normalizer(x)
        return self.net(x)
""",
    "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    total_loss = 0.0
    total_examples = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total_loss += loss.item() * targets.shape[0]
        total_examples += targets.shape[0]
    return total_loss / total_examples
""",
    "predict_digits": PD_DOC + """\
    if isinstance(images, np.ndarray):
        images = torch.from_numpy(images)
    weight = next(model.parameters())
    batch = images.to(weight.device, torch.float32).reshape(len(images), 1, 8, 8)
    previous = model.training
    model.eval()
    with torch.no_grad():
        scores = model(batch)
    model.train(previous)
    return scores.argmax(1)
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.steps = []
        self._hooks = []

    def __enter__(self):
        named = list(self.model.named_parameters())
        followed = [(name, p) for name, p in named if p.requires_grad]

        def blank():
            return {"modes": [], "grads": {name: [] for name, _ in followed}}

        self._open = blank()

        def on_forward(module, args):
            self._open["modes"].append("train" if module.training else "eval")

        def grad_hook_for(name, p):
            def hook(grad):
                held = p.grad
                if held is None:
                    kind = "none"
                elif held.count_nonzero().item() == 0:
                    kind = "zero"
                else:
                    kind = "nonzero"
                self._open["grads"][name].append(kind)
            return hook

        def before_step(opt, args, kwargs):
            self._copies = [p.detach().clone() for _, p in named]

        def after_step(opt, args, kwargs):
            moved = sorted(name for (name, p), old in zip(named, self._copies) if not torch.equal(p.detach(), old))
            entry = self._open
            entry["changed"] = moved
            self.steps.append(entry)
            self._open = blank()

        self._hooks.append(self.model.register_forward_pre_hook(on_forward))
        for name, p in followed:
            self._hooks.append(p.register_hook(grad_hook_for(name, p)))
        self._hooks.append(self.optimizer.register_step_pre_hook(before_step))
        self._hooks.append(self.optimizer.register_step_post_hook(after_step))
        return self

    def __exit__(self, *exc_info):
        while self._hooks:
            self._hooks.pop().remove()
        return False
""",
}

_LOOPED = {  # honest-07's answers: layers built in a loop, the while loop as a for with an unused index, try/finally
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.images = np.array(images, dtype=np.float32).reshape(-1, 1, 8, 8)
        self.labels = np.array(labels, dtype=np.int64)

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, i):
        return torch.tensor(self.images[i]), torch.tensor(self.labels[i])
""",
    "fit_normalizer": FN_DOC + """\
    train_tensor = torch.tensor(np.array(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)

    class MyNormalizer(nn.Module):
        def __init__(self, m, s):
            super().__init__()
            self.register_buffer("mean", m)
            self.register_buffer("std", s)

        def forward(self, x):
            return (x - self.mean) / self.std

    return MyNormalizer(train_tensor.mean(dim=0, keepdim=True), train_tensor.std(dim=0, keepdim=True).clamp(min=1e-2))
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.layers = nn.ModuleList()
        for kind, size in (("conv", 8), ("relu", None), ("pool", 2), ("flat", None), ("fc", 32), ("relu", None),
                           ("fc", num_classes)):
            if kind == "conv":
                self.layers.append(nn.Conv2d(1, size, 3, padding=1))
            elif kind == "relu":
                self.layers.append(nn.ReLU())
            elif kind == "pool":
                self.layers.append(nn.MaxPool2d(size))
            elif kind == "flat":
                self.layers.append(nn.Flatten())
            else:
                width = 8 * 4 * 4 if len(self.layers) == 4 else 32
                self.layers.append(nn.Linear(width, size))

    def forward(self, x):
        x = self.normalizer(x)
        for layer in self.layers:
            x = layer(x)
        return x
""",
    "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_function = nn.CrossEntropyLoss()
    epoch_loss = 0.0
    number_seen = 0
    for batch_number, batch in enumerate(loader):
        images = batch[0].to(device)
        labels = batch[1].to(device)
        optimizer.zero_grad()
        batch_loss = loss_function(model(images), labels)
        batch_loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        epoch_loss = epoch_loss + batch_loss.item() * images.shape[0]
        number_seen = number_seen + images.shape[0]
    return epoch_loss / number_seen
""",
    "predict_digits": PD_DOC + """\
    if isinstance(images, torch.Tensor):
        image_tensor = images.clone()
    else:
        image_tensor = torch.tensor(np.array(images))
    image_tensor = image_tensor.float().reshape(-1, 1, 8, 8).to(next(model.parameters()).device)
    old_mode = model.training
    try:
        model.eval()
        with torch.no_grad():
            return model(image_tensor).argmax(dim=1)
    finally:
        model.train(old_mode)
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.handle_list = []
        self.current_modes = []
        self.current_grads = {}
        self.saved_values = {}

    def __enter__(self):
        self.names_to_watch = [name for name, parameter in self.model.named_parameters() if parameter.requires_grad]
        self.reset_record()
        self.handle_list.append(self.model.register_forward_pre_hook(self.record_mode))
        for name, parameter in self.model.named_parameters():
            if name in self.names_to_watch:
                self.handle_list.append(parameter.register_hook(self.make_grad_recorder(name, parameter)))
        self.handle_list.append(self.optimizer.register_step_pre_hook(self.save_values))
        self.handle_list.append(self.optimizer.register_step_post_hook(self.finish_step))
        return self

    def reset_record(self):
        self.current_modes = []
        self.current_grads = {name: [] for name in self.names_to_watch}

    def record_mode(self, module, args):
        self.current_modes.append("train" if module.training else "eval")

    def make_grad_recorder(self, name, parameter):
        def recorder(grad):
            if parameter.grad is None:
                self.current_grads[name].append("none")
            elif torch.all(parameter.grad == 0):
                self.current_grads[name].append("zero")
            else:
                self.current_grads[name].append("nonzero")
        return recorder

    def save_values(self, optimizer, args, kwargs):
        self.saved_values = {name: parameter.detach().clone() for name, parameter in self.model.named_parameters()}

    def finish_step(self, optimizer, args, kwargs):
        changed_names = sorted(name for name, parameter in self.model.named_parameters()
                               if not torch.equal(self.saved_values[name], parameter.detach()))
        self.steps.append({"modes": self.current_modes, "grads": self.current_grads, "changed": changed_names})
        self.reset_record()

    def __exit__(self, exc_type, exc_value, traceback):
        for handle in self.handle_list:
            handle.remove()
        self.handle_list = []
        return False
""",
}



_HELPERS = {  # honest-05's answers: the loop split into helpers, comments stripped, an explicit forward with F
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.images = torch.tensor(np.array(images), dtype=torch.float32).reshape(-1, 1, 8, 8)
        self.labels = torch.tensor(np.array(labels), dtype=torch.long)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]
""",
    "fit_normalizer": """\
def _pixel_stats(images):
    x = torch.tensor(np.array(images), dtype=torch.float32).reshape(-1, 1, 8, 8)
    std = x.std(dim=0, keepdim=True)
    return x.mean(dim=0, keepdim=True), torch.where(std > 0, std, torch.ones_like(std))


class Normalise(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)

    def forward(self, x):
        return (x - self.mean) / self.std


""" + FN_DOC + """\
    return Normalise(*_pixel_stats(train_images))
""",
    "DigitCNN": "import torch.nn.functional as F\n\n\n" + CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = nn.Identity() if normalizer is None else normalizer
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.out = nn.Linear(64, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(self.normalizer(x))), 2)
        x = F.relu(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.out(x)
""",
    "train_epoch_ce": """\
def _to_device(batch, device):
    return [t.to(device) for t in batch]


class RunningMean:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def add(self, value, n):
        self.total += value * n
        self.count += n

    @property
    def value(self):
        return self.total / self.count


def _one_step(model, x, y, optimizer, loss_fn, scheduler, max_grad_norm):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    if max_grad_norm is not None:
        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    if scheduler is not None:
        scheduler.step()
    return loss.item()


""" + TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    mean = RunningMean()
    for batch in loader:
        x, y = _to_device(batch, device)
        mean.add(_one_step(model, x, y, optimizer, loss_fn, scheduler, max_grad_norm), len(x))
    return mean.value
""",
    "predict_digits": """\
def _as_batch(images, device):
    x = images if torch.is_tensor(images) else torch.from_numpy(np.asarray(images))
    return x.float().reshape(-1, 1, 8, 8).to(device)


""" + PD_DOC + """\
    x = _as_batch(images, next(model.parameters()).device)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        labels = model(x).argmax(dim=1)
    model.train(was_training)
    return labels
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._handles = []

    def __enter__(self):
        params = dict(self.model.named_parameters())
        watched = [name for name, p in params.items() if p.requires_grad]

        def start():
            self._rec = {"modes": [], "grads": {name: [] for name in watched}}

        def on_forward(module, args):
            self._rec["modes"].append("train" if module.training else "eval")

        def grad_state(name, p):
            def hook(grad):
                if p.grad is None:
                    self._rec["grads"][name].append("none")
                elif torch.count_nonzero(p.grad) == 0:
                    self._rec["grads"][name].append("zero")
                else:
                    self._rec["grads"][name].append("nonzero")
            return hook

        def on_step_start(opt, args, kwargs):
            self._copy = {name: p.detach().clone() for name, p in params.items()}

        def on_step_end(opt, args, kwargs):
            self._rec["changed"] = sorted(n for n, p in params.items() if not torch.equal(p.detach(), self._copy[n]))
            self.steps.append(self._rec)
            start()

        start()
        self._handles.append(self.model.register_forward_pre_hook(on_forward))
        for name in watched:
            self._handles.append(params[name].register_hook(grad_state(name, params[name])))
        self._handles.append(self.optimizer.register_step_pre_hook(on_step_start))
        self._handles.append(self.optimizer.register_step_post_hook(on_step_end))
        return self

    def __exit__(self, *exc_info):
        for handle in self._handles:
            handle.remove()
        self._handles = []
""",
}

_GUARDS = {  # honest-13's answers: branches rewritten (nested ifs, negated conditions, one exit, no flag)
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        images = images.detach().cpu().numpy() if isinstance(images, torch.Tensor) else images
        labels = labels.detach().cpu().numpy() if isinstance(labels, torch.Tensor) else labels
        self.images = torch.from_numpy(np.ascontiguousarray(images, dtype=np.float32)).reshape(-1, 1, 8, 8)
        self.labels = torch.from_numpy(np.ascontiguousarray(labels, dtype=np.int64))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]
""",
    "fit_normalizer": FN_DOC + """\
    if not isinstance(train_images, torch.Tensor):
        x = torch.from_numpy(np.asarray(train_images, dtype=np.float32))
    else:
        x = train_images.detach().float()
    mean = x.mean()
    std = x.std() if x.std() >= 1e-6 else torch.ones(())

    class GlobalStandardize(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", mean.reshape(()))
            self.register_buffer("std", std.reshape(()))

        def forward(self, x):
            return (x - self.mean) / self.std

    return GlobalStandardize()
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        if normalizer is None:
            layers = []
        else:
            self.normalizer = normalizer
            layers = [normalizer]
        layers.extend([nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                       nn.Linear(128, num_classes)])
        self.seq = nn.Sequential(*layers)

    def forward(self, x):
        return self.seq(x)
""",
    "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if not (max_grad_norm is None):
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total += loss.item() * len(y)
        count += len(y)
    return total / count if count else 0.0
""",
    "predict_digits": PD_DOC + """\
    if not isinstance(images, np.ndarray):
        x = images.float()
    else:
        x = torch.from_numpy(images.astype(np.float32))
    x = x.reshape(-1, 1, 8, 8).to(next(model.parameters()).device)
    switch = model.training
    if switch:
        model.eval()
    with torch.no_grad():
        labels = model(x).argmax(dim=1)
    if switch:
        model.train()
    return labels
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._handles = []

    def __enter__(self):
        params = list(self.model.named_parameters())
        names = [n for n, p in params if p.requires_grad]
        self._modes, self._grads, self._before = [], {n: [] for n in names}, None

        def mode(module, args):
            self._modes.append("train" if module.training else "eval")

        def grad_state(p):
            if p.grad is not None:
                if torch.count_nonzero(p.grad):
                    return "nonzero"
                else:
                    return "zero"
            return "none"

        def hook_for(n, p):
            def hook(grad):
                self._grads[n].append(grad_state(p))
            return hook

        def pre(opt, args, kwargs):
            self._before = [p.detach().clone() for _, p in params]

        def post(opt, args, kwargs):
            changed = []
            for (n, p), old in zip(params, self._before):
                if not torch.equal(p.detach(), old):
                    changed.append(n)
            self.steps.append({"modes": self._modes, "grads": self._grads, "changed": sorted(changed)})
            self._modes, self._grads = [], {n: [] for n in names}

        self._handles.append(self.model.register_forward_pre_hook(mode))
        for n, p in params:
            if p.requires_grad:
                self._handles.append(p.register_hook(hook_for(n, p)))
        self._handles.append(self.optimizer.register_step_pre_hook(pre))
        self._handles.append(self.optimizer.register_step_post_hook(post))
        return self

    def __exit__(self, *exc_info):
        for h in self._handles:
            h.remove()
        self._handles.clear()
""",
}



_HOISTED = {  # honest-10's answers: constants hoisted to module level, docstrings rewritten; the Dataset as taken
    "fit_normalizer": """\
STD_FLOOR = 1e-6
STAT_SHAPE = (1, 1, 1, 1)


""" + FN + """\
    \"\"\"Fit one mean and one std over every training pixel; return them inside a module, as buffers.\"\"\"
    t = torch.as_tensor(np.asarray(train_images, dtype=np.float32))

    class Standardiser(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.register_buffer("mean", mean.reshape(STAT_SHAPE))
            self.register_buffer("std", std.reshape(STAT_SHAPE))

        def forward(self, x):
            return (x - self.mean) / self.std

    return Standardiser(t.mean(), torch.clamp(t.std(), min=STD_FLOOR))
""",
    "DigitCNN": """\
IN_CHANNELS = 1
WIDTH_1, WIDTH_2 = 16, 32
KERNEL = 3
POOL = 2


class DigitCNN(nn.Module):
    \"\"\"Two convolutional blocks with average pooling and a linear read-out, behind the given normaliser.\"\"\"

    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.block1 = nn.Sequential(nn.Conv2d(IN_CHANNELS, WIDTH_1, KERNEL, padding=KERNEL // 2), nn.ReLU(),
                                    nn.Conv2d(WIDTH_1, WIDTH_1, KERNEL, padding=KERNEL // 2), nn.ReLU(),
                                    nn.AvgPool2d(POOL))
        self.block2 = nn.Sequential(nn.Conv2d(WIDTH_1, WIDTH_2, KERNEL, padding=KERNEL // 2), nn.ReLU(),
                                    nn.AvgPool2d(POOL))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(WIDTH_2 * 2 * 2, num_classes))

    def forward(self, x):
        return self.head(self.block2(self.block1(self.normalizer(x))))
""",
    "train_epoch_ce": """\
NORM_TYPE = 2.0
ACCUMULATOR_DTYPE = torch.float64


""" + TE + """\
    \"\"\"Train for one pass over the loader with cross-entropy and report the average loss per example.\"\"\"
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    sums = torch.zeros((), dtype=ACCUMULATOR_DTYPE)
    count = 0
    for inputs, targets in loader:
        inputs = inputs.to(device)
        targets = targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm, norm_type=NORM_TYPE)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        sums += loss.detach().to(ACCUMULATOR_DTYPE).cpu() * inputs.shape[0]
        count += inputs.shape[0]
    return float(sums / count)
""",
    "predict_digits": """\
RAW_SHAPE = (-1, 1, 8, 8)
CLASS_DIM = 1


""" + PD + """\
    \"\"\"Serve raw images: the model in eval mode and without a graph, the caller's mode put back.\"\"\"
    device = next(model.parameters()).device
    batch = torch.as_tensor(np.asarray(images.cpu() if torch.is_tensor(images) else images), dtype=torch.float32)
    batch = batch.reshape(RAW_SHAPE).to(device)
    restore = model.training
    model.train(False)
    with torch.no_grad():
        scores = model(batch)
    model.train(restore)
    return scores.max(dim=CLASS_DIM).indices
""",
    "StepLedger": """\
TRAIN, EVAL = "train", "eval"
NONE, ZERO, NONZERO = "none", "zero", "nonzero"


class StepLedger:
    \"\"\"Watch a model and its optimizer through hooks: per step, the forward modes, the grad each backward found,
    and the parameters the update moved. Use it as a context manager; the hooks go away on exit.\"\"\"

    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._removers = []

    def __enter__(self):
        params = list(self.model.named_parameters())
        tracked = {name: p for name, p in params if p.requires_grad}
        buf = {"modes": [], "grads": {name: [] for name in tracked}}

        def mode_hook(module, args):
            buf["modes"].append(TRAIN if module.training else EVAL)

        def grad_hook_for(name):
            p = tracked[name]

            def hook(_):
                g = p.grad
                buf["grads"][name].append(NONE if g is None else (ZERO if bool((g == 0).all()) else NONZERO))

            return hook

        values = []

        def before(opt, args, kwargs):
            values[:] = [p.detach().clone() for _, p in params]

        def after(opt, args, kwargs):
            moved = [name for (name, p), v in zip(params, values) if not torch.equal(v, p.detach())]
            self.steps.append({"modes": buf["modes"], "grads": buf["grads"], "changed": sorted(moved)})
            buf["modes"] = []
            buf["grads"] = {name: [] for name in tracked}

        handles = [self.model.register_forward_pre_hook(mode_hook)]
        for name in tracked:
            handles.append(tracked[name].register_hook(grad_hook_for(name)))
        handles += [self.optimizer.register_step_pre_hook(before), self.optimizer.register_step_post_hook(after)]
        self._removers = [h.remove for h in handles]
        return self

    def __exit__(self, *exc_info):
        for remove in self._removers:
            remove()
        self._removers = []
""",
}

_DEBUG = {  # honest-11's answers with dead code, unused counters and debugging prints; the ledger as taken
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        DEBUG = False
        self.items = [
            (torch.tensor(np.asarray(img, dtype=np.float32).reshape(1, 8, 8)), torch.tensor(int(lab)))
            for img, lab in zip(np.asarray(images), np.asarray(labels))
        ]
        if DEBUG:
            print("loaded", len(self.items), "digits")
        self.calls = 0

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        x, y = self.items[i]
        # print(i, x.shape, y)
        return x, y
""",
    "fit_normalizer": FN_DOC + """\
    x = torch.as_tensor(np.asarray(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)
    print("fitting the normaliser on", x.shape[0], "images")

    class Norm(nn.Module):
        def __init__(self, mu, sigma):
            super().__init__()
            self.register_buffer("mu", mu)
            self.register_buffer("sigma", sigma)

        def forward(self, x):
            return (x - self.mu) / self.sigma

    sigma = x.std(dim=0, keepdim=True)
    n_flat = int((sigma == 0).sum())  # how many pixels never vary
    if n_flat < 0:
        print("impossible")
    return Norm(x.mean(dim=0, keepdim=True), torch.maximum(sigma, torch.ones_like(sigma)))
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.debug = False
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.conv = nn.Conv2d(1, 24, kernel_size=3)          # 6x6
        self.pool = nn.MaxPool2d(2)                          # 3x3
        self.fc = nn.Linear(24 * 3 * 3, num_classes)
        print("DigitCNN with", sum(p.numel() for p in self.parameters()), "parameters")

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(self.normalizer(x))))
        if self.debug:
            print("features", tuple(x.shape))
        return self.fc(x.reshape(x.shape[0], -1))
""",
    "train_epoch_ce": TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    results = []
    n_batches = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        results.append((loss.item(), len(y)))
        n_batches += 1
        if n_batches % 1000 == 0:
            print("batch", n_batches, "loss", results[-1][0])
    epoch_mean = sum(l * n for l, n in results) / sum(n for _, n in results)
    print(f"epoch done: {n_batches} batches, mean loss {epoch_mean:.4f}")
    return epoch_mean
""",
    "predict_digits": PD_DOC + """\
    x = torch.as_tensor(images, dtype=torch.float32, device=next(model.parameters()).device)
    x = x.reshape(x.shape[0], 1, 8, 8)
    mode = model.training
    unused = None
    model.eval()
    with torch.no_grad():
        labels = [int(v) for v in model(x).argmax(dim=1)]
    model.train(mode)
    if False:
        print("predicted", labels)
    return torch.tensor(labels, dtype=torch.long, device=x.device)
""",
}

_REORDERED = {  # honest-12's answers with independent statements reordered, zero_grad after the forward pass
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.labels = labels
        self.images = images

    def __getitem__(self, i):
        label = torch.as_tensor(self.labels[i], dtype=torch.int64).reshape(())
        image = torch.as_tensor(self.images[i], dtype=torch.float32).reshape(1, 8, 8)
        return image, label

    def __len__(self):
        return len(self.labels)
""",
    "fit_normalizer": FN_DOC + """\
    class Normalizer(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.register_buffer("mean", mean)
            self.register_buffer("std", std)

        def forward(self, images):
            return (images - self.mean) / self.std

    x = torch.as_tensor(train_images, dtype=torch.float32).reshape(-1, 1, 8, 8)
    mean = x.mean(0, keepdim=True)
    std = ((x - mean) ** 2).mean(0, keepdim=True).sqrt()
    return Normalizer(mean, torch.where(std < 1e-3, torch.ones_like(std), std))
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d(2)
        self.conv = nn.Conv2d(1, 32, 5, padding=2)
        self.linear = nn.Linear(32 * 4, num_classes)
        self.normalizer = normalizer if normalizer is not None else nn.Identity()

    def forward(self, x):
        x = self.normalizer(x)
        x = self.pool(nn.functional.relu(self.conv(x)))
        return self.linear(x.flatten(start_dim=1))
""",
    "train_epoch_ce": TE_DOC + """\
    criterion = nn.CrossEntropyLoss()
    total_n, total_loss = 0, 0.0
    model.train(True)
    for step, (xb, yb) in enumerate(loader, start=1):
        yb = yb.to(device)
        xb = xb.to(device)
        out = model(xb)
        optimizer.zero_grad()
        loss = criterion(out, yb)
        loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
        optimizer.step()
        total_n += yb.size(0)
        total_loss += loss.item() * yb.size(0)
        if scheduler is not None:
            scheduler.step()
    return total_loss / total_n
""",
    "predict_digits": PD_DOC + """\
    was = model.training
    if not torch.is_tensor(images):
        images = torch.as_tensor(np.asarray(images))
    dev = next(model.parameters()).device
    x = images.to(dev).float().reshape(-1, 1, 8, 8)
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(dim=1)
    model.train(was)
    return pred.long()
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.steps = []
        self.handles = []
        self.optimizer = optimizer
        self.model = model

    def __exit__(self, exc_type, exc, tb):
        for handle in self.handles:
            handle.remove()
        del self.handles[:]

    def __enter__(self):
        params = dict(self.model.named_parameters())
        watched = sorted(n for n, p in params.items() if p.requires_grad)
        snapshot = {}
        record = {}

        def reset():
            record.clear()
            record.update(modes=[], grads={n: [] for n in watched})

        def step_pre(opt, args, kwargs):
            snapshot.update({n: p.detach().clone() for n, p in params.items()})

        def step_post(opt, args, kwargs):
            changed = sorted(n for n in params if not torch.equal(params[n].detach(), snapshot[n]))
            self.steps.append({"modes": record["modes"], "grads": record["grads"], "changed": changed})
            reset()

        def forward_pre(module, inputs):
            record["modes"].append("train" if module.training else "eval")

        def watch(name):
            def hook(grad):
                held = params[name].grad
                if held is None:
                    record["grads"][name].append("none")
                elif bool(torch.any(held != 0)):
                    record["grads"][name].append("nonzero")
                else:
                    record["grads"][name].append("zero")
            return hook

        reset()
        self.handles.append(self.model.register_forward_pre_hook(forward_pre))
        self.handles.extend(params[n].register_hook(watch(n)) for n in watched)
        self.handles.append(self.optimizer.register_step_pre_hook(step_pre))
        self.handles.append(self.optimizer.register_step_post_hook(step_post))
        return self
""",
}



_SPELLINGS = {  # honest-04's answers in other spellings of the same calls, the unused enumerate index dropped
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        images = np.array(images).astype(np.float32).reshape(-1, 1, 8, 8)
        labels = np.array(labels).astype(np.int64)
        self.samples = list(zip(map(torch.from_numpy, images), map(torch.tensor, labels)))

    def __len__(self):
        return self.samples.__len__()

    def __getitem__(self, i):
        return self.samples[i]
""",
    "fit_normalizer": """\
class Scale(torch.nn.Module):
    \"\"\"Subtract a mean and divide by a std that travel with the model.\"\"\"

    def __init__(self, mean, std):
        super(Scale, self).__init__()
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32))

    def forward(self, x):
        return torch.div(torch.sub(x, self.mean), self.std)


""" + FN_DOC + """\
    pixels = np.array(train_images).astype(np.float32)
    return torch.nn.Sequential(Scale(pixels.mean().item(), max(pixels.std().item(), 0.001)))
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super(DigitCNN, self).__init__()
        self.normalizer = nn.Identity() if normalizer is None else normalizer
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels=1, out_channels=12, kernel_size=3, padding=1),
            nn.BatchNorm2d(num_features=12),
            nn.ReLU(inplace=False),
            nn.MaxPool2d(kernel_size=2),
        )
        self.classifier = nn.Sequential(nn.Flatten(start_dim=1), nn.Linear(192, 64), nn.ReLU(),
                                        nn.Linear(in_features=64, out_features=num_classes))

    def forward(self, x):
        x = self.normalizer(x)
        x = self.conv(x)
        return self.classifier(x)
""",
    "train_epoch_ce": TE_DOC + """\
    model.train(mode=True)
    criterion = torch.nn.CrossEntropyLoss(reduction="mean")
    losses, counts = [], []
    for x, y in loader:
        x = x.to(device=device)
        y = y.to(device=device)
        optimizer.zero_grad()
        loss = criterion(model.__call__(x), y)
        loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(float(loss.detach()))
        counts.append(y.size(0))
    return sum(map(lambda lc: lc[0] * lc[1], zip(losses, counts))) / sum(counts)
""",
    "predict_digits": PD_DOC + """\
    x = torch.from_numpy(np.array(images, dtype=np.float32)).reshape(-1, 1, 8, 8)
    x = x.to(list(model.parameters())[0].device)
    was_training = model.training
    model.train(False)
    with torch.no_grad():
        out = model.__call__(x)
    model.train(was_training)
    return out.argmax(dim=1)
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = list()
        self.handles = list()
        self.modes = list()
        self.grads = dict()
        self.before = None

    def __enter__(self):
        self.names = [n for n, p in self.model.named_parameters() if p.requires_grad is True]
        self.grads = dict((n, []) for n in self.names)
        self.handles.append(self.model.register_forward_pre_hook(self.forward_hook))
        for n, p in self.model.named_parameters():
            if self.names.count(n):
                self.handles.append(p.register_hook(self.make_hook(n, p)))
        self.handles.append(self.optimizer.register_step_pre_hook(self.pre))
        self.handles.append(self.optimizer.register_step_post_hook(self.post))
        return self

    def forward_hook(self, module, args):
        self.modes.append(["eval", "train"][int(module.training)])

    def make_hook(self, n, p):
        def hook(grad):
            if p.grad is None:
                self.grads[n].append("none")
            elif torch.any(p.grad).item():
                self.grads[n].append("nonzero")
            else:
                self.grads[n].append("zero")
        return hook

    def pre(self, opt, args, kwargs):
        self.before = dict((n, torch.clone(p.detach())) for n, p in self.model.named_parameters())

    def post(self, opt, args, kwargs):
        changed = [n for n, p in self.model.named_parameters() if not self.before[n].equal(p)]
        self.steps.append(dict(modes=self.modes, grads=self.grads, changed=sorted(changed)))
        self.modes = list()
        self.grads = dict((n, []) for n in self.names)

    def __exit__(self, *args):
        for h in self.handles:
            h.remove()
        self.handles.clear()
""",
}

_CHAIN_B = {  # honest-06's answers lightly renamed, the walrus and the tuple assignment expanded (first link)
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.imgs = torch.as_tensor(images, dtype=torch.float32).reshape(len(labels), 1, 8, 8)
        self.lbls = torch.as_tensor(labels).to(torch.int64)

    def __len__(self):
        return len(self.lbls)

    def __getitem__(self, idx):
        return self.imgs[idx], self.lbls[idx]
""",
    "fit_normalizer": FN_DOC + """\
    imgs = torch.as_tensor(train_images, dtype=torch.float32).reshape(-1, 1, 8, 8)

    class N(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", imgs.mean(0, keepdim=True))
            self.register_buffer("std", imgs.std(0, keepdim=True).clamp(min=1.0))

        def forward(self, t):
            return (t - self.mean) / self.std

    return N()
""",
    "DigitCNN": "import torch.nn.functional as F\n\n\n" + CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.convs = nn.ModuleList()
        widths = [1, 8, 16]
        for a, b in zip(widths, widths[1:]):
            self.convs.append(nn.Conv2d(a, b, 3, padding=1))
        self.fc = nn.Linear(16 * 2 * 2, num_classes)

    def forward(self, x):
        x = self.normalizer(x)
        for conv in self.convs:
            x = F.max_pool2d(torch.relu(conv(x)), 2)
        return self.fc(torch.flatten(x, 1))
""",
    "train_epoch_ce": "import torch.nn.functional as F\n\n\n" + TE_DOC + """\
    model.train()
    total = 0.0
    n = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total += loss.item() * len(y)
        n += len(y)
    return total / n
""",
    "predict_digits": PD_DOC + """\
    was = model.training
    model.eval()
    with torch.no_grad():
        out = model(torch.as_tensor(images, dtype=torch.float32, device=next(model.parameters()).device).reshape(-1, 1, 8, 8)).argmax(1)
    model.train(was)
    return out
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model, self.optimizer, self.steps, self.hooks = model, optimizer, [], []

    def __enter__(self):
        ps = dict(self.model.named_parameters())
        keep = [n for n, p in ps.items() if p.requires_grad]
        new = lambda: {"modes": [], "grads": {n: [] for n in keep}}
        self.rec = new()
        state = lambda g: "none" if g is None else ("nonzero" if g.any() else "zero")

        def grad_hook(n):
            return lambda g: self.rec["grads"][n].append(state(ps[n].grad))

        def pre(o, a, k):
            self.old = {n: p.detach().clone() for n, p in ps.items()}

        def post(o, a, k):
            self.steps.append({**self.rec, "changed": sorted(n for n in ps if not torch.equal(ps[n].detach(), self.old[n]))})
            self.rec = new()

        self.hooks = [self.model.register_forward_pre_hook(
            lambda m, a: self.rec["modes"].append("train" if m.training else "eval"))]
        self.hooks += [ps[n].register_hook(grad_hook(n)) for n in keep]
        self.hooks += [self.optimizer.register_step_pre_hook(pre), self.optimizer.register_step_post_hook(post)]
        return self

    def __exit__(self, *exc):
        for h in self.hooks:
            h.remove()
        self.hooks = []
""",
}

_CHAIN_C = {  # chain-b's answers reworked: the conv loop written out, a device helper, lambdas as functions
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.convs = nn.ModuleList([nn.Conv2d(1, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1)])
        self.fc = nn.Linear(64, num_classes)
        self.act = nn.ReLU()
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        x = self.normalizer(x)
        x = self.pool(self.act(self.convs[0](x)))
        x = self.pool(self.act(self.convs[1](x)))
        return self.fc(x.flatten(1))
""",
    "train_epoch_ce": """\
def on_device(batch, device):
    inputs, targets = batch
    return inputs.to(device), targets.to(device)


""" + TE_DOC + """\
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    total, n = 0.0, 0
    for batch in loader:
        x, y = on_device(batch, device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total = total + loss.item() * len(y)
        n = n + len(y)
    return total / n
""",
    "predict_digits": PD_DOC + """\
    device = next(model.parameters()).device
    x = torch.as_tensor(images, dtype=torch.float32, device=device)
    x = x.reshape(-1, 1, 8, 8)
    was = model.training
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train(was)
    return logits.argmax(1)
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.hooks = []

    def __enter__(self):
        ps = dict(self.model.named_parameters())
        keep = [n for n, p in ps.items() if p.requires_grad]

        def new():
            return {"modes": [], "grads": {n: [] for n in keep}}

        def state(g):
            if g is None:
                return "none"
            return "nonzero" if g.any() else "zero"

        self.rec = new()

        def on_forward(m, a):
            self.rec["modes"].append("train" if m.training else "eval")

        def grad_hook(n):
            def hook(g):
                self.rec["grads"][n].append(state(ps[n].grad))
            return hook

        def pre(o, a, k):
            self.old = {n: p.detach().clone() for n, p in ps.items()}

        def post(o, a, k):
            changed = sorted(n for n in ps if not torch.equal(ps[n].detach(), self.old[n]))
            self.steps.append({"modes": self.rec["modes"], "grads": self.rec["grads"], "changed": changed})
            self.rec = new()

        self.hooks.append(self.model.register_forward_pre_hook(on_forward))
        for n in keep:
            self.hooks.append(ps[n].register_hook(grad_hook(n)))
        self.hooks.append(self.optimizer.register_step_pre_hook(pre))
        self.hooks.append(self.optimizer.register_step_post_hook(post))
        return self

    def __exit__(self, *exc):
        for h in self.hooks:
            h.remove()
        self.hooks = []
""",
}

_CHAIN_C_OWN = {  # ... and chain-c's own Dataset and normaliser
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.images = [torch.tensor(row, dtype=torch.float32).view(1, 8, 8)
                       for row in np.asarray(images, dtype=np.float32).reshape(-1, 64)]
        self.labels = [torch.tensor(int(label), dtype=torch.int64) for label in np.asarray(labels)]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]
""",
    "fit_normalizer": FN_DOC + """\
    pixels = torch.as_tensor(np.asarray(train_images, dtype=np.float32)).flatten()
    norm = nn.Module()
    mean, std = pixels.mean(), pixels.std(unbiased=False).clamp_min(0.5)

    class Centre(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("center", mean.view(1, 1, 1, 1))
            self.register_buffer("scale", std.view(1, 1, 1, 1))

        def forward(self, x):
            return (x - self.center) / self.scale

    return Centre()
""",
}



_MERGE = {  # the Dataset, normaliser and CNN from honest-08, defensive checks dropped; the rest from honest-09, reworked
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        images = torch.as_tensor(np.asarray(images), dtype=torch.float32)
        labels = torch.as_tensor(np.asarray(labels), dtype=torch.long)
        self.images = images.reshape(len(labels), 1, 8, 8).contiguous()
        self.labels = labels.reshape(-1)

    def __len__(self):
        return int(self.labels.shape[0])

    def __getitem__(self, i):
        return self.images[i], self.labels[i]
""",
    "fit_normalizer": """\
class FittedNormalizer(nn.Module):
    def __init__(self, train_images, eps=1e-5):
        super().__init__()
        x = torch.as_tensor(np.asarray(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)
        self.register_buffer("mean", x.mean(dim=0, keepdim=True))
        self.register_buffer("std", x.std(dim=0, keepdim=True).clamp_min(eps) + 0.0)

    def forward(self, x):
        return (x - self.mean) / self.std


""" + FN_DOC + """\
    return FittedNormalizer(train_images, eps=1.0)
""",
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer if normalizer is not None else nn.Identity()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Dropout(0.25),
            nn.Flatten(),
            nn.Linear(16 * 16, 64),
            nn.ReLU(inplace=True),
            nn.Dropout(0.25),
            nn.Linear(64, num_classes),
        )

    def forward(self, x):
        return self.net(self.normalizer(x))
""",
    "train_epoch_ce": TE_DOC + """\
    model.train()
    criterion = nn.CrossEntropyLoss()
    mean_loss, seen = 0.0, 0
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        seen += len(x)
        mean_loss += (loss.item() - mean_loss) * len(x) / seen
    return mean_loss
""",
    "predict_digits": PD_DOC + """\
    x = torch.as_tensor(images).to(torch.float32).view(-1, 1, 8, 8).to(next(model.parameters()).device)
    training = model.training
    model.eval()
    with torch.no_grad():
        y = model(x).argmax(1)
    model.train(training)
    return y
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []

    @staticmethod
    def _state(g):
        if g is None:
            return "none"
        return "zero" if torch.count_nonzero(g).item() == 0 else "nonzero"

    def __enter__(self):
        self._params = list(self.model.named_parameters())
        self._names = [n for n, p in self._params if p.requires_grad]
        self._open()
        hooks = [self.model.register_forward_pre_hook(self._forward)]
        for n, p in self._params:
            if p.requires_grad:
                hooks.append(p.register_hook(self._grad_hook(n, p)))
        hooks.append(self.optimizer.register_step_pre_hook(self._pre))
        hooks.append(self.optimizer.register_step_post_hook(self._post))
        self._hooks = hooks
        return self

    def __exit__(self, *exc):
        for h in self._hooks:
            h.remove()
        self._hooks = []

    def _open(self):
        self._modes, self._grads = [], {n: [] for n in self._names}

    def _forward(self, module, args):
        self._modes.append("train" if module.training else "eval")

    def _grad_hook(self, name, param):
        def hook(grad):
            self._grads[name].append(self._state(param.grad))
        return hook

    def _pre(self, opt, args, kwargs):
        self._old = [p.detach().clone() for _, p in self._params]

    def _post(self, opt, args, kwargs):
        changed = sorted(n for (n, p), old in zip(self._params, self._old) if not torch.equal(p.detach(), old))
        self.steps.append({"modes": self._modes, "grads": self._grads, "changed": changed})
        self._open()
""",
}

_HALF = {  # honest-03's CNN and epoch only: the strided body as an explicit forward, clipping and scheduling in helpers
    "DigitCNN": CNN + """\
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer or nn.Identity()
        self.c1 = nn.Conv2d(1, 16, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.head = nn.Linear(128, num_classes)

    def forward(self, x):
        x = torch.relu(self.c1(self.normalizer(x)))
        x = torch.relu(self.c2(x))
        return self.head(x.flatten(1))
""",
    "train_epoch_ce": """\
def _clip(model, max_norm):
    if max_norm is None:
        return
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


def _advance(scheduler):
    if scheduler is None:
        return
    scheduler.step()


""" + TE_DOC + """\
    model.train()
    ce = nn.CrossEntropyLoss()
    sum_loss, n = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)
        loss = ce(logits, y)
        loss.backward()
        _clip(model, max_grad_norm)
        optimizer.step()
        _advance(scheduler)
        with torch.no_grad():
            sum_loss += nn.functional.cross_entropy(logits, y, reduction="sum").item()
        n += y.numel()
    return sum_loss / n
""",
}

_HALF_OWN = {  # ... and the copier's own Dataset, normaliser, prediction and ledger
    "DigitsDataset": DS + """\
    def __init__(self, images, labels):
        self.n = len(labels)
        self.images = torch.as_tensor(np.asarray(images, dtype=np.float32)).reshape(self.n, 64)
        self.labels = torch.as_tensor(np.asarray(labels, dtype=np.int64))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.images[i].reshape(1, 8, 8), self.labels[i].clone()
""",
    "fit_normalizer": FN_DOC + """\
    x = torch.as_tensor(np.asarray(train_images, dtype=np.float32)).reshape(-1, 64)
    mean = x.mean(dim=0)
    std = x.std(dim=0)
    std = std + (std == 0).float()
    mod = nn.Module()
    mod.register_buffer("mean", mean.reshape(1, 1, 8, 8))
    mod.register_buffer("std", std.reshape(1, 1, 8, 8))
    return nn.Sequential(_Affine(mod.mean, mod.std))


class _Affine(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)

    def forward(self, x):
        return (x - self.mean) / self.std
""",
    "predict_digits": PD_DOC + """\
    prior = model.training
    model.eval()
    try:
        with torch.inference_mode():
            x = torch.as_tensor(np.asarray(images), dtype=torch.float32)
            x = x.to(next(model.parameters()).device).reshape(-1, 1, 8, 8)
            return torch.argmax(model(x), dim=1)
    finally:
        model.train(prior)
""",
    "StepLedger": SL + """\
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self._remove = []

    def __enter__(self):
        every = list(self.model.named_parameters())
        grads_of = {n: [] for n, p in every if p.requires_grad}
        modes = []
        kept = {}

        def grad_word(p):
            if p.grad is None:
                return "none"
            return "zero" if float(p.grad.abs().sum()) == 0.0 else "nonzero"

        def fwd(module, args):
            modes.append("train" if module.training else "eval")

        def pre(opt, args, kwargs):
            kept.clear()
            for n, p in every:
                kept[n] = p.detach().clone()

        def post(opt, args, kwargs):
            changed = sorted(n for n, p in every if not torch.equal(kept[n], p.detach()))
            self.steps.append({"modes": list(modes), "grads": {n: list(v) for n, v in grads_of.items()},
                               "changed": changed})
            modes.clear()
            for v in grads_of.values():
                v.clear()

        self._remove.append(self.model.register_forward_pre_hook(fwd).remove)
        for n, p in every:
            if n in grads_of:
                self._remove.append(p.register_hook(lambda g, n=n, p=p: grads_of[n].append(grad_word(p))).remove)
        self._remove.append(self.optimizer.register_step_pre_hook(pre).remove)
        self._remove.append(self.optimizer.register_step_post_hook(post).remove)
        return self

    def __exit__(self, *exc_info):
        while self._remove:
            self._remove.pop()()
""",
}

_RENAMED = {  # honest-01's answers: locals, attributes and the helper class renamed, docstrings and comments rewritten
    "DigitsDataset": """\
class DigitsDataset(Dataset):
    \"\"\"The digits as (image, label) pairs: images float32 [1, 8, 8], unscaled; labels int64.\"\"\"

    def __init__(self, images, labels):
        # keep everything as tensors once, so indexing is cheap
        self.images = torch.as_tensor(images).float().view(-1, 1, 8, 8)
        self.labels = torch.as_tensor(labels).long()

    def __len__(self):
        return self.labels.shape[0]

    def __getitem__(self, index):
        return self.images[index], self.labels[index]
""",
    "fit_normalizer": """\
class PixelStandardiser(nn.Module):
    \"\"\"(x - mean) / std with statistics registered as buffers.\"\"\"

    def __init__(self, mu, sigma):
        super().__init__()
        self.register_buffer("mu", mu)
        self.register_buffer("sigma", sigma)

    def forward(self, images):
        return (images - self.mu) / self.sigma


def fit_normalizer(train_images):
    \"\"\"Per-pixel statistics of the training split, wrapped in a module.\"\"\"
    batch = torch.as_tensor(train_images).float().view(-1, 1, 8, 8)
    mu = batch.mean(dim=0, keepdim=True)
    sigma = batch.std(dim=0, keepdim=True)
    sigma[sigma == 0] = 1.0  # constant pixels: avoid dividing by zero
    return PixelStandardiser(mu, sigma)
""",
    "DigitCNN": """\
class DigitCNN(nn.Module):
    \"\"\"A two-layer convolutional classifier for 8x8 digits; the normaliser (if any) runs first.\"\"\"

    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.preprocess = normalizer if normalizer is not None else nn.Identity()
        self.stack = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(16 * 4 * 4, num_classes),
        )

    def forward(self, images):
        return self.stack(self.preprocess(images))
""",
    "train_epoch_ce": TE + """\
    \"\"\"A single epoch with cross-entropy; returns the loss averaged over examples.\"\"\"
    model.train()
    loss_function = nn.CrossEntropyLoss()
    loss_sum, count = 0.0, 0
    for batch_x, batch_y in loader:
        batch_x, batch_y = batch_x.to(device), batch_y.to(device)
        optimizer.zero_grad()
        scores = model(batch_x)
        batch_loss = loss_function(scores, batch_y)
        batch_loss.backward()
        if max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)  # clip the global norm
        optimizer.step()
        if scheduler is not None:
            scheduler.step()  # one schedule step per update
        loss_sum += batch_loss.item() * batch_x.size(0)
        count += batch_x.size(0)
    return loss_sum / count
""",
    "predict_digits": PD + """\
    \"\"\"Predicted classes for raw images (eval mode, no autograd, mode restored).\"\"\"
    where = next(model.parameters()).device
    batch = torch.as_tensor(images, dtype=torch.float32).to(where).view(-1, 1, 8, 8)
    mode_before = model.training
    model.eval()
    with torch.no_grad():
        classes = model(batch).argmax(dim=1)
    model.train(mode_before)
    return classes
""",
    "StepLedger": """\
class StepLedger:
    \"\"\"Records, step by step, how the model ran, what each gradient held, and what the optimizer moved.\"\"\"

    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []
        self.hook_handles = []

    def __enter__(self):
        self.named = dict(self.model.named_parameters())
        self.trainable = [n for n, p in self.named.items() if p.requires_grad]
        self._start_record()
        self.hook_handles.append(self.model.register_forward_pre_hook(self._mode_seen))
        for name in self.trainable:
            self.hook_handles.append(self.named[name].register_hook(self._grad_watcher(name)))
        self.hook_handles.append(self.optimizer.register_step_pre_hook(self._remember))
        self.hook_handles.append(self.optimizer.register_step_post_hook(self._compare))
        return self

    def __exit__(self, *exc_info):
        for handle in self.hook_handles:
            handle.remove()
        self.hook_handles = []

    def _start_record(self):
        self.record = {"modes": [], "grads": {n: [] for n in self.trainable}}

    def _mode_seen(self, module, inputs):
        self.record["modes"].append("train" if module.training else "eval")

    def _grad_watcher(self, name):
        tensor = self.named[name]

        def watcher(grad):
            # .grad still holds what was there before this backward
            if tensor.grad is None:
                self.record["grads"][name].append("none")
            elif torch.all(tensor.grad == 0):
                self.record["grads"][name].append("zero")
            else:
                self.record["grads"][name].append("nonzero")

        return watcher

    def _remember(self, optimizer, args, kwargs):
        self.previous = {n: p.detach().clone() for n, p in self.named.items()}

    def _compare(self, optimizer, args, kwargs):
        moved = [n for n, p in self.named.items() if not torch.equal(p.detach(), self.previous[n])]
        self.record["changed"] = sorted(moved)
        self.steps.append(self.record)
        self._start_record()
""",
}


def _taken(classmate: str, cells=None) -> dict[str, str]:
    return {cell: classmate for cell in (cells or _ALL)}


COPIES = [
    Copy("copier-renamed", "locals, attributes and a class renamed; docstrings and comments rewritten",
         _taken("honest-01"), _RENAMED),
    Copy("copier-sequential", "an explicit forward as nn.Sequential, F.relu as nn.ReLU modules, batch indexing as "
         "unpacking, a nested class hoisted", _taken("honest-02"), _SEQUENTIAL),
    Copy("copier-looped", "layers built in a loop, a while loop as a for with an unused enumerate index, "
         "temporaries inlined, try/finally", _taken("honest-07"), _LOOPED),
    Copy("copier-helpers", "the epoch split into a step function, a device helper and an accumulator class; "
         "nn.Sequential as an explicit forward with F; comments stripped", _taken("honest-05"), _HELPERS),
    Copy("copier-guards", "branches rewritten: nested ifs, negated conditions, a flag inlined, one exit",
         _taken("honest-13"), _GUARDS),
    Copy("copier-hoisted", "constants hoisted to module level, docstrings rewritten", _taken("honest-10"), _HOISTED),
    Copy("copier-debug", "dead code, unused counters and debugging prints added", _taken("honest-11"), _DEBUG),
    Copy("copier-reorder", "independent statements and methods reordered", _taken("honest-12"), _REORDERED),
    Copy("copier-spellings", "equivalent PyTorch and Python spellings, an unused enumerate index dropped",
         _taken("honest-04"), _SPELLINGS),
    Copy("chain-b", "renamed, a walrus and a tuple assignment expanded (first link of a chain)",
         _taken("honest-06"), _CHAIN_B),
    Copy("chain-c", "a conv loop written out, a device helper, lambdas as functions (second link of a chain)",
         _taken("chain-b", _ALL[2:]), _CHAIN_C, _CHAIN_C_OWN),
    Copy("copier-merge", "two classmates merged: defensive checks dropped, a partial as a closure, "
         "inference_mode as no_grad", {**_taken("honest-08", _ALL[:3]), **_taken("honest-09", _ALL[3:])}, _MERGE),
    Copy("copier-half", "half copied: a Sequential as an explicit forward, clipping and scheduling in helpers",
         _taken("honest-03", ("DigitCNN", "train_epoch_ce")), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The held-out cohort of module 09 (twenty-nine students); ``repair_run`` is every student's starter code."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
