"""The instruments lessons 05 and 08 call in one line (autograder/lessons.py): they measure and draw what the
lesson says they do."""

import random

import matplotlib.pyplot as plt  # conftest.py sets the Agg backend
import numpy as np
import pytest
import torch
from torch import nn

from autograder.lessons import (
    GraphMeter,
    describe_checkpoint,
    draw_graph_memory,
    draw_history,
    draw_resumes,
    draw_seed_spread,
    draw_two_runs,
    spread_explorer,
    spread_report,
)


@pytest.fixture
def axes():
    fig, axes = plt.subplots(1, 2)
    yield axes
    plt.close(fig)


def _meter_run(how: str, batches: int = 5) -> tuple[list[float], float]:
    """Lesson 05's three validation loops on a wide layer: the MiB the meter reads after each batch, and the mean."""
    torch.manual_seed(0)
    wide = nn.Sequential(nn.Linear(3, 512), nn.ReLU(), nn.Linear(512, 1)).eval()
    loss_fn = nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(1)
    data = [(torch.randn(64, 3, generator=gen), torch.rand(64, 1, generator=gen).round()) for _ in range(batches)]
    meter, readings, total = GraphMeter(wide), [], 0.0
    with torch.autograd.graph.saved_tensors_hooks(meter.pack, meter.unpack):
        with torch.set_grad_enabled(how != "no_grad"):
            for xb, yb in data:
                loss = loss_fn(wide(xb), yb)
                total = total + loss if how == "tensor" else total + loss.item()
                readings.append(meter.mib())
    mean = (total.item() if torch.is_tensor(total) else total) / batches
    del total, loss
    assert meter.mib() == 0, "every graph freed: the meter is back at zero"
    return readings, mean


def test_graph_meter_counts_what_graphs_keep_alive_and_lets_it_go():
    kept, mean_kept = _meter_run("tensor")
    floats, mean_floats = _meter_run("item")
    off, mean_off = _meter_run("no_grad")
    activation = 64 * 512 * 4 / 2**20  # the ReLU's output, saved for backward
    steps = np.diff(kept)
    assert np.allclose(steps, steps[0]) and activation <= steps[0] < 1.5 * activation, kept  # grows every batch
    assert np.allclose(floats, floats[0]) and activation <= floats[0] < 1.5 * activation, floats  # one graph alive
    assert off == [0.0] * 5
    assert mean_kept == pytest.approx(mean_floats) == pytest.approx(mean_off)


def test_graph_meter_leaves_gradients_unchanged():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    x = torch.randn(5, 3)
    model(x).sum().backward()
    plain = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    meter = GraphMeter(model)
    with torch.autograd.graph.saved_tensors_hooks(meter.pack, meter.unpack):
        out = model(x).sum()
    assert meter.mib() > 0 and not any(k in meter.param_keys for k in meter.nbytes)  # parameters left out
    out.backward()
    assert all(torch.equal(a, p.grad) for a, p in zip(plain, model.parameters()))
    assert meter.mib() == 0  # backward freed the graph, and the receipts with it


class _Probe(nn.Module):
    def __init__(self, p=0.5, batchnorm=True):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.norm = nn.BatchNorm1d(8) if batchnorm else nn.Identity()
        self.drop = nn.Dropout(p)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(self.drop(torch.relu(self.norm(self.hidden(x)))))


def _spread_setup():
    torch.manual_seed(0)
    pool, x0 = torch.randn(40, 4), torch.randn(1, 4)
    mates = torch.randint(0, 40, (30, 7), generator=torch.Generator().manual_seed(1))

    def spread(net, mode, grad):
        net.train(mode == "train")
        torch.manual_seed(5)
        with torch.set_grad_enabled(grad):
            return torch.cat([net(torch.cat([x0, pool[mates[i]]]))[:1] for i in range(30)]).squeeze(1)

    bases = {"Dropout": _Probe(0.5, batchnorm=False), "BatchNorm1d": _Probe(0.0, batchnorm=True)}
    return bases, spread


def test_spread_report_tells_the_mode_from_the_grad_mode():
    bases, spread = _spread_setup()
    bn = bases["BatchNorm1d"]
    train = spread_report(bn, spread, "train", grad=False)
    assert train["moved"] and not train["recorded"] and train["preds"].std() > 0  # batch mates change the logit
    evaluated = spread_report(bn, spread, "eval", grad=True)
    assert not evaluated["moved"] and evaluated["recorded"]
    assert torch.allclose(evaluated["preds"], torch.full((30,), evaluated["eval_value"]), atol=1e-6)
    drop = spread_report(bases["Dropout"], spread, "train", grad=True)
    assert drop["preds"].std() > 0 and not drop["moved"] and drop["recorded"]  # no buffers to move


