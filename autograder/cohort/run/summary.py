"""The end of a run: its record (``grading.json``) built from what the coordinator accepted, and the
summary printed for the instructor."""

from __future__ import annotations

from datetime import datetime, timezone

from ..course import Course
from ..records import (
    RECORD,
    Engine,
    Forced,
    Late,
    OutputLimits,
    Package,
    RunLimits,
    RunRecord,
    Sandbox,
    StudentEntry,
    TestPoints,
    load_students,
    safe_url,
)
from .coordinator import Coordinator, calibration_of
from .dask_cluster import DaskCluster
from .options import RunSetup


def build_record(setup: RunSetup, students: dict[str, StudentEntry], coordinator: Coordinator,
                 engine: DaskCluster, seconds: float) -> RunRecord:
    """The run record, with the previous record's entries for every student this run did not write: the
    students it was not asked to grade, and those the grader failed on (their gradebook rows are the
    previous run's too)."""
    course, options, calibration = setup.course, setup.options, coordinator.calibration
    path = course.reports(setup.assignment) / RECORD
    previous = load_students(path)
    kept = {s: e for s, e in previous.items() if s in coordinator.not_graded or
            (options.students and s not in setup.students)}
    kernels = [e.kernel for e in coordinator.results.values()] + ([calibration.kernel] if calibration else [])
    record = RunRecord(
        assignment=setup.assignment,
        notebook=setup.notebook,
        graded_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        seconds=round(seconds, 1),
        workers=engine.seen_workers,
        sandbox=Sandbox("bwrap" if setup.sandboxed else "off", options.sandbox, setup.sandboxed, setup.sandbox_warning,
                        len(setup.others), *_kernels(options.kernels, kernels, coordinator.kernel_notes)),
        limits=RunLimits.of(options.limits, setup.cell_timeout),
        gradebook=safe_url(course.db_url),
        functions=list(setup.facts.functions),
        tests=[TestPoints(t, setup.facts.max_scores[t]) for t, _ in setup.facts.tests],
        calibration=calibration_of(calibration),
        forced=Forced(bool(coordinator.forced), coordinator.forced, coordinator.written, len(coordinator.not_graded)),
        package=Package(setup.package.coordinator, setup.package.kernel) if setup.package else None,
        kernel_cpu_seconds=round(sum((e.timings or {}).get("kernel_cpu", 0.0) for e in students.values())
                                 + (calibration.timings.get("kernel_cpu", 0.0) if calibration else 0.0), 2),
        students={**kept, **students},
        engine=Engine(engine.kind, options.scheduler or "", engine.authenticated, dict(sorted(engine.retried.items()))),
        worker_count=setup.workers,
        not_graded=dict(sorted(coordinator.not_graded.items())),
        output_limits=OutputLimits(**options.output_limits),
    )
    record.save(path)
    return record


def _kernels(asked: str, started: list[str], notes) -> tuple[str, str, str]:
    """How the run's kernels really started (``started``: each result's way, "" where none started):
    ``kernels`` is warm, cold or mixed, with the reasons (``notes``) when they started cold although warm
    ones were asked for."""
    seen = {k for k in started if k}
    kind = "mixed" if len(seen) > 1 else (seen.pop() if seen else asked)
    return kind, asked, "; ".join(sorted(notes))


def summarise(record: RunRecord, graded: list[str], course: Course) -> None:
    students = {s: record.students[s] for s in graded if s in record.students and s not in record.not_graded}
    failed = {s: r for s, r in students.items() if r.status != "graded"}
    flagged = {s: r for s, r in students.items() if r.flags and r.status == "graded"}
    late = {s: r for s, r in students.items() if r.late}
    where = f"Dask scheduler {record.engine.scheduler}" if record.engine.scheduler else "local cluster"
    where += ", TLS" if record.engine.authenticated else ", unauthenticated"
    total = len(students) + len(record.not_graded)
    lines = [f"graded {len(students) - len(failed)} of {total} submissions of {record.assignment} "
             f"in {record.seconds} s ({record.workers} worker{'s' if record.workers != 1 else ''}, {where}, "
             f"sandbox: {record.sandbox.mode}, kernels: {record.sandbox.kernels})"]
    if record.sandbox.kernels_note:
        lines.append(f"kernels: {record.sandbox.kernels_note}")
    if failed:
        lines.append("not graded (scored 0):")
        lines += [f"  {s}: {r.reason}" for s, r in failed.items()]
    if record.not_graded:
        lines.append(f"NOT GRADED: INTERNAL ERROR: {len(record.not_graded)} submission(s); nothing was written for "
                     "them and their previous grades stand:")
        for s, f in record.not_graded.items():
            lines.append(f"  {s}: not graded: internal error ({f.reason}). What to do: {f.advice}")
        lines.append("  then grade them again: " + " ".join(f"--student {s}" for s in record.not_graded))
    if late:
        lines.append(f"late: {len(late)} submission(s)")
        lines += [f"  {s}: {_late_words(r.late)}" for s, r in late.items()]
    if flagged:
        lines.append("flagged for review:")
        for s, r in flagged.items():
            lines += [f"  {s}: {f.kind}: {f.detail}" for f in r.flags]
    lines.append(f"gradebook: {record.gradebook}")
    lines.append(f"autograded notebooks: {course.folder('autograded')}/STUDENT/{record.assignment}/")
    lines.append(f"run record: {course.reports(record.assignment) / RECORD}")
    if record.sandbox.warning:
        lines.append("WARNING: " + record.sandbox.warning)
    if record.forced.forced:
        lines.append(f"WARNING: FORCED RUN (--force): {record.forced.reason} Written: the grades of "
                     f"{record.forced.written} student(s); not written: {record.forced.not_graded} (internal "
                     "errors, their previous grades stand).")
    print("\n".join(lines), flush=True)


def _late_words(late: Late) -> str:
    return f"{late_duration(late.seconds_late)} late, penalty {late.penalty:g}"


def late_duration(seconds: float) -> str:
    """``2 h 5 min``, ``3 d 4 h``, ``40 s``: how late, in words an instructor reads at a glance."""
    seconds = int(round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min"
    return f"{secs} s"
