"""Delegated compaction under a spend limit, in the background, and what it costs.

OpenAI's ``/responses/compact`` over the real openai SDK on a mocked transport; Claude's
on-demand compaction through the real ``litellm.completion`` mocked at api.anthropic.com.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
import respx

from summem import Memory, SummarizationReducer
from summem.errors import SpendLimitError
from summem.events import MemoryEvent, ReductionCommitted, SpendLimitReached
from summem.formats.compaction import PROVIDER_SUMMARY
from summem.observe.cost import cost_usd
from summem.observe.spend import SpendLimit
from summem.summarizers import AnthropicCompaction, LLMSummarizer, OpenAICompaction
from tests.fakes.llm import FakeLLMClient
from tests.fakes.replies import ANTHROPIC_URL, anthropic_message
from tests.fakes.transport import Recorder
from tests.summarizers.test_anthropic_compaction import BLOCK_TEXT, CLAUDE
from tests.summarizers.test_provider_compaction import Compactor, talk

MODEL = "gpt-4.1"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def test_past_the_spend_limit_the_offline_twin_is_committed_without_calling_openai() -> None:
    """The twin is the fallback for a compaction that cannot happen: a spend limit reached
    (the default twin is offline) commits it alone, as a failed call does, and never asks
    OpenAI."""
    compactor = Compactor()
    events: list[MemoryEvent] = []
    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            OpenAICompaction(Recorder(compactor).client(), model=MODEL),
            threshold_messages=8,
            target_messages=4,
        ),
        spend_limit=SpendLimit(max_tokens=1000),  # one pass (1,020 tokens) spends it
        hooks=[events.append],
    )
    talk(memory, range(12))  # no SpendLimitError reaches the turn
    assert compactor.n == 1
    assert any(isinstance(e, SpendLimitReached) for e in events)
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    assert "spend limit" in held["failed"]
    assert "item" not in held and "A10" in summary.text
    assert len(memory.view()) <= 8
    [first, *rest] = [e for e in events if isinstance(e, ReductionCommitted)]
    assert first.input_tokens == 900 and rest
    assert all(e.input_tokens == 0 and not e.cost_usd for e in rest)  # nothing more spent


def test_past_the_spend_limit_claude_is_not_asked_either() -> None:
    calls: list[httpx.Request] = []

    def claude(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        body: dict[str, Any] = anthropic_message(None, stop_reason="compaction")
        body["content"] = [{"type": "compaction", "content": BLOCK_TEXT}]
        body["usage"] = {"input_tokens": 700, "output_tokens": 90}
        return httpx.Response(200, json=body)

    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            AnthropicCompaction(CLAUDE), threshold_messages=8, target_messages=4
        ),
        spend_limit=SpendLimit(max_tokens=500),  # one pass (790 tokens) spends it
    )
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        talk(memory, range(12))
    assert len(calls) == 1
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    assert "spend limit" in summary.summary_info.extra[PROVIDER_SUMMARY]["failed"]


def test_an_llm_twin_past_the_spend_limit_is_refused_as_any_llm_summarizer() -> None:
    compactor = Compactor()
    twin = LLMSummarizer(
        "gpt-4o-mini",
        client=FakeLLMClient().enqueue(*["Orders A0 to A3 have codes 1000 to 1003."] * 5),
    )
    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            OpenAICompaction(Recorder(compactor).client(), model=MODEL, twin=twin),
            threshold_messages=8,
            target_messages=4,
        ),
        spend_limit=SpendLimit(max_tokens=1000),
    )
    with pytest.raises(SpendLimitError):
        talk(memory, range(12))
    assert compactor.n == 1


def test_claudes_compaction_iterations_are_counted() -> None:
    """Anthropic reports a compaction's usage in ``usage.iterations``: it is counted."""

    def claude(request: httpx.Request) -> httpx.Response:
        body: dict[str, Any] = anthropic_message(None, stop_reason="compaction")
        body["content"] = [{"type": "compaction", "content": BLOCK_TEXT}]
        body["usage"] = {
            "input_tokens": 0,
            "output_tokens": 0,
            "iterations": [{"type": "compaction", "input_tokens": 700, "output_tokens": 90}],
        }
        return httpx.Response(200, json=body)

    events: list[MemoryEvent] = []
    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            AnthropicCompaction(CLAUDE), threshold_messages=8, target_messages=4
        ),
        hooks=[events.append],
    )
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        talk(memory, range(5))
    [committed] = [e for e in events if isinstance(e, ReductionCommitted)]
    assert (committed.input_tokens, committed.output_tokens) == (700, 90)
    assert committed.cost_usd == pytest.approx(cost_usd(CLAUDE, 700, 90)) and committed.cost_usd
    assert memory.usage["summarizer_input_tokens"] == 700


def test_in_the_background_openais_window_stands_for_exactly_what_was_sent() -> None:
    arrived, release = threading.Event(), threading.Event()
    compactor = Compactor()
    bodies: list[Any] = []

    def slow(method: str, path: str, body: Any) -> Any:
        bodies.append(body)
        arrived.set()
        assert release.wait(30)
        return compactor(method, path, body)

    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            OpenAICompaction(Recorder(slow).client(), model=MODEL),
            threshold_messages=12,
            soft_threshold_messages=8,
            target_messages=4,
        ),
        background=True,
    )
    talk(memory, range(5))  # past the soft threshold: the compaction starts, off the turn
    assert arrived.wait(30)
    talk(memory, range(5, 7))  # turns keep arriving while OpenAI compacts
    release.set()
    memory.wait()
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    [body] = bodies
    covered = summary.summary_info.covered_ids
    assert len(body["input"]) == len(covered)
    history = memory.history_messages()
    assert [m.id for m in history[: len(covered)]] == list(covered)
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    items = memory.items()
    after = len(held["window"]) + 1
    assert items[:after] == [*held["window"], held["item"]]
    assert [i["content"] for i in items[after:]] == [m.text for m in history[len(covered) :]]
    assert len(history) == 14
    memory.close()
