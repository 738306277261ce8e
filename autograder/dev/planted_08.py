"""A planted cohort of module 08, written apart from the normaliser: kept out of tuning until it was measured
(31 of 47 cells, 11 of 14 pairs), tuned on since.

Fourteen honest students answer in their own styles (checkpoint layouts of their own: flat or nested, NumPy's
key as a list, a tensor or the raw array behind ``weights_only=False``, the next epoch stored instead of the
last; loops and tables over the RNGs, nested helpers, defensive checks, terse one-liners, a beginner's
temporaries); they converge, as students do, on the repair, which starts from the same starter code; two write
the course's answer (one hands in the reference word for word, one in their own names).  Twelve copy, most
cells disguised, one or more ways each:

- ``copier-renamed`` (honest-04, all four cells): locals renamed, comments and docstrings rewritten.
- ``copier-debug`` (honest-09, all four): dead code (unused flags, a branch that never runs) and debugging
  prints added, blank lines moved; repair left as taken.
- ``copier-reorder`` (honest-12, all four): independent statements reordered, temporaries inlined.
- ``copier-loops`` (honest-11, all four): comprehensions written as loops, ``for`` loops as ``while`` loops,
  a loop over the seeders introduced in place of three calls.
- ``copier-branches`` (honest-13, all four): ``if``/``else`` swapped with negated conditions, conditional
  expressions written as statements, nested conditions, an early return in place of a single exit.
- ``copier-spellings`` (honest-10, all four): equivalent PyTorch/Python spellings (``torch.random.*`` and
  ``torch.*``, ``dict()`` and literals, ``np.asarray`` and ``np.array``, ``.tolist()`` and ``list(map(int,
  ...))``, ``x + 1`` and ``1 + int(x)``, ``is not None`` and truthiness on a list).
- ``copier-helpers`` (honest-06, all four): code moved into module-level helpers, a nested function, lambdas
  and a small class.
- ``copier-defensive`` (honest-14, all four): ``try``/``except`` wrappers, assertions and type hints added.
- ``chain-b`` (honest-02, all four) renames lightly and drops the comments; ``chain-c`` (chain-b, three
  cells) reworks what it got: two loads written as a ``zip`` loop, NumPy's fields rebuilt with ``zip`` and
  ``enumerate`` in place of unpacking, the dicts built with ``dict(...)`` and ``update``, a ``with open``
  handle; writes its seeding alone.
- ``copier-merge`` takes seeding and the repair from honest-05 and the save/load pair from honest-08: type
  hints removed, docstrings changed, one-liners expanded, unpacking turned into indexing.
- ``copier-half`` takes only seeding and the repair from honest-03 (the loop over seeders unrolled, the
  repair's guards merged into a helper) and writes its save/load pair alone.

The truth follows from where each answer came from (:func:`.planted.assemble`); ``python -m
autograder.dev.planted_08`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "08-reproducible-training"

SE = "def seed_everything(seed):\n"
SV = "def save_checkpoint(path, model, optimizer, epoch, generator=None):\n"
LD = "def load_checkpoint(path, model, optimizer, generator=None):\n"
RL = "def repair_load_checkpoint(path, model, optimizer, generator=None):\n"
SE_DOC = SE + '    """Seed every RNG; return a seeded generator for DataLoaders."""\n'
SV_DOC = SV + '    """Model, optimizer, epoch and every RNG state in one file."""\n'
LD_DOC = LD + '    """Restore everything into the caller\'s objects; return the next epoch to run."""\n'
RL_DOC = RL + ('    """Restore a checkpoint in the team\'s format; return the epoch to run next (from a colleague\'s '
               'notebook)."""\n')

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # compact, flat layout, NumPy's key as a list
        "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    return torch.Generator().manual_seed(seed)
