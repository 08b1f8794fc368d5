"""Creating a whole SQLite session in one transaction (``SQLiteStore.create``).

Kept apart from :mod:`summem.stores.sqlite` (the day-to-day operations) because it is the one
write that inserts a session row with its whole history at once: the session row, every
message and the summary log entry go in under the write lock the caller's ``BEGIN IMMEDIATE``
holds, so another process either sees all of it or none, and a second creator of the same id
finds the row and fails instead of adding to it.
"""

from __future__ import annotations

import sqlite3
import time

from summem.errors import ConflictError
from summem.stores.base import new_epoch
from summem.stores.common.new_session import NewSession
from summem.stores.sqlite.schema import SQL

__all__ = ["insert_session"]


def insert_session(conn: sqlite3.Connection, name: str, new: NewSession) -> None:
    """Write ``new`` as session ``name`` inside the caller's write transaction.

    Raises:
        ConflictError: the session exists (nothing is written).
    """
    if conn.execute(SQL.EXISTS, (name,)).fetchone() is not None:
        raise ConflictError(f"session {name!r} already exists")
    now, wm = time.time(), new.watermark
    row = (name, new_epoch(), len(new.bodies), wm, new.system_body, new.summary_body, now, now)
    sid = conn.execute(SQL.CREATE_WHOLE, row).lastrowid
    conn.executemany(
        SQL.INSERT_MESSAGE,
        (
            (sid, i, m.id, body)
            for i, (m, body) in enumerate(zip(new.history, new.bodies, strict=True))
        ),
    )
    if new.summary is not None:
        conn.execute(SQL.LOG_SUMMARY, (sid, new.summary.id, wm, new.summary_body, now))
