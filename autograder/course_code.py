"""The course's own code is never a learner's answer: which code is a reference implementation, and a watch that
sees it run while a check runs.

A reference implementation is code that does a graded function's job for the checks or for the course's
developers: the owners' trace (:mod:`autograder.owners`), the checks' reference loops (``ref_step``,
``ref_evaluate``, ...), the bug catalogues and every other developer tool (:mod:`autograder.dev`), and the
reference answers the hint machinery reads (:func:`autograder.hints.reference_answer`).  A learner may read any
of it; an answer may not run it.

:class:`Watch` follows the calls (not the imports: ``sys.modules``, ``getattr``, ``importlib`` and ``exec``
reach the same code) with :func:`sys.setprofile` while one check runs.  It reports a reference when

* a reference's own code object runs and the nearest caller that is neither a library, a course tool nor a
  reference is the learner's code (or the learner's function itself, called by the check): the check's own
  calls of its reference loops are not the learner's;
* a copy of a reference runs, wherever it was called from: code compiled from the course's source (
  ``inspect.getsource`` then ``exec``, a file written from it), or from a reference answer the hint machinery
  or a catalogue handed out in this process, unless a notebook cell holds that code (a learner who read the
  answer after the hints and typed it in wrote a cell; a cohort's run could not tell that cell from the
  learner's own).

A check lends a reference on purpose when it judges one function on top of a correct version of another
(:func:`lend`); that reference is the check's, not the learner's.

The watch cannot see code that runs in another process, or C code; it stops the check when the learner's code
switched it off (``sys.setprofile``) while it ran.
"""

from __future__ import annotations

import _lsprof
import contextlib
import linecache
import os
import sys
import sysconfig
import threading
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_PACKAGE_DIR = str(_PACKAGE) + os.sep

#: Per module of the package: the top-level names that are reference implementations (``None``: the whole
#: module), and what to call them in a message.
REFERENCES: dict[str, tuple[tuple[str, ...] | None, str]] = {
    "autograder.owners": (None, "the owners' trace and predictor that grade trace_batch and predict_trace"),
    "autograder.checks._training": (("ref_step", "ref_epoch_losses", "ref_epoch", "ref_evaluate"),
                                    "a reference loop of the checks"),
    "autograder.checks.m01b_by_hand": (("_reference_gradients", "_reference_sgd_step"),
                                       "the checks' reference gradients and SGD step"),
    "autograder.checks.m04_five_line_step": (("reference_trace", "_kept_traces"), "the checks' reference trace"),
    "autograder.checks.m06_failure_modes": (("_ref_sweep",), "the checks' reference sweep"),
    "autograder.checks.m09_debug_a_real_run": (("_ref_cnn", "_ref_ce_epoch", "_reference_steps"),
                                               "a reference of the checks"),
    "autograder.hints": (("reference_answer", "local_reference", "published_reference", "_answer_in"),
                         "the hint machinery's reader of reference answers"),
    "autograder.dev": (None, "the course's developer tools (bug catalogues, mutants)"),
}
#: Course tools that a lesson uses and an exercise may not: ``{graded function: {module: (functions, what)}}``,
#: the functions by qualified name.  Building a Ledger is the use; its hooks also run for the checks' own Ledger,
#: whoever's code set off the step that calls them.
OFF_LIMITS_FOR: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "StepLedger": {"autograder.ledger": (("Ledger.__init__",),
                                         "the course's Ledger, which the checks judge StepLedger against")},
}


def _module_of(path: str) -> str | None:
    """``autograder.x.y`` for a file of the package; None for any other file."""
    if not path.startswith(_PACKAGE_DIR) or not path.endswith(".py"):
        return None
    parts = Path(path[len(_PACKAGE_DIR):-3]).parts
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    return ".".join(("autograder",) + parts)


#: Modules of :mod:`autograder.dev` that are instruments, not answers: they watch a learner's calls while a check
#: runs (the facts a message states are held to the run by them) and hand in nothing.
INSTRUMENTS = ("autograder.dev.catalogue.facts",)


