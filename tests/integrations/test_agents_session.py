"""``SummemSession`` on its own: the Agents SDK's session protocol, no SDK needed.

The protocol is structural, so these checks run wherever summem is installed. They are adapted
from the SDK's ``tests/memory/test_session.py`` (written for ``SQLiteSession``): add, get, clear,
pop, ``limit``, unicode and SQL metacharacters; the checks that need the SDK's ``Runner`` are in
``test_agents.py``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from summem import AsyncMemory, SummarizationReducer
from summem.errors import (
    ConfigurationError,
    MessageTypeError,
    MessageValidationError,
    SessionClosedError,
    StoreError,
)
from summem.integrations.agents import SummemSession
from summem.stores import AsyncSQLiteStore
from tests.fakes.counters import WordCounter
from tests.fakes.summarizers import FakeSummarizer


def db(tmp_path: Path) -> AsyncSQLiteStore:
    return AsyncSQLiteStore(str(tmp_path / "sessions.db"))


def small_session(session_id: str = "user-42") -> SummemSession:
    reducer = SummarizationReducer(
        FakeSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=120,
        target_tokens=80,
        summary_max_tokens=5,
    )
    return SummemSession(session_id, reducer=reducer)


class Settings:
    """Stands for the SDK's ``SessionSettings``: an object with a ``limit``."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit


