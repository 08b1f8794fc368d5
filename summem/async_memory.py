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
from typing import TYPE_CHECKING, Any, TypeVar

from summem._flow import Flow, run_async, run_async_guarded
from summem._locks import Hold, HoldRevokedError, LoopSafeLock
from summem.errors import ConfigurationError
from summem.memory import Memory
from summem.messages import Message, MessageLike
from summem.observe.hooks import Hook
from summem.observe.spend import SpendLimit
from summem.reducers.base import Reducer, ReduceResult
from summem.reducers.style import ViewStyle
from summem.session.branching import can_branch, check_branching
from summem.session.core import Trigger
from summem.session.facade import BaseMemory, doc_of, is_async_store
from summem.session.flows import extend_flow, reduction_flow, reload_flow
from summem.session.rebuild import clear_flow, recompute_flow, rollback_flow
from summem.session.steps import AsyncStoreSteps, check_spend_ledger
from summem.stores.adapter import AsyncStoreAdapter
from summem.stores.base import AsyncStore, Branch, Store
from summem.stores.memory import AsyncInMemoryStore, InMemoryStore
from summem.stores.summary_log import DEFAULT_KEEP_SUMMARIES
from summem.summarizers.base import Summarizer

if TYPE_CHECKING:
    from summem.fleet.dispatcher import Dispatcher
    from summem.fleet.publisher import DispatchState
    from summem.formats.compaction import Provider
    from summem.formats.responses import ResponseItem
    from summem.recall.index import RecallHit
    from summem.recall.tool import RecallTool
    from summem.session.recorded import Mode

__all__ = ["AsyncMemory"]

