"""The graded checks: one module per exercise (``m01_tensors`` ... ``m09_debug_a_real_run``), each a set of
``@graded`` functions that the exercise's test cells call, plus ``check.hint`` and ``check.solution``.

Importing the package wires the learner's progress, once: every result a check shows is recorded in the
learner's progress file (:func:`autograder.progress.subscribe`; nothing is recorded under grading).
"""

from .. import progress

progress.subscribe()
