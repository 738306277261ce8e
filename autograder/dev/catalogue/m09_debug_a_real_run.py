"""Module 09-debug-a-real-run: mutants and correct variants.

Mutants are small edits of the solution's answers (or of the repair task's starter code), so each
one shows exactly the mistake it stands for.
"""

from ...starters import REPAIR_RUN
from . import Mutant, do_nothing, edited, hold_to_words, patched, repair_catalogue
from .found import mutants as found_mutants

MODULE = "09-debug-a-real-run"

_ITEM = "        return self.images[i], self.labels[i]\n"
_CLIP = ("        if max_grad_norm is not None:               # after backward, before step\n"
         "            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)\n")
_SCHED = ("        if scheduler is not None:                   # once per optimizer step\n"
          "            scheduler.step()\n")

MUTANTS = {
    # --- DigitsDataset
    "dataset_targets_as_column": Mutant(patched(
        MODULE, "DigitsDataset", (_ITEM, "        return self.images[i], self.labels[i:i + 1]\n")),
        ["test_DigitsDataset_items", "test_DigitsDataset_batches"], ["wrong_target"]),
    "dataset_one_hot_float_targets": Mutant(patched(
        MODULE, "DigitsDataset",
        (_ITEM, "        return self.images[i], torch.nn.functional.one_hot(self.labels[i], 10).float()\n")),
        ["test_DigitsDataset_items", "test_DigitsDataset_batches"], ["wrong_target"]),
    "dataset_float_labels": Mutant(patched(MODULE, "DigitsDataset", ("dtype=torch.long)", "dtype=torch.float32)")),
                                   ["test_DigitsDataset_items"], ["wrong_target"]),
    "dataset_scales_images": Mutant(patched(
        MODULE, "DigitsDataset", (_ITEM, "        return self.images[i] / 16.0, self.labels[i]\n")),
        ["test_DigitsDataset_items"], ["image_preprocessed"]),
    "dataset_flat_images": Mutant(patched(
        MODULE, "DigitsDataset", ("images.reshape(-1, 1, 8, 8)", "images.reshape(-1, 64)")),
        ["test_DigitsDataset_items", "test_DigitsDataset_batches"], ["wrong_image"]),
    # --- fit_normalizer
    "normalizer_stats_from_all_data": Mutant(patched(
        MODULE, "fit_normalizer",
        ("    x = torch.as_tensor(np.asarray(train_images), dtype=torch.float32).reshape(-1, 1, 8, 8)\n",
         "    x = torch.as_tensor(load_digits().data, dtype=torch.float32).reshape(-1, 1, 8, 8)\n")),
        ["test_fit_normalizer_statistics"], ["stats_from_all_data"]),
    "normalizer_stats_as_parameters": Mutant(patched(
        MODULE, "fit_normalizer",
        ('            self.register_buffer("mean", mean)         # saved with the model, moved by .to()\n'
         '            self.register_buffer("std", std)\n',
         "            self.mean = nn.Parameter(mean)\n            self.std = nn.Parameter(std)\n")),
        ["test_fit_normalizer_buffers"], ["stats_as_parameters"]),
    "normalizer_stats_as_plain_attributes": Mutant(patched(
        MODULE, "fit_normalizer",
        ('            self.register_buffer("mean", mean)         # saved with the model, moved by .to()\n'
         '            self.register_buffer("std", std)\n',
         "            self.mean = mean\n            self.std = std\n")),
        ["test_fit_normalizer_buffers"], ["stats_not_saved"]),
    "normalizer_stats_per_batch": Mutant(patched(
        MODULE, "fit_normalizer",
        ("            return (x - self.mean) / self.std\n",
         "            return (x - x.mean(dim=0, keepdim=True)) / x.std(dim=0, keepdim=True).clamp_min(1.0)\n")),
        ["test_fit_normalizer_statistics"], ["stats_per_batch"]),
    # Statistics of the flattened images, [64], against raw images [N, 1, 8, 8].
    "normalizer_flat_statistics": Mutant(patched(
        MODULE, "fit_normalizer", (".reshape(-1, 1, 8, 8)", ".reshape(-1, 64)"),
        ("x.mean(dim=0, keepdim=True)", "x.mean(dim=0)"), ("x.std(dim=0, keepdim=True)", "x.std(dim=0)")),
        ["test_fit_normalizer_statistics"], ["stats_shape"], words=("store them shaped like one image", "[64]")),
    "normalizer_std_not_floored": Mutant(patched(MODULE, "fit_normalizer", (".clamp_min(1.0)    #", "    #")),
                                         ["test_fit_normalizer_statistics"], ["nonfinite"]),
    # --- DigitCNN
    "cnn_ignores_normalizer": Mutant(patched(
        MODULE, "DigitCNN",
        ("        return self.head(self.features(self.normalizer(x)))\n",
         "        return self.head(self.features(x))\n")),
        ["test_DigitCNN_normalizer"], ["normalizer_unused"]),
    "cnn_normalizer_in_a_list": Mutant(patched(
        MODULE, "DigitCNN",
        ("        self.normalizer = normalizer if normalizer is not None else nn.Identity()\n",
         "        self.steps = [normalizer if normalizer is not None else nn.Identity()]\n"),
        ("self.normalizer(x)", "self.steps[0](x)")),
        ["test_DigitCNN_normalizer"], ["normalizer_not_saved"]),
    "cnn_mlp_without_conv": Mutant(patched(
        MODULE, "DigitCNN",
        ("        self.features = nn.Sequential(\n"
         "            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # (N, 16, 4, 4)\n"
         "            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),                  # (N, 32, 4, 4)\n"
         "            nn.AdaptiveAvgPool2d(1), nn.Flatten(),                       # (N, 32)\n"
         "        )\n"
         "        self.head = nn.Linear(32, num_classes)                          # (N, C) logits\n",
         "        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, num_classes))\n"),
        ("self.head(self.features(self.normalizer(x)))", "self.net(self.normalizer(x))")),
        ["test_DigitCNN_shapes"], ["no_conv"]),
    # The classic double softmax: probabilities out of the model, then CrossEntropyLoss's own log-softmax.
    "cnn_softmax_output": Mutant(patched(
        MODULE, "DigitCNN", ("return self.head(self.features(self.normalizer(x)))",
                             "return torch.softmax(self.head(self.features(self.normalizer(x))), dim=1)")),
        ["test_DigitCNN_shapes"], ["probabilities_not_logits"]),
    # The batch size written into the flatten: view(64, -1).
    "cnn_view_batch_of_64": Mutant(patched(
        MODULE, "DigitCNN", ("nn.AdaptiveAvgPool2d(1), nn.Flatten(),", "nn.AdaptiveAvgPool2d(1),"),
        ("return self.head(self.features(self.normalizer(x)))",
         "return self.head(self.features(self.normalizer(x)).view(64, -1))")),
        ["test_DigitCNN_shapes", "test_DigitCNN_normalizer"], ["batch_size_hard_coded"],
        words=("the batch size was written into the reshape", "x.view(x.size(0), -1)")),
    "cnn_fixed_ten_classes": Mutant(patched(MODULE, "DigitCNN", ("nn.Linear(32, num_classes)", "nn.Linear(32, 10)")),
                                    ["test_DigitCNN_shapes"], ["wrong_logits"]),
    # --- train_epoch_ce
    "epoch_clips_before_backward": Mutant(patched(
        MODULE, "train_epoch_ce", (_CLIP, ""),
        ("        optimizer.zero_grad()\n",
         "        optimizer.zero_grad()\n" + _CLIP.replace("            nn", "            nn", 1))),
        ["test_train_epoch_ce_clipping"], ["not_clipped"]),
    "epoch_clips_after_step": Mutant(patched(
        MODULE, "train_epoch_ce", (_CLIP, ""),
        ("        optimizer.step()\n", "        optimizer.step()\n" + _CLIP)),
        ["test_train_epoch_ce_clipping"], ["not_clipped"]),
    "epoch_always_clips": Mutant(patched(
        MODULE, "train_epoch_ce",
        (_CLIP, "        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm or 1.0)\n")),
        ["test_train_epoch_ce_update"], ["clipped"], words=("max_grad_norm=None", "only when max_grad_norm is not None")),
    "epoch_clips_each_parameter": Mutant(patched(
        MODULE, "train_epoch_ce",
        ("            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)\n",
         "            for p in model.parameters():\n                nn.utils.clip_grad_norm_(p, max_grad_norm)\n")),
        ["test_train_epoch_ce_clipping"], ["wrong_clipping"]),
    "epoch_scheduler_per_epoch": Mutant(patched(
        MODULE, "train_epoch_ce", (_SCHED, ""),
        ("    return total / count\n",
         "    if scheduler is not None:\n        scheduler.step()\n    return total / count\n")),
        ["test_train_epoch_ce_scheduler"], ["scheduler_per_epoch"]),
    "epoch_scheduler_before_step": Mutant(patched(
        MODULE, "train_epoch_ce", (_SCHED, ""),
        ("        optimizer.step()\n", _SCHED + "        optimizer.step()\n")),
        ["test_train_epoch_ce_scheduler"], ["scheduler_before_step"]),
    "epoch_no_train_mode": Mutant(patched(MODULE, "train_epoch_ce", ("    model.train()\n", "")),
                                  ["test_train_epoch_ce_mode"], ["wrong_mode"]),
    "epoch_one_hot_targets": Mutant(patched(
        MODULE, "train_epoch_ce",
        ("        loss = loss_fn(model(x), y)                 # logits (B, C) against class indices (B,)\n",
         "        logits = model(x)\n"
         "        loss = nn.functional.mse_loss(logits.softmax(1), nn.functional.one_hot(y, logits.shape[1]).float())\n")),
        ["test_train_epoch_ce_update", "test_train_epoch_ce_clipping"], ["wrong_loss_function"],
        words=("mse_loss, never cross_entropy", "one-hot")),
    "epoch_unweighted_mean": Mutant(patched(
        MODULE, "train_epoch_ce",
        ("        total += loss.item() * len(x)\n"
         "        count += len(x)\n",
         "        total += loss.item()\n        count += 1\n")),
        ["test_train_epoch_ce_update"], ["unweighted_mean"]),
    # The training forward under no_grad (as an evaluation loop writes it): backward finds no graph.
    "train_ce_forward_under_no_grad": Mutant(patched(
        MODULE, "train_epoch_ce", ("        loss = loss_fn(model(x), y)                 # logits (B, C) against class indices (B,)\n",
                                   "        with torch.no_grad():\n            loss = loss_fn(model(x), y)\n")),
        ["test_train_epoch_ce_update"], ["raised"], words=("`loss.backward()`", "torch.no_grad()", "no graph")),
    # --- predict_digits
    "predict_scales_input": Mutant(patched(
        MODULE, "predict_digits", ("reshape(-1, 1, 8, 8)   # raw, as in training", "reshape(-1, 1, 8, 8) / 16.0")),
        ["test_predict_digits_labels"], ["serving_skew"]),
    "predict_squeezes_labels": Mutant(patched(MODULE, "predict_digits", ("model(x).argmax(dim=1)", "model(x).argmax(dim=1).squeeze()")),
                                      ["test_predict_digits_labels"], ["batch_of_one"], words=("batch of one", "squeeze")),
    "predict_squeezes_logits": Mutant(patched(MODULE, "predict_digits", ("model(x).argmax(dim=1)", "model(x).squeeze().argmax(dim=-1)")),
                                      ["test_predict_digits_labels"], ["batch_of_one"], words=("int64 labels [1]",)),
    "predict_in_train_mode": Mutant(patched(MODULE, "predict_digits", ("    model.eval()\n", "")),
                                    ["test_predict_digits_labels", "test_predict_digits_modes"],
                                    ["dropout_active", "wrong_mode"], words=("train mode",)),
    "predict_mode_not_restored": Mutant(patched(MODULE, "predict_digits", ("    model.train(was_training)\n", "")),
                                        ["test_predict_digits_modes"], ["mode_changed"]),
    "predict_returns_logits": Mutant(patched(MODULE, "predict_digits", ("model(x).argmax(dim=1)", "model(x)")),
                                     ["test_predict_digits_labels"], ["wrong_labels"]),
    "predict_records_graph": Mutant(patched(
        MODULE, "predict_digits", ("    with torch.no_grad():\n        labels", "    if True:\n        labels")),
        ["test_predict_digits_modes"], ["graph_recorded"]),
    # --- StepLedger
    # reads .grad after backward wrote it: every state is 'nonzero'
    "ledger_state_after_accumulation": Mutant(patched(MODULE, "StepLedger", ('            self._handles.append(params[name].register_hook(grad_arrives(name, params[name])))', '            self._handles.append(params[name].register_post_accumulate_grad_hook(\n                lambda q, h=grad_arrives(name, params[name]): h(q.grad)))')),
        ['test_StepLedger_healthy', 'test_StepLedger_broken'], ['ledger_wrong_grads']),
    # cannot tell a zero-filled .grad from a stale one
    # .grad read when the forward starts, not when backward reaches the parameter: a loop that calls zero_grad()
    # between the forward and backward() (a correct order) shows the difference.
    "ledger_grad_read_at_forward": Mutant(patched(
        MODULE, "StepLedger",
        ('            self._record["modes"].append("train" if module.training else "eval")\n',
         '            self._record["modes"].append("train" if module.training else "eval")\n'
         '            self._at_forward = {n: "none" if params[n].grad is None else "nonzero" if bool(params[n].grad.any())'
         ' else "zero" for n in watched}\n'),
        ('                self._record["grads"][name].append(state)',
         '                self._record["grads"][name].append(self._at_forward[name])')),
        ['test_StepLedger_healthy'], ['ledger_wrong_grads'], words=("zero_grad() between the forward", "backward() reaches")),
    # Hooks made by lambdas in a loop: each looks up the loop's variables when it runs, so all write to the last.
    "ledger_lambdas_late_binding": Mutant(patched(
        MODULE, "StepLedger",
        ('            self._handles.append(params[name].register_hook(grad_arrives(name, params[name])))',
         '            self._handles.append(params[name].register_hook(lambda grad: grad_arrives(name, params[name])(grad)))')),
        ['test_StepLedger_healthy', 'test_StepLedger_broken'], ['ledger_wrong_grads'], words=("late binding", "name=name")),
    "ledger_none_or_nonzero": Mutant(patched(MODULE, "StepLedger", ('                    state = "nonzero" if bool(p.grad.any()) else "zero"', '                    state = "nonzero"')),
        ['test_StepLedger_healthy'], ['ledger_wrong_grads']),
    # reads the mode when step() runs, not when each forward started
    "ledger_mode_at_step": Mutant(patched(MODULE, "StepLedger", ('            self._record["modes"].append("train" if module.training else "eval")\n', '            pass\n'), ('            self.steps.append({**self._record, "changed": changed})', '            self._record["modes"] = ["train" if self.model.training else "eval"]\n            self.steps.append({**self._record, "changed": changed})')),
        ['test_StepLedger_healthy', 'test_StepLedger_broken'], ['ledger_wrong_modes']),
    # 'changed' = every parameter with a gradient, whether step() moved it or not
    "ledger_changed_is_held_with_grad": Mutant(patched(MODULE, "StepLedger", ('            changed = sorted(name for name, p in params.items()\n                             if not torch.equal(p.detach(), self._before[name]))', '            changed = sorted(name for name, p in params.items() if p.grad is not None)')),
        ['test_StepLedger_broken'], ['ledger_wrong_changed']),
    # keeps the parameter itself, not a copy, so nothing ever looks changed
    "ledger_changed_compares_live_tensor": Mutant(patched(MODULE, "StepLedger", ('{name: p.detach().clone() for', '{name: p.detach() for')),
        ['test_StepLedger_healthy', 'test_StepLedger_broken'], ['ledger_wrong_changed']),
    # one state per step, so accumulation's second backward overwrites the first
    "ledger_one_state_per_step": Mutant(patched(MODULE, "StepLedger", ('                self._record["grads"][name].append(state)', '                self._record["grads"][name][:] = [state]')),
        ['test_StepLedger_healthy'], ['ledger_wrong_grads']),
    # never opens a fresh record: each step's lists keep growing
    "ledger_records_not_reset": Mutant(patched(MODULE, "StepLedger", ('            self.steps.append({**self._record, "changed": changed})\n            open_record()\n', '            self.steps.append({**self._record, "changed": changed})\n')),
        ['test_StepLedger_healthy', 'test_StepLedger_broken'], ['ledger_wrong_modes']),
    # __exit__ keeps the handles but removes none of them
    "ledger_hooks_not_removed": Mutant(patched(MODULE, "StepLedger", ('            handle.remove()                              # also when the block raised\n', '            pass\n')),
        ['test_StepLedger_hooks'], ['ledger_hooks_left']),
    # __exit__ returns True: an error inside the block disappears
    "ledger_swallows_errors": Mutant(patched(MODULE, "StepLedger", ('        self._handles.clear()                            # returning None lets the error go on\n', '        self._handles.clear()\n        return True\n')),
        ['test_StepLedger_hooks'], ['ledger_swallowed_error']),
    # keys 'grads' by every parameter, frozen ones included
    "ledger_all_parameters": Mutant(patched(MODULE, "StepLedger", ('"grads": {name: [] for name in watched}', '"grads": {name: [] for name in params}')),
        ['test_StepLedger_broken'], ['ledger_wrong_grads']),
    # replaces optimizer.step with a wrapper instead of attaching step hooks
    "ledger_patches_step": Mutant(patched(MODULE, "StepLedger", ('        self._handles.append(self.optimizer.register_step_pre_hook(step_starts))\n        self._handles.append(self.optimizer.register_step_post_hook(step_ends))\n', '        original = self.optimizer.step\n\n        def step(*a, **k):\n            step_starts(None, a, k)\n            out = original(*a, **k)\n            step_ends(None, a, k)\n            return out\n        self.optimizer.step = step\n'), ('        self._handles.clear()                            # returning None lets the error go on\n', '        self._handles.clear()\n        del self.optimizer.step\n')),
        ['test_StepLedger_hooks'], ['ledger_not_public']),
    # a gradient hook that returns a tensor (here clamped) replaces the gradient
    "ledger_hook_returns_zero_grad": Mutant(patched(MODULE, "StepLedger", ('                self._record["grads"][name].append(state)    # returns None: the gradient is left alone', '                self._record["grads"][name].append(state)\n                return grad.clamp(-0.05, 0.05)')),
        ['test_StepLedger_healthy', 'test_StepLedger_broken'], ['ledger_changed_training']),
}

