"""Spend limits: at the limit the LLM is no longer called; the chain and the session go on."""

from __future__ import annotations

import httpx
import pytest
import respx

from summem import (
    ExtractiveSummarizer,
    FallbackSummarizer,
    SummarizationReducer,
    TruncatingSummarizer,
)
from summem._flow import Flow, done
from summem.errors import ConfigurationError, SpendLimitError
from summem.events import ReductionCommitted, ReductionFailed, SpendLimitReached
from summem.observe import SpendLimit
from summem.summarizers.base import SummaryOutput, SummaryRequest
from tests.fakes.counters import WordCounter
from tests.fakes.llm import FakeClock
from tests.fakes.memory import small_reducer
from tests.fakes.replies import OPENAI_URL, openai_completion
from tests.observe.harness import Recorder, Setup, kind, settle, setup
from tests.observe.test_cost import llm
from tests.observe.test_events import fill

__all__ = ["kind", "setup"]  # fixtures


def chain_reducer() -> SummarizationReducer:
    chain = FallbackSummarizer([llm(), ExtractiveSummarizer(), TruncatingSummarizer()])
    return SummarizationReducer(
        chain,
        threshold_tokens=100,
        target_tokens=60,
        summary_max_tokens=30,
        token_counter=WordCounter(),
    )


@respx.mock
async def test_at_the_limit_the_llm_stops_and_the_chain_goes_on_without_it(
    setup: Setup,
) -> None:
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            200, json=openai_completion("A short summary.", usage=(120, 12))
        )
    )
    limit = SpendLimit(max_tokens=300)  # 132 tokens a call: the third call passes it
    rec = Recorder()
    memory = setup.memory(reducer=chain_reducer(), hooks=[rec], spend_limit=limit)
    await fill(memory, 60)
    assert route.call_count == 3
    assert limit.spent("s").tokens == 3 * 132 and not limit.allows("s")
    committed = rec.of(ReductionCommitted)
    assert len(committed) > 3
    assert [e.summarizer for e in committed[:3]] == ["llm:gpt-4o-mini"] * 3
    assert {e.summarizer for e in committed[3:]} == {"extractive"}
    assert all(e.fallback_failed == ("llm:gpt-4o-mini",) for e in committed[3:])
    reached = rec.of(SpendLimitReached)
    assert len(reached) == len(committed) - 3  # once for each reduction made without the LLM
    assert reached[0].key == "s" and reached[0].spent_tokens == 396
    assert reached[0].max_tokens == 300
    assert not rec.of(ReductionFailed)
    assert memory.size <= 100 and memory.summary is not None  # the session keeps working
    await settle(memory.close())


@respx.mock
def test_a_bare_llm_summarizer_at_the_limit_fails_and_backs_off() -> None:
    from summem import Memory

    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            200, json=openai_completion("A short summary.", usage=(120, 12))
        )
    )
    rec = Recorder()
    limit = SpendLimit(max_cost_usd=1e-9)
    memory = Memory(
        "t:1",
        reducer=small_reducer(llm(), fail_on_error=False),
        hooks=[rec],
        spend_limit=limit,
    )
    for i in range(30):
        memory.add({"role": "user", "content": f"turn {i} " + "word " * 8})
    assert route.call_count == 1
    failed = rec.of(ReductionFailed)
    assert failed and failed[0].error_type == "SpendLimitError" and failed[0].next == "backoff"
    assert isinstance(memory.last_error, SpendLimitError)
    assert len(memory.history()) == 30 and memory.spend_limit is limit


