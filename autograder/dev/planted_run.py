"""Run a planted answer and its normalised form on the exercise's inputs and say whether they do the same.

``similarity`` shows the normalised code to instructors as what students wrote; it may set names, layout
and spelling aside, never what the code does.  :func:`differences` runs every answer of a planted cohort
twice, as submitted and as normalised, on the same freshly made inputs (the same seeds), and lists the
answers whose results, or whose models and optimizers afterwards, differ.  :func:`unlike_their_source` runs a
copier's answers beside the classmate's they were taken from, and :func:`unlike_the_reference` runs each
answer beside the course's, where every correct answer must do the same (module 08's seeding and loads).

Module 08's loads read a checkpoint written by the student's own ``save_checkpoint`` (``own``), so that a
resume is judged in the format its author chose; what a save wrote is compared as the file's contents, and
what a call leaves in Python's, NumPy's and torch's global RNGs is compared too.  Module 02's tensors are
compared with their autograd record (``requires_grad``, leaf or not, ``grad_fn``, ``.grad``), and what
``leaves_of`` returns as which of the graph's tensors it names, in any order.

Module 09's answers run on made-up digits (whole numbers 0-16 with constant borders, from a seeded generator)
and on several argument sets each (:func:`_digits_cases`): both image layouts; the epoch from eval mode, with a
scheduler and clipping, with ``max_grad_norm=0.0`` (given, so clipped) and with a scheduler alone, always on the
course's CNN; predictions from a model behind a Dropout in either mode, with the mode, grad mode and input each
forward saw; a ledger entered around healthy, stale, frozen, partly optimised and raising loops.  A module is
compared as its outputs on fixed images in both modes, its state as a multiset of tensors and its trainable
parameters' count, so that names and registration order may differ and initialisation order may not.

Module 01b's answers run in float64 (so that gradients written in other orders agree to 1e-6) on a network of
other sizes than the lesson's; the loss on logits of exactly 0, ordinary ones and ones up to 1e4 in size, compared
with its gradient with respect to the logits as well as its value (a max(z, 0) written with clamp or relu has the
right value and the wrong slope at 0); the step on parameters with and without a ``.grad``, with and without a
buffer, so that both of SGD's rules run and a buffer changed in place shows in the arguments afterwards.
"""

from __future__ import annotations

import atexit
import math
import shutil
import tempfile

PRELUDE = """\
import copy
import math
import random
from pathlib import Path
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Subset, RandomSampler, SequentialSampler, TensorDataset, random_split
"""


def _data(n: int = 22, features: int = 3, seed: int = 0):
    import torch

    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=g)
    y = (x.sum(dim=1, keepdim=True) > 0).float()
    return x, y


def _model(features: int = 3, seed: int = 1, dropout: bool = False):
    import torch
    from torch import nn

    torch.manual_seed(seed)
    layers = [nn.Linear(features, 4), nn.BatchNorm1d(4), nn.ReLU()]
    if dropout:
        layers.append(nn.Dropout(0.3))
    return nn.Sequential(*layers, nn.Linear(4, 1))


def _loader(shuffle: bool = False, batch_size: int = 5):
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    x, y = _data()
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=shuffle,
                      generator=torch.Generator().manual_seed(3) if shuffle else None)


RESUMING = "08-reproducible-training"
LEDGER = "02-autograd-ledger"
MODULES = "03-nn-module"
BY_HAND = "01b-by-hand"
TENSORS = "01-tensors"
DIGITS = "09-debug-a-real-run"
_scratch: list[str] = []


def _checkpoint_path() -> str:
    """One scratch file for module 08's checkpoints, the same path on every call (removed at exit)."""
    if not _scratch:
        _scratch.append(tempfile.mkdtemp(prefix="planted-checkpoints-"))
        atexit.register(shutil.rmtree, _scratch[0], True)
    return f"{_scratch[0]}/checkpoint.pt"


def _resume_inputs(save) -> tuple:
    """A model with Dropout and an Adam optimizer trained two steps on a shuffled loader, saved by ``save``
    after epoch 1; then fresh objects and other RNG states, as a new process would have: the load's arguments."""
    import random

    import numpy as np
    import torch

    def objects(seed: int):
        generator = torch.Generator().manual_seed(seed)
        model = _model(dropout=True, seed=seed)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        return model, optimizer, generator

    random.seed(21)
    np.random.seed(21)
    torch.manual_seed(21)
    model, optimizer, generator = objects(2)
    x, y = _data()
    for _ in range(2):
        order = torch.randperm(len(x), generator=generator)[:8]
        optimizer.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x[order]), y[order])
        loss.backward()
        optimizer.step()
    path = _checkpoint_path()
    save(path, model, optimizer, 1, generator)
    random.seed(99)
    np.random.seed(99)
    torch.manual_seed(99)
    fresh, fresh_optimizer, fresh_generator = objects(5)
    return path, fresh, fresh_optimizer, fresh_generator


