"""Run every benchmark with one command: the reducers' per-turn cost, Memory's, the extractive
summarizer's, the stores side by side (memory, SQLite, Redis, PostgreSQL), and the hot path's
figures as ratios to references measured in the same run.

Run from the repository root::

    python -m benchmarks            # full sizes: reducers 1k/5k/20k, Memory 1k/10k/100k (minutes)
    python -m benchmarks --quick    # small sizes, shorter latency run (well under a minute)
    python -m benchmarks --only reducers      # or memory, extractive, templates, tables,
                                              # text_tables, stores,
                                              # hotpath, recall_index, coldstart,
                                              # sessions_list, long, fleet (needs RabbitMQ)
    python -m benchmarks --only long --sizes 1000,10000,100000,1000000   # a session to 1M

Each benchmark prints what it measured on this machine; nothing is compared with stored
numbers. ``python benchmarks/bench_reducers.py --help`` and ``python benchmarks/bench_memory.py
--help`` list their own options, for runs this entry point does not cover.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

FULL: dict[str, list[str]] = {
    "reducers": ["--sizes", "1000,5000,20000"],
    "memory": ["--sizes", "1000,10000,100000"],
    "extractive": ["--sizes", "200,800,3200"],
    "templates": ["--sizes", "500,2000"],
    "tables": ["--sizes", "250,1000,2000"],
    "text_tables": ["--sizes", "10,60,2000"],
    "stores": ["--sizes", "1000,10000,100000"],
    "hotpath": ["--sizes", "1000,20000", "--latency-turns", "200"],
    "recall_index": ["--sizes", "1000,10000"],
    "coldstart": ["--sizes", "1000", "--cold-start-only"],
    "sessions_list": ["--sessions", "100000"],
    "fleet": ["--sessions", "20", "--turns", "300"],
    "long": ["--sizes", "1000,10000,100000"],
}
QUICK: dict[str, list[str]] = {
    "reducers": ["--sizes", "1000,5000"],
    "memory": ["--sizes", "1000,5000", "--latency-turns", "300"],
    "extractive": ["--sizes", "200,800", "--repeat", "1"],
    "templates": ["--sizes", "500,2000", "--repeat", "1"],
    "tables": ["--sizes", "250,1000"],
    "text_tables": ["--sizes", "10,60", "--repeat", "1"],
    "stores": [
        "--sizes",
        "1000,5000",
        "--turns",
        "200",
        "--calls",
        "100",
        "--seconds",
        "1",
        "--floor-rounds",
        "3",
        "--floor-turns",
        "100",
    ],
    "hotpath": ["--sizes", "1000,5000", "--latency-turns", "60"],
    "recall_index": ["--sizes", "1000", "--turns", "200", "--rounds", "1"],
    "coldstart": ["--sizes", "1000", "--cold-start-only", "--runs", "3"],
    "sessions_list": ["--sessions", "2000"],
    "fleet": ["--sessions", "10", "--turns", "150"],
    "long": ["--sizes", "1000,10000", "--rounds", "10"],
}


def _runner(name: str) -> Callable[[list[str]], None]:
    if name == "reducers":
        from benchmarks import bench_reducers

        return bench_reducers.main
    if name in ("hotpath", "coldstart"):
        from benchmarks import bench_hotpath

        return bench_hotpath.main
    if name == "recall_index":
        from benchmarks import bench_recall_index

        return bench_recall_index.main
    if name == "extractive":
        from benchmarks import bench_extractive

        return bench_extractive.main
    if name == "templates":
        from benchmarks import bench_templates

        return bench_templates.main
    if name == "tables":
        from benchmarks import bench_tables

        return bench_tables.main
    if name == "text_tables":
        from benchmarks import bench_text_tables

        return bench_text_tables.main
    if name == "stores":
        from benchmarks import bench_stores

        return bench_stores.main
    if name == "fleet":
        from benchmarks import bench_fleet

        return bench_fleet.main
    if name == "sessions_list":
        from benchmarks import bench_sessions_list

        return bench_sessions_list.main
    if name == "long":
        from benchmarks import bench_long

        return bench_long.main
    from benchmarks import bench_memory

    return bench_memory.main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Run summem's benchmarks (reducers, Memory, extractive summarizer, stores, "
        "hot path) and print what they measure.",
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--only", choices=sorted(FULL), action="append", help="run one benchmark (repeatable)"
    )
    parser.add_argument(
        "--sizes", help="override the message counts of every benchmark run, e.g. 500,2000"
    )
    parser.add_argument(
        "--skip-latency",
        action="store_true",
        help="skip Memory's reduction-latency part and the stores' throughput part",
    )
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    for name in args.only or [n for n in FULL if n != "coldstart"]:  # hotpath's Part 0 has it
        extra = list(plan[name])
        if args.sizes and "--sizes" in extra:  # (sessions_list counts sessions, not messages)
            extra[extra.index("--sizes") + 1] = args.sizes
        if args.skip_latency and name in ("memory", "hotpath"):
            extra.append("--skip-latency")
            if name == "hotpath":
                extra.append("--skip-process")  # the import and RSS runs: fresh interpreters
        if args.skip_latency and name == "stores":
            extra.append("--skip-throughput")
        script = "hotpath" if name == "coldstart" else name
        print(f"== {name}: python benchmarks/bench_{script}.py {' '.join(extra)}", flush=True)
        start = time.perf_counter()
        _runner(name)(extra)
        print(f"== {name}: {time.perf_counter() - start:.1f} s\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
