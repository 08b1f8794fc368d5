"""A lock for coroutines that holds across event loops and threads.

``asyncio.Lock`` belongs to the first event loop that waits on it. An ``AsyncMemory`` shared by
threads that each run their own loop (``asyncio.run`` per thread, as sync entry points such
as the Agents SDK's ``Runner.run_sync`` do) then fails with "bound to a different event loop",
or leaves a waiter hanging for ever. :class:`LoopSafeLock` excludes with a flag under a
``threading.Lock``; the coroutines of one loop queue on that loop's own ``asyncio.Lock``
(first come, first served, no polling), and only the head of each loop's queue polls, which
happens only while another loop holds the lock.

A coroutine holds the lock only while its loop runs it. ``Runner.run_sync`` leaves its loop
open and idle between runs, so a background task it started can be parked there, holding the
lock, until that thread runs its loop again, which may be never. A lock made with
``abandonable=True`` lets a waiter on another loop take it over from a holder whose loop is
not running (idle or closed): the holder's :class:`Hold` is revoked, and the holder, if it
ever resumes, finds out (:meth:`Hold.run`) before it touches anything and stops.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import weakref
from collections.abc import Callable
from typing import TypeVar

__all__ = ["Hold", "HoldRevokedError", "LoopSafeLock"]

T = TypeVar("T")

_FIRST_POLL = 0.0005  # seconds; doubled up to _LAST_POLL while another loop holds the lock
_LAST_POLL = 0.02


class HoldRevokedError(Exception):
    """The lock was taken over while its holder's loop was not running (internal signal)."""


class Hold:
    """One acquisition of a :class:`LoopSafeLock` (what ``async with lock as hold`` gives).

    Attributes:
        took_over: True when it was taken from a holder parked on a loop that did not run.
    """

    __slots__ = ("_lock", "loop", "took_over")

    def __init__(self, lock: LoopSafeLock, loop: asyncio.AbstractEventLoop, took_over: bool):
        self._lock = lock
        self.loop = loop
        self.took_over = took_over

    @property
    def current(self) -> bool:
        """True while this acquisition still holds the lock (not released, not taken over)."""
        return self._lock._holder is self

    def run(self, fn: Callable[[], T]) -> T:
        """Call ``fn`` (synchronous) while holding the lock for sure; no takeover meanwhile.

        Raises:
            HoldRevokedError: the lock was taken over (``fn`` is not called).
        """
        with self._lock._guard:
            if self._lock._holder is not self:
                raise HoldRevokedError
            return fn()


class LoopSafeLock:
    """Mutual exclusion for coroutines on any event loop, in any thread.

    Use as ``async with lock:`` (or ``async with lock as hold:``). Not reentrant. A waiter
    that is cancelled leaves the lock as it was.

    Args:
        abandonable: a waiter on another loop may take the lock from a holder whose loop is
            not running (see the module docstring); the holder must then check its
            :class:`Hold` (:meth:`Hold.run`) before each step.
    """

    def __init__(self, *, abandonable: bool = False) -> None:
        self._abandonable = abandonable
        self._guard = threading.Lock()  # guards _holder and _queues
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._holder: Hold | None = None
        self._mine: contextvars.ContextVar[tuple[Hold, asyncio.Lock] | None] = (
            contextvars.ContextVar("summem_lock_hold", default=None)
        )

    def locked(self) -> bool:
        """True while some coroutine holds the lock."""
        return self._holder is not None

    def _queue(self, loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Lock:
        """The running (or given) loop's queue."""
        loop = loop or asyncio.get_running_loop()
        with self._guard:
            queue = self._queues.get(loop)
            if queue is None:
                queue = self._queues[loop] = asyncio.Lock()
            return queue

    def _try(self, loop: asyncio.AbstractEventLoop) -> Hold | None:
        with self._guard:
            holder = self._holder
            if holder is None:
                hold = self._holder = Hold(self, loop, took_over=False)
                return hold
            if self._abandonable and holder.loop is not loop and not holder.loop.is_running():
                hold = self._holder = Hold(self, loop, took_over=True)
                return hold
            return None

    async def __aenter__(self) -> Hold:
        loop = asyncio.get_running_loop()
        queue = self._queue(loop)
        await queue.acquire()
        try:
            delay = _FIRST_POLL
            while (hold := self._try(loop)) is None:
                await asyncio.sleep(delay)  # another loop holds it: it is not ours to wake us
                delay = min(delay * 2, _LAST_POLL)
        except BaseException:
            queue.release()
            raise
        self._mine.set((hold, queue))
        return hold

    async def __aexit__(self, *exc_info: object) -> None:
        mine = self._mine.get()
        if mine is None:  # pragma: no cover - exit without enter
            return
        hold, queue = mine
        self._mine.set(None)
        with self._guard:
            if self._holder is hold:  # a revoked hold releases nothing: the lock is another's
                self._holder = None
        queue.release()