def _resuming(cell: str, namespace: dict | None) -> tuple:
    import torch

    if cell == "seed_everything":
        return (5,)
    if cell == "save_checkpoint":
        _, model, _, generator = _resume_inputs(lambda *args: None)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        model(_data()[0]).sum().backward()
        optimizer.step()  # Adam's moments, for the save to hold
        return _checkpoint_path(), model, optimizer, 3, generator
    if cell == "load_checkpoint":
        return _resume_inputs((namespace or {})["save_checkpoint"])
    if cell == "repair_load_checkpoint":
        from ..checks.m08_reproducible_training import save_team_checkpoint

        return _resume_inputs(save_team_checkpoint)
    raise KeyError(cell)


_ledger_leaves: list = []  # the leaves module 02's last leaves_of input was built from, by position


def _ledger(cell: str) -> tuple:
    """Module 02's arguments: tiny float32 tensors and a small model, made afresh from fixed seeds.

    ``leaves_of``'s graph reads one leaf along many paths, two leaves of equal value, a constant, a computed
    tensor that retains its grad, a frozen parameter and a model's parameters; the leaves it may find are kept
    in ``_ledger_leaves`` so that a result can be compared as the positions it names, in any order."""
    import torch
    from torch import nn

    g = torch.Generator().manual_seed(13)

    def f(t):  # a scalar of every entry, smooth, float64 in for float64 in
        return (t.sin() * t).sum() + (t ** 2).prod() + torch.logsumexp(t.flatten() * 2, dim=0)

    if cell == "grad_of":
        x = torch.randn(2, 3, generator=g)
        return f, x
    if cell == "numerical_grad":
        return f, torch.randn(2, 3, generator=g), 1e-2
    if cell == "grad_report":
        torch.manual_seed(3)
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.Linear(2, 2))
        model[3].requires_grad_(False)
        w, b = model[0].weight, model[0].bias
        w.grad = torch.randn(w.shape, generator=g)
        b.grad = torch.zeros(b.shape)
        b.grad[1] = -0.0
        model[2].weight.grad = torch.tensor([[0.5, -0.5, 0.0, 0.0], [0.0, 0.0, 0.25, -0.25]])  # sums to zero
        model[2].bias.grad = torch.tensor([0.0, 2.0 ** -12])
        return (model,)
    if cell == "leaves_of":
        torch.manual_seed(4)
        a = torch.randn(3, generator=g).requires_grad_()
        b = torch.randn(3, generator=g).requires_grad_()
        s1 = torch.tensor(0.5, requires_grad=True)
        s2 = torch.tensor(0.5, requires_grad=True)  # another leaf, equal in value
        frozen = torch.randn(3, generator=g)  # a constant
        layer = nn.Linear(3, 2)
        layer.bias.requires_grad_(False)
        h = a
        for _ in range(4):  # every level reads h twice
            h = h * 0.5 + torch.sin(h)
        m = torch.tanh(a * b)
        m.retain_grad()
        t = (h * b).sum() + (m * a).sum() + s1 * s2 + s2 + (frozen * b.exp()).sum() + layer(a).sum()
        _ledger_leaves[:] = [a, b, s1, s2, frozen, layer.weight, layer.bias, h, m, t]
        return (t,)
    if cell == "stable_softmax":
        # float64, so that softmaxes written differently agree to 1e-6; large enough that exp alone overflows
        z = (torch.randn(3, 5, generator=g, dtype=torch.float64) * 300 + 500).requires_grad_()
        return (z * 1.0,)
    raise KeyError(cell)


def _ledger_observed(value):
    """What can be compared of module 02's values: a tensor with its autograd record (whether it requires
    grad, is a leaf, has a grad_fn, and its .grad), a model's parameters the same way, a list of leaves as the
    sorted positions they hold in ``_ledger_leaves`` (-1 for any other tensor), repeats kept."""
    import torch

    if isinstance(value, torch.Tensor):
        values = value.detach().clone()
        grad = value.grad if value.is_leaf or value.retains_grad else None
        return ("tensor", values, value.requires_grad, value.is_leaf, value.grad_fn is None,
                None if grad is None else grad.detach().clone())
    if isinstance(value, torch.nn.Module):
        return ("module", value.training, [(n, _ledger_observed(p)) for n, p in value.named_parameters()])
    if isinstance(value, list) and value and all(isinstance(v, torch.Tensor) for v in value) and _ledger_leaves:
        positions = [next((i for i, leaf in enumerate(_ledger_leaves) if leaf is v), -1) for v in value]
        return ("leaves", sorted(positions))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_ledger_observed(v) for v in value])
    return _observed(value)


