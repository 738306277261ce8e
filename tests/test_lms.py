"""Grades into the LMS: Canvas's and Moodle's import files from a gradebook and rosters shaped as each LMS exports.

The gradebook is a real nbgrader gradebook (SQLite) filled through nbgrader's API: alice and bob submitted
on time, carol late (a penalty of 2 points), dave never submitted, eve is graded but not in the LMS's roster,
and frank is in the roster with no gradebook entry at all.
"""

import csv
import io
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from autograder.cohort.course import ensure_tools_on_path
from autograder.cohort.views import lms

ASSIGNMENTS = {"01-tensors": {"alice": 9.0, "bob": 6.5, "carol": 8.0, "eve": 7.0},
               "02-autograd-ledger": {"alice": 4.0, "carol": 1.0}}
POINTS = {"01-tensors": 10.0, "02-autograd-ledger": 5.0}


@pytest.fixture(scope="module")
def gradebook(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lms")
    url = f"sqlite:///{folder / 'gradebook.db'}"
    ensure_tools_on_path()
    with Gradebook(url) as gb:
        for student in ("alice", "bob", "carol", "dave", "eve"):
            gb.add_student(student, first_name=student.title(), last_name="Example")
        for name, scores in ASSIGNMENTS.items():
            gb.add_assignment(name)
            gb.add_notebook(name, name)
            gb.add_grade_cell("test_cell", name, name, max_score=POINTS[name], cell_type="code")
            for student, score in scores.items():
                gb.add_submission(name, student)
                grade = gb.find_grade("test_cell", name, name, student)
                grade.auto_score = score
                if student == "carol":
                    gb.find_submission_notebook(name, name, student).late_submission_penalty = 2.0
            gb.db.commit()
    return folder, url


# Shaped as Canvas's "Export Entire Gradebook" writes it: the Manual Posting row (an assignment whose grades are
# posted by hand) and the Points Possible row under the header, the totals columns, grades as "7.00", and the
# Test Student last. dave already holds 7.00 in Canvas and has no submission here; bob's 5.00 is regraded; the
# line with blank leading cells is nobody's.
CANVAS_ROSTER = (
    "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,01-tensors (1001),Current Score,Final Score\n"
    ",,,,,Manual Posting,,\n"
    "    Points Possible,,,,,10.00,(read only),(read only)\n"
    '"Example, Alice",11,S-11,alice,Lab A,,0.00,0.00\n'
    '"Example, Bob",12,S-12,BOB,Lab A,5.00,50.00,50.00\n'
    '"Example, Carol",13,S-13,carol@uni.example,Lab B,,0.00,0.00\n'
    '"Example, Dave",14,S-14,dave,Lab B,7.00,70.00,70.00\n'
    '"Example, Frank",15,S-15,frank,Lab B,,0.00,0.00\n'
    ",,,,Lab B,3.00,30.00,30.00\n"
    '"Student, Test",99,,9f86d081884c7d659a2feaa0c55ad015a3bf4f1b,Lab A,4.00,40.00,40.00\n')

# Shaped as Moodle's grade export ("Plain text file") writes it with its default user fields: no Username, grade
# items as "Module: name (Real)", "-" for no grade, and the download time last. dave already holds 7.00; frank
# has no e-mail address (Moodle would give his grades to the row above); gina is in Moodle and not graded here.
MOODLE_ROSTER = (
    "First name,Last name,ID number,Institution,Department,Email address,Assignment: 01-tensors (Real),"
    "Last downloaded from this course\n"
    "Alice,Example,1011,Uni,CS,alice@uni.example,-,1767225600\n"
    "Carol,Example,1013,Uni,CS,carol@uni.example,-,1767225600\n"
    "Dave,Example,1014,Uni,CS,dave@uni.example,7.00,1767225600\n"
    "Eve,Example,1015,Uni,CS,eve@uni.example,-,1767225600\n"
    "Frank,Example,1016,Uni,CS,,-,1767225600\n"
    "Gina,Example,1017,Uni,CS,gina@uni.example,-,1767225600\n")


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _rows(path):
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_canvas_file_keeps_grades_canvas_holds_and_leaves_out_rows_that_are_not_students(gradebook, tmp_path):
    folder, url = gradebook
    roster = tmp_path / "canvas-roster.csv"
    roster.write_text(CANVAS_ROSTER, encoding="utf-8")
    result = lms.write("canvas", lms.final_scores(url), roster, tmp_path / "canvas.csv")
    rows = _rows(tmp_path / "canvas.csv")
    # the assignment Canvas already has keeps its exported title (Canvas updates it); a new one is created
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01-tensors (1001)",
                       "02-autograd-ledger"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "10", "5"]
    by_login = {r[3]: r for r in rows[2:]}
    assert by_login["alice"] == ["Example, Alice", "11", "S-11", "alice", "Lab A", "9", "4"]
    assert by_login["BOB"][5:] == ["6.5", ""]               # matched case-insensitively; regraded; no 02: empty
    assert by_login["carol@uni.example"][5:] == ["6", "0"]  # late: 8 - 2 and 1 - 2 (never below zero)
    assert by_login["dave"][5:] == ["7.00", ""], "no submission: the grade Canvas holds goes back unchanged"
    assert by_login["frank"][5:] == ["", ""]
    assert list(by_login) == ["alice", "BOB", "carol@uni.example", "dave", "frank"], "the students, no other row"
    assert result.skipped == ["line 2 (Canvas's posting-policy row: Manual Posting)",
                              "line 3 (Canvas's Points Possible row)", "line 9 (no Student or ID)",
                              "line 10 (Canvas's Test Student, 'Student, Test')"]
    summary = result.summary()
    assert "left out 4 roster rows that are not students" in summary and "Test Student" in summary
    assert "01-tensors: 2 roster students have no submission (1 keep what the LMS holds)" in summary
    assert result.not_in_roster == ["eve"] and "NOT IN THE ROSTER (1)" in summary and "eve" in summary
    assert set(result.matched) == {"alice", "bob", "carol", "dave"}
    assert sorted(result.without_submission["02-autograd-ledger"]) == ["BOB", "dave", "frank"]

    lms.write("canvas", lms.final_scores(url), roster, tmp_path / "zero.csv", missing="zero")
    zero = {r[3]: r[5:] for r in _rows(tmp_path / "zero.csv")[2:]}
    assert zero["dave"] == ["7.00", "0"] and zero["frank"] == ["0", "0"], "0 only where Canvas holds no grade"


