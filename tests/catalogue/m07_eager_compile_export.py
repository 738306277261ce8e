"""Module 07-eager-compile-export: mutants and correct variants."""

from . import Mutant

MODULE = "07-eager-compile-export"

TI = "def time_it(fn, *args, warmup=3, iters=20):\n"
CM = "def compile_model(model):\n"
EP = "def export_program(model, example, path):\n"
EO = "def export_onnx(model, example, path):\n"

MUTANTS = {
    # --- time_it ----------------------------------------------------------------------------
    "time_it_mean": Mutant({"time_it": TI + """
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.mean(times)
"""}, ["test_time_it_median"], ["mean_not_median"]),
    "time_it_total_over_iters": Mutant({"time_it": TI + """
    for _ in range(warmup):
        fn(*args)
    start = time.perf_counter()
    for _ in range(iters):
        fn(*args)
    return (time.perf_counter() - start) / iters
"""}, ["test_time_it_median"], ["mean_not_median"]),
    "time_it_counts_warmup": Mutant({"time_it": TI + """
    times = []
    for _ in range(warmup + iters):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
"""}, ["test_time_it_warmup"], ["counted_warmup"]),
    "time_it_no_warmup": Mutant({"time_it": TI + """
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
"""}, ["test_time_it_warmup"], ["wrong_call_count"]),
    "time_it_never_synchronizes": Mutant({"time_it": TI + """
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
"""}, ["test_time_it_synchronizes"], ["no_cuda_sync"]),
    "time_it_synchronizes_only_at_the_end": Mutant({"time_it": TI + """
    cuda = any(isinstance(a, torch.Tensor) and a.is_cuda for a in args)
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    if cuda:
        torch.cuda.synchronize()
    return statistics.median(times)
"""}, ["test_time_it_synchronizes"], ["no_cuda_sync"]),
    "time_it_synchronizes_unconditionally": Mutant({"time_it": TI + """
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(iters):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
"""}, ["test_time_it_synchronizes"]),
    # --- compile_model ------------------------------------------------------------------------
    "compile_a_copy": Mutant({"compile_model": CM + """
    import copy
    return torch.compile(copy.deepcopy(model))
"""}, ["test_compile_model_trains_original"], ["trains_a_copy"]),
    "compile_returns_eager": Mutant({"compile_model": CM + """
    return model
"""}, ["test_compile_model_parity"], ["not_compiled"]),
    "compile_returns_function": Mutant({"compile_model": CM + """
    return torch.compile(model.forward)
"""}, ["test_compile_model_parity", "test_compile_model_trains_original"], ["not_a_module"]),
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
