"""The fourth blind set (evals/families/blind4): seeded, values planted once, shapes as claimed."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from evals.families import blind4
from evals.families.blind4.base import count_in
from evals.families.blind4.habits import BANNED
from evals.families.blind4.locale import fold
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.trajectories import Trajectory
from summem.messages import Message
from summem.tokens.base import resolve_counter

NAMES = sorted(n for n in FAMILIES if n.startswith("blind4-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_six_families_registered() -> None:
    assert len(NAMES) == 6
    assert {FAMILIES[n].style for n in NAMES} == set(blind4.GENERATORS)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_planted_and_replaced_value_in_exactly_one_message(name: str, seed: int) -> None:
    t = traj(name, seed)
    assert len(t.facts) >= 20
    for f in t.facts:
        stale = (f.stale,) if f.stale is not None else ()
        for value in (f.value, *stale, *f.older, *f.rejected):
            assert count_in(t.messages, value) == 1, (f, value)
        assert f.value in message_text(t.messages[f.message_index])
        assert t.messages[f.message_index]["role"] == f.role
        assert t.turn_starts[f.turn_index] <= f.message_index
        if f.turn_index + 1 < len(t.turn_starts):
            assert f.message_index < t.turn_starts[f.turn_index + 1]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", SEEDS)
def test_long_enough_for_the_reductions_claimed(name: str, seed: int) -> None:
    """At least 10 reductions at 4,000 and 20 at 2,000, whatever each keeps; under 80k tokens.

    A reduction brings the view under its threshold, so each needs at least the threshold plus
    one message of new tokens before the next.
    """
    t = traj(name, seed)
    counter = resolve_counter(model="gpt-4o")
    sizes = [counter.count_message(Message.model_validate(m)) for m in t.messages]
    total, largest = sum(sizes), max(sizes)
    assert total >= 10 * (4000 + largest) + 4000
    assert total >= 20 * (2000 + largest) + 2000
    assert 45_000 <= total <= 80_000


@pytest.mark.parametrize("seed", SEEDS)
def test_habits_have_no_cue_words(seed: int) -> None:
    t = traj("blind4-habits", seed)
    for f in t.facts:
        text = t.messages[f.message_index]["content"].lower()
        assert not [w for w in BANNED if w in text], text
        reply = t.messages[f.message_index + 1]
        assert reply["role"] == "assistant" and f.value not in reply["content"]


def _row(text: str, value: str) -> str:
    """The printed row holding ``value``: a JSON row, a YAML record, or a line."""
    if text.startswith("{"):
        return " ".join(next(r for r in json.loads(text)["rows"] if value in r))
    if text.startswith("hosts:"):
        return next(block for block in text.split("\n  - ") if value in block)
    return next(line for line in text.splitlines() if value in line)


@pytest.mark.parametrize("seed", SEEDS)
def test_tables_print_in_their_shape_and_a_later_user_turn_names_the_row(seed: int) -> None:
    t = traj("blind4-tables", seed)
    shapes: set[str] = set()
    for f in t.facts:
        text = t.messages[f.message_index]["content"]
        assert f.role == "tool"
        if text.startswith("CONTAINER ID"):
            shapes.add("docker")
            assert re.fullmatch(r"[0-9a-f]{12}", f.value)
        elif text.startswith("NAME ") and "READINESS GATES" in text:
            shapes.add("kubectl")
        elif text.startswith("Filesystem"):
            shapes.add("df")
            assert "Mounted on" in text.splitlines()[0]
        elif text.startswith("total "):
            shapes.add("ls")
            assert all(line.startswith("-rw-") for line in text.splitlines()[1:])
        elif text.startswith("order_id,"):
            shapes.add("csv")
            rows = list(csv.DictReader(io.StringIO(text)))
            assert f.value in [r["order_id"] for r in rows]
        elif text.startswith("<table"):
            shapes.add("html")
            assert text.count("<tr>") == text.count("</tr>")
        elif text.startswith("{"):
            shapes.add("json")
            data = json.loads(text)
            assert f.value in [r[data["columns"].index("tracking")] for r in data["rows"]]
        else:
            shapes.add("yaml")
            assert text.startswith("hosts:\n  - name: ")
        row = _row(text, f.value)
        later = [
            m["content"]
            for m in t.messages[f.message_index + 1 : f.message_index + 80]
            if m["role"] == "user"
        ]
        assert all(f.value not in m for m in later)
        # the follow-up names the row by another of its cells, part of its name or how it
        # stands out (the failing pod, the fullest volume); then the row is the fact's own
        words = {w for w in re.split(r"[\s<>/|,:-]+", row) if len(w) > 3} - {f.value}
        assert any(
            any(w in m for w in words) or "keeps falling over" in m or "nearly full" in m
            for m in later[:14]
        ), (row, later[:14])
    assert len(shapes) == 8


@pytest.mark.parametrize("seed", SEEDS)
def test_confirms_are_accepted_in_a_few_words(seed: int) -> None:
    t = traj("blind4-confirms", seed)
    for f in t.facts:
        assert f.role == "assistant" and f.confirm_index is not None
        offer = t.messages[f.message_index]["content"]
        assert all(r in offer for r in f.rejected)
        answer = t.messages[f.confirm_index]
        assert answer["role"] == "user" and f.confirm_index > f.message_index
        assert len(answer["content"].split()) <= 6 and f.value not in answer["content"]
    assert any(f.rejected for f in t.facts) and any(not f.rejected for f in t.facts)


@pytest.mark.parametrize("seed", SEEDS)
def test_chains_revise_four_to_six_times_and_only_the_latest_is_asked(seed: int) -> None:
    t = traj("blind4-chains", seed)
    heads = [f for f in t.facts if f.stale is None]
    assert len(heads) == FAMILIES["blind4-chains"].facts
    by_value = {f.value: f for f in t.facts}
    lengths = []
    for head in heads:
        chain = [head]
        while chain[-1].until is not None:
            nxt = next(f for f in t.facts if f.message_index == chain[-1].until)
            assert nxt.stale == chain[-1].value and nxt.stale_index == chain[-1].message_index
            assert nxt.older == tuple(c.value for c in chain[:-1])
            assert nxt.kind == head.kind
            chain.append(nxt)
        lengths.append(len(chain))
        assert all(by_value[c.value] is c for c in chain)
    assert min(lengths) >= 4 and max(lengths) <= 6
    assert sum(lengths) == len(t.facts)
    final = t.facts_before(len(t.messages))
    assert len(final) == len(heads) and all(f.until is None for f in final)


@pytest.mark.parametrize("seed", SEEDS)
def test_locale_values_are_written_the_local_way(seed: int) -> None:
    t = traj("blind4-locale", seed)
    for f in t.facts:
        if f.kind == "name":
            assert f.value != fold(f.value) and f.aliases == (fold(f.value),)
        elif f.kind == "date":
            assert f.value.endswith("2027") and f.value not in f.aliases
            assert re.fullmatch(r"2027-\d\d-\d\d", f.aliases[-1])
        elif f.kind == "value":
            assert re.search(r"\d,\d\d (€|zł)$|\dh\d\d$|\d:\d\d (Uhr|h)$", f.value), f.value
    kinds = {f.kind for f in t.facts}
    assert {"name", "date", "value"} <= kinds


@pytest.mark.parametrize("seed", SEEDS)
def test_filler_is_dense_with_values_and_facts_come_from_every_role(seed: int) -> None:
    t = traj("blind4-filler", seed)
    roles = [f.role for f in t.facts]
    assert (roles.count("user"), roles.count("assistant"), roles.count("tool")) == (12, 4, 4)
    planted = {f.message_index for f in t.facts}
    others = [
        m for i, m in enumerate(t.messages[1:], 1) if i not in planted and m["role"] != "tool"
    ]
    with_digits = [m for m in others if re.search(r"\d", message_text(m))]
    assert len(with_digits) >= 0.8 * len(others)
