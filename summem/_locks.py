"""A lock for coroutines that holds across event loops and threads.

``asyncio.Lock`` belongs to the first event loop that waits on it. An ``AsyncMemory`` shared by
threads that each run their own loop (``asyncio.run`` per thread, as sync entry points such
as the Agents SDK's ``Runner.run_sync`` do) then fails with "bound to a different event loop",
or leaves a waiter hanging for ever. :class:`LoopSafeLock` excludes with a
``threading.Lock``; the coroutines of one loop queue on that loop's own ``asyncio.Lock``
(first come, first served, no polling), and only the head of each loop's queue polls the
thread lock, which happens only while another loop holds it.
"""

from __future__ import annotations

import asyncio
import threading
import weakref

__all__ = ["LoopSafeLock"]

_FIRST_POLL = 0.0005  # seconds; doubled up to _LAST_POLL while another loop holds the lock
_LAST_POLL = 0.02


class LoopSafeLock:
    """Mutual exclusion for coroutines on any event loop, in any thread.

    Use as ``async with lock:``. Not reentrant. A waiter that is cancelled leaves the lock as
    it was.
    """

    def __init__(self) -> None:
        self._held = threading.Lock()
        self._guard = threading.Lock()  # guards _queues
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._holder: asyncio.Lock | None = None

    def locked(self) -> bool:
        """True while some coroutine holds the lock."""
        return self._held.locked()

    def _queue(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            queue = self._queues.get(loop)
            if queue is None:
                queue = self._queues[loop] = asyncio.Lock()
            return queue

    async def __aenter__(self) -> None:
        queue = self._queue()
        await queue.acquire()
        try:
            delay = _FIRST_POLL
            while not self._held.acquire(blocking=False):
                await asyncio.sleep(delay)  # another loop holds it: it is not ours to wake us
                delay = min(delay * 2, _LAST_POLL)
        except BaseException:
            queue.release()
            raise
        self._holder = queue

    async def __aexit__(self, *exc_info: object) -> None:
        queue, self._holder = self._holder, None
        self._held.release()
        if queue is not None:
            queue.release()
