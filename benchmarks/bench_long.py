"""Long sessions on every store: per-turn cost, reopen and peak memory from 1k to 1M messages.

Run from the repository root::

    python benchmarks/bench_long.py                              # 1k, 10k, 100k messages
    python benchmarks/bench_long.py --sizes 1000,10000,100000,1000000   # to 1M (tens of minutes)
    python benchmarks/bench_long.py --stores sqlite,redis --rounds 20

Stores: ``memory``, ``sqlite``, ``redis`` and ``postgres``, opened as in
:mod:`benchmarks.bench_stores` (``$REDIS_URL``, ``$SUMMEM_BENCH_POSTGRES_URL``; a throwaway
key prefix, file or schema each, removed at the end). A store whose server is unreachable is
skipped, with the reason printed.

**How the sessions are grown.** One session per size and store, all prepared before anything
is timed, each grown through the store's own append path: ``Store.append`` of batches of
``--batch`` messages (4000: the tool-call conversation of :mod:`benchmarks.bench_memory`,
each batch with fresh message and call ids), and after each batch a reduction's
``Store.commit`` (a summary of about 1 KB up to the batch's end minus 200 messages, with
``keep_summaries=20``), as a ``Memory`` would commit them, only in big steps. So the 1M
session holds 1M messages and 250 logged summaries (of which 20 whole), in the same rows,
keys and log a live session has.

**Turns, paired across sizes.** A ``Memory`` on each session, then ``--rounds`` rounds; in
each round every size runs one turn of ``Memory.add`` + ``messages()`` (an instant
summarizer, threshold 8000 / target 6000 tokens, the gpt-4o tokenizer, reductions included),
the sizes in a new order each round. So every size meets the same moments of a noisy machine
(other processes on two cores): a burst of load lands on all sizes alike instead of on the one
measured then. Reported per size: the median turn and its interquartile range (p25-p75) in
microseconds, and the **ratio to the smallest size**: the median turn of the size over that
of the smallest size, both over the same rounds (flat: close to 1); beside it the p25-p75 of
the same ratio taken over ``--chunks`` runs of consecutive rounds, how much it moves.

**Also at each size**: *reopen*, a new ``Memory`` on the session then ``messages()``, in
milliseconds (median of ``--reopens``, the sizes interleaved too); *peak*, the Python heap's
peak (``tracemalloc``) above what was allocated before, during a reopen and during 100 more
turns (measured after the timed turns, as tracemalloc slows them): bounded by the view and the
summarizer's input, not by ``N``; *log*, entries in ``summaries()``, how many whole, and their
encoded size in KB; and on Redis, after the turns, the server's own time per one-message
append (``INFO commandstats``, blocks of 100 appends, the sizes interleaved): what a turn
costs Redis itself, apart from the client and the machine's scheduling.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_memory import conversation
from benchmarks.bench_stores import open_spec, place, problem, reducer
from summem.memory import Memory
from summem.messages import Message, SummaryInfo, assistant, user
from summem.stores.base import Store, encode_message

STORES = ("memory", "sqlite", "redis", "postgres")
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
    """Grows a session through ``Store.append`` in batches, committing a summary after each."""

    def __init__(self, store: Store, sid: str, batch: int) -> None:
        self.store, self.sid, self.batch = store, sid, batch - batch % 4
        self.template = conversation(self.batch, seed=3)
        self.steps = 0
        self.seconds = 0.0

    def grow_to(self, n: int) -> None:
        start = time.perf_counter()
        sid = self.sid
        length = self.store.load(sid).length if self.store.exists(sid) else 0
        while length < n:
            count = min(self.batch, n - length)
            count -= count % 4 or 0
            if count == 0:
                break
            self.steps += 1
            dicts = rekey(self.template[:count], f"g{self.steps}")
            length = self.store.append(sid, [Message.from_openai(d) for d in dicts])
            state = self.store.load(sid)
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
                    sid,
                    summary=summary,
                    watermark=k,
                    expected_version=state.version,
                    expected_epoch=state.epoch,
                    keep_summaries=20,
                )
        self.seconds += time.perf_counter() - start


def reopen(store: Store, sid: str) -> tuple[float, Memory]:
    t0 = time.perf_counter()
    memory = Memory(sid, reducer=reducer(), store=store)
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


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    """p25, median, p75 of ``xs``."""
    if len(xs) < 2:
        return xs[0], xs[0], xs[0]
    q1, q2, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return q1, q2, q3


def measure(kind: str, sizes: list[int], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every size prepared first, then turns and reopens interleaved across sizes."""
    rng = random.Random(5)
    with place(kind) as spec:
        store = open_spec(spec)
        try:
            grown: dict[int, float] = {}
            for n in sizes:
                grower = Grower(store, f"long-{n}", args.batch)
                grower.grow_to(n)
                grown[n] = grower.seconds
                print(f"  {kind}: {n} messages grown in {grower.seconds:.0f} s", flush=True)
            sid = {n: f"long-{n}" for n in sizes}
            reopens: dict[int, list[float]] = {n: [] for n in sizes}
            for _ in range(args.reopens):
                for n in rng.sample(sizes, len(sizes)):
                    ms, memory = reopen(store, sid[n])
                    memory.close()
                    reopens[n].append(ms)
            memories = {n: reopen(store, sid[n])[1] for n in sizes}
            total = args.rounds
            msgs = {n: rekey(conversation(total + 100, seed=11), f"t{n}") for n in sizes}
            times: dict[int, list[int]] = {n: [] for n in sizes}
            for r in range(total):  # one turn of every size a round, in a new order each
                for n in rng.sample(sizes, len(sizes)):
                    times[n] += turns(memories[n], msgs[n][r : r + 1])
            chunk = max(1, total // args.chunks)
            ratios: dict[int, list[float]] = {n: [] for n in sizes}
            for lo in range(0, total - chunk + 1, chunk):  # the same rounds for every size
                first = statistics.median(times[sizes[0]][lo : lo + chunk])
                for n in sizes:
                    ratios[n].append(statistics.median(times[n][lo : lo + chunk]) / first)
            rows: list[dict[str, Any]] = []
            for n in sizes:
                memory = memories[n]
                turn_kb, _ = traced_peak(lambda: turns(memory, msgs[n][total:]))  # noqa: B023
                memory.close()
                reopen_kb, again = traced_peak(lambda: reopen(store, sid[n])[1])  # noqa: B023
                again.close()
                log = store.summaries(sid[n])
                q1, q2, q3 = quartiles([t / 1000 for t in times[n]])
                r1, _, r3 = quartiles(ratios[n])
                r2 = statistics.median(times[n]) / statistics.median(times[sizes[0]])
                rows.append(
                    {
                        "n": n,
                        "length": store.load(sid[n]).length,
                        "p25": q1,
                        "median": q2,
                        "p75": q3,
                        "ratio": r2,
                        "ratio_p25": r1,
                        "ratio_p75": r3,
                        "reopen_ms": statistics.median(reopens[n]),
                        "reopen_kb": reopen_kb,
                        "turn_kb": turn_kb,
                        "log": len(log),
                        "whole": sum(1 for m in log if m.text),
                        "log_kb": sum(len(encode_message(m)) for m in log) / 1024,
                        "grown_s": grown[n],
                    }
                )
            if kind == "redis":
                for n, us in server_us(store, sid, sizes, rng).items():
                    next(r for r in rows if r["n"] == n)["server_us"] = us
        finally:
            store.close()
    return rows


def server_us(store: Any, sid: dict[int, str], sizes: list[int], rng: Any) -> dict[int, float]:
    """Redis: server microseconds per one-message append at each size (``INFO
    commandstats``: ``EVALSHA``'s time over its calls), 10 blocks of 100 appends a size,
    interleaved; the median block. Other clients' ``EVALSHA`` on the same server count too."""
    client = store._client
    per: dict[int, list[float]] = {n: [] for n in sizes}
    for b in range(10):
        for n in rng.sample(sizes, len(sizes)):
            before = client.info("commandstats").get("cmdstat_evalsha", {})
            for i in range(100):
                store.append(sid[n], [user(f"server probe {b}.{i}")])
            after = client.info("commandstats")["cmdstat_evalsha"]
            calls = after["calls"] - before.get("calls", 0)
            per[n].append((after["usec"] - before.get("usec", 0)) / max(1, calls))
    return {n: statistics.median(v) for n, v in per.items()}


def table(kind: str, rows: list[dict[str, Any]], rounds: int) -> None:
    print(
        f"\n{kind}: Memory.add + messages() per turn ({rounds} rounds of one turn a size, "
        "sizes interleaved), reopen, peak heap (tracemalloc)"
    )
    print(
        f"{'N':>9} {'turn median (p25-p75) us':>26} {'ratio to first (p25-p75)':>25} "
        f"{'reopen ms':>10} {'reopen KB':>10} {'100 turns KB':>13} {'log (whole)':>12} "
        f"{'log KB':>7}"
    )
    for r in rows:
        turn = f"{r['median']:.0f} ({r['p25']:.0f}-{r['p75']:.0f})"
        ratio = f"{r['ratio']:.2f} ({r['ratio_p25']:.2f}-{r['ratio_p75']:.2f})"
        print(
            f"{r['n']:>9} {turn:>26} {ratio:>25} {r['reopen_ms']:>10.1f} "
            f"{r['reopen_kb']:>10.0f} {r['turn_kb']:>13.0f} {r['log']:>6} ({r['whole']:>3}) "
            f"{r['log_kb']:>7.0f}"
        )
    if "server_us" in rows[0]:
        cells = ", ".join(f"{r['n']}: {r['server_us']:.1f}" for r in rows)
        print(f"server us per one-message append (INFO commandstats, EVALSHA): {cells}")
    grown = ", ".join(f"{r['n']}: {r['grown_s']:.0f} s" for r in rows)
    print(f"grown through Store.append ({grown})", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="message counts")
    parser.add_argument("--stores", default=",".join(STORES), help="comma-separated")
    parser.add_argument("--rounds", type=int, default=400, help="turns of every size")
    parser.add_argument("--chunks", type=int, default=10, help="runs of rounds for the IQR")
    parser.add_argument("--reopens", type=int, default=5, help="reopens a size")
    parser.add_argument("--batch", type=int, default=4000, help="messages per append")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    reducer()  # load the tokenizer before anything is timed
    for kind in args.stores.split(","):
        why = problem(kind)
        if why is not None:
            print(f"\n{kind}: skipped ({why})")
            continue
        table(kind, measure(kind, sizes, args), args.rounds)


if __name__ == "__main__":
    main()
