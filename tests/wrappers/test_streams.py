"""Streams are recorded only when they really finished, also when the caller stops reading at the
finish; usage is counted even without a chunk."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import openai
import respx

from summem.async_memory import AsyncMemory
from summem.memory import Memory
from tests.fakes.replies import OPENAI_URL, chunk, openai_completion, sse
from tests.wrappers.test_wrappers import small_memory

USER = {"role": "user", "content": "tell me"}


def event_stream(body: bytes) -> httpx.Response:
    return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


def read_all(stream: object) -> str:
    text = ""
    for part in stream:  # type: ignore[attr-defined]
        if part.choices:
            text += part.choices[0].delta.content or ""
    return text


@respx.mock
def test_an_empty_stream_records_no_reply() -> None:
    respx.post(OPENAI_URL).mock(return_value=event_stream(b"data: [DONE]\n\n"))
    memory = small_memory()
    client = wrap(memory)
    read_all(client.chat.completions.create(model="m", messages=[USER], stream=True))
    assert [m.role for m in memory.history_messages()] == ["user"]


@respx.mock
def test_a_stream_cut_before_its_finish_records_no_reply() -> None:
    body = sse([chunk({"role": "assistant", "content": "half a sent"})]).replace(
        b"data: [DONE]\n\n", b""
    )
    respx.post(OPENAI_URL).mock(return_value=event_stream(body))
    memory = small_memory()
    client = wrap(memory)
    assert read_all(client.chat.completions.create(model="m", messages=[USER], stream=True))
    assert [m.role for m in memory.history_messages()] == ["user"]


@respx.mock
def test_a_stream_without_a_usage_chunk_gets_an_estimate_marked_as_such() -> None:
    body = sse([chunk({"role": "assistant", "content": "a full reply"}), chunk({}, finish="stop")])
    respx.post(OPENAI_URL).mock(return_value=event_stream(body))
    memory = small_memory()
    client = wrap(memory)
    read_all(client.chat.completions.create(model="m", messages=[USER], stream=True))
    reply = memory.history_messages()[-1]
    usage = reply.meta["usage"]
    assert usage["estimated"] is True
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert memory.usage["estimated_tokens"] == usage["total_tokens"]


@respx.mock
async def test_async_streams_follow_the_same_rules() -> None:
    cut = sse([chunk({"role": "assistant", "content": "partial"})]).replace(
        b"data: [DONE]\n\n", b""
    )
    whole = sse([chunk({"role": "assistant", "content": "whole"}), chunk({}, finish="stop")])
    respx.post(OPENAI_URL).mock(side_effect=[event_stream(cut), event_stream(whole)])
    memory = small_memory(AsyncMemory)
    client = wrap_async(memory)
    async for _ in await client.chat.completions.create(model="m", messages=[USER], stream=True):
        pass
    assert [m.role for m in await memory.history_messages()] == ["user"]
    async for _ in await client.chat.completions.create(model="m", messages=[], stream=True):
        pass
    history = await memory.history_messages()
    assert [m.text for m in history] == ["tell me", "whole"]
    assert history[-1].meta["usage"]["estimated"] is True
    await memory.close()


def wrap(memory: Memory) -> Any:
    from summem import wrap_openai

    return wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), memory)


def wrap_async(memory: AsyncMemory) -> Any:
    from summem import wrap_openai

    return wrap_openai(openai.AsyncOpenAI(api_key="sk-test", max_retries=0), memory)


FINISHED = [chunk({"role": "assistant", "content": "a full reply"}), chunk({}, finish="stop")]
USAGE = chunk({}, usage={"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8})


def read_to_finish(stream: Any) -> None:
    """Read until the finishing chunk, as callers that stop at ``finish_reason`` do."""
    for part in stream:
        if part.choices and part.choices[0].finish_reason:
            break


@respx.mock
def test_a_caller_that_stops_at_the_finishing_chunk_keeps_the_reply() -> None:
    respx.post(OPENAI_URL).mock(side_effect=lambda _: event_stream(sse(FINISHED)))
    memory = small_memory()
    client = wrap(memory)
    read_to_finish(client.chat.completions.create(model="m", messages=[USER], stream=True))
    assert [m.text for m in memory.history_messages()] == ["tell me"]  # parked: more may come
    stream = client.chat.completions.create(model="m", messages=[], stream=True)
    assert [m.text for m in memory.history_messages()] == ["tell me", "a full reply"]
    read_to_finish(stream)
    list(stream)  # reading on to the end records nothing more
    stream.close()
    assert [m.role for m in memory.history_messages()] == ["user", "assistant", "assistant"]


@respx.mock
def test_a_requested_usage_chunk_is_waited_for_then_closing_records_an_estimate() -> None:
    respx.post(OPENAI_URL).mock(side_effect=lambda _: event_stream(sse([*FINISHED, USAGE])))
    memory = small_memory()
    client = wrap(memory)
    usage = {"include_usage": True}
    with client.chat.completions.create(
        model="m", messages=[USER], stream=True, stream_options=usage
    ) as stream:
        read_to_finish(stream)
        assert [m.role for m in memory.history_messages()] == ["user"]  # usage to come
    reply = memory.history_messages()[-1]
    assert reply.text == "a full reply" and reply.meta["usage"]["estimated"] is True
    read_all(
        client.chat.completions.create(model="m", messages=[], stream=True, stream_options=usage)
    )
    assert memory.history_messages()[-1].meta["usage"] == {
        "prompt_tokens": 5,
        "completion_tokens": 3,
        "total_tokens": 8,
    }
    assert len(memory.history_messages()) == 3


@respx.mock
def test_a_stream_closed_before_its_finish_records_no_reply() -> None:
    respx.post(OPENAI_URL).mock(return_value=event_stream(sse(FINISHED)))
    memory = small_memory()
    with wrap(memory).chat.completions.create(model="m", messages=[USER], stream=True) as stream:
        next(iter(stream))
    assert [m.role for m in memory.history_messages()] == ["user"]


@respx.mock
def test_the_stream_helper_left_at_content_done_keeps_the_reply() -> None:
    respx.post(OPENAI_URL).mock(return_value=event_stream(sse([*FINISHED, USAGE])))
    memory = small_memory()
    with wrap(memory).chat.completions.stream(
        model="m", messages=[USER], stream_options={"include_usage": True}
    ) as stream:
        for event in stream:
            if event.type == "content.done":
                break
    assert [m.text for m in memory.history_messages()] == ["tell me", "a full reply"]


@respx.mock
async def test_async_callers_that_stop_at_the_finish_keep_the_reply() -> None:
    respx.post(OPENAI_URL).mock(side_effect=lambda _: event_stream(sse([*FINISHED, USAGE])))
    memory = small_memory(AsyncMemory)
    client = wrap_async(memory)
    stream = await client.chat.completions.create(model="m", messages=[USER], stream=True)
    async for part in stream:
        if part.choices and part.choices[0].finish_reason:
            break
    assert [m.role for m in await memory.history_messages()] == ["user"]  # parked
    usage = {"include_usage": True}
    async with await client.chat.completions.create(
        model="m", messages=[], stream=True, stream_options=usage
    ) as stream:
        assert [m.role for m in await memory.history_messages()] == ["user", "assistant"]
        async for part in stream:
            if part.choices and part.choices[0].finish_reason:
                break
    async with client.chat.completions.stream(
        model="m", messages=[], stream_options=usage
    ) as helper:
        async for event in helper:
            if event.type == "content.done":
                break
    history = await memory.history_messages()
    assert [m.role for m in history] == ["user", "assistant", "assistant", "assistant"]
    await memory.close()


@respx.mock
def test_a_reply_left_before_its_usage_chunk_is_recorded_by_the_next_call() -> None:
    respx.post(OPENAI_URL).mock(side_effect=lambda _: event_stream(sse([*FINISHED, USAGE])))
    memory = small_memory()
    client = wrap(memory)
    usage = {"include_usage": True}
    read_to_finish(
        client.chat.completions.create(
            model="m", messages=[USER], stream=True, stream_options=usage
        )
    )  # left there, never closed: the usage chunk is never read
    cut = sse([chunk({"role": "assistant", "content": "half"})]).replace(b"data: [DONE]\n\n", b"")
    respx.post(OPENAI_URL).mock(return_value=event_stream(cut))
    for _ in client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "next"}], stream=True
    ):
        pass
    history = memory.history_messages()
    assert [m.text for m in history] == ["tell me", "a full reply", "next"]  # in order
    assert history[1].meta["usage"]["estimated"] is True
    client.chat.completions.create(model="m", messages=[], stream=True).close()
    assert len(memory.history_messages()) == 3  # the unfinished one is never recorded


@respx.mock
async def test_async_a_reply_left_before_its_usage_chunk_is_recorded_by_the_next_call() -> None:
    respx.post(OPENAI_URL).mock(side_effect=lambda _: event_stream(sse([*FINISHED, USAGE])))
    memory = small_memory(AsyncMemory)
    client = wrap_async(memory)
    usage = {"include_usage": True}
    stream = await client.chat.completions.create(
        model="m", messages=[USER], stream=True, stream_options=usage
    )
    async for part in stream:
        if part.choices and part.choices[0].finish_reason:
            break
    assert [m.role for m in await memory.history_messages()] == ["user"]
    async with client.chat.completions.stream(
        model="m", messages=[{"role": "user", "content": "next"}]
    ) as helper:
        await helper.until_done()
    history = await memory.history_messages()
    assert [m.text for m in history] == ["tell me", "a full reply", "next", "a full reply"]
    await memory.close()


def _call_delta(index: int | None, call_id: str | None, name: str, args: str) -> dict[str, Any]:
    call: dict[str, Any] = {"function": {"arguments": args}}
    if index is not None:
        call["index"] = index
    if call_id is not None:
        call.update(id=call_id, type="function")
        call["function"]["name"] = name
    return {"tool_calls": [call]}


@respx.mock
def test_parallel_calls_streamed_under_one_index_stay_apart() -> None:
    # servers that number every parallel call 0 (or leave the index out)
    for index in (0, None):
        chunks = [
            chunk({"role": "assistant", **_call_delta(index, "call_a", "weather", '{"city":')}),
            chunk(_call_delta(index, None, "", ' "Paris"}')),
            chunk(_call_delta(index, "call_b", "weather", '{"city": "Rome"}')),
            chunk({}, finish="tool_calls"),
        ]
        respx.post(OPENAI_URL).mock(return_value=event_stream(sse(chunks)))
        memory = small_memory()
        client = wrap(memory)
        read_all(client.chat.completions.create(model="m", messages=[USER], stream=True))
        calls = memory.history_messages()[-1].to_openai()["tool_calls"]
        assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls] == [
            ("call_a", "weather", '{"city": "Paris"}'),
            ("call_b", "weather", '{"city": "Rome"}'),
        ]
        results = [
            {"role": "tool", "tool_call_id": "call_b", "content": "24 C"},
            {"role": "tool", "tool_call_id": "call_a", "content": "18 C"},
        ]
        memory.extend(results)  # both answered: the group is complete
        assert [m["role"] for m in memory.messages()][-3:] == ["assistant", "tool", "tool"]


def _llama_cpp_delta(args: str) -> dict[str, Any]:
    """A tool-call chunk as llama.cpp's server sends it: id and whole name in every chunk, and
    the legacy ``function_call`` beside ``tool_calls``."""
    function = {"name": "weather", "arguments": args}
    call = {"index": 0, "id": "call_a", "type": "function", "function": function}
    return {"content": None, "function_call": dict(function), "tool_calls": [call]}


@respx.mock
def test_a_name_repeated_in_every_chunk_is_recorded_once() -> None:
    # seen live: llama.cpp's server, read through the OpenAI Agents SDK with the whole list
    pieces = ['{"city":', ' "Paris"', "}"]
    chunks = [chunk({"role": "assistant"}), *(chunk(_llama_cpp_delta(p)) for p in pieces)]
    respx.post(OPENAI_URL).mock(
        side_effect=[
            event_stream(sse([*chunks, chunk({}, finish="tool_calls")])),
            httpx.Response(200, json=openai_completion("18 C in Paris.")),
        ]
    )
    memory = small_memory()
    client = wrap(memory)
    read_all(client.chat.completions.create(model="m", messages=[USER], stream=True))
    reply = memory.history_messages()[-1].to_openai()
    call = {"name": "weather", "arguments": '{"city": "Paris"}'}
    assert reply["tool_calls"] == [{"id": "call_a", "type": "function", "function": call}]
    assert reply["function_call"] == call
    # the caller sends the whole list back, the call as its own stream handler read it
    sent = {"role": "assistant", "content": None, "tool_calls": reply["tool_calls"]}
    result = {"role": "tool", "tool_call_id": "call_a", "content": "18 C"}
    client.chat.completions.create(model="m", messages=[USER, sent, result])
    assert [m.role for m in memory.history_messages()] == ["user", "assistant", "tool", "assistant"]


@respx.mock
def test_a_name_sent_in_pieces_or_as_it_grows_is_whole() -> None:
    for pieces in (["get_", "weather"], ["get_", "get_weather"]):
        deltas = [_call_delta(0, "call_a", pieces[0], "{}")]
        deltas += [{"tool_calls": [{"index": 0, "function": {"name": p}}]} for p in pieces[1:]]
        chunks = [chunk({"role": "assistant", **deltas[0]}), *map(chunk, deltas[1:])]
        respx.post(OPENAI_URL).mock(
            return_value=event_stream(sse([*chunks, chunk({}, finish="tool_calls")]))
        )
        memory = small_memory()
        read_all(wrap(memory).chat.completions.create(model="m", messages=[USER], stream=True))
        (call,) = memory.history_messages()[-1].to_openai()["tool_calls"]
        assert call["function"] == {"name": "get_weather", "arguments": "{}"}


@respx.mock
async def test_closing_the_memory_records_a_reply_left_before_its_usage_chunk() -> None:
    respx.post(OPENAI_URL).mock(side_effect=lambda _: event_stream(sse([*FINISHED, USAGE])))
    usage = {"include_usage": True}
    memory = small_memory()
    read_to_finish(
        wrap(memory).chat.completions.create(
            model="m", messages=[USER], stream=True, stream_options=usage
        )
    )
    memory.close()
    assert memory.store.load("wrapped").length == 2  # the question and its reply
    amemory = small_memory(AsyncMemory)
    stream = await wrap_async(amemory).chat.completions.create(
        model="m", messages=[USER], stream=True, stream_options=usage
    )
    async for part in stream:
        if part.choices and part.choices[0].finish_reason:
            break
    await amemory.close()
    assert (await amemory.store.load("wrapped")).length == 2


def _calls_body() -> bytes:
    """Two tool calls, each chunk marked ``tool_calls`` (litellm with Gemini, sglang)."""
    return sse(
        [
            chunk(_call_delta(0, "c1", "weather", '{"city": "Paris"}'), finish="tool_calls"),
            chunk(_call_delta(1, "c2", "weather", '{"city": "Rome"}'), finish="tool_calls"),
        ]
    )


RESULTS = [
    {"role": "tool", "tool_call_id": "c1", "content": "18 C"},
    {"role": "tool", "tool_call_id": "c2", "content": "24 C"},
]


@respx.mock
def test_a_finish_reason_before_the_last_chunk_loses_no_tool_call() -> None:
    respx.post(OPENAI_URL).mock(
        side_effect=[event_stream(_calls_body()), httpx.Response(200, json=openai_completion("ok"))]
    )
    memory = small_memory()
    client = wrap(memory)
    read_all(client.chat.completions.create(model="m", messages=[USER], stream=True))
    calls = memory.history_messages()[-1].to_openai()["tool_calls"]
    assert [c["id"] for c in calls] == ["c1", "c2"]
    client.chat.completions.create(model="m", messages=RESULTS)  # c2 is known
    assert [m.role for m in memory.history_messages()][-3:] == ["tool", "tool", "assistant"]


@respx.mock
async def test_async_a_finish_reason_before_the_last_chunk_loses_no_tool_call() -> None:
    respx.post(OPENAI_URL).mock(return_value=event_stream(_calls_body()))
    memory = small_memory(AsyncMemory)
    stream = await wrap_async(memory).chat.completions.create(
        model="m", messages=[USER], stream=True
    )
    async for _ in stream:
        pass
    calls = (await memory.history_messages())[-1].to_openai()["tool_calls"]
    assert [c["id"] for c in calls] == ["c1", "c2"]
    await memory.close()


@respx.mock
def test_a_usage_chunk_not_asked_for_is_used() -> None:
    # OpenRouter sends usage after the finishing chunk, asked for or not
    respx.post(OPENAI_URL).mock(return_value=event_stream(sse([*FINISHED, USAGE])))
    memory = small_memory()
    read_all(wrap(memory).chat.completions.create(model="m", messages=[USER], stream=True))
    reply = memory.history_messages()[-1]
    assert reply.text == "a full reply"
    assert reply.meta["usage"] == {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}


def test_threads_settling_one_parked_reply_record_it_once() -> None:
    from summem.wrappers.stream import StreamReply

    recorded: list[dict[str, Any]] = []
    memory = small_memory()
    reply = StreamReply(lambda message, usage: recorded.append(message))
    reply.acc.feed(chunk({"content": "hi"}, finish="stop"))
    for _ in range(50):
        memory._parked_replies.append(reply)
    barrier = threading.Barrier(4)

    def settle_now() -> None:
        barrier.wait()
        for parked in memory._take_parked():
            parked.finish()
        reply.finish()

    threads = [threading.Thread(target=settle_now) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(recorded) == 1 and memory._parked_replies == []
