"""Taught before graded, and hints that never lead into a trap.

Every PyTorch API an exercise names (its text, its harness, its reference answers) is named in a lesson of its
module or an earlier one, and the concepts an exercise grades without naming an API (softmax in 02, a random split
in 06) are explained there first.  An answer built the way a hint says keeps full marks, and the trap a hint
used to lead into loses them.
"""

import json
import re

import pytest

from autograder.dev import nbtools
from autograder.syllabus import MODULES
from conftest import ROOT

ORDER = [m.id for m in MODULES]
API = re.compile(r"\b((?:torch|nn|F)\.[A-Za-z_][\w.]*)")
#: Concepts an exercise grades, and what its lessons (or an earlier module's) must say about them.
CONCEPTS = {
    "02-autograd-ledger": {"softmax": ("**Softmax**", "overflow", "max")},
    "04-five-line-step": {"predicting a trace": ("`model.zero_grad()`", "set_to_none=False", "a `None` is skipped",
                                                 "even when the update adds zeros", "**kept**", "**created**")},
    "06-failure-modes": {"a random split": ("random_split", "generator=", "RandomSampler")},
}


def _text(path, kinds=("markdown", "code")) -> str:
    nb = json.loads(path.read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] in kinds)


def _lessons_up_to(module_id: str, kinds=("markdown", "code")) -> str:
    number = module_id.split("-")[0]
    return "\n".join(_text(p, kinds) for p in sorted((ROOT / "course").glob("0*.ipynb"))
                     if not p.stem.startswith("00") and p.stem.split("-")[0] <= number)


@pytest.mark.parametrize("module_id", ORDER)
def test_every_api_an_exercise_names_is_named_in_a_lesson_first(module_id):
    exercise = _text(ROOT / "solutions" / module_id / f"{module_id}.ipynb")
    taught = _lessons_up_to(module_id)
    missing = sorted(a for a in set(API.findall(exercise)) if not re.search(rf"\b{re.escape(a.split('.')[-1])}\b",
                                                                                taught))
    assert not missing, f"{module_id} names {missing}, which no lesson up to it names"


@pytest.mark.parametrize("module_id,concept", [(m, c) for m, cs in CONCEPTS.items() for c in cs])
def test_every_concept_an_exercise_grades_is_explained_in_a_lesson_first(module_id, concept):
    prose = _lessons_up_to(module_id, kinds=("markdown",))
    assert all(word in prose for word in CONCEPTS[module_id][concept]), (module_id, concept)


BCE = "import torch\nimport torch.nn.functional as F\n\ndef bce_with_logits(z, y):\n"
#: bce_with_logits built the ways its hints say: each keeps full marks.
BY_THE_HINTS = {
    "softplus": BCE + "    return (F.softplus(z) - z * y).mean()\n",
    "half_of_t_plus_abs_t": BCE + "    return ((z + z.abs()) / 2 - z * y + torch.log1p(torch.exp(-z.abs()))).mean()\n",
    "maximum": BCE + "    return (torch.maximum(z, torch.zeros_like(z)) - z * y\n"
    "            + torch.log1p(torch.exp(-z.abs()))).mean()\n",
}
#: The answer hint 3 used to build (max(t, 0) as a clamp): it loses points at a logit of exactly 0.
TRAP = BCE + "    return (torch.clamp(z, min=0) - z * y + torch.log1p(torch.exp(-z.abs()))).mean()\n"


def _bce_scores(answer: str):
    nb = nbtools.read(ROOT / "solutions" / "01b-by-hand" / "01b-by-hand.ipynb")
    cells = [t for t in nbtools.test_cells(nb) if t.startswith("test_bce_with_logits")]
    return cells, nbtools.run_in_process(nb, {"bce_with_logits": answer}, only=cells)


@pytest.mark.parametrize("name", list(BY_THE_HINTS))
def test_an_answer_built_the_way_the_hints_say_keeps_full_marks(name):
    cells, scores = _bce_scores(BY_THE_HINTS[name])
    assert all(scores[c][0] == scores[c][1] for c in cells), {c: scores[c][2] for c in cells}


def test_the_clamp_the_hints_used_to_build_loses_points_and_the_hints_now_say_why():
    from autograder.hints import hints_of

    cells, scores = _bce_scores(TRAP)
    assert any(scores[c][0] < scores[c][1] for c in cells), scores
    texts = " ".join(hints_of("01b-by-hand", "bce_with_logits"))
    assert "torch.clamp" not in texts and "(t + |t|) / 2" in texts and "torch.maximum" in texts
    trace = " ".join(hints_of("04-five-line-step", "trace_batch"))
    assert "optimizer.state.get(p, {})" in trace and "optimizer.state[p]`" in trace  # named only as the trap
