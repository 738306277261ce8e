"""A planted cohort of module 03, its second, written apart from the normaliser and the detector.

The module's graded answers are ``MLP`` (an ``nn.Module`` of one ``nn.Linear`` per consecutive pair of ``sizes``,
ReLU and, when ``dropout > 0``, ``nn.Dropout(dropout)`` between them, nothing after the last), ``plan_mlp`` (the
``{state_dict key: shape}`` of the student's own ``MLP``, from the sizes alone, building nothing),
``count_parameters`` (parameter elements, tied tensors once, buffers never, only the trainable ones when asked),
``freeze`` (``requires_grad`` off on every parameter, children included, the mode left alone, the same module
returned) and ``untrained_parameters`` (the names of the trainable parameters that no param group holds, by
identity).

Seventeen honest students answer in their own styles:

- ``honest-01``: ``nn.Sequential`` from a list built by index (``self.net``), the plan's positions as
  ``i * step``, a one-line filtered ``sum`` of ``numel``, ``p.requires_grad = False``, a set of ids updated per group.
- ``honest-02``: an ``nn.ModuleList`` of the Linear layers only, ``torch.relu`` and ``F.dropout(...,
  training=self.training)`` in ``forward``; a nested dict comprehension for the plan, a list of trainable
  parameters, ``module.requires_grad_(False)``, nested loops with ``any(p is q ...)`` and ``break``.
- ``honest-03``: ``add_module`` with names (``linear{i}``, ``relu{i}``, ``dropout{i}``) and a ``forward`` over
  ``children()``; ``math.prod(p.shape)``, ``freeze`` recursing over the children, a set of ids filled by loops.
- ``honest-04``: an ``OrderedDict`` (``fc1``, ``relu1``, ``drop1``) in ``nn.Sequential`` (``self.model``), keys
  with ``%``; counting deduplicated by ``data_ptr``, ``named_parameters`` for freezing, ``itertools.chain`` of the
  groups' tensors.
- ``honest-05``: an ``nn.ModuleDict`` (``lin{i}``/``act{i}``/``drop{i}``) run through ``.values()``, keys by
  concatenation; counting over ``state_dict(keep_vars=True)`` keeping ``nn.Parameter`` by id, freezing through
  ``module.apply``, dict comprehensions of the held and the trainable tensors.
- ``honest-06``: an ``nn.ModuleList`` of hidden ``Sequential`` blocks and a separate ``out`` Linear
  (``hidden.{i}.0.weight``, ``out.weight``); ``named_parameters`` and ``nelement``, ``modules()`` with
  ``recurse=False``, ``any(p is q ...)`` over a flat list.
- ``honest-07``: a verbose beginner: ``setattr``/``getattr`` with ``"layer_" + str(i)``, one shared ReLU, the
  dropout ``None`` when unused, comments on every step, ``== True``/``== False``, the product of the shape by
  hand, flags in nested loops.
- ``honest-08``: terse one-liners: the layers from a flat comprehension cut at the end, the plan as one dict
  comprehension, ``return module.requires_grad_(False)``, a one-line set and list comprehension.
- ``honest-09``: type hints and docstrings on everything: ``linears``/``dropouts`` ``ModuleList``\\ s and one
  ``activation``, annotated temporaries, ``math.prod``.
- ``honest-10``: defensive: ``ValueError``/``TypeError`` checks on sizes, dropout, the input's features and the
  arguments' types, ``nn.Sequential().append``, ``named_parameters(remove_duplicate=False)`` deduplicated by id,
  asserts on the results.
- ``honest-11``: recursion: an ``MLP`` holding its first Linear, a ReLU, a Dropout or ``nn.Identity`` and the
  ``MLP`` of the remaining sizes (``rest.rest.linear.weight``), the plan recursive too, counting per module with
  ``recurse=False`` and a set, ``freeze`` recursing over ``named_children``.
- ``honest-12``: ``class MLP(nn.Sequential)`` with trailing layers popped in a ``while``, the plan from a list of
  layer descriptions enumerated, ``map``/``filter``/``torch.numel`` and a ``map`` of ``requires_grad_``.
- ``honest-13``: NumPy-minded: ``fcs`` in a ``ModuleList`` with a shared ReLU and a Dropout or ``nn.Identity``,
  ``*hidden, last = self.fcs``, ``str.format`` keys, ``int(np.prod(p.shape))`` and ``np.sum``.
- ``honest-14``: ``while`` loops everywhere: the layers, the plan's positions (``%`` keys), the count over a
  list by index, freezing by ``pop()``, the groups by index.
- ``honest-15``: small module-level helpers (a block of layers, a block's size, a Linear's entries, a filter, a
  freezer, the held ids, a predicate) composed by each answer; ``itertools.chain`` for the body.
- ``honest-16``: every Linear built first and the activations interleaved after, positions advanced by a step,
  a generator filter, ``named_parameters`` with ``_`` and ``any(p is q ...)`` in one comprehension.
- ``honest-17``: one ``ModuleList`` of every layer run in a loop, the positions counted up one module at a time,
  two separate summing loops, a guarded flag flip, the held tensors deleted from a dict of names.

Where the answer is short they converge as students do (``sum(p.numel() ...)``, ``for p in
module.parameters(): p.requires_grad_(False)``, a set of ``id``\\ s and a list comprehension).  Two write the
course's answer: ``canonical-1`` hands in the reference word for word, ``canonical-2`` in their own names.

Twenty-three copy, and disguise what they take:

- ``copier-rename`` (honest-03, all five): every local renamed, comments written in; the layers' registered
  names (the state_dict's keys) kept.
- ``copier-reorder`` (honest-10, four): independent statements reordered (the checks and a temporary before
  ``super().__init__()``, the counters, the set, the plan's position and dict), an ``and``'s operands swapped; the checks that raise keep
  their order; ``freeze`` left as taken.
- ``copier-helpers`` (honest-07, all five): code moved into methods and helper functions (a layer by index, its
  name, the dropout or ``None``, a hidden step, a Linear's shapes, a key, a tensor's size, a filter, the
  optimizer's tensors, a membership test).
- ``copier-inline`` (honest-15, four): the reverse: every helper inlined into the answer that called it; the count
  left as taken.
- ``copier-closure`` (honest-01, four): wrapped in closures and a small class (a nested hidden-block builder, an
  entry writer, a tally object, a freezer factory); ``untrained_parameters`` left as taken.
- ``copier-constants`` (honest-01, all five): the literals hoisted into module-level constants (the activation's
  class, the container's name, the layers per block, ``"weight"``/``"bias"``, the start of the sum, ``False``,
  ``"params"``).
- ``copier-loops`` (honest-12, all five): the functional style unrolled: the ``while``/``pop`` as a ``for`` loop of
  pops, ``enumerate`` as ``range(len(...))``, ``map`` and ``filter`` as ``for`` loops, ``torch.numel`` summed in a
  loop.
- ``copier-functional`` (honest-17, all five): the loops folded: a comprehension of the layers,
  ``functools.reduce`` for ``forward`` and the count, ``itertools.chain`` for the plan, ``filter`` and dict
  comprehensions.
- ``copier-while`` (honest-14, all five): every ``while`` loop as a ``for`` loop (the last one as ``reversed``).
- ``copier-negated`` (honest-02, three): conditions negated with their branches swapped (a ``continue`` guard, a
  conditional expression turned around, ``not all(... is not ...)``); the plan and ``freeze`` left as taken.
- ``copier-early`` (honest-11, all five): nested ``if``/``else`` turned into early returns, a conditional
  expression into ``if``/``else``, ``continue`` into nested ``if``\\ s and back.
- ``copier-spelling`` (honest-13, all five): equivalent PyTorch and Python spellings (``ModuleList.append``,
  keyword ``in_features``/``out_features``, ``inplace=False``, slicing for the star unpacking, ``"{0}"``, shapes by
  slicing, ``p.size()``, builtin ``sum``, ``p.requires_grad = False``, ``named_parameters(recurse=True)``,
  ``map(id, ...)``).
- ``copier-format`` (honest-04, three): ``%`` formatting as f-strings and ``str.format``, ``named_parameters``
  with ``_``; the count and the untrained names left as taken.
- ``copier-stripped`` (honest-09, all five): every type hint, docstring and comment removed.
- ``copier-deadcode`` (honest-08, all five): dead code: a debug flag with prints, asserts that always hold,
  unused shapes and counters.
- ``copier-args`` (honest-05, all five): the positional arguments renamed (``widths``, ``inputs``, ``net``,
  ``opt``, ``layer``) and the docstrings with them; ``dropout`` and ``trainable_only`` kept, since the checks pass
  them by keyword.
- ``copier-try`` (honest-06, all five): ``try``/``except`` wrappers that re-raise the same exception type with a
  message of their own.
- ``copier-order`` (honest-16, three): the layers constructed in another order with the same result (the first
  Linear alone, then each later one after the activations before it, where the source builds every Linear first),
  the plan's positions as ``i * step``, ``q is p``; the count and ``freeze`` left as taken.
- ``copier-modern`` (honest-02, four): newer syntax: star unpacking, an assignment expression, an annotated dict
  grown with ``|=``, ``match`` on the flags; ``freeze`` left as taken.
- ``chain-b`` (honest-17, all five) renames everything and adds comments; ``chain-c`` (chain-b, all five)
  introduces and removes temporaries (the positions' step named, ``h`` and the last-layer flag dropped, the held
  ids as a set), ``nelement`` for ``numel``, the two summing loops as one.
- ``copier-merge`` takes ``MLP`` and ``plan_mlp`` from honest-04 (the names built by concatenation) and the other
  three from honest-13 (``np.prod`` as ``math.prod``, ``np.sum`` as ``sum``; ``freeze`` as taken; the held ids
  as a set).
- ``copier-half`` takes ``count_parameters`` and ``untrained_parameters`` from honest-05 (the state_dict loop as a
  dict comprehension, the held dict as a set) and writes the other three alone (an ``add_module``-named trunk and a
  head, ``requires_grad_(requires_grad=False)``).

Every answer passes the module's checks, visible and hidden, and every copied answer does what its source does
on :mod:`.planted_run`'s inputs.  The truth follows from where each answer came from
(:func:`.planted.assemble`); ``python -m autograder.dev.planted_03x`` prints the measures.
"""

