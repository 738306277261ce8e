"""A planted cohort of module 03, written apart from the normaliser and the detector.

The module's graded answers are the ``MLP`` class, ``plan_mlp`` (the keys and shapes of the student's own
MLP's state_dict, so that every student's plan follows the registry their MLP chose), ``count_parameters``,
``freeze`` and ``untrained_parameters``.

Thirteen honest students answer in their own styles, each registering the MLP's layers a way of their own:
an ``nn.Sequential`` trimmed after a loop (honest-01), a beginner's ``nn.ModuleList`` filled step by step with
temporaries (honest-02), a ModuleList of Linear layers with ``torch.relu`` and functional dropout (honest-03),
defensive checks and ``add_module`` with one shared ReLU and Dropout (honest-04), the lesson's ``OrderedDict``
in ``nn.Sequential`` with comments (honest-05), hidden layers in a ModuleList and a separate output layer
(honest-06), a compact ModuleList with ``F.relu``/``F.dropout`` (honest-07), an ``nn.ModuleDict`` with
``torch.dropout`` and nested loops (honest-08), ``nn.Sequential`` of per-layer ``nn.Sequential`` blocks
(honest-09), ``itertools.pairwise`` with the activation put before every Linear but the first (honest-10),
type hints and ModuleLists of ReLUs and Dropouts beside the Linears (honest-11), ``nn.Sequential().add_module``
in a ``while`` loop and ``module.apply`` (honest-12), the Linears built first and interleaved by list
concatenation (honest-13).  Their counts, freezes and identity tests vary as students' do (a sum over a
generator, loops, ``math.prod``, ``torch.numel`` mapped, a dict of ids, ``any(p is q ...)``, ``id`` sets built
by comprehension, ``update``, ``|=`` or ``map``), and converge where any two students would: ``freeze`` is a
loop setting ``requires_grad`` or ``module.requires_grad_(False)`` for most of them, and several write
``untrained_parameters`` as an ``id`` set and one comprehension.  Two write the course's answer: canonical-1
hands in the reference word for word, canonical-2 in their own names.

Twelve copy, and disguise what they take:

- ``copier-sequential`` (honest-02, all five cells): the ModuleList and its ``forward`` loop turned into
  ``nn.Sequential`` called once; the ReLU/Dropout appends written out one by one turned into a loop over the
  extra layers; nested ``if``s turned into guard clauses and a negated condition with its branches swapped
  (``plan_mlp``, ``count_parameters``, ``untrained_parameters``); ``freeze`` left as taken.
- ``copier-unrolled`` (honest-05, all five): the ``nn.Sequential(OrderedDict)`` unrolled into ``setattr``
  attributes and a ``forward`` that walks their names (so its ``plan_mlp`` drops the container's prefix); the
  count's comprehension written as a loop with a running total; comments rewritten; ``freeze`` and
  ``untrained_parameters`` left as taken.
- ``copier-functional`` (honest-04, all five): the ``nn.ReLU``/``nn.Dropout`` held as layers replaced by
  ``F.relu(x)`` and ``F.dropout(x, p, self.training)``; ``try``/``except: raise`` and ``try``/``finally``
  wrappers added to ``count_parameters``, ``freeze`` and ``untrained_parameters``; ``plan_mlp`` left as taken.
- ``copier-modules`` (honest-07, all five): the reverse: ``F.relu``/``F.dropout`` replaced by ``nn.ReLU`` and
  ``nn.Dropout`` layers; no-op device conversions (``p.to(p.device)``) and an ``_as_list`` helper wrapped
  around the count, the freeze and the optimizer's groups; the freeze's list comprehension run for its side
  effect written as a loop; ``plan_mlp`` left as taken.
- ``copier-helpers`` (honest-06, all five): code moved into module-level helpers (the hidden stack, the
  optional dropout, one plan entry, the optimizer's ids), a method for one block, and a tiny counter class;
  ``freeze`` left as taken.
- ``copier-spellings`` (honest-10, all five): other spellings of the same calls (``pairwise`` as ``zip``,
  ``model.parameters()`` as ``p for _, p in model.named_parameters()``, ``numel`` as ``nelement``,
  ``p.requires_grad = False`` as ``p.requires_grad_(False)``, a set comprehension as ``set(map(id, ...))``,
  ``self.stack(x)`` as ``self.stack.forward(x)``, keyword arguments) and unused loop indices added
  (``enumerate`` with ``i`` unused, ``_`` for a name); ``plan_mlp`` left as taken.
- ``copier-partial`` (honest-12, all five): the freeze's closure given to ``module.apply`` replaced by
  ``functools.partial`` of a module-level function, the count's dict comprehension by ``filter`` with a
  ``partial``; an ``as_list`` helper around the optimizer's groups; ``MLP`` and ``plan_mlp`` left as taken.
- ``copier-renamed`` (honest-11, all five): type hints removed, locals renamed, comments rewritten, independent
  statements reordered (the ModuleLists of Dropouts and ReLUs registered before the Linears, the plan's two
  entries swapped).
- ``chain-b`` (honest-08, all five) renames lightly and drops the comments of ``MLP``, ``count_parameters``
  and ``untrained_parameters``; ``chain-c`` (chain-b, four cells) reworks what it got: the ModuleDict filled by
  a dict comprehension, ``forward``'s nested condition turned into a ``break``, the plan's weight and bias
  written out one by one turned into a loop over the two kinds, the count's loop turned into ``sum()`` over a
  generator, the nested flag loops of ``untrained_parameters`` into ``any`` over a comprehension; writes its
  ``freeze`` alone.
- ``copier-merge`` takes ``MLP`` and ``plan_mlp`` from honest-09 (the block loop as a comprehension, the
  plan's f-strings as ``%`` formatting with its entries reordered) and ``count_parameters``, ``freeze`` and
  ``untrained_parameters`` from honest-01 (the one-line conditional as ``if``/``return``, ``update(map(id,
  ...))`` as ``|= set(map(id, ...))``, operands of ``and`` swapped; ``freeze`` as taken).
- ``copier-half`` takes only ``MLP`` and ``plan_mlp`` from honest-13 (the list concatenation written out as
  one append a layer, no-op ``.to(dtype=...)``/``.to(device)`` conversions added, a conditional expression as
  ``if``/``else``) and writes the other three cells alone.

Every answer passes the module's checks, and every copied answer does what its source does.  The truth
follows from where each answer came from (:func:`.planted.assemble`); ``python -m autograder.dev.planted_03``
prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "03-nn-module"

MLP_HEAD = ('class MLP(nn.Module):\n'
            '    """Linear layers between consecutive `sizes`; ReLU (then Dropout if dropout > 0) between them."""\n'
            '\n')
INIT = "    def __init__(self, sizes, dropout=0.0):\n"
FWD = "\n    def forward(self, x):\n"
MLP_ = MLP_HEAD + INIT
PM = 'def plan_mlp(sizes, dropout=0.0):\n    """{state_dict key: shape} of MLP(sizes, dropout), from the sizes alone."""\n'
CP = ('def count_parameters(model, trainable_only=False):\n'
      '    """Number of parameter elements in `model` (tied tensors once; only requires_grad ones if '
      'trainable_only)."""\n')
