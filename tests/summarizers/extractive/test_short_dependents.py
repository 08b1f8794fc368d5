"""Short lines that lean on a dropped sentence, round 12 (issue #29).

Handmade sentences, not the evals' own. A pronoun's contraction points back as the pronoun
does ("He's called Jago Quayle." after "There's a new vet."): the two are one candidate
(``ablate=["contractions"]`` switches this off).
"""

from __future__ import annotations

from summem.summarizers.extractive.context import units
from tests.summarizers.extractive.test_selection_policy import lines, msg, summarize


def test_a_contracted_pronoun_continues_the_sentence_before_it() -> None:
    said = ["We got a new dentist after the move.", "She's called Wren Halloway."]
    assert units(said, [1.0, 2.0]) == [[0, 1]]
    assert units(said, [1.0, 2.0], contracted=False) == [[0], [1]]
    for pronoun in ("He'll", "They've", "It'd", "That'll", "She\u2019s"):
        assert units(["I met the new landlord.", f"{pronoun} be at 14 Mill Lane."], [1.0, 2.0]) == [
            [0, 1]
        ]
    expletive = ["I moved to Leeds last year.", "There's a good vet nearby."]
    assert units(expletive, [1.0, 2.0]) == [[0], [1]]  # "there's" introduces, not points


def test_a_name_said_with_a_contracted_pronoun_keeps_who_it_names() -> None:
    msgs = [
        msg("a1", "Anything new at home?", "assistant"),
        msg("u1", "We got a new vet since the practice changed hands. He's called Jago Quayle."),
        msg("a2", "Good to know.", "assistant"),
    ]
    got = lines(summarize(msgs, 200, verbatim_words=0))
    assert not any(x.endswith(": He's called Jago Quayle.") for x in got)
    assert any("new vet" in x and "Jago Quayle" in x for x in got)
    off = lines(summarize(msgs, 200, verbatim_words=0, ablate=("contractions",)))
    assert any(x.endswith("He's called Jago Quayle.") and "new vet" not in x for x in off)


def test_a_continuation_that_names_something_comes_along_whatever_it_scores() -> None:
    said = ["We finally settled on a name for the boat after weeks.", "She is called Salt Fiddle."]
    assert units(said, [3.0, 2.0]) == [[0, 1]]
    assert units(said, [3.0, 2.0], named=False) == [[0]]  # left out, and its name with it
    plain = ["We finally settled on a name for the boat after weeks.", "It was about time."]
    assert units(plain, [3.0, 1.0]) == [[0]]  # names nothing: left out as before
