"""manual_gradients watches autograd in every mode: reverse and forward mode, torch.func, with the torch function
mode switched off.  Each answer here computes the right gradients with autograd's help; each must lose the points
of both manual_gradients cells, told that it used autograd."""

import pytest

from autograder.dev import nbtools
from conftest import ROOT

MODULE = "01b-by-hand"
HEAD = "import torch\nimport torch.nn.functional as F\n\n"
LOSS = ("    def loss(p):\n"
        "        h = torch.tanh(x @ p['hidden.weight'].T + p['hidden.bias'])\n"
        "        return F.binary_cross_entropy_with_logits(h @ p['out.weight'].T + p['out.bias'], y)\n")

ANSWERS = {
    "func_grad": HEAD + "from torch.func import grad\n\ndef manual_gradients(params, x, y):\n" + LOSS
    + "    return grad(loss)(dict(params))\n",
    "func_jacfwd": HEAD + "def manual_gradients(params, x, y):\n" + LOSS
    + "    return torch.func.jacfwd(loss)(dict(params))\n",
    "func_vjp": HEAD + "def manual_gradients(params, x, y):\n" + LOSS
    + "    out, pull = torch.func.vjp(loss, dict(params))\n    return pull(torch.ones_like(out))[0]\n",
    "forward_ad_dual_numbers": HEAD + "import torch.autograd.forward_ad as fwAD\n\n"
    "def manual_gradients(params, x, y):\n" + LOSS
    + "    with torch.inference_mode(False):\n"
      "        params = {k: v.clone() for k, v in params.items()}\n"
      "        grads = {k: torch.zeros_like(v) for k, v in params.items()}\n"
      "        x, y = x.clone(), y.clone()\n"
      "    for name, value in params.items():\n"
      "        for i in range(value.numel()):\n"
      "            tangent = torch.zeros(value.numel(), dtype=value.dtype, device=value.device)\n"
      "            tangent[i] = 1\n"
      "            with fwAD.dual_level(), torch.inference_mode(False):\n"
      "                p = dict(params)\n"
      "                p[name] = fwAD.make_dual(value, tangent.view_as(value))\n"
      "                grads[name].view(-1)[i] = fwAD.unpack_dual(loss(p)).tangent.item()\n"
      "    return grads\n",
    "torch_function_off_reverse_mode": HEAD + "def manual_gradients(params, x, y):\n"
    "    with torch._C.DisableTorchFunction(), torch.inference_mode(False):\n"
    "        p = {k: v.clone().requires_grad_() for k, v in params.items()}\n"
    "        xs, ys = x.clone(), y.clone()\n"
    "        h = torch.tanh(xs @ p['hidden.weight'].T + p['hidden.bias'])\n"
    "        out = F.binary_cross_entropy_with_logits(h @ p['out.weight'].T + p['out.bias'], ys)\n"
    "        grads = torch.autograd.grad(out, list(p.values()))\n"
    "    return {k: g.detach() for k, g in zip(p, grads)}\n",
}


#: Written after the watch: never used to tune it.
HELD_OUT = {
    "autograd_functional_vjp": HEAD + "def manual_gradients(params, x, y):\n"
    "    names = list(params)\n"
    "    with torch.inference_mode(False):\n"
    "        xs, ys = x.clone(), y.clone()\n"
    "        values = tuple(params[k].clone() for k in names)\n"
    "        def loss(*v):\n"
    "            p = dict(zip(names, v))\n"
    "            h = torch.tanh(xs @ p['hidden.weight'].T + p['hidden.bias'])\n"
    "            return F.binary_cross_entropy_with_logits(h @ p['out.weight'].T + p['out.bias'], ys)\n"
    "        _, grads = torch.autograd.functional.vjp(loss, values)\n"
    "    return dict(zip(names, grads))\n",
    "captured_backward_with_torch_function_off": HEAD + "BACKWARD = torch.Tensor.backward\n\n"
    "def manual_gradients(params, x, y):\n"
    "    with torch._C.DisableTorchFunction(), torch.inference_mode(False):\n"
    "        p = {k: v.clone().requires_grad_() for k, v in params.items()}\n"
    "        xs, ys = x.clone(), y.clone()\n"
    "        h = torch.tanh(xs @ p['hidden.weight'].T + p['hidden.bias'])\n"
    "        BACKWARD(F.binary_cross_entropy_with_logits(h @ p['out.weight'].T + p['out.bias'], ys))\n"
    "    return {k: v.grad.detach() for k, v in p.items()}\n",
}
ANSWERS_AND_HELD_OUT = {**ANSWERS, **HELD_OUT}


@pytest.mark.parametrize("name", list(ANSWERS_AND_HELD_OUT))
def test_manual_gradients_by_autograd_in_any_mode_loses_its_points(name):
    nb = nbtools.read(ROOT / "solutions" / MODULE / f"{MODULE}.ipynb")
    cells = [t for t in nbtools.test_cells(nb) if t.startswith("test_manual_gradients_")]
    scores = nbtools.run_in_process(nb, {"manual_gradients": ANSWERS_AND_HELD_OUT[name]}, only=cells)
    for cell in cells:
        got, _, text, code = scores[cell]
        assert got == 0 and code == "used_autograd", (cell, text)