def test_moodle_file_matches_its_default_export_by_email_and_keeps_grades_and_download_time(gradebook, tmp_path):
    _, url = gradebook
    roster = tmp_path / "moodle.csv"
    roster.write_text(MOODLE_ROSTER, encoding="utf-8")
    result = lms.write("moodle", lms.final_scores(url), roster, tmp_path / "out.csv")
    assert _rows(tmp_path / "out.csv") == [
        ["Email address", "Assignment: 01-tensors (Real)", "02-autograd-ledger", "Last downloaded from this course"],
        ["alice@uni.example", "9", "4", "1767225600"],
        ["carol@uni.example", "6", "0", "1767225600"],
        ["dave@uni.example", "7.00", "-", "1767225600"],  # no submission: Moodle's own 7.00 goes back
        ["eve@uni.example", "7", "-", "1767225600"],
        ["gina@uni.example", "-", "-", "1767225600"]]
    assert result.skipped == ["line 6 (no Email address)"]
    assert result.not_in_roster == ["bob"]
    assert result.notes == ["the roster has no grades for 02-autograd-ledger: if Moodle holds some, a student "
                            "without a submission here loses it on import. Export those grade items with the roster"]

    participants = tmp_path / "participants.csv"  # a roster with neither grades nor the download time
    participants.write_text("First name,Last name,Email address\nAlice,Example,alice@uni.example\n", encoding="utf-8")
    notes = lms.write("moodle", lms.final_scores(url, ["01-tensors"]), participants, tmp_path / "p.csv").notes
    assert "no 'Last downloaded from this course' column" in notes[0] and "no grades for 01-tensors" in notes[1]
    assert _rows(tmp_path / "p.csv") == [["Email address", "01-tensors"], ["alice@uni.example", "9"]]


def test_two_addresses_with_one_local_part_match_nobody_and_are_named(gradebook, tmp_path):
    """alice@uni.example and alice@other.example both have "alice" before the @: neither row gets alice's grade,
    and alice is named; carol's full address matches although another row shares her local part elsewhere."""
    _, url = gradebook
    roster = tmp_path / "moodle.csv"
    roster.write_text("Email address,Last downloaded from this course\nalice@uni.example,1767225600\n"
                      "alice@other.example,1767225600\ncarol,1767225600\ncarol@uni.example,1767225600\n",
                      encoding="utf-8")
    result = lms.write("moodle", lms.final_scores(url, ["01-tensors"]), roster, tmp_path / "out.csv")
    assert result.ambiguous == {"alice": ["alice@uni.example", "alice@other.example"]}
    assert result.matched["carol"] == "carol"  # the whole value first
    rows = _rows(tmp_path / "out.csv")
    assert [r[1] for r in rows[1:3]] == ["-", "-"], rows  # neither alice row gets her grade
    assert "AMBIGUOUS: alice matches 2 roster rows (alice@uni.example, alice@other.example)" in result.summary()


def test_bad_rosters_are_refused_with_what_to_do(gradebook, tmp_path):
    _, url = gradebook
    scores = lms.final_scores(url)
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(lms.RosterError, match="is empty"):
        lms.write("canvas", scores, empty, tmp_path / "x.csv")
    with pytest.raises(lms.RosterError, match="no column 'Email address'.*Username.*--match"):
        lms.write("moodle", scores, _write(tmp_path / "u.csv", "Username\nalice\n"), tmp_path / "x.csv")
    moodle_like = tmp_path / "moodle-like.csv"
    moodle_like.write_text("Username,Email address\nalice,alice@uni.example\n", encoding="utf-8")
    with pytest.raises(lms.RosterError, match="not a Canvas gradebook export.*Student"):
        lms.write("canvas", scores, moodle_like, tmp_path / "x.csv", column="Username")
    with pytest.raises(lms.RosterError, match="no assignment 09-nope"):
        lms.final_scores(url, ["09-nope"])


