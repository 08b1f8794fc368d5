"""Values a store cannot keep are refused alike by every backend, with a summem error.

A message is checked once, where it enters (``Message.from_openai``, the constructor,
``with_meta``), so the memory store refuses exactly what SQLite, Redis and PostgreSQL would fail
to encode, and what one store accepts every other one stores and gives back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summem import Memory
from summem.errors import CorruptRecordError, MessageValidationError
from summem.messages import Message
from summem.stores.base import Store, decode_message, encode_message
from tests.stores.backends import Backend
from tests.stores.helpers import fill, reduce_to

HUGE = 10**5000  # 5,001 digits: str() and json.dumps refuse it under Python's default limit
BIG_OK = 10**600  # still converts in every process (the smallest settable limit is 640 digits)


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


CASES: dict[str, tuple[dict[str, Any], bool]] = {
    "huge int extra": ({"role": "user", "content": "x", "x_n": HUGE}, False),
    "huge negative int in a part": (
        {"role": "user", "content": [{"type": "text", "text": "x", "n": -HUGE}]},
        False,
    ),
    "600-digit int": ({"role": "user", "content": "x", "x_n": BIG_OK}, True),
    "deep extra": ({"role": "user", "content": "x", "x_deep": nested(5000)}, False),
    "nan": ({"role": "user", "content": "x", "x_f": float("nan")}, False),
    "bytes": ({"role": "user", "content": "x", "x_b": b"raw"}, False),
    "set": ({"role": "user", "content": "x", "x_s": {1, 2}}, False),
    "ordinary nesting": ({"role": "user", "content": "x", "x_v": {"a": [1, {"b": 2}]}}, True),
}


def outcome(store: Store, sid: str, data: dict[str, Any]) -> str:
    """``accepted`` (and read back whole), or the error class and the field it names."""
    try:
        with Memory(sid, store=store) as memory:
            memory.add(data)
            exported = memory.to_dict()
            assert exported["history"][0]["m"] == data
            assert memory.history() == [data]
    except MessageValidationError as exc:
        return f"refused: {exc.field}"
    return "accepted"


def test_every_backend_accepts_and_refuses_the_same_messages(backend: Backend) -> None:
    store = backend.make()
    results = {
        name: outcome(store, f"s{i}", data) for i, (name, (data, _)) in enumerate(CASES.items())
    }
    assert {name: r == "accepted" for name, r in results.items()} == {
        name: ok for name, (_, ok) in CASES.items()
    }
    assert results["huge int extra"] == "refused: x_n"
    assert results["huge negative int in a part"] == "refused: content[0].n"
    assert results["set"] == "refused: x_s"


def test_the_constructor_and_meta_refuse_what_a_store_cannot_keep() -> None:
    with pytest.raises(MessageValidationError, match="x_n"):
        Message(role="user", content="x", x_n=HUGE)
    with pytest.raises(MessageValidationError, match=r"meta\.usage"):
        Message.from_openai({"role": "user", "content": "x"}).with_meta(usage={"n": HUGE})


def test_encoding_never_raises_a_raw_error() -> None:
    msg = Message.from_openai({"role": "user", "content": "x"})
    # a message built around the checks (a subclass, a tampered private slot)
    msg.meta["sneaked"] = HUGE
    with pytest.raises(MessageValidationError, match=msg.id):
        encode_message(msg)


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 200_000,
        '{"id": "m_1", "m": {"role": "user", "content": "x", "n": ' + "9" * 5000 + "}}",
        '{"id": "m_1", "m": {"role": "user", "content": "x"}, "x": {"n": ' + "9" * 5000 + "}}",
    ],
)
def test_a_tampered_record_every_store_decodes_is_a_corrupt_record(raw: str) -> None:
    with pytest.raises(CorruptRecordError, match="session 's': stored message"):
        decode_message(raw, session_id="s")


OLD_BIG = 10**1000  # 1,001 digits: releases before the 640-digit entry limit stored such values


def test_a_record_an_older_release_wrote_with_a_big_integer_reads_back(
    persistent: Backend, tmp_path: Path
) -> None:
    """The 640-digit limit applies to new input only: what a store already holds (any integer
    ``json.loads`` reads) stays readable, exports and resumes."""
    store = persistent.make()
    with Memory("s", store=store) as memory:
        first = memory.add({"role": "user", "content": "hello"})
        memory.add({"role": "user", "content": "second"})
    old = {"role": "user", "content": "hello", "x_big": OLD_BIG}
    record = {"id": first.id, "m": old, "x": {"usage": {"n": -OLD_BIG}}}
    persistent.write_message("s", 0, json.dumps(record, separators=(",", ":")))
    with Memory("s", store=persistent.make()) as memory:
        assert memory.history() == [old, {"role": "user", "content": "second"}]
        assert memory.history_messages()[0].meta == {"usage": {"n": -OLD_BIG}}
        memory.add({"role": "user", "content": "third"})  # the session stays writable
        exported = memory.to_dict()
    assert exported["history"][0]["m"] == old
    with Memory.from_dict(exported, store=f"sqlite:///{tmp_path / 'resumed.db'}") as resumed:
        assert resumed.history()[0] == old
        assert resumed.to_dict()["history"] == exported["history"]


def test_a_redis_summary_log_entry_too_deep_to_parse_is_a_corrupt_record(
    redis_backend: Backend,
) -> None:
    store = redis_backend.make()
    fill(store, "s", 4)
    reduce_to(store, "s", 2)
    keys = redis_backend.redis_keys("s")
    redis_backend.redis_client().lset(keys.sums, 0, "[" * 200_000)
    with pytest.raises(CorruptRecordError, match="summary log entry"):
        store.summaries("s")


def test_a_held_message_with_an_older_big_integer_goes_through_a_redactor() -> None:
    """Copies of messages summem holds (here: redacted for the summarizer) keep their integers."""
    from summem.summarizers.hooks import redact_messages

    record = {"id": "m_1", "m": {"role": "user", "content": "card 4111", "x_big": OLD_BIG}}
    held = decode_message(json.dumps(record), session_id="s")
    (redacted,) = redact_messages([held], lambda text: text.replace("4111", "[card]"))
    assert redacted.to_openai() == {"role": "user", "content": "card [card]", "x_big": OLD_BIG}
