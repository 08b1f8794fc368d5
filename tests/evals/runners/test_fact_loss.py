"""evals.runners.fact_loss: the planted facts lost by a cycle, and the filler kept instead."""

from __future__ import annotations

import pytest

from evals.runners import fact_loss


def test_reports_the_lost_facts_with_their_scores_and_the_filler_kept() -> None:
    report = fact_loss.analyse("realistic", range(3), cycle=3)
    assert report.cycle == 3
    assert sum(report.facts.values()) > 0
    assert report.filler, "realistic filler reaches the summary by cycle 3"
    assert all(line.startswith("- ") and score > 0 for score, line in report.filler)
    for loss in report.losses:
        assert loss.kind in report.facts
        assert 0 <= loss.last_carried <= 3
        assert loss.score >= 0
    text = fact_loss.render(report, examples=2)
    assert "### Facts lost by cycle 3" in text
    assert "| kind | facts | lost |" in text


def test_a_probe_past_the_last_cycle_reports_nothing_lost() -> None:
    report = fact_loss.analyse("plain", range(1), cycle=10_000)
    assert report.losses == [] and report.filler == []


def test_main_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert fact_loss.main(["--family", "realistic", "--seeds", "1", "--cycle", "2"]) == 0
    assert "Facts lost by cycle 2" in capsys.readouterr().out
