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
from summem.stores.base import AsyncStore, Store
from tests.stores.backends import backend_of, kind_params


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


@pytest.fixture(params=kind_params())
def kind(request: pytest.FixtureRequest) -> str:
    """Every registered backend (tests/stores/backends.py ``KINDS``)."""
    value: str = request.param
    return value


@pytest.fixture
async def setup(kind: str, mode: str, tmp_path: Path) -> AsyncIterator[Setup]:
    with backend_of((kind, mode), tmp_path) as backend:
        store: Store | AsyncStore = backend.native()
        raw: Store = store if mode == "sync" else backend.native("sync")  # type: ignore[assignment]
        yield Setup(mode, store, raw)
        for sid in raw.list_sessions():
            raw.delete(sid)
        if store is not raw:
            await settle(store.close())
        raw.close()
