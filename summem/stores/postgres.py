"""Sessions in PostgreSQL, where production data already lives.

Every operation is one transaction on a pooled ``psycopg`` 3 connection (``psycopg-pool``):
writes lock the session's row first (``SELECT ... FOR UPDATE``), so appends keep positions
contiguous and a reduction's commit compares (epoch, version) and writes summary, watermark,
version and the summary log together or not at all; reads of several statements share one
``REPEATABLE READ`` snapshot. Appends are idempotent by message id (a unique index on the
session and the id's hash, checked before inserting), so appending a batch again after a lost
reply stores nothing twice. A COMMIT whose connection failed is
:class:`~summem.exceptions.StoreOutcomeUnknownError`; any failure before it rolls back.

The reduction lease is a row (``leases``) with an expiry on the server's clock, taken by one
``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` statement. Not an advisory lock: those belong
to a connection, so a pooled connection would hand them to whichever caller gets it next, and
they have no TTL (a worker that hangs holding its connection would block the session for
good), while a lease must outlive the call that takes it and expire by itself.

Tables live in one schema (``summem`` by default, ``?schema=`` in the URL), created and
migrated on first use under an advisory lock (see :mod:`summem.stores._postgres_schema`).
Operations and SQL are written once in :mod:`summem.stores._postgres_base`; the two classes
here only run them, on ``ConnectionPool`` and ``AsyncConnectionPool``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any, TypeVar

from summem.messages import Message
from summem.stores._postgres_base import (
    Op,
    PgBase,
    PgOptions,
    Stage,
    check_pool,
    parse_postgres_url,
)
from summem.stores.base import ClosingStore, SessionState

__all__ = ["AsyncPostgresStore", "PostgresStore"]

T = TypeVar("T")


class _Pooled(PgBase):
    """Settings and the pool's construction arguments, shared by both stores."""

    def __init__(
        self, conninfo: str, *, schema: str, min_size: int, max_size: int, timeout: float
    ) -> None:
        super().__init__(schema)
        check_pool(min_size, max_size, timeout)
        self._pool_args: dict[str, Any] = {
            "conninfo": conninfo,
            "min_size": min_size,
            "max_size": max_size,
            "timeout": timeout,
            "open": False,
            "name": f"summem-{self.schema}",
        }
        self._migrated = False
        self._idle = self._psycopg.pq.TransactionStatus.IDLE

    def __repr__(self) -> str:
        return f"{type(self).__name__}(schema={self.schema!r})"  # never the conninfo


