"""The latest value said of a subject ranks above older ones (``supersede.latest_first``)."""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.selection import Fact
from summem.summarizers.extractive.supersede import latest_first
from tests.summarizers.extractive.test_summarizer import WordCounter


def msg(id: str, content: str) -> Message:
    return Message.from_openai({"role": "user", "content": content}, id=id)


def fact(line: str, priority: float, position: int, carried: bool = False) -> Fact:
    return Fact(
        line=line,
        day=None,
        priority=priority,
        ids=[f"m{position}"],
        order=(1 if carried else 2, position, 0),
        words=frozenset(),
        digits=frozenset(),
    )


def test_a_new_value_of_a_carried_subject_trades_places_with_it() -> None:
    old = fact("- user: Kitchen budget is 23915 pounds, we cut the island.", 6.0, 0, True)
    new = fact("- user: OK the kitchen budget ends at 32910 pounds, no more changes.", 2.0, 1)
    assert latest_first([old, new]) == [new]
    assert (old.priority, new.priority) == (2.0, 6.0)
    assert old.state == 0 and new.state == 0  # nothing dropped


def test_one_person_s_two_values_are_not_one_thing() -> None:
    deadline = fact("- user: The deadline for Ana Sousa is 14 May.", 6.0, 0, True)
    fee = fact("- user: The fee for Ana Sousa is 300 euros.", 2.0, 1)
    assert latest_first([deadline, fee]) == []
    assert (deadline.priority, fee.priority) == (6.0, 2.0)


def test_one_shared_word_another_kind_or_speaker_leaves_both_alone() -> None:
    cases = [
        ("- user: The gym fee is 40 pounds.", "- user: The parking fee is 12 pounds."),
        ("- user: The report deadline is 14 May.", "- user: The report deadline costs 90 pounds."),
        ("- user: The report deadline is 14 May.", "- assistant: The report deadline is 20 May."),
        (  # one frame said of two items
            "- user: The tents should arrive before room 88 is free.",
            "- user: Change of plan: the sleeping bags should arrive before room 652 is free.",
        ),
    ]
    for first, second in cases:
        old, new = fact(first, 6.0, 0, True), fact(second, 2.0, 1)
        assert latest_first([old, new]) == [], second
        assert (old.priority, new.priority) == (6.0, 2.0), second


def test_a_date_said_again_as_a_day_of_the_month_is_a_new_value() -> None:
    old = fact("- user: The report deadline is 14 May.", 6.0, 0, True)
    new = fact("- user: The report deadline moved to the 20th.", 2.0, 1)
    assert latest_first([old, new]) == [new]


def correct_a_carried_deposit(ablate: tuple[str, ...] = ()) -> str:
    prev = "\n".join(
        [
            "- user: The venue deposit is 3000 pounds, paid by card.",
            "- user: My flight BA-2291 leaves at 07:40 on Friday.",
            "- user: The plumber Dev Okafor comes at 09:15 on Tuesday.",
        ]
    )
    info = SummaryInfo(
        extra={
            "provenance": [
                {"line": 0, "ids": ["p0"], "score": 8.0},
                {"line": 1, "ids": ["p1"], "score": 7.0},
                {"line": 2, "ids": ["p2"], "score": 7.0},
            ]
        }
    )
    said = [
        "They knocked the venue deposit down to 2500 pounds.",
        "My sister Priya lands at Gatwick at 18:20 on Sunday.",
    ]
    request = SummaryRequest(
        messages=[msg(f"n{i}", text) for i, text in enumerate(said)],
        previous_summary=prev,
        previous_info=info,
        max_tokens=40,
        token_counter=WordCounter(),
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_a_carried_stale_value_does_not_outlast_its_correction() -> None:
    text = correct_a_carried_deposit()
    assert "2500" in text and "3000" not in text, text


def test_latest_first_can_be_ablated() -> None:
    text = correct_a_carried_deposit(("latest_first",))
    assert "3000" in text and "2500" not in text, text  # what main did
