"""A memory with a dispatcher, and run_job, without a broker (the plain-callable engine)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.errors import ConfigurationError, DispatchError
from summem.events import MemoryEvent, ReductionCommitted, SpendLimitReached
from summem.fleet import (
    CallableDispatcher,
    DispatchFailed,
    DispatchOverdue,
    ReductionDispatched,
    ReductionJob,
    run_job,
)
from summem.fleet.job import store_label
from summem.messages import Message
from summem.reducers.truncation import TruncationReducer
from summem.stores import InMemoryStore, SQLiteStore
from summem.summarizers.base import SummaryRequest
from tests.fakes.summarizers import FakeSummarizer

ROOT = Path(__file__).resolve().parents[2]


def reducer(summarizer: Any = None) -> SummarizationReducer:
    """Messages: a job past 9, down to 6; a turn truncates past 20."""
    return SummarizationReducer(
        summarizer if summarizer is not None else FakeSummarizer(),
        threshold_messages=12,
        target_messages=6,
        soft_threshold_messages=9,
        hard_limit_messages=20,
    )


def msg(i: int) -> dict[str, str]:
    return {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"}


class CountingStore(SQLiteStore):
    """Counts full reads (``load``), cheap ones (``probe``), and appends (``calls``: every
    store call a turn makes, by name)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.loads = 0
        self.probes = 0
        self.calls: list[str] = []

    def load(self, session_id: str) -> Any:
        self.loads += 1
        self.calls.append("load")
        return super().load(session_id)

    def probe(self, session_id: str) -> tuple[str, int, int] | None:
        self.probes += 1
        self.calls.append("probe")
        return super().probe(session_id)

    def append(self, session_id: str, messages: Any) -> int:
        self.calls.append("append")
        return super().append(session_id, messages)

    def append_probe(self, session_id: str, messages: Any) -> tuple[str, int, int] | None:
        self.calls.append("append_probe")
        return super().append_probe(session_id, messages)


def test_a_turn_publishes_a_job_and_a_worker_commits_it(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "s.db")
    in_process = FakeSummarizer()
    jobs: list[dict[str, Any]] = []
    events: list[MemoryEvent] = []
    memory = Memory(
        "s",
        reducer=reducer(in_process),
        store=store,
        dispatcher=CallableDispatcher(jobs.append),
        hooks=[events.append],
    )
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    assert in_process.requests == []  # nothing summarized in the producer
    assert len(jobs) == 1
    data = json.loads(json.dumps(jobs[0]))  # plain data, any engine carries it
    job = ReductionJob.from_dict(data)
    assert (job.session_id, job.version, job.length) == ("s", 0, 10)
    dispatched = [e for e in events if isinstance(e, ReductionDispatched)]
    assert [e.job_id for e in dispatched] == [job.job_id]
    # more turns while the job is out: no second job, no full read, one store call each (the
    # append reports the epoch and version: no probe of its own)
    for i in range(10, 13):
        store.calls.clear()
        memory.add(msg(i))
        assert store.calls == ["append_probe"], i
    memory.wait()
    assert len(jobs) == 1 and store.probes == 0
    worker_summarizer = FakeSummarizer(reply="what happened")
    worker_store = SQLiteStore(tmp_path / "s.db")
    outcome = run_job(job, store=worker_store, reducer=reducer(worker_summarizer))
    assert outcome.status == "committed", outcome.reason
    assert outcome.summary_id is not None and outcome.lag_seconds >= 0
    assert len(worker_summarizer.requests) == 1
    # the memory picks the commit up on its next turn: the append's report, one read of the tail
    store.calls.clear()
    memory.add(msg(13))
    assert store.calls == ["append_probe", "load"]
    assert memory.summary is not None and memory.summary.id == outcome.summary_id
    assert memory.size <= 12
    assert [m.text for m in memory.history_messages()] == [f"message {i}" for i in range(14)]
    memory.close()
    worker_store.close()
    store.close()