""",
        "save_checkpoint": SV_DOC + """\
    np_state = np.random.get_state()
    torch.save({
        "model": model.state_dict(),
        "optim": optimizer.state_dict(),
        "epoch": epoch,
        "py_rng": random.getstate(),
        "np_rng": (np_state[0], np_state[1].tolist(), np_state[2], np_state[3], np_state[4]),
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "gen": generator.get_state() if generator is not None else None,
    }, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optim"])
    random.setstate(ckpt["py_rng"])
    name, key, pos, has_gauss, gauss = ckpt["np_rng"]
    np.random.set_state((name, np.asarray(key, dtype=np.uint32), pos, has_gauss, gauss))
    torch.set_rng_state(ckpt["torch_rng"])
    if torch.cuda.is_available() and ckpt["cuda_rng"]:
        torch.cuda.set_rng_state_all(ckpt["cuda_rng"])
    if generator is not None and ckpt["gen"] is not None:
        generator.set_state(ckpt["gen"])
    return ckpt["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if generator is not None:
        generator.set_state(rng["generator"])
    if torch.cuda.is_available() and rng["cuda"] is not None:
        torch.cuda.set_rng_state_all(rng["cuda"])
    return state["epoch"] + 1
""",
    },
    "honest-02": {  # commented, nested layout, NumPy's state as a dict with the key as a tensor
        "seed_everything": SE_DOC + """\
    # Python's own RNG
    random.seed(seed)
    # NumPy's global RNG (np.random.*)
    np.random.seed(seed)
    # torch's CPU RNG; this seeds the CUDA devices too
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    # a separate generator just for the DataLoader's shuffling
    loader_generator = torch.Generator(device="cpu")
    loader_generator.manual_seed(seed)
    return loader_generator
""",
        "save_checkpoint": SV_DOC + """\
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # the NumPy key is an array: keep it as a tensor so weights_only=True can load it
    np_name, np_keys, np_pos, np_has_gauss, np_gauss = np.random.get_state()
    rng_states = {
        "python": random.getstate(),
        "numpy": {"name": np_name, "keys": torch.from_numpy(np_keys.astype(np.int64)), "pos": np_pos,
                  "has_gauss": np_has_gauss, "gauss": np_gauss},
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        rng_states["cuda"] = torch.cuda.get_rng_state_all()
    if generator is not None:
        rng_states["generator"] = generator.get_state()
    checkpoint = {
        "epoch": epoch,
        "model_state": model.state_dict(),
        "optimizer_state": optimizer.state_dict(),
        "rng_states": rng_states,
    }
    torch.save(checkpoint, path)
    return path
""",
        "load_checkpoint": LD_DOC + """\
    checkpoint = torch.load(path, weights_only=True)
    # into the caller's model and optimizer, not new ones
    model.load_state_dict(checkpoint["model_state"])
    optimizer.load_state_dict(checkpoint["optimizer_state"])
    rng_states = checkpoint["rng_states"]
    random.setstate(rng_states["python"])
    np_state = rng_states["numpy"]
    np.random.set_state((np_state["name"], np_state["keys"].numpy().astype(np.uint32), np_state["pos"],
                         np_state["has_gauss"], np_state["gauss"]))
    torch.set_rng_state(rng_states["torch"])
    # only what was saved, and CUDA only when there is a GPU
    if "cuda" in rng_states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng_states["cuda"])
    if generator is not None and "generator" in rng_states:
        generator.set_state(rng_states["generator"])
    # the saved epoch has finished: run the next one
    return checkpoint["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    # fixed: load into the optimizer we were given instead of building a new one
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    # fixed: the CUDA states and the loader's generator were never restored
    if rng["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    # fixed: "epoch" is the one that finished, so resume from the next
    return state["epoch"] + 1
""",
    },
    "honest-03": {  # a loop over the seeders; the raw NumPy state, loaded with weights_only=False
        "seed_everything": SE_DOC + """\
    for seeder in (random.seed, np.random.seed, torch.manual_seed):
        seeder(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    g = torch.Generator()
    g.manual_seed(seed)
    return g
""",
        "save_checkpoint": SV_DOC + """\
    snapshot = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": epoch,
        "random": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        snapshot["cuda"] = torch.cuda.get_rng_state_all()
    if generator is not None:
        snapshot["generator"] = generator.get_state()
    torch.save(snapshot, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    snapshot = torch.load(path, weights_only=False)
    model.load_state_dict(snapshot["model"])
    optimizer.load_state_dict(snapshot["optimizer"])
    random.setstate(snapshot["random"])
    np.random.set_state(snapshot["numpy"])
    torch.set_rng_state(snapshot["torch"])
    if "cuda" in snapshot and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(snapshot["cuda"])
    if "generator" in snapshot and generator is not None:
        generator.set_state(snapshot["generator"])
    return snapshot["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"] is not None:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
    },
    "honest-04": {  # the PyTorch tutorial's key names; PYTHONHASHSEED and cuDNN flags; map_location
        "seed_everything": SE_DOC + """\
    import os

    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    return torch.Generator().manual_seed(seed)
""",
        "save_checkpoint": SV_DOC + """\
    np_state = np.random.get_state()
    torch.save({
        "epoch": epoch,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "python_rng_state": random.getstate(),
        "numpy_rng_state": [np_state[0], torch.tensor(np_state[1].astype(np.int64)), np_state[2], np_state[3],
                            np_state[4]],
        "torch_rng_state": torch.get_rng_state(),
        "cuda_rng_state": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "generator_state": None if generator is None else generator.get_state(),
    }, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    random.setstate(checkpoint["python_rng_state"])
    np_state = checkpoint["numpy_rng_state"]
    np.random.set_state((np_state[0], np_state[1].numpy().astype(np.uint32), np_state[2], np_state[3],
                         np_state[4]))
    torch.set_rng_state(checkpoint["torch_rng_state"])
    if checkpoint["cuda_rng_state"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(checkpoint["cuda_rng_state"])
    if generator is not None and checkpoint["generator_state"] is not None:
        generator.set_state(checkpoint["generator_state"])
    return checkpoint["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rngs = ckpt["rng"]
    random.setstate(rngs["python"])
    np_state = rngs["numpy"]
    np.random.set_state((np_state[0], np.array(np_state[1], dtype=np.uint32), *np_state[2:]))
    torch.set_rng_state(rngs["torch"])
    if rngs.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rngs["cuda"])
    if generator is not None and rngs.get("generator") is not None:
        generator.set_state(rngs["generator"])
    return ckpt["epoch"] + 1
""",
    },
    "honest-05": {  # type hints; the checkpoint built key by key; NumPy's state in its dict form
        "seed_everything": """\
def seed_everything(seed: int) -> torch.Generator:
    \"\"\"Seed every RNG; return a seeded generator for DataLoaders.\"\"\"
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    gen: torch.Generator = torch.Generator().manual_seed(seed)
    return gen
""",
        "save_checkpoint": """\
def save_checkpoint(path, model, optimizer, epoch: int, generator=None) -> Path:
    \"\"\"Model, optimizer, epoch and every RNG state in one file.\"\"\"
    np_state = np.random.get_state(legacy=False)
    ckpt: dict = {}
    ckpt["model"] = model.state_dict()
    ckpt["optimizer"] = optimizer.state_dict()
    ckpt["epoch"] = epoch
    ckpt["python_rng"] = random.getstate()
    ckpt["numpy_rng"] = {
        "bit_generator": np_state["bit_generator"],
        "key": torch.from_numpy(np_state["state"]["key"].astype(np.int64)),
        "pos": np_state["state"]["pos"],
        "has_gauss": np_state["has_gauss"],
        "gauss": np_state["gauss"],
    }
    ckpt["torch_rng"] = torch.get_rng_state()
    if torch.cuda.is_available():
        ckpt["cuda_rng"] = torch.cuda.get_rng_state_all()
    if generator is not None:
        ckpt["generator_rng"] = generator.get_state()
    out = Path(path)
    torch.save(ckpt, out)
    return out
""",
        "load_checkpoint": """\
def load_checkpoint(path, model, optimizer, generator=None) -> int:
    \"\"\"Restore everything into the caller's objects; return the next epoch to run.\"\"\"
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    random.setstate(ckpt["python_rng"])
    saved = ckpt["numpy_rng"]
    np.random.set_state({
        "bit_generator": saved["bit_generator"],
        "state": {"key": saved["key"].numpy().astype(np.uint32), "pos": saved["pos"]},
        "has_gauss": saved["has_gauss"],
        "gauss": saved["gauss"],
    })
    torch.set_rng_state(ckpt["torch_rng"])
    if "cuda_rng" in ckpt and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ckpt["cuda_rng"])
    if generator is not None and "generator_rng" in ckpt:
        generator.set_state(ckpt["generator_rng"])
    return int(ckpt["epoch"]) + 1
""",
        "repair_load_checkpoint": """\
def repair_load_checkpoint(path, model, optimizer, generator=None) -> int:
    \"\"\"Restore a checkpoint in the team's format; return the epoch to run next (from a colleague's notebook).\"\"\"
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng: dict = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    cuda_states = rng["cuda"]
    if cuda_states is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(cuda_states)
    gen_state = rng["generator"]
    if generator is not None and gen_state is not None:
        generator.set_state(gen_state)
    next_epoch: int = state["epoch"] + 1
    return next_epoch
""",
    },
    "honest-06": {  # NumPy's fields as separate entries; dict(...) and file handles
        "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)  # a no-op without a GPU
    loader_gen = torch.Generator()
    loader_gen.manual_seed(seed)
    return loader_gen
""",
        "save_checkpoint": SV_DOC + """\
    _, np_key, np_pos, np_has_gauss, np_cached = np.random.get_state()
    payload = dict(
        model=model.state_dict(),
        optimizer=optimizer.state_dict(),
        epoch=epoch,
        python_state=random.getstate(),
        numpy_key=torch.tensor(np_key.astype(np.int64)),
        numpy_pos=np_pos,
        numpy_has_gauss=np_has_gauss,
        numpy_cached=np_cached,
        torch_state=torch.get_rng_state(),
        cuda_states=torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        loader_state=generator.get_state() if generator is not None else None,
    )
    with open(path, "wb") as f:
        torch.save(payload, f)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    with open(path, "rb") as f:
        payload = torch.load(f, weights_only=True)
    model.load_state_dict(payload["model"])
    optimizer.load_state_dict(payload["optimizer"])
    random.setstate(payload["python_state"])
    np.random.set_state(("MT19937", payload["numpy_key"].numpy().astype(np.uint32), payload["numpy_pos"],
                         payload["numpy_has_gauss"], payload["numpy_cached"]))
    torch.set_rng_state(payload["torch_state"])
    if payload["cuda_states"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(payload["cuda_states"])
    if generator is not None and payload["loader_state"] is not None:
        generator.set_state(payload["loader_state"])
    return payload["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    with open(path, "rb") as f:
        ckpt = torch.load(f, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rng = ckpt["rng"]
    random.setstate(rng["python"])
    np_name, np_key, np_pos, np_has_gauss, np_cached = rng["numpy"]
    np.random.set_state((np_name, np.array(np_key, dtype=np.uint32), np_pos, np_has_gauss, np_cached))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"]:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    return ckpt["epoch"] + 1
""",
    },
    "honest-07": {  # a table of seeders; a nested snapshot helper; the file's NumPy state patched in place
        "seed_everything": SE_DOC + """\
    seeders = {"python": random.seed, "numpy": np.random.seed, "torch": torch.manual_seed}
    if torch.cuda.is_available():
        seeders["cuda"] = torch.cuda.manual_seed_all
    for name, seeder in seeders.items():
        seeder(seed)
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator
""",
        "save_checkpoint": SV_DOC + """\
    def rng_snapshot():
        np_state = np.random.get_state()
        return {
            "python": random.getstate(),
            "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            "loader": None if generator is None else generator.get_state(),
        }

    path = Path(path)
    torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
                "rng": rng_snapshot()}, path)
    return path
""",
        "load_checkpoint": LD_DOC + """\
    saved = torch.load(path, weights_only=True)
    model.load_state_dict(saved["weights"])
    optimizer.load_state_dict(saved["optimizer"])
    rng = saved["rng"]
    random.setstate(rng["python"])
    np_state = rng["numpy"]
    np_state[1] = np.array(np_state[1], dtype=np.uint32)
    np.random.set_state(tuple(np_state))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"] is not None:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["loader"] is not None:
        generator.set_state(rng["loader"])
    return saved["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    np_state = list(rng["numpy"])
    np_state[1] = np.array(np_state[1], dtype=np.uint32)
    random.setstate(rng["python"])
    np.random.set_state(tuple(np_state))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"] is not None:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
    },
    "honest-08": {  # terse: one-liners, every RNG in one tuple, the next epoch stored
        "seed_everything": SE_DOC + """\
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)
    if torch.cuda.is_available(): torch.cuda.manual_seed_all(seed)
    return torch.Generator().manual_seed(seed)
""",
        "save_checkpoint": SV_DOC + """\
    np_state = list(np.random.get_state())
    np_state[1] = np_state[1].tolist()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    gen = generator.get_state() if generator is not None else None
    torch.save({"model": model.state_dict(), "opt": optimizer.state_dict(), "next_epoch": epoch + 1,
                "rng": (random.getstate(), np_state, torch.get_rng_state(), cuda, gen)}, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"]); optimizer.load_state_dict(ckpt["opt"])
    py_state, np_state, torch_state, cuda, gen = ckpt["rng"]
    random.setstate(py_state)
    np.random.set_state((np_state[0], np.array(np_state[1], dtype=np.uint32), *np_state[2:]))
    torch.set_rng_state(torch_state)
    if cuda is not None and torch.cuda.is_available(): torch.cuda.set_rng_state_all(cuda)
    if gen is not None and generator is not None: generator.set_state(gen)
    return ckpt["next_epoch"]
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] is not None and torch.cuda.is_available(): torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None: generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
    },
    "honest-09": {  # defensive: the argument checked, the folder made, the file's keys checked
        "seed_everything": SE_DOC + """\
    if not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)
    rng = torch.Generator()
    rng.manual_seed(seed)
    return rng
""",
        "save_checkpoint": SV_DOC + """\
    import os

    directory = os.path.dirname(str(path))
    if directory:
        os.makedirs(directory, exist_ok=True)
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": int(epoch)}
    np_name, np_key, np_pos, np_has_gauss, np_cached = np.random.get_state()
    state["rng_python"] = random.getstate()
    state["rng_numpy"] = (np_name, np_key.tolist(), np_pos, np_has_gauss, np_cached)
    state["rng_torch"] = torch.get_rng_state()
    state["rng_cuda"] = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    state["rng_generator"] = generator.get_state() if generator is not None else None
    torch.save(state, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    state = torch.load(path, weights_only=True)
    for key in ("model", "optimizer", "epoch", "rng_python", "rng_numpy", "rng_torch"):
        if key not in state:
            raise KeyError(f"checkpoint {path} has no {key!r}")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    random.setstate(state["rng_python"])
    np_name, np_key, np_pos, np_has_gauss, np_cached = state["rng_numpy"]
    np.random.set_state((np_name, np.array(np_key, dtype=np.uint32), np_pos, np_has_gauss, np_cached))
    torch.set_rng_state(state["rng_torch"])
    if state.get("rng_cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["rng_cuda"])
    if generator is not None and state.get("rng_generator") is not None:
        generator.set_state(state["rng_generator"])
    return state["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    if "rng" not in state:
        raise KeyError("not a checkpoint in the team's format")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if rng.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng.get("generator") is not None:
        generator.set_state(rng["generator"])
    epoch = state["epoch"]
    return epoch + 1
""",
    },
    "honest-10": {  # short key names, torch.random's spellings, NumPy's fields by index
        "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.random.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    g = torch.Generator(device="cpu")
    g.manual_seed(seed)
    return g
""",
        "save_checkpoint": SV_DOC + """\
    ns = np.random.get_state()
    rng = {
        "py": random.getstate(),
        "np": {"name": ns[0], "key": ns[1].tolist(), "pos": ns[2], "has_gauss": ns[3], "cached": ns[4]},
        "cpu": torch.random.get_rng_state(),
        "gpu": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "dl": generator.get_state().clone() if generator is not None else None,
    }
    torch.save({"epoch": epoch, "net": model.state_dict(), "opt": optimizer.state_dict(), "rng": rng}, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    ck = torch.load(path, weights_only=True)
    model.load_state_dict(ck["net"])
    optimizer.load_state_dict(ck["opt"])
    rng = ck["rng"]
    random.setstate(rng["py"])
    ns = rng["np"]
    np.random.set_state((ns["name"], np.array(ns["key"], dtype=np.uint32), ns["pos"], ns["has_gauss"], ns["cached"]))
    torch.random.set_rng_state(rng["cpu"])
    if rng["gpu"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["gpu"])
    if rng["dl"] is not None and generator is not None:
        generator.set_state(rng["dl"])
    return ck["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    ck = torch.load(path, weights_only=True)
    model.load_state_dict(ck["model"])
    optimizer.load_state_dict(ck["optimizer"])
    rng = ck["rng"]
    random.setstate(rng["python"])
    ns = rng["numpy"]
    np.random.set_state((ns[0], np.array(ns[1], dtype=np.uint32), ns[2], ns[3], ns[4]))
    torch.random.set_rng_state(rng["torch"])
    if rng["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    if rng["generator"] is not None and generator is not None:
        generator.set_state(rng["generator"])
    return ck["epoch"] + 1
""",
    },
    "honest-11": {  # tables of getters and setters, a comprehension over them
        "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    return torch.Generator().manual_seed(seed)
""",
        "save_checkpoint": SV_DOC + """\
    def numpy_state():
        kind, key, pos, has_gauss, cached = np.random.get_state()
        return {"kind": kind, "key": torch.from_numpy(key.astype(np.int64)), "pos": pos,
                "has_gauss": has_gauss, "cached": cached}

    getters = {"python": random.getstate, "numpy": numpy_state, "torch": torch.get_rng_state}
    if torch.cuda.is_available():
        getters["cuda"] = torch.cuda.get_rng_state_all
    if generator is not None:
        getters["generator"] = generator.get_state
    rng = {name: get() for name, get in getters.items()}
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch, "rng": rng},
               path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rng = ckpt["rng"]

    def set_numpy(s):
        np.random.set_state((s["kind"], s["key"].numpy().astype(np.uint32), s["pos"], s["has_gauss"], s["cached"]))

    setters = {"python": random.setstate, "numpy": set_numpy, "torch": torch.set_rng_state}
    if torch.cuda.is_available():
        setters["cuda"] = torch.cuda.set_rng_state_all
    if generator is not None:
        setters["generator"] = generator.set_state
    for name, restore in setters.items():
        if name in rng:
            restore(rng[name])
    return ckpt["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"] is not None:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None:
        generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
    },
    "honest-12": {  # a beginner's temporaries and nested ifs, the checkpoint filled in line by line
        "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    cuda_available = torch.cuda.is_available()
    if cuda_available:
        torch.cuda.manual_seed_all(seed)
    my_generator = torch.Generator()
    my_generator = my_generator.manual_seed(seed)
    return my_generator
""",
        "save_checkpoint": SV_DOC + """\
    model_state = model.state_dict()
    optimizer_state = optimizer.state_dict()
    python_state = random.getstate()
    numpy_state = np.random.get_state()
    numpy_state_list = []
    for item in numpy_state:
        if isinstance(item, np.ndarray):
            numpy_state_list.append(item.tolist())
        else:
            numpy_state_list.append(item)
    torch_state = torch.get_rng_state()
    if torch.cuda.is_available():
        cuda_state = torch.cuda.get_rng_state_all()
    else:
        cuda_state = None
    if generator is None:
        generator_state = None
    else:
        generator_state = generator.get_state()
    checkpoint = {}
    checkpoint["model"] = model_state
    checkpoint["optimizer"] = optimizer_state
    checkpoint["epoch"] = epoch
    checkpoint["python_state"] = python_state
    checkpoint["numpy_state"] = numpy_state_list
    checkpoint["torch_state"] = torch_state
    checkpoint["cuda_state"] = cuda_state
    checkpoint["generator_state"] = generator_state
    torch.save(checkpoint, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    random.setstate(checkpoint["python_state"])
    numpy_state_list = checkpoint["numpy_state"]
    numpy_key = np.array(numpy_state_list[1], dtype=np.uint32)
    numpy_state = (numpy_state_list[0], numpy_key, numpy_state_list[2], numpy_state_list[3], numpy_state_list[4])
    np.random.set_state(numpy_state)
    torch.set_rng_state(checkpoint["torch_state"])
    if checkpoint["cuda_state"] is not None:
        if torch.cuda.is_available():
            torch.cuda.set_rng_state_all(checkpoint["cuda_state"])
    if generator is not None:
        if checkpoint["generator_state"] is not None:
            generator.set_state(checkpoint["generator_state"])
    next_epoch = checkpoint["epoch"] + 1
    return next_epoch
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] is not None:
        if torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None:
        if rng["generator"] is not None:
            generator.set_state(rng["generator"])
    next_epoch = state["epoch"] + 1
    return next_epoch
""",
    },
    "honest-13": {  # NumPy's fields zipped with their names
        "seed_everything": SE_DOC + """\
    np.random.seed(seed)
    random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator
""",
        "save_checkpoint": SV_DOC + """\
    fields = ("name", "key", "pos", "has_gauss", "cached")
    numpy_state = dict(zip(fields, np.random.get_state()))
    numpy_state["key"] = numpy_state["key"].tolist()
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": epoch,
        "random_state": random.getstate(),
        "numpy_state": numpy_state,
        "torch_state": torch.get_rng_state(),
        "cuda_state": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "generator_state": generator.get_state() if generator else None,
    }
    torch.save(checkpoint, str(path))
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    random.setstate(checkpoint["random_state"])
    fields = ("name", "key", "pos", "has_gauss", "cached")
    numpy_state = [checkpoint["numpy_state"][f] for f in fields]
    numpy_state[1] = np.asarray(numpy_state[1], dtype=np.uint32)
    np.random.set_state(tuple(numpy_state))
    torch.set_rng_state(checkpoint["torch_state"])
    if torch.cuda.is_available() and checkpoint["cuda_state"] is not None:
        torch.cuda.set_rng_state_all(checkpoint["cuda_state"])
    if generator and checkpoint["generator_state"] is not None:
        generator.set_state(checkpoint["generator_state"])
    return checkpoint["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    np_state = list(rng["numpy"])
    np_state[1] = np.asarray(np_state[1], dtype=np.uint32)
    np.random.set_state(tuple(np_state))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"] is not None:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
    },
    "honest-14": {  # states cloned, NumPy's key as a tensor, star-unpacking; CUDA in a try
        "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    try:
        torch.cuda.manual_seed_all(seed)
    except RuntimeError:
        pass
    gen = torch.Generator()
    return gen.manual_seed(seed)
""",
        "save_checkpoint": SV_DOC + """\
    np_name, np_key, *np_rest = np.random.get_state()
    rng_state = {
        "python": random.getstate(),
        "numpy": [np_name, torch.as_tensor(np_key.astype(np.int64)), *np_rest],
        "torch": torch.get_rng_state().clone(),
    }
    if torch.cuda.is_available():
        rng_state["cuda"] = [s.clone() for s in torch.cuda.get_rng_state_all()]
    if generator is not None:
        rng_state["generator"] = generator.get_state().clone()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
                "rng_state": rng_state}, path)
    return Path(path)
""",
        "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(Path(path), weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rng_state = ckpt["rng_state"]
    random.setstate(rng_state["python"])
    np_name, np_key, *np_rest = rng_state["numpy"]
    np.random.set_state((np_name, np_key.numpy().astype(np.uint32), *np_rest))
    torch.set_rng_state(rng_state["torch"])
    try:
        if "cuda" in rng_state:
            torch.cuda.set_rng_state_all(rng_state["cuda"])
    except RuntimeError:
        pass
    if generator is not None and "generator" in rng_state:
        generator.set_state(rng_state["generator"])
    return ckpt["epoch"] + 1
""",
        "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    np_name, np_key, *np_rest = rng["numpy"]
    np.random.set_state((np_name, np.array(np_key, dtype=np.uint32), *np_rest))
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
    },
}

# The course's answer in a student's own names (canonical-2); canonical-1 hands in the reference word for word.
CANONICAL_OWN_NAMES = {
    "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    g = torch.Generator()
    g.manual_seed(seed)
    return g
""",
    "save_checkpoint": SV_DOC + """\
    def _np_state():
        kind, keys, position, has_gauss, gauss = np.random.get_state()
        return [kind, keys.tolist(), position, has_gauss, gauss]

    ckpt = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": epoch,
        "rng": {
            "python": random.getstate(),
            "numpy": _np_state(),
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            "generator": None if generator is None else generator.get_state(),
        },
    }
    target = Path(path)
    torch.save(ckpt, target)
    return target
""",
    "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    states = ckpt["rng"]
    random.setstate(states["python"])
    kind, keys, position, has_gauss, gauss = states["numpy"]
    np.random.set_state((kind, np.array(keys, dtype=np.uint32), position, has_gauss, gauss))
    torch.set_rng_state(states["torch"])
    if states["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])
    if generator is not None and states["generator"] is not None:
        generator.set_state(states["generator"])
    return ckpt["epoch"] + 1
""",
    "repair_load_checkpoint": RL_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    states = ckpt["rng"]
    random.setstate(states["python"])
    kind, keys, position, has_gauss, gauss = states["numpy"]
    np.random.set_state((kind, np.array(keys, dtype=np.uint32), position, has_gauss, gauss))
    torch.set_rng_state(states["torch"])
    if states["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])
    if generator is not None and states["generator"] is not None:
        generator.set_state(states["generator"])
    return ckpt["epoch"] + 1
""",
}

_RENAMED = {  # honest-04's answers: locals renamed, comments and docstrings rewritten
    "seed_everything": SE + """\
    \"\"\"Seeds python, numpy, torch and cuda, and gives back a generator for the data loaders.\"\"\"
    import os

    # make hashing reproducible as well
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    # cuDNN: no autotuning, deterministic kernels only
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    return torch.Generator().manual_seed(seed)
""",
    "save_checkpoint": SV + """\
    \"\"\"Writes the training state (weights, optimizer, epoch, all RNG states) to `path`.\"\"\"
    numpy_rng = np.random.get_state()
    # everything needed to pick the run up again
    torch.save({
        "epoch": epoch,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "python_rng_state": random.getstate(),
        "numpy_rng_state": [numpy_rng[0], torch.tensor(numpy_rng[1].astype(np.int64)), numpy_rng[2], numpy_rng[3],
                            numpy_rng[4]],
        "torch_rng_state": torch.get_rng_state(),
        "cuda_rng_state": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "generator_state": None if generator is None else generator.get_state(),
    }, path)
    return Path(path)
""",
    "load_checkpoint": LD + """\
    \"\"\"Loads a checkpoint back into model/optimizer/generator and returns the epoch to continue from.\"\"\"
    ck = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(ck["model_state_dict"])
    optimizer.load_state_dict(ck["optimizer_state_dict"])
    # RNG states
    random.setstate(ck["python_rng_state"])
    ns = ck["numpy_rng_state"]
    np.random.set_state((ns[0], ns[1].numpy().astype(np.uint32), ns[2], ns[3], ns[4]))
    torch.set_rng_state(ck["torch_rng_state"])
    if ck["cuda_rng_state"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ck["cuda_rng_state"])
    if generator is not None and ck["generator_state"] is not None:
        generator.set_state(ck["generator_state"])
    return ck["epoch"] + 1
""",
    "repair_load_checkpoint": RL + """\
    loaded = torch.load(path, weights_only=True)
    model.load_state_dict(loaded["model"])
    optimizer.load_state_dict(loaded["optimizer"])  # was: a brand new optimizer
    states = loaded["rng"]
    random.setstate(states["python"])
    numpy_rng = states["numpy"]
    np.random.set_state((numpy_rng[0], np.array(numpy_rng[1], dtype=np.uint32), *numpy_rng[2:]))
    torch.set_rng_state(states["torch"])
    if states.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])
    if generator is not None and states.get("generator") is not None:
        generator.set_state(states["generator"])
    return loaded["epoch"] + 1  # resume after the saved epoch
""",
}

_DEBUG = {  # honest-09's answers with an unused flag and counter, a branch that never runs, debugging prints
    "seed_everything": SE_DOC + """\
    DEBUG = False
    if not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if DEBUG:
        print("seeded python, numpy and torch with", seed)

    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)
    rng = torch.Generator()
    rng.manual_seed(seed)
    print("seed_everything: generator ready")
    return rng
""",
    "save_checkpoint": SV_DOC + """\
    import os

    directory = os.path.dirname(str(path))
    if directory:
        os.makedirs(directory, exist_ok=True)
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": int(epoch)}
    n_saved = 0
    np_name, np_key, np_pos, np_has_gauss, np_cached = np.random.get_state()
    # print(np_name, np_pos)
    state["rng_python"] = random.getstate()
    state["rng_numpy"] = (np_name, np_key.tolist(), np_pos, np_has_gauss, np_cached)
    state["rng_torch"] = torch.get_rng_state()

    state["rng_cuda"] = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    state["rng_generator"] = generator.get_state() if generator is not None else None
    n_saved += len(state)
    print(f"saving {n_saved} entries to {path}")
    torch.save(state, path)
    return Path(path)
""",
    "load_checkpoint": LD_DOC + """\
    state = torch.load(path, weights_only=True)
    print("checkpoint keys:", sorted(state))
    for key in ("model", "optimizer", "epoch", "rng_python", "rng_numpy", "rng_torch"):
        if key not in state:
            raise KeyError(f"checkpoint {path} has no {key!r}")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    old_lr = None
    random.setstate(state["rng_python"])
    np_name, np_key, np_pos, np_has_gauss, np_cached = state["rng_numpy"]
    np.random.set_state((np_name, np.array(np_key, dtype=np.uint32), np_pos, np_has_gauss, np_cached))
    torch.set_rng_state(state["rng_torch"])
    if state.get("rng_cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["rng_cuda"])
    if generator is not None and state.get("rng_generator") is not None:
        generator.set_state(state["rng_generator"])
    if False:
        print("restored generator", generator.get_state()[:8])
    print("resuming at epoch", state["epoch"] + 1)
    return state["epoch"] + 1
""",
}

_REORDERED = {  # honest-12's answers with independent statements reordered and temporaries inlined
    "seed_everything": SE_DOC + """\
    np.random.seed(seed)
    torch.manual_seed(seed)
    random.seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    my_generator = torch.Generator()
    my_generator = my_generator.manual_seed(seed)
    return my_generator
""",
    "save_checkpoint": SV_DOC + """\
    numpy_state_list = []
    for item in np.random.get_state():
        if isinstance(item, np.ndarray):
            numpy_state_list.append(item.tolist())
        else:
            numpy_state_list.append(item)
    if generator is None:
        generator_state = None
    else:
        generator_state = generator.get_state()
    if torch.cuda.is_available():
        cuda_state = torch.cuda.get_rng_state_all()
    else:
        cuda_state = None
    checkpoint = {}
    checkpoint["epoch"] = epoch
    checkpoint["model"] = model.state_dict()
    checkpoint["optimizer"] = optimizer.state_dict()
    checkpoint["numpy_state"] = numpy_state_list
    checkpoint["python_state"] = random.getstate()
    checkpoint["torch_state"] = torch.get_rng_state()
    checkpoint["generator_state"] = generator_state
    checkpoint["cuda_state"] = cuda_state
    torch.save(checkpoint, path)
    return Path(path)
""",
    "load_checkpoint": LD_DOC + """\
    checkpoint = torch.load(path, weights_only=True)
    random.setstate(checkpoint["python_state"])
    numpy_state_list = checkpoint["numpy_state"]
    np.random.set_state((numpy_state_list[0], np.array(numpy_state_list[1], dtype=np.uint32), numpy_state_list[2],
                         numpy_state_list[3], numpy_state_list[4]))
    torch.set_rng_state(checkpoint["torch_state"])
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    if generator is not None:
        if checkpoint["generator_state"] is not None:
            generator.set_state(checkpoint["generator_state"])
    if checkpoint["cuda_state"] is not None:
        if torch.cuda.is_available():
            torch.cuda.set_rng_state_all(checkpoint["cuda_state"])
    return checkpoint["epoch"] + 1
""",
    "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    rng = state["rng"]
    optimizer.load_state_dict(state["optimizer"])
    model.load_state_dict(state["model"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    random.setstate(rng["python"])
    if generator is not None:
        if rng["generator"] is not None:
            generator.set_state(rng["generator"])
    if rng["cuda"] is not None:
        if torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])
    return state["epoch"] + 1
""",
}

_LOOPS = {  # honest-11's answers: comprehensions as loops, for as while, a loop over the seeders
    "seed_everything": SE_DOC + """\
    seeders = [random.seed, np.random.seed, torch.manual_seed]
    i = 0
    while i < len(seeders):
        seeders[i](seed)
        i += 1
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    return torch.Generator().manual_seed(seed)
""",
    "save_checkpoint": SV_DOC + """\
    def numpy_state():
        kind, key, pos, has_gauss, cached = np.random.get_state()
        return {"kind": kind, "key": torch.from_numpy(key.astype(np.int64)), "pos": pos,
                "has_gauss": has_gauss, "cached": cached}

    getters = {"python": random.getstate, "numpy": numpy_state, "torch": torch.get_rng_state}
    if torch.cuda.is_available():
        getters["cuda"] = torch.cuda.get_rng_state_all
    if generator is not None:
        getters["generator"] = generator.get_state
    rng = {}
    for name in getters:
        rng[name] = getters[name]()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch, "rng": rng},
               path)
    return Path(path)
""",
    "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rng = ckpt["rng"]

    def set_numpy(s):
        np.random.set_state((s["kind"], s["key"].numpy().astype(np.uint32), s["pos"], s["has_gauss"], s["cached"]))

    setters = {"python": random.setstate, "numpy": set_numpy, "torch": torch.set_rng_state}
    if torch.cuda.is_available():
        setters["cuda"] = torch.cuda.set_rng_state_all
    if generator is not None:
        setters["generator"] = generator.set_state
    names = list(setters)
    i = 0
    while i < len(names):
        if names[i] in rng:
            setters[names[i]](rng[names[i]])
        i += 1
    return ckpt["epoch"] + 1
""",
    "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    for obj, part in [(model, "model"), (optimizer, "optimizer")]:
        obj.load_state_dict(state[part])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"] is not None:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None:
        generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
}

_BRANCHES = {  # honest-13's answers: conditions negated and branches swapped, expressions as statements, early return
    "seed_everything": SE_DOC + """\
    np.random.seed(seed)
    random.seed(seed)
    torch.manual_seed(seed)
    if not torch.cuda.is_available():
        pass
    else:
        torch.cuda.manual_seed_all(seed)
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator
""",
    "save_checkpoint": SV_DOC + """\
    fields = ("name", "key", "pos", "has_gauss", "cached")
    numpy_state = dict(zip(fields, np.random.get_state()))
    numpy_state["key"] = numpy_state["key"].tolist()
    if not torch.cuda.is_available():
        cuda_state = None
    else:
        cuda_state = torch.cuda.get_rng_state_all()
    if not generator:
        generator_state = None
    else:
        generator_state = generator.get_state()
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": epoch,
        "random_state": random.getstate(),
        "numpy_state": numpy_state,
        "torch_state": torch.get_rng_state(),
        "cuda_state": cuda_state,
        "generator_state": generator_state,
    }
    torch.save(checkpoint, str(path))
    return Path(path)
""",
    "load_checkpoint": LD_DOC + """\
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    random.setstate(checkpoint["random_state"])
    fields = ("name", "key", "pos", "has_gauss", "cached")
    numpy_state = [checkpoint["numpy_state"][f] for f in fields]
    numpy_state[1] = np.asarray(numpy_state[1], dtype=np.uint32)
    np.random.set_state(tuple(numpy_state))
    torch.set_rng_state(checkpoint["torch_state"])
    if not torch.cuda.is_available() or checkpoint["cuda_state"] is None:
        pass
    else:
        torch.cuda.set_rng_state_all(checkpoint["cuda_state"])
    if not generator or checkpoint["generator_state"] is None:
        return checkpoint["epoch"] + 1
    generator.set_state(checkpoint["generator_state"])
    return checkpoint["epoch"] + 1
""",
    "repair_load_checkpoint": RL_DOC + """\
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    np_state = list(rng["numpy"])
    np_state[1] = np.asarray(np_state[1], dtype=np.uint32)
    np.random.set_state(tuple(np_state))
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available():
        if rng["cuda"] is not None:
            torch.cuda.set_rng_state_all(rng["cuda"])
    next_epoch = state["epoch"] + 1
    if not generator or rng["generator"] is None:
        return next_epoch
    generator.set_state(rng["generator"])
    return next_epoch
""",
}

_SPELLINGS = {  # honest-10's answers in other spellings of the same calls
    "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    return torch.Generator("cpu").manual_seed(seed)
""",
    "save_checkpoint": SV_DOC + """\
    ns = np.random.get_state()
    rng = dict(
        py=random.getstate(),
        np=dict(name=ns[0], key=list(map(int, ns[1])), pos=ns[2], has_gauss=ns[3], cached=ns[4]),
        cpu=torch.get_rng_state(),
        gpu=torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        dl=torch.clone(generator.get_state()) if generator is not None else None,
    )
    torch.save(dict(epoch=epoch, net=model.state_dict(), opt=optimizer.state_dict(), rng=rng), path)
    return Path(path)
""",
    "load_checkpoint": LD_DOC + """\
    ck = torch.load(path, weights_only=True)
    model.load_state_dict(ck["net"])
    optimizer.load_state_dict(ck["opt"])
    rng = ck["rng"]
    random.setstate(rng["py"])
    ns = rng["np"]
    np.random.set_state((ns["name"], np.asarray(ns["key"], dtype="uint32"), ns["pos"], ns["has_gauss"], ns["cached"]))
    torch.set_rng_state(rng["cpu"])
    if rng["gpu"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["gpu"])
    if rng["dl"] is not None and generator is not None:
        generator.set_state(rng["dl"])
    return 1 + int(ck["epoch"])
""",
    "repair_load_checkpoint": RL_DOC + """\
    ck = torch.load(path, weights_only=True)
    model.load_state_dict(ck["model"])
    optimizer.load_state_dict(ck["optimizer"])
    rng = ck["rng"]
    random.setstate(rng["python"])
    ns = rng["numpy"]
    np.random.set_state((ns[0], np.asarray(ns[1], dtype="uint32"), ns[2], ns[3], ns[4]))
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    if rng["generator"] is not None and generator is not None:
        generator.set_state(rng["generator"])
    return 1 + int(ck["epoch"])
""",
}

_HELPERS = {  # honest-06's answers moved into helpers: module-level functions, a nested one, lambdas, a class
    "seed_everything": SE_DOC + """\
    def _seed_libraries(s):
        random.seed(s)
        np.random.seed(s % 2**32)
        torch.manual_seed(s)
        torch.cuda.manual_seed_all(s)  # a no-op without a GPU

    _seed_libraries(seed)
    make_generator = lambda s: torch.Generator().manual_seed(s)
    return make_generator(seed)
""",
    "save_checkpoint": """\
def _numpy_fields():
    _, key, pos, has_gauss, cached = np.random.get_state()
    return torch.tensor(key.astype(np.int64)), pos, has_gauss, cached


_cuda_states = lambda: torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []


""" + SV_DOC + """\
    numpy_key, numpy_pos, numpy_has_gauss, numpy_cached = _numpy_fields()
    payload = dict(
        model=model.state_dict(),
        optimizer=optimizer.state_dict(),
        epoch=epoch,
        python_state=random.getstate(),
        numpy_key=numpy_key,
        numpy_pos=numpy_pos,
        numpy_has_gauss=numpy_has_gauss,
        numpy_cached=numpy_cached,
        torch_state=torch.get_rng_state(),
        cuda_states=_cuda_states(),
        loader_state=generator.get_state() if generator is not None else None,
    )
    with open(path, "wb") as f:
        torch.save(payload, f)
    return Path(path)
""",
    "load_checkpoint": """\
class _Restorer:
    def __init__(self, payload):
        self.payload = payload

    def numpy(self):
        p = self.payload
        np.random.set_state(("MT19937", p["numpy_key"].numpy().astype(np.uint32), p["numpy_pos"],
                             p["numpy_has_gauss"], p["numpy_cached"]))

    def cuda(self):
        if self.payload["cuda_states"] and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(self.payload["cuda_states"])


""" + LD_DOC + """\
    with open(path, "rb") as f:
        payload = torch.load(f, weights_only=True)
    model.load_state_dict(payload["model"])
    optimizer.load_state_dict(payload["optimizer"])
    restorer = _Restorer(payload)
    random.setstate(payload["python_state"])
    restorer.numpy()
    torch.set_rng_state(payload["torch_state"])
    restorer.cuda()
    if generator is not None and payload["loader_state"] is not None:
        generator.set_state(payload["loader_state"])
    return payload["epoch"] + 1
""",
    "repair_load_checkpoint": RL_DOC + """\
    def _read(p):
        with open(p, "rb") as f:
            return torch.load(f, weights_only=True)

    def _restore_numpy(np_state):
        np_name, np_key, np_pos, np_has_gauss, np_cached = np_state
        np.random.set_state((np_name, np.array(np_key, dtype=np.uint32), np_pos, np_has_gauss, np_cached))

    ckpt = _read(path)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rng = ckpt["rng"]
    random.setstate(rng["python"])
    _restore_numpy(rng["numpy"])
    torch.set_rng_state(rng["torch"])
    if torch.cuda.is_available() and rng["cuda"]:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    return ckpt["epoch"] + 1
""",
}

_DEFENSIVE = {  # honest-14's answers with try/except wrappers, assertions and type hints added
    "seed_everything": """\
def seed_everything(seed: int) -> torch.Generator:
    \"\"\"Seed every RNG; return a seeded generator for DataLoaders.\"\"\"
    assert isinstance(seed, int), "seed must be an int"
    try:
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
    except (TypeError, ValueError) as err:
        raise ValueError(f"could not seed with {seed!r}") from err
    try:
        torch.cuda.manual_seed_all(seed)
    except RuntimeError:
        pass
    gen = torch.Generator()
    return gen.manual_seed(seed)
""",
    "save_checkpoint": """\
def save_checkpoint(path: "str | Path", model: torch.nn.Module, optimizer: torch.optim.Optimizer, epoch: int,
                    generator: "torch.Generator | None" = None) -> Path:
    \"\"\"Model, optimizer, epoch and every RNG state in one file.\"\"\"
    assert epoch >= 0, "epoch must not be negative"
    np_name, np_key, *np_rest = np.random.get_state()
    rng_state: dict = {
        "python": random.getstate(),
        "numpy": [np_name, torch.as_tensor(np_key.astype(np.int64)), *np_rest],
        "torch": torch.get_rng_state().clone(),
    }
    try:
        if torch.cuda.is_available():
            rng_state["cuda"] = [s.clone() for s in torch.cuda.get_rng_state_all()]
    except RuntimeError:
        pass
    if generator is not None:
        rng_state["generator"] = generator.get_state().clone()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
                "rng_state": rng_state}, path)
    return Path(path)
""",
    "load_checkpoint": """\
def load_checkpoint(path: "str | Path", model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                    generator: "torch.Generator | None" = None) -> int:
    \"\"\"Restore everything into the caller's objects; return the next epoch to run.\"\"\"
    try:
        ckpt = torch.load(Path(path), weights_only=True)
    except FileNotFoundError:
        raise FileNotFoundError(f"no checkpoint at {path}") from None
    assert "rng_state" in ckpt, "checkpoint has no RNG states"
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rng_state: dict = ckpt["rng_state"]
    random.setstate(rng_state["python"])
    np_name, np_key, *np_rest = rng_state["numpy"]
    np.random.set_state((np_name, np_key.numpy().astype(np.uint32), *np_rest))
    torch.set_rng_state(rng_state["torch"])
    try:
        if "cuda" in rng_state:
            torch.cuda.set_rng_state_all(rng_state["cuda"])
    except RuntimeError:
        pass
    if generator is not None and "generator" in rng_state:
        generator.set_state(rng_state["generator"])
    next_epoch: int = ckpt["epoch"] + 1
    assert next_epoch > 0
    return next_epoch
""",
    "repair_load_checkpoint": """\
def repair_load_checkpoint(path: str, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                           generator: "torch.Generator | None" = None) -> int:
    \"\"\"Restore a checkpoint in the team's format; return the epoch to run next (from a colleague's notebook).\"\"\"
    state = torch.load(path, weights_only=True)
    assert {"model", "optimizer", "epoch", "rng"} <= set(state), "not the team's format"
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    np_name, np_key, *np_rest = rng["numpy"]
    np.random.set_state((np_name, np.array(np_key, dtype=np.uint32), *np_rest))
    torch.set_rng_state(rng["torch"])
    try:
        if rng["cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])
    except RuntimeError as err:
        print("could not restore the CUDA RNG:", err)
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    return state["epoch"] + 1
""",
}

_CHAIN_B = {  # honest-02's answers lightly renamed, the comments dropped (the first link of a chain)
    "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    dl_gen = torch.Generator(device="cpu")
    dl_gen.manual_seed(seed)
    return dl_gen
""",
    "save_checkpoint": SV_DOC + """\
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    name, keys, pos, has_gauss, gauss = np.random.get_state()
    rngs = {
        "python": random.getstate(),
        "numpy": {"name": name, "keys": torch.from_numpy(keys.astype(np.int64)), "pos": pos,
                  "has_gauss": has_gauss, "gauss": gauss},
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        rngs["cuda"] = torch.cuda.get_rng_state_all()
    if generator is not None:
        rngs["generator"] = generator.get_state()
    ckpt = {
        "epoch": epoch,
        "model_state": model.state_dict(),
        "optimizer_state": optimizer.state_dict(),
        "rng_states": rngs,
    }
    torch.save(ckpt, path)
    return path
""",
    "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model_state"])
    optimizer.load_state_dict(ckpt["optimizer_state"])
    rngs = ckpt["rng_states"]
    random.setstate(rngs["python"])
    n = rngs["numpy"]
    np.random.set_state((n["name"], n["keys"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["gauss"]))
    torch.set_rng_state(rngs["torch"])
    if "cuda" in rngs and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rngs["cuda"])
    if generator is not None and "generator" in rngs:
        generator.set_state(rngs["generator"])
    return ckpt["epoch"] + 1
""",
    "repair_load_checkpoint": RL_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    rngs = ckpt["rng"]
    random.setstate(rngs["python"])
    name, key, pos, has_gauss, cached = rngs["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rngs["torch"])
    if rngs["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rngs["cuda"])
    if generator is not None and rngs["generator"] is not None:
        generator.set_state(rngs["generator"])
    return ckpt["epoch"] + 1
""",
}

_CHAIN_C = {  # the second link reworks what chain-b handed on: zip/enumerate, the dicts built another way
    "save_checkpoint": SV_DOC + """\
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    numpy_state = np.random.get_state()
    np_fields = dict(zip(("name", "keys", "pos", "has_gauss", "gauss"), numpy_state))
    np_fields["keys"] = torch.from_numpy(np_fields["keys"].astype(np.int64))
    rngs = {"python": random.getstate(), "numpy": np_fields, "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        rngs.update(cuda=torch.cuda.get_rng_state_all())
    if generator is not None:
        rngs.update(generator=generator.get_state())
    ckpt = dict(epoch=epoch, model_state=model.state_dict(), optimizer_state=optimizer.state_dict(), rng_states=rngs)
    with open(path, "wb") as fh:
        torch.save(ckpt, fh)
    return path
""",
    "load_checkpoint": LD_DOC + """\
    with open(path, "rb") as fh:
        ckpt = torch.load(fh, weights_only=True)
    for target, key in zip((model, optimizer), ("model_state", "optimizer_state")):
        target.load_state_dict(ckpt[key])
    rngs = ckpt["rng_states"]
    random.setstate(rngs["python"])
    n = rngs["numpy"]
    np.random.set_state(tuple(n[k].numpy().astype(np.uint32) if k == "keys" else n[k]
                              for k in ("name", "keys", "pos", "has_gauss", "gauss")))
    torch.set_rng_state(rngs["torch"])
    if "cuda" in rngs and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rngs["cuda"])
    if generator is not None and "generator" in rngs:
        generator.set_state(rngs["generator"])
    return ckpt["epoch"] + 1
""",
    "repair_load_checkpoint": RL_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    for target, key in zip((model, optimizer), ("model", "optimizer")):
        target.load_state_dict(ckpt[key])
    rngs = ckpt["rng"]
    random.setstate(rngs["python"])
    np_state = [np.array(v, dtype=np.uint32) if i == 1 else v for i, v in enumerate(rngs["numpy"])]
    np.random.set_state(tuple(np_state))
    torch.set_rng_state(rngs["torch"])
    if rngs["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rngs["cuda"])
    if generator is not None and rngs["generator"] is not None:
        generator.set_state(rngs["generator"])
    return ckpt["epoch"] + 1
""",
}

_CHAIN_C_OWN = {
    "seed_everything": SE_DOC + """\
    import random as py_random

    py_random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.device_count() > 0:
        torch.cuda.manual_seed_all(seed)
    return torch.Generator().manual_seed(seed)
""",
}

_MERGE = {  # seeding and the repair from honest-05, type hints dropped; the save/load pair from honest-08, expanded
    "seed_everything": SE + """\
    \"\"\"seeds python/numpy/torch(/cuda) and returns a torch.Generator for the DataLoader\"\"\"
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    gen = torch.Generator().manual_seed(seed)
    return gen
""",
    "save_checkpoint": SV_DOC + """\
    np_state = list(np.random.get_state())
    np_state[1] = np_state[1].tolist()
    if torch.cuda.is_available():
        cuda = torch.cuda.get_rng_state_all()
    else:
        cuda = None
    gen = generator.get_state() if generator is not None else None
    rng = (random.getstate(), np_state, torch.get_rng_state(), cuda, gen)
    torch.save({
        "model": model.state_dict(),
        "opt": optimizer.state_dict(),
        "next_epoch": epoch + 1,
        "rng": rng,
    }, path)
    return Path(path)
""",
    "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["opt"])
    rng = ckpt["rng"]
    random.setstate(rng[0])
    np_state = rng[1]
    np.random.set_state((np_state[0], np.array(np_state[1], dtype=np.uint32), *np_state[2:]))
    torch.set_rng_state(rng[2])
    if rng[3] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng[3])
    if rng[4] is not None and generator is not None:
        generator.set_state(rng[4])
    return ckpt["next_epoch"]
""",
    "repair_load_checkpoint": RL + """\
    \"\"\"Load the team checkpoint into the given objects and return the next epoch.\"\"\"
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    cuda_states = rng["cuda"]
    if cuda_states is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(cuda_states)
    gen_state = rng["generator"]
    if generator is not None and gen_state is not None:
        generator.set_state(gen_state)
    next_epoch = state["epoch"] + 1
    return next_epoch
""",
}

_HALF = {  # honest-03's seeding with its loop unrolled, and its repair with the guards merged into a helper
    "seed_everything": SE_DOC + """\
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    g = torch.Generator()
    g.manual_seed(seed)
    return g
""",
    "repair_load_checkpoint": RL_DOC + """\
    def restore_if(saved, restore, allowed=True):
        if allowed and saved is not None:
            restore(saved)

    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(rng["python"])
    name, key, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    restore_if(rng["cuda"], torch.cuda.set_rng_state_all, torch.cuda.is_available())
    if generator is not None:
        restore_if(rng["generator"], generator.set_state)
    return state["epoch"] + 1
""",
}

_HALF_OWN = {  # ... and a save/load pair of the copier's own
    "save_checkpoint": SV_DOC + """\
    ckpt_path = Path(path)
    np_state = np.random.get_state()
    torch.save(
        {
            "weights": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "epoch": epoch,
            "python_random": random.getstate(),
            "numpy_random": {"state": np_state[0], "key": torch.tensor(np_state[1].tolist()), "pos": np_state[2],
                             "gauss": (np_state[3], np_state[4])},
            "torch_random": torch.get_rng_state(),
            "cuda_random": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            "loader_random": generator.get_state() if generator is not None else None,
        },
        ckpt_path,
    )
    return ckpt_path
""",
    "load_checkpoint": LD_DOC + """\
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["weights"])
    optimizer.load_state_dict(ckpt["optimizer"])
    random.setstate(ckpt["python_random"])
    npr = ckpt["numpy_random"]
    has_gauss, gauss = npr["gauss"]
    np.random.set_state((npr["state"], npr["key"].numpy().astype(np.uint32), npr["pos"], has_gauss, gauss))
    torch.set_rng_state(ckpt["torch_random"])
    if ckpt["cuda_random"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ckpt["cuda_random"])
    if generator is not None and ckpt["loader_random"] is not None:
        generator.set_state(ckpt["loader_random"])
    return ckpt["epoch"] + 1
""",
}

_ALL = ("seed_everything", "save_checkpoint", "load_checkpoint", "repair_load_checkpoint")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-renamed", "locals renamed, comments and docstrings rewritten", _taken("honest-04"), _RENAMED),
    Copy("copier-debug", "dead code and debugging prints added", _taken("honest-09"), _DEBUG),
    Copy("copier-reorder", "statements reordered, temporaries inlined", _taken("honest-12"), _REORDERED),
    Copy("copier-loops", "comprehensions as loops, for as while", _taken("honest-11"), _LOOPS),
    Copy("copier-branches", "conditions negated and branches swapped, an early return", _taken("honest-13"),
         _BRANCHES),
    Copy("copier-spellings", "equivalent PyTorch and Python spellings", _taken("honest-10"), _SPELLINGS),
    Copy("copier-helpers", "code moved into helpers, lambdas and a class", _taken("honest-06"), _HELPERS),
    Copy("copier-defensive", "try/except, assertions and type hints added", _taken("honest-14"), _DEFENSIVE),
    Copy("chain-b", "renamed, comments dropped (first link of a chain)", _taken("honest-02"), _CHAIN_B),
    Copy("chain-c", "zip/enumerate rewrites, dicts built another way (second link of a chain)",
         _taken("chain-b", _ALL[1:]), _CHAIN_C, _CHAIN_C_OWN),
    Copy("copier-merge", "two classmates merged, hints dropped, one-liners expanded",
         {"seed_everything": "honest-05", "repair_load_checkpoint": "honest-05",
          "save_checkpoint": "honest-08", "load_checkpoint": "honest-08"}, _MERGE),
    Copy("copier-half", "half the cells copied, a loop unrolled, guards moved into a helper",
         _taken("honest-03", ("seed_everything", "repair_load_checkpoint")), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 08 (twenty-eight students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
