"""``SummemSession`` keeps what the SDK gives it, in place; reads are fresh; close() is honest.

No SDK needed: the session protocol is structural. What the Runner does with these items is in
``test_agents.py``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from summem import AsyncMemory, SummarizationReducer
from summem.errors import SessionClosedError, StoreError
from summem.integrations.agents import SummemSession
from summem.messages import Message
from summem.stores import AsyncInMemoryStore, AsyncSQLiteStore
from tests.fakes.counters import WordCounter
from tests.fakes.summarizers import FakeSummarizer


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def budget_session(session_id: str = "s", *, threshold: int = 300, **kwargs: Any) -> SummemSession:
    reducer = SummarizationReducer(
        FakeSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=threshold,
        target_tokens=threshold * 2 // 3,
        summary_max_tokens=5,
    )
    return SummemSession(session_id, reducer=reducer, **kwargs)


# -- system and developer items stay where they are -------------------------------------------


async def test_system_and_developer_items_stay_in_place() -> None:
    session = SummemSession("s")
    items = [
        user("hi"),
        {"role": "developer", "content": "plan: free"},
        {"role": "assistant", "content": "hello"},
        {"type": "message", "role": "system", "content": [{"type": "input_text", "text": "v2"}]},
        user("upgrade me"),
        {"role": "developer", "content": "plan: pro"},
    ]
    await session.add_items(items[:3])
    await session.add_items(items[3:])
    assert await session.get_items() == items  # none moved to the front, none replaced
    assert session.memory.system is None
    assert [m["role"] for m in await session.memory.history()] == [
        "user",
        "developer",
        "assistant",
        "system",
        "user",
        "developer",
    ]


# -- items the SDK's sessions accept ------------------------------------------------------------


async def test_an_output_without_its_call_is_kept_in_place() -> None:
    session = SummemSession("s")
    items = [
        user("hi"),
        {"type": "function_call_output", "call_id": "never-seen", "output": "42"},
        {"role": "assistant", "content": "ok"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "1"},
        {"type": "function_call_output", "call_id": "c1", "output": "answered twice"},
    ]
    await session.add_items(items)
    assert await session.get_items() == items


async def test_tool_search_items() -> None:
    session = budget_session(threshold=300)
    unpaired = {
        "type": "tool_search_call",
        "id": "ts_0",
        "call_id": None,
        "arguments": {"query": "weather"},
        "execution": "server",
        "status": "completed",
    }
    await session.add_items([user("find a tool"), unpaired])  # call_id None: accepted
    assert (await session.get_items())[-1] == unpaired
    for i in range(40):
        call = {**unpaired, "id": f"ts_{i + 1}", "call_id": f"call_{i}", "execution": "client"}
        output = {
            "type": "tool_search_output",
            "id": f"tso_{i}",
            "call_id": f"call_{i}",
            "execution": "client",
            "status": "completed",
            "tools": [{"type": "function", "name": f"tool_{i}", "description": "word " * 10}],
        }
        await session.add_items([user(f"turn {i}"), call, output])
    view = await session.get_items()
    assert len(view) < 60  # the outputs answer their calls: the view shrinks (121 items added)
    history = await session.memory.history_messages()
    assert len(history) == 122
    pairs = [m for m in history if m.role == "tool"]
    assert len(pairs) == 40  # each output recognised as its call's answer


async def test_items_summem_does_not_understand_are_kept_opaque_in_place() -> None:
    session = budget_session(threshold=200)
    encrypted = {"__fernet__": "gAAAAABlZ" + "x" * 60, "session": "s"}  # EncryptedSession's
    odd = {"type": "some_future_item", "payload": {"a": [1, 2]}}
    broken = {"type": "function_call", "call_id": "c9"}  # neither name nor arguments
    items = [user("a"), encrypted, odd, broken, user("b")]
    await session.add_items(items)
    assert await session.get_items() == items  # given back unchanged, in place
    for i in range(30):
        await session.add_items([user(f"turn {i} " + "word " * 10)])
    summarizer = session.memory.reducer.summarizer  # type: ignore[attr-defined]
    seen = " ".join(m.text for m in summarizer.seen)
    assert "gAAAAA" not in seen and "[unknown item, kept as it came]" in seen  # never quoted


async def test_a_non_mapping_item_is_still_refused() -> None:
    session = SummemSession("s")
    with pytest.raises(ValueError, match="a mapping"):
        await session.add_items([user("a"), 42])
    assert await session.get_items() == []


# -- fresh reads ------------------------------------------------------------------------------


class CountingStore(AsyncInMemoryStore):
    """Counts whole reads (``load``) and cheap probes."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.probes = 0

    async def load(self, session_id: str) -> Any:
        self.loads += 1
        return await super().load(session_id)

    async def probe(self, session_id: str) -> tuple[str, int, int] | None:
        self.probes += 1
        return await super().probe(session_id)

    async def history(
        self, session_id: str, start: int = 0, stop: int | None = None
    ) -> list[Message]:
        return await super().history(session_id, start, stop)


