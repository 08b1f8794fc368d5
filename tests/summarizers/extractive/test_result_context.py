"""A short sentence that only presents the tool result before it (issue #29, round 11).

"Here you go, 16 rows." says nothing once the result's line is gone: 16 rows of what? It is
kept only beside that line, in the round it is said and in every later one
(``ablate=["result_context"]`` switches the rule off). Handmade messages, not the evals' own.
"""

from __future__ import annotations

from summem.messages import Message, SummaryInfo
from summem.summarizers.extractive.context import leans_on_result
from summem.summarizers.extractive.selection import Fact, Selection, make_fact
from summem.tokens.base import ApproxCounter
from tests.summarizers.extractive.test_selection_policy import call, lines, msg, summarize

_TABLE = "part\tname\tprice\tdue\n" + "\n".join(
    f"P{i:03d}\tWidget {i}\t{10 + i}.50\t2027-0{1 + i % 9}-1{i % 9}" for i in range(16)
)
_HERE = "Here you go, 16 rows."


def _fetched() -> list[Message]:
    return [
        msg("u1", "Can you list the parts on order?"),
        call("a1", "c1", "list_parts", {}),
        msg("t1", _TABLE, "tool", tool_call_id="c1"),
        msg("a2", _HERE, "assistant"),
        msg("u2", "My locker code at the depot is 5521 and my shift starts at 06:40."),
    ]


def test_a_line_presenting_a_result_is_dropped_with_the_result() -> None:
    small = lines(summarize(_fetched(), 60, verbatim_words=0))
    assert not any("list_parts" in x for x in small)  # no room for the table
    assert not any(_HERE in x for x in small)  # nor, then, for what presents it
    assert any("5521" in x for x in small)
    off = lines(summarize(_fetched(), 60, ablate=("result_context",), verbatim_words=0))
    assert any(_HERE in x for x in off)  # without the rule it stands alone
    both = lines(summarize(_fetched(), 400, verbatim_words=0))
    assert any("list_parts" in x for x in both) and any(_HERE in x for x in both)


def test_a_carried_line_presenting_a_result_goes_when_the_result_does() -> None:
    first = summarize(_fetched(), 400, verbatim_words=0)
    entry = next(e for e in first.extra["provenance"] if e.get("leans"))
    assert entry["leans"] == ["t1"]
    later = [
        msg("u3", f"My niece Orla Brennan turns {n} on 1{n % 9} May and loves kites.")
        for n in range(3, 9)
    ]
    info = SummaryInfo(extra=first.extra)
    second = lines(summarize(later, 90, previous_summary=first.text, previous_info=info))
    assert not any("list_parts" in x for x in second)
    assert not any(_HERE in x for x in second)
    unlinked = [{k: v for k, v in e.items() if k != "leans"} for e in first.extra["provenance"]]
    info = SummaryInfo(extra={**first.extra, "provenance": unlinked})
    alone = lines(summarize(later, 90, previous_summary=first.text, previous_info=info))
    assert any(_HERE in x for x in alone)  # carried with no record of what it leans on


def test_leans_on_result() -> None:
    assert leans_on_result("Here you go, 16 rows.")
    assert leans_on_result("Sure, here it is.")
    assert leans_on_result("That's all of them.")
    assert not leans_on_result("Your order A17 shipped on 3 May.")  # says what it is about
    assert not leans_on_result("Done.")
    assert not leans_on_result("Here are the parts you asked for, sorted by due date.")  # long


def test_selection_takes_no_line_before_what_it_leans_on() -> None:
    def fact(line: str, score: float, n: int) -> Fact:
        return make_fact(line, None, score, [f"m{n}"], (2, n, 0), frozenset(line.split()))

    result = fact("- tool: list_parts() -> " + " ".join(f"P{i:03d}" for i in range(40)), 1.0, 1)
    here = fact("- assistant: " + _HERE, 5.0, 2)
    here.leans_on = result
    other = fact("- user: My locker code at the depot is 5521.", 2.0, 3)
    selection = Selection(ApproxCounter(), 40)
    selection.fill([here, result, other], 40)
    assert (here.state, result.state, other.state) == (0, 0, 1)  # the room goes to a fact
    roomy = Selection(ApproxCounter(), 400)
    roomy.fill([here, result], 400)
    assert (here.state, result.state) == (0, 1)
    roomy.fill([here], 400)  # the next pass takes it, beside its result
    assert here.state == 1


def test_a_span_opening_on_a_line_presenting_the_last_spans_result() -> None:
    fetched = _fetched()
    code = msg("u0", "My locker code at the depot is 5521 and my shift starts at 06:40.")
    first_span, second_span = [code, *fetched[:3]], fetched[3:4]  # cut after the result
    for budget, kept in ((30, False), (400, True)):
        first = summarize(first_span, budget, verbatim_words=0)
        assert first.extra["ends_on_result"] == "t1"
        assert ("list_parts" in first.text) is kept
        info = SummaryInfo(extra=first.extra)
        second = summarize(second_span, 400, previous_summary=first.text, previous_info=info)
        assert any(_HERE in x for x in lines(second)) is kept  # only beside its result
        off = summarize(
            second_span,
            400,
            previous_summary=first.text,
            previous_info=info,
            ablate=("result_context",),
        )
        assert any(_HERE in x for x in lines(off))


def test_a_line_carrying_its_own_value_does_not_lean_on_the_result() -> None:
    """review20: "Here's your booking reference: QX-4471." is a fact, not a pointer."""
    for line in (
        "Here's your booking reference: QX-4471.",
        "It's 21°C at station 11.",
        "They arrive on 3 May at 14:20.",
        "That comes to $199.",
        "Here it is: 3.5 on average.",
        "That's Dr Okafor's clinic.",
        "Here's the link: https://example.com/b/7.",
    ):
        assert not leans_on_result(line), line
    for line in ("Here you go, 16 rows.", "Here are 1,204 results.", "Here they are (12)."):
        assert leans_on_result(line), line  # a bare count of the result says nothing alone


def test_a_value_said_right_after_a_result_survives_without_the_result() -> None:
    booking = (
        "{"
        + ", ".join(f'"field_{i}": "value number {i} of the hotel\'s reply"' for i in range(60))
        + "}"
    )
    span = [
        msg("u1", "Book me the hotel in Lyon for the conference please."),
        call("a1", "c1", "book_hotel", {"city": "Lyon"}),
        msg("t1", booking, "tool", tool_call_id="c1"),
        msg("a2", "Here's your booking reference: QX-4471.", "assistant"),
    ]
    for budget in (60, 80, 120):
        small = summarize(span, budget, verbatim_words=0)
        assert "QX-4471" in small.text, budget
