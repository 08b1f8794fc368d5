"""Groups, the system rules and batch checks: the conversation rules every layer shares."""

from __future__ import annotations

import pytest

from summem.conversation import apply_system, boundaries, check_batch, split_groups, track_calls
from summem.errors import MessageValidationError
from summem.messages import Message, parse_messages
from tests.fakes.messages import a, call, res, sys, u


def msgs(*items: dict[str, object]) -> list[Message]:
    return parse_messages(items)


def test_groups_keep_a_call_with_all_its_results() -> None:
    history = msgs(u("q"), call("x", "y"), res("y"), res("x"), a("done"), call("z"))
    b = boundaries(history)
    assert b.starts == (0, 1, 4, 5) and b.pending_from == 5 and b.orphans == ()
    assert [len(g) for g in split_groups(history)] == [1, 3, 1, 1]
    assert boundaries(msgs(res("nobody"))).orphans == (0,)


def test_system_rules() -> None:
    first, same, other = msgs(sys("be kind"), sys("be kind"), sys("be brief"))
    assert apply_system(None, first) is first
    assert apply_system(first, same) is first
    assert apply_system(first, other) is other


def test_check_batch_applies_the_rules_in_order() -> None:
    pending: dict[str, None] = {}
    batch = check_batch(
        msgs(sys("s"), u("q"), call("c1"), res("c1"), a("ok")),
        None,
        pending,
        {},
        size=lambda m: 1,
        single=False,
    )
    assert batch.system_changed and batch.system is not None
    assert [m.role for m in batch.history] == ["user", "assistant", "tool", "assistant"]
    assert batch.sizes == [1, 1, 1, 1] and pending == {}


def test_check_batch_refuses_orphans_and_duplicate_pending_ids() -> None:
    with pytest.raises(MessageValidationError, match="'c9'") as info:
        check_batch(msgs(res("c9")), None, {}, {}, size=lambda m: 1, single=False)
    assert info.value.index == 0 and info.value.field == "tool_call_id"
    with pytest.raises(MessageValidationError, match="already pending"):
        check_batch(msgs(call("c1")), None, {"c1": None}, {}, size=lambda m: 1, single=True)


def test_check_batch_is_idempotent_by_id() -> None:
    stored = msgs(u("q"), call("c1"))
    known = {m.id: m for m in stored}
    again = [m.with_meta(note="resent") for m in stored]  # meta is not content
    pending: dict[str, None] = {"c1": None}
    batch = check_batch([*again, *msgs(res("c1"))], None, pending, known, size=len_, single=False)
    assert batch.accepted[:2] == stored  # the stored messages, not the resent ones
    assert [m.role for m in batch.history] == ["tool"] and pending == {}
    first = msgs(u("twice"))[0]
    batch = check_batch([first, first], None, {}, {}, size=len_, single=False)
    assert batch.history == [first] and batch.accepted == [first, first]


def test_check_batch_refuses_an_id_stored_for_other_content() -> None:
    stored = msgs(u("q"))[0]
    other = msgs(u("not q"))[0].with_id(stored.id)
    with pytest.raises(MessageValidationError, match="already stored") as info:
        check_batch([other], None, {}, {stored.id: stored}, size=len_, single=False)
    assert info.value.field == "id" and info.value.index == 0
    with pytest.raises(MessageValidationError, match="already stored"):
        check_batch([stored, other], None, {}, {}, size=len_, single=False)


def len_(m: object) -> int:
    return 1


def test_track_calls() -> None:
    pending: dict[str, None] = {}
    for m in msgs(call("a", "b"), res("a")):
        track_calls(pending, m)
    assert pending == {"b": None}


def test_a_batch_ending_on_the_stored_system_content_keeps_the_stored_message() -> None:
    current, other, same = msgs(sys("be kind"), sys("be brief"), sys("be kind"))
    batch = check_batch(
        [other, same, *msgs(u("q"))], current, {}, {}, size=lambda m: 1, single=False
    )
    assert batch.system is current and not batch.system_changed
    assert batch.accepted[:2] == [current, current]


EMPTY_ASSISTANTS = [
    {"role": "assistant"},
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": None, "tool_calls": []},
    {"role": "assistant", "content": None, "refusal": None, "audio": None},
    {"role": "assistant", "content": None, "refusal": ""},
]


@pytest.mark.parametrize("empty", EMPTY_ASSISTANTS)
def test_an_assistant_message_with_nothing_to_send_is_refused(empty: dict[str, object]) -> None:
    batch = msgs(u("q"), empty)
    with pytest.raises(MessageValidationError, match="needs content or tool_calls") as info:
        check_batch(batch, None, {}, {}, size=len_, single=False)
    assert info.value.index == 1 and info.value.field == "content"
    with pytest.raises(MessageValidationError, match="needs content or tool_calls") as info:
        check_batch(batch[1:], None, {}, {}, size=len_, single=True)
    assert info.value.index is None


@pytest.mark.parametrize(
    "reply",
    [
        {"role": "assistant", "content": ""},  # empty text is content (litellm pads it)
        {"role": "assistant", "content": None, "refusal": "I can't help with that."},
        {"role": "assistant", "refusal": "No."},
        {"role": "assistant", "content": None, "audio": {"id": "audio_abc123"}},
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]},
    ],
)
def test_replies_without_content_that_providers_accept_are_kept(reply: dict[str, object]) -> None:
    batch = check_batch(msgs(u("q"), reply), None, {}, {}, size=len_, single=False)
    assert batch.history[1].to_openai() == reply


def test_an_assistant_message_already_stored_stays_a_no_op() -> None:
    """One stored before the check existed is recognised by id, not refused again."""
    (old,) = msgs({"role": "assistant"})
    batch = check_batch([old], None, {}, {old.id: old}, size=len_, single=True)
    assert batch.accepted == [old] and batch.history == []
