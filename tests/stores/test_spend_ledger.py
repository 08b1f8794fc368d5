"""The spend ledger in the stores: one budget across restarts, processes and store connections."""

from __future__ import annotations

import logging
import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from summem import AsyncMemory, Memory
from summem.errors import ConfigurationError, StoreError
from summem.events import ReductionCommitted, ReductionFailed, SpendLimitReached
from summem.messages import user
from summem.observe import SpendLimit
from summem.observe.ledger import AsyncSpendLedger, LocalSpendLedger, SpendLedger, Spent
from summem.observe.spend import LEDGER_RETENTION_SECONDS
from summem.stores import (
    AsyncInMemoryStore,
    AsyncSQLiteStore,
    AsyncStoreAdapter,
    InMemoryStore,
    SQLiteStore,
)
from summem.stores.postgres.schema import MIGRATIONS as PG_MIGRATIONS
from summem.stores.sqlite.schema import MIGRATIONS
from tests.fakes.llm import FakeClock
from tests.fakes.messages import u
from tests.fakes.replies import OPENAI_URL, openai_completion
from tests.observe.harness import Recorder, settle
from tests.observe.test_spend import chain_reducer
from tests.stores.backends import (
    Backend,
    pg_execute,
    postgres_url,
    require_postgres,
    unique_prefix,
)
from tests.stores.helpers import pg_drop_branches, sqlite_drop_branches

CALL = 132  # tokens of one mocked LLM call (120 in, 12 out)


# -- the capability, on every store ------------------------------------------------------------


def test_entries_sum_by_key_and_window_and_prune(backend: Backend) -> None:
    store: Any = backend.make()
    assert isinstance(backend.raw(store), SpendLedger | AsyncSpendLedger)
    store.record_spend("session:a", at=100.0, tokens=10, cost_usd=0.25)
    store.record_spend("session:a", at=200.0, tokens=20, cost_usd=0.5)
    store.record_spend("session:a:b", at=150.0, tokens=1000, cost_usd=9.0)  # another key
    store.record_spend("session:a", at=300.0, tokens=0, cost_usd=0.0)
    assert store.spent_since("session:a") == Spent(30, 0.75)
    assert store.spent_since("session:a", None) == Spent(30, 0.75)
    assert store.spent_since("session:a", 100.0) == Spent(20, 0.5)  # after, not at
    assert store.spent_since("session:a", 99.5) == Spent(30, 0.75)
    assert store.spent_since("session:nobody") == Spent(0, 0.0)
    other: Any = backend.make()  # another connection (another process, for the shared stores)
    assert other.spent_since("session:a:b", 0) == Spent(1000, 9.0)
    other.record_spend("session:a", at=400.0, tokens=5, cost_usd=0.0, prune_before=200.0)
    assert store.spent_since("session:a") == Spent(5, 0.0)  # 100 and 200 pruned, 300 was 0
    assert store.spent_since("session:a:b") == Spent(1000, 9.0)  # pruning is per key
    assert store.list_sessions() == []  # the ledger is not a session


