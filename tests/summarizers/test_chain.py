from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import pytest

from summem._flow import Flow, done, run_async, run_sync
from summem.errors import (
    ConfigurationError,
    InvalidSummaryError,
    LLMRetryError,
    LLMTransientError,
    SummarizationError,
)
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import Summarizer, SummaryOutput, SummaryRequest
from summem.summarizers.chain import FallbackSummarizer, TruncatingSummarizer
from summem.summarizers.extractive.layout import summary_lines
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.tokens.base import ApproxCounter


def span(n: int = 6) -> list[Message]:
    return [
        Message.from_openai(
            {
                "role": "user" if i % 2 == 0 else "assistant",
                "content": f"Message {i}: " + "x " * 40,
            },
            id=f"m{i}",
        )
        for i in range(n)
    ]


def request(
    max_tokens: int = 100, previous: str | None = None, n: int = 6, info: Any = None
) -> SummaryRequest:
    return SummaryRequest(
        messages=span(n),
        previous_summary=previous,
        max_tokens=max_tokens,
        token_counter=ApproxCounter(),
        previous_info=info,
    )


@dataclass
class Scripted:
    """Replies from a script: a str is a summary, an exception is raised."""

    name: str
    script: list[str | Exception] = field(default_factory=list)
    default: str | Exception = "fine summary"
    calls: int = 0

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.calls += 1
        item = self.script.pop(0) if self.script else self.default
        if isinstance(item, Exception):
            raise item
        return done(SummaryOutput(text=item, summarizer=self.name))


@dataclass
class IOStep:
    """A fake I/O step; raises ``error`` when performed, like a failing HTTP call."""

    value: Any = None
    error: Exception | None = None

    def run(self) -> Any:
        if self.error:
            raise self.error
        return self.value

    async def arun(self) -> Any:
        return self.run()


@dataclass
class Stepping:
    """Performs one I/O step per summary, like an LLM summarizer."""

    name: str
    step: IOStep
    seen_errors: list[BaseException] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Generator[IOStep, Any, SummaryOutput]:
        reply = yield self.step
        return SummaryOutput(text=str(reply), summarizer=self.name, calls=1)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_first_valid_summary_wins_and_later_steps_do_not_run() -> None:
    a, b = Scripted("a"), Scripted("b")
    chain = FallbackSummarizer([a, b])
    out = run_sync(chain.summarize(request()))
    assert out.summarizer == "a"
    assert "fallback" not in out.extra
    assert (a.calls, b.calls) == (1, 0)
    assert chain.name == "fallback(a>b)"
    assert isinstance(chain, Summarizer)


def test_falls_back_in_order_on_errors() -> None:
    a = Scripted("a", default=LLMRetryError("gave up", attempts=3, last_exception=TimeoutError()))
    b = Scripted("b", default=SummarizationError("model refused"))
    c = Scripted("c")
    out = run_sync(FallbackSummarizer([a, b, c]).summarize(request()))
    assert out.summarizer == "c"
    assert out.extra["fallback"] == {
        "used": "c",
        "failed": ["a", "b"],
        "reasons": ["a: LLMRetryError: gave up", "b: SummarizationError: model refused"],
    }
    assert (a.calls, b.calls, c.calls) == (1, 1, 1)


@pytest.mark.parametrize(
    "bad",
    [
        "",  # empty
        "   \n ",  # blank
        "word " * 400,  # far over max_tokens
    ],
)
def test_invalid_summary_falls_back(bad: str) -> None:
    a, b = Scripted("a", default=bad), Scripted("b")
    out = run_sync(FallbackSummarizer([a, b]).summarize(request(max_tokens=100)))
    assert out.summarizer == "b"


def test_summary_not_smaller_than_its_input_falls_back() -> None:
    req = request(max_tokens=400, n=1)  # one message of ~25 tokens
    a, b = Scripted("a", default="y " * 60), Scripted("b", default="short")
    assert run_sync(FallbackSummarizer([a, b]).summarize(req)).summarizer == "b"


def test_error_raised_by_the_io_step_is_caught_sync_and_async() -> None:
    failing = Stepping("llm", IOStep(error=LLMTransientError("HTTP 503", status_code=503)))
    working = Stepping("backup", IOStep(value="backup summary"))
    chain = FallbackSummarizer([failing, working])
    assert run_sync(chain.summarize(request())).text == "backup summary"


async def test_async_driver() -> None:
    failing = Stepping("llm", IOStep(error=LLMTransientError("HTTP 503", status_code=503)))
    working = Stepping("backup", IOStep(value="backup summary"))
    out = await run_async(FallbackSummarizer([failing, working]).summarize(request()))
    assert out.text == "backup summary"
    assert out.extra["fallback"]["failed"] == ["llm"]


def test_other_exceptions_are_bugs_and_propagate() -> None:
    a, b = Scripted("a", default=KeyError("oops")), Scripted("b")
    with pytest.raises(KeyError):
        run_sync(FallbackSummarizer([a, b]).summarize(request()))
    assert b.calls == 0


