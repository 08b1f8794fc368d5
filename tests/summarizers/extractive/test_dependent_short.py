"""Short lines that would lean on a dropped sentence (issue #29, session 15).

Handmade sentences, not the evals' own: a short sentence that only announces what the next
one names brings it along; a short line to the listener that names nothing is not kept.
"""

from __future__ import annotations

from summem.summarizers.extractive.context import says_nothing, units
from summem.summarizers.extractive.facts import has_hard_signal
from tests.summarizers.extractive.test_selection_policy import lines, msg, summarize


def test_a_short_announcement_brings_the_sentence_that_names_it() -> None:
    msgs = [
        msg("a1", "How was the weekend?", "assistant"),
        msg("u1", "We bought a boat last month! Its name is Marisol and it sleeps four."),
    ]
    got = lines(summarize(msgs, 200, verbatim_words=0))
    assert any("bought a boat" in x and "Marisol" in x for x in got)  # one line
    assert not any(x.endswith("We bought a boat last month!") for x in got)


def test_units_join_a_continuation_that_names_what_the_unit_announces() -> None:
    sentences = ["I changed my email.", "The new one is ada@example.org."]
    assert units(sentences, [3.0, 1.0]) == [[0, 1]]
    plain = ["I changed my email.", "It was about time honestly."]
    assert units(plain, [3.0, 1.0]) == [[0]]  # names nothing new: left out as before


def test_a_short_line_to_the_listener_that_names_nothing_is_not_kept() -> None:
    msgs = [
        msg("a1", "The move to Dundee went fine, the van came at 8.", "assistant", name="Rob"),
        msg("u1", "I'm always here to back you up! Our cat eats nothing but salmon.", name="Kim"),
    ]
    got = lines(summarize(msgs, 400, verbatim_words=0))
    assert not any("back you up" in x for x in got)
    assert any("salmon" in x for x in got)
    assert any("Dundee" in x for x in got)


def test_says_nothing() -> None:
    assert says_nothing("I'm always here to back you up!")
    assert says_nothing("Friends like you mean a lot.")
    assert says_nothing("Thanks Kim, I'm here for you.", frozenset({"kim"}))  # a speaker's name
    assert not says_nothing("Our cat refuses anything but salmon.")  # not to the listener
    assert not says_nothing("I'll send you the invoice tomorrow.")  # a time
    assert not says_nothing("You left your keys at Dana's.")  # a name
    assert not says_nothing("I'm always here to back you up, whatever the landlord says next.")


def test_has_hard_signal() -> None:
    assert not has_hard_signal("I'm always here to back you up!")
    assert has_hard_signal("She is allergic to peanuts.")
    assert has_hard_signal("We adopted a cat.")
    assert has_hard_signal("I got a puppy two weeks ago!")


def test_a_late_pointer_is_joined_to_its_cue_unless_the_cue_holds_a_value() -> None:
    msgs = [
        msg("u1", "We finally tried the ramen stall behind the old station.", name="Ana"),
        msg("a1", "I'd love to try it sometime.", "assistant", name="Ben"),
        msg("u2", "The spare key is in box 4471 now.", name="Ana"),
        msg("a2", "I'll remember that one.", "assistant", name="Ben"),
    ]
    got = lines(summarize(msgs, 400, verbatim_words=0))
    ramen = next(x for x in got if "try it sometime" in x)
    assert "in reply to Ana: We finally tried the ramen stall" in ramen
    assert not any("4471" in x and "in reply to" in x for x in got)  # a value is never quoted


def test_a_day_written_with_a_dot_stays_in_its_sentence() -> None:
    from summem.summarizers.extractive.facts import split_sentences

    said = list(split_sentences("Der Umzug ist am 3. November 2028. Danach melde ich mich."))
    assert said == ["Der Umzug ist am 3. November 2028.", "Danach melde ich mich."]
    assert list(split_sentences("Wir fliegen am 12. Oktober 2028 nach Cork.")) == [
        "Wir fliegen am 12. Oktober 2028 nach Cork."
    ]
    assert list(split_sentences("Two options: 1. The Marlowe at 9. 2. The Ritz.")) == [
        "Two options: 1.",
        "The Marlowe at 9.",
        "2.",
        "The Ritz.",
    ]  # a list's markers split as before
