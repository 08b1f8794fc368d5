"""Celery support: the ``summem.reduce`` task, a :class:`CeleryDispatcher`, and the worker's app.

Celery is imported when one of these is first used, never by ``import summem`` (the
``summem[celery]`` extra installs it). The task is set for at-least-once delivery:

- ``acks_late``: the broker keeps the message until the task has returned, so a worker that
  dies mid-job (a SIGKILL, an OOM kill, a lost machine) has its job delivered again;
- ``reject_on_worker_lost``: a prefork child that dies mid-job has its job requeued too;
- prefetch 1: a worker holds one unacknowledged job at a time, so a death loses no other.

Running a job twice is safe (:func:`summem.fleet.run_job` commits only on the version the job
was planned from), so at-least-once is exactly-one-commit. A job whose session's lease is held
by another job is retried after ``retry_seconds``.

The producer needs only the broker: ``CeleryDispatcher("amqp://guest:guest@127.0.0.1:5672//",
queue="summem")``. The worker builds its store and reducer from ``summem.yaml``:
``summem worker`` (see :mod:`summem.cli.worker`), or your own app through :func:`celery_app`.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from summem.errors import DispatchError, MissingDependencyError, StoreError
from summem.fleet.dispatcher import (
    DEFAULT_PUBLISH_RETRY_SECONDS,
    DEFAULT_REDISPATCH_SECONDS,
    check_seconds,
)
from summem.fleet.job import ReductionJob
from summem.fleet.worker import JobOutcome, run_job
from summem.observe.hooks import Hook
from summem.observe.spend import SpendLimit
from summem.reducers.base import Reducer
from summem.stores.base import Store
from summem.stores.summary_log import DEFAULT_KEEP_SUMMARIES

__all__ = ["DEFAULT_QUEUE", "TASK_NAME", "CeleryDispatcher", "WorkerContext", "celery_app"]

logger = logging.getLogger("summem.fleet")

TASK_NAME = "summem.reduce"
STORE_RETRIES = 10
"""Times a job is retried (``retry_seconds`` apart) while the worker's store fails."""
DEFAULT_QUEUE = "summem"


def _celery() -> Any:
    try:
        return importlib.import_module("celery")  # Any: celery ships no type information
    except ImportError as exc:
        raise MissingDependencyError("celery", "celery") from exc


@dataclass
class WorkerContext:
    """What a worker process runs jobs with (built once per process, on its first job).

    Attributes:
        store: the store (the producers').
        reducer: the budget and summarizer (the producers' config).
        store_url: the store's URL, to refuse jobs for another store (``""``: no check).
        lease_ttl_seconds: the reduction lease's TTL.
        retry_seconds: a job finding the lease held runs again after this long.
        hooks: given each job's reduction events (as a memory's hooks are).
        on_outcome: called with each job's :class:`~summem.fleet.JobOutcome` (metrics:
            queue lag, stale jobs...); an exception in it is logged and ignored.
        keep_summaries: how many latest summaries the store's log keeps whole (the
            producers' ``Memory(keep_summaries=)``; ``None``: every one).
        spend_limit: the producers' spend limit (``observe: spend_limit:``), applied to each
            job's summarizer calls through the store's ledger; ``None``: no limit.
    """

    store: Store
    reducer: Reducer
    store_url: str = ""
    lease_ttl_seconds: float = 120.0
    retry_seconds: float = 2.0
    hooks: Sequence[Hook] = ()
    on_outcome: Callable[[JobOutcome], object] | None = None
    keep_summaries: int | None = DEFAULT_KEEP_SUMMARIES
    spend_limit: SpendLimit | None = None


def _app_config(broker: str, queue: str, visibility_timeout: float | None) -> dict[str, Any]:
    options = {} if visibility_timeout is None else {"visibility_timeout": visibility_timeout}
    return {
        "broker_transport_options": options,
        "broker_url": broker,
        "task_default_queue": queue,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_ignore_result": True,
        "task_serializer": "json",
        "accept_content": ["json"],
        "broker_connection_retry_on_startup": True,
        "broker_connection_timeout": 4.0,
        "worker_hijack_root_logger": False,
    }


