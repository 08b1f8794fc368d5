"""Memory under crashes, cancellation, concurrent writers and random interleavings (I1-I4)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from summem.async_memory import AsyncMemory
from summem.errors import MessageValidationError
from summem.memory import Memory
from summem.session.worker import STARTER, BackgroundWorker
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import AsyncStore, Store
from summem.stores.memory import InMemoryStore
from summem.stores.sqlite import SQLiteStore
from tests.fakes.counters import words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import a, call, res, u
from tests.fakes.summarizers import FakeSummarizer, GatedSummarizer
from tests.stores.backends import (
    KINDS,
    MULTIPROCESS_PARAMS,
    Backend,
    backend_of,
    params,
    unique_prefix,
)

ROOT = Path(__file__).resolve().parents[1]

CRASHING_CHILD = """
import json, os, sys
from summem.memory import Memory
from tests.stores._workers import open_spec
from summem.summarizers.base import SummaryOutput
from summem._flow import done
from tests.fakes.counters import WordCounter, words
from tests.fakes.memory import small_reducer
from tests.fakes.messages import u

where = sys.argv[2]

class Crashing:
    name = "crashing"
    def summarize(self, request):
        if where == "summarizer":
            os._exit(17)  # killed while the model answers
        return done(SummaryOutput(text="never committed", summarizer=self.name))

store = open_spec(tuple(json.loads(sys.argv[1])))
if where == "commit":
    def commit(*args, **kwargs):
        os._exit(17)  # killed between the summarizer's reply and the commit
    store.commit = commit
memory = Memory("s", reducer=small_reducer(Crashing()), store=store, lease_ttl_seconds=0.1)
for i in range(12):
    memory.add(u(words(7, f"m{i}")))
raise SystemExit("the reduction never ran")
"""


@pytest.mark.parametrize("where", ["summarizer", "commit"])
@pytest.mark.parametrize("kind_mode", MULTIPROCESS_PARAMS)
def test_a_crash_before_the_commit_loses_nothing_and_the_work_is_redone_once(
    tmp_path: Path, where: str, kind_mode: tuple[str, str]
) -> None:
    with backend_of(kind_mode, tmp_path) as backend:
        crash_and_restart(backend.spec, where, backend.make())


def crash_and_restart(spec: tuple[str, ...], where: str, store: Store) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CRASHING_CHILD), json.dumps(spec), where],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 17, proc.stderr
    state = store.load("s")
    assert state.length == 11 and state.watermark == 0 and state.summary is None
    assert [m.text for m in store.history("s")] == [words(7, f"m{i}") for i in range(11)]
    wait_for_lease_expiry(store, "s")  # the dead worker's
    summarizer = FakeSummarizer()
    memory = Memory("s", reducer=small_reducer(summarizer), store=store)
    assert [m.id for m in memory.view()] == [m.id for m in store.history("s")]  # old view
    memory.add(u("after restart"))
    assert len(summarizer.requests) == 1  # the lost reduction, redone once
    assert memory.summary is not None and memory.size <= 100
    check_session(store, "s", memory.view())


def wait_for_lease_expiry(store: Store, session_id: str) -> None:
    """Poll until nobody holds ``session_id``'s lease (server clocks: no fake clock to turn)."""
    deadline = time.monotonic() + 30  # generous: a loaded machine, not a guess at a TTL
    while not store.acquire_lease(session_id, "expiry-probe", 1.0):
        assert time.monotonic() < deadline, "the dead worker's lease never expired"
        time.sleep(0.01)
    store.release_lease(session_id, "expiry-probe")


@pytest.fixture(params=params(where=lambda kind, mode: mode == "async"))
async def async_stores(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[AsyncStore, Store]]:
    """An async store, and a sync store on the same data to check it with."""
    with backend_of(request.param, tmp_path) as backend:
        store: AsyncStore = backend.native()
        raw: Store = backend.native("sync")
        yield store, raw
        raw.delete("s")
        await store.close()
        raw.close()


