"""LoopSafeLock: one lock for coroutines on several event loops, in several threads."""

from __future__ import annotations

import asyncio
import threading

import pytest

from summem._locks import LoopSafeLock


def test_coroutines_on_loops_in_several_threads_never_overlap() -> None:
    lock = LoopSafeLock()
    inside: list[str] = []
    overlaps: list[list[str]] = []
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    async def worker(tag: str) -> None:
        for _ in range(30):
            async with lock:
                inside.append(tag)
                if len(inside) > 1:  # pragma: no cover - the failure this test looks for
                    overlaps.append(list(inside))
                await asyncio.sleep(0)  # let others run while it is held
                inside.remove(tag)

    def thread(tag: str) -> None:
        start.wait()

        async def main() -> None:  # two coroutines per loop: they queue on the loop's lock
            await asyncio.gather(worker(f"{tag}1"), worker(f"{tag}2"))

        try:
            asyncio.run(main())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=thread, args=(t,)) for t in "ABCD"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and overlaps == [] and inside == [] and not lock.locked()


async def test_waiters_on_one_loop_get_the_lock_in_order() -> None:
    lock = LoopSafeLock()
    order: list[int] = []

    async def take(i: int) -> None:
        async with lock:
            order.append(i)

    async with lock:
        tasks = [asyncio.create_task(take(i)) for i in range(5)]
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert order == [0, 1, 2, 3, 4]


async def test_a_cancelled_waiter_leaves_the_lock_as_it_was() -> None:
    lock = LoopSafeLock()
    held_elsewhere = threading.Event()
    release = threading.Event()

    def other_loop() -> None:
        async def hold() -> None:
            async with lock:
                held_elsewhere.set()
                while not release.is_set():
                    await asyncio.sleep(0.001)

        asyncio.run(hold())

    thread = threading.Thread(target=other_loop)
    thread.start()
    await asyncio.to_thread(held_elsewhere.wait)
    queued_behind = asyncio.create_task(lock.__aenter__())  # polls: another loop holds it
    second = asyncio.create_task(lock.__aenter__())  # queues on this loop's lock
    queue = lock._queue()  # this loop's: the first holds it while it polls, the second waits
    for _ in range(1000):  # a few turns of the loop (no timer): each task reaches its wait
        if queue.locked() and getattr(queue, "_waiters", None):
            break
        await asyncio.sleep(0)
    assert queue.locked() and getattr(queue, "_waiters", None), "the waiters never queued"
    queued_behind.cancel()
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued_behind
    with pytest.raises(asyncio.CancelledError):
        await second
    release.set()
    await asyncio.to_thread(thread.join)
    assert not lock.locked()
    async with lock:  # and it still works
        assert lock.locked()
    assert not lock.locked()


@pytest.mark.parametrize("abandonable", [True, False])
def test_an_abandonable_lock_is_taken_from_a_holder_parked_on_an_idle_loop(
    abandonable: bool,
) -> None:
    from summem._locks import Hold, HoldRevokedError

    lock = LoopSafeLock(abandonable=abandonable)
    parked = asyncio.new_event_loop()
    holds: list[Hold] = []
    proceed = asyncio.Event()

    async def holder() -> None:
        async with lock as hold:
            holds.append(hold)
            await proceed.wait()  # parked here while its loop does not run
            hold.run(lambda: None)  # raises once taken over

    task = parked.create_task(holder())
    parked.run_until_complete(asyncio.sleep(0))  # the holder has the lock; its loop idles
    assert lock.locked() and holds[0].current

    async def poll() -> Hold | None:
        return lock._try(asyncio.get_running_loop())  # what a waiter on another loop does

    taken = asyncio.run(poll())
    if not abandonable:
        assert taken is None and holds[0].current  # a plain lock waits, whatever
        proceed.set()
        parked.run_until_complete(task)
        assert not lock.locked()
        parked.close()
        return
    assert taken is not None and taken.took_over and taken.current
    assert not holds[0].current
    proceed.set()  # the parked loop runs again: its holder stops, releasing nothing
    with pytest.raises(HoldRevokedError):
        parked.run_until_complete(task)
    assert lock.locked() and taken.current  # still the new holder's
    parked.close()
