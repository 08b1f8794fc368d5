"""Concurrent writers on one session: threads, two store instances, two processes.

Nothing accepted may be lost or duplicated, each writer's order is kept, batches stay whole,
the watermark never moves back, and every committed summary builds on the one before it (a
lost update would break that chain).
"""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import pytest

from summem.messages import user
from summem.stores.base import Store
from tests.stores import _workers
from tests.stores.backends import Backend


def check_history(store: Store, sid: str, reports: list[dict[str, Any]], n: int) -> None:
    texts = [m.text for m in store.history(sid)]
    assert len(texts) == len(set(texts)) == n * len(reports)
    for report in reports:
        tag = report["tag"]
        mine = [int(t.split(":")[1]) for t in texts if t.split(":")[0] == tag]
        assert mine == list(range(n)), tag  # each once, in this writer's order
        assert report["observed"] == sorted(report["observed"]), tag
    infos = [s.summary_info for s in store.summaries(sid)]
    log = [info.watermark for info in infos if info is not None]
    assert log == sorted(log)  # the watermark never moved back
    ids = [None] + [s.id for s in store.summaries(sid)]
    chain = [info.previous_summary_id for info in infos if info is not None]
    assert chain == ids[:-1]  # each commit built on the one before it: no lost update
    st = store.load(sid)
    assert sum(r["commits"] for r in reports) == len(log) == st.version >= 1
    assert st.watermark == log[-1] and st.length == n * len(reports)


def test_threads_append_to_one_session(store: Store) -> None:
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def run(t: int) -> None:
        try:
            barrier.wait(timeout=10)
            for i in range(50):
                store.append("T", [user(f"t{t}:{i}")])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert errors == []
    texts = [m.text for m in store.history("T")]
    assert len(texts) == len(set(texts)) == 400
    for t in range(8):
        assert [x for x in texts if x.startswith(f"t{t}:")] == [f"t{t}:{i}" for i in range(50)]
    assert store.load("T").length == 400


def test_two_store_instances_append_and_commit(backend: Backend) -> None:
    """Two instances (two Redis clients, two SQLite connections) race on one session."""
    stores = [backend.make(), backend.make()]
    barrier = threading.Barrier(2)
    reports: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            reports.append(_workers.write(stores[i], "S", f"w{i}", 60, barrier))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert errors == []
    check_history(stores[0], "S", reports, 60)


@pytest.mark.slow
def test_two_processes_append_and_commit(multiprocess: Backend) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    n = 100
    procs = [
        ctx.Process(
            target=_workers.process_main,
            args=(multiprocess.spec, "P", f"p{i}", n, barrier, queue),
        )
        for i in range(2)
    ]
    for p in procs:
        p.start()
    reports = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert [r.get("error") for r in reports] == [None, None]
    assert [p.exitcode for p in procs] == [0, 0]
    check_history(multiprocess.make(), "P", reports, n)


def test_appends_of_the_same_messages_racing_store_each_once(backend: Backend) -> None:
    """A retried append racing the one it retries (a lost reply while the first still waits
    for the lock): four threads on two instances append the same messages, one at a time."""
    stores = [backend.make(), backend.make()]
    messages = [user(f"m{i}") for i in range(40)]
    barrier = threading.Barrier(4)
    lengths: list[list[int]] = [[] for _ in range(4)]
    errors: list[BaseException] = []

    def run(t: int) -> None:
        try:
            barrier.wait(timeout=10)
            for m in messages:
                lengths[t].append(stores[t % 2].append("R", [m]))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert errors == []
    assert [m.id for m in stores[0].history("R")] == [m.id for m in messages]
    assert stores[1].load("R").length == 40
    for seen in lengths:  # each reply: a length that holds the message, never shrinking
        assert seen == sorted(seen) and all(n >= i + 1 for i, n in enumerate(seen))
