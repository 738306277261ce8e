"""Module 04's graded trace of one batch: its reference is what running the statements does.

The graph column cannot be read from a public attribute; the reference reads autograd's saved values
(:func:`autograder.owners.graph_state`).  These tests replay every body the checks give, visible and hidden,
and call ``backward()`` after each statement on a fresh run: it must succeed exactly where the reference says
the graph is alive.
"""

import pytest
import torch

from autograder import owners
from autograder.checks import m04_five_line_step as m04

CASES = [(start, body, seed) for seed, cases in ((0, m04.VISIBLE_CASES), (3, m04.HIDDEN_CASES))
         for start, body in cases]


def _backward_works(start: str, prefix, seed: int) -> bool:
    """Whether ``loss.backward()`` succeeds after running ``prefix`` from a fresh ``trace_setup``."""
    model, optimizer, loss_fn, x, y = m04.trace_setup(start, seed)
    scope = {"model": model, "optimizer": optimizer, "loss_fn": loss_fn, "x": x, "y": y, "loss": None}
    for statement in prefix:
        exec(statement, {}, scope)
    if scope["loss"] is None:
        return False
    try:
        scope["loss"].backward()
    except RuntimeError:
        return False
    return True


@pytest.mark.parametrize("start,body,seed", CASES, ids=[f"{s}-{i}" for i, (s, _, _) in enumerate(CASES)])
def test_the_graph_can_be_walked_exactly_where_the_reference_says(start, body, seed):
    rows = m04.reference_trace(start, body, seed)
    walkable = [_backward_works(start, body[:n + 1], seed) for n in range(len(body))]
    assert [r["graph"] == "alive" for r in rows] == walkable, [r["graph"] for r in rows]


def test_every_case_runs_without_an_error_and_the_hidden_cases_differ():
    """A body the checks give never walks a freed or unusable graph, and the hidden tests add other bodies."""
    for start, body, seed in CASES:
        assert len(m04.reference_trace(start, body, seed)) == len(body)
    assert not set(m04.VISIBLE_CASES) & set(m04.HIDDEN_CASES)
    kinds = {s for s, _ in m04.HIDDEN_CASES} | {s for s, _ in m04.VISIBLE_CASES}
    assert kinds == set(m04.STARTS)


def test_the_visible_cases_show_every_state_of_every_column():
    """Each state a column can take appears in a visible case, so no clause is graded only in hidden tests."""
    rows = [r for start, body in m04.VISIBLE_CASES for r in m04.reference_trace(start, body, 0)]
    assert {r["graph"] for r in rows} == set(owners.GRAPH_STATES)
    assert {s for r in rows for s in r["grad"].values()} == set(owners.GRAD_STATES)
    assert {s for r in rows for s in r["momentum"].values()} == set(owners.MOMENTUM_STATES)
    assert {s for r in rows for s in r["changed"].values()} == {True, False}
    assert any(r["loss"] is None for r in rows) and any(r["delta"] != 0 for r in rows)


def test_every_rule_a_hidden_case_judges_is_judged_in_a_visible_case_first():
    """A rule (what one statement does to one owner, given what it held) that only a hidden case exercised would
    print "passed" in the notebook and lose points when graded."""
    visible, hidden = m04.trace_rules(m04.VISIBLE_CASES, 0), m04.trace_rules(m04.HIDDEN_CASES, 3)
    assert not hidden - visible, sorted(hidden - visible, key=str)