def test_keys_are_kept_apart_and_long_keys_fit(backend: Backend) -> None:
    store: Any = backend.make()
    long_key = "prefix:" + "é" * 1000  # 2 KB of UTF-8: past a B-tree entry, so hashed
    store.record_spend(long_key, at=1.0, tokens=3, cost_usd=0.0)
    store.record_spend(long_key[:-1], at=1.0, tokens=4, cost_usd=0.0)
    store.record_spend("session:{x}", at=1.0, tokens=5, cost_usd=0.0)
    assert store.spent_since(long_key).tokens == 3
    assert store.spent_since(long_key[:-1]).tokens == 4
    assert store.spent_since("session:{x}").tokens == 5
    store.append("s", [user("hello")])
    store.delete("s")
    assert store.spent_since("session:{x}").tokens == 5  # deleting sessions keeps the spend


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"key": ""}, "spend key must be a non-empty string"),
        ({"key": None}, "spend key must be a non-empty string"),
        ({"key": "a\nb"}, "control characters"),
        ({"key": "k" * 1101}, "1101 characters; the limit is 1100"),
        ({"key": "\ud800"}, "valid unicode"),
        ({"at": math.inf}, "at must be a finite number"),
        ({"at": None}, "at must be a finite number"),
        ({"at": "now"}, "at must be a finite number"),
        ({"tokens": -1}, "tokens must be an int >= 0"),
        ({"tokens": True}, "tokens must be an int >= 0"),
        ({"tokens": 1.5}, "tokens must be an int >= 0"),
        ({"cost_usd": -0.5}, "cost_usd must be a finite number >= 0"),
        ({"cost_usd": math.nan}, "cost_usd must be a finite number >= 0"),
        ({"cost_usd": "1"}, "cost_usd must be a finite number >= 0"),
        ({"prune_before": math.nan}, "prune_before must be a finite number"),
    ],
)
def test_bad_entries_are_refused_and_nothing_is_recorded(
    backend: Backend, kwargs: dict[str, Any], match: str
) -> None:
    store: Any = backend.make()
    entry: dict[str, Any] = {"key": "k", "at": 1.0, "tokens": 1, "cost_usd": 0.1}
    entry.update(kwargs)
    key = entry.pop("key")
    with pytest.raises(ConfigurationError, match=match):
        store.record_spend(key, **entry)
    assert store.spent_since("k") == Spent(0, 0.0)


@pytest.mark.parametrize(
    ("key", "since", "match"),
    [("", None, "spend key"), ("k", math.inf, "since must be"), ("k", "0", "since must be")],
)
def test_bad_reads_are_refused(backend: Backend, key: Any, since: Any, match: str) -> None:
    store: Any = backend.make()
    with pytest.raises(ConfigurationError, match=match):
        store.spent_since(key, since)


def test_an_adapter_over_a_sync_ledger_offers_it_to_async_memories() -> None:
    from summem.session.steps import AsyncStoreSteps, SyncStoreSteps

    class Plain:  # a store without a ledger
        pass

    assert AsyncStoreSteps(AsyncStoreAdapter(InMemoryStore())).spend_ledger
    assert not SyncStoreSteps(Plain()).spend_ledger  # type: ignore[arg-type]
    steps = AsyncStoreSteps(AsyncStoreAdapter(Plain()))  # type: ignore[arg-type]
    assert not steps.spend_ledger
    with pytest.raises(TypeError, match="no spend ledger"):
        steps.spent_since("k", None)
    assert isinstance(AsyncInMemoryStore(), AsyncSpendLedger)
    assert isinstance(LocalSpendLedger(), SpendLedger)


# -- memories sharing a budget through the store -----------------------------------------------


def _open(backend: Backend, mode: str) -> Any:
    """A store of its own (its own connections) on the backend's data, sync or async."""
    return backend.native(mode)


def _memory(mode: str, store: Any, session_id: str, limit: SpendLimit, rec: Recorder) -> Any:
    facade: Any = Memory if mode == "sync" else AsyncMemory
    return facade(session_id, store=store, reducer=chain_reducer(), hooks=[rec], spend_limit=limit)


async def _fill(memory: Any, n: int, tag: str) -> None:
    for i in range(n):
        await settle(memory.add(u(f"{tag}{i} " + "word " * 6)))


def _mock_llm() -> Any:
    reply = openai_completion("A short summary.", usage=(120, 12))
    return respx.post(OPENAI_URL).mock(return_value=httpx.Response(200, json=reply))


