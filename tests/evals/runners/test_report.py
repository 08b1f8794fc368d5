from __future__ import annotations

import json
import math
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evals.runners.report import (
    markdown_table,
    pareto_front,
    plot_pareto,
    report_metadata,
    to_jsonable,
    write_json_report,
)


def test_pareto_front_minimises_cost_and_maximises_value() -> None:
    costs = [10.0, 5.0, 20.0, 5.0, 30.0, 15.0]
    values = [0.5, 0.4, 0.9, 0.3, 0.9, 0.5]
    # 3 is beaten by 1 (same cost, less value); 4 by 2 (more cost, same value); 5 by 0
    assert pareto_front(costs, values) == [1, 0, 2]


def test_pareto_front_ties_nan_and_empty() -> None:
    assert pareto_front([1.0, 1.0], [0.5, 0.5]) == [0]
    assert pareto_front([1.0, math.nan, 2.0], [0.1, 0.9, 0.2]) == [0, 2]
    assert pareto_front([], []) == []
    with pytest.raises(ValueError):
        pareto_front([1.0], [])


def test_markdown_table() -> None:
    rows: list[dict[str, Any]] = [
        {"setting": "a|b", "retention": 0.91234, "calls": 3, "ok": True},
        {"setting": "c", "retention": None, "calls": 10, "ok": False},
    ]
    assert markdown_table(rows, headers={"calls": "LLM calls"}) == (
        "| setting | retention | LLM calls | ok |\n"
        "|---|---:|---:|---|\n"
        "| a\\|b | 0.912 | 3 | yes |\n"
        "| c |  | 10 | no |\n"
    )
    assert markdown_table(rows, ["calls"], floatfmt=".1f").splitlines()[2] == "| 3 |"


@dataclass(frozen=True)
class Point:
    name: str
    ids: frozenset[str]
    score: float


def test_json_report_is_plain_json_written_atomically(tmp_path: Path) -> None:
    report = {
        "meta": report_metadata(run="t"),
        "points": [Point("a", frozenset({"D2:1", "D1:1"}), math.nan)],
        "path": tmp_path,
        "pair": (1, 2),
    }
    out = write_json_report(tmp_path / "sub" / "report.json", report)
    data = json.loads(out.read_text())
    assert data["points"] == [{"name": "a", "ids": ["D1:1", "D2:1"], "score": None}]
    assert data["path"] == str(tmp_path)
    assert data["pair"] == [1, 2]
    assert data["meta"]["run"] == "t"
    assert {"summem_version", "python", "created_at"} <= set(data["meta"])
    assert [p.name for p in out.parent.iterdir()] == ["report.json"]  # no temp file left
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert to_jsonable({1: {"x"}}) == {"1": ["x"]}


def test_plot_pareto_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    rows = [
        {"name": f"t={t}", "cost": float(t), "retention": min(1.0, t / 8000)}
        for t in (1000, 2000, 4000, 8000)
    ] + [{"name": "bad", "cost": 5000.0, "retention": 0.1}]
    out = plot_pareto(
        rows,
        x="cost",
        y="retention",
        label="name",
        path=tmp_path / "p.png",
        title="retention vs cost",
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_progress_bar_draws_on_stderr_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    from evals.progress import progress_bar

    with progress_bar(3, "settings", enabled=True) as advance:
        for _ in range(3):
            advance(1)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "settings" in captured.err and "3/3" in captured.err
    with progress_bar(3, "quiet", enabled=False) as advance:
        advance(3)
    assert capsys.readouterr().err == ""
