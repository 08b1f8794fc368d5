"""The operations a backend builds once and runs sync or async (PostgreSQL, Redis).

A backend whose two I/O paths differ only in how a request is sent writes each store method
once, as a function that builds a :class:`StoreOp` (statements or a script call, and how to read
the reply; no I/O). :class:`Operations` lists the builders the contract needs; the shells in
:mod:`summem.stores.common.shells` turn them into :class:`~summem.stores.base.Store` and
:class:`~summem.stores.base.AsyncStore` methods, so each backend's two stores only say how to
run one operation (``_run``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from summem.messages import Message
from summem.observe.ledger import Hold, Reserved, Spent
from summem.stores.base import Branch, SessionState

__all__ = [
    "Commit",
    "Create",
    "CreateOps",
    "LedgerOperations",
    "Operations",
    "ProbingAppendOperations",
    "Rewrite",
    "Rollback",
    "Settle",
    "SpendEntry",
    "StoreOp",
]

T = TypeVar("T")


@dataclass(frozen=True)
class StoreOp(Generic[T]):
    """One store operation returning ``T``; each backend's subclass says what it sends.

    Attributes:
        name: the session (errors name it), ``None`` for the whole store.
    """

    name: str | None


class Commit(NamedTuple):
    """The arguments of :meth:`~summem.stores.base.Store.commit` after the session id."""

    summary: Message | None
    watermark: int
    expected_version: int
    expected_epoch: str
    keep_summaries: int | None = None


class Rollback(NamedTuple):
    """The arguments of :meth:`~summem.stores.base.Store.rollback` after the session id."""

    summary_id: str | None
    expected_version: int
    expected_epoch: str | None


class Rewrite(NamedTuple):
    """The arguments of :meth:`~summem.stores.base.Store.rewrite` after the session id."""

    keep: int
    messages: Sequence[Message]
    expected_version: int
    expected_epoch: str
    branch_id: str
    expected_length: int | None = None


class Create(NamedTuple):
    """The arguments of :meth:`~summem.stores.base.Store.create` after the session id."""

    history: Sequence[Message]
    system: Message | None
    summary: Message | None
    watermark: int


class SpendEntry(NamedTuple):
    """The arguments of :meth:`~summem.observe.ledger.SpendLedger.record_spend` after the key."""

    at: float
    tokens: int
    cost_usd: float
    prune_before: float | None


class Settle(NamedTuple):
    """The arguments of :meth:`~summem.observe.ledger.SpendLedger.settle_spend` after the key."""

    hold_id: str
    at: float
    tokens: int
    cost_usd: float
    prune_before: float | None


class CreateOps(NamedTuple):
    """A whole-session create: stage the history (if long), create, or discard the staging."""

    stage: Sequence[StoreOp[Any]]
    create: StoreOp[Any]
    discard: StoreOp[Any] | None = None


class Operations:
    """The operation builders behind the store contract, one per method.

    Each takes the method's arguments, those after the session id packed in one tuple
    (:class:`Commit`, :class:`Create`, :class:`Rollback`, :class:`Rewrite`) where there are
    several.
    """

    _op_load: Callable[[str], StoreOp[SessionState]]
    _op_exists: Callable[[str], StoreOp[bool]]
    _op_probe: Callable[[str], StoreOp[tuple[str, int, int] | None]]
    _op_history: Callable[[str, int, int | None], StoreOp[list[Message]]]
    _op_append: Callable[[str, Sequence[Message]], StoreOp[int]]
    _op_set_system: Callable[[str, Message | None], StoreOp[None]]
    _op_commit: Callable[[str, Commit], StoreOp[int]]
    _ops_create: Callable[[str, Create], CreateOps]
    _op_summaries: Callable[[str], StoreOp[list[Message]]]
    _op_rollback: Callable[[str, Rollback], StoreOp[int]]
    _op_rewrite: Callable[[str, Rewrite], StoreOp[int]]
    _op_branches: Callable[[str], StoreOp[list[Branch]]]
    _op_branch_messages: Callable[[str, str], StoreOp[list[Message]]]
    _op_clear: Callable[[str], StoreOp[None]]
    _op_delete: Callable[[str], StoreOp[bool]]
    _op_list: Callable[[], StoreOp[list[str]]]
    _op_acquire: Callable[[str, str, float], StoreOp[bool]]
    _op_release: Callable[[str, str], StoreOp[None]]


class ProbingAppendOperations:
    """The builder behind :class:`~summem.stores.base.ProbingAppendStore`.

    An append that also reports the session's epoch and version, in the same round trip.
    """

    _op_append_probe: Callable[[str, Sequence[Message]], StoreOp[tuple[str, int, int] | None]]


class LedgerOperations:
    """The operation builders behind a spend ledger, with its holds."""

    _op_record_spend: Callable[[str, SpendEntry], StoreOp[None]]
    _op_spent_since: Callable[[str, float | None], StoreOp[Spent]]
    _op_reserve_spend: Callable[[str, Hold], StoreOp[Reserved]]
    _op_settle_spend: Callable[[str, Settle], StoreOp[None]]
    _op_release_spend: Callable[[str, str], StoreOp[None]]
