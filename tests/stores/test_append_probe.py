"""``ProbingAppendStore.append_probe``: an append that reports the session's state in one call.

A memory with a dispatcher learns from it whether a worker committed (the version moved), so
its turn costs one round trip (``tests/stores/test_round_trips.py`` counts them). Here: it
appends exactly as ``append`` does, and the epoch and version it reports are never older than
the append (a commit that landed before it, even one that held the session's lock while the
append waited for it, is reported).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from summem.messages import user
from summem.session.steps import AsyncStoreSteps, SyncStoreSteps
from summem.stores import InMemoryStore
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import AsyncProbingAppendStore, ProbingAppendStore
from tests.stores.backends import Backend, backend_of, postgres_url
from tests.stores.helpers import summary_msg

KIND_MODES = [
    ("memory", "sync"),
    ("memory", "async"),
    ("sqlite", "sync"),
    ("sqlite", "async"),
    ("postgres", "sync"),
    ("postgres", "async"),
    ("redis", "sync"),
    ("redis", "async"),
    pytest.param(("redis-cluster", "sync"), marks=pytest.mark.redis_cluster),
    pytest.param(("redis-cluster", "async"), marks=pytest.mark.redis_cluster),
]


@pytest.fixture(params=KIND_MODES, ids=lambda km: f"{km[0]}-{km[1]}")
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with backend_of(request.param, tmp_path) as b:
        yield b


def summary() -> Any:
    return summary_msg("so far", 2)


def test_the_stores_have_the_capability_in_both_modes(backend: Backend) -> None:
    native: Any = backend.native()
    try:
        protocol = ProbingAppendStore if backend.mode == "sync" else AsyncProbingAppendStore
        assert isinstance(cast(object, native), protocol)
        steps = (SyncStoreSteps if backend.mode == "sync" else AsyncStoreSteps)(native)
        assert steps.append_probing
    finally:
        result = native.close()
        if result is not None:
            backend._portal().call(result)


def test_it_appends_as_append_does_and_reports_the_state_after(backend: Backend) -> None:
    store: Any = backend.make()
    a, b, c = user("a"), user("b"), user("c")
    assert store.append_probe("s", []) is None  # nothing created
    assert not store.exists("s")
    first = store.append_probe("s", [a])
    assert first is not None
    epoch, version, length = first
    assert (version, length) == (0, 1)
    assert store.probe("s") == first
    assert store.append_probe("s", [a]) == (epoch, 0, 1)  # held: nothing added
    assert store.append_probe("s", [b, c, b]) == (epoch, 0, 3)  # one of each, in order
    assert store.append_probe("s", []) == (epoch, 0, 3)
    assert (
        store.commit("s", summary=summary(), watermark=2, expected_version=0, expected_epoch=epoch)
        == 1
    )
    assert store.append_probe("s", [user("d")]) == (epoch, 1, 4)
    store.clear("s")
    cleared = store.append_probe("s", [user("e")])
    assert cleared == (epoch, 2, 1)  # a clear moves the version
    assert store.probe("s") == cleared
    assert [m.text for m in store.history("s")] == ["e"]


def test_a_commit_through_another_store_object_is_reported(backend: Backend) -> None:
    mine: Any = backend.make()
    theirs: Any = backend.make()  # another connection (the same data for the memory kind)
    found = mine.append_probe("s", [user(f"m{i}") for i in range(4)])
    assert found is not None
    epoch = found[0]
    assert (
        theirs.commit("s", summary=summary(), watermark=2, expected_version=0, expected_epoch=epoch)
        == 1
    )
    assert mine.append_probe("s", [user("next")]) == (epoch, 1, 5)
    assert mine.append_probe("s", [user("n1"), user("n2")]) == (epoch, 1, 7)


@pytest.mark.postgres
@pytest.mark.parametrize("count", [1, 2], ids=["one-message", "batch"])
def test_postgres_reports_a_commit_that_held_the_row_while_the_append_waited(
    tmp_path: Path, count: int
) -> None:
    """The epoch and version are read after the append took the row lock, not before it."""
    import psycopg
    from psycopg import sql

    with backend_of(("postgres", "sync"), tmp_path) as backend:
        store: Any = backend.make()
        found = store.append_probe("s", [user("a")])
        assert found is not None
        done: list[Any] = []
        with psycopg.connect(postgres_url()) as other:  # a transaction of its own
            table = sql.SQL("{}.sessions").format(sql.Identifier(backend.prefix))
            other.execute(
                sql.SQL("UPDATE {} SET version = version + 1 WHERE name = %s").format(table),
                ("s",),
            )  # holds the row lock until it commits
            thread = threading.Thread(
                target=lambda: done.append(
                    store.append_probe("s", [user(f"b{i}") for i in range(count)])
                )
            )
            thread.start()
            _wait_for_a_lock_wait()
            assert done == []  # it waits for the row
            other.commit()
        thread.join(30)
        assert done == [(found[0], 1, 1 + count)]


def _redis_sent(store: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The commands a Redis store's client sends from now on, less the ``EVALSHA`` refused by
    a node that does not hold the script yet and the ``SCRIPT LOAD`` that follows it."""
    import redis

    sent: list[str] = []
    real = store._client.execute_command

    def execute(*args: Any, **kwargs: Any) -> Any:
        command = str(args[0]).upper()
        try:
            result = real(*args, **kwargs)
        except redis.exceptions.NoScriptError:
            raise  # (redis-py loads the script, then sends the EVALSHA again)
        if command != "SCRIPT LOAD":
            sent.append(command)
        return result

    monkeypatch.setattr(store._client, "execute_command", execute)
    return sent


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("redis-cluster", marks=pytest.mark.redis_cluster),
    ],
)
def test_redis_creates_a_session_as_append_does_then_each_turn_is_one_evalsha(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with backend_of((kind, "sync"), tmp_path) as backend:
        store = backend.native()
        try:
            sent = _redis_sent(store, monkeypatch)
            assert store.append_probe("none", []) is None  # a probe: nothing written
            assert sent == ["HMGET", "EVALSHA"]  # HMGET: the schema, once
            sent.clear()
            first = store.append_probe("new", [user("hello")])
            # no session: nothing written, then indexed, created, indexed again (as append)
            assert sent == ["EVALSHA", "ZADD", "EVALSHA", "ZADD"]
            assert first is not None and first[1:] == (0, 1)
            for i in range(3):
                sent.clear()
                assert store.append_probe("new", [user(f"turn {i}")]) == (first[0], 0, 2 + i)
                assert sent == ["EVALSHA"]
            monkeypatch.undo()
            client = backend.redis_client()
            assert client.zrange(f"{backend.prefix}:sessions", 0, -1) == [b"new"]
            assert not store.exists("none")
            assert [i.session_id for i in store.session_infos()] == ["new"]
        finally:
            store.close()


@pytest.mark.redis_cluster
def test_redis_append_probe_is_one_evalsha_of_o1_calls_at_any_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The append's six O(1) calls (tests/stores/test_redis_index.py), and one HMGET of the
    epoch and version after them; counted on the session's node (``INFO commandstats``)."""
    with backend_of(("redis-cluster", "sync"), tmp_path) as backend:
        store = backend.native()
        client = backend.redis_client()
        try:
            store.append("short", [user("one")])
            store.append("long", [user(f"m{i}") for i in range(3000)])
            for sid, length in (("short", 2), ("long", 3001)):
                conn = client.get_redis_connection(client.get_node_from_key(store._keys(sid).meta))
                conn.config_resetstat()
                sent = _redis_sent(store, monkeypatch)
                found = store.append_probe(sid, [user("a turn")])
                monkeypatch.undo()
                stats = conn.info("commandstats")
                calls = {k.removeprefix("cmdstat_"): v["calls"] for k, v in stats.items()}
                calls.pop("config|resetstat", None)
                assert sent == ["EVALSHA"]
                assert calls == {
                    "evalsha": 1,
                    "hmget": 2,
                    "llen": 1,
                    "hsetnx": 1,
                    "rpush": 1,
                    "time": 1,
                    "hset": 1,
                }, sid
                assert found == (store.probe(sid)[0], 0, length)
        finally:
            store.close()


def test_a_store_without_it_is_appended_to_and_reports_nothing() -> None:
    class Plain(InMemoryStore):
        append_probe = None  # type: ignore[assignment]  # a store without the capability

    store = Plain()
    assert not isinstance(store, ProbingAppendStore)
    steps = SyncStoreSteps(store)
    assert not steps.append_probing
    from summem._flow import run_sync

    assert run_sync(steps.append_probed("s", [user("a")])) == (1, None)
    adapter = AsyncStoreAdapter(store, offload=False)
    assert not AsyncStoreSteps(adapter).append_probing
    assert AsyncStoreSteps(AsyncStoreAdapter(InMemoryStore(), offload=False)).append_probing


def _wait_for_a_lock_wait() -> None:
    """Until another backend waits for a lock on an append (polled; fails after 30 s)."""
    import psycopg

    deadline = time.monotonic() + 30
    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND query LIKE '%append_message%' AND pid <> pg_backend_pid()"
    )
    with psycopg.connect(postgres_url(), autocommit=True) as watch:
        while watch.execute(query).fetchone() == (0,):
            assert time.monotonic() < deadline, "the append never waited for the row lock"
            time.sleep(0.01)
