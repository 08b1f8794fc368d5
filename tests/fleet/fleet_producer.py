"""A fleet test's producer process: memories with a ``CeleryDispatcher``, turn after turn.

``python -m tests.fleet.fleet_producer SPEC_JSON QUEUE OUT_JSON TURNS SESSION...``: adds
``TURNS`` messages to each session, round robin, and writes what it saw to ``OUT_JSON``: the
jobs it dispatched, failed publishes, turns that truncated, the largest view after a turn.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from summem import Memory
from summem.events import MemoryEvent, ReductionCommitted
from summem.fleet import DispatchFailed, DispatchOverdue, ReductionDispatched
from summem.fleet.celery import CeleryDispatcher
from tests.fleet.common import BROKER_URL, HARD, fleet_reducer, message
from tests.stores.backends import KINDS


def main() -> None:
    spec, queue, out, turns, sessions = (
        json.loads(sys.argv[1]),
        sys.argv[2],
        Path(sys.argv[3]),
        int(sys.argv[4]),
        sys.argv[5:],
    )
    store = KINDS[spec[0]].open(*spec[1:])
    celery_dispatcher = CeleryDispatcher(BROKER_URL, queue=queue)
    published: dict[str, float] = {}

    class Timed:
        def dispatch(self, job: Any) -> None:
            celery_dispatcher.dispatch(job)
            published[job.job_id] = time.time() - job.created_at

    dispatcher = Timed()
    seen: list[MemoryEvent] = []
    memories = {
        sid: Memory(
            sid, reducer=fleet_reducer(), store=store, dispatcher=dispatcher, hooks=[seen.append]
        )
        for sid in sessions
    }
    largest, over, latencies = 0, [], []
    started = time.monotonic()
    for turn in range(turns):
        for sid, memory in memories.items():
            t0 = time.perf_counter()
            memory.add(message(sid, turn))
            view = memory.messages()
            latencies.append(time.perf_counter() - t0)
            size = memory.size
            largest = max(largest, size)
            if size > HARD or len(view) > HARD:
                over.append([sid, turn, size])
    elapsed = time.monotonic() - started
    for memory in memories.values():
        memory.wait()  # every job handed to the broker
    result = {
        "dispatched": [e.job_id for e in seen if isinstance(e, ReductionDispatched)],
        "failed": [e.job_id for e in seen if isinstance(e, DispatchFailed)],
        "overdue": sum(isinstance(e, DispatchOverdue) for e in seen),
        "folds": [
            e.summary_id
            for e in seen
            if isinstance(e, ReductionCommitted) and e.summary_id is not None
        ],
        "published": published,
        "largest": largest,
        "over": over,
        "turns": turns * len(memories),
        "seconds": elapsed,
    }
    for memory in memories.values():
        memory.close()
    store.close()
    out.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
