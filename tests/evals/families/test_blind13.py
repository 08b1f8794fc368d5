"""The thirteenth blind set (evals/families/blind13): seeded, planted once, scored as claimed."""

from __future__ import annotations

import datetime
import json

import pytest

from evals.families import blind13
from evals.families.blind13.base import CUES
from evals.families.blind13.chains import SUBJECTS
from evals.families.blind13.dialogue import DETAILS, SPEAKERS
from evals.families.blind13.intl import NAMES, ethiopian, native_date
from evals.families.blind13.prose import ANSWERS, NARROWED, PLAIN
from evals.families.blind13.tables import CLIENTS, FORMATS, NOTES, render
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import count_in, texts_of, where
from evals.families.trajectories import Trajectory
from summem.messages import Message
from summem.tokens.base import resolve_counter

NAMES_ = sorted(n for n in FAMILIES if n.startswith("blind13-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def turn_of(t: Trajectory, index: int) -> int:
    return max(k for k, start in enumerate(t.turn_starts) if start <= index)


def test_five_families_registered_as_held_out() -> None:
    assert [f"blind13-{x}" for x in ("chains", "dialogue", "intl", "prose", "tables")] == NAMES_
    assert {FAMILIES[n].style for n in NAMES_} == set(blind13.GENERATORS)
    assert all(
        FAMILIES[n].about.startswith("held out, written blind (thirteenth set)") for n in NAMES_
    )


@pytest.mark.parametrize("name", NAMES_)
def test_same_seed_same_conversation(name: str) -> None:
    make = blind13.GENERATORS[FAMILIES[name].style]
    a, b = make(5), make(5)
    assert a == b
    assert a.messages != make(6).messages


@pytest.mark.parametrize("name", NAMES_)
def test_seeds_0_to_19_generate_with_every_probe_planted(name: str) -> None:
    family = FAMILIES[name]
    for seed in range(20):
        t = family.trajectory(seed)
        assert len(t.facts) == family.facts
        assert family.turns <= len(t.turn_starts) <= family.turns + 5
        texts = texts_of(t.messages)
        for f in t.facts:
            assert where(texts, f.value) == [f.message_index], (seed, f)
            assert texts[f.message_index][0].count(f.value) == 1, (seed, f)
            for form in f.aliases:
                assert set(where(texts, form)) <= {f.message_index}, (seed, f, form)
            for old in f.stale_values:
                assert len(where(texts, old)) == 1, (seed, f, old)


@pytest.mark.parametrize("name", NAMES_)
def test_between_44k_and_58k_tokens_and_small_runs_still_plant(name: str) -> None:
    counter = resolve_counter(model="gpt-4o")
    for seed in SEEDS:
        t = traj(name, seed)
        total = sum(counter.count_message(Message.model_validate(m)) for m in t.messages)
        assert 44_000 <= total <= 58_000, (seed, total)
    small = FAMILIES[name].trajectory(0, turns=80, facts=6)
    assert len(small.facts) == 6 and 80 <= len(small.turn_starts) <= 85


def test_dialogue_two_named_speakers_details_of_both_three_ways() -> None:
    ways = {"answer": 0, "aside": 0, "story": 0}
    for seed in SEEDS:
        t = traj("blind13-dialogue", seed)
        assert "name" not in t.messages[0]
        for m in t.messages[1:]:
            assert m["name"] == SPEAKERS[m["role"]]
            Message.model_validate(m)
        assert {Message.model_validate(m).name for m in t.messages[1:]} == {"Ottilie", "Caspian"}
        roles = [f.role for f in t.facts]
        assert roles.count("user") == roles.count("assistant") == 10
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.kind == "preference"
            assert not [c for c in CUES if c in text.lower()], text
            assert f.value not in t.messages[f.message_index + 1]["content"]
            item = next(d for d in DETAILS[f.role] if d[0] == f.value)
            if item[2].replace("{v}", f.value) in text:
                ways["answer"] += 1
                assert t.messages[f.message_index - 1]["content"].endswith("?")
                assert t.messages[f.message_index - 1]["role"] != f.role
            elif item[3].replace("{v}", f.value)[1:] in text:
                ways["aside"] += 1
            else:
                assert item[4].replace("{v}", f.value)[1:] in text
                ways["story"] += 1
    assert min(ways.values()) >= 15, ways


def test_prose_three_ways_without_cue_words_the_reply_never_repeats() -> None:
    ways = {"plain": 0, "answer": 0, "narrowed": 0}
    for seed in SEEDS:
        t = traj("blind13-prose", seed)
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.role == "user" and f.kind in ("preference", "correction")
            assert not [c for c in CUES if c in text.lower()], text
            assert f.value not in t.messages[f.message_index + 1]["content"]
            if f.stale is not None:
                ways["narrowed"] += 1
                assert f.stale not in text and f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 40
            elif any(v == f.value for _, v, _ in ANSWERS):
                ways["answer"] += 1
                assert t.messages[f.message_index - 1]["content"].endswith("?")
            else:
                ways["plain"] += any(v == f.value for v, _ in PLAIN) or any(
                    v == f.value for v, _, _, _ in NARROWED
                )
    assert ways == {"plain": 36, "answer": 12, "narrowed": 12}
    for old, first, new, fix in NARROWED:
        assert "{v}" in first and "{v}" in fix and old not in fix.replace("{v}", new)


def test_tables_every_shape_the_row_named_by_client_or_notes_never_its_cell() -> None:
    handles = {h for h, _ in NOTES}
    shapes: set[str] = set()
    by_note = 0
    for seed in SEEDS:
        t = traj("blind13-tables", seed)
        users = [m["content"] for m in t.messages if m["role"] == "user"]
        tools = [m for m in t.messages if m["role"] == "tool"]
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.role == "tool" and f.kind in ("code", "value", "date")
            call = t.messages[f.message_index - 1]["tool_calls"][0]["function"]
            assert call["name"] == "jobsheet"
            shapes.add(json.loads(call["arguments"])["format"])
            keys = [h for h in handles if h in text] + [c for c in CLIENTS if c in text]
            named = [k for k in keys if any(f"the {k} one" in u for u in users)]
            assert len(named) == 1, (seed, f, named)  # the planted row's client or notes
            if named[0] in handles:
                by_note += 1
                note = dict(NOTES)[named[0]]
                assert len(note) > 40 and count_in(tools, note) == 1
            for value in (f.value, *f.aliases):
                assert not [u for u in users if value in u]
    assert shapes == set(FORMATS)
    assert by_note >= 15
    assert all(handle in note and len(note) > 40 for handle, note in NOTES)


def test_tables_shapes_print_like_their_tools() -> None:
    rows = [
        ["Kershaw", "Steinway B", "blue van", "PM-48271", "1840.50", "2027-07-18", "ok then"],
        ["Jessop", "Yamaha U3", "white van", "PM-22345", "980.25", "2027-05-02", "fine"],
        ["Loxley", "Knight K10", "blue van", "PM-33456", "100.00", "2027-06-02", "a & b"],
    ]
    assert render("spaced", "moves", rows).split("\n")[1].startswith("Kershaw Steinway B blue")
    assert render("jsonl", "moves", rows).count("\n") == 2
    assert "<move>" in render("xml", "moves", rows) and "a &amp; b" in render("xml", "moves", rows)
    assert "client: Kershaw\npiano: Steinway B" in render("blocks", "moves", rows)
    grouped = render("grouped", "moves", rows)
    assert "blue van\n    Kershaw  Steinway B  PM-48271" in grouped
    assert "subtotal 1940.50" in grouped and grouped.endswith("TOTAL 2920.75")


def test_chains_change_two_to_four_times_beside_look_alikes_never_replaced() -> None:
    by_tool = looks = 0
    for seed in SEEDS:
        t = traj("blind13-chains", seed)
        ends = [f for f in t.facts if f.stale is not None and f.until is None]
        assert len(ends) == 4
        assert all(2 <= len(f.stale_values) <= 4 for f in ends)
        for f in t.facts:
            text = message_text(t.messages[f.message_index])
            assert not [old for old in f.stale_values if old in text]
            if f.stale is not None:
                assert f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 30
                by_tool += f.role == "tool"
            elif f.until is None:
                looks += 1
                assert any(
                    text.startswith(a.split("{v}")[0]) for s in SUBJECTS.values() for a in s.alike
                )
    assert by_tool >= 5 and looks == 12


def test_intl_four_scripts_ethiopian_calendar_and_replacements() -> None:
    replaced = 0
    scripts: set[str] = set()
    ranges = {"ka": (0x10A0, 0x10FF), "hy": (0x0530, 0x058F), "he": (0x0590, 0x05FF)}
    ranges["am"] = (0x1200, 0x137F)
    for seed in range(5):
        t = traj("blind13-intl", seed)
        for f in t.facts:
            lang = next(k for k, (a, b) in ranges.items() if any(a <= ord(c) <= b for c in f.value))
            scripts.add(f"{lang} {f.kind if f.stale is None else 'new'}")
            if f.stale is not None:
                replaced += 1
                assert f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 45
    assert {s.split()[0] for s in scripts} == {"ka", "hy", "he", "am"}
    assert replaced == 25
    assert {n for _, n in NAMES["ka"]} >= {"Nino Beridze"}
    assert ethiopian(datetime.date(2026, 9, 11)) == (2019, 1, 1)
    assert ethiopian(datetime.date(2027, 1, 7)) == (2019, 4, 29)  # Ethiopian Christmas
    assert ethiopian(datetime.date(2027, 9, 11)) == (2019, 13, 6)  # Pagume 6, a leap year
    assert ethiopian(datetime.date(2027, 9, 12)) == (2020, 1, 1)
    day = datetime.date(2027, 3, 14)
    assert native_date("ka", day) == "14 მარტი 2027"
    assert native_date("hy", day) == "14 մարտի 2027 թ."
    assert native_date("he", day) == "14 במרץ 2027"
    assert native_date("am", day) == "መጋቢት 5 ቀን 2019 ዓ.ም."
