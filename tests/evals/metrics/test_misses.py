from __future__ import annotations

from evals.families.locomo import Conversation, QAItem, Turn
from evals.metrics.evidence import CarriedView
from evals.metrics.misses import miss_breakdown


def turn(i: int, text: str) -> Turn:
    return Turn(
        dia_id=f"D1:{i}",
        speaker="Ann" if i % 2 else "Bob",
        role="user" if i % 2 else "assistant",
        text=text,
        session=1,
        date_time="1 May, 2023",
        index=i,
        first_in_session=i == 1,
    )


def qa(n: int, evidence: tuple[str, ...], answer: str | None, category: int = 1) -> QAItem:
    return QAItem(f"q{n}", "?", category, answer, None, evidence, evidence)


TURNS = (
    turn(1, "My ring was my aunt's. It stands for courage."),
    turn(2, "I moved to Leeds in spring."),
    turn(3, "We talked about it for hours."),
    turn(4, "The trip was lovely."),
    turn(5, "I play the cello now."),
)
CONV = Conversation(
    sample_id="tiny",
    index=0,
    speaker_a="Ann",
    speaker_b="Bob",
    turns=TURNS,
    session_dates={1: "1 May, 2023"},
    qa=(
        qa(1, ("D1:1",), "courage"),  # cited, the answer-bearing sentence dropped
        qa(2, ("D1:2",), "Leeds"),  # evidence neither kept nor cited
        qa(3, ("D1:3", "D1:2"), "Leeds"),  # another evidence turn carried, not the answer's
        qa(4, ("D1:4",), "a wonderful trip"),  # no evidence turn holds the answer's text
        qa(5, ("D1:5",), "cello"),  # both views hold it
        qa(6, ("D1:5",), "no answer", category=5),  # adversarial: not counted
        qa(7, ("D1:1",), "aunt"),  # ours, not the reference's
    ),
)


def view(
    text: str, verbatim: tuple[str, ...] = (), summarized: tuple[str, ...] = ()
) -> CarriedView:
    return CarriedView((), frozenset(verbatim), frozenset(summarized), text, 0)


def test_misses_are_split_by_what_became_of_the_evidence() -> None:
    mine = view(
        "- Ann: My ring was my aunt's.\n- Bob: We talked about it.\nThe trip was lovely.\n"
        "I play the cello now.",
        verbatim=("D1:4", "D1:5"),
        summarized=("D1:1", "D1:3"),
    )
    reference = view("Ann's ring stands for courage; she moved to Leeds; a wonderful trip; cello")
    window = view("", verbatim=("D1:4", "D1:5"))
    result = miss_breakdown(
        [CONV],
        [mine],
        [reference],
        [window],
        method="extractive",
        reference_name="observations-even",
        budget_tokens=100,
    )
    assert result.as_dict() == {
        "method": "extractive",
        "reference": "observations-even",
        "budget_tokens": 100,
        "items": 6,
        "missed": 4,
        "not_carried": 1,
        "cited_answer_lost": 1,
        "answer_turn_evicted": 1,
        "no_literal_evidence": 1,
        "in_window": 1,
        "gained": 1,
    }


def test_a_view_that_keeps_the_answer_bearing_part_misses_nothing_it_cites() -> None:
    whole = view(
        "- Ann: My ring was my aunt's. It stands for courage.\nI play the cello now.",
        verbatim=("D1:5",),
        summarized=("D1:1",),
    )
    reference = view("Ann's ring stands for courage; cello")
    result = miss_breakdown(
        [CONV],
        [whole],
        [reference],
        [view("")],
        method="extractive",
        reference_name="observations-even",
        budget_tokens=100,
    )
    assert (result.missed, result.cited_answer_lost, result.gained) == (0, 0, 1)
