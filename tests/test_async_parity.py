"""The same scenarios through Memory and AsyncMemory: same results, same rules, same failures.

A sync ``Memory`` is wrapped in :class:`Awaited` so one async scenario body drives both facades
(its methods run inline, so a blocking call blocks the loop, exactly as it blocks a sync caller).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.errors import MessageValidationError, SummarizationError
from summem.memory import Memory
from summem.reducers.truncation import TruncationReducer
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import Store
from summem.stores.memory import InMemoryStore
from tests.fakes.counters import words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import call, res, sys, turn, u
from tests.fakes.summarizers import FakeSummarizer, GatedSummarizer, failing

KINDS = ["sync", "async"]


class Awaited:
    """A sync Memory behind AsyncMemory's awaited API (test-only)."""

    def __init__(self, memory: Memory) -> None:
        self.inner = memory

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not inspect.ismethod(attr):
            return attr

        async def call(*args: Any, **kwargs: Any) -> Any:
            return attr(*args, **kwargs)

        return call


def make(kind: str, session_id: str = "s", **kw: Any) -> Any:
    kw.setdefault("reducer", small_reducer())
    return Awaited(Memory(session_id, **kw)) if kind == "sync" else AsyncMemory(session_id, **kw)


async def from_dict(kind: str, data: dict[str, Any], **kw: Any) -> Any:
    if kind == "sync":
        return Awaited(Memory.from_dict(data, **kw))
    return await AsyncMemory.from_dict(data, **kw)


def sync_store(memory: Any) -> Store:
    store = memory.store
    return store.sync_store if isinstance(store, AsyncStoreAdapter) else store


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.001)


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- scenarios --------------------------------------------------------------------------------


async def test_rules_system_tools_and_batches(kind: str) -> None:
    memory = make(kind)
    first = await memory.add(sys("Be brief."))
    assert (await memory.add(sys("Be brief."))).id == first.id
    with pytest.raises(MessageValidationError, match="'ghost'"):
        await memory.add(res("ghost"))
    with pytest.raises(MessageValidationError) as info:
        await memory.extend([u("a"), call("c"), {"role": "tool", "content": "x"}])
    assert info.value.index == 2
    await memory.extend([u("q"), call("c1", "c2"), res("c2"), res("c1")])
    assert [m["role"] for m in await memory.messages()] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
    ]
    assert len(await memory.history_messages()) == 4
    await memory.close()


async def test_reduction_keeps_the_view_within_budget_and_consistent(kind: str) -> None:
    memory = make(kind)
    await memory.add(sys())
    for i in range(10):
        await memory.extend(turn(i))
        assert memory.size <= 100
    assert memory.summary is not None
    check_session(sync_store(memory), "s", await memory.view())
    i = 10
    while memory.size <= 60:  # above the target, so an explicit reduce has work to do
        await memory.extend(turn(i))
        i += 1
    result = await memory.reduce()
    assert result is not None and result.tokens_after <= 60
    await memory.close()


async def test_round_trip_and_resume(kind: str) -> None:
    memory = make(kind, reducer=small_reducer(FakeSummarizer(reply="same")))
    for i in range(8):
        await memory.extend(turn(i))
    data = json.loads(json.dumps(await memory.to_dict()))
    resumed = await from_dict(kind, data, reducer=small_reducer(FakeSummarizer(reply="same")))
    assert await resumed.messages() == await memory.messages()
    assert resumed.summary.summary_info == memory.summary.summary_info
    for m in (memory, resumed):
        await m.extend(turn(99))
    assert await resumed.messages() == await memory.messages()


async def test_recompute_rollback_and_usage(kind: str) -> None:
    memory = make(kind)
    for i in range(16):
        await memory.extend(turn(i))
    k = memory.summary.summary_info.watermark
    new = await memory.recompute(summarizer=FakeSummarizer(reply="again"))
    assert new.summary_info.watermark == k and memory.summary.id == new.id
    logged = await memory.summaries()
    await memory.rollback(logged[0].id)
    assert memory.summary.id == logged[0].id
    check_session(sync_store(memory), "s", await memory.view())
    await memory.clear()
    assert await memory.history_messages() == [] and memory.summary is None and memory.usage == {}


