"""What a memory does with its store and its summarizer, written once as flows.

Each operation of ``Memory`` / ``AsyncMemory`` that touches the store or a model is a flow (see
:mod:`summem._flow`): it yields the store's steps (from a
:class:`~summem.session.steps.StoreSteps`) and the summarizer's own steps, and keeps the cached
view in :class:`~summem.session.core.SessionCore` in step with what the store holds. ``Memory``
drives these flows with :func:`~summem._flow.run_sync` over a sync store, ``AsyncMemory`` with
:func:`~summem._flow.run_async` over an async one, so the two facades cannot drift apart: a
store error is thrown into the flow at the same point in both.

Only the reduction lease stays outside the flows: a flow cannot yield from its ``finally``
when it is closed (cancellation), and the lease must be released then too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from summem._flow import Flow
from summem.conversation import Batch
from summem.errors import (
    ConflictError,
    MessageValidationError,
    ReductionError,
    SessionNotFoundError,
    StoreError,
    StoreOutcomeUnknownError,
    SummarizationError,
)
from summem.events import (
    ReductionCommitted,
    ReductionFailed,
    ReductionPlanned,
    ReductionStarted,
    StoreConflictRetried,
)
from summem.messages import Message, MessageLike
from summem.observe.hooks import emit, relay
from summem.reducers.base import ReduceResult
from summem.session.budget import Budget
from summem.session.core import SessionCore, Trigger
from summem.session.plan import (
    CEILING_TRUNCATION,
    Plan,
    PlanResult,
    summarize_ceiling_flow,
    summarize_plan_flow,
)
from summem.session.steps import StoreSteps
from summem.session.usage import (
    sum_usage,
)
from summem.stores.base import SessionState

__all__ = [
    "READ_WINDOW",
    "commit_flow",
    "extend_flow",
    "failure_event",
    "reduction_flow",
    "reload_flow",
    "usage_flow",
]

READ_WINDOW = 500
"""Messages read per store call when a flow walks the history (recompute, usage)."""

RELOAD_ATTEMPTS = 8
"""Reads of a session whose copy keeps being marked stale meanwhile before giving up."""


def reload_flow(core: SessionCore, store: StoreSteps, *, usage: bool = False) -> Flow[None]:
    """Read the session's state (``history[k:]`` only) into the copy.

    The part of ``history[:k]`` whose provider usage is not known yet (only after a plain
    truncation: summaries carry the usage they cover) is read too when it is at most
    :data:`READ_WINDOW` messages (another worker truncated a little), or with ``usage``; a
    longer one (a session reopened after a truncation) is left to :func:`usage_flow`, so a
    reopen reads the view, never the history.
    """
    for _ in range(RELOAD_ATTEMPTS):
        since = core.marks
        try:
            state: SessionState | None = yield from store.load(core.session_id)
        except SessionNotFoundError:
            state = None
        if core.reset(state, since):
            break
        # a write of ours landed while the snapshot was read: it may predate it, read again
    else:
        raise ConflictError(
            f"session {core.session_id!r} kept changing while it was read "
            f"({RELOAD_ATTEMPTS} times); the copy was left to be read again"
        )
    gap = core.usage_gap()
    if gap is not None and (usage or gap[2] - gap[1] <= READ_WINDOW):
        yield from usage_flow(core, store)


def usage_flow(core: SessionCore, store: StoreSteps) -> Flow[None]:
    """Sum the provider usage of the part of ``history[:k]`` not known yet, in windows."""
    gap = core.usage_gap()
    if gap is None:
        return
    epoch, start, stop = gap
    usage: dict[str, int] = {}
    for lo in range(start, stop, READ_WINDOW):
        window = yield from store.history(core.session_id, lo, min(stop, lo + READ_WINDOW))
        sum_usage(window, usage)
    core.usage_filled(epoch, start, stop, usage)


def commit_flow(
    core: SessionCore,
    store: StoreSteps,
    summary: Message | None,
    watermark: int,
    *,
    epoch: str,
    version: int,
) -> Flow[int]:
    """Commit with CAS; a failure other than a conflict leaves the copy to be read again."""
    try:
        new_version: int = yield from store.commit(
            core.session_id,
            summary=summary,
            watermark=watermark,
            expected_version=version,
            expected_epoch=epoch,
            keep_summaries=core.keep_summaries,
        )
    except ConflictError:
        raise
    except Exception as exc:
        core.stale = True  # the write may or may not have landed: read before trusting the copy
        if isinstance(exc, StoreError):
            raise
        raise StoreError(f"session {core.session_id!r}: commit failed: {exc}") from exc
    return new_version


def extend_flow(
    core: SessionCore,
    store: StoreSteps,
    items: MessageLike | Iterable[MessageLike],
    *,
    single: bool,
    observe: Callable[[tuple[str, int, int] | None], None] | None = None,
) -> Flow[list[Message]]:
    """Validate a batch whole, then write the system message and append the rest.

    ``observe`` (a memory with a dispatcher) is given the session's ``(epoch, version,
    length)`` as of right after the append, when the store reports it with the append in one
    call (:meth:`StoreSteps.append_probed`), else ``None``; it is not called when nothing was
    appended, or when the append had to be settled again (the copy is then read anyway).
    """
    if core.stale:
        yield from reload_flow(core, store)
    try:
        batch: Batch = core.prepare(items, single=single)
    except MessageValidationError as exc:
        if exc.field != "tool_call_id":
            raise
        yield from reload_flow(core, store)  # the call may come from another worker
        batch = core.prepare(items, single=single)
    sid = core.session_id
    if batch.system_changed:
        try:
            yield from store.set_system(sid, batch.system)
        except StoreOutcomeUnknownError:
            core.stale = True
            yield from store.set_system(sid, batch.system)  # replacing it again is harmless
        core.system_set(batch.system)
    if batch.history:
        try:
            if observe is None:
                length: int = yield store.append_step(sid, batch.history)
            else:
                length, found = yield from store.append_probed(sid, batch.history)
                observe(found)
        except StoreOutcomeUnknownError:
            core.stale = True  # the copy may lack what landed: read it before trusting it
            length = yield from _append_again(core, store, batch.history)
        if not core.appended(batch, length):
            yield from reload_flow(core, store)
    return batch.accepted


def _append_again(core: SessionCore, store: StoreSteps, messages: list[Message]) -> Flow[int]:
    """Settle an append of unknown outcome by appending again: stores skip ids they hold."""
    try:
        length: int = yield from store.append(core.session_id, messages)
    except StoreError as exc:
        raise StoreOutcomeUnknownError(
            f"session {core.session_id!r}: cannot tell whether {len(messages)} message(s) "
            f"were stored ({exc}); adding them again is safe, as appends are idempotent by "
            "id: memory.extend(error.messages) stores each at most once",
            operation="append",
            messages=messages,
        ) from exc
    return length


def reduction_flow(
    core: SessionCore,
    store: StoreSteps,
    trigger: Trigger,
    *,
    background: bool = False,
    attempts: int = 2,
) -> Flow[ReduceResult | None]:
    """Plan, summarize, commit with CAS; on a conflict read again and retry once (I7).

    ``attempts=1`` gives up at the first conflict instead (a fleet worker's job: a conflict
    means another commit overtook the job, which is then stale).

    Returns ``None`` when nothing needed reducing. A failure is recorded (back-off) and raised
    when ``fail_on_error`` is set and the caller waits for the result; otherwise the result
    carries it in ``error`` and the view stays unreduced. Nothing is committed on failure.
    Each step is announced to the memory's hooks (between store calls, never inside one).
    """
    raise_errors = core.fail_on_error and not background
    if core.needs_load() or core.recheck:
        yield from reload_flow(core, store)
    hooks, sid = core.hooks, core.session_id
    for attempt in range(1, attempts + 1):
        plan = core.plan(trigger)
        if plan is None:
            return None
        if hooks:
            yield from emit(hooks, _planned(core, plan, trigger, background, attempt))
            name = _summarizer_name(core)
            started_event = ReductionStarted(
                sid, trigger=trigger, background=background, attempt=attempt, summarizer=name
            )
            yield from emit(hooks, started_event)
        started = time.monotonic()
        try:
            summarize = (
                summarize_ceiling_flow(
                    core.summarizing, plan, core.head_usage_after(plan), session_id=sid
                )
                if plan.truncate
                else summarize_plan_flow(
                    core.summarizing,
                    plan,
                    core.head_usage_after(plan),
                    core.sent,
                    spend=None if core.spend_limit is None else Budget(core.spend_limit, store),
                    session_id=sid,
                )
            )
            # without hooks, announcements reach the driver and do nothing
            outcome = yield from (relay(summarize, hooks, sid) if hooks else summarize)
            if plan.truncate and outcome.summary is not None:
                outcome = fitted(core, plan, outcome)
            if plan.twin_of is not None and outcome.summary is not None:
                outcome = replace(outcome, summary=linked(outcome.summary, plan.twin_of))
            version = yield from commit_flow(
                core,
                store,
                outcome.summary,
                plan.new_watermark,
                epoch=plan.epoch,
                version=plan.version,
            )
        except ConflictError:
            conflict = StoreConflictRetried(
                sid, attempt=attempt, next="retry" if attempt < attempts else "give_up"
            )
            yield from emit(hooks, conflict)
            yield from reload_flow(core, store)
            continue
        except (ReductionError, StoreError) as exc:
            result = core.failed(exc, background=background)
            if hooks:
                took = time.monotonic() - started
                yield from emit(
                    hooks, failure_event(core, exc, trigger, background, raise_errors, took)
                )
            if raise_errors:
                raise
            return result
        result = core.committed(plan, outcome, version)
        if hooks:
            duration = time.monotonic() - started
            event = _committed(sid, plan, outcome, result, trigger, background, duration)
            yield from emit(hooks, event)
        return result
    if trigger == "explicit":
        raise ConflictError(f"session {core.session_id!r} kept changing during the reduction")
    return None


def linked(summary: Message, link: dict[str, Any]) -> Message:
    """``summary`` with ``link`` (the provider item it is the twin of) in its info's extra."""
    info = summary.summary_info
    if info is None:
        return summary
    return summary.as_summary(info.model_copy(update={"extra": {**info.extra, **link}}))


