"""The held-out families written blind (:mod:`evals.families.blind`): what each one promises."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re

import pytest

from evals.families.blind import prose, tables
from evals.families.blind.locales import fold
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import Trajectory
from evals.metrics.retention import fact_present
from evals.text import normalize_text

BLIND = (
    "prose-preferences",
    "tables",
    "confirmations",
    "correction-chains",
    "multilingual",
    "fragments",
)


def _texts(traj: Trajectory) -> list[str]:
    return [f" {normalize_text(message_text(m))} " for m in traj.messages]


def _where(traj: Trajectory, form: str) -> list[int]:
    needle = f" {normalize_text(form)} "
    return [i for i, text in enumerate(_texts(traj)) if needle in text]


@pytest.mark.parametrize("name", BLIND)
@pytest.mark.parametrize("seed", range(4))
def test_every_planted_value_is_in_its_own_message_only(name: str, seed: int) -> None:
    traj = FAMILIES[name].trajectory(seed)
    for fact in traj.facts:
        assert fact.value in message_text(traj.messages[fact.message_index])
        hits = {i for form in (fact.value, *fact.aliases) for i in _where(traj, form)}
        assert hits == {fact.message_index}, fact
        for old in fact.stale_values:  # a replaced value: in the message that said it only
            assert len(_where(traj, old)) == 1
        for option in fact.rejected:  # an option not taken: in the offer only
            assert _where(traj, option) == [fact.message_index]


@pytest.mark.parametrize("seed", range(6))
def test_prose_preferences_never_use_a_cue_word(seed: int) -> None:
    traj = FAMILIES["prose-preferences"].trajectory(seed)
    kinds = {f.kind for f in traj.facts}
    assert {"preference", "name", "date", "value"} <= kinds
    for fact in traj.facts:
        text = str(traj.messages[fact.message_index]["content"])
        assert prose.banned_in(text) == [], text
    assert prose.banned_in("I always prefer the aisle; my favourite seat.") == [
        "always",
        "prefer",
        "favourite",
    ]


def test_the_cue_word_list_catches_what_it_names_and_not_lookalikes() -> None:
    for cue in ("I prefer", "I hate", "my favorite", "I'd rather", "I love", "I like", "never"):
        assert prose.banned_in(f"Well, {cue} tea.")
    assert prose.banned_in("a lovely man, likely late, noteworthy") == []


def _parse(content: str) -> tuple[str, list[str], list[list[str]]]:
    """The format a table claims, its header and its rows (every cell as text)."""
    if content.startswith("|"):
        lines = content.split("\n")
        assert re.fullmatch(r"\|(---\|)+", lines[1])
        cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
        return "markdown", cells[0], cells[2:]
    if content.startswith("{"):
        data = json.loads(content)
        assert set(data) == {"columns", "rows"}
        return "json-columns", data["columns"], [[str(c) for c in r] for r in data["rows"]]
    if content.startswith("["):
        data = json.loads(content)
        columns = list(data[0])
        assert all(list(r) == columns for r in data)
        return "json-records", columns, [[str(r[c]) for c in columns] for r in data]
    rows = list(csv.reader(io.StringIO(content)))
    return "csv", rows[0], rows[1:]


@pytest.mark.parametrize("seed", range(4))
def test_tables_parse_as_what_they_claim_with_the_value_in_one_cell(seed: int) -> None:
    traj = FAMILIES["tables"].trajectory(seed)
    formats = set()
    for fact in traj.facts:
        message = traj.messages[fact.message_index]
        assert message["role"] == "tool"
        calls = traj.messages[fact.message_index - 1]["tool_calls"]
        claimed = json.loads(calls[0]["function"]["arguments"])["format"]
        fmt, header, rows = _parse(message["content"])
        assert fmt == claimed and fmt in tables.FORMATS
        formats.add(fmt)
        assert 5 <= len(rows) <= 30 and all(len(r) == len(header) for r in rows)
        hits = [
            (i, j) for i, row in enumerate(rows) for j, cell in enumerate(row) if cell == fact.value
        ]
        assert len(hits) == 1, (fact.value, hits)
        key = rows[hits[0][0]][0]
        later = [
            m["content"]
            for m in traj.messages[fact.message_index + 1 :]
            if m["role"] == "user" and key.lower() in str(m["content"]).lower()
        ]
        assert later, f"no later user turn points at the {key} row"
    assert formats == set(tables.FORMATS)
    status = [m for m in traj.messages if m["role"] == "tool" and m["content"].startswith('{"')]
    assert len(status) >= 10  # the repeated reports (and json tables) of the filler


def test_a_table_renders_in_each_format() -> None:
    for fmt in tables.FORMATS:
        text = tables.render(fmt, ["a", "b"], [["x", 1.25], ["y", 2.5]])
        assert _parse(text)[0] == fmt
        assert _parse(text)[2] == [["x", "1.25"], ["y", "2.5"]]
    with pytest.raises(ValueError, match="format must be one of"):
        tables.render("xml", ["a"], [])


@pytest.mark.parametrize("seed", range(4))
def test_confirmations_accept_without_repeating_the_value(seed: int) -> None:
    traj = FAMILIES["confirmations"].trajectory(seed)
    assert any(f.rejected for f in traj.facts) and any(not f.rejected for f in traj.facts)
    for fact in traj.facts:
        offer = traj.messages[fact.message_index]
        assert offer["role"] == "assistant" and fact.confirm_index == fact.message_index + 1
        accept = traj.messages[fact.confirm_index]
        assert accept["role"] == "user" and len(str(accept["content"]).split()) <= 10
        for option in (fact.value, *fact.rejected):
            assert option in offer["content"] and option not in accept["content"]


@pytest.mark.parametrize("seed", range(4))
def test_correction_chains_are_2_to_4_long_and_only_the_latest_is_asked(seed: int) -> None:
    traj = FAMILIES["correction-chains"].trajectory(seed)
    chains: dict[str, list[int]] = {}
    for i, fact in enumerate(traj.facts):
        assert fact.stale is not None and fact.stale_index is not None
        first = fact.older[0] if fact.older else fact.stale
        chains.setdefault(first, []).append(i)
    assert len(chains) == FAMILIES["correction-chains"].facts
    assert {len(c) for c in chains.values()} <= {2, 3, 4}
    assert any(traj.facts[c[0]].kind == "name" for c in chains.values())
    for chain in chains.values():
        facts = [traj.facts[i] for i in chain]
        for before, after in itertools.pairwise(facts):
            assert before.until == after.message_index and after.stale == before.value
            assert after.turn_index - before.turn_index >= 10
        assert facts[-1].until is None
    everything = len(traj.messages)
    asked = traj.facts_before(everything)
    assert len(asked) == len(chains)  # one current value per chain at the end


@pytest.mark.parametrize("seed", range(4))
def test_multilingual_values_are_found_in_their_own_and_in_english_forms(seed: int) -> None:
    traj = FAMILIES["multilingual"].trajectory(seed)
    dates = [f for f in traj.facts if f.kind == "date"]
    names = [f for f in traj.facts if f.kind == "name"]
    assert dates and names
    assert any(re.search(r"[^\x00-\x7f]", f.value) for f in dates)
    assert all(re.search(r"[^\x00-\x7f]", f.value) for f in names)
    for fact in dates:
        english = fact.aliases[0]
        assert fact_present(fact, [], f"- user: appointment on {english}.") == "summary"
        assert fact_present(fact, [], f"- user: «{fact.value}»") == "summary"
    for fact in names:
        assert fact_present(fact, [], f"- user: ¿{fold(fact.value)}?") == "summary"


def test_fold_takes_the_diacritics_off() -> None:
    assert fold("Łukasz Wróbel") == "Lukasz Wrobel"
    assert fold("Begoña Núñez") == "Begona Nunez"
    assert fold("Weiß") == "Weiss"


@pytest.mark.parametrize("seed", range(4))
def test_fragment_values_sit_in_a_second_sentence_after_one_without_them(seed: int) -> None:
    traj = FAMILIES["fragments"].trajectory(seed)
    assert {f.role for f in traj.facts} == {"user", "assistant"}
    for fact in traj.facts:
        text = str(traj.messages[fact.message_index]["content"])
        sentences = re.split(r"(?<=[.!?])\s+", text)
        assert len(sentences) >= 2
        assert fact.value not in sentences[0] and fact.value in sentences[1], sentences


def test_a_blind_style_refuses_the_arguments_it_would_ignore() -> None:
    from evals.families.trajectories import generate_trajectory

    with pytest.raises(ValueError, match="the tables style writes its own"):
        generate_trajectory(0, turns=100, facts=10, corrections=2, style="tables")
    with pytest.raises(ValueError, match="correction-chains has 8 topics"):
        generate_trajectory(0, turns=200, facts=9, style="chains")
