"""What the user tells in answer to the assistant's question about them is kept (issue #29)."""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.context import asks_the_user
from summem.summarizers.extractive.summarizer import HEURISTICS, ExtractiveSummarizer
from summem.tokens.base import ApproxCounter

ANSWER = "No lift, and we're on the third floor."
CHAT = (
    "Read 14 pages last night before I dropped off.",
    "Bus was 10 minutes late, standard.",
)


def _summary(ablate: tuple[str, ...], asked: str, budget: int = 30) -> str:
    turns = [
        ("user", "Could you help me plan a small get-together at ours?"),
        ("assistant", f"Happy to. A few questions first. {asked}"),
        ("user", ANSWER),
        ("assistant", "Great, that narrows it down."),
    ]
    for line in CHAT:
        turns += [("user", line), ("assistant", "Sounds like a day.")]
    messages = [Message(role=a, content=t, id=f"m{i}") for i, (a, t) in enumerate(turns)]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_an_answer_to_what_the_assistant_asked_about_the_user_outranks_small_talk() -> None:
    assert ANSWER in _summary((), "Is there a lift where you live?")
    assert ANSWER not in _summary(("answers",), "Is there a lift where you live?")


def test_an_answer_to_an_offer_or_to_no_question_gains_nothing() -> None:
    assert ANSWER not in _summary((), "Shall I draw up a list of snacks?")
    assert ANSWER not in _summary((), "Let's start with the guest list.")


def test_what_asks_the_user() -> None:
    assert asks_the_user("Is there a lift where you live?")
    assert asks_the_user("Any allergies at all?")
    assert asks_the_user("How do you take your coffee?")
    assert not asks_the_user("Shall I book it?")
    assert not asks_the_user("Would you like me to draft it?")
    assert not asks_the_user("The code is KQ-52205, does that help you?")
    assert not asks_the_user("You live on the third floor.")
    # review20: a check on the assistant's own help or explanation asks nothing about the user
    assert not asks_the_user("Anything else I can help with?")
    assert not asks_the_user("Is there anything I could do to help you?")
    assert not asks_the_user("Does that make sense to you?")
    assert asks_the_user("Would you like a window seat or an aisle?")  # their choice
    assert asks_the_user("Do you know roughly how many are coming?")  # not 'did you know'


def test_answers_is_a_heuristic() -> None:
    assert "answers" in HEURISTICS


def _dialogue(ablate: tuple[str, ...], asked: str, budget: int = 30) -> str:
    """Two named people talking, replayed as a chat: Ann on the user side, Ben on the other."""
    turns = [
        ("user", "Ann", "Good to hear from you again, it has been a while."),
        ("assistant", "Ben", f"Likewise, a busy month. {asked}"),
        ("user", "Ann", ANSWER),
        ("assistant", "Ben", "Ha, that narrows it down."),
    ]
    for line in CHAT:
        turns += [("assistant", "Ben", line), ("user", "Ann", "Sounds like a day.")]
    messages = [Message(role=a, content=t, name=n, id=f"m{i}") for i, (a, n, t) in enumerate(turns)]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_a_named_speaker_answering_the_other_about_themselves_outranks_small_talk() -> None:
    # loco14: in a dialogue between two named people (LoCoMo's shape) each asks the other;
    # the reply is a fact about its speaker, as a chat user's answer to the assistant is
    assert ANSWER in _dialogue((), "Is there a lift where you live?")
    assert ANSWER not in _dialogue(("named_answers",), "Is there a lift where you live?")
    assert ANSWER not in _dialogue(("answers",), "Is there a lift where you live?")


def test_a_named_reply_to_no_question_about_the_speaker_gains_nothing() -> None:
    assert ANSWER not in _dialogue((), "Shall I draw up a list of snacks?")
    assert ANSWER not in _dialogue((), "Let's start with the guest list.")


def test_named_answers_is_a_heuristic() -> None:
    assert "named_answers" in HEURISTICS