# Module 09's seeds go to the CPU generator alone (torch.default_generator): torch.manual_seed also queues every
# accelerator's seeding with a recorded stack, which costs a millisecond a call here.


def _digit_images(n: int = 64, seed: int = 17):
    """``n`` made-up digit images ``[n, 64]`` (float64 NumPy, whole numbers 0-16, the first and last column 0 in
    every image, as the real digits' borders are) and labels ``[n]`` (int64 NumPy, 0-9), from a seeded generator."""
    import numpy as np

    rng = np.random.default_rng(seed)
    images = rng.integers(0, 17, size=(n, 8, 8)).astype(np.float64)
    images[:, :, 0] = images[:, :, -1] = 0.0
    return images.reshape(n, 64), rng.integers(0, 10, size=n).astype(np.int64)


def _digits_reference() -> dict:
    """The course's ``fit_normalizer`` and ``DigitCNN`` (read once)."""
    from . import nbtools
    from .planted import REPO

    if not _digits_ref:
        solution = nbtools.read(REPO / "solutions" / DIGITS / f"{DIGITS}.ipynb")
        exec(PRELUDE, _digits_ref)  # noqa: S102 - the course's own code
        for cell in ("fit_normalizer", "DigitCNN"):
            exec(nbtools.strip_solution_markers(nbtools.answer_cells(solution)[cell].source), _digits_ref)  # noqa: S102
    return _digits_ref


_digits_ref: dict = {}


def _digits_model(dropout: bool = False, trained: bool = False):
    """The reference's ``DigitCNN`` with the reference's normaliser, seeded, so that every student's loop or
    prediction works on the same model (behind a Dropout when ``dropout``, so that the mode shows; ``trained``:
    fitted for a few steps to the made-up images, once, so that its labels vary)."""
    import torch
    from torch import nn

    ref = _digits_reference()
    images, _ = _digit_images(48, seed=5)
    torch.default_generator.manual_seed(3)
    model = ref["DigitCNN"](10, ref["fit_normalizer"](images))
    if trained:
        if "trained" not in ref:
            x, y = _digit_images()
            x = torch.tensor(x, dtype=torch.float32).reshape(-1, 1, 8, 8)
            opt = torch.optim.Adam(model.parameters(), lr=0.02)
            for _ in range(40):
                opt.zero_grad()
                nn.functional.cross_entropy(model(x), torch.tensor(y)).backward()
                opt.step()
            ref["trained"] = {k: v.detach().clone() for k, v in model.state_dict().items()}
        model.load_state_dict(ref["trained"])
    return nn.Sequential(nn.Dropout(0.5), model) if dropout else model


def _digits_cases(cell: str, namespace: dict | None = None) -> list[tuple]:
    """Module 09's argument tuples for ``cell``, made afresh from fixed seeds: the first is :func:`inputs`'."""
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    images, labels = _digit_images()
    if cell == "DigitsDataset":
        return [(images, labels), (torch.tensor(images).reshape(-1, 8, 8), torch.tensor(labels))]
    if cell == "fit_normalizer":
        return [(images,), (torch.tensor(images, dtype=torch.float32).reshape(-1, 8, 8),)]
    if cell == "DigitCNN":
        # the course's normaliser fitted on other images: every DigitCNN gets the same one (a class of this
        # module's own would be a reference implementation to the course's watch, and its forward anyone's)
        return [(), (7, _digits_reference()["fit_normalizer"](_digit_images(40, seed=31)[0]))]
    if cell == "train_epoch_ce":
        def problem(optimizer="sgd", eval_first=False):
            model = _digits_model()
            if eval_first:
                model.eval()
            data = TensorDataset(torch.tensor(images, dtype=torch.float32).reshape(-1, 1, 8, 8),
                                 torch.tensor(labels))
            loader = DataLoader(data, batch_size=24, shuffle=True, generator=torch.Generator().manual_seed(9))
            if optimizer == "sgd":
                opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
            else:
                opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
            return model, loader, opt

        model, loader, opt = problem(eval_first=True)
        cases = [(model, loader, opt, "cpu")]
        model, loader, opt = problem("adamw")
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0 / (1.0 + 0.5 * step))
        cases.append((model, loader, opt, torch.device("cpu"), sched, 0.05))
        model, loader, opt = problem()
        cases.append((model, loader, opt, "cpu", None, 0.0))  # given, so clipped: to zero
        model, loader, opt = problem()
        cases.append((model, loader, opt, "cpu", torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)))
        return cases
    if cell == "predict_digits":
        trained = _digits_model(dropout=True, trained=True)
        evaluating = _digits_model(dropout=True, trained=True).eval()
        return [(trained, images[:20]), (evaluating, torch.tensor(images[20:40]).reshape(-1, 8, 8)),
                (_digits_model(dropout=True, trained=True), images[:1]),
                (_digits_model(dropout=True, trained=True).eval(), torch.tensor(images[:3], dtype=torch.float32))]
    if cell == "StepLedger":
        def setup(seed, frozen=(), only_last=False, lr=0.1):
            torch.default_generator.manual_seed(seed)
            model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Dropout(0.2), nn.Linear(4, 2))
            for name, p in model.named_parameters():
                p.requires_grad_(name not in frozen)
            params = model[3].parameters() if only_last else model.parameters()
            return model, torch.optim.SGD(params, lr=lr, momentum=0.9)

        return [setup(1), setup(2, frozen=("0.weight",)), setup(3, only_last=True), setup(4, lr=0.0), setup(5)]
    raise KeyError(cell)


