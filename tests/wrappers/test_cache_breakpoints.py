"""Prompt-cache breakpoints: the request shapes litellm sends to Anthropic and to OpenAI.

Through the real litellm client and ``wrap_completion``, mocked at the transport (respx on
api.anthropic.com and api.openai.com).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from summem import LLMSummarizer, Memory, SummarizationReducer, wrap_completion
from summem.errors import ConfigurationError
from summem.summarizers.sent import STOP
from summem.wrappers.cache import EPHEMERAL, with_breakpoints
from tests.fakes.replies import ANTHROPIC_URL, OPENAI_URL, anthropic_message, openai_completion

CLAUDE = "anthropic/claude-sonnet-4-5"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Find an order by its code.",
            "parameters": {"type": "object", "properties": {"code": {"type": "string"}}},
        },
    }
]


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _marks(value: Any) -> int:
    """``cache_control`` markers anywhere in a request body."""
    if isinstance(value, dict):
        return int("cache_control" in value) + sum(_marks(v) for v in value.values())
    if isinstance(value, list):
        return sum(_marks(v) for v in value)
    return 0


def _is_summary(body: dict[str, Any]) -> bool:
    text = json.dumps(body["messages"][-1])
    return STOP[:40] in text or "You maintain the long-term memory" in json.dumps(body)


def _converse(
    model: str, *, turns: int = 10, summarizer: LLMSummarizer | None = None, **options: Any
) -> tuple[Memory, list[dict[str, Any]]]:
    bodies: list[dict[str, Any]] = []
    claude = "claude" in model

    def reply(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        bodies.append(body)
        text = "Ada ordered BW-1." if _is_summary(body) else "Noted."
        if claude:
            return httpx.Response(200, json=anthropic_message(text))
        return httpx.Response(200, json=openai_completion(text))

    reducer = SummarizationReducer(
        summarizer or LLMSummarizer(model),
        threshold_messages=8,
        target_messages=5,
        summary_max_tokens=200,
    )
    memory = Memory("breakpoints", reducer=reducer)
    import litellm

    completion = wrap_completion(litellm.completion, memory, **options)
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=reply)
        router.post(OPENAI_URL).mock(side_effect=reply)
        for i in range(turns):
            messages = (
                [{"role": "system", "content": "You are a shop assistant."}] if i == 0 else []
            )
            messages.append({"role": "user", "content": f"Question {i} about order BW-{i}."})
            completion(model=model, messages=messages, tools=TOOLS)
    return memory, bodies


def test_anthropic_requests_mark_the_system_the_summary_and_the_last_message() -> None:
    memory, bodies = _converse(CLAUDE)
    assistant = [b for b in bodies if not _is_summary(b)]
    assert memory.summary is not None
    for body in assistant:
        assert body["system"][-1]["cache_control"] == EPHEMERAL
        assert body["messages"][-1]["content"][-1]["cache_control"] == EPHEMERAL
        assert _marks(body) <= 4
    reduced = [b for b in assistant if "Summary of the earlier" in json.dumps(b["messages"][0])]
    assert reduced, "a reduction happened and the next requests carry the summary"
    for body in reduced:  # the summary, right after the system: marked too, still <= 4
        first = body["messages"][0]["content"]
        assert first[0]["text"].startswith("Summary of the earlier")
        assert first[0]["cache_control"] == EPHEMERAL
        assert _marks(body) == 3


def test_openai_requests_carry_no_markers() -> None:
    _, bodies = _converse("gpt-4o-mini")
    assert bodies and all(_marks(b) == 0 for b in bodies)
    assert all(isinstance(m.get("content"), str) for b in bodies for m in b["messages"])


def test_breakpoints_are_configurable() -> None:
    _, off = _converse(CLAUDE, turns=3, cache_breakpoints=())
    assert all(_marks(b) == 0 for b in off)
    _, last = _converse(CLAUDE, turns=3, cache_breakpoints=("last",))
    assert all(_marks(b) == 1 and "cache_control" not in b["system"][-1] for b in last)
    # asked for on an OpenAI model, they are sent to litellm, which leaves them out for OpenAI
    _, forced = _converse("gpt-4o-mini", turns=2, cache_breakpoints=("system",))
    assert all(b["messages"][0]["content"][0]["type"] == "text" for b in forced)
    assert all(_marks(b) == 0 for b in forced)
    with pytest.raises(ConfigurationError, match="unknown place"):
        _converse(CLAUDE, turns=1, cache_breakpoints=("middle",))
    with pytest.raises(ConfigurationError, match="sequence of places"):
        _converse(CLAUDE, turns=1, cache_breakpoints="last")


def test_the_cache_reusing_summarizer_repeats_the_marked_request_to_anthropic() -> None:
    summarizer = LLMSummarizer(CLAUDE, reuse_cache=True)
    memory, bodies = _converse(CLAUDE, summarizer=summarizer)
    at = next(i for i, b in enumerate(bodies) if _is_summary(b))
    summary, assistant = bodies[at], bodies[at - 1]
    assert summary["system"] == assistant["system"] and summary["tools"] == assistant["tools"]
    assert summary["messages"][:-1] == assistant["messages"][:-1]
    # Anthropic takes consecutive user turns as one: the instruction follows the marked block
    last_sent = assistant["messages"][-1]["content"]
    last = summary["messages"][-1]["content"]
    assert last[: len(last_sent)] == last_sent and last_sent[-1]["cache_control"] == EPHEMERAL
    assert last[-1]["text"].startswith(STOP)
    assert _marks(summary) <= 4
    assert memory.summary is not None and memory.summary.summary_info is not None
    assert memory.summary.summary_info.extra["cache_reuse"] is True


def test_markers_already_there_count_towards_the_four() -> None:
    mine = {"type": "text", "text": "x", "cache_control": EPHEMERAL}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": [mine]},
        {"role": "user", "content": [dict(mine)]},
        {"role": "user", "content": [dict(mine)]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function"}]},
    ]
    out = with_breakpoints(messages, ("system", "summary", "last"), summary_text=None)
    assert _marks(out) == 4  # three were there: only the last message gets one
    assert out[4]["tool_calls"][-1]["cache_control"] == EPHEMERAL
    assert out[0] == {"role": "system", "content": "S"}
    assert "cache_control" not in messages[4]["tool_calls"][-1]  # a copy, never the input
    tool = with_breakpoints(
        [{"role": "tool", "tool_call_id": "c", "content": "42"}], ("last",), summary_text=None
    )
    assert tool[0]["cache_control"] == EPHEMERAL and tool[0]["content"] == "42"
