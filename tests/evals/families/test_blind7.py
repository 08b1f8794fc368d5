"""The seventh blind set (evals/families/blind7): seeded, values planted once, scored as claimed."""

from __future__ import annotations

import itertools
import json
import re

from evals.families import blind7
from evals.families.blind7.chains import SUBJECTS
from evals.families.blind7.intl import plain
from evals.families.blind7.passing import BANNED, DETAILS
from evals.families.blind7.tables import KINDS
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import Trajectory

NAMES = sorted(n for n in FAMILIES if n.startswith("blind7-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered() -> None:
    assert len(NAMES) == 5
    assert {FAMILIES[n].style for n in NAMES} == set(blind7.GENERATORS)


def test_passing_details_have_no_cue_words_and_come_three_ways() -> None:
    ways: set[str] = set()
    forms = {d[0]: d[1:] for d in DETAILS}
    for seed in SEEDS:
        t = traj("blind7-passing", seed)
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.kind == "preference" and f.role == "user"
            assert not [w for w in BANNED if w in text.lower()], text
            assert len(text.split()) >= 25
            assert f.value not in t.messages[f.message_index + 1]["content"]
            clause, pair, fragment = forms[f.value]
            ways |= {way for way, form in (("clause", clause), ("pair", pair)) if form in text} | (
                {"fragment"} if fragment in text else set()
            )
    assert ways == {"clause", "pair", "fragment"}
    for value, *said in DETAILS:
        assert all(value in form for form in said), value
        assert not [w for w in BANNED if any(w in form.lower() for form in said)], value


def _chains(t: Trajectory) -> list[list[int]]:
    """Each chain's changes, as fact positions, oldest first."""
    chains: list[list[int]] = []
    for k, f in enumerate(t.facts):
        prior = next((c for c in chains if t.facts[c[-1]].value == f.stale), None)
        if prior is None:
            chains.append([k])
        else:
            prior.append(k)
    return chains


def test_chains_change_three_to_six_times_by_every_speaker() -> None:
    speakers, unnamed, kinds = set(), 0, set()
    words = [w for s in SUBJECTS for w in (s.name, *s.others)]
    for seed in SEEDS:
        t = traj("blind7-chains", seed)
        chains = _chains(t)
        assert all(3 <= len(c) <= 6 for c in chains), chains
        assert sum(map(len, chains)) == len(t.facts)
        for chain in chains:
            for a, b in itertools.pairwise(chain):
                assert t.facts[a].until == t.facts[b].message_index
                assert t.facts[b].older == (*t.facts[a].older, t.facts[a].stale)
            assert t.facts[chain[-1]].until is None
        for f in t.facts:
            assert f.kind == "correction" and f.stale is not None
            assert f.stale_index is not None and f.stale_index < f.message_index
            text = message_text(t.messages[f.message_index])
            assert all(old not in text for old in f.stale_values)
            speakers.add(f.role)
            unnamed += not any(w in text for w in words)
            kinds.add(re.sub(r"\d", "9", f.value))
    assert speakers == {"user", "assistant", "tool"}
    assert unnamed >= 3
    assert len(kinds) >= 4  # days, times, money, weights, names, codes


def _format(text: str) -> str:
    first = text.splitlines()[0]
    if text.startswith("{"):
        return "json"
    if text.startswith("<table>"):
        return "html"
    if text.startswith("| "):
        return "markdown"
    if re.match(r"^[A-Z][a-z ]+: ", first):
        return "blocks"
    if "," in first:
        return "csv"
    return "aligned"


def _cell(key: str) -> re.Pattern[str]:
    """``key`` as a whole cell in any of the formats (between separators, not inside a word)."""
    return re.compile(r"(^|[|>\",\n]|: )" + re.escape(key) + r"($|  |[|<\",\n])")


def test_tables_rows_are_picked_by_a_cell_or_a_description_never_the_fact() -> None:
    formats, unpicked, backups = set(), 0, 0
    tools = {k.tool for k in KINDS.values()}
    cells = [_cell(key) for k in KINDS.values() for key in k.keys]
    for seed in SEEDS:
        t = traj("blind7-tables", seed)
        planted = {f.message_index for f in t.facts}
        results = [
            t.messages[i + 1]["content"]
            for i, m in enumerate(t.messages)
            if (m.get("tool_calls") or [{"function": {"name": ""}}])[0]["function"]["name"] in tools
        ]
        for cell in cells:  # a key cell names one row of one table: a pick by it is clear
            assert sum(bool(cell.search(text)) for text in results) <= 1, cell.pattern
        backups += len(t.facts) - len(planted)
        for i, m in enumerate(t.messages):
            calls = m.get("tool_calls") or ()
            if calls and calls[0]["function"]["name"] in tools:
                text = t.messages[i + 1]["content"]
                formats.add(_format(text))
                unpicked += i + 1 not in planted
                if _format(text) == "json":
                    assert json.loads(text)["results"][0]["booking"]
                if _format(text) == "csv":
                    assert re.search(r'"[^"]*,[^"]*"', text), text
        for f in t.facts:
            assert f.role == "tool" and f.kind == "value"
            later = [m["content"] for m in t.messages[f.message_index + 1 :] if m["role"] == "user"]
            assert all(f.value not in m for m in later)
    assert formats == {"json", "html", "markdown", "blocks", "csv", "aligned"}
    assert unpicked >= 3 and backups >= 2


def test_confirms_are_taken_without_naming_the_option() -> None:
    single = asked = refused = changed = 0
    for seed in SEEDS:
        t = traj("blind7-confirms", seed)
        for f in t.facts:
            assert f.role == "assistant" and f.confirm_index is not None
            offer = t.messages[f.message_index]["content"]
            assert all(o in offer for o in f.rejected)
            answer = t.messages[f.confirm_index]
            assert answer["role"] == "user" and f.confirm_index > f.message_index
            assert len(answer["content"].split()) <= 8
            between = t.messages[f.message_index + 1 : f.confirm_index + 1]
            assert not [o for o in (f.value, *f.rejected) for m in between if o in m["content"]]
            single += not f.rejected
            asked += f.confirm_index > f.message_index + 1
            refused += "?" in t.messages[f.message_index - 1]["content"] and (
                t.messages[f.message_index - 2]["role"] == "assistant"
            )
            changed += "the one after" in answer["content"] or "next one" in answer["content"]
    assert single >= 2 and asked >= 3 and refused >= 1 and changed >= 1


def test_intl_values_keep_their_language() -> None:
    shapes: set[str] = set()
    corrected = 0
    for seed in SEEDS:
        t = traj("blind7-intl", seed)
        for f in t.facts:
            v = f.value
            if re.fullmatch(r"\d{1,2}\. \w+", v):
                shapes.add("de date")
            elif re.fullmatch(r"\d{2}/\d{2}", v):
                shapes.add("day first")
            elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
                shapes.add("iso")
            elif re.search(r",\d\d (€|zł)$", v):
                shapes.add("decimal comma")
                assert all("." in a.split()[-1] or "." in a for a in f.aliases)
            elif " de " in v:
                shapes.add("es date")
            elif any(c.isdigit() for c in v):
                shapes.add("fr or pl date")
            else:
                shapes.add("name")
                assert not f.aliases or f.aliases == (plain(v),)
            corrected += f.stale is not None
        names = [f.value for f in t.facts if not any(c.isdigit() for c in f.value)]
        assert any(plain(n) != n for n in names)
    assert shapes == {
        "de date",
        "day first",
        "iso",
        "decimal comma",
        "es date",
        "fr or pl date",
        "name",
    }
    assert corrected >= 12
