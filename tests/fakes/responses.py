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


def text_stream_events(item: dict[str, Any], *, complete: bool = True) -> list[dict[str, Any]]:
    """A streamed message item event by event, as the server sends it (its text in one delta).

    ``output_item.added`` with no content, ``content_part.added``, ``output_text.delta``,
    ``output_text.done``, ``content_part.done``, ``output_item.done``, then (``complete``)
    ``response.completed``.
    """
    part = item["content"][0]
    text = part["text"]
    where = {"item_id": item["id"], "output_index": 0, "content_index": 0}
    empty = {**part, "text": ""}
    body: list[dict[str, Any]] = [
        {"type": "response.created", "response": response([], "in_progress")},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "status": "in_progress", "content": []},
        },
        {"type": "response.content_part.added", **where, "part": empty},
        {"type": "response.output_text.delta", **where, "delta": text, "logprobs": []},
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
    ]
    if complete:
        body.append({"type": "response.completed", "response": response([item])})
    return [{**event, "sequence_number": n} for n, event in enumerate(body)]