def test_windows_and_tenant_prefixes() -> None:
    clock = FakeClock()
    limit = SpendLimit(max_tokens=100, window_seconds=60, scope="prefix", clock=clock)
    assert limit.key("acme:chat-1") == limit.key("acme:chat-2") == "acme"
    limit.charge("acme", 60, 0.01)
    limit.charge("acme", 0, 0.0)  # nothing spent: nothing recorded
    clock.advance(30)
    limit.charge("acme", 50, 0.01)
    assert not limit.allows("acme") and limit.allows("other")
    assert limit.spent("acme").tokens == 110
    clock.advance(31)  # the first charge leaves the window
    assert limit.allows("acme") and limit.spent("acme").tokens == 50
    assert "max_tokens=100" in repr(limit)
    cost = SpendLimit(max_cost_usd=0.5)
    cost.charge("s", 1, 0.5)
    assert not cost.allows("s") and cost.key("a:b") == "a:b"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "needs max_tokens"),
        ({"max_tokens": -1}, "max_tokens"),
        ({"max_cost_usd": -0.1}, "max_cost_usd"),
        ({"max_tokens": 1, "window_seconds": 0}, "window_seconds"),
        ({"max_tokens": 1, "window_seconds": float("inf")}, "finite"),
        ({"max_tokens": 1, "window_seconds": float("nan")}, "window_seconds"),
        ({"max_tokens": 1, "window_seconds": True}, "window_seconds"),
        ({"max_tokens": 1, "window_seconds": "60"}, "window_seconds"),
        ({"max_tokens": "x"}, "max_tokens must be a whole number"),
        ({"max_tokens": 1.5}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"max_cost_usd": "5"}, "max_cost_usd must be a finite number"),
        ({"max_cost_usd": True}, "max_cost_usd"),
        ({"max_cost_usd": float("inf")}, "max_cost_usd"),
        ({"max_cost_usd": float("nan")}, "max_cost_usd"),
        ({"max_tokens": 1, "scope": "tenant"}, "scope"),
        ({"max_tokens": 1, "separator": ""}, "separator"),
    ],
)
def test_bad_limits_are_refused(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        SpendLimit(**kwargs)  # type: ignore[arg-type]


def test_spend_limit_must_be_a_spend_limit() -> None:
    from summem import Memory

    with pytest.raises(ConfigurationError, match="SpendLimit"):
        Memory("s", spend_limit={"max_tokens": 1})  # type: ignore[arg-type]


async def test_a_summarizer_without_a_model_does_not_draw_on_the_limit() -> None:
    from summem import Memory

    limit = SpendLimit(max_tokens=1)
    limit.charge("s", 5, 0.0)  # spent by someone else
    rec = Recorder()
    memory = Memory("s", reducer=small_reducer(), hooks=[rec], spend_limit=limit)
    await fill(memory, 12)
    assert rec.of(ReductionCommitted) and not rec.of(SpendLimitReached)
    assert limit.spent("s").tokens == 5


@pytest.mark.parametrize("cost", [float("nan"), -0.001, float("inf")])
async def test_a_call_reporting_an_unusable_cost_is_charged_its_tokens_and_the_turn_goes_on(
    setup: Setup, cost: float, caplog: pytest.LogCaptureFixture
) -> None:

    class Odd:
        name, model = "llm:odd", "odd"

        def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
            return done(
                SummaryOutput(
                    text="A summary.",
                    summarizer=self.name,
                    model=self.model,
                    calls=1,
                    input_tokens=50,
                    output_tokens=5,
                    cost_usd=cost,
                )
            )

    limit = SpendLimit(max_tokens=10_000)
    rec = Recorder()
    memory = setup.memory(reducer=small_reducer(Odd()), hooks=[rec], spend_limit=limit)
    await fill(memory, 40)
    committed = rec.of(ReductionCommitted)
    assert committed and memory.summary is not None
    assert limit.spent("s").tokens == 55 * len(committed)
    assert limit.spent("s").cost_usd == 0.0
    assert "unusable figure" in caplog.text
    await settle(memory.close())


def test_a_failed_recompute_is_charged_what_its_calls_spent() -> None:
    from summem import Memory
    from summem.errors import SummarizationError

    class Flaky:
        name, model, fail = "llm:flaky", "flaky", False

        def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
            if self.fail:
                exc = SummarizationError("cut off at the output limit")
                exc.usage, exc.cost_usd = {"input_tokens": 400, "output_tokens": 100}, 0.5
                raise exc
            return done(
                SummaryOutput(
                    text="A summary.",
                    summarizer=self.name,
                    model=self.model,
                    calls=1,
                    input_tokens=50,
                    output_tokens=5,
                    cost_usd=0.001,
                )
            )

    flaky = Flaky()
    limit = SpendLimit(max_tokens=10**6)
    memory = Memory("s", reducer=small_reducer(flaky), spend_limit=limit)
    for i in range(40):
        memory.add({"role": "user", "content": f"word {i} " * 8})
    before = limit.spent("s")
    assert before.tokens > 0
    flaky.fail = True
    with pytest.raises(SummarizationError):
        memory.recompute()
    after = limit.spent("s")
    assert after.tokens == before.tokens + 500
    assert after.cost_usd == pytest.approx(before.cost_usd + 0.5)
    memory.close()