T = TypeVar("T")


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
        dispatcher: Dispatcher | None = None,
        keep_summaries: int | None = DEFAULT_KEEP_SUMMARIES,
    ) -> None:
        super().__init__(
            session_id,
            reducer,
            background,
            lease_ttl_seconds,
            style,
            hooks=hooks,
            spend_limit=spend_limit,
            keep_summaries=keep_summaries,
            allow_async_hooks=True,
            dispatching=dispatcher is not None,
        )
        self._dispatch: DispatchState | None = None
        if dispatcher is not None:  # summem.fleet loads only for a fleet's memory
            from summem.fleet.publisher import dispatch_state

            self._dispatch = dispatch_state(dispatcher, store)
        if self._dispatch is not None:
            from summem.fleet.publisher import PUBLISHER

            PUBLISHER.ready()  # no turn starts a thread: jobs are published from this one
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
        if spend_limit is not None:
            check_spend_ledger(self._store)
        # not asyncio.Lock: one memory may be shared by threads that each run their own loop
        self._write = LoopSafeLock()
        # abandonable: a reduction parked on a loop that no longer runs (Runner.run_sync
        # leaves its loop idle; a closed loop) must not block the other loops for ever
        self._reducing = LoopSafeLock(abandonable=True)
        self._recall_lock = LoopSafeLock()
        self._task: asyncio.Task[None] | None = None

    @property
    @doc_of(Memory.store)
    def store(self) -> AsyncStore:
        return self._store

    @doc_of(Memory.add)
    async def add(self, message: MessageLike) -> Message:
        return (await self._write_batch(message, single=True))[0]

    @doc_of(Memory.extend)
    async def extend(self, messages: Iterable[MessageLike]) -> list[Message]:
        return await self._write_batch(messages, single=False)

    @doc_of(Memory.add_items)
    async def add_items(self, items: Iterable[ResponseItem] | str) -> list[Message]:
        from summem.formats.responses import to_messages  # on first use: light imports

        return await self.extend(to_messages(items))

    @doc_of(Memory.record)
    async def record(
        self, messages: Iterable[MessageLike], *, mode: Mode = "auto"
    ) -> list[Message]:
        flow = self._record_flow(self._record_items(messages, mode), mode)
        accepted = await self._written(flow)
        await self._after_write()
        return accepted

    @doc_of(Memory.branch)
    async def branch(self, at: int, messages: Iterable[MessageLike] = ()) -> list[Message]:
        accepted = await self._written(self._branch_flow(at, messages))
        await self._after_write()
        return accepted

    @doc_of(Memory.pop)
    async def pop(self, n: int = 1) -> list[Message]:
        popped = await self._written(self._pop_flow(n))
        await self._after_write()
        return popped

    @doc_of(Memory.branches)
    async def branches(self) -> list[Branch]:
        self._check_open()
        if not can_branch(self._steps):
            return []  # a store that cannot branch has none
        return await run_async(self._steps.branches(self.session_id))

    @doc_of(Memory.branch_messages)
    async def branch_messages(self, branch_id: str) -> list[dict[str, Any]]:
        return [m.to_openai() for m in await self.branch_history(branch_id)]

    @doc_of(Memory.branch_history)
    async def branch_history(self, branch_id: str) -> list[Message]:
        self._check_open()
        check_branching(self._steps, "branch_messages()")
        flow = self._steps.branch_messages(self.session_id, self._branch_id(branch_id))
        return await run_async(flow)

    async def _write_batch(self, items: Any, *, single: bool) -> list[Message]:
        dispatch = self._dispatch
        if dispatch is None:
            flow = extend_flow(self._core, self._steps, items, single=single)
        else:  # the append reports the epoch and version too, if the store can (one round trip)
            dispatch.take_probed()  # nothing left from a turn that failed after its append
            flow = extend_flow(
                self._core, self._steps, items, single=single, observe=dispatch.observe
            )
        accepted = await self._written(flow)
        await self._after_write()
        return accepted

    async def _written(self, flow: Flow[T]) -> T:
        """Run ``flow`` under the write lock, on an open memory."""
        async with self._write:
            self._check_open()
            return await run_async(flow)

    async def _after_write(self) -> None:
        if self._dispatch is not None:
            await self._after_write_dispatched(self._dispatch)
            return
        task = self._task
        busy = task is not None and not task.done() and _progressing(task)
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

    async def _after_write_dispatched(self, state: DispatchState) -> None:
        """A turn with a dispatcher: notice a worker's commit, publish, or truncate."""
        from summem.fleet.publisher import dispatch_turn_flow, noticed_flow

        async with self._write:
            await run_async(noticed_flow(self._core, self._steps, state))
        if await run_async(dispatch_turn_flow(self._core, state)) == "hard":
            async with self._reducing as hold:  # no lease: the commit's CAS decides
                await _held(reduction_flow(self._core, self._steps, "hard"), hold)

    async def _work(self) -> None:
        if self._closed:  # started late, on a loop that ran again after close()
            return
        try:
            await self._reduce("soft", background=True)
        except HoldRevokedError:  # taken over while its loop was parked: nothing to record
            return
        except Exception as exc:  # the task has nobody to raise to: recorded for wait()
            await run_async(self._background_failed(exc))

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
        flow = reduction_flow(self._core, self._steps, trigger, background=background)
        return await self._leased(flow, self._lease_refused(trigger))

    async def _leased(self, flow: Flow[T], refused: Flow[T]) -> T:
        """Run ``flow`` holding the session's reduction lease; ``refused`` when it is held.

        Raises:
            HoldRevokedError: the reduction lock was taken over while this loop was parked
                (another loop reduces now): nothing more was done here.
        """
        async with self._reducing as hold:
            if hold.took_over:
                self._core.stale = True  # the parked reduction's last write may have landed
            if not await self._take_lease():
                return await _held(refused, hold)
            try:
                return await _held(flow, hold)
            except (asyncio.CancelledError, HoldRevokedError):
                self._core.stale = True  # a store call may have landed after all: read again
                raise
            finally:
                if hold.current:  # a revoked hold's lease is the new holder's now (same owner)
                    await self._give_lease_back()

    @doc_of(Memory.reduce)
    async def reduce(self) -> ReduceResult | None:
        self._check_open()
        return await self._reduce("explicit")

    @doc_of(Memory.clear)
    async def clear(self) -> None:
        await self._written(clear_flow(self._core, self._steps))

    @doc_of(Memory.recompute)
    async def recompute(self, *, summarizer: Summarizer | None = None) -> Message | None:
        self._check_open()
        flow = recompute_flow(self._core, self._steps, self._recompute_reducer(summarizer))
        return await self._leased(flow, self._lease_refused(None))

    @doc_of(Memory.rollback)
    async def rollback(self, summary_id: str | None) -> None:
        self._check_open()
        async with self._reducing as hold, self._write:
            await _held(rollback_flow(self._core, self._steps, summary_id), hold)

    @doc_of(Memory.refresh)
    async def refresh(self) -> None:
        await self._written(self._refresh_flow())

    @doc_of(Memory.messages)
    async def messages(
        self,
        *,
        style: ViewStyle | None = None,
        provider: Provider | None = None,
        masked: bool = True,
    ) -> list[dict[str, Any]]:
        await self._ensure_fresh()
        out, event = self._render(style, provider, masked)
        if event is not None:
            await self._hooks.adeliver(event)
        return out

    @doc_of(Memory.view)
    async def view(self) -> list[Message]:
        await self._ensure_fresh()
        return self._core.view()

    @doc_of(Memory.items)
    async def items(self) -> list[dict[str, Any]]:
        await self._ensure_fresh()
        out, event = self._items()
        if event is not None:
            await self._hooks.adeliver(event)
        return out

    async def _ensure_fresh(self) -> None:
        self._check_open()
        if self._core.stale:
            async with self._write:
                await run_async(reload_flow(self._core, self._steps))

    @doc_of(Memory.history)
    async def history(self, start: int = 0, stop: int | None = None) -> list[dict[str, Any]]:
        return [m.to_openai() for m in await self.history_messages(start, stop)]

    @doc_of(Memory.history_messages)
    async def history_messages(self, start: int = 0, stop: int | None = None) -> list[Message]:
        self._check_open()
        return await self._store.history(self.session_id, start, stop)

    @doc_of(Memory.recall)
    async def recall(
        self,
        query: str | None = None,
        *,
        id: str | None = None,
        k: int = 5,
        evicted_only: bool = True,
        max_tokens: int = 2000,
    ) -> list[RecallHit]:
        args = self._recall_args(query, id, k, max_tokens)
        async with self._recall_lock:
            self._check_open()
            return await run_async(self._recall_flow(args, evicted_only))

    @doc_of(Memory.recall_tool, "Answer its calls with ``await tool.acall(arguments)``.")
    def recall_tool(self, *, k: int = 5, max_tokens: int = 2000) -> RecallTool:
        from summem.recall.tool import RecallTool

        return RecallTool(self, k=k, max_tokens=max_tokens)

    @doc_of(Memory.summaries)
    async def summaries(self) -> list[Message]:
        self._check_open()
        return await self._store.summaries(self.session_id)

    @doc_of(Memory.to_dict)
    async def to_dict(self) -> dict[str, Any]:
        self._check_open()
        from summem.session.export import export_flow

        return await run_async(export_flow(self._core, self._steps, self._config()))

    @classmethod
    @doc_of(Memory.from_dict)
    async def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        reducer: Reducer | None = None,
        store: AsyncStore | Store | str | None = None,
        hooks: Sequence[Hook] = (),
        spend_limit: SpendLimit | None = None,
    ) -> AsyncMemory:
        from summem.session.export import import_flow

        session, args = cls._resume_args(data, reducer)
        memory = cls(session.session_id, store=store, hooks=hooks, spend_limit=spend_limit, **args)
        progress: list[str] = []
        try:
            await run_async(import_flow(memory._core, memory._steps, session, progress))
        except BaseException:
            try:
                if progress:  # cancelled midway (a failure deletes it in the flow)
                    await asyncio.shield(memory._store.delete(session.session_id))
            finally:
                await memory.close()
            raise
        return memory

    async def _settled(self) -> None:
        """Until the background reduction (if any) has finished; never cancels it.

        One parked on another loop that does not run (idle, closed) is not waited for: it
        may never finish, and the reduction lock can be taken from it.
        """
        task = self._task
        if task is None:
            return
        if task.get_loop() is asyncio.get_running_loop():
            await asyncio.wait({task})
            return
        # another thread's loop runs it: its done callbacks run there, so look instead
        delay = 0.001
        while not task.done() and _progressing(task):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)

    @doc_of(Memory.wait)
    async def wait(self) -> None:
        if self._dispatch is not None:
            from summem.fleet.publisher import PUBLISHER

            await asyncio.get_running_loop().run_in_executor(None, PUBLISHER.flush)
        await self._settled()
        self._raise_background_error()

    @doc_of(Memory.close)
    async def close(self) -> None:
        if self._closed:
            return
        for reply in self._take_parked():
            await reply.finish()
        if self._dispatch is not None:
            from summem.fleet.publisher import flush_on_close

            await asyncio.get_running_loop().run_in_executor(None, flush_on_close, self.session_id)
        await self._settled()
        async with self._reducing as hold:  # a reduction still running elsewhere ends first
            if hold.took_over:  # from one parked on a loop that does not run: its lease
                with contextlib.suppress(Exception):
                    await self._give_lease_back()
        await self._steps.released()  # the holds of cancelled reductions, dropped
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


def _progressing(task: asyncio.Task[Any]) -> bool:
    """True if ``task``'s loop is running: the task can finish (or is finished)."""
    loop = task.get_loop()
    return task.done() or loop.is_running()


async def _held(flow: Flow[T], hold: Hold) -> T:
    """Run ``flow`` under the reduction lock's ``hold``: it stops once the hold is revoked."""
    return await run_async_guarded(flow, hold.run)
