"""evals.families.fixups: corrections that name their subject only in an earlier message."""

from __future__ import annotations

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.text import normalize_text


def test_the_family_is_deterministic_and_plants_its_values_where_it_says() -> None:
    family = FAMILIES["fixups"]
    assert family.trajectory(3) == family.trajectory(3)
    for seed in range(5):
        traj = family.trajectory(seed)
        assert len(traj.facts) == family.facts
        texts = [f" {normalize_text(message_text(m))} " for m in traj.messages]
        for fact in traj.facts:
            assert f" {normalize_text(fact.value)} " in texts[fact.message_index]
            if fact.stale is not None:  # said once, in the statement it corrects
                stale = f" {normalize_text(fact.stale)} "
                assert [i for i, t in enumerate(texts) if stale in t] == [fact.stale_index]
                assert traj.messages[fact.message_index]["role"] == "user"
