from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import pytest

from evals.engine.config import EngineConfig, build_reducer
from evals.engine.replay import ReplayState, efficiency, replay
from evals.families.trajectories import generate_trajectory
from summem.messages import MessageLike
from summem.reducers.base import ReduceResult
from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.tokens.base import resolve_counter

COUNTER = resolve_counter(model="gpt-4o")
MESSAGES = generate_trajectory(11, turns=120, facts=10).messages
CONFIG = EngineConfig(threshold_tokens=1500, target_tokens=1100, summary_max_tokens=300)


def reducer(config: EngineConfig = CONFIG) -> SummarizationReducer:
    return build_reducer(config, counter=COUNTER)


def test_blocking_replay_keeps_every_invariant_and_counts_its_cost() -> None:
    seen: list[ReplayState] = []
    trace = replay(MESSAGES, reducer(), on_cycle=seen.append)
    assert trace.violations == ()
    assert len(trace.cycles) >= 10
    assert [s.cycle.number for s in seen] == list(range(1, len(trace.cycles) + 1))
    # the view is [system] + [summary] + history[k:], history is everything, in order
    conversation = [m for m in trace.history if not m.is_system]
    assert [m.id for m in trace.view[2:]] == [m.id for m in conversation[trace.watermark :]]
    assert trace.view[0].is_system and trace.view[1] is trace.summary
    assert len(trace.history) == len(MESSAGES)
    marks = [c.watermark for c in trace.cycles]
    assert marks == sorted(marks) and marks[-1] == trace.watermark
    pairs = zip(trace.cycles, trace.cycles[1:], strict=False)
    assert all(c.watermark_before == p.watermark for p, c in pairs)
    evicted = sum(c.evicted_tokens for c in trace.cycles)
    assert evicted == sum(COUNTER.count_message(m) for m in conversation[: trace.watermark])
    assert trace.max_view_tokens <= CONFIG.threshold_tokens
    assert trace.waited_turns == len(trace.cycles)  # every blocking reduction holds a turn


def test_efficiency_figures_follow_from_the_counts() -> None:
    trace = replay(MESSAGES, reducer())
    eff = efficiency([trace])
    assert eff["cycles"] == len(trace.cycles)
    conv = trace.conversation_tokens
    assert eff["reductions_per_1k"] == pytest.approx(1000 * len(trace.cycles) / conv)
    evicted = sum(c.evicted_tokens for c in trace.cycles)
    assert eff["compression_ratio"] == pytest.approx(evicted / trace.cycles[-1].summary_tokens)
    # the summarizer reads each evicted message once, plus the previous summaries
    assert evicted / conv < eff["summarizer_read_per_token"] < evicted / conv + 1.0
    assert eff["llm_input_per_token"] == 0.0 and eff["llm_calls_per_1k"] == 0.0
    assert 0.0 < eff["prompt_ratio"] < 0.5
    assert eff["violations"] == 0
    both = efficiency([trace, trace])
    assert both["prompt_ratio"] == pytest.approx(eff["prompt_ratio"])
    assert both["cycles"] == 2 * eff["cycles"]


def test_background_reductions_spare_the_turns() -> None:
    soft = dataclasses.replace(CONFIG, soft_threshold_tokens=1300, latency_messages=2)
    blocking = replay(MESSAGES, reducer())
    background = replay(MESSAGES, reducer(soft), latency_messages=2)
    assert background.violations == ()
    assert any(c.background for c in background.cycles)
    assert background.waited_turns < blocking.waited_turns / 4
    assert background.max_view_tokens <= CONFIG.threshold_tokens


def test_a_slow_background_summarizer_makes_turns_wait() -> None:
    soft = dataclasses.replace(CONFIG, soft_threshold_tokens=1400)
    slow = replay(MESSAGES, reducer(soft), latency_messages=40)
    assert slow.violations == ()
    assert slow.waited_turns > 0


class DropsAKeptMessage(SummarizationReducer):
    def reduce(self, messages: Iterable[MessageLike]) -> ReduceResult:
        result = super().reduce(messages)
        if not result.reduced:
            return result
        return dataclasses.replace(result, view=[*result.view[:2], *result.view[3:]])


class NeverReduces(SummarizationReducer):
    def reduce(self, messages: Iterable[MessageLike]) -> ReduceResult:
        result = super().reduce(messages)
        view = list(messages)
        return ReduceResult(view=view, summary=None) if result.reduced else result  # type: ignore[arg-type]


def make(cls: type[SummarizationReducer]) -> SummarizationReducer:
    return cls(
        ExtractiveSummarizer(),
        threshold_tokens=1500,
        target_tokens=1100,
        summary_max_tokens=300,
        token_counter=COUNTER,
    )


def test_the_audit_catches_a_view_that_lost_a_message() -> None:
    trace = replay(MESSAGES, make(DropsAKeptMessage))
    assert any("[system] + [summary] + history[k:]" in v for v in trace.violations)


def test_the_audit_catches_a_blown_budget() -> None:
    trace = replay(MESSAGES[:80], make(NeverReduces))
    assert any("over the threshold" in v for v in trace.violations)


def test_a_single_group_larger_than_the_budget_is_not_a_violation() -> None:
    huge = {"role": "user", "content": "word " * 3000}
    messages = [*MESSAGES[:40], huge, *MESSAGES[40:60]]
    trace = replay(messages, reducer())
    assert trace.violations == ()
    assert trace.max_view_tokens > CONFIG.threshold_tokens
