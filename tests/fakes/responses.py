"""Responses API bodies, as the server sends them."""

from __future__ import annotations

from typing import Any

USAGE = {
    "input_tokens": 20,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 25,
}


def text_item(text: str, n: int = 1) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_{n}",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def call_item(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def reasoning_item(n: int = 1) -> dict[str, Any]:
    return {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": "gAAAAenc"}


def response(output: list[dict[str, Any]], status: str = "completed", n: int = 1) -> dict[str, Any]:
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 1700000000,
        "status": status,
        "model": "gpt-4.1-mini",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": USAGE,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "temperature": 1.0,
        "top_p": 1.0,
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
    }


def stream_events(output: list[dict[str, Any]], *, complete: bool = True) -> list[dict[str, Any]]:
    """The events of a streamed response (created, one text delta, output items, completed)."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": response([], "in_progress")}
    ]
    for i, item in enumerate(output):
        events.append(
            {
                "type": "response.output_item.added",
                "sequence_number": len(events),
                "output_index": i,
                "item": item,
            }
        )
        events.append(
            {
                "type": "response.output_item.done",
                "sequence_number": len(events),
                "output_index": i,
                "item": item,
            }
        )
    if complete:
        events.append(
            {
                "type": "response.completed",
                "sequence_number": len(events),
                "response": response(output),
            }
        )
    return events
