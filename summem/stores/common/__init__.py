"""What the backends share below their own packages.

- :mod:`~summem.stores.common.operations`: a store operation (:class:`StoreOp`), the arguments
  of the writes, and the builders an operation-based backend (PostgreSQL, Redis) writes once;
- :mod:`~summem.stores.common.shells`: the sync and async stores over those builders (each
  backend adds only how to run one operation);
- :mod:`~summem.stores.common.direct`: the same for stores that work in this process (memory,
  SQLite, the adapter of a sync store);
- :mod:`~summem.stores.common.new_session`: checking a whole session before ``create``;
- :mod:`~summem.stores.common.rows`: a session's row in the SQL stores, and its checks;
- :mod:`~summem.stores.common.schema_compat`: schema versions and "compatible down to" markers.

The backends (``memory``, ``sqlite/``, ``postgres/``, ``redis/``) sit above this layer and never
import each other (an import-linter contract in ``pyproject.toml``).
"""
