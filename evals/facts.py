"""Planted facts and the check of whether a memory view still carries them.

The generator in :mod:`evals.trajectories` plants each fact's value in exactly one message, so
retention is a string check rather than a model's judgement: the value is verbatim in a kept
message, or the summary holds it in one of its accepted surface forms (``"14 March 2025"``,
``"March 14, 2025"``, ``"2025-03-14"``), or it is lost. This module is what a replay of summem's
engine calls after every reduction cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evals._text import contains_normalized, normalize_text
from summem.messages import Message

__all__ = [
    "ALL_KINDS",
    "KINDS",
    "FactKind",
    "FactRetention",
    "PlantedFact",
    "Presence",
    "fact_present",
    "fact_retention",
    "message_text",
]

FactKind = Literal["code", "name", "date", "preference", "value", "correction"]
KINDS: tuple[FactKind, ...] = ("code", "name", "date", "preference", "value")
"""The kinds planted by turns of their own; ``"correction"`` facts come in pairs of turns."""
ALL_KINDS: tuple[FactKind, ...] = (*KINDS, "correction")
Presence = Literal["verbatim", "summary", False]


@dataclass(frozen=True)
class PlantedFact:
    """One fact planted in a trajectory.

    Attributes:
        id: ``"f00"``, ``"f01"``... in planting order.
        kind: what sort of detail it is.
        value: the exact string planted; it occurs in one message only.
        turn_index: the user turn (0-based) it was planted in.
        message_index: index in :attr:`Trajectory.messages` of the message holding it.
        role: the role of that message (``user``, ``assistant`` or ``tool``).
        aliases: other surface forms a summary may use for it (``"March 14, 2025"``).
        stale: for a correction, the value it replaced (stated once, earlier).
        stale_index: index of the message that stated ``stale``.
    """

    id: str
    kind: FactKind
    value: str
    turn_index: int
    message_index: int
    role: str
    aliases: tuple[str, ...] = ()
    stale: str | None = None
    stale_index: int | None = None


def message_text(message: Message | Mapping[str, Any]) -> str:
    """Everything a model reads in one message: content text, tool call names and arguments."""
    data = message.to_openai() if isinstance(message, Message) else message
    content = data.get("content")
    parts: list[str] = []
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        parts.extend(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    for call in data.get("tool_calls") or ():
        fn = call.get("function") or {}
        parts.append(f"{fn.get('name', '')}({fn.get('arguments', '')})")
    return "\n".join(parts)


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
