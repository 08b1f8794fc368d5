"""Spend limits: a budget of summarizer tokens or cost, per session or per tenant, over a window.

A :class:`SpendLimit` is given to ``Memory`` / ``AsyncMemory`` (``spend_limit=``); give the
same object to every memory of a process that shares the budget. Before each summarizer call
the memory checks what the budget's key spent in the window (:meth:`SpendLimit.within`);
once the budget is exhausted, the call is made without the LLM (a fallback chain goes on
with its other steps: extractive, then truncation) and a
:class:`~summem.events.SpendLimitReached` event says so. What each call spent (accepted
or rejected) is charged after it returns.

Where the spend is kept: a memory whose store keeps a spend ledger
(:class:`~summem.observe.ledger.SpendLedger`: SQLite, PostgreSQL, Redis, in-memory) records
and reads it there, so the budget holds across restarts and is shared by every process and
worker on that store (each with its own ``SpendLimit`` of the same settings); otherwise in
this object, in this process. Checking then charging is
not atomic across workers: calls already in flight when the budget runs out still finish and
are charged (the overshoot is at most what those calls spend). The object's own
:meth:`SpendLimit.spent` and :meth:`SpendLimit.allows` see what went through it in this
process.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Literal

from summem.errors import ConfigurationError
from summem.observe.ledger import LocalSpendLedger, Spent

__all__ = ["LEDGER_RETENTION_SECONDS", "SpendLimit", "Spent"]

#: A store's ledger keeps each entry at least this long (or a limit's window, if longer), so
#: limits with shorter windows sharing a key never prune what a longer one still counts.
LEDGER_RETENTION_SECONDS = 7 * 86_400.0


class SpendLimit:
    """A budget for summarization: ``max_tokens`` (in + out) and/or ``max_cost_usd``.

    Args:
        max_tokens: summarizer tokens (input plus output) allowed per window.
        max_cost_usd: summarizer cost allowed per window (litellm's bundled prices).
        window_seconds: the sliding window; ``None``: no window (in a store's ledger: all
            the spend it holds for the key, which stops growing once the budget is spent).
        scope: ``"session"`` (one budget per session id) or ``"prefix"`` (one per tenant:
            the session id up to ``separator``, e.g. ``acme`` for ``acme:chat-42``).
        separator: where a tenant prefix ends.
        clock: wall-clock seconds; injectable for tests.

    Raises:
        ConfigurationError: neither limit given, a negative limit, or a bad scope or window.
    """

    def __init__(
        self,
        *,
        max_tokens: int | None = None,
        max_cost_usd: float | None = None,
        window_seconds: float | None = None,
        scope: Literal["session", "prefix"] = "session",
        separator: str = ":",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_tokens is None and max_cost_usd is None:
            raise ConfigurationError("a SpendLimit needs max_tokens, max_cost_usd, or both")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0
        ):
            raise ConfigurationError(f"max_tokens must be a whole number >= 0, got {max_tokens!r}")
        if max_cost_usd is not None and (
            isinstance(max_cost_usd, bool)
            or not isinstance(max_cost_usd, (int, float))
            or not 0 <= max_cost_usd < math.inf
        ):
            raise ConfigurationError(
                f"max_cost_usd must be a finite number of dollars >= 0, got {max_cost_usd!r}"
            )
        if window_seconds is not None and (
            isinstance(window_seconds, bool)
            or not isinstance(window_seconds, (int, float))
            or not 0 < window_seconds < math.inf
        ):
            raise ConfigurationError(
                f"window_seconds must be a positive, finite number of seconds (None: no "
                f"window), got {window_seconds!r}"
            )
        if scope not in ("session", "prefix"):
            raise ConfigurationError(f"scope must be 'session' or 'prefix', got {scope!r}")
        if not separator:
            raise ConfigurationError("separator must be a non-empty string")
        self.max_tokens = max_tokens
        self.max_cost_usd = max_cost_usd
        self.window_seconds = window_seconds
        self.scope = scope
        self.separator = separator
        self._clock = clock
        self._local = LocalSpendLedger()

    def __repr__(self) -> str:
        return (
            f"SpendLimit(max_tokens={self.max_tokens!r}, max_cost_usd={self.max_cost_usd!r}, "
            f"window_seconds={self.window_seconds!r}, scope={self.scope!r})"
        )

    def key(self, session_id: str) -> str:
        """The budget ``session_id`` draws on."""
        if self.scope == "prefix":
            return session_id.split(self.separator, 1)[0]
        return session_id

    def ledger_key(self, key: str) -> str:
        """Where ``key``'s spend is kept in a ledger (the scope first: ``prefix:acme``)."""
        return f"{self.scope}:{key}"

    def now(self) -> float:
        """The limit's clock."""
        return self._clock()

    def horizon(self) -> float | None:
        """Where the window starts now: entries at or before it no longer count."""
        return None if self.window_seconds is None else self._clock() - self.window_seconds

    def prune_horizon(self) -> float | None:
        """Where a store's ledger may drop entries: a week back, or the window if longer."""
        if self.window_seconds is None:
            return None
        return self._clock() - max(self.window_seconds, LEDGER_RETENTION_SECONDS)

    def within(self, spent: Spent) -> bool:
        """True while ``spent`` is under every limit."""
        if self.max_tokens is not None and spent.tokens >= self.max_tokens:
            return False
        return not (self.max_cost_usd is not None and spent.cost_usd >= self.max_cost_usd)

    def spent(self, key: str) -> Spent:
        """What ``key`` spent in the current window, through this object in this process."""
        return self._local.spent_since(self.ledger_key(key), self.horizon())

    def allows(self, key: str) -> bool:
        """True while ``key`` is under every limit (in this process; see :meth:`spent`)."""
        return self.within(self.spent(key))

    def charge(self, key: str, tokens: int, cost_usd: float) -> None:
        """Record what one summarizer call spent for ``key`` (in this process)."""
        if not tokens and not cost_usd:
            return
        self._local.record_spend(
            self.ledger_key(key),
            at=self._clock(),
            tokens=int(tokens),
            cost_usd=float(cost_usd),
            prune_before=self.horizon(),
        )
