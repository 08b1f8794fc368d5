"""A memory on every store (tests/stores/backends.py KINDS), sync or async, behind one async API.

The framework branch scenarios run inside one event loop (async stores are bound to it): with
a sync ``Memory`` the framework's sync entry points run in a worker thread, with an
``AsyncMemory`` its async ones run on the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from summem import AsyncMemory, Memory
from summem.messages import Message
from summem.reducers.base import Reducer
from tests.stores.backends import KINDS, Backend, backend_of

STORE_MODES = [
    pytest.param((kind.name, mode), id=f"{kind.name}-{mode}", marks=kind.marks)
    for kind in KINDS.values()
    for mode in ("sync", "async")
]
"""Every registered store, under a sync ``Memory`` and under an ``AsyncMemory``."""


@dataclass
class Harness:
    """One session's memory on a backend, read and written from async code."""

    backend: Backend
    mode: str  # sync | async
    memory: Memory | AsyncMemory

    @property
    def is_async(self) -> bool:
        return isinstance(self.memory, AsyncMemory)

    async def history(self) -> list[Message]:
        if isinstance(self.memory, AsyncMemory):
            return await self.memory.history_messages()
        return await asyncio.to_thread(self.memory.history_messages)

    async def texts(self) -> list[str]:
        return [m.text for m in await self.history()]

    async def branches(self) -> list[Any]:
        if isinstance(self.memory, AsyncMemory):
            return list(await self.memory.branches())
        return list(await asyncio.to_thread(self.memory.branches))

    async def branch_texts(self) -> list[tuple[int, list[str]]]:
        """Each branch as ``(at, the texts it abandoned)``, oldest first."""
        out = []
        for b in await self.branches():
            if isinstance(self.memory, AsyncMemory):
                messages = await self.memory.branch_history(b.id)
            else:
                messages = await asyncio.to_thread(self.memory.branch_history, b.id)
            out.append((b.at, [m.text for m in messages]))
        return out

    async def close(self) -> None:
        if isinstance(self.memory, AsyncMemory):
            await self.memory.close()
            await self.memory.store.close()
        else:
            self.memory.close()
            self.memory.store.close()


def run_scenario(
    kind_mode: tuple[str, str],
    tmp_path: Path,
    reducer: Callable[[], Reducer],
    scenario: Callable[[Harness], Coroutine[Any, Any, None]],
) -> None:
    """Run ``scenario`` with a fresh session's memory on ``kind_mode`` (a store, a memory mode)."""
    kind, mode = kind_mode
    with backend_of((kind, mode), tmp_path) as backend:

        async def main() -> None:
            store = backend.native(mode)
            memory: Memory | AsyncMemory
            if mode == "async":
                memory = AsyncMemory("user-42", reducer=reducer(), store=store)
            else:
                memory = Memory("user-42", reducer=reducer(), store=store)
            harness = Harness(backend, mode, memory)
            try:
                await scenario(harness)
            finally:
                await harness.close()

        asyncio.run(main())


Scenario = Callable[[Harness], Coroutine[Any, Any, None]]
StoreTest = Callable[[tuple[str, str], Path], None]


def scenario_test(reducer: Callable[[], Reducer]) -> Callable[[Scenario], StoreTest]:
    """Make an ``async def test_x(h)`` body a test on every store and memory mode."""

    def wrap(body: Scenario) -> StoreTest:
        @pytest.mark.parametrize("kind_mode", STORE_MODES)
        def test(kind_mode: tuple[str, str], tmp_path: Path) -> None:
            run_scenario(kind_mode, tmp_path, reducer, body)

        test.__name__ = body.__name__
        test.__doc__ = body.__doc__
        return test

    return wrap
