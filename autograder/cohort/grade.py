"""``grade``: autograde a cohort with N worker processes; only this coordinator writes the gradebook.

The coordinator

1. records the assignment in the course's gradebook if needed and copies its cells into
   a template gradebook (SQLite, private to this run) that every worker copies per notebook;
2. starts the grading engine (``engine.py``): a Dask cluster, local (N worker processes) or an
   existing one (``--scheduler``), whose workers each keep a long-lived grader (``worker.py``)
   with its own scratch course and its own unprivileged uid for the sandbox, and hands it
   the submissions as records (``record.py``): their files travel with them;
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
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from . import canary
from .course import Course, copy_assignment
from .engine import Assignment, Engine, EngineError, grader_uid, wait_any
from .record import (
    JOURNAL,
    RECORD,
    REFERENCE,
    Job,
    Journal,
    KernelOutcome,
    RunRecord,
    StudentEntry,
    load_students,
    pack_folder,
    safe_url,
    unpack_folder,
)
from .sandbox import Limits, kernel_package, probe

#: Seconds a worker may take beyond the notebook's wall-clock limit before it is replaced.
GRACE_SECONDS = 120


class GradingError(RuntimeError):
    """The run cannot start (no such assignment, no sandbox when one was required, ...)."""

    exit_code = 2


class CalibrationFailed(GradingError):
    """The assignment's own solution did not score full marks under the run's set-up: nothing was written."""

    exit_code = 3


@dataclass
class GradeOptions:
    workers: int | None = None  # default: every core this process may use
    students: list[str] | None = None  # default: every submission
    scheduler: str | None = None  # a Dask scheduler's address (tcp://HOST:8786); default: a local cluster
    sandbox: str = "auto"  # auto | bwrap | off
    kernels: str = "warm"  # warm: forked from a template per worker (autograder.cohort.warm) | cold: a new interpreter each
    limits: Limits = field(default_factory=Limits)
    cell_timeout: int | None = None  # default: the course's c.Execute.timeout
    progress: bool = True
    scratch: Path | None = None  # default: a fresh temporary directory
    force: bool = False  # grade even when calibration fails (the run is marked as forced)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def resolve_sandbox(mode: str) -> tuple[bool, str]:
    """``(sandboxed, warning)`` for ``auto``/``bwrap``/``off``; raises when ``bwrap`` cannot run."""
    if mode not in ("auto", "bwrap", "off"):
        raise GradingError(f"--sandbox must be auto, bwrap or off, not {mode!r}")
    if mode == "off":
        return False, ("SANDBOX OFF (--sandbox off): student code runs unconfined, with this user's rights; "
                       "it can read the course, the solutions and the gradebook. Use only for trusted notebooks.")
    problem = probe()
    if problem is None:
        return True, ""
    if mode == "bwrap":
        raise GradingError(f"--sandbox bwrap: cannot start the sandbox: {problem}")
    return False, (f"SANDBOX UNAVAILABLE, GRADING WITHOUT IT: {problem}. Student code runs unconfined and can "
                   "read the course, the solutions and the gradebook. Install bubblewrap (or allow user "
                   "namespaces) and grade again, or pass --sandbox bwrap to refuse to grade without it.")


def warn(message: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n!! {message}\n{bar}\n", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# The assignment as the workers need it


def _assignment_facts(db_url: str, assignment: str, notebook: str) -> dict:
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        nb = gb.find_assignment(assignment).notebooks[0]
        sources = {c.name: c for c in nb.source_cells}
        grade_cells = {c.name: float(c.max_score) for c in nb.grade_cells}
        answers = _in_order([c.name for c in nb.solution_cells if c.name not in grade_cells], notebook)
        return {
            "tests": [(name, sources[name].source) for name in _in_order(grade_cells, notebook)],
            "max_scores": grade_cells,
            "functions": answers,
            "locked": {name: c.source for name, c in sources.items() if c.locked},
        }


def _in_order(names, notebook) -> list[str]:
    """Grade ids in the order of the course's source notebook, when it can be read; sorted otherwise."""
    names = set(names)
    try:
        import nbformat

        order = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nbformat.read(str(notebook), 4).cells]
        ordered = [n for n in order if n in names]
        return ordered + sorted(names - set(ordered))
    except Exception:  # noqa: BLE001 - the order is cosmetic
        return sorted(names)


# --------------------------------------------------------------------------------------------
# The gradebook and the course's folders (written only here)