FR = ('def freeze(module):\n'
      '    """Turn off requires_grad on every parameter of `module`, children included; return `module`."""\n')
UP = ('def untrained_parameters(model, optimizer):\n'
      '    """Names of `model`\'s trainable parameters that no param group of `optimizer` holds (by identity)."""\n')
PM_DEF = PM.splitlines()[0] + "\n"
CP_DEF = CP.splitlines()[0] + "\n"
FR_DEF = FR.splitlines()[0] + "\n"
UP_DEF = UP.splitlines()[0] + "\n"
PM_DOC = PM[len(PM_DEF):]
CP_DOC = CP[len(CP_DEF):]
FR_DOC = FR[len(FR_DEF):]
UP_DOC = UP[len(UP_DEF):]

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # compact: one Sequential trimmed after the loop, one-liners
        "MLP": MLP_ + """\
        super().__init__()
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()] + ([nn.Dropout(dropout)] if dropout > 0 else [])
        self.net = nn.Sequential(*layers[:-2 if dropout > 0 else -1])
""" + FWD + """\
        return self.net(x)
""",
        "plan_mlp": PM + """\
    step = 3 if dropout > 0 else 2
    return {f"net.{step * i}.{k}": s
            for i, (a, b) in enumerate(zip(sizes, sizes[1:]))
            for k, s in (("weight", (b, a)), ("bias", (b,)))}
""",
        "count_parameters": CP + """\
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)
""",
        "freeze": FR + """\
    return module.requires_grad_(False)
""",
        "untrained_parameters": UP + """\
    held = set()
    for g in optimizer.param_groups:
        held.update(map(id, g["params"]))
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
    },
    "honest-02": {  # a beginner's temporaries, a ModuleList walked in forward
        "MLP": MLP_ + """\
        super().__init__()
        self.layers = nn.ModuleList()
        number_of_layers = len(sizes) - 1
        for i in range(number_of_layers):
            input_size = sizes[i]
            output_size = sizes[i + 1]
            linear_layer = nn.Linear(input_size, output_size)
            self.layers.append(linear_layer)
            is_last_layer = (i == number_of_layers - 1)
            if not is_last_layer:
                relu_layer = nn.ReLU()
                self.layers.append(relu_layer)
                if dropout > 0:
                    dropout_layer = nn.Dropout(dropout)
                    self.layers.append(dropout_layer)
""" + FWD + """\
        output = x
        for layer in self.layers:
            output = layer(output)
        return output
""",
        "plan_mlp": PM + """\
    plan = {}
    index = 0
    number_of_layers = len(sizes) - 1
    for i in range(number_of_layers):
        input_size = sizes[i]
        output_size = sizes[i + 1]
        weight_key = "layers." + str(index) + ".weight"
        bias_key = "layers." + str(index) + ".bias"
        plan[weight_key] = (output_size, input_size)
        plan[bias_key] = (output_size,)
        index = index + 1
        is_last_layer = (i == number_of_layers - 1)
        if not is_last_layer:
            index = index + 1
            if dropout > 0:
                index = index + 1
    return plan
""",
        "count_parameters": CP + """\
    total = 0
    for parameter in model.parameters():
        if trainable_only == True:
            if parameter.requires_grad == True:
                total = total + parameter.numel()
        else:
            total = total + parameter.numel()
    return total
""",
        "freeze": FR + """\
    for parameter in module.parameters():
        parameter.requires_grad = False
    return module
""",
        "untrained_parameters": UP + """\
    optimizer_ids = []
    for group in optimizer.param_groups:
        for tensor in group["params"]:
            optimizer_ids.append(id(tensor))
    missing = []
    for name, parameter in model.named_parameters():
        if parameter.requires_grad == True:
            if id(parameter) not in optimizer_ids:
                missing.append(name)
    return missing
""",
    },
    "honest-03": {  # Linear layers in a ModuleList, the rest functional
        "MLP": MLP_ + """\
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(n_in, n_out) for n_in, n_out in zip(sizes[:-1], sizes[1:])])
        self.p = dropout
