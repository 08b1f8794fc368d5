"""The tenth blind set (evals/families/blind10): seeded, values planted once, scored as claimed."""

from __future__ import annotations

import json
import re

import pytest

from evals.families import blind10
from evals.families.blind10.confirms import NEEDS
from evals.families.blind10.intl import GREEK, NAMES, plain
from evals.families.blind10.prose import CUES, DETAILS, QUESTIONS
from evals.families.blind10.tables import FORMATS
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import texts_of, where
from evals.families.trajectories import Trajectory

NAMES_ = sorted(n for n in FAMILIES if n.startswith("blind10-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered() -> None:
    assert [f"blind10-{x}" for x in ("chains", "confirms", "intl", "prose", "tables")] == NAMES_
    assert {FAMILIES[n].style for n in NAMES_} == set(blind10.GENERATORS)


@pytest.mark.parametrize("name", NAMES_)
def test_same_seed_same_conversation(name: str) -> None:
    make = blind10.GENERATORS[FAMILIES[name].style]
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
            for old in f.stale_values:
                assert len(where(texts, old)) == 1, (seed, f, old)
            for option in f.rejected:
                assert where(texts, option) == [f.message_index], (seed, f, option)


def test_prose_comes_three_ways_without_cue_words() -> None:
    ways = {"reason": 0, "answer": 0, "list": 0}
    for seed in SEEDS:
        t = traj("blind10-prose", seed)
        per_message: dict[int, int] = {}
        for f in t.facts:
            per_message[f.message_index] = per_message.get(f.message_index, 0) + 1
            text = t.messages[f.message_index]["content"]
            assert f.kind == "preference" and f.role == "user"
            assert not [c for c in CUES if c in text.lower()], text
            assert f.value not in t.messages[f.message_index + 1]["content"]
            before = t.messages[f.message_index - 1]
            if before["role"] == "assistant" and before["content"].endswith(
                tuple(QUESTIONS.values())
            ):
                ways["answer"] += 1
        ways["list"] += sum(n for n in per_message.values() if n > 1)
        ways["reason"] += sum(
            1
            for i, n in per_message.items()
            if n == 1 and re.search(r"\b(since|because|seeing as|as)\b", t.messages[i]["content"])
        )
        assert max(per_message.values()) <= 3
    assert min(ways.values()) >= 6, ways
    for value, kind, *forms in DETAILS:
        assert kind in QUESTIONS
        assert all(value in form for form in forms), value


def _format(text: str) -> str:
    if text.startswith("| "):
        return "markdown"
    if text.startswith("[{"):
        return "json rows"
    if text.startswith("{"):
        return "json columns"
    return "csv"


def test_tables_mix_formats_refetch_with_a_changed_cell_and_name_rows() -> None:
    formats: set[str] = set()
    corrections = named = 0
    for seed in SEEDS:
        t = traj("blind10-tables", seed)
        keys: set[str] = set()
        for i, m in enumerate(t.messages):
            if m["role"] == "tool" and t.messages[i - 1]["tool_calls"][0]["function"]["name"] == (
                "workshop_db"
            ):
                formats.add(_format(m["content"]))
                if m["content"].startswith("{"):
                    keys.update(next(iter(json.loads(m["content"]).values())))
        for f in t.facts:
            assert f.role == "tool"
            if f.stale is not None:
                corrections += 1
                assert f.stale_index is not None and f.stale_index < f.message_index
                assert t.messages[f.stale_index]["role"] == "tool"
        users = [m["content"] for m in t.messages if m["role"] == "user"]
        named += sum(any(f"the {k}" in u for k in keys) for u in users)
        assert all(f.value not in u for f in t.facts for u in users)
    assert formats == set(FORMATS)
    assert corrections >= 15 and named >= 3


def test_chains_change_two_to_four_times_beside_distractors_never_replaced() -> None:
    distractors = 0
    for seed in SEEDS:
        t = traj("blind10-chains", seed)
        ends = [f for f in t.facts if f.stale is not None and f.until is None]
        assert len(ends) == 3
        assert all(2 <= len(f.stale_values) <= 4 for f in ends)
        for f in t.facts:
            text = message_text(t.messages[f.message_index])
            assert f.role == "user"
            assert not [old for old in f.stale_values if old in text]
            if re.search(r"the other one|\n1\. |, .* and ", text):
                distractors += 1
                assert f.stale is None and f.until is None
    assert distractors >= 12


def test_confirms_are_terse_never_name_the_option_and_some_modify() -> None:
    ways = {"position": 0, "later": 0, "single": 0, "pick": 0, "modify": 0}
    firms = {x for xs in NEEDS.values() for x in xs}
    for seed in SEEDS:
        t = traj("blind10-confirms", seed)
        for f in t.facts:
            if f.kind == "correction":
                assert f.stale_index is not None
                assert f.stale in t.messages[f.stale_index]["content"]
                ways["modify"] += 1
                continue
            assert f.role == "assistant" and f.confirm_index is not None and f.value in firms
            answer = t.messages[f.confirm_index]["content"]
            assert len(answer.split()) <= 8
            assert not [x for x in firms if x in answer]
            if not f.rejected:
                ways["single"] += 1
            elif "If it were me" in t.messages[f.message_index]["content"]:
                ways["pick"] += 1
            elif f.confirm_index > f.message_index + 4:
                ways["later"] += 1
            else:
                ways["position"] += 1
    assert min(ways.values()) >= 3, ways


def test_intl_values_keep_their_conventions() -> None:
    shapes: set[str] = set()
    corrected = 0
    people = {n for names in NAMES.values() for n in names}
    for seed in SEEDS:
        t = traj("blind10-intl", seed)
        for f in t.facts:
            v = f.value
            if "2027" in v:
                assert re.fullmatch(r"[A-Z][a-z]+ \d{1,2}, 2027", f.aliases[1])
                if v.startswith("ngày"):
                    shapes.add("vi")
                elif " de " in v:
                    shapes.add("pt")
                elif v.startswith("tarehe"):
                    shapes.add("sw")
                elif "/" in v:
                    shapes.add("figures")
                else:
                    shapes.add("el")
            else:
                assert v in people
                shapes.add("greek name" if v in GREEK else "name")
                assert f.aliases == ((plain(v),) if plain(v) != v else ())
            corrected += f.stale is not None
    assert shapes == {"vi", "pt", "sw", "el", "figures", "name", "greek name"}
    assert corrected >= 15
    assert plain("Đặng Văn Lâm") == "Dang Van Lam"
