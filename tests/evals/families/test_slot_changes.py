"""The ``slot-changes`` family: one value of a thing changed, its other values said once."""

from __future__ import annotations

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text


@pytest.mark.parametrize("seed", range(6))
def test_each_thing_has_one_changed_value_and_two_never_replaced(seed: int) -> None:
    family = FAMILIES["slot-changes"]
    traj = family.trajectory(seed)
    changes = [f for f in traj.facts if f.stale is not None]
    kept = [f for f in traj.facts if f.stale is None]
    assert len(kept) == 2 * family.facts
    assert len(changes) >= 2 * family.facts
    for fact in traj.facts:
        assert fact.value in message_text(traj.messages[fact.message_index])
    for fact in changes:
        assert fact.stale_index is not None and fact.stale_index < fact.message_index


def test_some_changes_arrive_in_a_vendors_email() -> None:
    family = FAMILIES["slot-changes"]
    roles = {f.role for s in range(6) for f in family.trajectory(s).facts if f.stale}
    assert roles == {"user", "tool"}