class PostgresStore(_Pooled, ClosingStore):
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
        o = parse_postgres_url(url)
        return cls(_conninfo(o), schema=o.schema, **_sizes(o))

    @classmethod
    def async_from_url(cls, url: str) -> AsyncPostgresStore:
        """Build the async twin from the same URL (it connects on first use)."""
        o = parse_postgres_url(url)
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

    def _drive(self, op: Op[T]) -> T:
        for attempt in range(2):
            if attempt:  # a pooled connection had died (server restart?): drop all dead ones
                self._pool.check()
            try:
                conn = self._pool.getconn()
            except Exception as exc:
                raise self._unreachable(op, exc) from exc
            stage = [Stage.FIRST]
            try:
                conn.isolation_level = self._isolation(op)
                return self._steps(conn, op, stage)
            except self._psycopg.Error as exc:
                with contextlib.suppress(Exception):
                    conn.rollback()
                if self._retry(op, stage[0], conn.broken, attempt):
                    continue
                raise self._failure(op, exc, stage[0], conn.broken) from exc
            except BaseException:
                with contextlib.suppress(Exception):
                    conn.rollback()
                raise
            finally:
                self._give_back(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    def _steps(self, conn: Any, op: Op[T], stage: list[str]) -> T:
        """Run ``op``'s batches on ``conn`` (pipelined: one round trip each) and commit."""
        gen = op.steps()
        with (
            conn.pipeline() if self._pipelined and not op.bulk else contextlib.nullcontext() as pipe
        ):
            try:
                step = next(gen)
                while True:
                    cursors = [conn.execute(q.sql, q.params) for q in step.queries]
                    if step.final:
                        stage[0] = Stage.FINAL
                        conn.commit()  # sent with the batch
                    elif pipe is not None:
                        pipe.sync()
                    rows = [c.fetchall() if c.description is not None else [] for c in cursors]
                    if not step.final:
                        stage[0] = Stage.BODY
                    step = gen.send(rows)
                    if stage[0] == Stage.FINAL:
                        raise AssertionError("a final batch must be the operation's last")
            except StopIteration as stop:
                result: T = stop.value
            if stage[0] != Stage.FINAL:
                stage[0] = Stage.FINAL
                conn.commit()
        return result

    def _isolation(self, op: Op[Any]) -> Any:
        return self._psycopg.IsolationLevel.REPEATABLE_READ if op.snapshot else None

    def _give_back(self, conn: Any) -> None:
        if not conn.closed and conn.info.transaction_status != self._idle:  # do not reuse
            conn.close()
        self._pool.putconn(conn)

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

    def close(self) -> None:
        """Close the pool and its connections."""
        self._pool.close()


class AsyncPostgresStore(_Pooled):
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

    async def _drive(self, op: Op[T]) -> T:
        for attempt in range(2):
            if attempt:  # a pooled connection had died (server restart?): drop all dead ones
                await self._pool.check()
            try:
                conn = await self._pool.getconn()
            except Exception as exc:
                raise self._unreachable(op, exc) from exc
            stage = [Stage.FIRST]
            try:
                level = self._psycopg.IsolationLevel.REPEATABLE_READ if op.snapshot else None
                if conn.isolation_level != level:
                    await conn.set_isolation_level(level)
                return await self._steps(conn, op, stage)
            except self._psycopg.Error as exc:
                with contextlib.suppress(Exception):
                    await conn.rollback()
                if self._retry(op, stage[0], conn.broken, attempt):
                    continue
                raise self._failure(op, exc, stage[0], conn.broken) from exc
            except BaseException:
                with contextlib.suppress(Exception):
                    await conn.rollback()
                raise
            finally:
                if not conn.closed and conn.info.transaction_status != self._idle:
                    await conn.close()  # cancelled mid-transaction: do not reuse
                await self._pool.putconn(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _steps(self, conn: Any, op: Op[T], stage: list[str]) -> T:
        """Run ``op``'s batches on ``conn`` (pipelined: one round trip each) and commit."""
        gen = op.steps()
        async with conn.pipeline() if self._pipelined and not op.bulk else _no_pipeline() as pipe:
            try:
                step = next(gen)
                while True:
                    cursors = [await conn.execute(q.sql, q.params) for q in step.queries]
                    if step.final:
                        stage[0] = Stage.FINAL
                        await conn.commit()  # sent with the batch
                    elif pipe is not None:
                        await pipe.sync()
                    rows = [
                        await c.fetchall() if c.description is not None else [] for c in cursors
                    ]
                    if not step.final:
                        stage[0] = Stage.BODY
                    step = gen.send(rows)
                    if stage[0] == Stage.FINAL:
                        raise AssertionError("a final batch must be the operation's last")
            except StopIteration as stop:
                result: T = stop.value
            if stage[0] != Stage.FINAL:
                stage[0] = Stage.FINAL
                await conn.commit()
        return result

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

    async def close(self) -> None:
        """Close the pool and its connections."""
        await self._pool.close()


@contextlib.asynccontextmanager
async def _no_pipeline() -> AsyncIterator[None]:
    yield None


def _conninfo(options: PgOptions) -> str:
    return options.conninfo


def _sizes(options: PgOptions) -> dict[str, Any]:
    return {
        "min_size": options.min_size,
        "max_size": options.max_size,
        "timeout": options.timeout,
    }
