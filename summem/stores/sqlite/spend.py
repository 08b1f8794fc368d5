"""The SQLite store's spend ledger: table ``spend``, one row per summarizer call.

Each write prunes the key's rows at or before the window's start in the same transaction.
Times are the spend limit's clock: the window is the limit's. Mixed into
:class:`~summem.stores.sqlite.SQLiteStore` as its
:class:`~summem.observe.ledger.SpendLedger` side.
"""

from __future__ import annotations

import math

from summem.observe.ledger import Spent, check_since, check_spend_entry, check_spend_key
from summem.stores.common.operations import SpendEntry
from summem.stores.sqlite.file import SQLiteFile
from summem.stores.sqlite.schema import SQL

__all__ = ["SQLiteSpend"]


class SQLiteSpend:
    """``record_spend`` and ``spent_since`` on the store's file."""

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
