"""The read-only containers messages() hands out: shared, refusing changes, easy to copy."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from summem.session.readonly import ReadOnlyDict, ReadOnlyList, freeze, thaw

MESSAGE: dict[str, Any] = {
    "role": "assistant",
    "content": [{"type": "text", "text": "hi"}],
    "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
}


def test_freeze_makes_every_level_read_only() -> None:
    frozen = freeze(MESSAGE)
    assert isinstance(frozen, dict) and isinstance(frozen, ReadOnlyDict)
    assert isinstance(frozen["tool_calls"], list) and isinstance(frozen["tool_calls"], ReadOnlyList)
    assert frozen == MESSAGE
    changes = [
        lambda: frozen.__setitem__("role", "user"),
        lambda: frozen.__delitem__("role"),
        lambda: frozen.update(role="user"),
        lambda: frozen.pop("role"),
        lambda: frozen.popitem(),
        lambda: frozen.setdefault("name", "x"),
        lambda: frozen.clear(),
        lambda: frozen["tool_calls"].append({}),
        lambda: frozen["tool_calls"].extend([{}]),
        lambda: frozen["tool_calls"].insert(0, {}),
        lambda: frozen["tool_calls"].pop(),
        lambda: frozen["tool_calls"].remove(frozen["tool_calls"][0]),
        lambda: frozen["tool_calls"].sort(),
        lambda: frozen["tool_calls"].reverse(),
        lambda: frozen["tool_calls"].clear(),
        lambda: frozen["tool_calls"].__setitem__(0, {}),
        lambda: frozen["tool_calls"].__delitem__(0),
        lambda: frozen["tool_calls"][0]["function"].__setitem__("name", "g"),
        lambda: frozen["content"][0].__setitem__("text", "bye"),
    ]
    for change in changes:
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert frozen == MESSAGE


def test_in_place_operators_are_refused() -> None:
    frozen = freeze(MESSAGE)
    calls = frozen["tool_calls"]
    with pytest.raises(TypeError):
        calls += [{}]
    with pytest.raises(TypeError):
        calls *= 2
    with pytest.raises(TypeError):
        frozen |= {"role": "user"}
    assert frozen == MESSAGE


def test_copies_are_plain_and_mutable() -> None:
    frozen = freeze(MESSAGE)
    deep = copy.deepcopy(frozen)
    assert type(deep) is dict and type(deep["tool_calls"]) is list
    assert type(deep["tool_calls"][0]["function"]) is dict
    deep["tool_calls"][0]["function"]["name"] = "g"
    shallow = copy.copy(frozen)
    assert type(shallow) is dict and type(frozen.copy()) is dict and type(dict(frozen)) is dict
    shallow["role"] = "user"
    assert type(copy.copy(frozen["tool_calls"])) is list
    assert type(frozen["tool_calls"].copy()) is list
    assert type(copy.deepcopy(frozen["tool_calls"])) is list
    assert frozen == MESSAGE
    thawed = thaw(frozen)
    assert thawed == MESSAGE and type(thawed["content"][0]) is dict


def test_json_and_pickle_see_plain_data() -> None:
    frozen = freeze(MESSAGE)
    assert json.loads(json.dumps(frozen)) == MESSAGE
    back = pickle.loads(pickle.dumps(frozen))
    assert back == MESSAGE and type(back) is dict and type(back["tool_calls"]) is list
    back_list = pickle.loads(pickle.dumps(frozen["tool_calls"]))
    assert type(back_list) is list


def test_freeze_shares_what_is_read_only_already() -> None:
    frozen = freeze(MESSAGE)
    assert freeze(frozen) is frozen
    assert freeze(("a", ["b"])) == ["a", ["b"]]


class _Tag(str):
    """A str subclass: not plain JSON for freeze_plain."""


@pytest.mark.parametrize(
    "data",
    [
        {"role": "user", "content": "hi"},
        {"content": "keys out of order", "role": "user", "name": "bob"},
        {"role": "assistant", "content": None, "tool_calls": MESSAGE["tool_calls"]},
        {"role": "tool", "tool_call_id": "c", "content": "42"},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "x", "n": 1.5}]},
        {"role": "assistant", "content": "x", "refusal": None, "extra": {"a": [1, True, None]}},
        {"role": "assistant", "content": "tuple extra", "coords": (1, 2)},
        {"role": "user", "content": "tagged", "label": _Tag("subclass in an extra")},
    ],
)
def test_render_message_matches_to_openai_frozen(data: dict[str, Any]) -> None:
    """The view's renderer gives exactly ``freeze(msg.to_openai())``, key order included,
    whether it takes the message's values (plain JSON) or the serializer (anything else)."""
    from summem.messages import Message
    from summem.session.render import render_message

    msg = Message.from_openai(data)
    rendered = render_message(msg)
    expected = freeze(msg.to_openai())
    assert rendered == expected
    assert list(rendered) == list(expected)
    assert [type(v) for v in rendered.values()] == [type(v) for v in expected.values()]
    assert isinstance(rendered, ReadOnlyDict)
    assert json.dumps(rendered) == json.dumps(msg.to_openai())


def test_freeze_plain_refuses_what_is_not_plain_json() -> None:
    from summem.session.readonly import NotPlainJSONError, freeze_plain

    assert freeze_plain({"a": [1, (2, "x")], "b": None}) == {"a": [1, [2, "x"]], "b": None}
    for value in ({"a": _Tag("x")}, [object()], {"a": ReadOnlyDict()}):
        with pytest.raises(NotPlainJSONError):
            freeze_plain(value)
