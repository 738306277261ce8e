"""A grading worker's side of a run: what runs in a Dask worker process, one submission at a time.

``dask_plugin`` (the plugin that gives the Dask worker its grader, and the task), ``grader`` (the grader: a
notebook's declared steps through nbgrader's ``Autograde``), ``submission`` (reading a submission and what its
graded notebook and its kernels show), ``check_results`` (each test cell's result, read from the data the checks
displayed), ``canary`` (tamper detection: planted and observed here, judged by the coordinator), ``scan`` (the
static scan) and ``sqlalchemy_engines`` (one SQLAlchemy engine per gradebook for nbgrader's many openings of it,
here and in a plain ``nbgrader autograde``).  A worker hands back a typed
:class:`~autograder.cohort.records.SubmissionResult`; it never writes the course.
"""
