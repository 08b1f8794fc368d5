"""Helpers for the Memory / AsyncMemory tests: a small reducer, and the invariant checks."""

from __future__ import annotations

from typing import Any

from summem.conversation import boundaries
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from summem.stores.base import Store
from summem.summarizers.base import Summarizer
from tests.fakes.counters import WordCounter
from tests.fakes.summarizers import FakeSummarizer


def small_reducer(summarizer: Summarizer | None = None, **kw: Any) -> SummarizationReducer:
    """threshold 100 / target 60 words; the summary takes at most 10."""
    budget: dict[str, Any] = {"threshold_tokens": 100, "target_tokens": 60}
    budget.update(kw)
    return SummarizationReducer(
        summarizer if summarizer is not None else FakeSummarizer(),
        token_counter=WordCounter(),
        summary_max_tokens=10,
        **budget,
    )


def check_session(store: Store, session_id: str, view: list[Message] | None = None) -> None:
    """I1-I3 on what the store holds (and on a memory's view, when given)."""
    history = store.history(session_id)
    ids = [m.id for m in history]
    assert len(ids) == len(set(ids)), "a message is in history twice"
    if not store.exists(session_id):
        assert history == []
        return
    state = store.load(session_id)
    assert state.length == len(history)
    k = state.watermark
    assert [m.id for m in state.tail] == ids[k:]
    if state.summary is not None:
        info = state.summary.summary_info
        assert info is not None and info.watermark == k
        log = {s.id: s for s in store.summaries(session_id)}
        prev = log.get(info.previous_summary_id or "")
        start = prev.summary_info.watermark if prev and prev.summary_info else 0
        if "recomputed" in info.extra:  # rebuilt from scratch: it stands for all of history[:k]
            rebuilt = info.extra["recomputed"]  # named by count and ends: O(1), not O(k)
            assert info.covered_ids == (), "a recomputed summary lists no ids"
            assert (rebuilt["messages"], rebuilt["first_id"], rebuilt["last_id"]) == (
                k,
                ids[0],
                ids[k - 1],
            ), "recomputed summary not from history[:k]"
            assert info.previous_summary_id is None
        else:
            assert list(info.covered_ids) == ids[start:k], "summary not made from history[:k]"
    check_pairing(state.tail)
    if view is not None:
        expected = [m for m in (state.system, state.summary) if m is not None] + state.tail
        assert [m.id for m in view] == [m.id for m in expected]


def check_pairing(tail: list[Message]) -> None:
    """I3: no orphan tool result; a call without all its results only at the pending end."""
    b = boundaries(tail)
    assert b.orphans == (), "tool result without its call in the view"
    answered = {m.tool_call_id for m in tail if m.role == "tool"}
    for i, msg in enumerate(tail):
        if msg.tool_calls and not set(msg.tool_call_ids) <= answered:
            assert b.pending_from is not None and i >= b.pending_from
