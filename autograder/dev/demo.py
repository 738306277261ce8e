"""``demo-cohort``: a synthetic cohort in a scratch course, taken through the whole workflow.

Builds a course directory from the repository's config and one module's source, releases
it, writes an LMS-style zip with every honest submission the bug catalogue defines (the
solution, the blank release, correct variants, known-wrong mutants) plus a few hostile
and broken ones under mixed LMS file names, then runs ``collect``, ``grade``,
``feedback``, ``export`` and ``report`` on it.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import nbformat

from ..cohort.collect import collect
from ..cohort.course import Course
from ..cohort.kernels.confinement import Limits
from ..cohort.run.grade import GradeOptions, grade
from ..cohort.views import export as export_mod
from ..cohort.views import feedback, report
from . import fixture_courses, hostile, nbtools
from .synthetic import REPO, honest_cohort, load_catalogue, pick_mutant

MARKER = ".demo-cohort"
DEMO_HOSTILE = ["infinite-loop", "os-exit", "segfault", "deleted-test-cell", "edited-test-cell", "corrupt-json",
                "empty-file", "monkeypatched-check", "input-transformer", "gradebook-write", "read-solutions"]


def _fresh(dest: Path) -> None:
    if dest.exists():
        if any(dest.iterdir()) and not (dest / MARKER).exists():
            raise FileExistsError(f"{dest} exists and was not made by demo-cohort; choose another --dir")
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    (dest / MARKER).write_text("made by `python -m autograder demo-cohort`; safe to delete\n")


def _lms_name(i: int, student: str, module: str) -> str:
    """Mixed LMS naming: a folder per student, Canvas-style and Moodle-style names."""
    style = i % 3
    if style == 0:
        return f"{student}/{module}.ipynb"
    if style == 1:
        return f"{student}_{1000 + i}_{2000 + i}_{module}.ipynb"
    return f"{student}_{3000 + i}_assignsubmission_file_/{module}.ipynb"


def build_download(course: Path, module: str, zip_path: Path, hostile_names=DEMO_HOSTILE) -> dict[str, str]:
    """Write the cohort's LMS zip; returns ``{student: what the submission is}``."""
    solution = nbtools.read(REPO / "solutions" / module / f"{module}.ipynb")
    release = nbtools.read(course / "exercises" / module / f"{module}.ipynb")
    catalogue = load_catalogue(module)
    cohort = honest_cohort(solution, release, catalogue)
    kinds = dict(cohort.kinds)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for i, (student, nb) in enumerate(cohort.notebooks.items()):
            z.writestr(_lms_name(i, student, module), nbformat.writes(nb))
        if catalogue is not None:
            answers, breaks = pick_mutant(catalogue)
            ctx = hostile.Context(solution, release, course.resolve(), module, answers, breaks)
            for case in hostile.CASES:
                if case.name not in hostile_names:
                    continue
                sub = hostile.build(case, ctx)
                student = f"hostile-{case.name}"
                data = sub.raw if sub.raw is not None else nbformat.writes(sub.notebook).encode()
                z.writestr(f"{student}/{sub.filename or module + '.ipynb'}", data)
                kinds[student] = f"hostile: {case.attempt}"
        z.writestr("README.txt", "an LMS download: one notebook per student\n")
    return kinds


def run(dest: Path, module: str = "01-tensors", workers: int | None = None, sandbox: str = "auto",
        cell_timeout: int = 20, notebook_timeout: int = 180) -> Course:
    """Build the demo course in ``dest`` and take it through collect, grade, feedback, export and report."""
    dest = Path(dest).resolve()
    _fresh(dest)
    fixture_courses.make_course(dest, [module])
    print(f"[demo] course directory: {dest}")
    fixture_courses.release(dest, module)
    zip_path = dest / "downloads" / f"{module}.zip"
    kinds = build_download(dest, module, zip_path)
    print(f"[demo] LMS download with {len(kinds)} submissions: {zip_path}")
    course = Course.open(dest)

    print(f"\n$ python -m autograder collect {module} --from {zip_path}")
    print(collect(course, module, zip_path).summary())

    print(f"\n$ python -m autograder grade {module}" + (f" --workers {workers}" if workers else ""))
    grade(course, module, GradeOptions(workers=workers, sandbox=sandbox, cell_timeout=cell_timeout,
                                       limits=Limits(notebook_seconds=notebook_timeout)))

    print(f"\n$ python -m autograder feedback {module}")
    pages = feedback.generate(course, module)
    print(f"{len(pages)} feedback pages, e.g. {pages[0] if pages else '-'}")

    print("\n$ python -m autograder export")
    print(f"grades: {export_mod.export(course)}")

    print(f"\n$ python -m autograder report {module}")
    page = report.write(course, module)
    print(report.summary(course, module))
    print(f"report: {page}")
    return course
