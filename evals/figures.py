"""Regenerate every figure the README and ``evals/README.md`` quote, with one command.

    python -m evals.figures DATA_DIR [--out out/figures]

``DATA_DIR`` holds LoCoMo's ``locomo10.json`` and locomo-audit's ``audit-errors.json`` (never
shipped here: CC BY-NC). Runs, offline, with the extractive summarizer and gpt-4o's tokenizer:

- the planted-fact trajectories, every family, 5 seeds (``trajectories.md``);
- LoCoMo at 2,000 / 4,000 / 8,000 tokens with summary budgets of a quarter, summem beside
  every baseline (``locomo.md``);
- recall over the evicted LoCoMo history at 4,000 tokens, the question as the query
  (``locomo-recall.md``);
- the ablation of the extractive summarizer's heuristics, every one switched off in turn,
  on the synthetic families and LoCoMo at the three budgets (``ablation.md``);

and prints both tables. Each is what ``python -m evals.trajectories_run`` and
``python -m evals.locomo_run`` print with the same arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from evals import ablation, locomo_recall, locomo_run, trajectories_run

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.figures", description=__doc__)
    parser.add_argument("data", type=Path, help="folder with locomo10.json and audit-errors.json")
    parser.add_argument("--out", type=Path, default=Path("out/figures"))
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    dataset = args.data / "locomo10.json"
    if not dataset.is_file():
        parser.error(f"{dataset} not found: pass the folder holding LoCoMo's locomo10.json")
    audit = args.data / "audit-errors.json"
    codes = [
        trajectories_run.main(["--seeds", str(args.seeds), "--out", str(args.out), "--no-progress"])
    ]
    sys.stdout.write("\n")
    locomo = [str(dataset), "--out", str(args.out), "--no-progress"]
    if audit.is_file():
        locomo += ["--audit", str(audit)]
    for budget in (2000, 4000, 8000):
        locomo += ["--budget", str(budget)]
    codes.append(locomo_run.main(locomo))
    sys.stdout.write("\n")
    recall = [str(dataset), "--budget", "4000", "--out", str(args.out), "--no-progress"]
    if audit.is_file():
        recall += ["--audit", str(audit)]
    codes.append(locomo_recall.main(recall))
    sys.stdout.write("\n")
    ablate = ["--locomo", str(dataset), "--seeds", str(args.seeds), "--out", str(args.out)]
    if audit.is_file():
        ablate += ["--audit", str(audit)]
    for budget in (2000, 4000, 8000):
        ablate += ["--budget", str(budget)]
    codes.append(ablation.main([*ablate, "--jobs", "2"]))
    return max(codes)


if __name__ == "__main__":
    from evals._cli import run_cli

    raise SystemExit(run_cli(main))
