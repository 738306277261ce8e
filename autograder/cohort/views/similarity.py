"""``similarity ASSIGNMENT``: answers that look copied, told apart from the course's own answer and from what
the cohort wrote anyway.

For every graded answer cell, every submission's code is **normalised** for what copying changes and meaning
does not (:mod:`.normalise`: classes, helpers, lambdas and comprehensions written out, one spelling per
PyTorch call, dead code dropped, loops and branches in one form, temporaries folded, independent statements
in one order, names numbered scope by scope; never a change of what the code does).  The normalised code is
**fingerprinted** by winnowing (the method of MOSS: hashes of every run of ``K`` characters, the smallest in
each window kept) over a text with every variable written ``v`` and no indentation; the released stub or
starter code never matches.

**The course's answer.**  A fingerprint whose ``K`` characters the course's own code holds in one run (the
reference solution, the exercise's own code cells, the lessons of its module and the modules before, written
the same way) is the course's: it never counts towards a pair.  An answer that is the course's all but a few
fingerprints is listed as *the course's answer* with how many students wrote it, never as a pair; an answer
equal to the reference is listed on its own, whatever the cohort's size (word for word, or once normalised).

**Scores.**  The other fingerprints are weighted by how rare they are in the cohort (:func:`rarity`): one
that one or two students have counts 1, one that ``d`` have ``1 / (d - 1)``, one that more than
:data:`COMMON` of the cohort has nothing.  A pair's score in a cell is the share of the shorter answer's own
weighted part that the two share; a cell *matches* from the threshold on, if the pair shares at least
:data:`MIN_EVIDENCE` of it on :data:`MIN_LINES` lines of their own, and from :data:`STRONG_SHARE` of the
threshold when the pair shares :data:`STRONG` on :data:`MIN_STRONG_LINES` lines of their own (a long answer copied and then much
rewritten keeps that much that no third student wrote).  *Lines of their own* are submitted lines: a temporary
folded into the line that reads it still counts its own line.  Cells that fall short alone but each share
:data:`MIN_EVIDENCE` on :data:`MIN_LINES` lines of their own (or are identical once normalised) match *together*
when two or more of them share :data:`TOGETHER` between them (rare code shared across a notebook, each cell
rewritten).  A pair that matches in one cell only is reported when that cell carries :data:`STRONG` on
:data:`MIN_STRONG_LINES` lines, or when its two answers are the same long answer once normalised
(:data:`IDENTICAL_LONG` fingerprints beyond the course's, no one else wrote it).  In a pair reported, a cell
matches *as support* when its two answers are identical once normalised (neither the reference, and no more
students wrote it than hold a rare fingerprint), however few fingerprints of its own it has (a copied cell made
mostly of the course's lines), or when it scores from the threshold on :data:`SUPPORT_EVIDENCE`, where alone it
would fall short (less than :data:`MIN_EVIDENCE`, or fewer lines of their own than :data:`MIN_LINES`).  An answer with fewer than :data:`MIN_FINGERPRINTS` fingerprints beyond the
stub is too short to tell a copy from a coincidence: it is counted, not compared.  An answer of one statement is
too short to tell alone: it counts only as support, or identical once normalised together with other cells.

**The page** shows, by student, each group of students linked by a matching cell and whom each matches in
which cell (so a chain or a merge reads as one story); then one entry per pair, ordered by its evidence
(matching cells, shared weight, lines of their own), with every cell the two answered: the code as
submitted with the lines that match marked, the normalised form on demand, the score and why (what was
discounted, or for a cell that does not match, each test it fails).  Clusters are built only from pairs
that match in at least two cells, each with its weakest link.  A pair is a reason to open the two
notebooks, never a verdict.  It cannot find a copy rewritten by hand (another algorithm, another library
call), nor a copy of a classmate whose answer is the course's own.

It reads ``submitted/``, the release, the reference solution and the lessons, and writes
``reports/ASSIGNMENT/similarity.html`` and ``similarity.json``.
"""

from __future__ import annotations

import ast
import html
import json
import math
import zlib
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from pathlib import Path

from ...cells import answer_sources, strip_solution_markers
from . import normalise as norm

#: Characters of normalised code per fingerprint, and the winnowing window.
K, WINDOW = 24, 6
#: A fingerprint more than this share of the cohort has is common: it counts nothing.
COMMON = 0.2
#: An answer with fewer fingerprints of its own (beyond the stub) is too short to tell a copy from a coincidence;
#: an answer with fewer beyond the course's lines is the course's answer.
MIN_FINGERPRINTS = 6
#: An answer of fewer statements is too short to tell (a one-line answer can only be written a few ways).
MIN_STATEMENTS = 2
#: The default score from which a cell matches.
THRESHOLD = 0.5
#: The least shared weight of a matching cell, and the least lines of their own (neither the course's nor the
#: stub's) it must cover: one unusual line two students happen to share is not a copy.
MIN_EVIDENCE, MIN_LINES = 6.0, 2
#: The least shared weight of a cell that matches as support on its score, in a pair that matches elsewhere: the
#: pair is the evidence, the cell's score says this cell was taken too.  Half of :data:`MIN_EVIDENCE` (module 02's
#: cohort: three more copied cells, and no cell of a pair that its pair did not copy in any planted cohort).
SUPPORT_EVIDENCE = MIN_EVIDENCE / 2
#: The least shared weight of a pair that matches in one cell only: one cell must carry what two would.
STRONG = 16.0
#: Cells that do not match alone, each sharing at least :data:`MIN_EVIDENCE` on :data:`MIN_LINES` lines of their
#: own, match together when two or more of them (with any cell that matches alone) share this much: the same
#: rare code in several cells of two notebooks is a copy even where each cell was rewritten.
TOGETHER = 1.5 * STRONG
#: A cell also matches from a lower score, this share of the threshold (0.35 at the default 0.5), when the two
#: share :data:`STRONG` weight of their own on :data:`MIN_STRONG_LINES` lines: that much that no third student
#: wrote, on a long answer copied and then much rewritten.  Not lower: two honest students' long answers written
#: after one lesson share that much at scores up to a third (module 06's honest cohort, ``autograder.dev.honest_06``).
MIN_STRONG_LINES, STRONG_SHARE = 4, 0.7
#: A pair that matches in one cell only whose two answers are identical once normalised (and written by no one
#: else) is reported when the answer has this many fingerprints of its own, common ones included: a whole long
#: answer the same is evidence however common its parts (a copier who took one cell from each of two
#: classmates matches each in that one cell).
IDENTICAL_LONG = 2 * STRONG
#: The least shared weight by which one answer is another's closest in a cell (:func:`closest`): one rare
#: fingerprint of their own.
CLOSEST_EVIDENCE = 1.0
#: A pair whose answers are each other's closest in this many cells (or that many counting the cells that match on
#: their own) is reported however little each cell shares: no two of the planted cohorts' independent students are
#: each other's closest in more than two cells (module 06's honest cohort: three pairs in two; module 08's: two),
#: and a copy stays its source's closest through disguises that leave little of its text.
CLOSEST_CELLS = 3
#: Two students who each match one classmate, on their own evidence, in this many cells or more (the same cells)
#: are reported as a pair on those cells: both hold that classmate's code there (two copies of one notebook
#: disguised apart seldom match each other directly).  At two, across every planted cohort, it reports only copied
#: pairs; at one it also joined two honest students through a false pair.
THROUGH_CELLS = 2