def _reference(module: str, qualname: str, function: str) -> str | None:
    """What the top-level definition ``qualname`` of ``module`` is, when it is a reference (else None)."""
    if module in INSTRUMENTS:
        return None
    top = qualname.split(".", 1)[0]
    for prefix, (names, what) in REFERENCES.items():
        if (module == prefix or module.startswith(prefix + ".")) and (names is None or top in names):
            return f"`{module}.{top}` ({what})" if top != "<module>" else f"`{module}` ({what})"
    for prefix, (functions, what) in OFF_LIMITS_FOR.get(function, {}).items():
        if (module == prefix or module.startswith(prefix + ".")) and qualname in functions:
            return f"`{module}.{top}` ({what})"
    return None


_LIBRARY_DIRS = tuple({os.path.realpath(p) + os.sep for p in {sysconfig.get_paths()[k] for k in
                                                              ("stdlib", "platstdlib", "purelib", "platlib")}})


def _code_key(code) -> tuple:
    """What compiled code does, without where it was written (the same as :func:`autograder.core._code_key`)."""
    consts = tuple(_code_key(c) if hasattr(c, "co_code") else (type(c).__name__, repr(c)) for c in code.co_consts)
    return (code.co_name, code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_argcount, code.co_kwonlyargcount)


def _functions_in(code):
    """Every named function's code object compiled into ``code`` (nested ones and methods included), not ``code``
    itself.  A comprehension or a lambda is left out: one line such as ``{n: p.detach().clone() for ...}`` is
    anyone's code; a copied function is known by its own code, whose key holds theirs."""
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            if not const.co_name.startswith("<"):
                yield const
            yield from _functions_in(const)


# ---- copies: the keys of the references' code, and of the answers handed out

_package_keys: dict | None = None


def _reference_files():
    for module in REFERENCES:
        path = _PACKAGE.joinpath(*module.split(".")[1:])
        if path.is_dir():
            yield from ((p, _module_of(str(p))) for p in sorted(path.rglob("*.py")))
        elif path.with_suffix(".py").is_file():
            yield path.with_suffix(".py"), module


def package_keys() -> dict:
    """``{code key: description}`` of every reference function, compiled from the package's files (so that a
    copy is known whether or not its module was imported)."""
    global _package_keys
    if _package_keys is None:
        keys = {}
        for path, module in _reference_files():
            try:
                compiled = compile(path.read_text(), str(path), "exec")
            except (OSError, SyntaxError, ValueError):  # pragma: no cover - the package's own files
                continue
            for code in compiled.co_consts:
                if not hasattr(code, "co_code"):
                    continue
                what = _reference(module, code.co_qualname, "")
                if what is not None and not code.co_name.startswith("<"):
                    for each in (code, *_functions_in(code)):
                        keys.setdefault(_code_key(each), what)
        _package_keys = keys
    return _package_keys


#: Reference answers handed out in this process (by the hint machinery, a catalogue): ``[(source, origin)]``.
_handed_out: list[tuple[str, str]] = []
_text_keys: dict = {}
_catalogues_read: set = set()


def handed_out(source: str | None, origin: str) -> None:
    """Note that the course handed ``source`` (a reference answer) to a caller in this process."""
    if source:
        _handed_out.append((source, origin))


def _catalogue_answers():
    """The answers of every bug catalogue loaded in this process, and of the solutions they are built from."""
    if "autograder.dev.catalogue" not in sys.modules:  # every catalogue is a module of that package: none loaded
        return
    if "solutions" not in _catalogues_read:
        _catalogues_read.add("solutions")  # the catalogues' solution_of reads every answer there
        for path in sorted((_PACKAGE.parent / "solutions").glob("*/*.ipynb")):
            yield from _answers_of(path)
    for name, module in list(sys.modules.items()):
        if not name.startswith("autograder.dev.catalogue.") or name in _catalogues_read:
            continue
        _catalogues_read.add(name)
        for table in ("VARIANTS", "MUTANTS"):
            for entry in (getattr(module, table, None) or {}).values():
                answers = getattr(entry, "answers", entry)
                if isinstance(answers, dict):
                    yield from ((s, f"an answer of the bug catalogue `{name}`") for s in answers.values()
                                if isinstance(s, str))


def _answers_of(path):
    import nbformat

    from .cells import answer_cells

    try:
        nb = nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001 - a notebook that cannot be read hands nothing out
        return
    for cell in answer_cells(nb).values():  # nbgrader's markers are comments: the compiled code is the same
        yield cell.source, f"a reference answer of solutions/{path.parent.name}"


