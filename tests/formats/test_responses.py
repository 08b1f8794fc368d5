"""Responses API items through a memory: lossless round trip, pairing, reasoning, counting."""

from __future__ import annotations

import json
from typing import Any

import pytest

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.conversation import boundaries
from summem.errors import MessageValidationError
from summem.formats.responses import ITEM_META, item_dict, to_items, to_messages
from summem.messages import assistant, tool, user
from summem.tokens.base import ApproxCounter
from summem.tokens.openai import TiktokenCounter
from tests.fakes.counters import WordCounter, words
from tests.fakes.summarizers import FakeSummarizer

ENCRYPTED = "gAAAAABo" + "Zm9vYmFy" * 200


def turn(n: int, *, text_words: int = 5) -> list[dict[str, Any]]:
    """A user message, then reasoning, a function call, its output and the final message."""
    return [
        {"role": "user", "content": words(text_words, f"u{n}_")},
        {
            "type": "reasoning",
            "id": f"rs_{n}",
            "summary": [{"type": "summary_text", "text": "look it up"}],
            "encrypted_content": ENCRYPTED,
        },
        {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": "lookup",
            "arguments": json.dumps({"q": n}),
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": f"call_{n}", "output": f"value {n}"},
        {
            "type": "message",
            "id": f"msg_{n}",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": words(text_words, f"a{n}_"), "annotations": []}
            ],
        },
    ]


RICH: list[dict[str, Any]] = [
    {"type": "message", "role": "developer", "content": "Be brief."},
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "what is in this picture?"},
            {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
            {"type": "input_file", "file_id": "file-123"},
        ],
    },
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "x"}},
    {"type": "custom_tool_call", "call_id": "cc_1", "name": "grep", "input": "needle"},
    {"type": "custom_tool_call_output", "call_id": "cc_1", "output": "found"},
    {"type": "function_call", "call_id": "c_2", "name": "f", "arguments": "{}"},
    {
        "type": "function_call_output",
        "call_id": "c_2",
        "output": [{"type": "input_text", "text": "a list output"}],
    },
    {"role": "assistant", "content": "done, and ünïcode kept"},
]


def test_items_round_trip_byte_equal() -> None:
    memory = Memory("s")
    items = RICH + turn(1)
    memory.add_items(items)
    assert json.dumps(memory.items()) == json.dumps(items)
    # the history carries the originals too, and the store keeps them (meta is stored)
    again = Memory("s", store=memory.store)
    assert json.dumps(again.items()) == json.dumps(items)
    assert to_items(again.history_messages()) == items[1:]  # the system message is apart


def test_items_are_copies() -> None:
    memory = Memory("s")
    items = turn(1)
    memory.add_items(items)
    items[0]["content"] = "changed"
    out = memory.items()
    assert out[0]["content"] != "changed"
    out[0]["content"] = "mine"
    assert memory.items()[0]["content"] != "mine"


def test_string_input_is_one_user_message() -> None:
    memory = Memory("s")
    memory.add_items("hello")
    assert memory.items() == [{"role": "user", "content": "hello"}]


def test_sdk_item_objects() -> None:
    from openai.types.responses import ResponseFunctionToolCall, ResponseReasoningItem

    call = ResponseFunctionToolCall(
        type="function_call", call_id="c1", name="f", arguments="{}", id="fc_1"
    )
    reasoning = ResponseReasoningItem(type="reasoning", id="rs_1", summary=[])
    assert item_dict(call) == {
        "type": "function_call",
        "call_id": "c1",
        "name": "f",
        "arguments": "{}",
        "id": "fc_1",
    }
    memory = Memory("s")
    memory.add_items(
        [reasoning, call, {"type": "function_call_output", "call_id": "c1", "output": "x"}]
    )
    assert [i["type"] for i in memory.items()] == [
        "reasoning",
        "function_call",
        "function_call_output",
    ]


