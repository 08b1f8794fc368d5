"""What a provider's own fields and items weigh in a view: texts sent back, opaque payloads."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

__all__ = ["BYTES_PER_TOKEN", "OPAQUE_KEY", "encrypted_tokens", "opaque_size", "provider_texts"]

OPAQUE_KEY = "opaque_item"
"""The extra holding an opaque item's JSON (``summem.formats.responses.OPAQUE_FIELD``)."""

BYTES_PER_TOKEN = 4
"""Bytes of a compaction's payload per token: the usual ratio of English text to tokens."""


def provider_texts(fields: object) -> list[str]:
    """The texts a provider's fields send back to it: Anthropic compaction blocks' summaries.

    litellm keeps the blocks in ``provider_specific_fields["compaction_blocks"]`` and sends
    them first in the assistant turn; their ``content`` is text the model reads, so a view
    counts it (other provider fields are not sent as text).
    """
    blocks = fields.get("compaction_blocks") if isinstance(fields, dict) else None
    if not isinstance(blocks, list):
        return []
    return [
        b["content"]
        for b in blocks
        if isinstance(b, dict)
        and b.get("type") == "compaction"
        and isinstance(b.get("content"), str)
    ]


def encrypted_tokens(content: str) -> int:
    """The input tokens estimated for an OpenAI compaction item's ``encrypted_content``.

    OpenAI does not document what an item bills (it is opaque until billed). The estimate is
    what it carries: the payload's bytes (the base64 decoded; the encryption's envelope adds a
    few dozen) at :data:`BYTES_PER_TOKEN`, as the same amount of text would count. Counting
    the base64 itself as text overcounts several times over (random base64 is about 1.5
    characters a token under ``o200k_base``, against 4 for English).
    """
    decoded = len(content.rstrip("=")) * 3 // 4
    return math.ceil(decoded / BYTES_PER_TOKEN)


def opaque_size(value: str, count_text: Callable[[str], int]) -> int:
    """Tokens of an opaque item's JSON (:data:`OPAQUE_KEY`), counted by ``count_text``.

    An OpenAI compaction item (alone, or after the window ``/responses/compact`` returned)
    counts its ``encrypted_content`` by :func:`encrypted_tokens` and the rest as text; any other
    opaque item counts as its JSON's text, as before.
    """
    try:
        data = json.loads(value)
    except ValueError:
        return count_text(value)
    items = data if isinstance(data, list) else [data]
    payload = 0
    rest: list[object] = []
    for item in items:
        content = item.get("encrypted_content") if isinstance(item, dict) else None
        if isinstance(item, dict) and item.get("type") == "compaction" and isinstance(content, str):
            payload += encrypted_tokens(content)
            item = {k: v for k, v in item.items() if k != "encrypted_content"}
        rest.append(item)
    if rest == items:  # nothing estimated
        return count_text(value)
    left = rest if isinstance(data, list) else rest[0]
    return payload + count_text(json.dumps(left, sort_keys=True, ensure_ascii=False))
