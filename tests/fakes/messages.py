"""Builders for chat-completions dicts in tests: ``u``, ``a``, ``call``, ``res``, ``sys``."""

from __future__ import annotations

from typing import Any


def u(text: str, **kw: Any) -> dict[str, Any]:
    return {"role": "user", "content": text, **kw}


def a(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
        ],
    }


def res(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def sys(text: str = "You are helpful.") -> dict[str, Any]:
    return {"role": "system", "content": text}


def turn(i: int, n_words: int = 8) -> list[dict[str, Any]]:
    """One user turn with a tool round trip and an answer (about 3 * 3 + 2 * n words)."""
    return [
        u(" ".join(f"u{i}w{j}" for j in range(n_words))),
        call(f"c{i}"),
        res(f"c{i}", f"result {i}"),
        a(" ".join(f"a{i}w{j}" for j in range(n_words))),
    ]


def reply(text: str) -> Any:
    """A model's reply as the wrappers record it (``meta`` marks it :data:`MODEL_REPLY`).

    ``record()`` takes such a reply, resent, as proof that a list is the whole conversation;
    an assistant dict written by the caller (``a()``) is no such proof.
    """
    from summem.messages import MODEL_REPLY, Message

    return Message.from_openai(a(text)).with_meta(**{MODEL_REPLY: True})
