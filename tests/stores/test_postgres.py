"""What only the PostgreSQL store does: schemas, migrations, URLs, ids as parameters, lost
connections and a worker killed inside a transaction.

The store contract itself runs on PostgreSQL with every other backend (test_contract.py and
the rest, ``postgres-sync`` / ``postgres-async``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from summem.errors import (
    ConfigurationError,
    ConflictError,
    MissingDependencyError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.messages import system, user
from summem.stores import (
    AsyncPostgresStore,
    PostgresStore,
    available_schemes,
    open_async_store,
    open_store,
)
from summem.stores.postgres.schema import MIGRATIONS, check_schema_name
from summem.stores.url import postgres_settings
from tests.stores.backends import (
    POSTGRES_ADMIN_URL,
    Backend,
    pg_execute,
    postgres_url,
    require_postgres,
    unique_prefix,
)
from tests.stores.helpers import fill, pg_drop_branches, reduce_to, state_of, summary_msg

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.postgres


@pytest.fixture
def schema() -> Iterator[str]:
    require_postgres()
    name = unique_prefix()
    yield name
    pg_execute("DROP SCHEMA IF EXISTS {schema} CASCADE", schema=name)


def _rows(query: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(postgres_url(), autocommit=True) as conn:
        return conn.execute(query, params).fetchall()


# -- URLs and settings ------------------------------------------------------------------------


def test_url_parameters_of_summem_are_taken_out_and_the_rest_goes_to_libpq() -> None:
    o = postgres_settings(
        "postgresql://app:s3cret@db:5433/prod?schema=tenant_1&sslmode=disable&pool_max_size=3"
        "&pool_min_size=0&pool_timeout=2.5&application_name=x"
    )
    assert o.conninfo == "postgresql://app:s3cret@db:5433/prod?sslmode=disable&application_name=x"
    assert (o.schema, o.min_size, o.max_size, o.timeout) == ("tenant_1", 0, 3, 2.5)
    assert postgres_settings("postgres://h/db").schema == "summem"
    spaced = postgres_settings("postgresql://h/db?options=-c%20synchronous_commit%3Doff")
    assert spaced.conninfo == "postgresql://h/db?options=-c%20synchronous_commit%3Doff"
    with pytest.raises(ConfigurationError, match="postgresql://user@host"):
        postgres_settings("mysql://h/db")
    with pytest.raises(ConfigurationError, match="bad pool setting"):
        postgres_settings("postgresql://h/db?pool_max_size=many")
    with pytest.raises(ConfigurationError, match="'schema' twice"):
        postgres_settings("postgresql://h/db?schema=a&schema=b")


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("", "non-empty"),
        (None, "non-empty"),
        ("x" * 64, "63 bytes"),
        ("é" * 32, "63 bytes"),
        ("a\x00b", "control characters"),
        ("pg_summem", "reserved"),
        ("\ud800", "unicode"),
    ],
)
def test_bad_schema_names_are_refused_with_the_reason(name: Any, error: str) -> None:
    with pytest.raises(ConfigurationError, match=error):
        check_schema_name(name)
    with pytest.raises(ConfigurationError, match=error):
        PostgresStore("postgresql://127.0.0.1:1/x", schema=name)


@pytest.mark.parametrize(
    ("sizes", "error"),
    [
        ({"min_size": 3, "max_size": 2}, "min_size <= max_size"),
        ({"max_size": 0, "min_size": 0}, "max_size >= 1"),
        ({"timeout": 0}, "timeout must be positive"),
    ],
)
def test_bad_pool_settings_are_refused(sizes: dict[str, Any], error: str) -> None:
    with pytest.raises(ConfigurationError, match=error):
        AsyncPostgresStore("postgresql://127.0.0.1:1/x", **sizes)


def test_open_store_by_url_with_a_schema_and_no_password_in_reprs(schema: str) -> None:
    assert {"postgres", "postgresql"} <= set(available_schemes())
    parts = urlsplit(postgres_url())
    password = parts.password or "pa55word"  # trust auth (CI) ignores it; never in a repr
    netloc = f"{parts.username or 'postgres'}:{password}@{parts.netloc.rpartition('@')[2]}"
    url = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    store = open_store(f"{url}?schema={schema}&pool_max_size=2")
    try:
        assert isinstance(store, PostgresStore) and store.schema == schema
        assert password not in repr(store)
        fill(store, "s", 2)
        assert _rows("SELECT nspname FROM pg_namespace WHERE nspname = %s", schema) == [(schema,)]
    finally:
        store.close()
    libpq = "options=-c%20statement_timeout%3D12345&application_name=summem-url-test"
    store = open_store(f"{url}?{libpq}&schema={schema}")  # libpq's parameters reach libpq
    try:
        with store._pool.connection() as conn:  # type: ignore[attr-defined]
            assert conn.execute("SHOW statement_timeout").fetchone() == ("12345ms",)
            assert conn.execute("SHOW application_name").fetchone() == ("summem-url-test",)
    finally:
        store.close()
    async_store = open_async_store(f"{url}?schema={schema}")
    assert isinstance(async_store, AsyncPostgresStore) and password not in repr(async_store)
    asyncio.run(async_store.close())  # built without I/O: nothing to connect or migrate yet


async def test_the_async_store_does_no_io_until_first_use_and_reports_a_dead_server() -> None:
    store = AsyncPostgresStore("postgresql://postgres@127.0.0.1:1/none", timeout=0.5)
    with pytest.raises(StoreError, match="cannot get a PostgreSQL connection"):
        await store.load("s")
    await store.close()


def test_an_unreachable_server_is_a_store_error_at_construction() -> None:
    with pytest.raises(StoreError, match="cannot get a PostgreSQL connection"):
        PostgresStore("postgresql://postgres@127.0.0.1:1/none", timeout=0.5)


def test_without_psycopg_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(MissingDependencyError, match=r"summem\[postgres\]"):
        PostgresStore("postgresql://127.0.0.1:1/x")


# -- schemas and ids --------------------------------------------------------------------------


def test_schemas_keep_tenants_apart_and_any_name_is_quoted(schema: str) -> None:
    odd = 'Tenant "B"; DROP SCHEMA public CASCADE; --'
    a = PostgresStore(postgres_url(), schema=schema)
    b = PostgresStore(postgres_url(), schema=odd)
    try:
        fill(a, "shared-id", 3)
        fill(b, "shared-id", 1)
        assert a.load("shared-id").length == 3 and b.load("shared-id").length == 1
        assert b.delete("shared-id") and a.exists("shared-id")
        names = {r[0] for r in _rows("SELECT nspname FROM pg_namespace")}
        assert {schema, odd, "public"} <= names
    finally:
        a.close()
        b.close()
        pg_execute("DROP SCHEMA IF EXISTS {schema} CASCADE", schema=odd)


HOSTILE_IDS = [
    "x' OR '1'='1",
    "'); DROP TABLE sessions; --",
    "a%",
    "a_",
    "a",
    "A",
    "\\",
    '"quoted"',
    "$1",
    "%s",
    "ключ",
    "🙂" * 1024,  # 4 KB of UTF-8: over the B-tree entry limit, indexed by its hash
]


def test_hostile_session_and_message_ids_are_parameters_and_never_meet(
    postgres_backend: Backend,
) -> None:
    store = postgres_backend.make()
    for i, sid in enumerate(HOSTILE_IDS):
        fill(store, sid, i + 1)
    assert store.list_sessions() == sorted(HOSTILE_IDS)
    for i, sid in enumerate(HOSTILE_IDS):
        assert [m.text for m in store.history(sid)] == [f"{sid}#{j}" for j in range(i + 1)]
    long_id = "m" * 20_000 + "' --"
    msg = user("long id").with_id(long_id)
    assert store.append("a", [msg]) == 6 and store.append("a", [msg]) == 6  # idempotent
    assert store.history("a")[-1].id == long_id
    assert store.delete("a%") and store.exists("a") and store.exists("a_")
    assert store.load("A").length == 6


def test_rows_of_one_session_are_reached_only_through_its_own_id(
    postgres_backend: Backend,
) -> None:
    store = postgres_backend.make()
    fill(store, "one", 2)
    fill(store, "two", 2)
    reduce_to(store, "one", 1, "s1")
    before = state_of(store, "one")
    summary_id = store.summaries("one")[0].id
    st = store.load("two")
    with pytest.raises(StoreError, match="no logged summary"):  # another session's summary
        store.rollback("two", summary_id=summary_id, expected_version=st.version)
    store.clear("two")
    assert state_of(store, "one") == before


# -- migrations -------------------------------------------------------------------------------


def _migrate_main(url: str, schema: str, barrier: Any, queue: Any) -> None:
    try:
        barrier.wait(timeout=30)
        store = PostgresStore(url, schema=schema)
        store.append("s", [user(f"from {os.getpid()}")])
        store.close()
        queue.put("ok")
    except BaseException as exc:
        queue.put(f"{type(exc).__name__}: {exc}")


@pytest.mark.slow
def test_workers_starting_together_migrate_once(schema: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    n = 6
    barrier, queue = ctx.Barrier(n), ctx.Queue()
    procs = [
        ctx.Process(target=_migrate_main, args=(postgres_url(), schema, barrier, queue))
        for _ in range(n)
    ]
    for p in procs:
        p.start()
    results = [queue.get(timeout=90) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert results == ["ok"] * n
    q = 'SELECT version FROM "{}".summem_schema_version'.format(schema.replace('"', '""'))
    assert _rows(q) == [(len(MIGRATIONS),)]
    store = PostgresStore(postgres_url(), schema=schema)
    assert store.load("s").length == n
    store.close()


def test_a_schema_newer_than_this_summem_is_refused(schema: str) -> None:
    PostgresStore(postgres_url(), schema=schema).close()
    pg_execute("UPDATE {schema}.summem_schema_version SET version = 99", schema=schema)
    with pytest.raises(StoreError, match="version 99, newer than this summem knows"):
        PostgresStore(postgres_url(), schema=schema)


# -- lost connections -------------------------------------------------------------------------


def _kill_backends() -> int:
    """End every other connection to the test database (as a restart or a proxy would)."""
    rows = _rows(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    return len(rows)


def test_a_connection_that_died_in_the_pool_is_replaced(postgres_backend: Backend) -> None:
    store = postgres_backend.make()
    fill(store, "s", 2)
    assert _kill_backends() >= 1
    assert store.load("s").length == 2  # the dead connection was dropped and the call retried
    fill(store, "s", 1)
    assert store.load("s").length == 3


KILL = b"SELECT pg_terminate_backend(pg_backend_pid())"


def counted_kill(backend: Backend, *casts: str) -> tuple[bytes, Any]:
    """A statement that ends its own connection (counting how often it ran) and takes
    parameters of ``casts``; and a function returning the count so far."""
    from psycopg import sql

    pg_execute("CREATE SEQUENCE {schema}.kills", schema=backend.prefix)
    seq = sql.Identifier(backend.prefix).as_string() + ".kills"
    params = "".join(f", %s::{c}" for c in casts)
    statement = f"SELECT nextval('{seq}'), pg_terminate_backend(pg_backend_pid()){params}"

    def count() -> int:
        rows = _rows(f"SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM {seq}")
        return int(rows[0][0])

    return statement.encode(), count


def test_a_connection_lost_before_the_commit_is_sent_writes_nothing_and_says_so(
    postgres_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = postgres_backend.make()
    raw = postgres_backend.raw(store)
    fill(store, "other", 1)
    # setting the system message of a new session creates its row in a second round trip:
    # the connection dies there, inside the transaction, long before its COMMIT
    kill, kills = counted_kill(postgres_backend, "bytea", "text", "text")
    monkeypatch.setattr(raw._sql, "CREATE", kill)
    with pytest.raises(StoreError, match="'n': PostgreSQL error") as info:
        store.set_system("n", system("x"))
    assert not isinstance(info.value, StoreOutcomeUnknownError)  # no COMMIT was sent
    assert kills() == 1  # past the first round trip: not retried
    monkeypatch.undo()
    assert not store.exists("n") and store.list_sessions() == ["other"]
    store.set_system("n", system("x"))
    assert store.load("n").system is not None


def test_a_connection_lost_with_the_commit_is_an_unknown_outcome(
    postgres_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = postgres_backend.make()
    raw = postgres_backend.raw(store)
    fill(store, "s", 5)
    before = state_of(store, "s")
    # the summary log entry goes with the COMMIT in the last round trip: the connection dies
    # after the session row was updated, and the client cannot tell whether COMMIT ran
    killing = KILL + b", %s::bigint, %s::text, %s::bigint, %s::text"
    monkeypatch.setattr(raw._sql, "LOG_SUMMARY", killing)
    with pytest.raises(StoreOutcomeUnknownError, match=r"'s'.*may or may not") as info:
        reduce_to(store, "s", 3, "s")
    assert info.value.operation == "commit"
    monkeypatch.undo()
    assert state_of(store, "s") == before  # reading tells: it did not land
    reduce_to(store, "s", 3, "s")
    assert store.load("s").watermark == 3


def test_a_read_whose_connection_is_lost_is_retried_once(
    postgres_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = postgres_backend.make()
    raw = postgres_backend.raw(store)
    fill(store, "s", 2)
    kill, kills = counted_kill(postgres_backend, "bytea", "text")
    monkeypatch.setattr(raw._sql, "EXISTS", kill)
    with pytest.raises(StoreError, match="'s': PostgreSQL error"):
        store.exists("s")
    assert kills() == 2  # tried on a second connection, then it gave up
    monkeypatch.undo()
    assert store.exists("s")


def _fail_next_append(
    backend: Backend, monkeypatch: pytest.MonkeyPatch, *, kill_first: bool
) -> None:
    """Make the store's next append statement fail: with ``kill_first``, its connection is
    ended before it is sent (nothing lands); else it runs, and its reply is lost."""
    import psycopg

    is_async = backend.mode == "async"
    cls: Any = psycopg.AsyncConnection if is_async else psycopg.Connection
    real = cls.execute
    lost = psycopg.OperationalError("server closed the connection unexpectedly")
    armed = [True]

    def before(conn: Any, query: Any) -> bool:
        if not (armed[0] and b"append_messages" in bytes(query)):
            return False
        armed[0] = False
        if kill_first:
            _rows("SELECT pg_terminate_backend(%s)", conn.info.backend_pid)
            return False  # the real call fails: the connection is gone
        return True

    if is_async:

        async def execute_async(conn: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            fail = before(conn, query)
            cursor = await real(conn, query, *args, **kwargs)
            if fail:
                raise lost  # landed, but the reply never came
            return cursor

        monkeypatch.setattr(cls, "execute", execute_async)
    else:

        def execute(conn: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            fail = before(conn, query)
            cursor = real(conn, query, *args, **kwargs)
            if fail:
                raise lost
            return cursor

        monkeypatch.setattr(cls, "execute", execute)


def test_an_append_whose_reply_is_lost_is_an_unknown_outcome_and_a_retry_is_not_duplicated(
    postgres_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = postgres_backend.make()
    fill(store, "s", 2)
    batch = [user("x"), user("y")]
    _fail_next_append(postgres_backend, monkeypatch, kill_first=False)
    with pytest.raises(StoreOutcomeUnknownError, match="may or may not") as info:
        store.append("s", batch)
    assert info.value.operation == "append"
    monkeypatch.undo()
    assert store.load("s").length == 4  # it landed: only reading tells
    assert store.append("s", batch) == 4  # appending again stores each message once
    assert [m.text for m in store.history("s")] == ["s#0", "s#1", "x", "y"]


def test_an_append_whose_connection_died_is_retried_once_on_another(
    postgres_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append is one idempotent statement: sent again after a lost connection, it cannot
    store anything twice, so the store retries it (as it does a read)."""
    store = postgres_backend.make()
    fill(store, "s", 2)
    _fail_next_append(postgres_backend, monkeypatch, kill_first=True)
    assert store.append("s", [user("x"), user("y")]) == 4
    monkeypatch.undo()
    assert [m.text for m in store.history("s")] == ["s#0", "s#1", "x", "y"]


