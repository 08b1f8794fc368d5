"""Run a synchronous store behind the async interface, written once for every such backend.

Backends whose work is either trivial (in memory) or blocking I/O through a sync-only driver
(stdlib ``sqlite3``) do not need a second implementation: :class:`AsyncStoreAdapter` awaits the
sync store's methods, inline or in a worker thread (``asyncio.to_thread``), so the async twin
can never drift from the sync one. Third-party sync stores can be wrapped the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import TracebackType
from typing import ParamSpec, Protocol, TypeVar

from summem.messages import Message
from summem.observe.ledger import SpendLedger, Spent
from summem.stores.base import SessionState, Store

__all__ = ["AsyncLedgerAdapter", "AsyncStoreAdapter", "LedgerStore"]

P = ParamSpec("P")
T = TypeVar("T")
_A = TypeVar("_A", bound="AsyncStoreAdapter")


class AsyncStoreAdapter:
    """An :class:`~summem.stores.base.AsyncStore` over a sync :class:`~summem.stores.base.Store`.

    Args:
        store: the sync store doing the work; the adapter owns it (``close`` closes it).
        offload: run each call in a worker thread (for blocking I/O); ``False`` runs it
            inline, for stores whose calls never block.
    """

    def __init__(self, store: Store, *, offload: bool = True) -> None:
        self._store = store
        self._offload = offload

    @property
    def sync_store(self) -> Store:
        """The wrapped sync store."""
        return self._store

    async def run_sync(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Call ``fn`` as this adapter calls the store (in a worker thread, or inline).

        For a capability of the wrapped store that the adapter itself does not offer (e.g.
        a spend ledger of a third-party store).
        """
        return await self._run(fn, *args, **kwargs)

    async def _run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        if self._offload:
            import asyncio  # loaded by now (a coroutine is running); not at import: it is slow

            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    async def __aenter__(self: _A) -> _A:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def load(self, session_id: str) -> SessionState:
        """See :meth:`summem.stores.base.Store.load`."""
        return await self._run(self._store.load, session_id)

    async def exists(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.exists`."""
        return await self._run(self._store.exists, session_id)

    async def history(
        self, session_id: str, start: int = 0, stop: int | None = None
    ) -> list[Message]:
        """See :meth:`summem.stores.base.Store.history`."""
        return await self._run(self._store.history, session_id, start, stop)

    async def append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`summem.stores.base.Store.append`."""
        return await self._run(self._store.append, session_id, list(messages))

    async def set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`summem.stores.base.Store.set_system`."""
        await self._run(self._store.set_system, session_id, message)

    async def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> int:
        """See :meth:`summem.stores.base.Store.commit`."""
        return await self._run(
            self._store.commit,
            session_id,
            summary=summary,
            watermark=watermark,
            expected_version=expected_version,
            expected_epoch=expected_epoch,
        )

    async def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        """See :meth:`summem.stores.base.Store.create`."""
        await self._run(
            self._store.create,
            session_id,
            history=history,
            system=system,
            summary=summary,
            watermark=watermark,
        )

    async def summaries(self, session_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.summaries`."""
        return await self._run(self._store.summaries, session_id)

    async def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        """See :meth:`summem.stores.base.Store.rollback`."""
        return await self._run(
            self._store.rollback,
            session_id,
            summary_id=summary_id,
            expected_version=expected_version,
            expected_epoch=expected_epoch,
        )

    async def clear(self, session_id: str) -> None:
        """See :meth:`summem.stores.base.Store.clear`."""
        await self._run(self._store.clear, session_id)

    async def delete(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.delete`."""
        return await self._run(self._store.delete, session_id)

    async def list_sessions(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions`."""
        return await self._run(self._store.list_sessions)

    async def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`summem.stores.base.Store.acquire_lease`."""
        return await self._run(self._store.acquire_lease, session_id, owner, ttl_seconds)

    async def release_lease(self, session_id: str, owner: str) -> None:
        """See :meth:`summem.stores.base.Store.release_lease`."""
        await self._run(self._store.release_lease, session_id, owner)

    async def close(self) -> None:
        """See :meth:`summem.stores.base.Store.close`."""
        await self._run(self._store.close)


class LedgerStore(Store, SpendLedger, Protocol):
    """A sync store that also keeps a spend ledger (the SQLite and in-memory stores)."""


class AsyncLedgerAdapter(AsyncStoreAdapter):
    """An :class:`AsyncStoreAdapter` that also awaits the wrapped store's spend ledger."""

    def __init__(self, store: LedgerStore, *, offload: bool = True) -> None:
        super().__init__(store, offload=offload)
        self._ledger = store

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
        await self._run(
            self._ledger.record_spend,
            key,
            at=at,
            tokens=tokens,
            cost_usd=cost_usd,
            prune_before=prune_before,
        )

    async def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`summem.observe.ledger.SpendLedger.spent_since`."""
        return await self._run(self._ledger.spent_since, key, since)
