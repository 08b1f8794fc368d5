"""The spend ledger: what summarization spent, by budget key and time, for spend limits.

A :class:`~summem.observe.spend.SpendLimit` decides from a ledger whether the next summarizer
call may use the LLM. A store that keeps a ledger itself (:class:`SpendLedger`, or
:class:`AsyncSpendLedger` for async stores: SQLite, PostgreSQL, Redis, and the in-memory
store) makes the budget hold across restarts and across every process sharing the store;
:class:`LocalSpendLedger` is the in-process one (a memory whose store has no ledger, and the
in-memory store itself).

Entries are ``(at, tokens, cost_usd)`` under a key; a window is "entries after ``since``".
Each write prunes the key's entries at or before ``prune_before`` (the window's start), so a
key holds at most one window of entries.
"""

from __future__ import annotations

import math
import re
import threading
from collections import deque
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from summem.errors import ConfigurationError

__all__ = [
    "MAX_SPEND_KEY_LENGTH",
    "AsyncSpendLedger",
    "LocalSpendLedger",
    "SpendLedger",
    "Spent",
    "check_since",
    "check_spend_entry",
    "check_spend_key",
]

MAX_SPEND_KEY_LENGTH = 1100
"""A session id (1024 characters) and a scope's name fit."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Spent:
    """What one budget key spent in the current window."""

    tokens: int
    cost_usd: float


def check_spend_key(key: object) -> str:
    """Return ``key`` if a ledger can keep it.

    Raises:
        ConfigurationError: not a non-empty string, too long, or with control characters.
    """
    if not isinstance(key, str) or not key:
        raise ConfigurationError(f"spend key must be a non-empty string, got {key!r}")
    if len(key) > MAX_SPEND_KEY_LENGTH:
        raise ConfigurationError(
            f"spend key is {len(key)} characters; the limit is {MAX_SPEND_KEY_LENGTH}"
        )
    if _CONTROL.search(key):
        raise ConfigurationError("spend key must not contain control characters")
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigurationError("spend key must be valid unicode (no surrogates)") from None
    return key


def check_since(name: str, value: object) -> float | None:
    """Return ``value`` (a time in seconds, or ``None``) if usable.

    Raises:
        ConfigurationError: naming ``name``, when not a finite number.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigurationError(f"{name} must be a finite number of seconds, got {value!r}")
    return float(value)


def check_spend_entry(
    key: object, at: object, tokens: object, cost_usd: object, prune_before: object
) -> tuple[str, float, int, float, float | None]:
    """The arguments of :meth:`SpendLedger.record_spend`, checked.

    Raises:
        ConfigurationError: naming the argument that is wrong.
    """
    name = check_spend_key(key)
    when = check_since("at", at)
    if when is None:
        raise ConfigurationError("at must be a finite number of seconds, got None")
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ConfigurationError(f"tokens must be an int >= 0, got {tokens!r}")
    if (
        isinstance(cost_usd, bool)
        or not isinstance(cost_usd, int | float)
        or not math.isfinite(cost_usd)
        or cost_usd < 0
    ):
        raise ConfigurationError(f"cost_usd must be a finite number >= 0, got {cost_usd!r}")
    return name, when, tokens, float(cost_usd), check_since("prune_before", prune_before)


@runtime_checkable
class SpendLedger(Protocol):
    """A store that keeps a spend ledger (an optional capability, like search).

    Every :class:`~summem.observe.spend.SpendLimit` given to a memory on such a store records
    and reads spend here, so processes sharing the store share the budget.
    """

    def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """Add one entry under ``key``; drop the key's entries at or before ``prune_before``.

        Raises:
            ConfigurationError: a bad key, time, token count or cost.
        """

    def spent_since(self, key: str, since: float | None = None) -> Spent:
        """The sum of ``key``'s entries after ``since`` (``None``: all of them).

        Raises:
            ConfigurationError: a bad key or time.
        """


@runtime_checkable
class AsyncSpendLedger(Protocol):
    """The async twin of :class:`SpendLedger`."""

    async def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`SpendLedger.record_spend`."""

    async def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`SpendLedger.spent_since`."""


class LocalSpendLedger:
    """A :class:`SpendLedger` in this process's memory (thread-safe); gone on restart."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, deque[tuple[float, int, float]]] = {}

    def record_spend(
        self,
        key: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`SpendLedger.record_spend`."""
        key, at, tokens, cost_usd, prune_before = check_spend_entry(
            key, at, tokens, cost_usd, prune_before
        )
        with self._lock:
            entries = self._entries.setdefault(key, deque())
            entries.append((at, tokens, cost_usd))
            if prune_before is not None:
                self._prune(key, entries, prune_before)

    def spent_since(self, key: str, since: float | None = None) -> Spent:
        """See :meth:`SpendLedger.spent_since`."""
        key, since = check_spend_key(key), check_since("since", since)
        with self._lock:
            entries = self._entries.get(key, ())
            kept = [e for e in entries if since is None or e[0] > since]
            return Spent(sum(e[1] for e in kept), float(sum(e[2] for e in kept)))

    def _prune(self, key: str, entries: deque[tuple[float, int, float]], before: float) -> None:
        if entries and min(e[0] for e in entries) <= before:
            kept = [e for e in entries if e[0] > before]
            if kept:
                self._entries[key] = deque(kept)
            else:
                del self._entries[key]
