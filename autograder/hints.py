"""Progressive hints for every graded function: ``check.hint("train_step")``, then ``check.hint("train_step", 2)``.

Two or three hints per function, in the course's vocabulary (the module's parameters and mode,
autograd's graph, each parameter's ``.grad``, the optimizer's state), each closer to the decisive
step than the last and none of them the answer:

1. the owner, or the idea, to think about;
2. the mechanism or the API to look up;
3. the decisive idea or the trap, with what to aim for or a small experiment that shows it: never a
   recipe (the answer's steps in order, in words or as calls) and never a line of code.

Every checks module exposes ``hint`` bound to its module (``hint = hint_for(__name__)``), so an
exercise's ``check.hint("name")`` works.  The highest level a learner has seen is recorded in their
progress file (``{"04-five-line-step": {"hints": {"train_step": 2}}}``).  While a grader runs the
notebook (``TORCH_LEDGER_GRADING=1``, see :func:`autograder.progress.is_grading`) ``hint`` shows
nothing, records nothing and returns ``None``.
"""

from __future__ import annotations

import difflib
import html
import numbers
import re

from . import core, progress
from .cells import strip_solution_markers  # noqa: F401  (re-exported: catalogues and tools read answers with it)
from .course_code import handed_out
from .syllabus import MODULES, module_of_checks

_REPAIR_1 = ("Run the check cells under it first and read which owner each failing check names. The colleague's "
             "code runs without an error: its bugs show only as the wrong owner holding the wrong state, so the "
             "checks' `Owner:` lines are your map.")

