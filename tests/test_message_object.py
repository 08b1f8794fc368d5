"""``Message`` and ``SummaryInfo`` as plain immutable classes: what the pydantic models they
were gave callers (methods, equality, hashing, pickling, errors) is still there, and either
can be a field of a user's pydantic model."""

from __future__ import annotations

import copy
import json
import pickle
import weakref
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from summem.errors import MessageTypeError, MessageValidationError
from summem.messages import Message, SummaryInfo, parse_message
from summem.stores.base import decode_message, encode_message

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


class Str(str):
    """A ``str`` subclass, as some clients hand over."""


def test_a_message_cannot_be_changed_and_says_how_to_make_a_changed_copy() -> None:
    msg = parse_message({"role": "user", "content": "hi"})
    for name in ("content", "role", "anything"):
        with pytest.raises(AttributeError, match=r"immutable.*model_copy"):
            setattr(msg, name, "x")
    with pytest.raises(AttributeError, match="immutable"):
        del msg.content
    assert msg.to_openai() == {"role": "user", "content": "hi"}


def test_model_copy_checks_the_update_keeps_the_id_and_counts_anew() -> None:
    msg = parse_message({"role": "user", "content": "hi", "x_note": 1}).with_meta(k=1)
    msg.token_cache["c"] = 5
    changed = msg.model_copy(update={"content": "hello"})
    assert changed.to_openai() == {"role": "user", "content": "hello", "x_note": 1}
    assert (changed.id, changed.meta, changed.token_cache) == (msg.id, {"k": 1}, {})
    assert msg.content == "hi"  # the original is unchanged
    with pytest.raises(MessageValidationError, match="tool_call_id"):
        msg.model_copy(update={"tool_call_id": "c1"})
    same = msg.model_copy()
    assert same == msg and same is not msg


def test_model_dump_gives_the_fields_then_the_extras() -> None:
    msg = parse_message({"x_first": [1, (2, 3)], "content": "hi", "role": "user"})
    assert msg.model_dump() == {
        "role": "user",
        "content": "hi",
        "name": None,
        "tool_calls": None,
        "tool_call_id": None,
        "x_first": [1, (2, 3)],
    }
    assert list(msg.model_dump(exclude_unset=True)) == ["role", "content", "x_first"]
    assert msg.model_dump(exclude_none=True) == {
        "role": "user",
        "content": "hi",
        "x_first": [1, (2, 3)],
    }
    assert msg.model_dump(mode="json")["x_first"] == [1, [2, 3]]
    assert json.loads(msg.model_dump_json(exclude_unset=True)) == {
        "role": "user",
        "content": "hi",
        "x_first": [1, [2, 3]],
    }
    assert list(msg.to_openai()) == ["x_first", "content", "role"]  # as given
    dumped = msg.model_dump()
    dumped["x_first"].append(4)
    assert msg.model_extra == {"x_first": [1, (2, 3)]}  # a fresh copy was dumped
    with pytest.raises(ValueError, match="mode"):
        msg.model_dump(mode="yaml")  # type: ignore[arg-type]


def test_extras_read_as_attributes_and_model_extra() -> None:
    msg = parse_message({"role": "assistant", "content": "no", "refusal": "sorry"})
    assert msg.refusal == "sorry"  # type: ignore[attr-defined]  # extras are not typed
    assert msg.model_extra == {"refusal": "sorry"}
    assert msg.model_fields_set == {"role", "content", "refusal"}
    assert parse_message({"role": "user", "content": "x"}).model_extra == {}
    with pytest.raises(AttributeError, match="no attribute 'audio'"):
        msg.audio  # type: ignore[attr-defined]  # noqa: B018


def test_keyword_construction_checks_copies_and_orders_as_before() -> None:
    parts = [{"type": "text", "text": "a"}]
    msg = Message(content=parts, role=Str("user"), x_tag="t")
    parts[0]["text"] = "changed"
    assert msg.to_openai() == {
        "role": "user",
        "content": [{"type": "text", "text": "a"}],
        "x_tag": "t",
    }
    assert list(msg.to_openai()) == ["role", "content", "x_tag"]  # model_dump's order
    assert type(msg.role) is str  # a subclass becomes the plain text, as pydantic made it
    other = Message(role="user", content=[{"type": "text", "text": "a"}], x_tag="t")
    assert msg.id.startswith("m_") and other.id != msg.id  # each its own id, as from a dict
    assert msg.same_content(other) and msg.with_id(other.id) == other
    with pytest.raises(MessageValidationError, match="field 'tool_call_id'"):
        Message(role="tool", content="x")
    with pytest.raises(MessageTypeError, match="not a JSON value"):
        Message(role="user", content="x", x_obj=object())


