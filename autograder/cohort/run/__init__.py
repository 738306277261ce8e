"""A grading run: from the submissions in ``submitted/`` to the gradebook and ``grading.json``.

``grade`` (the run: calibration first, then every student), ``engine`` (the Dask cluster and its
worker plugin), ``grader`` (one worker's grader: a notebook's declared steps through nbgrader's
``Autograde``), ``gradebook_engines`` (one SQLAlchemy engine per gradebook for nbgrader's many openings
of it), ``submission`` (reading a submission and what its graded notebook shows),
``check_results`` (each test cell's result, read from the outputs the checks displayed), ``canary``
(tamper detection), ``scan`` (the static scan), ``coordinator`` (the calibration gate, the canary
verdict and each student's writes: where a result becomes a gradebook row), ``records`` (the spec,
jobs, results, failures, notes, entries and the run record), ``journal`` (each finished student, so that
an interrupted run resumes), ``options`` (what a run is asked for and was set up with), ``machine`` (the CPUs and the sandbox this
machine offers) and ``summary`` (the run record written and printed).
"""
