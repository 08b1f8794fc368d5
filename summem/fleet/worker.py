"""The worker's side: run one :class:`~summem.fleet.ReductionJob` with the memory's own flows.

:func:`run_job` is all a task engine's task has to call. It runs the same
:func:`~summem.session.flows.reduction_flow` a ``Memory`` runs in-process (plan, summarize,
commit with the store's compare-and-set), over the session as the worker's store holds it:

1. ``probe`` the session (one small read): gone, another epoch, or another version than the
   job was planned from means the job is **stale** (another commit overtook it, or a copy
   of this job already committed): nothing is done.
2. Take the session's reduction lease as ``summem-job:<job_id>``: a copy of the job
   redelivered after its worker died takes the lease over at once (the lease is re-entrant
   for its owner), while another job waits (``lease_held``: the engine retries it later).
3. Read ``history[k:]``, check the version again, plan the reduction as the memory's soft
   trigger would, summarize, and commit **only on the job's version**; a conflict is not
   retried (the job is stale then). So a duplicated job commits once, and a job never
   commits on a state it was not planned from.

The outcome says which of these happened and why, with the queue lag; it is logged too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from summem._flow import run_sync
from summem.errors import ConfigurationError
from summem.events import MemoryEvent, ReductionCommitted, StoreConflictRetried
from summem.fleet.job import ReductionJob
from summem.observe.hooks import Hook, HookList
from summem.observe.spend import SpendLimit
from summem.reducers.base import Reducer
from summem.session.core import SessionCore
from summem.session.flows import reduction_flow, reload_flow
from summem.session.steps import SyncStoreSteps
from summem.stores.base import Store
from summem.stores.summary_log import DEFAULT_KEEP_SUMMARIES, check_keep_summaries

__all__ = ["CURRENT_JOB", "JobOutcome", "JobStatus", "run_job"]

logger = logging.getLogger("summem.fleet")

CURRENT_JOB: ContextVar[ReductionJob | None] = ContextVar("summem_current_job", default=None)
"""The job :func:`run_job` is running in this context (for a summarizer's or a hook's logs)."""

JobStatus = Literal["committed", "stale", "nothing_to_do", "lease_held", "failed", "wrong_store"]


@dataclass(frozen=True)
class JobOutcome:
    """What :func:`run_job` did.

    Attributes:
        job: the job.
        status: ``committed`` (a summary, or an offline fold, is in the store);
            ``stale`` (the session moved on: nothing to do, see ``reason``);
            ``nothing_to_do`` (the view is within the soft threshold, or cannot be cut);
            ``lease_held`` (another job is reducing the session: retry later);
            ``failed`` (the summarizer failed: nothing committed, see ``reason``);
            ``wrong_store`` (the job names another store than the worker's).
        reason: why, for people and logs.
        lag_seconds: from the job's planning to the start of this run (queue lag).
        duration_seconds: this run.
        version: the session's version after a commit.
        summary_id: the committed summary's id (``None`` for a truncation, or no commit).
    """

    job: ReductionJob
    status: JobStatus
    reason: str
    lag_seconds: float
    duration_seconds: float
    version: int | None = None
    summary_id: str | None = None

    @property
    def retry(self) -> bool:
        """Whether the engine should run the job again later (only ``lease_held``)."""
        return self.status == "lease_held"


def run_job(
    job: ReductionJob,
    *,
    store: Store,
    reducer: Reducer,
    store_url: str = "",
    lease_ttl_seconds: float = 120.0,
    hooks: Sequence[Hook] = (),
    keep_summaries: int | None = DEFAULT_KEEP_SUMMARIES,
    spend_limit: SpendLimit | None = None,
) -> JobOutcome:
    """Run ``job`` on ``store`` with ``reducer`` (the memory's, from the same config).

    Args:
        job: the job the memory published.
        store: the worker's store (the producer's, opened here).
        reducer: the budget and summarizer (a worker is configured like the memory).
        store_url: the worker's store URL; when both it and ``job.store`` are known and
            differ (as :func:`~summem.fleet.job.store_label` names them: credentials aside),
            the job is refused as ``wrong_store``.
        lease_ttl_seconds: how long the lease outlives a worker killed mid-job (its
            redelivered copy takes over at once; another job waits this long at most).
        hooks: given the reduction's events, as a memory's hooks are.
        keep_summaries: how many latest summaries the store's log keeps whole (the
            producers' ``Memory(keep_summaries=)``; ``None``: every one).
        spend_limit: the producers' spend limit (``Memory(spend_limit=)``, ``observe:
            spend_limit:``): the job's summarizer calls reserve and record their spend as
            the memory's would, in the store's ledger when it keeps one, so a budget holds
            for the reductions a fleet runs too. ``None``: no limit.

    Returns:
        What happened; it is also logged (``summem.fleet``, INFO; WARNING for a failure).

    Raises:
        ConfigurationError: ``keep_summaries`` or ``spend_limit`` is not valid (before
            anything is read or written).
    """
    keep = check_keep_summaries(keep_summaries)
    if spend_limit is not None and not isinstance(spend_limit, SpendLimit):
        raise ConfigurationError(f"spend_limit must be a summem SpendLimit, got {spend_limit!r}")
    token = CURRENT_JOB.set(job)
    try:
        return _run(job, store, reducer, store_url, lease_ttl_seconds, hooks, keep, spend_limit)
    finally:
        CURRENT_JOB.reset(token)


def _run(
    job: ReductionJob,
    store: Store,
    reducer: Reducer,
    store_url: str,
    lease_ttl_seconds: float,
    hooks: Sequence[Hook],
    keep_summaries: int | None,
    spend_limit: SpendLimit | None,
) -> JobOutcome:
    started, lag = time.monotonic(), job.lag()
    sid = job.session_id

    def done(status: JobStatus, reason: str, **extra: object) -> JobOutcome:
        took = time.monotonic() - started
        outcome = JobOutcome(job, status, reason, lag, took, **extra)  # type: ignore[arg-type]
        level = logging.WARNING if status == "failed" else logging.INFO
        logger.log(
            level,
            "job %s, session %r: %s (%s); queue lag %.3f s, ran %.3f s",
            job.job_id,
            sid,
            status,
            reason,
            lag,
            took,
        )
        return outcome

    if store_url and job.store:
        from summem.fleet.job import store_label

        if store_label(store_url) != job.store:
            return done("wrong_store", f"the job is for {job.store}, this worker serves another")
    steps = SyncStoreSteps(store)
    found = run_sync(steps.probe(sid))
    stale = _stale(job, found)
    if stale is not None:
        return done("stale", stale)
    owner = f"summem-job:{job.job_id}"
    if not store.acquire_lease(sid, owner, lease_ttl_seconds):
        return done("lease_held", "another job holds the session's reduction lease")
    try:
        heard: list[MemoryEvent] = []
        core = SessionCore(sid, reducer, background=False)
        core.keep_summaries = keep_summaries
        core.spend_limit = spend_limit
        core.hooks = HookList([*hooks, heard.append], allow_async=False)
        run_sync(reload_flow(core, steps))
        stale = _stale(job, (core.epoch, core.version, core.length) if not core.stale else None)
        if stale is not None:
            return done("stale", stale)
        result = run_sync(reduction_flow(core, steps, "soft", background=True, attempts=1))
    finally:
        store.release_lease(sid, owner)
    if any(isinstance(e, StoreConflictRetried) for e in heard):
        return done("stale", "another commit landed while the job ran; it committed nothing")
    if result is None:
        return done("nothing_to_do", "the view is within its soft threshold, or cannot be cut")
    if result.error is not None:
        return done("failed", f"{type(result.error).__name__}: {result.error}")
    committed = [e for e in heard if isinstance(e, ReductionCommitted)]
    summary = committed[-1].summary_id if committed else None
    return done(
        "committed",
        f"watermark {job.watermark} -> {core.watermark}",
        version=core.version,
        summary_id=summary,
    )


def _stale(job: ReductionJob, found: tuple[str, int, int] | None) -> str | None:
    """Why the job no longer applies to the session's state ``found``, or ``None``."""
    if found is None:
        return "the session no longer exists"
    epoch, version, _length = found
    if epoch != job.epoch:
        return "the session was cleared or recreated since the job was planned"
    if version != job.version:
        return (
            f"the session is at version {version}, the job was planned at {job.version} "
            "(already reduced, by this job's copy or another commit)"
        )
    return None