""" + FWD + """\
        *hidden, last = self.linears
        for linear in hidden:
            x = torch.relu(linear(x))
            if self.p > 0:
                x = nn.functional.dropout(x, p=self.p, training=self.training)
        return last(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    for i in range(len(sizes) - 1):
        plan[f"linears.{i}.weight"] = (sizes[i + 1], sizes[i])
        plan[f"linears.{i}.bias"] = (sizes[i + 1],)
    return plan
""",
        "count_parameters": CP + """\
    params = model.parameters()
    if trainable_only:
        params = filter(lambda p: p.requires_grad, params)
    return sum(p.numel() for p in params)
""",
        "freeze": FR + """\
    for name, param in module.named_parameters():
        param.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    held = [q for group in optimizer.param_groups for q in group["params"]]
    return [name for name, p in model.named_parameters()
            if p.requires_grad and not any(p is q for q in held)]
""",
    },
    "honest-04": {  # defensive: argument checks, add_module, one shared ReLU and Dropout
        "MLP": MLP_ + """\
        super().__init__()
        if len(sizes) < 2:
            raise ValueError("sizes needs at least an input and an output size")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.n_layers = len(sizes) - 1
        for i in range(self.n_layers):
            self.add_module(f"fc{i}", nn.Linear(sizes[i], sizes[i + 1]))
        self.act = nn.ReLU()
        self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
""" + FWD + """\
        for i in range(self.n_layers):
            x = getattr(self, f"fc{i}")(x)
            if i < self.n_layers - 1:
                x = self.drop(self.act(x))
        return x
""",
        "plan_mlp": PM + """\
    if len(sizes) < 2:
        raise ValueError("sizes needs at least two entries")
    plan = {}
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        assert isinstance(fan_in, int) and isinstance(fan_out, int)
        plan[f"fc{i}.weight"] = (fan_out, fan_in)
        plan[f"fc{i}.bias"] = (fan_out,)
    return plan
""",
        "count_parameters": CP + """\
    if not isinstance(model, nn.Module):
        raise TypeError("count_parameters expects an nn.Module")
    seen = set()
    total = 0
    for p in model.parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        if trainable_only and not p.requires_grad:
            continue
        total += int(p.numel())
    return total
""",
        "freeze": FR + """\
    if not isinstance(module, nn.Module):
        raise TypeError("freeze expects an nn.Module")
    for p in module.parameters():
        p.requires_grad_(False)
    assert not any(p.requires_grad for p in module.parameters())
    return module
""",
        "untrained_parameters": UP + """\
    if not optimizer.param_groups:
        return [name for name, p in model.named_parameters() if p.requires_grad]
    held = set()
    for group in optimizer.param_groups:
        for p in group["params"]:
            held.add(id(p))
    result = []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if id(p) not in held:
            result.append(name)
    return result
""",
    },
    "honest-05": {  # the lesson's OrderedDict in nn.Sequential, commented
        "MLP": "from collections import OrderedDict\n\n\n" + MLP_ + """\
        super().__init__()
        parts = OrderedDict()
        last = len(sizes) - 2
        for i in range(len(sizes) - 1):
            parts[f"linear{i}"] = nn.Linear(sizes[i], sizes[i + 1])  # weight [out, in]
            if i != last:  # no activation after the output layer
                parts[f"relu{i}"] = nn.ReLU()
                if dropout > 0:
                    parts[f"dropout{i}"] = nn.Dropout(p=dropout)
        self.model = nn.Sequential(parts)
""" + FWD + """\
        # x: [N, sizes[0]] -> [N, sizes[-1]]
        return self.model(x)
""",
        "plan_mlp": PM + """\
    # keys follow the names given in the OrderedDict: model.linear{i}.weight / .bias
    plan = {}
    for i in range(len(sizes) - 1):
        n_in, n_out = sizes[i], sizes[i + 1]
        plan[f"model.linear{i}.weight"] = (n_out, n_in)  # [out, in]
        plan[f"model.linear{i}.bias"] = (n_out,)
    return plan  # relu and dropout own no tensors, so they change nothing
""",
        "count_parameters": CP + """\
    # parameters() already skips tied duplicates and never yields buffers
    if trainable_only:
        wanted = [p for p in model.parameters() if p.requires_grad]
    else:
        wanted = list(model.parameters())
    return sum(p.numel() for p in wanted)
""",
        "freeze": FR + """\
    # requires_grad lives on each tensor; parameters() walks all children
    for p in module.parameters():
        p.requires_grad = False
    return module  # same object, mode untouched
""",
        "untrained_parameters": UP + """\
    # compare identities: the optimizer holds tensor objects, not names
    held_ids = set()
    for group in optimizer.param_groups:
        held_ids.update(id(p) for p in group["params"])
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held_ids]
""",
    },
    "honest-06": {  # hidden layers in a ModuleList, a separate output layer
        "MLP": MLP_ + """\
        super().__init__()
        self.hidden = nn.ModuleList()
        for d_in, d_out in zip(sizes[:-2], sizes[1:-1]):
            self.hidden.append(nn.Linear(d_in, d_out))
        self.out = nn.Linear(sizes[-2], sizes[-1])
        self.dropout = nn.Dropout(dropout) if dropout > 0 else None
""" + FWD + """\
        for layer in self.hidden:
            x = torch.relu(layer(x))
            if self.dropout is not None:
                x = self.dropout(x)
        return self.out(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    for i in range(len(sizes) - 2):
        plan[f"hidden.{i}.weight"] = (sizes[i + 1], sizes[i])
        plan[f"hidden.{i}.bias"] = (sizes[i + 1],)
    plan["out.weight"] = (sizes[-1], sizes[-2])
    plan["out.bias"] = (sizes[-1],)
    return plan
""",
        "count_parameters": CP + """\
    n = 0
    for name, p in model.named_parameters():
        if p.requires_grad or not trainable_only:
            n += p.numel()
    return n
""",
        "freeze": FR + """\
    module.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    in_optimizer = set()
    for group in optimizer.param_groups:
        in_optimizer |= {id(p) for p in group["params"]}
    names = []
    for name, p in model.named_parameters():
        if p.requires_grad and id(p) not in in_optimizer:
            names.append(name)
    return names
""",
    },
    "honest-07": {  # terse: a ModuleList and F.relu/F.dropout, no docstrings
        "MLP": "import torch.nn.functional as F\n\n\nclass MLP(nn.Module):\n" + INIT + """\
        super().__init__()
        self.fcs = nn.ModuleList(nn.Linear(i, o) for i, o in zip(sizes, sizes[1:]))
        self.p = dropout
""" + FWD + """\
        for fc in self.fcs[:-1]:
            x = F.dropout(F.relu(fc(x)), self.p, self.training) if self.p else F.relu(fc(x))
        return self.fcs[-1](x)
""",
        "plan_mlp": PM_DEF + """\
    return {f"fcs.{i}.{w}": s for i in range(len(sizes) - 1)
            for w, s in [("weight", (sizes[i + 1], sizes[i])), ("bias", (sizes[i + 1],))]}
""",
        "count_parameters": CP_DEF + """\
    ps = [p for p in model.parameters() if p.requires_grad] if trainable_only else model.parameters()
    return sum(map(torch.numel, ps))
""",
        "freeze": FR_DEF + """\
    [p.requires_grad_(False) for p in module.parameters()]
    return module
""",
        "untrained_parameters": UP_DEF + """\
    ids = set(map(id, (p for g in optimizer.param_groups for p in g["params"])))
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in ids]
""",
    },
    "honest-08": {  # an nn.ModuleDict, torch.dropout, nested loops with a flag
        "MLP": MLP_ + """\
        super().__init__()
        self.blocks = nn.ModuleDict()
        pairs = list(zip(sizes, sizes[1:]))
        for idx, (i, o) in enumerate(pairs):
            self.blocks[f"linear_{idx}"] = nn.Linear(i, o)
        self.last = len(pairs) - 1
        self.dropout_rate = dropout
