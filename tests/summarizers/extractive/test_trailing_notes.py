"""A bracketed note ending a message is the transcriber's, not its last sentence's (loco15)."""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryRequest
from summem.summarizers.extractive.facts import without_note
from summem.summarizers.extractive.summarizer import HEURISTICS, ExtractiveSummarizer
from summem.tokens.base import ApproxCounter

FACT = "I finally finished the quilt for my niece Ines."
NOTE = "[shares an image: a photo of a patchwork quilt folded over a wooden chair by a window]"


def _summary(ablate: tuple[str, ...], budget: int) -> str:
    """Two named people talking; Ann's news comes with a transcript's note of what she showed."""
    turns = [
        ("user", "Ann", f"{FACT} {NOTE}"),
        ("assistant", "Ben", "It looks lovely, she will be thrilled."),
        ("user", "Ann", "Walked to the market this morning, it was busy."),
        ("assistant", "Ben", "Markets are the best on a Saturday."),
    ]
    messages = [Message(role=a, content=t, name=n, id=f"m{i}") for i, (a, n, t) in enumerate(turns)]
    request = SummaryRequest(
        messages=messages, previous_summary=None, max_tokens=budget, token_counter=ApproxCounter()
    )
    return run_sync(ExtractiveSummarizer(ablate=ablate).summarize(request)).text


def test_a_fact_is_kept_without_the_note_that_ends_its_message_when_both_do_not_fit() -> None:
    # glued to the note, the fact's line was too long for the room and lost to small talk
    for budget in (30, 40):
        assert FACT in _summary((), budget)
        assert "shares an image" not in _summary((), budget)
        assert FACT not in _summary(("trailing_notes",), budget)


def test_with_room_to_spare_the_whole_message_comes_back() -> None:
    # the expansion of short messages still writes the message whole when the room allows
    assert f"{FACT} {NOTE}" in _summary((), 100)


def test_without_note() -> None:
    assert without_note(f"{FACT} {NOTE}") == FACT
    assert without_note("Here it is [attachment: invoice.pdf]") == "Here it is"
    assert without_note(NOTE) == NOTE  # a message that is only a note stays whole
    assert without_note("see rows [1, 2, 3, 4, 5]") == "see rows [1, 2, 3, 4, 5]"  # no letter
    assert without_note("That was close [sighs]") == "That was close [sighs]"  # too short
    assert without_note("[attachment: a.pdf] and then") == "[attachment: a.pdf] and then"


def test_trailing_notes_is_a_heuristic() -> None:
    assert "trailing_notes" in HEURISTICS
