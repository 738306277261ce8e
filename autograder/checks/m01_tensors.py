"""Checks for module 01-tensors: shapes are a contract.

Each public function here is one test cell's call, for example
``check.make_blobs_contract(make_blobs)``.  Hidden tests call the same checks
with other sizes and seeds.
"""

from __future__ import annotations

import re

import torch

from ..core import NotAttempted, call, describe, fail, graded
from ..devices import close, each_device, expect_tensor, generator, manual_seed, max_abs_diff, plain
from ..hints import hint_for, solution_for

# --------------------------------------------------------------------------
# make_blobs


def _blobs(make_blobs, n, device, seed):
    out = call(make_blobs, n, device=device, generator=generator(seed))
    if not isinstance(out, tuple) or len(out) != 2:
        fail(
            f"make_blobs({n}, device={device!r}, generator=...) returned {describe(out)}.",
            "make_blobs's return value is the (features, targets) pair.",
            "return a tuple `x, y`.",
            code="not_a_pair",
        )
    return out


@graded("make_blobs")
def make_blobs_contract(make_blobs, n: int = 64, seed: int = 0, *, notes):
    """x float32 [n, 2], y float32 [n, 1] of 0/1, balanced, on the requested device."""
    for device in each_device(notes):
        x, y = _blobs(make_blobs, n, device, seed)
        where = f"make_blobs({n}, device={device!r})"
        expect_tensor(x, f"{where}'s x", "the features tensor x returned by make_blobs.",
                      shape=(n, 2), dtype=torch.float32, device=device)
        expect_tensor(y, f"{where}'s y", "the targets tensor y returned by make_blobs "
                      "(one target per row, in a column, like the model's logits).",
                      shape=(n, 1), dtype=torch.float32, device=device)
        labels = plain(y)
        if not bool(((labels == 0) | (labels == 1)).all()):
            fail(f"{where}'s y holds values other than 0 and 1.",
                 "the targets tensor y owns the class labels.",
                 "build y from the class index of each row (0 or 1).", code="labels_not_binary")
        ones = int(labels.sum().item())
        if abs(ones - (n - ones)) > 1:
            fail(f"{where} returned {ones} rows of class 1 and {n - ones} of class 0.",
                 "make_blobs decides how many rows each class gets.",
                 "give each blob half of the n rows (one more to one class when n is odd).",
                 code="unbalanced")
        feats = plain(x)
        if not torch.isfinite(feats).all():
            fail(f"{where}'s x holds NaN or infinite values.", "the features tensor x.",
                 "draw the features from a normal distribution around each blob's centre.",
                 code="nonfinite")
        c0, c1 = feats[labels[:, 0] == 0].mean(0), feats[labels[:, 0] == 1].mean(0)
        if float((c0 - c1).norm()) < 1.0:
            fail(f"{where}: the two classes' feature means are only {float((c0 - c1).norm()):.2f} apart.",
                 "make_blobs places the two blobs.",
                 "give the two classes clearly different centres so the blobs are separable.",
                 code="blobs_not_separated")
        if float(feats.std(0).min()) < 0.05:
            fail(f"{where}: x barely varies within the data (smallest feature std {float(feats.std(0).min()):.3f}).",
                 "make_blobs draws the points.",
                 "add Gaussian noise around each centre (torch.randn with the generator).",
                 code="no_spread")
    _meta_probe(make_blobs, n, notes)


def _meta_probe(make_blobs, n, notes):
    """Ask for the 'meta' device: a function that ignores ``device`` returns CPU tensors."""
    try:
        out = make_blobs(n, device="meta", generator=generator(0))
    except Exception:  # noqa: BLE001 - some correct styles cannot run on meta; then we cannot tell
        notes.append("the device='meta' probe could not run your code, so it was not used")
        return
    if isinstance(out, tuple) and len(out) == 2:
        for label, t in zip(("x", "y"), out):
            if isinstance(t, torch.Tensor) and t.device.type != "meta":
                fail(f"make_blobs({n}, device='meta') returned {label} on {t.device}. "
                     "('meta' is a device with shapes but no data, used here to test device handling without a GPU.)",
                     f"the tensor {label} was created or left on the default device; make_blobs ignored its `device` argument.",
                     "create (or move) both tensors on `device`, taken from the one argument.",
                     code="ignores_device")


