"""Checks for module 08-reproducible-training: same run, same numbers.

The resume check trains with Dropout (torch's RNG), a shuffled loader (the
DataLoader's generator), NumPy noise and a Python ``random`` jitter, so every
piece of RNG state matters.  save_checkpoint's check looks for every owner's state
at the save in the file it wrote, whatever its layout; load_checkpoint's check
compares each owner's state right after loading with its state at the save (only
the owners the file holds, so that a fault of the save is charged to the save
alone), then trains N/2 more epochs, which must agree bitwise on CPU with N epochs
run straight.
"""

from __future__ import annotations

import contextlib
import random
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ..core import Incorrect, LearnerRaised, NotAttempted, call, describe, fail, graded
from ..devices import each_device, manual_seed
from ..hints import hint_for, solution_for
from ..starters import REPAIR_LOAD_CHECKPOINT
from ._training import blobs, make_loss, make_model, make_optimizer

# --------------------------------------------------------------------------
# seed_everything


def _and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _draws(device) -> dict:
    out = {"python": random.random(), "numpy": float(np.random.rand()), "torch": torch.rand(3)}
    if device == "cuda":
        out["cuda"] = torch.rand(3, device="cuda").cpu()
    return out


def _same_draws(a: dict, b: dict) -> list[str]:
    return [k for k in a if not (torch.equal(a[k], b[k]) if isinstance(a[k], torch.Tensor) else a[k] == b[k])]


@graded("seed_everything")
def seed_everything_rngs(seed_everything, seed: int = 0, *, notes):
    """Seeds Python, NumPy and torch (and CUDA); returns a seeded torch.Generator"""
    for device in each_device(notes):
        g1 = call(seed_everything, seed)
        first = _draws(device)
        if not isinstance(g1, torch.Generator):
            fail(f"seed_everything({seed}) returned {describe(g1)}.", "the generator for the DataLoaders.",
                 "return a torch.Generator seeded from `seed`.", code="no_generator")
        if g1 is torch.default_generator:
            fail(f"seed_everything({seed}) returned torch's global generator (torch.default_generator, which is what "
                 "torch.manual_seed returns), not a new one.",
                 "the generator for the DataLoaders: the global one is also the stream Dropout and every torch.rand "
                 "draw from, so a loader given it shuffles differently whenever the model draws a different number "
                 "of random numbers, and restoring one restores both.",
                 "create a new torch.Generator(), seed it with `seed`, and return it.", code="global_generator")
        from_g1 = torch.randint(0, 10**9, (4,), generator=g1)
        random.seed(seed + 99)
        np.random.seed(seed + 99)
        manual_seed(seed + 99)
        g2 = call(seed_everything, seed)
        second = _draws(device)
        names = {"python": "Python's random", "numpy": "NumPy's global RNG", "torch": "torch's CPU RNG",
                 "cuda": "the CUDA RNG"}
        differ = _same_draws(first, second)
        if differ:
            unseeded = [names[k] for k in differ]
            listed = _and_list(unseeded)
            fail(f"after seed_everything({seed}) twice, {listed} gave different numbers.",
                 f"{listed} {'was' if len(unseeded) == 1 else 'were'} not seeded, so whatever used "
                 f"{'it' if len(unseeded) == 1 else 'them'} last decided the state.",
                 "seed every RNG the pipeline draws from (random, numpy, torch; CUDA when present)."
                 + (" torch's CPU RNG is seeded by torch.manual_seed (which seeds every CUDA device too); "
                    "torch.cuda.manual_seed_all seeds the CUDA devices only." if "torch" in differ else ""),
                 code=f"unseeded_{differ[0]}")
        if not torch.equal(from_g1, torch.randint(0, 10**9, (4,), generator=g2)):
            fail(f"two generators returned by seed_everything({seed}) produced different numbers.",
                 "the returned generator was not seeded from `seed`.", "seed the generator you return.",
                 code="generator_unseeded")
        g3 = call(seed_everything, seed + 1)
        other = _draws(device)
        same = [k for k in ("python", "numpy", "torch") if k not in _same_draws(first, other)]
        if same:
            fail(f"seed_everything({seed}) and seed_everything({seed + 1}) give the same numbers from "
                 f"{', '.join(names[k] for k in same)}.", "seed_everything ignores its argument for that RNG.",
                 "seed each RNG with `seed`.", code="ignores_seed")
        if isinstance(g3, torch.Generator) and torch.equal(
                torch.randint(0, 10**9, (4,), generator=g3), from_g1):
            fail(f"the generators returned by seed_everything({seed}) and seed_everything({seed + 1}) produce the "
                 "same numbers.", "the returned generator was not seeded from `seed` (a new torch.Generator "
                 "always starts from the same default seed).", "seed the generator you return with `seed`.",
                 code="generator_unseeded")


