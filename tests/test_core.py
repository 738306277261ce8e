"""Outcomes, the message shape, and what a failing check raises."""

import pytest
import torch

from autograder import CheckFailed, graded
from autograder.core import CORRECT, INCORRECT, NOT_ATTEMPTED, SKIPPED, call, evaluate, fail
from autograder.devices import expect_tensor


@graded("double")
def _double_check(fn, *, notes):
    """Doubles a tensor"""
    out = call(fn, torch.ones(3))
    expect_tensor(out, "double(ones(3))", "the tensor double returned.", shape=(3,), dtype=torch.float32)
    if not torch.equal(out, torch.full((3,), 2.0)):
        fail("double(ones(3)) did not give twos.", "the values double computed.", "multiply by two.", code="wrong_value")


def _stub(x):
    raise NotImplementedError()


def test_correct_returns_none_and_prints(capsys):
    assert _double_check(lambda x: x * 2) is None
    assert "[correct] double — Doubles a tensor — passed." in capsys.readouterr().out


def test_not_attempted_is_its_own_outcome():
    with pytest.raises(CheckFailed) as info:
        _double_check(_stub)
    assert info.value.result.outcome == NOT_ATTEMPTED
    assert isinstance(info.value, AssertionError)
    assert "NotImplementedError" in str(info.value) and "Traceback" not in str(info.value)


def test_incorrect_has_three_parts():
    with pytest.raises(CheckFailed) as info:
        _double_check(lambda x: x * 3)
    result = info.value.result
    assert result.outcome == INCORRECT and result.code == "wrong_value"
    assert str(info.value).startswith("[incorrect] double — Seen: ")
    assert " Owner: " in str(info.value) and " Do: " in str(info.value)


def test_learner_exception_names_the_call_not_the_grader():
    def boom(x):
        return x.reshape(5)

    with pytest.raises(CheckFailed) as info:
        _double_check(boom)
    text = str(info.value)
    assert "calling boom(tensor float32 [3] on cpu) raised RuntimeError" in text
    assert "autograder" not in text


def test_fake_tensor_and_wrong_dtype_are_rejected():
    class Always(torch.Tensor):
        def __eq__(self, other):
            return True

    with pytest.raises(CheckFailed, match="not a torch.Tensor"):
        _double_check(lambda x: (x * 2).as_subclass(Always))
    with pytest.raises(CheckFailed, match="dtype float64"):
        _double_check(lambda x: (x * 2).double())


def test_unreadable_result_is_incorrect_not_a_crash():
    def check(fn, *, notes):
        return call(fn)["key"]  # the learner returned something the check cannot index

    result = evaluate(check, "f", "part", (lambda: 3,), {})
    assert result.outcome == INCORRECT and result.code == "unreadable_result"


def test_skipped_and_notes():
    result = evaluate(lambda *, notes: "needs a GPU", "f", "p", (), {})
    assert result.outcome == SKIPPED
    result = evaluate(lambda *, notes: notes.append("cuda not checked"), "f", "p", (), {})
    assert result.outcome == CORRECT and "cuda not checked" in result.message()


def test_html_line_is_coloured():
    result = evaluate(lambda *, notes: None, "f", "p", (), {})
    assert "autograder-correct" in result.html() and "background:" in result.html()


def test_not_callable_name():
    with pytest.raises(CheckFailed, match="not a function"):
        _double_check(42)


@graded("save_checkpoint")
def _round_trip_check(save, load, *, notes):
    """Saves and loads"""
    path = call(save, "ckpt")
    call(load, path)


def test_the_message_names_the_function_that_raised_and_the_cause():
    def save_checkpoint(path):
        return path

    def load_checkpoint(path):
        raise RuntimeError("Weights only load failed. Two options, \x1b[1monly if you trust it\x1b[0m. \n"
                           "\t(1) Re-running with weights_only=False will likely succeed.\n"
                           "\tWeightsUnpickler error: Unsupported global: GLOBAL numpy.dtype was not an allowed "
                           "global by default. Please use add_safe_globals.\n\nCheck the documentation.")

    with pytest.raises(CheckFailed) as info:
        _round_trip_check(save_checkpoint, load_checkpoint)
    result = info.value.result
    assert result.owner == "your `load_checkpoint` raised it, not the grader."
    assert "\x1b" not in result.seen and "only if you trust it" in result.seen
    assert "Unsupported global: GLOBAL numpy.dtype was not an allowed global by default" in result.seen
    assert "add_safe_globals" not in result.seen and "Check the documentation" not in result.seen


