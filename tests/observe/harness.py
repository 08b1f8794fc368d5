"""One memory per store kind, sync or async, driven by the same test code; events recorded."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from summem import AsyncMemory, Memory
from summem.events import MemoryEvent
from summem.stores import AsyncInMemoryStore, AsyncSQLiteStore, InMemoryStore, SQLiteStore
from summem.stores.base import AsyncStore, Store
from tests.stores.backends import REDIS_URL, require_redis, unique_prefix


async def settle(value: Any) -> Any:
    """The value, awaited when the async memory returned a coroutine."""
    return await value if inspect.isawaitable(value) else value


@dataclass
class Recorder:
    """A hook keeping every event it is given."""

    events: list[MemoryEvent] = field(default_factory=list)

    def __call__(self, event: MemoryEvent) -> None:
        self.events.append(event)

    def of(self, kind: type[MemoryEvent]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.events]


@dataclass
class Setup:
    """Where a test's memories live: a store (sync or async) and a sync view of its data."""

    mode: str
    store: Store | AsyncStore
    raw: Store

    def memory(self, session_id: str = "s", **kw: Any) -> Memory | AsyncMemory:
        if self.mode == "sync":
            assert isinstance(self.store, Store)
            return Memory(session_id, store=self.store, **kw)
        return AsyncMemory(session_id, store=self.store, **kw)


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def kind(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
async def setup(kind: str, mode: str, tmp_path: Path) -> AsyncIterator[Setup]:
    store: Store | AsyncStore
    raw: Store
    if kind == "memory":
        if mode == "sync":
            store = raw = InMemoryStore()
        else:
            store = AsyncInMemoryStore()
            raw = store.sync_store
    elif kind == "sqlite":
        raw = SQLiteStore(tmp_path / "e.db")
        store = raw if mode == "sync" else AsyncSQLiteStore(tmp_path / "e.db")
    else:
        require_redis()
        from summem.stores.redis import AsyncRedisStore, RedisStore

        prefix = unique_prefix()
        raw = RedisStore(REDIS_URL, prefix=prefix)
        store = raw if mode == "sync" else AsyncRedisStore(REDIS_URL, prefix=prefix)
    yield Setup(mode, store, raw)
    for sid in raw.list_sessions():
        raw.delete(sid)
    if store is not raw:
        await settle(store.close())
    raw.close()
