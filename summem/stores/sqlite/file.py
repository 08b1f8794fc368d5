"""Connections and transactions for the SQLite store: the part that is about the file, not SQL.

:class:`SQLiteFile` owns one connection per thread (closed when its thread goes away, or all
at once by :meth:`SQLiteFile.close`), runs every unit of work as one transaction (``BEGIN`` for
a consistent snapshot, ``BEGIN IMMEDIATE`` for the write lock; a write of one statement, a
one-message append, runs in SQLite's own transaction instead: :meth:`SQLiteFile.write_one`),
turns ``sqlite3`` errors into
:class:`~summem.errors.StoreError` naming the session, and opens the file once: WAL mode
and the schema migrations of :mod:`summem.stores.sqlite.schema`. Opening happens on the first
transaction unless :meth:`SQLiteFile.open` is called first (``SQLiteStore`` does, in its
constructor; ``AsyncSQLiteStore`` leaves it to the first call, which runs in a worker thread).

Several processes may open and migrate the same file at once: the switch to WAL is retried
(see :func:`~summem.stores.sqlite.schema.open_wal`) and the migration runs under the write
lock, re-reading the schema version there, so exactly one process applies each migration.

A file that cannot or must not be written (see :mod:`summem.stores.sqlite.access`) is opened
read-only instead: no switch to WAL, no migration, every connection opened with SQLite's
``mode=ro``, and every write refused with a :class:`~summem.errors.StoreError` before it
reaches SQLite. Its schema must be the current one: an older one needs a migration, which
cannot run there, and opening says so. A file opened read-only because the process cannot
write it is logged (WARNING). When the file had to be read ``immutable=1`` (no ``-shm`` could be
made), every read first checks that the files on disk are still the ones read, and opens them
again when they are not, so another process writing later is never read stale or torn.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

from summem.errors import (
    SchemaVersionError,
    SessionClosedError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.stores.common.schema_compat import check_schema
from summem.stores.sqlite.access import (
    Fingerprint,
    Target,
    fingerprint,
    immutable_fallback,
    read_only_reason,
    read_only_uri,
)
from summem.stores.sqlite.schema import (
    MIGRATIONS,
    open_wal,
    read_marker,
    readable_as_is,
    write_marker,
)

__all__ = ["SQLiteFile"]

logger = logging.getLogger("summem.stores")

_LOCKED = "database is locked"  # SQLITE_BUSY past busy_timeout: another connection holds a lock


class _Holder:
    """Owns one thread's connection and closes it when the thread (and its locals) go away."""

    __slots__ = ("__weakref__", "conn", "generation")

    def __init__(self, conn: sqlite3.Connection, generation: int) -> None:
        self.conn = conn
        self.generation = generation

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