def _digits_loop(n: int, model, opt) -> None:
    """The loops run under a learner's ledger (one per case of :func:`_digits_cases`): healthy, stale gradients
    with a frozen weight, validation in eval mode between steps with part of the model outside the optimizer,
    accumulation over two micro-batches with a step that moves nothing, and a block that raises."""
    import torch
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(40 + n)
    batches = [(torch.randn(5, 3, generator=g), torch.randn(5, 2, generator=g)) for _ in range(4)]
    for k, (x, y) in enumerate(batches):
        if n in (0, 4):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
        elif n == 1:
            F.mse_loss(model(x), y).backward()
            opt.step()
        elif n == 2:
            opt.zero_grad(set_to_none=False)
            model.train()
            F.mse_loss(model(x), y).backward()
            opt.step()
            model.eval()
            with torch.no_grad():
                model(x)
        else:
            (F.mse_loss(model(x), y) / 2).backward()
            if k % 2:
                opt.step()
                opt.zero_grad()
        if n == 4 and k == 1:
            raise ZeroDivisionError("planted")


def _hooks_on(model, opt) -> int:
    return (sum(len(m._forward_pre_hooks) + len(m._forward_hooks) for m in model.modules())
            + sum(len(p._backward_hooks or {}) + len(getattr(p, "_post_accumulate_grad_hooks", None) or {})
                  for p in model.parameters())
            + len(opt._optimizer_step_pre_hooks) + len(opt._optimizer_step_post_hooks))


def _digits_observed(value):
    """What can be compared of module 09's values: a dataset as its length and every item, a module as its mode,
    its outputs on fixed raw images (train and eval mode, seeded), its state as a multiset of tensors (names and
    order set aside) and its trainable parameters' count, a scheduler as its count and learning rates."""
    import torch

    if isinstance(value, torch.utils.data.Dataset) and not isinstance(value, torch.nn.Module):
        return ("dataset", len(value), [_observed(tuple(value[i])) for i in range(len(value))])
    if isinstance(value, torch.nn.Module):
        state = sorted((t.detach().clone() for t in value.state_dict().values()),
                       key=lambda t: (tuple(t.shape), float(t.double().sum())))
        x = torch.tensor(_digit_images(6, seed=23)[0], dtype=torch.float32).reshape(-1, 1, 8, 8)
        training = value.training
        outs = []
        for mode in (True, False):
            value.train(mode)
            torch.default_generator.manual_seed(29)
            with torch.no_grad():
                outs.append(_observed(value(x)))
        value.train(training)
        return ("module", training, outs, [_observed(t) for t in state],
                sum(p.requires_grad for p in value.parameters()))
    if isinstance(value, torch.optim.lr_scheduler.LRScheduler):
        return ("scheduler", value.last_epoch, value.get_last_lr())
    if isinstance(value, torch.optim.Optimizer):
        return ("optimizer", [_observed(p) for g in value.param_groups for p in g["params"]],
                _observed(value.state_dict()["state"]), [g["lr"] for g in value.param_groups])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_digits_observed(v) for v in value])
    return _observed(value)


def _digits_run(cell: str, answer, namespace: dict) -> list:
    """Module 09's answer ``answer`` run on every case of ``cell``: per case, what it returned (a ledger as its
    records and the hooks left after its block) and its arguments afterwards, or what it raised."""
    import warnings

    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tensors this small run faster on one thread than on a shared machine's several
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # NumPy's, on answers that call np.asarray(tensor)
            return _digits_cases_run(cell, answer, namespace)
    finally:
        torch.set_num_threads(threads)