def _timestamp(folder: Path):
    from nbgrader.utils import parse_utc

    path = folder / "timestamp.txt"
    if not path.is_file():
        return None
    try:
        return parse_utc(path.read_text().strip())
    except Exception:  # noqa: BLE001 - a malformed timestamp is ignored, as nbgrader does
        return None


def _write_gradebook(gb, assignment: str, notebook: str, result: dict, timestamp) -> None:
    student = result["student"]
    gb.update_or_create_student(student)
    if timestamp is not None:
        gb.update_or_create_submission(assignment, student, timestamp=timestamp)
    else:
        gb.update_or_create_submission(assignment, student)
    sub = gb.find_submission_notebook(notebook, assignment, student)
    zero = result["status"] != "graded" or result.get("compromised")
    for grade in sub.grades:
        info = result["grades"].get(grade.name)
        auto = 0.0 if zero or info is None else info["auto_score"]
        grade.auto_score = auto
        grade.needs_manual_grade = grade.manual_score is not None or auto is None
    for comment in sub.comments:
        comment.auto_comment = None if zero else result["comments"].get(comment.name)
    sub.flagged = bool(result.get("flags"))
    if result.get("late_penalty") is not None and not zero:
        sub.late_submission_penalty = result["late_penalty"]
    gb.db.commit()


def _place_autograded(course: Course, assignment: str, result: dict) -> None:
    dest = course.autograded(result["student"], assignment)
    if dest.exists():
        shutil.rmtree(dest)
    if result.get("autograded"):
        unpack_folder(result["autograded"], dest)


def _flags(result: dict) -> list[dict]:
    flags = []
    if result.get("compromised"):
        flags.append({"kind": "compromised", "detail": result["canary_verdict"]["detail"]})
    if result["status"] != "graded":
        flags.append({"kind": "not graded", "detail": result["reason"]})
    if result.get("findings"):
        rules = sorted({f["rule"] for f in result["findings"]})
        flags.append({"kind": "scan", "detail": f"{len(result['findings'])} line(s) reach for grader internals: "
                                               + ", ".join(rules)})
    return flags


# --------------------------------------------------------------------------------------------
# The run


def grade(course: Course, assignment: str, options: GradeOptions | None = None) -> dict:
    """Grade the cohort's submissions of ``assignment``; returns the run record (also written to disk).

    Raises :class:`CalibrationFailed`, having written nothing, when the assignment's own solution
    does not score full marks under this run's set-up (unless ``options.force``).
    """
    options = options or GradeOptions()
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy notes raised inside nbgrader
    warnings.filterwarnings("ignore", message=".*not in session.*")
    sandboxed, sandbox_warning = resolve_sandbox(options.sandbox)
    if sandbox_warning:
        warn(sandbox_warning)
    course.ensure_assignment(assignment)
    notebook = course.notebook_name(assignment)
    every = course.students(assignment)
    students = list(dict.fromkeys(options.students)) if options.students else every
    missing = [s for s in students if s not in every]
    if missing:
        raise GradingError(f"no submission of {assignment} for {', '.join(missing)} "
                           f"(expected {course.folder('submitted')}/STUDENT/{assignment}/)")
    if not students:
        raise GradingError(f"no submissions in {course.folder('submitted')}/*/{assignment}/: run `collect` first")
    reference_dir = course.source(assignment)
    reference_nb = reference_dir / f"{notebook}.ipynb"
    forced = ""
    if not reference_nb.is_file():
        cause = (f"there is no solution notebook at {reference_nb} to calibrate the grading set-up with, "
                 "so nothing proves that a correct submission scores full marks here")
        if not options.force:
            raise CalibrationFailed(f"Calibration impossible: {cause}. No grade was written. Put the assignment's "
                                    "source notebook back, or pass --force to grade without calibration.")
        forced = cause

    cell_timeout = options.cell_timeout or course.cell_timeout
    # At most one worker per submission: a regrade of one student starts one worker, which runs the
    # calibration and then the student's notebook, forked from the same warm template.
    workers = max(1, min(options.workers or default_workers(), len(students)))
    scratch = Path(options.scratch or tempfile.mkdtemp(prefix="ag-"))
    scratch.mkdir(parents=True, exist_ok=True)
    engine = Engine(workers, options.scheduler)
    engine.launch()  # the cluster starts while the kernel is checked
    try:
        package = kernel_package(scratch / "preflight", grader_uid(os.getpid()), options.limits, sandboxed,
                                 _kernel_name(reference_nb))
        if package.problem:
            raise GradingError(f"{package.problem}. Nothing was graded. Grade with the interpreter whose "
                               f"environment holds the course package ({package.coordinator}), for example "
                               "`python -m autograder grade ...` from a virtual environment where it is installed.")
        template = scratch / "template.db"
        copy_assignment(course.db_url, "sqlite:///" + str(template), assignment, course.course_id or "default_course")
        facts = _assignment_facts("sqlite:///" + str(template), assignment, reference_nb)
        if options.kernels not in ("warm", "cold"):
            raise GradingError(f"--kernels must be warm or cold, not {options.kernels!r}")
        task = Assignment(assignment=assignment, notebook=notebook, sandboxed=sandboxed, warm=options.kernels == "warm",
                          limits=options.limits.as_dict(), cell_timeout=cell_timeout, tests=facts["tests"],
                          functions=facts["functions"], locked=facts["locked"], config=course.config,
                          template_db=template.read_bytes(), data_files=_pack_data(course.data_files(assignment)))
        return _run(course, assignment, notebook, students, options, sandboxed, sandbox_warning, forced, package,
                    facts, task, engine, cell_timeout, reference_dir)
    finally:
        engine.close()  # a no-op when the run closed it
        if options.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)


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