# ---- the course's own code

@dataclass
class CourseCode:
    """What the course itself wrote: ``reference`` answers by cell, and ``lines``, every normalised line of
    the reference, the exercise's own cells and the lessons (variables folded), with where it comes from."""

    reference: dict[str, str] = field(default_factory=dict)
    lines: dict[str, str] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)  # what was read, for the page
    grams: set = field(default_factory=set)  # the hash of every run of K characters of the course's code

    def add(self, source: str, where: str, keep=(), variables=None) -> None:
        tree = norm.normalise_tree(source, keep)
        if tree is not None:
            self._add(tree, where, norm.assigned(tree) if variables is None else variables, keep)

    def _add(self, tree, where: str, variables: set[str], keep=()) -> None:
        lines = norm.folded(tree, variables, frozenset(keep))
        for line in lines:
            self.lines.setdefault(line.strip(), where)
        text = "".join(f"{line}\n" for line in lines)
        self.grams |= {_hash(text[i:i + K]) for i in range(len(text) - K + 1)}

    def add_notebook(self, nb, where: str, skip=()) -> None:
        """Every code cell of ``nb`` but those in ``skip``; a variable is any name the notebook binds."""
        cells = tuple((i, c["source"]) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and i not in skip)
        lines, grams = _notebook_code(cells, where)
        for line, at in lines:
            self.lines.setdefault(line, at)
        self.grams |= grams
        self.sources.append(where)


@lru_cache(maxsize=64)
def _notebook_code(cells: tuple[tuple[int, str], ...], where: str) -> tuple[tuple[tuple[str, str], ...], frozenset]:
    """The normalised lines (each with where it is) and fingerprints of a notebook's code ``cells`` (``(index,
    source)``): a lesson that every later module reads is normalised once."""
    code = CourseCode()
    trees = {i: norm.normalise_tree(source) for i, source in cells}
    variables = set().union(*(norm.assigned(t) for t in trees.values() if t is not None))
    for i, tree in trees.items():
        if tree is not None:
            code._add(tree, f"{where}, cell {i}", variables)
    return tuple(code.lines.items()), frozenset(code.grams)


def course_code(reference_nb=None, release_nb=None, lessons=()) -> CourseCode:
    """The course's code from the reference (solution) notebook, the released notebook and ``lessons``
    (``[(name, notebook)]``, the lessons of the module and before)."""
    code = CourseCode()
    if reference_nb is not None:
        code.reference = {cell: strip_solution_markers(src) for cell, src in answer_sources(reference_nb).items()}
        for cell, source in code.reference.items():
            code.add(source, f"the reference answer of {cell}", keep=norm.defined(source), variables=set())
        code.sources.append("the reference solution")
    if release_nb is not None:
        answers = {i for i, c in enumerate(release_nb["cells"]) if c["source"] in answer_sources(release_nb).values()}
        code.add_notebook(release_nb, "the exercise", skip=answers)
    for name, nb in lessons:
        code.add_notebook(nb, name)
    return code


# ---- answers and their fingerprints

@dataclass
class Answer:
    student: str
    cell: str
    source: str
    normal: str  # the normalised code, as a program (shown on demand)
    fingerprint: Fingerprint  # of ``text``
    course: set = field(default_factory=set)  # fingerprints that lie on the course's lines
    reference: str = ""  # "word for word", "same code" (as the reference once normalised), or ""
    starts: list[int] = field(default_factory=list)  # where each line of ``text`` starts
    own_lines: set[int] = field(default_factory=set)  # lines of ``text`` neither the course's nor the stub's
    text: str = ""  # what is fingerprinted: the normalised code, every variable v, no indentation
    source_lines: list[int] = field(default_factory=list)  # the submitted line each line of ``text`` came from
    spans: list[frozenset] = field(default_factory=list)  # the submitted lines each line of ``text`` holds
    not_normalised: str = ""  # the normaliser's error, when it failed on this answer (compared as written)

    def lines_at(self, at: int) -> range:
        """The lines of ``text`` that the fingerprint starting at ``at`` covers."""
        last = len(self.starts) - 2
        return range(min(bisect_right(self.starts, at) - 1, last), min(bisect_right(self.starts, at + K - 1) - 1, last) + 1)

    def lines_of(self, hashes: set) -> set[int]:
        """The lines of ``text`` that the fingerprints ``hashes`` cover."""
        return {i for h in hashes for at in self.fingerprint.hash_idx.get(h, ()) for i in self.lines_at(at)}

    def own_lines_of(self, hashes: set) -> set[int]:
        """The lines of its own that the fingerprints ``hashes`` cover."""
        return self.lines_of(hashes) & self.own_lines

    def own_spans_of(self, hashes: set) -> set[int]:
        """The submitted lines that the lines of its own the fingerprints ``hashes`` cover hold (a temporary folded
        into the line that reads it is its own submitted line)."""
        return {n for i in self.own_lines_of(hashes) if i < len(self.spans) for n in self.spans[i]}

    def submitted_lines_of(self, hashes: set) -> set[int]:
        """The lines of the submitted cell (counted from 1) that the fingerprints ``hashes`` come from."""
        return {self.source_lines[i] for i in self.lines_of(hashes) if i < len(self.source_lines)}

    @property
    def hashes(self) -> set:
        return self.fingerprint.hashes

    @property
    def own(self) -> set:
        """Fingerprints beyond the course's lines."""
        return self.hashes - self.course

    @property
    def is_course(self) -> bool:
        return bool(self.reference) or len(self.own) < MIN_FINGERPRINTS


@dataclass
class Fingerprint:
    """The winnowed fingerprints of a text: ``hash_idx`` maps each kept hash to where its ``K`` characters
    start; ``hashes`` the kept ones that are not boilerplate."""

    hashes: set
    hash_idx: dict[int, list[int]]


def _hash(text: str) -> int:
    # A stable hash (Python's own is salted per process): the same answers give the same report on every run.
    data = text.encode()
    return zlib.crc32(data) << 32 | zlib.adler32(data)


def fingerprint(code: str, boilerplate=()) -> Fingerprint:
    """Winnowing (Schleimer, Wilkerson and Aiken, 2003, the method of MOSS): the hash of every run of ``K``
    characters, the smallest in each window of ``WINDOW`` kept (the rightmost on a tie).  The code is already
    normalised: its text is fingerprinted as it is."""
    grams = [_hash(code[i:i + K]) for i in range(len(code) - K + 1)]
    kept: dict[int, list[int]] = {}
    last = -1
    for start in range(max(0, len(grams) - WINDOW + 1)):
        window = grams[start:start + WINDOW]
        low = min(window)
        at = start + WINDOW - 1 - window[::-1].index(low)
        if at != last:
            kept.setdefault(low, []).append(at)
            last = at
    return Fingerprint(set(kept) - set(boilerplate), kept)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _read_lines(answer: Answer, code: CourseCode, stub_lines: set[str]) -> None:
    """Set ``answer.course`` (fingerprints whose characters the course's code holds too, in one run: once every
    variable is ``v``, the course's lines alone are in almost every answer, their order is not) and
    ``answer.own_lines`` (the lines its other fingerprints cover, the stub's left out)."""
    folded = answer.text.splitlines()
    fp = answer.fingerprint
    answer.course = fp.hashes & code.grams
    stub = {i for i, line in enumerate(folded) if line.strip() in stub_lines}
    answer.own_lines = answer.lines_of(fp.hashes - answer.course) - stub


