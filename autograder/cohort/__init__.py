"""The instructors' cohort tools, on top of real nbgrader.

``python -m autograder`` runs them: ``collect`` (LMS download -> ``submitted/``), ``grade``
(parallel, sandboxed autograding on a Dask cluster; only the coordinating process writes the
gradebook), ``feedback`` (per-student HTML without test code), ``export`` (``grades.csv``, or Canvas's and
Moodle's grade import files), ``similarity`` (answers that look copied) and ``report`` (cohort analytics).

Five parts, importing downward only:

* :mod:`~autograder.cohort.kernels`: how a grading kernel is confined (stated once, as data), started
  (forked from a warm template, or cold under bubblewrap) and talked to;
* :mod:`~autograder.cohort.preprocessors`: the course's nbgrader preprocessors (starter code at release,
  the cells' structure and metadata restored at autograde);
* :mod:`~autograder.cohort.worker`: what runs in a grading worker, one submission at a time, handing back a
  typed result;
* :mod:`~autograder.cohort.run`: the coordinator's side of a grading run, from ``submitted/`` to the gradebook
  and ``grading.json``;
* :mod:`~autograder.cohort.views`: what a run's record becomes for people (feedback, report, export, the
  LMS's import files, similarity).

Under them all, the record they pass: ``records`` (the typed record, from a check's result to a student's
entry and ``grading.json``, with one dict pair per type at the boundaries), ``score`` (the one place a score is
derived) and ``jobs`` (what travels to a worker).  Beside them: ``course`` (the course directory and its
gradebook), ``commands`` (the one wrapper around nbgrader's commands), ``collect``, ``privacy`` (who else can
reach a course) and ``execute`` (lessons run top to bottom with the prompt client).  The development tools (fixture courses, synthetic cohorts, the
demo, the benchmark, the hostile corpus) live in :mod:`autograder.dev`.
"""
