"""The producer's side: publish jobs off the turn, and notice a worker's commit cheaply.

A turn must never wait for the broker, so a memory with a dispatcher only puts its job on
the process's **publisher** queue; one daemon thread per process (started when the first
such memory is made, never by a turn) calls ``dispatcher.dispatch(job)``. A failure there
(the broker is down) is recorded in the memory's :class:`DispatchState` and announced on
its next turn (``DispatchFailed``); no job is published for ``retry_seconds`` after it.

While a job is outstanding, each turn learns the session's ``(epoch, version, length)`` and
reads the session again only when the version moved: that is how a memory picks up the summary
a worker committed. A store that appends and probes in one call
(:class:`~summem.stores.base.ProbingAppendStore`: memory, SQLite, PostgreSQL) reports them with
the turn's append, so the turn costs one round trip; another store (Redis for now, third-party
ones) is probed after the append (``probe``: one small read, no message decoded). A job is
outstanding until the session's version moves (the worker committed, or another commit
made the job stale) or ``redispatch_seconds`` pass without that (the job was lost, or a
worker found it a no-op): then the next turn over the soft threshold plans a new one.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from summem._flow import Flow
from summem.errors import ConfigurationError
from summem.events import MemoryEvent
from summem.fleet.dispatcher import (
    DEFAULT_PUBLISH_RETRY_SECONDS,
    DEFAULT_REDISPATCH_SECONDS,
    Dispatcher,
    check_seconds,
)
from summem.fleet.events import DispatchFailed, DispatchOverdue, ReductionDispatched
from summem.fleet.job import ReductionJob, store_label
from summem.observe.hooks import emit
from summem.session.core import SessionCore, Trigger
from summem.session.flows import reload_flow
from summem.session.steps import StoreSteps

__all__ = [
    "CLOSE_FLUSH_SECONDS",
    "PUBLISHER",
    "DispatchState",
    "Publisher",
    "dispatch_state",
    "dispatch_turn_flow",
    "flush_on_close",
    "noticed_flow",
]

logger = logging.getLogger("summem.fleet")


class Publisher:
    """One daemon thread per process that publishes jobs, so no turn waits for a broker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[Callable[[], None], threading.Event | None]]
        self._queue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def ready(self) -> None:
        """Start the thread if it is not running in this process (off the hot path)."""
        if self._running():
            return
        with self._lock:
            if not self._running():
                q: queue.SimpleQueue[tuple[Callable[[], None], threading.Event | None]]
                q = queue.SimpleQueue()
                thread = threading.Thread(
                    target=_serve, args=(q,), name="summem-publisher", daemon=True
                )
                thread.start()
                self._queue, self._thread, self._pid = q, thread, os.getpid()

    def _running(self) -> bool:
        thread = self._thread  # a forked child has no publisher thread, whatever it copied
        return thread is not None and self._pid == os.getpid() and thread.is_alive()

    def submit(self, task: Callable[[], None]) -> None:
        """Run ``task`` on the publisher's thread; returns at once."""
        self.ready()
        self._queue.put((task, None))

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything submitted before this call has run; False on timeout."""
        if not self._running():
            return True
        done = threading.Event()
        self._queue.put((lambda: None, done))
        return done.wait(timeout)


def _serve(q: queue.SimpleQueue[tuple[Callable[[], None], threading.Event | None]]) -> None:
    while True:
        task, done = q.get()
        try:
            task()
        except Exception:  # a task records its own failures; this is a last resort
            logger.exception("summem: publishing a reduction job failed")
        finally:
            if done is not None:
                done.set()


PUBLISHER = Publisher()
"""The process's publisher."""

_STATES: weakref.WeakSet[DispatchState] = weakref.WeakSet()
"""Every memory's dispatch state in this process (their locks are made anew in a fork)."""


def _after_fork_in_child() -> None:
    """Locks a parent's thread held at the fork stay held in the child: make them anew.

    The child has none of the parent's threads (the publisher's included: it starts its own on
    its first job), so no lock copied into it can be held by anything that runs there.
    """
    PUBLISHER._lock = threading.Lock()
    for state in list(_STATES):
        state._lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)

