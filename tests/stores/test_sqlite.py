"""SQLite specifics: schema and migrations, index use, URLs, connections."""

from __future__ import annotations

import gc
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from summem.errors import (
    ConfigurationError,
    CorruptRecordError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.messages import SummaryInfo, user
from summem.stores import SQLiteStore
from summem.stores.base import encode_message
from summem.stores.sqlite.schema import MIGRATIONS, SQL
from tests.stores.helpers import sqlite_drop_branches, sqlite_drop_grow


def statements() -> dict[str, str]:
    return {k: v for k, v in vars(SQL).items() if k.isupper()}


def test_every_statement_uses_an_index(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "s.db").close()
    conn = sqlite3.connect(tmp_path / "s.db")
    assert set(statements()) > {"META", "RANGE", "INSERT_MESSAGE", "SET_SUMMARY"}
    for name, sql in statements().items():
        plan = conn.execute("EXPLAIN QUERY PLAN " + sql, [None] * sql.count("?")).fetchall()
        scans = [row[-1] for row in plan if str(row[-1]).startswith("SCAN")]
        # FTS5 reports every lookup as a virtual-table "SCAN"; one with a constraint after
        # "INDEX n:" (M: a full-text match, =: a rowid) is an index lookup, "INDEX 0:" a scan
        scans = [s for s in scans if not re.search(r"VIRTUAL TABLE INDEX \d+:[M=]", s)]
        if name == "NAMES":  # listing every session reads every session
            assert [s.split(" USING")[0] for s in scans] == ["SCAN sessions"]
        else:
            assert scans == [], (name, plan)
    range_plan = conn.execute("EXPLAIN QUERY PLAN " + SQL.RANGE, [1, 2, 3]).fetchall()
    assert "position>? AND position<?" in str(range_plan).replace("=", "")
    conn.close()


def test_schema_is_migrated_once_and_data_persists(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("a", [user("hello")])
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    with SQLiteStore(path) as again:
        assert [m.text for m in again.history("a")] == ["hello"]


def test_a_file_from_before_the_id_index_is_migrated_and_appends_stay_idempotent(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    first = [user("a"), user("b")]
    with SQLiteStore(path) as store:
        store.append("s", first)
    conn = sqlite3.connect(path)  # as summem wrote it before schema version 2
    conn.execute("DROP INDEX messages_by_id")
    conn.execute("DROP TABLE messages_fts")
    conn.execute("ALTER TABLE sessions DROP COLUMN indexed")
    conn.execute("DROP TABLE spend")
    conn.execute("DROP TABLE spend_holds")
    sqlite_drop_branches(conn)
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        assert store.append("s", [*first, user("c")]) == 3
        assert [m.text for m in store.history("s")] == ["a", "b", "c"]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 8
    indexes = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    assert ("messages_by_id",) in indexes
    conn.close()


_LOCKED = "database is locked"


class _CommitFails:
    """A connection whose COMMIT lands (or not), then reports an error (the reply lost)."""

    def __init__(
        self, conn: sqlite3.Connection, *, lands: bool, error: str = "disk I/O error"
    ) -> None:
        self._conn, self._lands, self._error = conn, lands, error

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            self._conn.execute("COMMIT" if self._lands else "ROLLBACK")
            raise sqlite3.OperationalError(self._error)
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@pytest.mark.parametrize("lands", [True, False])
def test_a_failed_commit_is_an_unknown_outcome_and_appending_again_is_safe(
    tmp_path: Path, lands: bool
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    store.append("s", [user("a")])
    holder = store._file._local.holder
    real, holder.conn = holder.conn, _CommitFails(holder.conn, lands=lands)
    batch = [user("b"), user("c")]
    with pytest.raises(StoreOutcomeUnknownError, match="may or may not") as info:
        store.append("s", batch)
    assert info.value.operation == "append"
    holder.conn = real
    assert store.append("s", batch) == 3
    assert [m.text for m in store.history("s")] == ["a", "b", "c"]
    holder.conn = _CommitFails(real, lands=False)
    with pytest.raises(StoreError, match="'s'") as read:
        store.load("s")  # a read's failed COMMIT is a plain error: nothing was written
    assert not isinstance(read.value, StoreOutcomeUnknownError)
    holder.conn = real
    store.close()


def test_a_commit_failing_on_a_lock_carries_the_lock_hint(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db", timeout=0.5)
    store.append("s", [user("a")])
    holder = store._file._local.holder
    real, holder.conn = holder.conn, _CommitFails(holder.conn, lands=False, error=_LOCKED)
    with pytest.raises(StoreOutcomeUnknownError, match="may or may not") as info:
        store.append("s", [user("b"), user("c")])  # a batch: BEGIN IMMEDIATE ... COMMIT
    assert "another process or connection holds a lock on" in str(info.value)
    assert "0.5 s timeout" in str(info.value)
    holder.conn = real
    store.close()


def test_a_file_from_before_the_append_trigger_is_migrated_and_appends_in_one_statement(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("s", [user("a"), user("b")])
        store.append("t", [user("x")])
    conn = sqlite3.connect(path)  # as summem wrote it at schema version 7
    sqlite_drop_grow(conn)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        held = store.history("s")[0]
        assert store.append("s", [user("c")]) == 3  # one statement, the trigger grows it
        assert store.append("s", [held]) == 3  # held: nothing added
        assert store.append("t", [user("y")]) == 2
        assert store.append("new", [user("z")]) == 1  # a new session: the general path
        assert store.append("new", [user("zz")]) == 2
        assert [m.text for m in store.history("s")] == ["a", "b", "c"]
        assert [m.text for m in store.history("t")] == ["x", "y"]
        assert store.probe("new") is not None and store.probe("new")[2] == 2  # type: ignore[index]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 8
    triggers = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
    assert triggers == [("messages_grow",)]
    conn.close()


def test_the_append_trigger_leaves_a_batch_and_a_rewrite_their_own_length(
    tmp_path: Path,
) -> None:
    with SQLiteStore(tmp_path / "s.db") as store:
        store.append("s", [user(str(i)) for i in range(5)])
        assert store.append("s", [user("5"), user("6")]) == 7
        epoch, version, length = store.probe("s")  # type: ignore[misc]
        assert length == 7
        store.rewrite(
            "s",
            keep=3,
            messages=[user("x"), user("y")],
            expected_version=version,
            expected_epoch=epoch,
            branch_id="b1",
        )
        assert store.probe("s")[2] == 5  # type: ignore[index]
        assert store.append("s", [user("z")]) == 6
        assert [m.text for m in store.history("s")] == ["0", "1", "2", "x", "y", "z"]


def test_a_batch_a_rewrite_and_a_create_never_fire_the_append_trigger(tmp_path: Path) -> None:
    # each sets the length before it inserts: the trigger (one UPDATE of the session per
    # message) would only redo what they do; total_changes counts a trigger's rows too
    with SQLiteStore(tmp_path / "s.db") as store:
        store.append("s", [user("a")])
        conn = store._file._conn()
        before = conn.total_changes
        assert store.append("s", [user(str(i)) for i in range(4)]) == 5
        assert conn.total_changes - before == 4 + 1  # the messages, then the length once
        epoch, version, _ = store.probe("s")  # type: ignore[misc]
        before = conn.total_changes
        store.rewrite(
            "s",
            keep=5,  # at the length: every new message lands where the trigger would fire
            messages=[user("x"), user("y"), user("z")],
            expected_version=version,
            expected_epoch=epoch,
            branch_id="b1",
        )
        assert conn.total_changes - before == 1 + 3 + 1  # the branch, the messages, the session
        before = conn.total_changes
        store.create("c", history=[user("p"), user("q")])
        assert conn.total_changes - before == 1 + 2
        before = conn.total_changes
        assert store.append("s", [user("one")]) == 9
        assert conn.total_changes - before == 2  # the message, and the trigger's length
        assert [m.text for m in store.history("s")][-4:] == ["x", "y", "z", "one"]
        assert store.probe("c")[2] == 2  # type: ignore[index]


def test_schema_7_code_appending_to_a_migrated_file_counts_each_message_once(
    tmp_path: Path,
) -> None:
    # code at schema 7 may still use a file at 8 (COMPATIBLE): its one-message append raised
    # the length first, then inserted below it; its batch inserted, then set the length
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("s", [user("a"), user("b")])
    old = [user(f"old-{i}") for i in range(3)]
    conn = sqlite3.connect(path, isolation_level=None)
    grow = (
        "UPDATE sessions SET length = length + 1, updated_at = ? WHERE name = ? AND NOT EXISTS "
        "(SELECT 1 FROM messages m WHERE m.sid = sessions.sid AND m.msg_id = ?) "
        "RETURNING sid, length"
    )
    conn.execute("BEGIN IMMEDIATE")
    sid, length = conn.execute(grow, (0.0, "s", old[0].id)).fetchone()
    conn.execute(SQL.INSERT_MESSAGE, (sid, length - 1, old[0].id, encode_message(old[0])))
    conn.execute("COMMIT")
    conn.execute("BEGIN IMMEDIATE")
    for position, m in zip((3, 4), old[1:], strict=True):
        conn.execute(SQL.INSERT_MESSAGE, (sid, position, m.id, encode_message(m)))
    conn.execute(SQL.SET_LENGTH, (5, 0.0, sid))
    conn.execute("COMMIT")
    assert conn.execute("SELECT length FROM sessions").fetchone() == (5,)
    conn.close()
    with SQLiteStore(path) as store:
        assert store.append("s", [user("c")]) == 6
        assert store.probe("s")[2] == 6  # type: ignore[index]
        assert [m.text for m in store.history("s")] == ["a", "b", "old-0", "old-1", "old-2", "c"]


def test_a_one_message_append_to_a_session_of_bad_length_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("s", [user("a")])
    conn = sqlite3.connect(path)
    conn.execute("UPDATE sessions SET length = 'one' WHERE name = 's'")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store, pytest.raises(CorruptRecordError, match="'s'"):
        store.append("s", [user("b")])
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM messages").fetchone() == (1,)
    conn.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    # a store built on a current file is fine; one that must migrate sees the newer version
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match="upgrade summem"):
        SQLiteStore(path)


def test_bad_paths(tmp_path: Path) -> None:
    for bad in (":memory:", "", "file:x?mode=memory"):
        with pytest.raises(ConfigurationError, match="memory://"):
            SQLiteStore(bad)
    with pytest.raises(StoreError, match=r"cannot open|unable to open"):
        SQLiteStore(tmp_path / "missing-dir" / "s.db")


def test_closed_store_refuses_work(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        store.load("a")


def test_missing_position_is_corrupt(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "s.db") as store:
        store.append("a", [user(str(i)) for i in range(3)])
        conn = sqlite3.connect(tmp_path / "s.db")
        with conn:
            conn.execute("DELETE FROM messages WHERE position = 1")
        conn.close()
        with pytest.raises(CorruptRecordError, match=r"'a'.*missing"):
            store.load("a")


def test_thread_connections_close_with_their_threads(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    threads = [threading.Thread(target=store.append, args=("a", [user(str(i))])) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    assert store._file.connections == 1  # only the main thread's connection is left
    assert store.load("a").length == 6
    store.close()


def test_url_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rel = SQLiteStore.from_url("sqlite:///rel.db")
    assert rel.path == "rel.db" and (tmp_path / "rel.db").exists()
    rel.close()
    absolute = SQLiteStore.from_url(f"sqlite:///{tmp_path}/abs.db")
    assert absolute.path == f"{tmp_path}/abs.db"
    absolute.close()
    for bad in ("sqlite://", "sqlite:///", "sqlite://host/x.db", "postgres:///x.db"):
        with pytest.raises(ConfigurationError, match="sqlite:///relative"):
            SQLiteStore.from_url(bad)


def test_stores_opening_a_new_file_together_all_succeed(tmp_path: Path) -> None:
    # Switching a fresh file to WAL fails at once with "database is locked" (no busy handler)
    # when another connection is switching it too; about one round in twenty of four openers
    # hit it before the store retried, so a hundred rounds catch a regression.
    for round_ in range(100):
        path = tmp_path / f"{round_}.db"
        barrier, errors = threading.Barrier(4), list[StoreError]()

        def open_one(
            path: Path = path,
            barrier: threading.Barrier = barrier,
            errors: list[StoreError] = errors,
        ) -> None:
            barrier.wait(timeout=10)
            try:
                SQLiteStore(path).close()
            except StoreError as exc:  # pragma: no cover - the failure this test catches
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert errors == [], (round_, errors)
        with SQLiteStore(path) as store:
            assert store.list_sessions() == []


def test_opening_gives_up_after_the_timeout_while_the_file_stays_locked(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE other (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="database is locked: another process or conn"):
            SQLiteStore(path, timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with SQLiteStore(path) as store:  # the other table is untouched; the store opens now
        assert store.list_sessions() == []
        assert sqlite3.connect(path).execute("SELECT count(*) FROM other").fetchone() == (0,)


def test_a_lock_held_by_another_connection_is_named_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path, timeout=0.2) as store:
        store.append("s1", [user("hi")])
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # another process's long write transaction
        try:
            with pytest.raises(StoreError) as caught:
                store.append("s1", [user("second")])
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        # one message is one statement in SQLite's own transaction: refused before it wrote
        assert not isinstance(caught.value, StoreOutcomeUnknownError)
        text = str(caught.value)
        assert "database is locked" in text
        assert "another process or connection holds a lock on" in text
        assert repr(str(path)) in text or str(path) in text
        assert "wait" in text and "close it" in text and "0.2 s" in text
        assert [m.content for m in store.history("s1")] == ["hi"]  # nothing lost


def test_a_file_from_before_the_search_index_is_indexed_by_its_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summem.stores.sqlite import recall as sqlite_recall

    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("a", [user("the osprey nests"), user("plain"), user("osprey again")])
        store.append("b", [user("an osprey too")])
    conn = sqlite3.connect(path)  # as summem wrote it at schema version 2, with a bad record
    conn.execute("DROP TABLE messages_fts")
    conn.execute("ALTER TABLE sessions DROP COLUMN indexed")
    conn.execute("DROP TABLE spend")
    conn.execute("DROP TABLE spend_holds")
    sqlite_drop_branches(conn)
    conn.execute("INSERT INTO messages (sid, position, msg_id, body) VALUES (2, 1, 'x', 'junk')")
    conn.execute("UPDATE sessions SET length = 2 WHERE sid = 2")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    monkeypatch.setattr(sqlite_recall, "CATCH_UP_CHUNK", 2)  # several write transactions
    with SQLiteStore(path) as store:
        assert _fts_rows(path) == 0  # opening builds nothing: the searches do
        assert [h.position for h in store.search("a", "osprey", k=5)] == [2, 0]
        assert _fts_rows(path) == 3
        assert [h.message.text for h in store.search("b", "osprey", k=5)] == ["an osprey too"]
        assert _fts_rows(path) == 4  # the unreadable record is not indexed (reading it raises)
        store.append("a", [user("osprey, late")])
        assert _fts_rows(path) == 4  # an append writes no index...
        assert [h.position for h in store.search("a", "late osprey", k=1)] == [3]  # ...a search
        assert _fts_rows(path) == 5
        store.clear("a")
        assert _fts_rows(path) == 1 and store.search("a", "osprey", k=5) == []
        assert store.delete("b") and _fts_rows(path) == 0
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    conn.close()


def _fts_rows(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0])
    finally:
        conn.close()


def test_a_sqlite_without_fts5_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from summem.stores.sqlite import search as sqlite_search

    class NoFts5:
        def execute(self, sql: str, *args: Any) -> Any:
            raise sqlite3.OperationalError("no such module: fts5")

    with pytest.raises(StoreError, match="has no FTS5"):
        sqlite_search.create_fts(NoFts5())  # type: ignore[arg-type]
    other = sqlite3.connect(":memory:")
    other.execute(sqlite_search.CREATE_FTS)
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        sqlite_search.create_fts(other)
    other.close()


def _rewrite_steps(path: Path, n: int) -> int:
    """SQLite VM steps (progress handler calls) of a rewrite abandoning 2 of ``n`` messages."""
    with SQLiteStore(path) as store:
        for start in range(0, n, 1000):
            store.append("s", [user(f"m{i}") for i in range(start, min(n, start + 1000))])
        for watermark in (n // 4, n // 2):
            st = store.load("s")
            summary = user("s").as_summary(SummaryInfo(watermark=watermark))
            store.commit(
                "s",
                summary=summary,
                watermark=watermark,
                expected_version=st.version,
                expected_epoch=st.epoch,
            )
        st = store.load("s")
        conn = store._file._conn()  # this thread's connection: the one the rewrite runs on
        steps = [0]

        def count() -> int:
            steps[0] += 1
            return 0

        conn.set_progress_handler(count, 1)
        store.rewrite(
            "s",
            keep=n - 2,
            messages=[user("new")],
            expected_version=st.version,
            expected_epoch=st.epoch,
            branch_id="b",
        )
        conn.set_progress_handler(None, 1)
        assert [m.text for m in store.history("s", -2)] == [f"m{n - 3}", "new"]
    return steps[0]


def test_a_rewrite_costs_what_it_abandons_not_the_history(tmp_path: Path) -> None:
    small = _rewrite_steps(tmp_path / "small.db", 100)
    large = _rewrite_steps(tmp_path / "large.db", 20_000)
    assert large <= 2 * small + 20, (small, large)  # 200 times the history: about the same work
