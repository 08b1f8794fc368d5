"""``client.responses`` through a memory: the real openai SDK over a mocked transport."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from summem import AsyncMemory, Memory, SummarizationReducer, wrap_openai
from summem.errors import ConfigurationError
from summem.formats.responses import to_items, to_messages
from summem.wrappers.responses import output_items, response_usage
from tests.fakes.counters import WordCounter, words
from tests.fakes.responses import (
    call_item,
    reasoning_item,
    response,
    stream_events,
    text_item,
    text_stream_events,
)
from tests.fakes.summarizers import FakeSummarizer
from tests.fakes.transport import Recorder, replies, sse_events

USER = {"role": "user", "content": "what is the weather in Paris?"}


def small_memory(cls: Any = Memory) -> Any:
    reducer = SummarizationReducer(
        FakeSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=80,
        target_tokens=50,
        summary_max_tokens=5,
    )
    return cls("s", reducer=reducer)


def test_create_sends_the_view_and_records_the_output() -> None:
    out = [reasoning_item(), call_item("c1", "weather", '{"city": "Paris"}')]
    rec = Recorder(replies(response(out), response([text_item("Sunny.")], n=2)))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    first = client.responses.create(model="gpt-4.1-mini", input=[USER], store=False)
    assert first.output[1].call_id == "c1"
    result = {"type": "function_call_output", "call_id": "c1", "output": "sunny"}
    second = client.responses.create(model="gpt-4.1-mini", input=[result], store=False)
    assert second.output_text == "Sunny."
    sent = [body for _, path, body in rec.requests]
    assert [p for _, p, _ in rec.requests] == ["/v1/responses", "/v1/responses"]
    assert sent[0]["input"] == [USER] and sent[0]["store"] is False
    assert sent[1]["input"] == [USER, *out, result]
    assert memory.items() == [USER, *out, result, text_item("Sunny.")]
    last = memory.history_messages()[-1]
    assert last.meta["usage"] == {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}


def test_string_input_and_the_whole_conversation_each_time() -> None:
    rec = Recorder(replies(response([text_item("Hi!")]), response([text_item("Fine.")], n=2)))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    first = client.responses.create(model="m", input="hello")
    # the openai habit: keep your own list, send it all every time (SDK output objects too)
    history: list[Any] = [{"role": "user", "content": "hello"}, *first.output]
    history.append({"role": "user", "content": "how are you?"})
    client.responses.create(model="m", input=history)
    assert [i.get("content") for i in memory.items()][::2] == ["hello", "how are you?"]
    assert len(memory.items()) == 4
    assert rec.requests[1][2]["input"] == memory.items()[:3]


def test_a_long_session_is_bounded_and_summarized() -> None:
    bodies = [response([text_item(words(10, f"a{n}_"))], n=n) for n in range(12)]
    rec = Recorder(replies(*bodies))
    memory = small_memory()
    client = wrap_openai(rec.client(), memory)
    for n in range(12):
        client.responses.create(model="m", input=[{"role": "user", "content": words(10, f"u{n}_")}])
    last_input = rec.requests[-1][2]["input"]
    assert memory.summary is not None
    assert last_input[0] == {"type": "message", "role": "user", "content": memory.summary.content}
    assert len(last_input) < 12 * 2
    assert len(memory.history()) == 24  # nothing lost


@pytest.mark.parametrize("name", ["previous_response_id", "conversation"])
def test_server_side_state_is_refused(name: str) -> None:
    rec = Recorder(replies())
    client = wrap_openai(rec.client(), Memory("s"))
    with pytest.raises(ConfigurationError, match=name):
        client.responses.create(model="m", input="hi", **{name: "resp_1"})
    assert rec.requests == []


def test_create_stream_records_at_completed() -> None:
    out = [text_item("Streamed.")]
    rec = Recorder(replies(sse_events(stream_events(out))))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    stream = client.responses.create(model="m", input=[USER], stream=True)
    kinds = [event.type for event in stream]
    assert kinds[-1] == "response.completed"
    assert memory.items() == [USER, *out]


def _failed_after(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    failed = response([], status="failed")
    end = {"type": "response.failed", "sequence_number": len(events), "response": failed}
    return [*events, end]


@pytest.mark.parametrize(
    "events",
    [
        text_stream_events(text_item("half"))[:4],  # cut inside the text: no complete item
        _failed_after(text_stream_events(text_item("done"), complete=False)),
    ],
    ids=["cut-before-any-complete-item", "failed-after-an-item"],
)
def test_a_stream_cut_short_or_failed_records_nothing(events: list[dict[str, Any]]) -> None:
    rec = Recorder(replies(sse_events(events)))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    with client.responses.create(model="m", input=[USER], stream=True) as stream:
        for _ in stream:
            pass
    memory.close()
    assert stored(memory) == [USER]


def stored(memory: Memory) -> list[dict[str, Any]]:
    """The items stored for session ``s``, read after the memory is closed."""
    return to_items(memory.store.history("s"))


def _read_until_text_done(stream: Any) -> None:
    for event in stream:
        if event.type == "response.output_text.done":
            break


def test_a_stream_left_after_its_text_is_recorded_once_at_close() -> None:
    item = text_item("Left early.")
    rec = Recorder(replies(sse_events(text_stream_events(item))))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    stream = client.responses.create(model="m", input=[USER], stream=True)
    _read_until_text_done(stream)
    assert memory.items() == [USER]  # parked, not yet recorded
    stream.close()
    stream.close()
    memory.close()
    assert stored(memory) == [USER, item]


def test_a_stream_left_after_its_text_is_recorded_before_the_next_call() -> None:
    item = text_item("Left early.")
    rec = Recorder(
        replies(sse_events(text_stream_events(item)), response([text_item("Next.", 2)], n=2))
    )
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    _read_until_text_done(client.responses.create(model="m", input=[USER], stream=True))
    client.responses.create(model="m", input="and then?")
    then = {"role": "user", "content": "and then?"}
    assert memory.items() == [USER, item, then, text_item("Next.", 2)]
    assert rec.requests[1][2]["input"] == [USER, item, then]


def test_a_function_call_item_left_after_it_is_done_is_recorded_before_a_chat_call() -> None:
    from tests.fakes.replies import openai_completion

    call = call_item("c1", "weather", '{"city": "Paris"}')
    rec = Recorder(
        replies(sse_events(stream_events([call, text_item("more")])), openai_completion("ok"))
    )
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    for event in client.responses.create(model="m", input=[USER], stream=True):
        if event.type == "response.output_item.done":
            break  # the call is complete; the caller runs it
    result = {"role": "tool", "tool_call_id": "c1", "content": "sunny"}
    client.chat.completions.create(model="m", messages=[result])
    assert [m.role for m in memory.history_messages()] == ["user", "assistant", "tool", "assistant"]
    assert memory.history_messages()[1].tool_call_ids == ("c1",)


def test_a_stream_left_after_its_text_is_recorded_at_memory_close_and_by_helper_exit() -> None:
    item = text_item("Left early.")
    rec = Recorder(replies(*[sse_events(text_stream_events(item))] * 2))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    _read_until_text_done(client.responses.create(model="m", input=[USER], stream=True))
    memory.close()
    assert stored(memory) == [USER, item]
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    with client.responses.stream(model="m", input=[USER]) as helper:
        _read_until_text_done(helper)
    assert memory.items() == [USER, item]


def test_a_stream_read_to_its_end_is_recorded_once_with_its_usage() -> None:
    item = text_item("Whole.")
    rec = Recorder(replies(sse_events(text_stream_events(item))))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    with client.responses.create(model="m", input=[USER], stream=True) as stream:
        kinds = [event.type for event in stream]
    memory.close()
    assert kinds[-1] == "response.completed"
    history = memory.store.history("s")
    assert to_items(history) == [USER, item]
    assert history[-1].meta["usage"]["total_tokens"] == 25


async def test_async_stream_left_after_its_text_is_recorded_once() -> None:
    item, whole = text_item("Left early."), text_item("Whole.", 2)
    rec = Recorder(
        replies(
            sse_events(text_stream_events(item)),
            sse_events(text_stream_events(whole)),
            sse_events(text_stream_events(item)),
        )
    )
    memory = AsyncMemory("s")
    client = wrap_openai(rec.async_client(), memory)
    stream = await client.responses.create(model="m", input=[USER], stream=True)
    async for event in stream:
        if event.type == "response.output_text.done":
            break
    assert await memory.items() == [USER]
    async with client.responses.stream(model="m", input="more") as helper:
        await helper.until_done()
    more = {"role": "user", "content": "more"}
    assert await memory.items() == [USER, item, more, whole]  # parked one first, once each
    await stream.close()
    async with client.responses.stream(model="m", input="again") as helper:
        async for event in helper:
            if event.type == "response.output_text.done":
                break
    await memory.close()
    again = {"role": "user", "content": "again"}
    stored_items = to_items(await memory.store.history("s"))
    assert stored_items == [USER, item, more, whole, again, item]


def incomplete_events(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stream stopped by ``max_output_tokens``: it ends with ``response.incomplete``."""
    events = stream_events(output, complete=False)
    cut = response(output, status="incomplete")
    cut["incomplete_details"] = {"reason": "max_output_tokens"}
    return [
        *events,
        {"type": "response.incomplete", "sequence_number": len(events), "response": cut},
    ]


