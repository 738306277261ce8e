"""A grading worker: a long-lived process that autogrades one submission at a time.

Each submission is graded by nbgrader's own ``Autograde`` converter (its sanitising and
scoring preprocessors), called through its Python API, in a private scratch course:

* ``scratch/course/`` holds a copy of the submission, the assignment's data files and a
  private gradebook copied from a template of the course's gradebook: the worker never
  opens the course's gradebook, and the coordinator merges the scores;
* the kernel runs in the sandbox (``sandbox.py``), whose home holds the data files and
  the student's other files, never the notebook being graded;
* the grading of one notebook is a declared list of small steps (:attr:`Worker.STEPS`), and
  its state (:class:`Grading`) is passed from step to step, never kept in the module;
* canary cells are appended to the working copy (``canary.py``), observed, and stripped
  from the autograded notebook handed back.

A kernel that dies, hangs or floods is one submission's problem: the worker reports a
readable reason and goes on with the next job.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import shutil
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from traitlets.config import Config

from ..cells import nbgrader_meta
from . import canary, outcomes, sandbox, scan, warm
from .course import reset_dir
from .record import GRADER, STUDENT, Failure, Job, KernelOutcome, pack_folder, unpack_folder

MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024
#: What a graded notebook keeps of its outputs, in bytes: each output (a stream, an image, a traceback) and
#: all of them together.  nbgrader's own limit counts lines, not bytes: one cell printing 400 MB, or showing
#: a 200 MB image, would otherwise land whole in the instructor's autograded/ folder.
OUTPUT_LIMITS = {"output_bytes": 1024 * 1024, "notebook_bytes": 5 * 1024 * 1024}
MAX_EXTRA_FILE_BYTES = 32 * 1024 * 1024
PRIVATE_FILES = {"timestamp.txt", "submission_secret.txt"}  # nbgrader's bookkeeping, not for the kernel


@dataclass
class WorkerSpec:
    """Everything a worker needs, sent once when it starts."""

    index: int
    uid: int
    scratch: str
    config: Config  # the course's nbgrader configuration
    template_db: str
    assignment: str
    notebook: str
    sandboxed: bool
    limits: dict
    cell_timeout: int
    tests: list[tuple[str, str]]  # (test grade id, source with hidden tests), in notebook order
    functions: list[str]  # graded functions: the answer cells' grade ids
    locked: dict[str, str]  # locked cells' grade id -> source (for the static scan)
    data_files: list[str] = field(default_factory=list)  # paths on this machine
    warm: bool = True  # fork each kernel from a warm template (autograder.cohort.warm) where one can run
    output_limits: dict = field(default_factory=lambda: dict(OUTPUT_LIMITS))


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def text(self, level: int = logging.WARNING) -> list[str]:
        lines = []
        for r in self.records:
            if r.levelno >= level:
                try:
                    lines.append(r.getMessage())
                except Exception:  # noqa: BLE001 - a malformed log record must not stop grading
                    lines.append(str(r.msg))
        return lines


def read_submission(folder: Path, notebook: str):
    """``(notebook, None)`` or ``(None, reason)`` for the submission's notebook file."""
    path = folder / f"{notebook}.ipynb"
    if not path.is_file() or path.is_symlink():
        others = sorted(p.name for p in folder.glob("*.ipynb")) if folder.is_dir() else []
        if others:
            return None, (f"no {notebook}.ipynb in the submission (found {', '.join(others)}): "
                          "the notebook must keep the name it was released with")
        return None, f"no {notebook}.ipynb in the submission"
    size = path.stat().st_size
    if size == 0:
        return None, "the notebook file is empty (0 bytes)"
    if size > MAX_NOTEBOOK_BYTES:
        return None, f"the notebook file is {size // 2**20} MiB, over the {MAX_NOTEBOOK_BYTES // 2**20} MiB limit"
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"the notebook file is not UTF-8 text ({error.reason} at byte {error.start})"
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"the notebook file is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as error:  # noqa: BLE001 - any unreadable notebook is a reason, not a crash
        return None, f"the file is JSON but not a Jupyter notebook ({type(error).__name__}: {str(error)[:200]})"
    if not isinstance(nb.get("cells"), list) or not all(isinstance(c, dict) for c in nb.cells):
        return None, "the file is JSON but has no list of cells"
    return nb, None


