"""Per-turn cost of Memory, and the latency a reduction adds to a turn.

Run from the repository root::

    python benchmarks/bench_memory.py                      # 1k, 10k, 100k messages
    python benchmarks/bench_memory.py --sizes 1000,10000   # quicker

Part 1 replays a synthetic conversation with tool calls (user question, assistant tool call,
tool result, assistant answer) through ``Memory.add`` on the in-memory and SQLite stores, with
an instant summarizer and the real gpt-4o tokenizer (``resolve_counter(model="gpt-4o")``),
threshold 8000 / target 6000 tokens. It reports, over the last 1000 turns of each run (so at a
history of N messages), the mean and median cost of ``add`` and of ``messages()``, next to the
cost of only tokenizing the new message (and of parsing + tokenizing it, which any ``add`` must
do), and the ratio of the per-turn cost at N to the cost at the smallest N. Reduction turns are
included in the means (amortized), which is why the medians are shown too.

Part 2 measures the latency of ``add`` + ``messages()`` at the turns where a reduction starts,
with a summarizer that takes 300 ms, in blocking mode (threshold 4000, target 2500) and in
background mode (the same plus a soft threshold at 3000). Turns are paced 20 ms apart in
background mode, like a fast chat, so a reduction overlaps about 15 turns.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from summem.memory import Memory
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from summem.stores.base import Store
from summem.stores.memory import InMemoryStore
from summem.stores.sqlite import SQLiteStore
from summem.summarizers.base import Flow, SummaryOutput, SummaryRequest, done
from summem.tokens.base import TokenCounter, resolve_counter

WINDOW = 1000
WORDS = [
    "order",
    "invoice",
    "shipping",
    "refund",
    "account",
    "customer",
    "delivery",
    "address",
    "payment",
    "status",
    "product",
    "warranty",
    "return",
    "label",
    "tracking",
    "number",
    "date",
    "price",
    "discount",
    "coupon",
    "support",
    "ticket",
    "issue",
    "resolved",
    "pending",
    "confirmed",
    "cancelled",
    "weekend",
    "morning",
    "tomorrow",
    "please",
    "thanks",
    "could",
    "would",
    "should",
    "check",
    "update",
    "change",
    "the",
    "a",
    "to",
    "of",
    "and",
    "for",
    "with",
    "on",
    "in",
    "at",
]


class InstantSummarizer:
    name = "instant"

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        n = len(request.messages)
        return done(SummaryOutput(text=f"Earlier: {n} messages about orders.", summarizer="i"))


class SlowSummarizer(InstantSummarizer):
    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls = 0

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.calls += 1
        time.sleep(self.seconds)  # the model call
        return super().summarize(request)


def conversation(n: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)

    def text(lo: int, hi: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))

    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < n:
        cid = f"call_{i}"
        args = json.dumps({"order_id": f"A{rng.randint(1000, 9999)}", "q": text(2, 5)})
        result = json.dumps({"status": rng.choice(WORDS), "eta": "2024-05-03", "note": text(5, 25)})
        out += [
            {"role": "user", "content": text(10, 40)},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": "lookup", "arguments": args},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": cid, "content": result},
            {"role": "assistant", "content": text(20, 60)},
        ]
        i += 1
    # end on a group boundary: a pending call at the end is legal, but keep the replay simple
    return out[: n - n % 4] if n % 4 else out


def us(ns: float) -> float:
    return ns / 1000.0


def trimmed_mean(xs: list[int], drop: float = 0.01) -> float:
    """Mean without the slowest ``drop`` share: reduction turns stay in, rare stalls of a
    shared machine (other processes, disk flushes) do not."""
    keep = sorted(xs)[: max(1, len(xs) - int(len(xs) * drop))]
    return statistics.fmean(keep)


def baseline(
    counter: TokenCounter, msgs: list[dict[str, Any]], store: Store
) -> tuple[float, float, float]:
    """Mean ns of: tokenizing a new message; parsing + tokenizing it; the store's append."""
    parsed = [Message.from_openai(m) for m in msgs]
    t0 = time.perf_counter_ns()
    for m in parsed:
        counter.count_message(m)
    tok = (time.perf_counter_ns() - t0) / len(parsed)
    t0 = time.perf_counter_ns()
    for d in msgs:
        counter.count_message(Message.from_openai(d))
    both = (time.perf_counter_ns() - t0) / len(msgs)
    t0 = time.perf_counter_ns()
    for m in parsed:
        store.append("scratch", [m])
    append = (time.perf_counter_ns() - t0) / len(parsed)
    return tok, both, append


def replay(store: Store, msgs: list[dict[str, Any]]) -> dict[str, float]:
    reducer = SummarizationReducer(
        InstantSummarizer(), threshold_tokens=8000, target_tokens=6000, model="gpt-4o"
    )
    memory = Memory("bench", reducer=reducer, store=store)
    start = len(msgs) - min(WINDOW, len(msgs))
    adds: list[int] = []
    reads: list[int] = []
    clock = time.perf_counter_ns
    for i, m in enumerate(msgs):
        if i < start:
            memory.add(m)
            continue
        t0 = clock()
        memory.add(m)
        t1 = clock()
        memory.messages()
        t2 = clock()
        adds.append(t1 - t0)
        reads.append(t2 - t1)
    view = len(memory.view())
    memory.close()
    return {
        "add": trimmed_mean(adds),
        "add_p50": statistics.median(adds),
        "msgs": trimmed_mean(reads),
        "view": view,
    }


