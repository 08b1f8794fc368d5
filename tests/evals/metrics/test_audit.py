"""The provenance check every replay runs: evidence retention trusts the summary's sources."""

from __future__ import annotations

from typing import Any

from evals.engine.config import EngineConfig, build_reducer
from evals.engine.replay import replay
from evals.families.trajectories import generate_trajectory
from evals.metrics.audit import provenance_problems
from summem.messages import Message, SummaryInfo, parse_message
from summem.tokens.base import resolve_counter


def sources() -> dict[str, Message]:
    a = parse_message({"role": "user", "content": "My order BW-58214-K arrived damaged on Monday."})
    b = parse_message(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "refund", "arguments": '{"amount": 129.5}'},
                }
            ],
        }
    )
    return {a.id: a, b.id: b}


def summary(lines: list[str], entries: list[dict[str, Any]]) -> tuple[Message, str]:
    info = SummaryInfo(extra={"provenance": entries})
    body = "\n".join(lines)
    return parse_message({"role": "user", "content": body}).as_summary(info), body


def test_honest_lines_pass_tool_calls_included() -> None:
    src = sources()
    a, b = list(src)
    s, body = summary(
        ["- user: order BW-58214-K arrived damaged", "- assistant called refund(amount=129.5)"],
        [{"line": 0, "ids": [a]}, {"line": 1, "ids": [b]}],
    )
    assert provenance_problems(s, body, src) == []


def test_a_misattributed_line_is_a_violation() -> None:
    src = sources()
    a, b = list(src)
    s, body = summary(
        ["- user: order BW-58214-K arrived damaged", "- user prefers email on Fridays"],
        [{"line": 0, "ids": [a]}, {"line": 1, "ids": [b]}],
    )
    (problem,) = provenance_problems(s, body, src)
    assert problem.startswith("summary line 1 cites") and "misattributed" in problem


def test_a_line_or_message_that_does_not_exist_is_a_violation() -> None:
    src = sources()
    a = next(iter(src))
    s, body = summary(["- a line"], [{"line": 3, "ids": [a]}, {"line": 0, "ids": ["nobody"]}])
    assert len(provenance_problems(s, body, src)) == 2


def test_summaries_without_provenance_are_not_checked() -> None:
    s = parse_message({"role": "user", "content": "free text"}).as_summary(SummaryInfo())
    assert provenance_problems(s, "free text", sources()) == []


def test_every_cycle_of_an_extractive_replay_has_honest_provenance() -> None:
    config = EngineConfig(1500, 1100, 300)
    reducer = build_reducer(config, counter=resolve_counter(model="gpt-4o"))
    trace = replay(generate_trajectory(4, turns=120).messages, reducer)
    assert len(trace.cycles) >= 5
    assert trace.violations == ()


def test_lines_in_other_scripts_are_checked_by_their_own_words() -> None:
    """A Hindi or Chinese line has words too: only the speaker's label was read before."""
    hindi = parse_message({"role": "assistant", "content": "कुल कीमत ₹४,२५० है ।"})
    chinese = parse_message({"role": "user", "content": "会议改到三月二十日 下午 三点"})
    src = {hindi.id: hindi, chinese.id: chinese}
    s, body = summary(
        ["- assistant: कुल कीमत ₹४,२५० है ।", "- user: 会议改到三月二十日 下午 三点"],
        [{"line": 0, "ids": [hindi.id]}, {"line": 1, "ids": [chinese.id]}],
    )
    assert provenance_problems(s, body, src) == []
    swapped, body = summary(
        ["- assistant: कुल कीमत ₹४,२५० है ।", "- user: 会议改到三月二十日 下午 三点"],
        [{"line": 0, "ids": [chinese.id]}, {"line": 1, "ids": [hindi.id]}],
    )
    assert len(provenance_problems(swapped, body, src)) == 2
