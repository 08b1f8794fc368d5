"""Spend limits: a budget of summarizer tokens or cost, per session or per tenant, over a window.

A :class:`SpendLimit` is given to ``Memory`` / ``AsyncMemory`` (``spend_limit=``); give the
same object to every memory of a process that shares the budget. Before each summarizer call
the memory **reserves** an estimate of the call's spend (the span, the previous summary and
the prompt in, the reply's room out, priced by the model) in the ledger, in one atomic step
with the check: the call may use the LLM only while what the key spent in the window, plus
the holds of the calls still in flight, is under every limit. Once the budget is exhausted,
the call is made without the LLM (a fallback chain goes on with its other steps: extractive,
then truncation) and a :class:`~summem.events.SpendLimitReached` event says so. When the
call returns, its hold is **settled** with what it spent (accepted or rejected), or released
if it failed without spending; a hold left by a process that died meanwhile lapses after
``hold_ttl_seconds``.

Where the spend is kept: a memory whose store keeps a spend ledger
(:class:`~summem.observe.ledger.SpendLedger`: SQLite, PostgreSQL, Redis, in-memory) records
and reads it there, so the budget holds across restarts and is shared by every process and
worker on that store (each with its own ``SpendLimit`` of the same settings); otherwise in
this object, in this process. Memories racing for one budget (threads, processes, workers on
one store) therefore never start more calls than it allows one at a time: as without
concurrency, the one call that starts under a limit may take the spend past it. The object's
own :meth:`SpendLimit.spent` and :meth:`SpendLimit.allows` see what went through it in this
process.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Literal

from summem.errors import ConfigurationError
from summem.observe.ledger import Hold, LocalSpendLedger, Reserved, Spent, exhausted

__all__ = ["DEFAULT_HOLD_TTL_SECONDS", "LEDGER_RETENTION_SECONDS", "SpendLimit", "Spent"]

#: A store's ledger keeps each entry at least this long (or a limit's window, if longer), so
#: limits with shorter windows sharing a key never prune what a longer one still counts.
LEDGER_RETENTION_SECONDS = 7 * 86_400.0

DEFAULT_HOLD_TTL_SECONDS = 900.0
"""How long a call's hold lasts if it is never settled (its process died): longer than a
summarizer call with its retries takes."""


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
        hold_ttl_seconds: how long a call's hold on the budget lasts if it is never settled
            (the process died during the call); the clock is ``clock``, so it must be shared.

    Raises:
        ConfigurationError: neither limit given, a negative limit, or a bad scope, window or
            hold TTL.
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
        hold_ttl_seconds: float = DEFAULT_HOLD_TTL_SECONDS,
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
        if (
            isinstance(hold_ttl_seconds, bool)
            or not isinstance(hold_ttl_seconds, (int, float))
            or not 0 < hold_ttl_seconds < math.inf
        ):
            raise ConfigurationError(
                f"hold_ttl_seconds must be a positive, finite number of seconds, got "
                f"{hold_ttl_seconds!r}"
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
        self.hold_ttl_seconds = float(hold_ttl_seconds)
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
        return not exhausted(spent, self.max_tokens, self.max_cost_usd)

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

    def hold(self, hold_id: str, tokens: int, cost_usd: float) -> Hold:
        """A hold of ``tokens`` and ``cost_usd`` for one call, on this limit, as of now."""
        now = self._clock()
        return Hold(
            hold_id=hold_id,
            at=now,
            expires_at=now + self.hold_ttl_seconds,
            tokens=int(tokens),
            cost_usd=float(cost_usd),
            since=self.horizon(),
            max_tokens=self.max_tokens,
            max_cost_usd=self.max_cost_usd,
        )

    def reserve(self, key: str, hold: Hold) -> Reserved:
        """Take ``hold`` for ``key`` in this process if the budget allows (atomic)."""
        return self._local.reserve_spend(self.ledger_key(key), hold)

    def settle(self, key: str, hold_id: str, tokens: int, cost_usd: float) -> None:
        """Replace ``key``'s hold ``hold_id`` with what the call spent (in this process)."""
        if not tokens and not cost_usd:
            self.release(key, hold_id)
            return
        self._local.settle_spend(
            self.ledger_key(key),
            hold_id,
            at=self._clock(),
            tokens=int(tokens),
            cost_usd=float(cost_usd),
            prune_before=self.horizon(),
        )

    def release(self, key: str, hold_id: str) -> None:
        """Drop ``key``'s hold ``hold_id`` (the call spent nothing)."""
        self._local.release_spend(self.ledger_key(key), hold_id)