@graded("make_blobs")
def make_blobs_reproducible(make_blobs, n: int = 64, seed: int = 0, *, notes):
    """The same generator seed gives the same blobs; another seed gives others."""
    for device in each_device(notes):
        x1, y1 = _blobs(make_blobs, n, device, seed)
        manual_seed(seed + 12345)  # disturb the global RNG between the calls
        torch.randn(7)
        x2, y2 = _blobs(make_blobs, n, device, seed)
        for t in (x1, y1, x2, y2):
            expect_tensor(t, "a tensor returned by make_blobs", "make_blobs's return value.")
        if not (torch.equal(plain(x1), plain(x2)) and torch.equal(plain(y1), plain(y2))):
            fail(f"two calls of make_blobs({n}, device={device!r}) with generators seeded {seed} gave different data.",
                 "the random draws came from the global RNG instead of the `generator` argument.",
                 "pass `generator=generator` to every random function you call (torch.randn, torch.randperm, ...).",
                 code="ignores_generator")
        x3, _ = _blobs(make_blobs, n, device, seed + 1)
        if x3.shape == x1.shape and torch.equal(plain(x1), plain(x3)):
            fail(f"make_blobs({n}, device={device!r}) gave identical x for generators seeded {seed} and {seed + 1}.",
                 "make_blobs's random draws do not depend on the generator it was given.",
                 "draw the noise with the `generator` argument rather than a fixed seed of your own.",
                 code="fixed_seed")


# --------------------------------------------------------------------------
# standardize


def _data(n, d, seed, device, dtype=torch.float32):
    g = generator(seed)
    scale = torch.rand(d, generator=g) * 5 + 0.5
    shift = torch.randn(d, generator=g) * 10
    return (torch.randn(n, d, generator=g) * scale + shift).to(device=device, dtype=dtype)


def _not_squeezed(out, want, what: str, owner: str) -> None:
    """A tensor whose shape is ``want`` without its size-1 dimensions: squeeze() (or an index) dropped them."""
    squeezed = tuple(s for s in want if s != 1)
    if isinstance(out, torch.Tensor) and tuple(out.shape) != tuple(want) and tuple(out.shape) == squeezed:
        fail(f"{what} returned shape {list(out.shape)}; the contract asks for {list(want)}.",
             f"{owner} A dimension of size 1 is still a dimension: squeeze() (or indexing with an int) removed it, "
             "which only shows when a size happens to be 1.",
             "keep every dimension of the contract's shape; drop a dimension only by naming it, and never one "
             "the contract keeps.", code="squeezed")


@graded("standardize")
def standardize_values(standardize, n: int = 50, d: int = 3, seed: int = 0, *, notes):
    """Per-feature zero mean and unit std over dim 0; sample or population std accepted."""
    for device in each_device(notes):
        for one_feature in (False, True):  # a single feature: [n, 1] stays [n, 1]
            x = _data(n, 1, seed + 1, device) if one_feature else _data(n, d, seed, device)
            _standardize_case(standardize, x, device)
        _standardize_case(standardize, _data(n, d, seed + 2, device).double(), device)  # float64 stays float64


def _standardize_case(standardize, x, device) -> None:
    out = call(standardize, x.clone())
    _not_squeezed(out, x.shape, f"standardize(x of shape {list(x.shape)})", "the tensor standardize returned.")
    if isinstance(out, torch.Tensor) and out.shape == x.shape and out.dtype != x.dtype:
        given, got = (str(t).replace("torch.", "") for t in (x.dtype, out.dtype))
        fail(f"standardize(x {given} of shape {list(x.shape)}) returned a {got} tensor: the input's dtype was not "
             "kept.",
             f"the dtype of the result: a step inside standardize converted the {given} values to {got}.",
             "keep x's dtype throughout: no `.float()` or `.to(torch.float32)`, and any tensor you create takes "
             "`dtype=x.dtype`.", code="wrong_dtype")
    expect_tensor(out, f"standardize(x of shape {list(x.shape)} on {device})",
                  "the tensor standardize returned.", shape=x.shape, dtype=x.dtype, device=device)
    ref = plain(x).double()
    mean = ref.mean(0, keepdim=True)
    refs = [(ref - mean) / ref.std(0, unbiased=u, keepdim=True) for u in (True, False)]
    got = plain(out).double()
    if not any(close(got, r, atol=1e-4, rtol=1e-3) for r in refs):
        col_mean = got.mean(0).abs().max().item()
        row_mean = got.mean(1).abs().max().item()
        if row_mean < 1e-4 <= col_mean:
            seen = "each row of the result has mean 0, but the columns (features) do not."
            owner = "the reduction dimension you passed to mean/std: it reduced across features."
            todo = "reduce over the samples, dim 0, so each feature gets its own mean and std."
            code = "wrong_dim"
        else:
            seen = (f"the per-feature means of the result are up to {col_mean:.3g} from 0 "
                    f"and its per-feature stds range {got.std(0).min().item():.3g}–{got.std(0).max().item():.3g}.")
            owner = "the statistics standardize computed (mean and std per feature)."
            todo = "subtract each feature's mean over dim 0 and divide by that feature's std over dim 0."
            code = "wrong_value"
        fail(seen, owner, todo, code=code)


