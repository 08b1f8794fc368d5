"""The sixteenth blind set (evals/families/blind16): seeded, planted once, scored as claimed."""

from __future__ import annotations

import json
import re

import pytest

from evals.families import blind16
from evals.families.blind16.intl import lakh, native_date
from evals.families.blind16.tables import FORMATS, render
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import count_in
from evals.families.trajectories import Trajectory
from evals.text import contains_normalized, normalize_text

NAMES = sorted(n for n in FAMILIES if n.startswith("blind16-"))


def traj(name: str, seed: int = 0) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered_as_held_out() -> None:
    assert [f"blind16-{x}" for x in ("chains", "confirms", "intl", "prose", "tables")] == NAMES
    assert {FAMILIES[n].style for n in NAMES} == set(blind16.GENERATORS)
    assert all(
        FAMILIES[n].about.startswith("held out, written blind (sixteenth set)") for n in NAMES
    )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 4])
def test_every_value_once_in_its_own_message(name: str, seed: int) -> None:
    t = traj(name, seed)
    assert len(t.facts) == 20
    for f in t.facts:
        assert count_in(t.messages, f.value) == 1, f
        own = message_text(t.messages[f.message_index])
        assert f.value in own
        norm = normalize_text(own)
        assert contains_normalized(norm, f.value), f  # whole words, as the scorer matches
        for old in f.stale_values:
            assert count_in(t.messages, old) == 1, (f, old)


def test_tables_every_shape_row_named_never_by_its_cell() -> None:
    t = traj("blind16-tables")
    shapes = {
        json.loads(c["function"]["arguments"])["format"]
        for m in t.messages
        for c in m.get("tool_calls") or ()
        if c["function"]["name"] == "plots"
    }
    pasted = [f for f in t.facts if f.role == "user"]
    assert shapes | ({"paste"} if pasted else set()) == set(FORMATS)
    for f in t.facts:
        assert f.role in ("tool", "user")
        later = [m for m in t.messages[f.message_index + 1 :] if m["role"] == "user"]
        assert all(f.value not in m["content"] for m in later)
    rows = [
        {"plot": "1A", "holder": "H", "rent": "20.50", "paid_until": "d", "key": "K", "notes": "n"}
    ]
    assert render("markdown", rows).startswith("| plot | holder |")
    assert render("fixed", rows).endswith("1 plots listed")
    assert json.loads(render("json_cols", rows))["rows"] == [["1A", "H", "20.50", "d", "K", "n"]]
    assert render("paste", rows).startswith("Plot\tHolder\tRent\tPaid Until")


def test_chains_latest_value_counts_every_earlier_one_stale() -> None:
    for seed in range(3):
        t = traj("blind16-chains", seed)
        fixes = [f for f in t.facts if f.kind == "correction"]
        assert len(fixes) >= 10
        assert {f.role for f in fixes} >= {"user"}
        for f in fixes:
            assert f.stale_index is not None and f.stale_index < f.message_index
            assert len(f.older) + 2 <= 5  # three to five states a chain
        heads = [f for f in t.facts if f.stale is None and f.until is not None]
        assert all(any(g.stale == h.value for g in fixes) for h in heads)
        assert len([f for f in t.facts if f.stale is None and f.until is None]) == 2  # alikes


def test_intl_native_forms_and_corrections_in_the_language() -> None:
    assert lakh(124500) == "1,24,500" and lakh(93000) == "93,000"
    assert native_date("ta", 14, 3) == "14 மார்ச் 2027"
    assert native_date("ta", 14, 3, numeric=True) == "14.03.2027"
    assert native_date("bn", 14, 3) == "১৪ মার্চ ২০২৭"
    assert native_date("bn", 14, 3, numeric=True) == "১৪/০৩/২০২৭"
    t = traj("blind16-intl")
    fixes = [f for f in t.facts if f.kind == "correction"]
    assert len(fixes) == 4
    words = ("திருத்தம்", "সংশোধনী", "தவறாக", "ভুল", "I had it wrong")
    for f in fixes:
        assert any(w in t.messages[f.message_index]["content"] for w in words)
    scripts = "".join(f.value for f in t.facts)
    assert any("\u0b80" <= c <= "\u0bff" for c in scripts)  # Tamil
    assert any("\u0980" <= c <= "\u09ff" for c in scripts)  # Bengali


def test_prose_no_cue_words_and_four_refined() -> None:
    t = traj("blind16-prose")
    for f in t.facts:
        text = t.messages[f.message_index]["content"].lower()
        assert f.role == "user"
        assert "i prefer" not in text and "i always" not in text
        assert not re.search(r"\bmy \w+ (is|are)\b", text)
    fixes = [f for f in t.facts if f.kind == "correction"]
    assert len(fixes) == 4
    assert all(
        f.turn_index - next(g.turn_index for g in t.facts if g.value == f.stale) >= 60
        for f in fixes
    )


def test_confirms_accepted_after_the_offer_never_by_its_value() -> None:
    t = traj("blind16-confirms")
    for f in t.facts:
        assert f.role == "assistant"
        assert f.confirm_index is not None and f.confirm_index > f.message_index
        accept = t.messages[f.confirm_index]
        assert accept["role"] == "user" and len(accept["content"].split()) <= 4
        assert f.value not in accept["content"]