def _copy_plain_files(src: Path, dst: Path, skip=lambda p: False) -> None:
    """Copy regular files (never symlinks) from ``src`` to ``dst``, keeping subfolders."""
    for dirpath, dirnames, filenames in os.walk(src, followlinks=False):
        rel = Path(dirpath).relative_to(src)
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink() and d != ".ipynb_checkpoints"]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file() or skip(rel / name):
                continue
            if path.stat().st_size > MAX_EXTRA_FILE_BYTES:
                continue
            (dst / rel).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, dst / rel / name)


class _CellTracker:
    """``on_cell_start`` hook recording the cell being run: which one (to say where a kernel died), and
    when the first and the last cell started (to time the kernel's start and the cells)."""

    def __init__(self) -> None:
        self.cell, self.first, self.last = "", 0.0, 0.0

    def __deepcopy__(self, memo):  # traitlets copies its configuration: the hook must stay this object
        return self

    def __call__(self, cell=None, cell_index=None, **_) -> None:
        if cell is None:
            return
        now = time.monotonic()
        self.first = self.first or now
        self.last = now
        if canary.is_canary(cell):
            self.cell = "the canary cells appended at grading time"
            return
        name = nbgrader_meta(cell).get("grade_id")
        self.cell = f"cell {name!r}" if name else f"cell {cell_index + 1 if cell_index is not None else '?'}"


class Stop(Exception):
    """A step found that the notebook cannot be graded further (the outcome says why)."""


@dataclass
class Grading:
    """One notebook's state on its way through the steps: passed from step to step, never kept."""

    job: Job
    folder: Path  # the submission as it arrived
    result: KernelOutcome
    started: float = field(default_factory=time.monotonic)
    nb: nbformat.NotebookNode | None = None  # the submission's notebook, canary cells added
    course: Path | None = None  # the scratch course nbgrader grades in
    box: Path | None = None  # the sandbox's directory
    nonce: str = ""
    capture: _Capture = field(default_factory=_Capture)  # nbgrader's log
    tracker: _CellTracker = field(default_factory=_CellTracker)
    kernel_events: list = field(default_factory=list)  # what happened to the kernels (sandbox.py)
    template: warm.Template | None = None  # the warm template its kernel is forked from (None: cold)
    graded: nbformat.NotebookNode | None = None  # the autograded notebook
    scores: dict = field(default_factory=dict)  # test id -> (score, max score)
    autograded_at: float = 0.0  # when nbgrader returned


