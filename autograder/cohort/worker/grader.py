"""A grading worker: a long-lived process that autogrades one submission at a time.

Each submission is graded by nbgrader's own ``Autograde`` converter (its sanitising and
scoring preprocessors), called through its Python API, in a private scratch course:

* ``scratch/course/`` holds a copy of the submission, the assignment's data files and a
  private gradebook copied from a template of the course's gradebook: the worker never
  opens the course's gradebook, and the coordinator merges the scores;
* the kernel runs in the sandbox (:mod:`autograder.cohort.kernels`), whose home holds the data files and
  the student's other files, never the notebook being graded;
* the grading of one notebook is a declared list of small steps (:attr:`Grader.STEPS`), and
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

from ...cells import nbgrader_meta
from ..course import cell_names, reset_dir
from ..jobs import Job, RunSpec, pack_folder, unpack_folder
from ..kernels.box import drain, prepare_box
from ..kernels.confinement import package_dir, package_root, unconfined_env
from ..kernels.managers import KernelEvent, KernelLog, SandboxedKernelManager
from ..kernels.template import Template, TemplateError, preload_for
from ..preprocessors.restored import Restored
from ..records import STUDENT, Failure, Grade, Note, SubmissionResult
from . import canary, check_results, scan
from .failures import KernelRun, explain_failure, grader_error
from .sqlalchemy_engines import disposable, schema_known, share_engines
from .submission import LogCapture, first_error, notes_from_cells, notes_from_log, read_submission, trim_outputs

MAX_EXTRA_FILE_BYTES = 32 * 1024 * 1024
PRIVATE_FILES = {"timestamp.txt", "submission_secret.txt"}  # nbgrader's bookkeeping, not for the kernel


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
    when the first cell, the first canary cell and the last cell started (to time the kernel's start, the
    notebook's own cells and the canary); ``done`` is when the kernel was asked to shut down."""

    def __init__(self) -> None:
        self.cell, self.first, self.last, self.canary, self.done = "", 0.0, 0.0, 0.0, 0.0

    def __deepcopy__(self, memo):  # traitlets copies its configuration: the hook must stay this object
        return self

    def __call__(self, cell=None, cell_index=None, **_) -> None:
        if cell is None:
            return
        now = time.monotonic()
        self.first = self.first or now
        self.last = now
        if canary.is_canary(cell):
            self.canary = self.canary or now
            self.cell = "the canary cells appended at grading time"
            return
        name = nbgrader_meta(cell).get("grade_id")
        self.cell = f"cell {name!r}" if name else f"cell {cell_index + 1 if cell_index is not None else '?'}"

    def phases(self, started: float, ended: float) -> dict:
        """Seconds of each phase of one autograde: the kernel's start (nbgrader's set-up included), the
        notebook's own cells, the canary cells (and the kernel's shutdown), and nbgrader's work after the
        kernel (the notebook checked, written and scored)."""
        if not self.first:
            return {}
        canary_start = self.canary or self.done or ended
        done = self.done or ended
        return {"kernel_start": round(self.first - started, 3), "cells": round(canary_start - self.first, 3),
                "canary": round(max(0.0, done - canary_start), 3), "nbgrader_after": round(ended - done, 3)}


class Stop(Exception):
    """A step found that the notebook cannot be graded further (the outcome says why)."""


@dataclass
class Grading:
    """One notebook's state on its way through the steps: passed from step to step, never kept."""

    job: Job
    folder: Path  # the submission as it arrived
    result: SubmissionResult
    started: float = field(default_factory=time.monotonic)
    nb: nbformat.NotebookNode | None = None  # the submission's notebook, canary cells added
    course: Path | None = None  # the scratch course nbgrader grades in
    box: Path | None = None  # the sandbox's directory
    nonce: str = ""
    capture: LogCapture = field(default_factory=LogCapture)  # nbgrader's log
    tracker: _CellTracker = field(default_factory=_CellTracker)
    kernel_events: list[KernelEvent] = field(default_factory=list)  # the kernel manager's own records
    kernels: list[KernelRun] = field(default_factory=list)  # what happened to the kernels, read from those
    restored: list[Restored] = field(default_factory=list)  # what the course's preprocessors put back
    invalid_metadata: str = ""  # why the course's metadata check refused the notebook ("" when it did not)
    template: Template | None = None  # the warm template its kernel is forked from (None: cold)
    graded: nbformat.NotebookNode | None = None  # the autograded notebook
    scores: dict = field(default_factory=dict)  # test id -> (score, max score)
    autograded_at: float = 0.0  # when nbgrader returned