from __future__ import annotations

import sys

from .planted import Copy, Planted, assemble, print_measures

MODULE = "03-nn-module"

# the stubs' lines, as the release hands them out
MLP_DEF = "class MLP(nn.Module):\n"
MLP_DOC = '    """Linear layers between consecutive `sizes`; ReLU (then Dropout if dropout > 0) between them."""\n'
MLP = MLP_DEF + MLP_DOC + "\n"
PM_DEF = "def plan_mlp(sizes, dropout=0.0):\n"
PM = PM_DEF + '    """{state_dict key: shape} of MLP(sizes, dropout), from the sizes alone."""\n'
CP_DEF = "def count_parameters(model, trainable_only=False):\n"
CP = CP_DEF + ('    """Number of parameter elements in `model` (tied tensors once; only requires_grad ones if '
               'trainable_only)."""\n')
FR_DEF = "def freeze(module):\n"
FR = FR_DEF + '    """Turn off requires_grad on every parameter of `module`, children included; return `module`."""\n'
UP_DEF = "def untrained_parameters(model, optimizer):\n"
UP = UP_DEF + ('    """Names of `model`\'s trainable parameters that no param group of `optimizer` holds (by '
               'identity)."""\n')

HONEST: dict[str, dict[str, str]] = {
    "honest-01": {  # nn.Sequential from a list built by index
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:  # a hidden layer
                layers.append(nn.ReLU())
                if dropout > 0:
                    layers.append(nn.Dropout(dropout))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
""",
        "plan_mlp": PM + """\
    step = 3 if dropout > 0 else 2  # Linear, ReLU (, Dropout)
    plan = {}
    for i in range(len(sizes) - 1):
        plan[f"net.{i * step}.weight"] = (sizes[i + 1], sizes[i])
        plan[f"net.{i * step}.bias"] = (sizes[i + 1],)
    return plan
""",
        "count_parameters": CP + """\
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)
""",
        "freeze": FR + """\
    for p in module.parameters():
        p.requires_grad = False
    return module
""",
        "untrained_parameters": UP + """\
    in_optimizer = set()
    for group in optimizer.param_groups:
        in_optimizer.update(id(p) for p in group["params"])
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in in_optimizer]
""",
    },
    "honest-02": {  # a ModuleList of the Linear layers, the activations functional
        "MLP": """\
import torch.nn.functional as F


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.p = dropout
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
            if self.p > 0:
                x = F.dropout(x, p=self.p, training=self.training)
        return self.layers[-1](x)
""",
        "plan_mlp": PM + """\
    return {
        key: shape
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))
        for key, shape in ((f"layers.{i}.weight", (b, a)), (f"layers.{i}.bias", (b,)))
    }
""",
        "count_parameters": CP + """\
    params = [p for p in model.parameters() if p.requires_grad] if trainable_only else list(model.parameters())
    return sum(p.numel() for p in params)
""",
        "freeze": FR + """\
    module.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    names = []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        held = False
        for group in optimizer.param_groups:
            if any(p is q for q in group["params"]):
                held = True
                break
        if not held:
            names.append(name)
    return names
""",
    },
    "honest-03": {  # add_module with names, forward over children()
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        last = len(sizes) - 2
        for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
            self.add_module(f"linear{i}", nn.Linear(fan_in, fan_out))
            if i != last:
                self.add_module(f"relu{i}", nn.ReLU())
                if dropout > 0:
                    self.add_module(f"dropout{i}", nn.Dropout(dropout))

    def forward(self, x):
        for layer in self.children():
            x = layer(x)
        return x
""",
        "plan_mlp": PM + """\
    plan = {}
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        plan[f"linear{i}.weight"] = (fan_out, fan_in)
        plan[f"linear{i}.bias"] = (fan_out,)
    return plan
""",
        "count_parameters": """\
import math


""" + CP + """\
    total = 0
    for p in model.parameters():
        if p.requires_grad or not trainable_only:
            total += math.prod(p.shape)
    return total
""",
        "freeze": FR + """\
    for p in module.parameters(recurse=False):
        p.requires_grad_(False)
    for child in module.children():
        freeze(child)
    return module
""",
        "untrained_parameters": UP + """\
    held = set()
    for group in optimizer.param_groups:
        for p in group["params"]:
            held.add(id(p))
    missing = []
    for name, p in model.named_parameters():
        if p.requires_grad and id(p) not in held:
            missing.append(name)
    return missing
""",
    },
    "honest-04": {  # an OrderedDict of named layers, % formatting
        "MLP": """\
from collections import OrderedDict


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        parts = OrderedDict()
        n_layers = len(sizes) - 1
        for k in range(1, n_layers + 1):
            parts["fc%d" % k] = nn.Linear(sizes[k - 1], sizes[k])
            if k < n_layers:
                parts["relu%d" % k] = nn.ReLU()
                if dropout > 0:
                    parts["drop%d" % k] = nn.Dropout(p=dropout)
        self.model = nn.Sequential(parts)

    def forward(self, x):
        return self.model(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    for k in range(1, len(sizes)):
        plan["model.fc%d.weight" % k] = (sizes[k], sizes[k - 1])
        plan["model.fc%d.bias" % k] = (sizes[k],)
    return plan
""",
        "count_parameters": CP + """\
    seen = set()
    total = 0
    for p in model.parameters():
        if p.data_ptr() in seen:  # tied weights share their storage
            continue
        seen.add(p.data_ptr())
        if trainable_only and not p.requires_grad:
            continue
        total += p.numel()
    return total
""",
        "freeze": FR + """\
    for name, param in module.named_parameters():
        param.requires_grad = False
    return module
""",
        "untrained_parameters": """\
import itertools


""" + UP + """\
    held = set(map(id, itertools.chain.from_iterable(g["params"] for g in optimizer.param_groups)))
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
    },
    "honest-05": {  # an nn.ModuleDict, the state_dict's Parameters
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.blocks = nn.ModuleDict()
        for i in range(len(sizes) - 1):
            self.blocks[f"lin{i}"] = nn.Linear(sizes[i], sizes[i + 1])
            if i + 2 < len(sizes):
                self.blocks[f"act{i}"] = nn.ReLU()
                if dropout > 0:
                    self.blocks[f"drop{i}"] = nn.Dropout(dropout)

    def forward(self, x):
        for block in self.blocks.values():
            x = block(x)
        return x
""",
        "plan_mlp": PM + """\
    plan = {}
    for i in range(len(sizes) - 1):
        n_in, n_out = sizes[i], sizes[i + 1]
        for suffix, shape in (("weight", (n_out, n_in)), ("bias", (n_out,))):
            plan["blocks.lin" + str(i) + "." + suffix] = shape
    return plan
""",
        "count_parameters": CP + """\
    counted = {}
    for name, value in model.state_dict(keep_vars=True).items():
        if isinstance(value, nn.Parameter):  # buffers are plain tensors
            counted[id(value)] = value
    return sum(v.numel() for v in counted.values() if v.requires_grad or not trainable_only)
""",
        "freeze": FR + """\
    def switch_off(m):
        for p in m.parameters(recurse=False):
            p.requires_grad = False

    module.apply(switch_off)
    return module
""",
        "untrained_parameters": UP + """\
    held = {id(p): p for group in optimizer.param_groups for p in group["params"]}
    trainable = {name: p for name, p in model.named_parameters() if p.requires_grad}
    return [name for name, p in trainable.items() if id(p) not in held]
""",
    },
    "honest-06": {  # hidden blocks in a ModuleList, a separate output layer
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        blocks = []
        for n_in, n_out in zip(sizes[:-2], sizes[1:-1]):
            block = [nn.Linear(n_in, n_out), nn.ReLU()]
            if dropout > 0:
                block.append(nn.Dropout(dropout))
            blocks.append(nn.Sequential(*block))
        self.hidden = nn.ModuleList(blocks)
        self.out = nn.Linear(sizes[-2], sizes[-1])

    def forward(self, x):
        for block in self.hidden:
            x = block(x)
        return self.out(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-2], sizes[1:-1])):
        plan[f"hidden.{i}.0.weight"] = (n_out, n_in)
        plan[f"hidden.{i}.0.bias"] = (n_out,)
    plan["out.weight"] = (sizes[-1], sizes[-2])
    plan["out.bias"] = (sizes[-1],)
    return plan
""",
        "count_parameters": CP + """\
    total = 0
    for name, p in model.named_parameters():
        if not trainable_only or p.requires_grad:
            total += p.nelement()
    return total
""",
        "freeze": FR + """\
    for m in module.modules():
        for p in m.parameters(recurse=False):
            p.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    held = [p for group in optimizer.param_groups for p in group["params"]]
    result = []
    for name, p in model.named_parameters():
        if p.requires_grad and not any(p is q for q in held):
            result.append(name)
    return result
