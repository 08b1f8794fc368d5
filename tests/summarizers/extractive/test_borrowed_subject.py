"""A change that says what it is about in the sentence before its value (issue #29, stale-only).

"hmm the coach pickup time won't work after all, the cover rota clashes. make it 16:30": read
alone, "make it 16:30" names nothing, so it changed no statement and the stale pickup time
outlived it in the summary. ``borrowed_subject`` reads such a sentence with the words of the
one before it. ``chain_ends`` reads statements of different values that fit alike as one
chain when the latest says it changed the value; ``user_changes`` lets the user's change mark
the assistant's statement. The negative cases are the review's (round 18).
"""

from __future__ import annotations

import pytest

from summem.summarizers.base import SummaryOutput

from .test_tool_changes import FILLER, chat, email, marks, msg, summarize

PICKUP = "For the trip file, the coach pickup time is 16:15."
NOTED = (
    "Quick note for the trip file: the coach pickup time is 16:15, the driver confirmed it "
    "this morning."
)
CHANGE = "hmm the coach pickup time won't work after all, the cover rota clashes. make it 16:30"


REPORTED = "The coach firm wrote this morning: they've changed the coach pickup time to 19:45."


def marked(out: SummaryOutput) -> list[list[str]]:
    return list(marks(out).values())


def test_a_change_whose_subject_is_said_just_before_marks_the_statement() -> None:
    assert marked(summarize(chat(PICKUP, CHANGE))) == [["s0"]]
    assert marked(summarize(chat(PICKUP, CHANGE), ablate=("borrowed_subject",))) == []


@pytest.mark.parametrize("budget", [20, 30, 40, 50, 60])
def test_the_replaced_time_never_stays_alone(budget: int) -> None:
    said = chat(NOTED, "The school minibus is booked for the sports day, it seats 16.", CHANGE)
    text = summarize(said, max_tokens=budget).text
    assert "16:15" not in text or "16:30" in text


def test_without_the_rule_the_replaced_time_stays_alone() -> None:
    """What the rule fixes: at some budget the stale time is kept and its change is not."""
    said = chat(NOTED, "The school minibus is booked for the sports day, it seats 16.", CHANGE)
    alone = [
        b
        for b in (20, 30, 40, 50, 60)
        if "16:15" in (t := summarize(said, b, ("borrowed_subject",)).text) and "16:30" not in t
    ]
    assert alone


def test_the_sentence_before_about_something_else_marks_nothing() -> None:
    other = "the dinner booking won't work after all, the cover rota clashes. make it 19:30"
    assert marked(summarize(chat(PICKUP, other))) == []


def test_the_assistants_borrowed_change_is_not_the_users() -> None:
    """The assistant's change, its subject said before, is not the user's (round 14's guard)."""
    said = [*chat(PICKUP), msg("x", CHANGE.replace("hmm", "So"), "assistant")]
    assert marked(summarize(said)) == []


def test_the_users_change_ends_a_chain_the_assistant_reported() -> None:
    """16:15, then the assistant's report of 19:45, then the user's 16:30: both are stale."""
    said = [*chat(PICKUP), msg("x", REPORTED, "assistant"), msg("s9", CHANGE)]
    assert sorted(i for ids in marked(summarize(said)) for i in ids) == ["s0", "x"]
    assert marked(summarize(said, ablate=("chain_ends",))) == []
    assert marked(summarize(said, ablate=("user_changes",))) == [["s0"]]


def test_the_users_change_marks_the_assistants_statement() -> None:
    said = [msg("x", REPORTED, "assistant"), msg("s9", CHANGE)]
    assert marked(summarize(said)) == [["x"]]
    assert marked(summarize(said, ablate=("user_changes",))) == []


def test_the_assistants_change_still_marks_only_its_own() -> None:
    said = [*chat(PICKUP), msg("x", REPORTED, "assistant")]
    assert marked(summarize(said)) == []


def test_two_things_that_share_two_words_are_no_chain() -> None:
    """The balance said as a change is still not the deposit: a payment fits both alike."""
    said = chat(
        "The wedding venue deposit is 2400.50, payable next month.",
        "The wedding venue balance was changed to 9100.20 after the call.",
        "Sorry, the wedding venue payment is now 1800.75.",
    )
    assert marked(summarize(said)) == []


def test_a_sentence_that_denies_borrows_nothing() -> None:
    for said in (
        "The coach firm asked about the coach pickup time. They offered to make it 16:30 but "
        "I said no.",
        "the coach pickup time is fine as it is. please don't make it 16:30",
    ):
        assert marked(summarize(chat(PICKUP, said))) == []


def test_a_tool_result_borrows_nothing() -> None:
    """An email's new office hours, after a sentence about the coach, change no pickup time."""
    body = "Thanks for booking the school trip coach. Our new office opening time is 08:30."
    assert marked(summarize(chat(PICKUP) + email(1, "coach", body))) == []


def test_two_firms_or_two_people_are_no_chain() -> None:
    quotes = chat(
        "The oak flooring quote from Harwood Supplies is 4200 for the living room.",
        "Timber Direct has now quoted 3900 for the oak flooring in the living room.",
    ) + email(2, "quote", "Your oak flooring quote for the living room is now 3700.")
    assert marked(summarize(quotes)) == []
    visits = chat(
        "For the kids, Mia's dentist check-up appointment at the clinic is at 14:00 on Friday "
        "afternoon.",
        "Also, Leo's dentist check-up appointment at the clinic is at 15:30 on Friday "
        "afternoon, a new slot they found.",
    ) + email(2, "appointment", "The dentist check-up appointment at the clinic is moved to 16:00.")
    assert marked(summarize(visits)) == []


def test_the_users_change_of_another_thing_or_a_denial_marks_nothing() -> None:
    for assistant, user in (
        (
            "The plumber visit for the boiler service is at 08:00 on Monday.",
            "I don't want the plumber visit for the boiler service moved to 10:00, keep it.",
        ),
        ("The plumber visit is at 08:00.", "Don't change the plumber visit to 10:00."),
        (
            "Your outbound flight to Lisbon on Friday departs at 09:40 from terminal 2.",
            "Great. Oh and the return flight on Sunday now departs at 18:10.",
        ),
    ):
        said = [msg("m0", assistant, "assistant"), msg("m1", user), msg("m2", FILLER[0])]
        assert marked(summarize(said)) == []


def test_two_values_fitting_alike_none_said_as_a_change_stay_unclear() -> None:
    """Without the latest saying it changed the value, the two are two things."""
    said = [
        *chat("The coach pickup time for the school trip is 16:15."),
        msg("x", "The coach pickup time for the museum visit is 19:45.", "assistant"),
        msg("s9", CHANGE),
    ]
    assert marked(summarize(said)) == []
