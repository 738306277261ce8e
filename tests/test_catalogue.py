"""Every mutant loses points where it should; every correct variant keeps full marks.

One test class per module, so that `--dist loadscope` spreads the modules over the workers.  Every run
judges every mutant here, in process, on the cells it is judged on (the cells it breaks and its own
functions' cells: :func:`autograder.dev.catalogue.judged_cells`), and every variant that a full run does not
grade through nbgrader (`make check` judges a variant on the test cells that call its functions, a full run on
the whole notebook).  The sampled variants, the solution, the repairs and the findings run here only in
the quick loop (marker ``inprocess``, ``make test SLOW=false``); a full ``make test`` judges them through real
nbgrader instead (tests/test_nbgrader.py), with the same assertions, together with a sample of the mutants
(each graded function's first, and the do-nothing stand-ins).
"""

import importlib

import pytest
import torch

from autograder.dev import nbtools
from autograder.dev.catalogue import (
    MODULES,
    calling_cells,
    facts,
    judged_cells,
    mutant_problems,
    variant_problems,
    variants_through_nbgrader,
    variants_together,
)
from conftest import ROOT

CATALOGUES = {name: importlib.import_module(f"autograder.dev.catalogue.{name}") for name in MODULES}


def _quick_loop(config) -> bool:
    """Whether this run is `make check` (``pytest -m check``)."""
    return config.getoption("markexpr") == "check"


def _solution(module_id):
    return nbtools.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb")


def pytest_generate_tests(metafunc):
    cls = metafunc.cls
    if cls is None or not getattr(cls, "CATALOGUE", ""):
        return
    cat = CATALOGUES[cls.CATALOGUE]
    if "mutant" in metafunc.fixturenames:
        metafunc.parametrize("mutant", list(cat.MUTANTS))
    if "variant" in metafunc.fixturenames:  # those a full run grades through nbgrader: in the quick loop only
        sampled = set(variants_through_nbgrader(cat.VARIANTS))
        metafunc.parametrize("variant", [pytest.param(v, marks=pytest.mark.inprocess) if v in sampled else v
                                         for v in cat.VARIANTS])


class _Catalogue:
    """One module's whole catalogue in process: every mutant in every run; the variants and the solution in
    the quick loop only (a full run judges them through real nbgrader, tests/test_nbgrader.py)."""

    CATALOGUE = ""

    @property
    def cat(self):
        return CATALOGUES[self.CATALOGUE]

    def test_mutant_loses_points(self, mutant):
        entry = self.cat.MUTANTS[mutant]
        if entry.needs_cuda and not torch.cuda.is_available():
            pytest.skip("this mutant only shows on a CUDA device; none on this machine")
        if entry.cpu_only and torch.cuda.is_available():
            pytest.skip("this mutant only shows on a machine without CUDA; this one has a CUDA device")
        solution = _solution(self.cat.MODULE)
        cells = judged_cells(entry, nbtools.test_cells(solution))
        with facts.recording() as recorder:  # every message is held to what its run did
            scores = nbtools.run_in_process(solution, entry.answers, only=cells)
        problems = mutant_problems(mutant, entry, scores) + facts.problems(recorder)
        assert not problems, problems

    def test_variant_keeps_full_marks(self, variant, request):
        answers, solution = self.cat.VARIANTS[variant], _solution(self.cat.MODULE)
        # `make check` judges a variant on the test cells that call its functions (a fifth of module 04's notebook);
        # a full run on every cell, so that a variant that upsets another function's cells is seen there.
        only = calling_cells(answers, solution) if _quick_loop(request.config) else None
        problems = variant_problems(variant, nbtools.run_in_process(solution, answers, only=only))
        assert not problems, problems

    @pytest.mark.inprocess
    def test_solution_full_marks_in_process(self):
        problems = variant_problems("the solution", nbtools.run_in_process(_solution(self.cat.MODULE)))
        assert not problems, problems


for _name in MODULES:
    _cls = f"TestCatalogue{_name[1:].split('_')[0]}"
    globals()[_cls] = type(_cls, (_Catalogue,), {"CATALOGUE": _name})


# Single mutants whose findings are asserted beyond the catalogue's own assertions.  A full run reads them
# from the real nbgrader run (tests/test_nbgrader.py, the same functions); these in-process runs are the
# quick loop's (marker ``inprocess``).

def checkpoint_names_every_owner(scores) -> None:
    text = scores["test_save_checkpoint_restores_everything"][2]
    for owner in ("the DataLoader generator's state", "torch's CPU RNG state", "NumPy's global RNG state",
                  "Python's random state"):
        assert owner in text, text
    assert "(4 owners)" in text and "random.setstate()" in text and "np.random.set_state()" in text


