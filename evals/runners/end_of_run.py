"""Why planted facts leave the extractive summary late in a run (a diagnostic, own families only).

    python -m evals.runners.end_of_run --family long --seeds 5
    python -m evals.runners.end_of_run --family plain --threshold 4000 --target 3000 \
        --summary-budget 1000

Replays each seed like :mod:`evals.runners.trajectories` and, after every reduction, finds the
summary line holding each planted fact. A fact that was in the summary (or verbatim in a kept
turn) after one cycle and is in the view no more after the next is a **loss**; each loss is
classified by what the new summary looks like:

- ``superseded``: the line went with the stale value of a correction (not a loss of the fact
  asked about now; counted apart).
- ``never-summarized``: the fact left the kept turns and no summary line ever took it.
- ``displaced``: the summary is full (within 5 % of its budget) and at least one line that
  is new this cycle has a higher stored score than the lost line: a newcomer took its room.
- ``full-weakest``: full, and every newcomer scored below it (it lost to an old line).
- ``not-full``: the summary had room and the line still went (a rule dropped it).

Per cycle it also reports the summary's tokens and lines, how many lines hold a live planted
fact, tool lines, and the capacity arithmetic: live facts x the mean tokens of a fact line
against the budget. Never run on held-out families (their text must not be read).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from evals.engine.config import EngineConfig, build_reducer
from evals.engine.replay import ReplayState, replay
from evals.families.catalogue import FAMILIES
from evals.families.facts import PlantedFact
from evals.text import contains_normalized, normalize_text
from summem.summarizers.extractive import FORMAT
from summem.summarizers.extractive.layout import summary_lines
from summem.tokens.base import resolve_counter

__all__ = ["main"]

_OWN = ("plain", "realistic", "long", "nested-tool", "indirect", "ledgers", "tables", "lists")


def _holds(fact: PlantedFact, norm_line: str) -> bool:
    return any(contains_normalized(norm_line, form) for form in (fact.value, *fact.aliases))


def _lines(state_summary: Any, reducer: Any) -> list[tuple[str, float | None]]:
    """The summary's fact lines with the score its provenance records."""
    text = reducer.summary_text(state_summary) or ""
    info = state_summary.summary_info if state_summary is not None else None
    extra = getattr(info, "extra", None) or {}
    scores = {e["line"]: e.get("score") for e in extra.get("provenance", []) if "line" in e}
    full = text.split("\n")  # each fact line with its label, shared in a run or not
    shared = extra.get("format") == FORMAT
    for index, _day, line, _body in summary_lines(text, shared_labels=shared):
        full[index] = line
    return [(line, scores.get(i)) for i, line in enumerate(full) if line.strip()]