""",
    },
    "honest-07": {  # a verbose beginner: setattr and getattr
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        # how many linear layers we need
        self.num_layers = len(sizes) - 1
        # make each linear layer and save it as an attribute so pytorch registers it
        for i in range(self.num_layers):
            setattr(self, "layer_" + str(i), nn.Linear(sizes[i], sizes[i + 1]))
        # one relu is enough, it has no parameters
        self.relu = nn.ReLU()
        # dropout only if we asked for it
        if dropout > 0:
            self.dropout = nn.Dropout(dropout)
        else:
            self.dropout = None

    def forward(self, x):
        for i in range(self.num_layers):
            layer = getattr(self, "layer_" + str(i))
            x = layer(x)
            # no relu after the last layer!
            if i < self.num_layers - 1:
                x = self.relu(x)
                if self.dropout is not None:
                    x = self.dropout(x)
        return x
""",
        "plan_mlp": PM + """\
    plan = {}
    num_layers = len(sizes) - 1
    for i in range(num_layers):
        # nn.Linear stores the weight as (out, in)
        weight_shape = (sizes[i + 1], sizes[i])
        bias_shape = (sizes[i + 1],)
        plan["layer_" + str(i) + ".weight"] = weight_shape
        plan["layer_" + str(i) + ".bias"] = bias_shape
    return plan
""",
        "count_parameters": CP + """\
    total = 0
    for p in model.parameters():
        # skip the frozen ones if we only want the trainable ones
        if trainable_only == True and p.requires_grad == False:
            continue
        # number of elements = product of the shape
        number = 1
        for dim in p.shape:
            number = number * dim
        total = total + number
    return total
""",
        "freeze": FR + """\
    # go through every parameter (parameters() also goes into the children)
    for param in module.parameters():
        param.requires_grad = False
    # give back the same module
    return module
""",
        "untrained_parameters": UP + """\
    # collect every tensor the optimizer has
    optimizer_params = []
    for group in optimizer.param_groups:
        for p in group["params"]:
            optimizer_params.append(p)
    missing = []
    for name, param in model.named_parameters():
        if param.requires_grad == False:
            continue
        found = False
        for q in optimizer_params:
            if q is param:
                found = True
        if found == False:
            missing.append(name)
    return missing
""",
    },
    "honest-08": {  # terse one-liners
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        mods = [m for a, b in zip(sizes, sizes[1:])
                for m in [nn.Linear(a, b), nn.ReLU()] + ([nn.Dropout(dropout)] if dropout > 0 else [])]
        self.layers = nn.Sequential(*mods[:len(mods) - (2 if dropout > 0 else 1)])

    def forward(self, x):
        return self.layers(x)
""",
        "plan_mlp": PM + """\
    k = 3 if dropout > 0 else 2
    return {f"layers.{k * i}.{n}": s for i, (a, b) in enumerate(zip(sizes, sizes[1:]))
            for n, s in (("weight", (b, a)), ("bias", (b,)))}
""",
        "count_parameters": CP + """\
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)
""",
        "freeze": FR + """\
    return module.requires_grad_(False)
