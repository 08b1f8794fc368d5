"""The embedded default store: one SQLite file (see :mod:`summem.stores.sqlite.store`).

One module a concept: opening the file read-write or read-only (``access``), connections,
transactions and migrations (``file``), the schema and every statement (``schema``), reading and
checking a session's rows (``rows``), creating a whole session (``create``), recall search
(``recall`` over ``search`` and ``scan``), the spend ledger (``spend``), and the store with its
async twin (``store``).
"""

from __future__ import annotations

from summem.stores.sqlite.schema import MIGRATIONS
from summem.stores.sqlite.store import AsyncSQLiteStore, SQLiteStore

__all__ = ["MIGRATIONS", "AsyncSQLiteStore", "SQLiteStore"]
