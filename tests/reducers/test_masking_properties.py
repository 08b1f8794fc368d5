"""Property tests: masking never breaks tool pairing, the view's shape or the budget.

Random histories (see :mod:`tests.reducers.test_properties`) go through a reducer with masking,
one message at a time, the view fed back each turn. Every view must keep I2 (ids), I3 (no result
without its call; stubs keep their ``tool_call_id``), count the stubs in its size, reach the
target whenever an allowed cut reaches it, and show each masked message the same way on every
later turn; masking a masked view changes nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from summem.conversation import boundaries
from summem.memory import Memory
from summem.messages import Message, parse_message
from summem.reducers.masking import STUB_PREFIX, ToolMasking, mask_messages
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from summem.stores.memory import InMemoryStore
from tests.fakes.counters import WordCounter, words
from tests.fakes.memory import check_pairing, check_session
from tests.fakes.summarizers import FakeSummarizer
from tests.reducers.test_properties import (
    SETTINGS,
    Options,
    _budget_kwargs,
    _valid_cuts,
    histories,
    options,
)

COUNT = WordCounter().count_message


@st.composite
def tool_heavy(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A random history whose tool results are sometimes large (worth masking)."""
    out = draw(histories())
    for m in out:
        if m["role"] == "tool" and draw(st.booleans()):
            m["content"] = words(draw(st.integers(20, 80)), "big")
    return out


@SETTINGS
@given(
    opts=options(),
    history=tool_heavy(),
    after=st.integers(0, 3),
    min_tokens=st.integers(0, 30),
    summarize=st.booleans(),
)
def test_masking_keeps_pairing_budget_and_stubs_stable(
    opts: Options, history: list[dict[str, Any]], after: int, min_tokens: int, summarize: bool
) -> None:
    kwargs: dict[str, Any] = {
        **_budget_kwargs(opts),
        "token_counter": WordCounter(),
        "mask_tool_results_after": after,
        "mask_min_tokens": min_tokens,
    }
    fake = FakeSummarizer()
    reducer: SummarizationReducer | TruncationReducer
    if summarize:
        if opts.unit == "tokens":
            kwargs["summary_max_tokens"] = min(8, opts.target - 1)
        reducer = SummarizationReducer(fake, **kwargs)
    else:
        reducer = TruncationReducer(**kwargs)
    masking = ToolMasking(after, min_tokens)
    view: list[Message] = []
    accepted: list[Message] = []
    originals: dict[str, Message] = {}
    stubs: dict[str, str] = {}
    system: Message | None = None
    for raw in history:
        msg = parse_message(raw)
        if msg.is_system:
            if system is None or not system.same_content(msg):
                system = msg
        else:
            accepted.append(msg)
            originals[msg.id] = msg
        before = [*view, msg]
        tail_before = [m for m in before if not m.is_system and not m.is_summary]
        result = reducer.reduce(before)
        view = result.view
        summary = result.summary
        tail = [m for m in view if not m.is_system and not m.is_summary]

        # I2 by ids: the view is [system] + [summary]? + the newest accepted messages.
        assert [m.id for m in tail] == [m.id for m in accepted[len(accepted) - len(tail) :]]
        # I3: pairing holds; a stub answers the same call as its original.
        b = boundaries(tail)
        assert b.orphans == ()
        for m in tail:
            if m.role == "tool":
                assert m.tool_call_id == originals[m.id].tool_call_id
        # Never masked: a pending call's results.
        if b.pending_from is not None:
            assert all(STUB_PREFIX not in m.text for m in tail[b.pending_from :])
        # Stable and idempotent: once masked, masked the same way; a masked view is fixed.
        for m in tail:
            if m.id in stubs:
                assert m.text == stubs[m.id]
            elif STUB_PREFIX in m.text:
                stubs[m.id] = m.text
                event("masked")
        assert mask_messages(tail, masking, COUNT) == tail
        # The budget counts the stubs.
        head = reducer.head_size(system, summary)
        assert result.size_after == head + sum(reducer.size(m) for m in tail)
        if result.size_before <= opts.threshold:
            assert not result.reduced
            continue
        shown = mask_messages(tail_before, masking, COUNT)
        sizes = [reducer.size(m) for m in shown]
        cuts = _valid_cuts(tail_before, opts)
        fixed = reducer.head_size(system, None) + reducer.summary_reserve()
        fitting = [c for c in cuts if fixed + sum(sizes[c:]) <= opts.target]
        if fitting:
            assert len(result.evicted) == fitting[0]
            assert result.size_after <= opts.target
        # The summarizer reads the messages as they were given (never a stub it made).
        assert all(m.id in originals for m in fake.seen)


@SETTINGS
@given(
    history=tool_heavy(),
    after=st.integers(0, 3),
    min_tokens=st.integers(0, 30),
    threshold=st.integers(80, 400),
    batch=st.integers(1, 3),
)
def test_memory_masks_incrementally_as_the_pure_function_does(
    history: list[dict[str, Any]], after: int, min_tokens: int, threshold: int, batch: int
) -> None:
    fake = FakeSummarizer()
    reducer = SummarizationReducer(
        fake,
        threshold_tokens=threshold,
        target_tokens=threshold * 3 // 4,
        summary_max_tokens=8,
        token_counter=WordCounter(),
        mask_tool_results_after=after,
        mask_min_tokens=min_tokens,
    )
    memory = Memory("s", reducer=reducer, store=InMemoryStore())
    masking = ToolMasking(after, min_tokens)
    stubs: dict[str, str] = {}
    for start in range(0, len(history), batch):
        memory.extend(history[start : start + batch])
        view = memory.view()
        tail = [m for m in view if not m.is_system and not m.is_summary]
        originals = memory.history_messages(len(memory.history_messages()) - len(tail))
        # The session core's incremental masking is the pure function's, on the originals.
        assert tail == mask_messages(originals, masking, COUNT)
        check_pairing(tail)
        assert memory.size == reducer.head_size(
            view[0] if view and view[0].is_system else None, memory.summary
        ) + sum(reducer.size(m) for m in tail)
        for m in tail:
            if m.id in stubs:
                assert m.text == stubs[m.id]
            elif STUB_PREFIX in m.text:
                stubs[m.id] = m.text
        assert all(STUB_PREFIX not in m.text for m in fake.seen)  # originals summarized
        for request in fake.requests:  # each call reads at most a threshold of originals
            span = list(request.messages)
            one_group = len(boundaries(span).starts) == 1
            assert one_group or sum(reducer.size(m) for m in span) <= threshold
    event("masked" if stubs else "nothing masked")
    event("summarized" if fake.requests else "not summarized")
    check_session(memory._store, "s", memory.view())
