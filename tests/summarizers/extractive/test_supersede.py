"""A later statement of the same thing with a new value replaces the older one."""

from __future__ import annotations

from typing import Any

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.selection import Fact, make_fact
from summem.summarizers.extractive.supersede import supersede
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


def _fact(line: str, priority: float, position: int) -> Fact:
    return make_fact(line, None, priority, [f"m{position}"], (2, position, 0), frozenset())


def test_of_two_statements_of_one_thing_with_other_values_the_older_goes_first() -> None:
    # no correction word in the later one, and each says words the other does not: no link
    older = _fact("- user: Venue deposit has gone up, they now want 3975.79.", 5.7, 1)
    newer = _fact("- user: They knocked the venue deposit down to 9881.29.", 3.4, 2)
    names_old = _fact("- user: Mortgage adviser changed again, it's Oswin Underhill now.", 4.5, 3)
    names_new = _fact("- user: We've got Ulric Sallows as mortgage adviser from today.", 3.7, 4)
    assert supersede([older, newer, names_old, names_new]) == 0
    assert (older.priority, newer.priority) == (3.4, 5.7)  # the pair trades priorities
    assert (names_old.priority, names_new.priority) == (3.7, 4.5)
    assert older.corrected_by is None and not newer.marks  # an order, not a link


def test_statements_that_are_not_one_thing_keep_their_priorities() -> None:
    cases = [
        # one shared word only
        ("- user: My budget for the tent is 3000 pounds.", "- user: The budget for paint is 40."),
        # the same value: nothing was replaced
        ("- user: The venue deposit is 3975.", "- user: The venue deposit is 3975, paid."),
        # values of different kinds: a number, then a name
        ("- user: The venue deposit is 3975.", "- user: The venue deposit goes to Ines Baptiste."),
        # another speaker
        ("- user: The venue deposit is 3975.", "- assistant: The venue deposit is 4100."),
    ]
    for first, second in cases:
        older, newer = _fact(first, 5.0, 1), _fact(second, 3.0, 2)
        supersede([older, newer])
        assert (older.priority, newer.priority) == (5.0, 3.0), second


def test_a_later_statement_that_already_ranks_higher_is_left_alone() -> None:
    older = _fact("- user: Venue deposit has gone up, they now want 3975.79.", 3.0, 1)
    newer = _fact("- user: They knocked the venue deposit down to 9881.29.", 5.0, 2)
    supersede([older, newer])
    assert (older.priority, newer.priority) == (3.0, 5.0)


def test_when_room_runs_out_the_carried_stale_line_goes_before_its_correction() -> None:
    first = summarize(
        [
            msg("a", "Venue deposit has gone up, they now want 3975.79 for the hall booking."),
            msg("b", "They knocked the venue deposit down to 9881.29."),
        ]
    )
    assert "3975.79" in first.text and "9881.29" in first.text
    second = summarize(
        [msg("c", "Great, thanks.")],
        previous_summary=first.text,
        previous_info=SummaryInfo(extra=first.extra),
        max_tokens=20,  # room for one of the two lines
    )
    assert "9881.29" in second.text and "3975.79" not in second.text


def test_statements_said_of_one_person_are_not_one_subject() -> None:
    # the name is what both are said of, not a word of the subject (stale3 paired these)
    cases = [
        (
            "- user: Ana Costa wants the workshop fee paid, it is 300 euros.",
            "- user: Ana Costa booked the workshop room for 12 people.",
        ),
        # a name outside ASCII is a name too: "José Müller" was read as "jos", "m", "ller"
        (
            "- user: The fee for José Müller is 300.",
            "- user: The deadline for José Müller is 12 days out.",
        ),
        # two people in one frame, each with a value: two subjects
        (
            "- user: Ana Costa's flight lands at 9:40.",
            "- user: Ben Hale's flight lands at 11:20.",
        ),
    ]
    for first, second in cases:
        older, newer = _fact(first, 5.0, 1), _fact(second, 3.0, 2)
        supersede([older, newer])
        assert (older.priority, newer.priority) == (5.0, 3.0), second


def test_values_of_another_shape_are_not_the_subject_said_again() -> None:
    # a date and an amount about one thing are two facts
    older = _fact("- user: The venue deposit is 3975, due 12 June.", 5.0, 1)
    newer = _fact("- user: The venue deposit is 4100 pounds.", 3.0, 2)
    supersede([older, newer])
    assert (older.priority, newer.priority) == (5.0, 3.0)


def test_words_in_most_statements_of_a_round_name_no_subject() -> None:
    # outside English the stopword list knows no function word: "de", "la" are in every line
    lines = [
        "- user: La fecha de la boda es el 12.",
        "- user: La hora de la cena es el 9.",
        "- user: La mesa de la terraza es la 4.",
        "- user: La sala de la fiesta es la 7.",
        "- user: La talla de la chaqueta es la 40.",
    ]
    facts = [_fact(line, 5.0 - i, i + 1) for i, line in enumerate(lines)]
    supersede(facts)
    assert [f.priority for f in facts] == [5.0, 4.0, 3.0, 2.0, 1.0]


def test_a_name_changed_on_one_subject_is_the_value_said_again() -> None:
    older = _fact("- user: Mortgage adviser changed again, it's Oswin Underhill now.", 4.5, 1)
    newer = _fact("- user: We've got Ulric Sallows as mortgage adviser from today.", 3.7, 2)
    supersede([older, newer])
    assert (older.priority, newer.priority) == (3.7, 4.5)
