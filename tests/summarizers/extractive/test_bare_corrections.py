"""A correction that names its subject only in an earlier message is linked to it."""

from __future__ import annotations

from typing import Any

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.bare_corrections import value_kinds
from summem.tokens.base import ApproxCounter


def msg(id: str, content: str, role: str = "user") -> Message:
    return Message.from_openai({"role": role, "content": content}, id=id)


def summarize(messages: list[Message], previous: SummaryOutput | None = None) -> SummaryOutput:
    request = SummaryRequest(
        messages=messages,
        previous_summary=previous.text if previous else None,
        previous_info=SummaryInfo(extra=previous.extra) if previous else None,
        max_tokens=600,
        token_counter=ApproxCounter(),
    )
    return run_sync(ExtractiveSummarizer().summarize(request))


def entry(out: SummaryOutput, needle: str) -> tuple[str, dict[str, Any]]:
    """The line holding ``needle`` and its provenance entry."""
    lines = out.text.splitlines()
    found = [(lines[e["line"]], e) for e in out.extra["provenance"] if needle in lines[e["line"]]]
    assert len(found) == 1, out.text
    return found[0]


BOOKING = [
    msg("a", "Can you book me a haircut at the Leeds salon?"),
    msg("b", "I've booked you the 14:30 slot at the Leeds salon.", "assistant"),
]


def test_a_bare_correction_of_the_other_speaker_is_written_with_what_it_corrects() -> None:
    out = summarize([*BOOKING, msg("c", "No wait, make it 16:15.")])
    line, where = entry(out, "16:15")
    assert line == (
        "- user: correcting assistant's \"I've booked you the 14:30 slot at the Leeds salon.\": "
        "No wait, make it 16:15"
    )
    assert where["ids"] == ["b", "c"]  # it cites the statement it quotes
    assert out.text.count("14:30") == 1  # the stale line itself is gone
    assert line.index("14:30") < line.index("16:15")  # read after the stale value
    assert out.extra["superseded"] == 1


def test_a_denied_value_and_a_count_are_corrections_too() -> None:
    out = summarize(
        [
            msg("a", "Please reserve a table at Nonna's."),
            msg("b", "Done, a table for 2 at 19:00 on Friday.", "assistant"),
            msg("c", "Thursday, not Friday."),
            msg("d", "Actually 3 of us."),
        ]
    )
    line, where = entry(out, "Thursday")
    assert line == (
        '- user: correcting assistant\'s "Done, a table for 2 at 19:00 on Friday.": '
        "Thursday, not Friday; Actually 3 of us."
    )
    assert where["ids"] == ["b", "c", "d"]
    assert "Actually 3 of us" not in out.text.replace(line, "")


def test_a_chain_across_reductions_keeps_the_first_statement_and_the_latest_value() -> None:
    first = summarize([*BOOKING, msg("c", "No wait, make it 16:15.")])
    second = summarize([msg("e", "Oops, 17:00 instead.")], first)
    line, where = entry(second, "17:00")
    assert "16:15" not in second.text
    assert line == (
        "- user: correcting assistant's \"I've booked you the 14:30 slot at the Leeds salon.\": "
        "Oops, 17:00 instead."
    )
    assert where["ids"][0] == "b" and where["ids"][-1] == "e"


def test_a_reply_accepting_the_value_corrects_nothing() -> None:
    out = summarize(
        [
            msg("a", "We will be 5 people on the walking tour."),
            msg("b", "No, 5 is fine."),
        ]
    )
    assert "correcting" not in out.text
    assert out.extra["superseded"] == 0


def test_a_new_fact_with_a_number_is_not_a_correction() -> None:
    out = summarize(
        [
            msg("a", "Your 2 lamps ship on Monday from the Leeds depot.", "assistant"),
            msg("b", "Actually I have 3 kids at home."),
        ]
    )
    assert "correcting" not in out.text
    assert "2 lamps" in out.text and "3 kids" in out.text


def test_two_values_of_the_kind_before_leave_it_unclear() -> None:
    out = summarize(
        [
            msg("a", "The salon has the 14:30 or the 16:15 slot on Tuesday.", "assistant"),
            msg("b", "No, make it 17:00."),
        ]
    )
    assert "correcting" not in out.text
    assert "14:30" in out.text and "17:00" in out.text


def test_a_tool_result_is_left_alone() -> None:
    out = summarize(
        [
            Message.from_openai(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "t1",
                            "type": "function",
                            "function": {"name": "book_slot", "arguments": '{"salon": "Leeds"}'},
                        }
                    ],
                },
                id="a",
            ),
            Message.from_openai(
                {"role": "tool", "tool_call_id": "t1", "content": '{"slot": "14:30"}'}, id="b"
            ),
            msg("c", "No wait, make it 16:15."),
        ]
    )
    assert "correcting" not in out.text
    assert "14:30" in out.text


def test_a_bare_correction_is_not_read_against_a_message_further_back() -> None:
    out = summarize(
        [
            msg("a", "The plumber comes on Tuesday at the Leeds flat.", "assistant"),
            msg("b", "My invoice code is QZ-58213 for the boiler."),
            msg("c", "Thursday, not Tuesday."),
        ]
    )
    assert "correcting" not in out.text


def test_values_are_read_by_kind() -> None:
    kinds = value_kinds("Done, a table for 2 at 19:00 on Friday, 14 March, £120 with Dev Okafor.")
    assert kinds == {
        "time": frozenset({"19:00"}),
        "date": frozenset({"14march"}),
        "amount": frozenset({"£120"}),
        "weekday": frozenset({"friday"}),
        "count": frozenset({"2"}),
        "name": frozenset({"dev okafor"}),
    }
    assert value_kinds("three of us at 7pm") == {
        "time": frozenset({"7pm"}),
        "count": frozenset({"three"}),
    }


def test_a_correction_with_no_digit_is_kept_when_it_corrects_something() -> None:
    out = summarize(
        [
            msg("a", "Could you sort out the delivery slot?"),
            msg("b", "All set: the delivery slot is down for Radhika as the contact.", "assistant"),
            msg("c", "Hmm, Oluwaseun instead."),
            msg("d", "Could you sort out the car service?"),
            msg("e", "Done, your car service is confirmed for three people.", "assistant"),
            msg("f", "Scratch that, nine."),
        ]
    )
    line, _ = entry(out, "Oluwaseun")
    assert line.startswith("- user: correcting assistant's \"All set: the delivery slot")
    line, _ = entry(out, "nine")
    assert line.endswith('confirmed for three people.": Scratch that, nine.')
    assert out.text.count("Radhika") == 1 and out.text.count("three people") == 1


def test_a_correction_with_no_digit_that_corrects_nothing_is_not_kept() -> None:
    out = summarize(
        [
            msg("a", "Could you sort out the delivery slot for me?"),
            msg("b", "Hmm, Oluwaseun instead."),
        ]
    )
    assert "Oluwaseun" not in out.text
