"""A session's record as the SQL stores keep it (SQLite, PostgreSQL), and its checks.

Both keep one row a session (key, epoch, version, length, watermark, the system message and
the summary, encoded) and one row a message (position, body); reading them back, checking the
compare-and-set and the positions, and decoding are the same on both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from summem.errors import ConflictError, CorruptRecordError
from summem.messages import Message
from summem.stores.base import SessionState, decode_message

__all__ = ["Meta", "Versioned", "check_expected", "decode_opt", "decode_positions"]


@dataclass(frozen=True)
class Meta:
    """A session's row: its key, epoch, version, length, watermark and encoded messages."""

    sid: int
    epoch: str
    version: int
    length: int
    watermark: int
    system: str | None
    summary: str | None

    def state(self, name: str, tail: list[Message]) -> SessionState:
        """The session's state, with ``tail = history[k:]`` read beside this row."""
        return SessionState(
            session_id=name,
            system=decode_opt(self.system, name, "system message"),
            summary=decode_opt(self.summary, name, "summary"),
            watermark=self.watermark,
            length=self.length,
            version=self.version,
            epoch=self.epoch,
            tail=tail,
        )


class Versioned(Protocol):
    """What a compare-and-set compares: a session's epoch and version."""

    @property
    def epoch(self) -> str:
        """Fixed at the session's creation."""

    @property
    def version(self) -> int:
        """Changes on every commit, rollback and clear."""


V = TypeVar("V", bound=Versioned)


def check_expected(name: str, found: V | None, version: int, epoch: str | None) -> V:
    """The compare-and-set, the same on every store: ``found`` is at ``version`` (and ``epoch``).

    Raises:
        ConflictError: the session is gone (``found`` is ``None``), was created again, or moved.
    """
    if found is None:
        raise ConflictError(f"session {name!r} no longer exists")
    if epoch is not None and found.epoch != epoch:
        raise ConflictError(f"session {name!r} was deleted and created again")
    if found.version != version:
        raise ConflictError(
            f"session {name!r} moved: version is {found.version}, expected {version}"
        )
    return found


def decode_positions(name: str, rows: Iterable[tuple[Any, Any]], lo: int, hi: int) -> list[Message]:
    """``history[lo:hi]`` from its ``(position, body)`` rows: every position there, in order.

    Raises:
        CorruptRecordError: a position is missing, or a message cannot be decoded.
    """
    rows = list(rows)
    if [pos for pos, _ in rows] != list(range(lo, hi)):
        raise CorruptRecordError(
            f"session {name!r}: history positions {lo}..{hi - 1} are missing or out of order"
        )
    return [
        decode_message(body, session_id=name, where=f"message at position {pos}")
        for pos, body in rows
    ]


def decode_opt(body: Any, name: str, where: str) -> Message | None:
    """A stored message that may be absent (the system message, the summary)."""
    return None if body is None else decode_message(body, session_id=name, where=where)
