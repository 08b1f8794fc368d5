"""The fifth blind set (evals/families/blind5): seeded, values planted once, scored as claimed."""

from __future__ import annotations

import pytest

from evals.families import blind5
from evals.families.blind5.asides import BANNED
from evals.families.catalogue import FAMILIES
from evals.families.trajectories import Trajectory

NAMES = sorted(n for n in FAMILIES if n.startswith("blind5-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered() -> None:
    assert len(NAMES) == 5
    assert {FAMILIES[n].style for n in NAMES} == set(blind5.GENERATORS)


@pytest.mark.parametrize("seed", SEEDS)
def test_fixups_name_only_the_value(seed: int) -> None:
    t = traj("blind5-fixups", seed)
    for f in t.facts:
        assert f.kind == "correction" and f.stale is not None and f.stale_index is not None
        assert f.stale_index < f.message_index and f.role == "user"
        fix = t.messages[f.message_index]["content"]
        assert len(fix.split()) <= 16, fix
        assert f.value not in t.messages[f.message_index + 1]["content"]
    gaps = [t.turn_starts.index(f.message_index) - f.turn_index for f in t.facts]
    assert gaps == [0] * len(gaps)
    stated = [f.turn_index - _turn_of(t, f.stale_index) for f in t.facts if f.stale_index]
    assert min(stated) == 1 and max(stated) > 2  # next turn, and after chatter


def _turn_of(t: Trajectory, index: int | None) -> int:
    assert index is not None
    return max(k for k, start in enumerate(t.turn_starts) if start <= index)


@pytest.mark.parametrize("seed", SEEDS)
def test_longrun_chains_change_late_and_only_the_latest_is_asked(seed: int) -> None:
    t = traj("blind5-longrun", seed)
    heads = [f for f in t.facts if f.stale is None]
    assert len(heads) == FAMILIES["blind5-longrun"].facts
    for head in heads:
        chain = [head]
        while chain[-1].until is not None:
            nxt = next(f for f in t.facts if f.message_index == chain[-1].until)
            assert nxt.stale == chain[-1].value and nxt.older == tuple(c.value for c in chain[:-1])
            chain.append(nxt)
        assert 4 <= len(chain) <= 6
        assert all(c.turn_index >= len(t.turn_starts) // 2 for c in chain[1:])
    final = t.facts_before(len(t.messages))
    assert len(final) == len(heads) and all(f.until is None for f in final)


@pytest.mark.parametrize("seed", SEEDS)
def test_described_rows_are_named_by_description_not_value(seed: int) -> None:
    t = traj("blind5-described", seed)
    shapes = set()
    for f in t.facts:
        text = t.messages[f.message_index]["content"]
        assert f.role == "tool"
        shapes.add(
            "json"
            if text.startswith("[")
            else "md"
            if text.startswith("|")
            else "csv"
            if "," in text.splitlines()[0]
            else "aligned"
        )
        later = [m["content"] for m in t.messages[f.message_index + 1 :] if m["role"] == "user"]
        assert all(f.value not in m for m in later)
    assert len(shapes) >= 3


@pytest.mark.parametrize("seed", SEEDS)
def test_asides_have_no_cue_words(seed: int) -> None:
    t = traj("blind5-asides", seed)
    for f in t.facts:
        text = t.messages[f.message_index]["content"]
        assert not [w for w in BANNED if w in text.lower()], text
        assert len(text.split()) >= 25
        assert f.value not in t.messages[f.message_index + 1]["content"]


@pytest.mark.parametrize("seed", SEEDS)
def test_accepts_are_taken_in_a_few_words(seed: int) -> None:
    t = traj("blind5-accepts", seed)
    for f in t.facts:
        assert f.role == "assistant" and f.confirm_index is not None and f.rejected
        offer = t.messages[f.message_index]["content"]
        assert all(o in offer for o in f.rejected)
        answer = t.messages[f.confirm_index]
        assert answer["role"] == "user" and f.confirm_index > f.message_index
        assert len(answer["content"].split()) <= 6 and f.value not in answer["content"]