def run(family: str, seeds: int, config: EngineConfig) -> dict[str, Any]:
    counter = resolve_counter()
    fam = FAMILIES[family]
    budget = config.summary_max_tokens
    causes: Counter[str] = Counter()
    per_cycle: dict[int, list[dict[str, float]]] = defaultdict(list)
    examples: list[str] = []
    newcomer_kinds: Counter[str] = Counter()
    for seed in range(seeds):
        traj = fam.trajectory(seed)
        reducer = build_reducer(config, counter=counter)
        prev: dict[str, Any] = {}

        def on_cycle(
            state: ReplayState,
            traj: Any = traj,
            reducer: Any = reducer,
            prev: dict[str, Any] = prev,
            seed: int = seed,
        ) -> None:
            facts = traj.facts_before(len(state.history))
            all_facts = [f for f in traj.facts if f.message_index < len(state.history)]
            lines = _lines(state.summary, reducer)
            norm = [normalize_text(line) for line, _ in lines]
            text = reducer.summary_text(state.summary) or ""
            kept_ids = {m.id for m in state.view if not m.is_summary}
            where: dict[str, int | None] = {}
            verbatim: set[str] = set()
            for f in all_facts:
                if state.history[f.message_index].id in kept_ids:
                    verbatim.add(f.id)
                where[f.id] = next((i for i, n in enumerate(norm) if _holds(f, n)), None)
            live = {f.id for f in facts}
            fact_lines = {where[f] for f in live if where.get(f) is not None}
            fact_tokens = [counter.count_text(lines[i][0]) for i in fact_lines if i is not None]
            tokens = counter.count_text(text)
            tool = sum(1 for line, _ in lines if line.startswith("- tool:"))
            n = state.cycle.number
            per_cycle[n].append(
                {
                    "tokens": tokens,
                    "lines": sum(1 for line, _ in lines if line.startswith("- ")),
                    "fact_lines": len(fact_lines),
                    "fact_line_tokens": statistics.mean(fact_tokens) if fact_tokens else 0.0,
                    "tool_lines": tool,
                    "live": len(live),
                    "evicted_live": sum(1 for f in live if f not in verbatim),
                    "in_view": sum(1 for f in live if f in verbatim or where[f] is not None),
                }
            )
            old_lines = {line for line, _ in prev.get("lines", [])}
            newcomers = [(line, s) for line, s in lines if line not in old_lines]
            full = tokens >= 0.95 * budget
            for f in all_facts:
                before = prev.get("where", {}).get(f.id)
                was_verbatim = f.id in prev.get("verbatim", set())
                now = f.id in verbatim or where[f.id] is not None
                if now or (before is None and not was_verbatim):
                    continue
                if f.id not in live:
                    causes["superseded"] += 1
                    continue
                if before is None:
                    causes["never-summarized"] += 1
                    continue
                line, score = prev["lines"][before]
                better = [
                    s for _, s in newcomers if s is not None and score is not None and s > score
                ]
                if not full:
                    cause = "not-full"
                elif better:
                    cause = "displaced"
                    for nl, s in newcomers:
                        if s is not None and score is not None and s > score:
                            newcomer_kinds[_kind(nl, traj, state)] += 1
                else:
                    cause = "full-weakest"
                causes[cause] += 1
                if len(examples) < 12:
                    examples.append(
                        f"seed {seed} cycle {n} {cause}: [{score}] {line[:100]} | newcomers "
                        f"{len(newcomers)}, better {len(better)}, tokens {tokens}/{budget}"
                    )
            prev.update(lines=lines, where=where, verbatim=verbatim)

        replay(traj.messages, reducer, on_cycle=on_cycle, latency_messages=config.latency_messages)
    return {
        "causes": causes,
        "per_cycle": per_cycle,
        "examples": examples,
        "newcomers": newcomer_kinds,
    }


def _kind(line: str, traj: Any, state: ReplayState) -> str:
    """What a newcomer line is: a planted fact's line, a tool line or other (filler)."""
    norm = normalize_text(line)
    if any(_holds(f, norm) for f in traj.facts if f.message_index < len(state.history)):
        return "fact"
    return "tool" if line.startswith("- tool:") else "filler"


def _row(samples: Sequence[dict[str, float]]) -> str:
    keys: tuple[str, ...] = ("tokens", "lines", "fact_lines", "fact_line_tokens", "tool_lines")
    keys = (*keys, "live", "evicted_live", "in_view")
    return " | ".join(f"{statistics.mean(s[k] for s in samples):.1f}" for k in keys)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", action="append", choices=_OWN, required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--threshold", type=int, default=2000)
    parser.add_argument("--target", type=int, default=1500)
    parser.add_argument("--summary-budget", type=int, default=400)
    parser.add_argument("--every", type=int, default=5, help="print every n-th cycle")
    args = parser.parse_args(argv)
    config = EngineConfig(
        threshold_tokens=args.threshold,
        target_tokens=args.target,
        summary_max_tokens=args.summary_budget,
    )
    out = sys.stdout
    for family in args.family:
        result = run(family, args.seeds, config)
        out.write(f"\n## {family} ({config.label}, {args.seeds} seeds)\n\n")
        out.write(f"losses by cause: {dict(result['causes'])}\n")
        out.write(f"newcomers that outscored a lost line: {dict(result['newcomers'])}\n\n")
        out.write(
            "| cycle | seeds | tokens | lines | fact lines | tokens/fact line | tool lines "
            "| live facts | evicted live | in view |\n|---|---|---|---|---|---|---|---|---|---|\n"
        )
        cycles = sorted(result["per_cycle"])
        for n in cycles:
            if n in (1, 3, 10) or n % args.every == 0 or n == cycles[-1]:
                samples = result["per_cycle"][n]
                out.write(f"| {n} | {len(samples)} | {_row(samples)} |\n")
        out.write("\n")
        for line in result["examples"]:
            out.write(f"- {line}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
