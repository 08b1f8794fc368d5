"""Every store, sync and async, behind one sync interface, for the contract tests.

Async stores are driven through :class:`SyncFacade`, which runs each call on an event loop in a
background thread (the "portal"), so one test body checks both twins and threads can call
an async store concurrently. Redis tests use a unique key prefix each and delete their keys;
when Redis is unreachable they skip, except under ``CI=true`` where they fail. The
``redis-cluster`` kind runs the same tests on a local three-node Redis Cluster, one per test
process (:mod:`tests.stores.redis_cluster`).

PostgreSQL tests connect to ``$SUMMEM_TEST_POSTGRES_URL`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``, a role allowed to create databases), create
one throwaway database for the whole run (dropped at its end by ``tests/conftest.py``), and
give each test its own schema in it (the key prefix doubles as the schema name). Unreachable:
skip, or fail under ``CI=true``, as with Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NoReturn, cast
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
from tests.stores.redis_cluster import local_cluster

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
    """One store configuration under test: a registered kind (see :data:`KINDS`) and a mode."""

    kind: str  # a name in KINDS: memory | sqlite | redis | redis-cluster | postgres
    mode: str  # sync | async
    tmp_path: Path
    portal: Portal | None = None
    prefix: str = ""
    opened: list[Any] = field(default_factory=list)
    shared_memory: InMemoryStore | None = None

    @property
    def registered(self) -> Kind:
        return KINDS[self.kind]

    @property
    def spec(self) -> tuple[str, ...]:
        """A picklable description for writer processes (sync stores on the same data)."""
        spec = self.registered.spec(self)
        assert spec is not None, f"{self.kind} stores are not shared between processes"
        return spec

    @property
    def db_path(self) -> Path:
        return self.tmp_path / "summem.db"

    def make(self) -> Store:
        """A new store instance (new connections) on this backend's data."""
        raw = self.registered.make(self, self.mode)
        store = raw if self.mode == "sync" else SyncFacade(raw, self._portal())
        self.opened.append(store)
        return cast(Store, store)

    def native(self, mode: str | None = None) -> Any:
        """A new store as the library sees it (``mode``, default this backend's: async stores
        not wrapped), on this backend's data; the caller closes it."""
        return self.registered.make(self, mode or self.mode)

    def raw(self, store: Store) -> Any:
        """The real store object behind ``store`` (unwrapping the async facade)."""
        return store.inner if isinstance(store, SyncFacade) else store

    def _portal(self) -> Portal:
        if self.portal is None:
            self.portal = Portal()
        return self.portal

    # -- writing garbage behind the store's back ------------------------------------------

    def corrupt_message(self, session_id: str, position: int) -> None:
        self.registered.corrupt_message(self, session_id, position)

    def write_message(self, session_id: str, position: int, body: str) -> None:
        """Replace the stored record at ``position`` with ``body``, as written (e.g. by an
        older release)."""
        self.registered.write_message(self, session_id, position, body)

    def corrupt_meta(self, session_id: str) -> None:
        self.registered.corrupt_meta(self, session_id)

    def redis_keys(self, session_id: str) -> Any:
        return RedisStore(self.redis_client(), prefix=self.prefix)._keys(session_id)

    def redis_client(self) -> Any:
        """A raw client on this Redis backend's server (or cluster), closed with the backend."""
        kind = self.registered
        assert isinstance(kind, RedisKind), f"{self.kind} is not a Redis backend"
        client = kind.client()
        self.opened.append(client)
        return client

    def close(self) -> None:
        for store in reversed(self.opened):
            store.close()
        self.registered.clean(self)
        if self.portal is not None:
            self.portal.close()


# -- the registration point: one Kind per backend -----------------------------------------