def text_keys(refresh: bool = True) -> dict:
    """``{code key: origin}`` of every function in the answers handed out so far (``refresh``: look for catalogues
    loaded since the last call as well)."""
    pending = _handed_out[:]
    del _handed_out[:]
    for source, origin in [*pending, *(_catalogue_answers() if refresh else ())]:
        try:
            compiled = compile(source, "<answer>", "exec")
        except (SyntaxError, ValueError):
            continue
        for code in _functions_in(compiled):
            _text_keys.setdefault(_code_key(code), origin)
    return _text_keys


def _in_a_cell(code) -> bool:
    """Whether ``code`` was compiled from a notebook cell: IPython keeps each cell's source in ``linecache``
    (with no modification time, as no file holds it) and the cell defines this function at its first line."""
    entry = linecache.cache.get(code.co_filename)
    if not entry or len(entry) != 4 or entry[1] is not None:
        return False
    lines = entry[2]
    first = code.co_firstlineno - 1
    return 0 <= first < len(lines) and code.co_name in "".join(lines[first:first + 3])


# ---- the watch

LIBRARY, TOOL, REFERENCE, GRADER, LEARNER, ENTRY, COPY = range(7)


class Watch:
    """While it is entered, records which code runs and who called it (the C profiler that :mod:`cProfile` uses:
    each call costs C time, not a Python callback, which matters under ``torch.compile``); then ``found``
    describes the first reference implementation the learner's code ran, or is None.  ``function`` is the
    graded function's name."""

    def __init__(self, function: str = ""):
        self.function = function
        self.found: str | None = None
        self.switched_off = False
        self.lent: set = set()
        self._kinds = _KINDS.setdefault(function, {})
        self._files = _FILES
        self._profilers: list = []

    # -- what a code object is
    def _file(self, filename: str) -> tuple:
        known = self._files.get(filename)
        if known is None:
            real = os.path.realpath(filename) if filename and not filename.startswith("<") else filename
            module = _module_of(real) if real else None
            if module is not None:
                known = (module,)
            elif real and real.startswith(_LIBRARY_DIRS) and _PACKAGE_DIR not in real and os.path.exists(real):
                known = (LIBRARY,)
            elif filename.startswith("<frozen "):
                known = (LIBRARY,)
            else:
                known = (None,)
            self._files[filename] = known
        return known

    def _kind(self, code) -> tuple:
        known = self._kinds.get(id(code))
        if known is not None and known[0] is code:
            return known[1]
        where = self._file(code.co_filename)[0]
        if where == LIBRARY:
            kind = (LIBRARY,)
        elif isinstance(where, str):
            what = _reference(where, code.co_qualname, self.function)
            if what is not None:
                kind = (REFERENCE, what)
            elif where == "autograder.core" and code.co_name == "call":
                kind = (ENTRY,)
            elif where == "autograder.core" or where.startswith("autograder.checks"):
                kind = (GRADER,)
            else:
                kind = (TOOL,)
        else:
            key = _code_key(code)
            what = package_keys().get(key)
            if what is None:
                origin = text_keys(refresh=False).get(key)
                if origin is not None and not _in_a_cell(code):
                    what = f"{origin}, run from code that no notebook cell holds"
            else:
                what = f"a copy of {what}"
            kind = (COPY, what) if what is not None else (LEARNER,)
        self._kinds[id(code)] = (code, kind)
        return kind

    # -- the run
    def _start(self, *_) -> None:
        """Profile the calling thread (threading.setprofile calls this once in each thread started meanwhile)."""
        profiler = _lsprof.Profiler(builtins=False, subcalls=True)
        self._profilers.append(profiler)
        profiler.enable()

    def __enter__(self):
        global _current
        self._outer, _current = _current, self
        self._previous = sys.getprofile()
        self._previous_threads = getattr(threading, "_profile_hook", None)
        threading.setprofile(self._start)
        self._start()
        return self

    def __exit__(self, *exc):
        global _current
        main = self._profilers[0]
        self.switched_off = sys.getprofile() is not main
        for profiler in self._profilers:
            profiler.disable()
        threading.setprofile(self._previous_threads)
        if self._previous is not None and not isinstance(self._previous, _lsprof.Profiler):
            sys.setprofile(self._previous)
        elif isinstance(self._previous, _lsprof.Profiler):
            self._previous.enable()  # an outer watch, or a cProfile run around the check, goes on
        _current = self._outer
        self.found = self._judge()
        if len(self._kinds) > 50_000:  # code compiled afresh at every call (exec) must not pile up
            self._kinds.clear()
        return False

    def _judge(self) -> str | None:
        global _known_texts
        if len(text_keys()) != _known_texts:  # answers handed out, or catalogues loaded, since: judge code afresh
            _known_texts = len(_text_keys)
            for kinds in _KINDS.values():
                kinds.clear()
        callers: dict = {}
        ran = []
        for profiler in self._profilers:
            for entry in profiler.getstats():
                if not hasattr(entry.code, "co_code"):
                    continue
                ran.append(entry.code)
                for sub in entry.calls or ():
                    if hasattr(sub.code, "co_code"):
                        callers.setdefault(id(sub.code), []).append(entry.code)
        for code in ran:
            kind = self._kind(code)
            if kind[0] == COPY:
                return kind[1]
        reached = []
        for code in ran:
            kind = self._kind(code)
            if kind[0] == REFERENCE and code not in self.lent:
                how = self._reached_by_learner(code, callers)
                if how is not None:
                    reached.append((how[0], kind[1] + how[1]))
        return min(reached)[1] if reached else None  # the reference nearest to the learner's code

    def _reached_by_learner(self, code, callers) -> tuple[int, str] | None:
        """``(calls between, how)`` the learner's code called ``code`` (through libraries, course tools and other
        references), or None when only the checks did."""
        level, seen = [code], {id(code)}
        for depth in range(1000):
            later = []
            for callee in level:
                for caller in callers.get(id(callee), ()):
                    if id(caller) in seen:
                        continue
                    seen.add(id(caller))
                    kind = self._kind(caller)[0]
                    if kind == LEARNER:
                        return depth, f", called from your `{caller.co_name}`"
                    if kind == ENTRY:
                        return depth, (f" is your `{self.function}` itself" if self.function else "")
                    if kind in (LIBRARY, TOOL) or (kind == REFERENCE and caller not in self.lent):
                        later.append(caller)
            if not later:
                return None
            level = later
        return None


