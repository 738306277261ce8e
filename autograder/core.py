"""Outcomes, learner messages and the ``graded`` decorator every check uses.

A check is a plain function that calls the learner's code through :func:`call`
and reports a wrong result with :func:`fail`, naming it with a diagnosis code from
:mod:`autograder.diagnoses`.  The decorator turns what happened into one of three
outcomes (:class:`~autograder.outcome.Outcome`) and shows it:

* ``correct``        – the check ran to the end;
* ``incorrect``      – :func:`fail` was called, or the learner's code raised;
* ``not attempted``  – the learner's function is still nbgrader's stub.

Messages always have the same shape: what was seen, which owner held the wrong
state, what to do.  They never contain the answer.  An outcome other than
``correct`` raises :class:`CheckFailed` (an ``AssertionError``) so that nbgrader
scores the test cell as failed; the grader's own traceback is never shown.

In a notebook a result is one output: its coloured line (``text/html``), its text
(``text/plain``) and its fields as data (:data:`~autograder.outcome.RESULT_MIME`), which
the cohort tools read instead of the message text.
"""

from __future__ import annotations

import contextlib
import functools
import html
import io
import logging
import os
import re
import reprlib
import sys
import sysconfig
import warnings
from dataclasses import dataclass, field

import torch

from .diagnoses import UnknownDiagnosis, require
from .outcome import COLOURS, RESULT_MIME, Outcome, ResultData

CORRECT = Outcome.CORRECT
INCORRECT = Outcome.INCORRECT
NOT_ATTEMPTED = Outcome.NOT_ATTEMPTED
SKIPPED = Outcome.SKIPPED

#: Called with every result a check shows and the check's module; the checks' package subscribes the
#: learner's progress file here once (:func:`autograder.progress.subscribe`).
RESULT_LISTENERS: list = []

class NotAttempted(Exception):
    """The learner's function is still the ``raise NotImplementedError()`` stub (or a repair task's
    starter code, unchanged)."""


class Incorrect(Exception):
    """A check saw something wrong.  Carries the three parts of a learner message and a registered
    diagnosis code (:class:`~autograder.diagnoses.UnknownDiagnosis` for any other)."""

    def __init__(self, seen: str, owner: str, do: str, *, code: str):
        super().__init__(seen)
        self.seen, self.owner, self.do, self.code = seen, owner, do, require(code)


class LearnerRaised(Exception):
    """The learner's code raised while a check called it (``name``: the function the check called)."""

    def __init__(self, call_text: str, error: BaseException, name: str = ""):
        super().__init__(call_text)
        self.call_text, self.error, self.name = call_text, error, name


class CheckFailed(AssertionError):
    """Raised out of a test cell so that nbgrader scores it as failed."""

    def __init__(self, result: Result):
        super().__init__(result.text())
        self.result = result


@dataclass
class Result:
    function: str
    part: str
    outcome: Outcome
    seen: str = ""
    owner: str = ""
    do: str = ""  # what to do: the third part of a learner message
    code: str = ""  # a diagnosis code from autograder.diagnoses, used by cohort reports
    title: str = ""  # what this part checks, from the check's docstring
    notes: list[str] = field(default_factory=list)

    def message(self) -> str:
        if self.outcome == CORRECT:
            extra = f" ({'; '.join(self.notes)})" if self.notes else ""
            return f"{self.title or self.part} — passed{extra}."
        if self.outcome == NOT_ATTEMPTED:
            return self.seen
        if self.outcome == SKIPPED:
            return self.seen
        return f"Seen: {self.seen} Owner: {self.owner} Do: {self.do}"

    def text(self) -> str:
        return f"[{self.outcome}] {self.function} — {self.message()}"

    def html(self) -> str:
        colour = COLOURS[self.outcome]
        label = html.escape(f"{self.outcome}")
        body = html.escape(self.message())
        return (
            f'<div class="autograder-result autograder-{self.outcome.replace(" ", "-")}" '
            f'style="font-family: sans-serif; padding: 2px 0">'
            f'<span style="background:{colour};color:white;border-radius:3px;'
            f'padding:1px 6px;font-weight:bold">{label}</span> '
            f"<code>{html.escape(self.function)}</code> — {body}</div>"
        )

    def data(self) -> ResultData:
        """The result's fields, as the instructor tools read them from a notebook's outputs."""
        return ResultData(self.function, self.part, str(self.outcome), self.code, self.seen, self.owner, self.do,
                          self.text())

    def mimebundle(self) -> dict:
        """One output's data: JupyterLab shows the coloured line and ignores the data it has no renderer for."""
        return {"text/html": self.html(), "text/plain": self.text(), RESULT_MIME: self.data().as_dict()}

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:  # pragma: no cover - notebook display
        return self.mimebundle()


