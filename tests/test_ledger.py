"""The ledger records the hand-offs of one call in order, and leaves no trace behind."""

from collections import OrderedDict

import torch
from torch import nn

from autograder import Ledger
from autograder.ledger import NONE, NONZERO, ZERO, grad_state


def _setup(seed=0):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.BCEWithLogitsLoss()
    x, y = torch.randn(8, 2), torch.randint(0, 2, (8, 1)).float()
    return model, opt, loss_fn, x, y


def test_five_line_step_in_order():
    model, opt, loss_fn, x, y = _setup()
    with Ledger(model, opt, loss_fn=loss_fn) as ledger:
        model.train()
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    assert ledger.kinds() == ["mode", "zero_grad", "forward", "loss", "backward", "step"]
    fwd, back, step = ledger.first("forward"), ledger.first("backward"), ledger.first("step")
    assert fwd.data["training"] and fwd.data["grad_enabled"]
    assert fwd.data["inputs"][0]["shape"] == (8, 2) and fwd.data["output"]["shape"] == (8, 1)
    assert set(back.data["before"].values()) == {NONE}
    assert set(back.data["after"].values()) == {NONZERO}
    assert back.data["received"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert step.data["changed"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert abs(ledger.first("loss").data["value"] - loss.item()) < 1e-6


def test_wrong_orders_are_visible():
    model, opt, loss_fn, x, y = _setup()
    loss_fn(model(x), y).backward()  # an earlier batch left gradients behind
    with Ledger(model, opt, loss_fn=loss_fn) as ledger:
        loss_fn(model(x), y).backward()  # no zero_grad: accumulates
        opt.zero_grad()  # then cleared before the step
        opt.step()
    back = ledger.first("backward")
    assert set(back.data["before"].values()) == {NONZERO}, "stale gradients must show before backward"
    assert ledger.first("step").data["changed"] == []
    assert set(ledger.first("step").data["grads"].values()) == {NONE}


def test_modes_no_grad_model_zero_grad_and_frozen():
    model, opt, loss_fn, x, y = _setup()
    for p in model[0].parameters():
        p.requires_grad_(False)
    with Ledger(model, opt, loss_fn=loss_fn) as ledger:
        model.eval()
        with torch.no_grad():
            model(x)
        model.train()
        model.zero_grad(set_to_none=False)
        loss_fn(model(x), y).backward()
    kinds = ledger.kinds()
    assert kinds == ["mode", "forward", "mode", "zero_grad", "forward", "loss", "backward"]
    first_fwd = ledger.first("forward")
    assert not first_fwd.data["training"] and not first_fwd.data["grad_enabled"]
    assert ledger.of("zero_grad")[0].data == {"by": "model", "set_to_none": False}
    back = ledger.first("backward")
    assert back.data["after"]["0.weight"] == NONE and back.data["received"] == ["2.weight", "2.bias"]


def test_dead_relu_gives_zero_not_none():
    model, _, loss_fn, x, y = _setup()
    with torch.no_grad():
        model[0].bias.fill_(-100.0)
    with Ledger(model) as ledger:
        loss_fn(model(x), y).backward()
    after = ledger.first("backward").data["after"]
    assert after["0.weight"] == ZERO and after["2.bias"] == NONZERO
    assert grad_state(model[0].weight) == ZERO


def test_ledger_leaves_no_trace():
    model, opt, loss_fn, x, y = _setup()
    original_backward = torch.autograd.backward
    with Ledger(model, opt, loss_fn=loss_fn, submodules=True) as ledger:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    assert len(ledger.of("forward")) == 4  # the model and its three children
    assert torch.autograd.backward is original_backward
    assert "train" not in model.__dict__ and "zero_grad" not in model.__dict__
    assert "zero_grad" not in opt.__dict__
    assert not model._forward_hooks and not loss_fn._forward_hooks
    assert not any(m._forward_hooks for m in model.modules())
    assert not opt._optimizer_step_pre_hooks and not opt._optimizer_step_post_hooks
    assert all(not p._post_accumulate_grad_hooks for p in model.parameters())
    # and nothing is recorded afterwards
    before = len(ledger.events)
    loss_fn(model(x), y).backward()
    assert len(ledger.events) == before


def test_rendering_text_and_html():
    model, opt, loss_fn, x, y = _setup()
    with Ledger(model, opt, loss_fn=loss_fn) as ledger:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    text = str(ledger)
    assert "zero_grad" in text and "backward" in text and "changed 0.weight" in text
    html = ledger._repr_html_()
    assert html.count("<tr") == 1 + len(ledger.events)
    assert "0.weight=nonzero" in ledger.grad_table()


def test_call_records_shapes_and_devices():
    ledger = Ledger()
    out = ledger.call(torch.cat, [torch.zeros(2, 3), torch.ones(1, 3)])
    assert out.shape == (3, 3)
    ledger.call(torch.reshape, torch.zeros(6), (2, 3))
    event = ledger.events[-1]
    assert event.kind == "call" and event.data["inputs"][0]["shape"] == (6,)
    assert event.data["outputs"][0]["shape"] == (2, 3) and event.data["outputs"][0]["device"] == "cpu"


def test_lessons_run_probe_sees_stale_grads_clipping_and_comes_off():
    """The lesson's probe: stale .grad counted, a clip between backward and step marked, the input's scale and
    the update's size measured, and no hook left once its block ends, even one that raised."""
    from autograder.lessons import RunProbe

    model, opt, loss_fn, x, y = _setup()
    with RunProbe(model, opt) as probe:
        for clip in (False, True):  # no zero_grad: the second backward finds every .grad still full
            loss_fn(model(x * 10), y).backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), 1e-3)
            opt.step()
    kinds = [e["event"] for e in probe.events]
    assert kinds == ["forward", "backward", "step"] * 2
    backward = [e for e in probe.events if e["event"] == "backward"]
    assert [b["stale"] for b in backward] == [0, 4]
    steps = [e for e in probe.events if e["event"] == "step"]
    assert [s["clipped"] for s in steps] == [False, True] and steps[1]["read"] < 1.01e-3
    assert probe.events[0]["std"] > 5 and all(s["update"] > 0 for s in steps)
    assert len(probe.lines()) == 6
    try:
        with RunProbe(model, opt):
            raise KeyError("inside")
    except KeyError:
        pass
    assert not model._forward_pre_hooks and not opt._optimizer_step_pre_hooks and not opt._optimizer_step_post_hooks
    assert all(not p._backward_hooks and not p._post_accumulate_grad_hooks for p in model.parameters())


