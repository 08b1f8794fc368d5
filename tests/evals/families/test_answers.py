"""The own ``prose-answers`` family: details said as answers or as a clause of busy chat."""

from __future__ import annotations

import pytest

from evals.families.answers import CUES
from evals.families.blind5.base import count_in
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_each_detail_is_said_once_by_the_user_without_a_cue_word(seed: int) -> None:
    family = FAMILIES["prose-answers"]
    t = family.trajectory(seed)
    assert len(t.facts) == family.facts
    assert len(t.turn_starts) == family.turns
    shapes = set()
    for f in t.facts:
        text = message_text(t.messages[f.message_index])
        assert count_in(t.messages, f.value) == 1, f.value
        assert f.value in text and f.role == "user"
        assert not [w for w in CUES if w in text.lower().split()], text
        asked = message_text(t.messages[f.message_index - 1])
        shapes.add("answer" if asked.startswith("Happy to.") else "clause")
        assert f.value not in message_text(t.messages[f.message_index + 1])
    assert shapes == {"answer", "clause"}


def test_seeded() -> None:
    family = FAMILIES["prose-answers"]
    assert family.trajectory(3).messages == family.trajectory(3).messages
    assert family.trajectory(3).messages != family.trajectory(4).messages
