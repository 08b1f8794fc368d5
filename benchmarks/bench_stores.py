"""The stores side by side: per-turn cost at growing history, commit latency, throughput.

Run from the repository root::

    python benchmarks/bench_stores.py                          # 1k, 10k, 100k messages
    python benchmarks/bench_stores.py --sizes 1000,10000 --stores sqlite,postgres

Stores: ``memory``, ``sqlite`` (a file in a temporary folder), ``redis`` (``$REDIS_URL``,
default ``redis://127.0.0.1:6379/0``, under a throwaway key prefix) and ``postgres``
(``$SUMMEM_BENCH_POSTGRES_URL``, default ``postgresql://postgres@127.0.0.1:5432/postgres``, in
a throwaway schema dropped at the end); ``postgres-nosync`` is the same with
``synchronous_commit=off`` in the URL (``?options=-c%20synchronous_commit%3Doff``): a COMMIT
does not wait for its WAL to reach the disk, as SQLite's ``synchronous=NORMAL`` does not. A
store whose server is unreachable is skipped, with the reason printed.

Stores 0, a turn against the backend's floor: the same process alternates rounds of turns
(``Memory.add`` + ``messages()`` on a session of 1000 messages, in-memory work included) with
rounds of the minimal durable append of the same message body on the same server or file: a
bare ``INSERT`` in autocommit (PostgreSQL: the INSERT and its COMMIT, one round trip), a bare
``EVALSHA`` of a script that ``RPUSH``es (Redis; a bare ``RPUSH`` is printed beside it), a
bare ``INSERT`` in a ``BEGIN IMMEDIATE`` transaction (SQLite, WAL, ``synchronous=NORMAL`` as
the store). Medians of each round, then the median over rounds (``--floor-rounds`` rounds of
``--floor-turns`` each); the goal is a ratio of at most 1.5. The same turns on ``memory://``
(``memory://`` column: parsing, counting, the view) are subtracted from the turn to give the
store's part, also as a ratio to the floor. For SQLite, whose work all runs in the calling
thread, a second row gives the same in this thread's CPU time, which other processes' load
does not stretch (a server's share is not in it, so the network stores have no such row).
A backend gets its floor in :class:`Floor` (one branch per kind: the place to add one).

Stores 1, per turn at history N: a session of N messages (the gpt-4o tokenizer, the tool-call
conversation of bench_memory.py) is written whole with ``create``, reduced up to its last
200 messages, then the next 1000 turns (``--turns``) go through ``Memory.add`` +
``messages()`` with an instant summarizer (threshold 8000 / target 6000 tokens): the mean
(slowest 1% dropped) and median in microseconds. Flat means the cost does not grow with N.

Stores 2, latency of the store calls themselves on a session of 1000 messages: ``append`` of one
message, ``load``, and a reduction's ``commit`` (summary + watermark + CAS), p50 and p99 over
500 calls each (``--calls``), in microseconds.

Stores 3, throughput: 4 processes x 2 threads, each thread on its own session, each turn a
``Memory.add`` (reductions included) for 5 seconds (``--seconds``); turns per second in
total. Not run for ``memory`` (a process's memory is not shared).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.bench_memory import InstantSummarizer, conversation, trimmed_mean
from summem.memory import Memory
from summem.messages import Message, SummaryInfo, assistant, user
from summem.reducers.summarization import SummarizationReducer
from summem.stores import InMemoryStore, RedisStore, SQLiteStore, open_store
from summem.stores.base import Store

WINDOW = 1000
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_URL = os.environ.get(
    "SUMMEM_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
STORES = ("memory", "sqlite", "redis", "postgres", "postgres-nosync")
NOSYNC = "options=-c%20synchronous_commit%3Doff"  # COMMIT does not wait for the WAL's fsync

IN_PROCESS = ("sqlite",)  # backends whose whole append runs in this thread (Stores 0's CPU row)

Spec = tuple[str, str]  # (kind, where): a picklable way to open the same store elsewhere


def open_spec(spec: Spec) -> Store:
    kind, where = spec
    if kind == "memory":
        return InMemoryStore()
    if kind == "sqlite":
        return SQLiteStore(where)
    if kind == "redis":
        return RedisStore(REDIS_URL, prefix=where)
    url = POSTGRES_URL
    if kind == "postgres-nosync":
        url += ("&" if "?" in url else "?") + NOSYNC
    return open_store(f"{url}{'&' if '?' in url else '?'}schema={where}&pool_max_size=4")


@contextmanager
def place(kind: str) -> Iterator[Spec]:
    """Somewhere fresh for ``kind`` to keep its data, cleaned up afterwards."""
    tag = f"summem-bench-{uuid.uuid4().hex[:12]}"
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield (kind, str(Path(tmp) / "bench.db"))
        return
    try:
        yield (kind, tag)
    finally:
        if kind == "redis":
            import redis

            client = redis.Redis.from_url(REDIS_URL)
            keys = list(client.scan_iter(match=f"{tag}:*", count=1000))
            for i in range(0, len(keys), 1000):
                client.delete(*keys[i : i + 1000])
            client.close()
        elif kind.startswith("postgres"):
            import psycopg
            from psycopg import sql

            with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
                drop = sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE")
                conn.execute(drop.format(sql.Identifier(tag)))


def problem(kind: str) -> str | None:
    """Why ``kind`` cannot run here, or None."""
    try:
        if kind == "redis":
            import redis

            client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
            client.ping()
            client.close()
        elif kind.startswith("postgres"):
            import psycopg

            with psycopg.connect(POSTGRES_URL, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc).strip()[:120]}"
    return None


def reducer() -> SummarizationReducer:
    return SummarizationReducer(
        InstantSummarizer(), threshold_tokens=8000, target_tokens=6000, model="gpt-4o"
    )


def preload(store: Store, sid: str, msgs: list[dict[str, Any]]) -> None:
    """``msgs`` as one reduced session: all but the last 200 covered by a summary."""
    history = [Message.from_openai(m) for m in msgs]
    k = max(0, len(history) - 200)
    while k and history[k].role == "tool":  # never split a call from its results
        k -= 1
    summary = assistant(f"Earlier: {k} messages about orders.").as_summary(
        SummaryInfo(watermark=k, summarizer="bench")
    )
    store.create(sid, history=history, summary=summary if k else None, watermark=k)


def per_turn(spec: Spec, n: int, turns: int) -> tuple[float, float]:
    msgs = conversation(n + turns)
    store = open_spec(spec)
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


class Floor:
    """The minimal durable append on ``spec``'s server or file, on a connection of its own."""

    def __init__(self, spec: Spec) -> None:
        kind, where = spec
        self.kind = kind
        self.close: Callable[[], None] = lambda: None
        self.extra: Callable[[str], None] | None = None  # Redis: a bare RPUSH, printed beside
        n = [0]
        if kind == "sqlite":
            import sqlite3

            conn = sqlite3.connect(str(Path(where).with_name("floor.db")), isolation_level=None)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(
                "CREATE TABLE floor (sid INTEGER, position INTEGER, body TEXT, "
                "PRIMARY KEY (sid, position))"
            )

            def append(body: str) -> None:
                n[0] += 1
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("INSERT INTO floor VALUES (1, ?, ?)", (n[0], body))
                conn.execute("COMMIT")

            self.append, self.close = append, conn.close
        elif kind == "redis":
            import redis

            client = redis.Redis.from_url(REDIS_URL)
            key = f"{where}:floor"
            script = client.register_script("return redis.call('RPUSH', KEYS[1], ARGV[1])")

            def append(body: str) -> None:
                script(keys=[key], args=[body])

            def rpush(body: str) -> None:
                client.rpush(key, body)

            self.append, self.extra, self.close = append, rpush, client.close
        else:
            import psycopg
            from psycopg import sql

            url = POSTGRES_URL
            if kind == "postgres-nosync":
                url += ("&" if "?" in url else "?") + NOSYNC
            pg = psycopg.connect(url, autocommit=True)
            table = sql.Identifier(where, "floor")
            pg.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(where)))
            pg.execute(
                sql.SQL(
                    "CREATE TABLE {} (sid bigint, position bigint, body text, "
                    "PRIMARY KEY (sid, position))"
                ).format(table)
            )
            insert = sql.SQL("INSERT INTO {} VALUES (1, %s, %s)").format(table).as_bytes(pg)

            def append(body: str) -> None:
                n[0] += 1
                pg.execute(insert, (n[0], body))

            self.append, self.close = append, pg.close


