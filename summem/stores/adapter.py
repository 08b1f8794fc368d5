"""Run a synchronous store behind the async interface, written once for every such backend.

Backends whose work is either trivial (in memory) or blocking I/O through a sync-only driver
(stdlib ``sqlite3``) do not need a second implementation: :class:`AsyncStoreAdapter` awaits the
sync store's methods, inline or in a worker thread (``asyncio.to_thread``), so the async twin
can never drift from the sync one. Third-party sync stores can be wrapped the same way.

Each call of the sync store is an operation (:class:`~summem.stores.common.direct.Call`) run by
the shared async shell (:class:`~summem.stores.common.shells.AsyncOpStore`), as the PostgreSQL
and Redis stores run theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import TracebackType
from typing import ParamSpec, Protocol, TypeVar, cast

from summem.errors import ConfigurationError
from summem.messages import Message
from summem.observe.ledger import Hold, Reserved, SpendLedger, Spent
from summem.stores.base import (
    Branch,
    BranchingStore,
    ListingStore,
    ProbingAppendStore,
    SessionInfo,
    SessionState,
    Store,
)
from summem.stores.common.direct import Call, Direct
from summem.stores.common.operations import (
    Commit,
    Create,
    Rewrite,
    Rollback,
    Settle,
    SpendEntry,
    StoreOp,
)
from summem.stores.common.shells import AsyncOpLedger, AsyncOpProbingAppend
from summem.stores.summary_log import takes_keep_summaries

__all__ = ["AsyncLedgerAdapter", "AsyncStoreAdapter", "LedgerStore"]

P = ParamSpec("P")
T = TypeVar("T")
_A = TypeVar("_A", bound="AsyncStoreAdapter")


class AsyncStoreAdapter(Direct, AsyncOpProbingAppend):
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
        if self._offload:
            import asyncio  # loaded by now (a coroutine is running); not at import: it is slow

            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    async def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`summem.stores.base.ListingStore.session_infos` (the wrapped store's).

        Raises:
            ConfigurationError: the wrapped store cannot list from an index.
        """
        store = self._store
        if not isinstance(store, ListingStore):
            raise ConfigurationError(
                f"{type(store).__name__} has no session_infos() (see "
                "summem.stores.base.ListingStore): list its sessions with list_sessions()"
            )
        return await self.run_sync(store.session_infos, limit=limit, after=after)

    def spend_ledger(self) -> AsyncLedgerAdapter | None:
        """The wrapped store's spend ledger, awaited as this adapter calls the store.

        ``None`` when the wrapped store keeps none.
        """
        if isinstance(self, AsyncLedgerAdapter):
            return self
        if isinstance(self._store, SpendLedger):
            return AsyncLedgerAdapter(cast(LedgerStore, self._store), offload=self._offload)
        return None

    async def _run(self, op: StoreOp[T]) -> T:
        return await self.run_sync(cast("Call[T]", op).fn)

    async def __aenter__(self: _A) -> _A:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """See :meth:`summem.stores.base.Store.close`."""
        await self.run_sync(self._store.close)

    def _load(self, session_id: str) -> SessionState:
        return self._store.load(session_id)

    def _exists(self, session_id: str) -> bool:
        return self._store.exists(session_id)

    @property
    def branching(self) -> bool:
        """The wrapped store can branch (:class:`~summem.stores.base.BranchingStore`)."""
        return isinstance(self._store, BranchingStore)

    def _brancher(self) -> BranchingStore:
        if not isinstance(self._store, BranchingStore):
            raise ConfigurationError(
                f"{type(self._store).__name__} cannot branch: it has no rewrite(), branches() "
                "and branch_messages() (see summem.stores.base.BranchingStore)"
            )
        return self._store

    def _probe(self, session_id: str) -> tuple[str, int, int] | None:
        return self._brancher().probe(session_id)

    def _history(self, session_id: str, start: int, stop: int | None) -> list[Message]:
        return self._store.history(session_id, start, stop)

    def _append(self, session_id: str, messages: Sequence[Message]) -> int:
        return self._store.append(session_id, messages)

    @property
    def append_probing(self) -> bool:
        """Whether the wrapped store appends and probes in one call (``append_probe``).

        See :class:`~summem.stores.base.ProbingAppendStore`; ``append_probe`` works only then.
        """
        return isinstance(self._store, ProbingAppendStore)

    def _append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> tuple[str, int, int] | None:
        if not isinstance(self._store, ProbingAppendStore):
            raise ConfigurationError(
                f"{type(self._store).__name__} has no append_probe() (see "
                "summem.stores.base.ProbingAppendStore): append, then probe"
            )
        return self._store.append_probe(session_id, messages)

    def _set_system(self, session_id: str, message: Message | None) -> None:
        self._store.set_system(session_id, message)

    def _commit(self, session_id: str, commit: Commit) -> int:
        args = commit._asdict()
        if args["keep_summaries"] is None or not takes_keep_summaries(self._store):
            del args["keep_summaries"]  # a store written before the bounded log
        return self._store.commit(session_id, **args)

    def _create(self, session_id: str, create: Create) -> None:
        self._store.create(session_id, **create._asdict())

    def _summaries(self, session_id: str) -> list[Message]:
        return self._store.summaries(session_id)

    def _rollback(self, session_id: str, rollback: Rollback) -> int:
        return self._store.rollback(session_id, **rollback._asdict())

    def _rewrite(self, session_id: str, rewrite: Rewrite) -> int:
        return self._brancher().rewrite(session_id, **rewrite._asdict())

    def _branches(self, session_id: str) -> list[Branch]:
        return self._brancher().branches(session_id)

    def _branch_messages(self, session_id: str, branch_id: str) -> list[Message]:
        return self._brancher().branch_messages(session_id, branch_id)

    def _clear(self, session_id: str) -> None:
        self._store.clear(session_id)

    def _delete(self, session_id: str) -> bool:
        return self._store.delete(session_id)

    def _list(self) -> list[str]:
        return self._store.list_sessions()

    def _acquire(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        return self._store.acquire_lease(session_id, owner, ttl_seconds)

    def _release(self, session_id: str, owner: str) -> None:
        self._store.release_lease(session_id, owner)


class LedgerStore(Store, SpendLedger, Protocol):
    """A sync store that also keeps a spend ledger (the SQLite and in-memory stores)."""


class AsyncLedgerAdapter(AsyncStoreAdapter, AsyncOpLedger):
    """An :class:`AsyncStoreAdapter` that also awaits the wrapped store's spend ledger."""

    def __init__(self, store: LedgerStore, *, offload: bool = True) -> None:
        super().__init__(store, offload=offload)
        self._ledger = store

    def _record_spend(self, key: str, spend: SpendEntry) -> None:
        self._ledger.record_spend(key, **spend._asdict())

    def _spent_since(self, key: str, since: float | None) -> Spent:
        return self._ledger.spent_since(key, since)

    def _reserve_spend(self, key: str, hold: Hold) -> Reserved:
        return self._ledger.reserve_spend(key, hold)

    def _settle_spend(self, key: str, settle: Settle) -> None:
        self._ledger.settle_spend(key, **settle._asdict())

    def _release_spend(self, key: str, hold_id: str) -> None:
        self._ledger.release_spend(key, hold_id)
