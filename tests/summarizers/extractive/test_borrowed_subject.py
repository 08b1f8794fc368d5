"""A change that says what it is about in the sentence before its value (issue #29, stale-only).

"hmm the coach pickup time won't work after all, the cover rota clashes. make it 16:30": read
alone, "make it 16:30" names nothing, so it changed no statement and the stale pickup time
outlived it in the summary. ``borrowed_subject`` reads such a sentence with the words of the
one before it; ``plain_results`` reads a tool result that is plain text (an email as written)
as prose, where before only a field's value was read.
"""

from __future__ import annotations

import pytest

from summem.messages import Message
from summem.summarizers.base import SummaryOutput
from summem.summarizers.extractive.supersede import _typed

from .test_tool_changes import chat, marks, msg, summarize

PICKUP = "For the trip file, the coach pickup time is 16:15."
NOTED = (
    "Quick note for the trip file: the coach pickup time is 16:15, the driver confirmed it "
    "this morning."
)
CHANGE = "hmm the coach pickup time won't work after all, the cover rota clashes. make it 16:30"


def marked(out: SummaryOutput) -> list[list[str]]:
    return list(marks(out).values())


def inbox(i: int, text: str) -> list[Message]:
    """An assistant's call of a mail tool and its plain-text result."""
    call = f"call_{i}"
    fn = {"name": "read_inbox", "arguments": '{"from": "the coach firm"}'}
    return [
        Message.from_openai(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call, "type": "function", "function": fn}],
            },
            id=f"c{i}",
        ),
        Message.from_openai({"role": "tool", "tool_call_id": call, "content": text}, id=f"t{i}"),
        msg(f"a{i}", "That's the latest from them.", "assistant"),
    ]


LODGE = "For the trip file, the lodge is Chalet Edelweiss."
MAIL = (
    "From: bookings\nSubject: your trip\n\nHello,\nSorry, we can't do what you asked for the "
    "lodge. We could offer Haus Bergkristall instead, if that suits?\n\nBest wishes,\nthe team"
)


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


def test_the_speaker_guard_still_reads_the_value_sentence() -> None:
    """The assistant's change, its subject said before, is not the user's (round 14's guard)."""
    said = [*chat(PICKUP), msg("x", CHANGE.replace("hmm", "So"), "assistant")]
    assert marked(summarize(said)) == []


def test_an_email_as_plain_text_changes_the_statement() -> None:
    said = chat(LODGE) + inbox(1, MAIL)
    assert marked(summarize(said)) == [["s0"]]
    assert marked(summarize(said, ablate=("plain_results",))) == []
    assert marked(summarize(said, ablate=("borrowed_subject",))) == []


def test_a_plain_text_result_without_a_change_changes_nothing() -> None:
    mail = MAIL.replace("Sorry, we can't do what you asked for", "Thanks for booking").replace(
        "We could offer Haus Bergkristall instead, if that suits?", "Haus Bergkristall is nice."
    )
    assert marked(summarize(chat(LODGE) + inbox(1, mail))) == []


def test_a_capitalised_word_before_a_colon_is_a_label_not_a_value() -> None:
    kinds, subject = _typed("From: bookings Subject: your trip, the lodge is Haus Bergkristall")
    assert kinds == {"name": {"haus bergkristall"}}
    assert "subje" in subject


REPORTED = "The coach firm wrote this morning: they've changed the coach pickup time to 19:45."


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


def test_a_table_as_plain_text_is_no_prose() -> None:
    """A record's note ("new address from March") is no change of another table's row."""
    said = chat("For the rota, the late shift engineer is Verity Ravenscroft, van V22.")
    record = "[ENGINEER | SHIFT | NOTE] Hollis Sallows | late | new address from March"
    assert marked(summarize(said + inbox(1, record))) == []