# --------------------------------------------------------------------------
# Calling learner code


_short = reprlib.Repr()
_short.maxstring = 40
_short.maxother = 40


def describe(value) -> str:
    """A short, learner-readable description of a value (tensors by contract, not data)."""
    if isinstance(value, torch.Tensor):
        kind = "" if type(value) in (torch.Tensor, torch.nn.Parameter) else f"{type(value).__name__} "
        shape = list(value.shape)
        return f"{kind}tensor {str(value.dtype).replace('torch.', '')} {shape} on {value.device}"
    if isinstance(value, torch.nn.Module):
        return f"{type(value).__name__}()"
    if isinstance(value, torch.Generator):
        return "a torch.Generator"
    if isinstance(value, (tuple, list)) and len(value) <= 4:
        inner = ", ".join(describe(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, (int, float, str, bool, type(None))):
        return _short.repr(value)
    return f"a {type(value).__name__}"


def call_text(fn, args, kwargs) -> str:
    name = getattr(fn, "__name__", "your function")
    parts = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def call(fn, *args, **kwargs):
    """Call the learner's ``fn``; translate its exceptions for the learner."""
    __tracebackhide__ = True
    if not callable(fn):
        raise Incorrect(
            f"the name you were asked to define is bound to {describe(fn)}, not a function.",
            "the notebook's namespace holds that name.",
            "define it with `def` (or `class`) in its answer cell and run that cell again.",
            code="not_callable",
        )
    name = getattr(fn, "__name__", "")
    name = name if name.isidentifier() and name != "<lambda>" else ""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError as error:
        if not str(error):
            raise NotAttempted() from None
        raise LearnerRaised(call_text(fn, args, kwargs), error, name) from None
    except (Incorrect, NotAttempted, LearnerRaised, UnknownDiagnosis):
        raise
    except Exception as error:  # noqa: BLE001 - any learner error becomes a message
        raise LearnerRaised(call_text(fn, args, kwargs), error, name) from None


def fail(seen: str, owner: str, do: str, *, code: str) -> None:
    """Report a wrong result: what was seen, which owner held the wrong state, what to do, and its diagnosis."""
    raise Incorrect(seen, owner, do, code=code)


def job_not_done(seen: str, credited: str, owner: str, do: str) -> None:
    """Fail a check of a property that a function which does nothing has too (it left the caller's tensor,
    the mode or the gradients alone...): ``seen`` says what the call did not do, ``credited`` names the
    property, which is credited only when the call did its job."""
    fail(f"{seen} This check credits {credited} only in a call that did its job.", owner, do, code="did_nothing")


# --------------------------------------------------------------------------
# Showing results


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython() if hasattr(shell, "get_ipython") else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def show(result: Result) -> None:
    """In a notebook, one output with the result's line and data; elsewhere its text."""
    if _in_notebook():
        from IPython.display import display

        display(result.mimebundle(), raw=True)
        _install_short_tracebacks()
    else:
        print(result.text())


_short_tb_installed = False


def _install_short_tracebacks() -> None:
    """Show a failed check as one short line under its result, not as the grader's traceback, and not as the
    result's message a second time."""
    global _short_tb_installed
    if _short_tb_installed:
        return
    from IPython import get_ipython

    ip = get_ipython()
    if ip is None:
        return

    ip.set_custom_exc((CheckFailed,), short_traceback)
    _short_tb_installed = True


def short_traceback(shell, etype, value, tb, tb_offset=None):
    """IPython's handler for :class:`CheckFailed`: the result's line above already holds the message, so the error
    says only that the cell lost its points (its evalue keeps the whole text, for tools that read the outputs)."""
    result = getattr(value, "result", None)
    short = (f"[{result.outcome}] {result.function}: this cell lost its points; the line above says why."
             if isinstance(result, Result) else str(value))
    stb = [f"{etype.__name__}: {short}"]
    shell._showtraceback(etype, value, stb)  # IPython leaves the showing to the handler
    return stb


# --------------------------------------------------------------------------
# The decorator


def _code_key(code) -> tuple:
    """What a function's compiled code does, without where it was written (line numbers, file name)."""
    consts = tuple(_code_key(c) if hasattr(c, "co_code") else (type(c).__name__, repr(c)) for c in code.co_consts)
    return (code.co_name, code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_argcount, code.co_kwonlyargcount)


def same_code(fn, source: str) -> bool:
    """Whether ``fn`` is the function that ``source`` defines, unchanged (comments and blank lines aside).

    Compares compiled code, not text, so that a function defined in a notebook cell, in a file or by
    ``exec`` is recognised alike, and re-indenting or adding a comment is not mistaken for a repair.
    """
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    try:
        module = compile(source, "<starter>", "exec")
    except SyntaxError:  # pragma: no cover - a starter is the course's own code
        return False
    wanted = [c for c in module.co_consts if hasattr(c, "co_code") and c.co_name == code.co_name]
    return any(_code_key(c) == _code_key(code) for c in wanted)


def graded(function: str, *, starter: str | None = None):
    """Mark a check of the learner's ``function``; the check's name is the part.

    ``starter``: for a repair task, the code the answer cell was released with; a function that is
    still that code is *not attempted*.
    """

    def wrap(check):
        part = check.__name__
        title = (check.__doc__ or "").strip().splitlines()[0].rstrip(".") if check.__doc__ else ""

        @functools.wraps(check)
        def run(*args, **kwargs):
            __tracebackhide__ = True
            if starter is not None and args and same_code(args[0], starter):
                result = Result(function, part, NOT_ATTEMPTED, code="not_attempted",
                                seen=f"`{function}` is still the code you were given: not attempted yet. "
                                "Find what is wrong with it, repair it in its answer cell, run that cell, "
                                "then run this check again.")
            else:
                with one_intra_op_thread():
                    result = evaluate(check, function, part, args, kwargs)
            result.title = title
            show(result)
            for listener in RESULT_LISTENERS:
                try:
                    listener(result, check.__module__)
                except Exception:  # noqa: BLE001 - progress must never break a check
                    pass
            if result.outcome in (INCORRECT, NOT_ATTEMPTED):
                raise CheckFailed(result) from None

        run.function = function
        run.part = part
        run.raw = check
        return run

    return wrap


@contextlib.contextmanager
def one_intra_op_thread():
    """Run a check, and the learner's code it calls, on one intra-op thread, then give the learner's setting back.
    The checks' models are tiny: with a second thread every small operation pays to hand work over and to wait
    (module 09's repaired run: 3.3 s of wall time on two threads, 0.9 s on one, on this course's two-core
    machine), while a grading kernel already runs on one."""
    before = torch.get_num_threads()
    if before == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


#: Where a library's code lives: installed packages and Python's standard library (a warning that a library
#: raises inside the learner's call is shown there, for example deprecated pytree code in copyreg.py).
_LIBRARY_DIRS = tuple({os.path.realpath(p) + os.sep for p in (sysconfig.get_paths()["stdlib"],
                                                               sysconfig.get_paths()["platstdlib"])})


def _learners(filename: str | None) -> bool:
    """Whether a warning was raised from the learner's code rather than from a library's."""
    if not filename or filename.startswith("<frozen ") or "site-packages" in filename:
        return False
    return not os.path.realpath(filename).startswith(_LIBRARY_DIRS)


class _DropLibraryProgress(io.TextIOBase):
    """Standard output as the learner's code writes it, less a library's progress lines (the ONNX exporter
    prints one per stage): those belong to no answer and would read as part of the check's result."""

    PREFIXES = ("[torch.onnx]",)

    def __init__(self, target):
        super().__init__()
        self.target = target
        self.pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            if not line.lstrip().startswith(self.PREFIXES):
                self.target.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def end(self) -> None:
        if self.pending and not self.pending.lstrip().startswith(self.PREFIXES):
            self.target.write(self.pending)
        self.pending = ""


@contextlib.contextmanager
def _quiet(notes: list[str]):
    """Keep warnings, log records and stray stderr writes out of the test cell's output.

    nbgrader scores a test cell that wrote anything to stderr as failed, so a library's
    warning (an exporter's progress log, a deprecation) must not cost a correct answer
    its points.  The first warning is passed on to the learner as a note instead.
    """
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    progress = _DropLibraryProgress(sys.stdout)
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(io.StringIO()), \
                contextlib.redirect_stdout(progress):
            warnings.simplefilter("always")
            yield
    finally:
        progress.end()
        logging.disable(previous)
        own = [w for w in caught if _learners(w.filename)]
        if own:
            first = own[0]
            notes.append(f"your code warned: {first.category.__name__}: {_first_line(first.message)}")


#: Learner functions that ran the course's own code in a check of this process: ``{id: (function, what ran)}``;
#: every later check of the same function object scores 0 too.
_RAN_COURSE_CODE: dict[int, tuple] = {}


def _course_code_result(function: str, part: str, what: str) -> Result:
    return Result(
        function, part, INCORRECT,
        seen=f"while your `{function}` ran, the course's own code ran in it: {what}.",
        owner=f"your `{function}`: it hands in a reference implementation of the course, which is never an answer, "
        f"so every check of `{function}` scores 0 while it does.",
        do="write it yourself from the lesson. An answer may read the course's code but not run its references: "
        "autograder.owners, the checks' reference loops (ref_step, ref_evaluate, ...), autograder.dev, or a "
        "reference answer read through the hints (as the exercise's first cell says).",
        code="course_code",
    )


def evaluate(check, function: str, part: str, args, kwargs) -> Result:
    """Run one check and classify what happened, watching which code runs (:mod:`autograder.course_code`): a
    learner function that runs a reference implementation of the course scores 0.  Never raises for learner
    behaviour."""
    from . import course_code

    learner = args[0] if args else None
    ran = _RAN_COURSE_CODE.get(id(learner))
    if ran is not None and ran[0] is learner:
        return _course_code_result(function, part, ran[1])
    watch = course_code.Watch(function)
    code = getattr(course_code.unwrap(learner), "__code__", None)
    kind = watch._kind(code) if hasattr(code, "co_code") else (None,)
    if kind[0] in (course_code.REFERENCE, course_code.COPY):
        found = kind[1] if kind[0] == course_code.COPY else f"{kind[1]} is your `{function}` itself"
        _RAN_COURSE_CODE[id(learner)] = (learner, found)
        return _course_code_result(function, part, found)
    with watch:
        result = _evaluate(check, function, part, args, kwargs)
    if watch.found is None and watch.switched_off:
        return Result(
            function, part, INCORRECT,
            seen=f"while your `{function}` ran, the watch of which code runs was switched off: sys.setprofile was "
            "called, or a profiler that records Python calls took its place (cProfile, torch.profiler with "
            "with_stack=True). What ran after that is unknown, so the check cannot rule out the course's own code.",
            owner=f"your `{function}`: the watch is the check's, and an answer must leave it running.",
            do="profile without with_stack (the lesson's torch.profiler call) and leave sys.setprofile alone.",
            code="course_code",
        )
    found = watch.found
    if found is None:
        return result
    if learner is not None:
        _RAN_COURSE_CODE[id(learner)] = (learner, found)
    return _course_code_result(function, part, found)


def _evaluate(check, function: str, part: str, args, kwargs) -> Result:
    notes: list[str] = []
    try:
        with _quiet(notes):
            skipped = check(*args, notes=notes, **kwargs)
    except NotAttempted:
        return Result(
            function,
            part,
            NOT_ATTEMPTED,
            seen=f"`{function}` still raises NotImplementedError: not attempted yet. "
            "Write your solution in its answer cell, run that cell, then run this check again.",
            code="not_attempted",
        )
    except Incorrect as bad:
        return Result(function, part, INCORRECT, bad.seen, bad.owner, bad.do, bad.code)
    except LearnerRaised as raised:
        return _learner_raised(raised, function, part)
    except UnknownDiagnosis:
        raise
    except RecursionError:
        return Result(
            function, part, INCORRECT,
            seen="the check hit Python's recursion limit while running your code.",
            owner=f"your `{function}` (or something it calls) calls itself without end.",
            do="look for a function that calls itself or a property that reads itself.",
            code="recursion",
        )
    except Exception as error:  # noqa: BLE001 - a return value the check could not read
        return _unreadable(error, function, part)
    if isinstance(skipped, str):
        return Result(function, part, SKIPPED, seen=skipped)
    return Result(function, part, CORRECT, notes=notes)


def _learner_raised(raised: LearnerRaised, function: str, part: str) -> Result:
    """The learner's code raised: a CUDA-only call without CUDA, a lazy module used too early, or any error."""
    err = raised.error
    if _cuda_only(err):
        return Result(
            function, part, INCORRECT,
            seen=f"calling {raised.call_text} raised {type(err).__name__}: {error_text(err)}: a CUDA-only API "
            "(torch.cuda events, synchronize, .cuda()) ran on a machine with no CUDA device.",
            owner=f"your `{raised.name or function}`: it reached for CUDA whatever device its inputs were on.",
            do="use CUDA calls only when the tensors are on a CUDA device (x.is_cuda), and a plain Python "
            "clock or the inputs' own device otherwise.",
            code="cuda_only_api",
        )
    if _lazy(err):
        return Result(
            function, part, INCORRECT,
            seen=f"calling {raised.call_text} raised {type(err).__name__}: {error_text(err)}.",
            owner=_LAZY_OWNER.format(function=raised.name or function),
            do=_LAZY_DO,
            code="lazy_parameters",
        )
    line = learner_line(err)
    cause = usual_cause(err)
    return Result(
        function,
        part,
        INCORRECT,
        seen=f"calling {raised.call_text} raised {type(err).__name__}: {error_text(err)}"
        + (f", at {line}." if line else "."),
        owner=f"your `{raised.name or function}` raised it, not the grader." + (f" {cause}" if cause else ""),
        do="call it yourself with the same kind of arguments, read the error, and fix "
        + ("that line." if line else "the line it points to."),
        code="raised",
    )


#: The grader's own code: a frame there is never the learner's line.
_GRADER_DIR = os.path.dirname(os.path.realpath(__file__)) + os.sep


def learner_line(error: BaseException) -> str:
    """Where in the learner's own code ``error`` was raised (the innermost such frame of its traceback), as
    "line N of its cell, in `function`: `source`" (the line numbered as the notebook numbers a cell's lines);
    '' when no frame is the learner's."""
    import linecache
    import traceback

    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if _learners(f.filename) and not os.path.realpath(f.filename).startswith(_GRADER_DIR)]
    if not frames:
        return ""
    frame = frames[-1]
    text = (frame.line or linecache.getline(frame.filename, frame.lineno or 0)).strip()
    named = [f.name for f in frames if not f.name.startswith("<")]  # a comprehension's frame is its function's
    where = f"line {frame.lineno} of its cell" + (f", in `{named[-1]}`" if named else "")
    return f"{where}: `{_clip(text, 120)}`" if text else where


