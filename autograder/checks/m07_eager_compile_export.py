"""Checks for module 07-eager-compile-export: three modes, three purposes.

``time_it`` is timed against functions whose timing is known (slow warm-up calls,
one outlier, a call counter) and, for CUDA, against a simulated CUDA argument
that records synchronisation.  ``compile_model`` is checked for parity and for
training that reaches the original parameters (with the cheap ``aot_eager``
backend: inductor itself is not what is graded).  Exported artefacts are reloaded
in a separate Python process (``.pt2``) or by onnxruntime and compared with eager at
batch sizes the learner did not use.

Speed: the one-time costs of a process's first compile and first ONNX export (imports,
dynamo's set-up) are paid when this module is imported, not inside a check cell; the
``.pt2`` is reloaded in a process forked from a helper that has imported torch and nothing
else (:mod:`._reload`, started in the background, or forked before a warm grading kernel
starts; it holds no state of the learner's session and each reload gets a process of its
own), instead of a new interpreter per call.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch import nn

from ..core import LearnerRaised, call, describe, fail, graded, job_not_done
from ..devices import cuda_or_skip, each_device, manual_seed
from ..hints import hint_for, solution_for
from . import _reload
from ._training import blobs, differing, make_loss, make_model, make_optimizer, snapshot

# --------------------------------------------------------------------------
# time_it


class _Timed:
    """A function whose calls take known times: ``slow`` for the first ``n_slow``, one ``outlier``."""

    def __init__(self, n_slow: int, slow: float, fast: float, outlier_at: int | None = None, outlier: float = 0.0):
        self.calls = 0
        self.n_slow, self.slow, self.fast = n_slow, slow, fast
        self.outlier_at, self.outlier = outlier_at, outlier
        self.__name__ = "fn"

    def __call__(self, *args):
        self.calls += 1
        self.received = getattr(self, "received", []) + [args]
        start = time.perf_counter()
        if self.calls <= self.n_slow:
            time.sleep(self.slow)
        elif self.outlier_at is not None and self.calls == self.outlier_at:
            time.sleep(self.outlier)
        else:
            time.sleep(self.fast)
        self.took = getattr(self, "took", []) + [time.perf_counter() - start]  # what each call really took
        return args[0] if args else None


def _nearest(got: float, candidates: dict) -> str:
    """The name of the candidate statistic ``got`` is nearest to (by ratio)."""
    return min(candidates, key=lambda k: abs(math.log(max(got, 1e-9) / max(candidates[k], 1e-9))))


def _seconds(out, what):
    if isinstance(out, torch.Tensor) or not isinstance(out, (int, float)) or isinstance(out, bool):
        fail(f"{what} returned {describe(out)}.", "the timing time_it reported.",
             "return the median as a Python float, in seconds.", code="not_a_float")
    return float(out)


def _not_too_fast(got: float, fast: float) -> None:
    if got < 0.8 * fast:
        fail(f"time_it reported {got:.4f} s per call for calls that take at least {fast:.4f} s.",
             "the clock readings around each call.", "read the clock right before and right after each call.",
             code="too_fast")


@graded("time_it")
def time_it_warmup(time_it, warmup: int = 5, iters: int = 3, *, notes):
    """Runs the warm-up calls untimed, then exactly `iters` timed calls"""
    _reload.RELOADER.start()  # a kernel forked from a grading template starts it here (see _prepare)
    slow, fast = 0.06, 0.005  # a counted warm-up call moves the result far past 6x the timed calls' time
    fn = _Timed(n_slow=warmup, slow=slow, fast=fast)
    x = torch.zeros(2)
    got = _seconds(call(time_it, fn, x, warmup=warmup, iters=iters), "time_it")
    packed = [a for a in getattr(fn, "received", []) if len(a) == 1 and isinstance(a[0], tuple)]
    if packed:
        fail(f"time_it(fn, x, warmup={warmup}, iters={iters}) called fn {len(packed)} time(s) with one argument, the "
             f"tuple {describe(packed[0][0])}, instead of with x itself.",
             "the call inside time_it: `fn(args)` hands fn the tuple that *args collected; the function being timed "
             "never sees its own arguments.",
             "call it as fn(*args), which unpacks the tuple into separate arguments again.", code="args_not_unpacked")
    if fn.calls != warmup + iters:
        fail(f"time_it(fn, x, warmup={warmup}, iters={iters}) called fn {fn.calls} times.",
             "the loops inside time_it.", f"call fn {warmup} times untimed, then {iters} times timed.",
             code="wrong_call_count")
    took = getattr(fn, "took", [])
    timed, warm = took[warmup:], took[:warmup]
    if got >= 6 * fast and timed and warm:
        nearest = _nearest(got, {"timed median": statistics.median(timed), "timed total": sum(timed),
                                 "all mean": sum(took) / len(took), "all median": statistics.median(took),
                                 "all total": sum(took)})
        if nearest == "timed total":
            fail(f"time_it reported {got:.3f} s per call; its {iters} timed calls took {sum(timed):.3f} s in all "
                 f"(about {statistics.median(timed):.3f} s each): what it returned is their total.",
                 "the figure time_it returns: the time of all the timed calls together (a sum of per-call times, or "
                 "one clock around the whole loop), not the time of one call.",
                 "time each call on its own, then return the median of those per-call times.",
                 code="total_not_per_call")
    if got >= 6 * fast and (not took or _nearest(got, {"timed median": statistics.median(timed or [fast]),
                                                        "with warm-up": sum(took) / len(took),
                                                        "median with warm-up": statistics.median(took),
                                                        "all total": sum(took)}) != "timed median"):
        fail(f"time_it reported {got:.3f} s per call; the timed calls took about {fast:.3f} s each and only the "
             f"{warmup} warm-up calls took {slow:.2f} s.",
             "the warm-up calls were counted in the timing (first calls pay for compilation, caches and lazy "
             "initialisation).", "time only the calls after the warm-up.", code="counted_warmup")
    _not_too_fast(got, fast)


class _Scheduled:
    """A function whose timed calls take the times in ``schedule`` (after ``warmup`` calls of ``schedule[0]``)."""

    def __init__(self, warmup: int, schedule: list):
        self.calls, self.warmup, self.schedule = 0, warmup, schedule
        self.__name__ = "fn"

    def __call__(self, *args):
        self.calls += 1
        timed = self.calls - self.warmup - 1
        start = time.perf_counter()
        time.sleep(self.schedule[timed] if 0 <= timed < len(self.schedule) else self.schedule[0])
        if 0 <= timed < len(self.schedule):
            self.took = getattr(self, "took", []) + [time.perf_counter() - start]  # what each timed call took
        return args[0] if args else None


@graded("time_it")
def time_it_median(time_it, warmup: int = 3, iters: int = 20, *, notes):
    """Reports the median, so one slow outlier does not move it"""
    _reload.RELOADER.start()
    # Most timed calls take `middle`, a quarter of them `short`, one an outlier: the median is `middle`, and the
    # minimum, the mean and the total each land far from it and from one another.
    short, middle = 0.0015, 0.005
    outlier = max(0.25, 5 * middle * iters)  # the mean lands above 5x the median for any `iters`
    schedule = [short if k % 4 == 1 else middle for k in range(iters)]
    schedule[iters // 2] = outlier
    fn = _Scheduled(warmup, schedule)
    got = _seconds(call(time_it, fn, torch.zeros(2), warmup=warmup, iters=iters), "time_it")
    took = getattr(fn, "took", []) if len(getattr(fn, "took", [])) == iters else schedule
    total, mean, median = sum(took), sum(took) / iters, statistics.median(took)
    n_short = sum(1 for t in schedule if t == short)
    spread = (f"of the {iters} timed calls, {iters - n_short - 1} were made to take {middle:.3f} s, {n_short} "
              f"{short:.4f} s and one {outlier:.2f} s (as measured inside fn: median {median:.4f} s, mean "
              f"{mean:.4f} s, total {total:.3f} s)")
    nearest = _nearest(got, {"median": median, "mean": mean, "total": total, "shortest": min(took)})
    if nearest == "median" or abs(got - median) <= 0.3 * median:  # judged by what the calls took on this machine
        _not_too_fast(got, short)
        return
    if got >= 2 * median:
        if nearest == "total":
            fail(f"time_it reported {got:.3f} s per call; {spread}: what it returned is the total of the timed calls.",
                 "the figure time_it returns: the time of all the timed calls together (a sum of per-call times, "
                 "or one clock around the whole loop), not the time of one call.",
                 "time each call on its own, then return the median of those per-call times.",
                 code="total_not_per_call")
        if nearest == "mean":
            fail(f"time_it reported {got:.3f} s per call; {spread}: what it returned is their mean (a mean of "
                 "per-call times gives it, and so does one clock around the whole loop divided by the number of "
                 "calls).",
                 "the statistic time_it reports: a mean is dragged by one interruption (a garbage collection, "
                 "another process).", "time each call on its own and report the median of the per-call times.",
                 code="mean_not_median")
        fail(f"time_it reported {got:.3f} s per call; {spread}: it is far above their median, and neither their mean "
             "nor their total.", "the figure time_it returns.",
             "time each call on its own and report the median of the per-call times.", code="wrong_value")
    if nearest == "shortest" and 0.7 * min(took) <= got <= 1.3 * min(took):
        fail(f"time_it reported {got:.4f} s per call; {spread}: what it returned is the shortest call.",
             "the statistic time_it reports: the fastest call says how fast the function can be, not how long a "
             "call takes.", "report the median of the per-call times.", code="min_not_median")
    _not_too_fast(got, short)


class _FakeCudaTensor(torch.Tensor):
    """A CPU tensor that says it lives on CUDA, to see whether time_it synchronises."""

    @property
    def device(self):
        return torch.device("cuda", 0)

    @property
    def is_cuda(self):
        return True


@contextlib.contextmanager
def _recording_synchronize(log: list):
    original = torch.cuda.synchronize

    def synchronize(device=None):
        log.append("sync")

    torch.cuda.synchronize = synchronize
    try:
        yield
    finally:
        torch.cuda.synchronize = original


@graded("time_it")
def time_it_synchronizes(time_it, warmup: int = 2, iters: int = 4, *, notes):
    """Synchronises CUDA around each timed call when an argument lives on CUDA (and only then)"""
    log: list[str] = []

    def fn(x):
        log.append("call")
        return x

    fn.__name__ = "fn"
    # Without CUDA arguments, time_it must not touch CUDA at all (it would raise on a CPU-only machine).
    with _recording_synchronize(log):
        call(time_it, fn, torch.zeros(3), warmup=warmup, iters=iters)
    if "sync" in log:
        fail("time_it called torch.cuda.synchronize() for arguments on the CPU.",
             "time_it's CUDA branch: on a machine without CUDA that call raises.",
             "synchronise only when an argument is a CUDA tensor.", code="sync_without_cuda")
    if cuda_or_skip(notes):
        _real_cuda_sync(time_it, notes)
    log.clear()
    fake = torch.zeros(3).as_subclass(_FakeCudaTensor)
    with _recording_synchronize(log):
        try:
            time_it(fn, fake, warmup=warmup, iters=iters)
        except NotImplementedError as error:
            if not str(error):
                raise
            notes.append("simulated CUDA argument could not be used")
            return
        except Exception:  # noqa: BLE001 - e.g. CUDA events on a CPU-only machine: only real CUDA can tell
            notes.append("simulated CUDA argument could not be used; the real CUDA check runs where a GPU is")
            return
    calls = [i for i, e in enumerate(log) if e == "call"]
    ends = calls[1:] + [len(log)]
    unsynced = [i for i, end in list(zip(calls, ends))[-iters:] if "sync" not in log[i + 1:end]]
    if log.count("sync") == 0 or unsynced:
        fail("with a CUDA tensor among the arguments, time_it read the clock without torch.cuda.synchronize() "
             "after " + ("any call." if log.count("sync") == 0 else f"{len(unsynced)} of the {iters} timed calls."),
             "CUDA runs kernels asynchronously: the call returned when the work was queued, not done.",
             "call torch.cuda.synchronize() before starting the clock and before reading it after each call, "
             "whenever an argument is on CUDA.", code="no_cuda_sync")


def _real_cuda_sync(time_it, notes):  # pragma: no cover - needs a GPU
    x = torch.zeros(1, device="cuda")

    def busy(t):
        torch.cuda._sleep(50_000_000)  # about 25-50 ms of GPU time, returned at once on the host
        return t

    got = _seconds(call(time_it, busy, x, warmup=1, iters=3), "time_it")
    if got < 0.005:
        fail(f"time_it reported {got * 1000:.2f} ms for a call that keeps the GPU busy for tens of milliseconds.",
             "CUDA runs kernels asynchronously: the clock was read before the GPU finished.",
             "call torch.cuda.synchronize() around each timed call when an argument is on CUDA.",
             code="no_cuda_sync")


# --------------------------------------------------------------------------
# compile_model


#: How many times torch.compile ran inside the latest ``_cheap_compile`` block (evidence for the messages).
_COMPILE_CALLS: list = []


@contextlib.contextmanager
def _cheap_compile():
    """Route torch.compile to the aot_eager backend: correctness, not inductor, is graded here."""
    original = torch.compile
    _COMPILE_CALLS.clear()

    def compile_(model=None, *args, **kwargs):
        _COMPILE_CALLS.append(model)
        kwargs["backend"] = "aot_eager"
        kwargs.pop("mode", None)
        kwargs.pop("options", None)
        if model is None:
            return lambda m: original(m, *args, **kwargs)
        return original(model, *args, **kwargs)

    torch.compile = compile_
    try:
        yield
    finally:
        torch.compile = original


def _is_compiled(module) -> bool:
    from torch._dynamo.eval_frame import OptimizedModule

    return isinstance(module, OptimizedModule) or getattr(module, "_compiled_call_impl", None) is not None


def _compiled_module(compile_model, model) -> nn.Module:
    compiled = call(compile_model, model)
    if not isinstance(compiled, nn.Module):
        fail(f"compile_model returned {describe(compiled)}.", "the object compile_model returned.",
             "return the module torch.compile gives you (an nn.Module).", code="not_a_module")
    return compiled


def _dtype_mismatch(compiled, x) -> None:
    """Fail when the module compile_model returned holds parameters of another dtype than the inputs it serves."""
    dtypes = sorted({str(p.dtype).replace("torch.", "") for p in compiled.parameters()})
    if dtypes and dtypes != [str(x.dtype).replace("torch.", "")]:
        fail(f"the module compile_model returned holds {', '.join(dtypes)} parameters; the model it was given "
             f"serves {str(x.dtype).replace('torch.', '')} inputs, and eager gives {str(x.dtype).replace('torch.', '')} "
             "outputs.",
             "the dtype of the returned module's parameters: a cast (.half(), .double(), .to(dtype)) changes them, "
             "the caller's model too (a module casts in place), so its inputs no longer match its weights.",
             "compile the model as it comes, without casting it.", code="cast_parameters")


def _not_compiled(compiled, model) -> None:
    """Fail, with what was returned, when nothing in the returned module went through torch.compile."""
    if any(_is_compiled(m) for m in compiled.modules()):
        return  # a module around a compiled one: its behaviour is judged by the outputs and by training
    if compiled is model and _COMPILE_CALLS:
        fail("compile_model returned the very model it was given, uncompiled, although torch.compile ran inside "
             "it.",
             "the value of torch.compile(...): it returns a new, compiled module and leaves the model it was given "
             "as it was, so a result that is not kept is lost.",
             "return the module that torch.compile gives back.", code="not_compiled")
    if isinstance(compiled, torch.jit.ScriptModule):
        fail(f"compile_model returned {type(compiled).__name__}, a TorchScript module (torch.jit), not a module "
             "compiled by torch.compile.",
             "the route the model was compiled by: torch.jit.script and torch.jit.trace build TorchScript, an "
             "older and separate compiler; the exercise asks for torch.compile.",
             "compile the model with torch.compile and return the result.", code="not_compiled")
    fail("compile_model returned a module that is not compiled (a plain eager module).",
         "the returned module runs eager code; nothing went through torch.compile.",
         "compile the model with torch.compile and return the result.", code="not_compiled")


@graded("compile_model")
def compile_model_parity(compile_model, seed: int = 0, n: int = 16, *, notes):
    """Returns a compiled module whose outputs match eager at several batch sizes"""
    for device in each_device(notes):
        model = make_model("mlp", seed, device).eval()
        eager = copy.deepcopy(model)
        torch._dynamo.reset()
        with _cheap_compile():
            compiled = _compiled_module(compile_model, model)
            if not _is_compiled(compiled):
                _not_compiled(compiled, model)
            for batch in (n, 3, n + 5):
                x, _ = blobs(batch, seed + batch, device)
                _dtype_mismatch(compiled, x)
                out = call(compiled, x)
                with torch.no_grad():
                    want = eager(x)
                if not isinstance(out, torch.Tensor) or out.shape != want.shape or not torch.allclose(
                        out.detach().float(), want, atol=1e-5, rtol=1e-4):
                    fail(f"the compiled module's output for a batch of {batch} differs from eager.",
                         "the compiled module: it must compute what the eager model computes.",
                         "compile the model you were given, in the mode it is in, without changing it.",
                         code="parity")


@graded("compile_model")
def compile_model_trains_original(compile_model, seed: int = 1, n: int = 24, *, notes):
    """Training through the compiled module updates the original model's parameters"""
    for device in each_device(notes):
        model = make_model("mlp", seed, device).train()
        twin = copy.deepcopy(model)
        opt = make_optimizer("sgd", model.parameters())
        twin_opt = make_optimizer("sgd", twin.parameters())
        loss_fn = make_loss("bce")
        torch._dynamo.reset()
        with _cheap_compile():
            compiled = _compiled_module(compile_model, model)
            for i in range(3):
                x, y = blobs(n, seed * 3 + i, device)
                _dtype_mismatch(compiled, x)
                opt.zero_grad()
                out = call(compiled, x)
                if isinstance(out, torch.Tensor) and not out.requires_grad:
                    frozen = [name for name, p in model.named_parameters() if not p.requires_grad]
                    if frozen:
                        fail(f"after compile_model, {len(frozen)} of the model's {len(list(model.parameters()))} "
                             f"parameters have requires_grad=False ({', '.join(frozen[:3])}); the compiled module's "
                             "output carries no graph, so no training step can reach them.",
                             "the parameters' requires_grad flags: compile_model switched them off, and the model "
                             "it was given is the one that trains next.",
                             "leave the parameters as they come: compiling changes how a model runs, not which "
                             "of its parameters train.", code="parameters_frozen")
                    fail("the compiled module's output has no grad_fn, while every parameter of the model still "
                         "requires grad: no graph was recorded through its forward (what torch.no_grad() or "
                         "torch.inference_mode() around the forward does).",
                         "the returned module's forward: training needs its output to carry the graph back to the "
                         "parameters.",
                         "return the compiled model itself, without wrapping its forward in a mode that turns "
                         "gradient recording off.", code="no_graph")
                loss = loss_fn(out, y)
                loss.backward()
                opt.step()
                twin_opt.zero_grad()
                loss_fn(twin(x), y).backward()
                twin_opt.step()
        moved = differing(snapshot(twin), snapshot(model))
        if moved:
            unchanged = not differing(snapshot(model), snapshot(make_model("mlp", seed, device)))
            fail("three optimizer steps through the compiled module "
                 + ("left the original parameters untouched." if unchanged else
                    "did not update the original parameters the way eager training does."),
                 "the compiled module works on a copy of the parameters, not on the model you were given "
                 "(the optimizer holds the original ones).",
                 "compile the model object itself (no copy), so both share one set of parameters.",
                 code="trains_a_copy")