def against_floor(spec: Spec, rounds: int, turns: int) -> dict[str, float]:
    """Median µs of a turn, of the floor (and of Redis's bare RPUSH), rounds interleaved."""
    msgs = conversation(1000 + rounds * turns)
    store = open_spec(spec)
    preload(store, "bench", msgs[:1000])
    memory = Memory("bench", reducer=reducer(), store=store)
    in_memory = InMemoryStore()  # the same turns on memory://: the in-process share of a turn
    preload(in_memory, "bench", msgs[:1000])
    core = Memory("bench", reducer=reducer(), store=in_memory)
    floor = Floor(spec)
    clock, cpu = time.perf_counter_ns, time.thread_time_ns
    medians: dict[str, list[float]] = {"turn": [], "core": [], "floor": [], "rpush": []}
    # this thread's CPU time: all of an in-process backend's work (SQLite), none of a server's
    cpu_medians: dict[str, list[float]] = {"turn": [], "core": [], "floor": []}
    todo = iter(msgs[1000:])
    try:
        for _ in range(rounds):
            times, cpus = [], []
            batch = [next(todo) for _ in range(turns)]
            for m in batch:
                c0, t0 = cpu(), clock()
                memory.add(m)
                memory.messages()
                times.append(clock() - t0)
                cpus.append(cpu() - c0)
            medians["turn"].append(statistics.median(times))
            cpu_medians["turn"].append(statistics.median(cpus))
            times, cpus = [], []
            for m in batch:
                c0, t0 = cpu(), clock()
                core.add(m)
                core.messages()
                times.append(clock() - t0)
                cpus.append(cpu() - c0)
            medians["core"].append(statistics.median(times))
            cpu_medians["core"].append(statistics.median(cpus))
            for name, fn in (("floor", floor.append), ("rpush", floor.extra)):
                if fn is None:
                    continue
                times, cpus = [], []
                for m in batch:
                    body = json.dumps(m)
                    c0, t0 = cpu(), clock()
                    fn(body)
                    times.append(clock() - t0)
                    cpus.append(cpu() - c0)
                medians[name].append(statistics.median(times))
                if name in cpu_medians:
                    cpu_medians[name].append(statistics.median(cpus))
    finally:
        memory.close()
        core.close()
        store.close()
        floor.close()
    out = {k: statistics.median(v) / 1000 for k, v in medians.items() if v}
    out.update({f"cpu_{k}": statistics.median(v) / 1000 for k, v in cpu_medians.items() if v})
    return out


