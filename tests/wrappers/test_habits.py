"""Both client habits: only the new messages, or the whole conversation every call.

The openai habit is to keep a local ``messages`` list and resend all of it each time, appending
``response.choices[0].message`` and the tool results. Nothing may be recorded twice, whichever
habit, client (openai SDK, litellm), mode (sync, async) or moment (before or after a reduction,
across a restart).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import respx

from summem.async_memory import AsyncMemory
from summem.memory import Memory
from summem.reducers.summarization import SummarizationReducer
from summem.wrappers import wrap_completion, wrap_openai
from tests.fakes.counters import WordCounter
from tests.fakes.memory import check_session
from tests.fakes.replies import OPENAI_URL, chunk, openai_completion, sse
from tests.fakes.summarizers import FakeSummarizer

SYSTEM = {"role": "system", "content": "You are a support assistant."}
CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}


def reducer() -> SummarizationReducer:
    return SummarizationReducer(
        FakeSummarizer(reply="earlier: an order"),
        threshold_tokens=80,
        target_tokens=50,
        summary_max_tokens=8,
        token_counter=WordCounter(),
    )


def replies(*texts: str) -> respx.Route:
    it = iter(texts)
    return respx.post(OPENAI_URL).mock(
        side_effect=lambda request: httpx.Response(200, json=openai_completion(next(it)))
    )


def sent(route: respx.Route) -> list[list[dict[str, Any]]]:
    return [json.loads(c.request.content)["messages"] for c in route.calls]


def contents(memory: Memory) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in memory.history_messages()]


@respx.mock
@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_resending_the_whole_list_records_each_message_once(store: str, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.db'}" if store == "sqlite" else None
    route = replies(*(f"answer {i}" for i in range(12)))
    memory = Memory("habit", reducer=reducer(), store=url)
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    messages: list[Any] = [SYSTEM]
    for i in range(12):
        messages.append({"role": "user", "content": f"question {i} about order {i}"})
        response = client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        messages.append(response.choices[0].message)  # the SDK object, as the recipe does
    expected = [
        pair
        for i in range(12)
        for pair in (("user", f"question {i} about order {i}"), ("assistant", f"answer {i}"))
    ]
    assert contents(memory) == expected
    assert memory.summary is not None  # reductions happened while the caller kept resending
    last = sent(route)[-1]
    assert last[0] == SYSTEM and last[1]["content"].startswith("Summary of the earlier")
    assert last[-1] == {"role": "user", "content": "question 11 about order 11"}
    check_session(memory.store, "habit", memory.view())


@respx.mock
def test_only_new_messages_still_works_and_repeated_text_is_new() -> None:
    replies("one", "two", "three")
    memory = Memory("habit", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    for text in ("hi", "hi", "hi"):  # the same text three times: three new messages
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": text}]
        )
    assert contents(memory) == [
        ("user", "hi"),
        ("assistant", "one"),
        ("user", "hi"),
        ("assistant", "two"),
        ("user", "hi"),
        ("assistant", "three"),
    ]


@respx.mock
def test_the_tool_recipe_in_both_habits() -> None:
    route = respx.post(OPENAI_URL).mock(
        side_effect=[
            httpx.Response(200, json=openai_completion(None, tool_calls=[CALL])),
            httpx.Response(200, json=openai_completion("done")),
            httpx.Response(200, json=openai_completion(None, tool_calls=[{**CALL, "id": "c2"}])),
            httpx.Response(200, json=openai_completion("done again")),
        ]
    )
    memory = Memory("tools", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    # the whole list each time
    messages: list[Any] = [SYSTEM, {"role": "user", "content": "look it up"}]
    reply = client.chat.completions.create(model="m", messages=messages).choices[0].message
    messages += [reply, {"role": "tool", "tool_call_id": "call_1", "content": "found"}]
    client.chat.completions.create(model="m", messages=messages)
    # only the new messages: the reply passed back, then its result
    reply = (
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "and again"}]
        )
        .choices[0]
        .message
    )
    client.chat.completions.create(
        model="m", messages=[reply, {"role": "tool", "tool_call_id": "c2", "content": "found 2"}]
    )
    roles = [r for r, _ in contents(memory)]
    assert roles == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert len(route.calls) == 4
    check_session(memory.store, "tools", memory.view())


@respx.mock
def test_echoing_the_view_back_records_only_what_is_new() -> None:
    replies(*(f"answer {i}" for i in range(10)))
    memory = Memory("echo", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    for i in range(10):
        view = memory.messages()  # summary included once due
        view.append({"role": "user", "content": f"question {i} here"})
        client.chat.completions.create(model="m", messages=view)
    assert [t for _, t in contents(memory)][::2] == [f"question {i} here" for i in range(10)]
    assert len(memory.history_messages()) == 20


@respx.mock
def test_a_resend_after_a_restart_reads_the_history_once(tmp_path: Path) -> None:
    replies(*(f"answer {i}" for i in range(8)))
    url = f"sqlite:///{tmp_path / 'r.db'}"
    messages: list[Any] = [SYSTEM]
    for i in range(8):
        memory = Memory("restart", reducer=reducer(), store=url)  # a new process each turn
        client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
        messages.append({"role": "user", "content": f"question {i} about things"})
        messages.append(
            client.chat.completions.create(model="m", messages=messages).choices[0].message
        )
        memory.close()
    with Memory("restart", reducer=reducer(), store=url) as memory:
        assert len(memory.history_messages()) == 16
        check_session(memory.store, "restart", memory.view())


@respx.mock
def test_an_edited_history_branches_at_the_edit() -> None:
    route = replies("one", "two", "three")
    memory = Memory("edit", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory)
    messages: list[Any] = [SYSTEM, {"role": "user", "content": "first question"}]
    messages.append(client.chat.completions.create(model="m", messages=messages).choices[0].message)
    messages.append({"role": "user", "content": "second question"})
    messages.append(client.chat.completions.create(model="m", messages=messages).choices[0].message)
    edited = [*messages[:3], {"role": "user", "content": "EDITED second question"}, messages[4]]
    edited.append({"role": "user", "content": "third"})
    client.chat.completions.create(model="m", messages=edited)
    assert contents(memory) == [
        ("user", "first question"),
        ("assistant", "one"),
        ("user", "EDITED second question"),
        ("assistant", "two"),
        ("user", "third"),
        ("assistant", "three"),
    ]
    assert [m["content"] for m in sent(route)[-1][1:]] == [
        "first question",
        "one",
        "EDITED second question",
        "two",
        "third",
    ]
    (branch,) = memory.branches()
    assert branch.at == 2
    assert memory.branch_messages(branch.id) == [
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "two"},
    ]


@respx.mock
def test_mode_full_takes_the_list_as_the_whole_conversation() -> None:
    route = replies("one", "two", "three")
    memory = Memory("full", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory, mode="full")
    first = [SYSTEM, {"role": "user", "content": "first"}]
    reply = client.chat.completions.create(model="m", messages=first).choices[0].message
    client.chat.completions.create(
        model="m", messages=[*first, reply, {"role": "user", "content": "second"}]
    )
    assert [t for _, t in contents(memory)] == ["first", "one", "second", "two"]
    # a list that does not start with the conversation is the conversation now
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "anew"}])
    assert [t for _, t in contents(memory)] == ["anew", "three"]
    assert sent(route)[-1] == [SYSTEM, {"role": "user", "content": "anew"}]
    (branch,) = memory.branches()
    assert (branch.at, branch.length) == (0, 4)
    with pytest.raises(Exception, match="mode must be"):
        wrap_openai(openai.OpenAI(api_key="sk-test"), memory, mode="sometimes")  # type: ignore[arg-type]


@respx.mock
def test_retrying_a_failed_call_with_the_same_list_records_nothing_twice() -> None:
    respx.post(OPENAI_URL).mock(
        side_effect=[
            httpx.Response(500, json={"error": {"message": "boom"}}),
            httpx.Response(200, json=openai_completion("recovered")),
        ]
    )
    memory = Memory("retry", reducer=reducer())
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), memory)
    messages = [SYSTEM, {"role": "user", "content": "please work"}]
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="m", messages=messages)
    client.chat.completions.create(model="m", messages=messages)
    assert contents(memory) == [("user", "please work"), ("assistant", "recovered")]


@respx.mock
def test_litellm_resend_habit() -> None:
    import litellm

    replies("a", "b", "c")
    memory = Memory("lite", reducer=reducer())
    completion = wrap_completion(litellm.completion, memory)
    messages: list[Any] = [SYSTEM]
    for i in range(3):
        messages.append({"role": "user", "content": f"q{i}"})
        response = completion(model="gpt-4o-mini", messages=messages, api_key="sk-test")
        messages.append(response.choices[0].message)
    assert [t for _, t in contents(memory)] == ["q0", "a", "q1", "b", "q2", "c"]


@respx.mock
async def test_async_resend_habit_with_streaming() -> None:
    def stream(request: httpx.Request) -> httpx.Response:
        n = len(json.loads(request.content)["messages"])
        body = sse([chunk({"role": "assistant", "content": f"s{n}"}), chunk({}, finish="stop")])
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    respx.post(OPENAI_URL).mock(side_effect=stream)
    memory = AsyncMemory("astream", reducer=reducer())
    client: Any = wrap_openai(openai.AsyncOpenAI(api_key="sk-test"), memory)
    messages: list[Any] = [SYSTEM]
    for i in range(4):
        messages.append({"role": "user", "content": f"q{i}"})
        text = ""
        async for part in await client.chat.completions.create(
            model="m", messages=messages, stream=True
        ):
            text += part.choices[0].delta.content or "" if part.choices else ""
        messages.append({"role": "assistant", "content": text})
    history = await memory.history_messages()
    assert [m.role for m in history] == ["user", "assistant"] * 4
    assert all(m.meta["usage"]["estimated"] for m in history if m.role == "assistant")
    await memory.close()
