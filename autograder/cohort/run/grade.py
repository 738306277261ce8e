"""``grade``: autograde a cohort with N worker processes; only this coordinator writes the gradebook.

The coordinator

1. records the assignment in the course's gradebook if needed and copies its cells into
   a template gradebook (SQLite, private to this run) that every worker copies per notebook;
2. starts the grading engine (``dask_cluster.py``): a Dask cluster, local (N worker processes) or an
   existing one (``--scheduler``), whose workers each keep a long-lived grader (``worker/grader.py``)
   with its own scratch course and its own unprivileged uid for the sandbox, and hands it
   the submissions as jobs (``jobs.py``): their files travel with them;
3. checks that a kernel started in the sandbox imports exactly the ``autograder`` package
   this coordinator runs (and stops when it would import another one, or none);
4. first grades the assignment's own solution as a calibration run, a gate: it must score
   full marks under the same sandbox before any grade is written (when it does not, the
   run stops, writes nothing and says why; ``--force`` grades anyway and marks the run as
   forced), and it teaches the canary what an honest kernel shows;
5. for every outcome, applies the canary verdict (a compromised kernel scores zero and is
   flagged), writes the scores into the course's gradebook through nbgrader's
   ``Gradebook`` API, and puts the autograded notebook in ``autograded/STUDENT/ASSIGNMENT/``;
6. writes the run record ``reports/ASSIGNMENT/grading.json`` that ``feedback`` and
   ``report`` read.

A submission whose worker dies is given to another worker by Dask; one that a worker dies
with again, or that runs past the notebook's hard limit, is recorded as failed with the
reason.  Submissions are only ever read.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

from ...cells import nbgrader_meta
from .. import privacy
from ..course import Course, copy_assignment
from ..jobs import Job, RunSpec, pack_folder
from ..kernels.preflight import kernel_package, nbgrader_package, package_mismatch
from ..records import JOURNAL, REFERENCE, STUDENT, Failure, RunRecord, SubmissionResult, WorkerCount
from ..worker.dask_plugin import grader_uid
from .coordinator import Coordinator, explain_calibration, warn
from .dask_cluster import ClusterError, DaskCluster, scheduler_security, wait_any
from .errors import CalibrationFailed, GradingError
from .gradebook_writer import Writer
from .journal import Journal
from .machine import available_cpus, resolve_sandbox
from .options import Assignment, GradeOptions, RunSetup
from .summary import build_record, summarise

#: Seconds a worker may take beyond the notebook's wall-clock limit before it is replaced.
GRACE_SECONDS = 120


# --------------------------------------------------------------------------------------------
# The assignment as the workers need it


def _assignment(db_url: str, assignment: str, notebook: str) -> Assignment:
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        nb = gb.find_assignment(assignment).notebooks[0]
        sources = {c.name: c for c in nb.source_cells}
        grade_cells = {c.name: float(c.max_score) for c in nb.grade_cells}
        answers = _in_order([c.name for c in nb.solution_cells if c.name not in grade_cells], notebook)
        return Assignment(tests=[(name, sources[name].source) for name in _in_order(grade_cells, notebook)],
                          max_scores=grade_cells, functions=answers,
                          locked={name: c.source for name, c in sources.items() if c.locked})


def _in_order(names, notebook) -> list[str]:
    """Grade ids in the order of the course's source notebook, when it can be read; sorted otherwise."""
    names = set(names)
    try:
        import nbformat

        order = [nbgrader_meta(c).get("grade_id") for c in nbformat.read(str(notebook), 4).cells]
        ordered = [n for n in order if n in names]
        return ordered + sorted(names - set(ordered))
    except Exception:  # noqa: BLE001 - the order is cosmetic
        return sorted(names)


# --------------------------------------------------------------------------------------------
# The run


