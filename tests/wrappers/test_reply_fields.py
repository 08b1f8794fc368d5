"""A reply's ``audio`` and legacy ``function_call`` are recorded as the next request takes them.

Through the real openai client, mocked at the transport: the reply is parsed by the SDK (its
``audio`` and ``function_call`` are pydantic objects), recorded, and sent back on the next call.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import respx

from summem.memory import Memory
from summem.summarizers.render import content_text
from summem.wrappers import wrap_openai
from summem.wrappers.stream import StreamAccumulator, reply_message
from summem.wrappers.turn import TurnOptions, sync_call
from tests.fakes.llm import FakeClock
from tests.fakes.replies import OPENAI_URL, chunk, openai_completion, sse

AUDIO = {
    "id": "audio_abc123",
    "data": "UklGRiQAAABXQVZFZm10IBAAAAABAAEA" * 50,
    "expires_at": 4_102_444_800,  # 2100: not expired when these tests run
    "transcript": "Yes, golden retrievers are loyal family dogs.",
}
FUNCTION_CALL = {"name": "lookup_order", "arguments": '{"order_id": "PX-20431"}'}


def completion_with(**fields: Any) -> dict[str, Any]:
    body = openai_completion(None, usage=(11, 2))
    body["choices"][0]["message"].update(fields)
    return body


def two_turns(first: dict[str, Any]) -> tuple[Memory, list[dict[str, Any]]]:
    """A first call answered with ``first``, then a second call; the second request's body."""
    route = respx.post(OPENAI_URL).mock(
        side_effect=[httpx.Response(200, json=first), httpx.Response(200, json=completion_with())]
    )
    memory = Memory("s", store="memory://")
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    client.chat.completions.create(
        model="gpt-4o-audio-preview", messages=[{"role": "user", "content": "a good dog?"}]
    )
    client.chat.completions.create(
        model="gpt-4o-audio-preview", messages=[{"role": "user", "content": "why?"}]
    )
    return memory, json.loads(route.calls[1].request.content)["messages"]


@respx.mock
def test_an_audio_reply_is_recorded_and_sent_back_by_its_id() -> None:
    memory, sent = two_turns(completion_with(audio=AUDIO))
    stored = {"role": "assistant", "content": None, "audio": {"id": "audio_abc123"}}
    assert memory.history()[1] == stored
    assert sent[1] == stored  # the audio as OpenAI's request takes it: by its id
    # the transcript and the expiry are kept in the reply's meta (stored, never sent)
    reply = memory.history_messages()[1]
    assert reply.meta["audio"] == {
        "expires_at": AUDIO["expires_at"],
        "transcript": AUDIO["transcript"],
    }
    assert "usage" in reply.meta
    assert content_text(reply) == f"[audio] {AUDIO['transcript']}"  # the summarizer reads it


@respx.mock
def test_a_legacy_function_call_reply_is_recorded_and_sent_back() -> None:
    body = completion_with(function_call=FUNCTION_CALL)
    body["choices"][0]["finish_reason"] = "function_call"
    memory, sent = two_turns(body)
    assert memory.history()[1] == {
        "role": "assistant",
        "content": None,
        "function_call": FUNCTION_CALL,
    }
    assert sent[1] == memory.history()[1]


def test_reply_message_keeps_what_the_provider_returned_but_the_audio_bytes() -> None:
    response = completion_with(content="Sure.", audio=AUDIO, refusal=None)
    assert reply_message(response) == {
        "role": "assistant",
        "content": "Sure.",
        "audio": {k: v for k, v in AUDIO.items() if k != "data"},
    }
    # an audio object without an id is nothing a request can name: left out
    assert reply_message(completion_with(content="x", audio={"data": "AAAA"})) == {
        "role": "assistant",
        "content": "x",
    }


@respx.mock
def test_a_streamed_audio_or_function_call_reply_is_recorded_too() -> None:
    streamed = [
        [
            chunk({"role": "assistant", "audio": {"id": "audio_1", "transcript": "Yes, "}}),
            chunk({"audio": {"transcript": "they are.", "data": "AAAA"}}),
            chunk({"audio": {"expires_at": 1_700_003_600}}, finish="stop"),
        ],
        [
            chunk({"role": "assistant", "function_call": {"name": "lookup", "arguments": ""}}),
            chunk({"function_call": {"arguments": '{"id": 1}'}}, finish="function_call"),
        ],
    ]
    respx.post(OPENAI_URL).mock(
        side_effect=[
            httpx.Response(200, content=sse(body), headers={"content-type": "text/event-stream"})
            for body in streamed
        ]
    )
    memory = Memory("s", store="memory://")
    client = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    for text in ("a good dog?", "look it up"):
        stream = client.chat.completions.create(
            model="gpt-4o-audio-preview",
            messages=[{"role": "user", "content": text}],
            stream=True,
        )
        for _ in stream:
            pass
    history = memory.history_messages()
    assert history[1].to_openai() == {
        "role": "assistant",
        "content": None,
        "audio": {"id": "audio_1"},
    }
    assert history[1].meta["audio"] == {"expires_at": 1_700_003_600, "transcript": "Yes, they are."}
    assert history[3].to_openai() == {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "lookup", "arguments": '{"id": 1}'},
    }


def test_an_audio_reply_is_sent_by_its_id_until_it_expires_then_as_its_transcript(
    clock: FakeClock,
) -> None:
    """OpenAI forgets the audio at ``expires_at`` and may refuse a request naming it."""
    audio = {**AUDIO, "expires_at": clock.now + 60}
    replies = [completion_with(audio=audio)] + [completion_with(content="ok")] * 3
    seen: list[list[dict[str, Any]]] = []

    def fake(**kw: Any) -> dict[str, Any]:
        seen.append(kw["messages"])
        return replies[len(seen) - 1]

    memory = Memory("s", store="memory://")
    call = sync_call(fake, memory, TurnOptions(clock=clock))
    call(model="gpt-4o-audio-preview", messages=[{"role": "user", "content": "a good dog?"}])
    call(model="gpt-4o-audio-preview", messages=[{"role": "user", "content": "why?"}])
    assert seen[-1][1] == {"role": "assistant", "content": None, "audio": {"id": "audio_abc123"}}
    clock.advance(60)  # expires_at reached
    call(model="gpt-4o-audio-preview", messages=[{"role": "user", "content": "and?"}])
    assert seen[-1][1] == {"role": "assistant", "content": AUDIO["transcript"]}
    stored = {"role": "assistant", "content": None, "audio": {"id": "audio_abc123"}}
    assert memory.history()[1] == stored  # what is stored does not change


def test_an_audio_reply_without_an_id_keeps_its_transcript_as_content() -> None:
    assert reply_message(completion_with(audio={"transcript": "Yes.", "data": "AAAA"})) == {
        "role": "assistant",
        "content": "Yes.",
    }
    acc = StreamAccumulator()
    acc.feed(chunk({"role": "assistant", "audio": {"transcript": "Yes, "}}))
    acc.feed(chunk({"audio": {"transcript": "they are."}}, finish="stop"))
    assert acc.message() == {"role": "assistant", "content": "Yes, they are."}
