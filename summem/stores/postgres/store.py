"""Sessions in PostgreSQL, where production data already lives.

Every operation is one transaction on a pooled ``psycopg`` 3 connection (``psycopg-pool``):
writes lock the session's row first (``SELECT ... FOR UPDATE``), so appends keep positions
contiguous and a reduction's commit compares (epoch, version) and writes summary, watermark,
version and the summary log together or not at all; reads of several statements share one
``REPEATABLE READ`` snapshot. Appends are idempotent by message id (a unique index on the
session and the id's hash, checked before inserting), so appending a batch again after a lost
reply stores nothing twice. A COMMIT whose connection failed is
:class:`~summem.errors.StoreOutcomeUnknownError`; any failure before it rolls back.

The reduction lease is a row (``leases``) with an expiry on the server's clock, taken by one
``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` statement. Not an advisory lock: those belong
to a connection, so a pooled connection would hand them to whichever caller gets it next, and
they have no TTL (a worker that hangs holding its connection would block the session for
good), while a lease must outlive the call that takes it and expire by itself.

Tables live in one schema (``summem`` by default, ``?schema=`` in the URL), created and
migrated on first use under an advisory lock (see :mod:`summem.stores.postgres.schema`).
Operations are written once (:mod:`summem.stores.postgres.operations`, SQL in
:mod:`summem.stores.postgres.schema`) and run by :mod:`summem.stores.postgres.runner` on
``ConnectionPool`` or ``AsyncConnectionPool``; the contract's methods are the shared shells of
:mod:`summem.stores.common.shells`, so the two classes here only say how to run an operation.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, TypeVar, cast

from summem.stores.base import SearchHit, SessionInfo
from summem.stores.common.operations import StoreOp
from summem.stores.common.shells import (
    AsyncOpLedger,
    AsyncOpProbingAppend,
    OpLedger,
    OpProbingAppend,
)
from summem.stores.postgres.runner import AsyncRunner, SyncRunner
from summem.stores.postgres.transaction import Transaction
from summem.stores.url import PostgresSettings, postgres_settings

__all__ = ["AsyncPostgresStore", "PostgresStore"]

T = TypeVar("T")


class PostgresStore(SyncRunner, OpLedger, OpProbingAppend):
    """A store in a PostgreSQL database, shared by every worker that opens it.

    Args:
        conninfo: a libpq connection string or ``postgresql://`` URL.
        schema: the PostgreSQL schema of summem's tables (created if missing).
        min_size: connections the pool keeps open.
        max_size: most connections the pool opens (threads beyond it wait).
        timeout: seconds to wait for a connection before failing.

    Raises:
        StoreError: the database cannot be reached or migrated (tried at construction).
    """

    def _start(self) -> None:
        super()._start()
        self._lock = threading.Lock()
        try:
            self.open()
        except BaseException:
            self._pool.close()
            raise

    @classmethod
    def from_url(cls, url: str) -> PostgresStore:
        """Build from ``postgresql://user@host:5432/db?schema=summem`` (see open_store)."""
        return cls(**_settings(postgres_settings(url)))

    @classmethod
    def async_from_url(cls, url: str) -> AsyncPostgresStore:
        """Build the async twin from the same URL (it connects on first use)."""
        return AsyncPostgresStore(**_settings(postgres_settings(url)))

    def open(self) -> None:
        """Open the pool and migrate the schema (once; then a no-op)."""
        with self._lock:
            if not self._migrated:
                self.first_connection()  # a wrong URL fails here, with its cause
                self._pool.open()
                self._drive(self._op_migrate())
                self._migrated = True

    def _run(self, op: StoreOp[T]) -> T:
        return self._drive(cast("Transaction[T]", op))

    def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`summem.stores.base.ListingStore.session_infos` (reads no messages)."""
        return self._run(self._op_infos(limit, after))

    def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """See :meth:`summem.stores.base.SearchableStore.search` (``tsvector``, ``ts_rank``).

        Indexes what was appended since the session's last search first (see
        :mod:`summem.stores.postgres.search`).
        """
        state = self._run(self._op_index_state(session_id))
        if state is not None and state[1] < state[0]:
            while not self._run(self._op_catch_up(session_id)):
                pass
        return self._run(self._op_search(session_id, query, k, stop))

    def position_of(self, session_id: str, message_id: str) -> int | None:
        """See :meth:`summem.stores.base.SearchableStore.position_of`."""
        return self._run(self._op_position_of(session_id, message_id))

    def close(self) -> None:
        """Close the pool and its connections."""
        self._pool.close()


class AsyncPostgresStore(AsyncRunner, AsyncOpLedger, AsyncOpProbingAppend):
    """The async twin of :class:`PostgresStore`, on ``AsyncConnectionPool``.

    Building one does no I/O (it may be done on a running loop): the pool is opened and the
    schema migrated by :meth:`open`, ``async with``, or the first call. Its arguments are
    :class:`PostgresStore`'s (tasks beyond ``max_size`` wait for a connection).
    """

    def _start(self) -> None:
        super()._start()
        self._lock: asyncio.Lock | None = None

    @classmethod
    def from_url(cls, url: str) -> AsyncPostgresStore:
        """Build from ``postgresql://user@host:5432/db?schema=summem``."""
        return PostgresStore.async_from_url(url)

    async def __aenter__(self) -> AsyncPostgresStore:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def open(self) -> None:
        """Open the pool and migrate the schema (once; then a no-op).

        Raises:
            StoreError: the database cannot be reached or migrated.
        """
        if self._migrated:
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not self._migrated:
                await self.first_connection()  # a wrong URL fails here, with its cause
                await self._pool.open()
                await self._drive(self._op_migrate())
                self._migrated = True

    async def _run(self, op: StoreOp[T]) -> T:
        if not self._migrated:
            await self.open()
        return await self._drive(cast("Transaction[T]", op))

    async def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`summem.stores.base.ListingStore.session_infos` (reads no messages)."""
        return await self._run(self._op_infos(limit, after))

    async def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """See :meth:`PostgresStore.search`."""
        state = await self._run(self._op_index_state(session_id))
        if state is not None and state[1] < state[0]:
            while not await self._run(self._op_catch_up(session_id)):
                pass
        return await self._run(self._op_search(session_id, query, k, stop))

    async def position_of(self, session_id: str, message_id: str) -> int | None:
        """See :meth:`PostgresStore.position_of`."""
        return await self._run(self._op_position_of(session_id, message_id))

    async def close(self) -> None:
        """Close the pool and its connections."""
        await self._pool.close()


def _settings(options: PostgresSettings) -> dict[str, Any]:
    return {
        "conninfo": options.conninfo,
        "schema": options.schema,
        "min_size": options.min_size,
        "max_size": options.max_size,
        "timeout": options.timeout,
    }
