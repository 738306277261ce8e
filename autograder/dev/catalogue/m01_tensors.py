"""Module 01-tensors: mutants and correct variants."""

from . import Mutant, do_nothing, hold_to_words, patched
from .found import mutants as found_mutants

MODULE = "01-tensors"

MAKE_BLOBS_HEAD = "def make_blobs(n, device='cpu', generator=None):\n"

# align_targets in the solution: its check, and the error message that check raises.
_MESSAGE = ('\n            f"targets of shape {tuple(y.shape)} do not hold one value per row "\n'
            '            f"of logits of shape {tuple(logits.shape)}"\n        ')
_CHECK = "    if y.numel() != logits.numel():\n        raise ValueError(" + _MESSAGE + ")\n"

MUTANTS = {
    # --- size-1 dimensions: right for the sizes a learner tries first, wrong when a size is 1 --------------
    "pairwise_sq_dists_squeezed": Mutant(patched(
        MODULE, "pairwise_sq_dists", ("return (diff ** 2).sum(dim=-1)", "return (diff ** 2).sum(dim=-1).squeeze()")),
        ["test_pairwise_sq_dists_shape"], ["squeezed"]),
    "standardize_squeezed": Mutant(patched(
        MODULE, "standardize", ("return (x - mean) / std", "return ((x - mean) / std).squeeze()")),
        ["test_standardize_values"], ["squeezed"]),
    "align_targets_squeezes_for_flat_logits": Mutant(patched(
        MODULE, "align_targets", ("    return y.reshape(logits.shape)",
                                  "    if logits.dim() == 1:\n        return y.squeeze()\n    return y.reshape(logits.shape)")),
        ["test_align_targets_reshapes"], ["squeezed"]),
    # --- make_blobs -----------------------------------------------------------------
    "make_blobs_y_flat": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)])
    x = torch.randn(n, 2, generator=generator) + 3 * y[:, None]
    return x.to(device), y.to(device)
"""}, ["test_make_blobs_contract"], ["wrong_shape"]),
    "make_blobs_float64": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)]).unsqueeze(1)
    x = torch.randn(n, 2, generator=generator, dtype=torch.float64) + 3 * y
    return x.to(device), y.to(device)
"""}, ["test_make_blobs_contract"], ["wrong_dtype"]),
    "make_blobs_ignores_device": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)]).unsqueeze(1)
    x = torch.randn(n, 2, generator=generator) + 3 * y
    return x, y
"""}, ["test_make_blobs_contract"], ["ignores_device"]),
    "make_blobs_moves_only_x": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)]).unsqueeze(1)
    x = torch.randn(n, 2, generator=generator) + 3 * y
    return x.to(device), y
"""}, ["test_make_blobs_contract"], ["ignores_device"]),
    "make_blobs_global_rng": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)]).unsqueeze(1)
    x = torch.randn(n, 2) + 3 * y
    return x.to(device), y.to(device)
"""}, ["test_make_blobs_reproducible"], ["ignores_generator"]),
    "make_blobs_fixed_seed": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    g = torch.Generator().manual_seed(0)
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)]).unsqueeze(1)
    x = torch.randn(n, 2, generator=g) + 3 * y
    return x.to(device), y.to(device)
"""}, ["test_make_blobs_reproducible"], ["fixed_seed"]),
    "make_blobs_random_labels": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    y = torch.randint(0, 2, (n, 1), generator=generator).float()
    x = torch.randn(n, 2, generator=generator) + 4 * y
    return x.to(device), y.to(device)
