"""The second set of blind held-out families (:mod:`evals.families.blind2`): what each promises.

Each family generates the same conversation for a seed, plants the number of facts it claims
(and asks about the number it claims at the end), and every planted value is in the message
that says it and nowhere else, so a family that planted nothing, or planted a value the
conversation never states, fails here.
"""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

import pytest
import yaml

from evals.families.blind2 import chat
from evals.families.blind2.intl import fold
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import Trajectory, generate_trajectory
from evals.metrics.retention import fact_present
from evals.text import normalize_text

CLAIMS = {
    # family: (turns, planted facts, asked at the end, corrections, choices)
    "blind2-tables": (360, 20, 20, 0, 0),
    "blind2-preferences": (420, 20, 16, 4, 0),
    "blind2-revisions": (420, 19, 8, 11, 0),
    "blind2-accepts": (400, 20, 20, 0, 20),
    "blind2-code": (360, 20, 18, 2, 0),
    "blind2-intl": (460, 20, 18, 2, 0),
}


def _where(traj: Trajectory, form: str) -> list[int]:
    needle = f" {normalize_text(form)} "
    return [
        i for i, m in enumerate(traj.messages) if needle in f" {normalize_text(message_text(m))} "
    ]


def test_every_blind2_family_is_claimed_here() -> None:
    assert {n for n in FAMILIES if n.startswith("blind2-")} == set(CLAIMS)


@pytest.mark.parametrize("name", sorted(CLAIMS))
@pytest.mark.parametrize("seed", range(3))
def test_the_claimed_facts_probes_corrections_and_choices(name: str, seed: int) -> None:
    turns, planted, asked, corrections, choices = CLAIMS[name]
    traj = FAMILIES[name].trajectory(seed)
    assert len(traj.turn_starts) == turns
    assert [traj.messages[i]["role"] for i in traj.turn_starts] == ["user"] * turns
    assert len(traj.facts) == planted
    assert len(traj.facts_before(len(traj.messages))) == asked
    assert sum(f.stale is not None for f in traj.facts) == corrections
    assert sum(bool(f.rejected) and f.confirm_index is not None for f in traj.facts) == choices
    assert [f.id for f in traj.facts] == [f"f{i:02d}" for i in range(planted)]
    assert [f.message_index for f in traj.facts] == sorted(f.message_index for f in traj.facts)


@pytest.mark.parametrize("name", sorted(CLAIMS))
@pytest.mark.parametrize("seed", range(3))
def test_every_planted_value_is_in_its_own_message_only(name: str, seed: int) -> None:
    traj = FAMILIES[name].trajectory(seed)
    for fact in traj.facts:
        message = traj.messages[fact.message_index]
        assert fact.value in message_text(message), fact
        assert fact.role == message["role"]
        hits = {i for form in (fact.value, *fact.aliases) for i in _where(traj, form)}
        assert hits == {fact.message_index}, fact
        for old in fact.stale_values:  # a replaced value: in the one message that said it
            assert len(_where(traj, old)) == 1, (fact, old)
        if fact.stale is not None:
            assert fact.stale_index is not None and fact.stale_index < fact.message_index
            assert _where(traj, fact.stale) == [fact.stale_index]
        if fact.until is not None:  # superseded by a later correction of the same chain
            later = [f for f in traj.facts if f.message_index == fact.until]
            assert [f.stale for f in later] == [fact.value]


@pytest.mark.parametrize("seed", range(3))
def test_enough_turns_between_planting_and_the_end(seed: int) -> None:
    """Every family's conversation runs on well past its last planted fact (reductions keep
    coming after it), and is long: more than 25,000 characters."""
    for name in CLAIMS:
        traj = FAMILIES[name].trajectory(seed)
        size = sum(len(message_text(m)) for m in traj.messages)
        assert size > 25_000, (name, size)
        assert traj.facts[-1].turn_index < len(traj.turn_starts) - 10, name


@pytest.mark.parametrize("seed", range(4))
def test_preferences_never_use_a_cue_word(seed: int) -> None:
    traj = FAMILIES["blind2-preferences"].trajectory(seed)
    for fact in traj.facts:
        text = message_text(traj.messages[fact.message_index])
        assert not chat.CUES.search(text), text
        assert fact.role == "user"
        reply = message_text(traj.messages[fact.message_index + 1])
        assert normalize_text(fact.value) not in normalize_text(reply)


