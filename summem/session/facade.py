"""What ``Memory`` and ``AsyncMemory`` share besides the flows: configuration and accessors.

The two facades differ only in how they do I/O (a sync store and a worker thread, or an async
store and a task); their configuration, the defaults, the ``to_dict()`` configuration record,
every accessor that reads the cached view without I/O, and the small flows around the session
flows (a refused lease, a failed background reduction) live here once. Each facade method is
documented once, on ``Memory``; ``AsyncMemory`` takes the same docs with :func:`doc_of`.
"""

from __future__ import annotations

import inspect
import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from summem._flow import Flow
from summem._message_checks import expect_batch
from summem.errors import (
    ConfigurationError,
    LeaseHeldError,
    ReductionError,
    SessionClosedError,
    StoreError,
    SummemError,
)
from summem.events import ProviderItemsLeftOut
from summem.formats.compaction import PROVIDERS, Provider, provider_item
from summem.messages import Message, MessageLike
from summem.observe.hooks import Hook, HookList, emit, lease_held
from summem.observe.spend import SpendLimit
from summem.reducers.base import BudgetReducer, Reducer, SummarizingReducer
from summem.reducers.loop_guard import ReductionsPaused
from summem.reducers.style import ViewStyle
from summem.session.core import SessionCore, Trigger
from summem.session.flows import failure_event, reload_flow
from summem.session.steps import StoreSteps
from summem.stores.base import validate_session_id
from summem.stores.summary_log import DEFAULT_KEEP_SUMMARIES, check_keep_summaries
from summem.summarizers.base import Summarizer
from summem.summarizers.sent import SentView
from summem.tokens.base import ApproxCounter

if TYPE_CHECKING:
    from summem.recall.index import RecallHit, RecallIndex
    from summem.session.export import SessionDict
    from summem.session.recorded import Mode, RecordedIndex

__all__ = ["BaseMemory", "Resumed", "doc_of", "is_async_store"]

F = TypeVar("F", bound=Callable[..., Any])


def is_async_store(store: object) -> bool:
    """True for a store whose methods are coroutines (an ``AsyncStore``)."""
    return inspect.iscoroutinefunction(getattr(store, "load", None))


class Resumed(TypedDict):
    """The constructor's arguments a ``to_dict()`` dict gives (for ``from_dict``)."""

    reducer: Reducer
    background: bool | None
    lease_ttl_seconds: float


def doc_of(twin: object, note: str | None = None) -> Callable[[F], F]:
    """Give the decorated method ``twin``'s docstring (a method's or a property's).

    So that each is written once: ``AsyncMemory``'s methods take ``Memory``'s docs; ``note``
    (what differs) is appended.
    ``tests/test_async_parity.py`` checks that the two facades' methods and docs match.
    """

    def document(method: F) -> F:
        doc = twin.__doc__
        method.__doc__ = doc if note is None else f"{inspect.cleandoc(doc or '')}\n\n{note}"
        return method

    return document


