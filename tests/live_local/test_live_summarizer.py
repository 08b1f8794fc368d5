"""LLMSummarizer with a real model, through the openai SDK and litellm, inside Memory.

SmolLM2-135M writes weak summaries and often runs past its cap: the tests check what summem
guarantees (each call bounded in time and tokens, no invalid summary committed, provenance,
nothing lost, valid views, usage counted) and print recall as a figure.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from summem import (
    ExtractiveSummarizer,
    FallbackSummarizer,
    LLMSummarizer,
    Memory,
    RetryPolicy,
    SummarizationReducer,
)
from summem.async_memory import AsyncMemory
from tests.fakes.memory import check_session

pytestmark = pytest.mark.live_local

FACTS = [
    ("name", "My name is Ada Lovelace.", "Ada"),
    ("order", "My order number is BW-58214-K.", "BW-58214-K"),
    ("city", "I live in Bergen, Norway.", "Bergen"),
    ("budget", "My budget is 1879 pounds.", "1879"),
    ("contact", "Please contact me by email only.", "email"),
    ("flight", "My flight leaves on 12 March 2026.", "12 March"),
]
SUMMARY_MAX = 120


def conversation(turns: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a shopping assistant."}]
    for i in range(turns):
        fact = FACTS[i % len(FACTS)][1]
        out.append({"role": "user", "content": f"{fact} Question {i}: where is my parcel today?"})
        out.append({"role": "assistant", "content": f"Noted. Answer {i}: it is on its way."})
    return out


def summarizers(
    live_base_url: str, live_model: str, openai_client: Any, async_client: Any | None = None
) -> dict[str, LLMSummarizer]:
    retry = RetryPolicy(max_attempts=2, deadline_seconds=300)
    return {
        "openai-sdk": LLMSummarizer(
            live_model, client=openai_client, async_client=async_client, retry=retry
        ),
        "litellm": LLMSummarizer(
            f"openai/{live_model}", api_base=live_base_url, api_key="sk-no-key-needed", retry=retry
        ),
    }


@pytest.mark.parametrize("via", ["openai-sdk", "litellm"])
def test_several_reductions_with_the_real_model(
    via: str, live_base_url: str, live_model: str, openai_client: Any
) -> None:
    llm = summarizers(live_base_url, live_model, openai_client)[via]
    assert llm.stream  # a compatible server: the reply is read as a stream and cut at the cap
    reducer = SummarizationReducer(
        FallbackSummarizer([llm, ExtractiveSummarizer()]),
        threshold_tokens=700,
        target_tokens=450,
        summary_max_tokens=SUMMARY_MAX,
    )
    memory = Memory("live-sum", reducer=reducer)
    started = time.monotonic()
    for message in conversation(30):
        memory.add(message)
    elapsed = time.monotonic() - started
    summaries = memory.summaries()
    assert len(summaries) >= 2
    spent = memory.summarizer_usage
    assert spent["calls"] >= 2 and spent["output_tokens"] > 0
    # every LLM call was cut at the output cap at worst: the reply never ran on
    cap = max(2 * SUMMARY_MAX, SUMMARY_MAX + 256)
    assert spent["output_tokens"] <= spent["calls"] * (cap + 64)
    for summary in summaries:
        info = summary.summary_info
        assert info is not None and info.tokens <= SUMMARY_MAX + max(16, SUMMARY_MAX // 10) + 20
    check_session(memory.store, "live-sum", memory.view())
    assert len(memory.history_messages()) == 60
    kept = sum(needle in memory.summary.text for _, _, needle in FACTS) if memory.summary else 0
    info = memory.summary.summary_info if memory.summary else None
    print(
        f"\n[live-local] {via}: {len(summaries)} summaries, {spent['calls']} LLM calls "
        f"({spent.get('rejected_calls', 0)} rejected), {spent['input_tokens']} tokens in, "
        f"{spent['output_tokens']} out, {elapsed / max(1, spent['calls']):.1f} s per call, "
        f"facts in the final summary {kept}/{len(FACTS)} "
        f"(by {info.summarizer if info else '-'})"
    )


async def test_async_summarizer_with_async_memory(
    live_base_url: str, live_model: str, openai_client: Any, async_openai_client: Any
) -> None:
    llm = summarizers(live_base_url, live_model, openai_client, async_openai_client)["openai-sdk"]
    reducer = SummarizationReducer(
        FallbackSummarizer([llm, ExtractiveSummarizer()]),
        threshold_tokens=700,
        target_tokens=450,
        summary_max_tokens=SUMMARY_MAX,
    )
    memory = AsyncMemory("live-async", reducer=reducer)
    for message in conversation(20):
        await memory.add(message)
    assert await memory.summaries()
    assert len(await memory.history_messages()) == 40
    assert memory.summarizer_usage["calls"] >= 1
    await memory.close()
