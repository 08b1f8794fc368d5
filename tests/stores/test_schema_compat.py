"""The "compatible down to" marker: an older summem opens data a newer one migrated, if allowed.

Each store's data is faked at a newer schema the way a future summem would leave it (a new
column and table, the version bumped, the marker recorded), then opened by this summem.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from summem.errors import SchemaVersionError
from summem.messages import SummaryInfo, assistant, user
from summem.stores import PostgresStore, SQLiteStore
from summem.stores.common.schema_compat import check_declarations, check_schema, compatible_down_to
from summem.stores.postgres.schema import COMPATIBLE as PG_COMPATIBLE
from summem.stores.postgres.schema import MIGRATIONS as PG_MIGRATIONS
from summem.stores.redis.operations import COMPATIBLE as REDIS_COMPATIBLE
from summem.stores.redis.operations import SCHEMA_VERSION as REDIS_SCHEMA
from summem.stores.sqlite import AsyncSQLiteStore
from summem.stores.sqlite.schema import COMPATIBLE, MIGRATIONS
from tests.stores.backends import (
    REDIS_URL,
    pg_execute,
    postgres_url,
    require_postgres,
    unique_prefix,
)
from tests.stores.backends import require_redis as _require_redis
from tests.stores.helpers import pg_drop_branches, sqlite_drop_branches, summary_msg

KNOWN = len(MIGRATIONS)


# -- the rule -------------------------------------------------------------------------------


def test_the_marker_is_the_most_any_applied_migration_declared() -> None:
    assert compatible_down_to((1, 1, 3, 3), 4) == 3
    assert compatible_down_to((1, 1, 3, 3), 2) == 1
    assert compatible_down_to((1, 3, 2), 3) == 3  # a later, lower declaration cannot lower it
    assert compatible_down_to((1,), 0) == 0
    assert compatible_down_to(COMPATIBLE, KNOWN) == 7  # SQLite today (the bounded log, #30)
    assert compatible_down_to(PG_COMPATIBLE, len(PG_MIGRATIONS)) == 7  # PostgreSQL (the log)
    assert compatible_down_to(REDIS_COMPATIBLE, REDIS_SCHEMA) == 3  # Redis (the session index)


def test_declarations_that_cannot_be_right_fail() -> None:
    check_declarations((1, 1, 3), 3)
    for declared, n in [((1, 1), 3), ((0,), 1), ((1, 3), 2), ((2,), 1)]:
        with pytest.raises(AssertionError):
            check_declarations(declared, n)


def test_check_schema(caplog: pytest.LogCaptureFixture) -> None:
    assert check_schema("x", stored=4, known=4, compatible=None) == "current"
    assert check_schema("x", stored=2, known=4, compatible=None) == "older"
    with caplog.at_level(logging.WARNING, logger="summem.stores"):
        assert check_schema("'a.db'", stored=6, known=4, compatible=4) == "newer"
    assert "'a.db' has schema version 6, newer than this summem knows (4)" in caplog.text
    assert "compatible down to 4, so it is used as it is (not migrated down)" in caplog.text
    with pytest.raises(SchemaVersionError) as info:
        check_schema("'a.db'", stored=6, known=4, compatible=5)
    error = info.value
    assert (error.stored, error.known, error.compatible) == (6, 4, 5)
    assert "compatible down to schema version 5 only: upgrade summem" in str(error)
    assert "restore the backup taken before it" in str(error)
    with pytest.raises(SchemaVersionError, match="records no marker") as info:
        check_schema("'a.db'", stored=5, known=4, compatible=None)
    assert info.value.compatible is None


# -- SQLite -----------------------------------------------------------------------------------


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sqlite_marker(path: Path) -> tuple[int, tuple[Any, ...] | None]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        row = conn.execute("SELECT version, compatible FROM summem_schema").fetchone()
    finally:
        conn.close()
    return version, row


def future_sqlite(path: Path, *, compatible: int | None, marker_for: int = KNOWN + 1) -> str:
    """A database as a summem at schema KNOWN + 1 would leave it; returns its digest."""
    with SQLiteStore(path) as store:
        store.append("s", [user("from before"), assistant("noted")])
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE sessions ADD COLUMN labels TEXT")  # what the future added
    conn.execute("CREATE TABLE future_things (x INTEGER)")
    conn.execute(f"PRAGMA user_version = {KNOWN + 1}")
    if compatible is None:
        conn.execute("DROP TABLE summem_schema")
    else:
        conn.execute(
            "UPDATE summem_schema SET version = ?, compatible = ?", (marker_for, compatible)
        )
    conn.commit()
    conn.close()
    return digest(path)


def test_sqlite_records_the_marker_when_it_migrates(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SQLiteStore(path).close()
    assert sqlite_marker(path) == (KNOWN, (KNOWN, 7))
    old = tmp_path / "old.db"  # written before markers: migrated, it gets one
    SQLiteStore(old).close()
    conn = sqlite3.connect(old)
    conn.execute("DROP TABLE summem_schema")
    conn.execute("DROP TABLE spend")
    conn.execute("DROP TABLE spend_holds")
    sqlite_drop_branches(conn)
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    SQLiteStore(old).close()
    assert sqlite_marker(old) == (KNOWN, (KNOWN, 7))


def test_sqlite_newer_but_compatible_is_used_as_it_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.db"
    future_sqlite(path, compatible=KNOWN)
    with caplog.at_level(logging.WARNING, logger="summem.stores"), SQLiteStore(path) as store:
        assert store.read_only is False
        state = store.load("s")
        assert [m.text for m in state.tail] == ["from before", "noted"]
        assert store.append("s", [user("after the rollback")]) == 3
        summary = summary_msg("earlier: greetings", watermark=2)
        assert store.commit(
            "s", summary=summary, watermark=2, expected_version=0, expected_epoch=state.epoch
        )
        store.record_spend("t", at=1.0, tokens=1, cost_usd=0.25)
        assert [m.text for m in store.history("s")][-1] == "after the rollback"
    assert f"schema version {KNOWN + 1}, newer than this summem knows ({KNOWN})" in caplog.text
    # nothing migrated down or stamped over: the future's version, marker and shape stay
    assert sqlite_marker(path) == (KNOWN + 1, (KNOWN + 1, KNOWN))
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT labels FROM sessions").fetchall() == [(None,)]
    conn.execute("SELECT x FROM future_things").fetchall()
    conn.close()


def test_sqlite_newer_and_compatible_opens_read_only_and_async_too(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    future_sqlite(path, compatible=2)
    with SQLiteStore(path, read_only=True) as store:  # root may write a 444 file: ask
        assert store.read_only is True and store.list_sessions() == ["s"]

    async def scenario() -> list[str]:
        async with AsyncSQLiteStore(path, read_only=True) as store:
            return [m.text for m in await store.history("s")]

    assert asyncio.run(scenario()) == ["from before", "noted"]


@pytest.mark.parametrize(
    ("compatible", "marker_for", "why"),
    [
        (KNOWN + 1, KNOWN + 1, f"compatible down to schema version {KNOWN + 1} only"),
        (None, KNOWN + 1, "records no marker"),
        (2, KNOWN, "records no marker"),  # recorded for another version: says nothing here
    ],
)
def test_sqlite_newer_and_not_compatible_is_refused_naming_both_versions(
    tmp_path: Path, compatible: int | None, marker_for: int, why: str
) -> None:
    path = tmp_path / "s.db"
    before = future_sqlite(path, compatible=compatible, marker_for=marker_for)
    with pytest.raises(SchemaVersionError) as info:
        SQLiteStore(path)
    text = str(info.value)
    assert f"has schema version {KNOWN + 1}, newer than this summem knows ({KNOWN})" in text
    assert why in text and "upgrade summem" in text
    assert (info.value.stored, info.value.known) == (KNOWN + 1, KNOWN)
    assert digest(path) == before
    with pytest.raises(SchemaVersionError):  # read-only too
        SQLiteStore(path, read_only=True)


# -- PostgreSQL -------------------------------------------------------------------------------


@pytest.fixture
def schema() -> Iterator[str]:
    require_postgres()
    name = unique_prefix()
    yield name
    pg_execute("DROP SCHEMA IF EXISTS {schema} CASCADE", schema=name)


def pg_version_row(schema: str) -> tuple[Any, ...]:
    import psycopg
    from psycopg import sql

    query = sql.SQL("SELECT version, compatible, compatible_for FROM {}.summem_schema_version")
    with psycopg.connect(postgres_url(), autocommit=True) as conn:
        row = conn.execute(query.format(sql.Identifier(schema))).fetchone()
    assert row is not None
    return tuple(row)


def future_postgres(schema: str, *, compatible: int | None, marker_for: int | None) -> None:
    with PostgresStore(postgres_url(), schema=schema) as store:
        store.append("s", [user("from before"), assistant("noted")])
    latest = len(PG_MIGRATIONS)
    pg_execute("ALTER TABLE {schema}.sessions ADD COLUMN labels text", schema=schema)
    pg_execute(
        "UPDATE {schema}.summem_schema_version SET version = %s, compatible = %s, "
        "compatible_for = %s",
        latest + 1,
        compatible,
        marker_for,
        schema=schema,
    )


@pytest.mark.postgres
def test_postgres_records_the_marker_and_uses_a_newer_compatible_schema(schema: str) -> None:
    latest = len(PG_MIGRATIONS)
    PostgresStore(postgres_url(), schema=schema).close()
    assert pg_version_row(schema) == (latest, 7, latest)
    future_postgres(schema, compatible=latest, marker_for=latest + 1)
    with PostgresStore(postgres_url(), schema=schema) as store:
        state = store.load("s")
        assert [m.text for m in state.tail] == ["from before", "noted"]
        assert store.append("s", [user("after the rollback")]) == 3
        summary = summary_msg("earlier", watermark=2)
        store.commit(
            "s", summary=summary, watermark=2, expected_version=0, expected_epoch=state.epoch
        )
        assert store.load("s").watermark == 2
    assert pg_version_row(schema) == (latest + 1, latest, latest + 1)  # left as it was


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("compatible", "marker_for", "why"),
    [
        (len(PG_MIGRATIONS) + 1, len(PG_MIGRATIONS) + 1, "compatible down to schema version"),
        (None, None, "records no marker"),
        (2, 3, "records no marker"),  # recorded for another version
    ],
)
def test_postgres_newer_and_not_compatible_is_refused(
    schema: str, compatible: int | None, marker_for: int | None, why: str
) -> None:
    latest = len(PG_MIGRATIONS)
    future_postgres(schema, compatible=compatible, marker_for=marker_for)
    with pytest.raises(SchemaVersionError) as info:
        PostgresStore(postgres_url(), schema=schema)
    assert f"has schema version {latest + 1}, newer than this summem knows ({latest})" in str(
        info.value
    )
    assert why in str(info.value)
    assert pg_version_row(schema) == (latest + 1, compatible, marker_for)


@pytest.mark.postgres
def test_postgres_version_table_from_before_the_marker_is_read_and_upgraded(schema: str) -> None:
    """A table without the marker's columns (written before them) reads as no marker, and
    the next migration adds them."""
    latest = len(PG_MIGRATIONS)
    PostgresStore(postgres_url(), schema=schema).close()
    pg_execute(
        "ALTER TABLE {schema}.summem_schema_version DROP COLUMN compatible, "
        "DROP COLUMN compatible_for",
        schema=schema,
    )
    PostgresStore(postgres_url(), schema=schema).close()  # current: nothing to do
    pg_execute("UPDATE {schema}.summem_schema_version SET version = %s", latest + 1, schema=schema)
    with pytest.raises(SchemaVersionError, match="records no marker"):
        PostgresStore(postgres_url(), schema=schema)
    pg_execute("DROP TABLE {schema}.spend, {schema}.spend_holds", schema=schema)
    pg_drop_branches(schema)
    pg_execute("UPDATE {schema}.summem_schema_version SET version = 2", schema=schema)
    with PostgresStore(postgres_url(), schema=schema) as store:
        assert store.spent_since("t").tokens == 0  # migrated: the ledger is back
    assert pg_version_row(schema) == (latest, 7, latest)


# -- Redis ------------------------------------------------------------------------------------


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    _require_redis()
    import redis

    prefix = unique_prefix()
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)
    client.close()


def set_redis_schema(prefix: str, **fields: int) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    client.hset(f"{prefix}:schema", mapping={k: str(v) for k, v in fields.items()})
    client.close()


@pytest.mark.redis
def test_redis_without_a_schema_hash_is_schema_1_and_gets_none(redis_prefix: str) -> None:
    import redis

    from summem.stores import RedisStore

    with RedisStore(REDIS_URL, prefix=redis_prefix) as store:
        store.append("s", [user("hi")])
        assert store.list_sessions() == ["s"]
    client = redis.Redis.from_url(REDIS_URL)
    assert not client.exists(f"{redis_prefix}:schema")  # no stub yet: nothing is stamped
    client.close()


@pytest.mark.redis
@pytest.mark.parametrize("sync", [True, False])
def test_redis_is_stamped_schema_2_before_a_commit_may_stub_a_summary(
    redis_prefix: str, sync: bool
) -> None:
    """A summem before the bounded log would make a stub current: it must refuse the prefix."""
    import redis

    from summem.stores import AsyncRedisStore, RedisStore
    from summem.stores.redis.operations import SCHEMA_VERSION

    summary = user("the gist").as_summary(SummaryInfo(watermark=1, summarizer="extractive"))
    client = redis.Redis.from_url(REDIS_URL)
    key = f"{redis_prefix}:schema"
    if sync:
        with RedisStore(REDIS_URL, prefix=redis_prefix) as store:
            store.append("s", [user("hi"), user("there")])
            state = store.load("s")
            version = store.commit(
                "s",
                summary=None,
                watermark=0,
                expected_version=state.version,
                expected_epoch=state.epoch,
            )  # keeps all
            assert not client.exists(key)
            store.commit(
                "s",
                summary=summary,
                watermark=1,
                expected_version=version,
                expected_epoch=state.epoch,
                keep_summaries=3,
            )
    else:

        async def scenario() -> None:
            async with AsyncRedisStore(REDIS_URL, prefix=redis_prefix) as store:
                await store.append("s", [user("hi"), user("there")])
                state = await store.load("s")
                version = await store.commit(
                    "s",
                    summary=None,
                    watermark=0,
                    expected_version=state.version,
                    expected_epoch=state.epoch,
                )
                assert not client.exists(key)
                await store.commit(
                    "s",
                    summary=summary,
                    watermark=1,
                    expected_version=version,
                    expected_epoch=state.epoch,
                    keep_summaries=3,
                )

        asyncio.run(scenario())
    raw: dict[bytes, bytes] = client.hgetall(key)  # type: ignore[assignment]
    stamped = {k.decode(): int(v) for k, v in raw.items()}
    client.close()
    assert SCHEMA_VERSION == 3  # 3: the session index (redis/operations.py COMPATIBLE)
    assert stamped == {"version": 3, "compatible": 3, "compatible_for": 3}
    for older in (1, 2):  # before the bounded log, before the session index
        with pytest.raises(SchemaVersionError, match="down to schema version 3 only"):
            check_schema("x", stored=3, known=older, compatible=stamped["compatible"])
    with RedisStore(REDIS_URL, prefix=redis_prefix) as store:  # this summem reads it on
        assert store.summaries("s")[0].text == "the gist"


@pytest.mark.redis
def test_redis_newer_but_compatible_is_used(redis_prefix: str) -> None:
    from summem.stores import RedisStore

    set_redis_schema(redis_prefix, version=4, compatible=1, compatible_for=4)
    with RedisStore(REDIS_URL, prefix=redis_prefix) as store:
        store.append("s", [user("hi")])
        assert [m.text for m in store.history("s")] == ["hi"]


@pytest.mark.redis
@pytest.mark.parametrize("sync", [True, False])
@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"version": 4, "compatible": 4, "compatible_for": 4}, "down to schema version 4 only"),
        ({"version": 4}, "records no marker"),
        ({"version": 5, "compatible": 1, "compatible_for": 4}, "records no marker"),
    ],
)
def test_redis_newer_and_not_compatible_is_refused_before_any_command(
    redis_prefix: str, fields: dict[str, int], why: str, sync: bool
) -> None:
    from summem.stores import AsyncRedisStore, RedisStore

    set_redis_schema(redis_prefix, **fields)
    where = f"Redis prefix {redis_prefix!r} has schema version {fields['version']}, newer"
    if sync:
        with RedisStore(REDIS_URL, prefix=redis_prefix) as store:
            for call in (lambda: store.append("s", [user("hi")]), store.list_sessions):
                with pytest.raises(SchemaVersionError, match=why) as info:
                    call()
                assert where in str(info.value)
            assert not store._schema_checked
    else:

        async def scenario() -> None:
            async with AsyncRedisStore(REDIS_URL, prefix=redis_prefix) as store:
                with pytest.raises(SchemaVersionError, match=why):
                    await store.append("s", [user("hi")])
                with pytest.raises(SchemaVersionError, match=why):
                    await store.list_sessions()

        asyncio.run(scenario())
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = sorted(client.scan_iter(match=f"{redis_prefix}:*"))
    client.close()
    assert keys == [f"{redis_prefix}:schema".encode()]  # no session was written
