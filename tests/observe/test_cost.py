"""Cost: each summarizer call priced from litellm's bundled price map, offline, per session."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import respx

from summem import LLMSummarizer, Memory
from summem.events import ReductionCommitted, SummarizerCalled
from summem.observe import cost
from summem.observe.cost import PRICE_MAP_FILE, cost_usd, price_per_token
from summem.stores import SQLiteStore
from tests.fakes.memory import small_reducer
from tests.fakes.replies import OPENAI_URL, openai_completion
from tests.observe.harness import Recorder
from tests.observe.test_events import fill

MODEL = "gpt-4o-mini"


def bundled_prices() -> dict[str, Any]:
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations)))
    data: dict[str, Any] = json.loads((folder / PRICE_MAP_FILE).read_text())
    return data


def test_prices_come_from_the_map_litellm_ships() -> None:
    entry = bundled_prices()[MODEL]
    expected = 1000 * entry["input_cost_per_token"] + 100 * entry["output_cost_per_token"]
    assert expected > 0
    assert cost_usd(MODEL, 1000, 100) == pytest.approx(expected)
    assert cost_usd(f"openai/{MODEL}", 1000, 100) == pytest.approx(expected)
    assert cost_usd("no-such-model-anywhere", 1000, 100) == 0.0
    assert price_per_token("no-such-model-anywhere") is None
    assert cost_usd(None, 1000, 100) == 0.0 and cost_usd(MODEL, 0, 0) == 0.0


def test_pricing_neither_imports_litellm_nor_touches_the_network() -> None:
    code = (
        "import sys; from summem.observe.cost import cost_usd; "
        f"assert cost_usd({MODEL!r}, 10, 10) > 0; "
        "assert 'litellm' not in sys.modules, 'litellm imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_missing_or_broken_price_map_prices_at_zero(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def fake_find_spec(name: str, *args: Any) -> Any:
        spec = real(name, *args)
        if name == "litellm" and spec is not None:
            spec = copy.copy(spec)  # the module's own spec when it is imported: never changed
            spec.submodule_search_locations = [str(tmp_path)]
        return spec

    monkeypatch.setattr(importlib.util, "find_spec", fake_find_spec)
    cost._price_map.cache_clear()
    cost.price_per_token.cache_clear()
    try:
        assert cost_usd(MODEL, 10, 10) == 0.0  # not found
        (tmp_path / PRICE_MAP_FILE).write_text("{not json")
        cost._price_map.cache_clear()
        cost.price_per_token.cache_clear()
        assert cost_usd(MODEL, 10, 10) == 0.0  # unreadable
    finally:
        cost._price_map.cache_clear()
        cost.price_per_token.cache_clear()


def llm() -> LLMSummarizer:
    return LLMSummarizer(
        MODEL,
        client=openai.OpenAI(api_key="sk-test"),
        async_client=openai.AsyncOpenAI(api_key="sk-test"),
    )


@respx.mock
async def test_each_call_is_priced_and_summed_into_memory_usage_across_restarts(
    tmp_path: Path,
) -> None:
    route = respx.post(OPENAI_URL).mock(
        return_value=httpx.Response(
            200, json=openai_completion("A short summary.", usage=(120, 12))
        )
    )
    entry = bundled_prices()[MODEL]
    per_call = 120 * entry["input_cost_per_token"] + 12 * entry["output_cost_per_token"]
    rec = Recorder()
    store = SQLiteStore(tmp_path / "c.db")
    memory = Memory("s", reducer=small_reducer(llm()), store=store, hooks=[rec])
    await fill(memory, 30)
    calls = route.call_count
    assert calls >= 3
    committed = rec.of(ReductionCommitted)
    assert [e.cost_usd for e in committed] == pytest.approx([per_call] * calls)
    assert [e.cost_usd for e in rec.of(SummarizerCalled)] == pytest.approx([per_call] * calls)
    usage = memory.usage
    assert usage["summarizer_calls"] == calls
    assert usage["summarizer_input_tokens"] == 120 * calls
    assert usage["summarizer_output_tokens"] == 12 * calls
    assert usage["summarizer_cost_usd"] == pytest.approx(per_call * calls)
    assert memory.summarizer_usage["cost_usd"] == pytest.approx(per_call * calls)
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    assert summary.summary_info.extra["usage"]["cost_usd"] == pytest.approx(per_call)
    memory.close()
    again = Memory("s", reducer=small_reducer(llm()), store=store)
    assert again.usage["summarizer_cost_usd"] == pytest.approx(per_call * calls)  # persisted
    again.close()
    store.close()
