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

A call is paid for in two steps, so that processes racing for one budget never pass it
together: :meth:`SpendLedger.reserve_spend` checks the budget and takes a **hold** (an
estimate of the call's spend) in one atomic step, counting the holds of calls still in
flight; :meth:`SpendLedger.settle_spend` replaces the hold with what the call spent, or
:meth:`SpendLedger.release_spend` drops it when nothing was spent. A hold left by a process
that died in between expires at its ``expires_at``, so a crash never keeps budget for ever.
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
    "Hold",
    "LocalSpendLedger",
    "Reserved",
    "SpendLedger",
    "Spent",
    "check_hold",
    "check_hold_id",
    "check_since",
    "check_spend_entry",
    "check_spend_key",
    "exhausted",
]

MAX_SPEND_KEY_LENGTH = 1100
"""A session id (1024 characters) and a scope's name fit."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HOLD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class Spent:
    """What one budget key spent in the current window."""

    tokens: int
    cost_usd: float


@dataclass(frozen=True)
class Hold:
    """A reservation asked of a ledger: hold ``tokens`` and ``cost_usd`` for one call.

    Attributes:
        hold_id: names the hold (unique per call; settling or releasing it names it again).
        at: now, on the spend limit's clock.
        expires_at: when the hold lapses if it is never settled nor released.
        tokens: the call's estimated tokens (in + out).
        cost_usd: the call's estimated cost.
        since: the window's start (entries at or before it do not count; ``None``: all).
        max_tokens: the token limit (``None``: none).
        max_cost_usd: the cost limit (``None``: none).
    """

    hold_id: str
    at: float
    expires_at: float
    tokens: int
    cost_usd: float
    since: float | None
    max_tokens: int | None
    max_cost_usd: float | None


@dataclass(frozen=True)
class Reserved:
    """A ledger's answer to :meth:`SpendLedger.reserve_spend`.

    Attributes:
        granted: the hold was taken (the call may be made).
        spent: what counted against the limits: the window's entries plus the holds of
            calls in flight (this one's not included).
    """

    granted: bool
    spent: Spent


def exhausted(spent: Spent, max_tokens: int | None, max_cost_usd: float | None) -> bool:
    """True once ``spent`` reaches a limit: a call may start only while under every one."""
    if max_tokens is not None and spent.tokens >= max_tokens:
        return True
    return max_cost_usd is not None and spent.cost_usd >= max_cost_usd


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


def check_hold_id(hold_id: object) -> str:
    """Return ``hold_id`` if a ledger can keep it (1 to 64 letters, digits, ``-`` or ``_``).

    Raises:
        ConfigurationError: it is not.
    """
    if not isinstance(hold_id, str) or not _HOLD_ID.fullmatch(hold_id):
        raise ConfigurationError(
            f"hold_id must be 1 to 64 letters, digits, '-' or '_', got {hold_id!r}"
        )
    return hold_id


def check_hold(key: object, hold: object) -> tuple[str, Hold]:
    """The arguments of :meth:`SpendLedger.reserve_spend`, checked.

    Raises:
        ConfigurationError: naming what is wrong.
    """
    if not isinstance(hold, Hold):
        raise ConfigurationError(f"hold must be a Hold, got {type(hold).__name__}")
    name, at, tokens, cost, since = check_spend_entry(
        key, hold.at, hold.tokens, hold.cost_usd, hold.since
    )
    check_hold_id(hold.hold_id)
    expires = check_since("expires_at", hold.expires_at)
    if expires is None or expires <= at:
        raise ConfigurationError(f"expires_at must be after at, got {hold.expires_at!r}")
    limit_tokens = hold.max_tokens
    if limit_tokens is not None and (
        isinstance(limit_tokens, bool) or not isinstance(limit_tokens, int) or limit_tokens < 0
    ):
        raise ConfigurationError(f"max_tokens must be an int >= 0, got {limit_tokens!r}")
    limit_cost = check_since("max_cost_usd", hold.max_cost_usd)
    if limit_cost is not None and limit_cost < 0:
        raise ConfigurationError(f"max_cost_usd must be >= 0, got {limit_cost!r}")
    checked = Hold(hold.hold_id, at, expires, tokens, cost, since, limit_tokens, limit_cost)
    return name, checked


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

    def reserve_spend(self, key: str, hold: Hold) -> Reserved:
        """Check ``key``'s limits and take ``hold``, in one atomic step.

        Holds past their ``expires_at`` are dropped first; the entries after ``hold.since``
        and the live holds count. The hold is taken only while that is under every limit.

        Raises:
            ConfigurationError: a bad key or hold.
        """

    def settle_spend(
        self,
        key: str,
        hold_id: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """Drop the hold ``hold_id`` and add the call's entry, in one atomic step.

        The entry is added even when the hold has expired: the call was paid for. A settle
        repeated (a retry after a lost reply) adds nothing more: the entry is keyed by
        ``hold_id`` until the window prunes it.

        Raises:
            ConfigurationError: a bad key, hold id, time, token count or cost.
        """

    def release_spend(self, key: str, hold_id: str) -> None:
        """Drop the hold ``hold_id`` (nothing was spent); no error when it is gone.

        Raises:
            ConfigurationError: a bad key or hold id.
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

    async def reserve_spend(self, key: str, hold: Hold) -> Reserved:
        """See :meth:`SpendLedger.reserve_spend`."""

    async def settle_spend(
        self,
        key: str,
        hold_id: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`SpendLedger.settle_spend`."""

    async def release_spend(self, key: str, hold_id: str) -> None:
        """See :meth:`SpendLedger.release_spend`."""


class LocalSpendLedger:
    """A :class:`SpendLedger` in this process's memory (thread-safe); gone on restart."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, deque[tuple[float, int, float]]] = {}
        self._holds: dict[str, dict[str, tuple[float, int, float]]] = {}
        self._settled: dict[str, dict[str, float]] = {}  # key -> hold id -> its entry's time

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
            return self._sum(key, since)

    def reserve_spend(self, key: str, hold: Hold) -> Reserved:
        """See :meth:`SpendLedger.reserve_spend`."""
        key, hold = check_hold(key, hold)
        with self._lock:
            holds = self._holds.get(key, {})
            for hold_id in [h for h, (expires, _, _) in holds.items() if expires <= hold.at]:
                del holds[hold_id]
            if not holds:
                self._holds.pop(key, None)
            settled = self._sum(key, hold.since)
            held = [h for h_id, h in holds.items() if h_id != hold.hold_id]
            spent = Spent(
                settled.tokens + sum(h[1] for h in held),
                settled.cost_usd + float(sum(h[2] for h in held)),
            )
            if exhausted(spent, hold.max_tokens, hold.max_cost_usd):
                return Reserved(False, spent)
            self._holds.setdefault(key, holds)[hold.hold_id] = (
                hold.expires_at,
                hold.tokens,
                hold.cost_usd,
            )
            return Reserved(True, spent)

    def settle_spend(
        self,
        key: str,
        hold_id: str,
        *,
        at: float,
        tokens: int,
        cost_usd: float,
        prune_before: float | None = None,
    ) -> None:
        """See :meth:`SpendLedger.settle_spend`."""
        key, at, tokens, cost_usd, prune_before = check_spend_entry(
            key, at, tokens, cost_usd, prune_before
        )
        check_hold_id(hold_id)
        with self._lock:
            self._drop_hold(key, hold_id)
            settled = self._settled.setdefault(key, {})
            entries = self._entries.setdefault(key, deque())
            if hold_id not in settled:  # a settle retried is charged once
                settled[hold_id] = at
                entries.append((at, tokens, cost_usd))
            if prune_before is not None:
                self._prune(key, entries, prune_before)

    def release_spend(self, key: str, hold_id: str) -> None:
        """See :meth:`SpendLedger.release_spend`."""
        key, hold_id = check_spend_key(key), check_hold_id(hold_id)
        with self._lock:
            self._drop_hold(key, hold_id)

    def _drop_hold(self, key: str, hold_id: str) -> None:
        holds = self._holds.get(key)
        if holds is not None:
            holds.pop(hold_id, None)
            if not holds:
                del self._holds[key]

    def _sum(self, key: str, since: float | None) -> Spent:
        entries = self._entries.get(key, ())
        kept = [e for e in entries if since is None or e[0] > since]
        return Spent(sum(e[1] for e in kept), float(sum(e[2] for e in kept)))

    def _prune(self, key: str, entries: deque[tuple[float, int, float]], before: float) -> None:
        settled = self._settled.get(key)
        if settled:
            for hold_id in [h for h, at in settled.items() if at <= before]:
                del settled[hold_id]
            if not settled:
                del self._settled[key]
        if entries and min(e[0] for e in entries) <= before:
            kept = [e for e in entries if e[0] > before]
            if kept:
                self._entries[key] = deque(kept)
            else:
                del self._entries[key]