# --------------------------------------------------------------------------
# The pipeline whose every RNG matters


def _dataset(seed: int) -> TensorDataset:
    x, y = blobs(40, seed + 80, "cpu")
    return TensorDataset(x, y)


def _reset_rngs(seed: int, device: str) -> torch.Generator:
    random.seed(seed)
    np.random.seed(seed)
    manual_seed(seed)
    if device == "cuda":
        torch.cuda.manual_seed_all(seed)
    return torch.Generator().manual_seed(seed)


def _objects(seed: int, device: str, generator: torch.Generator, init_seed: int):
    model = make_model("dropout", init_seed, device)
    optimizer = make_optimizer("adam", model.parameters())
    data = DataLoader(_dataset(seed), batch_size=8, shuffle=True, generator=generator)
    return model, optimizer, data


def _epoch(model, optimizer, data, device) -> list[float]:
    loss_fn = make_loss("bce")
    model.train()
    losses = []
    for xb, yb in data:
        noise = torch.from_numpy(np.random.normal(0.0, 0.05, size=tuple(xb.shape)).astype("float32"))  # NumPy RNG
        scale = 1.0 + random.uniform(-0.1, 0.1)  # Python RNG
        xb, yb = (xb * scale + noise).to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)  # Dropout: torch RNG
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def _state(model, optimizer, generator, device) -> dict:
    """Everything a resume needs, as owned at one moment."""
    opt = optimizer.state_dict()
    state = {
        "model": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
        "optimizer": {i: {k: (v.detach().cpu().clone() if isinstance(v, torch.Tensor) else v)
                          for k, v in s.items()} for i, s in opt["state"].items()},
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state().clone(),
        "generator": generator.get_state().clone(),
    }
    if device == "cuda":
        state["cuda"] = [s.clone() for s in torch.cuda.get_rng_state_all()]
    return state


_OWNERS = {
    "model": ("the model's parameters", "save model.state_dict() and load it into the caller's model "
                                          "(load_state_dict), not a new one.", "model_not_restored"),
    "optimizer": ("the optimizer's state (Adam's moments and step counts)",
                  "save optimizer.state_dict() and load it into the caller's optimizer.", "optimizer_not_restored"),
    "python": ("Python's random state", "save random.getstate() and restore it with random.setstate().",
               "python_rng_not_restored"),
    "numpy": ("NumPy's global RNG state", "save np.random.get_state() and restore it with np.random.set_state().",
              "numpy_rng_not_restored"),
    "torch": ("torch's CPU RNG state (Dropout's masks)", "save torch.get_rng_state() and restore it with "
              "torch.set_rng_state().", "torch_rng_not_restored"),
    "cuda": ("the CUDA RNG state", "save torch.cuda.get_rng_state_all() and restore it.", "cuda_rng_not_restored"),
    "generator": ("the DataLoader generator's state (the shuffle order)",
                  "save generator.get_state() and restore it into the generator passed to load_checkpoint.",
                  "generator_not_restored"),
}


