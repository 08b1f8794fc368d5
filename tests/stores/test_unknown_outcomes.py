"""Appends of unknown outcome: whatever happens, a message is stored once (every store, sync
and async).

A lost reply (Redis answered nothing, SQLite's COMMIT reported an error) leaves an append's
outcome unknown: :class:`StoreOutcomeUnknownError`. Stores skip ids they hold, so ``Memory``
settles it by appending again; when that fails too, the error carries the messages to add
again. Here appends fail at random in the three ways a backend fails (it landed but the reply
was lost, it never arrived, the store was down), and a caller who retries the way the errors
say ends with each message in history exactly once, in order.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.errors import StoreError, StoreOutcomeUnknownError
from summem.memory import Memory
from summem.messages import Message
from tests.fakes.counters import words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import call, res
from tests.stores.backends import Backend

FAULTS = ("landed", "lost", "down")


class Faults:
    """Decides, per append, whether and how it fails (seeded: the same run every time)."""

    def __init__(self, seed: int, rate: float, script: Sequence[str | None] = ()) -> None:
        self.rng = random.Random(seed)
        self.rate = rate
        self.script = list(script)  # drawn first, in order
        self.seen: Counter[str] = Counter()

    def draw(self) -> str | None:
        if self.script:
            fault = self.script.pop(0)
        else:
            fault = self.rng.choice(FAULTS) if self.rng.random() < self.rate else None
        self.seen[fault or "ok"] += 1
        return fault

    @staticmethod
    def error(fault: str) -> StoreError:
        if fault == "down":
            return StoreError("store unreachable (nothing was sent)")
        return StoreOutcomeUnknownError("the reply was lost", operation="append")


def make_faulty(store: Any, faults: Faults) -> None:
    """Replace ``store.append`` (sync or async) with one that fails as ``faults`` draws."""
    append = store.append
    if asyncio.iscoroutinefunction(append):

        async def append_async(session_id: str, messages: Sequence[Message]) -> int:
            fault = faults.draw()
            if fault == "landed":
                await append(session_id, messages)
            if fault:
                raise faults.error(fault)
            return int(await append(session_id, messages))

        store.append = append_async
    else:

        def append_sync(session_id: str, messages: Sequence[Message]) -> int:
            fault = faults.draw()
            if fault == "landed":
                append(session_id, messages)
            if fault:
                raise faults.error(fault)
            return int(append(session_id, messages))

        store.append = append_sync


def conversation(n: int) -> list[list[dict[str, Any]]]:
    """``n`` writes: single user turns, and tool-call groups written as one batch."""
    out: list[list[dict[str, Any]]] = []
    for i in range(n):
        if i % 5 == 4:
            out.append([call(f"c{i}"), res(f"c{i}", f"result {i}")])
        else:
            out.append([{"role": "user", "content": words(6, f"w{i}")}])
    return out


def expected_texts(writes: list[list[dict[str, Any]]]) -> list[str]:
    return [m.get("content") or "" for batch in writes for m in batch]


async def drive(memory: Any, writes: list[list[dict[str, Any]]]) -> Counter[str]:
    """Write every batch, retrying the way the errors say; count how each write went."""
    outcome: Counter[str] = Counter()

    async def call_(method: str, arg: Any) -> Any:
        result = getattr(memory, method)(arg)
        return await result if asyncio.iscoroutine(result) else result

    for batch in writes:
        pending: Any = batch
        for _ in range(50):
            try:
                await call_("extend", pending)
                break
            except StoreOutcomeUnknownError as exc:
                outcome["unknown"] += 1
                assert exc.messages, "the error names the messages to add again"
                pending = exc.messages  # with their ids: stored at most once
            except StoreError:
                outcome["failed"] += 1  # nothing was stored: send the same dicts again
        else:
            raise AssertionError("a write never went through")
    return outcome


@pytest.mark.parametrize("seed", [1, 2])
def test_retrying_appends_of_unknown_outcome_stores_each_message_once(
    backend: Backend, seed: int
) -> None:
    writes = conversation(120)
    faults = Faults(seed, rate=0.35)
    store = backend.native()
    make_faulty(store, faults)

    if backend.mode == "sync":
        memory: Any = Memory("s", reducer=small_reducer(), store=store)
        outcome = asyncio.run(drive(memory, writes))
        history = memory.history_messages()
        memory.close()
        check_store: Any = store
    else:

        async def run() -> tuple[Counter[str], list[Message]]:
            memory = AsyncMemory("s", reducer=small_reducer(), store=store)
            got = await drive(memory, writes)
            out = await memory.history_messages()
            await memory.close()
            return got, out

        outcome, history = asyncio.run(run())
        check_store = backend.make()  # a sync view of the same data
    assert [m.text for m in history] == expected_texts(writes)
    assert len({m.id for m in history}) == len(history)
    assert all(faults.seen[f] for f in FAULTS) and outcome["unknown"] and outcome["failed"]
    check_session(check_store, "s")
    if backend.mode == "sync":
        store.close()


@pytest.mark.parametrize(
    ("script", "raises"),
    [
        (["landed"], False),  # settled by appending again: the store skips what it holds
        (["lost"], False),
        (["landed", "down"], True),  # appending again failed: only the caller can retry
        (["lost", "landed"], True),
    ],
)
def test_add_settles_what_it_can_and_names_the_messages_when_it_cannot(
    sync_backend: Backend, script: list[str], raises: bool
) -> None:
    store = sync_backend.native()
    faults = Faults(0, rate=0.0)
    make_faulty(store, faults)
    memory = Memory("s", reducer=small_reducer(), store=store)
    memory.add({"role": "user", "content": "first"})
    faults.script = list(script)
    if raises:
        with pytest.raises(StoreOutcomeUnknownError, match="adding them again is safe") as info:
            memory.add({"role": "user", "content": "second"})
        assert [m.text for m in info.value.messages] == ["second"]
        stored = memory.extend(info.value.messages)[0]
    else:
        stored = memory.add({"role": "user", "content": "second"})
    history = memory.history_messages()
    assert [m.text for m in history] == ["first", "second"] and history[-1].id == stored.id
    memory.close()
    store.close()
