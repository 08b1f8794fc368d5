"""The third set of held-out families, written blind (see ``README.md``; do not tune on them).

Each family is a writer (``write(rng, turns, facts)``) that fills a conversation and plants
facts; :func:`generate` turns it into a seeded :class:`~evals.families.trajectories.Trajectory`.
:data:`GENERATORS` maps a catalogue style to its generator; the runners pick a family by name
from :data:`evals.families.catalogue.FAMILIES`.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind3 import grids, ops, passing, picks, revisions, split
from evals.families.blind3.base import Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS", "WRITERS", "generate"]

WRITERS: dict[str, Writer] = {
    "b3-passing": passing.write,
    "b3-revisions": revisions.write,
    "b3-grids": grids.write,
    "b3-picks": picks.write,
    "b3-split": split.write,
    "b3-ops": ops.write,
}
"""A catalogue style -> the family's writer."""


def generate(style: str, seed: int, *, turns: int, facts: int) -> Trajectory:
    """The ``style`` family's conversation for ``seed`` (same seed, same conversation)."""
    if style not in WRITERS:
        raise ValueError(f"unknown blind3 style {style!r}; known: {', '.join(WRITERS)}")
    return build(style, WRITERS[style], seed, turns=turns, facts=facts)


def _generator(style: str) -> Callable[..., Trajectory]:
    def run(seed: int, *, turns: int, facts: int) -> Trajectory:
        return generate(style, seed, turns=turns, facts=facts)

    return run


GENERATORS: dict[str, Callable[..., Trajectory]] = {style: _generator(style) for style in WRITERS}
"""A catalogue style -> ``generate(seed, *, turns, facts)``."""