def fitted(core: SessionCore, plan: Plan, outcome: PlanResult) -> PlanResult:
    """The offline summary at the hard limit, or truncation if even that does not fit.

    The truncation keeps the previous summary out of the view only: the core chains the next
    reduction from it (:meth:`SessionCore.committed`).
    """
    if outcome.summary is None or core.fits(plan, outcome.summary):
        return outcome
    return PlanResult(
        None,
        fallback_used=CEILING_TRUNCATION,
        fallback_failed=(*outcome.fallback_failed, "extractive"),
        fallback_reasons=("the extractive summary does not fit under the hard limit",),
    )


def _summarizer_name(core: SessionCore) -> str | None:
    summarizer = getattr(core.summarizing, "summarizer", None)
    name = getattr(summarizer, "name", None)
    return name if isinstance(name, str) else None


def _planned(
    core: SessionCore, plan: Plan, trigger: Trigger, background: bool, attempt: int
) -> ReductionPlanned:
    size = core.reducer.size
    return ReductionPlanned(
        core.session_id,
        trigger=trigger,
        background=background,
        attempt=attempt,
        watermark=plan.watermark,
        new_watermark=plan.new_watermark,
        first_id=plan.evicted[0].id,
        last_id=plan.evicted[-1].id,
        messages=len(plan.evicted),
        tokens=sum(size(m) for m in plan.evicted),
        spans=len(plan.spans),
        size_before=plan.size_before,
    )


