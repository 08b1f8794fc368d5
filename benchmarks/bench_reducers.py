"""Per-turn cost of the reducers on long conversations, next to tokenizing the new message.

Replays a conversation with tool calls (1k, 5k, 20k messages) through ``TruncationReducer``
and ``SummarizationReducer`` (with an instant summarizer), one message at a time, the way an
application calls ``reduce(view + [new])`` every turn. Prints the mean cost per turn, the cost
of only tokenizing each new message with the same tokenizer, and their ratio.

    python benchmarks/bench_reducers.py [--sizes 1000,5000,20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.conversation import conversation
from summem.messages import Message, parse_messages
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from summem.summarizers.base import SummaryOutput, SummaryRequest, done
from summem.tokens.base import resolve_counter


class InstantSummarizer:
    name = "instant"

    def summarize(self, request: SummaryRequest):  # type: ignore[no-untyped-def]
        return done(SummaryOutput(text=f"{len(request.messages)} messages", summarizer=self.name))


def tokenize_only(raw: list[dict[str, Any]]) -> float:
    counter = resolve_counter(model="gpt-4o")
    msgs = parse_messages(raw)
    start = time.perf_counter()
    for m in msgs:
        counter.count_message(m)
    return (time.perf_counter() - start) / len(msgs)


def replay(reducer: object, raw: list[dict[str, Any]]) -> tuple[float, int]:
    msgs = parse_messages(raw)  # validation is the application's add(), not the reducer's turn
    view: list[Message] = []
    reductions = 0
    start = time.perf_counter()
    for m in msgs:
        result = reducer.reduce([*view, m])  # type: ignore[attr-defined]
        view = result.view
        reductions += result.reduced
    return (time.perf_counter() - start) / len(msgs), reductions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench_reducers.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", default="1000,5000,20000")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    resolve_counter(model="gpt-4o").count_text("warm up")
    print(
        f"{'messages':>9} {'reducer':<14} {'turn (us)':>10} {'tokenize (us)':>14} "
        f"{'ratio':>6} {'reductions':>10}"
    )
    for n in sizes:
        raw = conversation(n)
        tok = tokenize_only(raw)
        for label, reducer in (
            (
                "truncation",
                TruncationReducer(threshold_tokens=4000, target_tokens=3000, model="gpt-4o"),
            ),
            (
                "summarization",
                SummarizationReducer(
                    InstantSummarizer(),
                    threshold_tokens=4000,
                    target_tokens=3000,
                    summary_max_tokens=500,
                    model="gpt-4o",
                ),
            ),
        ):
            per_turn, reductions = replay(reducer, raw)
            print(
                f"{n:>9} {label:<14} {per_turn * 1e6:>10.1f} {tok * 1e6:>14.1f} "
                f"{per_turn / tok:>6.2f} {reductions:>10}"
            )


if __name__ == "__main__":
    main()