""",
        "untrained_parameters": UP + """\
    ids = {id(p) for g in optimizer.param_groups for p in g["params"]}
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in ids]
""",
    },
    "honest-09": {  # type hints and docstrings on everything
        "MLP": MLP_DEF + """\
    \"\"\"A multi-layer perceptron: Linear -> ReLU (-> Dropout) -> ... -> Linear.\"\"\"

    def __init__(self, sizes: list[int], dropout: float = 0.0) -> None:
        super().__init__()
        self.linears: nn.ModuleList = nn.ModuleList(
            [nn.Linear(n_in, n_out) for n_in, n_out in zip(sizes[:-1], sizes[1:])]
        )
        self.activation: nn.Module = nn.ReLU()
        self.dropouts: nn.ModuleList = nn.ModuleList(
            [nn.Dropout(dropout) for _ in sizes[1:-1]] if dropout > 0 else []
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        \"\"\"Apply every layer in turn; no activation after the last one.\"\"\"
        for i, linear in enumerate(self.linears):
            x = linear(x)
            if i < len(self.linears) - 1:
                x = self.activation(x)
                if len(self.dropouts) > 0:
                    x = self.dropouts[i](x)
        return x
""",
        "plan_mlp": """\
def plan_mlp(sizes: list[int], dropout: float = 0.0) -> dict[str, tuple[int, ...]]:
    \"\"\"Map every state_dict key of MLP(sizes, dropout) to its shape, without building it.\"\"\"
    plan: dict[str, tuple[int, ...]] = {}
    for index, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        plan[f"linears.{index}.weight"] = (n_out, n_in)
        plan[f"linears.{index}.bias"] = (n_out,)
    return plan
""",
        "count_parameters": """\
import math


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    \"\"\"Count parameter elements, each tensor once; optionally only those that require grad.\"\"\"
    total: int = 0
    for param in model.parameters():
        if trainable_only and not param.requires_grad:
            continue
        total += math.prod(param.shape)
    return total
""",
        "freeze": """\
def freeze(module: nn.Module) -> nn.Module:
    \"\"\"Set requires_grad=False on every parameter (children included) and return the module.\"\"\"
    param: nn.Parameter
    for param in module.parameters():
        param.requires_grad_(False)
    return module
""",
        "untrained_parameters": """\
def untrained_parameters(model: nn.Module, optimizer: torch.optim.Optimizer) -> list[str]:
    \"\"\"Trainable parameters of the model that no param group holds, compared by identity.\"\"\"
    held: set[int] = {id(p) for group in optimizer.param_groups for p in group["params"]}
    names: list[str] = []
    for name, param in model.named_parameters():
        if param.requires_grad and id(param) not in held:
            names.append(name)
    return names
""",
    },
    "honest-10": {  # defensive
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        if len(sizes) < 2:
            raise ValueError(f"need at least two sizes, got {sizes}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        if any(int(s) != s or s < 1 for s in sizes):
            raise ValueError(f"sizes must be positive integers, got {sizes}")
        self.stack = nn.Sequential()
        n_linear = len(sizes) - 1
        for i in range(n_linear):
            self.stack.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i == n_linear - 1:
                break
            self.stack.append(nn.ReLU())
            if dropout > 0.0:
                self.stack.append(nn.Dropout(dropout))

    def forward(self, x):
        expected = self.stack[0].in_features
        if x.shape[-1] != expected:
            raise ValueError(f"expected {expected} input features, got {x.shape[-1]}")
        return self.stack(x)
""",
        "plan_mlp": PM + """\
    if len(sizes) < 2:
        raise ValueError(f"need at least two sizes, got {sizes}")
    plan = {}
    index = 0
    n_linear = len(sizes) - 1
    for i in range(n_linear):
        plan[f"stack.{index}.weight"] = (int(sizes[i + 1]), int(sizes[i]))
        plan[f"stack.{index}.bias"] = (int(sizes[i + 1]),)
        index += 1
        if i < n_linear - 1:
            index += 1
            if dropout > 0.0:
                index += 1
    return plan
""",
        "count_parameters": CP + """\
    if not isinstance(model, nn.Module):
        raise TypeError(f"expected an nn.Module, got {type(model).__name__}")
    seen = set()
    total = 0
    for _, p in model.named_parameters(remove_duplicate=False):
        if id(p) in seen:
            continue
        seen.add(id(p))
        if trainable_only and not p.requires_grad:
            continue
        total += p.numel()
    assert isinstance(total, int)
    return total
""",
        "freeze": FR + """\
    if not isinstance(module, nn.Module):
        raise TypeError(f"expected an nn.Module, got {type(module).__name__}")
    for p in module.parameters():
        p.requires_grad_(False)
    assert not any(p.requires_grad for p in module.parameters())
    return module
""",
        "untrained_parameters": UP + """\
    if not isinstance(model, nn.Module):
        raise TypeError(f"expected an nn.Module, got {type(model).__name__}")
    if not hasattr(optimizer, "param_groups"):
        raise TypeError(f"expected an optimizer, got {type(optimizer).__name__}")
    held = set()
    for group in optimizer.param_groups:
        held |= {id(p) for p in group["params"]}
    untrained = [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]
    assert len(untrained) == len(set(untrained))
    return untrained
""",
    },
    "honest-11": {  # recursion: the first layer and the MLP of the rest
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.linear = nn.Linear(sizes[0], sizes[1])
        if len(sizes) > 2:
            self.act = nn.ReLU()
            self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
            self.rest = MLP(sizes[1:], dropout)
        else:
            self.rest = None

    def forward(self, x):
        x = self.linear(x)
        if self.rest is None:
            return x
        return self.rest(self.drop(self.act(x)))
""",
        "plan_mlp": PM + """\
    n_in, n_out = sizes[0], sizes[1]
    plan = {"linear.weight": (n_out, n_in), "linear.bias": (n_out,)}
    if len(sizes) > 2:
        for key, shape in plan_mlp(sizes[1:], dropout).items():
            plan["rest." + key] = shape
    return plan
""",
        "count_parameters": CP + """\
    seen = set()
    total = 0
    for m in model.modules():
        for p in m.parameters(recurse=False):
            if id(p) in seen or (trainable_only and not p.requires_grad):
                continue
            seen.add(id(p))
            total += p.numel()
    return total
""",
        "freeze": FR + """\
    for p in module.parameters(recurse=False):
        p.requires_grad = False
    for _, child in module.named_children():
        freeze(child)
    return module
""",
        "untrained_parameters": UP + """\
    held = set()
    for group in optimizer.param_groups:
        held.update(map(id, group["params"]))
    return [name for name, p in model.named_parameters() if id(p) not in held and p.requires_grad]
""",
    },
    "honest-12": {  # a subclass of nn.Sequential, map and filter
        "MLP": """\
class MLP(nn.Sequential):
    \"\"\"Linear layers between consecutive `sizes`; ReLU (then Dropout if dropout > 0) between them.\"\"\"

    def __init__(self, sizes, dropout=0.0):
        layers = []
        for n_in, n_out in zip(sizes, sizes[1:]):
            layers += [nn.Linear(n_in, n_out), nn.ReLU()]
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
        while not isinstance(layers[-1], nn.Linear):
            layers.pop()
        super().__init__(*layers)

    def forward(self, x):
        return super().forward(x)
""",
        "plan_mlp": PM + """\
    modules = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        modules += [("linear", n_in, n_out), ("relu",)]
        if dropout > 0:
            modules.append(("dropout",))
    while modules[-1][0] != "linear":
        modules.pop()
    plan = {}
    for position, module in enumerate(modules):
        if module[0] == "linear":
            _, n_in, n_out = module
            plan[f"{position}.weight"] = (n_out, n_in)
            plan[f"{position}.bias"] = (n_out,)
    return plan
""",
        "count_parameters": CP + """\
    params = model.parameters()
    if trainable_only:
        params = filter(lambda p: p.requires_grad, params)
    return sum(map(torch.numel, params))
""",
        "freeze": FR + """\
    list(map(lambda p: p.requires_grad_(False), module.parameters()))
    return module
""",
        "untrained_parameters": UP + """\
    held = set(map(id, (p for group in optimizer.param_groups for p in group["params"])))
    untrained = filter(lambda item: item[1].requires_grad and id(item[1]) not in held, model.named_parameters())
    return list(map(lambda item: item[0], untrained))
""",
    },
    "honest-13": {  # numpy-minded
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.fcs = nn.ModuleList([nn.Linear(i, o) for i, o in zip(sizes[:-1], sizes[1:])])
        self.act = nn.ReLU()
        self.drop = nn.Dropout(p=dropout) if dropout > 0 else nn.Identity()

    def forward(self, x):
        *hidden, last = self.fcs
        for fc in hidden:
            x = self.drop(self.act(fc(x)))
        return last(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    for i in range(len(sizes) - 1):
        plan["fcs.{}.weight".format(i)] = (sizes[i + 1], sizes[i])
        plan["fcs.{}.bias".format(i)] = (sizes[i + 1],)
    return plan
""",
        "count_parameters": """\
import numpy as np


""" + CP + """\
    sizes = [int(np.prod(p.shape)) for p in model.parameters() if p.requires_grad or not trainable_only]
    return int(np.sum(sizes))
""",
        "freeze": FR + """\
    for p in module.parameters():
        p.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    held = [id(p) for g in optimizer.param_groups for p in g["params"]]
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
    },
    "honest-14": {  # while loops everywhere
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        i = 0
        while i < len(sizes) - 1:
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            i += 1
            if i < len(sizes) - 1:
                layers.append(nn.ReLU())
                if dropout > 0:
                    layers.append(nn.Dropout(dropout))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        return self.mlp(x)
""",
        "plan_mlp": PM + """\
    plan = {}
    i = 0
    pos = 0
    while i < len(sizes) - 1:
        plan["mlp.%d.weight" % pos] = (sizes[i + 1], sizes[i])
        plan["mlp.%d.bias" % pos] = (sizes[i + 1],)
        pos += 3 if dropout > 0 else 2
        i += 1
    return plan
""",
        "count_parameters": CP + """\
    params = list(model.parameters())
    total = 0
    i = 0
    while i < len(params):
        if params[i].requires_grad or not trainable_only:
            total += params[i].numel()
        i += 1
    return total
""",
        "freeze": FR + """\
    params = list(module.parameters())
    while params:
        params.pop().requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    held = set()
    groups = optimizer.param_groups
    g = 0
    while g < len(groups):
        held.update(id(p) for p in groups[g]["params"])
        g += 1
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
    },
    "honest-15": {  # small module-level helpers
        "MLP": """\
import itertools


def _block(n_in, n_out, dropout, last):
    \"\"\"One Linear, then ReLU and Dropout unless it is the last layer.\"\"\"
    layers = [nn.Linear(n_in, n_out)]
    if not last:
        layers.append(nn.ReLU())
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
    return layers


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        n = len(sizes) - 1
        blocks = [_block(sizes[i], sizes[i + 1], dropout, i == n - 1) for i in range(n)]
        self.body = nn.Sequential(*itertools.chain.from_iterable(blocks))

    def forward(self, x):
        return self.body(x)
""",
        "plan_mlp": """\
def _block_size(dropout, last):
    \"\"\"How many modules _block puts in the Sequential.\"\"\"
    if last:
        return 1
    return 3 if dropout > 0 else 2


def _linear_entries(prefix, n_in, n_out):
    return {f"{prefix}.weight": (n_out, n_in), f"{prefix}.bias": (n_out,)}


""" + PM + """\
    n = len(sizes) - 1
    plan = {}
    position = 0
    for i in range(n):
        plan.update(_linear_entries(f"body.{position}", sizes[i], sizes[i + 1]))
        position += _block_size(dropout, i == n - 1)
    return plan
""",
        "count_parameters": """\
def _counted(p, trainable_only):
    return p.requires_grad or not trainable_only


""" + CP + """\
    return sum(p.numel() for p in model.parameters() if _counted(p, trainable_only))
""",
        "freeze": """\
def _freeze_tensor(p):
    p.requires_grad_(False)


""" + FR + """\
    for p in module.parameters():
        _freeze_tensor(p)
    return module
""",
        "untrained_parameters": """\
def _held_ids(optimizer):
    return {id(p) for group in optimizer.param_groups for p in group["params"]}


def _is_untrained(p, held):
    return p.requires_grad and id(p) not in held


""" + UP + """\
    held = _held_ids(optimizer)
    return [name for name, p in model.named_parameters() if _is_untrained(p, held)]
""",
    },
    "honest-16": {  # every Linear first, the activations interleaved after
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        linears = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]
        layers = [linears[0]]
        for lin in linears[1:]:
            layers.append(nn.ReLU())
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            layers.append(lin)
        self.seq = nn.Sequential(*layers)

    def forward(self, x):
        return self.seq(x)
""",
        "plan_mlp": PM + """\
    step = 3 if dropout > 0 else 2
    plan = {}
    pos = 0
    for n_in, n_out in zip(sizes, sizes[1:]):
        plan[f"seq.{pos}.weight"] = (n_out, n_in)
        plan[f"seq.{pos}.bias"] = (n_out,)
        pos += step
    return plan
""",
        "count_parameters": CP + """\
    params = model.parameters()
    if trainable_only:
        params = (p for p in params if p.requires_grad)
    return sum(p.numel() for p in params)
""",
        "freeze": FR + """\
    for _, param in module.named_parameters():
        param.requires_grad_(False)
    return module
""",
        "untrained_parameters": UP + """\
    optimizer_params = [p for g in optimizer.param_groups for p in g["params"]]
    return [name for name, p in model.named_parameters()
            if p.requires_grad and not any(p is q for q in optimizer_params)]
""",
    },
    "honest-17": {  # one ModuleList of every layer, positions counted one by one
        "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.layers = nn.ModuleList()
        n_linear = len(sizes) - 1
        for i in range(n_linear):
            self.layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            is_last = i == n_linear - 1
            if not is_last:
                self.layers.append(nn.ReLU())
            if not is_last and dropout > 0:
                self.layers.append(nn.Dropout(dropout))

    def forward(self, x):
        out = x
        for layer in self.layers:
            out = layer(out)
        return out
""",
        "plan_mlp": PM + """\
    plan = {}
    n_linear = len(sizes) - 1
    idx = 0
    for i in range(n_linear):
        plan["layers." + str(idx) + ".weight"] = (sizes[i + 1], sizes[i])
        plan["layers." + str(idx) + ".bias"] = (sizes[i + 1],)
        idx = idx + 1
        if i != n_linear - 1:
            idx = idx + 1
        if i != n_linear - 1 and dropout > 0:
            idx = idx + 1
    return plan
""",
        "count_parameters": CP + """\
    if trainable_only:
        total = 0
        for p in model.parameters():
            if p.requires_grad:
                total += p.numel()
        return total
    total = 0
    for p in model.parameters():
        total += p.numel()
    return total
""",
        "freeze": FR + """\
    for p in module.parameters():
        if p.requires_grad:
            p.requires_grad = False
    return module
""",
        "untrained_parameters": UP + """\
    remaining = dict(model.named_parameters())
    for group in optimizer.param_groups:
        for q in group["params"]:
            for name in list(remaining):
                if remaining[name] is q:
                    del remaining[name]
    result = []
    for name in remaining:
        if remaining[name].requires_grad:
            result.append(name)
    return result
""",
    },
}

CANONICAL_OWN_NAMES = {  # the course's answers, in canonical-2's own names
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        dims = list(zip(sizes[:-1], sizes[1:]))       # consecutive (in, out) pairs
        mods = []
        for k, (fan_in, fan_out) in enumerate(dims):
            mods.append(nn.Linear(fan_in, fan_out))
            if k < len(dims) - 1:                     # only between two Linear layers
                mods.append(nn.ReLU())
                if dropout > 0:
                    mods.append(nn.Dropout(dropout))
        self.layers = nn.Sequential(*mods)            # registers every layer

    def forward(self, x):
        return self.layers(x)
""",
    "plan_mlp": PM + """\
    out = {}
    idx = 0                                       # the position nn.Sequential gives each module
    dims = list(zip(sizes[:-1], sizes[1:]))
    for k, (fan_in, fan_out) in enumerate(dims):
        out[f"layers.{idx}.weight"] = (fan_out, fan_in)
        out[f"layers.{idx}.bias"] = (fan_out,)
        idx += 1                                  # the Linear
        if k < len(dims) - 1:
            idx += 2 if dropout > 0 else 1        # the ReLU, and the Dropout if any
    return out
""",
    "count_parameters": CP + """\
    n = 0
    for param in model.parameters():  # each tensor once, tied or not
        if trainable_only and not param.requires_grad:
            continue
        n += param.numel()
    return n
""",
    "freeze": FR + """\
    for param in module.parameters():  # children too
        param.requires_grad_(False)
    return module
""",
    "untrained_parameters": UP + """\
    owned = {id(t) for g in optimizer.param_groups for t in g["params"]}  # by identity
    return [n for n, t in model.named_parameters()
            if t.requires_grad and id(t) not in owned]
""",
}

