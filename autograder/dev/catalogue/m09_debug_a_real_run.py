"""Module 09-debug-a-real-run: mutants and correct variants.

Mutants are small edits of the solution's answers (or of the repair task's starter code), so each
one shows exactly the mistake it stands for.
"""

from autograder.starters import REPAIR_RUN

from . import Mutant, do_nothing, edited, patched, repair_catalogue

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
        ["test_train_epoch_ce_update"], ["wrong_update"]),
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
        ["test_train_epoch_ce_update"], ["wrong_update"]),
    "epoch_unweighted_mean": Mutant(patched(
        MODULE, "train_epoch_ce",
        ("        total += loss.item() * len(x)\n"
         "        count += len(x)\n",
         "        total += loss.item()\n        count += 1\n")),
        ["test_train_epoch_ce_update"], ["unweighted_mean"]),
    # --- predict_digits
    "predict_scales_input": Mutant(patched(
        MODULE, "predict_digits", ("reshape(-1, 1, 8, 8)   # raw, as in training", "reshape(-1, 1, 8, 8) / 16.0")),
        ["test_predict_digits_labels"], ["serving_skew"]),
    "predict_in_train_mode": Mutant(patched(MODULE, "predict_digits", ("    model.eval()\n", "")),
                                    ["test_predict_digits_labels", "test_predict_digits_modes"]),
    "predict_mode_not_restored": Mutant(patched(MODULE, "predict_digits", ("    model.train(was_training)\n", "")),
                                        ["test_predict_digits_modes"], ["mode_changed"]),
    "predict_returns_logits": Mutant(patched(MODULE, "predict_digits", ("model(x).argmax(dim=1)", "model(x)")),
                                     ["test_predict_digits_labels"], ["wrong_labels"]),
    "predict_records_graph": Mutant(patched(
        MODULE, "predict_digits", ("    with torch.no_grad():\n        labels", "    if True:\n        labels")),
        ["test_predict_digits_modes"], ["graph_recorded"]),
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

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
MUTANTS.update(do_nothing(MODULE))
