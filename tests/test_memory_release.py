"""A memory dropped (or closed and dropped) is freed at once, by reference counting alone.

A reference cycle through a memory (its background worker holding a bound method of it, say)
would keep the whole session (history, cached view, rendered dicts) alive until the cyclic
garbage collector runs a full collection; that collection then frees it inside whatever turn
of another session triggered it, a pause of hundreds of milliseconds after a large session
(measured: ``docs-notes/background.md``). The collector is switched off in these tests, so a
cycle leaves the object alive and the test fails, whatever the timing.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.events import MemoryEvent
from summem.memory import Memory
from tests.fakes.counters import words
from tests.fakes.memory import small_reducer
from tests.fakes.messages import sys, turn, u
from tests.fakes.summarizers import FakeSummarizer


@pytest.fixture(scope="module", autouse=True)
def _frozen_heap() -> Iterator[None]:
    """One full collection, then what survives is left out of the collections below.

    A full collection walks the whole heap (litellm and the rest of the suite loaded): about half
    a second each. Frozen, the heap is skipped, and each test's collection only walks what was
    made since.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture(autouse=True)
def no_cyclic_gc(_frozen_heap: None) -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _events(_event: MemoryEvent) -> None:
    pass


CONFIGS: dict[str, dict[str, Any]] = {
    "blocking": {},
    "background": {"soft_threshold_tokens": 80, "hard_limit_tokens": 400},
    "masking": {"mask_tool_results_after": 1, "mask_min_tokens": 1},
}


def _fill(memory: Memory) -> None:
    memory.add(sys("Be brief."))
    for i in range(12):
        memory.extend(turn(i))
        memory.add(u(words(7, f"m{i}")))
        memory.messages()
    memory.wait()


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("close", [True, False])
def test_a_memory_is_freed_when_dropped(config: str, close: bool) -> None:
    memory = Memory(
        "s", reducer=small_reducer(FakeSummarizer(reply="s"), **CONFIGS[config]), hooks=[_events]
    )
    _fill(memory)
    assert memory.summary is not None  # reductions ran (in the worker, in background mode)
    refs = [weakref.ref(x) for x in (memory, memory._core, memory.store, memory.summary)]
    if close:
        memory.close()
    del memory
    assert [r() is None for r in refs] == [True] * len(refs)


@pytest.mark.parametrize("config", sorted(CONFIGS))
async def test_an_async_memory_is_freed_when_closed_and_dropped(config: str) -> None:
    memory = AsyncMemory(
        "s", reducer=small_reducer(FakeSummarizer(reply="s"), **CONFIGS[config]), hooks=[_events]
    )
    await memory.add(sys("Be brief."))
    for i in range(12):
        await memory.extend(turn(i))
        await memory.messages()
    await memory.wait()
    assert memory.summary is not None
    refs = [weakref.ref(x) for x in (memory, memory._core, memory.store)]
    await memory.close()
    del memory
    await asyncio.sleep(0)  # a finished task's callbacks run
    assert [r() is None for r in refs] == [True] * len(refs)


def _cached_ids(memory: Memory) -> set[str]:
    return set(memory._core.renders._cache)


def test_replaced_system_messages_and_summaries_leave_the_render_cache() -> None:
    # An app that puts the date or the user's state in its system message replaces it every
    # turn; each rendering kept would grow the memory by one message a turn, forever.
    memory = Memory("s", reducer=small_reducer(FakeSummarizer(reply="s")))
    for i in range(30):
        memory.add(sys(f"Be brief. Turn {i}."))
        memory.extend(turn(i))
        memory.messages()
    assert memory.summary is not None
    memory.recompute()
    memory.messages()
    live = {m.id for m in (memory.system, memory.summary) if m is not None}
    assert _cached_ids(memory) <= live
    memory.close()
