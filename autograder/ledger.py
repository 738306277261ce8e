"""The ledger: who held which state, in what order, during one call of learner code.

A training loop hands state between owners: the module owns parameters and mode,
autograd owns the graph of the current forward pass, parameters own ``.grad``,
the optimizer owns its update state.  :class:`Ledger` instruments those owners
and records the ordered events of one call::

    with Ledger(model, optimizer, loss_fn=loss_fn) as ledger:
        train_step(model, x, y, optimizer, loss_fn)
    ledger            # a table in a notebook, plain text elsewhere

Events (``Event.kind``):

``forward``   the model ran: its mode, grad mode, input and output tensors
``loss``      the loss function ran: its input shapes and the value
``backward``  ``backward()`` ran: per parameter, the gradient before and after
              (``none``/``zero``/``nonzero``) and whether this backward reached it
``zero_grad`` ``optimizer.zero_grad()`` or ``model.zero_grad()`` (and ``set_to_none``)
``step``      ``optimizer.step()``: the gradients it saw and the parameters it changed
``mode``      ``model.train()`` / ``model.eval()``
``call``      a function call with tensor arguments (see :meth:`Ledger.call`)

Everything is removed again on exit; the instrumented objects are left as they were.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import torch
from torch import nn

from .core import describe

NONE, ZERO, NONZERO = "none", "zero", "nonzero"


def grad_state(p: torch.Tensor) -> str:
    """``"none"``, ``"zero"`` or ``"nonzero"`` for a parameter's current ``.grad``."""
    g = p.grad
    if g is None:
        return NONE
    return NONZERO if bool(torch.count_nonzero(g.detach()) > 0) else ZERO


