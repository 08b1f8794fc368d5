"""Where a planted value occurs: verbatim, or as normalised whole words, nowhere else."""

from __future__ import annotations

import random

import pytest

from evals.families.blind.base import Writer
from evals.families.blind2.base import Writer as Writer2
from evals.families.blind6.base import Writer as Writer6
from evals.families.catalogue import FAMILIES, GENERATORS
from evals.families.placement import (
    Collision,
    Exhausted,
    count_in,
    first_clean,
    texts_of,
    where,
)
from evals.families.trajectories import generate_trajectory

MESSAGES = [
    {"role": "user", "content": "The paint is Sage Mist, I think."},
    {"role": "assistant", "content": "Noted: sage   mist!"},
    {"role": "user", "content": "Not the sagebrush one, and 14:30 works."},
]


def test_a_value_is_found_verbatim_or_as_whole_normalised_words() -> None:
    texts = texts_of(MESSAGES)
    assert where(texts, "Sage Mist") == [0, 1]  # case, spacing and punctuation aside
    assert where(texts, "sage mist") == [0, 1]  # as words only: neither says it verbatim
    assert where(texts, "Sage") == [0, 1]  # as a whole word: "sagebrush" is another
    assert where(texts, "sage") == [0, 1, 2]  # but verbatim, a part of a word counts
    assert where(texts, "14:30") == [2]
    assert count_in(MESSAGES, "Sage Mist") == 2
    assert count_in(MESSAGES, "lavender") == 0


def test_a_collision_is_an_assertion_error_a_generator_draws_again_on() -> None:
    with pytest.raises(AssertionError):
        raise Collision("f01 'Sage Mist' in [0, 1]")


def test_the_first_clean_draw_is_kept_and_a_collision_draws_again() -> None:
    def check(n: int) -> None:
        if n < 2:
            raise Collision(f"draw {n} collides")

    assert first_clean(lambda attempt: attempt, check, tries=5, seed=0) == 2
    with pytest.raises(AssertionError, match="keep colliding"):
        first_clean(lambda attempt: attempt, check, tries=2, seed=7)


def test_a_pool_used_up_while_drawing_draws_the_seed_again() -> None:
    def draw(attempt: int) -> int:
        if attempt < 2:
            raise Exhausted(f"draw {attempt}: no fresh value left")
        return attempt

    assert first_clean(draw, lambda n: None, tries=5, seed=0) == 2


def test_a_fresh_value_from_a_used_up_pool_raises_instead_of_looping_forever() -> None:
    writer = Writer(random.Random(0))
    assert writer.fresh(lambda: ("Sage Mist", ())) == ("Sage Mist", ())
    with pytest.raises(Exhausted, match="no fresh value"):
        writer.fresh(lambda: ("Sage Mist", ("sage mist",)))
    second = Writer2(random.Random(0))
    second.fresh(lambda: ("Sage Mist", ()))
    with pytest.raises(Exhausted):
        second.fresh(lambda: ("Sage Mist", ()))
    sixth = Writer6(random.Random(0), "system")
    sixth.fresh(lambda: "Sage Mist")
    with pytest.raises(Exhausted):
        sixth.fresh(lambda: "Sage Mist")


@pytest.mark.parametrize(("family", "seed"), [("tables", 10), ("blind5-described", 8)])
def test_a_seed_whose_first_draw_uses_up_a_pool_is_written(family: str, seed: int) -> None:
    # Before: tables seed 10 looped forever on its 1,009th date, blind5-described seed 8
    # raised "ran out of fresh values"; 20-seed boards of either family never finished.
    fam = FAMILIES[family]
    if fam.style in GENERATORS:
        trajectory = GENERATORS[fam.style](seed, turns=fam.turns, facts=fam.facts)
    else:
        trajectory = generate_trajectory(seed, turns=fam.turns, facts=fam.facts, style=fam.style)
    assert len(trajectory.facts) == fam.facts
