"""pydantic-ai's provider compaction parts meet summem: kept for pydantic-ai, twinned by summem.

A ``ModelResponse`` holding a provider's ``CompactionPart`` (OpenAI: ``content=None`` and the
encrypted item in ``provider_details``) is stored whole and given back to pydantic-ai as it
came (pydantic-ai sends it to its provider only); summem reads none of it and writes the
readable twin of what it stands for.
"""

from __future__ import annotations

import base64
import json

import pytest

pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra (Python 3.11+)")

from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    UserPromptPart,
)

from summem import Memory, SummarizationReducer
from summem.formats.compaction import TWIN_OF
from summem.integrations.pydantic_ai import from_pydantic_ai, to_pydantic_ai

SECRET = base64.b64encode(bytes((i * 41 + 5) % 256 for i in range(2000))).decode()


def test_a_compaction_part_is_kept_for_pydantic_ai_and_twinned() -> None:
    part = CompactionPart(
        None,
        id="cmp_p",
        provider_name="openai",
        provider_details={"encrypted_content": SECRET, "type": "compaction"},
    )
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("My order is A17, code 4411.")]),
        ModelResponse(parts=[TextPart("Noted.")]),
        ModelRequest(parts=[UserPromptPart("And my address is 5 Elm Street.")]),
        ModelResponse(parts=[part, TextPart("Got it.")]),
        ModelRequest(parts=[UserPromptPart("What was my code?")]),
    ]
    memory = Memory(
        "p", reducer=SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000)
    )
    memory.extend(from_pydantic_ai(history))
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_p"
    assert "4411" in twin.text and "binary data" not in twin.text and SECRET[:30] not in twin.text
    # pydantic-ai gets the response back whole, the part as it came
    back = to_pydantic_ai(memory.view())
    dumped = json.loads(ModelMessagesTypeAdapter.dump_json(back))
    parts = [p for m in dumped for p in m["parts"] if p["part_kind"] == "compaction"]
    assert parts and parts[0]["provider_details"]["encrypted_content"] == SECRET
    # a chat view keeps the reply's own text (the part is not in it)
    assert "Got it." in json.dumps(memory.messages())
    assert len(memory.history()) == 5
