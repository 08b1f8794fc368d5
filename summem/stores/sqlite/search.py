"""The SQLite store's full-text index: an FTS5 table over the session's messages.

``messages_fts`` holds one row per indexed message, under the message's ``rowid``: the
session (as a token, ``s<sid>``, so a search intersects with it inside FTS5 instead of
filtering afterwards) and the message's search terms (:func:`summem._terms.message_terms`,
space-separated). Ranking is FTS5's ``bm25()`` over the terms column (the session column
weighs nothing); its statistics are the file's, shared by every session in it.

**Indexed by the search, not by the append.** An FTS5 insert costs about as much as the
append itself (FTS5 writes a segment per transaction), and splitting a message into terms as
much again: on the hot path that would be +50 % a turn (``python -m benchmarks --only
recall_index``). So ``append`` and ``create`` write no index; ``sessions.indexed`` says how
many of a session's messages are indexed, and a search first indexes the rest
(:func:`catch_up`, in write transactions of :data:`CATCH_UP_CHUNK` messages, each moving
``indexed`` with the rows it adds), then queries. A search therefore always covers the whole
history, and the index costs each message once, on the first search after it was written.
``clear`` and ``delete`` remove the session's index rows in their own transaction.

A query is split into the same terms, each quoted as an FTS5 string (a term holds only
``a-z 0-9 _ . @ + -``): no FTS5 syntax (quotes, ``*``, ``NEAR``, ``-``, ``:``, ``AND``, column
filters) can reach the engine, and a query with no words is not run at all. The tokenizer
keeps ``_ . @ + -`` inside tokens, so a term such as ``bw-58214-k`` stays one token, as in
the in-process index.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from summem._terms import message_terms, terms
from summem.errors import CorruptRecordError, StoreError
from summem.stores.base import decode_message

__all__ = [
    "CATCH_UP_CHUNK",
    "CREATE_FTS",
    "INDEX_STATE",
    "INSERT_FTS",
    "RANKED",
    "SET_INDEXED",
    "TO_INDEX",
    "catch_up",
    "create_fts",
    "fts_docs",
    "fts_query",
    "session_token",
]

CREATE_FTS = (
    "CREATE VIRTUAL TABLE messages_fts USING fts5(sess, terms, "
    "tokenize = \"unicode61 remove_diacritics 0 tokenchars '-_.@+'\")"
)
INDEX_STATE = "SELECT sid, length, indexed FROM sessions WHERE name = ?"
TO_INDEX = (
    "SELECT rowid, position, body FROM messages "
    "WHERE sid = ? AND position >= ? AND position < ? ORDER BY position"
)
INSERT_FTS = "INSERT INTO messages_fts (rowid, sess, terms) VALUES (?, ?, ?)"
RANKED = "bm25(messages_fts, 0.0, 1.0) AS score"
"""A match's score (the session column weighs nothing); a search orders by ``score`` (lower
is better), then the later message first."""
SET_INDEXED = "UPDATE sessions SET indexed = ? WHERE sid = ?"

CATCH_UP_CHUNK = 2000
"""Messages a search indexes per write transaction (so a first search of a long history does
not hold the database's write lock for long)."""


def session_token(sid: int) -> str:
    """The token that marks a session's rows in ``messages_fts``."""
    return f"s{sid}"


def fts_query(sid: int, query: str) -> str | None:
    """The FTS5 query for ``query`` in session ``sid``, or ``None`` if it has no words."""
    words = dict.fromkeys(terms(query))
    if not words:
        return None
    either = " OR ".join(f'"{w}"' for w in words)  # a term never holds a double quote
    return f'sess : "{session_token(sid)}" AND ({either})'


def catch_up(conn: sqlite3.Connection, name: str, chunk: int) -> bool:
    """Index up to ``chunk`` of session ``name``'s unindexed messages (in a write transaction).

    Returns:
        True when every message of the session is indexed (or the session is gone).
    """
    row = conn.execute(INDEX_STATE, (name,)).fetchone()
    if row is None:
        return True
    sid, length, indexed = row
    stop = min(length, indexed + chunk)
    rows = conn.execute(TO_INDEX, (sid, indexed, stop)).fetchall()
    conn.executemany(INSERT_FTS, fts_docs(rows, name, sid))
    conn.execute(SET_INDEXED, (stop, sid))
    return bool(stop >= length)


def fts_docs(
    rows: Iterable[tuple[int, int, str]], name: str, sid: int, *, by_position: bool = False
) -> list[tuple[int, str, str]]:
    """``messages_fts`` rows for :data:`TO_INDEX`'s ``(rowid, position, body)`` rows.

    Keyed by the message's ``rowid`` (the file's table), or by its position
    (``by_position``: an index of one session). A record that cannot be read is left out
    (reading it raises anyway).
    """
    docs: list[tuple[int, str, str]] = []
    for rowid, pos, body in rows:
        try:
            message = decode_message(body, session_id=name, where=f"message at {pos}")
        except CorruptRecordError:
            continue  # unreadable anyway (reading it raises): nothing to index
        key = pos if by_position else rowid
        docs.append((key, session_token(sid), " ".join(message_terms(message))))
    return docs


def create_fts(conn: sqlite3.Connection) -> None:
    """Migration 3: create ``messages_fts`` (filled by the searches, see :func:`catch_up`)."""
    try:
        conn.execute(CREATE_FTS)
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc):
            raise
        raise StoreError(
            f"this Python's SQLite ({sqlite3.sqlite_version}) has no FTS5, which the SQLite "
            "store's recall index needs; use a Python build with FTS5 (python.org, most "
            "distributions) or another store"
        ) from exc
