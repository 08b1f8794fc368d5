"""The cache-reusing summarizer against llama.cpp's server: the view resent, then reused.

The server keeps the last prompt's KV cache and evaluates only what follows the longest prefix
it shares with the new prompt; with its log (``SUMMEM_LIVE_SERVER_LOG``, set by
``scripts/live-local``), the prefix reuse of each request is printed as a figure.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from summem import (
    ExtractiveSummarizer,
    FallbackSummarizer,
    LLMSummarizer,
    Memory,
    RetryPolicy,
    SummarizationReducer,
    wrap_openai,
)
from summem.summarizers.sent import STOP
from tests.fakes.memory import check_session
from tests.fakes.transport import SDK_HTTP
from tests.live_local.conftest import REQUEST_TIMEOUT

pytestmark = pytest.mark.live_local

SYSTEM = {"role": "system", "content": "You are a shopping assistant. Answer in one sentence."}


def test_the_summarizer_resends_the_view_the_server_just_evaluated(
    live_base_url: str, live_model: str
) -> None:
    import openai

    bodies: list[dict[str, Any]] = []

    def keep(request: Any) -> None:
        if request.method == "POST":
            bodies.append(json.loads(request.content))

    http = SDK_HTTP.Client(event_hooks={"request": [keep]}, timeout=REQUEST_TIMEOUT)
    client = openai.OpenAI(base_url=live_base_url, api_key="sk-no-key-needed", http_client=http)
    llm = LLMSummarizer(
        live_model,
        client=client,
        retry=RetryPolicy(max_attempts=2, deadline_seconds=300),
        reuse_cache=True,
    )
    reducer = SummarizationReducer(
        FallbackSummarizer([llm, ExtractiveSummarizer()]),
        threshold_tokens=400,
        target_tokens=250,
        summary_max_tokens=80,
    )
    memory = Memory("live-reuse", reducer=reducer)
    wrapped: Any = wrap_openai(client, memory)
    try:
        for i in range(14):
            messages = [SYSTEM] if i == 0 else []
            messages.append(
                {
                    "role": "user",
                    "content": f"My order BW-{i}00 was due on day {i} and it is late again. "
                    f"I live in Bergen and I pay by card. Question {i}: why is it late?",
                }
            )
            wrapped.chat.completions.create(model=live_model, messages=messages, max_tokens=30)
    finally:
        http.close()
    reused = [i for i, b in enumerate(bodies) if str(b["messages"][-1]["content"]).startswith(STOP)]
    assert reused, "a reduction sent the assistant's request again"
    for i in reused:
        before = next(
            b for b in reversed(bodies[:i]) if not b["messages"][-1]["content"].startswith(STOP)
        )
        assert bodies[i]["messages"][:-1] == before["messages"]  # byte for byte, then the ask
        assert bodies[i]["model"] == before["model"] == live_model
    for summary in memory.summaries():  # the model's own summary, or the fallback's
        info = summary.summary_info
        assert info is not None
        assert info.summarizer in (f"llm:{live_model}", "extractive")
        if info.summarizer != "extractive":
            assert info.extra["cache_reuse"] is True
    check_session(memory.store, "live-reuse", memory.view())
    log = os.environ.get("SUMMEM_LIVE_SERVER_LOG")
    if log and Path(log).is_file():
        hits = re.findall(
            r"(\d+) prefix-match hit, remaining (\d+) prompt tokens", Path(log).read_text()
        )
        print(f"\nserver prefix reuse, (reused, evaluated) per request: {hits[-len(bodies) :]}")
