"""A deterministic long assistant conversation with tool calls, for benchmarks.

Every fourth turn calls a tool (sometimes two in parallel, results in reverse order); the rest
are user questions and assistant answers of varying length. Seeded, so runs compare.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["conversation"]

_WORDS = [
    "order",
    "delivery",
    "refund",
    "address",
    "invoice",
    "account",
    "shipping",
    "warehouse",
    "tracking",
    "parcel",
    "customer",
    "support",
    "ticket",
    "weekday",
    "morning",
    "evening",
    "tuesday",
    "payment",
    "card",
    "balance",
    "discount",
    "voucher",
    "size",
    "colour",
    "return",
    "label",
    "courier",
    "postcode",
    "city",
    "street",
    "number",
    "update",
    "status",
    "confirm",
    "cancel",
]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n)).capitalize() + "."


def conversation(n_messages: int, *, seed: int = 7, scale: int = 1) -> list[dict[str, Any]]:
    """``n_messages`` chat-completions dicts (a system message first).

    ``scale`` multiplies the length of every text and gives each tool result that many
    sentences of notes (``scale=1``: short messages, about 25 tokens on average).
    """
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a support assistant."}]
    turn = 0
    while len(out) < n_messages:
        turn += 1
        out.append({"role": "user", "content": _sentence(rng, scale * rng.randint(6, 40))})
        if turn % 4 == 0:
            n_calls = 2 if turn % 8 == 0 else 1
            ids = [f"call_{turn}_{i}" for i in range(n_calls)]
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {
                                "name": "lookup_order",
                                "arguments": json.dumps({"order_id": f"A{turn}{i}"}),
                            },
                        }
                        for i, cid in enumerate(ids)
                    ],
                }
            )
            for i, cid in reversed(list(enumerate(ids))):
                result: dict[str, Any] = {
                    "order_id": f"A{turn}{i}",
                    "status": rng.choice(_WORDS),
                    "eta_days": i,
                }
                if scale > 1:
                    result["notes"] = [_sentence(rng, rng.randint(5, 30)) for _ in range(scale)]
                out.append({"role": "tool", "tool_call_id": cid, "content": json.dumps(result)})
        out.append({"role": "assistant", "content": _sentence(rng, scale * rng.randint(10, 80))})
    return out[:n_messages] if _complete(out[:n_messages]) else out


def _complete(messages: list[dict[str, Any]]) -> bool:
    """True when no tool call at the end is left without its results."""
    last = messages[-1]
    return not last.get("tool_calls")
