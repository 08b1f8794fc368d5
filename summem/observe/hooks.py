"""Delivering events to hooks from inside a flow, outside any store transaction.

A flow announces an event by yielding a step (:func:`emit`); the sync driver calls the hooks
in ``run``, the async driver awaits the ``async def`` ones in ``arun``. A flow never holds a
store transaction across a step, so hooks always run between store calls. A hook that raises
is logged and ignored: observing a memory never breaks a turn.

Code below the session (the fallback chain, the reducer) does not know the memory's hooks: it
yields :func:`announce` steps, which do nothing by themselves; the session's flows pass the
summarizer's flow through :func:`relay`, which delivers them to the memory's hooks.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from summem._flow import Flow, Step
from summem.errors import ConfigurationError
from summem.events import MemoryEvent, ReductionSkipped

__all__ = ["Announce", "Hook", "HookList", "announce", "emit", "lease_held", "relay"]

logger = logging.getLogger("summem")

T = TypeVar("T")

Hook = Callable[[MemoryEvent], "Awaitable[None] | None"]
"""A callable taking one event; ``async def`` hooks are awaited by ``AsyncMemory``."""


class HookList:
    """A memory's hooks (thread-safe to read while another thread adds one).

    Args:
        hooks: the initial hooks.
        allow_async: ``AsyncMemory`` takes ``async def`` hooks; ``Memory`` refuses them.
    """

    def __init__(self, hooks: Sequence[Hook] = (), *, allow_async: bool) -> None:
        self.allow_async = allow_async
        self.hooks: tuple[Hook, ...] = ()
        for hook in hooks:
            self.add(hook)

    def add(self, hook: Hook) -> None:
        """Add ``hook`` (called after the ones already there).

        Raises:
            ConfigurationError: not callable, or an ``async def`` hook on a sync memory.
        """
        if not callable(hook):
            raise ConfigurationError(f"a hook must be callable, got {hook!r}")
        if not self.allow_async and _is_async(hook):
            raise ConfigurationError(
                f"hook {hook!r} is async: Memory calls hooks synchronously (use AsyncMemory, "
                "or a plain function)"
            )
        self.hooks = (*self.hooks, hook)

    def remove(self, hook: Hook) -> None:
        """Remove ``hook`` (a no-op when it is not there)."""
        self.hooks = tuple(h for h in self.hooks if h is not hook)

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def deliver(self, event: MemoryEvent) -> None:
        """Call the hooks now (sync; for code outside a flow)."""
        if self.hooks:
            _Deliver(self.hooks, event).run()

    async def adeliver(self, event: MemoryEvent) -> None:
        """Call the hooks now, awaiting async ones (for code outside a flow)."""
        if self.hooks:
            await _Deliver(self.hooks, event).arun()


def lease_held(session_id: str, trigger: str) -> ReductionSkipped:
    """The event for a reduction that found another worker holding the lease."""
    return ReductionSkipped(
        session_id,
        reason="lease_held",
        trigger=trigger,
        detail="another worker holds the session's reduction lease",
    )


def _is_async(hook: Any) -> bool:
    return inspect.iscoroutinefunction(hook) or inspect.iscoroutinefunction(
        getattr(hook, "__call__", None)  # noqa: B004 - an object with an async __call__
    )


def _failed(hook: Hook, event: MemoryEvent) -> None:
    logger.exception(
        "session %r: hook %r failed on %s (ignored)",
        event.session_id,
        hook,
        type(event).__name__,
    )


@dataclasses.dataclass(frozen=True)
class _Deliver:
    """A flow step that calls each hook with ``event``."""

    hooks: tuple[Hook, ...]
    event: MemoryEvent

    def run(self) -> None:
        for hook in self.hooks:
            try:
                result = hook(self.event)
                if inspect.isawaitable(result):  # pragma: no cover - refused by HookList.add
                    getattr(result, "close", lambda: None)()
            except Exception:
                _failed(hook, self.event)

    async def arun(self) -> None:
        for hook in self.hooks:
            try:
                result = hook(self.event)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                _failed(hook, self.event)


@dataclasses.dataclass(frozen=True)
class Announce:
    """An event announced by code that does not know the hooks; a no-op unless relayed."""

    event: MemoryEvent

    def run(self) -> None:
        """Nothing: an announcement nobody relays is dropped."""
        return None

    async def arun(self) -> None:
        """Nothing (see :meth:`run`)."""
        return None


def emit(hooks: HookList | None, event: MemoryEvent) -> Flow[None]:
    """Deliver ``event`` to ``hooks`` (a step only when there are hooks)."""
    if hooks:
        yield _Deliver(hooks.hooks, event)


def announce(event: MemoryEvent) -> Flow[None]:
    """Announce ``event`` to whoever relays this flow (see :func:`relay`)."""
    yield Announce(event)


def relay(flow: Flow[T], hooks: HookList | None, session_id: str) -> Flow[T]:
    """Run ``flow``, delivering its announced events to ``hooks`` (with ``session_id``)."""
    try:
        step: Step = next(flow)
        while True:
            if isinstance(step, Announce):
                event = dataclasses.replace(step.event, session_id=session_id)
                yield from emit(hooks, event)
                step = flow.send(None)
                continue
            try:
                result = yield step
            except Exception as exc:
                step = flow.throw(exc)
            else:
                step = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]  # Generator's return type is T
    finally:
        flow.close()