def test_equality_and_hashing_follow_the_frozen_models() -> None:
    data = {"role": "user", "content": "hi"}
    one = Message.from_openai(data, id="m_1")
    assert one == Message.from_openai(dict(data), id="m_1")
    assert one != Message.from_openai(data, id="m_2")  # the id is part of it
    assert one != Message.from_openai({"content": "hi", "role": "user"}, id="m_1")  # key order
    assert one != one.with_meta(k=1)
    assert one != data  # a dict is not a message
    assert hash(one) == hash(Message.from_openai(data, id="m_2"))  # hashed over the fields
    assert len({one, Message.from_openai(data, id="m_1")}) == 1
    with pytest.raises(TypeError):
        hash(parse_message({"role": "assistant", "content": None, "tool_calls": [CALL]}))


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_pickling_and_copying_keep_everything(how: str) -> None:
    info = SummaryInfo(covered_ids=["a", "b"], watermark=2, extra={"p": [1]})
    msg = (
        parse_message({"role": "assistant", "content": None, "tool_calls": [CALL], "x": {"y": 1}})
        .as_summary(info)
        .with_meta(k="v")
    )
    msg.token_cache["c"] = 3
    if how == "pickle":
        back = pickle.loads(pickle.dumps(msg))
    elif how == "copy":
        back = copy.copy(msg)
    else:
        back = copy.deepcopy(msg)
    assert back == msg
    assert (back.id, back.summary_info, back.meta, back.token_cache) == (
        msg.id,
        info,
        {"k": "v"},
        {"c": 3},
    )
    assert back.to_openai() == msg.to_openai() and back.model_extra == {"x": {"y": 1}}


def test_a_message_and_its_provenance_can_be_weakly_referenced() -> None:
    info = SummaryInfo()
    msg = parse_message({"role": "user", "content": "hi"}).as_summary(info)
    assert weakref.ref(msg)() is msg and weakref.ref(info)() is info


def test_summary_info_checks_each_field_as_the_model_did() -> None:
    info = SummaryInfo(
        covered_ids=[Str("a")], watermark="3", tokens=4.0, created_at="2024-01-01T00:00:00Z"
    )
    assert info.covered_ids == ("a",) and type(info.covered_ids[0]) is str
    assert (info.watermark, info.tokens) == (3, 4)
    assert info.created_at == datetime(2024, 1, 1, tzinfo=timezone.utc)
    bad: list[tuple[dict[str, Any], str]] = [
        ({"covered_ids": ["a", "a"]}, "covers 'a' twice"),
        ({"covered_ids": "ab"}, "summary_info.covered_ids"),
        ({"covered_ids": [1]}, r"summary_info.covered_ids\[0\]"),
        ({"watermark": "x"}, "summary_info.watermark"),
        ({"watermark": 1.5}, "summary_info.watermark"),
        ({"summarizer": 3}, "summary_info.summarizer"),
        ({"created_at": "yesterday"}, "summary_info.created_at"),
        ({"extra": [1]}, "summary_info.extra"),
        ({"unknown": 1}, "summary_info.unknown"),
    ]
    for fields, error in bad:
        with pytest.raises(MessageValidationError, match=error):
            SummaryInfo.model_validate(fields)
    with pytest.raises(MessageValidationError, match="mapping"):
        SummaryInfo.model_validate([("watermark", 1)])
    with pytest.raises(AttributeError, match="immutable"):
        info.watermark = 5
    assert info.model_copy(update={"watermark": 9}).watermark == 9 and info.watermark == 3
    with pytest.raises(MessageValidationError, match="watermark"):
        info.model_copy(update={"watermark": "nine"})


def test_summary_info_json_is_what_the_pydantic_model_wrote() -> None:
    """Records stored by earlier releases (pydantic's JSON) read back, and new ones are
    written the same way (UTC as ``Z``)."""
    written_by_pydantic = (
        '{"covered_ids":["m_a","m_b"],"previous_summary_id":null,"watermark":2,'
        '"summarizer":"extractive","model":null,"prompt":null,"prompt_hash":null,"tokens":7,'
        '"created_at":"2026-11-29T00:09:17.002256Z","extra":{"provenance":[{"ids":["m_a"]}]}}'
    )
    info = SummaryInfo.model_validate(json.loads(written_by_pydantic))
    assert info.model_dump_json() == written_by_pydantic
    assert (
        SummaryInfo(created_at=datetime(2024, 1, 1, tzinfo=timezone.utc)).model_dump(mode="json")[
            "created_at"
        ]
        == "2024-01-01T00:00:00Z"
    )
    east = datetime(2024, 1, 1, 0, 0, 0, 5, tzinfo=timezone(timedelta(hours=1)))
    assert SummaryInfo(created_at=east).model_dump(mode="json")["created_at"] == (
        "2024-01-01T00:00:00.000005+01:00"
    )
    msg = parse_message({"role": "user", "content": "s"}).as_summary(info)
    back = decode_message(encode_message(msg), session_id="s")
    assert back == msg and back.summary_info == info
    odd = SummaryInfo(extra={"cost": float("nan"), "more": [float("inf"), (1, 2)], "by": {3: 4}})
    assert odd.model_dump(mode="json")["extra"] == {
        "cost": None,  # JSON has no NaN: pydantic wrote null, and a store can keep it
        "more": [None, [1, 2]],
        "by": {"3": 4},
    }
    assert odd.extra["cost"] != odd.extra["cost"]  # the value itself is kept as given


