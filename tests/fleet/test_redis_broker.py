"""Redis as the broker: the same task and dispatcher, jobs through a Redis list.

One worker process (the real ``summem.reduce`` task) and memories in this process, on a
SQLite store: every job is answered, each session keeps one summary chain and every message.
Skipped when Redis or celery is missing (failed under ``CI=true``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from summem import Memory
from summem.events import MemoryEvent
from summem.fleet import ReductionDispatched
from tests.fleet.common import fleet_reducer, message
from tests.stores.backends import REDIS_URL, require_redis

pytestmark = [pytest.mark.fleet, pytest.mark.redis, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
GUARD_SECONDS = 300.0
"""Only against a hang."""


def test_jobs_over_a_redis_broker(tmp_path: Path) -> None:
    pytest.importorskip("celery", reason="the fleet tests need celery (summem[celery])")
    require_redis()
    from summem.fleet.celery import CeleryDispatcher
    from summem.stores import SQLiteStore

    queue = f"summem-fleet-redis-{uuid.uuid4().hex[:12]}"
    db = tmp_path / "s.db"
    out = tmp_path / "out"
    out.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    spec = json.dumps(["sqlite", str(db)])
    log = (out / "worker.log").open("wb")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fleet.fleet_worker",
            spec,
            queue,
            str(out),
            "--broker",
            REDIS_URL,
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    store = SQLiteStore(db)
    seen: list[MemoryEvent] = []
    try:
        dispatcher = CeleryDispatcher(REDIS_URL, queue=queue)
        sessions = [f"r{i}" for i in range(5)]
        memories = [
            Memory(
                s, reducer=fleet_reducer(), store=store, dispatcher=dispatcher, hooks=[seen.append]
            )
            for s in sessions
        ]
        for turn in range(40):
            for memory in memories:
                memory.add(message(memory.session_id, turn))
                assert memory.size <= 30
        for memory in memories:
            memory.wait()
        dispatched = {e.job_id for e in seen if isinstance(e, ReductionDispatched)}
        assert dispatched
        deadline = time.monotonic() + GUARD_SECONDS
        answered: set[str] = set()
        while not dispatched <= answered:
            assert time.monotonic() < deadline, (out / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
            outcomes: list[dict[str, Any]] = [
                json.loads(line)
                for p in out.glob("outcomes-*.jsonl")
                for line in p.read_text().splitlines()
            ]
            answered = {o["job_id"] for o in outcomes if o["status"] != "lease_held"}
        assert any(o["status"] == "committed" for o in outcomes)
        for memory in memories:
            sid = memory.session_id
            assert [m.text for m in store.history(sid)] == [
                message(sid, t)["content"] for t in range(40)
            ]
            previous = None
            for s in store.summaries(sid):
                assert s.summary_info is not None
                assert s.summary_info.previous_summary_id == previous
                previous = s.id
            memory.close()
    finally:
        worker.terminate()
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        log.close()
        store.close()
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        client.delete(queue, f"_kombu.binding.{queue}")
        client.close()
