"""A date is a value: a meeting, deadline or appointment moved to another date (issue #29).

Dates are read by their shape and by the month and weekday names of several languages, not by
any one phrasing: "3. November 2028", "le 11 novembre", "3 de noviembre de 2028", "14h30". A
later date for the same thing replaces the earlier one when the later statement says it
corrects (``moved``, ``actually``...), and marks it in any language when it does not (the
older line is then only ever kept beside the newer one).
"""

from __future__ import annotations

from summem._flow import run_sync
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.tokens.base import ApproxCounter

FILLER = (
    ("Can you suggest a good bread recipe for the weekend?", "user"),
    ("Sure: flour, water, salt and yeast, and a long slow rise.", "assistant"),
)


def msg(id: str, content: str, role: str = "user") -> Message:
    return Message.from_openai({"role": role, "content": content}, id=id)


def summarize(older: str, newer: str, max_tokens: int = 600) -> SummaryOutput:
    messages = [
        msg("a", older),
        *(msg(f"x{i}", text, role) for i, (text, role) in enumerate(FILLER)),
        msg("b", newer),
    ]
    request = SummaryRequest(
        messages=messages,
        previous_summary=None,
        max_tokens=max_tokens,
        token_counter=ApproxCounter(),
    )
    return run_sync(ExtractiveSummarizer(verbatim_words=0).summarize(request))


def links(out: SummaryOutput, key: str) -> list[str]:
    return [i for e in out.extra["provenance"] for i in e.get(key, ())]


def test_a_moved_date_in_a_day_first_format_replaces_the_old_one() -> None:
    cases = [
        (
            "The team meeting is on 3. November 2028.",
            "Sorry, the team meeting moved to 12. Dezember 2028.",
        ),
        ("My visa appointment is on 11 novembre.", "My visa appointment moved to 2 décembre."),
        ("The rehearsal is on 4 giugno 2028.", "The rehearsal was moved to 9 luglio 2028."),
        ("The kickoff meeting is at 14h30.", "The kickoff meeting moved to 16h00."),
    ]
    for older, newer in cases:
        out = summarize(older, newer)
        assert newer in out.text, out.text
        assert older not in out.text, out.text
        assert links(out, "supersedes") == ["a"], out.text


def test_a_date_moved_without_a_correction_word_marks_the_old_one_in_any_language() -> None:
    cases = [
        (
            "Das Treffen mit Frau Keller ist am 3. November 2028.",
            "Das Treffen mit Frau Keller wurde auf den 12. Dezember 2028 verschoben.",
        ),
        ("La réunion est le 3 novembre 2028.", "La réunion est reportée au 12 décembre 2028."),
        (
            "La cita es el 3 de noviembre de 2028.",
            "La cita se ha movido al 12 de diciembre de 2028.",
        ),
    ]
    for older, newer in cases:
        out = summarize(older, newer)
        assert links(out, "marks") == ["a"], out.text
        assert out.text.index(older) < out.text.index(newer)  # the later date is the last word
        tight = summarize(older, newer, max_tokens=20)  # room for one line: the new date's
        assert newer in tight.text and older not in tight.text, tight.text


def test_other_dated_things_are_not_moved_dates() -> None:
    cases = [
        # another person's date, another thing dated, a question that dates nothing
        ("Ana's party is on 3 June 2028.", "Ben's party is on 9 June 2028."),
        ("My mother's birthday is 18 May 2028.", "My grandmother's birthday is 21 April 2026."),
        ("My flight out is on 3 May.", "My flight back is on 10 May."),
        (
            "Is there anything in the diary for 7 July 2026?",
            "Is there anything in the diary for 21 March 2026?",
        ),
        (
            "The parcel weighs 3.5 kg and costs 12 euros.",
            "The parcel weighs 4.5 kg and costs 12 euros.",
        ),
    ]
    for older, newer in cases:
        out = summarize(older, newer)
        assert links(out, "marks") == [] and links(out, "supersedes") == [], (older, out.text)


def test_one_frame_dated_again_and_again_in_the_same_words_is_not_a_running_status() -> None:
    # three dated things said alike (a list's way), not one status: nothing is marked; a move
    # says a word of its own ("moved", "verschoben", "reportée") or names the old date
    frame = "The delivery of the corner sofa is expected on {}."
    dates = ("23 March 2027", "10 June 2027", "9 April 2027")
    messages = [msg(str(i), frame.format(d)) for i, d in enumerate(dates)]
    request = SummaryRequest(
        messages=messages,
        previous_summary=None,
        max_tokens=600,
        token_counter=ApproxCounter(),
    )
    out = run_sync(ExtractiveSummarizer(verbatim_words=0).summarize(request))
    assert links(out, "marks") == [] and links(out, "supersedes") == [], out.text
    for d in dates:
        assert d in out.text


def test_a_later_statement_naming_the_old_date_and_a_new_one_marks_it_in_any_words() -> None:
    out = summarize(
        "Mi cita con el dentista es el 3 de noviembre de 2028.",
        "The clinic wrote that the appointment goes from 3 de noviembre to 12 de noviembre.",
    )
    assert links(out, "marks") == ["a"], out.text