CHILD = """
import json, os, signal, sys
import psycopg
from summem.stores.postgres import PostgresStore
from tests.stores.helpers import reduce_to

url, schema = json.loads(sys.argv[1])
store = PostgresStore(url, schema=schema)

def killed(conn):
    os.kill(os.getpid(), signal.SIGKILL)  # every statement ran; COMMIT never sent

psycopg.Connection.commit = killed
reduce_to(store, "s", 3, "s")
"""


def test_a_worker_killed_inside_its_commit_transaction_leaves_nothing_and_no_lock(
    schema: str,
) -> None:
    store = PostgresStore(postgres_url(), schema=schema)
    try:
        fill(store, "s", 5)
        before = state_of(store, "s")
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(CHILD), json.dumps([postgres_url(), schema])],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == -9, proc.stderr
        assert state_of(store, "s") == before  # the server rolled the transaction back
        reduce_to(store, "s", 3, "s")  # the session row is not left locked
        fill(store, "s", 1)
        st = store.load("s")
        assert (st.watermark, st.version, st.length) == (3, 1, 6)
    finally:
        store.close()


def test_a_lease_expires_on_the_servers_clock(postgres_backend: Backend) -> None:
    store = postgres_backend.make()
    assert store.acquire_lease("s", "a", 30)
    assert not store.acquire_lease("s", "b", 30)
    pg_execute(
        "UPDATE {schema}.leases SET expires_at = clock_timestamp() - interval '1 second'",
        schema=postgres_backend.prefix,
    )
    assert store.acquire_lease("s", "b", 30)
    with pytest.raises(ConflictError):
        store.commit("missing", summary=None, watermark=0, expected_version=0, expected_epoch="")


