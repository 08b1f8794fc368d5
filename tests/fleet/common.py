"""What the fleet test's producers and workers share: the budget, the messages, the broker."""

from __future__ import annotations

import functools
import os
from typing import Any

import pytest

from summem import SummarizationReducer
from summem.summarizers.base import Summarizer

BROKER_URL = os.environ.get("SUMMEM_TEST_BROKER_URL", "amqp://guest:guest@127.0.0.1:5672//")

THRESHOLD, TARGET, SOFT, HARD = 12, 6, 9, 30
"""The budget, in messages: a job past 9, down to 6; turns truncate only past 30."""


def fleet_reducer(summarizer: Summarizer | None = None) -> SummarizationReducer:
    """The reducer both sides use (a worker is configured like its producers)."""
    options: dict[str, Any] = {} if summarizer is None else {"summarizer": summarizer}
    return SummarizationReducer(
        threshold_messages=THRESHOLD,
        target_messages=TARGET,
        soft_threshold_messages=SOFT,
        hard_limit_messages=HARD,
        **options,
    )


def message(session_id: str, turn: int) -> dict[str, str]:
    """The ``turn``-th message of a session: its text names both, so each is unique."""
    role = "user" if turn % 2 == 0 else "assistant"
    content = (
        f"{session_id} turn {turn}: order {turn * 37 + 1000} ships on day {turn % 28 + 1}; "
        f"the customer prefers the {('blue', 'green', 'red')[turn % 3]} model"
    )
    return {"role": role, "content": content}


@functools.cache
def _rabbitmq_problem() -> str | None:
    try:
        from kombu.connection import Connection

        with Connection(BROKER_URL, connect_timeout=2) as conn:
            conn.ensure_connection(max_retries=1)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def require_rabbitmq() -> None:
    """Skip (or, under CI=true, fail) when RabbitMQ is not reachable."""
    pytest.importorskip("celery", reason="the fleet tests need celery (summem[celery])")
    problem = _rabbitmq_problem()
    if problem is None:
        return
    from summem._secrets import mask_url

    reason = f"RabbitMQ is not reachable at {mask_url(BROKER_URL)} ({problem})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason + "; CI=true requires it")
    pytest.skip(reason)
