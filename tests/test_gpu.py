"""The CUDA side of the graders: runs only where a GPU is present (skipped with a reason elsewhere)."""

import importlib

import pytest
import torch

from autograder.dev import nbtools
from autograder.dev.catalogue import MODULES
from conftest import ROOT

pytestmark = pytest.mark.gpu

CATALOGUES = {name: importlib.import_module(f"autograder.dev.catalogue.{name}") for name in MODULES}
CUDA_ONLY = [pytest.param(name, case, id=f"{cat.MODULE}:{case}")
             for name, cat in CATALOGUES.items() for case, m in cat.MUTANTS.items() if m.needs_cuda]


def _solution(module_id):
    return nbtools.read(ROOT / "solutions" / module_id / f"{module_id}.ipynb")


@pytest.mark.parametrize("catalogue,name", CUDA_ONLY)
def test_cuda_only_mutant_loses_points(catalogue, name):
    cat = CATALOGUES[catalogue]
    mutant = cat.MUTANTS[name]
    scores = nbtools.run_in_process(_solution(cat.MODULE), mutant.answers)
    for test_id in mutant.breaks:
        assert scores[test_id][0] < scores[test_id][1], f"{name} kept its points in {test_id} on CUDA"
    assert {scores[t][3] for t in mutant.breaks} & set(mutant.codes)


@pytest.mark.parametrize("module_id", [CATALOGUES[n].MODULE for n in MODULES])
def test_solution_checks_ran_on_cuda(module_id, capsys):
    scores = nbtools.run_in_process(_solution(module_id))
    assert all(s == m for s, m, *_ in scores.values())
    assert "cuda not checked" not in capsys.readouterr().out


def test_time_it_without_sync_is_caught_on_real_cuda():
    from autograder.checks import m07_eager_compile_export as check
    from autograder.core import Incorrect

    namespace = {"statistics": __import__("statistics"), "time": __import__("time"), "torch": torch}
    exec(CATALOGUES["m07_eager_compile_export"].MUTANTS["time_it_never_synchronizes"].answers["time_it"], namespace)
    time_it = namespace["time_it"]

    assert torch.cuda.is_available()
    with pytest.raises(Incorrect) as info:
        check._real_cuda_sync(time_it, [])
    assert info.value.code == "no_cuda_sync"
