"""`python -m evals.figures` runs the evals whose tables the READMEs quote, with their arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals import figures


def test_it_runs_every_family_and_the_three_budgets(
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

    monkeypatch.setattr("evals.trajectories_run.main", fake("trajectories"))
    monkeypatch.setattr("evals.locomo_run.main", fake("locomo"))
    monkeypatch.setattr("evals.locomo_recall.main", fake("recall"))
    monkeypatch.setattr("evals.ablation.main", fake("ablation"))
    assert figures.main([str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    (_, traj), (_, locomo), (_, recall), (_, ablate) = calls
    assert recall[:3] == [str(tmp_path / "locomo10.json"), "--budget", "4000"]
    assert "--family" not in traj and traj[:2] == ["--seeds", "5"]  # every family
    assert locomo[0] == str(tmp_path / "locomo10.json")
    assert "--audit" in locomo
    budgets = [locomo[i + 1] for i, a in enumerate(locomo) if a == "--budget"]
    assert budgets == ["2000", "4000", "8000"]
    assert ablate[:2] == ["--locomo", str(tmp_path / "locomo10.json")] and "--audit" in ablate
    assert [ablate[i + 1] for i, a in enumerate(ablate) if a == "--budget"] == budgets
    assert "--heuristic" not in ablate and "--family" not in ablate  # every one


def test_a_folder_without_the_dataset_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        figures.main([str(tmp_path)])
    assert info.value.code == 2
    assert "locomo10.json not found" in capsys.readouterr().err