def open_store(kind: str, tmp: str) -> Store:
    return InMemoryStore() if kind == "memory" else SQLiteStore(Path(tmp) / "b.db")


def part1(sizes: list[int]) -> None:
    counter = resolve_counter(model="gpt-4o")
    print(f"token counter: {counter!r}")
    replay(InMemoryStore(), conversation(2000, seed=1))  # warm-up: tokenizer, caches
    print(
        "Part 1: per-turn cost over the last 1000 turns at history N, microseconds\n"
        "  add = Memory.add mean (slowest 1% of turns dropped; reduction turns included),\n"
        "  p50 = its median, msgs() = messages() mean, tok = tokenizing the new message only,\n"
        "  p+t = parsing + tokenizing it (what any add must do), append = the store's append\n"
        f"{'store':7} {'N':>7} {'add':>7} {'p50':>7} {'msgs()':>7} {'view':>5} {'tok':>6} "
        f"{'p+t':>6} {'append':>7} {'add/tok':>8} {'add/p+t':>8}"
    )
    for kind in ("memory", "sqlite"):
        rows: list[tuple[int, dict[str, float]]] = []
        for n in sizes:
            msgs = conversation(n)
            with tempfile.TemporaryDirectory() as tmp:
                store = open_store(kind, tmp)
                r = replay(store, msgs)
                tok, both, append = baseline(counter, msgs[-min(WINDOW, len(msgs)) :], store)
                store.close()
            rows.append((n, r))
            print(
                f"{kind:7} {n:>7} {us(r['add']):>7.1f} {us(r['add_p50']):>7.1f} "
                f"{us(r['msgs']):>7.1f} {r['view']:>5} {us(tok):>6.1f} {us(both):>6.1f} "
                f"{us(append):>7.1f} {r['add'] / tok:>8.2f} {r['add'] / both:>8.2f}"
            )
        (n0, first), (n1, last) = rows[0], rows[-1]
        turn = (last["add"] + last["msgs"]) / (first["add"] + first["msgs"])
        print(
            f"{kind:7} per-turn ratio {n1}/{n0}: add {last['add'] / first['add']:.2f}, "
            f"add p50 {last['add_p50'] / first['add_p50']:.2f}, add+messages() {turn:.2f}"
        )


def latencies(background: bool, turns: int, slow_s: float, pace_s: float) -> dict[str, Any]:
    summarizer = SlowSummarizer(slow_s)
    reducer = SummarizationReducer(
        summarizer,
        threshold_tokens=4000,
        target_tokens=2500,
        soft_threshold_tokens=3000 if background else None,
        model="gpt-4o",
    )
    memory = Memory("lat", reducer=reducer, background=background)
    submitted = [0]
    submit = memory._worker.submit

    def counting_submit() -> bool:
        ok = submit()
        submitted[0] += ok
        return ok

    memory._worker.submit = counting_submit  # type: ignore[method-assign]
    start_turns: list[float] = []
    all_turns: list[float] = []
    for m in conversation(turns, seed=11):
        before = summarizer.calls if not background else submitted[0]
        t0 = time.perf_counter()
        memory.add(m)
        memory.messages()
        dt = time.perf_counter() - t0
        all_turns.append(dt)
        if (submitted[0] if background else summarizer.calls) > before:
            start_turns.append(dt)
        if pace_s:
            time.sleep(pace_s)
    memory.close()
    return {"starts": start_turns, "all": all_turns, "calls": summarizer.calls}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))] * 1000


def part2(turns: int, slow_ms: float) -> None:
    print(
        f"\nPart 2: add + messages() latency at turns where a reduction starts "
        f"(summarizer {slow_ms:.0f} ms, {turns} turns), milliseconds"
    )
    runs: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("blocking", lambda: latencies(False, turns, slow_ms / 1000, 0.0)),
        ("background", lambda: latencies(True, turns, slow_ms / 1000, 0.02)),
    ]
    for name, run in runs:
        r = run()
        s = r["starts"]
        print(
            f"{name:10} reductions {len(s):3}  p50 {pct(s, 0.5):8.2f}  p99 {pct(s, 0.99):8.2f}  "
            f"max {max(s) * 1000:8.2f}   all turns p99 {pct(r['all'], 0.99):8.2f} "
            f"max {max(r['all']) * 1000:8.2f}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench_memory.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--latency-turns", type=int, default=800)
    parser.add_argument("--slow-ms", type=float, default=300.0)
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args(argv)
    part1([int(s) for s in args.sizes.split(",")])
    if not args.skip_latency:
        part2(args.latency_turns, args.slow_ms)


if __name__ == "__main__":
    main()
