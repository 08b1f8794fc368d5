"""Cut text to a token budget, measured with the reducer's own counter.

Shared by the extractive and truncating summarizers. A budget is only ever checked with
``counter.count_text`` on the final string, so the result fits whatever the tokenizer.
"""

from __future__ import annotations

from summem.tokens.base import TokenCounter

__all__ = ["ELLIPSIS", "clip_to_tokens"]

ELLIPSIS = "\u2026"


def clip_to_tokens(text: str, max_tokens: int, counter: TokenCounter) -> str:
    """The longest prefix of ``text`` (cut at a space, marked with ``…``) within ``max_tokens``.

    Returns ``text`` unchanged when it fits, and ``""`` when not even a word fits. Makes
    O(log n) calls to ``counter.count_text``.
    """
    if max_tokens <= 0 or not text:
        return ""
    if counter.count_text(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)  # invariant: a prefix of length lo fits (0 trivially)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count_text(text[:mid].rstrip() + ELLIPSIS) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    cut = text.rfind(" ", 0, lo + 1)
    if cut < lo // 2:
        cut = lo
    for _ in range(64):  # a tokenizer whose count is not monotone in the prefix: step back
        if cut <= 0:
            break
        clipped = text[:cut].rstrip(" ,;:\n") + ELLIPSIS
        if clipped != ELLIPSIS and counter.count_text(clipped) <= max_tokens:
            return clipped
        cut -= 1
    return ""
