"""A reduction the recorded reply sets off, failing, never loses the reply (mocked transport).

Seen live against llama.cpp with an unreachable summarizer: the model answered, the reply was
stored, then the reduction it made due failed and ``create`` raised ``SummarizationError``,
hiding the response the application had paid for; calling again (``messages=[]``, as the
README says after a failed call) paid for a second reply stored after the first.
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
import respx

from summem.async_memory import AsyncMemory
from summem.errors import SummarizationError
from summem.memory import Memory
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from summem.wrappers import wrap_openai
from tests.fakes.counters import WordCounter, words
from tests.fakes.replies import OPENAI_URL, chunk, openai_completion, sse
from tests.fakes.responses import response, text_item
from tests.fakes.summarizers import FakeSummarizer
from tests.fakes.transport import Recorder, replies

EARLIER = [
    {"role": "user" if i % 2 == 0 else "assistant", "content": words(6, f"e{i}_")} for i in range(5)
]  # 45 tokens with the user turn 51: under the threshold (60) until the long reply
USER = {"role": "user", "content": "tell me more"}
REPLY = words(30, "r")


def failing_memory(cls: Any = Memory) -> Any:
    reducer = SummarizationReducer(
        FakeSummarizer(fail_with=SummarizationError("summarizer down: connection refused")),
        threshold_tokens=60,
        target_tokens=40,
        summary_max_tokens=8,
        token_counter=WordCounter(),
    )
    return cls("wrapped", reducer=reducer)


def check(history: list[Message], memory: Any) -> None:
    """Every message once, in order, the reply last; the failure kept, nothing committed."""
    assert [m.text for m in history] == [
        *(m["content"] for m in EARLIER),
        USER["content"],
        REPLY,
    ]
    assert isinstance(memory.last_error, SummarizationError)
    assert memory.summary is None  # nothing committed


@respx.mock
def test_sync_create_and_stream_return_the_reply_when_the_reduction_after_it_fails() -> None:
    body = sse([chunk({"role": "assistant", "content": REPLY}), chunk({}, finish="stop")])
    route = respx.post(OPENAI_URL).mock(
        side_effect=[
            httpx.Response(200, json=openai_completion(REPLY)),
            httpx.Response(200, content=body, headers={"content-type": "text/event-stream"}),
        ]
    )
    for stream in (False, True):
        memory = failing_memory()
        memory.extend(EARLIER)
        client: Any = wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), memory)
        reply = client.chat.completions.create(model="m", messages=[USER], stream=stream)
        if stream:
            text = "".join(c.choices[0].delta.content or "" for c in reply if c.choices)
        else:
            text = reply.choices[0].message.content
        assert text == REPLY
        check(memory.history_messages(), memory)
    assert route.call_count == 2  # one model call each


@respx.mock
async def test_async_create_and_stream_return_the_reply_when_the_reduction_after_it_fails() -> None:
    body = sse([chunk({"role": "assistant", "content": REPLY}), chunk({}, finish="stop")])
    route = respx.post(OPENAI_URL).mock(
        side_effect=[
            httpx.Response(200, json=openai_completion(REPLY)),
            httpx.Response(200, content=body, headers={"content-type": "text/event-stream"}),
        ]
    )
    for stream in (False, True):
        memory = failing_memory(AsyncMemory)
        await memory.extend(EARLIER)
        client: Any = wrap_openai(openai.AsyncOpenAI(api_key="sk-test", max_retries=0), memory)
        reply = await client.chat.completions.create(model="m", messages=[USER], stream=stream)
        if stream:
            text = "".join([c.choices[0].delta.content or "" async for c in reply if c.choices])
        else:
            text = reply.choices[0].message.content
        assert text == REPLY
        check(await memory.history_messages(), memory)
        await memory.close()
    assert route.call_count == 2


async def test_responses_create_returns_the_output_when_the_reduction_after_it_fails() -> None:
    rec = Recorder(replies(response([text_item(REPLY)]), response([text_item(REPLY)], n=2)))
    memory = failing_memory()
    memory.extend(EARLIER)
    client = wrap_openai(rec.client(), memory)
    assert client.responses.create(model="gpt-4.1-mini", input=[USER]).output_text == REPLY
    check(memory.history_messages(), memory)

    amemory = failing_memory(AsyncMemory)
    await amemory.extend(EARLIER)
    aclient = wrap_openai(rec.async_client(), amemory)
    out = await aclient.responses.create(model="gpt-4.1-mini", input=[USER])
    assert out.output_text == REPLY
    check(await amemory.history_messages(), amemory)
    await amemory.close()
    assert len(rec.requests) == 2