def redis_commands_per_turn(spec: Spec, turns: int = 200) -> dict[str, float]:
    """Redis: the commands a turn sends (counted on the store's client), per turn.

    ``turns`` turns of ``Memory.add`` + ``messages()`` on a 1000-message session, reductions
    included (their commits count too); a turn's append should be one ``EVALSHA``.
    """
    msgs = conversation(1000 + turns)
    store = open_spec(spec)
    preload(store, "rt", msgs[:1000])
    memory = Memory("rt", reducer=reducer(), store=store)
    memory.messages()
    client: Any = store._client  # type: ignore[attr-defined]
    real, sent = client.execute_command, []

    def counted(*args: Any, **kwargs: Any) -> Any:
        sent.append(str(args[0]).upper())
        return real(*args, **kwargs)

    client.execute_command = counted
    try:
        for m in msgs[1000:]:
            memory.add(m)
            memory.messages()
    finally:
        client.execute_command = real
        memory.close()
        store.close()
    return {c: sent.count(c) / turns for c in sorted(set(sent))}


def pct(xs: list[int], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))] / 1000


def calls(spec: Spec, repeat: int) -> dict[str, tuple[float, float]]:
    store = open_spec(spec)
    preload(store, "lat", conversation(1000))
    timed: dict[str, list[int]] = {"append": [], "load": [], "commit": []}
    clock = time.perf_counter_ns
    for i in range(repeat):
        t0 = clock()
        store.append("lat", [user(f"turn {i}")])
        timed["append"].append(clock() - t0)
        t0 = clock()
        state = store.load("lat")
        timed["load"].append(clock() - t0)
        summary = assistant(f"summary {i}").as_summary(
            SummaryInfo(watermark=state.watermark + 1, summarizer="bench")
        )
        t0 = clock()
        store.commit(
            "lat",
            summary=summary,
            watermark=state.watermark + 1,
            expected_version=state.version,
            expected_epoch=state.epoch,
        )
        timed["commit"].append(clock() - t0)
    store.close()
    return {k: (pct(v, 0.5), pct(v, 0.99)) for k, v in timed.items()}