async def test_failures_back_off_and_commit_nothing(kind: str) -> None:
    summarizer = failing()
    memory = make(kind, reducer=small_reducer(summarizer, fail_on_error=False))
    for i in range(13):
        await memory.add(u(words(7, f"m{i}")))
    assert len(summarizer.requests) == 1 and memory.summary is None
    assert isinstance(memory.last_error, SummarizationError)
    strict = make(kind, "t", reducer=small_reducer(failing()))
    with pytest.raises(SummarizationError):
        for i in range(11):
            await strict.add(u(words(7, f"m{i}")))
    assert len(await strict.history_messages()) == 11 and await strict.summaries() == []


def when_a_turn_joins(memory: Any) -> threading.Event:
    """An event set when a turn past the hard limit decides to join the reduction in flight
    (so a gate released on it opens only once that turn waits: no timer guessing when)."""
    core = memory._core
    decide = core.decide
    joining = threading.Event()

    def spy(*, in_flight: bool) -> Any:
        decision = decide(in_flight=in_flight)
        if in_flight and decision[0] == "hard":
            joining.set()
        return decision

    core.decide = spy
    return joining


async def test_background_reduction_lets_the_turns_go_on(kind: str) -> None:
    """Below the hard limit no turn waits, not even past the threshold; past it, the turn
    joins the reduction in flight (the gate is released only once that turn is waiting)."""
    summarizer = GatedSummarizer()
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=110)
    memory = make(kind, reducer=reducer)
    assert memory.background
    for i in range(9):
        await memory.add(u(words(7, f"m{i}")))  # 90 > 80: a reduction starts off the turn
    await until(summarizer.gate.started.is_set)
    during = await memory.add(u(words(7, "during")))  # 100: not past the threshold, no wait
    assert memory.summary is None and memory.size == 100
    over = await memory.add(u(words(7, "over")))  # 110: past the threshold, still no wait
    assert memory.summary is None and memory.size == 110
    assert not summarizer.gate.release.is_set()  # so neither turn waited for the summary
    released: list[bool] = []
    joining = when_a_turn_joins(memory)

    def release() -> None:  # from another thread: the turn below blocks a sync Memory's loop
        if joining.wait(timeout=60):
            released.append(True)
        summarizer.gate.release.set()

    releaser = threading.Thread(target=release)
    releaser.start()
    late = await memory.add(u(words(7, "late")))  # 120: past the hard limit, the turn joins
    joined, waited = joining.is_set(), bool(released)
    joining.set()  # (when it did not, the releaser must not keep the gate shut)
    await asyncio.to_thread(releaser.join)
    assert joined, "the turn past the hard limit did not join the reduction"
    assert waited, "the turn past the hard limit returned before the reduction finished"
    await memory.wait()
    assert memory.summary is not None and memory.size <= 100
    assert len(summarizer.requests) == 1
    ids = [m.id for m in await memory.view()]
    assert during.id in ids and over.id in ids and late.id in ids
    assert [m.id for m in await memory.history_messages()][-3:] == [during.id, over.id, late.id]
    check_session(sync_store(memory), "s", await memory.view())
    await memory.close()