def _plain(source: str) -> list[str]:
    return [line.rstrip() for line in strip_solution_markers(source).splitlines() if line.strip()]


def make_answer(student: str, cell: str, source: str, keep: set, boilerplate, stub_lines: set[str],
                code: CourseCode, reference_normal: str | None, signatures: tuple = ()) -> Answer:
    normal, text, lines, spans, failed = _normalised(source, frozenset(keep), signatures)
    answer = Answer(student, cell, source, normal, fingerprint(text, boilerplate), starts=_line_starts(text),
                    text=text, source_lines=lines, spans=spans, not_normalised=failed)
    _read_lines(answer, code, stub_lines)
    reference = code.reference.get(cell)
    if reference is not None:
        if _plain(source) == _plain(reference):
            answer.reference = "word for word"
        elif text == reference_normal:
            answer.reference = "same code"
    return answer


@lru_cache(maxsize=4096)
def _normalised(source: str, keep: frozenset, signatures: tuple = ()) -> tuple[str, str, list[int], list, str]:
    """``(normalised code, fingerprinted text, submitted line of each text line, the submitted lines each holds,
    the normaliser's error)``: an
    answer handed in by several students (copies, the reference, the starter) is normalised once.  An answer
    the normaliser fails on is the normaliser's fault: it is compared as written (as code that does not parse
    is), and the error is kept for the page, so that one answer never stops the report."""
    try:
        tree = norm.normalise_tree(source, keep, dict(signatures))
        return (source if tree is None else ast.unparse(tree)), *_text(source, tree, keep), ""
    except (Exception, RecursionError) as e:  # noqa: BLE001 - any failure of ours: the answer is still compared
        return source, *_text(source, None), f"{type(e).__name__}: {e}"


def _text(source: str, tree: ast.Module | None, keep=None) -> tuple[str, list[int], list[frozenset]]:
    """What is fingerprinted (:func:`.normalise.fingerprint_lines`), the submitted line of each of its lines and
    the submitted lines each holds; code that does not parse is fingerprinted as it is, without its indentation."""
    spans: list[frozenset] = []
    if tree is None:
        pairs = [(line.strip(), i) for i, line in enumerate(source.splitlines(), 1) if line.strip()]
        spans = [frozenset({i}) for _, i in pairs]
    else:
        pairs = norm.fingerprint_lines(tree, keep=keep, spans=spans)
    return "".join(f"{line}\n" for line, _ in pairs), [n for _, n in pairs], spans


# ---- pairs and scores

def rarity(holders: int, writers: int) -> float:
    """What one fingerprint that ``holders`` of the cell's ``writers`` have weighs: 1 for a fingerprint one or
    two students have, ``1 / (holders - 1)`` beyond, and nothing once more than :data:`COMMON` of the cohort
    has it."""
    if holders > max(2, math.floor(COMMON * writers)):
        return 0.0
    return 1.0 / max(1, holders - 1)


@dataclass
class CellMatch:
    """One cell of a pair: how much of the two answers is shared, and what of it was discounted."""

    cell: str
    score: float
    counted: float  # shared weight that counts
    shared: int  # fingerprints the two share (the stub left out)
    course: int  # of those, on the course's lines
    common: int  # of those, common in the cohort
    alone: int  # of those counted, how many no other student has
    smaller: int  # fingerprints of the shorter answer beyond the course's lines
    lines: int  # lines of their own (neither the course's nor the stub's) that the counted fingerprints cover
    identical: bool  # the normalised answers are the same
    writers: int  # students whose answers were compared in this cell
    matches: bool  # from the threshold on with MIN_EVIDENCE counted; STRONG on MIN_STRONG_LINES lines from
    # STRONG_SHARE of it; or together with the pair's other cells (TOGETHER)
    supports: bool = False  # matches only as support, in a pair matching elsewhere: identical once normalised, or
    # from the threshold on SUPPORT_EVIDENCE where alone it falls short
    single: bool = False  # one of the two answers is a single statement: read only in a pair matching elsewhere,
    # or identical once normalised together with the pair's other cells
    together: bool = False  # matches only with the pair's other cells (TOGETHER), not on its own
    closest: str = ""  # "each": the two answers are each other's closest in the cell (:func:`closest`), "one":
    # one of them is the other's closest (read only in a pair matching elsewhere); "" neither
    nearest: bool = False  # matches only as one of CLOSEST_CELLS cells where the two are each other's closest
    through: str = ""  # matches only through this classmate: each of the two answers matches theirs (THROUGH_CELLS)

    def reasons(self, threshold: float = THRESHOLD) -> list[str]:
        discounted = self.course + self.common
        said = [f"they share {self.shared - discounted} fingerprints of their own, on {self.lines} lines that are "
                f"neither the course's nor the stub's (the shorter answer has {self.smaller} fingerprints beyond the "
                f"course's lines); {self.alone} of them no other student of the {self.writers} compared has",
                f"{discounted} more shared fingerprints were discounted: {self.course} lie on the course's own "
                f"lines (reference or lesson) and {self.common} are common in the cohort (more than "
                f"{COMMON:.0%} of it has them)"]
        if self.supports and self.identical:
            said.append("it matches as support only: the two answers are identical once normalised, no more "
                        f"students than a rare fingerprint's ({COMMON:.0%} of the cohort, at least two) wrote "
                        "that answer, it is not the reference, and the pair matches in another cell on its own "
                        "evidence (alone, the cell's own fingerprints are too few or too common to tell)")
        elif self.supports and self.closest and not (self.score >= threshold and self.counted >= SUPPORT_EVIDENCE):
            said.append(f"it matches as support only: it scores {self.score:.2f} on {self.counted:g} that counts, "
                        "too little alone, but "
                        + ("each answer is the other's closest" if self.closest == "each" else
                           "one answer is the other's closest") +
                        f" of the {self.writers} compared in this cell (by score, sharing at least "
                        f"{CLOSEST_EVIDENCE:g} that counts; another student's answer the same once normalised may "
                        "share that place); neither answer is the reference, and the pair matches in another cell on "
                        "its own evidence")
        elif self.supports:
            short = " and ".join(([f"less than {MIN_EVIDENCE:g}"] if self.counted < MIN_EVIDENCE else []) + (
                [f"on {self.lines} line{'s' * (self.lines != 1)} of their own, fewer than {MIN_LINES}"]
                if self.lines < MIN_LINES else []) + (["one of the answers a single statement"] if self.single else []))
            said.append(f"it matches as support only: it scores {self.score:.2f} on {self.counted:g} that counts, "
                        f"{short}, so alone it would not match; neither answer is the reference, and the pair "
                        "matches in another cell on its own evidence")
        if self.nearest:
            said.append(f"it matches as one of {CLOSEST_CELLS} or more cells in which each of the two answers is "
                        f"the other's closest, of the {self.writers} compared (by score, sharing at least "
                        f"{CLOSEST_EVIDENCE:g} that counts; another student's answer the same once normalised may "
                        "share that place), or that match on their own: alone it falls short (its score "
                        f"{self.score:.2f} on {self.counted:g} that counts)")
        if self.through:
            said.append(f"it matches through {self.through}: each of the two answers matches {self.through}'s in this "
                        f"cell on its own evidence, and so they do in {THROUGH_CELLS} or more cells; alone it falls "
                        f"short (its score {self.score:.2f} on {self.counted:g} that counts)")
        if self.single:
            said.append("one of the two answers is a single statement: such an answer counts only in a pair that "
                        "matches in another cell, or identical once normalised together with the pair's other cells "
                        "(a short answer alone is too easily written alike)")
        if self.together:
            said.append(f"it matches together with the pair's other cells: alone it falls short (its score "
                        f"{self.score:.2f}), but it shares {self.counted:g} that counts on {self.lines} lines of their "
                        f"own, and the pair's cells that share {MIN_EVIDENCE:g} or more on {MIN_LINES} lines (or are "
                        f"identical once normalised) share "
                        f"{TOGETHER:g} or more between them")
        elif self.matches and not self.supports and self.score < threshold:
            said.append(f"it matches on its evidence, below the score {threshold:g}: what they share that counts "
                        f"weighs {self.counted:g} on {self.lines} lines of their own, and {STRONG:g} on "
                        f"{MIN_STRONG_LINES} lines match from a score of {STRONG_SHARE * threshold:g}")
        if self.identical:
            said.append("the two answers are identical once names, comments, layout, helpers, classes, "
                        "comprehensions, dead code, loop forms, branch orientation, spellings and the order of "
                        "independent statements are set aside")
        return said

    def why_not(self, threshold: float = THRESHOLD) -> str:
        """Why this cell does not match: each test it fails, with its figure."""
        failed = []
        if self.score < threshold:
            failed.append(f"the score {self.score:.2f} is below {threshold:g}")
        if self.counted < MIN_EVIDENCE:
            failed.append(f"the fingerprints they share that count weigh {self.counted:g}, less than {MIN_EVIDENCE:g}")
        if self.lines < MIN_LINES:
            failed.append(f"what they share covers {self.lines} line{'s' * (self.lines != 1)} of their own, "
                          f"fewer than {MIN_LINES}")
        if self.course and self.shared == self.course + self.common:
            failed.append(f"all {self.shared} shared fingerprints are the course's ({self.course}) or common "
                          f"({self.common})")
        if failed and self.counted >= MIN_EVIDENCE and (
                self.counted < STRONG or self.lines < MIN_STRONG_LINES or self.score < STRONG_SHARE * threshold):
            failed.append(f"nor is what they share enough to match from a lower score ({STRONG:g} on "
                          f"{MIN_STRONG_LINES} lines of their own from {STRONG_SHARE * threshold:g}: they share "
                          f"{self.counted:g} on {self.lines} at {self.score:.2f})")
        return "; ".join(failed) or "it matches"


