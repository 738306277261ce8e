"""Module 08-reproducible-training: mutants and correct variants."""

from ...starters import REPAIR_LOAD_CHECKPOINT
from . import Mutant, do_nothing, hold_to_words, patched, repair_catalogue
from .found import mutants as found_mutants

MODULE = "08-reproducible-training"

SE = "def seed_everything(seed):\n"
SV = "def save_checkpoint(path, model, optimizer, epoch, generator=None):\n"
LD = "def load_checkpoint(path, model, optimizer, generator=None):\n"

# The solution's seed_everything: an edit without its CUDA seeding, and its last lines (the generator).
_NO_CUDA_SEED = ("    if torch.cuda.is_available():\n        torch.cuda.manual_seed_all(seed)\n", "")
_GENERATOR = "    generator = torch.Generator()\n    generator.manual_seed(seed)\n    return generator\n"

_SAVE_ALL = SV + """
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
             "python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state(),
             "generator": None if generator is None else generator.get_state()}
    torch.save(state, path)
    return Path(path)
"""
_LOAD_ALL = LD + """
    state = torch.load(path, weights_only=False)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if generator is not None:
        generator.set_state(state["generator"])
    return state["epoch"] + 1
"""

BOTH = ["test_save_checkpoint_restores_everything", "test_load_checkpoint_resume_matches"]

MUTANTS = {
    "seed_torch_only": Mutant(patched(
        MODULE, "seed_everything", ("    random.seed(seed)\n    np.random.seed(seed)\n", ""),
        _NO_CUDA_SEED,
        (_GENERATOR, "    g = torch.Generator()\n    g.manual_seed(seed)\n    return g\n")),
        ["test_seed_everything_rngs"], ["unseeded_python"]),
    "seed_generator_unseeded": Mutant(patched(
        MODULE, "seed_everything", _NO_CUDA_SEED,
        (_GENERATOR, "    return torch.Generator()\n")),
        ["test_seed_everything_rngs"], ["generator_unseeded"]),
    "seed_fixed": Mutant(patched(
        MODULE, "seed_everything", ("random.seed(seed)", "random.seed(0)"),
        ("np.random.seed(seed)", "np.random.seed(0)"),
        ("torch.manual_seed(seed)", "torch.manual_seed(0)"),
        _NO_CUDA_SEED,
        (_GENERATOR, "    return torch.Generator().manual_seed(0)\n")),
        ["test_seed_everything_rngs"], ["ignores_seed"]),
    "seed_returns_none": Mutant(patched(MODULE, "seed_everything", _NO_CUDA_SEED, (_GENERATOR, "")),
                                ["test_seed_everything_rngs"], ["no_generator"]),
    "checkpoint_without_optimizer": Mutant({
        "save_checkpoint": _SAVE_ALL.replace('"optimizer": optimizer.state_dict(), ', ""),
        "load_checkpoint": _LOAD_ALL.replace('    optimizer.load_state_dict(state["optimizer"])\n', ""),
    }, ["test_save_checkpoint_restores_everything"], ["optimizer_not_restored"], words=("holds no copy of the optimizer's state",)),
    "checkpoint_without_rng_states": Mutant({
        "save_checkpoint": SV + """
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)
    return Path(path)
""",
        "load_checkpoint": LD + """
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1
""",
    }, ["test_save_checkpoint_restores_everything"], ["generator_not_restored"]),
    "checkpoint_without_generator": Mutant({
        "save_checkpoint": _SAVE_ALL,
        "load_checkpoint": _LOAD_ALL.replace("    if generator is not None:\n"
                                             "        generator.set_state(state[\"generator\"])\n", ""),
    }, ["test_load_checkpoint_resume_matches"], ["generator_not_restored"]),
    "checkpoint_without_numpy_state": Mutant({
        "save_checkpoint": _SAVE_ALL,
        "load_checkpoint": _LOAD_ALL.replace('    np.random.set_state(state["numpy"])\n', ""),
    }, ["test_load_checkpoint_resume_matches"], ["numpy_rng_not_restored"], words=("NumPy's global RNG state", "np.random.set_state()")),
    "checkpoint_pickles_the_model": Mutant({
        "save_checkpoint": _SAVE_ALL.replace('"model": model.state_dict()', '"model": model'),
        "load_checkpoint": _LOAD_ALL.replace('    model.load_state_dict(state["model"])\n',
                                             '    model = state["model"]\n'),
    }, BOTH, ["pickled_object"]),
    "load_builds_new_optimizer": Mutant({
        "save_checkpoint": _SAVE_ALL,
        "load_checkpoint": _LOAD_ALL.replace('    optimizer.load_state_dict(state["optimizer"])\n',
                                             '    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)\n'
                                             '    optimizer.load_state_dict(state["optimizer"])\n'),
    }, ["test_load_checkpoint_resume_matches"], ["optimizer_not_restored"], words=("the file holds it", "not the caller's")),
    "load_epoch_off_by_one": Mutant({
        "save_checkpoint": _SAVE_ALL,
        "load_checkpoint": _LOAD_ALL.replace('return state["epoch"] + 1', 'return state["epoch"]'),
    }, ["test_load_checkpoint_resume_matches"], ["epoch_off_by_one"], words=("load_checkpoint's epoch counter", "saved epoch plus one")),
    # np.random.get_state() stored as it comes: its key is an ndarray, which torch.load(weights_only=True) refuses.
    "checkpoint_numpy_state_raw": Mutant(patched(MODULE, "save_checkpoint", ('"numpy": _numpy_state(),',
                                                                             '"numpy": np.random.get_state(),')),
                                         BOTH, ["not_weights_only"], words=("keep weights_only=True",)),
    # The CUDA state restored whether or not the machine has CUDA: on a CPU-only machine the file holds None.
    "load_cuda_state_unguarded": Mutant(patched(
        MODULE, "load_checkpoint", ('    if rng["cuda"] is not None and torch.cuda.is_available():\n'
                                    '        torch.cuda.set_rng_state_all(rng["cuda"])',
                                    '    torch.cuda.set_rng_state_all(rng["cuda"])')),
        ["test_load_checkpoint_resume_matches"], ["cuda_only_api"], cpu_only=True,
        words=("restore the CUDA state only when torch.cuda.is_available()",)),
    "load_into_a_fresh_model": Mutant({
        "save_checkpoint": _SAVE_ALL,
        "load_checkpoint": _LOAD_ALL.replace('    model.load_state_dict(state["model"])\n',
                                             '    import copy\n'
                                             '    model = copy.deepcopy(model)\n'
                                             '    model.load_state_dict(state["model"])\n'),
    }, ["test_load_checkpoint_resume_matches"], ["model_not_restored"], words=("load_checkpoint: the file holds it",)),
}