# --------------------------------------------------------------------------
# export_program and export_onnx


def _reload_in_fresh_process(path: Path, inputs: list[torch.Tensor]) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "inputs.pt", Path(tmp) / "outputs.pt"
        torch.save([x.cpu() for x in inputs], src)
        code, stderr = _reload.RELOADER.reload(path, src, dst)
        if code != 0 or not dst.exists():
            last = (stderr.strip().splitlines() or ["(no message)"])[-1]
            fail(f"a fresh Python process could not load {path.name} with torch.export.load ({last}).",
                 "the saved file: it must be a program saved with torch.export.save.",
                 "export with torch.export.export and save the ExportedProgram with torch.export.save.",
                 code="not_loadable")
        return torch.load(dst)


def _returned_path(out, path: Path, name: str, suffix: str) -> Path:
    if not isinstance(out, Path):
        fail(f"{name} returned {describe(out)}.", "the value it returns.",
             "return the pathlib.Path of the file you wrote.", code="not_a_path")
    if not out.exists():
        fail(f"{name} returned {out}, which does not exist.", "the file it wrote.",
             "save the artefact, then return its path.", code="missing_file")
    if out.suffix != suffix:
        fail(f"{name} wrote {out.name}; the artefact should be a {suffix} file.", "the file name.",
             f"save to the path you were given (it ends in {suffix}).", code="wrong_suffix")
    return out