def _worker(spec: Spec, proc: int, threads: int, seconds: float, barrier: Any, out: Any) -> None:
    store = open_spec(spec)
    msgs = conversation(40_000, seed=proc)  # more turns than a thread makes in the run
    counts = [0] * threads
    start = threading.Barrier(threads + 1)
    stop = threading.Event()

    def run(t: int) -> None:
        memory = Memory(f"p{proc}-t{t}", reducer=reducer(), store=store)
        start.wait()
        i = 0
        while not stop.is_set() and i < len(msgs):
            memory.add(msgs[i])
            i += 1
        counts[t] = i
        memory.close()

    pool = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    barrier.wait(timeout=120)
    start.wait()
    time.sleep(seconds)
    stop.set()
    for th in pool:
        th.join()
    store.close()
    out.put(sum(counts))


def throughput(spec: Spec, procs: int = 4, threads: int = 2, seconds: float = 5.0) -> float:
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(procs), ctx.Queue()
    ps = [
        ctx.Process(target=_worker, args=(spec, p, threads, seconds, barrier, out))
        for p in range(procs)
    ]
    for p in ps:
        p.start()
    total: float = sum(float(out.get(timeout=300)) for _ in ps)
    for p in ps:
        p.join(timeout=60)
    return total / seconds


def section(title: str) -> None:
    print(f"\n{title}", flush=True)