class BaseMemory:
    """What both facades share: configuration, the cached view, and the pure accessors."""

    _steps: StoreSteps
    """The store's steps for the flows (set by the facade, over its store)."""

    def __init__(
        self,
        session_id: str,
        reducer: Reducer | None,
        background: bool | None,
        lease_ttl_seconds: float,
        style: ViewStyle | None = None,
        *,
        hooks: Sequence[Hook] = (),
        spend_limit: SpendLimit | None = None,
        allow_async_hooks: bool = False,
        dispatching: bool = False,
        keep_summaries: int | None = DEFAULT_KEEP_SUMMARIES,
    ) -> None:
        sid = validate_session_id(session_id)
        keep = check_keep_summaries(keep_summaries)
        if spend_limit is not None and not isinstance(spend_limit, SpendLimit):
            raise ConfigurationError(
                f"spend_limit must be a summem SpendLimit, got {spend_limit!r}"
            )
        if isinstance(hooks, (str, bytes)) or not isinstance(hooks, Sequence):
            raise ConfigurationError(f"hooks must be a list of callables, got {hooks!r}")
        if style is not None and not isinstance(style, ViewStyle):
            raise ConfigurationError(f"style must be a summem ViewStyle, got {style!r}")
        self._style = style
        self._told_left_out: set[tuple[str, str | None]] = set()
        if not lease_ttl_seconds > 0:
            raise ConfigurationError(f"lease_ttl_seconds must be positive, got {lease_ttl_seconds}")
        if reducer is None:
            from summem.reducers.records import default_reducer

            reducer = default_reducer()
        self._core = SessionCore(sid, reducer, background=background, dispatching=dispatching)
        self._hooks = HookList(hooks, allow_async=allow_async_hooks)
        self._core.hooks = self._hooks
        self._core.spend_limit = spend_limit
        self._core.keep_summaries = keep
        self._lease_ttl = float(lease_ttl_seconds)
        self._owner = f"summem:{_hostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self._closed = False
        self._recorded_index: RecordedIndex | None = None  # built on first record()
        self._recall: RecallIndex | None = None  # built on first recall (keeps imports light)
        self._parked_replies: list[Any] = []
        """Wrapped streams' replies that came to their finish and wait for a usage chunk the
        caller may never read: :mod:`summem.wrappers.turn` records them at the next call."""

    def _take_parked(self) -> list[Any]:
        """Take the parked stream replies out, each once even with threads doing it at once.

        ``list.pop`` is atomic: two threads sharing a memory never both get one reply (and a
        reply records itself once anyway, under its own lock).
        """
        taken: list[Any] = []
        while True:
            try:
                taken.append(self._parked_replies.pop(0))
            except IndexError:
                return taken

    @property
    def _recorded(self) -> RecordedIndex:
        """What ``record()`` has seen, built on first use (callers hold the write lock)."""
        if self._recorded_index is None:
            from summem.session.recorded import RecordedIndex

            self._recorded_index = RecordedIndex()
        return self._recorded_index

    def _record_flow(self, items: list[MessageLike], mode: Mode) -> Flow[list[Message]]:
        """``record()``'s flow, run under the write lock (where its index is built)."""
        from summem.session.recording import record_flow  # on first use: light imports

        return (yield from record_flow(self._core, self._steps, self._recorded, items, mode=mode))

    def _branch_flow(self, at: int, messages: Iterable[MessageLike]) -> Flow[list[Message]]:
        """``branch()``'s flow, run under the write lock (the index is kept if built)."""
        from summem.session.branching import branch_flow  # on first use: light imports

        expect_batch(messages)
        items = list(messages)
        flow = branch_flow(self._core, self._steps, self._recorded_index, at, items)
        return (yield from flow)

    def _pop_flow(self, n: int) -> Flow[list[Message]]:
        """``pop()``'s flow, run under the write lock."""
        from summem.session.branching import pop_flow

        return (yield from pop_flow(self._core, self._steps, self._recorded_index, n))

    @staticmethod
    def _branch_id(branch_id: object) -> str:
        if not isinstance(branch_id, str) or not branch_id:
            raise ConfigurationError(
                f"branch_id must be a non-empty string (an id from branches()), got {branch_id!r}"
            )
        return branch_id

    def _refresh_flow(self, *, usage: bool = True) -> Flow[None]:
        """``refresh()``'s flow: the cached view is read again, whole.

        With ``usage``, so is the provider usage of ``history[:k]`` if no summary carries it.
        """
        self._core.stale = True
        yield from reload_flow(self._core, self._steps, usage=usage)

    def _lease_refused(self, trigger: Trigger | None) -> Flow[None]:
        """Another worker holds the reduction lease: say so, then raise or back off.

        ``trigger`` is ``None`` for :meth:`recompute`, which raises without an event; an
        explicit reduction announces the held lease and raises; an automatic one backs off.
        """
        sid = self.session_id
        if trigger is not None:
            yield from emit(self._hooks, lease_held(sid, trigger))
        if trigger is None or trigger == "explicit":
            raise LeaseHeldError(f"session {sid!r} is being reduced elsewhere")
        self._core.lease_busy()

    def _background_failed(self, exc: Exception) -> Flow[None]:
        """Record a background reduction's failure (it has nobody to raise to) for ``wait()``."""
        err = exc if isinstance(exc, SummemError) else ReductionError(str(exc))
        self._core.failed(err, background=True)
        yield from emit(self._hooks, failure_event(self._core, err, "soft", True, False, 0.0))

    def _recall_flow(self, args: dict[str, Any], evicted_only: bool) -> Flow[list[RecallHit]]:
        """``recall()``'s flow (``args`` from :meth:`_recall_args`), run under the recall lock."""
        from summem.session.recall import recall_flow  # on first use: keeps imports light

        index = self._recall_index  # built on first use, under the lock
        flow = recall_flow(self._core, self._steps, index, evicted_only=evicted_only, **args)
        return (yield from flow)

    @property
    def _recall_index(self) -> RecallIndex:
        """The recall index, built on first use (callers hold the facade's recall lock)."""
        if self._recall is None:
            from summem.recall.index import RecallIndex

            self._recall = RecallIndex()
        return self._recall

    @property
    def session_id(self) -> str:
        """The session this memory reads and writes."""
        return self._core.session_id

    @property
    def reducer(self) -> Reducer:
        """The budget and the summarizer."""
        return self._core.reducer

    @property
    def background(self) -> bool:
        """True when reductions start off the hot path at the soft threshold."""
        return self._core.background

    @property
    def summary(self) -> Message | None:
        """The summary in the view (with ``summary_info`` provenance), if any."""
        return self._core.summary

    @property
    def system(self) -> Message | None:
        """The current system message, if any."""
        return self._core.system

    @property
    def size(self) -> int:
        """The view's size in the budget's unit (system message and summary included)."""
        return self._core.size

    @property
    def usage(self) -> dict[str, float]:
        """Provider usage summed over the whole history, and what summarizing it cost.

        ``meta["usage"]`` integer fields (the wrappers store each reply's usage), summed as a
        running total: each summary records the usage of the history it stands for, so no
        history is read for it. After a plain truncation (no summary to carry it) the head's
        usage is read from the history once: by ``Memory.usage`` when first asked (a reopen
        never reads it), by ``await AsyncMemory.refresh()`` for an ``AsyncMemory`` (until
        then the head counts as empty). Then the summarizer's spend on the session's committed
        reductions, as the latest summary records it (it survives restarts):
        ``summarizer_calls``, ``summarizer_input_tokens``, ``summarizer_output_tokens`` and
        ``summarizer_cost_usd`` (litellm's bundled prices; absent when zero).
        """
        return self._core.usage

    @property
    def reductions_paused(self) -> ReductionsPaused | None:
        """Why automatic reductions stopped, or ``None`` while they run.

        The loop breaker (``SummarizationReducer(loop_guard=...)``, see
        :mod:`summem.reducers.loop_guard`) pauses them when reductions in a row free almost
        nothing, or the summary keeps growing past its cap; it logs a warning saying why.
        While paused no turn calls the summarizer; a turn past the hard limit folds the span
        and the summary offline (extractive) instead, or truncates if even that does not fit
        (the summary leaves the view, the next reduction still starts from it; history
        keeps everything, and ``recall`` finds it).
        ``reduce()`` still summarizes on request; :meth:`resume_reductions` ends the pause.
        """
        return self._core.paused

    def resume_reductions(self) -> None:
        """Start automatic reductions again after a pause (see :attr:`reductions_paused`)."""
        self._core.resume()

    @property
    def uncovered_ids(self) -> list[str] | None:
        """Ids of the messages the latest reduction evicted that no summary line comes from.

        What that summary dropped (``recall`` still finds them); ``None`` when there is no
        summary or its summarizer records no provenance (an LLM's).
        """
        summary = self._core.summary
        info = summary.summary_info if summary is not None else None
        ids = info.extra.get("uncovered_ids") if info is not None else None
        return list(ids) if isinstance(ids, list) else None

    @property
    def summarizer_usage(self) -> dict[str, float]:
        """What the summarizer's calls cost since this memory was opened, rejected ones too.

        ``calls``, ``input_tokens``, ``output_tokens``, ``cost_usd``, and the same with a
        ``rejected_`` prefix for reductions whose summary was refused or whose calls failed
        (their tokens were billed all the same). Each committed summary also records its own
        usage in ``summary_info.extra["usage"]``.
        """
        with self._core.lock:
            return dict(self._core.summarizer_spent)

    def add_hook(self, hook: Hook) -> None:
        """Call ``hook`` with every event this memory emits (see :mod:`summem.events`).

        Hooks run in the thread (or task) doing the work, between store calls, never inside a
        store transaction; one that raises is logged and ignored. ``AsyncMemory`` awaits
        ``async def`` hooks; ``Memory`` refuses them.

        Raises:
            ConfigurationError: not callable, or async on a ``Memory``.
        """
        self._hooks.add(hook)

    def remove_hook(self, hook: Hook) -> None:
        """Stop calling ``hook`` (a no-op when it was not added)."""
        self._hooks.remove(hook)

    @property
    def spend_limit(self) -> SpendLimit | None:
        """The summarization budget this session draws on, if any."""
        return self._core.spend_limit

    @property
    def last_error(self) -> SummemError | None:
        """The last reduction failure, cleared by the next reduction that summarizes.

        The offline fold (or truncation) past the hard limit after a failure keeps it.
        """
        return self._core.last_error

    def _config(self) -> dict[str, Any]:
        from summem.reducers.records import reducer_record  # on export only

        return {
            "reducer": reducer_record(self._core.reducer),
            "background": self._core.background,
            "lease_ttl_seconds": self._lease_ttl,
        }

    @staticmethod
    def _resume_args(
        data: Mapping[str, Any], reducer: Reducer | None
    ) -> tuple[SessionDict, Resumed]:
        """Check a whole ``to_dict()`` dict (records and config) before anything is opened.

        Returns the session, and the constructor's arguments its config gives.

        Raises:
            StoreError: naming what is wrong in the dict.
        """
        from summem.reducers.records import reducer_from_record
        from summem.session.export import check_summary_role, parse_session_dict

        session = parse_session_dict(data)
        config = session.config
        ttl = config.get("lease_ttl_seconds", 120.0)
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not ttl > 0:
            raise StoreError(f"session dict: config 'lease_ttl_seconds' is invalid: {ttl!r}")
        if reducer is not None:
            check_summary_role(session.summary, reducer)
            return session, Resumed(reducer=reducer, background=None, lease_ttl_seconds=float(ttl))
        background = config.get("background")
        if background is not None and not isinstance(background, bool):
            raise StoreError(f"session dict: config 'background' is invalid: {background!r}")
        try:
            reducer = reducer_from_record(config.get("reducer"))
        except (SummemError, TypeError, ValueError) as exc:
            raise StoreError(f"session dict: config 'reducer' is unusable: {exc}") from exc
        check_summary_role(session.summary, reducer)
        resumed = Resumed(reducer=reducer, background=background, lease_ttl_seconds=float(ttl))
        return session, resumed

    def _recompute_reducer(self, summarizer: Summarizer | None) -> SummarizingReducer:
        reducer = self._core.summarizing
        if reducer is None:
            raise ReductionError(
                "recompute() needs a summarizing reducer, such as a SummarizationReducer "
                "(truncation has no summary)"
            )
        return reducer if summarizer is None else reducer.with_summarizer(summarizer)

    def note_sent(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        model: str,
        view: Sequence[Message] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: Any = None,
        prompt_cache_key: str | None = None,
    ) -> None:
        """Remember the request just sent to the assistant's model (the wrappers call this).

        A summarizer with ``reuse_cache=True`` then sends this request again, plus one
        instruction, so that its prefix is billed as a cache read. Call it after
        ``messages()`` if you call your model yourself.

        Args:
            messages: the messages as sent (``messages()``, possibly styled).
            model: the model they were sent to.
            view: the view they were rendered from (``view()`` at the same moment; by
                default the view now).
            tools: the tool definitions sent, if any.
            tool_choice: the ``tool_choice`` sent, if any.
            prompt_cache_key: OpenAI's ``prompt_cache_key`` sent, if any.
        """
        shown = list(view) if view is not None else self._core.view()
        self._core.sent = SentView.of(
            [dict(m) for m in messages],
            shown,
            model=model,
            tools=[dict(t) for t in tools] if tools else None,
            tool_choice=tool_choice,
            prompt_cache_key=prompt_cache_key,
        )

    def estimate_usage(self, view: list[Message], reply: dict[str, Any]) -> dict[str, Any]:
        """Usage for a reply whose provider reported none (a stream without a usage chunk).

        Counted with the reducer's tokenizer (an approximate one for a custom reducer): the
        view that was sent, and the reply. Marked ``estimated`` so totals can tell; the
        ``estimated_tokens`` field sums into ``memory.usage`` beside the reported counts.
        """
        reducer = self._core.reducer
        counter = reducer.token_counter if isinstance(reducer, BudgetReducer) else ApproxCounter()
        prompt = counter.request_overhead + sum(counter.count_message(m) for m in view)
        completion = counter.count_message(Message.from_openai(reply))
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "estimated_tokens": prompt + completion,
            "estimated": True,
        }

    def _recall_args(
        self, query: str | None, message_id: str | None, k: int, max_tokens: int
    ) -> dict[str, Any]:
        """Check a recall's arguments; the keyword arguments of ``recall_flow``."""
        if (query is None) == (message_id is None):
            raise ConfigurationError("recall takes a query or an id=..., exactly one of them")
        if query is not None and (not isinstance(query, str) or not query.strip()):
            raise ConfigurationError(f"recall's query must be a non-empty string, got {query!r}")
        if message_id is not None and not isinstance(message_id, str):
            raise ConfigurationError(f"recall's id must be a string, got {message_id!r}")
        for name, value in (("k", k), ("max_tokens", max_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"recall's {name} must be a positive integer: {value!r}")
        reducer = self._core.reducer
        counter = reducer.token_counter if isinstance(reducer, BudgetReducer) else ApproxCounter()
        return {
            "query": query,
            "message_id": message_id,
            "k": k,
            "max_tokens": max_tokens,
            "counter": counter,
        }

    @staticmethod
    def _record_items(messages: Iterable[MessageLike], mode: Mode) -> list[MessageLike]:
        if mode not in ("auto", "new", "full"):
            raise ConfigurationError(f"mode must be 'auto', 'new' or 'full', got {mode!r}")
        expect_batch(messages)
        return list(messages)

    @property
    def style(self) -> ViewStyle | None:
        """How :meth:`messages` renders the view by default (``None``: as stored)."""
        return self._style

    def _render(
        self, style: ViewStyle | None, provider: Provider | None = None, masked: bool = True
    ) -> tuple[list[dict[str, Any]], ProviderItemsLeftOut | None]:
        """The chat view, and the event saying which provider items it newly left out."""
        if style is not None and not isinstance(style, ViewStyle):
            raise ConfigurationError(f"style must be a summem ViewStyle, got {style!r}")
        if provider not in (None, *PROVIDERS):
            raise ConfigurationError(
                f"provider must be one of {list(PROVIDERS)} or None, got {provider!r}"
            )
        out, dropped = self._core.render(
            style if style is not None else self._style, provider=provider, masked=masked
        )
        return out, self._left_out(dropped, provider)

    def _items(self) -> tuple[list[dict[str, Any]], ProviderItemsLeftOut | None]:
        """The view as Responses items for OpenAI, and the event for what it left out."""
        from summem.formats.responses import to_items

        view, dropped = self._core.view_for("openai")
        return to_items(view), self._left_out(dropped, "openai")

    def _left_out(
        self, dropped: list[Message], provider: Provider | None
    ) -> ProviderItemsLeftOut | None:
        """The event for the provider items in ``dropped`` not announced before."""
        if not dropped:
            return None
        told = self._told_left_out
        new = [m for m in dropped if (m.id, provider) not in told]
        if not new:
            return None
        told.update((m.id, provider) for m in new)
        return ProviderItemsLeftOut(
            self.session_id,
            message_ids=tuple(m.id for m in new),
            providers=tuple(str((provider_item(m) or {}).get("provider")) for m in new),
            target=provider,
        )

    @property
    def has_provider_items(self) -> bool:
        """Whether the view holds provider items (compaction) some providers cannot read."""
        return self._core.foreign

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosedError(f"the memory of session {self.session_id!r} is closed")

    def _raise_background_error(self) -> None:
        exc = self._core.take_background_error()
        if exc is not None and self._core.fail_on_error:
            raise exc

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(session_id={self.session_id!r}, size={self.size}, "
            f"watermark={self._core.watermark}, background={self.background})"
        )


def _hostname() -> str:
    """This machine's name, as ``socket.gethostname()`` gives it.

    Without importing socket where ``os.uname`` has it: a memory is made on every start.
    """
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().nodename)
    import socket

    return socket.gethostname()