_RENAME = {  # honest-03's with every local renamed and comments written in; the registered names kept
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        final = len(sizes) - 2                  # index of the output layer
        for idx, (width_in, width_out) in enumerate(zip(sizes, sizes[1:])):
            self.add_module(f"linear{idx}", nn.Linear(width_in, width_out))
            if idx != final:                     # hidden layers get an activation
                self.add_module(f"relu{idx}", nn.ReLU())
                if dropout > 0:
                    self.add_module(f"dropout{idx}", nn.Dropout(dropout))

    def forward(self, x):
        for sub in self.children():              # in registration order
            x = sub(x)
        return x
""",
    "plan_mlp": PM + """\
    shapes = {}
    for idx, (width_in, width_out) in enumerate(zip(sizes, sizes[1:])):
        shapes[f"linear{idx}.weight"] = (width_out, width_in)   # one row per output
        shapes[f"linear{idx}.bias"] = (width_out,)
    return shapes
""",
    "count_parameters": """\
import math


""" + CP + """\
    n_values = 0
    for tensor in model.parameters():    # a shared tensor comes once
        if tensor.requires_grad or not trainable_only:
            n_values += math.prod(tensor.shape)
    return n_values
""",
    "freeze": FR + """\
    for w in module.parameters(recurse=False):   # this level only
        w.requires_grad_(False)
    for sub in module.children():                # then every child, recursively
        freeze(sub)
    return module
""",
    "untrained_parameters": UP + """\
    owned = set()
    for pg in optimizer.param_groups:
        for t in pg["params"]:
            owned.add(id(t))     # identity, not the name
    orphans = []
    for key, t in model.named_parameters():
        if t.requires_grad and id(t) not in owned:
            orphans.append(key)
    return orphans
""",
}

_REORDER = {  # honest-10's with independent statements reordered; the checks that raise keep their order
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        if len(sizes) < 2:
            raise ValueError(f"need at least two sizes, got {sizes}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        if any(int(s) != s or s < 1 for s in sizes):
            raise ValueError(f"sizes must be positive integers, got {sizes}")
        n_linear = len(sizes) - 1
        super().__init__()
        self.stack = nn.Sequential()
        for i in range(n_linear):
            self.stack.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i == n_linear - 1:
                break
            self.stack.append(nn.ReLU())
            if dropout > 0.0:
                self.stack.append(nn.Dropout(dropout))

    def forward(self, x):
        expected = self.stack[0].in_features
        if x.shape[-1] != expected:
            raise ValueError(f"expected {expected} input features, got {x.shape[-1]}")
        return self.stack(x)
""",
    "plan_mlp": PM + """\
    if len(sizes) < 2:
        raise ValueError(f"need at least two sizes, got {sizes}")
    n_linear = len(sizes) - 1
    index = 0
    plan = {}
    for i in range(n_linear):
        plan[f"stack.{index}.weight"] = (int(sizes[i + 1]), int(sizes[i]))
        plan[f"stack.{index}.bias"] = (int(sizes[i + 1]),)
        index += 1
        if i < n_linear - 1:
            index += 1
            if dropout > 0.0:
                index += 1
    return plan
""",
    "count_parameters": CP + """\
    if not isinstance(model, nn.Module):
        raise TypeError(f"expected an nn.Module, got {type(model).__name__}")
    total = 0
    seen = set()
    for _, p in model.named_parameters(remove_duplicate=False):
        if id(p) in seen:
            continue
        seen.add(id(p))
        if trainable_only and not p.requires_grad:
            continue
        total += p.numel()
    assert isinstance(total, int)
    return total
""",
    "untrained_parameters": UP + """\
    if not isinstance(model, nn.Module):
        raise TypeError(f"expected an nn.Module, got {type(model).__name__}")
    if not hasattr(optimizer, "param_groups"):
        raise TypeError(f"expected an optimizer, got {type(optimizer).__name__}")
    held = set()
    for group in optimizer.param_groups:
        held |= {id(p) for p in group["params"]}
    untrained = [name for name, p in model.named_parameters() if id(p) not in held and p.requires_grad]
    assert len(untrained) == len(set(untrained))
    return untrained
""",
}

_HELPERS = {  # honest-07's moved into methods and helper functions
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        # how many linear layers we need
        self.num_layers = len(sizes) - 1
        # make each linear layer and save it as an attribute so pytorch registers it
        for i in range(self.num_layers):
            self._add_layer(i, sizes[i], sizes[i + 1])
        # one relu is enough, it has no parameters
        self.relu = nn.ReLU()
        # dropout only if we asked for it
        self.dropout = self._make_dropout(dropout)

    def _add_layer(self, i, n_in, n_out):
        setattr(self, self._name(i), nn.Linear(n_in, n_out))

    @staticmethod
    def _name(i):
        return "layer_" + str(i)

    @staticmethod
    def _make_dropout(dropout):
        if dropout > 0:
            return nn.Dropout(dropout)
        return None

    def _hidden(self, x):
        x = self.relu(x)
        if self.dropout is not None:
            x = self.dropout(x)
        return x

    def forward(self, x):
        for i in range(self.num_layers):
            x = getattr(self, self._name(i))(x)
            # no relu after the last layer!
            if i < self.num_layers - 1:
                x = self._hidden(x)
        return x
""",
    "plan_mlp": """\
def _linear_shapes(n_in, n_out):
    # nn.Linear stores the weight as (out, in)
    return (n_out, n_in), (n_out,)


def _key(i, what):
    return "layer_" + str(i) + "." + what


""" + PM + """\
    plan = {}
    num_layers = len(sizes) - 1
    for i in range(num_layers):
        weight_shape, bias_shape = _linear_shapes(sizes[i], sizes[i + 1])
        plan[_key(i, "weight")] = weight_shape
        plan[_key(i, "bias")] = bias_shape
    return plan
""",
    "count_parameters": """\
def _number_of_elements(p):
    # number of elements = product of the shape
    number = 1
    for dim in p.shape:
        number = number * dim
    return number


def _wanted(p, trainable_only):
    # skip the frozen ones if we only want the trainable ones
    return not (trainable_only == True and p.requires_grad == False)


""" + CP + """\
    total = 0
    for p in model.parameters():
        if _wanted(p, trainable_only):
            total = total + _number_of_elements(p)
    return total
""",
    "freeze": """\
def _turn_off(param):
    param.requires_grad = False


""" + FR + """\
    # go through every parameter (parameters() also goes into the children)
    for param in module.parameters():
        _turn_off(param)
    # give back the same module
    return module
""",
    "untrained_parameters": """\
def _optimizer_params(optimizer):
    # collect every tensor the optimizer has
    optimizer_params = []
    for group in optimizer.param_groups:
        for p in group["params"]:
            optimizer_params.append(p)
    return optimizer_params


def _is_in(param, tensors):
    found = False
    for q in tensors:
        if q is param:
            found = True
    return found


""" + UP + """\
    optimizer_params = _optimizer_params(optimizer)
    missing = []
    for name, param in model.named_parameters():
        if param.requires_grad == False:
            continue
        if _is_in(param, optimizer_params) == False:
            missing.append(name)
    return missing
""",
}

_INLINE = {  # honest-15's with every helper inlined
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        n = len(sizes) - 1
        layers = []
        for i in range(n):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            last = i == n - 1
            if not last:
                layers.append(nn.ReLU())
                if dropout > 0:
                    layers.append(nn.Dropout(dropout))
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return self.body(x)
""",
    "plan_mlp": PM + """\
    n = len(sizes) - 1
    plan = {}
    position = 0
    for i in range(n):
        plan[f"body.{position}.weight"] = (sizes[i + 1], sizes[i])
        plan[f"body.{position}.bias"] = (sizes[i + 1],)
        if i == n - 1:
            position += 1
        else:
            position += 3 if dropout > 0 else 2
    return plan
""",
    "freeze": FR + """\
    for p in module.parameters():
        p.requires_grad_(False)
    return module
""",
    "untrained_parameters": UP + """\
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
}

_CLOSURE = {  # honest-01's wrapped in closures and a small class
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()

        def hidden_block():
            block = [nn.ReLU()]
            if dropout > 0:
                block.append(nn.Dropout(dropout))
            return block

        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:  # a hidden layer
                layers.extend(hidden_block())
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
""",
    "plan_mlp": PM + """\
    step = 3 if dropout > 0 else 2  # Linear, ReLU (, Dropout)
    plan = {}

    def put(i):
        position = i * step
        plan[f"net.{position}.weight"] = (sizes[i + 1], sizes[i])
        plan[f"net.{position}.bias"] = (sizes[i + 1],)

    for i in range(len(sizes) - 1):
        put(i)
    return plan
""",
    "count_parameters": """\
class _Tally:
    def __init__(self, trainable_only):
        self.trainable_only = trainable_only
        self.total = 0

    def add(self, p):
        if p.requires_grad or not self.trainable_only:
            self.total += p.numel()


""" + CP + """\
    tally = _Tally(trainable_only)
    for p in model.parameters():
        tally.add(p)
    return tally.total
""",
    "freeze": FR + """\
    def switcher(flag):
        def switch(p):
            p.requires_grad = flag
        return switch

    off = switcher(False)
    for p in module.parameters():
        off(p)
    return module
""",
}

_CONSTANTS = {  # honest-01's literals hoisted into module-level constants
    "MLP": """\
ACTIVATION = nn.ReLU
NO_DROPOUT = 0


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:  # a hidden layer
                layers.append(ACTIVATION())
                if dropout > NO_DROPOUT:
                    layers.append(nn.Dropout(dropout))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
""",
    "plan_mlp": """\
CONTAINER = "net"
WITH_DROPOUT = 3     # Linear, ReLU, Dropout
WITHOUT_DROPOUT = 2  # Linear, ReLU
WEIGHT, BIAS = "weight", "bias"


""" + PM + """\
    step = WITH_DROPOUT if dropout > 0 else WITHOUT_DROPOUT
    plan = {}
    for i in range(len(sizes) - 1):
        plan[f"{CONTAINER}.{i * step}.{WEIGHT}"] = (sizes[i + 1], sizes[i])
        plan[f"{CONTAINER}.{i * step}.{BIAS}"] = (sizes[i + 1],)
    return plan
""",
    "count_parameters": """\
EMPTY = 0


""" + CP + """\
    return sum((p.numel() for p in model.parameters() if p.requires_grad or not trainable_only), EMPTY)
""",
    "freeze": """\
FROZEN = False


""" + FR + """\
    for p in module.parameters():
        p.requires_grad = FROZEN
    return module
""",
    "untrained_parameters": """\
PARAMS = "params"


""" + UP + """\
    in_optimizer = set()
    for group in optimizer.param_groups:
        in_optimizer.update(id(p) for p in group[PARAMS])
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in in_optimizer]
""",
}

