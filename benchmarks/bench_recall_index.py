"""The hot-path cost of the stores' recall indexes: ``Memory.add`` per turn, and the search.

Run from the repository root::

    python benchmarks/bench_recall_index.py                       # 1k and 10k messages
    python benchmarks/bench_recall_index.py --sizes 1000 --rounds 3 --stores sqlite

Part 1, add per turn with and without the index: the per-turn run of bench_stores.py (a
reduced session of N messages, then ``--turns`` turns of ``Memory.add`` + ``messages()`` with
an instant summarizer) on the same store, once as it is ("with") and once with the index's
hot-path work replaced by a no-op ("without": what an append cost before the index). Runs
alternate, ``--rounds`` of each; the best mean and the best median of each side are compared
(the machine may be shared: the best run is the least disturbed). Issue 12 asks for a ratio of
at most 1.10.

- PostgreSQL writes each message's ``tsvector`` (GIN-indexed) with the message; "without"
  writes an empty one and skips splitting the message into terms. ``postgres-nosync`` is the
  same with ``synchronous_commit=off`` (a COMMIT does not wait for its WAL's fsync, which
  otherwise dominates a turn and hides the index).
- SQLite indexes on search, not on append (see docs-notes/recall.md): its append is the same
  code with or without, so part 1 is not run for it; part 2 says what moved to the search.

Part 2, SQLite's search-time indexing: a session of N messages is created (no index), then the
first search indexes all N (microseconds per message indexed), then 200 searches of one rare
and one common word each (p50 in microseconds).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.bench_memory import conversation
from benchmarks.bench_stores import open_spec, per_turn, place, preload, problem

STORES = ("postgres", "postgres-nosync", "sqlite")

# PostgreSQL's index work on the hot path, by where the store looks it up (patched by name:
# benchmarks import the public API only).
_NO_TSVECTOR = ("summem.stores._postgres_ops.ts_vector", lambda message: "")


@contextlib.contextmanager
def index_writes(on: bool) -> Iterator[None]:
    if on:
        yield
        return
    with mock.patch(*_NO_TSVECTOR):
        yield


def add_per_turn(kind: str, sizes: list[int], turns: int, rounds: int) -> None:
    for n in sizes:
        runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for _ in range(rounds):
            for on in (False, True):
                with place(kind) as spec, index_writes(on):
                    runs[on].append(per_turn(spec, n, turns))
        with_mean, without_mean = (min(m for m, _ in runs[on]) for on in (True, False))
        with_med, without_med = (min(md for _, md in runs[on]) for on in (True, False))
        print(
            f"{kind:<16}{n:>8}{with_mean:>10.0f}{without_mean:>10.0f}"
            f"{with_mean / without_mean:>8.2f}{with_med:>10.0f}{without_med:>10.0f}"
            f"{with_med / without_med:>8.2f}",
            flush=True,
        )


def sqlite_search(sizes: list[int]) -> None:
    for n in sizes:
        with place("sqlite") as spec:
            store: Any = open_spec(spec)
            preload(store, "s", conversation(n))
            t0 = time.perf_counter_ns()
            store.search("s", "warranty", k=5)
            first = (time.perf_counter_ns() - t0) / 1000
            times = []
            for i in range(200):
                t0 = time.perf_counter_ns()
                store.search("s", "refund" if i % 2 else "BW-1042 coupon", k=5)
                times.append(time.perf_counter_ns() - t0)
            store.close()
        print(
            f"sqlite  {n:>8}  first search {first / 1000:>8.1f} ms ({first / n:.1f} us/message "
            f"indexed)   then p50 {statistics.median(times) / 1000:.0f} us",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="history sizes, e.g. 1000,10000")
    parser.add_argument("--turns", type=int, default=1000, help="turns measured per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side, alternating")
    parser.add_argument("--stores", default=",".join(STORES), help=",".join(STORES))
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    kinds = args.stores.split(",")
    print("Recall index 1, Memory.add + messages() per turn (us; best of the runs)")
    print(
        f"{'store':<16}{'N':>8}{'with':>10}{'without':>10}{'ratio':>8}"
        f"{'median':>10}{'without':>10}{'ratio':>8}"
    )
    for kind in kinds:
        if kind == "sqlite":
            print(f"{kind:<16}    (indexes on search: the append is unchanged, see part 2)")
            continue
        reason = problem(kind)
        if reason is not None:
            print(f"{kind:<16} skipped: {reason}")
            continue
        add_per_turn(kind, sizes, args.turns, args.rounds)
    if "sqlite" in kinds:
        print("Recall index 2, SQLite: what the first search indexes, then searches")
        sqlite_search(sizes)


if __name__ == "__main__":
    main()