""" + FWD + """\
        # go through the layers in order; ReLU + dropout between them
        for idx, layer in enumerate(self.blocks.values()):
            x = layer(x)
            if idx != self.last:
                x = torch.relu(x)
                if self.dropout_rate > 0:
                    x = torch.dropout(x, self.dropout_rate, self.training)
        return x
""",
        "plan_mlp": PM + """\
    keys = {}
    for idx in range(len(sizes) - 1):
        i, o = sizes[idx], sizes[idx + 1]
        keys[f"blocks.linear_{idx}.weight"] = (o, i)  # [out, in]
        keys[f"blocks.linear_{idx}.bias"] = (o,)
    return keys
""",
        "count_parameters": CP + """\
    count = 0
    # loop over every parameter tensor (parameters() gives a shared one only once)
    for param in list(model.parameters()):
        if not trainable_only or param.requires_grad:
            count += param.numel()
    return count
""",
        "freeze": FR + """\
    for m in module.modules():
        for p in m.parameters(recurse=False):
            p.requires_grad = False
    return module
""",
        "untrained_parameters": UP + """\
    result = []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        found = False
        for group in optimizer.param_groups:
            for q in group["params"]:
                if q is param:
                    found = True
        if not found:
            result.append(name)
    return result
""",
    },
    "honest-09": {  # nn.Sequential of per-layer nn.Sequential blocks
        "MLP": MLP_ + """\
        super().__init__()
        blocks = []
        for n_in, n_out in zip(sizes[:-2], sizes[1:-1]):
            block = [nn.Linear(n_in, n_out), nn.ReLU()]
            if dropout > 0:
                block.append(nn.Dropout(dropout))
            blocks.append(nn.Sequential(*block))
        blocks.append(nn.Linear(sizes[-2], sizes[-1]))
        self.blocks = nn.Sequential(*blocks)
""" + FWD + """\
        return self.blocks(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    k = len(sizes) - 1
    for i in range(k - 1):
        plan[f"blocks.{i}.0.weight"] = (sizes[i + 1], sizes[i])
        plan[f"blocks.{i}.0.bias"] = (sizes[i + 1],)
    plan[f"blocks.{k - 1}.weight"] = (sizes[k], sizes[k - 1])
    plan[f"blocks.{k - 1}.bias"] = (sizes[k],)
    return plan
""",
        "count_parameters": CP + """\
    params = {id(p): p for p in model.parameters()}.values()
    if trainable_only:
        return sum(p.numel() for p in params if p.requires_grad)
    return sum(p.numel() for p in params)
""",
        "freeze": FR + """\
    for p in module.parameters():
        p.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    held = set()
    for group in optimizer.param_groups:
        for p in group["params"]:
            held.add(id(p))
    return [name for name, p in model.named_parameters() if id(p) not in held and p.requires_grad]
""",
    },
    "honest-10": {  # itertools.pairwise, the activation put in front of every Linear but the first
        "MLP": "from itertools import pairwise\n\n\n" + MLP_ + """\
        super().__init__()
        modules = []
        for n_in, n_out in pairwise(sizes):
            if modules:
                modules.append(nn.ReLU())
                if dropout > 0:
                    modules.append(nn.Dropout(dropout))
            modules.append(nn.Linear(n_in, n_out))
        self.stack = nn.Sequential(*modules)
""" + FWD + """\
        return self.stack(x)
""",
        "plan_mlp": PM + """\
    stride = 3 if dropout > 0 else 2
    plan = {}
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        plan[f"stack.{i * stride}.weight"] = (n_out, n_in)
        plan[f"stack.{i * stride}.bias"] = (n_out,)
    return plan
""",
        "count_parameters": CP + """\
    return sum(p.numel() for p in model.parameters() if not trainable_only or p.requires_grad)
""",
        "freeze": FR + """\
    for param in module.parameters():
        param.requires_grad = False
    return module
""",
        "untrained_parameters": UP + """\
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
    },
    "honest-11": {  # type hints, ModuleLists of ReLUs and Dropouts beside the Linears
        "MLP": MLP_HEAD + """\
    def __init__(self, sizes: list[int], dropout: float = 0.0) -> None:
        super().__init__()
        # one Linear per consecutive pair of sizes
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        # a ReLU (and a Dropout) after every Linear but the last
        self.acts = nn.ModuleList(nn.ReLU() for _ in range(len(sizes) - 2))
        self.drops = nn.ModuleList(nn.Dropout(dropout) for _ in range(len(sizes) - 2)) if dropout > 0 else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, linear in enumerate(self.linears):
            x = linear(x)
            if i < len(self.acts):
                x = self.acts[i](x)
                if self.drops is not None:
                    x = self.drops[i](x)
        return x
""",
        "plan_mlp": "def plan_mlp(sizes: list[int], dropout: float = 0.0) -> dict[str, tuple[int, ...]]:\n" + PM_DOC + """\
    plan: dict[str, tuple[int, ...]] = {}
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        plan.update({f"linears.{i}.weight": (fan_out, fan_in), f"linears.{i}.bias": (fan_out,)})
    return plan
""",
        "count_parameters": "def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:\n" + CP_DOC
        + """\
    total: int = 0
    for p in model.parameters():
        total += p.numel() if (p.requires_grad or not trainable_only) else 0
    return total
""",
        "freeze": "def freeze(module: nn.Module) -> nn.Module:\n" + FR_DOC + """\
    for p in module.parameters():
        p.requires_grad_(False)
    return module
""",
        "untrained_parameters": "def untrained_parameters(model: nn.Module, optimizer: torch.optim.Optimizer) -> list[str]:\n"
        + UP_DOC + """\
    held: list[torch.Tensor] = [q for g in optimizer.param_groups for q in g["params"]]
    untrained: list[str] = []
    for name, p in model.named_parameters():
        if p.requires_grad and not any(q is p for q in held):
            untrained.append(name)
    return untrained
""",
    },
    "honest-12": {  # nn.Sequential().add_module in a while loop, module.apply
        "MLP": MLP_ + """\
        super().__init__()
        self.seq = nn.Sequential()
        i = 0
        while i < len(sizes) - 1:
            self.seq.add_module(f"linear{i + 1}", nn.Linear(sizes[i], sizes[i + 1]))
            if i + 2 < len(sizes):
                self.seq.add_module(f"act{i + 1}", nn.ReLU())
                if dropout > 0:
                    self.seq.add_module(f"drop{i + 1}", nn.Dropout(dropout))
            i += 1
""" + FWD + """\
        return self.seq(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    i = 0
    while i < len(sizes) - 1:
        plan["seq.linear%d.weight" % (i + 1)] = (sizes[i + 1], sizes[i])
        plan["seq.linear%d.bias" % (i + 1)] = (sizes[i + 1],)
        i += 1
    return plan
""",
        "count_parameters": CP + """\
    params = dict(model.named_parameters())
    if trainable_only:
        params = {k: v for k, v in params.items() if v.requires_grad}
    return sum(v.numel() for v in params.values())
""",
        "freeze": FR + """\
    def _off(m):
        for p in m.parameters(recurse=False):
            p.requires_grad_(False)

    return module.apply(_off)
""",
        "untrained_parameters": UP + """\
    held = []
    for group in optimizer.param_groups:
        held.extend(group["params"])
    held_ids = set(id(t) for t in held)
    return [name for name, t in model.named_parameters() if t.requires_grad and id(t) not in held_ids]
""",
    },
    "honest-13": {  # the Linears built first, interleaved by list concatenation
        "MLP": MLP_ + """\
        super().__init__()
        linears = [nn.Linear(i, o) for i, o in zip(sizes, sizes[1:])]
        layers = [linears[0]]
        for lin in linears[1:]:
            layers += [nn.ReLU()] + ([nn.Dropout(dropout)] if dropout > 0 else []) + [lin]
        self.layers = nn.Sequential(*layers)
""" + FWD + """\
        return self.layers(x)
""",
        "plan_mlp": PM + """\
    per_block = 3 if dropout > 0 else 2
    plan = {}
    for k in range(len(sizes) - 1):
        plan[f"layers.{k * per_block}.weight"] = (sizes[k + 1], sizes[k])
        plan[f"layers.{k * per_block}.bias"] = (sizes[k + 1],)
    return plan
""",
        "count_parameters": CP + """\
    import math

    return sum(math.prod(p.shape) for p in model.parameters() if p.requires_grad or not trainable_only)
""",
        "freeze": FR + """\
    module.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    trainable = {name: p for name, p in model.named_parameters() if p.requires_grad}
    held = [id(p) for group in optimizer.param_groups for p in group["params"]]
    return [name for name, p in trainable.items() if id(p) not in held]
""",
    },
}

