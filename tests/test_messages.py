import copy
import json
import sys
from typing import Any, cast

import pytest

from summem.errors import MessageValidationError
from summem.messages import Message, SummaryInfo, assistant, parse_message, parse_messages, tool

CALL: dict[str, Any] = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "lookup", "arguments": "{}"},
}

ROUND_TRIP: list[dict[str, Any]] = [
    {"role": "system", "content": "be brief"},
    {"role": "developer", "content": "use tools"},
    {"role": "user", "content": "hi", "name": "ann"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            {"type": "file", "file": {"file_id": "file-1"}},
        ],
    },
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "content": '{"ok": true}', "tool_call_id": "call_1"},
    {"role": "assistant", "content": "done", "refusal": None, "audio": None},
    {"role": "user", "content": "x", "cache_control": {"type": "ephemeral"}},
    {  # provider extras inside parts and tool calls, and unknown part types, are kept too
        "role": "user",
        "content": [
            {"type": "text", "text": "t", "cache_control": {"type": "ephemeral"}},
            {
                "type": "image_url",
                "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "high"},
                "vendor": 1,
            },
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "mp3"}},
            {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE"}},
            {"type": "future_part", "payload": {"a": [1, None]}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{**CALL, "index": 0, "function": {**CALL["function"], "strict": True}}],
        "reasoning_content": "thought",
    },
]


@pytest.mark.parametrize("data", ROUND_TRIP, ids=lambda d: d["role"])
def test_round_trip_is_identical(data) -> None:
    original = copy.deepcopy(data)
    msg = parse_message(data)
    assert msg.to_openai() == original
    assert data == original  # input untouched
    out = msg.to_openai()
    out["content"] = "mutated"
    assert msg.to_openai() == original  # output is a copy


@pytest.mark.parametrize(
    "data",
    [
        *ROUND_TRIP,
        # OpenAI's documented order for a tool result, and extras before known fields.
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
        {"cache_control": {"type": "ephemeral"}, "content": "x", "role": "user", "name": "b"},
    ],
    ids=lambda d: d["role"],
)
def test_round_trip_keeps_the_key_order(data) -> None:
    msg = parse_message(data)
    assert json.dumps(msg.to_openai()) == json.dumps(data)
    assert json.dumps(msg.with_meta(seen=True).to_openai()) == json.dumps(data)


def test_content_null_beside_tool_calls_is_kept() -> None:
    out = parse_message(ROUND_TRIP[4]).to_openai()
    assert "content" in out and out["content"] is None


def test_ids_are_stable_and_unique() -> None:
    a, b = parse_messages([{"role": "user", "content": "x"}] * 2)
    assert a.id != b.id
    assert a.id == a.id
    assert Message.from_openai({"role": "user", "content": "x"}, id="m1").id == "m1"
    assert Message.from_openai(a) is a


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"role": "robot", "content": "x"}, "role"),
        ({"content": "x"}, "role"),
        ({"role": "tool", "content": "x"}, "tool_call_id"),
        ({"role": "user", "content": 5}, "content"),
        ({"role": "user", "content": None}, "content"),
        ({"role": "user", "content": ["text"]}, "content[0]"),
        ({"role": "user", "content": [{"text": "no type"}]}, "content[0].type"),
        ({"role": "user", "content": [{"type": "text"}]}, "content[0].text"),
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": {}}]},
            "content[0].image_url.url",
        ),
        (
            {"role": "user", "content": [{"type": "input_audio", "input_audio": "AAAA"}]},
            "content[0].input_audio",
        ),
        ({"role": "user", "content": [{"type": "file", "file": "f"}]}, "content[0].file"),
        ({"role": "tool", "content": "x", "tool_call_id": 5}, "tool_call_id"),
        ({"role": "user", "content": "x", "tool_call_id": "c"}, "tool_call_id"),
        ({"role": "user", "content": "x", "tool_calls": [CALL]}, "tool_calls"),
        ({"role": "assistant", "tool_calls": [{"type": "function"}]}, "tool_calls[0].id"),
        ({"role": "assistant", "tool_calls": [CALL, CALL]}, "tool_calls[1].id"),
        ({"role": "user", "content": "x", "name": 3}, "name"),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}],
            },
            "tool_calls[0].function.arguments",
        ),
    ],
)
def test_bad_messages_name_index_and_field(bad, field) -> None:
    batch = [{"role": "user", "content": "fine"}, bad]
    with pytest.raises(MessageValidationError) as info:
        parse_messages(batch)
    assert info.value.index == 1
    assert "message 1" in str(info.value)
    assert info.value.field == field
    assert f"field {field!r}" in str(info.value)


