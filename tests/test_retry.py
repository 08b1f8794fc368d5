"""RetryPolicy: what is retried, how long it waits, when it stops, and what it raises."""

from __future__ import annotations

import asyncio

import pytest
from tenacity import AsyncRetrying, Retrying

from summem.errors import (
    ConfigurationError,
    LLMError,
    LLMRetryError,
    LLMTransientError,
)
from summem.retry import RetryPolicy
from tests.fakes.llm import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def flaky(failures: list[BaseException], value: str = "ok"):
    """An attempt function failing with each error in turn, then returning ``value``."""
    seen: list[float | None] = []

    def attempt(time_left: float | None) -> str:
        seen.append(time_left)
        if failures:
            raise failures.pop(0)
        return value

    return attempt, seen


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_attempts": 0},
        {"initial_backoff": -1},
        {"max_backoff": -0.1},
        {"retry_after_cap": -1},
        {"deadline_seconds": 0},
    ],
)
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ConfigurationError):
        RetryPolicy(**kwargs)


def test_policy_is_frozen_and_comparable():
    policy = RetryPolicy()
    with pytest.raises(AttributeError):
        policy.max_attempts = 9  # type: ignore[misc]
    assert RetryPolicy(max_attempts=2) == RetryPolicy(max_attempts=2, sleep=lambda s: None)
    assert (policy.max_attempts, policy.deadline_seconds, policy.retry_after_cap) == (4, 60.0, 30.0)