def test_a_step_of_zeros_writes_and_a_buffer_is_updated_by_its_values():
    """The two rules the exercise states in words: a step() of zeros on a live graph writes (unusable, even by
    zero), and a buffer is "updated" when its values change, not when a write left them as they were."""
    body = (m04.FORWARD, m04.BACKWARD, m04.ZERO_FILL, m04.FORWARD, m04.STEP)
    rows = m04.reference_trace("fresh", body, 0)
    assert rows[-1]["graph"] == "unusable" and not any(rows[-1]["changed"].values())
    rows = m04.reference_trace("fresh", (m04.FORWARD, m04.BACKWARD, m04.ZERO_FILL, m04.STEP, m04.STEP), 0)
    assert set(rows[-2]["momentum"].values()) == {"created"} and set(rows[-1]["momentum"].values()) == {"kept"}
    assert {("fresh", body[:3] + body[4:]), ("fresh", body)} & set(m04.VISIBLE_CASES)


def test_a_warm_template_traces_every_case_once_and_hands_out_copies(monkeypatch):
    """In a grading template the reference traces are computed at import, before any notebook's code runs: the rows a
    real run gives, torch's global RNG where it was; each caller gets a copy of its own."""
    monkeypatch.setattr(m04, "reference_trace", m04._kept_traces())  # as in a process that has traced nothing yet
    m04._STARTS_READ.clear()
    traced, run = [], owners.run
    monkeypatch.setattr(owners, "run", lambda *args: traced.append(args[-2]) or run(*args))
    m04._prepare()  # a learner's kernel: nothing is traced at import
    assert not traced and not m04._STARTS_READ
    monkeypatch.setenv("TORCH_LEDGER_TEMPLATE", "1")
    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    m04._prepare()
    assert torch.equal(torch.rand(3), expected)
    cases = len(set(m04.VISIBLE_CASES)) + len(set(m04.HIDDEN_CASES))
    assert len(traced) == cases
    assert set(m04._STARTS_READ) == set(m04.STARTS)
    for each, seed in m04.TRACED.values():  # every case is kept: none is traced again
        for start, body in each:
            m04.reference_trace(start, body, seed)
    assert len(traced) == cases
    monkeypatch.setattr(owners, "run", run)
    start, body = m04.VISIBLE_CASES[1]
    real = owners.run(*m04.trace_setup(start, 0), list(body), m04.WATCH)
    first = m04.reference_trace(start, body, 0)
    assert first == real  # the kept rows are a real run's
    first[0]["grad"].clear()  # a caller that changes what it was handed changes its own copy
    described = m04.start_of("head_only")
    described["held"].clear()
    assert m04.reference_trace(start, body, 0) == real
    assert m04.start_of("head_only")["held"] == ["out.weight", "out.bias"]
    assert m04.reference_trace(start, body, 3) != real  # other weights: the hidden tests' seed


def test_the_graph_probe_names_every_state():
    model, optimizer, loss_fn, x, y = m04.trace_setup("after_one_step", 0)
    assert owners.graph_state(None) == "none"
    with torch.no_grad():
        assert owners.graph_state(loss_fn(model(x), y)) == "none"
    loss = loss_fn(model(x), y)
    assert owners.graph_state(loss) == "alive"
    optimizer.step()  # the earlier batch's gradient, written in place into weights the graph saved
    assert owners.graph_state(loss) == "unusable"
    loss = loss_fn(model(x), y)
    loss.backward()
    assert owners.graph_state(loss) == "freed"


def test_an_unknown_statement_is_refused_by_name():
    with pytest.raises(ValueError, match="optimizer.step\\(closure\\)"):
        owners.run(*m04.trace_setup("fresh", 0), ["optimizer.step(closure)"])


# --------------------------------------------------------------------------
# predict_trace: the rules alone give what a run gives


def _valid_bodies(start: str, n: int, length: int, seed: int):
    """``n`` bodies of ``length`` statements that a real run from ``start`` completes (no backward() on a freed or
    unusable graph), drawn from a generator of their own."""
    import random

    rng, found = random.Random(seed), []
    while len(found) < n:
        body = tuple(rng.choice(owners.STATEMENTS) for _ in range(length))
        graph = "none"
        for statement, row in zip(body, owners.predict(m04.start_of(start), body)):
            if statement == m04.BACKWARD and graph != "alive":
                break
            graph = row["graph"]
        else:
            found.append(body)
    return found


