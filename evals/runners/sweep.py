"""Sweep the engine's settings and plot what each keeps against what it costs.

    python -m evals.runners.sweep DATA/locomo10.json --audit DATA/audit-errors.json --out out/sweep
    python -m evals.runners.sweep DATA --thresholds 4000 --targets 0.75,0.9 \
        --summary-budgets 0.25,0.5 \
        --summarizers extractive,llm:gpt-4o-mini --prompts summarize,summarize-brief \
        --replay out/sweep.jsonl

The grid is thresholds x targets x summary budgets x prompts x summarizers. A target or summary
budget at most 1 is a share of the threshold (``0.75``), above 1 a token count; settings that
break ``summary < target < threshold`` are skipped, and prompts apply to LLM summarizers only.
Each setting replays the LoCoMo conversations (evidence retention by category, answer
containment, the engine's cost) and ``--trajectory-seeds`` planted-fact trajectories (facts
still carried at the end). The window and observation baselines are scored at every threshold
and summary budget of the grid.

Writes ``report.json`` (every row), ``report.md`` (the table, best retention first) and PNGs of
retention against cost, Pareto front marked: ``evidence_vs_view_tokens.png`` (engine and
baselines), ``evidence_vs_prompt_tokens.png`` (cumulative prompt tokens against sending the
full context), ``evidence_vs_summarizer_tokens.png`` and, with trajectories,
``facts_vs_prompt_tokens.png``. Offline settings run in ``--jobs`` processes; LLM settings run
in this process, one at a time, through the recording or replaying client.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import multiprocessing
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from evals.engine.config import EngineConfig, add_llm_arguments, open_client
from evals.engine.locomo import run_engine, view_stats
from evals.engine.replay import efficiency
from evals.families.locomo import Conversation, load_locomo, locomo_file
from evals.metrics.evidence import aggregate
from evals.progress import progress_bar
from evals.runners.locomo import baseline_rows
from evals.runners.report import markdown_table, plot_pareto, report_metadata, write_json_report
from evals.runners.trajectories import probe_rows, run_trajectories
from summem.clients.base import LLMClient
from summem.errors import ConfigurationError
from summem.tokens.base import resolve_counter

__all__ = ["grid", "main", "run_setting"]

TABLE_COLUMNS = (
    "label",
    "evidence_all",
    "multi-hop",
    "temporal",
    "open-domain",
    "single-hop",
    "answer_in_view",
    "facts_end",
    "view_tokens_mean",
    "prompt_ratio",
    "summarizer_read_per_token",
    "llm_input_per_token",
    "reductions_per_1k",
    "compression_ratio",
    "waited_share",
    "violations",
)


def _amount(value: float, threshold: int) -> int:
    return round(value * threshold) if value <= 1 else round(value)


def grid(
    *,
    thresholds: Sequence[int],
    targets: Sequence[float],
    summary_budgets: Sequence[float],
    summarizers: Sequence[str],
    prompts: Sequence[str | None] = (None,),
    soft_threshold: float | None = None,
) -> list[EngineConfig]:
    """Every valid setting of the grid, once each, in grid order."""
    seen: dict[EngineConfig, None] = {}
    for threshold, target, summary, summarizer, prompt in itertools.product(
        thresholds, targets, summary_budgets, summarizers, prompts
    ):
        is_llm = summarizer.startswith("llm:")
        soft = _amount(soft_threshold, threshold) if soft_threshold is not None else None
        try:
            config = EngineConfig(
                threshold_tokens=threshold,
                target_tokens=_amount(target, threshold),
                summary_max_tokens=_amount(summary, threshold),
                summarizer=summarizer,
                prompt=prompt if is_llm else None,
                soft_threshold_tokens=soft,
            )
        except ConfigurationError:
            continue  # summary >= target or target >= threshold: not a setting
        seen.setdefault(config, None)
    return list(seen)


@functools.lru_cache(maxsize=2)
def _conversations(path: str, audit: str | None, limit: int | None) -> list[Conversation]:
    return load_locomo(path, audit_path=audit)[:limit]


def run_setting(
    config: EngineConfig,
    *,
    dataset: str,
    audit: str | None,
    conversations: int | None,
    model: str,
    seeds: int,
    client: LLMClient | None = None,
) -> dict[str, Any]:
    """One row of the sweep: LoCoMo retention by category, planted facts, and cost."""
    counter = resolve_counter(model=model)
    convs = _conversations(dataset, audit, conversations)
    run = run_engine(convs, config, counter=counter, client=client, progress=False)
    groups = aggregate(run.scores)
    row: dict[str, Any] = {"label": config.label, "kind": "engine", **config.to_dict()}
    row["evidence_all"] = groups["all"].evidence_all
    row.update({name: g.evidence_all for name, g in groups.items() if name != "all"})
    row["answer_in_view"] = groups["all"].answer_in_view
    row["answer_ceiling"] = groups["all"].answer_ceiling
    row["provenance"] = run.provenance
    row.update(view_stats(run.views))
    row.update(efficiency(run.traces))
    if seeds:
        probes, traces = run_trajectories(
            config, seeds=range(seeds), counter=counter, client=client, progress=False
        )
        end = probe_rows(probes, seeds, cycles=())[-1]
        row["facts_end"] = end["retention"]
        row["facts_recall_end"] = end["summary_recall"]
        row["facts_violations"] = sum(len(t.violations) for t in traces)
    return row


def _baselines(
    configs: Sequence[EngineConfig], dataset: str, audit: str | None, n: int | None, model: str
) -> list[dict[str, Any]]:
    """Window and observation rows at every (threshold, summary budget) of the grid."""
    counter = resolve_counter(model=model)
    convs = _conversations(dataset, audit, n)
    rows: dict[str, dict[str, Any]] = {}
    pairs = dict.fromkeys((c.threshold_tokens, c.summary_max_tokens) for c in configs)
    for budget, summary in pairs:
        found = baseline_rows(convs, budget_tokens=budget, summary_budget=summary, counter=counter)
        for method in ("window", "observations"):
            label = f"window {budget}" if method == "window" else f"observations {budget}/{summary}"
            mine = [r for r in found if r["method"] == method]
            overall = next(r for r in mine if r["group"] == "all")
            row = {**overall, "label": label, "kind": "baseline"}
            row.update({r["group"]: r["evidence_all"] for r in mine if r["group"] != "all"})
            rows.setdefault(label, row)
    return list(rows.values())


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m evals.runners.sweep",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dataset", type=Path, help="path to locomo10.json (not shipped here)")
    parser.add_argument("--audit", type=Path, help="locomo-audit's audit-errors.json")
    parser.add_argument("--out", type=Path, default=Path("out/sweep"))
    parser.add_argument("--thresholds", default="2000,4000,8000")
    parser.add_argument("--targets", default="0.75,0.9", help="shares (<=1) or tokens")
    parser.add_argument("--summary-budgets", default="0.25,0.5", help="shares (<=1) or tokens")
    parser.add_argument("--summarizers", default="extractive", help="extractive,llm:MODEL,...")
    parser.add_argument("--prompts", default="", help="prompt names or YAML files (LLM only)")
    parser.add_argument("--soft-threshold", type=float, help="share or tokens, for every setting")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--trajectory-seeds", type=int, default=3)
    parser.add_argument("--model", default="gpt-4o", help="tokenizer to count with")
    parser.add_argument("--jobs", type=int, default=2, help="processes for offline settings")
    add_llm_arguments(parser)
    parser.add_argument("--no-progress", action="store_true")
    return parser.parse_args(argv)


def _settings(args: argparse.Namespace) -> list[EngineConfig]:
    return grid(
        thresholds=[int(x) for x in _floats(args.thresholds)],
        targets=_floats(args.targets),
        summary_budgets=_floats(args.summary_budgets),
        summarizers=[s.strip() for s in args.summarizers.split(",") if s.strip()],
        prompts=[p.strip() for p in args.prompts.split(",") if p.strip()] or [None],
        soft_threshold=args.soft_threshold,
    )


def run_sweep(args: argparse.Namespace, configs: Sequence[EngineConfig]) -> list[dict[str, Any]]:
    """Run every setting: offline ones in processes, LLM ones here through one client."""
    common: dict[str, Any] = {
        "dataset": str(args.dataset),
        "audit": str(args.audit) if args.audit else None,
        "conversations": args.conversations,
        "model": args.model,
        "seeds": args.trajectory_seeds,
    }
    offline = [c for c in configs if not c.is_llm]
    live = [c for c in configs if c.is_llm]
    client = (
        open_client(record=args.record, replay=args.replay, base_url=args.base_url)
        if live
        else None
    )
    rows: list[dict[str, Any]] = []
    show = False if args.no_progress else None
    with progress_bar(len(configs), "sweep", enabled=show) as advance:
        if offline and args.jobs > 1:
            # spawn, not fork: forking a process that has threads (rich, tiktoken) may deadlock
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=args.jobs, mp_context=spawn) as pool:
                futures = [pool.submit(run_setting, c, **common) for c in offline]
                for future in as_completed(futures):
                    rows.append(future.result())
                    advance(1)
        else:
            for config in offline:
                rows.append(run_setting(config, **common))
                advance(1)
        for config in live:
            rows.append(run_setting(config, client=client, **common))
            advance(1)
    order = {c.label: i for i, c in enumerate(configs)}
    return sorted(rows, key=lambda r: order[r["label"]])


def write_plots(rows: Sequence[dict[str, Any]], out: Path) -> list[Path]:
    """The retention-vs-cost PNGs, Pareto front marked."""
    engine = [r for r in rows if r["kind"] == "engine"]
    plots = [
        plot_pareto(
            rows,
            x="view_tokens_mean",
            y="evidence_all",
            label="label",
            path=out / "evidence_vs_view_tokens.png",
            title="LoCoMo evidence retention vs final view size",
            xlabel="view tokens (mean, end of conversation)",
            ylabel="QA items with all evidence carried",
        ),
        plot_pareto(
            engine,
            x="prompt_ratio",
            y="evidence_all",
            label="label",
            path=out / "evidence_vs_prompt_tokens.png",
            title="Evidence retention vs prompt tokens sent",
            xlabel="cumulative prompt tokens / full context",
            ylabel="QA items with all evidence carried",
        ),
        plot_pareto(
            engine,
            x="summarizer_read_per_token",
            y="evidence_all",
            label="label",
            path=out / "evidence_vs_summarizer_tokens.png",
            title="Evidence retention vs summarizer input",
            xlabel="summarizer input tokens per conversation token",
            ylabel="QA items with all evidence carried",
        ),
    ]
    with_facts = [r for r in engine if r.get("facts_end") is not None]
    if with_facts:
        plots.append(
            plot_pareto(
                with_facts,
                x="prompt_ratio",
                y="facts_end",
                label="label",
                path=out / "facts_vs_prompt_tokens.png",
                title="Planted facts carried at the end vs prompt tokens sent",
                xlabel="cumulative prompt tokens / full context",
                ylabel="planted facts carried",
            )
        )
    return plots


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    configs = _settings(args)
    if not configs:
        raise SystemExit("the grid has no valid setting (need summary < target < threshold)")
    rows = run_sweep(args, configs)
    baselines = _baselines(
        configs,
        str(args.dataset),
        str(args.audit) if args.audit else None,
        args.conversations,
        args.model,
    )
    everything = rows + baselines
    meta = report_metadata(
        eval="sweep",
        dataset=locomo_file(args.dataset).name,
        dataset_sha256=hashlib.sha256(locomo_file(args.dataset).read_bytes()).hexdigest(),
        audit_applied=args.audit is not None,
        conversations=args.conversations,
        trajectory_seeds=args.trajectory_seeds,
        counter=resolve_counter(model=args.model).key,
        settings=[c.to_dict() for c in configs],
    )
    out: Path = args.out
    write_json_report(out / "report.json", {"meta": meta, "rows": everything})
    ranked = sorted(everything, key=lambda r: -(r.get("evidence_all") or 0.0))
    table = markdown_table(ranked, TABLE_COLUMNS)
    (out / "report.md").write_text(table, encoding="utf-8")
    write_plots(everything, out)
    sys.stdout.write(table)
    return 1 if any(r.get("violations") or r.get("facts_violations") for r in rows) else 0


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
