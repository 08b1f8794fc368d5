from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.engine import EngineConfig
from evals.trajectories_run import main, probe_rows, run_trajectories
from summem.tokens.base import resolve_counter
from tests.fakes.llm import ScriptedLLM

COUNTER = resolve_counter(model="gpt-4o")


def test_probes_after_1_3_and_10_cycles_and_at_the_end() -> None:
    config = EngineConfig(threshold_tokens=2000, target_tokens=1500, summary_max_tokens=400)
    probes, traces = run_trajectories(config, seeds=[0, 1], counter=COUNTER, progress=False)
    assert all(t.violations == () for t in traces)
    rows = {r["probe"]: r for r in probe_rows(probes, 2)}
    assert list(rows) == ["cycle 1", "cycle 3", "cycle 10", "end"]
    for row in rows.values():
        assert row["seeds"] == "2/2"
        assert 0.0 <= row["verbatim"] <= row["retention"] <= 1.0
        if row["summary_recall"] is not None:
            # kept = verbatim + recalled; what is not evicted is verbatim
            kept = row["retention"] * row["facts"]
            recalled = row["summary_recall"] * row["evicted"]
            assert kept == pytest.approx(row["verbatim"] * row["facts"] + recalled)
    assert rows["end"]["facts"] == 40  # 20 facts per trajectory, all planted by the end
    assert rows["cycle 1"]["facts"] < rows["cycle 10"]["facts"] < rows["end"]["facts"]


def test_a_seed_that_never_reaches_a_probe_is_counted_as_missing() -> None:
    config = EngineConfig(threshold_tokens=6000, target_tokens=5000, summary_max_tokens=800)
    probes, _ = run_trajectories(config, seeds=[0], turns=80, counter=COUNTER, progress=False)
    rows = {r["probe"]: r for r in probe_rows(probes, 1)}
    assert rows["cycle 10"]["seeds"] == "0/1"
    assert rows["cycle 10"]["retention"] is None


def test_command_writes_report_and_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--seeds", "2", "--turns", "150", "--out", str(tmp_path), "--no-progress"]) == 0
    report = json.loads((tmp_path / "trajectories.json").read_text())
    assert report["meta"]["label"] == "extractive 2000/1500/400"
    assert report["violations"] == []
    assert [r["probe"] for r in report["probes"]] == ["cycle 1", "cycle 3", "cycle 10", "end"]
    assert report["curve"][0]["cycle"] == 1
    assert report["efficiency"]["cycles"] >= 20
    table = (tmp_path / "trajectories.md").read_text()
    assert "| probe | seeds | facts | retention |" in table
    assert capsys.readouterr().out == table


def test_llm_summarizer_records_live_and_replays_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evals.engine

    path = tmp_path / "rec.jsonl"
    monkeypatch.setattr(evals.engine, "has_provider_key", lambda: True)
    monkeypatch.setattr("summem.clients.litellm.LiteLLMClient", lambda: ScriptedLLM(), raising=True)
    args = ["--seeds", "1", "--turns", "120", "--summarizer", "llm:gpt-4o-mini", "--no-progress"]
    assert main([*args, "--record", str(path), "--out", str(tmp_path / "live")]) == 0
    assert path.read_text().count('"response"') > 5
    monkeypatch.setattr(evals.engine, "has_provider_key", lambda: False)
    assert main([*args, "--replay", str(path), "--out", str(tmp_path / "replayed")]) == 0
    live = json.loads((tmp_path / "live" / "trajectories.json").read_text())
    replayed = json.loads((tmp_path / "replayed" / "trajectories.json").read_text())
    assert live["probes"] == replayed["probes"]
    eff = replayed["efficiency"]
    assert eff["llm_calls_per_1k"] > 0 and eff["llm_input_per_token"] > 0


def test_live_without_a_key_says_how_to_run_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    import evals.engine

    monkeypatch.setattr(evals.engine, "has_provider_key", lambda: False)
    with pytest.raises(Exception, match="--replay FILE"):
        main(["--summarizer", "llm:gpt-4o-mini", "--seeds", "1"])
