"""The bug catalogues' sources, cheaply (nothing is run): every catalogue builds, every mutant is valid Python
and differs from the solution in each answer cell it replaces."""

import ast
import importlib

import pytest

from autograder.cohort.views.normalise import strip_docstrings
from autograder.dev.catalogue import MODULES, patched, solution_of

CATALOGUES = {name: importlib.import_module(f"autograder.dev.catalogue.{name}") for name in MODULES}  # applies every edit


def _normalised(source: str) -> str:
    """The source's syntax tree without docstrings: comments, layout and docstrings do not make a mutant."""
    tree = ast.parse(source)
    strip_docstrings(tree)
    return ast.dump(tree)


def _answers(kind):
    for name, cat in CATALOGUES.items():
        entries = cat.MUTANTS.items() if kind == "mutant" else cat.VARIANTS.items()
        for entry, value in entries:
            answers = value.answers if kind == "mutant" else value
            for function, source in answers.items():
                yield pytest.param(cat.MODULE, function, source, id=f"{name[:3]}-{entry}-{function}")


@pytest.mark.parametrize("module_id,function,source", list(_answers("mutant")))
def test_mutant_is_python_and_not_the_solution(module_id, function, source):
    compile(source, f"<{function}>", "exec")
    assert _normalised(source) != _normalised(solution_of(module_id, function)), (
        f"this mutant's {function} is the solution's")


@pytest.mark.parametrize("module_id,function,source", list(_answers("variant")))
def test_variant_is_python(module_id, function, source):
    compile(source, f"<{function}>", "exec")
    solution_of(module_id, function)  # an answer cell of that module


@pytest.mark.parametrize("name", MODULES)
def test_every_answer_cell_of_the_solution_is_plain_python(name):
    module_id = CATALOGUES[name].MODULE
    for function in {f for m in CATALOGUES[name].MUTANTS.values() for f in m.answers}:
        source = solution_of(module_id, function)
        assert "### BEGIN SOLUTION" not in source and "### END SOLUTION" not in source
        compile(source, f"<{function}>", "exec")


def test_patched_edits_the_solution_once_and_names_a_missing_text():
    source = solution_of("04-five-line-step", "overfit_one_batch")
    assert patched("04-five-line-step", "overfit_one_batch", ("range(steps)", "range(steps + 1)")) == {
        "overfit_one_batch": source.replace("range(steps)", "range(steps + 1)")}
    with pytest.raises(ValueError, match="not in the source"):
        patched("04-five-line-step", "overfit_one_batch", ("range(epochs)", "range(1)"))
    with pytest.raises(KeyError, match="no answer cell"):
        solution_of("04-five-line-step", "no_such_function")


# ---- automatic mutants (autograder.dev.mutate)

def test_the_mutator_deletes_swaps_and_flips():
    from autograder.dev.mutate import mutants

    keys = {m.key for m in mutants("standardize", solution_of("01-tensors", "standardize"))}
    assert "standardize: delete: std = x.std(dim=0, keepdim=True)" in keys
    assert "standardize: swap: std = x.std(dim=0, keepdim=True) <-> return (x - mean) / std" in keys
    assert "standardize: flip: True -> False in mean = x.mean(dim=0, keepdim=True)" in keys
    flips = {m.key for m in mutants("align_targets", solution_of("01-tensors", "align_targets"))}
    assert "align_targets: flip: y.numel() != logits.numel()" in flips


@pytest.mark.parametrize("name", [n for n in MODULES if hasattr(CATALOGUES[n], "EQUIVALENT")])
def test_every_equivalent_mutant_is_one_the_mutator_makes(name):
    """An entry whose solution line changed is stale: its mutant is no longer made, so its reason proves nothing."""
    from autograder.dev.mutate import mutants

    cat = CATALOGUES[name]
    functions = {key.split(":", 1)[0] for key in cat.EQUIVALENT}
    made = {m.key for f in functions for m in mutants(f, solution_of(cat.MODULE, f))}
    assert not set(cat.EQUIVALENT) - made, sorted(set(cat.EQUIVALENT) - made)
    assert all(reason.strip() for reason in cat.EQUIVALENT.values())


