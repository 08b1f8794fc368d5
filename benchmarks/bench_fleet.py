"""Turns with the queue against in-process background mode, in the same run.

Two passes over the same workload (``--sessions`` sessions of ``--turns`` messages each, round
robin, a SQLite store, the offline extractive summarizer, a token budget with a soft
threshold), each turn timed as ``add`` + ``messages()``:

- **background**: each memory reduces in its own worker thread (``docs-notes/background.md``);
- **queue**: each memory publishes a job to RabbitMQ and ``--workers`` ``summem worker``
  processes (the real CLI, solo pool, over a ``summem.yaml`` written for the run) reduce.

Prints turns/s and the p50/p99/max turn latency of each, the ratios queue/background, and
what the queue pass saw: jobs published, turns that passed the hard limit before a worker
answered (and truncated), the view's largest size. Skipped with a message when RabbitMQ is
not reachable (``--broker``).

    python -m benchmarks --only fleet
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.conversation import conversation
from summem import Memory, SummarizationReducer
from summem.config import load_config
from summem.events import MemoryEvent
from summem.fleet import DispatchOverdue, ReductionDispatched
from summem.stores import SQLiteStore

BUDGET = {"threshold": 3000, "target": 1800, "soft_threshold": 2400}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _turns(memories: list[Memory], script: list[dict[str, Any]]) -> tuple[list[float], float]:
    latencies: list[float] = []
    started = time.perf_counter()
    for message in script:
        for memory in memories:
            t0 = time.perf_counter()
            memory.add(message)
            memory.messages()
            latencies.append(time.perf_counter() - t0)
    return latencies, time.perf_counter() - started


def _script(turns: int) -> list[dict[str, Any]]:
    return [m for m in conversation(turns * 2) if not m.get("tool_calls") and m["role"] != "tool"][
        :turns
    ]


def _background(folder: Path, sessions: int, script: list[dict[str, Any]]) -> dict[str, Any]:
    store = SQLiteStore(folder / "background.db")
    reducer = SummarizationReducer(
        threshold_tokens=BUDGET["threshold"],
        target_tokens=BUDGET["target"],
        soft_threshold_tokens=BUDGET["soft_threshold"],
    )
    memories = [Memory(f"bg-{i}", reducer=reducer, store=store) for i in range(sessions)]
    latencies, took = _turns(memories, script)
    largest = max(m.size for m in memories)
    for m in memories:
        m.close()
    store.close()
    return {"latencies": latencies, "seconds": took, "largest": largest}


def _queue(
    folder: Path, sessions: int, script: list[dict[str, Any]], broker: str, workers: int
) -> dict[str, Any]:
    queue = f"summem-bench-{uuid.uuid4().hex[:10]}"
    config_path = folder / "summem.yaml"
    config_path.write_text(
        f"store: sqlite:///{folder / 'queue.db'}\n"
        f"budget: {{threshold: {BUDGET['threshold']}, target: {BUDGET['target']}, "
        f"soft_threshold: {BUDGET['soft_threshold']}}}\n"
        f"dispatch: {{broker: '{broker}', queue: {queue}}}\n"
    )
    env = {**os.environ, "SUMMEM_CONFIG": str(config_path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "summem", "worker", "--pool", "solo", "--loglevel", "WARNING"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(workers)
    ]
    seen: list[MemoryEvent] = []
    try:
        config = load_config(config_path)
        _wait_for_workers(config.build_dispatcher(), workers)
        store = config.build_store()
        memories = [config.build_memory(f"q-{i}", store=store) for i in range(sessions)]
        for m in memories:
            m.add_hook(seen.append)
        latencies, took = _turns(memories, script)
        largest = max(m.size for m in memories)
        for m in memories:
            m.wait()
            m.close()
        store.close()
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        _delete_queue(broker, queue)
    return {
        "latencies": latencies,
        "seconds": took,
        "largest": largest,
        "jobs": sum(isinstance(e, ReductionDispatched) for e in seen),
        "truncating": sum(isinstance(e, DispatchOverdue) for e in seen),
        "hard_limit": memories[0]._core.hard_limit,
    }


def _wait_for_workers(dispatcher: Any, workers: int) -> None:
    """Until ``workers`` workers answer a ping (the turns start with the fleet up)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if len(dispatcher.app.control.ping(timeout=1.0)) >= workers:
            return
    raise SystemExit("bench_fleet: the summem worker processes did not start")


def _delete_queue(broker: str, queue: str) -> None:
    try:
        from kombu.connection import Connection

        with Connection(broker, connect_timeout=5) as conn:
            conn.default_channel.queue_delete(queue)
    except Exception as exc:  # the broker may be what failed
        print(f"  (queue {queue} not deleted: {exc})")


def _broker_problem(broker: str) -> str | None:
    try:
        from kombu.connection import Connection

        with Connection(broker, connect_timeout=2) as conn:
            conn.ensure_connection(max_retries=1)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_fleet", description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--turns", type=int, default=300, help="messages per session")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--broker", default="amqp://guest:guest@127.0.0.1:5672//")
    args = parser.parse_args(argv)
    problem = _broker_problem(args.broker)
    if problem is not None:
        print(f"fleet: skipped, the broker is not reachable ({problem})")
        return
    script = _script(args.turns)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bg = _background(folder, args.sessions, script)
        q = _queue(folder, args.sessions, script, args.broker, args.workers)
    n = args.sessions * len(script)
    print(
        f"fleet: {args.sessions} sessions x {len(script)} messages = {n} turns, SQLite, "
        f"extractive summarizer, budget {BUDGET} tokens; {args.workers} summem worker processes"
    )
    print(f"  {'mode':<12}{'turns/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    rows = {"background": bg, "queue": q}
    for name, r in rows.items():
        lat = r["latencies"]
        print(
            f"  {name:<12}{n / r['seconds']:>10.0f}{_pct(lat, 0.5) * 1e3:>10.3f}"
            f"{_pct(lat, 0.99) * 1e3:>10.3f}{max(lat) * 1e3:>10.3f}"
        )
    print(
        f"  queue / background: turns/s x{(n / q['seconds']) / (n / bg['seconds']):.2f}, "
        f"p99 x{_pct(q['latencies'], 0.99) / _pct(bg['latencies'], 0.99):.2f}"
    )
    print(
        f"  queue: {q['jobs']} jobs published, {q['truncating']} turns past the hard limit "
        f"({q['hard_limit']}) truncated before a worker answered; largest view after the run "
        f"{q['largest']} (background: {bg['largest']})"
    )


if __name__ == "__main__":
    main()
