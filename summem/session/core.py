"""The bookkeeping ``Memory`` and ``AsyncMemory`` share: a cached view and the reduction policy.

A memory must not re-read its session for every turn, so :class:`SessionCore` keeps a copy of
what the view needs: the system message, the summary, the watermark ``k``, ``history[k:]`` (the
tail) with each message's size, and the running total. A turn validates the new messages
against this copy (system rules, tool pairing), appends them to the store, and extends the copy
when the store's new length is the expected one; any other length means another writer
appended too, and the tail is read again (O(tail), never O(history)).

Everything here is pure and thread-safe (one internal lock; nothing here does I/O), so the sync
and async facades, their background workers and the flows in :mod:`summem.session.flows` can
all call it. The policy lives here too: when to reduce (threshold, soft threshold, back-off
after a failure, lease contention), how far (the reducer's cut, split into bounded spans), and
how a committed reduction is applied to a copy that may have grown meanwhile.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from summem.conversation import Batch, boundaries, check_batch, one_new, track_calls
from summem.errors import ConfigurationError, SummarizationError, SummemError
from summem.events import ReductionSkipped
from summem.formats.compaction import (
    PROVIDER_SUMMARY,
    Provider,
    anthropic_summary_turn,
    block_only,
    for_provider,
    natural_cut,
    provider_item,
    twin_due,
    twin_link,
)
from summem.messages import Message, MessageLike, flat_message, parse_message, parse_messages
from summem.observe.hooks import HookList
from summem.observe.spend import SpendLimit
from summem.reducers.base import Reducer, ReduceResult, SummarizingReducer
from summem.reducers.headroom import warn_if_no_headroom
from summem.reducers.loop_guard import LoopGuard, LoopWatch, ReductionsPaused
from summem.reducers.masking import MaskState
from summem.reducers.style import ViewStyle, apply_style, audio_transcripts
from summem.reducers.view import (
    DEFAULT_SUMMARY_PREFIX,
    SummaryPlacement,
    merge_into_first_user,
    render_view,
)
from summem.session.plan import Plan, PlanResult, pack_spans
from summem.session.readonly import freeze
from summem.session.render import RenderCache, render_message
from summem.session.usage import Usage, UsageLedger, sum_usage, summarizer_total
from summem.stores.base import SessionState
from summem.stores.summary_log import DEFAULT_KEEP_SUMMARIES
from summem.summarizers.base import summary_limit
from summem.summarizers.sent import SentView

__all__ = ["MAX_SPANS_PER_REDUCTION", "SessionCore", "Trigger"]

logger = logging.getLogger("summem")

Trigger = Literal["soft", "hard", "explicit"]

MAX_SPANS_PER_REDUCTION = 4
"""Summarizer calls one automatic reduction may make (each over at most one span), so a turn
after a rollback or a budget change never folds the whole history at once (I7)."""

_PLAIN_ROLES = frozenset(("user", "assistant"))
"""Roles whose plain-text message, just built, needs no check against the session."""

LEASE_RETRY_SECONDS = 1.0
"""After another worker was found holding the lease, automatic reductions wait this long."""


@dataclass
class _Backoff:
    """Automatic reductions wait after a failure, until the view or what it may evict grows.

    Attributes:
        growth: the view's growth still to come before the next try.
        epoch: the session's epoch at the failure.
        watermark: ``k`` at the failure: another start means another span.
        evictable: the size of what the cut could evict at the failure.
    """

    growth: int
    epoch: str
    watermark: int
    evictable: int


class SessionCore:
    """The cached view of one session and the reduction policy; pure and thread-safe.

    Args:
        session_id: the (validated) session id.
        reducer: the budget and the summarizer.
        background: start reductions off the hot path at the soft threshold; ``None`` turns
            it on when the reducer has a soft threshold.
    """

    def __init__(
        self,
        session_id: str,
        reducer: Reducer,
        *,
        background: bool | None,
        dispatching: bool = False,
    ) -> None:
        if not isinstance(reducer, Reducer):
            raise ConfigurationError(
                "reducer must implement summem.reducers.base.Reducer (unit, threshold, target, "
                f"size, head_size, plan_cut), got {reducer!r}"
            )
        summarizing = reducer if isinstance(reducer, SummarizingReducer) else None
        soft = summarizing.soft_threshold if summarizing is not None else None
        if dispatching:  # a fleet's memory (summem.fleet): background mode, jobs at soft
            if summarizing is None:
                raise ConfigurationError(
                    "a dispatcher needs a summarizing reducer (truncation has nothing to "
                    f"hand to a worker), got {reducer!r}"
                )
            if background is False:
                raise ConfigurationError("a dispatcher reduces off the turn: background=False")
            background = True
            soft = reducer.threshold if soft is None else soft
        self.dispatching = dispatching
        """Reductions run on a fleet's workers: past the hard limit the turn folds offline."""
        if background is None:
            background = soft is not None
        if background and soft is None:
            raise ConfigurationError(
                "background reduction needs a summarizing reducer with a soft threshold "
                "(soft_threshold_tokens or soft_threshold_messages)"
            )
        self.session_id = session_id
        self.reducer = reducer
        self.summarizing = summarizing
        """The reducer, when it writes summaries (``None``: plain truncation)."""
        self.soft_threshold = soft
        self.background = background
        self.hard_limit = reducer.threshold
        """Past this size a turn waits: the threshold, or in background mode the hard limit."""
        if background and summarizing is not None:
            self.hard_limit = max(reducer.threshold, getattr(summarizing, "hard_limit", 0))
            warn_if_no_headroom(summarizing)
        self.fail_on_error = summarizing.fail_on_error if summarizing is not None else True
        self.placement: SummaryPlacement = (
            summarizing.summary_placement if summarizing is not None else "after_system"
        )
        self.summary_prefix = (
            summarizing.summary_prefix if summarizing is not None else DEFAULT_SUMMARY_PREFIX
        )
        self._lock = threading.RLock()
        self.lock = self._lock
        """The core's lock, for readers outside it."""
        self.marks = 0
        """How many times the copy was marked stale: a snapshot read before a mark may predate a
        write of ours that landed in the store but not in the copy (see :meth:`reset`)."""
        self.stale = True
        self.recheck = False
        """Another worker may have committed: read again before planning a reduction."""
        self._backoff: _Backoff | None = None
        """Set by a failed reduction (see :meth:`failed`); ``None``: no back-off."""
        self._ceiling: int | None = None
        self._lease_retry_at = 0.0
        self._background_error: SummemError | None = None
        self.last_error: SummemError | None = None
        """The last reduction failure (cleared by a reduction that summarized)."""
        guard = getattr(summarizing, "loop_guard", LoopGuard()) if summarizing else None
        self.loop = (
            None
            if guard is None
            else LoopWatch(
                guard,
                threshold=reducer.threshold,
                target=reducer.target,
                unit=reducer.unit,
                summary_allowance=lambda: _summary_allowance(reducer),
            )
        )
        """Watches automatic reductions for loops (``None``: never pauses)."""
        self.paused: ReductionsPaused | None = None
        """Why automatic reductions stopped, if they did (see :meth:`resume`)."""
        self._told_truncating: ReductionsPaused | None = None  # the pause already warned of
        self._carried: tuple[str, Message] | None = None
        """``(epoch, summary)``: the summary a truncation at the hard limit took out of the
        view; the next reduction chains from it (a summary is never dropped for good)."""
        self._told_blocked: tuple[str, ...] = ()  # the messages whose open calls were named
        self.ledger = UsageLedger()
        self.summarizer_spent: dict[str, float] = {}
        """What this memory's summarizer calls cost, accepted or rejected (this process)."""
        self.hooks: HookList | None = None
        """Who hears this memory's events (set by the facade)."""
        self.spend_limit: SpendLimit | None = None
        """The summarization budget this session draws on, if any."""
        self.keep_summaries: int | None = DEFAULT_KEEP_SUMMARIES
        """Whole summaries the store's log keeps (older ones: metadata only; ``None``: all)."""
        self.sent: SentView | None = None
        """The request the assistant last sent (``Memory.note_sent``), for a summarizer that
        reuses its cached prefix; kept in this process only."""
        bound, head_bound = (getattr(reducer, n, None) for n in ("size_bound", "head_bound"))
        self.bounded = callable(bound) and callable(head_bound) and reducer.unit == "tokens"
        """The sizes kept may be upper bounds (see :meth:`exact`): the tokenizer waits until
        a decision depends on an exact count."""
        self._measure: Callable[[Message], int] = bound if self.bounded else reducer.size  # type: ignore[assignment]
        self._measure_head: Callable[[Message | None, Message | None], int] = (
            head_bound if self.bounded else reducer.head_size  # type: ignore[assignment]
        )
        self._remeasure = False
        acting = soft if background and soft is not None else self.hard_limit
        self._limit = min(self.hard_limit, acting)
        """The lowest size a decision is taken at (:meth:`decide`)."""
        self._set(None)

    # -- the cached copy ------------------------------------------------------------------

    def _set(self, state: SessionState | None) -> None:
        r = self.reducer
        self.epoch = state.epoch if state else ""
        self.version = state.version if state else 0
        self.watermark = state.watermark if state else 0
        self.length = state.length if state else 0
        self.system = state.system if state else None
        self.summary = state.summary if state else None
        self.tail: list[Message] = list(state.tail) if state else []
        masking = getattr(r, "masking", None)
        self.masks = MaskState(masking, _token_count(r)) if masking is not None else None
        """Which tail messages the view shows as stubs (``None``: masking is off)."""
        if self.masks is not None:
            for m in self.tail:
                self.masks.add(m)
        measure = self._measure
        self.sizes = [measure(self.shown(m)) for m in self.tail]
        self.total = sum(self.sizes)
        self.head = self._measure_head(self.system, self.summary)
        self.tail_ids = {m.id: m for m in self.tail}
        self.renders = RenderCache()
        self._rendered: list[dict[str, Any]] = []  # the rendered tail, a prefix of self.tail
        self._head_rendered: tuple[list[dict[str, Any]], tuple[Message | None, Message | None]]
        self._head_rendered = [], (None, None)  # the rendered system and summary, and of what
        self.open_calls: dict[str, None] = {}
        for m in self.tail:
            track_calls(self.open_calls, m)
        self._provider_items()
        self.ledger.loaded(self.epoch, self.watermark, self.summary, self.tail)

    def _provider_items(self) -> None:
        """Whether the tail holds provider items, and one a reduction should cut before."""
        self.foreign = any(provider_item(m) is not None for m in self.tail)
        """The tail holds provider items: views leave out what their target cannot read."""
        self.natural_due = self.foreign and self._twin_due(self.natural_cut(self.tail))
        """A provider item stands for the messages before it: their twin is due."""

    def _twin_due(self, at: int) -> bool:
        """A twin of ``tail[:at]`` is worth writing under the limits (see ``twin_due``)."""
        step = self.reducer.threshold - self.reducer.target
        return at > 0 and twin_due(self.tail[:at], self.sizes[:at], self.summary, step)

    def natural_cut(self, tail: list[Message]) -> int:
        """Right before the latest provider item in ``tail``, if a cut may fall there (else 0).

        The span before it is what the provider compacted; summarizing exactly that span
        gives the item's readable twin. No cut falls inside a group or at a pending call.
        """
        at = natural_cut(tail)
        if at == 0:
            return 0
        bounds = boundaries(tail)
        pending = bounds.pending_from
        if at not in bounds.starts or (pending is not None and at > pending):
            return 0
        return at

    def view_for(self, provider: Provider | None) -> tuple[list[Message], list[Message]]:
        """The view as ``provider`` may take it, and the provider items left out of it.

        See :func:`summem.formats.compaction.for_provider`: for OpenAI, the latest OpenAI
        compaction item is a natural cut; items another provider made are left out.
        """
        with self._lock:
            system, summary = self.system, self.summary
            tail = [self.shown(m) for m in self.tail] if self.masks is not None else self.tail
            if not self.foreign:
                return [m for m in (system, summary) if m is not None] + list(tail), []
            return for_provider(system, summary, tail, provider)

    def _summary_turn(self) -> dict[str, Any] | None:
        """The assistant turn with the summary's Anthropic block (delegated), if it has one."""
        info = self.summary.summary_info if self.summary is not None else None
        return anthropic_summary_turn(info.extra.get(PROVIDER_SUMMARY)) if info else None

    def shown(self, message: Message) -> Message:
        """A tail message as the view shows it: its stub when masked."""
        return self.masks.shown(message) if self.masks is not None else message

    def _masked(self, positions: list[int]) -> None:
        """Tail messages at ``positions`` became masked: their size and rendering change."""
        size, rendered = self.reducer.size, self._rendered
        for i in positions:
            stub = self.shown(self.tail[i])
            new = size(stub)
            self.total += new - self.sizes[i]
            self.sizes[i] = new
            if i < len(rendered):
                rendered[i] = render_message(stub)

    @property
    def stale(self) -> bool:
        """The copy must be read again before use (not loaded yet, or a write went wrong)."""
        return self._stale

    @stale.setter
    def stale(self, value: bool) -> None:
        with self._lock:
            if value:
                self.marks += 1
            self._stale = value

    def reset(self, state: SessionState | None, since: int | None = None) -> bool:
        """Replace the copy with a snapshot read from the store, unless the copy is newer.

        Snapshots are compared by (epoch, version, length): a snapshot read before one of our
        own appends or commits landed in the copy is ignored, so a slow reader never takes the
        copy backwards. ``since`` is :attr:`marks` before the snapshot was read: a stale copy
        marked again meanwhile (a write of ours landed that the copy could not take) refuses
        the snapshot, which may predate that write, and stays stale.

        Returns:
            False when a stale copy refused the snapshot (read it again), else True.
        """
        with self._lock:
            if since is not None and since != self.marks and self._stale:
                return False
            self.recheck = False
            if not self._newer(state):
                return True
            self._set(self._rebased(state))
            self.stale = False
            return True

    def _rebased(self, state: SessionState | None) -> SessionState | None:
        """``state`` plus the appends of ours it predates, when the copy's epoch is unknown.

        A copy made by our own appends (never read: no epoch) cannot compare versions. A
        snapshot shorter than the copy whose messages are the copy's, position for position,
        and whose history was only ever appended to (version 0: no commit, rewrite or clear
        since the session was created), was read before our later appends landed: they are
        put back on top of it (the store holds them after it, as each append of ours landed
        at the length the copy expected). Any other snapshot is taken as it is: the session
        cleared, or branched back to a prefix of ours, by another writer (the store may have
        lost what we appended after it; the next append's length tells if not).
        """
        if state is None or self._stale or self.epoch or state.length >= self.length:
            return state
        if state.version:
            return state
        if self.watermark or len(self.tail) != self.length or state.watermark > state.length:
            return state
        ours = self.tail[state.watermark : state.length]
        if [m.id for m in ours] != [m.id for m in state.tail]:
            return state
        extra = self.tail[state.length :]
        system = self.system if self.system is not None else state.system
        return replace(state, system=system, tail=[*state.tail, *extra], length=self.length)

    def _newer(self, state: SessionState | None) -> bool:
        if self._stale:
            return True
        if state is None:  # gone: trust it unless our own appends created the session since
            return bool(self.epoch) or self.length == 0
        if state.epoch != self.epoch:
            return True
        return state.version > self.version or (
            state.version == self.version and state.length >= self.length
        )

    def needs_load(self) -> bool:
        """True when the copy must be read before a reduction (stale, or epoch unknown)."""
        return self.stale or (self.length > 0 and not self.epoch)

    @property
    def size(self) -> int:
        """The view's size in the budget's unit (counted exactly: see :meth:`exact`)."""
        with self._lock:
            if self.bounded:
                self.exact()
            return self.head + self.total

    def exceeds(self, limit: int) -> bool:
        """Whether the view's size is over ``limit``.

        Counted exactly only when its upper bound is over it.
        """
        with self._lock:
            if self.head + self.total <= limit:
                return False  # the bound is within it, so is the size
            return self.size > limit

    def exact(self) -> None:
        """Count the view exactly from now on (the sizes kept so far may be upper bounds).

        A session measures its messages with the reducer's ``size_bound`` (at least the
        exact size; with a tokenizer, the text's UTF-8 bytes while the encoding is not
        loaded) until a decision depends on the size: the view's bound passes the lowest
        limit a turn acts at, a reduction is planned, or the caller reads :attr:`size`.
        Then every message of the view is counted once, exactly, and every later one as it
        arrives. The bound is never below the exact size, so no view is ever over a budget
        because of it.
        """
        with self._lock:
            if not self.bounded:
                return
            self.bounded = False
            self._remeasure = True  # a batch measured before this may be appended after it
            r = self.reducer
            self._measure, self._measure_head = r.size, r.head_size
            self.sizes = [r.size(self.shown(m)) for m in self.tail]
            self.total = sum(self.sizes)
            self.head = r.head_size(self.system, self.summary)

    def view(self) -> list[Message]:
        """``[system] + [summary]? + history[k:]``."""
        with self._lock:
            head = [m for m in (self.system, self.summary) if m is not None]
            if self.masks is None:
                return head + self.tail
            return head + [self.shown(m) for m in self.tail]

    def view_tail(self) -> list[Message]:
        """``history[k:]``: the conversation part of the view (as stored: never masked)."""
        with self._lock:
            return list(self.tail)

    def render(
        self,
        style: ViewStyle | None = None,
        *,
        provider: Provider | None = None,
        masked: bool = True,
    ) -> tuple[list[dict[str, Any]], list[Message]]:
        """The view as chat-completions dicts in a fresh list, in ``style`` if given.

        The dicts are read-only and shared between calls (see
        :mod:`summem.session.readonly`); only the messages new since the last call are
        rendered, so a call costs a list of references, not a copy of the view. Provider
        items ``provider`` cannot read (all of them for ``None``) are left out, and returned.
        ``masked=False``: masked tool results as they are stored (a server clears them).
        """
        out: list[dict[str, Any]]
        with self._lock:
            if (
                self.foreign
                or (not masked and self.masks is not None)
                or (provider == "anthropic" and self._summary_turn() is not None)
            ):
                return self._render_for(style, provider, masked)
            system, summary = self.system, self.summary
            rendered, tail = self._rendered, self.tail
            done = len(rendered)
            if done < len(tail):  # new messages: rendered once here, kept in _rendered
                if self.masks is None:
                    rendered.extend(map(render_message, tail[done:]))
                else:
                    rendered.extend(render_message(self.shown(m)) for m in tail[done:])
            placement = self.placement if summary is not None else "after_system"
            if placement == "after_system":  # the common case: the list is copied once
                head, of = self._head_rendered
                if of[0] is not system or of[1] is not summary:
                    head = [self.renders.render(m) for m in (system, summary) if m is not None]
                    self._head_rendered = head, (system, summary)
                out = head + rendered
            else:
                dicts = list(rendered)
        if placement == "system_suffix":
            out = [freeze(d) for d in render_view(system, summary, (), placement=placement)]
            out += dicts
        elif placement == "first_user" and summary is not None:
            out = [self.renders.render(system)] if system is not None else []
            out += [freeze(d) for d in merge_into_first_user(summary.text, dicts[:1])]
            out += dicts[1:]
        elif placement != "after_system":  # the reducer checks it; only a later assignment
            raise ConfigurationError(f"unknown summary placement {placement!r}")
        if style is not None and not style.is_plain:
            heard = audio_transcripts(tail) if style.reply_as_text else None
            out = apply_style(out, style, transcripts=heard)
        return out, []

    def _render_for(
        self, style: ViewStyle | None, provider: Provider | None, masked: bool = True
    ) -> tuple[list[dict[str, Any]], list[Message]]:
        """:meth:`render`'s slow path (lock held): provider items, or no masking."""
        system, summary = self.system, self.summary
        shown = [self.shown(m) for m in self.tail] if masked else list(self.tail)
        # a chat-completions view: OpenAI's compaction items are Responses input (items()),
        # so for OpenAI too they are left out here; only Anthropic's blocks ride on a turn
        chat = provider if provider == "anthropic" else None
        kept, dropped = for_provider(None, None, shown, chat)
        gone = {m.id for m in dropped}
        placement = self.placement if summary is not None else "after_system"
        rendered = render_view(system, summary, kept, placement=placement)
        if chat == "anthropic":
            rendered = [block_only(d) for d in rendered]
        out = [freeze(d) for d in rendered]
        turn = self._summary_turn() if provider == "anthropic" else None
        if turn is not None and placement != "system_suffix":
            # the summary's Anthropic block, in an assistant turn right after the summary
            at = len(out) - len(kept)
            merged = placement == "first_user" and len(out) == len(kept) + (system is not None)
            out.insert(at + 1 if merged else at, freeze(turn))
        if style is not None and not style.is_plain:
            tail = [m for m in self.tail if m.id not in gone or provider_item(m) is None]
            heard = audio_transcripts(tail) if style.reply_as_text else None
            out = apply_style(out, style, transcripts=heard)
        return out, dropped

    # -- accepting messages -----------------------------------------------------------------

    def prepare(self, items: MessageLike | Iterable[MessageLike], *, single: bool) -> Batch:
        """Validate a batch whole against the session (nothing is stored yet).

        Raises:
            MessageValidationError: a bad message, a summary message, or a tool result that
                answers no pending tool call (naming its ``tool_call_id``).
        """
        if single:
            flat = flat_message(items, None) if type(items) is dict else None
            if flat is not None and flat.role in _PLAIN_ROLES:
                # The common turn: a user or assistant message of plain text, just built (so
                # its id is new, it is no summary and carries no call): it changes neither
                # the system message nor the pending calls and cannot fail, as check_batch's
                # own fast lane settles it, without its lookups.
                return one_new(flat, self._measure(flat), self.system)
            msgs = [flat if flat is not None else parse_message(cast("MessageLike", items))]
        else:
            msgs = parse_messages(cast("Iterable[MessageLike]", items))
        with self._lock:
            system, calls = self.system, self.open_calls
            pending = dict(calls) if calls else {}
        return check_batch(msgs, system, pending, self.tail_ids, size=self._measure, single=single)

    def system_set(self, system: Message | None) -> None:
        """Record a system message written to the store."""
        with self._lock:
            if self.system is not system:
                self.renders.forget([self.system])  # a replaced system message is never shown again
            self.system = system
            self.head = self._measure_head(system, self.summary)

    def appended(self, batch: Batch, new_length: int) -> bool:
        """Extend the copy after an append; False when another writer appended too.

        The store's new length tells: it must be our length plus the batch. Otherwise the copy
        is marked stale and the caller reads the tail again.
        """
        history = batch.history
        with self._lock:
            if self._stale or new_length != self.length + len(history):
                self.stale = True
                return False
            sizes = batch.sizes
            if self._remeasure:  # the writer's batch in flight at exact() (one: writes are
                self._remeasure = False  # serialised by the facades) is counted exactly
                sizes = [self._measure(m) for m in history]
            self.tail.extend(history)
            self.sizes.extend(sizes)
            grown = sum(sizes)
            self.total += grown
            tail_ids, open_calls = self.tail_ids, self.open_calls
            foreign = False
            for msg in history:
                tail_ids[msg._id] = msg
                if msg.tool_calls or msg.role == "tool":  # the only messages that change calls
                    track_calls(open_calls, msg)
                # a provider item is marked in meta, or is an assistant message with content
                # parts or extras (Anthropic's compaction blocks); usage lives in meta too
                if msg._meta:
                    sum_usage((msg,), self.ledger.tail)
                    foreign = foreign or provider_item(msg) is not None
                elif msg._extra is not None or type(msg.content) is list:
                    foreign = foreign or provider_item(msg) is not None
            if foreign:
                self.foreign = True
                self.natural_due = self._twin_due(self.natural_cut(self.tail))
            if self.masks is not None:
                for msg in history:
                    self._masked(self.masks.add(msg))
            self.length = new_length
            backoff = self._backoff
            if backoff is not None:
                backoff.growth -= grown
                if backoff.growth <= 0:
                    self._backoff = None
            return True

    # -- when to reduce ---------------------------------------------------------------------

    def next_action(self, *, in_flight: bool) -> Trigger | None:
        """What the turn must do: ``"hard"`` (block), ``"soft"`` (start in background), nothing.

        Blocking mode: past the threshold the turn blocks (runs a reduction). Background
        mode: past the soft threshold a reduction starts off the hot path; the view may then
        run over the threshold while it is in flight, and only past the hard limit does the
        turn block (joins the reduction in flight, or runs one). Either way a failure's
        back-off or another worker's lease may say to wait instead.
        """
        return self.decide(in_flight=in_flight)[0]

    def decide(self, *, in_flight: bool) -> tuple[Trigger | None, ReductionSkipped | None]:
        """:meth:`next_action`, and the event saying why a due reduction does not start."""
        with self._lock:
            size = self.head + self.total  # an upper bound while bounded
            if size <= self._limit:
                if self.natural_due and self.summarizing is not None and not in_flight:
                    # a provider compacted what comes before its item: write the twin
                    return self._may_start("soft" if self.background else "hard")
                return None, None  # under every limit a turn acts at (the fast path)
            size = self.size
            if size > self.hard_limit:
                return ("hard", None) if in_flight else self._may_start("hard")
            soft = self.soft_threshold
            if self.paused is not None:  # only past the hard limit, without the summarizer
                if self.background and soft is not None and size > soft and not in_flight:
                    paused = self.paused
                    detail = f"{paused.detail}; Memory.resume_reductions() resumes them"
                    skipped = ReductionSkipped(
                        self.session_id, reason="paused", trigger="soft", detail=detail
                    )
                    return None, skipped
                return None, None
            if self.background and soft is not None and size > soft and not in_flight:
                return self._may_start("soft")
            return None, None

    def _blocked_by_calls(self, tail: list[Message], size: int, limit: int) -> None:
        """Warn (once per set of calls) when unanswered tool calls keep the view from shrinking.

        Nothing at or after a call still waiting for its results is evicted (its results must
        find it in the view): a call the application never answers holds the view over its
        budget for good, and says so here rather than growing in silence.
        """
        with self._lock:
            open_calls = tuple(self.open_calls)
        # the latest call with each open id (an id may be reused: ``call_0`` every turn)
        latest = {c: i for i, m in enumerate(tail) for c in m.tool_call_ids if c in open_calls}
        carriers = tuple(sorted({tail[i].id for i in latest.values()}))
        if not open_calls or not latest or carriers == self._told_blocked:
            self._told_blocked = carriers if open_calls else ()
            return
        first = min(latest.values())
        if all(m.role == "tool" for m in tail[first + 1 :]):
            return  # the calls are the newest turn: the application is running its tools
        self._told_blocked = carriers
        logger.warning(
            "session %r: the view (%d) is over %d and cannot be reduced: tool call(s) %s have "
            "no result, and nothing from an unanswered call on is evicted (%d messages); add "
            "their results (an error result will do)",
            self.session_id,
            size,
            limit,
            ", ".join(repr(c) for c in open_calls[:5]),
            len(tail) - first,
        )

    def _may_start(self, trigger: Trigger) -> tuple[Trigger | None, ReductionSkipped | None]:
        backoff = self._backoff
        if backoff is not None and self._span_changed(backoff):
            self._backoff = backoff = None
        if backoff is not None and self.size <= self.ceiling:
            detail = (
                f"a reduction failed; {backoff.growth} more of growth, or "
                f"{self.reducer.threshold - self.reducer.target} more that may be evicted, "
                "before the next try"
            )
            return None, ReductionSkipped(
                self.session_id, reason="backoff", trigger=trigger, detail=detail
            )
        if time.monotonic() < self._lease_retry_at:
            return None, ReductionSkipped(
                self.session_id,
                reason="lease_held",
                trigger=trigger,
                detail="another worker held the reduction lease moments ago",
            )
        return trigger, None

    @property
    def ceiling(self) -> int:
        """The size no back-off holds the view over: the hard limit, whatever the mode.

        In blocking mode turns wait at the threshold, but the reducer's hard limit (the
        model's context window by default) still bounds the view: past it a back-off ends
        in an offline extractive summary, or truncation if even that fails (:meth:`plan`).
        """
        if self._ceiling is None:
            self._ceiling = max(self.hard_limit, getattr(self.summarizing, "hard_limit", 0))
        return self._ceiling

    def _evictable(self) -> int:
        """The size of what the cut would evict now (lock held)."""
        sizes = self.sizes
        return sum(sizes[: self.reducer.plan_cut(self.system, self.tail, sizes)])

    def _span_changed(self, backoff: _Backoff) -> bool:
        """Whether what a reduction may evict changed since the failure (lock held).

        Another start (a commit elsewhere, a rollback, a fork), or as much newly evictable as
        a reduction exists to free (``threshold - target``): a group that was the newest, or
        held by a pending call, when the reduction failed may be most of the view now.
        """
        if (self.epoch, self.watermark) != (backoff.epoch, backoff.watermark):
            return True
        room = self.reducer.threshold - self.reducer.target
        return self._evictable() - backoff.evictable >= room

    def lease_busy(self) -> None:
        """Another worker holds the lease: wait a little, and read again before planning."""
        with self._lock:
            self._lease_retry_at = time.monotonic() + LEASE_RETRY_SECONDS
            self.recheck = True

    def plan(self, trigger: Trigger) -> Plan | None:
        """The reduction to run now, or ``None`` when the view is within the trigger's limit."""
        r = self.reducer
        with self._lock:
            size = self.size
            if trigger == "explicit":
                limit = r.target
            elif trigger == "soft" and self.soft_threshold is not None:
                limit = self.soft_threshold
            else:
                limit = r.threshold
            natural = self.natural_cut(self.tail) if self.foreign else 0
            if size <= limit and not (natural and self.natural_due):
                return None
            tail, sizes = list(self.tail), list(self.sizes)
            previous = self.summary
            if previous is None and self._carried is not None and self._carried[0] == self.epoch:
                previous = self._carried[1]
            snapshot = (self.epoch, self.version, self.watermark, previous)
            system = self.system
        # the twin of a provider's compaction: exactly the span its item stands for (a view
        # still over its limit is reduced further next turn); only a view that would stay
        # past its ceiling (the context window) goes further now, the item folded in too
        cut = natural
        room = self._summary_room(system, sizes, natural, self.ceiling) if natural else 0
        if not natural or room < _summary_allowance(r):
            cut = max(natural, r.plan_cut(system, tail, sizes))
        if cut == 0:
            self._blocked_by_calls(tail, size, limit)
            return None
        epoch, version, watermark, previous = snapshot
        automatic = trigger != "explicit"
        if self.dispatching and trigger == "hard":
            # the fleet's worker did not answer in time: keep the hard limit in the turn,
            # offline (summem.fleet announces it with a DispatchOverdue event)
            return self._fold(
                snapshot,
                tail[:cut],
                size,
                self._summary_room(system, sizes, cut, self.hard_limit),
                tail[cut:],
            )
        if self.paused is not None and automatic and self.summarizing is not None:
            room = self._summary_room(system, sizes, cut, self.hard_limit)
            if natural and cut == natural and size <= self.hard_limit:
                # a provider item's twin, due under the limits: written offline, still linked
                logger.debug(
                    "session %r: reductions are paused (%s): the twin of a provider's "
                    "compaction item (%d messages) is written offline (an extractive summary)",
                    self.session_id,
                    self.paused.reason,
                    cut,
                )
                fold = self._fold(snapshot, tail[:cut], size, room, tail[cut:])
                return replace(fold, twin_of=twin_link(tail[cut]))
            # a warning the first time in a pause, then debug: a system message over the
            # budget folds offline on every turn, and the events say so each time; the offline
            # summary is made to fit the room left (a smaller summary rather than none)
            told, self._told_truncating = self._told_truncating is self.paused, self.paused
            (logger.debug if told else logger.warning)(
                "session %r: reductions are paused (%s) and the view (%d) is past its hard "
                "limit (%d): folding %d messages without summarizing with the model "
                "(an extractive summary, offline)",
                self.session_id,
                self.paused.reason,
                size,
                self.hard_limit,
                cut,
            )
            return self._fold(snapshot, tail[:cut], size, room, tail[cut:])
        if self._backing_off_past_ceiling(automatic, size):
            # the summarizer failed on this very span: the chain ends in what fits (I7)
            logger.warning(
                "session %r: a reduction failed and the view (%d) is past its hard limit "
                "(%d): folding %d messages without summarizing with the model (an extractive "
                "summary, offline; the history and the summary log keep everything)",
                self.session_id,
                size,
                self.ceiling,
                cut,
            )
            return self._fold(
                snapshot,
                tail[:cut],
                size,
                self._summary_room(system, sizes, cut, self.ceiling),
                tail[cut:],
            )
        # The summarizer reads the originals: spans are packed by their size, not the stubs'.
        read = sizes[:cut] if self.masks is None else [r.size(m) for m in tail[:cut]]
        spans = pack_spans(tail[:cut], read, r.threshold, final=True)
        if self.summarizing is not None:
            keep = MAX_SPANS_PER_REDUCTION
            if self.background and trigger != "explicit":
                keep = self._spans_to_commit(spans, sizes, size, trigger)
            spans = spans[:keep]
            cut = sum(len(s) for s in spans)
        twin = twin_link(tail[cut]) if natural and cut == natural else None
        room = self._summary_room(system, sizes, cut, r.target)
        return Plan(
            epoch,
            version,
            watermark,
            tail[:cut],
            spans,
            previous,
            size,
            automatic,
            summary_room=room,
            twin_of=twin,
            kept=tuple(tail[cut:]),
        )

    def _summary_room(self, system: Message | None, sizes: list[int], cut: int, limit: int) -> int:
        """The room a summary has under ``limit`` once ``cut`` tail messages are evicted."""
        return limit - sum(sizes[cut:]) - self.reducer.head_size(system, None)

    @staticmethod
    def _fold(
        snapshot: tuple[str, int, int, Message | None],
        span: list[Message],
        size: int,
        room: int | None,
        kept: Sequence[Message] = (),
    ) -> Plan:
        """A plan that folds ``span`` offline (an extractive summary) within ``room``.

        ``kept``: the turns the view keeps after it (read-only context for the summarizer).
        """
        epoch, version, watermark, previous = snapshot
        return Plan(
            epoch,
            version,
            watermark,
            span,
            [],
            previous,
            size,
            truncate=True,
            summary_room=room,
            kept=tuple(kept),
        )

    def fits(self, plan: Plan, summary: Message) -> bool:
        """Whether the view, once ``plan`` commits with ``summary``, is within the hard limit."""
        with self._lock:
            cut = len(plan.evicted)
            if cut > len(self.tail) or self.tail[cut - 1].id != plan.evicted[-1].id:
                return True  # the copy moved on: the commit's CAS decides
            after = self.total - sum(self.sizes[:cut])
            limit = self.hard_limit if self.paused is not None else self.ceiling
            return after + self.reducer.head_size(self.system, summary) <= limit

    def _backing_off_past_ceiling(self, automatic: bool, size: int) -> bool:
        """An automatic reduction past the hard limit, while a back-off holds (same span)."""
        with self._lock:
            backoff = self._backoff
            if not automatic or backoff is None or self.summarizing is None:
                return False
            return size > self.ceiling and not self._span_changed(backoff)

    def _spans_to_commit(
        self, spans: list[list[Message]], sizes: list[int], size: int, trigger: Trigger
    ) -> int:
        """How many spans a background-mode reduction folds before it commits.

        One (one summarizer call): the view drops as soon as that summary lands, and a turn
        at the hard limit waits for one call, not four; the next turn starts the next
        reduction if the view is still over the soft threshold. A turn blocked at the hard
        limit folds as many as it takes to leave room under it (at most
        :data:`MAX_SPANS_PER_REDUCTION`).
        """
        if trigger != "hard":
            return 1
        room = self.hard_limit - (self.reducer.threshold - self.reducer.target)
        evicted, done = 0, 0
        for keep, span in enumerate(spans[:MAX_SPANS_PER_REDUCTION], start=1):
            evicted += sum(sizes[done : done + len(span)])
            done += len(span)
            if size - evicted <= room:
                return keep
        return MAX_SPANS_PER_REDUCTION

    def head_usage_after(self, plan: Plan) -> dict[str, int] | None:
        """The usage ``history[:k']`` will have once the plan commits (``None``: unknown)."""
        with self._lock:
            return self.ledger.head_after(plan.epoch, plan.watermark, plan.evicted)

    # -- after a commit or a failure --------------------------------------------------------

    def committed(self, plan: Plan, outcome: PlanResult, version: int) -> ReduceResult:
        """Apply a committed reduction to the copy (which may have grown meanwhile)."""
        with self._lock:
            cut = len(plan.evicted)
            same = (self.epoch, self.version, self.watermark) == (
                plan.epoch,
                plan.version,
                plan.watermark,
            )
            if same and cut <= len(self.tail) and self.tail[cut - 1].id == plan.evicted[-1].id:
                evicted = sum(self.sizes[:cut])
                head_before = self.head
                self.total -= evicted
                del self.tail[:cut]
                del self._rendered[:cut]
                del self.sizes[:cut]
                for m in plan.evicted:
                    self.tail_ids.pop(m.id, None)
                if self.masks is not None:
                    self.masks.drop(plan.evicted)
                self.renders.forget([self.summary])
                self.summary = outcome.summary
                if self.foreign:  # after the summary: whether a twin is due depends on it
                    self._provider_items()
                self._carried = None
                if outcome.summary is None and plan.previous is not None:
                    self._carried = (plan.epoch, plan.previous)
                self.head = self.reducer.head_size(self.system, self.summary)
                self.ledger.moved(plan.epoch, plan.watermark, plan.new_watermark, plan.evicted)
                self.watermark = plan.new_watermark
                self.version = version
                if plan.automatic and not plan.truncate and plan.twin_of is None:
                    # (a twin is due however little it frees: the loop breaker ignores it)
                    self._watch(plan, evicted - (self.head - head_before))
            elif (self.epoch, self.version) == (plan.epoch, plan.version):
                self.stale = True  # the copy cannot be patched: read it again
            self._backoff = None
            if not plan.truncate:  # a fold at the hard limit is a failure's fallback
                self.last_error = None
            self._spend(
                {
                    "calls": outcome.calls,
                    "input_tokens": outcome.input_tokens,
                    "output_tokens": outcome.output_tokens,
                    "cost_usd": outcome.cost_usd,
                }
            )
            return ReduceResult(
                view=self.view(),
                summary=outcome.summary,
                evicted=list(plan.evicted),
                reduced=True,
                size_before=plan.size_before,
                size_after=self.size,
                summarizer_calls=outcome.calls,
                summarizer_input_tokens=outcome.input_tokens,
                placement=self.placement,
            )

    def _watch(self, plan: Plan, freed: int) -> None:
        """Show the loop breaker a committed automatic reduction (lock held)."""
        if self.loop is None or self.paused is not None:
            return
        verdict = self.loop.observe(
            freed=freed,
            size_after=plan.size_before - freed,
            summary_before=_summary_size(self.reducer, plan.previous),
            summary_after=_summary_size(self.reducer, self.summary),
        )
        if verdict is not None:
            self.paused = verdict
            logger.warning(
                "session %r: automatic reductions paused (%s): %s; Memory.resume_reductions() "
                "starts them again",
                self.session_id,
                verdict.reason,
                verdict.detail,
            )

    def resume(self) -> None:
        """Start automatic reductions again after a pause."""
        with self._lock:
            self.paused = None
            if self.loop is not None:
                self.loop.reset()

    def recomputed(
        self, epoch: str, version: int, summary: Message, new_version: int, usage: dict[str, int]
    ) -> None:
        """Apply a committed recompute (same watermark, new summary, head usage re-summed)."""
        with self._lock:
            if (self.epoch, self.version) == (epoch, version):
                self.ledger.filled(epoch, 0, self.watermark, usage)
                self.renders.forget([self.summary])
                self.summary = summary
                self.head = self.reducer.head_size(self.system, summary)
                self.version = new_version
            else:
                self.stale = True

    def failed(self, exc: SummemError, *, background: bool) -> ReduceResult:
        """Record a failed reduction: back off until something changes.

        The back-off ends after ``threshold - target`` of growth, or as much that may be
        evicted (the span the reduction failed on changed), or when the view starts from
        elsewhere; past the hard limit it ends in truncation (see :meth:`plan`): a back-off
        never holds the view there.
        """
        logger.warning(
            "session %r: reduction failed, view left unreduced: %s", self.session_id, exc
        )
        with self._lock:
            room = self.reducer.threshold - self.reducer.target
            self._backoff = _Backoff(room, self.epoch, self.watermark, self._evictable())
            self.last_error = exc
            if isinstance(exc, SummarizationError):
                self._spend({**exc.usage, "cost_usd": exc.cost_usd or 0.0}, rejected=True)
            if background:
                self._background_error = exc
            return ReduceResult(
                view=self.view(),
                summary=self.summary,
                size_before=self.size,
                size_after=self.size,
                error=exc,
                placement=self.placement,
            )

    def _spend(self, usage: dict[str, float], *, rejected: bool = False) -> None:
        """Add one reduction's summarizer usage to the running totals (lock held)."""
        spent = self.summarizer_spent
        for key, value in usage.items():
            if value:
                spent[key] = spent.get(key, 0) + value
                if rejected:
                    spent[f"rejected_{key}"] = spent.get(f"rejected_{key}", 0) + value

    def take_background_error(self) -> SummemError | None:
        """The failure of a background reduction nobody has seen yet (then forgotten)."""
        with self._lock:
            exc, self._background_error = self._background_error, None
            return exc

    def branched(self, at: int) -> None:
        """The store's history became ``history[:at]`` plus new messages: read it again.

        What this copy remembers of the abandoned messages goes: a summary a truncation took
        out of the view (when it may cover them) and the request last sent (a summarizer
        reusing its cached prefix would read them).
        """
        with self._lock:
            carried = self._carried
            info = carried[1].summary_info if carried is not None else None
            if carried is not None and (info is None or info.watermark > at):
                self._carried = None
            self.sent = None
            self.stale = True

    def cleared(self) -> None:
        """Forget the failure state (and a pause) after ``clear()``."""
        self.resume()
        with self._lock:
            self._backoff = None
            self._background_error = None
            self.last_error = None

    # -- usage ------------------------------------------------------------------------------

    @property
    def usage(self) -> dict[str, float]:
        """Provider usage summed over the whole history, and the summarizer's (prefixed)."""
        with self._lock:
            total = Usage(self.ledger.total())
            for key, value in summarizer_total(self.summary).items():
                if value:
                    total[f"summarizer_{key}"] = value
            return total

    def usage_gap(self) -> tuple[str, int, int] | None:
        """(epoch, start, stop): the history range to read before :attr:`usage` is exact."""
        with self._lock:
            gap = self.ledger.gap(self.epoch, self.watermark)
            return None if gap is None else (self.epoch, *gap)

    def usage_filled(self, epoch: str, start: int, stop: int, usage: dict[str, int]) -> None:
        """Usage summed over ``history[start:stop]`` was read."""
        with self._lock:
            self.ledger.filled(epoch, start, stop, usage)


