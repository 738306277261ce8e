"""A check's result travels as data: the output it shows, what the cohort tools read back, what reports group by."""

import html

import nbformat
import pytest
from nbformat.v4 import new_output

from autograder import core
from autograder.checks import m01_tensors as check
from autograder.cohort.kernels.client import PromptKernelManager
from autograder.cohort.records import StudentEntry
from autograder.cohort.views import feedback, report
from autograder.cohort.worker import check_results as outcomes
from autograder.dev import nbtools
from autograder.diagnoses import DIAGNOSES
from autograder.outcome import RESULT_MIME, Outcome, ResultData

TEST_ID = "test_standardize_values"


def standardize_dim1(x):  # reduces over the features: the wrong_dim diagnosis
    return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)


@pytest.fixture
def shown(monkeypatch):
    """Checks display as in a notebook; the outputs they showed, as nbformat outputs."""
    import IPython.display

    outputs = []

    def display(bundle, raw=False):
        assert raw, "a result is displayed as a raw MIME bundle"
        outputs.append(new_output("display_data", data=bundle))

    monkeypatch.setattr(core, "_in_notebook", lambda: True)
    monkeypatch.setattr(IPython.display, "display", display)
    return outputs


def executed(shown, source: str, namespace: dict):
    """A graded test cell as a kernel leaves it: what it displayed, then the error it raised."""
    shown.clear()
    try:
        exec(source, namespace)
    except Exception as error:  # noqa: BLE001 - recorded like a kernel would
        shown.append(new_output("error", ename=type(error).__name__, evalue=str(error), traceback=[]))
    cell = nbtools.test(TEST_ID, source, points=1)
    cell.outputs = list(shown)
    return cell


def test_a_result_is_one_output_with_its_line_its_text_and_its_data(shown):
    with pytest.raises(core.CheckFailed) as info:
        check.standardize_values(standardize_dim1)
    assert len(shown) == 1
    data = shown[0]["data"]
    result = info.value.result
    assert data["text/html"] == result.html() and data["text/plain"] == result.text()
    assert data[RESULT_MIME] == {"version": 1, "function": "standardize", "part": "standardize_values",
                                 "outcome": "incorrect", "code": "wrong_dim", "seen": result.seen,
                                 "owner": result.owner, "do": result.do, "message": result.text()}
    # The worker reads back the very value the check showed: one type at both ends, a dict only in the output.
    from autograder.cohort.worker import check_results

    assert check_results.results({"outputs": shown}) == [result.data()]
    assert isinstance(result.data(), ResultData) and ResultData.read(data[RESULT_MIME]) == result.data()
    assert ResultData.read({**data[RESULT_MIME], "version": 2}) is None and ResultData.read("text") is None


@pytest.mark.parametrize("visible,hidden,is_visible", [
    ("standardize_values", "standardize_leaves_input", True),   # the learner's own check cell fails
    ("standardize_leaves_input", "standardize_values", False),  # only the hidden call fails
])
def test_scores_read_back_from_a_graded_cell_say_which_part_failed(shown, visible, hidden, is_visible):
    """The catalogue judged through nbgrader: points from the gradebook, text, code and the failing part from outputs."""
    source = f"check.{visible}(standardize)\n{nbtools.HIDDEN_TESTS_MARK}\ncheck.{hidden}(standardize)"
    nb = nbtools.new_notebook([executed(shown, source, {"check": check, "standardize": standardize_dim1})])
    scores = nbtools.scores_from_autograded(nb, {TEST_ID: (0.0, 1.0)})
    _, _, text, code = scores[TEST_ID]
    assert code == "wrong_dim" and text.startswith("[incorrect] standardize — Seen:")
    assert (TEST_ID in scores.visible_failures) is is_visible
    passed = nbtools.scores_from_autograded(nbtools.new_notebook([nbtools.test(TEST_ID, source, points=1)]),
                                            {TEST_ID: (1.0, 1.0)})
    assert passed[TEST_ID] == (1.0, 1.0, "passed", "") and not passed.visible_failures


def test_outside_a_notebook_a_result_is_its_text(capsys):
    check.standardize_leaves_input(standardize_dim1)
    assert capsys.readouterr().out.startswith("[correct] standardize — ")


def test_read_cell_reads_the_result_that_failed_the_cell(shown):
    source = "check.standardize_leaves_input(standardize)\ncheck.standardize_values(standardize)"
    cell = executed(shown, source, {"check": check, "standardize": standardize_dim1})
    nb = nbtools.new_notebook([cell])
    nbformat.validate(nb)  # a vendor +json MIME type holds JSON data in a valid notebook
    cell = nbformat.reads(nbformat.writes(nb), as_version=4).cells[0]
    assert [o["data"][RESULT_MIME]["outcome"] for o in cell.outputs if "data" in o] == ["correct", "incorrect"]
    reading = outcomes.read_cell(cell)
    failed = cell.outputs[1]["data"][RESULT_MIME]
    assert reading.outcome == Outcome.INCORRECT and reading.code == "wrong_dim"
    assert (reading.seen, reading.owner, reading.do) == (failed["seen"], failed["owner"], failed["do"])
    assert reading.text == failed["message"] == cell.outputs[2]["evalue"]
    [found] = outcomes.read_notebook(nb, ["standardize"], {TEST_ID: (0.0, 1.0)})
    assert found.key == "wrong_dim" and found.as_dict()["seen"] == failed["seen"]


