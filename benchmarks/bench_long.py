"""A long session on every store: per-turn cost, reopen and peak memory from 1k to 1M messages.

Run from the repository root::

    python benchmarks/bench_long.py                              # 1k, 10k, 100k messages
    python benchmarks/bench_long.py --sizes 1000,10000,100000,1000000   # to 1M (tens of minutes)
    python benchmarks/bench_long.py --stores sqlite,redis --turns 200

Stores: ``memory``, ``sqlite``, ``redis`` and ``postgres``, opened as in
:mod:`benchmarks.bench_stores` (``$REDIS_URL``, ``$SUMMEM_BENCH_POSTGRES_URL``; a throwaway
key prefix, file or schema each, removed at the end). A store whose server is unreachable is
skipped, with the reason printed.

**How the session is grown.** One session per store, grown size after size through the store's
own append path: ``Store.append`` of batches of ``--batch`` messages (4000: the tool-call
conversation of :mod:`benchmarks.bench_memory`, each batch with fresh message and call ids),
and after each batch a reduction's ``Store.commit`` (a summary of about 1 KB up to the batch's
end minus 200 messages, with ``keep_summaries`` at its default), as a ``Memory`` would commit
them, only in big steps. So at 1M messages the session holds 1M messages and 250 logged
summaries (of which the default 20 whole), in the same rows, keys and log a live session has.

**At each size** ``N`` (after growing to it):

- *reopen*: a new ``Memory`` on the session, then ``messages()``: milliseconds (median of 3).
- *turn*: ``--turns`` turns of ``Memory.add`` + ``messages()`` on that memory, with an instant
  summarizer (threshold 8000 / target 6000 tokens, the gpt-4o tokenizer), reductions included:
  mean (slowest 1% dropped) and median in microseconds, and their ratios to the first size
  (flat: close to 1; the mean carries the turns that reduce, so it is the noisier one).
- *peak*: the Python heap's peak (``tracemalloc``) above what was allocated before, during a
  reopen, and during 100 more turns (measured in separate runs, as tracemalloc slows them):
  bounded by the view and the summarizer's input, not by ``N``.
- *log*: entries in ``summaries()``, how many whole, and their encoded size in KB.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_memory import conversation, trimmed_mean
from benchmarks.bench_stores import open_spec, place, problem, reducer
from summem.memory import Memory
from summem.messages import Message, SummaryInfo, assistant
from summem.stores.base import Store, encode_message

STORES = ("memory", "sqlite", "redis", "postgres")
SID = "long"
TAIL = 200  # messages each grown step leaves after its summary


def rekey(msgs: list[dict[str, Any]], tag: str) -> list[dict[str, Any]]:
    """``msgs`` with their tool call ids prefixed by ``tag`` (unique in the session)."""
    out = []
    for m in msgs:
        m = dict(m)
        if m.get("tool_calls"):
            m["tool_calls"] = [{**c, "id": f"{tag}_{c['id']}"} for c in m["tool_calls"]]
        if m.get("tool_call_id"):
            m["tool_call_id"] = f"{tag}_{m['tool_call_id']}"
        out.append(m)
    return out


class Grower:
    """Grows the session through ``Store.append`` in batches, committing a summary after each."""

    def __init__(self, store: Store, batch: int) -> None:
        self.store, self.batch = store, batch - batch % 4
        self.template = conversation(self.batch, seed=3)
        self.steps = 0
        self.seconds = 0.0

    def grow_to(self, n: int) -> None:
        start = time.perf_counter()
        length = self.store.load(SID).length if self.store.exists(SID) else 0
        while length < n:
            count = min(self.batch, n - length)
            count -= count % 4 or 0
            if count == 0:
                break
            self.steps += 1
            dicts = rekey(self.template[:count], f"g{self.steps}")
            length = self.store.append(SID, [Message.from_openai(d) for d in dicts])
            state = self.store.load(SID)
            k = max(state.watermark, length - TAIL)
            k -= k % 4  # a group boundary: never split a call from its result
            if k > state.watermark:
                summary = assistant(
                    f"Step {self.steps}: the user asked about orders; " + "fact " * 200
                ).as_summary(
                    # as Memory's summaries do: the head's provider usage, so a load reads
                    # no history for Memory.usage
                    SummaryInfo(watermark=k, summarizer="bench", extra={"history_usage": {}})
                )
                self.store.commit(
                    SID,
                    summary=summary,
                    watermark=k,
                    expected_version=state.version,
                    expected_epoch=state.epoch,
                    keep_summaries=20,
                )
        self.seconds += time.perf_counter() - start


def reopen(store: Store) -> tuple[float, Memory]:
    t0 = time.perf_counter()
    memory = Memory(SID, reducer=reducer(), store=store)
    memory.messages()
    return (time.perf_counter() - t0) * 1000, memory


def turns(memory: Memory, msgs: list[dict[str, Any]]) -> list[int]:
    times = []
    for m in msgs:
        t0 = time.perf_counter_ns()
        memory.add(m)
        memory.messages()
        times.append(time.perf_counter_ns() - t0)
    return times


def traced_peak(fn: Any) -> tuple[float, Any]:
    """KB of the heap's peak above its level before ``fn()`` ran, and what it returned."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    try:
        out = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - base) / 1024, out


