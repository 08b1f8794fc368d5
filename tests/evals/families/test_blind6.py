"""The sixth blind set (evals/families/blind6): seeded, values planted once, scored as claimed."""

from __future__ import annotations

import pytest

from evals.families import blind6
from evals.families.blind6.prose import BANNED
from evals.families.blind6.tables import KINDS
from evals.families.catalogue import FAMILIES
from evals.families.trajectories import Trajectory

NAMES = sorted(n for n in FAMILIES if n.startswith("blind6-"))
SEEDS = (0, 1, 2)


def traj(name: str, seed: int) -> Trajectory:
    return FAMILIES[name].trajectory(seed)


def test_five_families_registered() -> None:
    assert len(NAMES) == 5
    assert {FAMILIES[n].style for n in NAMES} == set(blind6.GENERATORS)


def test_restated_fixes_name_the_subject_anew() -> None:
    stated_by, chains, in_words = set(), 0, 0
    for seed in SEEDS:
        t = traj("blind6-restated", seed)
        for f in t.facts:
            assert f.kind == "correction" and f.role == "user"
            assert f.stale is not None and f.stale_index is not None
            assert f.stale_index < f.message_index
            fix = t.messages[f.message_index]["content"]
            assert all(old not in fix for old in f.stale_values)
            assert f.value not in t.messages[f.message_index + 1]["content"]
            if not f.older:
                stated_by.add(t.messages[f.stale_index]["role"])
            chains += bool(f.older)
            in_words += f.value.isalpha() and f.value.islower()
    assert stated_by == {"user", "assistant", "tool"}
    assert chains >= 3 and in_words >= 2


def test_tables_rows_are_named_by_a_cell_or_a_description_never_the_fact() -> None:
    formats, shared, unnamed = set(), 0, 0
    tools = {k.tool for k in KINDS.values()}
    for seed in SEEDS:
        t = traj("blind6-tables", seed)
        named = {f.message_index for f in t.facts}
        shared += len(t.facts) - len(named)
        for i, m in enumerate(t.messages):
            calls = m.get("tool_calls") or ()
            if calls and calls[0]["function"]["name"] in tools and i + 1 not in named:
                unnamed += 1
        for f in t.facts:
            text = t.messages[f.message_index]["content"]
            assert f.role == "tool"
            first = text.splitlines()[0]
            formats.add(
                "json"
                if text.startswith("[")
                else "md"
                if text.startswith("|")
                else "yaml"
                if text.startswith("- ")
                else "tsv"
                if "\t" in first
                else "csv"
                if "," in first
                else "aligned"
            )
            later = [m["content"] for m in t.messages[f.message_index + 1 :] if m["role"] == "user"]
            assert all(f.value not in m for m in later)
    assert formats == {"json", "md", "yaml", "tsv", "csv", "aligned"}
    assert shared >= 2 and unnamed >= 3


@pytest.mark.parametrize("seed", SEEDS)
def test_prose_has_no_cue_words(seed: int) -> None:
    t = traj("blind6-prose", seed)
    for f in t.facts:
        text = t.messages[f.message_index]["content"]
        assert f.kind == "preference" and f.role == "user"
        assert not [w for w in BANNED if w in text.lower()], text
        assert len(text.split()) >= 25
        assert f.value not in t.messages[f.message_index + 1]["content"]


def test_confirms_are_taken_without_naming_the_option() -> None:
    single = later = 0
    for seed in SEEDS:
        t = traj("blind6-confirms", seed)
        for f in t.facts:
            assert f.role == "assistant" and f.confirm_index is not None
            offer = t.messages[f.message_index]["content"]
            assert all(o in offer for o in f.rejected)
            answer = t.messages[f.confirm_index]
            assert answer["role"] == "user" and f.confirm_index > f.message_index
            assert len(answer["content"].split()) <= 8
            assert not [o for o in (f.value, *f.rejected) if o in answer["content"]]
            single += not f.rejected
            later += "later" in answer["content"]
    assert single >= 2 and later >= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_session_mixes_every_kind_of_plant(seed: int) -> None:
    t = traj("blind6-session", seed)
    assert {f.role for f in t.facts} == {"user", "assistant", "tool"}
    assert [f for f in t.facts if f.stale is not None]
    assert [f for f in t.facts if f.confirm_index is not None]
    assert [f for f in t.facts if f.kind == "preference"]
    assert len({f.kind for f in t.facts}) >= 5
