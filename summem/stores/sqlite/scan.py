"""Recall on a SQLite file summem may not write: an in-memory index of the session instead.

A search brings the file's FTS5 index up to date first (:mod:`summem.stores.sqlite.search`),
which writes. A store open read-only (``read_only=True``, or a file this process cannot
write) must not, and must still search. When the file's index already covers what is
searched, it is used as it is; when it is behind, the session's messages are indexed in a
private in-memory SQLite database instead (the same FTS5 table, tokenizer and terms, so the
same messages are found), and the messages appended later are added to it on the next
search, as the in-process index of the other stores does. Nothing is written to the file.

**Ranking.** ``bm25()`` takes its statistics from the table it searches: the in-memory index
holds the one session, the file's holds every session indexed in the file. On a file with
several sessions the scores, and so the order of the hits, can differ from a writer's search
of the same session (the same messages match; which of them come first can change).

**Memory.** At most :data:`MAX_SCAN_SESSIONS` sessions keep an in-memory index (the least
recently searched is dropped first, and built again if searched again); a session's index is
dropped as soon as the file's index covers the whole session. It is built again only when
the session is not the one it indexed: another epoch (deleted and created again), cleared
(the id of the last message both hold differs), or rewritten (``Store.rewrite`` recorded a
branch since: the messages past its fork were replaced), not when a search sees an older
snapshot than an earlier one did (the positions searched are below what it holds). Building
it is logged at INFO, once per session and epoch; extending it at DEBUG.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass

from summem.stores.sqlite.search import CREATE_FTS, INSERT_FTS, RANKED, TO_INDEX, fts_docs

__all__ = ["MAX_SCAN_SESSIONS", "ScanIndexes"]

logger = logging.getLogger("summem.stores")

MAX_SCAN_SESSIONS = 64
"""Sessions whose in-memory index a read-only store keeps (least recently searched dropped
first). Searching 2000 sessions of 20 short messages each grew the process's RSS by 6996 KB
with this bound, 184820 KB without it (the review probe ``/tmp/review-hard2/p7.py``, run on
this code and on branch hard2)."""

_IDS = "CREATE TABLE ids (position INTEGER PRIMARY KEY, msg_id TEXT NOT NULL)"
_ID_AT = "SELECT msg_id FROM ids WHERE position = ?"
_FILE_ID_AT = "SELECT msg_id FROM messages WHERE sid = ? AND position = ?"
_LAST_FORK = "SELECT MAX(seq) FROM branches WHERE sid = ?"
_FILE_IDS = "SELECT position, msg_id FROM messages WHERE sid = ? AND position >= ? AND position < ?"
_SEARCH = (
    f"SELECT rowid, {RANKED} FROM messages_fts "
    "WHERE messages_fts MATCH ? AND rowid < ? ORDER BY score, rowid DESC LIMIT ?"
)
""":data:`summem.stores.sqlite.schema.SQL.SEARCH` on an index of one session, keyed by
position (no ``messages`` table to join: the bodies are read from the file)."""


@dataclass
class _Index:
    conn: sqlite3.Connection
    epoch: str
    fork: int | None
    """The session's latest branch when the index was built (a rewrite replaces messages)."""
    done: int = 0
    """Messages ``[0, done)`` of the session are in ``conn``'s table."""


class ScanIndexes:
    """In-memory FTS5 indexes of the sessions searched on a store that may not write."""

    def __init__(self, label: str, *, max_sessions: int | None = None) -> None:
        self._label = label
        self._max = MAX_SCAN_SESSIONS if max_sessions is None else max_sessions
        self._lock = threading.Lock()
        self._indexes: OrderedDict[str, _Index] = OrderedDict()
        self._said: dict[str, str] = {}
        """The epoch each session's INFO line was last logged for."""

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
            index = self._index(file_conn, name, sid, epoch, indexed, length)
            if index.done < length:
                logger.debug(
                    "recall on %s: indexing messages %d-%d of session %r in memory",
                    self._label,
                    index.done,
                    length - 1,
                    name,
                )
                rows = file_conn.execute(TO_INDEX, (sid, index.done, length)).fetchall()
                index.conn.executemany(INSERT_FTS, fts_docs(rows, name, sid, by_position=True))
                ids = file_conn.execute(_FILE_IDS, (sid, index.done, length)).fetchall()
                index.conn.executemany("INSERT INTO ids VALUES (?, ?)", ids)
                index.done = length
            rows = index.conn.execute(_SEARCH, (match, hi, k)).fetchall()
        return [(int(pos), float(rank)) for pos, rank in rows]

    def _index(
        self,
        file_conn: sqlite3.Connection,
        name: str,
        sid: int,
        epoch: str,
        indexed: int,
        length: int,
    ) -> _Index:
        """The session's index (made most recently used), new if none or not this session's."""
        index = self._indexes.get(name)
        fork = file_conn.execute(_LAST_FORK, (sid,)).fetchone()[0]
        if (
            index is not None
            and (index.epoch, index.fork) == (epoch, fork)
            and _same(index, file_conn, sid, length)
        ):
            self._indexes.move_to_end(name)
            return index
        if index is not None:
            index.conn.close()
            del self._indexes[name]
        while len(self._indexes) >= self._max:
            _, oldest = self._indexes.popitem(last=False)
            oldest.conn.close()
        index = self._indexes[name] = _Index(self._new_conn(), epoch, fork)
        if self._said.get(name) != epoch:
            self._said[name] = epoch
            logger.info(
                "recall on %s, open read-only: the file's index of session %r covers %d of "
                "its %d messages and cannot be brought up to date; searching an in-memory "
                "index of the session instead (the file is not written)",
                self._label,
                name,
                indexed,
                length,
            )
        return index

    def forget(self, name: str) -> None:
        """Drop the session's in-memory index (the file's index covers the session now)."""
        with self._lock:
            index = self._indexes.pop(name, None)
        if index is not None:
            index.conn.close()

    @staticmethod
    def _new_conn() -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute(CREATE_FTS)
        conn.execute(_IDS)
        return conn

    def close(self) -> None:
        """Drop every in-memory index."""
        with self._lock:
            for index in self._indexes.values():
                index.conn.close()
            self._indexes.clear()


def _same(index: _Index, file_conn: sqlite3.Connection, sid: int, length: int) -> bool:
    """Whether the snapshot's messages ``[0, min(length, done))`` are the ones indexed.

    True when the last message both hold has the same id (a session's messages only grow
    until it is cleared).
    """
    last = min(length, index.done) - 1
    if last < 0:
        return True
    ours = index.conn.execute(_ID_AT, (last,)).fetchone()
    theirs = file_conn.execute(_FILE_ID_AT, (sid, last)).fetchone()
    return ours is not None and ours == theirs
