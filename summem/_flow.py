"""Sans-I/O flows and the two drivers that run them.

Anything that talks to an LLM is written once, as a generator that *yields* a :class:`Step`
(for example a chat request), receives the step's result through ``send()`` (or its error
through ``throw()``), and finally *returns* its value. :func:`run_sync` and :func:`run_async`
are the only places that perform I/O: the first calls ``step.run()``, the second awaits
``step.arun()``. The same flow therefore serves ``reduce()`` and ``areduce()``, ``Memory`` and
``AsyncMemory``, with no sync-over-async bridge (the httpx ``Auth.auth_flow`` pattern).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = ["Flow", "Step", "done", "run_async", "run_async_guarded", "run_sync"]

T = TypeVar("T")


@runtime_checkable
class Step(Protocol):
    """One unit of I/O a flow asks its driver to perform."""

    def run(self) -> Any:
        """Perform the step synchronously and return its result."""

    async def arun(self) -> Any:
        """Perform the step asynchronously and return its result."""


Flow = Generator[Step, Any, T]
"""A flow yields steps, is sent their results, and returns a ``T``."""


def done(value: T) -> Flow[T]:
    """A flow that performs no I/O and returns ``value`` (for pure summarizers)."""
    return value
    yield  # pragma: no cover - makes this function a generator


def run_sync(flow: Flow[T]) -> T:
    """Drive ``flow`` to completion, performing each step synchronously."""
    try:
        step = next(flow)
        while True:
            try:
                result = step.run()
            except Exception as exc:  # handed to the flow, which may recover or re-raise
                step = flow.throw(exc)
            else:
                step = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]  # Generator's return type is T
    finally:
        flow.close()


async def run_async(flow: Flow[T]) -> T:
    """Drive ``flow`` to completion, awaiting each step."""
    try:
        step = next(flow)
        while True:
            try:
                result = await step.arun()
            except Exception as exc:  # handed to the flow, which may recover or re-raise
                step = flow.throw(exc)
            else:
                step = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]  # Generator's return type is T
    finally:
        flow.close()


async def run_async_guarded(flow: Flow[T], guard: Callable[[Callable[[], Any]], Any]) -> T:
    """:func:`run_async`, advancing the flow only through ``guard``.

    ``guard(fn)`` calls ``fn`` or raises (for example when the lock the flow runs under was
    taken over while its loop was parked, see :class:`summem._locks.Hold`): a flow never
    resumes, to touch its session's copy, after it stopped being the one allowed to.
    """
    try:
        step = guard(functools.partial(next, flow))
        while True:
            try:
                result = await step.arun()
            except Exception as exc:  # handed to the flow, which may recover or re-raise
                step = guard(functools.partial(flow.throw, exc))
            else:
                step = guard(functools.partial(flow.send, result))
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]  # Generator's return type is T
    finally:
        flow.close()
