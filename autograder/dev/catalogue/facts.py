"""Messages held to the run that produced them.

While a catalogue entry is judged, :func:`recording` watches every call a check makes of the learner's code
(through ``call`` in :mod:`autograder.checks`): the forward passes that ran inside it (the module's mode, whether
gradient recording was on, whether the output holds a graph), the optimizer steps and ``zero_grad`` calls, the
autograd calls (``backward``, ``torch.autograd.grad``), whether the parameters of the models passed in changed,
and what each call returned.  Each result a check shows is then read for the facts its message states
(:data:`CLAIMS`: a mode, a graph, a step, a change of the parameters, the use of autograd, a returned value), and
every one is compared with what was watched during that check.  A claim the run contradicts is a problem of the
message, reported by :func:`problems`.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field

import torch
from torch import nn


@dataclass
class Call:
    """One call of the learner's code by a check."""

    name: str
    forwards: list = field(default_factory=list)  # (training, grad enabled, output has a graph)
    steps: list = field(default_factory=list)  # id() of each optimizer that stepped
    zero_grads: list = field(default_factory=list)  # id() of each optimizer whose zero_grad ran
    autograd: int = 0  # backward() and torch.autograd.grad calls
    optimizers: tuple = ()  # id() of the optimizers passed in
    changed: bool | None = None  # whether a parameter of a module passed in changed (None: no module passed)
    events: list = field(default_factory=list)  # "backward", "zero_grad" and "step", in the order they ran
    returned: object = None


@dataclass
class Evidence:
    """What the learner's code did during one check."""

    calls: list = field(default_factory=list)

    def of(self, name: str) -> list:
        return [c for c in self.calls if c.name == name]


def _number(text: str) -> float:
    return float(text.rstrip("."))