def test_a_duplicated_job_commits_once(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    jobs: list[dict[str, Any]] = []
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    job = ReductionJob.from_dict(jobs[0])
    first = run_job(job, store=store, reducer=reducer())
    again = run_job(job, store=store, reducer=reducer())
    assert (first.status, again.status) == ("committed", "stale")
    assert "version 1" in again.reason and "planned at 0" in again.reason
    assert len(store.summaries("s")) == 1
    memory.close()
    store.close()


class GatedSummarizer(FakeSummarizer):
    """Two copies of one job meet here, so both are mid-job at once."""

    def __init__(self, gate: threading.Barrier) -> None:
        super().__init__()
        self.gate = gate

    def summarize(self, request: SummaryRequest) -> Any:
        self.gate.wait(timeout=60)
        return super().summarize(request)


def test_two_copies_of_a_job_at_once_commit_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    jobs: list[dict[str, Any]] = []
    store = SQLiteStore(path)
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    job = ReductionJob.from_dict(jobs[0])
    gate = threading.Barrier(2)
    stores = [SQLiteStore(path), SQLiteStore(path)]
    with ThreadPoolExecutor(2) as pool:
        futures = [
            pool.submit(run_job, job, store=s, reducer=reducer(GatedSummarizer(gate)))
            for s in stores
        ]
        outcomes = sorted(f.result(timeout=120).status for f in futures)
    assert outcomes == ["committed", "stale"]
    assert len(store.summaries("s")) == 1
    for s in stores:
        s.close()
    memory.close()
    store.close()


def test_a_job_overtaken_by_another_commit_is_a_no_op(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    jobs: list[dict[str, Any]] = []
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    memory.reduce()  # an explicit reduction still runs here, and moves the version
    outcome = run_job(ReductionJob.from_dict(jobs[0]), store=store, reducer=reducer())
    assert outcome.status == "stale" and "already reduced" in outcome.reason
    store.delete("s")
    gone = run_job(ReductionJob.from_dict(jobs[0]), store=store, reducer=reducer())
    assert gone.status == "stale" and "no longer exists" in gone.reason
    memory.close()
    store.close()


def test_the_lease_lets_a_redelivered_copy_in_and_keeps_another_job_out(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    jobs: list[dict[str, Any]] = []
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    job = ReductionJob.from_dict(jobs[0])
    # a worker died holding the lease for this job: its redelivered copy takes over
    assert store.acquire_lease("s", f"summem-job:{job.job_id}", 60)
    other = ReductionJob(job.session_id, job.epoch, job.version)
    held = run_job(other, store=store, reducer=reducer())
    assert held.status == "lease_held" and held.retry
    redelivered = run_job(job, store=store, reducer=reducer())
    assert redelivered.status == "committed"
    memory.close()
    store.close()


def test_a_job_for_another_store_is_refused(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    job = ReductionJob("s", "e", 0, store="redis://10.0.0.1:6379/0")
    outcome = run_job(job, store=store, reducer=reducer(), store_url=f"sqlite:///{tmp_path}/s.db")
    assert outcome.status == "wrong_store"
    store.close()


def test_a_job_names_its_store_without_credentials(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/s.db?password=hunter2&timeout=5"
    assert store_label(url) == f"sqlite:///{tmp_path}/s.db?timeout=5"
    assert store_label("postgresql://app:pw@db:5432/app?schema=t&password=x") == (
        "postgresql://db:5432/app?schema=t"
    )
    same = "redis://u:${REDIS_PASSWORD}@10.0.0.1:6379/0"  # the worker's settings
    assert store_label(same) == store_label("redis://u:s3cret@10.0.0.1:6379/0")
    jobs: list[dict[str, Any]] = []
    memory = Memory(
        "s",
        reducer=reducer(),
        store=f"sqlite:///{tmp_path}/s.db",
        dispatcher=CallableDispatcher(jobs.append),
    )
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    assert jobs[0]["store"] == f"sqlite:///{tmp_path}/s.db"
    outcome = run_job(
        ReductionJob.from_dict(jobs[0]),
        store=memory.store,
        reducer=reducer(),
        store_url=f"sqlite:///{tmp_path}/s.db",
    )
    assert outcome.status == "committed"
    memory.close()


class Down:
    """A broker that is down; after a failure no job is published for an hour."""

    publish_retry_seconds = 3600.0

    def __init__(self) -> None:
        self.calls = 0

    def dispatch(self, job: ReductionJob) -> None:
        self.calls += 1
        raise ConnectionError("amqp://guest:secret-password@127.0.0.1:5672// refused")


def test_a_broker_that_is_down_breaks_no_turn_and_the_hard_limit_holds(tmp_path: Path) -> None:
    broker = Down()
    events: list[MemoryEvent] = []
    in_process = FakeSummarizer()
    memory = Memory(
        "s",
        reducer=reducer(in_process),
        store=SQLiteStore(tmp_path / "s.db"),
        dispatcher=broker,
        hooks=[events.append],
    )
    for i in range(60):
        memory.add(msg(i))
        memory.wait()  # the publish (and its failure) happened before the next turn
        assert memory.size <= 20
    failed = [e for e in events if isinstance(e, DispatchFailed)]
    assert failed and all("secret-password" not in e.detail for e in failed)
    assert broker.calls == len(failed) == 1  # no publish during the pause, none per turn
    overdue = [e for e in events if isinstance(e, DispatchOverdue)]
    assert overdue and all(e.size > e.hard_limit == 20 for e in overdue)
    folds = [e for e in events if isinstance(e, ReductionCommitted)]
    assert len(folds) == len(overdue) and all(e.trigger == "hard" for e in folds)
    assert in_process.requests == []  # folded offline, never the model
    assert [m.text for m in memory.history_messages()] == [f"message {i}" for i in range(60)]
    memory.store.close()
    memory.close()


def test_a_plain_callable_engine_keeps_every_session_in_budget(tmp_path: Path) -> None:
    """The docs' example: a thread pool as the engine (RQ, arq, Dramatiq look the same)."""
    path = tmp_path / "fleet.db"
    worker_store = SQLiteStore(path)
    pool = ThreadPoolExecutor(max_workers=2)
    futures: list[Any] = []

    def publish(data: dict[str, Any]) -> None:
        job = ReductionJob.from_dict(data)
        futures.append(pool.submit(run_job, job, store=worker_store, reducer=reducer()))

    dispatcher = CallableDispatcher(publish)
    store = SQLiteStore(path)
    memories = [
        Memory(f"s{i}", reducer=reducer(), store=store, dispatcher=dispatcher) for i in range(5)
    ]
    for turn in range(80):
        for memory in memories:
            memory.add(msg(turn))
            assert memory.size <= 20
    for memory in memories:
        memory.wait()
    pool.shutdown(wait=True)
    outcomes = [f.result() for f in futures]
    assert {o.status for o in outcomes} <= {"committed", "stale", "nothing_to_do", "lease_held"}
    assert sum(o.status == "committed" for o in outcomes) >= 5
    for memory in memories:
        sid = memory.session_id
        assert [m.text for m in store.history(sid)] == [f"message {i}" for i in range(80)]
        previous = None
        for s in store.summaries(sid):
            assert s.summary_info is not None
            assert s.summary_info.previous_summary_id == previous
            previous = s.id
        memory.close()
    worker_store.close()
    store.close()


async def test_async_memory_publishes_and_notices_like_memory(tmp_path: Path) -> None:
    jobs: list[dict[str, Any]] = []
    events: list[MemoryEvent] = []
    in_process = FakeSummarizer()
    memory = AsyncMemory(
        "s",
        reducer=reducer(in_process),
        store=SQLiteStore(tmp_path / "s.db"),
        dispatcher=CallableDispatcher(jobs.append),
        hooks=[events.append],
    )
    for i in range(10):
        await memory.add(msg(i))
    await memory.wait()
    assert len(jobs) == 1 and in_process.requests == []
    assert any(isinstance(e, ReductionDispatched) for e in events)
    worker_store = SQLiteStore(tmp_path / "s.db")
    outcome = run_job(ReductionJob.from_dict(jobs[0]), store=worker_store, reducer=reducer())
    assert outcome.status == "committed"
    await memory.add(msg(10))
    assert memory.summary is not None and memory.summary.id == outcome.summary_id
    worker_store.close()
    await memory.close()


def test_bad_dispatch_settings_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="dispatch"):
        Memory("s", reducer=reducer(), dispatcher=object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="summarizing reducer"):
        Memory(
            "s",
            reducer=TruncationReducer(threshold_messages=10, target_messages=5),
            dispatcher=CallableDispatcher(print),
        )
    with pytest.raises(ConfigurationError, match="background=False"):
        Memory("s", reducer=reducer(), background=False, dispatcher=CallableDispatcher(print))
    with pytest.raises(ConfigurationError, match="callable"):
        CallableDispatcher("not callable")  # type: ignore[arg-type]


def test_without_a_soft_threshold_jobs_go_at_the_threshold() -> None:
    jobs: list[dict[str, Any]] = []
    plain = SummarizationReducer(FakeSummarizer(), threshold_messages=8, target_messages=4)
    memory = Memory(
        "s", reducer=plain, store=InMemoryStore(), dispatcher=CallableDispatcher(jobs.append)
    )
    for i in range(8):
        memory.add(msg(i))
    memory.wait()
    assert jobs == []
    memory.add(msg(8))
    memory.wait()
    assert len(jobs) == 1
    memory.close()


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"version": -1}, "version must be a non-negative integer"),
        ({"version": True}, "version must be a non-negative integer"),
        ({"session_id": ""}, "session_id must not be empty"),
        ({"epoch": 3}, "epoch must be a string"),
        ({"format": 99}, "format 99"),
        ({"surprise": 1}, "unknown field"),
        ({"created_at": "now"}, "created_at must be a number"),
        ({"job_id": ""}, "job_id must not be empty"),
    ],
)
def test_a_malformed_job_names_what_is_wrong(change: dict[str, Any], error: str) -> None:
    data = {**ReductionJob("s", "e", 3).to_dict(), **change}
    with pytest.raises(DispatchError, match=error):
        ReductionJob.from_dict(data)


