"""The loop guard at every summary/target ratio (issue #29): a summary that fills its own
allowance never pauses an ordinary conversation, and once a summary exists no reduction
leaves the view without one; a paused memory past its hard limit keeps a (smaller) summary
and truncates only recent turns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from summem import Memory, SummarizationReducer
from summem._flow import Flow, done
from summem.events import ReductionCommitted
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from tests.fakes.counters import WordCounter, words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import a, call, res, sys, u
from tests.fakes.summarizers import FakeSummarizer

RATIOS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75]
NAMES = ["Ana", "Bram", "Chen", "Dalia", "Emre", "Femi", "Goran"]
CITIES = ["Lyon", "Oslo", "Quito", "Pune", "Tartu"]


@dataclass
class FillingSummarizer:
    """Fills the allowance it is given every time, give or take three words (a summary
    three words under it, then two, one, none, and again): three growths in a row."""

    name: str = "filling"
    requests: list[SummaryRequest] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.requests.append(request)
        n = max(1, request.max_tokens - 3 + len(self.requests) % 4)
        return done(SummaryOutput(text=words(n, "fact"), summarizer=self.name))


def conversation(turns: int) -> list[dict[str, Any]]:
    """An ordinary chat: user statements of varied length, tool round trips, answers."""
    out: list[dict[str, Any]] = []
    for i in range(turns):
        name, city = NAMES[i % len(NAMES)], CITIES[i % len(CITIES)]
        extra = " and it matters to me" * (i * 5 % 4)
        out.append(u(f"{name} moved to {city} on day {i}, order {1000 + 7 * i}{extra}."))
        if i % 5 == 0:
            out += [call(f"c{i}"), res(f"c{i}", f"weather in {city}: {i % 30} C, wind {i % 9}")]
        out.append(a(f"Noted: {name} lives in {city} now; order {1000 + 7 * i} is open."))
    return out


def summarizer_for(kind: str) -> Any:
    return ExtractiveSummarizer() if kind == "extractive" else FillingSummarizer()


@pytest.mark.parametrize("kind", ["extractive", "filling"])
@pytest.mark.parametrize("ratio", RATIOS)
def test_no_pause_and_never_without_a_summary_at_any_ratio(kind: str, ratio: float) -> None:
    reducer = SummarizationReducer(
        summarizer_for(kind),
        token_counter=WordCounter(),
        threshold_tokens=400,
        target_tokens=300,
        summary_max_tokens=round(ratio * 300),
    )
    memory = Memory("s", reducer=reducer)
    memory.add(sys("You keep track of people and orders."))
    had_summary = False
    for message in conversation(260):
        memory.add(message)
        if memory.summary is not None:
            had_summary = True
        assert memory.summary is not None or not had_summary, "a reduction dropped the summary"
        assert memory.size <= 400
    assert had_summary and len(memory.summaries()) > 5
    assert memory.reductions_paused is None
    check_session(memory.store, "s", memory.view())


def test_a_paused_memory_past_its_hard_limit_keeps_a_smaller_summary() -> None:
    # a system message of 80 of the 100 tokens: reductions free almost nothing and pause;
    # each paused turn past the hard limit folds offline into a summary made to fit the
    # room left, so the view is the system message, a summary and the newest turns
    events: list[Any] = []
    memory = Memory("s", reducer=small_reducer(FakeSummarizer()), hooks=[events.append])
    memory.add(sys(words(80, "sys")))
    for i in range(30):
        memory.add(u(f"order {100 + i} ships"))
        if memory.reductions_paused is not None:
            assert memory.summary is not None and memory.size <= 100
    assert memory.reductions_paused is not None
    folds = [e for e in events if isinstance(e, ReductionCommitted) and e.fallback_used]
    assert folds and all(e.fallback_used == "extractive at the hard limit" for e in folds)
    assert "order 129" in memory.view()[-1].text and len(memory.history_messages()) == 30
    check_session(memory.store, "s", memory.view())


def test_when_not_even_a_summary_fits_the_view_goes_without_and_says_why() -> None:
    # a system message of 88 of the 100 tokens: the newest turn and the system message leave
    # no room for a summary message at all; the view holds them alone, the event says why,
    # and the summary is kept aside: the next reduction chains from it (see test_loop_guard)
    events: list[Any] = []
    memory = Memory("s", reducer=small_reducer(FakeSummarizer()), hooks=[events.append])
    memory.add(sys(words(88, "sys")))
    for i in range(12):
        memory.add(u(words(3, f"m{i}")))
    assert memory.reductions_paused is not None
    truncated = [
        e
        for e in events
        if isinstance(e, ReductionCommitted) and e.fallback_used == "truncate at the hard limit"
    ]
    assert truncated and memory.summary is None and memory.size <= 100
    assert "not even a one-token summary fits" in truncated[-1].fallback_reasons[0]