def test_a_stream_stopped_at_its_output_limit_is_recorded_as_a_reply_would_be() -> None:
    out = [text_item("A reply cut at the li")]
    rec = Recorder(
        replies(
            sse_events(incomplete_events([*out, reasoning_item(2)])),
            sse_events(incomplete_events(out)),
        )
    )
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    kinds = [e.type for e in client.responses.create(model="m", input=[USER], stream=True)]
    assert kinds[-1] == "response.incomplete"
    assert memory.items() == [USER, *out]  # as a non-streamed incomplete one: the trailing
    with client.responses.stream(model="m", input="more") as stream:  # reasoning left out
        stream.until_done()
    assert memory.items() == [USER, *out, {"role": "user", "content": "more"}, *out]


def test_stream_helper_records_the_final_response() -> None:
    out = [text_item("Helper.")]
    rec = Recorder(replies(sse_events(stream_events(out))))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    with client.responses.stream(model="m", input=[USER]) as stream:
        final = stream.get_final_response()
    assert final.output_text == "Helper."
    assert memory.items() == [USER, *out]


async def test_async_create_and_stream() -> None:
    out = [text_item("Async.")]
    rec = Recorder(
        replies(
            response(out),
            sse_events(stream_events([text_item("Again.", 2)])),
            sse_events(stream_events([text_item("Third.", 3)])),
        )
    )
    memory = AsyncMemory("s")
    client = wrap_openai(rec.async_client(), memory)
    await client.responses.create(model="m", input=[USER])
    stream = await client.responses.create(model="m", input="more", stream=True)
    async with stream:
        async for _ in stream:
            pass
    async with client.responses.stream(model="m", input="and more") as helper:
        final = await helper.get_final_response()
    assert final.output_text == "Third."
    items = await memory.items()
    assert [i.get("content") for i in items if i.get("role") == "user"] == [
        USER["content"],
        "more",
        "and more",
    ]
    assert items[-1] == text_item("Third.", 3)
    assert rec.requests[2][2]["input"] == items[:-1]


