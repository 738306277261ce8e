"""The registry of diagnosis codes: every code a check can report is in it, and nothing else is."""

import ast
import importlib
from pathlib import Path

import pytest

from autograder import core
from autograder.checks import m06_failure_modes
from autograder.dev.catalogue import MODULES
from autograder.diagnoses import DIAGNOSES, UnknownDiagnosis, meaning
from conftest import ROOT

#: Every module whose code reports diagnoses.
SOURCES = sorted((ROOT / "autograder" / "checks").glob("*.py")) + [ROOT / "autograder" / "core.py",
                                                                    ROOT / "autograder" / "devices.py"]
#: The values the placeholder of each f-string code takes (the source of the f-string as ast prints it).
TEMPLATES = {
    "f'wrong_{key}'": ("train_loss", "val_loss"),
    "f'missed_{sorted(missing)[0]}'": m06_failure_modes.CODES,
    "f'false_{sorted(extra)[0]}'": m06_failure_modes.CODES,
    "f'unseeded_{differ[0]}'": ("python", "numpy", "torch", "cuda"),
}


class _Module:
    """One source file, and the codes its ``code=`` arguments can take."""

    def __init__(self, path: Path):
        self.path = path
        self.tree = ast.parse(path.read_text())
        self.parents = {child: node for node in ast.walk(self.tree) for child in ast.iter_child_nodes(node)}
        self.functions = {n.name: n for n in self.tree.body if isinstance(n, ast.FunctionDef)}
        self.tables = {t.id: n.value for n in self.tree.body if isinstance(n, ast.Assign)
                       for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Dict)}

    def where(self, node) -> str:
        return f"{self.path.relative_to(ROOT)}:{node.lineno}"

    def scope(self, node):
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef):
                return node
        return self.tree

    def codes(self) -> set[str]:
        found = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg == "code":
                        found |= self.values(keyword.value, self.scope(node))
        return found

    def values(self, expr, scope) -> set[str]:
        """The strings ``expr`` can be, in the function ``scope``."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return {expr.value}
        if isinstance(expr, ast.IfExp):
            return self.values(expr.body, scope) | self.values(expr.orelse, scope)
        if isinstance(expr, ast.JoinedStr):
            source = ast.unparse(expr)
            assert source in TEMPLATES, f"{self.where(expr)}: add the values of {source} to TEMPLATES"
            return {expr.values[0].value + v for v in TEMPLATES[source]}
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Subscript) \
                and isinstance(expr.value.value, ast.Name) and expr.value.value.id in self.tables:
            table, index = self.tables[expr.value.value.id], expr.slice.value  # TABLE[key][index]
            return set().union(*(self.values(row.elts[index], scope) for row in table.values))
        if isinstance(expr, ast.Name):
            if expr.id in {a.arg for a in scope.args.args + scope.args.kwonlyargs}:
                return set()  # passed in: read where the caller passes it
            found = set()
            for node in ast.walk(scope):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name) and target.id == expr.id:
                            found |= self.values(node.value, scope)
                        elif isinstance(target, ast.Tuple):
                            names = [getattr(e, "id", None) for e in target.elts]
                            if expr.id in names:
                                found |= self.item(node.value, names.index(expr.id), scope)
            assert found, f"{self.where(expr)}: no value assigned to {expr.id}"
            return found
        raise AssertionError(f"{self.where(expr)}: cannot tell which codes `{ast.unparse(expr)}` gives")

    def item(self, expr, index: int, scope) -> set[str]:
        """The strings element ``index`` of the tuple ``expr`` can be (a tuple, or a call of this module's)."""
        if isinstance(expr, ast.Tuple):
            return self.values(expr.elts[index], scope)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in self.functions:
            called = self.functions[expr.func.id]
            returns = [n.value for n in ast.walk(called) if isinstance(n, ast.Return)]
            return set().union(*(self.item(r, index, called) for r in returns))
        raise AssertionError(f"{self.where(expr)}: cannot tell which codes `{ast.unparse(expr)}` gives")


def emitted_codes() -> set[str]:
    return set().union(*(_Module(path).codes() for path in SOURCES))


def test_every_code_a_check_can_report_is_registered():
    unknown = emitted_codes() - set(DIAGNOSES)
    assert not unknown, f"register these in autograder/diagnoses.py: {sorted(unknown)}"


def test_every_registered_code_is_reported_by_some_check():
    dead = set(DIAGNOSES) - emitted_codes()
    assert not dead, f"no check reports these: {sorted(dead)}"


def test_every_meaning_is_one_line():
    assert all(text and "\n" not in text and text == text.strip() for text in DIAGNOSES.values())
    assert meaning("wrong_dim") == DIAGNOSES["wrong_dim"] and meaning("an_old_code") == "an_old_code"


def test_the_catalogues_expect_only_registered_codes():
    for name in MODULES:
        catalogue = importlib.import_module(f"autograder.dev.catalogue.{name}")
        for mutant, entry in catalogue.MUTANTS.items():
            unknown = set(entry.codes) - set(DIAGNOSES)
            assert not unknown, f"{name} {mutant}: {sorted(unknown)} are not registered diagnosis codes"


def test_an_unregistered_code_is_refused_and_surfaces_as_the_checks_bug():
    with pytest.raises(UnknownDiagnosis, match="'wrong_valeu'"):
        core.fail("seen", "owner", "do", code="wrong_valeu")

    @core.graded("f")
    def typo_check(fn, *, notes):
        core.fail("seen", "owner", "do", code="wrong_valeu")

    with pytest.raises(UnknownDiagnosis):  # not scored as the learner's unreadable result
        typo_check(lambda: 1)


# --- every fact a message states is held to the run that produced it (autograder/dev/catalogue/facts.py; the
# catalogue test runs every mutant under the same recorder)

def _own_optimizer_step(model, x, y, optimizer, loss_fn):
    """A train_step that builds an optimizer of its own: the parameters move, the one passed in never steps."""
    import torch

    mine = torch.optim.SGD(model.parameters(), lr=0.1)
    mine.zero_grad()
    loss_fn(model(x), y).backward()
    mine.step()
    return 0.0


def _does_nothing(model, x, y, optimizer, loss_fn):
    return 0.0


def _judged_with(claim: str, learner):
    """Run a check whose message states ``claim`` about a call of ``learner``, under the facts recorder."""
    import torch
    from torch import nn

    from autograder.checks import m04_five_line_step
    from autograder.dev.catalogue import facts

    @core.graded("train_step")
    def states(train_step, *, notes):
        model = nn.Linear(2, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        m04_five_line_step.call(train_step, model, torch.ones(4, 2), torch.zeros(4, 1), optimizer, nn.MSELoss())
        core.fail(claim, "the optimizer you were given owns the update.", "call step() on it.", code="no_step")

    with facts.recording() as recorder, pytest.raises(core.CheckFailed):
        states(learner)
    return facts.problems(recorder)


def test_a_message_stating_what_its_run_contradicts_is_caught():
    claim = "optimizer.step() never ran while train_step worked (the parameters did not change)."
    found = _judged_with(claim, _own_optimizer_step)  # the parameters did change: another optimizer moved them
    assert len(found) == 1 and "the parameters did not change" in found[0], found
    assert _judged_with(claim, _does_nothing) == []  # here both facts hold


def test_the_claims_read_from_a_message():
    from autograder.dev.catalogue.facts import Call, Evidence, false_claims

    ran = Evidence([Call("evaluate", forwards=[(False, True, False)], returned=0.3286)])
    assert false_claims("a forward pass inside evaluate recorded an autograd graph.", ran)  # no output had one
    assert not false_claims("evaluate returned 0.3286; the mean is 0.3712.", ran)
    assert false_claims("evaluate returned 0.5; the mean is 0.3712.", ran)
    assert false_claims("a forward pass inside evaluate ran in train mode.", ran)
    assert not false_claims("every forward pass of evaluate ran in eval mode.", ran)