async def test_cancelling_a_turn_during_the_summarizer_commits_nothing_and_frees_the_lease(
    async_stores: tuple[AsyncStore, Store],
) -> None:
    store, raw = async_stores
    summarizer = GatedSummarizer()
    memory = AsyncMemory("s", reducer=small_reducer(summarizer), store=store)
    for i in range(10):
        await memory.add(u(words(7, f"m{i}")))
    task = asyncio.create_task(memory.add(u(words(7, "over"))))
    while not summarizer.gate.started.is_set():
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    state = raw.load("s")
    assert state.summary is None and state.version == 0 and state.length == 11
    assert raw.acquire_lease("s", "someone-else", 1.0), "the lease is still held"
    raw.release_lease("s", "someone-else")
    summarizer.gate.release.set()
    await memory.add(u("next"))
    assert memory.summary is not None
    check_session(raw, "s", await memory.view())


async def test_cancelling_the_background_task_commits_nothing_and_frees_the_lease(
    async_stores: tuple[AsyncStore, Store],
) -> None:
    store, raw = async_stores
    summarizer = GatedSummarizer()
    memory = AsyncMemory(
        "s", reducer=small_reducer(summarizer, soft_threshold_tokens=80), store=store
    )
    for i in range(9):
        await memory.add(u(words(7, f"m{i}")))
    while not summarizer.gate.started.is_set():
        await asyncio.sleep(0.001)
    assert memory._task is not None
    memory._task.cancel()
    await memory.wait()
    assert raw.load("s").summary is None and raw.acquire_lease("s", "other", 1.0)
    raw.release_lease("s", "other")
    summarizer.gate.release.set()
    await memory.add(u(words(7, "later")))
    await memory.wait()
    assert memory.summary is not None
    check_session(raw, "s", await memory.view())


