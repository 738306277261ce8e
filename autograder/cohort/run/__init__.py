"""A grading run, the coordinator's side: from the submissions in ``submitted/`` to the gradebook and
``grading.json``.

``grade`` (the run: calibration first, then every student), ``options`` (what a run is asked for and was set up
with), ``machine`` (the CPUs and the sandbox this machine offers), ``dask_cluster`` (the Dask cluster the jobs go
to; ``fork_server``, the server its local workers are forked from), ``coordinator`` (the calibration gate and the
judgement of each result: the canary verdict, the flags, the checks' points), ``gradebook_writer`` (a judged student
written into the gradebook, ``autograded/`` and the journal), ``journal`` (each finished student, so that an
interrupted run resumes) and ``summary`` (the run record written and printed).  What runs inside a grading worker
is :mod:`autograder.cohort.worker`.
"""
