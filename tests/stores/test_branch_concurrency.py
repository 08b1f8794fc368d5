"""Appends racing rewrites on one session (threads on every backend, processes where shared).

Whatever interleaving the store picks, every acknowledged message ends in the history or in
exactly one branch: never lost, never twice; positions stay contiguous; each appender's
messages keep their order; every branch is recorded once and holds what it abandoned.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections import Counter
from typing import Any

import pytest

from summem.messages import user
from tests.stores import _branch_workers
from tests.stores.backends import Backend
from tests.stores.helpers import BranchStore, branching

APPENDERS = 3
APPENDS = 400  # messages per appender
REWRITES = 150


def check_branched(store: BranchStore, sid: str, reports: list[dict[str, Any]]) -> None:
    acked = [t for r in reports for t in r["acked"]]
    assert len(acked) == len(set(acked))
    history = [m.text for m in store.history(sid)]
    st = store.load(sid)
    assert st.length == len(history)
    assert [m.text for m in st.tail] == history[st.watermark :]
    branches = store.branches(sid)
    recorded = [b.id for b in branches]
    made = [b for r in reports for b in r.get("branches", [])]
    assert sorted(recorded) == sorted(made)  # each rewrite recorded once
    assert [b for b in recorded if b.startswith("b0-")] == [
        b for b in made if b.startswith("b0-")
    ]  # oldest first
    abandoned: list[str] = []
    for b in branches:
        texts = [m.text for m in store.branch_messages(sid, b.id)]
        assert len(texts) == b.length
        abandoned.extend(texts)
    assert len(abandoned) > 0 and len(branches) > 0  # the race did fork the session
    seen = Counter(history + abandoned)
    assert {t: c for t, c in seen.items() if c > 1} == {}  # never twice
    assert sorted(seen) == sorted(acked)  # never lost, nothing unacknowledged
    for r in reports:
        if "branches" in r:
            continue
        mine = [int(t.split(":")[1]) for t in history if t.split(":")[0] == r["tag"]]
        assert mine == sorted(mine), r["tag"]  # an appender's order is kept
    if st.summary is not None:
        assert st.summary.summary_info is not None
        assert st.summary.summary_info.watermark == st.watermark
    assert 0 <= st.watermark <= st.length


def run_threads(stores: list[BranchStore], sid: str, seed: int) -> list[dict[str, Any]]:
    barrier = threading.Barrier(APPENDERS + 1)
    reports: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def run(i: int) -> None:
        store = stores[i % len(stores)]
        try:
            if i == APPENDERS:
                reports.append(
                    _branch_workers.branch_worker(store, sid, "b0", REWRITES, seed, barrier)
                )
            else:
                reports.append(
                    _branch_workers.append_worker(store, sid, f"a{i}", APPENDS, seed + i, barrier)
                )
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(APPENDERS + 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert errors == []
    return reports


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 2024])
def test_appends_racing_rewrites_in_threads(backend: Backend, seed: int) -> None:
    stores = [
        branching(backend.make()),
        branching(backend.make()),
    ]  # two instances: two clients, two connections
    stores[0].append("R", [user("seed:0")])  # the session exists before the first rewrite
    reports = run_threads(stores, "R", seed)
    reports.append({"tag": "seed", "acked": ["seed:0"]})
    check_branched(stores[1], "R", reports)


@pytest.mark.slow
def test_appends_racing_rewrites_in_processes(multiprocess: Backend) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(APPENDERS + 1), ctx.Queue()
    store = branching(multiprocess.make())
    store.append("P", [user("seed:0")])
    roles = [("append", f"a{i}", APPENDS) for i in range(APPENDERS)] + [("branch", "b0", REWRITES)]
    procs = [
        ctx.Process(
            target=_branch_workers.process_main,
            args=(role, multiprocess.spec, "P", tag, n, 11 + i, barrier, queue),
        )
        for i, (role, tag, n) in enumerate(roles)
    ]
    for p in procs:
        p.start()
    reports = [queue.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [r.get("error") for r in reports] == [None] * len(procs)
    assert [p.exitcode for p in procs] == [0] * len(procs)
    reports.append({"tag": "seed", "acked": ["seed:0"]})
    check_branched(store, "P", reports)