@dataclass
class Cohort:
    """One cell's compared answers, with how many of them hold each fingerprint and what it weighs."""

    answers: list[Answer]
    holders: dict[int, int] = field(default_factory=dict)
    weight: dict[int, float] = field(default_factory=dict)
    short: list[Answer] = field(default_factory=list)  # answers of one statement, not compared (support only)

    def __post_init__(self) -> None:
        for answer in self.answers:
            for h in answer.hashes:
                self.holders[h] = self.holders.get(h, 0) + 1
        self.weight = {h: rarity(n, len(self.answers)) for h, n in self.holders.items()}

    def by_student(self, student: str) -> Answer:
        return next(a for a in self.answers + self.short if a.student == student)


def match(a: Answer, b: Answer, cohort: Cohort, threshold: float) -> CellMatch:
    weight, holders = cohort.weight, cohort.holders
    shared = a.hashes & b.hashes
    course = shared & (a.course | b.course)
    own = shared - course
    common = {h for h in own if weight.get(h, 0.0) == 0.0}
    counted = sum(weight[h] for h in own - common)
    base = min(sum(weight.get(h, 0.0) for h in a.own), sum(weight.get(h, 0.0) for h in b.own))
    score = min(counted / base, 1.0) if base else 0.0
    lines = min(len(a.own_spans_of(own - common)), len(b.own_spans_of(own - common)))
    return CellMatch(a.cell, round(score, 3), round(counted, 2), len(shared), len(course), len(common),
                     sum(holders.get(h) == 2 for h in own - common), min(len(a.own), len(b.own)), lines,
                     a.text == b.text, len(cohort.answers),
                     (score >= threshold and counted >= MIN_EVIDENCE and lines >= MIN_LINES)
                     or (counted >= STRONG and lines >= MIN_STRONG_LINES and score >= STRONG_SHARE * threshold))


def closest(scored: dict[tuple[str, str], CellMatch], texts: dict[str, str] | None = None) -> dict[str, frozenset]:
    """``{student: classmates}``: whose answer in the cell is closest to each student's, by score, among those
    sharing at least :data:`CLOSEST_EVIDENCE` that counts with it.  Classmates tied for the first place are closest
    together only when their answers are one answer (the same once normalised, ``texts``); otherwise the student
    has none."""
    texts = texts or {}
    ranked: dict[str, list[tuple[float, str]]] = {}
    for (a, b), m in scored.items():
        if m.counted >= CLOSEST_EVIDENCE and m.score > 0:
            ranked.setdefault(a, []).append((m.score, b))
            ranked.setdefault(b, []).append((m.score, a))
    found = {}
    for student, others in ranked.items():
        best = max(score for score, _ in others)
        top = {other for score, other in others if score == best}
        if len(top) == 1 or len({texts.get(other, other) for other in top}) == 1:
            found[student] = frozenset(top)
    return found


def candidates(cohort: Cohort) -> set[tuple[int, int]]:
    """Index pairs of the cell's answers that share a fingerprint that counts (rare ones only: cheap)."""
    holders: dict[int, list[int]] = {}
    for i, answer in enumerate(cohort.answers):
        for h in answer.own:
            if cohort.weight[h] > 0.0:
                holders.setdefault(h, []).append(i)
    return {pair for who in holders.values() if len(who) > 1 for pair in combinations(who, 2)}


# ---- the report

@dataclass
class CellSummary:
    compared: list[str] = field(default_factory=list)
    too_short: list[str] = field(default_factory=list)
    course: list[str] = field(default_factory=list)  # the course's answer (reference included)
    reference: dict[str, str] = field(default_factory=dict)  # student -> "word for word" | "same code"


@dataclass
class Pair:
    a: str
    b: str
    cells: list[CellMatch]  # every cell the two answered, matching ones first

    @property
    def matching(self) -> list[CellMatch]:
        return [c for c in self.cells if c.matches]

    @property
    def strength(self) -> tuple[int, float]:
        scores = [c.score for c in self.matching]
        return len(scores), round(sum(scores) / len(scores), 3) if scores else 0.0

    @property
    def evidence(self) -> tuple[int, float, int]:
        """What the pair rests on: its matching cells, the weight they share that counts, and the lines of
        their own it covers (a score of 1.00 on two lines rests on less than 0.80 on twenty)."""
        m = self.matching
        return len(m), round(sum(c.counted for c in m), 2), sum(c.lines for c in m)


