"""The wrappers send the masked view: old tool results go to the provider as stubs."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import respx

from summem.async_memory import AsyncMemory
from summem.memory import Memory
from summem.reducers.masking import STUB_PREFIX
from summem.reducers.summarization import SummarizationReducer
from summem.wrappers import wrap_completion, wrap_openai
from tests.fakes.counters import WordCounter
from tests.fakes.replies import OPENAI_URL, openai_completion
from tests.fakes.summarizers import FakeSummarizer
from tests.reducers.test_masking import tool_turn


def masking_memory(cls: Any, fake: FakeSummarizer) -> Any:
    reducer = SummarizationReducer(
        fake,
        threshold_tokens=2000,
        target_tokens=1500,
        summary_max_tokens=10,
        token_counter=WordCounter(),
        mask_tool_results_after=1,
        mask_min_tokens=20,
    )
    return cls("wrapped", reducer=reducer)


def conversation() -> list[dict[str, Any]]:
    """Four tool turns, the final answer left for the model."""
    return [m for i in range(4) for m in tool_turn(i)][:-1]


def sent_tools(route: respx.Route) -> list[dict[str, Any]]:
    body = json.loads(route.calls[-1].request.content)
    return [m for m in body["messages"] if m["role"] == "tool"]


@respx.mock
def test_openai_sync_request_carries_stubs() -> None:
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion("shipped", usage=(5, 1)))
    )
    fake = FakeSummarizer()
    memory = masking_memory(Memory, fake)
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    client.chat.completions.create(model="gpt-4o-mini", messages=conversation())
    tools = sent_tools(route)
    assert [STUB_PREFIX in t["content"] for t in tools] == [True, True, True, False]
    assert [t["tool_call_id"] for t in tools] == ["c0", "c1", "c2", "c3"]
    assert fake.requests == []
    # The whole list again next turn: recognised as recorded, still masked the same way.
    again = [*conversation(), {"role": "assistant", "content": "shipped"}]
    client.chat.completions.create(
        model="gpt-4o-mini", messages=[*again, {"role": "user", "content": "thanks"}]
    )
    assert sent_tools(route) == tools
    assert all(STUB_PREFIX not in m.text for m in memory.history_messages())


@respx.mock
async def test_openai_async_request_carries_stubs() -> None:
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion("shipped", usage=(5, 1)))
    )
    memory = masking_memory(AsyncMemory, FakeSummarizer())
    client: Any = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    await client.chat.completions.create(model="gpt-4o-mini", messages=conversation())
    tools = sent_tools(route)
    assert [STUB_PREFIX in t["content"] for t in tools] == [True, True, True, False]
    await memory.close()


@respx.mock
def test_litellm_completion_request_carries_stubs() -> None:
    import litellm

    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion("shipped", usage=(5, 1)))
    )
    memory = masking_memory(Memory, FakeSummarizer())
    completion_fn = wrap_completion(litellm.completion, memory)
    completion_fn(model="gpt-4o-mini", messages=conversation(), api_key="sk-t")
    tools = sent_tools(route)
    assert [STUB_PREFIX in t["content"] for t in tools] == [True, True, True, False]
