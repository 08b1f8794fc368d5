"""The store's operations as flow steps, typed against the store protocols.

A flow (see :mod:`summem._flow`) does not hold a store: it asks a :class:`StoreSteps` for the
step of each operation (``yield from steps.load(sid)``) and the facade's driver performs it.
``Memory`` gives its flows :class:`SyncStoreSteps` over a :class:`~summem.stores.base.Store`,
``AsyncMemory`` :class:`AsyncStoreSteps` over an :class:`~summem.stores.base.AsyncStore`; each
method is type-checked against its protocol, so a wrong call fails type-checking, not at run
time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, Protocol, TypeVar

from summem._flow import Flow
from summem.messages import Message
from summem.observe.ledger import AsyncSpendLedger, SpendLedger, Spent
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import (
    AsyncSearchableStore,
    AsyncStore,
    SearchableStore,
    SearchHit,
    SessionState,
    Store,
)

__all__ = ["AsyncStoreSteps", "StoreSteps", "SyncStoreSteps"]

T = TypeVar("T")


class StoreSteps(Protocol):
    """The store operations the session flows use, each as a flow of one step."""

    searchable: bool
    """The store searches history itself (:class:`~summem.stores.base.SearchableStore`)."""

    def search(
        self, session_id: str, query: str, *, k: int, stop: int | None
    ) -> Flow[list[SearchHit]]:
        """See :meth:`SearchableStore.search <summem.stores.base.SearchableStore.search>`."""
        ...

    def position_of(self, session_id: str, message_id: str) -> Flow[int | None]:
        """See :meth:`SearchableStore.position_of`; only when ``searchable``."""
        ...

    spend_ledger: bool
    """The store keeps a spend ledger (:class:`~summem.observe.ledger.SpendLedger`)."""

    def record_spend(
        self, key: str, *, at: float, tokens: int, cost_usd: float, prune_before: float | None
    ) -> Flow[None]:
        """See :meth:`SpendLedger.record_spend`; only when ``spend_ledger``."""
        ...

    def spent_since(self, key: str, since: float | None) -> Flow[Spent]:
        """See :meth:`SpendLedger.spent_since`; only when ``spend_ledger``."""
        ...

    def load(self, session_id: str) -> Flow[SessionState]:
        """See :meth:`Store.load <summem.stores.base.Store.load>`."""
        ...

    def history(self, session_id: str, start: int, stop: int | None) -> Flow[list[Message]]:
        """See :meth:`Store.history <summem.stores.base.Store.history>`."""
        ...

    def append(self, session_id: str, messages: Sequence[Message]) -> Flow[int]:
        """See :meth:`Store.append <summem.stores.base.Store.append>`."""
        ...

    def set_system(self, session_id: str, message: Message | None) -> Flow[None]:
        """See :meth:`Store.set_system <summem.stores.base.Store.set_system>`."""
        ...

    def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> Flow[int]:
        """See :meth:`Store.commit <summem.stores.base.Store.commit>`."""
        ...

    def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None,
        summary: Message | None,
        watermark: int,
    ) -> Flow[None]:
        """See :meth:`Store.create <summem.stores.base.Store.create>`."""
        ...

    def rollback(
        self, session_id: str, *, summary_id: str | None, expected_version: int, expected_epoch: str
    ) -> Flow[int]:
        """See :meth:`Store.rollback <summem.stores.base.Store.rollback>`."""
        ...

    def clear(self, session_id: str) -> Flow[None]:
        """See :meth:`Store.clear <summem.stores.base.Store.clear>`."""
        ...


class _SyncCall(Generic[T]):
    __slots__ = ("args", "fn")  # one per store call on the hot path: a plain class is cheapest

    def __init__(self, fn: Callable[..., T], *args: object) -> None:
        self.fn, self.args = fn, args

    def run(self) -> T:
        return self.fn(*self.args)

    async def arun(self) -> T:
        raise TypeError("a sync store's step cannot run on the async driver")


class _AsyncCall(Generic[T]):
    __slots__ = ("args", "fn")

    def __init__(self, fn: Callable[..., Awaitable[T]], *args: object) -> None:
        self.fn, self.args = fn, args

    def run(self) -> T:
        raise TypeError("an async store's step cannot run on the sync driver")

    async def arun(self) -> T:
        return await self.fn(*self.args)


def _sync(fn: Callable[[], T]) -> Flow[T]:
    result: T = yield _SyncCall(fn)
    return result


def _async(fn: Callable[[], Awaitable[T]]) -> Flow[T]:
    result: T = yield _AsyncCall(fn)
    return result


_T = TypeVar("_T")


def _need(searcher: _T | None, what: str = "no search of its own") -> _T:
    if searcher is None:
        raise TypeError(f"this store has {what} (see StoreSteps)")
    return searcher


class _AdaptedLedger:
    """A sync store's ledger behind an :class:`AsyncStoreAdapter` that does not offer it."""

    def __init__(self, adapter: AsyncStoreAdapter, ledger: SpendLedger) -> None:
        self._adapter, self._ledger = adapter, ledger

    async def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        await self._adapter.run_sync(
            self._ledger.record_spend,
            key,
            at=at,
            tokens=tokens,
            cost_usd=cost_usd,
            prune_before=prune_before,
        )

    async def spent_since(self, key: str, since: float | None = None) -> Spent:
        return await self._adapter.run_sync(self._ledger.spent_since, key, since)


