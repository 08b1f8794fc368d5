"""``Memory(keep_summaries=...)`` and ``summary: keep_summaries:`` bound the summary log (#30).

Through the session layer, on every backend: a memory's reductions leave the latest N summaries
whole and older ones as stubs; a rollback to a stub is refused with the view unchanged; a
reopened memory reads its (whole) current summary; a store written before the bounded log
(no ``keep_summaries`` on ``commit``) keeps working, unbounded.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from summem import AsyncMemory, Memory
from summem.cli.sessions import reduction_timeline
from summem.config.model import parse_config
from summem.errors import ConfigurationError, StoreError
from summem.messages import Message, SummaryInfo
from summem.stores import InMemoryStore
from summem.stores.summary_log import DEFAULT_KEEP_SUMMARIES, is_stub
from tests.fakes.memory import small_reducer
from tests.fakes.messages import turn
from tests.stores.backends import Backend


def _grow(memory: Memory, turns: int = 30) -> None:
    for i in range(turns):
        memory.extend(turn(i))


def test_a_memory_keeps_the_latest_summaries_whole(sync_backend: Backend) -> None:
    store = sync_backend.native()
    memory = Memory("s", reducer=small_reducer(), store=store, keep_summaries=2)
    _grow(memory)
    log = memory.summaries()
    assert len(log) >= 5
    assert [is_stub(m) for m in log] == [True] * (len(log) - 2) + [False, False]
    assert memory.summary is not None and log[-1].id == memory.summary.id
    assert not is_stub(memory.summary) and memory.summary.text
    again = Memory("s", reducer=small_reducer(), store=store, keep_summaries=2)
    assert again.messages() == memory.messages()  # reopened: the whole current summary
    timeline = reduction_timeline(log)
    assert [t["summary_id"] for t in timeline] == [m.id for m in log]
    assert all(t["messages"] > 0 for t in timeline)  # stubs keep how many they covered
    assert [t["end"] for t in timeline] == sorted(t["end"] for t in timeline)
    again.close()
    memory.close()
    store.close()


def test_a_rollback_to_a_dropped_summary_fails_and_changes_nothing(sync_backend: Backend) -> None:
    store = sync_backend.native()
    memory = Memory("r", reducer=small_reducer(), store=store, keep_summaries=2)
    _grow(memory)
    log = memory.summaries()
    view, length = memory.messages(), len(memory.history())
    with pytest.raises(StoreError, match="metadata only"):
        memory.rollback(log[0].id)
    assert memory.messages() == view and len(memory.history()) == length
    memory.rollback(log[-2].id)  # a whole one: rolled back
    assert memory.summary is not None and memory.summary.id == log[-2].id
    memory.close()
    store.close()


def test_the_default_bound_and_none_for_every_summary(sync_backend: Backend) -> None:
    store = sync_backend.native()
    default = Memory("d", reducer=small_reducer(), store=store)
    unbounded = Memory("u", reducer=small_reducer(), store=store, keep_summaries=None)
    _grow(default, 120)
    _grow(unbounded, 40)
    log = default.summaries()
    assert len(log) > DEFAULT_KEEP_SUMMARIES
    assert sum(not is_stub(m) for m in log) == DEFAULT_KEEP_SUMMARIES
    assert not any(is_stub(m) for m in unbounded.summaries())
    default.close()
    unbounded.close()
    store.close()


@pytest.mark.parametrize("bad", [0, -2, 1.5, "3", True])
def test_a_bad_keep_summaries_is_refused(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="keep_summaries"):
        Memory("x", keep_summaries=bad)
    with pytest.raises(ConfigurationError, match="keep_summaries"):
        AsyncMemory("x", keep_summaries=bad)


def test_summem_yaml_sets_the_bound() -> None:
    config = parse_config(
        "store: memory://\nbudget:\n  unit: messages\n  threshold: 8\n  target: 4\n"
        "summary:\n  keep_summaries: 3\n"
    )
    memory = config.build_memory("c", store=InMemoryStore())
    _grow(memory)
    assert len(memory.summaries()) > 3
    assert sum(not is_stub(m) for m in memory.summaries()) == 3
    memory.close()
    with pytest.raises(ConfigurationError, match="keep_summaries"):
        parse_config("summary:\n  keep_summaries: 0\n")
    unbounded = parse_config("summary:\n  keep_summaries: null\n")
    assert unbounded.summary.keep_summaries is None


class OldStore(InMemoryStore):
    """A store written before the bounded log: ``commit`` has no ``keep_summaries``."""

    def commit(  # type: ignore[override]  # the older signature, on purpose
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> int:
        return super().commit(
            session_id,
            summary=summary,
            watermark=watermark,
            expected_version=expected_version,
            expected_epoch=expected_epoch,
        )


def test_a_store_without_keep_summaries_still_works_unbounded() -> None:
    store = OldStore()
    memory = Memory("o", reducer=small_reducer(), store=store, keep_summaries=2)
    _grow(memory)
    log = memory.summaries()
    assert len(log) >= 5 and not any(is_stub(m) for m in log)
    memory.close()

    async def run() -> list[Message]:
        async with AsyncMemory("a", reducer=small_reducer(), store=OldStore()) as mem:
            for i in range(30):
                await mem.extend(turn(i))
            return await mem.summaries()

    assert not any(is_stub(m) for m in asyncio.run(run()))


def test_async_memory_bounds_the_log() -> None:
    async def run() -> list[Message]:
        store = InMemoryStore()
        async with AsyncMemory("a", reducer=small_reducer(), store=store, keep_summaries=1) as m:
            for i in range(30):
                await m.extend(turn(i))
            return await m.summaries()

    log = asyncio.run(run())
    assert len(log) >= 5 and [is_stub(m) for m in log] == [True] * (len(log) - 1) + [False]


def test_a_reopen_reads_the_view_not_the_history(sync_backend: Backend) -> None:
    store = sync_backend.native()
    history = [Message.from_openai({"role": "user", "content": f"m{i}"}) for i in range(3000)]
    store.append("long", history)
    state = store.load("long")
    summary = Message.from_openai({"role": "user", "content": "the first 2990"}).as_summary(
        SummaryInfo(watermark=2990, extra={"history_usage": {}})
    )
    store.commit(
        "long",
        summary=summary,
        watermark=2990,
        expected_version=state.version,
        expected_epoch=state.epoch,
    )
    reads: list[tuple[int, int | None]] = []
    loaded: list[int] = []
    history_of, load_of = store.history, store.load

    def counted_history(session_id: str, start: int = 0, stop: int | None = None) -> Any:
        reads.append((start, stop))
        return history_of(session_id, start, stop)

    def counted_load(session_id: str) -> Any:
        found = load_of(session_id)
        loaded.append(len(found.tail))
        return found

    store.history, store.load = counted_history, counted_load
    memory = Memory("long", reducer=small_reducer(threshold_tokens=10_000), store=store)
    view = memory.messages()
    assert [m["content"] for m in view] == [summary.text, *(f"m{i}" for i in range(2990, 3000))]
    assert reads == [] and loaded == [10]  # the row, the summary and history[2990:] only
    memory.close()
    store.close()


def test_a_reopen_after_a_truncation_reads_the_head_only_for_usage(sync_backend: Backend) -> None:
    from summem.reducers.truncation import TruncationReducer

    store = sync_backend.native()
    truncating = Memory("t", reducer=TruncationReducer(threshold_messages=20), store=store)
    reply = Message.from_openai({"role": "assistant", "content": "ok"})
    for i in range(1200):
        truncating.add(reply.with_id(f"r{i}").with_meta(usage={"total_tokens": 2}))
    truncating.close()
    k = store.load("t").watermark
    assert k > 1000 and store.load("t").summary is None  # a plain truncation: no summary
    reads: list[tuple[int, int | None]] = []
    history_of = store.history

    def counted(session_id: str, start: int = 0, stop: int | None = None) -> Any:
        reads.append((start, stop))
        return history_of(session_id, start, stop)

    store.history = counted
    memory = Memory("t", reducer=TruncationReducer(threshold_messages=20), store=store)
    assert len(memory.messages()) == 1200 - k and reads == []  # the view, not the history
    assert memory.usage == {"total_tokens": 2400}  # the head read once, now it is asked
    assert reads and reads[0][0] == 0 and all(s is not None and s - a <= 500 for a, s in reads)
    count = len(reads)
    assert memory.usage == {"total_tokens": 2400} and len(reads) == count  # not again
    memory.close()
    store.close()
