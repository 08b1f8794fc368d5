"""Does a turn's cost, or a summary record, grow with the history? (issue 30, item 1)

Run from the repository root::

    python benchmarks/probe_growth.py --store memory --sizes 1000 5000 20000

Replays ``benchmarks/conversation.py`` through ``Memory`` (default reducer: the offline
extractive summarizer, blocking mode), with one sentence the user repeats every tenth message
(as the planted-fact evals do), and prints per size: the median microseconds of the last 500
turns' ``add`` + ``messages()``, the latest summary record's JSON size, and the most ids any one
provenance entry carries. Flat columns mean bounded; a count column that grows with the size
is the O(history) part.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.conversation import conversation
from summem import Memory

REPEAT = {"role": "user", "content": "My order code is QX-4471 and my name is Dana Whitfield."}


def _messages(n: int, source: str) -> list[dict[str, Any]]:
    if source == "prose":  # the planted-fact eval's conversation (evals installed beside)
        from evals.families.trajectories import generate_trajectory

        turns = max(20, n // 3)
        msgs = list(generate_trajectory(1, turns=turns, style="prose").messages)
        return msgs[:n]
    msgs = conversation(n)
    for i in range(1, len(msgs), 10):
        if msgs[i].get("role") == "user":
            msgs[i] = dict(REPEAT)
    return msgs


def run(n: int, store: str, tail: int, source: str) -> dict[str, float]:
    msgs = _messages(n, source)
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"sqlite:///{tmp}/g.db" if store == "sqlite" else None
        memory = Memory("growth", store=spec, background=False)
        times: list[float] = []
        start = len(msgs) - tail
        for i, m in enumerate(msgs):
            t0 = time.perf_counter_ns()
            memory.add(m)
            memory.messages()
            if i >= start:
                times.append((time.perf_counter_ns() - t0) / 1000)
        summary = memory.summary
        info = summary.summary_info if summary is not None else None
        record = info.model_dump(mode="json") if info is not None else {}
        prov = record.get("extra", {}).get("provenance", []) or []
        most = max((len(e.get("ids", [])) for e in prov), default=0)
        memory.close()
    return {
        "us_turn": statistics.median(times),
        "us_mean": statistics.fmean(times),
        "record_bytes": len(json.dumps(record)),
        "max_ids": most,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", choices=["memory", "sqlite"], default="memory")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--source", choices=["bench", "prose"], default="bench")
    parser.add_argument("--tail", type=int, default=500)
    args = parser.parse_args()
    for n in args.sizes:
        r = run(n, args.store, min(args.tail, n // 2), args.source)
        print(
            f"{args.store:6} n={n:>7}  {r['us_turn']:9.0f} us/turn (mean {r['us_mean']:.0f})  "
            f"record {r['record_bytes']:>9} B  max ids/line {r['max_ids']:>6}",
            flush=True,
        )


if __name__ == "__main__":
    main()