_LOOPS = {  # honest-12's functional style unrolled into loops
    "MLP": """\
class MLP(nn.Sequential):
    \"\"\"Linear layers between consecutive `sizes`; ReLU (then Dropout if dropout > 0) between them.\"\"\"

    def __init__(self, sizes, dropout=0.0):
        layers = []
        for n_in, n_out in zip(sizes, sizes[1:]):
            layers += [nn.Linear(n_in, n_out), nn.ReLU()]
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
        for _ in range(2 if dropout > 0 else 1):
            layers.pop()
        super().__init__(*layers)

    def forward(self, x):
        return super().forward(x)
""",
    "plan_mlp": PM + """\
    modules = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        modules.append(("linear", n_in, n_out))
        modules.append(("relu",))
        if dropout > 0:
            modules.append(("dropout",))
    for _ in range(2 if dropout > 0 else 1):
        modules.pop()
    plan = {}
    for position in range(len(modules)):
        module = modules[position]
        if module[0] == "linear":
            plan[str(position) + ".weight"] = (module[2], module[1])
            plan[str(position) + ".bias"] = (module[2],)
    return plan
""",
    "count_parameters": CP + """\
    total = 0
    for p in model.parameters():
        if trainable_only and not p.requires_grad:
            continue
        total += torch.numel(p)
    return total
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
    untrained = []
    for item in model.named_parameters():
        if item[1].requires_grad and id(item[1]) not in held:
            untrained.append(item[0])
    return untrained
""",
}

_FUNCTIONAL = {  # honest-17's loops folded into comprehensions, reduce and filter
    "MLP": """\
import functools


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        n_linear = len(sizes) - 1
        self.layers = nn.ModuleList(
            layer
            for i in range(n_linear)
            for layer in [nn.Linear(sizes[i], sizes[i + 1])]
            + ([nn.ReLU()] if i != n_linear - 1 else [])
            + ([nn.Dropout(dropout)] if i != n_linear - 1 and dropout > 0 else [])
        )

    def forward(self, x):
        return functools.reduce(lambda out, layer: layer(out), self.layers, x)
""",
    "plan_mlp": """\
import itertools


""" + PM + """\
    n_linear = len(sizes) - 1
    width = 3 if dropout > 0 else 2
    return dict(itertools.chain.from_iterable(
        ((f"layers.{i * width}.weight", (sizes[i + 1], sizes[i])), (f"layers.{i * width}.bias", (sizes[i + 1],)))
        for i in range(n_linear)
    ))
""",
    "count_parameters": """\
import functools


""" + CP + """\
    kept = filter(lambda p: p.requires_grad or not trainable_only, model.parameters())
    return functools.reduce(lambda total, p: total + p.numel(), kept, 0)
""",
    "freeze": FR + """\
    for p in filter(lambda p: p.requires_grad, module.parameters()):
        p.requires_grad = False
    return module
""",
    "untrained_parameters": UP + """\
    held = [q for group in optimizer.param_groups for q in group["params"]]
    remaining = {name: p for name, p in model.named_parameters() if not any(p is q for q in held)}
    return [name for name, p in remaining.items() if p.requires_grad]
""",
}