def _equal(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b


def _differences(want: dict, got: dict) -> list[str]:
    """Every owner whose state differs, most consequential first."""
    return [key for key in ("model", "optimizer", "generator", "torch", "numpy", "python", "cuda")
            if key in want and not _equal(want[key], got.get(key))]


def _owners(keys: list[str]) -> tuple[str, str, str]:
    """The owners ``keys`` name, listed; "differed" (with their count when several); "it" or "them"."""
    owners = [_OWNERS[k][0] for k in keys]
    if len(owners) == 1:
        return owners[0], "differed", "it"
    return _and_list(owners), f"differed ({len(owners)} owners)", "them"


def _pickled_objects(path: Path) -> list[str]:
    """Names of nn.Module / Optimizer objects pickled into the checkpoint file, if it is one file."""
    if not path.is_file():
        return []
    try:
        blob = torch.load(path, weights_only=False, map_location="cpu")
    except Exception:  # noqa: BLE001 - an unreadable file is diagnosed by the resume itself
        return []
    found = []

    def walk(obj, where):
        if isinstance(obj, nn.Module):
            found.append(f"{where} (an nn.Module)")
        elif isinstance(obj, torch.optim.Optimizer):
            found.append(f"{where} (an Optimizer)")
        elif isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, f"{where}[{k!r}]")
        elif isinstance(obj, (list, tuple)):
            for i, v in enumerate(obj):
                walk(v, f"{where}[{i}]")

    walk(blob, "the checkpoint")
    return found


@contextlib.contextmanager
def _scratch():
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def _loads_without_generator(load, name: str, path: Path, seed: int) -> None:
    """A caller without a generator of its own (``generator=None``, the default) loads a checkpoint that holds
    one: the load restores the rest and leaves the generator alone."""
    if not path.exists():
        return
    model, optimizer, _ = _objects(seed, "cpu", torch.Generator().manual_seed(seed), init_seed=seed + 2000)
    try:
        call(load, path, model, optimizer)
    except LearnerRaised as raised:
        fail(f"{raised.call_text}, without a generator (generator=None, the default), raised "
             f"{type(raised.error).__name__}: {str(raised.error).splitlines()[0] if str(raised.error) else ''}.",
             f"the generator step of {name}: the caller has no generator of its own, and the load reached for one.",
             "restore the generator's state only when the caller passed a generator (and the file holds one).",
             code="needs_generator")


def _save_then_load(save_checkpoint, load_checkpoint, seed, device, half, tmp, *, load: bool = True):
    """Train `half` epochs, save, build fresh objects, disturb every RNG, load (unless ``load`` is False).
    Returns what is needed."""
    g = _reset_rngs(seed, device)
    model, optimizer, data = _objects(seed, device, g, init_seed=seed)
    for _ in range(half):
        _epoch(model, optimizer, data, device)
    at_save = _state(model, optimizer, g, device)
    path = tmp / "checkpoint.pt"
    out = call(save_checkpoint, path, model, optimizer, half - 1, g)
    if not isinstance(out, Path):
        fail(f"save_checkpoint returned {describe(out)}.", "the value save_checkpoint returns.",
             "return the pathlib.Path of what you saved.", code="not_a_path")
    pickled = _pickled_objects(out)
    _reset_rngs(seed + 1000, device)  # a fresh process would start from other RNG states
    g2 = torch.Generator().manual_seed(seed + 1000)
    model2, optimizer2, data2 = _objects(seed, device, g2, init_seed=seed + 1000)
    next_epoch = call(load_checkpoint, out, model2, optimizer2, g2) if load else None
    return at_save, pickled, next_epoch, (model2, optimizer2, data2, g2, out)


def _saved_leaves(path: Path) -> list:
    """Every tensor, array, number sequence and number in what ``path`` holds (one file, or every file of a
    folder), whatever the layout: the check does not know the learner's format, only what must be in it."""
    import pickle

    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []
    leaves: list = []

    def walk(obj):
        if isinstance(obj, (nn.Module, torch.optim.Optimizer)):  # pickled whole (the save check names it)
            walk(obj.state_dict())
        elif isinstance(obj, dict):
            for value in obj.values():
                walk(value)
        elif isinstance(obj, (list, tuple)):
            leaves.append(obj)
            for value in obj:
                walk(value)
        elif isinstance(obj, (torch.Tensor, np.ndarray)):
            leaves.append(obj)

    for file in files:
        try:
            walk(torch.load(file, weights_only=False, map_location="cpu"))
        except Exception:  # noqa: BLE001 - not a torch file: a pickle, or something the check cannot read
            try:
                with open(file, "rb") as fh:
                    walk(pickle.load(fh))
            except Exception:  # noqa: BLE001
                pass
    return leaves


