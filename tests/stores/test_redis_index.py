"""Redis: what a turn costs the server, and the session index behind ``session_infos``.

A one-message append is one ``EVALSHA`` whose script makes the same few O(1) calls whatever
the history's length: counted on a node of the local cluster (``INFO commandstats``, reset
first; the node serves only this test process). The session index (``<prefix>:sessions``, a
sorted set in its own slot) is written when a session is created (before it exists) and
deleted (after), never by a turn; a listing pages it with ``ZRANGEBYLEX`` and never ``SCAN``s
the keyspace, except once, to fill the index of a prefix written before it existed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from summem.messages import user
from summem.stores import AsyncRedisStore, RedisStore
from summem.stores.redis.operations import SCHEMA_VERSION
from tests.stores.backends import Backend, backend_of
from tests.stores.redis_cluster import LocalCluster

SYNC_KINDS = [("redis", "sync"), ("redis-cluster", "sync")]


@pytest.fixture(params=SYNC_KINDS, ids=lambda km: km[0])
def sync_redis(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with backend_of(request.param, tmp_path) as b:
        yield b


def _sent(store: RedisStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The commands ``store``'s client sends from now on (first word, upper case), less the
    ``SCRIPT LOAD`` of a script a node does not hold yet (once per node and script)."""
    sent: list[str] = []
    client = store._client
    real = client.execute_command

    def execute(*args: Any, **kwargs: Any) -> Any:
        if str(args[0]).upper() != "SCRIPT LOAD":
            sent.append(str(args[0]).upper())
        return real(*args, **kwargs)

    monkeypatch.setattr(client, "execute_command", execute)
    return sent


def _server_calls(node: Any) -> dict[str, int]:
    stats = node.info("commandstats")
    return {k.removeprefix("cmdstat_"): v["calls"] for k, v in stats.items()}


