"""``masking:`` in ``summem.yaml``: validated, built into the reducer, used by ``summem replay``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summem.config import parse_config
from summem.errors import ConfigurationError
from summem.reducers.masking import STUB_PREFIX, ToolMasking
from tests.cli.test_app import run, write_json
from tests.reducers.test_masking import tool_turn

CONFIG = """
budget: {threshold: 4000, target: 3000}
masking: {after: 2, min_tokens: 40, exempt_tools: [read_policy]}
"""


def test_the_masking_section_builds_the_reducers_masking() -> None:
    reducer: Any = parse_config(CONFIG).build_reducer()
    assert reducer.masking == ToolMasking(2, 40, frozenset({"read_policy"}))
    off: Any = parse_config("budget: {threshold: 4000}").build_reducer()
    assert off.masking is None


@pytest.mark.parametrize(
    ("text", "expected"), [("masking: {after: -1}", "masking.after"), ("masking: {x: 1}", "x")]
)
def test_bad_masking_settings_are_named(text: str, expected: str) -> None:
    with pytest.raises(ConfigurationError, match=expected):
        parse_config(text)


def test_replay_with_masking_only_makes_no_summarizer_call(tmp_path: Path) -> None:
    config = tmp_path / "summem.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    messages = [m for i in range(8) for m in tool_turn(i, n_words=150)]
    source = write_json(tmp_path / "chat.json", messages)
    out = tmp_path / "out"
    result = run("replay", source, "--config", config, "--out", out, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["totals"]["reductions"] == 0 and doc["totals"]["summarizer_calls"] == 0
    view = json.loads((out / "view.json").read_text())
    stubs = [m["tool_call_id"] for m in view if STUB_PREFIX in (m.get("content") or "")]
    assert stubs == [f"c{i}" for i in range(6)]
    assert len(view) == len(messages)  # nothing evicted: the old results are stubs
