"""A carried line records its template's count, so a frame the memory forgot keeps its discount.

Issue #29, round 8: the template memory keeps :data:`~.templates.MEMORY_SIZE` frames. When a
phrasebook larger than that thrashes it, a forgotten frame was counted again from the previous
summary's runs only (one or two), and its instances, at their full score, outlasted a detail
said once. Handmade sentences, two reductions.
"""

from __future__ import annotations

from typing import Any

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import summarizer
from summem.summarizers.extractive.selection import make_fact
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.summarizers.extractive.templates import (
    MEMORY_SIZE,
    Template,
    discount_templates,
    write_memory,
)
from summem.tokens.base import ApproxCounter

ESTIMATE = "The estimate from {} came back at {} pounds and stays valid until {} for the usual job."
FIRST = [
    ("assistant", ESTIMATE.format("Harlow", 410, "3 May")),
    ("assistant", "I have watered the tomatoes in the greenhouse while you were at the coast."),
    ("assistant", ESTIMATE.format("Brixby", 385, "9 June")),
    ("assistant", "The hallway light flickers whenever the washing machine starts spinning."),
    ("assistant", ESTIMATE.format("Tamsin", 455, "1 July")),
]
LATER = [
    ("user", "Nothing urgent, though my brother Fintan cannot stand coriander in anything."),
    ("assistant", ESTIMATE.format("Corvell", 398, "5 August")),
]


def _summarize(
    summarizer: ExtractiveSummarizer,
    turns: list[tuple[str, str]],
    start: int,
    budget: int,
    previous: Any = None,
    previous_text: str | None = None,
) -> Any:
    messages = [
        Message(role=role, content=text, id=f"m{start + i}") for i, (role, text) in enumerate(turns)
    ]
    request = SummaryRequest(
        messages=messages,
        previous_summary=previous_text or getattr(previous, "text", None),
        max_tokens=budget,
        token_counter=ApproxCounter(),
        previous_info=previous,
    )
    return run_sync(summarizer.summarize(request))


def _after_thrash(ablate: tuple[str, ...] = ()) -> tuple[Any, str]:
    """Three occasions of the estimate (one instance kept), a memory full of other frames since."""
    summarizer = ExtractiveSummarizer(ablate=ablate)
    first = _summarize(summarizer, FIRST, 0, 70)
    assert first.text.count("The estimate from") == 1  # the discounted instances gave way
    others = [
        Template("assistant", frozenset(f"w{i} x{i} y{i} z{i} q{i}".split()), 3)
        for i in range(MEMORY_SIZE)
    ]
    thrashed = SummaryInfo(extra={**first.extra, "templates": write_memory(others)})
    second = _summarize(summarizer, LATER, 10, 70, thrashed, first.text)
    return first, second.text


def test_a_carried_line_records_the_occasions_of_its_template() -> None:
    first, _ = _after_thrash()
    counts = [e.get("seen") for e in first.extra["provenance"]]
    assert sorted(c for c in counts if c) == [3]  # the one estimate kept; the other lines none


def test_a_frame_the_memory_forgot_keeps_its_discount_and_a_detail_said_once_stays() -> None:
    _, text = _after_thrash()
    assert "coriander" in text
    assert "The estimate from" not in text


def test_without_the_rule_the_forgotten_frame_outlasts_the_detail() -> None:
    _, text = _after_thrash(("template_counts",))
    assert "coriander" not in text
    assert text.count("The estimate from") == 2


def test_the_count_on_a_carried_line_counts_as_earlier_occasions() -> None:
    carried = make_fact(
        f"- assistant: {ESTIMATE.format('Tamsin', 455, '1 July')}",
        None,
        5.0,
        ["m4"],
        (1, 0, 0),
        frozenset(),
    )
    carried.seen = 3
    new = make_fact(
        f"- assistant: {ESTIMATE.format('Corvell', 398, '5 August')}",
        None,
        5.0,
        ["m11"],
        (2, 1, 0),
        frozenset(),
    )
    memory = discount_templates([carried, new], [])
    assert [t.seen for t in memory] == [4]  # relearned at its old count, not from one
    assert carried.priority == new.priority == 5.0 / 3**1.5
    assert carried.seen == new.seen == 4


def test_a_stock_phrase_keeps_the_count_of_repeats_that_were_not_merged_into_its_line() -> None:
    """The repeats rule's count lives on the line too: a dropped repeat still counts later."""
    stock = "- assistant: Give it a day or two before you judge how it turned out."

    def fact(ids: list[str], order: int) -> Any:
        return make_fact(stock, None, 5.0, ids, (order, 0, 0), frozenset(stock[13:].split()))

    carried, repeat = fact(["m1"], 1), fact(["m7", "m9"], 2)  # said again twice, not merged
    summarizer._discount_repeats([carried], [repeat])
    assert carried.said == 3 and carried.priority < 5.0 and carried.seen == 0
    later = fact(["m1"], 1)  # next round: the line, its repeats dropped, with the count it records
    later.said = carried.said
    summarizer._discount_repeats([later], [])
    assert later.priority == carried.priority


def test_a_huge_or_odd_count_in_a_stored_summary_is_capped_not_a_failed_reduction() -> None:
    """A summary record is data: a hand-edited ``"seen": 10**400`` once overflowed the
    discount's float power (OverflowError) and failed the reduction."""
    first, _ = _after_thrash()
    for odd in (10**400, 2**1023, -4, True, "9", 2.5):
        entries = [
            {**e, "seen": odd, "said": odd, "more": odd} if e.get("seen") else e
            for e in first.extra["provenance"]
        ]
        tampered = SummaryInfo(extra={**first.extra, "provenance": entries})
        out = _summarize(ExtractiveSummarizer(), LATER, 10, 70, tampered, first.text)
        assert "coriander" in out.text
