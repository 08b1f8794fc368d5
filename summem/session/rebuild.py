"""The explicit operations that change the view besides reductions, as flows.

``recompute()`` rebuilds the summary of ``history[:k]`` from scratch, ``rollback()`` makes a
logged summary (or none) current again, ``clear()`` empties the session. Each commits with the
same compare-and-set as a reduction (:func:`~summem.session.flows.commit_flow`) and announces
itself with one event once the change is in the store.
"""

from __future__ import annotations

import time

from summem._flow import Flow
from summem.errors import ConflictError, SessionNotFoundError, StoreError, SummarizationError
from summem.events import SessionCleared, SummaryRecomputed, SummaryRolledBack
from summem.messages import Message
from summem.observe.hooks import emit
from summem.reducers.base import SummarizingReducer
from summem.session.budget import Budget
from summem.session.core import SessionCore
from summem.session.flows import READ_WINDOW, commit_flow, reload_flow
from summem.session.plan import pack_spans, summarize_span
from summem.session.steps import StoreSteps
from summem.session.usage import (
    HISTORY_USAGE_KEY,
    SUMMARIZER_TOTAL_KEY,
    add_spend,
    sum_usage,
    summarizer_total,
)
from summem.summarizers.base import cost_of, failure_cost, spent_by

__all__ = ["clear_flow", "recompute_flow", "rollback_flow"]


def recompute_flow(
    core: SessionCore, store: StoreSteps, reducer: SummarizingReducer
) -> Flow[Message | None]:
    """Rebuild the summary of ``history[:k]`` from scratch, one bounded span per call.

    The history is read in windows and folded span by span (each at most ``threshold`` in
    size), so memory and every summarizer request stay bounded. One CAS commit at the end;
    on a conflict the work is redone once. The calls are charged to the spend limit, if any
    (an explicit rebuild is not refused by it).
    """
    sid = core.session_id
    budget = None if core.spend_limit is None else Budget(core.spend_limit, store)
    spent: dict[str, float] = {}  # across attempts: a first attempt lost to a conflict was paid
    for attempt in range(2):
        if core.needs_load() or core.recheck or attempt:
            yield from reload_flow(core, store)
        epoch, version, k = core.epoch, core.version, core.watermark
        if k == 0:
            return None
        kept = tuple(core.tail)  # history[k:], the turns the view keeps: context only
        started = time.monotonic()
        previous_id = core.summary.id if core.summary is not None else None
        output = None
        summary: Message | None = None
        pending: list[Message] = []
        sizes: list[int] = []
        pos = done = spans = 0
        usage: dict[str, int] = {}
        first_id = last_id = ""  # the ends of history[:k], what the new summary stands for
        while True:
            if pos < k:
                window: list[Message] = yield from store.history(
                    sid, pos, min(k, pos + READ_WINDOW)
                )
                if not window:
                    raise StoreError(f"session {sid!r}: history ends before the watermark {k}")
                pos += len(window)
                first_id, last_id = first_id or window[0].id, window[-1].id
                sum_usage(window, usage)
                pending += window
                sizes += [reducer.size(m) for m in window]
            final = pos >= k
            for span in pack_spans(pending, sizes, reducer.threshold, final=final):
                done += len(span)
                try:
                    later = pending[len(span) :]  # non-empty unless this is the last span
                    summary, output = yield from summarize_span(
                        reducer, span, later, summary, watermark=done, kept=kept
                    )
                except SummarizationError as exc:  # its failed calls were paid for too
                    if budget is not None:
                        used = int(exc.usage.get("input_tokens", 0))
                        used += int(exc.usage.get("output_tokens", 0))
                        model = getattr(getattr(reducer, "summarizer", None), "model", None)
                        lost = failure_cost(exc, model if isinstance(model, str) else None)
                        yield from budget.charge(budget.key(sid), used, lost)
                    raise
                spent = add_spend(spent, {**spent_by(output), "cost_usd": cost_of(output)})
                if budget is not None:  # an explicit rebuild is not refused, but it is paid
                    used = output.input_tokens + output.output_tokens
                    yield from budget.charge(budget.key(sid), used, cost_of(output))
                spans += 1
                del pending[: len(span)]
                del sizes[: len(span)]
            if final:
                break
        assert summary is not None and summary.summary_info is not None  # k > 0: one span
        assert output is not None
        info = summary.summary_info
        summary = summary.as_summary(
            info.model_copy(
                update={
                    # every message of history[:k]: named by its count and its two ends, so
                    # the record stays O(summary) however long the history
                    "covered_ids": (),
                    "previous_summary_id": None,
                    "extra": {
                        **info.extra,
                        "recomputed": {
                            "spans": spans,
                            "messages": k,
                            "first_id": first_id,
                            "last_id": last_id,
                        },
                        HISTORY_USAGE_KEY: usage,
                        SUMMARIZER_TOTAL_KEY: add_spend(summarizer_total(core.summary), spent),
                    },
                }
            )
        )
        try:
            new_version = yield from commit_flow(
                core, store, summary, k, epoch=epoch, version=version
            )
        except ConflictError:
            continue
        core.recomputed(epoch, version, summary, new_version, usage)
        event = SummaryRecomputed(
            sid,
            summary_id=summary.id,
            previous_summary_id=previous_id,
            watermark=k,
            spans=spans,
            calls=int(spent.get("calls", 0)),
            input_tokens=int(spent.get("input_tokens", 0)),
            output_tokens=int(spent.get("output_tokens", 0)),
            cost_usd=float(spent.get("cost_usd", 0.0)),
            duration_seconds=time.monotonic() - started,
            summarizer=output.summarizer,
            model=output.model,
            summary_text=summary.text,
        )
        yield from emit(core.hooks, event)
        return summary
    raise ConflictError(f"session {sid!r} kept changing during recompute()")


def rollback_flow(core: SessionCore, store: StoreSteps, summary_id: str | None) -> Flow[None]:
    """Make a logged summary current (CAS; on a conflict read again and retry once)."""
    sid = core.session_id
    for attempt in range(2):
        if core.needs_load() or core.recheck or attempt:
            yield from reload_flow(core, store)
        if not core.epoch:
            raise SessionNotFoundError(f"no session {sid!r}")
        before = (core.summary.id if core.summary is not None else None, core.watermark)
        try:
            yield from store.rollback(
                sid,
                summary_id=summary_id,
                expected_version=core.version,
                expected_epoch=core.epoch,
            )
        except ConflictError:
            if attempt:
                raise
            continue
        core.stale = True
        yield from reload_flow(core, store)
        event = SummaryRolledBack(
            sid,
            summary_id=core.summary.id if core.summary is not None else None,
            previous_summary_id=before[0],
            watermark=core.watermark,
            previous_watermark=before[1],
        )
        yield from emit(core.hooks, event)
        return


def clear_flow(core: SessionCore, store: StoreSteps) -> Flow[None]:
    """Empty the session; a reduction planned before fails its CAS instead of restoring it."""
    before = (core.summary.id if core.summary is not None else None, core.watermark)
    yield from store.clear(core.session_id)
    core.cleared()
    core.stale = True
    yield from reload_flow(core, store)
    event = SessionCleared(
        core.session_id, previous_summary_id=before[0], previous_watermark=before[1]
    )
    yield from emit(core.hooks, event)
