"""open_store / open_async_store: URL schemes, entry points and the built-in fallback."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any, ClassVar

import pytest

import summem.stores as stores
from summem.errors import ConfigurationError
from summem.stores import (
    AsyncInMemoryStore,
    AsyncRedisStore,
    AsyncSQLiteStore,
    InMemoryStore,
    RedisStore,
    SQLiteStore,
    available_schemes,
    open_async_store,
    open_store,
)


class PluginStore(InMemoryStore):
    urls: ClassVar[list[str]] = []

    @classmethod
    def from_url(cls, url: str) -> PluginStore:
        cls.urls.append(url)
        return cls()

    @classmethod
    def async_from_url(cls, url: str) -> AsyncInMemoryStore:
        return AsyncInMemoryStore(cls.from_url(url))


def plugin_factory(url: str) -> InMemoryStore:
    return InMemoryStore()


def use_entry_points(monkeypatch: pytest.MonkeyPatch, **targets: str) -> None:
    eps = [EntryPoint(name, value, stores.ENTRY_POINT_GROUP) for name, value in targets.items()]

    def fake(*, group: str) -> Any:
        assert group == stores.ENTRY_POINT_GROUP
        return eps

    monkeypatch.setattr(stores, "entry_points", fake)


def test_builtin_schemes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    use_entry_points(monkeypatch)  # as when running from a source tree
    assert {"memory", "sqlite", "redis", "redis+cluster", "rediss+cluster"} <= set(
        available_schemes()
    )
    assert type(open_store("memory://")) is InMemoryStore
    rel = open_store("sqlite:///rel.db")
    assert isinstance(rel, SQLiteStore) and rel.path == "rel.db"
    absolute = open_store(f"sqlite:///{tmp_path}/abs.db")
    assert isinstance(absolute, SQLiteStore) and absolute.path == f"{tmp_path}/abs.db"
    redis_store = open_store("redis://127.0.0.1:6379/0")  # connects lazily
    assert isinstance(redis_store, RedisStore)
    for s in (rel, absolute, redis_store):
        s.close()


async def test_async_builtin_schemes(tmp_path: Path) -> None:
    assert isinstance(open_async_store("memory://"), AsyncInMemoryStore)
    sqlite_store = open_async_store(f"sqlite:///{tmp_path}/a.db")
    assert isinstance(sqlite_store, AsyncSQLiteStore)
    redis_store = open_async_store("REDIS://127.0.0.1:6379/0")
    assert isinstance(redis_store, AsyncRedisStore)
    await sqlite_store.close()
    await redis_store.close()


def test_unknown_scheme_names_it_and_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match=r"'mongodb'.*memory.*postgresql.*redis.*sqlite"):
        open_store("mongodb://localhost/db")
    with pytest.raises(ConfigurationError, match="scheme://"):
        open_store("summem.db")
    with pytest.raises(ConfigurationError, match="memory://"):
        open_store("memory://somewhere")


def test_entry_points_add_and_override_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    use_entry_points(
        monkeypatch,
        fake="tests.stores.test_open_store:PluginStore",
        func="tests.stores.test_open_store:plugin_factory",
        memory="tests.stores.test_open_store:PluginStore",
        broken="tests.stores.no_such_module:Store",
    )
    assert "fake" in available_schemes() and "func" in available_schemes()
    assert isinstance(open_store("fake://x"), PluginStore)
    assert isinstance(open_store("memory://"), PluginStore)
    assert PluginStore.urls[-2:] == ["fake://x", "memory://"]
    assert type(open_store("func://y")) is InMemoryStore
    assert isinstance(open_async_store("fake://x"), AsyncInMemoryStore)
    with pytest.raises(ConfigurationError, match="no async variant"):
        open_async_store("func://x")
    with pytest.raises(ImportError):
        open_store("broken://x")


@pytest.mark.parametrize(
    "url",
    [
        "redis://:hunter2secret@127.0.0.1:6379/0?foo=1",
        "rediss://127.0.0.1:6379/0?socket_timout=2",  # a typo of socket_timeout
        "unix:///tmp/summem-no-such.sock?db=0&nope=x",
    ],
)
async def test_an_unknown_redis_url_option_is_a_clear_error_at_open(url: str) -> None:
    # redis-py passes unknown query parameters to every connection, which then fails with a
    # TypeError at each command: refused when the store is opened instead, naming it
    for opener in (open_store, open_async_store):
        with pytest.raises(ConfigurationError, match="unknown query parameter") as caught:
            opener(url)
        assert "hunter2secret" not in str(caught.value)
        assert url.rsplit("=", 1)[0].rsplit("&", 1)[-1].rsplit("?", 1)[-1] in str(caught.value)


async def test_known_redis_url_options_still_open() -> None:
    url = "redis://127.0.0.1:6379/0?socket_timeout=2&health_check_interval=5&client_name=x"
    store = open_store(url)  # connects lazily
    assert isinstance(store, RedisStore)
    store.close()
    async_store = open_async_store(url)
    assert isinstance(async_store, AsyncRedisStore)
    await async_store.close()
