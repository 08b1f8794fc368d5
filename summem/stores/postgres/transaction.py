"""What both PostgreSQL stores share: an operation as a transaction, errors, and row parsing.

An operation is a :class:`Transaction`: a generator that yields batches (:class:`Batch`) of
:class:`Query` objects and receives their rows (no I/O); the operations themselves are in
:mod:`summem.stores.postgres.operations` and the code that runs them, on ``psycopg`` connections
sync or async, in :mod:`summem.stores.postgres.runner`. ``psycopg`` itself is imported only when
a store is built (:func:`import_psycopg`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from summem.errors import (
    CorruptRecordError,
    MissingDependencyError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.stores.common.operations import StoreOp
from summem.stores.common.rows import Meta, check_expected
from summem.stores.common.schema_compat import check_schema
from summem.stores.postgres.schema import SQL, check_schema_name

__all__ = [
    "Batch",
    "PgBase",
    "Query",
    "Rows",
    "Stage",
    "Steps",
    "Transaction",
    "batch",
    "checked",
    "import_psycopg",
    "is_bulk",
    "new_rows",
    "parse_meta",
    "schema_version",
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
class Transaction(StoreOp[T]):
    """One store operation: a transaction's statements, written as a generator.

    Attributes:
        name: the session (errors name it), ``None`` for the whole store.
        write: the operation's name if it writes (a lost COMMIT is then an unknown outcome).
        steps: makes the generator (called again if the operation is retried).
        snapshot: read in one ``REPEATABLE READ`` snapshot (reads of several statements).
        bulk: sends megabytes (a long create or append): one statement per round trip, as
            psycopg's pipeline mode can stall on a query that large.
        one_statement: the operation is one batch of one statement, run in autocommit mode:
            the statement is its own transaction, committed in its one round trip (no BEGIN,
            no COMMIT to send). It must be idempotent: a connection lost on the first try is
            retried once even if the statement may have run.
    """

    write: str | None
    steps: Callable[[], Steps[T]]
    snapshot: bool = False
    bulk: bool = False
    one_statement: bool = False


BULK_BYTES = 1 << 20
"""Above this many bytes of message bodies, an operation is not pipelined."""


def is_bulk(bodies: Sequence[str]) -> bool:
    """True if these message bodies are too large to pipeline."""
    return sum(len(b) for b in bodies) > BULK_BYTES // 4  # up to 4 bytes a character


def new_rows(
    pending: Sequence[tuple[str, str]], keys: Sequence[bytes], held: set[str], start: int
) -> tuple[list[int], list[bytes], list[str], list[str]]:
    """The columns ``INSERT_MESSAGES`` unnests for a batch inserted at position ``start``.

    Positions, id keys, ids and bodies of the ``(id, body)`` pairs of ``pending``; a message
    whose id is in ``held`` (stored already) or earlier in the batch is skipped.
    """
    positions: list[int] = []
    id_keys: list[bytes] = []
    ids: list[str] = []
    bodies: list[str] = []
    for (mid, body), id_key in zip(pending, keys, strict=True):
        if mid in held:
            continue
        held.add(mid)
        positions.append(start + len(ids))
        id_keys.append(id_key)
        ids.append(mid)
        bodies.append(body)
    return positions, id_keys, ids, bodies


class Stage:
    """How far a running operation got, which decides what a failure means."""

    FIRST = "first"  # the first batch: nothing ran yet if the connection was dead
    BODY = "body"  # later batches: the server rolls back if the connection goes
    FINAL = "final"  # the COMMIT was (being) sent: a lost connection leaves it unknown


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

    def _where(self, op: Transaction[Any]) -> str:
        if op.name is not None:
            return f"session {op.name!r}"
        return f"PostgreSQL store {self.schema!r}"

    def _failure(
        self, op: Transaction[Any], exc: Exception, stage: str, broken: bool
    ) -> StoreError:
        """What a ``psycopg`` error at ``stage`` means for the caller."""
        lost = broken or isinstance(exc, self._psycopg.OperationalError)
        if stage == Stage.FINAL and op.write and lost:
            return StoreOutcomeUnknownError(
                f"{self._where(op)}: the connection failed while committing the {op.write} "
                f"({_text(exc)}); it may or may not have been applied: read the session to know",
                operation=op.write,
            )
        return StoreError(f"{self._where(op)}: PostgreSQL error: {_text(exc)}")

    def _retry(self, op: Transaction[Any], stage: str, broken: bool, attempt: int) -> bool:
        """A connection lost on the first try, where trying again is safe: retry once.

        That is a read, or a write whose COMMIT was not sent yet (the server rolls back an
        open transaction when its connection goes, so nothing was applied). A connection that
        died in the pool (a server restart, an idle timeout) fails this way.

        An idempotent one-statement write (see :attr:`Transaction.one_statement`) is retried
        whenever its connection was lost: running it again cannot apply it twice.
        """
        safe = not op.write or stage == Stage.FIRST or op.one_statement
        return attempt == 0 and broken and safe

    def _unreachable(self, op: Transaction[Any], exc: Exception) -> StoreError:
        return StoreError(f"{self._where(op)}: cannot get a PostgreSQL connection: {_text(exc)}")


def parse_meta(name: str, rows: Rows) -> Meta | None:
    """The session row, checked, or ``None`` when there is no session."""
    if not rows:
        return None
    sid, epoch, version, length, watermark, system, summary = rows[0]
    if not 0 <= watermark <= length:
        raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
    return Meta(sid, epoch, version, length, watermark, system, summary)


def checked(name: str, rows: Rows, version: int, epoch: str | None) -> Meta:
    """The session row, if it still has this version (and epoch), else a conflict."""
    return check_expected(name, parse_meta(name, rows), version, epoch)


def schema_version(schema: str, rows: Rows, latest: int) -> tuple[int, bool]:
    """The stored version, and whether it must be migrated (raises if it cannot be used).

    ``rows`` is what ``SQL.VERSION`` read: version, marker, and the version the marker was
    recorded for (a marker recorded for another version says nothing about this one).
    """
    current = int(rows[0][0]) if rows else 0
    compatible = None
    if rows and len(rows[0]) == 3 and rows[0][1] is not None and rows[0][2] == current:
        compatible = int(rows[0][1])
    state = check_schema(
        f"PostgreSQL schema {schema!r}", stored=current, known=latest, compatible=compatible
    )
    return current, state == "older"


def _text(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
