"""The extractive summarizer's cost per message on long spans of tables and rows named later.

A span of :func:`benchmarks.table_session.table_session` (a tool result with a table every few
turns, the user coming back to rows by name, code or description, lists fetched again with a
cell changed), with the last turns kept after it, is summarized in one reduction
(``ExtractiveSummarizer``, previous summary none). Every table of the span is read against the
span's user messages (which rows each names), so a span of ``n`` messages with ``n / 10``
tables used to cost ``n`` squared.

Prints, per size, the cost per span message and, as the scaling figure, the per-message cost at
each size over that at the smallest, measured in the same run: near 1 is linear, near
``size / smallest`` quadratic. No absolute time is compared with anything.

    python benchmarks/bench_tables.py [--sizes 250,1000,2000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.table_session import table_session
from summem import ExtractiveSummarizer
from summem.messages import parse_messages
from summem.summarizers.base import SummaryRequest
from summem.tokens.base import resolve_counter

KEPT = 20
"""The turns kept after the span (read for the rows they name, never summarized)."""


def _finished(flow: Generator[Any, Any, Any]) -> Any:
    """The summary of the extractive summarizer's flow, which asks for no I/O."""
    try:
        next(flow)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("the extractive summarizer asked for I/O")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench_tables.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", default="250,1000,2000")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--every", type=int, default=5, help="a table every this many turns")
    args = parser.parse_args(argv)
    counter = resolve_counter(model="gpt-4o")
    counter.count_text("warm up")
    summarizer = ExtractiveSummarizer()
    print(f"{'messages':>9} {'tables':>7} {'summarize (us/msg)':>19} {'scaling':>8}")
    first: float | None = None
    for n in [int(s) for s in args.sizes.split(",")]:
        messages = parse_messages(table_session(n + KEPT + 1, tables_every=args.every))
        span, kept = messages[1:-KEPT], messages[-KEPT:]
        request = SummaryRequest(
            messages=span,
            previous_summary=None,
            max_tokens=1000,
            token_counter=counter,
            kept=kept,
        )
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            _finished(summarizer.summarize(request))
            best = min(best, time.perf_counter() - start)
        per = best / len(span)
        first = per if first is None else first
        tables = sum(1 for m in span if m.role == "tool")
        print(f"{len(span):>9} {tables:>7} {per * 1e6:>19.1f} {per / first:>8.2f}")


if __name__ == "__main__":
    main()