def test_read_cell_without_result_data():
    def cell(*outputs):
        return nbformat.v4.new_code_cell("x", outputs=list(outputs))

    name_error = new_output("error", ename="NameError", evalue="name 'f' is not defined", traceback=["test code"])
    reading = outcomes.read_cell(cell(name_error))
    assert reading == ("errored", "NameError: name 'f' is not defined", "", "", "", "", "NameError")
    assert outcomes.TestOutcome("t", "f", reading.outcome, reading.text, error=reading.error).key == "errored: NameError"
    timeout = new_output("error", ename="CellTimeoutError", evalue="", traceback=[])
    assert outcomes.read_cell(cell(timeout)).error == "CellTimeoutError"
    verdict = new_output("error", ename="CheckFailed", evalue="[incorrect] f — Seen: a. Owner: b. Do: c.", traceback=[])
    assert outcomes.read_cell(cell(verdict))[:3] == ("incorrect", "[incorrect] f — Seen: a. Owner: b. Do: c.", "")
    assert outcomes.read_cell(cell()).outcome == "correct"


def _record(students: dict) -> dict:
    return {"functions": ["standardize"], "students": {
        name: StudentEntry(status="graded", reason="", score=0.0, max_score=1.0, tests=outcomes.read_notebook(
            nbtools.new_notebook([cell]), ["standardize"], {TEST_ID: (0.0, 1.0)})) for name, cell in students.items()}}


def test_rewording_a_message_leaves_the_report_unchanged(shown, monkeypatch):
    namespace = {"check": check, "standardize": standardize_dim1}
    before = executed(shown, "check.standardize_values(standardize)", namespace)
    monkeypatch.setattr(check, "fail", lambda seen, owner, todo, *, code: core.fail(
        f"Reworded: {seen.upper()}", "someone else", "something else entirely.", code=code))
    after = executed(shown, "check.standardize_values(standardize)", namespace)
    texts = {outcomes.read_cell(c).text for c in (before, after)}
    assert len(texts) == 2, "the message was not reworded"

    def diagnoses(record):
        [stats] = report.outcomes_of(record["functions"], record["students"])
        return [(d.key, d.label, d.students) for d in stats.diagnoses]

    assert diagnoses(_record({"a": before})) == diagnoses(_record({"b": after})) == \
        [("wrong_dim", DIAGNOSES["wrong_dim"], 1)]
    assert diagnoses(_record({"a": before, "b": after})) == [("wrong_dim", DIAGNOSES["wrong_dim"], 2)]


def test_feedback_shows_the_parts_from_the_record(shown):
    cell = executed(shown, "check.standardize_values(standardize)", {"check": check, "standardize": standardize_dim1})
    entry = _record({"a": cell})["students"]["a"]
    page = feedback.render("a", "01-tensors", entry, {}, ["standardize"], {})
    seen = entry.tests[0].seen
    assert "<b>Seen:</b>" in page and "<b>Owner:</b>" in page and "<b>Do:</b>" in page
    assert seen and f"<b>Seen:</b> {html.escape(seen)}</div>" in page


@pytest.mark.slow
def test_a_kernel_keeps_the_result_data_in_the_notebook(tmp_path):
    """Through a real kernel: the display reaches the notebook as one output carrying the data."""
    import nbclient

    nb = nbtools.new_notebook([
        nbtools.code("from autograder.checks import m01_tensors as check"),
        nbtools.answer("standardize", "def standardize(x):\n    return (x - x.mean(dim=1, keepdim=True)) / "
                                      "x.std(dim=1, keepdim=True)"),
        nbtools.test(TEST_ID, "check.standardize_values(standardize)", points=1),
    ])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", kernel_manager_class=PromptKernelManager, allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.validate(nb)
    cell = nb.cells[-1]
    assert [o.output_type for o in cell.outputs] == ["display_data", "error"]
    assert set(cell.outputs[0].data) == {"text/html", "text/plain", RESULT_MIME}
    reading = outcomes.read_cell(cell)
    assert reading.outcome == "incorrect" and reading.code == "wrong_dim" and reading.seen


def test_every_outcome_has_one_colour_wherever_it_is_drawn():
    """A check's line, the feedback pages and the cohort report draw an outcome in the same colour."""
    from autograder import core
    from autograder.cohort.views import feedback, report
    from autograder.outcome import COLOURS, Outcome, css_rules

    assert set(COLOURS) == set(Outcome)
    for outcome, colour in COLOURS.items():
        assert f".{str(outcome).replace(' ', '-')}{{background:{colour}}}" in feedback._STYLE
    assert feedback._STYLE.endswith(css_rules())
    assert core.COLOURS is COLOURS and report.COLOURS is COLOURS
    for module in (core, feedback, report):
        assert not hasattr(module, "_COLOURS"), module.__name__


def test_a_note_of_several_lines_is_shown_to_the_instructor_in_one_line_and_never_to_the_student():
    from autograder.cohort.records import Note
    from autograder.cohort.views import report

    old = Note.read("kernel died\nTraceback (most recent call last):\n  boom")  # a record written before kinds
    assert report._note_line(old) == "kernel died (and 2 more lines in grading.json)"
    assert report._note_line(Note.read("one line only\n")) == "one line only"
    typed = Note("cell-error", "f raised ValueError: x", "Traceback ...\n  boom")
    assert Note.from_dict(typed.as_dict()) == typed and report._note_line(typed).startswith(typed.text)
    with pytest.raises(ValueError, match="one line"):
        Note("cell-error", "two\nlines")
    with pytest.raises(ValueError, match="unknown note kind"):
        Note("kernel log", "x")
