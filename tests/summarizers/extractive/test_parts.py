"""The extractive summarizer's pure parts: scoring, compaction, layout, tool facts."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from summem.summarizers.extractive.facts import (
    compact_sentence,
    content_words,
    score_sentence,
    value_signal,
)
from summem.summarizers.extractive.layout import (
    day_of,
    leading_stamp,
    looks_like_date,
    read_fact_line,
    shared_label_lines,
    summary_lines,
)
from summem.summarizers.extractive.tool_facts import (
    call_arguments,
    compact_call,
    flatten_json,
    tool_body,
)

SPEAKERS = frozenset(("caroline", "melanie"))

# -- scoring ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "Hey Mel!",
        "Good to see you!",
        "Thanks, that's so sweet of you.",
        "Wow, that's amazing!",
        "Congrats, I'm so proud of you!",
        "What made you pick it?",  # a bare question
        "How have you been?",
        "Great, let's sort that out.",
        "Is there anything else I can help with?",
    ],
)
def test_filler_and_bare_questions_score_nothing(sentence: str) -> None:
    assert score_sentence(sentence, "user", speakers=SPEAKERS) == 0.0


def test_signals_order_sentences_as_an_assistant_would_need_them() -> None:
    def score(sentence: str) -> float:
        return score_sentence(sentence, "user", speakers=SPEAKERS)

    code = score("My order AX-4471 has not arrived.")
    event = score("I went to a support group yesterday.")
    chatter = score("The colours really blend nicely in the painting.")
    assert code > chatter > 0
    assert event > chatter
    # a precise number says more than a small count
    assert score("The balance is 48213.57 now.") > score("The balance is 3 now.")
    # a calendar date says more than a time of day alone
    assert score("The parcel comes on 14 March.") > score("The parcel comes at 09:00.")
    # a full name says more than one capitalised word
    assert score("Talk to Lorcan Hadjipetrou about it.") > score("Talk to Lorcan about it.")
    # asking is worth less than saying, and a question with a date is not bare
    asked = score("Can you book the table for 7:30 pm on June 14?")
    assert 0 < asked < score("The table is booked for 7:30 pm on June 14.")
    # the speakers' own names are not facts
    assert score("Caroline went there.") < score("Lorcan went there.")


def test_a_statement_with_a_question_tagged_on_is_scored_as_told() -> None:
    told = score_sentence("The reference you sent me is KQ-52205.", "user")
    tagged = score_sentence("The reference you sent me is KQ-52205, does that help?", "user")
    assert tagged == told  # the tag asks nothing the statement did not already tell
    # a real question keeps its discount, commas or not
    asked = score_sentence("Is the reference you sent me KQ-52205, or was it another?", "user")
    assert 0 < asked < told
    assert score_sentence("What made you pick it, by the way?", "user") == 0.0


def test_polite_conditionals_are_not_preferences() -> None:
    assert score_sentence("I prefer aisle seats.", "user") > score_sentence(
        "You can pick aisle seats if you prefer.", "user"
    )


def test_both_speakers_weigh_the_same_and_instructions_less() -> None:
    sentence = "My order AX-4471 has not arrived."
    assert score_sentence(sentence, "user") == score_sentence(sentence, "assistant")
    assert score_sentence(sentence, "system") < score_sentence(sentence, "user")


def test_a_codes_letters_are_not_read_as_a_name() -> None:
    # "XN" in "XN-19437" is the code's prefix, already scored as a code: not also an acronym.
    with_code = score_sentence("I still have the old receipt, number XN-19437, somewhere.", "user")
    same_digits = score_sentence("I still have the old receipt, number 19437, somewhere.", "user")
    code_only = score_sentence(
        "I still have the old receipt, number XN-19437, somewhere.",
        "user",
        off=frozenset({"names"}),
    )
    assert with_code == pytest.approx(code_only)
    assert with_code > same_digits
    # A name next to a code still counts.
    named = score_sentence("Maria Lopez has the receipt, number XN-19437.", "user")
    assert named > score_sentence("The parcel has the receipt, number XN-19437.", "user")


def test_a_full_name_given_as_a_records_value_is_a_full_name() -> None:
    names_off = frozenset({"names"})
    record = "attributes.signed_by=Svetlana Vasquez"
    gain = score_sentence(record, "tool") - score_sentence(record, "tool", off=names_off)
    assert gain == pytest.approx(2.5)  # whole, not "Vasquez" alone
    # One capitalised word after "=" (a city, a status) is not taken for a name.
    city = "city=Lisbon"
    assert score_sentence(city, "tool") == score_sentence(city, "tool", off=names_off)


def test_single_digits_tell_facts_apart() -> None:
    assert content_words("I have 2 kids") != content_words("I have 3 kids")


@pytest.mark.parametrize(
    ("sentence", "compact"),
    [
        ("Yeah, I painted that lake sunrise last year!", "I painted that lake sunrise last year!"),
        ("Hey Caroline, I ran a race.", "I ran a race."),
        ("Wow, Mel, my kids loved it!", "My kids loved it!"),
        ("Hi there, I need help with an order.", "I need help with an order."),
        ("I adopted a puppy, Melanie!", "I adopted a puppy!"),
        ("So I'm carving out some me-time each day.", "I'm carving out some me-time each day."),
        ("Great that you're here.", "Great that you're here."),  # no pause: not an interjection
        ("Melanie lives in Berlin.", "Melanie lives in Berlin."),  # a subject, not an address
        ("Car trouble again, sadly.", "Car trouble again, sadly."),  # "Car" is not "Caroline"
    ],
)
def test_compaction_drops_interjections_and_forms_of_address(sentence: str, compact: str) -> None:
    assert compact_sentence(sentence, SPEAKERS) == compact


def test_a_line_with_no_label_is_the_previous_speakers_until_a_date_header() -> None:
    text = "\n".join(
        [
            "- Caroline: I went to a support group yesterday.",
            "- I'm going to a transgender conference this month.",
            "[9 May 2023]",
            "- I painted a lake sunrise.",
        ]
    )
    got = [(day, line) for _, day, line, _ in summary_lines(text, shared_labels=True)]
    assert got == [
        (None, "- Caroline: I went to a support group yesterday."),
        (None, "- Caroline: I'm going to a transgender conference this month."),
        ("9 May 2023", "- I painted a lake sunrise."),  # a new group: no label to inherit
    ]
    unshared = [line for _, _, line, _ in summary_lines(text)]  # not this layout's text
    assert unshared[1] == "- I'm going to a transgender conference this month."


def test_only_a_run_of_fact_lines_shares_a_label() -> None:
    text = "\n".join(
        [
            "- Caroline: I went to a support group yesterday.",
            "She also likes tea.",  # prose between bullets
            "- Melanie painted a lake.",
            "- Caroline: The group meets on Fridays.",
            "",
            "- (3 earlier messages were dropped without a summary.)",
            "## Values",
            "- Tone: friendly",
            "- The user moved to Lisbon on 3 May 2023.",
        ]
    )
    got = [line for _, _, line, _ in summary_lines(text, shared_labels=True)]
    assert "- Melanie painted a lake." in got
    assert "- (3 earlier messages were dropped without a summary.)" in got
    assert "- Tone: The user moved to Lisbon on 3 May 2023." in got  # a run of the layout's
    plain = [line for _, _, line, _ in summary_lines(text)]  # an LLM's text: nobody's
    assert "- The user moved to Lisbon on 3 May 2023." in plain


_LINE_PARTS = st.sampled_from(
    ["- ", "user", "Bob", "tool", ": ", "[x] ", "[8 May 2023] ", "note", " ", ":", "[", "]", "a"]
)


def _written(parts: list[str]) -> str:
    """A fact line as the summarizer writes it: one line, single spaces, a body that ends."""
    return " ".join(f"- {''.join(parts)} end".split())


@given(
    st.lists(
        st.one_of(
            st.just("[9 May 2023]"),
            st.lists(_LINE_PARTS, max_size=8).map(_written),
        ),
        max_size=12,
    )
)
@example(["- user: end", "- user: [x] end"])  # "[x]" is the body's, not a date
@settings(max_examples=300, deadline=None)
def test_every_line_written_with_shared_labels_reads_back_as_it_was(lines: list[str]) -> None:
    """The writer drops a label only where the reader gives exactly that line back."""
    facts = [line for line in lines if line.startswith("- ")]
    written = [row for group in shared_label_lines(lines) for row in group]
    got = [line for _, _, line, _ in summary_lines("\n".join(written), shared_labels=True)]
    expected = [read_fact_line(line)[0] for line in facts]  # an inline date leaves the line
    assert got == expected


def test_a_checkbox_label_and_carried_prose_keep_who_said_them() -> None:
    lines = [
        "- assistant: I booked the Tivoli hotel, confirmation TX-4471.",
        "- The user is vegetarian.",  # an LLM summary's sentence: nobody's
        "- [x] Bob: call the vet on Friday",
        "- [x] Bob: pay the invoice",  # reads as Bob's: "- pay ..." would lose the [x]
        "- Bob: and the plumber",
        "- Bob: also the roof",
    ]
    written = [row for group in shared_label_lines(lines) for row in group]
    assert written == [
        "- assistant: I booked the Tivoli hotel, confirmation TX-4471.",
        "",
        "- The user is vegetarian.",
        "- [x] Bob: call the vet on Friday",
        "- [x] Bob: pay the invoice",
        "- and the plumber",  # the reader gives "- Bob: " back, as it was
        "- also the roof",
    ]


# -- timestamps and layout -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "stamp", "rest"),
    [
        ("[1:56 pm on 8 May, 2023] Hey Mel!", "1:56 pm on 8 May, 2023", "Hey Mel!"),
        ("[2024-03-01 09:30]   Order shipped.", "2024-03-01 09:30", "Order shipped."),
        ("[10/04/2024] Done.", "10/04/2024", "Done."),
        ("[urgent] Call me.", None, "[urgent] Call me."),
        ("[shares an image: a photo] Nice.", None, "[shares an image: a photo] Nice."),
        ("Order shipped [2024-03-01].", None, "Order shipped [2024-03-01]."),
    ],
)
def test_a_leading_bracketed_date_is_a_stamp(text: str, stamp: str | None, rest: str) -> None:
    assert leading_stamp(text) == (stamp, rest)


@pytest.mark.parametrize(
    ("stamp", "day"),
    [
        ("1:56 pm on 8 May, 2023", "8 May 2023"),
        ("2023-05-08 13:56", "2023-05-08"),
        ("May 8th, 2023 at noon", "May 8th 2023"),
        ("10/04/2024", "10/04/2024"),
        ("9:30 am", "9:30 am"),  # no day in it: kept whole
    ],
)
def test_only_the_day_of_a_stamp_is_kept(stamp: str, day: str) -> None:
    assert day_of(stamp) == day


def test_looks_like_date() -> None:
    assert looks_like_date("8 May 2023") and looks_like_date("12:30")
    assert not looks_like_date("May") and not looks_like_date("item 42")


def test_summary_lines_read_headers_old_inline_dates_and_prose() -> None:
    text = "\n".join(
        [
            "- user: undated fact",
            "[8 May 2023]",
            "- Caroline: first",
            "- [2023-01-01] Bob: inline date wins",
            "- Melanie: second",
            "[not a date]",
            "## Notes",
            "Prose from a model. Two sentences.",
        ]
    )
    assert list(summary_lines(text)) == [
        (0, None, "- user: undated fact", "undated fact"),
        (2, "8 May 2023", "- Caroline: first", "first"),
        (3, "2023-01-01", "- Bob: inline date wins", "inline date wins"),
        (4, "8 May 2023", "- Melanie: second", "second"),
        (7, "8 May 2023", "- Prose from a model.", "Prose from a model."),
        (7, "8 May 2023", "- Two sentences.", "Two sentences."),
    ]


# -- tool facts ------------------------------------------------------------------------------


def test_compact_call_shows_identifying_arguments_first_and_unquoted() -> None:
    args = call_arguments(
        json.dumps(
            {
                "note": "a long free-text note that nobody will need again later on",
                "order_id": "BW-1",
                "city": "São Paulo, BR",
                "n": 2,
                "gift": False,
            }
        )
    )
    assert args is not None
    assert (
        compact_call("ship", args)
        == 'ship(order_id=BW-1, city="São Paulo, BR", n=2, gift=false, ...)'
    )
    assert call_arguments("not json") is None
    assert call_arguments("") == {}


def test_tool_body_does_not_repeat_the_call() -> None:
    args = {"order_id": "A17", "store": "downtown"}
    result = json.dumps({"order_id": "A17", "store": "downtown", "units": 4})
    assert tool_body("check(order_id=A17)", args, result) == "check(order_id=A17) -> units=4"
    same = json.dumps({"order_id": "A17"})
    assert tool_body("check(order_id=A17)", args, same) == "check(order_id=A17) -> done"
    assert tool_body("check()", {}, "{}") == "check() -> (empty result)"
    assert tool_body("check()", {}, "  Found 3   hotels. ") == "check() -> Found 3 hotels."
    assert tool_body("check()", {}, "42") == "check() -> 42"


def test_flatten_json_keeps_identifying_keys_when_there_are_too_many() -> None:
    value = {f"extra_{i}": i for i in range(20)} | {"status": "ok", "order_id": "A17"}
    pairs = flatten_json(value)
    assert pairs == [("order_id", "A17")]  # small counts and a bare "ok" tell nothing
    assert len(flatten_json({f"extra_{i}": i for i in range(20)})) == 12  # unless nothing does
    assert len(flatten_json(value | {f"code_{i}": f"C-{i}00" for i in range(20)})) == 12
    nested = {"items": [{"sku": "B-1"}, {"sku": "B-2"}, {"sku": "B-3"}, {"sku": "B-4"}]}
    assert flatten_json(nested) == [
        ("items[0].sku", "B-1"),
        ("items[1].sku", "B-2"),
        ("items[2].sku", "B-3"),
        ("items[3].sku", "B-4"),  # every element is read, not the first three
        ("items.count", "4"),
    ]


def _clutter(n: int) -> dict[str, object]:
    return {f"k{i}": {"id": f"obj_{i:04x}", "state": "ok", "n": i % 7} for i in range(n)}


def test_flatten_json_reads_every_level_and_shows_a_deep_key_by_its_last_two_parts() -> None:
    bookings = [{"n": 1}, {"slot": {"attributes": {"reference": "ZF-49641"}}}]
    deep = {"data": {"bookings": bookings, **_clutter(8)}}
    pairs = flatten_json(deep)
    assert pairs == [("attributes.reference", "ZF-49641")]  # among 33 fields
    assert flatten_json({"a": {"b": {"ref": "ZF-1"}}}) == [("a.b.ref", "ZF-1")]  # shown whole
    body = tool_body("list_bookings()", {}, json.dumps(deep))
    assert "attributes.reference=ZF-49641" in body and len(body) <= 420


def test_flatten_json_ranks_values_that_identify_over_counters_flags_and_enums() -> None:
    record = {
        **{f"f{i}": v for i, v in enumerate((3, True, "pending", 0.42, "obj_9f3a2710") * 12)},
        "meta": {"a": {"b": {"signed_by": "Octavia Quartermaine", "on": "2025-03-21"}}},
        "x": {"y": {"z": {"w": {"amount": 5253.5, "code": "RF-22907", "place": "São Paulo"}}}},
    }
    pairs = dict(flatten_json(record))
    assert len(pairs) == 5
    for key, value in {
        "b.signed_by": "Octavia Quartermaine",
        "b.on": "2025-03-21",
        "w.amount": "5253.5",
        "w.code": "RF-22907",
        "w.place": "São Paulo",
    }.items():
        assert pairs[key] == value
    assert list(pairs) == ["b.signed_by", "b.on", "w.amount", "w.code", "w.place"]
    assert value_signal("ZF-49641") > value_signal("2025") > value_signal("12")
    assert value_signal("Octavia Quartermaine") > value_signal("pending") > value_signal("")
    assert value_signal("obj_9f3a2710") > value_signal("pending") > value_signal("false")
    assert value_signal("10:30") > value_signal("12") == value_signal("0.42")
    assert value_signal("ann@example.com") > value_signal("Ann") > value_signal("OK")
    assert value_signal("21 March 2025") > value_signal("March 2025") > value_signal("2025")


def test_flatten_json_reads_a_bounded_number_of_nodes_however_big_the_json() -> None:
    wide = {f"k{i}": i for i in range(100_000)} | {"late": "ZZ-12345"}
    pairs = flatten_json(wide)
    assert len(pairs) == 12 and ("late", "ZZ-12345") not in pairs  # past the node cap
    deep: dict[str, object] = {"ref": "AB-1234"}
    for i in range(5_000):  # deeper than Python's recursion limit
        deep = {f"level{i}": deep, "n": i}
    assert len(flatten_json(deep)) <= 12
    long_list = {"rows": [{"id": f"R-{i}"} for i in range(50_000)]}
    pairs = flatten_json(long_list)
    assert len(pairs) == 12 and all(k.startswith("rows[") for k, _ in pairs)
    body = tool_body("scan()", {}, json.dumps(long_list))
    assert len(body) <= len("scan() -> ") + 400


def test_flatten_json_shows_a_list_of_values_as_one_field_and_keeps_within_the_record() -> None:
    assert flatten_json([1, 2, 3]) == [("items", "1, 2, 3")]
    tags = {"tags": ["a", "b", "c", "d", "e", "f", "g"], "empty": [None]}
    assert flatten_json(tags) == [("tags", "a, b, c, d, e, ...(+2)")]
    wordy = {f"note{i}": f"ZX-{i}00 " + "x" * 70 for i in range(12)} | {"ref": "AB-1234"}
    pairs = flatten_json(wordy)
    assert pairs[-1] == ("ref", "AB-1234") and len(pairs) < 12
    assert sum(len(k) + len(v) + 3 for k, v in pairs) <= 400  # the rest did not fit
