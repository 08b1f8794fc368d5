"""Sessions in Redis, for several workers or machines sharing them.

One session lives under four keys, ``{prefix}:{<tag>}:meta|msgs|sums|lease``, where ``<tag>``
is the session id in URL-safe base64: the braces make it a Redis Cluster hash tag (one slot per
session, so multi-key scripts work on a cluster), and the encoding keeps ids such as ``a``,
``a:msgs`` or ``x}y`` from ever colliding. Every operation is one Lua script (see
:mod:`summem.stores.redis.scripts`), so appends are atomic and commits compare-and-set on the
server. The reduction lease is ``SET NX PX`` with an owner token, released by a script that
checks the owner. ``create`` writes a whole session in one script too; a history longer than
:attr:`~summem.stores.redis.operations.RedisBase.create_chunk_bytes` is first staged in chunks under
a private key of the session's slot, then renamed into place by that script (see
:mod:`summem.stores.redis.scripts`), so no reader ever sees part of it.

The layout's schema version is recorded (when a summem ever changes it) in the hash
``{prefix}:schema`` (``version``, ``compatible``, ``compatible_for``), read once per store
before its first command: data newer than this summem knows is used only if its "compatible
down to" marker allows it (see :mod:`summem.stores.common.schema_compat`); no hash means schema 1.

Keys, scripts and parsing are written once in :mod:`summem.stores.redis.operations`, as
operations (script, keys, arguments, parser); :class:`RedisStore` and :class:`AsyncRedisStore`
only run them. The ``redis`` package is imported when a store is built, so ``summem`` works
without it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from summem.messages import Message
from summem.observe.ledger import Spent
from summem.stores.base import ClosingStore, SessionState
from summem.stores.redis.operations import SCHEMA_FIELDS, Op, RedisBase, import_redis
from summem.stores.redis.scripts import SCRIPTS

if TYPE_CHECKING:
    import redis as redis_sync
    import redis.asyncio as redis_async

__all__ = ["AsyncRedisStore", "RedisStore"]

T = TypeVar("T")


class RedisStore(RedisBase, ClosingStore):
    """A store in Redis (or a Redis Cluster), shared by every worker that opens it.

    Args:
        url_or_client: a ``redis://`` / ``rediss://`` / ``unix://`` URL (the store then owns
            and closes its client), or a ``redis.Redis`` / ``redis.RedisCluster`` client you
            manage yourself.
        prefix: the first part of every key; stores with different prefixes never meet.
    """

    def __init__(
        self,
        url_or_client: str | redis_sync.Redis | redis_sync.RedisCluster,
        *,
        prefix: str = "summem",
    ) -> None:
        redis = import_redis()
        super().__init__(prefix, redis)
        self._owns = isinstance(url_or_client, str)
        self._client = (
            redis.Redis.from_url(url_or_client) if isinstance(url_or_client, str) else url_or_client
        )
        self._scripts = {n: self._client.register_script(src) for n, src in SCRIPTS.items()}

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        """Build from ``redis://host:6379/0`` (used by :func:`summem.stores.open_store`)."""
        return cls(url)

    @classmethod
    def async_from_url(cls, url: str) -> AsyncRedisStore:
        """Build the async twin from the same URL."""
        return AsyncRedisStore(url)

    def __repr__(self) -> str:
        return f"RedisStore(prefix={self._prefix!r})"

    def _run(self, op: Op[T]) -> T:
        if not self._schema_checked:
            self._schema(op.name)
        with self._errors(op.name, op.script):
            raw = self._scripts[op.script](keys=op.keys, args=op.args)
        return op.parse(raw)

    def _schema(self, name: str | None = None) -> None:
        """Check the prefix's recorded schema once, before this store's first command."""
        with self._errors(name):
            raw = self._client.hmget(self._schema_key(), SCHEMA_FIELDS)
        self._check_schema(raw)
        self._schema_checked = True

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
        """See :meth:`summem.stores.base.Store.create` (one script; long histories staged)."""
        ops = self._ops_create(session_id, history, system, summary, watermark)
        try:
            for op in ops.stage:
                self._run(op)
            self._run(ops.create)
        except BaseException:
            if ops.stage:
                with contextlib.suppress(Exception):
                    self._run(ops.discard)
            raise

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
        if not self._schema_checked:
            self._schema()
        with self._errors(None):
            keys = list(self._client.scan_iter(match=self._scan_pattern(), count=1000))
        return self._names(keys)

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
        """See :meth:`summem.observe.ledger.SpendLedger.record_spend` (a sorted set by time)."""
        self._run(self._op_record_spend(key, at, tokens, cost_usd, prune_before))

    def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`summem.observe.ledger.SpendLedger.spent_since`."""
        return self._run(self._op_spent_since(key, since))

    def close(self) -> None:
        """Close the client if the store created it from a URL."""
        if self._owns:
            self._client.close()


class AsyncRedisStore(RedisBase):
    """The async twin of :class:`RedisStore`, on ``redis.asyncio``.

    Args:
        url_or_client: a Redis URL (the store owns its client) or a ``redis.asyncio.Redis``
            / ``redis.asyncio.RedisCluster`` client.
        prefix: the first part of every key.
    """

    def __init__(
        self,
        url_or_client: str | redis_async.Redis | redis_async.RedisCluster,
        *,
        prefix: str = "summem",
    ) -> None:
        redis = import_redis()
        super().__init__(prefix, redis)
        self._owns = isinstance(url_or_client, str)
        self._client = (
            redis.asyncio.Redis.from_url(url_or_client)
            if isinstance(url_or_client, str)
            else url_or_client
        )
        self._scripts = {n: self._client.register_script(src) for n, src in SCRIPTS.items()}

    @classmethod
    def from_url(cls, url: str) -> AsyncRedisStore:
        """Build from ``redis://host:6379/0``."""
        return cls(url)

    def __repr__(self) -> str:
        return f"AsyncRedisStore(prefix={self._prefix!r})"

    async def __aenter__(self) -> AsyncRedisStore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _run(self, op: Op[T]) -> T:
        if not self._schema_checked:
            await self._schema(op.name)
        with self._errors(op.name, op.script):
            raw = await self._scripts[op.script](keys=op.keys, args=op.args)
        return op.parse(raw)

    async def _schema(self, name: str | None = None) -> None:
        """Check the prefix's recorded schema once, before this store's first command."""
        with self._errors(name):
            raw = await self._client.hmget(self._schema_key(), SCHEMA_FIELDS)
        self._check_schema(raw)
        self._schema_checked = True

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
        """See :meth:`summem.stores.base.Store.create` (one script; long histories staged)."""
        ops = self._ops_create(session_id, history, system, summary, watermark)
        try:
            for op in ops.stage:
                await self._run(op)
            await self._run(ops.create)
        except BaseException:
            if ops.stage:
                with contextlib.suppress(Exception):
                    await self._run(ops.discard)
            raise

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
        if not self._schema_checked:
            await self._schema()
        with self._errors(None):
            keys = [k async for k in self._client.scan_iter(match=self._scan_pattern(), count=1000)]
        return self._names(keys)

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
        """See :meth:`RedisStore.record_spend`."""
        await self._run(self._op_record_spend(key, at, tokens, cost_usd, prune_before))

    async def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`RedisStore.spent_since`."""
        return await self._run(self._op_spent_since(key, since))

    async def close(self) -> None:
        """Close the client if the store created it from a URL."""
        if self._owns:
            await self._client.aclose()
