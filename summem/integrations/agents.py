"""The OpenAI Agents SDK's ``Session``, backed by summem: a bounded, summarized history.

    session = SummemSession("user-42", store="sqlite:///sessions.db")
    result = await Runner.run(agent, "Where was I?", session=session)

The SDK reads the session before each run (``get_items``) and saves each turn's input and
output items after it (``add_items``). Here the items go into an
:class:`~summem.async_memory.AsyncMemory` (``add_items``: kept as given, see
:mod:`summem.formats.responses`) and ``get_items`` gives back its **view**: the rolling summary of
what was evicted, then the recent items, within the reducer's budget. A function call is never
separated from its output, a call whose output has not arrived is never evicted, and reasoning
items stay with what they led to; the full history stays in the store
(``session.memory.history()``).

The SDK's protocol is structural: nothing here imports ``agents``, so the class is usable (and
testable) wherever summem is installed; ``pip install "summem[agents]"`` brings the SDK.

``pop_item`` removes the last item from history itself, which summem otherwise never does: the
session is read, deleted and created again without it (O(history), and not atomic: a crash
between the delete and the create loses the session). The SDK calls it to rewind the items of a
turn it retries; it cannot pop a message the summary already covers.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from summem.async_memory import AsyncMemory
from summem.errors import ConfigurationError, ReductionError, StoreError
from summem.formats.responses import to_items

if TYPE_CHECKING:
    from summem.reducers.base import Reducer
    from summem.stores.base import AsyncStore, Store

__all__ = ["SummemSession"]

logger = logging.getLogger(__name__)


def _backup_id(session_id: str) -> str:
    """Where :meth:`SummemSession.pop_item` keeps a whole copy while it rewrites the session."""
    digest = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:32]
    return f"summem-pop-backup:{digest}"


def _coerce_settings(settings: Any) -> Any:
    """A dict as the SDK's ``SessionSettings`` when it is installed (the runner calls resolve)."""
    if not isinstance(settings, Mapping):
        return settings
    try:
        from agents.memory.session_settings import coerce_session_settings
    except ImportError:  # no SDK: nothing will call resolve(); the dict's limit still applies
        return settings
    return coerce_session_settings(dict(settings))


class SummemSession:
    """An Agents SDK session over a summem memory.

    Args:
        session_id: the session's id (validated by summem).
        memory: an :class:`AsyncMemory` to use (its ``session_id`` must match); otherwise one
            is made from ``reducer`` and ``store`` (as ``AsyncMemory`` takes them).
        session_settings: the SDK's ``SessionSettings`` (a dict is turned into one, checked by
            the SDK); its ``limit`` is the default for ``get_items``.
    """

    def __init__(
        self,
        session_id: str,
        *,
        memory: AsyncMemory | None = None,
        reducer: Reducer | None = None,
        store: AsyncStore | Store | str | None = None,
        session_settings: Any = None,
    ) -> None:
        if memory is not None:
            if reducer is not None or store is not None:
                raise ConfigurationError("pass either memory= or reducer=/store=, not both")
            if not isinstance(memory, AsyncMemory):
                raise ConfigurationError(
                    f"SummemSession needs an AsyncMemory (the SDK is async), got {memory!r}"
                )
            if memory.session_id != session_id:
                raise ConfigurationError(
                    f"memory is for session {memory.session_id!r}, not {session_id!r}"
                )
        self.memory = memory or AsyncMemory(session_id, reducer=reducer, store=store)
        self.session_id = self.memory.session_id
        self.session_settings = _coerce_settings(session_settings)
        self._settled = False

    def _default_limit(self) -> int | None:
        settings = self.session_settings
        limit = settings.get("limit") if isinstance(settings, Mapping) else None
        if settings is not None and not isinstance(settings, Mapping):
            limit = getattr(settings, "limit", None)
        return limit if isinstance(limit, int) else None

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The view as Responses input items; ``limit``: only the latest ``limit`` of them.

        A negative ``limit`` (like ``None``) gives them all, ``0`` none, as the SDK's sessions.
        """
        await self._settle()
        if limit is None:
            limit = self._default_limit()
        items = await self.memory.items()
        if limit is None or limit < 0:
            return items
        return items[max(len(items) - limit, 0) :] if limit else []

    async def add_items(self, items: list[Any]) -> None:
        """Store new items (validated whole: one bad item stores none); may reduce the view.

        A reduction that fails once the items are stored (the summarizer down, its reply
        rejected) does not fail the call: the items are in the session, and raising would
        abort the SDK's run and make its natural retry store them twice. The view stays
        unreduced, the failure is logged and kept in ``session.memory.last_error``, and a
        later turn tries again (after the reducer's back-off).

        Raises:
            StoreError: the session is closed (also for an empty list), or a write failed.
            MessageValidationError: an item summem cannot store (then none is stored).
        """
        await self._settle()
        with contextlib.suppress(ReductionError):  # stored; logged, kept as last_error
            await self.memory.add_items(items)

    async def pop_item(self) -> Any:
        """Remove the most recent item from the history and return it (``None``: empty).

        A store keeps a history append-only, so the session is rewritten without its last
        item: a whole copy is saved under a backup id first, then the session is replaced
        (each write whole or not at all), then the backup goes. A crash in between loses
        nothing: the next ``SummemSession`` on the store finds the backup and restores the
        session from it when the session itself is missing.

        Raises:
            StoreError: the last item is covered by the summary (cannot be popped).
        """
        await self._settle()
        memory = self.memory
        await memory.wait()
        data = await memory.to_dict()
        history = data["history"]
        if not history:
            return None
        if data["watermark"] >= len(history):
            raise StoreError(
                f"the last item of session {self.session_id!r} is covered by the summary"
            )
        last = (await memory.history_messages(len(history) - 1))[-1]
        store, backup = memory.store, _backup_id(self.session_id)
        saved = await AsyncMemory.from_dict(
            {**data, "session_id": backup}, reducer=memory.reducer, store=store
        )
        await saved.close()
        await store.delete(self.session_id)
        copy = await AsyncMemory.from_dict(
            {**data, "history": history[:-1]}, reducer=memory.reducer, store=store
        )
        await copy.close()
        await store.delete(backup)
        await memory.refresh()
        return to_items([last])[-1]

    async def _settle(self) -> None:
        """Finish a pop an earlier process left half done (see :meth:`pop_item`)."""
        if self._settled:
            return
        memory = self.memory
        store, backup = memory.store, _backup_id(self.session_id)
        if await store.exists(backup):
            if not await store.exists(self.session_id):
                saved = AsyncMemory(backup, reducer=memory.reducer, store=store)
                try:
                    data = await saved.to_dict()
                finally:
                    await saved.close()
                restored = await AsyncMemory.from_dict(
                    {**data, "session_id": self.session_id}, reducer=memory.reducer, store=store
                )
                await restored.close()
                logger.warning(
                    "session %r: restored from the backup a pop_item interrupted",
                    self.session_id,
                )
            await store.delete(backup)
            await memory.refresh()
        self._settled = True

    async def clear_session(self) -> None:
        """Empty the session (history, summary and system message)."""
        await self._settle()
        await self.memory.clear()

    async def close(self) -> None:
        """Close the memory (and the store, if the memory opened it)."""
        await self.memory.close()

    def __repr__(self) -> str:
        return f"SummemSession({self.session_id!r})"