def _digits_cases_run(cell: str, answer, namespace: dict) -> list:
    import torch

    observed = []
    for n, args in enumerate(_digits_cases(cell, namespace)):
        torch.default_generator.manual_seed(7)
        seen = []
        if cell == "predict_digits":
            args[0].register_forward_pre_hook(
                lambda m, a, seen=seen: seen.append((m.training, torch.is_grad_enabled(), tuple(a[0].shape),
                                                     a[0].dtype)))
        try:
            result = answer(*args)
            if cell == "StepLedger":
                model, opt = args
                raised = None
                try:
                    with result as ledger:
                        _digits_loop(n, model, opt)
                except ZeroDivisionError as error:
                    raised = str(error)
                observed.append(("ledger", _observed(getattr(ledger, "steps", None)), raised, _hooks_on(model, opt),
                                 _observed(model), _observed(opt)))
                continue
        except Exception as error:  # noqa: BLE001 - raising is a behaviour to compare too
            observed.append(("raised", type(error).__name__))
            continue
        observed.append((_digits_observed(result), _digits_observed(list(args)), seen))
    return observed


def inputs(module: str, cell: str, namespace: dict | None = None) -> tuple:
    """Fresh arguments for ``cell`` of ``module``, the same on every call (module 08's load writes its
    checkpoint with ``namespace``'s ``save_checkpoint``)."""
    import torch
    from torch import nn

    if module == RESUMING:
        return _resuming(cell, namespace)
    if module == LEDGER:
        return _ledger(cell)
    if module == DIGITS:
        return _digits_cases(cell, namespace)[0]

    if module == BY_HAND:
        return _by_hand_inputs(cell)
    if module == TENSORS:
        return _tensors_inputs(cell)[0]

    x, y = _data()
    if module == MODULES:
        return _modules_inputs(cell)
    if module == "04-five-line-step":
        model = _model()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = nn.MSELoss()
        return {
            "train_step": (model, x, y, opt, loss),
            "train_epoch": (model, _loader(), opt, loss, "cpu"),
            "accumulate_step": (model, [(x[:8], y[:8]), (x[8:16], y[8:16])], opt, loss),
            "overfit_one_batch": (model, x, y, opt, loss, 4),
            "repair_train_epoch": (model, _loader(), opt, loss, "cpu"),
        }[cell]
    if module == "05-train-vs-eval":
        model = _model(dropout=True)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = nn.BCEWithLogitsLoss()
        return {
            "evaluate": (model, _loader(), loss, "cpu"),
            "accuracy": (model, _loader(), "cpu"),
            "predict_proba": (model, x),
            "fit": (model, _loader(shuffle=True), _loader(), opt, loss, 2, "cpu"),
            "repair_evaluate": (model, _loader(), loss, "cpu"),
        }[cell]
    if module == "06-failure-modes":
        from torch.utils.data import TensorDataset

        model = _model(features=3)
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        return {
            "make_loaders": (TensorDataset(x, y), 4, 0.25, torch.Generator().manual_seed(5)),
            "lr_sweep": (lambda: _model(), x, y, [0.01, 0.5, 1e6], 3),
            "pick_lr": ({0.1: 0.5, 0.01: 0.7, 1.0: math.inf, 10.0: math.nan, 0.5: 0.45},),
            "overfit_diagnosis": (model, x, y, opt, nn.BCEWithLogitsLoss(), 12),
            "health_check": (model, _loader(shuffle=True), opt, nn.BCEWithLogitsLoss()),
        }[cell]
    raise KeyError(module)


def _modules_inputs(cell: str) -> tuple:
    """Module 03's arguments: a model with a frozen layer, a tied weight and a layer the optimizer was built
    without (what ``count_parameters``, ``freeze`` and ``untrained_parameters`` must tell apart)."""
    import torch
    from torch import nn

    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4), nn.Linear(4, 1))
    tied = nn.Linear(4, 4)
    tied.weight = model[2].weight  # one tensor, two names
    model.add_module("tied", tied)
    model[0].weight.requires_grad_(False)
    opt = torch.optim.SGD(list(model[0].parameters()) + list(model[2].parameters()), lr=0.1)
    model.add_module("late", nn.Linear(1, 1))  # added after the optimizer was built
    return {
        "MLP": ([3, 5, 4, 2], 0.3),
        "plan_mlp": ([3, 5, 4, 2], 0.3),
        "count_parameters": (model, True),
        "freeze": (nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 1))),),
        "untrained_parameters": (model, opt),
    }[cell]


