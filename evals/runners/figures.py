"""Regenerate the measured tables of the README and ``evals/README.md`` with one command.

    python -m evals.runners.figures DATA_DIR [--out out/figures]

``DATA_DIR`` holds LoCoMo's ``locomo10.json`` and locomo-audit's ``audit-errors.json`` (never
shipped here: CC BY-NC). Runs, offline, with the extractive summarizer, each eval's command
with the arguments its table was made with, and writes each report under ``--out``:

- the planted-fact trajectories, every family, ``--seeds`` (5) seeds (``trajectories.md``);
- the same, every family but ``long``, over ``--stat-seeds`` (30) seeds, for the noise
  checks (``seeds-30/trajectories.md``; 0 skips it);
- LoCoMo at 2,000 / 4,000 / 8,000 tokens with summary budgets of a quarter, summem beside
  every baseline, and the engine's misses against the even observations (``locomo.md``);
- recall over the evicted LoCoMo history at 4,000 tokens, the question as the query
  (``locomo-recall.md``);
- the ablation of the extractive summarizer's heuristics, every one switched off in turn,
  on the synthetic families and LoCoMo at the three budgets (``ablation.md``);
- tool-result masking at thresholds 3,000 and 8,000, ``--seeds`` seeds
  (``masking-3000/masking.md``, ``masking-8000/masking.md``);
- the billed cost of every memory configuration, one seed, with its plot (``cost/cost.md``,
  ``cost/cost.png``; the README's copy is ``docs-notes/cost.png``).

Not regenerated here: the one-off analyses of "The 8,000-token gap" in ``evals/README.md``
(summary sizes, turns kept, answers in the summary against the kept turns), the comparisons
of summarizer variants (each names its patch or setting), the sweep
(``python -m evals.runners.sweep``) and the live tier. The options below shrink every run, for
a quick check of the pipeline.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from evals.families.catalogue import FAMILIES
from evals.runners import ablation, cost, locomo, locomo_recall, masking, trajectories

__all__ = ["main"]

BUDGETS = (2000, 4000, 8000)
MASKING_THRESHOLDS = (3000, 8000)


def _repeat(flag: str, values: Sequence[object]) -> list[str]:
    return [part for v in values for part in (flag, str(v))]


def parse_args(argv: Sequence[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    parser = argparse.ArgumentParser(prog="python -m evals.runners.figures", description=__doc__)
    parser.add_argument("data", type=Path, help="folder with locomo10.json and audit-errors.json")
    parser.add_argument("--out", type=Path, default=Path("out/figures"))
    parser.add_argument("--seeds", type=int, default=5, help="trajectories and masking seeds")
    parser.add_argument("--stat-seeds", type=int, default=30, help="noise check (0: skip)")
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES), help="(all)")
    parser.add_argument("--turns", type=int, help="override every trajectory family's turns")
    parser.add_argument("--budget", type=int, action="append", help="LoCoMo budgets")
    parser.add_argument("--conversations", type=int, help="only the first N LoCoMo ones")
    parser.add_argument("--heuristic", action="append", help="ablate only these (default all)")
    parser.add_argument("--masking-threshold", type=int, action="append")
    parser.add_argument("--masking-turns", type=int, default=120)
    parser.add_argument("--cost-workload", action="append", help="(default: every workload)")
    parser.add_argument("--cost-config", action="append", help="(default: every one)")
    parser.add_argument("--jobs", type=int, default=2, help="ablation processes")
    return parser, parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = parse_args(argv)
    dataset = args.data / "locomo10.json"
    if not dataset.is_file():
        parser.error(f"{dataset} not found: pass the folder holding LoCoMo's locomo10.json")
    audit = args.data / "audit-errors.json"
    audit_args = ["--audit", str(audit)] if audit.is_file() else []
    subset = ["--conversations", str(args.conversations)] if args.conversations else []
    budgets = _repeat("--budget", args.budget or BUDGETS)
    families = _repeat("--family", args.family or ())
    turns = ["--turns", str(args.turns)] if args.turns else []
    out = str(args.out)

    def section() -> None:
        sys.stdout.write("\n")

    traj = ["--seeds", str(args.seeds), *families, *turns, "--out", out, "--no-progress"]
    codes = [trajectories.main(traj)]
    section()
    if args.stat_seeds:
        stat_families = args.family or [f for f in FAMILIES if f != "long"]
        stat = [
            "--seeds",
            str(args.stat_seeds),
            *_repeat("--family", stat_families),
            *turns,
            "--out",
            str(args.out / f"seeds-{args.stat_seeds}"),
            "--no-progress",
        ]
        codes.append(trajectories.main(stat))
        section()
    locomo_args = [str(dataset), *audit_args, *subset, *budgets, "--out", out, "--no-progress"]
    codes.append(locomo.main(locomo_args))
    section()
    recall = [str(dataset), *audit_args, *subset, "--budget", "4000", "--out", out]
    codes.append(locomo_recall.main([*recall, "--no-progress"]))
    section()
    ablate = ["--locomo", str(dataset), *audit_args, *subset, *budgets, "--out", out]
    ablate += ["--seeds", str(args.seeds), *families, *_repeat("--heuristic", args.heuristic or ())]
    codes.append(ablation.main([*ablate, "--jobs", str(args.jobs)]))
    section()
    for threshold in args.masking_threshold or MASKING_THRESHOLDS:
        sys.stdout.write(f"### Tool-result masking, threshold {threshold}\n\n")
        masking_args = ["--seeds", str(args.seeds), "--threshold", str(threshold)]
        masking_args += ["--turns", str(args.masking_turns)]
        codes.append(masking.main([*masking_args, "--out", str(args.out / f"masking-{threshold}")]))
        section()
    cost_args = [*_repeat("--workload", args.cost_workload or ()), "--out", str(args.out / "cost")]
    codes.append(cost.main([*cost_args, *_repeat("--config", args.cost_config or ())]))
    return max(codes)


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