def test_a_job_missing_a_field_or_not_a_dict_is_refused() -> None:
    data = ReductionJob("s", "e", 3).to_dict()
    del data["epoch"]
    with pytest.raises(DispatchError, match="missing field 'epoch'"):
        ReductionJob.from_dict(data)
    with pytest.raises(DispatchError, match="must be a dict"):
        ReductionJob.from_dict(["s"])
    job = ReductionJob("s", "e", 3, watermark=2, length=9, store="sqlite:///x.db")
    assert ReductionJob.from_dict(json.loads(json.dumps(job.to_dict()))) == job


def test_importing_summem_and_the_fleet_does_not_import_celery() -> None:
    code = (
        "import sys, summem, summem.fleet; from summem import Memory;"
        "assert 'celery' not in sys.modules and 'kombu' not in sys.modules, 'celery imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_messages_are_summem_messages() -> None:  # the job carries none
    job = ReductionJob("s", "e", 0)
    assert not any(isinstance(v, Message) for v in job.to_dict().values())


class Clock:
    """The publisher's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_a_job_left_unanswered_is_planned_again_after_redispatch_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import summem.fleet.publisher as publisher

    clock = Clock()
    monkeypatch.setattr(publisher, "time", clock)
    jobs: list[dict[str, Any]] = []
    dispatcher = CallableDispatcher(jobs.append, redispatch_seconds=30)
    memory = Memory("s", reducer=reducer(), store=InMemoryStore(), dispatcher=dispatcher)
    for i in range(10):
        memory.add(msg(i))
    memory.add(msg(10))
    memory.wait()
    clock.now += 29
    memory.add(msg(11))
    memory.wait()
    assert len(jobs) == 1  # outstanding: the next turns wait for it
    clock.now += 2  # past redispatch_seconds: the job is given up
    memory.add(msg(12))
    memory.wait()
    assert len(jobs) == 2 and jobs[1]["job_id"] != jobs[0]["job_id"]
    assert jobs[1]["length"] == 13
    memory.close()


@pytest.mark.parametrize("bad", [0, -1.0, True, "60"])
def test_dispatcher_durations_must_be_positive(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="redispatch_seconds"):
        CallableDispatcher(print, redispatch_seconds=bad)


def test_after_a_failed_publish_the_next_job_waits_for_the_pause(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import summem.fleet.publisher as publisher

    clock = Clock()
    monkeypatch.setattr(publisher, "time", clock)
    broker = Down()
    broker.publish_retry_seconds = 10.0
    memory = Memory("s", reducer=reducer(), store=InMemoryStore(), dispatcher=broker)
    for i in range(12):
        memory.add(msg(i))
        memory.wait()
    assert broker.calls == 1
    clock.now += 11
    memory.add(msg(12))
    memory.wait()
    assert broker.calls == 2
    memory.close()


def test_a_worker_keeps_the_latest_summaries_whole_as_configured(tmp_path: Path) -> None:
    from summem.stores.summary_log import is_stub

    store = SQLiteStore(tmp_path / "s.db")
    jobs: list[dict[str, Any]] = []
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    committed = 0
    for i in range(120):
        memory.add(msg(i))
        memory.wait()
        while jobs:
            job = ReductionJob.from_dict(jobs.pop(0))
            outcome = run_job(job, store=store, reducer=reducer(), keep_summaries=2)
            committed += outcome.status == "committed"
    log = store.summaries("s")
    assert committed >= 4 and len(log) >= 4
    assert [is_stub(m) for m in log] == [True] * (len(log) - 2) + [False, False]
    assert not is_stub(log[-1]) and log[-1].text
    memory.close()
    store.close()


@respx.mock
def test_a_worker_applies_the_producers_spend_limit_through_the_stores_ledger(
    tmp_path: Path,
) -> None:
    """The budget a memory has is the budget its fleet's reductions draw on."""
    from summem import ExtractiveSummarizer, FallbackSummarizer
    from summem.observe import SpendLimit
    from tests.fakes.replies import OPENAI_URL, openai_completion
    from tests.observe.test_cost import llm

    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            200, json=openai_completion("A short summary.", usage=(120, 12))
        )
    )
    store = SQLiteStore(tmp_path / "s.db")
    jobs: list[dict[str, Any]] = []
    memory = Memory(
        "s",
        reducer=reducer(),
        store=store,
        dispatcher=CallableDispatcher(jobs.append),
        spend_limit=SpendLimit(max_tokens=300),
    )
    worker_limit = SpendLimit(max_tokens=300)  # the worker's own object, the same settings
    heard: list[MemoryEvent] = []
    for i in range(80):
        memory.add(msg(i))
        memory.wait()
        while jobs:
            outcome = run_job(
                ReductionJob.from_dict(jobs.pop(0)),
                store=store,
                reducer=reducer(FallbackSummarizer([llm(), ExtractiveSummarizer()])),
                hooks=[heard.append],
                spend_limit=worker_limit,
            )
            assert outcome.status in ("committed", "stale")
    committed = [e for e in heard if isinstance(e, ReductionCommitted)]
    assert route.call_count == 3  # 132 tokens a call: the third passes 300, then no more
    assert len(committed) > 3
    assert [e.summarizer for e in committed[:3]] == ["llm:gpt-4o-mini"] * 3
    assert {e.summarizer for e in committed[3:]} == {"extractive"}
    assert [e for e in heard if isinstance(e, SpendLimitReached)]
    assert store.spent_since("session:s", None).tokens == 3 * 132  # in the shared ledger
    with pytest.raises(ConfigurationError, match="spend_limit"):
        run_job(
            ReductionJob("s", "e", 1),
            store=store,
            reducer=reducer(),
            spend_limit=300,  # type: ignore[arg-type]
        )
    memory.close()
    store.close()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_process_that_exits_after_close_has_published_its_jobs(tmp_path: Path, kind: str) -> None:
    """The publisher is a daemon thread: close() hands the queued jobs over before an exit."""
    out = tmp_path / "jobs.jsonl"
    code = f"""
import asyncio, json, time
from summem import AsyncMemory, Memory
from summem.fleet import CallableDispatcher
from summem.stores import InMemoryStore
from tests.fleet.test_dispatch import msg, reducer

def publish(data):
    time.sleep(0.5)  # a broker's round trip: the process has exited by then without a flush
    with open({str(out)!r}, "a") as f:
        f.write(json.dumps(data) + "\\n")

def make(cls):
    return cls("s", reducer=reducer(), store=InMemoryStore(),
               dispatcher=CallableDispatcher(publish))

if {kind!r} == "sync":
    memory = make(Memory)
    for i in range(10):
        memory.add(msg(i))
    memory.close()
else:
    async def main():
        memory = make(AsyncMemory)
        for i in range(10):
            await memory.add(msg(i))
        await memory.close()
    asyncio.run(main())
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)
    jobs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(jobs) == 1 and jobs[0]["session_id"] == "s"


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_child_forked_while_the_publishers_locks_were_held_publishes() -> None:
    """A lock a parent's thread held at the fork is never released in the child."""
    import os

    from summem.fleet.publisher import PUBLISHER
    from tests.fakes.fork import in_forked_child

    jobs: list[dict[str, Any]] = []
    memory = Memory(
        "s", reducer=reducer(), store=InMemoryStore(), dispatcher=CallableDispatcher(jobs.append)
    )
    state = memory._dispatch
    assert state is not None

    def child() -> str:
        for i in range(10):
            memory.add(msg(i))
        memory.wait()
        return f"published {len(jobs)} in {os.getpid() != parent}"

    parent = os.getpid()
    with PUBLISHER._lock, state._lock:  # as a publisher thread or a turn holds them
        result = in_forked_child(child)
    assert result == "published 1 in True"
    memory.close()


