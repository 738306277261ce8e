"""What a run's record becomes for people: ``feedback`` (per-student pages), ``report`` (cohort
analytics), ``export`` (nbgrader's CSV), ``lms`` (Canvas's and Moodle's import files) and
``similarity`` (answers that look copied, compared once
``normalise`` has taken out what copying changes)."""
