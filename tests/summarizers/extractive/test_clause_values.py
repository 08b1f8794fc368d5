"""A standing preference told again keeps its newest telling's score (issue #29).

The user restates a standing preference in the same words with other words around it each
time; the newest telling also says how things stand now (a place). The repeated clause is one
template, so the older tellings give way, but the newest keeps its score: it is the only line
holding the place. (The clause holds no value, so with ``valued_cores`` each telling is read
whole; the newest telling's score is tested with that rule ablated too.)
"""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.tokens.base import ApproxCounter

PLANTED = "Harley Street"
TELLINGS = (
    "Like I keep saying, I can't do anything before ten in the morning on weekdays, so "
    "bear that in mind.",
    "As before, I can't do anything before ten in the morning on weekdays, so bear it in your "
    "head when the boiler man calls.",
    "Just so you know, I can't do anything before ten in the morning on weekdays, same as ever.",
    "Remember I can't do anything before ten in the morning on weekdays, the physio is on "
    "Harley Street these days.",
)
OTHER = (
    "The garden is a mess after all that rain, the lawn will need another cut soon.",
    "The neighbours are having their kitchen redone, so it is noisy all day long.",
    "Work has been quiet this week, which makes a change for once in a while.",
    "Dinner was pasta again, the kids did not complain which is a small miracle.",
)


def _summary(ablate: tuple[str, ...] = (), budget: int = 60) -> str:
    said = [TELLINGS[0], OTHER[0], TELLINGS[1], OTHER[1], TELLINGS[2], OTHER[2]]
    said += [TELLINGS[3], OTHER[3]]
    turns: list[tuple[str, str]] = []
    for text in said:
        turns += [("user", text), ("assistant", "Noted.")]
    messages = [Message(role=a, content=t, id=f"m{i}") for i, (a, t) in enumerate(turns)]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_the_newest_telling_of_a_restated_preference_keeps_its_score() -> None:
    # fails on prose14 (fa93e5a): the four tellings share their longest clause, so all four
    # were one template and the newest, the one line holding the place, was divided by
    # 3 ** 1.5 like the others
    assert PLANTED in _summary()
    assert PLANTED in _summary(("valued_cores",))
