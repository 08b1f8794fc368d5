"""Sessions in PostgreSQL (see :mod:`summem.stores.postgres.store`).

One module a concept: the shape of an operation and row parsing (``op``), the schema, its
migrations and every statement (``schema``), the operations on sessions (``operations``), their
branches (``branching``), recall search (``search``), the spend ledger (``spend``), running
operations on a sync or async pool (``runner``), and the two stores (``store``).
"""

from __future__ import annotations

from summem.stores.postgres.store import AsyncPostgresStore, PostgresStore

__all__ = ["AsyncPostgresStore", "PostgresStore"]
