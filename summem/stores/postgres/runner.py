"""Running PostgreSQL operations on pooled connections, sync and async.

Each operation (:mod:`summem.stores.postgres.operations`) is one transaction: its batches are
sent in pipeline mode (one round trip each; the last one with the COMMIT), and what a failure
means depends on how far it got (:class:`~summem.stores.postgres.transaction.Stage`): before the
COMMIT the server rolled everything back, with it the outcome is unknown. An operation of one
idempotent statement (an append) runs in autocommit mode instead: BEGIN, statement and COMMIT
are then one message and one round trip. A connection that died
in the pool is replaced and the operation retried once, when that is safe. :class:`SyncRunner`
and :class:`AsyncRunner` are the same loop, on ``ConnectionPool`` and ``AsyncConnectionPool``.

Before the pool opens, one plain connection is made (:meth:`SyncRunner.first_connection`): a
wrong port, host, password or database then fails at once with libpq's cause in one line,
instead of the pool retrying in the background for its whole timeout (logging "error
connecting" at each try) and reporting only ``PoolTimeout``.
"""

from __future__ import annotations

import contextlib
import math
import re
from abc import abstractmethod
from collections.abc import AsyncIterator
from typing import Any, TypeVar

from summem.errors import ConfigurationError, StoreError
from summem.stores.postgres.operations import PgOps
from summem.stores.postgres.transaction import Rows, Stage, Steps, Transaction

__all__ = ["AsyncRunner", "Pooled", "SyncRunner", "check_pool"]

T = TypeVar("T")


def check_pool(min_size: int, max_size: int, timeout: float) -> None:
    """Reject pool sizes and timeouts that cannot work.

    Raises:
        ConfigurationError: naming the bad setting.
    """
    if not 0 <= min_size <= max_size or max_size < 1:
        raise ConfigurationError(
            f"PostgreSQL pool sizes must satisfy 0 <= min_size <= max_size and max_size >= 1, "
            f"got min_size={min_size}, max_size={max_size}"
        )
    if not timeout > 0:
        raise ConfigurationError(f"PostgreSQL pool timeout must be positive, got {timeout!r}")


