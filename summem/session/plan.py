"""A reduction planned against one snapshot of a session, and how it is summarized.

:class:`Plan` is what :class:`~summem.session.core.SessionCore` decides to evict (cut at group
boundaries into bounded spans by :func:`pack_spans`); :func:`summarize_plan_flow` folds the spans
into the rolling summary, one summarizer call each, and returns a :class:`PlanResult`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from summem._flow import Flow
from summem.conversation import boundaries
from summem.errors import SummarizationError
from summem.events import SpendLimitReached, SummarizerCalled
from summem.messages import Message
from summem.observe.hooks import announce
from summem.reducers.base import SummarizingReducer
from summem.session.budget import Budget, estimate
from summem.session.usage import HISTORY_USAGE_KEY, SUMMARIZER_TOTAL_KEY, add_spend
from summem.summarizers.base import SummaryOutput, cost_of, failure_cost, spent_by, uses_llm
from summem.summarizers.sent import SentView

__all__ = [
    "CEILING_FALLBACK",
    "CEILING_TRUNCATION",
    "Plan",
    "PlanResult",
    "pack_spans",
    "summarize_ceiling_flow",
    "summarize_plan_flow",
    "summarize_span",
]

CEILING_FALLBACK = "extractive at the hard limit"
"""``fallback_used`` of a reduction past the hard limit summarized offline (no model)."""
CEILING_TRUNCATION = "truncate at the hard limit"
"""``fallback_used`` of a reduction past the hard limit that not even that could summarize."""


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
        automatic: started by a turn (not by ``reduce()``): watched by the loop breaker.
        truncate: the view is past its hard limit while automatic reductions are paused,
            or a failed reduction's back-off holds: the summarizer is not called, the span
            and the previous summary are summarized offline instead
            (:func:`summarize_ceiling_flow`), or, if even that fails, truncated.
        summary_room: with ``truncate``, the room the view has left for the summary under
            its hard limit once ``evicted`` is gone: the offline summary is made to fit it.
            Otherwise the room it has below the target (``None``: unknown), which a
            reducer with ``summary_fill`` lets the summary grow into (the last span's).
        twin_of: see below.
        kept: ``history[k':]`` when planned, the turns the view keeps after this reduction:
            read-only context for the summarizer of every span (``SummaryRequest.kept``).
    """

    epoch: str
    version: int
    watermark: int
    evicted: list[Message]
    spans: list[list[Message]]
    previous: Message | None
    size_before: int
    automatic: bool = True
    truncate: bool = False
    summary_room: int | None = None
    twin_of: dict[str, Any] | None = None
    """When ``evicted`` is exactly the span a provider item right after it stands for: the
    ``SummaryInfo.extra`` entry linking the summary to that item (its readable twin)."""
    kept: tuple[Message, ...] = ()

    @property
    def new_watermark(self) -> int:
        """``k'``: the watermark this reduction commits."""
        return self.watermark + len(self.evicted)


@dataclass(frozen=True)
class PlanResult:
    """What the summarizer produced for a plan (``summary=None``: plain truncation)."""

    summary: Message | None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    summarizer: str | None = None
    model: str | None = None
    fallback_used: str | None = None
    fallback_failed: tuple[str, ...] = ()
    fallback_reasons: tuple[str, ...] = ()


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