class SlowLeaseStore(InMemoryStore):
    """Grants the lease, then answers only once ``answer`` is set (a slow store round trip)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked, self.answer, self.answered = (threading.Event() for _ in range(3))

    def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        granted = super().acquire_lease(session_id, owner, ttl_seconds)
        self.asked.set()
        assert self.answer.wait(timeout=20), "never answered"
        self.answered.set()
        return granted


@pytest.mark.parametrize("what", ["reduce", "recompute"])
async def test_cancelling_while_the_lease_is_being_taken_leaves_no_lease(what: str) -> None:
    raw = SlowLeaseStore()
    raw.answer.set()
    memory = AsyncMemory("s", reducer=small_reducer(), store=AsyncStoreAdapter(raw, offload=True))
    for i in range(12):
        await memory.add(u(words(7, f"m{i}")))
    assert memory.summary is not None
    raw.answer.clear()
    raw.asked.clear()
    task = asyncio.create_task(memory.reduce() if what == "reduce" else memory.recompute())
    for _ in range(20_000):  # until the store granted the lease; its answer is on the way
        if raw.asked.is_set():
            break
        await asyncio.sleep(0.001)
    task.cancel()
    raw.answer.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert raw.answered.wait(timeout=20)
    await asyncio.sleep(0)
    assert raw.acquire_lease("s", "someone-else", 1.0), "the cancelled call kept the lease"
    await memory.close()


def test_threads_writing_through_two_memories_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    errors: list[BaseException] = []

    def writer(tag: str) -> None:
        try:
            memory = Memory("s", reducer=small_reducer(), store=SQLiteStore(db))
            for i in range(40):
                memory.add(u(f"{tag} {i} " + words(6)))
            memory.close()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in ("A", "B")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    store = SQLiteStore(db)
    texts = [m.text.split()[:2] for m in store.history("s")]
    for tag in ("A", "B"):
        assert [int(n) for t, n in texts if t == tag] == list(range(40))
    check_session(store, "s")


def test_background_memory_over_sqlite_with_a_second_worker(tmp_path: Path) -> None:
    db = tmp_path / "bg.db"
    reducer = small_reducer(soft_threshold_tokens=80)
    one = Memory("s", reducer=reducer, store=SQLiteStore(db))
    two = Memory("s", reducer=small_reducer(soft_threshold_tokens=80), store=SQLiteStore(db))
    for i in range(30):
        (one if i % 2 else two).add(u(words(7, f"m{i}")))
    one.wait()
    two.wait()
    one.refresh()
    store = SQLiteStore(db)
    assert len(store.history("s")) == 30
    check_session(store, "s", one.view())


def test_the_background_worker_is_reused_and_exits_when_idle() -> None:
    runs: list[str] = []
    worker = BackgroundWorker(
        lambda: runs.append(threading.current_thread().name), name="w", idle_seconds=0.05
    )
    worker.prestart()
    assert worker.submit()
    worker.join()
    assert worker.submit()
    worker.join()
    assert runs == ["w", "w"] and not worker.busy
    deadline = time.monotonic() + 10  # a loaded machine may take a while to run the thread
    while worker._thread is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert worker._thread is None  # exited when idle; started again on demand
    assert worker.submit()
    worker.join()
    worker.stop()
    assert not worker.submit() and len(runs) == 3


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@pytest.mark.parametrize("soft", [None, 80])
def test_one_async_memory_shared_by_threads_each_running_its_own_loop(
    tmp_path: Path, backend: str, soft: int | None
) -> None:
    """As sync entry points do (asyncio.run per thread): no error, no hang, nothing lost."""
    store: Store = InMemoryStore() if backend == "memory" else SQLiteStore(tmp_path / "t.db")
    memory = AsyncMemory("s", reducer=small_reducer(soft_threshold_tokens=soft), store=store)
    start = threading.Barrier(3)
    errors: list[BaseException] = []

    def thread(tag: str) -> None:
        start.wait()

        async def turns() -> None:
            for i in range(25):
                await memory.add(u(f"{tag} {i} " + words(6)))
                await memory.view()
            await memory.wait()

        try:
            asyncio.run(turns())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=thread, args=(t,)) for t in "ABC"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    asyncio.run(memory.close())
    texts = [m.text.split()[:2] for m in store.history("s")]
    for tag in "ABC":
        assert [int(n) for t, n in texts if t == tag] == list(range(25))
    assert store.load("s").summary is not None
    check_session(store, "s")


async def test_async_memory_over_sqlite_url(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    async with AsyncMemory("s", reducer=small_reducer(soft_threshold_tokens=80), store=url) as m:
        for i in range(25):
            await m.add(u(words(7, f"m{i}")))
        await m.wait()
        assert m.summary is not None
        view = await m.view()
    store = SQLiteStore(tmp_path / "a.db")
    check_session(store, "s", view)
    assert len(store.history("s")) == 25


# -- random interleavings -----------------------------------------------------------------------


class MemoryMachine(RuleBasedStateMachine):
    """Random adds (tool groups included), reductions, clears and reloads on one store."""

    kind = "memory"
    background = False

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        self.sid = f"hyp-{uuid.uuid4().hex[:8]}"
        self.store = self._make_store()
        self.expected: list[str] = []
        self.pending: list[str] = []
        self.watermark = 0
        self.view_current = True
        self.n = 0
        self.memory = self._memory()

    def _make_store(self) -> Store:
        self.backend = Backend(self.kind, "sync", Path(self.tmp.name), prefix=unique_prefix())
        return cast(Store, self.backend.native("sync"))

    def _memory(self) -> Memory:
        soft = {"soft_threshold_tokens": 80} if self.background else {}
        reducer = small_reducer(FakeSummarizer(), **soft)
        return Memory(self.sid, reducer=reducer, store=self.store)

    def _accepted(self, messages: list[Any]) -> None:
        self.expected.extend(m.id for m in messages if not m.is_system)
        self.view_current = True

    @initialize()
    def start(self) -> None:
        self.memory.add({"role": "system", "content": "sys"})

    @rule(n_words=st.integers(1, 25))
    def add_user(self, n_words: int) -> None:
        self._accepted([self.memory.add(u(words(n_words, f"u{self.n}")))])
        self.n += 1

    @rule(k=st.integers(1, 3), n_words=st.integers(0, 10))
    def add_call(self, k: int, n_words: int) -> None:
        ids = [f"c{self.n}-{j}" for j in range(k)]
        self.n += 1
        msg = call(*ids)
        if n_words:
            msg["content"] = words(n_words)
        self._accepted([self.memory.add(msg)])
        self.pending.extend(ids)

    @precondition(lambda self: bool(self.pending))
    @rule(data=st.data())
    def answer(self, data: st.DataObject) -> None:
        call_id = data.draw(st.sampled_from(self.pending))
        self._accepted([self.memory.add(res(call_id, words(5)))])
        self.pending.remove(call_id)

    @rule(n=st.integers(1, 3))
    def add_group_batch(self, n: int) -> None:
        batch: list[Any] = []
        for _ in range(n):
            cid = f"b{self.n}"
            self.n += 1
            batch += [u(words(6)), call(cid), res(cid, words(12)), a(words(9))]
        self._accepted(self.memory.extend(batch))

    @rule()
    def bad_batch_changes_nothing(self) -> None:
        with pytest.raises(MessageValidationError):
            self.memory.extend([u("lost"), res("no-such-call")])

    @rule()
    def reduce(self) -> None:
        self.memory.reduce()

    @rule()
    def clear(self) -> None:
        self.memory.clear()
        self.expected, self.pending, self.watermark = [], [], 0
        self.view_current = True

    @rule()
    def reload(self) -> None:
        self.memory.close()
        self.memory = self._memory()
        self.view_current = True

    @rule()
    def other_worker_appends(self) -> None:
        other = self._memory()
        self.expected.append(other.add(u(words(4, "other"))).id)
        other.close()
        self.view_current = False  # this memory sees it on its next write or refresh

    @invariant()
    def history_complete_view_consistent_tools_paired(self) -> None:
        self.memory.wait()  # background mode: let the reduction in flight land first
        assert [m.id for m in self.store.history(self.sid)] == self.expected  # I1
        check_session(self.store, self.sid, self.memory.view() if self.view_current else None)
        if self.store.exists(self.sid):
            k = self.store.load(self.sid).watermark
            assert k >= self.watermark  # I2: the watermark never moves back
            self.watermark = k

    def teardown(self) -> None:
        self.memory.close()
        self.store.delete(self.sid)
        self.store.close()
        self.tmp.cleanup()


class LoopMemory:
    """An AsyncMemory driven from sync rule code on a private event loop (test-only)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, memory: AsyncMemory) -> None:
        self.loop, self.inner = loop, memory

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        return lambda *args, **kw: self.loop.run_until_complete(method(*args, **kw))


