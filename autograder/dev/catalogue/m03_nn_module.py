"""Module 03-nn-module: mutants and correct variants."""

from . import Mutant, do_nothing, hold_to_words, patched
from .found import mutants as found_mutants

MODULE = "03-nn-module"

MLP_HEAD = "class MLP(nn.Module):\n"
COUNT_HEAD = "def count_parameters(model, trainable_only=False):\n"
FREEZE_HEAD = "def freeze(module):\n"
UNTRAINED_HEAD = "def untrained_parameters(model, optimizer):\n"

# freeze's loop in the solution
_FREEZE_LOOP = "    for p in module.parameters():  # recurses into every child\n        p.requires_grad_(False)\n"

MUTANTS = {
    # --- MLP -----------------------------------------------------------------------------
    "mlp_plain_list": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.drop(torch.relu(layer(x)))
        return self.layers[-1](x)
"""}, ["test_MLP_registers", "test_MLP_forward", "test_MLP_dropout"], ["not_registered"]),
    "mlp_hidden_in_list_head_registered": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.hidden = [nn.Linear(a, b) for a, b in zip(sizes[:-2], sizes[1:-1])]
        self.head = nn.Linear(sizes[-2], sizes[-1])
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        for layer in self.hidden:
            x = self.drop(torch.relu(layer(x)))
        return self.head(x)
"""}, ["test_MLP_registers", "test_MLP_forward"], ["not_registered"]),
    "mlp_relu_after_last": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_forward", "test_MLP_dropout"], ["relu_after_last"]),
    "mlp_relu_last_when_dropout": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
        self.net = nn.Sequential(*layers[:-1])  # drops the last ReLU... or the last Dropout

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_forward", "test_MLP_dropout"], ["relu_after_last"]),
    "mlp_no_relu": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.Dropout(dropout)]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_forward", "test_MLP_dropout"], ["no_relu"]),
    "mlp_dropout_ignored": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_dropout"], ["dropout_ignored"]),
    "mlp_functional_dropout_always_on": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.p = dropout

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.nn.functional.dropout(torch.relu(layer(x)), self.p)
        return self.layers[-1](x)
"""}, ["test_MLP_dropout"], ["dropout_in_eval"]),
    "mlp_hardcoded_dropout": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(0.5)]
        self.net = nn.Sequential(*layers[:-2])

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_dropout"], ["dropout_when_zero"]),
    "mlp_dropout_after_last": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        n = len(sizes) - 1
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(nn.Linear(a, b))
            if i < n - 1:
                layers.append(nn.ReLU())
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_dropout"], ["dropout_after_last"]),
    "mlp_dropout_before_each_linear": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_dropout"], ["dropout_on_input"]),
    "mlp_dropout_first_block_only": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers += [nn.Linear(a, b), nn.ReLU()]
            if i == 0 and dropout > 0:
                layers.append(nn.Dropout(dropout))
        if isinstance(layers[-1], nn.Dropout):
            layers.pop()
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_dropout"], ["dropout_missing"]),
    "mlp_dropout_rate_fixed": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
            if dropout > 0:
                layers.append(nn.Dropout(0.1))
        while not isinstance(layers[-1], nn.Linear):
            layers.pop()
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_dropout"], ["wrong_rate"]),
    "mlp_unscaled_mask": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.p = dropout

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
            if self.training and self.p > 0:
                x = x * (torch.rand_like(x) >= self.p)
        return self.layers[-1](x)
"""}, ["test_MLP_dropout"], ["not_rescaled"]),
    "mlp_missing_last_layer": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for i in range(len(sizes) - 2):  # one pair short: the output layer is never built
            layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU()]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
