"""A stock phrase said with every detail is not a template's core (issue #29).

A user with a verbal habit tells different details of their life, each wrapped in the same
long phrase ("so please keep it in mind whenever you suggest a place for dinner"). That phrase
is the longest clause of each sentence, has no value in it and is the same words each time: a
stock phrase, not a report told again with other values. Read as the core
(``clause_templates`` alone), it made the details one template, and all but the newest were
divided by ``(n - 1) ** 1.5``.
"""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.summarizer import HEURISTICS, ExtractiveSummarizer
from summem.summarizers.extractive.templates import core_frame, frame_of, stock_clauses
from summem.tokens.base import ApproxCounter

TAIL = "so please keep it in mind whenever you suggest anything for the two of us"
DETAILS = (
    f"Oh and before I forget, my husband Tom can't eat shellfish since that reaction, {TAIL}.",
    f"One more thing, the knee surgery left me unable to manage stairs for a while, {TAIL}.",
    f"Also worth saying, we both hate loud places after the wedding fiasco, {TAIL}.",
    f"Last one for now, our budget tops out around forty pounds a head, {TAIL}.",
)
OTHER = (
    "The garden is a mess after all that rain, the lawn will need another cut soon.",
    "The neighbours are having their kitchen redone, so it is noisy all day long.",
    "Work has been quiet this week, which makes a change for once in a while.",
    "Dinner was pasta again, the kids did not complain which is a small miracle.",
    "Read a few chapters of that thriller on the train, it is getting good now.",
    "My mate from football has been texting about the match on the weekend again.",
)


def _summary(ablate: tuple[str, ...] = (), budget: int = 160) -> str:
    said = [DETAILS[0], OTHER[0], DETAILS[1], OTHER[1], DETAILS[2], OTHER[2]]
    said += [DETAILS[3], OTHER[3], OTHER[4], OTHER[5]]
    turns: list[tuple[str, str]] = []
    for text in said:
        turns += [("user", text), ("assistant", "Noted.")]
    messages = [Message(role=a, content=t, id=f"m{i}") for i, (a, t) in enumerate(turns)]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_details_told_with_one_stock_phrase_are_not_one_template() -> None:
    # fails with valued_cores ablated (clause_templates alone, prose15): the stock phrase is
    # each sentence's longest clause, so the four details were one template
    said = [detail.split(",")[1].strip() for detail in DETAILS[:2]]
    assert all(s in _summary() for s in said)
    assert all(s in _summary(("clause_templates",)) for s in said)  # as on main
    assert not any(s in _summary(("valued_cores",)) for s in said)


def test_a_stock_phrase_is_never_the_core() -> None:
    stock = stock_clauses([((2, k), d) for k, d in enumerate(DETAILS)])
    assert stock == {frame_of(TAIL)}
    knee = frame_of(DETAILS[1].split(",")[1])
    assert core_frame(DETAILS[1], stock=stock) == knee  # the detail's own clause
    assert core_frame(DETAILS[1], valued=False, stock=stock) == frame_of(TAIL)
    assert core_frame(DETAILS[0], stock=stock) == frame_of(DETAILS[0].split(",")[1])  # Tom's
    assert stock_clauses([((2, 0), DETAILS[0])]) == frozenset()  # said once: not stock
    core = "booked the plumber for 7:18 and he wants 249 pounds to look"
    reports = [((2, k), f"Quick update, {core.replace('7', str(k))}, go figure.") for k in range(3)]
    assert stock_clauses(reports) == frozenset()  # told with other values: a report


def test_valued_cores_is_a_heuristic() -> None:
    assert "valued_cores" in HEURISTICS
