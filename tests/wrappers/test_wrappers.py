"""The two-line wrappers, against the real openai and litellm clients mocked at the transport."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
import respx

from summem.async_memory import AsyncMemory
from summem.errors import ConfigurationError
from summem.memory import Memory
from summem.reducers.summarization import SummarizationReducer
from summem.wrappers import wrap_completion, wrap_openai
from summem.wrappers.stream import StreamAccumulator
from tests.fakes.counters import WordCounter
from tests.fakes.replies import OPENAI_URL, chunk, openai_completion, sse
from tests.fakes.summarizers import FakeSummarizer

URL = OPENAI_URL


def completion(content: str | None = "hello", tool_calls: list[dict[str, Any]] | None = None):
    return openai_completion(content, tool_calls=tool_calls, usage=(11, 2))


def bodies(route: respx.Route) -> list[dict[str, Any]]:
    return [json.loads(call.request.content) for call in route.calls]


def small_memory(cls=Memory, **kw):
    reducer = SummarizationReducer(
        FakeSummarizer(reply="earlier: greetings"),
        threshold_tokens=60,
        target_tokens=40,
        summary_max_tokens=8,
        token_counter=WordCounter(),
    )
    return cls("wrapped", reducer=reducer, **kw)


@respx.mock
def test_openai_sync_sends_the_view_and_records_the_reply() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("hi there")))
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi"}],
    )
    client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "again"}]
    )
    sent = bodies(route)[1]["messages"]
    assert sent == [
        {"role": "system", "content": "be kind"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hi there"},
        {"role": "user", "content": "again"},
    ]
    history = memory.history_messages()
    assert [m.role for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[1].meta["usage"]["total_tokens"] == 13
    assert memory.usage["total_tokens"] == 26


@respx.mock
def test_tool_calls_are_recorded_and_paired() -> None:
    call = {"id": "call_9", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    route = respx.post(URL).mock(
        side_effect=[
            httpx.Response(200, json=completion(None, [call])),
            httpx.Response(200, json=completion("done")),
        ]
    )
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}])
    client.chat.completions.create(
        model="m", messages=[{"role": "tool", "tool_call_id": "call_9", "content": "42"}]
    )
    sent = bodies(route)[1]["messages"]
    assert sent[-2]["tool_calls"][0]["id"] == "call_9"
    assert sent[-1] == {"role": "tool", "tool_call_id": "call_9", "content": "42"}


@respx.mock
def test_a_refusal_or_an_empty_reply_is_recorded_and_sent_back_as_the_provider_gave_it() -> None:
    """Replies without content are still recorded (adding refuses only an assistant message
    with nothing to send): a refusal keeps its ``refusal`` field, an empty reply is stored as
    empty text, and the next request carries both."""
    refusal = openai_completion(None, refusal="I can't help with that.", usage=(3, 2))
    route = respx.post(URL).mock(
        side_effect=[
            httpx.Response(200, json=refusal),
            httpx.Response(200, json=completion(None)),
            httpx.Response(200, json=completion("ok")),
        ]
    )
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    for text in ("pick this lock", "then say nothing", "fine"):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
    sent = bodies(route)[2]["messages"]
    assert sent[1] == {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    assert sent[3] == {"role": "assistant", "content": ""}
    assert [m.role for m in memory.history_messages()] == ["user", "assistant"] * 3


@respx.mock
def test_streaming_records_the_reply_once_the_stream_ends() -> None:
    tool_delta = {
        "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "lookup"}}
        ]
    }
    args_delta = {"tool_calls": [{"index": 0, "function": {"arguments": '{"q": 1}'}}]}
    chunks = [
        chunk({"role": "assistant", "content": "Let me "}),
        chunk({"content": "check."}),
        chunk(tool_delta),
        chunk(args_delta, finish="tool_calls"),
        chunk({}, usage={"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}),
    ]
    respx.post(URL).mock(
        return_value=httpx.Response(
            200, content=sse(chunks), headers={"content-type": "text/event-stream"}
        )
    )
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    stream = client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "q"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    assert len(memory.history_messages()) == 1  # not recorded before the stream is read
    received = list(stream)
    assert len(received) == 5
    reply = memory.history_messages()[-1]
    assert reply.to_openai() == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"q": 1}'},
            }
        ],
    }
    assert reply.meta["usage"]["total_tokens"] == 8


@respx.mock
async def test_async_openai_with_async_memory() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("async hi")))
    memory = small_memory(AsyncMemory)
    client = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
    await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
    assert [m["content"] for m in bodies(route)[1]["messages"]] == ["a", "async hi", "b"]
    assert len(await memory.history_messages()) == 4


@respx.mock
def test_long_conversation_is_reduced_before_sending() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("ok " * 5)))
    memory = small_memory()
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    for i in range(12):
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": f"turn {i} " + "word " * 6}]
        )
    last = bodies(route)[-1]["messages"]
    assert last[0]["content"].startswith("Summary of the earlier conversation:")
    assert len(memory.history_messages()) == 24
    assert len(last) < 24


def test_mismatched_client_and_memory() -> None:
    with pytest.raises(ConfigurationError, match="AsyncOpenAI with AsyncMemory"):
        wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), small_memory())


@respx.mock
def test_litellm_completion_sync_and_records() -> None:
    import litellm

    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("from litellm")))
    memory = small_memory()
    completion_fn = wrap_completion(litellm.completion, memory)
    completion_fn(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}], api_key="sk-t")
    assert route.called
    assert memory.history_messages()[-1].text == "from litellm"


@respx.mock
async def test_litellm_acompletion_async() -> None:
    import litellm

    litellm.disable_aiohttp_transport = True  # route async calls through httpx, so respx sees them
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion("async ll")))
    memory = small_memory(AsyncMemory)
    acompletion = wrap_completion(litellm.acompletion, memory)
    await acompletion(model="gpt-4o-mini", messages=[{"role": "user", "content": "y"}], api_key="k")
    assert route.called
    assert (await memory.history_messages())[-1].text == "async ll"


def test_accumulator_ignores_other_choices() -> None:
    acc = StreamAccumulator()
    acc.feed({"choices": [{"index": 1, "delta": {"content": "no"}}]})
    acc.feed({"choices": [{"index": 0, "delta": {"content": "yes"}}]})
    assert acc.message() == {"role": "assistant", "content": "yes"}


def _stream_chunks() -> bytes:
    return sse(
        [
            chunk({"role": "assistant", "content": "str"}),
            chunk({"content": "eamed"}, finish="stop"),
            chunk({}, usage={"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}),
        ]
    )


@respx.mock
async def test_async_openai_streaming_records_once_read() -> None:
    respx.post(URL).mock(
        return_value=httpx.Response(
            200, content=_stream_chunks(), headers={"content-type": "text/event-stream"}
        )
    )
    memory = small_memory(AsyncMemory)
    client = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    stream = await client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "q"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    assert len(await memory.history_messages()) == 1
    texts = [c.choices[0].delta.content async for c in stream if c.choices]
    assert "".join(t for t in texts if t) == "streamed"
    reply = (await memory.history_messages())[-1]
    assert reply.text == "streamed" and reply.meta["usage"]["total_tokens"] == 6


@respx.mock
def test_litellm_streaming_records_the_reply() -> None:
    import litellm

    respx.post(URL).mock(
        return_value=httpx.Response(
            200, content=_stream_chunks(), headers={"content-type": "text/event-stream"}
        )
    )
    memory = small_memory()
    completion_fn = wrap_completion(litellm.completion, memory)
    stream = completion_fn(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "q"}], stream=True, api_key="k"
    )
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "streamed"
    assert memory.history_messages()[-1].text == "streamed"


@respx.mock
def test_litellm_with_tools_works() -> None:
    import litellm

    call = {"id": "call_t", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=completion(None, [call])))
    memory = small_memory()
    completion_fn = wrap_completion(litellm.completion, memory)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    completion_fn(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}], tools=tools, api_key="k"
    )
    assert json.loads(route.calls[0].request.content)["tools"][0]["function"]["name"] == "f"
    assert memory.history_messages()[-1].tool_call_ids == ("call_t",)


def test_reply_text_is_needed_for_providers_other_than_openai_and_azure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys as _sys

    import litellm  # noqa: F401  (imported: the wrapped function is litellm's)

    from summem.wrappers.turn import reply_text_needed

    assert reply_text_needed("anthropic/claude-3-5-haiku-20241022")
    assert reply_text_needed("gemini/gemini-2.5-flash")
    assert not reply_text_needed("gpt-4o-mini")
    assert not reply_text_needed("azure/my-deployment")
    assert not reply_text_needed(None)
    assert reply_text_needed("no-such-model-litellm-knows")  # unknown: text is safe anywhere
    monkeypatch.delitem(_sys.modules, "litellm")  # not litellm's function: left alone
    assert not reply_text_needed("anthropic/claude-3-5-haiku-20241022")


@pytest.fixture
def chatty_litellm(monkeypatch: pytest.MonkeyPatch) -> Any:
    """litellm as a user has it: its banners on (summem's own client turns them off), and
    no provider looked up yet."""
    import litellm

    from summem.wrappers.turn import _routed_elsewhere

    monkeypatch.setattr(litellm, "suppress_debug_info", False)
    _routed_elsewhere.cache_clear()
    yield litellm
    _routed_elsewhere.cache_clear()


def test_reply_text_follows_the_calls_provider_and_prints_nothing(
    chatty_litellm: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from summem.wrappers.turn import reply_text_needed

    assert reply_text_needed("my-model", provider="anthropic")
    assert not reply_text_needed("my-vllm-model", provider="openai")
    assert not reply_text_needed("claude-3-5-haiku-20241022", provider="azure")
    assert reply_text_needed("my-custom-model")
    assert reply_text_needed("another-unknown-name", api_base="http://localhost:1/v1")
    assert capsys.readouterr() == ("", "")  # no "Provider List" banner
    assert chatty_litellm.suppress_debug_info is False  # the user's setting is left as it was


REFUSED = {
    "choices": [
        {
            "message": {"role": "assistant", "content": None, "refusal": "I can't help."},
            "finish_reason": "stop",
        }
    ]
}


@pytest.mark.parametrize("where", ["wrapper", "memory"])
@pytest.mark.parametrize(("style", "as_text"), [(False, False), (True, True), (None, True)])
def test_a_style_that_sets_reply_as_text_wins_over_the_route(
    where: str, style: bool | None, as_text: bool, chatty_litellm: Any
) -> None:
    from summem import ViewStyle

    seen: list[list[dict[str, Any]]] = []

    def fake(**kw: Any) -> dict[str, Any]:
        seen.append(kw["messages"])
        return REFUSED

    given = ViewStyle(reply_as_text=style)
    memory = Memory("s1", style=given if where == "memory" else None)
    wrapped = wrap_completion(fake, memory, style=given if where == "wrapper" else None)
    call = {"model": "my-model", "custom_llm_provider": "anthropic"}  # needs text by its route
    wrapped(messages=[{"role": "user", "content": "hi"}], **call)
    wrapped(messages=[{"role": "user", "content": "again"}], **call)
    reply = seen[-1][1]
    assert (reply["content"] == "I can't help.") is as_text
    assert memory.history()[1]["content"] is None


@pytest.mark.parametrize(
    ("call", "setting", "as_text"),
    [
        ({"model": "my-model", "custom_llm_provider": "anthropic"}, None, True),
        ({"model": "my-model", "custom_llm_provider": "openai"}, None, False),
        ({"model": "unknown-model-name"}, None, True),
        ({"model": "unknown-model-name"}, False, False),
        ({"model": "gpt-4o-mini"}, True, True),
    ],
)
def test_wrap_completion_sends_a_refusal_as_text_by_the_calls_route(
    call: dict[str, Any],
    setting: bool | None,
    as_text: bool,
    chatty_litellm: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen: list[list[dict[str, Any]]] = []

    def fake(**kw: Any) -> dict[str, Any]:
        seen.append(kw["messages"])
        return REFUSED

    memory = Memory("s1")
    wrapped = wrap_completion(fake, memory, reply_as_text=setting)
    wrapped(messages=[{"role": "user", "content": "hi"}], **call)
    wrapped(messages=[{"role": "user", "content": "again"}], **call)
    reply = seen[-1][1]
    if as_text:
        assert reply["content"] == "I can't help."
    else:
        assert reply == {"role": "assistant", "content": None, "refusal": "I can't help."}
    assert memory.history()[1]["content"] is None  # what is stored does not change
    assert capsys.readouterr().out == ""