def test_the_course_predictor_gives_what_a_real_run_gives():
    """owners.predict, which grades predict_trace, agrees with real runs on every case the checks ask and on
    random bodies of five and six statements from every start (every body of up to four statements from every
    start was checked the same way when the predictor was written: 3,680 runs, no difference)."""
    cases = [(s, b) for s, b in m04.PREDICT_VISIBLE + m04.PREDICT_HIDDEN]
    cases += [(s, b) for k, s in enumerate(m04.STARTS) for length in (5, 6) for b in _valid_bodies(s, 6, length, 10 * k + length)]
    for start, body in cases:
        real = m04.reference_trace(start, body, 0)
        predicted = owners.predict(m04.start_of(start), body)
        for n, (r, p) in enumerate(zip(real, predicted)):
            assert {c: r[c] for c in m04.PREDICTED} == p, (start, body, n)


def test_the_start_is_described_from_the_objects_and_the_prediction_builds_nothing():
    from autograder.checks.m03_nn_module import _Allocations

    names = ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    assert m04.start_of("fresh") == {"held": names, "grad": dict.fromkeys(names, "none"), "momentum": []}
    assert m04.start_of("head_only_after_one_step") == {"held": names[2:], "grad": dict.fromkeys(names, "nonzero"),
                                                        "momentum": names[2:]}
    start = m04.start_of("after_one_step")
    with _Allocations() as watch:
        owners.predict(start, m04.PREDICT_HIDDEN[0][1])
    assert watch.first == ""
    with pytest.raises(ValueError, match="not a statement"):
        owners.predict(m04.start_of("fresh"), ["loss.backward(retain_graph=True)"])


def test_every_rule_a_hidden_prediction_judges_is_judged_in_a_visible_one_first():
    visible, hidden = m04.trace_rules(m04.PREDICT_VISIBLE, 0), m04.trace_rules(m04.PREDICT_HIDDEN, 0)
    assert not hidden - visible, sorted(hidden - visible, key=str)
    assert not set(m04.PREDICT_HIDDEN) & set(m04.PREDICT_VISIBLE)


@pytest.mark.inprocess
def test_predictions_written_other_ways_keep_full_marks():
    """The right predictions of autograder/dev/predict_redteam.py that the catalogue does not carry (it carries two,
    graded through real nbgrader): each keeps full marks on predict_trace's cells, visible and hidden."""
    from autograder.dev import predict_redteam
    from autograder.dev.catalogue import m04_five_line_step as catalogue

    carried = {name[len("predict_"):] for name in catalogue.VARIANTS if name.startswith("predict_")}
    others = [name for name in predict_redteam.RIGHT if name not in carried]
    assert len(carried) == 2 and len(others) == 4
    results = predict_redteam.measure(others)
    assert all(s == f for name in others for s, f, _ in results[name].values()), results


def test_the_graph_message_of_a_step_says_only_what_that_step_did():
    """A step() that wrote (a tensor the optimizer holds had a .grad) is never told it wrote nothing, and one that
    wrote nothing is never told it spoiled the graph; after backward() the message says the graph was freed."""
    for start, body in m04.PREDICT_VISIBLE + m04.PREDICT_HIDDEN:
        described = m04.start_of(start)
        rows = owners.predict(described, body)
        for n, statement in enumerate(body):
            if statement != m04.STEP:
                continue
            grads = rows[n - 1]["grad"] if n else described["grad"]
            wrote = any(grads[name] != "none" for name in described["held"])
            text = m04._why("graph", statement, rows[n], rows[n - 1] if n else None)
            assert not wrote or ("updated no parameter" not in text and "writes nothing" not in text), (body, n, text)
            assert wrote or "wrote into the parameters in place" not in text, (body, n, text)
            if rows[n]["graph"] == "freed":
                assert "freed it earlier" in text and "nothing left to spoil" in text, text
