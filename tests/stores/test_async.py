"""The async stores in a real event loop (the contract suite drives them from threads)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, cast

import pytest

from summem.errors import StoreError
from summem.messages import user
from summem.stores import AsyncSQLiteStore
from summem.stores.base import AsyncStore
from summem.stores.sqlite.file import SQLiteFile
from tests.stores.backends import KINDS, Backend, unique_prefix


def make(kind: str, tmp_path: Path) -> AsyncStore:
    """The async store of a registered backend, to use in this test's own loop."""
    KINDS[kind].require()
    backend = Backend(kind, "async", tmp_path, prefix=unique_prefix())
    return cast(AsyncStore, KINDS[kind].make(backend, "async"))


@pytest.mark.parametrize("kind", [pytest.param(k.name, marks=k.marks) for k in KINDS.values()])
async def test_concurrent_tasks_in_one_loop(kind: str, tmp_path: Path) -> None:
    store = make(kind, tmp_path)
    async with store:  # type: ignore[attr-defined]
        try:
            await asyncio.gather(
                *(store.append("s", [user(f"{t}:{i}") for i in range(3)]) for t in range(20))
            )
            state = await store.load("s")
            texts = [m.text for m in state.tail]
            assert len(texts) == len(set(texts)) == 60
            for t in range(20):  # each batch stayed contiguous
                start = texts.index(f"{t}:0")
                assert texts[start : start + 3] == [f"{t}:{i}" for i in range(3)]
            assert await store.list_sessions() == ["s"]
        finally:
            await store.delete("s")


async def test_async_sqlite_store_opens_its_file_once_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened_in: list[int] = []
    migrate = SQLiteFile._migrate

    def spy(self: SQLiteFile) -> None:
        opened_in.append(threading.get_ident())
        migrate(self)

    monkeypatch.setattr(SQLiteFile, "_migrate", spy)
    path = tmp_path / "lazy.db"
    store = AsyncSQLiteStore(path)
    assert opened_in == [] and not path.exists()  # building it did no I/O
    assert await asyncio.gather(*(store.exists("s") for _ in range(6))) == [False] * 6
    assert len(opened_in) == 1 and opened_in[0] != threading.get_ident()
    await store.append("s", [user("x")])
    assert [m.text for m in (await store.load("s")).tail] == ["x"]
    await store.close()
    async with AsyncSQLiteStore(path) as again:  # async with opens it, in a worker thread
        assert len(opened_in) == 2 and opened_in[1] != threading.get_ident()
        assert await again.list_sessions() == ["s"]


async def test_async_sqlite_store_reports_a_bad_file_on_open_and_on_first_use(
    tmp_path: Path,
) -> None:
    store = AsyncSQLiteStore(tmp_path / "missing-dir" / "a.db")  # no error yet: no I/O
    with pytest.raises(StoreError, match=r"cannot open|unable to open"):
        async with store:
            pass
    with pytest.raises(StoreError, match=r"cannot open|unable to open"):
        await store.load("s")
    await store.close()


async def test_async_sqlite_store_repr_is_its_sync_twins(tmp_path: Path) -> None:
    store = AsyncSQLiteStore(tmp_path / "a.db")
    assert repr(store) == f"AsyncSQLiteStore({str(tmp_path / 'a.db')!r})"
    await store.close()


async def test_an_adapter_offers_the_spend_ledger_of_the_store_it_wraps() -> None:
    from summem.stores.adapter import AsyncStoreAdapter
    from summem.stores.memory import InMemoryStore

    inner = InMemoryStore()
    ledger = AsyncStoreAdapter(inner).spend_ledger()
    assert ledger is not None
    await ledger.record_spend("k", at=1.0, tokens=3, cost_usd=0.5)
    assert await ledger.spent_since("k") == inner.spent_since("k")
    assert inner.spent_since("k").tokens == 3

    class Plain:  # a store without a ledger
        def close(self) -> None:
            pass

    assert AsyncStoreAdapter(cast(Any, Plain())).spend_ledger() is None
