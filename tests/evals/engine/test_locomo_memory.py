"""The LoCoMo engine run scores what a user gets: a Memory's view, its loop guard included."""

from __future__ import annotations

from evals.engine.locomo import memory_end
from summem.messages import parse_message
from tests.fakes.counters import words
from tests.fakes.memory import small_reducer
from tests.fakes.messages import sys, u
from tests.fakes.summarizers import FakeSummarizer


def test_a_memory_that_pauses_says_so_and_keeps_its_summary() -> None:
    # a system message of 80 of the 100 tokens: reductions free almost nothing and pause
    # (see tests/test_loop_guard_ratios.py); the bare reducer would go on reducing
    messages = [parse_message(sys(words(80, "sys")))]
    messages += [parse_message(u(f"order {100 + i} ships")) for i in range(30)]
    end = memory_end(messages, small_reducer(FakeSummarizer()))
    assert end.paused and end.had_summary and end.summary is not None
    assert "order 129" in end.view[-1].text


def test_an_ordinary_conversation_does_not_pause() -> None:
    messages = [
        parse_message(u(f"{name} ordered {100 + i} lamps"))
        for i, name in enumerate(["Ana", "Bram", "Chen", "Dalia"] * 10)
    ]
    end = memory_end(messages, small_reducer(FakeSummarizer()))
    assert not end.paused and end.had_summary and end.summary is not None