class Pooled(PgOps):
    """Settings and the pool's construction arguments, shared by both stores."""

    _pool: Any

    def __init__(
        self,
        conninfo: str = "",
        *,
        schema: str = "summem",
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 30.0,
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
        self._start()

    @abstractmethod
    def _start(self) -> None:
        """Make the pool (from ``self._pool_args``): each runner makes its own kind."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(schema={self.schema!r})"  # never the conninfo

    def _connect_args(self) -> dict[str, Any]:
        """The first connection's arguments: the pool's conninfo, and a connect timeout."""
        args: dict[str, Any] = {"conninfo": self._pool_args["conninfo"], "autocommit": True}
        if "connect_timeout" not in self._conninfo():
            args["connect_timeout"] = max(2, math.ceil(self._pool_args["timeout"]))
        return args

    def _conninfo(self) -> dict[str, Any]:
        try:
            return dict(self._psycopg.conninfo.conninfo_to_dict(self._pool_args["conninfo"]))
        except Exception:  # malformed: the connection attempt reports it
            return {}

    def _cannot_connect(self, exc: Exception) -> StoreError:
        """One line: where (host, port, database; never a password) and libpq's cause."""
        info = self._conninfo()
        where = (
            f"{info.get('host') or 'localhost'}:{info.get('port') or 5432}/"
            f"{info.get('dbname') or info.get('user') or ''}"
        )
        cause = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        cause = re.sub(r"\s+", " ", cause)[:500]
        return StoreError(
            f"PostgreSQL store {self.schema!r}: cannot get a PostgreSQL connection to {where}: "
            f"{type(exc).__name__}: {cause}"
        )


class SyncRunner(Pooled):
    """Runs operations on a ``psycopg_pool.ConnectionPool`` (``self._pool``)."""

    def _start(self) -> None:
        from psycopg_pool import ConnectionPool

        self._pool = ConnectionPool(**self._pool_args)

    def first_connection(self) -> None:
        """Connect once outside the pool, so that a wrong URL fails now, with its cause.

        Raises:
            StoreError: the server refused, the database does not exist, the password is wrong...
        """
        try:
            conn = self._psycopg.connect(**self._connect_args())
        except self._psycopg.Error as exc:
            raise self._cannot_connect(exc) from exc
        conn.close()

    def _drive(self, op: Transaction[T]) -> T:
        for attempt in range(2):
            if attempt:  # a pooled connection had died (server restart?): drop all dead ones
                self._pool.check()
            try:
                conn = self._pool.getconn()
            except Exception as exc:
                raise self._unreachable(op, exc) from exc
            stage = [Stage.FIRST]
            try:
                if conn.autocommit != op.one_statement:
                    conn.autocommit = op.one_statement
                level = self._isolation(op)
                if conn.isolation_level != level:  # setting it is a call, even to the same
                    conn.isolation_level = level
                if op.one_statement:
                    return self._one_statement(conn, op, stage)
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

    def _steps(self, conn: Any, op: Transaction[T], stage: list[str]) -> T:
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

    def _one_statement(self, conn: Any, op: Transaction[T], stage: list[str]) -> T:
        """Run ``op``'s one statement in autocommit mode: sent, run and committed at once."""
        gen = op.steps()
        step = next(gen)
        (query,) = step.queries
        stage[0] = Stage.FINAL  # it commits as it runs: a lost reply leaves it unknown
        cursor = conn.execute(query.sql, query.params)
        rows = cursor.fetchall() if cursor.description is not None else []
        return _finish(gen, [rows])

    def _isolation(self, op: Transaction[Any]) -> Any:
        return self._psycopg.IsolationLevel.REPEATABLE_READ if op.snapshot else None

    def _give_back(self, conn: Any) -> None:
        if not conn.closed and conn.info.transaction_status != self._idle:  # do not reuse
            conn.close()
        self._pool.putconn(conn)


class AsyncRunner(Pooled):
    """Runs operations on a ``psycopg_pool.AsyncConnectionPool`` (``self._pool``)."""

    def _start(self) -> None:
        from psycopg_pool import AsyncConnectionPool

        self._pool = AsyncConnectionPool(**self._pool_args)

    async def first_connection(self) -> None:
        """See :meth:`SyncRunner.first_connection`."""
        try:
            conn = await self._psycopg.AsyncConnection.connect(**self._connect_args())
        except self._psycopg.Error as exc:
            raise self._cannot_connect(exc) from exc
        await conn.close()

    async def _drive(self, op: Transaction[T]) -> T:
        for attempt in range(2):
            if attempt:  # a pooled connection had died (server restart?): drop all dead ones
                await self._pool.check()
            try:
                conn = await self._pool.getconn()
            except Exception as exc:
                raise self._unreachable(op, exc) from exc
            stage = [Stage.FIRST]
            try:
                if conn.autocommit != op.one_statement:
                    await conn.set_autocommit(op.one_statement)
                level = self._psycopg.IsolationLevel.REPEATABLE_READ if op.snapshot else None
                if conn.isolation_level != level:
                    await conn.set_isolation_level(level)
                if op.one_statement:
                    return await self._one_statement(conn, op, stage)
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

    async def _steps(self, conn: Any, op: Transaction[T], stage: list[str]) -> T:
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

    async def _one_statement(self, conn: Any, op: Transaction[T], stage: list[str]) -> T:
        """See :meth:`SyncRunner._one_statement`."""
        gen = op.steps()
        step = next(gen)
        (query,) = step.queries
        stage[0] = Stage.FINAL
        cursor = await conn.execute(query.sql, query.params)
        rows = await cursor.fetchall() if cursor.description is not None else []
        return _finish(gen, [rows])


def _finish(gen: Steps[T], rows: list[Rows]) -> T:
    """Send the last batch's rows to ``gen``, which must return then."""
    try:
        gen.send(rows)
    except StopIteration as stop:
        result: T = stop.value
        return result
    raise AssertionError("a one-statement operation must have one batch")


@contextlib.asynccontextmanager
async def _no_pipeline() -> AsyncIterator[None]:
    yield None
