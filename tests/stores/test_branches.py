"""``Store.rewrite`` / ``branches`` / ``branch_messages`` (issue #28), on every backend.

The history becomes ``history[:keep] + messages`` in one compare-and-set write; the abandoned
suffix is kept as a branch; a fork inside the summary rolls back to the latest logged summary
that is not abandoned and covers only ``history[:keep]``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from summem.errors import ConflictError, StoreError, StoreOutcomeUnknownError
from summem.messages import Message, system, user
from summem.stores.base import Branch
from tests.stores.backends import SEARCHABLE_PARAMS, Backend, open_backend
from tests.stores.helpers import BranchStore, branching, fill, reduce_to, snap, state_of


def ids(store: BranchStore, sid: str) -> list[str]:
    return [m.id for m in store.history(sid)]


def rewrite(
    store: BranchStore,
    sid: str,
    keep: int,
    messages: list[Message] | tuple[()] = (),
    *,
    branch_id: str,
    **cas: Any,
) -> int:
    st = store.load(sid)
    return store.rewrite(
        sid,
        keep=keep,
        messages=list(messages),
        expected_version=cas.get("expected_version", st.version),
        expected_epoch=cas.get("expected_epoch", st.epoch),
        branch_id=branch_id,
    )


# -- the history becomes history[:keep] + messages ----------------------------------------


def test_truncate_keeps_the_suffix_as_a_branch(store: BranchStore) -> None:
    batch = fill(store, "s", 5)
    store.set_system("s", system("be brief"))
    before = store.load("s")
    version = rewrite(store, "s", 3, branch_id="b1")
    st = store.load("s")
    assert version == st.version == before.version + 1
    assert st.epoch == before.epoch
    assert st.system is not None and st.system.content == "be brief"
    assert (st.length, st.watermark, st.summary) == (3, 0, None)
    assert ids(store, "s") == [m.id for m in batch[:3]]
    [branch] = store.branches("s")
    assert isinstance(branch, Branch)
    assert (branch.id, branch.at, branch.length) == ("b1", 3, 2)
    assert (branch.summary_id, branch.watermark) == (None, 0)
    assert isinstance(branch.created_at, float)
    assert abs(branch.created_at - time.time()) < 3600  # the store's clock, unix seconds
    assert [snap(m) for m in store.branch_messages("s", "b1")] == [snap(m) for m in batch[3:]]


def test_rewrite_with_new_messages(store: BranchStore) -> None:
    batch = fill(store, "s", 4)
    new = [user("edited"), user("and more")]
    rewrite(store, "s", 2, new, branch_id="b1")
    assert ids(store, "s") == [m.id for m in batch[:2] + new]
    assert [m.content for m in store.load("s").tail] == ["s#0", "s#1", "edited", "and more"]
    assert [m.id for m in store.branch_messages("s", "b1")] == [m.id for m in batch[2:]]
    assert store.branches("s")[0].length == 2


def test_new_messages_skip_kept_and_repeated_ids_and_reuse_abandoned_ids(
    store: BranchStore,
) -> None:
    batch = fill(store, "s", 4)
    again = user("the same id, new text").with_id(batch[3].id)  # abandoned: its id is free again
    kept = user("a kept id").with_id(batch[0].id)  # in history[:keep]: skipped
    fresh = user("fresh")
    rewrite(store, "s", 2, [kept, again, fresh, fresh], branch_id="b1")
    assert ids(store, "s") == [batch[0].id, batch[1].id, batch[3].id, fresh.id]
    assert store.history("s", 2, 3)[0].content == "the same id, new text"
    assert store.branch_messages("s", "b1")[1].content == "s#3"
    # appending the abandoned ids again is not skipped either (they left the history)
    assert store.append("s", [batch[2]]) == 5
    assert store.append("s", [batch[2], fresh]) == 5


def test_keep_zero_and_keep_length(store: BranchStore) -> None:
    batch = fill(store, "s", 3)
    rewrite(store, "s", 3, branch_id="nothing")  # nothing abandoned: still recorded
    assert ids(store, "s") == [m.id for m in batch]
    assert [(b.id, b.at, b.length) for b in store.branches("s")] == [("nothing", 3, 0)]
    assert store.branch_messages("s", "nothing") == []
    rewrite(store, "s", 0, branch_id="all")  # the non-destructive way to empty a history
    st = store.load("s")
    assert (st.length, st.tail) == (0, [])
    assert store.exists("s")
    assert [m.id for m in store.branch_messages("s", "all")] == [m.id for m in batch]
    assert [b.id for b in store.branches("s")] == ["nothing", "all"]


def test_append_after_rewrite_keeps_positions_contiguous(store: BranchStore) -> None:
    batch = fill(store, "s", 5)
    rewrite(store, "s", 2, [user("x")], branch_id="b1")
    more = [user("y"), user("z")]
    assert store.append("s", more) == 5
    assert ids(store, "s") == [batch[0].id, batch[1].id, store.history("s", 2, 3)[0].id] + [
        m.id for m in more
    ]
    assert [m.content for m in store.history("s", 1, 4)] == ["s#1", "x", "y"]
    assert [m.content for m in store.history("s", -2)] == ["y", "z"]
    st = store.load("s")
    assert st.length == len(store.history("s")) == 5


# -- summaries: kept, rolled back, dropped -------------------------------------------------


def test_fork_after_the_watermark_keeps_the_summary(store: BranchStore) -> None:
    fill(store, "s", 6)
    s1 = reduce_to(store, "s", 3, "s1")
    rewrite(store, "s", 3, branch_id="b1")  # keep == watermark: the summary still fits
    st = store.load("s")
    assert (snap(st.summary), st.watermark, st.length) == (snap(s1), 3, 3)
    assert st.tail == []
    [branch] = store.branches("s")
    assert (branch.summary_id, branch.watermark) == (s1.id, 3)


def test_fork_inside_the_summary_rolls_back(store: BranchStore) -> None:
    fill(store, "s", 10)
    s1 = reduce_to(store, "s", 2, "s1")
    s2 = reduce_to(store, "s", 4, "s2")
    s3 = reduce_to(store, "s", 7, "s3")
    rewrite(store, "s", 5, [user("new")], branch_id="b1")
    st = store.load("s")
    assert (snap(st.summary), st.watermark, st.length) == (snap(s2), 4, 6)
    assert [m.content for m in st.tail] == ["s#4", "new"]
    # summaries() keeps its output; the branch records what was current before
    assert [m.id for m in store.summaries("s")] == [s1.id, s2.id, s3.id]
    [branch] = store.branches("s")
    assert (branch.summary_id, branch.watermark, branch.at) == (s3.id, 7, 5)
    with pytest.raises(StoreError, match="b1"):
        store.rollback("s", summary_id=s3.id, expected_version=st.version)
    assert state_of(store, "s") == state_of(store, "s")
    assert store.load("s").version == st.version  # the refused rollback wrote nothing
    store.rollback("s", summary_id=s1.id, expected_version=st.version)
    assert store.load("s").watermark == 2


def test_fork_before_every_summary_drops_it(store: BranchStore) -> None:
    fill(store, "s", 6)
    s1 = reduce_to(store, "s", 3, "s1")
    rewrite(store, "s", 2, branch_id="b1")
    st = store.load("s")
    assert (st.summary, st.watermark, st.length) == (None, 0, 2)
    with pytest.raises(StoreError, match="'b1'"):
        store.rollback("s", summary_id=s1.id, expected_version=st.version)


def test_chain_of_branches_never_brings_an_abandoned_summary_back(store: BranchStore) -> None:
    fill(store, "s", 6)
    s1 = reduce_to(store, "s", 4, "s1")
    rewrite(store, "s", 2, branch_id="b1")  # s1 abandoned by b1
    fill(store, "s", 6)
    s2 = reduce_to(store, "s", 6, "s2")
    rewrite(store, "s", 5, branch_id="b2")  # s1 has watermark <= 5 but stays abandoned
    st = store.load("s")
    assert (st.summary, st.watermark, st.length) == (None, 0, 5)
    with pytest.raises(StoreError, match="'b1'"):
        store.rollback("s", summary_id=s1.id, expected_version=st.version)
    with pytest.raises(StoreError, match="'b2'"):
        store.rollback("s", summary_id=s2.id, expected_version=st.version)
    assert [b.id for b in store.branches("s")] == ["b1", "b2"]
    assert [(b.summary_id, b.watermark) for b in store.branches("s")] == [
        (s1.id, 4),
        (s2.id, 6),
    ]


def test_chain_of_branches_keeps_a_summary_logged_before_them(store: BranchStore) -> None:
    fill(store, "s", 8)
    s1 = reduce_to(store, "s", 2, "s1")
    rewrite(store, "s", 6, branch_id="b1")  # s1 untouched: watermark 2 <= 6
    s2 = reduce_to(store, "s", 5, "s2")
    rewrite(store, "s", 3, branch_id="b2")  # s2 abandoned; s1 is current again
    st = store.load("s")
    assert (snap(st.summary), st.watermark) == (snap(s1), 2)
    with pytest.raises(StoreError, match="'b2'"):
        store.rollback("s", summary_id=s2.id, expected_version=st.version)


def test_a_summary_past_keep_is_abandoned_even_when_rolled_back_from(store: BranchStore) -> None:
    fill(store, "s", 8)
    s1 = reduce_to(store, "s", 2, "s1")
    s2 = reduce_to(store, "s", 6, "s2")
    st = store.load("s")
    store.rollback("s", summary_id=s1.id, expected_version=st.version)
    rewrite(store, "s", 4, branch_id="b1")  # watermark 2 <= 4: the view keeps s1
    st = store.load("s")
    assert (snap(st.summary), st.watermark) == (snap(s1), 2)
    with pytest.raises(StoreError, match="'b1'"):  # s2 covers abandoned messages
        store.rollback("s", summary_id=s2.id, expected_version=st.version)


def test_a_truncation_inside_the_fork_rolls_back_to_the_last_summary(store: BranchStore) -> None:
    fill(store, "s", 8)
    s1 = reduce_to(store, "s", 2, "s1")
    st = store.load("s")
    store.commit(
        "s", summary=None, watermark=6, expected_version=st.version, expected_epoch=st.epoch
    )
    rewrite(store, "s", 4, branch_id="b1")
    st = store.load("s")
    assert (snap(st.summary), st.watermark) == (snap(s1), 2)
    assert [m.content for m in st.tail] == ["s#2", "s#3"]
    assert store.branches("s")[0].summary_id is None


# -- compare-and-set, retries, bad input ---------------------------------------------------


def test_rewrite_conflicts(store: BranchStore) -> None:
    fill(store, "s", 3)
    st = store.load("s")
    before = state_of(store, "s")
    with pytest.raises(ConflictError, match="version"):
        rewrite(store, "s", 1, branch_id="b", expected_version=st.version + 1)
    with pytest.raises(ConflictError, match="created again"):
        rewrite(store, "s", 1, branch_id="b", expected_epoch="other")
    with pytest.raises(ConflictError, match="keep must be >= 0"):
        rewrite(store, "s", -1, branch_id="b")
    with pytest.raises(ConflictError, match="holds 3"):
        rewrite(store, "s", 4, branch_id="b")
    assert state_of(store, "s") == before
    assert store.branches("s") == []
    with pytest.raises(ConflictError, match="no longer exists"):
        store.rewrite(
            "nope", keep=0, messages=[], expected_version=0, expected_epoch="", branch_id="b"
        )
    store.delete("s")
    with pytest.raises(ConflictError, match="no longer exists"):
        store.rewrite(
            "s",
            keep=0,
            messages=[],
            expected_version=st.version,
            expected_epoch=st.epoch,
            branch_id="b",
        )
    assert not store.exists("s")


def test_expected_length_refuses_a_rewrite_that_missed_an_append(store: BranchStore) -> None:
    fill(store, "s", 3)
    st = store.load("s")
    store.append("s", [user("raced")])  # appends do not bump the version
    before = state_of(store, "s")
    with pytest.raises(ConflictError, match="the history is 4 long, expected 3"):
        store.rewrite(
            "s",
            keep=2,
            messages=[],
            expected_version=st.version,
            expected_epoch=st.epoch,
            branch_id="b",
            expected_length=3,
        )
    assert state_of(store, "s") == before
    assert store.branches("s") == []
    store.rewrite(
        "s",
        keep=3,
        messages=[],
        expected_version=st.version,
        expected_epoch=st.epoch,
        branch_id="b",
        expected_length=4,
    )
    assert [m.content for m in store.branch_messages("s", "b")] == ["raced"]


def test_a_retry_with_the_same_branch_id_writes_nothing(store: BranchStore) -> None:
    fill(store, "s", 4)
    st = store.load("s")
    new = [user("new")]
    args: dict[str, Any] = {
        "keep": 2,
        "messages": new,
        "expected_version": st.version,
        "expected_epoch": st.epoch,
        "branch_id": "b1",
    }
    version = store.rewrite("s", **args)
    after = state_of(store, "s")
    assert store.rewrite("s", **args) == version  # before the compare-and-set: no conflict
    assert store.append("s", [user("later")]) == 4
    assert store.rewrite("s", **args) == version
    assert state_of(store, "s")[:3] == after[:3]  # version, epoch, watermark
    assert [m.content for m in store.history("s")] == ["s#0", "s#1", "new", "later"]
    assert [b.id for b in store.branches("s")] == ["b1"]


def test_bad_input_writes_nothing(store: BranchStore) -> None:
    fill(store, "s", 3)
    before = state_of(store, "s")
    st = store.load("s")
    cas: dict[str, Any] = {"expected_version": st.version, "expected_epoch": st.epoch}
    with pytest.raises(StoreError, match="branch_id"):
        store.rewrite("s", keep=1, messages=[], branch_id="", **cas)
    with pytest.raises(StoreError, match=r"messages\[1\] is a dict, not a Message"):
        bad: list[Any] = [user("ok"), {"role": "user"}]
        store.rewrite("s", keep=1, messages=bad, branch_id="b", **cas)
    with pytest.raises(StoreError, match="keep must be an int"):
        store.rewrite("s", keep="1", messages=[], branch_id="b", **cas)  # type: ignore[arg-type]
    assert state_of(store, "s") == before
    assert store.branches("s") == []


def test_branch_reads_of_unknown_sessions_and_branches(store: BranchStore) -> None:
    assert store.branches("nope") == []
    with pytest.raises(StoreError, match="no branch 'b'"):
        store.branch_messages("nope", "b")
    fill(store, "s", 2)
    rewrite(store, "s", 1, branch_id="b")
    with pytest.raises(StoreError, match="no branch 'other'"):
        store.branch_messages("s", "other")


def test_branches_are_per_session(store: BranchStore) -> None:
    fill(store, "a", 2)
    fill(store, "a:branches", 2)
    rewrite(store, "a", 1, branch_id="b")
    assert store.branches("a:branches") == []
    assert ids(store, "a:branches") == [m.id for m in store.history("a:branches")]
    assert len(store.history("a:branches")) == 2
    rewrite(store, "a:branches", 0, branch_id="b")
    assert [m.content for m in store.branch_messages("a", "b")] == ["a#1"]
    assert [m.content for m in store.branch_messages("a:branches", "b")] == [
        "a:branches#0",
        "a:branches#1",
    ]


def test_clear_and_delete_remove_branches(store: BranchStore) -> None:
    fill(store, "s", 3)
    rewrite(store, "s", 1, branch_id="b")
    store.clear("s")
    assert store.branches("s") == []
    with pytest.raises(StoreError, match="no branch 'b'"):
        store.branch_messages("s", "b")
    fill(store, "s", 3)
    rewrite(store, "s", 1, branch_id="b")  # the id is free again after the clear
    assert store.delete("s")
    assert store.branches("s") == []
    fill(store, "s", 2)
    assert store.branches("s") == []


def test_probe_tells_whether_a_copy_is_current(store: BranchStore) -> None:
    assert store.probe("s") is None
    fill(store, "s", 2)
    st = store.load("s")
    assert store.probe("s") == (st.epoch, st.version, 2)
    store.append("s", [user("more")])
    assert store.probe("s") == (st.epoch, st.version, 3)
    reduce_to(store, "s", 1)
    assert store.probe("s") == (st.epoch, st.version + 1, 3)
    store.clear("s")
    assert store.probe("s") == (st.epoch, st.version + 2, 0)
    store.delete("s")
    assert store.probe("s") is None


@pytest.fixture(params=SEARCHABLE_PARAMS)
def searching(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """The backends that search history themselves."""
    yield from open_backend(request.param, tmp_path)


def test_search_finds_the_new_branch_and_not_the_abandoned_one(searching: Backend) -> None:
    store: Any = searching.make()
    store.append("s", [user("kept osprey"), user("gone heron"), user("gone too")])
    assert [h.position for h in store.search("s", "heron osprey", k=5)] == [1, 0]
    rewrite(store, "s", 1, [user("new kingfisher")], branch_id="b")
    assert [h.message.text for h in store.search("s", "heron", k=5)] == []
    assert [(h.position, h.message.text) for h in store.search("s", "kingfisher", k=5)] == [
        (1, "new kingfisher")
    ]
    store.append("s", [user("later heron")])
    assert [(h.position, h.message.text) for h in store.search("s", "heron", k=5)] == [
        (2, "later heron")
    ]
    assert store.position_of("s", store.branch_messages("s", "b")[0].id) is None


def test_a_lost_reply_then_the_retry_writes_once(
    persistent: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = branching(persistent.make())
    fill(store, "s", 4)
    st = store.load("s")
    args: dict[str, Any] = {
        "keep": 2,
        "messages": [user("new")],
        "expected_version": st.version,
        "expected_epoch": st.epoch,
        "branch_id": "b1",
    }
    persistent.registered.lose_next_reply(persistent, store, monkeypatch)
    with pytest.raises(StoreOutcomeUnknownError, match="may or may not") as info:
        store.rewrite("s", **args)
    assert info.value.operation == "rewrite"
    monkeypatch.undo()
    assert store.rewrite("s", **args) == st.version + 1  # recognised: nothing written twice
    assert [m.content for m in store.history("s")] == ["s#0", "s#1", "new"]
    assert [(b.id, b.length) for b in store.branches("s")] == [("b1", 2)]
    assert [m.content for m in store.branch_messages("s", "b1")] == ["s#2", "s#3"]
    assert store.load("s").version == st.version + 1


# -- a database written before branches is migrated and branches -----------------------------


def branch_an_old_session(store: BranchStore) -> None:
    """``store`` holds session "s" written before branches: 6 messages, summaries at 2 and 4."""
    st = store.load("s")
    assert (st.length, st.watermark) == (6, 4)
    assert store.branches("s") == []
    first, second = store.summaries("s")
    rewrite(store, "s", 3, [user("new")], branch_id="b1")
    st = store.load("s")
    assert (snap(st.summary), st.watermark) == (snap(first), 2)
    assert [m.content for m in st.tail] == ["s#2", "new"]
    with pytest.raises(StoreError, match="'b1'"):
        store.rollback("s", summary_id=second.id, expected_version=st.version)
    assert [m.content for m in store.branch_messages("s", "b1")] == ["s#3", "s#4", "s#5"]
    store.clear("s")
    assert store.branches("s") == []


def old_session(store: BranchStore) -> None:
    fill(store, "s", 6)
    reduce_to(store, "s", 2, "first")
    reduce_to(store, "s", 4, "second")


def test_an_old_sqlite_file_is_migrated_and_branches(tmp_path: Path) -> None:
    import sqlite3

    from summem.stores import SQLiteStore
    from summem.stores.sqlite.schema import MIGRATIONS
    from tests.stores.helpers import sqlite_drop_branches

    path = tmp_path / "old.db"
    with SQLiteStore(path) as store:
        old_session(store)
    conn = sqlite3.connect(path)  # as summem wrote it at schema version 5
    sqlite_drop_branches(conn)
    conn.execute("PRAGMA user_version = 5")
    conn.execute("DROP TABLE summem_schema")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        branch_an_old_session(store)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 8
    conn.close()


@pytest.mark.postgres
def test_an_old_postgres_schema_is_migrated_and_branches() -> None:
    from summem.stores import PostgresStore
    from summem.stores.postgres.schema import MIGRATIONS
    from tests.stores.backends import pg_execute, postgres_url, require_postgres, unique_prefix
    from tests.stores.helpers import pg_drop_branches

    require_postgres()
    schema = unique_prefix()
    try:
        with PostgresStore(postgres_url(), schema=schema) as store:
            old_session(store)
        pg_drop_branches(schema)  # as summem wrote it at schema version 4
        pg_execute("UPDATE {schema}.summem_schema_version SET version = 4", schema=schema)
        pg_execute(
            "UPDATE {schema}.summem_schema_version SET compatible = 2, compatible_for = 4",
            schema=schema,
        )
        with PostgresStore(postgres_url(), schema=schema) as store:
            branch_an_old_session(store)
        migrated = pg_execute("SELECT 1 FROM {schema}.branches", schema=schema)
        assert migrated == 0  # the table exists (and the clear emptied it)
        assert len(MIGRATIONS) >= 5  # schema version 4 is from before branches
    finally:
        pg_execute("DROP SCHEMA IF EXISTS {schema} CASCADE", schema=schema)
