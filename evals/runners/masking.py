"""Window, masking-only, summarization and hybrid on tool-heavy trajectories, offline.

    python -m evals.runners.masking --seeds 5 --out out/masking

Each seed generates a support trajectory (see :mod:`evals.families.trajectories`) with tools
called on most turns, and every tool result padded with a verbose ``trace`` field (no planted
value in it), as real tool observations are. The conversation is replayed one message at a time
through ``Memory`` with each configuration:

- ``window``: ``TruncationReducer`` (no summary, no masking);
- ``masking``: the same window with ``mask_tool_results_after`` (zero summarizer calls);
- ``summarization``: ``SummarizationReducer`` (the offline extractive summarizer);
- ``hybrid``: summarization with masking first.

Reported per configuration, summed over seeds: the prompt tokens the model is sent (the view's
size before each assistant message), the tokens a summarizer reads (every evicted message and
the previous summary, as an LLM summarizer would be sent them) and the summaries written, and
the share of planted facts the final view still carries (verbatim, a stub's key values
included, or in the summary). Writes ``masking.json`` and ``masking.md``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.families.catalogue import tool_heavy
from evals.families.trajectories import Trajectory
from evals.metrics.retention import fact_retention
from evals.runners.report import markdown_table, report_metadata, write_json_report
from summem.memory import Memory
from summem.reducers.base import Reducer
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from summem.stores.memory import InMemoryStore
from summem.tokens.base import TokenCounter, resolve_counter

__all__ = ["CONFIGS", "main", "run_masking"]

SUMMARY_MAX = 400
MASKING: dict[str, Any] = {"mask_tool_results_after": 3, "mask_min_tokens": 100}


def _window(counter: TokenCounter, threshold: int, **extra: Any) -> Reducer:
    return TruncationReducer(threshold_tokens=threshold, token_counter=counter, **extra)


def _summarizing(counter: TokenCounter, threshold: int, **extra: Any) -> Reducer:
    return SummarizationReducer(
        threshold_tokens=threshold,
        summary_max_tokens=SUMMARY_MAX,
        token_counter=counter,
        **extra,
    )


CONFIGS: dict[str, Callable[[TokenCounter, int], Reducer]] = {
    "window": _window,
    "masking": lambda c, t: _window(c, t, **MASKING),
    "summarization": _summarizing,
    "hybrid": lambda c, t: _summarizing(c, t, **MASKING),
}
"""The configurations compared, by name (given a counter and the threshold; the target is
three quarters of it)."""


@dataclass
class Run:
    """One configuration over one trajectory."""

    prompt_tokens: int = 0
    summarizer_input_tokens: int = 0
    summaries: int = 0
    facts: int = 0
    kept: int = 0


def replay_one(traj: Trajectory, reducer: Reducer, counter: TokenCounter) -> Run:
    """Replay ``traj`` through a memory with ``reducer``; what it cost and kept."""
    run = Run()
    with Memory("eval", reducer=reducer, store=InMemoryStore()) as memory:
        for message in traj.messages:
            if message["role"] == "assistant":
                run.prompt_tokens += memory.size
            memory.add(message)
        history = {m.id: m for m in memory.history_messages()}
        summaries = memory.summaries()
        by_id = {s.id: s for s in summaries}
        for summary in summaries:
            info = summary.summary_info
            if info is None:  # pragma: no cover - summem always writes provenance
                continue
            read = [history[i] for i in info.covered_ids if i in history]
            previous = by_id.get(info.previous_summary_id or "")
            run.summarizer_input_tokens += sum(counter.count_message(m) for m in read)
            if previous is not None:
                run.summarizer_input_tokens += counter.count_message(previous)
        run.summaries = len(summaries)
        last = memory.summary
        retention = fact_retention(
            traj.facts, memory.view(), last.text if last is not None else None
        )
        run.facts, run.kept = retention.total, retention.verbatim + retention.summary
    return run


def run_masking(seeds: Sequence[int], turns: int, threshold: int) -> list[dict[str, Any]]:
    """One row per configuration, summed over ``seeds``."""
    counter = resolve_counter(model="gpt-4o-mini")
    trajectories = [tool_heavy(seed, turns) for seed in seeds]
    rows = []
    for name, make in CONFIGS.items():
        total = Run()
        for traj in trajectories:
            run = replay_one(traj, make(counter, threshold), counter)
            total.prompt_tokens += run.prompt_tokens
            total.summarizer_input_tokens += run.summarizer_input_tokens
            total.summaries += run.summaries
            total.facts += run.facts
            total.kept += run.kept
        rows.append(
            {
                "config": name,
                "prompt_tokens": total.prompt_tokens,
                "summarizer_input_tokens": total.summarizer_input_tokens,
                "summaries": total.summaries,
                "fact_retention": total.kept / total.facts if total.facts else 0.0,
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the comparison, print the table, write the reports."""
    parser = argparse.ArgumentParser(prog="python -m evals.runners.masking", description=__doc__)
    parser.add_argument("--seeds", type=int, default=3, help="trajectories (seeds 0..N-1)")
    parser.add_argument("--turns", type=int, default=120, help="user turns per trajectory")
    parser.add_argument("--threshold", type=int, default=3000, help="threshold_tokens")
    parser.add_argument("--out", type=Path, default=None, help="folder for the reports")
    args = parser.parse_args(argv)
    rows = run_masking(range(args.seeds), args.turns, args.threshold)
    table = markdown_table(rows)
    sys.stdout.write(table + "\n")
    if args.out is not None:
        meta = report_metadata(
            seeds=args.seeds, turns=args.turns, threshold=args.threshold, masking=MASKING
        )
        write_json_report(args.out / "masking.json", {"meta": meta, "rows": rows})
        (args.out / "masking.md").write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
