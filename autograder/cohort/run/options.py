"""What a run is asked for (:class:`GradeOptions`, the command line's options) and what it was set up with
(:class:`RunSetup`, for the run loop and the record)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..course import Course
from ..kernels.confinement import Limits
from ..records import WorkerCount
from ..score import cells_possible
from ..worker.submission import OUTPUT_LIMITS


@dataclass
class GradeOptions:
    workers: int | None = None  # default: every core this process may use
    students: list[str] | None = None  # default: every submission
    scheduler: str | None = None  # a Dask scheduler's address (tls:// or tcp://HOST:8786); default: a local cluster
    insecure_scheduler: bool = False  # grade on a tcp:// scheduler although other people work on this machine
    sandbox: str = "auto"  # auto | bwrap | off
    kernels: str = "warm"  # warm: forked from a template per worker (autograder.cohort.kernels.template) | cold: a new interpreter each
    limits: Limits = field(default_factory=Limits)
    cell_timeout: int | None = None  # default: the course's c.Execute.timeout
    progress: bool = True
    scratch: Path | None = None  # default: a fresh temporary directory
    force: bool = False  # grade even when calibration fails (the run is marked as forced)
    allow_shared_course: bool = False  # grade although other users can read or write the course (privacy.py)
    output_limits: dict = field(default_factory=lambda: dict(OUTPUT_LIMITS))  # bytes kept of a graded notebook


@dataclass(frozen=True)
class Assignment:
    """The assignment as the run needs it, read from the gradebook: its test cells (id and source, in the notebook's
    order), each test's points, the graded functions (the answer cells' ids) and the locked cells' sources."""

    tests: list[tuple[str, str]]
    max_scores: dict[str, float]
    functions: list[str]
    locked: dict[str, str]

    @property
    def possible(self) -> float:
        return cells_possible(self.max_scores)


@dataclass
class RunSetup:
    """What a run was set up with, for the loop and the record."""

    course: Course
    assignment: str
    notebook: str
    students: list[str]
    options: GradeOptions
    sandboxed: bool
    sandbox_warning: str
    package: object
    facts: Assignment
    cell_timeout: int
    reference_dir: Path
    workers: WorkerCount  # how many workers, and why
    others: list[str] = field(default_factory=list)  # who else works on this machine (privacy.other_people)
