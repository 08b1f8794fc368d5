"""The value objects and pure helpers behind :class:`~summem._session.SessionCore`.

Kept apart so the core stays about the cached view and the policy: a validated :class:`Batch`
(system rules and tool pairing checked against the session), a reduction :class:`Plan` and what
the summarizer :class:`Folded` into it, the packing of an evicted span into bounded summarizer
calls, and the usage sums the wrappers read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from summem._flow import Flow
from summem.exceptions import MessageValidationError
from summem.messages import Message, copy_json, new_message_id
from summem.reducers._cut import boundaries
from summem.reducers.base import apply_system
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer

__all__ = [
    "HISTORY_USAGE_KEY",
    "Batch",
    "Folded",
    "Plan",
    "RenderCache",
    "UsageLedger",
    "check_batch",
    "fold_flow",
    "pack_spans",
    "sum_usage",
    "track_calls",
]


@dataclass(frozen=True)
class Batch:
    """A validated batch, ready to store.

    Attributes:
        accepted: every input message as stored, in input order (system messages included).
        history: the messages to append (no system messages).
        sizes: their sizes in the budget's unit.
        system: the system message after the batch.
        system_changed: True when ``system`` must be written to the store.
    """

    accepted: list[Message]
    history: list[Message]
    sizes: list[int]
    system: Message | None
    system_changed: bool


@dataclass(frozen=True)
class Plan:
    """A reduction planned against one snapshot; its commit is a CAS on (epoch, version).

    Attributes:
        epoch: the session's epoch at planning time.
        version: the session's version at planning time.
        watermark: ``k`` at planning time.
        evicted: ``history[k:k']``, the messages this reduction folds in.
        spans: ``evicted`` cut at group boundaries, one summarizer call each.
        previous: the summary being replaced.
        size_before: the view's size when planned.
    """

    epoch: str
    version: int
    watermark: int
    evicted: list[Message]
    spans: list[list[Message]]
    previous: Message | None
    size_before: int

    @property
    def new_watermark(self) -> int:
        """``k'``: the watermark this reduction commits."""
        return self.watermark + len(self.evicted)


@dataclass(frozen=True)
class Folded:
    """What the summarizer produced for a plan (``summary=None``: plain truncation)."""

    summary: Message | None
    calls: int = 0
    input_tokens: int = 0


def pack_spans(
    messages: Sequence[Message], sizes: Sequence[int], limit: int, *, final: bool
) -> list[list[Message]]:
    """Cut ``messages`` into consecutive spans of whole groups, each of size ``<= limit``.

    A group larger than ``limit`` forms a span of its own. With ``final=False`` the last group
    (which may continue past ``messages``) and the last, unfilled span are left out: the caller
    keeps them for the next call.
    """
    starts = list(boundaries(messages).starts)
    ends = [*starts[1:], len(messages)]
    groups = list(zip(starts, ends, strict=True))
    if not final and groups:
        groups.pop()
    spans: list[list[Message]] = []
    lo, total = 0, 0
    for start, end in groups:
        size = sum(sizes[start:end])
        if start > lo and total + size > limit:
            spans.append(list(messages[lo:start]))
            lo, total = start, 0
        total += size
    end = groups[-1][1] if groups else 0
    if end > lo and (final or total >= limit):
        spans.append(list(messages[lo:end]))
    return spans


def check_batch(
    msgs: Sequence[Message],
    system: Message | None,
    pending: dict[str, None],
    known: set[str] | frozenset[str],
    *,
    size: Callable[[Message], int],
    single: bool,
) -> Batch:
    """Apply the system rules and check tool pairing for a parsed batch, in order.

    ``pending`` holds the session's unanswered tool call ids (it is updated in place);
    ``known`` the ids already in the view: a message carrying one of them (the same object
    added twice) gets a new id, so history never holds an id twice. ``size`` measures each
    message to append, in the budget's unit.

    Raises:
        MessageValidationError: a summary message, a tool result answering no pending call
            (naming its ``tool_call_id``), or a tool call id already pending.
    """
    current = system
    seen: set[str] = set()
    accepted: list[Message] = []
    history: list[Message] = []
    for i, msg in enumerate(msgs):
        index = None if single else i
        if msg.is_summary:
            raise MessageValidationError(
                "a summary written by summem cannot be added back; add conversation "
                "messages (history()), not the view",
                index=index,
            )
        if msg.is_system:
            system = apply_system(system, msg)
            accepted.append(system)
            continue
        if msg.id in known or msg.id in seen:
            msg = msg.with_id(new_message_id())
        if msg.role == "tool":
            call_id = msg.tool_call_id or ""
            if call_id not in pending:
                raise MessageValidationError(
                    f"tool result answers no pending tool call in this session: "
                    f"tool_call_id {call_id!r} is unknown or already answered",
                    index=index,
                    field="tool_call_id",
                )
            del pending[call_id]
        for call_id in msg.tool_call_ids:
            if call_id in pending:
                raise MessageValidationError(
                    f"tool call id {call_id!r} is already pending in this session",
                    index=index,
                    field="tool_calls",
                )
            pending[call_id] = None
        seen.add(msg.id)
        history.append(msg)
        accepted.append(msg)
    changed = system is not None and (current is None or not system.same_content(current))
    if system is not None and current is not None and not changed:
        system = current  # same content as stored: keep the stored message (and its id)
        accepted = [current if m.is_system else m for m in accepted]
    return Batch(accepted, history, [size(m) for m in history], system, changed)


def track_calls(pending: dict[str, None], msg: Message) -> None:
    if msg.role == "tool":
        pending.pop(msg.tool_call_id or "", None)
    for call_id in msg.tool_call_ids:
        pending[call_id] = None


def _add_usage(total: dict[str, int], msg: Message) -> None:
    usage = msg.meta.get("usage")
    if isinstance(usage, dict):
        for key, value in usage.items():
            if isinstance(value, int) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value


def sum_usage(messages: Iterable[Message], total: dict[str, int] | None = None) -> dict[str, int]:
    """Add up ``meta["usage"]`` over ``messages`` (integer fields only)."""
    out = {} if total is None else total
    for msg in messages:
        _add_usage(out, msg)
    return out


HISTORY_USAGE_KEY = "history_usage"
"""``SummaryInfo.extra`` key: the usage summed over the ``history[:k]`` a summary stands for."""


def _plus(a: dict[str, int], b: dict[str, int], sign: int = 1) -> dict[str, int]:
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + sign * value
    return out


class UsageLedger:
    """Provider usage summed over the whole history, without reading it on every load.

    The total is ``head`` (``history[:k]``) plus ``tail`` (``history[k:]``, which a load reads
    anyway). Every summary summem commits carries its head in ``extra["history_usage"]``, so a
    load knows the head at once; after a plain truncation by another worker the head is
    unknown and :meth:`gap` names the range to read (only the part not already summed).
    """

    def __init__(self) -> None:
        self.head: dict[str, int] | None = {}
        self.at: tuple[str, int] = ("", 0)
        """(epoch, watermark) the head was summed for."""
        self.tail: dict[str, int] = {}

    def loaded(
        self, epoch: str, watermark: int, summary: Message | None, tail: Sequence[Message]
    ) -> None:
        """A snapshot was loaded: sum its tail, take the head from its summary if it can."""
        self.tail = sum_usage(tail)
        info = summary.summary_info if summary is not None else None
        carried = info.extra.get(HISTORY_USAGE_KEY) if info is not None else None
        if watermark == 0:
            self.head, self.at = {}, (epoch, 0)
        elif isinstance(carried, dict):
            self.head, self.at = {str(k): int(v) for k, v in carried.items()}, (epoch, watermark)

    def gap(self, epoch: str, watermark: int) -> tuple[int, int] | None:
        """The ``history[start:stop]`` to read so the head is known, or ``None``."""
        if self.head is not None and self.at == (epoch, watermark):
            return None
        if self.head is not None and self.at[0] == epoch and self.at[1] < watermark:
            return self.at[1], watermark
        return 0, watermark

    def filled(self, epoch: str, start: int, stop: int, usage: dict[str, int]) -> None:
        """``usage`` was summed over ``history[start:stop]``."""
        base = {} if start == 0 else self.head if self.at == (epoch, start) else None
        if base is not None:
            self.head, self.at = _plus(base, usage), (epoch, stop)

    def moved(self, epoch: str, watermark: int, new_watermark: int, evicted: list[Message]) -> None:
        """A reduction moved ``evicted`` from the tail into the head."""
        moved = sum_usage(evicted)
        self.tail = _plus(self.tail, moved, -1)
        known = self.head is not None and self.at == (epoch, watermark)
        self.head = _plus(self.head, moved) if known and self.head is not None else None
        self.at = (epoch, new_watermark)

    def head_after(
        self, epoch: str, watermark: int, evicted: list[Message]
    ) -> dict[str, int] | None:
        """The head once ``evicted`` joins it (``None`` if the head is unknown)."""
        if self.head is None or self.at != (epoch, watermark):
            return None
        return _plus(self.head, sum_usage(evicted))

    def total(self) -> dict[str, int]:
        """Head plus tail (the head counts as empty while unknown)."""
        return {k: v for k, v in _plus(self.head or {}, self.tail).items() if v}


class RenderCache:
    """Each message rendered once (``to_openai()``), then copied cheaply on every read.

    ``messages()`` runs every turn; rendering a pydantic model each time costs several times
    more than copying plain dicts. Copies keep callers from changing the cached view.
    """

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Message, dict[str, Any]]] = {}

    def render(self, msg: Message) -> dict[str, Any]:
        """``msg.to_openai()``, as a fresh copy."""
        cached = self._cache.get(msg.id)
        if cached is None or cached[0] is not msg:
            cached = (msg, msg.to_openai())
            self._cache[msg.id] = cached
        fresh: dict[str, Any] = copy_json(cached[1])
        return fresh

    def forget(self, msgs: Iterable[Message | None]) -> None:
        """Drop messages that left the view."""
        for msg in msgs:
            if msg is not None:
                self._cache.pop(msg.id, None)


