"""The loop breaker: reductions that free almost nothing, or a summary that keeps growing,
pause automatic reductions (logged, visible on the memory, resumable); ordinary workloads
never pause."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

import pytest

from summem import AsyncMemory, Memory, SummarizationReducer
from summem._flow import Flow, done
from summem.errors import ConfigurationError
from summem.reducers import LoopGuard, ReductionsPaused
from summem.reducers.loop_guard import LoopWatch
from summem.summarizers.base import SummaryOutput, SummaryRequest
from tests.fakes.counters import WordCounter, words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import a, sys, turn, u
from tests.fakes.summarizers import FakeSummarizer
from tests.test_async_parity import Awaited


def pinned_memory(summarizer: FakeSummarizer, **kw: Any) -> Memory:
    """A memory whose system message (80 of its 100 tokens) the cut can never evict."""
    memory = Memory("s", reducer=small_reducer(summarizer, **kw))
    memory.add(sys(words(80, "sys")))
    return memory


def test_a_reduction_loop_pauses_within_three_reductions(caplog: pytest.LogCaptureFixture) -> None:
    summarizer = FakeSummarizer()
    memory = pinned_memory(summarizer)
    with caplog.at_level(logging.WARNING, logger="summem"):
        for i in range(5):
            memory.add(u(words(3, f"m{i}")))
    # without the breaker: one summarizer call per turn, forever (each frees one message)
    assert len(summarizer.requests) == 3
    paused = memory.reductions_paused
    assert isinstance(paused, ReductionsPaused) and paused.reason == "ineffective"
    assert paused.reductions == 3 and "3 reductions in a row freed less than 10" in paused.detail
    assert "automatic reductions paused (ineffective)" in caplog.text
    for i in range(40):
        memory.add(u(words(3, f"n{i}")))
        assert memory.size <= 100  # the hard limit holds: offline summaries, no summarizer
    assert len(summarizer.requests) == 3
    folded = memory.summaries()[3:]  # by the extractive summarizer, or truncated (the log keeps it)
    assert folded and all(
        s.summary_info is not None and s.summary_info.summarizer == "extractive" for s in folded
    )
    assert memory.summary is None or memory.summary.id == folded[-1].id
    assert len(memory.history_messages()) == 45  # nothing lost (I1)
    assert memory.recall("m00")[0].position == 0
    check_session(memory.store, "s", memory.view())


def test_a_paused_session_warns_once_that_it_truncates(caplog: pytest.LogCaptureFixture) -> None:
    # a system message larger than the budget: every later turn truncates; one warning says so
    memory = pinned_memory(FakeSummarizer())
    with caplog.at_level(logging.DEBUG, logger="summem"):
        for i in range(20):
            memory.add(u(words(3, f"m{i}")))
    truncations = [r for r in caplog.records if "without summarizing" in r.getMessage()]
    assert len(truncations) > 3  # each is still logged...
    assert [r.levelno for r in truncations].count(logging.WARNING) == 1  # ...one as a warning
    assert truncations[0].levelno == logging.WARNING
    memory.resume_reductions()  # a new pause warns again
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="summem"):
        for i in range(10):
            memory.add(u(words(3, f"r{i}")))
    truncations = [r for r in caplog.records if "without summarizing" in r.getMessage()]
    assert [r.levelno for r in truncations].count(logging.WARNING) == 1


def test_resume_reduce_and_clear() -> None:
    summarizer = FakeSummarizer()
    memory = pinned_memory(summarizer)
    for i in range(5):
        memory.add(u(words(3, f"m{i}")))
    assert memory.reductions_paused is not None
    # paused turns past the hard limit fold offline into a summary made to fit the room left:
    # the view is the system message, a summary and the newest turn, with nothing to evict
    for i in range(3):
        memory.add(u(words(3, f"p{i}")))
        assert memory.summary is not None and len(memory.view()) == 3
    assert memory.reduce() is None and len(summarizer.requests) == 3
    assert memory.reductions_paused is not None  # reduce() does not resume
    memory.resume_reductions()
    assert memory.reductions_paused is None
    for i in range(3):
        memory.add(u(words(3, f"r{i}")))
    assert memory.reductions_paused is not None  # caught again, after three more
    assert len(summarizer.requests) == 6
    memory.clear()
    assert memory.reductions_paused is None


def test_ordinary_workloads_never_pause() -> None:
    summarizer = FakeSummarizer()
    memory = Memory("s", reducer=small_reducer(summarizer))
    memory.add(sys("sys prompt"))
    for i in range(200):
        memory.extend(turn(i, n_words=(i * 7) % 13 + 1))
        assert memory.size <= 100
    assert memory.reductions_paused is None and len(summarizer.requests) > 40
    background = FakeSummarizer(reply="s")
    reducer = small_reducer(background, soft_threshold_tokens=80, hard_limit_tokens=400)
    memory = Memory("b", reducer=reducer)
    memory.extend([u(words(7, f"m{i}")) for i in range(35)])  # far over: one span a turn
    for i in range(30):
        memory.add(u(words(7, f"n{i}")))
        memory.wait()
    assert memory.reductions_paused is None and memory.size <= 100
    memory.close()


def test_a_loop_in_background_mode_pauses_and_keeps_the_hard_limit() -> None:
    summarizer = FakeSummarizer()
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=150)
    memory = Memory("s", reducer=reducer)
    memory.add(sys(words(80, "sys")))
    for i in range(40):
        memory.add(u(words(3, f"m{i}")))
        memory.wait()
        assert memory.size <= 150
    paused = memory.reductions_paused
    assert paused is not None and paused.reason == "ineffective"
    assert len(summarizer.requests) == 3
    memory.close()


def test_a_paused_session_says_so_when_a_reduction_was_due() -> None:
    events: list[Any] = []
    summarizer = FakeSummarizer()
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=150)
    memory = Memory("s", reducer=reducer, hooks=[events.append])
    memory.add(sys(words(80, "sys")))
    for i in range(40):
        memory.add(u(words(3, f"m{i}")))
        memory.wait()
    skipped = [e for e in events if type(e).__name__ == "ReductionSkipped"]
    assert skipped and {e.reason for e in skipped} == {"paused"}
    assert all(e.trigger == "soft" and "resume_reductions" in e.detail for e in skipped)
    memory.resume_reductions()
    before = len(skipped)
    memory.add(u(words(3, "again")))
    memory.wait()
    assert len([e for e in events if type(e).__name__ == "ReductionSkipped"]) == before
    memory.close()


def test_a_loop_pauses_the_same_way_async() -> None:
    async def run() -> tuple[ReductionsPaused | None, int, int]:
        summarizer = FakeSummarizer()
        memory = AsyncMemory("s", reducer=small_reducer(summarizer))
        await memory.add(sys(words(80, "sys")))
        for i in range(20):
            await memory.add(u(words(3, f"m{i}")))
        size = memory.size
        await memory.close()
        return memory.reductions_paused, len(summarizer.requests), size

    paused, calls, size = asyncio.run(run())
    assert paused is not None and paused.reason == "ineffective" and calls == 3 and size <= 100


@dataclass
class GrowingSummarizer:
    """Each summary is two words longer than the last (an ever-growing rolling summary)."""

    name: str = "growing"
    start: int = 0
    requests: list[SummaryRequest] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.requests.append(request)
        n = self.start + 2 * len(self.requests)
        return done(SummaryOutput(text=words(n, "g"), summarizer=self.name))


def growing_memory(summarizer: GrowingSummarizer, summary_max_tokens: int) -> Memory:
    reducer = SummarizationReducer(
        summarizer,
        token_counter=WordCounter(),
        threshold_tokens=100,
        target_tokens=60,
        summary_max_tokens=summary_max_tokens,
        loop_guard=LoopGuard(max_summary_fraction=0.1),  # 6 of the target's 60 tokens
    )
    return Memory("s", reducer=reducer)


def test_a_summary_growing_past_its_own_allowance_pauses() -> None:
    # 10 words allowed (a message of 23 with its prefix and overhead); the slack validation
    # accepts lets it grow to 26 words: 16, 18, 20 words are three growths past it
    summarizer = GrowingSummarizer(start=10)
    memory = growing_memory(summarizer, summary_max_tokens=10)
    for i in range(60):
        memory.add(u(words(7, f"m{i}")))
    paused = memory.reductions_paused
    assert paused is not None and paused.reason == "summary_growth"
    assert "grew in 3 reductions in a row, to 28 tokens, past its own allowance (23)" in (
        paused.detail
    )
    assert len(summarizer.requests) == 5  # 12 and 14 words are within the allowance
    for i in range(20):
        memory.add(u(words(7, f"n{i}")))
        assert memory.size <= 100
    assert len(summarizer.requests) == 5


def test_a_summary_growing_within_its_own_allowance_never_pauses() -> None:
    # past 0.1 of the target from the first reduction on, growing every time, but never past
    # the 40 words it may have: a summary filling its allowance is not a loop (issue #29)
    summarizer = GrowingSummarizer()
    memory = growing_memory(summarizer, summary_max_tokens=40)
    for i in range(400):
        memory.add(u(words(7, f"m{i}")))
        if len(summarizer.requests) == 19:  # 38 words: the next would be past the allowance
            break
    assert memory.reductions_paused is None and len(summarizer.requests) == 19
    assert memory.summary is not None


def test_no_guard_never_pauses() -> None:
    summarizer = FakeSummarizer()
    memory = pinned_memory(summarizer, loop_guard=None)
    for i in range(10):
        memory.add(u(words(3, f"m{i}")))
    assert memory.reductions_paused is None and len(summarizer.requests) == 8  # 2 fit


@pytest.mark.parametrize(
    ("kwargs", "field_name"),
    [
        ({"min_freed_fraction": 0}, "min_freed_fraction"),
        ({"min_freed_fraction": 1.5}, "min_freed_fraction"),
        ({"min_freed_fraction": "x"}, "min_freed_fraction"),
        ({"max_ineffective": 0}, "max_ineffective"),
        ({"max_ineffective": True}, "max_ineffective"),
        ({"max_summary_fraction": 0}, "max_summary_fraction"),
        ({"max_summary_fraction": 2}, "max_summary_fraction"),
    ],
)
def test_bad_guards_are_named(kwargs: dict[str, Any], field_name: str) -> None:
    with pytest.raises(ConfigurationError, match=f"loop_guard.{field_name}"):
        LoopGuard(**kwargs)


def test_a_loop_guard_must_be_one() -> None:
    with pytest.raises(ConfigurationError, match="loop_guard must be a LoopGuard"):
        small_reducer(loop_guard={"max_ineffective": 2})


def test_the_watch_counts_only_ineffective_reductions_in_a_row() -> None:
    watch = LoopWatch(LoopGuard(), threshold=100, target=60, unit="tokens")
    judge = watch.observe
    assert judge(freed=5, size_after=95, summary_before=5, summary_after=5) is None
    assert judge(freed=50, size_after=55, summary_before=5, summary_after=5) is None  # reset
    assert judge(freed=2, size_after=59, summary_before=5, summary_after=5) is None  # at target
    assert judge(freed=5, size_after=95, summary_before=5, summary_after=5) is None
    assert judge(freed=-3, size_after=99, summary_before=5, summary_after=33) is None
    verdict = judge(freed=9, size_after=91, summary_before=33, summary_after=33)
    assert verdict is not None and verdict.reason == "ineffective" and verdict.reductions == 6
    watch.reset()
    assert judge(freed=5, size_after=95, summary_before=5, summary_after=5) is None
    grow = LoopWatch(LoopGuard(), threshold=100, target=60, unit="tokens").observe
    assert grow(freed=50, size_after=50, summary_before=0, summary_after=40) is None  # first
    assert grow(freed=50, size_after=50, summary_before=40, summary_after=41) is None
    assert grow(freed=50, size_after=50, summary_before=41, summary_after=41) is None  # reset
    assert grow(freed=50, size_after=50, summary_before=41, summary_after=42) is None
    assert grow(freed=50, size_after=50, summary_before=42, summary_after=43) is None
    verdict = grow(freed=50, size_after=50, summary_before=43, summary_after=44)
    assert verdict is not None and verdict.reason == "summary_growth"


def test_an_unanswered_call_holding_the_view_over_its_budget_is_named_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    memory = Memory("s", reducer=small_reducer(FakeSummarizer()))
    memory.add(u("weather?"))
    calls = [{"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]
    memory.add({"role": "assistant", "content": None, "tool_calls": calls})
    with caplog.at_level(logging.WARNING, logger="summem"):
        for i in range(30):
            memory.add(u(words(3, f"m{i}")))
            memory.add(a(words(3, f"r{i}")))
    blocked = [r for r in caplog.records if "cannot be reduced" in r.getMessage()]
    assert len(blocked) == 1 and "'c1'" in blocked[0].getMessage()
    assert memory.size > 100  # nothing after the call is evicted: the warning is the news
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="summem"):
        memory.add({"role": "tool", "tool_call_id": "c1", "content": "error: no weather"})
        memory.add(u(words(3, "after")))
    assert memory.size <= 100  # answered: the view shrinks again
    assert "cannot be reduced" not in caplog.text


def test_calls_being_run_at_the_end_of_the_view_are_not_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    memory = Memory("s", reducer=small_reducer(FakeSummarizer()))
    calls = [{"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]
    with caplog.at_level(logging.WARNING, logger="summem"):
        memory.add(u(words(120, "big")))
        memory.add({"role": "assistant", "content": None, "tool_calls": calls})
    assert "cannot be reduced" not in caplog.text


def test_a_reused_call_id_left_unanswered_is_named_again_and_counted_from_itself(
    caplog: pytest.LogCaptureFixture,
) -> None:
    memory = Memory("s", reducer=small_reducer(FakeSummarizer()))
    calls = [{"id": "call_0", "type": "function", "function": {"name": "w", "arguments": "{}"}}]
    ask = {"role": "assistant", "content": None, "tool_calls": calls}
    memory.extend([u("weather?"), ask, {"role": "tool", "tool_call_id": "call_0", "content": "ok"}])
    memory.extend([u("and now?"), ask])  # the same id again, never answered
    held: int | None = None  # the messages from the open call on, when first warned
    with caplog.at_level(logging.WARNING, logger="summem"):
        for i in range(30):
            for msg in (u(words(3, f"m{i}")), a(words(3, f"r{i}"))):
                memory.add(msg)
                if held is None and "cannot be reduced" in caplog.text:
                    tail = memory.view()
                    later = max(i for i, m in enumerate(tail) if m.tool_call_ids == ("call_0",))
                    held = len(tail) - later
    blocked = [r.getMessage() for r in caplog.records if "cannot be reduced" in r.getMessage()]
    assert len(blocked) == 1 and held is not None
    assert f"({held} messages)" in blocked[0]  # from the call left open, not the first one
    memory.add({"role": "tool", "tool_call_id": "call_0", "content": "error: no weather"})
    memory.add(u(words(3, "after")))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="summem"):
        memory.extend([u("once more?"), ask])  # reused a third time, never answered
        for i in range(30):
            memory.add(u(words(3, f"n{i}")))
            memory.add(a(words(3, f"s{i}")))
    assert len([r for r in caplog.records if "cannot be reduced" in r.getMessage()]) == 1


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_paused_truncation_keeps_the_summary_to_chain_from(kind: str) -> None:
    # paused, past the hard limit, where not even the offline summary fits: the view drops
    # the summary, but the next reduction (once resumed) still starts from it (issue #29)
    async def run() -> tuple[FakeSummarizer, list[bool]]:
        summarizer = FakeSummarizer(reply="order BW-1")
        sync = Memory("s", reducer=small_reducer(summarizer))
        memory: Any = Awaited(sync) if kind == "sync" else AsyncMemory("s", reducer=sync.reducer)
        await memory.add(sys(words(80, "sys")))
        dropped = []
        for i in range(12):
            await memory.add(u(words(3, f"m{i}")))
            dropped.append(memory.summary is None)
        assert memory.reductions_paused is not None
        resumed = memory.resume_reductions()
        if asyncio.iscoroutine(resumed):
            await resumed
        calls = len(summarizer.requests)
        for i in range(6):
            await memory.add(u(words(3, f"r{i}")))
        assert len(summarizer.requests) > calls
        await memory.close()
        return summarizer, dropped

    summarizer, dropped = asyncio.run(run())
    assert any(dropped)  # a truncation took the summary out of the view
    first = summarizer.requests[3]  # the first call once resumed (3 paused the session)
    assert first.previous_summary is not None and "BW-1" in first.previous_summary
