"""The kept turns a ``{kept}`` prompt shows never crowd the span out of the model (review20).

Eight kept turns of 1,500 words beside a model of 8,192 input tokens: before, the prompt
alone left the span no room and every reduction failed ("needs at least 40 calls").
"""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message, assistant, user
from summem.summarizers.base import SummaryRequest
from summem.summarizers.llm import LLMSummarizer
from tests.fakes.counters import WordCounter
from tests.fakes.llm import FakeLLMClient


def _request(kept: list[Message]) -> SummaryRequest:
    span = [
        user(f"Turn {i}: the plumber comes on day {i} and the code is K-{i}.") for i in range(40)
    ]
    return SummaryRequest(
        messages=span,
        previous_summary=None,
        max_tokens=200,
        token_counter=WordCounter(),
        kept=tuple(kept),
    )


def _kept(n: int, words: int) -> list[Message]:
    return [
        (user if i % 2 == 0 else assistant)(f"KEPT-{i} " + " ".join(["word"] * words))
        for i in range(n)
    ]


def test_kept_turns_too_long_for_the_model_leave_the_span_room() -> None:
    client = FakeLLMClient(input_limit=8192).enqueue("The plumber comes; codes K-0 to K-39.")
    summarizer = LLMSummarizer("m", client=client, prompt="summarize-kept")
    out = run_sync(summarizer.summarize(_request(_kept(8, 1500))))
    assert out.text.startswith("The plumber")
    assert len(client.calls) == 1  # the span in one call
    sent = "\n".join(str(m.get("content") or "") for m in client.calls[0].messages)
    assert "KEPT-0" in sent and "KEPT-1" in sent  # the turns right after the span come first
    assert "KEPT-7" not in sent  # the rest is left out
    assert WordCounter().count_text(sent) < 8192


def test_kept_turns_that_fit_are_all_sent() -> None:
    client = FakeLLMClient(input_limit=8192).enqueue("ok")
    summarizer = LLMSummarizer("m", client=client, prompt="summarize-kept")
    run_sync(summarizer.summarize(_request(_kept(4, 20))))
    sent = "\n".join(str(m.get("content") or "") for m in client.calls[0].messages)
    assert all(f"KEPT-{i}" in sent for i in range(4))


def test_not_even_the_first_kept_turn_fits() -> None:
    client = FakeLLMClient(input_limit=8192).enqueue("ok")
    summarizer = LLMSummarizer(
        "m", client=client, prompt="summarize-kept", message_max_chars=100_000
    )  # the turn is not clipped to fit
    run_sync(summarizer.summarize(_request(_kept(2, 9000))))
    sent = "\n".join(str(m.get("content") or "") for m in client.calls[0].messages)
    assert "KEPT-" not in sent and "Turn 39" in sent
