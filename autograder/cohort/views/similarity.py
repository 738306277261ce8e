"""``similarity ASSIGNMENT``: answers that look copied, scored against how common each answer is.

For every graded answer cell, every submission's code is **normalised** for what copying changes: comments,
docstrings and layout go (the code is parsed and written back), each function's local names become
``v0, v1, …`` in order of first use, and runs of assignments that do not depend on each other are put in
one canonical order.  The normalised code is **fingerprinted** by copydetect (a well-kept implementation of
winnowing, the method of MOSS: hashes of every run of ``K`` characters of the normalised code, the smallest
in each window kept), the released stub or starter code of the cell counting as boilerplate, so
it never matches.

Each fingerprint is weighted by how rare it is in the cohort (:func:`rarity`): one that only one or two
students have counts 1, one that ``d`` students have counts ``1 / (d - 1)``, and one that more than
:data:`COMMON` of the cohort has counts nothing.  An answer's *distinctive* part is its weighted
fingerprints; a pair's **score** in a cell is the share of the shorter answer's distinctive part that the
two share (and they must share at least :data:`MIN_EVIDENCE` of it).  The same five-line ``train_step``
written by half the class has no distinctive part and is therefore not suspicious; the same odd bug in three
notebooks is distinctive, and shared.  A pair at or above the threshold in some cell is reported; pairs are
grouped into clusters (students linked by reported pairs), each pair with its cells side by side, the
counted matches marked and the reasons in words.

What it can detect: copies edited by renaming, re-commenting, re-spacing and reordering independent
assignments, whole or in part.  What it cannot: copies rewritten by hand (another loop form, another
library call), answers too short to tell apart (fewer than :data:`MIN_FINGERPRINTS` fingerprints: a
one-line answer is skipped), and copying of an answer most of the cohort wrote anyway (weighted down by
design).  A reported pair is a reason to look, never a verdict.

It reads ``submitted/`` and the release (for the stubs), and writes ``reports/ASSIGNMENT/similarity.html``
and ``similarity.json``.
"""

from __future__ import annotations

import html
import io
import json
import math
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from ...cells import answer_sources
from .normalise import normalise

#: Characters of normalised code per fingerprint, and the winnowing window.
K, WINDOW = 24, 6
#: A fingerprint more than this share of the cohort has is common: it counts nothing.
COMMON = 0.2
#: An answer with fewer fingerprints than this is too short to tell a copy from a coincidence.
MIN_FINGERPRINTS = 6
#: The default score from which a pair is reported.
THRESHOLD = 0.5
#: The least distinctive content (weighted fingerprints) a reported pair must share: one unusual idiom two
#: students happen to share is not a copy.
MIN_EVIDENCE = 4.0


# ---- normalising what copying changes



# ---- fingerprints and scores

@dataclass
class Answer:
    student: str
    cell: str
    source: str
    normal: str
    fingerprint: object  # copydetect.CodeFingerprint of ``normal``

    @property
    def hashes(self) -> set:
        return self.fingerprint.hashes


def fingerprint(code: str, boilerplate=None):
    from copydetect import CodeFingerprint

    # The code is already normalised (locals renamed, layout canonical): its text is fingerprinted as it is, so
    # that the calls and attributes it names (which copydetect's own filter folds into one letter) still count.
    return CodeFingerprint("answer.py", K, WINDOW, boilerplate=boilerplate, filter=False, fp=io.StringIO(code))


@dataclass
class Pair:
    a: str
    b: str
    cell: str
    score: float
    shared: int  # fingerprints the two share (boilerplate left out)
    alone: int  # of those, how many no one else in the cohort has
    smaller: int  # fingerprints of the shorter answer
    identical: bool  # the normalised answers are the same
    writers: int  # students who answered the cell

    def reasons(self) -> list[str]:
        said = [f"they share {self.shared} fingerprints that few others have (the shorter answer has {self.smaller} in "
                f"all); {self.alone} of them no other student of the {self.writers} who answered this cell has"]
        if self.identical:
            said.append("the two answers are identical once names, comments, layout and the order of "
                        "independent assignments are set aside")
        return said