def _run(course, assignment, notebook, students, options, sandboxed, sandbox_warning, forced, package, facts,
         task: Assignment, engine: Engine, cell_timeout, reference_dir) -> dict:
    journal = Journal(course.reports(assignment) / JOURNAL, assignment, students)
    carried = journal.carried()
    if journal.resumes:
        print(f"resuming an interrupted run of {assignment}: {len(carried)} of {len(students)} students were "
              f"graded before it stopped and are kept", file=sys.stderr, flush=True)
    todo: list[tuple[int, str, Path]] = []  # (seq, student, folder); packed when handed out
    if not forced:
        todo.append((0, REFERENCE, reference_dir))
    for i, student in enumerate(students, 1):
        if not (journal.resumes and student in carried):
            todo.append((i, student, course.submitted(student, assignment)))

    started = time.monotonic()
    results: dict[str, dict] = {}
    calibration: dict | None = None
    expected: dict | None = None
    waiting_for_calibration = bool(todo) and todo[0][1] == REFERENCE
    pending: list[dict] = []
    refused: str = ""  # the calibration failure that stops the run before anything is written
    hard_limit = options.limits.notebook_seconds + GRACE_SECONDS

    from tqdm import tqdm

    tqdm.monitor_interval = 0
    max_total = sum(facts["max_scores"].values())
    bar = gb = None
    interrupted = False
    restore = _stop_on_signals()
    try:
        try:
            engine.start(task)
        except EngineError as error:
            raise GradingError(str(error)) from None
        bar = tqdm(total=len(students), initial=len(carried) if journal.resumes else 0, unit="nb",
                   desc=f"grading {assignment}", disable=not options.progress, file=sys.stderr, dynamic_ncols=True)

        def finish(result: dict) -> None:
            nonlocal calibration, expected, waiting_for_calibration, refused, forced, gb
            if result.get("reference"):
                calibration = result
                expected = canary.expectations(result.get("canary", {})) if result["status"] == "graded" else None
                waiting_for_calibration = False
                if not _full_marks(result):
                    explanation = explain_calibration(result, course, assignment, sandboxed)
                    if not options.force:
                        refused = explanation
                        return
                    forced = explanation
                    warn("--force: grading although calibration failed. " + explanation)
                for held in pending:
                    finish(held)
                pending.clear()
                return
            if waiting_for_calibration:
                pending.append(result)
                return
            _judge(result, expected)
            if gb is None:  # opened only once calibration has passed (or was forced)
                gb = course.gradebook()
            folder = course.submitted(result["student"], assignment)
            with _deferred_stop:  # a student's rows, autograded folder and journal line go together
                _write_gradebook(gb, assignment, notebook, result, _timestamp(folder))
                _place_autograded(course, assignment, result)
                journal.add(result["student"], _entry(result, max_total, bool(forced)))
            results[result["student"]] = result
            bar.update(1)
            flagged = sum(1 for r in results.values() if r["flags"])
            bar.set_postfix(flagged=flagged, refresh=False)

        # At most one notebook in flight per worker, so that a task's age is its grading time.
        running: dict = {}  # future -> (student, handed out at)
        capacity, counted = engine.workers, time.monotonic()
        while (todo or running) and not refused:
            if engine.kind == "scheduler" and time.monotonic() - counted > 5:
                capacity, counted = engine.workers, time.monotonic()
            while todo and len(running) < max(1, capacity):
                seq, student, folder = todo.pop(0)
                job = Job(seq, student, pack_folder(folder), reference=student == REFERENCE)
                running[engine.submit(job)] = (student, time.monotonic())
            for future in wait_any(list(running), timeout=1.0):
                student, _ = running.pop(future)
                finish(engine.outcome(future, student).as_dict())
                if refused:
                    break
            now = time.monotonic()
            for future, (student, handed) in list(running.items()):
                if now - handed > hard_limit:
                    running.pop(future)
                    engine.stop_task(future)
                    finish(KernelOutcome.failed(student, f"grading this notebook took over {hard_limit} s; the "
                                                         "grading process was stopped").as_dict())
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        restore()
        if bar is not None:
            bar.close()
        engine.close()
        if gb is not None:
            gb.close()
        journal.close()
        if interrupted:
            kept = sum(1 for s in students if s in journal.entries or (journal.resumes and s in carried))
            print(f"\ninterrupted: {kept} of {len(students)} students are graded and kept "
                  f"(journal {journal.path}); no grading process is left. Run the same `grade` again to "
                  "resume.", file=sys.stderr, flush=True)
    if refused:
        raise CalibrationFailed(refused)

    everyone = {**carried, **{s: _entry(r, max_total, bool(forced)) for s, r in results.items()}}
    record = _record(course, assignment, notebook, facts, everyone, calibration, sandboxed, sandbox_warning,
                     options, cell_timeout, engine, time.monotonic() - started, forced, package)
    journal.remove()
    _summarise(record, [s for s in students if s in everyone], course)
    return record.as_dict()


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


