"""``AsyncMemory``: :class:`~summem.memory.Memory` for asyncio, over an async store.

The same flows as ``Memory`` (see :mod:`summem.session.flows`), driven with
:func:`~summem._flow.run_async`; background reductions run as an asyncio task instead of a
thread, and cancelling a task never leaves a lease held or a partial reduction committed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from summem._flow import run_async
from summem._locks import LoopSafeLock
from summem.errors import ConfigurationError, LeaseHeldError, ReductionError, SummemError
from summem.messages import Message, MessageLike
from summem.observe.hooks import Hook, lease_held
from summem.observe.spend import SpendLimit
from summem.reducers.base import Reducer, ReduceResult
from summem.reducers.style import ViewStyle
from summem.session.core import Trigger
from summem.session.facade import BaseMemory, is_async_store
from summem.session.flows import (
    extend_flow,
    failure_event,
    record_flow,
    reduction_flow,
    reload_flow,
)
from summem.session.rebuild import clear_flow, recompute_flow, rollback_flow
from summem.session.steps import AsyncStoreSteps
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import AsyncStore, Store
from summem.stores.memory import AsyncInMemoryStore, InMemoryStore
from summem.summarizers.base import Summarizer

if TYPE_CHECKING:
    from summem.formats.responses import ResponseItem
    from summem.recall.index import RecallHit
    from summem.recall.tool import RecallTool
    from summem.session.recorded import Mode

__all__ = ["AsyncMemory"]


class AsyncMemory(BaseMemory):
    """A session's memory over an async store: :class:`Memory` with awaited methods.

    Takes the same arguments; ``store`` may be an :class:`~summem.stores.base.AsyncStore`, a
    sync ``Store`` (run in worker threads, in-memory ones inline) or a URL for
    :func:`summem.stores.open_async_store`; by default a new ``AsyncInMemoryStore``. Background
    reductions run as an asyncio task; ``hooks`` may be ``async def`` (awaited). The session
    is read on first use, so ``summary`` and ``system`` are ``None`` until then
    (``await memory.refresh()`` reads it explicitly).
    """

    def __init__(
        self,
        session_id: str,
        *,
        reducer: Reducer | None = None,
        store: AsyncStore | Store | str | None = None,
        background: bool | None = None,
        lease_ttl_seconds: float = 120.0,
        style: ViewStyle | None = None,
        hooks: Sequence[Hook] = (),
        spend_limit: SpendLimit | None = None,
    ) -> None:
        super().__init__(
            session_id,
            reducer,
            background,
            lease_ttl_seconds,
            style,
            hooks=hooks,
            spend_limit=spend_limit,
            allow_async_hooks=True,
        )
        self._owns_store = store is None or isinstance(store, str)
        if store is None:
            self._store: AsyncStore = AsyncInMemoryStore()
        elif isinstance(store, str):
            from summem.stores import open_async_store

            self._store = open_async_store(store)
        elif is_async_store(store):
            self._store = store  # type: ignore[assignment]  # checked by is_async_store
        elif isinstance(store, Store):
            self._store = AsyncStoreAdapter(store, offload=not isinstance(store, InMemoryStore))
        else:
            raise ConfigurationError(f"AsyncMemory needs a Store or an AsyncStore: {store!r}")
        self._steps = AsyncStoreSteps(self._store)
        # not asyncio.Lock: one memory may be shared by threads that each run their own loop
        self._write = LoopSafeLock()
        self._reducing = LoopSafeLock()
        self._recall_lock = LoopSafeLock()
        self._task: asyncio.Task[None] | None = None

    @property
    def store(self) -> AsyncStore:
        """The store holding the session."""
        return self._store

    async def add(self, message: MessageLike) -> Message:
        """See :meth:`Memory.add`."""
        return (await self._write_batch(message, single=True))[0]

    async def extend(self, messages: Iterable[MessageLike]) -> list[Message]:
        """See :meth:`Memory.extend`."""
        return await self._write_batch(messages, single=False)

    async def add_items(self, items: Iterable[ResponseItem] | str) -> list[Message]:
        """See :meth:`Memory.add_items`."""
        from summem.formats.responses import to_messages  # on first use: light imports

        return await self.extend(to_messages(items))

    async def record(
        self, messages: Iterable[MessageLike], *, mode: Mode = "auto"
    ) -> list[Message]:
        """See :meth:`Memory.record`."""
        items = self._record_items(messages, mode)
        async with self._write:
            self._check_open()
            flow = record_flow(self._core, self._steps, self._recorded, items, mode=mode)
            accepted = await run_async(flow)
        await self._after_write()
        return accepted

    async def _write_batch(self, items: Any, *, single: bool) -> list[Message]:
        async with self._write:
            self._check_open()
            accepted = await run_async(extend_flow(self._core, self._steps, items, single=single))
        await self._after_write()
        return accepted

    async def _after_write(self) -> None:
        task = self._task
        busy = task is not None and not task.done()
        action, skipped = self._core.decide(in_flight=busy)
        if skipped is not None:
            await self._hooks.adeliver(skipped)
        if action == "soft":
            self._task = asyncio.get_running_loop().create_task(self._work())
        elif action == "hard":
            # a task of another thread's loop cannot be awaited here: the hard reduction
            # below queues behind it on the reduction lock instead
            if busy and task is not None and task.get_loop() is asyncio.get_running_loop():
                await asyncio.wait({task})  # never cancels the shared task
                self._raise_background_error()
                action, skipped = self._core.decide(in_flight=False)
                if skipped is not None:
                    await self._hooks.adeliver(skipped)
                if action == "soft":  # the reduction landed under the hard limit
                    self._task = asyncio.get_running_loop().create_task(self._work())
                if action != "hard":
                    return
            await self._reduce("hard")

    async def _work(self) -> None:
        try:
            await self._reduce("soft", background=True)
        except Exception as exc:  # the task has nobody to raise to: recorded for wait()
            err = exc if isinstance(exc, SummemError) else ReductionError(str(exc))
            self._core.failed(err, background=True)
            await self._hooks.adeliver(failure_event(self._core, err, "soft", True, False, 0.0))

    async def _take_lease(self) -> bool:
        """Acquire the reduction lease; if cancelled meanwhile, give it back, then stay cancelled.

        The store may grant the lease after the caller stopped waiting (a worker thread still
        running, a command already sent): the answer is awaited and the lease released, so a
        cancellation never leaves it held until its TTL runs out.
        """
        acquire = asyncio.ensure_future(
            self._store.acquire_lease(self.session_id, self._owner, self._lease_ttl)
        )
        try:
            return await asyncio.shield(acquire)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                if await acquire:
                    await self._give_lease_back()
            raise

    async def _give_lease_back(self) -> None:
        # shielded: a cancellation arriving now must not stop the release half way
        await asyncio.shield(self._store.release_lease(self.session_id, self._owner))

    async def _reduce(self, trigger: Trigger, *, background: bool = False) -> ReduceResult | None:
        sid = self.session_id
        async with self._reducing:
            if not await self._take_lease():
                await self._hooks.adeliver(lease_held(sid, trigger))
                if trigger == "explicit":
                    raise LeaseHeldError(f"session {sid!r} is being reduced elsewhere")
                self._core.lease_busy()
                return None
            try:
                flow = reduction_flow(self._core, self._steps, trigger, background=background)
                return await run_async(flow)
            except asyncio.CancelledError:
                self._core.stale = True  # a store call may have landed after all: read again
                raise
            finally:
                await self._give_lease_back()

    async def reduce(self) -> ReduceResult | None:
        """See :meth:`Memory.reduce`."""
        self._check_open()
        return await self._reduce("explicit")

    async def clear(self) -> None:
        """See :meth:`Memory.clear`."""
        async with self._write:
            self._check_open()
            await run_async(clear_flow(self._core, self._steps))

    async def recompute(self, *, summarizer: Summarizer | None = None) -> Message | None:
        """See :meth:`Memory.recompute`."""
        self._check_open()
        reducer = self._recompute_reducer(summarizer)
        async with self._reducing:
            if not await self._take_lease():
                raise LeaseHeldError(f"session {self.session_id!r} is being reduced elsewhere")
            try:
                return await run_async(recompute_flow(self._core, self._steps, reducer))
            except asyncio.CancelledError:
                self._core.stale = True  # the commit may have landed after all: read again
                raise
            finally:
                await self._give_lease_back()

    async def rollback(self, summary_id: str | None) -> None:
        """See :meth:`Memory.rollback`."""
        self._check_open()
        async with self._reducing, self._write:
            await run_async(rollback_flow(self._core, self._steps, summary_id))

    async def refresh(self) -> None:
        """See :meth:`Memory.refresh`."""
        async with self._write:
            self._check_open()
            self._core.stale = True
            await run_async(reload_flow(self._core, self._steps))

    async def messages(self, *, style: ViewStyle | None = None) -> list[dict[str, Any]]:
        """See :meth:`Memory.messages`."""
        await self._ensure_fresh()
        return self._render(style)

    async def view(self) -> list[Message]:
        """See :meth:`Memory.view`."""
        await self._ensure_fresh()
        return self._core.view()

    async def items(self) -> list[dict[str, Any]]:
        """See :meth:`Memory.items`."""
        from summem.formats.responses import to_items

        return to_items(await self.view())

    async def _ensure_fresh(self) -> None:
        self._check_open()
        if self._core.stale:
            async with self._write:
                await run_async(reload_flow(self._core, self._steps))

    async def history(self, start: int = 0, stop: int | None = None) -> list[dict[str, Any]]:
        """See :meth:`Memory.history`."""
        return [m.to_openai() for m in await self.history_messages(start, stop)]

    async def history_messages(self, start: int = 0, stop: int | None = None) -> list[Message]:
        """See :meth:`Memory.history_messages`."""
        self._check_open()
        return await self._store.history(self.session_id, start, stop)

    async def recall(
        self,
        query: str | None = None,
        *,
        id: str | None = None,
        k: int = 5,
        evicted_only: bool = True,
        max_tokens: int = 2000,
    ) -> list[RecallHit]:
        """See :meth:`Memory.recall`."""
        from summem.session.recall import recall_flow  # on first use: keeps imports light

        args = self._recall_args(query, id, k, max_tokens)
        async with self._recall_lock:
            self._check_open()
            flow = recall_flow(
                self._core, self._steps, self._recall_index, evicted_only=evicted_only, **args
            )
            return await run_async(flow)

    def recall_tool(self, *, k: int = 5, max_tokens: int = 2000) -> RecallTool:
        """See :meth:`Memory.recall_tool` (answer calls with ``await tool.acall(arguments)``)."""
        from summem.recall.tool import RecallTool

        return RecallTool(self, k=k, max_tokens=max_tokens)

    async def summaries(self) -> list[Message]:
        """See :meth:`Memory.summaries`."""
        self._check_open()
        return await self._store.summaries(self.session_id)

    async def to_dict(self) -> dict[str, Any]:
        """See :meth:`Memory.to_dict`."""
        self._check_open()
        from summem.session.export import export_flow

        return await run_async(export_flow(self._core, self._steps, self._config()))

    @classmethod
    async def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        reducer: Reducer | None = None,
        store: AsyncStore | Store | str | None = None,
        hooks: Sequence[Hook] = (),
        spend_limit: SpendLimit | None = None,
    ) -> AsyncMemory:
        """See :meth:`Memory.from_dict`."""
        from summem.session.export import import_flow

        session, reducer, background, ttl = cls._resume_args(data, reducer)
        memory = cls(
            session.session_id,
            reducer=reducer,
            store=store,
            background=background,
            lease_ttl_seconds=ttl,
            hooks=hooks,
            spend_limit=spend_limit,
        )
        try:
            await run_async(import_flow(memory._core, memory._steps, session))
        except BaseException:
            await memory.close()
            raise
        return memory

    async def _settled(self) -> None:
        """Until the background reduction (if any) has finished; never cancels it."""
        task = self._task
        if task is None:
            return
        if task.get_loop() is asyncio.get_running_loop():
            await asyncio.wait({task})
            return
        # another thread's loop runs it: its done callbacks run there, so look instead
        delay = 0.001
        while not task.done():
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)

    async def wait(self) -> None:
        """See :meth:`Memory.wait`."""
        await self._settled()
        self._raise_background_error()

    async def close(self) -> None:
        """See :meth:`Memory.close`."""
        if self._closed:
            return
        for reply in self._take_parked():
            await reply.finish()
        await self._settled()
        self._closed = True
        if self._owns_store:
            await self._store.close()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
