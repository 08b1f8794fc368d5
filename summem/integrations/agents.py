"""The OpenAI Agents SDK's ``Session``, backed by summem: a bounded, summarized history.

    session = SummemSession("user-42", store="sqlite:///sessions.db")
    result = await Runner.run(agent, "Where was I?", session=session)

The SDK reads the session before each run (``get_items``) and saves each turn's input and
output items after it (``add_items``). Here the items go into an
:class:`~summem.async_memory.AsyncMemory`, each kept as given (see
:mod:`summem.formats.responses`), and ``get_items`` gives back its **view**: the rolling summary
of what was evicted, then the recent items, within the reducer's budget. A function call is
never separated from its output, a call whose output has not arrived is never evicted, and
reasoning items stay with what they led to; the full history stays in the store
(``await session.memory.history()``).

Like the SDK's own sessions, the session keeps whatever it is given, in order:
``system`` / ``developer`` items are ordinary history where they arrived (never moved to the
front, never replaced by a later one); an output whose call it never saw is kept as a standalone
item; an item summem cannot read (``EncryptedSession``'s, a provider's new kind) is kept opaque
and sent back unchanged.

``pop_item`` and ``clear_session`` never delete anything: they **branch** the session
(:meth:`~summem.async_memory.AsyncMemory.branch`): the removed items are kept as an abandoned
branch (``await session.memory.branches()``), never sent to the model again, and a summary
that covered a popped item is rolled back by the store in the same atomic write. Every read
checks the store's version first (one cheap read), so two ``SummemSession`` objects on one
store id see each other's writes, pops and clears.

The SDK's protocol is structural: nothing here imports ``agents``, so the class is usable (and
testable) wherever summem is installed; ``pip install "summem[agents]"`` brings the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from summem.async_memory import AsyncMemory
from summem.errors import (
    ConfigurationError,
    ConflictError,
    MessageValidationError,
    ReductionError,
    SessionClosedError,
    SessionNotFoundError,
)
from summem.formats.compaction import openai_compaction_message
from summem.formats.responses import (
    ITEM_META,
    item_dict,
    standalone_message,
    to_items,
    to_messages,
)

if TYPE_CHECKING:
    from summem.messages import Message
    from summem.reducers.base import Reducer
    from summem.stores.base import AsyncStore, Store

__all__ = ["SummemSession"]

T = TypeVar("T")

logger = logging.getLogger(__name__)

_BRANCH_ATTEMPTS = 64
"""Pops and clears tried while other writers keep changing the session (each reads again,
after a jittered back-off that grows up to ~30 ms)."""

_UNPAIRED = ("tool_call_id", "tool_calls")
"""The fields a pairing error names: an output answering no pending call, a call id pending."""


def _legacy_backup_id(session_id: str) -> str:
    """Where ``pop_item`` of summem 0.x kept a whole copy while it rewrote the session."""
    digest = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:32]
    return f"summem-pop-backup:{digest}"


def _coerce_settings(settings: Any) -> Any:
    """The SDK's ``SessionSettings`` when it is installed: a dict as one, ``None`` as the default.

    The SDK's own sessions default to ``SessionSettings()`` (the runner calls ``resolve``).
    """
    if settings is not None and not isinstance(settings, Mapping):
        return settings
    try:
        from agents.memory.session_settings import SessionSettings, coerce_session_settings
    except ImportError:  # no SDK: nothing will call resolve(); the dict's limit still applies
        return settings
    if settings is None:
        return SessionSettings()
    return coerce_session_settings(dict(settings))


class SummemSession:
    """An Agents SDK session over a summem memory.

    ``get_items(limit)`` returns the **view**, what the model is sent (the SDK's runner sends
    what it gets): the summary of the evicted items, then the recent ones; ``limit`` counts
    back from the view's end. The full history is ``await session.memory.history()`` (chat
    form) or ``await session.memory.history_messages()`` (each message's ``meta`` holds its
    item); items popped or cleared are in ``await session.memory.branches()``.

    ``close()`` is a coroutine: ``await session.close()``. Called from synchronous code with
    no event loop running (``session.close()`` at the end of a script, or
    ``asyncio.run(session.close())``), it closes at once; called from synchronous code while
    this thread's loop runs, it raises, saying to await it.

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
        self._legacy_checked = False
        self._no_probe = False

    def _default_limit(self) -> int | None:
        settings = self.session_settings
        limit = settings.get("limit") if isinstance(settings, Mapping) else None
        if settings is not None and not isinstance(settings, Mapping):
            limit = getattr(settings, "limit", None)
        return limit if isinstance(limit, int) else None

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The view as Responses input items; ``limit``: only the latest ``limit`` of them.

        A negative ``limit`` (like ``None``) gives them all, ``0`` none, as the SDK's sessions.
        What another ``SummemSession`` (or process) wrote, popped or cleared is seen: the
        store's version is checked first, and the view read again only when it changed.
        """
        await self._guarded(self._read)
        if limit is None:
            limit = self._default_limit()
        items = await self.memory.items()
        if limit is None or limit < 0:
            return items
        return items[max(len(items) - limit, 0) :] if limit else []

    async def add_items(self, items: list[Any]) -> None:
        """Store new items, in order, validated whole (one bad item stores none); may reduce.

        Anything that is a JSON mapping is accepted (as the SDK's sessions accept it): what
        summem cannot read is kept opaque, an output whose call is unknown stands alone.

        A reduction that fails once the items are stored (the summarizer down, its reply
        rejected) does not fail the call: the items are in the session, and raising would
        abort the SDK's run and make its natural retry store them twice. The view stays
        unreduced, the failure is logged and kept in ``session.memory.last_error``, and a
        later turn tries again (after the reducer's back-off).

        Raises:
            SessionClosedError: the session is closed (also for an empty list); it is a
                ``StoreError`` and a ``RuntimeError``, as ``SQLiteSession`` raises.
            StoreError: a write failed.
            MessageValidationError: an item that is not a JSON mapping (then none is stored);
                a value JSON cannot hold raises its :class:`~summem.errors.MessageTypeError`,
                also a ``TypeError`` (as ``json.dumps`` in ``SQLiteSession``).
        """
        messages = to_messages(items, system="in_place", unknown="opaque")

        async def store() -> None:
            await self._legacy()
            with contextlib.suppress(ReductionError):  # stored; logged, kept as last_error
                await self._extend(messages)

        await self._guarded(store)

    async def _extend(self, messages: list[Message]) -> None:
        """Extend; a call or output that does not pair (see :data:`_UNPAIRED`) stands alone."""
        while True:
            try:
                await self.memory.extend(messages)
                return
            except MessageValidationError as exc:
                index = exc.index
                if exc.field not in _UNPAIRED or index is None or not 0 <= index < len(messages):
                    raise
                item = messages[index].meta.get(ITEM_META)
                if not isinstance(item, dict):
                    raise
                messages = [*messages]
                messages[index] = standalone_message(item)

    async def _atomic_replace_items(self, output_items: list[Any]) -> bool:
        """The Agents SDK's compaction: OpenAI's window replaces the items, history is kept.

        ``OpenAIResponsesCompactionSession`` around this session calls it (instead of
        ``clear_session`` then ``add_items``) with what ``/responses/compact`` returned: the
        user messages, then one ``compaction`` item. summem clears nothing: the item is added
        to the history with that window (:data:`~summem.formats.compaction.COMPACTION_WINDOW`),
        so :meth:`get_items` gives exactly ``output_items`` (the items before it are a natural
        cut, see :mod:`summem.formats.compaction`), the items it stands for stay in the store,
        and a reduction writes their readable twin.

        Raises:
            MessageValidationError: ``output_items`` does not end with one compaction item
                (nothing is stored).
        """
        items = [item_dict(i, index=n) for n, i in enumerate(output_items)]
        kinds = [i.get("type") for i in items]
        if not items or kinds[-1] != "compaction" or kinds.count("compaction") != 1:
            raise MessageValidationError(
                f"a compaction's output must end with one compaction item, got {kinds}"
            )
        to_messages(items[-1:])  # the item's own checks (its encrypted_content...)
        message = openai_compaction_message(items[-1], items[:-1])

        async def store() -> None:
            await self._legacy()
            with contextlib.suppress(ReductionError):  # stored; logged, kept as last_error
                await self._extend([message])

        await self._guarded(store)
        return True

    async def pop_item(self) -> Any:
        """Remove the most recent item and return it (``None``: the session is empty).

        The item is not deleted: it is kept as an abandoned branch of one item
        (``await session.memory.branches()``). If a summary covered it, the store rolls the
        view back to the latest summary that does not, in the same atomic write.
        """

        async def pop() -> Any:
            if not self.memory._core.length:
                return None
            popped = await self.memory.pop()
            return to_items(popped)[-1] if popped else None

        return await self._guarded(lambda: self._branching(pop))

    async def clear_session(self) -> None:
        """Empty the session; its items are kept as an abandoned branch, never sent again.

        A head system message (set on ``session.memory`` directly, or by an older summem) is
        removed too: the session then holds nothing, as the SDK's sessions do after a clear.
        """

        async def clear() -> None:
            memory = self.memory
            await memory.branch(0)
            if memory.system is not None:
                await memory.store.set_system(self.session_id, None)
                await memory.refresh()

        await self._guarded(lambda: self._branching(clear))

    async def _branching(self, operation: Callable[[], Awaitable[T]]) -> T:
        """Run a pop or clear on a fresh copy, again while other writers keep changing it.

        The branch is a compare-and-set on the version and the length, so a write that
        landed since the copy was read makes it fail (:class:`ConflictError`; or a pop
        finding the history shorter): the copy is read again and the operation retried.
        """
        await self._legacy()
        core = self.memory._core
        for attempt in range(1, _BRANCH_ATTEMPTS + 1):
            await self._fresh()
            seen = (core.epoch, core.version, core.length)
            try:
                return await operation()
            except (ConflictError, ConfigurationError) as exc:
                # a ConfigurationError is a race only if the session changed meanwhile (a
                # pop finding it shorter); otherwise (a store that cannot branch) it stands
                if isinstance(exc, ConfigurationError) and not await self._changed(seen):
                    raise
                core.stale = True
                if attempt == _BRANCH_ATTEMPTS:
                    raise
                # back off (jittered, growing) so that busy writers leave a gap
                await asyncio.sleep(random.uniform(0, 0.0005 * 2 ** min(attempt, 6)))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _probe(self) -> tuple[str, int, int] | bool | None:
        """The store's ``probe`` of the session; ``False`` when the store has none."""
        if self._no_probe:
            return False
        probe: Callable[[str], Awaitable[Any]] | None = getattr(self.memory.store, "probe", None)
        if probe is None:
            self._no_probe = True
            return False
        try:
            seen = await probe(self.session_id)
        except ConfigurationError:  # a store from before branches (behind the adapter)
            self._no_probe = True
            return False
        return None if seen is None else (str(seen[0]), int(seen[1]), int(seen[2]))

    async def _changed(self, seen: tuple[str, int, int]) -> bool:
        now = await self._probe()
        if now is False:  # no cheap probe: the whole state says it
            try:
                state = await self.memory.store.load(self.session_id)
            except SessionNotFoundError:
                return seen != ("", 0, 0)
            now = (state.epoch, state.version, state.length)
        return (now or ("", 0, 0)) != seen

    async def _read(self) -> None:
        await self._legacy()
        await self._fresh()

    async def _fresh(self) -> None:
        """Read the session again if the store holds another version of it than the copy.

        One cheap read (the store's ``probe``: epoch, version, length) when nothing changed;
        a store without ``probe`` is read whole (its view).
        """
        memory = self.memory
        core = memory._core
        seen = False if core.stale else await self._probe()
        mine = (core.epoch, core.version, core.length) if core.epoch else None
        if seen is False or seen != mine:
            await memory.refresh()

    async def _legacy(self) -> None:
        """Once: finish or clean up a pop that summem 0.x left half done (its backup copy).

        summem 0.x popped by copying the session to a backup id, deleting and re-creating it;
        a crash in between left the backup behind. If the session is missing, it is restored
        from the backup; the backup is then removed.
        """
        if self._legacy_checked:
            return
        memory = self.memory
        memory._check_open()
        store, backup = memory.store, _legacy_backup_id(self.session_id)
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
                    "session %r: restored from the backup an older summem's pop_item left",
                    self.session_id,
                )
            await store.delete(backup)
            await memory.refresh()
        self._legacy_checked = True

    async def _guarded(self, operation: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``operation``; if it is cancelled, the copy is read again before it is trusted.

        A cancelled write may still land (a store call already sent, a worker thread still
        running): the next call reads the session instead of serving a stale view. A closed
        memory's refusal names the session class, as ``SQLiteSession`` says it is closed.
        """
        try:
            return await operation()
        except asyncio.CancelledError:
            self.memory._core.stale = True
            raise
        except SessionClosedError as exc:
            raise SessionClosedError(
                f"{type(self).__name__} is closed (session {self.session_id!r}): {exc}"
            ) from exc

    def close(self) -> Coroutine[Any, Any, None]:
        """Close the memory (and the store, if the memory opened it): ``await session.close()``.

        With no event loop running in this thread (a script's last line, synchronous code),
        the session is closed at once and an already-finished awaitable is returned, so
        ``session.close()`` and ``asyncio.run(session.close())`` both work. With a running
        loop, the close is the returned coroutine: await it (directly, or after passing it
        through a synchronous helper); left unawaited, Python warns that it never ran, as
        for any coroutine.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.memory.close())
            return _Done()
        return self.memory.close()

    def __repr__(self) -> str:
        return f"SummemSession({self.session_id!r})"


class _Done(Coroutine[Any, Any, None]):
    """A coroutine that is already finished: what ``close()`` returns once it has closed.

    A real coroutine never awaited would warn; this one may be awaited (or run by
    ``asyncio.run``) or dropped.
    """

    def send(self, value: Any) -> Any:
        raise StopIteration(None)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        raise typ if val is None else val

    def close(self) -> None:
        return None

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # pragma: no cover - makes this a generator