HINTS: dict[str, dict[str, tuple[str, ...]]] = {
    "01-tensors": {
        "make_blobs": (
            "Think about the owners of shape and place. `y` is a target for a model with one output, so it must "
            "have the logits' shape, a column `[n, 1]`, not `[n]`; every tensor you return must live where "
            "`device` says; and balanced means the two class counts differ by at most one.",
            "Look up `torch.randn(..., generator=...)`, `torch.cat` and `Tensor.to(device)`. Draw every random "
            "number through the `generator` you were given, so that a seed fixes the data, and check the dtypes: "
            "float32 is torch's default, float64 comes from NumPy arrays and Python lists of floats.",
            "Once each row knows its class, the class can choose that row's centre: one small tensor of two centres "
            "and one draw of noise make all of `x`, with no loop. Aim for `x` of shape `[n, 2]` and `y` of shape `[n, "
            "1]` with about n/2 ones, both on `device`, two class means far apart, and the same data again from a "
            "generator seeded alike.",
        ),
        "standardize": (
            "Each feature (a column) owns its own mean and standard deviation, computed over the samples (the "
            "rows): which `dim` do you reduce over? And the caller owns `x`: read it, hand back a new tensor.",
            "Look up `Tensor.mean(dim=..., keepdim=...)` and `Tensor.std(dim=..., keepdim=...)`. With "
            "`keepdim=True` an `[n, d]` input gives `[1, d]` statistics that broadcast over the rows. Reducing "
            "over dim 1 also runs, and silently gives per-row statistics.",
            "Both traps run without an error, so check the result, not the run: every column should have a mean of "
            "about 0 and a standard deviation of about 1 (a per-row mistake shows there), and the caller's `x` must "
            "hold the same values after your call as before. Section 6 of the lesson, on `dim` and `keepdim`, has the "
            "shapes side by side.",
        ),
        "pairwise_sq_dists": (
            "Think in shapes first: an `[n, m]` result from `[n, d]` and `[m, d]`. Broadcasting can make every row "
            "of `a` meet every row of `b` if each input gets a new axis of size 1, in different places.",
            "Insert an axis with `None` indexing or `unsqueeze`, then recall the lesson's broadcasting picture: "
            "`(N, 1)` against `(M,)` fills an `(N, M)` grid. The same works one dimension up, with the features "
            "riding along as the last axis.",
            "The one decision is which axis each input owns: the rows of `a` own the result's first axis, the rows of "
            "`b` its second, and the features the last axis, the only one the result does not keep. Find the rest by "
            "experiment: with `a` of shape `[3, 2]` and `b` of shape `[4, 2]`, print the shape of every intermediate "
            "on your way to `[3, 4]`.",
        ),
        "align_targets": (
            "This function is a guard, not a fixer: the contract is owned by `logits.shape`. Decide first whether "
            "`y` holds exactly one value per logit; only then reshape it.",
            "Compare element counts with `Tensor.numel()`; reshape with `Tensor.reshape` (or `view_as`). For a "
            "refusal, raise `ValueError` with a message that contains both shapes (an f-string does it).",
            "The trap is letting the shapes negotiate: `[N]` targets against `[N, 1]` logits broadcast to `[N, N]` "
            "without a word, and a reshape that fails raises the wrong error. Decide on element counts alone, before "
            "any change of shape. Test with targets shaped `[N]`, `[N, 1]` and `[1, N]` (all must come back in the "
            "logits' shape) and with one target too many.",
        ),
    },
    "01b-by-hand": {
        "manual_gradients": (
            "You are doing autograd's job, so follow its route: from the loss back to each parameter, one "
            "owner of the forward pass at a time (the loss, the logit, the hidden output, the pre-activation). "
            "Every gradient you return has its parameter's shape.",
            "Start where the lesson started, dL/dz for one example, then ask what the MEAN over a batch of N "
            "changes: each example's share, and how a bias, which every example touches, collects its gradient. "
            "Matrix products of `[N, a]` and `[N, b]` tensors, one of them transposed, give `[a, b]` sums over the "
            "batch; check every product's shape against the parameter's.",
            "Everything follows from the gradient at the logits: for the mean loss it is the lesson's per-example "
            "dL/dz divided by N, of shape `[N, 1]`. Let autograd, the lesson's second way, grade each entry: the same "
            "parameters as leaves, the mean loss backpropagated, each `.grad` against yours. A wrong shape means a "
            "missing transpose; a factor of N, the mean.",
        ),
        "bce_with_logits": (
            "The naive loss fails because it builds a probability first and float32 rounds sigmoid(100) to "
            "exactly 1. Work with the logit throughout, and the loss of an element never needs a probability.",
            "Write -log(sigmoid(z)) and -log(1 - sigmoid(z)) in terms of z alone; both become log(1 + e^something). "
            "Look up `torch.nn.functional.softplus`, `torch.log1p`, `torch.maximum` and `Tensor.abs`: one of "
            "them makes log(1 + e^t) safe by itself, the others let you build a safe form.",
            "Check this in a cell: for any t, log(1 + e^t) minus max(t, 0) lies between 0 and log 2. Write that "
            "difference in terms of |t|, with e only ever raised to a power of zero or less, and no logit can "
            "overflow. Write max(t, 0) as (t + |t|) / 2 or as `torch.maximum` of t and a tensor of zeros, whose slope at "
            "t = 0 is 1/2, the smooth loss's: a clamp or relu there has slope 0 or 1 (the lesson's trap at a logit of "
            "exactly 0). At logits of -100, 0 and 100, with both targets, the loss and its gradient must be finite "
            "and agree with `nn.BCEWithLogitsLoss`.",
        ),
        "sgd_momentum_step": (
            "You are the fourth owner now: the optimizer's state. The buffers are yours to create on the first "
            "call and to hand back, and the parameters must stay the very tensors the model holds.",
            "Reread the lesson's formula and what `optimizer.state[p][\"momentum_buffer\"]` held after the "
            "first step. Look up `torch.no_grad()`, `Tensor.mul_`, `Tensor.add_`, `Tensor.sub_` and "
            "`Tensor.clone`, and what torch.optim.SGD does with a parameter whose `.grad` is None.",
            "Two owners break quietly. A first buffer that is the `.grad` tensor itself changes when the next backward "
            "adds to `.grad`: it must be a tensor of its own. And each parameter must stay the model's own leaf, "
            "changed in place. Let `torch.optim.SGD` with the same `lr` and `momentum` grade you on a copy of the "
            "model: the same parameters and `momentum_buffer` after each step.",
        ),
    },
    "02-autograd-ledger": {
        "grad_of": (
            "Two owners: the caller owns `x` and its flags, autograd owns the record. Work on a tensor of your "
            "own that shares `x`'s values but not its history and not its `requires_grad` flag, so that nothing "
            "you do shows on the caller's `x`.",
            "Look up `Tensor.detach()`, `Tensor.requires_grad_()`, `torch.autograd.grad(outputs, inputs)` (it "
            "returns the gradients instead of writing them into `.grad`) and `torch.enable_grad()` (recording "
            "works even when the caller is inside `torch.no_grad()`).",
            "Three marks you must not leave on the caller: a `.grad` written into their `x`, its `requires_grad` "
            "turned on, a result that carries a `grad_fn`. Test where it is hardest: inside a `no_grad` block, on an "
            "`x` that does not require grad, then look at `x.requires_grad`, `x.grad` and the result's `grad_fn`; the "
            "gradient must still come back.",
        ),
        "numerical_grad": (
            "Autograd is not an owner here at all: this is the lesson's ground truth, found by probing `f`. The "
            "caller still owns `x`, so probe on a float64 copy of your own, one element at a time.",
            "Look up `Tensor.to(torch.float64)` followed by `.clone()` (a copy even when `x` already is float64), "
            "`Tensor.view(-1)` to reach every element of any shape (`[]` included), `torch.zeros_like` and "
            "`torch.no_grad()` for probes that need no record.",
            "Nudge through a flat view of your own float64 copy: it shares the copy's memory, so one entry of the view "
            "changes what `f` sees, for any shape of `x`, `[]` included. The trap is an element left nudged. Compare "
            "with `grad_of` on the sum of the cubes of `x`: in float64, with `eps` at 1e-3, the two agree to about "
            "1e-6.",
        ),
        "grad_report": (
            "Each parameter owns its `.grad`; you only read that column of the ledger. There are three states: "
            "no tensor at all, a tensor of zeros, and anything else.",
            "Look up `model.named_parameters()` (frozen parameters are included), the test `grad is None`, and "
            "`torch.count_nonzero` or `Tensor.any()` for a tensor's entries.",
            "The trap is the order of your questions: a missing `.grad` is no tensor, so asking about its entries "
            "fails, and a `.grad` of zeros is not missing. Make all three states to test with: a fresh model has no "
            "`.grad`, one backward fills it, `zero_grad` with `set_to_none` off leaves zeros. Asking must leave every "
            "`.grad` as it was.",
        ),
        "leaves_of": (
            "Autograd owns the record of the forward pass and `t.grad_fn` is its last node. The record ends at "
            "the leaves: `AccumulateGrad` nodes whose `.variable` is the leaf tensor itself.",
            "This is a graph walk: a stack (or a queue) of nodes still to visit and a set of nodes already "
            "visited. Each node's inputs are in `node.next_functions`, as `(node, index)` pairs whose node may be "
            "`None`; `getattr` with a default tells you whether a node has a `.variable`.",
            "Two traps: one leaf can be reached along several paths (use it twice in the forward pass), and tensors "
            "compare element by element, so `==` and `in` do not ask whether two are the same tensor. Test with a leaf "
            "used twice, a constant that does not require grad and a `t` that is itself a leaf: each tracked leaf "
            "comes back once.",
        ),
        "stable_softmax": (
            "Respect two owners: the caller owns `z` (never write into it) and autograd owns the tensors it saved "
            "for the backward pass (never write into those either). Stability comes from one fact: softmax does "
            "not change when the same number is subtracted from every entry of a slice.",
            "Look up `Tensor.max(dim=..., keepdim=True)` (it returns values and indices: use `.values`), "
            "`Tensor.exp()` and `Tensor.sum(dim=..., keepdim=True)`; `keepdim=True` keeps the reduced axis so "
            "that the result broadcasts back along `dim`.",
            "The trap is an in-place operation that looks harmless: writing into `z` changes the caller's tensor, and "
            "writing into the exponential's result spoils what autograd saved for backward (section 6 of the lesson, "
            "the version counter). Aim for a result that is finite at entries of 1000 and -1000, sums to 1 along "
            "`dim`, leaves `z` as it was and lets `backward` run.",
        ),
    },
    "03-nn-module": {
        "MLP": (
            "The module owns its parameters only once they are registered, and here the number of layers is known only at run time: every layer must end "
            "up registered on the module, or `parameters()`, `state_dict()` and `.to(device)` will not see it.",
            "A plain Python list registers nothing. Look up `nn.Sequential`, `nn.ModuleList` and "
            "`nn.Dropout(p)`; pairing each size with the next one (`zip` of the list with itself shifted by one) "
            "gives the Linear layers' shapes.",
            "Print your model for `sizes` of length 2, 3 and 4 and read what follows each Linear: nothing after the "
            "last one (its outputs are logits, free to be negative), a Dropout only when `dropout` is above 0, and "
            "every layer's weight and bias in `state_dict()`, the proof that a container registered them.",
        ),
        "plan_mlp": (
            "A state_dict key is the path of attributes from the model down to the tensor. Ask your own MLP "
            "which attribute holds its layers and how that container names what it holds.",
            "An `nn.Sequential` (or `nn.ModuleList`) names its modules by position, 0, 1, 2, ..., and every "
            "module it holds takes a position, even one that owns no tensor. Reread how `nn.Linear` stores its "
            "weight: which size is the row count?",
            "Positions count modules, not Linear layers: a ReLU or a Dropout takes a position and owns no tensor, so "
            "the numbers in the keys skip. Your own MLP is the oracle: for a few `sizes`, with and without dropout, "
            "compare your plan key by key with the shapes in its `state_dict()`; a weight is (outputs, inputs).",
        ),
        "count_parameters": (
            "Count the values the module owns as parameters: elements, not tensors. Ask the module for its "
            "parameters instead of walking its attributes; buffers are not parameters.",
            "Look up `Module.parameters()` (each tensor once, even when it is tied under two names; "
            "`state_dict()` would count a tied tensor twice and include buffers), `Tensor.numel()` and the flag "
            "`requires_grad`.",
            "Two traps: a tensor tied under two names is one set of values, and BatchNorm's running statistics are "
            "buffers, not parameters. Test with a tied weight, as in section 5 of the lesson, and a BatchNorm: your "
            "count must match one worked out by hand, a frozen layer drops out only with `trainable_only`, and the "
            "result is a Python `int`.",
        ),
        "freeze": (
            "Two different owners: a parameter's `requires_grad` flag decides whether autograd records it; the "
            "module's mode (`training`) decides how Dropout and BatchNorm behave. Freezing is about the first "
            "only.",
            "Look up `Module.parameters()` (recursive: children and grandchildren included) and "
            "`Tensor.requires_grad_()`. `eval()` and `train()` change the mode, which `freeze` must leave alone.",
            "The trap is stopping at the surface: a module's own attributes are not its grandchildren's parameters, "
            "and `eval()` is another owner. Test with a Sequential nested in a module of your own, in training mode: "
            "afterwards no parameter at any depth requires grad, `model.training` is still True, and what you got back "
            "`is` the module you passed in.",
        ),
        "untrained_parameters": (
            "The optimizer owns its own list of parameters, fixed when it was built. A parameter the model gained "
            "later, or that was left out, is trained by no one: compare that list with the model's trainable "
            "parameters.",
            "Look up `optimizer.param_groups`: a list of dicts, each with a `\"params\"` list of tensors. Compare "
            "tensors by identity (`id` or `is`), never with `==`, by name or by shape: two layers of the same shape "
            "hold different parameters.",
            "The trap is comparing by value: two layers of the same shape look equal and are different parameters; "
            "only identity says whether the optimizer holds this very tensor. A frozen parameter left out on purpose "
            "does not count. Test with an optimizer built before one layer of the model was replaced: that layer's "
            "names, and only those, come back.",
        ),
    },
    "04-five-line-step": {
        "train_step": (
            "Five hand-offs, and the order matters: each parameter's `.grad` must be cleared of the previous "
            "batch before this batch's backward adds to it, and the optimizer must step after backward has filled "
            "`.grad`. Then think about what you return: the caller wants a number, not the graph.",
            "Look up `optimizer.zero_grad`, `loss.backward`, `optimizer.step` and `Tensor.item()`. The "
            "ledger cell under your answer shows each event of your step and what every owner held at that "
            "moment.",
            "One position decides it: whatever clears `.grad` must not stand between the statement that fills it and "
            "the one that uses it (section 4 of the lesson runs the wrong orders side by side). Read the ledger cell "
            "under your answer: `.grad` holds this batch's gradients only, the weights move once, and you hand back a "
            "Python float, not a tensor with a graph.",
        ),
        "train_epoch": (
            "Three owners to get right: the module's mode (an evaluation may have left it in eval mode), the "
            "device every batch lives on, and the running total, which must hold numbers rather than graphs.",
            "Look up `model.train()`, `Tensor.to(device)` (it returns a new tensor: keep the result) and "
            "`Tensor.item()`, or reuse your `train_step`, which already returns a float. A mean per example over "
            "batches of different sizes needs each batch's size: `len(x)`.",
            "Two traps: a model left in eval mode trains with Dropout off, and the mean of the batch means is not the "
            "mean per example when the last batch is smaller. Test with a plain linear model, 10 examples in batches "
            "of 4 and `lr` 0 (nothing changes): your result must equal the loss over all 10 at once, and "
            "`model.training` must be True afterwards.",
        ),
        "accumulate_step": (
            "Each parameter's `.grad` is an accumulator: several backward calls add up in it. One optimizer update "
            "from many micro-batches: how many clears, backwards and steps does it take?",
            "One step on the concatenation with a mean loss uses the average of the micro-batch gradients, but "
            "`.grad` receives their sum. Think about what scaling a loss by a constant does to its gradient.",
            "The decisive idea is what `.grad` adds up: k backward calls leave the sum of k gradients, but one step on "
            "the whole batch uses their mean. Test against that step: on copies of one model and optimizer, an update "
            "from the concatenated micro-batches and one from your function must leave the same parameters, and you "
            "report the mean loss as a float.",
        ),
        "overfit_one_batch": (
            "This is the lesson's sanity check: the same batch, many updates. Each update is one full hand-off, "
            "the one you have already written.",
            "Reuse your `train_step`: it clears `.grad`, records a fresh graph, backpropagates, steps and returns "
            "a float. The list holds the loss each step computed its gradients from, one entry per step.",
            "Two traps flatten the curve: rebuilding (a new optimizer each step throws Adam's moments away, a new "
            "model starts over) and recording a loss measured after the update instead of the one the step computed "
            "its gradients from. Aim for `steps` Python floats, the first one the untouched model's loss, the last far "
            "below it.",
        ),
        "predict_trace": (
            "Keep one state per owner, as plain Python, and update it statement by statement: the graph (one word), "
            "each parameter's .grad (one word per name), and for each parameter whether it has a momentum buffer "
            "and whether that buffer holds only zeros. Start them from `start`; the graph starts at \"none\".",
            "Write down, for each of the six statements, which owner it writes and for which parameters: the two "
            "zero_grad()s of the optimizer touch only the tensors it holds (one sets None, the other fills an "
            "existing .grad with zeros and leaves None alone); the model's zero_grad() touches every parameter; "
            "backward() adds a gradient to every parameter on the path and frees the graph; a forward pass "
            "records a new graph. Lesson 04 part 2, section 7, has the table.",
            "step() is the statement with conditions: it touches a tensor it holds whose .grad is not None (zeros "
            "included) and skips the rest. For each one it touches, the buffer is made from the .grad the first "
            "time and becomes momentum × buffer + .grad after; the parameter moves by lr × buffer, so zeros in and "
            "zeros in the buffer mean no change. Any tensor touched while a graph is alive is a write that makes "
            "the graph unusable, even a write of zeros.",
        ),
        "trace_batch": (
            "One statement at a time, ask each owner what it holds, as the lesson's owner table does: the loss, each "
            "parameter's `.grad`, the optimizer's buffers, the parameters' values, autograd's graph. Five of them "
            "can be read off the objects you are given; the graph cannot, so it is the one to reason about.",
            "Look up where each owner keeps its state: `p.grad`, the optimizer's state (it gains a momentum buffer "
            "the first time step() updates p; read it with `optimizer.state.get(p, {})`: `optimizer.state` is a "
            "defaultdict, and `optimizer.state[p]` would add an entry for a tensor that has none) and "
            "`optimizer.param_groups` (the tensors the optimizer's step() and zero_grad() touch; the model's "
            "zero_grad() touches every parameter). Compare with copies taken before the statement: a reference you "
            "kept changes under you when step() writes in place.",
            "The graph is the trap. Module 02's version counter counts writes, not changes: a step() writes into every "
            "tensor it holds whose .grad is not None (zeros included) and skips a None, and a graph alive at that "
            "moment can no longer be walked. Test your rule by experiment: run a short body on copies of the "
            "objects, then call backward() once and see whether it raises.",
        ),
        "repair_train_epoch": (
            _REPAIR_1,
            "Compare every line with the contract of `train_epoch`: the mode set to training before the loop, "
            "every batch moved to `device`, the gradients cleared before each backward, backward before step, "
            "the running total kept as Python floats, and a mean per example, not per batch.",
            "Run the colleague's function and your `train_epoch` side by side on `copy.deepcopy`s of one model and "
            "optimizer, with the model left in eval mode and a smaller last batch, and line up the losses, the "
            "parameters afterwards and `model.training`. Each mismatch belongs to one owner: change only the statement "
            "that owns that state.",
        ),
    },
    "05-train-vs-eval": {
        "evaluate": (
            "Two switches, two owners: the module's mode (`eval()` turns Dropout off and makes BatchNorm use its "
            "running statistics) and autograd's recording (`no_grad` records no graph). Evaluation needs both, "
            "and the mode you found belongs to the caller.",
            "Look up `model.training`, `model.eval()`, `model.train(mode)` and `torch.no_grad()`. For a mean per "
            "example over batches of different sizes, weight each batch's mean loss by its size.",
            "Two switches and a courtesy: the mode (Dropout, BatchNorm), recording (a graph or none), and the caller's "
            "mode, which they get back, training or not. Test on a model with Dropout and BatchNorm: two calls give "
            "the same number, the running statistics stay put, `model.training` is unchanged from either mode, and "
            "unequal batches give the loss over the whole set.",
        ),
        "accuracy": (
            "The model outputs logits, not probabilities: a logit of 0 is even odds. Like `evaluate`, accuracy "
            "reads the model without changing it: eval mode for the measurement, then the caller's mode back.",
            "A logit above 0 is a probability above 0.5, so compare the logits with 0 (no sigmoid needed), then "
            "compare the 0/1 predictions with `y`. Look up `Tensor.sum()`, `Tensor.item()` and `Tensor.numel()` "
            "to count.",
            "The traps are in the comparison: a logit is not a probability (0.5 is the wrong threshold for it), and "
            "`[N, 1]` predictions against `[N]` targets broadcast to `[N, N]` and give a plausible number. Test with "
            "logits you choose and a smaller last batch: the fraction of correct examples over the whole set, as a "
            "Python float, with the caller's mode back.",
        ),
        "predict_proba": (
            "Identical results across calls is the module's mode (Dropout is random only in training mode); no "
            "history is autograd's recording. Set both owners, and hand the mode back.",
            "Look up `model.eval()`, `torch.no_grad()`, `torch.sigmoid`, and `model.train(mode)` to restore what "
            "`model.training` was.",
            "Aim for a result that passes three looks: two calls on the same `x` give identical tensors even with "
            "Dropout in the model, the result has no `grad_fn`, and `model.training` is the same before and after, "
            "from either mode. Every value lies strictly between 0 and 1, in the logits' shape (section 7 of the "
            "lesson: the caller gets their mode back).",
        ),
        "fit": (
            "An epoch is training, then validation, and validation switches the module's mode: the next epoch "
            "must switch it back. Both histories are lists of Python floats, one per epoch.",
            "You may call your `evaluate` for the validation loss. For the training loss, take each batch's loss "
            "before its update (the one you called backward on) and average it per example over the epoch, as in "
            "`train_epoch`.",
            "The trap is the mode across epochs: validation leaves the module in eval mode, and an epoch that does not "
            "notice trains with Dropout off from the second epoch on. Test with Dropout and three epochs under the "
            "lesson's `Ledger`, which records the mode at every forward; both histories hold three Python floats, the "
            "training one per example.",
        ),
        "repair_evaluate": (
            _REPAIR_1,
            "Compare every line with the contract of `evaluate`: eval mode during the loop and the caller's mode "
            "afterwards, no graph recorded, every batch on `device`, Python floats in the total, a mean per example "
            "over batches of unequal size, and no parameter or buffer changed.",
            "Let your own `evaluate` be the reference: on a model with Dropout and BatchNorm and a smaller last batch, "
            "run both twice and line up the numbers, `model.training` before and after, the running statistics, and "
            "whether anything returned holds a graph. Each mismatch names one owner; the fix belongs in the statement "
            "that owns that state.",
        ),
    },
    "06-failure-modes": {
        "make_loaders": (
            "Three owners of order: the split (which examples go to validation), the training loader (a new order "
            "every epoch) and the validation loader (the same order every time). Cutting a class-sorted dataset "
            "in two is not a representative split.",
            "Look up `torch.utils.data.random_split(dataset, lengths, generator=...)` and "
            "`DataLoader(..., shuffle=..., generator=...)`. The lengths must add up to `len(dataset)`.",
            "The trap is a split that is not random: a slice of a class-sorted dataset sends one class to validation. "
            "Aim for parts that are disjoint and cover every index, sizes that follow `val_fraction`, the same split "
            "from generators seeded alike, and a training loader whose order changes between passes while validation's "
            "does not.",
        ),
        "lr_sweep": (
            "Every learning rate must start from the same place: a fresh model, and a fresh optimizer over its "
            "parameters, per rate. Otherwise each rate continues where the previous one stopped.",
            "Look up `torch.optim.SGD(params, lr=...)`, `nn.BCEWithLogitsLoss()` and `math.isfinite` (NaN and the "
            "infinities are not finite). What you record is the final loss, as a Python float.",
            "The trap is shared state: a model or an optimizer that outlives one rate lets the next rate continue "
            "where it stopped. Test with a `make_model` that seeds before it builds: a rate swept alone must give the "
            "loss it gives among several. And no NaN may stay in the result (section 5 of the lesson says why a sweep "
            "must not keep them).",
        ),
        "pick_lr": (
            "A sweep may hold losses that are not numbers at all: NaN compares false with everything, so a "
            "minimum over the raw values may pick it or skip it depending on the order.",
            "Look up `math.isfinite` and `min(iterable, key=...)`; on a dict, `min` compares the keys unless `key` "
            "says what to compare.",
            "Aim for a key, not a value: the result is a learning rate. The trap is NaN, whose place in the dict can "
            "change what a plain minimum picks: test with a NaN first, a NaN last and an infinite loss, and the rate "
            "you get must be the same in every order, the one with the smallest finite loss.",
        ),
        "overfit_diagnosis": (
            "A handful of examples, a hundred updates: a setup that cannot memorise one batch has an owner holding the "
            "wrong state. Which facts about the first update tell the owners apart?",
            "Keep the first update's evidence before the optimizer changes anything: the output's shape next to the "
            "targets', whether the loss has a graph (`loss.requires_grad`), and what every trainable parameter's "
            "`.grad` holds after its backward.",
            "The decisive moment is the first update: after a step, a shape mismatch, a missing gradient and a weak "
            "optimizer leave the same flat curve. The trap is a loss with no graph: backward raises there, and a "
            "verdict must still come back. Test one setup per verdict and check that the table's order decides when "
            "two could apply.",
        ),
        "health_check": (
            "Each code names one owner: the module's mode (`eval_mode`), the loader's order (`not_shuffled`), the "
            "optimizer's list (`untrained_parameters`), the batches' device (`device_mismatch`), the targets' "
            "shape (`shape_mismatch`), the loss (`nonfinite_loss`) and each parameter's `.grad` (`missing_grad`). "
            "Ask each owner in turn.",
            "Some owners can be read without running anything: `model.training`, the type of `loader.sampler` "
            "(`RandomSampler` means shuffled), `optimizer.param_groups` by identity, the device of the model's "
            "parameters against the batch's. The others need one forward and backward, on a `copy.deepcopy` of "
            "the model, so that the caller's parameters and `.grad` stay as they were.",
            "Two traps: touching what you inspect (the caller's model, its `.grad` and the optimizer must look the "
            "same afterwards, so a probe that runs the model runs on a copy), and probing past a finding that makes "
            "the next probe meaningless (a device or a shape mismatch). The table of section 12 (lesson 06, part 2) gives "
            "each code's evidence: one broken setup per row makes your test.",
        ),
        "repair_make_loaders": (
            _REPAIR_1,
            "Compare every line with the contract of `make_loaders`: a random split (not a slice of a dataset "
            "that may be sorted) of the right sizes, disjoint and complete; shuffling on for training and off for "
            "validation; the given `generator` used, so the same seed gives the same split; `batch_size` on both.",
            "Let the loaders speak: for generators seeded alike and for different seeds, look at the indices each part "
            "holds (a `Subset` keeps them in `.indices`), how many examples each loader yields, and whether two passes "
            "give the same order. Hold each against the contract; only the statement that owns a failing clause "
            "changes.",
        ),
    },
    "07-eager-compile-export": {
        "time_it": (
            "A measurement has owners too: the warm-up calls pay for caches and compilation and must not be "
            "timed, and on CUDA the clock must wait for the GPU, which runs kernels asynchronously.",
            "Look up `time.perf_counter()`, `statistics.median`, `torch.cuda.synchronize` and `Tensor.is_cuda`. "
            "Touch CUDA only when one of the arguments lives there.",
            "Two traps decide the number: the first calls pay for caches and compilation, and on CUDA a call returns "
            "before the GPU has finished, so the clock measures the launch, not the work (section 3 of the lesson). "
            "Aim for the median of `iters` timings in seconds, as a float: a 10 ms sleep comes out near 0.01, and a "
            "slow first call changes nothing.",
        ),
        "compile_model": (
            "A compiled module should wrap the same parameters, not copies: the optimizer holds `model`'s own "
            "tensors, so training through the wrapper must update them.",
            "Look up `torch.compile`: the module it returns shares the original module's parameters. "
            "`copy.deepcopy` or building a new model breaks that link.",
            "The one thing to get right is sharing: the compiled module must compute with your model's own parameters, "
            "so that an optimizer built over the original trains it. Test exactly that: one update through the "
            "compiled module must move a parameter of the original. A first call that takes seconds is the compiler at "
            "work, not a bug.",
        ),
        "export_program": (
            "An exported program is for inference, and the module's mode at the moment of export is baked into "
            "its graph: a model straight from training still has Dropout on. The mode belongs to the caller: hand "
            "it back.",
            "Look up `torch.export.export(model, args, dynamic_shapes=...)`, `torch.export.Dim`, "
            "`torch.export.save` and `torch.export.load`. `args` is a tuple of inputs and `dynamic_shapes` says, "
            "per input, which dimensions may vary.",
            "Two owners freeze at export: the mode, baked into the graph (Dropout on means a program that answers at "
            "random), and the batch dimension, fixed to the example's size unless declared dynamic. The caller's mode "
            "comes back even if export raises. Aim for a file that `torch.export.load` reads and that matches the "
            "eager eval-mode output at other batch sizes.",
        ),
        "export_onnx": (
            "The same owner as for `export_program`: the mode at export time decides whether Dropout is in the "
            "graph, and the caller gets their mode back. The batch dimension must stay dynamic, or onnxruntime "
            "rejects other batch sizes.",
            "Look up `torch.onnx.export(..., dynamo=True, dynamic_shapes=...)`: with `dynamo=True` it goes "
            "through `torch.export` and takes the same `dynamic_shapes` (and `Dim`) as `export_program`.",
            "The same two owners as in `export_program`: the mode baked into the graph, and a batch dimension fixed "
            "unless declared dynamic. Check the file as a serving team would: an `onnxruntime.InferenceSession` agrees "
            "with the eager eval-mode output at two batch sizes, and `model.training` is what it was, even if export "
            "raises.",
        ),
        "time_split": (
            "Two owners of a step's time: the loader (producing the next batch) and the model with its optimizer "
            "(forward, backward, update). Give each its own clock, and make sure no moment is counted by both.",
            "Make one iterator from the loader before the loop and take each batch with `next()` on it, so that you "
            "can put a clock around the fetch itself (a new `iter(loader)` in every step starts the epoch over and "
            "trains on the first batch each time). Reread how `time_it` waits for a CUDA device before reading its "
            "clock, and ask where a model's parameters tell you its device.",
            "The trap is a moment counted twice or not at all: the data clock covers the batch until it is on the "
            "device, the compute clock starts where it stops, and on CUDA no clock is read while work is still queued. "
            "Test with a Dataset whose `__getitem__` sleeps: the data total grows and `bottleneck` says data.",
        ),
    },
    "08-reproducible-training": {
        "seed_everything": (
            "Every random source is its own owner: Python's `random`, NumPy's global generator, torch's CPU "
            "generator, CUDA's generators, and the DataLoader's generator, which is none of these.",
            "Look up `random.seed`, `np.random.seed`, `torch.manual_seed` (it seeds CUDA as well; "
            "`torch.cuda.manual_seed_all` says so explicitly) and `Generator.manual_seed`.",
            "The trap is the fifth owner: a DataLoader's generator is not the global torch generator, and seeding the "
            "globals leaves a generator object of its own as it was. Aim for a repeat test: the same seed twice gives "
            "the same draws from `random`, NumPy and torch and the same epoch order from a loader on the returned "
            "generator; another seed does not.",
        ),
        "save_checkpoint": (
            "A resume needs every owner's state: the module's parameters and buffers, the optimizer's state "
            "(Adam's moments and step counts), the epoch counter, and every random generator: Python, NumPy, "
            "torch's CPU one, CUDA's, and the loader's.",
            "Look up `state_dict()` on the model and on the optimizer, `random.getstate()`, "
            "`np.random.get_state()`, `torch.get_rng_state()`, `torch.cuda.get_rng_state_all()`, "
            "`Generator.get_state()` and `torch.save`. Save state dicts, never the model object itself.",
            "The trap is the safe loader: `torch.load` with only weights allowed refuses anything that is not tensors "
            "or plain Python data, and NumPy's RNG state holds an array. Read your file back that way: every owner of "
            "the first hint is in it, an absent one as None, and no model or optimizer object.",
        ),
        "load_checkpoint": (
            "Restore into the caller's objects: the model, optimizer and generator you were given are the ones the "
            "run continues with, so a new optimizer or a new generator restores nothing the caller sees. And "
            "return the epoch to run next, not the one that finished.",
            "Look up `torch.load(path, weights_only=True)`, `load_state_dict` on the model and on the optimizer, "
            "`random.setstate`, `np.random.set_state`, `torch.set_rng_state`, `torch.cuda.set_rng_state_all` and "
            "`Generator.set_state`.",
            "Three traps: restoring into objects of your own instead of the caller's, NumPy refusing its state until "
            "the stored list is an array again, and an off-by-one in the epoch. Test the round trip as section 7 of "
            "the lesson (part 2) does: an epoch run after loading must repeat, loss for loss, the epoch that ran after saving.",
        ),
        "repair_load_checkpoint": (
            _REPAIR_1,
            "Compare every line with the contract of `load_checkpoint` and with the given saver, key by key: "
            "everything the saver wrote is restored, into the caller's objects (model, optimizer, every RNG, the "
            "generator), and the returned epoch is the next one to run.",
            "Start from the saver, which is right: for each entry it writes, ask which of the caller's objects should "
            "hold it after loading, and look there (the optimizer's `state_dict()`, the generator's `get_state()`, the "
            "next draws of each RNG). Then ask which epoch a resumed loop would run. Change only the statements whose "
            "owner comes out different.",
        ),
    },
    "09-debug-a-real-run": {
        "DigitsDataset": (
            "A Dataset owns two things: how many examples there are (`__len__`) and what one example is "
            "(`__getitem__`). Read the contract for the exact dtype and shape of each half of the pair.",
            "Conv2d wants a channel axis; CrossEntropyLoss wants class indices, one int64 per example, not a "
            "column and not one-hot rows. `torch.as_tensor(np.asarray(...))` accepts NumPy and tensors alike.",
            "Aim for the contract of section 4.1 (part 2 of the lesson): an image `[1, 8, 8]` in float32 and a 0-d "
            "int64 label per index, a length equal to the number of labels, and `[B, 1, 8, 8]` with `[B]` from a "
            "DataLoader. The trap is work per item: converting in every `__getitem__` is slow, and scaling here is "
            "preprocessing the model does not own.",
        ),
        "fit_normalizer": (
            "Preprocessing is state fitted on the training split. Which owner should hold it so that a saved "
            "model carries it and `.to(device)` moves it?",
            "Look up `nn.Module.register_buffer`: in `state_dict`, moved by `.to()`, never returned by "
            "`parameters()`. Some pixels are 0 in every image, so their std is 0.",
            "Three traps: statistics computed in `forward` come from the batch being served, not the training split; "
            "pixels that are 0 in every image have a std of 0; plain attributes are neither saved nor moved. Aim for a "
            "module whose `state_dict()` holds both statistics, whose `parameters()` is empty, and whose output on the "
            "training images is finite with a mean of about 0.",
        ),
        "DigitCNN": (
            "The model is the one object that travels from training to serving. What must it own so that serving "
            "cannot forget the preprocessing?",
            "An `nn.Module` assigned as an attribute becomes a submodule (its buffers join `state_dict`); a list or "
            "a dict does not. `nn.Identity()` stands in when no normaliser is given.",
            "The decisive owner is the normaliser: a submodule, so that it is in `state_dict()` and moves with the "
            "model, and the first thing `forward` applies. Size the rest by experiment: push a `[2, 1, 8, 8]` batch "
            "through your layers one at a time and print each shape until you reach `[2, num_classes]`; a 3×3 "
            "convolution with `padding` 1 keeps 8×8.",
        ),
        "train_epoch_ce": (
            "It is module 04's epoch with three new owners: the loss's target contract, the clipping between "
            "`backward` and `step`, and a schedule that counts optimizer steps.",
            "Look up `nn.utils.clip_grad_norm_` (one norm over all parameters) and the warning PyTorch gives when "
            "a scheduler steps before its optimizer.",
            "Two places decide it: clipping acts on the gradients backward has just written and the step has not used "
            "yet, and a scheduler counts optimizer steps (PyTorch warns when it moves first). The rest is module 04's "
            "epoch under CrossEntropyLoss's contract. Test with a scheduler whose learning rate you print after the "
            "epoch: it moved once per batch.",
        ),
        "predict_digits": (
            "Serving must see exactly what training saw. Where does this model keep its preprocessing, and what "
            "is then left for `predict_digits` to do?",
            "The mode and the grad mode are two switches (module 05); `argmax(dim=1)` turns `[N, C]` logits into "
            "class indices.",
            "The trap is preprocessing twice: this model owns its normaliser, so scaling of your own makes serving see "
            "other inputs than training did. Aim for `[N]` int64 labels, the class of the largest eval-mode logit on "
            "the raw images, the same on every call, from a NumPy array or a tensor alike, with the caller's "
            "`model.training` unchanged.",
        ),
        "StepLedger": (
            "Each owner has one hook that fires at the moment its state matters. Which one sees the mode as a "
            "forward pass starts, which one sees `.grad` before backward adds to it, and which pair sees the "
            "weights on both sides of `step()`?",
            "`module.register_forward_pre_hook`, `Tensor.register_hook` (on a leaf it runs before `.grad` is "
            "written; a hook that returns a tensor replaces the gradient), `optimizer.register_step_pre_hook` "
            "and `register_step_post_hook`. Each returns a handle whose `remove()` detaches it.",
            "The decisive question is timing: a record is complete only once the optimizer has stepped, so the step's "
            "hooks are where one record ends and the next begins, and the weights before the step must be copies. The "
            "trap on the way out: every handle comes off, also when the block raised. Test two steps in a block: two "
            "records, and no hook fires after it.",
        ),
        "repair_run": (
            "Run the checks first and read which owner each one names; then read the run as the lesson did, with "
            "your own ledger, one epoch at a time.",
            "Compare, line by line: what each parameter's `.grad` holds when the next `backward` starts, the mode "
            "at every validation forward, what reaches the model on the training and on the validation path, and "
            "how far one step moves the weights compared with their size.",
            "Let your own `StepLedger` watch the colleague's run for an epoch and read it owner by owner: the mode at "
            "every forward, `.grad` as each backward starts, each step's change next to the size of the weights. Then "
            "follow one image down the training path and down the validation path. Each anomaly is one owner at one "
            "moment; rerun the checks after each change.",
        ),
    },
}


