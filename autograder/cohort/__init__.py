"""The instructors' cohort tools, on top of real nbgrader.

``python -m autograder`` runs them: ``collect`` (LMS download -> ``submitted/``), ``grade``
(parallel, sandboxed autograding on a Dask cluster; only the coordinating process writes the
gradebook), ``feedback`` (per-student HTML without test code), ``export`` (``grades.csv``, or Canvas's and
Moodle's grade import files), ``similarity`` (answers that look copied) and ``report`` (cohort analytics).

Modules: ``course`` (the course directory and its gradebook), ``commands`` (the one wrapper
around nbgrader's commands), ``collect``, ``sandbox`` (bubblewrap kernel manager), ``restore``
(an nbgrader preprocessor restoring edited cell metadata), ``starter`` (the release step that
inserts repair tasks' starter code), ``canary`` (tamper detection), ``scan`` (static scan),
``outcomes`` (reading check results), ``record`` (the records a run passes around and keeps),
``engine`` (the Dask cluster), ``worker`` and ``grade`` (grading), ``coordinator`` (the
calibration gate, the canary verdict and each student's writes; a grader's fault is never a
grade), ``privacy`` (who else can reach a course), ``warm`` (kernels forked from a template),
``client`` (the prompt kernel client), ``execute`` (lessons run top to bottom with that client), ``feedback``, ``report``,
``export``, ``lms`` (the LMS's import files) and ``similarity``.  The development tools (synthetic cohorts, the demo, the benchmark, the
hostile corpus) live in :mod:`autograder.dev`.
"""
