"""Every mutant loses points where it should; every correct variant keeps full marks (in process).

One test class per module, so that `--dist loadscope` spreads the modules over the workers.
"""

import importlib

import pytest
import torch

from autograder.dev import nbtools
from autograder.dev.catalogue import MODULES
from conftest import ROOT

CATALOGUES = {name: importlib.import_module(f"autograder.dev.catalogue.{name}") for name in MODULES}


def _solution(module_id):
    return nbtools.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb")


def pytest_generate_tests(metafunc):
    cls = metafunc.cls
    if cls is None or not getattr(cls, "CATALOGUE", ""):
        return
    cat = CATALOGUES[cls.CATALOGUE]
    if "mutant" in metafunc.fixturenames:
        metafunc.parametrize("mutant", list(cat.MUTANTS))
    if "variant" in metafunc.fixturenames:
        metafunc.parametrize("variant", list(cat.VARIANTS))


class _Catalogue:
    CATALOGUE = ""

    @property
    def cat(self):
        return CATALOGUES[self.CATALOGUE]

    def test_mutant_loses_points(self, mutant):
        entry = self.cat.MUTANTS[mutant]
        if entry.needs_cuda and not torch.cuda.is_available():
            pytest.skip("this mutant only shows on a CUDA device; none on this machine")
        scores = nbtools.run_in_process(_solution(self.cat.MODULE), entry.answers)
        for test_id in entry.breaks:
            assert test_id in scores, f"no test cell {test_id}"
            got, full, text, _ = scores[test_id]
            assert got < full, f"{mutant} kept its points in {test_id}"
            assert "[incorrect]" in text, text
            assert "Seen:" in text and "Owner:" in text and "Do:" in text, text
        codes = {scores[t][3] for t in entry.breaks}
        for code in entry.codes:
            assert code in codes, f"{mutant}: expected diagnosis {code!r}, got {codes}: " + " | ".join(
                scores[t][2] for t in entry.breaks)
        assert sum(s[0] for s in scores.values()) < sum(s[1] for s in scores.values())
        # Visible coverage: a learner running the released notebook's own check cells sees it fail,
        # in a cell of a function the mutant changed (not only in the hidden tests).
        own = {t for t in scores if any(t.startswith(f"test_{name}_") for name in entry.answers)}
        assert own & scores.visible_failures, (
            f"{mutant} is caught only by hidden tests; visible cells of {sorted(entry.answers)} all passed")

    def test_variant_keeps_full_marks(self, variant):
        scores = nbtools.run_in_process(_solution(self.cat.MODULE), self.cat.VARIANTS[variant])
        lost = {k: v[2] for k, v in scores.items() if v[0] < v[1]}
        assert not lost, lost

    def test_solution_full_marks_in_process(self):
        scores = nbtools.run_in_process(_solution(self.cat.MODULE))
        lost = {k: v[2] for k, v in scores.items() if v[0] < v[1]}
        assert scores and not lost, lost


for _name in MODULES:
    _cls = f"TestCatalogue{_name[1:3]}"
    globals()[_cls] = type(_cls, (_Catalogue,), {"CATALOGUE": _name})


def test_every_owner_a_checkpoint_misses_is_named_in_one_message():
    cat = CATALOGUES["m08_reproducible_training"]
    scores = nbtools.run_in_process(_solution(cat.MODULE), cat.MUTANTS["checkpoint_without_rng_states"].answers)
    text = scores["test_save_checkpoint_restores_everything"][2]
    for owner in ("the DataLoader generator's state", "torch's CPU RNG state", "NumPy's global RNG state",
                  "Python's random state"):
        assert owner in text, text
    assert "(4 owners)" in text and "random.setstate()" in text and "np.random.set_state()" in text


@pytest.mark.parametrize("mutant", ["evaluate_without_no_grad", "evaluate_unweighted_mean"])
def test_a_wrong_evaluate_costs_points_in_evaluate_only(mutant):
    """`fit` is graded with a correct `evaluate` in place of the learner's."""
    cat = CATALOGUES["m05_train_vs_eval"]
    scores = nbtools.run_in_process(_solution(cat.MODULE), cat.MUTANTS[mutant].answers)
    lost = {t for t, s in scores.items() if s[0] < s[1]}
    assert lost and all(t.startswith("test_evaluate") for t in lost), lost


def test_every_unseeded_generator_is_named_in_one_message():
    cat = CATALOGUES["m08_reproducible_training"]
    scores = nbtools.run_in_process(_solution(cat.MODULE), cat.MUTANTS["seed_torch_only"].answers)
    text = scores["test_seed_everything_rngs"][2]
    assert "Owner: Python's random and NumPy's global RNG were not seeded" in text, text


REPAIR_BUGS = [(name, mutant) for name, cat in CATALOGUES.items() for mutant in cat.MUTANTS
               if mutant.startswith("repair_left_")]


@pytest.mark.parametrize("name,mutant", REPAIR_BUGS, ids=[f"{n[:3]}-{m}" for n, m in REPAIR_BUGS])
def test_each_planted_bug_costs_only_its_own_cells(name, mutant):
    """Partial credit: a repair that leaves some planted bugs in loses exactly their cells."""
    cat = CATALOGUES[name]
    entry = cat.MUTANTS[mutant]
    scores = nbtools.run_in_process(_solution(cat.MODULE), entry.answers)
    lost = {t for t, s in scores.items() if s[0] < s[1]}
    allowed = set(entry.breaks) | set(getattr(cat, "WHOLE_RUN_CELLS", ()))
    assert set(entry.breaks) <= lost <= allowed, {t: scores[t][2] for t in lost ^ set(entry.breaks)}


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
