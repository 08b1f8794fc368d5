"""Every store, sync and async, behind one sync interface, for the contract tests.

Async stores are driven through :class:`SyncFacade`, which runs each call on an event loop in a
background thread (the "portal"), so one test body checks both twins and threads can call
an async store concurrently. Redis tests use a unique key prefix each and delete their keys;
when Redis is unreachable they skip, except under ``CI=true`` where they fail.

PostgreSQL tests connect to ``$SUMMEM_TEST_POSTGRES_URL`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``, a role allowed to create databases), create
one throwaway database for the whole run (dropped at its end by ``tests/conftest.py``), and
give each test its own schema in it (the key prefix doubles as the schema name). Unreachable:
skip, or fail under ``CI=true``, as with Redis.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import threading
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import pytest

from summem.stores import (
    AsyncInMemoryStore,
    AsyncPostgresStore,
    AsyncRedisStore,
    AsyncSQLiteStore,
    InMemoryStore,
    PostgresStore,
    RedisStore,
    SQLiteStore,
)
from summem.stores.base import Store

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_ADMIN_URL = os.environ.get(
    "SUMMEM_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
_created_databases: list[str] = []
_key_prefixes: list[str] = []


@functools.cache
def _redis_problem() -> str | None:
    try:
        import redis

        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def require_redis() -> None:
    """Skip (or, under CI=true, fail) when Redis is not reachable."""
    problem = _redis_problem()
    if problem is None:
        return
    reason = f"Redis is not reachable at {REDIS_URL} ({problem})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason + "; CI=true requires it")
    pytest.skip(reason)


@functools.cache
def _postgres_problem() -> str | None:
    try:
        import psycopg

        with psycopg.connect(POSTGRES_ADMIN_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        return f"{type(exc).__name__}: {' '.join(str(exc).split())}"  # libpq's is multi-line
    return None


def require_postgres() -> None:
    """Skip (or, under CI=true, fail) when PostgreSQL is not reachable."""
    problem = _postgres_problem()
    if problem is None:
        return
    reason = (
        f"PostgreSQL is not reachable at $SUMMEM_TEST_POSTGRES_URL ({mask(POSTGRES_ADMIN_URL)}): "
        f"{problem}"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason + "; CI=true requires it")
    pytest.skip(reason)


def mask(url: str) -> str:
    from summem._secrets import mask_url

    return mask_url(url)


@functools.cache
def postgres_url() -> str:
    """The URL of this run's throwaway database, created on first use."""
    require_postgres()
    import psycopg
    from psycopg import sql

    name = f"summem_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    _created_databases.append(name)
    parts = urlsplit(POSTGRES_ADMIN_URL)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, ""))


def drop_postgres_databases() -> None:
    """Drop the databases this run created (connections still open are ended)."""
    if not _created_databases:
        return
    import psycopg
    from psycopg import sql

    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
        while _created_databases:
            name = _created_databases.pop()
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def unique_prefix() -> str:
    """A key prefix (Redis) or schema name (PostgreSQL) of this run's own, cleaned up at its end."""
    prefix = f"summem-test-{uuid.uuid4().hex}"
    _key_prefixes.append(prefix)
    return prefix


def drop_redis_keys() -> None:
    """Delete the Redis keys under this run's prefixes (a spend ledger outlives its session)."""
    if not _key_prefixes or _redis_problem() is not None:
        return
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        while _key_prefixes:
            prefix = _key_prefixes.pop()
            keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
    finally:
        client.close()


def pg_execute(query: str, *params: Any, schema: str) -> int:
    """Run one statement on the test database (``{schema}`` is the quoted schema name)."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(postgres_url(), autocommit=True) as conn:
        statement = sql.SQL(query).format(schema=sql.Identifier(schema))
        return conn.execute(statement, params).rowcount


class Portal:
    """An event loop in a background thread that runs coroutines for sync callers."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def close(self) -> None:
        self.call(self.loop.shutdown_default_executor())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class SyncFacade:
    """Presents an async store as a sync one (test-only; the library never does this)."""

    def __init__(self, inner: Any, portal: Portal) -> None:
        self.inner = inner
        self._portal = portal

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._portal.call(method(*args, **kwargs))

        return call


