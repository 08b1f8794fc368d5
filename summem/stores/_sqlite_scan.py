"""Recall on a SQLite file summem may not write: an in-memory index of the session instead.

A search brings the file's FTS5 index up to date first (:mod:`summem.stores._sqlite_search`),
which writes. A store open read-only (``read_only=True``, or a file this process cannot
write) must not, and must still search. When the file's index already covers what is
searched, it is used as it is; when it is behind, the session's messages are indexed in a
private in-memory SQLite database instead (the same FTS5 table, tokenizer, terms and
``bm25()``, so the same messages are found, scored over the session alone), and the
messages appended later are added to it on the next search, as the in-process index of the
other stores does. Nothing is written to the file. Building it is logged at INFO, once per
session and epoch; extending it at DEBUG.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from dataclasses import dataclass

from summem._terms import message_terms
from summem.exceptions import CorruptRecordError
from summem.stores._sqlite_search import CREATE_FTS, INSERT_FTS, TO_INDEX, session_token
from summem.stores.base import decode_message

__all__ = ["ScanIndexes"]

logger = logging.getLogger("summem.stores")

_SEARCH = (
    "SELECT rowid, bm25(messages_fts, 0.0, 1.0) AS score FROM messages_fts "
    "WHERE messages_fts MATCH ? AND rowid < ? ORDER BY score, rowid DESC LIMIT ?"
)


@dataclass
class _Index:
    conn: sqlite3.Connection
    epoch: str
    done: int = 0
    """Messages ``[0, done)`` of the session are in ``conn``'s table."""


class ScanIndexes:
    """In-memory FTS5 indexes of the sessions searched on a store that may not write."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._lock = threading.Lock()
        self._indexes: dict[str, _Index] = {}

    def search(
        self,
        file_conn: sqlite3.Connection,
        name: str,
        *,
        sid: int,
        epoch: str,
        length: int,
        indexed: int,
        match: str,
        hi: int,
        k: int,
    ) -> list[tuple[int, float]]:
        """``(position, rank)`` of the best ``k`` matches below ``hi``, best first.

        ``file_conn`` is in a read transaction (the snapshot ``length`` was read in); the
        session's messages not yet in the in-memory index are read from it.
        """
        with self._lock:
            index = self._indexes.get(name)
            if index is None or index.epoch != epoch or index.done > length:
                if index is not None:
                    index.conn.close()
                index = self._indexes[name] = _Index(self._new_conn(), epoch)
                logger.info(
                    "recall on %s, open read-only: the file's index of session %r covers %d of "
                    "its %d messages and cannot be brought up to date; searching an in-memory "
                    "index of the session instead (the file is not written)",
                    self._label,
                    name,
                    indexed,
                    length,
                )
            if index.done < length:
                logger.debug(
                    "recall on %s: indexing messages %d-%d of session %r in memory",
                    self._label,
                    index.done,
                    length - 1,
                    name,
                )
                rows = file_conn.execute(TO_INDEX, (sid, index.done, length)).fetchall()
                docs = []
                for _rowid, pos, body in rows:
                    try:
                        message = decode_message(body, session_id=name, where=f"message at {pos}")
                    except CorruptRecordError:
                        continue  # unreadable anyway (reading it raises): nothing to index
                    docs.append((pos, session_token(sid), " ".join(message_terms(message))))
                index.conn.executemany(INSERT_FTS, docs)
                index.done = length
            rows = index.conn.execute(_SEARCH, (match, hi, k)).fetchall()
        return [(int(pos), float(rank)) for pos, rank in rows]

    @staticmethod
    def _new_conn() -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute(CREATE_FTS)
        return conn

    def close(self) -> None:
        """Drop every in-memory index."""
        with self._lock:
            for index in self._indexes.values():
                index.conn.close()
            self._indexes.clear()
