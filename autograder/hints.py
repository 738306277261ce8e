"""Progressive hints for every graded function: ``check.hint("train_step")``, then ``check.hint("train_step", 2)``.

Two or three hints per function, in the course's vocabulary (the module's parameters and mode,
autograd's graph, each parameter's ``.grad``, the optimizer's state), each closer to the decisive
step than the last and none of them the answer:

1. the owner, or the idea, to think about;
2. the mechanism or the API to look up;
3. close to the decisive step, in words, never the code.

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
            "Build the 0/1 labels first (half of the rows each, the odd one out in either class), pick a centre per "
            "row by indexing a small tensor of two centres with the labels as integers, add `[n, 2]` noise drawn "
            "from the generator, and turn the labels into a column (`unsqueeze`) before moving both to `device`.",
        ),
        "standardize": (
            "Each feature (a column) owns its own mean and standard deviation, computed over the samples (the "
            "rows): which `dim` do you reduce over? And the caller owns `x`: read it, hand back a new tensor.",
            "Look up `Tensor.mean(dim=..., keepdim=...)` and `Tensor.std(dim=..., keepdim=...)`. With "
            "`keepdim=True` an `[n, d]` input gives `[1, d]` statistics that broadcast over the rows. Reducing "
            "over dim 1 also runs, and silently gives per-row statistics.",
            "Subtract the per-column mean and divide by the per-column standard deviation, out of place. In-place "
            "forms (`-=`, `/=`, `sub_`, `div_`) would write the result into the caller's tensor.",
        ),
        "pairwise_sq_dists": (
            "Think in shapes first: an `[n, m]` result from `[n, d]` and `[m, d]`. Broadcasting can make every row "
            "of `a` meet every row of `b` if each input gets a new axis of size 1, in different places.",
            "Insert an axis with `None` indexing or `unsqueeze`, then recall the lesson's broadcasting picture: "
            "`(N, 1)` against `(M,)` fills an `(N, M)` grid. The same works one dimension up, with the features "
            "riding along as the last axis.",
            "Give `a` the shape `[n, 1, d]` and `b` the shape `[1, m, d]`, take the difference, square it and "
            "reduce over the feature axis. A result of `[n, m, d]` means the reduction is missing; wrong values "
            "with the right shape usually mean the sum ran over the wrong axis.",
        ),
        "align_targets": (
            "This function is a guard, not a fixer: the contract is owned by `logits.shape`. Decide first whether "
            "`y` holds exactly one value per logit; only then reshape it.",
            "Compare element counts with `Tensor.numel()`; reshape with `Tensor.reshape` (or `view_as`). For a "
            "refusal, raise `ValueError` with a message that contains both shapes (an f-string does it).",
            "When the counts differ, raise before touching `y`, naming `y`'s shape and `logits`' shape; when they "
            "match, return `y` reshaped to exactly `logits.shape` (already aligned targets come back unchanged). "
            "Never let broadcasting decide: `[N, 1]` against `[N]` silently becomes `[N, N]`.",
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
            "Carry one tensor backwards per layer: the gradient at the logits (shape `[N, 1]`), then at the hidden "
            "output, then at the pre-activation, where tanh's local derivative enters (the lesson wrote it with "
            "h). Each layer's weight and bias gradients come from the tensor that reached that layer and the "
            "layer's own input.",
        ),
        "bce_with_logits": (
            "The naive loss fails because it builds a probability first and float32 rounds sigmoid(100) to "
            "exactly 1. Work with the logit throughout, and the loss of an element never needs a probability.",
            "Write -log(sigmoid(z)) and -log(1 - sigmoid(z)) in terms of z alone; both become log(1 + e^something). "
            "Look up `torch.nn.functional.softplus`, `torch.log1p`, `torch.clamp` and `Tensor.abs`: one of "
            "them makes log(1 + e^t) safe by itself, the others let you build a safe form.",
            "For a large positive t, log(1 + e^t) is t plus a small term; for a large negative t it is a small "
            "term. Split off the part that grows, so that e is only ever raised to zero or a negative number, "
            "and make sure no branch you discard overflows either: its gradient still flows.",
        ),
        "sgd_momentum_step": (
            "You are the fourth owner now: the optimizer's state. The buffers are yours to create on the first "
            "call and to hand back, and the parameters must stay the very tensors the model holds.",
            "Reread the lesson's formula and what `optimizer.state[p][\"momentum_buffer\"]` held after the "
            "first step. Look up `torch.no_grad()`, `Tensor.mul_`, `Tensor.add_`, `Tensor.sub_` and "
            "`Tensor.clone`, and what torch.optim.SGD does with a parameter whose `.grad` is None.",
            "Walk the parameters with their buffers side by side: skip a parameter with no gradient, make a "
            "first buffer from the gradient (a tensor of its own), otherwise update the buffer with the rule, "
            "then change the parameter in place by the learning rate times its buffer, with recording off.",
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
            "Inside an `enable_grad` block, make a detached leaf that requires grad, evaluate `f` on it and ask "
            "`torch.autograd.grad` for the gradient with respect to that leaf, without `create_graph`. Return that "
            "gradient as it is: no `.grad` is written anywhere and it carries no `grad_fn`.",
        ),
        "numerical_grad": (
            "Autograd is not an owner here at all: this is the lesson's ground truth, found by probing `f`. The "
            "caller still owns `x`, so probe on a float64 copy of your own, one element at a time.",
            "Look up `Tensor.to(torch.float64)` followed by `.clone()` (a copy even when `x` already is float64), "
            "`Tensor.view(-1)` to reach every element of any shape (`[]` included), `torch.zeros_like` and "
            "`torch.no_grad()` for probes that need no record.",
            "Loop over the flat elements of your copy: nudge one element up by `eps` and evaluate, nudge it down "
            "and evaluate, restore it before moving on; the central difference of the two values is that "
            "element's entry. Reshape the float64 result like `x`, on `x`'s device.",
        ),
        "grad_report": (
            "Each parameter owns its `.grad`; you only read that column of the ledger. There are three states: "
            "no tensor at all, a tensor of zeros, and anything else.",
            "Look up `model.named_parameters()` (frozen parameters are included), the test `grad is None`, and "
            "`torch.count_nonzero` or `Tensor.any()` for a tensor's entries.",
            "Test for `None` first, before touching the tensor: a missing `.grad` is \"none\", not \"zero\". "
            "Reading must change nothing: no `zero_grad`, no assignment to `.grad`, no in-place operation on it.",
        ),
        "leaves_of": (
            "Autograd owns the record of the forward pass and `t.grad_fn` is its last node. The record ends at "
            "the leaves: `AccumulateGrad` nodes whose `.variable` is the leaf tensor itself.",
            "This is a graph walk: a stack (or a queue) of nodes still to visit and a set of nodes already "
            "visited. Each node's inputs are in `node.next_functions`, as `(node, index)` pairs whose node may be "
            "`None`; `getattr` with a default tells you whether a node has a `.variable`.",
            "Deduplicate by identity, never by value: remember the `id` of every leaf (and of every visited "
            "node) and append each leaf to a list once. Handle the tensor without a `grad_fn` before the walk: "
            "it is its own answer only when it requires grad.",
        ),
        "stable_softmax": (
            "Respect two owners: the caller owns `z` (never write into it) and autograd owns the tensors it saved "
            "for the backward pass (never write into those either). Stability comes from one fact: softmax does "
            "not change when the same number is subtracted from every entry of a slice.",
            "Look up `Tensor.max(dim=..., keepdim=True)` (it returns values and indices: use `.values`), "
            "`Tensor.exp()` and `Tensor.sum(dim=..., keepdim=True)`; `keepdim=True` keeps the reduced axis so "
            "that the result broadcasts back along `dim`.",
            "Use out-of-place operations only: a new tensor for `z` minus its slice maximum, its exponential, and "
            "a new tensor for that divided by its slice sums. `-=`, `/=`, `sub_` or `div_` would either modify the "
            "caller's `z` or overwrite the tensor `exp` saved for backward (the version counter of the lesson).",
        ),
    },
    "03-nn-module": {
        "MLP": (
            "The module owns its parameters only once they are registered, and here the number of layers is known only at run time: every layer must end "
            "up registered on the module, or `parameters()`, `state_dict()` and `.to(device)` will not see it.",
            "A plain Python list registers nothing. Look up `nn.Sequential`, `nn.ModuleList` and "
            "`nn.Dropout(p)`; pairing each size with the next one (`zip` of the list with itself shifted by one) "
            "gives the Linear layers' shapes.",
            "Collect the layers in a list, then hand it to a container that registers them. After each Linear "
            "except the last add a ReLU and, only when `dropout > 0`, a Dropout; after the last Linear add "
            "nothing, so its output can be negative.",
        ),
        "plan_mlp": (
            "A state_dict key is the path of attributes from the model down to the tensor. Ask your own MLP "
            "which attribute holds its layers and how that container names what it holds.",
            "An `nn.Sequential` (or `nn.ModuleList`) names its modules by position, 0, 1, 2, ..., and every "
            "module it holds takes a position, even one that owns no tensor. Reread how `nn.Linear` stores its "
            "weight: which size is the row count?",
            "Walk the consecutive pairs of sizes as your MLP's constructor does, keep a counter of the position "
            "the next module will get, and write down the weight and bias entries of each Linear before moving "
            "the counter past whatever your MLP puts after it.",
        ),
        "count_parameters": (
            "Count the values the module owns as parameters: elements, not tensors. Ask the module for its "
            "parameters instead of walking its attributes; buffers are not parameters.",
            "Look up `Module.parameters()` (each tensor once, even when it is tied under two names; "
            "`state_dict()` would count a tied tensor twice and include buffers), `Tensor.numel()` and the flag "
            "`requires_grad`.",
            "Add up `numel()` over the parameters, skipping those that do not require grad only when "
            "`trainable_only` is true, and return a Python `int`. Counting must not change the model.",
        ),
        "freeze": (
            "Two different owners: a parameter's `requires_grad` flag decides whether autograd records it; the "
            "module's mode (`training`) decides how Dropout and BatchNorm behave. Freezing is about the first "
            "only.",
            "Look up `Module.parameters()` (recursive: children and grandchildren included) and "
            "`Tensor.requires_grad_()`. `eval()` and `train()` change the mode, which `freeze` must leave alone.",
            "Turn the flag off on every parameter the module yields, then return the very same module object "
            "(not a copy, not a new module).",
        ),
        "untrained_parameters": (
            "The optimizer owns its own list of parameters, fixed when it was built. A parameter the model gained "
            "later, or that was left out, is trained by no one: compare that list with the model's trainable "
            "parameters.",
            "Look up `optimizer.param_groups`: a list of dicts, each with a `\"params\"` list of tensors. Compare "
            "tensors by identity (`id` or `is`), never with `==`, by name or by shape: two layers of the same shape "
            "hold different parameters.",
            "Collect the identities of every tensor held across all param groups, then keep the names from "
            "`model.named_parameters()` whose tensor requires grad and is not among them. Frozen parameters are "
            "left out of the optimizer on purpose, so they never appear.",
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
            "Clear the gradients, compute this batch's logits and loss, backpropagate, update, and return the "
            "loss you called backward on as a Python float. Clearing at the top or right after the forward are "
            "both fine; between backward and step is not.",
        ),
        "train_epoch": (
            "Three owners to get right: the module's mode (an evaluation may have left it in eval mode), the "
            "device every batch lives on, and the running total, which must hold numbers rather than graphs.",
            "Look up `model.train()`, `Tensor.to(device)` (it returns a new tensor: keep the result) and "
            "`Tensor.item()`, or reuse your `train_step`, which already returns a float. A mean per example over "
            "batches of different sizes needs each batch's size: `len(x)`.",
            "Switch to training mode before the loop; move `x` and `y` to `device` for each batch; add each "
            "batch's float loss times its size to a total, count the examples, and return the total divided by "
            "the count: not the mean of the batch means.",
        ),
        "accumulate_step": (
            "Each parameter's `.grad` is an accumulator: several backward calls add up in it. One optimizer "
            "update from many micro-batches means one clear, many backwards, one step.",
            "One step on the concatenation with a mean loss uses the average of the micro-batch gradients, but "
            "`.grad` receives their sum. Think about what scaling a loss by a constant does to its gradient.",
            "Clear the gradients once; for each micro-batch compute its loss, scale it by one over the number of "
            "micro-batches and call backward on it; step once at the end. Return the mean loss as a Python float.",
        ),
        "overfit_one_batch": (
            "This is the lesson's sanity check: the same batch, many updates. Each update is one full hand-off, "
            "the one you have already written.",
            "Reuse your `train_step`: it clears `.grad`, records a fresh graph, backpropagates, steps and returns "
            "a float. The list holds the loss each step computed its gradients from, one entry per step.",
            "Call the step `steps` times on the same `(x, y)` with the same optimizer and collect the returned "
            "floats. Do not rebuild the model or the optimizer between steps (Adam's state must carry over) and "
            "do not record a loss computed after the update.",
        ),
        "trace_loop": (
            "Keep three owners in your head and let each statement touch only its own: zero_grad() and backward() "
            "are the only statements that change .grad, a forward pass is the only one that records a graph, and "
            "step() is the only one that moves the weights.",
            "Model the state rather than the statements: what .grad holds is best kept as the list of batches "
            "whose gradients it sums (or no tensor at all), and `loss` as the batch whose graph it holds (or "
            "none). Reread what zero_grad(set_to_none=False) does to a .grad that is None.",
            "Walk the iterations one statement at a time, updating that state as the lesson's ledger does, and "
            "name .grad only after the statement ran: from how many batches it sums, and whether the one batch "
            "is the current iteration's. A false condition leaves everything as it was.",
        ),
        "repair_train_epoch": (
            _REPAIR_1,
            "Compare every line with the contract of `train_epoch`: the mode set to training before the loop, "
            "every batch moved to `device`, the gradients cleared before each backward, backward before step, "
            "the running total kept as Python floats, and a mean per example, not per batch.",
            "Test it the way the checks do: hand it a model left in eval mode and a loader whose last batch is "
            "smaller, and compare its result and the parameters afterwards with your own `train_epoch` run on "
            "`copy.deepcopy`s of the same model and optimizer. Each difference points at one clause of the "
            "contract; fix that line and leave the rest of the colleague's code alone.",
        ),
    },
    "05-train-vs-eval": {
        "evaluate": (
            "Two switches, two owners: the module's mode (`eval()` turns Dropout off and makes BatchNorm use its "
            "running statistics) and autograd's recording (`no_grad` records no graph). Evaluation needs both, "
            "and the mode you found belongs to the caller.",
            "Look up `model.training`, `model.eval()`, `model.train(mode)` and `torch.no_grad()`. For a mean per "
            "example over batches of different sizes, weight each batch's mean loss by its size.",
            "Remember the mode, switch to eval, and loop inside a `no_grad` block, moving each batch to `device` "
            "and adding its float loss times its size to a total; afterwards hand the remembered mode back and "
            "return the total divided by the number of examples.",
        ),
        "accuracy": (
            "The model outputs logits, not probabilities: a logit of 0 is even odds. Like `evaluate`, accuracy "
            "reads the model without changing it: eval mode for the measurement, then the caller's mode back.",
            "A logit above 0 is a probability above 0.5, so compare the logits with 0 (no sigmoid needed), then "
            "compare the 0/1 predictions with `y`. Look up `Tensor.sum()`, `Tensor.item()` and `Tensor.numel()` "
            "to count.",
            "Count correct predictions and examples over every batch (moved to `device`, in eval mode, without "
            "a graph) and divide the totals at the end, not the per-batch accuracies. Predictions and targets "
            "must have the same shape, or `==` broadcasts `[N, 1]` against `[N]` to `[N, N]`.",
        ),
        "predict_proba": (
            "Identical results across calls is the module's mode (Dropout is random only in training mode); no "
            "history is autograd's recording. Set both owners, and hand the mode back.",
            "Look up `model.eval()`, `torch.no_grad()`, `torch.sigmoid`, and `model.train(mode)` to restore what "
            "`model.training` was.",
            "Remember the mode, switch to eval, compute the sigmoid of the logits for `x` inside a `no_grad` "
            "block, restore the mode, and return the probabilities in the logits' shape.",
        ),
        "fit": (
            "An epoch is training, then validation, and validation switches the module's mode: the next epoch "
            "must switch it back. Both histories are lists of Python floats, one per epoch.",
            "You may call your `evaluate` for the validation loss. For the training loss, take each batch's loss "
            "before its update (the one you called backward on) and average it per example over the epoch, as in "
            "`train_epoch`.",
            "For each epoch: training mode first, then the usual update on every batch moved to `device` while "
            "adding loss times batch size to a total; append the epoch's mean to `train_loss`, then the validation "
            "loss to `val_loss`. Return a dict with exactly those two keys.",
        ),
        "repair_evaluate": (
            _REPAIR_1,
            "Compare every line with the contract of `evaluate`: eval mode during the loop and the caller's mode "
            "afterwards, no graph recorded, every batch on `device`, Python floats in the total, a mean per example "
            "over batches of unequal size, and no parameter or buffer changed.",
            "Test it the way the checks do: call it twice on a model with Dropout and BatchNorm and compare the "
            "two numbers and the running statistics before and after; use a loader whose last batch is smaller and "
            "compare with your own `evaluate`; look at `model.training` before and after the call. Each difference "
            "points at one clause of the contract.",
        ),
    },
    "06-failure-modes": {
        "make_loaders": (
            "Three owners of order: the split (which examples go to validation), the training loader (a new order "
            "every epoch) and the validation loader (the same order every time). Cutting a class-sorted dataset "
            "in two is not a representative split.",
            "Look up `torch.utils.data.random_split(dataset, lengths, generator=...)` and "
            "`DataLoader(..., shuffle=..., generator=...)`. The lengths must add up to `len(dataset)`.",
            "Work out the validation size from `val_fraction`, split at random with the given generator (the same "
            "seed must give the same split), then build a shuffled loader over the training part and an "
            "unshuffled one over the validation part, both with `batch_size`.",
        ),
        "lr_sweep": (
            "Every learning rate must start from the same place: a fresh model, and a fresh optimizer over its "
            "parameters, per rate. Otherwise each rate continues where the previous one stopped.",
            "Look up `torch.optim.SGD(params, lr=...)`, `nn.BCEWithLogitsLoss()` and `math.isfinite` (NaN and the "
            "infinities are not finite). What you record is the final loss, as a Python float.",
            "For each rate: a model from `make_model()`, its own optimizer, `steps` full-batch updates (clear, "
            "forward, loss, backward, step), then the last loss recorded, or infinity when it is NaN or infinite.",
        ),
        "pick_lr": (
            "A sweep may hold losses that are not numbers at all: NaN compares false with everything, so a "
            "minimum over the raw values may pick it or skip it depending on the order.",
            "Look up `math.isfinite` and `min(iterable, key=...)`. Filter first, then choose.",
            "Keep only the entries whose loss is finite, then return the learning rate (the key), not the loss, "
            "of the smallest one.",
        ),
        "overfit_diagnosis": (
            "A handful of examples, a hundred updates: a setup that cannot memorise one batch has an owner holding the "
            "wrong state. Which facts about the first update tell the owners apart?",
            "Keep the first update's evidence before the optimizer changes anything: the output's shape next to the "
            "targets', whether the loss has a graph (`loss.requires_grad`), and what every trainable parameter's "
            "`.grad` holds after its backward.",
            "Keep every update's loss; decide the verdict only after the loop, in the table's order. A setup whose "
            "loss holds no graph cannot go backward: note it and stop the loop instead of letting it raise.",
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
            "Take one batch from the loader. Stop early where a later probe cannot run: with a device mismatch the "
            "forward fails, with a shape mismatch the loss broadcasts. After backward on the copy, a trainable "
            "parameter whose `.grad` is still None means `missing_grad`. Never step or zero the caller's objects.",
        ),
        "repair_make_loaders": (
            _REPAIR_1,
            "Compare every line with the contract of `make_loaders`: a random split (not a slice of a dataset "
            "that may be sorted) of the right sizes, disjoint and complete; shuffling on for training and off for "
            "validation; the given `generator` used, so the same seed gives the same split; `batch_size` on both.",
            "Test it the way the checks do: call it twice with generators seeded alike and compare the indices of "
            "the two splits; iterate the training loader twice and compare the orders; count the examples each "
            "loader yields against `len(dataset)` and `val_fraction`. Each failed comparison points at one "
            "clause of the contract.",
        ),
    },
    "07-eager-compile-export": {
        "time_it": (
            "A measurement has owners too: the warm-up calls pay for caches and compilation and must not be "
            "timed, and on CUDA the clock must wait for the GPU, which runs kernels asynchronously.",
            "Look up `time.perf_counter()`, `statistics.median`, `torch.cuda.synchronize` and `Tensor.is_cuda`. "
            "Touch CUDA only when one of the arguments lives there.",
            "Call `fn(*args)` `warmup` times untimed; then, `iters` times: synchronise (on CUDA), read the clock, "
            "call, synchronise again, read the clock, keep the difference. Return the median of those differences "
            "as a float: not the mean, not the total.",
        ),
        "compile_model": (
            "A compiled module should wrap the same parameters, not copies: the optimizer holds `model`'s own "
            "tensors, so training through the wrapper must update them.",
            "Look up `torch.compile`: the module it returns shares the original module's parameters. "
            "`copy.deepcopy` or building a new model breaks that link.",
            "Compile the very model you were given and return what the compiler gives back: no copy, no new "
            "model, no change of mode. The first call is slow (that is the compilation); later calls are not.",
        ),
        "export_program": (
            "An exported program is for inference, and the module's mode at the moment of export is baked into "
            "its graph: a model straight from training still has Dropout on. The mode belongs to the caller: hand "
            "it back.",
            "Look up `torch.export.export(model, args, dynamic_shapes=...)`, `torch.export.Dim`, "
            "`torch.export.save` and `torch.export.load`. `args` is a tuple of inputs and `dynamic_shapes` says, "
            "per input, which dimensions may vary.",
            "Remember the mode and switch to eval; export with `example` as the only input and its dim 0 marked "
            "dynamic with a named `Dim`; restore the mode (`try`/`finally` makes sure); save to `path` and return "
            "it as a `Path`. A reloaded program that refuses batch size 1 had its batch dimension fixed.",
        ),
        "export_onnx": (
            "The same owner as for `export_program`: the mode at export time decides whether Dropout is in the "
            "graph, and the caller gets their mode back. The batch dimension must stay dynamic, or onnxruntime "
            "rejects other batch sizes.",
            "Look up `torch.onnx.export(..., dynamo=True, dynamic_shapes=...)`: with `dynamo=True` it goes "
            "through `torch.export` and takes the same `dynamic_shapes` (and `Dim`) as `export_program`.",
            "Eval mode (remembering the caller's), the example as a one-element tuple, a named dynamic `Dim` for "
            "dim 0, the dynamo exporter writing to `path`, the mode restored, a `Path` returned. Check it yourself "
            "with an `onnxruntime.InferenceSession` at two batch sizes.",
        ),
        "time_split": (
            "Two owners of a step's time: the loader (producing the next batch) and the model with its optimizer "
            "(forward, backward, update). Give each its own clock, and make sure no moment is counted by both.",
            "Take the batches with `next(iter(loader))`-style calls so that you can put a clock around the fetch "
            "itself; reread how `time_it` waits for a CUDA device before reading its clock, and ask where a model's "
            "parameters tell you its device.",
            "Per step: read the clock, fetch and move the batch, read the clock, run the five lines, (on CUDA, "
            "wait for the device), read the clock; add the two differences to their totals. Compare the totals "
            "only at the end.",
        ),
    },
    "08-reproducible-training": {
        "seed_everything": (
            "Every random source is its own owner: Python's `random`, NumPy's global generator, torch's CPU "
            "generator, CUDA's generators, and the DataLoader's generator, which is none of these.",
            "Look up `random.seed`, `np.random.seed`, `torch.manual_seed` (it seeds CUDA as well; "
            "`torch.cuda.manual_seed_all` says so explicitly) and `Generator.manual_seed`.",
            "Seed each global source with `seed`, then create a new `torch.Generator`, seed it with the same "
            "number and return it. Guard anything CUDA-specific with `torch.cuda.is_available()`.",
        ),
        "save_checkpoint": (
            "A resume needs every owner's state: the module's parameters and buffers, the optimizer's state "
            "(Adam's moments and step counts), the epoch counter, and every random generator: Python, NumPy, "
            "torch's CPU one, CUDA's, and the loader's.",
            "Look up `state_dict()` on the model and on the optimizer, `random.getstate()`, "
            "`np.random.get_state()`, `torch.get_rng_state()`, `torch.cuda.get_rng_state_all()`, "
            "`Generator.get_state()` and `torch.save`. Save state dicts, never the model object itself.",
            "Put everything in one dict of tensors and plain Python data, so that `torch.load` with "
            "`weights_only=True` reads it back: NumPy's state holds an array, so turn it into a list, and store "
            "`None` for what is absent (no CUDA, no generator). Return the path as a `Path`.",
        ),
        "load_checkpoint": (
            "Restore into the caller's objects: the model, optimizer and generator you were given are the ones the "
            "run continues with, so a new optimizer or a new generator restores nothing the caller sees. And "
            "return the epoch to run next, not the one that finished.",
            "Look up `torch.load(path, weights_only=True)`, `load_state_dict` on the model and on the optimizer, "
            "`random.setstate`, `np.random.set_state`, `torch.set_rng_state`, `torch.cuda.set_rng_state_all` and "
            "`Generator.set_state`.",
            "Undo each step of your saver in turn: NumPy's stored list goes back into an unsigned 32-bit array "
            "inside its state tuple; CUDA's state is restored only when it was saved and CUDA is present, the "
            "generator's only when both exist; the return value is the saved epoch plus one.",
        ),
        "repair_load_checkpoint": (
            _REPAIR_1,
            "Compare every line with the contract of `load_checkpoint` and with the given saver, key by key: "
            "everything the saver wrote is restored, into the caller's objects (model, optimizer, every RNG, the "
            "generator), and the returned epoch is the next one to run.",
            "Test it the way the checks do: save with the given saver, load into fresh objects, and compare what "
            "the caller's objects hold afterwards (the optimizer's `state_dict()`, the generator's `get_state()`, "
            "the next random draws) with what was saved; then ask which epoch a resumed loop would run next. Each "
            "difference points at one owner the loader does not restore.",
        ),
    },
    "09-debug-a-real-run": {
        "DigitsDataset": (
            "A Dataset owns two things: how many examples there are (`__len__`) and what one example is "
            "(`__getitem__`). Read the contract for the exact dtype and shape of each half of the pair.",
            "Conv2d wants a channel axis; CrossEntropyLoss wants class indices, one int64 per example, not a "
            "column and not one-hot rows. `torch.as_tensor(np.asarray(...))` accepts NumPy and tensors alike.",
            "Convert and reshape once in `__init__` (images to float32 `[N, 1, 8, 8]`, labels to int64 `[N]`) and "
            "index both in `__getitem__`; leave the pixel values as they are.",
        ),
        "fit_normalizer": (
            "Preprocessing is state fitted on the training split. Which owner should hold it so that a saved "
            "model carries it and `.to(device)` moves it?",
            "Look up `nn.Module.register_buffer`: in `state_dict`, moved by `.to()`, never returned by "
            "`parameters()`. Some pixels are 0 in every image, so their std is 0.",
            "Compute mean and std from `train_images` once, outside `forward`; register them as buffers of a small "
            "module whose `forward` applies them; keep std away from zero.",
        ),
        "DigitCNN": (
            "The model is the one object that travels from training to serving. What must it own so that serving "
            "cannot forget the preprocessing?",
            "An `nn.Module` assigned as an attribute becomes a submodule (its buffers join `state_dict`); a list or "
            "a dict does not. `nn.Identity()` stands in when no normaliser is given.",
            "In `forward`: the normaliser first, then at least one `Conv2d` (with `padding` the 8×8 keeps its size), "
            "then flatten and a `Linear` to `num_classes` logits.",
        ),
        "train_epoch_ce": (
            "It is module 04's epoch with three new owners: the loss's target contract, the clipping between "
            "`backward` and `step`, and a schedule that counts optimizer steps.",
            "Look up `nn.utils.clip_grad_norm_` (one norm over all parameters) and the warning PyTorch gives when "
            "a scheduler steps before its optimizer.",
            "Per batch: clear, forward, loss, backward, clip only when `max_grad_norm` is not None, step, then "
            "`scheduler.step()` when there is a scheduler; weight each batch's loss by its size.",
        ),
        "predict_digits": (
            "Serving must see exactly what training saw. Where does this model keep its preprocessing, and what "
            "is then left for `predict_digits` to do?",
            "The mode and the grad mode are two switches (module 05); `argmax(dim=1)` turns `[N, C]` logits into "
            "class indices.",
            "Reshape the raw images to float32 `[N, 1, 8, 8]` on the model's device, no scaling of your own; eval "
            "mode and no graph for the forward; hand the caller's mode back.",
        ),
        "StepLedger": (
            "Each owner has one hook that fires at the moment its state matters. Which one sees the mode as a "
            "forward pass starts, which one sees `.grad` before backward adds to it, and which pair sees the "
            "weights on both sides of `step()`?",
            "`module.register_forward_pre_hook`, `Tensor.register_hook` (on a leaf it runs before `.grad` is "
            "written; a hook that returns a tensor replaces the gradient), `optimizer.register_step_pre_hook` "
            "and `register_step_post_hook`. Each returns a handle whose `remove()` detaches it.",
            "Keep one open record for the step in progress: the forward and gradient hooks add to it, and the "
            "step's post-hook completes it, stores it and opens the next. `__exit__` runs whether or not the "
            "block raised.",
        ),
        "repair_run": (
            "Run the checks first and read which owner each one names; then read the run as the lesson did, with "
            "your own ledger, one epoch at a time.",
            "Compare, line by line: what each parameter's `.grad` holds when the next `backward` starts, the mode "
            "at every validation forward, what reaches the model on the training and on the validation path, and "
            "how far one step moves the weights compared with their size.",
            "Change as little as you can: every fault is one owner's state at one moment, and each check cell "
            "passes on its own once its owner is right.",
        ),
    },
}

#: Graded functions that have hints before they exist in ``course.MODULES`` (the repair tasks).
PENDING = {"repair_train_epoch", "repair_evaluate", "repair_make_loaders", "repair_load_checkpoint"}

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


def strip_solution_markers(source: str) -> str:
    """An answer cell's source without nbgrader's ``### BEGIN/END SOLUTION`` lines: the solution as a learner
    would write it (catalogues edit it into mutants)."""
    return "\n".join(line for line in source.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")) + "\n"


def reference_answer(module_id: str, name: str) -> str | None:
    """The reference answer cell of ``name`` from the course's ``solutions/`` (without nbgrader's markers), or
    None when this copy of the course has no solutions."""
    import nbformat

    for folder in _solutions_dirs():
        path = folder / module_id / f"{module_id}.ipynb"
        if not path.is_file():
            continue
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("solution") and meta.get("grade_id") == name:
                return strip_solution_markers(cell.source).rstrip("\n")
        return None
    return None


def solution(module_id: str, name) -> None:
    """Show the reference answer of graded function ``name`` once every hint level of it was shown.

    Before that it says how many hints remain.  It records that the answer was revealed in the learner's
    progress; under grading it shows and records nothing.  The answer is read from the course's ``solutions/``
    (a public clone has it); where there is none, it says that the instructor has it.  Returns ``None``.
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
    source = reference_answer(module_id, name)
    if source is None:
        _show("answer", name, "this copy of the course has no reference answers (a course handed out for grading "
              "does not ship them): your instructor has it.", colour=_GREY)
        return None
    if core._in_notebook():
        from IPython.display import HTML, display

        display(HTML(f'<div class="autograder-answer"><span style="background:{_COLOUR};color:white;'
                     f'border-radius:3px;padding:1px 6px;font-weight:bold">answer</span> <code>{html.escape(name)}'
                     f'</code> — the reference answer, one way among several that pass:<pre>{html.escape(source)}'
                     "</pre></div>"))
    else:
        print(f"[answer] {name} — the reference answer, one way among several that pass:\n{source}")
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
                     f'`check.hint("name", 2)` for the next. Functions: {names}. Hints never give the answer; '
                     "how many you used is noted in your own progress file only.")
    return bound