CLOSE_FLUSH_SECONDS = 10.0
"""How long a memory's ``close()`` waits for the jobs planned before it to reach the broker
(the publisher is a daemon thread: a process that exits right after ``close()`` would drop
them). Past it, ``close()`` logs a warning and returns."""


def flush_on_close(session_id: str) -> None:
    """Wait (at most :data:`CLOSE_FLUSH_SECONDS`) for the jobs queued so far to be published."""
    if not PUBLISHER.flush(CLOSE_FLUSH_SECONDS):
        logger.warning(
            "session %r: closed with reduction jobs still being published after %.0f s; a "
            "process that exits now drops them (the next turn plans the reduction again)",
            session_id,
            CLOSE_FLUSH_SECONDS,
        )


@dataclass
class _Outstanding:
    job: ReductionJob
    sent: float  # monotonic


class DispatchState:
    """One memory's jobs: the one outstanding, failures to announce, the retry pause.

    Args:
        dispatcher: where jobs go.
        store: the store's URL (each job carries its :func:`~summem.fleet.job.store_label`),
            or ``""``.
        redispatch_seconds: a job whose session did not move in this long is given up
            (a new one may be published).
        retry_seconds: after a failed publish, no new job for this long.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        *,
        store: str = "",
        redispatch_seconds: float = 60.0,
        retry_seconds: float = 5.0,
    ) -> None:
        check_seconds(redispatch_seconds=redispatch_seconds, retry_seconds=retry_seconds)
        self.dispatcher = dispatcher
        self.store = store_label(store) if store else ""
        self.redispatch_seconds = redispatch_seconds
        self.retry_seconds = retry_seconds
        self._lock = threading.Lock()
        self._outstanding: _Outstanding | None = None
        self._retry_at = 0.0
        self._events: list[MemoryEvent] = []
        self._probed: tuple[str, int, int] | None = None
        self.published = 0
        """Jobs handed to the dispatcher without an error (this process)."""
        _STATES.add(self)

    @property
    def outstanding(self) -> ReductionJob | None:
        """The job published and not yet answered, if any."""
        o = self._outstanding
        return o.job if o is not None else None

    def in_flight(self, core: SessionCore) -> bool:
        """Whether a job for the copy's current state is still expected to land."""
        with self._lock:
            o = self._outstanding
            if o is None:
                return time.monotonic() < self._retry_at  # publishing failed: wait a little
            if (core.epoch, core.version) != (o.job.epoch, o.job.version):
                self._outstanding = None  # answered, or overtaken by another commit
                return False
            if time.monotonic() - o.sent > self.redispatch_seconds:
                logger.warning(
                    "session %r: reduction job %s got no answer in %.0f s; planning another",
                    core.session_id,
                    o.job.job_id,
                    self.redispatch_seconds,
                )
                self._outstanding = None
                return False
            return True

    def submit(self, core: SessionCore) -> ReductionJob:
        """Plan a job from the copy's state and queue it for publishing (no waiting)."""
        with core.lock:
            job = ReductionJob(
                core.session_id,
                core.epoch,
                core.version,
                watermark=core.watermark,
                length=core.length,
                store=self.store,
            )
        with self._lock:
            self._outstanding = _Outstanding(job, time.monotonic())
        PUBLISHER.submit(lambda: self._publish(job))
        return job

    def _publish(self, job: ReductionJob) -> None:
        try:
            self.dispatcher.dispatch(job)
        except Exception as exc:
            from summem._secrets import mask_url

            detail = mask_url(str(exc))
            logger.warning(
                "session %r: reduction job %s was not published (%s: %s); turns go on, the "
                "hard limit is kept by truncation",
                job.session_id,
                job.job_id,
                type(exc).__name__,
                detail,
            )
            event = DispatchFailed(
                job.session_id,
                job_id=job.job_id,
                error_type=type(exc).__name__,
                detail=detail,
                retry_seconds=self.retry_seconds,
            )
            with self._lock:
                if self._outstanding is not None and self._outstanding.job is job:
                    self._outstanding = None
                self._retry_at = time.monotonic() + self.retry_seconds
                self._events.append(event)
            return
        with self._lock:
            self.published += 1

    def observe(self, found: tuple[str, int, int] | None) -> None:
        """Keep what the store reported with the turn's append, for :func:`noticed_flow`."""
        self._probed = found

    def take_probed(self) -> tuple[str, int, int] | None:
        """What :meth:`observe` kept (``None``: nothing), forgotten as it is taken."""
        found, self._probed = self._probed, None
        return found

    def take_events(self) -> list[MemoryEvent]:
        """Events recorded off the turn (failed publishes), to deliver on the next turn."""
        with self._lock:
            events, self._events = self._events, []
            return events

    def overdue(self, core: SessionCore) -> DispatchOverdue:
        """The event for a turn that passed the hard limit with no worker's answer."""
        o = self._outstanding
        return DispatchOverdue(
            core.session_id,
            job_id=o.job.job_id if o is not None else None,
            waited_seconds=time.monotonic() - o.sent if o is not None else 0.0,
            size=core.size,
            hard_limit=core.hard_limit,
        )