def test_a_message_and_its_provenance_are_fields_of_a_users_pydantic_model() -> None:
    from pydantic import BaseModel, ValidationError

    class Turn(BaseModel):
        message: Message
        earlier: list[Message]
        info: SummaryInfo | None = None

    msg = parse_message({"role": "user", "content": "hi", "x_tag": 1})
    turn = Turn(
        message=msg, earlier=[{"role": "assistant", "content": "yo"}], info={"watermark": 1}
    )
    assert turn.message is msg  # a message is taken as it is
    assert type(turn.earlier[0]) is Message and turn.earlier[0].text == "yo"
    assert turn.info == SummaryInfo(watermark=1, created_at=turn.info.created_at)  # type: ignore[union-attr]
    dumped = turn.model_dump()
    assert dumped["message"] == {"role": "user", "content": "hi", "x_tag": 1}
    assert isinstance(dumped["info"]["created_at"], datetime)
    as_json = json.loads(turn.model_dump_json())
    assert as_json["earlier"] == [{"role": "assistant", "content": "yo"}]
    assert as_json["info"]["created_at"].endswith("Z")
    again = Turn.model_validate_json(turn.model_dump_json())
    assert again.message.to_openai() == msg.to_openai() and again.info == turn.info
    schema = Turn.model_json_schema()
    assert schema["properties"]["message"]["required"] == ["role"]
    # the provenance's schema names its fields: with additionalProperties false and none
    # listed, it would admit only {} and refuse every real record
    [info_schema] = [s for s in schema["properties"]["info"]["anyOf"] if s.get("type") == "object"]
    assert set(info_schema["properties"]) == set(as_json["info"])
    assert info_schema["additionalProperties"] is False
    with pytest.raises(ValidationError, match=r"field 'tool_call_id'"):
        Turn(message={"role": "tool", "content": "x"}, earlier=[])
    with pytest.raises(ValidationError, match=r"summary_info.watermark"):
        Turn(message=msg, earlier=[], info={"watermark": "many"})


def test_summary_provenance_extras_are_written_as_pydantic_json_mode_wrote_them() -> None:
    """A summarizer's extra holding a datetime, bytes, a set or an enum is stored (JSON mode
    converts them, as the pydantic model did), not refused when the summary is committed."""
    import enum
    import uuid
    from decimal import Decimal

    class Kind(enum.Enum):
        LLM = "llm"

    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    key = uuid.UUID(int=1)
    info = SummaryInfo(
        extra={
            "at": when,
            "day": when.date(),
            "raw": b"xy",
            "tags": {"a"},
            "kind": Kind.LLM,
            "id": key,
            "cost": Decimal("0.5"),
            "n": [1, True, None, "t"],
        }
    )
    assert info.model_dump(mode="json")["extra"] == {
        "at": "2024-01-01T00:00:00Z",
        "day": "2024-01-01",
        "raw": "xy",
        "tags": ["a"],
        "kind": "llm",
        "id": str(key),
        "cost": "0.5",
        "n": [1, True, None, "t"],
    }
    assert info.extra["at"] is when  # the value itself is kept as given
    msg = parse_message({"role": "user", "content": "s"}).as_summary(info)
    back = decode_message(encode_message(msg), session_id="s")
    assert back.summary_info is not None
    assert back.summary_info.extra["at"] == "2024-01-01T00:00:00Z"


def test_summary_time_written_with_z_reads_back_on_every_supported_python() -> None:
    """``created_at`` is written ``...Z``; Python 3.10's ``fromisoformat`` cannot read a
    ``Z``, so it is read as ``+00:00`` (requires-python is >= 3.10)."""
    for text in ("2026-11-29T00:09:17.002256Z", "2026-11-29T00:09:17z"):
        moment = SummaryInfo(created_at=text).created_at
        assert moment.utcoffset() == timedelta(0)
        assert SummaryInfo(created_at=text).model_dump(mode="json")["created_at"].endswith("Z")
