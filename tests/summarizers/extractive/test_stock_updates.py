"""Stock small talk with a correction word in it ("it was the wrong size") is a template too."""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive.selection import Fact, make_fact
from summem.summarizers.extractive.summarizer import HEURISTICS, ExtractiveSummarizer
from summem.summarizers.extractive.templates import POWER, discount_templates
from summem.tokens.base import ApproxCounter

CODES = ("XZ-2081-A", "ZE703783", "GG670952", "D19W670", "KZ358133")
STOCK = "Parcel {c} turned up, it was the wrong size of course."
TASTE = "Music in the car is the Bach cello suites or nothing."


def _fact(line: str, pos: int, priority: float = 5.0) -> Fact:
    return make_fact(line, None, priority, [f"m{pos}"], (2, pos, 0), frozenset())


def _stock_and_other(n: int) -> list[Fact]:
    """``n`` occasions of the stock line, another user line between each two."""
    facts: list[Fact] = []
    for i in range(n):
        facts.append(_fact(f"- user: {STOCK.format(c=CODES[i])}", 2 * i))
        facts.append(_fact(f"- user: The {10 + i}:45 meeting ran over again, as usual.", 2 * i + 1))
    return facts


def test_the_same_words_with_a_correction_word_on_three_occasions_are_a_template() -> None:
    facts = _stock_and_other(3)
    discount_templates(facts, [])
    assert [f.priority for f in facts[::2]] == [5.0 / 2**POWER] * 2 + [5.0]  # the latest kept
    off = _stock_and_other(3)
    discount_templates(off, [], stock_updates=False)
    assert all(f.priority == 5.0 for f in off)


def test_updates_of_different_things_are_still_never_a_template() -> None:
    facts = [
        _fact(f"- user: Actually, my budget for the {p} is now {i}00 pounds.", 2 * i)
        for i, p in enumerate(("sofa", "lamp", "rug", "desk"))
    ]
    discount_templates(facts, [])
    assert all(f.priority == 5.0 for f in facts)


def test_the_latest_of_an_update_said_again_and_again_keeps_its_score() -> None:
    # The same update of one thing where supersession missed the links: what is true now
    # must not lose to what it replaced.
    chain: list[Fact] = []
    for i, t in enumerate(("9:10", "9:40", "10:05", "10:30")):
        chain.append(_fact(f"- user: Sorry, the ferry leaves at {t} now.", 2 * i))
        chain.append(_fact(f"- user: The {10 + i}:45 meeting ran over again, as usual.", 2 * i + 1))
    discount_templates(chain, [])
    ferry = chain[::2]
    assert ferry[-1].priority == 5.0
    assert all(f.priority < 5.0 for f in ferry[:-1])


def test_an_update_that_supersedes_is_never_counted() -> None:
    facts = _stock_and_other(3)
    facts[4].supersedes = ["m0"]
    discount_templates(facts, [])
    assert facts[4].priority == 5.0


def _replay(ablate: tuple[str, ...], budget: int = 60) -> str:
    """One stock line and one other line a reduction; the user's taste said in the third."""
    summarizer = ExtractiveSummarizer(ablate=ablate)
    previous: SummaryOutput | None = None
    n = 0
    for r, code in enumerate(CODES):
        turns = [
            ("user", STOCK.format(c=code)),
            ("assistant", "Oh no, that's annoying."),
            ("user", f"The {10 + r}:45 meeting ran over again, as usual."),
            ("assistant", "Ugh."),
        ]
        if r == 2:
            turns += [("user", TASTE), ("assistant", "Good choice.")]
        messages = [Message(role=a, content=t, id=f"m{n + i}") for i, (a, t) in enumerate(turns)]
        n += len(turns)
        request = SummaryRequest(
            messages=messages,
            previous_summary=previous.text if previous else None,
            max_tokens=budget,
            token_counter=ApproxCounter(),
            previous_info=previous,
        )
        previous = run_sync(summarizer.summarize(request))
    assert previous is not None
    return previous.text


def test_a_taste_said_once_outlasts_stock_small_talk_said_each_round() -> None:
    assert TASTE in _replay(())
    assert TASTE not in _replay(("stock_updates",))


def test_stock_updates_is_an_ablation() -> None:
    assert "stock_updates" in HEURISTICS
