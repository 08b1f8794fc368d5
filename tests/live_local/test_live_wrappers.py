"""The wrappers against a real model on llama.cpp's server: both habits, streams, tools."""

from __future__ import annotations

import json
from typing import Any

import pytest

from summem import Memory, SummarizationReducer, ViewStyle, wrap_completion, wrap_openai
from summem.async_memory import AsyncMemory
from summem.recall.tool import RECALL_TOOL_NAME
from tests.fakes.memory import check_session
from tests.fakes.transport import SDK_HTTP
from tests.live_local.conftest import REQUEST_TIMEOUT

pytestmark = pytest.mark.live_local

SYSTEM = {"role": "system", "content": "You are a helpful assistant. Answer in one sentence."}


def small_memory(cls: Any = Memory, **kw: Any) -> Any:
    reducer = SummarizationReducer(threshold_tokens=260, target_tokens=160, summary_max_tokens=60)
    return cls("live", reducer=reducer, **kw)


def test_resending_the_whole_list_with_reductions(openai_client: Any, live_model: str) -> None:
    memory = small_memory()
    client: Any = wrap_openai(openai_client, memory)
    messages: list[Any] = [SYSTEM]
    for i in range(12):
        messages.append({"role": "user", "content": f"Question {i}: name a colour and a number."})
        response = client.chat.completions.create(
            model=live_model, messages=messages, max_tokens=40
        )
        messages.append(response.choices[0].message)
    history = memory.history_messages()
    assert [m.role for m in history] == ["user", "assistant"] * 12  # nothing twice
    assert memory.summary is not None  # the view was reduced while the list kept growing
    check_session(memory.store, "live", memory.view())
    assert memory.usage["total_tokens"] > 0


def test_streaming_records_the_reply_with_estimated_usage(
    openai_client: Any, live_model: str
) -> None:
    memory = small_memory()
    client: Any = wrap_openai(openai_client, memory)
    text = ""
    stream = client.chat.completions.create(
        model=live_model,
        messages=[SYSTEM, {"role": "user", "content": "Say hello."}],
        max_tokens=30,
        stream=True,
    )
    for chunk in stream:
        if chunk.choices:
            text += chunk.choices[0].delta.content or ""
    reply = memory.history_messages()[-1]
    assert reply.role == "assistant" and reply.text == text and text
    usage = reply.meta["usage"]  # llama.cpp sends no usage chunk: estimated, and marked so
    assert usage.get("estimated") is True or usage["total_tokens"] > 0


