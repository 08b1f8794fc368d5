"""The ninth blind set (evals/families/blind9): seeded, values planted once, scored as claimed."""

from __future__ import annotations

import re

import pytest

from evals.families import blind9
from evals.families.blind9.confirms import QUESTIONS
from evals.families.blind9.intl import NAMES, ascii_form
from evals.families.blind9.prose import BANNED, DETAILS
from evals.families.blind9.tables import FORMATS
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import Trajectory

NAMES_ = sorted(n for n in FAMILIES if n.startswith("blind9-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered() -> None:
    assert [f"blind9-{x}" for x in ("chains", "confirms", "intl", "prose", "tables")] == NAMES_
    assert {FAMILIES[n].style for n in NAMES_} == set(blind9.GENERATORS)


@pytest.mark.parametrize("name", NAMES_)
def test_same_seed_same_conversation(name: str) -> None:
    make = blind9.GENERATORS[FAMILIES[name].style]
    a, b = make(5), make(5)
    assert a == b
    assert a.messages != make(6).messages


def test_prose_comes_four_ways_without_cue_words() -> None:
    ways: dict[str, int] = {}
    for seed in SEEDS:
        t = traj("blind9-prose", seed)
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.kind == "preference" and f.role == "user"
            assert not [w for w in BANNED if w in text.lower()], text
            assert f.value not in t.messages[f.message_index + 1]["content"]
            if text.startswith(("Hi", "Morning", "Hello")):
                way = "long"
                assert len(text.split()) >= 40
            elif re.search(r"\([^)]*" + re.escape(f.value), text):
                way = "parens"
            elif re.search(r" - [^-]*" + re.escape(f.value) + r"[^-]* - ", text):
                way = "dashes"
            else:
                way = "question"
                assert text.endswith("?")
            ways[way] = ways.get(way, 0) + 1
    assert set(ways) == {"long", "parens", "dashes", "question"}
    assert min(ways.values()) >= 5
    for value, clause in DETAILS:
        assert value in clause
        assert not [w for w in BANNED if w in clause], clause


def _format(text: str) -> str:
    if text.startswith("| "):
        return "markdown"
    if text.startswith("[\n"):
        return "json"
    if text.startswith("- "):
        return "yaml"
    if "," in text.splitlines()[0]:
        return "csv"
    return "aligned"


def test_tables_are_fetched_again_with_cells_changed() -> None:
    formats: set[str] = set()
    corrections = pointed = repeated = 0
    for seed in SEEDS:
        t = traj("blind9-tables", seed)
        listings: dict[str, list[str]] = {}
        for i, m in enumerate(t.messages):
            calls = m.get("tool_calls") or ()
            if calls and calls[0]["function"]["name"] == "sheets_lookup":
                text = t.messages[i + 1]["content"]
                formats.add(_format(text))
                args = calls[0]["function"]["arguments"]
                listings.setdefault(args.split('"sheet": "')[1].split('"')[0], []).append(text)
        assert any(len(texts) >= 2 for texts in listings.values())
        for texts in listings.values():
            rows = [set(re.split(r"[\n|,:]", x)) for x in texts]
            repeated += any(rows[k] & rows[0] - {"", " "} for k in range(1, len(rows)))
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
            bool(re.search(r"the (first|second|third|fourth|fifth|sixth|bottom) one", m["content"]))
            for m in t.messages
            if m["role"] == "user"
        )
    assert formats == set(FORMATS)
    assert corrections >= 10 and pointed >= 2 and repeated >= 3


def test_chains_change_two_to_four_times_beside_numbered_items() -> None:
    plain = numbered = 0
    for seed in SEEDS:
        t = traj("blind9-chains", seed)
        ends = [f for f in t.facts if f.stale is not None and f.until is None]
        assert ends
        for f in ends:
            assert 2 <= len(f.stale_values) <= 4
        for f in t.facts:
            text = message_text(t.messages[f.message_index])
            assert f.role == "user"
            if f.stale is not None:
                assert not [old for old in f.stale_values if old in text]
                plain += not re.search(r"scratch|turns out|moved|rebook|change|instead|now", text)
            elif re.search(r"(step|Room|van|show) 1\b", text):
                numbered += 1
                assert f.until is None
    assert plain >= 1
    assert numbered >= 9


def test_confirms_are_terse_and_never_name_the_option() -> None:
    ways: set[str] = set()
    for seed in SEEDS:
        t = traj("blind9-confirms", seed)
        for f in t.facts:
            assert f.role == "assistant" and f.confirm_index is not None
            offer = t.messages[f.message_index]["content"]
            answer = t.messages[f.confirm_index]["content"]
            assert len(answer.split()) <= 6
            assert all(o in offer for o in f.rejected) and 1 <= len(f.rejected) <= 2
            between = t.messages[f.message_index + 1 : f.confirm_index + 1]
            assert not [o for o in (f.value, *f.rejected) for m in between if o in m["content"]]
            if "cheap" in answer:
                ways.add("price")
                prices = {
                    o: int(re.findall(re.escape(o) + r"\D+(\d+)", offer)[0])
                    for o in (f.value, *f.rejected)
                }
                assert min(prices, key=lambda o: prices[o]) == f.value
            elif f.confirm_index > f.message_index + 1:
                ways.add("question")
                assert t.messages[f.message_index + 1]["content"] in QUESTIONS.values()
            elif re.search(r"first|second|third|number|top|last", answer):
                ways.add("position")
            else:
                ways.add("pick")
                assert f"I'd go with {f.value}." in offer
    assert ways == {"price", "question", "position", "pick"}


def test_intl_values_keep_their_conventions() -> None:
    shapes: set[str] = set()
    corrected = 0
    every = {n for names in NAMES.values() for n in names}
    for seed in SEEDS:
        t = traj("blind9-intl", seed)
        for f in t.facts:
            v = f.value
            if re.fullmatch(r"\d\d-\d\d-2027", v):
                shapes.add("nl date")
            elif re.fullmatch(r"\d\d\.\d{1,2}\.2027", v):
                shapes.add("dotted date")
            elif re.fullmatch(r"\d\d\. \d{1,2}\. 2027", v):
                shapes.add("cs date")
            elif re.fullmatch(r"\d\d[.:]\d\d", v):
                shapes.add("time")
                assert f.aliases == (v.replace(".", ":") if "." in v else v.replace(":", "."),)
            else:
                shapes.add("name")
                assert v in every and not v.isascii()
                assert f.aliases == (ascii_form(v),) and ascii_form(v).isascii()
            if "2027" in v:
                assert any(re.search(r"[A-Z][a-z]+ \d\d, 2027", a) for a in f.aliases)
            corrected += f.stale is not None
    assert shapes == {"nl date", "dotted date", "cs date", "time", "name"}
    assert corrected >= 15
