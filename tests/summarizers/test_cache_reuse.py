"""Cache-reusing summarization: the assistant's last request, byte for byte, plus one instruction.

Through the real litellm client and ``wrap_completion``, mocked at the transport (respx).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
import respx

from summem import AsyncMemory, LLMSummarizer, Memory, SummarizationReducer, wrap_completion
from summem.messages import Message
from summem.summarizers import redact_pii
from summem.summarizers.sent import STOP, SentView, in_place
from tests.fakes.replies import OPENAI_URL, openai_completion

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Find an order by its code.",
            "parameters": {"type": "object", "properties": {"code": {"type": "string"}}},
        },
    }
]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _is_summary_request(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]
    return isinstance(last.get("content"), str) and last["content"].startswith(STOP)


def _converse(
    summarizer: LLMSummarizer, turns: int = 8, *, redactor: Any = None, **call: Any
) -> tuple[Memory, list[Any]]:
    bodies: list[dict[str, Any]] = []

    def reply(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        bodies.append(body)
        summarizing = _is_summary_request(body) or body["messages"][0]["content"].startswith(
            "You maintain"
        )
        text = "Ada ordered BW-1 and asked about delivery." if summarizing else "Noted."
        return httpx.Response(200, json=openai_completion(text))

    reducer = SummarizationReducer(
        summarizer,
        threshold_messages=8,
        target_messages=5,
        summary_max_tokens=200,
        redactor=redactor,
    )
    memory = Memory("cache-reuse", reducer=reducer)
    import litellm

    completion = wrap_completion(litellm.completion, memory)
    with respx.mock(assert_all_mocked=True) as router:
        router.post(OPENAI_URL).mock(side_effect=reply)
        for i in range(turns):
            messages = (
                [{"role": "system", "content": "You are a shop assistant."}] if i == 0 else []
            )
            messages.append({"role": "user", "content": f"Question {i} about order BW-{i}."})
            completion(model="gpt-4o-mini", messages=messages, tools=TOOLS, **call)
    return memory, bodies


def test_the_summarizer_resends_the_assistants_request_and_asks_for_the_span() -> None:
    memory, bodies = _converse(LLMSummarizer("gpt-4o-mini", reuse_cache=True))
    summaries = [i for i, b in enumerate(bodies) if _is_summary_request(b)]
    assert summaries, "the conversation passed the threshold"
    at = summaries[0]
    summary_call, assistant_call = bodies[at], bodies[at - 1]
    assert not _is_summary_request(assistant_call)
    # the prefix is the assistant's request exactly: same model, same messages, same tools
    assert summary_call["model"] == assistant_call["model"] == "gpt-4o-mini"
    assert summary_call["messages"][:-1] == assistant_call["messages"]
    assert json.dumps(summary_call["messages"][:-1]) == json.dumps(assistant_call["messages"])
    assert summary_call["tools"] == assistant_call["tools"] == TOOLS
    # one instruction, naming the span by position, under the output cap
    instruction = summary_call["messages"][-1]
    assert instruction["role"] == "user"
    assert "(messages #1 to #" in instruction["content"]
    assert summary_call["max_tokens"] <= 2 * 200 + 256
    # the same provenance as a prompted summary, plus how it was made
    assert memory.summary is not None and memory.summary.summary_info is not None
    info = memory.summary.summary_info
    assert info.summarizer == "llm:gpt-4o-mini" and info.prompt == "summarize@1"
    assert info.extra["cache_reuse"] is True
    assert memory.summary.text.endswith("Ada ordered BW-1 and asked about delivery.")


def test_a_later_reduction_names_the_previous_summary_by_position() -> None:
    _, bodies = _converse(LLMSummarizer("gpt-4o-mini", reuse_cache=True), turns=14)
    calls = [b for b in bodies if _is_summary_request(b)]
    assert len(calls) >= 2
    second = calls[1]["messages"]
    assert second[1]["content"].startswith(
        "Summary of the earlier conversation"
    )  # the summary sent after the system
    assert "(message #1 above)" in second[-1]["content"]
    assert "(messages #2 to #" in second[-1]["content"]


def test_another_model_cannot_reuse_the_cache_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="summem.summarizers.llm"):
        memory, bodies = _converse(LLMSummarizer("gpt-4.1-mini", reuse_cache=True))
    assert not any(_is_summary_request(b) for b in bodies)
    prompted = [b for b in bodies if b["model"] == "gpt-4.1-mini"]
    assert prompted and "tools" not in prompted[0]
    reason = memory.summary.summary_info.extra["cache_reuse"]  # type: ignore[union-attr]
    assert "cannot be reused" in reason
    assert sum("cannot be reused" in r.getMessage() for r in caplog.records) == 1  # once


def test_a_forced_tool_choice_becomes_none_and_the_cache_key_goes_along() -> None:
    _, bodies = _converse(
        LLMSummarizer("gpt-4o-mini", reuse_cache=True),
        tool_choice="required",
        prompt_cache_key="user-42",
    )
    call = next(b for b in bodies if _is_summary_request(b))
    assert call["tool_choice"] == "none"
    assert call["prompt_cache_key"] == "user-42"


def _msgs(*texts: str) -> list[Message]:
    return [Message.from_openai({"role": "user", "content": t}) for t in texts]


def test_in_place_finds_the_span_or_says_why_not() -> None:
    system = Message.from_openai({"role": "system", "content": "S"})
    a, b, c = _msgs("a", "b", "c")
    view = [system, a, b]
    sent = SentView.of([m.to_openai() for m in view], view, model="m")
    found = in_place(sent, [a, b, c], None)
    assert not isinstance(found, str)
    # c came after the request: it follows the sent messages, unchanged before it
    assert (found.first, found.last, found.summary_at) == (1, 3, None)
    assert found.messages[:3] == [m.to_openai() for m in view]
    assert found.messages[3]["content"] == "c"
    assert "does not hold the span" in str(in_place(sent, [c], None))
    assert "previous summary" in str(in_place(sent, [a], "an old summary"))
    assert "other messages" in str(in_place(sent, [b], None))
    merged = SentView.of([{"role": "user", "content": "a\nb"}], view, model="m")
    assert "restyled" in str(in_place(merged, [a], None))
    assert repr(sent) == "SentView(model='m', messages=<3>)"


def test_a_redacting_memory_never_resends_the_unredacted_view() -> None:
    memory, bodies = _converse(LLMSummarizer("gpt-4o-mini", reuse_cache=True), redactor=redact_pii)
    assert not any(_is_summary_request(b) for b in bodies)
    assert memory.summary is not None and memory.summary.summary_info is not None
    assert "no request" in memory.summary.summary_info.extra["cache_reuse"]


async def test_async_memory_and_acompletion_reuse_the_request_too() -> None:
    import litellm

    bodies: list[dict[str, Any]] = []

    def reply(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        bodies.append(body)
        text = "Ada ordered BW-1." if _is_summary_request(body) else "Noted."
        return httpx.Response(200, json=openai_completion(text))

    reducer = SummarizationReducer(
        LLMSummarizer("gpt-4o-mini", reuse_cache=True),
        threshold_messages=8,
        target_messages=5,
        summary_max_tokens=200,
    )
    memory = AsyncMemory("cache-reuse-async", reducer=reducer)
    acompletion = wrap_completion(litellm.acompletion, memory)
    with respx.mock(assert_all_mocked=True) as router:
        router.post(OPENAI_URL).mock(side_effect=reply)
        for i in range(8):
            messages = [{"role": "system", "content": "Shop."}] if i == 0 else []
            messages.append({"role": "user", "content": f"Question {i}."})
            await acompletion(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    at = next(i for i, b in enumerate(bodies) if _is_summary_request(b))
    assert bodies[at]["messages"][:-1] == bodies[at - 1]["messages"]
    assert bodies[at]["tools"] == TOOLS
    await memory.close()


def _request(fake: Any) -> tuple[LLMSummarizer, Any]:
    from summem.summarizers.base import SummaryRequest
    from summem.tokens.base import resolve_counter

    system = Message.from_openai({"role": "system", "content": "S"})
    span = _msgs("My order is BW-1.", "It was late.")
    view = [system, *span, *_msgs("And now?")]
    sent = SentView.of([m.to_openai() for m in view], view, model="m")
    request = SummaryRequest(
        messages=span,
        previous_summary=None,
        max_tokens=50,
        token_counter=resolve_counter(model="gpt-4o"),
        sent=sent,
    )
    return LLMSummarizer("m", client=fake, reuse_cache=True), request


def test_a_request_too_large_for_the_context_falls_back_to_the_prompt() -> None:
    from summem._flow import run_sync
    from summem.errors import ContextWindowExceededError
    from tests.fakes.llm import FakeLLMClient

    fake = FakeLLMClient().enqueue(ContextWindowExceededError("too long"), "BW-1 was late.")
    summarizer, request = _request(fake)
    output = run_sync(summarizer.summarize(request))
    assert output.text == "BW-1 was late." and output.calls == 2
    assert "exceed the context" in output.extra["cache_reuse"]
    assert fake.calls[0].messages[-1]["content"].startswith(STOP)
    assert not fake.calls[1].messages[-1]["content"].startswith(STOP)  # the prompt's own


def test_a_failed_or_empty_reply_in_place_fails_as_a_prompted_one_would() -> None:
    from summem._flow import run_sync
    from summem.errors import InvalidSummaryError, LLMError, SummarizationError
    from tests.fakes.llm import FakeLLMClient

    summarizer, request = _request(FakeLLMClient().enqueue(LLMError("bad request")))
    with pytest.raises(SummarizationError, match="attempts=1"):
        run_sync(summarizer.summarize(request))
    summarizer, request = _request(FakeLLMClient().enqueue(""))
    with pytest.raises(InvalidSummaryError, match="empty summary") as info:
        run_sync(summarizer.summarize(request))
    assert info.value.usage["calls"] == 1