def test_automatic_mutants_of_01_are_killed_or_listed_as_equivalent():
    """Graded in process: every surviving delete/swap/flip mutant of two of 01's functions has a reason."""
    from autograder.dev.mutate import survivors

    cat = CATALOGUES["m01_tensors"]
    alive = {m.key for m in survivors(cat.MODULE, ["standardize", "align_targets"])}
    assert alive <= set(cat.EQUIVALENT), sorted(alive - set(cat.EQUIVALENT))


# ---- the words each mistake's message must say

def test_a_message_is_held_to_its_mistakes_words():
    """A mutant's words must be in each message it lost points with under one of its codes (case aside)."""
    from autograder.dev.catalogue import Mutant, hold_to_words, mutant_problems
    from autograder.dev.nbtools import Scores

    scores = Scores()
    scores["test_f_a"] = (0.0, 1.0, "[incorrect] f — Seen: x. Owner: the mean's 1/N, applied TWICE. Do: y.", "twice")
    scores["test_f_b"] = (0.0, 1.0, "[incorrect] f — Seen: x. Owner: another cause. Do: y.", "other")
    scores.visible_failures.add("test_f_a")
    held = Mutant({"f": ""}, ["test_f_a", "test_f_b"], ["twice"], words=("applied twice",))
    assert mutant_problems("held", held, scores) == []
    drifted = Mutant({"f": ""}, ["test_f_a", "test_f_b"], ["twice"], words=("applied twice", "sum over the batch"))
    assert any("does not say ['sum over the batch']" in p for p in mutant_problems("drifted", drifted, scores))
    mutants = {"m": Mutant({"f": ""}, ["test_f_a"], words=("a",))}
    hold_to_words(mutants, {"m": ("a", "b")})
    assert mutants["m"].words == ("a", "b")
    with pytest.raises(KeyError, match="does not hold"):
        hold_to_words(mutants, {"no_such_mutant": ("a",)})


@pytest.mark.parametrize("name", MODULES)
def test_every_named_mistake_has_words_its_message_must_say(name):
    """Every mutant written as a mistake (not a generated stand-in) names what its message must say, as a list
    of plain, non-empty strings (mutants only a CUDA device exposes aside)."""
    cat = CATALOGUES[name]
    bare = [m for m, e in cat.MUTANTS.items() if not e.zero and not e.words and not e.needs_cuda]
    assert all(isinstance(w, str) and w.strip() for e in cat.MUTANTS.values() for w in e.words)
    assert not bare, f"these mistakes name no words their message must say: {bare}"


def test_make_checks_variants_are_judged_on_every_cell_that_calls_their_functions():
    """`make check` judges a correct variant on these cells only: its functions' own, and another function's
    cell that hands one over (module 08's checkpoint pair), never none."""
    from autograder.dev import nbtools
    from autograder.dev.catalogue import calling_cells
    from conftest import ROOT

    def solution(module_id):
        return nbtools.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb")

    four = solution("04-five-line-step")
    assert calling_cells({"train_step": ""}, four) == {"test_train_step_update", "test_train_step_returns_loss"}
    assert calling_cells({"overfit_one_batch": "", "accumulate_step": ""}, four) == {
        "test_overfit_one_batch_curve", "test_accumulate_step_update", "test_accumulate_step_returns_loss"}
    eight = solution("08-reproducible-training")
    assert "test_save_checkpoint_restores_everything" in calling_cells({"load_checkpoint": ""}, eight)
    for name, cat in CATALOGUES.items():
        sol = solution(cat.MODULE)
        assert all(calling_cells(answers, sol) for answers in cat.VARIANTS.values()), name