"""}, ["test_make_blobs_contract"], ["unbalanced"]),
    "make_blobs_one_blob": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)]).unsqueeze(1)
    x = torch.randn(n, 2, generator=generator)
    return x.to(device), y.to(device)
"""}, ["test_make_blobs_contract"], ["blobs_not_separated"]),
    "make_blobs_returns_list": Mutant({"make_blobs": MAKE_BLOBS_HEAD + """
    n1 = n // 2
    y = torch.cat([torch.zeros(n - n1), torch.ones(n1)]).unsqueeze(1)
    x = torch.randn(n, 2, generator=generator) + 3 * y
    return [x.to(device), y.to(device)]
"""}, ["test_make_blobs_contract", "test_make_blobs_reproducible"], ["not_a_pair"]),
    # --- standardize ------------------------------------------------------------------
    "standardize_dim1": Mutant({"standardize": """
def standardize(x):
    return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)
"""}, ["test_standardize_values"], ["wrong_dim"]),
    "standardize_in_place": Mutant({"standardize": """
def standardize(x):
    x -= x.mean(dim=0)
    x /= x.std(dim=0)
    return x
"""}, ["test_standardize_leaves_input"], ["modified_input"]),
    "standardize_global_stats": Mutant({"standardize": """
def standardize(x):
    return (x - x.mean()) / x.std()
"""}, ["test_standardize_values"], ["wrong_value"]),
    "standardize_no_keepdim_dim1": Mutant({"standardize": """
def standardize(x):
    return (x.T - x.mean(dim=1)).T / x.std()
"""}, ["test_standardize_values"]),
    "standardize_centre_only": Mutant({"standardize": """
def standardize(x):
    return x - x.mean(dim=0)
"""}, ["test_standardize_values"], ["wrong_value"]),
    "standardize_returns_numpy": Mutant({"standardize": """
def standardize(x):
    x = x.cpu().numpy()
    return (x - x.mean(0)) / x.std(0)
"""}, ["test_standardize_values", "test_standardize_leaves_input"], ["not_a_tensor"]),
    # --- pairwise_sq_dists -------------------------------------------------------------
    "pairwise_keeps_feature_dim": Mutant({"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    return (a[:, None, :] - b[None, :, :]) ** 2
"""}, ["test_pairwise_sq_dists_shape", "test_pairwise_sq_dists_values"], ["kept_feature_dim"]),
    "pairwise_sqrt": Mutant({"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1).sqrt()
"""}, ["test_pairwise_sq_dists_values"], ["wrong_value"]),
    "pairwise_transposed": Mutant({"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    return ((a[None, :, :] - b[:, None, :]) ** 2).sum(-1)
"""}, ["test_pairwise_sq_dists_shape", "test_pairwise_sq_dists_values"], ["wrong_shape"]),
    "pairwise_sum_wrong_axis": Mutant({"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(0)
"""}, ["test_pairwise_sq_dists_shape", "test_pairwise_sq_dists_values"], ["wrong_dim"]),
    "pairwise_no_square": Mutant({"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    return (a[:, None, :] - b[None, :, :]).abs().sum(-1)
"""}, ["test_pairwise_sq_dists_values"], ["wrong_value"]),
    "pairwise_rowwise_only": Mutant({"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    m = b.shape[0]
    return ((a[:, :] - b[:1, :]) ** 2).sum(-1, keepdim=True).expand(-1, m)
"""}, ["test_pairwise_sq_dists_values"], ["wrong_value"]),
    # --- align_targets -------------------------------------------------------------------
    "align_reshapes_whatever": Mutant(patched(MODULE, "align_targets", (_CHECK, "")),
                                      ["test_align_targets_rejects"], ["wrong_exception"]),
    "align_always_column": Mutant(patched(
        MODULE, "align_targets", (_CHECK, ""),
        ("y.reshape(logits.shape)", "y.reshape(-1, 1)")),
        ["test_align_targets_reshapes", "test_align_targets_rejects"], ["wrong_shape"]),
    "align_broadcasts": Mutant(patched(
        MODULE, "align_targets", (_CHECK, ""),
        ("y.reshape(logits.shape)", "y + torch.zeros_like(logits)")),
        ["test_align_targets_reshapes", "test_align_targets_rejects"], ["broadcast"]),
    "align_message_without_shapes": Mutant(patched(
        MODULE, "align_targets", (_MESSAGE, '"targets and logits do not match"')),
        ["test_align_targets_rejects"], ["message_without_shapes"]),
    "align_casts_dtype": Mutant(patched(
        MODULE, "align_targets", (_MESSAGE, 'f"{logits.shape} vs {y.shape}"'),
        ("y.reshape(logits.shape)", "y.reshape(logits.shape).long()")),
        ["test_align_targets_reshapes"], ["wrong_dtype"]),
    "align_no_error_returns_none": Mutant(patched(
        MODULE, "align_targets", ("        raise ValueError(" + _MESSAGE + ")\n", "        return None\n"),
        ("y.reshape(", "y.view(")),
        ["test_align_targets_rejects"], ["no_error"]),
    # --- hostile-ish ----------------------------------------------------------------------
    "always_equal_object": Mutant({"pairwise_sq_dists": """
class _Anything(torch.Tensor):
    def __eq__(self, other):
        return True
def pairwise_sq_dists(a, b):
    return torch.zeros(a.shape[0], b.shape[0], device=a.device).as_subclass(_Anything)
"""}, ["test_pairwise_sq_dists_shape", "test_pairwise_sq_dists_values"], ["not_a_tensor"]),
    "raises_inside": Mutant({"standardize": """
def standardize(x):
    return (x - x.mean(0)) / x.std(0, keepdims=True, bogus=1)
"""}, ["test_standardize_values", "test_standardize_leaves_input"], ["raised"]),
}

