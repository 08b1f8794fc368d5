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
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

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
from summem.stores._postgres_schema import LOCK_CLASS, SQL, name_key
from summem.stores.base import (
    SessionState,
    check_lease_args,
    decode_message,
    encode_message,
    new_epoch,
    slice_bounds,
    validate_session_id,
)

__all__ = ["Op", "PgBase", "PgOptions", "Query", "import_psycopg", "parse_postgres_url"]

T = TypeVar("T")
Rows = list[tuple[Any, ...]]
Steps = Generator["Query", Rows, T]


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
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest), ""))
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
class Op(Generic[T]):
    """One store operation: a transaction's statements, written as a generator.

    Attributes:
        name: the session (errors name it), ``None`` for the whole store.
        write: the operation's name if it writes (a lost COMMIT is then an unknown outcome).
        steps: makes the generator (called again if the operation is retried).
        snapshot: read in one ``REPEATABLE READ`` snapshot (reads of several statements).
    """

    name: str | None
    write: str | None
    steps: Callable[[], Steps[T]]
    snapshot: bool = False


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
        self._sql = SQL(schema)
        self._psycopg = import_psycopg()

    @property
    def schema(self) -> str:
        """The PostgreSQL schema this store's tables live in."""
        return self._sql.schema

    # -- errors ---------------------------------------------------------------------------

    def _where(self, op: Op[Any]) -> str:
        return (
            f"session {op.name!r}" if op.name is not None else f"PostgreSQL store {self.schema!r}"
        )

    def _error(self, op: Op[Any], exc: Exception) -> StoreError:
        """A failure before COMMIT: the server rolled the transaction back."""
        return StoreError(f"{self._where(op)}: PostgreSQL error: {_text(exc)}")

    def _commit_error(self, op: Op[Any], exc: Exception, broken: bool) -> StoreError:
        """A failed COMMIT: if the connection went, nobody knows whether it landed."""
        if op.write and (broken or isinstance(exc, self._psycopg.OperationalError)):
            return StoreOutcomeUnknownError(
                f"{self._where(op)}: the connection failed while committing the {op.write} "
                f"({_text(exc)}); it may or may not have been applied: read the session to know",
                operation=op.write,
            )
        return self._error(op, exc)

    def _unreachable(self, op: Op[Any], exc: Exception) -> StoreError:
        return StoreError(f"{self._where(op)}: cannot get a PostgreSQL connection: {_text(exc)}")

    # -- schema ---------------------------------------------------------------------------

    def _op_migrate(self) -> Op[int]:
        q, latest = self._sql, len(self._sql.migrations)

        def steps() -> Steps[int]:
            rows = yield Query(q.VERSION_TABLE, (q.schema,))
            if rows[0][0] is not None:
                current = _version(q.schema, (yield Query(q.VERSION)), latest)
                if current == latest:
                    return current
            yield Query(q.ADVISORY_LOCK, (LOCK_CLASS, q.schema))  # one migrator at a time
            yield Query(q.CREATE_SCHEMA)
            yield Query(q.CREATE_VERSION)
            current = _version(q.schema, (yield Query(q.VERSION)), latest)  # another worker?
            for statements in q.migrations[current:]:
                for statement in statements:
                    yield Query(statement)
            if current != latest:
                yield Query(q.SET_VERSION, (latest,))
            return latest

        return Op(None, "migration", steps)

    # -- operations -----------------------------------------------------------------------

    def _op_load(self, session_id: str) -> Op[SessionState]:
        name = validate_session_id(session_id)

        def steps() -> Steps[SessionState]:
            meta = yield from self._meta(name, lock=False)
            if meta is None:
                raise SessionNotFoundError(f"no session {name!r}")
            tail = yield from self._range(name, meta, meta.watermark, meta.length)
            return SessionState(
                session_id=name,
                system=_decode(meta.system, name, "system message"),
                summary=_decode(meta.summary, name, "summary"),
                watermark=meta.watermark,
                length=meta.length,
                version=meta.version,
                epoch=meta.epoch,
                tail=tail,
            )

        return Op(name, None, steps, snapshot=True)

    def _op_exists(self, session_id: str) -> Op[bool]:
        name = validate_session_id(session_id)

        def steps() -> Steps[bool]:
            return bool((yield Query(self._sql.EXISTS, (name_key(name), name))))

        return Op(name, None, steps)

    def _op_history(self, session_id: str, start: int, stop: int | None) -> Op[list[Message]]:
        name = validate_session_id(session_id)

        def steps() -> Steps[list[Message]]:
            meta = yield from self._meta(name, lock=False)
            if meta is None:
                return []
            return (yield from self._range(name, meta, *slice_bounds(start, stop, meta.length)))

        return Op(name, None, steps, snapshot=True)

    def _op_append(self, session_id: str, messages: Sequence[Message]) -> Op[int]:
        name = validate_session_id(session_id)
        batch = [(m.id, encode_message(m)) for m in messages]
        q = self._sql

        def steps() -> Steps[int]:
            meta = yield from self._meta(name, lock=bool(batch), create=bool(batch))
            if meta is None or not batch:
                return 0 if meta is None else meta.length
            keys = [name_key(mid) for mid, _ in batch]
            held: set[str] = set()
            if meta.length:  # an empty session holds no ids
                held = {row[0] for row in (yield Query(q.HELD_IDS, (meta.sid, keys)))}
            positions: list[int] = []
            id_keys: list[bytes] = []
            ids: list[str] = []
            bodies: list[str] = []
            for (mid, body), key in zip(batch, keys, strict=True):
                if mid in held:
                    continue  # idempotent by id: stored already, or earlier in this batch
                held.add(mid)
                positions.append(meta.length + len(ids))
                id_keys.append(key)
                ids.append(mid)
                bodies.append(body)
            if not ids:
                return meta.length
            n = meta.length + len(ids)
            yield Query(q.APPEND, (meta.sid, positions, id_keys, ids, bodies, n, meta.sid))
            return n

        return Op(name, "append" if batch else None, steps)

    def _op_set_system(self, session_id: str, message: Message | None) -> Op[None]:
        name = validate_session_id(session_id)
        body = None if message is None else encode_message(message)

        def steps() -> Steps[None]:
            meta = yield from self._meta(name, lock=True, create=body is not None)
            if meta is not None:
                yield Query(self._sql.SET_SYSTEM, (body, meta.sid))

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
            meta = yield from self._checked(name, expected_version, expected_epoch)
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
            yield Query(q.SET_SUMMARY, (body, watermark, meta.sid))
            if summary is not None:
                yield Query(q.LOG_SUMMARY, (meta.sid, summary.id, watermark, body))
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

        def steps() -> Steps[None]:
            row = (name_key(name), name, new_epoch(), len(new.bodies), new.watermark)
            rows = yield Query(q.CREATE_WHOLE, (*row, new.system_body, new.summary_body))
            if not rows:
                raise ConflictError(f"session {name!r} already exists")
            sid = rows[0][0]
            if new.history:
                ids = [m.id for m in new.history]
                keys = [name_key(i) for i in ids]
                positions = list(range(len(ids)))
                yield Query(q.INSERT_MESSAGES, (sid, positions, keys, ids, new.bodies))
            if new.summary is not None:
                yield Query(q.LOG_SUMMARY, (sid, new.summary.id, new.watermark, new.summary_body))

        return Op(name, "create", steps)

    def _op_summaries(self, session_id: str) -> Op[list[Message]]:
        name = validate_session_id(session_id)

        def steps() -> Steps[list[Message]]:
            meta = yield from self._meta(name, lock=False)
            rows = [] if meta is None else (yield Query(self._sql.SUMMARIES, (meta.sid,)))
            return [
                decode_message(body, session_id=name, where="summary log entry") for (body,) in rows
            ]

        return Op(name, None, steps, snapshot=True)

    def _op_rollback(
        self,
        session_id: str,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None,
    ) -> Op[int]:
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[int]:
            meta = yield from self._checked(name, expected_version, expected_epoch)
            body: str | None = None
            watermark = 0
            if summary_id is not None:
                rows = yield Query(q.FIND_SUMMARY, (meta.sid, summary_id))
                if not rows:
                    raise StoreError(f"session {name!r}: no logged summary with id {summary_id!r}")
                watermark, body = rows[0]
                if not 0 <= watermark <= meta.length:
                    raise CorruptRecordError(
                        f"session {name!r}: summary log entry {summary_id!r} has an invalid "
                        "watermark"
                    )
            yield Query(q.SET_SUMMARY, (body, watermark, meta.sid))
            return meta.version + 1

        return Op(name, "rollback", steps)

    def _op_clear(self, session_id: str) -> Op[None]:
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[None]:
            meta = yield from self._meta(name, lock=True)
            if meta is not None:
                for statement in (q.DELETE_MESSAGES, q.DELETE_SUMMARIES, q.CLEAR):
                    yield Query(statement, (meta.sid,))

        return Op(name, "clear", steps)

    def _op_delete(self, session_id: str) -> Op[bool]:
        name = validate_session_id(session_id)
        q = self._sql

        def steps() -> Steps[bool]:
            key = name_key(name)
            yield Query(q.DELETE_LEASE, (key,))
            rows = yield Query(q.EXISTS, (key, name))
            if not rows:
                return False
            yield Query(q.DELETE_SESSION, (rows[0][0],))  # messages and summaries cascade
            return True

        return Op(name, "delete", steps)

    def _op_list(self) -> Op[list[str]]:
        def steps() -> Steps[list[str]]:
            return sorted(row[0] for row in (yield Query(self._sql.NAMES)))

        return Op(None, None, steps)

    def _op_acquire(self, session_id: str, owner: str, ttl_seconds: float) -> Op[bool]:
        name = validate_session_id(session_id)
        check_lease_args(owner, ttl_seconds)
        params = (name_key(name), owner, float(ttl_seconds))

        def steps() -> Steps[bool]:
            return bool((yield Query(self._sql.ACQUIRE_LEASE, params)))

        return Op(name, "acquire_lease", steps)

    def _op_release(self, session_id: str, owner: str) -> Op[None]:
        name = validate_session_id(session_id)

        def steps() -> Steps[None]:
            yield Query(self._sql.RELEASE_LEASE, (name_key(name), owner))

        return Op(name, "release_lease", steps)

    # -- shared steps ---------------------------------------------------------------------

    def _meta(self, name: str, *, lock: bool, create: bool = False) -> Steps[_Meta | None]:
        q = self._sql
        key = name_key(name)
        rows = yield Query(q.LOCK_META if lock else q.META, (key, name))
        if not rows and create:
            yield Query(q.CREATE, (key, name, new_epoch()))
            rows = yield Query(q.LOCK_META, (key, name))
            if not rows:
                raise StoreError(f"session {name!r}: its key is taken by another session id")
        if not rows:
            return None
        sid, epoch, version, length, watermark, system, summary = rows[0]
        if not 0 <= watermark <= length:
            raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
        return _Meta(sid, epoch, version, length, watermark, system, summary)

    def _checked(self, name: str, version: int, epoch: str | None) -> Steps[_Meta]:
        meta = yield from self._meta(name, lock=True)
        if meta is None:
            raise ConflictError(f"session {name!r} no longer exists")
        if epoch is not None and meta.epoch != epoch:
            raise ConflictError(f"session {name!r} was deleted and created again")
        if meta.version != version:
            raise ConflictError(
                f"session {name!r} moved: version is {meta.version}, expected {version}"
            )
        return meta

    def _range(self, name: str, meta: _Meta, lo: int, hi: int) -> Steps[list[Message]]:
        rows = yield Query(self._sql.RANGE, (meta.sid, lo, hi))
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
