"""nbgrader preprocessors of the course: ``insert_starters`` (release: repair tasks get their starter code)
and ``restore_metadata`` (autograde: edited cell metadata put back before nbgrader checks it)."""