@respx.mock
async def test_two_memories_on_separate_connections_share_a_tenant_budget(
    persistent: Backend,
) -> None:
    route = _mock_llm()
    mode = persistent.mode
    first, second = _open(persistent, mode), _open(persistent, mode)
    rec1, rec2 = Recorder(), Recorder()
    # one limit object each: two processes, sharing nothing but the store
    limit1 = SpendLimit(max_tokens=300, scope="prefix")
    limit2 = SpendLimit(max_tokens=300, scope="prefix")
    one = _memory(mode, first, "acme:chat-1", limit1, rec1)
    two = _memory(mode, second, "acme:chat-2", limit2, rec2)
    zeta = SpendLimit(max_tokens=300, scope="prefix")
    other = _memory(mode, second, "zeta:chat-1", zeta, Recorder())
    try:
        await _fill(one, 60, "a")
        assert route.call_count == 3  # 3 x 132 tokens pass the limit
        await _fill(two, 40, "b")
        assert route.call_count == 3  # the other memory sees the tenant's spend
        assert rec2.of(ReductionCommitted) and not [
            e for e in rec2.of(ReductionCommitted) if e.summarizer != "extractive"
        ]
        reached = rec2.of(SpendLimitReached)
        assert reached and reached[0].key == "acme" and reached[0].spent_tokens == 3 * CALL
        assert limit2.spent("acme").tokens == 0  # nothing went through limit2 itself
        await _fill(other, 20, "c")
        assert route.call_count > 3  # another tenant has a budget of its own
    finally:
        for memory in (one, two, other):
            await settle(memory.close())
        for store in (first, second):
            await settle(store.close())


@respx.mock
async def test_a_restart_keeps_the_spend(tmp_path: Path) -> None:
    route = _mock_llm()
    path = tmp_path / "file.db"
    with SQLiteStore(path) as store:
        memory = Memory(
            "s", store=store, reducer=chain_reducer(), spend_limit=SpendLimit(max_tokens=300)
        )
        await _fill(memory, 60, "a")
        memory.close()
    assert route.call_count == 3
    rec = Recorder()
    with SQLiteStore(path) as store:  # a new process: a new store, a new limit
        again = Memory(
            "s",
            store=store,
            reducer=chain_reducer(),
            hooks=[rec],
            spend_limit=SpendLimit(max_tokens=300),
        )
        await _fill(again, 30, "b")
        assert route.call_count == 3
        assert rec.of(SpendLimitReached)[0].spent_tokens == 3 * CALL
        assert {e.summarizer for e in rec.of(ReductionCommitted)} == {"extractive"}
        again.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
@respx.mock
async def test_spend_leaves_the_window_and_the_llm_is_called_again(
    tmp_path: Path, mode: str
) -> None:
    route = _mock_llm()
    clock = FakeClock()
    limit = SpendLimit(max_tokens=300, window_seconds=60, clock=clock)
    path = tmp_path / "w.db"
    store: Any = SQLiteStore(path) if mode == "sync" else AsyncSQLiteStore(path)
    memory = (Memory if mode == "sync" else AsyncMemory)(
        "s", store=store, reducer=chain_reducer(), spend_limit=limit
    )
    await _fill(memory, 60, "a")
    assert route.call_count == 3
    clock.advance(30)
    await _fill(memory, 10, "b")
    assert route.call_count == 3  # still in the window
    clock.advance(31)  # the three calls leave it
    await _fill(memory, 10, "c")
    assert route.call_count > 3
    calls = route.call_count
    with SQLiteStore(path) as raw:  # what left the window is kept a week (other limits' windows)
        assert raw.spent_since("session:s").tokens == calls * CALL
        assert raw.spent_since("session:s", limit.horizon()).tokens == (calls - 3) * CALL
    clock.advance(LEDGER_RETENTION_SECONDS)
    await _fill(memory, 30, "d")
    assert route.call_count > calls
    with SQLiteStore(path) as raw:  # then a write prunes it
        assert raw.spent_since("session:s").tokens == (route.call_count - calls) * CALL
    await settle(memory.close())
    await settle(store.close())


