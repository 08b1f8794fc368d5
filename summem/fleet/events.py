"""The events a memory with a dispatcher emits about its jobs (beside :mod:`summem.events`).

Hooks receive them like every other :class:`~summem.events.MemoryEvent`: on the thread (or
task) of the turn that learns of them, never on the publisher's thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from summem.events import MemoryEvent

__all__ = ["DispatchFailed", "DispatchOverdue", "ReductionDispatched"]


@dataclass(frozen=True)
class ReductionDispatched(MemoryEvent):
    """A reduction job was queued for publishing (the turn did not wait for the broker).

    Attributes:
        job_id: the job's id (a worker's log names it too).
        version: the session's version the job was planned from.
        watermark: ``k`` then.
        size: the view's size then, in the budget's unit.
    """

    job_id: str
    version: int
    watermark: int
    size: int


@dataclass(frozen=True)
class DispatchFailed(MemoryEvent):
    """The dispatcher could not publish a job (a broker down, say); the turns went on.

    Attributes:
        job_id: the job that was not published.
        error_type: the exception's class name.
        detail: its message (a URL in it has its password masked).
        retry_seconds: no new job is published for this long.
    """

    job_id: str
    error_type: str
    detail: str
    retry_seconds: float


@dataclass(frozen=True)
class DispatchOverdue(MemoryEvent):
    """The view passed its hard limit and no worker had reduced it: the turn truncates.

    The turn folds what the reduction would have evicted offline (the extractive summary,
    or plain truncation if even that does not fit), as a back-off does at the hard limit;
    a ``ReductionCommitted`` with ``trigger="hard"`` follows.

    Attributes:
        job_id: the job still outstanding, if any (``None``: none was published, e.g. the
            broker is down).
        waited_seconds: how long that job has been outstanding (0 without one).
        size: the view's size, over ``hard_limit``.
        hard_limit: the limit the view passed.
    """

    job_id: str | None
    waited_seconds: float
    size: int
    hard_limit: int
