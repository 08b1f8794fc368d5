"""The thread behind ``Memory``'s background reductions, started before it is needed.

Starting a thread makes the caller wait until the OS schedules it (``Thread.start`` blocks on
the new thread's handshake): a fraction of a millisecond on an idle machine, several on a busy
one. A turn that starts a background reduction must not pay that, so the memory keeps one
daemon thread that waits for work: the turn only flips a flag and notifies it. The thread is
started when the view gets close to the soft threshold, and exits after an idle period, so a
memory that is never closed does not keep a thread forever.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["BackgroundWorker"]


class BackgroundWorker:
    """Runs ``job`` in one long-lived daemon thread, one request at a time.

    Args:
        job: the work; it must not raise (exceptions are the job's to record).
        name: the thread's name.
        idle_seconds: the thread exits after this long without work (restarted on demand).
    """

    def __init__(self, job: Callable[[], None], *, name: str, idle_seconds: float = 30.0) -> None:
        self._job = job
        self._name = name
        self._idle = idle_seconds
        self._cv = threading.Condition()
        self._pending = False
        self._stopping = False
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        """True from :meth:`submit` until the job has returned."""
        return self._pending

    def prestart(self) -> None:
        """Start the thread now (if it is not running), so a later submit does not wait."""
        if self._thread is not None:
            return
        with self._cv:
            self._ensure_thread()

    def submit(self) -> bool:
        """Ask for one run of the job; False if one is already pending or running."""
        with self._cv:
            if self._pending or self._stopping:
                return False
            self._pending = True
            self._ensure_thread()
            self._cv.notify_all()
            return True

    def join(self) -> None:
        """Wait until no job is pending or running."""
        with self._cv:
            while self._pending:
                self._cv.wait()

    def stop(self) -> None:
        """Let the pending job finish, then end the thread."""
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _ensure_thread(self) -> None:
        if self._thread is None and not self._stopping:
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._pending:
                    idle = self._stopping or not self._cv.wait(timeout=self._idle)
                    if idle and not self._pending:
                        self._thread = None
                        return
            try:
                self._job()
            finally:
                with self._cv:
                    self._pending = False
                    self._cv.notify_all()
