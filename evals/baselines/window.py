"""The window baseline, and the budget split every summary baseline fills.

- ``window``: the most recent turns that fit the budget; no summary.

A summary baseline sets ``summary_budget`` tokens aside for a summary of the evicted turns,
fills the rest with recent turns, and gives whatever the summary leaves unused to older turns
(:func:`fit_summary`); it then only says which items may stand for ``turns[:k]``, how to pick
``n`` of them and how to write them as a summary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.families.locomo import Conversation, Turn
from evals.metrics.evidence import CarriedView, carried_view, summary_message, turn_message
from summem.tokens.base import TokenCounter

__all__ = ["SUMMARY_HEADER", "even_sample", "fit_summary", "window_baseline"]

SUMMARY_HEADER = "Summary of the earlier conversation:"


def _window_start(turns: Sequence[Turn], budget: int, counter: TokenCounter, end: int) -> int:
    """Smallest ``k`` such that ``turns[k:end]`` fits ``budget`` tokens (messages only)."""
    used, k = 0, end
    while k > 0:
        cost = counter.count_message(turn_message(turns[k - 1]))
        if used + cost > budget:
            break
        used += cost
        k -= 1
    return k


def window_baseline(
    turns: Sequence[Turn], budget_tokens: int, counter: TokenCounter
) -> CarriedView:
    """The most recent turns that fit ``budget_tokens`` (request overhead included)."""
    k = _window_start(turns, budget_tokens - counter.request_overhead, counter, len(turns))
    return carried_view(turns, k, counter)


def fit_summary(
    conv: Conversation,
    budget_tokens: int,
    summary_budget: int,
    counter: TokenCounter,
    candidates: Callable[[int], Sequence[object]],
    render: Callable[[Sequence[object]], str],
    pick: Callable[[Sequence[object], int], Sequence[object]],
) -> tuple[int, Sequence[object], str | None]:
    """Set ``summary_budget`` aside, fill the rest with recent turns, pick the summary.

    ``candidates(k)`` are the items about ``turns[:k]``; ``pick(pool, n)`` chooses ``n`` of
    them and ``render`` writes them as the summary. The most items that fit are chosen (a
    binary search); whatever the summary leaves unused goes to older turns. Returns the
    evicted span ``k``, the items chosen and the summary's text (``None`` when empty).
    """
    if not 0 <= summary_budget <= budget_tokens:
        raise ValueError(f"need 0 <= summary_budget <= budget_tokens, got {summary_budget}")
    turns = conv.turns
    room = budget_tokens - counter.request_overhead
    k = _window_start(turns, room - summary_budget, counter, len(turns))
    pool = candidates(k)

    def size(n: int) -> int:
        return counter.count_message(summary_message(render(pick(pool, n)))) if n else 0

    lo, hi = 0, len(pool)  # binary search: the most items that fit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if size(mid) <= summary_budget:
            lo = mid
        else:
            hi = mid - 1
    chosen = pick(pool, lo)
    used = size(lo)
    k = _window_start(turns, room - used, counter, len(turns))
    return k, chosen, render(chosen) if chosen else None


def even_sample(n_items: int, n: int) -> list[int]:
    """``n`` indices spread evenly over ``range(n_items)`` (first and last included)."""
    if n <= 0 or n_items <= 0:
        return []
    if n >= n_items:
        return list(range(n_items))
    if n == 1:
        return [n_items - 1]
    return sorted({round(i * (n_items - 1) / (n - 1)) for i in range(n)})
