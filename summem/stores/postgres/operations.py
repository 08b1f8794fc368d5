"""Every PostgreSQL store operation, written once for the sync and the async store.

Each ``_op_*`` method checks its arguments, encodes what it writes, and returns a
:class:`~summem.stores.postgres.transaction.Transaction`: a generator of statement batches, run
in one database transaction. Writes lock the session row (``SELECT ... FOR UPDATE``) in their
first batch and read what they change after it, which serialises appends and commits on one
session across connections, processes and machines while other sessions go on; their last batch
goes with the COMMIT (see :class:`~summem.stores.postgres.transaction.Batch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from summem.errors import ConflictError, CorruptRecordError, SessionNotFoundError, StoreError
from summem.messages import Message
from summem.stores.base import (
    SearchHit,
    SessionInfo,
    SessionState,
    check_lease_args,
    check_page,
    check_watermark,
    decode_message,
    encode_message,
    new_epoch,
    slice_bounds,
    validate_session_id,
)
from summem.stores.common.branching import abandoned_summary_error
from summem.stores.common.new_session import prepare_new_session
from summem.stores.common.operations import Commit, Create, CreateOps, Rollback
from summem.stores.common.rows import Meta, decode_positions
from summem.stores.common.schema_compat import compatible_down_to
from summem.stores.postgres.branching import PgBranching
from summem.stores.postgres.schema import COMPATIBLE, LOCK_CLASS, name_key
from summem.stores.postgres.search import CATCH_UP_CHUNK, ts_query, ts_vector
from summem.stores.postgres.spend import PgSpend
from summem.stores.postgres.transaction import (
    Query,
    Steps,
    Transaction,
    batch,
    checked,
    is_bulk,
    parse_meta,
    schema_version,
)
from summem.stores.summary_log import dropped_summary_error, summary_stub

__all__ = ["PgOps"]

_LOGGED = "summary log entry"


class PgOps(PgBranching, PgSpend):
    """The store's operations, each a :class:`~summem.stores.postgres.transaction.Transaction`."""

    # -- schema ---------------------------------------------------------------------------

    def _op_migrate(self) -> Transaction[int]:
        q, latest = self._sql, len(self._sql.migrations)

        def steps() -> Steps[int]:
            (rows,) = yield batch(Query(q.VERSION_TABLE, (q.schema,)))
            if rows[0][0] is not None:
                (rows,) = yield batch(Query(q.VERSION))
                current, older = schema_version(q.schema, rows, latest)
                if not older:  # this schema, or a newer one compatible with it: as it is
                    return current
            (_, _, _, rows) = yield batch(
                Query(q.ADVISORY_LOCK, (LOCK_CLASS, q.schema)),  # one migrator at a time
                Query(q.CREATE_SCHEMA),
                Query(q.CREATE_VERSION),
                Query(q.VERSION),  # what another worker may have done meanwhile
            )
            current, older = schema_version(q.schema, rows, latest)
            if older:
                todo = [Query(s) for statements in q.migrations[current:] for s in statements]
                marker = (latest, compatible_down_to(COMPATIBLE, latest), latest)
                yield batch(*todo, Query(q.ADD_MARKER), Query(q.SET_VERSION, marker), final=True)
                return latest
            return current  # migrated meanwhile by another worker (or newer, compatible)

        return Transaction(None, "migration", steps)

    # -- operations -----------------------------------------------------------------------

    def _op_load(self, session_id: str) -> Transaction[SessionState]:
        name = validate_session_id(session_id)
        q, key = self._sql, name_key(name)

        def steps() -> Steps[SessionState]:
            meta_rows, tail_rows = yield batch(
                Query(q.META, (key, name)), Query(q.TAIL, (key, name)), final=True
            )
            meta = parse_meta(name, meta_rows)
            if meta is None:
                raise SessionNotFoundError(f"no session {name!r}")
            return meta.state(name, decode_positions(name, tail_rows, meta.watermark, meta.length))

        return Transaction(name, None, steps, snapshot=True)

    def _op_exists(self, session_id: str) -> Transaction[bool]:
        name = validate_session_id(session_id)

        def steps() -> Steps[bool]:
            (rows,) = yield batch(Query(self._sql.EXISTS, (name_key(name), name)), final=True)
            return bool(rows)

        return Transaction(name, None, steps)

    def _op_probe(self, session_id: str) -> Transaction[tuple[str, int, int] | None]:
        name = validate_session_id(session_id)

        def steps() -> Steps[tuple[str, int, int] | None]:
            (rows,) = yield batch(Query(self._sql.PROBE, (name_key(name), name)), final=True)
            return (rows[0][0], int(rows[0][1]), int(rows[0][2])) if rows else None

        return Transaction(name, None, steps)

    def _op_history(
        self, session_id: str, start: int, stop: int | None
    ) -> Transaction[list[Message]]:
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[list[Message]]:
            (rows,) = yield batch(Query(q.META, (name_key(name), name)))
            meta = parse_meta(name, rows)
            if meta is None:
                return []
            lo, hi = slice_bounds(start, stop, meta.length)
            (rows,) = yield batch(Query(q.RANGE, (meta.sid, lo, hi)), final=True)
            return decode_positions(name, rows, lo, hi)

        return Transaction(name, None, steps, snapshot=True)

    def _op_append(self, session_id: str, messages: Sequence[Message]) -> Transaction[int]:
        name, pending = _pending(session_id, messages)
        q, key = self._sql, name_key(name)

        def read() -> Steps[int]:
            (rows,) = yield batch(Query(q.META, (key, name)), final=True)
            meta = parse_meta(name, rows)
            return 0 if meta is None else meta.length

        if not pending:
            return Transaction(name, None, read)
        bodies = list(pending.values())
        sql, params = self._append_statement(name, key, list(pending), bodies, probed=False)

        def steps() -> Steps[int]:
            # one statement (the schema's append_message / append_messages): it locks the row (or
            # creates it), skips the ids it holds, inserts the rest and sets the length
            (rows,) = yield batch(Query(sql, params), final=True)
            return _appended_length(name, rows[0][0])

        return Transaction(name, "append", steps, bulk=is_bulk(bodies), one_statement=True)

    def _op_append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> Transaction[tuple[str, int, int] | None]:
        name, pending = _pending(session_id, messages)
        if not pending:
            return self._op_probe(name)
        key = name_key(name)
        bodies = list(pending.values())
        sql, params = self._append_statement(name, key, list(pending), bodies, probed=True)

        def steps() -> Steps[tuple[str, int, int] | None]:
            # one statement (append_message_probed / append_messages_probed, migration 10): the
            # append, then the epoch and version read after its row lock, in one round trip
            (rows,) = yield batch(Query(sql, params), final=True)
            length, epoch, version = rows[0]
            return epoch, int(version), _appended_length(name, length)

        return Transaction(name, "append", steps, bulk=is_bulk(bodies), one_statement=True)

    def _append_statement(
        self, name: str, key: bytes, ids: list[str], bodies: list[str], *, probed: bool
    ) -> tuple[bytes, tuple[object, ...]]:
        """The one statement appending these messages (ids, bodies), and its parameters."""
        q = self._sql
        if len(ids) == 1:
            sql = q.APPEND_ONE_PROBED if probed else q.APPEND_ONE
            return sql, (key, name, new_epoch(), name_key(ids[0]), *ids, *bodies)
        keys = [name_key(i) for i in ids]
        sql = q.APPEND_MANY_PROBED if probed else q.APPEND_MANY
        return sql, (key, name, new_epoch(), keys, ids, bodies)

    def _op_set_system(self, session_id: str, message: Message | None) -> Transaction[None]:
        name = validate_session_id(session_id)
        body = None if message is None else encode_message(message)
        q = self._sql

        def steps() -> Steps[None]:
            (rows,) = yield batch(Query(q.LOCK_META, (name_key(name), name)))
            meta = parse_meta(name, rows)
            if meta is None and body is not None:
                meta = yield from self._create(name)
            if meta is not None:
                yield batch(Query(q.SET_SYSTEM, (body, meta.sid)), final=True)

        return Transaction(name, "set_system", steps)

    def _op_commit(self, session_id: str, commit: Commit) -> Transaction[int]:
        name = validate_session_id(session_id)
        summary, watermark, expected_version, expected_epoch, keep = commit
        body = None if summary is None else encode_message(summary)
        q, key = self._sql, name_key(name)
        stubbing = summary is not None and keep is not None

        def steps() -> Steps[int]:
            reads = [Query(q.LOCK_META, (key, name))]
            if stubbing:  # after the lock: what is whole past the latest keep - 1 (+ the new one)
                assert keep is not None
                reads.append(Query(q.TO_STUB, (key, name, keep - 1)))
            rows = yield batch(*reads)
            meta = checked(name, rows[0], expected_version, expected_epoch)
            check_watermark(name, watermark, meta.watermark, meta.length)
            writes = [Query(q.SET_SUMMARY, (body, watermark, meta.sid))]
            if summary is not None:
                writes.append(Query(q.LOG_SUMMARY, (meta.sid, summary.id, watermark, body)))
            if stubbing and rows[1]:
                seqs = [seq for seq, _ in rows[1]]
                stubs = [
                    encode_message(summary_stub(decode_message(b, session_id=name, where=_LOGGED)))
                    for _, b in rows[1]
                ]
                writes.append(Query(q.SET_STUBS, (seqs, stubs)))
            yield batch(*writes, final=True)
            return meta.version + 1

        return Transaction(name, "commit", steps)

    def _ops_create(self, session_id: str, create: Create) -> CreateOps:
        name = validate_session_id(session_id)
        new = prepare_new_session(name, *create)
        q = self._sql
        ids = [m.id for m in new.history]
        keys = [name_key(i) for i in ids]

        def steps() -> Steps[None]:
            row = (name_key(name), name, new_epoch(), len(new.bodies), new.watermark)
            (rows,) = yield batch(Query(q.CREATE_WHOLE, (*row, new.system_body, new.summary_body)))
            if not rows:
                raise ConflictError(f"session {name!r} already exists")
            sid = rows[0][0]
            writes = []
            if ids:
                positions = list(range(len(ids)))
                writes.append(Query(q.INSERT_MESSAGES, (sid, positions, keys, ids, new.bodies)))
            if new.summary is not None:
                params = (sid, new.summary.id, new.watermark, new.summary_body)
                writes.append(Query(q.LOG_SUMMARY, params))
            if writes:
                yield batch(*writes, final=True)

        return CreateOps((), Transaction(name, "create", steps, bulk=is_bulk(new.bodies)))

    def _op_catch_up(self, session_id: str) -> Transaction[bool]:
        """Index up to :data:`CATCH_UP_CHUNK` unindexed messages; True when none are left."""
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[bool]:
            (rows,) = yield batch(Query(q.LOCK_INDEX_STATE, (name_key(name), name)))
            if not rows or rows[0][2] >= rows[0][1]:
                return True
            sid, length, indexed = rows[0]
            stop = min(length, indexed + CATCH_UP_CHUNK)
            (rows,) = yield batch(Query(q.RANGE, (sid, indexed, stop)))
            positions: list[int] = []
            vectors: list[str] = []
            for pos, body in rows:
                try:
                    message = decode_message(body, session_id=name, where=f"message at {pos}")
                except CorruptRecordError:
                    continue  # unreadable anyway (reading it raises): nothing to index
                positions.append(pos)
                vectors.append(ts_vector(message))
            yield batch(
                Query(q.SET_TERMS, ([sid] * len(positions), positions, vectors)),
                Query(q.SET_INDEXED, (stop, sid)),
                final=True,
            )
            return bool(stop >= length)

        return Transaction(name, "index", steps)

    def _op_index_state(self, session_id: str) -> Transaction[tuple[int, int] | None]:
        """(length, indexed) of the session, or ``None`` if there is none."""
        name = validate_session_id(session_id)

        def steps() -> Steps[tuple[int, int] | None]:
            (rows,) = yield batch(Query(self._sql.INDEX_STATE, (name_key(name), name)), final=True)
            return (int(rows[0][0]), int(rows[0][1])) if rows else None

        return Transaction(name, None, steps)

    def _op_search(
        self, session_id: str, query: str, k: int, stop: int | None
    ) -> Transaction[list[SearchHit]]:
        name = validate_session_id(session_id)
        tsquery = ts_query(query)
        limit = (1 << 62) if stop is None else stop

        def steps() -> Steps[list[SearchHit]]:
            if tsquery is None or k <= 0 or limit <= 0:
                return []
            params = (tsquery, name_key(name), name, limit, k)
            (rows,) = yield batch(Query(self._sql.SEARCH, params), final=True)
            return [
                SearchHit(
                    pos, decode_message(body, session_id=name, where=f"message at {pos}"), score
                )
                for pos, body, score in rows
            ]

        return Transaction(name, None, steps)

    def _op_position_of(self, session_id: str, message_id: str) -> Transaction[int | None]:
        name = validate_session_id(session_id)
        params = (name_key(name), name, name_key(message_id), message_id)

        def steps() -> Steps[int | None]:
            (rows,) = yield batch(Query(self._sql.POSITION_OF, params), final=True)
            return int(rows[0][0]) if rows else None

        return Transaction(name, None, steps)

    def _op_summaries(self, session_id: str) -> Transaction[list[Message]]:
        name = validate_session_id(session_id)

        def steps() -> Steps[list[Message]]:
            (rows,) = yield batch(Query(self._sql.SUMMARIES, (name_key(name), name)), final=True)
            return [
                decode_message(body, session_id=name, where="summary log entry") for (body,) in rows
            ]

        return Transaction(name, None, steps)

    def _op_rollback(self, session_id: str, rollback: Rollback) -> Transaction[int]:
        name = validate_session_id(session_id)
        summary_id, expected_version, expected_epoch = rollback
        q, key = self._sql, name_key(name)

        def steps() -> Steps[int]:
            queries = [Query(q.LOCK_META, (key, name))]
            if summary_id is not None:
                queries.append(Query(q.FIND_SUMMARY, (key, name, summary_id)))
            rows = yield batch(*queries)
            meta = checked(name, rows[0], expected_version, expected_epoch)
            body: str | None = None
            watermark = 0
            if summary_id is not None:
                if not rows[1]:
                    raise StoreError(f"session {name!r}: no logged summary with id {summary_id!r}")
                watermark, body, abandoned_by, whole = rows[1][0]
                if abandoned_by is not None:
                    raise abandoned_summary_error(name, summary_id, abandoned_by)
                if not whole:
                    raise dropped_summary_error(name, summary_id)
                if not 0 <= watermark <= meta.length:
                    raise CorruptRecordError(
                        f"session {name!r}: summary log entry {summary_id!r} has an invalid "
                        "watermark"
                    )
            yield batch(Query(q.SET_SUMMARY, (body, watermark, meta.sid)), final=True)
            return meta.version + 1

        return Transaction(name, "rollback", steps)

    def _op_clear(self, session_id: str) -> Transaction[None]:
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[None]:
            (rows,) = yield batch(Query(q.LOCK_META, (name_key(name), name)))
            meta = parse_meta(name, rows)
            if meta is not None:
                stmts = (q.DELETE_MESSAGES, q.DELETE_SUMMARIES, q.DELETE_BRANCHES, q.CLEAR)
                yield batch(*(Query(s, (meta.sid,)) for s in stmts), final=True)

        return Transaction(name, "clear", steps)

    def _op_delete(self, session_id: str) -> Transaction[bool]:
        name = validate_session_id(session_id)
        q, key = self._sql, name_key(name)

        def steps() -> Steps[bool]:
            _, rows = yield batch(
                Query(q.DELETE_LEASE, (key,)), Query(q.DELETE_SESSION, (key, name)), final=True
            )
            return bool(rows)

        return Transaction(name, "delete", steps)

    def _op_list(self) -> Transaction[list[str]]:
        def steps() -> Steps[list[str]]:
            (rows,) = yield batch(Query(self._sql.NAMES), final=True)
            return sorted(row[0] for row in rows)

        return Transaction(None, None, steps)

    def _op_infos(self, limit: int | None, after: str | None) -> Transaction[list[SessionInfo]]:
        check_page(limit, after)

        def steps() -> Steps[list[SessionInfo]]:
            query = Query(self._sql.INFOS, (after or "", limit))
            (rows,) = yield batch(query, final=True)
            return [
                SessionInfo(
                    session_id=name,
                    length=int(length),
                    watermark=int(watermark),
                    version=int(version),
                    summaries=int(count),
                    stored_summary=summary,
                    updated_at=float(updated),
                )
                for name, length, watermark, version, summary, count, updated in rows
            ]

        return Transaction(None, None, steps)

    def _op_acquire(self, session_id: str, owner: str, ttl_seconds: float) -> Transaction[bool]:
        name = validate_session_id(session_id)
        check_lease_args(owner, ttl_seconds)
        params = (name_key(name), owner, float(ttl_seconds))

        def steps() -> Steps[bool]:
            (rows,) = yield batch(Query(self._sql.ACQUIRE_LEASE, params), final=True)
            return bool(rows)

        return Transaction(name, "acquire_lease", steps)

    def _op_release(self, session_id: str, owner: str) -> Transaction[None]:
        name = validate_session_id(session_id)
        params = (name_key(name), owner)

        def steps() -> Steps[None]:
            yield batch(Query(self._sql.RELEASE_LEASE, params), final=True)

        return Transaction(name, "release_lease", steps)

    def _create(self, name: str) -> Steps[Meta]:
        """Create the session row (unless a concurrent writer just did) and lock it."""
        q, key = self._sql, name_key(name)
        _, rows = yield batch(
            Query(q.CREATE, (key, name, new_epoch())), Query(q.LOCK_META, (key, name))
        )
        meta = parse_meta(name, rows)
        if meta is None:
            raise StoreError(f"session {name!r}: its key is taken by another session id")
        return meta


def _pending(session_id: str, messages: Sequence[Message]) -> tuple[str, dict[str, str]]:
    """The checked session id, and each message's id and body (a repeated id once)."""
    name = validate_session_id(session_id)
    pending: dict[str, str] = {}
    for m in messages:  # idempotent by id: a message earlier in this batch is skipped
        if m.id not in pending:
            pending[m.id] = encode_message(m)
    return name, pending


def _appended_length(name: str, length: Any) -> int:
    """The length an append statement returned (``NULL``: the session's key is taken)."""
    if length is None:
        raise StoreError(f"session {name!r}: its key is taken by another session id")
    return int(length)