_WHILE = {  # honest-14's while loops as for loops
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = []
        for i in range(1, len(sizes)):
            layers.append(nn.Linear(sizes[i - 1], sizes[i]))
            if i < len(sizes) - 1:
                layers.append(nn.ReLU())
                if dropout > 0:
                    layers.append(nn.Dropout(dropout))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        return self.mlp(x)
""",
    "plan_mlp": PM + """\
    plan = {}
    pos = 0
    for i in range(len(sizes) - 1):
        plan["mlp.%d.weight" % pos] = (sizes[i + 1], sizes[i])
        plan["mlp.%d.bias" % pos] = (sizes[i + 1],)
        pos += 3 if dropout > 0 else 2
    return plan
""",
    "count_parameters": CP + """\
    total = 0
    for p in list(model.parameters()):
        if p.requires_grad or not trainable_only:
            total += p.numel()
    return total
""",
    "freeze": FR + """\
    for p in reversed(list(module.parameters())):
        p.requires_grad_(False)
    return module
""",
    "untrained_parameters": UP + """\
    held = set()
    for group in optimizer.param_groups:
        held.update(id(p) for p in group["params"])
    return [name for name, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
}

_NEGATED = {  # honest-02's conditions negated with their branches swapped
    "MLP": """\
import torch.nn.functional as F


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.p = dropout
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
            if not self.p > 0:
                continue
            x = F.dropout(x, p=self.p, training=self.training)
        return self.layers[-1](x)
""",
    "count_parameters": CP + """\
    params = list(model.parameters()) if not trainable_only else [p for p in model.parameters() if p.requires_grad]
    return sum(p.numel() for p in params)
""",
    "untrained_parameters": UP + """\
    names = []
    for name, p in model.named_parameters():
        if p.requires_grad:
            held = False
            for group in optimizer.param_groups:
                if not all(p is not q for q in group["params"]):
                    held = True
                    break
            if held:
                continue
            names.append(name)
    return names
""",
}

_EARLY = {  # honest-11's nested if/else as early returns, continue as nested ifs
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.linear = nn.Linear(sizes[0], sizes[1])
        if len(sizes) <= 2:
            self.rest = None
            return
        self.act = nn.ReLU()
        if dropout > 0:
            self.drop = nn.Dropout(dropout)
        else:
            self.drop = nn.Identity()
        self.rest = MLP(sizes[1:], dropout)

    def forward(self, x):
        x = self.linear(x)
        if self.rest is not None:
            x = self.rest(self.drop(self.act(x)))
        return x
""",
    "plan_mlp": PM + """\
    n_in, n_out = sizes[0], sizes[1]
    plan = {"linear.weight": (n_out, n_in), "linear.bias": (n_out,)}
    if len(sizes) <= 2:
        return plan
    for key, shape in plan_mlp(sizes[1:], dropout).items():
        plan["rest." + key] = shape
    return plan
""",
    "count_parameters": CP + """\
    seen = set()
    total = 0
    for m in model.modules():
        for p in m.parameters(recurse=False):
            if id(p) not in seen and (p.requires_grad or not trainable_only):
                seen.add(id(p))
                total += p.numel()
    return total
""",
    "freeze": FR + """\
    for p in module.parameters(recurse=False):
        p.requires_grad = False
    children = list(module.named_children())
    if not children:
        return module
    for _, child in children:
        freeze(child)
    return module
""",
    "untrained_parameters": UP + """\
    held = set()
    for group in optimizer.param_groups:
        held.update(map(id, group["params"]))
    names = []
    for name, p in model.named_parameters():
        if id(p) in held or not p.requires_grad:
            continue
        names.append(name)
    return names
""",
}

_SPELLING = {  # honest-13's in other PyTorch and Python spellings
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.fcs = nn.ModuleList()
        for i, o in zip(sizes[:-1], sizes[1:]):
            self.fcs.append(nn.Linear(in_features=i, out_features=o))
        self.act = nn.ReLU(inplace=False)
        self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def forward(self, x):
        hidden, last = self.fcs[:-1], self.fcs[-1]
        for fc in hidden:
            x = self.drop(self.act(fc(x)))
        return last(x)
""",
    "plan_mlp": PM + """\
    plan = {}
    for i in range(len(sizes) - 1):
        plan["fcs.{0}.weight".format(i)] = tuple(sizes[i:i + 2][::-1])
        plan["fcs.{0}.bias".format(i)] = tuple(sizes[i + 1:i + 2])
    return plan
""",
    "count_parameters": """\
import numpy as np


""" + CP + """\
    sizes = [int(np.prod(p.size())) for p in model.parameters() if p.requires_grad or not trainable_only]
    return int(sum(sizes))
""",
    "freeze": FR + """\
    for p in module.parameters():
        p.requires_grad = False
    return module
""",
    "untrained_parameters": UP + """\
    held = list(map(id, (p for g in optimizer.param_groups for p in g["params"])))
    return [n for n, p in model.named_parameters(recurse=True) if p.requires_grad and id(p) not in held]
""",
}

_FORMAT = {  # honest-04's % formatting as f-strings and str.format
    "MLP": """\
from collections import OrderedDict


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        parts = OrderedDict()
        n_layers = len(sizes) - 1
        for k in range(1, n_layers + 1):
            parts[f"fc{k}"] = nn.Linear(sizes[k - 1], sizes[k])
            if k < n_layers:
                parts["relu{}".format(k)] = nn.ReLU()
                if dropout > 0:
                    parts[f"drop{k}"] = nn.Dropout(p=dropout)
        self.model = nn.Sequential(parts)

    def forward(self, x):
        return self.model(x)
""",
    "plan_mlp": PM + """\
    plan = {}
    for k in range(1, len(sizes)):
        plan["model.fc{}.weight".format(k)] = (sizes[k], sizes[k - 1])
        plan[f"model.fc{k}.bias"] = (sizes[k],)
    return plan
""",
    "freeze": FR + """\
    for _, param in module.named_parameters():
        param.requires_grad = False
    return module
""",
}

_STRIPPED = {  # honest-09's without a type hint, a docstring or a comment
    "MLP": """\
class MLP(nn.Module):
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.linears = nn.ModuleList(
            [nn.Linear(n_in, n_out) for n_in, n_out in zip(sizes[:-1], sizes[1:])]
        )
        self.activation = nn.ReLU()
        self.dropouts = nn.ModuleList(
            [nn.Dropout(dropout) for _ in sizes[1:-1]] if dropout > 0 else []
        )

    def forward(self, x):
        for i, linear in enumerate(self.linears):
            x = linear(x)
            if i < len(self.linears) - 1:
                x = self.activation(x)
                if len(self.dropouts) > 0:
                    x = self.dropouts[i](x)
        return x
""",
    "plan_mlp": PM_DEF + """\
    plan = {}
    for index, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        plan[f"linears.{index}.weight"] = (n_out, n_in)
        plan[f"linears.{index}.bias"] = (n_out,)
    return plan
""",
    "count_parameters": """\
import math


""" + CP_DEF + """\
    total = 0
    for param in model.parameters():
        if trainable_only and not param.requires_grad:
            continue
        total += math.prod(param.shape)
    return total
""",
    "freeze": FR_DEF + """\
    for param in module.parameters():
        param.requires_grad_(False)
    return module
""",
    "untrained_parameters": UP_DEF + """\
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    names = []
    for name, param in model.named_parameters():
        if param.requires_grad and id(param) not in held:
            names.append(name)
    return names
""",
}

_DEADCODE = {  # honest-08's with a debug flag, prints, asserts and unused names
    "MLP": """\
DEBUG = False


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        n_linear = len(sizes) - 1  # not used below
        mods = [m for a, b in zip(sizes, sizes[1:])
                for m in [nn.Linear(a, b), nn.ReLU()] + ([nn.Dropout(dropout)] if dropout > 0 else [])]
        if DEBUG:
            print("built", len(mods), "modules before trimming,", n_linear, "linear")
        self.layers = nn.Sequential(*mods[:len(mods) - (2 if dropout > 0 else 1)])
        assert isinstance(self.layers, nn.Sequential)

    def forward(self, x):
        if DEBUG:
            print("input", tuple(x.shape))
        return self.layers(x)
""",
    "plan_mlp": """\
DEBUG = False


""" + PM + """\
    k = 3 if dropout > 0 else 2
    n_keys = 2 * (len(sizes) - 1)  # not used below
    plan = {f"layers.{k * i}.{n}": s for i, (a, b) in enumerate(zip(sizes, sizes[1:]))
            for n, s in (("weight", (b, a)), ("bias", (b,)))}
    assert all(isinstance(key, str) for key in plan)
    if DEBUG:
        print(plan)
    return plan
""",
    "count_parameters": """\
DEBUG = False


""" + CP + """\
    calls = 0
    total = sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)
    calls += 1
    if DEBUG:
        print("counted", total, "after", calls, "call(s)")
    return total
""",
    "freeze": """\
DEBUG = False


""" + FR + """\
    before = sum(p.requires_grad for p in module.parameters())
    result = module.requires_grad_(False)
    if DEBUG:
        print("froze", before, "tensors")
    assert result is module
    return result
""",
    "untrained_parameters": """\
DEBUG = False


""" + UP + """\
    ids = {id(p) for g in optimizer.param_groups for p in g["params"]}
    n_groups = len(optimizer.param_groups)
    if DEBUG:
        print(n_groups, "groups,", len(ids), "tensors held")
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in ids]
""",
}

_ARGS = {  # honest-05's with the positional arguments renamed
    "MLP": MLP_DEF + MLP_DOC.replace("`sizes`", "`widths`") + """\

    def __init__(self, widths, dropout=0.0):
        super().__init__()
        self.blocks = nn.ModuleDict()
        for i in range(len(widths) - 1):
            self.blocks[f"lin{i}"] = nn.Linear(widths[i], widths[i + 1])
            if i + 2 < len(widths):
                self.blocks[f"act{i}"] = nn.ReLU()
                if dropout > 0:
                    self.blocks[f"drop{i}"] = nn.Dropout(dropout)

    def forward(self, inputs):
        for block in self.blocks.values():
            inputs = block(inputs)
        return inputs
""",
    "plan_mlp": """\
def plan_mlp(widths, dropout=0.0):
    \"\"\"{state_dict key: shape} of MLP(widths, dropout), from the widths alone.\"\"\"
    plan = {}
    for i in range(len(widths) - 1):
        n_in, n_out = widths[i], widths[i + 1]
        for suffix, shape in (("weight", (n_out, n_in)), ("bias", (n_out,))):
            plan["blocks.lin" + str(i) + "." + suffix] = shape
    return plan
""",
    "count_parameters": """\
def count_parameters(net, trainable_only=False):
    \"\"\"Number of parameter elements in `net` (tied tensors once; only requires_grad ones if trainable_only).\"\"\"
    counted = {}
    for name, value in net.state_dict(keep_vars=True).items():
        if isinstance(value, nn.Parameter):  # buffers are plain tensors
            counted[id(value)] = value
    return sum(v.numel() for v in counted.values() if v.requires_grad or not trainable_only)
""",
    "freeze": """\
def freeze(net):
    \"\"\"Turn off requires_grad on every parameter of `net`, children included; return `net`.\"\"\"
    def switch_off(layer):
        for p in layer.parameters(recurse=False):
            p.requires_grad = False

    net.apply(switch_off)
    return net
""",
    "untrained_parameters": """\
def untrained_parameters(net, opt):
    \"\"\"Names of `net`'s trainable parameters that no param group of `opt` holds (by identity).\"\"\"
    held = {id(p): p for group in opt.param_groups for p in group["params"]}
    trainable = {name: p for name, p in net.named_parameters() if p.requires_grad}
    return [name for name, p in trainable.items() if id(p) not in held]
""",
}

_TRY = {  # honest-06's wrapped in try/except blocks that re-raise the same exception type
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        try:
            hidden_pairs = list(zip(sizes[:-2], sizes[1:-1]))
            final = (sizes[-2], sizes[-1])
        except (TypeError, IndexError) as err:
            raise type(err)(f"MLP needs a sequence of at least two sizes, got {sizes!r}") from err
        blocks = []
        for n_in, n_out in hidden_pairs:
            block = [nn.Linear(n_in, n_out), nn.ReLU()]
            if dropout > 0:
                block.append(nn.Dropout(dropout))
            blocks.append(nn.Sequential(*block))
        self.hidden = nn.ModuleList(blocks)
        self.out = nn.Linear(*final)

    def forward(self, x):
        try:
            for block in self.hidden:
                x = block(x)
            return self.out(x)
        except RuntimeError as err:
            raise RuntimeError(f"the MLP could not apply its layers to a batch of shape {tuple(x.shape)}") from err
""",
    "plan_mlp": PM + """\
    try:
        last_in, last_out = sizes[-2], sizes[-1]
    except IndexError as err:
        raise IndexError(f"plan_mlp needs at least two sizes, got {sizes!r}") from err
    plan = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-2], sizes[1:-1])):
        plan[f"hidden.{i}.0.weight"] = (n_out, n_in)
        plan[f"hidden.{i}.0.bias"] = (n_out,)
    plan["out.weight"] = (last_out, last_in)
    plan["out.bias"] = (last_out,)
    return plan
""",
    "count_parameters": CP + """\
    total = 0
    try:
        for name, p in model.named_parameters():
            if not trainable_only or p.requires_grad:
                total += p.nelement()
    except AttributeError as err:
        raise AttributeError(f"count_parameters expects an nn.Module, got {type(model).__name__}") from err
    return total
""",
    "freeze": FR + """\
    try:
        modules = list(module.modules())
    except AttributeError as err:
        raise AttributeError(f"freeze expects an nn.Module, got {type(module).__name__}") from err
    for m in modules:
        for p in m.parameters(recurse=False):
            p.requires_grad_(False)
    return module
""",
    "untrained_parameters": UP + """\
    try:
        held = [p for group in optimizer.param_groups for p in group["params"]]
    except (AttributeError, KeyError) as err:
        raise type(err)(f"cannot read the param groups of {type(optimizer).__name__}") from err
    result = []
    for name, p in model.named_parameters():
        if p.requires_grad and not any(p is q for q in held):
            result.append(name)
    return result
""",
}

_ORDER = {  # honest-16's layers constructed in another order with the same result
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        layers = [nn.Linear(sizes[0], sizes[1])]
        for a, b in zip(sizes[1:], sizes[2:]):
            layers.append(nn.ReLU())
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            layers.append(nn.Linear(a, b))
        self.seq = nn.Sequential(*layers)

    def forward(self, x):
        return self.seq(x)
""",
    "plan_mlp": PM + """\
    step = 3 if dropout > 0 else 2
    plan = {}
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        plan[f"seq.{i * step}.weight"] = (n_out, n_in)
        plan[f"seq.{i * step}.bias"] = (n_out,)
    return plan
""",
    "untrained_parameters": UP + """\
    optimizer_params = [q for g in optimizer.param_groups for q in g["params"]]
    return [name for name, p in model.named_parameters()
            if p.requires_grad and not any(q is p for q in optimizer_params)]
""",
}

_MODERN = {  # honest-02's in newer syntax: star unpacking, :=, |= on dicts, match
    "MLP": """\
import torch.nn.functional as F


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.p = dropout
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x):
        *hidden, last = self.layers
        for layer in hidden:
            x = torch.relu(layer(x))
            if (p := self.p) > 0:
                x = F.dropout(x, p=p, training=self.training)
        return last(x)
""",
    "plan_mlp": PM + """\
    plan: dict[str, tuple[int, ...]] = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        plan |= {f"layers.{i}.weight": (b, a), f"layers.{i}.bias": (b,)}
    return plan
""",
    "count_parameters": CP + """\
    match bool(trainable_only):
        case True:
            params = [p for p in model.parameters() if p.requires_grad]
        case False:
            params = list(model.parameters())
    return sum(p.numel() for p in params)
""",
    "untrained_parameters": UP + """\
    names = []
    for name, p in model.named_parameters():
        match p.requires_grad:
            case False:
                continue
        if not any(any(p is q for q in group["params"]) for group in optimizer.param_groups):
            names.append(name)
    return names
""",
}

