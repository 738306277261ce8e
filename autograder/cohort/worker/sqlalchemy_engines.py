"""One SQLAlchemy engine per gradebook for nbgrader, in a process that autogrades.

nbgrader opens the gradebook about ten times for each notebook it autogrades (``Gradebook(url)`` in
``init_assignment`` and in each preprocessor that reads or writes grades), and every opening builds a new
SQLAlchemy engine.  An engine keeps the SQL it has compiled to itself, so each opening compiles every query
again: about a tenth of a second of a core per notebook of module 04, a tenth of what the grading worker
itself spends.  :func:`share_engines` makes the openings of one database URL share one engine.

nbgrader still closes each gradebook it opens, and closing disposes of the engine's connections: the next
opening connects again and sees the database as it is then (a grading worker replaces its scratch
gradebook before every notebook).  Only the compiled statements and the engine itself are kept.

Each opening also asks the database for its tables and creates those it lacks.  A grading worker's scratch
gradebook is a byte copy of a gradebook that nbgrader made, so it has them all: :func:`schema_known` names
such a database, and its openings skip the question (nbgrader's queries would fail loudly if a table were
missing).

A scratch gradebook is also thrown away after its one notebook (the worker reads its scores and copies a
fresh one for the next): :func:`disposable` names such a database, and its connections neither wait for the
disk at each commit nor write a rollback journal file (``PRAGMA synchronous=OFF``, ``journal_mode=MEMORY``).
nbgrader commits about thirty times a notebook; each durable commit costs the machine the creation, sync and
removal of a journal file (about 9 ms of a core per notebook here, 1 ms without).  A worker that dies in the
middle of a notebook loses only a scratch copy, which the notebook's next try replaces.
"""

from __future__ import annotations

import threading

_ENGINES: dict[tuple, object] = {}  # (url, options) -> its engine
_LOCK = threading.Lock()
_SCHEMA_KNOWN: set[str] = set()  # URLs of databases that are copies of a gradebook nbgrader made
_DISPOSABLE: set[str] = set()  # URLs of databases thrown away after one notebook


def shared_engine(url, **options):
    """``sqlalchemy.create_engine(url, **options)``, the same engine for the same arguments."""
    import sqlalchemy
    from sqlalchemy import event

    key = (str(url), tuple(sorted(options.items())))
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = sqlalchemy.create_engine(url, **options)
            if engine.dialect.name == "sqlite":
                event.listen(engine, "connect", _unsynced_if_disposable(str(engine.url)))
        return engine


def _unsynced_if_disposable(url: str):
    def on_connect(connection, _record) -> None:
        if url in _DISPOSABLE:
            cursor = connection.cursor()
            cursor.execute("PRAGMA synchronous=OFF")
            cursor.execute("PRAGMA journal_mode=MEMORY")
            cursor.close()

    return on_connect


def schema_known(url: str) -> None:
    """The database at ``url`` is a copy of a gradebook nbgrader made: opening it need not check its tables."""
    _SCHEMA_KNOWN.add(str(url))


def disposable(url: str) -> None:
    """The SQLite database at ``url`` is thrown away after one notebook: its commits need not reach the disk."""
    _DISPOSABLE.add(str(url))


def _known(engine) -> bool:
    return engine is not None and str(engine.url) in _SCHEMA_KNOWN


class _AllTables:
    def get_table_names(self) -> list[str]:
        return ["gradebook copy"]  # any name: nbgrader only asks whether there is one


def share_engines() -> None:
    """From now on, nbgrader's gradebooks in this process share one engine per database URL, and the openings of
    a database named by :func:`schema_known` do not check its tables."""
    import nbgrader.api

    api = nbgrader.api
    if api.create_engine is shared_engine:
        return
    api.create_engine = shared_engine
    inspect, metadata = api.inspect, api.Base.metadata
    create_all = metadata.create_all
    api.inspect = lambda engine: _AllTables() if _known(engine) else inspect(engine)

    def create_missing(bind=None, **options):
        if not _known(bind):
            create_all(bind=bind, **options)

    metadata.create_all = create_missing
