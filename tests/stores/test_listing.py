"""ListingStore.session_infos: the sessions' rows, paged in id order, on every sync backend."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from summem.errors import StoreError
from summem.messages import system, user
from summem.stores.base import AsyncListingStore, ListingStore, Store
from tests.stores.backends import SYNC_PARAMS, Backend, open_backend
from tests.stores.helpers import fill, reduce_to, summary_msg


@pytest.fixture(params=SYNC_PARAMS)
def sync_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    backends: Iterator[Backend] = open_backend(request.param, tmp_path)
    for b in backends:
        yield b.make()


def test_infos_match_the_loaded_sessions(sync_store: Store) -> None:
    assert isinstance(sync_store, ListingStore)
    fill(sync_store, "b", 5)
    reduce_to(sync_store, "b", 3)
    fill(sync_store, "a", 2)
    fill(sync_store, "é", 1)  # sorts after every ASCII id (code point order)
    infos = sync_store.session_infos()
    assert [i.session_id for i in infos] == ["a", "b", "é"] == sync_store.list_sessions()
    for info in infos:
        state = sync_store.load(info.session_id)
        assert (info.length, info.watermark, info.version) == (
            state.length,
            state.watermark,
            state.version,
        )
        assert info.summaries == len(sync_store.summaries(info.session_id))
        assert info.summary == state.summary
    assert infos[1].summary is not None and infos[1].summaries == 1


def test_every_async_store_lists_as_its_sync_twin(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("summem.stores.redis.store._INFO_BATCH", 2)  # pages cross pipelines
    store = backend.make()
    if backend.mode == "async":
        inner = store.inner  # type: ignore[attr-defined]  # the SyncFacade's async store
        assert isinstance(inner, AsyncListingStore)
    for n in ("c", "a", "b", "d", "é"):
        fill(store, n, 2)
    reduce_to(store, "b", 1)
    infos = store.session_infos(limit=3, after="a")  # type: ignore[attr-defined]
    assert [(i.session_id, i.length, i.watermark) for i in infos] == [
        ("b", 2, 1),
        ("c", 2, 0),
        ("d", 2, 0),
    ]
    assert infos[0].summaries == 1 and infos[0].summary is not None
    rest = store.session_infos(after="d")  # type: ignore[attr-defined]
    assert [i.session_id for i in rest] == ["é"]
    with pytest.raises(StoreError, match="limit"):
        store.session_infos(limit=0)  # type: ignore[attr-defined]


def _updated(store: Store, sid: str) -> float:
    (info,) = [i for i in store.session_infos() if i.session_id == sid]  # type: ignore[attr-defined]
    assert info.updated_at is not None, f"{sid}: no updated_at"
    return float(info.updated_at)


def _past(t: float) -> None:
    """Wait until the clock has moved past ``t`` (a store's clock: the same host's)."""
    while time.time() <= t + 0.01:
        time.sleep(0.005)


def test_updated_at_is_the_last_write_on_every_store(backend: Backend) -> None:
    store = backend.make()
    before = time.time()
    fill(store, "a", 3)
    fill(store, "b", 1)
    after = time.time()
    b = _updated(store, "b")
    for t in (_updated(store, "a"), b):
        assert before - 1 <= t <= after + 1  # the server's clock, rounded: the same host's
    writes = [
        lambda: fill(store, "a", 1),
        lambda: store.set_system("a", system("be brief")),
        lambda: reduce_to(store, "a", 2),
        lambda: store.clear("a"),
    ]
    for write in writes:
        last = _updated(store, "a")
        _past(last)
        store.load("a")  # a read is no activity
        store.summaries("a")
        assert _updated(store, "a") == last
        write()
        assert _updated(store, "a") > last
    assert _updated(store, "b") == b  # another session's writes leave it as it was


def test_pages_follow_after_and_limit(sync_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(sync_store, ListingStore)
    monkeypatch.setattr("summem.stores.redis.store._INFO_BATCH", 2)  # pages cross pipelines
    names = [f"s{i:02d}" for i in range(7)]
    for n in reversed(names):
        fill(sync_store, n, 1)
    seen: list[str] = []
    after = None
    while True:
        page = sync_store.session_infos(limit=3, after=after)
        if not page:
            break
        assert len(page) <= 3
        seen += [i.session_id for i in page]
        after = page[-1].session_id
    assert seen == names
    assert [i.session_id for i in sync_store.session_infos(after="s04")] == ["s05", "s06"]
    assert sync_store.session_infos(after="zzz") == []


def test_summary_extras_read_without_decoding_the_rest(sync_store: Store) -> None:
    assert isinstance(sync_store, ListingStore)
    fill(sync_store, "a", 4)
    fill(sync_store, "b", 4)
    reduce_to(sync_store, "b", 2)
    st = sync_store.load("a")
    spent = {"cost_usd": 0.25, "calls": 2}
    summary = summary_msg("s", 3, extra={"summarizer_total": spent})
    sync_store.commit(
        "a", summary=summary, watermark=3, expected_version=st.version, expected_epoch=st.epoch
    )
    a, b = sync_store.session_infos()
    assert a.summary_extra("summarizer_total") == spent
    assert a.summary_extra("other") is None
    assert b.summary_extra("summarizer_total") is None
    assert a.summary == summary


@pytest.mark.parametrize(
    ("limit", "after", "word"),
    [(0, None, "limit"), (-1, None, "limit"), (None, 3, "after"), (None, "a\ud800", "after")],
)
def test_bad_page_arguments_are_named(
    sync_store: Store, limit: object, after: object, word: str
) -> None:
    assert isinstance(sync_store, ListingStore)
    with pytest.raises(StoreError, match=word):
        sync_store.session_infos(limit=limit, after=after)  # type: ignore[arg-type]


@pytest.mark.postgres
def test_a_postgres_page_reads_the_name_index_not_every_row() -> None:
    import psycopg
    from psycopg import sql

    from summem.stores import PostgresStore
    from tests.stores.backends import postgres_url, require_postgres, unique_prefix

    require_postgres()
    schema = unique_prefix()
    try:
        with PostgresStore(postgres_url(), schema=schema) as store:
            for i in range(300):
                store.append(f"s{i:04d}", [user("hi")])
            assert [i.session_id for i in store.session_infos(limit=2, after="s0100")] == [
                "s0101",
                "s0102",
            ]
        with psycopg.connect(postgres_url(), autocommit=True) as conn:
            conn.execute(sql.SQL("ANALYZE {}.sessions").format(sql.Identifier(schema)))
            plan = conn.execute(
                sql.SQL(
                    'EXPLAIN SELECT name FROM {}.sessions x WHERE name COLLATE "C" > %s '
                    'ORDER BY name COLLATE "C" LIMIT %s'
                ).format(sql.Identifier(schema)),
                ("s0100", 2),
            ).fetchall()
        text = "\n".join(row[0] for row in plan)
        assert "sessions_by_name" in text and "Sort" not in text, text
    finally:
        with psycopg.connect(postgres_url(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