@dataclass
class Report:
    assignment: str
    threshold: float
    students: int
    cells: dict[str, CellSummary] = field(default_factory=dict)
    pairs: list[Pair] = field(default_factory=list)
    answers: dict[tuple[str, str], Answer] = field(default_factory=dict)
    course_sources: list[str] = field(default_factory=list)
    weak: list[Pair] = field(default_factory=list)  # pairs matching in one cell on less than STRONG

    def flagged(self) -> set[frozenset]:
        """The pairs reported: each matches in at least one cell."""
        return {frozenset((p.a, p.b)) for p in self.pairs}

    def matching_cells(self) -> set[tuple[frozenset, str]]:
        return {(frozenset((p.a, p.b)), c.cell) for p in self.pairs for c in p.matching}

    def links(self) -> dict[str, list[tuple[str, list[CellMatch]]]]:
        """Each student's links: ``{student: [(other, matching cells)]}``, strongest first (by evidence)."""
        found: dict[str, list[tuple[Pair, str]]] = {}
        for p in self.pairs:
            found.setdefault(p.a, []).append((p, p.b))
            found.setdefault(p.b, []).append((p, p.a))
        return {s: [(other, p.matching) for p, other in sorted(ps, key=lambda x: tuple(-v for v in x[0].evidence))]
                for s, ps in sorted(found.items())}

    def stories(self) -> list[list[str]]:
        """Students joined by pairs that match in any cell (a chain, a merge, a ring), largest group first."""
        links = self.links()
        seen: set[str] = set()
        groups = []
        for student in links:
            if student in seen:
                continue
            group, todo = [], [student]
            while todo:
                s = todo.pop()
                if s in seen:
                    continue
                seen.add(s)
                group.append(s)
                todo += [o for o, _ in links.get(s, [])]
            groups.append(sorted(group))
        return sorted(groups, key=lambda g: (-len(g), g))

    def clusters(self) -> list[tuple[list[str], Pair]]:
        """Students linked by pairs that match in at least two cells, largest group first, each with its
        weakest link: the weakest pair of the strongest links that hold the group together."""
        strong = sorted((p for p in self.pairs if len(p.matching) >= 2), key=lambda p: p.strength, reverse=True)
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        weakest: dict[str, Pair] = {}
        for p in strong:  # Kruskal's maximum spanning forest: the last pair that joins a group is its weakest link
            ra, rb = find(p.a), find(p.b)
            if ra != rb:
                parent[ra] = rb
                weakest.pop(ra, None)
                weakest[rb] = p
        groups: dict[str, list[str]] = {}
        for student in parent:
            groups.setdefault(find(student), []).append(student)
        return sorted(((sorted(g), weakest[root]) for root, g in groups.items()), key=lambda x: (-len(x[0]), x[0]))


def compare(answers_by_cell: dict[str, dict[str, str]], stubs: dict[str, str], assignment: str = "",
            threshold: float = THRESHOLD, code: CourseCode | None = None) -> Report:
    """Score ``{cell: {student: source}}``; ``stubs`` holds each cell's released code (never a match) and
    ``code`` the course's own (its lines never count; answers equal to its reference are listed)."""
    code = code or CourseCode()
    students = {s for by_student in answers_by_cell.values() for s in by_student}
    report = Report(assignment, threshold, len(students), course_sources=list(code.sources))
    by_pair: dict[tuple[str, str], list[CellMatch]] = {}
    close: dict[tuple[str, str], list[CellMatch]] = {}  # cells that do not match alone but share MIN_EVIDENCE
    each: dict[tuple[str, str], list[CellMatch]] = {}  # cells that do not match alone where each is the other's closest
    cohorts: dict[str, Cohort] = {}
    nearest: dict[str, dict[str, frozenset]] = {}  # {cell: {student: the classmates whose answer is closest}}
    signatures = stub_signatures(stubs)
    for cell, by_student in sorted(answers_by_cell.items()):
        report.cells[cell], answers, one_statement = _read_cell(cell, by_student, stubs.get(cell, ""), code, report,
                                                                signatures)
        cohort = cohorts[cell] = Cohort(answers, short=one_statement)
        scored: dict[tuple[str, str], CellMatch] = {}
        for i, j in candidates(cohort):
            m = match(answers[i], answers[j], cohort, threshold)
            key = tuple(sorted((answers[i].student, answers[j].student)))
            scored[key] = m
            if m.matches:
                by_pair.setdefault(key, []).append(m)
            elif m.counted >= MIN_EVIDENCE and (m.lines >= MIN_LINES or m.identical):
                close.setdefault(key, []).append(m)
        for i, first in enumerate(one_statement):  # a one-statement answer: only as one of several cells, the same
            for second in answers + one_statement[i + 1:]:
                if second.text == first.text:
                    m = match(first, second, cohort, threshold)
                    if m.counted >= MIN_EVIDENCE:
                        m.single = True
                        close.setdefault(tuple(sorted((first.student, second.student))), []).append(m)
        nearest[cell] = near = closest(scored, {answer.student: answer.text for answer in answers})
        for (a, b), m in scored.items():
            if b in near.get(a, ()) and a in near.get(b, ()) and not m.matches and not (
                    cohort.by_student(a).reference or cohort.by_student(b).reference):
                m.closest = "each"
                each.setdefault((a, b), []).append(m)
    for key, near in close.items():
        alone = by_pair.get(key, [])
        if len(alone) + len(near) >= 2 and sum(m.counted for m in alone + near) >= TOGETHER:
            for m in near:
                m.matches = m.together = True
            by_pair[key] = alone + near
    for key, near in each.items():  # only for a pair that would not be reported otherwise
        alone = by_pair.get(key, [])
        near = [m for m in near if not m.matches]
        if not (len(alone) >= 2 or alone and not _rests_on_little(alone[0], cohorts[alone[0].cell], *key)) and (
                len(alone) + len(near) >= CLOSEST_CELLS):
            for m in near:
                m.matches = m.nearest = True
            by_pair[key] = alone + near
    for (a, b), found in by_pair.items():
        _add_pair(report, a, b, found, cohorts, nearest, threshold)
    for (a, b), found in _through_classmates(report, cohorts, threshold).items():
        report.weak = [p for p in report.weak if {p.a, p.b} != {a, b}]
        _add_pair(report, a, b, found, cohorts, nearest, threshold)
    report.pairs.sort(key=lambda p: (tuple(-x for x in p.evidence), p.a, p.b))
    return report


def _add_pair(report: Report, a: str, b: str, found: list[CellMatch], cohorts: dict[str, Cohort],
              nearest: dict[str, dict[str, frozenset]], threshold: float) -> None:
    """Report ``a`` and ``b`` on their matching cells ``found``, with their other cells (as support where they
    support it), or list them among the weak pairs when one cell on little evidence is all they share."""
    done = {m.cell for m in found}
    others = [match(c.by_student(a), c.by_student(b), c, threshold) for cell, c in cohorts.items()
              if cell not in done and {a, b} <= set(report.cells[cell].compared)]
    short = [match(c.by_student(a), c.by_student(b), c, threshold) for cell, c in cohorts.items()
             if cell not in done and {a, b} <= {x.student for x in c.answers + c.short}
             and not {a, b} <= set(report.cells[cell].compared)]
    if len(found) == 1 and _rests_on_little(found[0], cohorts[found[0].cell], a, b):
        report.weak.append(Pair(a, b, found + others))
        return  # one cell, on little evidence: a coincidence as often as a copy
    for m in short:
        m.single = True
    for m in others:
        near = nearest.get(m.cell, {})
        ab, ba = b in near.get(a, ()), a in near.get(b, ())
        m.closest = "each" if ab and ba else "one" if ab or ba else ""
    for m in others + short:
        if _supports(m, cohorts[m.cell], a, b, threshold):
            m.matches = m.supports = True
    found += [m for m in others + short if m.supports]
    others = [m for m in others if not m.supports]
    report.pairs.append(Pair(a, b, sorted(found, key=lambda m: -m.score) + others))