_COLOUR = "#0969da"
_GREY = "#57606a"


def module_id_of(checks_module: str) -> str:
    """The course module whose checks live in ``checks_module`` (``autograder.checks.m04_five_line_step`` or
    ``m04_five_line_step``), matched by its number; a module id is returned as it is."""
    short = checks_module.rsplit(".", 1)[-1]
    ids = [m.id for m in MODULES]
    if short in ids:
        return short
    named = module_of_checks(short)
    if named is not None:
        return named.id
    match = re.match(r"m(\d\d)_", short)
    found = [i for i in ids if match and i.startswith(match.group(1) + "-")]
    if len(found) != 1:
        raise ValueError(f"no course module for checks module {checks_module!r}; the course has {ids}")
    return found[0]


def hints_of(module_id: str, name: str) -> tuple[str, ...]:
    return HINTS.get(module_id, {}).get(name, ())


def next_call(name: str, level: int) -> str:
    """The call that shows hint ``level`` of ``name``, as an exercise writes it."""
    return f'check.hint("{name}", {level})' if level > 1 else f'check.hint("{name}")'


def _html_text(text: str) -> str:
    """Escape, then show `backticked` spans as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def _show(label: str, name: str, body: str, tail: str = "", colour: str = _COLOUR) -> None:
    if core._in_notebook():
        from IPython.display import HTML, display

        after = f'<br><span style="color:{_GREY}">{_html_text(tail)}</span>' if tail else ""
        display(HTML(
            f'<div class="autograder-hint" style="font-family: sans-serif; padding: 2px 0">'
            f'<span style="background:{colour};color:white;border-radius:3px;padding:1px 6px;font-weight:bold">'
            f"{html.escape(label)}</span> <code>{html.escape(name)}</code> — {_html_text(body)}{after}</div>"))
    else:
        print(f"[{label}] {name} — {body}" + (f"\n{tail}" if tail else ""))


def _check_level(level) -> int:
    if isinstance(level, bool) or not isinstance(level, numbers.Integral):
        raise ValueError(f"hint level must be a whole number (1 for the first hint, 2 for the next, ...), "
                         f"not {level!r} ({type(level).__name__})")
    if level < 1:
        raise ValueError(f"hint level must be 1 or more (1 is the first hint), not {int(level)}")
    return int(level)


def hint(module_id: str, name, level: int = 1) -> None:
    """Show hint ``level`` (1, 2, ...) for graded function ``name`` of module ``module_id``.

    Records the highest level shown in the learner's progress file.  Under grading it shows
    nothing, records nothing and returns ``None`` (it always returns ``None``).
    """
    if progress.is_grading():
        return None
    level = _check_level(level)
    if not isinstance(name, str):  # check.hint(train_step): the function itself
        name = getattr(name, "__name__", repr(name))
    if module_id not in HINTS:
        raise ValueError(f"no course module {module_id!r}; the course has {list(HINTS)}")
    functions = [f for m in MODULES if m.id == module_id for f in m.functions]
    texts = hints_of(module_id, name)
    if not texts:
        close = difflib.get_close_matches(name.lower(), [f.lower() for f in functions], n=1, cutoff=0.6)
        guess = next((f for f in functions if close and f.lower() == close[0]), None)
        listed = ", ".join(f'"{f}"' for f in functions)
        body = (f"no hints for {name!r} in module {module_id.split('-', 1)[0]}. Its graded functions are {listed}."
                + (f' Did you mean `{next_call(guess, 1)}`?' if guess else ""))
        _show("hint", name, body, colour=_GREY)
        return None
    total = len(texts)
    if level > total:
        _show("hint", name, f"`{name}` has {total} hints and hint {total} is the last one; there is no hint {level}.",
              f"See it again with `{next_call(name, total)}`. Beyond it: read the check's message (Seen, Owner, "
              "Do) and the lesson's section on this owner.", colour=_GREY)
        return None
    tail = (f"Next: `{next_call(name, level + 1)}`." if level < total
            else "That was the last hint. The check's message (Seen, Owner, Do) says what it saw; "
                 f'`check.solution("{name}")` shows the reference answer.')
    _show(f"hint {level} of {total}", name, texts[level - 1], tail)
    _SHOWN[(module_id, name)] = max(_SHOWN.get((module_id, name), 0), level)
    try:
        progress.record_hint(module_id, name, level)
    except Exception:  # noqa: BLE001 - progress must never break a hint
        pass
    return None


#: Hint levels shown in this process, per (module, function): the answer is unlocked even when no progress
#: file can be written.
_SHOWN: dict[tuple[str, str], int] = {}

#: Where a course's reference answers live when it has them (a public clone does; a cohort's release does not).
SOLUTIONS_ENV = "TORCH_LEDGER_SOLUTIONS"
#: Where the answers are read from when this copy has no ``solutions/`` (Colab, Binder, a pip-installed course):
#: a base URL that ``solutions/<module>/<module>.ipynb`` is read under; unset, the published repository
#: (:mod:`autograder.published`); set but empty, nowhere (a cohort whose instructor keeps the answers).
SOLUTIONS_URL_ENV = "TORCH_LEDGER_SOLUTIONS_URL"
#: Seconds to wait for the published repository before saying it cannot be reached.
FETCH_TIMEOUT = 5.0


def _solutions_dirs():
    import os
    from pathlib import Path

    if os.environ.get(SOLUTIONS_ENV):
        yield Path(os.environ[SOLUTIONS_ENV])
        return
    # Only beside the learner's own notebooks: exercises/<module>/ is two below a clone's root. Never beside the
    # installed package: a shared environment installed from a clone must not hand its answers to a cohort.
    here = Path.cwd()
    for folder in (here, *list(here.parents)[:3]):
        yield folder / "solutions"


def _answer_in(nb, name: str) -> str | None:
    from .cells import answer_cells

    cell = answer_cells(nb).get(name)
    answer = None if cell is None else strip_solution_markers(cell.source).rstrip("\n")
    handed_out(answer, f"the reference answer of `{name}` that the hints read (autograder.hints)")  # code run from this text is never a learner's answer
    return answer


def reference_answer(module_id: str, name: str) -> str | None:
    """The reference answer cell of ``name`` from this copy's ``solutions/`` (without nbgrader's markers), or
    None when this copy of the course has no solutions."""
    found = local_reference(module_id, name)
    return None if found is None else found[0]


def local_reference(module_id: str, name: str) -> tuple[str | None, str] | None:
    """``(answer, the notebook it came from)`` from this copy's ``solutions/``; None when it has none."""
    import nbformat

    for folder in _solutions_dirs():
        path = folder / module_id / f"{module_id}.ipynb"
        if path.is_file():
            return _answer_in(nbformat.read(path, as_version=4), name), str(path)
    return None


