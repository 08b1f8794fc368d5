"""A correction said with nothing but its value goes with what it revises (``bare_corrections``)."""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.extractive.supersede import bare_correction, replaced_values
from tests.summarizers.extractive.test_summarizer import WordCounter


def said(role: str, id: str, content: str) -> Message:
    return Message.from_openai({"role": role, "content": content}, id=id)


def test_a_bare_value_with_a_revising_word_is_a_bare_correction() -> None:
    cases = [
        ("Scratch that, five.", "Done, your dentist check-up is confirmed for two people.", "two"),
        (
            "Hmm, Oluwaseun instead.",
            "All set: the slot is down for Radhika as the contact.",
            "radhika",
        ),
        ("No wait, make it 16:15.", "I've booked your haircut for 8:15.", "8:15"),
        (
            "Sorry, change it to nine people.",
            "Please put the haircut down for seven people.",
            "seven",
        ),
        ("Actually, £126.", "I've booked your yoga class for a budget of £807.", "807"),
    ]
    for correction, statement, stale in cases:
        bare = bare_correction(correction)
        assert bare is not None, correction
        assert replaced_values(*bare, statement) == {stale}, correction


def test_what_says_more_than_a_value_or_no_revision_is_no_bare_correction() -> None:
    for sentence in [
        "No, five is fine.",  # no revision
        "Door code changed again, it's 4471 now.",  # says what it is about
        "Thanks, that works for me.",  # no value
        "Got it, updated.",  # "Got" is a word capitalised, no name
        "Actually, the plumber moved the visit to Friday afternoon at the latest.",  # too long
    ]:
        assert bare_correction(sentence) is None, sentence
    bare = bare_correction("Sorry, change it to nine people.")
    assert bare is not None
    # a statement without its content word ("people"), or already holding the value: nothing
    assert not replaced_values(*bare, "The parcel with 41 items left the depot.")
    assert not replaced_values(*bare, "Between seven and nine people will come.")


def revise_a_confirmation(ablate: tuple[str, ...] = (), budget: int = 48) -> str:
    messages = [
        said("user", "m0", "Could you sort out the dentist check-up?"),
        said("assistant", "m1", "Done, your dentist check-up is confirmed for two people."),
        said("user", "m2", "Scratch that, five."),
        said("assistant", "m3", "The parcel with 35 items left the depot at 11:05."),
        said("user", "m4", "Please put the boiler inspection down for 14 May at 09:30."),
    ]
    request = SummaryRequest(
        messages=messages,
        previous_summary=None,
        max_tokens=budget,
        token_counter=WordCounter(),
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_a_bare_correction_keeps_the_new_value_with_the_stale_one() -> None:
    text = revise_a_confirmation()
    line = next(x for x in text.splitlines() if "two people" in x)
    assert "Scratch that, five, in reply to assistant: Done," in line, text
    assert text.count("two people") == 1, text  # the stale line is not kept apart


def test_bare_corrections_can_be_ablated() -> None:
    text = revise_a_confirmation(("bare_corrections",))
    assert "five" not in text and "two people" in text, text  # the stale value alone


def test_a_stale_value_never_outlasts_its_bare_correction() -> None:
    for budget in (20, 30, 40, 48, 60):
        text = revise_a_confirmation(budget=budget)
        assert "two people" not in text or "five" in text, (budget, text)


def test_a_bare_correction_revises_the_speaker_s_own_request_across_a_noted() -> None:
    messages = [
        said("user", "m0", "Please put the haircut down for seven people."),
        said("assistant", "m1", "Sure, noted."),
        said("user", "m2", "Sorry, change it to five."),
    ]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=60, token_counter=WordCounter()
    )
    text = run_sync(ExtractiveSummarizer().summarize(request)).text
    assert text == (
        "- user: Sorry, change it to five, in reply to: "
        "Please put the haircut down for seven people."
    ), text


def test_a_bare_correction_looks_no_further_than_a_message_with_other_values() -> None:
    messages = [
        said("assistant", "m0", "Done, your dentist check-up is confirmed for two people."),
        said("assistant", "m1", "Your parcel from Harrow ships on Monday."),
        said("user", "m2", "Scratch that, five."),
    ]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=60, token_counter=WordCounter()
    )
    text = run_sync(ExtractiveSummarizer().summarize(request)).text
    assert "in reply to" not in text, text  # m1 holds values, none a number: not past it


def test_a_second_bare_correction_marks_the_first() -> None:
    messages = [
        said("assistant", "m0", "I've booked your haircut for 14:00 on Friday at Cutters."),
        said("user", "m1", "No wait, make it 16:15."),
        said("assistant", "m2", "Sure, noted."),
        said("user", "m3", "Hmm, 17:30 instead."),
    ]
    for budget in (20, 30, 45, 60):
        request = SummaryRequest(
            messages=messages, previous_summary=None, max_tokens=budget, token_counter=WordCounter()
        )
        text = run_sync(ExtractiveSummarizer().summarize(request)).text
        stale = "14:00" in text or "16:15" in text
        assert "17:30" in text or not stale, (budget, text)  # a time, "14:00", is one word