async def test_session_settings_without_the_sdk() -> None:
    session = SummemSession("s", session_settings=Settings(3))
    await session.add_items([{"role": "user", "content": f"Message {i}"} for i in range(5)])
    assert [i["content"] for i in await session.get_items()] == [f"Message {i}" for i in (2, 3, 4)]
    assert len(await session.get_items(limit=-1)) == 5
    as_dict = SummemSession("s2", session_settings={"limit": 1})
    await as_dict.add_items([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    assert await as_dict.get_items() == [{"role": "user", "content": "b"}]
    unset = SummemSession("s3", session_settings=Settings(None))
    await unset.add_items([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    assert len(await unset.get_items()) == 2


async def test_dict_settings_stay_a_dict_without_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agents.memory.session_settings", None)  # not importable
    session = SummemSession("s", session_settings={"limit": 1})
    assert session.session_settings == {"limit": 1}
    await session.add_items([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    assert await session.get_items() == [{"role": "user", "content": "b"}]


async def test_a_closed_session_refuses_even_an_empty_add() -> None:
    session = SummemSession("s")
    await session.close()
    with pytest.raises(RuntimeError, match="closed") as info:  # as SQLiteSession raises
        await session.add_items([])
    assert isinstance(info.value, SessionClosedError) and isinstance(info.value, StoreError)


async def test_an_item_json_cannot_hold_is_a_type_error_and_nothing_is_stored() -> None:
    session = SummemSession("s")
    await session.add_items([{"role": "user", "content": "kept"}])
    with pytest.raises(TypeError, match="not a JSON value") as info:  # as json.dumps raises
        await session.add_items([{"role": "user", "content": object()}])
    assert isinstance(info.value, MessageTypeError)
    assert isinstance(info.value, MessageValidationError)
    assert await session.get_items() == [{"role": "user", "content": "kept"}]
    await session.close()


async def test_add_nothing_and_a_bad_item() -> None:
    session = SummemSession("s")
    await session.add_items([])
    with pytest.raises(ValueError, match="a mapping"):
        await session.add_items(
            [{"role": "user", "content": "kept? no: the batch is refused whole"}, "not an item"]
        )
    assert await session.get_items() == []


async def test_session_direct(tmp_path: Path) -> None:
    session = SummemSession("direct_test", store=db(tmp_path))
    items = [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi there!"}]
    await session.add_items(items)
    assert await session.get_items() == items
    await session.clear_session()
    assert await session.get_items() == []
    await session.close()


async def test_pop_item(tmp_path: Path) -> None:
    session = SummemSession("pop_test", store=db(tmp_path))
    assert await session.pop_item() is None
    items = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi there!"},
        {"role": "user", "content": "How are you?"},
    ]
    await session.add_items(items)
    assert len(await session.get_items()) == 3
    assert await session.pop_item() == items[2]
    assert await session.get_items() == items[:2]
    assert await session.pop_item() == items[1]
    assert await session.pop_item() == items[0]
    assert await session.pop_item() is None
    assert await session.get_items() == []
    await session.add_items(items[:1])  # the session works on after being emptied
    assert await session.get_items() == items[:1]
    await session.close()


async def test_pop_only_affects_its_session(tmp_path: Path) -> None:
    store = db(tmp_path)
    one, two = SummemSession("session_1", store=store), SummemSession("session_2", store=store)
    await one.add_items([{"role": "user", "content": "Session 1 message"}])
    await two.add_items(
        [
            {"role": "user", "content": "Session 2 message 1"},
            {"role": "user", "content": "Session 2 message 2"},
        ]
    )
    assert (await two.pop_item())["content"] == "Session 2 message 2"
    assert [i["content"] for i in await one.get_items()] == ["Session 1 message"]
    assert [i["content"] for i in await two.get_items()] == ["Session 2 message 1"]
    await store.close()


async def test_get_items_with_limit() -> None:
    session = SummemSession("count_test")
    items = [
        {"role": role, "content": f"{kind} {n}"}
        for n in (1, 2, 3)
        for role, kind in (("user", "Message"), ("assistant", "Response"))
    ]
    await session.add_items(items)
    assert await session.get_items() == items
    assert await session.get_items(limit=2) == items[-2:]
    assert await session.get_items(limit=4) == items[-4:]
    assert await session.get_items(limit=10) == items
    assert await session.get_items(limit=0) == []
    assert await session.get_items(limit=-1) == items


async def test_unicode_and_special_characters(tmp_path: Path) -> None:
    session = SummemSession("unicode", store=db(tmp_path))
    items = [
        {"role": "user", "content": "こんにちは"},
        {"role": "assistant", "content": "😊👍"},
        {"role": "user", "content": "O'Reilly"},
        {"role": "assistant", "content": "Robert'); DROP TABLE students;--"},
    ]
    await session.add_items(items)
    again = SummemSession("unicode", memory=AsyncMemory("unicode", store=session.memory.store))
    assert await again.get_items() == items
    await session.close()


async def test_memory_argument_checks() -> None:
    memory = AsyncMemory("a")
    assert SummemSession("a", memory=memory).memory is memory
    with pytest.raises(ConfigurationError, match="not 'b'"):
        SummemSession("b", memory=memory)
    with pytest.raises(ConfigurationError, match="not both"):
        SummemSession("a", memory=memory, store="memory://")
    with pytest.raises(ConfigurationError, match="AsyncMemory"):
        SummemSession("a", memory=object())  # type: ignore[arg-type]
    assert repr(SummemSession("a")) == "SummemSession('a')"


async def test_pop_of_an_item_the_summary_covers_rolls_the_summary_back() -> None:
    session = small_session()
    items = [{"role": "user", "content": f"turn {i} " + "word " * 30} for i in range(6)]
    await session.add_items(items)
    memory = session.memory
    assert memory.summary is not None  # reduced: the summary covers the first items
    covered = (await memory.to_dict())["watermark"]
    for _ in range(len(items) - covered + 1):  # down into what the summary covers
        await session.pop_item()
    remaining = await memory.history()
    assert [m["content"] for m in remaining] == [i["content"] for i in items[: covered - 1]]
    view = await session.get_items()
    assert view[-len(remaining) :] == items[: covered - 1] or memory.summary is not None
    # nothing is lost: each popped item is a branch of its own
    popped = [await memory.branch_messages(b.id) for b in await memory.branches()]
    assert [m[0]["content"] for m in popped] == [i["content"] for i in items[covered - 1 :]][::-1]


def test_sync_use_from_another_loop() -> None:
    session = SummemSession("loop")
    asyncio.run(session.add_items([{"role": "user", "content": "hi"}]))
    assert asyncio.run(session.get_items()) == [{"role": "user", "content": "hi"}]


async def _legacy_backup(store: AsyncSQLiteStore, session_id: str, items: list[Any]) -> None:
    """What summem 0.x's pop_item left when it died mid-way: a copy under its backup id."""
    from summem.integrations.agents import _legacy_backup_id

    backup = AsyncMemory(_legacy_backup_id(session_id), store=store)
    await backup.add_items(items)
    await backup.close()


async def test_a_legacy_pop_backup_restores_a_session_it_removed(tmp_path: Path) -> None:
    store = db(tmp_path)
    items = [{"role": "user", "content": f"message {i}"} for i in range(3)]
    await _legacy_backup(store, "crashy", items)  # the session itself was deleted
    session = SummemSession("crashy", store=store)
    assert await session.get_items() == items  # restored whole from the backup
    assert await store.list_sessions() == ["crashy"]  # and the backup is gone
    assert await session.pop_item() == items[2]
    assert await session.get_items() == items[:2]
    assert await store.list_sessions() == ["crashy"]
    await store.close()


async def test_a_legacy_pop_backup_beside_its_session_is_only_removed(tmp_path: Path) -> None:
    store = db(tmp_path)
    items = [{"role": "user", "content": f"message {i}"} for i in range(2)]
    written = AsyncMemory("crashy", store=store)
    await written.add_items(items)  # the session was never removed: it counts, not the backup
    await written.close()
    await _legacy_backup(store, "crashy", [*items, {"role": "user", "content": "old copy"}])
    assert len(await store.list_sessions()) == 2
    again = SummemSession("crashy", store=store)
    assert await again.get_items() == items
    assert await store.list_sessions() == ["crashy"]
    await store.close()


async def test_pop_and_clear_never_delete_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = db(tmp_path)
    session = SummemSession("kept", store=store)
    items = [{"role": "user", "content": f"message {i}"} for i in range(3)]
    await session.add_items(items)

    async def no_delete(session_id: str) -> bool:
        raise AssertionError(f"{session_id!r} deleted")

    monkeypatch.setattr(store, "delete", no_delete)
    monkeypatch.setattr(store, "create", no_delete)
    assert await session.pop_item() == items[2]
    await session.clear_session()
    assert await session.get_items() == []
    memory = session.memory
    kept = [await memory.branch_messages(b.id) for b in await memory.branches()]
    assert [[m["content"] for m in k] for k in kept] == [["message 2"], ["message 0", "message 1"]]
    await session.add_items(items[:1])
    assert await session.get_items() == items[:1]
    monkeypatch.undo()
    await store.close()


def test_threads_each_running_their_own_loop_share_one_session(tmp_path: Path) -> None:
    """The SDK's ``Runner.run_sync`` from several threads: one session, a loop per thread."""
    import threading

    session = SummemSession("threads", store=f"sqlite:///{tmp_path / 's.db'}")
    errors: list[BaseException] = []

    def thread(tag: str) -> None:
        async def turns() -> None:
            for i in range(10):
                await session.add_items([{"role": "user", "content": f"{tag} {i}"}])
                await session.get_items()

        try:
            asyncio.run(turns())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=thread, args=(t,)) for t in "ABC"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    history = asyncio.run(session.memory.history())
    for tag in "ABC":
        assert [m["content"] for m in history if m["content"].startswith(tag)] == [
            f"{tag} {i}" for i in range(10)
        ]
    asyncio.run(session.memory.close())


async def test_pop_on_a_store_that_cannot_branch_says_so_at_once() -> None:
    from tests.stores.test_append_only_store import AppendOnlyStore

    store = AppendOnlyStore()
    session = SummemSession("s", store=store)
    await session.add_items([{"role": "user", "content": "a"}])
    calls = 0
    real = session.memory.pop

    async def counted(n: int = 1) -> Any:
        nonlocal calls
        calls += 1
        return await real(n)

    session.memory.pop = counted  # type: ignore[method-assign]
    with pytest.raises(ConfigurationError, match="AppendOnlyStore"):
        await session.pop_item()
    assert calls == 1  # not retried: nothing raced it
    assert await session.get_items() == [{"role": "user", "content": "a"}]
