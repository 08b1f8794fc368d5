"""A tool call the application never answered, or answered late, still goes out as providers
accept it: each call followed at once by its results; the stored session is unchanged."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import openai
import pytest
import respx

from summem import AsyncMemory, Memory, wrap_openai
from summem.reducers.style import ViewStyle
from summem.wrappers.pairing import NO_RESULT, paired_for_provider
from tests.fakes.replies import OPENAI_URL, openai_completion


def call(*ids: str, content: str | None = None) -> dict[str, Any]:
    calls = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
    ]
    return {"role": "assistant", "content": content, "tool_calls": calls}


def result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": f"result {call_id}"}


USER = {"role": "user", "content": "weather?"}
LATER = {"role": "user", "content": "never mind: 2 + 2?"}


def check_pairs(messages: list[dict[str, Any]]) -> None:
    """What OpenAI checks: the results of every call follow it at once, none elsewhere."""
    for i, m in enumerate(messages):
        if m.get("tool_calls"):
            ids = {c["id"] for c in m["tool_calls"]}
            after = messages[i + 1 : i + 1 + len(ids)]
            assert {r.get("tool_call_id") for r in after} == ids, messages
        if m["role"] == "tool":
            j = i - 1
            while messages[j]["role"] == "tool":
                j -= 1
            assert m["tool_call_id"] in {c["id"] for c in messages[j].get("tool_calls") or []}


def stub(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": NO_RESULT}


def test_an_unanswered_call_the_conversation_went_past_gets_a_stub_result() -> None:
    out = paired_for_provider([USER, call("a"), LATER])
    assert out == [USER, call("a"), stub("a"), LATER]
    out = paired_for_provider([USER, call("a", content="Let me look."), LATER])
    assert out == [USER, call("a", content="Let me look."), stub("a"), LATER]
    out = paired_for_provider([USER, call("a", "b"), result("b"), LATER])
    assert out == [USER, call("a", "b"), result("b"), stub("a"), LATER]
    check_pairs(out)


def test_a_late_result_stays_where_it_came_and_its_call_is_moved_down_to_it() -> None:
    messages = [USER, call("a", "b"), result("a"), LATER, {"role": "assistant", "content": "4"}]
    out = paired_for_provider([*messages, result("b")])
    assert out == [USER, call("a"), result("a"), *messages[3:], call("b"), result("b")]
    check_pairs(out)
    # a message left with no call and no content is left out; one with content keeps it
    out = paired_for_provider([USER, call("a"), LATER, result("a")])
    assert out == [USER, LATER, call("a"), result("a")]
    out = paired_for_provider([USER, call("a", content="Let me look."), LATER, result("a")])
    moved = {"role": "assistant", "content": "", "tool_calls": call("a")["tool_calls"]}
    said = {"role": "assistant", "content": "Let me look."}
    assert out == [USER, said, LATER, moved, result("a")]
    check_pairs(out)


def test_a_late_result_inside_another_call_group_does_not_split_it() -> None:
    messages = [USER, call("a"), LATER, call("b"), result("a"), result("b")]
    out = paired_for_provider(messages)
    assert out == [USER, LATER, call("b"), result("b"), call("a"), result("a")]
    check_pairs(out)


def test_a_call_id_reused_in_a_later_turn_is_matched_to_its_own_result() -> None:
    # servers that number the calls of each turn from call_0
    first, second = result("call_0"), {**result("call_0"), "content": "second result"}
    answer = {"role": "assistant", "content": "done"}
    turns = [USER, call("call_0"), first, answer, LATER, call("call_0"), second, answer]
    out = paired_for_provider([*turns, USER, call("x"), LATER])
    assert out == [*turns, USER, call("x"), stub("x"), LATER]
    check_pairs(out)
    # an earlier call whose id is reused before it got a result has none
    out = paired_for_provider([USER, call("c"), LATER, call("c"), result("c"), answer])
    assert out == [USER, call("c"), stub("c"), LATER, call("c"), result("c"), answer]


def test_a_second_result_for_a_call_goes_after_a_copy_of_it() -> None:
    again = {**result("a"), "content": "retried"}
    out = paired_for_provider([USER, call("a"), result("a"), LATER, again])
    assert out == [USER, call("a"), result("a"), LATER, call("a"), again]
    check_pairs(out)


def test_well_paired_and_pending_views_go_out_as_they_are() -> None:
    views = [
        [USER, call("a", "b"), result("b"), result("a"), LATER],
        [USER, call("a", "b"), result("b")],  # the application is running its tools
        [USER, call("a")],
        [USER, LATER],
    ]
    for view in views:
        assert paired_for_provider(view) == view


@respx.mock
def test_a_session_with_an_abandoned_call_keeps_working_through_the_wrapper() -> None:
    route = respx.post(OPENAI_URL).mock(
        side_effect=[
            httpx.Response(200, json=openai_completion(None, tool_calls=call("c1")["tool_calls"])),
            httpx.Response(200, json=openai_completion("4")),
            httpx.Response(200, json=openai_completion("Sunny, then.")),
        ]
    )
    memory = Memory("s")
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), memory)
    client.chat.completions.create(model="gpt-4o-mini", messages=[USER])
    client.chat.completions.create(model="gpt-4o-mini", messages=[LATER])  # c1 never answered
    sent = json.loads(route.calls[1].request.content)["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[2]["content"] == NO_RESULT
    memory.add(result("c1"))  # the result arrives late after all
    client.chat.completions.create(model="gpt-4o-mini", messages=[])
    sent = json.loads(route.calls[2].request.content)["messages"]
    assert [m["role"] for m in sent] == ["user", "user", "assistant", "assistant", "tool"]
    assert sent[-1] == result("c1")  # the model reads it last, where it came
    check_pairs(sent)
    stored = [m.role for m in memory.history_messages()]  # the session itself is unchanged
    assert stored == ["user", "assistant", "user", "assistant", "tool", "assistant"]


@respx.mock
def test_a_re_paired_request_is_not_offered_for_cache_reuse() -> None:
    # a cache-reusing summarizer finds its span by the request's positions: after moving a
    # result up, they no longer match the view's, so the request is noted as not one to one
    respx.post(OPENAI_URL).mock(return_value=httpx.Response(200, json=openai_completion("ok")))
    memory = Memory("s")
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), memory)
    memory.extend([USER, call("a", "b"), result("a"), LATER, {"role": "assistant", "content": "4"}])
    memory.add(result("b"))
    client.chat.completions.create(model="gpt-4o-mini", messages=[])
    assert memory._core.sent is not None and memory._core.sent.ids is None
    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
    assert memory._core.sent.ids is None  # still re-paired (the late result stays late)
    plain = Memory("p")
    wrapped: Any = wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), plain)
    wrapped.chat.completions.create(model="gpt-4o-mini", messages=[USER])
    assert plain._core.sent is not None and plain._core.sent.ids is not None
    assert [m.role for m in memory.history_messages()][-2:] == ["user", "assistant"]


@respx.mock
def test_a_reused_call_id_goes_out_paired_through_the_wrapper(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="summem")
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion("ok"))
    )
    memory = Memory("s")
    answer = {"role": "assistant", "content": "done"}
    memory.extend([USER, call("call_0"), result("call_0"), answer, LATER, call("call_0")])
    memory.extend([result("call_0"), answer, USER, call("x")])
    client: Any = wrap_openai(openai.OpenAI(api_key="sk-test", max_retries=0), memory)
    client.chat.completions.create(model="gpt-4o-mini", messages=[LATER])
    sent = json.loads(route.calls[-1].request.content)["messages"]
    check_pairs(sent)
    assert [m.get("tool_call_id") for m in sent if m["role"] == "tool"] == ["call_0", "call_0", "x"]
    assert "re-paired in the request (11 messages stored, 12 sent)" in caplog.text


@respx.mock
def test_a_moved_call_keeps_the_compat_style_content() -> None:
    # llama.cpp refuses content null beside tool_calls: the compat style sends ""
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion("ok"))
    )
    memory = Memory("s")
    memory.extend([USER, call("a"), LATER, {"role": "assistant", "content": "4"}, result("a")])
    client: Any = wrap_openai(
        openai.OpenAI(api_key="sk-test", max_retries=0), memory, style=ViewStyle.compat()
    )
    client.chat.completions.create(model="m", messages=[])
    sent = json.loads(route.calls[-1].request.content)["messages"]
    check_pairs(sent)
    assert [m["role"] for m in sent] == ["user", "user", "assistant", "assistant", "tool"]
    assert all(m["content"] is not None for m in sent)


@respx.mock
async def test_async_wrappers_repair_the_request_the_same_way() -> None:
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(200, json=openai_completion("ok"))
    )
    memory = AsyncMemory("s")
    await memory.extend([USER, call("a", "b"), result("a"), LATER])
    await memory.add(result("b"))
    client: Any = wrap_openai(openai.AsyncOpenAI(api_key="sk-test", max_retries=0), memory)
    await client.chat.completions.create(model="gpt-4o-mini", messages=[])
    sent = json.loads(route.calls[-1].request.content)["messages"]
    assert sent == [USER, call("a"), result("a"), LATER, call("b"), result("b")]
    assert memory._core.sent is not None and memory._core.sent.ids is None
    stored = [m.to_openai() for m in await memory.history_messages()]
    assert stored[1]["tool_calls"] == call("a", "b")["tool_calls"]  # the session is unchanged
    await memory.close()


def _fc(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "f", "arguments": "{}"}


def _out(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "ok"}


def test_parallel_responses_calls_then_their_outputs_go_out_as_they_are() -> None:
    """The order the Responses API itself emits: a turn's calls together, then the outputs."""
    from summem.wrappers.pairing import paired_items

    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    user = {"role": "user", "content": "next"}
    items = [reasoning, _fc("a"), _fc("b"), _out("a"), _out("b"), user]
    assert paired_items(items) == items
    assert paired_items([_fc("a"), _fc("b"), _out("b"), _out("a")]) == [
        _fc("a"), _fc("b"), _out("b"), _out("a")
    ]  # fmt: skip
    pending = [user, _fc("c1"), _fc("c0"), _fc("c1")]  # tools still running: left alone
    assert paired_items(pending) == pending


def test_a_parallel_responses_call_gone_past_gets_its_stub_after_the_turns_outputs() -> None:
    from summem.wrappers.pairing import paired_items

    user = {"role": "user", "content": "never mind"}
    sent = paired_items([_fc("a"), _fc("b"), _out("a"), user])
    assert sent[:3] == [_fc("a"), _fc("b"), _out("a")]
    assert sent[3] == {"type": "function_call_output", "call_id": "b", "output": NO_RESULT}
    assert sent[4:] == [user]
    assert paired_items(sent) == sent