def test_backoff_doubles_up_to_the_cap_without_jitter():
    policy = RetryPolicy(jitter=False, initial_backoff=0.5, max_backoff=3.0)
    assert [policy.backoff(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.backoff(10_000) == 3.0  # no overflow


def test_jitter_stays_within_half_and_full_step():
    policy = RetryPolicy(initial_backoff=2.0, max_backoff=8.0)
    draws = [policy.backoff(2) for _ in range(200)]
    assert all(2.0 <= d <= 4.0 for d in draws)
    assert len(set(draws)) > 1


def test_retry_after_wins_over_backoff():
    policy = RetryPolicy(jitter=False)
    err = LLMTransientError("429", retry_after=7.5)
    assert policy.wait_after(1, err) == 7.5
    assert policy.wait_after(3, LLMTransientError("503")) == 2.0


def test_transient_errors_are_retried_with_backoff(clock: FakeClock):
    attempt, _ = flaky([LLMTransientError("503"), LLMTransientError("503")])
    assert clock.policy().call(attempt) == "ok"
    assert clock.sleeps == [0.5, 1.0]


def test_retry_after_is_waited_exactly(clock: FakeClock):
    attempt, _ = flaky([LLMTransientError("429", retry_after=3.0)])
    assert clock.policy(jitter=True).call(attempt) == "ok"
    assert clock.sleeps == [3.0]


def test_non_transient_errors_pass_through_at_once(clock: FakeClock):
    boom = LLMError("401 bad key", status_code=401)
    attempt, seen = flaky([boom])
    with pytest.raises(LLMError) as info:
        clock.policy().call(attempt)
    assert info.value is boom
    assert len(seen) == 1
    assert clock.sleeps == []


def test_exhaustion_is_wrapped_with_attempts_and_cause(clock: FakeClock):
    errors: list[BaseException] = [
        LLMTransientError(f"503 #{i}", status_code=503) for i in range(5)
    ]
    last = errors[2]
    attempt, seen = flaky(errors)
    with pytest.raises(LLMRetryError) as info:
        clock.policy(max_attempts=3).call(attempt)
    assert info.value.attempts == 3
    assert info.value.last_exception is last
    assert info.value.__cause__ is last
    assert info.value.status_code == 503
    assert "max_attempts=3" in str(info.value)
    assert len(seen) == 3


def test_retry_after_over_the_cap_gives_up_without_waiting(clock: FakeClock):
    attempt, seen = flaky([LLMTransientError("429", retry_after=31.0)])
    with pytest.raises(LLMRetryError) as info:
        clock.policy(retry_after_cap=30.0).call(attempt)
    assert info.value.attempts == 1
    assert clock.sleeps == []
    assert "exceeds retry_after_cap" in str(info.value)
    assert len(seen) == 1


def test_retry_after_equal_to_the_cap_is_honoured(clock: FakeClock):
    attempt, _ = flaky([LLMTransientError("429", retry_after=30.0)])
    assert clock.policy(retry_after_cap=30.0, deadline_seconds=None).call(attempt) == "ok"
    assert clock.sleeps == [30.0]


def test_no_wait_starts_that_would_pass_the_deadline(clock: FakeClock):
    def attempt(time_left: float | None) -> str:
        clock.advance(3.0)
        raise LLMTransientError("slow 503")

    with pytest.raises(LLMRetryError) as info:
        clock.policy(max_attempts=100, deadline_seconds=10.0).call(attempt)
    # t=3 wait .5, t=6.5 wait 1, t=10.5: the next wait cannot fit.
    assert clock.sleeps == [0.5, 1.0]
    assert info.value.attempts == 3
    assert "deadline of 10s reached" in str(info.value)


def test_each_attempt_receives_the_time_left(clock: FakeClock):
    def attempt(time_left: float | None) -> str:
        seen.append(time_left)
        clock.advance(2.0)
        if len(seen) < 3:
            raise LLMTransientError("503")
        return "ok"

    seen: list[float | None] = []
    assert clock.policy(deadline_seconds=10.0).call(attempt) == "ok"
    assert seen == [10.0, 7.5, 4.5]  # 10; -2 -.5; -2 -1


def test_without_deadline_time_left_is_none(clock: FakeClock):
    attempt, seen = flaky([LLMTransientError("503")])
    clock.policy(deadline_seconds=None).call(attempt)
    assert seen == [None, None]


async def test_async_twin_behaves_the_same(clock: FakeClock):
    calls: list[float | None] = []

    async def attempt(time_left: float | None) -> str:
        calls.append(time_left)
        if len(calls) < 3:
            raise LLMTransientError("503")
        return "async ok"

    assert await clock.policy().acall(attempt) == "async ok"
    assert clock.sleeps == [0.5, 1.0]
    assert len(calls) == 3


async def test_async_exhaustion_is_wrapped(clock: FakeClock):
    async def attempt(time_left: float | None) -> str:
        raise LLMTransientError("429", retry_after=1.0)

    with pytest.raises(LLMRetryError) as info:
        await clock.policy(max_attempts=2).acall(attempt)
    assert info.value.attempts == 2
    assert clock.sleeps == [1.0]


async def test_async_sleep_functions_are_awaited():
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0)

    failures = [LLMTransientError("503")]

    async def attempt(time_left: float | None) -> str:
        if failures:
            raise failures.pop()
        return "ok"

    policy = RetryPolicy(jitter=False, sleep=fake_sleep)
    assert await policy.acall(attempt) == "ok"
    assert slept == [0.5]


def test_an_async_sleep_cannot_serve_sync_calls():
    async def fake_sleep(seconds: float) -> None:
        return None

    attempt, _ = flaky([LLMTransientError("503")])
    with pytest.raises(ConfigurationError):
        RetryPolicy(sleep=fake_sleep).call(attempt)


def test_tenacity_objects_are_built_in_one_place(clock: FakeClock):
    policy = clock.policy(max_attempts=2)
    retrying = policy.retrying()
    assert isinstance(retrying, Retrying)
    assert isinstance(policy.async_retrying(), AsyncRetrying)
    failures = [LLMTransientError("503"), LLMTransientError("503")]

    def attempt() -> str:
        if failures:
            raise failures.pop()
        return "ok"

    with pytest.raises(LLMRetryError):
        retrying(attempt)
    assert failures == []
    assert policy.retrying()(lambda: "fresh") == "fresh"
