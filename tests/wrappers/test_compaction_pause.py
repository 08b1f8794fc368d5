"""Claude's threshold compaction with ``pause_after_compaction``: a reply of the block alone.

Claude stops after compacting (``stop_reason: "compaction"``) with one ``compaction`` block and
no text; the caller sends the conversation again to go on. summem stores that reply (its text
empty), and the next request to Claude must carry the block alone in its assistant turn:
litellm turns an empty ``""`` text into a "[System: Empty message content sanitised...]" text
block, which Claude would read as the start of its own reply.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from summem import Memory, SummarizationReducer, wrap_completion
from tests.fakes.replies import ANTHROPIC_URL, anthropic_message
from tests.provider_rules import check_anthropic

CLAUDE = "anthropic/claude-sonnet-4-5"
BLOCK = {"type": "compaction", "content": "The user asked about order A0, code 1000."}
EDITS = {"edits": [{"type": "compact_20260112", "pause_after_compaction": True}]}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def paused() -> dict[str, Any]:
    body: dict[str, Any] = anthropic_message(None, stop_reason="compaction")
    body["content"] = [dict(BLOCK)]
    return body


def test_a_paused_compaction_goes_back_to_claude_as_the_block_alone() -> None:
    import litellm

    bodies: list[dict[str, Any]] = []
    answers = [paused(), anthropic_message("Order A0's code is 1000.")]

    def claude(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=answers.pop(0))

    memory = Memory(
        "s", reducer=SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000)
    )
    memory.add({"role": "user", "content": "Order A0 has code 1000."})
    memory.add({"role": "assistant", "content": "Noted."})
    completion = wrap_completion(litellm.completion, memory)
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        completion(
            model=CLAUDE,
            messages=[{"role": "user", "content": "What was the code?"}],
            context_management=EDITS,
            extra_headers={"anthropic-beta": "compact-2026-01-12"},
        )
        [block] = memory.history()[-1]["provider_specific_fields"]["compaction_blocks"]
        assert block == BLOCK  # stored as it came
        completion(model=CLAUDE, messages=[], context_management=EDITS)  # go on
    sent = bodies[-1]["messages"]
    assert check_anthropic(bodies[-1]) == []
    assert sent[-1] == {"role": "assistant", "content": [BLOCK]}
    assert "sanitised" not in json.dumps(sent)
    for_claude = memory.messages(provider="anthropic")
    assert for_claude[-2]["content"] is None  # the block's turn has no text of its own
    assert memory.messages()[-2]["content"] == ""  # other views: an empty turn, no block
