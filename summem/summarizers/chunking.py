"""Splitting a span too large for one summarizer call, at message boundaries.

When the evicted span does not fit the model (its known input limit, a configured
``max_chunk_tokens``, or a context-window error from the provider), the LLM summarizer
summarizes it in rounds, each round folding one chunk into the previous round's summary. These
pure helpers decide the chunks: a span is halved by tokens, preferring a cut that keeps an
assistant's tool calls together with their results, and never inside a message. A single
message still too large is clipped (its head kept, the rest marked as elided) rather than
failing the reduction: the cap halves each time the model rejects it, so it never loops.
"""

from __future__ import annotations

from collections.abc import Sequence

from summem.messages import Message
from summem.summarizers.render import content_text
from summem.tokens.base import TokenCounter

__all__ = [
    "MIN_CLIP_CHARS",
    "clip_for",
    "halve_clip",
    "span_tokens",
    "split_in_half",
    "split_to_budget",
]


def span_tokens(messages: Sequence[Message], counter: TokenCounter) -> int:
    """Tokens of ``messages`` under ``counter`` (cached per message)."""
    return sum(counter.count_message(m) for m in messages)


def split_in_half(
    messages: Sequence[Message], counter: TokenCounter
) -> tuple[list[Message], list[Message]] | None:
    """Two non-empty halves of about equal tokens, or ``None`` for a single message.

    The cut goes before a non-tool message when there is one, so tool results stay with the
    call they answer; otherwise between any two messages.
    """
    n = len(messages)
    if n < 2:
        return None
    prefix = [0]
    for m in messages:
        prefix.append(prefix[-1] + counter.count_message(m))
    half = prefix[-1] / 2
    cuts = [i for i in range(1, n) if messages[i].role != "tool"] or list(range(1, n))
    # Closest to the token midpoint; on a tie, the earlier cut (deterministic).
    best = min(cuts, key=lambda i: (abs(prefix[i] - half), i))
    return list(messages[:best]), list(messages[best:])


def split_to_budget(
    messages: Sequence[Message], counter: TokenCounter, budget: int
) -> list[list[Message]]:
    """Halve ``messages`` until every chunk fits ``budget`` tokens or is a single message.

    Returns the chunks in order; their concatenation is ``messages``.
    """
    chunks: list[list[Message]] = []
    stack: list[list[Message]] = [list(messages)]
    while stack:
        chunk = stack.pop()
        halves = split_in_half(chunk, counter) if span_tokens(chunk, counter) > budget else None
        if halves is None:
            chunks.append(chunk)
        else:
            stack.append(halves[1])
            stack.append(halves[0])
    return chunks


MIN_CLIP_CHARS = 200
"""Below this, clipping a message further would leave nothing worth summarizing."""


def clip_for(chunk: Sequence[Message], counter: TokenCounter, budget: int | None) -> int | None:
    """A character cap for a chunk that is one message over ``budget`` tokens, else ``None``.

    The cap keeps the message's head in proportion to how far over the budget it is.
    """
    if budget is None or len(chunk) != 1:
        return None
    tokens = counter.count_message(chunk[0])
    if tokens <= budget:
        return None
    length = len(content_text(chunk[0]))
    return max(MIN_CLIP_CHARS, length * budget // tokens) if length > MIN_CLIP_CHARS else None


def halve_clip(message: Message, clip: int | None) -> int | None:
    """The next, halved cap for a message the model still rejects; ``None`` when spent."""
    current = len(content_text(message)) if clip is None else clip
    smaller = current // 2
    return smaller if smaller >= MIN_CLIP_CHARS else None
