"""The cohort workflow against a real PostgreSQL gradebook.

A throw-away PostgreSQL cluster (Debian's ``postgresql`` package, which ``.ci/run``
installs) is started in a temporary directory on a Unix socket only; the course's
``nbgrader_config.py`` reads its URL from ``COURSE_DB_URL``, as the README tells an
instructor to do. ``grade``, ``feedback``, ``export``, ``report`` and a one-student regrade
run against it, and every grade equals the same cohort's on the SQLite gradebook.
"""

from __future__ import annotations

import csv
import glob
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from autograder.cohort.course import Course
from autograder.cohort.kernels.bwrap import probe
from autograder.cohort.kernels.confinement import Limits
from autograder.cohort.records import RunRecord
from autograder.cohort.run.grade import GradeOptions, grade
from autograder.cohort.views import feedback, report
from autograder.cohort.views.export import export
from autograder.dev import fixture_courses, nbtools
from autograder.dev.synthetic import load_catalogue

MODULE = "01-tensors"
LIMITS = Limits(notebook_seconds=90, memory_mb=3072)
MUTANTS = ["standardize_dim1", "pairwise_keeps_feature_dim"]


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else (Path(shutil.which("initdb")).parent if shutil.which("initdb")
                                                   else None)


def _as_postgres(argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
    """Run a server command as the ``postgres`` user when we are root (initdb refuses root)."""
    if os.geteuid() == 0:
        argv = ["runuser", "-u", "postgres", "--", *argv]
    return subprocess.run(argv, check=check, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def postgres():
    """``postgresql://grader@/DB?host=SOCKET`` factory on a private server; the server is removed afterwards."""
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    if os.geteuid() == 0 and subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
        pytest.skip("no postgres user to run the server as")
    base = Path(tempfile.mkdtemp(prefix="ag-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        shutil.chown(sock, "postgres")
    _as_postgres([str(bindir / "initdb"), "-D", str(data), "-U", "grader", "--auth=trust", "-E", "UTF8"])
    _as_postgres([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(base / "postgres.log"), "-w",
                  "-o", f"-k {sock} -c listen_addresses='' -c fsync=off", "start"])
    made: list[str] = []

    def database(name: str) -> str:
        _as_postgres([str(bindir / "createdb"), "-h", str(sock), "-U", "grader", name])
        made.append(name)
        return f"postgresql://grader@/{name}?host={sock}"

    try:
        yield database
    finally:
        _as_postgres([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], check=False)
        shutil.rmtree(base, ignore_errors=True)


def _cohort(root: Path) -> dict:
    solution = nbtools.read(root / "solutions" / MODULE / f"{MODULE}.ipynb")
    catalogue = load_catalogue(MODULE)
    cohort = {"solution": solution}
    cohort.update({f"mutant-{n}": nbtools.substitute(solution, catalogue.MUTANTS[n].answers) for n in MUTANTS})
    return cohort


def _course(path: Path, root: Path, cohort: dict, db: str | None) -> Course:
    course = fixture_courses.make_course(path, [MODULE], root)
    fixture_courses.nbgrader(course, "generate_assignment", MODULE, "--force", db=db)
    for student, nb in cohort.items():
        fixture_courses.submit(course, MODULE, student, nb)
    fixture_courses.submit(course, MODULE, "blank", course / "exercises" / MODULE / f"{MODULE}.ipynb")
    return Course.open(course)


def _grade(course: Course, **kw) -> RunRecord:
    if probe() is not None:
        kw["sandbox"] = "off"
    return grade(course, MODULE, GradeOptions(workers=2, limits=LIMITS, progress=False, **kw))


@pytest.fixture(scope="module")
def runs(tmp_path_factory, root, postgres):
    """The same cohort graded twice, on SQLite and on PostgreSQL, each taken through the whole workflow."""
    cohort = _cohort(root)
    base = tmp_path_factory.mktemp("postgres")
    found = {}
    for kind in ("sqlite", "postgres"):
        url = postgres("torch_ledger") if kind == "postgres" else None
        previous = os.environ.get("COURSE_DB_URL")
        if url:
            os.environ["COURSE_DB_URL"] = url  # what the course's nbgrader_config.py reads
        else:
            os.environ.pop("COURSE_DB_URL", None)
        try:
            course = _course(base / kind, root, cohort, url)
            assert course.db_url == (url or fixture_courses.db_url(course.root)), course.db_url
            record = _grade(course)
            scores = fixture_courses.scores(course.root, MODULE, url=course.db_url)
            regraded = _grade(course, students=[f"mutant-{MUTANTS[0]}"])
            after = fixture_courses.scores(course.root, MODULE, url=course.db_url)
            pages = feedback.generate(course, MODULE)
            csv_path = export(course)
            page = report.write(course, MODULE)
        finally:
            if previous is None:
                os.environ.pop("COURSE_DB_URL", None)
            else:
                os.environ["COURSE_DB_URL"] = previous
        found[kind] = {"course": course, "record": record, "scores": scores, "after": after, "regraded": regraded,
                       "pages": pages, "csv": list(csv.DictReader(csv_path.open())), "report": page}
    return found


@pytest.mark.slow
def test_the_driver_sqlalchemy_picks_for_postgresql_urls_is_installed():
    """``postgresql://`` means psycopg 3 to SQLAlchemy 2; the ``postgres`` extra (in ``dev`` too) installs it."""
    from sqlalchemy import create_engine

    engine = create_engine("postgresql://grader@/torch_ledger?host=/nonexistent")
    assert engine.dialect.driver == "psycopg"
    import psycopg  # noqa: F401 - what the dialect imports on connect


@pytest.mark.slow
def test_postgres_grades_equal_sqlite(runs):
    assert runs["postgres"]["scores"] == runs["sqlite"]["scores"]
    assert set(runs["postgres"]["scores"]) == {"solution", "blank", *(f"mutant-{n}" for n in MUTANTS)}
    assert runs["postgres"]["record"].gradebook.startswith("postgresql://grader@/torch_ledger")


@pytest.mark.slow
def test_postgres_regrade_of_one_student_keeps_every_grade(runs):
    pg = runs["postgres"]
    assert sorted(pg["regraded"].students) == sorted(pg["record"].students)
    assert pg["after"] == pg["scores"]


@pytest.mark.slow
def test_postgres_export_feedback_and_report(runs):
    pg, lite = runs["postgres"], runs["sqlite"]
    by_student = {r["student_id"]: (r["score"], r["max_score"]) for r in pg["csv"]}
    assert by_student == {r["student_id"]: (r["score"], r["max_score"]) for r in lite["csv"]}
    assert float(by_student["solution"][0]) == float(by_student["solution"][1]) > 0
    assert len(pg["pages"]) == len(lite["pages"]) == 4
    assert "standardize" in pg["report"].read_text()
    record = json.loads((pg["course"].reports(MODULE) / "grading.json").read_text())
    assert {s: e["score"] for s, e in record["students"].items()} == \
        {s: e.score for s, e in lite["record"].students.items()}
