"""A corpus of hostile and broken submissions, built from an assignment's own notebooks.

Used by ``demo-cohort`` (a few of them) and by the test suite (all of them, graded in one
cohort run next to honest students).  Each case says what it attempts and what the
grading must make of it:

* ``graded``  – graded normally; ``same_as`` names the honest submission whose scores it
  must match exactly (the attack gained nothing and cost nothing else);
* ``failed``  – not gradable; scored zero with a readable reason containing ``reason``;
* ``compromised`` – the canary caught the kernel; scored zero and flagged.

Every process-spawning case is bounded; nothing here is an unbounded fork bomb.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..cells import nbgrader_meta
from . import nbtools


@dataclass
class Context:
    """What a case is built from."""

    solution: nbformat.NotebookNode  # the source notebook (answers and hidden tests)
    release: nbformat.NotebookNode  # the student copy
    course_root: Path  # the real course directory (attacks aim at it)
    assignment: str
    mutant: dict  # answers of one honest wrong submission (from the bug catalogue)
    mutant_test: str  # a test cell that mutant fails
    cell_timeout: int = 180  # the grading run's per-cell limit (the slow case sleeps just under it)


@dataclass
class Submission:
    """A notebook, or raw bytes, to place as a student's submission (``filename`` defaults to the assignment's)."""

    notebook: nbformat.NotebookNode | None = None
    raw: bytes | None = None
    filename: str | None = None


@dataclass
class HostileCase:
    name: str
    attempt: str
    expect: str  # graded | failed | compromised
    build: Callable[[Context], Submission]
    same_as: str = ""  # "solution", "blank" or "mutant"
    reason: str = ""  # expected in the failure reason, or in the grading notes / cell outputs
    flagged_by_scan: bool = False
    slow: bool = False  # waits for a timeout


def _answers(ctx: Context, function: str, extra: str, *, before: bool = False, base=None) -> nbformat.NotebookNode:
    """The solution (or ``base``) with ``extra`` code added to one answer cell."""
    nb = copy.deepcopy(base if base is not None else ctx.solution)
    cell = nbtools.answer_cells(nb)[function]
    cell.source = (extra.strip("\n") + "\n" + cell.source) if before else (cell.source + "\n" + extra.strip("\n"))
    return nb


def _first_function(ctx: Context) -> str:
    return next(iter(nbtools.answer_cells(ctx.solution)))


def _mutant(ctx: Context) -> nbformat.NotebookNode:
    return nbtools.substitute(ctx.solution, ctx.mutant)


def _edit_test(ctx: Context, edit) -> Submission:
    nb = _mutant(ctx)
    for i, cell in enumerate(nb.cells):
        if nbtools.grade_id(cell) == ctx.mutant_test:
            edit(nb, i, cell)
            break
    return Submission(nb)


def _infinite_loop(ctx):
    return Submission(_answers(ctx, _first_function(ctx), "while True:\n    pass"))


def _uninterruptible(ctx):
    code = ("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
            "while True:\n    print('still busy', flush=True)\n    time.sleep(1)")
    return Submission(_answers(ctx, _first_function(ctx), code))


def _slow_notebook(ctx):
    nb = copy.deepcopy(ctx.solution)
    pause = max(1, int(ctx.cell_timeout * 0.9))
    for cell in nbtools.answer_cells(nb).values():
        cell.source += f"\nimport time\ntime.sleep({pause})  # under the per-cell limit, every time"
    return Submission(nb)


def _os_exit(ctx):
    return Submission(_answers(ctx, _first_function(ctx), "import os\nos._exit(0)"))


def _segfault(ctx):
    return Submission(_answers(ctx, _first_function(ctx), "import ctypes\nctypes.string_at(0)"))


def _memory_bomb(ctx):
    code = "hog = []\nwhile True:\n    hog.append(bytearray(512 * 2**20))"
    return Submission(_answers(ctx, _first_function(ctx), code))


def _process_flood(ctx):
    code = '''
import os, time
children = 0
try:
    for _ in range(400):  # bounded: the process limit must stop it well before
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
except OSError as error:
    print(f"fork refused after {children} children: {error}")
'''
    return Submission(_answers(ctx, _first_function(ctx), code))


def _big_file(ctx):
    code = '''
try:
    with open("filler.bin", "wb") as fh:
        for _ in range(4096):
            fh.write(b"x" * 2**20)
except OSError as error:
    print(f"write refused: {error}")
'''
    return Submission(_answers(ctx, _first_function(ctx), code))


def _shared_memory_fill(ctx):
    code = '''
import os
for place in ("/dev/shm/filler.bin", "/dev/filler.bin"):
    try:
        with open(place, "wb") as fh:
            for _ in range(4096):
                fh.write(b"x" * 2**20)
        print(f"wrote 4 GiB to {place}")
    except OSError as error:
        print(f"{place}: write refused: {error.strerror}")
    finally:
        try:
            os.remove(place)
        except OSError:
            pass
'''
    return Submission(_answers(ctx, _first_function(ctx), code))


def _deleted_tests(ctx):
    return _edit_test(ctx, lambda nb, i, cell: nb.cells.pop(i))


def _moved_tests(ctx):
    def edit(nb, i, cell):
        nb.cells.insert(0, nb.cells.pop(i))  # the failing test first, before anything it needs
    return _edit_test(ctx, edit)


def _duplicated_tests(ctx):
    return _edit_test(ctx, lambda nb, i, cell: nb.cells.insert(i + 1, copy.deepcopy(cell)))


def _lost_metadata(ctx):
    nb = _mutant(ctx)  # pasted into a fresh notebook: every cell's nbgrader metadata gone
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    return Submission(nb)


def _edited_tests(ctx):
    def edit(nb, i, cell):
        cell.source = "pass  # nothing to check here"
    return _edit_test(ctx, edit)


def _edited_metadata(ctx):
    def edit(nb, i, cell):
        cell.metadata["nbgrader"].update(grade=False, points=0, locked=False)
        # and turn another test into an "answer" cell
        for other in nb.cells:
            meta = nbgrader_meta(other)
            if meta.get("grade") and meta.get("grade_id") != ctx.mutant_test:
                meta.update(solution=True, locked=False)
                break
    return _edit_test(ctx, edit)


def _corrupt_json(ctx):
    text = nbformat.writes(ctx.solution)
    return Submission(raw=text[: len(text) // 2].encode())


def _nested_json(ctx):
    nb = copy.deepcopy(ctx.solution)
    nb.metadata["mine"] = "DEPTH"  # a metadata value nested 100,000 lists deep
    return Submission(raw=nbformat.writes(nb).replace('"DEPTH"', "[" * 100_000 + "]" * 100_000).encode())


def _nested_readable(ctx):
    nb = copy.deepcopy(ctx.solution)
    nb.metadata["mine"] = "DEPTH"  # nested past what a notebook reader reads, short of what a JSON reader does
    return Submission(raw=nbformat.writes(nb).replace('"DEPTH"', "[" * 550 + "]" * 550).encode())


def _huge_number(ctx):
    nb = copy.deepcopy(ctx.solution)
    nb.metadata["mine"] = "DIGITS"  # an integer of 5,000 digits, past what Python reads by default
    return Submission(raw=nbformat.writes(nb).replace('"DIGITS"', "1" * 5000).encode())


def _empty_file(ctx):
    return Submission(raw=b"")


def _wrong_name(ctx):
    return Submission(copy.deepcopy(ctx.solution), filename="my-notebook.ipynb")


def _always_equal(ctx):
    fn = "pairwise_sq_dists" if "pairwise_sq_dists" in nbtools.answer_cells(ctx.solution) else _first_function(ctx)
    code = f'''
class _Anything(torch.Tensor):
    def __eq__(self, other):
        return True
    def __bool__(self):
        return True
def {fn}(*args, **kwargs):
    return torch.zeros(3, 3).as_subclass(_Anything)
'''
    return Submission(nbtools.substitute(ctx.release, {fn: code}))


def _monkeypatched_check(ctx):
    code = '''
import sys
for name, module in list(sys.modules.items()):
    if name.startswith("autograder.checks."):
        for attr in dir(module):
            if not attr.startswith("_") and callable(getattr(module, attr)) and hasattr(getattr(module, attr), "raw"):
                setattr(module, attr, lambda *args, **kwargs: None)
'''
    return Submission(_answers(ctx, _first_function(ctx), code, base=ctx.release))


def _input_transformer(ctx):
    code = '''
def _quiet(lines):
    return ["pass\\n"] if any(line.lstrip().startswith("check.") for line in lines) else lines
get_ipython().input_transformers_cleanup.append(_quiet)
'''
    return Submission(_answers(ctx, _first_function(ctx), code, base=ctx.release))


def _gradebook_write(ctx):
    root = str(ctx.course_root)
    code = f'''
import os, sqlite3
found = []
for base in [{root!r}, os.getcwd(), "/", "/home", "/tmp", "/work"]:
    for up in ["", "..", "../..", "../../.."]:
        path = os.path.normpath(os.path.join(base, up, "gradebook.db"))
        if os.path.exists(path):
            found.append(path)
for path in found:
    db = sqlite3.connect(path)
    db.execute("UPDATE grade SET auto_score = 100")
    db.commit()
print("gradebooks reached:", found or "none")
'''
    return Submission(_answers(ctx, _first_function(ctx), code))


def _read_solutions(ctx):
    root = str(ctx.course_root)
    code = f'''
import json, os
stolen = None
for path in [os.path.join({root!r}, "solutions", {ctx.assignment!r}, {ctx.assignment + ".ipynb"!r}),
             os.path.join("..", "..", "..", "solutions", {ctx.assignment!r}, {ctx.assignment + ".ipynb"!r}),
             {ctx.assignment + ".ipynb"!r}]:
    try:
        with open(path) as fh:
            stolen = json.load(fh)
        break
    except OSError as error:
        print("not readable:", path, type(error).__name__)
if stolen:
    for cell in stolen["cells"]:
        if cell.get("metadata", {{}}).get("nbgrader", {{}}).get("solution"):
            exec("".join(cell["source"]))
print("solutions stolen:", bool(stolen))
'''
    return Submission(_answers(ctx, _first_function(ctx), code, base=ctx.release))


def _output_flood(ctx):
    code = '''
from IPython.display import Image, display
for _ in range(24):
    print("x" * (1 << 20))  # 24 MB on stdout
display(Image(data=b"\\x89PNG\\r\\n\\x1a\\n" + bytes(12 << 20)))  # and a 12 MB "image"
'''
    return Submission(_answers(ctx, _first_function(ctx), code))


def _network(ctx):
    code = '''
import socket
try:
    socket.create_connection(("1.1.1.1", 53), timeout=3)
    print("network: reached the outside")
except OSError as error:
    print("network refused:", error)
'''
    return Submission(_answers(ctx, _first_function(ctx), code))


def _too_deep(ctx):
    nb = copy.deepcopy(ctx.solution)  # a cell of the student's own: a sum too deep for a walk of its tree
    # (under %%time the kernel reads it as the magic's text and fails it at once: a bare cell this deep makes the
    # kernel's message handler fail without a reply, so that the cell waits out its timeout)
    nb.cells.append(nbtools.code("%%time\ny = " + " + ".join(["1"] * 3000)))
    return Submission(nb)


CASES: list[HostileCase] = [
    HostileCase("infinite-loop", "an answer cell that never ends", "graded", _infinite_loop, same_as="solution",
                reason="per-cell time limit", slow=True),
    HostileCase("uninterruptible-loop", "an endless, chatty loop that ignores interrupts", "failed", _uninterruptible,
                reason="did not stop when interrupted", flagged_by_scan=True, slow=True),
    HostileCase("slow-notebook", "every answer cell sleeps just under the per-cell limit", "failed",
                _slow_notebook, reason="wall-clock limit", slow=True),
    HostileCase("os-exit", "os._exit(0) in an answer cell", "failed", _os_exit, reason="os._exit",
                flagged_by_scan=True),
    HostileCase("segfault", "a segmentation fault through ctypes", "failed", _segfault, reason="SIGSEGV",
                flagged_by_scan=True),
    HostileCase("memory-bomb", "allocates memory until something gives", "graded", _memory_bomb,
                same_as="solution", reason="MemoryError"),
    HostileCase("process-flood", "forks up to 400 sleeping children (bounded)", "graded", _process_flood,
                same_as="solution", reason="fork refused after", flagged_by_scan=True),
    HostileCase("big-file", "writes a 4 GiB file", "graded", _big_file, same_as="solution", reason="write refused"),
    HostileCase("shared-memory-fill", "writes 4 GiB into /dev/shm and into /dev, which live in memory", "graded",
                _shared_memory_fill, same_as="solution", reason="/dev/shm/filler.bin: write refused"),
    HostileCase("deleted-test-cell", "deletes the test cell its wrong answer fails", "graded", _deleted_tests,
                same_as="mutant", reason="deleted test cell"),
    HostileCase("moved-test-cell", "moves the test cell its wrong answer fails to the top", "graded", _moved_tests,
                same_as="mutant", reason="moved cells"),
    HostileCase("duplicated-test-cell", "duplicates the test cell its wrong answer fails", "graded",
                _duplicated_tests, same_as="mutant", reason="duplicated cell"),
    HostileCase("lost-metadata", "every cell's nbgrader metadata gone (pasted into a fresh notebook)", "graded",
                _lost_metadata, same_as="mutant", reason="lost the nbgrader metadata"),
    HostileCase("edited-test-cell", "replaces the failing test cell's code with `pass`", "graded", _edited_tests,
                same_as="mutant", reason="edited locked cell"),
    HostileCase("edited-metadata", "marks the failing test ungraded (0 points) and another test an answer cell",
                "graded", _edited_metadata, same_as="mutant", reason="edited nbgrader metadata"),
    HostileCase("corrupt-json", "a truncated notebook file", "failed", _corrupt_json, reason="not valid JSON"),
    HostileCase("empty-file", "an empty notebook file", "failed", _empty_file, reason="empty"),
    HostileCase("nested-json", "a metadata value nested 100,000 lists deep", "failed", _nested_json,
                reason="nests its JSON deeper"),
    HostileCase("nested-metadata", "a metadata value nested 550 lists deep (valid JSON, past a notebook reader)",
                "failed", _nested_readable, reason="not a Jupyter notebook (RecursionError"),
    HostileCase("huge-number", "a metadata value that is an integer of 5,000 digits", "failed", _huge_number,
                reason="JSON Python cannot read"),
    HostileCase("wrong-name", "the notebook saved under another name", "failed", _wrong_name,
                reason="my-notebook.ipynb"),
    HostileCase("always-equal", "returns a tensor subclass that compares equal to anything", "graded", _always_equal,
                same_as="", flagged_by_scan=True),
    HostileCase("monkeypatched-check", "replaces every check function with one that passes", "compromised",
                _monkeypatched_check, flagged_by_scan=True),
    HostileCase("input-transformer", "an IPython input transformer that turns test cells into `pass`",
                "compromised", _input_transformer, flagged_by_scan=True),
    HostileCase("gradebook-write", "looks for gradebook.db and sets every score to 100", "graded",
                _gradebook_write, same_as="solution", reason="gradebooks reached: none", flagged_by_scan=True),
    HostileCase("read-solutions", "reads solutions/ and runs the instructor's answers", "graded", _read_solutions,
                same_as="blank", reason="solutions stolen: False", flagged_by_scan=True),
    HostileCase("network", "opens a connection to the internet", "graded", _network, same_as="solution",
                reason="network refused", flagged_by_scan=True),
    HostileCase("output-flood", "prints 24 MB and displays a 12 MB image", "graded", _output_flood,
                same_as="solution", reason="cut by the grader"),
    HostileCase("too-deep", "a cell of its own nested deeper than the scan walks (a sum of 3,000 terms)", "graded",
                _too_deep, same_as="solution", flagged_by_scan=True),
]


def build(case: HostileCase, ctx: Context) -> Submission:
    return case.build(ctx)


def place(submission: Submission, folder: Path, assignment: str) -> Path:
    """Write a submission into ``folder`` (``submitted/STUDENT/ASSIGNMENT`` or an LMS download folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (submission.filename or f"{assignment}.ipynb")
    if submission.raw is not None:
        path.write_bytes(submission.raw)
    else:
        nbformat.write(submission.notebook, str(path))
    return path
