"""A sentence said in many messages is discounted as a template is (issue #29, session 15).

Handmade sentences: an assistant's stock phrase repeated reply after reply, merged into one
carried line, no longer outlasts a detail the user said once.
"""

from __future__ import annotations

from typing import Any

from summem.messages import Message, SummaryInfo
from summem.summarizers.extractive import summarizer
from summem.summarizers.extractive.facts import names_a_name
from tests.summarizers.extractive.test_selection_policy import lines, msg, summarize

STOCK = "Switch off the power at the wall before you open the fuse box on Monday."
DETAIL = (
    "We are redoing the back garden before the summer and the shed needs a new roof as well, "
    "while my daughter cannot eat sesame at all, so the party food is its own project."
)

LATER = [
    msg("u9", "Our neighbour lent us a ladder for the gutters this weekend."),
    msg("u10", "The boiler engineer is booked for Thursday between eight and noon."),
]


def _two_rounds(
    first: list[Message], later: list[Message], kept_first: str, ablate: tuple[str, ...]
) -> list[str]:
    """Summarize ``first`` (where ``kept_first`` fits), then ``later`` under 90 tokens after it."""
    out = summarize(first, 200, ablate=ablate)
    assert any(kept_first in line for line in lines(out))  # room for everything at first
    again = summarize(
        later,
        90,
        ablate=ablate,
        previous_summary=out.text,
        previous_info=SummaryInfo(extra=out.extra),
    )
    return lines(again)


def _rounds(ablate: tuple[str, ...] = ()) -> list[str]:
    first = [msg("u0", DETAIL)]
    for i in range(6):
        first += [msg(f"a{i}", STOCK, "assistant")]
    later = [*LATER, msg("a9", STOCK, "assistant")]
    return _two_rounds(first, later, "sesame", ablate)


def test_a_phrase_said_in_many_messages_gives_way_to_a_detail_said_once() -> None:
    kept = _rounds()
    assert any("sesame" in line for line in kept)
    assert not any("fuse box" in line for line in kept)


def test_without_the_rule_the_stock_phrase_stays() -> None:
    assert any("fuse box" in line for line in _rounds(("repeats",)))


# -- a fact restated on purpose (issue #29, round 7) -----------------------------------------

NAMED = "If the landlord calls again, his name is Gideon Holloway, keep that somewhere."


def _restated(ablate: tuple[str, ...] = ()) -> list[str]:
    first = [msg("u0", DETAIL)]
    for i in range(4):
        first += [msg(f"u{i + 1}", NAMED), msg(f"a{i}", "Okay.", "assistant")]
    return _two_rounds(first, [*LATER, msg("u11", NAMED)], "Holloway", ablate)


def test_a_line_that_names_someone_said_again_and_again_is_a_fact_not_a_stock_phrase() -> None:
    """Said in 5 messages, the landlord's name is no less a fact: it is not discounted."""
    kept = _restated()
    assert any("Holloway" in line for line in kept)
    assert kept == _restated(("repeats",))


def test_names_a_name() -> None:
    assert names_a_name("Our new cleaner is Hester Blackwood, she starts next week.")
    assert names_a_name("We fly to Cork on Friday.")
    assert not names_a_name("Sorry, I was on another call.")
    assert not names_a_name("Keep a short note of what you changed so it's easy to undo.")
    assert not names_a_name("Here's where things stand.")
    assert not names_a_name("Your ticket is AB-2231-X4, OK?")
    assert not names_a_name("Switch it off at the wall on Monday, or in May.")


def test_without_the_name_check_the_restated_fact_gives_way(monkeypatch: Any) -> None:
    """What the name check is for: counted as a stock phrase, the landlord's name is lost."""
    monkeypatch.setattr(summarizer, "names_a_name", lambda sentence: False)
    assert not any("Holloway" in line for line in _restated())
