"""Property tests: random histories through the reducers, invariants checked on every view.

Histories mix plain turns, parallel tool calls (results in any order, sometimes late with a
message in between), pending calls, system message changes and oversized messages. After every
appended message the reducer runs and the produced view must satisfy I2 (view = system +
summary + history[k:], k never backwards), I3 (no tool result without its call, no call
without its arrived results), the target budget whenever it is reachable (and the smallest
such cut), and every evicted message must have reached the summarizer exactly once, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from summem.messages import Message, parse_message
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from tests.fakes.counters import WordCounter, words
from tests.fakes.summarizers import FakeSummarizer

SETTINGS = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass
class Options:
    unit: str
    threshold: int
    target: int
    keep_last_user_turns: int
    cut_before_user: bool


@st.composite
def options(draw: st.DrawFn) -> Options:
    unit = draw(st.sampled_from(["tokens", "messages"]))
    if unit == "tokens":
        threshold = draw(st.integers(60, 220))
        target = draw(st.integers(30, threshold - 5))
    else:
        threshold = draw(st.integers(6, 20))
        target = draw(st.integers(3, threshold - 1))
    return Options(
        unit,
        threshold,
        target,
        draw(st.sampled_from([0, 0, 1, 2])),
        draw(st.booleans()),
    )


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    n_events = draw(st.integers(1, 30))
    call_no = 0
    for _ in range(n_events):
        kind = draw(st.sampled_from(["user", "user", "assistant", "calls", "system", "oversized"]))
        if kind == "user":
            out.append({"role": "user", "content": words(draw(st.integers(1, 25)), "u")})
        elif kind == "assistant":
            out.append({"role": "assistant", "content": words(draw(st.integers(1, 25)), "a")})
        elif kind == "oversized":
            role = draw(st.sampled_from(["user", "assistant"]))
            out.append({"role": role, "content": words(draw(st.integers(150, 400)), "big")})
        elif kind == "system":
            variant = draw(st.integers(0, 2))
            out.append({"role": "system", "content": f"system prompt {variant}"})
        else:
            n = draw(st.integers(1, 3))
            ids = [f"c{call_no}_{j}" for j in range(n)]
            call_no += 1
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                        for i in ids
                    ],
                }
            )
            order = draw(st.permutations(ids))
            late = draw(st.booleans()) and n > 1
            for j, cid in enumerate(order):
                if late and j == 1:
                    out.append({"role": "user", "content": "still there?"})
                text = words(draw(st.integers(1, 40)), "r")
                out.append({"role": "tool", "tool_call_id": cid, "content": text})
    if draw(st.booleans()):  # a pending call at the end, results not arrived yet
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "pending",
                        "type": "function",
                        "function": {"name": "f", "arguments": "1"},
                    }
                ],
            }
        )
    return out


def _valid_cuts(tail: list[Message], opts: Options) -> list[int]:
    """Naive oracle: every cut the rules allow, by definition, O(n^2)."""
    n = len(tail)
    last_users = [i for i, m in enumerate(tail) if m.role == "user"]
    cuts = []
    for i in range(1, n):
        ok = True
        for j in range(i):
            for cid in tail[j].tool_call_ids:
                answered = [k for k in range(n) if tail[k].tool_call_id == cid]
                if not answered or max(answered) >= i:
                    ok = False
        n_keep = opts.keep_last_user_turns
        if n_keep and last_users and i > last_users[-min(n_keep, len(last_users))]:
            ok = False
        if opts.cut_before_user and tail[i].role != "user":
            ok = False
        if ok:
            cuts.append(i)
    return cuts


def _budget_kwargs(opts: Options) -> dict[str, Any]:
    return {
        f"threshold_{opts.unit}": opts.threshold,
        f"target_{opts.unit}": opts.target,
        "keep_last_user_turns": opts.keep_last_user_turns,
        "cut_before_user": opts.cut_before_user,
    }


@SETTINGS
@given(opts=options(), history=histories())
def test_summarization_invariants(opts: Options, history: list[dict[str, Any]]) -> None:
    fake = FakeSummarizer()
    kwargs = _budget_kwargs(opts)
    if opts.unit == "tokens":
        kwargs["summary_max_tokens"] = min(8, opts.target - 1)
    reducer = SummarizationReducer(fake, token_counter=WordCounter(), **kwargs)
    view: list[Message] = []
    accepted: list[Message] = []
    system: Message | None = None
    watermark = 0
    for raw in history:
        msg = parse_message(raw)
        if msg.is_system:
            if system is None or not system.same_content(msg):
                system = msg
        else:
            accepted.append(msg)
        parts_before = [*view, msg]
        tail_before = [m for m in parts_before if not m.is_system and not m.is_summary]
        result = reducer.reduce(parts_before)
        view = result.view

        # I2: [system] + [summary]? + history[k:], k never backwards.
        summary = result.summary
        k = summary.summary_info.watermark if summary and summary.summary_info else 0
        assert k >= watermark
        watermark = k
        expected = ([system] if system else []) + ([summary] if summary else []) + accepted[k:]
        assert [m.id for m in view] == [m.id for m in expected]
        # Every evicted message reached the summarizer exactly once, in order.
        assert [m.id for m in fake.seen] == [m.id for m in accepted[:k]]
        # I3: no tool result without its call in the view.
        tail = accepted[k:]
        calls_in_view = {cid for m in tail for cid in m.tool_call_ids}
        assert all(m.tool_call_id in calls_in_view for m in tail if m.role == "tool")
        # Budget: over the threshold, the smallest fitting allowed cut, or the largest allowed.
        if result.tokens_before <= opts.threshold:
            assert not result.reduced
            continue
        cuts = _valid_cuts(tail_before, opts)
        if not cuts:
            assert not result.reduced
            continue
        sizes = [reducer.size(m) for m in tail_before]
        fixed = reducer.head_size(system, None) + reducer.summary_reserve()
        fitting = [c for c in cuts if fixed + sum(sizes[c:]) <= opts.target]
        chosen = len(result.evicted)
        if fitting:
            assert chosen == fitting[0]
            assert result.tokens_after <= opts.target
        else:
            assert chosen == cuts[-1]


@SETTINGS
@given(opts=options(), history=histories())
def test_truncation_invariants(opts: Options, history: list[dict[str, Any]]) -> None:
    reducer = TruncationReducer(token_counter=WordCounter(), **_budget_kwargs(opts))
    view: list[Message] = []
    accepted: list[Message] = []
    dropped = 0
    for raw in history:
        msg = parse_message(raw)
        if not msg.is_system:
            accepted.append(msg)
        tail_before = [m for m in [*view, msg] if not m.is_system]
        result = reducer.reduce([*view, msg])
        view = result.view
        dropped += len(result.evicted)
        tail = [m for m in view if not m.is_system]
        assert [m.id for m in tail] == [m.id for m in accepted[dropped:]]
        calls = {cid for m in tail for cid in m.tool_call_ids}
        assert all(m.tool_call_id in calls for m in tail if m.role == "tool")
        assert sum(m.is_system for m in view) <= 1
        if result.reduced:
            cuts = _valid_cuts(tail_before, opts)
            assert len(result.evicted) in cuts
            sizes = [reducer.size(m) for m in tail_before]
            head = result.tokens_before - sum(sizes)
            if any(head + sum(sizes[c:]) <= opts.target for c in cuts):
                assert result.tokens_after <= opts.target
