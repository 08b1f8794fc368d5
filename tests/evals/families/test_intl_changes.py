"""The own family ``intl-changes``: values where they are said, changes in the language."""

from __future__ import annotations

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.text import contains_normalized, normalize_text


def test_every_value_is_found_where_it_is_said_and_changes_chain() -> None:
    family = FAMILIES["intl-changes"]
    for seed in range(3):
        traj = family.trajectory(seed)
        assert traj == family.trajectory(seed)  # the same seed, the same conversation
        changed = [f for f in traj.facts if f.kind == "correction"]
        assert len(traj.facts) >= family.facts and len(changed) >= 5
        for f in traj.facts:
            said = normalize_text(message_text(traj.messages[f.message_index]))
            assert contains_normalized(said, f.value), (seed, f.id)
            assert f.stale is None or f.stale_index is not None
            if f.stale_index is not None:
                before = normalize_text(message_text(traj.messages[f.stale_index]))
                assert contains_normalized(before, f.stale or ""), (seed, f.id)
                assert not contains_normalized(said, f.stale or ""), (seed, f.id)
        assert any("。" in m["content"] or "।" in m["content"] for m in traj.messages[1:])
