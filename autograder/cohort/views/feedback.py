"""``feedback``: one HTML page per student, built from the autograded notebook and the gradebook.

Each graded function shows the student's own answer code, then each of its checks with
the points and the diagnosis the check reported (its Seen, Owner and Do parts).  The page
is written from our records and the answer cells only: test-cell source, hidden tests
and raw cell outputs (which a compromised kernel controls) never reach it.

Pages go where nbgrader's ``generate_feedback`` puts them,
``feedback/STUDENT/ASSIGNMENT/ASSIGNMENT.html``, next to a copy of the submission's
``timestamp.txt`` (and ``submission_secret.txt``), so ``nbgrader release_feedback`` can
hand them out through the exchange.  A page is readable by all (0644; everything else the cohort commands
write is the owner's alone): ``release_feedback`` copies it into the exchange with its mode, where the
student fetches it by a name only their submission's secret gives, as nbgrader's own pages are.  In the
course directory, its mode 700 keeps it private.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import nbformat

from ...cells import answer_sources
from ...outcome import css_class, css_rules
from ..course import Course
from ..records import RECORD, StudentEntry, TestOutcome, load
from ..run.summary import late_duration
from ..score import Score, student_score

#: A feedback page's mode: the student reads the copy that ``nbgrader release_feedback`` puts in the exchange.
PAGE_MODE = 0o644

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem} h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
pre{background:#f6f8fa;padding:.75rem;overflow-x:auto;border-radius:6px;font-size:.85rem}
table{border-collapse:collapse;width:100%} td,th{padding:.35rem .5rem;border-bottom:1px solid #eaeef2;
vertical-align:top;text-align:left} .badge{color:#fff;border-radius:3px;padding:1px 6px;font-weight:600;
white-space:nowrap}
table{table-layout:fixed} td:nth-child(1),th:nth-child(1){width:9rem} td:nth-child(2),th:nth-child(2){width:5rem}
td:nth-child(3),th:nth-child(3){width:7.5rem} .notice{padding:.75rem;border-radius:6px;
background:#fff8c5;border:1px solid #d4a72c} .score{font-size:1.1rem} .msg div{margin:.1rem 0}
""" + css_rules()


def _badge(outcome: str) -> str:
    return f'<span class="badge {css_class(outcome)}">{html.escape(outcome)}</span>'


def _message(test: TestOutcome) -> str:
    """A check's diagnosis as Seen / Owner / Do lines, from the record's fields (escaped)."""
    if test.owner or test.do:
        return "".join(f"<div><b>{label}</b> {html.escape(part)}</div>"
                       for label, part in (("Seen:", test.seen), ("Owner:", test.owner), ("Do:", test.do)))
    return f"<div>{html.escape(test.seen or test.text)}</div>"


def _answers(path: Path) -> dict[str, str]:
    """The student's answer cells (grade id -> source) from the autograded notebook."""
    if not path.exists():
        return {}
    nb = nbformat.read(str(path), as_version=4)
    return answer_sources(nb)


def _gradebook_scores(course: Course, assignment: str, notebook: str, student: str) -> tuple[dict, Score | None]:
    """Each test cell's points in the gradebook and the student's :class:`~autograder.cohort.score.Score`, the one
    the report and the LMS export read (``{}, None`` where the gradebook has no submission)."""
    from nbgrader.api import MissingEntry

    try:
        with course.gradebook() as gb:
            sub = gb.find_submission_notebook(notebook, assignment, student)
            return ({g.name: (float(g.score), float(g.max_score)) for g in sub.grades},
                    student_score(gb, assignment, student))
    except MissingEntry:
        return {}, None


def render(student: str, assignment: str, entry: StudentEntry, answers: dict[str, str], functions: list[str],
           scores: dict[str, tuple], marks: Score | None = None) -> str:
    """The feedback page of one student.  ``scores``: each test's points in the gradebook, where an instructor's
    manual grade may have changed them; ``marks``: the student's score there (without it, the run record's)."""
    late = entry.late
    marks = marks or entry.marks
    raw, maximum, penalty, total = marks.points, marks.possible, marks.penalty, marks.final
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(assignment)} — "
           f"{html.escape(student)}</title><style>{_STYLE}</style></head><body>",
           f"<h1>Feedback: {html.escape(assignment)}</h1>",
           f"<p class='score'>Student <b>{html.escape(student)}</b> — score <b>{total:g} / {maximum:g}</b></p>"]
    if late:
        out.append(f"<p class='notice'>Submitted late: {late_duration(late.seconds_late)} after the due date"
                   f"{' (' + html.escape(late.due) + ')' if late.due else ''}. The checks gave "
                   f"{raw:g} points; the late penalty is {penalty:g}, so the score is {total:g}.</p>")
    if entry.status != "graded":
        out.append(f"<p class='notice'>Your notebook could not be graded, so it scored 0: "
                   f"{html.escape(entry.reason)}. Fix this and submit again, or ask your instructor.</p>")
    elif entry.compromised:
        out.append("<p class='notice'>Your notebook has been set aside for review by your instructor: while it "
                   "was graded, its code changed how the checks ran. It scores 0 until the review.</p>")
    # A note's detail (a log excerpt) is for the instructor (the report), never the student's page.
    if entry.notes:
        out.append("<h2>Grading notes</h2><ul>" + "".join(f"<li>{html.escape(n.text)}</li>" for n in entry.notes)
                   + "</ul>")
    by_function: dict[str, list[TestOutcome]] = {}
    for t in entry.tests:
        by_function.setdefault(t.function, []).append(t)
    for fn in functions or list(by_function):
        out.append(f"<h2><code>{html.escape(fn)}</code></h2>")
        if fn in answers:
            out.append(f"<pre>{html.escape(answers[fn])}</pre>")
        rows = []
        for t in by_function.get(fn, []):
            score, max_score = scores.get(t.test, (t.score, t.max_score))
            part = t.test.removeprefix(f"test_{fn}").strip("_") or t.test
            message = _message(t) if t.text else "<div>passed</div>"
            rows.append(f"<tr><td>{html.escape(part)}</td><td>{score:g} / {max_score:g}</td>"
                        f"<td>{_badge(t.outcome)}</td><td class='msg'>{message}</td></tr>")
        if rows:
            out.append("<table><tr><th>check</th><th>points</th><th>outcome</th><th>what the check saw</th></tr>"
                       + "".join(rows) + "</table>")
    out.append("</body></html>")
    return "\n".join(out)


def generate(course: Course, assignment: str, students: list[str] | None = None) -> list[Path]:
    """Write the feedback pages of the graded students (all of them by default)."""
    record_path = course.reports(assignment) / RECORD
    record = load(record_path)
    notebook = record.notebook
    written = []
    for student, entry in record.students.items():
        if students and student not in students:
            continue
        page = render(student, assignment, entry,
                      _answers(course.autograded(student, assignment) / f"{notebook}.ipynb"),
                      record.functions, *_gradebook_scores(course, assignment, notebook, student))
        dest = course.feedback(student, assignment)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / f"{notebook}.html").write_text(page)
        (dest / f"{notebook}.html").chmod(PAGE_MODE)
        for name in ("timestamp.txt", "submission_secret.txt"):
            src = course.submitted(student, assignment) / name
            if src.is_file():
                shutil.copy(src, dest / name)
        written.append(dest / f"{notebook}.html")
    return written