class Worker:
    """Grades jobs for one :class:`WorkerSpec`, one notebook at a time, through :attr:`STEPS`."""

    #: The steps grading one notebook goes through, in order; each is a method ``step_NAME(grading)``.
    STEPS = ("read", "scan", "stage", "add_canary", "autograde", "observe_canary", "read_scores",
             "read_outcomes", "trim_outputs", "collect_notes")

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.scratch = Path(spec.scratch)
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.course_config = spec.config
        self.log = logging.getLogger(f"autograder.cohort.worker{spec.index}")
        self.log.propagate = False
        self.log.setLevel(logging.INFO)
        self.template: warm.Template | None = None
        self.template_problem = ""  # why kernels start cold, when a template was wanted and failed
        self._warming: threading.Thread | None = None

    # -- the warm template --------------------------------------------------------------------

    @property
    def sandbox_root(self) -> Path:
        """The folder holding the notebook's box (bound into the template's sandbox)."""
        return self.scratch / "sandbox"

    def warm_up(self) -> None:
        """Start the template in the background (the first notebook waits for it)."""
        if self.spec.warm and not warm.Template.supported(self.spec.sandboxed):
            self.template_problem = "warm kernels unavailable, kernels start cold: " + warm.Template.unsupported_reason()
            return
        if self.spec.warm and self._warming is None:
            self._warming = threading.Thread(target=self._start_template, name="warm-up", daemon=True)
            self._warming.start()

    def _start_template(self) -> None:
        spec, root = self.spec, self.sandbox_root
        root.mkdir(parents=True, exist_ok=True)
        env = None
        if not spec.sandboxed:
            lib = root / "lib"
            if not lib.exists():
                lib.mkdir()
                (lib / "autograder").symlink_to(sandbox.package_dir(), target_is_directory=True)
            env = {**sandbox.kernel_env(), "HOME": str(root), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                   "PYTHONPATH": str(lib)}
        preload = warm.preload_for([*spec.locked.values(), *(source for _, source in spec.tests)])
        template = warm.Template(root, sandboxed=spec.sandboxed, uid=spec.uid, limits=spec.limits, env=env,
                                 preload=preload)
        try:
            template.start()
        except (OSError, warm.TemplateError) as error:
            self.template_problem = f"warm kernels unavailable, kernels start cold: {error}"
            return
        expected = (f"{sandbox.PACKAGE_ROOT}/autograder/__init__.py" if spec.sandboxed
                    else str(root / "lib" / "autograder" / "__init__.py"))
        if template.info.get("autograder") != expected:
            template.close()
            self.template_problem = (f"warm kernels unavailable, kernels start cold: the template imported "
                                     f"autograder from {template.info.get('autograder')!r}, not {expected}")
            return
        self.template, self.template_problem = template, ""

    def _ready_template(self) -> warm.Template | None:
        """The template to fork this notebook's kernel from (restarted if it died), or ``None``: cold."""
        if self._warming is None:
            self.warm_up()
        if self._warming is not None:
            self._warming.join()
        if self.template is not None and not self.template.alive():
            self.template.close()
            self.template = None
            self._warming = None
            self.warm_up()
            if self._warming is not None:
                self._warming.join()
        return self.template

    def close(self) -> None:
        if self._warming is not None:
            self._warming.join()
        if self.template is not None:
            self.template.close()
            self.template = None

    # -- one job ----------------------------------------------------------------------------

    def grade(self, job: Job) -> KernelOutcome:
        started = time.monotonic()
        result = KernelOutcome(job.student, reference=job.reference)
        try:
            folder = unpack_folder(job.files, reset_dir(self.scratch / "incoming"))
            self.run(Grading(job, folder, result))
        except Exception as error:  # noqa: BLE001 - one submission must never stop the worker
            result.fail(grader_error(error, self.scratch, traceback.format_exc(limit=6)))
        result.seconds = round(time.monotonic() - started, 3)
        return result

    def run(self, grading: Grading, steps=None) -> Grading:
        """Run ``steps`` (default: every step) on ``grading``; a step that raises :class:`Stop` ends it."""
        for name in steps or self.STEPS:
            try:
                getattr(self, f"step_{name}")(grading)
            except Stop:
                break
        return grading

    # -- the steps ----------------------------------------------------------------------------

    def step_read(self, g: Grading) -> None:
        """The submission's notebook, or the reason it cannot be read."""
        g.nb, problem = read_submission(g.folder, self.spec.notebook)
        if problem:
            g.result.fail(Failure(STUDENT, "unreadable", problem))
            raise Stop

    def step_scan(self, g: Grading) -> None:
        """Lines that reach for the grader's internals, and locked cells the student edited."""
        if not g.job.reference:
            g.result.findings = [f.as_dict() for f in scan.scan_notebook(g.nb, self.spec.locked)]
        g.result.notes += [f"edited locked cell {name} — nbgrader restored it"
                           for name in scan.edited_locked(g.nb, self.spec.locked)]

    def step_stage(self, g: Grading) -> None:
        """A scratch course (the submission, the data files, a private gradebook) and a fresh sandbox
        whose home holds the data files and the student's other files, never a notebook."""
        spec = self.spec
        g.course = course = reset_dir(self.scratch / "course")
        submitted = course / "submitted" / g.job.student / spec.assignment
        submitted.mkdir(parents=True)
        _copy_plain_files(g.folder, submitted, skip=lambda rel: rel.suffix == ".ipynb")
        source = course / "source" / spec.assignment
        source.mkdir(parents=True)
        for f in spec.data_files:
            p = Path(f)
            (shutil.copytree if p.is_dir() else shutil.copy)(p, source / p.name)
        shutil.copy(spec.template_db, course / "gradebook.db")
        g.box = self.sandbox_root / "box"
        sandbox.drain(spec.uid)
        sandbox.prepare_box(g.box, spec.uid)
        _copy_plain_files(g.folder, g.box / "home",
                          skip=lambda rel: rel.suffix == ".ipynb" or rel.name in PRIVATE_FILES)
        _copy_plain_files(source, g.box / "home")

    def step_add_canary(self, g: Grading) -> None:
        """Canary cells appended to the working copy, which is written where nbgrader reads it."""
        g.nonce = canary.new_nonce()
        canary.append(g.nb, self.spec.tests, self.spec.functions, g.nonce)
        nbformat.write(g.nb, str(self._submitted(g)))

    def step_autograde(self, g: Grading) -> None:
        """nbgrader's ``Autograde`` converter on the scratch course, its kernel in the sandbox."""
        self.log.handlers = [g.capture]
        g.template = self._ready_template()
        g.result.timings["prepare"] = round(time.monotonic() - g.started, 3)
        started = time.monotonic()
        ok = self._run_nbgrader(g)
        ended = time.monotonic()
        if g.kernel_events:
            g.result.kernel = "warm" if any(e.get("warm") for e in g.kernel_events) else "cold"
            if g.result.kernel == "cold" and self.spec.warm:
                g.result.kernel_note = self.template_problem or "the warm template could not fork this kernel"
        if g.template is not None:  # what the kernel left running dies with it, as in a cold sandbox
            g.template.sweep()
            sandbox.drain(self.spec.uid, patience=0.0)
        cpu = sum(e.get("cpu_seconds", 0.0) for e in g.kernel_events)
        if cpu:
            g.result.timings["kernel_cpu"] = round(cpu, 3)
        if g.tracker.first:
            g.result.timings["kernel_start"] = round(g.tracker.first - started, 3)
            g.result.timings["cells"] = round(ended - g.tracker.first, 3)
        g.result.notes += _notes_from_log(g.capture.text())
        autograded = self._autograded(g)
        if not ok or not autograded.exists():
            failure = _explain_failure(g.capture, self.spec.limits, g.tracker.cell, g.kernel_events)
            log = g.box / "kernel.log"
            if failure.cause == "kernel-start" and log.exists():
                failure = Failure(failure.owner, failure.cause, failure.reason, failure.advice,
                                  detail=log.read_text(errors="replace")[-1500:])
            g.result.fail(failure)
            raise Stop
        g.graded = nbformat.read(str(autograded), as_version=4)
        g.autograded_at = ended

    def step_observe_canary(self, g: Grading) -> None:
        """What the canary cells saw; they are then stripped from the autograded notebook."""
        g.result.canary = canary.observe(g.graded, g.nonce)
        canary.strip(g.graded)

    def step_read_scores(self, g: Grading) -> None:
        """The scores and comments nbgrader wrote into the private gradebook."""
        from nbgrader.api import Gradebook

        spec, result = self.spec, g.result
        with Gradebook("sqlite:///" + str(g.course / "gradebook.db")) as gb:
            sub = gb.find_submission_notebook(spec.notebook, spec.assignment, g.job.student)
            for grade in sub.grades:
                result.grades[grade.name] = {"auto_score": grade.auto_score, "max_score": float(grade.max_score),
                                             "needs_manual_grade": bool(grade.needs_manual_grade)}
                g.scores[grade.name] = (float(grade.auto_score or 0.0), float(grade.max_score))
            result.comments = {c.name: c.auto_comment for c in sub.comments}
            result.late_penalty = sub.late_submission_penalty

    def step_read_outcomes(self, g: Grading) -> None:
        """Each test cell's outcome, read from the results the checks displayed."""
        g.result.tests = [t.as_dict() for t in outcomes.read_notebook(g.graded, self.spec.functions, g.scores)]
        g.result.first_error = first_error(g.graded)

    def step_trim_outputs(self, g: Grading) -> None:
        """Outputs over the byte limits cut down to their head, with a note of what was cut (the checks'
        results, already read, are kept whole)."""
        g.result.trimmed = trim_outputs(g.graded, **self.spec.output_limits)

    def step_collect_notes(self, g: Grading) -> None:
        """Notes for the instructor, and the autograded notebook (canary-free) packed to travel back."""
        g.result.notes += _notes_from_cells(g.graded)
        if any(event.get("wall_killed") for event in g.kernel_events):
            g.result.notes.append("the notebook's wall-clock limit stopped its kernel")
        autograded = self._autograded(g)
        nbformat.write(g.graded, str(autograded))
        g.result.autograded = pack_folder(autograded.parent)
        if g.autograded_at:
            g.result.timings["finish"] = round(time.monotonic() - g.autograded_at, 3)

    # -- nbgrader ---------------------------------------------------------------------------

    def _submitted(self, g: Grading) -> Path:
        return g.course / "submitted" / g.job.student / self.spec.assignment / f"{self.spec.notebook}.ipynb"

    def _autograded(self, g: Grading) -> Path:
        return g.course / "autograded" / g.job.student / self.spec.assignment / f"{self.spec.notebook}.ipynb"

    def _config(self, g: Grading):
        from nbgrader.preprocessors import (
            CheckCellMetadata,
            ClearOutput,
            DeduplicateIds,
            OverwriteCells,
            OverwriteKernelspec,
        )
        from traitlets.config import Config

        from .restore import RestoreCellMetadata

        spec = self.spec
        cfg = Config(copy.deepcopy(self.course_config))
        cfg.CourseDirectory.root = str(g.course)
        cfg.CourseDirectory.db_url = "sqlite:///" + str(g.course / "gradebook.db")
        cfg.CourseDirectory.source_directory = "source"
        cfg.CourseDirectory.submitted_directory = "submitted"
        cfg.CourseDirectory.autograded_directory = "autograded"
        cfg.CourseDirectory.assignment_id = spec.assignment
        cfg.CourseDirectory.student_id = g.job.student
        cfg.Autograde.force = True
        # nbgrader makes what it writes read-only (0444) by default; the worker writes the autograded notebook
        # again (canary cells stripped), which only root could do to a read-only file.  Owner-only, as every
        # file the grader writes.
        cfg.Autograde.permissions = 600
        cfg.Autograde.create_student = True
        cfg.Autograde.sanitize_preprocessors = [RestoreCellMetadata, ClearOutput, DeduplicateIds,
                                                OverwriteKernelspec, OverwriteCells, CheckCellMetadata]
        cfg.OverwriteCells.add_missing_cells = True
        # A kernel manager class of this notebook's own, so that what happens to its kernels lands here.
        cfg.Execute.kernel_manager_class = type("NotebookKernelManager", (sandbox.SandboxedKernelManager,),
                                                {"events": g.kernel_events, "template": g.template})
        cfg.Execute.timeout = spec.cell_timeout
        cfg.Execute.interrupt_on_timeout = True
        cfg.Execute.on_cell_start = g.tracker
        cfg.Execute.shutdown_kernel = "immediate"  # its state is discarded anyway
        cfg.SandboxedKernelManager.box = str(g.box)
        cfg.SandboxedKernelManager.uid = spec.uid
        cfg.SandboxedKernelManager.limits = dict(spec.limits)
        cfg.SandboxedKernelManager.sandboxed = spec.sandboxed
        return cfg

    def _run_nbgrader(self, g: Grading) -> bool:
        from nbgrader.converters import Autograde
        from nbgrader.coursedir import CourseDirectory

        cfg = self._config(g)
        coursedir = CourseDirectory(config=cfg, log=self.log)
        converter = Autograde(coursedir=coursedir, config=cfg, log=self.log)
        try:
            converter.start()
        except Exception as error:  # noqa: BLE001 - nbgrader reports per-notebook failures this way
            self.log.error("autograde stopped: %s: %s", type(error).__name__, error)
            return False
        return True


