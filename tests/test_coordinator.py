"""The coordinator's judgement without kernels: made-up results, a writer that records or fails.

A fault of the grader (a result whose status is ``internal``, or a write that fails) is never a
grade: nothing is written for that student and they are listed as not graded.
"""

import os
import stat

import nbformat
import pytest

from autograder.cohort import privacy
from autograder.cohort.kernels import box as boxes
from autograder.cohort.records import GRADER, REFERENCE, STUDENT, Failure, Grade, SubmissionResult
from autograder.cohort.run.coordinator import Coordinator
from autograder.cohort.run.machine import _quota_v1, _quota_v2, cgroup_cpu_quota
from autograder.cohort.worker.failures import grader_error
from autograder.cohort.worker.submission import trim_outputs


class FakeWriter:
    def __init__(self, fail_for=()):
        self.written, self.fail_for = {}, set(fail_for)

    def write(self, result, entry):
        if result.student in self.fail_for:
            raise OSError(28, "No space left on device")
        self.written[result.student] = entry.score


def _result(student, score=2.0, status="graded", failure=None):
    outcome = SubmissionResult(student, reference=student == REFERENCE)
    outcome.grades = {"test_a": Grade(score, 2.0)}
    if failure is not None:
        outcome.fail(failure)
    return outcome


def test_students_wait_for_calibration_then_are_written():
    writer = FakeWriter()
    c = Coordinator(writer, 2.0)
    c.accept(_result("ada"))
    assert writer.written == {}  # held back until the solution has passed
    c.accept(_result(REFERENCE))
    assert writer.written == {"ada": 2.0} and not c.refused


def test_a_failed_calibration_refuses_and_writes_nothing():
    writer = FakeWriter()
    c = Coordinator(writer, 2.0, explain=lambda r: "Calibration failed: 1 of 2")
    c.accept(_result("ada"))
    c.accept(_result(REFERENCE, score=1.0))
    assert c.refused == "Calibration failed: 1 of 2" and writer.written == {}


def test_an_internal_failure_writes_nothing_even_when_forced():
    writer = FakeWriter()
    internal = Failure(GRADER, "grader-error", "internal grading error: PermissionError: denied", "make it writable")
    c = Coordinator(writer, 2.0, force=True, explain=lambda r: "Calibration could not run")
    c.accept(_result(REFERENCE, failure=internal))  # forced past an internal calibration failure
    c.accept(_result("ada", failure=internal))
    c.accept(_result("bob", failure=Failure(STUDENT, "wall-clock", "ran past its wall-clock limit")))
    assert writer.written == {"bob": 0.0}  # the student's own failure is a zero; the grader's is nothing
    assert c.not_graded["ada"].owner == GRADER and c.forced == "Calibration could not run"


def test_a_write_that_fails_is_the_graders_failure():
    writer = FakeWriter(fail_for={"ada"})
    c = Coordinator(writer, 2.0)
    c.accept(_result(REFERENCE))
    c.accept(_result("ada"))
    c.accept(_result("bob"))
    assert writer.written == {"bob": 2.0}
    assert c.not_graded["ada"].cause == "gradebook" and "No space left" in c.not_graded["ada"].reason


def test_a_write_refused_in_the_course_folders_names_the_folder_not_the_gradebook():
    from autograder.cohort.run.coordinator import write_failure

    failure = write_failure(PermissionError(13, "Permission denied", "/course/autograded/ada/01-tensors.incoming"))
    assert failure.cause == "course-folder" and "/course/autograded/ada" in failure.reason + failure.advice
    assert "gradebook" not in failure.reason


def test_failures_are_typed_and_checked():
    with pytest.raises(ValueError):
        Failure(STUDENT, "grader-error", "a grader's cause cannot be the student's")
    failure = grader_error(PermissionError(13, "Permission denied"), "/tmp/scratch")
    assert failure.internal and "cannot write or read" in failure.advice


def test_course_privacy(tmp_path):
    course = tmp_path / "course"
    (course / "solutions").mkdir(parents=True)
    (course / "solutions" / "a.ipynb").write_text("{}")
    os.chmod(tmp_path, 0o755)
    os.chmod(course, 0o755)
    os.chmod(course / "solutions", 0o755)
    os.chmod(course / "solutions" / "a.ipynb", 0o644)
    ancestors_open = all(os.stat(p).st_mode & stat.S_IXOTH for p in tmp_path.parents)
    found = privacy.exposed(course, [course / "solutions"])
    if ancestors_open:
        assert (course / "solutions" / "a.ipynb", "read") in found
        assert f"chmod 700 {course.resolve()}" in privacy.refusal(course, found)
    os.chmod(course, 0o700)
    assert privacy.exposed(course, [course / "solutions"]) == []


def test_cpu_quota_v2_and_v1(tmp_path):
    (tmp_path / "cpu.max").write_text("200000 100000\n")
    assert _quota_v2([tmp_path / "cpu.max"]) == 2.0
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert _quota_v2([tmp_path / "cpu.max"]) is None
    (tmp_path / "cpu.cfs_quota_us").write_text("150000\n")
    (tmp_path / "cpu.cfs_period_us").write_text("100000\n")
    assert _quota_v1([tmp_path]) == 1.5
    (tmp_path / "cpu.cfs_quota_us").write_text("-1\n")
    assert _quota_v1([tmp_path]) is None
    unified = tmp_path / "v2"
    (unified / "pod").mkdir(parents=True)
    (unified / "pod" / "cpu.max").write_text("300000 100000\n")
    (tmp_path / "self").write_text("0::/pod\n")
    assert cgroup_cpu_quota(unified, tmp_path / "self") == 3.0