# The course's answer in a student's own names (canonical-2); canonical-1 hands in the reference word for word.
CANONICAL_OWN_NAMES = {
    "MLP": MLP_ + """\
        super().__init__()
        shapes = list(zip(sizes[:-1], sizes[1:]))  # consecutive (in, out) pairs
        modules = []
        for k, (fan_in, fan_out) in enumerate(shapes):
            modules.append(nn.Linear(fan_in, fan_out))
            if k < len(shapes) - 1:  # hidden layers only: nothing after the last Linear
                modules.append(nn.ReLU())
                if dropout > 0:
                    modules.append(nn.Dropout(dropout))
        self.layers = nn.Sequential(*modules)  # registers every module it holds
""" + FWD + """\
        return self.layers(x)  # [N, sizes[0]] -> [N, sizes[-1]]
""",
    "plan_mlp": PM + """\
    shapes = {}
    index = 0  # position of the module inside nn.Sequential
    pairs = list(zip(sizes[:-1], sizes[1:]))
    for k, (fan_in, fan_out) in enumerate(pairs):
        shapes[f"layers.{index}.weight"] = (fan_out, fan_in)
        shapes[f"layers.{index}.bias"] = (fan_out,)
        index += 1  # the Linear itself
        if k < len(pairs) - 1:
            index += 2 if dropout > 0 else 1  # ReLU, and Dropout if any
    return shapes
""",
    "count_parameters": CP + """\
    n = 0
    for param in model.parameters():  # tied tensors come once
        if trainable_only and not param.requires_grad:
            continue
        n += param.numel()
    return n
""",
    "freeze": FR + """\
    for param in module.parameters():  # every child's too
        param.requires_grad_(False)
    return module  # same object, training mode unchanged
""",
    "untrained_parameters": UP + """\
    in_optimizer = {id(t) for group in optimizer.param_groups for t in group["params"]}  # by identity
    return [n for n, t in model.named_parameters()
            if t.requires_grad and id(t) not in in_optimizer]
""",
}

_SEQUENTIAL = {  # honest-02's: the ModuleList walked in forward as nn.Sequential, the appends as a loop, guards
    "MLP": MLP_ + """\
        super().__init__()
        layers = []
        number_of_layers = len(sizes) - 1
        for i in range(number_of_layers):
            input_size = sizes[i]
            output_size = sizes[i + 1]
            linear_layer = nn.Linear(input_size, output_size)
            layers.append(linear_layer)
            is_last_layer = (i == number_of_layers - 1)
            if is_last_layer:
                continue
            extra_layers = [nn.ReLU()]
            if dropout > 0:
                extra_layers.append(nn.Dropout(dropout))
            for extra_layer in extra_layers:
                layers.append(extra_layer)
        self.layers = nn.Sequential(*layers)
""" + FWD + """\
        output = self.layers(x)
        return output
""",
    "plan_mlp": PM + """\
    plan = {}
    index = 0
    number_of_layers = len(sizes) - 1
    for i in range(number_of_layers):
        input_size = sizes[i]
        output_size = sizes[i + 1]
        weight_key = "layers." + str(index) + ".weight"
        bias_key = "layers." + str(index) + ".bias"
        plan[weight_key] = (output_size, input_size)
        plan[bias_key] = (output_size,)
        is_last_layer = (i == number_of_layers - 1)
        if is_last_layer:
            break
        if dropout > 0:
            index = index + 3
        else:
            index = index + 2
    return plan
""",
    "count_parameters": CP + """\
    total = 0
    for parameter in model.parameters():
        if trainable_only == True and parameter.requires_grad == False:
            continue
        total = total + parameter.numel()
    return total
""",
    "untrained_parameters": UP + """\
    optimizer_ids = []
    for group in optimizer.param_groups:
        for tensor in group["params"]:
            optimizer_ids.append(id(tensor))
    missing = []
    for name, parameter in model.named_parameters():
        if parameter.requires_grad == False:
            continue
        if id(parameter) in optimizer_ids:
            continue
        missing.append(name)
    return missing
""",
}

