"""Fact retention: whether a memory view still carries each planted fact.

Each planted fact's value occurs in exactly one message (:mod:`evals.families.facts`), so
retention is a string check rather than a model's judgement: the value is verbatim in a kept
message, or the summary holds it in one of its accepted surface forms (``"14 March 2025"``,
``"March 14, 2025"``, ``"2025-03-14"``), or it is lost. This module is what a replay of summem's
engine calls after every reduction cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evals.families.facts import ALL_KINDS, PlantedFact, message_text
from evals.text import contains_normalized, normalize_text
from summem.messages import Message

__all__ = ["FactRetention", "Presence", "fact_present", "fact_retention"]

Presence = Literal["verbatim", "summary", False]


def fact_present(
    fact: PlantedFact,
    view_messages: Iterable[Message | Mapping[str, Any]],
    summary_text: str | None,
) -> Presence:
    """Whether the view still carries ``fact``.

    Args:
        fact: the planted fact.
        view_messages: the view as sent to the model. It may include the summary message: a
            :class:`Message` marked as a summary, or any message whose text is ``summary_text``,
            is judged as the summary, not as a kept turn.
        summary_text: the summary's text, if there is one.

    Returns:
        ``"verbatim"`` when a kept message holds the exact value; ``"summary"`` when the summary
        holds the value or one of its aliases (case, punctuation and spacing ignored); else
        ``False``.
    """
    for message in view_messages:
        if isinstance(message, Message) and message.is_summary:
            continue
        text = message_text(message)
        if summary_text is not None and text == summary_text:
            continue
        if fact.value in text:
            return "verbatim"
    if summary_text:
        norm = normalize_text(summary_text)
        if any(contains_normalized(norm, form) for form in (fact.value, *fact.aliases)):
            return "summary"
    return False


@dataclass(frozen=True)
class FactRetention:
    """How many planted facts a view carries.

    Attributes:
        total: facts asked about.
        verbatim: carried by kept messages.
        summary: carried by the summary only.
        by_kind: ``kind -> (kept, total)``.
        missing: ids of the facts lost.
    """

    total: int
    verbatim: int
    summary: int
    by_kind: dict[str, tuple[int, int]]
    missing: tuple[str, ...]

    @property
    def kept(self) -> int:
        """Facts carried one way or the other."""
        return self.verbatim + self.summary

    @property
    def share(self) -> float:
        """Share of facts carried (1.0 when none were asked about)."""
        return self.kept / self.total if self.total else 1.0


def fact_retention(
    facts: Sequence[PlantedFact],
    view_messages: Sequence[Message | Mapping[str, Any]],
    summary_text: str | None,
) -> FactRetention:
    """Check every fact in ``facts`` against one view (see :func:`fact_present`)."""
    verbatim = summary = 0
    by_kind: dict[str, list[int]] = {k: [0, 0] for k in ALL_KINDS}
    missing: list[str] = []
    for fact in facts:
        found = fact_present(fact, view_messages, summary_text)
        by_kind[fact.kind][1] += 1
        if found == "verbatim":
            verbatim += 1
        elif found == "summary":
            summary += 1
        else:
            missing.append(fact.id)
            continue
        by_kind[fact.kind][0] += 1
    return FactRetention(
        total=len(facts),
        verbatim=verbatim,
        summary=summary,
        by_kind={k: (v[0], v[1]) for k, v in by_kind.items() if v[1]},
        missing=tuple(missing),
    )
