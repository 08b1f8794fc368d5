"""The warning that a hard limit leaves background reduction no headroom (issue 34, item 4)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from summem.memory import Memory
from summem.reducers.headroom import TYPICAL_TURN, headroom_problem
from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.extractive import ExtractiveSummarizer


def reducer(**kw: Any) -> SummarizationReducer:
    kw.setdefault("threshold_tokens", 8000)
    kw.setdefault("target_tokens", 6000)
    kw.setdefault("soft_threshold_tokens", 7000)
    kw.setdefault("model", "gpt-4o")
    return SummarizationReducer(ExtractiveSummarizer(), **kw)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "typical turn" in r.getMessage()
    ]


def open_memory(r: SummarizationReducer, background: bool | None = None) -> None:
    Memory("s", reducer=r, background=background).close()


def test_a_model_window_barely_above_the_threshold_is_named_once_per_reducer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    r = reducer(model="gpt-4")  # 8,192 tokens: the hard limit is the threshold itself
    with caplog.at_level(logging.WARNING, logger="summem"):
        open_memory(r)
        open_memory(r)  # the same reducer again: said once
    (text,) = warnings_of(caplog)
    assert "'gpt-4' has a context window of 8192 tokens" in text
    assert "leaves 0 tokens above threshold_tokens=8000" in text
    assert "lower threshold_tokens (budget.threshold in a config file) to at most 7000" in text


def test_a_large_window_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="summem"):
        open_memory(reducer(model="gpt-4o"))  # 128k tokens
    assert warnings_of(caplog) == []


@pytest.mark.parametrize(
    ("headroom", "warns"), [(TYPICAL_TURN["tokens"] - 1, True), (TYPICAL_TURN["tokens"], False)]
)
def test_a_given_hard_limit_warns_below_one_typical_turn_of_headroom(
    caplog: pytest.LogCaptureFixture, headroom: int, warns: bool
) -> None:
    r = reducer(hard_limit_tokens=8000 + headroom)
    with caplog.at_level(logging.WARNING, logger="summem"):
        open_memory(r)
    found = warnings_of(caplog)
    assert bool(found) == warns
    if warns:
        assert f"hard_limit_tokens={8000 + headroom} leaves {headroom} tokens" in found[0]
        assert (
            "raise hard_limit_tokens (budget.hard_limit in a config file) to at least 9000"
            in (found[0])
        )


@pytest.mark.parametrize(("headroom", "warns"), [(1, True), (2, False)])
def test_the_same_in_messages(headroom: int, warns: bool) -> None:
    r = SummarizationReducer(
        ExtractiveSummarizer(),
        threshold_messages=40,
        target_messages=20,
        soft_threshold_messages=30,
        hard_limit_messages=40 + headroom,
    )
    problem = headroom_problem(r)
    assert (problem is not None) == warns
    if problem is not None:
        assert "hard_limit_messages=41 leaves 1 messages above threshold_messages=40" in problem


def test_blocking_mode_waits_at_the_threshold_anyway_and_is_not_warned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="summem"):
        open_memory(reducer(model="gpt-4"), background=False)
        open_memory(reducer(model="gpt-4", soft_threshold_tokens=None))
    assert warnings_of(caplog) == []
