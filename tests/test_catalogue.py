"""Every mutant loses points where it should; every correct variant keeps full marks (in process)."""

import importlib

import pytest
import torch

from autograder import nbtools
from catalogue import MODULES

CATALOGUES = {name: importlib.import_module(f"catalogue.{name}") for name in MODULES}


def _solution(module_id, root):
    return nbtools.read(root / "solutions" / module_id / f"{module_id}.ipynb")


def _cases(kind):
    for name, cat in CATALOGUES.items():
        for case in getattr(cat, kind):
            yield pytest.param(name, case, id=f"{cat.MODULE}:{case}")


@pytest.mark.parametrize("catalogue,name", list(_cases("MUTANTS")))
def test_mutant_loses_points(catalogue, name, root):
    cat = CATALOGUES[catalogue]
    mutant = cat.MUTANTS[name]
    if mutant.needs_cuda and not torch.cuda.is_available():
        pytest.skip("this mutant only shows on a CUDA device; none on this machine")
    scores = nbtools.run_in_process(_solution(cat.MODULE, root), mutant.answers)
    for test_id in mutant.breaks:
        assert test_id in scores, f"no test cell {test_id}"
        got, full, text, _ = scores[test_id]
        assert got < full, f"{name} kept its points in {test_id}"
        assert "[incorrect]" in text, text
        assert "Seen:" in text and "Owner:" in text and "Do:" in text, text
    codes = {scores[t][3] for t in mutant.breaks}
    for code in mutant.codes:
        assert code in codes, f"{name}: expected diagnosis {code!r}, got {codes}: " + " | ".join(
            scores[t][2] for t in mutant.breaks)
    total = sum(s[0] for s in scores.values())
    assert total < sum(s[1] for s in scores.values())


@pytest.mark.parametrize("catalogue,name", list(_cases("VARIANTS")))
def test_variant_keeps_full_marks(catalogue, name, root):
    cat = CATALOGUES[catalogue]
    scores = nbtools.run_in_process(_solution(cat.MODULE, root), cat.VARIANTS[name])
    lost = {k: v[2] for k, v in scores.items() if v[0] < v[1]}
    assert not lost, lost


@pytest.mark.parametrize("module_id", [CATALOGUES[n].MODULE for n in MODULES])
def test_solution_full_marks_in_process(module_id, root):
    scores = nbtools.run_in_process(_solution(module_id, root))
    lost = {k: v[2] for k, v in scores.items() if v[0] < v[1]}
    assert scores and not lost, lost
