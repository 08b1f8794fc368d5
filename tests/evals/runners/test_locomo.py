from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import evals.engine.config
from evals.runners.locomo import main
from tests.fakes.llm import ScriptedLLM


def run(locomo_path: Path, out: Path, *extra: str) -> dict[str, Any]:
    args = [str(locomo_path), "--conversations", "2", "--out", str(out), "--no-progress"]
    assert main([*args, *extra]) == 0
    report: dict[str, Any] = json.loads((out / "locomo.json").read_text())
    return report


def without_timings(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_engine_beside_the_baselines(
    locomo_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = run(locomo_path, tmp_path, "--budget", "4000")
    assert report["meta"]["dataset_sha256"].startswith("79fa87e9")
    assert report["meta"]["counter"] == "tiktoken:o200k_base"
    rows = {(r["method"], r["group"]): r for r in report["rows"]}
    assert {m for m, _ in rows} == {
        "extractive",
        "observations",
        "observations-even",
        "session-summaries",
        "tfidf",
        "window",
    }
    ext, window = rows[("extractive", "all")], rows[("window", "all")]
    assert ext["provenance"] is True and window["provenance"] is False
    assert ext["config"] == "extractive 4000/3000/1000"
    assert ext["through_memory"] is True  # a Memory's view, loop guard included
    assert (ext["memory_paused"], ext["memory_summaryless"]) == (0, 0)
    assert ext["view_tokens_max"] <= 4000 and window["view_tokens_max"] <= 4000
    assert ext["evidence_all"] > window["evidence_all"]
    assert ext["answer_ceiling"] == window["answer_ceiling"]
    assert report["violations"] == []
    (cost,) = report["costs"]
    assert cost["cycles"] > 10 and cost["violations"] == 0 and cost["waited_share"] > 0
    # the fragment check (tested in tests/evals/metrics/test_fragments.py) is reported; on
    # these two conversations the reply-context rule leaves no dependent short line
    assert cost["summary_lines"] > cost["short_lines"] >= cost["dependent_fragments"] >= 0
    assert isinstance(cost["dependent_fragments"], int)
    assert sum(cost["fragment_reasons"].values()) == cost["dependent_fragments"]
    table = (tmp_path / "locomo.md").read_text()
    assert "| method | budget | summary budget | view tokens | multi-hop |" in table
    assert "| method | budget | whole turns | answer-bearing part |" in table
    assert "| method | budget | view tokens | summary tokens | all | summary only |" in table
    # where the answers sit: the three parts add up to the answer in view (a split one aside)
    parts = ext["answer_summary_only"] + ext["answer_turns_only"] + ext["answer_both"]
    assert ext["answer_in_view"] - 0.02 <= parts <= ext["answer_in_view"]
    assert ext["answer_summary_only"] > 0 and window["answer_summary_only"] == 0.0
    assert window["answer_turns_only"] == window["answer_in_view"]
    # how the gold answer is worded: literal items and the reworded rest make up the whole
    n, k = ext["answer_items"], ext["answer_literal_items"]
    assert 0 < k < n
    both = ext["answer_in_view_literal"] * k + ext["answer_in_view_reworded"] * (n - k)
    assert both == pytest.approx(ext["answer_in_view"] * n)
    assert ext["answer_in_view_neutral"] >= ext["answer_in_view"]
    assert (
        "| method | budget | all | literal items | literal | reworded | pronouns folded |" in table
    )
    assert "| extractive | 4000 |" in table and "compression_ratio" in table
    assert "| scored | paused | no summary at the end | differs from reducer |" in table
    assert "| method | budget | summary lines | under 8 words | dependent on a dropped" in table
    (miss,) = report["misses"]
    assert (miss["method"], miss["reference"], miss["budget_tokens"]) == (
        "extractive",
        "observations-even",
        4000,
    )
    kinds = ("not_carried", "cited_answer_lost", "answer_turn_evicted", "no_literal_evidence")
    assert miss["missed"] == sum(miss[k] for k in kinds)
    assert 0 < miss["missed"] < miss["items"] and miss["in_window"] <= miss["missed"]
    assert "| method | reference | budget_tokens | items | missed | not_carried |" in table
    assert capsys.readouterr().out == table


def test_the_bare_reducer_on_request(locomo_path: Path, tmp_path: Path) -> None:
    report = run(locomo_path, tmp_path, "--budget", "2000", "--summarizer", "extractive")
    bare = run(
        locomo_path,
        tmp_path / "bare",
        "--budget",
        "2000",
        "--summarizer",
        "extractive",
        "--bare-reducer",
    )
    memory, reducer = (
        next(r for r in rep["rows"] if r["group"] == "all") for rep in (report, bare)
    )
    assert (memory["through_memory"], reducer["through_memory"]) == (True, False)
    if memory["memory_differs"] == 0:  # no pause: the same views, item by item
        assert memory["answer_in_view"] == reducer["answer_in_view"]


def test_several_budgets_draw_the_plot(locomo_path: Path, tmp_path: Path) -> None:
    run(
        locomo_path,
        tmp_path,
        "--budget",
        "2000",
        "--budget",
        "4000",
        "--summary-budget",
        "500",
        "--summarizer",
        "window",
        "--summarizer",
        "observations",
    )
    assert (tmp_path / "locomo.png").read_bytes().startswith(b"\x89PNG")
    report = json.loads((tmp_path / "locomo.json").read_text())
    assert report["misses"] == []  # no engine run, no reference: nothing to compare


def test_llm_summary_and_judge_recorded_then_replayed(
    locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rec.jsonl"
    monkeypatch.setattr(evals.engine.config, "has_provider_key", lambda: True)
    monkeypatch.setattr("summem.clients.litellm.LiteLLMClient", lambda: ScriptedLLM())
    args = [
        "--budget",
        "4000",
        "--summarizer",
        "llm:gpt-4o-mini",
        "--summarizer",
        "window",
        "--qa",
        "--qa-limit",
        "5",
    ]
    live = run(locomo_path, tmp_path / "live", *args, "--record", str(path))
    monkeypatch.setattr(evals.engine.config, "has_provider_key", lambda: False)
    replayed = run(locomo_path, tmp_path / "replayed", *args, "--replay", str(path))
    assert without_timings(live["rows"]) == without_timings(replayed["rows"])
    rows = {(r["method"], r["group"]): r for r in replayed["rows"]}
    llm = rows[("llm:gpt-4o-mini", "all")]
    assert llm["provenance"] is False  # judged by answer containment and the judge, not ids
    assert llm["llm_calls_per_1k"] > 0
    assert llm["summarizer_cost_usd"] > 0  # priced from litellm's bundled map
    assert 0.0 <= llm["judge_all"] <= 1.0 and "judge_all" in rows[("window", "all")]
    assert replayed["meta"]["qa"]["judge"] == "locomo-judge@1"
    assert "judge all" in (tmp_path / "replayed" / "locomo.md").read_text()