def _notes_from_log(lines: list[str]) -> list[str]:
    from .restore import RESTORED

    notes = []
    for line in lines:
        if line.startswith(RESTORED):
            notes.append("edited nbgrader metadata: " + line[len(RESTORED):].strip() + " — restored from the gradebook")
        elif "Attribute '" in line and "has changed" in line and "Attribute 'checksum'" not in line:
            attr = line.split("Attribute '")[1].split("'")[0]
            cell = line.split("for cell ")[1].split(" ")[0] if "for cell " in line else "?"
            notes.append(f"edited {attr} of cell {cell} — nbgrader restored it")
        elif line.startswith("Missing grade cell"):
            cell = line.split("Missing grade cell ")[1].split(" ")[0]
            notes.append(f"deleted test cell {cell} — nbgrader put it back")
        elif "exists multiple times" in line:
            notes.append(line.replace("Cell with id", "grade id").replace("!", "") + " — extra copies ignored")
    return list(dict.fromkeys(notes))


def _notes_from_cells(nb) -> list[str]:
    notes = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or nbgrader_meta(cell).get("grade"):
            continue
        errors = [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]
        if not errors:
            continue
        name = nbgrader_meta(cell).get("grade_id") or f"cell {index + 1}"
        if any(out.get("ename") == "CellTimeoutError" for out in errors):
            notes.append(f"{name} ran past the per-cell time limit and was interrupted")
            continue
        evalue = str(errors[0].get("evalue", "")).strip().splitlines()
        first = evalue[0][:200] if evalue else ""
        notes.append(f"{name} raised {errors[0].get('ename')}: {first}".rstrip(": "))
    return notes


