"""The same report told with another lead-in and tail is one template (issue #29)."""

from __future__ import annotations

import itertools

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.summarizer import HEURISTICS, ExtractiveSummarizer
from summem.summarizers.extractive.templates import OVERLAP, core_frame, frame_of
from summem.tokens.base import ApproxCounter

DETAIL = "The photos from Corfu came out of the printer at last."
REPORTS = (
    "Quick update before I forget, booked the plumber for 7:18 and he wants 249 pounds just "
    "to come and look, go figure.",
    "This morning, would you believe it, booked the plumber for 9:12 and he wants 40 pounds "
    "just to come and look, and I'm still not over it.",
    "Honestly, what a week it has been: booked the plumber for 8:05 and he wants 152 pounds "
    "just to come and look, classic.",
    "Small victories, booked the plumber for 6:48 and he wants 65 pounds just to come and "
    "look, which was about the level of it.",
)
OTHER = (
    "Not much else going on, the garden is a mess after all that rain.",
    "The neighbours are having their kitchen redone, so it is noisy all day.",
    "Work has been quiet, which makes a change for once.",
)


def _summary(ablate: tuple[str, ...], budget: int = 30) -> str:
    said = [REPORTS[0], OTHER[0], REPORTS[1], DETAIL, REPORTS[2], OTHER[1], REPORTS[3], OTHER[2]]
    turns: list[tuple[str, str]] = []
    for text in said:
        turns += [("user", text), ("assistant", "Sounds like a day.")]
    messages = [Message(role=a, content=t, id=f"m{i}") for i, (a, t) in enumerate(turns)]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def _one(a: frozenset[str], b: frozenset[str]) -> bool:
    return len(a & b) >= OVERLAP * len(a | b)


def test_a_report_told_again_in_other_words_around_it_gives_way_to_a_detail_said_once() -> None:
    # fails on main (0406765): the four tellings' whole frames share under half their words,
    # so the report is never a template and its amounts and times outrank the detail
    assert DETAIL in _summary(())
    assert DETAIL not in _summary(("clause_templates",))


def test_the_core_frame_is_the_longest_clause() -> None:
    for a, b in itertools.combinations(REPORTS, 2):
        assert not _one(frame_of(a), frame_of(b))
        assert _one(core_frame(a), core_frame(b))
    assert core_frame(DETAIL) == frame_of(DETAIL)  # one clause: read whole
    assert core_frame("Yes, fine.") == frame_of("Yes, fine.")  # no clause long enough


def test_clause_templates_is_a_heuristic() -> None:
    assert "clause_templates" in HEURISTICS