def fold_flow(
    reducer: SummarizationReducer | TruncationReducer,
    plan: Plan,
    head_usage: dict[str, int] | None,
) -> Flow[Folded]:
    """Summarize the plan's spans in order, each integrating the previous summary.

    The summary records ``head_usage``, the usage summed over the ``history[:k']`` it stands
    for, so a later load knows the session's usage without reading that part of the history.
    """
    if not isinstance(reducer, SummarizationReducer):
        return Folded(None)
    previous, watermark = plan.previous, plan.watermark
    summary: Message | None = None
    calls = tokens = 0
    for span in plan.spans:
        watermark += len(span)
        summary, output = yield from reducer.summarize_flow(span, previous, watermark=watermark)
        calls += output.calls
        tokens += output.input_tokens
        previous = summary
    info = summary.summary_info if summary is not None else None
    if summary is None or info is None:  # pragma: no cover - summarize_flow sets both
        return Folded(summary, calls, tokens)
    update: dict[str, Any] = {}
    if len(plan.spans) > 1:
        update["covered_ids"] = tuple(m.id for m in plan.evicted)
        update["previous_summary_id"] = plan.previous.id if plan.previous else None
    if head_usage is not None:
        update["extra"] = {**info.extra, HISTORY_USAGE_KEY: head_usage}
    if update:
        summary = summary.as_summary(info.model_copy(update=update))
    return Folded(summary, calls, tokens)
