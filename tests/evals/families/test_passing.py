"""The own ``passing-details`` family: each detail a clause of a long message, planted once."""

from __future__ import annotations

import pytest

from evals.families.blind5.base import count_in
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.passing import CUES

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_each_detail_is_a_clause_of_a_long_message_said_once(seed: int) -> None:
    family = FAMILIES["passing-details"]
    t = family.trajectory(seed)
    assert len(t.facts) == family.facts
    assert len(t.turn_starts) == family.turns
    for f in t.facts:
        text = message_text(t.messages[f.message_index])
        assert count_in(t.messages, f.value) == 1, f.value
        assert f.value in text and f.role == "user"
        assert len(text.split()) >= 40
        assert not [w for w in CUES if w in text.lower().split()], text
        before = text[: text.index(f.value)]
        assert before.rstrip()[-1:] not in ".!?"  # inside a sentence, never its own
        assert f.value not in message_text(t.messages[f.message_index + 1])


def test_seeded() -> None:
    family = FAMILIES["passing-details"]
    assert family.trajectory(3).messages == family.trajectory(3).messages
    assert family.trajectory(3).messages != family.trajectory(4).messages