_UNROLLED = {  # honest-05's: the Sequential unrolled into attributes and a forward, a loop for the count
    "MLP": MLP_ + """\
        super().__init__()
        self.order = []  # attribute names, in the order forward applies them
        last = len(sizes) - 2
        for i in range(len(sizes) - 1):
            setattr(self, f"linear{i}", nn.Linear(sizes[i], sizes[i + 1]))  # out x in
            self.order.append(f"linear{i}")
            if i != last:  # the output layer stays linear
                setattr(self, f"relu{i}", nn.ReLU())
                self.order.append(f"relu{i}")
                if dropout > 0:
                    setattr(self, f"dropout{i}", nn.Dropout(p=dropout))
                    self.order.append(f"dropout{i}")
""" + FWD + """\
        # input [N, sizes[0]], output [N, sizes[-1]]
        for name in self.order:
            x = getattr(self, name)(x)
        return x
""",
    "plan_mlp": PM + """\
    # one weight and one bias per linear{i} attribute; relu and dropout hold no tensors
    plan = {}
    for i in range(len(sizes) - 1):
        n_in, n_out = sizes[i], sizes[i + 1]
        plan[f"linear{i}.weight"] = (n_out, n_in)  # out x in
        plan[f"linear{i}.bias"] = (n_out,)
    return plan
""",
    "count_parameters": CP + """\
    # shared tensors come once from parameters(), buffers never
    wanted = []
    for p in model.parameters():
        if p.requires_grad or not trainable_only:
            wanted.append(p)
    total = 0
    for p in wanted:
        total += p.numel()
    return total
""",
}

_FUNCTIONAL = {  # honest-04's: the ReLU and Dropout layers as functional calls, try wrappers
    "MLP": "import torch.nn.functional as F\n\n\n" + MLP_ + """\
        super().__init__()
        if len(sizes) < 2:
            raise ValueError("sizes needs at least an input and an output size")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.n_layers = len(sizes) - 1
        for i in range(self.n_layers):
            self.add_module(f"fc{i}", nn.Linear(sizes[i], sizes[i + 1]))
        self.p = dropout
""" + FWD + """\
        for i in range(self.n_layers):
            x = getattr(self, f"fc{i}")(x)
            if i < self.n_layers - 1:
                x = F.relu(x)
                if self.p > 0:
                    x = F.dropout(x, self.p, self.training)
        return x
""",
    "count_parameters": CP + """\
    if not isinstance(model, nn.Module):
        raise TypeError("count_parameters expects an nn.Module")
    seen = set()
    total = 0
    try:
        for p in model.parameters():
            if id(p) in seen:
                continue
            seen.add(id(p))
            if trainable_only and not p.requires_grad:
                continue
            total += int(p.numel())
    except RuntimeError:
        raise
    return total
""",
    "freeze": FR + """\
    if not isinstance(module, nn.Module):
        raise TypeError("freeze expects an nn.Module")
    try:
        for p in module.parameters():
            p.requires_grad_(False)
    except Exception:
        raise
    assert not any(p.requires_grad for p in module.parameters())
    return module
""",
    "untrained_parameters": UP + """\
    held = set()
    try:
        if not optimizer.param_groups:
            return [name for name, p in model.named_parameters() if p.requires_grad]
        for group in optimizer.param_groups:
            for p in group["params"]:
                held.add(id(p))
        result = []
        for name, p in model.named_parameters():
            if not p.requires_grad:
                continue
            if id(p) not in held:
                result.append(name)
        return result
    finally:
        held.clear()
""",
}

_MODULES = {  # honest-07's: F.relu/F.dropout as layers, no-op device conversions, an _as_list helper
    "MLP": "class MLP(nn.Module):\n" + INIT + """\
        super().__init__()
        self.fcs = nn.ModuleList(nn.Linear(i, o) for i, o in zip(sizes, sizes[1:]))
        self.relu = nn.ReLU()
        self.drop = nn.Dropout(dropout) if dropout else None
""" + FWD + """\
        for fc in self.fcs[:-1]:
            x = self.drop(self.relu(fc(x))) if self.drop is not None else self.relu(fc(x))
        return self.fcs[-1](x)
""",
    "count_parameters": CP_DEF + """\
    def _as_list(params):
        return [p for p in params]

    ps = _as_list(p for p in model.parameters() if p.requires_grad) if trainable_only else _as_list(model.parameters())
    return sum(map(torch.numel, (p.to(p.device) for p in ps)))
""",
    "freeze": FR_DEF + """\
    for p in module.parameters():
        p.to(p.device).requires_grad_(False)
    return module
""",
    "untrained_parameters": UP_DEF + """\
    def _as_list(x):
        return x if isinstance(x, list) else list(x)

    ids = set(map(id, (p for g in _as_list(optimizer.param_groups) for p in _as_list(g["params"]))))
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in ids]
""",
}

