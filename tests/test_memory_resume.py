"""from_dict is atomic: a bad dict writes nothing, a failed write leaves nothing, one racer wins.

``Memory.from_dict`` / ``AsyncMemory.from_dict`` check the whole dict before opening the store,
then write the session with one ``Store.create``: a failure midway leaves no partial session
(so a retry succeeds), an existing session is never touched, and of several workers resuming
the same dict at once exactly one succeeds, with no message stored twice.
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from summem.async_memory import AsyncMemory
from summem.errors import ConflictError, StoreError
from summem.memory import Memory
from summem.messages import Message
from summem.stores import AsyncSQLiteStore, InMemoryStore, SQLiteStore
from summem.stores.base import Store
from summem.stores.sqlite.schema import SQL
from tests.fakes.memory import small_reducer
from tests.fakes.messages import call, sys, turn, u
from tests.fakes.summarizers import FakeSummarizer
from tests.stores.helpers import state_of


@cache
def _exported(turns: int) -> str:
    memory = Memory("s", reducer=small_reducer(FakeSummarizer(reply="fixed")))
    memory.add(sys("be brief"))
    for i in range(turns):
        memory.extend(turn(i))
    memory.add(call("pending"))
    return json.dumps(memory.to_dict())


def exported(turns: int = 9) -> dict[str, Any]:
    """A ``to_dict()`` of a reduced session, as it arrives from elsewhere (JSON)."""
    data: dict[str, Any] = json.loads(_exported(turns))
    assert data["watermark"] > 0 and data["summary"] is not None
    return data


def check_resumed(store: Store, data: dict[str, Any], view: list[Message] | None = None) -> None:
    """The store holds exactly the dict's session: every message once, in order, the view."""
    sid = data["session_id"]
    st = store.load(sid)
    ids = [m.id for m in store.history(sid)]
    assert ids == [r["id"] for r in data["history"]] and len(set(ids)) == len(ids)
    assert st.watermark == data["watermark"] and st.summary is not None
    assert st.summary.id == data["summary"]["id"]
    assert [s.id for s in store.summaries(sid)] == [data["summary"]["id"]]
    if view is not None:
        assert [m.id for m in view] == [m.id for m in st.view()]


def reducer() -> Any:
    return small_reducer(FakeSummarizer(reply="fixed"))


def broken_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make SQLite's summary-log insert fail: it runs after the history has been written."""
    monkeypatch.setattr(SQL, "LOG_SUMMARY", "INSERT INTO no_such_table VALUES (?, ?, ?, ?, ?)")


def test_a_write_failing_midway_leaves_nothing_and_a_retry_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = exported()
    store = SQLiteStore(tmp_path / "r.db")
    broken_log(monkeypatch)
    with pytest.raises(StoreError, match="'s'"):
        Memory.from_dict(data, reducer=reducer(), store=store)
    assert store.list_sessions() == [] and store.history("s") == []
    monkeypatch.undo()
    resumed = Memory.from_dict(data, reducer=reducer(), store=store)
    assert [m.id for m in resumed.history_messages()] == [r["id"] for r in data["history"]]
    assert resumed.summary is not None and resumed.summary.id == data["summary"]["id"]
    check_resumed(store, data, resumed.view())


async def test_async_a_write_failing_midway_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = exported()
    store = AsyncSQLiteStore(tmp_path / "r.db")
    broken_log(monkeypatch)
    with pytest.raises(StoreError, match="'s'"):
        await AsyncMemory.from_dict(data, reducer=reducer(), store=store)
    assert await store.list_sessions() == []
    monkeypatch.undo()
    resumed = await AsyncMemory.from_dict(data, reducer=reducer(), store=store)
    assert [m.id for m in await resumed.history_messages()] == [r["id"] for r in data["history"]]
    await store.close()


@pytest.mark.parametrize("shape", ["live", "cleared"])
def test_resuming_over_an_existing_session_raises_and_changes_nothing(
    tmp_path: Path, shape: str
) -> None:
    store = SQLiteStore(tmp_path / "r.db")
    there = Memory("s", reducer=reducer(), store=store)
    for i in range(6):
        there.extend(turn(100 + i))
    if shape == "cleared":
        there.clear()  # the session still exists (same epoch), empty
    before = state_of(store, "s")
    with pytest.raises(ConflictError, match="session 's' already exists"):
        Memory.from_dict(exported(), reducer=reducer(), store=store)
    assert state_of(store, "s") == before


