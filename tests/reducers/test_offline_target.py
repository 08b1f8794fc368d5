"""The offline summarizer's default target sits near the threshold (issue #29): its reductions
cost no model call, so its view stays close to the budget instead of between 3/4 and 1."""

from __future__ import annotations

import statistics

from summem import Memory, SummarizationReducer
from summem.reducers.base import OFFLINE_TARGET_FRACTION, default_target
from summem.summarizers.extractive import ExtractiveSummarizer
from tests.fakes.counters import WordCounter
from tests.fakes.summarizers import FakeSummarizer
from tests.test_loop_guard_ratios import conversation


class ModelSummarizer(FakeSummarizer):
    """A fake that names a model: it spends, like an LLM summarizer."""

    model = "gpt-4o-mini"


def test_the_default_target_is_nine_tenths_offline_and_three_quarters_with_a_model() -> None:
    assert OFFLINE_TARGET_FRACTION == 0.9
    assert default_target(8000) == 6000 and default_target(8000, offline=True) == 7200
    assert default_target(1, offline=True) == 1
    assert SummarizationReducer(threshold_tokens=8000).target == 7200  # extractive by default
    assert SummarizationReducer(ExtractiveSummarizer(), threshold_tokens=2000).target == 1800
    assert SummarizationReducer(ModelSummarizer(), threshold_tokens=8000).target == 6000
    given = SummarizationReducer(threshold_tokens=8000, target_tokens=6000)
    assert given.target == 6000  # a target given is kept
    assert SummarizationReducer(threshold_messages=40).target == 30  # messages: unchanged


def test_an_offline_memory_keeps_its_view_near_the_budget() -> None:
    reducer = SummarizationReducer(
        ExtractiveSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=400,
        summary_max_tokens=100,
    )
    memory = Memory("s", reducer=reducer)
    sizes = []
    for message in conversation(300):
        memory.add(message)
        if memory.summary is not None:
            sizes.append(memory.size)
    assert max(sizes) <= 400
    # between 90 % and the threshold but for the summary's unused room and group edges
    assert statistics.fmean(sizes) >= 0.85 * 400, statistics.fmean(sizes)
