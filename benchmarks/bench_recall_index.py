"""The hot-path cost of the stores' recall indexes: ``Memory.add`` per turn, and the search.

Run from the repository root::

    python benchmarks/bench_recall_index.py                       # 1k and 10k messages
    python benchmarks/bench_recall_index.py --sizes 1000 --rounds 3 --stores sqlite

Both stores index on search, not on append (see docs-notes/recall.md): splitting a message
into terms and writing FTS5's segment or the GIN entry, kept in step with each append, cost
SQLite +50 % a turn (median) and PostgreSQL without fsync about +10 %.

Part 1, add per turn: the per-turn run of bench_stores.py (a reduced session of N messages,
then ``--turns`` turns of ``Memory.add`` + ``messages()`` with an instant summarizer) on the
store as it is, and on the same store with its search index left out of the schema
("without": the schema before the index; the ``messages_fts`` table and the ``terms`` column
with its GIN index are dropped before the run). Runs alternate, ``--rounds`` of each; the best
mean and the best median of each side are compared (the machine may be shared: the best run is
the least disturbed). Issue 12 asks for a ratio of at most 1.10. ``postgres-nosync`` is
PostgreSQL with ``synchronous_commit=off`` (a COMMIT does not wait for its WAL's fsync, which
otherwise dominates a turn).

Part 2, what moved to the search: a session of N messages is created (nothing indexed), then
the first search indexes all N (microseconds per message indexed), then 200 searches of a
common word or an identifier and a word (p50 in microseconds).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.bench_memory import conversation, trimmed_mean
from benchmarks.bench_stores import POSTGRES_URL, open_spec, place, preload, problem, reducer
from summem.memory import Memory

STORES = ("sqlite", "postgres", "postgres-nosync")


def drop_index(spec: tuple[str, str]) -> None:
    """Remove the search index from the store's schema (as before it existed)."""
    kind, where = spec
    if kind == "sqlite":
        conn = sqlite3.connect(where)
        conn.execute("DROP TABLE messages_fts")
        conn.commit()
        conn.close()
        return
    import psycopg
    from psycopg import sql

    with psycopg.connect(POSTGRES_URL, autocommit=True) as pg:
        drop = sql.SQL("ALTER TABLE {}.messages DROP COLUMN terms")  # its GIN index goes too
        pg.execute(drop.format(sql.Identifier(where)))


def turns_on(spec: tuple[str, str], n: int, turns: int, with_index: bool) -> tuple[float, float]:
    """bench_stores.per_turn on a store whose schema has, or has not, the search index."""
    msgs = conversation(n + turns)
    store = open_spec(spec)  # creates (migrates) the schema
    if not with_index:
        drop_index(spec)
    preload(store, "bench", msgs[:n])
    memory = Memory("bench", reducer=reducer(), store=store)
    times: list[int] = []
    for m in msgs[n:]:
        t0 = time.perf_counter_ns()
        memory.add(m)
        memory.messages()
        times.append(time.perf_counter_ns() - t0)
    memory.close()
    store.close()
    return trimmed_mean(times) / 1000, statistics.median(times) / 1000


def add_per_turn(kind: str, sizes: list[int], turns: int, rounds: int) -> None:
    for n in sizes:
        runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for _ in range(rounds):
            for on in (False, True):
                with place(kind) as spec:
                    runs[on].append(turns_on(spec, n, turns, on))
        with_mean, without_mean = (min(m for m, _ in runs[on]) for on in (True, False))
        with_med, without_med = (min(md for _, md in runs[on]) for on in (True, False))
        print(
            f"{kind:<16}{n:>8}{with_mean:>10.0f}{without_mean:>10.0f}"
            f"{with_mean / without_mean:>8.2f}{with_med:>10.0f}{without_med:>10.0f}"
            f"{with_med / without_med:>8.2f}",
            flush=True,
        )


def first_search(kind: str, sizes: list[int]) -> None:
    for n in sizes:
        with place(kind) as spec:
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
            f"{kind:<16}{n:>8}  first search {first / 1000:>8.1f} ms ({first / n:.1f} us/message "
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
        reason = problem(kind)
        if reason is not None:
            print(f"{kind:<16} skipped: {reason}")
            continue
        add_per_turn(kind, sizes, args.turns, args.rounds)
    print("Recall index 2, what the first search indexes, then searches")
    for kind in kinds:
        if problem(kind) is None:
            first_search(kind, sizes)


if __name__ == "__main__":
    main()
