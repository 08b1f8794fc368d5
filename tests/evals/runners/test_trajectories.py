from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evals.engine.config import EngineConfig, build_reducer
from evals.families.trajectories import generate_trajectory
from evals.runners.trajectories import main, probe_rows, run_trajectories
from summem.messages import parse_messages
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
    args = ["--seeds", "2", "--turns", "150", "--family", "plain", "--family", "corrections"]
    assert main([*args, "--out", str(tmp_path), "--no-progress"]) == 0
    families = json.loads((tmp_path / "trajectories.json").read_text())["families"]
    assert list(families) == ["plain", "corrections"]
    report = families["plain"]
    assert report["meta"]["label"] == "extractive 2000/1500/400"
    assert report["meta"]["family"] == "plain" and families["corrections"]["meta"]["corrections"]
    assert "stale unmarked" in families["corrections"]["probes"][-1]
    assert report["violations"] == []
    assert [r["probe"] for r in report["probes"]] == ["cycle 1", "cycle 3", "cycle 10", "end"]
    assert report["curve"][0]["cycle"] == 1
    assert report["efficiency"]["cycles"] >= 20
    table = (tmp_path / "trajectories.md").read_text()
    assert "| probe | seeds | facts | retention |" in table
    assert "family plain" in table and "family corrections" in table
    assert capsys.readouterr().out == table


def test_llm_summarizer_records_live_and_replays_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evals.engine.config

    path = tmp_path / "rec.jsonl"
    monkeypatch.setattr(evals.engine.config, "has_provider_key", lambda: True)
    monkeypatch.setattr("summem.clients.litellm.LiteLLMClient", lambda: ScriptedLLM(), raising=True)
    args = ["--seeds", "1", "--turns", "120", "--summarizer", "llm:gpt-4o-mini", "--no-progress"]
    args += ["--family", "plain"]
    assert main([*args, "--record", str(path), "--out", str(tmp_path / "live")]) == 0
    assert path.read_text().count('"response"') > 5
    monkeypatch.setattr(evals.engine.config, "has_provider_key", lambda: False)
    assert main([*args, "--replay", str(path), "--out", str(tmp_path / "replayed")]) == 0
    live = json.loads((tmp_path / "live" / "trajectories.json").read_text())["families"]["plain"]
    replayed = json.loads((tmp_path / "replayed" / "trajectories.json").read_text())
    replayed = replayed["families"]["plain"]
    assert live["probes"] == replayed["probes"]
    eff = replayed["efficiency"]
    assert eff["llm_calls_per_1k"] > 0 and eff["llm_input_per_token"] > 0


def test_live_without_a_key_says_how_to_run_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    import evals.engine.config

    monkeypatch.setattr(evals.engine.config, "has_provider_key", lambda: False)
    with pytest.raises(Exception, match="--replay FILE"):
        main(["--summarizer", "llm:gpt-4o-mini", "--seeds", "1"])


# -- the correction probe, and what a weakened summarizer scores --------------------------


def parse_messages_of(traj: Any) -> list[Any]:
    return parse_messages(traj.messages[1:])


def test_a_stale_value_counts_unless_its_correction_follows_it() -> None:
    from evals.runners.trajectories import _probe
    from summem.messages import SummaryInfo, parse_message, user

    traj = generate_trajectory(5, turns=60, facts=4, corrections=2)
    fact = next(f for f in traj.facts if f.kind == "correction")
    history = parse_messages_of(traj)
    reducer = build_reducer(EngineConfig(2000, 1500, 400), counter=COUNTER)

    def probe(summary: str, tail: list[Any]) -> Any:
        msg = user(summary).as_summary(SummaryInfo(watermark=len(history)))
        state = SimpleNamespace(
            history=history, view=[msg, *tail], summary=msg, cycle=SimpleNamespace(number=1)
        )
        return _probe(traj, state, None, reducer)  # type: ignore[arg-type]

    corrected = parse_message({"role": "user", "content": f"it is now {fact.value}"})
    stale_only = probe(f"- user: it is {fact.stale}", [])
    followed = probe(f"- user: it is {fact.stale}", [corrected])
    replaced = probe(f"- user: it is now {fact.value}", [])
    assert (stale_only.stale, stale_only.stale_unmarked) == (1, 1)
    assert (followed.stale, followed.stale_unmarked) == (1, 0)
    assert (replaced.stale, replaced.stale_unmarked) == (0, 0)


def test_a_summarizer_that_never_lets_old_facts_go_fails_the_correction_family() -> None:
    """The evals tell a weakened summarizer apart: one that keeps what it has (carry-over at
    100%, no room for new facts, and no discount of carried lines said in many messages,
    which would let old lines go) keeps stale values and loses their corrections."""
    from evals.engine.config import build_reducer as real_build
    from evals.families.catalogue import FAMILIES
    from summem.summarizers.extractive import ExtractiveSummarizer

    family = FAMILIES["corrections"]
    config = EngineConfig(threshold_tokens=2000, target_tokens=1500, summary_max_tokens=400)

    def run(reducer_factory: Any) -> dict[str, Any]:
        import evals.runners.trajectories as tr

        original = getattr(tr, "build_reducer")  # noqa: B009 - the name the module imported
        setattr(tr, "build_reducer", reducer_factory)  # noqa: B010
        try:
            probes, _ = run_trajectories(
                config,
                seeds=[0, 1, 2],
                turns=family.turns,
                facts=family.facts,
                counter=COUNTER,
                progress=False,
                filler=family.filler,
                corrections=family.corrections,
            )
        finally:
            setattr(tr, "build_reducer", original)  # noqa: B010
        return {r["probe"]: r for r in probe_rows(probes, 3)}["cycle 10"]

    def weakened(cfg: EngineConfig, **kw: Any) -> Any:
        reducer = real_build(cfg, **kw)
        # nor may it mark a carried line stale from a later statement in other words
        # (relayed_changes): marked, the old line counts as let go
        reducer.summarizer = ExtractiveSummarizer(
            carry_share=1.0,
            new_share=0.0,
            ablate=["repeats", "spoken_changes", "tool_changes"],
        )
        return reducer

    good, weak = run(real_build), run(weakened)
    assert good["correction"] >= 0.95 and good["stale unmarked"] <= 0.05
    assert weak["correction"] < good["correction"] - 0.2
    assert weak["stale unmarked"] > good["stale unmarked"]


def test_run_family_passes_every_field_the_family_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ablation, the gate and the CLI run a family through this: no field is lost."""
    import dataclasses

    import evals.runners.trajectories as tr
    from evals.families.catalogue import Family

    seen: dict[str, object] = {}

    def fake(config: object, **kwargs: object) -> tuple[list[object], list[object]]:
        seen.update(kwargs)
        return [], []

    monkeypatch.setattr(tr, "run_trajectories", fake)
    family = Family("x", 90, 7, "realistic", 3, speakers="both", style="indirect")
    tr.run_family(tr.DEFAULT_CONFIG, family, seeds=[0], counter=COUNTER, progress=False)
    fields = {f.name for f in dataclasses.fields(Family)} - {"name", "about"}
    assert {k: seen[k] for k in fields} == {k: getattr(family, k) for k in fields}
    tr.run_family(tr.DEFAULT_CONFIG, family, seeds=[0], counter=COUNTER, turns=40, facts=2)
    assert (seen["turns"], seen["facts"]) == (40, 2)