def _committed(
    sid: str,
    plan: Plan,
    outcome: PlanResult,
    result: ReduceResult,
    trigger: Trigger,
    background: bool,
    duration: float,
) -> ReductionCommitted:
    summary = outcome.summary
    return ReductionCommitted(
        sid,
        trigger=trigger,
        background=background,
        summary_id=summary.id if summary is not None else None,
        covered_ids=tuple(m.id for m in plan.evicted),
        watermark=plan.new_watermark,
        size_before=result.size_before,
        size_after=result.size_after,
        calls=outcome.calls,
        input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens,
        cost_usd=outcome.cost_usd,
        duration_seconds=duration,
        summarizer=outcome.summarizer,
        model=outcome.model,
        fallback_used=outcome.fallback_used,
        fallback_failed=outcome.fallback_failed,
        fallback_reasons=outcome.fallback_reasons,
        summary_text=summary.text if summary is not None else None,
    )


def failure_event(
    core: SessionCore,
    exc: Exception,
    trigger: Trigger,
    background: bool,
    raised: bool,
    duration: float,
) -> ReductionFailed:
    """The event for a failed reduction (``raised``: the caller gets the error)."""
    usage = exc.usage if isinstance(exc, SummarizationError) else {}
    cost = exc.cost_usd if isinstance(exc, SummarizationError) else None
    return ReductionFailed(
        core.session_id,
        trigger=trigger,
        background=background,
        error_type=type(exc).__name__,
        next="raise" if raised else "backoff",
        backoff_tokens=core.reducer.threshold - core.reducer.target,
        calls=int(usage.get("calls", 0)),
        input_tokens=int(usage.get("input_tokens", 0)),
        output_tokens=int(usage.get("output_tokens", 0)),
        cost_usd=cost or 0.0,
        duration_seconds=duration,
    )
