"""Every event fires exactly once per occurrence: memory/SQLite/Redis stores, sync and async."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import pytest

from summem import (
    AsyncMemory,
    ExtractiveSummarizer,
    FallbackSummarizer,
    Memory,
    SummarizationReducer,
)
from summem._flow import Flow, done
from summem.errors import (
    ConfigurationError,
    ConflictError,
    LeaseHeldError,
    StoreError,
    SummarizationError,
)
from summem.events import (
    MemoryEvent,
    ReductionCommitted,
    ReductionFailed,
    ReductionPlanned,
    ReductionSkipped,
    ReductionStarted,
    SessionCleared,
    StoreConflictRetried,
    SummarizerCalled,
    SummaryRecomputed,
    SummaryRejected,
    SummaryRolledBack,
)
from summem.messages import parse_message
from summem.stores import InMemoryStore
from summem.stores.base import Store
from summem.summarizers.base import SummaryOutput, SummaryRequest
from tests.fakes.counters import WordCounter, words
from tests.fakes.memory import small_reducer
from tests.fakes.messages import u
from tests.fakes.summarizers import FakeSummarizer, failing
from tests.observe.harness import Recorder, Setup, kind, settle, setup

__all__ = ["kind", "setup"]  # fixtures

REDUCTION = [ReductionPlanned, ReductionStarted, SummarizerCalled, ReductionCommitted]


async def fill(memory: Any, n: int, tag: str = "m") -> None:
    for i in range(n):
        await settle(memory.add(u(words(7, f"{tag}{i}"))))


async def test_each_reduction_announces_planned_started_called_committed_once(
    setup: Setup,
) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(), hooks=[rec])
    await fill(memory, 30)
    summaries = await settle(setup.store.summaries("s"))
    assert len(summaries) >= 3
    committed = rec.of(ReductionCommitted)
    assert len(committed) == len(summaries)
    assert rec.kinds() == [k.__name__ for _ in summaries for k in REDUCTION]
    for event, summary in zip(committed, summaries, strict=True):
        info = summary.summary_info
        assert event.summary_id == summary.id and event.covered_ids == info.covered_ids
        assert event.watermark == info.watermark and event.session_id == "s"
        assert event.trigger == "hard" and not event.background
        assert event.size_after < event.size_before and event.summarizer == "fake"
    plans = rec.of(ReductionPlanned)
    assert [p.new_watermark for p in plans] == [c.watermark for c in committed]
    assert all(p.first_id == c.covered_ids[0] for p, c in zip(plans, committed, strict=True))
    await settle(memory.close())


async def test_explicit_reduce_and_background_reductions_announce_once(setup: Setup) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(soft_threshold_tokens=80), hooks=[rec])
    await fill(memory, 10)
    await settle(memory.wait())
    soft = rec.of(ReductionCommitted)
    assert soft and all(e.background and e.trigger == "soft" for e in soft)
    assert len(soft) == len(await settle(setup.store.summaries("s")))
    while memory.size <= 60:  # over the target, under the soft threshold
        await fill(memory, 1, tag=f"x{memory.size}")
    before = len(rec.events)
    assert memory.size <= 80
    await settle(memory.reduce())
    explicit = rec.events[before:]
    assert [type(e) for e in explicit] == REDUCTION
    assert rec.of(ReductionCommitted)[-1].trigger == "explicit"
    await settle(memory.close())


async def test_a_failure_announces_failed_then_backoff_skips_once_per_turn(setup: Setup) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(failing(), fail_on_error=False), hooks=[rec])
    await fill(memory, 12)
    failed = rec.of(ReductionFailed)
    assert len(failed) == 1
    assert failed[0].error_type == "SummarizationError" and failed[0].next == "backoff"
    assert failed[0].backoff_tokens == 40
    skipped = rec.of(ReductionSkipped)
    over = len(rec.events) - len(skipped)
    assert skipped and all(s.reason == "backoff" for s in skipped)
    assert over == 3  # planned, started, failed: the summarizer raised, no call was announced
    await settle(memory.close())


async def test_raising_failures_say_so(setup: Setup) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(failing()), hooks=[rec])
    with pytest.raises(SummarizationError):
        await fill(memory, 12)
    assert [(e.error_type, e.next) for e in rec.of(ReductionFailed)] == [
        ("SummarizationError", "raise")
    ]
    await settle(memory.close())


async def test_a_rejected_summary_is_announced_once_with_its_reason(setup: Setup) -> None:
    rec = Recorder()
    leaky = FakeSummarizer(reply="see ![x](https://evil.example/p)")
    memory = setup.memory(reducer=small_reducer(leaky, fail_on_error=False), hooks=[rec])
    await fill(memory, 12)
    rejected = rec.of(SummaryRejected)
    assert len(rejected) == 1 and rejected[0].next == "fail" and rejected[0].session_id == "s"
    assert "markdown images" in rejected[0].reason
    assert rejected[0].error_type == "InvalidSummaryError"
    assert len(rec.of(ReductionFailed)) == 1
    await settle(memory.close())


async def test_a_chain_announces_each_rejected_step_and_the_fallback_it_used(
    setup: Setup,
) -> None:
    rec = Recorder()
    chain = FallbackSummarizer([FakeSummarizer(name="leaky", reply=""), ExtractiveSummarizer()])
    reducer = SummarizationReducer(
        chain,
        threshold_tokens=100,
        target_tokens=60,
        summary_max_tokens=30,
        token_counter=WordCounter(),
    )
    memory = setup.memory(reducer=reducer, hooks=[rec])
    await fill(memory, 12)
    committed = rec.of(ReductionCommitted)
    rejected = rec.of(SummaryRejected)
    assert len(committed) == 1 and len(rejected) == 1
    assert rejected[0].summarizer == "leaky" and rejected[0].next == "next_step"
    assert committed[0].fallback_used == "extractive"
    assert committed[0].fallback_failed == ("leaky",)
    (called,) = rec.of(SummarizerCalled)
    assert called.fallback_used == "extractive" and called.fallback_failed == ("leaky",)
    await settle(memory.close())


async def test_a_held_lease_is_announced_as_a_skip(setup: Setup) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(), hooks=[rec])
    await fill(memory, 5)
    assert setup.raw.acquire_lease("s", "someone-else", 60)
    await fill(memory, 7, tag="x")
    skipped = rec.of(ReductionSkipped)
    assert skipped[0].reason == "lease_held" and skipped[0].trigger == "hard"
    assert not rec.of(ReductionPlanned)
    with pytest.raises(LeaseHeldError):
        await settle(memory.reduce())
    assert rec.of(ReductionSkipped)[-1].trigger == "explicit"
    # one per turn that found the lease held or waited after it; none announced twice
    assert len(skipped) <= 7
    setup.raw.release_lease("s", "someone-else")
    await settle(memory.close())


@dataclass
class Meddler:
    """Summarizes, but first empties the session behind the memory's back (once)."""

    raw: Store
    name: str = "meddler"
    calls: list[int] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.calls.append(1)
        if len(self.calls) == 1:
            self.raw.clear("s")
        return done(SummaryOutput(text="S", summarizer=self.name))


