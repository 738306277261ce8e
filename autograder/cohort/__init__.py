"""The instructors' cohort tools, on top of real nbgrader.

``python -m autograder`` runs them: ``collect`` (LMS download -> ``submitted/``), ``grade``
(parallel, sandboxed autograding; only the coordinating process writes the gradebook),
``feedback`` (per-student HTML without test code), ``export`` (``grades.csv``), ``report``
(cohort analytics), ``demo-cohort`` and ``bench-grade``.

Modules: ``course`` (the course directory and its gradebook), ``collect``, ``sandbox``
(bubblewrap kernel manager), ``restore`` (an nbgrader preprocessor restoring edited cell
metadata), ``canary`` (tamper detection), ``scan`` (static scan), ``outcomes`` (reading
check results), ``worker`` and ``grade`` (grading), ``feedback``, ``report``, ``export``,
``hostile`` (a corpus of hostile submissions), ``cohort`` (synthetic cohorts), ``demo``
and ``bench``.
"""
