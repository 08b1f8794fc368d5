"""The store's operations as typed flow steps, run by the matching driver only."""

from __future__ import annotations

import pytest

from summem._flow import Flow, run_async, run_sync
from summem.errors import ConflictError
from summem.messages import Message
from summem.session.steps import AsyncStoreSteps, StoreSteps, SyncStoreSteps
from summem.stores.memory import AsyncInMemoryStore, InMemoryStore


def session_flow(steps: StoreSteps) -> Flow[tuple[int, int, list[str]]]:
    n = yield from steps.append("s", [Message.from_openai({"role": "user", "content": "hi"})])
    yield from steps.set_system("s", Message.from_openai({"role": "system", "content": "sys"}))
    state = yield from steps.load("s")
    version = yield from steps.commit(
        "s", summary=None, watermark=1, expected_version=state.version, expected_epoch=state.epoch
    )
    history = yield from steps.history("s", 0, None)
    return n, version, [m.text for m in history]


def test_sync_steps_call_the_sync_store() -> None:
    assert run_sync(session_flow(SyncStoreSteps(InMemoryStore()))) == (1, 1, ["hi"])


async def test_async_steps_await_the_async_store() -> None:
    assert await run_async(session_flow(AsyncStoreSteps(AsyncInMemoryStore()))) == (1, 1, ["hi"])


async def test_a_step_refuses_the_other_driver() -> None:
    with pytest.raises(TypeError, match="async driver"):
        await run_async(SyncStoreSteps(InMemoryStore()).load("s"))
    flow = AsyncStoreSteps(AsyncInMemoryStore()).clear("s")
    with pytest.raises(TypeError, match="sync driver"):
        run_sync(flow)


def test_store_errors_are_thrown_into_the_flow_at_the_step() -> None:
    steps = SyncStoreSteps(InMemoryStore())

    def flow() -> Flow[str]:
        yield from steps.append("s", [Message.from_openai({"role": "user", "content": "x"})])
        try:
            yield from steps.commit(
                "s", summary=None, watermark=1, expected_version=7, expected_epoch="nope"
            )
        except ConflictError:
            return "conflict seen by the flow"
        return "no conflict"

    assert run_sync(flow()) == "conflict seen by the flow"


def branch_flow(
    steps: StoreSteps,
) -> Flow[tuple[int, list[str], list[tuple[str, int, int]], list[str]]]:
    batch = [Message.from_openai({"role": "user", "content": t}) for t in ("a", "b", "c")]
    yield from steps.append("s", batch)
    state = yield from steps.load("s")
    version = yield from steps.rewrite(
        "s",
        keep=1,
        messages=[Message.from_openai({"role": "user", "content": "B"})],
        expected_version=state.version,
        expected_epoch=state.epoch,
        branch_id="b1",
    )
    history = yield from steps.history("s", 0, None)
    branches = yield from steps.branches("s")
    abandoned = yield from steps.branch_messages("s", "b1")
    return (
        version,
        [m.text for m in history],
        [(b.id, b.at, b.length) for b in branches],
        [m.text for m in abandoned],
    )


BRANCHED = (1, ["a", "B"], [("b1", 1, 2)], ["b", "c"])


def test_sync_steps_branch() -> None:
    assert run_sync(branch_flow(SyncStoreSteps(InMemoryStore()))) == BRANCHED


async def test_async_steps_branch() -> None:
    assert await run_async(branch_flow(AsyncStoreSteps(AsyncInMemoryStore()))) == BRANCHED
