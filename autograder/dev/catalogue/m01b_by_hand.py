"""Module 01b-by-hand: mutants and correct variants."""

from . import Mutant, do_nothing, hold_to_words, patched
from .found import mutants as found_mutants

MODULE = "01b-by-hand"

MANUAL = "def manual_gradients(params, x, y):\n"
BCE = "def bce_with_logits(z, y):\n"
STEP = "def sgd_momentum_step(params, buffers, lr, momentum):\n"

_BOTH_LAYERS = ["test_manual_gradients_output_layer", "test_manual_gradients_hidden_layer"]
_BCE_BOTH = ["test_bce_with_logits_values", "test_bce_with_logits_gradient"]
_STEP_BOTH = ["test_sgd_momentum_step_matches", "test_sgd_momentum_step_owners"]
_DZ = "    dz = (torch.sigmoid(z) - y) / x.shape[0]       # dL/dz for the mean loss\n"
_FIRST = "                buf = p.grad.clone()               # the first step: the gradient itself, a copy\n"
_LATER = "                buf = momentum * buf + p.grad\n"

MUTANTS = {
    # --- manual_gradients -----------------------------------------------------------------
    "manual_uses_autograd": Mutant({"manual_gradients": MANUAL + """
    leaves = {k: v.detach().requires_grad_() for k, v in params.items()}
    h = torch.tanh(x @ leaves["hidden.weight"].T + leaves["hidden.bias"])
    z = h @ leaves["out.weight"].T + leaves["out.bias"]
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    grads = torch.autograd.grad(loss, list(leaves.values()))
    return dict(zip(leaves, grads))
"""}, _BOTH_LAYERS, ["used_autograd"]),
    "manual_uses_autograd_on_clones": Mutant({"manual_gradients": MANUAL + """
    with torch.enable_grad():
        leaves = {k: v.clone().requires_grad_() for k, v in params.items()}
        h = torch.tanh(x @ leaves["hidden.weight"].T + leaves["hidden.bias"])
        z = h @ leaves["out.weight"].T + leaves["out.bias"]
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
        loss.backward()
    return {k: v.grad for k, v in leaves.items()}
"""}, _BOTH_LAYERS, ["used_autograd"]),
    "manual_leaves_inference_mode": Mutant({"manual_gradients": MANUAL + """
    with torch.inference_mode(False):
        leaves = {k: v.clone().requires_grad_() for k, v in params.items()}
        x, y = x.clone(), y.clone()
        h = torch.tanh(x @ leaves["hidden.weight"].T + leaves["hidden.bias"])
        z = h @ leaves["out.weight"].T + leaves["out.bias"]
        torch.nn.functional.binary_cross_entropy_with_logits(z, y).backward()
    return {k: v.grad for k, v in leaves.items()}
"""}, _BOTH_LAYERS, ["used_autograd"], words=("used autograd", "requires_grad_")),
    "manual_sums_instead_of_mean": Mutant(patched(MODULE, "manual_gradients", (_DZ, "    dz = torch.sigmoid(z) - y\n")),
                                          _BOTH_LAYERS, ["sum_not_mean"]),
    "manual_negated": Mutant(patched(MODULE, "manual_gradients",
                                     (_DZ, "    dz = (y - torch.sigmoid(z)) / x.shape[0]\n")),
                             _BOTH_LAYERS, ["negated"]),
    "manual_skips_tanh_derivative": Mutant(patched(MODULE, "manual_gradients", ("dh * (1 - h * h)", "dh")),
                                           ["test_manual_gradients_hidden_layer"], ["missed_tanh_derivative"]),
    # dL/dz from the logits where sigmoid(z) belongs, as in forum questions whose hand-written gradient "explodes"
    # (discuss.pytorch.org, manual backprop for logistic regression); and tanh's factor written into dh and again
    # into da, as in tutorials' exercises on backprop by hand.
    "manual_logits_as_probabilities": Mutant(patched(MODULE, "manual_gradients", ("torch.sigmoid(z) - y", "z - y")),
                                             _BOTH_LAYERS, ["logits_as_probabilities"],
                                             words=("logits", "sigmoid", "probabilities")),
    "manual_tanh_derivative_twice": Mutant(patched(MODULE, "manual_gradients",
                                                   ("dh * (1 - h * h)", "dh * (1 - h * h) * (1 - h * h)")),
                                           ["test_manual_gradients_hidden_layer"], ["tanh_derivative_twice"],
                                           words=("twice", "tanh")),
    "manual_tanh_derivative_of_h": Mutant(patched(MODULE, "manual_gradients", ("dh * (1 - h * h)", "dh * (1 - h)")),
                                          ["test_manual_gradients_hidden_layer"], ["wrong_gradient"]),
    "manual_bias_mean_over_batch": Mutant(patched(MODULE, "manual_gradients",
                                                  ('"out.bias": dz.sum(dim=0)', '"out.bias": dz.mean(dim=0)')),
                                          ["test_manual_gradients_output_layer"], ["mean_applied_twice"],
                                          words=("exactly 1/8 of autograd's", "applied twice")),
    "manual_mean_divided_twice": Mutant(patched(MODULE, "manual_gradients", ("    dh = dz @ w2", "    dz = dz / x.shape[0]\n    dh = dz @ w2")),
                                        _BOTH_LAYERS, ["mean_applied_twice"], words=("1/8", "once, where dL/dz is formed")),
    "manual_batch_size_hard_coded": Mutant(patched(MODULE, "manual_gradients", ("/ x.shape[0]", "/ 8")),
                                           _BOTH_LAYERS, ["wrong_gradient"]),
    "manual_transposed_weight_gradient": Mutant(patched(MODULE, "manual_gradients",
                                                        ('"out.weight": dz.T @ h', '"out.weight": h.T @ dz')),
                                                ["test_manual_gradients_output_layer"], ["wrong_shape"]),
    "manual_returns_a_list": Mutant(patched(MODULE, "manual_gradients", ("    return {\n", "    return [\n"),
                                            ('"hidden.weight": da.T @ x', "da.T @ x"),
                                            ('"hidden.bias": da.sum(dim=0)', "da.sum(dim=0)"),
                                            ('"out.weight": dz.T @ h', "dz.T @ h"),
                                            ('"out.bias": dz.sum(dim=0)', "dz.sum(dim=0)"), ("    }\n", "    ]\n")),
                                    _BOTH_LAYERS, ["not_a_dict"]),
    "manual_short_names": Mutant(patched(MODULE, "manual_gradients", ('"hidden.weight": da', '"W1": da')),
                                 _BOTH_LAYERS, ["wrong_keys"]),
    "manual_writes_into_params": Mutant(patched(MODULE, "manual_gradients",
                                                ("    return {\n", "    w1 -= 0.1 * (da.T @ x)\n    return {\n")),
                                        _BOTH_LAYERS, ["modified_input"]),
    # --- bce_with_logits ---------------------------------------------------------------------
    "bce_naive_probabilities": Mutant({"bce_with_logits": BCE + """
    p = torch.sigmoid(z)
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
"""}, _BCE_BOTH, ["not_stable"]),
    "bce_clamped_probabilities": Mutant({"bce_with_logits": BCE + """
    p = torch.sigmoid(z).clamp(1e-7, 1 - 1e-7)
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
"""}, _BCE_BOTH, ["clamped_probability"]),
    "bce_clamp_at_zero": Mutant(patched(MODULE, "bce_with_logits", ("(z + z.abs()) / 2", "torch.clamp(z, min=0)")),
                                ["test_bce_with_logits_gradient"], ["zero_logit_gradient"],
                                words=("exactly 0", "sigmoid(0)", "(0.5 - y)/")),
    "bce_relu_at_zero": Mutant(patched(MODULE, "bce_with_logits", ("(z + z.abs()) / 2", "torch.relu(z)")),
                               ["test_bce_with_logits_gradient"], ["zero_logit_gradient"],
                               words=("exactly 0", "relu")),
    "bce_sum": Mutant(patched(MODULE, "bce_with_logits", ("per_element.mean()", "per_element.sum()")),
                      _BCE_BOTH, ["sum_not_mean"]),
    "bce_sign_of_target_term": Mutant(patched(MODULE, "bce_with_logits", ("- z * y", "+ z * y")),
                                      _BCE_BOTH, ["wrong_value"]),
    "bce_where_overflows_in_backward": Mutant({"bce_with_logits": BCE + """
    positive = z - z * y + torch.log1p(torch.exp(-z))
    negative = -z * y + torch.log1p(torch.exp(z))
    return torch.where(z >= 0, positive, negative).mean()
"""}, ["test_bce_with_logits_gradient"], ["nonfinite_gradient"]),
    "bce_item": Mutant(patched(MODULE, "bce_with_logits",
                               ("return per_element.mean()", "return torch.tensor(per_element.mean().item())")),
                       ["test_bce_with_logits_gradient"], ["cut_from_graph"]),
    "bce_detached_stable_term": Mutant(patched(MODULE, "bce_with_logits",
                                               ("torch.log1p(torch.exp(-z.abs()))",
                                                "torch.log1p(torch.exp(-z.abs())).detach()")),
                                       ["test_bce_with_logits_gradient"], ["wrong_gradient"]),
    "bce_pytorchs_own": Mutant({"bce_with_logits": BCE + """
    return torch.nn.functional.binary_cross_entropy_with_logits(z, y)
"""}, _BCE_BOTH, ["used_builtin_loss"]),
    "bce_pytorchs_module": Mutant({"bce_with_logits": BCE + """
    return torch.nn.BCEWithLogitsLoss()(z, y)
"""}, _BCE_BOTH, ["used_builtin_loss"]),
    # --- sgd_momentum_step --------------------------------------------------------------------
    "step_buffer_is_the_grad": Mutant(patched(MODULE, "sgd_momentum_step", (_FIRST, "                buf = p.grad\n")),
                                      ["test_sgd_momentum_step_owners"], ["buffer_aliases_grad"]),
    "step_dampened": Mutant(patched(MODULE, "sgd_momentum_step",
                                    (_LATER, "                buf = momentum * buf + (1 - momentum) * p.grad\n")),
                            ["test_sgd_momentum_step_matches"], ["momentum_rule"]),
    "step_first_buffer_averaged": Mutant(patched(MODULE, "sgd_momentum_step",
                                                 (_FIRST, "                buf = (1 - momentum) * p.grad\n")),
                                         ["test_sgd_momentum_step_matches"], ["first_step_buffer"]),
    "step_nesterov": Mutant(patched(MODULE, "sgd_momentum_step",
                                    ("p.sub_(lr * buf)", "p.sub_(lr * (p.grad + momentum * buf))")),
                            ["test_sgd_momentum_step_matches"], ["first_step_buffer"]),
    "step_lr_inside_buffer": Mutant(patched(MODULE, "sgd_momentum_step",
                                            (_FIRST, "                buf = lr * p.grad\n"),
                                            (_LATER, "                buf = momentum * buf + lr * p.grad\n"),
                                            ("p.sub_(lr * buf)", "p.sub_(buf)")),
                                    ["test_sgd_momentum_step_matches"], ["wrong_buffers"]),
    "step_recording_on": Mutant(patched(MODULE, "sgd_momentum_step",
                                        ("    with torch.no_grad():\n", "    if True:\n")),
                                _STEP_BOTH, ["inplace_on_leaf"]),
    "step_rebinds_the_name": Mutant(patched(MODULE, "sgd_momentum_step", ("p.sub_(lr * buf)", "p = p - lr * buf")),
                                    _STEP_BOTH, ["did_nothing"]),
    "step_assigns_data": Mutant(patched(MODULE, "sgd_momentum_step", ("p.sub_(lr * buf)", "p.data = p.data - lr * buf")),
                                ["test_sgd_momentum_step_owners"], ["storage_replaced"]),
    "step_new_tensors_written_back": Mutant(patched(MODULE, "sgd_momentum_step",
                                                    ("for p, buf in zip(params, buffers):",
                                                     "for i, (p, buf) in enumerate(zip(params, buffers)):"),
                                                    ("p.sub_(lr * buf)", "params[i] = (p - lr * buf).requires_grad_()")),
                                            ["test_sgd_momentum_step_owners"], ["not_same_object"]),
    "step_none_grad_crashes": Mutant(patched(MODULE, "sgd_momentum_step",
                                             ("            if p.grad is None:                     # took no part in "
                                              "the loss: SGD skips it\n                new_buffers.append(buf)\n"
                                              "                continue\n", "")),
                                     ["test_sgd_momentum_step_owners"], ["none_grad_stepped"]),
    "step_none_grad_as_zero": Mutant(patched(MODULE, "sgd_momentum_step",
                                             ("            if p.grad is None:                     # took no part in "
                                              "the loss: SGD skips it\n                new_buffers.append(buf)\n"
                                              "                continue\n",
                                              "            if p.grad is None:\n"
                                              "                p.grad = torch.zeros_like(p)\n")),
                                     ["test_sgd_momentum_step_owners"], ["none_grad_stepped"]),
    "step_accumulates_into_grad": Mutant(patched(MODULE, "sgd_momentum_step",
                                                 (_LATER, "                buf = p.grad.add_(buf, alpha=momentum)\n")),
                                         ["test_sgd_momentum_step_owners"], ["grads_changed"]),
}