async def test_a_reduction_landing_over_the_soft_threshold_is_followed_by_another(
    kind: str,
) -> None:
    """The turn that waited at the hard limit starts the next background reduction when the
    view is still over the soft threshold; neither waits below the hard limit."""
    summarizer = GatedSummarizer()
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=120)
    memory = make(kind, reducer=reducer)
    for i in range(9):
        await memory.add(u(words(7, f"m{i}")))  # 90: a reduction of 90 starts off the turn
    await until(summarizer.gate.started.is_set)

    joining = when_a_turn_joins(memory)

    def release() -> None:  # from another thread: the turn below blocks a sync Memory's loop
        joining.wait(timeout=60)
        summarizer.gate.release.set()

    releaser = threading.Thread(target=release)
    releaser.start()
    await memory.extend([u(words(7, f"b{i}")) for i in range(5)])  # 140 > 120: waits
    assert joining.is_set(), "the turn past the hard limit did not join the reduction"
    await asyncio.to_thread(releaser.join)
    # the reduction planned at 90 kept 2 of 9: 11 (summary) + 20 + 50 = 81 > 80 when it lands
    assert memory.summary is not None and len(summarizer.requests) >= 1
    await memory.wait()
    assert len(summarizer.requests) == 2  # the second started at the turn's end
    assert memory.size <= 80
    check_session(sync_store(memory), "s", await memory.view())
    await memory.close()


async def test_background_reductions_fold_one_span_then_commit(kind: str) -> None:
    """A background reduction makes one summarizer call and commits it; the view drops as
    soon as that summary lands (a view far over the target takes several, one a turn)."""
    summarizer = FakeSummarizer(reply="s")
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=400)
    memory = make(kind, reducer=reducer)
    await memory.extend([u(words(7, f"m{i}")) for i in range(30)])  # 300: spans of <= 100
    await memory.wait()
    assert len(summarizer.requests) == 1 and memory.size > 100
    calls = []
    for i in range(4):
        await memory.add(u(words(7, f"n{i}")))
        await memory.wait()
        calls.append(len(summarizer.requests))
    assert calls == sorted(calls) and calls[-1] > 2 and memory.size <= 100
    check_session(sync_store(memory), "s", await memory.view())


async def test_a_batch_far_past_the_hard_limit_folds_at_most_four_spans_a_turn(kind: str) -> None:
    summarizer = FakeSummarizer(reply="s")
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=150)
    memory = make(kind, reducer=reducer)
    await memory.extend([u(words(7, f"m{i}")) for i in range(80)])  # 800: 4 spans of 100
    assert len(summarizer.requests) == 4 and memory.size > 150  # bounded work (I7)
    await memory.add(u(words(7, "next")))  # the next turn folds more
    assert len(summarizer.requests) == 8 and memory.size < 800 - 400
    await memory.wait()
    check_session(sync_store(memory), "s", await memory.view())


async def test_a_batch_past_the_hard_limit_is_reduced_before_the_turn_returns(kind: str) -> None:
    summarizer = FakeSummarizer(reply="s")
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=150)
    memory = make(kind, reducer=reducer)
    await memory.extend([u(words(7, f"m{i}")) for i in range(30)])  # 300 > 150: blocks
    assert memory.size <= 150 - (100 - 60)  # room left under the hard limit
    assert 1 <= len(summarizer.requests) <= 4
    await memory.wait()
    check_session(sync_store(memory), "s", await memory.view())


async def test_clear_racing_a_reduction_does_not_bring_the_session_back(kind: str) -> None:
    summarizer = GatedSummarizer()
    memory = make(kind, reducer=small_reducer(summarizer, soft_threshold_tokens=80))
    for i in range(9):
        await memory.add(u(words(7, f"m{i}")))
    await until(summarizer.gate.started.is_set)
    await memory.clear()
    summarizer.gate.release.set()
    await memory.wait()
    store = sync_store(memory)
    assert store.history("s") == [] and store.summaries("s") == []
    assert store.load("s").summary is None and store.load("s").watermark == 0
    assert await memory.messages() == [] and memory.summary is None
    await memory.add(u("fresh start"))
    assert [m["content"] for m in await memory.messages()] == ["fresh start"]


