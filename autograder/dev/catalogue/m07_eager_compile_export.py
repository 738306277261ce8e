"""Module 07-eager-compile-export: mutants and correct variants."""

from . import Mutant, do_nothing, hold_to_words, patched
from .found import mutants as found_mutants

MODULE = "07-eager-compile-export"

TI = "def time_it(fn, *args, warmup=3, iters=20):\n"
CM = "def compile_model(model):\n"
EP = "def export_program(model, example, path):\n"
EO = "def export_onnx(model, example, path):\n"

# Edits of the solution's time_it: without its CUDA check, without each synchronize, or a synchronize on any device.
_NO_CUDA_CHECK = ("    on_cuda = any(isinstance(a, torch.Tensor) and a.is_cuda for a in args)\n", "")
_NO_SYNC_BEFORE = ("        if on_cuda:\n            torch.cuda.synchronize()         # nothing queued from before\n", "")
_NO_SYNC_AFTER = (
    "        if on_cuda:\n            torch.cuda.synchronize()         # wait until the GPU has finished this call\n", "")
_NO_SYNC = (_NO_CUDA_CHECK, _NO_SYNC_BEFORE, _NO_SYNC_AFTER)
_SYNC_ALWAYS = ("        if on_cuda:\n            torch.cuda.synchronize()", "        torch.cuda.synchronize()")  # once per sync
_WARMUP = "    for _ in range(warmup):                  # first calls pay for compilation and caches\n        fn(*args)\n"

