"""Recall works the same on every store, sync and async (the index reads through the store)."""

from __future__ import annotations

import asyncio
from typing import Any

from summem import AsyncMemory, Memory
from tests.fakes.memory import small_reducer
from tests.fakes.messages import turn, u
from tests.stores.backends import Backend
from tests.stores.test_unknown_outcomes import new_store


def test_recall_on_every_store(backend: Backend) -> None:
    store = new_store(backend)

    async def run() -> list[Any]:
        memory: Any = (
            Memory("s", reducer=small_reducer(), store=store)
            if backend.mode == "sync"
            else AsyncMemory("s", reducer=small_reducer(), store=store)
        )

        async def call(method: str, *args: Any, **kwargs: Any) -> Any:
            out = getattr(memory, method)(*args, **kwargs)
            return await out if asyncio.iscoroutine(out) else out

        await call("add", u("My order number is BW-58214-K."))
        for i in range(20):
            await call("extend", turn(i))
        hits: list[Any] = await call("recall", "BW-58214-K")
        await call("close")
        return hits

    hits = asyncio.run(run())
    assert hits and hits[0].position == 0 and "BW-58214-K" in hits[0].message.text
    if backend.mode == "sync":
        store.close()
