"""The one retry layer: a frozen :class:`RetryPolicy` that builds tenacity retriers.

Provider SDKs retry on their own (openai twice, litellm through ``num_retries``), which
multiplies attempts and ignores our deadline. summem turns those off and retries here, in one
place, for every client and both I/O modes:

* only :class:`~summem.errors.LLMTransientError` is retried (429, 5xx, timeouts...);
* the wait is exponential (``initial_backoff`` doubling up to ``max_backoff``), with "equal
  jitter" (a uniform draw in ``[wait/2, wait]``) unless ``jitter=False``;
* a ``Retry-After`` the provider sent is honoured exactly. When it is longer than
  ``retry_after_cap`` we **give up at once** instead of waiting the cap: retrying earlier than
  the provider asked would most likely be refused again, and failing fast lets a fallback
  summarizer take over while the turn is still young;
* a total deadline (``deadline_seconds``): no retry starts when its wait would reach the
  deadline, and each request's timeout is clipped to the time left (:meth:`RetryPolicy.call`
  hands it to the attempt);
* when retrying stops, the last error is wrapped in
  :class:`~summem.errors.LLMRetryError` (``attempts``, ``last_exception``), chained.

``sleep`` and ``clock`` are injectable so tests never really wait::

    policy = RetryPolicy(jitter=False, sleep=slept.append)
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from tenacity import AsyncRetrying, RetryCallState, Retrying, retry_if_exception_type

from summem.errors import ConfigurationError, LLMRetryError, LLMTransientError

__all__ = ["ClockFn", "RetryPolicy", "SleepFn"]

logger = logging.getLogger("summem.retry")

T = TypeVar("T")

SleepFn = Callable[[float], Any]
"""Waits the given seconds. A plain function serves both modes; one returning an awaitable
(``asyncio.sleep``) serves only async calls."""

ClockFn = Callable[[], float]
"""Monotonic seconds, like :func:`time.monotonic`."""

_MAX_EXPONENT = 60  # 2**60 backoff steps is far past any max_backoff; avoids float overflow


@dataclass(frozen=True)
class RetryPolicy:
    """How LLM calls are retried; shared by every client, sync and async.

    Attributes:
        max_attempts: calls in total, the first included (1 disables retrying).
        initial_backoff: seconds to wait after the first failure.
        max_backoff: the exponential backoff never waits longer than this.
        jitter: randomize each backoff within ``[wait/2, wait]`` so clients spread out.
        retry_after_cap: longest ``Retry-After`` honoured; a longer one ends retrying at once.
        deadline_seconds: total time for all attempts and waits; ``None`` for no deadline.
        sleep: replaces ``time.sleep`` / ``asyncio.sleep`` (tests).
        clock: replaces ``time.monotonic`` for the deadline (tests).
    """

    max_attempts: int = 4
    initial_backoff: float = 0.5
    max_backoff: float = 8.0
    jitter: bool = True
    retry_after_cap: float = 30.0
    deadline_seconds: float | None = 60.0
    sleep: SleepFn | None = field(default=None, compare=False, repr=False)
    clock: ClockFn | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigurationError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.initial_backoff < 0 or self.max_backoff < 0:
            raise ConfigurationError("initial_backoff and max_backoff must not be negative")
        if self.retry_after_cap < 0:
            raise ConfigurationError(
                f"retry_after_cap must not be negative: {self.retry_after_cap}"
            )
        if self.deadline_seconds is not None and self.deadline_seconds <= 0:
            raise ConfigurationError(
                f"deadline_seconds must be positive or None, got {self.deadline_seconds}"
            )

    # -- pure parts -----------------------------------------------------------------------

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based), no Retry-After."""
        step = min(self.max_backoff, self.initial_backoff * 2.0 ** min(attempt - 1, _MAX_EXPONENT))
        return random.uniform(step / 2, step) if self.jitter else step

    def wait_after(self, attempt: int, error: BaseException | None) -> float:
        """Seconds to wait after ``error``: its ``Retry-After`` if it has one, else backoff."""
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            return max(0.0, float(retry_after))
        return self.backoff(attempt)

    # -- tenacity -------------------------------------------------------------------------

    def retrying(self) -> Retrying:
        """A new tenacity ``Retrying`` for one call; its deadline starts at its first attempt."""
        run = _Run(self)
        return Retrying(sleep=run.sync_sleep, **run.options())

    def async_retrying(self) -> AsyncRetrying:
        """Async twin of :meth:`retrying`."""
        run = _Run(self)
        return AsyncRetrying(sleep=run.async_sleep, **run.options())

    def call(self, fn: Callable[[float | None], T]) -> T:
        """Call ``fn(time_left)`` until it succeeds or retrying stops.

        Args:
            fn: one attempt; receives the seconds left before the deadline (``None`` without a
                deadline) to use as its request timeout.

        Raises:
            LLMRetryError: retrying stopped; chained to the last attempt's error.
            LLMError: any non-transient error, at once and unchanged.
        """
        run = _Run(self)
        retrying = Retrying(sleep=run.sync_sleep, **run.options())
        return retrying(lambda: fn(run.time_left()))

    async def acall(self, fn: Callable[[float | None], Awaitable[T]]) -> T:
        """Async twin of :meth:`call`: await ``fn(time_left)`` under the same policy."""
        run = _Run(self)
        retrying = AsyncRetrying(sleep=run.async_sleep, **run.options())

        async def attempt() -> T:
            return await fn(run.time_left())

        return await retrying(attempt)