def _same_values(a, b) -> bool:
    try:
        a = torch.as_tensor(np.asarray(a) if not isinstance(a, torch.Tensor) else a).cpu()
        b = torch.as_tensor(np.asarray(b) if not isinstance(b, torch.Tensor) else b).cpu()
        return a.shape == b.shape and torch.equal(a.to(torch.float64), b.to(torch.float64))
    except (TypeError, ValueError, RuntimeError):
        return False


def _held(want, leaves: list) -> bool:
    """Whether the file holds ``want`` (one owner's state at the save) somewhere."""
    if isinstance(want, dict):
        return all(_held(v, leaves) for v in want.values())
    if isinstance(want, list):  # the CUDA states
        return all(_held(v, leaves) for v in want)
    if isinstance(want, tuple):  # Python's (version, internal state, gauss) or NumPy's (name, key, pos, ...)
        want = want[1]
    if not isinstance(want, (torch.Tensor, np.ndarray, tuple, list)):
        return True  # a plain number (an optimizer's step count): any layout may keep it its own way
    size = len(want) if not isinstance(want, torch.Tensor) else want.numel()
    return any(_same_values(leaf, want) for leaf in leaves
               if (leaf.numel() if isinstance(leaf, torch.Tensor) else len(leaf)) == size)


def _not_in_file(path: Path, at_save: dict) -> list[str]:
    """The owners whose state at the save is nowhere in the checkpoint save_checkpoint wrote."""
    leaves = _saved_leaves(path)
    return [key for key in ("model", "optimizer", "generator", "torch", "numpy", "python", "cuda")
            if key in at_save and not _held(at_save[key], leaves)]


def _refused_by_safe_loader(error: BaseException) -> str | None:
    """What torch.load(..., weights_only=True) refused to unpickle, when ``error`` is that refusal."""
    import re

    text = str(error)
    if "Weights only load failed" not in text and "weights_only" not in text:
        return None
    found = re.search(r"GLOBAL ([\w.]+)", text)
    return found.group(1) if found else "an object that is not a tensor or plain Python data"


def _stored_epoch(path: Path):
    """The int a one-file checkpoint holds under the key "epoch" (at any depth), or None."""
    if not path.is_file():
        return None
    try:
        blob = torch.load(path, weights_only=False, map_location="cpu")
    except Exception:  # noqa: BLE001 - an unreadable file is diagnosed elsewhere
        return None
    stack = [blob]
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            if type(obj.get("epoch")) is int:
                return obj["epoch"]
            stack.extend(v for v in obj.values() if isinstance(v, dict))
    return None


def _unguarded_cuda(raised: LearnerRaised) -> bool:
    from ..core import learner_line

    return not torch.cuda.is_available() and "cuda" in learner_line(raised.error).lower()