#: (what a PyTorch error says, the mistake that usually causes it): named in the message of any learner
#: function that raised it, so that every module explains a common error as well as the one that meets it most.
_USUAL_CAUSES = (
    ("does not require grad and does not have a grad_fn",
     "This error usually means the loss holds no graph: it was computed under torch.no_grad() or "
     "torch.inference_mode() (a training forward must record), from detached tensors, or from parameters with "
     "requires_grad=False."),
    ("Boolean value of Tensor with more than one value is ambiguous",
     "This error usually means a tensor of several values stood where Python needs one True or False: an `if`, "
     "`and`/`or`, or `==` between tensors where identity was meant (`p in some_list`, `list.index(p)`, "
     "`t == other`); compare tensors with `is` for identity and torch.equal for values."),
    ("Trying to backward through the graph a second time",
     "This error usually means backward() ran twice over one graph: a loss (or a tensor it depends on) carried "
     "over from an earlier step instead of recomputed."),
    ("a leaf Variable that requires grad is being used in an in-place operation",
     "This error usually means a parameter was changed in place while autograd was recording: an update belongs "
     "under torch.no_grad()."),
    ("has been modified by an inplace operation",
     "This error usually means a tensor autograd saved for the backward pass was changed in place afterwards "
     "(`x += ...`, `x.relu_()`): compute a new tensor instead."),
    ("Expected all tensors to be on the same device",
     "This error usually means a batch and a model (or two tensors) sit on different devices: move the batch to "
     "the model's device."),
    ("shapes cannot be multiplied",
     "This error usually means a layer met an input of another size than it was built for: a Linear's "
     "in_features against the last dimension of what reaches it."),
    ("grad can be implicitly created only for scalar outputs",
     "This error usually means backward() was called on a tensor of several values: reduce the loss to one "
     "number first."),
    ("Can't call numpy() on Tensor that requires grad",
     "This error usually means a tensor still in the graph was converted: detach() it first."),
    ("expected scalar type",
     "This error usually means tensors of two dtypes met (float64 from NumPy against a float32 model, or integer "
     "targets where floats are expected)."),
)


