"""The eighth blind set (evals/families/blind8): seeded, values planted once, scored as claimed."""

from __future__ import annotations

import json
import re

import pytest

from evals.families import blind8
from evals.families.blind8.asides import BANNED, DETAILS
from evals.families.blind8.intl import MONTHS, plain
from evals.families.blind8.sheets import KINDS
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import Trajectory

NAMES = sorted(n for n in FAMILIES if n.startswith("blind8-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered() -> None:
    assert [f"blind8-{x}" for x in ("accepts", "asides", "intl", "renames", "sheets")] == NAMES
    assert {FAMILIES[n].style for n in NAMES} == set(blind8.GENERATORS)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_conversation(name: str) -> None:
    a, b = blind8.GENERATORS[FAMILIES[name].style](5), blind8.GENERATORS[FAMILIES[name].style](5)
    assert a == b
    assert a.messages != blind8.GENERATORS[FAMILIES[name].style](6).messages


def test_asides_come_four_ways_without_cue_words() -> None:
    ways: set[str] = set()
    negated = 0
    for seed in SEEDS:
        t = traj("blind8-asides", seed)
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.kind == "preference" and f.role == "user"
            assert not [w for w in BANNED if w in text.lower()], text
            assert f.value not in t.messages[f.message_index + 1]["content"]
            negated += f.value.startswith(("no ", "not "))
            if len(text.split()) <= 8:
                ways.add("answer")
                question = t.messages[f.message_index - 1]
                assert question["role"] == "assistant" and "?" in question["content"]
            elif text.startswith(("Hi", "Morning", "Hello", "Evening")):
                ways.add("email")
            elif "\n- " in text:
                ways.add("list")
            else:
                ways.add("voice")
                assert "." not in text.rstrip(".")  # dictated: run on
    assert ways == {"answer", "email", "list", "voice"}
    assert negated >= 3
    for value, clause, sentence, asks, bare in DETAILS:
        assert all(value in form for form in (clause, sentence, bare)), value
        assert value not in asks


def _grid(text: str) -> str:
    if text.startswith(" ") and "-+-" in text:
        return "psql"
    if "\t" in text:
        return "tsv"
    if text.endswith("END OF REPORT"):
        return "fixed"
    if "\nTOTAL," in text:
        return "csv"
    if re.match(r"^\w+:\n  - ", text):
        return "yaml"
    return "other"


def test_sheets_are_listed_again_with_rows_repeated_and_changed() -> None:
    formats: set[str] = set()
    corrections = pointed = repeated = 0
    for seed in SEEDS:
        t = traj("blind8-sheets", seed)
        listings: dict[str, list[str]] = {}
        for i, m in enumerate(t.messages):
            calls = m.get("tool_calls") or ()
            if calls and calls[0]["function"]["name"] == "office_data":
                text = t.messages[i + 1]["content"]
                formats.add(_grid(text))
                kind = KINDS[json.loads(calls[0]["function"]["arguments"])["listing"]]
                listings.setdefault(kind.name, []).append(text)
        assert all(len(texts) >= 2 for texts in listings.values())
        for texts in listings.values():
            rows = [set(re.split(r"\s*[\n|\t,]\s*", x)) for x in texts]
            repeated += any(rows[k] & rows[0] - {""} for k in range(1, len(rows)))
        for f in t.facts:
            assert f.role == "tool"
            later = [m["content"] for m in t.messages[f.message_index + 1 :] if m["role"] == "user"]
            assert all(f.value not in m for m in later)
            if f.stale is not None:
                corrections += 1
                assert f.stale_index is not None
                assert t.messages[f.stale_index]["role"] == "tool"
                assert f.stale not in t.messages[f.message_index]["content"]
        pointed += sum(
            bool(
                re.search(
                    r"the (top|second|third|fourth|fifth|sixth|seventh|bottom) one", m["content"]
                )
            )
            for m in t.messages
            if m["role"] == "user"
        )
    assert formats == {"psql", "tsv", "fixed", "csv", "yaml"}
    assert corrections >= 6 and pointed >= 3 and repeated >= 3


def test_renames_change_one_of_a_pair_and_keep_the_other() -> None:
    speakers: set[str] = set()
    unnamed = 0
    for seed in SEEDS:
        t = traj("blind8-renames", seed)
        changed = [f for f in t.facts if f.stale is not None]
        kept = [f for f in t.facts if f.stale is None and f.until is None]
        assert len(changed) >= 5 and len(kept) >= 4
        stale = {v for f in changed for v in f.stale_values}
        assert not stale & {f.value for f in kept}
        for f in changed:
            speakers.add(f.role)
            text = message_text(t.messages[f.message_index])
            unnamed += text.startswith(("scrap that", "sorry no"))
            first = next(g for g in t.facts if g.value == (f.older or (f.stale,))[0])
            # the pair's other value was stated at or before the first value of the chain
            assert any(
                g.kind == first.kind and g.message_index <= first.message_index for g in kept
            )
    assert speakers == {"user", "assistant", "tool"}
    assert unnamed >= 1


def _price(offer: str, option: str) -> int:
    """The price the offer gives ``option`` (``Tapwell (£41)`` -> 41)."""
    found = re.search(re.escape(option) + r" \(£([\d,]+)", offer)
    assert found, (option, offer)
    return int(found[1].replace(",", ""))


def test_accepts_are_terse_and_never_name_the_option() -> None:
    ways: set[str] = set()
    for seed in SEEDS:
        t = traj("blind8-accepts", seed)
        for f in t.facts:
            assert f.confirm_index is not None
            answer = t.messages[f.confirm_index]["content"]
            if f.role == "user":
                ways.add("own")
                assert not f.rejected
                continue
            assert f.role == "assistant" and len(answer.split()) <= 8
            offer = t.messages[f.message_index]["content"]
            assert all(o in offer for o in f.rejected)
            between = t.messages[f.message_index + 1 : f.confirm_index + 1]
            assert not [o for o in (f.value, *f.rejected) for m in between if o in m["content"]]
            if "cheap" in answer:
                ways.add("price")
                prices = {o: _price(offer, o) for o in (f.value, *f.rejected)}
                assert min(prices, key=lambda o: prices[o]) == f.value
            elif answer.startswith("yes to the"):
                ways.add("yes-no")
            elif f.confirm_index > f.message_index + 1:
                ways.add("asked")
            elif re.search(r"first|second|third|number|top|last", answer):
                ways.add("position")
            else:
                ways.add("agree")
    assert ways == {"own", "price", "yes-no", "asked", "position", "agree"}


def test_intl_values_keep_their_language() -> None:
    shapes: set[str] = set()
    corrected = 0
    for seed in SEEDS:
        t = traj("blind8-intl", seed)
        for f in t.facts:
            v = f.value
            words = v.split()
            if re.fullmatch(r"\d{1,2} de \w+", v):
                shapes.add("pt date")
                assert words[2] in MONTHS["pt"]
            elif len(words) == 2 and words[1] in MONTHS["it"]:
                shapes.add("it date")
            elif len(words) == 2 and words[1] in MONTHS["nl"]:
                shapes.add("nl date")
            elif re.search(r",\d\d €$", v) or v.startswith("€ "):
                shapes.add("decimal comma")
                assert all(re.search(r"\d\.\d\d", a) for a in f.aliases)
            elif re.search(r"\d", v):
                shapes.add("address")
            else:
                shapes.add("name")
                assert not f.aliases or f.aliases == (plain(v),)
            corrected += f.stale is not None
    assert shapes == {"pt date", "it date", "nl date", "decimal comma", "address", "name"}
    assert corrected >= 15
