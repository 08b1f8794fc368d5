"""The inspector on every store it opens by URL: SQLite, Redis and PostgreSQL, read-only."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from summem.inspector.app import create_app
from summem.inspector.settings import Budget
from summem.inspector.source import open_source
from summem.stores import PostgresStore, RedisStore, SQLiteStore
from summem.stores.base import Store
from tests.inspector.sessions import write_session
from tests.stores.backends import REDIS_URL, postgres_url, require_postgres, require_redis


@contextmanager
def sqlite_store(tmp_path: Path) -> Iterator[tuple[Callable[[], Store], str]]:
    path = tmp_path / "s.db"
    yield (lambda: SQLiteStore(path)), f"sqlite:///{path}"


@contextmanager
def redis_store(tmp_path: Path) -> Iterator[tuple[Callable[[], Store], str]]:
    require_redis()
    yield (lambda: RedisStore(REDIS_URL)), REDIS_URL


@contextmanager
def postgres_store(tmp_path: Path) -> Iterator[tuple[Callable[[], Store], str]]:
    require_postgres()
    schema = f"inspect_{uuid.uuid4().hex[:10]}"
    url = postgres_url()
    yield (lambda: PostgresStore(url, schema=schema)), f"{url}?schema={schema}"


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(sqlite_store, id="sqlite"),
        pytest.param(redis_store, id="redis", marks=pytest.mark.redis),
        pytest.param(postgres_store, id="postgres", marks=pytest.mark.postgres),
    ],
)
def test_every_page_on_every_store(tmp_path: Path, budget: Budget, backend: object) -> None:
    sid = f"inspect-{uuid.uuid4().hex[:12]}"
    with backend(tmp_path) as (make, url):  # type: ignore[operator]
        writer = make()
        try:
            written = write_session(writer, sid)
            summaries = writer.summaries(sid)
            source = open_source(url)
            try:
                client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
                listing = client.get("/", params={"q": sid})
                assert listing.status_code == 200 and sid in listing.text
                text = client.get("/session", params={"id": sid}).text
                table = text.split('id="timeline"')[1]
                assert [int(t) for t in re.findall(r"<td>#(\d+)≈</td>", table)] == written.turns
                turn = written.turns[-1]
                at = client.get("/session", params={"id": sid, "turn": str(turn), "q": "BW-1001"})
                assert (
                    at.status_code == 200 and "BW-1001" in at.text.split('id="recall-results"')[1]
                )
                entry = summaries[-1].summary_info.extra["provenance"][0]
                line = client.get(
                    "/session",
                    params={"id": sid, "summary": summaries[-1].id, "line": entry["line"]},
                )
                assert line.status_code == 200 and 'id="sources"' in line.text
                export = client.get("/export", params={"id": sid})
                assert export.status_code == 200 and export.json()["session_id"] == sid
                assert writer.load(sid).length == written.length  # nothing was written
            finally:
                source.close()
        finally:
            writer.delete(sid)
            writer.close()