def summarize_plan_flow(
    reducer: SummarizingReducer | None,
    plan: Plan,
    head_usage: dict[str, int] | None,
    sent: SentView | None = None,
    *,
    spend: Budget | None = None,
    session_id: str = "",
) -> Flow[PlanResult]:
    """Summarize the plan's spans in order, each integrating the previous summary.

    ``sent`` (the request the assistant last sent) goes with the first span only: the next
    ones follow a summary that request never held.

    The summary records ``head_usage``, the usage summed over the ``history[:k']`` it stands
    for, so a later load knows the session's usage without reading that part of the history,
    and the summarizer's running total for the session (``extra["summarizer_total"]``).
    Each span's call is announced (:class:`~summem.events.SummarizerCalled`) and paid
    for in ``spend``: a hold of its estimated spend is reserved before it (atomically with the
    check, see :mod:`summem.session.budget`) and settled with what it spent after it; once
    ``spend`` is exhausted the calls go on without the LLM.
    """
    if reducer is None:
        return PlanResult(None)
    previous, watermark = plan.previous, plan.watermark
    summary: Message | None = None
    spent = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
    cost = 0.0
    summarizer = getattr(reducer, "summarizer", None)
    if spend is not None and not _spends(summarizer):
        spend = None  # no step calls a model: nothing to limit
    key = spend.key(session_id) if spend is not None else ""
    limited = False
    model = getattr(summarizer, "model", None)
    output = None
    failed: list[str] = []
    reasons: list[str] = []
    fallback_used: str | None = None
    spans = plan.spans
    for n, span in enumerate(spans):
        watermark += len(span)
        allow, ticket = True, None
        if spend is not None:
            tokens, price = estimate(span, previous, reducer, summarizer)
            ticket = yield from spend.reserve(key, tokens, price)
            allow, used = ticket.granted, ticket.spent
            if not allow and not limited:
                limited = True
                yield from announce(
                    SpendLimitReached(
                        "",
                        key=key,
                        spent_tokens=used.tokens,
                        spent_cost_usd=used.cost_usd,
                        max_tokens=spend.limit.max_tokens,
                        max_cost_usd=spend.limit.max_cost_usd,
                    )
                )
        started = time.monotonic()
        try:
            later = [m for s in spans[n + 1 :] for m in s]
            summary, output = yield from summarize_span(
                reducer,
                span,
                later,
                previous,
                watermark=watermark,
                allow_llm=allow,
                sent=sent,
                room=None if later or plan.truncate else plan.summary_room,
                kept=plan.kept,
            )
        except SummarizationError as exc:  # the spans summarized before were spent too
            lost = failure_cost(exc, model if isinstance(model, str) else None)
            if spend is not None and ticket is not None:
                used_tokens = int(exc.usage.get("input_tokens", 0))
                used_tokens += int(exc.usage.get("output_tokens", 0))
                yield from spend.settle(key, ticket, used_tokens, lost)
            exc.usage = {k: v + int(exc.usage.get(k, 0)) for k, v in spent.items()}
            exc.cost_usd = cost + lost
            raise
        except Exception:  # nothing known spent; a process that dies here leaves it to lapse
            if spend is not None and ticket is not None:
                yield from spend.release(key, ticket)
            raise
        except BaseException:  # closed or cancelled: no store step now, released outside it
            if spend is not None and ticket is not None:
                spend.forget(key, ticket)
            raise
        span_cost = cost_of(output)
        for k, value in spent_by(output).items():
            spent[k] += value
        cost += span_cost
        if spend is not None and ticket is not None:
            used_tokens = output.input_tokens + output.output_tokens
            yield from spend.settle(key, ticket, used_tokens, span_cost)
        fallback = output.extra.get("fallback")
        fallback = fallback if isinstance(fallback, dict) else {}
        span_failed = tuple(str(f) for f in fallback.get("failed") or ())
        span_reasons = tuple(str(f) for f in fallback.get("reasons") or ())
        failed += [f for f in span_failed if f not in failed]
        reasons += [f for f in span_reasons if f not in reasons]
        if span_failed:
            fallback_used = str(fallback.get("used"))
        yield from announce(
            SummarizerCalled(
                "",
                summarizer=output.summarizer,
                model=output.model,
                calls=output.calls,
                input_tokens=output.input_tokens,
                output_tokens=output.output_tokens,
                cost_usd=span_cost,
                duration_seconds=time.monotonic() - started,
                fallback_used=fallback.get("used"),
                fallback_failed=span_failed,
                fallback_reasons=span_reasons,
            )
        )
        previous, sent = summary, None
    calls, tokens, out_tokens = spent["calls"], spent["input_tokens"], spent["output_tokens"]
    info = summary.summary_info if summary is not None else None
    if summary is None or info is None or output is None:  # pragma: no cover - always set
        return PlanResult(summary, calls, tokens, out_tokens, cost)
    update: dict[str, Any] = {}
    if len(plan.spans) > 1:
        update["covered_ids"] = tuple(m.id for m in plan.evicted)
        update["previous_summary_id"] = plan.previous.id if plan.previous else None
    extra = dict(info.extra)
    if head_usage is not None:
        extra[HISTORY_USAGE_KEY] = head_usage
    before = plan.previous.summary_info if plan.previous is not None else None
    carried = before.extra.get(SUMMARIZER_TOTAL_KEY) if before is not None else None
    extra[SUMMARIZER_TOTAL_KEY] = add_spend(carried, {**spent, "cost_usd": cost})
    if len(plan.spans) > 1:
        extra["usage"] = {**spent, "cost_usd": cost}
    update["extra"] = extra
    summary = summary.as_summary(info.model_copy(update=update))
    return PlanResult(
        summary,
        calls,
        tokens,
        out_tokens,
        cost,
        summarizer=output.summarizer,
        model=output.model,
        fallback_used=fallback_used,
        fallback_failed=tuple(failed),
        fallback_reasons=tuple(reasons),
    )