@dataclass
class Report:
    assignment: str
    threshold: float
    students: int
    cells: dict[str, int] = field(default_factory=dict)  # cell -> answers compared
    skipped: dict[str, int] = field(default_factory=dict)  # cell -> answers too short to compare
    pairs: list[Pair] = field(default_factory=list)

    def clusters(self) -> list[list[str]]:
        """Students linked by reported pairs, largest group first."""
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for p in self.pairs:
            parent[find(p.a)] = find(p.b)
        groups: dict[str, list[str]] = {}
        for student in parent:
            groups.setdefault(find(student), []).append(student)
        return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))

    def flagged(self) -> set[frozenset]:
        return {frozenset((p.a, p.b)) for p in self.pairs}


def rarity(holders: int, writers: int) -> float:
    """What one fingerprint that ``holders`` of the cell's ``writers`` have weighs: 1 for a fingerprint one or
    two students have, ``1 / (holders - 1)`` beyond, and nothing once more than :data:`COMMON` of the cohort
    has it."""
    if holders > max(2, math.floor(COMMON * writers)):
        return 0.0
    return 1.0 / max(1, holders - 1)


def score_cell(answers: list[Answer], threshold: float) -> list[Pair]:
    """Every pair of ``answers`` (one cell's) that shares at least ``threshold`` of the distinctive part of the
    shorter answer (its fingerprints weighted by :func:`rarity`), and at least :data:`MIN_EVIDENCE` of it."""
    writers = len(answers)
    holders: dict[int, list[int]] = {}
    for i, answer in enumerate(answers):
        for h in answer.hashes:
            holders.setdefault(h, []).append(i)
    weight = {h: rarity(len(who), writers) for h, who in holders.items()}
    distinctive = [sum(weight[h] for h in answer.hashes) for answer in answers]
    together: dict[tuple[int, int], float] = {}
    shared: dict[tuple[int, int], int] = {}
    alone: dict[tuple[int, int], int] = {}
    for h, who in holders.items():
        if len(who) < 2 or weight[h] == 0.0:
            continue
        for i, j in combinations(who, 2):
            together[i, j] = together.get((i, j), 0.0) + weight[h]
            shared[i, j] = shared.get((i, j), 0) + 1
            if len(who) == 2:
                alone[i, j] = alone.get((i, j), 0) + 1
    pairs = []
    for (i, j), total in together.items():
        base = min(distinctive[i], distinctive[j])
        score = total / base if base else 0.0
        if score >= threshold and total >= MIN_EVIDENCE:
            a, b = answers[i], answers[j]
            first, second = sorted((a.student, b.student))
            pairs.append(Pair(first, second, a.cell, round(min(score, 1.0), 3), shared[i, j], alone.get((i, j), 0),
                              min(len(a.hashes), len(b.hashes)), a.normal == b.normal, writers))
    return pairs


def compare(answers_by_cell: dict[str, dict[str, str]], stubs: dict[str, str], assignment: str = "",
            threshold: float = THRESHOLD) -> tuple[Report, dict[tuple[str, str], Answer]]:
    """Score ``{cell: {student: source}}``; ``stubs`` holds each cell's released code (never a match)."""
    students = {s for by_student in answers_by_cell.values() for s in by_student}
    report = Report(assignment, threshold, len(students))
    kept: dict[tuple[str, str], Answer] = {}
    for cell, by_student in sorted(answers_by_cell.items()):
        stub_normal = normalise(stubs.get(cell, ""))
        boilerplate = sorted(fingerprint(stub_normal).hashes) if stub_normal.strip() else []
        answers = []
        for student, source in sorted(by_student.items()):
            normal = normalise(source)
            if normal == stub_normal:
                continue  # the released stub or starter code, untouched: not an answer
            answer = Answer(student, cell, source, normal, fingerprint(normal, boilerplate))
            if len(answer.hashes) < MIN_FINGERPRINTS:
                report.skipped[cell] = report.skipped.get(cell, 0) + 1
                continue
            answers.append(answer)
            kept[student, cell] = answer
        report.cells[cell] = len(answers)
        report.pairs += score_cell(answers, threshold)
    report.pairs.sort(key=lambda p: (-p.score, p.cell, p.a, p.b))
    return report, kept


# ---- reading a course and writing the page

def read_course(course, assignment: str) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """``({cell: {student: source}}, {cell: released source})`` from ``submitted/`` and the release."""
    import nbformat

    release = course.folder("release") / assignment / f"{assignment}.ipynb"
    if not release.is_file():
        raise FileNotFoundError(f"{release}: the released notebook (its stubs and starter code are never a match); "
                                "run `make release` first")
    stubs = answer_sources(nbformat.read(release, as_version=4))
    by_cell: dict[str, dict[str, str]] = {cell: {} for cell in stubs}
    for student in course.students(assignment):
        path = course.submitted(student, assignment) / f"{assignment}.ipynb"
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - an unreadable submission has no answers to compare
            continue
        for cell, source in answer_sources(nb).items():
            if cell in by_cell:
                by_cell[cell][student] = source
    return by_cell, stubs


