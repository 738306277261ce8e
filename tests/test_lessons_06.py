"""Lesson 06's instruments (autograder.lessons): the figures its two parts draw in one line, the learning-rate
widget, and the count of the autograd nodes a running total keeps alive."""

import math

import matplotlib
import pytest
import torch
from torch import nn

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from autograder import lessons  # noqa: E402


@pytest.fixture
def shown(monkeypatch):
    """The figures the helpers show (instead of displaying them), each still open for reading."""
    import IPython.display

    figures, close = [], plt.close
    monkeypatch.setattr(IPython.display, "display", figures.append)
    monkeypatch.setattr(plt, "close", lambda fig=None: None)  # keep them readable; closed at the end
    yield figures
    for fig in figures:
        close(fig)


def test_plot_curves_leaves_a_gap_at_each_nonfinite_value_and_draws_the_reference():
    fig, ax = plt.subplots()
    lessons.plot_curves({"diverged": [1.0, 2.0, math.nan, math.inf], "healthy": [3.0, 2.0, 1.0]}, ax=ax,
                        title="t", xlabel="step", ylabel="loss", log=True, ylim=(0.5, 10),
                        hline=(1.5, "start"), colours=["tab:red", "tab:blue"], marker="o")
    diverged, healthy, reference = ax.lines
    assert list(diverged.get_xdata()) == [1, 2, 3, 4] and list(healthy.get_xdata()) == [1, 2, 3]
    ys = list(diverged.get_ydata())
    assert ys[:2] == [1.0, 2.0] and all(math.isnan(v) for v in ys[2:]), "nan and inf both leave a gap"
    assert diverged.get_color() == "tab:red" and diverged.get_marker() == "o"
    assert list(reference.get_ydata()) == [1.5, 1.5] and reference.get_linestyle() == "--"
    assert ax.get_yscale() == "log" and ax.get_ylim() == (0.5, 10) and ax.get_title() == "t"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["diverged", "healthy", "start"]
    plt.close(fig)


def test_plot_curves_and_plot_bars_show_a_figure_of_their_own(shown):
    lessons.plot_curves({"one": [0.5, 0.25]}, title="alone", xlabel="update", outside=True)
    lessons.plot_bars({"as trained": 0.974, "raw": 0.333}, title="bars", ylabel="accuracy",
                      hline=(0.667, "majority"), colours=["tab:blue", "tab:red"])
    assert len(shown) == 2
    curve_ax, bar_ax = shown[0].axes[0], shown[1].axes[0]
    assert curve_ax.get_title() == "alone" and curve_ax.get_legend() is not None
    assert [round(p.get_height(), 3) for p in bar_ax.patches] == [0.974, 0.333]
    assert sorted(t.get_text() for t in bar_ax.texts) == ["0.333", "0.974"], "each bar carries its value"
    assert bar_ax.get_ylim()[1] > 0.974 and bar_ax.lines[0].get_ydata()[0] == 0.667


def test_plot_lr_sweep_marks_the_nonfinite_runs_and_draws_the_rows_asked_for(shown):
    lrs = [1e-3, 1e-2, 1e-1, 1.0, 10.0]
    table = [[0.6] * 4, [0.6, 0.5, 0.45, 0.4], [0.6, 0.4, 0.33, 0.3], [0.6, 0.3, 0.3, 0.29],
             [0.6, 1e6, math.inf, math.nan]]
    lessons.plot_lr_sweep(lrs, table, rows={0: "too low", 3: "good", 4: "too high"})
    sweep, rows = shown[0].axes
    finite = sweep.lines[0]
    assert list(finite.get_xdata()) == lrs[:4] and list(finite.get_ydata()) == [0.6, 0.4, 0.3, 0.29]
    crosses = sweep.collections[0].get_offsets()
    assert len(crosses) == 1 and crosses[0][0] == 10.0 and crosses[0][1] > 0.6, "the diverged run, marked on top"
    assert sweep.get_xscale() == "log" and "4 steps" in sweep.get_ylabel()
    labels = [t.get_text() for t in rows.get_legend().get_texts()]
    assert labels == ["lr = 0.001: too low", "lr = 1: good", "lr = 10: too high"]


def test_draw_lr_run_marks_the_first_nonfinite_step_and_the_rate_on_the_sweep():
    lrs, final = [0.1, 1.0, 100.0], [0.4, 0.3, math.nan]
    fig = lessons.draw_lr_run([0.6, 50.0, 1e9, math.nan, math.nan], 100.0, lrs, final)
    run, sweep = fig.axes
    dead = [line for line in run.lines if list(line.get_xdata()) == [4, 4]]
    assert dead and dead[0].get_color() == "tab:red", "a red line at step 4, where the loss stopped being a number"
    assert run.get_ylim()[1] == 1e3 and "final loss nan" in run.get_title()
    assert any(list(line.get_xdata()) == [100.0, 100.0] for line in sweep.lines), "the rate, marked on the sweep"
    plt.close(fig)
    calm = lessons.draw_lr_run([0.6, 0.5, 0.4], 0.1, lrs, final)
    assert calm.axes[0].get_ylim()[1] == 1.0 and not any(list(line.get_xdata()) == [4, 4] for line in calm.axes[0].lines)
    plt.close(calm)


def test_lr_explorer_trains_afresh_at_each_rate_the_slider_picks(shown):
    asked = []

    def train(lr):
        asked.append(lr)
        return [0.6, 0.5 if lr < 10 else math.nan]

    box = lessons.lr_explorer(train, [1e-4, 1e-2, 1e2], [0.6, 0.4, math.nan])
    slider, out = box.children
    assert (slider.min, slider.max) == (-4, 2) and asked == [pytest.approx(0.1)], "drawn once at the start"
    slider.value = 100.0
    assert asked[-1] == pytest.approx(100.0) and len(asked) == 2
    assert "lr = 100" in shown[-1].axes[0].get_title()


def test_graph_nodes_counts_what_a_running_total_keeps_alive():
    torch.manual_seed(0)
    model, loss_fn = nn.Linear(2, 1), nn.MSELoss()
    assert lessons.graph_nodes(0.0) == 0 and lessons.graph_nodes(torch.ones(2, requires_grad=True)) == 0
    assert lessons.graph_nodes(torch.ones(2) * 3) == 0, "no grad_fn, no graph"
    tensor_total, float_total, kept = 0.0, 0.0, []
    for _ in range(3):
        loss = loss_fn(model(torch.randn(4, 2)), torch.randn(4, 1))
        tensor_total = tensor_total + loss
        float_total += loss.item()
        kept.append(lessons.graph_nodes(tensor_total))
    assert lessons.graph_nodes(float_total) == 0
    assert kept[0] > 0 and kept[2] - kept[1] == kept[1] - kept[0] > 0, "one more batch's graph per addition"
    assert lessons.graph_nodes(tensor_total.detach()) == 0