def test_without_pipeline_mode_every_operation_works_the_same(postgres_backend: Backend) -> None:
    store = postgres_backend.make()
    postgres_backend.raw(store)._pipelined = False  # libpq older than 14: one statement a trip
    old = fill(store, "s", 6)
    assert store.append("s", [*old[4:], user("new")]) == 7  # ids it holds are skipped
    reduce_to(store, "s", 4, "s1")
    st = store.load("s")
    assert (st.watermark, st.version, [m.text for m in st.tail]) == (4, 1, ["s#4", "s#5", "new"])
    assert [m.text for m in store.history("s", -2)] == ["s#5", "new"]
    assert store.rollback("s", summary_id=None, expected_version=1) == 2
    assert store.acquire_lease("s", "a", 5) and not store.acquire_lease("s", "b", 5)
    assert store.list_sessions() == ["s"] and store.delete("s") and not store.exists("s")


def test_megabytes_in_one_create_or_append_go_through(postgres_backend: Backend) -> None:
    """A query of several MB stalls in psycopg's pipeline mode: bulk writes are sent plainly."""
    store = postgres_backend.make()
    history = [user(f"message {i} " + "x" * 400) for i in range(6000)]  # about 2.7 MB
    store.create("big", history=history, summary=summary_msg("s", 5000), watermark=5000)
    assert store.append("bulk", history) == 6000
    assert store.append("bulk", history) == 6000  # all held: nothing added
    assert [m.id for m in store.history("big")] == [m.id for m in history]
    assert store.load("bulk").length == 6000 and len(store.load("big").tail) == 1000