class SQLiteFile:
    """One SQLite database file, shared by every thread of a store.

    Args:
        target: the database file (its directory must exist) and whether to open it
            read-only (``None``: when its permissions say so).
        timeout: seconds to wait for another writer (``busy_timeout``) before failing.
        label: how errors name the file's owner, e.g. ``SQLiteStore('app.db')``.
    """

    def __init__(self, target: Target, *, timeout: float, label: str) -> None:
        self.path = target.path
        self.timeout = timeout
        self.label = label
        self._target = target
        self.read_only: bool | None = target.read_only
        """Whether the file is open read-only (``None`` until it is opened, when unsaid)."""
        self._why_read_only = "opened read-only"
        self._uri: str | None = None  # the read-only URI every connection opens
        self._generation = 0  # bumped when the file is opened again: older connections go
        self._watch: Fingerprint | None = None  # read immutable as a fallback: what was read
        self._local = threading.local()
        self._holders: weakref.WeakSet[_Holder] = weakref.WeakSet()
        self._holders_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._open_lock = threading.Lock()
        self._opened = False
        self._closed = False

    @property
    def connections(self) -> int:
        """How many thread connections are open (for tests and diagnostics)."""
        return len(self._holders)

    def open(self) -> None:
        """Put the file in WAL mode and migrate its schema, once (a no-op afterwards).

        A read-only file is only checked: its schema must be the current one, a newer one
        compatible with it, or an older one short only of migrations readers do without
        (:data:`~summem.stores.sqlite.schema.READ_AS_IS`).

        Raises:
            StoreError: the file cannot be opened, stays locked past the timeout, has a
                schema newer than this summem knows, or is read-only with an older schema.
        """
        if self._opened:
            return
        with self._open_lock:
            if not self._opened:
                if self.read_only is None:
                    why = read_only_reason(self.path)
                    self.read_only = why is not None
                    self._why_read_only = why or ""
                    if why is not None:
                        logger.warning(
                            "%s: opened read-only because %s; writes will be refused",
                            self.label,
                            why,
                        )
                if self.read_only:
                    self._open_read_only()
                else:
                    self._migrate()
                self._opened = True

    @contextlib.contextmanager
    def tx(self, name: str | None, *, write: str | None = None) -> Iterator[sqlite3.Connection]:
        """One transaction: a consistent snapshot to read, or the database's write lock.

        ``name`` is the session the work is for (errors name it), ``None`` for the whole file;
        ``write`` names the write operation (``None`` to read). A write whose ``COMMIT`` fails
        raises :class:`StoreOutcomeUnknownError`: SQLite does not always say whether it landed.
        """
        if not self._opened:
            self.open()
        with self._transaction(name, write=write) as conn:
            yield conn

    def write_one(self, name: str, write: str, sql: str, params: tuple[object, ...]) -> list[Any]:
        """Run one writing statement in SQLite's own transaction (autocommit) and return its rows.

        As durable and atomic as ``BEGIN IMMEDIATE``, the statement, ``COMMIT``, in one call: a
        write statement run outside a transaction takes the write lock before it reads (waiting
        out ``busy_timeout``) and commits when it is done. Writers of this process queue on the
        same lock as :meth:`tx`'s.

        Raises:
            StoreError: the file is read-only, stayed locked past the timeout, or the statement
                failed (nothing was written: SQLite rolls a failed statement back).
            StoreOutcomeUnknownError: any other SQLite error: it may have struck while the
                statement committed, so the write may or may not have landed.
        """
        if not self._opened:
            self.open()
        if self.read_only:
            raise StoreError(
                f"cannot {write} session {name!r}: {self.label} is open read-only "
                f"({self._why_read_only})"
            )
        conn = self._conn()
        with self._write_lock:
            try:
                if conn.in_transaction:  # left open by a failed ROLLBACK: start clean
                    conn.execute("ROLLBACK")
                return conn.execute(sql, params).fetchall()  # fetchall: stepped to its commit
            except BaseException as exc:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if not isinstance(exc, sqlite3.Error):
                    raise
                text = str(exc).lower()
                if isinstance(exc, sqlite3.IntegrityError) or "locked" in text or "busy" in text:
                    raise self._error(name, exc) from exc
                raise StoreOutcomeUnknownError(
                    f"session {name!r}: SQLite failed during the {write} ({exc}); it may or may "
                    "not have been applied: read the session to know",
                    operation=write,
                ) from exc

    def close(self) -> None:
        """Close every thread's connection; the file cannot be used afterwards."""
        self._closed = True
        with self._holders_lock:
            holders = list(self._holders)
        for holder in holders:
            with contextlib.suppress(sqlite3.Error):
                holder.conn.close()

    # -- internals ------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise SessionClosedError(f"{self.label} is closed")
        holder: _Holder | None = getattr(self._local, "holder", None)
        if holder is not None and holder.generation != self._generation:
            self._drop_conn()  # opened before the file was opened again
            holder = None
        if holder is None:
            try:
                conn = sqlite3.connect(
                    self._uri or self.path,
                    timeout=self.timeout,
                    isolation_level=None,  # transactions are explicit: BEGIN [IMMEDIATE]
                    check_same_thread=False,  # only so close() may close it from any thread
                    uri=self._uri is not None,
                )
                conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
                conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable enough, no fsync
            except sqlite3.Error as exc:
                raise StoreError(
                    f"cannot open SQLite database {self.path!r}: {exc}{self._lock_hint(exc)}"
                ) from exc
            holder = self._local.holder = _Holder(conn, self._generation)
            with self._holders_lock:
                self._holders.add(holder)
        return holder.conn

    def _drop_conn(self) -> None:
        holder: _Holder | None = getattr(self._local, "holder", None)
        if holder is not None:
            self._local.holder = None
            with self._holders_lock:
                self._holders.discard(holder)
            with contextlib.suppress(sqlite3.Error):
                holder.conn.close()

    @contextlib.contextmanager
    def _transaction(self, name: str | None, *, write: str | None) -> Iterator[sqlite3.Connection]:
        if write and self.read_only:
            what = write if name is None else f"{write} session {name!r}"
            raise StoreError(
                f"cannot {what}: {self.label} is open read-only ({self._why_read_only})"
            )
        if self._watch is not None and not write:
            with self._open_lock:
                if self._watch is not None and fingerprint(self.path) != self._watch:
                    self._reopen()
        watch = self._watch
        conn = self._conn()
        with self._write_lock if write else contextlib.nullcontext():
            try:
                if conn.in_transaction:  # left open by a failed ROLLBACK: start clean
                    conn.execute("ROLLBACK")
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.Error as exc:
                raise self._error(name, exc) from exc
            try:
                yield conn
                self._still(watch, name)
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    self._still(watch, name)
                    raise self._error(name, exc) from exc
                raise
            try:
                conn.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                if not isinstance(exc, sqlite3.Error):
                    raise
                if not write:
                    raise self._error(name, exc) from exc
                where = f"session {name!r}" if name is not None else self.label
                raise StoreOutcomeUnknownError(
                    f"{where}: SQLite failed to commit the {write} ({exc}); it may or may not "
                    f"have been applied: read the session to know{self._lock_hint(exc)}",
                    operation=write,
                ) from exc

    def _error(self, name: str | None, exc: sqlite3.Error) -> StoreError:
        where = f"session {name!r}" if name is not None else self.label
        return StoreError(f"{where}: SQLite error: {exc}{self._lock_hint(exc)}")

    def _lock_hint(self, exc: sqlite3.Error) -> str:
        """Why "database is locked" (after the timeout) and what to do, or ``""``."""
        if not isinstance(exc, sqlite3.OperationalError) or _LOCKED not in str(exc).lower():
            return ""
        return (
            f": another process or connection holds a lock on {self.path!r} (a long write "
            f"transaction or an exclusive lock) and kept it past the {self.timeout:g} s timeout; "
            "wait for it to finish, or close it, then try again"
        )

    def _still(self, watch: Fingerprint | None, name: str | None) -> None:
        """Raise when the files read immutable changed during the read (it may be torn)."""
        if watch is not None and fingerprint(self.path) != watch:
            where = f"session {name!r}" if name is not None else self.label
            raise StoreError(
                f"{where}: another process wrote {self.path!r} while it was being read "
                "(opened immutable, as no -shm file can be made in its folder); read again"
            )

    def _reopen(self) -> None:
        """The files read immutable changed: open them again, as exactly as now possible."""
        self._generation += 1
        before, self._watch = self._watch, None
        self._uri = read_only_uri(self.path, immutable=False)
        try:
            current = self._read_version()  # a writer's -shm may now let mode=ro follow it
        except (sqlite3.Error, StoreError):
            self._drop_conn()
            why = immutable_fallback(self.path)
            if why is not None:
                self._watch = before  # every read tries again, until the writer is done
                raise StoreError(
                    f"{self.label}: another process is writing {self.path!r}; a read-only "
                    "reader in a folder it cannot write cannot follow its write-ahead log "
                    f"({why or 'SQLite refused to open it'}). Read it when the writer has "
                    "closed it, or from a process that may write its folder"
                ) from None
            self._watch = fingerprint(self.path)
            self._uri = read_only_uri(self.path, immutable=True)
            try:
                current = self._read_version()
            except sqlite3.Error as exc:
                raise self._error(None, exc) from exc
        self._check_schema(current)

    def _open_read_only(self) -> None:
        self._uri = read_only_uri(self.path, immutable=self._target.immutable)
        try:
            current = self._read_version()
        except (sqlite3.Error, StoreError) as exc:
            why = "" if self._target.immutable else immutable_fallback(self.path)
            if why is not None:  # immutable already, or reading it so would not be exact
                raise StoreError(
                    f"cannot read SQLite database {self.path!r} read-only "
                    f"({self._why_read_only}): {exc}" + (f"; {why}" if why else "")
                ) from exc
            self._drop_conn()  # no -shm can be made here: read the file as it is, unshared
            self._watch = fingerprint(self.path)
            self._uri = read_only_uri(self.path, immutable=True)
            try:
                current = self._read_version()
            except (sqlite3.Error, StoreError) as again:
                raise StoreError(
                    f"cannot read SQLite database {self.path!r} read-only "
                    f"({self._why_read_only}), even immutable: {again}"
                ) from again
        self._check_schema(current)

    def _check_schema(self, current: int) -> None:
        if self._must_migrate(self._conn(), current) and not readable_as_is(current):
            raise SchemaVersionError(
                f"{self.path!r} has schema version {current}, older than this summem's "
                f"({len(MIGRATIONS)}): it needs a migration, which cannot run on a read-only "
                f"database ({self._why_read_only}); nothing was changed. Open it once with "
                "write access to migrate it, or read it with the summem version that wrote it",
                stored=current,
                known=len(MIGRATIONS),
                compatible=None,
            )

    def _must_migrate(self, conn: sqlite3.Connection, current: int) -> bool:
        """True for an older schema; False for this one or a newer compatible one (else raise)."""
        known = len(MIGRATIONS)
        compatible = None
        if current > known:
            try:
                compatible = read_marker(conn, current)
            except sqlite3.Error as exc:
                raise self._error(None, exc) from exc
        state = check_schema(repr(self.path), stored=current, known=known, compatible=compatible)
        return state == "older"

    def _read_version(self) -> int:
        conn = self._conn()
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the schema
        return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        conn = self._conn()
        try:
            current = open_wal(conn, deadline=time.monotonic() + self.timeout)
        except sqlite3.Error as exc:
            raise self._error(None, exc) from exc
        if not self._must_migrate(conn, current):
            return
        with self._transaction(None, write="migration") as c:
            current = c.execute("PRAGMA user_version").fetchone()[0]  # another process?
            if not self._must_migrate(c, current):
                return
            for statements in MIGRATIONS[current:]:
                for statement in statements:
                    if isinstance(statement, str):
                        c.execute(statement)
                    else:
                        statement(c)
            write_marker(c, len(MIGRATIONS))
            c.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
