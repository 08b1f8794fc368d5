"""The SQLite store's session record and history rows, read and checked.

Every operation reads the session's row (:func:`read_meta`) and, for the view or a slice of
history, its messages by position (:func:`read_range`). Both refuse what they cannot trust
with a :class:`~summem.errors.CorruptRecordError` naming the session, rather than hand
back something wrong. :func:`checked_meta` is the compare-and-set's read: the session as the
caller last saw it (epoch and version), or a :class:`~summem.errors.ConflictError`.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from summem.errors import ConflictError, CorruptRecordError
from summem.messages import Message
from summem.stores._sqlite_schema import SQL
from summem.stores.base import decode_message, new_epoch

__all__ = ["Meta", "checked_meta", "decode_opt", "new_session_row", "read_meta", "read_range"]


@dataclass(frozen=True)
class Meta:
    """A session's row: its key, epoch, version, length, watermark and encoded messages."""

    sid: int
    epoch: str
    version: int
    length: int
    watermark: int
    system: str | None
    summary: str | None


def read_meta(conn: sqlite3.Connection, name: str) -> Meta | None:
    """The session's row, ``None`` if there is none.

    Raises:
        CorruptRecordError: the row holds values of the wrong type or an impossible watermark.
    """
    row = conn.execute(SQL.META, (name,)).fetchone()
    if row is None:
        return None
    sid, epoch, version, length, watermark, system, summary = row
    ints_ok = all(isinstance(v, int) for v in (sid, version, length, watermark))
    if not (ints_ok and isinstance(epoch, str) and 0 <= watermark <= length) or not all(
        v is None or isinstance(v, str) for v in (system, summary)
    ):
        raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
    return Meta(sid, epoch, version, length, watermark, system, summary)


def new_session_row(conn: sqlite3.Connection, name: str) -> Meta:
    """Insert an empty session (a new epoch) and return its row."""
    now = time.time()
    epoch = new_epoch()
    cur = conn.execute(SQL.CREATE, (name, epoch, now, now))
    assert cur.lastrowid is not None
    return Meta(cur.lastrowid, epoch, 0, 0, 0, None, None)


def checked_meta(conn: sqlite3.Connection, name: str, version: int, epoch: str | None) -> Meta:
    """The session's row if it is still at ``version`` (and ``epoch``, unless ``None``).

    Raises:
        ConflictError: the session is gone, was created again, or moved on.
    """
    meta = read_meta(conn, name)
    if meta is None:
        raise ConflictError(f"session {name!r} no longer exists")
    if epoch is not None and meta.epoch != epoch:
        raise ConflictError(f"session {name!r} was deleted and created again")
    if meta.version != version:
        raise ConflictError(
            f"session {name!r} moved: version is {meta.version}, expected {version}"
        )
    return meta


def read_range(conn: sqlite3.Connection, name: str, sid: int, lo: int, hi: int) -> list[Message]:
    """``history[lo:hi]`` of the session ``sid``: every position there, in order.

    Raises:
        CorruptRecordError: a position is missing, or a message cannot be decoded.
    """
    rows = conn.execute(SQL.RANGE, (sid, lo, hi)).fetchall()
    if [pos for pos, _ in rows] != list(range(lo, hi)):
        raise CorruptRecordError(
            f"session {name!r}: history positions {lo}..{hi - 1} are missing or out of order"
        )
    return [
        decode_message(body, session_id=name, where=f"message at position {pos}")
        for pos, body in rows
    ]


def decode_opt(body: Any, name: str, where: str) -> Message | None:
    """A stored message that may be absent (the system message, the summary)."""
    return None if body is None else decode_message(body, session_id=name, where=where)
