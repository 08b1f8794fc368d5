"""Branches (issue #28): ``branch``, ``pop``, ``branches``, ``branch_messages`` on every store.

The history becomes ``history[:at] + messages``; what it no longer holds is kept as a branch,
listed and readable, never sent to the model again; a summary of abandoned messages never
stays in the view (rolled back, or dropped, then the usual reduction runs). One scenario body
drives ``Memory`` (through :class:`~tests.test_async_parity.Awaited`) and ``AsyncMemory``, on
every store of ``tests/stores/backends.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.errors import (
    ConfigurationError,
    ConflictError,
    MessageValidationError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.events import Branched, MemoryEvent
from summem.memory import Memory
from summem.messages import Message
from summem.stores.base import Branch
from summem.stores.memory import AsyncInMemoryStore, InMemoryStore
from tests.fakes.counters import words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import a, call, reply, res, sys, u
from tests.fakes.summarizers import FakeSummarizer, Gate, GatedSummarizer
from tests.stores.backends import BACKEND_PARAMS, Backend, backend_of, kind_params
from tests.test_async_parity import Awaited

Make = Callable[..., Any]


@pytest.fixture(params=BACKEND_PARAMS)
async def on(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Make]:
    """Makes memories (``Memory`` or ``AsyncMemory``, as the backend's mode) on one store's data."""
    with backend_of(request.param, tmp_path) as backend:
        memories: list[Any] = []
        stores: list[Any] = []

        def make(session_id: str = "s", **kw: Any) -> Any:
            store = backend.native()
            stores.append(store)
            kw.setdefault("reducer", small_reducer())
            if backend.mode == "sync":
                memory: Any = Awaited(Memory(session_id, store=store, **kw))
            else:
                memory = AsyncMemory(session_id, store=store, **kw)
            memories.append(memory)
            return memory

        make.backend = backend  # type: ignore[attr-defined]
        try:
            yield make
        finally:
            for memory in memories:
                await memory.close()
            for store in stores:
                closed = store.close()
                if asyncio.iscoroutine(closed):
                    await closed


def store_of(memory: Any) -> Any:
    """The sync store behind a memory, for the invariant checks (any backend, either mode)."""
    inner = memory.inner if isinstance(memory, Awaited) else memory
    return inner.store


async def check(memory: Any, backend: Backend) -> None:
    """I1-I3 on what the store holds, and the memory's view is the store's."""
    store = store_of(memory)
    if backend.mode == "sync":
        check_session(store, memory.session_id, await memory.view())
        return
    sync_store = backend.native("sync")
    try:
        check_session(sync_store, memory.session_id, await memory.view())
    finally:
        sync_store.close()


def texts(history: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in history]


CONVERSATION = [u("u1"), a("a1"), u("u2"), a("a2"), u("u3"), a("a3")]
REPLIED = [u("u1"), reply("a1"), u("u2"), reply("a2"), u("u3"), reply("a3")]
"""``CONVERSATION`` with its replies as the wrappers record a model's (proof of a resend)."""


async def test_pop_and_branch_keep_what_they_abandon(on: Make) -> None:
    events: list[MemoryEvent] = []
    memory = on(hooks=[events.append])
    stored = await memory.extend(CONVERSATION)
    popped = await memory.pop()
    assert [m.id for m in popped] == [stored[-1].id]
    assert texts(await memory.history()) == ["u1", "a1", "u2", "a2", "u3"]
    new = await memory.branch(3, [a("a2 again"), u("u3 edited")])
    assert [m.text for m in new] == ["a2 again", "u3 edited"]
    assert texts(await memory.history()) == ["u1", "a1", "u2", "a2 again", "u3 edited"]
    assert texts(await memory.messages()) == texts(await memory.history())
    first, second = await memory.branches()
    assert isinstance(first, Branch) and (first.at, first.length) == (5, 1)
    assert (second.at, second.length) == (3, 2)
    assert await memory.branch_messages(first.id) == [a("a3")]
    assert await memory.branch_messages(second.id) == [a("a2"), u("u3")]
    assert [m.id for m in await memory.branch_history(second.id)] == [m.id for m in stored[3:5]]
    branched = [e for e in events if isinstance(e, Branched)]
    assert [(e.branch_id, e.at, e.abandoned, e.added) for e in branched] == [
        (first.id, 5, 1, 0),
        (second.id, 3, 2, 2),
    ]
    assert all(e.summary == "kept" and e.summary_id is None for e in branched)
    await check(memory, on.backend)  # type: ignore[attr-defined]


async def test_pop_n_and_pop_nothing(on: Make) -> None:
    memory = on()
    await memory.extend(CONVERSATION)
    assert [m.text for m in await memory.pop(2)] == ["u3", "a3"]
    assert await memory.pop(0) == []
    assert len(await memory.branches()) == 1  # pop(0) writes nothing
    assert [m.text for m in await memory.pop(4)] == ["u1", "a1", "u2", "a2"]
    assert await memory.history() == [] and await memory.messages() == []
    await memory.add(u("again"))
    assert texts(await memory.history()) == ["again"]


async def test_bad_positions_and_messages_are_clear_errors_and_write_nothing(on: Make) -> None:
    memory = on()
    await memory.extend(CONVERSATION)
    for at in (-1, 7, "2", True, None):
        with pytest.raises(ConfigurationError) as info:
            await memory.branch(at)
        if isinstance(at, int) and not isinstance(at, bool):
            assert "holds 6 message(s)" in str(info.value) and "between 0 and 6" in str(info.value)
    for n in (-1, 7, 1.0):
        with pytest.raises(ConfigurationError, match="pop"):
            await memory.pop(n)
    with pytest.raises(MessageValidationError) as bad:
        await memory.branch(2, [u("fine"), res("nowhere")])  # answers no pending call
    assert bad.value.index == 1 and bad.value.field == "tool_call_id"
    with pytest.raises(MessageValidationError, match="expected a list"):
        await memory.branch(2, u("one dict, not a list"))
    for branch_id in ("", 3, None):
        with pytest.raises(ConfigurationError, match="branch_id"):
            await memory.branch_messages(branch_id)
    with pytest.raises(StoreError, match="no-such-branch"):
        await memory.branch_messages("no-such-branch")
    assert await memory.branches() == []
    assert texts(await memory.history()) == texts(CONVERSATION)


async def test_a_tool_result_may_answer_a_call_the_kept_prefix_leaves_pending(on: Make) -> None:
    memory = on()
    await memory.extend([u("look it up"), call("c1"), res("c1", "first try"), a("found")])
    await memory.branch(2, [res("c1", "second try"), a("found again")])
    history = await memory.history()
    assert texts(history)[2:] == ["second try", "found again"]
    with pytest.raises(MessageValidationError, match="tool_call_id"):
        await memory.branch(1, [res("c1")])  # the call is not in history[:1]
    await check(memory, on.backend)  # type: ignore[attr-defined]


async def test_system_messages_in_a_branch_follow_the_system_rules(on: Make) -> None:
    memory = on()
    await memory.extend([sys("old rules"), *CONVERSATION])
    await memory.branch(2, [sys("new rules"), u("u2 edited")])
    view = await memory.messages()
    assert view[0] == sys("new rules") and texts(view[1:]) == ["u1", "a1", "u2 edited"]


def reduced(**kw: Any) -> Any:
    """A reducer whose summaries say which messages they stand for (the last covered text)."""
    return small_reducer(FakeSummarizer(), **kw)


async def grow(memory: Any, n: int, tag: str) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        out.append(await memory.add(u(words(7, f"{tag}{i}-"))))
    return out


async def test_a_branch_inside_the_summary_rolls_it_back_or_drops_it(on: Make) -> None:
    events: list[MemoryEvent] = []
    memory = on(reducer=reduced(), hooks=[events.append])
    await grow(memory, 24, "m")
    logged = await memory.summaries()
    assert len(logged) >= 2, "the scenario needs two logged summaries"
    w1 = logged[0].summary_info.watermark
    w2 = logged[1].summary_info.watermark
    assert 0 < w1 < w2
    # inside the second summary, past the first: the first is current again
    await memory.branch(w1 + 1)
    assert memory.summary is not None and memory.summary.id == logged[0].id
    assert (await memory.view())[0].id == logged[0].id
    rolled = [e for e in events if isinstance(e, Branched)][-1]
    assert (rolled.summary, rolled.summary_id, rolled.watermark) == (
        "rolled_back",
        logged[0].id,
        w1,
    )
    assert rolled.previous_watermark >= w2 and rolled.at == w1 + 1
    await check(memory, on.backend)  # type: ignore[attr-defined]
    # before every summary: none is left, the view starts at 0
    await memory.branch(w1 - 1)
    dropped = [e for e in events if isinstance(e, Branched)][-1]
    assert (dropped.summary, dropped.summary_id, dropped.watermark) == ("dropped", None, 0)
    assert memory.summary is None
    assert len(await memory.messages()) == w1 - 1
    await check(memory, on.backend)  # type: ignore[attr-defined]
    # a branch at or past the watermark keeps the summary
    await grow(memory, 14, "n")
    current = memory.summary
    assert current is not None
    length = len(await memory.history())
    await memory.branch(length - 1)
    kept = [e for e in events if isinstance(e, Branched)][-1]
    assert kept.summary == "kept" and memory.summary is not None
    assert memory.summary.id == current.id


async def test_after_a_rollback_the_view_is_reduced_now_past_the_threshold(on: Make) -> None:
    summarizer = FakeSummarizer()
    memory = on(reducer=small_reducer(summarizer))
    await grow(memory, 24, "m")
    first = (await memory.summaries())[0]
    w1 = first.summary_info.watermark
    abandoned = {m["content"] for m in (await memory.history())[w1 + 1 :]}
    summarizer.requests.clear()
    new = [u(words(7, f"edit{i}-")) for i in range(10)]
    await memory.branch(w1 + 1, new)  # S1 + one message + 100 words: over the threshold
    assert summarizer.requests, "the branch turn reduced the view (blocking mode: now)"
    assert memory.size <= 100
    seen = {m.text for r in summarizer.requests for m in r.messages}
    assert not seen & abandoned, "the summarizer read abandoned messages"
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    assert summary.summary_info.previous_summary_id == first.id  # chained from the rollback
    history_ids = {m.id for m in await memory.history_messages()}
    assert set(summary.summary_info.covered_ids) <= history_ids
    await check(memory, on.backend)  # type: ignore[attr-defined]


async def test_after_a_rollback_a_soft_threshold_reduces_in_the_background(on: Make) -> None:
    summarizer = GatedSummarizer()
    summarizer.gate.release.set()
    reducer = small_reducer(summarizer, soft_threshold_tokens=80, hard_limit_tokens=400)
    memory = on(reducer=reducer)
    await grow(memory, 30, "m")
    await memory.wait()
    first = (await memory.summaries())[0]
    w1 = first.summary_info.watermark
    summarizer.gate = Gate()  # closed: a reduction now waits in the summarizer
    before = len(summarizer.requests)
    await memory.branch(w1 + 1, [u(words(7, f"edit{i}-")) for i in range(8)])
    # the branch returned; its reduction runs off the hot path, held at the gate
    assert await asyncio.to_thread(summarizer.gate.started.wait, 20)
    assert memory.summary is not None and memory.summary.id == first.id
    assert memory.size > 80
    summarizer.gate.release.set()
    await memory.wait()
    assert len(summarizer.requests) > before
    assert memory.summary is not None and memory.summary.id != first.id
    await check(memory, on.backend)  # type: ignore[attr-defined]


async def test_another_memory_on_the_session_sees_the_branch(on: Make) -> None:
    writer, reader = on("shared"), on("shared")
    await writer.record(REPLIED)
    await reader.refresh()
    assert await reader.record(CONVERSATION) == []  # its index: the whole history
    await writer.pop(2)
    await reader.refresh()
    assert texts(await reader.messages()) == ["u1", "a1", "u2", "a2"]
    assert [b.at for b in await reader.branches()] == [4]
    # the reader's full list now: the shorter history plus a new turn, recorded once
    stored = await reader.record([*CONVERSATION[:4], u("u3 other")])
    assert [m.text for m in stored] == ["u3 other"]
    fresh = on("shared")
    assert texts(await fresh.history()) == ["u1", "a1", "u2", "a2", "u3 other"]
    assert texts(await fresh.messages()) == texts(await fresh.history())


async def test_the_record_index_is_cut_back_not_read_again(on: Make) -> None:
    memory = on(reducer=reduced())
    conversation: list[dict[str, Any]] = []
    for i in range(12):  # the full-list habit, past a few reductions
        conversation += [u(words(7, f"q{i}-")), a(words(7, f"r{i}-"))]
        await memory.record(conversation)
    assert memory.summary is not None
    inner = memory.inner if isinstance(memory, Awaited) else memory
    index = inner._recorded_index
    assert index is not None and index.complete and len(index.fps) == 24
    await memory.branch(20, [u("q10 edited")])
    assert index.complete and len(index.fps) == 21  # kept: cut back and extended
    reads: list[Any] = []
    steps = inner._steps
    history = steps.history

    def spy(*args: Any) -> Any:
        reads.append(args)
        return history(*args)

    steps.history = spy  # type: ignore[method-assign]
    edited = [*conversation[:20], u("q10 edited"), a("reply"), u("next")]
    stored = await memory.record(edited)
    assert [m.text for m in stored] == ["reply", "next"] and reads == []
    assert texts(await memory.history()) == texts(edited)


async def test_a_reduction_committed_elsewhere_meanwhile_is_retried(on: Make) -> None:
    mine, other = on("busy"), on("busy")
    await grow(mine, 9, "m")
    await other.refresh()
    assert await other.reduce() is not None  # bumps the version behind mine's back
    length = len(await mine.history())
    await mine.branch(length - 1, [u("instead")])  # mine's copy is stale: CAS lost, retried
    history = await mine.history()
    assert len(history) == length and history[-1]["content"] == "instead"
    assert len(await mine.branches()) == 1
    await check(mine, on.backend)  # type: ignore[attr-defined]


async def test_a_branch_never_abandons_what_another_writer_appended_meanwhile(on: Make) -> None:
    mine, other = on("race"), on("race")
    await mine.extend(CONVERSATION)
    await mine.refresh()  # mine's copy knows the session (its epoch), then misses an append
    await other.refresh()
    theirs = await other.add(u("theirs"))
    with pytest.raises(ConflictError, match="another writer"):
        await mine.branch(4, [u("u3 edited")])
    assert texts(await mine.history()) == [*texts(CONVERSATION), "theirs"]
    assert await mine.branches() == []
    # pop takes the last message whatever it is when it lands, and says which
    popped = await mine.pop()
    assert [m.id for m in popped] == [theirs.id]
    assert texts(await mine.history()) == texts(CONVERSATION)


class LosingReplies(InMemoryStore):
    """Writes each rewrite, then loses the reply of the first ``lost`` of them."""

    def __init__(self, lost: int = 1, *, before: bool = False) -> None:
        super().__init__()
        self.lost, self.before, self.calls = lost, before, 0

    def rewrite(self, session_id: str, **kw: Any) -> int:
        self.calls += 1
        if self.lost and self.before:
            self.lost -= 1
            raise StoreOutcomeUnknownError("connection reset before the write", operation="rw")
        version = super().rewrite(session_id, **kw)
        if self.lost:
            self.lost -= 1
            raise StoreOutcomeUnknownError("reply lost", operation="rewrite")
        return version


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("before", [False, True], ids=["landed", "not-landed"])
async def test_a_lost_reply_is_retried_with_the_same_branch_id(mode: str, before: bool) -> None:
    store = LosingReplies(before=before)
    events: list[MemoryEvent] = []
    memory: Any = (
        Awaited(Memory("s", store=store, hooks=[events.append]))
        if mode == "sync"
        else AsyncMemory("s", store=store, hooks=[events.append])
    )
    await memory.extend(CONVERSATION)
    await memory.branch(2, [u("edited")])
    assert store.calls == 2
    assert texts(await memory.history()) == ["u1", "a1", "edited"]
    (branch,) = await memory.branches()  # written once
    assert [e.branch_id for e in events if isinstance(e, Branched)] == [branch.id]
    store.lost = 2
    with pytest.raises(StoreOutcomeUnknownError, match=r"memory\.branches\(\) lists it"):
        await memory.pop()
    await memory.close()


async def test_a_cancelled_branch_leaves_the_copy_to_be_read_again() -> None:
    landed, never = asyncio.Event(), asyncio.Event()

    class SlowReply(AsyncInMemoryStore):
        async def rewrite(self, session_id: str, **kw: Any) -> int:
            version = await super().rewrite(session_id, **kw)  # lands, then the caller is gone
            landed.set()
            await never.wait()
            return version

    memory = AsyncMemory("s", store=SlowReply())
    await memory.extend(CONVERSATION)
    task = asyncio.ensure_future(memory.pop())
    await landed.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert texts(await memory.messages()) == ["u1", "a1", "u2", "a2", "u3"]
    await memory.close()


async def test_branching_at_0_empties_whatever_was_appended_meanwhile(on: Make) -> None:
    mine, other = on("clear"), on("clear")
    await mine.extend(CONVERSATION)
    await mine.refresh()
    await other.refresh()
    await other.add(u("theirs"))
    await mine.branch(0)  # the history is empty after it, whatever it held (kept as a branch)
    assert await mine.history() == [] and await mine.messages() == []
    (branch,) = await mine.branches()
    assert branch.length == 7


class AppendOnly(InMemoryStore):
    """A store written for an older summem: no rewrite, branches or branch_messages."""

    rewrite = None  # type: ignore[assignment]
    branches = None  # type: ignore[assignment]
    branch_messages = None  # type: ignore[assignment]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_store_that_cannot_branch_says_so_and_writes_nothing(mode: str) -> None:
    store = AppendOnly()
    memory: Any = (
        Awaited(Memory("s", store=store)) if mode == "sync" else AsyncMemory("s", store=store)
    )
    await memory.record(REPLIED)
    for attempt in (
        memory.branch(2),
        memory.pop(),
        memory.record([u("u1"), a("a1"), u("u2 edited")]),  # an edit: it would branch
        memory.branch_messages("b_1"),
    ):
        with pytest.raises(ConfigurationError, match="AppendOnly has no rewrite"):
            await attempt
    assert await memory.branches() == []
    assert texts(await memory.history()) == texts(CONVERSATION)
    data = await memory.to_dict()
    assert "branches" not in data
    await memory.close()
    branched = Memory("b")
    branched.extend(CONVERSATION)
    branched.pop()
    with pytest.raises(ConfigurationError, match="AppendOnly"):
        Memory.from_dict(branched.to_dict(), store=store)
    assert not store.exists("b")


async def test_recall_forgets_what_a_branch_abandoned(on: Make) -> None:
    mine, other = on("recall"), on("recall")
    await mine.extend([u("the parcel code is ZX-481"), a("noted"), u("and the colour?")])
    await other.refresh()
    for memory in (mine, other):  # both build their index (or ask the store) now
        hits = await memory.recall("ZX-481", evicted_only=False)
        assert [h.message.text for h in hits][:1] == ["the parcel code is ZX-481"]
    await mine.branch(0, [u("the parcel code is QR-112"), a("noted"), u("and the size?")])
    await other.refresh()  # as long as before: only its end tells the index it is stale
    for memory in (mine, other):
        texts_found = [h.message.text for h in await memory.recall("ZX-481", evicted_only=False)]
        assert "the parcel code is ZX-481" not in texts_found
        found = await memory.recall("QR-112", evicted_only=False)
        assert [h.message.text for h in found][:1] == ["the parcel code is QR-112"]


@pytest.mark.parametrize("kind", kind_params())
def test_pops_racing_appends_lose_and_duplicate_nothing(kind: str, tmp_path: Path) -> None:
    import threading

    with backend_of((kind, "sync"), tmp_path) as backend:
        stores = [backend.native(), backend.native()]
        adder = Memory("race", store=stores[0], reducer=small_reducer())
        popper = Memory("race", store=stores[1], reducer=small_reducer())
        added: list[str] = []
        popped: list[str] = []
        conflicts = 0

        def add() -> None:
            for i in range(120):
                added.append(adder.add(u(f"message {i}")).id)

        def pop() -> None:
            nonlocal conflicts
            for _ in range(40):
                try:
                    popped.extend(m.id for m in popper.pop())
                except ConflictError:
                    conflicts += 1
                except ConfigurationError:
                    pass  # nothing to pop yet

        threads = [threading.Thread(target=add), threading.Thread(target=pop)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        history = [m.id for m in popper.history_messages()]
        abandoned = [m.id for b in popper.branches() for m in popper.branch_history(b.id)]
        assert sorted(history + abandoned) == sorted(added)  # each once, none lost
        assert sorted(abandoned) == sorted(popped)  # a pop returns exactly what it abandoned
        for memory in (adder, popper):
            memory.close()
        for store in stores:
            store.close()