def race(n: int, resume: Callable[[], object]) -> list[object]:
    barrier = threading.Barrier(n)
    outcomes: list[object] = [None] * n

    def run(i: int) -> None:
        barrier.wait(timeout=10)
        try:
            resume()
            outcomes[i] = "won"
        except BaseException as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    return outcomes


@pytest.mark.slow
def test_concurrent_resumes_of_one_dict_exactly_one_wins(tmp_path: Path) -> None:
    data = exported(150)  # more than one window of the history
    assert len(data["history"]) > 500
    path = tmp_path / "r.db"
    SQLiteStore(path).close()
    for round_ in range(3):
        data = {**data, "session_id": f"s{round_}"}

        def resume(data: dict[str, Any] = data) -> None:
            with SQLiteStore(path) as store:  # one connection per worker
                Memory.from_dict(data, reducer=reducer(), store=store).close()

        outcomes = race(4, resume)
        assert outcomes.count("won") == 1, outcomes
        assert all(isinstance(o, ConflictError) for o in outcomes if o != "won"), outcomes
        with SQLiteStore(path) as store:
            assert [m.id for m in store.history(data["session_id"])] == [
                r["id"] for r in data["history"]
            ]
            check_resumed(store, data)


async def test_async_concurrent_resumes_exactly_one_wins(tmp_path: Path) -> None:
    data = exported(150)
    stores = [AsyncSQLiteStore(tmp_path / "r.db") for _ in range(3)]
    await asyncio.gather(*(s.open() for s in stores))
    outcomes = await asyncio.gather(
        *(AsyncMemory.from_dict(data, reducer=reducer(), store=s) for s in stores),
        return_exceptions=True,
    )
    won = [o for o in outcomes if isinstance(o, AsyncMemory)]
    assert len(won) == 1 and all(isinstance(o, ConflictError) for o in outcomes if o not in won)
    assert [m.id for m in await won[0].history_messages()] == [r["id"] for r in data["history"]]
    for s in stores:
        await s.close()


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


BAD_DICTS = [
    pytest.param(_set(("format",), "other/1"), "format", id="format"),
    pytest.param(_set(("session_id",), None), "session id", id="session-id"),
    pytest.param(_set(("history",), None), "'history' must be a list", id="history-not-list"),
    pytest.param(_set(("history", 3), "text"), r"history\[3\].*got str", id="record-not-dict"),
    pytest.param(_set(("history", -1, "m"), {"role": "nobody"}), r"history\[\d+\]", id="role"),
    pytest.param(_set(("watermark",), 10_000), "watermark 10000 does not fit", id="wm-past"),
    pytest.param(_set(("watermark",), True), "'watermark' must be an int", id="wm-bool"),
    pytest.param(_set(("watermark",), "3"), "'watermark' must be an int", id="wm-str"),
    pytest.param(_set(("system", "m", "role"), "user"), "'system' is a 'user'", id="system"),
    pytest.param(_set(("summary", "s"), None), "provenance", id="summary-no-info"),
    pytest.param(_set(("summary", "s"), {"bogus": 1}), "'summary' is not a valid", id="info"),
    pytest.param(_set(("config",), []), "'config' must be a mapping", id="config"),
    pytest.param(_set(("config", "lease_ttl_seconds"), "abc"), "lease_ttl_seconds", id="ttl"),
    pytest.param(_set(("config", "lease_ttl_seconds"), 0), "lease_ttl_seconds", id="ttl-0"),
    pytest.param(_set(("config", "background"), "yes"), "'background'", id="background"),
    pytest.param(
        _set(("config", "reducer", "threshold"), "many"), "'reducer' is unusable", id="reducer"
    ),
]


