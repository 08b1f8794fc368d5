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
migrated on first use under an advisory lock (see :mod:`summem.stores._postgres_schema`).
Operations are written once (:mod:`summem.stores._postgres_ops`, SQL in
:mod:`summem.stores._postgres_schema`) and run by :mod:`summem.stores._postgres_run` on
``ConnectionPool`` or ``AsyncConnectionPool``; the two classes here are their public faces.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any, TypeVar

from summem.messages import Message
from summem.observe.ledger import Spent
from summem.stores._postgres_base import Op
from summem.stores._postgres_run import AsyncRunner, SyncRunner
from summem.stores.base import ClosingStore, SearchHit, SessionState
from summem.stores.url import PostgresSettings, postgres_settings

__all__ = ["AsyncPostgresStore", "PostgresStore"]

T = TypeVar("T")


class PostgresStore(SyncRunner, ClosingStore):
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

    def __init__(
        self,
        conninfo: str = "",
        *,
        schema: str = "summem",
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 30.0,
    ) -> None:
        super().__init__(
            conninfo, schema=schema, min_size=min_size, max_size=max_size, timeout=timeout
        )
        from psycopg_pool import ConnectionPool

        self._pool: Any = ConnectionPool(**self._pool_args)
        self._lock = threading.Lock()
        try:
            self.open()
        except BaseException:
            self._pool.close()
            raise

    @classmethod
    def from_url(cls, url: str) -> PostgresStore:
        """Build from ``postgresql://user@host:5432/db?schema=summem`` (see open_store)."""
        o = postgres_settings(url)
        return cls(_conninfo(o), schema=o.schema, **_sizes(o))

    @classmethod
    def async_from_url(cls, url: str) -> AsyncPostgresStore:
        """Build the async twin from the same URL (it connects on first use)."""
        o = postgres_settings(url)
        return AsyncPostgresStore(_conninfo(o), schema=o.schema, **_sizes(o))

    def open(self) -> None:
        """Open the pool and migrate the schema (once; then a no-op)."""
        with self._lock:
            if not self._migrated:
                self._pool.open()
                self._drive(self._op_migrate())
                self._migrated = True

    def _run(self, op: Op[T]) -> T:
        return self._drive(op)

    def load(self, session_id: str) -> SessionState:
        """See :meth:`summem.stores.base.Store.load`."""
        return self._run(self._op_load(session_id))

    def exists(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.exists`."""
        return self._run(self._op_exists(session_id))

    def history(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """See :meth:`summem.stores.base.Store.history`."""
        return self._run(self._op_history(session_id, start, stop))

    def append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`summem.stores.base.Store.append`."""
        return self._run(self._op_append(session_id, messages))

    def set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`summem.stores.base.Store.set_system`."""
        self._run(self._op_set_system(session_id, message))

    def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> int:
        """See :meth:`summem.stores.base.Store.commit`."""
        op = self._op_commit(session_id, summary, watermark, expected_version, expected_epoch)
        return self._run(op)

    def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        """See :meth:`summem.stores.base.Store.create` (one transaction)."""
        self._run(self._op_create(session_id, history, system, summary, watermark))

    def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """See :meth:`summem.stores.base.SearchableStore.search` (``tsvector``, ``ts_rank``).

        Indexes what was appended since the session's last search first (see
        :mod:`summem.stores._postgres_search`).
        """
        state = self._run(self._op_index_state(session_id))
        if state is not None and state[1] < state[0]:
            while not self._run(self._op_catch_up(session_id)):
                pass
        return self._run(self._op_search(session_id, query, k, stop))

    def position_of(self, session_id: str, message_id: str) -> int | None:
        """See :meth:`summem.stores.base.SearchableStore.position_of`."""
        return self._run(self._op_position_of(session_id, message_id))

    def summaries(self, session_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.summaries`."""
        return self._run(self._op_summaries(session_id))

    def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.rollback`."""
        op = self._op_rollback(session_id, summary_id, expected_version, expected_epoch)
        return self._run(op)

    def clear(self, session_id: str) -> None:
        """See :meth:`summem.stores.base.Store.clear`."""
        self._run(self._op_clear(session_id))

    def delete(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.delete`."""
        return self._run(self._op_delete(session_id))

    def list_sessions(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions`."""
        return self._run(self._op_list())

    def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`summem.stores.base.Store.acquire_lease`."""
        return self._run(self._op_acquire(session_id, owner, ttl_seconds))

    def release_lease(self, session_id: str, owner: str) -> None:
        """See :meth:`summem.stores.base.Store.release_lease`."""
        self._run(self._op_release(session_id, owner))

    def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.record_spend` (table ``spend``)."""
        self._run(self._op_record_spend(key, at, tokens, cost_usd, prune_before))

    def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`summem.observe.ledger.SpendLedger.spent_since`."""
        return self._run(self._op_spent_since(key, since))

    def close(self) -> None:
        """Close the pool and its connections."""
        self._pool.close()


class AsyncPostgresStore(AsyncRunner):
    """The async twin of :class:`PostgresStore`, on ``AsyncConnectionPool``.

    Building one does no I/O (it may be done on a running loop): the pool is opened and the
    schema migrated by :meth:`open`, ``async with``, or the first call.

    Args:
        conninfo: a libpq connection string or ``postgresql://`` URL.
        schema: the PostgreSQL schema of summem's tables (created if missing).
        min_size: connections the pool keeps open.
        max_size: most connections the pool opens (tasks beyond it wait).
        timeout: seconds to wait for a connection before failing.
    """

    def __init__(
        self,
        conninfo: str = "",
        *,
        schema: str = "summem",
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 30.0,
    ) -> None:
        super().__init__(
            conninfo, schema=schema, min_size=min_size, max_size=max_size, timeout=timeout
        )
        from psycopg_pool import AsyncConnectionPool

        self._pool: Any = AsyncConnectionPool(**self._pool_args)
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
                await self._pool.open()
                await self._drive(self._op_migrate())
                self._migrated = True

    async def _run(self, op: Op[T]) -> T:
        if not self._migrated:
            await self.open()
        return await self._drive(op)

    async def load(self, session_id: str) -> SessionState:
        """See :meth:`summem.stores.base.Store.load`."""
        return await self._run(self._op_load(session_id))

    async def exists(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.exists`."""
        return await self._run(self._op_exists(session_id))

    async def history(
        self, session_id: str, start: int = 0, stop: int | None = None
    ) -> list[Message]:
        """See :meth:`summem.stores.base.Store.history`."""
        return await self._run(self._op_history(session_id, start, stop))

    async def append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`summem.stores.base.Store.append`."""
        return await self._run(self._op_append(session_id, messages))

    async def set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`summem.stores.base.Store.set_system`."""
        await self._run(self._op_set_system(session_id, message))

    async def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> int:
        """See :meth:`summem.stores.base.Store.commit`."""
        op = self._op_commit(session_id, summary, watermark, expected_version, expected_epoch)
        return await self._run(op)

    async def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        """See :meth:`summem.stores.base.Store.create` (one transaction)."""
        await self._run(self._op_create(session_id, history, system, summary, watermark))

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

    async def summaries(self, session_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.summaries`."""
        return await self._run(self._op_summaries(session_id))

    async def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.rollback`."""
        op = self._op_rollback(session_id, summary_id, expected_version, expected_epoch)
        return await self._run(op)

    async def clear(self, session_id: str) -> None:
        """See :meth:`summem.stores.base.Store.clear`."""
        await self._run(self._op_clear(session_id))

    async def delete(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.delete`."""
        return await self._run(self._op_delete(session_id))

    async def list_sessions(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions`."""
        return await self._run(self._op_list())

    async def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`summem.stores.base.Store.acquire_lease`."""
        return await self._run(self._op_acquire(session_id, owner, ttl_seconds))

    async def release_lease(self, session_id: str, owner: str) -> None:
        """See :meth:`summem.stores.base.Store.release_lease`."""
        await self._run(self._op_release(session_id, owner))

    async def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`PostgresStore.record_spend`."""
        await self._run(self._op_record_spend(key, at, tokens, cost_usd, prune_before))

    async def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`PostgresStore.spent_since`."""
        return await self._run(self._op_spent_since(key, since))

    async def close(self) -> None:
        """Close the pool and its connections."""
        await self._pool.close()


def _conninfo(options: PostgresSettings) -> str:
    return options.conninfo


def _sizes(options: PostgresSettings) -> dict[str, Any]:
    return {
        "min_size": options.min_size,
        "max_size": options.max_size,
        "timeout": options.timeout,
    }
