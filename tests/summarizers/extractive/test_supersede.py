"""A later statement of the same thing with a new value replaces the older one."""

from __future__ import annotations

from typing import Any

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.readback import full_lines


def msg(id: str, content: str, role: str = "user", **extra: Any) -> Message:
    return Message.from_openai({"role": role, "content": content, **extra}, id=id)


def summarize(messages: list[Message], **kw: Any) -> SummaryOutput:
    request = SummaryRequest(
        messages=messages,
        previous_summary=kw.pop("previous_summary", None),
        max_tokens=kw.pop("max_tokens", 600),
        token_counter=ApproxCounter(),
        **kw,
    )
    return run_sync(ExtractiveSummarizer().summarize(request))


def supersedes(out: SummaryOutput) -> dict[str, list[str]]:
    """Line text -> the ids it replaced."""
    lines = full_lines(out.text)
    return {lines[e["line"]]: e["supersedes"] for e in out.extra["provenance"] if "supersedes" in e}


def test_a_correction_replaces_the_stale_value_and_says_what_it_replaced() -> None:
    out = summarize(
        [
            msg("a", "My budget for the new sofa is 1879 pounds."),
            msg("b", "Noted, I will look for sofas under that.", "assistant"),
            msg("c", "Actually my budget is now 2300 pounds."),
            msg("d", "The meeting is at 10:30 tomorrow."),
            msg("e", "Sorry, the meeting moved to 11:15."),
        ]
    )
    assert "1879" not in out.text and "10:30" not in out.text
    assert "2300" in out.text and "11:15" in out.text
    assert supersedes(out) == {
        "- user: Actually my budget is now 2300 pounds.": ["a"],
        "- user: Sorry, the meeting moved to 11:15.": ["d"],
    }
    assert out.extra["superseded"] == 2


def test_a_stale_fact_carried_from_the_previous_summary_is_replaced_too() -> None:
    first = summarize([msg("a", "My budget for the new sofa is 1879 pounds.")])
    assert "1879" in first.text
    second = summarize(
        [msg("c", "I changed my mind, the sofa budget is 2300 pounds.")],
        previous_summary=first.text,
        previous_info=SummaryInfo(extra=first.extra),
    )
    assert "1879" not in second.text and "2300" in second.text
    assert list(supersedes(second).values()) == [["a"]]


def test_without_a_correction_word_a_new_value_is_a_new_fact() -> None:
    out = summarize(
        [
            msg("a", "Room 12 is booked for the workshop."),
            msg("b", "Room 14 is booked for the workshop."),
            msg("c", "I ran 5 miles in the park.", timestamp="2023-05-01"),
            msg("d", "I ran 7 miles in the park.", timestamp="2023-05-02"),
        ]
    )
    for value in ("12", "14", "5 miles", "7 miles"):
        assert value in out.text, value
    assert out.extra["superseded"] == 0


def test_different_things_never_replace_each_other() -> None:
    out = summarize(
        [
            msg("a", "My order BW-11111-K cost 45 dollars."),
            msg("b", "Actually my order BW-22222-K cost 60 dollars."),  # another order
            msg("c", "The meeting is at 10:30."),
            msg("d", "Actually my flight is now at 18:45."),  # another subject
            msg("e", "I have 2 dogs."),
            msg("f", "Actually I have 2 dogs and a cat."),  # no new value
            msg("g", "My budget is 1879 pounds."),
            msg("h", "Your budget is now 2300 pounds, I checked.", "assistant"),  # other speaker
            msg("i", "I may come in May."),
            msg("j", "Actually I may come later."),  # no value at all
        ]
    )
    for value in ("45", "60", "10:30", "18:45", "1879", "2300"):
        assert value in out.text, value
    assert out.extra["superseded"] == 0


def test_tool_results_are_observations_and_never_replaced() -> None:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "lookup_order", "arguments": '{"order_id": "BW-1"}'},
    }
    call2 = {**call, "id": "c2"}
    out = summarize(
        [
            Message.from_openai(
                {"role": "assistant", "content": None, "tool_calls": [call]}, id="a"
            ),
            msg("b", '{"status": "shipped", "eta": "2025-03-10"}', "tool", tool_call_id="c1"),
            Message.from_openai(
                {"role": "assistant", "content": None, "tool_calls": [call2]}, id="c"
            ),
            msg("d", '{"status": "delayed", "eta": "2025-03-14"}', "tool", tool_call_id="c2"),
        ]
    )
    assert "2025-03-10" in out.text and "2025-03-14" in out.text


def test_a_correction_about_another_item_replaces_nothing() -> None:
    # "tent" is in more candidates than "budget": no rarity of words may let it through
    out = summarize(
        [
            msg("a", "Actually, my budget for the headlamps is now 7919 pounds."),
            msg("b", "My loyalty number for the tent warranty is 581."),
            msg("c", "We need 4 of the two-person tent for the group trip."),
            msg("d", "Actually, my budget for the tent is now 8882 pounds."),
        ]
    )
    assert "7919" in out.text and "8882" in out.text and "581" in out.text
    assert supersedes(out) == {}
    assert out.extra["superseded"] == 0


def test_an_item_named_in_the_announcing_clause_still_tells_items_apart() -> None:
    out = summarize(
        [
            msg("a", "My budget for the headlamps is 6354 pounds."),
            msg("b", "Actually for the kayak, my budget is now 900 pounds."),
        ]
    )
    assert "6354" in out.text and "900" in out.text
    assert out.extra["superseded"] == 0


def test_a_correction_announced_in_a_clause_of_its_own_still_replaces() -> None:
    # "plan" is in no other sentence: the announcing clause is not the subject
    out = summarize(
        [
            msg("a", "The sleeping bags should arrive before room 4803 is free."),
            msg("b", "Noted, I will track the delivery.", "assistant"),
            msg("c", "My budget for the stove is 120 pounds."),
            msg("d", "Change of plan: the sleeping bags should arrive before room 1664 is free."),
            msg("e", "I made a mistake, my budget for the stove is 150 pounds."),
        ]
    )
    assert "4803" not in out.text and "1664" in out.text
    assert "120" not in out.text and "150" in out.text
    assert sorted(supersedes(out).values()) == [["a"], ["c"]]


def test_a_true_correction_among_other_items_replaces_only_its_own() -> None:
    out = summarize(
        [
            msg("a", "My budget for the headlamps is 6354 pounds."),
            msg("b", "My budget for the tent is 3000 pounds."),
            msg("c", "We need a two-person tent for the group trip."),
            msg("d", "Actually, my budget for the tent is now 8882 pounds."),
            msg("e", "Sorry, my budget for the tent is now 9100 pounds."),
        ]
    )
    assert "6354" in out.text and "9100" in out.text
    assert "3000" not in out.text and "8882" not in out.text
    # the last correction names the whole chain it replaced
    last = "- user: Sorry, my budget for the tent is now 9100 pounds."
    assert supersedes(out) == {last: ["d", "b"]}
    assert out.extra["superseded"] == 2


def test_a_correction_that_fits_two_different_items_replaces_neither() -> None:
    out = summarize(
        [
            msg("a", "My budget for the headlamps is 6354 pounds."),
            msg("b", "My budget for the tent is 3000 pounds."),
            msg("c", "Actually my budget is now 900 pounds."),
        ]
    )
    for value in ("6354", "3000", "900"):
        assert value in out.text, value
    assert out.extra["superseded"] == 0