def test_incomplete_and_failed_responses() -> None:
    cut = response([text_item("partial"), reasoning_item(2)], status="incomplete")
    assert output_items(cut) == [text_item("partial")]
    assert output_items(response([text_item("x")], status="failed")) == []
    assert response_usage({"usage": None}) is None
    assert json.loads(json.dumps(output_items({"output": [call_item("c", "f", "{}")]})))


def test_parse_records_the_output_without_the_sdk_fields() -> None:
    from pydantic import BaseModel

    class City(BaseModel):
        city: str

    body = response([text_item('{"city": "Paris"}')])
    rec = Recorder(replies(body))
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    parsed = client.responses.parse(model="m", input=[USER], text_format=City)
    assert parsed.output_parsed == City(city="Paris")
    assert memory.items() == [USER, text_item('{"city": "Paris"}')]  # no "parsed" sent back


def test_stream_helper_resuming_a_response_is_refused() -> None:
    rec = Recorder(replies())
    client = wrap_openai(rec.client(), Memory("s"))
    with pytest.raises(ConfigurationError, match="response_id"):
        client.responses.stream(response_id="resp_1")
    assert rec.requests == []


def test_omitted_input_records_nothing_new() -> None:
    rec = Recorder(replies(response([text_item("Again.")])))
    memory = Memory("s")
    memory.add_items([USER])
    client = wrap_openai(rec.client(), memory)
    client.responses.create(model="m")  # no input: the view alone is sent
    assert rec.requests[0][2]["input"] == [USER]