def test_spread_explorer_redraws_a_fresh_copy_on_every_change():
    bases, spread = _spread_setup()
    start = {k: v.clone() for k, v in bases["BatchNorm1d"].state_dict().items()}
    box = spread_explorer(bases, spread, passes=30)
    (layer_pick, p_slider), mode_pick, no_grad_box, readout, _ = box.children[0].children, *box.children[1:]
    assert not p_slider.disabled and "moved: <b>False</b>" in readout.value and "recorded" in readout.value
    layer_pick.value = "BatchNorm1d"  # no dropout to set: the slider is off
    assert p_slider.disabled and "moved: <b>True</b>" in readout.value
    assert "grad_fn): <b>True</b>" in readout.value
    no_grad_box.value = True
    assert "grad_fn): <b>False</b>" in readout.value and "moved: <b>True</b>" in readout.value
    mode_pick.value = "eval"
    assert "moved: <b>False</b>" in readout.value
    assert all(torch.equal(start[k], v) for k, v in bases["BatchNorm1d"].state_dict().items())  # bases untouched


def test_draw_graph_memory_and_history(axes):
    retained = {"total += loss": [4.0, 8.0, 12.0], "total += loss.item()": [4.0] * 3, "no_grad": [0.0] * 3}
    draw_graph_memory(axes[0], retained)
    assert [line.get_label() for line in axes[0].lines] == list(retained)
    assert [t.get_text() for t in axes[0].texts] == ["12.0 MiB", "4.0 MiB", "0.0 MiB"]
    draw_graph_memory(axes[1], retained, cuda={k: v for k, v in retained.items()})
    assert len(axes[1].lines) == 6 and axes[1].lines[1].get_linestyle() == ":"

    fig, pair = plt.subplots(1, 2)
    draw_history(pair, {"train_loss": [0.7, 0.5, 0.4], "val_loss": [0.6, 0.45, 0.41], "val_acc": [0.8, 0.9, 0.95]})
    assert [len(line.get_xdata()) for ax in pair for line in ax.lines] == [3, 3, 3]
    assert pair[1].get_title() == "final validation accuracy: 0.950"
    plt.close(fig)


def test_draw_two_runs_returns_the_largest_gap(axes):
    same = {"train_loss": [0.5, 0.4], "val_loss": [0.3, 0.2]}
    assert draw_two_runs(axes, [same, dict(same)], "none") == 0
    assert "the same run" in axes[1].texts[0].get_text() and not axes[1].lines
    fig, pair = plt.subplots(1, 2)
    other = {"train_loss": [0.5, 0.41], "val_loss": [0.3, 0.25]}
    assert draw_two_runs(pair, [same, other], "torch") == pytest.approx(0.05)
    assert pair[1].get_yscale() == "log" and len(pair[1].lines) == 2 and pair[0].get_title() == "torch"
    plt.close(fig)


def test_describe_checkpoint_reads_every_owner_back(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(2):
        opt.zero_grad()
        model(torch.randn(6, 3)).sum().backward()
        opt.step()
    loader_gen = torch.Generator().manual_seed(0)
    np_state = np.random.get_state(legacy=False)
    ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 1,
            "history": {"train_loss": [1.0, 0.9], "val_loss": [1.1, 1.0], "val_acc": [0.5, 0.6]},
            "rng": {"python": random.getstate(),
                    "numpy": {**np_state, "state": {"key": np_state["state"]["key"].tolist(),
                                                    "pos": np_state["state"]["pos"]}},
                    "torch_cpu": torch.get_rng_state(), "cuda": [], "loader": loader_gen.get_state()}}
    torch.save(ckpt, tmp_path / "c.pt")
    lines = describe_checkpoint(torch.load(tmp_path / "c.pt", weights_only=True))
    assert len(lines) == 9 and lines[0].startswith("owner")
    text = "\n".join(lines)
    assert "9 tensors" in text  # 6 parameters and BatchNorm's 3 buffers
    assert "for '0.weight': step 2, exp_avg and exp_avg_sq (4, 3)" in text and "'lr': 0.001" in text
    assert "epoch 1 (from 0) just finished; 2 points per curve" in text
    assert "MT19937 with 624 integers" in text and "nothing: no GPU" in text and "torch.uint8 (5056,)" in text


def _history(values):
    return {"train_loss": list(values), "val_loss": list(values), "val_acc": [0.9] * len(values)}


def test_draw_resumes_and_seed_spread(axes):
    reference = _history([0.5, 0.4, 0.3, 0.25, 0.2, 0.18])
    broken = _history([0.5, 0.4, 0.3, 0.27, 0.21, 0.19])
    draw_resumes(axes, reference, {"full restore": _history(reference["val_loss"]), "no optimizer state": broken},
                 half=3)
    labels = [line.get_label() for line in axes[0].lines]
    assert labels[:3] == ["uninterrupted", "resumed: full restore", "resumed: no optimizer state"]
    low, high = axes[0].get_ylim()
    assert low < 0.18 and high > 0.4  # the zoomed window holds what it shows
    gaps = axes[1].lines[0].get_ydata()
    assert axes[1].get_yscale() == "log" and np.allclose(gaps, [0.02, 0.01, 0.01])  # only the broken resume

    fig, pair = plt.subplots(1, 2)
    per_seed = {seed: _history([0.4, 0.1 + 0.01 * seed]) for seed in range(3)}
    draw_seed_spread(pair, per_seed)
    assert len(pair[0].lines) == 3
    assert list(pair[1].collections[0].get_offsets()[:, 1]) == pytest.approx([0.1, 0.11, 0.12])
    plt.close(fig)
