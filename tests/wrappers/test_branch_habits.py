"""The full-list habit through ``wrap_openai``: edit, regenerate, rewind, pop (issue #28).

The application keeps its own ``messages`` list, sends all of it every call and appends the
reply it got. When it edits an earlier message, drops the last reply to regenerate it, or cuts
the list back to a checkpoint, the wrapped client must send the model exactly that
conversation (nothing twice, nothing abandoned) and keep what was dropped as a branch; sync and
async clients, streamed and not, the HTTP answered by respx at the transport.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
import respx

from summem.async_memory import AsyncMemory
from summem.memory import Memory
from summem.reducers.summarization import SummarizationReducer
from summem.wrappers import wrap_openai
from tests.fakes.counters import WordCounter
from tests.fakes.replies import OPENAI_URL, chunk, openai_completion, sse
from tests.fakes.summarizers import FakeSummarizer

SYSTEM = {"role": "system", "content": "You are a support assistant."}


def reducer() -> SummarizationReducer:
    return SummarizationReducer(
        FakeSummarizer(reply="earlier: an order"),
        threshold_tokens=80,
        target_tokens=50,
        summary_max_tokens=8,
        token_counter=WordCounter(),
    )


class Numbered:
    """Replies ``reply N`` (N: the count of calls so far), whole or streamed as asked; keeps
    the messages each call sent."""

    def __init__(self) -> None:
        self.calls: list[list[dict[str, Any]]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.calls.append(body["messages"])
        text = f"reply {len(self.calls)}"
        if body.get("stream"):
            chunks = [chunk({"role": "assistant", "content": text}), chunk({}, finish="stop")]
            headers = {"content-type": "text/event-stream"}
            return httpx.Response(200, content=sse(chunks), headers=headers)
        return httpx.Response(200, json=openai_completion(text))


def contents(messages: list[Any]) -> list[str]:
    return [m["content"] if isinstance(m, dict) else m.content for m in messages]


async def ask(client: Any, messages: list[Any], stream: bool) -> dict[str, Any]:
    """One call with the whole list; the reply as the application appends it."""
    result = client.chat.completions.create(model="m", messages=messages, stream=stream)
    if hasattr(result, "__await__"):
        result = await result
    if not stream:
        return {"role": "assistant", "content": result.choices[0].message.content}
    text = ""
    if hasattr(result, "__aiter__"):
        async for part in result:
            text += part.choices[0].delta.content or "" if part.choices else ""
    else:
        for part in result:
            text += part.choices[0].delta.content or "" if part.choices else ""
    return {"role": "assistant", "content": text}


async def history(memory: Any) -> list[str]:
    got = memory.history()
    if hasattr(got, "__await__"):
        got = await got
    return contents(got)


async def branches(memory: Any) -> list[Any]:
    got = memory.branches()
    return list((await got) if hasattr(got, "__await__") else got)


@respx.mock
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_edit_regenerate_rewind_send_the_conversation_as_the_list_is(
    mode: str, stream: bool
) -> None:
    numbered = Numbered()
    route = respx.post(OPENAI_URL).mock(side_effect=numbered)
    if mode == "sync":
        memory: Any = Memory("habit", reducer=reducer())
        client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    else:
        memory = AsyncMemory("habit", reducer=reducer())
        client = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    messages: list[Any] = [SYSTEM]
    for question in ("where is my order", "when does it ship"):
        messages.append({"role": "user", "content": question})
        messages.append(await ask(client, messages, stream))
    assert await history(memory) == contents(messages[1:])

    # edit the first question, resend the rest unchanged (issue #28, point 1): 4 -> 5, not 10
    messages[1] = {"role": "user", "content": "where is my parcel"}
    messages.append(await ask(client, messages, stream))
    assert len(route.calls) == 3 and contents(numbered.calls[-1][1:]) == contents(messages[1:-1])
    assert await history(memory) == contents(messages[1:])

    # regenerate: the list without its last reply
    messages.pop()
    messages.append(await ask(client, messages, stream))
    assert contents(numbered.calls[-1][1:]) == contents(messages[1:-1])
    assert await history(memory) == contents(messages[1:])

    # rewind to the first exchange and ask something else
    messages[3:] = [{"role": "user", "content": "cancel it"}]
    messages.append(await ask(client, messages, stream))
    assert contents(numbered.calls[-1][1:]) == ["where is my parcel", "reply 1", "cancel it"]
    assert await history(memory) == contents(messages[1:])

    abandoned = [b.length for b in await branches(memory)]
    assert abandoned == [4, 1, 3]  # the first turns, the regenerated reply, what the rewind cut
    assert all(call[0] == SYSTEM for call in numbered.calls)
    closed = memory.close()
    if hasattr(closed, "__await__"):
        await closed


@respx.mock
@pytest.mark.parametrize("lead", ["greeting", "few-shot"])
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_fixed_lead_before_only_the_new_message_never_branches(
    mode: str, lead: str
) -> None:
    """A chat UI's greeting or few-shot examples before only the new question, every call
    (#28 review): assistant messages the caller wrote prove nothing; every turn is kept and
    the model sees the past."""
    numbered = Numbered()
    respx.post(OPENAI_URL).mock(side_effect=numbered)
    if mode == "sync":
        memory: Any = Memory("lead")
        client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    else:
        memory = AsyncMemory("lead")
        client = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    if lead == "greeting":
        head = [{"role": "assistant", "content": "Hello! How can I help?"}]
    else:
        head = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]
    for question in ("q1", "q2", "q3"):
        await ask(client, [SYSTEM, *head, {"role": "user", "content": question}], False)
    assert await branches(memory) == []
    expected = [t for i in (1, 2, 3) for t in [*contents(head), f"q{i}", f"reply {i}"]]
    assert await history(memory) == expected
    assert contents(numbered.calls[-1][1:]) == expected[:-1]
    closed = memory.close()
    if hasattr(closed, "__await__"):
        await closed


@respx.mock
def test_popping_the_last_turn_then_going_on() -> None:
    numbered = Numbered()
    respx.post(OPENAI_URL).mock(side_effect=numbered)
    memory = Memory("pop", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "one"}])
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "two"}])
    popped = memory.pop(2)  # the new-message habit: the memory is the list
    assert contents([m.to_openai() for m in popped]) == ["two", "reply 2"]
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "three"}])
    assert numbered.calls[-1] == [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "reply 1"},
        {"role": "user", "content": "three"},
    ]
    assert contents(memory.history()) == ["one", "reply 1", "three", "reply 3"]


@respx.mock
def test_an_edit_behind_the_summary_rolls_it_back_and_reduces_again() -> None:
    numbered = Numbered()
    respx.post(OPENAI_URL).mock(side_effect=numbered)
    memory = Memory("deep", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    messages: list[Any] = [SYSTEM]
    for i in range(10):
        messages.append({"role": "user", "content": f"question {i} about order {i} today"})
        response = client.chat.completions.create(model="m", messages=messages)
        messages.append(response.choices[0].message)
    assert memory.summary is not None and memory.summary.summary_info is not None
    k = memory.summary.summary_info.watermark
    assert k > 2
    messages[3] = {"role": "user", "content": "question 1, asked another way"}  # inside it
    del messages[4:]
    client.chat.completions.create(model="m", messages=messages)
    assert contents(memory.history()) == [
        "question 0 about order 0 today",
        "reply 1",
        "question 1, asked another way",
        "reply 11",
    ]
    sent = numbered.calls[-1]
    assert contents(sent) == contents([SYSTEM, *messages[1:]])  # no summary of what was dropped
    (branch,) = memory.branches()
    assert branch.at == 2 and branch.watermark == k
