"""No provider item reaches a summary, or an LLM summarizer's prompt, from the integrations.

The real Agents SDK's ``EncryptedSession`` over ``SummemSession`` (every item an encrypted
envelope summem cannot read), and pydantic-ai's ``CompactionPart`` (OpenAI's encrypted item,
Claude's block) through ``from_pydantic_ai``: summarized by the offline extractive summarizer
and by an LLM summarizer whose requests are recorded.
"""

from __future__ import annotations

import base64
import json
from typing import Any, cast

import pytest

from summem import Memory, SummarizationReducer
from summem.clients.base import ChatRequest, ChatResponse
from summem.summarizers import ExtractiveSummarizer, LLMSummarizer

SECRET = base64.b64encode(bytes((i * 43 + 9) % 256 for i in range(2400))).decode()


class Recording:
    """An LLM client answering every request with one summary, keeping the requests."""

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return ChatResponse(text="The user gave order codes, A1 is 1001.", finish_reason="stop")

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        return self.complete(request)

    def max_input_tokens(self, model: str) -> int | None:
        return 128_000

    def prompts(self) -> str:
        return json.dumps([r.messages for r in self.requests])


def summarizer(kind: str) -> tuple[Any, Recording | None]:
    if kind == "extractive":
        return ExtractiveSummarizer(), None
    client = Recording()
    return LLMSummarizer("gpt-4o-mini", client=client), client


@pytest.mark.parametrize("kind", ["extractive", "llm"])
async def test_encrypted_session_items_are_never_summarized(kind: str) -> None:
    pytest.importorskip("cryptography")
    from agents.extensions.memory.encrypt_session import EncryptedSession

    from summem.integrations.agents import SummemSession

    summarize, client = summarizer(kind)
    inner = SummemSession(
        "s", reducer=SummarizationReducer(summarize, threshold_tokens=1500, target_tokens=800)
    )
    session = EncryptedSession("s", cast("Any", inner), encryption_key="k" * 43)
    for n in range(14):
        await session.add_items(
            [
                {"role": "user", "content": f"question {n}: the code of order A{n}? " + "x " * 60},
                {
                    "type": "message",
                    "role": "assistant",
                    "id": f"msg_{n}",
                    "status": "completed",
                    "content": [
                        {"type": "output_text", "text": f"A{n}: {1000 + n}.", "annotations": []}
                    ],
                },
            ]
        )
    stored = json.dumps(await inner.memory.history())
    assert "__enc__" in stored  # what summem holds is the SDK's envelopes
    summary = inner.memory.summary
    assert summary is not None
    assert "binary data" not in summary.text and "gAAAA" not in summary.text
    if client is not None:
        assert client.requests and "binary data" not in client.prompts()
        assert "gAAAA" not in client.prompts()  # no Fernet token either
    back: Any = await session.get_items()
    assert back[-1]["content"][0]["text"] == "A13: 1013."  # the SDK reads its items back


@pytest.mark.parametrize("kind", ["extractive", "llm"])
def test_pydantic_ai_compaction_parts_are_never_summarized(kind: str) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.messages import (
        CompactionPart,
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        UserPromptPart,
    )

    from summem.integrations.pydantic_ai import from_pydantic_ai

    openai_part = CompactionPart(
        None,
        id="cmp_p",
        provider_name="openai",
        provider_details={"encrypted_content": SECRET, "type": "compaction"},
    )
    history: list[ModelMessage] = []
    for n in range(30):
        history.append(ModelRequest(parts=[UserPromptPart(f"Order A{n}: its code? " + "y " * 60)]))
        parts: list[Any] = [TextPart(f"A{n} is {1000 + n}.")]
        if n == 3:
            parts.insert(0, openai_part)
        history.append(ModelResponse(parts=parts))
    summarize, client = summarizer(kind)
    memory = Memory(
        "p", reducer=SummarizationReducer(summarize, threshold_tokens=1500, target_tokens=800)
    )
    for message in from_pydantic_ai(history):
        memory.add(message)
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    [carrier] = [m for m in memory.history_messages() if SECRET in json.dumps(m.meta)]
    assert carrier.id not in {m.id for m in memory.view()}  # the part was summarized past
    assert "binary data" not in summary.text and SECRET[:40] not in summary.text
    if client is not None:
        assert "binary data" not in client.prompts() and SECRET[:40] not in client.prompts()