def trim_outputs(nb, output_bytes: int = OUTPUT_LIMITS["output_bytes"],
                 notebook_bytes: int = OUTPUT_LIMITS["notebook_bytes"]) -> str:
    """Cut ``nb``'s outputs in place to ``output_bytes`` each and ``notebook_bytes`` in all, keeping the head
    of each and a note in its place of what was cut; returns what was cut, in words ("" when nothing was).

    The checks' result data (:data:`autograder.outcome.RESULT_MIME`) is never cut: the cohort tools read it.
    """
    from ..outcome import RESULT_MIME

    cut, budget = 0, notebook_bytes
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            allowed = max(0, min(output_bytes, budget))
            before = _output_size(out)
            _trim_output(out, allowed, RESULT_MIME)
            after = _output_size(out)
            cut += before - after
            budget = max(0, budget - after)
    if not cut:
        return ""
    return (f"{_mb(cut)} of output cut from the graded notebook (limits: {_mb(output_bytes)} per output, "
            f"{_mb(notebook_bytes)} per notebook)")


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


def _text_size(value) -> int:
    if isinstance(value, list):
        return sum(len(str(v).encode()) for v in value)
    return len(str(value).encode()) if value is not None else 0


def _output_size(out) -> int:
    kind = out.get("output_type")
    if kind == "stream":
        return _text_size(out.get("text", ""))
    if kind == "error":
        return _text_size(out.get("traceback", [])) + _text_size(out.get("evalue", ""))
    return sum(_text_size(v) for v in (out.get("data") or {}).values())


