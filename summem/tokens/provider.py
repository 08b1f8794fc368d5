"""Texts a provider's own fields send back to it, which a view's size must count."""

from __future__ import annotations

__all__ = ["provider_texts"]


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
