"""Redis specifics: key layout and cluster slots (no server needed), clients, errors."""

from __future__ import annotations

import asyncio
import sys

import pytest
from redis.crc import key_slot

from summem.errors import ConfigurationError, MissingDependencyError, StoreError
from summem.messages import user
from summem.stores import AsyncRedisStore, RedisStore
from tests.stores.backends import REDIS_URL, require_redis, unique_prefix
from tests.stores.helpers import IDS


def unconnected(prefix: str = "summem") -> RedisStore:
    return RedisStore(REDIS_URL, prefix=prefix)  # the client connects on first use only


def test_keys_of_a_session_share_one_cluster_slot_and_never_collide() -> None:
    store = unconnected()
    seen: set[str] = set()
    for sid in IDS:
        keys = store._keys(sid)
        tags = {k[k.index("{") + 1 : k.index("}")] for k in keys}
        assert len(tags) == 1
        tag = tags.pop()
        assert tag and not set(tag) & set("{}:*?[]\\")
        assert len({key_slot(k.encode()) for k in keys}) == 1
        assert not seen & set(keys)
        seen |= set(keys)
    assert store._names(store._keys(sid).meta for sid in IDS) == sorted(IDS)
    store.close()


def test_scan_pattern_and_names_ignore_foreign_keys() -> None:
    store = unconnected("app*1")
    assert store._scan_pattern() == "app\\*1:{*}:meta"
    foreign = ["app*1:{!!!}:meta", "app*1:{" + "YQ" + "x}:meta"]
    assert store._names([store._keys("ok").meta, *foreign]) == ["ok"]
    store.close()


@pytest.mark.parametrize("prefix", ["", "a{b", "a}b"])
def test_prefix_is_validated(prefix: str) -> None:
    with pytest.raises(ConfigurationError, match="prefix"):
        RedisStore(REDIS_URL, prefix=prefix)


def test_missing_redis_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    for cls in (RedisStore, AsyncRedisStore):
        with pytest.raises(MissingDependencyError, match=r"summem\[redis\]") as info:
            cls(REDIS_URL)
        assert isinstance(info.value, ImportError)


def test_unreachable_server_is_a_store_error() -> None:
    store = RedisStore("redis://127.0.0.1:1/0")
    with pytest.raises(StoreError, match=r"'a'.*Redis error"):
        store.load("a")
    with pytest.raises(StoreError, match="Redis error"):
        store.list_sessions()
    store.close()


@pytest.mark.redis
def test_a_given_client_is_used_as_is_and_left_open() -> None:
    require_redis()
    import redis

    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    prefix = unique_prefix()
    store = RedisStore(client, prefix=prefix)
    try:
        store.append("ü:1", [user("hello")])
        assert [m.text for m in store.load("ü:1").tail] == ["hello"]
        assert store.list_sessions() == ["ü:1"]
        store.close()
        assert client.ping()
    finally:
        for key in client.scan_iter(match=f"{prefix}:*"):
            client.delete(key)
        client.close()


def test_reprs_name_the_prefix_and_never_the_password() -> None:
    url = "redis://:pa55word@127.0.0.1:6379/0"  # both connect on first use only
    store, async_store = RedisStore(url, prefix="app"), AsyncRedisStore(url, prefix="app")
    assert repr(store) == "RedisStore(prefix='app')"
    assert repr(async_store) == "AsyncRedisStore(prefix='app')"
    store.close()
    asyncio.run(async_store.close())


def test_the_stores_name_the_clients_they_take() -> None:
    """help() shows the client types, not the base class's type variable."""
    import inspect

    from summem.stores.redis import AsyncRedisStore, RedisStore

    for store, module in ((RedisStore, "redis_sync"), (AsyncRedisStore, "redis_async")):
        shown = str(inspect.signature(store.__init__).parameters["url_or_client"].annotation)
        assert shown == f"str | {module}.Redis | {module}.RedisCluster", shown


def test_a_new_session_never_inherits_branch_keys_left_behind() -> None:
    """An older summem's delete knows no branch keys: a session created again under the id
    starts with no branches and no abandoned summaries."""
    require_redis()
    prefix = unique_prefix()
    store = RedisStore(REDIS_URL, prefix=prefix)
    try:
        store.append("s", [user("a"), user("b")])
        st = store.load("s")
        store.rewrite(
            "s", keep=1, messages=[], expected_version=0, expected_epoch=st.epoch, branch_id="b"
        )
        k = store._keys("s")
        store._client.delete(k.meta, k.msgs, k.sums, k.ids)  # as an older summem deletes
        store.append("s", [user("new")])
        assert store.branches("s") == []
        with pytest.raises(StoreError, match="no branch 'b'"):
            store.branch_messages("s", "b")
        st = store.load("s")
        store.rewrite(
            "s", keep=0, messages=[], expected_version=0, expected_epoch=st.epoch, branch_id="b"
        )
        assert [m.text for m in store.branch_messages("s", "b")] == ["new"]
    finally:
        store._client.delete(*store._keys("s"))
        store.close()


def test_an_unreachable_cluster_is_a_store_error() -> None:
    """A cluster client connects when it is made; its own errors are not RedisErrors."""
    with pytest.raises(StoreError, match=r"Redis store 'app'.*Redis Cluster cannot be connected"):
        RedisStore("redis+cluster://127.0.0.1:1", prefix="app")

    async def first_use() -> None:
        store = AsyncRedisStore("redis+cluster://127.0.0.1:1")
        try:
            with pytest.raises(StoreError, match=r"'a'.*Redis Cluster cannot be connected"):
                await store.load("a")
        finally:
            await store.close()

    asyncio.run(first_use())
