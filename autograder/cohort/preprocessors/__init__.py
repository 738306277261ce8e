"""nbgrader preprocessors of the course: ``insert_starters`` (release: repair tasks get their starter code),
``restore_structure`` and ``restore_metadata`` (autograde: the cells' structure and their edited metadata put back
before nbgrader checks them, each change kept as a ``restored.Restored`` value) and ``check_metadata`` (nbgrader's
cell-metadata check, its JSON schema compiled once per process)."""