"""}, ["test_MLP_registers"], ["wrong_layers"]),
    "mlp_plain_dict": Mutant({"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.layers = {f"fc{i}": nn.Linear(a, b) for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))}
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        names = list(self.layers)
        for name in names[:-1]:
            x = self.drop(torch.relu(self.layers[name](x)))
        return self.layers[names[-1]](x)
"""}, ["test_MLP_registers", "test_MLP_forward", "test_MLP_dropout"], ["not_registered"]),
    # --- plan_mlp ------------------------------------------------------------------------
    "plan_ignores_relu_positions": Mutant(patched(MODULE, "plan_mlp",
                                                  ("position += 2 if dropout > 0 else 1", "position += 1 if dropout > 0 else 0")),
                                          ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_keys"]),
    "plan_ignores_dropout": Mutant(patched(MODULE, "plan_mlp", ("position += 2 if dropout > 0 else 1", "position += 1")),
                                   ["test_plan_mlp_dropout"], ["wrong_keys"]),
    "plan_numbers_linears_only": Mutant(patched(MODULE, "plan_mlp", ("layers.{position}.weight", "layers.{i}.weight"),
                                                ("layers.{position}.bias", "layers.{i}.bias")),
                                        ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_keys"]),
    "plan_weight_in_by_out": Mutant(patched(MODULE, "plan_mlp", ("= (n_out, n_in)", "= (n_in, n_out)")),
                                    ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_shape"]),
    "plan_bias_as_column": Mutant(patched(MODULE, "plan_mlp", ("= (n_out,)", "= (n_out, 1)")),
                                  ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_shape"]),
    "plan_counts_not_shapes": Mutant(patched(MODULE, "plan_mlp", ("= (n_out, n_in)", "= n_out * n_in"),
                                             ("= (n_out,)", "= n_out")),
                                     ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_shape"]),
    "plan_shapes_as_lists": Mutant(patched(MODULE, "plan_mlp", ("= (n_out, n_in)", "= [n_out, n_in]"),
                                           ("= (n_out,)", "= [n_out]")),
                                   ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_type"],
                                   words=("a list of int", "tuple of ints")),
    "plan_shapes_of_floats": Mutant(patched(MODULE, "plan_mlp", ("= (n_out, n_in)", "= (float(n_out), float(n_in))")),
                                    ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_type"],
                                    words=("a tuple of float", "tuple of ints")),
    "plan_builds_the_model": Mutant({"plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    return {k: tuple(v.shape) for k, v in MLP(sizes, dropout).state_dict().items()}
"""}, ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["built_to_predict"]),
    "plan_builds_the_layers": Mutant({"plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    plan, position = {}, 0
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layer = nn.Linear(n_in, n_out)
        plan[f"layers.{position}.weight"] = tuple(layer.weight.shape)
        plan[f"layers.{position}.bias"] = tuple(layer.bias.shape)
        position += 1 if i == len(sizes) - 2 else (3 if dropout > 0 else 2)
    return plan
"""}, ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["built_to_predict"]),
    "plan_lists_the_relus": Mutant(patched(MODULE, "plan_mlp",
                                           ("        if i < len(pairs) - 1:\n",
                                            "        if i < len(pairs) - 1:\n            plan[f\"layers.{position}\"] = ()\n")),
                                   ["test_plan_mlp_matches", "test_plan_mlp_dropout"], ["wrong_keys"]),
    # --- count_parameters ---------------------------------------------------------------
    "count_ignores_trainable_only": Mutant({"count_parameters": COUNT_HEAD + """
    return sum(p.numel() for p in model.parameters())
"""}, ["test_count_parameters_trainable"], ["ignores_trainable_only"]),
    "count_always_trainable": Mutant({"count_parameters": COUNT_HEAD + """
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
"""}, ["test_count_parameters_total"], ["skips_frozen"]),
    "count_inverted_flag": Mutant({"count_parameters": COUNT_HEAD + """
    return sum(p.numel() for p in model.parameters() if not (trainable_only and p.requires_grad))
"""}, ["test_count_parameters_trainable"], ["counts_frozen_only"]),
    "count_named_with_duplicates": Mutant({"count_parameters": COUNT_HEAD + """
    total = 0
    for name, p in model.named_parameters(remove_duplicate=False):
        if p.requires_grad or not trainable_only:
            total += p.numel()
    return total
"""}, ["test_count_parameters_total", "test_count_parameters_trainable"], ["double_counts_tied"]),
    "count_sum_over_modules": Mutant({"count_parameters": COUNT_HEAD + """
    total = 0
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if p.requires_grad or not trainable_only:
                total += p.numel()
    return total
"""}, ["test_count_parameters_total", "test_count_parameters_trainable"], ["double_counts_tied"]),
    # A walk over modules() with each module's recursive parameters(): nested parameters once per ancestor.
    "count_walks_modules": Mutant({"count_parameters": COUNT_HEAD + """
    total = 0
    for module in model.modules():
        for p in module.parameters():
            if p.requires_grad or not trainable_only:
                total += p.numel()
    return total
"""}, ["test_count_parameters_total", "test_count_parameters_trainable"], ["double_counts_nested"],
        words=("counted once by each module that contains it", "iterate model.parameters() once")),
    "count_state_dict": Mutant({"count_parameters": COUNT_HEAD + """
    if trainable_only:
        return sum(p.numel() for p in model.parameters() if p.requires_grad)
    return sum(v.numel() for v in model.state_dict().values())
"""}, ["test_count_parameters_total"], ["counts_state_dict"]),
    "count_with_buffers": Mutant({"count_parameters": COUNT_HEAD + """
    n = sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)
    return n + sum(b.numel() for b in model.buffers())
"""}, ["test_count_parameters_total"], ["counts_buffers"]),
    "count_tensors_not_elements": Mutant({"count_parameters": COUNT_HEAD + """
    return len([p for p in model.parameters() if p.requires_grad or not trainable_only])
"""}, ["test_count_parameters_total", "test_count_parameters_trainable"], ["counts_tensors"]),
    "count_returns_tensor": Mutant({"count_parameters": COUNT_HEAD + """
    sizes = [p.numel() for p in model.parameters() if p.requires_grad or not trainable_only]
    return torch.tensor(sizes).sum()
"""}, ["test_count_parameters_total", "test_count_parameters_trainable"], ["not_an_int"]),
    "count_numpy_prod_shape": Mutant({"count_parameters": """
import numpy as np

def count_parameters(model, trainable_only=False):
    return sum(np.prod(p.shape) for p in model.parameters() if p.requires_grad or not trainable_only)
"""}, ["test_count_parameters_total"], ["not_an_int"]),
    # Counting by layer type, as a summary table does: the norm layers' weights and a bare nn.Parameter are missed.
    "count_known_layer_types": Mutant({"count_parameters": COUNT_HEAD + """
    total = 0
    for layer in model.modules():
        if isinstance(layer, (nn.Linear, nn.Conv2d)):
            for p in layer.parameters(recurse=False):
                if p.requires_grad or not trainable_only:
                    total += p.numel()
    return total
"""}, ["test_count_parameters_total"], ["wrong_count"]),
    # --- freeze --------------------------------------------------------------------------
    # A fine-tuning library's freeze: normalisation layers stay trainable (their statistics adapt).
    "freeze_keeps_norm_layers_trainable": Mutant({"freeze": FREEZE_HEAD + """
    for layer in module.modules():
        if isinstance(layer, (nn.BatchNorm1d, nn.BatchNorm2d, nn.LayerNorm)):
            continue
        for p in layer.parameters(recurse=False):
            p.requires_grad_(False)
    return module
"""}, ["test_freeze_parameters"], ["norm_left_trainable"]),
    "freeze_calls_eval": Mutant(patched(MODULE, "freeze", (_FREEZE_LOOP, "    module.eval()\n")),
                                ["test_freeze_parameters", "test_freeze_mode"], ["eval_not_freeze", "mode_changed"]),
    "freeze_and_eval": Mutant(patched(
        MODULE, "freeze", (_FREEZE_LOOP, "    module.requires_grad_(False)\n    module.eval()\n")),
        ["test_freeze_mode"], ["mode_changed"]),
    "freeze_direct_parameters_only": Mutant(patched(
        MODULE, "freeze", ("parameters()", "parameters(recurse=False)"),
        ("p.requires_grad_(False)", "p.requires_grad = False")),
        ["test_freeze_parameters"], ["children_missed"]),
    "freeze_returns_none": Mutant(patched(
        MODULE, "freeze",
        ("    return module                  # the same object; its mode (training) is untouched\n", "")),
        ["test_freeze_parameters"], ["returns_none"]),
    "freeze_a_copy": Mutant(patched(
        MODULE, "freeze", ("def freeze", "import copy\n\ndef freeze"),
        ("    for p in module.parameters()", "    frozen = copy.deepcopy(module)\n    for p in frozen.parameters()"),
        ("return module", "return frozen")),
        ["test_freeze_parameters"], ["not_same_object"]),
    "freeze_data_flag": Mutant(patched(MODULE, "freeze", ("p.requires_grad_(False)", "p.data.requires_grad_(False)")),
                               ["test_freeze_parameters"], ["not_frozen"]),
    "freeze_clears_grad": Mutant(patched(MODULE, "freeze", ("p.requires_grad_(False)", "p.grad = None")),
                                 ["test_freeze_parameters"], ["not_frozen"]),
    "freeze_zeroes_weights": Mutant(patched(
        MODULE, "freeze",
        (_FREEZE_LOOP,
         "    with torch.no_grad():\n"
         "        for p in module.parameters():\n"
         "            p.zero_()\n"
         "            p.requires_grad_(False)\n")),
        ["test_freeze_parameters"], ["changed_values"]),
    # --- untrained_parameters ------------------------------------------------------------
    # `in` on a list of tensors compares with ==, element by element: Python asks one bool of a tensor of many.
    "untrained_in_a_list": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = [p for group in optimizer.param_groups for p in group["params"]]
    return [name for name, p in model.named_parameters() if p.requires_grad and p not in held]
"""}, ["test_untrained_parameters_finds"], ["raised"], words=("`is` for identity", "p not in held")),
    "untrained_by_shape": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    shapes = [tuple(q.shape) for g in optimizer.param_groups for q in g["params"]]
    return [n for n, p in model.named_parameters() if p.requires_grad and tuple(p.shape) not in shapes]
"""}, ["test_untrained_parameters_finds"], ["not_by_identity"]),
    "untrained_by_name": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    # an optimizer built from named_parameters() keeps the names in each group
    held = {n for g in optimizer.param_groups for n in g.get("param_names", [])}
    if not held:
        held = {n for n, p in model.named_parameters()
                if any(p is q for g in optimizer.param_groups for q in g["params"])}
    return [n for n, p in model.named_parameters() if p.requires_grad and n not in held]
"""}, ["test_untrained_parameters_finds"], ["not_by_identity"]),
    "untrained_by_value": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = [q for g in optimizer.param_groups for q in g["params"]]
    return [n for n, p in model.named_parameters()
            if p.requires_grad and not any(p.shape == q.shape and torch.equal(p, q) for q in held)]
"""}, ["test_untrained_parameters_finds"], ["not_by_identity"]),
    "untrained_by_position": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    n_held = sum(len(g["params"]) for g in optimizer.param_groups)
    return names[n_held:]
"""}, ["test_untrained_parameters_finds"], ["not_by_identity"]),
    "untrained_list_membership": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = [q for g in optimizer.param_groups for q in g["params"]]
    return [n for n, p in model.named_parameters() if p.requires_grad and p not in held]
"""}, ["test_untrained_parameters_finds"], ["raised"]),
    "untrained_includes_frozen": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = {id(q) for g in optimizer.param_groups for q in g["params"]}
    return [n for n, p in model.named_parameters() if id(p) not in held]