MUTANTS = {
    # --- time_it ----------------------------------------------------------------------------
    "time_it_mean": Mutant(patched(MODULE, "time_it", *_NO_SYNC, ("statistics.median", "statistics.mean")),
                           ["test_time_it_median"], ["mean_not_median"]),
    "time_it_total_over_iters": Mutant(patched(
        MODULE, "time_it", *_NO_SYNC,
        ("    times = []\n", "    start = time.perf_counter()\n"),
        ("        start = time.perf_counter()\n", ""),
        ("        times.append(time.perf_counter() - start)\n", ""),
        ("statistics.median(times)", "(time.perf_counter() - start) / iters")),
        ["test_time_it_median"], ["mean_not_median"]),
    # One clock around the whole loop, never divided: the total of the timed calls.
    "time_it_one_clock_total": Mutant(patched(
        MODULE, "time_it", *_NO_SYNC,
        ("    times = []\n", "    start = time.perf_counter()\n"),
        ("        start = time.perf_counter()\n", ""),
        ("        times.append(time.perf_counter() - start)\n", ""),
        ("statistics.median(times)", "time.perf_counter() - start")),
        ["test_time_it_median"], ["total_not_per_call"], words=("the total of the timed calls", "time each call")),
    "time_it_passes_the_tuple": Mutant(patched(MODULE, "time_it", *_NO_SYNC, ("fn(*args)\n", "fn(args)\n"),
                                               ("fn(*args)\n", "fn(args)\n")),
                                       ["test_time_it_warmup"], ["args_not_unpacked"], words=("fn(*args)", "fn(args)")),
    "time_it_minimum": Mutant(patched(MODULE, "time_it", *_NO_SYNC, ("statistics.median(times)", "min(times)")),
                              ["test_time_it_median"], ["min_not_median"], words=("the shortest call",)),
    "time_it_counts_warmup": Mutant(patched(
        MODULE, "time_it", *_NO_SYNC,
        (_WARMUP, ""),
        ("range(iters)", "range(warmup + iters)")),
        ["test_time_it_warmup"], ["counted_warmup"]),
    "time_it_no_warmup": Mutant(patched(MODULE, "time_it", *_NO_SYNC, (_WARMUP, "")),
                                ["test_time_it_warmup"], ["wrong_call_count"]),
    "time_it_never_synchronizes": Mutant(patched(MODULE, "time_it", *_NO_SYNC),
                                         ["test_time_it_synchronizes"], ["no_cuda_sync"]),
    "time_it_synchronizes_only_at_the_end": Mutant(patched(
        MODULE, "time_it", ("on_cuda = any", "cuda = any"),
        _NO_SYNC_BEFORE,
        _NO_SYNC_AFTER,
        ("    return statistics.median",
         "    if cuda:\n        torch.cuda.synchronize()\n    return statistics.median")),
        ["test_time_it_synchronizes"], ["no_cuda_sync"]),
    "time_it_synchronizes_unconditionally": Mutant(patched(
        MODULE, "time_it", _NO_CUDA_CHECK,
        _SYNC_ALWAYS,
        _SYNC_ALWAYS),
        ["test_time_it_synchronizes"]),
    # --- compile_model ------------------------------------------------------------------------
    "compile_a_copy": Mutant(patched(
        MODULE, "compile_model",
        ("    return torch.compile(model)", "    import copy\n    return torch.compile(copy.deepcopy(model))")),
        ["test_compile_model_trains_original"], ["trains_a_copy"]),
    "compile_returns_eager": Mutant(patched(MODULE, "compile_model", ("torch.compile(model)", "model")),
                                    ["test_compile_model_parity"], ["not_compiled"]),
    "compile_returns_function": Mutant(patched(
        MODULE, "compile_model", ("compile(model)", "compile(model.forward)")),
        ["test_compile_model_parity", "test_compile_model_trains_original"], ["not_a_module"]),
    # --- export_program ----------------------------------------------------------------------
    "export_static_batch": Mutant({"export_program": EP + """
    model.eval()
    program = torch.export.export(model, (example,))
    torch.export.save(program, path)
    return Path(path)
"""}, ["test_export_program_reloads"], ["static_batch"]),
    "export_in_training_mode": Mutant({"export_program": EP + """
    program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    torch.export.save(program, path)
    return Path(path)
"""}, ["test_export_program_reloads"], ["differs_from_eval"]),
    "export_state_dict_only": Mutant({"export_program": EP + """
    model.eval()
    torch.save(model.state_dict(), path)
    return Path(path)
"""}, ["test_export_program_reloads"], ["not_loadable"]),
    "export_returns_string": Mutant({"export_program": EP + """
    model.eval()
    program = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    torch.export.save(program, path)
    return str(path)
"""}, ["test_export_program_reloads"], ["not_a_path"]),
    # --- export_onnx --------------------------------------------------------------------------
    "onnx_returns_a_string": Mutant(patched(MODULE, "export_onnx", ("    return path\n", "    return str(path)\n")),
                                    ["test_export_onnx_runs"], ["not_a_path"], words=("pathlib.Path",)),
    "onnx_static_batch": Mutant({"export_onnx": EO + """
    model.eval()
    torch.onnx.export(model, (example,), str(path), dynamo=True)
    return Path(path)
"""}, ["test_export_onnx_runs"], ["static_batch"]),
    "onnx_in_training_mode": Mutant({"export_onnx": EO + """
    torch.onnx.export(model, (example,), str(path), dynamo=True,
                      dynamic_shapes=({0: torch.export.Dim("batch")},))
    return Path(path)
"""}, ["test_export_onnx_runs"], ["differs_from_eval"]),
}

VARIANTS = {
    "time_it_ns_sorted_middle": {"time_it": TI + """
    use_cuda = any(torch.is_tensor(a) and a.device.type == "cuda" for a in args)
    for _ in range(warmup):
        fn(*args)
    samples = []
    for _ in range(iters):
        if use_cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        fn(*args)
        if use_cuda:
            torch.cuda.synchronize()
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return float(sorted(samples)[len(samples) // 2])
"""},
    "time_it_numpy_median": {"time_it": TI + """
    import numpy as np
    cuda = any(isinstance(a, torch.Tensor) and str(a.device).startswith("cuda") for a in args)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    for _ in range(warmup):
        fn(*args)
    sync()
    out = []
    for _ in range(iters):
        t = time.perf_counter()
        fn(*args)
        sync()
        out.append(time.perf_counter() - t)
    return float(np.median(out))
"""},
    "compile_in_place": {"compile_model": CM + """
    model.compile()
    return model
"""},
    "export_dim_auto_str_path": {"export_program": EP + """
    was = model.training
    model.eval()
    ep = torch.export.export(model, args=(example,), dynamic_shapes={"input": {0: torch.export.Dim.AUTO}})
    model.train(was)
    torch.export.save(ep, str(path))
    return Path(path)
"""},
}

