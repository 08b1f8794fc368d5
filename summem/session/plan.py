"""A reduction planned against one snapshot of a session, and how it is summarized.

:class:`Plan` is what :class:`~summem.session.core.SessionCore` decides to evict (cut at group
boundaries into bounded spans by :func:`pack_spans`); :func:`summarize_plan_flow` folds the spans
into the rolling summary, one summarizer call each, and returns a :class:`PlanResult`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from summem._flow import Flow
from summem.conversation import boundaries
from summem.exceptions import SummarizationError
from summem.messages import Message
from summem.reducers.base import SummarizingReducer
from summem.session.usage import HISTORY_USAGE_KEY
from summem.summarizers.base import spent_by
from summem.summarizers.sent import SentView

__all__ = ["Plan", "PlanResult", "pack_spans", "summarize_plan_flow"]


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
class PlanResult:
    """What the summarizer produced for a plan (``summary=None``: plain truncation)."""

    summary: Message | None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


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
) -> Flow[PlanResult]:
    """Summarize the plan's spans in order, each integrating the previous summary.

    ``sent`` (the request the assistant last sent) goes with the first span only: the next
    ones follow a summary that request never held.

    The summary records ``head_usage``, the usage summed over the ``history[:k']`` it stands
    for, so a later load knows the session's usage without reading that part of the history.
    """
    if reducer is None:
        return PlanResult(None)
    previous, watermark = plan.previous, plan.watermark
    summary: Message | None = None
    spent = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
    for span in plan.spans:
        watermark += len(span)
        try:
            summary, output = yield from reducer.summarize_flow(
                span, previous, watermark=watermark, sent=sent
            )
        except SummarizationError as exc:  # the spans summarized before were spent too
            exc.usage = {k: v + int(exc.usage.get(k, 0)) for k, v in spent.items()}
            raise
        for key, value in spent_by(output).items():
            spent[key] += value
        previous, sent = summary, None
    calls, tokens, out_tokens = spent["calls"], spent["input_tokens"], spent["output_tokens"]
    info = summary.summary_info if summary is not None else None
    if summary is None or info is None:  # pragma: no cover - summarize_flow sets both
        return PlanResult(summary, calls, tokens, out_tokens)
    update: dict[str, Any] = {}
    if len(plan.spans) > 1:
        update["covered_ids"] = tuple(m.id for m in plan.evicted)
        update["previous_summary_id"] = plan.previous.id if plan.previous else None
    if head_usage is not None:
        update["extra"] = {**info.extra, HISTORY_USAGE_KEY: head_usage}
    if update:
        summary = summary.as_summary(info.model_copy(update=update))
    return PlanResult(summary, calls, tokens, out_tokens)