@pytest.mark.parametrize(("corrupt", "match"), BAD_DICTS)
def test_a_bad_dict_is_rejected_before_anything_is_opened_or_written(
    tmp_path: Path, corrupt: Callable[[dict[str, Any]], None], match: str
) -> None:
    data = copy.deepcopy(exported())
    corrupt(data)
    db = tmp_path / "r.db"
    with pytest.raises(StoreError, match=match):
        Memory.from_dict(data, store=f"sqlite:///{db}")
    assert not db.exists()  # checked whole before the store was even opened
    store = InMemoryStore()
    with pytest.raises(StoreError, match=match):
        Memory.from_dict(data, store=store)
    assert store.list_sessions() == []


async def test_async_a_bad_dict_writes_nothing() -> None:
    data = copy.deepcopy(exported())
    data["history"][-1] = {"id": "x"}
    store = InMemoryStore()
    with pytest.raises(StoreError, match=r"history\[\d+\] is not a valid message record"):
        await AsyncMemory.from_dict(data, store=store)
    assert store.list_sessions() == []


def test_the_resumed_session_carries_its_summary_in_the_log() -> None:
    data = exported()
    resumed = Memory.from_dict(data, reducer=reducer())
    check_resumed(resumed.store, data, resumed.view())
    resumed.add(u("more"))
    resumed.rollback(data["summary"]["id"])  # the imported summary can be rolled back to
    assert resumed.summary is not None and resumed.summary.id == data["summary"]["id"]
    assert resumed.store.load("s").watermark == data["watermark"]


def _tampered() -> list[Any]:
    def dup_id(d: dict[str, Any]) -> None:
        d["history"][3]["id"] = d["history"][2]["id"]

    def dup_record(d: dict[str, Any]) -> None:
        d["history"].insert(4, copy.deepcopy(d["history"][4]))

    def orphan(d: dict[str, Any]) -> None:
        d["history"].insert(
            len(d["history"]) - 1,
            {"id": "m_orphan", "m": {"role": "tool", "tool_call_id": "nobody", "content": "x"}},
        )

    def result_before_call(d: dict[str, Any]) -> None:
        h = d["history"]
        call_at = next(i for i, r in enumerate(h) if r["m"].get("tool_calls"))
        h[call_at], h[call_at + 1] = h[call_at + 1], h[call_at]

    def split_group(d: dict[str, Any]) -> None:
        calls = [
            i for i, r in enumerate(d["history"][: d["watermark"]]) if r["m"].get("tool_calls")
        ]
        d["watermark"] = calls[-1] + 1  # right after a call, before its result
        d["summary"]["s"]["watermark"] = d["watermark"]

    def system_inside(d: dict[str, Any]) -> None:
        d["history"].insert(2, {"id": "m_sys", "m": {"role": "system", "content": "sneaky"}})

    def summary_inside(d: dict[str, Any]) -> None:
        d["history"].insert(2, {**copy.deepcopy(d["summary"]), "id": "m_sum"})

    def other_watermark(d: dict[str, Any]) -> None:
        d["summary"]["s"]["watermark"] = d["watermark"] - 4

    return [
        pytest.param(dup_id, "repeats the id", id="duplicate-id"),
        pytest.param(dup_record, "repeats the id", id="duplicate-record"),
        pytest.param(orphan, "answering no earlier call", id="orphan-result"),
        pytest.param(result_before_call, "answering no earlier call", id="result-before-call"),
        pytest.param(split_group, "splits a tool call", id="group-split-by-watermark"),
        pytest.param(system_inside, "system message goes in 'system'", id="system-in-history"),
        pytest.param(summary_inside, "is a summary", id="summary-in-history"),
        pytest.param(other_watermark, "but the watermark is", id="summary-watermark-differs"),
    ]


@pytest.mark.parametrize(("tamper", "reason"), _tampered())
def test_a_tampered_dict_is_refused_whole_and_names_the_record(
    tamper: Callable[[dict[str, Any]], None], reason: str
) -> None:
    data = exported()
    assert data["summary"] is not None and data["watermark"] > 4
    tamper(data)
    store = InMemoryStore()
    with pytest.raises(StoreError, match=reason):
        Memory.from_dict(data, store=store)
    assert store.list_sessions() == []  # nothing written