def grade(course: Course, assignment: str, options: GradeOptions | None = None) -> RunRecord:
    """Grade the cohort's submissions of ``assignment``; returns the run record, the typed
    :class:`~autograder.cohort.records.RunRecord` that ``grading.json`` holds as a dict (written to disk and read
    back by the views).

    Raises :class:`CalibrationFailed`, having written nothing, when the assignment's own solution
    does not score full marks under this run's set-up (unless ``options.force``).  Students the grader
    itself failed on are listed under ``not_graded`` in the record, with nothing written for them.
    """
    options = options or GradeOptions()
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy notes raised inside nbgrader
    warnings.filterwarnings("ignore", message=".*not in session.*")
    _refuse_a_shared_course(course, options)
    others = privacy.other_people()
    sandboxed, sandbox_warning = resolve_sandbox(options.sandbox, others)
    if sandbox_warning:
        warn(sandbox_warning)
    course.ensure_assignment(assignment)
    notebook = course.notebook_name(assignment)
    students = _students(course, assignment, options)
    reference_dir = course.source(assignment)
    reference_nb = reference_dir / f"{notebook}.ipynb"
    forced = _without_calibration(reference_nb, options)
    cell_timeout = options.cell_timeout or course.cell_timeout
    workers, why = _worker_count(options, len(students))
    scratch = Path(options.scratch or tempfile.mkdtemp(prefix="ag-"))
    scratch.mkdir(parents=True, exist_ok=True)
    if options.scheduler:  # an unauthenticated scheduler where others work stops the run before anything starts
        try:
            scheduler_security(options.scheduler, others, options.insecure_scheduler)
        except ClusterError as error:
            raise GradingError(str(error)) from None
    engine = DaskCluster(workers, options.scheduler, others, options.insecure_scheduler)
    engine.launch()  # the cluster starts while the kernel is checked
    try:
        package = kernel_package(scratch / "preflight", grader_uid(os.getpid()), options.limits, sandboxed,
                                 _kernel_name(reference_nb))
        own = course.root / "autograder"
        mismatch = package_mismatch(package.coordinator, nbgrader_package(),
                                    str(own) if (own / "__init__.py").is_file() else None)
        if mismatch:
            warn("PACKAGES DIFFER: " + mismatch)
        if package.problem:
            raise GradingError(f"{package.problem}. Nothing was graded. Grade with the interpreter whose "
                               f"environment holds the course package ({package.coordinator}), for example "
                               "`python -m autograder grade ...` from a virtual environment where it is installed.")
        template = scratch / "template.db"
        copy_assignment(course.db_url, "sqlite:///" + str(template), assignment, course.course_id or "default_course")
        facts = _assignment("sqlite:///" + str(template), assignment, reference_nb)
        if options.kernels not in ("warm", "cold"):
            raise GradingError(f"--kernels must be warm or cold, not {options.kernels!r}")
        spec = RunSpec(assignment=assignment, notebook=notebook, sandboxed=sandboxed, warm=options.kernels == "warm",
                       limits=options.limits, cell_timeout=cell_timeout, tests=facts.tests,
                       functions=facts.functions, locked=facts.locked, config=course.config,
                       template_db=template.read_bytes(), data_files=_pack_data(course.data_files(assignment)),
                       output_limits=options.output_limits)
        setup = RunSetup(course, assignment, notebook, students, options, sandboxed, sandbox_warning, package, facts,
                         cell_timeout, reference_dir, WorkerCount(workers, why), others)
        return _run(setup, spec, engine, forced)
    finally:
        engine.close()  # a no-op when the run closed it
        if options.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)


def _refuse_a_shared_course(course: Course, options: GradeOptions) -> None:
    if options.allow_shared_course:
        return
    exposed = privacy.exposed(course.root, [course.folder("source"), course.folder("submitted"), course.db_file()])
    if exposed:
        raise GradingError(privacy.refusal(course.root, exposed))


def _students(course: Course, assignment: str, options: GradeOptions) -> list[str]:
    """The students to grade: the ones asked for (each must have a submission), or every submission."""
    every = course.students(assignment)
    students = list(dict.fromkeys(options.students)) if options.students else every
    missing = [s for s in students if s not in every]
    if missing:
        raise GradingError(f"no submission of {assignment} for {', '.join(missing)} "
                           f"(expected {course.folder('submitted')}/STUDENT/{assignment}/)")
    if not students:
        raise GradingError(f"no submissions in {course.folder('submitted')}/*/{assignment}/: run `collect` first")
    return students


