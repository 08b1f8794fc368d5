"""What every held-out family promises, whichever blind set it belongs to.

A family written blind is judged by its scores only, so its conversations must at least be
sound: the same seed writes the same conversation and another seed another, every message is
one the engine accepts, turns start with the user, and every tool call is answered before the
conversation goes on. Each set's own claims (what it plants, how, how long) are tested beside
it: ``test_blind.py`` to ``test_blind8.py``.
"""

from __future__ import annotations

import json

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from summem.messages import Message
from tests.evals.families.test_blind import BLIND as FIRST_SET

HELD_OUT = sorted(n for n in FAMILIES if n in FIRST_SET or n == "heldout" or n.startswith("blind"))


def test_every_set_is_covered() -> None:
    sets = {n.split("-")[0] for n in HELD_OUT if n.startswith("blind")}
    assert sets == {"blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8"}
    assert set(FIRST_SET) <= set(HELD_OUT)


@pytest.mark.parametrize("name", HELD_OUT)
def test_same_seed_same_conversation_another_seed_another(name: str) -> None:
    family = FAMILIES[name]
    a, b, c = family.trajectory(3), family.trajectory(3), family.trajectory(4)
    assert a.messages == b.messages
    assert a.facts == b.facts
    assert a.turn_starts == b.turn_starts
    assert a == b
    assert a.messages != c.messages
    assert [f.value for f in a.facts] != [f.value for f in c.facts]  # other values planted
    assert a.facts
    assert len(a.turn_starts) >= family.turns  # a pick may be a turn of its own (blind3)


@pytest.mark.parametrize("name", HELD_OUT)
def test_chat_shape_and_tool_call_pairing(name: str) -> None:
    """System first, user turns, the results of each call in its order, an assistant last."""
    t = FAMILIES[name].trajectory(0)
    assert t.messages[0]["role"] == "system"
    assert t.turn_starts[0] == 1
    assert all(t.messages[i]["role"] == "user" for i in t.turn_starts)
    pending: list[str] = []
    for i, m in enumerate(t.messages):
        Message.model_validate(m)
        if m["role"] == "tool":
            assert pending and m["tool_call_id"] == pending.pop(0), f"message {i}"
            continue
        assert not pending, f"message {i} comes before every tool result came back"
        for call in m.get("tool_calls") or ():
            json.loads(call["function"]["arguments"])
            pending.append(call["id"])
    assert not pending, "a tool call left unanswered"
    assert t.messages[-1]["role"] == "assistant"


@pytest.mark.parametrize("name", HELD_OUT)
def test_every_fact_is_said_by_its_own_message(name: str) -> None:
    t = FAMILIES[name].trajectory(0)
    for f in t.facts:
        message = t.messages[f.message_index]
        assert message["role"] == f.role, f
        forms = (f.value, *f.aliases)
        assert any(form in message_text(message) for form in forms), f
