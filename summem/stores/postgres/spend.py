"""The PostgreSQL store's spend ledger: table ``spend``, one row per summarizer call.

Rows are found by the SHA-256 of the budget key (keys may be longer than a B-tree entry
allows, as session ids are) and the key itself; each write prunes the key's rows at or before
the window's start in the same transaction. Times are the spend limit's clock, not the
server's: the window is the limit's. The holds of calls in flight are in ``spend_holds``; a
reservation takes the key's advisory lock for its transaction, so racing reservations on one
key check and hold one after the other.
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
from summem.stores.postgres.schema import SPEND_LOCK_CLASS, name_key
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

    def _op_reserve_spend(self, key: str, hold: Hold) -> Transaction[Reserved]:
        key, hold = check_hold(key, hold)
        q, hashed = self._sql, name_key(key)
        since = -math.inf if hold.since is None else hold.since

        def steps() -> Steps[Reserved]:
            _, _, rows = yield batch(
                Query(q.SPEND_LOCK, (SPEND_LOCK_CLASS, key)),
                Query(q.EXPIRE_HOLDS, (hashed, key, hold.at)),
                Query(q.SPENT_AND_HELD, (hashed, key, since, hashed, key, hold.hold_id)),
            )
            spent = Spent(int(rows[0][0]), float(rows[0][1]))
            if exhausted(spent, hold.max_tokens, hold.max_cost_usd):
                return Reserved(False, spent)
            row = (hashed, key, hold.hold_id, hold.expires_at, hold.tokens, hold.cost_usd)
            yield batch(Query(q.PUT_HOLD, row), final=True)
            return Reserved(True, spent)

        return Transaction(None, "reserve_spend", steps)

    def _op_settle_spend(self, key: str, settle: Settle) -> Transaction[None]:
        hold_id, at, tokens, cost_usd, prune_before = settle
        key, at, tokens, cost_usd, prune_before = check_spend_entry(
            key, at, tokens, cost_usd, prune_before
        )
        check_hold_id(hold_id)
        q, hashed = self._sql, name_key(key)
        queries = [
            Query(q.DROP_HOLD, (hashed, key, hold_id)),
            Query(q.SETTLE_SPEND, (hashed, key, at, tokens, cost_usd, hold_id)),
        ]
        if prune_before is not None:
            queries.append(Query(q.PRUNE_SPEND, (hashed, key, prune_before)))

        def steps() -> Steps[None]:
            yield batch(*queries, final=True)

        return Transaction(None, "settle_spend", steps)

    def _op_release_spend(self, key: str, hold_id: str) -> Transaction[None]:
        key, hold_id = check_spend_key(key), check_hold_id(hold_id)
        query = Query(self._sql.DROP_HOLD, (name_key(key), key, hold_id))

        def steps() -> Steps[None]:
            yield batch(query, final=True)

        return Transaction(None, "release_spend", steps)