class Kind:
    """A backend the store tests run on: how to open it, and how to reach behind it.

    A new backend is one subclass registered in :data:`KINDS`: the contract suite then runs
    on it in both modes (and the persistence, corruption and multi-process suites too, as its
    flags say).
    """

    name: ClassVar[str]
    marks: ClassVar[tuple[Any, ...]] = ()
    persistent: ClassVar[bool] = True
    """Records survive the store object, can be corrupted, and writes can fail."""
    searchable: ClassVar[bool] = False
    """The store searches history itself (:class:`~summem.stores.base.SearchableStore`)."""

    def require(self) -> None:
        """Skip (or, under CI=true, fail) when the backend's service is not reachable."""

    def make(self, backend: Backend, mode: str) -> Any:
        """A new store (``mode``: sync or async) on ``backend``'s data."""
        raise NotImplementedError

    def spec(self, backend: Backend) -> tuple[str, ...] | None:
        """A picklable description of ``backend``'s data (``None``: not shared by processes)."""
        return None

    def open(self, *spec: str) -> Store:
        """The sync store a :meth:`spec` describes (in a writer process)."""
        raise NotImplementedError

    def corrupt_message(self, backend: Backend, session_id: str, position: int) -> None:
        raise NotImplementedError

    def write_message(self, backend: Backend, session_id: str, position: int, body: str) -> None:
        raise NotImplementedError

    def corrupt_meta(self, backend: Backend, session_id: str) -> None:
        raise NotImplementedError

    def clean(self, backend: Backend) -> None:
        """Remove what the test left on the backend's service."""

    # -- failure injection: a backend without a hook skips the test, naming the hook --------

    def fail_commit_after_session_row(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Make ``store``'s commits fail after the session row was updated (until
        ``monkeypatch.undo()``)."""
        missing_hook(self, "fail_commit_after_session_row")

    def fail_create_midway(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> Callable[[], None]:
        """Make ``store.create`` fail after part of the session was written (until
        ``monkeypatch.undo()``); returns a check of what the failed create left behind."""
        missing_hook(self, "fail_create_midway")

    def lose_next_reply(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Make ``store``'s next write land but lose its reply (until ``monkeypatch.undo()``):
        the write raises :class:`~summem.errors.StoreOutcomeUnknownError`."""
        missing_hook(self, "lose_next_reply")


_WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "REPLACE"})


class _CommitLost:
    """A SQLite connection whose first write lands, then reports an I/O error: the COMMIT of
    a ``BEGIN IMMEDIATE`` transaction, or a write statement run in SQLite's own transaction
    (autocommit: a one-message append), which commits as it finishes."""

    def __init__(self, conn: sqlite3.Connection, armed: list[bool]) -> None:
        self._conn, self._armed, self._writing = conn, armed, False

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "BEGIN IMMEDIATE":
            self._writing = True
        if sql == "COMMIT" and self._writing and self._armed[0]:
            self._armed[0] = False
            self._conn.execute("COMMIT")
            raise sqlite3.OperationalError("disk I/O error")
        autocommit = not self._conn.in_transaction and sql.split()[0].upper() in _WRITES
        if autocommit and self._armed[0]:
            self._armed[0] = False
            self._conn.execute(sql, *args).fetchall()  # stepped to its end: committed
            raise sqlite3.OperationalError("disk I/O error")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def missing_hook(kind: Kind, hook: str) -> NoReturn:
    """Skip a test that needs a failure-injection hook ``kind`` does not define (visible in
    the skip report, with the backend and the hook named)."""
    pytest.skip(
        f"the {kind.name} backend has no Kind.{hook} hook in tests/stores/backends.py: "
        "this failure cannot be injected into it"
    )


def _nothing_to_check() -> None:
    """What a failed create leaves behind needs no backend-specific check."""


class MemoryKind(Kind):
    name = "memory"
    persistent = False

    def make(self, backend: Backend, mode: str) -> Any:
        if backend.shared_memory is None:
            backend.shared_memory = InMemoryStore()
        if mode == "sync":
            return backend.shared_memory
        return AsyncInMemoryStore(backend.shared_memory)