#: What each code object is, per graded function (what is off limits depends on it), kept with the code object
#: (``{id: (code, kind)}``); what each file is.
_KINDS: dict[str, dict] = {}
_FILES: dict[str, tuple] = {}
_known_texts = 0

#: The watch of the check that runs now (None outside checks).
_current: Watch | None = None
@contextlib.contextmanager
def lend(reference):
    """``reference`` (a check's own correct function, put in place of a learner's helper) runs on the check's
    behalf in this check, even where the learner's code calls it."""
    if _current is not None:
        for fn in (reference, unwrap(reference)):  # a decorated reference (torch.no_grad) and the one inside
            code = getattr(fn, "__code__", None)
            if code is not None:
                _current.lent.add(code)
    yield


def unwrap(fn):
    """The function object behind ``fn`` (a ``functools.partial``, a bound method, a decorated function)."""
    for _ in range(10):
        inner = getattr(fn, "func", None) or getattr(fn, "__func__", None) or getattr(fn, "__wrapped__", None)
        if inner is None or inner is fn:
            return fn
        fn = inner
    return fn


class _Ran:
    codes: list = []


@contextlib.contextmanager
def calls():
    """The Python code that ran inside the block: ``ran.codes`` after it (from the check's watch when one runs, in
    every thread it watches, those the block started included; else from a profiler of the block's own).  A torch
    function mode can be switched off by the code it watches (``torch._C.DisableTorchFunction``), and it sees only
    its own thread; this record cannot be switched off, short of switching off the watch, which scores 0."""
    ran = _Ran()
    main = _current._profilers[0] if _current is not None and _current._profilers else None

    def counts(profiler) -> dict:
        return {id(e.code): (e.code, e.callcount) for e in profiler.getstats() if hasattr(e.code, "co_code")}

    if main is not None and sys.getprofile() is main:
        profilers = _current._profilers  # one per watched thread; a thread started in the block adds its own
        before = [counts(profiler) for profiler in profilers]
        try:
            yield ran
        finally:
            codes: dict = {}
            for at, profiler in enumerate(list(profilers)):
                prior = before[at] if at < len(before) else {}
                codes.update((key, code) for key, (code, n) in counts(profiler).items()
                             if n > prior.get(key, (None, 0))[1])
            ran.codes = list(codes.values())
        return
    own = _lsprof.Profiler(builtins=False, subcalls=False)
    own.enable()
    try:
        yield ran
    finally:
        own.disable()
        ran.codes = [code for code, _ in counts(own).values()]