class _Counts:
    """Records each store call a turn makes, by name (a mixin over a store class)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.calls: list[str] = []

    def load(self, session_id: str) -> Any:
        self.calls.append("load")
        return super().load(session_id)  # type: ignore[misc]

    def probe(self, session_id: str) -> Any:
        self.calls.append("probe")
        return super().probe(session_id)  # type: ignore[misc]

    def append(self, session_id: str, messages: Any) -> Any:
        self.calls.append("append")
        return super().append(session_id, messages)  # type: ignore[misc]

    def append_probe(self, session_id: str, messages: Any) -> Any:
        self.calls.append("append_probe")
        return super().append_probe(session_id, messages)  # type: ignore[misc]


class CountingMemoryStore(_Counts, InMemoryStore):
    pass


class CountingSQLiteStore(_Counts, SQLiteStore):
    pass


class AppendOnlyStore(_Counts, InMemoryStore):
    """A store without ProbingAppendStore (a third-party store; Redis for now)."""

    append_probe = None  # type: ignore[assignment]


def _counting(kind: str, tmp_path: Path) -> Any:
    if kind == "memory":
        return CountingMemoryStore()
    if kind == "sqlite":
        return CountingSQLiteStore(tmp_path / "s.db")
    return AppendOnlyStore()


# what a turn with a job out asks of the store: one call, or the append and a probe
TURN = {
    "memory": ["append_probe"],
    "sqlite": ["append_probe"],
    "append-only": ["append", "probe"],
}


@pytest.mark.parametrize("kind", list(TURN))
def test_a_turn_with_a_job_out_is_one_store_call_and_a_commit_is_noticed(
    tmp_path: Path, kind: str
) -> None:
    store = _counting(kind, tmp_path)
    jobs: list[dict[str, Any]] = []
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    assert len(jobs) == 1
    for i in range(10, 13):
        store.calls.clear()
        memory.add(msg(i))
        assert store.calls == TURN[kind], i
    memory.wait()
    assert len(jobs) == 1 and memory.size == 13  # no second job; nothing noticed yet
    outcome = run_job(ReductionJob.from_dict(jobs[0]), store=store, reducer=reducer())
    assert outcome.status == "committed", outcome.reason
    store.calls.clear()
    memory.add(msg(13))
    assert store.calls == [*TURN[kind], "load"]  # the commit noticed: the tail read once
    assert memory.summary is not None and memory.summary.id == outcome.summary_id
    assert memory.size < 13
    assert [m.text for m in memory.history_messages()] == [f"message {i}" for i in range(14)]
    memory.close()


@pytest.mark.parametrize("kind", list(TURN))
async def test_an_async_turn_with_a_job_out_is_one_store_call_and_a_commit_is_noticed(
    tmp_path: Path, kind: str
) -> None:
    store = _counting(kind, tmp_path)
    jobs: list[dict[str, Any]] = []
    memory = AsyncMemory(
        "s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append)
    )
    for i in range(10):
        await memory.add(msg(i))
    await memory.wait()
    assert len(jobs) == 1
    for i in range(10, 13):
        store.calls.clear()
        await memory.add(msg(i))
        assert store.calls == TURN[kind], i
    outcome = run_job(ReductionJob.from_dict(jobs[0]), store=store, reducer=reducer())
    assert outcome.status == "committed", outcome.reason
    store.calls.clear()
    await memory.add(msg(13))
    assert store.calls == [*TURN[kind], "load"]
    assert memory.summary is not None and memory.summary.id == outcome.summary_id
    assert memory.size < 13
    await memory.close()


def test_an_append_whose_outcome_is_unknown_is_settled_and_the_copy_read_again(
    tmp_path: Path,
) -> None:
    """A lost reply on the turn's append: appended again (held ids skipped), then read."""
    from summem.errors import StoreOutcomeUnknownError

    class LosesOneReply(CountingMemoryStore):
        lose = False

        def append_probe(self, session_id: str, messages: Any) -> Any:
            found = super().append_probe(session_id, messages)
            if self.lose:
                self.lose = False
                raise StoreOutcomeUnknownError("reply lost", operation="append")
            return found

    store = LosesOneReply()
    jobs: list[dict[str, Any]] = []
    memory = Memory("s", reducer=reducer(), store=store, dispatcher=CallableDispatcher(jobs.append))
    for i in range(10):
        memory.add(msg(i))
    memory.wait()
    store.lose = True
    memory.add(msg(10))
    assert [m.text for m in store.history("s")] == [f"message {i}" for i in range(11)]
    assert memory.size == 11 and len(jobs) == 1
    memory.close()


