"""Why one memory misses answers another holds: LoCoMo items split by what became of the evidence.

For a method and a reference (by default the even observations, the best baseline at most
budgets), at the end of each conversation: the items whose normalised answer is in the
reference's view and not in the method's (``missed``), and the reverse (``gained``). Each
missed item falls in one of three kinds, by what the method's view did with its evidence turns:

- ``not_carried``: no evidence turn is kept, and the summary's provenance names none of them
  (evicted and not summarized);
- ``cited_answer_lost``: the summary names an evidence turn whose text holds the answer, but
  kept another part of it (the necklace "from my grandma in Sweden" without what it stands
  for);
- ``answer_turn_evicted``: some evidence turn is carried, but not the one holding the answer;
- ``no_literal_evidence``: some evidence turn is carried, but none holds the answer's text
  (the reference's words are a paraphrase, or the answer is spread over several turns), so
  no choice of sentences of those turns could have put it in the view.

``in_window`` counts the missed items whose evidence turns are all among the ones a plain
window of the same budget keeps: the method had them verbatim at some point and evicted them.
These are the figures of evals/README.md, "The 8,000-token gap".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from evals.families.locomo import Conversation
from evals.metrics.evidence import CarriedView
from evals.text import contains_normalized, normalize_text

__all__ = ["MissBreakdown", "miss_breakdown"]


@dataclass(frozen=True)
class MissBreakdown:
    """Items one method misses against a reference, by kind (see the module's docstring)."""

    method: str
    reference: str
    budget_tokens: int
    items: int
    missed: int
    not_carried: int
    cited_answer_lost: int
    answer_turn_evicted: int
    no_literal_evidence: int
    in_window: int
    gained: int

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready row."""
        return asdict(self)


def miss_breakdown(
    conversations: Sequence[Conversation],
    views: Sequence[CarriedView],
    reference: Sequence[CarriedView],
    window: Sequence[CarriedView],
    *,
    method: str,
    reference_name: str,
    budget_tokens: int,
) -> MissBreakdown:
    """Compare ``views`` with ``reference`` (one view per conversation each) item by item.

    ``window`` holds the views of a plain window at the same budget, for ``in_window``. Only
    items with an answer to look for count (adversarial items have none).
    """
    items = missed = not_carried = lost = evicted = no_literal = in_window = gained = 0
    for conv, view, ref, win in zip(conversations, views, reference, window, strict=True):
        seen, ref_seen = normalize_text(view.text), normalize_text(ref.text)
        turns = {t.dia_id: t for t in conv.turns}
        for q in conv.qa:
            answer = q.answer if q.category != 5 else None
            if not answer or not normalize_text(answer):
                continue
            items += 1
            mine, theirs = contains_normalized(seen, answer), contains_normalized(ref_seen, answer)
            if mine and not theirs:
                gained += 1
            if mine or not theirs:
                continue
            missed += 1
            evidence = [e for e in q.evidence if e in turns]
            if evidence and all(e in win.verbatim for e in evidence):
                in_window += 1
            holders = [
                e for e in evidence if contains_normalized(normalize_text(turns[e].text), answer)
            ]
            if not any(e in view.carried for e in evidence):
                not_carried += 1
            elif not holders:
                no_literal += 1
            elif any(e in view.summarized for e in holders):
                lost += 1
            else:
                evicted += 1
    return MissBreakdown(
        method=method,
        reference=reference_name,
        budget_tokens=budget_tokens,
        items=items,
        missed=missed,
        not_carried=not_carried,
        cited_answer_lost=lost,
        answer_turn_evicted=evicted,
        no_literal_evidence=no_literal,
        in_window=in_window,
        gained=gained,
    )