def _async_ledger(store: AsyncStore) -> AsyncSpendLedger | None:
    if isinstance(store, AsyncSpendLedger):
        return store
    if isinstance(store, AsyncStoreAdapter) and isinstance(store.sync_store, SpendLedger):
        return _AdaptedLedger(store, store.sync_store)
    return None


class SyncStoreSteps:
    """:class:`StoreSteps` over a sync store (run by :func:`~summem._flow.run_sync`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._searcher = store if isinstance(store, SearchableStore) else None
        self.searchable = self._searcher is not None
        self._ledger = store if isinstance(store, SpendLedger) else None
        self.spend_ledger = self._ledger is not None

    def record_spend(  # noqa: D102
        self, key: str, *, at: float, tokens: int, cost_usd: float, prune_before: float | None
    ) -> Flow[None]:
        ledger = _need(self._ledger, "no spend ledger")
        return _sync(
            lambda: ledger.record_spend(
                key, at=at, tokens=tokens, cost_usd=cost_usd, prune_before=prune_before
            )
        )

    def spent_since(self, key: str, since: float | None) -> Flow[Spent]:  # noqa: D102
        ledger = _need(self._ledger, "no spend ledger")
        return _sync(lambda: ledger.spent_since(key, since))

    def search(  # noqa: D102
        self, session_id: str, query: str, *, k: int, stop: int | None
    ) -> Flow[list[SearchHit]]:
        searcher = _need(self._searcher)
        return _sync(lambda: searcher.search(session_id, query, k=k, stop=stop))

    def position_of(self, session_id: str, message_id: str) -> Flow[int | None]:  # noqa: D102
        searcher = _need(self._searcher)
        return _sync(lambda: searcher.position_of(session_id, message_id))

    def load(self, session_id: str) -> Flow[SessionState]:  # noqa: D102 - see StoreSteps
        return _sync(lambda: self.store.load(session_id))

    def history(self, session_id: str, start: int, stop: int | None) -> Flow[list[Message]]:  # noqa: D102
        return _sync(lambda: self.store.history(session_id, start, stop))

    def append(self, session_id: str, messages: Sequence[Message]) -> Flow[int]:  # noqa: D102
        # every turn appends: the step is yielded here, without _sync's generator and lambda
        length: int = yield _SyncCall(self.store.append, session_id, messages)
        return length

    def set_system(self, session_id: str, message: Message | None) -> Flow[None]:  # noqa: D102
        return _sync(lambda: self.store.set_system(session_id, message))

    def commit(  # noqa: D102
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> Flow[int]:
        return _sync(
            lambda: self.store.commit(
                session_id,
                summary=summary,
                watermark=watermark,
                expected_version=expected_version,
                expected_epoch=expected_epoch,
            )
        )

    def create(  # noqa: D102
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None,
        summary: Message | None,
        watermark: int,
    ) -> Flow[None]:
        return _sync(
            lambda: self.store.create(
                session_id, history=history, system=system, summary=summary, watermark=watermark
            )
        )

    def rollback(  # noqa: D102
        self, session_id: str, *, summary_id: str | None, expected_version: int, expected_epoch: str
    ) -> Flow[int]:
        return _sync(
            lambda: self.store.rollback(
                session_id,
                summary_id=summary_id,
                expected_version=expected_version,
                expected_epoch=expected_epoch,
            )
        )

    def clear(self, session_id: str) -> Flow[None]:  # noqa: D102
        return _sync(lambda: self.store.clear(session_id))


class AsyncStoreSteps:
    """:class:`StoreSteps` over an async store (run by :func:`~summem._flow.run_async`)."""

    def __init__(self, store: AsyncStore) -> None:
        self.store = store
        self._searcher = store if isinstance(store, AsyncSearchableStore) else None
        self.searchable = self._searcher is not None
        self._ledger = _async_ledger(store)
        self.spend_ledger = self._ledger is not None

    def record_spend(  # noqa: D102
        self, key: str, *, at: float, tokens: int, cost_usd: float, prune_before: float | None
    ) -> Flow[None]:
        ledger = _need(self._ledger, "no spend ledger")
        return _async(
            lambda: ledger.record_spend(
                key, at=at, tokens=tokens, cost_usd=cost_usd, prune_before=prune_before
            )
        )

    def spent_since(self, key: str, since: float | None) -> Flow[Spent]:  # noqa: D102
        ledger = _need(self._ledger, "no spend ledger")
        return _async(lambda: ledger.spent_since(key, since))

    def search(  # noqa: D102
        self, session_id: str, query: str, *, k: int, stop: int | None
    ) -> Flow[list[SearchHit]]:
        searcher = _need(self._searcher)
        return _async(lambda: searcher.search(session_id, query, k=k, stop=stop))

    def position_of(self, session_id: str, message_id: str) -> Flow[int | None]:  # noqa: D102
        searcher = _need(self._searcher)
        return _async(lambda: searcher.position_of(session_id, message_id))

    def load(self, session_id: str) -> Flow[SessionState]:  # noqa: D102 - see StoreSteps
        return _async(lambda: self.store.load(session_id))

    def history(self, session_id: str, start: int, stop: int | None) -> Flow[list[Message]]:  # noqa: D102
        return _async(lambda: self.store.history(session_id, start, stop))

    def append(self, session_id: str, messages: Sequence[Message]) -> Flow[int]:  # noqa: D102
        length: int = yield _AsyncCall(self.store.append, session_id, messages)  # as above
        return length

    def set_system(self, session_id: str, message: Message | None) -> Flow[None]:  # noqa: D102
        return _async(lambda: self.store.set_system(session_id, message))

    def commit(  # noqa: D102
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> Flow[int]:
        return _async(
            lambda: self.store.commit(
                session_id,
                summary=summary,
                watermark=watermark,
                expected_version=expected_version,
                expected_epoch=expected_epoch,
            )
        )

    def create(  # noqa: D102
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None,
        summary: Message | None,
        watermark: int,
    ) -> Flow[None]:
        return _async(
            lambda: self.store.create(
                session_id, history=history, system=system, summary=summary, watermark=watermark
            )
        )

    def rollback(  # noqa: D102
        self, session_id: str, *, summary_id: str | None, expected_version: int, expected_epoch: str
    ) -> Flow[int]:
        return _async(
            lambda: self.store.rollback(
                session_id,
                summary_id=summary_id,
                expected_version=expected_version,
                expected_epoch=expected_epoch,
            )
        )

    def clear(self, session_id: str) -> Flow[None]:  # noqa: D102
        return _async(lambda: self.store.clear(session_id))
