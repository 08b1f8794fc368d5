"""Re-record the LLM recording CI replays: ``python -m tests.evals.record_fixture``.

``tests/evals/recordings/trajectory-llm.jsonl`` holds every summarizer reply of one planted-fact
trajectory summarized by ``llm:gpt-4o-mini`` (the command in :data:`REPLAY_ARGS`), and
``trajectory-llm.expected.json`` the figures that run measured. ``test_recorded_replay.py``
replays the recording through the documented command with no key and no network, and checks
it reproduces those figures. The trajectory is synthetic, so the files hold no LoCoMo text.

The replies were written by :class:`tests.fakes.llm.ScriptedLLM`, a deterministic stand-in,
not by a real model: the recording's first line says so. That is what a CI without a key can
make. The point is the mechanism: if the engine's requests change (prompt, rendering, where it
cuts), the replay misses and the test says to re-record. To record a real model instead, with
a key: ``python -m tests.evals.record_fixture --live`` (the expected figures are then the live
run's).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.engine.config import EngineConfig, open_client
from evals.engine.recording import RecordingClient
from evals.runners.trajectories import build_report, run_trajectories
from summem.clients.base import LLMClient
from summem.tokens.base import resolve_counter
from tests.fakes.llm import ScriptedLLM

HERE = Path(__file__).with_name("recordings")
RECORDING = HERE / "trajectory-llm.jsonl"
EXPECTED = HERE / "trajectory-llm.expected.json"
MODEL = "gpt-4o-mini"
SEEDS, TURNS = 1, 120
REPLAY_ARGS = [
    "--seeds", str(SEEDS), "--turns", str(TURNS), "--summarizer", f"llm:{MODEL}",
    "--family", "plain",
]  # fmt: skip
"""``python -m evals.runners.trajectories`` arguments the recording answers (plus ``--replay``)."""
COMPARED = ("probes", "curve")
"""Report keys compared whole; ``efficiency`` is compared without its wall time."""


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """What a replay must reproduce exactly: probes, curve and efficiency (no timings)."""
    report = report.get("families", {}).get("plain", report)  # the command's report, or one
    eff = {k: v for k, v in report["efficiency"].items() if k != "seconds"}
    return {
        **{k: report[k] for k in COMPARED},
        "efficiency": eff,
        "violations": report["violations"],
    }


def record(*, live: bool = False) -> dict[str, Any]:
    """Run the trajectory with a recording client; write the recording and expected figures."""
    config = EngineConfig(2000, 1500, 400, summarizer=f"llm:{MODEL}")
    counter = resolve_counter(model="gpt-4o")
    HERE.mkdir(exist_ok=True)
    RECORDING.unlink(missing_ok=True)
    source = (
        "live litellm"
        if live
        else "tests.evals.fakes.ScriptedLLM (a deterministic stand-in, not a real model)"
    )
    meta = {
        "source": source,
        "command": "python -m tests.evals.record_fixture" + (" --live" if live else ""),
    }
    RECORDING.write_text(json.dumps({"meta": meta}) + "\n", encoding="utf-8")
    inner: LLMClient = open_client() if live else ScriptedLLM()
    client = RecordingClient(inner, RECORDING)
    probes, traces = run_trajectories(
        config, seeds=range(SEEDS), turns=TURNS, counter=counter, client=client, progress=False
    )
    report = build_report(
        config, probes, traces, seeds=list(range(SEEDS)), turns=TURNS, facts=20, counter=counter
    )
    expected = {"meta": {**meta, "replay_args": REPLAY_ARGS}, **comparable(report)}
    EXPECTED.write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
    return expected


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.evals.record_fixture", description=__doc__
    )
    parser.add_argument("--live", action="store_true", help="record a real model (needs a key)")
    args = parser.parse_args(argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    expected = record(live=args.live)
    sys.stdout.write(f"wrote {RECORDING} and {EXPECTED}: {json.dumps(expected['efficiency'])}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
