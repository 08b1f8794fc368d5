"""``python -m evals.runners.masking``: window, masking-only, summarization and hybrid compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.families.catalogue import tool_heavy
from evals.runners.masking import main, run_masking


def test_tool_results_are_padded_without_moving_the_facts() -> None:
    traj = tool_heavy(0, 30)
    tools = [m for m in traj.messages if m["role"] == "tool"]
    assert tools and all('"trace"' in m["content"] for m in tools)
    for fact in traj.facts:
        assert fact.value in json.dumps(traj.messages[fact.message_index])


def test_masking_saves_summarizer_work_and_masking_only_none_at_all() -> None:
    rows = {r["config"]: r for r in run_masking([0], 60, 3000)}
    assert list(rows) == ["window", "masking", "summarization", "hybrid"]
    for name in ("window", "masking"):
        assert rows[name]["summarizer_input_tokens"] == rows[name]["summaries"] == 0
    assert 0 < rows["hybrid"]["summaries"] < rows["summarization"]["summaries"]
    assert (
        rows["hybrid"]["summarizer_input_tokens"] < rows["summarization"]["summarizer_input_tokens"]
    )
    assert rows["masking"]["fact_retention"] >= rows["window"]["fact_retention"]


def test_main_prints_and_writes_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--seeds", "1", "--turns", "30", "--out", str(tmp_path)]) == 0
    assert "| hybrid |" in capsys.readouterr().out
    report = json.loads((tmp_path / "masking.json").read_text())
    assert [r["config"] for r in report["rows"]] == ["window", "masking", "summarization", "hybrid"]
    assert (tmp_path / "masking.md").read_text().startswith("| config |")
