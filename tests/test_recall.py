"""No more than one graded answer per module is API recall: a lesson cell's calls, in order (80 % or more)."""

from autograder.dev import recall


def test_calls_are_read_in_evaluation_order_by_name():
    source = "optimizer.zero_grad()\nloss = loss_fn(model(x), y)\nloss.backward()\noptimizer.step()"
    assert recall.calls(source) == ["zero_grad", "model", "loss_fn", "backward", "step"]
    assert recall.calls("%timeit f(x)\ng(h(1))") == ["h", "g"]
    assert recall.calls("def broken(:\n") == []


def test_common_in_order_is_the_longest_common_subsequence():
    assert recall.common_in_order(list("abcd"), list("xaybzd")) == 3
    assert recall.common_in_order(list("abc"), list("cba")) == 1
    assert recall.common_in_order([], list("abc")) == 0


def test_at_most_one_answer_per_module_is_a_lesson_cells_calls():
    rows = recall.measure()
    assert {r.function for r in rows} >= {"train_step", "manual_gradients", "trace_batch", "plan_mlp"}
    assert not any(r.function.startswith("repair_") for r in rows)
    train_step = next(r for r in rows if r.function == "train_step")
    assert train_step.is_recall, "the seeds' five lines are 04's lesson; the measure must see it"
    per_module: dict[str, list[str]] = {}
    for r in rows:
        if r.is_recall:
            per_module.setdefault(r.module, []).append(f"{r.function} ({r.share:.0%} of {r.lesson} cell {r.cell})")
    assert all(len(found) <= 1 for found in per_module.values()), per_module
