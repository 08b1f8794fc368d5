"""CI replays a checked-in LLM recording offline, with no key, through the documented command.

The recording (``tests/evals/recordings/``) and how to re-record it are described in
``tests/evals/record_fixture.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evals.engine.config
from evals.engine.recording import ReplayingClient
from evals.runners import trajectories
from evals.runners.cli import run_cli
from tests.evals.record_fixture import EXPECTED, RECORDING, REPLAY_ARGS, comparable

RERECORD = (
    "the engine's requests changed (prompt, rendering or where it cuts); if intended, "
    "re-record: python -m tests.evals.record_fixture"
)


def test_the_recording_says_who_wrote_it_and_holds_only_synthetic_text() -> None:
    first = json.loads(RECORDING.read_text(encoding="utf-8").splitlines()[0])
    assert "source" in first["meta"] and "command" in first["meta"]
    assert len(ReplayingClient(RECORDING)) >= 10


def test_a_recorded_llm_run_replays_offline_with_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        evals.engine.config, "has_provider_key", lambda: False
    )  # no live path at all
    argv = [*REPLAY_ARGS, "--replay", str(RECORDING), "--out", str(tmp_path), "--no-progress"]
    code = run_cli(trajectories.main, argv)
    assert code == 0, RERECORD
    replayed = comparable(json.loads((tmp_path / "trajectories.json").read_text()))
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert expected["meta"]["replay_args"] == REPLAY_ARGS
    for key in ("probes", "curve", "efficiency", "violations"):
        assert replayed[key] == expected[key], f"{key} differs from the recorded run; {RERECORD}"
    assert replayed["efficiency"]["llm_calls_per_1k"] > 0
    assert replayed["efficiency"]["llm_input_per_token"] > 0  # billed usage came from the file
    assert replayed["efficiency"]["summarizer_cost_usd"] > 0  # priced from the bundled map


def test_a_miss_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(evals.engine.config, "has_provider_key", lambda: False)
    changed = ["--summary-budget", "300"]  # another setting: requests the file never saw
    argv = [*REPLAY_ARGS, *changed, "--replay", str(RECORDING), "--out", str(tmp_path)]
    assert run_cli(trajectories.main, argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "has no reply for this request" in err
    assert "Traceback" not in err


def test_live_without_a_key_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(evals.engine.config, "has_provider_key", lambda: False)
    assert run_cli(trajectories.main, ["--summarizer", "llm:gpt-4o-mini"]) == 2
    assert "--replay FILE" in capsys.readouterr().err
