"""nbgrader preprocessors of the course: ``insert_starters`` (release: repair tasks get their starter code),
``restore_metadata`` (autograde: edited cell metadata put back before nbgrader checks it) and
``check_metadata`` (nbgrader's cell-metadata check, its JSON schema compiled once per process)."""
