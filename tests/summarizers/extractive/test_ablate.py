"""Switching the extractive summarizer's heuristics off, one at a time, for ablations."""

from __future__ import annotations

import pytest

from summem._flow import run_sync
from summem.errors import ConfigurationError
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.facts import SCORING_HEURISTICS, score_sentence
from summem.summarizers.extractive.summarizer import HEURISTICS, ExtractiveSummarizer
from summem.tokens.base import ApproxCounter

# A sentence each scoring heuristic applies to: switching it off must change its score.
TRIGGERS = {
    "time_words": "We moved the meeting to next week with the whole team.",
    "numbers": "The invoice total came to 48213.57 for the quarter.",
    "codes": "Please look up ticket KQ-52205 for the broken heater.",
    "contacts": "Write to dana.reyes@example.org about the broken heater.",
    "names": "Ask Dana Reyes about the broken heater.",
    "first_person": "My sister lives near the old harbour.",
    "events": "The plumber repaired the broken heater.",
    "decisions": "We decided on the blue sofa for the lounge.",
    "preferences": "I prefer aisle seats on long flights.",
    "tasks": "The deadline for the garden plans is close.",
    "correction_words": "Actually the budget is 2300 for the sofa.",
    "question_discount": "Could you book the blue sofa for delivery on Friday?",
    "filler_drop": "Lovely garden.",
}


def test_every_scoring_heuristic_has_a_trigger() -> None:
    assert set(TRIGGERS) == set(SCORING_HEURISTICS)
    assert set(SCORING_HEURISTICS) <= set(HEURISTICS)


@pytest.mark.parametrize("name", sorted(TRIGGERS))
def test_switching_a_signal_off_changes_the_score_of_a_sentence_it_applies_to(name: str) -> None:
    sentence = TRIGGERS[name]
    shipped = score_sentence(sentence, "user")
    ablated = score_sentence(sentence, "user", off=frozenset((name,)))
    if name in ("question_discount", "filler_drop"):
        assert ablated > shipped  # a discount or a drop switched off: worth more
    else:
        assert ablated < shipped
    # and nothing else moves: a sentence the heuristic does not apply to keeps its score
    other = "The garden has roses."
    if name != "filler_drop":
        assert score_sentence(other, "user", off=frozenset((name,))) == score_sentence(
            other, "user"
        )


def test_unknown_heuristic_is_refused_by_name() -> None:
    with pytest.raises(ConfigurationError, match="time_word"):
        ExtractiveSummarizer(ablate=("time_word",))


def test_shares_switched_off_are_zero() -> None:
    s = ExtractiveSummarizer(ablate=("carry_share", "new_share", "speaker_share"))
    assert (s.carry_share, s.new_share, s.speaker_share) == (0.0, 0.0, 0.0)
    assert ExtractiveSummarizer().ablate == frozenset()


def _summary(summarizer: ExtractiveSummarizer, *texts: str, budget: int = 400) -> str:
    messages = [
        Message(role="user" if i % 2 == 0 else "assistant", content=t, id=f"m{i}")
        for i, t in enumerate(texts)
    ]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    return run_sync(summarizer.summarize(request)).text


def test_selection_heuristics_switched_off_change_the_summary() -> None:
    texts = (
        "[2:15 pm on 8 May, 2023] Wow, my budget for the new sofa is 1879 pounds.",
        "Noted, I will look for sofas in that range.",
        "Actually, my budget for the new sofa is now 2300 pounds.",
    )
    shipped = _summary(ExtractiveSummarizer(), *texts)
    assert "2300" in shipped and "1879" not in shipped  # superseded
    assert "Actually" not in shipped and "8 May 2023" in shipped
    kept_stale = _summary(ExtractiveSummarizer(ablate=("supersession",)), *texts)
    assert "1879" in kept_stale
    raw = _summary(ExtractiveSummarizer(ablate=("compaction",)), *texts)
    assert "Actually, my budget" in raw
    undated = _summary(ExtractiveSummarizer(ablate=("leading_stamp",)), *texts)
    assert "[8 May 2023]" not in undated  # the stamp is no longer read as a date


@pytest.mark.parametrize("name", HEURISTICS)
def test_every_heuristic_can_be_switched_off_and_still_summarizes(name: str) -> None:
    text = _summary(
        ExtractiveSummarizer(ablate=(name,)),
        "My order KQ-52205 has not arrived; I need it by 14 March 2025.",
        "I checked: it ships Friday from the Leeds depot.",
        budget=60,
    )
    assert "KQ-52205" in text or "Friday" in text
