"""The thread behind ``Memory``'s background reductions, started without the turn waiting.

Starting a thread makes the caller wait until the OS schedules it (``Thread.start`` blocks on
the new thread's handshake): a fraction of a millisecond on an idle machine, several on a busy
one. A turn must not pay that, so the memory keeps one daemon thread that waits for work (the
turn only flips a flag and notifies it), and that thread is never started by a turn: one
daemon thread per process, the **starter**, started when the first background memory is made
(off the hot path), starts the workers' threads; a turn only puts a request on its queue. A
worker's thread is asked for when the view gets close to the soft threshold, and exits after an
idle period, so a memory that is never closed does not keep a thread forever.

The worker holds its job (a bound method of the memory) weakly: a strong reference would make
a cycle (memory -> worker -> job -> memory), and a dropped memory, with its whole session,
would wait for the cyclic garbage collector, which then frees it inside some later turn.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import weakref
from collections.abc import Callable

__all__ = ["BackgroundWorker", "Starter"]

logger = logging.getLogger("summem")

_STARTING = object()
"""``BackgroundWorker._thread`` while the starter has yet to start the thread."""

_forked_lock = threading.Lock()
"""Serialises a forked child's resets of its workers' copied state (see ``_after_fork``)."""


def _new_fork_lock() -> None:
    global _forked_lock
    _forked_lock = threading.Lock()  # a copy may be held by a thread the child does not have


os.register_at_fork(after_in_child=_new_fork_lock)


class Starter:
    """One daemon thread that starts other threads, so their starters do not wait for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: queue.SimpleQueue[BackgroundWorker] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def ready(self) -> None:
        """Start the starter's own thread if it is not running in this process.

        This waits for a thread start: call it off the hot path (when a memory is made).
        """
        if self._running():
            return
        with self._lock:
            if not self._running():
                requests: queue.SimpleQueue[BackgroundWorker] = queue.SimpleQueue()
                thread = threading.Thread(
                    target=_serve, args=(requests,), name="summem-starter", daemon=True
                )
                thread.start()
                self._requests, self._thread, self._pid = requests, thread, os.getpid()

    def _running(self) -> bool:
        # a forked child has no starter thread, whatever its copy of this object says
        thread = self._thread
        return thread is not None and self._pid == os.getpid() and thread.is_alive()

    def request(self, worker: BackgroundWorker) -> None:
        """Have ``worker``'s thread started on the starter's thread; returns at once."""
        self.ready()
        self._requests.put(worker)


def _serve(requests: queue.SimpleQueue[BackgroundWorker]) -> None:
    while True:
        requests.get()._spawn()


STARTER = Starter()
"""The process's starter."""


class BackgroundWorker:
    """Runs ``job`` in one long-lived daemon thread, one request at a time.

    Args:
        job: the work; it must not raise (exceptions are the job's to record). A bound
            method is held weakly (see the module docstring): once its object is gone, a
            pending run does nothing.
        name: the thread's name.
        idle_seconds: the thread exits after this long without work (restarted on demand).
    """

    def __init__(self, job: Callable[[], None], *, name: str, idle_seconds: float = 30.0) -> None:
        self._job: Callable[[], Callable[[], None] | None]
        if hasattr(job, "__self__"):
            self._job = weakref.WeakMethod(job)
        else:
            self._job = lambda: job
        self._name = name
        self._idle = idle_seconds
        self._cv = threading.Condition()
        self._pending = False
        self._stopping = False
        self._thread: object = None  # None, _STARTING, or the running thread
        self._pid = os.getpid()

    @property
    def busy(self) -> bool:
        """True from :meth:`submit` until the job has returned."""
        return self._pending

    def ready(self) -> None:
        """Start the process's starter now, so no later call here waits for a thread start.

        It may wait for one itself: call it off the hot path.
        """
        STARTER.ready()

    def _after_fork(self) -> None:
        """In a forked child (any fork: uWSGI's from C runs no fork hooks), start afresh.

        The parent's thread, its request to the starter and a run it had pending stay in the
        parent; the child's copies of them (and of the condition's lock, which a parent
        thread may have held) would leave :meth:`stop` waiting forever and :meth:`submit`
        refusing. The child's memory reduces again on its next turn if it still needs to.
        """
        pid = os.getpid()
        if self._pid == pid:
            return
        with _forked_lock:
            if self._pid != pid:
                self._cv = threading.Condition()
                self._thread = None
                self._pending = False
                self._pid = pid

    def prestart(self) -> None:
        """Have the thread started (if it is not running), so a later submit finds it."""
        self._after_fork()
        if self._thread is not None:
            return
        with self._cv:
            self._ensure_thread()

    def submit(self) -> bool:
        """Ask for one run of the job; False if one is already pending or running."""
        self._after_fork()
        with self._cv:
            if self._pending or self._stopping:
                return False
            self._pending = True
            self._ensure_thread()
            self._cv.notify_all()
            return True

    def join(self) -> None:
        """Wait until no job is pending or running."""
        self._after_fork()
        with self._cv:
            while self._pending:
                self._cv.wait()

    def stop(self) -> None:
        """Let the pending job finish, then end the thread."""
        self._after_fork()
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
            while self._thread is _STARTING:  # the starter has yet to start it (or give up)
                self._cv.wait()
            thread = self._thread
        if isinstance(thread, threading.Thread) and thread is not threading.current_thread():
            thread.join()

    def _ensure_thread(self) -> None:
        if self._thread is None and not self._stopping:
            self._thread = _STARTING
            STARTER.request(self)

    def _spawn(self) -> None:
        """Start the thread (on the starter's thread; the thread takes ``_thread`` over)."""
        with self._cv:
            if self._stopping and not self._pending:
                self._thread = None
                self._cv.notify_all()
                return
        try:
            threading.Thread(target=self._loop, name=self._name, daemon=True).start()
        except Exception:  # cannot start a thread: the turns reduce at the hard limit
            logger.exception("summem: cannot start the background reduction thread")
            with self._cv:
                self._thread = None
                self._pending = False
                self._cv.notify_all()

    def _loop(self) -> None:
        with self._cv:
            self._thread = threading.current_thread()
            self._cv.notify_all()
        while True:
            with self._cv:
                while not self._pending:
                    idle = self._stopping or not self._cv.wait(timeout=self._idle)
                    if idle and not self._pending:
                        self._thread = None
                        self._cv.notify_all()
                        return
            job = self._job()
            try:
                if job is not None:
                    job()
            finally:
                job = None  # no reference to the memory while the thread waits
                with self._cv:
                    self._pending = False
                    self._cv.notify_all()
