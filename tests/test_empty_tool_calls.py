"""``tool_calls: []`` on an assistant message means "no tool calls" (OpenAI rejects it: 400).

Some SDK dumps and clients send it. It is dropped when the message is parsed: on add, on
reload from a store that an older summem wrote it to, and on export and replay.
"""

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from summem import Memory
from summem.cli.transcript import read_transcript
from summem.errors import MessageValidationError
from summem.messages import parse_message
from summem.stores.sqlite import SQLiteStore


def test_parsed_without_the_empty_list() -> None:
    msg = parse_message({"role": "assistant", "content": "hi", "tool_calls": []})
    assert msg.tool_calls is None
    assert msg.to_openai() == {"role": "assistant", "content": "hi"}


def test_other_fields_and_their_order_are_kept() -> None:
    data: dict[str, Any] = {"content": "hi", "tool_calls": [], "role": "assistant", "refusal": None}
    assert list(parse_message(data).to_openai().items()) == [
        ("content", "hi"),
        ("role", "assistant"),
        ("refusal", None),
    ]


def test_caller_dict_is_not_changed() -> None:
    data: dict[str, Any] = {"role": "assistant", "content": "hi", "tool_calls": []}
    parse_message(data)
    assert data == {"role": "assistant", "content": "hi", "tool_calls": []}


def test_on_another_role_it_is_still_an_error() -> None:
    with pytest.raises(MessageValidationError, match="only allowed on role 'assistant'"):
        parse_message({"role": "user", "content": "x", "tool_calls": []})


def test_memory_gives_back_a_message_providers_accept() -> None:
    memory = Memory("s", store="memory://")
    memory.add({"role": "user", "content": "hi"})
    memory.add({"role": "assistant", "content": "hello", "tool_calls": []})
    assert memory.messages()[-1] == {"role": "assistant", "content": "hello"}
    assert memory.history()[-1] == {"role": "assistant", "content": "hello"}
    # the whole list resent with the empty list is recognised, not recorded twice
    memory.record(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello", "tool_calls": []},
            {"role": "user", "content": "next"},
        ]
    )
    assert [m["content"] for m in memory.history()] == ["hi", "hello", "next"]


def test_with_no_content_it_is_refused_as_nothing_to_send() -> None:
    memory = Memory("s", store="memory://")
    with pytest.raises(MessageValidationError, match="needs content or tool_calls"):
        memory.add({"role": "assistant", "content": None, "tool_calls": []})
    assert memory.history() == []


def _stored_by_an_older_summem(path: Path) -> None:
    """A session whose reply was stored, as older summem did, with ``tool_calls: []``."""
    with Memory("s", store=SQLiteStore(path)) as memory:
        memory.add({"role": "user", "content": "hi"})
        memory.add({"role": "assistant", "content": "hello"})
    con = sqlite3.connect(path)
    (body,) = con.execute("SELECT body FROM messages WHERE position = 1").fetchone()
    record = json.loads(body)
    record["m"]["tool_calls"] = []
    with con:
        con.execute("UPDATE messages SET body = ? WHERE position = 1", (json.dumps(record),))
    con.close()


def test_stored_by_an_older_summem_reloads_exports_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    _stored_by_an_older_summem(path)
    with Memory("s", store=SQLiteStore(path)) as memory:
        assert memory.messages()[-1] == {"role": "assistant", "content": "hello"}
        memory.add({"role": "user", "content": "more"})
        exported = memory.to_dict()
    assert "tool_calls" not in json.dumps(exported)
    other = Memory.from_dict(exported, store="memory://")
    assert [m["content"] for m in other.messages()] == ["hi", "hello", "more"]
    # the exported history, replayed by the CLI
    items: list[dict[str, Any]] = [
        {"id": m.id, "message": m.to_openai()} for m in other.history_messages()
    ]
    items[1]["message"]["tool_calls"] = []
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps(items))
    replayed = read_transcript(transcript)
    assert [m.to_openai() for m in replayed.messages][1] == {
        "role": "assistant",
        "content": "hello",
    }
