"""evals.families.catalogue: a family's trajectory uses every field the family sets."""

from __future__ import annotations

import dataclasses

from evals.families.catalogue import Family
from evals.families.trajectories import generate_trajectory


def test_a_familys_trajectory_uses_every_field_it_sets() -> None:
    family = Family("x", 60, 4, "realistic", 2, speakers="both", style="indirect")
    fields = {f.name for f in dataclasses.fields(Family)} - {"name", "about"}
    expected = generate_trajectory(5, **{k: getattr(family, k) for k in fields})
    assert family.trajectory(5) == expected
    assert (
        family.trajectory(5, turns=30, facts=2).params
        == generate_trajectory(
            5, **{**{k: getattr(family, k) for k in fields}, "turns": 30, "facts": 2}
        ).params
    )
