"""Details said in passing inside a long user message reach the first summary (issue #29).

Handmade sentences, not an eval's: a question joined to a statement by "so"/"and" is split
from it (:func:`split_asked`), and a user's long statement scores as its clauses.
"""

from __future__ import annotations

from summem.summarizers.extractive.facts import score_sentence, split_asked, split_sentences
from tests.summarizers.extractive.test_selection_policy import lines, msg, summarize

ASKED = (
    "I want to repaint the hallway before the holidays and the walls are a mess, as my "
    "husband is allergic to solvents, so which kind of paint would you buy?"
)


def test_a_question_joined_to_a_statement_is_split_from_it() -> None:
    told, asked = split_asked(ASKED)
    assert told.endswith("allergic to solvents")
    assert asked == "So which kind of paint would you buy?"
    # whole, it is a question: worth nothing (no value in it) or a question's share
    assert score_sentence(ASKED, "user") < 0.6 * score_sentence(told, "user")
    assert list(split_sentences(ASKED)) == [told, asked]


def test_a_bare_tagged_question_or_a_question_stays_whole() -> None:
    for sentence in (
        "The printer is showing error 6419 again, any idea?",  # already read as told
        "Could you check the boiler, since we have guests, so what time suits?",  # opens asking
        "I'm free, so can we talk?",  # too short to stand apart
        "I'm repainting the hall, so the smell will linger for days.",  # no question
    ):
        assert split_asked(sentence) == (sentence,)


def test_the_statement_of_a_joined_question_reaches_the_summary() -> None:
    chatter = [
        msg(f"c{i}", f"The {w} team won their match on the weekend by a wide margin.")
        for i, w in enumerate(("football", "rugby", "hockey", "cricket"))
    ]
    out = summarize([*chatter, msg("a", ASKED)], max_tokens=400)
    assert any("solvents" in line for line in lines(out))


def test_a_long_statement_scores_as_its_clauses() -> None:
    long = (
        "I am sorting out the loft at last, it is full of boxes from old moves, my knee has "
        "been bad since the winter, my partner works nights, and we have no ladder."
    )

    def score(ablate: tuple[str, ...] = ()) -> float:
        out = summarize([msg("a", long)], max_tokens=200, ablate=ablate)
        return float(out.extra["provenance"][0]["score"])

    assert score() > score(("clauses",))  # each clause counts what it says
    asked = long.replace(" and we have no ladder.", " what should I do first?")
    got = summarize([msg("a", asked)], max_tokens=200)
    off = summarize([msg("a", asked)], max_tokens=200, ablate=("clauses",))
    assert got.extra["provenance"] == off.extra["provenance"]  # a question keeps its own score


def test_in_a_dialogue_between_named_people_no_side_is_raised() -> None:
    long = (
        "I am sorting out the loft at last, it is full of boxes from old moves, my knee has "
        "been bad since the winter, my partner works nights, and we have no ladder."
    )
    named = [msg("a", long, name="Caroline")]
    got = summarize(named, max_tokens=200)
    off = summarize(named, max_tokens=200, ablate=("clauses",))
    assert got.extra["provenance"] == off.extra["provenance"]