def _through_classmates(report: Report, cohorts: dict[str, Cohort],
                        threshold: float) -> dict[tuple[str, str], list[CellMatch]]:
    """Two students not reported as a pair who each match one classmate on their own evidence (neither as support
    nor as the closest) in :data:`THROUGH_CELLS` or more of the same cells: ``{(a, b): those cells}``, each marked
    ``through`` the classmate (the first by name where several would do).  Each of the two holds that classmate's
    code there, however apart their disguises took them."""
    own: dict[str, dict[str, set[str]]] = {}  # {student: {classmate: cells matching on their own evidence}}
    for p in report.pairs:
        cells = {m.cell for m in p.matching if not (m.supports or m.nearest)}
        own.setdefault(p.a, {})[p.b] = cells
        own.setdefault(p.b, {})[p.a] = cells
    reported = {frozenset((p.a, p.b)) for p in report.pairs}
    through: dict[tuple[str, str], dict[str, str]] = {}  # {(a, b): {cell: the classmate}}
    for classmate, links in sorted(own.items()):
        names = sorted(links)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                common = links[a] & links[b]
                if frozenset((a, b)) not in reported and len(common) >= THROUGH_CELLS:
                    for cell in common:
                        through.setdefault((a, b), {}).setdefault(cell, classmate)
    found: dict[tuple[str, str], list[CellMatch]] = {}
    for (a, b), cells in sorted(through.items()):
        for cell, classmate in sorted(cells.items()):
            c = cohorts[cell]
            m = match(c.by_student(a), c.by_student(b), c, threshold)
            if not m.matches:
                m.matches, m.through = True, classmate
            found.setdefault((a, b), []).append(m)
    return found


def _rests_on_little(m: CellMatch, cohort: Cohort, a: str, b: str) -> bool:
    """Whether a pair's one matching cell rests on too little to report the pair on it alone."""
    return (m.counted < STRONG or m.lines < 2 * MIN_LINES) and not _identical_long(m, cohort, a, b)


def _identical_long(m: CellMatch, cohort: Cohort, a: str, b: str) -> bool:
    """Whether a pair's one matching cell carries the pair alone by being the same long answer: identical once
    normalised, no one else wrote it, and at least :data:`IDENTICAL_LONG` fingerprints beyond the course's."""
    first = cohort.by_student(a)
    return (m.identical and m.smaller >= IDENTICAL_LONG and m.lines >= 2 * MIN_LINES
            and sum(answer.text == first.text for answer in cohort.answers) == 2)


def _supports(m: CellMatch, cohort: Cohort, a: str, b: str, threshold: float = THRESHOLD) -> bool:
    """Whether a cell of a pair that matches elsewhere matches as support (neither answer the reference): the two
    answers are identical once normalised and no more students wrote that answer than hold a rare fingerprint (a
    copied cell that is mostly the course's lines, or common, has too few fingerprints of its own to score; its
    identity to the copy's other cells is the evidence), or the cell scores from the threshold on
    :data:`SUPPORT_EVIDENCE` that counts (a short answer's one rare line, or a few rare fingerprints, which alone
    could be a coincidence).  One-statement answers (too short to compare alone) are read here too."""
    first, second = cohort.by_student(a), cohort.by_student(b)
    if first.reference or second.reference:
        return False
    if not m.identical:
        return (m.score >= threshold and m.counted >= SUPPORT_EVIDENCE) or (
            bool(m.closest) and m.counted >= CLOSEST_EVIDENCE)
    holders = sum(answer.text == first.text for answer in cohort.answers + cohort.short)
    return holders <= max(2, math.floor(COMMON * len(cohort.answers + cohort.short)))


def stub_signatures(stubs: dict[str, str]) -> tuple:
    """``((function, (parameter, ...)), ...)``: the functions the assignment's stubs ask for, with their
    parameters (a call of one passes its keyword arguments by position once normalised)."""
    found = {}
    for source in stubs.values():
        tree = norm._tree(source)
        for node in tree.body if tree is not None else ():
            a = getattr(node, "args", None)
            if isinstance(node, ast.FunctionDef) and not (a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs):
                found[node.name] = tuple(p.arg for p in a.args)
    return tuple(sorted(found.items()))


def _read_cell(cell, by_student, stub, code, report, signatures=()) -> tuple[CellSummary, list[Answer], list[Answer]]:
    keep = norm.defined(stub)
    stub_text, *_ = _text(stub, norm.normalise_tree(stub, keep, dict(signatures)))
    boilerplate = fingerprint(stub_text).hashes if stub_text.strip() else set()
    stub_lines = {line.strip() for line in stub_text.splitlines()}
    reference = code.reference.get(cell)
    reference_normal = None if reference is None else _text(reference, norm.normalise_tree(
        reference, keep, dict(signatures)))[0]
    summary, answers, one_statement = CellSummary(), [], []
    for student, source in sorted(by_student.items()):
        answer = make_answer(student, cell, source, keep, boilerplate, stub_lines, code, reference_normal, signatures)
        if answer.text == stub_text:
            continue  # the released stub or starter code, untouched: not an answer
        report.answers[student, cell] = answer
        if answer.reference:
            summary.reference[student] = answer.reference
        short = norm.statements(source) < MIN_STATEMENTS or len(answer.hashes) < MIN_FINGERPRINTS
        if answer.is_course and (answer.reference or not short):
            summary.course.append(student)
        if short:
            summary.too_short.append(student)
            if len(answer.hashes) >= MIN_FINGERPRINTS and not answer.reference:
                one_statement.append(answer)
            continue
        summary.compared.append(student)
        answers.append(answer)
    return summary, answers, one_statement


# ---- reading a course

def read_course(course, assignment: str) -> tuple[dict[str, dict[str, str]], dict[str, str], CourseCode]:
    """``({cell: {student: source}}, {cell: released source}, the course's code)`` from ``submitted/``, the
    release, the source (reference) notebook and the lessons of the module and before."""
    import nbformat

    release = course.folder("release") / assignment / f"{assignment}.ipynb"
    if not release.is_file():
        raise FileNotFoundError(f"{release}: the released notebook (its stubs and starter code are never a match); "
                                "run `make release` first")
    release_nb = nbformat.read(release, as_version=4)
    stubs = answer_sources(release_nb)
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
    source = course.source(assignment) / f"{assignment}.ipynb"
    reference = nbformat.read(source, as_version=4) if source.is_file() else None
    lessons = [(path, nbformat.read(course.root / path, as_version=4)) for path in lesson_paths(assignment)
               if (course.root / path).is_file()]
    return by_cell, stubs, course_code(reference, release_nb, lessons)


def lesson_paths(assignment: str) -> list[str]:
    """The lessons of ``assignment``'s module and the modules before it (none for a module the syllabus lacks)."""
    from ...syllabus import MODULES

    ids = [m.id for m in MODULES]
    if assignment not in ids:
        return []
    return [path for m in MODULES[:ids.index(assignment) + 1] for path in m.lessons]


