"""What each heuristic of the extractive summarizer is worth: switch it off, measure again.

    python -m evals.runners.ablation --locomo DATA/locomo10.json --audit DATA/audit-errors.json
    python -m evals.runners.ablation --heuristic time_words --heuristic names --seeds 3 \
        --budget 4000

The summarizer as shipped is measured first; then, one at a time, each heuristic of
:data:`summem.summarizers.extractive.summarizer.HEURISTICS` is switched off
(``ExtractiveSummarizer(ablate=...)``) and everything is measured again:

- each synthetic trajectory family (:data:`evals.families.catalogue.FAMILIES`): planted facts
  carried after 10 cycles and at the end (for ``corrections``: the corrected value present,
  and ``corrections-fresh``, the share of probes with no stale value left unmarked; for
  ``both-speakers``, also per speaker at the end);
- LoCoMo (when its path is given): answer in view at each ``--budget`` (summary budget a
  quarter, target three quarters of it, as in :mod:`evals.runners.locomo`).

Each row gives the figures with the heuristic off, minus the shipped summarizer's: a negative
figure means the heuristic helps there. The verdict says where it helps (drops more than
``--tolerance`` when off) and where it hurts. A heuristic that helps LoCoMo but no synthetic
family is reported as ``LoCoMo only``: a candidate dataset-shaped rule. Writes
``ablation.json`` and ``ablation.md``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.engine.config import EngineConfig
from evals.engine.locomo import run_engine
from evals.families.catalogue import FAMILIES
from evals.families.locomo import Conversation, load_locomo
from evals.metrics.evidence import aggregate
from evals.runners.report import markdown_table, report_metadata, write_json_report
from evals.runners.trajectories import DEFAULT_CONFIG, probe_rows, run_family
from summem.summarizers.extractive.summarizer import HEURISTICS, ExtractiveSummarizer
from summem.tokens.base import resolve_counter

__all__ = ["DEFAULT_FAMILIES", "Measured", "main", "measure", "verdict"]

DEFAULT_FAMILIES = (
    "plain",
    "realistic",
    "corrections",
    "both-speakers",
    "indirect",
    "nested-tool",
    "lists",
)
"""The long family (1,000 turns) is left out by default: it takes as long as all the others."""
SHIPPED = "(none: as shipped)"


@dataclass(frozen=True)
class Measured:
    """One summarizer's figures: ``family:probe`` and ``locomo@budget`` keys -> share."""

    ablated: str
    figures: dict[str, float]
    violations: int


def locomo_config(budget: int) -> EngineConfig:
    """LoCoMo's engine settings at ``budget``, as :mod:`evals.runners.locomo` sets them."""
    return EngineConfig(
        threshold_tokens=budget, target_tokens=budget * 3 // 4, summary_max_tokens=budget // 4
    )


def measure(
    ablated: str | None,
    *,
    families: Sequence[str] = DEFAULT_FAMILIES,
    seeds: int = 3,
    conversations: Sequence[Conversation] = (),
    budgets: Sequence[int] = (4000,),
    model: str = "gpt-4o",
    summarizer: ExtractiveSummarizer | None = None,
) -> Measured:
    """Every figure of the ablation for one summarizer.

    Args:
        ablated: the heuristic switched off (``None``: the summarizer as shipped).
        families: trajectory families to replay.
        seeds: trajectories per family.
        conversations: LoCoMo conversations (none: LoCoMo is skipped).
        budgets: LoCoMo view budgets.
        model: the tokenizer budgets are counted with.
        summarizer: measure this one instead (tests pass a deliberately weakened one).
    """
    counter = resolve_counter(model=model)
    if summarizer is None:
        summarizer = ExtractiveSummarizer(ablate=() if ablated is None else (ablated,))
    figures: dict[str, float] = {}
    violations = 0
    for name in families:
        family = FAMILIES[name]
        probes, traces = run_family(
            DEFAULT_CONFIG,
            family,
            seeds=range(seeds),
            counter=counter,
            progress=False,
            summarizer=summarizer,
        )
        violations += sum(len(t.violations) for t in traces)
        for row in probe_rows(probes, seeds, cycles=(10,)):
            key = "c10" if row["probe"] == "cycle 10" else "end"
            value = row.get("correction") if family.corrections else row["retention"]
            if value is not None:
                figures[f"{name}:{key}"] = value
            if family.corrections and row.get("stale unmarked") is not None:
                figures[f"{name}-fresh:{key}"] = 1.0 - row["stale unmarked"]
            if family.speakers == "both" and key == "end":
                for role, short in (("user", "user"), ("assistant", "asst")):
                    if row[f"from {role}"] is not None:
                        figures[f"{name}:{key}:{short}"] = row[f"from {role}"]
    for budget in budgets if conversations else ():
        run = run_engine(
            conversations,
            locomo_config(budget),
            counter=counter,
            progress=False,
            summarizer=summarizer,
        )
        violations += sum(len(t.violations) for t in run.traces)
        groups = aggregate(run.scores)
        for group, suffix in (("all", ""), ("user side", ":user"), ("assistant side", ":asst")):
            value = groups[group].answer_in_view
            if value is not None:
                figures[f"locomo@{budget}{suffix}"] = value
    return Measured(ablated or SHIPPED, figures, violations)


