"""The wrappers' recall opt-in: the model asks for what the summary dropped and gets it back.

The real openai client and litellm, mocked at the transport: the first reply calls
``recall_conversation``, the wrapper answers from history and asks again, and the application
only ever sees the final reply.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import openai
import pytest
import respx

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.wrappers import wrap_completion, wrap_openai
from tests.fakes.counters import WordCounter
from tests.fakes.replies import OPENAI_URL, openai_completion

FIRST = "My order number is BW-58214-K and the parcel arrived damaged."


def reducer() -> SummarizationReducer:
    return SummarizationReducer(
        ExtractiveSummarizer(),
        threshold_tokens=120,
        target_tokens=80,
        summary_max_tokens=10,
        token_counter=WordCounter(),
    )


def recall_call(query: str, call_id: str = "call_r1") -> dict[str, Any]:
    args = json.dumps({"query": query})
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "recall_conversation", "arguments": args},
    }


def fill(memory: Memory) -> None:
    memory.add({"role": "user", "content": FIRST})
    for i in range(30):
        memory.add({"role": "user", "content": f"small talk number {i} about the weather today"})
        memory.add({"role": "assistant", "content": f"reply {i}: it is sunny and mild outside"})


def bodies(route: respx.Route) -> list[dict[str, Any]]:
    return [json.loads(c.request.content) for c in route.calls]


@respx.mock
def test_the_wrapper_answers_recall_calls_and_returns_the_final_reply() -> None:
    replies = iter(
        [
            openai_completion(None, tool_calls=[recall_call("order number")]),
            openai_completion("Your order is BW-58214-K."),
        ]
    )
    route = respx.post(OPENAI_URL).mock(
        side_effect=lambda request: httpx.Response(200, json=next(replies))
    )
    memory = Memory("s", reducer=reducer())
    fill(memory)
    assert FIRST not in json.dumps(memory.messages())  # the view lost it
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory, recall=True)
    response = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "What was my order number?"}]
    )
    assert response.choices[0].message.content == "Your order is BW-58214-K."
    first, second = bodies(route)
    assert [t["function"]["name"] for t in first["tools"]] == ["recall_conversation"]
    tool_msg = second["messages"][-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_r1"
    assert FIRST in json.loads(tool_msg["content"])["results"][0]["content"]
    roles = [m.role for m in memory.history_messages()[-4:]]
    assert roles == ["user", "assistant", "tool", "assistant"]  # all recorded, pairs valid


@respx.mock
def test_rounds_are_bounded_and_the_last_asks_for_no_more_tool_calls() -> None:
    calls = iter(range(100))
    route = respx.post(OPENAI_URL).mock(
        side_effect=lambda request: httpx.Response(
            200,
            json=openai_completion(None, tool_calls=[recall_call("x", f"call_{next(calls)}")])
            if json.loads(request.content).get("tool_choice") != "none"
            else openai_completion("I could not find it."),
        )
    )
    memory = Memory("s", reducer=reducer())
    fill(memory)
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory, recall=True)
    response = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "anything?"}]
    )
    assert response.choices[0].message.content == "I could not find it."
    sent = bodies(route)
    assert len(sent) == 4 and sent[-1]["tool_choice"] == "none"
    assert all("tool_choice" not in b for b in sent[:-1])


@respx.mock
def test_a_reply_that_also_calls_the_applications_tools_is_returned() -> None:
    own = {"id": "call_app", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            200, json=openai_completion(None, tool_calls=[recall_call("order"), own])
        )
    )
    memory = Memory("s", reducer=reducer())
    fill(memory)
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory, recall=True)
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    response = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "check it"}], tools=tools
    )
    assert route.call_count == 1
    assert [c.id for c in response.choices[0].message.tool_calls] == ["call_r1", "call_app"]
    names = [t["function"]["name"] for t in bodies(route)[0]["tools"]]
    assert names == ["lookup", "recall_conversation"]
    # the recall call is answered; the application answers its own, and the group completes
    client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "tool", "tool_call_id": "call_app", "content": "found"}],
        tools=tools,
    )
    last = [m.role for m in memory.history_messages()[-5:]]
    assert last[:3] == ["assistant", "tool", "tool"]


@respx.mock
def test_without_recall_no_tool_is_added() -> None:
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion("hi"))
    )
    memory = Memory("s")
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
    assert "tools" not in bodies(route)[0]


@respx.mock
def test_async_and_litellm_twins() -> None:
    import litellm

    replies = iter(
        [
            openai_completion(None, tool_calls=[recall_call("BW-58214-K")]),
            openai_completion("It is BW-58214-K."),
        ]
        * 2
    )
    route = respx.post(OPENAI_URL).mock(
        side_effect=lambda request: httpx.Response(200, json=next(replies))
    )

    async def run() -> str:
        memory = AsyncMemory("a", reducer=reducer())
        await memory.add({"role": "user", "content": FIRST})
        for i in range(30):
            await memory.add({"role": "user", "content": f"small talk {i} about the weather"})
        client: Any = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory, recall=True)
        response = await client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "my order?"}]
        )
        await memory.close()
        return str(response.choices[0].message.content)

    assert asyncio.run(run()) == "It is BW-58214-K."
    memory = Memory("l", reducer=reducer())
    fill(memory)
    completion = wrap_completion(litellm.completion, memory, recall=True)
    response = completion(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "my order?"}],
        api_key="sk-test",
    )
    assert response.choices[0].message.content == "It is BW-58214-K."
    assert route.call_count == 4


def test_recall_rounds_must_be_positive() -> None:
    from summem.errors import ConfigurationError
    from summem.wrappers.turn import TurnOptions

    with pytest.raises(ConfigurationError, match="recall_rounds"):
        TurnOptions(recall=True, recall_rounds=0)
