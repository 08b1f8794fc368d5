"""The SQLite store's full-text index: an FTS5 table kept in step with ``messages``.

``messages_fts`` holds one row per message, with the message's ``rowid``: the session (as a
token, ``s<sid>``, so a search intersects with it inside FTS5 instead of filtering afterwards)
and the message's search terms (:func:`summem._terms.message_terms`, space-separated). Every
write that adds or removes messages changes it in the same transaction, so the index never
disagrees with the history. Ranking is FTS5's ``bm25()`` over the terms column (the session
column weighs nothing); its statistics are the file's, shared by every session in it.

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
from summem.exceptions import CorruptRecordError, StoreError
from summem.messages import Message
from summem.stores.base import decode_message

__all__ = [
    "CREATE_FTS",
    "INSERT_FTS",
    "backfill",
    "fts_query",
    "index_rows",
    "inserted_rowid",
    "session_token",
]

CREATE_FTS = (
    "CREATE VIRTUAL TABLE messages_fts USING fts5(sess, terms, "
    "tokenize = \"unicode61 remove_diacritics 0 tokenchars '-_.@+'\")"
)

INSERT_FTS = "INSERT INTO messages_fts (rowid, sess, terms) VALUES (?, ?, ?)"

_BACKFILL_CHUNK = 500


def session_token(sid: int) -> str:
    """The token that marks a session's rows in ``messages_fts``."""
    return f"s{sid}"


def document(message: Message) -> str:
    """The text ``messages_fts`` indexes for ``message``."""
    return " ".join(message_terms(message))


def fts_query(sid: int, query: str) -> str | None:
    """The FTS5 query for ``query`` in session ``sid``, or ``None`` if it has no words."""
    words = dict.fromkeys(terms(query))
    if not words:
        return None
    either = " OR ".join(f'"{w}"' for w in words)  # a term never holds a double quote
    return f'sess : "{session_token(sid)}" AND ({either})'


def inserted_rowid(cursor: sqlite3.Cursor) -> int:
    """The rowid of the row ``cursor`` just inserted."""
    if cursor.lastrowid is None:  # pragma: no cover - sqlite3 sets it after every INSERT
        raise StoreError("SQLite gave no rowid for an inserted message")
    return cursor.lastrowid


def index_rows(conn: sqlite3.Connection, rows: Iterable[tuple[int, int, Message]]) -> None:
    """Index ``(rowid, sid, message)`` rows just inserted into ``messages``."""
    conn.executemany(
        INSERT_FTS,
        ((rowid, session_token(sid), document(m)) for rowid, sid, m in rows),
    )


def create_fts(conn: sqlite3.Connection) -> None:
    """Migration 3: create ``messages_fts`` and index every message already stored."""
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
    backfill(conn)


def backfill(conn: sqlite3.Connection) -> None:
    """Index every message of the file (once, when the FTS table is created)."""
    last = -1
    while True:
        rows = conn.execute(
            "SELECT rowid, sid, body FROM messages WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (last, _BACKFILL_CHUNK),
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        decoded: list[tuple[int, int, Message]] = []
        for rowid, sid, body in rows:
            try:
                decoded.append((rowid, sid, decode_message(body, session_id=str(sid))))
            except CorruptRecordError:
                continue  # unreadable anyway (reading it raises); nothing to index
        index_rows(conn, decoded)