def test_outputs_are_cut_to_their_head_and_results_kept():
    from autograder.outcome import RESULT_MIME

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('x' * 10**7)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 3_000_000),
                    nbformat.v4.new_output("display_data", data={"image/png": "A" * 3_000_000,
                                                                  RESULT_MIME: {"outcome": "correct"}})]
    nb.cells.append(cell)
    said = trim_outputs(nb, output_bytes=1000, notebook_bytes=5000)
    assert "cut from the graded notebook" in said
    assert cell.outputs[0]["text"].startswith("x" * 1000) and "cut by the grader" in cell.outputs[0]["text"]
    assert len(cell.outputs[0]["text"]) < 1200
    assert "image/png" not in cell.outputs[1]["data"] and cell.outputs[1]["data"][RESULT_MIME] == {"outcome": "correct"}
    assert trim_outputs(nb, output_bytes=10**6, notebook_bytes=10**7) == ""


def test_a_late_submissions_page_shows_the_penalty_and_the_final_score():
    from autograder.cohort.records import Late, StudentEntry
    from autograder.cohort.views.feedback import render

    entry = StudentEntry(status="graded", reason="", score=0.0, raw_score=9.0, max_score=12.0,
                         late=Late(7300, 9.0, "2026-12-01T17:00:00+00:00", ""))
    page = render("ada", "01-tensors", entry, {}, [], {"test_a": (9.0, 12.0)})
    assert "score <b>0 / 12</b>" in page
    assert "Submitted late: 2 h 1 min after the due date" in page and "the late penalty is 9" in page


def test_the_canary_verdict_learnt_from_calibration_zeroes_a_tampered_notebook():
    """The calibration run teaches what an honest kernel's canary shows; a student whose canary copies do not fail
    as the checks fail is written with 0 and flagged, an honest one keeps the score."""
    writer = FakeWriter()
    c = Coordinator(writer, 2.0)
    reference = _result(REFERENCE)
    reference.canary = {"setup": "ok", "test_a": "nonce", "test_b": "checkfailed", "test_c": "passed"}
    c.accept(reference)
    assert c.expected == {"test_a": "nonce", "test_b": "checkfailed"}  # a copy that passes for the solution is left out
    honest, tampered = _result("ada"), _result("eve")
    honest.canary = {"setup": "ok", "test_a": "nonce", "test_b": "nonce", "test_c": "passed"}
    tampered.canary = {"setup": "ok", "test_a": "passed", "test_b": "checkfailed"}
    c.accept(honest)
    c.accept(tampered)
    assert writer.written == {"ada": 2.0, "eve": 0.0}
    assert c.results["ada"].canary_verdict.status == "ok" and not c.results["ada"].flags
    eve = c.results["eve"]
    assert eve.compromised and eve.flags[0].kind == "compromised" and "test_a passed" in eve.flags[0].detail


def test_taking_the_socket_directory_back_never_shuts_the_kernel_out(tmp_path, monkeypatch):
    """lock_ipc gives the kernel's socket directory to root: at no step may the kernel's uid lose the right to
    look inside it (a kernel that stats its connection file then would fail to start, a grader's fault)."""
    box, uid = tmp_path, 61000
    (box / "ipc").mkdir()
    (box / "ipc" / "kernel.json").write_text("{}")
    state = {str(box / "ipc"): [uid, 0o700], str(box / "ipc" / "kernel.json"): [uid, 0o600]}
    shut_out = []

    def searchable() -> bool:
        owner, mode = state[str(box / "ipc")]
        return bool(mode & 0o100) if owner == uid else bool(mode & 0o001)

    def chown(path, user, group):
        state[str(path)][0] = user
        shut_out.append(not searchable())

    def chmod(path, mode):
        state[str(path)][1] = mode
        shut_out.append(not searchable())

    monkeypatch.setattr(boxes, "is_root", lambda: True)
    monkeypatch.setattr(boxes.os, "chown", chown)
    monkeypatch.setattr(boxes.os, "chmod", chmod)
    boxes.lock_ipc(box)
    assert state[str(box / "ipc")] == [0, 0o755] and shut_out and not any(shut_out), shut_out


def test_the_zero_rule_and_the_sums_of_points_live_in_score():
    """The coordinator's entry, the gradebook writer, the feedback page and the run's set-up take these from score.py."""
    from autograder.cohort import score

    assert score.earns_nothing("failed", False) and score.earns_nothing("internal", False)
    assert score.earns_nothing("graded", True) and not score.earns_nothing("graded", False)
    assert score.Score(3.0, 4.0, 1.0).final == 2.0 and score.Score(1.0, 4.0, 2.5).final == 0.0
    assert score.final_score(3.0, None) == 3.0
    assert score.cells_possible({"test_a": 2, "test_b": 1.5}) == 3.5
