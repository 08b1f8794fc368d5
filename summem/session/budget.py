"""A spend limit bound to one memory's store: where its checks read and its charges go.

A :class:`~summem.observe.spend.SpendLimit` may serve memories on different stores, so the
ledger is chosen per memory: the store's own when it keeps one (shared by every process on
the store, kept across restarts), else the limit's in-process one. Charges also go to the
limit's in-process ledger, so :meth:`SpendLimit.spent` shows what this process spent, and a
check reads both: the store's ledger holds every process's spend on that store, the limit's
what this process spent through it on any store (memories sharing the limit share its budget,
as without a ledger); each is part of the truth, so the larger of each figure counts.

The check and the charge are separate store calls around the summarizer call: workers that
check together may all call the LLM, so the budget can be overrun by what the calls in flight
when it runs out spend (each span's call is checked on its own).
"""

from __future__ import annotations

import logging
import math

from summem._flow import Flow
from summem.errors import StoreError
from summem.observe.ledger import Spent
from summem.observe.spend import SpendLimit
from summem.session.steps import StoreSteps

__all__ = ["Budget"]

logger = logging.getLogger("summem")


class Budget:
    """``limit`` over ``store``'s ledger when it has one.

    Args:
        limit: the spend limit.
        store: the memory's store steps (``None``: the limit's in-process ledger only).
    """

    def __init__(self, limit: SpendLimit, store: StoreSteps | None) -> None:
        self.limit = limit
        self.store = store if store is not None and store.spend_ledger else None

    def key(self, session_id: str) -> str:
        """The budget ``session_id`` draws on."""
        return self.limit.key(session_id)

    def spent(self, key: str) -> Flow[Spent]:
        """What ``key`` spent in the window, read from the ledger.

        Raises:
            StoreError: the store's ledger cannot be read (the reduction fails, and backs off).
        """
        local = self.limit.spent(key)
        if self.store is None:
            return local
        shared = yield from self.store.spent_since(self.limit.ledger_key(key), self.limit.horizon())
        return Spent(max(local.tokens, shared.tokens), max(local.cost_usd, shared.cost_usd))

    def charge(self, key: str, tokens: int, cost_usd: float) -> Flow[None]:
        """Record one call's spend; a store that cannot record it is logged, not raised.

        The call is paid for by then: failing the reduction would waste it.
        """
        tokens, cost_usd = _chargeable(key, tokens, cost_usd)
        self.limit.charge(key, tokens, cost_usd)
        if self.store is None or (not tokens and not cost_usd):
            return
        try:
            yield from self.store.record_spend(
                self.limit.ledger_key(key),
                at=self.limit.now(),
                tokens=int(tokens),
                cost_usd=float(cost_usd),
                prune_before=self.limit.prune_horizon(),
            )
        except StoreError as exc:
            logger.warning("spend for %r not recorded in the store: %s", key, exc)


def _chargeable(key: str, tokens: object, cost_usd: object) -> tuple[int, float]:
    """What a call's usage adds to the budget: a figure that is no count or no price adds 0.

    A summarizer (or a provider) may report a NaN, negative or missing figure; the call is
    paid for by then, so the figure is logged and left out rather than failing the turn.
    """

    def usable(value: object) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        number = float(value)
        return number if math.isfinite(number) and number >= 0 else None

    t, c = usable(tokens), usable(cost_usd)
    if t is None or c is None:
        logger.warning(
            "spend for %r has an unusable figure (tokens=%r, cost_usd=%r): that figure counts as 0",
            key,
            tokens,
            cost_usd,
        )
    return int(t or 0), c or 0.0
