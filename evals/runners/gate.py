"""The CI gate: a small offline eval that fails when retention or cost regress past a baseline.

    python -m evals.runners.gate           # measure and compare with evals/runners/gate.json
    python -m evals.runners.gate --record  # measure and write the baseline (commit it with it)

Two measurements, under a minute together on one core, with the offline extractive summarizer:

- **trajectories**: 3 planted-fact trajectories of 200 turns at 2000/1500/400 tokens; facts
  carried after 1, 3 and 10 cycles and at the end, summary recall, and the engine's cost; then
  30 trajectories of each of the ``realistic``, ``corrections``, ``lists`` and ``heldout``
  families (see :mod:`evals.families.catalogue`) after 10 cycles and at the end: facts carried,
  corrected values present, stale values gone or followed by their correction. Thirty, as the
  figures the READMEs quote: 3 seeds put 12 realistic facts behind the cycle-10 figure and
  showed 1.00 where 30 seeds show 0.76;
- **locomo**: the first 2 LoCoMo conversations at 4000/3000/1000 tokens; answer in view (all
  items and per speaker side), evidence retention (cited: all items, all but adversarial,
  temporal; whole turns; answer-bearing parts), and the engine's cost. Skipped when
  the dataset is absent, or when it is another version of the file than the baseline's.

A retention figure fails when it falls more than ``retention_abs`` below the baseline; a cost
figure when it rises more than ``cost_rel`` (relative) above it; any invariant violation
fails. Improvements pass (re-record to lock them in). ``tests/evals/runners/test_gate.py`` runs
this.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.engine.config import EngineConfig
from evals.engine.locomo import run_engine
from evals.engine.replay import efficiency
from evals.families.catalogue import FAMILIES
from evals.families.locomo import load_locomo
from evals.metrics.evidence import aggregate
from evals.runners.report import report_metadata, write_json_report
from evals.runners.trajectories import probe_rows, run_family, run_trajectories
from summem.tokens.base import resolve_counter

__all__ = [
    "BASELINE_PATH",
    "TOLERANCE",
    "compare",
    "measure_locomo",
    "measure_trajectories",
]

BASELINE_PATH = Path(__file__).with_name("gate.json")
TOLERANCE = {"retention_abs": 0.02, "cost_rel": 0.10}
TRAJECTORY_CONFIG = EngineConfig(threshold_tokens=2000, target_tokens=1500, summary_max_tokens=400)
LOCOMO_CONFIG = EngineConfig(threshold_tokens=4000, target_tokens=3000, summary_max_tokens=1000)
COST_KEYS = (
    "summarizer_read_per_token",
    "reductions_per_1k",
    "llm_calls_per_1k",
    "prompt_ratio",
    "waited_share",
)
GATED_GROUPS = ("all", "all-but-adversarial", "temporal")
"""Groups large enough in 2 conversations for a 0.02 tolerance to mean something."""
_MODEL = "gpt-4o"


def _cost(traces: Sequence[Any]) -> tuple[dict[str, float], list[str]]:
    eff = efficiency(traces)
    violations = [v for t in traces for v in t.violations]
    return {k: round(eff[k], 4) for k in COST_KEYS}, violations


GATED_FAMILIES = ("realistic", "corrections", "lists", "heldout")
"""Trajectory families gated beside the plain one, at cycle 10 and at the end."""
FAMILY_SEEDS = 30
"""Trajectories of each gated family: fewer let a handful of facts stand for the family."""


def measure_trajectories(
    *, seeds: int = 3, turns: int = 200, family_seeds: int = FAMILY_SEEDS
) -> dict[str, Any]:
    """The trajectory half of the gate: the plain family, then each gated family.

    ``seeds`` trajectories of the plain family, ``family_seeds`` of each gated family.
    """
    counter = resolve_counter(model=_MODEL)
    probes, traces = run_trajectories(
        TRAJECTORY_CONFIG, seeds=range(seeds), turns=turns, counter=counter, progress=False
    )
    retention: dict[str, float] = {}
    for row in probe_rows(probes, seeds):
        name = row["probe"].replace(" ", "_")
        if row["retention"] is not None:
            retention[f"{name}_retention"] = round(row["retention"], 4)
        if row["summary_recall"] is not None:
            retention[f"{name}_summary_recall"] = round(row["summary_recall"], 4)
    for family_name in GATED_FAMILIES:
        family = FAMILIES[family_name]
        fprobes, ftraces = run_family(
            TRAJECTORY_CONFIG, family, seeds=range(family_seeds), counter=counter, progress=False
        )
        traces = [*traces, *ftraces]
        for row in probe_rows(fprobes, family_seeds, cycles=(10,)):
            name = f"{family_name}_{row['probe'].replace(' ', '_')}"
            retention[f"{name}_retention"] = round(row["retention"] or 0.0, 4)
            if "correction" in row and row["correction"] is not None:
                retention[f"{name}_correction_new_value"] = round(row["correction"], 4)
                # gated as a retention figure: the share of stale values NOT left unmarked
                retention[f"{name}_stale_marked_or_gone"] = round(
                    1.0 - (row.get("stale unmarked") or 0.0), 4
                )
    cost, violations = _cost(traces[:seeds])
    violations = [v for t in traces for v in t.violations]
    return {
        "config": TRAJECTORY_CONFIG.to_dict(),
        "seeds": seeds,
        "family_seeds": family_seeds,
        "turns": turns,
        "retention": retention,
        "cost": cost,
        "violations": violations,
    }


def measure_locomo(path: str | Path, *, conversations: int = 2) -> dict[str, Any]:
    """The LoCoMo half of the gate (first ``conversations`` conversations)."""
    path = Path(path)
    counter = resolve_counter(model=_MODEL)
    convs = load_locomo(path)[:conversations]
    run = run_engine(convs, LOCOMO_CONFIG, counter=counter, progress=False)
    groups = aggregate(run.scores)
    retention = {
        f"evidence_{name}": round(g.evidence_all, 4)
        for name, g in groups.items()
        if name in GATED_GROUPS and g.evidence_all is not None
    }
    for name in ("all", "user side", "assistant side"):
        answer = groups[name].answer_in_view
        if answer is not None:
            key = "answer_in_view" if name == "all" else f"answer_in_view_{name.split()[0]}"
            retention[key] = round(answer, 4)
    for kind in ("evidence_whole", "evidence_answer"):
        value = getattr(groups["all"], kind)
        if value is not None:
            retention[kind] = round(value, 4)
    cost, violations = _cost(run.traces)
    return {
        "config": LOCOMO_CONFIG.to_dict(),
        "dataset_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "conversations": conversations,
        "retention": retention,
        "cost": cost,
        "violations": violations,
    }


def compare(
    measured: Mapping[str, Any],
    baseline: Mapping[str, Any],
    tolerance: Mapping[str, float] = TOLERANCE,
) -> list[str]:
    """Regressions of ``measured`` against ``baseline``, described; empty when the gate passes.

    A figure in the baseline but not measured is a regression too (a metric silently gone).
    """
    problems = [f"invariant violated: {v}" for v in measured.get("violations", [])]
    for key, base in baseline.get("retention", {}).items():
        now = measured.get("retention", {}).get(key)
        if now is None:
            problems.append(f"{key}: no longer measured (baseline {base:.4f})")
        elif now < base - tolerance["retention_abs"]:
            problems.append(
                f"{key}: {now:.4f} < baseline {base:.4f} - {tolerance['retention_abs']}"
            )
    for key, base in baseline.get("cost", {}).items():
        now = measured.get("cost", {}).get(key)
        if now is None:
            problems.append(f"{key}: no longer measured (baseline {base:.4f})")
        elif now > base * (1 + tolerance["cost_rel"]) + 1e-9:
            problems.append(f"{key}: {now:.4f} > baseline {base:.4f} + {tolerance['cost_rel']:.0%}")
    return problems


def load_baseline(path: Path = BASELINE_PATH) -> dict[str, Any]:
    """The committed baseline."""
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _default_locomo() -> Path:
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo10.json"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.runners.gate", description=__doc__)
    parser.add_argument("--locomo", type=Path, default=_default_locomo(), help="locomo10.json")
    parser.add_argument("--baseline", type=Path, default=BASELINE_PATH)
    parser.add_argument("--record", action="store_true", help="write the baseline")
    args = parser.parse_args(argv)
    measured: dict[str, Any] = {"trajectories": measure_trajectories()}
    if args.locomo.is_file():
        measured["locomo"] = measure_locomo(args.locomo)
    else:
        sys.stderr.write(f"LoCoMo not found at {args.locomo}: its half of the gate is skipped\n")
    if args.record:
        bad = [v for part in measured.values() for v in part["violations"]]
        if bad:
            sys.stderr.write("refusing to record a baseline with invariant violations:\n")
            sys.stderr.write("\n".join(bad[:20]) + "\n")
            return 1
        previous = load_baseline(args.baseline) if args.baseline.is_file() else {}
        if "locomo" not in measured and "locomo" in previous:
            measured["locomo"] = previous["locomo"]  # keep the half we could not measure
        meta = report_metadata(command="python -m evals.runners.gate --record", tolerance=TOLERANCE)
        write_json_report(args.baseline, {"meta": meta, **measured})
        sys.stdout.write(f"baseline written to {args.baseline}\n")
        return 0
    baseline = load_baseline(args.baseline)
    problems: list[str] = []
    for part, found in measured.items():
        base = baseline.get(part)
        if base is None:
            problems.append(
                f"{part}: no baseline recorded (run python -m evals.runners.gate --record)"
            )
            continue
        if base.get("config") != found["config"]:
            problems.append(f"{part}: the gate's settings changed; re-record the baseline")
            continue
        if part == "locomo" and base.get("dataset_sha256") != found["dataset_sha256"]:
            sys.stderr.write("LoCoMo file differs from the baseline's: its half is skipped\n")
            continue
        tolerance = baseline.get("meta", {}).get("tolerance", TOLERANCE)
        problems += [f"{part}: {p}" for p in compare(found, base, tolerance)]
        sys.stdout.write(f"{part}: {json.dumps(found['retention'])} {json.dumps(found['cost'])}\n")
    for problem in problems:
        sys.stderr.write(f"REGRESSION {problem}\n")
    return 1 if problems else 0


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