_CHAIN_B = {  # honest-17's renamed throughout, comments added
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        # every layer in one registered list, in the order forward runs them
        self.layers = nn.ModuleList()
        count = len(sizes) - 1
        for j in range(count):
            self.layers.append(nn.Linear(sizes[j], sizes[j + 1]))
            final = j == count - 1
            if not final:
                self.layers.append(nn.ReLU())  # an activation between layers only
            if not final and dropout > 0:
                self.layers.append(nn.Dropout(dropout))  # only when asked for

    def forward(self, x):
        h = x
        for module in self.layers:
            h = module(h)  # one layer at a time
        return h
""",
    "plan_mlp": PM + """\
    shapes = {}
    count = len(sizes) - 1
    slot = 0  # the position inside the ModuleList
    for j in range(count):
        shapes["layers." + str(slot) + ".weight"] = (sizes[j + 1], sizes[j])
        shapes["layers." + str(slot) + ".bias"] = (sizes[j + 1],)
        slot = slot + 1  # the Linear
        if j != count - 1:
            slot = slot + 1  # its ReLU
        if j != count - 1 and dropout > 0:
            slot = slot + 1  # its Dropout
    return shapes
""",
    "count_parameters": CP + """\
    if trainable_only:
        n = 0
        for w in model.parameters():
            if w.requires_grad:  # the frozen ones left out
                n += w.numel()
        return n
    n = 0
    for w in model.parameters():  # every tensor once
        n += w.numel()
    return n
""",
    "freeze": FR + """\
    for w in module.parameters():  # recurses into the children
        if w.requires_grad:
            w.requires_grad = False  # flip the flag only
    return module
""",
    "untrained_parameters": UP + """\
    left = dict(model.named_parameters())  # name -> tensor
    for pg in optimizer.param_groups:
        for t in pg["params"]:
            for key in list(left):
                if left[key] is t:  # the same object, not the same values
                    del left[key]
    out = []
    for key in left:
        if left[key].requires_grad:  # frozen ones are left out on purpose
            out.append(key)
    return out
""",
}

_CHAIN_C = {  # chain-b's with temporaries introduced and removed, nelement, the two loops as one
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        # every layer in one registered list, in the order forward runs them
        self.layers = nn.ModuleList()
        for j in range(len(sizes) - 1):
            self.layers.append(nn.Linear(sizes[j], sizes[j + 1]))
            if j != len(sizes) - 2:
                self.layers.append(nn.ReLU())  # an activation between layers only
                if dropout > 0:
                    self.layers.append(nn.Dropout(dropout))  # only when asked for

    def forward(self, x):
        for module in self.layers:
            x = module(x)  # one layer at a time
        return x
""",
    "plan_mlp": PM + """\
    shapes = {}
    per_hidden = 3 if dropout > 0 else 2  # Linear, ReLU (and Dropout)
    slot = 0  # the position inside the ModuleList
    for j in range(len(sizes) - 1):
        shapes["layers." + str(slot) + ".weight"] = (sizes[j + 1], sizes[j])
        shapes["layers." + str(slot) + ".bias"] = (sizes[j + 1],)
        slot += per_hidden
    return shapes
""",
    "count_parameters": CP + """\
    n = 0
    for w in model.parameters():  # every tensor once
        if w.requires_grad or not trainable_only:  # the frozen ones left out when asked
            n += w.nelement()
    return n
""",
    "freeze": FR + """\
    for w in module.parameters():  # recurses into the children
        w.requires_grad = False  # flip the flag only
    return module
""",
    "untrained_parameters": UP + """\
    held = {id(t) for pg in optimizer.param_groups for t in pg["params"]}  # the same object, not the same values
    out = []
    for key, w in model.named_parameters():
        if w.requires_grad and id(w) not in held:  # frozen ones are left out on purpose
            out.append(key)
    return out
""",
}

_MERGE = {  # honest-04's MLP and plan, honest-13's count and untrained names
    "MLP": """\
from collections import OrderedDict


""" + MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        parts = OrderedDict()
        n_layers = len(sizes) - 1
        for k in range(1, n_layers + 1):
            parts["fc" + str(k)] = nn.Linear(sizes[k - 1], sizes[k])
            if k < n_layers:
                parts["relu" + str(k)] = nn.ReLU()
                if dropout > 0:
                    parts["drop" + str(k)] = nn.Dropout(p=dropout)
        self.model = nn.Sequential(parts)

    def forward(self, x):
        return self.model(x)
""",
    "plan_mlp": PM + """\
    plan = {}
    for k in range(1, len(sizes)):
        plan["model.fc" + str(k) + ".weight"] = (sizes[k], sizes[k - 1])
        plan["model.fc" + str(k) + ".bias"] = (sizes[k],)
    return plan
""",
    "count_parameters": """\
import math


""" + CP + """\
    sizes = [math.prod(p.shape) for p in model.parameters() if p.requires_grad or not trainable_only]
    return sum(sizes)
""",
    "untrained_parameters": UP + """\
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held]
""",
}

_HALF = {  # honest-05's count and untrained names, the loop as a comprehension, the held dict as a set
    "count_parameters": CP + """\
    counted = {id(v): v for v in model.state_dict(keep_vars=True).values() if isinstance(v, nn.Parameter)}
    return sum(v.numel() for v in counted.values() if v.requires_grad or not trainable_only)
""",
    "untrained_parameters": UP + """\
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    trainable = {name: p for name, p in model.named_parameters() if p.requires_grad}
    return [name for name, p in trainable.items() if id(p) not in held]
""",
}

_HALF_OWN = {  # ... and the other three of the copier's own
    "MLP": MLP + """\
    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.trunk = nn.Sequential()
        for i, (a, b) in enumerate(zip(sizes[:-2], sizes[1:-1])):
            self.trunk.add_module(f"hidden{i}", nn.Linear(a, b))
            self.trunk.add_module(f"relu{i}", nn.ReLU())
            if dropout > 0:
                self.trunk.add_module(f"drop{i}", nn.Dropout(dropout))
        self.head = nn.Linear(sizes[-2], sizes[-1])

    def forward(self, x):
        return self.head(self.trunk(x))
""",
    "plan_mlp": PM + """\
    plan = {}
    for i, (a, b) in enumerate(zip(sizes[:-2], sizes[1:-1])):
        plan[f"trunk.hidden{i}.weight"] = (b, a)
        plan[f"trunk.hidden{i}.bias"] = (b,)
    plan["head.weight"] = (sizes[-1], sizes[-2])
    plan["head.bias"] = (sizes[-1],)
    return plan
""",
    "freeze": FR + """\
    module.requires_grad_(requires_grad=False)
    return module
""",
}

_ALL = ("MLP", "plan_mlp", "count_parameters", "freeze", "untrained_parameters")


def _taken(classmate: str, cells=_ALL) -> dict[str, str]:
    return {cell: classmate for cell in cells}


COPIES = [
    Copy("copier-rename", "every local renamed, comments written in", _taken("honest-03"), _RENAME),
    Copy("copier-reorder", "independent statements reordered, an and's operands swapped", _taken("honest-10"),
         _REORDER),
    Copy("copier-helpers", "code moved into methods and helper functions", _taken("honest-07"), _HELPERS),
    Copy("copier-inline", "helpers inlined", _taken("honest-15"), _INLINE),
    Copy("copier-closure", "wrapped in closures and a small class", _taken("honest-01"), _CLOSURE),
    Copy("copier-constants", "literals hoisted into module-level constants", _taken("honest-01"), _CONSTANTS),
    Copy("copier-loops", "map, filter and a while loop unrolled into for loops and slices", _taken("honest-12"),
         _LOOPS),
    Copy("copier-functional", "loops folded into comprehensions, reduce and filter", _taken("honest-17"),
         _FUNCTIONAL),
    Copy("copier-while", "while loops as for loops", _taken("honest-14"), _WHILE),
    Copy("copier-negated", "conditions negated with branches swapped", _taken("honest-02"), _NEGATED),
    Copy("copier-early", "nested if/else as early returns, continue as nested ifs", _taken("honest-11"), _EARLY),
    Copy("copier-spelling", "equivalent PyTorch and Python spellings", _taken("honest-13"), _SPELLING),
    Copy("copier-format", "% formatting as f-strings and str.format", _taken("honest-04"), _FORMAT),
    Copy("copier-stripped", "type hints, docstrings and comments removed", _taken("honest-09"), _STRIPPED),
    Copy("copier-deadcode", "dead code, debug prints and asserts added", _taken("honest-08"), _DEADCODE),
    Copy("copier-args", "positional arguments renamed", _taken("honest-05"), _ARGS),
    Copy("copier-try", "try/except wrappers re-raising the same exception type", _taken("honest-06"), _TRY),
    Copy("copier-order", "layers constructed in another order with the same result", _taken("honest-16"), _ORDER),
    Copy("copier-modern", "newer syntax: star unpacking, assignment expressions, |= on dicts, match",
         _taken("honest-02"), _MODERN),
    Copy("chain-b", "renamed throughout, comments added (first link of a chain)", _taken("honest-17"), _CHAIN_B),
    Copy("chain-c", "temporaries introduced and removed, nelement, two loops as one (second link of a chain)",
         _taken("chain-b"), _CHAIN_C),
    Copy("copier-merge", "two classmates merged, names by concatenation, numpy as math",
         {"MLP": "honest-04", "plan_mlp": "honest-04", "count_parameters": "honest-13", "freeze": "honest-13",
          "untrained_parameters": "honest-13"}, _MERGE),
    Copy("copier-half", "two cells copied, a loop as a comprehension, a dict as a set",
         _taken("honest-05", ("count_parameters", "untrained_parameters")), _HALF, _HALF_OWN),
]


def planted_cohort() -> Planted:
    """The planted cohort of module 03's second set (forty-two students)."""
    return assemble(MODULE, HONEST, COPIES, CANONICAL_OWN_NAMES, _ALL)


def main(argv: list[str]) -> int:
    return print_measures(MODULE, planted_cohort())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
