"""The store contract for ``create``: a whole session in one atomic write, on every backend.

A create lands whole (history ids, system, summary with provenance and its log entry,
watermark) or not at all; it never touches an existing session; bad input fails before any
write, naming what is wrong; and of concurrent creators of one id exactly one wins.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from summem.errors import ConflictError, StoreError
from summem.messages import Message, SummaryInfo, assistant, system, tool, user
from summem.stores.base import Store
from tests.stores import _workers
from tests.stores.backends import Backend
from tests.stores.helpers import IDS, fill, reduce_to, snap, state_of


def conversation(tag: str, n: int = 6) -> list[Message]:
    call = {"id": f"{tag}-c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    msgs = [user(f"{tag}:{i}") for i in range(n)]
    return [
        *msgs[:2],
        assistant(None, tool_calls=[call]),
        tool("42", tool_call_id=f"{tag}-c"),
        *msgs[2:],
    ]


def summary_of(history: list[Message], k: int) -> Message:
    return assistant("the gist").as_summary(
        SummaryInfo(
            covered_ids=tuple(m.id for m in history[:k]),
            watermark=k,
            summarizer="llm:test",
            model="m",
            prompt="summarize@2",
            prompt_hash="abc",
            tokens=3,
            extra={"facts": ["42"]},
        )
    )


def test_create_round_trips_exactly(store: Store) -> None:
    history = conversation("a")
    summary = summary_of(history, 4)
    sys_msg = system("be brief")
    store.create("a", history=history, system=sys_msg, summary=summary, watermark=4)
    st = store.load("a")
    assert (st.version, st.watermark, st.length) == (0, 4, len(history)) and st.epoch
    assert snap(st.system) == snap(sys_msg) and snap(st.summary) == snap(summary)
    assert [snap(m) for m in st.tail] == [snap(m) for m in history[4:]]
    assert [snap(m) for m in store.history("a")] == [snap(m) for m in history]
    assert [snap(m) for m in store.summaries("a")] == [snap(summary)]
    assert [m.id for m in st.view()] == [sys_msg.id, summary.id, *(m.id for m in history[4:])]
    assert store.list_sessions() == ["a"]
    # an ordinary session from here on: append, commit with CAS, roll back to the import
    fill(store, "a", 2)
    reduce_to(store, "a", 7, "later")
    st = store.load("a")
    store.rollback("a", summary_id=summary.id, expected_version=st.version)
    st = store.load("a")
    assert st.watermark == 4 and snap(st.summary) == snap(summary) and st.length == 10


def test_create_without_summary_or_system(store: Store) -> None:
    history = conversation("t")
    store.create("t", history=history, watermark=3)  # a truncation: no summary
    st = store.load("t")
    assert (st.watermark, st.summary, st.system, st.version) == (3, None, None, 0)
    assert store.summaries("t") == []
    store.create("empty", history=[])
    assert store.exists("empty") and store.load("empty").length == 0


def test_create_keeps_ids_apart(store: Store) -> None:
    for i, sid in enumerate(IDS):
        store.create(sid, history=[user(f"{i}:{j}") for j in range(i % 3 + 1)])
    assert store.list_sessions() == sorted(IDS)
    for i, sid in enumerate(IDS):
        assert [m.text for m in store.history(sid)] == [f"{i}:{j}" for j in range(i % 3 + 1)]


@pytest.mark.parametrize("shape", ["full", "system-only", "cleared"])
def test_create_over_an_existing_session_raises_and_changes_nothing(
    store: Store, shape: str
) -> None:
    if shape == "full":
        fill(store, "x", 5)
        reduce_to(store, "x", 3)
    elif shape == "system-only":
        store.set_system("x", system("old"))
    else:
        fill(store, "x", 2)
        store.clear("x")
    fill(store, "other", 1)
    before, other = state_of(store, "x"), state_of(store, "other")
    history = conversation("new")
    with pytest.raises(ConflictError, match="session 'x' already exists"):
        store.create(
            "x", history=history, system=system("new"), summary=summary_of(history, 2), watermark=2
        )
    assert state_of(store, "x") == before and state_of(store, "other") == other


class _Broken(Exception):
    pass


def _failing_after(messages: list[Message], n: int) -> Iterator[Message]:
    yield from messages[:n]
    raise _Broken("the source went away")


def _bad_inputs(history: list[Message]) -> list[tuple[dict[str, Any], str]]:
    # with_meta refuses a value that is not JSON; a store must still refuse one it is handed
    bad = user("x")._clone(_meta={"handle": object()})
    unencodable = [*history[:3], bad, *history[3:]]
    return [
        ({"history": unencodable}, r"history\[3\] cannot be stored"),
        ({"history": [*history[:2], {"role": "user"}]}, r"history\[2\] is a dict"),
        ({"history": _failing_after(history, 3)}, "cannot be read"),
        ({"history": history, "watermark": len(history) + 1}, "does not fit"),
        ({"history": history, "watermark": -1}, "does not fit"),
        ({"history": history, "watermark": True}, "must be an int"),
        ({"history": history, "watermark": 2, "summary": assistant("s")}, "provenance"),
        ({"history": history, "system": user("s")._clone(_meta={"x": {1}})}, "system message"),
    ]


def test_bad_input_writes_nothing_and_a_retry_succeeds(store: Store) -> None:
    history = conversation("b")
    for kwargs, match in _bad_inputs(history):
        with pytest.raises(StoreError, match=match) as info:
            store.create("b", **kwargs)
        assert "'b'" in str(info.value)
        assert not store.exists("b") and store.history("b") == []
    assert store.list_sessions() == []
    store.create("b", history=history, summary=summary_of(history, 2), watermark=2)
    assert [m.id for m in store.history("b")] == [m.id for m in history]


def race(stores: list[Store], sid: str) -> tuple[list[Any], list[list[Message]]]:
    """Every store creates ``sid`` at once, each with its own history; what each one got."""
    barrier = threading.Barrier(len(stores))
    histories = [conversation(f"w{i}", 40) for i in range(len(stores))]
    outcomes: list[Any] = [None] * len(stores)

    def run(i: int) -> None:
        h = histories[i]
        barrier.wait(timeout=10)
        try:
            stores[i].create(sid, history=h, summary=summary_of(h, 5), watermark=5)
            outcomes[i] = "won"
        except BaseException as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(stores))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    return outcomes, histories


def test_concurrent_creates_of_one_id_exactly_one_wins(backend: Backend) -> None:
    stores = [backend.make() for _ in range(3)]
    for round_ in range(5):
        sid = f"race-{round_}"
        outcomes, histories = race(stores, sid)
        assert outcomes.count("won") == 1, outcomes
        losers = [o for o in outcomes if o != "won"]
        assert all(isinstance(o, ConflictError) and repr(sid) in str(o) for o in losers), losers
        winner = histories[outcomes.index("won")]
        assert [m.id for m in stores[0].history(sid)] == [m.id for m in winner]
        assert len(stores[0].summaries(sid)) == 1 and stores[0].load(sid).version == 0


@pytest.mark.slow
def test_two_processes_create_one_id(multiprocess: Backend) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(
            target=_workers.create_main, args=(multiprocess.spec, "P", f"p{i}", barrier, queue)
        )
        for i in range(2)
    ]
    for p in procs:
        p.start()
    reports = sorted((queue.get(timeout=60) for _ in procs), key=lambda r: r["outcome"])
    for p in procs:
        p.join(timeout=30)
    assert [r["outcome"] for r in reports] == ["ConflictError", "won"], reports
    store = multiprocess.make()
    assert [m.text for m in store.history("P")] == [f"{reports[1]['tag']}:{i}" for i in range(300)]
    assert len(store.summaries("P")) == 1


# -- writes that fail midway (the backends that persist) ----------------------------------------


def _leftover_keys(backend: Backend) -> list[bytes]:
    """The sessions' keys (the session index, ``<prefix>:sessions``, is the store's own)."""
    client = backend.redis_client()
    return sorted(client.scan_iter(match=f"{backend.prefix}:{{*", count=1000))


def test_a_write_failing_midway_leaves_no_session_and_a_retry_succeeds(
    persistent: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = persistent.make()
    fill(store, "other", 2)
    other = state_of(store, "other")
    history = conversation("f", 30)
    check_leftovers = persistent.registered.fail_create_midway(persistent, store, monkeypatch)
    with pytest.raises(StoreError, match="'f'"):
        store.create("f", history=history, summary=summary_of(history, 9), watermark=9)
    assert not store.exists("f") and store.history("f") == [] and store.summaries("f") == []
    assert store.list_sessions() == ["other"] and state_of(store, "other") == other
    check_leftovers()
    monkeypatch.undo()
    store.create("f", history=history, summary=summary_of(history, 9), watermark=9)
    assert [m.id for m in store.history("f")] == [m.id for m in history]
    assert store.load("f").watermark == 9 and len(store.summaries("f")) == 1


def test_redis_stages_a_long_history_and_renames_it_into_place(redis_backend: Backend) -> None:
    store = redis_backend.make()
    raw = redis_backend.raw(store)
    raw.create_chunk_bytes = 2000  # about 30 messages per call
    history = [user(f"long message number {i} " + "x" * 30) for i in range(1000)]
    store.create("long", history=history, summary=summary_of(history, 600), watermark=600)
    assert [m.id for m in store.history("long")] == [m.id for m in history]
    assert store.load("long").length == 1000
    keys = _leftover_keys(redis_backend)
    assert not [k for k in keys if b":import:" in k] and len(keys) == 3  # meta, msgs, sums
    # a second creator learns of the conflict at its first chunk, and leaves nothing
    with pytest.raises(ConflictError, match="'long' already exists"):
        store.create("long", history=history)
    assert _leftover_keys(redis_backend) == keys
    assert [m.id for m in store.history("long")] == [m.id for m in history]


def test_redis_a_crashed_create_leaves_only_an_expiring_staging_list(
    redis_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    store = redis_backend.make()
    raw = redis_backend.raw(store)
    raw.create_chunk_messages = 5

    def down(*args: Any, **kwargs: Any) -> Any:
        raise redis.exceptions.ConnectionError("server went away")

    monkeypatch.setitem(raw._scripts, "create", down)
    monkeypatch.setitem(raw._scripts, "discard", down)  # the cleanup cannot run either
    history = conversation("c", 20)
    with pytest.raises(StoreError, match="'c'"):
        store.create("c", history=history)
    staged = [k for k in _leftover_keys(redis_backend) if b":import:" in k]
    assert len(staged) == 1 and not store.exists("c") and store.list_sessions() == []
    client = redis_backend.redis_client()
    assert 0 < client.pttl(staged[0]) <= raw.create_stage_ttl_seconds * 1000
    monkeypatch.undo()
    store.create("c", history=history)  # a retry stages under a new key
    assert [m.id for m in store.history("c")] == [m.id for m in history]


def test_redis_a_lost_staging_list_fails_the_create_cleanly(
    redis_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = redis_backend.make()
    raw = redis_backend.raw(store)
    raw.create_chunk_messages = 4
    real_create = raw._scripts["create"]
    client = redis_backend.redis_client()

    def expire_first(*args: Any, keys: list[str], **kwargs: Any) -> Any:
        client.delete(keys[3])  # the staging list expired before the last call
        return real_create(*args, keys=keys, **kwargs)

    monkeypatch.setitem(raw._scripts, "create", expire_first)
    with pytest.raises(StoreError, match="staged history was lost"):
        store.create("l", history=conversation("l", 20))
    assert not store.exists("l") and _leftover_keys(redis_backend) == []
