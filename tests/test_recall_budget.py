"""The recall tool's reply honours its budget, whatever the results hold (issue #33).

Every part of a result counts: content text, content parts, tool calls' arguments and names,
images and audio (placeholders, never base64), provider extra fields; and all results share
one budget (a tool group of 60 parallel results does not get 60 small allowances).
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

from summem import AsyncMemory, Memory
from summem.recall.tool import REPLY_FLOOR_CHARS, hits_json
from tests.fakes.memory import small_reducer
from tests.fakes.messages import turn, u

BUDGET = 500
LIMIT = max(BUDGET * 4, REPLY_FLOOR_CHARS)  # characters: the tool's four per token


def bounded(reply: str) -> dict[str, Any]:
    assert len(reply) <= LIMIT, f"{len(reply)} characters for a budget of {LIMIT}"
    data: dict[str, Any] = json.loads(reply)
    return data


def filled(memory: Memory, *first: dict[str, Any]) -> Memory:
    memory.extend(list(first))
    for i in range(12):
        memory.extend(turn(i))
    return memory


def ask(memory: Memory, query: str) -> dict[str, Any]:
    return bounded(memory.recall_tool(max_tokens=BUDGET)(json.dumps({"query": query})))


def test_tool_call_arguments_count() -> None:
    args = json.dumps({"order": "BW-58214-K", "blob": "y" * 1_400_000})
    calls = [{"id": "c1", "type": "function", "function": {"name": "save", "arguments": args}}]
    memory = filled(
        Memory("s", reducer=small_reducer()),
        u("save order BW-58214-K"),
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "saved"},
    )
    reply = ask(memory, "BW-58214-K")
    call = reply["results"][0]
    assert call["role"] in ("user", "assistant")
    text = json.dumps(reply)
    assert "BW-58214-K" in text and "clipped" in text


def test_an_image_is_a_placeholder_and_counts() -> None:
    png = base64.b64encode(bytes(range(256)) * 2800).decode()  # about 960 KB of base64
    parts = [
        {"type": "text", "text": "invoice INV-77 attached"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
        {"type": "input_audio", "input_audio": {"data": png[:200_000], "format": "wav"}},
    ]
    memory = filled(Memory("s", reducer=small_reducer()), u(parts))  # type: ignore[arg-type]
    reply = ask(memory, "INV-77")
    first = reply["results"][0]
    assert "INV-77" in first["content"][0]["text"]
    text = json.dumps(reply)
    assert png[:100] not in text and "image" in text and "audio" in text


def test_many_results_share_one_budget() -> None:
    n = 60
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        for i in range(n)
    ]
    results = [
        {"role": "tool", "tool_call_id": f"c{i}", "content": f"parcel P{i} status shipped"}
        for i in range(n)
    ]
    memory = filled(
        Memory("s", reducer=small_reducer()),
        u("where are my parcels"),
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    )
    reply = ask(memory, "P7")
    assert 1 <= len(reply["results"]) < n
    assert "left out" in reply["note"]
    # the match itself is never crowded out by the rest of its tool group
    assert any(r.get("content") == "parcel P7 status shipped" for r in reply["results"])


def test_names_and_extra_fields_count() -> None:
    memory = filled(
        Memory("s", reducer=small_reducer()),
        u("the code is QX-311", name="n" * 60, vendor_blob="z" * 900_000, nested={"a": ["b" * 9]}),
    )
    reply = ask(memory, "QX-311")
    assert reply["results"][0]["content"] == "the code is QX-311"


def test_async_tool_is_bounded_too() -> None:
    async def run() -> str:
        memory = AsyncMemory("s", reducer=small_reducer())
        await memory.add(u("the code is QX-311 " + "w " * 900_000))
        for i in range(12):
            await memory.extend(turn(i))
        reply: str = await memory.recall_tool(max_tokens=BUDGET).acall('{"query": "QX-311"}')
        await memory.close()
        return reply

    bounded(asyncio.run(run()))


@pytest.mark.parametrize("max_tokens", [1, 10, 50, 200, 500, 2000])
def test_hits_json_never_passes_its_budget(max_tokens: int) -> None:
    memory = filled(
        Memory("s", reducer=small_reducer()),
        u('quote " and \\ and \n and ünïcode ' * 2000, weird={"k" * 500: [1, 2.5, None, True]}),
    )
    hits = memory.recall("quote", k=20, max_tokens=100_000, evicted_only=False)
    hits += memory.recall("result", k=20, max_tokens=100_000, evicted_only=False)
    reply = hits_json(hits, max_tokens=max_tokens)
    assert len(reply) <= max(max_tokens * 4, REPLY_FLOOR_CHARS)
    assert json.loads(reply)["results"]


def test_a_masking_stub_is_compact_whatever_the_call_holds() -> None:
    # the stub says it is compact (the call in about 90 characters, the result's key values):
    # a huge tool name or argument key must not make it as large as what it stands for
    from summem.messages import Message
    from summem.reducers.masking import stub_for

    result = Message.from_openai({"role": "tool", "tool_call_id": "c1", "content": "x " * 90_000})
    stub = stub_for(result, "n" * 100_000, json.dumps({"k" * 50_000: "v", "id": "A1"}))
    assert len(stub.text) <= 1000


def test_the_transcript_caps_a_message_with_many_calls_as_a_whole() -> None:
    # message_max_chars is "any one message's share of the transcript": calls count too
    from summem.messages import Message
    from summem.summarizers.render import render_transcript

    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": "a" * 3000}}
        for i in range(100)
    ]
    msg = Message.from_openai({"role": "assistant", "content": "hi", "tool_calls": calls})
    text = render_transcript([msg], tool_result_max_chars=2000, message_max_chars=16_000)
    assert len(text) <= 16_000 + 200


KEY_BODY = base64.b64encode(bytes(range(7, 229))).decode().rstrip("=")  # 296 characters


def test_an_exact_value_that_fits_comes_back_untouched() -> None:
    """A key-like token (an SSH public key) is an exact value recall is for, not binary data."""
    key = f"ssh-rsa AAAAB3{KEY_BODY} user@host"
    memory = filled(Memory("s", reducer=small_reducer()), u("my public key is " + key))
    reply = json.loads(memory.recall_tool()(json.dumps({"query": "public key"})))
    assert reply["results"][0]["content"] == "my public key is " + key
    assert "binary data" not in json.dumps(reply)


def test_data_urls_stay_placeholders_and_base64_goes_when_clipped() -> None:
    png = base64.b64encode(bytes(range(256)) * 40).decode()  # 13,656 characters
    memory = filled(
        Memory("s", reducer=small_reducer()),
        u(f"logo LG-5 is data:image/png;base64,{png[:300]} ok"),
        u(f"dump DP-9 is {png} end"),
    )
    small = memory.recall_tool()(json.dumps({"query": "LG-5"}))
    assert png[:100] not in small and "[inline data: image/png]" in small
    clipped = ask(memory, "DP-9")
    assert png[:100] not in json.dumps(clipped)
    assert "[binary data: 13656 characters]" in json.dumps(clipped)