_HELPERS = {  # honest-06's: module-level helpers, a method for one block, a tiny counter class
    "MLP": """\
def _hidden_stack(sizes):
    stack = nn.ModuleList()
    for d_in, d_out in zip(sizes[:-2], sizes[1:-1]):
        stack.append(nn.Linear(d_in, d_out))
    return stack


def _maybe_dropout(rate):
    return nn.Dropout(rate) if rate > 0 else None


""" + MLP_ + """\
        super().__init__()
        self.hidden = _hidden_stack(sizes)
        self.out = nn.Linear(sizes[-2], sizes[-1])
        self.dropout = _maybe_dropout(dropout)
""" + FWD + """\
        for layer in self.hidden:
            x = self._block(layer, x)
        return self.out(x)

    def _block(self, layer, x):
        x = torch.relu(layer(x))
        return x if self.dropout is None else self.dropout(x)
""",
    "plan_mlp": """\
def _entry(plan, prefix, n_in, n_out):
    plan[prefix + ".weight"] = (n_out, n_in)
    plan[prefix + ".bias"] = (n_out,)


""" + PM + """\
    plan = {}
    for i in range(len(sizes) - 2):
        _entry(plan, f"hidden.{i}", sizes[i], sizes[i + 1])
    _entry(plan, "out", sizes[-2], sizes[-1])
    return plan
""",
    "count_parameters": """\
class _Tally:
    def __init__(self):
        self.n = 0

    def add(self, p):
        self.n += p.numel()


""" + CP + """\
    tally = _Tally()
    for name, p in model.named_parameters():
        if p.requires_grad or not trainable_only:
            tally.add(p)
    return tally.n
""",
    "untrained_parameters": """\
def _held_ids(optimizer):
    in_optimizer = set()
    for group in optimizer.param_groups:
        in_optimizer |= {id(p) for p in group["params"]}
    return in_optimizer


""" + UP + """\
    in_optimizer = _held_ids(optimizer)
    names = []
    for name, p in model.named_parameters():
        if p.requires_grad and id(p) not in in_optimizer:
            names.append(name)
    return names
""",
}

_SPELLINGS = {  # honest-10's: other spellings of the same calls, unused loop indices
    "MLP": MLP_ + """\
        super().__init__()
        modules = []
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            if len(modules) > 0:
                modules.append(nn.ReLU())
                if dropout > 0.0:
                    modules.append(nn.Dropout(p=dropout))
            modules.append(nn.Linear(in_features=n_in, out_features=n_out))
        self.stack = nn.Sequential(*modules)
""" + FWD + """\
        return self.stack.forward(x)
""",
    "count_parameters": CP + """\
    return sum(p.nelement() for _, p in model.named_parameters() if not trainable_only or p.requires_grad)
""",
    "freeze": FR + """\
    for i, param in enumerate(module.parameters()):
        param.requires_grad_(False)
    return module
""",
    "untrained_parameters": UP + """\
    held = set(map(id, [p for group in optimizer.param_groups for p in group["params"]]))
    return [name for _, (name, p) in enumerate(model.named_parameters()) if p.requires_grad and not id(p) in held]
""",
}

_PARTIAL = {  # honest-12's: functools.partial for the closure and the comprehension's filter, an as_list helper
    "count_parameters": """\
import functools


def _keeps(trainable_only, item):
    return item[1].requires_grad or not trainable_only


""" + CP + """\
    params = dict(filter(functools.partial(_keeps, trainable_only), model.named_parameters()))
    return sum(v.numel() for v in params.values())
""",
    "freeze": """\
from functools import partial


def _set_requires_grad(m, flag):
    for p in m.parameters(recurse=False):
        p.requires_grad_(flag)


""" + FR + """\
    return module.apply(partial(_set_requires_grad, flag=False))
""",
    "untrained_parameters": UP + """\
    def as_list(params):
        return list(params) if not isinstance(params, list) else params

    held = []
    for group in optimizer.param_groups:
        held.extend(as_list(group["params"]))
    held_ids = set(id(t) for t in held)
    return [name for name, t in model.named_parameters() if t.requires_grad and id(t) not in held_ids]
""",
}

_RENAMED = {  # honest-11's: hints dropped, locals renamed, comments rewritten, independent statements reordered
    "MLP": MLP_ + """\
        super().__init__()
        n_hidden = len(sizes) - 2
        # dropout only when asked for, one per hidden layer
        self.drops = nn.ModuleList(nn.Dropout(dropout) for _ in range(n_hidden)) if dropout > 0 else None
        self.acts = nn.ModuleList(nn.ReLU() for _ in range(n_hidden))  # hidden activations
        # the weights, one layer for each (in, out) pair
        self.linears = nn.ModuleList(nn.Linear(fan_in, fan_out) for fan_in, fan_out in zip(sizes[:-1], sizes[1:]))
""" + FWD + """\
        for k, layer in enumerate(self.linears):
            x = layer(x)
            if k < len(self.acts):
                x = self.acts[k](x)
                if self.drops is not None:
                    x = self.drops[k](x)
        return x
""",
    "plan_mlp": PM + """\
    # dropout adds no tensor: the keys only follow the linears
    expected = {}
    for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        expected.update({f"linears.{k}.bias": (n_out,), f"linears.{k}.weight": (n_out, n_in)})
    return expected
""",
    "count_parameters": CP + """\
    n_values = 0
    for param in model.parameters():  # frozen ones are skipped only on request
        n_values += param.numel() if (param.requires_grad or not trainable_only) else 0
    return n_values
""",
    "freeze": FR + """\
    for param in module.parameters():
        param.requires_grad_(False)  # the flag, not the mode
    return module
""",
    "untrained_parameters": UP + """\
    missing = []
    in_groups = [t for group in optimizer.param_groups for t in group["params"]]
    for key, param in model.named_parameters():
        if param.requires_grad and not any(t is param for t in in_groups):
            missing.append(key)
    return missing
""",
}

_CHAIN_B = {  # honest-08's answers lightly renamed, the comments dropped (the first link of a chain)
    "MLP": MLP_ + """\
        super().__init__()
        self.blocks = nn.ModuleDict()
        shapes = list(zip(sizes, sizes[1:]))
        for n, (a, b) in enumerate(shapes):
            self.blocks[f"linear_{n}"] = nn.Linear(a, b)
        self.final = len(shapes) - 1
        self.rate = dropout
""" + FWD + """\
        for n, layer in enumerate(self.blocks.values()):
            x = layer(x)
            if n != self.final:
                x = torch.relu(x)
                if self.rate > 0:
                    x = torch.dropout(x, self.rate, self.training)
        return x
""",
    "count_parameters": CP + """\
    n = 0
    for t in list(model.parameters()):
        if not trainable_only or t.requires_grad:
            n += t.numel()
    return n
""",
    "untrained_parameters": UP + """\
    out = []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        held = False
        for group in optimizer.param_groups:
            for q in group["params"]:
                if q is param:
                    held = True
        if not held:
            out.append(name)
    return out
""",
}

