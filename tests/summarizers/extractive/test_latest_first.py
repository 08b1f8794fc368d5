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


def test_numbered_items_of_a_list_are_not_one_thing_said_again() -> None:
    cases = [
        ("- user: Old fact 0 is here.", "- user: Old fact 1 is here."),
        (
            "- user: Room 1 is booked for the workshop.",
            "- user: Room 2 is booked for the workshop.",
        ),
        ("- user: Order 12 ships on Friday.", "- user: Order 14 ships on Friday."),
        ("- user: For step 3 the oven goes to 180.", "- user: For step 4 the oven goes to 200."),
        ("- user: Table 7 seats the Okafor family.", "- user: Table 8 seats the Baptiste family."),
    ]
    for first, second in cases:
        old, new = fact(first, 6.0, 0, True), fact(second, 2.0, 1)
        assert latest_first([old, new]) == [], second
        assert (old.priority, new.priority) == (6.0, 2.0), second
        assert old.corrected_by is None, second


def test_six_numbered_lines_keep_their_own_scores() -> None:
    lines = [fact(f"- user: Old fact {i} is here.", s, i, True) for i, s in enumerate([5, 1, 4])]
    assert latest_first(lines) == []
    assert [f.priority for f in lines] == [5, 1, 4]


def test_values_said_in_one_message_are_items_not_a_correction() -> None:
    first = fact("- user: The deposit for the hall is 300 pounds.", 6.0, 0)
    second = fact("- user: The deposit for the hall is 450 pounds with the bar.", 2.0, 0)
    second.ids = list(first.ids)  # two sentences of one message
    assert latest_first([first, second]) == []
    assert (first.priority, second.priority) == (6.0, 2.0)


def test_two_values_changed_at_once_name_two_items() -> None:
    ana = fact("- user: The hotel fee for Ana Sousa is 300 euros.", 6.0, 0, True)
    ben = fact("- user: The hotel fee for Ben Okafor is 200 euros.", 2.0, 1)
    assert latest_first([ana, ben]) == []
    assert (ana.priority, ben.priority) == (6.0, 2.0)


def test_a_change_said_in_other_words_is_one_thing() -> None:
    cases = [  # (older, later): a change word and all of the older subject; filler words aside
        (
            "- user: Update on the deposit: it's 3000 after all.",
            "- user: They knocked the venue deposit down to 2500.",
        ),
        (
            "- user: The bank has moved us to a new mortgage adviser, Tamsin Oakes.",
            "- user: Heads up, Delphine Yelland is our mortgage adviser now; the last one left.",
        ),
        (
            "- user: The gate code at the holiday let is JF-3000-G.",
            "- user: They reset the holiday let gate to GR-2392-Y.",
        ),
    ]
    for first, second in cases:
        old, new = fact(first, 6.0, 0, True), fact(second, 2.0, 1)
        assert latest_first([old, new]) == [new], second
        assert (old.priority, new.priority) == (2.0, 6.0), second
        assert latest_first([old, new], wider=False) == [], second  # what chains10 did


def test_a_run_said_twice_without_a_change_word_is_two_facts() -> None:
    old = fact("- user: I ran 5 miles on the canal path.", 6.0, 0, True)
    new = fact("- user: I ran 7 miles today.", 2.0, 1)
    assert latest_first([old, new]) == []


def test_the_older_statement_is_kept_only_beside_the_later() -> None:
    old = fact("- user: Kitchen budget is 23915 pounds, we cut the island.", 6.0, 0, True)
    new = fact("- user: OK the kitchen budget went up to 32910 pounds, no more changes.", 2.0, 1)
    latest_first([old, new])
    assert old.corrected_by is new and new.marks == ["m0"]
    old, new = fact(old.line, 6.0, 0, True), fact(new.line, 2.0, 1)
    latest_first([old, new], mark=False)
    assert old.corrected_by is None and new.marks == []


def test_a_value_said_again_without_a_change_word_is_not_marked() -> None:
    old = fact("- user: Kitchen budget is 23915 pounds, we cut the island.", 6.0, 0, True)
    new = fact("- user: OK the kitchen budget ends at 32910 pounds, no more changes.", 2.0, 1)
    assert latest_first([old, new]) == [new]  # ranked first, but it may be a second budget
    assert old.corrected_by is None and new.marks == []


def correct_an_update(ablate: tuple[str, ...] = ()) -> str:
    prev = "\n".join(
        [
            "- user: Update on the deposit: it's 3000 pounds after all.",
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


def test_a_correction_in_other_words_outlasts_the_stale_value() -> None:
    text = correct_an_update()
    assert "2500" in text and "3000" not in text, text


def test_latest_wider_can_be_ablated() -> None:
    text = correct_an_update(("latest_wider",))
    assert "3000" in text and "2500" not in text, text  # what main and chains10 did


def keep_a_short_stale_line(ablate: tuple[str, ...] = ()) -> str:
    prev = "\n".join(
        [
            "- user: Kitchen budget is 23915 pounds.",
            "- user: My flight BA-2291 leaves at 07:40 on Friday.",
        ]
    )
    info = SummaryInfo(
        extra={
            "provenance": [
                {"line": 0, "ids": ["p0"], "score": 8.0},
                {"line": 1, "ids": ["p1"], "score": 7.0},
            ]
        }
    )
    said = (
        "OK so after a long talk with the builder and the architect the kitchen budget went"
        " up to 32910 pounds, no more changes."
    )
    request = SummaryRequest(
        messages=[msg("n0", said)],
        previous_summary=prev,
        previous_info=info,
        max_tokens=20,
        token_counter=WordCounter(),
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_a_stale_line_is_not_kept_without_its_correction() -> None:
    text = keep_a_short_stale_line()
    assert "23915" not in text and "BA-2291" in text, text


def test_latest_marks_can_be_ablated() -> None:
    text = keep_a_short_stale_line(("latest_marks",))
    assert "23915" in text and "32910" not in text, text  # the stale value alone
