"""The eleventh blind set (evals/families/blind11): seeded, planted once, scored as claimed."""

from __future__ import annotations

import re

import pytest

from evals.families import blind11
from evals.families.blind11.confirms import NEEDS, ORDINALS
from evals.families.blind11.intl import NAMES, native_date
from evals.families.blind11.prose import CONTRASTS, CORRECTIONS, CUES, RAMBLES, STORIES
from evals.families.blind11.tables import DATASETS, FORMATS
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import count_in, texts_of, where
from evals.families.trajectories import Trajectory
from summem.messages import Message
from summem.tokens.base import resolve_counter

NAMES_ = sorted(n for n in FAMILIES if n.startswith("blind11-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def turn_of(t: Trajectory, index: int) -> int:
    return max(k for k, start in enumerate(t.turn_starts) if start <= index)


def test_five_families_registered_as_held_out() -> None:
    assert [f"blind11-{x}" for x in ("chains", "confirms", "intl", "prose", "tables")] == NAMES_
    assert {FAMILIES[n].style for n in NAMES_} == set(blind11.GENERATORS)
    assert all(FAMILIES[n].about.startswith("held out, written blind") for n in NAMES_)


@pytest.mark.parametrize("name", NAMES_)
def test_same_seed_same_conversation(name: str) -> None:
    make = blind11.GENERATORS[FAMILIES[name].style]
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
            assert texts[f.message_index][0].count(f.value) == 1, (seed, f)  # not in '15 Nov'
            for form in f.aliases:
                assert set(where(texts, form)) <= {f.message_index}, (seed, f, form)
            for old in f.stale_values:
                assert len(where(texts, old)) == 1, (seed, f, old)
            for option in f.rejected:
                assert where(texts, option) == [f.message_index], (seed, f, option)


@pytest.mark.parametrize("name", NAMES_)
def test_between_45k_and_55k_tokens_and_small_runs_still_plant(name: str) -> None:
    counter = resolve_counter(model="gpt-4o")
    for seed in SEEDS:
        t = traj(name, seed)
        total = sum(counter.count_message(Message.model_validate(m)) for m in t.messages)
        assert 45_000 <= total <= 55_000, (seed, total)
    small = FAMILIES[name].trajectory(0, turns=80, facts=6)
    assert len(small.facts) == 6 and 80 <= len(small.turn_starts) <= 85


def test_prose_four_ways_without_cue_words_the_reply_never_repeats() -> None:
    pools = {"contrast": CONTRASTS, "story": STORIES, "ramble": RAMBLES}
    ways = {"contrast": 0, "story": 0, "ramble": 0, "corrected": 0}
    long_messages = 0
    for seed in SEEDS:
        t = traj("blind11-prose", seed)
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.role == "user" and f.kind in ("preference", "correction")
            assert not [c for c in CUES if c in text.lower()], text
            assert f.value not in t.messages[f.message_index + 1]["content"]
            long_messages += len(text.split()) >= 60
            if f.stale is not None:
                ways["corrected"] += 1
                assert f.stale not in text
                assert f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 40
                continue
            for way, pool in pools.items():
                ways[way] += any(v == f.value for v, _ in pool)
    assert min(ways.values()) >= 9, ways
    assert long_messages >= 20
    for old, first, new, fix in CORRECTIONS:
        assert old in first and new in fix and old not in fix


def _row_key(text: str, value: str, keys: list[str]) -> str:
    """The key of the row of ``text`` (one of the five shapes) that holds ``value``."""
    if ", one column per " in text.split("\n")[0]:
        lines = text.split("\n")
        cells = next(line for line in lines if value in line).split(" | ")
        column = next(k for k, c in enumerate(cells) if value in c)
        return lines[1].split(" | ")[column].strip(" |")
    if text.startswith("<"):
        blocks = text.split("<row ")
    elif text.startswith(";"):
        blocks = text.split("\n[")
    else:
        blocks = text.split("\n")
    block = next(b for b in blocks if value in b)
    return next(k for k in keys if k in block)


def test_tables_five_shapes_and_the_planted_row_named_never_its_cell() -> None:
    keys = [k for _, ks in DATASETS.values() for k in ks]
    shapes: set[str] = set()
    named_before = named_after = 0
    for seed in SEEDS:
        t = traj("blind11-tables", seed)
        users = [(i, m["content"]) for i, m in enumerate(t.messages) if m["role"] == "user"]
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.role == "tool" and f.kind in ("code", "value", "date")
            call = t.messages[f.message_index - 1]["tool_calls"][0]["function"]
            assert call["name"] == "brewhouse"
            shapes.add(
                "xml"
                if text.startswith("<")
                else "ini"
                if text.startswith(";")
                else "logfmt"
                if text.startswith("level=")
                else "grouped"
                if " REPORT\n" in text
                else "transposed"
            )
            key = _row_key(text, f.value, keys)
            assert count_in([m for m in t.messages if m["role"] == "tool"], key) == 1, key
            naming = [i for i, u in users if f"the {key}" in u]
            assert naming, (seed, key)
            named_before += naming[0] < f.message_index
            named_after += naming[-1] > f.message_index
            for value in (f.value, *f.aliases):
                assert not [u for _, u in users if value in u]
        if seed == 0:
            assert "subtotal" in "".join(message_text(m) for m in t.messages)
    assert shapes == set(FORMATS)
    assert named_before >= 10 and named_after >= 20


def test_chains_change_two_to_four_times_beside_look_alikes_never_replaced() -> None:
    by_email = looks = 0
    for seed in SEEDS:
        t = traj("blind11-chains", seed)
        ends = [f for f in t.facts if f.stale is not None and f.until is None]
        assert len(ends) == 4
        assert all(2 <= len(f.stale_values) <= 4 for f in ends)
        for f in t.facts:
            text = message_text(t.messages[f.message_index])
            assert not [old for old in f.stale_values if old in text]
            if f.stale is not None:
                assert f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 30
                by_email += f.role == "tool"
            elif f.until is None:
                looks += 1
                assert f.role == "user"
                assert re.search(r"theirs changed|not to be confused|separate thing|fixed", text)
    assert by_email >= 5 and looks >= 9


def test_confirms_two_facts_an_offer_taken_without_naming_it() -> None:
    ways = {"feature": 0, "exclude": 0, "question": 0, "switch": 0, "later": 0}
    firms = {x for xs, _, _ in NEEDS.values() for x in xs}
    for seed in SEEDS:
        t = traj("blind11-confirms", seed)
        offers: dict[int, list[str]] = {}
        for f in t.facts:
            assert f.role == "assistant" and f.confirm_index is not None and f.rejected
            offers.setdefault(f.message_index, []).append(f.kind)
            answer = t.messages[f.confirm_index]["content"]
            assert not [x for x in (f.value, *f.rejected) if x in answer]
            assert not [x for x in firms if x in answer]
            if f.kind != "name":
                continue
            if answer.startswith("not the"):
                ways["exclude"] += 1
            elif answer.startswith("hang on"):
                ways["switch"] += 1
                assert any(f"the {o}" in answer for o in ORDINALS)
            elif answer.startswith("we've talked"):
                ways["later"] += 1
                assert f.confirm_index > f.message_index + 8
            elif "the one that" in answer or answer.startswith("whichever"):
                ways["feature"] += 1
            else:
                ways["question"] += 1
                assert "?" in t.messages[f.confirm_index - 2]["content"]
        assert all(kinds == ["name", "value"] for kinds in offers.values())
    assert min(ways.values()) >= 4, ways


def test_intl_four_scripts_native_dates_and_replacements() -> None:
    shapes: set[str] = set()
    replaced = 0
    people = {n for names in NAMES.values() for n, _ in names}
    for seed in range(5):
        t = traj("blind11-intl", seed)
        for f in t.facts:
            v = f.value
            if v in people:
                assert len(f.aliases) == 1
                lang = next(lang for lang, ns in NAMES.items() if (v, f.aliases[0]) in ns)
                shapes.add(f"{lang} name")
            else:
                assert re.fullmatch(r"\d{1,2} [A-Z][a-z]+ 2027", f.aliases[0])
                assert re.fullmatch(r"[A-Z][a-z]+ \d{1,2}, 2027", f.aliases[1])
                if re.search("[\u0900-\u097f]", v):
                    shapes.add("hi date digits" if "२०२७" in v else "hi date")
                elif re.search("[\uac00-\ud7af]", v):
                    assert re.fullmatch(r"2027년 \d{1,2}월 \d{1,2}일", v)
                    shapes.add("ko date")
                elif re.search("[\u0600-\u06ff]", v):
                    shapes.add("ar date digits" if "٢٠٢٧" in v else "ar date")
                else:
                    assert re.fullmatch(r"2027\. [^\W\d]+ \d{1,2}\.", v)
                    shapes.add("hu date")
            if f.stale is not None:
                replaced += 1
                assert f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 40
    assert shapes == {
        "hi name",
        "ko name",
        "ar name",
        "hu name",
        "hi date",
        "hi date digits",
        "ko date",
        "ar date",
        "ar date digits",
        "hu date",
    }
    assert replaced >= 20
    assert native_date("hi", 14, 3, True) == "१४ मार्च २०२७"
    assert native_date("ar", 14, 3, True) == "١٤ آذار ٢٠٢٧"
    assert native_date("ko", 14, 3) == "2027년 3월 14일"
    assert native_date("hu", 14, 3) == "2027. március 14."
