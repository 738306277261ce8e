"""The graded checks: one module per exercise (``m01_tensors`` ... ``m09_debug_a_real_run``), each a set of
``@graded`` functions that the exercise's test cells call, plus ``check.hint`` and ``check.solution``.

Importing the package wires the learner's progress, once: every result a check shows is recorded in the
learner's progress file (:func:`autograder.progress.subscribe`; nothing is recorded under grading).

A checks module (and this package) may define ``precompute()``: what its checks judge against and no notebook can
change, computed once.  A grading template calls it before it forks kernels
(:mod:`autograder.cohort.kernels.forkserver`); anywhere else each process computes the same on first use.
"""

from .. import progress

progress.subscribe()


def precompute() -> None:
    """The code keys of the course's reference implementations (:func:`autograder.course_code.package_keys`),
    which every check's watch compares the code that ran with: compiled from the package's files, about 0.1 s."""
    from .. import course_code

    course_code.package_keys()
