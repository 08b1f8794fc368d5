"""Splitting an oversized span: halves by tokens, at message boundaries, tool results kept."""

from __future__ import annotations

from summem.messages import assistant, tool, user
from summem.summarizers.chunking import span_tokens, split_in_half, split_to_budget
from tests.fakes.counters import WordCounter, words


def test_a_single_message_cannot_be_split():
    assert split_in_half([user("one")], WordCounter()) is None
    assert split_in_half([], WordCounter()) is None


def test_halves_are_balanced_by_tokens_not_count():
    msgs = [user(words(40)), user(words(2)), user(words(2)), user(words(30))]
    first, second = split_in_half(msgs, WordCounter())  # type: ignore[misc]
    assert first == msgs[:1]
    assert second == msgs[1:]


def test_tool_results_stay_with_their_call():
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    msgs = [
        user(words(5)),
        assistant(None, tool_calls=[call]),
        tool(words(30), tool_call_id="c1"),
        user(words(5)),
    ]
    first, second = split_in_half(msgs, WordCounter())  # type: ignore[misc]
    # The token midpoint falls inside the tool result; the cut moves to a group boundary.
    assert second[0].role != "tool"
    assert first + second == msgs


def test_split_to_budget_covers_the_span_in_order():
    counter = WordCounter()
    msgs = [user(f"m{i} " + words(7)) for i in range(10)]  # 11 tokens each
    chunks = split_to_budget(msgs, counter, budget=25)
    assert [m for c in chunks for m in c] == msgs
    assert all(span_tokens(c, counter) <= 25 for c in chunks)
    assert [len(c) for c in chunks] == [2, 1, 2, 2, 1, 2]  # halving, ties cut earlier


def test_an_oversized_single_message_is_its_own_chunk():
    counter = WordCounter()
    msgs = [user(words(3)), user(words(100)), user(words(3))]
    chunks = split_to_budget(msgs, counter, budget=10)
    assert [m for c in chunks for m in c] == msgs
    assert [len(c) for c in chunks] == [1, 1, 1]


def test_a_span_within_budget_stays_whole():
    msgs = [user("a"), user("b")]
    assert split_to_budget(msgs, WordCounter(), budget=1000) == [msgs]