def run(course, assignment: str, threshold: float = THRESHOLD) -> tuple[Report, Path]:
    by_cell, stubs, code = read_course(course, assignment)
    report = compare(by_cell, stubs, assignment, threshold, code)
    return report, write_report(report, course.reports(assignment))


def to_json(report: Report) -> dict:
    return {
        "assignment": report.assignment, "threshold": report.threshold, "students": report.students,
        "course_code": report.course_sources,
        "cells": {cell: {"compared": len(s.compared), "too_short": s.too_short, "course": s.course,
                         "reference": s.reference} for cell, s in report.cells.items()},
        "clusters": [{"students": g, "weakest_link": [w.a, w.b]} for g, w in report.clusters()],
        "not_normalised": [{"student": a.student, "cell": a.cell, "error": a.not_normalised}
                           for a in report.answers.values() if a.not_normalised],
        "by_student": {s: [{"with": other, "cells": [c.cell for c in cells]} for other, cells in links]
                       for s, links in report.links().items()},
        "pairs": [{"a": p.a, "b": p.b, "matching_cells": len(p.matching), "mean_score": p.strength[1],
                   "evidence": {"weight": p.evidence[1], "lines": p.evidence[2]},
                   "cells": [{**c.__dict__, "matches": c.matches,
                              "reasons": c.reasons(report.threshold) if c.matches else [c.why_not(report.threshold)]}
                             for c in p.cells]}
                  for p in report.pairs]}


