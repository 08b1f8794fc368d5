"""The PostgreSQL store's spend ledger: table ``spend``, one row per summarizer call.

Rows are found by the SHA-256 of the budget key (keys may be longer than a B-tree entry
allows, as session ids are) and the key itself; each write prunes the key's rows at or before
the window's start in the same transaction. Times are the spend limit's clock, not the
server's: the window is the limit's.
"""

from __future__ import annotations

import math

from summem.observe.ledger import Spent, check_since, check_spend_entry, check_spend_key
from summem.stores.common.operations import SpendEntry
from summem.stores.postgres.schema import name_key
from summem.stores.postgres.transaction import PgBase, Query, Steps, Transaction, batch

__all__ = ["PgSpend"]


class PgSpend(PgBase):
    """The ledger's operations, each a :class:`~summem.stores.postgres.transaction.Transaction`."""

    def _op_record_spend(self, key: str, spend: SpendEntry) -> Transaction[None]:
        key, at, tokens, cost_usd, prune_before = check_spend_entry(key, *spend)
        q, hashed = self._sql, name_key(key)
        queries = [Query(q.RECORD_SPEND, (hashed, key, at, tokens, cost_usd))]
        if prune_before is not None:
            queries.append(Query(q.PRUNE_SPEND, (hashed, key, prune_before)))

        def steps() -> Steps[None]:
            yield batch(*queries, final=True)

        return Transaction(None, "record_spend", steps)

    def _op_spent_since(self, key: str, since: float | None) -> Transaction[Spent]:
        key, since = check_spend_key(key), check_since("since", since)
        params = (name_key(key), key, -math.inf if since is None else since)

        def steps() -> Steps[Spent]:
            (rows,) = yield batch(Query(self._sql.SPENT_SINCE, params), final=True)
            tokens, cost = rows[0]
            return Spent(int(tokens), float(cost))

        return Transaction(None, None, steps)