def _batch_sizes(example_batch: int, extra: tuple) -> list[int]:
    return [b for b in (1, 7, 64, *extra) if b != example_batch]


def _graph_input_refused(name, batch, got, graph, x) -> None:
    """Name why onnxruntime refused a batch, from the graph's declared input (its element type and shape)."""
    kind, shape = graph
    dims = [d if isinstance(d, int) else str(d) for d in shape]
    if kind != "tensor(float)":
        fail(f"the reloaded {name} refused a batch of {batch} ({got}). The graph's input is declared {kind}; the "
             f"batches are float32.",
             "the dtype the model and its example had when exported: a cast (.half(), .double()) is traced into the "
             "graph, so the file takes only that dtype.",
             "export the model in the dtype it serves (float32 here), without casting it or the example.",
             code="cast_parameters")
    if len(dims) != x.dim():
        fail(f"the reloaded {name} refused a batch of {batch} ({got}). The graph's input is declared with shape "
             f"{dims}, {len(dims)} dimension(s); each batch is [batch, {x.shape[-1]}].",
             "the example traced: one example without its batch dimension, so the graph has none.",
             "export with the batch-first example as it comes, its dimension 0 dynamic.", code="traced_without_batch")
    if dims and isinstance(dims[0], int):
        named = [i for i, d in enumerate(dims) if not isinstance(d, int)]
        fail(f"the reloaded {name} refused a batch of {batch} ({got}). The graph's input is declared with shape "
             f"{dims}: dimension 0, the batch, is fixed at {dims[0]}"
             + (f", and dimension {', '.join(map(str, named))} is the one left dynamic." if named else "."),
             f"the exported graph: its batch dimension was fixed at {dims[0]} when it was traced.",
             "mark dimension 0 of the example as dynamic when exporting.", code="static_batch")


