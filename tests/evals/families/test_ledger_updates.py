"""The ``ledger-updates`` family: a list fetched again with a named row's cell changed."""

from __future__ import annotations

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import generate_trajectory


@pytest.mark.parametrize("seed", range(4))
def test_each_fact_is_a_refetched_cell_whose_row_a_user_named_in_between(seed: int) -> None:
    traj = FAMILIES["ledger-updates"].trajectory(seed)
    assert len(traj.facts) == FAMILIES["ledger-updates"].facts
    for fact in traj.facts:
        assert fact.stale is not None and fact.stale_index is not None
        old, new = traj.messages[fact.stale_index], traj.messages[fact.message_index]
        assert old["role"] == new["role"] == "tool" and fact.stale_index < fact.message_index
        assert fact.stale not in message_text(new) and fact.value not in message_text(old)
        between = traj.messages[fact.stale_index + 1 : fact.message_index]
        assert any(m["role"] == "user" for m in between)
        start = traj.turn_starts[fact.turn_index]
        assert start <= fact.message_index
        assert fact.turn_index + 1 == len(traj.turn_starts) or (
            traj.turn_starts[fact.turn_index + 1] > fact.message_index
        )


def test_the_ledgers_family_is_unchanged_by_the_shared_writer() -> None:
    a = generate_trajectory(3, turns=60, facts=6, style="ledgers")
    assert a == generate_trajectory(3, turns=60, facts=6, style="ledgers")
    assert all(f.stale is None for f in a.facts)
