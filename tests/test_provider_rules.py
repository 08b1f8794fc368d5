"""The provider checkers accept good payloads and name the rule a bad one breaks."""

from __future__ import annotations

from typing import Any

import pytest

from tests.provider_rules import check_anthropic, check_gemini, check_openai

# -- OpenAI ---------------------------------------------------------------------------------


def oa_call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
        ],
    }


def oa_res(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "{}"}


SYS = {"role": "system", "content": "s"}
USER = {"role": "user", "content": "u"}
ASSISTANT = {"role": "assistant", "content": "a"}


def test_openai_accepts_parallel_results_in_any_order() -> None:
    body = {"messages": [SYS, USER, oa_call("a", "b"), oa_res("b"), oa_res("a"), ASSISTANT]}
    assert check_openai(body) == []


@pytest.mark.parametrize(
    ("messages", "rule"),
    [
        ([], "non-empty"),
        ([USER, oa_call("a"), USER, oa_res("a")], "does not directly follow"),
        ([USER, oa_call("a", "b"), oa_res("a"), ASSISTANT], "never answered"),
        ([USER, oa_call("a", "b"), oa_res("a")], "never answered"),
        ([USER, oa_res("a")], "does not directly follow"),
        ([USER, oa_call("a"), oa_res("a"), oa_res("a")], "does not directly follow"),
        ([{**USER, "summary_info": {"watermark": 3}}], "unknown keys"),
        ([{"role": "function", "content": "x"}], "unknown role"),
    ],
    ids=[
        "empty",
        "user_between_call_and_result",
        "missing_result",
        "missing_result_at_end",
        "orphan_result",
        "duplicate_result",
        "leaked_metadata",
        "unknown_role",
    ],
)
def test_openai_rejects(messages: list[dict[str, Any]], rule: str) -> None:
    problems = check_openai({"messages": messages})
    assert any(rule in p for p in problems), problems


# -- Anthropic ------------------------------------------------------------------------------


def an(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "content": list(blocks)}


def text(value: str = "t") -> dict[str, Any]:
    return {"type": "text", "text": value}


def use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "f", "input": {}}


def result(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "{}"}


TOOLS = [{"name": "f", "input_schema": {"type": "object"}}]


def anthropic(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"max_tokens": 100, "tools": TOOLS, "messages": list(messages), **extra}


def test_anthropic_accepts_a_good_request() -> None:
    body = anthropic(
        an("user", text("summary"), text("question")),
        an("assistant", text("checking"), use("a"), use("b")),
        an("user", result("b"), result("a"), text("and then?")),
        {"role": "assistant", "content": "done"},
        system=[text("sys")],
    )
    assert check_anthropic(body) == []


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        (anthropic(), "non-empty"),
        (anthropic(an("system", text()), an("user", text())), "system goes top-level"),
        (anthropic(an("assistant", text()), an("user", text())), "first message must use the user"),
        (anthropic(an("user", text()), an("user", text())), "roles must alternate"),
        (anthropic(an("user", text()), an("assistant", use("a"))), "not answered"),
        (
            anthropic(an("user", text()), an("assistant", use("a")), an("user", text())),
            "not answered",
        ),
        (
            anthropic(
                an("user", text()), an("assistant", use("a"), use("b")), an("user", result("a"))
            ),
            "not answered",
        ),
        (
            anthropic(
                an("user", text()), an("assistant", use("a")), an("user", text(), result("a"))
            ),
            "tool_result blocks must come first",
        ),
        (anthropic(an("user", result("a"))), "answers no tool_use"),
        (
            anthropic(
                an("user", text()), an("assistant", use("a")), an("user", result("a")), tools=[]
            ),
            "tools must be defined",
        ),
        (anthropic(an("user", text(""))), "non-empty"),
        (anthropic(an("user")), "content must not be empty"),
        ({"messages": [an("user", text())]}, "max_tokens"),
        (anthropic(an("user", use("a"))), "tool_use in a 'user' message"),
        (
            anthropic(
                an("user", text()), an("assistant", use("a"), use("a")), an("user", result("a"))
            ),
            "duplicate tool_use id",
        ),
    ],
    ids=[
        "empty",
        "system_in_messages",
        "starts_with_assistant",
        "two_user_turns",
        "tool_use_at_end",
        "tool_use_then_text",
        "one_result_missing",
        "text_before_result",
        "orphan_result",
        "no_tools",
        "empty_text_block",
        "empty_content",
        "no_max_tokens",
        "tool_use_by_user",
        "duplicate_tool_use_id",
    ],
)
def test_anthropic_rejects(body: dict[str, Any], rule: str) -> None:
    problems = check_anthropic(body)
    assert any(rule in p for p in problems), problems