def tensor_info(t) -> dict:
    if not isinstance(t, torch.Tensor):
        return {"type": type(t).__name__}
    return {
        "shape": tuple(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "device": str(t.device),
        "requires_grad": bool(t.requires_grad),
        "has_graph": t.grad_fn is not None,
    }


def _fmt_tensor(info: dict) -> str:
    if "shape" not in info:
        return info.get("type", "?")
    return f"{info['dtype']} {list(info['shape'])} {info['device']}"


@dataclass
class Event:
    index: int
    kind: str
    owner: str
    data: dict = field(default_factory=dict)

    def summary(self) -> str:
        d = self.data
        if self.kind == "forward":
            ins = ", ".join(_fmt_tensor(i) for i in d["inputs"])
            out = _fmt_tensor(d["output"])
            mode = "train" if d["training"] else "eval"
            grad = "grad on" if d["grad_enabled"] else "no_grad"
            return f"{d['module']}: mode={mode}, {grad}; in {ins} → out {out}"
        if self.kind == "loss":
            ins = " vs ".join(_fmt_tensor(i) for i in d["inputs"])
            return f"{ins} → {d['value']:.4g}" if d.get("value") is not None else ins
        if self.kind == "backward":
            if d.get("error"):
                return f"raised {d['error']}"
            got = ", ".join(d["received"]) or "no parameter"
            dirty = [n for n, s in d["before"].items() if s == NONZERO]
            stale = f"; already held .grad: {', '.join(dirty)}" if dirty else "; .grad clean before"
            return f"gradients reached {got}{stale}"
        if self.kind == "zero_grad":
            how = "set_to_none" if d.get("set_to_none", True) else "fill with 0"
            return f"{d['by']}.zero_grad() ({how})"
        if self.kind == "step":
            changed = ", ".join(d["changed"]) or "nothing"
            no_grad = [n for n, s in d["grads"].items() if s != NONZERO]
            extra = f"; no gradient for {', '.join(no_grad)}" if no_grad else ""
            state = ""
            if d.get("state_after") != d.get("state_before"):
                state = f"; optimizer state for {d.get('state_after')} tensors (was {d.get('state_before')})"
            return f"changed {changed}{extra}{state}"
        if self.kind == "mode":
            return f"{d['module']}.{'train()' if d['training'] else 'eval()'}"
        if self.kind == "call":
            ins = ", ".join(_fmt_tensor(i) for i in d["inputs"])
            outs = ", ".join(_fmt_tensor(o) for o in d["outputs"])
            return f"{d['function']}({ins}) → {outs}"
        return repr(d)


class Ledger:
    """Record the ordered hand-offs of state during a block of learner code."""

    def __init__(self, model: nn.Module | None = None, optimizer=None, *, loss_fn=None,
                 submodules: bool = False, watch_buffers: bool = True):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.submodules = submodules
        self.watch_buffers = watch_buffers
        self.events: list[Event] = []
        self._handles: list = []
        self._patched: list[tuple[object, str, bool]] = []
        self._received: set[str] = set()
        self._in_backward = 0
        self._step_snapshot: dict | None = None
        self.active = False

    # -- names ----------------------------------------------------------------
    def _params(self) -> list[tuple[str, torch.Tensor]]:
        seen: dict[int, tuple[str, torch.Tensor]] = {}
        if self.model is not None:
            for name, p in self.model.named_parameters(remove_duplicate=True):
                seen.setdefault(id(p), (name, p))
        if self.optimizer is not None:
            for gi, group in enumerate(self.optimizer.param_groups):
                for pi, p in enumerate(group["params"]):
                    seen.setdefault(id(p), (f"optimizer.param_groups[{gi}][{pi}]", p))
        return list(seen.values())

    def _record(self, kind: str, owner: str, **data) -> Event:
        event = Event(len(self.events), kind, owner, data)
        self.events.append(event)
        return event

    # -- install / remove ------------------------------------------------------
    def __enter__(self) -> Ledger:
        self.active = True
        params = self._params()
        for name, p in params:
            if p.requires_grad:
                self._handles.append(p.register_post_accumulate_grad_hook(self._on_grad(name)))
        if self.model is not None:
            modules = self.model.named_modules() if self.submodules else [("model", self.model)]
            for name, module in modules:
                label = name or "model"
                self._handles.append(module.register_forward_hook(self._on_forward(label), with_kwargs=True))
            self._patch(self.model, "train", self._wrap_train)
            self._patch(self.model, "zero_grad", self._wrap_zero_grad("model"))
        if self.loss_fn is not None and isinstance(self.loss_fn, nn.Module):
            self._handles.append(self.loss_fn.register_forward_hook(self._on_loss, with_kwargs=True))
        if self.optimizer is not None:
            self._handles.append(self.optimizer.register_step_pre_hook(self._on_step_pre))
            self._handles.append(self.optimizer.register_step_post_hook(self._on_step_post))
            self._patch(self.optimizer, "zero_grad", self._wrap_zero_grad("optimizer"))
        self._patch(torch.autograd, "backward", self._wrap_backward)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        for obj, attr, had_own in reversed(self._patched):
            if had_own:
                setattr(obj, attr, getattr(obj, f"__ledger_original_{attr}"))
                delattr(obj, f"__ledger_original_{attr}")
            else:
                try:
                    delattr(obj, attr)
                except AttributeError:
                    pass
        self._patched.clear()
        self.active = False

    def _patch(self, obj, attr: str, make_wrapper) -> None:
        original = getattr(obj, attr)
        had_own = attr in getattr(obj, "__dict__", {})
        if had_own:
            setattr(obj, f"__ledger_original_{attr}", original)
        setattr(obj, attr, make_wrapper(original))
        self._patched.append((obj, attr, had_own))

    # -- hooks -----------------------------------------------------------------
    def _on_forward(self, label: str):
        def hook(module, args, kwargs, output):
            inputs = [tensor_info(a) for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
            self._record(
                "forward", "module",
                module=label, training=bool(module.training),
                grad_enabled=torch.is_grad_enabled(),
                inputs=inputs, output=tensor_info(output),
                submodule_modes={n or "model": m.training for n, m in module.named_modules()},
            )
        return hook

    def _on_loss(self, module, args, kwargs, output):
        inputs = [tensor_info(a) for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
        value = None
        if isinstance(output, torch.Tensor) and output.numel() == 1:
            value = float(output.detach().float().item())
        self._record("loss", "loss function", inputs=inputs, output=tensor_info(output), value=value)

    def _on_grad(self, name: str):
        def hook(p):
            self._received.add(name)
        return hook

    def _wrap_backward(self, original):
        ledger = self

        def backward(tensors, *args, **kwargs):
            if ledger._in_backward:
                return original(tensors, *args, **kwargs)
            params = ledger._params()
            before = {n: grad_state(p) for n, p in params}
            root = tensors[0] if isinstance(tensors, (tuple, list)) and tensors else tensors
            ledger._received = set()
            ledger._in_backward += 1
            error = None
            try:
                return original(tensors, *args, **kwargs)
            except Exception as exc:
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                raise
            finally:
                ledger._in_backward -= 1
                after = {n: grad_state(p) for n, p in params}
                value = None
                if isinstance(root, torch.Tensor) and root.numel() == 1:
                    value = float(root.detach().float().item())
                ledger._record(
                    "backward", "autograd → .grad",
                    root=tensor_info(root), value=value, before=before, after=after,
                    received=sorted(ledger._received, key=list(before).index), error=error,
                )
        return backward

    def _wrap_train(self, original):
        ledger = self

        def train(mode: bool = True):
            result = original(mode)
            ledger._record("mode", "module", module="model", training=bool(mode))
            return result
        return train

    def _wrap_zero_grad(self, by: str):
        ledger = self

        def make(original):
            def zero_grad(set_to_none: bool = True):
                result = original(set_to_none)
                ledger._record("zero_grad", by, by=by, set_to_none=bool(set_to_none))
                return result
            return zero_grad
        return make

    def _on_step_pre(self, optimizer, args, kwargs):
        params = self._params()
        self._step_snapshot = {
            "values": {n: p.detach().clone() for n, p in params},
            "grads": {n: grad_state(p) for n, p in params},
            "grad_values": {n: (None if p.grad is None else p.grad.detach().clone()) for n, p in params},
            "state_before": len(optimizer.state),
        }

    def _on_step_post(self, optimizer, args, kwargs):
        snap = self._step_snapshot or {"values": {}, "grads": {}, "grad_values": {}}
        changed = []
        for n, p in self._params():
            old = snap["values"].get(n)
            if old is not None and not torch.equal(old, p.detach()):
                changed.append(n)
        self._record("step", "optimizer", grads=snap["grads"], grad_values=snap["grad_values"], changed=changed,
                     state_before=snap.get("state_before", 0), state_after=len(optimizer.state))
        self._step_snapshot = None

    # -- explicit recording ----------------------------------------------------
    def call(self, fn, *args, **kwargs):
        """Call ``fn`` and record its tensor inputs and outputs as a ``call`` event."""
        result = fn(*args, **kwargs)
        outs = result if isinstance(result, (tuple, list)) else (result,)
        self._record(
            "call", getattr(fn, "__name__", "function"),
            function=getattr(fn, "__name__", "function"),
            inputs=[tensor_info(a) for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)],
            outputs=[tensor_info(o) for o in outs],
        )
        return result

    # -- queries ---------------------------------------------------------------
    def of(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def first(self, kind: str) -> Event | None:
        found = self.of(kind)
        return found[0] if found else None

    # -- display ---------------------------------------------------------------
    def rows(self) -> list[tuple[int, str, str, str]]:
        return [(e.index, e.kind, e.owner, e.summary()) for e in self.events]

    def __str__(self) -> str:
        if not self.events:
            return "(the ledger recorded no events)"
        rows = [("#", "event", "owner", "what happened")] + [(str(i), k, o, s) for i, k, o, s in self.rows()]
        widths = [max(len(r[c]) for r in rows) for c in range(3)]
        lines = []
        for r in rows:
            lines.append("  ".join(r[c].ljust(widths[c]) for c in range(3)) + "  " + r[3])
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Ledger: {len(self.events)} events>\n{self}"

    _KIND_COLOURS = {
        "forward": "#ddf4ff", "loss": "#fff8c5", "backward": "#ffebe9", "zero_grad": "#eaeef2",
        "step": "#dafbe1", "mode": "#fbefff", "call": "#f6f8fa",
    }

    def _repr_html_(self) -> str:
        if not self.events:
            return "<p><em>The ledger recorded no events.</em></p>"
        head = "".join(f"<th style='text-align:left'>{h}</th>" for h in ("#", "event", "owner", "what happened"))
        body = []
        for i, kind, owner, summary in self.rows():
            colour = self._KIND_COLOURS.get(kind, "#ffffff")
            body.append(
                f"<tr style='background:{colour}'><td>{i}</td><td><b>{html.escape(kind)}</b></td>"
                f"<td>{html.escape(owner)}</td><td style='text-align:left'>{html.escape(summary)}</td></tr>"
            )
        return f"<table class='autograder-ledger'><tr>{head}</tr>{''.join(body)}</table>"

    def grad_table(self) -> str:
        """The gradient column: each parameter's state after every backward, as text."""
        lines = []
        for e in self.of("backward"):
            states = ", ".join(f"{n}={s}" for n, s in e.data["after"].items())
            lines.append(f"#{e.index}: {states}")
        return "\n".join(lines)


__all__ = ["Ledger", "Event", "grad_state", "tensor_info", "describe", "NONE", "ZERO", "NONZERO"]
