"""LoCoMo's own observations as the summary, then the most recent turns.

LoCoMo's LLM-written observation facts stand in for a summary at the budget split of
:func:`evals.baselines.window.fit_summary`. Each observation is tagged with its source turns,
so its provenance is exact.

- ``observations``: the most recent observations about evicted turns that fit
  ``summary_budget``;
- ``observations-even``: the same observations sampled evenly across the evicted span, so
  early sessions are not left out by construction.
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.baselines.window import SUMMARY_HEADER, even_sample, fit_summary
from evals.families.locomo import Conversation, Observation
from evals.metrics.evidence import CarriedView, carried_view
from summem.tokens.base import TokenCounter

__all__ = ["observation_baseline", "observations_even", "render_observations"]


def render_observations(conv: Conversation, observations: Sequence[Observation]) -> str:
    """Observations as a summary: grouped under their session's date, oldest first."""
    lines = [SUMMARY_HEADER]
    session = None
    for obs in observations:
        if obs.session != session:
            session = obs.session
            lines.append(f"[{conv.session_dates.get(session, f'session {session}')}]")
        lines.append(f"- {obs.text}")
    return "\n".join(lines)


def observation_baseline(
    conv: Conversation, budget_tokens: int, summary_budget: int, counter: TokenCounter
) -> CarriedView:
    """LoCoMo's observations as the summary, then the most recent turns.

    ``summary_budget`` tokens are set aside for the summary and the rest filled with recent
    turns, which fixes the evicted span ``turns[:k]``. The summary is the longest run of the
    most recent observations about evicted turns that fits ``summary_budget``; whatever it
    leaves unused goes to older turns.
    """
    position = {t.dia_id: t.index for t in conv.turns}

    def candidates(k: int) -> list[object]:
        return [
            o for o in conv.observations if o.dia_ids and max(position[d] for d in o.dia_ids) < k
        ]

    k, chosen, text = fit_summary(
        conv,
        budget_tokens,
        summary_budget,
        counter,
        candidates,
        lambda items: render_observations(conv, items),  # type: ignore[arg-type]
        lambda pool, n: pool[len(pool) - n :],
    )
    ids = {d for o in chosen for d in o.dia_ids}  # type: ignore[attr-defined]
    return carried_view(conv.turns, k, counter, summary_text=text, summary_ids=ids)


def observations_even(
    conv: Conversation, budget_tokens: int, summary_budget: int, counter: TokenCounter
) -> CarriedView:
    """LoCoMo's observations about evicted turns, sampled evenly, then the recent turns."""
    position = {t.dia_id: t.index for t in conv.turns}

    def candidates(k: int) -> list[object]:
        return [
            o for o in conv.observations if o.dia_ids and max(position[d] for d in o.dia_ids) < k
        ]

    def pick(pool: Sequence[object], n: int) -> list[object]:
        return [pool[i] for i in even_sample(len(pool), n)]

    k, chosen, text = fit_summary(
        conv,
        budget_tokens,
        summary_budget,
        counter,
        candidates,
        lambda items: render_observations(conv, items),  # type: ignore[arg-type]
        pick,
    )
    ids = {d for o in chosen for d in o.dia_ids}  # type: ignore[attr-defined]
    return carried_view(conv.turns, k, counter, summary_text=text, summary_ids=ids)