async def test_two_sessions_on_one_id_see_each_others_writes_pops_and_clears() -> None:
    store = CountingStore()
    one, two = SummemSession("s", store=store), SummemSession("s", store=store)
    await one.add_items([user("a"), user("b")])
    assert await two.get_items() == [user("a"), user("b")]
    await two.add_items([user("c")])
    assert await one.get_items() == [user("a"), user("b"), user("c")]
    assert await two.pop_item() == user("c")
    assert await one.get_items() == [user("a"), user("b")]
    await one.clear_session()
    assert await two.get_items() == []
    await two.add_items([user("d")])
    assert await one.get_items() == [user("d")]


async def test_a_read_with_nothing_changed_is_one_probe_and_no_load() -> None:
    store = CountingStore()
    one, two = SummemSession("s", store=store), SummemSession("s", store=store)
    await one.add_items([user("a")])
    await two.get_items()
    loads, probes = store.loads, store.probes
    for _ in range(5):
        assert await two.get_items() == [user("a")]
    assert store.loads == loads  # nothing changed: no reload
    assert store.probes == probes + 5
    await one.add_items([user("b")])
    assert await two.get_items() == [user("a"), user("b")]
    assert store.loads == loads + 1  # changed: read once


# -- cancellation -----------------------------------------------------------------------------


class SlowAppendStore(AsyncInMemoryStore):
    """An append that lands, then takes a while to answer (a lost reply, a slow network)."""

    def __init__(self) -> None:
        super().__init__()
        self.landed = asyncio.Event()
        self.answer = asyncio.Event()
        self.slow = False

    async def append(self, session_id: str, messages: Sequence[Message]) -> int:
        length = await super().append(session_id, messages)
        if self.slow:
            self.landed.set()
            await self.answer.wait()
        return length


async def test_a_cancelled_add_that_landed_is_seen_by_the_same_instance() -> None:
    store = SlowAppendStore()
    session = SummemSession("s", store=store)
    await session.add_items([user("a")])
    store.slow = True
    task = asyncio.create_task(session.add_items([user("b")]))
    await store.landed.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    store.slow = False
    assert await session.get_items() == [user("a"), user("b")]  # not the stale view
    await session.add_items([user("c")])
    assert await session.get_items() == [user("a"), user("b"), user("c")]


# -- close ------------------------------------------------------------------------------------


def test_close_called_without_a_running_loop_closes(tmp_path: Path) -> None:
    session = SummemSession("s", store=f"sqlite:///{tmp_path / 's.db'}")
    asyncio.run(session.add_items([user("a")]))
    session.close()  # type: ignore[unused-coroutine]  # a script's last line: not awaited
    with pytest.raises(StoreError, match="closed"):
        asyncio.run(session.add_items([user("b")]))
    again = SummemSession("t")
    asyncio.run(again.close())  # the usual spelling still works
    with pytest.raises(StoreError, match="closed"):
        asyncio.run(again.get_items())


async def test_close_returned_through_a_sync_helper_and_awaited_closes() -> None:
    """No stack-frame inspection (#28 review): in a running loop ``close()`` is the coroutine
    to await, wherever it was called from."""
    session = SummemSession("s")
    await session.add_items([user("a")])

    def closer(s: SummemSession) -> Any:
        return s.close()

    await closer(session)
    with pytest.raises(SessionClosedError, match="closed") as info:
        await session.add_items([user("b")])
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, StoreError)


