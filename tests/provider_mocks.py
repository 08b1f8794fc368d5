"""respx routes at each provider's real URL that answer in that provider's own format.

The routes capture the request the client really sent (URL, headers, JSON body), so a test can
check what litellm or the openai SDK produced from summem's messages. Unrouted requests fail
(respx's ``assert_all_mocked``), and the conftest network guard backs that up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import respx

__all__ = [
    "ANTHROPIC_URL",
    "GEMINI_URL",
    "OPENAI_URL",
    "Captured",
    "anthropic_reply",
    "gemini_reply",
    "mock_providers",
    "openai_reply",
]

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta/models/{}:generateContent"


def openai_reply(text: str) -> dict[str, Any]:
    """A chat.completion object."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
    }


def anthropic_reply(text: str) -> dict[str, Any]:
    """An Anthropic messages API reply."""
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-3-5-haiku-20241022",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 5},
    }


def gemini_reply(text: str) -> dict[str, Any]:
    """A Gemini generateContent reply."""
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 5, "totalTokenCount": 55},
        "modelVersion": "gemini",
    }


@dataclass
class Captured:
    """The requests the client sent: (provider, request, JSON body), in order."""

    requests: list[tuple[str, httpx.Request, dict[str, Any]]] = field(default_factory=list)

    def last(self) -> tuple[str, httpx.Request, dict[str, Any]]:
        assert self.requests, "nothing was sent"
        return self.requests[-1]


@contextmanager
def mock_providers(
    *, gemini_models: Sequence[str] = ("gemini-2.5-flash",), text: str = "ok from {}"
) -> Iterator[Captured]:
    """Route OpenAI, Anthropic and Gemini; each replies ``text`` with its provider's name."""
    captured = Captured()

    def route(provider: str, body: dict[str, Any]) -> Any:
        def respond(request: httpx.Request) -> httpx.Response:
            captured.requests.append((provider, request, json.loads(request.content)))
            return httpx.Response(200, json=body)

        return respond

    with respx.mock(assert_all_called=False) as router:
        router.post(OPENAI_URL).mock(
            side_effect=route("openai", openai_reply(text.format("openai")))
        )
        router.post(ANTHROPIC_URL).mock(
            side_effect=route("anthropic", anthropic_reply(text.format("anthropic")))
        )
        for model in gemini_models:
            router.post(GEMINI_URL.format(model)).mock(
                side_effect=route("gemini", gemini_reply(text.format("gemini")))
            )
        yield captured