def solutions_url(module_id: str) -> str | None:
    """Where the published reference notebook of ``module_id`` is read from; None when that is switched off."""
    import os

    from .published import raw_url

    base = os.environ.get(SOLUTIONS_URL_ENV)
    if base is None:
        base = raw_url()
    if not base.strip():
        return None
    return base.rstrip("/") + f"/solutions/{module_id}/{module_id}.ipynb"


class ReferenceUnreachable(Exception):
    """The published reference could not be read; the message says where from and why."""


#: Published reference notebooks read in this process, by URL.
_FETCHED: dict = {}


def published_reference(module_id: str, name: str) -> tuple[str | None, str] | None:
    """``(answer, URL)`` from the course's published repository; None when reading it is switched off.
    Raises :class:`ReferenceUnreachable` when it cannot be read within :data:`FETCH_TIMEOUT` seconds."""
    import json
    import urllib.error
    import urllib.request

    import nbformat

    url = solutions_url(module_id)
    if url is None:
        return None
    if url not in _FETCHED:
        try:
            with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT) as response:  # noqa: S310 - the course's URL
                text = response.read().decode("utf-8")
            _FETCHED[url] = nbformat.reads(text, as_version=4)
        except urllib.error.HTTPError as error:
            raise ReferenceUnreachable(f"{url} answered {error.code} {error.reason}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise ReferenceUnreachable(f"{url} could not be reached ({reason})") from None
        except (UnicodeDecodeError, json.JSONDecodeError, nbformat.reader.NotJSONError) as error:
            raise ReferenceUnreachable(f"{url} did not hold a notebook ({type(error).__name__})") from None
    return _answer_in(_FETCHED[url], name), url


def _show_answer(name: str, source: str, origin: str) -> None:
    text = f"the reference answer (from {origin}), one way among several that pass:"
    if core._in_notebook():
        from IPython.display import HTML, display

        display(HTML(f'<div class="autograder-answer"><span style="background:{_COLOUR};color:white;'
                     f'border-radius:3px;padding:1px 6px;font-weight:bold">answer</span> <code>{html.escape(name)}'
                     f'</code> — {html.escape(text)}<pre>{html.escape(source)}</pre></div>'))
    else:
        print(f"[answer] {name} — {text}\n{source}")


def solution(module_id: str, name) -> None:
    """Show the reference answer of graded function ``name`` once every hint level of it was shown.

    Before that it says how many hints remain.  It records that the answer was revealed in the learner's
    progress; under grading it shows and records nothing.  The answer is read from this copy's ``solutions/``
    (a clone has it); where there is none (Colab, Binder, a pip-installed course), from the course's published
    repository (:func:`solutions_url`), saying so; offline it says that it could not be read and why; where
    that reading is switched off, that the instructor has it.  Returns ``None``.
    """
    if progress.is_grading():
        return None
    if not isinstance(name, str):
        name = getattr(name, "__name__", repr(name))
    texts = hints_of(module_id, name)
    if not texts:
        hint(module_id, name)  # the same message for a name that is not graded here
        return None
    total = len(texts)
    shown = max(_SHOWN.get((module_id, name), 0), progress.hints_used().get(module_id, {}).get(name, 0))
    if shown < total:
        left = total - shown
        _show("answer", name, f"not yet: {left} of its {total} hints {'is' if left == 1 else 'are'} still unread. "
              "The answer is shown after the last hint, once the hints had their chance.",
              f"Next: `{next_call(name, shown + 1)}`.", colour=_GREY)
        return None
    try:
        found = local_reference(module_id, name) or published_reference(module_id, name)
    except ReferenceUnreachable as error:
        import os

        where = (f"the place {SOLUTIONS_URL_ENV} names" if os.environ.get(SOLUTIONS_URL_ENV)
                 else "the course's published repository")
        _show("answer", name, f"this copy of the course has no solutions/ folder, and the reference answer could not "
              f"be read from {where}: {error}.",
              "Connect to the internet and call it again, or read the answer in a clone of the course "
              f"(solutions/{module_id}/).", colour=_GREY)
        return None
    if found is None:
        _show("answer", name, "this copy of the course has no reference answers (a course handed out for grading "
              "does not ship them): your instructor has it.", colour=_GREY)
        return None
    source, origin = found
    if source is None:
        _show("answer", name, f"the reference notebook at {origin} has no answer cell `{name}`.", colour=_GREY)
        return None
    _show_answer(name, source, origin)
    progress.record_revealed(module_id, name)
    return None


def solution_for(checks_module: str):
    """``solution(name)`` bound to the module whose checks live in ``checks_module``."""
    module_id = module_id_of(checks_module)

    def bound(name) -> None:
        return solution(module_id, name)

    bound.__name__ = bound.__qualname__ = "solution"
    bound.__doc__ = (f'The reference answer of a graded function of module {module_id}, once you have read every '
                     f'hint of it: `check.solution("name")`. Revealing it is noted in your own progress file.')
    return bound


def hint_for(checks_module: str):
    """``hint(name, level=1)`` bound to the module whose checks live in ``checks_module``."""
    module_id = module_id_of(checks_module)

    def bound(name, level: int = 1) -> None:
        return hint(module_id, name, level)

    names = ", ".join(f for m in MODULES if m.id == module_id for f in m.functions)
    bound.__name__ = bound.__qualname__ = "hint"
    bound.__doc__ = (f'A hint for a graded function of module {module_id}: `check.hint("name")` for the first, '
                     f'`check.hint("name", 2)` for the next. Functions: {names}. The hints point the way '
                     'without writing your code; after the last one, `check.solution("name")` shows the reference '
                     "answer. How many you used is noted in your own progress file only.")
    return bound
