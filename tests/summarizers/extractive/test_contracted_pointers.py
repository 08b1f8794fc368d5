"""A short sentence that points back through a contraction keeps what it points at (issue #29).

Handmade sentences, not the evals' own. "He's going in on 9 March." says nothing once "My
brother booked his hip surgery." is gone: a contracted pronoun ("He's", "She'll", "They've")
opens a continuation as "He is" does, and a continuation that says something of its own (a
hard signal: a time, name, preference...) comes along with what it leans on instead of being
left out for scoring lower.
"""

from __future__ import annotations

from summem.messages import Message
from summem.summarizers.extractive.context import units
from summem.summarizers.extractive.facts import has_hard_signal
from tests.summarizers.extractive.test_selection_policy import lines, msg, summarize


def test_a_contracted_pronoun_opens_a_continuation() -> None:
    sentences = ["My brother finally booked his hip surgery.", "He's going in on 9 March."]
    assert units(sentences, [5.0, 4.0]) == [[0, 1]]
    for opener in ("She'll", "They've", "He'd", "It'll"):
        assert units(["The agency rang back.", f"{opener} sort it by Monday."], [3.0, 3.0]) == [
            [0, 1]
        ]


def test_a_contracted_pronoun_after_the_subject_is_not_a_continuation() -> None:
    sentences = ["The boiler is fixed.", "Nadia rang, she's in Galway until Sunday."]
    assert units(sentences, [3.0, 3.0]) == [[0], [1]]


def test_a_continuation_with_a_hard_signal_comes_along_though_it_scores_lower() -> None:
    sentences = ["Our in-laws are visiting over Easter.", "They have gone off dairy completely."]
    assert has_hard_signal(sentences[1])
    assert units(sentences, [4.0, 2.0]) == [[0, 1]]
    filler = ["Our in-laws are visiting over Easter.", "It was about time honestly."]
    assert not has_hard_signal(filler[1])
    assert units(filler, [4.0, 1.0]) == [[0]]  # says nothing of its own: left out as before


def test_the_summary_line_of_a_contracted_continuation_says_what_it_is_about() -> None:
    msgs = [
        msg("a1", "Anything else on your mind this week?", "assistant"),
        msg("u1", "My brother finally booked his hip surgery. He's going in on 9 March."),
        msg("a2", "Thanks, noted.", "assistant"),
    ]
    got = lines(summarize(msgs, 200, verbatim_words=0))
    dated = [x for x in got if "9 March" in x]
    assert dated and all("hip surgery" in x for x in dated)


def test_a_long_continuation_does_not_come_along_for_a_hard_signal_alone() -> None:
    head = "I went to a support group on 7 May and it was so powerful."
    long_one = (
        "She's a counsellor I met there, Dr Lena Ortiz, and she runs a weekly art-therapy "
        "session at the Eastside community centre on Thursdays."
    )
    assert has_hard_signal(long_one)
    assert units([head, long_one], [5.0, 4.0]) == [[0]]  # one candidate too large otherwise
    brief = "She's a counsellor, Dr Lena Ortiz."
    assert units([head, brief], [5.0, 4.0]) == [[0, 1]]


def test_a_dated_sentence_is_not_lost_to_the_long_continuation_after_it() -> None:
    turns = [
        (
            "Caroline",
            "I went to an LGBTQ support group on 7 May and it was so powerful. She's a "
            "counsellor I met there, Dr Lena Ortiz, and she runs a weekly art-therapy session "
            "at the Eastside community centre on Thursdays.",
        ),
        ("Melanie", "That sounds amazing! I painted a lake sunrise last year with my kids."),
        ("Caroline", "I'm planning to apply for a counselling master's at Boston College."),
        ("Melanie", "We're going camping at Yosemite on 20 June with the whole family."),
        ("Caroline", "My adoption paperwork went in on 2 April."),
        ("Melanie", "My son Jack starts pottery classes in July."),
    ]
    msgs = [
        Message.from_openai(
            {"role": "user" if i % 2 == 0 else "assistant", "name": name, "content": text},
            id=f"m{i}",
        )
        for i, (name, text) in enumerate(turns)
    ]
    for budget in (60, 80, 100, 120):
        assert any("7 May" in x for x in lines(summarize(msgs, budget, verbatim_words=0))), budget