def _kinds(items: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    return [(i.get("type") or i.get("role"), i.get("call_id")) for i in items]


def test_a_call_gone_past_unanswered_gets_a_stub_output_in_the_input(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from summem.wrappers.pairing import NO_RESULT

    caplog.set_level(logging.DEBUG, logger="summem")

    rec = Recorder(
        replies(response([call_item("c1", "weather", "{}")]), response([text_item("ok")], n=2))
    )
    memory = Memory("s")
    client = wrap_openai(rec.client(), memory)
    client.responses.create(model="gpt-4.1-mini", input=[USER], store=False)
    later = {"role": "user", "content": "never mind, hi"}
    client.responses.create(model="gpt-4.1-mini", input=[later], store=False)
    sent = rec.requests[-1][2]["input"]
    assert _kinds(sent) == [
        ("user", None),
        ("function_call", "c1"),
        ("function_call_output", "c1"),
        ("user", None),
    ]
    assert sent[2]["output"] == NO_RESULT
    assert len(memory.history_messages()) == 4  # stored: no stub
    assert "re-paired in the input (3 items stored, 4 sent)" in caplog.text


async def test_a_late_output_gets_its_call_moved_down_to_it() -> None:
    rec = Recorder(replies(response([text_item("ok")])))
    memory = AsyncMemory("s")
    call = {k: v for k, v in call_item("c1", "weather", "{}").items() if k != "status"}
    later = {"role": "user", "content": "never mind, hi"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "sunny"}
    await memory.extend(to_messages([USER, call, later, {"type": "message", **text_item("?")}]))
    await memory.extend(to_messages([output]))
    client = wrap_openai(rec.async_client(), memory)
    await client.responses.create(model="gpt-4.1-mini", input=[], store=False)
    sent = rec.requests[-1][2]["input"]
    assert _kinds(sent) == [
        ("user", None),
        ("user", None),
        ("message", None),
        ("function_call", "c1"),
        ("function_call_output", "c1"),
    ]
    await memory.close()


def _dropping_client(events: list[dict[str, Any]], *, is_async: bool = False) -> Any:
    """A client whose event stream sends ``events``, then loses its connection."""
    import openai

    from tests.fakes.transport import _http

    http = _http()
    body = sse_events(events)

    class Dropped(http.SyncByteStream, http.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __iter__(self) -> Any:
            yield body
            raise http.ReadError("connection dropped")

        async def __aiter__(self) -> Any:
            yield body
            raise http.ReadError("connection dropped")

    def answer(request: Any) -> Any:
        kind = {"content-type": "text/event-stream"}
        return http.Response(200, headers=kind, stream=Dropped())

    if is_async:

        async def answer_async(request: Any) -> Any:
            return answer(request)

        transport = http.MockTransport(answer_async)
        return openai.AsyncOpenAI(
            api_key="sk-test", max_retries=0, http_client=http.AsyncClient(transport=transport)
        )
    transport = http.MockTransport(answer)
    return openai.OpenAI(
        api_key="sk-test", max_retries=0, http_client=http.Client(transport=transport)
    )


def test_a_stream_cut_by_a_dropped_connection_after_an_item_records_nothing() -> None:
    # The response had more items coming (a second call, the message): the app retries it,
    # and a partial reply recorded now would stand beside the retry's.
    events = stream_events([call_item("c1", "weather", "{}"), text_item("more")])[:-3]
    memory = Memory("s")
    client = wrap_openai(_dropping_client(events), memory)
    seen: list[str] = []
    with pytest.raises(Exception, match="onnection"):
        for event in client.responses.create(model="m", input=[USER], stream=True):
            seen.append(event.type)
    assert "response.output_item.done" in seen  # the call was complete when it dropped
    memory.close()
    assert stored(memory) == [USER]


async def test_an_async_stream_cut_by_a_dropped_connection_records_nothing() -> None:
    events = stream_events([call_item("c1", "weather", "{}"), text_item("more")])[:-3]
    memory = AsyncMemory("s")
    client = wrap_openai(_dropping_client(events, is_async=True), memory)
    stream = await client.responses.create(model="m", input=[USER], stream=True)
    seen: list[str] = []
    with pytest.raises(Exception, match="onnection"):
        async for event in stream:
            seen.append(event.type)
    assert "response.output_item.done" in seen
    await memory.close()
    assert to_items(await memory.store.history("s")) == [USER]
