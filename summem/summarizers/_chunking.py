"""Splitting a span too large for one summarizer call, at message boundaries.

When the evicted span does not fit the model (its known input limit, a configured
``max_chunk_tokens``, or a context-window error from the provider), the LLM summarizer
summarizes it in rounds, each round folding one chunk into the previous round's summary. These
pure helpers decide the chunks: a span is halved by tokens, preferring a cut that keeps an
assistant's tool calls together with their results, and never inside a message.
"""

from __future__ import annotations

from collections.abc import Sequence

from summem.messages import Message
from summem.tokens import TokenCounter

__all__ = ["span_tokens", "split_in_half", "split_to_budget"]


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
