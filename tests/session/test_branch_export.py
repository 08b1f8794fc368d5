"""``to_dict()`` / ``from_dict()`` carry a session's branches (issue #28).

Each branch comes back with its id, fork position and abandoned messages; the history, the
summary and the view are the exported ones; a bad branch record is refused before anything is
written, and a resume that fails (or is cancelled) midway leaves no session behind.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.errors import StoreError
from summem.memory import Memory
from summem.stores.memory import AsyncInMemoryStore, InMemoryStore
from tests.fakes.counters import words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import u
from tests.stores.backends import BACKEND_PARAMS, backend_of


def branched_session() -> Memory:
    """A reduced session with three branches: inside the summary, a pop, past the watermark."""
    memory = Memory("s", reducer=small_reducer())
    for i in range(24):
        memory.add(u(words(7, f"m{i}-")))
    memory.branch(9, [u("nine, edited")])
    memory.pop(2)
    for i in range(10):
        memory.add(u(words(7, f"n{i}-")))
    memory.branch(memory.summary.summary_info.watermark + 1)  # type: ignore[union-attr]
    return memory


def exported() -> dict[str, Any]:
    memory = branched_session()
    data: dict[str, Any] = json.loads(json.dumps(memory.to_dict()))  # as it travels
    assert len(data["branches"]) == 3 and data["summary"] is not None
    return data


def test_a_session_that_never_branched_exports_as_before() -> None:
    memory = Memory("plain")
    memory.add(u("hi"))
    assert "branches" not in memory.to_dict()


@pytest.mark.parametrize("kind_mode", BACKEND_PARAMS)
async def test_branches_survive_a_round_trip(kind_mode: Any, tmp_path: Path) -> None:
    source = branched_session()
    data = json.loads(json.dumps(source.to_dict()))
    with backend_of(kind_mode, tmp_path) as backend:
        store = backend.native()
        if backend.mode == "sync":
            memory: Any = Memory.from_dict(data, store=store)
            branches, view = memory.branches(), memory.messages()
            history = memory.history()
            messages = {b.id: memory.branch_messages(b.id) for b in branches}
            check_session(store, "s", memory.view())
            again = memory.to_dict()
            memory.close()
            store.close()
        else:
            memory = await AsyncMemory.from_dict(data, store=store)
            branches, view = await memory.branches(), await memory.messages()
            history = await memory.history()
            messages = {b.id: await memory.branch_messages(b.id) for b in branches}
            again = await memory.to_dict()
            await memory.close()
            await store.close()
    assert [(b.id, b.at, b.length) for b in branches] == [
        (b.id, b.at, b.length) for b in source.branches()
    ]
    assert messages == {b.id: source.branch_messages(b.id) for b in source.branches()}
    assert history == source.history() and view == source.messages()
    strip = [
        {k: v for k, v in b.items() if k not in ("created_at", "summary_id", "watermark")}
        for b in again["branches"]
    ]
    assert strip == [
        {k: v for k, v in b.items() if k not in ("created_at", "summary_id", "watermark")}
        for b in data["branches"]
    ]


@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        (lambda d: d["branches"][0].update(at=999), "branches[0] forks at 999"),
        (lambda d: d["branches"][1].update(id=d["branches"][0]["id"]), "branches[1] needs an id"),
        (lambda d: d["branches"][2].update(messages="x"), "branches[2]: 'messages'"),
        (lambda d: d["branches"][0]["messages"][0].update(m=3), "branches[0].messages[0]"),
        (lambda d: d.update(branches={"not": "a list"}), "'branches' must be a list"),
        (
            lambda d: d["branches"][2]["messages"].append(d["history"][0]),
            "branches[2] repeats the id",
        ),
    ],
)
def test_a_bad_branch_record_is_refused_and_nothing_is_written(tamper: Any, named: str) -> None:
    data = exported()
    tamper(data)
    store = InMemoryStore()
    with pytest.raises(StoreError, match=named.replace("[", r"\[").replace("]", r"\]")):
        Memory.from_dict(data, store=store)
    assert store.list_sessions() == []


class FailingRewrite(InMemoryStore):
    """Fails the ``fail_at``-th rewrite (after the session was created)."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at, self.rewrites = fail_at, 0

    def rewrite(self, session_id: str, **kw: Any) -> int:
        self.rewrites += 1
        if self.rewrites == self.fail_at:
            raise StoreError("disk full")
        return super().rewrite(session_id, **kw)


@pytest.mark.parametrize("fail_at", [1, 3])
def test_a_resume_failing_midway_leaves_no_session(fail_at: int) -> None:
    data = exported()
    store = FailingRewrite(fail_at)
    with pytest.raises(StoreError, match="disk full"):
        Memory.from_dict(data, store=store)
    assert store.list_sessions() == [] and not store.exists("s")
    store.fail_at = 0
    memory = Memory.from_dict(data, store=store)  # nothing left in the way: it resumes
    assert len(memory.branches()) == 3


async def test_a_resume_cancelled_midway_leaves_no_session() -> None:
    data = exported()
    reached, never = asyncio.Event(), asyncio.Event()

    class Stuck(AsyncInMemoryStore):
        async def rewrite(self, session_id: str, **kw: Any) -> int:
            reached.set()
            await never.wait()
            raise AssertionError("not reached")

    store = Stuck()
    task = asyncio.ensure_future(AsyncMemory.from_dict(data, store=store))
    await reached.wait()
    assert await store.exists("s")  # created, being replayed
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not await store.exists("s")


def test_the_exported_dict_is_not_changed_by_resuming_it() -> None:
    data = exported()
    kept = copy.deepcopy(data)
    Memory.from_dict(data)
    assert data == kept