# --- time_split ---------------------------------------------------------------------------------------------
_SPLIT = "time_split"
_CELL = ["test_time_split_finds_the_bottleneck"]
MUTANTS.update({
    "split_compute_clock_includes_the_fetch": Mutant(patched(MODULE, _SPLIT,
                                                             ("        compute += time.perf_counter() - middle",
                                                              "        compute += time.perf_counter() - start")),
                                                     _CELL, ["wrong_split"]),
    "split_forward_only": Mutant(patched(MODULE, _SPLIT, ("        loss = loss_fn(model(x), y)\n",
                                                          "        loss = loss_fn(model(x), y)\n"
                                                          "        forward_done = time.perf_counter()\n"),
                                         ("        compute += time.perf_counter() - middle",
                                          "        compute += forward_done - middle")),
                                 _CELL, ["wrong_split"]),
    "split_fetch_not_timed": Mutant(patched(MODULE, _SPLIT, ("        x, y = next(batches)\n", ""),
                                            ("        start = time.perf_counter()\n",
                                             "        x, y = next(batches)\n        start = time.perf_counter()\n")),
                                    _CELL, ["wrong_split"]),
    # The loader restarted every step: each step trains on its first batch again.
    "split_restarts_the_loader": Mutant(patched(MODULE, _SPLIT, ("    batches = iter(loader)\n", ""),
                                                ("x, y = next(batches)", "x, y = next(iter(loader))")),
                                        _CELL, ["loader_restarted"], words=("first batch", "one iterator before the loop")),
    # A `for` loop with a break: the batch after the last step is fetched before the break runs.
    "split_for_loop_with_break": Mutant(patched(MODULE, _SPLIT, ("    batches = iter(loader)\n", ""),
                                                ("    for _ in range(steps):\n        start = time.perf_counter()\n"
                                                 "        x, y = next(batches)\n",
                                                 "    start = time.perf_counter()\n    for i, (x, y) in enumerate(loader):\n"
                                                 "        if i == steps:\n            break\n"),
                                                ("        compute += time.perf_counter() - middle\n",
                                                 "        compute += time.perf_counter() - middle\n        start = time.perf_counter()\n")),
                                        _CELL, ["wrong_step_count"], words=("before the `break`", "took 5 batches")),
    "split_bottleneck_reversed": Mutant(patched(MODULE, _SPLIT, ('"data" if data > compute else "compute"',
                                                                 '"compute" if data > compute else "data"')),
                                        _CELL, ["wrong_choice"]),
    "split_mean_per_step": Mutant(patched(MODULE, _SPLIT, ('return {"data": data, "compute": compute,',
                                                           'return {"data": data / steps, "compute": compute / steps,')),
                                  _CELL, ["per_step_not_total"]),
    # The model left in eval mode by an evaluation: the steps timed are not training steps.
    "split_no_train_mode": Mutant(patched(MODULE, _SPLIT, ("    model.train()\n", "")), _CELL, ["wrong_mode"],
                                  words=("model.train()", "with model.training False")),
    "split_warm_up_step_first": Mutant(patched(MODULE, _SPLIT, ("    for _ in range(steps):\n",
                                                                "    for _ in range(steps + 1):\n"),
                                               ("        data += middle - start\n",
                                                "        if _ == 0:\n            continue\n"
                                                "        data += middle - start\n")),
                                       _CELL, ["wrong_step_count"]),
    "split_never_trains": Mutant(patched(MODULE, _SPLIT, ("        loss.backward()\n        optimizer.step()\n", "")),
                                 _CELL, ["wrong_step_count"]),
    "split_syncs_always": Mutant(patched(MODULE, _SPLIT, ("        if on_cuda:\n            torch.cuda.synchronize()"
                                                          "        # the copy", "        if True:\n"
                                                          "            torch.cuda.synchronize()        # the copy")),
                                 _CELL),  # cuda_only_api without CUDA, sync_without_cuda with it
    "split_no_cuda_sync": Mutant(patched(MODULE, _SPLIT, ("    on_cuda = device.type == \"cuda\"",
                                                          "    on_cuda = False")),
                                 _CELL, ["no_cuda_sync"], needs_cuda=True),
})
VARIANTS["split_with_next_and_events_of_time"] = {_SPLIT: """
def time_split(model, loader, optimizer, loss_fn, steps):
    cuda = next(model.parameters()).is_cuda
    clock = time.perf_counter
    totals = {"data": 0.0, "compute": 0.0}
    model.train()
    it = iter(loader)
    for step in range(steps):
        t0 = clock()
        batch = [t.to(next(model.parameters()).device) for t in next(it)]
        if cuda:
            torch.cuda.synchronize()
        t1 = clock()
        optimizer.zero_grad(set_to_none=True)
        loss_fn(model(batch[0]), batch[1]).backward()
        optimizer.step()
        if cuda:
            torch.cuda.synchronize()
        t2 = clock()
        totals["data"] += t1 - t0
        totals["compute"] += t2 - t1
    totals["bottleneck"] = max(("data", "compute"), key=totals.get)
    return totals
"""}