def _marked(answer: Answer, hashes: set) -> str:
    """The normalised code of ``answer`` as HTML, the fingerprints in ``hashes`` marked."""
    import numpy as np
    from copydetect.utils import get_copied_slices, highlight_overlap

    fp = answer.fingerprint
    idx = [i for h in hashes if h in fp.hash_idx for i in fp.hash_idx[h]]
    if not idx:
        return html.escape(answer.normal)
    slices = get_copied_slices(np.array(idx), fp.k)
    if len(fp.offsets) > 0:
        slices = slices + fp.offsets[:, 1][np.clip(np.searchsorted(fp.offsets[:, 0], slices), 0,
                                                   fp.offsets.shape[0] - 1)]
    marked, _ = highlight_overlap(answer.normal, slices, "<mark>", "</mark>", escape_html=True)
    return marked


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}
td,th{border:1px solid #d0d7de;padding:.3em .6em;vertical-align:top}pre{margin:0;white-space:pre-wrap;font-size:.85em}
mark{background:#ffd8b5}.pair{margin:1.5em 0;border-top:2px solid #d0d7de;padding-top:.5em}.side{width:50%}"""


def write_report(report: Report, kept: dict, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    parts = [f"<!doctype html><meta charset='utf-8'><title>Similarity: {html.escape(report.assignment)}</title>"
             f"<style>{_STYLE}</style><h1>Answers that look alike: {html.escape(report.assignment)}</h1>",
             f"<p>{report.students} students; a pair is shown from a score of {report.threshold:g} in some cell (the "
             "share of the shorter answer's fingerprints the two share, each weighted by how rare it is in the "
             "cohort). A reported pair is a reason to look at the two notebooks, never a verdict.</p>",
             "<h2>Cells compared</h2><table><tr><th>cell</th><th>answers compared</th><th>too short to tell</th></tr>"]
    for cell, n in report.cells.items():
        parts.append(f"<tr><td>{html.escape(cell)}</td><td>{n}</td><td>{report.skipped.get(cell, 0)}</td></tr>")
    parts.append("</table>")
    clusters = report.clusters()
    parts.append(f"<h2>Clusters ({len(clusters)})</h2>")
    if not clusters:
        parts.append("<p>No pair reached the threshold.</p>")
    parts.append("<ol>" + "".join(f"<li>{html.escape(', '.join(g))}</li>" for g in clusters) + "</ol>")
    parts.append("<h2>Pairs</h2>")
    for p in report.pairs:
        a, b = kept[p.a, p.cell], kept[p.b, p.cell]
        counted = a.hashes & b.hashes
        parts.append(f"<div class='pair'><h3>{html.escape(p.a)} and {html.escape(p.b)}: "
                     f"<code>{html.escape(p.cell)}</code>, score {p.score:.2f}</h3><ul>"
                     + "".join(f"<li>{html.escape(r)}</li>" for r in p.reasons()) + "</ul>"
                     f"<table><tr><th class='side'>{html.escape(p.a)} (normalised)</th>"
                     f"<th class='side'>{html.escape(p.b)} (normalised)</th></tr>"
                     f"<tr><td><pre>{_marked(a, counted)}</pre></td><td><pre>{_marked(b, counted)}</pre></td></tr>"
                     f"<tr><td><details><summary>as submitted</summary><pre>{html.escape(a.source)}</pre></details></td>"
                     f"<td><details><summary>as submitted</summary><pre>{html.escape(b.source)}</pre></details></td>"
                     "</tr></table></div>")
    page = out_dir / "similarity.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    (out_dir / "similarity.json").write_text(json.dumps({
        "assignment": report.assignment, "threshold": report.threshold, "students": report.students,
        "cells": report.cells, "skipped": report.skipped, "clusters": clusters,
        "pairs": [{**p.__dict__, "reasons": p.reasons()} for p in report.pairs]}, indent=1), encoding="utf-8")
    return page


def run(course, assignment: str, threshold: float = THRESHOLD) -> tuple[Report, Path]:
    by_cell, stubs = read_course(course, assignment)
    report, kept = compare(by_cell, stubs, assignment, threshold)
    return report, write_report(report, kept, course.reports(assignment))
