"""A plain extractive baseline: the evicted turns' best TF-IDF sentences, then recent turns.

``tfidf``: the evicted turns' sentences ranked by TF-IDF weight per token (IDF over the
conversation's turns), the best that fit the budget split of
:func:`evals.baselines.window.fit_summary`, in conversation order; each sentence's turn is its
provenance.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from evals.baselines.window import SUMMARY_HEADER, fit_summary
from evals.families.locomo import Conversation, Turn
from evals.metrics.evidence import CarriedView, carried_view
from summem.tokens.base import TokenCounter

__all__ = ["tfidf_baseline"]

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
_WORD_RE = re.compile(r"[a-z0-9']+")


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
