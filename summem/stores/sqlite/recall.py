"""Recall over a SQLite store: full-text search of a session's history, and message positions.

The index itself (an FTS5 table, filled by the search rather than by the append) is
described in :mod:`summem.stores.sqlite.search`; a store that may not write searches an
in-memory index when the file's is behind (:mod:`summem.stores.sqlite.scan`). This is the
store's side of
:class:`~summem.stores.base.SearchableStore`, mixed into
:class:`~summem.stores.sqlite.SQLiteStore`.
"""

from __future__ import annotations

from summem.stores.base import SearchHit, decode_message, validate_session_id
from summem.stores.sqlite.file import SQLiteFile
from summem.stores.sqlite.rows import read_meta
from summem.stores.sqlite.scan import ScanIndexes
from summem.stores.sqlite.schema import SQL
from summem.stores.sqlite.search import CATCH_UP_CHUNK, catch_up, fts_query

__all__ = ["SQLiteRecall"]


class SQLiteRecall:
    """``search`` and ``position_of`` on the store's file."""

    _file: SQLiteFile
    _scans: ScanIndexes

    def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """See :meth:`summem.stores.base.SearchableStore.search` (FTS5, ``bm25()``).

        Indexes what was appended since the session's last search first (see
        :mod:`summem.stores.sqlite.search`), so every message below ``stop`` is searched.
        Open read-only, it writes nothing: the file's index when it covers ``stop`` (even if
        the session grew since), else an in-memory one (:mod:`summem.stores.sqlite.scan`).
        """
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            row = conn.execute(SQL.SEARCH_STATE, (name,)).fetchone()
            if row is None or k <= 0:
                return []
            sid, length, indexed, epoch = row
            match = fts_query(sid, query)
            hi = length if stop is None else min(stop, length)
            if match is None or hi <= 0:
                return []
            if indexed < hi and self._file.read_only:
                found = self._scans.search(
                    conn,
                    name,
                    sid=sid,
                    epoch=epoch,
                    length=length,
                    indexed=indexed,
                    match=match,
                    hi=hi,
                    k=k,
                )
                return [
                    _hit(name, pos, body, rank)
                    for pos, rank in found
                    for (body,) in conn.execute(SQL.BODY_AT, (sid, pos)).fetchall()
                ]
        if self._file.read_only and indexed >= length:
            self._scans.forget(name)  # the file's index covers the session now
        # read-only here means the file's index covers [0, hi): searched as it is
        caught_up = indexed >= length or self._file.read_only
        while not caught_up:  # a bounded chunk per write transaction: others get the lock
            with self._file.tx(name, write="index") as conn:
                caught_up = catch_up(conn, name, CATCH_UP_CHUNK)
        with self._file.tx(name) as conn:
            rows = conn.execute(SQL.SEARCH, (match, sid, hi, k)).fetchall()
        return [_hit(name, pos, body, rank) for pos, body, rank in rows]

    def position_of(self, session_id: str, message_id: str) -> int | None:
        """See :meth:`summem.stores.base.SearchableStore.position_of`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            meta = read_meta(conn, name)
            if meta is None:
                return None
            row = conn.execute(SQL.POSITION_OF, (meta.sid, message_id)).fetchone()
        return None if row is None else int(row[0])


def _hit(name: str, pos: int, body: str, rank: float) -> SearchHit:
    """The hit for the message at ``pos`` (``body`` as stored, ``rank`` FTS5's ``bm25()``)."""
    return SearchHit(pos, decode_message(body, session_id=name, where=f"message at {pos}"), -rank)
