"""The dependent-fragment check on handmade summaries: each rule, both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evals.metrics.fragments import (
    MAX_WORDS,
    FragmentCount,
    HistoryIndex,
    dependent_fragments,
    summary_fragments,
)
from summem.messages import Message, SummaryInfo, parse_message


def _history(*turns: tuple[str, str]) -> list[Message]:
    return [
        parse_message({"role": role, "content": text}).with_id(f"m{i}")
        for i, (role, text) in enumerate(turns)
    ]


def _check(lines: list[tuple[str, list[str]]], history: list[Message]) -> FragmentCount:
    body = "\n".join(text for text, _ in lines)
    provenance = [{"line": n, "ids": ids} for n, (_, ids) in enumerate(lines)]
    return dependent_fragments(body, provenance, history)


def test_a_short_line_leaning_on_the_dropped_sentence_before_it_counts() -> None:
    history = _history(("user", "We named the canoe at last. She's called Salt Fiddle."))
    found = _check([("- user: She's called Salt Fiddle.", ["m0"])], history)
    assert (found.lines, found.short, found.dependent) == (1, 1, 1)
    assert dict(found.reasons) == {"refers back": 1}
    assert found.examples[0].source_id == "m0"


def test_it_does_not_count_when_the_sentence_before_is_in_the_summary_too() -> None:
    history = _history(("user", "We named the canoe at last. She's called Salt Fiddle."))
    lines = [
        ("- user: We named the canoe at last.", ["m0"]),
        ("- user: She's called Salt Fiddle.", ["m0"]),
    ]
    assert _check(lines, history).dependent == 0


def test_a_line_of_eight_words_or_more_is_not_checked() -> None:
    text = "It is going to be a very long drive to Oban."
    history = _history(("user", f"The trip is on. {text}"))
    found = _check([(f"- user: {text}", ["m0"])], history)
    assert len(text.split()) >= MAX_WORDS
    assert (found.lines, found.short, found.dependent) == (1, 0, 0)


def test_a_first_sentence_depends_on_the_previous_message_unless_a_line_cites_it() -> None:
    history = _history(
        ("assistant", "I can do the 9:40 ferry to Mull or the 13:10 one."),
        ("user", "That one works, book it."),
    )
    alone = _check([("- user: That one works, book it.", ["m1"])], history)
    assert dict(alone.reasons) == {"replies to": 1}
    with_offer = _check(
        [
            ("- assistant: I can do the 9:40 ferry to Mull or the 13:10 one.", ["m0"]),
            ("- user: That one works, book it.", ["m1"]),
        ],
        history,
    )
    assert with_offer.dependent == 0


def test_a_line_cut_out_of_its_sentence_counts_but_not_a_cut_of_an_interjection() -> None:
    history = _history(
        ("user", "I'm redoing the shed and the fence - painting both sage green."),
        ("user", "Oh wow, yeah, we bought a dinghy on Saturday."),
        ("user", "Big news for us - We bought a dinghy on Saturday."),
    )
    cut = _check([("- user: painting both sage green.", ["m0"])], history)
    assert dict(cut.reasons) == {"clipped": 1}
    interjection = _check([("- user: we bought a dinghy on Saturday.", ["m1"])], history)
    assert (interjection.short, interjection.dependent) == (1, 0)
    new_clause = _check([("- user: We bought a dinghy on Saturday.", ["m2"])], history)
    assert (new_clause.short, new_clause.dependent) == (1, 0)


def test_a_line_whose_next_sentence_names_what_it_announces_counts() -> None:
    history = _history(
        ("user", "Big news on the house front. It sold for 412,500 in the end."),
        ("user", "Big news on the house front. It was a long week."),
    )
    announced = _check([("- user: Big news on the house front.", ["m0"])], history)
    assert dict(announced.reasons) == {"announces": 1}
    nothing_named = _check([("- user: Big news on the house front.", ["m1"])], history)
    assert nothing_named.dependent == 0


def test_a_self_contained_short_line_does_not_count() -> None:
    history = _history(("user", "The tent arrived. Our dog Pumpernickel turns four on Friday."))
    found = _check([("- user: Our dog Pumpernickel turns four on Friday.", ["m0"])], history)
    assert (found.short, found.dependent) == (1, 0)


def test_a_time_phrase_is_not_a_reference() -> None:
    history = _history(("user", "Busy day. The agency rang this morning."))
    assert _check([("- user: The agency rang this morning.", ["m0"])], history).dependent == 0


def test_tool_lines_and_lines_without_provenance_are_not_checked() -> None:
    result = json.dumps({"it": "that one", "status": "ok"})
    history = _history(("user", "Check it."))
    tool = {"role": "tool", "tool_call_id": "c1", "content": result}
    history.append(parse_message(tool).with_id("m1"))
    found = _check([("- tool: it=that one; status=ok", ["m1"])], history)
    assert (found.lines, found.dependent) == (0, 0)
    body = "- user: Check it."
    assert dependent_fragments(body, [], history).lines == 0


def test_summary_fragments_reads_the_provenance_of_a_committed_summary() -> None:
    history = _history(("user", "We named the canoe at last. She's called Salt Fiddle."))
    body = "- user: She's called Salt Fiddle."
    extra: dict[str, Any] = {"provenance": [{"line": 0, "ids": ["m0"]}]}
    summary = parse_message({"role": "user", "content": body}).as_summary(
        SummaryInfo(watermark=1, extra=extra)
    )
    assert summary_fragments(summary, body, history).dependent == 1
    no_provenance = parse_message({"role": "user", "content": body}).as_summary(
        SummaryInfo(watermark=1)
    )
    assert summary_fragments(no_provenance, body, history).lines == 0
    assert summary_fragments(None, None, history).lines == 0


def test_counts_add_up_and_keep_a_few_examples() -> None:
    history = _history(("user", "We named the canoe at last. She's called Salt Fiddle."))
    one = _check([("- user: She's called Salt Fiddle.", ["m0"])], history)
    total = FragmentCount()
    for _ in range(3):
        total.add(one, keep=2)
    assert (total.lines, total.dependent, len(total.examples)) == (3, 3, 2)
    assert total.as_dict()["reasons"] == {"refers back": 3}


def test_a_day_with_a_dot_is_not_the_end_of_a_sentence() -> None:
    history = _history(("user", "The festival in Kassel was on 26. Mai 2027 this year."))
    found = _check([("- user: Mai 2027 this year.", ["m0"])], history)
    assert dict(found.reasons) == {"clipped": 1}


def test_a_time_or_an_amount_before_a_dot_still_ends_a_sentence() -> None:
    history = _history(("user", "The boiler man left at 14:30. He comes back on Friday."))
    found = _check([("- user: He comes back on Friday.", ["m0"])], history)
    assert dict(found.reasons) == {"refers back": 1}


def test_a_history_index_kept_across_checks_indexes_only_the_new_messages() -> None:
    turns = [("user", "We named the canoe at last. She's called Salt Fiddle.")] * 3
    history = _history(*turns, ("assistant", "Nice."), ("user", "Thanks."))
    index = HistoryIndex()
    body, provenance = "- user: She's called Salt Fiddle.", [{"line": 0, "ids": ["m2"]}]
    first = dependent_fragments(body, provenance, history[:3], history_index=index)
    assert index.indexed == 3
    again = dependent_fragments(body, provenance, history, history_index=index)
    assert index.indexed == 5  # the two new ones, not the five again
    assert (first.dependent, again.dependent) == (1, 1)
    assert again.reasons == dependent_fragments(body, provenance, history).reasons
    other = _history(("user", "Something else entirely."))
    assert index.positions(other) == {"m0": 0}  # another history: indexed from the start


def test_a_history_index_is_extended_not_rebuilt() -> None:
    history = _history(*[("user", f"Line {i}.") for i in range(5)])
    index = HistoryIndex()
    index.positions(history[:3])
    history[1] = history[1].with_id("moved")  # between the first and last indexed: not read again
    positions = index.positions(history)
    assert "moved" not in positions and positions["m4"] == 4  # only the new ones were read


def test_a_clause_with_its_own_subject_cut_off_its_host_is_not_clipped() -> None:
    history = _history(
        ("user", "Could you plan the chores, it all falls on me, and I'm a size 11, so what now?"),
        ("user", "The spare room is a mess \u2014 since my father is diabetic now \u2014 help?"),
        ("user", "Plan the week for me, what with my knee acting up, so what is fair?"),
        ("user", "We moved the dentist, and it's on 3 May first thing."),
    )
    for line, source in (
        ("- user: I'm a size 11.", "m0"),
        ("- user: since my father is diabetic now", "m1"),
        ("- user: My knee acting up.", "m2"),
    ):
        found = _check([(line, [source])], history)
        assert (found.short, found.dependent) == (1, 0), line
    pointing = _check([("- user: it's on 3 May first thing.", ["m3"])], history)
    assert pointing.dependent == 1  # its subject points back: still a fragment
    cut = _check([("- user: dentist, and it's on 3 May.", ["m3"])], history)
    assert dict(cut.reasons) == {"clipped": 1}


def test_a_main_clause_cut_off_its_fronted_qualifier_is_still_clipped() -> None:
    """Only a clause joined to its host ("..., and I'm", "... - since my") stands alone.

    A main clause whose fronted condition, exception or time was cut says something else
    alone: "I eat everything." of "Apart from shellfish, I eat everything." (review20).
    """
    for source, line in (
        ("Apart from shellfish, I eat everything.", "- user: I eat everything."),
        ("If the train is cancelled again, I'll take the car.", "- user: I'll take the car."),
        ("Unless my sister visits, we're free on Saturday.", "- user: we're free on Saturday."),
        ("Without the discount, my budget is 500.", "- user: my budget is 500."),
        ("Until the cast comes off, I'm not driving.", "- user: I'm not driving."),
    ):
        found = _check([(line, ["m0"])], _history(("user", f"Some news first. {source}")))
        assert dict(found.reasons) == {"clipped": 1}, line


def test_an_existential_there_is_not_a_reference_but_a_place_there_is() -> None:
    history = _history(
        ("user", "How many crates are left for Tromsø?"),
        ("assistant", "There are 12 crates left for Tromsø."),
        ("user", "Is there a ferry on Sunday?"),
        ("user", "We drove up to Whitby. I left my hat there."),
    )
    assert (
        _check([("- assistant: There are 12 crates left for Tromsø.", ["m1"])], history).dependent
        == 0
    )
    assert _check([("- user: Is there a ferry on Sunday?", ["m2"])], history).dependent == 0
    place = _check([("- user: I left my hat there.", ["m3"])], history)
    assert dict(place.reasons) == {"refers back": 1}


@pytest.mark.parametrize(
    "line",
    [
        "We checked. There are 12 crates.",
        "Sadly there isn\u2019t a later train.",
        "Update - there remain 4 pallets.",
        "Hi, is there parking?",
        "Will there be a lift?",
        "Has there been a refund?",
        "How many are there in Hull?",
        "I fear there will be delays.",
    ],
)
def test_an_existential_there_anywhere_refers_to_nothing(line: str) -> None:
    history = _history(("user", "Some news first."), ("assistant", line))
    assert _check([(f"- assistant: {line}", ["m1"])], history).dependent == 0, line


@pytest.mark.parametrize(
    "line", ["My car is there.", "Put the box over there, will you?", "Was it there?"]
)
def test_a_place_there_still_refers_back(line: str) -> None:
    history = _history(("user", "We drove to Whitby."), ("user", line))
    assert dict(_check([(f"- user: {line}", ["m1"])], history).reasons) == {"replies to": 1}
