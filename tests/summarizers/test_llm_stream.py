"""The LLM summarizer with real servers' habits: caps ignored, streams, echoes, usage spent."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
import respx

from summem import LLMSummarizer, Memory, SummarizationReducer
from summem._flow import run_async, run_sync
from summem.errors import InvalidSummaryError, SummarizationError
from summem.messages import parse_messages
from summem.summarizers.base import SummaryRequest
from summem.summarizers.chain import FallbackSummarizer
from summem.summarizers.checks import echo_share
from summem.summarizers.extractive import ExtractiveSummarizer
from tests.fakes.counters import WordCounter
from tests.fakes.replies import chunk, openai_completion, sse
from tests.fakes.summarizers import offline_or_none

LOCAL = "http://127.0.0.1:9/v1"
LOCAL_URL = LOCAL + "/chat/completions"


def request(max_tokens: int = 40) -> SummaryRequest:
    msgs = parse_messages(
        [
            {"role": "user", "content": "My order BW-58214-K is late and I live in Bergen."},
            {"role": "assistant", "content": "I am sorry; order BW-58214-K ships tomorrow."},
        ]
        * 6
    )
    return SummaryRequest(
        messages=msgs, previous_summary=None, max_tokens=max_tokens, token_counter=WordCounter()
    )


def local(**kw: Any) -> LLMSummarizer:
    return LLMSummarizer(
        "local-model",
        client=openai.OpenAI(base_url=LOCAL, api_key="x"),
        async_client=openai.AsyncOpenAI(base_url=LOCAL, api_key="x"),
        **kw,
    )


def endless(request: httpx.Request) -> httpx.Response:
    """A server that ignores the cap: it would stream forever (here: 10,000 chunks)."""
    body = json.loads(request.content)
    assert body["stream"] is True and "max_tokens" in body
    chunks = [chunk({"role": "assistant", "content": "word "})] * 10_000
    return httpx.Response(200, content=sse(chunks), headers={"content-type": "text/event-stream"})


def test_compatible_servers_get_max_tokens_and_openai_gets_max_completion_tokens() -> None:
    assert local().client.max_tokens_param == "max_tokens"  # type: ignore[attr-defined]
    official = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="x"))
    assert official.client.max_tokens_param == "max_completion_tokens"  # type: ignore[attr-defined]
    assert not official.stream and local().stream
    chosen = LLMSummarizer("m", client=openai.OpenAI(api_key="x"), max_tokens_param="max_tokens")
    assert chosen.client.max_tokens_param == "max_tokens"  # type: ignore[attr-defined]
    assert LLMSummarizer("openai/m", api_base=LOCAL).stream
    assert not LLMSummarizer("gpt-4o-mini").stream
    with pytest.raises(Exception, match="max_tokens_param"):
        LLMSummarizer("m", max_tokens_param="tokens")


@respx.mock
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_reply_that_runs_past_the_cap_is_cut_and_rejected(mode: str) -> None:
    route = respx.post(LOCAL_URL).mock(side_effect=endless)
    summarizer = local()
    flow = summarizer.summarize(request())
    with pytest.raises(InvalidSummaryError, match="cut off") as info:
        run_sync(flow) if mode == "sync" else await run_async(flow)
    assert route.call_count == 1
    assert info.value.usage["calls"] == 1 and info.value.usage["output_tokens"] > 0


@respx.mock
def test_a_stream_without_usage_gets_an_estimate() -> None:
    body = sse(
        [
            chunk({"role": "assistant", "content": "Order BW-58214-K, Bergen."}),
            chunk({}, finish="stop"),
        ]
    )
    respx.post(LOCAL_URL).mock(
        return_value=httpx.Response(
            200, content=body, headers={"content-type": "text/event-stream"}
        )
    )
    out = run_sync(local().summarize(request()))
    assert out.text == "Order BW-58214-K, Bergen."
    assert out.input_tokens > 0 and out.output_tokens > 0
    assert out.extra["usage_estimated"] is True


@respx.mock
def test_a_stream_that_never_finishes_is_an_error_not_a_summary() -> None:
    body = sse([chunk({"role": "assistant", "content": "Order BW"})]).replace(
        b"data: [DONE]\n\n", b""
    )
    respx.post(LOCAL_URL).mock(
        return_value=httpx.Response(
            200, content=body, headers={"content-type": "text/event-stream"}
        )
    )
    with pytest.raises(InvalidSummaryError, match="finish_reason"):
        run_sync(local().summarize(request()))


ECHOES = [
    "You maintain the long-term memory of a conversation between a user and an AI assistant. "
    "Older turns are being removed from the assistant's context.",
    "1. Integrate the previous summary. Keep its facts unless the transcript corrects them; "
    "then keep the newer value. Never drop a fact only because it is old.\n2. Keep facts "
    "exactly as stated: numbers, amounts, quantities, codes and identifiers.",
    "Write ONE updated summary that replaces the previous summary: Integrate the previous "
    "summary. Keep its facts unless the transcript corrects them.",
]


# Seen live from SmolLM2-135M over llama.cpp: replies pasting back the prompt's blocks.
COPIED_BLOCKS = [
    "<<<Summary with 300+ tokens>>\n\n[user]: Hi there, I need some help with an order.\n\n"
    "<previous_summary>\n(none yet: this is the first summary)",
    "<<Summary with 300+ tokens>>\n\n<transcript>\n[assistant]: Here are three options.",
    "- order BW-58214-K late\n</Transcript>",
]


# Seen live from SmolLM2-135M over llama.cpp: a reply of a lone code fence, committed as the
# summary of ten messages before this check.
WORDLESS = ["```", "...", "- \n- \n", "**:**", "  \u2014  "]


# Seen live from SmolLM2-135M over llama.cpp through the Agents SDK session: "(none)" and a
# fence, the text summem writes for an empty field, committed as the summary of eleven
# messages before this check.
PROMPT_SCRAPS = [
    ("(none)\n```", "empty field"),
    ("- None.", "empty field"),
    ("(none yet: this is the first summary)", "instructions"),
]


REJECTED = [
    *((echo, "instructions") for echo in ECHOES),
    *PROMPT_SCRAPS,
    *((reply, "block tags") for reply in COPIED_BLOCKS),
    *((reply, "no word") for reply in WORDLESS),
]
"""Replies that are not a summary, and what the refusal names."""


@respx.mock
@pytest.mark.parametrize(("reply", "why"), REJECTED)
def test_a_reply_that_is_not_a_summary_is_rejected(reply: str, why: str) -> None:
    respx.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_completion(reply))
    )
    summarizer = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="sk-test"))
    with pytest.raises(InvalidSummaryError, match=why):
        run_sync(summarizer.summarize(request(max_tokens=200)))


@respx.mock
@pytest.mark.parametrize(
    "reply", ["- 42", "- 注文は遅れた", "- \u00e9t\u00e9", "- Ships tomorrow.", "Bergen"]
)
def test_a_short_summary_in_any_script_is_kept(reply: str) -> None:
    respx.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_completion(reply))
    )
    summarizer = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="sk-test"))
    assert run_sync(summarizer.summarize(request(max_tokens=200))).text == reply


@respx.mock
def test_a_summary_about_tags_the_user_wrote_is_kept() -> None:
    # what the conversation says about tags reaches the model neutralized; other tags are fine
    reply = "- The user asked how to close a <\\/transcript> tag and a <summary> block."
    respx.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_completion(reply))
    )
    summarizer = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="sk-test"))
    assert run_sync(summarizer.summarize(request(max_tokens=200))).text == reply


def test_a_real_summary_shares_little_with_the_instructions() -> None:
    from summem.prompts import load_prompt

    instructions = load_prompt("summarize").instructions
    summary = (
        "- The user (Ada) reported order BW-58214-K late; it ships tomorrow.\n"
        "- The user lives in Bergen and wants email contact only.\n"
        "- Open task: check delivery status on Monday."
    )
    assert echo_share(summary, instructions) < 0.1
    assert echo_share(ECHOES[1], instructions) > 0.9


@respx.mock
def test_tokens_spent_on_rejected_summaries_show_in_the_memory_usage() -> None:
    respx.post("https://api.openai.com/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=openai_completion("x", finish_reason="length"))
    )
    llm = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="sk-test"))
    reducer = SummarizationReducer(
        FallbackSummarizer([llm, ExtractiveSummarizer()]),
        threshold_tokens=60,
        target_tokens=35,
        summary_max_tokens=10,
        token_counter=WordCounter(),
    )
    memory = Memory("spent", reducer=reducer)
    for message in request().messages:
        memory.add(message.to_openai())
    assert memory.summary is not None  # the extractive fallback took over
    assert memory.summarizer_usage["calls"] >= 1
    assert memory.summarizer_usage["input_tokens"] >= 120  # the rejected LLM call's tokens
    alone = SummarizationReducer(
        llm,
        threshold_tokens=60,
        target_tokens=35,
        summary_max_tokens=10,
        token_counter=WordCounter(),
        fail_on_error=False,
    )
    failing = Memory("spent2", reducer=alone)
    for message in request().messages:
        failing.add(message.to_openai())
    assert offline_or_none(failing.summary)  # past the hard limit: the offline fold
    spent = failing.summarizer_usage
    assert spent["rejected_calls"] >= 1 and spent["rejected_input_tokens"] >= 120
    with pytest.raises(SummarizationError):
        raise failing.last_error  # type: ignore[misc]