def _by_hand_inputs(cell: str) -> tuple:
    """Module 01b's arguments, made afresh from a fixed seed: the network's four tensors with a batch (float64, 3
    inputs, 5 hidden units, 7 examples of both labels); logits of exactly 0, ordinary and up to 1e4 in size with
    both labels (float64, requiring grad); four parameters for one step: two with a ``.grad`` (one with a buffer
    from an earlier step, one on its first step), two without (one that never had a buffer, one that keeps
    its own)."""
    import torch

    g = torch.Generator().manual_seed(17)
    f64 = torch.float64
    if cell == "manual_gradients":
        features, width, n = 3, 5, 7
        params = {
            "hidden.weight": torch.randn(width, features, generator=g, dtype=f64) * 0.8,
            "hidden.bias": torch.randn(width, generator=g, dtype=f64) * 0.5,
            "out.weight": torch.randn(1, width, generator=g, dtype=f64),
            "out.bias": torch.randn(1, generator=g, dtype=f64) * 0.5,
        }
        x = torch.randn(n, features, generator=g, dtype=f64) * 1.5
        y = (torch.rand(n, 1, generator=g) < 0.5).to(f64)
        y[0], y[-1] = 0.0, 1.0
        return params, x, y
    if cell == "bce_with_logits":
        z = torch.tensor([[0.0, 0.0, 1.5, -2.25, 100.0, -100.0], [1e4, -1e4, 30.0, -30.0, 0.3, -0.7]], dtype=f64,
                         requires_grad=True)
        y = torch.tensor([[0.0, 1.0, 1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]], dtype=f64)
        return z, y
    if cell == "sgd_momentum_step":
        shapes = [(4, 3), (4,), (3,), (1, 4)]
        params = [torch.randn(shape, generator=g).requires_grad_() for shape in shapes]
        for p in params[:2]:
            p.grad = torch.randn(p.shape, generator=g)
        buffers = [torch.randn(shapes[0], generator=g), None, None, torch.randn(shapes[3], generator=g)]
        return params, buffers, 0.1, 0.9
    raise KeyError(cell)


def _by_hand_observed(cell: str, result, args) -> tuple:
    """Module 01b's result and arguments afterwards, and for the loss its gradient with respect to the logits too
    (``("gradient", ...)`` when the loss is not differentiable or raises in backward)."""
    import torch

    observed = _observed(result), _observed(list(args))
    if cell != "bce_with_logits":
        return observed
    if not isinstance(result, torch.Tensor) or not result.requires_grad:
        return (*observed, ("gradient", "none"))
    try:
        (grad,) = torch.autograd.grad(result.sum(), args[0], allow_unused=True)
    except Exception as error:  # noqa: BLE001 - raising is a behaviour to compare too
        return (*observed, ("gradient", "raised", type(error).__name__))
    return (*observed, _observed(grad))


def _tensors_inputs(cell: str) -> list[tuple]:
    """Module 01's argument tuples for ``cell``, made afresh from a fixed seed (the first is :func:`inputs`'):
    ``make_blobs`` for 9 and 12 points from seeded generators on ``"cpu"``; ``standardize`` on float64 data of
    three features (scales 0.5 to 40, means far from 0) and of one; ``pairwise_sq_dists`` on float64 points
    ``[5, 3]`` against ``[4, 3]`` and one point against three; ``align_targets`` on ``[N]`` targets for ``[N, 1]``
    logits, ``[N, 1]`` for ``[N]``, a batch of one already aligned, and two of other element counts (``[10]`` for
    ``[5, 1]``, ``[3, 2]`` for ``[3]``), which must raise ``ValueError``."""
    import torch

    g = torch.Generator().manual_seed(23)
    f64 = torch.float64
    if cell == "make_blobs":
        return [(9, "cpu", torch.Generator().manual_seed(5)), (12, "cpu", torch.Generator().manual_seed(6))]
    if cell == "standardize":
        scale = torch.tensor([0.5, 3.0, 40.0], dtype=f64)
        shift = torch.tensor([-2.0, 0.0, 100.0], dtype=f64)
        return [(torch.randn(11, 3, generator=g, dtype=f64) * scale + shift,),
                (torch.randn(6, 1, generator=g, dtype=f64) * 2 + 1,)]
    if cell == "pairwise_sq_dists":
        return [(torch.randn(5, 3, generator=g, dtype=f64) * 2, torch.randn(4, 3, generator=g, dtype=f64) + 1),
                (torch.randn(1, 2, generator=g, dtype=f64), torch.randn(3, 2, generator=g, dtype=f64) * 3)]
    if cell == "align_targets":
        y = (torch.rand(6, generator=g) < 0.5).float()
        return [(torch.randn(6, 1, generator=g), y),
                (torch.randn(6, generator=g), y.reshape(6, 1).clone()),
                (torch.randn(1, 1, generator=g), y[:1].reshape(1, 1).clone()),
                (torch.randn(5, 1, generator=g), torch.zeros(10)),
                (torch.randn(3, generator=g), torch.zeros(3, 2))]
    raise KeyError(cell)


def _tensors_observed(cell: str, answer) -> list:
    """Module 01's answer ``answer`` run on every case of ``cell``: per case, what it returned and its arguments
    afterwards, or what it raised (a ``ValueError`` with whether its message names each argument's shape, as the
    module's check reads a message)."""
    import torch

    from ..checks.m01_tensors import _shape_mentioned

    observed = []
    for args in _tensors_inputs(cell):
        torch.default_generator.manual_seed(7)
        try:
            result = answer(*args)
        except ValueError as error:
            named = tuple(_shape_mentioned(str(error), tuple(a.shape)) for a in args if isinstance(a, torch.Tensor))
            observed.append(("raised", "ValueError", named))
            continue
        except Exception as error:  # noqa: BLE001 - raising is a behaviour to compare too
            observed.append(("raised", type(error).__name__))
            continue
        observed.append((_observed(result), _observed(list(args))))
    return observed