async def test_a_store_conflict_is_announced_once_per_lost_compare_and_set(
    setup: Setup,
) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(Meddler(setup.raw)), hooks=[rec])
    await fill(memory, 12)
    conflicts = rec.of(StoreConflictRetried)
    assert [(c.attempt, c.next) for c in conflicts] == [(1, "retry")]
    assert not rec.of(ReductionCommitted)  # the session was emptied: nothing left to reduce
    await settle(memory.close())


async def test_a_failing_hook_is_logged_and_never_breaks_the_turn(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    rec = Recorder()

    def broken(event: MemoryEvent) -> None:
        raise RuntimeError("hook bug")

    memory = setup.memory(reducer=small_reducer(), hooks=[broken, rec])
    with caplog.at_level(logging.ERROR, logger="summem"):
        await fill(memory, 12)
    assert rec.of(ReductionCommitted) and memory.summary is not None
    assert any("hook" in r.getMessage() and "failed" in r.getMessage() for r in caplog.records)
    memory.remove_hook(broken)
    caplog.clear()
    await fill(memory, 12, tag="y")
    assert not caplog.records
    await settle(memory.close())


async def test_async_hooks_are_awaited_by_async_memory_and_refused_by_memory() -> None:
    seen: list[MemoryEvent] = []

    async def hook(event: MemoryEvent) -> None:
        seen.append(event)

    memory = AsyncMemory("s", reducer=small_reducer())
    memory.add_hook(hook)
    await fill(memory, 12)
    assert [type(e) for e in seen] == REDUCTION
    with pytest.raises(ConfigurationError, match="async"):
        Memory("s", hooks=[hook])
    with pytest.raises(ConfigurationError, match="callable"):
        Memory("s", hooks=["nope"])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="list of callables"):
        Memory("s", hooks=hook)  # type: ignore[arg-type]


class LeaseDown(InMemoryStore):
    """A store whose lease service fails (a background reduction cannot even start)."""

    def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        raise StoreError("lease service down")


@pytest.mark.parametrize("facade", [Memory, AsyncMemory])
async def test_a_background_failure_outside_the_reduction_is_announced_once(
    facade: type[Memory] | type[AsyncMemory],
) -> None:
    rec = Recorder()
    memory = facade("s", reducer=small_reducer(soft_threshold_tokens=80), store=LeaseDown())
    memory.add_hook(rec)
    await fill(memory, 10)
    with pytest.raises(StoreError, match="lease service down"):
        await settle(memory.wait())
    (failed,) = rec.of(ReductionFailed)
    assert failed.error_type == "StoreError" and failed.background and failed.trigger == "soft"
    await settle(memory.close())


@dataclass
class Rewriter:
    """Summarizes, but first replaces the session behind the memory's back, every time."""

    raw: Store
    name: str = "rewriter"

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.raw.clear("s")
        self.raw.append("s", [parse_message(u(words(7, f"r{i}"))) for i in range(12)])
        return done(SummaryOutput(text="S", summarizer=self.name))


