"""The session copy's fast lanes on append: what they skip is never needed, what they must
notice they notice (pending calls, provider items, usage, ids given by the caller)."""

from __future__ import annotations

import pytest

from summem import Memory
from summem.errors import MessageValidationError
from summem.events import MemoryEvent, ProviderItemsLeftOut
from summem.messages import Message, parse_message

CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ],
}


def test_a_plain_message_between_a_call_and_its_result_keeps_the_call_pending() -> None:
    memory = Memory("s")
    memory.add({"role": "user", "content": "look it up"})
    memory.add(CALL)
    memory.add({"role": "user", "content": "still there?"})  # the plain lane
    memory.add({"role": "tool", "tool_call_id": "call_1", "content": "found"})
    with pytest.raises(MessageValidationError, match="call_1"):
        memory.add({"role": "tool", "tool_call_id": "call_1", "content": "again"})
    assert [m["role"] for m in memory.messages()] == ["user", "assistant", "user", "tool"]


def test_a_message_given_with_a_stored_id_is_not_stored_twice() -> None:
    memory = Memory("s")
    first = memory.add({"role": "user", "content": "hi"})
    again = memory.add(first)  # a Message, not a dict: its id is looked up
    assert again is first or again.id == first.id
    assert len(memory.history()) == 1
    with pytest.raises(MessageValidationError, match="id"):
        memory.add(parse_message({"role": "user", "content": "other"}).with_id(first.id))


def test_a_compaction_block_in_the_content_parts_is_a_provider_item() -> None:
    """An assistant message whose content parts hold an Anthropic compaction block (no meta,
    no extras) is noticed on append: views for other providers leave the block out."""
    block = {"type": "compaction", "content": "User ordered A1.", "signature": "sig"}
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Noted."}, block]}
    events: list[MemoryEvent] = []
    memory = Memory("s", hooks=[events.append])
    memory.add({"role": "user", "content": "order A1 please"})
    memory.add(reply)
    assert memory.messages(provider="anthropic")[1] == reply
    assert "User ordered" not in repr(memory.messages())
    assert [e.target for e in events if isinstance(e, ProviderItemsLeftOut)] == [None]


def test_usage_in_meta_is_summed_on_append() -> None:
    memory = Memory("s")
    memory.add({"role": "user", "content": "hi"})
    reply = parse_message({"role": "assistant", "content": "hello"})
    memory.add(reply.with_meta(usage={"prompt_tokens": 7, "completion_tokens": 3}))
    memory.add({"role": "user", "content": "bye"})
    assert memory.usage["prompt_tokens"] == 7
    assert memory.usage["completion_tokens"] == 3


def test_the_plain_lane_copies_the_callers_dict() -> None:
    memory = Memory("s")
    given = {"role": "user", "content": "hi"}
    stored = memory.add(given)
    given["content"] = "changed"
    assert isinstance(stored, Message) and stored.content == "hi"
    assert memory.messages() == [{"role": "user", "content": "hi"}]
