"""The ``tool-shapes`` family: tables as APIs answer, a row named later by a user turn."""

from __future__ import annotations

import json

import pytest

from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text


@pytest.mark.parametrize("seed", range(4))
def test_each_fact_is_a_cell_of_a_tool_table_whose_row_a_user_names_later(seed: int) -> None:
    traj = FAMILIES["tool-shapes"].trajectory(seed)
    assert len(traj.facts) == FAMILIES["tool-shapes"].facts
    for fact in traj.facts:
        shown = traj.messages[fact.message_index]
        assert shown["role"] == "tool" and fact.value in message_text(shown)
        later = traj.messages[fact.message_index + 1 :]
        assert any(m["role"] == "user" for m in later)


def test_the_shapes_are_deep_json_free_text_and_transposed() -> None:
    texts = [
        message_text(m)
        for seed in range(3)
        for m in FAMILIES["tool-shapes"].trajectory(seed).messages
        if m["role"] == "tool"
    ]
    deep = [json.loads(t) for t in texts if t.startswith('{"apiVersion"')]
    assert deep and all("entries" in item["spec"] for d in deep for item in d["items"])
    assert any(t.startswith("|  |") for t in texts)  # transposed: the corner is empty
    assert any("| description |" in t for t in texts)
