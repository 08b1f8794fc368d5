"""The seventeenth blind set (evals/families/blind17): seeded, planted once, scored as claimed."""

from __future__ import annotations

import json
import re

import pytest

from evals.families import blind17
from evals.families.blind17.prose import DETAILS, LEANING, REFINED
from evals.families.blind17.tables import COLUMNS, FORMATS, render
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.families.placement import count_in
from evals.families.trajectories import Trajectory
from evals.text import contains_normalized, normalize_text

NAMES = sorted(n for n in FAMILIES if n.startswith("blind17-"))


def traj(name: str, seed: int = 0) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_three_families_registered_as_held_out() -> None:
    assert [f"blind17-{x}" for x in ("chains", "prose", "tables")] == NAMES
    assert {FAMILIES[n].style for n in NAMES} == set(blind17.GENERATORS)
    assert all(
        FAMILIES[n].about.startswith("held out, written blind (seventeenth set)") for n in NAMES
    )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 4])
def test_every_value_once_in_its_own_message(name: str, seed: int) -> None:
    t = traj(name, seed)
    assert len(t.facts) == 20
    assert t == FAMILIES[name].trajectory(seed)  # seeded
    for f in t.facts:
        assert count_in(t.messages, f.value) == 1, f
        own = message_text(t.messages[f.message_index])
        assert f.value in own
        norm = normalize_text(own)
        assert contains_normalized(norm, f.value), f  # whole words, as the scorer matches
        for form in f.aliases:  # another form of it ("June 14"), said nowhere else
            assert count_in(t.messages[: f.message_index], form) == 0, (f, form)
            assert count_in(t.messages[f.message_index + 1 :], form) == 0, (f, form)
        for old in f.stale_values:
            assert count_in(t.messages, old) == 1, (f, old)


def _fetches(t: Trajectory) -> dict[int, str]:
    """Each list's result index -> the format it was asked in."""
    return {
        i + 1: json.loads(c["function"]["arguments"])["format"]
        for i, m in enumerate(t.messages)
        for c in m.get("tool_calls") or ()
        if c["function"]["name"] in COLUMNS
    }


def _key_of(fmt: str, table: str, result: str, value: str) -> str:
    """The person whose row holds ``value`` in a list printed as ``fmt``."""
    if fmt == "json_rows":
        return next(str(r[COLUMNS[table][0]]) for r in json.loads(result) if value in r.values())
    if fmt == "json_cols":
        cols = json.loads(result)
        column = next(c for c in cols.values() if value in c)
        return str(cols[COLUMNS[table][0]][column.index(value)])
    line = next(line for line in result.splitlines() if value in line)
    cells = line.strip("| ").split(",") if fmt == "csv" else re.split(r" \| |  +", line[1:])
    return cells[0].strip("| ")


def test_tables_every_shape_a_cell_of_a_row_named_by_its_person() -> None:
    t = traj("blind17-tables")
    fetches = _fetches(t)
    assert {fetches[f.message_index] for f in t.facts} == set(FORMATS)
    delays = []
    for f in t.facts:
        assert f.role == "tool"
        table = t.messages[f.message_index - 1]["tool_calls"][0]["function"]["name"]
        result = t.messages[f.message_index]["content"]
        key = _key_of(fetches[f.message_index], table, result, f.value)
        asks = [k for k, i in enumerate(t.turn_starts) if key in t.messages[i]["content"]]
        assert len(asks) == 1, (f, key)  # one user turn names the row, by its person
        assert count_in(t.messages, key) in (2, 3)  # the list, the ask, the pointer
        delays.append(asks[0] - f.turn_index)
    assert 0 in delays and any(1 <= d <= 4 for d in delays) and any(d >= 30 for d in delays)
    assert all(d == 0 or 1 <= d <= 4 or 30 <= d <= 104 for d in delays)
    results = [m["content"] for m in t.messages if m["role"] == "tool"]
    routine = [c for c in results if c.startswith("vehicle ")]
    assert len(routine) >= 5 and len(set(routine)) == 1  # the same routine output again


def test_tables_renderers() -> None:
    cols = COLUMNS["bookings"]
    rows = [dict(zip(cols, ("Ann Bee", "BK2345", "Wool", "09:05", "4.40", ""), strict=True))]
    assert render("markdown", cols, rows).startswith("| passenger | booking |")
    assert render("csv", cols, rows).splitlines()[1] == "Ann Bee,BK2345,Wool,09:05,4.40,"
    assert json.loads(render("json_rows", cols, rows))[0]["pickup"] == "09:05"
    assert json.loads(render("json_cols", cols, rows))["fare"] == ["4.40"]
    fixed = render("fixed", cols, rows)
    assert fixed.startswith("PASSENGER") and fixed.endswith("1 rows listed")


def test_chains_latest_value_counts_every_earlier_one_stale_beside_look_alikes() -> None:
    roles, late_alike = set(), False
    for seed in range(3):
        t = traj("blind17-chains", seed)
        fixes = [f for f in t.facts if f.kind == "correction"]
        assert len(fixes) >= 10
        roles |= {f.role for f in fixes}
        for f in fixes:
            assert f.stale is not None and f.stale_index is not None
            assert f.stale_index < f.message_index
            assert f.stale not in message_text(t.messages[f.message_index])  # no old value
            if f.until is None:
                assert 3 <= len(f.older) + 2 <= 5  # three to five states a chain
        heads = [f for f in t.facts if f.stale is None and f.until is not None]
        assert all(any(g.stale == h.value for g in fixes) for h in heads)
        alikes = [f for f in t.facts if f.stale is None and f.until is None]
        assert len(alikes) >= 2
        assert {a.kind for a in alikes} <= {h.kind for h in heads}  # the same shapes
        last = max(f.message_index for f in fixes)
        late_alike |= any(a.message_index > last for a in alikes)
    assert roles == {"user", "tool", "assistant"}
    assert late_alike  # a look-alike after the last change: "latest wins" is wrong


def test_prose_no_cue_words_leaning_sentences_changes_and_repeats() -> None:
    for seed in range(3):
        t = traj("blind17-prose", seed)
        texts = [m["content"] for m in t.messages if m["role"] == "user"]
        for f in t.facts:
            text = t.messages[f.message_index]["content"].lower()
            assert f.role == "user"
            assert "i prefer" not in text and "i always" not in text
            assert not re.search(r"\bmy \w+ (is|are)\b", text)
        leaning = {value: (scene, lean) for scene, value, lean in LEANING}
        leant = [f for f in t.facts if f.value in leaning]
        assert leant
        for f in leant:
            scene, lean = leaning[f.value]
            text = t.messages[f.message_index]["content"]
            assert text.index(scene) < text.index(lean) and f.value not in scene
        fixes = [f for f in t.facts if f.kind == "correction"]
        assert len(fixes) == 3 and {f.value for f in fixes} <= {r[2] for r in REFINED}
        for f in fixes:
            first = next(g for g in t.facts if g.value == f.stale)
            assert 60 <= f.turn_index - first.turn_index <= 170
        said = {f.value for f in t.facts}
        again = [d for d in DETAILS if d.value in said and d.again]
        repeated = [d for d in again if any(d.again[1:] in x for x in texts)]
        assert len(repeated) == min(2, len(again))
        assert all(d.value not in d.again for d in DETAILS)