def _token_count(reducer: Reducer) -> Callable[[Message], int]:
    """A counter of a message's tokens, for masking.

    A closure over the reducer, not a bound method of the core: kept in the core's own
    ``masks``, that would be a reference cycle.
    """

    def count(message: Message) -> int:
        counter = getattr(reducer, "token_counter", None)
        return counter.count_message(message) if counter is not None else reducer.size(message)

    return count


def _summary_size(reducer: Reducer, summary: Message | None) -> int:
    """A summary's share of the budget (the most any view sends for it; 0: no summary)."""
    if summary is None:
        return 0
    measure = getattr(reducer, "summary_size", None)
    return int(measure(summary)) if callable(measure) else reducer.size(summary)


def _summary_allowance(reducer: Reducer) -> int:
    """A summary message's size at its own ``summary_max_tokens`` (0: the reducer has none).

    The loop guard never calls such a summary *growing*. It is the room the reducer reserves
    for a summary without the slack validation accepts on top (a summary in the slack, larger
    every time, still counts as growing).
    """
    reserve = getattr(reducer, "summary_reserve", None)
    most = getattr(reducer, "summary_max_tokens", None)
    if not callable(reserve) or not isinstance(most, int):
        return 0
    room = reserve()
    if not isinstance(room, int):
        return 0
    return room - (summary_limit(most) - most) if reducer.unit == "tokens" else room
