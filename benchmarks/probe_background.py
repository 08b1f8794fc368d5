"""Take apart the turns of bench_hotpath's background run: did a slow turn wait, or stall?

Run from the repository root::

    python benchmarks/probe_background.py                  # 3 runs of 200 turns
    python benchmarks/probe_background.py --after-part1    # first bench_hotpath's Part 1

It runs Part 2's background workload (tool batches of a few thousand tokens, no gap between
turns, a 300 ms summarizer) with instruments on, and prints every turn over 5 ms that did not
take the view past the hard limit, split into: the main thread's CPU time; the time it was
runnable but not run (``/proc/self/task/<tid>/schedstat``: the machine ran something else);
the time it slept, and of that the time spent waiting on the memory's locks (its write lock,
the cached view's lock, the store's lock, the worker's condition: each wrapped to time waits
over 20 us); the garbage collector's pauses (``gc.callbacks``; a generation-2 pause is
named); and the background worker's CPU time in the same window (a worker holding the GIL
shows as the main thread asleep while the worker runs). Linux only (schedstat).

A diagnostic, not a benchmark: the wrappers slow the locks a little, and it reaches into
private attributes of ``Memory`` to wrap them.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks import bench_hotpath as hot
from benchmarks.conversation import conversation
from summem import Memory, SummarizationReducer

CLOCK = time.perf_counter_ns
MAIN = threading.get_native_id()


def run_delay(tid: int) -> int:
    """ns thread ``tid`` of this process has been runnable but not running."""
    try:
        with open(f"/proc/self/task/{tid}/schedstat") as f:
            return int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0


class TimedLock:
    """A lock that records how long the main thread waited for it (waits over 20 us)."""

    def __init__(self, inner: Any, waits: list[tuple[int, int]]) -> None:
        self.inner, self.waits = inner, waits

    def acquire(self, *args: Any, **kwargs: Any) -> bool:
        if threading.get_native_id() != MAIN:
            return bool(self.inner.acquire(*args, **kwargs))
        t0 = CLOCK()
        got = bool(self.inner.acquire(*args, **kwargs))
        if CLOCK() - t0 > 20_000:
            self.waits.append((t0, CLOCK() - t0))
        return got

    def release(self) -> None:
        self.inner.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


class Probe:
    """The instruments of one run."""

    def __init__(self) -> None:
        self.waits: list[tuple[int, int]] = []
        self.gc: list[tuple[int, int, int]] = []  # start, duration, generation (main thread)
        self._gc_start = 0
        self.worker_clock: int | None = None  # the worker thread's CPU clock

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        if threading.get_native_id() != MAIN:
            return
        if phase == "start":
            self._gc_start = CLOCK()
        else:
            self.gc.append((self._gc_start, CLOCK() - self._gc_start, info["generation"]))

    def wrap(self, memory: Memory) -> None:
        memory._write = TimedLock(memory._write, self.waits)  # type: ignore[assignment]
        core = memory._core
        core._lock = core.lock = TimedLock(core._lock, self.waits)  # type: ignore[assignment]
        store: Any = memory.store
        store._lock = TimedLock(store._lock, self.waits)
        worker: Any = memory._worker
        worker._cv = threading.Condition(TimedLock(threading.Lock(), self.waits))  # type: ignore[arg-type]
        job = worker._job

        def timed() -> Any:  # called on the worker's thread
            self.worker_clock = time.pthread_getcpuclockid(threading.get_ident())
            return job()  # the job (or, before the worker held it weakly, its run's result)

        worker._job = timed

    def worker_cpu(self) -> int:
        clock = self.worker_clock
        if clock is None:
            return 0
        try:
            return time.clock_gettime_ns(clock)
        except OSError:  # the thread exited
            return 0


def one_run(turns: int, slow_s: float) -> None:
    summarizer = hot.SlowSummarizer(slow_s)
    reducer = SummarizationReducer(
        summarizer,
        threshold_tokens=16000,
        target_tokens=10000,
        soft_threshold_tokens=12000,
        model="gpt-4o",
    )
    memory = Memory("probe", reducer=reducer, background=True)
    probe = Probe()
    probe.wrap(memory)
    gc.callbacks.append(probe.on_gc)
    rows = []
    for i, batch in enumerate(hot.heavy_turns(turns)):
        before = memory.size
        q0, c0, w0 = run_delay(MAIN), time.thread_time_ns(), probe.worker_cpu()
        t0 = CLOCK()
        memory.extend(batch)
        memory.messages()
        t1 = CLOCK()
        c1, q1, w1 = time.thread_time_ns(), run_delay(MAIN), probe.worker_cpu()
        limit = before + sum(reducer.size(m) for m in memory.view()[-len(batch) :])
        rows.append((i, t0, t1, c1 - c0, q1 - q0, w1 - w0 if w0 and w1 else 0, limit))
    gc.callbacks.remove(probe.on_gc)
    memory.wait()
    memory.close()
    full = [round(d / 1e6, 1) for _, d, g in probe.gc if g == 2]
    print(f"  generation-2 collections in the main thread (ms): {full or 'none'}")
    for i, t0, t1, cpu, queued, worker, size in rows:
        wall = t1 - t0
        if wall <= 5_000_000 or size > reducer.hard_limit:
            continue
        locks = sum(d for s, d in probe.waits if t0 <= s < t1)
        paused = sum(d for s, d, _ in probe.gc if t0 <= s < t1)
        print(
            f"  turn {i:3}: {wall / 1e6:6.2f} ms = CPU {cpu / 1e6:5.2f} (GC {paused / 1e6:5.2f} "
            f"of it) + runnable, not run {queued / 1e6:5.2f} + asleep "
            f"{(wall - cpu - queued) / 1e6:5.2f} (on the memory's locks {locks / 1e6:.2f}); "
            f"worker CPU meanwhile {worker / 1e6:.2f}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/probe_background.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--slow-ms", type=float, default=300.0)
    parser.add_argument(
        "--after-part1", action="store_true", help="run bench_hotpath's Part 1 (1k, 20k) first"
    )
    args = parser.parse_args(argv)
    if args.after_part1:
        hot.part1([1000, 20000])
    else:
        hot.replay("exact", conversation(2000, seed=1, scale=hot.SCALE))  # warm-up
    print(f"objects the collector tracks now: {len(gc.get_objects())}")
    for k in range(args.runs):
        print(f"run {k + 1}: background turns over 5 ms, the hard limit's excepted")
        one_run(args.turns, args.slow_ms / 1000)


if __name__ == "__main__":
    main()
