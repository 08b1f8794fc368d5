"""What both PostgreSQL stores share: URL parsing, every operation, and error mapping.

Each store operation is written once here, as a generator that yields :class:`Query` objects
and receives their rows (no I/O): :class:`~summem.stores.postgres.PostgresStore` runs it on a
``psycopg`` connection and :class:`~summem.stores.postgres.AsyncPostgresStore` awaits it on an
async one, each in one transaction, so the two can never drift apart. Writes lock the session
row (``SELECT ... FOR UPDATE``) before reading what they change, which serialises appends and
commits on one session across connections, processes and machines, while other sessions go on.
``psycopg`` itself is imported only when a store is built (:func:`import_psycopg`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from summem.exceptions import (
    ConfigurationError,
    ConflictError,
    CorruptRecordError,
    MissingDependencyError,
    SessionNotFoundError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.messages import Message
from summem.stores._new_session import prepare_new_session
from summem.stores._postgres_schema import LOCK_CLASS, SQL, check_schema_name, name_key
from summem.stores.base import (
    SessionState,
    check_lease_args,
    decode_message,
    encode_message,
    new_epoch,
    slice_bounds,
    validate_session_id,
)

__all__ = [
    "Batch",
    "Op",
    "PgBase",
    "PgOptions",
    "Query",
    "Stage",
    "batch",
    "import_psycopg",
    "parse_postgres_url",
]

T = TypeVar("T")
Rows = list[tuple[Any, ...]]


def import_psycopg() -> Any:
    """The ``psycopg`` package (and ``psycopg_pool``), or the install hint."""
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError("psycopg", "postgres") from exc
    return psycopg


@dataclass(frozen=True)
class PgOptions:
    """How to connect: the libpq connection string and summem's own settings."""

    conninfo: str
    schema: str = "summem"
    min_size: int = 1
    max_size: int = 10
    timeout: float = 30.0


_OWN = {"schema", "pool_min_size", "pool_max_size", "pool_timeout"}


