"""The Redis store on a real Redis Cluster: URLs and clients, one slot per session, a reshard.

The contract suite runs on the cluster as the ``redis-cluster`` kind (tests/stores/backends.py);
this file checks what only a cluster has: every key a session's scripts touch hashes to one slot
(asked of the server, ``CLUSTER KEYSLOT``), and a slot moved to another node while threads
append to its sessions (``MOVED`` and ``ASK`` redirections) loses and duplicates nothing.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import tempfile
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.crc import key_slot

from summem.errors import StoreError
from summem.messages import Message, user
from summem.observe.ledger import Hold
from summem.stores import AsyncRedisStore, RedisStore, open_async_store, open_store
from summem.stores.redis.scripts import SCRIPTS
from tests.stores.helpers import reduce_to, summary_msg
from tests.stores.redis_cluster import LocalCluster

pytestmark = pytest.mark.redis_cluster


@pytest.fixture
def prefix() -> Iterator[str]:
    from tests.stores.backends import unique_prefix

    yield unique_prefix()


def _drop(cluster: LocalCluster, prefix: str) -> None:
    client = cluster.client()
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def test_a_cluster_url_opens_a_store_on_the_cluster(redis_cluster: LocalCluster) -> None:
    import redis

    store = open_store(f"{redis_cluster.url}")
    assert isinstance(store, RedisStore)
    assert isinstance(store._client, redis.RedisCluster)
    async_store = open_async_store(redis_cluster.url.replace("redis+", "REDIS+"))
    assert isinstance(async_store, AsyncRedisStore)
    assert isinstance(async_store._client, redis.asyncio.RedisCluster)
    store.close()
    asyncio.run(async_store.close())


def test_given_cluster_clients_are_used_as_is_and_left_open(
    redis_cluster: LocalCluster, prefix: str
) -> None:
    import redis.asyncio

    client = redis_cluster.client()
    store = RedisStore(client, prefix=prefix)
    try:
        store.append("ü:1", [user("hello")])
        assert [m.text for m in store.load("ü:1").tail] == ["hello"]
        assert store.list_sessions() == ["ü:1"]
        store.close()
        assert client.ping()
    finally:
        client.close()

    async def run() -> None:
        aclient = redis.asyncio.RedisCluster.from_url(redis_cluster.plain_url)
        astore = AsyncRedisStore(aclient, prefix=prefix)
        try:
            assert [m.text for m in (await astore.load("ü:1")).tail] == ["hello"]
            assert await astore.list_sessions() == ["ü:1"]
            await astore.close()
            assert await aclient.ping()
        finally:
            await aclient.aclose()

    asyncio.run(run())
    _drop(redis_cluster, prefix)


def _recording(store: RedisStore) -> list[tuple[str, list[str]]]:
    """Record (script, keys) of every script ``store`` runs."""
    calls: list[tuple[str, list[str]]] = []
    for name, real in list(store._scripts.items()):

        def record(*args: Any, _name: str = name, _real: Any = real, **kwargs: Any) -> Any:
            calls.append((_name, list(kwargs["keys"])))
            return _real(*args, **kwargs)

        store._scripts[name] = record
    return calls


def _every_operation(store: RedisStore, sid: str) -> None:
    """Each operation of the store once on ``sid`` (and a spend key), scripts and all."""
    first = [user(f"{sid} {i}") for i in range(6)]
    store.append(sid, first)
    store.set_system(sid, user("be brief"))
    assert store.exists(sid) and store.probe(sid) is not None
    assert len(store.history(sid, 1, 3)) == 2
    summary = reduce_to(store, sid, 2)
    reduce_to(store, sid, 4)
    st = store.load(sid)
    store.rollback(sid, summary_id=summary.id, expected_version=st.version)
    st = store.load(sid)
    store.rewrite(
        sid,
        keep=3,
        messages=[user("edited")],
        expected_version=st.version,
        expected_epoch=st.epoch,
        branch_id="b1",
    )
    (branch,) = store.branches(sid)
    assert [m.id for m in store.branch_messages(sid, branch.id)] == [m.id for m in first[3:]]
    assert len(store.summaries(sid)) == 2
    sums = store._keys(sid).sums  # the first entry as a release before stubs logged it
    entry = json.loads(store._client.lindex(sums, 0))
    del entry["d"]
    store._client.lset(sums, 0, json.dumps(entry))
    st = store.load(sid)
    store.commit(
        sid,
        summary=summary_msg("later", st.watermark),
        watermark=st.watermark,
        expected_version=st.version,
        expected_epoch=st.epoch,
        keep_summaries=1,
    )  # its walk meets the old entry: stub_legacy stubs it
    assert [bool(m.text) for m in store.summaries(sid)] == [False, False, True]
    assert sid in [i.session_id for i in store.session_infos()]  # the listing's script
    assert store.acquire_lease(sid, "me", 30.0)
    store.release_lease(sid, "me")
    store.clear(sid)
    assert store.delete(sid)
    store.create_chunk_messages = 3  # staged in chunks, then renamed into place
    store.create(sid, history=[user(f"c{i}") for i in range(8)], summary=None, watermark=0)
    with pytest.raises(StoreError, match="already exists"):  # a staged create that fails
        store.create(sid, history=[user(f"d{i}") for i in range(8)])
    key = f"session:{sid}"
    store.record_spend(key, at=1.0, tokens=1, cost_usd=0.0)
    assert store.spent_since(key).tokens == 1
    assert store.reserve_spend(key, Hold("h1", 10.0, 100.0, 1, 0.0, None, 100, None)).granted
    store.settle_spend(key, "h1", at=2.0, tokens=1, cost_usd=0.0)
    assert store.reserve_spend(key, Hold("h2", 10.0, 100.0, 1, 0.0, None, 100, None)).granted
    store.release_spend(key, "h2")


def test_every_script_of_a_session_touches_keys_of_one_slot(
    redis_cluster: LocalCluster, prefix: str
) -> None:
    """Including the branch keys (rewrite, branches, branch messages) and a staged create's
    private list: the server says each key's slot, and a session's are all the same."""
    store = RedisStore(redis_cluster.url, prefix=prefix)
    calls = _recording(store)
    node = redis_cluster.node(redis_cluster.ports[0])
    try:
        for sid in ("a", "x:{y}:z", "日本語 🙂"):
            calls.clear()
            _every_operation(store, sid)
            assert {name for name, _ in calls} == set(SCRIPTS)  # every script ran
            slots: dict[str, set[int]] = defaultdict(set)  # session / spend key -> slots
            for name, keys in calls:
                assert keys, name
                owner = "spend" if name.endswith("_spend") or name == "spent_since" else "session"
                for key in keys:
                    slots[owner].add(node.execute_command("CLUSTER KEYSLOT", key))
            assert len(slots["session"]) == 1 and len(slots["spend"]) == 1, (sid, dict(slots))
            assert slots["session"] == {key_slot(store._keys(sid).meta.encode())}
            assert store.delete(sid)
    finally:
        node.close()
        store.close()
        _drop(redis_cluster, prefix)


# -- a reshard while threads append ---------------------------------------------------------


def _ids_in_one_slot(store: RedisStore, n: int) -> tuple[int, list[str]]:
    """``n`` session ids whose keys share one slot (found by hashing candidates)."""
    first = "slot-0"
    slot = key_slot(store._keys(first).meta.encode())
    found = [first]
    i = 0
    while len(found) < n:
        i += 1
        sid = f"slot-{i}"
        if key_slot(store._keys(sid).meta.encode()) == slot:
            found.append(sid)
    return slot, found


class _Writer(threading.Thread):
    """Appends batches of two messages to one session until told to stop, then ``after``
    more; keeps what it appended, in order.

    A script whose keys are split between two nodes (or some of them absent) is refused with
    ``TRYAGAIN`` until the slot settles, and redis-py gives up after its retry budget: the
    write did not run (and appends are idempotent by id), so the writer sends it again,
    counting it in :attr:`refused`.
    """

    def __init__(self, url: str, prefix: str, sid: str, cond: threading.Condition) -> None:
        super().__init__(name=f"writer-{sid}")
        self.url, self.prefix, self.sid, self.cond = url, prefix, sid, cond
        self.sent: list[str] = []  # message ids, in the order appended
        self.pending: list[str] = []  # the batch being appended (it may be stored already)
        self.started = 0  # append calls begun (a refused one sent again counts again)
        self.done = 0  # appends returned
        self.refused = 0
        self.stop_after: int | None = None  # stop when done reaches it
        self.error: BaseException | None = None

    def run(self) -> None:
        store = RedisStore(self.url, prefix=self.prefix)
        try:
            while self.stop_after is None or self.done < self.stop_after:
                batch = [user(f"{self.sid} {self.done}.{i}") for i in range(2)]
                with self.cond:
                    self.pending = [m.id for m in batch]
                self._append(store, batch)
                with self.cond:
                    self.sent += self.pending
                    self.pending = []
                    self.done += 1
                    self.cond.notify_all()
        except BaseException as exc:
            self.error = exc
            with self.cond:
                self.cond.notify_all()
        finally:
            store.close()

    def _append(self, store: RedisStore, batch: list[Message]) -> None:
        for _ in range(200):
            with self.cond:
                self.started += 1
                self.cond.notify_all()
            try:
                store.append(self.sid, batch)
                return
            except StoreError as exc:
                if "TTL exhausted" not in str(exc) and "TRYAGAIN" not in str(exc):
                    raise
                self.refused += 1
        raise AssertionError(f"{self.sid}: the slot never settled")


def _wait(
    cond: threading.Condition, writers: list[_Writer], ready: Callable[[_Writer], bool]
) -> None:
    with cond:
        ok = cond.wait_for(lambda: all(ready(w) or w.error for w in writers), timeout=120)
    assert ok, [(w.sid, w.started, w.done) for w in writers]
    assert not [w.error for w in writers if w.error], [w.error for w in writers]


def _node_id(cluster: LocalCluster, port: int) -> str:
    node = cluster.node(port)
    try:
        return str(node.execute_command("CLUSTER MYID").decode())
    finally:
        node.close()


def _port_of(client: Any, key: str) -> int:
    return int(client.get_node_from_key(key).port)


def test_a_slot_moved_mid_run_loses_and_duplicates_nothing(
    redis_cluster: LocalCluster, prefix: str
) -> None:
    """Three sessions of one slot (and one of another) take appends from their own threads
    before, while and after the slot moves to another node: every session ends with exactly
    the messages appended, in order; the store follows ASK while the slot moves and MOVED
    after."""
    import redis

    reader = RedisStore(redis_cluster.url, prefix=prefix)
    slot, sids = _ids_in_one_slot(reader, 3)
    control = "elsewhere"  # a session of another slot: never refused
    assert key_slot(reader._keys(control).meta.encode()) != slot
    cond = threading.Condition()
    writers = [_Writer(redis_cluster.url, prefix, sid, cond) for sid in (*sids, control)]
    moved_a, msgs_a = sids[0], reader._keys(sids[0]).msgs
    reader.append(moved_a, [])  # (loads the reader's slot map before the move)
    src_port = _port_of(reader._client, msgs_a)
    dst_port = next(p for p in redis_cluster.ports if p != src_port)
    src, dst = redis_cluster.node(src_port), redis_cluster.node(dst_port)
    try:
        for w in writers:
            w.start()
        _wait(cond, writers, lambda w: w.done >= 5)

        # 1. open the move, and migrate the first session's keys alone
        keys_a = [k for k in reader._keys(moved_a) if src.exists(k)]
        src_id, dst_id = _node_id(redis_cluster, src_port), _node_id(redis_cluster, dst_port)
        dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src_id)
        src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst_id)
        with cond:
            opened = {w.sid: w.started for w in writers}
        src.execute_command("MIGRATE", "127.0.0.1", dst_port, "", 0, 30000, "KEYS", *keys_a)

        # 2. the source answers ASK for them; the reader (slot map: the source) follows it
        with pytest.raises(redis.exceptions.AskError, match=f"^{slot} 127.0.0.1:{dst_port}$"):
            src.llen(msgs_a)
        assert _port_of(reader._client, msgs_a) == src_port
        seen = [m.id for m in reader.history(moved_a)]
        with cond:  # read after ``seen``: a batch stored whose append has not returned is pending
            written = writers[0].sent + writers[0].pending
        assert seen and seen == written[: len(seen)]
        _wait(cond, writers, lambda w: w.started > opened[w.sid])  # appends begun mid-move

        # 3. move the rest of the slot and hand it over (the target first, as Redis says)
        while rest := src.execute_command("CLUSTER GETKEYSINSLOT", slot, 1000):
            src.execute_command("MIGRATE", "127.0.0.1", dst_port, "", 0, 30000, "KEYS", *rest)
        others = [p for p in redis_cluster.ports if p not in (src_port, dst_port)]
        for port in (dst_port, src_port, *others):
            node = redis_cluster.node(port)
            node.execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)
            node.close()
        with cond:
            for w in writers:  # ten more appends each, after the handover
                w.stop_after = w.done + 10

        # 4. the source now answers MOVED; the reader follows it and learns the new owner
        with pytest.raises(redis.exceptions.MovedError, match=f"^{slot} 127.0.0.1:{dst_port}$"):
            src.llen(msgs_a)
        assert _port_of(reader._client, msgs_a) == src_port
        assert reader.load(moved_a).length >= len(seen)
        assert _port_of(reader._client, msgs_a) == dst_port
    finally:
        with cond:
            for w in writers:
                w.stop_after = w.stop_after or 0
        for w in writers:
            w.join(timeout=120)
        src.close()
        dst.close()
    assert not [w.error for w in writers if w.error], [w.error for w in writers]
    assert not any(w.is_alive() for w in writers)
    assert writers[-1].refused == 0  # the control session's slot never moved

    # nothing lost, nothing twice, in order; the whole slot is on the target now
    for w in writers:
        assert [m.id for m in reader.history(w.sid)] == w.sent, w.sid
    src, dst = redis_cluster.node(src_port), redis_cluster.node(dst_port)
    try:
        assert src.execute_command("CLUSTER COUNTKEYSINSLOT", slot) == 0
        assert dst.execute_command("CLUSTER COUNTKEYSINSLOT", slot) >= 3 * len(sids)
    finally:
        src.close()
        dst.close()
        reader.close()
        _drop(redis_cluster, prefix)


# -- the fixture itself ----------------------------------------------------------------------


def test_without_redis_server_the_cluster_tests_skip_or_fail_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.stores import redis_cluster

    monkeypatch.setattr(shutil, "which", lambda tool: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs redis-server and redis-cli on PATH"):
        redis_cluster.require_cluster()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true requires it"):
        redis_cluster.require_cluster()


def test_a_cluster_that_fails_to_form_is_stopped_and_removed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.stores import redis_cluster

    redis_cluster.require_cluster()
    started: list[subprocess.Popen[bytes]] = []
    roots: list[str] = []
    real_start, real_mkdtemp = redis_cluster._start_node, tempfile.mkdtemp

    def start(*args: Any) -> subprocess.Popen[bytes]:
        started.append(real_start(*args))
        return started[-1]

    def mkdtemp(**kwargs: Any) -> str:
        roots.append(real_mkdtemp(**kwargs))
        return roots[-1]

    def create_fails(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 1, "", "[ERR] Node is not empty")

    monkeypatch.setattr(redis_cluster, "_start_node", start)
    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(subprocess, "run", create_fails)
    with pytest.raises(RuntimeError, match="Node is not empty"):
        redis_cluster.start_cluster()
    assert len(started) == 3 and all(proc.poll() is not None for proc in started)
    assert len(roots) == 1 and not Path(roots[0]).exists()


def _move_slot(cluster: LocalCluster, slot: int, src_port: int, dst_port: int) -> None:
    """Move ``slot`` and its keys from one node to another, in the steps Redis documents."""
    src, dst = cluster.node(src_port), cluster.node(dst_port)
    try:
        src_id, dst_id = _node_id(cluster, src_port), _node_id(cluster, dst_port)
        dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src_id)
        src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst_id)
        while rest := src.execute_command("CLUSTER GETKEYSINSLOT", slot, 1000):
            src.execute_command("MIGRATE", "127.0.0.1", dst_port, "", 0, 30000, "KEYS", *rest)
    finally:
        src.close()
        dst.close()
    others = [p for p in cluster.ports if p not in (src_port, dst_port)]
    for port in (dst_port, src_port, *others):
        node = cluster.node(port)
        node.execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)
        node.close()


async def test_the_async_store_follows_moved_slots_in_concurrent_tasks(
    redis_cluster: LocalCluster, prefix: str
) -> None:
    store = AsyncRedisStore(redis_cluster.url, prefix=prefix)
    sids = [f"s{i}" for i in range(12)]
    try:
        await asyncio.gather(*(store.append(sid, [user(f"{sid} first")]) for sid in sids))
        moved = {}
        for sid in sids[:4]:  # their slots move; the client's slot map still says where they were
            key = store._keys(sid).meta
            src = int(store._client.get_node_from_key(key).port)
            dst = next(p for p in redis_cluster.ports if p != src)
            _move_slot(redis_cluster, key_slot(key.encode()), src, dst)
            moved[sid] = dst
        batches = {
            sid: [[user(f"{sid} {b}.{i}") for i in range(2)] for b in range(3)] for sid in sids
        }
        await asyncio.gather(*(store.append(sid, b) for sid in sids for b in batches[sid]))
        for sid, dst in moved.items():
            assert store._client.get_node_from_key(store._keys(sid).meta).port == dst
        for sid in sids:
            texts = [m.text for m in await store.history(sid)]
            assert texts[0] == f"{sid} first" and len(texts) == len(set(texts)) == 7, texts
            for batch in batches[sid]:  # each batch whole and once
                at = texts.index(batch[0].text)
                assert texts[at : at + 2] == [m.text for m in batch]
    finally:
        await store.close()
        _drop(redis_cluster, prefix)