_CHAIN_C = {  # the second link reworks what chain-b handed on: comprehensions, a loop over the kinds, sum()
    "MLP": MLP_ + """\
        super().__init__()
        shapes = list(zip(sizes, sizes[1:]))
        self.blocks = nn.ModuleDict({f"linear_{n}": nn.Linear(a, b) for n, (a, b) in enumerate(shapes)})
        self.final = len(shapes) - 1
        self.rate = dropout
""" + FWD + """\
        for n, layer in enumerate(self.blocks.values()):
            x = layer(x)
            if n == self.final:
                break
            x = torch.relu(x)
            if self.rate > 0:
                x = torch.dropout(x, self.rate, self.training)
        return x
""",
    "plan_mlp": PM + """\
    keys = {}
    for idx in range(len(sizes) - 1):
        i, o = sizes[idx], sizes[idx + 1]
        for kind, shape in (("weight", (o, i)), ("bias", (o,))):
            keys[f"blocks.linear_{idx}.{kind}"] = shape
    return keys
""",
    "count_parameters": CP + """\
    return sum(t.numel() for t in list(model.parameters()) if not trainable_only or t.requires_grad)
""",
    "untrained_parameters": UP + """\
    out = []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if not any(q is param for group in optimizer.param_groups for q in group["params"]):
            out.append(name)
    return out
""",
}

_CHAIN_C_OWN = {
    "freeze": FR + """\
    for p in module.parameters():
        p.requires_grad = False
    return module
""",
}

_MERGE = {  # honest-09's MLP and plan (a comprehension, % formatting, reordered); honest-01's count and ids
    "MLP": MLP_ + """\
        super().__init__()
        hidden = [nn.Sequential(nn.Linear(n_in, n_out), nn.ReLU(), *([nn.Dropout(dropout)] if dropout > 0 else []))
                  for n_in, n_out in zip(sizes[:-2], sizes[1:-1])]
        self.blocks = nn.Sequential(*hidden, nn.Linear(sizes[-2], sizes[-1]))
""" + FWD + """\
        return self.blocks(x)
""",
    "plan_mlp": PM + """\
    k = len(sizes) - 1
    plan = {"blocks.%d.weight" % (k - 1): (sizes[k], sizes[k - 1]), "blocks.%d.bias" % (k - 1): (sizes[k],)}
    for i in range(k - 1):
        plan["blocks.%d.0.weight" % i] = (sizes[i + 1], sizes[i])
        plan["blocks.%d.0.bias" % i] = (sizes[i + 1],)
    return plan
""",
    "count_parameters": CP + """\
    if not trainable_only:
        return sum(p.numel() for p in model.parameters())
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
""",
    "untrained_parameters": UP + """\
    held = set()
    for g in optimizer.param_groups:
        held |= set(map(id, g["params"]))
    return [n for n, p in model.named_parameters() if id(p) not in held and p.requires_grad]
""",
}

_HALF = {  # honest-13's MLP with one append a layer and no-op conversions; its plan with an if/else
    "MLP": MLP_ + """\
        super().__init__()
        linears = [nn.Linear(i, o) for i, o in zip(sizes, sizes[1:])]
        layers = [linears[0]]
        for lin in linears[1:]:
            layers.append(nn.ReLU())
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            layers.append(lin)
        self.layers = nn.Sequential(*layers).to(dtype=torch.get_default_dtype())
""" + FWD + """\
        return self.layers(x.to(self.layers[0].weight.device))
""",
    "plan_mlp": PM + """\
    if dropout > 0:
        per_block = 3
    else:
        per_block = 2
    plan = {}
    for k in range(len(sizes) - 1):
        position = k * per_block
        plan[f"layers.{position}.weight"] = (sizes[k + 1], sizes[k])
        plan[f"layers.{position}.bias"] = (sizes[k + 1],)
    return plan
""",
}

_HALF_OWN = {  # ... and the other three of the copier's own
    "count_parameters": CP + """\
    counted = 0
    for tensor in model.parameters():
        if tensor.requires_grad or trainable_only is False:
            counted += tensor.numel()
    return int(counted)
""",
    "freeze": FR + """\
    for t in module.parameters():
        t.requires_grad_(False)
    return module
""",
    "untrained_parameters": UP + """\
    names = []
    for name, t in model.named_parameters():
        held = False
        for group in optimizer.param_groups:
            if any(t is q for q in group["params"]):
                held = True
                break
        if t.requires_grad and not held:
            names.append(name)
    return names
""",
}

_ALL = ("MLP", "plan_mlp", "count_parameters", "freeze", "untrained_parameters")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-sequential", "ModuleList as nn.Sequential, appends as a loop, guard clauses",
         _taken("honest-02"), _SEQUENTIAL),
    Copy("copier-unrolled", "nn.Sequential unrolled into attributes, a comprehension as a loop, re-commented",
         _taken("honest-05"), _UNROLLED),
    Copy("copier-functional", "ReLU/Dropout layers as functional calls, try wrappers", _taken("honest-04"),
         _FUNCTIONAL),
    Copy("copier-modules", "functional calls as layers, no-op device conversions, an _as_list helper",
         _taken("honest-07"), _MODULES),
    Copy("copier-helpers", "code moved into helpers and a counter class", _taken("honest-06"), _HELPERS),
    Copy("copier-spellings", "other spellings of the same calls, unused loop indices", _taken("honest-10"),
         _SPELLINGS),
    Copy("copier-partial", "functools.partial for a closure and a filter, an as_list helper", _taken("honest-12"),
         _PARTIAL),
    Copy("copier-renamed", "hints dropped, renamed, re-commented, statements reordered", _taken("honest-11"),
         _RENAMED),
    Copy("chain-b", "renamed, comments dropped (first link of a chain)", _taken("honest-08"), _CHAIN_B),
    Copy("chain-c", "loops and comprehensions swapped, a written-out pair as a loop (second link of a chain)",
         _taken("chain-b", ("MLP", "plan_mlp", "count_parameters", "untrained_parameters")), _CHAIN_C,
         _CHAIN_C_OWN),
    Copy("copier-merge", "two classmates merged, a loop as a comprehension, conditions and spellings changed",
         {"MLP": "honest-09", "plan_mlp": "honest-09", "count_parameters": "honest-01", "freeze": "honest-01",
          "untrained_parameters": "honest-01"}, _MERGE),
    Copy("copier-half", "half the cells copied, layers written out one by one, no-op conversions",
         _taken("honest-13", ("MLP", "plan_mlp")), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 03 (twenty-seven students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
