"""What providers answer, in their own formats: the one place tests build provider payloads.

OpenAI chat completions (whole and streamed as server-sent events), Anthropic messages and
Gemini ``generateContent`` replies, provider error bodies, and helpers that read back what a
client sent through a respx route.
"""

from __future__ import annotations

import json
from typing import Any

OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta/models/{}:generateContent"
OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_MODEL = "anthropic/claude-haiku-4-5"


def openai_completion(
    text: str | None = "A short summary.",
    finish_reason: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    refusal: str | None = None,
    model: str = OPENAI_MODEL,
    usage: tuple[int, int] = (120, 12),
) -> dict[str, Any]:
    """A ``chat.completion`` object; ``finish_reason`` follows the tool calls unless given."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if refusal is not None:
        message["refusal"] = refusal
    if tool_calls:
        message["tool_calls"] = tool_calls
    finish = finish_reason or ("tool_calls" if tool_calls else "stop")
    prompt, completion = usage
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def openai_error(message: str, *, code: str | None = None, type_: str = "invalid_request_error"):
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def sse(chunks: list[dict[str, Any]]) -> bytes:
    """A server-sent-events body: each chunk as ``data:``, then ``[DONE]``."""
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return body.encode()


def chunk(delta: dict[str, Any], finish: str | None = None, usage=None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        out["choices"] = []
        out["usage"] = usage
    return out


def anthropic_message(text: str | None = "A short summary.", stop_reason: str = "end_turn"):
    content = [] if text is None else [{"type": "text", "text": text}]
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 12},
    }


def anthropic_error(type_: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}}


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


def request_json(call: Any) -> dict[str, Any]:
    """The JSON body of a captured respx call."""
    body: dict[str, Any] = json.loads(call.request.content)
    return body


def request_strings(call: Any) -> list[str]:
    """Every string inside a captured request's JSON body."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(request_json(call))
    return found


def request_timeout(call: Any) -> float | None:
    """The read timeout httpx was given for a captured request."""
    timeout = call.request.extensions.get("timeout") or {}
    read = timeout.get("read")
    return float(read) if read is not None else None
