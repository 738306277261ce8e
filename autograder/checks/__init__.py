"""The graded checks: one module per exercise (``m01_tensors`` ... ``m09_debug_a_real_run``), each a set of
``@graded`` functions that the exercise's test cells call, plus ``check.hint`` and ``check.solution``.

Importing the package wires the learner's progress, once: every result a check shows is recorded in the
learner's progress file (:func:`autograder.progress.subscribe`; nothing is recorded under grading).

In a warm grading template (``TORCH_LEDGER_TEMPLATE``, see :mod:`autograder.cohort.kernels.template`) the package
compiles, at import, the code keys of the course's reference implementations
(:func:`autograder.course_code.package_keys`) that every check's watch compares the code that ran with: about 0.1 s
that each kernel forked from it would otherwise pay in its first check.  A learner's kernel compiles them there.
"""

import os

from .. import progress

progress.subscribe()

if os.environ.get("TORCH_LEDGER_TEMPLATE"):
    from .. import course_code

    course_code.package_keys()