VARIANTS = {
    "checkpoint_several_files": {
        "save_checkpoint": SV + """
    folder = Path(path).with_suffix("")
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), folder / "model.pt")
    torch.save(optimizer.state_dict(), folder / "optimizer.pt")
    torch.save({"epoch": epoch, "torch": torch.get_rng_state(),
                "generator": generator.get_state() if generator is not None else None,
                "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []}, folder / "torch_rng.pt")
    import pickle
    with open(folder / "host_rng.pkl", "wb") as fh:
        pickle.dump({"python": random.getstate(), "numpy": np.random.get_state()}, fh)
    return folder
""",
        "load_checkpoint": LD + """
    import pickle
    folder = Path(path)
    model.load_state_dict(torch.load(folder / "model.pt"))
    optimizer.load_state_dict(torch.load(folder / "optimizer.pt"))
    rng = torch.load(folder / "torch_rng.pt")
    torch.set_rng_state(rng["torch"])
    if rng["cuda"]:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if generator is not None and rng["generator"] is not None:
        generator.set_state(rng["generator"])
    with open(folder / "host_rng.pkl", "rb") as fh:
        host = pickle.load(fh)
    random.setstate(host["python"])
    np.random.set_state(host["numpy"])
    return rng["epoch"] + 1
""",
    },
    "checkpoint_completed_epochs": {
        "save_checkpoint": _SAVE_ALL.replace('"epoch": epoch', '"completed": epoch + 1'),
        "load_checkpoint": _LOAD_ALL.replace('return state["epoch"] + 1', 'return state["completed"]'),
    },
    "seed_via_generator_seed_method": {"seed_everything": SE + """
    import os
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    g = torch.Generator(device="cpu")
    g.manual_seed(seed)
    return g
"""},
}