def _compare(outputs, inputs, want, name, example_batch, graph=None):
    for x, got, ref in zip(inputs, outputs, want):
        batch = x.shape[0]
        if isinstance(got, str) and re.search(r"(<=|>=|<|>) ?-?\d", got):
            fail(f"the reloaded {name} refused a batch of {batch} ({got}).",
                 f"the exported graph: its batch dimension is dynamic but bounded (a Dim with max= or min=), and "
                 f"{batch} lies outside the bounds.",
                 "leave the batch Dim unbounded, or bound it so that every batch size the program must serve "
                 "(1 to 64 here) fits.", code="bounded_batch")
        if isinstance(got, str) and graph is not None:
            _graph_input_refused(name, batch, got, graph, x)
        if isinstance(got, str):
            fail(f"the reloaded {name} refused a batch of {batch} ({got}).",
                 f"the exported graph: its batch dimension was fixed at {example_batch} when it was traced.",
                 "mark dimension 0 of the example as dynamic when exporting.", code="static_batch")
        if tuple(got.shape) != tuple(ref.shape) or not torch.allclose(got.float().cpu(), ref.cpu(), atol=1e-4,
                                                                       rtol=1e-3):
            fail(f"the reloaded {name} gives outputs that differ from the model in eval mode for a batch of {batch}.",
                 "the model's mode when it was exported: in train mode, Dropout is part of the traced graph.",
                 "put the model in eval mode before exporting.", code="differs_from_eval")