@dataclass
class Backend:
    """One store configuration under test."""

    kind: str  # memory | sqlite | redis | postgres
    mode: str  # sync | async
    tmp_path: Path
    portal: Portal | None = None
    prefix: str = ""
    opened: list[Any] = field(default_factory=list)
    _shared_memory: InMemoryStore | None = None

    @property
    def spec(self) -> tuple[str, ...]:
        """A picklable description for writer processes (sync stores on the same data)."""
        if self.kind == "sqlite":
            return ("sqlite", str(self.db_path))
        if self.kind == "postgres":
            return ("postgres", postgres_url(), self.prefix)
        return ("redis", REDIS_URL, self.prefix)

    @property
    def db_path(self) -> Path:
        return self.tmp_path / "summem.db"

    def make(self) -> Store:
        """A new store instance (new connections) on this backend's data."""
        if self.kind == "memory":
            if self._shared_memory is None:
                self._shared_memory = InMemoryStore()
            raw: Any = (
                self._shared_memory
                if self.mode == "sync"
                else AsyncInMemoryStore(self._shared_memory)
            )
        elif self.kind == "sqlite":
            raw = SQLiteStore if self.mode == "sync" else AsyncSQLiteStore
            raw = raw(self.db_path)
        elif self.kind == "postgres":
            raw = PostgresStore if self.mode == "sync" else AsyncPostgresStore
            raw = raw(postgres_url(), schema=self.prefix)
        else:
            raw = RedisStore if self.mode == "sync" else AsyncRedisStore
            raw = raw(REDIS_URL, prefix=self.prefix)
        store = raw if self.mode == "sync" else SyncFacade(raw, self._portal())
        self.opened.append(store)
        return cast(Store, store)

    def raw(self, store: Store) -> Any:
        """The real store object behind ``store`` (unwrapping the async facade)."""
        return store.inner if isinstance(store, SyncFacade) else store

    def _portal(self) -> Portal:
        if self.portal is None:
            self.portal = Portal()
        return self.portal

    # -- writing garbage behind the store's back ------------------------------------------

    def corrupt_message(self, session_id: str, position: int) -> None:
        if self.kind == "sqlite":
            with sqlite3.connect(self.db_path) as conn:
                cur = conn.execute(
                    "UPDATE messages SET body = '{not json' WHERE position = ? AND sid = "
                    "(SELECT sid FROM sessions WHERE name = ?)",
                    (position, session_id),
                )
                assert cur.rowcount == 1
            conn.close()
        elif self.kind == "postgres":
            changed = pg_execute(
                "UPDATE {schema}.messages SET body = '{{not json' WHERE position = %s AND sid = "
                "(SELECT sid FROM {schema}.sessions WHERE name = %s)",
                position,
                session_id,
                schema=self.prefix,
            )
            assert changed == 1
        else:
            self._redis().lset(self.redis_keys(session_id).msgs, position, b"\xff{not json")

    def corrupt_meta(self, session_id: str) -> None:
        if self.kind == "sqlite":
            with sqlite3.connect(self.db_path) as conn:
                conn.execute("UPDATE sessions SET version = 'abc' WHERE name = ?", (session_id,))
            conn.close()
        elif self.kind == "postgres":  # typed columns: corrupt what the types allow
            changed = pg_execute(
                "UPDATE {schema}.sessions SET watermark = length + 5 WHERE name = %s",
                session_id,
                schema=self.prefix,
            )
            assert changed == 1
        else:
            self._redis().hset(self.redis_keys(session_id).meta, "version", "abc")

    def redis_keys(self, session_id: str) -> Any:
        return RedisStore(self._redis(), prefix=self.prefix)._keys(session_id)

    def _redis(self) -> Any:
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        self.opened.append(client)
        return client

    def close(self) -> None:
        for store in reversed(self.opened):
            store.close()
        if self.kind == "redis":
            import redis

            client = redis.Redis.from_url(REDIS_URL)
            keys = list(client.scan_iter(match=f"{self.prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
            client.close()
        if self.kind == "postgres":
            pg_execute("DROP SCHEMA IF EXISTS {schema} CASCADE", schema=self.prefix)
        if self.portal is not None:
            self.portal.close()


BACKEND_PARAMS = [
    pytest.param(("memory", "sync"), id="memory-sync"),
    pytest.param(("memory", "async"), id="memory-async"),
    pytest.param(("sqlite", "sync"), id="sqlite-sync"),
    pytest.param(("sqlite", "async"), id="sqlite-async"),
    pytest.param(("redis", "sync"), id="redis-sync", marks=pytest.mark.redis),
    pytest.param(("redis", "async"), id="redis-async", marks=pytest.mark.redis),
    pytest.param(("postgres", "sync"), id="postgres-sync", marks=pytest.mark.postgres),
    pytest.param(("postgres", "async"), id="postgres-async", marks=pytest.mark.postgres),
]
PERSISTENT_PARAMS = [p for p in BACKEND_PARAMS if p.values[0][0] != "memory"]  # type: ignore[index]
MULTIPROCESS_PARAMS = [p for p in PERSISTENT_PARAMS if p.values[0][1] == "sync"]  # type: ignore[index]
SYNC_PARAMS = [p for p in BACKEND_PARAMS if p.values[0][1] == "sync"]  # type: ignore[index]
REDIS_PARAMS = [p for p in PERSISTENT_PARAMS if p.values[0][0] == "redis"]  # type: ignore[index]
POSTGRES_PARAMS = [p for p in PERSISTENT_PARAMS if p.values[0][0] == "postgres"]  # type: ignore[index]
