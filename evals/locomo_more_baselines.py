"""More LoCoMo baselines at the same budget: sampled observations, session summaries, TF-IDF.

Each fills the view the way :func:`evals.locomo_baselines.observation_baseline` does:
``summary_budget`` tokens are set aside for a summary of the evicted turns, recent turns fill
the rest, and whatever the summary leaves unused goes to older turns.

- ``observations-even``: LoCoMo's observations about evicted turns, sampled evenly across the
  evicted span (``observations`` takes the most recent that fit), so early sessions are not
  left out by construction.
- ``session-summaries``: LoCoMo's own per-session summaries of the evicted sessions, sampled
  evenly. They name no turns, so they carry evidence only by their text (answer in view,
  whole-turn retention), never by provenance.
- ``tfidf``: a plain extractive baseline: the evicted turns' sentences ranked by TF-IDF weight
  per token (IDF over the conversation's turns), the best that fit, in conversation order;
  each sentence's turn is its provenance.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import cast

from evals.locomo import Conversation, Turn
from evals.locomo_baselines import (
    SUMMARY_HEADER,
    CarriedView,
    carried_view,
    fit_summary,
    render_observations,
)
from summem.tokens.base import TokenCounter

__all__ = ["even_sample", "observations_even", "session_summaries", "tfidf_baseline"]

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
_WORD_RE = re.compile(r"[a-z0-9']+")


def even_sample(n_items: int, n: int) -> list[int]:
    """``n`` indices spread evenly over ``range(n_items)`` (first and last included)."""
    if n <= 0 or n_items <= 0:
        return []
    if n >= n_items:
        return list(range(n_items))
    if n == 1:
        return [n_items - 1]
    return sorted({round(i * (n_items - 1) / (n - 1)) for i in range(n)})


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


def tfidf_baseline(
    conv: Conversation, budget_tokens: int, summary_budget: int, counter: TokenCounter
) -> CarriedView:
    """The evicted turns' highest TF-IDF sentences that fit, in order, then the recent turns."""
    docs = [Counter(_WORD_RE.findall(t.text.lower())) for t in conv.turns]
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(doc.keys())
    n_docs = len(docs) or 1
    idf = {w: math.log(n_docs / (1 + c)) + 1.0 for w, c in df.items()}
    sentences: list[tuple[float, int, int, str, Turn]] = []
    for turn in conv.turns:
        for j, sentence in enumerate(s for s in _SENTENCE_RE.split(turn.text) if s.strip()):
            words = _WORD_RE.findall(sentence.lower())
            if not words:
                continue
            weight = sum(idf.get(w, 1.0) for w in set(words)) / math.sqrt(len(words) + 4)
            sentences.append((weight, turn.index, j, sentence.strip(), turn))

    def candidates(k: int) -> list[object]:
        pool = [s for s in sentences if s[1] < k]
        pool.sort(key=lambda s: (-s[0], -s[1], s[2]))
        return list(pool)

    def pick(pool: Sequence[object], n: int) -> list[object]:
        return sorted(pool[:n], key=lambda s: (s[1], s[2]))  # type: ignore[index]

    def render(items: Sequence[object]) -> str:
        lines = [SUMMARY_HEADER]
        lines += [f"- {s[4].speaker}: {s[3]}" for s in items]  # type: ignore[index]
        return "\n".join(lines)

    k, chosen, text = fit_summary(
        conv, budget_tokens, summary_budget, counter, candidates, render, pick
    )
    ids = {s[4].dia_id for s in chosen}  # type: ignore[index]
    return carried_view(conv.turns, k, counter, summary_text=text, summary_ids=ids)