def test_the_cue_list_catches_what_it_names_and_not_lookalikes() -> None:
    for text in ("I prefer tea", "my favourite", "I always do", "I love it", "I'd rather not"):
        assert chat.CUES.search(text), text
    for text in ("a likely story", "Noodle rolled in it", "a loveseat", "the preferential rate"):
        assert not chat.CUES.search(text), text


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _cells(text: str) -> tuple[str, list[list[str]]]:
    """The format a table result is in, and its rows of cells (header first)."""
    stripped = text.lstrip()
    if stripped.startswith("<table"):
        parser = _Cells()
        parser.feed(text)
        return "html", parser.rows
    if stripped.startswith("{"):
        data = json.loads(text)
        rows = [
            [o["customer"]["name"], o["fulfilment"]["tracking"]["number"]]
            for o in data["data"]["orders"]
        ]
        return "json", [["customer", "tracking"], *rows]
    if stripped.startswith("- item:"):
        records = yaml.safe_load(text)
        keys = list(records[0])
        return "yaml", [keys, *([str(r[k]) for k in keys] for r in records)]
    if "\t" in text:
        return "tsv", list(csv.reader(io.StringIO(text), delimiter="\t"))
    return "fixed", [_columns(line) for line in text.splitlines()]


def _columns(line: str) -> list[str]:
    """A fixed-width line's cells (``df``'s header ends in the two-word ``Mounted on``)."""
    cells = line.split()
    return [*cells[:-2], "Mounted on"] if cells[-2:] == ["Mounted", "on"] else cells


@pytest.mark.parametrize("seed", range(4))
def test_table_cells_parse_as_the_format_they_claim_with_the_value_in_one_cell(seed: int) -> None:
    traj = FAMILIES["blind2-tables"].trajectory(seed)
    formats = set()
    for fact in traj.facts:
        text = message_text(traj.messages[fact.message_index])
        fmt, rows = _cells(text)
        formats.add(fmt)
        assert len(rows) >= 6, (fmt, rows)  # a header and at least 5 rows
        width = len(rows[0])
        assert all(len(r) == width for r in rows[1:]), (fmt, rows)
        # a statement's amounts are debits: the cell is the value with a minus sign
        matches = sum(cell.lstrip("-") == fact.value for r in rows[1:] for cell in r)
        assert matches == 1, (fmt, fact)
        assert fact.role == "tool"
    assert formats == {"html", "json", "yaml", "tsv", "fixed"}


@pytest.mark.parametrize("seed", range(4))
def test_an_acceptance_never_names_what_it_accepts(seed: int) -> None:
    traj = FAMILIES["blind2-accepts"].trajectory(seed)
    for fact in traj.facts:
        assert fact.role == "assistant" and fact.confirm_index is not None
        assert fact.confirm_index > fact.message_index
        accept = message_text(traj.messages[fact.confirm_index])
        assert traj.messages[fact.confirm_index]["role"] == "user"
        assert len(accept.split()) <= 9, accept
        for option in (fact.value, *fact.rejected):
            assert normalize_text(option) not in normalize_text(accept)
        assert 1 <= len(fact.rejected) <= 3


@pytest.mark.parametrize("seed", range(3))
def test_code_session_facts_come_from_every_speaker(seed: int) -> None:
    traj = FAMILIES["blind2-code"].trajectory(seed)
    assert {f.role for f in traj.facts} == {"user", "assistant", "tool"}


@pytest.mark.parametrize("seed", range(4))
def test_intl_values_are_found_in_their_own_and_in_their_plain_forms(seed: int) -> None:
    traj = FAMILIES["blind2-intl"].trajectory(seed)
    assert any(fold(f.value) != f.value for f in traj.facts)  # some carry diacritics
    for fact in traj.facts:
        for form in (fact.value, *fact.aliases):
            assert fact_present(fact, [], f"user: it is {form}.") == "summary", form
        if fact.kind == "name":
            assert fold(fact.value) in (fact.value, *fact.aliases)


def test_fold_takes_the_diacritics_off() -> None:
    assert fold("Weißmüller") == "Weissmuller"
    assert fold("Nguyễn Thị Thu Hằng") == "Nguyen Thi Thu Hang"
    assert fold("Đặng") == "Dang"
    assert fold("Takahashi Yūko") == "Takahashi Yuko"


def test_a_blind2_style_refuses_the_arguments_it_would_ignore() -> None:
    with pytest.raises(ValueError, match="the revisions style writes its own"):
        generate_trajectory(0, turns=100, facts=10, corrections=2, style="revisions")