def dispatch_state(dispatcher: object, store: object) -> DispatchState | None:
    """A memory's :class:`DispatchState` for ``dispatcher`` (``None``: no dispatcher).

    Raises:
        ConfigurationError: ``dispatcher`` has no ``dispatch`` method.
    """
    if dispatcher is None:
        return None
    if not isinstance(dispatcher, Dispatcher):
        raise ConfigurationError(
            f"dispatcher must have a dispatch(job) method (summem.fleet.Dispatcher), got "
            f"{dispatcher!r}"
        )
    return DispatchState(
        dispatcher,
        store=store if isinstance(store, str) else "",
        redispatch_seconds=getattr(dispatcher, "redispatch_seconds", DEFAULT_REDISPATCH_SECONDS),
        retry_seconds=getattr(dispatcher, "publish_retry_seconds", DEFAULT_PUBLISH_RETRY_SECONDS),
    )


def noticed_flow(core: SessionCore, store: StoreSteps, state: DispatchState) -> Flow[None]:
    """Pick up a worker's commit: probe the store, read the session only if it moved.

    Checks while a job is outstanding, and before a new one would be planned (so a job is
    never planned from a version a worker has already moved past). The epoch and version the
    store reported with the turn's append (:meth:`DispatchState.observe`) serve as the probe:
    no store call then. Without them (a store that cannot report them), the store is probed.
    Run under the write lock.
    """
    appended = state.take_probed()
    if state.outstanding is None and core.next_action(in_flight=False) is None:
        return
    if core.stale:
        yield from reload_flow(core, store)
        return
    found = appended if appended is not None else (yield from store.probe(core.session_id))
    if found is None or (found[0], found[1]) != (core.epoch, core.version):
        core.stale = True
        yield from reload_flow(core, store)


def dispatch_turn_flow(core: SessionCore, state: DispatchState) -> Flow[Trigger | None]:
    """After a write: publish a job past the soft threshold; ``"hard"`` past the hard limit.

    Returns ``"hard"`` when the caller must fold the view now (the job did not land in
    time); the ``DispatchOverdue`` event is emitted here.
    """
    hooks = core.hooks
    for event in state.take_events():
        yield from emit(hooks, event)
    action, skipped = core.decide(in_flight=state.in_flight(core))
    if skipped is not None:
        yield from emit(hooks, skipped)
    if action == "soft":
        job = state.submit(core)
        size = core.size
        yield from emit(
            hooks,
            ReductionDispatched(
                core.session_id,
                job_id=job.job_id,
                version=job.version,
                watermark=job.watermark,
                size=size,
            ),
        )
        return None
    if action == "hard":
        event = state.overdue(core)
        logger.warning(
            "session %r: the view (%d) is past its hard limit (%d) and no worker reduced it "
            "(job %s, outstanding %.1f s): truncating in the turn",
            core.session_id,
            event.size,
            event.hard_limit,
            event.job_id,
            event.waited_seconds,
        )
        yield from emit(hooks, event)
        return "hard"
    return None