# --- repair_load_checkpoint: the starter with all but one planted bug repaired, and repairs in other styles
_FIXES = {
    "epoch": [('    return state["epoch"]', '    return state["epoch"] + 1')],
    "optimizer": [("    optimizer = type(optimizer)(model.parameters(), **optimizer.defaults)\n", "")],
    "generator": [('    torch.set_rng_state(rng["torch"])\n',
                   '    torch.set_rng_state(rng["torch"])\n    if generator is not None:\n'
                   '        generator.set_state(rng["generator"])\n')],
}
_LEFT = {"epoch": ("test_repair_load_checkpoint_epoch", "epoch_off_by_one"),
         "optimizer": ("test_repair_load_checkpoint_objects", "optimizer_not_restored"),
         "generator": ("test_repair_load_checkpoint_rngs", "generator_not_restored")}

_repaired, _LEFT_ALONE = repair_catalogue("repair_load_checkpoint", REPAIR_LOAD_CHECKPOINT, _FIXES, _LEFT)
MUTANTS.update(_LEFT_ALONE)
# Found by the automatic mutator: the generator restored whether or not the caller passed one.
MUTANTS["repair_generator_always_restored"] = Mutant(
    _repaired(extra=[("    if generator is not None:\n        generator.set_state", "    if True:\n        generator.set_state")]),
    ["test_repair_load_checkpoint_rngs"], ["needs_generator"])
MUTANTS["load_generator_always_restored"] = Mutant(
    patched(MODULE, "load_checkpoint", ('if generator is not None and rng["generator"] is not None:',
                                        'if generator is not None or rng["generator"] is not None:')),
    ["test_load_checkpoint_resume_matches"], ["needs_generator"])
MUTANTS["repair_python_rng_dropped"] = Mutant(
    _repaired(extra=[('    random.setstate(rng["python"])\n', "")]), ["test_repair_load_checkpoint_rngs"],
    ["python_rng_not_restored"])
MUTANTS["repair_model_into_a_copy"] = Mutant(
    _repaired(extra=[('    model.load_state_dict(state["model"])\n',
                      '    import copy\n    copy.deepcopy(model).load_state_dict(state["model"])\n')]),
    ["test_repair_load_checkpoint_objects"], ["model_not_restored"])

VARIANTS["repair_in_place_minimal"] = _repaired()
VARIANTS["repair_rewritten"] = {"repair_load_checkpoint": """
def repair_load_checkpoint(path, model, optimizer, generator=None):
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    states = ckpt["rng"]
    if generator is not None:
        generator.set_state(states["generator"])
    torch.set_rng_state(states["torch"])
    np_state = list(states["numpy"])
    np_state[1] = np.asarray(np_state[1], dtype=np.uint32)
    np.random.set_state(tuple(np_state))
    random.setstate(states["python"])
    return int(ckpt["epoch"]) + 1
"""}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "seed_torch_only": (
        "Python's random and NumPy's global RNG were not seeded",
        "twice, Python's random and NumPy's global RNG gave different numbers",
    ),
    "seed_generator_unseeded": (
        "Generator always starts from the same default seed",
        "the generators returned by seed_everything",
    ),
    "seed_fixed": (
        "seed_everything ignores its argument for that RNG",
        "give the same numbers from Python's random, NumPy's global RNG",
    ),
    "seed_returns_none": ("the generator for the DataLoaders",),
    "checkpoint_without_rng_states": (", NumPy's global RNG state and Python's random state",),
    "checkpoint_without_generator": ("the DataLoader generator's state",),
    "checkpoint_pickles_the_model": (
        "a pickled object ties the file to your class definitions and",
        "the checkpoint file holds the checkpoint",
    ),
    "repair_left_epoch": ("a resumed run would repeat an epoch",),
    "repair_left_optimizer": ("Adam's moments and step counts",),
    "repair_left_generator": ("the DataLoader generator's state",),
    "repair_generator_always_restored": ("the generator step of repair_load_checkpoint",),
    "load_generator_always_restored": ("the caller has no generator of its own",),
    "repair_python_rng_dropped": ("Python's random state",),
    "repair_model_into_a_copy": ("the model's parameters",),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))

