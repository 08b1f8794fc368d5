"""`python -m evals.runners.figures` runs the evals the READMEs quote, with their arguments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evals.families.catalogue import FAMILIES
from evals.runners import figures, trajectories


def test_it_runs_every_eval_with_the_arguments_of_its_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locomo10.json").write_text("[]")
    (tmp_path / "audit-errors.json").write_text("{}")
    calls: list[tuple[str, list[str]]] = []

    def fake(name: str) -> Any:
        def run(argv: list[str]) -> int:
            calls.append((name, argv))
            return 0

        return run

    monkeypatch.setattr("evals.runners.trajectories.main", fake("trajectories"))
    monkeypatch.setattr("evals.runners.locomo.main", fake("locomo"))
    monkeypatch.setattr("evals.runners.locomo_recall.main", fake("recall"))
    monkeypatch.setattr("evals.runners.ablation.main", fake("ablation"))
    monkeypatch.setattr("evals.runners.masking.main", fake("masking"))
    monkeypatch.setattr("evals.runners.cost.main", fake("cost"))
    out = tmp_path / "out"
    assert figures.main([str(tmp_path), "--out", str(out)]) == 0
    names = [name for name, _ in calls]
    assert names == [
        "trajectories",
        "trajectories",
        "locomo",
        "recall",
        "ablation",
        "masking",
        "masking",
        "cost",
    ]
    (_, traj), (_, stat), (_, locomo), (_, recall), (_, ablate), (_, m3), (_, m8), (_, cost) = calls
    assert recall[:1] == [str(tmp_path / "locomo10.json")]
    assert recall[recall.index("--budget") + 1] == "4000"
    assert "--family" not in traj and traj[:2] == ["--seeds", "5"]  # every family
    assert stat[:2] == ["--seeds", "30"] and stat[stat.index("--out") + 1] == str(out / "seeds-30")
    stat_families = [stat[i + 1] for i, a in enumerate(stat) if a == "--family"]
    assert stat_families == [f for f in FAMILIES if f != "long"]
    assert locomo[0] == str(tmp_path / "locomo10.json")
    assert "--audit" in locomo
    budgets = [locomo[i + 1] for i, a in enumerate(locomo) if a == "--budget"]
    assert budgets == ["2000", "4000", "8000"]
    assert ablate[:2] == ["--locomo", str(tmp_path / "locomo10.json")] and "--audit" in ablate
    assert [ablate[i + 1] for i, a in enumerate(ablate) if a == "--budget"] == budgets
    assert "--heuristic" not in ablate and "--family" not in ablate  # every one
    for argv, threshold in ((m3, "3000"), (m8, "8000")):
        assert argv[argv.index("--threshold") + 1] == threshold
        assert argv[argv.index("--seeds") + 1] == "5"
        assert argv[argv.index("--out") + 1] == str(out / f"masking-{threshold}")
    assert cost == ["--out", str(out / "cost")]  # every workload and configuration, one seed


def test_a_folder_without_the_dataset_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        figures.main([str(tmp_path)])
    assert info.value.code == 2
    assert "locomo10.json not found" in capsys.readouterr().err


def _probes(path: Path) -> Any:
    return {k: v["probes"] for k, v in json.loads(path.read_text())["families"].items()}


def test_the_real_pipeline_on_a_tiny_configuration(
    tmp_path: Path, locomo_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "locomo10.json").symlink_to(locomo_path.resolve())
    out = tmp_path / "out"
    argv = [str(data), "--out", str(out), "--seeds", "1", "--stat-seeds", "2"]
    argv += ["--family", "nested-tool", "--turns", "40", "--budget", "2000"]
    argv += ["--conversations", "1", "--heuristic", "codes", "--masking-threshold", "3000"]
    argv += ["--masking-turns", "20", "--cost-workload", "tools"]
    argv += ["--cost-config", "summem 8000/6000", "--jobs", "1"]
    assert figures.main(argv) == 0
    printed = capsys.readouterr().out
    for path in (
        "trajectories.md",
        "seeds-2/trajectories.md",
        "locomo.md",
        "locomo-recall.md",
        "ablation.md",
        "masking-3000/masking.md",
        "cost/cost.md",
    ):
        text = (out / path).read_text()
        assert "|---" in text, path
        assert text.strip().splitlines()[-1] in printed, path  # printed as written
    assert (out / "cost" / "cost.png").stat().st_size > 0
    # each report is what the eval's own command gives with the same arguments
    direct = tmp_path / "direct"
    direct_argv = ["--seeds", "2", "--family", "nested-tool", "--turns", "40"]
    trajectories.main([*direct_argv, "--out", str(direct), "--no-progress"])
    assert _probes(out / "seeds-2" / "trajectories.json") == _probes(direct / "trajectories.json")
    assert list(_probes(out / "trajectories.json")) == ["nested-tool"]
    locomo = json.loads((out / "locomo.json").read_text())
    assert {r["budget_tokens"] for r in locomo["rows"]} == {2000}
    assert {r["method"] for r in locomo["rows"]} >= {"extractive", "window", "observations-even"}
    masking = json.loads((out / "masking-3000" / "masking.json").read_text())
    assert [r["config"] for r in masking["rows"]] == [
        "window",
        "masking",
        "summarization",
        "hybrid",
    ]
    cost = json.loads((out / "cost" / "cost.json").read_text())
    assert {(r["workload"], r["config"]) for r in cost["rows"]} == {("tools", "summem 8000/6000")}
    ablation = json.loads((out / "ablation.json").read_text())
    assert [r["ablated"] for r in ablation["results"]] == ["(none: as shipped)", "codes"]
