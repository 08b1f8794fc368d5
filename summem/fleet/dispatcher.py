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

__all__ = ["CallableDispatcher", "Dispatcher"]


@runtime_checkable
class Dispatcher(Protocol):
    """Publishes reduction jobs to a task engine."""

    def dispatch(self, job: ReductionJob) -> None:
        """Publish ``job``; return once the engine holds it (raise if it cannot)."""


class CallableDispatcher:
    """A dispatcher that calls ``publish(job.to_dict())``: a queue of your own in one line.

    Args:
        publish: called with the job as plain JSON-serialisable data; whatever runs it
            later calls ``summem.fleet.run_job(ReductionJob.from_dict(data), ...)``.
    """

    def __init__(self, publish: Callable[[dict[str, Any]], object]) -> None:
        if not callable(publish):
            from summem.errors import ConfigurationError

            raise ConfigurationError(f"CallableDispatcher needs a callable, got {publish!r}")
        self.publish = publish

    def dispatch(self, job: ReductionJob) -> None:
        """Call ``publish`` with the job's dict."""
        self.publish(job.to_dict())

    def __repr__(self) -> str:
        return f"CallableDispatcher({self.publish!r})"