def _without_calibration(reference_nb: Path, options: GradeOptions) -> str:
    """Why the run goes without calibration ("" when it calibrates): there is no solution, and it is forced."""
    if reference_nb.is_file():
        return ""
    cause = (f"there is no solution notebook at {reference_nb} to calibrate the grading set-up with, "
             "so nothing proves that a correct submission scores full marks here")
    if not options.force:
        raise CalibrationFailed(f"Calibration impossible: {cause}. No grade was written. Put the assignment's "
                                "source notebook back, or pass --force to grade without calibration.")
    return cause


def _worker_count(options: GradeOptions, submissions: int) -> tuple[int, str]:
    """How many workers, and why.  At most one per submission: a regrade of one student starts one worker,
    which runs the calibration and then the student's notebook, forked from the same warm template."""
    cpus, why = (options.workers, "--workers") if options.workers else available_cpus()
    workers = max(1, min(cpus, submissions))
    if workers < cpus:
        why += f", at most one per submission ({submissions})"
    print(f"grading with {workers} worker{'s' if workers != 1 else ''} ({why})", file=sys.stderr, flush=True)
    return workers, why


def _kernel_name(notebook: Path) -> str:
    try:
        import nbformat

        return nbformat.read(str(notebook), 4).metadata.get("kernelspec", {}).get("name") or "python3"
    except Exception:  # noqa: BLE001 - no readable source: the usual kernel
        return "python3"


def _pack_data(paths: list[Path]) -> dict:
    """The assignment's data files (files or folders) as one packed folder."""
    files: dict = {}
    for path in paths:
        if path.is_dir():
            files.update({f"{path.name}/{rel}": c for rel, c in pack_folder(path).items()})
        elif path.is_file() and not path.is_symlink():
            files[path.name] = path.read_bytes()
    return files


def _run(setup: RunSetup, spec: RunSpec, engine: DaskCluster, forced: str) -> RunRecord:
    course, assignment, students, options = setup.course, setup.assignment, setup.students, setup.options
    journal = Journal(course.reports(assignment) / JOURNAL, assignment, students)
    carried = journal.carried()
    if journal.resumes:
        print(f"resuming an interrupted run of {assignment}: {len(carried)} of {len(students)} students were "
              f"graded before it stopped and are kept", file=sys.stderr, flush=True)
    todo: list[tuple[int, str, Path]] = []  # (seq, student, folder); packed when handed out
    if not forced:
        todo.append((0, REFERENCE, setup.reference_dir))
    todo += [(i, s, course.submitted(s, assignment)) for i, s in enumerate(students, 1)
             if not (journal.resumes and s in carried)]

    started = time.monotonic()
    writer = Writer(course, assignment, setup.notebook, journal)
    coordinator = Coordinator(writer, setup.facts.possible, force=options.force,
                              explain=lambda r: explain_calibration(r, course, assignment, setup.sandboxed))
    if forced:
        coordinator.skip_calibration(forced)
    bar = None
    interrupted = False
    restore = _stop_on_signals()
    try:
        try:
            engine.start(spec)
        except ClusterError as error:
            raise GradingError(str(error)) from None
        bar = _progress_bar(options, assignment, len(students), len(carried) if journal.resumes else 0)
        coordinator.listeners.append(lambda student, entry: _advance(bar, coordinator))
        _loop(todo, engine, coordinator, options.limits.notebook_seconds + GRACE_SECONDS)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        restore()
        if bar is not None:
            bar.close()
        engine.close()
        writer.close()
        journal.close()
        if interrupted:
            kept = sum(1 for s in students if s in journal.entries or (journal.resumes and s in carried))
            print(f"\ninterrupted: {kept} of {len(students)} students are graded and kept "
                  f"(journal {journal.path}); no grading process is left. Run the same `grade` again to "
                  "resume.", file=sys.stderr, flush=True)
    if coordinator.refused:
        raise CalibrationFailed(coordinator.refused)

    written = dict(coordinator.results)
    everyone = {**carried, **written}
    record = build_record(setup, everyone, coordinator, engine, time.monotonic() - started)
    if not coordinator.not_graded:
        journal.remove()  # otherwise kept: the next run of the same students resumes and grades only them
    summarise(record, [s for s in students if s in everyone or s in coordinator.not_graded], course)
    return record


