"""``report``: what the cohort got right and wrong, per graded function.

From the run record written by ``grade``: for each graded function, the share of
students whose checks were all correct, who got something incorrect, who had not
attempted it, and whose notebook errored (a test cell raised something other than a
check's verdict, the notebook could not be graded, or the canary caught it); the most
frequent diagnoses (the failure modes the checks name, by diagnosis code, labelled with
its meaning from :mod:`autograder.diagnoses`); the flags for review; and the sandbox mode.  Writes ``reports/ASSIGNMENT/report.html`` with PNG plots next to it.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path

from ...diagnoses import meaning
from ...outcome import COLOURS, Outcome
from ..course import Course
from ..records import RECORD, Note, RunRecord, StudentEntry, TestOutcome, load
from ..score import Score, gradebook_scores
from ..worker.check_results import OUTCOMES


@dataclass
class Diagnosis:
    key: str  # the diagnosis code (see TestOutcome.key)
    function: str
    students: int
    example: str  # one learner message with this diagnosis
    tests: set[str] = field(default_factory=set)

    @property
    def label(self) -> str:
        """What the diagnosis means, from the registry of diagnosis codes."""
        return meaning(self.key)


@dataclass
class FunctionStats:
    function: str
    counts: Counter
    diagnoses: list[Diagnosis]

    def share(self, outcome: str) -> float:
        total = sum(self.counts.values())
        return self.counts[outcome] / total if total else 0.0


def function_outcome(tests: list[TestOutcome]) -> str:
    """One student's outcome on one function, from its checks."""
    outcomes = {t.outcome for t in tests}
    for outcome in (Outcome.ERRORED, Outcome.NOT_ATTEMPTED, Outcome.INCORRECT):
        if outcome in outcomes:
            return outcome
    return Outcome.CORRECT if tests else Outcome.ERRORED


def analyse(record: RunRecord) -> list[FunctionStats]:
    """Per-function outcome counts and the most frequent diagnoses."""
    return outcomes_of(record.functions, record.students)


def outcomes_of(functions: list[str], students: dict[str, StudentEntry]) -> list[FunctionStats]:
    """Per-function outcome counts and the most frequent diagnoses of ``students``' entries."""
    stats = []
    for fn in functions:
        counts: Counter = Counter({o: 0 for o in OUTCOMES})
        keyed: dict[str, Diagnosis] = {}
        for entry in students.values():
            if entry.status != "graded" or entry.compromised:
                counts[Outcome.ERRORED] += 1
                continue
            tests = [t for t in entry.tests if t.function == fn]
            counts[function_outcome(tests)] += 1
            seen_here = set()
            for t in tests:
                if t.outcome != Outcome.INCORRECT or t.key in seen_here:
                    continue
                seen_here.add(t.key)
                d = keyed.setdefault(t.key, Diagnosis(t.key, fn, 0, t.text))
                d.students += 1
                d.tests.add(t.test)
        diagnoses = sorted(keyed.values(), key=lambda d: (-d.students, d.key))
        stats.append(FunctionStats(fn, counts, diagnoses))
    return stats


def _plot_outcomes(stats: list[FunctionStats], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 0.6 * len(stats) + 1.5))
    names = [s.function for s in stats][::-1]
    left = [0.0] * len(stats)
    for outcome in OUTCOMES:
        shares = [s.share(outcome) for s in stats][::-1]
        ax.barh(names, shares, left=left, color=COLOURS[outcome], label=outcome)
        left = [a + b for a, b in zip(left, shares)]
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of students")
    ax.legend(ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_diagnoses(stats: list[FunctionStats], path: Path, top: int = 4) -> bool:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [(f"{s.function}: {_short(d.key, 60)}", d.students) for s in stats for d in s.diagnoses[:top]]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.2))
    ax.barh([r[0] for r in rows][::-1], [r[1] for r in rows][::-1], color=COLOURS[Outcome.INCORRECT])
    ax.set_xlabel("students")
    ax.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def current_scores(course: Course, record: RunRecord) -> dict[str, Score]:
    """Each student's score now: the gradebook's (an instructor's manual grades counted), read as the LMS export
    reads it (:func:`~autograder.cohort.score.gradebook_scores`); the run's for a student the gradebook has no
    submission of."""
    with course.gradebook() as gb:
        held = gradebook_scores(gb, record.assignment)
    return {s: held.get(s, e.marks) for s, e in sorted(record.students.items())}