@contextlib.contextmanager
def _watch_export(seen: list):
    """Record what the learner's code hands torch.export.export: the traced inputs' shapes and the dimensions it
    marks dynamic (the evidence that names a failed export's cause)."""
    original = torch.export.export

    def export(mod, args, *rest, **kwargs):
        shapes = [tuple(a.shape) for a in (args if isinstance(args, (tuple, list)) else (args,))
                  if isinstance(a, torch.Tensor)]
        dynamic = kwargs.get("dynamic_shapes")
        first = dynamic[0] if isinstance(dynamic, (tuple, list)) and dynamic else (
            next(iter(dynamic.values()), None) if isinstance(dynamic, dict) else None)
        seen.append((shapes, sorted(first) if isinstance(first, dict) else None))
        return original(mod, args, *rest, **kwargs)

    torch.export.export = export
    try:
        yield
    finally:
        torch.export.export = original


def _export_failed(raised, seen: list, example) -> None:
    """Name the cause of a torch.export that refused the dynamic batch, from what the learner's code traced."""
    if "Constraints violated" not in str(raised.error) or not seen or not seen[-1][0]:
        return
    shape, marked = seen[-1][0][0], seen[-1][1]
    head = f"calling export_program raised {type(raised.error).__name__}: {str(raised.error).splitlines()[0]}"
    if len(shape) < example.dim():
        fail(f"{head} The input traced was {list(shape)}; the example passed in is {list(example.shape)}: the traced "
             "input has no batch dimension, so its dimension 0 (the features, fixed by the first Linear layer) was "
             "the one marked dynamic.",
             "the input handed to torch.export: one example of the batch, not the batch-first example.",
             "trace the example as it comes, [batch, features], with its dimension 0 dynamic.",
             code="traced_without_batch")
    if marked is not None and 0 not in marked:
        fail(f"{head} dynamic_shapes marked dimension {', '.join(map(str, marked))} of the input "
             f"{list(shape)} as dynamic, not dimension 0 (the batch); dimension "
             f"{', '.join(map(str, marked))} is fixed by the first Linear layer.",
             "the dynamic_shapes given to torch.export: the batch is dimension 0 of a batch-first input.",
             "mark dimension 0 of the example as the dynamic one.", code="wrong_dynamic_dim")
    if shape and shape[0] == 1 and example.shape[0] != 1:
        fail(f"{head} The input traced had batch size 1 ({list(shape)}); the example passed in has "
             f"{example.shape[0]}. torch.export treats a dimension of size 1 (or 0) as a constant, so a batch traced "
             "at size 1 cannot stay dynamic.",
             "the input handed to torch.export: a slice of the example with batch size 1.",
             "trace the whole example (its batch is larger than 1) with dimension 0 dynamic.",
             code="traced_batch_of_one")


