"""Planted facts: the details a trajectory family plants at known turns, and where.

The generator in :mod:`evals.families.trajectories` plants each fact's value in exactly one
message, with the other surface forms a summary may use for it (``"March 14, 2025"`` for
``"14 March 2025"``), so whether a view still carries it is a string check
(:mod:`evals.metrics.retention`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from summem.messages import Message

__all__ = [
    "ALL_KINDS",
    "KINDS",
    "FactKind",
    "PlantedFact",
    "message_text",
]

FactKind = Literal["code", "name", "date", "preference", "value", "correction"]
KINDS: tuple[FactKind, ...] = ("code", "name", "date", "preference", "value")
"""The kinds planted by turns of their own; ``"correction"`` facts come in pairs of turns."""
ALL_KINDS: tuple[FactKind, ...] = (*KINDS, "correction")


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
        older: for a correction in a chain, the values before ``stale``, oldest first (each
            stated once, earlier); a view holding any of them holds a stale value too.
        until: index of the message that supersedes this value (the next correction in its
            chain); from there on the fact is no longer asked about (``None``: never).
        rejected: options offered beside ``value`` and not chosen (a confirmation); a view
            holding one of them without the choice leaves the reader to guess.
        confirm_index: index of the message that accepted ``value`` (a confirmation).
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
    older: tuple[str, ...] = ()
    until: int | None = None
    rejected: tuple[str, ...] = ()
    confirm_index: int | None = None

    @property
    def stale_values(self) -> tuple[str, ...]:
        """Every value this one replaced, newest first (empty when it replaced none)."""
        if self.stale is None:
            return ()
        return (self.stale, *reversed(self.older))


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
