"""A third-party store written before branches (issue #28) is still a store.

Branching is a capability beside the contract (:class:`~summem.stores.base.BranchingStore`),
like search: a store with only the :class:`~summem.stores.base.Store` methods still passes
``isinstance(store, Store)`` and serves ``Memory`` and ``AsyncMemory``; asking it to branch
names its class, and a probe reads the whole state instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from summem._flow import run_async, run_sync
from summem.async_memory import AsyncMemory
from summem.errors import ConfigurationError
from summem.memory import Memory
from summem.messages import Message, user
from summem.session.steps import AsyncStoreSteps, SyncStoreSteps
from summem.stores import AsyncStoreAdapter
from summem.stores.base import AsyncBranchingStore, BranchingStore, SessionState, Store
from summem.stores.memory import InMemoryStore
from tests.fakes.memory import small_reducer
from tests.fakes.messages import u


class AppendOnlyStore:
    """Only the :class:`Store` methods (over an in-memory store, as a plugin might wrap one)."""

    def __init__(self) -> None:
        self._s = InMemoryStore()

    def load(self, session_id: str) -> SessionState:
        return self._s.load(session_id)

    def exists(self, session_id: str) -> bool:
        return self._s.exists(session_id)

    def history(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        return self._s.history(session_id, start, stop)

    def append(self, session_id: str, messages: Sequence[Message]) -> int:
        return self._s.append(session_id, messages)

    def set_system(self, session_id: str, message: Message | None) -> None:
        self._s.set_system(session_id, message)

    def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> int:
        return self._s.commit(
            session_id,
            summary=summary,
            watermark=watermark,
            expected_version=expected_version,
            expected_epoch=expected_epoch,
        )

    def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        self._s.create(
            session_id, history=history, system=system, summary=summary, watermark=watermark
        )

    def summaries(self, session_id: str) -> list[Message]:
        return self._s.summaries(session_id)

    def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        return self._s.rollback(
            session_id,
            summary_id=summary_id,
            expected_version=expected_version,
            expected_epoch=expected_epoch,
        )

    def clear(self, session_id: str) -> None:
        self._s.clear(session_id)

    def delete(self, session_id: str) -> bool:
        return self._s.delete(session_id)

    def list_sessions(self) -> list[str]:
        return self._s.list_sessions()

    def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        return self._s.acquire_lease(session_id, owner, ttl_seconds)

    def release_lease(self, session_id: str, owner: str) -> None:
        self._s.release_lease(session_id, owner)

    def close(self) -> None:
        self._s.close()


def test_it_is_a_store_and_not_a_branching_one() -> None:
    store = AppendOnlyStore()
    assert isinstance(store, Store)
    assert not isinstance(store, BranchingStore)
    assert isinstance(InMemoryStore(), BranchingStore)  # every built-in store branches
    assert not AsyncStoreAdapter(store).branching


def test_memory_adds_and_reduces_on_it() -> None:
    with Memory("s", reducer=small_reducer(), store=AppendOnlyStore()) as memory:
        for i in range(30):
            memory.add(u(f"turn {i} with a few more words"))
        assert memory.summary is not None  # reduced past the threshold
        assert len(memory.history_messages()) == 30
        assert memory.messages()[0]["content"] == memory.summary.text


async def test_async_memory_adds_and_reduces_on_it() -> None:
    async with AsyncMemory("s", reducer=small_reducer(), store=AppendOnlyStore()) as memory:
        for i in range(30):
            await memory.add(u(f"turn {i} with a few more words"))
        assert memory.summary is not None
        assert len(await memory.history_messages()) == 30


def test_a_branch_names_the_store_and_a_probe_reads_the_state() -> None:
    store = AppendOnlyStore()
    store.append("s", [user("a"), user("b")])
    steps = SyncStoreSteps(store)
    assert not steps.branching
    with pytest.raises(ConfigurationError, match="AppendOnlyStore cannot branch"):
        run_sync(
            steps.rewrite(
                "s", keep=0, messages=[], expected_version=0, expected_epoch="", branch_id="b"
            )
        )
    with pytest.raises(ConfigurationError, match="AppendOnlyStore cannot branch"):
        run_sync(steps.branches("s"))
    st = store.load("s")
    assert run_sync(steps.probe("s")) == (st.epoch, st.version, 2)
    assert run_sync(steps.probe("nope")) is None


async def test_the_adapter_of_it_says_the_same() -> None:
    adapter = AsyncStoreAdapter(AppendOnlyStore(), offload=False)
    await adapter.append("s", [user("a")])
    steps = AsyncStoreSteps(adapter)
    assert not steps.branching
    assert isinstance(adapter, AsyncBranchingStore)  # its methods are there, and say why not
    with pytest.raises(ConfigurationError, match="AppendOnlyStore cannot branch"):
        await adapter.branches("s")
    with pytest.raises(ConfigurationError, match="AppendOnlyStore cannot branch"):
        await run_async(steps.branch_messages("s", "b"))
    st = await adapter.load("s")
    assert await run_async(steps.probe("s")) == (st.epoch, st.version, 1)
    assert AsyncStoreSteps(AsyncStoreAdapter(InMemoryStore())).branching