async def test_both_facades_produce_the_same_transcript() -> None:
    async def play(memory: Any) -> list[Any]:
        out: list[Any] = []
        await memory.add(sys("rules"))
        for i in range(12):
            await memory.extend(turn(i))
            out.append(await memory.messages())
        await memory.add(call("open"))
        out.append([m.text for m in await memory.history_messages()])
        return out

    sync_out = await play(make("sync", reducer=small_reducer(FakeSummarizer(reply="s"))))
    async_out = await play(make("async", reducer=small_reducer(FakeSummarizer(reply="s"))))
    assert sync_out == async_out


async def test_truncation_through_both(kind: str) -> None:
    memory = make(kind, reducer=TruncationReducer(threshold_messages=5, target_messages=3))
    for i in range(9):
        await memory.add(u(f"m{i}"))
    assert [m["content"] for m in await memory.messages()] == ["m6", "m7", "m8"]
    check_session(sync_store(memory), "s", await memory.view())


# -- the API: one definition, two drivers -----------------------------------------------------

STORE_TYPES = {Memory: "Store | str | None", AsyncMemory: "AsyncStore | Store | str | None"}


def public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def same_signature(name: str, sync: inspect.Signature, aio: inspect.Signature) -> None:
    """Same parameters (names, kinds, defaults, types) and return type, but for the store's
    type and the class a constructor returns."""
    assert list(sync.parameters) == list(aio.parameters), name
    for param, other in zip(sync.parameters.values(), aio.parameters.values(), strict=True):
        assert (param.kind, param.default) == (other.kind, other.default), (name, param.name)
        if param.name == "store":
            assert (param.annotation, other.annotation) == tuple(STORE_TYPES.values()), name
        else:
            assert param.annotation == other.annotation, (name, param.name)
    returns = (sync.return_annotation, aio.return_annotation)
    assert returns == ("Memory", "AsyncMemory") or returns[0] == returns[1], name


def test_both_facades_have_the_same_methods_signatures_and_docs() -> None:
    names = public(Memory)
    assert names == public(AsyncMemory)
    same_signature("__init__", inspect.signature(Memory), inspect.signature(AsyncMemory))
    for name in sorted(names):
        sync, aio = inspect.getattr_static(Memory, name), inspect.getattr_static(AsyncMemory, name)
        if isinstance(sync, property):
            assert isinstance(aio, property), name
            assert sync.__doc__ and sync.__doc__ == aio.__doc__, name
            continue
        sync, aio = getattr(Memory, name), getattr(AsyncMemory, name)
        same_signature(name, inspect.signature(sync), inspect.signature(aio))
        assert sync.__doc__, f"Memory.{name} has no docstring"
        if name == "recall_tool":  # the one that says what differs
            assert aio.__doc__.startswith(inspect.cleandoc(sync.__doc__) + "\n\n"), name
        else:
            assert sync.__doc__ == aio.__doc__, f"AsyncMemory.{name}'s docs drifted"
        # what Memory does with I/O, AsyncMemory awaits; the rest is one shared method
        does_io = name in vars(Memory) and name != "recall_tool"
        assert inspect.iscoroutinefunction(aio) is does_io, name
        assert does_io or sync is aio or name == "recall_tool", name


def test_the_context_managers_pair_up() -> None:
    for sync, aio in (("__enter__", "__aenter__"), ("__exit__", "__aexit__")):
        assert sync in vars(Memory) and aio in vars(AsyncMemory)
        assert inspect.iscoroutinefunction(getattr(AsyncMemory, aio))
        enter, aenter = getattr(Memory, sync), getattr(AsyncMemory, aio)
        same_signature(sync, inspect.signature(enter), inspect.signature(aenter))


async def test_async_memory_wraps_a_sync_store_and_shares_it() -> None:
    shared = InMemoryStore()
    one = AsyncMemory("s", reducer=small_reducer(), store=shared)
    await one.add(u("async"))
    two = Memory("s", reducer=small_reducer(), store=shared)
    two.add(u("sync"))
    await one.refresh()
    assert [m["content"] for m in await one.messages()] == ["async", "sync"]
    await one.close()
    assert shared.history("s")  # a store given as an object is not closed