def celery_app(
    broker: str,
    *,
    queue: str = DEFAULT_QUEUE,
    context: Callable[[], WorkerContext] | None = None,
    main: str = "summem",
    visibility_timeout: float | None = None,
) -> Any:
    """A Celery app with the ``summem.reduce`` task on ``queue``.

    Args:
        broker: the broker URL (RabbitMQ ``amqp://...`` or Redis ``redis://...``).
        queue: the queue jobs go to and workers read.
        context: builds the worker's :class:`WorkerContext` (called once per worker
            process, on its first job); a producer's app does not need it.
        main: the app's name.
        visibility_timeout: Redis (and SQS) brokers only: seconds after which a job taken by
            a worker that never acknowledged it (killed mid-job) is delivered again; Celery's
            default is an hour. Set it above your longest job. RabbitMQ redelivers as soon as
            the worker's connection drops.

    Returns:
        A ``celery.Celery`` app; ``app.worker_main([...])`` runs a worker, and
        ``app.summem_context()`` builds the worker's context now (a worker that runs jobs in
        its own process calls it before consuming, so bad settings fail at start).
    """
    celery = _celery()
    app = celery.Celery(main, set_as_current=False)
    app.conf.update(_app_config(broker, queue, visibility_timeout))
    lock = threading.Lock()
    built: list[WorkerContext] = []

    def worker_context() -> WorkerContext:
        with lock:
            if not built:
                if context is None:
                    raise DispatchError(
                        "this Celery app was made without a worker context: build the worker "
                        "with summem.fleet.celery.celery_app(..., context=...) or `summem worker`"
                    )
                built.append(context())
            return built[0]

    @app.task(  # type: ignore[untyped-decorator]  # celery is untyped
        name=TASK_NAME,
        shared=False,  # this app's own task: another app's (a producer's) has no context
        bind=True,
        acks_late=True,
        reject_on_worker_lost=True,
        ignore_result=True,
        max_retries=None,
    )
    def reduce(self: Any, data: object) -> str:
        try:
            job = ReductionJob.from_dict(data)
        except DispatchError as exc:  # never retried: it would fail the same way
            logger.error("summem: dropped a malformed reduction job: %s", exc)
            return "malformed"
        try:
            ctx = worker_context()
            outcome: JobOutcome = run_job(
                job,
                store=ctx.store,
                reducer=ctx.reducer,
                store_url=ctx.store_url,
                lease_ttl_seconds=ctx.lease_ttl_seconds,
                hooks=ctx.hooks,
                keep_summaries=ctx.keep_summaries,
                spend_limit=ctx.spend_limit,
            )
        except StoreError as exc:  # the store is unreachable: the job is not lost for that
            logger.warning(
                "summem: job %s, session %r: the store failed (%s: %s); retrying",
                job.job_id,
                job.session_id,
                type(exc).__name__,
                exc,
            )
            countdown = built[0].retry_seconds if built else 2.0
            raise self.retry(exc=exc, countdown=countdown, max_retries=STORE_RETRIES) from exc
        if ctx.on_outcome is not None:
            try:
                ctx.on_outcome(outcome)
            except Exception:
                logger.exception("summem: the worker's on_outcome callback failed")
        if outcome.retry:
            raise self.retry(countdown=ctx.retry_seconds)
        return outcome.status

    app.summem_reduce = reduce
    app.summem_context = worker_context
    return app


class CeleryDispatcher:
    """Publishes jobs as ``summem.reduce`` tasks on a Celery broker.

    Args:
        broker: the broker URL, or a ``celery.Celery`` app already configured.
        queue: the queue the workers read.
        publish_retries: connection attempts per job before ``dispatch`` raises (it runs on
            the publisher's thread, never on a turn's).
        redispatch_seconds: see :class:`~summem.fleet.Dispatcher`.
        publish_retry_seconds: see :class:`~summem.fleet.Dispatcher`.
    """

    def __init__(
        self,
        broker: str | Any,
        *,
        queue: str = DEFAULT_QUEUE,
        publish_retries: int = 2,
        redispatch_seconds: float = DEFAULT_REDISPATCH_SECONDS,
        publish_retry_seconds: float = DEFAULT_PUBLISH_RETRY_SECONDS,
    ) -> None:
        check_seconds(
            redispatch_seconds=redispatch_seconds, publish_retry_seconds=publish_retry_seconds
        )
        self.redispatch_seconds = redispatch_seconds
        self.publish_retry_seconds = publish_retry_seconds
        if isinstance(broker, str):
            if not broker:
                raise DispatchError("CeleryDispatcher needs a broker URL")
            self.app = celery_app(broker, queue=queue)
        else:
            self.app = broker
        self.queue = queue
        self.publish_retries = publish_retries

    def dispatch(self, job: ReductionJob) -> None:
        """Send the job; raises when the broker cannot be reached after the retries."""
        self.app.send_task(
            TASK_NAME,
            args=[job.to_dict()],
            queue=self.queue,
            retry=True,
            retry_policy={
                "max_retries": self.publish_retries,
                "interval_start": 0.2,
                "interval_step": 0.5,
                "interval_max": 1.0,
            },
            ignore_result=True,
        )

    def __repr__(self) -> str:
        from summem._secrets import mask_url

        return (
            f"CeleryDispatcher({mask_url(str(self.app.conf.broker_url))!r}, queue={self.queue!r})"
        )