def test_export_command_writes_the_canvas_file_and_prints_who_is_not_in_the_roster(gradebook, tmp_path):
    folder, url = gradebook
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.db_url = {url!r}\n")
    roster = tmp_path / "roster.csv"
    roster.write_text(CANVAS_ROSTER, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "autograder", "export", "--course", str(tmp_path), "--format",
                           "canvas", "--roster", str(roster)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "4 students matched" in proc.stdout and "NOT IN THE ROSTER (1)" in proc.stdout and "eve" in proc.stdout
    assert "line 2 (Canvas's posting-policy row: Manual Posting)" in proc.stdout, proc.stdout
    assert _rows(tmp_path / "grades-canvas.csv")[1][0] == "    Points Possible"
    proc = subprocess.run([sys.executable, "-m", "autograder", "export", "--course", str(tmp_path), "--format",
                           "moodle"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "needs --roster" in proc.stderr


def test_after_a_manual_grade_the_report_the_feedback_and_the_lms_export_show_one_score(tmp_path):
    """The run record keeps what the run gave; an instructor then changes a grade by hand in nbgrader's gradebook.
    The report, the feedback page and the LMS export all read the student's score through score.gradebook_scores
    (manual grades counted, the late penalty taken), so they show one score, and the report names the change."""
    from autograder.cohort import records
    from autograder.cohort.course import Course
    from autograder.cohort.views import feedback, report
    from autograder.dev import fixture_courses

    name = "01-tensors"
    course = Course.open(fixture_courses.make_course(tmp_path / "course", []))
    with course.gradebook() as gb:
        gb.add_assignment(name)
        gb.add_notebook(name, name)
        for cell in ("test_a", "test_b"):
            gb.add_grade_cell(cell, name, name, max_score=5.0, cell_type="code")
        for student, (a, b, penalty) in {"ada": (5.0, 2.0, 0.0), "bob": (5.0, 3.0, 2.0), "cy": (0.0, 0.0, 0.0)}.items():
            gb.add_student(student)
            gb.add_submission(name, student)
            gb.find_grade("test_a", name, name, student).auto_score = a
            gb.find_grade("test_b", name, name, student).auto_score = b
            gb.find_submission_notebook(name, name, student).late_submission_penalty = penalty or None
        gb.db.commit()

    def entry(raw, late=None):
        return records.StudentEntry(status="graded", reason="", score=0.0, raw_score=raw, max_score=10.0, late=late)

    students = {"ada": entry(7.0), "bob": entry(8.0, records.Late(60.0, 2.0)), "cy": entry(0.0),
                "dee": entry(4.0)}  # dee: in the record, not in the gradebook (a run before it was reset)
    record = records.RunRecord(assignment=name, notebook=name, graded_at="now", seconds=1.0, workers=1,
                               sandbox=records.Sandbox(), limits=records.RunLimits(), gradebook=course.db_url,
                               functions=[], tests=[], calibration=None, forced=records.Forced(), package=None,
                               kernel_cpu_seconds=0.0, students=students)
    record.save(course.reports(name) / records.RECORD)
    with course.gradebook() as gb:  # the instructor's manual grade: ada's test_b 2 -> 4.5
        gb.find_grade("test_b", name, name, "ada").manual_score = 4.5
        gb.db.commit()

    exported = lms.final_scores(course.db_url, [name]).by_student
    shown = report.current_scores(course, records.load(course.reports(name) / records.RECORD))
    assert {s: v[name] for s, v in exported.items()} == {"ada": 9.5, "bob": 6.0, "cy": 0.0}
    assert {s: v.final for s, v in shown.items()} == {"ada": 9.5, "bob": 6.0, "cy": 0.0, "dee": 4.0}
    assert records.load(course.reports(name) / records.RECORD).students["ada"].score == 7.0  # the run's, kept
    page = report._html(record, [], [], shown)
    assert "ada: 7 → 9.5 / 10" in page and "bob:" not in page.split("Scores changed")[1].split("</p>")[0]
    cells, marks = feedback._gradebook_scores(course, name, name, "ada")
    assert marks == shown["ada"] and cells["test_b"] == (4.5, 5.0)
    assert "score <b>9.5 / 10</b>" in feedback.render("ada", name, students["ada"], {}, [], cells, marks)
    _, bobs = feedback._gradebook_scores(course, name, name, "bob")
    assert "score <b>6 / 10</b>" in feedback.render("bob", name, students["bob"], {}, [], {}, bobs)
    assert feedback._gradebook_scores(course, name, name, "dee") == ({}, None)