VARIANTS = {
    # --- manual_gradients -----------------------------------------------------------------
    "manual_one_example_at_a_time": {"manual_gradients": MANUAL + """
    grads = {name: torch.zeros_like(value) for name, value in params.items()}
    n = x.shape[0]
    for i in range(n):
        xi, yi = x[i], y[i]                                     # [D], [1]
        a = params["hidden.weight"] @ xi + params["hidden.bias"]
        h = torch.tanh(a)
        z = params["out.weight"] @ h + params["out.bias"]      # [1]
        dz = (1 / (1 + torch.exp(-z)) - yi) / n
        grads["out.weight"] += torch.outer(dz, h)
        grads["out.bias"] += dz
        da = (params["out.weight"].T @ dz) * (1 - torch.tanh(a) ** 2)
        grads["hidden.weight"] += torch.outer(da, xi)
        grads["hidden.bias"] += da
    return grads
"""},
    "manual_einsum_float64": {"manual_gradients": MANUAL + """
    p = {k: v.double() for k, v in params.items()}
    x64, y64 = x.double(), y.double()
    h = torch.tanh(torch.einsum("nd,hd->nh", x64, p["hidden.weight"]) + p["hidden.bias"])
    z = torch.einsum("nh,oh->no", h, p["out.weight"]) + p["out.bias"]
    dz = (torch.sigmoid(z) - y64) / len(x64)
    da = torch.einsum("no,oh->nh", dz, p["out.weight"]) * (1 - h ** 2)
    out = {"out.weight": torch.einsum("no,nh->oh", dz, h), "out.bias": dz.sum(0),
           "hidden.weight": torch.einsum("nh,nd->hd", da, x64), "hidden.bias": da.sum(0)}
    return {k: out[k].to(params[k].dtype) for k in params}
"""},
    # --- bce_with_logits ---------------------------------------------------------------------
    "bce_softplus": {"bce_with_logits": BCE + """
    return (torch.nn.functional.softplus(z) - z * y).mean()
"""},
    "bce_logsigmoid": {"bce_with_logits": BCE + """
    logsig = torch.nn.functional.logsigmoid
    return -(y * logsig(z) + (1 - y) * logsig(-z)).mean()
"""},
    "bce_logaddexp": {"bce_with_logits": BCE + """
    return (torch.logaddexp(torch.zeros_like(z), z) - z * y).mean()
"""},
    "bce_log_of_one_plus": {"bce_with_logits": BCE + """
    loss = 0.5 * (z + torch.abs(z)) - z * y + torch.log(1 + torch.exp(-torch.abs(z)))
    return loss.sum() / z.numel()
"""},
    # --- sgd_momentum_step --------------------------------------------------------------------
    "step_zero_buffers_first": {"sgd_momentum_step": STEP + """
    if buffers is None:
        buffers = [None if p.grad is None else torch.zeros_like(p) for p in params]
    out = []
    for p, buf in zip(params, buffers):
        if p.grad is not None:
            buf = momentum * (buf if buf is not None else torch.zeros_like(p)) + p.grad
            p.data.sub_(lr * buf)
        out.append(buf)
    return out
"""},
    "step_in_place_buffers": {"sgd_momentum_step": STEP + """
    buffers = list(buffers) if buffers is not None else [None] * len(params)
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is None:
                continue
            if buffers[i] is None:
                buffers[i] = torch.clone(p.grad).detach()
            else:
                buffers[i].mul_(momentum).add_(p.grad)
            p.add_(buffers[i], alpha=-lr)
    return buffers
"""},
}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "manual_uses_autograd": ("this function is where you do autograd's job yourself", "called requires_grad_"),
    "manual_uses_autograd_on_clones": (
        "this function is where you do autograd's job yourself",
        "called requires_grad_",
    ),
    "manual_sums_instead_of_mean": ("the contract's loss is the MEAN over the batch",),
    "manual_negated": ("a gradient points the way the loss grows",),
    "manual_transposed_weight_gradient": ("dtype and device of its parameter",),
    "manual_returns_a_list": ("gradient of the mean loss} for every parameter", "not a dictionary"),
    "manual_short_names": ("under the parameter's own name", "not in params"),
    "manual_writes_into_params": ("the caller owns the network's parameters",),
    "bce_naive_probabilities": ("or e to a large positive power",),
    "bce_clamped_probabilities": ("or a log of a rounded probability", "right for ordinary logits"),
    "bce_sum": ("the contract's loss is the mean over every element",),
    "bce_sign_of_target_term": ("for ordinary logits the value already differs",),
    "bce_where_overflows_in_backward": ("a branch you did not use", "PyTorch's is finite everywhere"),
    "bce_item": ("cannot reach the model's parameters", "returned a tensor that does not require grad"),
    "bce_detached_stable_term": ("but a piece of it does not depend on z the way the loss does",),
    "bce_pytorchs_own": (
        "this function is the loss PyTorch computes",
        "called PyTorch's binary_cross_entropy_with_logits",
    ),
    "bce_pytorchs_module": (
        "this function is the loss PyTorch computes",
        "called PyTorch's binary_cross_entropy_with_logits",
    ),
    "step_buffer_is_the_grad": (
        "grad tensor itself is changed by the next zero_grad",
        "its buffer shares memory with the parameter's",
    ),
    "step_dampened": ("with nothing else scaled", "after the steps before it"),
    "step_first_buffer_averaged": (
        "on its first step SGD's buffer is the gradient itself",
        "already after the first step",
    ),
    "step_nesterov": ("on its first step SGD's buffer is the gradient itself", "already after the first step"),
    "step_lr_inside_buffer": ("the parameter itself matches SGD's",),
    "step_recording_on": ("recording was on while your step wrote into a parameter",),
    "step_rebinds_the_name": ("the step updates each of them in place", "left every parameter as it was"),
    "step_new_tensors_written_back": (
        "the model and the optimizer hold these very tensors",
        "weight is another tensor object than the one passed in",
    ),
    "step_none_grad_crashes": ("and your step tried to use its missing gradient",),
    "step_none_grad_as_zero": ("SGD creates no buffer for a parameter it skipped",),
    "step_accumulates_into_grad": (
        "it belongs to the parameter until zero_grad",
        "grad was changed or replaced by the step",
    ),
    "manual_skips_tanh_derivative": ("as if tanh were not there",),
    "manual_tanh_derivative_of_h": ("one factor of the chain rule is missing",),
    "manual_batch_size_hard_coded": ("float64", "one factor of the chain rule is missing"),
    "step_assigns_data": ("`p.data = ...` swaps in a new tensor's storage", "an in-place operation on `p`"),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))