def _head(text: str, allowed: int) -> str:
    data = text.encode()
    if len(data) <= allowed:
        return text
    note = f"\n[... {_mb(len(data) - allowed)} of this output cut by the grader ...]\n"
    return data[:allowed].decode(errors="ignore") + note


def _trim_output(out, allowed: int, keep: str) -> None:
    kind = out.get("output_type")
    if _output_size(out) <= allowed:
        return
    if kind == "stream":
        text = out.get("text", "")
        out["text"] = _head("".join(text) if isinstance(text, list) else str(text), allowed)
    elif kind == "error":
        lines, kept, size = out.get("traceback", []), [], 0
        for line in lines:
            size += len(str(line).encode())
            if size > allowed:
                kept.append(f"[... {len(lines) - len(kept)} traceback lines cut by the grader ...]")
                break
            kept.append(line)
        out["traceback"] = kept
        out["evalue"] = _head(str(out.get("evalue", "")), min(allowed, 4096))
    else:
        data = out.get("data") or {}
        size = sum(_text_size(v) for v in data.values())
        for mime in list(data):
            if mime == keep:
                continue
            if mime.startswith("text/") and mime != "text/html":
                value = data[mime]
                data[mime] = _head("".join(value) if isinstance(value, list) else str(value), allowed)
            else:
                del data[mime]
        if "text/plain" not in data:
            data["text/plain"] = f"[an output of {_mb(size)} removed by the grader: over its size limit]"