# --- repair_run: the starter with all but one planted bug repaired
_FIXES = {
    "stale_grads": [("        for x, y in train_loader:\n",
                     "        for x, y in train_loader:\n            optimizer.zero_grad()\n")],
    "eval_mode": [("        model.eval\n", "        model.eval()\n")],
    "preprocessing": [("    val_x = images[val_idx] / 16.0\n", "    val_x = (images[val_idx] - mean) / std\n")],
    "learning_rate": [("lr=5e-6", "lr=5e-3")],
}
_LEFT = {"stale_grads": ("test_repair_run_gradients", "stale_grads"),
         "eval_mode": ("test_repair_run_eval_mode", "wrong_mode"),
         "preprocessing": ("test_repair_run_preprocessing", "preprocessing_skew"),
         "learning_rate": ("test_repair_run_learning_rate", "update_scale")}
#: Cells that judge the whole repaired run (its accuracy): any fault left in may cost them as well.
WHOLE_RUN_CELLS = ("test_repair_run_result",)

_repaired, _LEFT_ALONE = repair_catalogue("repair_run", REPAIR_RUN, _FIXES, _LEFT)
MUTANTS.update(_LEFT_ALONE)
# Validation standardised, but with its own mean and std instead of the training statistics.
MUTANTS["repair_validation_own_statistics"] = Mutant(
    _repaired("preprocessing", extra=[("    val_x = images[val_idx] / 16.0\n",
                                       "    val_x = (images[val_idx] - images[val_idx].mean()) / images[val_idx].std()\n")]),
    ["test_repair_run_preprocessing"], ["stats_from_validation"],
    words=("standardise validation with the training statistics", "exactly 0 and 1"))

