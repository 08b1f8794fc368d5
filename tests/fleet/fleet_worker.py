"""A fleet test's worker process: the real ``summem.reduce`` Celery task, solo pool.

``python -m tests.fleet.fleet_worker SPEC_JSON QUEUE OUT_DIR [--hang-at N] [--broker URL]``.
Each job's outcome is appended to ``OUT_DIR/outcomes-<pid>.jsonl``. With ``--hang-at N`` the N-th
summarizer call first writes ``OUT_DIR/hang-<pid>.json`` (the job it is in) and then never
returns, so the test kills this worker while it is certainly mid-job.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

from summem.fleet.celery import WorkerContext, celery_app
from summem.fleet.worker import CURRENT_JOB, JobOutcome
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from tests.fleet.common import BROKER_URL, fleet_reducer
from tests.stores.backends import KINDS


class SignallingSummarizer:
    """The extractive summarizer; its N-th call announces its job, then hangs."""

    def __init__(self, out: Path, hang_at: int | None) -> None:
        self.inner = ExtractiveSummarizer()
        self.out = out
        self.hang_at = hang_at
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def summarize(self, request: Any) -> Generator[Any, Any, Any]:
        self.calls += 1
        if self.hang_at is not None and self.calls == self.hang_at:
            job = CURRENT_JOB.get()
            assert job is not None
            tmp = self.out / f".hang-{os.getpid()}.tmp"
            tmp.write_text(json.dumps({"job_id": job.job_id, "session_id": job.session_id}))
            tmp.rename(self.out / f"hang-{os.getpid()}.json")
            while True:  # mid-job until SIGKILLed
                time.sleep(60)
        return (yield from self.inner.summarize(request))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("queue")
    parser.add_argument("out", type=Path)
    parser.add_argument("--hang-at", type=int, default=None)
    parser.add_argument("--broker", default=BROKER_URL)
    args = parser.parse_args()
    spec = json.loads(args.spec)
    log = args.out / f"outcomes-{os.getpid()}.jsonl"

    def record(outcome: JobOutcome) -> None:
        line = {
            "job_id": outcome.job.job_id,
            "session_id": outcome.job.session_id,
            "status": outcome.status,
            "reason": outcome.reason,
            "lag": outcome.lag_seconds,
            "ran": outcome.duration_seconds,
            "at": time.time(),
            "pid": os.getpid(),
        }
        with log.open("a") as f:
            f.write(json.dumps(line) + "\n")

    def context() -> WorkerContext:
        return WorkerContext(
            store=KINDS[spec[0]].open(*spec[1:]),
            reducer=fleet_reducer(SignallingSummarizer(args.out, args.hang_at)),
            lease_ttl_seconds=60.0,
            retry_seconds=0.5,
            on_outcome=record,
        )

    app = celery_app(args.broker, queue=args.queue, context=context)

    from celery.signals import worker_ready  # type: ignore[import-untyped]

    @worker_ready.connect  # type: ignore[untyped-decorator]
    def ready(**_: Any) -> None:  # consuming: the test starts the producers
        (args.out / f"ready-{os.getpid()}").touch()

    app.worker_main(
        [
            "worker",
            "--pool=solo",
            "--concurrency=1",
            f"--queues={args.queue}",
            "--loglevel=WARNING",
            f"--hostname=fleet-{os.getpid()}@%h",
        ]
    )


if __name__ == "__main__":
    main()
