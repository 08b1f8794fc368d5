"""``summem worker``: a Celery worker that runs the fleet's reduction jobs.

It reads the same ``summem.yaml`` as the memories that publish the jobs (``dispatch:`` names
the broker and the queue; ``store:``, ``model:`` and ``budget:`` the store and the reducer;
``summary: keep_summaries`` and ``observe:`` its hooks and spend limit), so the worker reduces
exactly as an in-process memory would. The store and the summarizer are
built in each worker process on its first job (never before a fork).
"""

from __future__ import annotations

from typing import Any

from summem.config.model import SummemConfig

__all__ = ["check_broker", "worker_app"]


def worker_app(config: SummemConfig, *, broker: str | None = None, queue: str | None = None) -> Any:
    """The Celery app a ``summem worker`` runs: the ``summem.reduce`` task over ``config``.

    Args:
        config: the settings (the producers' file).
        broker: replaces ``dispatch.broker`` (expanded already).
        queue: replaces ``dispatch.queue``.

    Raises:
        ConfigurationError: no broker (neither ``dispatch:`` nor ``broker``), or ``broker`` is
            not a URL of a broker Celery knows.
    """
    from summem.errors import ConfigurationError
    from summem.fleet.celery import DEFAULT_QUEUE, WorkerContext, celery_app

    dispatch = config.dispatch
    if broker is None:
        if dispatch is None:
            raise ConfigurationError(
                f"{config.source}: the worker needs a broker: a dispatch: section in "
                "summem.yaml, or --broker"
            )
        broker = config.broker_url()
    else:
        _check_broker(broker)
    queue = queue or (dispatch.queue if dispatch is not None else DEFAULT_QUEUE)
    lease = dispatch.lease_ttl_seconds if dispatch is not None else 120.0
    retry = dispatch.retry_seconds if dispatch is not None else 2.0

    def context() -> WorkerContext:
        return WorkerContext(
            store=config.build_store(),
            reducer=config.build_reducer(),
            store_url=config.store,
            lease_ttl_seconds=lease,
            retry_seconds=retry,
            hooks=config.observe.build_hooks(),
            keep_summaries=config.summary.keep_summaries,
            spend_limit=config.spend_limit(),
        )

    visibility = dispatch.visibility_timeout_seconds if dispatch is not None else None
    return celery_app(broker, queue=queue, context=context, visibility_timeout=visibility)


def _check_broker(broker: str) -> None:
    """``--broker`` checked as ``dispatch.broker`` is, before Celery resolves (or looks up) it."""
    from summem.config.sections import BROKER_SCHEMES
    from summem.errors import ConfigurationError

    scheme, sep, rest = broker.partition("://")
    if not sep or scheme not in BROKER_SCHEMES or (scheme != "memory" and not rest):
        raise ConfigurationError(
            f"--broker must be a URL with one of the schemes {', '.join(BROKER_SCHEMES)}, "
            f"got {broker!r}"
        )


def check_broker(app: Any) -> None:
    """Connect to ``app``'s broker once (one retry) before the worker starts.

    A worker whose broker is wrong or down fails at start in one line, rather than retrying
    for an hour (a supervisor restarts it); once running, Celery reconnects as ever.

    Raises:
        DispatchError: the broker refused or did not answer (its URL masked, the cause named).
    """
    from summem._secrets import mask_url
    from summem.errors import DispatchError

    url = str(app.conf.broker_url)
    try:
        with app.connection_for_read() as conn:
            conn.ensure_connection(max_retries=1, interval_start=1, interval_step=1)
    except Exception as exc:
        cause = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise DispatchError(f"cannot connect to the broker {mask_url(url)}: {cause}") from None