"""}, ["test_untrained_parameters_frozen"], ["lists_frozen"]),
    "untrained_first_group_only": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = {id(q) for q in optimizer.param_groups[0]["params"]}
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held]
"""}, ["test_untrained_parameters_finds"], ["lists_held"]),
    "untrained_returns_held": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = {id(q) for g in optimizer.param_groups for q in g["params"]}
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) in held]
"""}, ["test_untrained_parameters_finds"], ["lists_held"]),
    "untrained_returns_set": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = {id(q) for g in optimizer.param_groups for q in g["params"]}
    return {n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held}
"""}, ["test_untrained_parameters_finds", "test_untrained_parameters_frozen"], ["not_a_list"]),
    "untrained_returns_tensors": Mutant({"untrained_parameters": UNTRAINED_HEAD + """
    held = {id(q) for g in optimizer.param_groups for q in g["params"]}
    return [p for n, p in model.named_parameters() if p.requires_grad and id(p) not in held]
"""}, ["test_untrained_parameters_finds"], ["not_names"]),
}

VARIANTS = {
    "mlp_modulelist": {"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])
        self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def forward(self, x):
        *hidden, last = self.linears
        for layer in hidden:
            x = self.drop(torch.relu(layer(x)))
        return last(x)
""", "plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    plan = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        plan[f"linears.{i}.weight"], plan[f"linears.{i}.bias"] = (b, a), (b,)
    return plan
"""},
    "mlp_add_module_loop": {"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        k = 0
        for i in range(len(sizes) - 1):
            self.add_module(f"layer{k}", nn.Linear(sizes[i], sizes[i + 1]))
            k += 1
            if i < len(sizes) - 2:
                self.add_module(f"layer{k}", nn.ReLU())
                k += 1
                if dropout:
                    self.add_module(f"layer{k}", nn.Dropout(p=dropout))
                    k += 1

    def forward(self, x):
        for module in self.children():
            x = module(x)
        return x
""", "plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    plan, k = {}, 0
    for i in range(len(sizes) - 1):
        plan[f"layer{k}.weight"] = (sizes[i + 1], sizes[i])
        plan[f"layer{k}.bias"] = (sizes[i + 1],)
        k += 1 + (i < len(sizes) - 2) * (1 + bool(dropout))
    return plan
"""},
    "mlp_sequential_subclass": {"MLP": """
class MLP(nn.Sequential):
    def __init__(self, sizes, dropout=0.0):
        layers = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            if i > 0:
                layers.append(nn.ReLU())
                if dropout > 0:
                    layers.append(nn.Dropout(dropout))
            layers.append(nn.Linear(a, b))
        super().__init__(*layers)
""", "plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    step = 3 if dropout > 0 else 2
    return {f"{step * i}.{name}": shape
            for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))
            for name, shape in (("weight", (b, a)), ("bias", (b,)))}