@graded("save_checkpoint")
def checkpoint_restores_everything(save_checkpoint, load_checkpoint, seed: int = 0, half: int = 2, *, notes):
    """The checkpoint file holds every owner's state at the moment of the save, as state dicts and plain values"""
    for device in each_device(notes):
        with _scratch() as tmp:
            at_save, pickled, _, (*_, saved) = _save_then_load(save_checkpoint, load_checkpoint, seed, device,
                                                               half, tmp, load=False)
            if pickled:
                fail(f"the checkpoint file holds {pickled[0]}.",
                     "a pickled object ties the file to your class definitions and, on load, builds a new object "
                     "instead of restoring the caller's.",
                     "save state dicts (model.state_dict(), optimizer.state_dict()) and plain values.",
                     code="pickled_object")
            stored = _stored_epoch(saved)
            if stored is not None and stored != half - 1:
                fail(f"save_checkpoint(path, model, optimizer, {half - 1}, generator) wrote \"epoch\": {stored} into "
                     "the file.",
                     "the epoch save_checkpoint stores: the one it was given, the epoch that has just finished; "
                     "load_checkpoint adds one to it.",
                     "store `epoch` as it was passed in.", code="epoch_off_by_one")
            try:
                _reset_rngs(seed + 1000, device)
                g2 = torch.Generator().manual_seed(seed + 1000)
                fresh, fresh_opt, _ = _objects(seed, device, g2, init_seed=seed + 1000)
                call(load_checkpoint, saved, fresh, fresh_opt, g2)
            except (NotAttempted, Incorrect):
                pass  # load_checkpoint's own cell says so
            except LearnerRaised as raised:
                refused = _refused_by_safe_loader(raised.error)
                if refused:
                    fail(f"your load_checkpoint, reading the file save_checkpoint wrote, raised "
                         f"{type(raised.error).__name__}: the safe loader (torch.load with weights_only=True) refused "
                         f"to unpickle {refused}, which the file holds.",
                         "save_checkpoint: what it put in the file. np.random.get_state() holds its key as a NumPy "
                         "array, and the safe loader accepts only tensors and plain Python data.",
                         "store plain data (key.tolist(), or a tensor) and rebuild the array on load; keep "
                         "weights_only=True in the load.", code="not_weights_only")
            missing = _not_in_file(saved, at_save)
            if missing:  # every owner that was not saved, in one message
                listed, verb, it = _owners(missing)
                count = f" ({len(missing)} owners)" if len(missing) > 1 else ""
                fail(f"the checkpoint save_checkpoint wrote holds no copy of {listed}{count} as it was at the "
                     "moment of the save.", f"{listed}: save_checkpoint did not put {it} in the file, so no load "
                     "can carry " + it + " back.", " ".join(_OWNERS[k][1] for k in missing),
                     code=_OWNERS[missing[0]][2])


@graded("load_checkpoint")
def checkpoint_resume_matches(save_checkpoint, load_checkpoint, seed: int = 1, epochs: int = 4, *, notes):
    """Loads every saved owner into the caller's objects, returns the next epoch, and resumes the run bitwise"""
    for device in each_device(notes):
        half = epochs // 2
        g = _reset_rngs(seed, device)
        model, optimizer, data = _objects(seed, device, g, init_seed=seed)
        straight = [_epoch(model, optimizer, data, device) for _ in range(epochs)]
        with _scratch() as tmp:
            try:
                at_save, _, next_epoch, (model2, optimizer2, data2, g2, saved) = _save_then_load(
                    save_checkpoint, load_checkpoint, seed, device, half, tmp)
            except LearnerRaised as raised:
                refused = _refused_by_safe_loader(raised.error)
                if refused and raised.name != "save_checkpoint":
                    fail(f"{raised.call_text} raised {type(raised.error).__name__}: the safe loader (torch.load with "
                         f"weights_only=True) refused to unpickle {refused}, which the file save_checkpoint wrote "
                         "holds.",
                         "the file save_checkpoint wrote, not the safe loader: weights_only=True is right, and "
                         "weights_only=False would run whatever code a pickle holds.",
                         "change what save_checkpoint stores (its cell names it) and keep weights_only=True.",
                         code="not_weights_only")
                if _unguarded_cuda(raised):
                    fail(f"{raised.call_text} raised {type(raised.error).__name__}: {str(raised.error)[:160]}, at a line "
                         "that restores CUDA RNG state, on a machine with no CUDA device (the save had no CUDA state "
                         "to store).",
                         "load_checkpoint's CUDA step: it ran whether or not CUDA is present and the file holds a "
                         "CUDA state.",
                         "restore the CUDA state only when torch.cuda.is_available() and the checkpoint holds one.",
                         code="cuda_only_api")
                raise
            stored = _stored_epoch(saved)
            if stored is not None and stored != half - 1 and next_epoch == stored + 1:
                notes.append(f"the file's epoch is {stored} for a save after epoch {half - 1} (save_checkpoint's cell "
                             "names it); this load read it correctly")
                next_epoch = half
            unsaved = _not_in_file(saved, at_save)  # save_checkpoint's, judged in its own cell
            _expect_loaded(at_save, _state(model2, optimizer2, g2, device), unsaved, next_epoch, half, stored)
            if unsaved:
                notes.append(f"the resumed run was not compared: the file holds no copy of {_owners(unsaved)[0]} "
                             "(save_checkpoint's cell names it)")
                continue
            resumed = [_epoch(model2, optimizer2, data2, device) for _ in range(next_epoch, epochs)]
            _loads_without_generator(load_checkpoint, "load_checkpoint", tmp / "checkpoint.pt", seed)
        exact = device == "cpu"
        tol = 0.0 if exact else 1e-5
        want = [v for e in straight[half:] for v in e]
        got = [v for e in resumed for v in e]
        if len(got) != len(want) or any(abs(a - b) > tol * max(1.0, abs(b)) for a, b in zip(got, want)):
            fail(f"every owner held its saved state right after load_checkpoint, yet resuming after epoch {half - 1} "
                 f"did not {'bitwise ' if exact else ''}reproduce the uninterrupted run's losses.",
                 "load_checkpoint: something it did after restoring the owners drew from an RNG or moved a "
                 "parameter (a forward pass, a random draw) before returning.",
                 "restore the owners last and return at once: nothing may draw or train between the restore and "
                 "the resumed epoch.", code="resume_differs")