def test_a_tool_call_turn_is_accepted_with_the_compat_style(
    openai_client: Any, live_model: str
) -> None:
    memory = small_memory(style=ViewStyle.compat())
    client: Any = wrap_openai(openai_client, memory)
    call = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
    memory.extend(
        [
            SYSTEM,
            {"role": "user", "content": "What is the weather in Bergen?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "Rain, 12 degrees."},
        ]
    )
    response = client.chat.completions.create(model=live_model, messages=[], max_tokens=40)
    assert response.choices[0].message.content
    assert memory.history_messages()[1].content is None  # stored as given: lossless


def test_the_server_rejects_null_content_without_the_style(
    openai_client: Any, live_model: str
) -> None:
    import openai

    call = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
    with pytest.raises(openai.APIStatusError):
        openai_client.chat.completions.create(
            model=live_model,
            messages=[
                {"role": "user", "content": "Weather?"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_1", "content": "Rain."},
            ],
            max_tokens=10,
        )


def _stop_at_finish(stream: Any) -> None:
    """Read a chunk stream up to its finishing chunk, then leave it, as many callers do."""
    for chunk in stream:
        if chunk.choices and chunk.choices[0].finish_reason:
            break


def test_a_stream_left_at_its_finish_keeps_the_reply(
    openai_client: Any, live_base_url: str, live_model: str
) -> None:
    import litellm

    memory = small_memory()
    client: Any = wrap_openai(openai_client, memory, style=ViewStyle.compat())
    completion = wrap_completion(litellm.completion, memory, style=ViewStyle.compat())
    ask = {"role": "user", "content": "Say yes."}
    _stop_at_finish(
        client.chat.completions.create(model=live_model, messages=[SYSTEM, ask], stream=True)
    )
    _stop_at_finish(
        completion(
            model=f"openai/{live_model}",
            messages=[ask],
            api_base=live_base_url,
            api_key="sk-no-key-needed",
            max_tokens=20,
            timeout=REQUEST_TIMEOUT,
            stream=True,
            stream_options={"include_usage": True},  # litellm sends it after the finish
        )
    )
    assert [m.role for m in memory.history_messages()] == ["user", "assistant", "user"]
    client.chat.completions.create(model=live_model, messages=[ask], max_tokens=20)
    history = memory.history_messages()  # the reply left before its usage came first
    assert [m.role for m in history] == ["user", "assistant"] * 3
    assert history[3].meta["usage"]["estimated"] is True
    check_session(memory.store, "live", memory.view())


def test_litellm_completion_through_api_base(live_base_url: str, live_model: str) -> None:
    import litellm

    memory = small_memory()
    completion = wrap_completion(litellm.completion, memory)
    messages: list[Any] = [SYSTEM]
    for i in range(3):
        messages.append({"role": "user", "content": f"Give me word number {i}."})
        response = completion(
            model=f"openai/{live_model}",
            messages=messages,
            api_base=live_base_url,
            api_key="sk-no-key-needed",
            max_tokens=20,
            timeout=120,
        )
        messages.append(response.choices[0].message)
    assert [m.role for m in memory.history_messages()] == ["user", "assistant"] * 3


async def test_async_client_with_async_memory(async_openai_client: Any, live_model: str) -> None:
    memory = small_memory(AsyncMemory)
    client: Any = wrap_openai(async_openai_client, memory)
    for i in range(3):
        await client.chat.completions.create(
            model=live_model,
            messages=[{"role": "user", "content": f"Count to {i + 1}."}],
            max_tokens=20,
        )
    history = await memory.history_messages()
    assert [m.role for m in history] == ["user", "assistant"] * 3
    await memory.close()


def test_the_recall_loop_offers_the_tool_to_a_real_server(
    live_base_url: str, live_model: str
) -> None:
    """With ``recall=True`` every request offers the recall tool; whatever the model does with
    it (a 135M model rarely calls it), the turn completes and the record stays valid."""
    import openai

    sent: list[dict[str, Any]] = []

    def keep(request: Any) -> None:
        if request.method == "POST":
            sent.append(json.loads(request.content))

    http = SDK_HTTP.Client(event_hooks={"request": [keep]}, timeout=REQUEST_TIMEOUT)
    raw = openai.OpenAI(base_url=live_base_url, api_key="sk-no-key-needed", http_client=http)
    memory = small_memory(style=ViewStyle.compat())
    client: Any = wrap_openai(raw, memory, recall=True)
    memory.add(SYSTEM)
    try:
        for i in range(8):
            question = f"My order BW-{i}00 is late. What did I say my order number {i} was?"
            response = client.chat.completions.create(
                model=live_model, messages=[{"role": "user", "content": question}], max_tokens=40
            )
            assert response.choices[0].message is not None
    finally:
        http.close()
    assert sent and all(
        any(t["function"]["name"] == RECALL_TOOL_NAME for t in body.get("tools", []))
        for body in sent
    )
    assert memory.summary is not None  # evicted turns are what recall reaches
    assert memory.recall("BW-000")  # and the first order is still in reach
    history = memory.history_messages()
    calls = [c["id"] for m in history for c in (m.tool_calls or [])]
    answered = [m.tool_call_id for m in history if m.role == "tool"]
    assert sorted(calls) == sorted(answered)  # any recall call the model made was answered
    check_session(memory.store, "live", memory.view())


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def test_a_streamed_tool_call_is_recorded_with_its_name_once(
    openai_client: Any, live_model: str
) -> None:
    # llama.cpp repeats the whole name in every chunk of a call; the Agents SDK, LangChain and
    # the openai helpers keep it once, and then send the whole list back to a wrapped client
    memory = small_memory(style=ViewStyle.compat())
    client: Any = wrap_openai(openai_client, memory)
    user = {"role": "user", "content": "What is the weather in Bergen?"}
    stream = client.chat.completions.create(
        model=live_model,
        messages=[SYSTEM, user],
        tools=[WEATHER_TOOL],
        tool_choice={"type": "function", "function": {"name": "weather"}},
        max_tokens=30,
        stream=True,
    )
    for _ in stream:
        pass
    (call,) = memory.history_messages()[-1].to_openai()["tool_calls"]
    assert call["function"]["name"] == "weather"
    sent = {"role": "assistant", "content": None, "tool_calls": [call]}
    result = {"role": "tool", "tool_call_id": call["id"], "content": "Rain, 12 degrees."}
    client.chat.completions.create(
        model=live_model, messages=[SYSTEM, user, sent, result], max_tokens=20
    )
    assert [m.role for m in memory.history_messages()] == ["user", "assistant", "tool", "assistant"]
