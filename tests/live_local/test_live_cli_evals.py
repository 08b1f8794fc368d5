"""``summem chat`` driven through stdin, and an eval recorded live then replayed offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.live_local

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], *, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=900,
    )


def test_summem_chat_through_stdin(live_base_url: str, live_model: str, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'chat.db'}"
    config = tmp_path / "summem.yaml"
    config.write_text("budget:\n  threshold: 300\n  target: 200\n  summary_max_tokens: 60\n")
    lines = [f"Remember number {i}: it is {100 + i}. What is it?" for i in range(6)]
    out = _run(
        [
            "-m",
            "summem",
            "chat",
            "--model",
            live_model,
            "--base-url",
            live_base_url,
            "--max-tokens",
            "40",
            "--session",
            "live-chat",
            "--store",
            store,
            "--config",
            str(config),
        ],
        stdin="\n".join([*lines, "/summary", "/exit"]) + "\n",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert out.stdout.count(f"{live_model}>") == len(lines)
    assert "Summary of the earlier conversation" in out.stdout  # reduced along the way
    assert "session live-chat saved (12 messages)" in out.stdout


def test_an_eval_recorded_live_replays_offline(
    live_base_url: str, live_model: str, tmp_path: Path
) -> None:
    recording = tmp_path / "rec.jsonl"
    common = [
        "-m",
        "evals.runners.trajectories",
        "--seeds",
        "1",
        "--turns",
        "60",
        "--family",
        "plain",
    ]
    common += ["--threshold", "1200", "--target", "900", "--summary-budget", "200"]
    common += ["--summarizer", f"llm:{live_model}", "--no-progress"]
    live = _run(
        [*common, "--base-url", live_base_url, "--record", str(recording), "--out", "live"],
        cwd=tmp_path,
    )
    assert live.returncode == 0, live.stdout[-2000:] + live.stderr[-2000:]
    replayed = _run([*common, "--replay", str(recording), "--out", "replayed"], cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr[-2000:]
    first = json.loads((tmp_path / "live" / "trajectories.json").read_text())["families"]["plain"]
    again = json.loads((tmp_path / "replayed" / "trajectories.json").read_text())
    again = again["families"]["plain"]
    assert first["probes"] == again["probes"]  # the replay reproduces the live run exactly
    tried = first["efficiency"]["cycles"] + first["efficiency"]["failed_reductions"]
    assert tried >= 1  # the model was asked; its summaries were committed or counted as rejected
