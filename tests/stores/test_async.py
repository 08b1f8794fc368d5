"""The async stores in a real event loop (the contract suite drives them from threads)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from summem.messages import user
from summem.stores import AsyncInMemoryStore, AsyncRedisStore, AsyncSQLiteStore
from summem.stores.base import AsyncStore
from tests.stores.backends import REDIS_URL, require_redis


def make(kind: str, tmp_path: Path) -> AsyncStore:
    if kind == "memory":
        return AsyncInMemoryStore()
    if kind == "sqlite":
        return AsyncSQLiteStore(tmp_path / "a.db")
    require_redis()
    return AsyncRedisStore(REDIS_URL, prefix=f"summem-test-{uuid.uuid4().hex}")


@pytest.mark.parametrize(
    "kind", ["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)]
)
async def test_concurrent_tasks_in_one_loop(kind: str, tmp_path: Path) -> None:
    store = make(kind, tmp_path)
    async with store:  # type: ignore[attr-defined]
        try:
            await asyncio.gather(
                *(store.append("s", [user(f"{t}:{i}") for i in range(3)]) for t in range(20))
            )
            state = await store.load("s")
            texts = [m.text for m in state.tail]
            assert len(texts) == len(set(texts)) == 60
            for t in range(20):  # each batch stayed contiguous
                start = texts.index(f"{t}:0")
                assert texts[start : start + 3] == [f"{t}:{i}" for i in range(3)]
            assert await store.list_sessions() == ["s"]
        finally:
            await store.delete("s")