def _expect_loaded(at_save: dict, now: dict, unsaved: list[str], next_epoch, half: int, stored=None) -> None:
    """The owners the file holds are back in the caller's objects, and the next epoch is returned as an int."""
    wrong = [k for k in _differences(at_save, now) if k not in unsaved]
    if wrong:
        listed, verb, it = _owners(wrong)
        fail(f"right after load_checkpoint into fresh objects, {listed} {verb} from the state at the moment of the "
             "save, which the checkpoint file holds.",
             f"load_checkpoint: the file holds {it}, but the load did not put {it} back into the objects it was "
             "passed (a new model or optimizer built inside load_checkpoint is not the caller's).",
             " ".join(_OWNERS[k][1] for k in wrong), code=_OWNERS[wrong[0]][2])
    _judge_next_epoch("load_checkpoint", next_epoch, half, stored)


def _judge_next_epoch(name: str, next_epoch, half: int, stored=None) -> None:
    """The next epoch a load of a checkpoint saved after epoch ``half - 1`` reports: an int, that epoch plus one."""
    if type(next_epoch) is not int:
        fail(f"{name} returned {describe(next_epoch)}.", f"the epoch {name} reports.",
             "return the index of the next epoch to run, as an int.", code="not_an_int")
    if next_epoch != half:
        saved = half - 1
        fail(f"the checkpoint was saved after epoch {saved} finished"
             + (f" (its \"epoch\" entry is {saved})" if stored == saved else "") + f" and {name} returned {next_epoch}.",
             f"{name}'s epoch counter: a resumed run would " + ("repeat" if next_epoch < half else "skip")
             + " an epoch.", "return the index of the next epoch to run: the saved epoch plus one.",
             code="epoch_off_by_one")


# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)


# --------------------------------------------------------------------------
# repair_load_checkpoint: a colleague's loader for the team's checkpoint format, released with silent
# bugs; one check part per owner (the epoch counter, the caller's model and optimizer, the RNGs)


def save_team_checkpoint(path, model, optimizer, epoch, generator=None) -> Path:
    """The team's checkpoint format (the exercise describes it): plain data and tensors only, so that it
    loads with ``torch.load(path, weights_only=True)``; ``epoch`` is the epoch that has just finished."""
    name, key, pos, has_gauss, cached = np.random.get_state()
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": epoch,
        "rng": {
            "python": random.getstate(),
            "numpy": [name, key.tolist(), pos, has_gauss, cached],
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            "generator": None if generator is None else generator.get_state(),
        },
    }
    torch.save(state, path)
    return Path(path)


