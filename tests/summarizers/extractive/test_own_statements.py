"""A person's statement of their own present state or habit, with no value, gains a little.

Handmade sentences, not the evals' own: "we're pescatarian at home" said in passing, with no
cue word, should outrank a remark of similar weight, but not a sentence carrying a value.
"""

from __future__ import annotations

import pytest

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.facts import states_about_self
from summem.tokens.base import ApproxCounter


def _summary(
    texts: list[tuple[str, str]],
    budget: int,
    ablate: tuple[str, ...] = (),
    names: tuple[str, str] | None = None,
) -> str:
    messages = [
        Message.from_openai(
            {"role": role, "content": text, **({"name": names[i % 2]} if names else {})},
            id=f"m{i}",
        )
        for i, (role, text) in enumerate(texts)
    ]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    summarizer = ExtractiveSummarizer(ablate=ablate, verbatim_words=0)
    return run_sync(summarizer.summarize(request)).text


@pytest.mark.parametrize(
    "sentence",
    [
        "We're pescatarian at home, so keep that in mind.",
        "I don't drive.",
        "My son can't have nuts.",
        "My daughter's a picky eater.",
        "We usually don't eat meat.",
        "Our flat is on the top floor.",
    ],
)
def test_a_first_person_state_or_habit_is_a_statement_about_oneself(sentence: str) -> None:
    assert states_about_self(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "We're flying on 14 March.",  # a value: scored on it already
        "I can do 7:30.",
        "I'm free on Friday.",
        "My email is dana@example.org.",
        "I went to Leeds.",  # an event, not a state
        "I was there once.",
        "Are we there yet?",  # a question
        "The fish market opens early.",  # nobody's own
        "You're vegetarian, right?",
    ],
)
def test_values_events_questions_and_others_are_not(sentence: str) -> None:
    assert not states_about_self(sentence)


STATED = "We're pescatarian at home, so keep that in mind."
REMARK = "The fish market by Bram's quay opens early."


def test_the_users_own_state_outranks_a_remark_of_similar_weight() -> None:
    texts = [("user", STATED), ("assistant", REMARK)]
    assert _summary(texts, 22) == f"- user: {STATED}"
    assert _summary(texts, 22, ablate=("own_statements",)) == f"- assistant: {REMARK}"


def test_a_short_statement_about_oneself_is_not_filler() -> None:
    texts = [("user", "Hello!"), ("assistant", REMARK), ("user", "We're pescatarian.")]
    assert "- user: We're pescatarian." in _summary(texts, 60)
    assert "pescatarian" not in _summary(texts, 60, ablate=("own_statements",))


def test_an_unnamed_assistant_is_not_a_person_but_a_named_speaker_is() -> None:
    texts = [("user", REMARK), ("assistant", "We're pescatarian.")]
    assert "pescatarian" not in _summary(texts, 60)
    names = ("Bo", "Audrey")
    assert "- Audrey: We're pescatarian." in _summary(texts, 60, names=names)
    assert "pescatarian" not in _summary(texts, 60, ablate=("own_statements",), names=names)


def test_it_does_not_lift_a_statement_over_one_with_a_value() -> None:
    event = "The market sold out of the catch early, Bram said."
    texts = [("user", STATED), ("assistant", event)]
    assert _summary(texts, 22) == f"- assistant: {event}"