# -- migrations keep what is stored ------------------------------------------------------------


def test_a_sqlite_file_from_before_the_ledger_is_migrated_and_keeps_its_sessions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    with SQLiteStore(path) as store:
        store.append("s", [user("one"), user("two")])
        store.record_spend("session:s", at=1.0, tokens=1, cost_usd=0.0)
    conn = sqlite3.connect(path)  # as summem wrote it at schema version 3
    conn.execute("DROP TABLE spend")
    conn.execute("DROP TABLE spend_holds")
    sqlite_drop_branches(conn)
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        assert [m.text for m in store.history("s")] == ["one", "two"]
        assert store.search("s", "two", k=1)[0].message.text == "two"
        assert store.spent_since("session:s") == Spent(0, 0.0)
        store.record_spend("session:s", at=2.0, tokens=7, cost_usd=0.5)
        assert store.spent_since("session:s") == Spent(7, 0.5)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 8
    conn.close()


@pytest.fixture
def schema() -> Iterator[str]:
    require_postgres()
    name = unique_prefix()
    yield name
    pg_execute("DROP SCHEMA IF EXISTS {schema} CASCADE", schema=name)


@pytest.mark.postgres
def test_a_postgres_schema_from_before_the_ledger_is_migrated(schema: str) -> None:
    from summem.stores.postgres import PostgresStore

    with PostgresStore(postgres_url(), schema=schema) as store:
        store.append("s", [user("one"), user("two")])
    pg_execute("DROP TABLE {schema}.spend, {schema}.spend_holds", schema=schema)
    pg_drop_branches(schema)
    pg_execute("UPDATE {schema}.summem_schema_version SET version = 2", schema=schema)
    with PostgresStore(postgres_url(), schema=schema) as store:
        assert [m.text for m in store.history("s")] == ["one", "two"]
        store.record_spend("prefix:t", at=2.0, tokens=7, cost_usd=0.5, prune_before=1.0)
        assert store.spent_since("prefix:t") == Spent(7, 0.5)
    rows = pg_execute(
        "SELECT 1 FROM {schema}.summem_schema_version WHERE version = %s",
        len(PG_MIGRATIONS),
        schema=schema,
    )
    assert rows == 1


class _BrokenLedger(InMemoryStore):
    """A store whose ledger cannot be written (``reads=False``: nor read)."""

    reads = True

    def record_spend(self, key: str, **kwargs: Any) -> None:
        raise StoreError("ledger is down")

    def spent_since(self, key: str, since: float | None = None) -> Spent:
        if not self.reads:
            raise StoreError("ledger is down")
        return super().spent_since(key, since)

    def reserve_spend(self, key: str, hold: Any) -> Any:
        if not self.reads:
            raise StoreError("ledger is down")
        return super().reserve_spend(key, hold)

    def settle_spend(self, key: str, hold_id: str, **kwargs: Any) -> None:
        raise StoreError("ledger is down")


@respx.mock
async def test_an_unwritable_ledger_is_logged_and_an_unreadable_one_fails_the_reduction(
    caplog: pytest.LogCaptureFixture,
) -> None:
    route = _mock_llm()
    store = _BrokenLedger()
    rec = Recorder()
    limit = SpendLimit(max_tokens=300)
    memory = Memory("s", store=store, reducer=chain_reducer(), hooks=[rec], spend_limit=limit)
    with caplog.at_level(logging.WARNING, logger="summem"):
        await _fill(memory, 60, "a")
    assert "spend for 's' not recorded in the store: ledger is down" in caplog.text
    # this process knows what it spent; the store still holds the call's estimate (its
    # hold was never settled), which keeps the budget until the hold lapses
    assert route.call_count == 1 and limit.spent("s").tokens == CALL
    store.reads = False
    calls = route.call_count
    with pytest.raises(StoreError, match="ledger is down"):
        await _fill(memory, 20, "b")
    failed = rec.of(ReductionFailed)
    assert failed and failed[-1].error_type == "StoreError" and route.call_count == calls
    texts = [m["content"].split()[0] for m in memory.history()]
    added = len(texts) - 60  # up to the turn whose reduction failed, that one included
    assert added > 0 and texts == [f"a{i}" for i in range(60)] + [f"b{i}" for i in range(added)]


