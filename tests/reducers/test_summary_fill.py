"""``summary_fill`` (issue #29, point 7): a new summary grows into the room the kept turns leave
below the target, so the view after a reduction sits at the target, not short of it by the
summary's slack and the cut's group edge; a configured ``summary_max_tokens`` stays a hard cap
unless fill is asked for; the loop guard never counts a filled summary as growing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from summem import Memory
from summem._flow import Flow, done
from summem.errors import ConfigurationError
from summem.reducers.records import reducer_from_record
from summem.reducers.summarization import DEFAULT_SUMMARY_MAX_TOKENS, SummarizationReducer
from summem.summarizers.base import SummaryOutput, SummaryRequest, summary_limit
from summem.summarizers.extractive import ExtractiveSummarizer
from tests.fakes.counters import WordCounter, words
from tests.fakes.memory import check_session
from tests.fakes.messages import a, call, res, sys, u


@dataclass
class Filling:
    """Fills the budget it is given, or its accepted limit too (``slack=True``)."""

    slack: bool = False
    name: str = "filling"
    requests: list[SummaryRequest] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.requests.append(request)
        n = summary_limit(request.max_tokens) if self.slack else request.max_tokens
        return done(SummaryOutput(text=words(n, "fact"), summarizer=self.name))


def reducer(summarizer: Any, **kw: Any) -> SummarizationReducer:
    kw.setdefault("threshold_tokens", 200)
    kw.setdefault("target_tokens", 150)
    kw.setdefault("summary_max_tokens", 10)
    return SummarizationReducer(summarizer, token_counter=WordCounter(), **kw)


def convo(n: int, size: int = 7) -> list[dict[str, Any]]:
    return [sys()] + [
        u(words(size, f"t{i}_")) if i % 2 == 0 else a(words(size, f"t{i}_")) for i in range(n)
    ]


def test_an_offline_summary_gets_room_for_all_it_may_take() -> None:
    # turns of 10 words: without fill the cut keeps summary_reserve() (10 + 16 slack + prefix
    # + 8) free and a summary of 10 words leaves the view about 25 short of the target. With
    # fill and an offline summarizer the cut makes room for all a filled summary may take
    # (half the target, 75: its lines carry more per token than the turns they displace), so
    # more turns go and the summary written in their place takes that room: the view after
    # the reduction sits higher, within the target (short of it by the reserve's overhead
    # margin and the cut's group edge, a turn).
    fixed, filled = Filling(), Filling()
    capped = reducer(fixed).reduce(convo(24))
    r = reducer(filled, summary_fill=True)
    grown = r.reduce(convo(24))
    assert fixed.requests[0].max_tokens == 10
    assert len(grown.evicted) > len(capped.evicted)  # the cut made room for the allowance
    assert grown.summary is not None
    assert 150 // 2 - 8 <= r.size(grown.summary) <= 150 // 2
    assert capped.tokens_after <= 150 - 25
    assert capped.tokens_after < grown.tokens_after <= 150


def test_a_summary_that_cannot_grow_leaves_its_slack_to_the_kept_turns() -> None:
    # a summary budget of half the target: no room to grow past it; an offline summarizer
    # keeps to it exactly, so the cut reserves no slack and keeps more recent turns
    fixed, filled = Filling(), Filling()
    capped = reducer(fixed, summary_max_tokens=75).reduce(convo(30))
    kept = reducer(filled, summary_max_tokens=75, summary_fill=True).reduce(convo(30))
    assert filled.requests[0].max_tokens <= 75
    assert len(kept.evicted) < len(capped.evicted)  # more recent turns kept
    assert capped.tokens_after < kept.tokens_after <= 150


def test_an_llm_summarizer_keeps_the_slack_reserved_and_fills_the_rest() -> None:
    @dataclass
    class Model(Filling):
        model: str = "some-llm"

    llm = Model(slack=True)
    by_llm = reducer(llm, summary_fill=True).reduce(convo(24))
    capped = reducer(Filling(slack=True)).reduce(convo(24))
    assert len(by_llm.evicted) == len(capped.evicted)  # the same cut as without fill
    assert by_llm.tokens_after <= 150  # its reply used all the slack it may
    assert llm.requests[0].max_tokens > 10


@pytest.mark.parametrize("target", [60, 61, 75, 90, 150])
@pytest.mark.parametrize("size", [3, 7, 19])
def test_a_filled_summary_using_all_its_slack_stays_within_the_target(
    target: int, size: int
) -> None:
    # an offline summarizer running past what it was asked is asked again within the room,
    # its validation slack reserved; where the cut cannot reach the target (the newest turn
    # stays), no further past it than without fill. Here the summary's own budget (10) is
    # below the smallest slack validation accepts (16): a room under that can be passed by
    # at most the 16.
    capped = reducer(Filling(slack=True), target_tokens=target).reduce(convo(40, size))
    summarizer = Filling(slack=True)
    result = reducer(summarizer, target_tokens=target, summary_fill=True).reduce(convo(40, size))
    assert len(summarizer.requests) == 2
    assert result.reduced and result.tokens_after <= max(target, capped.tokens_after) + 16
    limit = summary_limit(summarizer.requests[1].max_tokens)
    if summarizer.requests[1].max_tokens > 1:  # the room held the slack: within the target
        assert result.tokens_after <= max(target, capped.tokens_after)
        assert result.summary is not None and result.summary.summary_info is not None
        assert WordCounter().count_text(result.summary.text) <= limit + 5


def test_a_filled_summary_is_at_most_half_the_target_and_never_below_its_budget() -> None:
    r = reducer(Filling(), summary_fill=True)
    assert r.summary_budget(None) == 10
    assert r.summary_budget(0) == 10 and r.summary_budget(-50) == 10
    fixed = r.summary_reserve() - summary_limit(10)  # the prefix and overhead
    half = r.summary_budget(10_000)
    assert summary_limit(half) + fixed <= 150 // 2 < summary_limit(half + 1) + fixed
    assert r.summary_budget(10_000, exact=True) + fixed == 150 // 2


def test_summary_fill_defaults_to_on_only_with_the_default_summary_budget() -> None:
    assert SummarizationReducer(threshold_tokens=8000).summary_fill
    assert not SummarizationReducer(threshold_tokens=8000, summary_max_tokens=900).summary_fill
    assert SummarizationReducer(
        threshold_tokens=8000, summary_max_tokens=900, summary_fill=True
    ).summary_fill
    assert not SummarizationReducer(threshold_tokens=8000, summary_fill=False).summary_fill
    assert DEFAULT_SUMMARY_MAX_TOKENS == 512
    with pytest.raises(ConfigurationError, match="summary_fill must be a bool"):
        SummarizationReducer(threshold_tokens=8000, summary_fill="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kw",
    [
        {"summary_max_tokens": 900, "summary_fill": True},
        {"summary_fill": False},
        {"summary_max_tokens": 900},
        {},
    ],
)
def test_summary_fill_survives_a_record(kw: dict[str, Any]) -> None:
    made = SummarizationReducer(threshold_tokens=8000, **kw)
    again = reducer_from_record(made.record())
    assert isinstance(again, SummarizationReducer)
    assert again.summary_fill == made.summary_fill
    assert again.summary_max_tokens == made.summary_max_tokens


def test_a_message_budget_never_fills() -> None:
    r = SummarizationReducer(threshold_messages=40, summary_fill=True, summary_max_tokens=30)
    assert r.summary_budget(10_000) == 30


NAMES = ["Ana", "Bram", "Chen", "Dalia", "Emre"]


def chat(turns: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(turns):
        name = NAMES[i % len(NAMES)]
        out.append(u(f"{name} ordered item {1000 + 7 * i} on day {i}" + " again" * (i % 4)))
        if i % 5 == 0:
            out += [call(f"c{i}"), res(f"c{i}", f"stock of {1000 + 7 * i}: {i % 30} left")]
        out.append(a(f"Noted: order {1000 + 7 * i} for {name} is open."))
    return out


@pytest.mark.parametrize("kind", ["extractive", "filling"])
@pytest.mark.parametrize("ratio", [0.1, 0.25, 0.5, 0.7])
def test_through_memory_views_sit_at_the_target_and_never_pause(kind: str, ratio: float) -> None:
    def run(fill: bool) -> tuple[Any, list[int]]:
        summarizer = ExtractiveSummarizer() if kind == "extractive" else Filling()
        memory = Memory(
            "s",
            reducer=reducer(
                summarizer,
                threshold_tokens=400,
                target_tokens=300,
                summary_max_tokens=round(ratio * 300),
                summary_fill=fill,
            ),
        )
        memory.add(sys("You keep track of orders."))
        after: list[int] = []
        summaries = 0
        for message in chat(200):
            memory.add(message)
            assert memory.size <= 400
            if len(memory.summaries()) > summaries:
                summaries = len(memory.summaries())
                after.append(memory.size)
        assert memory.reductions_paused is None and len(after) > 5
        check_session(memory.store, "s", memory.view())
        return summarizer, after

    _, capped = run(False)
    summarizer, filled = run(True)
    assert all(size <= 300 + 40 for size in filled)  # a reduction, then this turn's messages
    assert sum(filled) / len(filled) >= sum(capped) / len(capped)
    if kind == "filling" and ratio < 0.5:  # room the cut left (up to half the target)
        assert any(r.max_tokens > round(ratio * 300) for r in summarizer.requests)