def evaluate_costs_evaluate_only(scores) -> None:
    """`fit` is graded with a correct `evaluate` in place of the learner's."""
    lost = {t for t, s in scores.items() if s[0] < s[1]}
    assert lost and all(t.startswith("test_evaluate") for t in lost), lost


def train_step_costs_train_step_only(scores) -> None:
    """`train_epoch` and `overfit_one_batch` are graded with a correct `train_step` in place of the learner's."""
    lost = {t for t, s in scores.items() if s[0] < s[1]}
    assert lost and all(t.startswith("test_train_step") for t in lost), lost


def unseeded_generators_named_once(scores) -> None:
    text = scores["test_seed_everything_rngs"][2]
    assert "Owner: Python's random and NumPy's global RNG were not seeded" in text, text


def planted_bug_costs_its_own_cells(cat, mutant: str, scores) -> None:
    """Partial credit: a repair that leaves some planted bugs in loses exactly their cells."""
    entry = cat.MUTANTS[mutant]
    lost = {t for t, s in scores.items() if s[0] < s[1]}
    allowed = set(entry.breaks) | set(getattr(cat, "WHOLE_RUN_CELLS", ()))
    assert set(entry.breaks) <= lost <= allowed, {t: scores[t][2] for t in lost ^ set(entry.breaks)}


#: (catalogue, mutant) -> what its scores must show.
FINDINGS = {
    ("m08_reproducible_training", "checkpoint_without_rng_states"): checkpoint_names_every_owner,
    ("m05_train_vs_eval", "evaluate_without_no_grad"): evaluate_costs_evaluate_only,
    ("m05_train_vs_eval", "evaluate_unweighted_mean"): evaluate_costs_evaluate_only,
    ("m04_five_line_step", "step_no_zero_grad"): train_step_costs_train_step_only,
    ("m08_reproducible_training", "seed_torch_only"): unseeded_generators_named_once,
}
REPAIR_BUGS = [(name, mutant) for name, cat in CATALOGUES.items() for mutant in cat.MUTANTS
               if mutant.startswith("repair_left_")]


@pytest.mark.inprocess
@pytest.mark.parametrize("name,mutant", list(FINDINGS), ids=[f"{n[:3]}-{m}" for n, m in FINDINGS])
def test_a_mutants_findings_in_process(name, mutant):
    cat = CATALOGUES[name]
    FINDINGS[name, mutant](nbtools.run_in_process(_solution(cat.MODULE), cat.MUTANTS[mutant].answers))


@pytest.mark.inprocess
@pytest.mark.parametrize("name,mutant", REPAIR_BUGS, ids=[f"{n[:3]}-{m}" for n, m in REPAIR_BUGS])
def test_each_planted_bug_costs_only_its_own_cells(name, mutant):
    cat = CATALOGUES[name]
    planted_bug_costs_its_own_cells(cat, mutant, nbtools.run_in_process(_solution(cat.MODULE),
                                                                         cat.MUTANTS[mutant].answers))


@pytest.mark.parametrize("name", sorted({n for n, _ in REPAIR_BUGS}))
def test_starter_code_is_not_attempted_even_with_comments(name):
    """The released starter code, unchanged or only commented, is reported as not attempted, not as wrong."""
    from autograder.starters import STARTERS

    cat = CATALOGUES[name]
    solution = _solution(cat.MODULE)
    task = next(t for t in nbtools.answer_cells(solution) if t in STARTERS)
    commented = STARTERS[task].replace("\n", "\n    # looked at this line\n", 2)
    for source in (STARTERS[task], commented):
        scores = nbtools.run_in_process(solution, {task: source})
        own = {t: s for t, s in scores.items() if t.startswith(f"test_{task}_")}
        assert own and all(s[0] == 0 and "[not attempted]" in s[2] and "still the code you were given" in s[2]
                           for s in own.values()), own


@pytest.mark.parametrize("name", list(CATALOGUES))
def test_the_variants_graded_together_keep_each_variants_cells_its_own(name):
    """What a full run grades through nbgrader in one notebook: every sampled variant's every answer, as the
    variant wrote it (no two variants in a notebook answer the same cell)."""
    variants = CATALOGUES[name].VARIANTS
    sampled = variants_through_nbgrader(variants)
    groups = variants_together(variants, sampled)
    assert sorted(n for names, _ in groups for n in names) == sorted(sampled)
    for names, answers in groups:
        assert sum(len(variants[n]) for n in names) == len(answers)
        assert all(answers[cell] == source for n in names for cell, source in variants[n].items())
