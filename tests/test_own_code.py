"""The course's own code is never a learner's answer (autograder/course_code.py).

Each way of handing in a reference implementation of the course (autograder/dev/own_code.py: the owners' trace,
the checks' reference loops, a catalogue's or the hints' reference answer, reached by import, sys.modules,
importlib, functools.partial, a copied code object, getsource and exec, a file written from the source) scores 0
on every test cell of its function, in process here and through real nbgrader in tests/test_nbgrader.py; the
solutions keep full marks (tests/test_catalogue.py), and so does an answer a learner typed in after
``check.solution`` showed it.
"""

import pytest

from autograder import hints
from autograder.dev import nbtools
from autograder.dev.own_code import CASES, HELD_OUT
from conftest import ROOT

ALL = {**CASES, **HELD_OUT}


def _cells_of(nb, function: str) -> list[str]:
    return [t for t in nbtools.test_cells(nb) if t.startswith(f"test_{function}_")]


def _run(module_id: str, answers: dict, function: str):
    nb = nbtools.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb")
    cells = _cells_of(nb, function)
    assert cells, f"{module_id} has no test cells of {function}"
    return cells, nbtools.run_in_process(nb, answers, only=cells)


@pytest.mark.parametrize("name", list(ALL))
def test_the_courses_own_code_scores_zero_naming_what_ran(name):
    module_id, function, answers, ran = ALL[name]
    cells, scores = _run(module_id, answers, function)
    for cell in cells:
        got, _, text, code = scores[cell]
        assert got == 0 and code == "course_code", (cell, text)
        assert "the course's own code ran" in text and ran in text, (cell, text)
        assert all(part in text for part in ("Seen:", "Owner:", "Do:")), text


def test_switching_the_watch_off_scores_zero():
    answer = ("import sys\n\ndef train_step(model, x, y, optimizer, loss_fn):\n    sys.setprofile(None)\n"
              "    optimizer.zero_grad()\n    loss = loss_fn(model(x), y)\n    loss.backward()\n    optimizer.step()\n"
              "    return loss.item()\n")
    cells, scores = _run("04-five-line-step", {"train_step": answer}, "train_step")
    for cell in cells:
        assert scores[cell][0] == 0 and "switched off" in scores[cell][2], scores[cell]


def test_an_answer_typed_in_after_check_solution_keeps_its_marks():
    """check.solution shows the reference after the hints; a learner who types it into the answer cell wrote a
    cell, which a cohort's run could not tell from their own: it keeps full marks (its exec'd copy does not)."""
    source = hints.reference_answer("01-tensors", "standardize")  # handed out in this process
    assert source
    cells, scores = _run("01-tensors", {"standardize": source}, "standardize")
    assert all(scores[c][0] == scores[c][1] for c in cells), scores


def test_a_step_ledger_built_on_the_courses_ledger_is_named_and_other_functions_may_use_it():
    """The course's Ledger is off limits to StepLedger alone (exercise 09 judges StepLedger against it); its hooks
    running for a check's own Ledger are not a use."""
    import torch

    from autograder import course_code
    from autograder.ledger import Ledger

    def learners_code():
        model = torch.nn.Linear(2, 1)
        with Ledger(model, torch.optim.SGD(model.parameters(), lr=0.1)):
            model(torch.ones(1, 2)).sum().backward()

    for function, flagged in (("StepLedger", True), ("train_step", False)):
        with course_code.Watch(function) as watch:
            learners_code()
        assert (watch.found is not None) == flagged, (function, watch.found)
        assert not flagged or "autograder.ledger.Ledger" in watch.found