def _entry(result: dict, max_total: float, forced: bool) -> StudentEntry:
    """A student's entry in the run record."""
    return StudentEntry(status=result["status"], reason=result["reason"], score=result["score"],
                        max_score=result["max_score"] or max_total, tests=result["tests"],
                        findings=result["findings"], notes=result["notes"], flags=result["flags"],
                        compromised=result["compromised"], canary_verdict=result["canary_verdict"],
                        seconds=result["seconds"], timings=result["timings"], forced=forced)


def _full_marks(result: dict) -> bool:
    return result["status"] == "graded" and bool(result["grades"]) and all(
        (g["auto_score"] or 0) >= g["max_score"] for g in result["grades"].values())


def explain_calibration(result: dict, course: Course, assignment: str, sandboxed: bool) -> str:
    """One paragraph for the instructor: what the solution scored, its first failing cell, what to do."""
    source = course.source(assignment) / f"{assignment}.ipynb"
    try:
        source = source.relative_to(course.root)
    except ValueError:
        pass
    score = sum(float(g["auto_score"] or 0) for g in result["grades"].values())
    total = sum(float(g["max_score"]) for g in result["grades"].values())
    where = f"sandbox: {'bwrap' if sandboxed else 'off'}"
    first = result.get("first_error") or {}
    if result["status"] != "graded":
        seen = f"could not be graded ({result['reason']})"
        cause = result["reason"]
    else:
        seen = f"scored {score:g} of {total:g}"
        cause = f"{first.get('ename', '')}: {first.get('evalue', '')}"
    lines = [f"Calibration failed: the assignment's own solution ({source}) {seen} under this grading set-up "
             f"({where}), so no grade was written: the gradebook, grading.json and autograded/ are unchanged."]
    if first:
        lines.append(f"First failing cell: {first['cell']!r} raised {first['ename']}: {first['evalue']}.")
    log = next((n for n in result.get("notes", []) if n.startswith("kernel log: ")), "")
    if log:
        lines.append("Kernel log (last line): " + (log.strip().splitlines() or [""])[-1][:300] + ".")
    lines.append("What to do: " + _calibration_advice(first.get("ename", ""), cause, sandboxed) +
                 " Then grade again; --force grades anyway and marks the run as forced.")
    return " ".join(lines)


def _calibration_advice(ename: str, cause: str, sandboxed: bool) -> str:
    if ename in ("ModuleNotFoundError", "ImportError"):
        return (f"the grading kernel cannot import a module the solution needs; install it into the environment "
                f"that grades ({sys.prefix}), or check that the course package is installed there "
                "(`python -c 'import autograder'` with that interpreter).")
    if "wall-clock" in cause:
        return "the notebook needs more time than --notebook-timeout allows here; raise it."
    if "per-cell time limit" in cause or ename == "CellTimeoutError":
        return "a cell needs more time than --cell-timeout allows here; raise it."
    if ename == "MemoryError" or "SIGKILL" in cause or "memory" in cause.lower():
        return "the notebook needs more memory than --memory-mb allows here; raise it."
    if "did not start" in cause:
        return ("the kernel did not start in the sandbox; run `python -m autograder grade ... --sandbox off` on the "
                "solution alone to tell the sandbox from the environment, and read the kernel log above.")
    if ename == "CheckFailed" or ename == "AssertionError":
        return ("the solution fails its own checks on this machine; run the solution notebook here (Restart and Run "
                "All) and fix the solution or the checks before grading students with them.")
    return ("run the solution notebook with this interpreter (Restart and Run All) and fix what it reports"
            + (", or try --sandbox off on the solution alone to see whether the sandbox is the cause." if sandboxed
               else "."))