def _progress_bar(options: GradeOptions, assignment: str, total: int, initial: int):
    from tqdm import tqdm

    tqdm.monitor_interval = 0
    return tqdm(total=total, initial=initial, unit="nb", desc=f"grading {assignment}", disable=not options.progress,
                file=sys.stderr, dynamic_ncols=True)


def _advance(bar, coordinator: Coordinator) -> None:
    bar.update(1)
    flagged = sum(1 for e in coordinator.results.values() if e.flags)
    bar.set_postfix(flagged=flagged, refresh=False)


def _loop(todo: list, engine: DaskCluster, coordinator: Coordinator, hard_limit: float) -> None:
    """Hand out submissions (at most one in flight per worker, so that a task's age is its grading time) and
    give each result to the coordinator as it comes back; stop a task that runs past ``hard_limit``.

    A worker whose result came back is given its next submission before that result is written: the
    gradebook's transaction runs while the worker grades."""
    running: dict = {}  # future -> (student, handed out at)
    capacity, counted = engine.count_workers(), time.monotonic()
    while (todo or running) and not coordinator.refused:
        if engine.kind == "scheduler" and time.monotonic() - counted > 5:
            capacity, counted = engine.count_workers(), time.monotonic()
        _hand_out(todo, running, engine, capacity)
        finished = [(future, *running.pop(future)) for future in wait_any(list(running), timeout=1.0)]
        if finished:
            _hand_out(todo, running, engine, capacity)
        for future, student, handed in finished:
            result = engine.outcome(future, student)
            # What the round trip cost beyond the grading itself: Dask, the files both ways, the wait to be read.
            result.timings["engine"] = round(max(0.0, time.monotonic() - handed - result.seconds), 3)
            with _deferred_stop:  # a student's rows, autograded folder and journal line go together
                coordinator.accept(result)
            if coordinator.refused:
                return
        _stop_overdue(running, engine, coordinator, hard_limit)


def _hand_out(todo: list, running: dict, engine: DaskCluster, capacity: int) -> None:
    while todo and len(running) < max(1, capacity):
        seq, student, folder = todo.pop(0)
        job = Job(seq, student, pack_folder(folder), reference=student == REFERENCE)
        running[engine.submit(job)] = (student, time.monotonic())


def _stop_overdue(running: dict, engine: DaskCluster, coordinator: Coordinator, hard_limit: float) -> None:
    now = time.monotonic()
    for future, (student, handed) in list(running.items()):
        if now - handed > hard_limit:
            running.pop(future)
            engine.stop_task(future)
            failure = Failure(STUDENT, "hard-limit", f"grading this notebook took over {hard_limit} s; the "
                                                     "grading process was stopped",
                              "raise --notebook-timeout if the solution needs that long")
            with _deferred_stop:
                coordinator.accept(SubmissionResult.failed(student, failure))


def _stop_on_signals():
    """Make SIGINT and SIGTERM raise KeyboardInterrupt here (a shell may have started us with SIGINT
    ignored, as it does for background jobs); returns what puts the previous handlers back."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def stop(signum, frame):
        if _deferred_stop.depth:
            _deferred_stop.pending = signal.Signals(signum).name
            return
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore


class _DeferredStop:
    """A section that a stop signal does not cut: the signal takes effect when the section ends."""

    depth = 0
    pending = ""

    def __enter__(self):
        self.depth += 1

    def __exit__(self, *exc):
        self.depth -= 1
        if not self.depth and self.pending and exc[0] is None:
            name, self.pending = self.pending, ""
            raise KeyboardInterrupt(name)
        return False


_deferred_stop = _DeferredStop()
