"""What the README says of a weak model: a lone LLMSummarizer may never reduce; a chain does."""

from __future__ import annotations

from summem import ExtractiveSummarizer, FallbackSummarizer, LLMSummarizer
from summem.reducers.summarization import SummarizationReducer
from tests.fakes.llm import FakeLLMClient

WEAK = "I'm sorry, but I can't help with that request."  # rejected by the reply checks
TURNS = [
    {"role": "user" if i % 2 == 0 else "assistant", "content": f"order BW-{i} ships on day {i}"}
    for i in range(12)
]


def reduce(summarizer: LLMSummarizer | FallbackSummarizer) -> bool:
    reducer = SummarizationReducer(
        summarizer,
        threshold_messages=8,
        target_messages=5,
        fail_on_error=False,
    )
    return reducer.reduce(TURNS).reduced


def weak() -> LLMSummarizer:
    return LLMSummarizer("gpt-4o-mini", client=FakeLLMClient().enqueue(*[WEAK] * 50))


def test_a_lone_llm_summarizer_on_a_weak_model_never_reduces() -> None:
    assert not reduce(weak())


def test_ending_its_chain_with_the_extractive_summarizer_reduces() -> None:
    assert reduce(FallbackSummarizer([weak(), ExtractiveSummarizer()]))