VARIANTS = {
    "make_blobs_interleaved_shuffled": {"make_blobs": MAKE_BLOBS_HEAD + """
    labels = (torch.arange(n) % 2).float()
    order = torch.randperm(n, generator=generator)
    labels = labels[order]
    means = torch.stack([labels * 3.0, labels * -3.0], dim=1)
    x = torch.normal(means, 1.0, generator=generator)
    return x.to(device), labels.reshape(n, 1).to(device)
"""},
    "make_blobs_two_draws_cat": {"make_blobs": MAKE_BLOBS_HEAD + """
    n0 = (n + 1) // 2
    n1 = n - n0
    a = torch.randn(n0, 2, generator=generator) * 0.5 + torch.tensor([0.0, 0.0])
    b = torch.randn(n1, 2, generator=generator) * 0.5 + torch.tensor([3.0, 3.0])
    x = torch.cat([a, b]).to(device=device, dtype=torch.float32)
    y = torch.cat([torch.zeros(n0, 1), torch.ones(n1, 1)]).to(device)
    return x, y
"""},
    "standardize_population_eps": {"standardize": """
def standardize(x):
    mu = x.mean(0)
    sigma = x.std(0, correction=0)
    return (x - mu) / (sigma + 1e-8)
"""},
    "standardize_std_mean": {"standardize": """
def standardize(x):
    std, mean = torch.std_mean(x, dim=0, keepdim=True, unbiased=False)
    return x.sub(mean).div(std)
"""},
    "standardize_clone_then_inplace": {"standardize": """
def standardize(x):
    out = x.clone()
    out -= out.mean(dim=0)
    out /= out.std(dim=0)
    return out
"""},
    "pairwise_expansion": {"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    aa = (a * a).sum(1, keepdim=True)
    bb = (b * b).sum(1)
    return (aa + bb - 2 * a @ b.T).clamp_min(0)
"""},
    "pairwise_cdist": {"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    return torch.cdist(a, b) ** 2
"""},
    "pairwise_unsqueeze": {"pairwise_sq_dists": """
def pairwise_sq_dists(a, b):
    return (a.unsqueeze(1) - b.unsqueeze(0)).pow(2).sum(dim=2)
"""},
    "align_view_as_torch_size_message": {"align_targets": """
def align_targets(logits, y):
    if logits.numel() != y.numel():
        raise ValueError(f"cannot align y {y.shape} with logits {logits.shape}")
    return y.view_as(logits) if y.is_contiguous() else y.reshape(logits.shape)
"""},
    "align_list_message": {"align_targets": """
def align_targets(logits, y):
    if len(y.flatten()) != len(logits.flatten()):
        raise ValueError("logits %s and targets %s differ in size" % (list(logits.shape), list(y.shape)))
    return y.reshape(*logits.shape)
"""},
}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "pairwise_sq_dists_squeezed": ("or indexing with an int",),
    "standardize_squeezed": ("or indexing with an int",),
    "align_targets_squeezes_for_flat_logits": ("or indexing with an int",),
    "make_blobs_y_flat": ("the targets tensor y returned by make_blobs",),
    "make_blobs_float64": ("the features tensor x returned by make_blobs",),
    "make_blobs_ignores_device": (
        "the tensor x was created or left on the default device",
        "used here to test device handling without a GPU",
    ),
    "make_blobs_moves_only_x": (
        "the tensor y was created or left on the default device",
        "used here to test device handling without a GPU",
    ),
    "make_blobs_fixed_seed": ("make_blobs's random draws do not depend on the generator it was given",),
    "make_blobs_random_labels": ("make_blobs decides how many rows each class gets",),
    "make_blobs_one_blob": ("make_blobs places the two blobs",),
    "make_blobs_returns_list": ("make_blobs's return value is the",),
    "standardize_dim1": ("the reduction dimension you passed to mean/std", "but the columns"),
    "standardize_in_place": (
        "standardize wrote into it with an in-place operation",
        "the caller's x holds different values",
    ),
    "standardize_no_keepdim_dim1": ("the reduction dimension you passed to mean/std", "but the columns"),
    "pairwise_keeps_feature_dim": ("the broadcast difference still holds the feature dimension d",),
    "pairwise_sqrt": ("the entries are the distances themselves",),
    "align_broadcasts": ("with more elements than y has",),
    "align_message_without_shapes": (
        "whoever hits it needs both shapes to find the mismatch",
        "'targets and logits do not match'",
    ),
    "align_no_error_returns_none": ("it is not one value per row", "returned None instead of raising"),
    "make_blobs_global_rng": ("global RNG instead of the `generator` argument",),
    "standardize_global_stats": ("per-feature means", "mean and std per feature"),
    "standardize_centre_only": ("per-feature stds", "mean and std per feature"),
    "standardize_returns_numpy": ("ndarray, not a torch.Tensor",),
    "pairwise_transposed": ("transposed (one row per row of b)",),
    "pairwise_sum_wrong_axis": ("summed over dim 0", "instead of the last dimension"),
    "pairwise_no_square": ("differ from the squared distances",),
    "pairwise_rowwise_only": ("differ from the squared distances",),
    "align_reshapes_whatever": ("instead of checking the element counts first",),
    "align_always_column": ("the aligned targets tensor",),
    "align_casts_dtype": ("has dtype int64", "float32"),
    "always_equal_object": ("not a torch.Tensor",),
    "raises_inside": ("in `standardize`", "x.std(0, keepdims=True, bogus=1)"),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))

# Automatic mutants (autograder.dev.mutate) that keep full marks because they change nothing the contract fixes.
EQUIVALENT = {
    "make_blobs: swap: labels = torch.cat([torch.zeros(n_neg), torch.ones(n_pos)]) <-> "
    "centres = torch.tensor([[-2.0, -1.0], [2.0, 1.0]])": "two independent statements; neither draws randomness",
    "make_blobs: swap: centres = torch.tensor([[-2.0, -1.0], [2.0, 1.0]]) <-> "
    "noise = torch.randn(n, 2, generator=generator)": "building the centres draws nothing, so the noise is the same",
    "make_blobs: swap: x = centres[labels.long()] + noise <-> y = labels.unsqueeze(1)": "two independent statements",
    "standardize: swap: mean = x.mean(dim=0, keepdim=True) <-> std = x.std(dim=0, keepdim=True)":
        "two independent statements",
    "standardize: flip: True -> False in mean = x.mean(dim=0, keepdim=True)":
        "a [d] mean broadcasts over the rows of [n, d] exactly as a [1, d] one does",
    "standardize: flip: True -> False in std = x.std(dim=0, keepdim=True)":
        "a [d] std broadcasts over the rows of [n, d] exactly as a [1, d] one does",
}
