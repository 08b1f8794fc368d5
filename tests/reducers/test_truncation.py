import copy

import pytest

from summem.errors import ConfigurationError
from summem.reducers.truncation import TruncationReducer
from tests.fakes.messages import a, call, res, sys, u


def test_message_window_with_hysteresis() -> None:
    r = TruncationReducer(threshold_messages=6, target_messages=4)
    msgs = [sys(), u("1"), a("1"), u("2"), a("2"), u("3")]
    assert not r.reduce(msgs).reduced  # 6 messages: at the threshold, not over
    msgs.append(a("3"))
    original = copy.deepcopy(msgs)
    result = r.reduce(msgs)
    assert msgs == original
    assert result.reduced
    assert [m["content"] for m in result.messages()] == ["You are helpful.", "2", "3", "3"]
    assert result.tokens_before == 7 and result.tokens_after == 4
    assert [m.text for m in result.evicted] == ["1", "1", "2"]


def test_token_window_keeps_tool_pairs() -> None:
    r = TruncationReducer(threshold_tokens=25, target_tokens=12, token_counter=len)
    # with len every message counts one "token"
    msgs = [u("q"), call("c1", "c2"), res("c1"), res("c2"), a("x"), u("y")] * 5
    for i in range(5):
        msgs[i * 6 + 1] = call(f"c1_{i}", f"c2_{i}")
        msgs[i * 6 + 2] = res(f"c1_{i}")
        msgs[i * 6 + 3] = res(f"c2_{i}")
    out = r.reduce(msgs).messages()
    assert len(out) <= 12
    assert out[0]["role"] != "tool"


def test_async_twin() -> None:
    import asyncio

    r = TruncationReducer(threshold_messages=3, target_messages=2)
    msgs = [u("1"), a("1"), u("2"), a("2")]
    assert asyncio.run(r.areduce(msgs)).messages() == r.reduce(msgs).messages()


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({}, "a budget is required"),
        ({"threshold_tokens": 10, "threshold_messages": 5}, "not both"),
        ({"threshold_tokens": 10, "target_tokens": 10}, "must be smaller"),
        ({"target_tokens": 10}, "threshold_tokens is required"),
        ({"threshold_tokens": -1}, "positive"),
        ({"threshold_tokens": 10, "keep_last_user_turns": -1}, "keep_last_user_turns"),
    ],
)
def test_bad_budgets(kwargs, needle) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        TruncationReducer(**kwargs)


def test_target_defaults_to_three_quarters() -> None:
    assert TruncationReducer(threshold_messages=100).target == 75


def test_a_summary_inside_the_system_message_is_kept_there() -> None:
    # A view rendered with summary_placement="system_suffix", truncated further.
    text = "You are helpful.\n\nSummary of the earlier conversation:\nS"
    head = {"role": "system", "content": text}
    r = TruncationReducer(threshold_messages=5, target_messages=4)
    result = r.reduce([head, u("1"), a("1"), u("2"), a("2"), u("3")])
    assert result.reduced
    assert result.summary is not None and result.summary.text.endswith("\nS")
    out = result.messages()
    assert out[0] == head
    assert [m["role"] for m in out].count("system") == 1
    assert [m["content"] for m in out[1:]] == ["2", "3"]
