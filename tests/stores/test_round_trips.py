"""What one turn sends to its store, counted on the connection or client (no timing).

A one-message append, the write of every turn, costs PostgreSQL one round trip (one statement
in autocommit mode: no BEGIN or COMMIT of its own), Redis one ``EVALSHA``, and SQLite one
statement (an ``INSERT`` in SQLite's own transaction, as durable as ``BEGIN IMMEDIATE`` ...
``COMMIT``; a trigger sets the session's length). A turn through :class:`~summem.Memory`
(``add`` + ``messages()``) sends nothing more.

SQLite statements are counted as the store's calls of ``execute`` / ``executemany`` on its
connection (SQLite's trace callback also reports each trigger program a statement runs, the
hidden one of ``RETURNING`` included).

PostgreSQL round trips are counted as calls of psycopg's ``Connection.wait``, through which
psycopg does every exchange with the server (a call may do less than a round trip, never
more: counting them can only overstate).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from summem import AsyncMemory, SummarizationReducer
from summem.fleet import CallableDispatcher, ReductionJob, run_job
from summem.memory import Memory
from summem.messages import user
from tests.fakes.summarizers import FakeSummarizer
from tests.stores.backends import Backend, backend_of

KIND_MODES = [
    ("sqlite", "sync"),
    ("redis", "sync"),
    ("redis", "async"),
    ("postgres", "sync"),
    ("postgres", "async"),
]

# what one one-message append sends, by kind
EXPECTED: dict[str, list[str]] = {
    "sqlite": ["INSERT"],
    "redis": ["EVALSHA"],
    "postgres": ["round trip"],
}


@pytest.fixture(params=KIND_MODES, ids=lambda km: f"{km[0]}-{km[1]}")
def counted(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with backend_of(request.param, tmp_path) as b:
        yield b


@pytest.fixture(
    params=[km for km in KIND_MODES if km[1] == "sync"], ids=lambda km: f"{km[0]}-{km[1]}"
)
def counted_sync(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Memory is sync (AsyncMemory runs the same flow: tests/test_async_parity.py)."""
    with backend_of(request.param, tmp_path) as b:
        yield b