def test_not_a_mapping() -> None:
    with pytest.raises(MessageValidationError, match="message 0: expected a mapping"):
        parse_messages(["hello"])  # type: ignore[list-item]
    with pytest.raises(MessageValidationError, match="list of messages"):
        parse_messages({"role": "user", "content": "x"})  # type: ignore[dict-item]


def test_summary_marker_never_reaches_the_provider() -> None:
    msg = parse_message({"role": "user", "content": "S"}).as_summary(SummaryInfo(watermark=4))
    assert msg.is_summary and msg.summary_info is not None
    assert msg.to_openai() == {"role": "user", "content": "S"}
    assert msg.with_id("other").summary_info == msg.summary_info


def test_helpers_and_text() -> None:
    call = assistant(tool_calls=[CALL])
    assert call.tool_call_ids == ("call_1",)
    assert tool("r", tool_call_id="call_1").tool_call_id == "call_1"
    assert parse_message(ROUND_TRIP[3]).text == "look"
    assert "tool_calls=1" in repr(call)


def test_an_openai_sdk_message_object_is_accepted_as_its_dict() -> None:
    from openai.types.chat import ChatCompletionMessage

    from summem.memory import Memory

    reply = ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": [CALL], "annotations": []}
    )
    assert parse_message(reply).to_openai() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [CALL],
    }
    memory = Memory("s")
    memory.add({"role": "user", "content": "look it up"})
    memory.add(reply)  # what the openai tool-calling recipe passes back
    memory.add({"role": "tool", "tool_call_id": "call_1", "content": "{}"})
    assert [m["role"] for m in memory.messages()] == ["user", "assistant", "tool"]
    with pytest.raises(MessageValidationError, match="message 1: expected a mapping"):
        parse_messages([reply, cast(Any, object())])


HOSTILE = [
    ({"role": "user", "content": "lone \ud800 surrogate"}, "content", "surrogate"),
    (
        {"role": "user", "content": [{"type": "text", "text": "ok \udfff"}]},
        "content[0].text",
        "surrogate",
    ),
    ({"role": "user", "content": "x", "extra": float("nan")}, "extra", "not a JSON number"),
    ({"role": "user", "content": "x", "extra": float("inf")}, "extra", "not a JSON number"),
    ({"role": "user", "content": "x", "extra": {1: "a"}}, "extra", "keys must be strings"),
    ({"role": "user", "content": "x", "extra": b"bytes"}, "extra", "not a JSON value"),
]


@pytest.mark.parametrize(("data", "field", "reason"), HOSTILE)
def test_values_that_cannot_be_stored_as_json_are_refused_at_add(
    data: dict[str, Any], field: str, reason: str
) -> None:
    from summem import Memory
    from summem.errors import MessageValidationError

    memory = Memory("hostile")
    with pytest.raises(MessageValidationError, match=reason) as info:
        memory.add(data)
    assert info.value.field == field
    assert memory.history() == []


def test_deep_nesting_is_refused_without_a_recursion_error() -> None:
    from summem import Memory
    from summem.errors import MessageValidationError

    deep: Any = "leaf"
    for _ in range(3000):
        deep = [deep]
    with pytest.raises(MessageValidationError, match="nested deeper"):
        Memory("deep").add({"role": "user", "content": "x", "extra": deep})


