"""The wrappers feel native: failures, abandoned streams, the SDK's other entry points, types.

Everything goes through the real openai and litellm clients, mocked at the transport.
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
import respx
from openai.types.chat import ChatCompletionSystemMessageParam
from typing_extensions import assert_type

from summem.async_memory import AsyncMemory
from summem.errors import ConfigurationError
from summem.memory import Memory
from summem.wrappers import wrap_completion, wrap_openai
from tests.fakes.replies import OPENAI_URL as URL
from tests.fakes.replies import chunk, sse
from tests.wrappers.test_wrappers import bodies, completion, small_memory

SYSTEM: ChatCompletionSystemMessageParam = {"role": "system", "content": "be kind"}


def sse_response(chunks: list[dict[str, Any]]) -> httpx.Response:
    return httpx.Response(200, content=sse(chunks), headers={"content-type": "text/event-stream"})


def reply_chunks(text: str = "streamed") -> list[dict[str, Any]]:
    half = len(text) // 2
    return [
        chunk({"role": "assistant", "content": text[:half]}),
        chunk({"content": text[half:]}, finish="stop"),
        chunk({}, usage={"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}),
    ]


def texts(memory: Memory) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in memory.history_messages()]


# -- failures and the system message ---------------------------------------------------------


@respx.mock
def test_a_failed_call_keeps_the_user_message_and_records_no_reply() -> None:
    route = respx.post(URL).mock(
        side_effect=[
            httpx.Response(500, json={"error": {"message": "boom"}}),
            httpx.Response(200, json=completion("answer")),
        ]
    )
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), memory)
    with pytest.raises(openai.InternalServerError):  # the SDK's own exception, unchanged
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    assert texts(memory) == [("user", "q")]  # said, but not answered
    client.chat.completions.create(model="m", messages=[])  # retry: resend the view
    assert bodies(route)[1]["messages"] == [{"role": "user", "content": "q"}]
    assert texts(memory) == [("user", "q"), ("assistant", "answer")]


@respx.mock
def test_the_system_message_passed_every_turn_is_kept_once() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("ok")))
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    for text in ("one", "two"):
        client.chat.completions.create(
            model="m", messages=[SYSTEM, {"role": "user", "content": text}]
        )
    assert [m["role"] for m in bodies(route)[1]["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
    ]
    changed: ChatCompletionSystemMessageParam = {"role": "system", "content": "be brief"}
    client.chat.completions.create(model="m", messages=[changed, {"role": "user", "content": "3"}])
    sent = bodies(route)[2]["messages"]
    assert sent[0] == changed and sum(m["role"] == "system" for m in sent) == 1


# -- streams ---------------------------------------------------------------------------------


@respx.mock
def test_an_abandoned_stream_records_nothing_and_closes() -> None:
    respx.post(URL).mock(
        side_effect=[sse_response(reply_chunks("partial reply")), sse_response(reply_chunks())]
    )
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    with client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "q"}], stream=True
    ) as stream:
        first = next(stream)  # the native stream is an iterator: next() works
        assert first.choices[0].delta.content == "partia"  # half of "partial reply"
    assert stream.response.is_closed
    assert texts(memory) == [("user", "q")]
    again = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "q2"}], stream=True
    )
    assert len(list(again)) == 3
    assert texts(memory) == [("user", "q"), ("user", "q2"), ("assistant", "streamed")]


@respx.mock
async def test_async_stream_supports_anext_and_records_once() -> None:
    respx.post(URL).mock(return_value=sse_response(reply_chunks()))
    memory = small_memory(AsyncMemory)
    client = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    stream = await client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "q"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    first = await anext(stream)
    rest = [c async for c in stream]
    assert first.choices[0].delta.content == "stre" and len(rest) == 2
    assert [c async for c in stream] == []  # exhausted: nothing more, nothing recorded twice
    history = await memory.history_messages()
    assert [m.text for m in history] == ["q", "streamed"]
    assert history[-1].meta["usage"]["total_tokens"] == 6


@respx.mock
async def test_litellm_acompletion_streaming_records_the_reply() -> None:
    import litellm

    litellm.disable_aiohttp_transport = True  # route async calls through httpx, so respx sees them
    respx.post(URL).mock(return_value=sse_response(reply_chunks()))
    memory = small_memory(AsyncMemory)
    acompletion = wrap_completion(litellm.acompletion, memory)
    stream = await acompletion(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "q"}], stream=True, api_key="k"
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "streamed"
    assert (await memory.history_messages())[-1].text == "streamed"


# -- the SDK's other entry points ------------------------------------------------------------


@respx.mock
def test_litellm_messages_given_by_position() -> None:
    import litellm

    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("pos")))
    memory = small_memory()
    memory.add({"role": "user", "content": "earlier"})
    completion_fn = wrap_completion(litellm.completion, memory)
    completion_fn("gpt-4o-mini", [{"role": "user", "content": "now"}], api_key="k")
    assert [m["content"] for m in bodies(route)[0]["messages"]] == ["earlier", "now"]
    assert memory.history_messages()[-1].text == "pos"


@respx.mock
def test_with_options_and_copy_keep_the_memory() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("ok")))
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    client.with_options(timeout=5).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "a"}]
    )
    client.copy(max_retries=0).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "b"}]
    )
    assert [m["content"] for m in bodies(route)[1]["messages"]] == ["a", "ok", "b"]
    assert len(memory.history_messages()) == 4


@respx.mock
def test_parse_goes_through_the_memory() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion('{"n": 1}')))
    memory = small_memory()
    memory.add({"role": "user", "content": "earlier"})
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    parsed = client.chat.completions.parse(model="m", messages=[{"role": "user", "content": "n"}])
    assert parsed.choices[0].message.content == '{"n": 1}'
    assert [m["content"] for m in bodies(route)[0]["messages"]] == ["earlier", "n"]
    assert memory.history_messages()[-1].text == '{"n": 1}'


@respx.mock
def test_the_stream_helper_records_the_reply() -> None:
    route = respx.post(URL).mock(return_value=sse_response(reply_chunks()))
    memory = small_memory()
    memory.add({"role": "user", "content": "earlier"})
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    with client.chat.completions.stream(
        model="m", messages=[{"role": "user", "content": "q"}]
    ) as stream:
        kinds = {event.type for event in stream}
        final = stream.get_final_completion()
    assert "content.delta" in kinds and final.choices[0].message.content == "streamed"
    assert [m["content"] for m in bodies(route)[0]["messages"]] == ["earlier", "q"]
    assert texts(memory)[-1] == ("assistant", "streamed")
    assert len(memory.history_messages()) == 3  # recorded once, not again by get_final_completion


@respx.mock
async def test_the_async_stream_helper_records_the_reply() -> None:
    respx.post(URL).mock(return_value=sse_response(reply_chunks()))
    memory = small_memory(AsyncMemory)
    client = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    async with client.chat.completions.stream(
        model="m",
        messages=[{"role": "user", "content": "q"}],
        stream_options={"include_usage": True},
    ) as stream:
        final = await stream.get_final_completion()  # reads the stream to its end
    assert final.choices[0].message.content == "streamed"
    history = await memory.history_messages()
    assert [m.text for m in history] == ["q", "streamed"]
    assert history[-1].meta["usage"]["total_tokens"] == 6


def test_other_attributes_are_the_clients_own() -> None:
    inner = openai.OpenAI(api_key="sk-test", base_url="http://localhost:1/v1")
    client = wrap_openai(inner, small_memory())
    assert client.models is inner.models and client.base_url == inner.base_url
    assert client.chat.completions.list == inner.chat.completions.list
    assert "sk-test" not in repr(client)


def test_a_sync_function_with_an_async_memory_is_refused() -> None:
    import litellm

    with pytest.raises(ConfigurationError, match="got completion with AsyncMemory"):
        wrap_completion(litellm.completion, small_memory(AsyncMemory))
    with pytest.raises(ConfigurationError, match="got acompletion with Memory"):
        wrap_completion(litellm.acompletion, small_memory())


def test_the_wrapped_client_keeps_the_sdk_types() -> None:
    # Checked by mypy (scripts/lint): the wrappers must not erase the SDK's signatures.
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), small_memory())
    assert_type(client, openai.OpenAI)

    def complete(*, model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        reply: dict[str, Any] = completion(f"{model}: {len(messages)}")
        return reply

    wrapped = wrap_completion(complete, small_memory())
    reply = wrapped(model="m", messages=[{"role": "user", "content": "x"}])
    assert_type(reply, dict[str, Any])
    assert reply["choices"][0]["message"]["content"] == "m: 1"


@respx.mock
def test_the_reply_passed_back_with_the_tool_results_is_not_recorded_twice() -> None:
    # The openai tool-calling recipe: append response.choices[0].message, then the results.
    call = {"id": "call_9", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    route = respx.post(URL).mock(
        side_effect=[
            httpx.Response(200, json=completion(None, [call])),
            httpx.Response(200, json=completion("It is 42.")),
        ]
    )
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    first = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}])
    client.chat.completions.create(
        model="m",
        messages=[
            first.choices[0].message,  # type: ignore[list-item]  # the recipe passes the object
            {"role": "tool", "tool_call_id": "call_9", "content": "42"},
        ],
    )
    assert [m.role for m in memory.history_messages()] == ["user", "assistant", "tool", "assistant"]
    sent = bodies(route)[1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
