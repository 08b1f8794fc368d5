"""LoCoMo's own per-session summaries of the evicted sessions, then the most recent turns.

``session-summaries``: the summaries are sampled evenly at the budget split of
:func:`evals.baselines.window.fit_summary`. They name no turns, so they carry evidence only by
their text (answer in view, whole-turn retention), never by provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from evals.baselines.window import SUMMARY_HEADER, even_sample, fit_summary
from evals.families.locomo import Conversation
from evals.metrics.evidence import CarriedView, carried_view
from summem.tokens.base import TokenCounter

__all__ = ["session_summaries"]


def session_summaries(
    conv: Conversation, budget_tokens: int, summary_budget: int, counter: TokenCounter
) -> CarriedView:
    """LoCoMo's summaries of the evicted sessions, sampled evenly, then the recent turns."""
    last_turn: dict[int, int] = {}
    for t in conv.turns:
        last_turn[t.session] = t.index

    def candidates(k: int) -> list[object]:
        return [
            (s, conv.session_summaries[s])
            for s in sorted(conv.session_summaries)
            if last_turn.get(s, len(conv.turns)) < k
        ]

    def render(items: Sequence[object]) -> str:
        lines = [SUMMARY_HEADER]
        for item in items:
            session, text = cast("tuple[int, str]", item)
            lines.append(f"[{conv.session_dates.get(session, f'session {session}')}] {text}")
        return "\n".join(lines)

    def pick(pool: Sequence[object], n: int) -> list[object]:
        return [pool[i] for i in even_sample(len(pool), n)]

    k, _chosen, summary = fit_summary(
        conv, budget_tokens, summary_budget, counter, candidates, render, pick
    )
    return carried_view(conv.turns, k, counter, summary_text=summary)