def _close(value, shown: str) -> bool:
    """Whether ``value`` (a returned number) prints as ``shown`` at the precision shown."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    target = _number(shown)
    mantissa, _, exponent = shown.rstrip(".").partition("e")
    decimals = len(mantissa.partition(".")[2])
    half_unit = 0.5 * 10 ** (-decimals) * 10 ** (int(exponent) if exponent else 0)  # the rounding of what is shown
    return abs(float(value) - target) <= half_unit * 1.01 + 1e-12


def _in_order(ev: Evidence, *kinds: str) -> bool:
    """Whether some call ran events of these kinds in this order (others may come between)."""
    for c in ev.calls:
        it = iter(c.events)
        if all(any(e == kind for e in it) for kind in kinds):
            return True
    return False


def _modes(ev: Evidence) -> list:
    return [f for c in ev.calls for f in c.forwards]


#: (what the message states, its pattern, whether the watched run agrees: f(evidence, match) -> bool)
CLAIMS = [
    ("a forward pass ran in train mode", re.compile(r"ran in train mode|ran with the model in train mode|"
                                                    r"the model was in train mode"),
     lambda ev, m: any(f[0] for f in _modes(ev))),
    ("a forward pass ran in eval mode", re.compile(r"ran in eval mode|with model\.training False"),
     lambda ev, m: any(not f[0] for f in _modes(ev))),
    ("every forward pass ran in eval mode", re.compile(r"every forward pass (?:of \w+ )?ran (?:with the model )?in eval mode"),
     lambda ev, m: bool(_modes(ev)) and not any(f[0] for f in _modes(ev))),
    ("a forward pass recorded an autograd graph", re.compile(r"recorded an autograd graph"),
     lambda ev, m: any(f[2] for f in _modes(ev))),
    ("a forward pass ran with gradient recording off", re.compile(r"ran with gradient recording off"),
     lambda ev, m: any(not f[1] for f in _modes(ev))),
    ("the parameters did not change", re.compile(r"the parameters did not change"),
     lambda ev, m: bool(ev.calls) and ev.calls[-1].changed is False),
    ("the optimizer passed in never stepped", re.compile(r"step\(\) (?:never ran|of the optimizer passed to \w+ "
                                                         r"never ran)"),
     lambda ev, m: bool(ev.calls) and not set(ev.calls[-1].steps) & set(ev.calls[-1].optimizers)),
    ("autograd was used", re.compile(r"must not use autograd|used autograd"),
     lambda ev, m: any(c.autograd for c in ev.calls)),
    ("zero_grad() of the caller's optimizer ran", re.compile(r"called zero_grad\(\) on the caller's optimizer"),
     lambda ev, m: any(set(c.zero_grads) & set(c.optimizers) for c in ev.calls)),
    ("zero_grad ran after a backward() and before the step()",
     re.compile(r"zero_grad ran (?:between backward\(\) and step\(\)|after the first micro-batch's backward)"),
     lambda ev, m: _in_order(ev, "backward", "zero_grad", "step")),
    ("the function returned this number", re.compile(r"\b(\w+) returned (-?\d+(?:\.\d+)?(?:e-?\d+)?)[ .,;:]"),
     lambda ev, m: not ev.of(m.group(1)) or any(_close(c.returned, m.group(2)) for c in ev.of(m.group(1)))),
]


def claims(text: str) -> list:
    """The claims of :data:`CLAIMS` that ``text`` (a message) states, with their matches."""
    return [(what, match, agrees) for what, pattern, agrees in CLAIMS for match in pattern.finditer(text)]


def false_claims(text: str, ev: Evidence) -> list[str]:
    """The claims of ``text`` that the evidence contradicts.  A check that called no learner code (it read a run
    an earlier check made and kept) left nothing watched to contradict it."""
    if not ev.calls:
        return []
    return [f"{what} ({match.group(0)!r})" for what, match, agrees in claims(text) if not agrees(ev, match)]


def _snapshot(modules) -> list:
    return [p.detach().clone() for m in modules for p in m.parameters()]


class _Recorder:
    def __init__(self):
        self.evidence = Evidence()
        self.active: list[Call] = []
        self.found: list[tuple[str, str, list[str]]] = []  # (function, part, false claims)

    # --- the learner's calls
    def wrap(self, original):
        recorder = self

        def call(fn, *args, **kwargs):
            __tracebackhide__ = True
            name = getattr(fn, "__name__", "") or ""
            modules = [a for a in list(args) + list(kwargs.values()) if isinstance(a, nn.Module)]
            optimizers = tuple(id(a) for a in list(args) + list(kwargs.values())
                               if isinstance(a, torch.optim.Optimizer))
            record = Call(name, optimizers=optimizers)
            before = _snapshot(modules) if modules else None
            recorder.active.append(record)
            try:
                record.returned = original(fn, *args, **kwargs)
                return record.returned
            finally:
                recorder.active.pop()
                if before is not None:
                    after = _snapshot(modules)
                    record.changed = len(after) != len(before) or any(
                        a.shape != b.shape or not torch.equal(a, b) for a, b in zip(after, before))
                recorder.evidence.calls.append(record)

        return call

    def current(self):
        return self.active[-1] if self.active else None

    # --- hooks
    def forward(self, module, args, output):
        record = self.current()
        if record is not None and any(True for _ in module.parameters(recurse=False)):
            graph = isinstance(output, torch.Tensor) and output.grad_fn is not None
            record.forwards.append((module.training, torch.is_grad_enabled(), graph))

    def step(self, optimizer, args, kwargs):
        record = self.current()
        if record is not None:
            record.steps.append(id(optimizer))
            record.events.append("step")

    def listener(self, result, module_name):
        from ...core import INCORRECT

        if result.outcome == INCORRECT:
            wrong = false_claims(result.message(), self.evidence)
            if wrong:
                self.found.append((result.function, result.part, wrong))
        self.evidence = Evidence()


@contextlib.contextmanager
def recording():
    """Watch the learner's code while checks run; yields the recorder, whose ``found`` lists every message that
    stated a fact its run contradicts."""
    import importlib
    import pkgutil

    from torch.nn.modules.module import register_module_forward_hook
    from torch.optim.optimizer import register_optimizer_step_post_hook

    from ... import checks, core

    recorder = _Recorder()
    patched = []
    for info in pkgutil.iter_modules(checks.__path__):
        module = importlib.import_module(f"{checks.__name__}.{info.name}")
        if getattr(module, "call", None) is core.call:
            patched.append(module)
            module.call = recorder.wrap(core.call)
    zero_grad = torch.optim.Optimizer.zero_grad

    def recording_zero_grad(self, *args, **kwargs):
        record = recorder.current()
        if record is not None:
            record.zero_grads.append(id(self))
            record.events.append("zero_grad")
        return zero_grad(self, *args, **kwargs)

    module_zero_grad = nn.Module.zero_grad

    def recording_module_zero_grad(self, *args, **kwargs):
        record = recorder.current()
        if record is not None:
            record.events.append("zero_grad")
        return module_zero_grad(self, *args, **kwargs)

    backward, grad = torch.autograd.backward, torch.autograd.grad

    def counting(original, kind):
        def counted(*args, **kwargs):
            record = recorder.current()
            if record is not None:
                record.autograd += 1
                record.events.append(kind)
            return original(*args, **kwargs)
        return counted

    torch.optim.Optimizer.zero_grad = recording_zero_grad
    nn.Module.zero_grad = recording_module_zero_grad
    torch.autograd.backward, torch.autograd.grad = counting(backward, "backward"), counting(grad, "grad")
    handles = [register_module_forward_hook(recorder.forward), register_optimizer_step_post_hook(recorder.step)]
    core.RESULT_LISTENERS.append(recorder.listener)
    try:
        yield recorder
    finally:
        core.RESULT_LISTENERS.remove(recorder.listener)
        for handle in handles:
            handle.remove()
        torch.optim.Optimizer.zero_grad = zero_grad
        nn.Module.zero_grad = module_zero_grad
        torch.autograd.backward, torch.autograd.grad = backward, grad
        for module in patched:
            module.call = core.call


def problems(recorder) -> list[str]:
    """Each message the recorder saw stating a fact its run contradicts."""
    return [f"{function} ({part}) states what its run contradicts: {'; '.join(wrong)}"
            for function, part, wrong in recorder.found]
