"""The extractive summarizer's cost per evicted message, next to tokenizing that message.

Reduces conversations with tool calls (200, 800, 3200 messages by default) in one step with a
``SummarizationReducer`` over ``ExtractiveSummarizer`` (the offline default), so nearly every
message is evicted and summarized, and prints the cost per message, the cost of only counting
each message's tokens with the same counter, and their ratio. A ratio that grows with the
size would mean the summarizer is worse than linear.

    python benchmarks/bench_extractive.py [--sizes 200,800,3200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.conversation import conversation
from summem import ExtractiveSummarizer, SummarizationReducer
from summem.messages import Message, parse_messages
from summem.tokens.base import resolve_counter


def best_of(repeat: int, fn) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench_extractive.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", default="200,800,3200")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)
    counter = resolve_counter(model="gpt-4o")
    counter.count_text("warm up")
    print(f"{'messages':>9} {'summarize (us/msg)':>19} {'tokenize (us/msg)':>18} {'ratio':>6}")
    for n in [int(s) for s in args.sizes.split(",")]:
        msgs: list[Message] = parse_messages(conversation(n))
        texts = [m.text for m in msgs]
        reducer = SummarizationReducer(
            ExtractiveSummarizer(),
            threshold_tokens=2000,
            target_tokens=1500,
            summary_max_tokens=1000,
            model="gpt-4o",
        )
        tok = best_of(args.repeat, lambda texts=texts: [counter.count_text(t) for t in texts])
        result = reducer.reduce(msgs)
        assert result.reduced and result.summary is not None, "nothing was summarized"
        summ = best_of(args.repeat, lambda msgs=msgs, r=reducer: r.reduce(msgs))
        evicted = len(msgs) - len(result.view) + 1
        print(f"{n:>9} {summ / evicted * 1e6:>19.1f} {tok / n * 1e6:>18.1f} {summ / tok:>6.2f}")


if __name__ == "__main__":
    main()
