"""Ways of handing in the course's own code as an answer, each an answer cell of one graded function.

Each case is ``name -> (module id, graded function, {grade_id: answer source}, what ran)``: the answer reaches a
reference implementation of the course (the owners' trace, the checks' reference loops, a catalogue's answers,
a reference answer read through the hint machinery) in another way.  Every one must score 0 on every test cell
of its function, with a message that names the reference (tests/test_own_code.py); the same in a cohort
(tests/test_nbgrader.py).  ``HELD_OUT`` were written with the others, before the watch, and kept out of
its tuning.
"""

TB = "def trace_batch(model, optimizer, loss_fn, x, y, body):\n"

CASES = {
    # --- the six ways ---------------------------------------------------------------------------------
    "owners_run_imported": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "from autograder.owners import run\n\n" + TB + "    return run(model, optimizer, loss_fn, x, y, body)\n")},
        "autograder.owners.run"),
    "owners_run_via_sys_modules": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "import sys\n\n" + TB
        + "    return sys.modules['autograder.owners'].run(model, optimizer, loss_fn, x, y, body)\n")},
        "autograder.owners.run"),
    "train_step_is_ref_step": ("04-five-line-step", "train_step", {"train_step": (
        "from autograder.checks._training import ref_step as train_step\n")}, "ref_step"),
    "evaluate_is_ref_evaluate": ("05-train-vs-eval", "evaluate", {"evaluate": (
        "from autograder.checks._training import ref_evaluate\n\n"
        "def evaluate(model, loader, loss_fn, device):\n    return ref_evaluate(model, loader, loss_fn, device)\n")},
        "ref_evaluate"),
    "standardize_exec_reference_answer": ("01-tensors", "standardize", {"standardize": (
        "from autograder.hints import reference_answer\n\n"
        "exec(reference_answer('01-tensors', 'standardize'))\n")}, "reference answer"),
    "owners_snapshot_rows_loop": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "from autograder import owners\n\n" + TB
        + "    scope = {'model': model, 'optimizer': optimizer, 'loss_fn': loss_fn, 'x': x, 'y': y, 'loss': None}\n"
          "    snaps = [owners.snapshot(model, optimizer, None)]\n"
          "    for s in body:\n"
          "        exec(s, {}, scope)\n"
          "        snaps.append(owners.snapshot(model, optimizer, scope['loss']))\n"
          "    return owners.rows(snaps, ('out.weight', (0, 0)))\n")}, "autograder.owners"),
    # --- the prediction: the course's predictor, or its reference answer, handed in ---------------------------
    "owners_predict_imported": ("04-five-line-step", "predict_trace", {"predict_trace": (
        "from autograder.owners import predict as predict_trace\n")}, "autograder.owners.predict"),
    "predict_trace_exec_reference_answer": ("04-five-line-step", "predict_trace", {"predict_trace": (
        "from autograder.hints import reference_answer\n\n"
        "exec(reference_answer('04-five-line-step', 'predict_trace'))\n")}, "reference answer"),
    # --- more ways -------------------------------------------------------------------------------------------
    "getsource_exec_of_run": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "import inspect\nfrom autograder import owners\n\n"
        "namespace = dict(vars(owners))\n"
        "exec(inspect.getsource(owners.run), namespace)\n\n" + TB
        + "    return namespace['run'](model, optimizer, loss_fn, x, y, body)\n")}, "autograder.owners.run"),
    "importlib_getattr": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "import importlib\n\n" + TB
        + "    module = importlib.import_module('autograder' + '.owners')\n"
          "    return getattr(module, 'r' + 'un')(model, optimizer, loss_fn, x, y, body)\n")},
        "autograder.owners.run"),
    "functools_partial_of_run": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "import functools\nfrom autograder.owners import run\n\n"
        "trace_batch = functools.partial(run, watch=('out.weight', (0, 0)))\n")}, "autograder.owners.run"),
    "function_type_copy_of_code": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "import types\nfrom autograder import owners\n\n"
        "trace_batch = types.FunctionType(owners.run.__code__, vars(owners), 'trace_batch', owners.run.__defaults__)\n"
    )}, "autograder.owners.run"),
    "catalogue_variant_exec": ("04-five-line-step", "train_step", {"train_step": (
        "from autograder.dev.catalogue import solution_of\n\n"
        "exec(solution_of('04-five-line-step', 'train_step'))\n")}, "reference answer"),
    "manual_gradients_by_the_checks_reference": ("01b-by-hand", "manual_gradients", {"manual_gradients": (
        "import sys\n\n"
        "def manual_gradients(params, x, y):\n"
        "    return sys.modules['autograder.checks.m01b_by_hand']._reference_gradients(params, x, y)\n")},
        "_reference_gradients"),
}

#: Written before the watch with CASES, and kept out of its tuning.
HELD_OUT = {
    "lambda_around_ref_step": ("04-five-line-step", "train_step", {"train_step": (
        "import autograder.checks._training as t\n\n"
        "train_step = lambda model, x, y, optimizer, loss_fn: t.ref_step(model, x, y, optimizer, loss_fn)\n")},
        "ref_step"),
    "local_reference_exec": ("05-train-vs-eval", "evaluate", {"evaluate": (
        "import torch\nfrom autograder import hints\n\n"
        "exec(hints.local_reference('05-train-vs-eval', 'evaluate')[0])\n")}, "reference answer"),
    "ref_step_source_pasted_into_a_file_module": ("04-five-line-step", "train_step", {"train_step": (
        "import inspect, importlib.util, pathlib, tempfile\nfrom autograder.checks import _training\n\n"
        "path = pathlib.Path(tempfile.mkdtemp()) / 'mine.py'\n"
        "path.write_text(inspect.getsource(_training.ref_step))\n"
        "spec = importlib.util.spec_from_file_location('mine', path)\n"
        "mine = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(mine)\n"
        "train_step = mine.ref_step\n")}, "ref_step"),
    "method_of_a_class_calling_rows": ("04-five-line-step", "trace_batch", {"trace_batch": (
        "import gc, types\n\n"
        "class Tracer:\n"
        "    def __call__(self, model, optimizer, loss_fn, x, y, body):\n"
        "        run = next(f for f in gc.get_objects() if isinstance(f, types.FunctionType)\n"
        "                   and f.__qualname__ == 'run' and f.__module__ == 'autograder.owners')\n"
        "        return run(model, optimizer, loss_fn, x, y, body)\n\n"
        "trace_batch = Tracer()\n")}, "autograder.owners.run"),
}

#: Graded through real nbgrader too (tests/test_nbgrader.py), one submission per module holding them all.
THROUGH_NBGRADER = {
    "04-five-line-step": ("owners_run_via_sys_modules", "catalogue_variant_exec"),
    "05-train-vs-eval": ("evaluate_is_ref_evaluate",),
}


def cohort_answers(module_id: str) -> tuple[dict, dict]:
    """``({grade_id: source}, {function: what ran})``: the ways of :data:`THROUGH_NBGRADER` for ``module_id``, in
    one submission (each replaces a different function)."""
    answers, functions = {}, {}
    for name in THROUGH_NBGRADER.get(module_id, ()):
        _, function, cells, ran = CASES[name]
        answers.update(cells)
        functions[function] = ran
    return answers, functions
