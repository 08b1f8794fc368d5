"""The store's operations as flow steps, typed against the store protocols.

A flow (see :mod:`summem._flow`) does not hold a store: it asks a :class:`StoreSteps` for the
step of each operation (``yield from steps.load(sid)``) and the facade's driver performs it.
``Memory`` gives its flows :class:`SyncStoreSteps` over a :class:`~summem.stores.base.Store`,
``AsyncMemory`` :class:`AsyncStoreSteps` over an :class:`~summem.stores.base.AsyncStore`. Both
are the one :class:`StoreSteps`, told which kind of step to make: each store call below is
written once and type-checked against both protocols, so a wrong call fails type-checking, not
at run time.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from summem._flow import Flow, Step
from summem.errors import ConfigurationError, SessionNotFoundError
from summem.messages import Message
from summem.observe.ledger import AsyncSpendLedger, Hold, Reserved, SpendLedger, Spent
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import (
    AsyncBranchingStore,
    AsyncProbingAppendStore,
    AsyncSearchableStore,
    AsyncStore,
    Branch,
    BranchingStore,
    ProbingAppendStore,
    SearchableStore,
    SearchHit,
    SessionState,
    Store,
)
from summem.stores.summary_log import takes_keep_summaries

if TYPE_CHECKING:
    import asyncio

__all__ = ["AsyncStoreSteps", "StoreSteps", "SyncStoreSteps", "check_spend_ledger"]

_logger = logging.getLogger("summem")

T = TypeVar("T")


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


def _async_brancher(store: AsyncStore) -> AsyncBranchingStore | None:
    if isinstance(store, AsyncStoreAdapter):  # it can branch if the sync store it wraps can
        return store if store.branching else None
    return store if isinstance(store, AsyncBranchingStore) else None


def _async_prober(store: AsyncStore) -> AsyncProbingAppendStore | None:
    if isinstance(store, AsyncStoreAdapter):  # it can if the sync store it wraps can
        return store if store.append_probing else None
    return store if isinstance(store, AsyncProbingAppendStore) else None


def _async_ledger(store: AsyncStore) -> AsyncSpendLedger | None:
    if isinstance(store, AsyncSpendLedger):
        return store
    if isinstance(store, AsyncStoreAdapter):  # a sync store's ledger, if it keeps one
        return store.spend_ledger()
    return None


class StoreSteps:
    """The store operations the session flows use, each as a flow of one step.

    Made by :class:`SyncStoreSteps` or :class:`AsyncStoreSteps`; ``call`` makes a step of a
    store call (run by the matching driver only).
    """

    def __init__(
        self,
        store: Store | AsyncStore,
        call: Callable[..., Step],
        *,
        searcher: SearchableStore | AsyncSearchableStore | None,
        ledger: SpendLedger | AsyncSpendLedger | None,
        brancher: BranchingStore | AsyncBranchingStore | None = None,
        prober: ProbingAppendStore | AsyncProbingAppendStore | None = None,
    ) -> None:
        self.store = store
        self._call = call
        self._searcher = searcher
        self.searchable = searcher is not None
        """The store searches history itself (:class:`~summem.stores.base.SearchableStore`)."""
        self._brancher = brancher
        self.branching = brancher is not None
        """The store's history can branch (:class:`~summem.stores.base.BranchingStore`)."""
        self._ledger = ledger
        self.spend_ledger = ledger is not None
        """The store keeps a spend ledger (:class:`~summem.observe.ledger.SpendLedger`)."""
        self._prober = prober
        self.append_probing = prober is not None
        """The store appends and probes in one call
        (:class:`~summem.stores.base.ProbingAppendStore`): see :meth:`append_probed`."""
        self._releasing: set[asyncio.Task[Any]] = set()  # detached releases, until done
        self._keeps = takes_keep_summaries(store)

    def _searching(self) -> SearchableStore | AsyncSearchableStore:
        if self._searcher is None:
            raise TypeError("this store has no search of its own (see StoreSteps)")
        return self._searcher

    def _branching(self) -> BranchingStore | AsyncBranchingStore:
        if self._brancher is None:
            store = self.store
            if isinstance(store, AsyncStoreAdapter):  # name the store the caller gave
                store = store.sync_store
            raise ConfigurationError(
                f"{type(store).__name__} cannot branch: it has no rewrite(), branches() "
                "and branch_messages() (see summem.stores.base.BranchingStore)"
            )
        return self._brancher

    def _spending(self) -> SpendLedger | AsyncSpendLedger:
        if self._ledger is None:
            raise TypeError("this store has no spend ledger (see StoreSteps)")
        return self._ledger

    def _step(self, fn: Callable[[], T | Awaitable[T]]) -> Flow[T]:
        result: T = yield self._call(fn)
        return result

    def search(
        self, session_id: str, query: str, *, k: int, stop: int | None
    ) -> Flow[list[SearchHit]]:
        """See :meth:`SearchableStore.search <summem.stores.base.SearchableStore.search>`."""
        searcher = self._searching()
        return self._step(lambda: searcher.search(session_id, query, k=k, stop=stop))

    def position_of(self, session_id: str, message_id: str) -> Flow[int | None]:
        """See :meth:`SearchableStore.position_of`; only when ``searchable``."""
        searcher = self._searching()
        return self._step(lambda: searcher.position_of(session_id, message_id))

    def record_spend(
        self, key: str, *, at: float, tokens: int, cost_usd: float, prune_before: float | None
    ) -> Flow[None]:
        """See :meth:`SpendLedger.record_spend`; only when ``spend_ledger``."""
        ledger = self._spending()
        return self._step(
            lambda: ledger.record_spend(
                key, at=at, tokens=tokens, cost_usd=cost_usd, prune_before=prune_before
            )
        )

    def spent_since(self, key: str, since: float | None) -> Flow[Spent]:
        """See :meth:`SpendLedger.spent_since`; only when ``spend_ledger``."""
        ledger = self._spending()
        return self._step(lambda: ledger.spent_since(key, since))

    def reserve_spend(self, key: str, hold: Hold) -> Flow[Reserved]:
        """See :meth:`SpendLedger.reserve_spend`; only when ``spend_ledger``."""
        ledger = self._spending()
        return self._step(lambda: ledger.reserve_spend(key, hold))

    def settle_spend(
        self,
        key: str,
        hold_id: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None,
    ) -> Flow[None]:
        """See :meth:`SpendLedger.settle_spend`; only when ``spend_ledger``."""
        ledger = self._spending()
        return self._step(
            lambda: ledger.settle_spend(
                key, hold_id, at=at, tokens=tokens, cost_usd=cost_usd, prune_before=prune_before
            )
        )

    def release_spend(self, key: str, hold_id: str) -> Flow[None]:
        """See :meth:`SpendLedger.release_spend`; only when ``spend_ledger``."""
        ledger = self._spending()
        return self._step(lambda: ledger.release_spend(key, hold_id))

    def release_spend_now(self, key: str, hold_id: str) -> None:
        """Drop the hold ``hold_id`` outside any flow (one closed or cancelled yields no step).

        A sync store's at once; an async store's in a task of its own on the running loop,
        which the cancellation does not reach (:meth:`released` waits for it). Best effort: a
        failure is logged (the hold lapses at its expiry). Only when ``spend_ledger``.
        """
        ledger = self._spending()
        try:
            result = ledger.release_spend(key, hold_id)
        except Exception as exc:
            _logger.warning("hold for %r not released in the store (it lapses): %s", key, exc)
            return
        if inspect.iscoroutine(result):
            _detach(key, result, self._releasing)

    async def released(self) -> None:
        """Wait for the releases :meth:`release_spend_now` left running (a memory's close)."""
        import asyncio  # here: a sync memory never needs it (``import asyncio`` is slow)

        while self._releasing:
            await asyncio.gather(*self._releasing, return_exceptions=True)

    def load(self, session_id: str) -> Flow[SessionState]:
        """See :meth:`Store.load <summem.stores.base.Store.load>`."""
        return self._step(lambda: self.store.load(session_id))

    def probe(self, session_id: str) -> Flow[tuple[str, int, int] | None]:
        """See :meth:`BranchingStore.probe <summem.stores.base.BranchingStore.probe>`.

        A store without it is read whole instead (``load``).
        """
        if self._brancher is not None:
            brancher = self._brancher
            found: tuple[str, int, int] | None = yield from self._step(
                lambda: brancher.probe(session_id)
            )
            return found
        try:
            state = yield from self.load(session_id)
        except SessionNotFoundError:
            return None
        return state.epoch, state.version, state.length

    def history(self, session_id: str, start: int, stop: int | None) -> Flow[list[Message]]:
        """See :meth:`Store.history <summem.stores.base.Store.history>`."""
        return self._step(lambda: self.store.history(session_id, start, stop))

    def append(self, session_id: str, messages: Sequence[Message]) -> Flow[int]:
        """See :meth:`Store.append <summem.stores.base.Store.append>`."""
        # every turn appends: the step is yielded here, without _step's generator and lambda
        length: int = yield self._call(self.store.append, session_id, messages)
        return length

    def append_step(self, session_id: str, messages: Sequence[Message]) -> Step:
        """:meth:`append`'s one step, for a flow to yield itself: one generator less a turn."""
        return self._call(self.store.append, session_id, messages)

    def append_probed(
        self, session_id: str, messages: Sequence[Message]
    ) -> Flow[tuple[int, tuple[str, int, int] | None]]:
        """Append; the new length, and ``(epoch, version, length)`` as of right after it.

        A :class:`~summem.stores.base.ProbingAppendStore` gives both in one call (one round
        trip). Any other store (a third-party one; Redis until its scripts return them) is
        only appended to, and the second value is ``None``: the caller probes (:meth:`probe`)
        when it needs to know, as it did before the capability.
        """
        prober = self._prober
        if prober is None:
            length: int = yield self._call(self.store.append, session_id, messages)
            return length, None
        found: tuple[str, int, int] | None = yield self._call(
            prober.append_probe, session_id, messages
        )
        return (0, None) if found is None else (found[2], found)

    def set_system(self, session_id: str, message: Message | None) -> Flow[None]:
        """See :meth:`Store.set_system <summem.stores.base.Store.set_system>`."""
        return self._step(lambda: self.store.set_system(session_id, message))

    def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
        keep_summaries: int | None = None,
    ) -> Flow[int]:
        """See :meth:`Store.commit <summem.stores.base.Store.commit>`.

        ``keep_summaries`` is passed on when set and the store takes it (a store written
        before the bounded summary log keeps every entry whole).
        """
        keep = {"keep_summaries": keep_summaries} if keep_summaries and self._keeps else {}
        return self._step(
            lambda: self.store.commit(
                session_id,
                summary=summary,
                watermark=watermark,
                expected_version=expected_version,
                expected_epoch=expected_epoch,
                **keep,
            )
        )

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
        return self._step(
            lambda: self.store.create(
                session_id, history=history, system=system, summary=summary, watermark=watermark
            )
        )

    def delete(self, session_id: str) -> Flow[bool]:
        """See :meth:`Store.delete <summem.stores.base.Store.delete>`."""
        return self._step(lambda: self.store.delete(session_id))

    def rollback(
        self, session_id: str, *, summary_id: str | None, expected_version: int, expected_epoch: str
    ) -> Flow[int]:
        """See :meth:`Store.rollback <summem.stores.base.Store.rollback>`."""
        return self._step(
            lambda: self.store.rollback(
                session_id,
                summary_id=summary_id,
                expected_version=expected_version,
                expected_epoch=expected_epoch,
            )
        )

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
    ) -> Flow[int]:
        """See :meth:`BranchingStore.rewrite <summem.stores.base.BranchingStore.rewrite>`."""
        brancher = self._branching()
        return self._step(
            lambda: brancher.rewrite(
                session_id,
                keep=keep,
                messages=messages,
                expected_version=expected_version,
                expected_epoch=expected_epoch,
                branch_id=branch_id,
                expected_length=expected_length,
            )
        )

    def branches(self, session_id: str) -> Flow[list[Branch]]:
        """See :meth:`BranchingStore.branches <summem.stores.base.BranchingStore.branches>`."""
        brancher = self._branching()
        return self._step(lambda: brancher.branches(session_id))

    def branch_messages(self, session_id: str, branch_id: str) -> Flow[list[Message]]:
        """See :meth:`BranchingStore.branch_messages`; only when ``branching``."""
        brancher = self._branching()
        return self._step(lambda: brancher.branch_messages(session_id, branch_id))

    def clear(self, session_id: str) -> Flow[None]:
        """See :meth:`Store.clear <summem.stores.base.Store.clear>`."""
        return self._step(lambda: self.store.clear(session_id))