class _Counted:
    """A SQLite connection that records the first word of each statement the store runs."""

    def __init__(self, conn: sqlite3.Connection, sent: list[str]) -> None:
        self._conn, self._sent = conn, sent

    def execute(self, sql: str, *args: Any) -> Any:
        self._sent.append(sql.split()[0].upper())
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        self._sent.append(sql.split()[0].upper())
        return self._conn.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def counter(backend: Backend, store: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list that records, from now on, what ``store`` sends: SQLite statements (first
    word), Redis commands, PostgreSQL round trips."""
    sent: list[str] = []
    raw = backend.raw(store)
    if backend.kind == "sqlite":
        conn: sqlite3.Connection = raw._file._conn()  # this thread's connection
        monkeypatch.setattr(raw._file, "_conn", lambda: _Counted(conn, sent))
    elif backend.kind == "redis":
        client = raw._client
        real = client.execute_command
        if backend.mode == "async":

            async def execute_async(*args: Any, **kwargs: Any) -> Any:
                sent.append(str(args[0]).upper())
                return await real(*args, **kwargs)

            monkeypatch.setattr(client, "execute_command", execute_async)
        else:

            def execute(*args: Any, **kwargs: Any) -> Any:
                sent.append(str(args[0]).upper())
                return real(*args, **kwargs)

            monkeypatch.setattr(client, "execute_command", execute)
    else:
        import psycopg

        cls: Any = psycopg.AsyncConnection if backend.mode == "async" else psycopg.Connection
        wait: Callable[..., Any] = cls.wait
        if backend.mode == "async":

            async def wait_async(conn: Any, *args: Any, **kwargs: Any) -> Any:
                sent.append("round trip")
                return await wait(conn, *args, **kwargs)

            monkeypatch.setattr(cls, "wait", wait_async)
        else:

            def wait_sync(conn: Any, *args: Any, **kwargs: Any) -> Any:
                sent.append("round trip")
                return wait(conn, *args, **kwargs)

            monkeypatch.setattr(cls, "wait", wait_sync)
    return sent


def test_a_one_message_append_sends_the_least_its_store_needs(
    counted: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = counted.make()
    for i in range(3):  # the session exists; the connections are open and set up
        store.append("s", [user(f"warm {i}")])
    sent = counter(counted, store, monkeypatch)
    for i in range(3):
        sent.clear()
        assert store.append("s", [user(f"turn {i}")]) == 4 + i
        assert sent == EXPECTED[counted.kind], i
    monkeypatch.undo()
    assert [m.text for m in store.history("s")][-3:] == ["turn 0", "turn 1", "turn 2"]


def test_an_append_of_held_messages_is_one_round_trip_and_stores_nothing_twice(
    counted: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = counted.make()
    first, second = user("a"), user("b")
    assert store.append("s", [first]) == 1
    assert store.append("s", [second]) == 2
    sent = counter(counted, store, monkeypatch)
    assert store.append("s", [first]) == 2  # held: nothing added
    assert store.append("s", [second, user("c"), second]) == 3  # one new, once
    if counted.kind != "sqlite":  # SQLite falls back to reading the session first
        assert sent == EXPECTED[counted.kind] * 2
    monkeypatch.undo()
    assert [m.text for m in store.history("s")] == ["a", "b", "c"]


def test_a_turn_through_memory_sends_one_append(
    counted_sync: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = counted_sync
    store = counted.make()
    memory = Memory("s", store=store)
    for i in range(3):
        memory.add({"role": "user", "content": f"warm {i}"})
        memory.messages()
    sent = counter(counted, store, monkeypatch)
    for i in range(3):
        sent.clear()
        memory.add({"role": "user", "content": f"turn {i}"})
        assert memory.messages()[-1]["content"] == f"turn {i}"
        assert sent == EXPECTED[counted.kind], i
    memory.close()


# -- a memory with a dispatcher (summem.fleet) while a reduction job is out -----------------

# a turn of such a memory notices a worker's commit by the session's version: a store that
# reports it with the append (ProbingAppendStore, every store here) costs what a plain append
# costs
DISPATCHED: dict[str, int] = {"sqlite": 1, "postgres": 1, "redis": 1}


def _fleet_reducer() -> SummarizationReducer:
    """Messages: a job past 9, down to 6; a turn truncates past 20."""
    return SummarizationReducer(
        FakeSummarizer(),
        threshold_messages=12,
        target_messages=6,
        soft_threshold_messages=9,
        hard_limit_messages=20,
    )


def test_a_dispatched_turn_with_a_job_out_sends_one_append_and_notices_the_commit(
    counted_sync: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = counted_sync
    store = counted.make()
    jobs: list[dict[str, Any]] = []
    memory = Memory(
        "s", reducer=_fleet_reducer(), store=store, dispatcher=CallableDispatcher(jobs.append)
    )
    for i in range(10):
        memory.add({"role": "user", "content": f"warm {i}"})
    memory.wait()
    assert len(jobs) == 1  # a job is out from here on
    for i in range(3):  # each pooled connection set up for these turns (autocommit)
        memory.add({"role": "user", "content": f"out {i}"})
    sent = counter(counted, store, monkeypatch)
    for i in range(2):
        sent.clear()
        memory.add({"role": "user", "content": f"turn {i}"})
        assert len(sent) == DISPATCHED[counted.kind], (i, sent)
        assert sent == EXPECTED[counted.kind], i
    assert memory.size == 15 and memory.summary is None
    worker = counted.make()  # a worker's store: its own connections
    outcome = run_job(ReductionJob.from_dict(jobs[0]), store=worker, reducer=_fleet_reducer())
    assert outcome.status == "committed", outcome.reason
    sent.clear()
    memory.add({"role": "user", "content": "after the commit"})  # noticed: the view shrinks
    assert memory.summary is not None and memory.summary.id == outcome.summary_id
    assert memory.size < 15
    assert len(sent) > DISPATCHED[counted.kind]  # and the tail was read
    monkeypatch.undo()
    memory.close()


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("redis", marks=pytest.mark.redis),
    ],
)
async def test_an_async_dispatched_turn_is_one_round_trip(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with backend_of((kind, "async"), tmp_path) as counted:
        store = counted.native()
        jobs: list[dict[str, Any]] = []
        memory = AsyncMemory(
            "s", reducer=_fleet_reducer(), store=store, dispatcher=CallableDispatcher(jobs.append)
        )
        for i in range(10):
            await memory.add({"role": "user", "content": f"warm {i}"})
        await memory.wait()
        assert len(jobs) == 1
        for i in range(3):  # each pooled connection set up for these turns (autocommit)
            await memory.add({"role": "user", "content": f"out {i}"})
        sent = counter(counted, store, monkeypatch)
        for i in range(2):
            sent.clear()
            await memory.add({"role": "user", "content": f"turn {i}"})
            assert sent == EXPECTED[kind], i
        monkeypatch.undo()
        worker = counted.native("sync")
        try:
            job = ReductionJob.from_dict(jobs[0])
            outcome = run_job(job, store=worker, reducer=_fleet_reducer())
        finally:
            worker.close()
        assert outcome.status == "committed", outcome.reason
        await memory.add({"role": "user", "content": "after the commit"})
        assert memory.summary is not None and memory.summary.id == outcome.summary_id
        assert memory.size < 15
        await memory.close()