@pytest.mark.redis_cluster
def test_a_one_message_append_is_one_evalsha_of_six_o1_calls_at_any_length(
    redis_cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.stores.backends import unique_prefix

    store = RedisStore(redis_cluster.url, prefix=unique_prefix())
    client = redis_cluster.client()
    try:
        store.append("short", [user("one")])
        store.append("long", [user(f"m{i}") for i in range(3000)])
        expected = {"evalsha": 1, "hmget": 1, "llen": 1, "hsetnx": 1, "rpush": 1, "time": 1}
        for sid in ("short", "long"):
            node = client.get_node_from_key(store._keys(sid).meta)
            conn = client.get_redis_connection(node)
            conn.config_resetstat()
            sent = _sent(store, monkeypatch)
            length = store.append(sid, [user("a turn")])
            monkeypatch.undo()
            calls = _server_calls(conn)
            calls.pop("config|resetstat", None)
            assert sent == ["EVALSHA"]  # one round trip
            assert calls == {**expected, "hset": 1}, sid  # the same six calls at 2 and 3001
            assert length == (2 if sid == "short" else 3001)
        # a retried append (the id is stored) writes no message
        again = store.history("short")[-1]
        assert store.append("short", [again]) == 2
        assert [m.text for m in store.history("short")] == ["one", "a turn"]
    finally:
        store.close()
        client.close()


def test_creating_indexes_the_session_before_it_exists_and_turns_never_touch_the_index(
    sync_redis: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sync_redis.make()
    raw: RedisStore = sync_redis.raw(store)
    sent = _sent(raw, monkeypatch)
    store.append("new", [user("hello")])
    # the first append finds no session (nothing written), indexes it, then creates it, then
    # indexes it again (a delete of the id may have run in between)
    assert sent == ["HMGET", "EVALSHA", "ZADD", "EVALSHA", "ZADD"]  # HMGET: the schema, once
    store.set_system("new", user("rules"))  # (a cluster node loads the script once)
    sent.clear()
    for i in range(3):
        store.append("new", [user(f"turn {i}")])
    store.set_system("new", user("other rules"))
    assert sent == ["EVALSHA"] * 4
    client = sync_redis.redis_client()
    assert client.zrange(f"{sync_redis.prefix}:sessions", 0, -1) == [b"new"]
    sent.clear()
    store.set_system("fresh", user("rules"))  # set_system creates too: indexed first
    assert sent == ["EVALSHA", "ZADD", "EVALSHA", "ZADD"]
    store.create("whole", history=[user("x")])
    assert store.delete("new")
    assert client.zrange(f"{sync_redis.prefix}:sessions", 0, -1) == [b"fresh", b"whole"]
    assert [i.session_id for i in raw.session_infos()] == ["fresh", "whole"]


def test_session_infos_pages_the_index_without_a_scan(
    sync_redis: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sync_redis.make()
    raw: RedisStore = sync_redis.raw(store)
    ids = sorted(["b", "a", "é", "z:1", "a b", "日本", "ab"])
    for sid in ids:
        store.append(sid, [user(f"hi {sid}"), user("again")])
    assert [i.session_id for i in raw.session_infos()] == ids  # (fills the index: a SCAN)

    def no_scan(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("session_infos scanned the keyspace")

    monkeypatch.setattr(raw._client, "scan_iter", no_scan)
    other = RedisStore(raw._client, prefix=sync_redis.prefix)  # a new process, same server
    monkeypatch.setattr(other._client, "scan_iter", no_scan)
    pages, after = [], None
    while True:
        page = other.session_infos(limit=3, after=after)
        if not page:
            break
        pages.append([i.session_id for i in page])
        after = page[-1].session_id
    assert pages == [ids[0:3], ids[3:6], ids[6:]]
    assert all(i.length == 2 for i in other.session_infos())
    assert [i.session_id for i in other.session_infos(after="a", limit=2)] == ids[1:3]
    # an id in the index whose session does not exist (a create that failed) is skipped,
    # and the page is still full
    client = sync_redis.redis_client()
    client.zadd(f"{sync_redis.prefix}:sessions", {"a0": 0, "a1": 0, "a2": 0})
    assert [i.session_id for i in other.session_infos(limit=3)] == ids[:3]


def test_a_prefix_written_before_the_index_is_filled_once_and_stamped(
    sync_redis: Backend,
) -> None:
    store = sync_redis.make()
    for sid in ("old-1", "old-2", "old-3"):
        store.append(sid, [user("from an older release")])
    client = sync_redis.redis_client()
    index, schema = f"{sync_redis.prefix}:sessions", f"{sync_redis.prefix}:schema"
    client.delete(index, schema)  # as an older release left it: no index, no marker
    fresh = RedisStore(sync_redis.redis_client(), prefix=sync_redis.prefix)
    assert [i.session_id for i in fresh.session_infos(limit=2)] == ["old-1", "old-2"]
    assert client.zcard(index) == 3
    fields = {k.decode(): int(v) for k, v in client.hgetall(schema).items()}
    assert fields == {
        "index": 1,
        "version": SCHEMA_VERSION,
        "compatible": SCHEMA_VERSION,
        "compatible_for": SCHEMA_VERSION,
    }


def test_async_store_indexes_and_lists_the_same(sync_redis: Backend) -> None:
    kind = sync_redis.kind
    url = cast(Any, sync_redis.registered).url()

    async def scenario() -> list[str]:
        async with AsyncRedisStore(url, prefix=sync_redis.prefix) as store:
            for sid in ("c", "a", "b"):
                await store.append(sid, [user("hi")])
            await store.set_system("d", user("rules"))
            assert await store.delete("b")
            page = await store.session_infos(limit=2, after="a")
            return [i.session_id for i in page]

    assert asyncio.run(scenario()) == ["c", "d"], kind
    client = sync_redis.redis_client()
    assert client.zrange(f"{sync_redis.prefix}:sessions", 0, -1) == [b"a", b"c", b"d"]


def test_a_client_that_may_not_write_lists_from_a_scan_and_writes_nothing(
    sync_redis: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    store = sync_redis.make()
    for sid in ("b", "a", "c"):
        store.append(sid, [user("hi")])
    client = sync_redis.redis_client()
    index, schema = f"{sync_redis.prefix}:sessions", f"{sync_redis.prefix}:schema"
    client.delete(index, schema)  # a prefix written before the index
    replica = RedisStore(sync_redis.redis_client(), prefix=sync_redis.prefix)

    def refused(*args: Any, **kwargs: Any) -> Any:
        # (redis-py strips the reply's READONLY prefix into the class)
        raise redis.exceptions.ReadOnlyError("You can't write against a read only replica.")

    monkeypatch.setattr(replica._client, "zadd", refused)
    assert [i.session_id for i in replica.session_infos(limit=2)] == ["a", "b"]
    assert [i.session_id for i in replica.session_infos(after="a")] == ["b", "c"]
    assert not client.exists(index) and not client.hexists(schema, "index")
    monkeypatch.undo()  # a client that may write fills it
    assert [i.session_id for i in replica.session_infos()] == ["a", "b", "c"]
    assert client.zcard(index) == 3


def _index(backend: Backend) -> list[bytes]:
    client = backend.redis_client()
    return list(client.zrange(f"{backend.prefix}:sessions", 0, -1))


def test_a_session_recreated_while_a_delete_unindexes_it_stays_indexed(
    sync_redis: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The delete's ``ZREM`` (a call after its script) lands after another writer recreated
    the session: the delete puts it back, so it is still listed."""
    deleter = sync_redis.make()
    raw: RedisStore = sync_redis.raw(deleter)
    creator = RedisStore(sync_redis.redis_client(), prefix=sync_redis.prefix)  # a process
    deleter.append("s", [user("first life")])
    assert creator.session_infos()  # the index is filled: no listing backfills it again
    real = raw._client.zrem

    def zrem(*args: Any, **kwargs: Any) -> Any:
        creator.append("s", [user("second life")])  # between the delete and its ZREM
        return real(*args, **kwargs)

    monkeypatch.setattr(raw._client, "zrem", zrem)
    assert deleter.delete("s")
    monkeypatch.undo()
    assert creator.list_sessions() == ["s"]
    assert _index(sync_redis) == [b"s"]
    assert [i.session_id for i in creator.session_infos()] == ["s"]


def test_a_delete_between_the_index_write_and_the_create_leaves_the_session_indexed(
    sync_redis: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A creator indexes the id, a delete of the same id runs whole (its ``ZREM`` removes the
    id, the session does not exist yet), then the creator's script creates the session: it is
    indexed again after it exists."""
    creator = sync_redis.make()
    raw: RedisStore = sync_redis.raw(creator)
    deleter = RedisStore(sync_redis.redis_client(), prefix=sync_redis.prefix)
    real = raw._client.zadd
    deletes: list[bool] = []
    assert deleter.session_infos() == []  # the index is filled: no listing backfills it again

    def zadd(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        if not deletes:
            deletes.append(deleter.delete("s"))  # the whole delete, before the create
        return out

    monkeypatch.setattr(raw._client, "zadd", zadd)
    creator.append("s", [user("hello")])
    monkeypatch.undo()
    assert deletes == [False]
    assert creator.list_sessions() == ["s"]
    assert _index(sync_redis) == [b"s"]
    assert [i.session_id for i in deleter.session_infos()] == ["s"]


def test_async_delete_and_recreate_keep_the_index(sync_redis: Backend) -> None:
    """The two races above, on the async store."""
    url = cast(Any, sync_redis.registered).url()

    async def scenario() -> None:
        async with (
            AsyncRedisStore(url, prefix=sync_redis.prefix) as deleter,
            AsyncRedisStore(url, prefix=sync_redis.prefix) as creator,
        ):
            await deleter.append("s", [user("first life")])
            assert await deleter.session_infos()  # filled: no backfill hides the race
            real_zrem, real_zadd = deleter._client.zrem, creator._client.zadd

            async def zrem(*args: Any, **kwargs: Any) -> Any:
                await creator.append("s", [user("second life")])
                return await real_zrem(*args, **kwargs)

            deleter._client.zrem = zrem
            assert await deleter.delete("s")
            deleter._client.zrem = real_zrem
            assert [i.session_id for i in await deleter.session_infos()] == ["s"]

            deletes: list[bool] = []

            async def zadd(*args: Any, **kwargs: Any) -> Any:
                out = await real_zadd(*args, **kwargs)
                if not deletes:
                    deletes.append(await deleter.delete("t"))
                return out

            creator._client.zadd = zadd
            await creator.append("t", [user("hello")])
            creator._client.zadd = real_zadd
            assert deletes == [False]
            assert [i.session_id for i in await deleter.session_infos()] == ["s", "t"]

    asyncio.run(scenario())


def test_an_index_marked_under_a_marker_an_older_release_wrote_back_is_filled_again(
    sync_redis: Backend,
) -> None:
    """A summem of schema 2 already running when the prefix was marked (it checked the schema
    before) stamps schema 2 again at its next ``keep_summaries`` commit, and creates sessions
    it does not index: the ``index`` field under a version below 3 is not trusted, the next
    listing fills the index again and stamps schema 3 back."""
    store = sync_redis.make()
    store.append("a", [user("hi")])
    assert [
        i.session_id
        for i in RedisStore(sync_redis.redis_client(), prefix=sync_redis.prefix).session_infos()
    ] == ["a"]  # fills the index, stamps schema 3
    client = sync_redis.redis_client()
    index, schema = f"{sync_redis.prefix}:sessions", f"{sync_redis.prefix}:schema"
    client.hset(schema, mapping={"version": 2, "compatible": 2, "compatible_for": 2})
    store.append("b", [user("from the older release")])
    client.zrem(index, "b")  # as the older release created it: not indexed
    fresh = RedisStore(sync_redis.redis_client(), prefix=sync_redis.prefix)
    assert [i.session_id for i in fresh.session_infos()] == ["a", "b"]
    fields = {k.decode(): int(v) for k, v in client.hgetall(schema).items()}
    assert fields == {
        "index": 1,
        "version": SCHEMA_VERSION,
        "compatible": SCHEMA_VERSION,
        "compatible_for": SCHEMA_VERSION,
    }