def summarize_span(
    reducer: SummarizingReducer,
    span: list[Message],
    later: list[Message],
    previous: Message | None,
    **kw: Any,
) -> Flow[tuple[Message, SummaryOutput]]:
    """One span's summary; ``later``, the plan's spans after it, which it stands for too.

    ``room`` (a keyword, the last span's only): the room below the target the summary may
    grow into (see ``SummarizationReducer.summary_budget``); other reducers are not given it.

    A summary between two spans is never committed: the next span's replaces it. So it must
    be smaller than everything it will stand for, not than its own span: a message or two cut
    off before a group larger than a span (a huge tool result) is a span no summary could be
    smaller than, and would fail the whole reduction.
    """
    from summem.reducers.summarization import SummarizationReducer

    room = kw.pop("room", None)
    if isinstance(reducer, SummarizationReducer):
        if later:
            return (yield from reducer.summarize_flow(span, previous, then=later, **kw))
        return (yield from reducer.summarize_flow(span, previous, room=room, **kw))
    return (yield from reducer.summarize_flow(span, previous, **kw))


def _spends(summarizer: object) -> bool:
    """True when ``summarizer`` (or a step of its chain) calls a model."""
    steps = getattr(summarizer, "steps", None)
    if isinstance(steps, tuple):
        return any(_spends(step) for step in steps)
    return uses_llm(summarizer)


def summarize_ceiling_flow(
    reducer: SummarizingReducer | None,
    plan: Plan,
    head_usage: dict[str, int] | None,
    *,
    session_id: str = "",
) -> Flow[PlanResult]:
    """The chain's last step past the hard limit (DESIGN, reduction step 6; I7).

    The summarizer failed on this span (or reductions are paused), and the view must fit:
    the span and the previous summary are summarized by the offline
    :class:`~summem.summarizers.extractive.ExtractiveSummarizer` (deterministic, no model, no
    I/O), so the summary still stands for exactly ``history[:k']`` (I2) and later
    reductions chain from it. Only when that fails too does the plan truncate
    (``PlanResult(None)``); the caller keeps the previous summary to chain from then.
    """
    name = getattr(reducer, "summarizer_name", None)
    failed = (str(name),) if name else ()
    with_summarizer = getattr(reducer, "with_summarizer", None)
    if reducer is None or with_summarizer is None:
        return PlanResult(None, fallback_used=CEILING_TRUNCATION, fallback_failed=failed)
    from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

    offline: SummarizingReducer | None = with_summarizer(ExtractiveSummarizer())
    within = getattr(offline, "within_room", None)
    if plan.summary_room is not None and within is not None:
        offline = within(plan.summary_room)  # a smaller summary rather than none
    if offline is None:
        return PlanResult(
            None,
            fallback_used=CEILING_TRUNCATION,
            fallback_failed=(*failed, "extractive"),
            fallback_reasons=(
                f"not even a one-token summary fits the {plan.summary_room} left under the "
                "hard limit",
            ),
        )
    sizes = [offline.size(m) for m in plan.evicted]
    spans = pack_spans(plan.evicted, sizes, offline.threshold, final=True)
    try:
        outcome = yield from summarize_plan_flow(
            offline, replace(plan, spans=spans), head_usage, session_id=session_id
        )
    except SummarizationError as exc:
        return PlanResult(
            None,
            fallback_used=CEILING_TRUNCATION,
            fallback_failed=(*failed, "extractive"),
            fallback_reasons=(f"{type(exc).__name__}: {exc}",),
        )
    return replace(
        outcome,
        fallback_used=CEILING_FALLBACK,
        fallback_failed=(*failed, *outcome.fallback_failed),
    )
