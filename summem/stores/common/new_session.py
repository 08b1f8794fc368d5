"""Checking a whole session before a store creates it in one write (``Store.create``).

Every backend runs :func:`prepare_new_session` first, outside any lock or transaction: it reads
the caller's history once, checks that the watermark fits it and that the summary is one, and
encodes every record. A bad input therefore fails with the same clear error on every backend
(the in-memory one included, although it keeps objects), and before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from summem._words import a
from summem.errors import StoreError
from summem.messages import Message
from summem.stores.base import encode_message

__all__ = ["NewSession", "prepare_new_session"]


@dataclass(frozen=True)
class NewSession:
    """A session to create, checked, with each record already encoded."""

    history: list[Message]
    bodies: list[str]
    system: Message | None
    system_body: str | None
    summary: Message | None
    summary_body: str | None
    watermark: int

    def log_entry(self) -> str | None:
        """The summary log entry ``{"id", "w", "m"}`` (Redis keeps the log as JSON), if any."""
        if self.summary is None or self.summary_body is None:
            return None
        entry = {"id": self.summary.id, "w": self.watermark, "m": self.summary_body}
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def prepare_new_session(
    name: str,
    history: Iterable[Message],
    system: Message | None,
    summary: Message | None,
    watermark: int,
) -> NewSession:
    """Check and encode a session for ``Store.create``.

    Raises:
        StoreError: naming the session and what is wrong (nothing has been written).
    """
    try:
        batch = list(history)
    except Exception as exc:
        raise StoreError(
            f"session {name!r}: the history to create cannot be read ({type(exc).__name__}: "
            f"{str(exc)[:200]})"
        ) from exc
    bodies = [_encode(m, name, f"history[{i}]") for i, m in enumerate(batch)]
    if isinstance(watermark, bool) or not isinstance(watermark, int):
        raise StoreError(f"session {name!r}: watermark must be an int, got {watermark!r}")
    if not 0 <= watermark <= len(batch):
        raise StoreError(
            f"session {name!r}: watermark {watermark} does not fit a history of {len(batch)}"
        )
    if summary is not None and (not isinstance(summary, Message) or not summary.is_summary):
        raise StoreError(f"session {name!r}: the summary has no summary_info provenance")
    return NewSession(
        history=batch,
        bodies=bodies,
        system=system,
        system_body=None if system is None else _encode(system, name, "system message"),
        summary=summary,
        summary_body=None if summary is None else _encode(summary, name, "summary"),
        watermark=watermark,
    )


def _encode(message: object, name: str, where: str) -> str:
    if not isinstance(message, Message):
        raise StoreError(f"session {name!r}: {where} is {a(type(message).__name__)}, not a Message")
    try:
        return encode_message(message)
    except Exception as exc:
        raise StoreError(
            f"session {name!r}: {where} cannot be stored ({type(exc).__name__}: {str(exc)[:200]})"
        ) from exc