async def test_a_second_lost_compare_and_set_gives_up_and_says_so(setup: Setup) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(Rewriter(setup.raw)), hooks=[rec])
    await fill(memory, 9)
    with pytest.raises(ConflictError, match="kept changing"):
        await settle(memory.reduce())
    conflicts = rec.of(StoreConflictRetried)
    assert [(c.attempt, c.next) for c in conflicts] == [(1, "retry"), (2, "give_up")]
    assert not rec.of(ReductionCommitted) and not rec.of(ReductionFailed)
    await settle(memory.close())


async def test_a_resumed_memory_takes_hooks_and_a_spend_limit() -> None:
    from summem.observe import SpendLimit

    rec, limit = Recorder(), SpendLimit(max_tokens=10)
    source = Memory("s", reducer=small_reducer())
    await fill(source, 5)
    data = source.to_dict()
    resumed = Memory.from_dict(data, reducer=small_reducer(), hooks=[rec], spend_limit=limit)
    aresumed = await AsyncMemory.from_dict(
        data, reducer=small_reducer(), hooks=[rec], spend_limit=limit
    )
    assert resumed.spend_limit is limit and aresumed.spend_limit is limit
    await fill(resumed, 7)
    await fill(aresumed, 7)
    assert len(rec.of(ReductionCommitted)) == 2
    resumed.close()
    await aresumed.close()


VIEW_CHANGES = (SummaryRecomputed, SummaryRolledBack, SessionCleared)


def summary_id(memory: Any) -> str | None:
    return memory.summary.id if memory.summary is not None else None


async def stored_watermark(setup: Setup) -> int:
    state = await settle(setup.store.load("s"))
    return int(state.watermark)


async def test_recompute_rollback_and_clear_are_each_announced_once(setup: Setup) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(), hooks=[rec])
    await fill(memory, 30)
    summaries = await settle(setup.store.summaries("s"))
    assert len(summaries) >= 2
    assert not [e for e in rec.events if isinstance(e, VIEW_CHANGES)]
    current, watermark = summary_id(memory), await stored_watermark(setup)

    before = len(rec.events)
    new = await settle(memory.recompute(summarizer=FakeSummarizer(name="again")))
    (recomputed,) = rec.events[before:]
    assert isinstance(recomputed, SummaryRecomputed) and recomputed.session_id == "s"
    assert recomputed.summary_id == new.id == summary_id(memory)
    assert current is not None and recomputed.previous_summary_id == current
    assert recomputed.watermark == watermark == await stored_watermark(setup)
    assert recomputed.spans >= 1 and recomputed.summarizer == "again"
    assert recomputed.calls == 0 and recomputed.cost_usd == 0.0 and recomputed.model is None
    assert recomputed.summary_text == new.text and "summary_text" not in repr(recomputed)

    first = summaries[0]
    before = len(rec.events)
    await settle(memory.rollback(first.id))
    (rolled,) = rec.events[before:]
    assert isinstance(rolled, SummaryRolledBack)
    assert rolled.summary_id == first.id == summary_id(memory)
    assert rolled.previous_summary_id == new.id
    assert rolled.watermark == first.summary_info.watermark == await stored_watermark(setup)
    assert rolled.previous_watermark == watermark

    before = len(rec.events)
    await settle(memory.rollback(None))
    (to_none,) = rec.events[before:]
    assert isinstance(to_none, SummaryRolledBack) and to_none.summary_id is None
    assert to_none.watermark == 0 and to_none.previous_summary_id == first.id

    await fill(memory, 14, tag="y")  # reduces again
    reduced = summary_id(memory)
    before = len(rec.events)
    await settle(memory.clear())
    (cleared,) = rec.events[before:]
    assert isinstance(cleared, SessionCleared) and cleared.session_id == "s"
    assert reduced is not None and cleared.previous_summary_id == reduced
    assert cleared.previous_watermark > 0 and await stored_watermark(setup) == 0
    kinds = [type(e) for e in rec.events if isinstance(e, VIEW_CHANGES)]
    assert kinds == [SummaryRecomputed, SummaryRolledBack, SummaryRolledBack, SessionCleared]
    await settle(memory.close())


async def test_a_failed_recompute_or_rollback_announces_nothing(setup: Setup) -> None:
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(), hooks=[rec])
    await fill(memory, 14)
    assert memory.summary is not None
    before = len(rec.events)
    with pytest.raises(SummarizationError):
        await settle(memory.recompute(summarizer=failing()))
    with pytest.raises(StoreError):
        await settle(memory.rollback("no-such-summary"))
    assert rec.events[before:] == []
    empty = setup.memory("empty", reducer=small_reducer(), hooks=[rec])
    assert await settle(empty.recompute()) is None  # nothing to recompute: nothing changed
    assert rec.events[before:] == []
    await settle(memory.close())
    await settle(empty.close())
