"""A sentence said in many messages is discounted as a template is (issue #29, session 15).

Handmade sentences: an assistant's stock phrase repeated reply after reply, merged into one
carried line, no longer outlasts a detail the user said once.
"""

from __future__ import annotations

from summem.messages import SummaryInfo
from tests.summarizers.extractive.test_selection_policy import lines, msg, summarize

STOCK = "Switch off the power at the wall before you open the fuse box on Monday."
DETAIL = (
    "We are redoing the back garden before the summer and the shed needs a new roof as well, "
    "while my daughter cannot eat sesame at all, so the party food is its own project."
)


def _rounds(ablate: tuple[str, ...] = ()) -> list[str]:
    first = [msg("u0", DETAIL)]
    for i in range(6):
        first += [msg(f"a{i}", STOCK, "assistant")]
    out = summarize(first, 200, ablate=ablate)
    assert any("sesame" in line for line in lines(out))  # room for both at first
    later = [
        msg("u9", "Our neighbour lent us a ladder for the gutters this weekend."),
        msg("u10", "The boiler engineer is booked for Thursday between eight and noon."),
        msg("a9", STOCK, "assistant"),
    ]
    again = summarize(
        later,
        90,
        ablate=ablate,
        previous_summary=out.text,
        previous_info=SummaryInfo(extra=out.extra),
    )
    return lines(again)


def test_a_phrase_said_in_many_messages_gives_way_to_a_detail_said_once() -> None:
    kept = _rounds()
    assert any("sesame" in line for line in kept)
    assert not any("fuse box" in line for line in kept)


def test_without_the_rule_the_stock_phrase_stays() -> None:
    assert any("fuse box" in line for line in _rounds(("repeats",)))
