"""One SQLAlchemy engine per gradebook for nbgrader, in a process that autogrades.

nbgrader opens the gradebook about ten times for each notebook it autogrades (``Gradebook(url)`` in
``init_assignment`` and in each preprocessor that reads or writes grades), and every opening builds a new
SQLAlchemy engine.  An engine keeps the SQL it has compiled to itself, so each opening compiles every query
again: about a tenth of a second of a core per notebook of module 04, a tenth of what the grading worker
itself spends.  :func:`share_engines` makes the openings of one database URL share one engine.

nbgrader still closes each gradebook it opens, and closing disposes of the engine's connections: the next
opening connects again and sees the database as it is then (a grading worker replaces its scratch
gradebook before every notebook).  Only the compiled statements and the engine itself are kept.
"""

from __future__ import annotations

import threading

_ENGINES: dict[tuple, object] = {}  # (url, options) -> its engine
_LOCK = threading.Lock()


def shared_engine(url, **options):
    """``sqlalchemy.create_engine(url, **options)``, the same engine for the same arguments."""
    import sqlalchemy

    key = (str(url), tuple(sorted(options.items())))
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = sqlalchemy.create_engine(url, **options)
        return engine


def share_engines() -> None:
    """From now on, nbgrader's gradebooks in this process share one engine per database URL."""
    import nbgrader.api

    nbgrader.api.create_engine = shared_engine
