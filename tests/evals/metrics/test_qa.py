from __future__ import annotations

from evals.families.locomo import Conversation, QAItem, Turn
from evals.metrics.qa import (
    answer_and_judge,
    judge_accuracy,
    parse_label,
    prompt_refs,
    render_memory,
)
from tests.fakes.llm import ScriptedLLM


def conversation() -> Conversation:
    turns = tuple(
        Turn(
            dia_id=f"D1:{i + 1}",
            speaker=speaker,
            role="user" if speaker == "Ann" else "assistant",
            text=text,
            session=1,
            date_time="8 May, 2023",
            index=i,
            first_in_session=i == 0,
        )
        for i, (speaker, text) in enumerate(
            [("Ann", "I adopted a dog named Rex."), ("Bob", "I moved to Lisbon {x}.")]
        )
    )

    def qa(n: int, category: int, question: str, answer: str | None) -> QAItem:
        return QAItem(f"q{n}", question, category, answer, None, ("D1:1",), ("D1:1",))

    return Conversation(
        sample_id="c",
        index=0,
        speaker_a="Ann",
        speaker_b="Bob",
        turns=turns,
        session_dates={1: "8 May, 2023"},
        qa=(
            qa(0, 4, "What is the name of the adopted dog?", "Rex"),
            qa(1, 1, "Where has Bob moved?", "Lisbon"),
            qa(2, 2, "When did Ann adopt a cat?", "June"),
            qa(3, 5, "What did Bob adopt?", None),
        ),
    )


def test_memory_renders_speakers_and_keeps_braces_verbatim() -> None:
    conv = conversation()
    text = render_memory([{"role": "user", "content": "Summary: Ann likes tea."}, *conv.messages()])
    assert text.splitlines() == [
        "Summary: Ann likes tea.",
        "Ann: [8 May, 2023] I adopted a dog named Rex.",
        "Bob: I moved to Lisbon {x}.",
    ]


def test_answers_and_judgements_through_the_client() -> None:
    conv = conversation()
    client = ScriptedLLM()
    judged = answer_and_judge(
        conv, conv.messages(), client=client, answer_model="a", judge_model="j"
    )
    assert [j.qid for j in judged] == ["q0", "q1", "q2"]  # adversarial items are not judged
    assert [j.correct for j in judged] == [True, True, False]
    assert [r.model for r in client.requests] == ["a", "j"] * 3
    answer_request = client.requests[0]
    assert "Lisbon {x}" in answer_request.messages[1]["content"]
    assert answer_request.parameters == {"temperature": 0}
    acc = judge_accuracy(judged)
    assert acc["single-hop"] == 1.0 and acc["temporal"] == 0.0 and acc["open-domain"] is None
    assert acc["all"] == 2 / 3
    assert (
        len(answer_and_judge(conv, [], client=client, answer_model="a", judge_model="j", limit=1))
        == 1
    )


def test_judge_labels() -> None:
    assert parse_label('{"label": "CORRECT"}')
    assert parse_label('Sure: {"label": "correct"}')
    assert not parse_label('{"label": "WRONG"}')
    assert parse_label("CORRECT")
    assert not parse_label("CORRECT? no, WRONG")
    assert not parse_label("")


def test_prompts_are_versioned() -> None:
    refs = prompt_refs()
    assert refs == {"answer": "locomo-answer@1", "judge": "locomo-judge@1"}
