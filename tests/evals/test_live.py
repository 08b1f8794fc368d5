"""Live evals: a real model summarizes, answers and judges; the recording then replays offline.

Deselected by default (marker ``live``); run with a key in the environment:

    OPENAI_API_KEY=... python -m pytest -m live tests/evals/test_live.py

The key is read when this module is imported, because the suite's autouse fixture clears the
provider variables before each test.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evals.runners import locomo, trajectories

LIVE_KEY = os.environ.get("OPENAI_API_KEY")
LIVE_MODEL = os.environ.get("SUMMEM_LIVE_MODEL", "gpt-4o-mini")

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not LIVE_KEY, reason="needs OPENAI_API_KEY"),
]


def test_trajectories_live_then_replayed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert LIVE_KEY is not None
    monkeypatch.setenv("OPENAI_API_KEY", LIVE_KEY)
    path = tmp_path / "traj.jsonl"
    args = ["--seeds", "1", "--turns", "80", "--summarizer", f"llm:{LIVE_MODEL}", "--no-progress"]
    args += ["--family", "plain"]
    assert trajectories.main([*args, "--record", str(path), "--out", str(tmp_path / "a")]) == 0
    monkeypatch.delenv("OPENAI_API_KEY")
    assert trajectories.main([*args, "--replay", str(path), "--out", str(tmp_path / "b")]) == 0
    live = json.loads((tmp_path / "a" / "trajectories.json").read_text())["families"]["plain"]
    replayed = json.loads((tmp_path / "b" / "trajectories.json").read_text())
    replayed = replayed["families"]["plain"]
    assert live["probes"] == replayed["probes"]
    assert live["efficiency"]["llm_input_per_token"] > 0


def test_locomo_qa_live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locomo_path: Path) -> None:
    assert LIVE_KEY is not None
    monkeypatch.setenv("OPENAI_API_KEY", LIVE_KEY)
    argv = [
        str(locomo_path), "--conversations", "1", "--budget", "4000",
        "--summarizer", "extractive", "--summarizer", "window",
        "--qa", "--qa-limit", "10", "--answer-model", LIVE_MODEL, "--judge-model", LIVE_MODEL,
        "--record", str(tmp_path / "qa.jsonl"), "--out", str(tmp_path), "--no-progress",
    ]  # fmt: skip
    assert locomo.main(argv) == 0
    rows = json.loads((tmp_path / "locomo.json").read_text())["rows"]
    judged = [r["judge_all"] for r in rows if r["group"] == "all"]
    assert all(j is not None and 0.0 <= j <= 1.0 for j in judged)