class SyncStoreSteps(StoreSteps):
    """:class:`StoreSteps` over a sync store (run by :func:`~summem._flow.run_sync`)."""

    def __init__(self, store: Store) -> None:
        super().__init__(
            store,
            _SyncCall,
            searcher=store if isinstance(store, SearchableStore) else None,
            ledger=store if isinstance(store, SpendLedger) else None,
            brancher=store if isinstance(store, BranchingStore) else None,
            prober=store if isinstance(store, ProbingAppendStore) else None,
        )


class AsyncStoreSteps(StoreSteps):
    """:class:`StoreSteps` over an async store (run by :func:`~summem._flow.run_async`)."""

    def __init__(self, store: AsyncStore) -> None:
        super().__init__(
            store,
            _AsyncCall,
            searcher=store if isinstance(store, AsyncSearchableStore) else None,
            ledger=_async_ledger(store),
            brancher=_async_brancher(store),
            prober=_async_prober(store),
        )


def _detach(key: str, release: Coroutine[Any, Any, Any], pending: set[asyncio.Task[Any]]) -> None:
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop to run it on (a flow closed after its loop ended)
        release.close()
        _logger.warning("hold for %r not released in the store (it lapses): no event loop", key)
        return
    task = loop.create_task(release)
    pending.add(task)

    def finished(task: asyncio.Task[Any]) -> None:
        pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _logger.warning(
                "hold for %r not released in the store (it lapses): %s", key, task.exception()
            )

    task.add_done_callback(finished)


_HOLD_METHODS = ("reserve_spend", "settle_spend", "release_spend")


def check_spend_ledger(store: object) -> None:
    """Refuse a store with the spend ledger of before holds, for a memory with a spend limit.

    A store with ``record_spend`` and ``spent_since`` but not ``reserve_spend``,
    ``settle_spend`` and ``release_spend`` is no :class:`SpendLedger` any more: the memory
    would silently keep the budget in this process only, no longer shared on the store.

    Raises:
        ConfigurationError: naming the store and the methods it lacks.
    """
    stores = [store]
    if isinstance(store, AsyncStoreAdapter):  # a sync store's ledger, if it keeps one
        stores.append(getattr(store, "_store", None))
    for candidate in stores:
        if not all(callable(getattr(candidate, m, None)) for m in ("record_spend", "spent_since")):
            continue
        missing = [m for m in _HOLD_METHODS if not callable(getattr(candidate, m, None))]
        if missing:
            raise ConfigurationError(
                f"{type(candidate).__name__} keeps a spend ledger without holds: it lacks "
                f"{', '.join(missing)} (see summem.observe.ledger.SpendLedger); a spend limit "
                "on it would not be shared by the processes on the store"
            )