class Grader:
    """Grades the jobs of one run (:class:`RunSpec`), one notebook at a time, through :attr:`STEPS`: one per Dask
    worker, its kernels running as ``uid``, its files under ``scratch`` (its own)."""

    #: The steps grading one notebook goes through, in order; each is a method ``step_NAME(grading)``.
    STEPS = ("read", "scan", "stage", "add_canary", "autograde", "observe_canary", "read_scores",
             "read_outcomes", "trim_outputs", "collect_notes")

    def __init__(self, spec: RunSpec, uid: int, scratch: Path) -> None:
        self.spec, self.uid, self.scratch = spec, uid, Path(scratch)
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.template_db = self.scratch / "template.db"
        self.template_db.write_bytes(spec.template_db)
        data = unpack_folder(spec.data_files, self.scratch / "data")
        self.data_files = sorted(data.iterdir())
        self.log = logging.getLogger("autograder.cohort.grader")
        self.log.propagate = False
        self.log.setLevel(logging.INFO)
        self.template: Template | None = None
        self.template_problem = ""  # why kernels start cold, when a template was wanted and failed
        self._warming: threading.Thread | None = None

    # -- the warm template --------------------------------------------------------------------

    @property
    def sandbox_root(self) -> Path:
        """The folder holding the notebook's box (bound into the template's sandbox)."""
        return self.scratch / "sandbox"

    def warm_up(self) -> None:
        """Start the template in the background (the first notebook waits for it)."""
        if self.spec.warm and not Template.supported(self.spec.sandboxed):
            self.template_problem = "warm kernels unavailable, kernels start cold: " + Template.unsupported_reason()
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
                (lib / "autograder").symlink_to(package_dir(), target_is_directory=True)
            env = {**unconfined_env(root / "home", lib), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            (root / "home").mkdir(exist_ok=True)
        preload = preload_for([*spec.locked.values(), *(source for _, source in spec.tests)])
        template = Template(root, sandboxed=spec.sandboxed, uid=self.uid, limits=spec.limits, env=env,
                                 preload=preload)
        try:
            template.start()
        except (OSError, TemplateError) as error:
            self.template_problem = f"warm kernels unavailable, kernels start cold: {error}"
            return
        expected = (f"{package_root()}/autograder/__init__.py" if spec.sandboxed
                    else str(root / "lib" / "autograder" / "__init__.py"))
        if template.info.get("autograder") != expected:
            template.close()
            self.template_problem = (f"warm kernels unavailable, kernels start cold: the template imported "
                                     f"autograder from {template.info.get('autograder')!r}, not {expected}")
            return
        self.template, self.template_problem = template, ""

    def _ready_template(self) -> Template | None:
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

    def grade(self, job: Job) -> SubmissionResult:
        started, cpu = time.monotonic(), time.thread_time()
        result = SubmissionResult(job.student, reference=job.reference)
        try:
            folder = unpack_folder(job.files, reset_dir(self.scratch / "incoming"))
            self.run(Grading(job, folder, result))
        except Exception as error:  # noqa: BLE001 - one submission must never stop the worker
            result.fail(grader_error(error, self.scratch, traceback.format_exc(limit=6)))
        result.seconds = round(time.monotonic() - started, 3)
        result.timings["cpu_grading"] = round(time.thread_time() - cpu, 3)  # this worker's thread, kernels apart
        return result

    def run(self, grading: Grading, steps=None) -> Grading:
        """Run ``steps`` (default: every step) on ``grading``; a step that raises :class:`Stop` ends it."""
        for name in steps or self.STEPS:
            started, cpu = time.monotonic(), time.thread_time()
            try:
                getattr(self, f"step_{name}")(grading)
            except Stop:
                break
            finally:
                grading.result.timings[f"step_{name}"] = round(time.monotonic() - started, 3)
                # the CPU of the grading thread (nbgrader and its kernel client run on it; the kernel's own: kernel_cpu)
                grading.result.timings[f"cpu_{name}"] = round(time.thread_time() - cpu, 3)
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
            g.result.findings = scan.scan_notebook(g.nb, self.spec.locked)
        g.result.notes += [Note("restored", f"edited locked cell {name} — nbgrader restored it")
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
        for p in self.data_files:
            (shutil.copytree if p.is_dir() else shutil.copy)(p, source / p.name)
        shutil.copy(self.template_db, course / "gradebook.db")
        schema_known("sqlite:///" + str(course / "gradebook.db"))
        disposable("sqlite:///" + str(course / "gradebook.db"))
        g.box = self.sandbox_root / "box"
        drain(self.uid)
        prepare_box(g.box, self.uid)
        _copy_plain_files(g.folder, g.box / "home",
                          skip=lambda rel: rel.suffix == ".ipynb" or rel.name in PRIVATE_FILES)
        _copy_plain_files(source, g.box / "home")

    def step_add_canary(self, g: Grading) -> None:
        """Canary cells appended to the working copy, which is written where nbgrader reads it."""
        g.nonce = canary.new_nonce()
        canary.append(g.nb, self.spec.tests, self.spec.functions, g.nonce)
        _write_for_nbgrader(g.nb, self._submitted(g))

    def step_autograde(self, g: Grading) -> None:
        """nbgrader's ``Autograde`` converter on the scratch course, its kernel in the sandbox."""
        self.log.handlers = [g.capture]
        g.template = self._ready_template()
        g.result.timings["prepare"] = round(time.monotonic() - g.started, 3)
        started = time.monotonic()
        ok = self._run_nbgrader(g)
        ended = time.monotonic()
        g.kernels = [KernelRun.of(event) for event in g.kernel_events]
        if g.kernels:
            g.result.kernel = "warm" if any(k.warm for k in g.kernels) else "cold"
            if g.result.kernel == "cold" and self.spec.warm:
                g.result.kernel_note = self.template_problem or "the warm template could not fork this kernel"
        if g.template is not None:  # what the kernel left running dies with it, as in a cold sandbox
            g.template.sweep()
            drain(self.uid, patience=0.0)
        cpu = sum(k.cpu_seconds for k in g.kernels)
        if cpu:
            g.result.timings["kernel_cpu"] = round(cpu, 3)
        g.tracker.done = max((k.shutdown_at for k in g.kernels), default=0.0)
        g.result.timings.update(g.tracker.phases(started, ended))
        g.result.notes += list(dict.fromkeys([*map(_note, g.restored), *notes_from_log(g.capture.text())]))
        autograded = self._autograded(g)
        if not ok or not autograded.exists():
            failure = explain_failure(g.capture, self.spec.limits, g.tracker.cell, g.kernels, g.invalid_metadata)
            log = g.box / "kernel.log"
            if failure.cause == "kernel-start" and log.exists():
                failure = Failure(failure.owner, failure.cause, failure.reason, failure.advice,
                                  detail=log.read_text(errors="replace")[-1500:])
            g.result.fail(failure)
            raise Stop
        g.graded = _read_written(autograded)
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
            names = cell_names(sub.notebook)
            for grade in sub.grades:
                name = names.get(grade.cell_id) or grade.name
                result.grades[name] = Grade(grade.auto_score, float(grade.max_score), bool(grade.needs_manual_grade))
                g.scores[name] = (float(grade.auto_score or 0.0), float(grade.max_score))
            result.comments = {names.get(c.cell_id) or c.name: c.auto_comment for c in sub.comments}
            result.late_penalty = sub.late_submission_penalty

    def step_read_outcomes(self, g: Grading) -> None:
        """Each test cell's outcome, read from the results the checks displayed."""
        g.result.tests = check_results.read_notebook(g.graded, self.spec.functions, g.scores)
        g.result.first_error = first_error(g.graded)

    def step_trim_outputs(self, g: Grading) -> None:
        """Outputs over the byte limits cut down to their head, with a note of what was cut (the checks'
        results, already read, are kept whole)."""
        g.result.trimmed = trim_outputs(g.graded, **self.spec.output_limits)

    def step_collect_notes(self, g: Grading) -> None:
        """Notes for the instructor, and the autograded notebook (canary-free) packed to travel back."""
        g.result.notes += notes_from_cells(g.graded)
        if any(k.wall_killed for k in g.kernels):
            g.result.notes.append(Note("wall-clock", "the notebook's wall-clock limit stopped its kernel"))
        autograded = self._autograded(g)
        _write(g.graded, autograded)
        g.result.autograded = pack_folder(autograded.parent)
        if g.autograded_at:
            g.result.timings["finish"] = round(time.monotonic() - g.autograded_at, 3)

    # -- nbgrader ---------------------------------------------------------------------------

    def _submitted(self, g: Grading) -> Path:
        return g.course / "submitted" / g.job.student / self.spec.assignment / f"{self.spec.notebook}.ipynb"

    def _autograded(self, g: Grading) -> Path:
        return g.course / "autograded" / g.job.student / self.spec.assignment / f"{self.spec.notebook}.ipynb"

    def _config(self, g: Grading):
        from nbgrader.converters import Autograde
        from nbgrader.preprocessors import ClearOutput, DeduplicateIds, OverwriteCells, OverwriteKernelspec

        from ..preprocessors.check_metadata import CheckCellMetadata, with_fast_metadata_check

        spec = self.spec
        cfg = Config(copy.deepcopy(self.spec.config))
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
        # The course's two restoring preprocessors run first; they are given to the converter as instances
        # (_run_nbgrader), so that what they put back is read from them.
        cfg.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells,
                                                CheckCellMetadata]
        steps = (cfg.Autograde.get("autograde_preprocessors")
                 or Autograde.class_traits()["autograde_preprocessors"].default())
        cfg.Autograde.autograde_preprocessors = with_fast_metadata_check(list(steps))
        cfg.OverwriteCells.add_missing_cells = True
        # nbconvert checks the whole notebook against the schema after every preprocessor (thirteen times a
        # notebook here, RestoreCellMetadata included); once, after each pass's last, rejects the same invalid
        # notebook.
        cfg.Exporter.optimistic_validation = True
        # What happens to this notebook's kernels lands in its own log, handed over with the configuration.
        cfg.Execute.kernel_manager_class = SandboxedKernelManager
        cfg.SandboxedKernelManager.kernels = KernelLog(g.template, g.kernel_events)
        cfg.Execute.timeout = spec.cell_timeout
        cfg.Execute.interrupt_on_timeout = True
        cfg.Execute.on_cell_start = g.tracker
        cfg.Execute.shutdown_kernel = "immediate"  # its state is discarded anyway
        cfg.SandboxedKernelManager.box = str(g.box)
        cfg.SandboxedKernelManager.uid = self.uid
        cfg.SandboxedKernelManager.limits = spec.limits
        cfg.SandboxedKernelManager.sandboxed = spec.sandboxed
        return cfg

    def _run_nbgrader(self, g: Grading) -> bool:
        from nbgrader.converters import Autograde
        from nbgrader.coursedir import CourseDirectory

        from ..preprocessors.check_metadata import CheckCellMetadata
        from ..preprocessors.restore_metadata import RestoreCellMetadata
        from ..preprocessors.restore_structure import RestoreStructure

        share_engines()  # nbgrader opens the gradebook about ten times a notebook: its SQL compiled once per worker
        cfg = self._config(g)
        coursedir = CourseDirectory(config=cfg, log=self.log)
        converter = Autograde(coursedir=coursedir, config=cfg, log=self.log)
        restorers = [RestoreStructure(config=cfg, log=self.log), RestoreCellMetadata(config=cfg, log=self.log)]
        checker = CheckCellMetadata(config=cfg, log=self.log)  # one instance for both passes, read afterwards

        def checked(steps: list) -> list:
            return [checker if step is CheckCellMetadata else step for step in steps]

        converter.sanitize_preprocessors = [*restorers, *checked(converter.sanitize_preprocessors)]
        converter.autograde_preprocessors = checked(converter.autograde_preprocessors)
        try:
            converter.start()
        except Exception as error:  # noqa: BLE001 - nbgrader reports per-notebook failures this way
            self.log.error("autograde stopped: %s: %s", type(error).__name__, error)
            return False
        finally:
            g.restored = [item for restorer in restorers for item in restorer.restored]
            g.invalid_metadata = checker.failed
        return True


def _write(nb, path: Path) -> None:
    """``nb`` written as nbformat writes it, without checking it against the schema: what the worker writes is
    the submission as it was read (nbgrader checks it when it reads it), with the canary cells added, or
    nbgrader's own autograded notebook, with them taken away and long outputs cut."""
    Path(path).write_text(nbformat.v4.writes(nb), encoding="utf-8")


def _write_for_nbgrader(nb, path: Path) -> None:
    """``nb`` as plain JSON, for nbgrader alone to read: the working copy in the scratch course, which no one
    keeps.  nbformat's writer copies the whole notebook and sorts and indents it for people (2.5 ms of a core for a
    notebook of module 01, 0.3 ms this way); nbgrader's reader makes the same notebook of either."""
    Path(path).write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def _read_written(path: Path):
    """The notebook nbgrader has just written (and checked against the schema) at ``path``."""
    return nbformat.v4.reads(Path(path).read_text(encoding="utf-8"))


def _note(restored: Restored) -> Note:
    """The instructor's note of what a course preprocessor put back."""
    if restored.what == "structure":
        return Note("structure", restored.text)
    return Note("restored", f"edited nbgrader metadata: {restored.text} — restored from the gradebook")
