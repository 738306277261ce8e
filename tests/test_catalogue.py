"""Every mutant loses points where it should; every correct variant keeps full marks (in process).

One test class per module, so that `--dist loadscope` spreads the modules over the workers.
"""

import importlib

import pytest
import torch

from autograder import nbtools
from catalogue import MODULES
from conftest import ROOT

CATALOGUES = {name: importlib.import_module(f"catalogue.{name}") for name in MODULES}


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
