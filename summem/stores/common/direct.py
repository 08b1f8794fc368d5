"""Operations of a store that does its work in this process (memory, SQLite, the adapter).

Such a store writes each contract method once, as a plain method: the method's name with a
leading underscore, taking the builders' arguments (``_commit(session_id, commit)``).
:class:`Direct` turns each call into an operation (a :class:`Call`), so the shared shells of
:mod:`summem.stores.common.shells` serve it as they serve PostgreSQL and Redis:
:class:`DirectStore` runs a call at once, and
:class:`~summem.stores.adapter.AsyncStoreAdapter` awaits it, inline or in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar, cast

from summem.messages import Message
from summem.observe.ledger import Hold, Reserved, Spent
from summem.stores.base import Branch, SessionState
from summem.stores.common.operations import (
    Commit,
    Create,
    CreateOps,
    LedgerOperations,
    Operations,
    ProbingAppendOperations,
    Rewrite,
    Rollback,
    Settle,
    SpendEntry,
    StoreOp,
)
from summem.stores.common.shells import OpLedger, OpProbingAppend

__all__ = ["Call", "Direct", "DirectStore", "ProbingDirectStore"]

T = TypeVar("T")


@dataclass(frozen=True)
class Call(StoreOp[T]):
    """One call of a store's own method."""

    fn: Callable[[], T]


class Direct(Operations, LedgerOperations, ProbingAppendOperations):
    """The operation builders of a store whose methods do the work (one a contract method)."""

    _load: Callable[[str], SessionState]
    _exists: Callable[[str], bool]
    _probe: Callable[[str], tuple[str, int, int] | None]
    _history: Callable[[str, int, int | None], list[Message]]
    _append: Callable[[str, Sequence[Message]], int]
    _append_probe: Callable[[str, Sequence[Message]], tuple[str, int, int] | None]
    _set_system: Callable[[str, Message | None], None]
    _commit: Callable[[str, Commit], int]
    _create: Callable[[str, Create], None]
    _summaries: Callable[[str], list[Message]]
    _rollback: Callable[[str, Rollback], int]
    _rewrite: Callable[[str, Rewrite], int]
    _branches: Callable[[str], list[Branch]]
    _branch_messages: Callable[[str, str], list[Message]]
    _clear: Callable[[str], None]
    _delete: Callable[[str], bool]
    _list: Callable[[], list[str]]
    _acquire: Callable[[str, str, float], bool]
    _release: Callable[[str, str], None]
    _record_spend: Callable[[str, SpendEntry], None]
    _spent_since: Callable[[str, float | None], Spent]
    _reserve_spend: Callable[[str, Hold], Reserved]
    _settle_spend: Callable[[str, Settle], None]
    _release_spend: Callable[[str, str], None]

    def _op_load(self, session_id: str) -> StoreOp[SessionState]:
        return Call(session_id, partial(self._load, session_id))

    def _op_exists(self, session_id: str) -> StoreOp[bool]:
        return Call(session_id, partial(self._exists, session_id))

    def _op_probe(self, session_id: str) -> StoreOp[tuple[str, int, int] | None]:
        return Call(session_id, partial(self._probe, session_id))

    def _op_history(self, session_id: str, start: int, stop: int | None) -> StoreOp[list[Message]]:
        return Call(session_id, partial(self._history, session_id, start, stop))

    def _op_append(self, session_id: str, messages: Sequence[Message]) -> StoreOp[int]:
        return Call(session_id, partial(self._append, session_id, list(messages)))

    def _op_append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> StoreOp[tuple[str, int, int] | None]:
        return Call(session_id, partial(self._append_probe, session_id, list(messages)))

    def _op_set_system(self, session_id: str, message: Message | None) -> StoreOp[None]:
        return Call(session_id, partial(self._set_system, session_id, message))

    def _op_commit(self, session_id: str, commit: Commit) -> StoreOp[int]:
        return Call(session_id, partial(self._commit, session_id, commit))

    def _ops_create(self, session_id: str, create: Create) -> CreateOps:
        return CreateOps((), Call(session_id, partial(self._create, session_id, create)))

    def _op_summaries(self, session_id: str) -> StoreOp[list[Message]]:
        return Call(session_id, partial(self._summaries, session_id))

    def _op_rollback(self, session_id: str, rollback: Rollback) -> StoreOp[int]:
        return Call(session_id, partial(self._rollback, session_id, rollback))

    def _op_rewrite(self, session_id: str, rewrite: Rewrite) -> StoreOp[int]:
        return Call(session_id, partial(self._rewrite, session_id, rewrite))

    def _op_branches(self, session_id: str) -> StoreOp[list[Branch]]:
        return Call(session_id, partial(self._branches, session_id))

    def _op_branch_messages(self, session_id: str, branch_id: str) -> StoreOp[list[Message]]:
        return Call(session_id, partial(self._branch_messages, session_id, branch_id))

    def _op_clear(self, session_id: str) -> StoreOp[None]:
        return Call(session_id, partial(self._clear, session_id))

    def _op_delete(self, session_id: str) -> StoreOp[bool]:
        return Call(session_id, partial(self._delete, session_id))

    def _op_list(self) -> StoreOp[list[str]]:
        return Call(None, self._list)

    def _op_acquire(self, session_id: str, owner: str, ttl_seconds: float) -> StoreOp[bool]:
        return Call(session_id, partial(self._acquire, session_id, owner, ttl_seconds))

    def _op_release(self, session_id: str, owner: str) -> StoreOp[None]:
        return Call(session_id, partial(self._release, session_id, owner))

    def _op_record_spend(self, key: str, spend: SpendEntry) -> StoreOp[None]:
        return Call(None, partial(self._record_spend, key, spend))

    def _op_spent_since(self, key: str, since: float | None) -> StoreOp[Spent]:
        return Call(None, partial(self._spent_since, key, since))

    def _op_reserve_spend(self, key: str, hold: Hold) -> StoreOp[Reserved]:
        return Call(None, partial(self._reserve_spend, key, hold))

    def _op_settle_spend(self, key: str, settle: Settle) -> StoreOp[None]:
        return Call(None, partial(self._settle_spend, key, settle))

    def _op_release_spend(self, key: str, hold_id: str) -> StoreOp[None]:
        return Call(None, partial(self._release_spend, key, hold_id))


class DirectStore(Direct, OpLedger):
    """A sync store (and spend ledger) whose operations are its own calls, run at once."""

    def _run(self, op: StoreOp[T]) -> T:
        return cast("Call[T]", op).fn()


class ProbingDirectStore(DirectStore, OpProbingAppend):
    """A :class:`DirectStore` that also appends and probes in one call.

    Its own ``_append_probe`` is :class:`~summem.stores.base.ProbingAppendStore`'s method.
    """
