"""The CI gate: retention and cost of a small offline eval against evals/runners/gate.json.

Re-record the baseline (and commit it) after a change that moves the figures on purpose:

    python -m evals.runners.gate --record
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from evals.runners.gate import (
    BASELINE_PATH,
    LOCOMO_CONFIG,
    TRAJECTORY_CONFIG,
    compare,
    load_baseline,
    measure_locomo,
    measure_trajectories,
)

RERECORD = "if the change is intended, re-record: python -m evals.runners.gate --record"


@pytest.fixture(scope="module")
def baseline() -> dict[str, Any]:
    assert BASELINE_PATH.is_file(), f"no gate baseline at {BASELINE_PATH}; {RERECORD}"
    return load_baseline()


def test_trajectory_retention_and_cost_hold(baseline: dict[str, Any]) -> None:
    base = baseline["trajectories"]
    assert base["config"] == TRAJECTORY_CONFIG.to_dict(), RERECORD
    measured = measure_trajectories(
        seeds=base["seeds"], turns=base["turns"], family_seeds=base["family_seeds"]
    )
    problems = compare(measured, base, baseline["meta"]["tolerance"])
    assert not problems, "\n".join([*problems, RERECORD])


def test_locomo_retention_and_cost_hold(baseline: dict[str, Any], locomo_path: Path) -> None:
    base = baseline.get("locomo")
    if base is None:
        pytest.skip("the baseline has no LoCoMo half (recorded without the dataset)")
    assert base["config"] == LOCOMO_CONFIG.to_dict(), RERECORD
    measured = measure_locomo(locomo_path, conversations=base["conversations"])
    if measured["dataset_sha256"] != base["dataset_sha256"]:
        pytest.skip("another version of locomo10.json than the baseline's")
    problems = compare(measured, base, baseline["meta"]["tolerance"])
    assert not problems, "\n".join([*problems, RERECORD])


def test_the_gate_flags_regressions_and_lets_improvements_pass() -> None:
    base: dict[str, Any] = {
        "retention": {"end_retention": 0.50, "cycle_3_retention": 1.0},
        "cost": {"prompt_ratio": 0.20, "llm_calls_per_1k": 0.0},
        "violations": [],
    }
    same = copy.deepcopy(base)
    assert compare(same, base) == []
    better = copy.deepcopy(base)
    better["retention"]["end_retention"] = 0.9
    better["cost"]["prompt_ratio"] = 0.1
    assert compare(better, base) == []
    within = copy.deepcopy(base)
    within["retention"]["end_retention"] = 0.485
    within["cost"]["prompt_ratio"] = 0.219
    assert compare(within, base) == []
    worse = copy.deepcopy(base)
    worse["retention"]["end_retention"] = 0.47
    worse["cost"]["prompt_ratio"] = 0.23
    worse["cost"]["llm_calls_per_1k"] = 0.5
    worse["violations"] = ["after message 9: a group was split"]
    problems = compare(worse, base)
    assert len(problems) == 4
    assert problems[0].startswith("invariant violated")
    gone = {"retention": {}, "cost": base["cost"], "violations": []}
    assert any("no longer measured" in p for p in compare(gone, base))