#: What the message of each mistake must say (besides the words given with a mutant above): a message that
#: stops naming its mistake fails the catalogue test.
WORDS = {
    "time_it_mean": ("a mean is dragged by one interruption", "what it returned is their mean"),
    "time_it_total_over_iters": ("a mean is dragged by one interruption", "one clock around the whole loop divided"),
    "time_it_counts_warmup": ("the warm-up calls were counted in the timing",),
    "time_it_never_synchronizes": (
        "the call returned when the work was queued",
        "with a CUDA tensor among the arguments",
    ),
    "time_it_synchronizes_only_at_the_end": (
        "the call returned when the work was queued",
        "with a CUDA tensor among the arguments",
    ),
    "time_it_synchronizes_unconditionally": ("on a machine without CUDA that call raises", "for arguments on the CPU"),
    "compile_a_copy": ("the compiled module works on a copy of the parameters",),
    "compile_returns_eager": (
        "the returned module runs eager code",
        "compile_model returned a module that is not compiled",
    ),
    "compile_returns_function": ("the object compile_model returned", "compile_model returned a function"),
    "export_in_training_mode": ("in train mode, Dropout is part of the traced graph",),
    "export_state_dict_only": ("it must be a program saved with torch",),
    "onnx_in_training_mode": ("in train mode, Dropout is part of the traced graph",),
    "split_compute_clock_includes_the_fetch": ("it also ran while the data was working", "is what is slow here"),
    "split_bottleneck_reversed": ("the bottleneck is the larger part",),
    "split_warm_up_step_first": ("the training steps time_split measures", "from the loader and called optimizer"),
    "split_never_trains": ("the training steps time_split measures", "from the loader and called optimizer"),
    "split_syncs_always": ("it reached for CUDA whatever device its inputs were on",),
    "time_it_no_warmup": ("warmup=5, iters=3) called fn 3 times",),
    "export_static_batch": ("its batch dimension was fixed at 4 when it was traced",),
    "export_returns_string": ("pathlib.Path",),
    "onnx_static_batch": ("its batch dimension was fixed at 4 when it was traced",),
    "split_forward_only": ("the backward pass, or the optimizer's update",),
    "split_fetch_not_timed": ("waiting for the loader's next batch was not counted as data",),
    "split_mean_per_step": ("the time of one step", "not a mean per step"),
}
hold_to_words(MUTANTS, WORDS)

# Stand-ins that run and do nothing, generated for every graded function: zero on every test cell.
# Mistakes found where beginners make them (autograder/dev/catalogue/found.py), each caught and named.
MUTANTS.update({k: v for k, v in found_mutants(MODULE).items() if k not in MUTANTS})
MUTANTS.update(do_nothing(MODULE))