def first_error(nb) -> dict:
    """``{cell, ename, evalue}`` of the first code cell, in notebook order, whose output is an error
    (``{}`` when none is); ``evalue`` keeps the error's last non-empty line when it has several."""
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        error = next((out for out in cell.get("outputs", []) if out.get("output_type") == "error"), None)
        if error is None:
            continue
        name = nbgrader_meta(cell).get("grade_id") or f"cell {index + 1}"
        lines = [line.strip() for line in str(error.get("evalue", "")).splitlines() if line.strip()]
        evalue = " … ".join(dict.fromkeys(lines[:1] + lines[-1:]))
        return {"cell": name, "ename": str(error.get("ename", "")), "evalue": evalue[:400]}
    return {}


_KERNEL_START_ADVICE = ("run the solution alone with --sandbox off to tell the sandbox from the environment, and "
                        "read the kernel log")


def _explain_failure(capture: _Capture, limits: dict, cell: str, kernel_events: list) -> Failure:
    """Why nbgrader produced no autograded notebook, and whose failure that is, from its log and what
    happened to the kernel."""
    log = "\n".join(capture.text(logging.ERROR))
    where = f" while running {cell}" if cell else ""
    for event in kernel_events:
        if event.get("wall_killed"):
            seconds = limits.get("notebook_seconds")
            return Failure(STUDENT, "wall-clock",
                           f"the notebook ran past its wall-clock limit ({seconds} s){where}; its kernel was stopped",
                           "the notebook needs more time than --notebook-timeout allows here; raise it")
    if "before replying to kernel_info" in log or "Kernel didn't respond" in log:
        return Failure(GRADER, "kernel-start", "the kernel did not start (see the kernel log in the grading notes)",
                       _KERNEL_START_ADVICE, detail=log[-1500:])
    dead = "DeadKernelError" in log or "Kernel died" in log or "UnresponsiveKernelError" in log
    if dead and not cell:  # no cell of the notebook had started: the kernel died on its way up
        exits = [sandbox.describe_exit(e) for e in kernel_events]
        cause = next((e for e in exits if e), "the kernel died")
        return Failure(GRADER, "kernel-start", f"the kernel did not start: {cause} before the notebook's first cell",
                       _KERNEL_START_ADVICE, detail=log[-1500:])
    if dead:
        exits = [sandbox.describe_exit(e) for e in kernel_events]
        cause = next((e for e in exits if e), "the kernel died")
        return Failure(STUDENT, "kernel-died", f"{cause}{where}",
                       "the notebook needs more memory or CPU time than the limits allow here, or it ends its "
                       "own kernel; raise --memory-mb or --cpu-seconds if the solution needs them")
    if "CellTimeoutError" in log or "Timeout waiting for IOPub" in log:
        return Failure(STUDENT, "cell-timeout",
                       f"a cell ran past the per-cell time limit and did not stop when interrupted{where}",
                       "a cell needs more time than --cell-timeout allows here; raise it")
    if "failed to validate" in log or "ValidationError" in log:
        return Failure(STUDENT, "metadata", "nbgrader could not validate the notebook's cell metadata")
    lines = [line for line in log.splitlines() if line.strip()]
    tail = next((line for line in reversed(lines) if "Error" in line or "Exception" in line), lines[-1] if lines else "")
    return Failure(GRADER, "nbgrader", f"nbgrader could not grade the notebook{where}: {tail.strip()[:300]}",
                   "read nbgrader's log in the detail; grade the student again once it is fixed "
                   "(`grade ... --student ID`)", detail=log[-1500:])


def grader_error(error: BaseException, scratch: Path, trace: str = "") -> Failure:
    """The grader's own failure: what it could not do, and what fixes it."""
    reason = f"internal grading error: {type(error).__name__}: {error}"
    if isinstance(error, PermissionError):
        advice = (f"the grading user ({_user()}) cannot write or read a file of the grader's own scratch space "
                  f"({scratch}); make that folder (or TMPDIR) writable by this user, or report a bug if it is")
    elif isinstance(error, OSError) and error.errno == 28:
        advice = f"the disk holding the grader's scratch space ({scratch}) is full; free space, or set TMPDIR"
    elif isinstance(error, OSError):
        advice = f"the grader could not use its scratch space ({scratch}): {error.strerror or error}"
    else:
        advice = "this is a fault of the grader, not of the notebook; the detail holds the traceback"
    return Failure(GRADER, "grader-error", reason, advice, detail=trace)


def _user() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())