def _team_resume(repair_load_checkpoint, seed: int, device: str, half: int, tmp: Path):
    """Train `half` epochs, save in the team's format, build fresh objects, disturb every RNG, load with the
    learner's function. Returns the owners' state at the save, right after the load, and what it returned."""
    g = _reset_rngs(seed, device)
    model, optimizer, data = _objects(seed, device, g, init_seed=seed)
    for _ in range(half):
        _epoch(model, optimizer, data, device)
    at_save = _state(model, optimizer, g, device)
    path = save_team_checkpoint(tmp / "checkpoint.pt", model, optimizer, half - 1, g)
    _reset_rngs(seed + 1000, device)  # a fresh process would start from other RNG states
    g2 = torch.Generator().manual_seed(seed + 1000)
    model2, optimizer2, _ = _objects(seed, device, g2, init_seed=seed + 1000)
    next_epoch = call(repair_load_checkpoint, path, model2, optimizer2, g2)
    return at_save, _state(model2, optimizer2, g2, device), next_epoch


_RESTORE = {  # what to do, for a load whose file format is given
    "model": 'load state["model"] into the model you were passed (its load_state_dict).',
    "optimizer": 'load state["optimizer"] into the optimizer you were passed, not into a new one.',
    "generator": 'restore rng["generator"] into the generator you were passed (generator.set_state).',
    "torch": 'restore rng["torch"] with torch.set_rng_state().',
    "numpy": 'restore rng["numpy"] with np.random.set_state() (its key back as a uint32 array).',
    "python": 'restore rng["python"] with random.setstate().',
    "cuda": 'restore rng["cuda"] with torch.cuda.set_rng_state_all() when CUDA is present.',
}


def _expect_restored(at_save: dict, now: dict, keys: tuple[str, ...]) -> None:
    """Every owner among ``keys`` holds what it held at the save; all that do not are named in one message."""
    wrong = [k for k in _differences(at_save, now) if k in keys]
    if wrong:
        listed, verb, it = _owners(wrong)
        fail(f"right after repair_load_checkpoint into fresh objects, {listed} {verb} from the state at the "
             "moment the checkpoint was saved.",
             f"{listed}: the checkpoint holds {it}, but the load did not put {it} back into the caller's objects.",
             " ".join(_RESTORE[k] for k in wrong), code=_OWNERS[wrong[0]][2])


@graded("repair_load_checkpoint", starter=REPAIR_LOAD_CHECKPOINT)
def repair_load_checkpoint_epoch(repair_load_checkpoint, seed: int = 0, half: int = 2, *, notes):
    """Returns the index of the next epoch to run, as an int"""
    for device in each_device(notes):
        with _scratch() as tmp:
            _, _, next_epoch = _team_resume(repair_load_checkpoint, seed, device, half, tmp)
        _judge_next_epoch("repair_load_checkpoint", next_epoch, half, half - 1)  # the team saver writes it


@graded("repair_load_checkpoint", starter=REPAIR_LOAD_CHECKPOINT)
def repair_load_checkpoint_objects(repair_load_checkpoint, seed: int = 1, half: int = 2, *, notes):
    """Restores the model and the optimizer (Adam's moments) into the caller's objects"""
    for device in each_device(notes):
        with _scratch() as tmp:
            at_save, now, _ = _team_resume(repair_load_checkpoint, seed, device, half, tmp)
        _expect_restored(at_save, now, ("model", "optimizer"))


@graded("repair_load_checkpoint", starter=REPAIR_LOAD_CHECKPOINT)
def repair_load_checkpoint_rngs(repair_load_checkpoint, seed: int = 2, half: int = 2, *, notes):
    """Restores every RNG state: Python, NumPy, torch (CUDA when present) and the loader's generator"""
    for device in each_device(notes):
        with _scratch() as tmp:
            at_save, now, _ = _team_resume(repair_load_checkpoint, seed, device, half, tmp)
            _expect_restored(at_save, now, ("generator", "torch", "numpy", "python", "cuda"))
            _loads_without_generator(repair_load_checkpoint, "repair_load_checkpoint", tmp / "checkpoint.pt", seed)