class SQLiteKind(Kind):
    name = "sqlite"
    searchable = True

    def make(self, backend: Backend, mode: str) -> Any:
        return (SQLiteStore if mode == "sync" else AsyncSQLiteStore)(backend.db_path)

    def spec(self, backend: Backend) -> tuple[str, ...]:
        return ("sqlite", str(backend.db_path))

    def open(self, *spec: str) -> Store:
        return SQLiteStore(spec[0])

    def corrupt_message(self, backend: Backend, session_id: str, position: int) -> None:
        self.write_message(backend, session_id, position, "{not json")

    def write_message(self, backend: Backend, session_id: str, position: int, body: str) -> None:
        with sqlite3.connect(backend.db_path) as conn:
            cur = conn.execute(
                "UPDATE messages SET body = ? WHERE position = ? AND sid = "
                "(SELECT sid FROM sessions WHERE name = ?)",
                (body, position, session_id),
            )
            assert cur.rowcount == 1
        conn.close()

    def corrupt_meta(self, backend: Backend, session_id: str) -> None:
        with sqlite3.connect(backend.db_path) as conn:
            conn.execute("UPDATE sessions SET version = 'abc' WHERE name = ?", (session_id,))
        conn.close()

    def fail_commit_after_session_row(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def boom(*args: Any) -> None:  # after the session row was updated
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr(SQLiteStore, "_log_summary", boom)

    def fail_create_midway(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> Callable[[], None]:
        from summem.stores.sqlite.schema import SQL

        # the summary log is the last insert: the session row and every message are in by then
        monkeypatch.setattr(SQL, "LOG_SUMMARY", "INSERT INTO no_such_table VALUES (?, ?, ?, ?, ?)")
        return _nothing_to_check

    def lose_next_reply(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from summem.stores.sqlite.file import SQLiteFile

        real, armed = SQLiteFile._conn, [True]
        monkeypatch.setattr(SQLiteFile, "_conn", lambda file: _CommitLost(real(file), armed))


class RedisKind(Kind):
    name = "redis"
    marks = (pytest.mark.redis,)

    def require(self) -> None:
        require_redis()

    def url(self) -> str:
        """The URL the stores of this kind open."""
        return REDIS_URL

    def client(self) -> Any:
        """A new raw client on the server (the caller closes it)."""
        import redis

        return redis.Redis.from_url(REDIS_URL)

    def make(self, backend: Backend, mode: str) -> Any:
        store = RedisStore if mode == "sync" else AsyncRedisStore
        return store(self.url(), prefix=backend.prefix)

    def spec(self, backend: Backend) -> tuple[str, ...]:
        return (self.name, self.url(), backend.prefix)

    def open(self, *spec: str) -> Store:
        return RedisStore(spec[0], prefix=spec[1])

    def corrupt_message(self, backend: Backend, session_id: str, position: int) -> None:
        keys = backend.redis_keys(session_id)
        backend.redis_client().lset(keys.msgs, position, b"\xff{not json")

    def write_message(self, backend: Backend, session_id: str, position: int, body: str) -> None:
        keys = backend.redis_keys(session_id)
        backend.redis_client().lset(keys.msgs, position, body.encode("utf-8"))

    def corrupt_meta(self, backend: Backend, session_id: str) -> None:
        backend.redis_client().hset(backend.redis_keys(session_id).meta, "version", "abc")

    def clean(self, backend: Backend) -> None:
        client = self.client()
        keys = list(client.scan_iter(match=f"{backend.prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()

    def fail_commit_after_session_row(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import redis

        def lost(*args: Any, **kwargs: Any) -> Any:  # the commit script is one atomic step
            raise redis.exceptions.ConnectionError("connection reset by peer")

        monkeypatch.setitem(backend.raw(store)._scripts, "commit", lost)

    def fail_create_midway(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> Callable[[], None]:
        import redis

        raw = backend.raw(store)
        raw.create_chunk_messages = 7  # staged in chunks first: fail after some have landed
        real_stage = raw._scripts["stage"]
        calls = 0

        def flaky(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls == 3:
                raise redis.exceptions.ConnectionError("connection reset by peer")
            return real_stage(*args, **kwargs)

        monkeypatch.setitem(raw._scripts, "stage", flaky)

        def check() -> None:
            assert calls == 3
            client = backend.redis_client()
            keys = client.scan_iter(match=f"{backend.prefix}:*", count=1000)
            assert not [k for k in keys if b":import:" in k]  # the staging list is discarded

        return check

    def lose_next_reply(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import redis

        scripts, armed = backend.raw(store)._scripts, [True]
        for name, real in list(scripts.items()):

            def lost(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
                result = _real(*args, **kwargs)
                if not armed[0]:
                    return result
                armed[0] = False
                if not asyncio.iscoroutine(result):
                    raise redis.exceptions.ConnectionError("connection reset by peer")

                async def landed() -> Any:
                    await result
                    raise redis.exceptions.ConnectionError("connection reset by peer")

                return landed()

            monkeypatch.setitem(scripts, name, lost)


class RedisClusterKind(RedisKind):
    """The Redis store on a local three-node Redis Cluster (tests/stores/redis_cluster.py),
    one per test process, started when a test first needs it."""

    name = "redis-cluster"
    marks = (pytest.mark.redis_cluster,)

    def require(self) -> None:
        local_cluster()

    def url(self) -> str:
        return local_cluster().url

    def client(self) -> Any:
        return local_cluster().client()


class PostgresKind(Kind):
    name = "postgres"
    marks = (pytest.mark.postgres,)
    searchable = True

    def require(self) -> None:
        require_postgres()

    def make(self, backend: Backend, mode: str) -> Any:
        store = PostgresStore if mode == "sync" else AsyncPostgresStore
        return store(postgres_url(), schema=backend.prefix)

    def spec(self, backend: Backend) -> tuple[str, ...]:
        return ("postgres", postgres_url(), backend.prefix)

    def open(self, *spec: str) -> Store:
        return PostgresStore(spec[0], schema=spec[1])

    def corrupt_message(self, backend: Backend, session_id: str, position: int) -> None:
        self.write_message(backend, session_id, position, "{not json")

    def write_message(self, backend: Backend, session_id: str, position: int, body: str) -> None:
        changed = pg_execute(
            "UPDATE {schema}.messages SET body = %s WHERE position = %s AND sid = "
            "(SELECT sid FROM {schema}.sessions WHERE name = %s)",
            body,
            position,
            session_id,
            schema=backend.prefix,
        )
        assert changed == 1

    def corrupt_meta(self, backend: Backend, session_id: str) -> None:
        changed = pg_execute(  # typed columns: corrupt what the types allow
            "UPDATE {schema}.sessions SET watermark = length + 5 WHERE name = %s",
            session_id,
            schema=backend.prefix,
        )
        assert changed == 1

    def clean(self, backend: Backend) -> None:
        pg_execute("DROP SCHEMA IF EXISTS {schema} CASCADE", schema=backend.prefix)

    def fail_commit_after_session_row(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        raw = backend.raw(store)  # the summary log goes in after the session row
        monkeypatch.setattr(raw._sql, "LOG_SUMMARY", b"INSERT INTO no_such_table VALUES (%s)")

    def fail_create_midway(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> Callable[[], None]:
        # the summary log goes in last, after the session row and every message
        self.fail_commit_after_session_row(backend, store, monkeypatch)
        return _nothing_to_check

    def lose_next_reply(
        self, backend: Backend, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import psycopg

        lost = psycopg.OperationalError("server closed the connection unexpectedly")
        armed = [True]
        if backend.mode == "async":
            real_async = psycopg.AsyncConnection.commit

            async def commit_async(conn: Any) -> None:
                await real_async(conn)
                if armed[0]:
                    armed[0] = False
                    raise lost  # landed, but the reply never came

            monkeypatch.setattr(psycopg.AsyncConnection, "commit", commit_async)
        else:
            real = psycopg.Connection.commit

            def commit(conn: Any) -> None:
                real(conn)
                if armed[0]:
                    armed[0] = False
                    raise lost

            monkeypatch.setattr(psycopg.Connection, "commit", commit)


KINDS: dict[str, Kind] = {
    k.name: k for k in (MemoryKind(), SQLiteKind(), RedisKind(), RedisClusterKind(), PostgresKind())
}
"""Every backend the store tests run on, by name: the one place a new backend is added."""

MODES = ("sync", "async")


def kind_params(*, where: Callable[[Kind], bool] = lambda kind: True) -> list[Any]:
    """``kind`` name parameters of the registered backends ``where`` accepts."""
    return [
        pytest.param(kind.name, id=kind.name, marks=kind.marks)
        for kind in KINDS.values()
        if where(kind)
    ]


def params(*, where: Callable[[Kind, str], bool] = lambda kind, mode: True) -> list[Any]:
    """``(kind, mode)`` parameters of the registered backends ``where`` accepts."""
    return [
        pytest.param((kind.name, mode), id=f"{kind.name}-{mode}", marks=kind.marks)
        for kind in KINDS.values()
        for mode in MODES
        if where(kind, mode)
    ]


BACKEND_PARAMS = params()
PERSISTENT_PARAMS = params(where=lambda kind, mode: kind.persistent)
MULTIPROCESS_PARAMS = params(where=lambda kind, mode: kind.persistent and mode == "sync")
SYNC_PARAMS = params(where=lambda kind, mode: mode == "sync")
SEARCHABLE_PARAMS = params(where=lambda kind, mode: kind.searchable)
REDIS_PARAMS = params(where=lambda kind, mode: isinstance(kind, RedisKind))
POSTGRES_PARAMS = params(where=lambda kind, mode: kind.name == "postgres")


@contextlib.contextmanager
def backend_of(kind_mode: tuple[str, str], tmp_path: Path) -> Iterator[Backend]:
    """A :class:`Backend` of a registered ``(kind, mode)`` (skipped when its service is not
    reachable), closed and cleaned at the end of the block."""
    kind, mode = kind_mode
    KINDS[kind].require()
    b = Backend(kind, mode, tmp_path, prefix=unique_prefix())
    try:
        yield b
    finally:
        b.close()


def open_backend(kind_mode: tuple[str, str], tmp_path: Path) -> Iterator[Backend]:
    """The body of every backend fixture (see :func:`backend_of`)."""
    with backend_of(kind_mode, tmp_path) as b:
        yield b