def test_a_one_line_error_stays_one_line():
    from autograder.core import error_text

    assert error_text(ValueError("shapes (3,) and (4,) differ")) == "shapes (3,) and (4,) differ"
    assert error_text(ValueError("")) == "(no message)"


def test_release_step_puts_starter_code_where_the_stub_was():
    """InsertStarterCode, on nbgrader's own cells: a repair task gets its starter, other answers keep the stub."""
    from nbgrader.preprocessors import ClearSolutions
    from traitlets.config import Config

    from autograder.cohort.preprocessors.insert_starters import InsertStarterCode, with_starter_code
    from autograder.dev import nbtools
    from autograder.starters import STARTERS

    nb = nbtools.new_notebook([
        nbtools.answer("repair_train_epoch", "def repair_train_epoch():\n    ### BEGIN SOLUTION\n    return 1\n"
                                             "    ### END SOLUTION"),
        nbtools.answer("train_step", "def train_step():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"),
        nbtools.code("repair_train_epoch = 1"),  # not an answer cell: left alone
    ])
    config = Config()
    config.ClearSolutions.code_stub = {"python": "raise NotImplementedError()"}
    resources = {}
    for step in (ClearSolutions(config=config), InsertStarterCode(config=config)):
        nb, resources = step.preprocess(nb, resources)
    assert nb.cells[0].source == STARTERS["repair_train_epoch"].rstrip("\n")
    assert nb.cells[1].source == "def train_step():\n    raise NotImplementedError()"
    assert nb.cells[2].source == "repair_train_epoch = 1"
    # A repair task's answer cell without a solution region is refused with a clear error.
    bare = nbtools.new_notebook([nbtools.answer("repair_evaluate", "def repair_evaluate():\n    return 1")])
    with pytest.raises(ValueError, match="repair_evaluate.*BEGIN SOLUTION"):
        InsertStarterCode(config=config).preprocess(bare, {})
    # In the release pipeline it comes right after ClearSolutions, once.
    steps = with_starter_code(with_starter_code([ClearSolutions, object]))
    assert steps == [ClearSolutions, InsertStarterCode, object]


def test_a_warning_is_passed_on_as_a_note_only_when_the_learners_code_raised_it():
    import copyreg
    import warnings

    def warns(where):
        def double(x):
            if where == "learner":
                warnings.warn("a warning of the learner's own", UserWarning, stacklevel=1)
            else:  # a library's warning raised inside the learner's call, shown where the library put it
                warnings.warn_explicit("a library's warning", FutureWarning, filename=where, lineno=1)
            return x * 2
        return double

    def notes(where):
        result = evaluate(_double_check.raw, "double", "", (warns(where),), {})
        assert result.outcome == CORRECT, result
        return result.notes

    assert notes("learner") == ["your code warned: UserWarning: a warning of the learner's own"]
    assert notes(copyreg.__file__) == []  # the standard library (torch's exporter warns from copyreg.py)
    assert notes(torch.__file__) == []  # an installed package
    assert notes("<frozen importlib._bootstrap>") == []


def test_a_warm_template_trains_module_09s_reference_cnns_once_and_leaves_the_rng(monkeypatch):
    """In a grading template, module 09's checks train predict_digits' reference CNNs before any kernel is
    forked: the same models a kernel trains for itself, and torch's global RNG where it was."""
    from autograder.checks import m09_debug_a_real_run as m09

    m09._trained_once.cache_clear()
    m09._prepare()  # a learner's kernel: nothing is trained at import
    assert m09._trained_once.cache_info().currsize == 0
    monkeypatch.setenv("TORCH_LEDGER_TEMPLATE", "1")
    torch.manual_seed(11)
    m09._prepare()
    after = torch.rand(4)
    torch.manual_seed(11)
    assert torch.equal(torch.rand(4), after)
    assert m09._trained_once.cache_info().currsize == len(m09.PREDICT_SEEDS)
    alone = m09._trained_once.__wrapped__(3, "cpu", 0.5).state_dict()
    warmed = m09._trained_ref(3, "cpu").state_dict()
    assert alone.keys() == warmed.keys() and all(torch.equal(alone[k], warmed[k]) for k in alone)
    assert m09._trained_once.cache_info().misses == len(m09.PREDICT_SEEDS)