def test_all_fail_lists_each_error_chains_the_last_and_hides_keys() -> None:
    a = Scripted(
        "a", default=SummarizationError("Incorrect API key provided: sk-proj-ABCDEF123456")
    )
    b = Scripted("b", default="")
    c = Scripted("c", default=LLMTransientError("HTTP 429 rate limited"))
    with pytest.raises(SummarizationError) as info:
        run_sync(FallbackSummarizer([a, b, c]).summarize(request()))
    message = str(info.value)
    assert "all 3 summarizers failed" in message
    assert "a: SummarizationError: Incorrect API key provided: [REDACTED]" in message
    assert "b: InvalidSummaryError:" in message
    assert "c: LLMTransientError: HTTP 429 rate limited" in message
    assert "sk-proj" not in message
    assert isinstance(info.value.__cause__, LLMTransientError)
    assert not isinstance(info.value, InvalidSummaryError)


def test_circuit_breaker_opens_skips_and_closes() -> None:
    clock = Clock()
    flaky = Scripted("flaky", default=LLMTransientError("down"))
    backup = Scripted("backup")
    chain = FallbackSummarizer(
        [flaky, backup], failure_threshold=2, cooldown_seconds=30, clock=clock
    )
    req = request()

    for _ in range(2):
        assert run_sync(chain.summarize(req)).summarizer == "backup"
    assert flaky.calls == 2
    assert chain.is_open(0)

    # open: the flaky step is skipped, not called
    out = run_sync(chain.summarize(req))
    assert out.summarizer == "backup"
    assert out.extra["fallback"]["failed"] == ["flaky"]
    assert flaky.calls == 2

    clock.now += 29.9
    run_sync(chain.summarize(req))
    assert flaky.calls == 2

    # cool-down over: one trial; it fails again, so the circuit re-opens at once
    clock.now += 0.2
    assert not chain.is_open(0)
    run_sync(chain.summarize(req))
    assert flaky.calls == 3
    assert chain.is_open(0)
    run_sync(chain.summarize(req))
    assert flaky.calls == 3

    # next trial succeeds: closed, and one later failure does not re-open it
    clock.now += 31
    flaky.default = "recovered summary"
    assert run_sync(chain.summarize(req)).summarizer == "flaky"
    assert not chain.is_open(0)
    flaky.script = [LLMTransientError("blip")]
    assert run_sync(chain.summarize(req)).summarizer == "backup"
    assert not chain.is_open(0)
    assert run_sync(chain.summarize(req)).summarizer == "flaky"


def test_a_success_resets_the_failure_count() -> None:
    clock = Clock()
    step = Scripted("s", script=[LLMTransientError("x"), "ok summary", LLMTransientError("y")])
    chain = FallbackSummarizer([step, Scripted("b")], failure_threshold=2, clock=clock)
    for _ in range(3):
        run_sync(chain.summarize(request()))
    assert not chain.is_open(0)


def test_the_last_step_is_never_skipped() -> None:
    clock = Clock()
    only = Scripted("only", script=[LLMTransientError("1"), LLMTransientError("2")])
    chain = FallbackSummarizer([only], failure_threshold=1, clock=clock)
    with pytest.raises(SummarizationError):
        run_sync(chain.summarize(request()))
    assert chain.is_open(0)
    with pytest.raises(SummarizationError):
        run_sync(chain.summarize(request()))
    assert run_sync(chain.summarize(request())).summarizer == "only"
    assert only.calls == 3


def test_skipped_steps_are_listed_when_everything_fails() -> None:
    clock = Clock()
    a = Scripted("a", default=LLMTransientError("down"))
    b = Scripted("b", default=LLMTransientError("also down"))
    chain = FallbackSummarizer([a, b], failure_threshold=1, clock=clock)
    with pytest.raises(SummarizationError):
        run_sync(chain.summarize(request()))
    with pytest.raises(SummarizationError, match=r"a: skipped \(circuit open"):
        run_sync(chain.summarize(request()))
    assert a.calls == 1


def test_chain_ending_in_extractive_and_truncation_always_succeeds() -> None:
    chain = FallbackSummarizer(
        [
            Scripted("llm", default=LLMTransientError("down")),
            ExtractiveSummarizer(),
            TruncatingSummarizer(),
        ]
    )
    out = run_sync(chain.summarize(request(max_tokens=60)))
    assert out.summarizer in {"extractive", "truncation"}


def test_bad_configuration() -> None:
    with pytest.raises(ConfigurationError):
        FallbackSummarizer([])
    with pytest.raises(ConfigurationError):
        FallbackSummarizer([Scripted("a")], failure_threshold=0)
    with pytest.raises(ConfigurationError):
        FallbackSummarizer([Scripted("a")], cooldown_seconds=-1)


# -- TruncatingSummarizer --------------------------------------------------------------------


def truncate(req: SummaryRequest) -> SummaryOutput:
    return run_sync(TruncatingSummarizer().summarize(req))


