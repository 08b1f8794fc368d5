from __future__ import annotations

import json
from pathlib import Path

from evals.runners.sweep import grid, main, run_setting
from tests.fakes.llm import ScriptedLLM


def test_grid_skips_impossible_settings_and_applies_prompts_to_llms_only() -> None:
    configs = grid(
        thresholds=[2000, 4000],
        targets=[0.75, 3500],
        summary_budgets=[0.5, 1000],
        summarizers=["extractive", "llm:m"],
        prompts=["summarize", "summarize-brief"],
    )
    labels = [c.label for c in configs]
    assert len(labels) == len(set(labels))
    assert "extractive 2000/1500/1000" in labels  # 0.5 of 2000 == 1000: one setting, not two
    assert not any(c.threshold_tokens == 2000 and c.target_tokens == 3500 for c in configs)
    assert all(c.prompt is None for c in configs if c.summarizer == "extractive")
    assert {c.prompt for c in configs if c.is_llm} == {"summarize", "summarize-brief"}
    assert "llm:m[summarize-brief] 4000/3500/2000" in labels
    soft = grid(
        thresholds=[4000],
        targets=[0.75],
        summary_budgets=[0.25],
        summarizers=["extractive"],
        soft_threshold=0.9,
    )
    assert soft[0].soft_threshold_tokens == 3600


def test_sweep_writes_report_table_and_plots(locomo_path: Path, tmp_path: Path) -> None:
    argv = [
        str(locomo_path), "--out", str(tmp_path), "--conversations", "2",
        "--thresholds", "2000,4000", "--targets", "0.75", "--summary-budgets", "0.25",
        "--trajectory-seeds", "1", "--jobs", "2", "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    labels = [r["label"] for r in report["rows"]]
    assert labels == [
        "extractive 2000/1500/500",
        "extractive 4000/3000/1000",
        "window 2000",
        "observations 2000/500",
        "window 4000",
        "observations 4000/1000",
    ]
    engine = report["rows"][1]
    assert engine["violations"] == 0 and engine["facts_violations"] == 0
    assert 0 < engine["facts_end"] <= 1 and 0 < engine["evidence_all"] <= 1
    assert engine["temporal"] is not None and engine["prompt_ratio"] < 1
    table = (tmp_path / "report.md").read_text()
    assert table.startswith("| label | evidence_all |")
    for name in (
        "evidence_vs_view_tokens",
        "evidence_vs_prompt_tokens",
        "evidence_vs_summarizer_tokens",
        "facts_vs_prompt_tokens",
    ):
        assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")


def test_an_llm_setting_runs_through_the_given_client(locomo_path: Path) -> None:
    config = grid(
        thresholds=[4000],
        targets=[0.75],
        summary_budgets=[0.25],
        summarizers=["llm:scripted"],
        prompts=["summarize-brief"],
    )[0]
    client = ScriptedLLM()
    row = run_setting(
        config,
        dataset=str(locomo_path),
        audit=None,
        conversations=1,
        model="gpt-4o",
        seeds=1,
        client=client,
    )
    assert row["label"] == "llm:scripted[summarize-brief] 4000/3000/1000"
    assert row["provenance"] is False and row["violations"] == 0
    assert row["llm_calls_per_1k"] > 0 and client.requests
    assert all(r.model == "scripted" for r in client.requests)