# -- Gemini ---------------------------------------------------------------------------------


def gm(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


def fcall(name: str) -> dict[str, Any]:
    return {"function_call": {"name": name, "args": {}}}


def fresp(name: str, response: Any = None) -> dict[str, Any]:
    return {"function_response": {"name": name, "response": {} if response is None else response}}


def test_gemini_accepts_a_good_request_in_either_spelling() -> None:
    body = {
        "system_instruction": {"parts": [{"text": "sys"}]},
        "contents": [
            gm("user", {"text": "summary"}),
            gm("model", {"text": "checking"}, fcall("f"), fcall("g")),
            gm("user", fresp("g"), fresp("f")),
            gm("model", {"text": "done"}),
        ],
    }
    assert check_gemini(body) == []
    camel = {
        "systemInstruction": {"parts": [{"text": "sys"}]},
        "contents": [
            gm("user", {"text": "q"}),
            gm("model", {"functionCall": {"name": "f", "args": {}}}),
            gm("user", {"functionResponse": {"name": "f", "response": {"ok": True}}}),
        ],
    }
    assert check_gemini(camel) == []


@pytest.mark.parametrize(
    ("contents", "rule"),
    [
        ([], "non-empty"),
        (
            [gm("model", {"text": "a"}), gm("user", {"text": "b"})],
            "first content must use the user",
        ),
        ([gm("user", {"text": "a"}), gm("assistant", {"text": "b"})], "only user and model"),
        ([gm("system", {"text": "a"})], "only user and model"),
        ([gm("user", {"text": "a"}), gm("model", fcall("f"))], "never answered"),
        (
            [gm("user", {"text": "a"}), gm("model", fcall("f")), gm("user", {"text": "b"})],
            "not answered",
        ),
        (
            [
                gm("user", {"text": "a"}),
                gm("model", fcall("f"), fcall("f")),
                gm("user", fresp("f")),
            ],
            "not answered",
        ),
        (
            [gm("user", {"text": "a"}), gm("model", fcall("f")), gm("user", fresp("g"))],
            "not answered",
        ),
        ([gm("user", fresp("f"))], "without a function_call"),
        (
            [gm("user", {"text": "a"}), gm("model", fcall("f")), gm("user", fresp("f", "text"))],
            "must be an object",
        ),
        ([gm("user")], "parts must be a non-empty list"),
        ([gm("user", fcall("f"))], "function_call in a 'user' turn"),
    ],
    ids=[
        "empty",
        "starts_with_model",
        "assistant_role",
        "system_role",
        "call_at_end",
        "call_then_text",
        "one_response_missing",
        "wrong_function",
        "orphan_response",
        "response_not_object",
        "empty_parts",
        "call_by_user",
    ],
)
def test_gemini_rejects(contents: list[dict[str, Any]], rule: str) -> None:
    problems = check_gemini({"contents": contents})
    assert any(rule in p for p in problems), problems


def test_gemini_rejects_a_malformed_system_instruction() -> None:
    body = {"system_instruction": "sys", "contents": [gm("user", {"text": "a"})]}
    assert check_gemini(body) == ["system_instruction must hold parts"]
