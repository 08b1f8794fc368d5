"""The back-off after a failed reduction never pins a view over its hard limit (issue #33).

A reduction that could only summarize one small message is rightly rejected (the summary was
longer than what it replaced); the back-off that follows must end as soon as something worth
summarizing becomes evictable (a large tool group, once it is no longer the newest), and it
may never keep the view past the hard limit: there the view is truncated, as the design's
chain ends in "something that fits". Chat messages and Responses items, sync and async.
"""

from __future__ import annotations

from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.errors import SummarizationError
from summem.events import ReductionCommitted, ReductionFailed, ReductionSkipped
from summem.memory import Memory
from summem.session.plan import CEILING_FALLBACK
from tests.fakes.counters import words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import call, res, u
from tests.fakes.summarizers import FakeSummarizer, failing
from tests.test_async_parity import Awaited, sync_store

KINDS = ["sync", "async"]
FORMS = ["chat", "responses"]
HUGE = 7500  # 75x the threshold (100): the default hard limit is twice the threshold


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)


def make(kind: str, summarizer: FakeSummarizer, rec: Recorder | None = None, **kw: Any) -> Any:
    reducer = small_reducer(summarizer, fail_on_error=False, **kw)
    hooks = [rec] if rec is not None else []
    if kind == "sync":
        return Awaited(Memory("s", reducer=reducer, hooks=hooks))
    return AsyncMemory("s", reducer=reducer, hooks=hooks)


async def add(memory: Any, form: str, msg: dict[str, Any]) -> None:
    if form == "chat":
        await memory.add(msg)
        return
    if msg["role"] == "tool":
        item = {"type": "function_call_output", "call_id": msg["tool_call_id"]}
        await memory.add_items([{**item, "output": msg["content"]}])
    elif msg.get("tool_calls"):
        [tc] = msg["tool_calls"]
        fn = tc["function"]
        item = {"type": "function_call", "call_id": tc["id"], "name": fn["name"]}
        await memory.add_items([{**item, "arguments": fn["arguments"]}])
    else:
        await memory.add_items([{"role": msg["role"], "content": msg["content"]}])


async def huge_tool_group(memory: Any, form: str) -> None:
    """A small message, then a tool group 75x the threshold: the newest group stays whole,
    so the reduction it triggers can only summarize the small message."""
    await add(memory, form, u(words(2, "hi")))
    await add(memory, form, call("c1"))
    await add(memory, form, res("c1", words(HUGE, "r")))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", KINDS)
async def test_a_back_off_ends_when_a_huge_group_becomes_evictable(kind: str, form: str) -> None:
    # eight words: longer than the two-word span (rejected), fine for the tool group
    summarizer = FakeSummarizer(reply=words(8, "s"))
    rec = Recorder()
    memory = make(kind, summarizer, rec)
    await huge_tool_group(memory, form)
    failed = [e for e in rec.events if isinstance(e, ReductionFailed)]
    assert len(failed) == 1 and memory.summary is None  # rightly rejected: longer than "hi0 hi1"
    assert memory.size > 75 * 100
    for i in range(10):
        await add(memory, form, u(f"thanks {i}"))  # the tool group is evictable now
        assert memory.size <= 100, f"turn {i}: the view is still {memory.size}"
    assert memory.summary is not None
    assert len(summarizer.requests) == 3  # the rejected one, then one per span (2)
    check_session(sync_store(memory), "s", await memory.view())
    await memory.close()


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", KINDS)
async def test_a_back_off_never_holds_the_view_past_the_hard_limit(kind: str, form: str) -> None:
    # the summarizer is down: past the hard limit the chain ends in truncation, which fits
    summarizer = failing()
    rec = Recorder()
    memory = make(kind, summarizer, rec)
    await huge_tool_group(memory, form)
    await add(memory, form, u("thanks"))  # a retry: the evictable span changed; it fails too
    assert memory.size > 75 * 100
    await add(memory, form, u("still there?"))  # same span, back-off: but past the hard limit
    assert memory.size <= 100
    assert len(summarizer.requests) == 2  # truncation calls no summarizer
    assert len(await memory.history_messages()) == 5  # nothing lost (I1)
    check_session(sync_store(memory), "s", await memory.view())
    for i in range(10):  # below the hard limit the back-off holds as before
        await add(memory, form, u(f"m{i}"))
    assert len(summarizer.requests) == 2
    skipped = [e for e in rec.events if isinstance(e, ReductionSkipped)]
    assert all(e.reason == "backoff" for e in skipped)
    await memory.close()