def parse_postgres_url(url: str) -> PgOptions:
    """``postgresql://user@host:5432/db?schema=summem&pool_max_size=10`` taken apart.

    ``schema``, ``pool_min_size``, ``pool_max_size`` and ``pool_timeout`` (seconds) are
    summem's; every other query parameter (``sslmode``, ``connect_timeout``...) goes to libpq.

    Raises:
        ConfigurationError: not a ``postgresql://`` / ``postgres://`` URL, or a bad setting.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("postgresql", "postgres"):
        raise ConfigurationError(
            f"bad PostgreSQL URL: use postgresql://user@host:5432/dbname, got scheme "
            f"{parts.scheme!r}"
        )
    ours: dict[str, str] = {}
    rest: list[tuple[str, str]] = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key in _OWN:
            if key in ours:
                raise ConfigurationError(f"PostgreSQL URL sets {key!r} twice")
            ours[key] = value
        else:
            rest.append((key, value))
    query = urlencode(rest, quote_via=quote)  # %20, not "+": libpq does not read "+" as a space
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))
    options = PgOptions(conninfo=conninfo, schema=ours.get("schema", "summem"))
    try:
        min_size = int(ours.get("pool_min_size", options.min_size))
        max_size = int(ours.get("pool_max_size", options.max_size))
        timeout = float(ours.get("pool_timeout", options.timeout))
    except ValueError as exc:
        raise ConfigurationError(f"PostgreSQL URL: bad pool setting ({exc})") from None
    return PgOptions(conninfo, options.schema, min_size, max_size, timeout)


def check_pool(min_size: int, max_size: int, timeout: float) -> None:
    """Reject pool sizes and timeouts that cannot work.

    Raises:
        ConfigurationError: naming the bad setting.
    """
    if not 0 <= min_size <= max_size or max_size < 1:
        raise ConfigurationError(
            f"PostgreSQL pool sizes must satisfy 0 <= min_size <= max_size and max_size >= 1, "
            f"got min_size={min_size}, max_size={max_size}"
        )
    if not timeout > 0:
        raise ConfigurationError(f"PostgreSQL pool timeout must be positive, got {timeout!r}")


@dataclass(frozen=True)
class Query:
    """One statement and its parameters."""

    sql: bytes
    params: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Batch:
    """Statements sent together (one round trip, in pipeline mode); their rows come back.

    A ``final`` batch is sent with the COMMIT, and its rows arrive once the transaction is
    over: nothing may be decided from them but the operation's return value.
    """

    queries: tuple[Query, ...]
    final: bool = False


def batch(*queries: Query, final: bool = False) -> Batch:
    """A :class:`Batch` of ``queries``."""
    return Batch(queries, final)


Steps = Generator[Batch, list[Rows], T]


@dataclass(frozen=True)
class Op(Generic[T]):
    """One store operation: a transaction's statements, written as a generator.

    Attributes:
        name: the session (errors name it), ``None`` for the whole store.
        write: the operation's name if it writes (a lost COMMIT is then an unknown outcome).
        steps: makes the generator (called again if the operation is retried).
        snapshot: read in one ``REPEATABLE READ`` snapshot (reads of several statements).
        bulk: sends megabytes (a long create or append): one statement per round trip, as
            psycopg's pipeline mode can stall on a query that large.
    """

    name: str | None
    write: str | None
    steps: Callable[[], Steps[T]]
    snapshot: bool = False
    bulk: bool = False


BULK_BYTES = 1 << 20
"""Above this many bytes of message bodies, an operation is not pipelined."""


def _bulk(bodies: Sequence[str]) -> bool:
    return sum(len(b) for b in bodies) > BULK_BYTES // 4  # up to 4 bytes a character


class Stage:
    """How far a running operation got, which decides what a failure means."""

    FIRST = "first"  # the first batch: nothing ran yet if the connection was dead
    BODY = "body"  # later batches: the server rolls back if the connection goes
    FINAL = "final"  # the COMMIT was (being) sent: a lost connection leaves it unknown


@dataclass(frozen=True)
class _Meta:
    sid: int
    epoch: str
    version: int
    length: int
    watermark: int
    system: str | None
    summary: str | None


class PgBase:
    """Every PostgreSQL store operation, shared by the sync and async stores."""

    def __init__(self, schema: str) -> None:
        check_schema_name(schema)  # a bad setting is named first, psycopg or not
        self._psycopg = import_psycopg()
        self._sql = SQL(schema)
        self._pipelined = bool(self._psycopg.Pipeline.is_supported())

    @property
    def schema(self) -> str:
        """The PostgreSQL schema this store's tables live in."""
        return self._sql.schema

    # -- errors ---------------------------------------------------------------------------

    def _where(self, op: Op[Any]) -> str:
        if op.name is not None:
            return f"session {op.name!r}"
        return f"PostgreSQL store {self.schema!r}"

    def _failure(self, op: Op[Any], exc: Exception, stage: str, broken: bool) -> StoreError:
        """What a ``psycopg`` error at ``stage`` means for the caller."""
        lost = broken or isinstance(exc, self._psycopg.OperationalError)
        if stage == Stage.FINAL and op.write and lost:
            return StoreOutcomeUnknownError(
                f"{self._where(op)}: the connection failed while committing the {op.write} "
                f"({_text(exc)}); it may or may not have been applied: read the session to know",
                operation=op.write,
            )
        return StoreError(f"{self._where(op)}: PostgreSQL error: {_text(exc)}")

    def _retry(self, op: Op[Any], stage: str, broken: bool, attempt: int) -> bool:
        """A connection lost on the first try, where trying again is safe: retry once.

        That is a read, or a write whose COMMIT was not sent yet (the server rolls back an
        open transaction when its connection goes, so nothing was applied). A connection that
        died in the pool (a server restart, an idle timeout) fails this way.
        """
        return attempt == 0 and broken and (not op.write or stage == Stage.FIRST)

    def _unreachable(self, op: Op[Any], exc: Exception) -> StoreError:
        return StoreError(f"{self._where(op)}: cannot get a PostgreSQL connection: {_text(exc)}")

    # -- schema ---------------------------------------------------------------------------

    def _op_migrate(self) -> Op[int]:
        q, latest = self._sql, len(self._sql.migrations)

        def steps() -> Steps[int]:
            (rows,) = yield batch(Query(q.VERSION_TABLE, (q.schema,)))
            if rows[0][0] is not None:
                (rows,) = yield batch(Query(q.VERSION))
                if _version(q.schema, rows, latest) == latest:
                    return latest
            (_, _, _, rows) = yield batch(
                Query(q.ADVISORY_LOCK, (LOCK_CLASS, q.schema)),  # one migrator at a time
                Query(q.CREATE_SCHEMA),
                Query(q.CREATE_VERSION),
                Query(q.VERSION),  # what another worker may have done meanwhile
            )
            current = _version(q.schema, rows, latest)
            if current != latest:
                todo = [Query(s) for statements in q.migrations[current:] for s in statements]
                yield batch(*todo, Query(q.SET_VERSION, (latest,)), final=True)
            return latest

        return Op(None, "migration", steps)

    # -- operations -----------------------------------------------------------------------

    def _op_load(self, session_id: str) -> Op[SessionState]:
        name = validate_session_id(session_id)
        q, key = self._sql, name_key(name)

        def steps() -> Steps[SessionState]:
            meta_rows, tail_rows = yield batch(
                Query(q.META, (key, name)), Query(q.TAIL, (key, name)), final=True
            )
            meta = _meta(name, meta_rows)
            if meta is None:
                raise SessionNotFoundError(f"no session {name!r}")
            return SessionState(
                session_id=name,
                system=_decode(meta.system, name, "system message"),
                summary=_decode(meta.summary, name, "summary"),
                watermark=meta.watermark,
                length=meta.length,
                version=meta.version,
                epoch=meta.epoch,
                tail=_messages(name, tail_rows, meta.watermark, meta.length),
            )

        return Op(name, None, steps, snapshot=True)

    def _op_exists(self, session_id: str) -> Op[bool]:
        name = validate_session_id(session_id)

        def steps() -> Steps[bool]:
            (rows,) = yield batch(Query(self._sql.EXISTS, (name_key(name), name)), final=True)
            return bool(rows)

        return Op(name, None, steps)

    def _op_history(self, session_id: str, start: int, stop: int | None) -> Op[list[Message]]:
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[list[Message]]:
            (rows,) = yield batch(Query(q.META, (name_key(name), name)))
            meta = _meta(name, rows)
            if meta is None:
                return []
            lo, hi = slice_bounds(start, stop, meta.length)
            (rows,) = yield batch(Query(q.RANGE, (meta.sid, lo, hi)), final=True)
            return _messages(name, rows, lo, hi)

        return Op(name, None, steps, snapshot=True)

    def _op_append(self, session_id: str, messages: Sequence[Message]) -> Op[int]:
        name = validate_session_id(session_id)
        pending = [(m.id, encode_message(m)) for m in messages]
        q, key = self._sql, name_key(name)
        keys = [name_key(mid) for mid, _ in pending]

        def steps() -> Steps[int]:
            if not pending:
                (rows,) = yield batch(Query(q.META, (key, name)), final=True)
                meta = _meta(name, rows)
                return 0 if meta is None else meta.length
            meta_rows, held_rows = yield batch(
                Query(q.LOCK_META, (key, name)), Query(q.HELD_IDS, (key, name, keys))
            )
            meta = _meta(name, meta_rows)
            if meta is None:
                meta = yield from self._create(name)
            held = {row[0] for row in held_rows}
            positions: list[int] = []
            id_keys: list[bytes] = []
            ids: list[str] = []
            bodies: list[str] = []
            for (mid, body), id_key in zip(pending, keys, strict=True):
                if mid in held:
                    continue  # idempotent by id: stored already, or earlier in this batch
                held.add(mid)
                positions.append(meta.length + len(ids))
                id_keys.append(id_key)
                ids.append(mid)
                bodies.append(body)
            n = meta.length + len(ids)
            if ids:
                params = (meta.sid, positions, id_keys, ids, bodies, n, meta.sid)
                yield batch(Query(q.APPEND, params), final=True)
            return n

        bulk = _bulk([body for _, body in pending])
        return Op(name, "append" if pending else None, steps, bulk=bulk)

    def _op_set_system(self, session_id: str, message: Message | None) -> Op[None]:
        name = validate_session_id(session_id)
        body = None if message is None else encode_message(message)
        q = self._sql

        def steps() -> Steps[None]:
            (rows,) = yield batch(Query(q.LOCK_META, (name_key(name), name)))
            meta = _meta(name, rows)
            if meta is None and body is not None:
                meta = yield from self._create(name)
            if meta is not None:
                yield batch(Query(q.SET_SYSTEM, (body, meta.sid)), final=True)

        return Op(name, "set_system", steps)

    def _op_commit(
        self,
        session_id: str,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> Op[int]:
        name = validate_session_id(session_id)
        body = None if summary is None else encode_message(summary)
        q = self._sql

        def steps() -> Steps[int]:
            (rows,) = yield batch(Query(q.LOCK_META, (name_key(name), name)))
            meta = _checked(name, rows, expected_version, expected_epoch)
            if watermark < meta.watermark:
                raise ConflictError(
                    f"session {name!r}: watermark {watermark} would move backwards "
                    f"(it is {meta.watermark})"
                )
            if watermark > meta.length:
                raise ConflictError(
                    f"session {name!r}: watermark {watermark} is past the history's end "
                    f"({meta.length})"
                )
            writes = [Query(q.SET_SUMMARY, (body, watermark, meta.sid))]
            if summary is not None:
                writes.append(Query(q.LOG_SUMMARY, (meta.sid, summary.id, watermark, body)))
            yield batch(*writes, final=True)
            return meta.version + 1

        return Op(name, "commit", steps)

    def _op_create(
        self,
        session_id: str,
        history: Sequence[Message],
        system: Message | None,
        summary: Message | None,
        watermark: int,
    ) -> Op[None]:
        name = validate_session_id(session_id)
        new = prepare_new_session(name, history, system, summary, watermark)
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

        return Op(name, "create", steps, bulk=_bulk(new.bodies))

    def _op_summaries(self, session_id: str) -> Op[list[Message]]:
        name = validate_session_id(session_id)

        def steps() -> Steps[list[Message]]:
            (rows,) = yield batch(Query(self._sql.SUMMARIES, (name_key(name), name)), final=True)
            return [
                decode_message(body, session_id=name, where="summary log entry") for (body,) in rows
            ]

        return Op(name, None, steps)

    def _op_rollback(
        self,
        session_id: str,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None,
    ) -> Op[int]:
        name = validate_session_id(session_id)
        q, key = self._sql, name_key(name)

        def steps() -> Steps[int]:
            queries = [Query(q.LOCK_META, (key, name))]
            if summary_id is not None:
                queries.append(Query(q.FIND_SUMMARY, (key, name, summary_id)))
            rows = yield batch(*queries)
            meta = _checked(name, rows[0], expected_version, expected_epoch)
            body: str | None = None
            watermark = 0
            if summary_id is not None:
                if not rows[1]:
                    raise StoreError(f"session {name!r}: no logged summary with id {summary_id!r}")
                watermark, body = rows[1][0]
                if not 0 <= watermark <= meta.length:
                    raise CorruptRecordError(
                        f"session {name!r}: summary log entry {summary_id!r} has an invalid "
                        "watermark"
                    )
            yield batch(Query(q.SET_SUMMARY, (body, watermark, meta.sid)), final=True)
            return meta.version + 1

        return Op(name, "rollback", steps)

    def _op_clear(self, session_id: str) -> Op[None]:
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[None]:
            (rows,) = yield batch(Query(q.LOCK_META, (name_key(name), name)))
            meta = _meta(name, rows)
            if meta is not None:
                stmts = (q.DELETE_MESSAGES, q.DELETE_SUMMARIES, q.CLEAR)
                yield batch(*(Query(s, (meta.sid,)) for s in stmts), final=True)

        return Op(name, "clear", steps)

    def _op_delete(self, session_id: str) -> Op[bool]:
        name = validate_session_id(session_id)
        q, key = self._sql, name_key(name)

        def steps() -> Steps[bool]:
            _, rows = yield batch(
                Query(q.DELETE_LEASE, (key,)), Query(q.DELETE_SESSION, (key, name)), final=True
            )
            return bool(rows)

        return Op(name, "delete", steps)

    def _op_list(self) -> Op[list[str]]:
        def steps() -> Steps[list[str]]:
            (rows,) = yield batch(Query(self._sql.NAMES), final=True)
            return sorted(row[0] for row in rows)

        return Op(None, None, steps)

    def _op_acquire(self, session_id: str, owner: str, ttl_seconds: float) -> Op[bool]:
        name = validate_session_id(session_id)
        check_lease_args(owner, ttl_seconds)
        params = (name_key(name), owner, float(ttl_seconds))

        def steps() -> Steps[bool]:
            (rows,) = yield batch(Query(self._sql.ACQUIRE_LEASE, params), final=True)
            return bool(rows)

        return Op(name, "acquire_lease", steps)

    def _op_release(self, session_id: str, owner: str) -> Op[None]:
        name = validate_session_id(session_id)
        params = (name_key(name), owner)

        def steps() -> Steps[None]:
            yield batch(Query(self._sql.RELEASE_LEASE, params), final=True)

        return Op(name, "release_lease", steps)

    def _create(self, name: str) -> Steps[_Meta]:
        """Create the session row (unless a concurrent writer just did) and lock it."""
        q, key = self._sql, name_key(name)
        _, rows = yield batch(
            Query(q.CREATE, (key, name, new_epoch())), Query(q.LOCK_META, (key, name))
        )
        meta = _meta(name, rows)
        if meta is None:
            raise StoreError(f"session {name!r}: its key is taken by another session id")
        return meta


def _meta(name: str, rows: Rows) -> _Meta | None:
    if not rows:
        return None
    sid, epoch, version, length, watermark, system, summary = rows[0]
    if not 0 <= watermark <= length:
        raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
    return _Meta(sid, epoch, version, length, watermark, system, summary)


def _checked(name: str, rows: Rows, version: int, epoch: str | None) -> _Meta:
    meta = _meta(name, rows)
    if meta is None:
        raise ConflictError(f"session {name!r} no longer exists")
    if epoch is not None and meta.epoch != epoch:
        raise ConflictError(f"session {name!r} was deleted and created again")
    if meta.version != version:
        raise ConflictError(
            f"session {name!r} moved: version is {meta.version}, expected {version}"
        )
    return meta


def _messages(name: str, rows: Rows, lo: int, hi: int) -> list[Message]:
    if [pos for pos, _ in rows] != list(range(lo, hi)):
        raise CorruptRecordError(
            f"session {name!r}: history positions {lo}..{hi - 1} are missing or out of order"
        )
    return [
        decode_message(body, session_id=name, where=f"message at position {pos}")
        for pos, body in rows
    ]


def _version(schema: str, rows: Rows, latest: int) -> int:
    current = int(rows[0][0]) if rows else 0
    if current > latest:
        raise StoreError(
            f"PostgreSQL schema {schema!r} has summem schema version {current}, newer than "
            f"this summem knows ({latest}); upgrade summem"
        )
    return current


def _decode(body: str | None, name: str, where: str) -> Message | None:
    return None if body is None else decode_message(body, session_id=name, where=where)


def _text(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
