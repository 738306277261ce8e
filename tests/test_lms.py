"""Grades into the LMS: Canvas's and Moodle's import files from a gradebook and a roster made here.

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


CANVAS_ROSTER = (
    "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,01-tensors (1001),Current Score\n"
    "    Points Possible,,,,,10,(read only)\n"
    '"Example, Alice",11,S-11,alice,Lab A,,\n'
    '"Example, Bob",12,S-12,BOB,Lab A,,\n'
    '"Example, Carol",13,S-13,carol@uni.example,Lab B,,\n'
    '"Example, Dave",14,S-14,dave,Lab B,,\n'
    '"Example, Frank",15,S-15,frank,Lab B,,\n'
    '"Student, Test",99,,,Lab A,,\n')


def _rows(path):
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_canvas_file_has_canvas_columns_points_row_final_scores_and_lists_who_is_missing(gradebook, tmp_path):
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
    assert by_login["BOB"][5:] == ["6.5", ""]               # matched case-insensitively; no 02 submission: empty
    assert by_login["carol@uni.example"][5:] == ["6", "0"]  # late: 8 - 2 and 1 - 2 (never below zero)
    assert by_login["dave"][5:] == ["", ""] and by_login["frank"][5:] == ["", ""]
    assert len(rows) == 2 + 6, "every roster row, the test student included, and no other"
    assert result.not_in_roster == ["eve"] and "eve" in result.summary() and "NOT IN THE ROSTER" in result.summary()
    assert set(result.matched) == {"alice", "bob", "carol", "dave"}
    assert sorted(result.without_submission["02-autograd-ledger"]) == ["", "BOB", "dave", "frank"]

    zero = lms.write("canvas", lms.final_scores(url), roster, tmp_path / "zero.csv", missing="zero")
    assert {r[3]: r[5:] for r in _rows(tmp_path / "zero.csv")[2:]}["dave"] == ["0", "0"]
    assert zero.not_in_roster == ["eve"]


def test_moodle_file_keys_rows_by_the_mapped_identifier_and_one_column_per_assignment(gradebook, tmp_path):
    _, url = gradebook
    roster = tmp_path / "moodle.csv"
    roster.write_text("First name,Last name,ID number,Institution,Department,Email address\n"
                      "Alice,Example,1011,Uni,CS,alice@uni.example\n"
                      "Carol,Example,1013,Uni,CS,carol@uni.example\n"
                      "Eve,Example,1015,Uni,CS,eve@uni.example\n", encoding="utf-8")
    with pytest.raises(lms.RosterError, match="no column 'Username'.*Email address.*--match"):
        lms.write("moodle", lms.final_scores(url), roster, tmp_path / "out.csv")
    result = lms.write("moodle", lms.final_scores(url, ["01-tensors"]), roster, tmp_path / "out.csv",
                       column="Email address")
    assert _rows(tmp_path / "out.csv") == [["Email address", "01-tensors"], ["alice@uni.example", "9"],
                                           ["carol@uni.example", "6"], ["eve@uni.example", "7"]]
    assert result.not_in_roster == ["bob", "dave"]  # dave is in the gradebook without a submission: still listed


def test_bad_rosters_are_refused_with_what_to_do(gradebook, tmp_path):
    _, url = gradebook
    scores = lms.final_scores(url)
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(lms.RosterError, match="is empty"):
        lms.write("canvas", scores, empty, tmp_path / "x.csv")
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
    assert _rows(tmp_path / "grades-canvas.csv")[1][0] == "    Points Possible"
    proc = subprocess.run([sys.executable, "-m", "autograder", "export", "--course", str(tmp_path), "--format",
                           "moodle"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "needs --roster" in proc.stderr