@graded("export_program")
def export_program_reloads(export_program, seed: int = 0, example_batch: int = 4, extra: tuple = (), *, notes):
    """A .pt2 that a fresh Python process reloads and that matches eager (eval) at batch sizes 1, 7, 64"""
    model = make_model("dropout", seed, "cpu").train()  # as it comes out of training
    reference = copy.deepcopy(model).eval()
    example, _ = blobs(example_batch, seed + 60, "cpu")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pt2"
        seen = []
        try:
            with _watch_export(seen):
                returned = call(export_program, model, example, path)
        except LearnerRaised as raised:
            _export_failed(raised, seen, example)
            raise
        out = _returned_path(returned, path, "export_program", ".pt2")
        inputs = [blobs(b, seed + b, "cpu")[0] for b in _batch_sizes(example_batch, extra)]
        outputs = _reload_in_fresh_process(out, inputs)
    with torch.no_grad():
        want = [reference(x) for x in inputs]
    _compare(outputs, inputs, want, "program", example_batch)


@graded("export_onnx")
def export_onnx_runs(export_onnx, seed: int = 1, example_batch: int = 4, extra: tuple = (), *, notes):
    """An ONNX file that onnxruntime runs at batch sizes 1, 7, 64, matching eager (eval)"""
    import numpy as np
    import onnxruntime as ort

    model = make_model("dropout", seed, "cpu").train()
    reference = copy.deepcopy(model).eval()
    example, _ = blobs(example_batch, seed + 70, "cpu")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        out = _returned_path(call(export_onnx, model, example, path), path, "export_onnx",
                             ".onnx")
        try:
            options = ort.SessionOptions()
            # Without this, onnxruntime's graph optimisations drop Dropout nodes and hide a train-mode export.
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            session = ort.InferenceSession(str(out), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # noqa: BLE001
            fail(f"onnxruntime could not load {out.name} ({type(error).__name__}).", "the ONNX file.",
                 "export with torch.onnx.export(..., dynamo=True) and save to the given path.", code="not_loadable")
        name = session.get_inputs()[0].name
        graph = (session.get_inputs()[0].type, list(session.get_inputs()[0].shape))
        inputs = [blobs(b, seed + b, "cpu")[0] for b in _batch_sizes(example_batch, extra)]
        outputs = []
        for x in inputs:
            try:
                outputs.append(torch.from_numpy(np.asarray(session.run(None, {name: x.numpy()})[0])))
            except Exception as error:  # noqa: BLE001 - onnxruntime's shape errors are the learner's to see
                outputs.append(f"{type(error).__name__}: {str(error).splitlines()[0][:160]}")
    with torch.no_grad():
        want = [reference(x) for x in inputs]
    _compare(outputs, inputs, want, "ONNX model", example_batch, graph)


def _prepare() -> None:
    """Pay this process's one-time costs of compiling and exporting now, at import, rather than in the
    first check cell that compiles: dynamo's set-up (with dynamic shapes) and the ONNX exporter's imports.

    In a warm grading template (``TORCH_LEDGER_TEMPLATE``, see ``autograder/cohort/kernels/template.py``) these
    costs are paid once for every kernel forked from it, and nothing may be left running there: the
    progress-bar monitor thread the first compile or export starts is stopped, onnxruntime (which
    starts a thread pool on import) is left to each kernel, and the reload helper is forked by each
    kernel from the template's warmed-up ``torch.export`` (:meth:`._reload.Reloader.fork`).
    """
    import importlib
    import io
    import logging

    template = bool(os.environ.get("TORCH_LEDGER_TEMPLATE"))
    if not template:
        _reload.RELOADER.start()  # its interpreter imports torch while this one warms up
    try:
        compiled = torch.compile(nn.Linear(2, 2), backend="aot_eager")
        for batch in (3, 5):  # the second size makes dynamo set up dynamic shapes; backward, aot_autograd's
            compiled(torch.ones(batch, 2)).sum().backward()
        torch._dynamo.reset()
        if template:
            _reload.warm_up()
        for name in ("onnxscript", "torch.onnx._internal.exporter._core", *(() if template else ("onnxruntime",))):
            importlib.import_module(name)
        # a first ONNX export sets the exporter up (about 1.5 s); its warnings are torch's, not the learner's
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            logging.disable(logging.WARNING)
            try:
                torch.onnx.export(nn.Linear(2, 2).eval(), (torch.ones(3, 2),), str(Path(tmp) / "warm.onnx"),
                                  dynamo=True, dynamic_shapes=({0: torch.export.Dim("batch")},), verbose=False)
            finally:
                logging.disable(logging.NOTSET)
    except Exception:  # noqa: BLE001 - only a head start; the checks report real problems themselves
        pass
    if template:
        std = sys.modules.get("tqdm.std")
        monitor = getattr(getattr(std, "tqdm", None), "monitor", None)
        if monitor is not None:
            monitor.exit()
            std.tqdm.monitor = None


_prepare()

# --------------------------------------------------------------------------
# time_split: where a training step's time goes


class _SlowItems(torch.utils.data.Dataset):
    """A dataset whose every item takes ``delay`` seconds to produce (a slow decoder, a slow disk)."""

    def __init__(self, n: int, features: int, delay: float, seed: int):
        g = torch.Generator().manual_seed(seed)
        self.x, self.y = torch.randn(n, features, generator=g), torch.randn(n, 1, generator=g)
        self.delay = delay

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if self.delay:
            time.sleep(self.delay)
        return self.x[i], self.y[i]


class _Sleep(torch.autograd.Function):
    """Identity whose forward and backward each take a known time (a model too big for its hardware)."""

    @staticmethod
    def forward(ctx, x, forward_s: float, backward_s: float):
        ctx.backward_s = backward_s
        time.sleep(forward_s)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        time.sleep(ctx.backward_s)
        return grad, None, None


class _SlowNet(nn.Module):
    def __init__(self, features: int, forward_s: float, backward_s: float):
        super().__init__()
        self.lin = nn.Linear(features, 1)
        self.forward_s, self.backward_s = forward_s, backward_s

    def forward(self, x):
        return _Sleep.apply(self.lin(x), self.forward_s, self.backward_s)


class _Counted:
    """A loader that counts the batches taken from it, and the iterators made from it."""

    def __init__(self, loader):
        self.loader, self.taken, self.iterators = loader, 0, 0

    def __iter__(self):
        self.iterators += 1
        for batch in self.loader:
            self.taken += 1
            yield batch

    def __len__(self):
        return len(self.loader)


def _split_case(kind: str, steps: int, seed: int, device: str, item_s: float, forward_s: float, backward_s: float):
    """(model, counted loader, optimizer, loss_fn, expected data seconds, expected compute seconds)."""
    batch = 4
    manual_seed(seed)
    if kind == "slow data":
        model, data_s, compute_s = nn.Linear(3, 1), steps * batch * item_s, 0.0
        dataset = _SlowItems(batch * (steps + 2), 3, item_s, seed)
    else:
        model, data_s, compute_s = _SlowNet(3, forward_s, backward_s), 0.0, steps * (forward_s + backward_s)
        dataset = _SlowItems(batch * (steps + 2), 3, 0.0, seed)
    model.to(device)
    loader = _Counted(torch.utils.data.DataLoader(dataset, batch_size=batch))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    return model, loader, optimizer, nn.MSELoss(), data_s, compute_s


def _call_split(time_split, model, loader, optimizer, steps: int, what: str):
    counted = {"steps": 0}
    modes: list[bool] = []
    handle = optimizer.register_step_post_hook(lambda *a: counted.__setitem__("steps", counted["steps"] + 1))
    watch = model.register_forward_pre_hook(lambda module, inputs: modes.append(module.training))
    model.eval()  # as an evaluation leaves it: time_split must put it in training mode itself
    try:
        out = call(time_split, model, loader, optimizer, nn.MSELoss(), steps)
    finally:
        handle.remove()
        watch.remove()
    where = f"time_split(model, loader, optimizer, loss_fn, {steps}) with {what}"
    if out is None:
        job_not_done(f"{where} returned None.", "nothing", "the report time_split returns.",
                     'return {"data": seconds, "compute": seconds, "bottleneck": "data" or "compute"}.')
    if not isinstance(out, dict) or not {"data", "compute", "bottleneck"} <= set(out):
        fail(f"{where} returned {describe(out)}.", "the report time_split returns.",
             'return {"data": seconds, "compute": seconds, "bottleneck": "data" or "compute"}.', code="wrong_result")
    if modes and not all(modes):
        fail(f"{where}, called with the model in eval mode (as an evaluation leaves it), ran {modes.count(False)} of "
             f"its {len(modes)} forward passes with model.training False.",
             "the model's mode: time_split times training steps, and the model was never put in training mode, so "
             "Dropout and BatchNorm would run (and be timed) as in evaluation.",
             "call model.train() before the steps.", code="wrong_mode")
    if loader.iterators > 1:
        fail(f"{where} made {loader.iterators} iterators from the loader (iter(loader), or next(iter(loader)), "
             "inside the loop).",
             "the loader's iterator: each new one starts the epoch over, so every step trained on the loader's first "
             "batch again (and, with worker processes, paid for starting an epoch each time).",
             "make one iterator before the loop (batches = iter(loader)) and take next(batches) in each step.",
             code="loader_restarted")
    if counted["steps"] == steps and loader.taken == steps + 1:
        fail(f"{where} took {loader.taken} batches from the loader for {steps} steps: a `for` loop over the loader "
             "fetches the next batch before the `break` inside it runs, so one batch more was produced (and its "
             "waiting time spent) than the steps use.",
             "the loop that fetches the batches: its test comes after the fetch.",
             "stop before fetching: take each batch with next() on one iterator made before the loop, or loop over "
             "zip(range(steps), loader) so that the count ends the loop first.", code="wrong_step_count")
    if counted["steps"] != steps or loader.taken != steps:
        fail(f"{where} took {loader.taken} batch(es) from the loader and called optimizer.step() "
             f"{counted['steps']} time(s); the contract is {steps} of each.",
             "the training steps time_split measures: one batch and one update per step, nothing before them.",
             f"run exactly {steps} steps, each taking its batch from the loader, and time those.",
             code="wrong_step_count")
    for key in ("data", "compute"):
        value = out[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            fail(f"{where}: {key!r} is {describe(value)}.", "the report's times.",
                 "give each time as a Python float of seconds, the total over the steps.", code="not_a_float")
    return out, where


@graded("time_split")
def time_split_finds_the_bottleneck(time_split, steps: int = 4, seed: int = 0, item_s: float = 0.01,
                                    forward_s: float = 0.02, backward_s: float = 0.04, *, notes):
    """A slow loader is reported as data time, a slow model (forward and backward) as compute time"""
    for device in ("cpu",):
        for kind in ("slow data", "slow model"):
            model, loader, optimizer, _, data_s, compute_s = _split_case(kind, steps, seed, device, item_s,
                                                                         forward_s, backward_s)
            what = (f"a loader whose batches take {4 * item_s * 1000:.0f} ms each and a fast model" if kind ==
                    "slow data" else f"a fast loader and a model whose forward takes {forward_s * 1000:.0f} ms and "
                                     f"backward {backward_s * 1000:.0f} ms")
            out, where = _call_split(time_split, model, loader, optimizer, steps, what)
            slow_key, fast_key = ("data", "compute") if kind == "slow data" else ("compute", "data")
            expected = data_s if kind == "slow data" else compute_s
            per_step = expected / steps
            # Only the data clock tells a time per step apart: a compute clock that missed part of the step
            # (the backward) can land on the same value.
            if kind == "slow data" and steps > 1 and 0.5 * per_step <= out[slow_key] <= 1.5 * per_step:
                fail(f"{where} reported {out[slow_key]:.3f} s of {slow_key}; the {kind.split()[1]} takes about "
                     f"{per_step:.3f} s per step and {expected:.3f} s over the {steps} steps: what was reported is "
                     "the time of one step (the total divided by the number of steps).",
                     f"the report's {slow_key} time: the contract asks for the total over the steps, not a mean "
                     "per step.", "add up each step's time and return the sums, without dividing.",
                     code="per_step_not_total")
            if out[slow_key] < 0.7 * expected:
                owner = ("the clock around the batch: the time spent waiting for the loader's next batch was not "
                         "counted as data" if kind == "slow data" else
                         "the clock around the step: part of the step (the backward pass, or the optimizer's "
                         "update) was left out of compute")
                fail(f"{where} reported {out[slow_key]:.3f} s of {slow_key}; the {kind.split()[1]} alone takes at "
                     f"least {expected:.3f} s over {steps} steps.", owner + ".",
                     "start each clock where its part begins and read it where it ends: data from asking the "
                     "loader until the batch is ready, compute from zero_grad() to the end of step().",
                     code="wrong_split")
            if out[fast_key] > 0.5 * expected:
                fail(f"{where} reported {out[fast_key]:.3f} s of {fast_key}, although the {kind.split()[1]} "
                     f"({out[slow_key]:.3f} s) is what is slow here.",
                     f"the clock for {fast_key}: it also ran while the {kind.split()[1]} was working.",
                     "stop one clock before the other part starts; the two must not overlap.", code="wrong_split")
            if out["bottleneck"] != slow_key:
                fail(f"{where} named {out['bottleneck']!r} the bottleneck, with data {out['data']:.3f} s and "
                     f"compute {out['compute']:.3f} s.", "the report's verdict: the bottleneck is the larger part.",
                     'return "data" when data time is the larger, "compute" otherwise.', code="wrong_choice")
    _split_on_cuda(time_split, steps, seed, notes)


def _split_on_cuda(time_split, steps: int, seed: int, notes) -> None:
    """On CUDA the step's kernels run after the Python calls return: only a synchronised clock sees them."""
    log: list[str] = []
    model, loader, optimizer, _, _, _ = _split_case("slow data", 2, seed, "cpu", 0.0, 0.0, 0.0)
    with _recording_synchronize(log):
        call(time_split, model, loader, optimizer, nn.MSELoss(), 2)
    if "sync" in log:
        fail("time_split called torch.cuda.synchronize() for a model on the CPU.",
             "time_split's CUDA branch: on a machine without CUDA that call raises.",
             "synchronise only when the model's parameters are on a CUDA device.", code="sync_without_cuda")
    if not cuda_or_skip(notes):
        return
    manual_seed(seed)
    heavy = nn.Sequential(*[nn.Linear(2048, 2048) for _ in range(16)]).to("cuda")
    dataset = torch.utils.data.TensorDataset(torch.randn(64 * (steps + 1), 2048), torch.randn(64 * (steps + 1), 2048))
    loader = _Counted(torch.utils.data.DataLoader(dataset, batch_size=64))
    optimizer = torch.optim.SGD(heavy.parameters(), lr=1e-6)
    out, where = _call_split(time_split, heavy, loader, optimizer, steps, "a model of sixteen 2048x2048 layers on "
                             "CUDA and a fast loader")
    if out["bottleneck"] != "compute":
        fail(f"{where} reported data {out['data']:.4f} s and compute {out['compute']:.4f} s.",
             "CUDA runs kernels asynchronously: the step's Python calls returned when its work was queued, and "
             "the work was finished (and counted) while the next batch was being fetched.",
             "when the model is on CUDA, call torch.cuda.synchronize() before reading each clock.",
             code="no_cuda_sync")

# check.hint("name") and check.solution("name") in this module's notebooks
hint, solution = hint_for(__name__), solution_for(__name__)