# Automatic mutants (autograder.dev.mutate) that keep full marks because they change nothing the contract fixes.
_CUDA = "a CUDA RNG line: only a CUDA device can tell it (`-m gpu` runs this module's checks there)"
_INDEPENDENT = "independent statements: each restores or seeds its own owner"
EQUIVALENT = {
    "seed_everything: swap: random.seed(seed) <-> np.random.seed(seed)": _INDEPENDENT,
    "seed_everything: swap: np.random.seed(seed) <-> torch.manual_seed(seed)": _INDEPENDENT,
    "seed_everything: swap: torch.manual_seed(seed) <-> if torch.cuda.is_available():": _INDEPENDENT,
    "seed_everything: delete: if torch.cuda.is_available():": _CUDA,
    "seed_everything: swap: if torch.cuda.is_available(): <-> generator = torch.Generator()": _INDEPENDENT,
    "seed_everything: delete: torch.cuda.manual_seed_all(seed)": _CUDA,
    "save_checkpoint: delete: path = Path(path)": "the checks pass a Path already; a str path is the caller's "
                                                  "choice the contract leaves open, and torch.save takes both",
    "save_checkpoint: swap: path = Path(path) <-> torch.save(state, path)": "the same file is written either way",
    "save_checkpoint: swap: state = {'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'epoch': "
    "epoch, 'rng': {'python': random.getstate(), 'numpy': _numpy_state(), 'torch': torch.get_rng_state(), 'cuda': "
    "torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None, 'generator': None if generator is None "
    "else generator.get_state()}} <-> path = Path(path)": "building the state does not read the path",
    "load_checkpoint: delete: if rng['cuda'] is not None and torch.cuda.is_available():": _CUDA,
    "load_checkpoint: delete: torch.cuda.set_rng_state_all(rng['cuda'])": _CUDA,
    "load_checkpoint: flip: rng['cuda'] is not None and torch.cuda.is_available()": _CUDA,
    "load_checkpoint: flip: rng['cuda'] is not None": _CUDA,
    "load_checkpoint: flip: True -> False in state = torch.load(path, weights_only=True)":
        "the file holds tensors and plain data, which both loaders read alike; weights_only is the safe habit "
        "the lesson teaches, not a result a check can see",
    "repair_load_checkpoint: delete: if rng['cuda'] is not None and torch.cuda.is_available():": _CUDA,
    "repair_load_checkpoint: delete: torch.cuda.set_rng_state_all(rng['cuda'])": _CUDA,
    "repair_load_checkpoint: flip: rng['cuda'] is not None and torch.cuda.is_available()": _CUDA,
    "repair_load_checkpoint: flip: rng['cuda'] is not None": _CUDA,
    "repair_load_checkpoint: flip: True -> False in state = torch.load(path, weights_only=True)":
        "the file holds tensors and plain data, which both loaders read alike",
}
for _function in ("load_checkpoint", "repair_load_checkpoint"):
    EQUIVALENT.update({
        f"{_function}: swap: model.load_state_dict(state['model']) <-> optimizer.load_state_dict(state['optimizer'])":
            _INDEPENDENT,
        f"{_function}: swap: optimizer.load_state_dict(state['optimizer']) <-> rng = state['rng']": _INDEPENDENT,
        f"{_function}: swap: random.setstate(rng['python']) <-> name, key, pos, has_gauss, cached = rng['numpy']":
            _INDEPENDENT,
        f"{_function}: swap: np.random.set_state((name, np.array(key, dtype=np.uint32), pos, has_gauss, cached)) "
        "<-> torch.set_rng_state(rng['torch'])": _INDEPENDENT,
        f"{_function}: swap: torch.set_rng_state(rng['torch']) <-> if rng['cuda'] is not None and "
        "torch.cuda.is_available():": _INDEPENDENT,
        f"{_function}: swap: if rng['cuda'] is not None and torch.cuda.is_available(): <-> if generator is not None "
        "and rng['generator'] is not None:": _INDEPENDENT,
    })
