"""The third blind set (evals/families/blind3): seeded, values planted once, formats as claimed."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re

import pytest

from evals.families import blind3
from evals.families.blind3.base import count_in
from evals.families.blind3.passing import BANNED
from evals.families.catalogue import FAMILIES
from evals.families.facts import PlantedFact, message_text
from evals.families.trajectories import Trajectory
from summem.messages import Message
from summem.tokens.base import resolve_counter

NAMES = sorted(n for n in FAMILIES if n.startswith("blind3-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_six_families_registered() -> None:
    assert len(NAMES) >= 6
    assert {FAMILIES[n].style for n in NAMES} == set(blind3.GENERATORS)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_planted_value_stated_exactly_once(name: str, seed: int) -> None:
    t = traj(name, seed)
    assert len(t.facts) >= 7
    for f in t.facts:
        for value in (f.value, *f.older, *((f.stale,) if f.stale else ())):
            assert count_in(t.messages, value) == 1, (f, value)
        assert f.value in message_text(t.messages[f.message_index])
        assert t.messages[f.message_index]["role"] == f.role


@pytest.mark.parametrize("name", NAMES)
def test_long_enough_for_the_reduction_counts(name: str) -> None:
    """Enough tokens for 10 reductions at 4,000 and 20 at 2,000 whatever a reduction keeps.

    Between two reductions the view grows by at most the threshold plus one message, so a
    conversation of ``n * (threshold + largest message) + threshold`` tokens goes through at
    least ``n`` reductions.
    """
    counter = resolve_counter(model="gpt-4o")
    for seed in SEEDS:
        sizes = [
            counter.count_message(Message.model_validate(m)) for m in traj(name, seed).messages
        ]
        total, largest = sum(sizes), max(sizes)
        assert total >= 10 * (4000 + largest) + 4000, (seed, total, largest)
        assert total >= 20 * (2000 + largest) + 2000, (seed, total, largest)


# --- passing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_passing_facts_inside_longer_messages_without_cue_words(seed: int) -> None:
    t = traj("blind3-passing", seed)
    assert {f.kind for f in t.facts} == {"preference", "name", "date", "value", "code"}
    for f in t.facts:
        text = message_text(t.messages[f.message_index])
        assert f.role == "user"
        assert not any(cue in text.lower() for cue in BANNED), text
        assert len(re.findall(r"[.?!](?:\s|$)", text)) >= 3, text  # a request, the fact, more
        assert len(text) >= 4 * len(f.value), text
        assert f.value not in message_text(t.messages[f.message_index + 1])


# --- revisions -------------------------------------------------------------------------------


def chains(t: Trajectory) -> list[list[PlantedFact]]:
    out: list[list[PlantedFact]] = []
    for f in t.facts:
        if f.stale is None:
            out.append([f])
        else:
            chain = next(c for c in out if c[-1].value == f.stale)
            chain.append(f)
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_revisions_chain_three_values_each_superseded_by_the_next(seed: int) -> None:
    t = traj("blind3-revisions", seed)
    found = chains(t)
    assert len(found) == 7
    for chain in found:
        assert len(chain) >= 3
        for before, after in itertools.pairwise(chain):
            assert before.until == after.message_index
            assert after.stale_index == before.message_index
            assert after.message_index - before.message_index >= 10  # at least 5 turns apart
            assert after.older == tuple(f.value for f in chain[: chain.index(before)])
        assert chain[-1].until is None
    latest = t.facts_before(len(t.messages))
    assert {f.value for f in latest} == {c[-1].value for c in found}


def test_revisions_phrased_as_people_do() -> None:
    texts = " ".join(
        message_text(t.messages[f.message_index]).lower()
        for t in (traj("blind3-revisions", s) for s in SEEDS)
        for f in t.facts
        if f.stale is not None
    )
    for phrase in ("no wait", "scratch that", "make it", "works better", "actually"):
        assert phrase in texts, phrase
    assert re.search(r"\bthe \d{1,2}(st|nd|rd|th) works better", texts)  # implicit, no month


# --- grids -----------------------------------------------------------------------------------


def parse_psql(text: str) -> list[list[str]]:
    lines = text.split("\n")
    rule = re.compile(r"^\+(-+\+)+$")
    assert rule.match(lines[0]) and rule.match(lines[2]) and rule.match(lines[-2])
    assert lines[0] == lines[2] == lines[-2]
    rows = [[c.strip() for c in line[1:-1].split("|")] for line in lines[1:2] + lines[3:-2]]
    assert re.fullmatch(rf"\({len(rows) - 1} rows\)", lines[-1])
    assert all(len(line) == len(lines[0]) for line in lines[:-1])
    return rows


def parse_pandas(text: str) -> list[list[str]]:
    body, footer = text.split("\n\n")
    lines = body.split("\n")
    header = lines[0]
    ends = [m.end() for m in re.finditer(r"\S+", header)]  # right-aligned: columns end together
    rows = [header.split()]
    for i, line in enumerate(lines[1:]):
        assert line.startswith(str(i)) and len(line) == len(header)
        starts = [0, *ends[:-1]]
        cells = [line[a:b].strip() for a, b in zip(starts, ends, strict=True)]
        assert cells[0].startswith(str(i))
        cells[0] = cells[0][len(str(i)) :].strip()
        rows.append(cells)
    assert footer == f"[{len(rows) - 1} rows x {len(header.split())} columns]"
    return rows


def parse_tsv(text: str) -> list[list[str]]:
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    return list(csv.reader(io.StringIO(text, newline=""), delimiter="\t"))


def parse_json(text: str) -> list[list[str]]:
    data = json.loads(text)
    assert isinstance(data, list) and all(isinstance(r, dict) for r in data)
    keys = list(data[0])
    assert all(list(r) == keys for r in data)
    return [keys] + [
        [json.dumps(v) if not isinstance(v, str) else v for v in r.values()] for r in data
    ]


def parse_markdown(text: str) -> list[list[str]]:
    lines = text.split("\n")
    assert re.fullmatch(r"\|( :?-{3,}:? \|)+", lines[1])
    assert ":" in lines[1]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in [lines[0], *lines[2:]]]
    assert len({len(r) for r in rows}) == 1
    return rows


PARSERS = {
    "psql": parse_psql,
    "pandas": parse_pandas,
    "tsv": parse_tsv,
    "json": parse_json,
    "markdown": parse_markdown,
}


def tables(t: Trajectory) -> dict[int, tuple[str, list[list[str]]]]:
    calls = {}
    for m in t.messages:
        for call in m.get("tool_calls") or ():
            calls[call["id"]] = json.loads(call["function"]["arguments"])["format"]
    out = {}
    for i, m in enumerate(t.messages):
        if m["role"] == "tool":
            fmt = calls[m["tool_call_id"]]
            rows = PARSERS[fmt](m["content"])
            assert len(rows) >= 7 and len({len(r) for r in rows}) == 1
            out[i] = (fmt, rows)
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_grids_formats_parse_and_a_later_turn_names_the_row_by_another_column(seed: int) -> None:
    t = traj("blind3-grids", seed)
    found = tables(t)
    assert {fmt for fmt, _ in found.values()} == set(PARSERS)
    assert {found[f.message_index][0] for f in t.facts} == set(PARSERS)
    for f in t.facts:
        _, rows = found[f.message_index]
        row = next(r for r in rows[1:] if f.value in r)
        col = row.index(f.value)
        later = [
            message_text(m)
            for m in t.messages[f.message_index + 1 : f.message_index + 60]
            if m["role"] == "user"
        ]
        pointed = [
            c for c in range(1, len(row)) if c != col and any(row[c] in u for u in later[:16])
        ]
        assert pointed, (f, row)
        assert all(f.value not in u for u in later)


# --- picks -----------------------------------------------------------------------------------

WORDS = {"first": 0, "1": 0, "second": 1, "2": 1, "third": 2, "3": 2, "three": 2}


@pytest.mark.parametrize("seed", SEEDS)
def test_picks_offer_a_list_and_the_pick_resolves_to_the_value(seed: int) -> None:
    t = traj("blind3-picks", seed)
    styles = set()
    for f in t.facts:
        offer = message_text(t.messages[f.message_index])
        items = re.findall(r"^(\d+\.|-) (.+?): £([\d,]+) ", offer, flags=re.M)
        assert 2 <= len(items) <= 4
        names = [n for _, n, _ in items]
        prices = [int(p.replace(",", "")) for _, _, p in items]
        assert set(names) == {f.value, *f.rejected}
        styles.add(items[0][0] == "-")
        assert f.confirm_index is not None
        reply = message_text(t.messages[f.confirm_index]).lower()
        assert not any(n.lower() in reply for n in names)
        chosen = names.index(f.value)
        if "cheap" in reply or "least expensive" in reply:
            assert prices[chosen] == min(prices)
        elif "pricier" in reply or "most expensive" in reply:
            assert prices[chosen] == max(prices)
        elif "last" in reply or "bottom" in reply:
            assert chosen == len(names) - 1
        else:
            word = next(w for w in re.findall(r"[a-z0-9]+", reply) if w in WORDS)
            assert chosen == WORDS[word]
    assert styles == {True, False}  # numbered and bulleted


# --- split -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_split_value_in_the_second_of_two_consecutive_user_messages(seed: int) -> None:
    t = traj("blind3-split", seed)
    for f in t.facts:
        i = f.message_index
        assert t.messages[i - 1]["role"] == "user" and t.messages[i]["role"] == "user"
        assert i - 1 in t.turn_starts and i not in t.turn_starts
        assert f.value not in message_text(t.messages[i - 1])
        assert t.messages[i + 1]["role"] == "assistant"


# --- ops -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_ops_mostly_repetitive_tool_output_with_values_from_every_side(seed: int) -> None:
    t = traj("blind3-ops", seed)
    tool_texts = [message_text(m) for m in t.messages if m["role"] == "tool"]
    pytest_runs = [x for x in tool_texts if "test session starts" in x]
    assert len(pytest_runs) >= 15
    assert len({re.sub(r"[\d.]+s ", "", x.split("\n", 2)[2]) for x in pytest_runs}) <= 3
    assert {f.role for f in t.facts} == {"user", "assistant", "tool"}
    counter = resolve_counter(model="gpt-4o")
    tool_tokens = sum(counter.count_text(x) for x in tool_texts)
    all_tokens = sum(counter.count_text(message_text(m)) for m in t.messages)
    assert tool_tokens > 0.8 * all_tokens


def test_unknown_style_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown blind3 style 'nope'"):
        blind3.generate("nope", 0, turns=10, facts=2)


def test_too_few_turns_for_the_chains_is_refused() -> None:
    with pytest.raises(ValueError, match="too few"):
        blind3.generate("b3-revisions", 0, turns=30, facts=21)
