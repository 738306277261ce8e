"""``python -m autograder``: the instructors' cohort commands.

    collect ASSIGNMENT                nbgrader's exchange -> submitted/, refusing forged submissions
    collect ASSIGNMENT --from PATH    LMS download (zip or folder) -> submitted/STUDENT/ASSIGNMENT/
    grade ASSIGNMENT                  autograde every submission in parallel, sandboxed
    feedback ASSIGNMENT               one HTML page per student (diagnoses and scores, no test code)
    export [--format canvas|moodle]   grades.csv (nbgrader export), or the LMS's grade import file (--roster)
    similarity ASSIGNMENT             answers that look copied: pairs scored against how common the answer is
    report ASSIGNMENT                 cohort analytics: outcomes, frequent diagnoses, flags (HTML + PNG)
    demo-cohort                       a synthetic cohort taken through all of the above
    bench-grade                       stock and course-configured nbgrader vs grade --workers N, per-notebook breakdown
    bench-checks                      each visible check cell's time, every exercise run with its solution
    execute-lessons [NOTEBOOK ...]    run the lessons top to bottom (the course's kernel client) -> --out DIR

Every command works on the course directory given by ``--course`` (default: the current one).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _course(args):
    from .cohort.course import Course

    return Course.open(args.course)


def _limits(args):
    from .cohort.kernels.confinement import Limits

    return Limits(memory_mb=args.memory_mb, processes=args.processes, cpu_seconds=args.cpu_seconds,
                  file_mb=args.file_mb, disk_mb=args.disk_mb, notebook_seconds=args.notebook_timeout)


#: ``grade``'s exit status when the grader itself failed on some students (nothing was written for them).
NOT_GRADED = 4
#: ``grade``'s exit status when every student was graded, without the sandbox (``--sandbox off``, or ``auto`` on a
#: machine that cannot give it): a script that grades a cohort sees that the run was unconfined.
UNCONFINED = 5


def cmd_collect(args) -> int:
    if args.source is None:
        from .cohort.exchange import collect_exchange

        if args.pattern:
            print("collect: --pattern reads an LMS download; give it with --from", file=sys.stderr)
            return 2
        report = collect_exchange(_course(args), args.assignment)
        print(report.summary())
        return 0
    from .cohort.collect import collect

    report = collect(_course(args), args.assignment, Path(args.source), pattern=args.pattern)
    print(report.summary())
    return 0


def cmd_grade(args) -> int:
    if not args.scheduler:  # the local cluster's workers are forked from it: its imports run beside this process's
        from .cohort.run.fork_server import start_early

        start_early()
    from .cohort.run.grade import GradeOptions, grade

    options = GradeOptions(workers=args.workers, students=args.student or None, scheduler=args.scheduler,
                           insecure_scheduler=args.insecure_scheduler,
                           sandbox=args.sandbox, kernels=args.kernels,
                           limits=_limits(args), cell_timeout=args.cell_timeout, progress=not args.no_progress,
                           force=args.force, allow_shared_course=args.allow_shared_course,
                           output_limits={"output_bytes": int(args.output_limit_mb * 2**20),
                                          "notebook_bytes": int(args.notebook_output_limit_mb * 2**20)})
    record = grade(_course(args), args.assignment, options)
    if record.not_graded:
        return NOT_GRADED  # some students were not graded because of the grader: their previous grades stand
    if not record.sandbox.confined:
        return UNCONFINED
    return 0


def cmd_feedback(args) -> int:
    from .cohort.views import feedback

    pages = feedback.generate(_course(args), args.assignment, args.student or None)
    print(f"wrote {len(pages)} feedback pages under {_course(args).folder('feedback')}/STUDENT/{args.assignment}/")
    return 0


def cmd_export(args) -> int:
    if args.format == "csv" and not args.roster:
        from .cohort.views.export import export

        print(f"wrote {export(_course(args), Path(args.to) if args.to else None)}")
        return 0
    from .cohort.views import lms

    if not args.roster:
        print(f"export --format {args.format} needs --roster: the roster exported from the LMS", file=sys.stderr)
        return 2
    course = _course(args)
    dest = Path(args.to) if args.to else course.root / f"grades-{args.format}.csv"
    try:
        scores = lms.final_scores(course.db_url, args.assignment)
        result = lms.write(args.format, scores, Path(args.roster), dest, column=args.match, missing=args.missing)
    except lms.RosterError as error:
        print(f"export: {error}", file=sys.stderr)
        return 2
    print(result.summary())
    return 0


def cmd_similarity(args) -> int:
    from .cohort.views import similarity

    course = _course(args)
    report, page = similarity.run(course, args.assignment, threshold=args.threshold)
    clusters = report.clusters()
    print(f"{report.students} students, {len(report.pairs)} pair{'s' if len(report.pairs) != 1 else ''} at or above "
          f"{report.threshold:g} in {len(clusters)} cluster{'s' if len(clusters) != 1 else ''}")
    for group, weakest in clusters:
        print(f"  {', '.join(group)} (weakest link: {weakest.a} and {weakest.b})")
    print(f"wrote {page}")
    return 0


def cmd_report(args) -> int:
    from .cohort.views import report

    course = _course(args)
    page = report.write(course, args.assignment)
    print(report.summary(course, args.assignment))
    print(f"report: {page}")
    return 0


def cmd_demo(args) -> int:
    from .dev import demo

    demo.run(Path(args.dir), module=args.module, workers=args.workers, sandbox=args.sandbox,
             cell_timeout=args.cell_timeout, notebook_timeout=args.notebook_timeout)
    return 0


def cmd_bench(args) -> int:
    from .dev import bench

    kinds = tuple(k.strip() for k in args.runs.split(",") if k.strip())
    for module in args.module or ["04-five-line-step"]:
        out = Path(args.out.replace("{module}", module)) if args.out else None
        bench.run(students=args.students, workers=tuple(args.workers or [2]), module=module, sandbox=args.sandbox,
                  dest=Path(args.dir) / module if args.dir else None, out=out, kinds=kinds)
    return 0


def cmd_bench_checks(args) -> int:
    from .dev import bench_checks

    bench_checks.run(modules=args.module or None, repeat=args.repeat, out=Path(args.out) if args.out else None)
    return 0


def cmd_execute_lessons(args) -> int:
    from .cohort.execute import default_lessons, execute_lessons

    paths = [Path(p) for p in args.notebook] or default_lessons(Path(args.course))
    if not paths:
        print(f"no lesson notebooks under {Path(args.course).resolve() / 'course'}", file=sys.stderr)
        return 2
    failed = 0
    for run in execute_lessons(paths, Path(args.out), timeout=args.timeout):
        print(run.line(), flush=True)
        failed += bool(run.error)
    if failed:
        print(f"{failed} of {len(paths)} notebooks failed (their executed copies show where)", file=sys.stderr)
    return 1 if failed else 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m autograder", description=__doc__.split("\n\n")[0],
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  epilog="Run `python -m autograder COMMAND --help` for a command's options.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--course", default=".", help="the nbgrader course directory (default: .)")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("collect", parents=[common], help="nbgrader's exchange (or --from an LMS download) -> submitted/",
                       description=_doc("exchange") + "\n" + _doc("collect"),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("assignment")
    p.add_argument("--from", dest="source", help="the LMS zip, or a folder of notebooks (default: nbgrader's exchange, "
                                                 "refusing submissions not made by the account they name)")
    p.add_argument("--pattern", help="regex with a (?P<student>...) group, matched against paths in the download")
    p.set_defaults(run=cmd_collect)

    p = sub.add_parser("grade", parents=[common], help="autograde every submission (parallel, sandboxed)",
                       description=_doc("run.grade"), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("assignment")
    p.add_argument("--workers", type=int, help="worker processes of the local cluster (default: every core; at most one per submission)")
    p.add_argument("--student", action="append", help="grade only this student (repeatable)")
    p.add_argument("--scheduler", metavar="tls://HOST:8786",
                   help="grade on this Dask cluster (workers started with `dask worker ADDRESS --nthreads 1`) "
                        "instead of a local one; a tls:// address uses Dask's TLS configuration (distributed.comm.tls.*)")
    p.add_argument("--insecure-scheduler", action="store_true",
                   help="grade on a tcp:// scheduler although other people work on this machine (it accepts any "
                        "client: they could run code as you); refused otherwise")
    p.add_argument("--sandbox", choices=["auto", "bwrap", "off"], default="auto",
                   help="auto: bubblewrap when it can run, else none with a loud warning; bwrap: required; off")
    p.add_argument("--kernels", choices=["warm", "cold"], default="warm",
                   help="warm: each notebook's kernel is forked from a template that has imported torch and the "
                        "checks (a fresh process, fresh scratch space, the same limits); cold: a new interpreter each")
    _limit_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true",
                   help="grade even when the solution does not score full marks (calibration); the run is marked "
                        "forced. A fault of the grader itself is never written as a grade, forced or not")
    p.add_argument("--allow-shared-course", action="store_true",
                   help="grade although other users of this machine can read or write the course directory, "
                        "solutions/, submitted/ or the gradebook (refused otherwise)")
    p.add_argument("--output-limit-mb", type=float, default=1.0,
                   help="bytes a graded notebook keeps of any one output, in MB (default 1); the head is kept")
    p.add_argument("--notebook-output-limit-mb", type=float, default=5.0,
                   help="bytes a graded notebook keeps of all its outputs, in MB (default 5)")
    p.set_defaults(run=cmd_grade)

    p = sub.add_parser("feedback", parents=[common], help="per-student HTML feedback (no test code)")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", help="only this student (repeatable)")
    p.set_defaults(run=cmd_feedback)

    p = sub.add_parser("export", parents=[common], help="grades for the LMS: Canvas, Moodle or nbgrader's CSV",
                       description=_doc("views.lms"), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", choices=["csv", "canvas", "moodle"], default="csv",
                   help="csv without --roster: nbgrader's grades.csv; canvas/moodle: the LMS's grade import file")
    p.add_argument("--roster", help="the gradebook as the LMS exported it (Canvas: Export Entire Gradebook; Moodle: "
                                    "its grade export as a plain text file)")
    p.add_argument("--match", help="the roster column holding the hub's user names (default: Canvas 'SIS Login ID', "
                                   "Moodle 'Email address'); e-mail addresses match on the part before the @ too")
    p.add_argument("--missing", choices=["empty", "zero"], default="empty",
                   help="a roster student without a submission, where the LMS holds no grade either: no grade or 0 "
                        "(a grade the LMS holds is always kept)")
    p.add_argument("--assignment", action="append", help="only this assignment (repeatable; default: every one)")
    p.add_argument("--to", help="output path (default: COURSE/grades.csv, or COURSE/grades-FORMAT.csv)")
    p.set_defaults(run=cmd_export)

    p = sub.add_parser("similarity", parents=[common], help="answers that look copied: an HTML page of alike pairs",
                       description=_doc("views.similarity"), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("assignment")
    p.add_argument("--threshold", type=float, default=0.5,
                   help="the score from which a pair is reported (0-1, default 0.5): the share of the shorter "
                        "answer's distinctive part that the two share")
    p.set_defaults(run=cmd_similarity)

    p = sub.add_parser("report", parents=[common], help="cohort analytics: HTML page and PNG plots")
    p.add_argument("assignment")
    p.set_defaults(run=cmd_report)

    p = sub.add_parser("demo-cohort", help="build a synthetic cohort and run the whole workflow on it")
    p.add_argument("--dir", default="cohort", help="scratch course directory (default: ./cohort, replaced)")
    p.add_argument("--module", default="01-tensors")
    p.add_argument("--workers", type=int)
    p.add_argument("--sandbox", choices=["auto", "bwrap", "off"], default="auto")
    p.add_argument("--cell-timeout", type=int, default=20)
    p.add_argument("--notebook-timeout", type=int, default=180)
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("bench-grade", help="stock and course-configured serial nbgrader vs grade --workers N")
    p.add_argument("--students", type=int, default=24)
    p.add_argument("--workers", type=int, action="append",
                   help="grade's worker count (repeatable: one grade run per count; default: 2)")
    p.add_argument("--module", action="append", help="the module to grade (repeatable; default: 04-five-line-step)")
    p.add_argument("--runs", default="stock,serial,ours", help="which runs, of stock, serial, ours, cold and floor")
    p.add_argument("--sandbox", choices=["auto", "bwrap", "off"], default="bwrap")
    p.add_argument("--dir", help="where to build the two courses (default: a temporary directory)")
    p.add_argument("--out", help="also write the figures to this JSON file ({module} stands for the module)")
    p.set_defaults(run=cmd_bench)

    p = sub.add_parser("bench-checks", help="each visible check cell's time, every exercise run with its solution")
    p.add_argument("--module", action="append", help="only this module (repeatable; default: every one)")
    p.add_argument("--repeat", type=int, default=1, help="run each exercise this many times; count the fastest")
    p.add_argument("--out", help="also write the figures to this JSON file")
    p.set_defaults(run=cmd_bench_checks)

    p = sub.add_parser("execute-lessons", parents=[common],
                       help="run the lessons top to bottom with the course's kernel client (no stalled cells)")
    p.add_argument("notebook", nargs="*", help="notebooks to run (default: every lesson, COURSE/course/*.ipynb)")
    p.add_argument("--out", required=True, help="folder for the executed copies, outputs included")
    p.add_argument("--timeout", type=float, default=300, help="seconds per cell (default 300)")
    p.set_defaults(run=cmd_execute_lessons)
    return top


def _limit_options(p: argparse.ArgumentParser) -> None:
    from .cohort.kernels.confinement import Limits

    d = Limits()
    p.add_argument("--cell-timeout", type=int, help="seconds per cell (default: the course's c.Execute.timeout)")
    p.add_argument("--notebook-timeout", type=int, default=d.notebook_seconds, help="wall-clock seconds per notebook")
    p.add_argument("--memory-mb", type=int, default=d.memory_mb, help="address-space limit of the kernel")
    p.add_argument("--processes", type=int, default=d.processes, help="processes+threads of the kernel's uid")
    p.add_argument("--cpu-seconds", type=int, default=d.cpu_seconds, help="CPU time per process")
    p.add_argument("--file-mb", type=int, default=d.file_mb, help="largest file the kernel may write")
    p.add_argument("--disk-mb", type=int, default=d.disk_mb, help="size of the kernel's home and of its /tmp")


def _doc(module: str) -> str:
    """A cohort module's docstring, read from its source: importing the modules only to describe the commands would
    cost every command about 3 s of CPU (similarity's imports take torch, exchange's nbgrader's server side)."""
    import ast

    source = Path(__file__).parent.joinpath("cohort", *module.split(".")).with_suffix(".py")
    return ast.get_docstring(ast.parse(source.read_text(encoding="utf-8")), clean=False) or ""


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from .cohort.privacy import owner_only

    previous = owner_only()  # every file a cohort command writes is readable by its owner only
    try:
        return _run(args)
    finally:
        os.umask(previous)  # a caller that runs ``main`` in its own process gets its umask back


def _run(args) -> int:
    from .cohort.course import CourseError
    from .cohort.records import RecordError
    from .cohort.run.errors import GradingError

    try:
        return args.run(args)
    except GradingError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except (CourseError, RecordError, FileNotFoundError, FileExistsError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
