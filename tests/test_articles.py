"""Messages that put a role or a kind after "a" choose the article by the word ("an assistant")."""

from __future__ import annotations

from typing import Any

import pytest

from summem._words import a
from summem.errors import MessageValidationError, StoreError


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("assistant", "an assistant"),
        ("user", "a user"),
        ("'input_audio'", "an 'input_audio'"),
        ("'image_url'", "an 'image_url'"),
        ("'function_call'", "a 'function_call'"),
        ("int", "an int"),
        ("str", "a str"),
        ("unknown", "an unknown"),
        ("URL", "a URL"),
        ("item_reference", "an item_reference"),
        ("tool", "a tool"),
        ("", "a "),
    ],
)
def test_the_article_follows_the_word(word: str, expected: str) -> None:
    assert a(word) == expected


def test_an_unproven_edit_of_the_whole_conversation_is_refused_naming_it() -> None:
    from summem.errors import HistoryMismatchError
    from summem.memory import Memory

    memory = Memory("edit")
    memory.record([{"role": "user", "content": "q"}, {"role": "assistant", "content": "r"}])
    with pytest.raises(HistoryMismatchError) as info:  # an edited reply, or new messages?
        memory.record(
            [{"role": "user", "content": "q"}, {"role": "assistant", "content": "edited"}]
        )
    assert "(here: an assistant message)" in str(info.value), str(info.value)
    assert info.value.index == 1 and "mode='full'" in str(info.value)
    assert [m["content"] for m in memory.history()] == ["q", "r"]  # nothing recorded
    memory.record(
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": "edited"}],
        mode="full",
    )
    assert [m["content"] for m in memory.history()] == ["q", "edited"]
    assert [b.at for b in memory.branches()] == [1]


def test_a_history_mismatch_names_an_assistant_message() -> None:
    # record() raises it only for a list echoing a summary that is no longer current; the
    # wording is what this checks, for the role that takes "an"
    from summem.session.recorded import _mismatch

    error = _mismatch(3, {"role": "assistant", "content": "edited"}, "the list differs")
    assert "(here: an assistant message)" in str(error), str(error)
    assert "a assistant" not in str(error)
    assert error.index == 3


def test_a_session_dict_with_an_assistant_as_system_says_an() -> None:
    from summem.memory import Memory

    memory = Memory("d")
    memory.add({"role": "system", "content": "s"})
    data: dict[str, Any] = memory.to_dict()
    data["system"]["m"]["role"] = "assistant"
    with pytest.raises(StoreError, match="is an 'assistant' message"):
        Memory.from_dict(data)


def test_a_part_missing_its_field_says_an_input_audio_part() -> None:
    from summem.messages import Message

    with pytest.raises(MessageValidationError, match="an 'input_audio' part"):
        Message.from_openai({"role": "user", "content": [{"type": "input_audio"}]})


def test_a_store_given_a_non_message_says_an_int() -> None:
    from summem.stores.common.new_session import _encode

    with pytest.raises(StoreError, match="is an int, not a Message"):
        _encode(3, "s", "system message")
