"""Check-then-act across a store round trip: what a write decides from must be read under
the lock it writes under (the class of #33's spend-limit overshoot, found elsewhere)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from summem.messages import user
from summem.stores.base import encode_message
from summem.stores.postgres.schema import name_key
from tests.stores.backends import Backend, postgres_url


@pytest.mark.postgres
def test_a_postgres_append_racing_the_creation_of_its_session_stays_idempotent(
    postgres_backend: Backend,
) -> None:
    """Another writer creates the session and appends ``m`` (not yet committed) while this
    append of the same ``m`` runs: it read the message ids before the session existed, so
    it must read them again once it holds the new session's lock."""
    import psycopg
    from psycopg import sql

    from summem.stores.postgres import PostgresStore

    schema = postgres_backend.prefix
    store = PostgresStore(postgres_url(), schema=schema)  # migrated
    m = user("hello")
    other = psycopg.connect(postgres_url())  # the other writer, in a transaction
    results: list[Any] = []
    try:
        s = sql.Identifier(schema)
        row = other.execute(
            sql.SQL(
                "INSERT INTO {}.sessions (key, name, epoch, length) VALUES (%s, %s, 'e', 1) "
                "RETURNING sid"
            ).format(s),
            (name_key("S"), "S"),
        ).fetchone()
        assert row is not None
        sid = row[0]
        other.execute(
            sql.SQL(
                "INSERT INTO {}.messages (sid, position, id_key, msg_id, body) "
                "VALUES (%s, 0, %s, %s, %s)"
            ).format(s),
            (sid, name_key(m.id), m.id, encode_message(m)),
        )

        def append() -> None:
            try:
                results.append(store.append("S", [m]))
            except Exception as exc:
                results.append(exc)

        worker = threading.Thread(target=append)
        worker.start()
        watcher = psycopg.connect(postgres_url(), autocommit=True)
        try:  # wait (an event, not a time) until the append waits on the other's row
            while not watcher.execute(
                "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database()"
            ).fetchone():
                assert worker.is_alive(), results
        finally:
            watcher.close()
        other.commit()
        worker.join(timeout=60)
    finally:
        other.close()
    assert results == [1]  # idempotent: the message was there once the lock was had
    assert [x.id for x in store.history("S")] == [m.id]
    store.close()