VARIANTS = {
    "dataset_item_converts_each_time": {"DigitsDataset": """
class DigitsDataset(torch.utils.data.Dataset):
    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = torch.tensor(np.asarray(self.images[i]), dtype=torch.float32).view(1, 8, 8)
        y = torch.tensor(int(self.labels[i])).long()
        return x, y
"""},
    "normalizer_global_with_epsilon": {"fit_normalizer": """
def fit_normalizer(train_images):
    x = torch.tensor(np.asarray(train_images), dtype=torch.float32)

    class Standardize(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.register_buffer("mean", mean)
            self.register_buffer("std", std)

        def forward(self, images):
            return (images - self.mean) / (self.std + 1e-6)

    return Standardize(x.mean(), x.std())
"""},
    "cnn_one_conv_batchnorm_no_pool": {"DigitCNN": """
class DigitCNN(nn.Module):
    def __init__(self, num_classes=10, normalizer=None):
        super().__init__()
        self.normalizer = normalizer
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU())   # (N, 8, 6, 6)
        self.fc = nn.Linear(8 * 6 * 6, num_classes)

    def forward(self, x):
        if self.normalizer is not None:
            x = self.normalizer(x)
        return self.fc(self.conv(x).flatten(1))
"""},
    "epoch_own_global_norm_clipping": patched(MODULE, "train_epoch_ce", (
        "            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)\n",
        "            grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
        "            norm = torch.sqrt(sum((g ** 2).sum() for g in grads))\n"
        "            scale = (max_grad_norm / (norm + 1e-6)).clamp(max=1.0)\n"
        "            for g in grads:\n"
        "                g.mul_(scale)\n")),
    "epoch_zero_grad_after_step_functional_loss": patched(MODULE, "train_epoch_ce", (
        "        optimizer.zero_grad()\n", ""), (
        "        loss = loss_fn(model(x), y)                 # logits (B, C) against class indices (B,)\n",
        "        loss = nn.functional.cross_entropy(model(x), y.long())\n"), (
        _SCHED, _SCHED + "        optimizer.zero_grad(set_to_none=False)\n")),
    "predict_numpy_route": {"predict_digits": """
def predict_digits(model, images):
    device = next(model.parameters()).device
    x = torch.as_tensor(np.asarray(images.cpu() if torch.is_tensor(images) else images), dtype=torch.float32)
    mode = model.training
    model.eval()
    with torch.inference_mode():
        out = model(x.view(len(x), 1, 8, 8).to(device)).argmax(1).cpu()
    model.train(mode)
    return out
"""},
    # Global hooks filtered to this model and optimizer, states counted with count_nonzero, values compared
    # through a state_dict copy.
    "ledger_global_hooks": {"StepLedger": """
class StepLedger:
    def __init__(self, model, optimizer):
        self.model, self.optimizer, self.steps, self.handles = model, optimizer, [], []

    def __enter__(self):
        from torch.nn.modules.module import register_module_forward_pre_hook
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        params = dict(self.model.named_parameters())
        self.names = [n for n, p in params.items() if p.requires_grad]
        self.current = {"modes": [], "grads": {n: [] for n in self.names}}

        def on_forward(module, args):
            if module is self.model:
                self.current["modes"].append("train" if module.training else "eval")

        def watch(name):
            def hook(grad):
                g = params[name].grad
                self.current["grads"][name].append(
                    "none" if g is None else ("zero" if torch.count_nonzero(g) == 0 else "nonzero"))
            return hook

        def before(opt, args, kwargs):
            if opt is self.optimizer:
                self.saved = {k: v.clone() for k, v in self.model.state_dict().items() if k in params}

        def after(opt, args, kwargs):
            if opt is self.optimizer:
                now = self.model.state_dict()
                changed = [k for k, v in self.saved.items() if not torch.equal(v, now[k])]
                self.steps.append(dict(self.current, changed=sorted(changed)))
                self.current = {"modes": [], "grads": {n: [] for n in self.names}}

        self.handles = [register_module_forward_pre_hook(on_forward),
                        register_optimizer_step_pre_hook(before), register_optimizer_step_post_hook(after)]
        self.handles += [params[n].register_hook(watch(n)) for n in self.names]
        return self

    def __exit__(self, exc_type, exc, tb):
        while self.handles:
            self.handles.pop().remove()
        return False
"""},
    # An ExitStack owns the handles; the modes are read by a forward hook from a flag the pre-hook set.
    "ledger_exit_stack": {"StepLedger": """
import contextlib


class StepLedger:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.steps = []

    def __enter__(self):
        self.stack = contextlib.ExitStack()
        watched = [(n, p) for n, p in self.model.named_parameters() if p.requires_grad]
        fresh = lambda: {"modes": [], "grads": {n: [] for n, _ in watched}, "changed": []}
        self.record = fresh()

        def pre(module, args):
            self._mode = "train" if module.training else "eval"

        def post(module, args, output):
            self.record["modes"].append(self._mode)

        def grad_hook(n, p):
            def hook(grad):
                state = "none" if p.grad is None else ("nonzero" if p.grad.abs().sum() > 0 else "zero")
                self.record["grads"][n].append(state)
            return hook

        def step_pre(opt, args, kwargs):
            self._copies = [(n, p.detach().clone()) for n, p in self.model.named_parameters()]

        def step_post(opt, args, kwargs):
            params = dict(self.model.named_parameters())
            self.record["changed"] = sorted(n for n, old in self._copies if not torch.equal(old, params[n]))
            self.steps.append(self.record)
            self.record = fresh()

        handles = [self.model.register_forward_pre_hook(pre), self.model.register_forward_hook(post),
                   self.optimizer.register_step_pre_hook(step_pre), self.optimizer.register_step_post_hook(step_post)]
        handles += [p.register_hook(grad_hook(n, p)) for n, p in watched]
        for h in handles:
            self.stack.callback(h.remove)
        return self

    def __exit__(self, *exc):
        self.stack.close()
"""},
    "repair_with_normalizer_in_the_model": {"repair_run": edited(
        REPAIR_RUN, *_FIXES["stale_grads"], *_FIXES["eval_mode"], *_FIXES["learning_rate"],
        ("    train_x = (images[train_idx] - mean) / std\n", "    train_x = images[train_idx]\n"),
        ("    val_x = images[val_idx] / 16.0\n", "    val_x = images[val_idx]\n"),
        ("    model = nn.Sequential(nn.Conv2d(", "    model = nn.Sequential(Standardize(mean, std), nn.Conv2d("),
        ("    torch.manual_seed(seed)\n",
         "    class Standardize(nn.Module):\n"
         "        def __init__(self, mean, std):\n"
         "            super().__init__()\n"
         "            self.register_buffer('mean', mean)\n"
         "            self.register_buffer('std', std)\n\n"
         "        def forward(self, x):\n"
         "            return (x - self.mean) / self.std\n\n"
         "    torch.manual_seed(seed)\n"))},
}


