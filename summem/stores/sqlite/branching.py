"""Branches in a SQLite file: ``rewrite`` and reading what it abandoned (issue #28).

A rewrite runs inside the caller's ``BEGIN IMMEDIATE`` transaction: it records the branch
(``branches``), moves the abandoned rows from ``messages`` to ``branch_messages`` with one
``INSERT ... SELECT`` over the position range and deletes them (and their full-text rows), marks
the logged summaries past the fork (``summaries.abandoned_by``), picks the summary to roll back
to, then sets the length and appends the new messages at ``keep``, below it. Every statement is
an index range: the cost is O(abandoned + new), never O(history).
"""

from __future__ import annotations

import sqlite3
import time

from summem.errors import CorruptRecordError
from summem.messages import Message
from summem.stores.base import Branch
from summem.stores.common.branching import check_keep, no_branch_error
from summem.stores.common.operations import Rewrite
from summem.stores.common.rows import Meta, check_expected, decode_opt, decode_positions
from summem.stores.sqlite.schema import SQL

__all__ = ["branch_messages", "branches", "delete_branches", "rewrite"]


def rewrite(
    conn: sqlite3.Connection,
    name: str,
    meta: Meta | None,
    rewrite: Rewrite,
    batch: list[tuple[str, str]],
) -> int:
    """See :meth:`summem.stores.base.Store.rewrite`; ``batch`` is the new ``(id, body)`` pairs.

    Returns:
        The new version (the current one for a branch already recorded).
    """
    keep, branch_id = rewrite.keep, rewrite.branch_id
    if meta is not None and conn.execute(SQL.HAS_BRANCH, (meta.sid, branch_id)).fetchone():
        return meta.version  # a retry: the branch is already recorded
    meta = check_expected(name, meta, rewrite.expected_version, rewrite.expected_epoch)
    check_keep(name, rewrite, meta.length)
    sid, now = meta.sid, time.time()
    current = decode_opt(meta.summary, name, "summary")
    seq = conn.execute(
        SQL.ADD_BRANCH,
        (
            sid,
            branch_id,
            keep,
            meta.length - keep,
            now,
            None if current is None else current.id,
            meta.watermark,
        ),
    ).lastrowid
    if keep < meta.length:
        conn.execute(SQL.MOVE_TO_BRANCH, (seq, sid, keep))
        conn.execute(SQL.DELETE_FTS_FROM, (sid, keep))
        conn.execute(SQL.DELETE_MESSAGES_FROM, (sid, keep))
    conn.execute(SQL.ABANDON_SUMMARIES, (branch_id, sid, keep))
    summary, watermark = meta.summary, meta.watermark
    if watermark > keep:
        row = conn.execute(SQL.LATEST_VALID_SUMMARY, (sid, keep)).fetchone()
        watermark, summary = (0, None) if row is None else row
    seen: set[str] = set()
    rows: list[tuple[int, int, str, str]] = []
    for mid, body in batch:
        if mid in seen or conn.execute(SQL.HAS_MESSAGE, (sid, mid)).fetchone():
            continue  # in history[:keep], or repeated in the batch
        seen.add(mid)
        rows.append((sid, keep + len(rows), mid, body))
    # the length first: the rows then land below it (the trigger messages_grow never fires)
    conn.execute(SQL.SET_REWRITTEN, (keep + len(rows), summary, watermark, keep, now, sid))
    conn.executemany(SQL.INSERT_MESSAGE, rows)
    return meta.version + 1


def branches(conn: sqlite3.Connection, name: str, sid: int) -> list[Branch]:
    """Every branch of the session ``sid``, oldest first."""
    out = []
    for branch_id, at, length, created_at, summary_id, watermark in conn.execute(
        SQL.BRANCHES, (sid,)
    ):
        if not all(isinstance(v, int) for v in (at, length, watermark)):
            raise CorruptRecordError(f"session {name!r}: branch {branch_id!r} is invalid")
        out.append(Branch(branch_id, at, length, float(created_at), summary_id, watermark))
    return out


def branch_messages(
    conn: sqlite3.Connection, name: str, sid: int | None, branch_id: str
) -> list[Message]:
    """The messages branch ``branch_id`` of the session ``sid`` abandoned, in order.

    Raises:
        StoreError: the session has no such branch.
        CorruptRecordError: a message is missing or cannot be decoded.
    """
    row = None if sid is None else conn.execute(SQL.FIND_BRANCH, (sid, branch_id)).fetchone()
    if row is None:
        raise no_branch_error(name, branch_id)
    seq, at, length = row
    rows = conn.execute(SQL.BRANCH_MESSAGES, (seq,)).fetchall()
    return decode_positions(name, rows, at, at + length)


def delete_branches(conn: sqlite3.Connection, sid: int) -> None:
    """Remove every branch of the session ``sid`` (its clear and delete)."""
    conn.execute(SQL.DELETE_BRANCH_MESSAGES, (sid,))
    conn.execute(SQL.DELETE_BRANCHES, (sid,))
