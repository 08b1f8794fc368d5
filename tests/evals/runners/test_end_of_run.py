"""The end-of-run diagnostic: per-cycle summary fill and the cause of each lost fact."""

from __future__ import annotations

import pytest

from evals.runners import end_of_run


def test_it_reports_losses_and_the_per_cycle_fill(capsys: pytest.CaptureFixture[str]) -> None:
    assert end_of_run.main(["--family", "plain", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "losses by cause" in out and "| cycle | seeds | tokens |" in out
    assert "| 10 | 1 |" in out


def test_it_refuses_held_out_families() -> None:
    with pytest.raises(SystemExit):
        end_of_run.main(["--family", "blind3-revisions"])
