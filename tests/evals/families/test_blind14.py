"""The fourteenth blind set (evals/families/blind14): seeded, planted once, scored as claimed."""

from __future__ import annotations

import json

import pytest

from evals.families import blind14
from evals.families.blind14.intl import native_date
from evals.families.blind14.tables import FORMATS, NOTES, render
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import count_in
from evals.families.trajectories import Trajectory
from evals.text import contains_normalized, normalize_text

NAMES = sorted(n for n in FAMILIES if n.startswith("blind14-"))


def traj(name: str, seed: int = 0) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered_as_held_out() -> None:
    assert [f"blind14-{x}" for x in ("chains", "confirms", "intl", "prose", "tables")] == NAMES
    assert {FAMILIES[n].style for n in NAMES} == set(blind14.GENERATORS)
    assert all(
        FAMILIES[n].about.startswith("held out, written blind (fourteenth set)") for n in NAMES
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_value_once_in_its_own_message(name: str) -> None:
    t = traj(name, 1)
    assert len(t.facts) == 20
    for f in t.facts:
        assert count_in(t.messages, f.value) == 1, f
        assert f.value in message_text(t.messages[f.message_index])
        norm = normalize_text(message_text(t.messages[f.message_index]))
        assert contains_normalized(norm, f.value), f  # whole words, as the scorer matches
        for old in f.stale_values:
            assert count_in(t.messages, old) == 1, (f, old)


def test_tables_every_shape_row_named_never_by_its_cell() -> None:
    t = traj("blind14-tables")
    calls = [
        json.loads(c["function"]["arguments"])
        for m in t.messages
        for c in m.get("tool_calls") or ()
        if c["function"]["name"] == "workshop"
    ]
    shapes = {c["format"] for c in calls}
    assert shapes == set(FORMATS)
    for f in t.facts:
        assert f.role == "tool"
        asks = [
            m for m in t.messages[f.message_index + 1 :] if m["role"] == "user"
        ]  # a later turn names the row
        assert all(f.value not in m["content"] for m in asks)
    rows = [
        {"client": "A", "window": "w", "ref": "SG-1", "quote": "10.50", "due": "d", "notes": "n"}
    ]
    assert render("psql", rows).endswith("(1 rows)")
    assert "TOTAL 1 commissions, quoted 10.50" in render("report", rows)
    assert render("html", rows).startswith("<table>")
    assert render("yaml", rows).startswith("- client: A\n  window: w")


def test_tables_notes_handles_are_words_of_their_notes() -> None:
    for notes, handle in NOTES:
        assert len(notes) > 40 and f" {handle} " in f" {notes.replace(',', ' ')} "


def test_chains_record_every_stale_value_and_look_alikes_stay() -> None:
    t = traj("blind14-chains")
    fixes = [f for f in t.facts if f.kind == "correction"]
    assert len(fixes) == 12 and len([f for f in t.facts if f.until is not None]) == 12
    assert {f.role for f in fixes} >= {"user"}
    for f in fixes:
        assert f.stale_index is not None and f.stale_index < f.message_index
    assert len([f for f in t.facts if f.stale is None and f.until is None]) == 4  # look-alikes


def test_intl_native_forms_and_corrections_in_the_language() -> None:
    assert native_date("ja", 2, 7) == "2027年7月2日"
    assert native_date("ja", 2, 7, era=True) == "令和9年7月2日"
    assert native_date("zh", 21, 10) == "二〇二七年十月二十一日"
    assert native_date("th", 2, 7) == "๒ กรกฎาคม ๒๕๗๐"
    assert native_date("my", 2, 7) == "၂၀၂၇ ခုနှစ် ဇူလိုင်လ ၂ ရက်"
    t = traj("blind14-intl")
    fixes = [f for f in t.facts if f.kind == "correction"]
    assert len(fixes) == 5
    words = ("【訂正】", "更正", "แก้ไข", "ပြင်ဆင်ချက်")
    for f in fixes:
        assert f.role == "tool" and any(w in t.messages[f.message_index]["content"] for w in words)


def test_prose_no_cue_words_and_four_refined() -> None:
    t = traj("blind14-prose")
    for f in t.facts:
        text = t.messages[f.message_index]["content"].lower()
        assert f.role == "user" and "i prefer" not in text and "i always" not in text
    fixes = [f for f in t.facts if f.kind == "correction"]
    assert len(fixes) == 4
    assert all(
        f.turn_index - next(g.turn_index for g in t.facts if g.value == f.stale) >= 60
        for f in fixes
    )


def test_confirms_what_was_accepted() -> None:
    t = traj("blind14-confirms")
    for f in t.facts:
        if f.role == "assistant":
            assert f.confirm_index is not None and f.confirm_index > f.message_index
            assert t.messages[f.confirm_index]["role"] == "user"
            assert f.value not in t.messages[f.confirm_index]["content"]
        else:
            assert f.role == "user" and " but " in t.messages[f.message_index]["content"]
