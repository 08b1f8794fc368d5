"""The two shells of an operation-based backend: every contract method runs one operation.

:class:`OpStore` and :class:`AsyncOpStore` are the whole :class:`~summem.stores.base.Store` and
:class:`~summem.stores.base.AsyncStore` (and the spend ledger) over the builders of
:class:`~summem.stores.common.operations.Operations`; a backend's stores add how to run one
operation (``_run``: on a pool, a client, sync or awaited) and what only that backend does.
"""

from __future__ import annotations

import contextlib
from abc import abstractmethod
from collections.abc import Sequence
from typing import TypeVar

from summem.messages import Message
from summem.observe.ledger import Hold, Reserved, Spent
from summem.stores.base import Branch, ClosingStore, SessionState
from summem.stores.common.operations import (
    Commit,
    Create,
    LedgerOperations,
    Operations,
    ProbingAppendOperations,
    Rewrite,
    Rollback,
    Settle,
    SpendEntry,
    StoreOp,
)
from summem.stores.summary_log import check_keep_summaries

__all__ = [
    "AsyncOpLedger",
    "AsyncOpProbingAppend",
    "AsyncOpStore",
    "OpLedger",
    "OpProbingAppend",
    "OpStore",
]

T = TypeVar("T")


class OpStore(Operations, ClosingStore):
    """A sync store whose methods each build one operation and run it."""

    @abstractmethod
    def _run(self, op: StoreOp[T]) -> T:
        """Run ``op`` (one transaction or script call) and return its result."""

    def load(self, session_id: str) -> SessionState:
        """See :meth:`summem.stores.base.Store.load`."""
        return self._run(self._op_load(session_id))

    def exists(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.exists`."""
        return self._run(self._op_exists(session_id))

    def probe(self, session_id: str) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.Store.probe`."""
        return self._run(self._op_probe(session_id))

    def history(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """See :meth:`summem.stores.base.Store.history`."""
        return self._run(self._op_history(session_id, start, stop))

    def append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`summem.stores.base.Store.append`."""
        return self._run(self._op_append(session_id, messages))

    def set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`summem.stores.base.Store.set_system`."""
        self._run(self._op_set_system(session_id, message))

    def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
        keep_summaries: int | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.commit`."""
        keep = check_keep_summaries(keep_summaries)
        commit = Commit(summary, watermark, expected_version, expected_epoch, keep)
        return self._run(self._op_commit(session_id, commit))

    def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        """See :meth:`summem.stores.base.Store.create` (a long history may be staged first)."""
        ops = self._ops_create(session_id, Create(history, system, summary, watermark))
        try:
            for op in ops.stage:
                self._run(op)
            self._run(ops.create)
        except BaseException:
            if ops.stage and ops.discard is not None:
                with contextlib.suppress(Exception):
                    self._run(ops.discard)
            raise

    def summaries(self, session_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.summaries`."""
        return self._run(self._op_summaries(session_id))

    def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.rollback`."""
        rollback = Rollback(summary_id, expected_version, expected_epoch)
        return self._run(self._op_rollback(session_id, rollback))

    def rewrite(
        self,
        session_id: str,
        *,
        keep: int,
        messages: Sequence[Message],
        expected_version: int,
        expected_epoch: str,
        branch_id: str,
        expected_length: int | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.rewrite`."""
        rewrite = Rewrite(
            keep, messages, expected_version, expected_epoch, branch_id, expected_length
        )
        return self._run(self._op_rewrite(session_id, rewrite))

    def branches(self, session_id: str) -> list[Branch]:
        """See :meth:`summem.stores.base.Store.branches`."""
        return self._run(self._op_branches(session_id))

    def branch_messages(self, session_id: str, branch_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.branch_messages`."""
        return self._run(self._op_branch_messages(session_id, branch_id))

    def clear(self, session_id: str) -> None:
        """See :meth:`summem.stores.base.Store.clear`."""
        self._run(self._op_clear(session_id))

    def delete(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.delete`."""
        return self._run(self._op_delete(session_id))

    def list_sessions(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions`."""
        return self._run(self._op_list())

    def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`summem.stores.base.Store.acquire_lease`."""
        return self._run(self._op_acquire(session_id, owner, ttl_seconds))

    def release_lease(self, session_id: str, owner: str) -> None:
        """See :meth:`summem.stores.base.Store.release_lease`."""
        self._run(self._op_release(session_id, owner))


class AsyncOpStore(Operations):
    """The async twin of :class:`OpStore`: the same operations, awaited."""

    @abstractmethod
    async def _run(self, op: StoreOp[T]) -> T:
        """Run ``op`` and return its result."""

    async def load(self, session_id: str) -> SessionState:
        """See :meth:`summem.stores.base.Store.load`."""
        return await self._run(self._op_load(session_id))

    async def exists(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.exists`."""
        return await self._run(self._op_exists(session_id))

    async def probe(self, session_id: str) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.Store.probe`."""
        return await self._run(self._op_probe(session_id))

    async def history(
        self, session_id: str, start: int = 0, stop: int | None = None
    ) -> list[Message]:
        """See :meth:`summem.stores.base.Store.history`."""
        return await self._run(self._op_history(session_id, start, stop))

    async def append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`summem.stores.base.Store.append`."""
        return await self._run(self._op_append(session_id, messages))

    async def set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`summem.stores.base.Store.set_system`."""
        await self._run(self._op_set_system(session_id, message))

    async def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
        keep_summaries: int | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.commit`."""
        keep = check_keep_summaries(keep_summaries)
        commit = Commit(summary, watermark, expected_version, expected_epoch, keep)
        return await self._run(self._op_commit(session_id, commit))

    async def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        """See :meth:`summem.stores.base.Store.create` (a long history may be staged first)."""
        ops = self._ops_create(session_id, Create(history, system, summary, watermark))
        try:
            for op in ops.stage:
                await self._run(op)
            await self._run(ops.create)
        except BaseException:
            if ops.stage and ops.discard is not None:
                with contextlib.suppress(Exception):
                    await self._run(ops.discard)
            raise

    async def summaries(self, session_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.summaries`."""
        return await self._run(self._op_summaries(session_id))

    async def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.rollback`."""
        rollback = Rollback(summary_id, expected_version, expected_epoch)
        return await self._run(self._op_rollback(session_id, rollback))

    async def rewrite(
        self,
        session_id: str,
        *,
        keep: int,
        messages: Sequence[Message],
        expected_version: int,
        expected_epoch: str,
        branch_id: str,
        expected_length: int | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.rewrite`."""
        rewrite = Rewrite(
            keep, messages, expected_version, expected_epoch, branch_id, expected_length
        )
        return await self._run(self._op_rewrite(session_id, rewrite))

    async def branches(self, session_id: str) -> list[Branch]:
        """See :meth:`summem.stores.base.Store.branches`."""
        return await self._run(self._op_branches(session_id))

    async def branch_messages(self, session_id: str, branch_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.branch_messages`."""
        return await self._run(self._op_branch_messages(session_id, branch_id))

    async def clear(self, session_id: str) -> None:
        """See :meth:`summem.stores.base.Store.clear`."""
        await self._run(self._op_clear(session_id))

    async def delete(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.delete`."""
        return await self._run(self._op_delete(session_id))

    async def list_sessions(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions`."""
        return await self._run(self._op_list())

    async def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`summem.stores.base.Store.acquire_lease`."""
        return await self._run(self._op_acquire(session_id, owner, ttl_seconds))

    async def release_lease(self, session_id: str, owner: str) -> None:
        """See :meth:`summem.stores.base.Store.release_lease`."""
        await self._run(self._op_release(session_id, owner))

    async def close(self) -> None:
        """Release connections (overridden by each store)."""


class OpLedger(OpStore, LedgerOperations):
    """An :class:`OpStore` that also keeps a spend ledger, one operation a call."""

    def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.record_spend`."""
        self._run(self._op_record_spend(key, SpendEntry(at, tokens, cost_usd, prune_before)))

    def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`summem.observe.ledger.SpendLedger.spent_since`."""
        return self._run(self._op_spent_since(key, since))

    def reserve_spend(self, key: str, hold: Hold) -> Reserved:
        """See :meth:`summem.observe.ledger.SpendLedger.reserve_spend`."""
        return self._run(self._op_reserve_spend(key, hold))

    def settle_spend(
        self,
        key: str,
        hold_id: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.settle_spend`."""
        self._run(self._op_settle_spend(key, Settle(hold_id, at, tokens, cost_usd, prune_before)))

    def release_spend(self, key: str, hold_id: str) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.release_spend`."""
        self._run(self._op_release_spend(key, hold_id))


class AsyncOpLedger(AsyncOpStore, LedgerOperations):
    """The async twin of :class:`OpLedger`."""

    async def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.record_spend`."""
        await self._run(self._op_record_spend(key, SpendEntry(at, tokens, cost_usd, prune_before)))

    async def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`summem.observe.ledger.SpendLedger.spent_since`."""
        return await self._run(self._op_spent_since(key, since))

    async def reserve_spend(self, key: str, hold: Hold) -> Reserved:
        """See :meth:`summem.observe.ledger.SpendLedger.reserve_spend`."""
        return await self._run(self._op_reserve_spend(key, hold))

    async def settle_spend(
        self,
        key: str,
        hold_id: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.settle_spend`."""
        settle = Settle(hold_id, at, tokens, cost_usd, prune_before)
        await self._run(self._op_settle_spend(key, settle))

    async def release_spend(self, key: str, hold_id: str) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.release_spend`."""
        await self._run(self._op_release_spend(key, hold_id))


class OpProbingAppend(OpStore, ProbingAppendOperations):
    """:class:`OpStore` with :class:`~summem.stores.base.ProbingAppendStore`'s method."""

    def append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.ProbingAppendStore.append_probe`."""
        return self._run(self._op_append_probe(session_id, messages))


class AsyncOpProbingAppend(AsyncOpStore, ProbingAppendOperations):
    """:class:`AsyncOpStore` with :class:`~summem.stores.base.AsyncProbingAppendStore`'s method."""

    async def append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.ProbingAppendStore.append_probe`."""
        return await self._run(self._op_append_probe(session_id, messages))
