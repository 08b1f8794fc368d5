"""Small helpers shared by the store tests."""

from __future__ import annotations

from typing import Any, Protocol, cast

from summem.messages import Message, SummaryInfo, assistant, user
from summem.stores.base import BranchingStore, Store

# Ids that must stay apart: prefixes of key suffixes, braces (Redis hash tags), glob
# characters, unicode (composed and not), and the longest allowed.
IDS = [
    "a",
    "a:messages",
    "a:meta",
    "a}",
    "{a}",
    "a}:msgs",
    "x:{y}:z",
    "日本語 🙂",
    "é",
    "e\u0301",
    "A",
    "a" * 1024,
    "a" * 1023 + "b",
    "  spaced  ",
    "a*?[x]\\",
]


def snap(m: Message | None) -> Any:
    return None if m is None else (m.id, m.to_openai(), m.summary_info)


def state_of(store: Store, sid: str) -> Any:
    st = store.load(sid)
    return (
        st.version,
        st.epoch,
        st.watermark,
        st.length,
        snap(st.system),
        snap(st.summary),
        [snap(m) for m in st.tail],
        [snap(m) for m in store.summaries(sid)],
        [m.id for m in store.history(sid)],
    )


def summary_msg(text: str, watermark: int, **info: Any) -> Message:
    return assistant(text).as_summary(SummaryInfo(watermark=watermark, **info))


def reduce_to(store: Store, sid: str, watermark: int, text: str = "s") -> Message:
    """Commit a summary up to ``watermark`` on the session as it is now."""
    st = store.load(sid)
    summary = summary_msg(text, watermark)
    store.commit(
        sid,
        summary=summary,
        watermark=watermark,
        expected_version=st.version,
        expected_epoch=st.epoch,
    )
    return summary


def fill(store: Store, sid: str, n: int) -> list[Message]:
    batch = [user(f"{sid}#{i}") for i in range(n)]
    store.append(sid, batch)
    return batch


def sqlite_drop_grow(conn: Any) -> None:
    """Undo SQLite migration 8 (the trigger that grows a session by its appended message)."""
    conn.execute("DROP TRIGGER messages_grow")


def sqlite_drop_stubs(conn: Any) -> None:
    """Undo SQLite migrations 8 and 7 (the append's trigger, the bounded summary log) on an
    open ``sqlite3`` connection."""
    sqlite_drop_grow(conn)
    conn.execute("DROP INDEX summaries_whole")
    conn.execute("ALTER TABLE summaries DROP COLUMN whole")


def sqlite_drop_branches(conn: Any) -> None:
    """Undo SQLite migrations 8 to 6 (the append's trigger, the bounded log, branches) on an
    open ``sqlite3`` connection: a file as an older summem wrote it."""
    sqlite_drop_stubs(conn)
    conn.execute("DROP TABLE branch_messages")
    conn.execute("DROP TABLE branches")
    conn.execute("DROP INDEX summaries_valid")
    conn.execute("ALTER TABLE summaries DROP COLUMN abandoned_by")


def pg_drop_stubs(schema: str) -> None:
    """Undo PostgreSQL migrations 8 and 7 (the listing index, the bounded summary log)."""
    from tests.stores.backends import pg_execute

    pg_execute("DROP INDEX {schema}.sessions_by_name", schema=schema)
    pg_execute("ALTER TABLE {schema}.summaries DROP COLUMN whole", schema=schema)


def pg_drop_branches(schema: str) -> None:
    """Undo PostgreSQL migrations 8, 7 and 5 (the listing index, the bounded log, branches)
    in ``schema``: tables as an older summem left them (migration 6 adds a function that is
    replaced)."""
    from tests.stores.backends import pg_execute

    pg_drop_stubs(schema)
    pg_execute("DROP TABLE {schema}.branch_messages, {schema}.branches", schema=schema)
    pg_execute("ALTER TABLE {schema}.summaries DROP COLUMN abandoned_by", schema=schema)


class BranchStore(Store, BranchingStore, Protocol):
    """A store that branches, as every built-in store does (the tests' view of it)."""


def branching(store: Store) -> BranchStore:
    """``store`` as a :class:`BranchStore` (every built-in store, and their test facades)."""
    return cast(BranchStore, store)
