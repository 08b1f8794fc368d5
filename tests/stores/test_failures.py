"""Corrupt records and failed writes, on the backends that persist (SQLite, Redis, PostgreSQL).

A record that cannot be decoded raises CorruptRecordError naming the session and leaves other
sessions working; a write that fails midway leaves nothing behind.
"""

from __future__ import annotations

from typing import Any

import pytest

from summem.errors import CorruptRecordError, StoreError, StoreOutcomeUnknownError
from summem.messages import user
from tests.stores.backends import Backend
from tests.stores.helpers import fill, reduce_to, state_of


def test_corrupt_message_names_the_session_and_spares_others(persistent: Backend) -> None:
    store = persistent.make()
    fill(store, "bad", 3)
    fill(store, "good", 3)
    persistent.corrupt_message("bad", 1)
    for call in (lambda: store.load("bad"), lambda: store.history("bad")):
        with pytest.raises(CorruptRecordError, match="'bad'"):
            call()
    assert [m.text for m in store.load("good").tail] == ["good#0", "good#1", "good#2"]
    fill(store, "good", 1)
    assert store.load("good").length == 4


def test_corrupt_session_record(persistent: Backend) -> None:
    store = persistent.make()
    fill(store, "bad", 2)
    fill(store, "good", 2)
    persistent.corrupt_meta("bad")
    with pytest.raises(CorruptRecordError, match="'bad'"):
        store.load("bad")
    with pytest.raises(StoreError):
        store.commit("bad", summary=None, watermark=1, expected_version=0, expected_epoch="")
    assert store.load("good").length == 2
    assert store.delete("bad")  # the way out
    assert not store.exists("bad") and store.exists("good")


def test_load_reads_only_the_tail(persistent: Backend) -> None:
    store = persistent.make()
    fill(store, "big", 6)
    reduce_to(store, "big", 4, "s")
    persistent.corrupt_message("big", 1)  # inside the summarized part
    assert [m.text for m in store.load("big").tail] == ["big#4", "big#5"]
    with pytest.raises(CorruptRecordError, match="position 1"):
        store.history("big")


def test_failed_commit_writes_nothing_and_the_session_stays_usable(
    persistent: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = persistent.make()
    fill(store, "f", 5)
    st = store.load("f")
    before = state_of(store, "f")
    persistent.registered.fail_commit_after_session_row(persistent, store, monkeypatch)
    with pytest.raises(StoreError, match="'f'"):
        reduce_to(store, "f", 3, "s")
    assert state_of(store, "f") == before
    monkeypatch.undo()
    reduce_to(store, "f", 3, "s")
    fill(store, "f", 1)
    st = store.load("f")
    assert (st.watermark, st.version, st.length) == (3, 1, 6)


def _reply_lost(backend: Backend, raw: Any, script: str, *, lands: bool) -> None:
    """Make ``script`` run (or not), then fail as if the connection dropped before the reply."""
    import redis

    orig = raw._scripts[script]
    error = redis.exceptions.ConnectionError("Connection closed by server.")
    if backend.mode == "async":

        async def run_async(*args: Any, **kwargs: Any) -> Any:
            if lands:
                await orig(*args, **kwargs)
            raise error

        raw._scripts[script] = run_async
    else:

        def run(*args: Any, **kwargs: Any) -> Any:
            if lands:
                orig(*args, **kwargs)
            raise error

        raw._scripts[script] = run


@pytest.mark.parametrize("lands", [True, False])
def test_a_lost_redis_reply_is_an_unknown_outcome_and_appending_again_is_safe(
    redis_backend: Backend, lands: bool
) -> None:
    store = redis_backend.make()
    raw = redis_backend.raw(store)
    fill(store, "r", 2)
    batch = [user("x"), user("y")]
    orig = raw._scripts["append"]
    _reply_lost(redis_backend, raw, "append", lands=lands)
    with pytest.raises(StoreOutcomeUnknownError, match="may or may not") as info:
        store.append("r", batch)
    assert info.value.operation == "append"
    assert store.load("r").length == (4 if lands else 2)  # only reading tells
    raw._scripts["append"] = orig
    assert store.append("r", batch) == 4
    assert [m.text for m in store.history("r")] == ["r#0", "r#1", "x", "y"]
    _reply_lost(redis_backend, raw, "commit", lands=lands)
    with pytest.raises(StoreOutcomeUnknownError) as info:
        reduce_to(store, "r", 2)
    assert info.value.operation == "commit"
    _reply_lost(redis_backend, raw, "load", lands=True)
    with pytest.raises(StoreError) as read:
        store.load("r")
    assert not isinstance(read.value, StoreOutcomeUnknownError)


def test_a_redis_session_from_before_the_id_index_is_indexed_on_its_next_append(
    redis_backend: Backend,
) -> None:
    store = redis_backend.make()
    old = fill(store, "r", 3)
    keys = redis_backend.redis_keys("r")
    client = redis_backend.redis_client()
    client.hdel(keys.meta, "indexed")  # as summem wrote sessions before the index
    client.delete(keys.ids)
    assert store.append("r", [*old, user("new")]) == 4
    assert client.hlen(keys.ids) == 4
    assert [m.text for m in store.history("r")] == ["r#0", "r#1", "r#2", "new"]
    client.hset(keys.meta, "indexed", 99)  # more than the history holds: indexed again
    assert store.append("r", old) == 4