def each(kinds: list[str], fn: Callable[[str], None]) -> None:
    for kind in kinds:
        fn(kind)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench_stores.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--stores", default=",".join(STORES))
    parser.add_argument("--turns", type=int, default=WINDOW, help="timed turns per size")
    parser.add_argument("--calls", type=int, default=500, help="timed calls of each kind")
    parser.add_argument("--seconds", type=float, default=5.0, help="throughput run length")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--floor-rounds", type=int, default=7, help="rounds of Stores 0")
    parser.add_argument("--floor-turns", type=int, default=200, help="turns a round (Stores 0)")
    parser.add_argument("--only-floor", action="store_true", help="run Stores 0 only")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    kinds = []
    for kind in args.stores.split(","):
        why = problem(kind)
        if why:
            print(f"{kind}: skipped ({why})")
        else:
            kinds.append(kind)
    reducer()  # load the tokenizer before anything is timed

    section(
        f"Stores 0: a turn (Memory.add + messages()) against the backend's floor, median "
        f"microseconds ({args.floor_rounds} rounds of {args.floor_turns}, interleaved); "
        "goal <= 1.5"
    )
    print(
        f"{'store':16}{'turn':>8}{'floor':>8}{'ratio':>7}{'memory://':>11}{'store part':>12}"
        f"{'ratio':>7}  floor"
    )

    def part0(kind: str) -> None:
        if kind == "memory":
            return  # nothing durable to compare with
        with place(kind) as spec:
            r = against_floor(spec, args.floor_rounds, args.floor_turns)
        what = {
            "sqlite": "INSERT in BEGIN IMMEDIATE",
            "redis": f"EVALSHA of RPUSH (bare RPUSH {r.get('rpush', 0):.0f} µs: "
            f"{r['turn'] / r.get('rpush', 1):.2f}x)",
        }.get(kind, "INSERT in autocommit")
        part = r["turn"] - r["core"]  # what the store adds to the in-process turn
        print(
            f"{kind:16}{r['turn']:>8.0f}{r['floor']:>8.0f}{r['turn'] / r['floor']:>7.2f}"
            f"{r['core']:>11.0f}{part:>12.0f}{part / r['floor']:>7.2f}  {what}",
            flush=True,
        )
        if kind in IN_PROCESS:  # the same in CPU time: what the load does not stretch
            cpu_part = r["cpu_turn"] - r["cpu_core"]
            print(
                f"{'  (CPU time)':16}{r['cpu_turn']:>8.0f}{r['cpu_floor']:>8.0f}"
                f"{r['cpu_turn'] / r['cpu_floor']:>7.2f}{r['cpu_core']:>11.0f}{cpu_part:>12.0f}"
                f"{cpu_part / r['cpu_floor']:>7.2f}",
                flush=True,
            )
        if kind == "redis":
            with place(kind) as spec:
                per = redis_commands_per_turn(spec)
            sent = ", ".join(f"{n:.2f} {c}" for c, n in per.items())
            print(f"{'':16}commands a turn (200 turns, reductions included): {sent}", flush=True)

    each(kinds, part0)
    if args.only_floor:
        return

    section(
        f"Stores 1: Memory.add + messages() per turn at history N ({args.turns} turns), "
        "microseconds\n  mean (slowest 1% dropped) / median"
    )
    print(f"{'store':16}" + "".join(f"{n:>18}" for n in sizes) + f"{'ratio':>8}")

    def part1(kind: str) -> None:
        row = []
        for n in sizes:
            with place(kind) as spec:
                row.append(per_turn(spec, n, args.turns))
        cells = "".join(f"{m:>10.0f} / {p:>5.0f}" for m, p in row)
        print(f"{kind:16}{cells}{row[-1][0] / row[0][0]:>8.2f}", flush=True)

    each(kinds, part1)

    section(
        f"Stores 2: store calls on a 1000-message session, p50 / p99 microseconds "
        f"({args.calls} each)"
    )
    print(f"{'store':16}{'append':>18}{'load':>18}{'commit':>18}")

    def part2(kind: str) -> None:
        with place(kind) as spec:
            r = calls(spec, args.calls)
        cells = "".join(f"{r[k][0]:>10.0f} / {r[k][1]:>5.0f}" for k in ("append", "load", "commit"))
        print(f"{kind:16}{cells}", flush=True)

    each(kinds, part2)
    if args.skip_throughput:
        return
    section(
        f"Stores 3: throughput, 4 processes x 2 threads on separate sessions, Memory.add "
        f"turns/s ({args.seconds:g} s)"
    )

    def part3(kind: str) -> None:
        if kind == "memory":
            print(f"{kind:16}{'n/a (not shared between processes)':>40}")
            return
        with place(kind) as spec:
            rate = throughput(spec, seconds=args.seconds)
        print(f"{kind:16}{rate:>12.0f}", flush=True)

    each(kinds, part3)


if __name__ == "__main__":
    main()