def usual_cause(error: BaseException) -> str:
    """The mistake that usually causes ``error``, for a PyTorch error the course meets often; '' for any other."""
    text = str(error)
    return next((cause for pattern, cause in _USUAL_CAUSES if pattern in text), "")


def _unreadable(error: Exception, function: str, part: str) -> Result:
    """The check could not read what the learner's function gave back (a parameter without a shape yet, or any)."""
    if _lazy(error):
        return Result(
            function, part, INCORRECT,
            seen=f"the check met a parameter that has no shape yet in what `{function}` gave back "
            f"({type(error).__name__}: {_first_line(error)}).",
            owner=_LAZY_OWNER.format(function=function),
            do=_LAZY_DO,
            code="lazy_parameters",
        )
    return Result(
        function, part, INCORRECT,
        seen=f"the check could not read what `{function}` gave back "
        f"({type(error).__name__}: {_first_line(error)}).",
        owner=f"the value returned by your `{function}`.",
        do="compare what you return with the contract in the exercise text (types, shapes, dtypes).",
        code="unreadable_result",
    )


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
#: A later line of an error that says what actually went wrong (torch.load's weights_only errors
#: open with a paragraph of advice; the cause is a "WeightsUnpickler error: Unsupported global" line).
_CAUSE = re.compile(r"(Unsupported global|\b[A-Za-z]*(Error|error|Exception)\b\s*:)")


