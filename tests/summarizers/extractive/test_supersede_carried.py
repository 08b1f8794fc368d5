"""A correction stays one across reductions; a new value for the same key marks the older."""

from __future__ import annotations

from typing import Any

from summem._flow import run_sync
from summem.messages import Message, SummaryInfo
from summem.summarizers.base import SummaryOutput, SummaryRequest
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.tokens.base import ApproxCounter


def msg(id: str, content: str, role: str = "user") -> Message:
    return Message.from_openai({"role": role, "content": content}, id=id)


def summarize(messages: list[Message], **kw: Any) -> SummaryOutput:
    request = SummaryRequest(
        messages=messages,
        previous_summary=kw.pop("previous_summary", None),
        max_tokens=kw.pop("max_tokens", 600),
        token_counter=ApproxCounter(),
        **kw,
    )
    return run_sync(ExtractiveSummarizer().summarize(request))


def entry(out: SummaryOutput, needle: str) -> dict[str, Any]:
    lines = out.text.splitlines()
    return next(e for e in out.extra["provenance"] if needle in lines[e["line"]])


def test_a_carried_correction_drops_a_statement_of_what_it_replaced() -> None:
    previous = (
        "- user: Actually my budget is now 2300 pounds.\n"
        "- user: My budget for the new sofa is 1879 pounds, in reply to the sofa list."
    )
    extra = {
        "provenance": [
            {"line": 0, "ids": ["c"], "score": 2.0, "supersedes": ["a"]},
            {"line": 1, "ids": ["a"], "score": 3.0},
        ]
    }
    out = summarize(
        [msg("d", "The plumber comes on 12 May at 9:00.")],
        previous_summary=previous,
        previous_info=SummaryInfo(extra=extra),
    )
    assert "1879" not in out.text and "2300" in out.text and "12 May" in out.text
    kept = entry(out, "2300")
    assert kept["supersedes"] == ["a"]  # still recorded for the round after
    assert kept["score"] >= 3.0  # it ranks as high as what it replaced


def test_a_carried_line_of_other_messages_is_left_alone() -> None:
    previous = "- user: Actually my budget is now 2300 pounds.\n- user: The sofa is grey, 3 seats."
    extra = {
        "provenance": [
            {"line": 0, "ids": ["c"], "score": 2.0, "supersedes": ["a"]},
            {"line": 1, "ids": ["a", "b"], "score": 3.0},  # says more than what was replaced
        ]
    }
    out = summarize(
        [msg("d", "The plumber comes on 12 May at 9:00.")],
        previous_summary=previous,
        previous_info=SummaryInfo(extra=extra),
    )
    assert "2300" in out.text and "3 seats" in out.text


def test_a_new_value_for_the_same_key_marks_the_older_statement() -> None:
    out = summarize(
        [
            msg("a", "Venue deposit has gone up, they now want 4500 pounds."),
            msg("b", "Ouch. Anything else to plan?", "assistant"),
            msg("c", "They knocked the venue deposit down to 3600 pounds."),
        ]
    )
    assert "3600" in out.text
    assert entry(out, "3600")["marks"] == ["a"]


def test_the_stale_statement_is_never_the_only_one_left() -> None:
    messages = [
        msg("a", "Venue deposit has gone up, they now want 4500 pounds."),
        msg("b", "Ouch. Anything else to plan?", "assistant"),
        msg("c", "They knocked the venue deposit down to 3600 pounds."),
    ]
    for budget in (12, 16, 20, 30):
        text = summarize(messages, max_tokens=budget).text
        assert "4500" not in text or "3600" in text, (budget, text)


def test_values_of_other_keys_or_kinds_mark_nothing() -> None:
    out = summarize(
        [
            msg("a", "The kitchen budget is 9000 pounds."),
            msg("b", "The venue deposit is 500 pounds."),
            msg("c", "The venue deposit is due on 3 June, with Ines Baptiste."),
        ]
    )
    assert "9000" in out.text and "500 pounds" in out.text and "3 June" in out.text
    assert not any(e.get("marks") for e in out.extra["provenance"])
