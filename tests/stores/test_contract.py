"""The store contract, checked on every backend in both modes (registered in backends.KINDS)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from summem.errors import (
    ConfigurationError,
    ConflictError,
    InvalidSessionIdError,
    SessionNotFoundError,
    StoreError,
)
from summem.messages import Message, SummaryInfo, assistant, system, tool, user
from summem.stores.base import AsyncStore, Store
from tests.stores.backends import Backend, SyncFacade
from tests.stores.helpers import IDS, fill, reduce_to, snap, state_of, summary_msg


def rich_batch() -> list[Message]:
    return [
        Message.from_openai(
            {"role": "user", "content": "hi", "name": "ann", "x_vendor": {"trace": [1, 2]}}
        ),
        Message.from_openai(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"q": 1}'},
                    }
                ],
                "reasoning_content": "thinking",
            }
        ),
        tool('{"ok": true}', tool_call_id="call_1"),
        user([{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "u"}}]),
        user('naïve 日本語 🙂 "quotes" \\ backslash'),
    ]


# -- round trip ---------------------------------------------------------------------------


def test_round_trip_keeps_ids_extras_and_provenance(store: Store) -> None:
    batch = rich_batch()
    assert store.append("s", batch) == 5
    store.set_system("s", system("be brief"))
    st = store.load("s")
    assert [snap(m) for m in st.tail] == [snap(m) for m in batch]
    assert st.tail[0].to_openai()["x_vendor"] == {"trace": [1, 2]}
    assert st.tail[1].to_openai()["reasoning_content"] == "thinking"
    assert st.system is not None
    assert st.system.to_openai() == {"role": "system", "content": "be brief"}
    assert (st.length, st.watermark, st.summary) == (5, 0, None)

    info = SummaryInfo(
        covered_ids=tuple(m.id for m in batch[:3]),
        watermark=3,
        summarizer="llm:gpt-4o-mini",
        model="gpt-4o-mini",
        prompt="summarize@2",
        prompt_hash="abc",
        tokens=42,
        extra={"facts": [{"k": "v"}]},
    )
    summary = assistant("they looked something up").as_summary(info)
    store.commit("s", summary=summary, watermark=3, expected_version=0, expected_epoch=st.epoch)
    st = store.load("s")
    assert snap(st.summary) == snap(summary)
    assert st.summary is not None and st.summary.summary_info == info
    assert [m.id for m in st.tail] == [m.id for m in batch[3:]]
    assert [snap(m) for m in store.summaries("s")] == [snap(summary)]
    assert [snap(m) for m in st.view()] == [snap(st.system), snap(summary)] + [
        snap(m) for m in batch[3:]
    ]
    assert [snap(m) for m in store.history("s")] == [snap(m) for m in batch]


def test_unknown_session(store: Store) -> None:
    with pytest.raises(SessionNotFoundError, match="'nope'") as info:
        store.load("nope")
    assert isinstance(info.value, KeyError)
    assert not store.exists("nope")
    assert store.history("nope") == []
    assert store.summaries("nope") == []
    assert store.delete("nope") is False
    store.clear("nope")
    store.set_system("nope", None)
    assert store.append("nope", []) == 0
    assert not store.exists("nope")
    assert store.list_sessions() == []


def test_history_uses_slice_semantics(store: Store) -> None:
    batch = fill(store, "h", 7)
    ids = [m.id for m in batch]
    for start, stop in [
        (0, None),
        (2, 5),
        (-3, None),
        (0, -2),
        (5, 2),
        (10, None),
        (-10, 3),
        (3, 3),
        (0, 0),
        (-1, -1),
        (6, 100),
    ]:
        assert [m.id for m in store.history("h", start, stop)] == ids[start:stop], (start, stop)


def test_empty_append_and_set_system(store: Store) -> None:
    store.append("e", [user("a")])
    assert store.append("e", []) == 1
    store.set_system("e", system("one"))
    store.set_system("e", system("two"))
    assert store.load("e").system.text == "two"  # type: ignore[union-attr]
    store.set_system("e", None)
    st = store.load("e")
    assert st.system is None and st.version == 0 and st.length == 1


# -- version, epoch, commit ---------------------------------------------------------------


def test_version_and_epoch_semantics(store: Store) -> None:
    store.set_system("v", system("sys"))
    st = store.load("v")
    epoch = st.epoch
    assert st.version == 0 and epoch
    fill(store, "v", 4)
    assert store.load("v").version == 0  # appends never bump
    v1 = store.commit(
        "v", summary=summary_msg("s1", 2), watermark=2, expected_version=0, expected_epoch=epoch
    )
    assert v1 == 1 == store.load("v").version
    v2 = store.rollback("v", summary_id=None, expected_version=1)
    assert v2 == 2 == store.load("v").version
    store.clear("v")
    st = store.load("v")
    assert st.version == 3 and st.epoch == epoch
    store.delete("v")
    fill(store, "v", 1)
    assert store.load("v").epoch != epoch


def test_appends_during_a_reduction_do_not_conflict(store: Store) -> None:
    fill(store, "r", 6)
    planned = store.load("r")
    late = fill(store, "r", 2)
    store.commit(
        "r",
        summary=summary_msg("sum", 4),
        watermark=4,
        expected_version=planned.version,
        expected_epoch=planned.epoch,
    )
    st = store.load("r")
    assert st.length == 8 and st.watermark == 4
    assert [m.id for m in st.tail[-2:]] == [m.id for m in late]


def test_appends_are_idempotent_by_message_id(store: Store) -> None:
    first = [user(f"m{i}") for i in range(4)]
    assert store.append("s", first) == 4
    assert store.append("s", first) == 4  # again, whole: a no-op
    later = [user("m4"), user("m5")]
    assert store.append("s", [first[1], later[0], later[0], first[3], later[1]]) == 6
    assert [m.id for m in store.history("s")] == [m.id for m in first + later]
    reduce_to(store, "s", 5)  # ids behind the watermark still count
    assert store.append("s", first) == 6
    st = store.load("s")
    assert (st.length, st.watermark, [m.text for m in st.tail]) == (6, 5, ["m5"])
    assert store.append("t", first) == 4  # ids are per session
    store.clear("s")
    assert store.append("s", first[:2]) == 2  # a cleared session holds no ids
    store.create("u", history=first + later, watermark=2)
    assert store.append("u", [*later, user("m6")]) == 7  # a created history is indexed too
    assert [m.text for m in store.history("u")] == [f"m{i}" for i in range(7)]


def test_commit_may_keep_the_watermark_and_may_drop_the_summary(store: Store) -> None:
    fill(store, "t", 5)
    st = store.load("t")
    reduce_to(store, "t", 2, "a")
    reduce_to(store, "t", 2, "b")
    store.commit("t", summary=None, watermark=3, expected_version=2, expected_epoch=st.epoch)
    st = store.load("t")
    assert (st.summary, st.watermark, st.version, len(st.tail)) == (None, 3, 3, 2)
    assert [m.text for m in store.summaries("t")] == ["a", "b"]


@pytest.mark.parametrize(
    "change",
    ["stale_version", "stale_epoch", "backwards", "past_end", "negative", "deleted"],
)
def test_commit_conflicts_leave_data_unchanged(store: Store, change: str) -> None:
    fill(store, "c", 6)
    st = store.load("c")
    reduce_to(store, "c", 3, "s1")
    kwargs: dict[str, Any] = {"watermark": 4, "expected_version": 1, "expected_epoch": st.epoch}
    if change == "stale_version":
        kwargs["expected_version"] = 0
    elif change == "stale_epoch":
        kwargs["expected_epoch"] = "0" * 32
    elif change == "backwards":
        kwargs["watermark"] = 2
    elif change == "past_end":
        kwargs["watermark"] = 7
    elif change == "negative":
        kwargs["watermark"] = -1
    elif change == "deleted":
        store.delete("c")
    before = None if change == "deleted" else state_of(store, "c")
    with pytest.raises(ConflictError, match="'c'"):
        store.commit("c", summary=summary_msg("s2", kwargs["watermark"]), **kwargs)
    if change == "deleted":
        assert not store.exists("c")  # a reduction racing a delete does not bring it back
    else:
        assert state_of(store, "c") == before


def test_stale_epoch_after_delete_and_recreate(store: Store) -> None:
    fill(store, "d", 4)
    planned = store.load("d")
    store.delete("d")
    fill(store, "d", 4)
    fresh = store.load("d")
    assert fresh.version == planned.version  # only the epoch tells them apart
    before = state_of(store, "d")
    with pytest.raises(ConflictError):
        store.commit(
            "d",
            summary=summary_msg("old", 2),
            watermark=2,
            expected_version=planned.version,
            expected_epoch=planned.epoch,
        )
    with pytest.raises(ConflictError):
        store.rollback(
            "d", summary_id=None, expected_version=planned.version, expected_epoch=planned.epoch
        )
    assert state_of(store, "d") == before


# -- summaries log, rollback, clear -------------------------------------------------------


def test_summary_log_and_rollback(store: Store) -> None:
    fill(store, "l", 8)
    epoch = store.load("l").epoch
    s1, s2 = summary_msg("one", 2), summary_msg("two", 5)
    store.commit("l", summary=s1, watermark=2, expected_version=0, expected_epoch=epoch)
    store.commit("l", summary=s2, watermark=5, expected_version=1, expected_epoch=epoch)
    assert [snap(m) for m in store.summaries("l")] == [snap(s1), snap(s2)]

    assert store.rollback("l", summary_id=s1.id, expected_version=2, expected_epoch=epoch) == 3
    st = store.load("l")
    assert (snap(st.summary), st.watermark, len(st.tail)) == (snap(s1), 2, 6)
    assert [snap(m) for m in store.summaries("l")] == [snap(s1), snap(s2)]  # log is kept

    before = state_of(store, "l")
    with pytest.raises(ConflictError):
        store.rollback("l", summary_id=s2.id, expected_version=2)
    with pytest.raises(StoreError, match="no logged summary") as err:
        store.rollback("l", summary_id="m_missing", expected_version=3)
    assert not isinstance(err.value, ConflictError)
    assert state_of(store, "l") == before

    store.rollback("l", summary_id=s2.id, expected_version=3)
    assert store.load("l").watermark == 5
    store.rollback("l", summary_id=None, expected_version=4)
    st = store.load("l")
    assert (st.summary, st.watermark, st.version, len(st.tail)) == (None, 0, 5, 8)
    with pytest.raises(ConflictError):
        store.rollback("gone", summary_id=None, expected_version=0)


def test_clear_empties_and_beats_a_planned_reduction(store: Store) -> None:
    store.set_system("k", system("sys"))
    fill(store, "k", 5)
    epoch = store.load("k").epoch
    reduce_to(store, "k", 2, "s")
    planned = store.load("k")
    store.clear("k")
    st = store.load("k")
    assert store.exists("k")
    assert (st.length, st.watermark, st.summary, st.system, st.tail) == (0, 0, None, None, [])
    assert st.version == planned.version + 1 and st.epoch == epoch
    assert store.summaries("k") == [] and store.history("k") == []
    with pytest.raises(ConflictError):
        store.commit(
            "k",
            summary=summary_msg("late", 4),
            watermark=4,
            expected_version=planned.version,
            expected_epoch=planned.epoch,
        )
    assert state_of(store, "k")[2:5] == (0, 0, None)  # the old history did not come back
    again = fill(store, "k", 2)
    assert [m.id for m in store.load("k").tail] == [m.id for m in again]


# -- ids and isolation --------------------------------------------------------------------


def test_isolation_between_sessions(store: Store) -> None:
    for i, sid in enumerate(IDS):
        store.append(sid, [user(f"msg {i}")] * 1 + [user(f"more {i}")] * (i % 2))
        store.set_system(sid, system(f"sys {i}"))
    for i, sid in enumerate(IDS):
        st = store.load(sid)
        assert [m.text for m in st.tail] == [f"msg {i}"] + [f"more {i}"] * (i % 2), sid
        assert st.system is not None and st.system.text == f"sys {i}"
    assert store.list_sessions() == sorted(IDS)
    reduce_to(store, "a", 1, "s")
    store.clear("a:messages")
    assert store.delete("a}") is True
    assert store.acquire_lease("a", "w1", 10)
    assert store.acquire_lease("a:meta", "w2", 10)
    assert store.load("a").watermark == 1
    assert store.load("a:meta").summary is None and store.summaries("a:meta") == []
    assert [m.text for m in store.load("a").tail] == []
    assert [m.text for m in store.history("a")] == ["msg 0"]
    assert store.history("a:messages") == []
    assert [m.text for m in store.history("{a}")] == ["msg 4"]
    assert not store.exists("a}") and store.exists("a}:msgs")
    assert store.list_sessions() == sorted(set(IDS) - {"a}"})


@pytest.mark.parametrize("bad", [None, "", "   ", "a" * 1025, "a\x00b", "a\nb", 42, "\ud800"])
def test_invalid_ids_are_rejected(store: Store, bad: Any) -> None:
    calls = [
        lambda: store.load(bad),
        lambda: store.exists(bad),
        lambda: store.history(bad),
        lambda: store.append(bad, [user("x")]),
        lambda: store.set_system(bad, system("x")),
        lambda: store.commit(bad, summary=None, watermark=0, expected_version=0, expected_epoch=""),
        lambda: store.summaries(bad),
        lambda: store.rollback(bad, summary_id=None, expected_version=0),
        lambda: store.clear(bad),
        lambda: store.delete(bad),
        lambda: store.acquire_lease(bad, "o", 1),
        lambda: store.release_lease(bad, "o"),
    ]
    for call in calls:
        with pytest.raises(InvalidSessionIdError):
            call()
    assert store.list_sessions() == []


# -- leases -------------------------------------------------------------------------------


def until_acquired(store: Store, session_id: str, owner: str) -> None:
    """Poll until ``owner`` takes the lease (the store's clock, a server's for some: no fake
    clock to turn), within a deadline far longer than any short TTL here."""
    deadline = time.monotonic() + 30
    while not store.acquire_lease(session_id, owner, 5):
        assert time.monotonic() < deadline, f"the lease on {session_id!r} never expired"
        time.sleep(0.01)


def test_lease_is_exclusive_reentrant_and_expires(store: Store) -> None:
    assert store.acquire_lease("L", "w1", 0.1)
    assert store.acquire_lease("M", "w1", 0.1)  # a witness, taken after L's first 0.1 s
    assert store.acquire_lease("L", "w1", 30)  # re-entrant, extends
    until_acquired(store, "M", "w3")  # so L's first 0.1 s are over by the store's clock
    assert not store.acquire_lease("L", "w2", 5)  # still held: the second call extended it
    store.release_lease("L", "w2")  # not the owner: no effect
    assert not store.acquire_lease("L", "w2", 5)
    store.release_lease("L", "w1")
    assert store.acquire_lease("L", "w2", 60)
    assert not store.acquire_lease("L", "w1", 5)
    assert store.acquire_lease("L", "w2", 0.1)  # re-entrant: shortened to 0.1 s (from 60)
    until_acquired(store, "L", "w1")  # w2's lease expired (well before the 60 s)
    assert not store.exists("L")  # a lease does not create a session
    with pytest.raises(ConfigurationError):
        store.acquire_lease("L", "", 5)
    with pytest.raises(ConfigurationError):
        store.acquire_lease("L", "w1", 0)


def test_delete_drops_the_lease(store: Store) -> None:
    fill(store, "x", 1)
    assert store.acquire_lease("x", "w1", 30)
    assert store.delete("x")
    assert store.acquire_lease("x", "w2", 30)


# -- protocols ----------------------------------------------------------------------------


def test_stores_satisfy_their_protocol(backend: Backend) -> None:
    store = backend.make()
    raw = backend.raw(store)
    if isinstance(store, SyncFacade):
        assert isinstance(raw, AsyncStore)
    else:
        assert isinstance(raw, Store)
