"""A spend budget is never passed by memories racing for it: threads, and processes.

Every racer reaches its budget check before any call is charged (see
:mod:`tests.stores._spend_workers`): with a check and a charge in separate steps, all of them
call the LLM. With a reservation taken atomically in the store, at most what the budget
allows is ever called.
"""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import pytest

from tests.stores import _spend_workers as w
from tests.stores.backends import Backend

BUDGET_CALLS = 5  # what the limits of _spend_workers.limit_of allow, one call at a time


@pytest.mark.parametrize("limit", ["tokens", "cost"])
def test_threads_never_pass_the_budget(sync_backend: Backend, limit: str) -> None:
    store = sync_backend.make()
    ctx = multiprocessing.get_context("spawn")
    gate = w.Gate(ctx, 8)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            w.race(store, f"acme:t{i}", gate, limit)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert errors == []
    assert 1 <= gate.calls.value <= BUDGET_CALLS


@pytest.mark.slow
def test_processes_with_threads_never_pass_the_budget(multiprocess: Backend) -> None:
    ctx = multiprocessing.get_context("spawn")
    gate, queue = w.Gate(ctx, 6), ctx.Queue()
    procs = [
        ctx.Process(target=w.process_main, args=(multiprocess.spec, f"p{i}", 2, gate, queue))
        for i in range(3)
    ]
    for p in procs:
        p.start()
    reports: list[dict[str, Any]] = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert [r["errors"] for r in reports] == [[], [], []]
    assert 1 <= gate.calls.value <= BUDGET_CALLS
