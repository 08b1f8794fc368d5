"""Stores keep sessions; ``open_store(url)`` picks one by the URL's scheme.

Backends are found through the entry-point group ``summem.stores`` (name = URL scheme), the
same path third-party plugins use; the built-ins are registered there as ``memory``, ``sqlite``,
``redis`` and ``postgresql`` (``postgres``). When the entry points are not installed (running
from a source tree) the built-in table below answers instead. A plugin's entry point names a
class with a ``from_url(url)`` classmethod returning a :class:`Store` (or any callable
``url -> Store``), and optionally ``async_from_url(url)`` returning an :class:`AsyncStore` for
:func:`open_async_store`.

Layout: the contract (:mod:`summem.stores.base`) and store URLs (:mod:`summem.stores.url`) at
the bottom; above them the shared layer, :mod:`summem.stores.common` (each method's public
signature written once in ``shells``, over operation builders declared in ``op``; ``direct`` for
stores that do the work in this process; ``rows``, ``new_session``, ``schema_compat``); then
:mod:`summem.stores.adapter` (any sync store behind the async interface); and at the top one
backend a module or package (``memory``, ``sqlite/``, ``postgres/``, ``redis/``), none of which
imports another (import-linter checks it).

Adding a backend:

1. a package ``summem/stores/<name>/`` whose store is a shell over operations: subclass
   :class:`~summem.stores.common.direct.DirectStore` and write ``_load``, ``_append``,
   ``_commit(session_id, commit)``... (the work done in this process; the async twin is then
   an :class:`~summem.stores.adapter.AsyncStoreAdapter`), or write the ``_op_*`` builders of
   :class:`~summem.stores.common.operations.Operations` and a ``_run`` for
   :class:`~summem.stores.common.shells.OpStore` and
   :class:`~summem.stores.common.shells.AsyncOpStore` (two real I/O paths, as PostgreSQL and
   Redis do); give the store ``from_url`` (and ``async_from_url``); add ``<name>`` to the top
   layer of the stores contract in ``pyproject.toml`` (a test checks it);
2. register its URL scheme: an entry point in ``pyproject.toml`` and a line in ``_BUILTIN``
   below, and its class names in ``_LAZY``;
3. register it for the tests: one ``Kind`` subclass named ``<name>`` in ``KINDS`` of
   ``tests/stores/backends.py`` (a test checks that too); the contract suite then runs on
   it, sync and async, and the failure tests as far as its hooks go (a missing hook skips
   them, naming it).

Examples::

    open_store("memory://")
    open_store("sqlite:///summem.db")            # relative to the working directory
    open_store("sqlite:////var/lib/app/summem.db")  # absolute
    open_store("redis://localhost:6379/0")
    open_store("redis+cluster://localhost:7000")     # any node of a Redis Cluster
    open_store("postgresql://app@db.internal:5432/app?schema=summem")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from summem._lazy import lazy_names as _lazy_names
from summem.errors import ConfigurationError
from summem.observe.ledger import AsyncSpendLedger, SpendLedger
from summem.stores.base import (
    AsyncBranchingStore,
    AsyncListingStore,
    AsyncProbingAppendStore,
    AsyncSearchableStore,
    AsyncStore,
    Branch,
    BranchingStore,
    ListingStore,
    ProbingAppendStore,
    SearchableStore,
    SearchHit,
    SessionInfo,
    SessionState,
    Store,
    validate_session_id,
)

if TYPE_CHECKING:
    from summem.stores.adapter import AsyncStoreAdapter
    from summem.stores.memory import AsyncInMemoryStore, InMemoryStore
    from summem.stores.postgres import AsyncPostgresStore, PostgresStore
    from summem.stores.redis import AsyncRedisStore, RedisStore
    from summem.stores.sqlite import AsyncSQLiteStore, SQLiteStore

# The backends load on first use: ``summem.stores.base`` (which every memory needs) must not
# pull in asyncio, sqlite3 and the Redis scripts with it.
_LAZY: dict[str, str] = {
    "AsyncStoreAdapter": "summem.stores.adapter",
    "AsyncInMemoryStore": "summem.stores.memory",
    "InMemoryStore": "summem.stores.memory",
    "AsyncPostgresStore": "summem.stores.postgres",
    "PostgresStore": "summem.stores.postgres",
    "AsyncRedisStore": "summem.stores.redis",
    "RedisStore": "summem.stores.redis",
    "AsyncSQLiteStore": "summem.stores.sqlite",
    "SQLiteStore": "summem.stores.sqlite",
}


__all__ = [
    "ENTRY_POINT_GROUP",
    "AsyncBranchingStore",
    "AsyncInMemoryStore",
    "AsyncListingStore",
    "AsyncPostgresStore",
    "AsyncProbingAppendStore",
    "AsyncRedisStore",
    "AsyncSQLiteStore",
    "AsyncSearchableStore",
    "AsyncSpendLedger",
    "AsyncStore",
    "AsyncStoreAdapter",
    "Branch",
    "BranchingStore",
    "InMemoryStore",
    "ListingStore",
    "PostgresStore",
    "ProbingAppendStore",
    "RedisStore",
    "SQLiteStore",
    "SearchHit",
    "SearchableStore",
    "SessionInfo",
    "SessionState",
    "SpendLedger",
    "Store",
    "available_schemes",
    "open_async_store",
    "open_store",
    "validate_session_id",
]

ENTRY_POINT_GROUP = "summem.stores"

_BUILTIN: dict[str, str] = {
    "memory": "summem.stores.memory:InMemoryStore",
    "sqlite": "summem.stores.sqlite:SQLiteStore",
    "postgresql": "summem.stores.postgres:PostgresStore",
    "postgres": "summem.stores.postgres:PostgresStore",
    "redis": "summem.stores.redis:RedisStore",
    "rediss": "summem.stores.redis:RedisStore",
    "redis+cluster": "summem.stores.redis:RedisStore",
    "rediss+cluster": "summem.stores.redis:RedisStore",
    "unix": "summem.stores.redis:RedisStore",
}


def entry_points(*, group: str) -> Any:
    """``importlib.metadata.entry_points(group=...)``, imported on first use (it is slow)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


