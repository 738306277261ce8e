"""Messages for code a learner may well write, which used to point the wrong way: each names what was
really seen, through the module's own check."""

import math
from pathlib import Path

import pytest
import torch
from torch import nn

from autograder import CheckFailed
from autograder.checks import m03_nn_module, m06_failure_modes


def _m07():
    """Module 07's checks, imported by the tests that use them: importing them warms up compiling and exporting
    (several seconds), which every pytest process would otherwise pay while collecting."""
    import importlib

    return importlib.import_module("autograder.checks.m07_eager_compile_export")


def _failed(check, *args, **kwargs):
    with pytest.raises(CheckFailed) as info:
        check(*args, **kwargs)
    return info.value.result


class LazyMLP(nn.Module):
    """An MLP of lazy layers: right after a first forward, but without parameters before one."""

    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.layers = nn.Sequential(*[nn.LazyLinear(n) for n in sizes[1:]])

    def forward(self, x):
        return self.layers(x)


def test_lazy_layers_are_named_as_such():
    result = _failed(m03_nn_module.MLP_registers, LazyMLP)
    assert result.code == "lazy_parameters", result.message()
    assert "lazy layer" in result.owner and "input size" in result.do


def test_a_bounded_dynamic_batch_is_told_apart_from_a_static_one():
    def bounded(model, example, path):
        model.eval()
        program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch", max=32)},))
        torch.export.save(program, Path(path))
        return Path(path)

    result = _failed(_m07().export_program_reloads, bounded)
    assert result.code == "bounded_batch", result.message()
    assert "64" in result.seen and "bounded" in result.owner
    assert "mark dimension 0" not in result.do  # it did: the advice for a static batch does not apply


def test_a_rate_that_was_not_swept_is_named():
    def tenth_of_best(sweep):  # a rate finder's habit: a tenth of the best rate
        finite = {k: v for k, v in sweep.items() if math.isfinite(v)}
        return min(finite, key=finite.get) / 10

    result = _failed(m06_failure_modes.pick_lr_choice, tenth_of_best)
    assert result.code == "not_a_swept_rate", result.message()
    assert "NaN" not in result.message() and "not one of the swept rates" in result.seen


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA events work here")
def test_cuda_timing_on_a_cpu_only_machine_is_named():
    def time_with_events(fn, *args, warmup=3, iters=20):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / 1000

    result = _failed(_m07().time_it_median, time_with_events)
    assert result.code == "cuda_only_api", result.message()
    assert "no CUDA device" in result.seen and "x.is_cuda" in result.do


def test_the_onnx_exporters_progress_stays_out_of_the_result(tmp_path, capsys):
    def export_onnx(model, example, path):
        print("my own line")
        model.eval()
        torch.onnx.export(model, (example,), str(path), dynamo=True,
                          dynamic_shapes=({0: torch.export.Dim("batch")},))
        return Path(path)

    _m07().export_onnx_runs(export_onnx)
    out = capsys.readouterr().out
    assert "my own line" in out and "[correct] export_onnx" in out
    assert "[torch.onnx]" not in out, out
