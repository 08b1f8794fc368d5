"""``summem sessions list`` reads the sessions' rows, never their messages, and pages them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summem.cli.sessions import session_rows
from summem.messages import Message, user
from summem.stores import InMemoryStore
from summem.stores.base import ListingStore, SessionState, Store
from summem.stores.sqlite import SQLiteStore
from tests.cli.test_app import SMALL, run, transcript, write_json
from tests.stores.helpers import reduce_to, summary_msg


class Counting:
    """A store that counts the calls that read messages, and forwards everything."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reads: list[str] = []

    def load(self, session_id: str) -> SessionState:
        self.reads.append("load")
        return self.inner.load(session_id)  # type: ignore[no-any-return]

    def history(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        self.reads.append("history")
        return self.inner.history(session_id, start, stop)  # type: ignore[no-any-return]

    def summaries(self, session_id: str) -> list[Message]:
        self.reads.append("summaries")
        return self.inner.summaries(session_id)  # type: ignore[no-any-return]

    def list_sessions(self) -> list[str]:
        return self.inner.list_sessions()  # type: ignore[no-any-return]

    def close(self) -> None:
        self.inner.close()


class CountingListing(Counting):
    """The same, for a store that lists from its rows."""

    def session_infos(self, *, limit: int | None = None, after: str | None = None) -> Any:
        return self.inner.session_infos(limit=limit, after=after)


@pytest.fixture
def url(tmp_path: Path) -> str:
    """Three replayed sessions (``s1`` with summaries) in a SQLite file."""
    source = write_json(tmp_path / "chat.json", transcript())
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    for sid in ("s2", "s1", "s3"):
        args = ("replay", source, *SMALL, "--store", store, "--session", sid, "-q")
        assert run(*args).exit_code == 0
    return store


def _listed(monkeypatch: pytest.MonkeyPatch, wrapper: type[Counting], url: str, *args: str) -> Any:
    seen: list[Counting] = []

    def opened(config: Any) -> Counting:
        seen.append(wrapper(SQLiteStore(url[len("sqlite:///") :])))
        return seen[-1]

    monkeypatch.setattr("summem.cli.app.open_existing_store", opened)
    result = run("sessions", "list", "--store", url, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), seen[0].reads


def test_list_reads_no_message(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    rows, reads = _listed(monkeypatch, CountingListing, url)
    assert reads == []
    assert [r["session"] for r in rows] == ["s1", "s2", "s3"]
    # the same rows as loading every session whole (the fallback of a store without an index)
    old, old_reads = _listed(monkeypatch, Counting, url)
    assert old == rows
    assert old_reads.count("load") == 3
    assert rows[0]["summaries"] > 0 and rows[0]["summarized"] > 0


def test_list_pages_with_limit_and_after(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    for wrapper in (CountingListing, Counting):
        rows, _ = _listed(monkeypatch, wrapper, url, "--limit", "1", "--after", "s1")
        assert [r["session"] for r in rows] == ["s2"]
    monkeypatch.undo()
    table = run("sessions", "list", "--store", url, "--after", "s2")
    assert "s3" in table.stdout and "s1" not in table.stdout


def test_a_bad_limit_is_one_line(url: str) -> None:
    result = run("sessions", "list", "--store", url, "--limit", "0")
    assert result.exit_code == 2
    assert "--limit" in result.stderr


def test_a_store_without_the_index_still_lists() -> None:
    inner = InMemoryStore()
    inner.append("b", [user("x"), user("y"), user("z")])
    reduce_to(inner, "b", 2)
    inner.append("a", [user("x")])
    plain = Counting(inner)
    assert not isinstance(plain, ListingStore)
    rows = session_rows(plain)  # type: ignore[arg-type]
    assert rows == session_rows(inner)
    assert rows[1] == {
        "session": "b",
        "messages": 3,
        "summarized": 2,
        "in_view": 1,
        "summaries": 1,
        "summarizer_cost_usd": 0.0,
    }
    assert session_rows(plain, after="a") == rows[1:]  # type: ignore[arg-type]


def test_the_summarizer_cost_is_the_same_both_ways() -> None:
    inner = InMemoryStore()
    inner.append("c", [user("x"), user("y")])
    st = inner.load("c")
    summary = summary_msg("s", 1, extra={"summarizer_total": {"cost_usd": 0.5}})
    inner.commit(
        "c", summary=summary, watermark=1, expected_version=st.version, expected_epoch=st.epoch
    )
    rows = session_rows(inner)
    assert rows[0]["summarizer_cost_usd"] == 0.5
    assert session_rows(Counting(inner)) == rows  # type: ignore[arg-type]


def test_session_rows_names_a_bad_page_argument() -> None:
    from summem.errors import StoreError

    store: Store = InMemoryStore()
    with pytest.raises(StoreError, match="limit"):
        session_rows(store, limit=0)


def test_the_table_shows_a_page_and_says_how_to_get_the_next(tmp_path: Path) -> None:
    # a table of every session of a big store takes minutes to draw (about 1 ms a row): the
    # table shows the first page unless --limit says otherwise; --json still gives every row
    from summem.cli.app import TABLE_ROWS

    count = TABLE_ROWS + 30
    path = tmp_path / "many.db"
    store = SQLiteStore(path)
    for i in range(count):
        store.append(f"s{i:04d}", [user("hello")])
    store.close()
    url = f"sqlite:///{path}"
    ids = [f"s{i:04d}" for i in range(count)]
    table = run("sessions", "list", "--store", url)
    assert table.exit_code == 0, table.output
    shown = [i for i in ids if i in table.stdout]
    assert shown == ids[:TABLE_ROWS]
    last = ids[TABLE_ROWS - 1]
    assert f"--after {last}" in " ".join(table.stdout.split())
    assert "--limit" in table.stdout and "--json" in table.stdout
    nxt = run("sessions", "list", "--store", url, "--after", last)
    assert [i for i in ids if i in nxt.stdout] == ids[TABLE_ROWS:]
    assert "--after" not in nxt.stdout  # the last page says nothing more
    every = run("sessions", "list", "--store", url, "--limit", str(count))
    assert [i for i in ids if i in every.stdout] == ids
    rows = json.loads(run("sessions", "list", "--store", url, "--json").stdout)
    assert [r["session"] for r in rows] == ids