def test_an_entry_older_than_its_own_window_is_pruned_at_once(backend: Backend) -> None:
    store: Any = backend.make()
    store.record_spend("k", at=10.0, tokens=5, cost_usd=0.0)
    store.record_spend("k", at=1.0, tokens=7, cost_usd=0.0, prune_before=10.0)  # a late clock
    assert store.spent_since("k") == Spent(0, 0.0)
    store.record_spend("k", at=11.0, tokens=2, cost_usd=0.0)
    assert store.spent_since("k") == Spent(2, 0.0)


@respx.mock
async def test_a_recompute_is_charged_to_the_budget_in_the_store(tmp_path: Path) -> None:
    route = _mock_llm()
    path = tmp_path / "r.db"
    with SQLiteStore(path) as store:
        limit = SpendLimit(max_tokens=10_000)
        memory = Memory("s", store=store, reducer=chain_reducer(), spend_limit=limit)
        await _fill(memory, 30, "a")
        reductions = route.call_count
        assert memory.recompute() is not None
        rebuilt = route.call_count - reductions
        assert rebuilt >= 1
        assert store.spent_since("session:s").tokens == route.call_count * CALL
        assert limit.spent("s").tokens == route.call_count * CALL
        memory.close()


def test_a_budget_without_a_store_ledger_keeps_the_spend_in_the_limit() -> None:
    from summem._flow import run_sync
    from summem.session.budget import Budget

    limit = SpendLimit(max_tokens=10)
    budget = Budget(limit, None)
    limit.charge("s", 5, 0.0)
    assert run_sync(budget.spent("s")) == Spent(5, 0.0)
    run_sync(budget.charge("s", 3, 0.25))
    assert limit.spent("s") == Spent(8, 0.25) and limit.within(Spent(8, 0.25))


@respx.mock
async def test_an_async_memory_over_a_sync_store_uses_its_ledger(tmp_path: Path) -> None:
    route = _mock_llm()
    path = tmp_path / "a.db"
    store = SQLiteStore(path)  # AsyncMemory wraps it in an AsyncStoreAdapter
    memory = AsyncMemory(
        "s", store=store, reducer=chain_reducer(), spend_limit=SpendLimit(max_tokens=300)
    )
    await _fill(memory, 60, "a")
    assert route.call_count == 3
    await memory.close()
    store.close()
    with SQLiteStore(path) as again:
        assert again.spent_since("session:s").tokens == 3 * CALL


def test_a_corrupt_redis_spend_entry_is_reported(redis_backend: Backend) -> None:
    from summem.errors import CorruptRecordError

    store = redis_backend.native("sync")
    store.record_spend("k", at=1.0, tokens=1, cost_usd=0.0)
    redis_backend.redis_client().zadd(store._spend_key("k"), {"not-an-entry": 2.0})
    with pytest.raises(CorruptRecordError, match="a spend entry of 'k' is invalid"):
        store.spent_since("k")
    store.close()


def test_a_redis_spend_set_expires_after_its_retention(redis_backend: Backend) -> None:
    store = redis_backend.native("sync")
    try:
        store.record_spend("kept", at=1.0, tokens=1, cost_usd=0.0)  # no window: never expires
        store.record_spend("k", at=1000.0, tokens=1, cost_usd=0.0, prune_before=1000.0 - 3600)
        client = redis_backend.redis_client()
        assert client.pttl(store._spend_key("kept")) == -1
        assert 0 < client.pttl(store._spend_key("k")) <= 3_600_000
    finally:
        store.close()
