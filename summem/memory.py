"""``Memory``: a session's full history in a store, and a bounded view for the model.

The application adds every message; the memory stores it (append-only, with a stable id) and
keeps the view ``[system] + [summary]? + history[k:]`` within the reducer's budget. ``Memory``
and :class:`~summem.async_memory.AsyncMemory` are thin I/O shells around
:class:`~summem.session.core.SessionCore` (the cached view and the reduction policy, pure) and the
flows of :mod:`summem.session.flows` (the store and summarizer sequences, written once):
``Memory`` drives them with a sync store and a worker thread.

A turn costs O(1) in the history's length: the new messages are validated against the cached
view, appended, and added to a running total. Another worker's appends to the same session
show up on this object's next ``add``/``extend`` (the store's new length gives them away) or on
:meth:`Memory.refresh`; ``messages()`` reads only the cached view. Another worker's commit is
noticed when this object's own commit loses its compare-and-set (then it reads the session
again and retries once), or on ``refresh()``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from summem._flow import Flow, run_sync
from summem.errors import ConfigurationError
from summem.messages import Message, MessageLike
from summem.observe.hooks import Hook
from summem.observe.spend import SpendLimit
from summem.reducers.base import Reducer, ReduceResult
from summem.reducers.style import ViewStyle
from summem.session.branching import can_branch, check_branching
from summem.session.core import Trigger
from summem.session.facade import BaseMemory, is_async_store
from summem.session.flows import extend_flow, reduction_flow, reload_flow, usage_flow
from summem.session.rebuild import clear_flow, recompute_flow, rollback_flow
from summem.session.steps import SyncStoreSteps, check_spend_ledger
from summem.session.worker import BackgroundWorker
from summem.stores.base import Branch, Store
from summem.stores.memory import InMemoryStore
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

__all__ = ["Memory"]

T = TypeVar("T")


class Memory(BaseMemory):
    """A session's memory over a sync store.

    Args:
        session_id: required; validated (``None`` or empty raises ``InvalidSessionIdError``).
        reducer: the budget and summarizer; by default a :class:`SummarizationReducer` with
            ``threshold_tokens=8000, target_tokens=6000`` and the offline extractive summarizer.
        store: a :class:`~summem.stores.base.Store`, or a URL for
            :func:`summem.stores.open_store`; by default a new ``InMemoryStore`` (nothing
            persists: pass ``"sqlite:///summem.db"``, as the CLI does, to keep sessions).
            A store given as an object is not closed by :meth:`close`.
        background: reduce in a worker thread from the reducer's soft threshold on; no turn
            waits for it below the reducer's ``hard_limit`` (the view may run over the
            threshold meanwhile; see ``docs-notes/background.md``). On by default when the
            reducer has a soft threshold.
        lease_ttl_seconds: how long the store's reduction lease outlives a crashed worker.
        style: how :meth:`messages` renders the view by default, for servers and chat
            templates that accept less than OpenAI (see :class:`~summem.ViewStyle`).
        hooks: callables given every event about this session's reductions (see
            :meth:`add_hook` and :mod:`summem.events`).
        spend_limit: a :class:`~summem.observe.SpendLimit` on summarization tokens or cost; once it
            is exhausted, summaries are written without the LLM (the fallback chain's other
            steps) and a ``SpendLimitReached`` event says so. The spend is kept in the
            store's ledger, so the budget holds across restarts and is shared by every
            process on the store (see :mod:`summem.observe.spend`).
        dispatcher: reduce on a fleet's workers instead of in this process (see
            :mod:`summem.fleet` and ``docs-notes/fleet.md``): past the soft threshold (the
            threshold without one) a turn publishes a job, off the turn; the worker's commit
            shows on a later turn; past the hard limit a turn folds offline if no worker
            answered. ``reduce()`` still reduces here.
        keep_summaries: how many latest summaries the store's log keeps whole (default 20;
            ``None``: every one); older ones are kept as metadata only (id, watermark, sizes,
            summarizer, time, spend), so the log does not grow with the history. A
            :meth:`rollback` needs a whole one (see ``docs-notes/stores.md``).
    """

    def __init__(
        self,
        session_id: str,
        *,
        reducer: Reducer | None = None,
        store: Store | str | None = None,
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
            allow_async_hooks=False,
            dispatching=dispatcher is not None,
        )
        self._dispatch: DispatchState | None = None
        if dispatcher is not None:  # summem.fleet loads only for a fleet's memory
            from summem.fleet.publisher import dispatch_state

            self._dispatch = dispatch_state(dispatcher, store)
        if store is None:
            self._store: Store = InMemoryStore()
            self._owns_store = True
        elif isinstance(store, str):
            from summem.stores import open_store

            self._store, self._owns_store = open_store(store), True
        elif is_async_store(store) or not isinstance(store, Store):
            raise ConfigurationError(
                f"Memory needs a sync Store (AsyncMemory takes async ones): {store!r}"
            )
        else:
            self._store, self._owns_store = store, False
        self._steps = SyncStoreSteps(self._store)
        if spend_limit is not None:
            check_spend_ledger(self._store)
        self._write = threading.Lock()  # one writer at a time in this object
        self._reducing = threading.Lock()  # one reduction at a time in this object
        self._recall_lock = threading.Lock()  # the recall index, one user at a time
        self._worker = BackgroundWorker(self._work, name=f"summem-reduce:{self.session_id[:32]}")
        if self._dispatch is not None:
            from summem.fleet.publisher import PUBLISHER

            PUBLISHER.ready()  # no turn starts a thread: jobs are published from this one
        elif self._core.background:
            self._worker.ready()  # no turn starts a thread (see summem.session.worker)
        try:  # the view only: the usage of a truncated head is read when asked (usage)
            self._written(self._refresh_flow(usage=False))
        except BaseException:
            if self._owns_store:
                self._store.close()
            raise

    @property
    def store(self) -> Store:
        """The store holding the session."""
        return self._store

    def _usage(self) -> dict[str, float]:
        if not self._closed and self._core.usage_gap() is not None:  # a truncated head
            self._written(usage_flow(self._core, self._steps))  # read once, when asked
        return self._core.usage

    usage = property(_usage, doc=BaseMemory.usage.__doc__)

    # -- writing ----------------------------------------------------------------------------

    def add(self, message: MessageLike) -> Message:
        """Store one message and return it (with its id); may reduce the view.

        System and developer messages replace the system message (same content: ignored).
        The message is stored before any reduction runs: a ``ReductionError`` raised here
        (``fail_on_error=True``) means it was accepted but the view was not reduced.

        Raises:
            MessageValidationError: not valid, or a tool result answering no pending call
                (nothing is stored).
            ReductionError: the reduction this message made due failed (a
                ``SummarizationError``, say); the message **is** stored: do not add it again
                (``record()`` recognises a resent turn).
        """
        return self._write_batch(message, single=True)[0]

    def extend(self, messages: Iterable[MessageLike]) -> list[Message]:
        """Store a batch, validated whole first: one bad message rejects it all."""
        return self._write_batch(messages, single=False)

    def add_items(self, items: Iterable[ResponseItem] | str) -> list[Message]:
        """Store Responses API input items, validated whole first; see :meth:`items`.

        Each item is kept as given (in the message's ``meta``) and comes back unchanged from
        :meth:`items` (see :mod:`summem.formats.responses`).
        """
        from summem.formats.responses import to_messages  # on first use: light imports

        return self.extend(to_messages(items))

    def record(self, messages: Iterable[MessageLike], *, mode: Mode = "auto") -> list[Message]:
        """Store what ``messages`` adds to the conversation; return the messages stored.

        For applications that pass the whole conversation every time (or echo back the view
        :meth:`messages` gave them, or the reply they got): the part of the list that repeats
        the end of what is recorded is recognised by content and skipped; system messages
        follow the system rules; summem's own summary is dropped.

        A list that is the whole conversation edited (a message changed), or cut short (a
        regenerate: it stops before the last reply; a rewind to a checkpoint), **branches**
        where it differs (see :meth:`branch`): the history becomes the list, and what it no
        longer holds is kept as a branch. It counts as the whole conversation only on proof:
        what it keeps of the history holds a model reply summem recorded from a provider's
        response (the wrappers mark it, :data:`~summem.messages.MODEL_REPLY`), or it is the
        history with one message changed and the rest (such a reply among it) resent, or, for
        a list that starts like the history, this memory's last list was the whole
        conversation. Without proof the list is new messages (never an error): an earlier
        "ok" or "hi", a fixed greeting or few-shot examples repeated are recorded as new (the
        rules: :func:`summem.session.recorded.read_list`).

        Args:
            messages: the list, as passed to the model.
            mode: ``"auto"`` (the above); ``"new"``: every message is stored as new;
                ``"full"``: the list is the conversation: it branches at its first difference
                from the recorded one (a shorter list abandons the rest).

        Raises:
            HistoryMismatchError: the list echoes a summary that is no longer current and then
                differs from the recorded conversation (where it branches cannot be told):
                nothing is stored.
            MessageValidationError: a message is not valid (nothing is stored).
        """
        accepted = self._written(self._record_flow(self._record_items(messages, mode), mode))
        self._after_write()
        return accepted

    def branch(self, at: int, messages: Iterable[MessageLike] = ()) -> list[Message]:
        """Make the history ``history[:at] + messages``; keep ``history[at:]`` as a branch.

        For an edit (``branch(k, [edited, ...])``), a regenerate or a rewind (``branch(k)``):
        one atomic store write, a compare-and-set like every commit. The abandoned messages
        are kept as a branch (:meth:`branches`, :meth:`branch_messages`), never sent to the
        model again. When ``at`` falls inside what the summary covers, the view rolls back to
        the latest summary of a prefix of ``history[:at]`` (or to none); the usual reduction
        then runs if the view is over its budget (in the background where configured). A
        :class:`~summem.events.Branched` event says which. ``messages`` are validated whole
        first, against ``history[:at]`` (a tool result must answer a call pending there or
        earlier in the batch).

        Returns:
            The messages stored, as :meth:`extend` returns them.

        Raises:
            ConfigurationError: ``at`` is not between 0 and the history's length.
            MessageValidationError: a message is not valid (nothing is written).
            ConflictError: another writer changed ``history[:at]`` meanwhile.
            StoreOutcomeUnknownError: whether the branch was written cannot be told
                (:meth:`branches` lists it if it was).
        """
        accepted = self._written(self._branch_flow(at, messages))
        self._after_write()
        return accepted

    def pop(self, n: int = 1) -> list[Message]:
        """Abandon the last ``n`` messages (kept as a branch, see :meth:`branch`); return them.

        ``pop(0)`` does nothing and returns ``[]``. The same compare-and-set store write as
        :meth:`branch`.

        Raises:
            ConfigurationError: ``n`` is negative or more than the history holds, or the
                store cannot branch (naming its class; nothing is written).
            ConflictError: another writer kept changing the session (its messages are never
                abandoned by a pop that did not see them).
            StoreOutcomeUnknownError: whether the pop was written cannot be told
                (:meth:`branches` lists it if it was).
        """
        popped = self._written(self._pop_flow(n))
        self._after_write()
        return popped

    def branches(self) -> list[Branch]:
        """Every branch of the session, oldest first: ``id``, ``at``, ``length``, ...

        Each holds the messages a :meth:`branch` (an edit, a regenerate, a rewind, a pop)
        abandoned: ``history[at:at + length]`` as it was then. A store that cannot branch
        (written for an older summem, without ``rewrite``/``branches``) has none: always
        ``[]`` there, while :meth:`branch_messages` raises ``ConfigurationError``.
        """
        self._check_open()
        if not can_branch(self._steps):
            return []  # a store that cannot branch has none
        return run_sync(self._steps.branches(self.session_id))

    def branch_messages(self, branch_id: str) -> list[dict[str, Any]]:
        """The messages the branch ``branch_id`` abandoned, as chat-completions dicts.

        Raises:
            StoreError: the session has no such branch.
        """
        return [m.to_openai() for m in self.branch_history(branch_id)]

    def branch_history(self, branch_id: str) -> list[Message]:
        """:meth:`branch_messages` as :class:`~summem.messages.Message` objects (ids, meta)."""
        self._check_open()
        check_branching(self._steps, "branch_messages()")
        return run_sync(self._steps.branch_messages(self.session_id, self._branch_id(branch_id)))

    def _write_batch(self, items: Any, *, single: bool) -> list[Message]:
        dispatch = self._dispatch
        if dispatch is None:
            flow = extend_flow(self._core, self._steps, items, single=single)
        else:  # the append reports the epoch and version too, if the store can (one round trip)
            dispatch.take_probed()  # nothing left from a turn that failed after its append
            flow = extend_flow(
                self._core, self._steps, items, single=single, observe=dispatch.observe
            )
        accepted = self._written(flow)
        self._after_write()
        return accepted

    def _written(self, flow: Flow[T]) -> T:
        """Run ``flow`` under the write lock, on an open memory."""
        with self._write:
            self._check_open()
            return run_sync(flow)

    def _after_write(self) -> None:
        if self._dispatch is not None:
            self._after_write_dispatched(self._dispatch)
            return
        core, worker = self._core, self._worker
        busy = worker.busy
        action, skipped = core.decide(in_flight=busy)
        if skipped is not None:
            self._hooks.deliver(skipped)
        if action == "soft":
            worker.submit()
        elif action == "hard":
            if busy:
                worker.join()
                self._raise_background_error()
                action, skipped = core.decide(in_flight=False)
                if skipped is not None:
                    self._hooks.deliver(skipped)
                if action == "soft":  # the reduction landed under the hard limit
                    worker.submit()
                if action != "hard":
                    return
            self._reduce("hard")
        elif core.background and core.exceeds(core.reducer.target):
            worker.prestart()  # so the turn that passes the soft threshold does not wait for it

    def _after_write_dispatched(self, state: DispatchState) -> None:
        """A turn with a dispatcher: notice a worker's commit, publish, or truncate."""
        from summem.fleet.publisher import dispatch_turn_flow, noticed_flow

        with self._write:
            run_sync(noticed_flow(self._core, self._steps, state))
        if run_sync(dispatch_turn_flow(self._core, state)) == "hard":
            with self._reducing:  # no lease: a worker may hold it; the commit's CAS decides
                run_sync(reduction_flow(self._core, self._steps, "hard"))

    def _work(self) -> None:
        try:
            self._reduce("soft", background=True)
        except Exception as exc:  # the worker has nobody to raise to: recorded for wait()
            run_sync(self._background_failed(exc))

    def _reduce(self, trigger: Trigger, *, background: bool = False) -> ReduceResult | None:
        flow = reduction_flow(self._core, self._steps, trigger, background=background)
        return self._leased(flow, self._lease_refused(trigger))

    def _leased(self, flow: Flow[T], refused: Flow[T]) -> T:
        """Run ``flow`` holding the session's reduction lease; ``refused`` when it is held."""
        with self._reducing:
            if not self._store.acquire_lease(self.session_id, self._owner, self._lease_ttl):
                return run_sync(refused)
            try:
                return run_sync(flow)
            finally:
                self._store.release_lease(self.session_id, self._owner)

    def reduce(self) -> ReduceResult | None:
        """Reduce now if the view is over the target; ``None`` when there is nothing to do.

        Ignores the back-off after a failure. Raises the failure when ``fail_on_error`` is
        set; otherwise the result carries it in ``error``.

        Raises:
            LeaseHeldError: another worker is reducing this session.
            ConflictError: the session kept changing (two lost compare-and-sets).
        """
        self._check_open()
        return self._reduce("explicit")

    def clear(self) -> None:
        """Empty the session; a reduction in flight fails its CAS and changes nothing."""
        self._written(clear_flow(self._core, self._steps))

    def recompute(self, *, summarizer: Summarizer | None = None) -> Message | None:
        """Rebuild the summary of ``history[:k]`` from scratch, in bounded spans.

        For after a prompt or model change (pass ``summarizer``), or to purge a bad summary.
        Costs one summarizer call per ``threshold``-sized span of ``history[:k]``, charged
        to the spend limit if there is one (which does not refuse this explicit rebuild).

        Raises:
            LeaseHeldError: another worker is reducing this session.
            ReductionError: the summarizer failed (nothing is committed).
        """
        self._check_open()
        flow = recompute_flow(self._core, self._steps, self._recompute_reducer(summarizer))
        return self._leased(flow, self._lease_refused(None))

    def rollback(self, summary_id: str | None) -> None:
        """Make a logged summary current again (``None``: no summary, watermark 0)."""
        self._check_open()
        with self._reducing, self._write:
            run_sync(rollback_flow(self._core, self._steps, summary_id))

    def refresh(self) -> None:
        """Read the session again (``history[k:]`` only): other workers' writes appear."""
        self._written(self._refresh_flow())

    # -- reading ----------------------------------------------------------------------------

    def messages(
        self,
        *,
        style: ViewStyle | None = None,
        provider: Provider | None = None,
        masked: bool = True,
    ) -> list[dict[str, Any]]:
        """The view as chat-completions dicts, ready for ``chat.completions.create``.

        The list is a fresh one, the caller's to change; the dicts in it are shared between
        calls and read-only (changing one raises ``TypeError``; ``copy.deepcopy`` gives
        mutable copies): a turn costs no copy of the view. ``json.dumps``, the openai SDK and
        litellm take them as they are.

        Args:
            style: how to render it for a provider or chat template (strict alternation, no
                ``null`` content...); the memory's ``style`` by default. The stored messages
                never change.
            provider: where the view goes, for provider items (compaction): ``None``
                (chat completions) leaves them all out, and so does ``"openai"`` (its
                compaction items are Responses input: :meth:`items`); ``"anthropic"`` keeps
                Anthropic's compaction blocks on their turn (litellm sends them back). What
                they stand for is in the view either way. Each item left out is announced once
                (:class:`~summem.events.ProviderItemsLeftOut`).
            masked: ``False`` sends tool results the reducer masks as they are stored, for
                a server that clears old tool results itself (Anthropic's context editing,
                ``wrap_completion(..., clear_tool_uses=True)``); the stubs otherwise.
        """
        self._ensure_fresh()
        out, event = self._render(style, provider, masked)
        if event is not None:
            self._hooks.deliver(event)
        return out

    def view(self) -> list[Message]:
        """The view as messages (the summary carries its ``summary_info``)."""
        self._ensure_fresh()
        return self._core.view()

    def items(self) -> list[dict[str, Any]]:
        """The view as Responses API input items, for ``responses.create(input=...)``.

        Items added with :meth:`add_items` come back exactly as given; the summary (and any
        message added in chat form) is converted. Fresh dicts, the caller's to change.
        An OpenAI ``compaction`` item is a natural cut: the summary and the items before
        the latest one are left out (OpenAI allows it; they stay in the store), and items
        only another provider reads are left out (see :mod:`summem.formats.compaction`).
        """
        self._ensure_fresh()
        out, event = self._items()
        if event is not None:
            self._hooks.deliver(event)
        return out

    def _ensure_fresh(self) -> None:
        self._check_open()
        if self._core.stale:
            with self._write:
                run_sync(reload_flow(self._core, self._steps))

    def history(self, start: int = 0, stop: int | None = None) -> list[dict[str, Any]]:
        """``history[start:stop]`` from the store (all of it by default), as chat dicts.

        Every message ever added, in order, as the chat-completions dicts :meth:`messages`
        gives (ids and summem's metadata are on :meth:`history_messages`).
        """
        return [m.to_openai() for m in self.history_messages(start, stop)]

    def history_messages(self, start: int = 0, stop: int | None = None) -> list[Message]:
        """``history[start:stop]`` as :class:`~summem.messages.Message` objects (ids, meta)."""
        self._check_open()
        return self._store.history(self.session_id, start, stop)

    def recall(
        self,
        query: str | None = None,
        *,
        id: str | None = None,
        k: int = 5,
        evicted_only: bool = True,
        max_tokens: int = 2000,
    ) -> list[RecallHit]:
        """Search the session's history for ``query``; or fetch the message ``id``.

        Keyword ranking (BM25) over every message (its text, tool calls and results), by
        default only those the view no longer carries (``evicted_only=False``: all). Returns
        the original messages, best first, each with its tool group (a call with its results),
        as :class:`~summem.recall.RecallHit` (``message``, ``position`` in history, ``score``),
        stopping before ``max_tokens``. The index is kept in this object and extended with
        what was added since its last use; a first recall reads the history once.
        """
        args = self._recall_args(query, id, k, max_tokens)
        with self._recall_lock:
            self._check_open()
            return run_sync(self._recall_flow(args, evicted_only))

    def recall_tool(self, *, k: int = 5, max_tokens: int = 2000) -> RecallTool:
        """Recall as a tool a model can call: ``tool.schema`` and ``tool(arguments)``."""
        from summem.recall.tool import RecallTool

        return RecallTool(self, k=k, max_tokens=max_tokens)

    def summaries(self) -> list[Message]:
        """Every summary committed to the session, oldest first (for ``rollback``)."""
        self._check_open()
        return self._store.summaries(self.session_id)

    def to_dict(self) -> dict[str, Any]:
        """The session as a JSON-serialisable dict, for :meth:`from_dict` elsewhere."""
        self._check_open()
        from summem.session.export import export_flow

        return run_sync(export_flow(self._core, self._steps, self._config()))

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        reducer: Reducer | None = None,
        store: Store | str | None = None,
        hooks: Sequence[Hook] = (),
        spend_limit: SpendLimit | None = None,
    ) -> Memory:
        """Resume a :meth:`to_dict` session in ``store`` (where it must not exist yet).

        The whole dict is checked first; the session is then written with one atomic
        :meth:`~summem.stores.base.Store.create`: it appears whole or not at all, and of two
        processes resuming the same dict at once exactly one succeeds. A session with
        branches is replayed (the history before its first branch, each branch again, the
        summary), and deleted again if that fails or is cancelled midway (see
        :mod:`summem.session.export`). Without ``reducer``, a
        reducer with the recorded budget is built (default summarizer and token counter).
        The summary log is not carried over: only the current summary. ``hooks`` and
        ``spend_limit`` are as for the constructor (they are not part of the dict).

        Raises:
            StoreError: the dict is not a valid session dict (nothing was written).
            ConflictError: the session already exists in ``store`` (it is left untouched).
        """
        from summem.session.export import import_flow

        session, args = cls._resume_args(data, reducer)
        memory = cls(session.session_id, store=store, hooks=hooks, spend_limit=spend_limit, **args)
        progress: list[str] = []
        try:
            run_sync(import_flow(memory._core, memory._steps, session, progress))
        except BaseException:
            try:
                if progress:  # interrupted midway (a failure deletes it in the flow)
                    memory._store.delete(session.session_id)
            finally:
                memory.close()
            raise
        return memory

    # -- lifecycle --------------------------------------------------------------------------

    def wait(self) -> None:
        """Join the background reduction in flight; raise its failure (``fail_on_error``).

        With a dispatcher: wait until the jobs planned so far are handed to the broker.
        """
        if self._dispatch is not None:
            from summem.fleet.publisher import PUBLISHER

            PUBLISHER.flush()
        self._worker.join()
        self._raise_background_error()

    def close(self) -> None:
        """Join the background reduction, then close the store if this memory opened it.

        A wrapped stream's reply left waiting for its usage chunk is recorded first. With a
        dispatcher, the jobs planned so far are handed to the broker first (waiting at most
        ``summem.fleet.publisher.CLOSE_FLUSH_SECONDS``), so a process may exit after it.
        """
        if self._closed:
            return
        for reply in self._take_parked():
            reply.finish()
        if self._dispatch is not None:
            from summem.fleet.publisher import flush_on_close

            flush_on_close(self.session_id)
        self._worker.stop()
        self._closed = True
        if self._owns_store:
            self._store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