"""},
    "mlp_dropout_before_relu_functional": {"MLP": """
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.dropout = dropout

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.relu(F.dropout(x, p=self.dropout, training=self.training))
        return x
""", "plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    out = {}
    for i in range(len(sizes) - 1):
        out.update({f"layers.{i}.weight": (sizes[i + 1], sizes[i]), f"layers.{i}.bias": (sizes[i + 1],)})
    return out
"""},
    "mlp_factory_function": {"MLP": """
def MLP(sizes, dropout=0.0):
    layers = [nn.Linear(sizes[0], sizes[1])]
    for a, b in zip(sizes[1:-1], sizes[2:]):
        layers.append(nn.ReLU())
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
        layers.append(nn.Linear(a, b))
    return nn.Sequential(*layers)
""", "plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    per_block = 3 if dropout > 0 else 2
    plan = {}
    for i in range(len(sizes) - 1):
        plan[f"{i * per_block}.weight"] = (sizes[i + 1], sizes[i])
        plan[f"{i * per_block}.bias"] = (sizes[i + 1],)
    return plan
"""},
    "mlp_dropout_module_even_at_zero": {"MLP": MLP_HEAD + """
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        blocks = []
        for a, b in zip(sizes[:-2], sizes[1:-1]):
            blocks += [nn.Linear(a, b), nn.ReLU(inplace=True), nn.Dropout(p=dropout)]  # p=0.0 drops nothing
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(sizes[-2], sizes[-1])

    def forward(self, x):
        return self.head(self.body(x))
""", "plan_mlp": """
def plan_mlp(sizes, dropout=0.0):
    plan = {}
    for i, (a, b) in enumerate(zip(sizes[:-2], sizes[1:-1])):
        plan[f"body.{3 * i}.weight"], plan[f"body.{3 * i}.bias"] = (b, a), (b,)
    plan["head.weight"], plan["head.bias"] = (sizes[-1], sizes[-2]), (sizes[-1],)
    return plan
"""},
    "count_id_dict": {"count_parameters": COUNT_HEAD + """
    unique = {id(p): p for _, p in model.named_parameters(remove_duplicate=False)}
    if trainable_only:
        return sum(p.numel() for p in unique.values() if p.requires_grad)
    return sum(p.numel() for p in unique.values())
"""},
    "count_generator_sum": {"count_parameters": COUNT_HEAD + """
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)
"""},
    "count_math_prod": {"count_parameters": """
