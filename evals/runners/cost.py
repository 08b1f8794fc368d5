"""The billed cost of a conversation under each memory, with each provider's prompt caching.

    python -m evals.runners.cost [--seeds 1] [--out out/cost]

What a memory costs depends less on how many tokens it sends than on how much of each request
repeats the one before: providers bill a repeated prefix at a tenth of the price (OpenAI
automatically, Anthropic at ``cache_control`` breakpoints, see :mod:`evals.cost.pricing`). Every
reduction changes the prefix of the next request, and a summarizer given a fresh prompt pays
for all of it. This eval replays conversations through memory configurations, one message at a
time through :class:`~summem.memory.Memory`, and prices every request the assistant and the
summarizer would send:

- the assistant's request before each recorded assistant message: the tool definitions and the
  view (``memory.messages()``), its reply being that recorded message;
- each summarizer request exactly as :class:`~summem.summarizers.llm.LLMSummarizer` builds it
  (same prompt, same transcript), its reply the extractive summary of the same span, so the
  summaries (and the planted-fact retention) are those of the offline summarizer.

Both are billed under OpenAI's rules (``gpt-4.1-mini``) and Anthropic's (``claude-sonnet-4-5``,
breakpoints on the system message, the summary and the last message), with litellm's bundled
prices, offline. Workloads: the planted-fact trajectory families (``plain``, ``realistic``,
``corrections``, ``long``), the tool-heavy trajectories of :mod:`evals.families.catalogue`
(``tools``), and the same behind a 1,500-token system prompt (``agent``).
Reported per 1,000 user turns: input tokens, cached share, output tokens, the summarizer's
share of the dollars, dollars, beside the share of planted facts the final view carries.
Writes ``cost.json``, ``cost.md`` and ``cost.png`` (dollars against retention).

The cost model itself is :mod:`evals.cost`; this is its command line, tables and plot.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from evals.cost.replay import run_cost
from evals.cost.setups import MODELS, SETUPS, SUMMARY_MAX, TARGET, THRESHOLD, WORKLOADS
from evals.runners.report import markdown_table, report_metadata, write_json_report

__all__ = ["main", "plot", "render", "summary_rows"]

# -- the report -----------------------------------------------------------------------------


def summary_rows(rows: Sequence[dict[str, Any]], provider: str) -> list[dict[str, Any]]:
    """Per configuration, for one provider: dollars per 1,000 turns on each workload."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["provider"] != provider:
            continue
        line = out.setdefault(row["config"], {"config": row["config"]})
        line[row["workload"]] = row["dollars"]
    return list(out.values())


HEADLINE: dict[str, tuple[str, ...]] = {
    "no memory (whole history)": ("no memory",),
    "window, 8,000 tokens": ("window",),
    "summarize at every threshold crossing": ("every crossing",),
    "summem 8000/6000 (with `reuse_cache=True`)": ("summem 8000/6000", "summem + cache reuse"),
}
"""The README's rows: a label and the configurations shown in it (the second in brackets)."""
HEADLINE_WORKLOADS = ("agent", "long")
HEADLINE_TITLE = "$ / 1,000 turns: agent / 1,000-turn chat"


def headline(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The README's table: dollars per 1,000 turns on ``agent`` / ``long``, facts kept."""
    cost = {(r["config"], r["provider"], r["workload"]): r["dollars"] for r in rows}
    out = []
    for label, configs in HEADLINE.items():
        line: dict[str, Any] = {HEADLINE_TITLE: label}
        for provider, model in MODELS.items():
            cells = []
            for config in configs:
                values = [cost.get((config, provider, w)) for w in HEADLINE_WORKLOADS]
                if all(v is not None for v in values):
                    cells.append(" / ".join(f"{v:.2f}" for v in values))
            if cells:
                line[model] = cells[0] + "".join(f" ({c})" for c in cells[1:])
        kept = [
            r["fact_retention"]
            for r in rows
            if (r["config"], r["provider"]) == (configs[0], "openai")
        ]
        if len(line) > 1 and kept:
            line["facts kept"] = sum(kept) / len(kept)
            out.append(line)
    return out


def plot(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Dollars per 1,000 turns (mean over workloads) against planted-fact retention."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(MODELS), figsize=(13, 5.5))
    colours = [plt.get_cmap("tab20")(i) for i in range(20)]
    markers = "osD^vP*Xh<>p"
    for ax, provider in zip(axes, MODELS, strict=True):
        by_config: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            if row["provider"] == provider:
                by_config.setdefault(row["config"], []).append(row)
        for i, (config, group) in enumerate(by_config.items()):
            x = sum(r["dollars"] for r in group) / len(group)
            y = sum(r["fact_retention"] for r in group) / len(group)
            ax.scatter(
                [x], [y], label=config, color=colours[i % 20], marker=markers[i % len(markers)]
            )
        ax.set_xlabel(f"$ per 1,000 turns ({MODELS[provider]}, {provider} caching)")
        ax.set_ylabel("planted facts in the final view")
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.suptitle("Billed cost against fidelity (mean over workloads)")
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def render(rows: Sequence[dict[str, Any]]) -> str:
    """The markdown report: a dollars summary per provider, then every row."""
    parts = []
    top = headline(rows)
    if top:
        parts.append(
            "### In the README: $ per 1,000 turns, planted facts kept (mean, all workloads)\n"
        )
        parts.append(markdown_table(top, floatfmt=".2f") + "\n")
    for provider, model in MODELS.items():
        parts.append(f"### $ per 1,000 turns, {model} ({provider} caching)\n")
        parts.append(markdown_table(summary_rows(rows, provider), floatfmt=".2f") + "\n")
    parts.append("### Every run (per 1,000 turns)\n")
    parts.append(markdown_table(list(rows), floatfmt=".3f") + "\n")
    return "\n".join(parts)


def _iter_names(given: Sequence[str] | None, known: dict[str, Any]) -> Iterator[str]:
    yield from given or list(known)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: replay, price, print the table, write the reports and the plot."""
    parser = argparse.ArgumentParser(prog="python -m evals.runners.cost", description=__doc__)
    parser.add_argument("--seeds", type=int, default=1, help="trajectories per workload")
    parser.add_argument("--workload", action="append", choices=sorted(WORKLOADS))
    parser.add_argument("--config", action="append", choices=list(SETUPS))
    parser.add_argument("--out", type=Path, default=Path("out/cost"))
    parser.add_argument("--plot", type=Path, help="where the plot goes (default: OUT/cost.png)")
    args = parser.parse_args(argv)
    workloads = list(_iter_names(args.workload, WORKLOADS))
    setups = list(_iter_names(args.config, SETUPS))
    rows = run_cost(workloads, setups, range(args.seeds))
    text = render(rows)
    sys.stdout.write(text)
    meta = report_metadata(
        seeds=args.seeds,
        models=MODELS,
        budget={"threshold": THRESHOLD, "target": TARGET, "summary": SUMMARY_MAX},
        setups={n: SETUPS[n].about for n in setups},
    )
    write_json_report(args.out / "cost.json", {"meta": meta, "rows": rows})
    (args.out / "cost.md").write_text(text, encoding="utf-8")
    plot(rows, args.plot or args.out / "cost.png")
    return 0


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
