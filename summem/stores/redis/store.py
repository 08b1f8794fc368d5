"""Sessions in Redis, for several workers or machines sharing them.

One session lives under its keys, ``{prefix}:{<tag>}:meta|msgs|sums|lease|...``, where ``<tag>``
is the session id in URL-safe base64: the braces make it a Redis Cluster hash tag (one slot per
session, so multi-key scripts work on a cluster and a reshard moves a session whole; the
contract suite runs on a local three-node cluster, resharded mid-run in
``tests/stores/test_redis_cluster.py``), and the encoding keeps ids such as ``a``,
``a:msgs`` or ``x}y`` from ever colliding. Every operation is one Lua script (see
:mod:`summem.stores.redis.scripts`), so appends are atomic and commits compare-and-set on the
server. The reduction lease is ``SET NX PX`` with an owner token, released by a script that
checks the owner. ``create`` writes a whole session in one script too; a history longer than
:attr:`~summem.stores.redis.operations.RedisBase.create_chunk_bytes` is first staged in chunks under
a private key of the session's slot, then renamed into place by that script (see
:mod:`summem.stores.redis.scripts`), so no reader ever sees part of it.

The layout's schema version is recorded (from schema 2, stubs in the summary log) in the hash
``{prefix}:schema`` (``version``, ``compatible``, ``compatible_for``), read once per store
before its first command: data newer than this summem knows is used only if its "compatible
down to" marker allows it (see :mod:`summem.stores.common.schema_compat`); no hash means schema 1.

Keys, scripts and parsing are written once in :mod:`summem.stores.redis.operations`, as
operations (script, keys, arguments, parser); the contract's methods are the shared shells of
:mod:`summem.stores.common.shells`, so :class:`RedisStore` and :class:`AsyncRedisStore` only
run an operation (and list sessions: ``SCAN`` for :meth:`RedisStore.list_sessions`, the
session index ``<prefix>:sessions`` for :meth:`RedisStore.session_infos`). The ``redis``
package is imported when a store is built, so ``summem`` works without it.
"""

from __future__ import annotations

import asyncio
import bisect
from typing import TYPE_CHECKING, Any, TypeVar, cast

from summem.stores.base import SessionInfo, check_page
from summem.stores.common.operations import StoreOp
from summem.stores.common.shells import (
    AsyncOpLedger,
    AsyncOpProbingAppend,
    OpLedger,
    OpProbingAppend,
)
from summem.stores.redis.branching import RedisBranching
from summem.stores.redis.operations import (
    FOLLOW_UPS,
    NEW_SESSION,
    SCHEMA_FIELDS,
    SCHEMA_VERSION,
    ScriptCall,
    import_redis,
    text,
)
from summem.stores.redis.scripts import SCRIPTS
from summem.stores.url import redis_cluster_url

if TYPE_CHECKING:  # the clients a store may be given
    import redis as redis_sync
    import redis.asyncio as redis_async

__all__ = ["AsyncRedisStore", "RedisStore"]

T = TypeVar("T")