def _plot_scores(scores: dict[str, Score], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    top = max((s.possible for s in scores.values()), default=1) or 1
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.hist([s.final for s in scores.values()], bins=min(20, int(top) + 1), range=(0, top), color="#0969da")
    ax.set_xlabel("score")
    ax.set_ylabel("students")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _note_line(note: Note) -> str:
    """A note as one line: its text, and where its detail (a log excerpt) is when it has one."""
    lines = len(note.detail.strip().splitlines())
    return note.text if not lines else f"{note.text} (and {lines} more lines in grading.json)"


_STYLE = ("body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
          "table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{padding:.3rem .6rem;border-bottom:1px solid "
          "#ddd;text-align:left;vertical-align:top}.warn{background:#ffebe9;border:2px solid #cf222e;padding:1rem;"
          "font-weight:600}.num{text-align:right}img{max-width:100%}")


def _html(record: RunRecord, stats: list[FunctionStats], plots: list[str],
          scores: dict[str, Score] | None = None) -> str:
    e = html.escape
    students = record.students
    scores = scores if scores is not None else {s: v.marks for s, v in students.items()}
    out = ["<!doctype html><html><head><meta charset='utf-8'>",
           f"<title>Cohort report — {e(record.assignment)}</title><style>", _STYLE, "</style></head><body>",
           f"<h1>Cohort report — {e(record.assignment)}</h1>",
           *_warnings(record), *_changed(record, scores), _overview(record),
           *_outcomes(stats, plots), *_diagnoses(stats), *_flagged(students), *_notes(students),
           "</body></html>"]
    return "\n".join(out)


def _warnings(record: RunRecord) -> list[str]:
    """What must be read before any grade: late work, internal errors, no sandbox, a forced run or calibration."""
    e, students, out = html.escape, record.students, []
    late = {k: v.late for k, v in students.items() if v.late}
    if late:
        out.append(f"<p>Late submissions: <b>{len(late)}</b> (" + ", ".join(
            f"{e(k)}: penalty {v.penalty:g}" for k, v in sorted(late.items())) + ")</p>")
    if record.not_graded:
        out.append("<p class='warn'>NOT GRADED, INTERNAL ERROR: " + "; ".join(
            f"{e(k)}: {e(f.reason)}" for k, f in sorted(record.not_graded.items()))
                   + ". Nothing was written for them; their previous grades stand.</p>")
    if record.sandbox.mode != "bwrap":
        out.append(f"<p class='warn'>Graded WITHOUT the sandbox: {e(record.sandbox.warning)}</p>")
    forced = record.forced
    if forced.forced:
        out.append(f"<p class='warn'>FORCED RUN (--force): graded although calibration failed. "
                   f"{e(forced.reason)}</p>")
    forced_students = sorted(k for k, v in students.items() if v.forced)
    if forced_students and not forced.forced:
        out.append(f"<p class='warn'>{len(forced_students)} student(s) were last graded by a forced run "
                   f"(--force, calibration failed): {e(', '.join(forced_students))}.</p>")
    cal = record.calibration
    if cal and not cal.full_marks and not forced.forced:
        out.append("<p class='warn'>The assignment's own solution did not score full marks under this grading "
                   f"set-up ({e(cal.reason or 'see grading.json')}): check the limits before trusting grades.</p>")
    return out


def _changed(record: RunRecord, scores: dict[str, Score]) -> list[str]:
    """The students whose score in the gradebook is no longer the one this run gave (a manual grade, say)."""
    changed = {s: (e.marks, scores[s]) for s, e in sorted(record.students.items())
               if s in scores and scores[s].final != e.marks.final}
    if not changed:
        return []
    return ["<p>Scores changed in the gradebook since this run (a manual grade; the plot, the feedback pages and "
            "the LMS export show the gradebook's): " + "; ".join(
                f"{html.escape(s)}: {run.final:g} → {now.final:g} / {now.possible:g}"
                for s, (run, now) in changed.items()) + "</p>"]


def _overview(record: RunRecord) -> str:
    e, students = html.escape, record.students
    graded = sum(1 for s in students.values() if s.status == "graded" and not s.compromised)
    failed = sum(1 for v in students.values() if v.status != "graded")
    flagged = sum(1 for v in students.values() if v.flags)
    return (f"<p>{len(students)} submissions, {graded} graded, {failed} not gradable, {flagged} flagged "
            f"for review. Graded {e(record.graded_at)} with {record.workers} workers in {record.seconds} s; "
            f"sandbox: {e(record.sandbox.mode)}; limits: "
            + ", ".join(f"{e(f.name)}={getattr(record.limits, f.name)}" for f in fields(record.limits)) + ".</p>")


def _outcomes(stats: list[FunctionStats], plots: list[str]) -> list[str]:
    e = html.escape
    out = ["<h2>Outcomes per graded function</h2><table><tr><th>function</th>"
           + "".join(f"<th>{o}</th>" for o in OUTCOMES) + "</tr>"]
    for s in stats:
        out.append(f"<tr><td><code>{e(s.function)}</code></td>"
                   + "".join(f"<td class='num'>{s.share(o):.0%} ({s.counts[o]})</td>" for o in OUTCOMES) + "</tr>")
    out.append("</table>")
    return out + [f"<p><img src='{e(name)}' alt='{e(name)}'></p>" for name in plots]


def _diagnoses(stats: list[FunctionStats]) -> list[str]:
    e, out = html.escape, ["<h2>Most frequent diagnoses</h2>"]
    for s in stats:
        if not s.diagnoses:
            continue
        out.append(f"<h3><code>{e(s.function)}</code></h3><table><tr><th>students</th><th>diagnosis</th>"
                   "<th>checks</th><th>what a student saw</th></tr>")
        for d in s.diagnoses[:8]:
            out.append(f"<tr><td class='num'>{d.students}</td><td>{e(d.label)}<br><code>{e(_short(d.key, 90))}</code>"
                       f"</td><td>{e(', '.join(sorted(d.tests)))}</td><td>{e(d.example)}</td></tr>")
        out.append("</table>")
    return out


def _flagged(students: dict[str, StudentEntry]) -> list[str]:
    e = html.escape
    flagged = {k: v for k, v in students.items() if v.flags}
    if not flagged:
        return ["<h2>Flagged for review</h2>", "<p>None.</p>"]
    out = ["<h2>Flagged for review</h2>", "<table><tr><th>student</th><th>flag</th><th>detail</th></tr>"]
    for student, entry in flagged.items():
        for f in entry.flags:
            out.append(f"<tr><td>{e(student)}</td><td>{e(f.kind)}</td><td>{e(f.detail)}</td></tr>")
        for finding in entry.findings[:6]:
            out.append(f"<tr><td></td><td>scan: {e(finding.rule)}</td><td>{e(finding.cell)}, line "
                       f"{finding.line}: <code>{e(finding.text)}</code></td></tr>")
    return out + ["</table>"]


def _notes(students: dict[str, StudentEntry]) -> list[str]:
    notes = [(s, n) for s, v in students.items() for n in v.notes]
    if not notes:
        return []
    return ["<h2>Grading notes</h2><table><tr><th>student</th><th>note</th></tr>",
            *(f"<tr><td>{html.escape(s)}</td><td>{html.escape(_note_line(n))}</td></tr>" for s, n in notes),
            "</table>"]


def write(course: Course, assignment: str) -> Path:
    """Write ``reports/ASSIGNMENT/report.html`` and its plots; returns the page's path."""
    folder = course.reports(assignment)
    record_path = folder / RECORD
    record = load(record_path)
    stats = analyse(record)
    scores = current_scores(course, record)
    plots = ["outcomes.png", "scores.png"]
    _plot_outcomes(stats, folder / "outcomes.png")
    _plot_scores(scores, folder / "scores.png")
    if _plot_diagnoses(stats, folder / "diagnoses.png"):
        plots.insert(1, "diagnoses.png")
    page = folder / "report.html"
    page.write_text(_html(record, stats, plots, scores))
    return page


def summary(course: Course, assignment: str) -> str:
    """A few lines for the terminal."""
    record = load(course.reports(assignment) / RECORD)
    lines = []
    if record.sandbox.mode != "bwrap":
        lines.append("WARNING: graded without the sandbox: " + record.sandbox.warning)
    for s in analyse(record):
        shares = ", ".join(f"{o} {s.share(o):.0%}" for o in OUTCOMES)
        top = f"; most frequent: {_short(s.diagnoses[0].key, 70)} ({s.diagnoses[0].students})" if s.diagnoses else ""
        lines.append(f"{s.function}: {shares}{top}")
    flagged = sum(1 for v in record.students.values() if v.flags)
    lines.append(f"{flagged} submissions flagged for review")
    return "\n".join(lines)
