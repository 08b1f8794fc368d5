"""Deterministic token counters and text builders for budget tests (no tokenizer)."""

from __future__ import annotations

from summem.messages import Message


class WordCounter:
    """Deterministic counter: words + 3 per message (+1 per tool call); no tokenizer."""

    key = "words"
    request_overhead = 0

    def count_text(self, text: str) -> int:
        return len(text.split())

    def count_message(self, message: Message) -> int:
        cached = message.token_cache.get(self.key)
        if cached is None:
            cached = 3 + self.count_text(message.text) + 2 * len(message.tool_calls or ())
            message.token_cache[self.key] = cached
        return cached


def words(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))