def test_a_warm_template_compiles_the_references_code_keys_at_import(monkeypatch):
    """The checks' package, imported in a grading template, compiles the code keys every check's watch needs, so
    that no kernel forked from it pays for them in its first check; a learner's kernel compiles them there."""
    import importlib

    import autograder.checks
    from autograder import course_code

    monkeypatch.setattr(course_code, "_package_keys", None)
    importlib.reload(autograder.checks)
    assert course_code._package_keys is None
    monkeypatch.setenv("TORCH_LEDGER_TEMPLATE", "1")
    importlib.reload(autograder.checks)
    assert course_code._package_keys and course_code._package_keys == course_code.package_keys()


def test_module_09s_template_trains_the_seeds_its_notebook_checks_with(root):
    """PREDICT_SEEDS is a fact about the notebook: the seeds of its predict_digits test cells, visible and hidden."""
    import inspect
    import re

    from autograder.checks import m09_debug_a_real_run as m09
    from autograder.dev import nbtools

    nb = nbtools.read(root / "solutions" / "09-debug-a-real-run" / "09-debug-a-real-run.ipynb")
    used = set()
    for cell in nb.cells:
        for check, args in re.findall(r"check\.(predict_digits_\w+)\(([^)]*)\)", cell.source):
            seed = re.search(r"seed=(\d+)", args)
            used.add(int(seed.group(1)) if seed else inspect.signature(getattr(m09, check)).parameters["seed"].default)
    assert used == set(m09.PREDICT_SEEDS)


def test_a_failed_check_shows_its_message_once_in_a_notebook():
    """The coloured line holds the message; the error under it only says the cell lost its points."""
    from autograder.core import short_traceback

    with pytest.raises(CheckFailed) as info:
        _double_check(lambda x: x * 3)
    shown = []

    class Shell:
        def _showtraceback(self, etype, value, stb):
            shown.append(stb)

    stb = short_traceback(Shell(), CheckFailed, info.value, None)
    assert shown == [stb] and len(stb) == 1
    assert stb[0].startswith("CheckFailed: [incorrect] double:") and "Seen:" not in stb[0], stb
    assert "Seen:" in str(info.value)  # the error's own text stays whole for the tools that read outputs


def test_a_learner_error_shows_the_learners_line_and_its_usual_cause(tmp_path):
    """The fallback for any error the learner's code raised: the learner's own line, and what usually causes a
    common PyTorch error."""
    import importlib.util

    source = tmp_path / "learner_code.py"
    source.write_text("import torch\n\n\ndef double(x):\n    with torch.no_grad():\n        y = (x * 2).sum()\n"
                      "    y.backward()\n    return x * 2\n")
    spec = importlib.util.spec_from_file_location("learner_code", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(CheckFailed) as info:
        _double_check(module.double)
    result = info.value.result
    assert result.code == "raised"
    assert "at line 7 of its cell, in `double`: `y.backward()`" in result.seen, result.seen
    assert "torch.no_grad()" in result.owner and "no graph" in result.owner, result.owner
    assert result.do.endswith("fix that line.")


@pytest.mark.parametrize("momentum", [0.5, 0.9, 0.99])
def test_the_reference_sgd_step_of_01b_is_torch_optim_sgd(momentum):
    """01b's checks compare a learner's step with a reference built without torch.optim (a first optimizer costs
    the torch._dynamo import): over several steps, a parameter without .grad included, it equals SGD's."""
    from autograder.checks.m01b_by_hand import _reference_sgd_step

    g = torch.Generator().manual_seed(3)
    start = [torch.randn(4, 3, generator=g), torch.randn(3, generator=g), torch.randn(2, generator=g)]
    ours = [t.clone().requires_grad_() for t in start]
    theirs = [t.clone().requires_grad_() for t in start]
    optimizer = torch.optim.SGD(theirs, lr=0.07, momentum=momentum)
    buffers = None
    for step in range(5):
        grads = [torch.randn(t.shape, generator=g) for t in start]
        for tensors in (ours, theirs):
            for t, grad in zip(tensors[:2], grads):
                t.grad = grad.clone()
            tensors[2].grad = None  # took no part in the loss
        buffers = _reference_sgd_step(ours, buffers, 0.07, momentum)
        optimizer.step()
        for p, q, buf in zip(ours, theirs, buffers):
            assert torch.equal(p, q), step
            want = optimizer.state[q].get("momentum_buffer")
            assert (buf is None and want is None) or torch.equal(buf, want), step
