"""The ``record-shapes`` family: 3-5 records printed as tools print them, a row named later."""

from __future__ import annotations

import json

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text


@pytest.mark.parametrize("seed", range(3))
def test_each_fact_is_a_cell_of_a_tool_table_whose_row_a_user_names_later(seed: int) -> None:
    traj = FAMILIES["record-shapes"].trajectory(seed)
    assert len(traj.facts) == FAMILIES["record-shapes"].facts
    for fact in traj.facts:
        shown = traj.messages[fact.message_index]
        assert shown["role"] == "tool" and fact.value in message_text(shown)
        later = traj.messages[fact.message_index + 1 :]
        assert any(m["role"] == "user" for m in later)


def test_every_shape_is_printed() -> None:
    texts = [
        message_text(m)
        for seed in range(4)
        for m in FAMILIES["record-shapes"].trajectory(seed).messages
        if m["role"] == "tool"
    ]
    lines = [t.splitlines() for t in texts]
    assert any(len(ls) in (4, 5, 6) and "  " not in t for ls, t in zip(lines, texts, strict=True))
    assert any(t.endswith(" listed") and "----" in t for t in texts)  # fixed width
    assert any("ALL AREAS" in t and "\n    " in t for t in texts)  # grouped
    assert any(all(json.loads(x) for x in ls) for ls in lines if ls[0].startswith("{"))
    assert any(t.startswith("<") for t in texts)
    assert any("\n\n" in t and t.split("\n", 1)[0].count(": ") == 1 for t in texts)
    assert any("\n  - " in t for t in texts)  # a YAML list
