"""The dispatcher protocol: how a memory hands a reduction job to a task engine.

A dispatcher has one method, ``dispatch(job)``, which publishes the job and returns; the
engine's worker then calls :func:`summem.fleet.run_job` with it. The memory never calls it
on the turn's thread: a process-wide publisher thread does (:mod:`summem.fleet.publisher`),
so a slow or unreachable broker costs no turn any time. ``dispatch`` may block (a
connection retry) and may raise: the memory says so with a ``DispatchFailed`` event and
tries again later.

:class:`CallableDispatcher` turns any function taking the job's dict into a dispatcher: RQ,
arq, Dramatiq or a thread pool are a few lines each (``docs-notes/fleet.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from summem.fleet.job import ReductionJob

__all__ = [
    "DEFAULT_PUBLISH_RETRY_SECONDS",
    "DEFAULT_REDISPATCH_SECONDS",
    "CallableDispatcher",
    "Dispatcher",
    "check_seconds",
]


DEFAULT_REDISPATCH_SECONDS = 60.0
DEFAULT_PUBLISH_RETRY_SECONDS = 5.0


@runtime_checkable
class Dispatcher(Protocol):
    """Publishes reduction jobs to a task engine.

    A dispatcher may also have ``redispatch_seconds`` (a job whose session did not move in
    this long is given up and planned again; 60 by default) and ``publish_retry_seconds``
    (after a failed publish, no job for this long; 5 by default).
    """

    def dispatch(self, job: ReductionJob) -> None:
        """Publish ``job``; return once the engine holds it (raise if it cannot)."""


class CallableDispatcher:
    """A dispatcher that calls ``publish(job.to_dict())``: a queue of your own in one line.

    Args:
        publish: called with the job as plain JSON-serialisable data; whatever runs it
            later calls ``summem.fleet.run_job(ReductionJob.from_dict(data), ...)``.
        redispatch_seconds: see :class:`Dispatcher`.
        publish_retry_seconds: see :class:`Dispatcher`.
    """

    def __init__(
        self,
        publish: Callable[[dict[str, Any]], object],
        *,
        redispatch_seconds: float = DEFAULT_REDISPATCH_SECONDS,
        publish_retry_seconds: float = DEFAULT_PUBLISH_RETRY_SECONDS,
    ) -> None:
        check_seconds(
            redispatch_seconds=redispatch_seconds, publish_retry_seconds=publish_retry_seconds
        )
        self.redispatch_seconds = redispatch_seconds
        self.publish_retry_seconds = publish_retry_seconds
        if not callable(publish):
            from summem.errors import ConfigurationError

            raise ConfigurationError(f"CallableDispatcher needs a callable, got {publish!r}")
        self.publish = publish

    def dispatch(self, job: ReductionJob) -> None:
        """Call ``publish`` with the job's dict."""
        self.publish(job.to_dict())

    def __repr__(self) -> str:
        return f"CallableDispatcher({self.publish!r})"


def check_seconds(**durations: float) -> None:
    """Each duration must be a positive number of seconds.

    Raises:
        ConfigurationError: naming the first that is not.
    """
    from summem.errors import ConfigurationError

    for name, value in durations.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ConfigurationError(f"{name} must be a positive number of seconds, got {value!r}")