def verdict(deltas: Mapping[str, float], tolerance: float) -> str:
    """Where a heuristic helps (its figures drop when it is off) and where it hurts.

    ``deltas`` are ablated minus shipped; per-speaker LoCoMo figures are not judged here.
    """

    def effect(prefix_locomo: bool) -> str:
        chosen = [
            v
            for k, v in deltas.items()
            if k.startswith("locomo@") == prefix_locomo and k.count(":") <= int(not prefix_locomo)
        ]
        helps = any(v <= -tolerance for v in chosen)
        hurts = any(v >= tolerance for v in chosen)
        if helps and hurts:
            return "mixed"
        return "helps" if helps else "hurts" if hurts else "none"

    synthetic, locomo = effect(False), effect(True)
    has_locomo = any(k.startswith("locomo@") for k in deltas)
    if not has_locomo:
        return f"synthetic: {synthetic}"
    text = f"synthetic: {synthetic}; LoCoMo: {locomo}"
    if locomo == "helps" and synthetic in ("none", "hurts"):
        text += " (LoCoMo only)"
    return text


def _row(
    result: Measured, shipped: Measured, keys: Sequence[str], tolerance: float
) -> dict[str, Any]:
    if result is shipped:
        cells = {k: f"{v:.3f}" for k, v in result.figures.items()}
        return {"heuristic off": SHIPPED, **{k: cells.get(k, "") for k in keys}, "verdict": ""}
    deltas = {
        k: result.figures[k] - shipped.figures[k]
        for k in keys
        if k in result.figures and k in shipped.figures
    }
    return {
        "heuristic off": result.ablated,
        **{k: f"{deltas[k]:+.3f}" if k in deltas else "" for k in keys},
        "verdict": verdict(deltas, tolerance),
    }


def render(results: Sequence[Measured], tolerance: float) -> tuple[list[dict[str, Any]], str]:
    """The table's rows (first absolute, then deltas) and its Markdown."""
    shipped = results[0]
    keys = list(shipped.figures)
    rows = [_row(r, shipped, keys, tolerance) for r in results]
    note = (
        "First row: figures of the summarizer as shipped. Other rows: the figure with that "
        "heuristic off minus the shipped one (negative: the heuristic helps). Columns "
        "`family:c10` and `family:end`: planted facts carried after 10 cycles and at the end "
        "(corrections: the corrected value present; corrections-fresh: no stale value left "
        "unmarked; `:user`, `:asst`: facts stated by that side); `locomo@B`: answer in view at "
        "budget B (`:user`, `:asst`: items whose evidence is all from that side). Per-side "
        "figures are reported, not judged.\n\n"
    )
    return rows, note + markdown_table(rows)


def _measure_one(job: tuple[str | None, dict[str, Any]]) -> Measured:
    ablated, kwargs = job
    return measure(ablated, **kwargs)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m evals.runners.ablation", description=__doc__)
    parser.add_argument("--locomo", type=Path, help="locomo10.json (none: synthetic only)")
    parser.add_argument("--audit", type=Path, help="locomo-audit's audit-errors.json")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--budget", type=int, action="append", help="LoCoMo budget (repeatable)")
    parser.add_argument(
        "--family", action="append", choices=sorted(FAMILIES), help="(default: all but long)"
    )
    parser.add_argument("--seeds", type=int, default=3, help="trajectories per family")
    parser.add_argument(
        "--heuristic", action="append", choices=HEURISTICS, help="(default: every one)"
    )
    parser.add_argument("--tolerance", type=float, default=0.005, help="smallest effect judged")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--model", default="gpt-4o", help="tokenizer to count with")
    parser.add_argument("--out", type=Path, default=Path("out/ablation"))
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    conversations: list[Conversation] = []
    if args.locomo is not None:
        conversations = load_locomo(args.locomo, audit_path=args.audit)[: args.conversations]
    kwargs: dict[str, Any] = {
        "families": tuple(args.family or DEFAULT_FAMILIES),
        "seeds": args.seeds,
        "conversations": conversations,
        "budgets": tuple(args.budget or (4000,)),
        "model": args.model,
    }
    jobs: list[tuple[str | None, dict[str, Any]]] = [
        (None, kwargs),
        *((h, kwargs) for h in args.heuristic or HEURISTICS),
    ]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(_measure_one, jobs))
    else:
        results = [_measure_one(job) for job in jobs]
    rows, text = render(results, args.tolerance)
    meta = report_metadata(
        eval="ablation",
        families=list(kwargs["families"]),
        seeds=args.seeds,
        budgets=list(kwargs["budgets"]) if conversations else [],
        conversations=len(conversations),
        audit_applied=args.audit is not None,
        tolerance=args.tolerance,
    )
    write_json_report(
        args.out / "ablation.json",
        {"meta": meta, "results": [r.__dict__ for r in results], "rows": rows},
    )
    (args.out / "ablation.md").write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 1 if any(r.violations for r in results) else 0


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