def measure(kind: str, sizes: list[int], n_turns: int, batch: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    n_turns -= n_turns % 4
    with place(kind) as spec:
        store = open_spec(spec)
        grower = Grower(store, batch)
        try:
            for i, n in enumerate(sizes):
                grower.grow_to(n)
                reopens = []
                for _ in range(3):
                    ms, memory = reopen(store)
                    memory.close()
                    reopens.append(ms)
                reopen_kb, memory = traced_peak(lambda: reopen(store)[1])
                msgs = rekey(conversation(n_turns + 100, seed=11), f"t{i}")
                times = turns(memory, msgs[:n_turns])
                turn_kb, _ = traced_peak(lambda: turns(memory, msgs[n_turns:]))  # noqa: B023
                memory.close()
                log = store.summaries(SID)
                whole = [m for m in log if m.text]
                rows.append(
                    {
                        "n": n,
                        "length": store.load(SID).length,
                        "mean": trimmed_mean(times) / 1000,
                        "median": statistics.median(times) / 1000,
                        "reopen_ms": statistics.median(reopens),
                        "reopen_kb": reopen_kb,
                        "turn_kb": turn_kb,
                        "log": len(log),
                        "whole": len(whole),
                        "log_kb": sum(len(encode_message(m)) for m in log) / 1024,
                        "grown_s": grower.seconds,
                    }
                )
                print(f"  {kind} at {n}: done ({grower.seconds:.0f} s grown)", flush=True)
        finally:
            store.close()
    return rows


def table(kind: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{kind}: Memory.add + messages() per turn, reopen, peak heap (tracemalloc)")
    print(
        f"{'N':>9} {'turn mean/median us':>21} {'ratios':>11} {'reopen ms':>10} "
        f"{'reopen KB':>10} {'100 turns KB':>13} {'log (whole)':>12} {'log KB':>8}"
    )
    first, first_median = rows[0]["mean"], rows[0]["median"]
    for r in rows:
        ratios = f"{r['mean'] / first:.2f}/{r['median'] / first_median:.2f}"
        print(
            f"{r['n']:>9} {r['mean']:>10.0f} /{r['median']:>9.0f} {ratios:>11} "
            f"{r['reopen_ms']:>10.1f} {r['reopen_kb']:>10.0f} {r['turn_kb']:>13.0f} "
            f"{r['log']:>6} ({r['whole']:>3}) {r['log_kb']:>8.0f}"
        )
    print(f"grown through Store.append in {rows[-1]['grown_s']:.0f} s in all")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="message counts, ascending")
    parser.add_argument("--stores", default=",".join(STORES), help="comma-separated")
    parser.add_argument("--turns", type=int, default=400, help="timed turns at each size")
    parser.add_argument("--batch", type=int, default=4000, help="messages per append")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    for kind in args.stores.split(","):
        why = problem(kind)
        if why is not None:
            print(f"\n{kind}: skipped ({why})")
            continue
        table(kind, measure(kind, sizes, args.turns, args.batch))


if __name__ == "__main__":
    main()