class RedisStore(
    RedisBranching["redis_sync.Redis | redis_sync.RedisCluster"], OpLedger, OpProbingAppend
):
    """A store in Redis (or a Redis Cluster), shared by every worker that opens it.

    Args:
        url_or_client: a ``redis://`` / ``rediss://`` / ``unix://`` URL, or
            ``redis+cluster://host:port`` (``rediss+cluster://``) naming one node of a Redis
            Cluster (the store then owns and closes its client), or a ``redis.Redis`` /
            ``redis.RedisCluster`` client you manage yourself.
        prefix: the first part of every key; stores with different prefixes never meet.
    """

    def __init__(
        self,
        url_or_client: str | redis_sync.Redis | redis_sync.RedisCluster,
        *,
        prefix: str = "summem",
    ) -> None:
        super().__init__(url_or_client, prefix=prefix)  # (here for the client types' names)

    def _client_from_url(self, redis_module: Any, url: str) -> Any:
        cluster = redis_cluster_url(url)
        if cluster is not None:
            return redis_module.RedisCluster.from_url(cluster)
        return redis_module.Redis.from_url(url)

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        """Build from ``redis://host:6379/0`` or ``redis+cluster://host:7000``.

        Used by :func:`summem.stores.open_store`.
        """
        return cls(url)

    @classmethod
    def async_from_url(cls, url: str) -> AsyncRedisStore:
        """Build the async twin from the same URL."""
        return AsyncRedisStore(url)

    def __repr__(self) -> str:
        return f"RedisStore(prefix={self._prefix!r})"

    def _run(self, op: StoreOp[T]) -> T:
        script = cast("ScriptCall[T]", op)
        if not self._schema_checked:
            self._schema(script.name)
        if self._stamp_needed(script):
            with self._errors(script.name):
                self._client.hset(self._schema_key(), mapping=self._stamp_fields())
            self._stored_schema = SCHEMA_VERSION
        if script.index == "add":  # a session is in the index before it exists
            with self._errors(script.name):
                self._client.zadd(self._index_key(), {script.name: 0})
        with self._errors(script.name, script.script):
            raw = self._scripts[script.script](keys=script.keys, args=script.args)
        if script.creates is not None and raw == NEW_SESSION:
            return self._run(script.creates())
        if script.index == "add":  # again: a delete may have taken the id out meanwhile
            with self._errors(script.name, script.script):
                self._client.zadd(self._index_key(), {script.name: 0})
        if script.index == "remove":
            with self._errors(script.name, script.script):
                self._client.zrem(self._index_key(), script.name)
                if self._client.exists(script.keys[0]):  # recreated meanwhile: put it back
                    self._client.zadd(self._index_key(), {script.name: 0})
        result = script.parse(raw)
        follow, left = script.follow, FOLLOW_UPS
        while follow is not None and left > 0:
            call = follow(raw)
            if call is None:
                break
            left -= 1
            try:  # upkeep: the operation is done; what is left is caught up by the next one
                raw = self._scripts[call.script](keys=call.keys, args=call.args)
            except self._redis_error:
                break
            follow = call.follow
        return result

    def _schema(self, name: str | None = None) -> None:
        """Check the prefix's recorded schema once, before this store's first command."""
        with self._errors(name):
            raw = self._client.hmget(self._schema_key(), SCHEMA_FIELDS)
        self._check_schema(raw)
        self._schema_checked = True

    def _index(self) -> list[str] | None:
        """Make sure the session index holds every session (once per prefix: a backfill).

        Sessions created by this release are indexed when created; those written before the
        index existed are found once by a ``SCAN``, then ``<prefix>:schema`` records
        ``index`` (and schema 3, so an older release, which would not index the sessions it
        creates, refuses the prefix from then on).

        Returns:
            ``None`` when the index holds every session; the scanned ids, sorted, when it
            could not be filled because this client may not write (a read-only replica, an
            ACL without writes): that listing then pages them.
        """
        if self._indexed:
            return None
        if not self._schema_checked:
            self._schema()
        with self._errors(None):
            done, version = self._client.hmget(self._schema_key(), ["index", "version"])
        if not _filled(done, version):
            names = self.list_sessions()
            fields = self._index_fields(_version(version))
            try:
                for i in range(0, len(names), _INDEX_BATCH):
                    batch = names[i : i + _INDEX_BATCH]
                    self._client.zadd(self._index_key(), dict.fromkeys(batch, 0))
                self._client.hset(self._schema_key(), mapping=fields)
            except self._redis_error as exc:
                if _may_not_write(exc):
                    return names  # this client may not write: page the scanned ids
                with self._errors(None):
                    raise
            if "version" in fields:
                self._stored_schema = SCHEMA_VERSION
        self._indexed = True
        return None

    def list_sessions(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions` (a ``SCAN`` of the keys)."""
        if not self._schema_checked:
            self._schema()
        with self._errors(None):
            keys = list(self._client.scan_iter(match=self._scan_pattern(), count=1000))
        return self._names(keys)

    def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`summem.stores.base.ListingStore.session_infos`.

        Cost: the ids of a page from the session index (``ZRANGEBYLEX`` of
        ``<prefix>:sessions``, O(log sessions + page)), then, in pipelines of
        ``_INFO_BATCH``, one script per listed session that reads its ``meta`` fields and
        the lengths of its lists on that session's slot; no message is read. A Redis
        Cluster's pipelines run no scripts: there each script is one round trip. The first
        listing of a prefix written before the index fills it by one ``SCAN`` (see
        :meth:`_index`).
        """
        check_page(limit, after)
        scanned = self._index()
        infos: list[SessionInfo] = []
        cursor = after
        while limit is None or len(infos) < limit:
            want = _INFO_BATCH if limit is None else min(_INFO_BATCH, limit - len(infos))
            if scanned is not None:
                names = _after(scanned, cursor, want)
            else:
                low = "-" if cursor is None else "(" + cursor
                with self._errors(None):
                    raw = self._client.zrangebylex(self._index_key(), low, "+", start=0, num=want)
                names = [text(n) for n in raw]
            if not names:
                break
            cursor = names[-1]
            ops = [self._op_info(name) for name in names]
            if isinstance(self._client, import_redis().RedisCluster):
                found = (self._run(op) for op in ops)
            else:
                with self._errors(None, "info"):
                    pipe = self._client.pipeline(transaction=False)
                    for op in ops:
                        pipe.eval(SCRIPTS["info"], len(op.keys), *op.keys)
                    raws = pipe.execute()
                found = (op.parse(raw) for op, raw in zip(ops, raws, strict=True))
            # None: no such session (deleted, or indexed by a create not yet run or failed)
            infos += [info for info in found if info is not None]
            if len(names) < want:
                break
        return infos

    def close(self) -> None:
        """Close the client if the store created it from a URL."""
        if self._owns:
            self._client.close()


_INFO_BATCH = 500
"""Sessions whose listing rows one pipeline reads."""

_INDEX_BATCH = 1000
"""Session ids one ``ZADD`` of a backfill sends."""


def _filled(done: Any, version: Any) -> bool:
    """Whether ``<prefix>:schema`` says the index holds every session.

    That is ``index`` set under schema 3 or later. Under an older version it is not trusted: a
    summem of that version, already running when the prefix was marked, stamped it back and
    creates sessions it does not index.
    """
    stored = _version(version)
    return done is not None and stored is not None and stored >= SCHEMA_VERSION


def _version(raw: Any) -> int | None:
    """A ``version`` field of ``<prefix>:schema``; ``None`` when absent or not a number."""
    try:
        return int(text(raw))
    except (TypeError, ValueError):
        return None


def _may_not_write(exc: Exception) -> bool:
    """Whether ``exc`` is the server refusing a write to this client (replica, ACL)."""
    errors = import_redis().exceptions
    return isinstance(exc, (errors.ReadOnlyError, errors.NoPermissionError))


def _after(names: list[str], cursor: str | None, want: int) -> list[str]:
    """Up to ``want`` of the sorted ``names`` past ``cursor``."""
    start = 0 if cursor is None else bisect.bisect_right(names, cursor)
    return names[start : start + want]


class AsyncRedisStore(
    RedisBranching["redis_async.Redis | redis_async.RedisCluster"],
    AsyncOpLedger,
    AsyncOpProbingAppend,
):
    """The async twin of :class:`RedisStore`, on ``redis.asyncio``.

    Args:
        url_or_client: a Redis URL, or a ``redis+cluster://`` one (the store owns its
            client), or a ``redis.asyncio.Redis`` / ``redis.asyncio.RedisCluster`` client.
        prefix: the first part of every key.
    """

    def __init__(
        self,
        url_or_client: str | redis_async.Redis | redis_async.RedisCluster,
        *,
        prefix: str = "summem",
    ) -> None:
        super().__init__(url_or_client, prefix=prefix)  # (here for the client types' names)
        self._first_lock: asyncio.Lock | None = None  # made in the loop that first uses it

    def _client_from_url(self, redis_module: Any, url: str) -> Any:
        cluster = redis_cluster_url(url)
        if cluster is not None:
            return redis_module.asyncio.RedisCluster.from_url(cluster)
        return redis_module.asyncio.Redis.from_url(url)

    @classmethod
    def from_url(cls, url: str) -> AsyncRedisStore:
        """Build from ``redis://host:6379/0`` or ``redis+cluster://host:7000``."""
        return cls(url)

    def __repr__(self) -> str:
        return f"AsyncRedisStore(prefix={self._prefix!r})"

    async def __aenter__(self) -> AsyncRedisStore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _run(self, op: StoreOp[T]) -> T:
        script = cast("ScriptCall[T]", op)
        if not self._schema_checked:
            await self._first_use(script.name)
        if self._stamp_needed(script):
            with self._errors(script.name):
                await self._client.hset(self._schema_key(), mapping=self._stamp_fields())
            self._stored_schema = SCHEMA_VERSION
        if script.index == "add":  # a session is in the index before it exists
            with self._errors(script.name):
                await self._client.zadd(self._index_key(), {script.name: 0})
        with self._errors(script.name, script.script):
            raw = await self._scripts[script.script](keys=script.keys, args=script.args)
        if script.creates is not None and raw == NEW_SESSION:
            return await self._run(script.creates())
        if script.index == "add":  # again: a delete may have taken the id out meanwhile
            with self._errors(script.name, script.script):
                await self._client.zadd(self._index_key(), {script.name: 0})
        if script.index == "remove":
            with self._errors(script.name, script.script):
                await self._client.zrem(self._index_key(), script.name)
                if await self._client.exists(script.keys[0]):  # recreated: put it back
                    await self._client.zadd(self._index_key(), {script.name: 0})
        result = script.parse(raw)
        follow, left = script.follow, FOLLOW_UPS
        while follow is not None and left > 0:
            call = follow(raw)
            if call is None:
                break
            left -= 1
            try:  # upkeep: the operation is done; what is left is caught up by the next one
                raw = await self._scripts[call.script](keys=call.keys, args=call.args)
            except self._redis_error:
                break
            follow = call.follow
        return result

    async def _first_use(self, name: str | None) -> None:
        """Check the schema in one task while the store's other first callers wait.

        The first command also makes a ``redis.asyncio.RedisCluster`` load the cluster's
        slot map and open its connections; redis-py (8.1) breaks connections when several
        tasks do that at once (``'NoneType' object has no attribute 'writelines'``).
        """
        if self._first_lock is None:
            self._first_lock = asyncio.Lock()
        async with self._first_lock:
            if not self._schema_checked:
                await self._schema(name)

    async def _schema(self, name: str | None = None) -> None:
        """Check the prefix's recorded schema once, before this store's first command."""
        with self._errors(name):
            raw = await self._client.hmget(self._schema_key(), SCHEMA_FIELDS)
        self._check_schema(raw)
        self._schema_checked = True

    async def _index(self) -> list[str] | None:
        """See :meth:`RedisStore._index`."""
        if self._indexed:
            return None
        if not self._schema_checked:
            await self._first_use(None)
        with self._errors(None):
            done, version = await self._client.hmget(self._schema_key(), ["index", "version"])
        if not _filled(done, version):
            names = await self.list_sessions()
            fields = self._index_fields(_version(version))
            try:
                for i in range(0, len(names), _INDEX_BATCH):
                    batch = names[i : i + _INDEX_BATCH]
                    await self._client.zadd(self._index_key(), dict.fromkeys(batch, 0))
                await self._client.hset(self._schema_key(), mapping=fields)
            except self._redis_error as exc:
                if _may_not_write(exc):
                    return names  # this client may not write: page the scanned ids
                with self._errors(None):
                    raise
            if "version" in fields:
                self._stored_schema = SCHEMA_VERSION
        self._indexed = True
        return None

    async def list_sessions(self) -> list[str]:
        """See :meth:`RedisStore.list_sessions`."""
        if not self._schema_checked:
            await self._first_use(None)
        with self._errors(None):
            keys = [k async for k in self._client.scan_iter(match=self._scan_pattern(), count=1000)]
        return self._names(keys)

    async def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`RedisStore.session_infos` (the same reads, awaited)."""
        check_page(limit, after)
        scanned = await self._index()
        infos: list[SessionInfo] = []
        cursor = after
        while limit is None or len(infos) < limit:
            want = _INFO_BATCH if limit is None else min(_INFO_BATCH, limit - len(infos))
            if scanned is not None:
                names = _after(scanned, cursor, want)
            else:
                low = "-" if cursor is None else "(" + cursor
                with self._errors(None):
                    raw = await self._client.zrangebylex(
                        self._index_key(), low, "+", start=0, num=want
                    )
                names = [text(n) for n in raw]
            if not names:
                break
            cursor = names[-1]
            ops = [self._op_info(name) for name in names]
            if isinstance(self._client, import_redis().asyncio.RedisCluster):
                found = [await self._run(op) for op in ops]
            else:
                with self._errors(None, "info"):
                    pipe = self._client.pipeline(transaction=False)
                    for op in ops:
                        pipe.eval(SCRIPTS["info"], len(op.keys), *op.keys)
                    raws = await pipe.execute()
                found = [op.parse(raw) for op, raw in zip(ops, raws, strict=True)]
            # None: no such session (deleted, or indexed by a create not yet run or failed)
            infos += [info for info in found if info is not None]
            if len(names) < want:
                break
        return infos

    async def close(self) -> None:
        """Close the client if the store created it from a URL."""
        if self._owns:
            await self._client.aclose()
