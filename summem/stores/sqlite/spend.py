"""The SQLite store's spend ledger: table ``spend``, one row per summarizer call.

The holds of calls in flight are in ``spend_holds``; a reservation checks and holds in one
write transaction (the database's write lock), so racing processes see each other's holds.
Each write prunes the key's rows at or before the window's start in the same transaction.
Times are the spend limit's clock: the window is the limit's. Mixed into
:class:`~summem.stores.sqlite.SQLiteStore` as its
:class:`~summem.observe.ledger.SpendLedger` side.
"""

from __future__ import annotations

import math

from summem.observe.ledger import (
    Hold,
    Reserved,
    Spent,
    check_hold,
    check_hold_id,
    check_since,
    check_spend_entry,
    check_spend_key,
    exhausted,
)
from summem.stores.common.operations import Settle, SpendEntry
from summem.stores.sqlite.file import SQLiteFile
from summem.stores.sqlite.schema import SQL

__all__ = ["SQLiteSpend"]


class SQLiteSpend:
    """``record_spend``, ``spent_since`` and the holds on the store's file."""

    _file: SQLiteFile

    def _record_spend(self, key: str, spend: SpendEntry) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.record_spend` (table ``spend``)."""
        at, tokens, cost_usd, prune_before = spend
        key, at, tokens, cost_usd, prune_before = check_spend_entry(
            key, at, tokens, cost_usd, prune_before
        )
        with self._file.tx(None, write="record_spend") as conn:
            conn.execute(SQL.RECORD_SPEND, (key, at, tokens, cost_usd))
            if prune_before is not None:
                conn.execute(SQL.PRUNE_SPEND, (key, prune_before))

    def _spent_since(self, key: str, since: float | None) -> Spent:
        """See :meth:`summem.observe.ledger.SpendLedger.spent_since`."""
        key, since = check_spend_key(key), check_since("since", since)
        with self._file.tx(None) as conn:
            row = conn.execute(SQL.SPENT_SINCE, (key, -math.inf if since is None else since))
            tokens, cost = row.fetchone()
        return Spent(int(tokens), float(cost))

    def _reserve_spend(self, key: str, hold: Hold) -> Reserved:
        """See :meth:`summem.observe.ledger.SpendLedger.reserve_spend` (one write transaction)."""
        key, hold = check_hold(key, hold)
        since = -math.inf if hold.since is None else hold.since
        with self._file.tx(None, write="reserve_spend") as conn:
            conn.execute(SQL.EXPIRE_HOLDS, (key, hold.at))
            tokens, cost = conn.execute(SQL.SPENT_SINCE, (key, since)).fetchone()
            held_tokens, held_cost = conn.execute(SQL.HELD, (key, hold.hold_id)).fetchone()
            spent = Spent(int(tokens) + int(held_tokens), float(cost) + float(held_cost))
            if exhausted(spent, hold.max_tokens, hold.max_cost_usd):
                return Reserved(False, spent)
            conn.execute(
                SQL.PUT_HOLD, (key, hold.hold_id, hold.expires_at, hold.tokens, hold.cost_usd)
            )
        return Reserved(True, spent)

    def _settle_spend(self, key: str, settle: Settle) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.settle_spend` (one transaction)."""
        hold_id, at, tokens, cost_usd, prune_before = settle
        key, at, tokens, cost_usd, prune_before = check_spend_entry(
            key, at, tokens, cost_usd, prune_before
        )
        check_hold_id(hold_id)
        with self._file.tx(None, write="settle_spend") as conn:
            conn.execute(SQL.DROP_HOLD, (key, hold_id))
            conn.execute(SQL.SETTLE_SPEND, (key, at, tokens, cost_usd, hold_id))
            if prune_before is not None:
                conn.execute(SQL.PRUNE_SPEND, (key, prune_before))

    def _release_spend(self, key: str, hold_id: str) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.release_spend`."""
        key, hold_id = check_spend_key(key), check_hold_id(hold_id)
        with self._file.tx(None, write="release_spend") as conn:
            conn.execute(SQL.DROP_HOLD, (key, hold_id))
