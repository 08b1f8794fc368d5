"""Summarization as a job on a task engine, for fleets (``docs-notes/fleet.md``).

A memory given a :class:`Dispatcher` does not summarize in its own process: when a reduction
is due it publishes a :class:`ReductionJob` (off the turn), and any worker runs it with
:func:`run_job`, the memory's own flows and compare-and-set commit. Celery support lives in
:mod:`summem.fleet.celery` (imported on first use: ``import summem`` never imports celery).
"""

from summem.fleet.dispatcher import CallableDispatcher, Dispatcher
from summem.fleet.events import DispatchFailed, DispatchOverdue, ReductionDispatched
from summem.fleet.job import ReductionJob
from summem.fleet.worker import JobOutcome, JobStatus, run_job

__all__ = [
    "CallableDispatcher",
    "DispatchFailed",
    "DispatchOverdue",
    "Dispatcher",
    "JobOutcome",
    "JobStatus",
    "ReductionDispatched",
    "ReductionJob",
    "run_job",
]
