"""The ``people-details`` family: a detail about someone said with their pronoun contracted."""

from __future__ import annotations

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text


@pytest.mark.parametrize("seed", range(4))
def test_each_detail_follows_the_sentence_that_says_who_it_is_about(seed: int) -> None:
    traj = FAMILIES["people-details"].trajectory(seed)
    assert len(traj.facts) == FAMILIES["people-details"].facts
    for fact in traj.facts:
        text = message_text(traj.messages[fact.message_index])
        first, _, detail = text.partition(". ")
        assert first and fact.value in detail
        assert detail.split()[0].lower().partition("'")[0] in ("he", "she", "they", "it")


def test_a_third_are_revised_after_what_they_revise() -> None:
    traj = FAMILIES["people-details"].trajectory(0)
    revised = [f for f in traj.facts if f.kind == "correction"]
    assert len(revised) == FAMILIES["people-details"].facts // 3
    for fact in revised:
        assert fact.stale_index is not None and fact.stale_index < fact.message_index
        assert fact.stale is not None
        assert fact.stale in message_text(traj.messages[fact.stale_index])