class AsyncMemoryMachine(MemoryMachine):
    """The same rules through AsyncMemory over the async twin of each store."""

    def _make_store(self) -> Store:
        self.loop = asyncio.new_event_loop()
        store = super()._make_store()
        self.async_store: AsyncStore = self.backend.native("async")  # on the same data
        return store

    def _memory(self) -> Memory:
        soft = {"soft_threshold_tokens": 80} if self.background else {}
        memory = AsyncMemory(
            self.sid, reducer=small_reducer(FakeSummarizer(), **soft), store=self.async_store
        )
        return cast(Memory, LoopMemory(self.loop, memory))

    def teardown(self) -> None:
        super().teardown()  # closes the memory (on the loop) and the sync store
        self.loop.run_until_complete(self.async_store.close())
        self.loop.run_until_complete(self.loop.shutdown_default_executor())
        self.loop.close()


# a share of the loaded profile (tests/conftest.py), each example being a new store and memory:
# 10 runs of 25 steps by default, 200 of 50 under the thorough profile
_PROFILE = settings()  # the values of the profile tests/conftest.py loaded
FAST = settings(
    max_examples=_PROFILE.max_examples // 5,
    stateful_step_count=_PROFILE.stateful_step_count // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


MACHINE_PARAMS = [
    *(
        pytest.param(kind.name, mode, background, id=f"{kind.name}-{mode}", marks=kind.marks)
        for kind in KINDS.values()
        for mode, background in (("sync", False), ("async-background", True))
    ),
    # and the other two combinations on one in-process backend each
    pytest.param("sqlite", "sync-background", True, id="sqlite-sync-background"),
    pytest.param("memory", "async", False, id="memory-async"),
]
"""Every registered backend under the sync machine and under the async one reducing in the
background, plus a background sync run and a foreground async run."""


@pytest.mark.slow
@pytest.mark.hypothesis  # as @given tests are: the thorough run (.ci/run) selects it
@pytest.mark.parametrize(("kind", "mode", "background"), MACHINE_PARAMS)
def test_memory_machine(kind: str, mode: str, background: bool) -> None:
    KINDS[kind].require()
    from hypothesis.stateful import run_state_machine_as_test

    base: type[MemoryMachine] = AsyncMemoryMachine if mode.startswith("async") else MemoryMachine
    name = f"{base.__name__}On{kind.title()}"
    machine = type(name, (base,), {"kind": kind, "background": background})
    run_state_machine_as_test(machine, settings=FAST)


def test_no_turn_starts_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting a thread waits for the OS to schedule it: the turn that needs the worker's
    thread (first use, or after an idle exit) only asks the process's starter for it."""
    started_by: list[str] = []
    start = threading.Thread.start

    def spy(thread: threading.Thread) -> None:
        started_by.append(threading.current_thread().name)
        start(thread)

    summarizer = FakeSummarizer(reply="s")
    memory = Memory("s", reducer=small_reducer(summarizer, soft_threshold_tokens=80))
    me = threading.current_thread().name
    monkeypatch.setattr(threading.Thread, "start", spy)
    memory._worker._idle = 0.05
    for round_ in range(2):
        for i in range(12):  # past the target (prestart), then the soft threshold (submit)
            memory.add(u(words(7, f"m{round_}-{i}")))
        memory.wait()
        deadline = time.monotonic() + 10  # a loaded machine may take a while to run it
        while memory._worker._thread is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert memory._worker._thread is None  # exited when idle: the next round restarts it
    assert len(summarizer.requests) >= 2  # reductions ran in the worker, both rounds
    assert me not in started_by and started_by.count("summem-starter") >= 2
    memory.close()


class _Blocker:
    """A starter request that holds the starter until released."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def _spawn(self) -> None:
        self.entered.set()
        self.release.wait()


def test_a_worker_stopped_before_its_thread_starts_never_starts_it() -> None:
    runs: list[int] = []
    worker = BackgroundWorker(lambda: runs.append(1), name="w")
    worker.ready()
    blocker = _Blocker()
    STARTER.request(cast("BackgroundWorker", blocker))
    assert blocker.entered.wait(10)
    worker.prestart()  # queued behind the blocker
    stopper = threading.Thread(target=worker.stop)
    stopper.start()
    deadline = time.monotonic() + 10
    while not worker._stopping and time.monotonic() < deadline:
        time.sleep(0.001)
    blocker.release.set()
    stopper.join(10)
    assert not stopper.is_alive() and worker._thread is None and runs == []


def test_a_thread_that_cannot_start_leaves_the_worker_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start = threading.Thread.start

    def refuse(thread: threading.Thread) -> None:
        if thread.name == "w":
            raise RuntimeError("can't start new thread")
        start(thread)

    worker = BackgroundWorker(lambda: None, name="w")
    worker.ready()
    monkeypatch.setattr(threading.Thread, "start", refuse)
    assert worker.submit()
    worker.join()  # the starter gave up: nothing pending, nothing running
    assert not worker.busy and worker._thread is None
    monkeypatch.undo()
    assert worker.submit()
    worker.join()
    worker.stop()
