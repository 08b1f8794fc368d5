"""The twelfth blind set (evals/families/blind12): seeded, planted once, scored as claimed."""

from __future__ import annotations

import datetime
import json
import re

import pytest

from evals.families import blind12
from evals.families.blind12.chains import SUBJECTS
from evals.families.blind12.confirms import NEEDS, ORDINALS
from evals.families.blind12.intl import NAMES, native_date, solar_hijri
from evals.families.blind12.prose import ANSWERS, CUES, EPISODES, NARROWED, PLAIN
from evals.families.blind12.tables import BOATS, FORMATS, NOTES, render
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import count_in, texts_of, where
from evals.families.trajectories import Trajectory
from summem.messages import Message
from summem.tokens.base import resolve_counter

NAMES_ = sorted(n for n in FAMILIES if n.startswith("blind12-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def turn_of(t: Trajectory, index: int) -> int:
    return max(k for k, start in enumerate(t.turn_starts) if start <= index)


def test_five_families_registered_as_held_out() -> None:
    assert [f"blind12-{x}" for x in ("chains", "confirms", "intl", "prose", "tables")] == NAMES_
    assert {FAMILIES[n].style for n in NAMES_} == set(blind12.GENERATORS)
    assert all(FAMILIES[n].about.startswith("held out, written blind") for n in NAMES_)


@pytest.mark.parametrize("name", NAMES_)
def test_same_seed_same_conversation(name: str) -> None:
    make = blind12.GENERATORS[FAMILIES[name].style]
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
            for option in f.rejected:
                assert where(texts, option) == [f.message_index], (seed, f, option)


@pytest.mark.parametrize("name", NAMES_)
def test_between_44k_and_56k_tokens_and_small_runs_still_plant(name: str) -> None:
    counter = resolve_counter(model="gpt-4o")
    for seed in SEEDS:
        t = traj(name, seed)
        total = sum(counter.count_message(Message.model_validate(m)) for m in t.messages)
        assert 44_000 <= total <= 56_000, (seed, total)
    small = FAMILIES[name].trajectory(0, turns=80, facts=6)
    assert len(small.facts) == 6 and 80 <= len(small.turn_starts) <= 85


def test_prose_four_ways_without_cue_words_the_reply_never_repeats() -> None:
    pools = {"plain": PLAIN, "episode": EPISODES}
    ways = {"plain": 0, "episode": 0, "answer": 0, "narrowed": 0}
    answers = {v for _, v, _ in ANSWERS}
    unnamed = 0
    for seed in SEEDS:
        t = traj("blind12-prose", seed)
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.role == "user" and f.kind in ("preference", "correction")
            assert not [c for c in CUES if c in text.lower()], text
            assert f.value not in t.messages[f.message_index + 1]["content"]
            if f.stale is not None:
                ways["narrowed"] += 1
                assert f.stale not in text and f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 40
                continue
            if f.value in answers:
                ways["answer"] += 1
                question = t.messages[f.message_index - 1]["content"]
                assert question.endswith("?")
                unnamed += " you " not in f" {question.lower()} "  # "How old are the kids?"
                continue
            for way, pool in pools.items():
                ways[way] += any(v == f.value for v, _ in pool)
    assert min(ways.values()) >= 6, ways
    assert unnamed >= 3
    for old, first, new, fix in NARROWED:
        assert old in first and new in fix and old not in fix


def test_tables_every_shape_and_the_planted_row_named_never_its_cell() -> None:
    handles = {h for _, h in NOTES}
    shapes: set[str] = set()
    by_note = 0
    for seed in SEEDS:
        t = traj("blind12-tables", seed)
        users = [m["content"] for m in t.messages if m["role"] == "user"]
        tools = [m for m in t.messages if m["role"] == "tool"]
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.role == "tool" and f.kind in ("code", "value", "date")
            call = t.messages[f.message_index - 1]["tool_calls"][0]["function"]
            assert call["name"] == "yard"
            shapes.add(json.loads(call["arguments"])["format"])
            keys = [b for b in BOATS if b in text] + [f"the {h} one" for h in handles if h in text]
            named = [k for k in keys if any(k in u for u in users)]
            assert len(named) == 1, (seed, f, named)  # the planted row's boat or notes
            assert count_in(tools, named[0].removeprefix("the ").removesuffix(" one")) == 1
            for value in (f.value, *f.aliases):
                assert not [u for u in users if value in u]
            by_note += named[0].startswith("the ")
    assert shapes == set(FORMATS)
    assert by_note >= 5


def test_tables_shapes_print_like_their_tools() -> None:
    rows = [
        ["Kittiwake", "A", "A03", "KR-4827", "2140.35", "2027-03-14", "rudder bearing worn, owner"],
        ["Sea Pie", "C", "C11", "JF-2234", "980.12", "2027-05-02", "ok"],
    ]
    psql = render("psql", "berths", rows)
    assert "-+-" in psql and psql.endswith("(2 rows)")
    assert render("mysql", "berths", rows).startswith("+-")
    kube = render("kubectl", "berths", rows).split("\n")
    assert kube[0].startswith("BOAT ") and "2027-03-14 rudder" in kube[1]
    assert '"rudder bearing worn, owner"' in render("csv", "berths", rows)
    assert render("json", "berths", rows).count("{") >= 5
    assert '  notes: "rudder bearing worn, owner"' in render("yaml", "berths", rows)
    assert render("transposed", "berths", rows).split("\n")[0].split()[:2] == ["boat", "Kittiwake"]
    grouped = render("grouped", "berths", rows)
    assert grouped.count("subtotal") == 2 and "TOTAL 3120.47" in grouped


def test_chains_change_two_to_four_times_beside_look_alikes_never_replaced() -> None:
    by_email = looks = 0
    words = re.compile(
        r"moved|bumped|pushed|now|reissued|switched|passed|gone up|revised|from today|changed"
    )
    for seed in SEEDS:
        t = traj("blind12-chains", seed)
        ends = [f for f in t.facts if f.stale is not None and f.until is None]
        assert len(ends) == 4
        assert all(2 <= len(f.stale_values) <= 4 for f in ends)
        for f in t.facts:
            text = message_text(t.messages[f.message_index])
            assert not [old for old in f.stale_values if old in text]
            if f.stale is not None:
                assert f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 30
                assert words.search(text), text
                assert not re.search(r"\b(sorry|wrong|mistake|correction)\b", text)
                by_email += f.role == "tool"
            elif f.until is None:
                looks += 1
                assert f.role == "user"
                assert any(
                    text.startswith(a.split("{v}")[0]) for s in SUBJECTS.values() for a in s.alike
                )
    assert by_email >= 5 and looks >= 6


def test_confirms_two_facts_an_offer_taken_without_naming_it() -> None:
    ways = {"feature": 0, "exclude": 0, "pronoun": 0, "detour": 0, "switch": 0}
    firms = {x for xs, _, _ in NEEDS.values() for x, _, _ in xs}
    for seed in SEEDS:
        t = traj("blind12-confirms", seed)
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
            elif answer.startswith("actually no"):
                ways["switch"] += 1
                assert any(
                    f"the {o} one" == t.messages[f.confirm_index - 2]["content"] for o in ORDINALS
                )
            elif answer.startswith("right, back to"):
                ways["detour"] += 1
                assert f.confirm_index > f.message_index + 8
            elif t.messages[f.confirm_index - 2]["content"].startswith("does "):
                ways["pronoun"] += 1
                assert " one" not in answer or answer.endswith("that one")
            else:
                ways["feature"] += 1
                assert " one" in answer
        assert all(kinds == ["name", "value"] for kinds in offers.values())
    assert min(ways.values()) >= 4, ways


def test_intl_four_scripts_native_calendars_and_replacements() -> None:
    shapes: set[str] = set()
    replaced = 0
    people = {n for names in NAMES.values() for n, _ in names}
    for seed in range(5):
        t = traj("blind12-intl", seed)
        for f in t.facts:
            v = f.value
            if v in people:
                lang = next(lang for lang, ns in NAMES.items() if (v, f.aliases) in ns)
                shapes.add(f"{lang} name")
            else:
                assert re.fullmatch(r"\d{1,2} [A-Z][a-z]+ 2027", f.aliases[0])
                assert re.fullmatch(r"[A-Z][a-z]+ \d{1,2}, 2027", f.aliases[1])
                if re.search("[\u0e00-\u0e7f]", v):
                    shapes.add("th date digits" if "๒๕๗๐" in v else "th date")
                    assert "2570" in v or "๒๕๗๐" in v
                elif v.startswith("令和9年"):
                    shapes.add("ja date")
                    assert re.fullmatch(r"2027年\d{1,2}月\d{1,2}日", f.aliases[2])
                elif re.search("[\u0400-\u04ff]", v):
                    shapes.add("uk date")
                else:
                    shapes.add("fa date digits" if "1406" in v else "fa date")
            if f.stale is not None:
                replaced += 1
                assert f.stale_index is not None
                assert turn_of(t, f.message_index) - turn_of(t, f.stale_index) >= 40
    assert shapes == {
        "th name", "ja name", "uk name", "fa name", "th date", "th date digits", "ja date",
        "uk date", "fa date", "fa date digits",
    }  # fmt: skip
    assert replaced >= 20
    assert native_date("th", 14, 3) == "14 มีนาคม 2570"
    assert native_date("th", 14, 3, True) == "๑๔ มีนาคม ๒๕๗๐"
    assert native_date("ja", 14, 3) == "令和9年3月14日"
    assert native_date("uk", 14, 3) == "14 березня 2027"
    assert solar_hijri(datetime.date(2027, 3, 21)) == (1406, 1, 1)
    assert solar_hijri(datetime.date(2027, 6, 14)) == (1406, 3, 24)
    assert solar_hijri(datetime.date(2027, 12, 31)) == (1406, 10, 10)
    assert native_date("fa", 14, 6) == "۲۴ خرداد ۱۴۰۶"
    assert native_date("fa", 14, 6, True) == "24 خرداد 1406"
