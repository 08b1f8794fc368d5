"""A tool call the application never answered, or answered late, still goes out as providers
accept it: each call followed at once by its results; the stored session is unchanged."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import respx

from summem import Memory, wrap_openai
from summem.wrappers.pairing import paired_for_provider
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


def test_an_unanswered_call_the_conversation_went_past_is_left_out() -> None:
    out = paired_for_provider([USER, call("a"), LATER])
    assert out == [USER, LATER]
    out = paired_for_provider([USER, call("a", content="Let me look."), LATER])
    assert out == [USER, {"role": "assistant", "content": "Let me look."}, LATER]
    out = paired_for_provider([USER, call("a", "b"), result("b"), LATER])
    assert out[1]["tool_calls"] == [call("b")["tool_calls"][0]] and out[2:] == [result("b"), LATER]
    check_pairs(out)


def test_a_late_result_is_moved_up_to_its_call() -> None:
    messages = [USER, call("a", "b"), result("a"), LATER, {"role": "assistant", "content": "4"}]
    out = paired_for_provider([*messages, result("b")])
    assert out == [USER, call("a", "b"), result("a"), result("b"), *messages[3:]]
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
    assert [m["role"] for m in sent] == ["user", "user"]
    memory.add(result("c1"))  # the result arrives late after all
    client.chat.completions.create(model="gpt-4o-mini", messages=[])
    sent = json.loads(route.calls[2].request.content)["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user", "assistant"]
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