def _modules_observed(model) -> tuple:
    """An ``MLP`` as what it computes: its state, and its output on one batch in training (dropout drawn from a
    seeded generator) and in evaluation."""
    import torch

    x = torch.linspace(-1, 1, 12).reshape(4, 3)
    torch.manual_seed(13)
    trained = model.train()(x)
    evaluated = model.eval()(x)
    return _observed(model), _observed(trained), _observed(evaluated)


def _observed(value):
    """What can be compared of ``value``: tensors, numbers, containers, loaders as their batches, modules and
    optimizers as their state, generators as their state, a saved file as what it holds."""
    from pathlib import Path

    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        return ("tensor", value.detach().clone())
    if isinstance(value, torch.Generator):
        return ("generator", value.get_state())
    if isinstance(value, np.ndarray):
        return ("array", str(value.dtype), value.tolist())
    if isinstance(value, Path):
        if not value.is_file():
            return ("path", "no file")
        return ("file", _observed(torch.load(value, weights_only=False)))
    if isinstance(value, torch.nn.Module):
        return ("module", value.training, [_observed(t) for t in value.state_dict().values()],
                [_observed(p.grad) for p in value.parameters()])
    if isinstance(value, torch.optim.Optimizer):
        return ("optimizer", [_observed(p) for g in value.param_groups for p in g["params"]],
                _observed(value.state_dict()["state"]))
    if isinstance(value, torch.utils.data.DataLoader):
        torch.manual_seed(11)
        return ("loader", [_observed(b) for b in value])
    if isinstance(value, dict):
        return ("dict", sorted((repr(k), _observed(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(map(repr, value)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_observed(v) for v in value])
    if value is None or isinstance(value, (bool, int, float, str)):
        return ("value", value)
    return ("object", type(value).__name__)  # a generator, a function: what it is, not which one


def same(a, b) -> bool:
    import torch

    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
                and a.dtype == b.dtype and torch.allclose(a.double(), b.double(), rtol=1e-6, atol=1e-9, equal_nan=True))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _draws():
    """What the global RNGs hand out next (Python's, NumPy's, torch's)."""
    import random

    import numpy as np
    import torch

    return ("draws", random.random(), float(np.random.rand()), torch.rand(3))


#: What each run gave, by module, cell, source and the other answers it could call: the inputs are made afresh
#: from the same seeds every time, so an answer (a copy's normalised form is often its source's) runs once.
_RUNS: dict[tuple, object] = {}


def run(module: str, cell: str, source: str, reference: dict[str, str], own: dict[str, str] | None = None):
    """``(result, arguments afterwards)`` of ``source``'s ``cell`` on fresh inputs, or ``("raised", name)``;
    ``own`` (the student's other answers) stands in for the reference's where given.  For module 08, the
    global RNGs' next draws too."""
    others = tuple((other, code) for other, code in {**reference, **(own or {})}.items() if other != cell)
    key = (module, cell, source, others)
    if key not in _RUNS:
        _RUNS[key] = _run(module, cell, source, others)
    return _RUNS[key]


def _run(module: str, cell: str, source: str, others: tuple[tuple[str, str], ...]):
    import torch

    namespace: dict = {}
    exec(PRELUDE, namespace)  # noqa: S102 - the course's own planted answers
    for _, code in others:
        exec(code, namespace)  # noqa: S102 - what the answer may call (train_step, evaluate)
    exec(source, namespace)  # noqa: S102
    if module == DIGITS:
        return _digits_run(cell, namespace[cell], namespace)
    if module == TENSORS:
        return _tensors_observed(cell, namespace[cell])
    try:
        args = inputs(module, cell, namespace)
    except Exception as error:  # noqa: BLE001 - the student's own save_checkpoint, for a load
        return ("inputs raised", type(error).__name__)
    torch.manual_seed(7)
    try:
        result = namespace[cell](*args)
    except Exception as error:  # noqa: BLE001 - raising is a behaviour to compare too
        _ledger_leaves.clear()
        return ("raised", type(error).__name__)
    if module == RESUMING:
        return _observed(result), _observed(list(args)), _draws()
    if module == LEDGER:
        observed = _ledger_observed(result), _ledger_observed(tuple(args))
        _ledger_leaves.clear()
        return observed
    if module == MODULES and cell == "MLP":
        return _modules_observed(result), _observed(list(args))
    if module == BY_HAND:
        return _by_hand_observed(cell, result, args)
    return _observed(result), _observed(list(args))


def differences(module: str, answers: dict[str, dict[str, str]], stubs: dict[str, str],
                reference: dict[str, str], own: dict[str, dict[str, str]] | None = None) -> list[tuple[str, str]]:
    """``(cell, student)`` of every answer whose normalised form does not do what it does, or that the normaliser
    fails on (``own``: each student's answers, which their answer may call in place of the reference's)."""
    from ..cohort.views import normalise as norm
    from ..cohort.views.similarity import _normalised, stub_signatures

    signatures = stub_signatures(stubs)
    wrong = []
    for cell, by_student in answers.items():
        keep = norm.defined(stubs[cell])
        for student, source in sorted(by_student.items()):
            if source == stubs[cell]:
                continue
            mine = _own(student, own, stubs)
            normal, *_, failed = _normalised(source, frozenset(keep), signatures)  # as the page shows it
            if failed or not same(run(module, cell, source, reference, mine), run(module, cell, normal, reference, mine)):
                wrong.append((cell, student))
    return wrong


def _own(student: str, own: dict[str, dict[str, str]] | None, stubs: dict[str, str]) -> dict[str, str]:
    """The answers ``student`` wrote (not the release's stubs), from ``own`` ``{student: {cell: source}}``."""
    return {cell: source for cell, source in (own or {}).get(student, {}).items() if source != stubs.get(cell)}


def by_student(answers: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """``{student: {cell: source}}`` from a cohort's ``{cell: {student: source}}``."""
    out: dict[str, dict[str, str]] = {}
    for cell, answers_of in answers.items():
        for student, source in answers_of.items():
            out.setdefault(student, {})[cell] = source
    return out


def unlike_their_source(module: str, answers: dict[str, dict[str, str]], stubs: dict[str, str],
                        reference: dict[str, str], copies) -> list[tuple[str, str, str]]:
    """``(cell, copier, classmate)`` of every copied answer that does not do, on the exercise's inputs, what the
    answer it was taken from does (each run with its own author's other answers)."""
    own = by_student(answers)
    wrong = []
    for c in copies:
        for cell, classmate in c.taken.items():
            copied, source = answers[cell][c.copier], answers[cell][classmate]
            if copied == source:
                continue
            if not same(run(module, cell, copied, reference, _own(c.copier, own, stubs)),
                        run(module, cell, source, reference, _own(classmate, own, stubs))):
                wrong.append((cell, c.copier, classmate))
    return wrong


def unlike_the_reference(module: str, answers: dict[str, dict[str, str]], stubs: dict[str, str],
                         reference: dict[str, str], cells) -> list[tuple[str, str]]:
    """``(cell, student)`` of every answer of ``cells`` that does not do what the course's answer does (a load
    run after the student's own save: the resume must come out the same whatever the file's layout)."""
    own = by_student(answers)
    wrong = []
    for cell in cells:
        want = run(module, cell, reference[cell], reference)
        for student, source in sorted(answers[cell].items()):
            if source != stubs[cell] and not same(run(module, cell, source, reference, _own(student, own, stubs)), want):
                wrong.append((cell, student))
    return wrong


COHORTS = ("planted", "planted_05", "planted_05b", "planted_05c", "planted_06", "planted_06b", "planted_08",
           "planted_02", "planted_09", "planted_03", "honest_06", "planted_01b", "planted_01c",
           "planted_01", "planted_01x", "planted_03x", "planted_02x", "planted_04x")


def check(name: str) -> list[tuple[str, str]]:
    """:func:`differences` for every distinct answer of the planted cohort ``autograder.dev.<name>``."""
    import importlib

    from . import nbtools
    from .planted import REPO

    module = importlib.import_module(f"{__package__}.{name}")
    cohort = module.planted_cohort()
    solution = nbtools.read(REPO / "solutions" / module.MODULE / f"{module.MODULE}.ipynb")
    reference = {cell: nbtools.strip_solution_markers(c.source) for cell, c in nbtools.answer_cells(solution).items()}
    distinct = {cell: {source: student for student, source in sorted(by.items())} for cell, by in cohort.answers.items()}
    answers = {cell: {student: source for source, student in by.items()} for cell, by in distinct.items()}
    return differences(module.MODULE, answers, cohort.stubs, reference, by_student(cohort.answers))


def main(argv: list[str]) -> int:
    """``python -m autograder.dev.planted_run [COHORT ...]``: every planted cohort (or those named) run as
    submitted and as normalised; prints the answers that differ and exits 1 when any does."""
    import contextlib
    import io

    wrong = 0
    for name in argv or COHORTS:
        with contextlib.redirect_stdout(io.StringIO()):  # the answers' own prints
            found = check(name)
        wrong += len(found)
        print(f"{name}: {'every normalised answer does what it did' if not found else found}")
    return 1 if wrong else 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