# -- no lock held across event loops ----------------------------------------------------------


class ParkingSummarizer(FakeSummarizer):
    """Summarizes once the test says so; signals (thread-safely) when a summary was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = threading.Event()
        self.park = True

    def summarize(self, request: Any) -> Any:
        if self.park:
            self.park = False
            return self._parked(request)
        return super().summarize(request)

    def _parked(self, request: Any) -> Any:
        self.asked.set()
        yield _Forever()  # a step that never answers while its loop does not run
        return (yield from super().summarize(request))


class _Forever:
    def run(self) -> Any:  # pragma: no cover - async only here
        raise AssertionError("sync")

    async def arun(self) -> Any:
        await asyncio.Event().wait()


def parked_session(tmp_path: Path) -> tuple[SummemSession, ParkingSummarizer]:
    summarizer = ParkingSummarizer()
    reducer = SummarizationReducer(
        summarizer,
        token_counter=WordCounter(),
        threshold_tokens=200,
        target_tokens=80,
        summary_max_tokens=5,
        soft_threshold_tokens=150,
        hard_limit_tokens=400,
    )
    store = AsyncSQLiteStore(str(tmp_path / "s.db"))
    memory = AsyncMemory("s", reducer=reducer, store=store, background=True)
    return SummemSession("s", memory=memory), summarizer


def park_a_reduction(
    session: SummemSession, summarizer: ParkingSummarizer
) -> asyncio.AbstractEventLoop:
    """As Runner.run_sync leaves it: a loop kept open, idle, a reduction parked on it."""
    loop = asyncio.new_event_loop()
    for i in range(12):
        loop.run_until_complete(session.add_items([user(f"turn {i} " + "word " * 10)]))
    loop.run_until_complete(asyncio.to_thread(summarizer.asked.wait))
    assert session.memory._reducing.locked()  # held by the parked reduction
    return loop


def resume_and_close(loop: asyncio.AbstractEventLoop) -> None:
    """The parked loop runs again (its thread's next run_sync): the parked task ends there."""
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    loop.close()


def in_thread(fn: Any) -> Any:
    """Run ``fn`` in a thread; a hang is reported (a deadlock guard, not a timing check)."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "blocked behind the reduction parked on another loop"
    return out[0]


def test_a_reduction_parked_on_an_idle_loop_blocks_no_other_loop(tmp_path: Path) -> None:
    session, summarizer = parked_session(tmp_path)
    parked = park_a_reduction(session, summarizer)
    big = [user(f"more {i} " + "word " * 30) for i in range(10)]  # past the hard limit
    in_thread(lambda: asyncio.run(session.add_items(big)))
    view = in_thread(lambda: asyncio.run(session.get_items()))
    assert sum(len(str(i.get("content", "")).split()) for i in view) <= 400
    popped = in_thread(lambda: asyncio.run(session.pop_item()))
    assert popped == big[-1]
    in_thread(lambda: asyncio.run(session.close()))
    resume_and_close(parked)
    assert not session.memory._reducing.locked()


def test_close_after_run_sync_left_a_reduction_parked(tmp_path: Path) -> None:
    session, summarizer = parked_session(tmp_path)
    parked = park_a_reduction(session, summarizer)
    in_thread(lambda: asyncio.run(session.close()))
    assert not session.memory._reducing.locked()
    resume_and_close(parked)
    store = AsyncSQLiteStore(str(tmp_path / "s.db"))
    assert in_thread(lambda: asyncio.run(store.acquire_lease("s", "someone-else", 30.0)))
    asyncio.run(store.close())


def test_get_items_returning_the_view_is_documented_beside_the_full_history() -> None:
    doc = " ".join((SummemSession.__doc__ or "").split())
    assert "returns the **view**" in doc and "counts back from the view's end" in doc
    assert "await session.memory.history()" in doc
    notes = (Path(__file__).resolve().parents[2] / "docs-notes" / "integrations.md").read_text()
    section = notes[notes.index("## OpenAI Agents SDK") :]
    assert "**`get_items(limit)` returns the view**" in section
    assert "await session.memory.history()" in section and "branch_messages" in section