# -- the full-text index ----------------------------------------------------------------------


def test_a_schema_from_before_the_search_index_is_indexed_by_its_searches(
    schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summem.stores.postgres import operations as pg_operations

    with PostgresStore(postgres_url(), schema=schema) as store:
        store.append("a", [user("the osprey nests"), user("plain"), user("osprey again")])
        store.append("b", [user("an osprey too"), user("unreadable osprey")])
    # as summem wrote it at schema version 1, with a record it cannot read
    pg_execute("ALTER TABLE {schema}.messages DROP COLUMN terms", schema=schema)
    pg_execute("ALTER TABLE {schema}.sessions DROP COLUMN indexed", schema=schema)
    pg_execute("DROP TABLE {schema}.spend, {schema}.spend_holds", schema=schema)
    pg_drop_branches(schema)
    pg_execute("UPDATE {schema}.summem_schema_version SET version = 1", schema=schema)
    pg_execute("UPDATE {schema}.messages SET body = 'junk' WHERE position = 1", schema=schema)
    monkeypatch.setattr(pg_operations, "CATCH_UP_CHUNK", 2)  # several transactions
    with PostgresStore(postgres_url(), schema=schema) as store:
        assert _indexed_rows(schema) == 0  # the migration builds nothing: the searches do
        assert [h.position for h in store.search("a", "osprey", k=5)] == [2, 0]
        assert [h.message.text for h in store.search("b", "osprey", k=5)] == ["an osprey too"]
        assert _indexed_rows(schema) == 3  # the unreadable records are not indexed
        store.append("a", [user("osprey, late")])
        assert _indexed_rows(schema) == 3  # an append writes no index...
        assert [h.position for h in store.search("a", "late osprey", k=1)] == [3]  # ...a search
        store.clear("a")
        assert store.search("a", "osprey", k=5) == []
        store.append("a", [user("osprey anew")])
        assert [h.message.text for h in store.search("a", "osprey", k=5)] == ["osprey anew"]
    q = 'SELECT version FROM "{}".summem_schema_version'.format(schema.replace('"', '""'))
    assert _rows(q) == [(len(MIGRATIONS),)]


def _indexed_rows(schema: str) -> int:
    name = schema.replace('"', '""')
    return int(_rows(f'SELECT count(*) FROM "{name}".messages WHERE terms IS NOT NULL')[0][0])


def test_long_and_many_words_fit_a_tsvector() -> None:
    from summem.stores.postgres.search import MAX_LEXEME, ts_query, ts_vector

    long_word = "x" * (MAX_LEXEME + 1)
    vector = ts_vector(user(f"{long_word} alpha " + "beta " * 20000))
    assert long_word not in vector and "'alpha':2" in vector
    assert vector.endswith(",16383")  # later positions share PostgreSQL's last one
    many = ts_vector(user(" ".join(f"w{i:07d}" for i in range(120_000))))
    assert 0 < len(many) < 1_048_576  # under PostgreSQL's limit for a tsvector
    assert ts_query(f"{long_word} the") is None and ts_query("a-b") == "'a-b' | 'b'"


def test_search_terms_reach_postgres_as_a_bound_tsquery(schema: str) -> None:
    with PostgresStore(postgres_url(), schema=schema) as store:
        store.append("s", [user("it's O'Brien's file: a\\b.txt")])
        for query in ("o'brien's", "'", "\\", "a\\b.txt", "!x & y | (z) <-> w:*"):
            store.search("s", query, k=3)  # never a syntax error
        assert [h.position for h in store.search("s", "O'Brien", k=3)] == [0]


# -- a wrong URL fails fast, with its cause, once ----------------------------------------------


def _wrong_urls() -> list[tuple[str, str]]:
    parts = urlsplit(POSTGRES_ADMIN_URL)
    missing_db = urlunsplit((parts.scheme, parts.netloc, "/summem_no_such_db", parts.query, ""))
    return [
        ("postgresql://postgres:pw-never-shown@127.0.0.1:1/postgres", "refused"),
        (missing_db, 'database "summem_no_such_db" does not exist'),
    ]


def count_connection_attempts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every connection attempt psycopg is asked for (the store's own and its pool's)."""
    import psycopg

    attempts: list[str] = []
    sync_connect = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]
    async_connect = psycopg.AsyncConnection.connect.__func__  # type: ignore[attr-defined]

    def counted(cls: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append("sync")
        return sync_connect(cls, *args, **kwargs)

    async def counted_async(cls: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append("async")
        return await async_connect(cls, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(counted))
    monkeypatch.setattr(psycopg.AsyncConnection, "connect", classmethod(counted_async))
    monkeypatch.setattr(psycopg, "connect", psycopg.Connection.connect)
    return attempts


@pytest.mark.parametrize("case", range(2))
def test_a_wrong_url_fails_on_the_first_connection_with_its_cause_in_one_line(
    case: int, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_postgres()
    url, cause = _wrong_urls()[case]
    attempts = count_connection_attempts(monkeypatch)
    with caplog.at_level(logging.DEBUG), pytest.raises(StoreError) as info:
        PostgresStore(url, timeout=20)  # the pool's wait is not what a wrong URL costs
    assert attempts == ["sync"]  # one attempt: it does not retry until the timeout
    text = str(info.value)
    assert cause in text and "\n" not in text and "PoolTimeout" not in text, text
    assert "summem_no_such_db" in text or "127.0.0.1:1" in text  # which URL (no password)
    assert "pw-never-shown" not in text
    said = [r.getMessage() for r in caplog.records if "error connecting" in r.getMessage()]
    assert not said, said


async def test_the_async_store_fails_on_the_first_connection_with_its_cause(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_postgres()
    attempts = count_connection_attempts(monkeypatch)
    for url, cause in _wrong_urls():
        store = AsyncPostgresStore(url, timeout=20)
        attempts.clear()
        with caplog.at_level(logging.DEBUG), pytest.raises(StoreError) as info:
            await store.load("s")
        assert attempts == ["async"]  # one attempt: it does not retry until the timeout
        assert cause in str(info.value) and "\n" not in str(info.value)
        await store.close()
    assert not [r for r in caplog.records if "error connecting" in r.getMessage()]


# -- the one-message append ---------------------------------------------------------------------


def test_a_schema_from_before_the_one_message_function_is_migrated_and_appends(
    schema: str,
) -> None:
    with PostgresStore(postgres_url(), schema=schema) as store:
        store.append("s", [user("a"), user("b")])
    # as summem wrote it at schema version 8: append_messages only
    pg_execute(
        "DROP FUNCTION {schema}.append_message(bytea, text, text, bytea, text, text)",
        schema=schema,
    )
    pg_execute("UPDATE {schema}.summem_schema_version SET version = 8", schema=schema)
    with PostgresStore(postgres_url(), schema=schema) as store:
        held = store.history("s")[0]
        assert store.append("s", [user("c")]) == 3
        assert store.append("s", [held]) == 3  # held: nothing added
        assert store.append("new", [user("x")]) == 1  # creates the session
        assert [m.text for m in store.history("s")] == ["a", "b", "c"]
        assert [m.text for m in store.history("new")] == ["x"]
    q = 'SELECT version FROM "{}".summem_schema_version'.format(schema.replace('"', '""'))
    assert _rows(q) == [(len(MIGRATIONS),)] == [(10,)]


def test_a_schema_from_before_the_probed_append_functions_is_migrated_and_reports(
    schema: str,
) -> None:
    with PostgresStore(postgres_url(), schema=schema) as store:
        store.append("s", [user("a")])
        epoch = store.probe("s")
    # as summem wrote it at schema version 9: no append_message_probed / _messages_probed
    for function in (
        "append_message_probed(bytea, text, text, bytea, text, text)",
        "append_messages_probed(bytea, text, text, bytea[], text[], text[])",
    ):
        pg_execute(f"DROP FUNCTION {{schema}}.{function}", schema=schema)
    pg_execute("UPDATE {schema}.summem_schema_version SET version = 9", schema=schema)
    with PostgresStore(postgres_url(), schema=schema) as store:
        assert epoch is not None
        assert store.append_probe("s", [user("b")]) == (epoch[0], 0, 2)
        assert store.append_probe("s", [user("c"), user("d")]) == (epoch[0], 0, 4)
    q = 'SELECT version FROM "{}".summem_schema_version'.format(schema.replace('"', '""'))
    assert _rows(q) == [(len(MIGRATIONS),)] == [(10,)]


def test_a_one_message_append_runs_the_one_message_function(
    schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    sent: list[str] = []
    real = psycopg.Connection.execute

    def execute(conn: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(query.decode() if isinstance(query, bytes) else str(query))
        return real(conn, query, *args, **kwargs)

    with PostgresStore(postgres_url(), schema=schema) as store:
        store.append("s", [user("a")])
        monkeypatch.setattr(psycopg.Connection, "execute", execute)
        assert store.append("s", [user("b")]) == 2
        assert store.append("s", [user("c"), user("d")]) == 4
        monkeypatch.undo()
        assert [m.text for m in store.history("s")] == ["a", "b", "c", "d"]
    assert len(sent) == 2
    assert ".append_message(" in sent[0]  # no arrays to build, unnest or loop over
    assert ".append_messages(" in sent[1]