def test_truncation_without_previous_summary_is_a_note() -> None:
    out = truncate(request(n=6))
    assert out.text == "- (6 earlier messages were dropped without a summary.)"
    assert out.extra == {"dropped_messages": 6}
    assert out.summarizer == "truncation"
    assert truncate(request(n=1)).text == "- (1 earlier message was dropped without a summary.)"


def test_truncation_keeps_the_previous_summary_and_counts_cumulatively() -> None:
    first = truncate(request(previous="- user: likes tea", n=4))
    assert (
        first.text == "- user: likes tea\n\n- (4 earlier messages were dropped without a summary.)"
    )
    second = truncate(request(previous=first.text, n=3))
    assert (
        second.text == "- user: likes tea\n\n- (7 earlier messages were dropped without a summary.)"
    )


def test_truncation_keeps_the_layout_of_the_summary_it_clips_and_sets_its_note_apart() -> None:
    extractive = SummaryInfo(extra={"format": "summem.extractive/3", "provenance": []})
    out = truncate(request(previous="- user: likes tea\n- and biscuits", n=2, info=extractive))
    assert out.extra == {"dropped_messages": 2, "format": "summem.extractive/3"}
    read = [line for _, _, line, _ in summary_lines(out.text, shared_labels=True)]
    assert read == [
        "- user: likes tea",
        "- user: and biscuits",
        "- (2 earlier messages were dropped without a summary.)",  # nobody's line
    ]
    assert "format" not in truncate(request(n=2, info=extractive)).extra  # only the note


def test_truncation_clips_the_previous_summary_to_the_budget() -> None:
    previous = "\n".join(f"- user: fact number {i} is important" for i in range(100))
    counter = ApproxCounter()
    for budget in range(20, 200, 3):
        out = truncate(request(max_tokens=budget, previous=previous))
        assert out.text, budget
        assert counter.count_text(out.text) <= budget, budget
        assert out.text.endswith("dropped without a summary.)")
    out = truncate(request(max_tokens=60, previous=previous))
    assert out.text.startswith("- user: fact number 0 is important\n")
    assert "\u2026" in out.text


def test_truncation_never_raises_even_with_tiny_budgets() -> None:
    counter = ApproxCounter()
    for budget in range(20):
        out = truncate(request(max_tokens=budget, previous="- user: x " * 50))
        assert counter.count_text(out.text) <= max(budget, 0)


def test_a_fallback_says_why_once_at_warning_and_the_event_keeps_the_reason(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new user's chain without a key: the fallback is not silent, the reason is kept."""
    import logging

    from summem.events import ReductionCommitted, SummarizerCalled
    from summem.memory import Memory
    from summem.reducers.summarization import SummarizationReducer
    from summem.summarizers.llm import LLMSummarizer

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    chain = FallbackSummarizer([LLMSummarizer("gpt-4o-mini"), ExtractiveSummarizer()])
    events: list[object] = []
    reducer = SummarizationReducer(
        threshold_tokens=300, target_tokens=200, summary_max_tokens=100, summarizer=chain
    )
    memory = Memory("no-key", reducer=reducer, hooks=[events.append])
    with caplog.at_level(logging.WARNING):
        for i in range(30):
            memory.add({"role": "user", "content": f"message {i} about the blue car " * 3})
    committed = [e for e in events if isinstance(e, ReductionCommitted)]
    called = [e for e in events if isinstance(e, SummarizerCalled)]
    both: list[ReductionCommitted | SummarizerCalled] = [*committed, *called]
    assert len(committed) >= 2 and called
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]  # once, not per reduction
    said = warnings[0].getMessage()
    assert "llm:gpt-4o-mini" in said and "OPENAI_API_KEY" in said and "extractive" in said
    first = committed[0].fallback_reasons
    assert first == called[0].fallback_reasons and len(first) == 1
    assert (
        first[0].startswith("llm:gpt-4o-mini: SummarizationError") and "OPENAI_API_KEY" in first[0]
    )
    for event in both:  # later: the same reason, or the open circuit's
        assert event.fallback_failed == ("llm:gpt-4o-mini",)
        (reason,) = event.fallback_reasons
        assert reason == first[0] or reason.startswith("llm:gpt-4o-mini: skipped (circuit open")


def test_a_step_failing_again_after_a_success_is_said_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    first = Scripted("first", [failure("down"), "back up", failure("down again")])
    chain = FallbackSummarizer([first, Scripted("second")])
    with caplog.at_level(logging.WARNING, logger="summem"):
        for _ in range(3):
            run_sync(chain.summarize(request()))
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(said) == 2 and "down" in said[0] and "down again" in said[1]


def failure(text: str) -> SummarizationError:
    return SummarizationError(text)


@pytest.mark.parametrize("step", [object(), "extractive", None])
def test_a_step_that_is_not_a_summarizer_is_named(step: Any) -> None:
    with pytest.raises(ConfigurationError, match=r"step 1 .* summarize\(request\) method"):
        FallbackSummarizer([ExtractiveSummarizer(), step])