def test_a_step_of_a_reduction_in_spans_may_be_longer_than_its_own_span() -> None:
    # a message cut off before a group larger than a span: its summary is a step, replaced by
    # the next span's, so it is measured against all the reduction folds, not its own span
    summarizer = FakeSummarizer(reply=words(8, "s"))
    memory = Memory("s", reducer=small_reducer(summarizer))
    memory.extend([u(words(2, "hi")), u(words(300, "big")), u("next")])
    assert memory.summary is not None and memory.size <= 100
    assert [len(r.messages) for r in summarizer.requests] == [1, 1]  # two spans, two calls


def test_a_recompute_measures_each_step_against_all_it_folds() -> None:
    # the same class in the rebuild of the summary from scratch: a short first span before
    # a group larger than a span is a step, not the summary
    summarizer = FakeSummarizer(reply=words(8, "s"))
    memory = Memory("s", reducer=small_reducer(summarizer))
    memory.extend([u(words(2, "hi")), u(words(300, "big")), u("next")])
    assert memory.summary is not None
    rebuilt = memory.recompute()
    assert rebuilt is not None and memory.summary is not None
    assert memory.summary.id == rebuilt.id


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", KINDS)
async def test_in_background_mode_too(kind: str, form: str) -> None:
    summarizer = FakeSummarizer(reply=words(8, "s"))
    memory = make(kind, summarizer, soft_threshold_tokens=80, hard_limit_tokens=150)
    assert memory.background
    await huge_tool_group(memory, form)
    assert memory.summary is None and memory.size > 75 * 100  # rejected, as above
    await add(memory, form, u("thanks"))  # past the hard limit: the turn waits, and it fits
    assert memory.summary is not None and memory.size <= 150
    await memory.wait()
    check_session(sync_store(memory), "s", await memory.view())
    await memory.close()


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", KINDS)
async def test_the_summary_survives_a_back_off_past_the_hard_limit(kind: str, form: str) -> None:
    # a summary exists; the provider goes down; a huge tool result passes the hard limit: the
    # chain ends in something that fits, which still holds the summary (summarized offline),
    # and once the provider is back the next request carries it
    summarizer = FakeSummarizer(reply="order BW-1 for customer Ann")
    rec = Recorder()
    memory = make(kind, summarizer, rec)
    for i in range(12):
        await add(memory, form, u(words(10, f"t{i}")))
    assert memory.summary is not None and "BW-1" in memory.summary.text
    summarizer.fail_with = SummarizationError("provider down")
    await huge_tool_group(memory, form)
    await add(memory, form, u("thanks"))  # a retry: it fails too
    assert memory.size > 75 * 100
    await add(memory, form, u("still there?"))  # same span, back-off, past the hard limit
    assert memory.size <= 200  # fits the hard limit (twice the threshold)
    assert memory.summary is not None and "BW-1" in memory.summary.text
    committed = [e for e in rec.events if isinstance(e, ReductionCommitted)][-1]
    assert committed.fallback_used == CEILING_FALLBACK
    assert committed.summary_text is not None and "BW-1" in committed.summary_text
    assert len(await memory.history_messages()) == 12 + 5  # nothing lost (I1)
    check_session(sync_store(memory), "s", await memory.view())
    summarizer.fail_with = None
    calls = len(summarizer.requests)
    for i in range(15):
        await add(memory, form, u(words(10, f"z{i}")))
    assert len(summarizer.requests) > calls
    previous = summarizer.requests[calls].previous_summary
    assert previous is not None and "BW-1" in previous  # the chain goes on from it
    check_session(sync_store(memory), "s", await memory.view())
    await memory.close()
