"""The turns a reduction keeps reach the summarizer as read-only context (``kept``)."""

from __future__ import annotations

import asyncio

from summem.async_memory import AsyncMemory
from summem.memory import Memory
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from tests.fakes.counters import WordCounter
from tests.fakes.memory import small_reducer
from tests.fakes.messages import turn, u
from tests.fakes.summarizers import FakeSummarizer


def _ids(messages: object) -> list[str]:
    return [m.id for m in messages]  # type: ignore[attr-defined]


def test_the_pure_reducer_hands_the_summarizer_the_turns_it_keeps() -> None:
    fake = FakeSummarizer()
    reducer = SummarizationReducer(
        fake,
        token_counter=WordCounter(),
        threshold_tokens=100,
        target_tokens=60,
        summary_max_tokens=10,
    )
    messages = [m for i in range(6) for m in turn(i)]
    result = reducer.reduce(messages)
    assert result.reduced
    request = fake.requests[-1]
    kept = [m for m in result.view if not m.is_summary]
    assert _ids(request.kept) == _ids(kept) and kept  # the view after it, in order
    assert not set(_ids(request.kept)) & set(_ids(request.messages))  # never the span


def _kept_match_the_view(memory_view: list[Message], fake: FakeSummarizer) -> None:
    request = fake.requests[-1]
    assert request.kept  # a reduction keeps the newest turns
    tail = [m.id for m in memory_view if not m.is_summary and m.role != "system"]
    assert set(_ids(request.kept)) <= set(tail)  # what stays verbatim (later turns appended)
    assert not set(_ids(request.kept)) & set(_ids(request.messages))


def test_a_memory_hands_the_summarizer_the_turns_it_keeps_sync_and_async() -> None:
    fake = FakeSummarizer()
    memory = Memory("s", reducer=small_reducer(fake))
    for i in range(12):
        memory.extend(turn(i))
    _kept_match_the_view(memory.view(), fake)

    async def run() -> tuple[list[Message], FakeSummarizer]:
        afake = FakeSummarizer()
        amemory = AsyncMemory("s", reducer=small_reducer(afake))
        for i in range(12):
            await amemory.extend(turn(i))
        return await amemory.view(), afake

    view, afake = asyncio.run(run())
    _kept_match_the_view(view, afake)


def test_recompute_hands_every_span_the_turns_the_view_keeps() -> None:
    memory = Memory("s", reducer=small_reducer())
    for i in range(30):
        memory.extend(turn(i))
    memory.add(u("last words"))
    fresh = FakeSummarizer(reply="recomputed")
    memory.recompute(summarizer=fresh)
    tail = [m.id for m in memory.view() if not m.is_summary and m.role != "system"]
    assert len(fresh.requests) > 1
    assert all(_ids(r.kept) == tail for r in fresh.requests)


def test_a_span_before_later_spans_takes_no_reply_from_the_kept_turns() -> None:
    """The kept turns follow the last span only: an earlier span's offer is not theirs to decide.

    Every span of a reduction gets ``kept``; "ok, lock that in" answered the last span, not the
    train the user turned down in the next one (review19).
    """
    from summem._flow import run_sync
    from summem.session.plan import summarize_span
    from summem.summarizers.extractive import ExtractiveSummarizer

    def m(i: str, role: str, text: str) -> Message:
        return Message.from_openai({"role": role, "content": text}, id=i)

    reducer = SummarizationReducer(
        ExtractiveSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=400,
        target_tokens=200,
        summary_max_tokens=120,
    )
    first = [
        m("u1", "user", "We're going to Leeds for the conference on Friday."),
        m("a1", "assistant", "I found two trains. Shall I hold the 7:40 to Leeds on Friday?"),
    ]
    second = [
        m("u2", "user", "No, too early, we'll drive instead."),
        m("a2", "assistant", "Noted, no train. Shall I book parking near the venue?"),
    ]
    kept = (m("u3", "user", "ok, lock that in"),)
    summary, _ = run_sync(summarize_span(reducer, first, second, None, watermark=2, kept=kept))
    assert summary.content is not None and "lock that in" not in summary.content
