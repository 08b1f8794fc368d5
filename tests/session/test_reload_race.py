"""A snapshot read while our own writes land never takes the cached copy backwards.

The reads here are driven by hand (a flow's load step run, then a write, then the old
snapshot handed back), so each interleaving is exact, not left to the scheduler.
"""

from __future__ import annotations

from typing import Any

import pytest

from summem._flow import Flow
from summem.errors import ConflictError
from summem.memory import Memory
from summem.messages import parse_message
from summem.session.flows import RELOAD_ATTEMPTS, reload_flow
from summem.stores.memory import InMemoryStore
from tests.fakes.messages import u


def texts(memory: Memory) -> list[str]:
    return [m["content"] for m in memory.messages()]


def finish(flow: Flow[Any], result: Any) -> None:
    with pytest.raises(StopIteration):
        flow.send(result)


def test_a_snapshot_read_before_our_appends_is_rebased_on_a_copy_made_by_appends() -> None:
    store = InMemoryStore()
    memory = Memory("s", store=store)
    memory.extend([u("m0"), u("m1")])
    core = memory._core
    assert core.epoch == ""  # made by appends, never read: versions cannot be compared
    reader = reload_flow(core, memory._steps)  # a background reduction reads the session
    old = next(reader).run()
    assert old.length == 2
    memory.extend([u("m2"), u("m3")])  # the foreground appends meanwhile
    finish(reader, old)
    assert core.length == 4 and core.epoch == old.epoch
    assert texts(memory) == ["m0", "m1", "m2", "m3"]
    assert texts(Memory("s", store=store)) == texts(memory)


def test_a_session_cleared_and_grown_again_elsewhere_is_taken_as_read() -> None:
    store = InMemoryStore()
    memory = Memory("s", store=store)
    memory.extend([u("m0"), u("m1"), u("m2")])
    other = Memory("s", store=store)
    other.clear()
    other.add(u("n0"))
    reader = reload_flow(memory._core, memory._steps)
    finish(reader, next(reader).run())
    assert texts(memory) == ["n0"]


def test_a_snapshot_read_before_a_write_the_stale_copy_missed_is_read_again() -> None:
    store = InMemoryStore()
    memory = Memory("s", store=store)
    memory.extend([u("m0"), u("m1")])
    core = memory._core
    memory.refresh()  # loaded: the epoch is known
    core.stale = True  # a write of unknown outcome (or a commit the copy could not take)
    reader = reload_flow(core, memory._steps)
    old = next(reader).run()
    store.append("s", [parse_message(u("m2"))])
    core.stale = True  # ours landed in the store but not in the copy
    again = reader.send(old)  # refused: the reader reads once more
    finish(reader, again.run())
    assert core.length == 3 and not core.stale


def test_a_copy_that_keeps_changing_while_read_is_left_stale_with_a_clear_error() -> None:
    memory = Memory("s", store=InMemoryStore())
    memory.add(u("m0"))
    core = memory._core
    core.stale = True
    reader = reload_flow(core, memory._steps)
    step = next(reader)
    with pytest.raises(ConflictError, match="kept changing"):
        for _ in range(RELOAD_ATTEMPTS):
            state = step.run()
            core.stale = True  # marked again while every read is in flight
            step = reader.send(state)
    assert core.stale


def test_a_session_branched_elsewhere_to_a_prefix_of_ours_is_taken_as_read() -> None:
    # the store holds a prefix of our appends again, but rewritten (version > 0): what we
    # appended after it is gone, and a rebased copy would show messages the store lacks
    store = InMemoryStore()
    memory = Memory("s", store=store)
    memory.extend([u("m0"), u("m1"), u("m2"), u("m3")])
    assert memory._core.epoch == ""
    Memory("s", store=store).branch(2)
    reader = reload_flow(memory._core, memory._steps)
    finish(reader, next(reader).run())
    assert texts(memory) == ["m0", "m1"] == texts(Memory("s", store=store))
    assert memory._core.length == 2


def test_a_session_cleared_and_grown_again_with_our_ids_is_taken_as_read() -> None:
    store = InMemoryStore()
    memory = Memory("s", store=store)
    ours = memory.extend([u("m0"), u("m1"), u("m2")])
    other = Memory("s", store=store)
    other.clear()
    other.extend(ours[:2])  # the same messages (ids) again: a re-import of a prefix
    reader = reload_flow(memory._core, memory._steps)
    finish(reader, next(reader).run())
    assert texts(memory) == ["m0", "m1"] == texts(Memory("s", store=store))


def test_a_session_cleared_elsewhere_is_taken_as_read_not_refilled_with_ours() -> None:
    store = InMemoryStore()
    memory = Memory("s", store=store)
    memory.extend([u("m0"), u("m1")])
    Memory("s", store=store).clear()  # empty: every message of it is "ours", trivially
    reader = reload_flow(memory._core, memory._steps)
    finish(reader, next(reader).run())
    assert texts(memory) == [] == texts(Memory("s", store=store))
    assert memory._core.length == 0
