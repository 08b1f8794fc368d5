"""The embedded default store: one SQLite file, safe to share between threads and processes.

Stdlib ``sqlite3`` only. The file runs in WAL mode, so readers never block the writer; every
write is one ``BEGIN IMMEDIATE`` transaction (a one-message append, the write of every turn, is
one statement in SQLite's own transaction, which takes the same lock), so several processes
appending to and committing on the same session serialise on SQLite's own lock
(``busy_timeout`` makes them wait instead of failing) and see each other's work. Each thread
gets its own connection; writers of this process also queue on a lock, so they do not spin in
SQLite's busy handler.

This module is the store's operations on sessions. The rest lives beside it, one concept
each: opening the file read-write or read-only (:mod:`summem.stores.sqlite.access`),
connections, transactions and migrations (:mod:`summem.stores.sqlite.file`), the schema and
every statement (:mod:`summem.stores.sqlite.schema`), reading and checking a session's rows
(:mod:`summem.stores.sqlite.rows`), creating a whole session
(:mod:`summem.stores.sqlite.create`), branches (:mod:`summem.stores.sqlite.branching`),
recall search (:mod:`summem.stores.sqlite.recall` over :mod:`summem.stores.sqlite.search`),
the spend ledger (:mod:`summem.stores.sqlite.spend`); the async twin is at the end of this
module.

Every query is an index lookup or range scan: ``append`` costs O(batch) and ``load`` reads only
``history[k:]``, whatever the history's length. The schema evolves through :data:`MIGRATIONS`
(in :mod:`summem.stores.sqlite.schema`), tracked by ``PRAGMA user_version``.
:class:`AsyncSQLiteStore` runs the same code in worker threads, and opens the file in one
too (never on the event loop).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Sequence
from typing import TypeVar

from summem.errors import CorruptRecordError, SessionNotFoundError, StoreError
from summem.messages import Message
from summem.stores.adapter import AsyncLedgerAdapter
from summem.stores.base import (
    Branch,
    SearchHit,
    SessionInfo,
    SessionState,
    check_lease_args,
    check_page,
    check_watermark,
    decode_message,
    encode_message,
    slice_bounds,
    validate_session_id,
)
from summem.stores.common.branching import abandoned_summary_error, check_rewrite
from summem.stores.common.direct import ProbingDirectStore
from summem.stores.common.new_session import prepare_new_session
from summem.stores.common.operations import Commit, Create, Rewrite, Rollback
from summem.stores.sqlite import branching
from summem.stores.sqlite.access import target as sqlite_target
from summem.stores.sqlite.create import insert_session
from summem.stores.sqlite.file import SQLiteFile
from summem.stores.sqlite.recall import SQLiteRecall
from summem.stores.sqlite.rows import (
    checked_meta,
    new_session_row,
    read_meta,
    read_range,
)
from summem.stores.sqlite.scan import ScanIndexes
from summem.stores.sqlite.schema import SQL
from summem.stores.sqlite.spend import SQLiteSpend
from summem.stores.summary_log import dropped_summary_error, summary_stub
from summem.stores.url import sqlite_file, sqlite_read_only

__all__ = ["AsyncSQLiteStore", "SQLiteStore"]


class SQLiteStore(SQLiteRecall, SQLiteSpend, ProbingDirectStore):
    """A store in one SQLite file (created if missing; its directory must exist).

    A file that cannot be written (no write permission on it or on its folder, including a
    ``chmod 444`` file when running as root) is opened read-only: every read works, every
    write raises :class:`~summem.errors.StoreError`, and the file is never changed (see
    :mod:`summem.stores.sqlite.access`).

    Args:
        path: the database file, or a ``file:`` URI (``file:app.db?mode=ro``).
        timeout: seconds to wait for another writer (``busy_timeout``) before failing.
        read_only: ``True`` to open it read-only (SQLite's ``mode=ro``), ``False`` to open it
            read-write; ``None`` (default): read-only when the process cannot write the file
            or its folder (``os.access``; a WARNING is logged).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        read_only: bool | None = None,
    ) -> None:
        self._setup(path, timeout, read_only)
        self._file.open()

    def _setup(self, path: str | os.PathLike[str], timeout: float, read_only: bool | None) -> None:
        target = sqlite_target(path, read_only)
        self._path = target.path
        self._file = SQLiteFile(target, timeout=timeout, label=repr(self))
        self._scans = ScanIndexes(repr(self))

    @classmethod
    def _unopened(
        cls, path: str | os.PathLike[str], *, timeout: float, read_only: bool | None
    ) -> SQLiteStore:
        """A store that opens (and migrates) its file on first use, not now."""
        store = cls.__new__(cls)
        store._setup(path, timeout, read_only)
        return store

    @classmethod
    def from_url(cls, url: str) -> SQLiteStore:
        """Build from ``sqlite:///relative.db`` or ``sqlite:////absolute/path.db``.

        ``?mode=ro`` at the end opens the file read-only, ``?mode=rw`` read-write.
        """
        return cls(sqlite_file(url), read_only=sqlite_read_only(url))

    @classmethod
    def async_from_url(cls, url: str) -> AsyncSQLiteStore:
        """Build the async twin from the same URL forms as :meth:`from_url`."""
        return AsyncSQLiteStore(sqlite_file(url), read_only=sqlite_read_only(url))

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    @property
    def read_only(self) -> bool | None:
        """Whether the file is open read-only (``None`` until opened, unless it was asked)."""
        return self._file.read_only

    def __repr__(self) -> str:
        return f"SQLiteStore({self._path!r})"

    # -- the contract ---------------------------------------------------------------------

    def _load(self, session_id: str) -> SessionState:
        """See :meth:`summem.stores.base.Store.load`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            meta = read_meta(conn, name)
            if meta is None:
                raise SessionNotFoundError(f"no session {name!r}")
            tail = read_range(conn, name, meta.sid, meta.watermark, meta.length)
        return meta.state(name, tail)

    def _exists(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.exists`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            return conn.execute(SQL.EXISTS, (name,)).fetchone() is not None

    def _probe(self, session_id: str) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.Store.probe`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            row = conn.execute(SQL.PROBE, (name,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def _history(self, session_id: str, start: int, stop: int | None) -> list[Message]:
        """See :meth:`summem.stores.base.Store.history`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            meta = read_meta(conn, name)
            if meta is None:
                return []
            return read_range(conn, name, meta.sid, *slice_bounds(start, stop, meta.length))

    def _append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`summem.stores.base.Store.append`."""
        name = validate_session_id(session_id)
        batch = [(m.id, encode_message(m)) for m in messages]
        if len(batch) == 1 and _RETURNING:
            length = self._append_one(name, *batch[0])
            if length is not None:
                return length
        found = self._append_batch(name, batch)
        return 0 if found is None else found[2]

    def _append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.ProbingAppendStore.append_probe`.

        A one-message append is still one statement: its ``RETURNING`` reads the session's
        epoch and version too, under the same write lock.
        """
        name = validate_session_id(session_id)
        batch = [(m.id, encode_message(m)) for m in messages]
        if len(batch) == 1 and _RETURNING:
            mid, body = batch[0]
            rows = self._file.write_one(
                name, "append", SQL.APPEND_ONE_PROBED, (mid, body, name, mid)
            )
            if rows:
                position, epoch, version = rows[0]
                return epoch, int(version), int(position) + 1
        return self._append_batch(name, batch)

    def _append_batch(self, name: str, batch: list[tuple[str, str]]) -> tuple[str, int, int] | None:
        """Append ``(id, body)`` pairs in one transaction; ``(epoch, version, length)`` after.

        ``None`` (nothing written) for an empty batch on a session that does not exist.
        """
        with self._file.tx(name, write="append" if batch else None) as conn:
            meta = read_meta(conn, name)
            if not batch:
                return None if meta is None else (meta.epoch, meta.version, meta.length)
            meta = meta or new_session_row(conn, name)
            n = meta.length
            seen: set[str] = set()
            rows: list[tuple[int, int, str, str]] = []
            for mid, body in batch:
                if mid in seen or conn.execute(SQL.HAS_MESSAGE, (meta.sid, mid)).fetchone():
                    continue  # idempotent by id: already stored
                seen.add(mid)
                rows.append((meta.sid, n + len(rows), mid, body))
            if rows:
                # the length first: the rows then land below it, so the trigger messages_grow
                # (for a message inserted at the length) never fires for them
                conn.execute(SQL.SET_LENGTH, (n + len(rows), time.time(), meta.sid))
                conn.executemany(SQL.INSERT_MESSAGE, rows)
            return meta.epoch, meta.version, n + len(rows)

    def _append_one(self, name: str, mid: str, body: str) -> int | None:
        """Append one message to a session that holds it not yet; return the new length.

        One statement (:attr:`SQL.APPEND_ONE`) in SQLite's own transaction: no ``BEGIN`` or
        ``COMMIT`` of its own. ``None``, having written nothing, when the session is missing,
        holds the id or has a length of the wrong type: the general path decides then.
        """
        rows = self._file.write_one(name, "append", SQL.APPEND_ONE, (mid, body, name, mid))
        if not rows:
            return None
        (position,) = rows[0]
        return int(position) + 1

    def _set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`summem.stores.base.Store.set_system`."""
        name = validate_session_id(session_id)
        body = None if message is None else encode_message(message)
        with self._file.tx(name, write="set_system") as conn:
            meta = read_meta(conn, name)
            if meta is None and body is None:
                return
            meta = meta or new_session_row(conn, name)
            conn.execute(SQL.SET_SYSTEM, (body, time.time(), meta.sid))

    def _commit(self, session_id: str, commit: Commit) -> int:
        """See :meth:`summem.stores.base.Store.commit`."""
        summary, watermark, expected_version, expected_epoch, keep = commit
        name = validate_session_id(session_id)
        body = None if summary is None else encode_message(summary)
        with self._file.tx(name, write="commit") as conn:
            meta = checked_meta(conn, name, expected_version, expected_epoch)
            check_watermark(name, watermark, meta.watermark, meta.length)
            now = time.time()
            conn.execute(SQL.SET_SUMMARY, (body, watermark, now, meta.sid))
            if summary is not None and body is not None:
                self._log_summary(conn, meta.sid, summary.id, watermark, body, now)
                if keep is not None:
                    _stub_older(conn, name, meta.sid, keep)
            return meta.version + 1

    def _create(self, session_id: str, create: Create) -> None:
        """See :meth:`summem.stores.base.Store.create` (one ``BEGIN IMMEDIATE`` transaction)."""
        history, system, summary, watermark = create
        name = validate_session_id(session_id)
        new = prepare_new_session(name, history, system, summary, watermark)
        with self._file.tx(name, write="create") as conn:
            insert_session(conn, name, new)

    def _summaries(self, session_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.summaries`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            meta = read_meta(conn, name)
            rows = [] if meta is None else conn.execute(SQL.SUMMARIES, (meta.sid,)).fetchall()
        return [
            decode_message(body, session_id=name, where="summary log entry") for (body,) in rows
        ]

    def _rollback(self, session_id: str, rollback: Rollback) -> int:
        """See :meth:`summem.stores.base.Store.rollback`."""
        summary_id, expected_version, expected_epoch = rollback
        name = validate_session_id(session_id)
        with self._file.tx(name, write="rollback") as conn:
            meta = checked_meta(conn, name, expected_version, expected_epoch)
            body: str | None = None
            watermark = 0
            if summary_id is not None:
                row = conn.execute(SQL.FIND_SUMMARY, (meta.sid, summary_id)).fetchone()
                if row is None:
                    raise StoreError(f"session {name!r}: no logged summary with id {summary_id!r}")
                watermark, body, abandoned_by, whole = row
                if abandoned_by is not None:
                    raise abandoned_summary_error(name, summary_id, abandoned_by)
                if not whole:
                    raise dropped_summary_error(name, summary_id)
                if not isinstance(watermark, int) or not 0 <= watermark <= meta.length:
                    raise CorruptRecordError(
                        f"session {name!r}: summary log entry {summary_id!r} has an invalid "
                        "watermark"
                    )
            conn.execute(SQL.SET_SUMMARY, (body, watermark, time.time(), meta.sid))
            return meta.version + 1

    def _rewrite(self, session_id: str, rewrite: Rewrite) -> int:
        """See :meth:`summem.stores.base.Store.rewrite` (one ``BEGIN IMMEDIATE`` transaction)."""
        name = validate_session_id(session_id)
        batch = [(m.id, encode_message(m)) for m in check_rewrite(name, rewrite)]
        with self._file.tx(name, write="rewrite") as conn:
            return branching.rewrite(conn, name, read_meta(conn, name), rewrite, batch)

    def _branches(self, session_id: str) -> list[Branch]:
        """See :meth:`summem.stores.base.Store.branches`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            row = conn.execute(SQL.EXISTS, (name,)).fetchone()
            return [] if row is None else branching.branches(conn, name, row[0])

    def _branch_messages(self, session_id: str, branch_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.branch_messages`."""
        name = validate_session_id(session_id)
        with self._file.tx(name) as conn:
            row = conn.execute(SQL.EXISTS, (name,)).fetchone()
            return branching.branch_messages(conn, name, row and row[0], branch_id)

    def _clear(self, session_id: str) -> None:
        """See :meth:`summem.stores.base.Store.clear`."""
        name = validate_session_id(session_id)
        with self._file.tx(name, write="clear") as conn:
            meta = read_meta(conn, name)
            if meta is not None:
                conn.execute(SQL.DELETE_FTS, (meta.sid,))
                conn.execute(SQL.DELETE_MESSAGES, (meta.sid,))
                conn.execute(SQL.DELETE_SUMMARIES, (meta.sid,))
                branching.delete_branches(conn, meta.sid)
                conn.execute(SQL.CLEAR, (time.time(), meta.sid))

    def _delete(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.delete`."""
        name = validate_session_id(session_id)
        with self._file.tx(name, write="delete") as conn:
            conn.execute(SQL.DELETE_LEASE, (name,))
            row = conn.execute(SQL.EXISTS, (name,)).fetchone()
            if row is None:
                return False
            for stmt in (
                SQL.DELETE_FTS,
                SQL.DELETE_MESSAGES,
                SQL.DELETE_SUMMARIES,
                SQL.DELETE_SESSION,
            ):
                conn.execute(stmt, (row[0],))
            branching.delete_branches(conn, row[0])
            return True

    def _list(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions`."""
        with self._file.tx(None) as conn:
            return sorted(name for (name,) in conn.execute(SQL.NAMES))

    def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`summem.stores.base.ListingStore.session_infos` (reads no messages)."""
        check_page(limit, after)
        with self._file.tx(None) as conn:
            rows = conn.execute(SQL.INFOS, (after or "", -1 if limit is None else limit))
            return [
                SessionInfo(
                    session_id=name,
                    length=length,
                    watermark=watermark,
                    version=version,
                    summaries=count,
                    stored_summary=summary,
                    updated_at=updated,
                )
                for name, length, watermark, version, summary, count, updated in rows
            ]

    def _acquire(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`summem.stores.base.Store.acquire_lease`."""
        name = validate_session_id(session_id)
        check_lease_args(owner, ttl_seconds)
        with self._file.tx(name, write="acquire_lease") as conn:
            now = time.time()
            held = conn.execute(SQL.LEASE, (name,)).fetchone()
            if held is not None and held[0] != owner and held[1] > now:
                return False
            conn.execute(SQL.PUT_LEASE, (name, owner, now + ttl_seconds))
            return True

    def _release(self, session_id: str, owner: str) -> None:
        """See :meth:`summem.stores.base.Store.release_lease`."""
        name = validate_session_id(session_id)
        with self._file.tx(name, write="release_lease") as conn:
            conn.execute(SQL.RELEASE_LEASE, (name, owner))

    def close(self) -> None:
        """Close every thread's connection; the store cannot be used afterwards."""
        self._file.close()
        self._scans.close()

    # -- internals ------------------------------------------------------------------------

    def _log_summary(
        self, conn: sqlite3.Connection, sid: int, summary_id: str, wm: int, body: str, now: float
    ) -> None:
        conn.execute(SQL.LOG_SUMMARY, (sid, summary_id, wm, body, now))


_AS = TypeVar("_AS", bound="AsyncSQLiteStore")


class AsyncSQLiteStore(AsyncLedgerAdapter):
    """The async twin of :class:`~summem.stores.sqlite.SQLiteStore`, run in worker threads.

    Building one does no I/O, so it may be done on a running event loop: the file is opened
    (switched to WAL, migrated) in a worker thread by :meth:`open`, by ``async with``, or else
    by the first call. An unusable file therefore raises there, not in the constructor.

    Args:
        path: the database file (created if missing; its directory must exist), or a
            ``file:`` URI.
        timeout: seconds to wait for another writer (``busy_timeout``) before failing.
        read_only: as for :class:`~summem.stores.sqlite.SQLiteStore`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        read_only: bool | None = None,
    ) -> None:
        self._sqlite: SQLiteStore = SQLiteStore._unopened(
            path, timeout=timeout, read_only=read_only
        )
        super().__init__(self._sqlite, offload=True)

    @classmethod
    def from_url(cls, url: str) -> AsyncSQLiteStore:
        """Build from ``sqlite:///relative.db`` or ``sqlite:////absolute/path.db``."""
        return SQLiteStore.async_from_url(url)

    @property
    def read_only(self) -> bool | None:
        """Whether the file is open read-only (``None`` until opened, unless it was asked)."""
        return self._sqlite.read_only

    async def open(self) -> None:
        """Open and migrate the file now, in a worker thread (then a no-op).

        Raises:
            StoreError: the file cannot be opened, stays locked, or has a newer schema.
        """
        await self.run_sync(self._sqlite._file.open)

    async def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """See :meth:`summem.stores.sqlite.SQLiteStore.search`."""
        return await self.run_sync(self._sqlite.search, session_id, query, k=k, stop=stop)

    async def position_of(self, session_id: str, message_id: str) -> int | None:
        """See :meth:`summem.stores.sqlite.SQLiteStore.position_of`."""
        return await self.run_sync(self._sqlite.position_of, session_id, message_id)

    async def __aenter__(self: _AS) -> _AS:
        await self.open()
        return self

    def __repr__(self) -> str:
        return f"Async{self.sync_store!r}"


_RETURNING = sqlite3.sqlite_version_info >= (3, 35)


def _stub_older(conn: sqlite3.Connection, name: str, sid: int, keep: int) -> None:
    """Make the log's whole entries past the latest ``keep`` stubs (one, after a commit)."""
    for seq, body in conn.execute(SQL.TO_STUB, (sid, keep)).fetchall():
        old = decode_message(body, session_id=name, where="summary log entry")
        conn.execute(SQL.SET_STUB, (encode_message(summary_stub(old)), seq))