def test_lessons_confusion_counts_pairs_and_draws():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from autograder.lessons import confusion, draw_confusion

    counts = confusion(torch.tensor([0, 1, 2, 2]), torch.tensor([0, 2, 2, 2]), num_classes=3)
    assert counts.tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 2]]
    fig, ax = plt.subplots()
    draw_confusion(ax, counts, "t")
    assert len(ax.texts) == 3 and ax.get_title() == "t"
    plt.close(fig)


def test_lessons_owner_table_and_explorer():
    """Lesson 04's instruments: every owner read before a step and after each line, in the graded trace's words
    (autograder.owners), the table marking what a line changed, and the explorer's readout for a picked event."""
    from autograder.lessons import event_readout, event_table, step_explorer
    from autograder.owners import graph_state, rows, snapshot

    _, _, loss_fn, x, y = _setup()
    torch.manual_seed(0)
    model = nn.Sequential(OrderedDict(hidden=nn.Linear(2, 4), act=nn.ReLU(), out=nn.Linear(4, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    lines = ["opt.zero_grad()", "logits = model(x)", "loss = loss_fn(logits, y)", "loss.backward()", "opt.step()"]
    with Ledger(model, opt, loss_fn=loss_fn) as ledger:
        snaps = [snapshot(model, opt, None)]
        opt.zero_grad()
        snaps.append(snapshot(model, opt, None))
        logits = model(x)
        snaps.append(snapshot(model, opt, None, graph_of=logits))
        loss = loss_fn(logits, y)
        snaps.append(snapshot(model, opt, loss))
        loss.backward()
        snaps.append(snapshot(model, opt, loss))
        opt.step()
        snaps.append(snapshot(model, opt, loss))
    assert graph_state(None) == "none" and graph_state(x) == "none"
    table = rows(snaps, ("out.weight", (0, 0)))
    assert [r["graph"] for r in table] == ["none", "alive", "alive", "freed", "freed"]
    assert [r["grad"]["out.weight"] for r in table] == ["none", "none", "none", "nonzero", "nonzero"]
    assert [r["momentum"]["out.weight"] for r in table] == ["absent"] * 4 + ["created"]
    assert table[-1]["changed"]["out.weight"] and table[-1]["delta"] != 0 and table[2]["loss"] == loss.item()
    html = event_table(ledger, snaps, lines)
    assert html.count("<tr>") == 6 and "#fff8c5" in html and "created ×" in html
    assert "▶ loss.backward()" in event_readout((ledger, snaps), lines, 3)
    explorer = step_explorer({"one step": (ledger, snaps)}, lines)
    picker, slider, readout = explorer.children
    slider.value = 4
    assert "▶ opt.step()" in readout.value and "created" in readout.value