#: Automatic mutants that keep full marks because they change nothing the contract fixes.
EQUIVALENT = {
    'StepLedger: swap: def __init__(self, model, optimizer): <-> def __enter__(self):':
        "the order of a class's method definitions changes nothing",
    'StepLedger: swap: def __enter__(self): <-> def __exit__(self, *exc_info):':
        "the order of a class's method definitions changes nothing",
    'StepLedger: swap: self.model, self.optimizer = (model, optimizer) <-> self.steps = []':
        "independent statements: every hook is attached before the block's code runs",
    'StepLedger: swap: self.steps = [] <-> self._handles = []':
        "independent statements: every hook is attached before the block's code runs",
    'StepLedger: swap: watched = [name for name, p in params.items() if p.requires_grad] <-> def open_record():':
        'a nested function is defined before anything calls it, and reads the names it uses when called',
    'StepLedger: swap: def open_record(): <-> def forward(module, args):':
        'a nested function is defined before anything calls it, and reads the names it uses when called',
    'StepLedger: swap: def forward(module, args): <-> def grad_arrives(name, p):':
        'a nested function is defined before anything calls it, and reads the names it uses when called',
    'StepLedger: swap: def grad_arrives(name, p): <-> def step_starts(optimizer, args, kwargs):':
        'a nested function is defined before anything calls it, and reads the names it uses when called',
    'StepLedger: swap: def step_starts(optimizer, args, kwargs): <-> def step_ends(optimizer, args, kwargs):':
        'a nested function is defined before anything calls it, and reads the names it uses when called',
    'StepLedger: swap: def step_ends(optimizer, args, kwargs): <-> open_record()':
        'a nested function is defined before anything calls it, and reads the names it uses when called',
    'StepLedger: swap: open_record() <-> self._handles.append(self.model.register_forward_pre_hook(forward))':
        "independent statements: every hook is attached before the block's code runs",
    'StepLedger: swap: self._handles.append(self.model.register_forward_pre_hook(forward)) <-> for name in watched:':
        "independent statements: every hook is attached before the block's code runs",
    'StepLedger: swap: for name in watched: <-> self._handles.append(self.optimizer.register_step_pre_hook(step_starts))':
        "independent statements: every hook is attached before the block's code runs",
    'StepLedger: swap: self._handles.append(self.optimizer.register_step_pre_hook(step_starts)) <-> self._handles.append(self.optimizer.register_step_post_hook(step_ends))':
        "independent statements: every hook is attached before the block's code runs",
    'StepLedger: delete: self._handles.clear()':
        'every handle is removed before the list is cleared; removing a removed handle again does nothing',
}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "dataset_float_labels": ("the one case where the targets are not shaped like the logits", "the class index"),
    "dataset_scales_images": (
        "so that training and serving apply the same one",
        "x does not hold the raw pixel values",
    ),
    "normalizer_stats_from_all_data": (
        "validation and test images leaked into the preprocessing",
        "the normaliser's statistics are those of the whole digits data set",
    ),
    "normalizer_stats_as_parameters": (
        "would train them away from the data's mean and std",
        "the normaliser has trainable parameters",
    ),
    "normalizer_stats_as_plain_attributes": (
        "a saved model would lose its preprocessing",
        "the normaliser's state_dict",
    ),
    "normalizer_std_not_floored": ("the normaliser's output holds inf or NaN",),
    "cnn_ignores_normalizer": (
        "the preprocessing it was given is not part of its computation",
        "never called the normaliser in its forward",
    ),
    "cnn_normalizer_in_a_list": (
        "the normaliser is not a submodule of the model",
        "does not hold the normaliser's buffers",
    ),
    "cnn_softmax_output": (
        "so a softmax in the model is applied twice and flattens the gradients",
        "every row of what DigitCNN",
    ),
    "epoch_clips_each_parameter": ("each parameter's gradient was clipped on its own",),
    "epoch_scheduler_per_epoch": ("so its shape over training depends on counting exactly those", "once per epoch"),
    "epoch_scheduler_before_step": (
        "stepping it first skips the first learning rate",
        "ran before the optimizer step it belongs to",
    ),
    "epoch_no_train_mode": ("a forward pass inside train_epoch_ce ran in eval mode",),
    "epoch_unweighted_mean": ("the plain mean of batch losses of sizes",),
    "predict_scales_input": ("rescaling or normalising again skews serving",),
    "predict_mode_not_restored": ("predict_digits changed it for whoever called it",),
    "predict_records_graph": (
        "autograd kept a graph that evaluation never uses",
        "a forward pass inside predict_digits recorded an autograd graph",
    ),
    "ledger_state_after_accumulation": ("an earlier gradient is still there",),
    "ledger_none_or_nonzero": ("an earlier gradient is still there",),
    "ledger_mode_at_step": ("at the moment each forward pass starts",),
    "ledger_changed_is_held_with_grad": ("it changes only the parameters it holds",),
    "ledger_changed_compares_live_tensor": ("it changes only the parameters it holds",),
    "ledger_one_state_per_step": ("an earlier gradient is still there",),
    "ledger_records_not_reset": ("at the moment each forward pass starts",),
    "ledger_hooks_not_removed": ("which keep every hook until its handle's remove",),
    "ledger_all_parameters": (
        "only those with requires_grad=True can receive a gradient",
        "the model's parameters that require a gradient are",
    ),
    "ledger_patches_step": ("which belong to the training code", "while the ledger was attached"),
    "ledger_hook_returns_zero_grad": ("the parameters' gradients and values",),
    "repair_left_stale_grads": (
        "nobody cleared it between one update and the next",
        "each step used the sum of every batch's gradients so far",
    ),
    "repair_left_eval_mode": ("so the validation numbers are noisy and low",),
    "repair_left_preprocessing": ("validation images were transformed differently from training images",),
    "repair_left_learning_rate": (
        "and it is orders of magnitude too small for this optimizer",
        "The loss can hardly move in six epochs",
    ),
    "dataset_targets_as_column": ("class indices", "int64"),
    "dataset_one_hot_float_targets": ("class indices", "float32"),
    "dataset_flat_images": ("[1, 8, 8]",),
    "normalizer_stats_per_batch": ("computed from each batch it sees",),
    "cnn_mlp_without_conv": ("without any nn.Conv2d",),
    "cnn_fixed_ten_classes": ("DigitCNN(num_classes=7)", "[6, 10]"),
    "epoch_clips_before_backward": ("clipping ran before backward()",),
    "epoch_clips_after_step": ("clipping ran before backward()", "after step()"),
    "predict_returns_logits": ("the contract asks for int64 labels",),
    "ledger_swallows_errors": ("did not reach the code around it", "returns a true value"),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))