class Hung:
    """A broker whose publish never returns until released (a stuck connection)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def dispatch(self, job: ReductionJob) -> None:
        self.entered.set()
        self.release.wait()


def test_a_publish_that_hangs_holds_no_turn_and_the_hard_limit_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summem.fleet import publisher

    monkeypatch.setattr(publisher, "CLOSE_FLUSH_SECONDS", 0.1)  # close() gives up, says so
    broker = Hung()
    events: list[MemoryEvent] = []
    memory = Memory(
        "s",
        reducer=reducer(),
        store=SQLiteStore(tmp_path / "s.db"),
        dispatcher=broker,
        hooks=[events.append],
    )
    sizes: list[int] = []

    def turns() -> None:
        for i in range(60):
            memory.add(msg(i))
            sizes.append(len(memory.messages()))
        memory.close()

    runner = threading.Thread(target=turns, daemon=True)
    try:
        runner.start()
        runner.join(120)  # only against a hang: the turns never wait on the publish
        assert not runner.is_alive(), f"a turn waited on the hung publish after {len(sizes)}"
        assert broker.entered.is_set()  # the publish was under way all along
    finally:
        broker.release.set()
    assert len(sizes) == 60 and max(sizes) <= 20
    overdue = [e for e in events if isinstance(e, DispatchOverdue)]
    assert overdue and all(e.size > e.hard_limit == 20 for e in overdue)
    assert [m.text for m in memory.store.history("s")] == [f"message {i}" for i in range(60)]
    memory.store.close()