_LAZY_OWNER = ("a lazy layer in your `{function}` (nn.LazyLinear, nn.LazyConv2d, ...): its parameters have no "
               "shape until a first forward pass, so counting them, copying them or handing them to an optimizer "
               "before one fails.")
_LAZY_DO = ("give each layer its input size (the exercise states every size), so that its parameters exist as "
              "soon as the model is built.")


def _lazy(error: BaseException) -> bool:
    """An error about a lazy module's parameters, which exist only after a first forward pass."""
    return "uninitialized parameter" in str(error).lower()


def _cuda_only(error: BaseException) -> bool:
    """An error from a CUDA-only API called where no CUDA device is."""
    text = str(error)
    return any(s in text for s in ("Torch not compiled with CUDA enabled", "dummy base class", "no NVIDIA driver",
                                   "No CUDA GPUs are available", "CUDA driver initialization failed"))


def error_text(error: BaseException) -> str:
    """An error's message for a learner: no terminal colour codes, its first line, and the later line
    that names the cause when the first one does not."""
    lines = [line.strip() for line in _ANSI.sub("", str(error)).splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    head = _clip(lines[0].rstrip(".:"), 240)
    cause = next((line for line in lines[1:] if _CAUSE.search(line)), "")
    if cause:
        sentence = re.split(r"(?<=\.)\s", cause, maxsplit=1)[0].rstrip(".")
        return f"{head} — {_clip(sentence, 260)}"
    return head


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_line(error: BaseException) -> str:
    text = _ANSI.sub("", str(error)).strip().splitlines()
    line = text[0].rstrip(".:") if text else "(no message)"
    return line if len(line) <= 300 else line[:297] + "..."