def test_meta_must_be_json_too() -> None:
    from summem.errors import MessageValidationError
    from summem.messages import user

    with pytest.raises(MessageValidationError, match="not a JSON number"):
        user("x").with_meta(usage={"total": float("nan")})


def test_message_ids_are_unique_and_well_formed() -> None:
    from summem.messages import new_message_id

    ids = [new_message_id() for _ in range(3000)]  # more than one batch drawn ahead
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("m_") and len(i) == 26 and int(i[2:], 16) >= 0 for i in ids)


_FORK_FROM_C = """
import ctypes, os, select, signal
from summem.messages import new_message_id

new_message_id()  # the parent has made ids before it forks
read, write = os.pipe()
pid = ctypes.PyDLL(None, use_errno=True).fork()  # libc's fork: no Python fork hook runs
if pid == 0:
    os.write(write, new_message_id().encode())
    os._exit(0)
os.close(write)
ready, _, _ = select.select([read], [], [], 60)
child_id = os.read(read, 64).decode() if ready else ""
if not ready:  # a stuck child fails the test instead of hanging the run in waitpid
    os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print(child_id, new_message_id())
"""


@pytest.mark.skipif(sys.platform != "linux", reason="forks through libc, as uWSGI does")
def test_a_child_forked_from_c_does_not_reuse_its_parents_ids() -> None:
    """uWSGI's pre-fork mode forks from C: no Python fork hooks run in the child.

    The fork runs in a fresh interpreter with one thread. Forked from a pytest-xdist worker,
    the child could inherit the GIL's mutex locked by the worker's other thread, mid-handoff,
    and hang on its first switch (seen once under load); uWSGI forks before any thread runs.
    The child's first id is compared with the parent's next: from the same generator state
    (no reseed after the fork) the two would be equal.
    """
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-c", _FORK_FROM_C], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    child_id, parent_next = done.stdout.split()
    assert child_id.startswith("m_")
    assert child_id != parent_next


def test_a_flat_message_keeps_nothing_of_the_callers_dict() -> None:
    data: dict[str, Any] = {"role": "user", "content": "hi", "x_extra": 1}
    msg = Message.from_openai(data)
    data["content"] = "changed"
    data["x_extra"] = 2
    data["added"] = True
    assert msg.to_openai() == {"role": "user", "content": "hi", "x_extra": 1}


def test_ids_do_not_read_os_urandom_once_seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.urandom releases the GIL: per id, a background worker could take the turn's thread."""
    import os

    from summem.messages import new_message_id

    new_message_id()  # seeded in this process

    def refuse(n: int) -> bytes:
        raise AssertionError("os.urandom on the hot path")

    monkeypatch.setattr(os, "urandom", refuse)
    ids = {new_message_id() for _ in range(1000)}
    assert len(ids) == 1000


def test_a_child_forked_by_python_draws_other_ids() -> None:
    from summem.messages import new_message_id
    from tests.fakes.fork import in_forked_child

    new_message_id()
    child_id = in_forked_child(new_message_id)
    assert child_id.startswith("m_") and len(child_id) == 26
    assert child_id != new_message_id()


def test_a_legacy_function_result_is_refused_with_what_to_send_instead() -> None:
    from summem import Memory

    memory = Memory("s")
    memory.add({"role": "user", "content": "weather?"})
    call = {"role": "assistant", "content": None, "function_call": {"name": "w", "arguments": "{}"}}
    result = {"role": "function", "name": "w", "content": "sunny"}
    with pytest.raises(MessageValidationError) as info:
        memory.extend([call, result])
    text = str(info.value)
    assert "message 1" in text and "legacy result of function 'w'" in text
    assert '"tool_calls"' in text and '"role": "tool", "tool_call_id"' in text
    assert memory.history() == [{"role": "user", "content": "weather?"}]  # neither half kept
    with pytest.raises(MessageValidationError, match="legacy result of function 'w'"):
        parse_message(result)
