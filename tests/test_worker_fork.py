"""A background worker copied into a forked child works there (it starts its own thread)."""

from __future__ import annotations

import os

import pytest

from summem.session.worker import BackgroundWorker
from tests.fakes.fork import in_forked_child

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_a_child_forked_while_the_thread_was_being_started_can_stop_and_submit() -> None:
    ran: list[int] = []
    worker = BackgroundWorker(lambda: ran.append(os.getpid()), name="t", idle_seconds=5)
    worker.ready()

    def child() -> str:
        worker.stop()  # the parent's pending start is not the child's: it must not wait for it
        fresh = BackgroundWorker(lambda: ran.append(os.getpid()), name="t2")
        fresh.submit()
        fresh.join()
        return f"stopped ran={len(ran)}"

    with worker._cv:  # the starter cannot start the thread before the fork
        worker._pending = True
        worker._ensure_thread()
        result = in_forked_child(child)
    assert result == "stopped ran=1"
    worker.join()  # the parent's run goes ahead
    assert ran == [os.getpid()]
    worker.stop()


def test_a_worker_whose_thread_ran_in_the_parent_runs_its_job_in_the_child() -> None:
    ran: list[int] = []
    worker = BackgroundWorker(lambda: ran.append(os.getpid()), name="t", idle_seconds=30)
    worker.ready()
    assert worker.submit()
    worker.join()  # the parent's thread is up and idle when the process forks

    def child() -> str:
        before = len(ran)
        if not worker.submit():
            return "refused"
        worker.join()
        worker.stop()
        return "ran" if len(ran) == before + 1 and ran[-1] == os.getpid() else f"not run {ran}"

    assert in_forked_child(child) == "ran"
    worker.stop()
