"""A number spelled out ("make it nine") is a value a correction can state, as digits are."""

from __future__ import annotations

from summem.summarizers.extractive.facts import score_sentence, spelled_numbers, tokenize
from tests.summarizers.extractive.test_supersede import msg, summarize, supersedes


def test_cardinals_and_their_compounds_are_numbers_but_not_one_alone() -> None:
    words = tokenize("Twenty-five chairs, a dozen plates, nine cups and twenty-one forks.")
    assert spelled_numbers(words) == ["twenty-five", "dozen", "nine", "twenty-one"]
    assert spelled_numbers(tokenize("I'll take the Quayside one, that one is too far.")) == []
    assert spelled_numbers(tokenize("A one-off fee, someone said; often, nineteenth.")) == []


def test_a_short_correction_in_words_is_worth_keeping() -> None:
    assert score_sentence("Scratch that, nine.", "user") > 0
    assert score_sentence("Hmm, four instead.", "user") > 0
    assert score_sentence("Scratch that, please.", "user") == 0


def test_a_number_in_words_alone_is_not_a_signal() -> None:
    assert score_sentence("Table for four people.", "user") == score_sentence(
        "Table for quiet people.", "user"
    )


def test_a_correction_in_words_replaces_the_stale_count() -> None:
    out = summarize(
        [
            msg("a", "The table at the bistro is for four people on Friday."),
            msg("b", "Noted, I will ring them.", "assistant"),
            msg("c", "Sorry, the table at the bistro is for six people on Friday."),
        ]
    )
    assert "six" in out.text and "four" not in out.text
    assert list(supersedes(out).values()) == [["a"]]
