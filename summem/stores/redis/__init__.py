"""Sessions in Redis (see :mod:`summem.stores.redis.store`).

One module a concept: the Lua scripts (``scripts``), the keys and the operations written as
(script, keys, arguments, parser) (``operations``), the branch operations (``branching``), and
the two stores that run them (``store``).
"""

from __future__ import annotations

from summem.stores.redis.store import AsyncRedisStore, RedisStore

__all__ = ["AsyncRedisStore", "RedisStore"]