import math

def count_parameters(model, trainable_only=False):
    params = [p for p in model.parameters() if not trainable_only or p.requires_grad]
    return sum(math.prod(p.shape) for p in params)
"""},
    "freeze_requires_grad_module": {"freeze": FREEZE_HEAD + """
    return module.requires_grad_(False)
"""},
    "freeze_named_loop": {"freeze": FREEZE_HEAD + """
    for name, p in module.named_parameters():
        p.requires_grad = False
    return module
"""},
    "untrained_sorted_ids": {"untrained_parameters": UNTRAINED_HEAD + """
    held = set()
    for group in optimizer.param_groups:
        held |= {id(p) for p in group["params"]}
    return sorted(name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held)
"""},
    "untrained_any_is": {"untrained_parameters": UNTRAINED_HEAD + """
    result = []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if not any(p is q for group in optimizer.param_groups for q in group["params"]):
            result.append(name)
    return result
"""},
}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "mlp_plain_list": ("the module owns only what is assigned to it as an nn", "Module does not register"),
    "mlp_hidden_in_list_head_registered": (
        "the module owns only what is assigned to it as an nn",
        "registers only some of its layers",
    ),
    "mlp_relu_after_last": ("the last Linear's raw output",),
    "mlp_relu_last_when_dropout": ("the last Linear's raw output",),
    "mlp_no_relu": ("without a nonlinearity the stack collapses into one linear map",),
    "mlp_dropout_ignored": ("your MLP never drew such a mask", "over the same batch gave identical outputs"),
    "mlp_functional_dropout_always_on": (
        "but a dropout call that ignores the mode",
        "two passes over the same batch gave different outputs",
    ),
    "mlp_hardcoded_dropout": ("your MLP adds dropout whatever it is given",),
    "mlp_dropout_after_last": ("dropout runs after the last Linear and drops the outputs themselves",),
    "mlp_dropout_before_each_linear": (
        "dropout runs before the first Linear",
        "'s first Linear differs from the batch it was given",
    ),
    "mlp_dropout_first_block_only": ("the block between those two Linear layers has no dropout", "were dropped"),
    "mlp_dropout_rate_fixed": ("the rate given to the dropout layers",),
    "mlp_unscaled_mask": ("so that their expected value matches eval mode",),
    "mlp_plain_dict": ("the module owns only what is assigned to it as an nn", "Module does not register"),
    "plan_ignores_relu_positions": ("and a container numbers every module it holds",),
    "plan_ignores_dropout": ("and a container numbers every module it holds",),
    "plan_numbers_linears_only": ("and a container numbers every module it holds",),
    "plan_builds_the_model": ("the point is to know the state_dict before anything exists", "to read the answer off"),
    "plan_builds_the_layers": ("the point is to know the state_dict before anything exists", "to read the answer off"),
    "plan_lists_the_relus": ("and a container numbers every module it holds",),
    "count_ignores_trainable_only": ("each parameter's requires_grad flag says whether it will be trained",),
    "count_always_trainable": ("only trainable_only=True should leave it out",),
    "count_inverted_flag": ("each parameter's requires_grad flag",),
    "count_named_with_duplicates": (
        "and a sum over submodules yield it twice",
        "matrix once for each name it is registered under",
    ),
    "count_sum_over_modules": (
        "and a sum over submodules yield it twice",
        "matrix once for each name it is registered under",
    ),
    "count_state_dict": ("and lists a tied tensor under each of its names",),
    "count_with_buffers": ("are saved state",),
    "count_tensors_not_elements": ("each parameter tensor holds p",),
    "count_known_layer_types": ("each counted once by its number of elements",),
    "freeze_keeps_norm_layers_trainable": (
        "so they keep training while the caller believes the module is frozen",
        "every other parameter was frozen",
    ),
    "freeze_and_eval": ("and has nothing to do with which parameters are trained",),
    "freeze_direct_parameters_only": ("yields only the module's own parameters", "only the model's own parameters"),
    "freeze_returns_none": ("the caller expects the same module back",),
    "freeze_a_copy": (
        "a frozen copy leaves the caller's model trainable",
        "a different object from the module it was given",
    ),
    "freeze_data_flag": ("grad or turning off grad mode leaves the flag as it was",),
    "freeze_clears_grad": ("grad or turning off grad mode leaves the flag as it was",),
    "freeze_zeroes_weights": ("the parameter values belong to the model",),
    "untrained_by_shape": (
        "replaced or copied tensor can share a name",
        "although it holds other tensors of the same shapes",
    ),
    "untrained_by_name": ("replaced or copied tensor can share a name",),
    "untrained_by_value": (
        "replaced or copied tensor can share a name",
        "although it holds other tensors of the same shapes",
    ),
    "untrained_by_position": ("replaced or copied tensor can share a name",),
    "untrained_list_membership": ("equal for values", "Boolean value of Tensor with more than one value is ambiguous"),
    "untrained_includes_frozen": ("leaving it out of the optimizer is deliberate",),
    "untrained_first_group_only": (
        "and holding means holding the same object",
        "the optimizer holds those very tensor objects",
    ),
    "untrained_returns_held": (
        "and holding means holding the same object",
        "the optimizer holds those very tensor objects",
    ),
    "untrained_returns_set": ("returned a set",),
    "untrained_returns_tensors": ("the names from model", "not parameter names"),
    "mlp_missing_last_layer": ("registers 1 Linear layer (2→8) for 3 sizes",),
    "plan_weight_in_by_out": ("[out_features, in_features] (one row per output)",),
    "plan_bias_as_column": ("its bias as [out_features]",),
    "plan_counts_not_shapes": ("the tensor has shape", "[out_features, in_features]"),
    "count_returns_tensor": ("not an int", "a whole number"),
    "count_numpy_prod_shape": ("np.float64", "not an int"),
    "freeze_calls_eval": ("it does not touch requires_grad",),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))

# Automatic mutants (autograder.dev.mutate) that keep full marks because they change nothing the contract fixes.
EQUIVALENT = {
    "MLP: swap: def __init__(self, sizes, dropout=0.0): <-> def forward(self, x):":
        "the order of a class's methods is not behaviour",
    "MLP: swap: super().__init__() <-> pairs = list(zip(sizes[:-1], sizes[1:]))":
        "pairs is a local; nothing is registered before Module's __init__",
    "MLP: swap: pairs = list(zip(sizes[:-1], sizes[1:])) <-> layers = []": "independent statements",
    "MLP: swap: layers.append(nn.ReLU()) <-> if dropout > 0:":
        "Dropout then ReLU equals ReLU then Dropout: dropout zeroes or scales by a positive factor, which commutes "
        "with max(0, x)",
}