@pytest.mark.parametrize(
    ("items", "field", "text"),
    [
        ([{"content": "no type"}], "type", "needs a string 'type'"),
        ([{"type": "message", "role": "tool", "content": "x"}], "role", "role must be one of"),
        ([{"type": "message", "role": "user", "content": 3}], "content", "must be a string"),
        ([{"type": "message", "role": "user", "content": ["x"]}], "content[0]", "mapping"),
        ([{"type": "function_call", "call_id": "", "name": "f"}], "call_id", "non-empty"),
        (["text"], None, "got str"),
    ],
)
def test_bad_items_are_named(items: list[Any], field: str | None, text: str) -> None:
    with pytest.raises(MessageValidationError, match=text) as info:
        Memory("s").add_items([{"role": "user", "content": "ok"}, *items])
    assert info.value.index == 1
    assert info.value.field == field


def test_not_a_list() -> None:
    with pytest.raises(MessageValidationError, match="list of items"):
        to_messages({"role": "user", "content": "x"})
    with pytest.raises(MessageValidationError, match="summem Message"):
        to_messages([user("x")])


def test_output_without_its_call_is_refused() -> None:
    memory = Memory("s")
    with pytest.raises(MessageValidationError, match="no pending tool call"):
        memory.add_items([{"type": "function_call_output", "call_id": "nope", "output": "x"}])
    assert memory.items() == []


def test_reasoning_is_glued_to_the_next_item() -> None:
    msgs = to_messages(turn(1) + turn(2))
    starts = boundaries(msgs).starts
    # user | reasoning + call + output | reply | user | ...
    assert starts == (0, 1, 4, 5, 6, 9)


def _reducing_memory(threshold: int, target: int) -> Memory:
    reducer = SummarizationReducer(
        FakeSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=threshold,
        target_tokens=target,
        summary_max_tokens=5,
    )
    return Memory("s", reducer=reducer)


def test_reduction_keeps_pairs_and_the_pending_call() -> None:
    memory = _reducing_memory(60, 40)
    for n in range(6):
        memory.add_items(turn(n, text_words=6))
    memory.add_items(turn(6)[:3])  # reasoning + a call whose output has not arrived
    items = memory.items()
    assert memory.summary is not None
    assert items[0]["role"] == "user" and items[0]["content"] == memory.summary.content
    kept = items[1:]
    assert kept[-2:] == turn(6)[1:3]  # the pending call, with its reasoning
    calls = {i["call_id"] for i in kept if i.get("type") == "function_call"}
    outputs = {i["call_id"] for i in kept if i.get("type") == "function_call_output"}
    assert outputs <= calls and calls - outputs == {"call_6"}
    assert kept[0].get("type") != "function_call_output"
    # the view is what history[k:] holds, as given
    k = memory.summary.summary_info.watermark  # type: ignore[union-attr]
    assert kept == to_items(memory.history_messages(k))


def test_items_view_is_recognised_when_sent_back() -> None:
    memory = _reducing_memory(60, 40)
    for n in range(5):
        memory.add_items(turn(n, text_words=6))
    view = memory.items()
    stored = memory.record(to_messages([*view, {"role": "user", "content": "next"}]))
    assert [m.text for m in stored] == ["next"]


def test_chat_messages_come_out_as_items() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    msgs = [
        user([{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "u"}}]),
        assistant("thinking", tool_calls=[call]),
        tool("42", tool_call_id="c1"),
        assistant([{"type": "text", "text": "done"}]),  # type: ignore[arg-type]
    ]
    assert to_items(msgs) == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "hi"},
                {"type": "input_image", "image_url": "u"},
            ],
        },
        {"type": "message", "role": "assistant", "content": "thinking"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "42"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "done"}],
        },
    ]


@pytest.mark.parametrize("counter", [TiktokenCounter("gpt-4o"), ApproxCounter()])
def test_encrypted_reasoning_is_counted(counter: Any) -> None:
    plain = dict(turn(1)[1])
    del plain["encrypted_content"]
    (with_blob,) = to_messages([turn(1)[1]])
    (without,) = to_messages([plain])
    assert counter.count_message(with_blob) > counter.count_message(without) + 100
    assert with_blob.meta[ITEM_META]["encrypted_content"] == ENCRYPTED


async def test_async_memory_items() -> None:
    memory = AsyncMemory("s")
    await memory.add_items(turn(1))
    assert await memory.items() == turn(1)


def test_an_item_given_as_a_chat_message_gets_a_hint() -> None:
    with pytest.raises(
        MessageValidationError, match="'function_call' item\\? add those with add_items"
    ):
        Memory("s").add({"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"})
