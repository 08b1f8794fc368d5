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

from summem.errors import CorruptRecordError
from summem.messages import Message
from summem.stores.base import new_epoch
from summem.stores.common.rows import Meta, check_expected, decode_positions
from summem.stores.sqlite.schema import SQL

__all__ = ["checked_meta", "new_session_row", "read_meta", "read_range"]


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
    return check_expected(name, read_meta(conn, name), version, epoch)


def read_range(conn: sqlite3.Connection, name: str, sid: int, lo: int, hi: int) -> list[Message]:
    """``history[lo:hi]`` of the session ``sid``: every position there, in order.

    Raises:
        CorruptRecordError: a position is missing, or a message cannot be decoded.
    """
    return decode_positions(name, conn.execute(SQL.RANGE, (sid, lo, hi)).fetchall(), lo, hi)