@graded("standardize")
def standardize_leaves_input(standardize, n: int = 40, d: int = 4, seed: int = 1, *, notes):
    """The caller's tensor is not modified."""
    for device in each_device(notes):
        x = _data(n, d, seed, device)
        before = plain(x)
        version = x._version
        out = call(standardize, x)
        if x._version != version or not torch.equal(plain(x), before):
            fail("after standardize(x), the caller's x holds different values.",
                 "the caller owns x; standardize wrote into it with an in-place operation (`-=`, `/=`, `sub_`, ...).",
                 "build a new tensor from x instead of modifying it.", code="modified_input")
        expect_tensor(out, "standardize(x)", "the tensor standardize returned.", shape=x.shape)
        if out.data_ptr() == x.data_ptr() and out.numel() > 0:
            fail("standardize(x) returned a tensor sharing x's memory.",
                 "the caller owns x; the result must be a new tensor.",
                 "compute the result out of place.", code="aliases_input")


# --------------------------------------------------------------------------
# pairwise_sq_dists


@graded("pairwise_sq_dists")
def pairwise_sq_dists_shape(pairwise_sq_dists, n: int = 5, m: int = 3, d: int = 2, seed: int = 0, *, notes):
    """[n, d] and [m, d] give [n, m] on the inputs' device."""
    for device in each_device(notes):
        for rows, cols in ((n, m), (1, m), (n, 1), (1, 1)):  # a single point on either side is a matrix still
            a, b = _data(rows, d, seed, device), _data(cols, d, seed + 1, device)
            out = call(pairwise_sq_dists, a, b)
            what = f"pairwise_sq_dists(a {list(a.shape)}, b {list(b.shape)})"
            if isinstance(out, torch.Tensor) and out.dim() == 3:
                fail(f"{what} returned shape {list(out.shape)}.",
                     "the broadcast difference still holds the feature dimension d.",
                     "reduce over the feature dimension after squaring.", code="kept_feature_dim")
            owner = "the distance matrix: one row per row of a, one column per row of b."
            _summed_wrong_dim(out, a, b, what)
            _not_squeezed(out, (rows, cols), what, owner)
            expect_tensor(out, what, owner, shape=(rows, cols), device=device)


def _summed_wrong_dim(out, a, b, what) -> None:
    """``out`` is the squared differences [n, m, d] summed over the rows of a (dim 0) or of b (dim 1), not over
    the features: name the dimension the values show."""
    if not isinstance(out, torch.Tensor) or out.dim() != 2:
        return
    squares = (plain(a).double()[:, None, :] - plain(b).double()[None, :, :]) ** 2  # (n, m, d)
    flipped = squares.sum(-1).T  # (m, n)
    if tuple(out.shape) == tuple(flipped.shape) != tuple(squares.shape[:2]) \
            and close(plain(out).double(), flipped, atol=1e-4, rtol=1e-3):
        fail(f"{what} returned shape {list(out.shape)}: the squared distances, transposed (one row per row of b).",
             "the broadcast in pairwise_sq_dists: a's rows went along dim 1 and b's along dim 0, the other way round.",
             "put a's rows first: a[:, None, :] against b[None, :, :], so that entry [i, j] pairs a[i] with b[j].",
             code="wrong_shape")
    for dim, rows in ((0, "a"), (1, "b")):
        summed = squares.sum(dim)
        if tuple(out.shape) == tuple(summed.shape) and tuple(summed.shape) != tuple(squares.shape[:2]) \
                and close(plain(out).double(), summed, atol=1e-4, rtol=1e-3):
            fail(f"{what} returned shape {list(out.shape)}, and its values are the squared differences summed over "
                 f"dim {dim} (one term per row of {rows}), not over the features.",
                 f"the reduction in pairwise_sq_dists: the [n, m, d] differences were summed over the rows of {rows} "
                 "instead of the last dimension, d.",
                 "sum the squared differences over the feature dimension (dim=-1), which leaves one entry per pair.",
                 code="wrong_dim")


@graded("pairwise_sq_dists")
def pairwise_sq_dists_values(pairwise_sq_dists, n: int = 6, m: int = 4, d: int = 3, seed: int = 2, *, notes):
    """Entry [i, j] is the squared Euclidean distance between a[i] and b[j]."""
    for device in each_device(notes):
        a, b = _data(n, d, seed, device), _data(m, d, seed + 1, device)
        out = call(pairwise_sq_dists, a, b)
        _summed_wrong_dim(out, a, b, "pairwise_sq_dists(a, b)")
        expect_tensor(out, "pairwise_sq_dists(a, b)", "the distance matrix.", shape=(n, m))
        A, B = plain(a).double(), plain(b).double()
        ref = torch.empty(n, m, dtype=torch.float64)
        for i in range(n):  # an independent reference: one pair at a time
            for j in range(m):
                ref[i, j] = sum((A[i, k] - B[j, k]) ** 2 for k in range(d))
        got = plain(out).double()
        scale = float(ref.abs().max())
        if not close(got, ref, atol=1e-4 * max(scale, 1.0), rtol=1e-4):
            if close(got, ref.sqrt(), atol=1e-3, rtol=1e-3):
                seen, todo = ("the entries are the distances themselves, not their squares.",
                              "drop the square root: the contract is squared distances.")
            else:
                worst = max_abs_diff(got, ref)
                seen, todo = (f"entries differ from the squared distances by up to {worst:.3g}.",
                              "for one pair (a[i], b[j]) subtract, square, then sum over features; "
                              "check that broadcasting pairs every row of a with every row of b.")
            fail(seen, "the values of the distance matrix pairwise_sq_dists built.", todo, code="wrong_value")