def save_json(report: Report, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "similarity.json"
    path.write_text(json.dumps(to_json(report), indent=1), encoding="utf-8")
    return path


# ---- the page

def marked(answer: Answer, counted: set, course: set) -> str:
    """The submitted code of ``answer`` as HTML, numbered: the lines the fingerprints in ``counted`` come from
    marked, those only the course's fingerprints (``course``) come from marked apart."""
    mine, ours = answer.submitted_lines_of(counted), answer.submitted_lines_of(course)
    out = []
    for n, line in enumerate(answer.source.splitlines(), 1):
        text = f"<span class='n'>{n:3d}</span> {html.escape(line)}"
        out.append(f"<mark>{text}</mark>" if n in mine else f"<mark class='course'>{text}</mark>" if n in ours else text)
    return "\n".join(out)


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:90em}table{border-collapse:collapse}
td,th{border:1px solid #d0d7de;padding:.3em .6em;vertical-align:top;text-align:left}
pre{margin:0;white-space:pre-wrap;font-size:.85em}mark{background:#ffd8b5}mark.course{background:#dde7f3}
.pair{margin:1.5em 0;border-top:2px solid #d0d7de;padding-top:.5em}.side{width:50%}.quiet{color:#57606a}
.cell{margin:.8em 0 .3em}table.sbs{width:100%}.n{color:#8c959f;user-select:none}
table.story td{min-width:8em}.story-group{margin:1em 0 2em}"""


def _esc(text) -> str:
    return html.escape(str(text))


def _header(report: Report) -> list[str]:
    clusters = report.clusters()
    read = ", ".join(report.course_sources) or "nothing (no reference solution and no lesson was found)"
    return [f"<!doctype html><meta charset='utf-8'><title>Similarity: {_esc(report.assignment)}</title>"
            f"<style>{_STYLE}</style><h1>Answers that look alike: {_esc(report.assignment)}</h1>",
            f"<p>{report.students} students; {len(report.pairs)} pair{'s' * (len(report.pairs) != 1)} match in some "
            f"cell (score {report.threshold:g} or more: the share of the shorter answer's own part the two share, "
            f"each fingerprint weighted by how rare it is in the cohort; or {STRONG_SHARE * report.threshold:g} or "
            f"more with {STRONG:g} "
            f"of that weight on {MIN_STRONG_LINES} lines of their own; or together, cells that share {MIN_EVIDENCE:g} each "
            f"and {TOGETHER:g} between them; or in {CLOSEST_CELLS} cells or more where each of the two answers is "
            "the other's closest in the cohort; lines of their own are submitted lines; in a pair that matches, a cell "
            f"identical once normalised, scoring {report.threshold:g} on fewer lines, or where one answer is the "
            "other's closest, matches as support), "
            f"{len(clusters)} cluster"
            f"{'s' * (len(clusters) != 1)} of pairs matching in two cells or more. A pair is a reason to open the two "
            "notebooks, never a verdict.</p>",
            f"<p class='quiet'>The course's own code, whose lines never count towards a pair: {_esc(read)}. "
            "<mark>Marked</mark>: shared fingerprints that count; <mark class='course'>marked apart</mark>: "
            "the course's lines.</p>", *_not_normalised(report)]


def _not_normalised(report: Report) -> list[str]:
    failed = [a for a in report.answers.values() if a.not_normalised]
    if not failed:
        return []
    items = "".join(f"<li>{_esc(a.student)}, <code>{_esc(a.cell)}</code>: {_esc(a.not_normalised)}</li>" for a in failed)
    return [f"<p><strong>{len(failed)} answer{'s' * (len(failed) != 1)} could not be normalised</strong> (a fault of "
            "this report, not of the student's code) and were compared as written, line by line, which finds less: "
            f"</p><ul>{items}</ul>"]


def _cells_table(report: Report) -> list[str]:
    rows = ["<h2>Cells</h2><p class='quiet'>An answer of one statement is too short to tell alone: it is read "
            "only in a pair that matches in another cell.</p><table><tr><th>cell</th><th>answers compared</th>"
            "<th>too short to tell</th>"
            "<th>the course's answer</th><th>equal to the reference</th></tr>"]
    for cell, s in report.cells.items():
        rows.append(f"<tr><td><code>{_esc(cell)}</code></td><td>{len(s.compared)}</td><td>{len(s.too_short)}</td>"
                    f"<td>{len(s.course)}</td><td>{len(s.reference)}</td></tr>")
    return rows + ["</table>"]


def _course_answers(report: Report) -> list[str]:
    parts = ["<h2>Equal to the reference solution</h2><p>Counted whatever the cohort's size: handing in the "
             "reference is a fact to know, even when many did.</p>"]
    by_student: dict[str, dict[str, list[str]]] = {}
    for cell, summary in report.cells.items():
        for student, how in summary.reference.items():
            by_student.setdefault(student, {}).setdefault(how, []).append(cell)
    if not by_student:
        parts.append("<p>No answer equals the reference solution.</p>")
    else:
        parts.append("<table><tr><th>student</th><th>word for word</th><th>the same code once names, comments, "
                     "layout and the order of independent statements are set aside</th></tr>" + "".join(
                         f"<tr><td>{_esc(student)}</td>" + "".join(
                             f"<td>{', '.join(f'<code>{_esc(c)}</code>' for c in hows.get(how, []))}</td>"
                             for how in ("word for word", "same code")) + "</tr>"
                         for student, hows in sorted(by_student.items(), key=lambda x: (
                             -len(x[1].get("word for word", [])), -sum(map(len, x[1].values())), x[0]))) + "</table>")
    parts.append("<h2>The course's answer</h2><p>Answers that are the reference's or a lesson's code all but a "
                 "few fingerprints: written by many, or after <code>check.solution</code>; never a pair.</p><ul>")
    for cell, s in report.cells.items():
        if s.course:
            parts.append(f"<li><code>{_esc(cell)}</code>: {_course_label(report, cell)}: "
                         f"{_esc(', '.join(s.course))}</li>")
    return parts + ["</ul>"]


def _course_label(report: Report, cell: str) -> str:
    n = len(report.cells[cell].course)
    return f"the course's answer (written by {n} student{'s' * (n != 1)})"


def _clusters(report: Report) -> list[str]:
    clusters = report.clusters()
    parts = [f"<h2>Clusters ({len(clusters)})</h2><p>Students linked by pairs that match in two cells or more; "
             "the weakest link is the weakest pair that holds the group together.</p>"]
    if not clusters:
        parts.append("<p>No pair matches in two cells.</p>")
    items = []
    for group, weakest in clusters:
        n, mean = weakest.strength
        items.append(f"<li>{_esc(', '.join(group))} <span class='quiet'>(weakest link: {_esc(weakest.a)} and "
                     f"{_esc(weakest.b)}, {n} cells, mean score {mean:.2f})</span></li>")
    return parts + ["<ol>" + "".join(items) + "</ol>"]


def _pair_cell(report: Report, pair: Pair, m: CellMatch) -> str:
    a, b = report.answers[pair.a, m.cell], report.answers[pair.b, m.cell]
    if m.supports and m.identical:
        verdict = "matches as support: identical once normalised, in a pair that matches elsewhere"
    elif m.supports and m.closest and not (m.score >= report.threshold and m.counted >= SUPPORT_EVIDENCE):
        verdict = (f"matches as support: score {m.score:.2f}, "
                   + ("each answer the other's closest" if m.closest == "each" else "one answer the other's closest")
                   + " in the cohort, in a pair that matches elsewhere")
    elif m.nearest:
        verdict = (f"matches as one of {CLOSEST_CELLS} or more cells where each answer is the other's closest, score "
                   f"{m.score:.2f}")
    elif m.through:
        verdict = f"matches through {m.through}: each answer matches {m.through}'s, score {m.score:.2f}"
    elif m.supports:
        verdict = (f"matches as support: score {m.score:.2f} on {m.lines} line{'s' * (m.lines != 1)} of their own, in "
                   "a pair that matches elsewhere")
    elif m.together:
        verdict = f"matches together with the pair's other cells, score {m.score:.2f}"
    elif m.matches and m.score < report.threshold:
        verdict = f"matches on its evidence, score {m.score:.2f}"
    elif m.matches:
        verdict = f"matches, score {m.score:.2f}"
    elif a.is_course and b.is_course:
        verdict = f"{_course_label(report, m.cell)}: the course's code never counts"
    else:
        verdict = f"does not match: {m.why_not(report.threshold)}"
    shared = a.hashes & b.hashes
    course = shared & (a.course | b.course)
    counted = (shared - course) if m.matches else set()
    body = (f"<ul>{''.join(f'<li>{_esc(r)}</li>' for r in m.reasons(report.threshold))}</ul>" if m.matches else "")
    table = (f"<table class='sbs'><tr><th class='side'>{_esc(pair.a)} (as submitted)</th><th class='side'>"
             f"{_esc(pair.b)} (as submitted)</th></tr><tr><td><pre>{marked(a, counted, course)}</pre></td>"
             f"<td><pre>{marked(b, counted, course)}</pre></td></tr>"
             f"<tr><td><details><summary>normalised</summary><pre>{_esc(a.normal)}</pre></details></td>"
             f"<td><details><summary>normalised</summary><pre>{_esc(b.normal)}</pre></details></td></tr></table>")
    head = f"<code>{_esc(m.cell)}</code>: {_esc(verdict)}"
    if m.matches:
        return f"<h4 class='cell'>{head}</h4>{body}{table}"
    return f"<details class='cell'><summary>{head}</summary>{table}</details>"


def _figure(m: CellMatch) -> str:
    """A matching cell's figure on the page: its score, or, for a cell that matches as support only (its own
    fingerprints too few or too common to score), that it is identical; a support on a score, the score."""
    if m.supports:
        return "identical, support" if m.identical else f"{m.score:.2f}, support"
    return f"{m.score:.2f}"


def _by_student(report: Report) -> list[str]:
    """One table per group of linked students: who matches whom in which cell, so that a chain (A and B in
    some cells, B and C in others) or a merge (C and A in one cell, C and B in another) reads as one story."""
    parts = ["<h2 id='by-student'>By student</h2><p>Each group of students linked by a matching cell, and in each "
             "cell whom each matches. A student linked to two others in different cells took from both, or gave "
             "to both; a chain shows as links that share one student. Strongest links first.</p>"]
    stories = report.stories()
    if not stories:
        parts.append("<p>No pair matches in any cell.</p>")
    cells = list(report.cells)
    links = report.links()
    for n, group in enumerate(stories, 1):
        used = [c for c in cells if any(m.cell == c for s in group for _, ms in links[s] for m in ms)]
        rows = []
        for s in group:
            row = "".join("<td>" + ", ".join(f"{_esc(o)} <span class='quiet'>({_figure(m)})</span>"
                                             for o, ms in links[s] for m in ms if m.cell == c) + "</td>" for c in used)
            said = "; ".join(f"{_esc(o)} in {', '.join(_esc(m.cell) for m in ms)}" for o, ms in links[s])
            rows.append(f"<tr><th>{_esc(s)}</th>{row}<td class='quiet'>{said}</td></tr>")
        parts.append(f"<div class='story-group' id='group-{n}'><h3>Group {n}: {_esc(', '.join(group))}</h3>"
                     "<table class='story'><tr><th>student</th>"
                     + "".join(f"<th><code>{_esc(c)}</code></th>" for c in used)
                     + "<th>links, strongest first</th></tr>" + "".join(rows) + "</table></div>")
    return parts


def _pairs(report: Report) -> list[str]:
    parts = [f"<h2>Pairs ({len(report.pairs)})</h2><p>Ordered by the evidence: matching cells, then the weight "
             "they share that counts, then the lines of their own it covers.</p>"]
    for p in report.pairs:
        n, mean = p.strength
        _, weight, lines = p.evidence
        parts.append(f"<div class='pair'><h3>{_esc(p.a)} and {_esc(p.b)}: {n} matching cell{'s' * (n != 1)} of "
                     f"{len(p.cells)} both answered, mean score {mean:.2f}</h3><p class='quiet'>Evidence: shared "
                     f"weight {weight:g} on {lines} lines of their own.</p>")
        parts += [_pair_cell(report, p, m) for m in p.cells]
        parts.append("</div>")
    return parts


def _weak(report: Report) -> list[str]:
    if not report.weak:
        return []
    items = "".join(f"<li>{_esc(p.a)} and {_esc(p.b)}: <code>{_esc(m.cell)}</code> only, shared weight {m.counted:g} "
                    f"on {m.lines} lines, less than one cell must carry alone ({STRONG:g} on {2 * MIN_LINES} "
                    "lines)</li>"
                    for p in report.weak for m in p.matching)
    return [f"<h2>Not reported: one cell on little evidence ({len(report.weak)})</h2><ul>{items}</ul>"]


def write_report(report: Report, out_dir: Path) -> Path:
    """``similarity.html`` and ``similarity.json`` in ``out_dir``; the page's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    parts = (_header(report) + _cells_table(report) + _by_student(report) + _clusters(report) + _pairs(report)
             + _weak(report) + _course_answers(report))
    page = out_dir / "similarity.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    save_json(report, out_dir)
    return page
