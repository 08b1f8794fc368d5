"""The ablation eval: each heuristic of the extractive summarizer switched off, measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.runners.ablation import SHIPPED, Measured, main, measure, render, verdict
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer


def test_a_deliberately_weakened_summarizer_scores_lower_on_some_family() -> None:
    shipped = measure(None, families=("plain", "realistic"), seeds=2)
    weak = ExtractiveSummarizer(ablate=("numbers", "codes", "time_words", "names", "preferences"))
    weakened = measure("weakened", families=("plain", "realistic"), seeds=2, summarizer=weak)
    assert shipped.violations == weakened.violations == 0
    assert (
        set(weakened.figures)
        == set(shipped.figures)
        == {
            "plain:c10",
            "plain:end",
            "realistic:c10",
            "realistic:end",
        }
    )
    drops = {k: shipped.figures[k] - weakened.figures[k] for k in shipped.figures}
    assert max(drops.values()) >= 0.1, drops
    deltas = {k: -v for k, v in drops.items()}
    assert verdict(deltas, 0.005) in ("synthetic: helps", "synthetic: mixed")


@pytest.mark.parametrize(
    ("deltas", "expected"),
    [
        ({"plain:c10": -0.1, "locomo@4000": -0.02}, "synthetic: helps; LoCoMo: helps"),
        ({"plain:c10": 0.0, "locomo@4000": -0.02}, "synthetic: none; LoCoMo: helps (LoCoMo only)"),
        (
            {"plain:c10": 0.05, "locomo@4000": -0.02},
            "synthetic: hurts; LoCoMo: helps (LoCoMo only)",
        ),
        ({"plain:c10": -0.05, "plain:end": 0.05}, "synthetic: mixed"),
        ({"plain:c10": 0.001, "locomo@2000": 0.004}, "synthetic: none; LoCoMo: none"),
        # per-speaker figures are reported, not judged
        (
            {"plain:c10": 0.0, "locomo@4000": 0.0, "locomo@4000:user": -0.3},
            "synthetic: none; LoCoMo: none",
        ),
    ],
)
def test_verdict_says_where_a_heuristic_helps(deltas: dict[str, float], expected: str) -> None:
    assert verdict(deltas, 0.005) == expected


def test_render_gives_the_shipped_figures_then_signed_deltas() -> None:
    shipped = Measured(SHIPPED, {"plain:c10": 0.9, "locomo@4000": 0.2}, 0)
    off = Measured("names", {"plain:c10": 0.7, "locomo@4000": 0.21}, 0)
    rows, text = render([shipped, off], 0.005)
    assert rows[0]["plain:c10"] == "0.900"
    assert rows[1]["plain:c10"] == "-0.200" and rows[1]["locomo@4000"] == "+0.010"
    assert rows[1]["verdict"] == "synthetic: helps; LoCoMo: hurts"
    assert "| names | -0.200 | +0.010 |" in text


def test_command_writes_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["--family", "plain", "--seeds", "1", "--heuristic", "names", "--out", str(tmp_path)]
    )
    assert code == 0
    report = json.loads((tmp_path / "ablation.json").read_text())
    assert [r["ablated"] for r in report["results"]] == [SHIPPED, "names"]
    assert report["meta"]["families"] == ["plain"] and report["meta"]["budgets"] == []
    table = (tmp_path / "ablation.md").read_text()
    assert "| names |" in table and table in capsys.readouterr().out


def test_command_measures_locomo_answer_in_view(tmp_path: Path, locomo_path: Path) -> None:
    args = ["--locomo", str(locomo_path), "--conversations", "1", "--budget", "2000"]
    args += ["--family", "plain", "--seeds", "1", "--heuristic", "time_words"]
    assert main([*args, "--jobs", "2", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "ablation.json").read_text())
    figures = report["results"][0]["figures"]
    assert {"locomo@2000", "locomo@2000:user", "locomo@2000:asst"} <= set(figures)
    assert 0.0 < figures["locomo@2000"] < 1.0


def test_corrections_and_both_speakers_report_their_own_figures() -> None:
    got = measure(None, families=("corrections", "both-speakers"), seeds=1)
    expected = {"corrections-fresh:c10", "corrections-fresh:end", "both-speakers:end:user"}
    assert expected | {"both-speakers:end:asst", "corrections:end"} <= set(got.figures)
    assert all(0.0 <= v <= 1.0 for v in got.figures.values())
