"""The SQLite store's schema and every statement it runs, in one place.

Kept apart from :mod:`summem.stores.sqlite` so the SQL can be read (and checked: a test runs
``EXPLAIN QUERY PLAN`` on every statement in :class:`SQL` to make sure none scans a table)
without the connection and transaction handling around it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from summem.stores.common.schema_compat import check_declarations, compatible_down_to
from summem.stores.sqlite.search import (
    INDEX_STATE,
    INSERT_FTS,
    RANKED,
    SET_INDEXED,
    TO_INDEX,
    create_fts,
)

__all__ = [
    "COMPATIBLE",
    "MIGRATIONS",
    "READ_AS_IS",
    "SQL",
    "open_wal",
    "read_marker",
    "readable_as_is",
    "write_marker",
]


def open_wal(conn: sqlite3.Connection, *, deadline: float) -> int:
    """Put the file in WAL mode and return its schema version, waiting out other openers.

    Switching a fresh file to WAL needs an exclusive lock, and SQLite reports ``database is
    locked`` at once (without calling the busy handler) when another process is doing the same:
    two processes opening a new database together would fail. So retry, with a short backoff,
    until ``deadline`` (the store's ``timeout``).
    """
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if ("locked" not in text and "busy" not in text) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


Migration = tuple[str | Callable[[sqlite3.Connection], None], ...]
"""One migration: statements, or functions of the connection (run in the same transaction)."""

MIGRATIONS: tuple[Migration, ...] = (
    (  # 1: initial schema. Sessions get an integer key so messages do not repeat long ids.
        """CREATE TABLE sessions (
            sid INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            epoch TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 0,
            length INTEGER NOT NULL DEFAULT 0,
            watermark INTEGER NOT NULL DEFAULT 0,
            system TEXT,
            summary TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL)""",
        """CREATE TABLE messages (
            sid INTEGER NOT NULL,
            position INTEGER NOT NULL,
            msg_id TEXT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (sid, position))""",
        """CREATE TABLE summaries (
            seq INTEGER PRIMARY KEY,
            sid INTEGER NOT NULL,
            summary_id TEXT NOT NULL,
            watermark INTEGER NOT NULL,
            body TEXT NOT NULL,
            created_at REAL NOT NULL)""",
        "CREATE INDEX summaries_by_session ON summaries (sid, summary_id)",
        """CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            expires_at REAL NOT NULL)""",
    ),
    (  # 2: appends are idempotent by message id, looked up through this index.
        "CREATE INDEX messages_by_id ON messages (sid, msg_id)",
    ),
    (  # 3: recall searches an FTS5 index, which each search brings up to date first.
        create_fts,
        "ALTER TABLE sessions ADD COLUMN indexed INTEGER NOT NULL DEFAULT 0",
    ),
    (  # 4: the spend ledger of spend limits (one row per summarizer call, pruned by window).
        """CREATE TABLE spend (
            key TEXT NOT NULL,
            at REAL NOT NULL,
            tokens INTEGER NOT NULL,
            cost_usd REAL NOT NULL)""",
        "CREATE INDEX spend_by_key ON spend (key, at)",
    ),
    (  # 5: the holds of summarizer calls in flight, so that racing calls never pass a budget.
        """CREATE TABLE spend_holds (
            key TEXT NOT NULL,
            hold_id TEXT NOT NULL,
            expires_at REAL NOT NULL,
            tokens INTEGER NOT NULL,
            cost_usd REAL NOT NULL,
            PRIMARY KEY (key, hold_id))""",
        # a settled call's entry keeps its hold id, so a settle retried is charged once
        # (NULL for a plain record_spend entry: NULLs never conflict)
        "ALTER TABLE spend ADD COLUMN hold_id TEXT",
        "CREATE UNIQUE INDEX spend_by_hold ON spend (key, hold_id)",
    ),
    (  # 6: branches (Store.rewrite): the abandoned suffixes, and which summaries they abandoned.
        """CREATE TABLE branches (
            seq INTEGER PRIMARY KEY,
            sid INTEGER NOT NULL,
            branch_id TEXT NOT NULL,
            at INTEGER NOT NULL,
            length INTEGER NOT NULL,
            created_at REAL NOT NULL,
            summary_id TEXT,
            watermark INTEGER NOT NULL)""",
        "CREATE UNIQUE INDEX branches_by_id ON branches (sid, branch_id)",
        """CREATE TABLE branch_messages (
            seq INTEGER NOT NULL,
            position INTEGER NOT NULL,
            msg_id TEXT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (seq, position))""",
        "ALTER TABLE summaries ADD COLUMN abandoned_by TEXT",
        # a rewrite marks and picks among the summaries still valid: O(those), not O(log)
        "CREATE INDEX summaries_valid ON summaries (sid, watermark) WHERE abandoned_by IS NULL",
    ),
    (  # 7: the bounded summary log: entries past the latest keep_summaries become stubs
        "ALTER TABLE summaries ADD COLUMN whole INTEGER NOT NULL DEFAULT 1",
        # a commit finds the entries to stub, a branch the latest whole one: O(kept), not O(log)
        "CREATE INDEX summaries_whole ON summaries (sid, seq) WHERE whole = 1",
    ),
    (  # 8: a one-message append is one statement (SQL.APPEND_ONE, in SQLite's own transaction):
        # a message inserted at the session's length grows the session by one. Every other
        # insert (batches, create, rewrite) sets the length first and lands below it, so it
        # never fires. Older code's one-message append inserts below the length it raised;
        # its batches and rewrites insert at the length and then set it in the same
        # transaction, overwriting what the trigger wrote: each message is counted once.
        """CREATE TRIGGER messages_grow AFTER INSERT ON messages BEGIN
            UPDATE sessions SET length = NEW.position + 1,
                updated_at = (julianday('now') - 2440587.5) * 86400.0
            WHERE sid = NEW.sid AND length = NEW.position;
        END""",
    ),
)
"""Schema migrations, applied in order; migration ``i`` brings ``user_version`` to ``i + 1``."""

COMPATIBLE: tuple[int, ...] = (
    1,  # 1: the initial schema
    1,  # 2: an index only: code at schema 1 reads and writes the same rows
    3,  # 3: recall's FTS index: older code would clear and delete without its rows and state
    3,  # 4: the spend ledger's table: code at schema 3 never reads or writes it
    3,  # 5: the holds' table: older code never reads it (it checks budgets without holds)
    6,  # 6: branches: older code would roll back to an abandoned summary, and its clear and
    #      delete would leave branch rows behind for a later session to inherit
    7,  # 7: stubs in the summary log: older code would make a stub (no text) current
    7,  # 8: the trigger growing the session: older code sets every length it changes
)
"""For each migration, the oldest schema version whose code may still use the data once it
has run (see :mod:`summem.stores.common.schema_compat` for what may be declared)."""
check_declarations(COMPATIBLE, len(MIGRATIONS))

READ_AS_IS: frozenset[int] = frozenset(
    {
        8,  # the append's trigger: it changes how a write runs, never what a read finds
    }
)
"""The schema versions whose migration a read-only reader does without: a read-only file whose
only missing migrations are these is read as it is (its writes are refused anyway)."""


def readable_as_is(stored: int) -> bool:
    """Whether a read-only reader may read a file at the older version ``stored`` unmigrated."""
    return all(v in READ_AS_IS for v in range(stored + 1, len(MIGRATIONS) + 1))


_MARKER_TABLE = (
    "CREATE TABLE IF NOT EXISTS summem_schema (one INTEGER PRIMARY KEY CHECK (one = 1), "
    "version INTEGER NOT NULL, compatible INTEGER NOT NULL)"
)
_SET_MARKER = (
    "INSERT INTO summem_schema (one, version, compatible) VALUES (1, ?, ?) "
    "ON CONFLICT (one) DO UPDATE SET version = excluded.version, compatible = excluded.compatible"
)
_GET_MARKER = "SELECT version, compatible FROM summem_schema WHERE one = 1"


def write_marker(conn: sqlite3.Connection, version: int) -> None:
    """Record ``version``'s "compatible down to" marker (in the migration's transaction).

    The ``summem_schema`` table (one row: ``version``, ``compatible``) sits beside
    ``PRAGMA user_version`` and is written with it; every later summem keeps both columns.
    """
    conn.execute(_MARKER_TABLE)
    conn.execute(_SET_MARKER, (version, compatible_down_to(COMPATIBLE, version)))


def read_marker(conn: sqlite3.Connection, version: int) -> int | None:
    """The marker recorded for ``version`` (the file's ``user_version``), or ``None``.

    ``None`` when there is none (written before markers existed) or it was recorded for
    another version (then it does not describe this data).
    """
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'summem_schema'").fetchone() is None:
        return None
    row = conn.execute(_GET_MARKER).fetchone()
    if row is None or row[0] != version or not isinstance(row[1], int):
        return None
    return int(row[1])


# The one-message append's statement (SQL.APPEND_ONE, SQL.APPEND_ONE_PROBED): the message at
# the session's length, from the session row, when its length is an integer...
_APPEND_ONE_AT_LENGTH = (
    "INSERT INTO messages (sid, position, msg_id, body) "
    "SELECT sid, length, ?, ? FROM sessions WHERE name = ? "
    "AND typeof(length) = 'integer' AND length >= 0 "
)
# ...and the session does not hold its id yet (idempotent appends)
_NOT_HELD = "AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.sid = sessions.sid AND m.msg_id = ?) "


class SQL:
    """Every statement the store runs (a test checks that each one uses an index)."""

    META = (
        "SELECT sid, epoch, version, length, watermark, system, summary "
        "FROM sessions WHERE name = ?"
    )
    EXISTS = "SELECT sid FROM sessions WHERE name = ?"
    CREATE = "INSERT INTO sessions (name, epoch, created_at, updated_at) VALUES (?, ?, ?, ?)"
    CREATE_WHOLE = (
        "INSERT INTO sessions (name, epoch, length, watermark, system, summary, created_at, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    RANGE = (
        "SELECT position, body FROM messages "
        "WHERE sid = ? AND position >= ? AND position < ? ORDER BY position"
    )
    HAS_MESSAGE = "SELECT 1 FROM messages WHERE sid = ? AND msg_id = ?"
    INSERT_MESSAGE = "INSERT INTO messages (sid, position, msg_id, body) VALUES (?, ?, ?, ?)"
    SET_LENGTH = "UPDATE sessions SET length = ?, updated_at = ? WHERE sid = ?"
    # one message's append in one statement (autocommit: SQLite's own transaction, as durable
    # as BEGIN IMMEDIATE ... COMMIT): insert it at the session's length unless the session holds
    # the id; the trigger messages_grow (migration 8) sets the length. No row back, nothing
    # written, when the session is missing, holds the id or has a length of the wrong type.
    APPEND_ONE = _APPEND_ONE_AT_LENGTH + _NOT_HELD + "RETURNING position"
    # APPEND_ONE that also returns the session's epoch and version, read in the same statement
    # (so under the same write lock: exactly as of the append), for
    # ProbingAppendStore.append_probe; nothing written for a row of the wrong types either
    APPEND_ONE_PROBED = (
        _APPEND_ONE_AT_LENGTH
        + "AND typeof(version) = 'integer' AND typeof(epoch) = 'text' "
        + _NOT_HELD
        + "RETURNING position, (SELECT s.epoch FROM sessions s WHERE s.sid = messages.sid), "
        "(SELECT s.version FROM sessions s WHERE s.sid = messages.sid)"
    )
    SET_SYSTEM = "UPDATE sessions SET system = ?, updated_at = ? WHERE sid = ?"
    SET_SUMMARY = (
        "UPDATE sessions SET summary = ?, watermark = ?, version = version + 1, updated_at = ? "
        "WHERE sid = ?"
    )
    LOG_SUMMARY = (
        "INSERT INTO summaries (sid, summary_id, watermark, body, created_at) "
        "VALUES (?, ?, ?, ?, ?)"
    )
    SUMMARIES = "SELECT body FROM summaries WHERE sid = ? ORDER BY seq"
    FIND_SUMMARY = (
        "SELECT watermark, body, abandoned_by, whole FROM summaries "
        "WHERE sid = ? AND summary_id = ? ORDER BY seq DESC LIMIT 1"
    )
    PROBE = "SELECT epoch, version, length FROM sessions WHERE name = ?"
    HAS_BRANCH = "SELECT 1 FROM branches WHERE sid = ? AND branch_id = ?"
    ADD_BRANCH = (
        "INSERT INTO branches (sid, branch_id, at, length, created_at, summary_id, watermark) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    )
    MOVE_TO_BRANCH = (
        "INSERT INTO branch_messages (seq, position, msg_id, body) "
        "SELECT ?, position, msg_id, body FROM messages WHERE sid = ? AND position >= ?"
    )
    DELETE_FTS_FROM = (
        "DELETE FROM messages_fts WHERE rowid IN "
        "(SELECT rowid FROM messages WHERE sid = ? AND position >= ?)"
    )
    DELETE_MESSAGES_FROM = "DELETE FROM messages WHERE sid = ? AND position >= ?"
    ABANDON_SUMMARIES = (
        "UPDATE summaries SET abandoned_by = ? "
        "WHERE sid = ? AND watermark > ? AND abandoned_by IS NULL"
    )
    LATEST_VALID_SUMMARY = (
        "SELECT watermark, body FROM summaries INDEXED BY summaries_whole "
        "WHERE sid = ? AND whole = 1 AND abandoned_by IS NULL AND watermark <= ? "
        "ORDER BY seq DESC LIMIT 1"
    )
    # the whole entries past the latest ``keep`` (LIMIT -1: no limit), to be made stubs
    TO_STUB = (
        "SELECT seq, body FROM summaries WHERE sid = ? AND whole = 1 "
        "ORDER BY seq DESC LIMIT -1 OFFSET ?"
    )
    SET_STUB = "UPDATE summaries SET body = ?, whole = 0 WHERE seq = ?"
    SET_REWRITTEN = (
        "UPDATE sessions SET length = ?, summary = ?, watermark = ?, indexed = MIN(indexed, ?), "
        "version = version + 1, updated_at = ? WHERE sid = ?"
    )
    BRANCHES = (
        "SELECT branch_id, at, length, created_at, summary_id, watermark FROM branches "
        "WHERE sid = ? ORDER BY seq"
    )
    FIND_BRANCH = "SELECT seq, at, length FROM branches WHERE sid = ? AND branch_id = ?"
    BRANCH_MESSAGES = "SELECT position, body FROM branch_messages WHERE seq = ? ORDER BY position"
    DELETE_BRANCH_MESSAGES = (
        "DELETE FROM branch_messages WHERE seq IN (SELECT seq FROM branches WHERE sid = ?)"
    )
    DELETE_BRANCHES = "DELETE FROM branches WHERE sid = ?"
    CLEAR = (
        "UPDATE sessions SET system = NULL, summary = NULL, watermark = 0, length = 0, "
        "indexed = 0, version = version + 1, updated_at = ? WHERE sid = ?"
    )
    DELETE_MESSAGES = "DELETE FROM messages WHERE sid = ?"
    INDEX_STATE = INDEX_STATE
    SEARCH_STATE = "SELECT sid, length, indexed, epoch FROM sessions WHERE name = ?"
    BODY_AT = "SELECT body FROM messages WHERE sid = ? AND position = ?"
    TO_INDEX = TO_INDEX
    INSERT_FTS = INSERT_FTS
    SET_INDEXED = SET_INDEXED
    DELETE_FTS = (
        "DELETE FROM messages_fts WHERE rowid IN (SELECT rowid FROM messages WHERE sid = ?)"
    )
    SEARCH = (
        f"SELECT m.position, m.body, {RANKED} "
        "FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid "
        "WHERE messages_fts MATCH ? AND m.sid = ? AND m.position < ? "
        "ORDER BY score, m.position DESC LIMIT ?"
    )
    POSITION_OF = "SELECT position FROM messages WHERE sid = ? AND msg_id = ?"
    DELETE_SUMMARIES = "DELETE FROM summaries WHERE sid = ?"
    DELETE_SESSION = "DELETE FROM sessions WHERE sid = ?"
    NAMES = "SELECT name FROM sessions"
    # the listing: the sessions' rows in id order (UTF-8 bytes sort as code points), read
    # through the unique index on name; the log is counted on its (sid, summary_id) index
    INFOS = (
        "SELECT name, length, watermark, version, summary, "
        "(SELECT COUNT(*) FROM summaries s WHERE s.sid = sessions.sid), updated_at "
        "FROM sessions WHERE name > ? ORDER BY name LIMIT ?"
    )
    LEASE = "SELECT owner, expires_at FROM leases WHERE name = ?"
    PUT_LEASE = "INSERT OR REPLACE INTO leases (name, owner, expires_at) VALUES (?, ?, ?)"
    RELEASE_LEASE = "DELETE FROM leases WHERE name = ? AND owner = ?"
    DELETE_LEASE = "DELETE FROM leases WHERE name = ?"
    RECORD_SPEND = "INSERT INTO spend (key, at, tokens, cost_usd) VALUES (?, ?, ?, ?)"
    SETTLE_SPEND = (
        "INSERT INTO spend (key, at, tokens, cost_usd, hold_id) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING"
    )
    PRUNE_SPEND = "DELETE FROM spend WHERE key = ? AND at <= ?"
    SPENT_SINCE = (
        "SELECT COALESCE(SUM(tokens), 0), COALESCE(SUM(cost_usd), 0.0) FROM spend "
        "WHERE key = ? AND at > ?"
    )
    EXPIRE_HOLDS = "DELETE FROM spend_holds WHERE key = ? AND expires_at <= ?"
    HELD = (
        "SELECT COALESCE(SUM(tokens), 0), COALESCE(SUM(cost_usd), 0.0) FROM spend_holds "
        "WHERE key = ? AND hold_id <> ?"
    )
    PUT_HOLD = (
        "INSERT OR REPLACE INTO spend_holds (key, hold_id, expires_at, tokens, cost_usd) "
        "VALUES (?, ?, ?, ?, ?)"
    )
    DROP_HOLD = "DELETE FROM spend_holds WHERE key = ? AND hold_id = ?"