class _Run:
    """The state of one retried call: when it started and why it stopped."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.clock: ClockFn = policy.clock or time.monotonic
        self.started: float | None = None
        self.reason = "retries exhausted"

    def options(self) -> dict[str, Any]:
        """The tenacity arguments both retriers share (everything but ``sleep``)."""
        return {
            "stop": self.stop,
            "wait": self.wait,
            "retry": retry_if_exception_type(LLMTransientError),
            "before": self.before,
            "before_sleep": self.before_sleep,
            "retry_error_callback": self.give_up,
        }

    def time_left(self) -> float | None:
        deadline = self.policy.deadline_seconds
        if deadline is None:
            return None
        started = self.clock() if self.started is None else self.started
        return max(0.0, deadline - (self.clock() - started))

    def before(self, state: RetryCallState) -> None:
        if state.attempt_number == 1:
            self.started = self.clock()

    def wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        return self.policy.wait_after(state.attempt_number, error)

    def stop(self, state: RetryCallState) -> bool:
        policy = self.policy
        error = state.outcome.exception() if state.outcome else None
        if state.attempt_number >= policy.max_attempts:
            self.reason = f"max_attempts={policy.max_attempts} reached"
            return True
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None and retry_after > policy.retry_after_cap:
            self.reason = (
                f"Retry-After {retry_after:g}s exceeds retry_after_cap {policy.retry_after_cap:g}s"
            )
            return True
        left = self.time_left()
        if left is not None and state.upcoming_sleep >= left:
            self.reason = (
                f"deadline of {policy.deadline_seconds:g}s reached "
                f"(next wait {state.upcoming_sleep:.2f}s, {left:.2f}s left)"
            )
            return True
        return False

    def before_sleep(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        logger.info(
            "attempt %d failed (%s); retrying in %.2fs",
            state.attempt_number,
            error,
            state.upcoming_sleep,
        )

    def give_up(self, state: RetryCallState) -> NoReturn:
        error = state.outcome.exception() if state.outcome else None
        if error is None:  # pragma: no cover - tenacity only gives up after a failed attempt
            error = RuntimeError("retrying stopped without an error")
        attempts = state.attempt_number
        logger.warning("giving up after %d attempt(s): %s", attempts, self.reason)
        raise LLMRetryError(
            f"gave up after {attempts} attempt(s): {self.reason}; last error: {error}",
            attempts=attempts,
            last_exception=error,
        ) from error

    def sync_sleep(self, seconds: float) -> None:
        sleep = self.policy.sleep or time.sleep
        result = sleep(seconds)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise ConfigurationError(
                "RetryPolicy.sleep returns an awaitable; it cannot serve sync calls"
            )

    async def async_sleep(self, seconds: float) -> None:
        if self.policy.sleep is None:
            await asyncio.sleep(seconds)
            return
        result = self.policy.sleep(seconds)
        if inspect.isawaitable(result):
            await result
