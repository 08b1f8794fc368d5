"""Read-only SQLite databases: inspected without being changed, never migrated.

Tests run as root here, and root may write whatever its permission bits say (so root keeps
writing a ``chmod 444`` file, as before read-only support). So every case is covered twice
where it matters: once through what binds root too (SQLite's ``mode=ro``, which the store
uses for every read-only open), and once for real, as an unprivileged user in a forked child
(:func:`unprivileged`), where the kernel refuses the writes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import select
import shutil
import signal
import sqlite3
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from summem.errors import ConfigurationError, SchemaVersionError, StoreError
from summem.messages import assistant, user
from summem.stores import SQLiteStore, open_store
from summem.stores.sqlite import AsyncSQLiteStore
from summem.stores.sqlite.access import Target, _writable, read_only_reason, target
from summem.stores.sqlite.schema import MIGRATIONS
from tests.cli.test_app import one_error_line, run
from tests.stores.helpers import sqlite_drop_branches, sqlite_drop_grow, sqlite_drop_stubs

NOBODY = 65534
CHILD_WAIT_SECONDS = 120
"""How long a forked child may go without answering before it counts as hung."""


def unprivileged(fn: Callable[[], Any]) -> Any:
    """``fn()`` where permission bits bind: here when not root, else as ``nobody`` in a child.

    The result comes back as JSON; an exception comes back as ``"error: Type: text"``. The
    child imports nothing new (the interpreter's files may be unreadable to ``nobody``). A
    child that has not answered after :data:`CHILD_WAIT_SECONDS` (a hang, never a slow run)
    is killed and the test fails.
    """
    if os.geteuid() != 0:
        try:
            return json.loads(json.dumps(fn()))
        except Exception as exc:
            return f"error: {type(exc).__name__}: {exc}"
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # pragma: no cover (the child's coverage is not collected)
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            try:
                out = json.dumps(fn())
            except Exception as exc:
                out = json.dumps(f"error: {type(exc).__name__}: {exc}")
            os.write(write, out.encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([read], [], [], CHILD_WAIT_SECONDS)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"the unprivileged child did not answer in {CHILD_WAIT_SECONDS} s")
            chunk = os.read(read, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    return json.loads(b"".join(chunks))


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder an unprivileged user can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="summem-ro-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for p in [path, *path.iterdir()]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        shutil.rmtree(path)


def make_db(path: Path, *, schema: int | None = None) -> None:
    """A database with two sessions, closed cleanly (no -wal or -shm file left)."""
    with SQLiteStore(path) as store:
        store.append("a", [user("hello"), assistant("hi there")])
        store.append("b", [user("other")])
        store.record_spend("tenant", at=1.0, tokens=10, cost_usd=0.5)
    if schema is not None:  # as an older summem left it
        conn = sqlite3.connect(path)
        conn.execute("DROP TABLE spend")
        conn.execute("DROP TABLE spend_holds")
        sqlite_drop_branches(conn)
        conn.execute(f"PRAGMA user_version = {schema}")
        conn.commit()
        conn.close()
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [
        path.name
    ]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


WRITES: list[tuple[str, Callable[[SQLiteStore], object]]] = [
    ("append", lambda s: s.append("a", [user("more")])),
    ("set_system", lambda s: s.set_system("a", None)),
    ("commit", lambda s: s.commit("a", summary=None, watermark=1, expected_version=0,
                                  expected_epoch="e")),
    ("create", lambda s: s.create("new", history=[user("x")])),
    ("clear", lambda s: s.clear("a")),
    ("delete", lambda s: s.delete("a")),
    ("acquire_lease", lambda s: s.acquire_lease("a", "me", 5)),
    ("release_lease", lambda s: s.release_lease("a", "me")),
    ("record_spend", lambda s: s.record_spend("tenant", at=2.0, tokens=1, cost_usd=0.1)),
    ("rollback", lambda s: s.rollback("a", summary_id=None, expected_version=0)),
    ("rewrite", lambda s: s.rewrite("a", keep=0, messages=[], expected_version=0,
                                    expected_epoch="e", branch_id="b")),
]  # fmt: skip


def check_reads(store: SQLiteStore) -> None:
    assert store.list_sessions() == ["a", "b"]
    assert store.exists("a") and not store.exists("zzz")
    state = store.load("a")
    assert [m.text for m in state.tail] == ["hello", "hi there"]
    assert [m.text for m in store.history("b")] == ["other"]
    assert store.summaries("a") == []
    assert store.branches("a") == []
    assert store.probe("zzz") is None
    assert store.position_of("a", state.tail[1].id) == 1
    assert store.spent_since("tenant").cost_usd == 0.5


def check_read_only(store: SQLiteStore) -> str:
    """Reads work, every write is refused by summem and by SQLite itself; "ok" or raises."""
    try:
        assert store.read_only is True
        check_reads(store)
        for name, write in WRITES:
            with pytest.raises(StoreError, match=f"cannot {name}.*is open read-only"):
                write(store)
        # not only summem's own refusal: SQLite itself was opened read-only
        conn = store._file._conn()
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("INSERT INTO leases VALUES ('x', 'y', 0)")
        check_reads(store)
    finally:
        store.close()
    return "ok"


@pytest.mark.parametrize(
    "how",
    ["read_only=True", "file: URI", "sqlite URL ?mode=ro", "chmod 444", "chmod 555 folder"],
)
def test_a_read_only_database_reads_refuses_writes_and_is_never_changed(
    folder: Path, how: str
) -> None:
    path = folder / "s.db"
    make_db(path)
    before = digest(path)
    if how == "read_only=True":
        assert check_read_only(SQLiteStore(path, read_only=True)) == "ok"
    elif how == "file: URI":
        assert check_read_only(SQLiteStore(f"file:{path}?mode=ro")) == "ok"
    elif how == "sqlite URL ?mode=ro":
        opened = open_store(f"sqlite:///{path}?mode=ro")
        assert isinstance(opened, SQLiteStore)
        assert check_read_only(opened) == "ok"
    else:  # the kernel refuses the writes: as nobody (root may write whatever the bits say)
        if how == "chmod 444":
            path.chmod(0o444)
        else:
            folder.chmod(0o555)
        assert unprivileged(lambda: check_read_only(SQLiteStore(path))) == "ok"
    assert digest(path) == before


def test_root_keeps_writing_a_file_without_write_bits_as_before(folder: Path) -> None:
    """What the process may do decides, not the bits: a root deployment with 0444/0555 files
    and folders that wrote before read-only support still writes; asking still wins."""
    if os.geteuid() != 0:
        pytest.skip("only root may write a file without write bits")
    path = folder / "s.db"
    make_db(path)
    path.chmod(0o444)
    folder.chmod(0o555)
    with SQLiteStore(path) as store:
        assert store.read_only is False
        store.append("a", [user("written")])
    with SQLiteStore(path, read_only=True) as reader:
        assert reader.read_only is True
        assert reader.history("a")[-1].text == "written"


def test_opening_read_only_because_it_cannot_write_is_logged(folder: Path) -> None:
    path = folder / "s.db"
    make_db(path)
    path.chmod(0o444)

    def open_it() -> list[str]:
        import logging

        seen: list[str] = []

        class Seen(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                seen.append(f"{record.levelname} {record.getMessage()}")

        handler = Seen(logging.WARNING)
        logging.getLogger("summem.stores").addHandler(handler)
        try:
            SQLiteStore(path).close()
            SQLiteStore(path, read_only=True).close()  # asked: nothing to warn about
        finally:
            logging.getLogger("summem.stores").removeHandler(handler)
        return seen

    out = unprivileged(open_it)
    if os.geteuid() == 0 or not os.access(path, os.W_OK):
        assert out == [
            f"WARNING SQLiteStore({str(path)!r}): opened read-only because the file is not "
            "writable; writes will be refused"
        ], out


def test_a_read_only_store_with_a_current_schema_reads_through_memory_too(tmp_path: Path) -> None:
    from summem.memory import Memory
    from tests.fakes.memory import small_reducer

    path = tmp_path / "s.db"
    make_db(path)
    with SQLiteStore(path, read_only=True) as store:
        memory = Memory("a", reducer=small_reducer(), store=store)
        assert [m["content"] for m in memory.messages()] == ["hello", "hi there"]
        with pytest.raises(StoreError, match="read-only"):
            memory.add(user("one more"))
        assert [m.text for m in store.history("a")] == ["hello", "hi there"]


def test_recall_search_reads_an_index_that_is_up_to_date_and_searches_in_memory_if_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    make_db(path)
    with SQLiteStore(path) as store:
        assert [h.position for h in store.search("a", "hello", k=3)] == [0]  # indexes "a"
    before = digest(path)
    with SQLiteStore(path, read_only=True) as reader:
        assert [h.message.text for h in reader.search("a", "hello", k=3)] == ["hello"]
        # never indexed: indexing would be a write, so it is searched in memory instead
        assert [h.message.text for h in reader.search("b", "other", k=3)] == ["other"]
    assert digest(path) == before


def test_an_older_schema_read_only_says_it_needs_a_migration_and_is_left_alone(
    folder: Path,
) -> None:
    path = folder / "s.db"
    make_db(path, schema=3)
    before = digest(path)
    with pytest.raises(SchemaVersionError) as info:
        SQLiteStore(path, read_only=True)
    assert (info.value.stored, info.value.known) == (3, len(MIGRATIONS))
    text = str(info.value)
    assert f"schema version 3, older than this summem's ({len(MIGRATIONS)})" in text
    assert "needs a migration, which cannot run on a read-only database" in text
    assert "nothing was changed" in text
    path.chmod(0o444)

    def open_it() -> str:
        SQLiteStore(path).close()
        return "opened"

    out = unprivileged(open_it)
    if os.geteuid() == 0 or not os.access(path, os.W_OK):
        assert out.startswith("error: SchemaVersionError"), out
        assert "read-only database (the file is not writable)" in out
    assert digest(path) == before
    path.chmod(0o644)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()
    with SQLiteStore(path) as writable:  # with write access it migrates as before
        assert writable.read_only is False
        assert [m.text for m in writable.history("a")] == ["hello", "hi there"]
        assert writable.spent_since("tenant").cost_usd == 0  # the ledger is new


# -- for real: an unprivileged user, where the kernel refuses writes ------------------------


def test_unprivileged_reader_of_a_protected_file_in_a_protected_folder(folder: Path) -> None:
    """Neither the file nor its folder is writable: SQLite cannot create the -shm file a WAL
    database needs, so the store reads the file immutable (no -wal holds unmerged commits)."""
    path = folder / "s.db"
    make_db(path)
    path.chmod(0o444)
    folder.chmod(0o755)  # owned by root: not writable to nobody, though it has write bits
    before = digest(path)

    def read() -> dict[str, Any]:
        with SQLiteStore(path) as store:
            check_reads(store)
            try:
                store.append("a", [user("x")])
            except StoreError as exc:
                refused = str(exc)
            return {"read_only": store.read_only, "uri": store._file._uri, "refused": refused}

    out = unprivileged(read)
    assert isinstance(out, dict), out
    assert out["read_only"] is True and "is open read-only" in out["refused"]
    if os.geteuid() == 0:  # nobody: the folder is not writable, so no -shm could be made
        assert out["uri"].endswith("?mode=ro&immutable=1")
        assert "(the file is not writable)" in out["refused"]
    assert sorted(p.name for p in folder.iterdir()) == ["s.db"]  # nothing created
    assert digest(path) == before


def test_a_file_short_only_of_the_append_trigger_is_read_as_it_is(folder: Path) -> None:
    # schema 7: migration 8 only adds the trigger a one-message append relies on; a read-only
    # reader (summem inspect) needs nothing of it, and writes are refused anyway
    path = folder / "s.db"
    make_db(path)
    conn = sqlite3.connect(path)
    sqlite_drop_grow(conn)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    before = digest(path)
    with SQLiteStore(path, read_only=True) as reader:
        assert [m.text for m in reader.history("a")] == ["hello", "hi there"]
        assert reader.load("b").length == 1
        assert [h.message.text for h in reader.search("a", "hello", k=3)] == ["hello"]
        with pytest.raises(StoreError, match="is open read-only"):
            reader.append("a", [user("more")])
    assert digest(path) == before
    with SQLiteStore(path) as writer:  # a writer still migrates it
        assert writer.append("a", [user("more")]) == 3
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS),)
    conn.close()


def test_a_file_short_of_a_migration_readers_need_is_still_refused(folder: Path) -> None:
    path = folder / "s.db"
    make_db(path)
    conn = sqlite3.connect(path)
    sqlite_drop_stubs(conn)  # migrations 8 and 7: a reader needs 7 (stubs in the log)
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaVersionError, match="schema version 6, older than this summem's"):
        SQLiteStore(path, read_only=True)


def test_unprivileged_reader_of_an_older_schema_gets_the_clear_error(folder: Path) -> None:
    path = folder / "s.db"
    make_db(path, schema=2)
    path.chmod(0o644)  # writable to root only: nobody may not write it
    before = digest(path)

    def open_it() -> str:
        SQLiteStore(path).close()
        return "opened"

    out = unprivileged(open_it)
    if os.geteuid() == 0:
        assert isinstance(out, str) and out.startswith("error: SchemaVersionError"), out
        assert f"schema version 2, older than this summem's ({len(MIGRATIONS)})" in out
        assert "cannot run on a read-only database (the file is not writable)" in out
        assert digest(path) == before
        assert sorted(p.name for p in folder.iterdir()) == ["s.db"]


def test_unprivileged_reader_sees_commits_still_in_a_live_writers_wal(folder: Path) -> None:
    """A writer holds the database open with commits in its -wal: a read-only reader in a
    folder it cannot write reads through the writer's -shm and sees them."""
    path = folder / "s.db"
    make_db(path)
    writer = SQLiteStore(path)
    try:
        writer._file._conn().execute("PRAGMA wal_autocheckpoint = 0")
        writer.append("a", [user("still in the wal")])
        assert os.path.getsize(f"{path}-wal") > 0
        for p in folder.iterdir():
            p.chmod(0o644)  # readable by nobody, writable by root only

        def read() -> list[str]:
            with SQLiteStore(path) as store:
                return [m.text for m in store.history("a")]

        assert unprivileged(read) == ["hello", "hi there", "still in the wal"]
    finally:
        writer.close()


def test_a_wal_with_unmerged_commits_and_no_shm_in_a_protected_folder_is_refused(
    folder: Path, tmp_path: Path
) -> None:
    """Reading it immutable would miss the -wal's commits: say why instead."""
    source = tmp_path / "s.db"
    make_db(source)
    writer = SQLiteStore(source)
    writer._file._conn().execute("PRAGMA wal_autocheckpoint = 0")
    writer.append("a", [user("only in the wal")])
    shutil.copy(source, folder / "s.db")  # what a crashed writer leaves, minus its -shm
    shutil.copy(f"{source}-wal", folder / "s.db-wal")
    writer.close()
    for p in folder.iterdir():
        p.chmod(0o444)
    folder.chmod(0o555)

    def open_it() -> str:
        SQLiteStore(folder / "s.db").close()
        return "opened"

    out = unprivileged(open_it)
    if os.geteuid() == 0 or not os.access(folder, os.W_OK):
        assert isinstance(out, str) and out.startswith("error: StoreError"), out
        assert "-wal file holds commits not yet merged" in out
    assert sorted(p.name for p in folder.iterdir()) == ["s.db", "s.db-wal"]


# -- what cannot be read: said, never guessed -----------------------------------------------


def test_a_protected_file_that_is_not_a_database_is_a_clear_error(folder: Path) -> None:
    path = folder / "junk.db"
    path.write_bytes(b"not a database" * 100)
    path.chmod(0o444)

    def open_it() -> str:
        SQLiteStore(path).close()
        return "opened"

    out = unprivileged(open_it)
    if os.geteuid() == 0 or not os.access(path, os.W_OK):
        assert out.startswith("error: StoreError"), out
        assert "read-only (the file is not writable)" in out and "file is not a database" in out
    with pytest.raises(StoreError, match="file is not a database"):
        SQLiteStore(f"file:{path}?immutable=1")  # asked for immutable: nothing to fall back to


def test_in_a_protected_folder_the_fallback_is_tried_only_when_it_would_be_exact(
    folder: Path,
) -> None:
    path = folder / "junk.db"
    path.write_bytes(b"not a database" * 100)
    folder.chmod(0o555)

    def open_it() -> str:
        SQLiteStore(path).close()
        return "opened"

    if os.geteuid() == 0 or not os.access(folder, os.W_OK):
        out = unprivileged(open_it)  # no -wal: read immutable, which fails the same way
        assert out.startswith("error: StoreError") and "file is not a database" in out, out
        assert "-wal" not in out
        folder.chmod(0o755)
        (folder / "junk.db-wal").write_bytes(b"x" * 64)
        folder.chmod(0o555)
        out = unprivileged(open_it)
        assert "-wal file holds commits not yet merged" in out, out
    assert read_only_reason(str(folder / "missing.db")) is None  # a new file: read-write
    assert _writable(str(folder / "missing.db"))  # not there: SQLite will say what is wrong


# -- async, URLs, the CLI -----------------------------------------------------------------


def test_async_store_opens_read_only_too(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    make_db(path)
    before = digest(path)

    async def scenario() -> None:
        async with AsyncSQLiteStore(path, read_only=True) as store:
            assert store.read_only is True
            assert [m.text for m in await store.history("a")] == ["hello", "hi there"]
            with pytest.raises(StoreError, match="read-only"):
                await store.append("a", [user("x")])
        unsaid = AsyncSQLiteStore(path)
        assert unsaid.read_only is None  # decided when it opens
        async with unsaid:
            assert unsaid.read_only is False
        async with AsyncSQLiteStore.from_url(f"sqlite:///{path}?mode=ro") as again:
            assert await again.list_sessions() == ["a", "b"]

    asyncio.run(scenario())
    assert digest(path) == before


def test_file_uris_and_their_parameters() -> None:
    assert target("file:x.db") == target("x.db")
    assert target("file:/abs/x.db?mode=ro").read_only is True
    assert target("file:///abs/x%20y.db?mode=rw").path == "/abs/x y.db"
    assert target("file://localhost/abs/x.db?mode=rwc").read_only is False
    assert target("file:x.db?immutable=1") == Target("x.db", read_only=True, immutable=True)
    assert target("file:x.db?mode=ro", read_only=False).read_only is False
    for contradiction in [
        lambda: target("file:x.db?immutable=1", read_only=False),
        lambda: target("file:x.db?mode=rw&immutable=1"),
    ]:
        with pytest.raises(ConfigurationError, match="cannot be opened read-write"):
            contradiction()
    for bad, match in [
        ("file:x.db?cache=shared", "cache=shared is not supported"),
        ("file:x.db?mode=bogus", "mode=bogus is not supported"),
        ("file://host/x.db", "file:relative.db"),
        ("file:x.db?mode=memory", "memory://"),
    ]:
        with pytest.raises(ConfigurationError, match=match):
            target(bad)


def test_cli_inspects_a_read_only_database_and_leaves_it_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    make_db(path)
    path.chmod(0o444)
    before = digest(path)
    url = f"sqlite:///{path}?mode=ro"  # root may write a 444 file: say read-only
    listed = run("sessions", "list", "--store", url, "--json")
    assert listed.exit_code == 0, listed.output
    assert [row["session"] for row in json.loads(listed.stdout)] == ["a", "b"]
    shown = run("sessions", "show", "a", "--store", url)
    assert shown.exit_code == 0 and "hi there" in shown.stdout
    deleted = run("sessions", "delete", "a", "--store", url, "--yes")
    assert deleted.exit_code != 0 and "read-only" in one_error_line(deleted)
    assert digest(path) == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_cli_names_the_migration_an_older_read_only_database_needs(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    make_db(path, schema=3)
    path.chmod(0o444)
    before = digest(path)
    listed = run("sessions", "list", "--store", f"sqlite:///{path}?mode=ro")
    assert listed.exit_code != 0
    assert "needs a migration, which cannot run on a read-only database" in one_error_line(listed)
    assert digest(path) == before


# -- a reader that had to read immutable, and a writer that starts after it ---------------


def reader_while_written(path: Path, write: Callable[[], None]) -> Any:
    """As nobody: open ``path``, read, let ``write`` run (as root, here), read again, in this
    thread and in a new one. Returns what the reader saw, or its error."""
    to_parent, from_child = os.pipe()
    to_child, from_parent = os.pipe()

    def histories(store: SQLiteStore) -> list[list[str] | str]:
        seen: list[list[str] | str] = []

        def one() -> None:
            try:
                seen.append([m.text for m in store.history("a")] + store.list_sessions())
            except StoreError as exc:
                seen.append(f"error: {exc}")

        one()
        import threading

        thread = threading.Thread(target=one)
        thread.start()
        thread.join()
        return seen

    def read() -> dict[str, Any]:
        with SQLiteStore(path) as store:
            before = histories(store)
            uri = store._file._uri
            os.write(from_child, b"1")
            os.read(to_child, 1)
            return {"uri": uri, "before": before, "after": histories(store)}

    def writer() -> None:
        os.read(to_parent, 1)
        try:
            write()
        finally:
            os.write(from_parent, b"1")

    import threading

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        return unprivileged(read)
    finally:
        if thread.is_alive():
            os.write(from_child, b"1")  # the child never got there: let the writer go
        thread.join()
        for fd in (to_parent, from_child, to_child, from_parent):
            os.close(fd)


OLD = ["hello", "hi there", "a", "b"]


@pytest.mark.parametrize("how", ["writer closed", "writer open, wal unmerged", "rewritten"])
def test_an_immutable_reader_follows_a_writer_that_starts_after_it(folder: Path, how: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to fork a reader as nobody in a folder it cannot write")
    path = folder / "s.db"
    make_db(path)
    path.chmod(0o644)  # nobody may not write it, nor the folder: read immutable
    writers: list[SQLiteStore] = []

    def write() -> None:
        writer = SQLiteStore(path)
        writers.append(writer)
        if how == "writer open, wal unmerged":
            writer._file._conn().execute("PRAGMA wal_autocheckpoint = 0")
        if how == "rewritten":
            writer.delete("a")
            writer.append("a", [user("new " + "y" * 1500) for _ in range(100)])
            for j in range(20):
                writer.append(f"c{j}", [user("z" * 5000)])
        else:
            writer.append("a", [user("later")])
        for p in folder.iterdir():
            p.chmod(0o644)
        if how != "writer open, wal unmerged":
            writer.close()

    try:
        out = reader_while_written(path, write)
    finally:
        for writer in writers:
            writer.close()
    assert isinstance(out, dict), out
    assert out["uri"].endswith("immutable=1")
    assert out["before"] == [OLD, OLD]
    if how == "rewritten":
        new = ["new " + "y" * 1500] * 100 + ["a", "b"] + sorted(f"c{j}" for j in range(20))
        assert out["after"] == [new, new]
    else:
        new = ["hello", "hi there", "later", "a", "b"]
        assert out["after"] == [new, new]


def test_an_immutable_reader_refuses_a_wal_it_cannot_follow(folder: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to fork a reader as nobody in a folder it cannot write")
    path = folder / "s.db"
    make_db(path)
    path.chmod(0o644)
    source = tmp_path / "w.db"
    shutil.copy(path, source)

    def write() -> None:  # what a writer that crashed leaves: unmerged commits, no -shm
        writer = SQLiteStore(source)
        writer._file._conn().execute("PRAGMA wal_autocheckpoint = 0")
        writer.append("a", [user("only in the wal")])
        shutil.copy(f"{source}-wal", f"{path}-wal")
        writer.close()
        os.chmod(f"{path}-wal", 0o644)

    out = reader_while_written(path, write)
    assert isinstance(out, dict), out
    assert out["before"] == [OLD, OLD]
    for seen in out["after"]:
        assert seen.startswith("error: "), out
        assert "another process is writing" in seen, out
        assert "cannot follow its write-ahead log" in seen


def test_the_immutable_watch_reopens_and_refuses_a_read_torn_by_a_write(tmp_path: Path) -> None:
    """In-process (root may write the folder, so the fallback is set up by hand): a change
    seen before a read opens the file again; one during a read fails that read."""
    from summem.stores.sqlite.access import fingerprint

    path = tmp_path / "s.db"
    make_db(path)
    with SQLiteStore(f"file:{path}?immutable=1") as reader:
        reader._file._watch = fingerprint(str(path))
        assert [m.text for m in reader.history("a")] == ["hello", "hi there"]
        with SQLiteStore(path) as writer:
            writer.append("a", [user("later")])
        assert [m.text for m in reader.history("a")] == ["hello", "hi there", "later"]
        assert reader._file._uri is not None and "immutable=1" not in reader._file._uri
        reader._file._watch = fingerprint(str(path))  # as if immutable again
        torn = pytest.raises(StoreError, match=r"wrote .* while it was being read")
        with torn, reader._file.tx("a") as conn:
            conn.execute("SELECT 1").fetchone()
            os.utime(path, ns=(1, 1))


# -- recall on a store that may not write: searched, never indexed in the file ----------------

ORDERS = [
    user("my parcel BW-58214-K is late"),
    assistant("I will look into BW-58214-K"),
    user("also the invoice INV-7731"),
    assistant("INV-7731 was paid on March 3"),
]


def indexed_count(path: Path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT indexed FROM sessions WHERE name = 'a'").fetchone()[0])
    finally:
        conn.close()


def found(store: SQLiteStore, query: str, **kw: Any) -> list[tuple[int, str]]:
    return [(h.position, h.message.text) for h in store.search("a", query, k=5, **kw)]


def test_search_on_a_read_only_store_finds_without_writing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("a", ORDERS)  # never searched: nothing indexed yet
    shutil.copy(path, tmp_path / "copy.db")
    with SQLiteStore(tmp_path / "copy.db") as writer:  # what a search that indexes finds
        expected = found(writer, "INV-7731")
    before = digest(path)
    with (
        caplog.at_level("DEBUG", logger="summem.stores"),
        SQLiteStore(path, read_only=True) as reader,
    ):
        assert indexed_count(path) == 0
        assert found(reader, "INV-7731") == expected
        assert sorted(expected) == [
            (2, "also the invoice INV-7731"),
            (3, "INV-7731 was paid on March 3"),
        ]
        assert found(reader, "BW-58214-K", stop=1) == [(0, "my parcel BW-58214-K is late")]
        assert found(reader, "nothing-like-it") == []
    assert digest(path) == before and indexed_count(path) == 0
    said = [r for r in caplog.records if "in-memory index" in r.getMessage()]
    assert len(said) == 1 and said[0].levelname == "INFO"  # once per session


def test_a_read_only_search_sees_what_a_writer_appends_later(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as writer:
        writer.append("a", ORDERS[:2])
        assert found(writer, "BW-58214-K")  # the file's index covers these two
        with SQLiteStore(path, read_only=True) as reader:
            assert [p for p, _ in found(reader, "BW-58214-K")] == [1, 0]  # the file's index
            writer.append("a", ORDERS[2:])  # not indexed in the file
            assert sorted(p for p, _ in found(reader, "INV-7731")) == [2, 3]  # in memory
            writer.append("a", [user("INV-7731 again")])
            assert sorted(p for p, _ in found(reader, "INV-7731")) == [2, 3, 4]
            writer.clear("a")  # a new epoch: the in-memory index starts again
            writer.append("a", [user("fresh INV-7731")])
            assert found(reader, "INV-7731") == [(0, "fresh INV-7731")]
        assert indexed_count(path) == 0  # the writer's clear; the reader indexed nothing


async def test_async_read_only_store_and_memory_recall_search_too(tmp_path: Path) -> None:
    from summem import AsyncMemory, Memory

    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("a", ORDERS)
    async with AsyncSQLiteStore(path, read_only=True) as reader:
        hits = await reader.search("a", "BW-58214-K", k=5)
        assert sorted(h.position for h in hits) == [0, 1]
        memory = AsyncMemory("a", store=reader)
        recalled = await memory.recall("INV-7731", evicted_only=False)
        assert {h.position for h in recalled} >= {2, 3}
    with Memory("a", store=SQLiteStore(path, read_only=True)) as sync_memory:
        recalled = sync_memory.recall("INV-7731", evicted_only=False)
        assert {h.position for h in recalled} >= {2, 3}
    assert indexed_count(path) == 0


def test_unprivileged_search_of_a_file_it_cannot_write(folder: Path) -> None:
    path = folder / "s.db"
    with SQLiteStore(path) as store:
        store.append("a", ORDERS)
    path.chmod(0o444)
    before = digest(path)

    def search() -> list[Any]:
        with SQLiteStore(path) as store:
            return [store.read_only, [h.position for h in store.search("a", "INV-7731", k=5)]]

    assert unprivileged(search) == [True, [2, 3]]  # best first, as a writer ranks one session
    shutil.copy(path, folder / "w.db")
    (folder / "w.db").chmod(0o644)
    with SQLiteStore(folder / "w.db") as writer:
        assert [h.position for h in writer.search("a", "INV-7731", k=5)] == [2, 3]
    assert digest(path) == before


def test_a_read_only_search_skips_an_unreadable_record(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.append("a", ORDERS)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE messages SET body = 'not json' WHERE position = 2")
    conn.close()
    with SQLiteStore(path, read_only=True) as reader:
        assert found(reader, "INV-7731") == [(3, "INV-7731 was paid on March 3")]


def test_a_read_only_search_below_what_the_file_indexed_uses_it_though_the_session_grew(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The file's index covers ``[0, stop)`` but not the messages appended since: searched
    as it is (no catching up, which would write), and no in-memory index is built."""
    path = tmp_path / "s.db"
    with SQLiteStore(path) as writer:
        writer.append("a", ORDERS[:2])
        expected = found(writer, "BW-58214-K")  # indexes 2 messages
        writer.append("a", ORDERS[2:])  # not indexed in the file
    before = digest(path)
    with (
        caplog.at_level("DEBUG", logger="summem.stores"),
        SQLiteStore(path, read_only=True) as reader,
    ):
        assert found(reader, "BW-58214-K", stop=2) == expected
        assert [p for p, _ in expected] == [1, 0]
        assert found(reader, "BW-58214-K", stop=1) == [(0, "my parcel BW-58214-K is late")]
        assert not [r for r in caplog.records if "in-memory" in r.getMessage()]
        assert sorted(p for p, _ in found(reader, "INV-7731")) == [2, 3]  # past it: in memory
    assert digest(path) == before and indexed_count(path) == 2


def test_memory_recall_on_a_read_only_store_behind_a_writer(tmp_path: Path) -> None:
    from summem import Memory

    path = tmp_path / "s.db"
    with Memory("a", store=SQLiteStore(path)) as writer:
        writer.extend([user("parcel BW-1 late"), assistant("checking BW-1")])
        assert {h.position for h in writer.recall("BW-1", evicted_only=False)} == {0, 1}
        with Memory("a", store=SQLiteStore(path, read_only=True)) as reader:
            assert len(reader.history()) == 2  # the reader knows 2 messages
            writer.add(user("and BW-2?"))  # the file's index is now behind the session
            recalled = reader.recall("BW-1", evicted_only=False)
            assert {h.position for h in recalled} == {0, 1}
    assert indexed_count(path) == 2


def scan_search(reader: SQLiteStore, conn: sqlite3.Connection, name: str, length: int) -> Any:
    """The in-memory search as a read of a snapshot of ``length`` messages calls it."""
    from summem.stores.sqlite.search import fts_query

    sid, epoch, indexed = conn.execute(
        "SELECT sid, epoch, indexed FROM sessions WHERE name = ?", (name,)
    ).fetchone()
    match = fts_query(sid, "alpha")
    assert match is not None
    return reader._scans.search(
        conn,
        name,
        sid=sid,
        epoch=epoch,
        length=length,
        indexed=indexed,
        match=match,
        hi=length,
        k=3,
    )


def test_an_older_snapshot_after_a_newer_one_does_not_rebuild_the_in_memory_index(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as writer:
        writer.append("a", [user(f"alpha {i}") for i in range(20)])
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with caplog.at_level("INFO", logger="summem.stores"), SQLiteStore(path, read_only=True) as r:
        first = scan_search(r, conn, "a", 20)
        index = r._scans._indexes["a"]
        for length in (10, 20, 10):
            scan_search(r, conn, "a", length)
        assert r._scans._indexes["a"] is index and index.done == 20  # never rebuilt
        assert [p for p, _ in scan_search(r, conn, "a", 10)] == [9, 8, 7]
        assert scan_search(r, conn, "a", 20) == first
    conn.close()
    said = [x for x in caplog.records if "in-memory index" in x.getMessage()]
    assert len(said) == 1


def test_in_memory_indexes_are_bounded_and_dropped_once_the_file_covers_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summem.stores.sqlite import scan as sqlite_scan

    path = tmp_path / "s.db"
    with SQLiteStore(path) as writer:
        for i in range(5):
            writer.append(f"s{i}", [user(f"alpha {i} {j}") for j in range(3)])
    monkeypatch.setattr(sqlite_scan, "MAX_SCAN_SESSIONS", 3)
    with SQLiteStore(path, read_only=True) as reader:
        for i in range(5):
            assert len(reader.search(f"s{i}", "alpha", k=2)) == 2
        assert list(reader._scans._indexes) == ["s2", "s3", "s4"]  # the 3 last searched
        assert len(reader.search("s0", "alpha", k=2)) == 2  # built again
        assert list(reader._scans._indexes) == ["s3", "s4", "s0"]
        with SQLiteStore(path) as writer:
            assert writer.search("s3", "alpha", k=2)  # the file's index covers s3 now
        assert [h.position for h in reader.search("s3", "alpha", k=2)] == [2, 1]
        assert "s3" not in reader._scans._indexes


def test_a_session_cleared_and_grown_past_the_in_memory_index_is_indexed_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as writer, SQLiteStore(path, read_only=True) as reader:
        writer.append("a", [user("old INV-7731"), user("old")])
        assert found(reader, "INV-7731") == [(0, "old INV-7731")]
        writer.clear("a")
        writer.append("a", [user("new"), user("new too"), user("new INV-7731")])
        assert found(reader, "INV-7731") == [(2, "new INV-7731")]


def test_a_session_rewritten_under_the_in_memory_index_is_indexed_again(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as writer, SQLiteStore(path, read_only=True) as reader:
        writer.append("a", [user("kept"), user("gone osprey"), user("gone too")])
        assert found(reader, "osprey") == [(1, "gone osprey")]
        st = writer.load("a")
        edited = user("edited heron")
        writer.rewrite(
            "a",
            keep=1,
            messages=[edited],
            expected_version=st.version,
            expected_epoch=st.epoch,
            branch_id="b",
        )
        assert found(reader, "osprey") == []  # the abandoned messages are not searched
        assert found(reader, "heron") == [(1, "edited heron")]
        st = writer.load("a")
        again = user("edited kingfisher").with_id(edited.id)  # same id, same position, new text
        writer.rewrite(
            "a",
            keep=1,
            messages=[again],
            expected_version=st.version,
            expected_epoch=st.epoch,
            branch_id="b2",
        )
        assert found(reader, "heron") == []
        assert found(reader, "kingfisher") == [(1, "edited kingfisher")]