def _judge(result: dict, expected: dict | None) -> None:
    result["compromised"] = False
    result["canary_verdict"] = {"status": "not run", "detail": ""}
    if result["status"] == "graded":
        verdict = canary.verdict(result.get("canary", {}), expected)
        result["canary_verdict"] = {"status": verdict.status, "detail": verdict.detail}
        result["compromised"] = verdict.compromised
    result["flags"] = _flags(result)
    total = sum(float(g["max_score"]) for g in result["grades"].values())
    score = 0.0 if result["status"] != "graded" or result["compromised"] else \
        sum(float(g["auto_score"] or 0) for g in result["grades"].values())
    result["score"], result["max_score"] = score, total


def _record(course: Course, assignment: str, notebook: str, facts: dict, students: dict[str, StudentEntry],
            calibration: dict | None, sandboxed: bool, sandbox_warning: str, options: GradeOptions,
            cell_timeout: int, engine: Engine, seconds: float, forced: str = "", package=None) -> RunRecord:
    """The run record, merged with the previous one's other students when only some were graded."""
    path = course.reports(assignment) / RECORD
    previous = load_students(path) if options.students else {}
    reference = None
    if calibration is not None:
        reference = {"status": calibration["status"], "reason": calibration["reason"],
                     "full_marks": _full_marks(calibration), "first_error": calibration.get("first_error") or {},
                     "canary": calibration.get("canary", {})}
    record = RunRecord(
        assignment=assignment,
        notebook=notebook,
        graded_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        seconds=round(seconds, 1),
        workers=engine.seen_workers,
        sandbox={"mode": "bwrap" if sandboxed else "off", "warning": sandbox_warning, "kernels": options.kernels},
        limits={**options.limits.as_dict(), "cell_seconds": cell_timeout},
        gradebook=safe_url(course.db_url),
        functions=facts["functions"],
        tests=[{"test": t, "max_score": facts["max_scores"][t]} for t, _ in facts["tests"]],
        calibration=reference,
        forced={"forced": bool(forced), "reason": forced},
        package={"coordinator": package.coordinator, "kernel": package.kernel} if package else {},
        kernel_cpu_seconds=round(sum((e.timings or {}).get("kernel_cpu", 0.0) for e in students.values())
                                 + ((calibration or {}).get("timings") or {}).get("kernel_cpu", 0.0), 2),
        students={**previous, **students},
        engine={"kind": engine.kind, "scheduler": options.scheduler or "", "retried": dict(sorted(engine.retried.items()))},
    )
    record.save(path)
    return record


def _summarise(record: RunRecord, graded: list[str], course: Course) -> None:
    students = {s: record.students[s] for s in graded}
    failed = {s: r for s, r in students.items() if r.status != "graded"}
    flagged = {s: r for s, r in students.items() if r.flags and r.status == "graded"}
    where = f"Dask scheduler {record.engine['scheduler']}" if record.engine.get("scheduler") else "local cluster"
    lines = [f"graded {len(students) - len(failed)} of {len(students)} submissions of {record.assignment} "
             f"in {record.seconds} s ({record.workers} worker{'s' if record.workers != 1 else ''}, {where}, "
             f"sandbox: {record.sandbox['mode']})"]
    if failed:
        lines.append("not graded (scored 0):")
        lines += [f"  {s}: {r.reason}" for s, r in failed.items()]
    if flagged:
        lines.append("flagged for review:")
        for s, r in flagged.items():
            lines += [f"  {s}: {f['kind']}: {f['detail']}" for f in r.flags]
    lines.append(f"gradebook: {record.gradebook}")
    lines.append(f"autograded notebooks: {course.folder('autograded')}/STUDENT/{record.assignment}/")
    lines.append(f"run record: {course.reports(record.assignment) / RECORD}")
    if record.sandbox["warning"]:
        lines.append("WARNING: " + record.sandbox["warning"])
    if record.forced["forced"]:
        lines.append("WARNING: FORCED RUN (--force): " + record.forced["reason"])
    print("\n".join(lines), flush=True)
