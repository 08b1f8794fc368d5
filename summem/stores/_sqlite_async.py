"""The async twin of the SQLite store: the same code, run in worker threads.

:class:`AsyncSQLiteStore` is importable from :mod:`summem.stores.sqlite` (and
:mod:`summem.stores`), where it has always been; it lives here so that module holds the
store's operations only.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TypeVar

from summem.observe.ledger import Spent
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import SearchHit

if TYPE_CHECKING:
    from summem.stores.sqlite import SQLiteStore

__all__ = ["AsyncSQLiteStore"]

_AS = TypeVar("_AS", bound="AsyncSQLiteStore")


class AsyncSQLiteStore(AsyncStoreAdapter):
    """The async twin of :class:`~summem.stores.sqlite.SQLiteStore`, run in worker threads.

    Building one does no I/O, so it may be done on a running event loop: the file is opened
    (switched to WAL, migrated) in a worker thread by :meth:`open`, by ``async with``, or else
    by the first call. An unusable file therefore raises there, not in the constructor.

    Args:
        path: the database file (created if missing; its directory must exist), or a
            ``file:`` URI.
        timeout: seconds to wait for another writer (``busy_timeout``) before failing.
        read_only: as for :class:`~summem.stores.sqlite.SQLiteStore`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        timeout: float = 30.0,
        read_only: bool | None = None,
    ) -> None:
        from summem.stores.sqlite import SQLiteStore  # the sync store's module imports this one

        self._sqlite: SQLiteStore = SQLiteStore._unopened(
            path, timeout=timeout, read_only=read_only
        )
        super().__init__(self._sqlite, offload=True)

    @classmethod
    def from_url(cls, url: str) -> AsyncSQLiteStore:
        """Build from ``sqlite:///relative.db`` or ``sqlite:////absolute/path.db``."""
        from summem.stores.sqlite import SQLiteStore

        return SQLiteStore.async_from_url(url)

    @property
    def read_only(self) -> bool | None:
        """Whether the file is open read-only (``None`` until opened, unless it was asked)."""
        return self._sqlite.read_only

    async def open(self) -> None:
        """Open and migrate the file now, in a worker thread (then a no-op).

        Raises:
            StoreError: the file cannot be opened, stays locked, or has a newer schema.
        """
        await self._run(self._sqlite._file.open)

    async def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """See :meth:`summem.stores.sqlite.SQLiteStore.search`."""
        return await self._run(self._sqlite.search, session_id, query, k=k, stop=stop)

    async def position_of(self, session_id: str, message_id: str) -> int | None:
        """See :meth:`summem.stores.sqlite.SQLiteStore.position_of`."""
        return await self._run(self._sqlite.position_of, session_id, message_id)

    async def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`summem.stores.sqlite.SQLiteStore.record_spend`."""
        await self._run(
            self._sqlite.record_spend,
            key,
            at=at,
            tokens=tokens,
            cost_usd=cost_usd,
            prune_before=prune_before,
        )

    async def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`summem.stores.sqlite.SQLiteStore.spent_since`."""
        return await self._run(self._sqlite.spent_since, key, since)

    async def __aenter__(self: _AS) -> _AS:
        await self.open()
        return self

    def __repr__(self) -> str:
        return f"Async{self.sync_store!r}"
