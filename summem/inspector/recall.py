"""The session page's search box: recall over the full history, read-only.

A store that searches itself (:class:`~summem.stores.base.SearchableStore`: SQLite's FTS5,
PostgreSQL's ``tsvector``) is asked; a read-only SQLite file whose index is behind is searched
through a private in-memory index, never written. PostgreSQL brings its index up to date
before searching, a write its read-only transactions refuse: it is then searched like the
stores without a search of their own. Those (Redis) are searched with an
in-process :class:`~summem.recall.index.RecallIndex`, kept per session while its epoch and
length say it is current and extended with what was appended since.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from summem.errors import StoreError
from summem.messages import Message
from summem.recall.index import RecallIndex
from summem.stores.base import BranchingStore, SearchableStore, Store

__all__ = ["RECALL_HITS", "Recall"]

RECALL_HITS = 20
"""Results a search shows."""
_KEPT_INDEXES = 4
_WINDOW = 1000


class Recall:
    """Searches sessions of one store (one instance per inspector app)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._indexes: OrderedDict[str, RecallIndex] = OrderedDict()
        self._lock = threading.Lock()
        self._own_index = False

    def search(
        self, session_id: str, query: str, *, k: int = RECALL_HITS
    ) -> list[tuple[int, Message, float]]:
        """``(position, message, score)`` of the best matches, best first."""
        if isinstance(self.store, SearchableStore) and not self._own_index:
            try:
                hits = self.store.search(session_id, query, k=k)
            except StoreError as exc:
                if "read-only transaction" not in str(exc):
                    raise
                self._own_index = True  # it must index first, a write: search in process
            else:
                return [(h.position, h.message, h.score) for h in hits]
        with self._lock:
            index = self._index(session_id)
            return [(h.position, h.message, h.score) for h in index.search(query, k=k)]

    def _index(self, session_id: str) -> RecallIndex:
        probed = self.store.probe(session_id) if isinstance(self.store, BranchingStore) else None
        if probed is not None:  # a rewrite bumps the version: an index of it is stale
            epoch, length = f"{probed[0]}:{probed[1]}", probed[2]
        else:
            state = self.store.load(session_id)
            epoch, length = f"{state.epoch}:{state.version}", state.length
        index = self._indexes.pop(session_id, None)
        if index is None or index.epoch != epoch or index.length > length:
            index = RecallIndex()
            index.reset(epoch)
        while index.length < length:
            index.extend(self.store.history(session_id, index.length, index.length + _WINDOW))
        self._indexes[session_id] = index
        while len(self._indexes) > _KEPT_INDEXES:
            self._indexes.popitem(last=False)
        return index
