"""Fakes and checks shared by the Memory / AsyncMemory tests."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any

from summem._flow import Flow
from summem.messages import Message
from summem.reducers._cut import boundaries
from summem.reducers.summarization import SummarizationReducer
from summem.stores.base import Store
from summem.summarizers.base import Summarizer, SummaryOutput, SummaryRequest
from tests.fakes import FakeSummarizer, WordCounter

# The message builders, re-exported for the memory tests.
from tests.reducers.helpers import a as a
from tests.reducers.helpers import call as call
from tests.reducers.helpers import res as res
from tests.reducers.helpers import sys as sys
from tests.reducers.helpers import u as u


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


def turn(i: int, n_words: int = 8) -> list[dict[str, Any]]:
    """One user turn with a tool round trip and an answer (about 3 * 3 + 2 * n words)."""
    return [
        u(" ".join(f"u{i}w{j}" for j in range(n_words))),
        call(f"c{i}"),
        res(f"c{i}", f"result {i}"),
        a(" ".join(f"a{i}w{j}" for j in range(n_words))),
    ]


@dataclass
class Gate:
    """A step that blocks until released: the summarizer's (fake) model call."""

    release: threading.Event = field(default_factory=threading.Event)
    started: threading.Event = field(default_factory=threading.Event)
    text: str = "gated summary"

    def run(self) -> Any:
        self.started.set()
        assert self.release.wait(timeout=20), "gate never released"
        return self.text

    async def arun(self) -> Any:
        self.started.set()
        for _ in range(20_000):
            if self.release.is_set():
                return self.text
            await asyncio.sleep(0.001)
        raise AssertionError("gate never released")


@dataclass
class GatedSummarizer:
    """A summarizer whose every call waits on one :class:`Gate` (released once: all pass)."""

    name: str = "gated"
    gate: Gate = field(default_factory=Gate)
    requests: list[SummaryRequest] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.requests.append(request)
        text = yield self.gate
        return SummaryOutput(text=f"{text} {len(self.requests)}", summarizer=self.name, calls=1)


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
        if "recomputed" not in info.extra:
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
