"""``summem replay --plot``: the view's tokens per message, with reduction markers, as a PNG."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from summem.cli.plot import plot_replay
from summem.cli.replay import Reduction, ReplayResult
from summem.errors import MissingDependencyError
from tests.cli.test_app import SMALL, run, transcript, write_json


def test_replay_plots_the_view_per_message(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript())
    png = tmp_path / "plots" / "view.png"
    result = run("replay", source, *SMALL, "--store", "memory://", "--plot", png, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["plot"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = run("replay", source, *SMALL, "--store", "memory://", "--plot", tmp_path / "b.png")
    assert "plotted the view per message in" in table.stdout
    assert (tmp_path / "b.png").stat().st_size > 1000


def test_the_plot_needs_matplotlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = ReplayResult(unit="tokens", threshold=100, view_sizes=[10, 20])
    with pytest.raises(MissingDependencyError, match="evals"):
        plot_replay(result, tmp_path / "x.png", target=60, title="t")


def test_a_message_budget_plots_without_token_lines(tmp_path: Path) -> None:
    reduction = Reduction(1, 3, 1, 2, 5, "extractive", 0, 0, 0, "id")
    result = ReplayResult(
        unit="messages", threshold=3, view_sizes=[10, 5, 9], reductions=[reduction]
    )
    path = plot_replay(result, tmp_path / "m.png", target=2, title="messages")
    assert path.read_bytes()[:4] == b"\x89PNG"