def _registered() -> dict[str, Any]:
    """Scheme -> entry point (or built-in ``module:attr`` spec), entry points first."""
    found: dict[str, Any] = dict(_BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found[ep.name.lower()] = ep
    return found


def available_schemes() -> list[str]:
    """Every URL scheme a store is registered for, sorted."""
    return sorted(_registered())


def _resolve(url: str) -> Any:
    from summem.stores.url import parse_store_url  # on first use: keeps imports light

    try:
        scheme = parse_store_url(url).scheme
    except ConfigurationError as exc:
        raise ConfigurationError(
            f"{exc}; known schemes: {', '.join(available_schemes())}"
        ) from None
    registered = _registered()
    target = registered.get(scheme)
    if target is None:
        raise ConfigurationError(
            f"no store for URL scheme {scheme!r}; known schemes: {', '.join(sorted(registered))}"
        )
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)
    try:
        return target.load()
    except ImportError:
        raise  # MissingDependencyError is an ImportError: keep its install hint
    except Exception as exc:
        raise ConfigurationError(f"store plugin for {scheme!r} failed to load: {exc}") from exc


def open_store(url: str) -> Store:
    """Open the store a URL names, e.g. ``sqlite:///summem.db``.

    Raises:
        ConfigurationError: unknown scheme (the message lists the known ones) or a bad URL.
        MissingDependencyError: the backend needs an extra that is not installed.
    """
    backend = _resolve(url)
    store = getattr(backend, "from_url", backend)(url)
    if not isinstance(store, Store):
        raise ConfigurationError(f"the store registered for {url!r} is not a summem Store")
    return store


def open_async_store(url: str) -> AsyncStore:
    """Open the async twin of the store a URL names, e.g. ``redis://localhost:6379/0``.

    Raises:
        ConfigurationError: unknown scheme, a bad URL, or a backend without an async twin.
        MissingDependencyError: the backend needs an extra that is not installed.
    """
    backend = _resolve(url)
    factory = getattr(backend, "async_from_url", None)
    if factory is None:
        raise ConfigurationError(f"the store registered for {url!r} has no async variant")
    store = factory(url)
    if not isinstance(store, AsyncStore):
        raise ConfigurationError(f"the store registered for {url!r} is not a summem AsyncStore")
    return store


__getattr__, __dir__ = _lazy_names(globals(), _LAZY)