# --------------------------------------------------------------------------
# align_targets


def _shape_mentioned(message: str, shape) -> bool:
    text = message.replace(" ", "").replace("torch.Size", "")
    text = re.sub(r"(\d)[x×](?=\d)", r"\1,", text)
    dims = ",".join(str(s) for s in shape)
    forms = [f"[{dims}]", f"({dims})"]
    if len(shape) == 1:
        forms.append(f"({dims},)")
    return any(f in text for f in forms)


@graded("align_targets")
def align_targets_reshapes(align_targets, n: int = 8, *, notes):
    """[N] targets become [N, 1] like the logits; already-aligned targets stay as they are."""
    for device in each_device(notes):
        cases = []
        for rows in (n, 1):  # a batch of one example keeps its dimensions
            y = torch.randint(0, 2, (rows,), generator=generator(n + rows)).float().to(device)
            cases += [
                (torch.randn(rows, 1, device=device), y, (rows, 1)),
                (torch.randn(rows, 1, device=device), y.reshape(rows, 1), (rows, 1)),
                (torch.randn(rows, device=device), y.reshape(rows, 1), (rows,)),
            ]
        for logits, target, want in cases:
            before = plain(target)
            out = call(align_targets, logits, target)
            what = f"align_targets(logits {list(logits.shape)}, y {list(target.shape)})"
            _not_squeezed(out, want, what, "the aligned targets tensor.")
            if isinstance(out, torch.Tensor) and tuple(out.shape) != tuple(want) and out.numel() > target.numel():
                fail(f"{what} returned shape {list(out.shape)}, with more elements than y has.",
                     "broadcasting: a [N] and a [N, 1] tensor combine into [N, N].",
                     "reshape y to the logits' shape rather than broadcasting or expanding it.",
                     code="broadcast")
            expect_tensor(out, what, "the aligned targets tensor.", shape=want, dtype=target.dtype, device=device)
            if not torch.equal(plain(out).reshape(-1), before.reshape(-1)):
                fail(f"{what} changed the order or the values of the targets.",
                     "the aligned tensor must hold y's values, row for row.",
                     "change only the shape of y.", code="values_changed")


@graded("align_targets")
def align_targets_rejects(align_targets, n: int = 6, *, notes):
    """Different element counts raise ValueError naming both shapes."""
    for device in each_device(notes):
        cases = [((n, 1), (2 * n,)), ((n,), (n, 3)), ((n, 1), (n, n))]
        for lshape, yshape in cases:
            logits = torch.randn(*lshape, device=device)
            y = torch.zeros(*yshape, device=device)
            what = f"align_targets(logits {list(lshape)}, y {list(yshape)})"
            try:
                out = align_targets(logits, y)
            except NotImplementedError as error:
                if not str(error):
                    raise NotAttempted() from None
                fail(f"{what} raised NotImplementedError: {error}", "your align_targets raised it.",
                     "raise ValueError when the element counts differ.", code="wrong_exception")
            except ValueError as error:
                message = str(error)
                if not (_shape_mentioned(message, lshape) and _shape_mentioned(message, yshape)):
                    fail(f"{what} raised ValueError({message!r}), which does not name both shapes.",
                         "your ValueError's message: whoever hits it needs both shapes to find the mismatch.",
                         "put both shapes in the message, for example by formatting `logits.shape` and `y.shape`.",
                         code="message_without_shapes")
                continue
            except Exception as error:  # noqa: BLE001
                fail(f"{what} raised {type(error).__name__}: {str(error).splitlines()[0].rstrip('.') if str(error) else ''}.",
                     "align_targets let the reshape fail on its own instead of checking the element counts first.",
                     "compare the element counts yourself and raise ValueError when they differ.",
                     code="wrong_exception")
            else:
                fail(f"{what} returned {describe(out)} instead of raising.",
                     f"y holds {y.numel()} values for {logits.numel()} logits: it is not one value per row.",
                     "raise ValueError when the element counts differ.", code="no_error")
# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)
