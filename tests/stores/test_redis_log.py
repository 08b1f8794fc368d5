"""Redis: summaries an older release logged whole (before ``keep_summaries``) are stubbed too.

Such an entry has no stub of its own (``"d"``); a commit's walk stops at it and the store makes
its stub in a follow-up call, at most ``FOLLOW_UPS`` a commit, so a log of any length is
caught up a few entries a commit and no commit's work grows with the log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from summem.errors import StoreError
from summem.messages import Message, SummaryInfo, user
from summem.stores import RedisStore
from summem.stores.redis.operations import FOLLOW_UPS
from summem.stores.redis.scripts import SCRIPTS
from summem.stores.summary_log import is_stub, summary_stub
from tests.stores.backends import Backend, backend_of


@pytest.fixture(params=[("redis", "sync"), ("redis-cluster", "sync")], ids=lambda km: km[0])
def sync_redis(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with backend_of(request.param, tmp_path) as b:
        yield b


def _summary(i: int, watermark: int) -> Message:
    info = SummaryInfo(watermark=watermark, summarizer="test", covered_ids=(f"m{i}",))
    return user(f"summary {i}: " + "text " * 50).as_summary(info)


def _commit(store: Any, summary: Message, keep: int | None, sent: list[str] | None = None) -> int:
    state = store.load("s")
    if sent is not None:
        sent.clear()  # from here: the commit's own calls
    return int(
        store.commit(
            "s",
            summary=summary,
            watermark=summary.summary_info.watermark,  # type: ignore[union-attr]
            expected_version=state.version,
            expected_epoch=state.epoch,
            keep_summaries=keep,
        )
    )


def test_entries_an_older_release_logged_whole_are_stubbed_a_few_a_commit(
    sync_redis: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sync_redis.make()
    raw: RedisStore = sync_redis.raw(store)
    store.append("s", [user(f"m{i}") for i in range(20)])
    old = [_summary(i, i + 1) for i in range(FOLLOW_UPS + 2)]
    for summary in old:
        _commit(store, summary, None)  # every entry whole
    client = sync_redis.redis_client()
    sums = raw._keys("s").sums
    for i in range(len(old)):  # as a release before the bounded log wrote them: no stub
        entry = json.loads(client.lindex(sums, i))
        del entry["d"]
        client.lset(sums, i, json.dumps(entry))

    sent: list[str] = []
    real = raw._client.execute_command

    def execute(*args: Any, **kwargs: Any) -> Any:
        if str(args[0]).upper() != "SCRIPT LOAD":
            sent.append(str(args[0]).upper())
        return real(*args, **kwargs)

    client.script_load(SCRIPTS["stub_legacy"])  # (every cluster node has it: no NOSCRIPT)
    monkeypatch.setattr(raw._client, "execute_command", execute)
    _commit(store, _summary(90, 10), 2, sent)
    # the walk stopped at the first old entry; FOLLOW_UPS calls stubbed one each (the HSET:
    # the schema stamped before the first commit that may stub)
    assert sent == ["HSET"] + ["EVALSHA"] * (1 + FOLLOW_UPS)
    log = store.summaries("s")
    assert [is_stub(m) for m in log] == [True] * FOLLOW_UPS + [False] * 3
    assert log[0] == summary_stub(old[0]) and log[0].text == ""
    _commit(store, _summary(91, 11), 2, sent)
    assert sent == ["EVALSHA"] * 3  # the commit, the two old entries left
    log = store.summaries("s")
    assert [is_stub(m) for m in log] == [True] * (len(log) - 2) + [False, False]
    assert [m.id for m in log] == [m.id for m in old] + [log[-2].id, log[-1].id]
    # a stub is never made current
    state = store.load("s")
    with pytest.raises(StoreError, match="metadata only"):
        store.rollback("s", summary_id=old[-1].id, expected_version=state.version)
    assert store.load("s").summary is not None
    # a commit that meets no old entry makes no follow-up
    _commit(store, _summary(92, 12), 2)
    _commit(store, _summary(93, 13), 2, sent)
    assert sent == ["EVALSHA"]


def test_an_old_entry_that_cannot_be_read_is_passed_over_whole(sync_redis: Backend) -> None:
    store = sync_redis.make()
    raw: RedisStore = sync_redis.raw(store)
    store.append("s", [user(f"m{i}") for i in range(10)])
    for i in range(3):
        _commit(store, _summary(i, i + 1), None)
    client = sync_redis.redis_client()
    sums = raw._keys("s").sums
    entry = json.loads(client.lindex(sums, 0))
    client.lset(sums, 0, json.dumps({"id": entry["id"], "w": entry["w"], "m": "{not json"}))
    _commit(store, _summary(3, 4), 1)
    bodies = [json.loads(b) for b in client.lrange(sums, 0, -1)]
    assert bodies[0]["m"] == "{not json" and "x" not in bodies[0]  # left as it was
    assert [bool(b.get("x")) for b in bodies[1:]] == [True, True, False]
