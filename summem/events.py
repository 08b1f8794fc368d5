"""The typed events a memory emits about its reductions.

A hook is any callable taking one :class:`MemoryEvent` (``async def`` ones too, on
``AsyncMemory``). Events are frozen dataclasses; match on their class::

    def on_event(event: MemoryEvent) -> None:
        if isinstance(event, ReductionCommitted):
            print(event.summary_id, event.cost_usd)

Events carry ids, counts, names and timings, never conversation text, except
:attr:`ReductionCommitted.summary_text` and :attr:`SummaryRecomputed.summary_text` (the new
summary) and :attr:`SummaryRejected.reason` (which may quote the rejected summary or the
application's own verdict).

Besides reductions, four operations change what the view holds, each announced once it is
in the store: ``recompute()`` (:class:`SummaryRecomputed`), ``rollback()``
(:class:`SummaryRolledBack`), ``clear()`` (:class:`SessionCleared`) and a branch
(:class:`Branched`: ``branch()``, ``pop()``, or ``record()`` taking a resent list for an edit,
a regenerate or a rewind).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "Branched",
    "MemoryEvent",
    "ProviderItemsLeftOut",
    "ReductionCommitted",
    "ReductionFailed",
    "ReductionPlanned",
    "ReductionSkipped",
    "ReductionStarted",
    "SessionCleared",
    "SpendLimitReached",
    "StoreConflictRetried",
    "SummarizerCalled",
    "SummaryRecomputed",
    "SummaryRejected",
    "SummaryRolledBack",
]


@dataclass(frozen=True)
class MemoryEvent:
    """What every event carries.

    Attributes:
        session_id: the session concerned (empty while a summarizer reports it, filled in
            before any hook sees it).
        at: wall-clock time of the event, in seconds since the epoch.
    """

    session_id: str
    at: float = field(default_factory=time.time, kw_only=True)


@dataclass(frozen=True)
class ReductionPlanned(MemoryEvent):
    """A reduction was planned: what it will fold into the summary.

    Attributes:
        trigger: ``"soft"`` (background), ``"hard"`` (the turn waits) or ``"explicit"``.
        background: it runs off the hot path.
        attempt: 1, or 2 after a store conflict.
        watermark: ``k`` before the reduction.
        new_watermark: ``k'`` once it commits.
        first_id: id of the first message evicted.
        last_id: id of the last message evicted.
        messages: how many messages it evicts.
        tokens: their size, in the budget's unit.
        spans: summarizer calls planned (one per span).
        size_before: the view's size when planned.
    """

    trigger: str
    background: bool
    attempt: int
    watermark: int
    new_watermark: int
    first_id: str
    last_id: str
    messages: int
    tokens: int
    spans: int
    size_before: int


@dataclass(frozen=True)
class ReductionStarted(MemoryEvent):
    """The planned reduction's summarizer is about to run.

    Attributes:
        trigger: as in :class:`ReductionPlanned`.
        background: it runs off the hot path.
        attempt: 1, or 2 after a store conflict.
        summarizer: the summarizer's name (``None``: plain truncation, no summary).
    """

    trigger: str
    background: bool
    attempt: int
    summarizer: str | None


@dataclass(frozen=True)
class SummarizerCalled(MemoryEvent):
    """One span was summarized (one summarizer call, retries and fallbacks included).

    Attributes:
        summarizer: who wrote the summary (the chain's step that won).
        model: the model, for an LLM summary.
        calls: LLM calls made (0 for the extractive summarizer).
        input_tokens: tokens sent, summed over the calls.
        output_tokens: tokens received.
        cost_usd: what the calls cost, from litellm's bundled price map (0 when unpriced).
        duration_seconds: how long the call took.
        fallback_used: the chain's step that wrote it, when earlier steps failed.
        fallback_failed: the chain's steps that failed or were skipped before it.
        fallback_reasons: why, one line per failed step: ``"step: ErrorType: message"``
            (keys redacted, each capped at 300 characters).
    """

    summarizer: str
    model: str | None
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    duration_seconds: float
    fallback_used: str | None = None
    fallback_failed: tuple[str, ...] = ()
    fallback_reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReductionCommitted(MemoryEvent):
    """A reduction committed: the new summary and watermark are in the store.

    Attributes:
        trigger: as in :class:`ReductionPlanned`.
        background: it ran off the hot path.
        summary_id: the new summary's id (``None``: plain truncation).
        covered_ids: ids of the messages this reduction folded in.
        watermark: the new ``k``.
        size_before: the view's size before.
        size_after: the view's size after.
        calls: summarizer LLM calls made.
        input_tokens: summarizer tokens in, summed over the calls.
        output_tokens: summarizer tokens out.
        cost_usd: what the calls cost (0 when unpriced or no LLM ran).
        duration_seconds: from the start of summarizing to the commit.
        summarizer: who wrote the summary (the chain's step that won).
        model: its model, for an LLM summary.
        fallback_used: the chain's step that wrote it, when earlier steps failed.
        fallback_failed: the chain's steps that failed or were skipped before it.
        fallback_reasons: why, one line per failed step: ``"step: ErrorType: message"``
            (keys redacted, each capped at 300 characters).
        summary_text: the new summary (conversation content: for hooks that want it).
    """

    trigger: str
    background: bool
    summary_id: str | None
    covered_ids: tuple[str, ...]
    watermark: int
    size_before: int
    size_after: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    duration_seconds: float
    summarizer: str | None
    model: str | None
    fallback_used: str | None = None
    fallback_failed: tuple[str, ...] = ()
    fallback_reasons: tuple[str, ...] = ()
    summary_text: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ReductionFailed(MemoryEvent):
    """A reduction failed; nothing was committed.

    Attributes:
        trigger: as in :class:`ReductionPlanned`.
        background: it ran off the hot path.
        error_type: the error's class name (``SummarizationError``, ``StoreError``...).
        next: ``"raise"`` (the caller gets the error) or ``"backoff"`` (the view stays
            unreduced; automatic reductions wait for ``backoff_tokens`` of growth).
        backoff_tokens: growth before the next automatic attempt.
        calls: summarizer LLM calls spent all the same.
        input_tokens: their tokens in.
        output_tokens: their tokens out.
        cost_usd: what they cost.
        duration_seconds: from the start of summarizing to the failure.
    """

    trigger: str
    background: bool
    error_type: str
    next: Literal["raise", "backoff"]
    backoff_tokens: int
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    duration_seconds: float = 0.0


@dataclass(frozen=True)
class ReductionSkipped(MemoryEvent):
    """A reduction was due but did not run.

    Attributes:
        reason: why: ``"backoff"`` (a recent failure), ``"lease_held"`` (another worker is
            reducing the session), ``"paused"`` (the loop breaker stopped automatic
            reductions: ``Memory.reductions_paused``), or another reason a newer summem adds.
        trigger: the reduction that was due.
        detail: more about the reason, for people.
    """

    reason: str
    trigger: str
    detail: str = ""


@dataclass(frozen=True)
class ProviderItemsLeftOut(MemoryEvent):
    """A view for one provider left out items only another provider can read.

    A provider's compaction item (OpenAI's ``compaction`` item, Anthropic's ``compaction``
    blocks) goes only to the provider that made it: a view for another one (chat completions,
    litellm to another provider) leaves it out. What it stands for is in that view already:
    the messages before it, or summem's twin summary of them. Announced once per item per
    memory. The items stay in the store.

    Attributes:
        message_ids: the messages left out (or sent without their blocks).
        providers: who made each, in the same order.
        target: the provider the view went to (``None``: chat completions).
    """

    message_ids: tuple[str, ...]
    providers: tuple[str, ...]
    target: str | None


@dataclass(frozen=True)
class SummaryRejected(MemoryEvent):
    """A summary was refused before commit (summem's checks or the application's validators).

    Attributes:
        summarizer: who wrote it.
        error_type: the rejection's class name (``InvalidSummaryError``).
        reason: why (may quote the summary or the validator's verdict).
        next: ``"next_step"`` (the fallback chain tries its next step) or ``"fail"``.
    """

    summarizer: str
    error_type: str
    reason: str = field(repr=False)
    next: Literal["next_step", "fail"]


@dataclass(frozen=True)
class StoreConflictRetried(MemoryEvent):
    """Another writer changed the session during a reduction (its compare-and-set lost).

    Attributes:
        attempt: the attempt that lost (1 or 2).
        next: ``"retry"`` (read again, plan again) or ``"give_up"``.
    """

    attempt: int
    next: Literal["retry", "give_up"]


@dataclass(frozen=True)
class SpendLimitReached(MemoryEvent):
    """A spend limit is exhausted: this reduction goes on without the LLM.

    Attributes:
        key: the budget's key (the session id, or its tenant prefix).
        spent_tokens: summarizer tokens (in + out) spent in the window, plus what the
            calls in flight hold (their estimates, until they settle).
        spent_cost_usd: what they cost (likewise).
        max_tokens: the limit on tokens, if any.
        max_cost_usd: the limit on cost, if any.
        next: what happens: the fallback chain's steps that need no LLM, if any.
    """

    key: str
    spent_tokens: int
    spent_cost_usd: float
    max_tokens: int | None
    max_cost_usd: float | None
    next: str = "fallback without the LLM"


@dataclass(frozen=True)
class SummaryRecomputed(MemoryEvent):
    """``recompute()`` rebuilt the summary of ``history[:k]`` from scratch and committed it.

    Attributes:
        summary_id: the new summary's id.
        previous_summary_id: the summary it replaced (``None``: there was none).
        watermark: ``k``, unchanged.
        spans: summarizer calls made, one per span of ``history[:k]``.
        calls: summarizer LLM calls made.
        input_tokens: summarizer tokens in, summed over the calls.
        output_tokens: summarizer tokens out.
        cost_usd: what the calls cost (0 when unpriced or no LLM ran).
        duration_seconds: from the first read of the history to the commit.
        summarizer: who wrote the summary.
        model: its model, for an LLM summary.
        summary_text: the new summary (conversation content: for hooks that want it).
    """

    summary_id: str
    previous_summary_id: str | None
    watermark: int
    spans: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    duration_seconds: float
    summarizer: str | None
    model: str | None
    summary_text: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class SummaryRolledBack(MemoryEvent):
    """``rollback()`` made a logged summary current again (or none: watermark 0).

    Attributes:
        summary_id: the summary now current (``None``: no summary).
        previous_summary_id: the one it replaced (``None``: there was none).
        watermark: ``k`` now.
        previous_watermark: ``k`` before.
    """

    summary_id: str | None
    previous_summary_id: str | None
    watermark: int
    previous_watermark: int


@dataclass(frozen=True)
class SessionCleared(MemoryEvent):
    """``clear()`` emptied the session: history, summary and system message.

    Attributes:
        previous_summary_id: the summary dropped, as this memory last read the session
            (``None``: there was none).
        previous_watermark: ``k`` before, as this memory last read it.
    """

    previous_summary_id: str | None
    previous_watermark: int


@dataclass(frozen=True)
class Branched(MemoryEvent):
    """The history forked at ``at``: ``history[:at]`` plus ``added`` new messages is current.

    The abandoned suffix (``abandoned`` messages, possibly none) is kept as the branch
    ``branch_id`` (``memory.branches()``, ``memory.branch_messages(branch_id)``), never sent
    to the model again.

    Attributes:
        branch_id: the branch holding what was abandoned.
        at: the fork position (the history keeps ``history[:at]``).
        abandoned: how many messages the branch holds.
        added: how many new messages follow ``history[:at]``.
        summary: ``"kept"`` (the summary covered nothing abandoned, or there was none),
            ``"rolled_back"`` (it did: the latest logged summary of a prefix of
            ``history[:at]`` is current again) or ``"dropped"`` (it did and no such summary
            was logged: no summary, watermark 0). The usual reduction decision runs next.
        summary_id: the summary current now (``None``: none).
        previous_summary_id: the one current before (``None``: none).
        watermark: ``k`` now.
        previous_watermark: ``k`` before.
    """

    branch_id: str
    at: int
    abandoned: int
    added: int
    summary: Literal["kept", "rolled_back", "dropped"]
    summary_id: str | None
    previous_summary_id: str | None
    watermark: int
    previous_watermark: int
